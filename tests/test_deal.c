/*
 * Blocks through a real table into card log lines: the engine's sink
 * writing the line (hj_cardlog_sink), and the dealer's single step
 * (daemon/core/deal.h, hj_deal_block), which must give the same lines, hand
 * every event to the caller's sink after the line has it, and refuse
 * what it cannot deal with exact messages.
 *
 * The expected lines are built from docs/LOG.md's examples
 * (cardlog_util.h) and written from the protocol, not copied from what
 * the code prints.  Each line is read back by the log's reader
 * (hj_cardlog_read) to exactly the events the engine reported.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "card.h"
#include "cardlog.h"
#include "cardlog_util.h"
#include "deal.h"
#include "evm.h"
#include "rules.h"
#include "say.h"
#include "seed.h"
#include "sha256.h"
#include "table.h"

/* 10^18: one ether in wei. */
#define E18 ((hj_amount)1000000000000000000ull)

/* ------------------------------------------------------------------ */
/* Driving a real table: the sink writes what the engine reports.      */

static const uint8_t PL_BET[] = {0x48, 0x4a, 0x01, 0x01};
static const uint8_t PL_HIT[] = {0x48, 0x4a, 0x01, 0x02};
static const uint8_t PL_PEEK_INS[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
static const uint8_t PL_BAD_VERSION[] = {0x48, 0x4a, 0x02, 0x01};

static hj_action evm_tx(const char *hash, const char *from, hj_amount value,
                        const uint8_t *in, size_t n, int ok, uint32_t idx)
{
	uint8_t h[32], f[20];
	hj_evm_tx tx;
	hj_action a;

	unhex(hash, h, 32);
	unhex(from, f, 20);
	memset(&tx, 0, sizeof tx);
	tx.hash = h;
	tx.from = f;
	tx.value = value;
	tx.input = in;
	tx.input_len = n;
	tx.success = ok;
	tx.tx_index = idx;
	hj_evm_action(&tx, &a);
	return a;
}

struct sblock {
	uint64_t height;
	const char *hash, *parent;
	hj_action txs[4];
	size_t ntx;
	const char *want;
	size_t open_after; /* rounds open after the block */
};

/*
 * Applies the blocks to a table with hj_cardlog_sink, and to a second
 * table through hj_deal_block: both must give exactly the wanted lines, and
 * the step's sink gets each event the line has, in the line's order.
 */
struct seen {
	hj_cardlog *cl; /* the step's line, being built */
	unsigned n;
};

static void count_event(void *ctx, const hj_event *ev)
{
	struct seen *s = ctx;

	(void)ev;
	s->n++;
	/* The line has the event before the sink sees it. */
	assert_int_equal(s->cl->nevents, s->n);
}

static void run_blocks(const hj_rules *ru, const struct sblock *b, size_t n)
{
	hj_table *t, *t2;
	hj_cardlog cl, cl2;
	char err[HJ_ERRLEN];

	assert_int_equal(hj_table_new(ru, &t), 0);
	assert_int_equal(hj_table_new(ru, &t2), 0);
	hj_cardlog_init(&cl);
	hj_cardlog_init(&cl2);
	for (size_t i = 0; i < n; i++) {
		hj_action txs[4];
		hj_chain_block hb = {.txs = txs, .ntx = b[i].ntx};
		hj_card card;
		const char *l2 = NULL;
		size_t len2 = 0;
		struct seen seen = {.cl = &cl2};
		static rec r;
		hj_cardlog_line l;
		char *line;

		memcpy(txs, b[i].txs, sizeof txs);
		hb.height = b[i].height;
		unhex(b[i].hash, hb.hash, 32);
		unhex(b[i].parent, hb.parent, 32);
		assert_int_equal(hj_card_from_hash(b[i].hash, strlen(b[i].hash),
		                                   &card, NULL, 0),
		                 0);
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, hb.height,
		                                  hb.hash, hb.parent, NULL,
		                                  &card),
		                 0);
		r.cl = &cl;
		r.n = 0;
		assert_int_equal(hj_table_apply_block(t, hb.height, &card,
		                                      b[i].txs, b[i].ntx,
		                                      rec_sink, &r),
		                 0);
		line = finish(&cl);
		assert_string_equal(line, b[i].want);
		assert_keys(line, card.rank ? K_LINE_CARD : K_LINE_VOID);
		/* Read back: the header and every event as the engine
		 * reported it. */
		read_back(line, HJ_EVM, &l);
		assert_header(&l, HJ_EVM, hb.height, hb.hash, hb.parent, &card);
		assert_events(&l, &r, HJ_EVM);
		hj_cardlog_line_free(&l);
		free(line);
		assert_int_equal(hj_table_count(t), b[i].open_after);

		assert_int_equal(hj_deal_block(t2, &cl2, "evm", HJ_EVM, NULL,
		                               &hb, count_event, &seen, &l2,
		                               &len2, err, sizeof err),
		                 0);
		assert_int_equal(seen.n, cl2.nevents);
		assert_int_equal(len2, strlen(b[i].want));
		assert_memory_equal(l2, b[i].want, len2);
	}
	hj_cardlog_release(&cl);
	hj_cardlog_release(&cl2);
	hj_table_free(t);
	hj_table_free(t2);
}

static hj_rules rules(uint32_t timeout)
{
	hj_rules r;
	char err[HJ_ERRLEN];

	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = E18 * 1000;
	r.timeout_blocks = timeout;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	return r;
}

/* Blocks of the table scenarios: the card is in the last two digits. */
#define HA0 "0x10" E60 "12" /* 2D */
#define HA1 "0x11" E60 "3a" /* 10S */
#define HA2 "0x12" E60 "21" /* AH */
#define HA3 "0x13" E60 "09" /* 9C */
#define HA4 "0xf0" E60 "fe" /* void */
#define HA5 "0x15" E60 "1d" /* KD */
#define HAP "0x0f" E60 "0f"

#define C_2D  CARDJ("2", "Diamonds", "2", "2D", "63", "2", "1")
#define C_10S CARDJ("10", "Spades", "10", "10S", "63", "a", "3")
#define C_AH  CARDJ("A", "Hearts", "1", "AH", "63", "1", "2")
#define C_9C  CARDJ("9", "Clubs", "9", "9C", "63", "9", "0")
#define C_KD  CARDJ("K", "Diamonds", "10", "KD", "63", "d", "1")
#define C_7D  CARDJ("7", "Diamonds", "7", "7D", "63", "7", "1")
#define C_8H  CARDJ("8", "Hearts", "8", "8H", "63", "8", "2")
#define C_KC  CARDJ("K", "Clubs", "10", "KC", "63", "d", "0")

/*
 * A Bet with an Ace up, insurance taken, dealer blackjack: the round of
 * LOG.md's Peek and insured settle examples, which must come out verbatim.
 * Around it a deposit, a failed transaction, a malformed payload and a
 * premature Hit.
 */
static void test_deal_table_insured(void **state)
{
	hj_rules ru = rules(100);
	struct sblock b[] = {
	    {19000000,
	     HA0,
	     HAP,
	     {evm_tx(T_DEP, F_DEP, 123, NULL, 0, 1, 0),
	      evm_tx(R_PEEK, P_PEEK, 1000, PL_BET, 4, 1, 1),
	      evm_tx(T_IGN, F_IGN, 5, PL_BET, 4, 0, 2),
	      evm_tx(T_REJ3, F_REJ3, 1000, PL_BAD_VERSION, 4, 1, 4)},
	     4,
	     HEAD("19000000", HA0, HAP) C_2D
	     ",\"events\":[" DOC_DEPOSIT ","
	     "{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"" R_PEEK
	     "\",\"player\":\"" P_PEEK "\",\"tx\":\"" R_PEEK
	     "\",\"txIndex\":1,\"stake\":\"1000\"},"
	     "{\"type\":\"ignored\",\"tx\":\"" T_IGN
	     "\",\"txIndex\":2,\"from\":\"" F_IGN
	     "\",\"reason\":\"tx_failed\"},"
	     "{\"type\":\"reject\",\"tx\":\"" T_REJ3
	     "\",\"txIndex\":4,\"from\":\"" F_REJ3
	     "\",\"reason\":\"bad_version\",\"refund\":\"1000\"}]}\n",
	     1},
	    {19000001,
	     HA1,
	     HA0,
	     {{0}},
	     0,
	     HEAD("19000001", HA1, HA0) C_10S
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"10S\"}]}"
	     "\n",
	     1},
	    {19000002,
	     HA2,
	     HA1,
	     {{0}},
	     0,
	     HEAD("19000002", HA2, HA1) C_AH
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Dealer\",\"card\":\"AH\"}]}\n",
	     1},
	    /* The Hit comes in the block that deals the last card: its
	     * window opens at the next block. */
	    {19000003,
	     HA3,
	     HA2,
	     {evm_tx(T_HIT, P_PEEK, 0, PL_HIT, 4, 1, 0)},
	     1,
	     HEAD("19000003", HA3, HA2) C_9C
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"9C\"},"
	     "{\"type\":\"reject\",\"tx\":\"" T_HIT
	     "\",\"txIndex\":0,\"from\":\"" P_PEEK
	     "\",\"action\":\"Hit\",\"round\":\"" R_PEEK
	     "\",\"reason\":\"premature\",\"refund\":\"0\"}]}\n",
	     1},
	    {19000004,
	     HA4,
	     HA3,
	     {evm_tx(T_PEEK, P_PEEK, 500, PL_PEEK_INS, 5, 1, 1)},
	     1,
	     HEAD("19000004", HA4, HA3) "\"void\":true,\"events\":[" DOC_PEEK
	                                "]}\n",
	     1},
	    /* The peek card comes from the next block with a card; with the ace
	     * up, a K makes the dealer's blackjack. */
	    {19000005,
	     HA5,
	     HA4,
	     {{0}},
	     0,
	     HEAD("19000005", HA5, HA4) C_KD ",\"events\":[" DOC_PEEK_BJ
	                                     "," DOC_SETTLE_INSURED "]}\n",
	     0},
	};

	(void)state;
	run_blocks(&ru, b, sizeof b / sizeof b[0]);
}

#define HB0 "0x20" E60 "12" /* 2D */
#define HB1 "0x21" E60 "3a" /* 10S */
#define HB2 "0x22" E60 "17" /* 7D */
#define HB3 "0x23" E60 "28" /* 8H */
#define HB4 "0x24" E60 "12" /* 2D */
#define HB5 "0x25" E60 "12" /* 2D */
#define HB6 "0x26" E60 "12" /* 2D */
#define HB7 "0x27" E60 "0d" /* KC */

/* A timeout (timeout_blocks 2): the window opens at X+4, the default
 * Stand comes at X+6, the dealer draws at X+7 and stands on 17. */
static void test_deal_table_timeout(void **state)
{
	hj_rules ru = rules(2);
	struct sblock b[] = {
	    {20000000,
	     HB0,
	     HAP,
	     {evm_tx(R_TO_STAND, P_STAND, 1000, PL_BET, 4, 1, 0)},
	     1,
	     HEAD("20000000", HB0, HAP) C_2D
	     ",\"events\":[{\"type\":\"action\",\"action\":\"Bet\",\"round\":"
	     "\"" R_TO_STAND "\",\"player\":\"" P_STAND
	     "\",\"tx\":\"" R_TO_STAND
	     "\",\"txIndex\":0,\"stake\":\"1000\"}]}\n",
	     1},
	    {20000001,
	     HB1,
	     HB0,
	     {{0}},
	     0,
	     HEAD("20000001", HB1, HB0) C_10S
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"10S\"}]}"
	     "\n",
	     1},
	    {20000002,
	     HB2,
	     HB1,
	     {{0}},
	     0,
	     HEAD("20000002", HB2, HB1) C_7D
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Dealer\",\"card\":\"7D\"}]}\n",
	     1},
	    {20000003,
	     HB3,
	     HB2,
	     {{0}},
	     0,
	     HEAD("20000003", HB3, HB2) C_8H
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"8H\"}]}"
	     "\n",
	     1},
	    {20000004,
	     HB4,
	     HB3,
	     {{0}},
	     0,
	     HEAD("20000004", HB4, HB3) C_2D ",\"events\":[]}\n",
	     1},
	    {20000005,
	     HB5,
	     HB4,
	     {{0}},
	     0,
	     HEAD("20000005", HB5, HB4) C_2D ",\"events\":[]}\n",
	     1},
	    {20000006,
	     HB6,
	     HB5,
	     {{0}},
	     0,
	     HEAD("20000006", HB6, HB5) C_2D ",\"events\":[" DOC_TIMEOUT_STAND
	                                     "]}\n",
	     1},
	    {20000007,
	     HB7,
	     HB6,
	     {{0}},
	     0,
	     HEAD("20000007", HB7, HB6) C_KC
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Dealer\",\"card\":\"KC\"},"
	     "{\"type\":\"settle\",\"round\":\"" R_TO_STAND
	     "\",\"player\":\"" P_STAND
	     "\",\"dealerHand\":{\"cards\":[\"7D\",\"KC\"],\"total\":17},"
	     "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\",\"8H\"],"
	     "\"total\":18,\"betAmount\":\"1000\",\"status\":\"Win\","
	     "\"payout\":\"2000\"}],\"betAmount\":\"1000\",\"payout\":"
	     "\"2000\"}]}\n",
	     0},
	};

	(void)state;
	run_blocks(&ru, b, sizeof b / sizeof b[0]);
}

/* ------------------------------------------------------------------ */
/* The line-size cap                                                  */

/* Through the engine's sink: a block with more deposits than the cap
 * allows still applies, and end reports the error. */
static void test_deal_cap_table(void **state)
{
	hj_rules ru = rules(100);
	hj_table *t;
	hj_action *txs = calloc(200, sizeof *txs);
	hj_cardlog cl;
	hj_card card;
	const char *line;
	size_t len;
	uint8_t h[32], p[32];
	uint64_t last = 0;

	(void)state;
	assert_int_equal(hj_table_new(&ru, &t), 0);
	assert_non_null(txs);
	for (uint32_t i = 0; i < 200; i++)
		txs[i] = evm_tx(T_DEP, F_DEP, i, NULL, 0, 1, i);
	unhex(VEC2, h, 32);
	unhex(GENESIS, p, 32);
	assert_int_equal(hj_card_from_hash(VEC2, 66, &card, NULL, 0), 0);
	hj_cardlog_init(&cl);
	cl.line.max = 4096;
	assert_int_equal(
	    hj_cardlog_begin(&cl, "evm", HJ_EVM, 5, h, p, NULL, &card), 0);
	assert_int_equal(
	    hj_table_apply_block(t, 5, &card, txs, 200, hj_cardlog_sink, &cl),
	    0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 5);
	hj_cardlog_release(&cl);
	hj_table_free(t);
	free(txs);
}

/* ------------------------------------------------------------------ */
/* The step's refusals                                                */

static void count_only(void *ctx, const hj_event *ev)
{
	(void)ev;
	(*(unsigned *)ctx)++;
}

#define LINE5                                                                  \
	HEAD("5", VEC2, "0x" GENESIS)                                          \
	DOC_CARD_AS ",\"events\":[" DOC_DEPOSIT "]}\n"
#define HEAD6 HEAD("6", VEC2, "0x" GENESIS) DOC_CARD_AS ",\"events\":["
#define LINE7 HEAD("7", VEC2, "0x" GENESIS) DOC_CARD_AS ",\"events\":[]}\n"

/*
 * What hj_deal_block refuses, each with deal.h's code and its exact
 * message: a height that does not follow, a chain name the log refuses and
 * a cap below the line's header leave the table where it was, and the
 * caller's sink sees nothing; a line that outgrows its cap comes after the
 * block was applied (the table moved on, the sink saw every event).  The
 * first block of a table may have any height, and the sink may be NULL.
 */
static void test_deal_refusals(void **state)
{
	hj_rules ru = rules(100);
	hj_table *t;
	hj_action dep[3];
	hj_cardlog cl;
	hj_chain_block b;
	struct seen seen;
	const char *line;
	size_t len;
	uint64_t last = 0;
	unsigned n = 0;
	char err[HJ_ERRLEN], want[256];

	(void)state;
	assert_int_equal(hj_table_new(&ru, &t), 0);
	for (uint32_t i = 0; i < 3; i++)
		dep[i] = evm_tx(T_DEP, F_DEP, 123, NULL, 0, 1, i);
	memset(&b, 0, sizeof b);
	b.txs = dep;
	b.ntx = 1;
	unhex(VEC2, b.hash, 32);
	unhex(GENESIS, b.parent, 32);
	hj_cardlog_init(&cl);

	b.height = 5;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b, NULL,
	                               NULL, &line, &len, err, sizeof err),
	                 0);
	assert_int_equal(len, strlen(LINE5));
	assert_memory_equal(line, LINE5, len);
	{
		char *copy = strndup(line, len);
		hj_cardlog_line l;

		assert_non_null(copy);
		read_back(copy, HJ_EVM, &l);
		assert_int_equal(l.nevents, 1);
		assert_int_equal(l.events[0].type, HJ_EV_DEPOSIT);
		assert_true(l.events[0].value == 123);
		hj_cardlog_line_free(&l);
		free(copy);
	}

	/* 7 after 5. */
	b.height = 7;
	seen = (struct seen){.cl = &cl};
	snprintf(err, sizeof err, "(unset)");
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b,
	                               count_event, &seen, &line, &len, err,
	                               sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block 7 does not follow block 5");
	assert_int_equal(seen.n, 0);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 5);

	/* A chain name the card log refuses. */
	b.height = 6;
	snprintf(err, sizeof err, "(unset)");
	assert_int_equal(hj_deal_block(t, &cl, "EVM", HJ_EVM, NULL, &b,
	                               count_event, &seen, &line, &len, err,
	                               sizeof err),
	                 -EINVAL);
	assert_string_equal(
	    err, "block 6: cannot start its log line (bad chain name or card)");
	assert_int_equal(seen.n, 0);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 5);

	/* A cap below the header. */
	cl.line.max = strlen(HEAD6) - 1;
	snprintf(err, sizeof err, "(unset)");
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b,
	                               count_event, &seen, &line, &len, err,
	                               sizeof err),
	                 -EMSGSIZE);
	assert_string_equal(
	    err, "block 6: cannot start its log line (line limit too small)");
	assert_int_equal(seen.n, 0);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 5);

	/* Room for one deposit, three in the block: applied, and refused. */
	cl.line.max = strlen(HEAD6 DOC_DEPOSIT "]}\n");
	snprintf(err, sizeof err, "(unset)");
	b.ntx = 3;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b,
	                               count_only, &n, &line, &len, err,
	                               sizeof err),
	                 -EMSGSIZE);
	snprintf(want, sizeof want, "block 6: log line longer than %zu bytes",
	         strlen(HEAD6 DOC_DEPOSIT "]}\n"));
	assert_string_equal(err, want);
	assert_int_equal(n, 3);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 6);

	/* The same cap holds the next block's line. */
	b.height = 7;
	b.txs = NULL;
	b.ntx = 0;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b,
	                               count_only, &n, &line, &len, err,
	                               sizeof err),
	                 0);
	assert_int_equal(len, strlen(LINE7));
	assert_memory_equal(line, LINE7, len);
	assert_int_equal(n, 3);
	hj_cardlog_release(&cl);
	hj_table_free(t);
}

/* ---- committed cards (docs/PROTOCOL.md section 15) ---- */

/* The protocol's vector chain, s_L = SHA-256 of its text, L = 8. */
static int vector_seed(void *ctx, const hj_commit *c, uint32_t i,
                       uint64_t height, uint8_t out[HJ_SEED_LEN], char *err,
                       size_t errlen)
{
	static const char text[] = "hashjack committed cards test vector";
	uint8_t s[HJ_SEED_LEN];

	(void)c;
	(void)height;
	*(int *)ctx += 1;
	if (i > 8) {
		hj_say(err, errlen, "no seed %u", (unsigned)i);
		return -ENOENT;
	}
	hj_sha256(text, sizeof text - 1, s);
	for (uint32_t k = 8; k > i; k--)
		hj_seed_prev(s, s);
	memcpy(out, s, sizeof s);
	return 0;
}

/* A Commit from the dealer in block 100 for blocks 101..102: block 100 is
 * void (no chain yet) with no seed, 101 gets s_1's keyed card and says
 * s_1, 103 is void again; a seed source that fails stops the block with
 * the table unchanged. */
static void test_deal_committed(void **state)
{
	static const uint8_t commit[48] = {
	    0x48, 0x4a, 0x01, 0x08, 0,    0,    0,    0,    0,    0,
	    0,    101,  0,    0,    0,    2,    0x14, 0x94, 0x1c, 0x10,
	    0x05, 0x38, 0x5b, 0x6a, 0x00, 0xa7, 0xf7, 0x29, 0xc4, 0xc0,
	    0xf6, 0x8d, 0xac, 0xfb, 0x27, 0x20, 0x5e, 0x9e, 0x68, 0xf3,
	    0xe8, 0x6c, 0xb4, 0x3f, 0xb8, 0x5f, 0xd7, 0x70};
	int calls = 0;
	hj_seed_source counted = {vector_seed, &calls};
	hj_rules r;
	hj_table *t;
	hj_cardlog cl;
	hj_chain_block b;
	hj_action a;
	hj_cardlog_line got;
	hj_cardlog_err e;
	const char *line;
	size_t len;
	char err[HJ_ERRLEN], *copy;
	uint8_t dealer[20];

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = E18;
	r.timeout_blocks = 100;
	r.cards = HJ_CARDS_COMMITTED;
	assert_int_equal(hj_table_new(&r, &t), 0);
	hj_cardlog_init(&cl);
	unhex(F_DEP, dealer, 20);
	{
		/* From the dealer: the backend compares `from` with it. */
		uint8_t h[32];
		hj_evm_tx tx = {.hash = h,
		                .from = dealer,
		                .dealer = dealer,
		                .input = commit,
		                .input_len = sizeof commit,
		                .success = 1};
		unhex(T_DEP, h, 32);
		hj_evm_action(&tx, &a);
	}
	assert_true(a.from_dealer);
	memset(&b, 0, sizeof b);
	unhex(GENESIS, b.hash, 32);
	unhex(GENESIS, b.parent, 32);
	b.height = 100;
	b.txs = &a;
	b.ntx = 1;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, &counted, &b,
	                               NULL, NULL, &line, &len, err,
	                               sizeof err),
	                 0);
	assert_int_equal(calls, 0);
	copy = strndup(line, len);
	assert_non_null(strstr(copy, ",\"void\":true,"));
	assert_null(strstr(copy, "\"seed\""));
	assert_non_null(strstr(copy, "{\"type\":\"commit\",\"tx\":\"0x"));
	assert_non_null(strstr(
	    copy,
	    ",\"start\":101,\"length\":2,\"commitment\":"
	    "\"14941c1005385b6a00a7f729c4c0f68dacfb27205e9e68f3e86cb43fb85"
	    "fd770\"}"));
	assert_int_equal(hj_cardlog_read(copy, len, HJ_EVM, &got, &e), 0);
	assert_int_equal(got.events[0].type, HJ_EV_COMMIT);
	assert_int_equal(got.events[0].start, 101);
	hj_cardlog_line_free(&got);
	free(copy);

	/* Block 101: s_1 on Bitcoin's genesis hash, the 4 of Clubs. */
	b.height = 101;
	b.ntx = 0;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, &counted, &b,
	                               NULL, NULL, &line, &len, err,
	                               sizeof err),
	                 0);
	assert_int_equal(calls, 1);
	copy = strndup(line, len);
	assert_non_null(strstr(
	    copy,
	    "\"seed\":\"dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499"
	    "b42302e9e3b501\",\"card\":{\"rank\":\"4\",\"suit\":"
	    "\"Clubs\",\"value\":4,\"code\":\"4C\",\"pos\":63,"
	    "\"rankDigit\":\"4\",\"colorDigit\":\"8\"}"));
	assert_int_equal(hj_cardlog_read(copy, len, HJ_EVM, &got, &e), 0);
	assert_true(got.has_seed);
	assert_int_equal(got.card.rank, 4);
	hj_cardlog_line_free(&got);
	free(copy);

	/* Without a source the block is refused, the table unchanged. */
	b.height = 102;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, NULL, &b, NULL,
	                               NULL, &line, &len, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block 102: cards are committed but no seed "
	                         "source was given");
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, &counted, &b,
	                               NULL, NULL, &line, &len, err,
	                               sizeof err),
	                 0);
	/* Past the chain's last seed: void, no seed asked for. */
	b.height = 103;
	assert_int_equal(hj_deal_block(t, &cl, "evm", HJ_EVM, &counted, &b,
	                               NULL, NULL, &line, &len, err,
	                               sizeof err),
	                 0);
	assert_int_equal(calls, 2);
	copy = strndup(line, len);
	assert_non_null(strstr(copy, ",\"void\":true,"));
	assert_null(strstr(copy, "\"seed\""));
	free(copy);
	hj_cardlog_release(&cl);
	hj_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deal_table_insured),
	    cmocka_unit_test(test_deal_table_timeout),
	    cmocka_unit_test(test_deal_cap_table),
	    cmocka_unit_test(test_deal_refusals),
	    cmocka_unit_test(test_deal_committed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
