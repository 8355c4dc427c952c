/*
 * `hashjack status` end to end: databases written with the daemon's own
 * store API (daemon/core/store.h: rounds opened by the engine and saved,
 * payouts, payout transactions and batches planned, sent and confirmed, the
 * balance), older schemas made by SQL, then the real `hashjack` binary run
 * on them and its exit status, standard output and standard error compared
 * exactly; --json parsed back with jansson.
 *
 * The worst case of the open rounds is computed here from the preset's
 * numbers and the formula of game/rules.h, not by the engine.  Ages depend
 * on the clock: each run is compared with what the tool prints at every
 * second between the start and the end of the run.
 *
 * The binary is the `hashjack` next to this test in the build directory
 * (or $HJ_HASHJACK).  Every database lives in one mkdtemp directory,
 * removed at the end (tests/tool_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "hex.h"
#include "say.h"
#include "store.h"
#include "table.h"
#include "tool_util.h"

/* Text that depends on the time the tool read the clock. */
typedef void (*expected_fn)(int64_t now, char *buf, size_t n);

/* Exit 0, no error, and the output of some second of the run. */
static void expect_at(const struct res *r, expected_fn want)
{
	char buf[16384];

	if (r->rc == 0 && r->err[0] == '\0') {
		for (int64_t t = r->t0; t <= r->t1; t++) {
			want(t, buf, sizeof buf);
			if (strcmp(buf, r->out) == 0)
				return;
		}
	}
	want(r->t1, buf, sizeof buf);
	expect(r, 0, buf, "");
}

/* The tool's ages, written again here: "35 s ago", "2 min 5 s ago",
 * "3 h 4 min ago", "2 d 1 h ago". */
static const char *ago(int64_t s, char *buf, size_t n)
{
	long long v = s;

	assert_true(v >= 0);
	if (v < 60)
		snprintf(buf, n, "%lld s ago", v);
	else if (v < 3600)
		snprintf(buf, n, "%lld min %lld s ago", v / 60, v % 60);
	else if (v < 86400)
		snprintf(buf, n, "%lld h %lld min ago", v / 3600,
		         v % 3600 / 60);
	else
		snprintf(buf, n, "%lld d %lld h ago", v / 86400,
		         v % 86400 / 3600);
	return buf;
}

/* ---- the worst case, from the rules (game/rules.h's formula) ---- */

static hj_amount max2(hj_amount a, hj_amount b)
{
	return a > b ? a : b;
}

/* The most a round of bet can return: a blackjack, a lost hand's
 * insurance win, one hand doubled and won, or every split hand doubled
 * (when allowed) and won.  No saturation: the test's bets are small, and
 * its tables offer no side bets. */
static hj_amount worst_case(const hj_rules *r, hj_amount bet)
{
	hj_amount bj = bet + bet * r->bj_num / r->bj_den;
	hj_amount ins = bet + bet / 2 * (r->ins_pays + 1);
	hj_amount s2 = r->double_after_split ? 2 * bet : bet;
	hj_amount w = max2(max2(bj, ins), 4 * bet);

	if (r->max_hands > 1)
		w = max2(w, (hj_amount)r->max_hands * 2 * s2);
	return w;
}

static const char *fmt(hj_amount v)
{
	static char buf[8][HJ_AMOUNT_STRLEN];
	static unsigned k;

	return hj_amount_format(v, buf[k++ % 8]);
}

static hj_amount amt(const char *s)
{
	hj_amount v;

	assert_int_equal(hj_amount_parse(s, strlen(s), &v), 0);
	return v;
}

/* ---- building databases with the daemon's store ---- */

/* A payout with the daemon's id ("return:<round>:<hand>", ...) for a
 * transaction recorded here. */
static void add_payout(hj_store *s, const char *kind, uint8_t tag,
                       const hj_id *rcp, const char *amount, uint64_t height)
{
	hj_id t = id_of(tag, 32);
	char id[160], hex[67], err[HJ_ERRLEN] = "";
	hj_payout p = {.kind = kind,
	               .hand = -1,
	               .recipient = rcp,
	               .amount = amt(amount),
	               .height = height};

	add_tx(s, height, tag, rcp, 1000,
	       strcmp(kind, "refund") == 0 ? "rejected" : "accepted",
	       strcmp(kind, "refund") == 0 ? NULL : &t);
	hj_hex_encode(t.b, 32, 0, hex);
	if (strcmp(kind, "refund") == 0) {
		snprintf(id, sizeof id, "refund:%s", hex);
		p.txid = &t;
	} else if (strcmp(kind, "return") == 0) {
		snprintf(id, sizeof id, "return:%s:0", hex);
		p.round = &t;
		p.hand = 0;
	} else {
		snprintf(id, sizeof id, "%s:%s", kind, hex);
		p.round = &t;
	}
	p.id = id;
	if (hj_store_add_payout(s, &p, err, sizeof err))
		fail_msg("add_payout: %s", err);
}

static void no_events(void *ctx, const hj_event *ev)
{
	(void)ctx;
	(void)ev;
}

/* A Bet of player in block height, played by the engine: the round is
 * open, its three cards still to come. */
static void open_round(hj_store *s, hj_table *t, uint64_t height, uint8_t tag,
                       const hj_id *player, hj_amount bet)
{
	hj_card card = {0}; /* a void block: no draw */
	hj_action a;
	size_t n = hj_table_count(t);

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_ACTION;
	a.act = HJ_BET;
	a.tx_index = tag;
	a.txid = id_of(tag, 32);
	a.sender = *player;
	a.value = bet;
	assert_int_equal(
	    hj_table_apply_block(t, height, &card, &a, 1, no_events, NULL), 0);
	assert_int_equal(hj_table_count(t), n + 1);
	add_tx(s, height, tag, player, bet, "accepted", &a.txid);
}

static void set_cursor(hj_store *s, uint64_t height, uint8_t tag)
{
	hj_cursor c;
	char err[HJ_ERRLEN] = "";

	memset(&c, 0, sizeof c);
	c.height = height;
	memset(c.hash, tag, 32);
	if (hj_store_set_cursor(s, &c, err, sizeof err))
		fail_msg("set cursor: %s", err);
}

/* meta.rules as the daemon writes it (hj_rules_format: tests/test_rules_text.c
 * checks that it writes back what this reads), read back into *r. */
static void rules_of(const char *text, hj_rules *r)
{
	char err[HJ_ERRLEN];

	if (hj_rules_parse(text, r, err, sizeof err))
		fail_msg("%s: %s", text, err);
}

/* One payout batch: planned, then (when sent) sent, then (when confirmed)
 * confirmed.  EVM (nonce >= 0): one output, a signed version with hash
 * tag, and one more version per extra.  The txid of a sent EVM batch is
 * its latest version's hash. */
struct plan {
	const char *address, *amount, *payout;
	int64_t nonce; /* -1: the Bitcoin family */
	uint8_t tag;
	int extra_versions;
	int64_t created_at;
	int sent, confirmed;
};

static void batch(hj_store *s, const struct plan *p)
{
	hj_batch_output out = {p->address, amt(p->amount)};
	const char *ids[1] = {p->payout};
	uint8_t raw[4] = {0x02, 0xf8, 0x6d, p->tag}, txid[32];
	hj_tx_version v;
	hj_batch_plan plan;
	char err[HJ_ERRLEN] = "";
	int64_t id;

	memset(&v, 0, sizeof v);
	memset(v.hash, p->tag, 32);
	v.raw = raw;
	v.raw_len = sizeof raw;
	v.max_fee = 2000000000;
	v.priority_fee = 1000000000;
	v.signed_at = p->created_at;
	memset(&plan, 0, sizeof plan);
	plan.height = 300;
	plan.now = p->created_at;
	plan.outs = &out;
	plan.nouts = 1;
	plan.payouts = ids;
	plan.npayouts = 1;
	if (p->nonce >= 0) {
		plan.version = &v;
		plan.nonce = (uint64_t)p->nonce;
		plan.gas_limit = 21000;
	}
	if (hj_store_plan_batch(s, &plan, &id, err, sizeof err))
		fail_msg("plan: %s", err);
	memcpy(txid, v.hash, 32);
	for (int i = 1; i <= p->extra_versions; i++) {
		memset(v.hash, p->tag + i, 32);
		v.signed_at = p->created_at + 60 * i;
		raw[3] = (uint8_t)(p->tag + i);
		if (hj_store_add_version(s, id, &v, err, sizeof err))
			fail_msg("add version: %s", err);
		memcpy(txid, v.hash, 32);
	}
	if (p->nonce < 0)
		memset(txid, p->tag, 32);
	if (p->sent && hj_store_batch_sent(s, id, txid, 301, p->created_at + 5,
	                                   err, sizeof err))
		fail_msg("sent: %s", err);
	if (p->confirmed &&
	    hj_store_batch_confirmed(s, id, 302, err, sizeof err))
		fail_msg("confirmed: %s", err);
}

static void set_balance(hj_store *s, const char *amount, uint64_t height,
                        int64_t at, const char *warning)
{
	char err[HJ_ERRLEN] = "";

	if (hj_store_set_balance(s, amt(amount), height, at, warning, err,
	                         sizeof err))
		fail_msg("balance: %s", err);
}

/* The hash of 32 bytes tt: Htt. */
#define H1B HEX32("1b")
#define H2A HEX32("2a")
#define H2B HEX32("2b")
#define H2C HEX32("2c")
#define H3C HEX32("3c")
#define H4D HEX32("4d")
#define H8B HEX32("8b")
#define HD1 HEX32("d1")
#define HD2 HEX32("d2")
#define HD3 HEX32("d3")
#define HE3 HEX32("e3")
#define HE5 HEX32("e5")

/* When the fixtures were written; the stored times are relative to it. */
static int64_t T;

/* The bets of the open rounds, and their worst case computed here. */
static const char *const evm_bets[] = {"1000000000000000007",
                                       "250000000000000003"};
static const char *const ltc_bets[] = {"100000000", "12345"};
static hj_amount evm_exposure, ltc_exposure;
static const char evm_rules[] = "preset=bethash min_bet=1000 "
                                "max_bet=2000000000000000000 "
                                "timeout_blocks=100";
static const char ltc_rules[] = "preset=bethash min_bet=10000 "
                                "max_bet=100000000 timeout_blocks=12 "
                                "max_exposure=2000000000";

/*
 * An EVM state at block 305: two open rounds; payouts 2 ETH confirmed
 * (nonce 0), 1.5 ETH in flight (nonce 1, signed twice), 0.25 ETH owed in
 * the planned transaction of nonce 2, 3 ETH owed, 1000 wei owed to
 * nobody.  balance: the dealer_balance row, or none when NULL.
 */
static void make_evm(const char *path, const char *balance, const char *warning)
{
	hj_rules r;
	hj_store *s;
	hj_table *t;
	hj_id x = id_hex(X), y = id_hex(Y);
	char err[HJ_ERRLEN] = "";

	rules_of(evm_rules, &r);
	s = store_open(path, "evm", "evm:31337", EVM_DEALER, evm_rules);
	assert_int_equal(hj_table_new(&r, &t), 0);
	store_begin(s);
	open_round(s, t, 200, 0xa1, &x, amt(evm_bets[0]));
	open_round(s, t, 201, 0xa2, &y, amt(evm_bets[1]));
	if (hj_store_save_rounds(s, t, err, sizeof err))
		fail_msg("save rounds: %s", err);
	add_payout(s, "return", 0xd1, &x, "2000000000000000000", 190);
	add_payout(s, "return", 0xd2, &y, "1500000000000000000", 191);
	add_payout(s, "insurance", 0xd3, &x, "250000000000000000", 192);
	add_payout(s, "refund", 0xd4, NULL, "1000", 193);
	add_payout(s, "return", 0xd5, &y, "3000000000000000000", 194);
	batch(s,
	      &(struct plan){"0x" X, "2000000000000000000", "return:" HD1 ":0",
	                     0, 0xe1, 0, T - 90000, 1, 1});
	batch(s,
	      &(struct plan){"0x" Y, "1500000000000000000", "return:" HD2 ":0",
	                     1, 0xe2, 1, T - 3723, 1, 0});
	batch(s, &(struct plan){"0x" X, "250000000000000000", "insurance:" HD3,
	                        2, 0xe5, 0, T - 65, 0, 0});
	if (balance)
		set_balance(s, balance, 310, T - 35, warning);
	set_cursor(s, 305, 0x3c);
	store_commit(s);
	hj_store_close(s);
	hj_table_free(t);
}

/*
 * A Litecoin regtest state at block 405, rules with max_exposure: two
 * open rounds; payouts 1.5 LTC confirmed (batch 1), 0.0002 LTC in flight
 * (batch 2), 50000 litoshi owed in planned batch 3, 0.01 LTC owed, 546
 * litoshi owed to nobody.
 */
static void make_ltc(const char *path, const char *balance, const char *warning)
{
	hj_rules r;
	hj_store *s;
	hj_table *t;
	hj_id p = id_hex(P86), q = id_hex(PDOC);
	char err[HJ_ERRLEN] = "";

	rules_of(ltc_rules, &r);
	s = store_open(path, "bitcoin", LTC_CHAIN, LTC_DEALER, ltc_rules);
	assert_int_equal(hj_table_new(&r, &t), 0);
	store_begin(s);
	open_round(s, t, 400, 0x1a, &p, amt(ltc_bets[0]));
	open_round(s, t, 401, 0x1b, &q, amt(ltc_bets[1]));
	if (hj_store_save_rounds(s, t, err, sizeof err))
		fail_msg("save rounds: %s", err);
	add_payout(s, "return", 0x2a, &p, "150000000", 390);
	add_payout(s, "refund", 0x2b, &q, "20000", 391);
	add_payout(s, "return", 0x2c, &p, "50000", 392);
	add_payout(s, "refund", 0x2d, NULL, "546", 393);
	add_payout(s, "insurance", 0x2e, &q, "1000000", 394);
	batch(s, &(struct plan){RLTC86, "150000000", "return:" H2A ":0", -1,
	                        0x7a, 0, T - 200000, 1, 1});
	batch(s, &(struct plan){RLTCDOC, "20000", "refund:" H2B, -1, 0x8b, 0,
	                        T - 125, 1, 0});
	batch(s, &(struct plan){RLTC86, "50000", "return:" H2C ":0", -1, 0x9c,
	                        0, T - 3, 0, 0});
	if (balance)
		set_balance(s, balance, 404, T - 7322, warning);
	set_cursor(s, 405, 0x4d);
	store_commit(s);
	hj_store_close(s);
	hj_table_free(t);
}

/* A version 2 file: before the EVM columns and the balance. */
static void to_v2(const char *path)
{
	sql(path, "DROP TABLE dealer_balance; DROP TABLE payout_tx_versions; "
	          "DROP INDEX payout_batches_nonce; ALTER TABLE payout_batches "
	          "DROP COLUMN nonce; ALTER TABLE payout_batches DROP COLUMN "
	          "gas_limit; ALTER TABLE payout_batches DROP COLUMN gas_used; "
	          "ALTER TABLE payout_batches DROP COLUMN fee; PRAGMA "
	          "user_version = 2");
}

/* A version 1 file: before settlement. */
static void to_v1(const char *path)
{
	sql(path, "DROP TABLE dealer_balance; DROP TABLE payout_tx_versions; "
	          "DROP TABLE payout_batch_items; DROP TABLE "
	          "payout_batch_outputs; DROP TABLE payout_batches; DROP TABLE "
	          "settlement; PRAGMA user_version = 1");
}

static const char *evm_db, *evm_short_db, *evm_nobal_db, *ltc_db, *ltc_short_db;

static int setup(void **state)
{
	(void)state;
	if (tool_setup("status"))
		return -1;
	T = (int64_t)time(NULL);
	evm_db = strdup(path_in("evm.sqlite"));
	evm_short_db = strdup(path_in("evm-short.sqlite"));
	evm_nobal_db = strdup(path_in("evm-nobalance.sqlite"));
	ltc_db = strdup(path_in("ltc.sqlite"));
	ltc_short_db = strdup(path_in("ltc-short.sqlite"));
	make_evm(evm_db, "10000000000000000000", NULL);
	make_evm(evm_short_db, "9000000000000000000",
	         "INSUFFICIENT FUNDS: balance 9 ETH, 9.75 ETH needed\t(gas "
	         "included)");
	make_evm(evm_nobal_db, NULL, NULL);
	make_ltc(ltc_db, "500000000", NULL);
	make_ltc(ltc_short_db, "400000000",
	         "INSUFFICIENT FUNDS in wallet payouts: balance 4.00000000, "
	         "0.01050546 payable owed; payouts stay owed until funds "
	         "arrive");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free((char *)evm_db);
	free((char *)evm_short_db);
	free((char *)evm_nobal_db);
	free((char *)ltc_db);
	free((char *)ltc_short_db);
	return tool_teardown();
}

/* ---- the worst case ---- */

/* The formula, the bethash preset, and the fixtures' sums. */
static void test_worst_case_independent(void **state)
{
	hj_rules r;
	hj_amount e = 0, l = 0;

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	/* bethash: a won double, or two won split hands, is 4 bets. */
	assert_true(worst_case(&r, 1000) == 4000);
	assert_true(worst_case(&r, 7) == 28);
	for (size_t i = 0; i < 2; i++) {
		e += worst_case(&r, amt(evm_bets[i]));
		l += worst_case(&r, amt(ltc_bets[i]));
	}
	evm_exposure = e;
	ltc_exposure = l;
	assert_string_equal(fmt(evm_exposure), "5000000000000000040");
	assert_string_equal(fmt(ltc_exposure), "400049380");
}

/* ---- expected text ---- */

/* The EVM fixture's lines down to the open rounds. */
static int evm_head(char *buf, size_t n, const char *db)
{
	return snprintf(
	    buf, n,
	    "database        %s (schema version 7)\n"
	    "family          evm\n"
	    "chain           evm:31337\n"
	    "dealer          " EVM_DEALER "\n"
	    "rules           preset=bethash min_bet=1000 "
	    "max_bet=2000000000000000000 timeout_blocks=100\n"
	    "last block      305 0x" H3C "\n"
	    "open rounds     2, worst case %s wei (5.00000000000000004 ETH)\n"
	    "owed            3 payouts, 3250000000000001000 wei "
	    "(3.250000000000001 ETH)\n"
	    "  unattributed  1 payout, 1000 wei (0.000000000000001 ETH)\n"
	    "  planned       1 payout, 250000000000000000 wei (0.25 ETH)\n"
	    "in flight       1 payout, 1500000000000000000 wei (1.5 ETH)\n"
	    "confirmed       1 payout, 2000000000000000000 wei (2 ETH)\n",
	    db, fmt(evm_exposure));
}

/* The EVM fixture's open transactions. */
static int evm_tail(char *buf, size_t n, int64_t now)
{
	char a[64], b[64];

	return snprintf(
	    buf, n,
	    "transactions    2 open\n"
	    "  nonce 1, sent, to 0x" Y ", 1500000000000000000 wei (1.5 ETH), "
	    "hash 0x" HE3 ", 2 versions, created %s\n"
	    "  nonce 2, planned, to 0x" X ", 250000000000000000 wei (0.25 "
	    "ETH), hash 0x" HE5 ", 1 version, created %s\n",
	    ago(now - (T - 3723), a, sizeof a),
	    ago(now - (T - 65), b, sizeof b));
}

/*
 * need = owed to a recipient 3.25 (the 1000 wei refund to nobody is not
 * in it) + in flight 1.5 + worst case 5.00000000000000004 =
 * 9.75000000000000004 ETH; 10 ETH leave 0.24999999999999996 to spare.
 */
static void evm_text(int64_t now, char *buf, size_t n)
{
	char a[64];
	int k = evm_head(buf, n, evm_db);

	k += snprintf(buf + k, n - (size_t)k,
	              "balance         10000000000000000000 wei (10 ETH), read "
	              "at tip 310, %s\n"
	              "need            9750000000000000040 wei "
	              "(9.75000000000000004 ETH) = owed to a recipient + in "
	              "flight + worst case\n"
	              "spare           249999999999999960 wei "
	              "(0.24999999999999996 ETH)\n",
	              ago(now - (T - 35), a, sizeof a));
	evm_tail(buf + k, n - (size_t)k, now);
}

/* 9 ETH: short by 0.75000000000000004; the warning escaped. */
static void evm_short_text(int64_t now, char *buf, size_t n)
{
	char a[64];
	int k = evm_head(buf, n, evm_short_db);

	k += snprintf(buf + k, n - (size_t)k,
	              "balance         9000000000000000000 wei (9 ETH), read "
	              "at tip 310, %s\n"
	              "need            9750000000000000040 wei "
	              "(9.75000000000000004 ETH) = owed to a recipient + in "
	              "flight + worst case\n"
	              "SHORT by 750000000000000040 wei (0.75000000000000004 "
	              "ETH)\n"
	              "warning         INSUFFICIENT FUNDS: balance 9 ETH, 9.75 "
	              "ETH needed\\x09(gas included)\n",
	              ago(now - (T - 35), a, sizeof a));
	evm_tail(buf + k, n - (size_t)k, now);
}

static void evm_nobalance_text(int64_t now, char *buf, size_t n)
{
	int k = evm_head(buf, n, evm_nobal_db);

	k += snprintf(buf + k, n - (size_t)k,
	              "balance         not read yet (the daemon pays nothing "
	              "without [payout] wallet / dealer_key)\n"
	              "need            9750000000000000040 wei "
	              "(9.75000000000000004 ETH) = owed to a recipient + in "
	              "flight + worst case\n");
	evm_tail(buf + k, n - (size_t)k, now);
}

static int ltc_head(char *buf, size_t n, const char *db, int version)
{
	return snprintf(
	    buf, n,
	    "database        %s (schema version %d)\n"
	    "family          bitcoin\n"
	    "chain           " LTC_CHAIN "\n"
	    "dealer          " LTC_DEALER "\n"
	    "rules           preset=bethash min_bet=10000 max_bet=100000000 "
	    "timeout_blocks=12 max_exposure=2000000000\n"
	    "last block      405 " H4D "\n"
	    "open rounds     2, worst case %s litoshi (4.0004938 LTC)\n"
	    "owed            3 payouts, 1050546 litoshi (0.01050546 LTC)\n"
	    "  unattributed  1 payout, 546 litoshi (0.00000546 LTC)\n"
	    "  planned       %s\n"
	    "in flight       1 payout, 20000 litoshi (0.0002 LTC)\n"
	    "confirmed       1 payout, 150000000 litoshi (1.5 LTC)\n",
	    db, version, fmt(ltc_exposure),
	    version >= 2 ? "1 payout, 50000 litoshi (0.0005 LTC)"
	                 : "0 payouts, 0 litoshi (0 LTC)");
}

static int ltc_tail(char *buf, size_t n, int64_t now)
{
	char a[64], b[64];

	return snprintf(buf, n,
	                "batches         2 open\n"
	                "  batch 2, sent, txid " HEX32(
	                    "8b") ", 1 output, 20000 litoshi (0.0002 LTC), "
	                          "created %s\n"
	                          "  batch 3, planned, 1 output, 50000 litoshi "
	                          "(0.0005 LTC), created %s\n",
	                ago(now - (T - 125), a, sizeof a),
	                ago(now - (T - 3), b, sizeof b));
}

/*
 * need = owed to a recipient 0.0105 + worst case 4.0004938 = 4.0109938
 * LTC (the unattributed 546 litoshi and what is in flight are not in it);
 * 5 LTC leave 0.9890062 to spare.
 */
static void ltc_full(const char *db, int64_t now, char *buf, size_t n)
{
	char a[64];
	int k = ltc_head(buf, n, db, HJ_STORE_SCHEMA_VERSION);

	k +=
	    snprintf(buf + k, n - (size_t)k,
	             "balance         500000000 litoshi (5 LTC), read at tip "
	             "404, %s\n"
	             "need            401099380 litoshi (4.0109938 LTC) = owed "
	             "to a recipient + worst case (the wallet's balance "
	             "leaves out what is in flight)\n"
	             "spare           98900620 litoshi (0.9890062 LTC)\n",
	             ago(now - (T - 7322), a, sizeof a));
	ltc_tail(buf + k, n - (size_t)k, now);
}

static void ltc_text(int64_t now, char *buf, size_t n)
{
	ltc_full(ltc_db, now, buf, n);
}

/* 4 LTC: short by 0.0109938. */
static void ltc_short_text(int64_t now, char *buf, size_t n)
{
	char a[64];
	int k = ltc_head(buf, n, ltc_short_db, HJ_STORE_SCHEMA_VERSION);

	k +=
	    snprintf(buf + k, n - (size_t)k,
	             "balance         400000000 litoshi (4 LTC), read at tip "
	             "404, %s\n"
	             "need            401099380 litoshi (4.0109938 LTC) = owed "
	             "to a recipient + worst case (the wallet's balance "
	             "leaves out what is in flight)\n"
	             "SHORT by 1099380 litoshi (0.0109938 LTC)\n"
	             "warning         INSUFFICIENT FUNDS in wallet payouts: "
	             "balance 4.00000000, 0.01050546 payable owed; payouts "
	             "stay owed until funds arrive\n",
	             ago(now - (T - 7322), a, sizeof a));
	ltc_tail(buf + k, n - (size_t)k, now);
}

/* ---- tests ---- */

static void test_evm(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", evm_db);
	expect_at(&r, evm_text);
}

static void test_evm_short(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", evm_short_db);
	expect_at(&r, evm_short_text);
}

static void test_evm_no_balance(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", evm_nobal_db);
	expect_at(&r, evm_nobalance_text);
}

static void test_ltc(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", ltc_db);
	expect_at(&r, ltc_text);
}

static void test_ltc_short(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", ltc_short_db);
	expect_at(&r, ltc_short_text);
}

/* A version 2 file has no balance table and no EVM columns; a version 1
 * file no batches either.  Both read like version 3 minus those. */
static const char *old_db;
static int old_version;

static void ltc_old_text(int64_t now, char *buf, size_t n)
{
	int k = ltc_head(buf, n, old_db, old_version);

	k +=
	    snprintf(buf + k, n - (size_t)k,
	             "balance         not read yet (the daemon pays nothing "
	             "without [payout] wallet / dealer_key)\n"
	             "need            401099380 litoshi (4.0109938 LTC) = owed "
	             "to a recipient + worst case (the wallet's balance "
	             "leaves out what is in flight)\n");
	if (old_version >= 2)
		ltc_tail(buf + k, n - (size_t)k, now);
	else
		snprintf(buf + k, n - (size_t)k, "batches         none open\n");
}

static void test_old_schemas(void **state)
{
	const char *v2 = path_in("v2.sqlite"), *v1 = path_in("v1.sqlite");
	struct res r;

	(void)state;
	make_ltc(v2, "500000000", NULL);
	to_v2(v2);
	old_db = v2;
	old_version = 2;
	RUN(&r, "--db", v2);
	expect_at(&r, ltc_old_text);

	make_ltc(v1, "500000000", NULL);
	to_v1(v1);
	old_db = v1;
	old_version = 1;
	RUN(&r, "--db", v1);
	expect_at(&r, ltc_old_text);
	RUN(&r, "--db", v1, "--json");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "\"schemaVersion\":1,"));
	assert_non_null(strstr(r.out, "\"balance\":null,"));
	assert_non_null(strstr(r.out, "\"transactions\":[],\"batches\":[]}\n"));
}

/* Nothing processed yet: meta only; the first start's mark; no meta. */
static void test_empty(void **state)
{
	const char *db = path_in("empty.sqlite"),
	           *mark = path_in("mark.sqlite"),
	           *fresh = path_in("fresh.sqlite");
	char want[2048];
	hj_store *s;
	struct res r;
	char err[HJ_ERRLEN];

	(void)state;
	hj_store_close(store_open(db, "evm", "evm:1", EVM_DEALER,
	                          "preset=bethash min_bet=1 max_bet=5 "
	                          "timeout_blocks=100"));
	snprintf(want, sizeof want,
	         "database        %s (schema version 7)\n"
	         "family          evm\n"
	         "chain           evm:1\n"
	         "dealer          " EVM_DEALER "\n"
	         "rules           preset=bethash min_bet=1 max_bet=5 "
	         "timeout_blocks=100\n"
	         "last block      no block processed yet\n"
	         "open rounds     0, worst case 0 wei (0 ETH)\n"
	         "owed            0 payouts, 0 wei (0 ETH)\n"
	         "  unattributed  0 payouts, 0 wei (0 ETH)\n"
	         "  planned       0 payouts, 0 wei (0 ETH)\n"
	         "in flight       0 payouts, 0 wei (0 ETH)\n"
	         "confirmed       0 payouts, 0 wei (0 ETH)\n"
	         "balance         not read yet (the daemon pays nothing "
	         "without [payout] wallet / dealer_key)\n"
	         "need            0 wei (0 ETH) = owed to a recipient + in "
	         "flight + worst case\n"
	         "transactions    none open\n",
	         db);
	RUN(&r, "--db", db);
	expect(&r, 0, want, "");
	RUN(&r, "--db", db, "--json");
	assert_int_equal(r.rc, 0);
	assert_non_null(
	    strstr(r.out, "\"lastBlock\":null,\"nextBlock\":null,"));

	/* The first start marks the block before its first with no hash;
	 * "start at block 0" is the mark -1. */
	s = store_open(mark, "bitcoin", LTC_CHAIN, LTC_DEALER,
	               "preset=bethash min_bet=1 max_bet=5 timeout_blocks=12");
	store_begin(s);
	set_cursor(s, UINT64_MAX, 0);
	store_commit(s);
	hj_store_close(s);
	RUN(&r, "--db", mark);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "\nlast block      no block processed "
	                              "yet (the first will be 0)\n"));
	assert_non_null(strstr(r.out, "\nbatches         none open\n"));
	RUN(&r, "--db", mark, "--json");
	assert_non_null(strstr(r.out, "\"lastBlock\":null,\"nextBlock\":0,"));

	/* Opened by a daemon that never reached its node. */
	assert_int_equal(hj_store_open(fresh, &s, err, sizeof err), 0);
	hj_store_close(s);
	snprintf(want, sizeof want,
	         "database        %s (schema version 7)\n"
	         "chain           not recorded yet: the daemon has not "
	         "reached its node\n"
	         "last block      no block processed yet\n"
	         "open rounds     0, worst case 0\n"
	         "owed            0 payouts, 0\n"
	         "  unattributed  0 payouts, 0\n"
	         "  planned       0 payouts, 0\n"
	         "in flight       0 payouts, 0\n"
	         "confirmed       0 payouts, 0\n"
	         "balance         not read yet (the daemon pays nothing "
	         "without [payout] wallet / dealer_key)\n"
	         "need            0 = owed to a recipient + in flight + "
	         "worst case\n",
	         fresh);
	RUN(&r, "--db", fresh);
	expect(&r, 0, want, "");
}

/* Rules that cannot be read back: said, and the worst case unknown; the
 * need is then a lower bound, and so is the shortfall. */
static void test_rules_unknown(void **state)
{
	const char *db = path_in("vegas.sqlite");
	struct res r;
	json_t *j;

	(void)state;
	make_evm(db, "4000000000000000000", NULL);
	sql(db, "UPDATE meta SET rules = 'preset=vegas min_bet=1000 "
	        "max_bet=1000000000000000000 timeout_blocks=100'");
	RUN(&r, "--db", db);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(
	    r.out, "\nrules           preset=vegas min_bet=1000 "
	           "max_bet=1000000000000000000 timeout_blocks=100 (cannot be "
	           "read: preset \"vegas\": not a preset this hashjack "
	           "knows)\n"
	           "last block      305 0x" HEX32(
	               "3c") "\n"
	                     "open rounds     2, worst case unknown (the rules "
	                     "cannot be read)\n"));
	/* 3.25 owed to a recipient + 1.5 in flight, against 4. */
	assert_non_null(strstr(
	    r.out, "\nneed            at least 4750000000000000000 wei "
	           "(4.75 ETH) = owed to a recipient + in flight; the worst "
	           "case is unknown\n"
	           "SHORT by at least 750000000000000000 wei "
	           "(0.75 ETH)\n"
	           "transactions    2 open\n"));
	RUN(&r, "--db", db, "--json");
	assert_int_equal(r.rc, 0);
	j = json_loads(r.out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "exposure")));
	assert_string_equal(
	    json_string_value(json_object_get(j, "rulesError")),
	    "preset \"vegas\": not a preset this hashjack knows");
	assert_string_equal(json_string_value(json_object_get(j, "need")),
	                    "4750000000000000000");
	assert_string_equal(json_string_value(json_object_get(j, "short")),
	                    "750000000000000000");
	json_decref(j);
}

/* {"count": n, "amount": "..."} */
static void expect_tally(json_t *j, const char *key, json_int_t n,
                         const char *amount)
{
	json_t *t = json_object_get(j, key);

	assert_non_null(t);
	assert_int_equal(json_object_size(t), 2);
	assert_int_equal(json_integer_value(json_object_get(t, "count")), n);
	assert_string_equal(json_string_value(json_object_get(t, "amount")),
	                    amount);
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("%s is not a string", key);
	return json_string_value(v);
}

static json_int_t jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("%s is not an integer", key);
	return json_integer_value(v);
}

/* The same facts as the text, parsed back; every key, in order. */
static void test_json_evm(void **state)
{
	static const char *const keys[] = {
	    "database",   "schemaVersion", "family",       "chain",
	    "dealer",     "rules",         "rulesError",   "unit",
	    "baseUnit",   "decimals",      "lastBlock",    "nextBlock",
	    "openRounds", "exposure",      "owed",         "unattributed",
	    "planned",    "inFlight",      "confirmed",    "swept",
	    "sweeping",   "orphaned",      "balance",      "need",
	    "short",      "spare",         "transactions", "batches"};
	struct res r;
	json_error_t e;
	json_t *j, *b, *tx;
	const char *k;
	json_t *v;
	size_t i = 0;

	(void)state;
	RUN(&r, "--json", "--db", evm_short_db);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	/* One object on one line. */
	assert_non_null(strchr(r.out, '\n'));
	assert_string_equal(strchr(r.out, '\n'), "\n");
	j = json_loads(r.out, 0, &e);
	if (j == NULL)
		fail_msg("not JSON: %s: %s", r.out, e.text);
	json_object_foreach(j, k, v)
	{
		(void)v;
		assert_true(i < sizeof keys / sizeof keys[0]);
		assert_string_equal(k, keys[i++]);
	}
	assert_int_equal(i, sizeof keys / sizeof keys[0]);
	assert_string_equal(jstr(j, "database"), evm_short_db);
	assert_int_equal(jint(j, "schemaVersion"), HJ_STORE_SCHEMA_VERSION);
	assert_string_equal(jstr(j, "family"), "evm");
	assert_string_equal(jstr(j, "chain"), "evm:31337");
	assert_string_equal(jstr(j, "dealer"), EVM_DEALER);
	assert_string_equal(jstr(j, "rules"), evm_rules);
	assert_true(json_is_null(json_object_get(j, "rulesError")));
	assert_string_equal(jstr(j, "unit"), "ETH");
	/* No sweep in this database: both tallies 0. */
	assert_int_equal(jint(json_object_get(j, "swept"), "count"), 0);
	assert_int_equal(jint(json_object_get(j, "sweeping"), "count"), 0);
	assert_string_equal(jstr(j, "baseUnit"), "wei");
	assert_int_equal(jint(j, "decimals"), 18);
	b = json_object_get(j, "lastBlock");
	assert_int_equal(jint(b, "height"), 305);
	assert_string_equal(jstr(b, "hash"), "0x" H3C);
	assert_int_equal(jint(j, "nextBlock"), 306);
	assert_int_equal(jint(j, "openRounds"), 2);
	assert_string_equal(jstr(j, "exposure"), fmt(evm_exposure));
	expect_tally(j, "owed", 3, "3250000000000001000");
	expect_tally(j, "unattributed", 1, "1000");
	expect_tally(j, "planned", 1, "250000000000000000");
	expect_tally(j, "inFlight", 1, "1500000000000000000");
	expect_tally(j, "confirmed", 1, "2000000000000000000");
	b = json_object_get(j, "balance");
	assert_string_equal(jstr(b, "amount"), "9000000000000000000");
	assert_int_equal(jint(b, "height"), 310);
	assert_int_equal(jint(b, "at"), T - 35);
	assert_in_range(jint(b, "ageSeconds"), r.t0 - (T - 35),
	                r.t1 - (T - 35));
	/* JSON carries the tab itself. */
	assert_string_equal(jstr(b, "warning"),
	                    "INSUFFICIENT FUNDS: balance 9 ETH, 9.75 ETH "
	                    "needed\t(gas included)");
	/* need = owed to a recipient (the 1000 wei refund to nobody left
	 * out) + in flight + the worst case computed here. */
	assert_string_equal(jstr(j, "need"),
	                    fmt(amt("3250000000000001000") - 1000 +
	                        amt("1500000000000000000") + evm_exposure));
	assert_string_equal(jstr(j, "short"), "750000000000000040");
	assert_true(json_is_null(json_object_get(j, "spare")));
	tx = json_object_get(j, "transactions");
	assert_int_equal(json_array_size(tx), 2);
	b = json_array_get(tx, 0);
	assert_int_equal(jint(b, "batch"), 2);
	assert_int_equal(jint(b, "nonce"), 1);
	assert_string_equal(jstr(b, "state"), "sent");
	assert_string_equal(jstr(b, "recipient"), "0x" Y);
	assert_string_equal(jstr(b, "amount"), "1500000000000000000");
	assert_string_equal(jstr(b, "hash"), "0x" HE3);
	assert_int_equal(jint(b, "versions"), 2);
	assert_int_equal(jint(b, "createdAt"), T - 3723);
	assert_in_range(jint(b, "ageSeconds"), r.t0 - (T - 3723),
	                r.t1 - (T - 3723));
	b = json_array_get(tx, 1);
	assert_int_equal(jint(b, "nonce"), 2);
	assert_string_equal(jstr(b, "state"), "planned");
	assert_int_equal(jint(b, "versions"), 1);
	assert_int_equal(json_array_size(json_object_get(j, "batches")), 0);
	json_decref(j);

	/* Not short: spare; no balance: both null. */
	RUN(&r, "--json", "--db", evm_db);
	j = json_loads(r.out, 0, &e);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "short")));
	assert_string_equal(jstr(j, "spare"), "249999999999999960");
	assert_true(json_is_null(
	    json_object_get(json_object_get(j, "balance"), "warning")));
	json_decref(j);
	RUN(&r, "--json", "--db", evm_nobal_db);
	j = json_loads(r.out, 0, &e);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "balance")));
	assert_true(json_is_null(json_object_get(j, "short")));
	assert_true(json_is_null(json_object_get(j, "spare")));
	assert_string_equal(jstr(j, "need"), "9750000000000000040");
	json_decref(j);
}

static void test_json_ltc(void **state)
{
	struct res r;
	json_error_t e;
	json_t *j, *b;

	(void)state;
	RUN(&r, "--db", ltc_short_db, "--json");
	assert_int_equal(r.rc, 0);
	j = json_loads(r.out, 0, &e);
	if (j == NULL)
		fail_msg("not JSON: %s: %s", r.out, e.text);
	assert_string_equal(jstr(j, "family"), "bitcoin");
	assert_string_equal(jstr(j, "unit"), "LTC");
	assert_string_equal(jstr(j, "baseUnit"), "litoshi");
	assert_int_equal(jint(j, "decimals"), 8);
	assert_string_equal(jstr(json_object_get(j, "lastBlock"), "hash"), H4D);
	assert_string_equal(jstr(j, "exposure"), fmt(ltc_exposure));
	expect_tally(j, "owed", 3, "1050546");
	expect_tally(j, "unattributed", 1, "546");
	expect_tally(j, "planned", 1, "50000");
	expect_tally(j, "inFlight", 1, "20000");
	expect_tally(j, "confirmed", 1, "150000000");
	/* need = owed to a recipient + the worst case computed here: no
	 * unattributed, no in flight. */
	assert_string_equal(jstr(j, "need"),
	                    fmt(amt("1050546") - 546 + ltc_exposure));
	assert_string_equal(jstr(j, "short"), "1099380");
	assert_int_equal(json_array_size(json_object_get(j, "transactions")),
	                 0);
	b = json_object_get(j, "batches");
	assert_int_equal(json_array_size(b), 2);
	b = json_array_get(b, 0);
	assert_int_equal(jint(b, "id"), 2);
	assert_string_equal(jstr(b, "state"), "sent");
	assert_string_equal(jstr(b, "txid"), H8B);
	assert_int_equal(jint(b, "outputs"), 1);
	assert_string_equal(jstr(b, "total"), "20000");
	assert_int_equal(jint(b, "createdAt"), T - 125);
	b = json_array_get(json_object_get(j, "batches"), 1);
	assert_int_equal(jint(b, "id"), 3);
	assert_string_equal(jstr(b, "state"), "planned");
	assert_true(json_is_null(json_object_get(b, "txid")));
	json_decref(j);
}

/* --state-dir DIR (and ledger's --state), $STATE_DIRECTORY's first
 * entry, and --db over the environment. */
static const char *state_db;

static void state_text(int64_t now, char *buf, size_t n)
{
	ltc_full(state_db, now, buf, n);
}

static void test_state_directory(void **state)
{
	const char *dir = path_in("state");
	char env[300], slash[300];
	struct res r;

	(void)state;
	state_db = path_in("state/hashjackd.sqlite");
	assert_int_equal(mkdir(dir, 0700), 0);
	make_ltc(state_db, "500000000", NULL);
	RUN(&r, "--state-dir", dir);
	expect_at(&r, state_text);
	snprintf(slash, sizeof slash, "%s/", dir);
	RUN(&r, "--state-dir", slash);
	expect_at(&r, state_text);
	RUN(&r, "--state", dir);
	expect_at(&r, state_text);
	RUN(&r, "-c", conf_in("with-state.conf", dir));
	expect_at(&r, state_text);
	snprintf(slash, sizeof slash, "--state.directory=%s", dir);
	RUN(&r, "--config", conf_in("no-state.conf", NULL), slash);
	expect_at(&r, state_text);
	snprintf(env, sizeof env, "%s:/nonexistent", dir);
	runv(&r, env, NULL, (const char *const[]){"status", NULL});
	expect_at(&r, state_text);
	runv(&r, "/nonexistent", NULL,
	     (const char *const[]){"status", "--db", state_db, NULL});
	expect_at(&r, state_text);
	/* Not an absolute path: ignored, as the daemon does. */
	if (access("/var/lib/hashjackd/hashjackd.sqlite", F_OK) != 0) {
		runv(&r, "state", NULL, (const char *const[]){"status", NULL});
		expect(&r, 66, "",
		       "hashjack: status: cannot open database "
		       "/var/lib/hashjackd/hashjackd.sqlite: No such file or "
		       "directory\n");
	}
}

static void test_help(void **state)
{
	struct res r, again;

	(void)state;
	RUN(&r, "--help");
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out,
	                       "Usage: hashjack status [-c FILE | "
	                       "--state-dir DIR | --db FILE] [--json]\n"));
	/* Every line of the text is explained. */
	for (const char *const *l =
	         (const char *const[]){
	             "  database ", "  family, chain, dealer, rules",
	             "  last block ", "  open rounds ", "  owed ",
	             "    unattributed ", "    planned ", "  in flight ",
	             "  confirmed ", "  balance ", "  need ", "  SHORT by X ",
	             "  spare ", "  warning ", "  transactions ", "  batches ",
	             NULL};
	     *l; l++)
		if (strstr(r.out, *l) == NULL)
			fail_msg("--help does not explain \"%s\"", *l);
	RUN(&again, "--db", "/nonexistent", "--bogus", "-h");
	expect(&again, 0, r.out, "");
	runv(&again, NULL, NULL, (const char *const[]){"help", "status", NULL});
	expect(&again, 0, r.out, "");
	runv(&again, NULL, NULL, (const char *const[]){"--help", NULL});
	assert_int_equal(again.rc, 0);
	assert_non_null(strstr(again.out, "  status [OPTIONS]"));
}

/* The command line is checked whole before any file is opened. */
static void test_usage_errors(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--bogus");
	expect_usage(&r, "unknown option \"--bogus\"");
	RUN(&r, "--state-filter", "owed");
	expect_usage(&r, "unknown option \"--state-filter\"");
	RUN(&r, "extra");
	expect_usage(&r, "unexpected argument \"extra\"");
	RUN(&r, "--", "extra");
	expect_usage(&r, "unexpected argument \"extra\"");
	RUN(&r, "--db");
	expect_usage(&r, "--db needs a value");
	RUN(&r, "--state-dir");
	expect_usage(&r, "--state-dir needs a value");
	RUN(&r, "--db", "a", "--db=b");
	expect_usage(&r, "--db given twice");
	RUN(&r, "--json", "--json");
	expect_usage(&r, "--json given twice");
	RUN(&r, "--json=yes");
	expect_usage(&r, "--json takes no value");
	RUN(&r, "--state-dir", "/a", "--db", "/b");
	expect_usage(&r, "--state-dir and --db: give one or the other");
	RUN(&r, "--state", "/a", "--db", "/b");
	expect_usage(&r, "--state and --db: give one or the other");
	RUN(&r, "--state", "/a", "--state-dir", "/a");
	expect_usage(
	    &r, "--state and --state-dir are the same option: give it once");
	RUN(&r, "--db", "");
	expect_usage(&r, "--db: empty");
	RUN(&r, "--state-dir=");
	expect_usage(&r, "--state-dir: empty");
}

/* Files that are not the daemon's database, or damaged ones: the error
 * names the file and what is wrong. */
static void test_bad_databases(void **state)
{
	const char *bare = path_in("bare.sqlite"),
	           *newer = path_in("newer.sqlite"),
	           *round = path_in("badround.sqlite"),
	           *bal = path_in("badbalance.sqlite"),
	           *nometa = path_in("nometa.sqlite");
	char want[600];
	struct res r;

	(void)state;
	RUN(&r, "--db", "/nonexistent/hashjackd.sqlite");
	expect(&r, 66, "",
	       "hashjack: status: cannot open database "
	       "/nonexistent/hashjackd.sqlite: No such file or directory\n");
	runv(&r, "/nonexistent", NULL, (const char *const[]){"status", NULL});
	expect(&r, 66, "",
	       "hashjack: status: cannot open database "
	       "/nonexistent/hashjackd.sqlite: No such file or directory\n");
	RUN(&r, "--db", tmpdir);
	snprintf(want, sizeof want,
	         "hashjack: status: cannot open database %s: Is a directory\n",
	         tmpdir);
	expect(&r, 66, "", want);

	sql(bare, "CREATE TABLE notes (t TEXT)");
	RUN(&r, "--db", bare);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: not a hashjackd database: no tables "
	         "\"meta\" and \"payouts\"\n",
	         bare);
	expect(&r, 65, "", want);

	make_ltc(newer, NULL, NULL);
	sql(newer, "PRAGMA user_version = 8");
	RUN(&r, "--db", newer);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: schema version 8 was written by a "
	         "newer hashjackd; this hashjack reads version 7\n",
	         newer);
	expect(&r, 65, "", want);

	/* A round blob that does not decode names the round and why; so
	 * does one that is not a blob at all. */
	make_ltc(round, NULL, NULL);
	sql(round, "UPDATE rounds SET data = CAST(x'03' || substr(data, 2) AS "
	           "BLOB) WHERE id = x'" H1B "'");
	RUN(&r, "--db", round);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: round " H1B ": round: unsupported "
	         "version 3 (expected 1 or 2)\n",
	         round);
	expect(&r, 65, "", want);
	sql(round, "UPDATE rounds SET data = 'x' WHERE id = x'" H1B "'");
	RUN(&r, "--db", round);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: round " H1B ": data is not a round "
	         "encoding (1 bytes)\n",
	         round);
	expect(&r, 65, "", want);

	make_evm(bal, "1", NULL);
	sql(bal, "UPDATE dealer_balance SET height = 'tip'");
	RUN(&r, "--db", bal);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: dealer_balance: column height does "
	         "not hold what the schema says (docs/STATE.md)\n",
	         bal);
	expect(&r, 65, "", want);

	make_ltc(nometa, NULL, NULL);
	sql(nometa, "DELETE FROM meta");
	RUN(&r, "--db", nometa);
	snprintf(want, sizeof want,
	         "hashjack: status: %s: open rounds or payouts but no meta "
	         "row: the database does not say which chain they are on\n",
	         nometa);
	expect(&r, 65, "", want);
}

/* A stopped daemon's database: read as it is, nothing created beside it
 * (the shared reader; tests/test_ledger.c covers it further). */
static void test_read_only(void **state)
{
	char wal[200], shm[200];
	struct stat before, after;
	struct res r;

	(void)state;
	wal_shm(ltc_db, wal, shm, sizeof wal);
	assert_int_equal(stat(ltc_db, &before), 0);
	assert_int_not_equal(access(wal, F_OK), 0);
	RUN(&r, "--db", ltc_db);
	expect_at(&r, ltc_text);
	assert_int_not_equal(access(wal, F_OK), 0);
	assert_int_not_equal(access(shm, F_OK), 0);
	assert_int_equal(stat(ltc_db, &after), 0);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	assert_int_equal(before.st_size, after.st_size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worst_case_independent),
	    cmocka_unit_test(test_evm),
	    cmocka_unit_test(test_evm_short),
	    cmocka_unit_test(test_evm_no_balance),
	    cmocka_unit_test(test_ltc),
	    cmocka_unit_test(test_ltc_short),
	    cmocka_unit_test(test_old_schemas),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_rules_unknown),
	    cmocka_unit_test(test_json_evm),
	    cmocka_unit_test(test_json_ltc),
	    cmocka_unit_test(test_state_directory),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_bad_databases),
	    cmocka_unit_test(test_read_only),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
