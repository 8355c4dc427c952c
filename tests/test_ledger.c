/*
 * `hashjack ledger` end to end: databases written with the daemon's own
 * store API (daemon/core/store.h), settlement's columns set with plain SQL as
 * settlement will, then the real `hashjack` binary run on them and its
 * exit status, standard output and standard error compared exactly.
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
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "hex.h"
#include "say.h"
#include "store.h"
#include "tool_util.h"

/* ---- building databases with the daemon's store ---- */

/* meta.rules of every database here (the ledger does not show them). */
#define RULES "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100"

/* A payout with the daemon's id ("return:<round>:<hand>", ...). */
static void add_payout(hj_store *s, const char *kind, const hj_id *round,
                       int hand, const hj_id *txid, const hj_id *rcp,
                       const char *amount, uint64_t height)
{
	char id[160], hex[67], err[HJ_ERRLEN] = "";
	hj_payout p = {.kind = kind,
	               .round = round,
	               .hand = hand,
	               .txid = txid,
	               .recipient = rcp,
	               .height = height};

	if (strcmp(kind, "refund") == 0) {
		hj_hex_encode(txid->b, txid->len, 0, hex);
		snprintf(id, sizeof id, "refund:%s", hex);
	} else {
		hj_hex_encode(round->b, round->len, 0, hex);
		if (hand >= 0)
			snprintf(id, sizeof id, "%s:%s:%d", kind, hex, hand);
		else
			snprintf(id, sizeof id, "%s:%s", kind, hex);
	}
	p.id = id;
	assert_int_equal(hj_amount_parse(amount, strlen(amount), &p.amount), 0);
	if (hj_store_add_payout(s, &p, err, sizeof err))
		fail_msg("add_payout: %s", err);
}

#define A HEX32("a1")
#define B HEX32("b2")
#define R HEX32("c3")

/*
 * An EVM ledger: round A's two hands (one submitted, one confirmed) and
 * its insurance (owed, with an error), round B's return and a refund of a
 * transaction that matched no round (owed, an error that is not UTF-8).
 */
static void make_evm(const char *path)
{
	hj_store *s = store_open(path, "evm", "evm:31337", EVM_DEALER, RULES);
	hj_id a = id_of(0xa1, 32), b = id_of(0xb2, 32), r = id_of(0xc3, 32);
	hj_id x = id_hex(X), y = id_hex(Y);

	store_begin(s);
	add_tx(s, 99, 0xc3, &y, 1000, "rejected", NULL);
	add_payout(s, "refund", NULL, -1, &r, &y, "5000000000000000000", 99);
	add_tx(s, 100, 0xa1, &x, 1000, "accepted", &a);
	add_payout(s, "return", &a, 0, NULL, &x, "2000000000000000000", 100);
	add_payout(s, "return", &a, 1, NULL, &x, "1500000000000000000", 100);
	add_payout(s, "insurance", &a, -1, NULL, &x, "1", 100);
	add_tx(s, 101, 0xb2, &y, 1000, "accepted", &b);
	add_payout(s, "return", &b, 0, NULL, &y, "1000", 101);
	store_commit(s);
	hj_store_close(s);
	sql(path, "UPDATE payouts SET state = 'submitted',"
	          " submitted_txid = x'" HEX32(
	              "d4") "', nonce = 7,"
	                    " submitted_height = 102, submitted_at = 1700000000"
	                    " WHERE id = 'return:" A ":0'");
	sql(path,
	    "UPDATE payouts SET state = 'confirmed',"
	    " submitted_txid = x'" HEX32(
	        "e5") "', nonce = 8,"
	              " submitted_height = 103, submitted_at = 1700000060,"
	              " confirmed_height = 105 WHERE id = 'return:" A ":1'");
	sql(path, "UPDATE payouts SET last_error = 'insufficient funds' ||"
	          " char(9) || 'for gas * price + value' || char(10)"
	          " WHERE id = 'insurance:" A "'");
	sql(path, "UPDATE payouts SET last_error = 'nonce too low ' ||"
	          " CAST(x'c328' AS TEXT) WHERE id = 'refund:" R "'");
}

/* BIP-86's first receiving address (m/86'/0'/0'/0/0): P86 on mainnet. */
#define BC86 "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
/* Above the field's prime: no curve point has it as x. */
#define PBAD HEX32("ff")
#define BTC_MAIN                                                               \
	"bitcoin:bitcoin:main:"                                                \
	"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
#define C HEX32("3c")
#define D HEX32("4d")
#define E HEX32("5e")
#define G HEX32("6f")

/*
 * A Bitcoin mainnet ledger: round C's return (confirmed) and the refund of
 * a rejected action naming it (submitted), an unattributed refund (owed),
 * and a return to a Bet's key that is no curve point (owed).
 */
static void make_btc(const char *path)
{
	hj_store *s =
	    store_open(path, "bitcoin", BTC_MAIN,
	               "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", RULES);
	hj_id c = id_of(0x3c, 32), d = id_of(0x4d, 32), e = id_of(0x5e, 32);
	hj_id g = id_of(0x6f, 32), p = id_hex(P86), bad = id_of(0xff, 32);

	store_begin(s);
	add_tx(s, 840000, 0x3c, NULL, 1000, "accepted", &c);
	add_payout(s, "return", &c, 0, NULL, &p, "150000000", 840001);
	add_tx(s, 840002, 0x4d, NULL, 1000, "rejected", NULL);
	add_payout(s, "refund", NULL, -1, &d, NULL, "546", 840002);
	add_tx(s, 840002, 0x5e, NULL, 1000, "rejected", &c);
	add_payout(s, "refund", &c, -1, &e, &p, "20000", 840002);
	add_tx(s, 840003, 0x6f, NULL, 1000, "accepted", &g);
	add_payout(s, "return", &g, 0, NULL, &bad, "100000000", 840006);
	store_commit(s);
	hj_store_close(s);
	sql(path,
	    "UPDATE payouts SET state = 'confirmed',"
	    " submitted_txid = x'" HEX32(
	        "7a") "',"
	              " submitted_height = 840003, submitted_at = 1700000000,"
	              " confirmed_height = 840004 WHERE id = 'return:" C ":0'");
	sql(path,
	    "UPDATE payouts SET state = 'submitted',"
	    " submitted_txid = x'" HEX32(
	        "8b") "',"
	              " submitted_height = 840007, submitted_at = 1700000600"
	              " WHERE id = 'refund:" E "'");
	sql(path, "UPDATE payouts SET last_error = 'not a valid x-only key:"
	          " no payout address' WHERE id = 'return:" G ":0'");
}

/* A Litecoin regtest ledger: two owed payouts to two keys. */
static void make_ltc(const char *path)
{
	hj_store *s = store_open(path, "bitcoin", LTC_CHAIN, LTC_DEALER, RULES);
	hj_id a = id_of(0x1a, 32), b = id_of(0x2b, 32), p = id_hex(P86),
	      q = id_hex(PDOC);

	store_begin(s);
	add_tx(s, 200, 0x1a, NULL, 1000, "accepted", &a);
	add_payout(s, "return", &a, 0, NULL, &p, "12345678", 200);
	add_tx(s, 201, 0x2b, NULL, 1000, "accepted", &b);
	add_payout(s, "insurance", &b, -1, NULL, &q, "50000000", 201);
	store_commit(s);
	hj_store_close(s);
}

static const char *evm_db, *btc_db, *ltc_db;

static int setup_dbs(void **state)
{
	(void)state;
	if (tool_setup("ledger"))
		return -1;
	evm_db = strdup(path_in("evm.sqlite"));
	btc_db = strdup(path_in("btc.sqlite"));
	ltc_db = strdup(path_in("ltc.sqlite"));
	make_evm(evm_db);
	make_btc(btc_db);
	make_ltc(ltc_db);
	return 0;
}

static int teardown_dbs(void **state)
{
	free((char *)evm_db);
	free((char *)btc_db);
	(void)state;
	free((char *)ltc_db);
	return tool_teardown();
}

/* ---- what a file looks like, to prove it untouched ---- */

struct snap {
	int exists;
	struct stat st;
	char *bytes;
	size_t n;
};

static void snap_take(const char *path, struct snap *s)
{
	FILE *f;

	memset(s, 0, sizeof *s);
	if (stat(path, &s->st) != 0) {
		assert_int_equal(errno, ENOENT);
		return;
	}
	s->exists = 1;
	s->bytes = malloc((size_t)s->st.st_size + 1);
	assert_non_null(s->bytes);
	f = fopen(path, "rb");
	assert_non_null(f);
	s->n = fread(s->bytes, 1, (size_t)s->st.st_size + 1, f);
	fclose(f);
	assert_int_equal(s->n, (size_t)s->st.st_size);
}

/* Same existence, inode, size, bytes and modification time. */
static void snap_same(const char *path, struct snap *before)
{
	struct snap now;

	snap_take(path, &now);
	if (now.exists != before->exists)
		fail_msg("%s %s", path,
		         now.exists ? "was created" : "was removed");
	if (now.exists) {
		assert_int_equal(now.st.st_ino, before->st.st_ino);
		assert_int_equal(now.n, before->n);
		assert_memory_equal(now.bytes, before->bytes, now.n);
		assert_int_equal(now.st.st_mtim.tv_sec,
		                 before->st.st_mtim.tv_sec);
		assert_int_equal(now.st.st_mtim.tv_nsec,
		                 before->st.st_mtim.tv_nsec);
	}
	free(now.bytes);
	free(before->bytes);
	before->bytes = NULL;
}

/*
 * ---- expected output, one source line per output line ----
 *
 * The values are checked in the comment of each test that uses them.
 */

/* clang-format off */
static const char EVM_TABLE[] =
    "ID                                                                          KIND       STATE      RECIPIENT                                                AMOUNT  ETH                   ROUND                                                               HAND  CREATED  SUBMITTED_TXID                                                      NONCE  SUBMITTED  CONFIRMED  LAST_ERROR\n"
    "refund:c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3     refund     owed       0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266  5000000000000000000  5                     -                                                                      -       99  -                                                                       -          -          -  nonce too low \\xc3(\n"
    "insurance:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1  insurance  owed       0x1111111111111111111111111111111111111111                    1  0.000000000000000001  0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1     -      100  -                                                                       -          -          -  insufficient funds\\x09for gas * price + value\\x0a\n"
    "return:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1:0   return     submitted  0x1111111111111111111111111111111111111111  2000000000000000000  2                     0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1     0      100  0xd4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4      7        102          -  -\n"
    "return:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1:1   return     confirmed  0x1111111111111111111111111111111111111111  1500000000000000000  1.5                   0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1     1      100  0xe5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5      8        103        105  -\n"
    "return:b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2:0   return     owed       0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266                 1000  0.000000000000001     0xb2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2     0      101  -                                                                       -          -          -  -\n"
    "\n"
    "STATE      PAYOUTS               AMOUNT  ETH\n"
    "owed             3  5000000000000001001  5.000000000000001001\n"
    "submitted        1  2000000000000000000  2\n"
    "confirmed        1  1500000000000000000  1.5\n"
    "all              5  8500000000000001001  8.500000000000001001\n";

static const char EVM_JSON[] =
    "{\"id\":\"refund:c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3\",\"kind\":\"refund\",\"state\":\"owed\",\"recipient\":\"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266\",\"recipientKey\":null,\"amount\":\"5000000000000000000\",\"round\":null,\"handIndex\":null,\"tx\":\"0xc3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3\",\"createdHeight\":99,\"submittedTxid\":null,\"nonce\":null,\"submittedHeight\":null,\"submittedAt\":null,\"confirmedHeight\":null,\"lastError\":\"nonce too low \\\\xc3(\",\"orphaned\":null}\n"
    "{\"id\":\"insurance:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\",\"kind\":\"insurance\",\"state\":\"owed\",\"recipient\":\"0x1111111111111111111111111111111111111111\",\"recipientKey\":null,\"amount\":\"1\",\"round\":\"0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\",\"handIndex\":null,\"tx\":null,\"createdHeight\":100,\"submittedTxid\":null,\"nonce\":null,\"submittedHeight\":null,\"submittedAt\":null,\"confirmedHeight\":null,\"lastError\":\"insufficient funds\\tfor gas * price + value\\n\",\"orphaned\":null}\n"
    "{\"id\":\"return:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1:0\",\"kind\":\"return\",\"state\":\"submitted\",\"recipient\":\"0x1111111111111111111111111111111111111111\",\"recipientKey\":null,\"amount\":\"2000000000000000000\",\"round\":\"0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\",\"handIndex\":0,\"tx\":null,\"createdHeight\":100,\"submittedTxid\":\"0xd4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4\",\"nonce\":7,\"submittedHeight\":102,\"submittedAt\":1700000000,\"confirmedHeight\":null,\"lastError\":null,\"orphaned\":null}\n"
    "{\"id\":\"return:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1:1\",\"kind\":\"return\",\"state\":\"confirmed\",\"recipient\":\"0x1111111111111111111111111111111111111111\",\"recipientKey\":null,\"amount\":\"1500000000000000000\",\"round\":\"0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\",\"handIndex\":1,\"tx\":null,\"createdHeight\":100,\"submittedTxid\":\"0xe5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5\",\"nonce\":8,\"submittedHeight\":103,\"submittedAt\":1700000060,\"confirmedHeight\":105,\"lastError\":null,\"orphaned\":null}\n"
    "{\"id\":\"return:b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2:0\",\"kind\":\"return\",\"state\":\"owed\",\"recipient\":\"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266\",\"recipientKey\":null,\"amount\":\"1000\",\"round\":\"0xb2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2\",\"handIndex\":0,\"tx\":null,\"createdHeight\":101,\"submittedTxid\":null,\"nonce\":null,\"submittedHeight\":null,\"submittedAt\":null,\"confirmedHeight\":null,\"lastError\":null,\"orphaned\":null}\n";

static const char EVM_OWED[] =
    "ID                                                                          KIND       STATE  RECIPIENT                                                AMOUNT  ETH                   ROUND                                                               HAND  CREATED  LAST_ERROR\n"
    "refund:c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3     refund     owed   0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266  5000000000000000000  5                     -                                                                      -       99  nonce too low \\xc3(\n"
    "insurance:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1  insurance  owed   0x1111111111111111111111111111111111111111                    1  0.000000000000000001  0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1     -      100  insufficient funds\\x09for gas * price + value\\x0a\n"
    "return:b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2:0   return     owed   0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266                 1000  0.000000000000001     0xb2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2     0      101  -\n"
    "\n"
    "STATE  PAYOUTS               AMOUNT  ETH\n"
    "owed         3  5000000000000001001  5.000000000000001001\n"
    "all          3  5000000000000001001  5.000000000000001001\n";

static const char BTC_TABLE[] =
    "ID                                                                         KIND    STATE      RECIPIENT                                                                        AMOUNT  BTC         ROUND                                                             HAND  CREATED  SUBMITTED_TXID                                                    SUBMITTED  CONFIRMED  LAST_ERROR\n"
    "return:3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c:0  return  confirmed  bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr                150000000  1.5         3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c     0   840001  7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a     840003     840004  -\n"
    "refund:4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d    refund  owed       unattributed                                                                        546  0.00000546  -                                                                    -   840002  -                                                                         -          -  -\n"
    "refund:5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e    refund  submitted  bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr                    20000  0.0002      3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c     -   840002  8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b     840007          -  -\n"
    "return:6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f:0  return  owed       invalid-key:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff  100000000  1           6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f     0   840006  -                                                                         -          -  not a valid x-only key: no payout address\n"
    "\n"
    "STATE      PAYOUTS     AMOUNT  BTC\n"
    "owed             2  100000546  1.00000546\n"
    "submitted        1      20000  0.0002\n"
    "confirmed        1  150000000  1.5\n"
    "all              4  250020546  2.50020546\n";

static const char BTC_JSON[] =
    "{\"id\":\"return:3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c:0\",\"kind\":\"return\",\"state\":\"confirmed\",\"recipient\":\"bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr\",\"recipientKey\":\"cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115\",\"amount\":\"150000000\",\"round\":\"3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c\",\"handIndex\":0,\"tx\":null,\"createdHeight\":840001,\"submittedTxid\":\"7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a\",\"nonce\":null,\"submittedHeight\":840003,\"submittedAt\":1700000000,\"confirmedHeight\":840004,\"lastError\":null,\"orphaned\":null}\n"
    "{\"id\":\"refund:4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d\",\"kind\":\"refund\",\"state\":\"owed\",\"recipient\":null,\"recipientKey\":null,\"amount\":\"546\",\"round\":null,\"handIndex\":null,\"tx\":\"4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d\",\"createdHeight\":840002,\"submittedTxid\":null,\"nonce\":null,\"submittedHeight\":null,\"submittedAt\":null,\"confirmedHeight\":null,\"lastError\":null,\"orphaned\":null}\n"
    "{\"id\":\"refund:5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e\",\"kind\":\"refund\",\"state\":\"submitted\",\"recipient\":\"bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr\",\"recipientKey\":\"cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115\",\"amount\":\"20000\",\"round\":\"3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c\",\"handIndex\":null,\"tx\":\"5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e\",\"createdHeight\":840002,\"submittedTxid\":\"8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b\",\"nonce\":null,\"submittedHeight\":840007,\"submittedAt\":1700000600,\"confirmedHeight\":null,\"lastError\":null,\"orphaned\":null}\n"
    "{\"id\":\"return:6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f:0\",\"kind\":\"return\",\"state\":\"owed\",\"recipient\":null,\"recipientKey\":\"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\",\"amount\":\"100000000\",\"round\":\"6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f\",\"handIndex\":0,\"tx\":null,\"createdHeight\":840006,\"submittedTxid\":null,\"nonce\":null,\"submittedHeight\":null,\"submittedAt\":null,\"confirmedHeight\":null,\"lastError\":\"not a valid x-only key: no payout address\",\"orphaned\":null}\n";

static const char LTC_TABLE[] =
    "ID                                                                          KIND       STATE  RECIPIENT                                                           AMOUNT  LTC         ROUND                                                             HAND  CREATED\n"
    "return:1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a:0   return     owed   rltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqytm4cm  12345678  0.12345678  1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a     0      200\n"
    "insurance:2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b  insurance  owed   rltc1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9sdp4qm8  50000000  0.5         2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b     -      201\n"
    "\n"
    "STATE  PAYOUTS    AMOUNT  LTC\n"
    "owed         2  62345678  0.62345678\n"
    "all          2  62345678  0.62345678\n";
/* clang-format on */

/* ---- tests ---- */

/*
 * The ids of JSON Lines output, shortened to kind, the id's first byte and
 * the hand: "return:a1:0 refund:c3".
 */
static const char *ids(const char *jsonl)
{
	static char out[1024];
	const char *line = jsonl;
	size_t w = 0;

	out[0] = '\0';
	while (*line) {
		const char *nl = strchr(line, '\n'), *id, *colon, *hand;
		json_error_t e;
		json_t *o;

		assert_non_null(nl);
		o = json_loadb(line, (size_t)(nl - line), 0, &e);
		if (o == NULL)
			fail_msg("not JSON: %.*s: %s", (int)(nl - line), line,
			         e.text);
		id = json_string_value(json_object_get(o, "id"));
		assert_non_null(id);
		colon = strchr(id, ':');
		assert_non_null(colon);
		hand = strchr(colon + 1, ':');
		w += (size_t)snprintf(out + w, sizeof out - w, "%s%.*s%s",
		                      w ? " " : "", (int)(colon - id + 3), id,
		                      hand ? hand : "");
		json_decref(o);
		line = nl + 1;
	}
	return out;
}

/* Runs with --json and the arguments, and compares the selection. */
#define SELECT(want, ...)                                                      \
	do {                                                                   \
		struct res r_;                                                 \
		RUN(&r_, __VA_ARGS__, "--json");                               \
		if (r_.rc != 0)                                                \
			fail_msg("exit %d: %s", r_.rc, r_.err);                \
		assert_string_equal(r_.err, "");                               \
		assert_string_equal(ids(r_.out), (want));                      \
	} while (0)

/*
 * Every column, in base units and ether: 1 wei is 0.000000000000000001,
 * 1000 wei 0.000000000000001; owed is 5 ETH + 1 + 1000 wei, all adds 2
 * and 1.5 ETH.  Columns of settlement that are empty in some rows show
 * "-"; control characters and bytes that are not UTF-8 in an error are
 * escaped.
 */
static void test_evm_table(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", evm_db);
	expect(&r, 0, EVM_TABLE, "");
}

static void test_evm_json(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--json", "--db", evm_db);
	expect(&r, 0, EVM_JSON, "");
}

/* Columns empty in every selected row (settlement's) are left out, and
 * totals list only the states selected. */
static void test_evm_table_filtered(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", evm_db, "--state-filter", "owed");
	expect(&r, 0, EVM_OWED, "");
	RUN(&r, "--db", evm_db, "--state-filter", "owed", "--kind", "return",
	    "--recipient", "0x" X);
	expect(&r, 0, "no payouts match\n", "");
	RUN(&r, "--db", evm_db, "--round", B, "--kind", "refund", "--json");
	expect(&r, 0, "", "");
}

static void test_evm_filters(void **state)
{
	(void)state;
	SELECT("refund:c3 insurance:a1 return:a1:0 return:a1:1 return:b2:0",
	       "--db", evm_db);
	SELECT("refund:c3 insurance:a1 return:b2:0", "--db", evm_db,
	       "--state-filter", "owed");
	SELECT("return:a1:0", "--db", evm_db, "--state-filter", "submitted");
	SELECT("return:a1:1", "--db", evm_db, "--state-filter=confirmed");
	SELECT("return:a1:0 return:a1:1 return:b2:0", "--db", evm_db, "--kind",
	       "return");
	SELECT("insurance:a1", "--db", evm_db, "--kind", "insurance");
	SELECT("refund:c3", "--db", evm_db, "--kind", "refund");
	/* The address as printed, in EIP-55 case, without 0x. */
	SELECT("refund:c3 return:b2:0", "--db", evm_db, "--recipient", "0x" Y);
	SELECT("refund:c3 return:b2:0", "--db", evm_db, "--recipient",
	       "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
	SELECT("insurance:a1 return:a1:0 return:a1:1", "--db", evm_db,
	       "--recipient", X);
	SELECT("", "--db", evm_db, "--recipient", "unattributed");
	/* The round id with or without 0x, either case. */
	SELECT("insurance:a1 return:a1:0 return:a1:1", "--db", evm_db,
	       "--round", "0x" A);
	SELECT("insurance:a1 return:a1:0 return:a1:1", "--db", evm_db,
	       "--round", HEX32("A1"));
	SELECT("return:b2:0", "--db", evm_db, "--round", B);
	/* Filters combine. */
	SELECT("return:a1:0 return:a1:1", "--db", evm_db, "--round", A,
	       "--kind", "return");
	SELECT("return:a1:1", "--db", evm_db, "--round", A, "--kind", "return",
	       "--state-filter", "confirmed", "--recipient", X);
	SELECT("return:b2:0", "--db", evm_db, "--recipient", Y,
	       "--state-filter", "owed", "--kind", "return");
	SELECT("", "--db", evm_db, "--round", A, "--recipient", Y);
}

/*
 * x-only keys are shown as tr(P): BIP-86's own vector for P86 on mainnet;
 * an unknown recipient is "unattributed"; a key with no address is shown
 * as such.  546 sat is 0.00000546 BTC; owed is 1 BTC + 546 sat.
 */
static void test_btc_table(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", btc_db);
	expect(&r, 0, BTC_TABLE, "");
	assert_non_null(strstr(r.out, "  " BC86 "  "));
}

static void test_btc_json(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", btc_db, "--json");
	expect(&r, 0, BTC_JSON, "");
}

static void test_btc_filters(void **state)
{
	struct res r;

	(void)state;
	SELECT("return:3c:0 refund:4d refund:5e return:6f:0", "--db", btc_db);
	/* The payout address, in either case, or the key P. */
	SELECT("return:3c:0 refund:5e", "--db", btc_db, "--recipient", BC86);
	SELECT(
	    "return:3c:0 refund:5e", "--db", btc_db, "--recipient",
	    "BC1P5CYXNUXMEUWUVKWFEM96LQZSZD02N6XDCJRS20CAC6YQJJWUDPXQKEDRCR");
	SELECT("return:3c:0 refund:5e", "--db", btc_db, "--recipient", P86);
	SELECT("return:6f:0", "--db", btc_db, "--recipient", PBAD);
	SELECT("refund:4d", "--db", btc_db, "--recipient", "unattributed");
	/* A round's returns and the refunds of actions that named it. */
	SELECT("return:3c:0 refund:5e", "--db", btc_db, "--round", C);
	SELECT("refund:5e", "--db", btc_db, "--round", C, "--kind", "refund");
	SELECT("refund:4d refund:5e", "--db", btc_db, "--kind", "refund");
	SELECT("refund:5e", "--db", btc_db, "--recipient", BC86,
	       "--state-filter", "submitted");
	SELECT("", "--db", btc_db, "--recipient", BC86, "--state-filter",
	       "owed");

	/* What only the chain makes wrong is still a usage error. */
	RUN(&r, "--db", btc_db, "--round", "0x" C);
	expect_usage(&r, "--round \"0x" C "\": Bitcoin-family hex is written "
	                 "without \"0x\" (the database is " BTC_MAIN ")");
	RUN(&r, "--db", btc_db, "--recipient", "0x" X);
	expect_usage(&r, "--recipient \"0x" X "\": an EVM address, but the "
	                 "database is " BTC_MAIN ", whose recipients are "
	                 "payout addresses tr(P) or keys P (64 hex digits)");
	/* BIP-86's address on test networks: another chain. */
	RUN(&r, "--db", btc_db, "--recipient",
	    "tb1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqp3mvzv");
	expect_usage(
	    &r,
	    "--recipient "
	    "\"tb1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqp3mvzv\""
	    ": not an address of the database's chain " BTC_MAIN
	    " (addresses beginning \"bc1\"): human-readable part \"tb\", "
	    "expected \"bc\"");
	RUN(&r, "--db", btc_db, "--recipient",
	    "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
	expect_usage(&r, "--recipient "
	                 "\"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\": not "
	                 "a taproot address (witness version 1, 32 bytes): "
	                 "payouts go to tr(P)");
	/* And EVM databases refuse Bitcoin-family recipients. */
	RUN(&r, "--db", evm_db, "--recipient", P86);
	expect_usage(&r, "--recipient \"" P86 "\": a Bitcoin-family "
	                 "recipient, but the database is evm:31337, whose "
	                 "recipients are addresses (0x + 40 hex digits)");
	RUN(&r, "--db", evm_db, "--recipient", BC86);
	expect_usage(&r, "--recipient \"" BC86 "\": a Bitcoin-family "
	                 "recipient, but the database is evm:31337, whose "
	                 "recipients are addresses (0x + 40 hex digits)");
}

/* Litecoin regtest: the rltc prefix and LTC (docs/BITCOIN-KEYS.md). */
static void test_ltc_table(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--db", ltc_db);
	expect(&r, 0, LTC_TABLE, "");
	assert_non_null(strstr(r.out, "  " RLTC86 "  "));
	assert_non_null(strstr(r.out, "  " RLTCDOC "  "));
	SELECT("insurance:2b", "--db", ltc_db, "--recipient", RLTCDOC);
}

/* --state DIR, $STATE_DIRECTORY's first entry, and the default. */
static void test_state_directory(void **state)
{
	const char *dir = path_in("state"), *db = path_in("state/"
	                                                  "hashjackd.sqlite");
	char env[300], slash[300];
	struct res r;

	(void)state;
	assert_int_equal(mkdir(dir, 0700), 0);
	make_ltc(db);
	RUN(&r, "--state", dir);
	expect(&r, 0, LTC_TABLE, "");
	RUN(&r, "--state-dir", dir);
	expect(&r, 0, LTC_TABLE, "");
	/* -c: the configuration's [state] directory, or a key over it. */
	RUN(&r, "-c", conf_in("with-state.conf", dir));
	expect(&r, 0, LTC_TABLE, "");
	RUN(&r, "--config", conf_in("no-state.conf", NULL), "--state.directory",
	    dir);
	expect_usage(&r, "unknown option \"--state.directory\"");
	snprintf(slash, sizeof slash, "--state.directory=%s", dir);
	RUN(&r, "--config", conf_in("no-state.conf", NULL), slash);
	expect(&r, 0, LTC_TABLE, "");
	RUN(&r, slash);
	expect(&r, 0, LTC_TABLE, "");
	snprintf(slash, sizeof slash, "%s/", dir);
	RUN(&r, "--state", slash);
	expect(&r, 0, LTC_TABLE, "");
	snprintf(env, sizeof env, "%s:/nonexistent", dir);
	runv(&r, env, NULL, (const char *const[]){"ledger", NULL});
	expect(&r, 0, LTC_TABLE, "");
	/* --db and --state win over the environment. */
	runv(&r, "/nonexistent", NULL,
	     (const char *const[]){"ledger", "--db", evm_db, "--json", NULL});
	expect(&r, 0, EVM_JSON, "");
	runv(
	    &r, "/nonexistent", NULL,
	    (const char *const[]){"ledger", "--state", "/nonexistent/x", NULL});
	expect(&r, 66, "",
	       "hashjack: ledger: cannot open database "
	       "/nonexistent/x/hashjackd.sqlite: No such file or directory\n");
	/* Not an absolute path: ignored, as the daemon does. */
	if (access("/var/lib/hashjackd/hashjackd.sqlite", F_OK) != 0) {
		runv(&r, "state", NULL, (const char *const[]){"ledger", NULL});
		expect(&r, 66, "",
		       "hashjack: ledger: cannot open database "
		       "/var/lib/hashjackd/hashjackd.sqlite: No such file or "
		       "directory\n");
		runv(&r, NULL, NULL, (const char *const[]){"ledger", NULL});
		expect(&r, 66, "",
		       "hashjack: ledger: cannot open database "
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
	assert_non_null(strstr(r.out, "Usage: hashjack ledger [-c FILE | "
	                              "--state-dir DIR | --db FILE]\n"));
	assert_non_null(strstr(r.out, "75 the database stayed busy"));
	/* --help wins over anything else on the line, errors included. */
	RUN(&again, "--db", "/nonexistent", "--bogus", "-h");
	expect(&again, 0, r.out, "");
	runv(&again, NULL, NULL, (const char *const[]){"help", "ledger", NULL});
	expect(&again, 0, r.out, "");
	runv(&again, NULL, NULL, (const char *const[]){"--help", NULL});
	assert_int_equal(again.rc, 0);
	assert_non_null(strstr(again.out, "  ledger [OPTIONS]"));
}

/* The command line is checked whole before any file is opened. */
static void test_usage_errors(void **state)
{
	struct res r;

	(void)state;
	RUN(&r, "--bogus");
	expect_usage(&r, "unknown option \"--bogus\"");
	RUN(&r, "extra");
	expect_usage(&r, "unexpected argument \"extra\"");
	RUN(&r, "--", "extra");
	expect_usage(&r, "unexpected argument \"extra\"");
	RUN(&r, "--db");
	expect_usage(&r, "--db needs a value");
	RUN(&r, "--db", "a", "--db=b");
	expect_usage(&r, "--db given twice");
	RUN(&r, "--json", "--json");
	expect_usage(&r, "--json given twice");
	RUN(&r, "--json=yes");
	expect_usage(&r, "--json takes no value");
	RUN(&r, "--state", "/a", "--db", "/b");
	expect_usage(&r, "--state and --db: give one or the other");
	RUN(&r, "-c", "/a", "--state-dir", "/b");
	expect_usage(&r, "-c and --state-dir: give one or the other");
	RUN(&r, "--config", "/a", "--db", "/b");
	expect_usage(&r, "--config and --db: give one or the other");
	RUN(&r, "-c", "/a", "--config", "/a");
	expect_usage(&r, "-c and --config are the same option: give it once");
	RUN(&r, "--db", "/b", "--state.directory=/a");
	expect_usage(&r, "a --SECTION.KEY=VALUE sets a key of the "
	                 "configuration: give it with -c FILE, or without "
	                 "--state-dir and --db");
	RUN(&r, "--chain.bogus=1");
	expect_usage(&r, "command line: --chain.bogus: unknown key");
	RUN(&r, "--db", "");
	expect_usage(&r, "--db: empty");
	RUN(&r, "--state=");
	expect_usage(&r, "--state: empty");
	RUN(&r, "--db", "/nonexistent", "--state-filter", "paid");
	expect_usage(&r, "--state-filter \"paid\": not a payout state (owed, "
	                 "submitted or confirmed)");
	RUN(&r, "--db", "/nonexistent", "--kind", "bonus");
	expect_usage(&r, "--kind \"bonus\": not a payout kind (return, "
	                 "insurance, sidebet, refund or sweep)");
	RUN(&r, "--db", "/nonexistent", "--round", "0x12");
	expect_usage(&r, "--round \"0x12\": not a round id (the Bet's "
	                 "transaction id, 64 hex digits): 64 hex digits "
	                 "expected, found 2");
	RUN(&r, "--db", "/nonexistent", "--round", "0X" A);
	expect_usage(&r, "--round \"0X" A "\": not a round id (the Bet's "
	                 "transaction id, 64 hex digits): 'X' at offset 1 is "
	                 "not a hex digit");
	RUN(&r, "--db", "/nonexistent", "--recipient", "bob");
	expect_usage(&r, "--recipient \"bob\": not an EVM address (0x + 40 "
	                 "hex digits), a key P (64 hex digits), a payout "
	                 "address tr(P) or \"unattributed\"");
	RUN(&r, "--db", "/nonexistent", "--recipient", "0x" X "00");
	expect_usage(&r, "--recipient \"0x" X "00\": not an EVM address (0x "
	                 "+ 40 hex digits), a key P (64 hex digits), a payout "
	                 "address tr(P) or \"unattributed\"");
	/* A checksum error in an address is not an address. */
	RUN(&r, "--db", "/nonexistent", "--recipient",
	    "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcq");
	assert_int_equal(r.rc, 64);
}

/* Raw SQLite databases that are not the daemon's, or not whole. */
static void test_not_hashjackd(void **state)
{
	const char *empty = path_in("empty.sqlite"),
	           *text = path_in("text.sqlite"),
	           *bare = path_in("bare.sqlite"),
	           *half = path_in("half.sqlite"),
	           *other = path_in("other.sqlite"),
	           *newer = path_in("newer.sqlite"),
	           *fresh = path_in("fresh.sqlite"),
	           *nometa = path_in("nometa.sqlite"),
	           *odd = path_in("odd.sqlite");
	char want[600];
	struct res r;
	FILE *f;

	(void)state;
	RUN(&r, "--db", tmpdir);
	snprintf(want, sizeof want,
	         "hashjack: ledger: cannot open database %s: Is a directory\n",
	         tmpdir);
	expect(&r, 66, "", want);
	RUN(&r, "--db", "/dev/null");
	expect(&r, 66, "",
	       "hashjack: ledger: cannot open database /dev/null: not a "
	       "regular file\n");

	f = fopen(empty, "w");
	assert_non_null(f);
	fclose(f);
	RUN(&r, "--db", empty);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: an empty file: not a hashjackd "
	         "database (yet)\n",
	         empty);
	expect(&r, 65, "", want);

	f = fopen(text, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is a card log, not a database\n", f);
	fclose(f);
	RUN(&r, "--db", text);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: not an SQLite database (file is not a "
	         "database)\n",
	         text);
	expect(&r, 65, "", want);

	sql(bare, "CREATE TABLE notes (t TEXT)");
	RUN(&r, "--db", bare);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: not a hashjackd database: no tables "
	         "\"meta\" and \"payouts\"\n",
	         bare);
	expect(&r, 65, "", want);

	sql(half, "CREATE TABLE meta (id INTEGER PRIMARY KEY)");
	RUN(&r, "--db", half);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: not a hashjackd database: no table "
	         "\"payouts\"\n",
	         half);
	expect(&r, 65, "", want);

	sql(other, "CREATE TABLE meta (x); CREATE TABLE payouts (y)");
	RUN(&r, "--db", other);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: not a hashjackd database: "
	         "application_id 0x00000000, expected 0x484a4b44\n",
	         other);
	expect(&r, 65, "", want);

	make_ltc(newer);
	sql(newer, "PRAGMA user_version = 8");
	RUN(&r, "--db", newer);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: schema version 8 was written by a "
	         "newer hashjackd; this hashjack reads version 7\n",
	         newer);
	expect(&r, 65, "", want);

	/* Opened by a daemon that never reached its node: nothing yet. */
	hj_store *s = NULL;
	char err[HJ_ERRLEN];
	assert_int_equal(hj_store_open(fresh, &s, err, sizeof err), 0);
	hj_store_close(s);
	RUN(&r, "--db", fresh);
	expect(&r, 0, "no payouts\n", "");
	RUN(&r, "--db", fresh, "--json");
	expect(&r, 0, "", "");

	/* Payouts without the meta row that says which chain. */
	make_ltc(nometa);
	sql(nometa, "DELETE FROM meta");
	RUN(&r, "--db", nometa);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: 2 payouts but no meta row: the "
	         "database does not say which chain they are on\n",
	         nometa);
	expect(&r, 65, "", want);

	make_ltc(odd);
	sql(odd,
	    "UPDATE meta SET chain = 'bitcoin:dogecoin:main:" HEX32("00") "'");
	RUN(&r, "--db", odd);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: meta: chain "
	         "\"bitcoin:dogecoin:main:" HEX32(
	             "00") "\": unknown coin "
	                   "\"dogecoin\" (bitcoin or litecoin)\n",
	         odd);
	expect(&r, 65, "", want);
	sql(odd, "UPDATE meta SET family = 'evm', chain = 'evm:'");
	RUN(&r, "--db", odd);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: meta: chain \"evm:\" is not a chain "
	         "identity of family \"evm\" (\"evm:<chain id>\" or "
	         "\"bitcoin:<coin>:<network>:<genesis>\")\n",
	         odd);
	expect(&r, 65, "", want);
	sql(odd, "UPDATE meta SET family = 'solana'");
	RUN(&r, "--db", odd);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: meta: family \"solana\" is not a "
	         "chain family this hashjack knows (evm, bitcoin)\n",
	         odd);
	expect(&r, 65, "", want);
}

/* A row that breaks the schema's promises names the payout and column;
 * a sum beyond 128 bits is refused, never printed wrong. */
static void test_damaged_rows(void **state)
{
	const char *db = path_in("damaged.sqlite");
	char want[600];
	struct res r;

	(void)state;
	make_evm(db);
	sql(db, "UPDATE payouts SET recipient = x'0102' WHERE id = 'return:" B
	        ":0'");
	RUN(&r, "--db", db, "--json");
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: payout \"return:" B
	         ":0\": recipient is not an EVM address (20 bytes)\n",
	         db);
	expect(&r, 65, "", want);
	/* Filters that leave it out read past it. */
	SELECT("insurance:a1", "--db", db, "--kind", "insurance");

	sql(db, "UPDATE payouts SET recipient = x'" Y "', nonce = 'seven'"
	        " WHERE id = 'return:" B ":0'");
	RUN(&r, "--db", db);
	snprintf(want, sizeof want,
	         "hashjack: ledger: %s: payout \"return:" B
	         ":0\": column nonce does not hold what the schema says "
	         "(docs/STATE.md)\n",
	         db);
	expect(&r, 65, "", want);

	/* Two payouts of 2^127: their sum needs 129 bits. */
	sql(db, "UPDATE payouts SET nonce = NULL,"
	        " amount = '170141183460469231731687303715884105728'"
	        " WHERE id IN ('return:" B ":0', 'refund:" R "')");
	RUN(&r, "--db", db);
	expect(&r, 65, "",
	       "hashjack: ledger: the payouts' sum exceeds 2^128 - 1 base "
	       "units: not a real ledger\n");
	/* One of them alone is fine, and JSON has no totals. */
	SELECT("refund:c3 return:b2:0", "--db", db, "--recipient", Y);
	RUN(&r, "--db", db, "--recipient", Y, "--kind", "refund");
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out,
	                       "  170141183460469231731687303715884105728  "
	                       "170141183460469231731.687303715884105728"));
}

/* A failed write is an error, never a silent success. */
static void test_write_error(void **state)
{
	struct res r;

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	runv(&r, NULL, "/dev/full",
	     (const char *const[]){"ledger", "--db", evm_db, NULL});
	expect(&r, 74, "", "hashjack: write error: No space left on device\n");
	runv(&r, NULL, "/dev/full",
	     (const char *const[]){"ledger", "--db", evm_db, "--json", NULL});
	expect(&r, 74, "", "hashjack: write error: No space left on device\n");
}

/*
 * The daemon in the middle of a batch: its write transaction is open
 * (BEGIN IMMEDIATE, rows written, not committed).  The tool reads the last
 * commit at once (no wait for the busy timeout), and leaves the database
 * and its WAL as they were.
 */
static void test_daemon_writing(void **state)
{
	const char *db = path_in("busy.sqlite");
	char wal[200], shm[200];
	struct snap main_before, wal_before;
	hj_id t = id_of(0xd9, 32), x = id_hex(X);
	hj_store *s;
	struct res r;

	(void)state;
	wal_shm(db, wal, shm, sizeof wal);
	make_evm(db);
	s = store_open(db, "evm", "evm:31337", EVM_DEALER, RULES);
	store_begin(s);
	add_tx(s, 120, 0xd9, &x, 1000, "rejected", NULL);
	add_payout(s, "refund", NULL, -1, &t, &x, "7", 120);

	snap_take(db, &main_before);
	snap_take(wal, &wal_before);
	assert_true(wal_before.exists);
	RUN(&r, "--db", db);
	expect(&r, 0, EVM_TABLE, "");
	assert_true(r.secs < 4.0); /* the busy timeout is 5 s */
	RUN(&r, "--db", db, "--json");
	expect(&r, 0, EVM_JSON, "");
	snap_same(db, &main_before);
	snap_same(wal, &wal_before);

	/* Once committed, the next run shows it. */
	store_commit(s);
	SELECT("refund:c3 insurance:a1 return:a1:0 return:a1:1 return:b2:0 "
	       "refund:d9",
	       "--db", db);
	hj_store_close(s);
}

/*
 * The daemon stopped: no -wal or -shm beside the database.  The tool
 * creates neither (SQLite's read-only connections would) and changes
 * nothing.
 */
static void test_daemon_stopped(void **state)
{
	char wal[200], shm[200];
	struct snap before, wal_before, shm_before;
	struct res r;

	(void)state;
	wal_shm(evm_db, wal, shm, sizeof wal);
	snap_take(evm_db, &before);
	snap_take(wal, &wal_before);
	snap_take(shm, &shm_before);
	assert_false(wal_before.exists);
	assert_false(shm_before.exists);
	RUN(&r, "--db", evm_db);
	expect(&r, 0, EVM_TABLE, "");
	snap_same(evm_db, &before);
	snap_same(wal, &wal_before);
	snap_same(shm, &shm_before);
}

/*
 * The daemon killed after a commit: the commit is only in the -wal.  The
 * tool reads it, and does not checkpoint it into the database file (the
 * daemon does that when it restarts).
 */
static void test_daemon_crashed(void **state)
{
	const char *db = path_in("crashed.sqlite");
	char wal[200], shm[200];
	struct snap before;
	struct res r;
	pid_t pid;
	int status;

	(void)state;
	wal_shm(db, wal, shm, sizeof wal);
	make_ltc(db);
	snap_take(db, &before);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		hj_store *s =
		    store_open(db, "bitcoin", LTC_CHAIN, LTC_DEALER, RULES);
		hj_id c = id_of(0x3c, 32), d = id_of(0x4d, 32);

		store_begin(s);
		add_tx(s, 202, 0x3c, NULL, 1000, "accepted", &c);
		add_tx(s, 202, 0x4d, NULL, 1000, "rejected", &c);
		add_payout(s, "refund", &c, -1, &d, NULL, "999", 202);
		store_commit(s);
		_exit(0); /* no close: the WAL stays as a crash leaves it */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snap_same(db, &before); /* the commit is in the WAL only */
	snap_take(db, &before);
	assert_int_equal(access(wal, F_OK), 0);

	SELECT("return:1a:0 insurance:2b refund:4d", "--db", db);
	RUN(&r, "--db", db, "--recipient", "unattributed");
	expect(
	    &r, 0,
	    "ID                                                                "
	    "       KIND    STATE  RECIPIENT     AMOUNT  LTC         ROUND     "
	    "                                                        CREATED\n"
	    "refund:"
	    "4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d  "
	    "refund  owed   unattributed     999  0.00000999  "
	    "3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c  "
	    "    202\n"
	    "\n"
	    "STATE  PAYOUTS  AMOUNT  LTC\n"
	    "owed         1     999  0.00000999\n"
	    "all          1     999  0.00000999\n",
	    "");
	snap_same(db, &before);
	assert_int_equal(access(wal, F_OK), 0);
	assert_int_equal(access(shm, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_table),
	    cmocka_unit_test(test_evm_json),
	    cmocka_unit_test(test_evm_table_filtered),
	    cmocka_unit_test(test_evm_filters),
	    cmocka_unit_test(test_btc_table),
	    cmocka_unit_test(test_btc_json),
	    cmocka_unit_test(test_btc_filters),
	    cmocka_unit_test(test_ltc_table),
	    cmocka_unit_test(test_state_directory),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_not_hashjackd),
	    cmocka_unit_test(test_damaged_rows),
	    cmocka_unit_test(test_write_error),
	    cmocka_unit_test(test_daemon_writing),
	    cmocka_unit_test(test_daemon_stopped),
	    cmocka_unit_test(test_daemon_crashed),
	};

	return cmocka_run_group_tests(tests, setup_dbs, teardown_dbs);
}
