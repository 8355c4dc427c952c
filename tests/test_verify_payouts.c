/*
 * The tally of `hashjack verify --payouts` (cli/verify_payouts.h) on
 * crafted card log lines: who is owed what and from which block, the
 * refunds' recipients (sender, the round's player, nobody), the grace
 * period, the verdicts and the report, text and JSON, with exact values.
 * The scan of a node is tested end to end (tests/e2e/test_payouts.py,
 * test_ltc_payouts.py).
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
#include <jansson.h>

#include "say.h"
#include "verify_payouts.h"

#define A1 "0x1111111111111111111111111111111111111111"
#define A2 "0x2222222222222222222222222222222222222222"
#define A3 "0x3333333333333333333333333333333333333333"
#define R1 "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define R2 "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define T1 "0x0101010101010101010101010101010101010101010101010101010101010101"
#define T2 "0x0202020202020202020202020202020202020202020202020202020202020202"

#define P1 "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
#define P2 "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
#define BR "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define BT "0303030303030303030303030303030303030303030303030303030303030303"

/* The family of the lines the test writes: its tally's (tally()). */
static hj_family lines_fam = HJ_EVM;

static hjc_vpay *tally(hj_family fam, const char *unit)
{
	hjc_vpay *v;

	lines_fam = fam;
	assert_int_equal(hjc_vpay_new(fam, unit, &v), 0);
	return v;
}

/* A line of block h with these events (JSON text, comma separated): a
 * void block of the tally's family. */
static char *line(uint64_t h, const char *events)
{
	static char buf[8192];
	const char *x = lines_fam == HJ_EVM ? "0x" : "";
	snprintf(
	    buf, sizeof buf,
	    "{\"v\":2,\"chain\":\"%s\",\"height\":%llu,\"hash\":\"%s%064d\","
	    "\"parent\":\"%s%064d\",\"void\":true,\"events\":[%s]}",
	    hj_family_name(lines_fam), (unsigned long long)h, x, 0, x, 0,
	    events);
	return buf;
}

static void feed(hjc_vpay *v, uint64_t h, const char *events)
{
	char err[HJ_ERRLEN] = "";
	const char *l = line(h, events);
	int rc = hjc_vpay_line(v, l, strlen(l), err, sizeof err);
	if (rc)
		fail_msg("block %llu: %d %s", (unsigned long long)h, rc, err);
}

static int feed_rc(hjc_vpay *v, uint64_t h, const char *events, char *err,
                   size_t errlen)
{
	const char *l = line(h, events);
	return hjc_vpay_line(v, l, strlen(l), err, errlen);
}

static const char *bet(const char *round, const char *player)
{
	static char buf[4][400];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, 400,
	         "{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"%s\","
	         "\"player\":\"%s\",\"tx\":\"%s\",\"txIndex\":0,\"stake\":"
	         "\"100\"}",
	         round, player, round);
	return b;
}

static const char *settle(const char *round, const char *player,
                          const char *payout)
{
	static char buf[4][600];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, 600,
	         "{\"type\":\"settle\",\"round\":\"%s\",\"player\":\"%s\","
	         "\"dealerHand\":{\"cards\":[\"9D\"],\"total\":9},"
	         "\"playerHands\":[],\"betAmount\":\"100\",\"payout\":\"%s\"}",
	         round, player, payout);
	return b;
}

/* The index of recipient text in v, or -1. */
static long find(const hjc_vpay *v, const char *text)
{
	for (size_t i = 0; i < hjc_vpay_count(v); i++)
		if (strcmp(hjc_vpay_recipient_text(v, i), text) == 0)
			return (long)i;
	return -1;
}

static json_t *row_of(json_t *rep, const char *who)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(rep, "recipients"), i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "recipient")),
		           who) == 0)
			return r;
	}
	fail_msg("no row for %s", who);
	return NULL;
}

static void assert_row(json_t *rep, const char *who, const char *owed,
                       const char *later, const char *received,
                       const char *diff, const char *status)
{
	json_t *r = row_of(rep, who);
	assert_string_equal(json_string_value(json_object_get(r, "owed")),
	                    owed);
	assert_string_equal(json_string_value(json_object_get(r, "later")),
	                    later);
	assert_string_equal(json_string_value(json_object_get(r, "received")),
	                    received);
	assert_string_equal(json_string_value(json_object_get(r, "difference")),
	                    diff);
	assert_string_equal(json_string_value(json_object_get(r, "status")),
	                    status);
}

/* Settlements, side bets and refunds: who is owed what. */
static void test_evm_debts(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char ev[2000];
	assert_non_null(v);

	feed(v, 10, bet(R1, A1));
	feed(v, 11, "");
	/* A rejection naming R1 from A2: refunded to its sender. */
	snprintf(ev, sizeof ev,
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":0,\"from\":"
	         "\"%s\",\"action\":\"Hit\",\"round\":\"%s\",\"reason\":"
	         "\"no_round\",\"refund\":\"7\"},"
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":1,\"from\":"
	         "\"%s\",\"reason\":\"bad_version\",\"refund\":\"0\"},"
	         "{\"type\":\"deposit\",\"tx\":\"%s\",\"txIndex\":2,\"from\":"
	         "\"%s\",\"value\":\"123\"}",
	         T1, A2, R1, T2, A3, T2, A3);
	feed(v, 12, ev);
	snprintf(ev, sizeof ev,
	         "{\"type\":\"sidebets\",\"round\":\"%s\",\"player\":\"%s\","
	         "\"betAmount\":\"20\",\"payout\":\"260\"},%s",
	         R1, A1, settle(R1, A1, "200"));
	feed(v, 13, ev);
	/* A lost round owes nothing. */
	feed(v, 14, bet(R2, A3));
	feed(v, 15, settle(R2, A3, "0"));

	assert_int_equal(hjc_vpay_first(v), 10);
	assert_int_equal(hjc_vpay_last(v), 15);
	assert_int_equal(hjc_vpay_count(v), 2); /* A2, A1; A3 is owed none */
	assert_string_equal(hjc_vpay_recipient_text(v, 0), A2);
	assert_string_equal(hjc_vpay_recipient_text(v, 1), A1);
	assert_int_equal(hjc_vpay_recipient(v, 1)->len, 20);
	assert_int_equal(hjc_vpay_recipient(v, 1)->b[19], 0x11);

	assert_int_equal(hjc_vpay_received(v, (size_t)find(v, A1), 400), 0);
	assert_int_equal(hjc_vpay_received(v, (size_t)find(v, A1), 60), 0);
	hjc_vpay_view w = {.tip = 100, .confirmations = 12, .grace = 10};
	size_t nshort = 99;
	json_t *rep = hjc_vpay_report(v, &w, &nshort);
	assert_non_null(rep);
	assert_int_equal(nshort, 1);
	assert_row(rep, A1, "460", "0", "460", "0", "even");
	assert_row(rep, A2, "7", "0", "0", "-7", "short");
	assert_int_equal(
	    json_integer_value(json_object_get(row_of(rep, A1), "payments")),
	    2);
	/* The short first. */
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(rep, "recipients"), 0),
	        "recipient")),
	    A2);
	assert_int_equal(json_integer_value(json_object_get(rep, "final")), 89);
	assert_int_equal(json_integer_value(json_object_get(rep, "due")), 79);
	assert_string_equal(json_string_value(json_object_get(rep, "owed")),
	                    "467");
	assert_string_equal(json_string_value(json_object_get(rep, "missing")),
	                    "7");
	assert_int_equal(json_array_size(json_object_get(rep, "unattributed")),
	                 0);
	assert_true(json_is_null(json_object_get(rep, "scanned")));
	json_decref(rep);
	hjc_vpay_free(v);
}

/* The Bitcoin family: a refund to the Bet's key, to the round's player,
 * or to nobody. */
static void test_btc_refunds(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_BITCOIN, "litoshi");
	char ev[2000];
	assert_non_null(v);

	feed(v, 5, bet(BR, P1));
	snprintf(ev, sizeof ev,
	         /* a premature Hit in P1's round: to P1 */
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":1,"
	         "\"action\":\"Hit\",\"round\":\"%s\",\"reason\":"
	         "\"premature\",\"refund\":\"3000\"},"
	         /* a Bet below min_bet: to the key it declared */
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":2,\"from\":"
	         "\"%s\",\"action\":\"Bet\",\"reason\":\"bet_out_of_limits\","
	         "\"refund\":\"9999\"},"
	         /* too long, naming no round: nobody */
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":3,\"reason\":"
	         "\"too_long\",\"refund\":\"9000\"}",
	         BT, BR, BT, P2, BT);
	feed(v, 6, ev);
	feed(v, 7, settle(BR, P1, "200000"));
	/* A rejection naming a round that is no longer open (or was never
	 * seen): nobody known. */
	snprintf(ev, sizeof ev,
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":1,"
	         "\"action\":\"Stand\",\"round\":\"%s\",\"reason\":"
	         "\"premature\",\"refund\":\"5\"}",
	         BT, BR);
	feed(v, 8, ev);

	assert_int_equal(hjc_vpay_count(v), 2);
	assert_int_equal(hjc_vpay_recipient(v, 0)->len, 32);
	hjc_vpay_set_address(v, (size_t)find(v, P1), "rltc1pexample");
	assert_int_equal(hjc_vpay_received(v, (size_t)find(v, P1), 203000), 0);
	assert_int_equal(hjc_vpay_received(v, (size_t)find(v, P2), 10000), 0);
	hjc_vpay_view w = {.tip = 20,
	                   .confirmations = 1,
	                   .grace = 0,
	                   .scanned = 1,
	                   .scan_from = 5,
	                   .scan_to = 20};
	size_t nshort;
	json_t *rep = hjc_vpay_report(v, &w, &nshort);
	assert_non_null(rep);
	assert_int_equal(nshort, 0);
	assert_row(rep, P1, "203000", "0", "203000", "0", "even");
	assert_row(rep, P2, "9999", "0", "10000", "1", "over");
	assert_string_equal(
	    json_string_value(json_object_get(row_of(rep, P1), "address")),
	    "rltc1pexample");
	/* Without one the recipient is its own address. */
	assert_string_equal(
	    json_string_value(json_object_get(row_of(rep, P2), "address")), P2);
	json_t *un = json_object_get(rep, "unattributed");
	assert_int_equal(json_array_size(un), 2);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(un, 0), "refund")),
	    "9000");
	assert_null(json_object_get(json_array_get(un, 0), "round"));
	assert_int_equal(json_integer_value(
	                     json_object_get(json_array_get(un, 1), "height")),
	                 8);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(un, 1), "round")),
	    BR);
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(rep, "scanned"), "to")),
	                 20);
	json_decref(rep);
	hjc_vpay_free(v);
}

/* A debt counts once its block has been final for grace blocks; what is
 * received beyond what is due goes to the debts still in their grace. */
static void test_grace(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char ev[1200];
	size_t nshort;
	json_t *rep;

	feed(v, 10, bet(R1, A1));
	feed(v, 11, settle(R1, A1, "100"));
	for (uint64_t h = 12; h < 20; h++)
		feed(v, h, "");
	snprintf(ev, sizeof ev,
	         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":0,\"from\":"
	         "\"%s\",\"reason\":\"bad_version\",\"refund\":\"50\"}",
	         T1, A1);
	feed(v, 20, ev);
	assert_int_equal(hjc_vpay_received(v, 0, 120), 0);

	/* tip 30, 2 confirmations: final 29; grace 9: due up to 20. */
	hjc_vpay_view w = {.tip = 30, .confirmations = 2, .grace = 9};
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_int_equal(json_integer_value(json_object_get(rep, "due")), 20);
	assert_row(rep, A1, "150", "0", "120", "-30", "short");
	assert_int_equal(nshort, 1);
	json_decref(rep);
	/* grace 10: block 20's refund is not due yet. */
	w.grace = 10;
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_int_equal(json_integer_value(json_object_get(rep, "due")), 19);
	assert_row(rep, A1, "100", "50", "120", "0", "even");
	assert_int_equal(nshort, 0);
	json_decref(rep);
	/* More than both: over by what is beyond both. */
	assert_int_equal(hjc_vpay_received(v, 0, 40), 0);
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_row(rep, A1, "100", "50", "160", "10", "over");
	assert_string_equal(json_string_value(json_object_get(rep, "excess")),
	                    "10");
	json_decref(rep);
	/* A grace past the final block, or no final block: nothing due. */
	w.grace = 30;
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_true(json_is_null(json_object_get(rep, "due")));
	assert_row(rep, A1, "0", "150", "160", "10", "over");
	json_decref(rep);
	w = (hjc_vpay_view){.tip = 3, .confirmations = 6, .grace = 0};
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_true(json_is_null(json_object_get(rep, "final")));
	assert_true(json_is_null(json_object_get(rep, "due")));
	json_decref(rep);
	hjc_vpay_free(v);
}

/* Many rounds open and settled: each rejection naming an open round is
 * its player's (the table of open rounds, growth and removal). */
static void test_many_rounds(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char ev[1000], round[67], player[43];
	const uint64_t n = 3000;
	uint64_t h = 1;

	for (uint64_t i = 0; i < n; i++, h++) {
		snprintf(round, sizeof round, "0x%064llx",
		         (unsigned long long)(i * 7919 + 1));
		snprintf(player, sizeof player, "0x%040llx",
		         (unsigned long long)(i % 50 + 1));
		feed(v, h, bet(round, player));
	}
	/* Every other round settles, paying nothing. */
	for (uint64_t i = 0; i < n; i += 2, h++) {
		snprintf(round, sizeof round, "0x%064llx",
		         (unsigned long long)(i * 7919 + 1));
		snprintf(player, sizeof player, "0x%040llx",
		         (unsigned long long)(i % 50 + 1));
		feed(v, h, settle(round, player, "0"));
	}
	/* A rejection without sender naming each round: 1 to the player of
	 * each open one, unattributed for each settled one.  (EVM logs
	 * always name the sender; the table does not depend on it.) */
	for (uint64_t i = 0; i < n; i++, h++) {
		snprintf(round, sizeof round, "0x%064llx",
		         (unsigned long long)(i * 7919 + 1));
		snprintf(ev, sizeof ev,
		         "{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":0,"
		         "\"action\":\"Hit\",\"round\":\"%s\",\"reason\":"
		         "\"premature\",\"refund\":\"1\"}",
		         T1, round);
		feed(v, h, ev);
	}
	hjc_vpay_view w = {.tip = h + 100, .confirmations = 1, .grace = 0};
	size_t nshort;
	json_t *rep = hjc_vpay_report(v, &w, &nshort);
	assert_non_null(rep);
	/* Odd rounds: players (i % 50) + 1 for odd i, 25 of them, 60 each. */
	assert_int_equal(hjc_vpay_count(v), 25);
	assert_int_equal(nshort, 25);
	assert_row(rep, "0x0000000000000000000000000000000000000002", "60", "0",
	           "0", "-60", "short");
	assert_int_equal(json_array_size(json_object_get(rep, "unattributed")),
	                 n / 2);
	json_decref(rep);
	hjc_vpay_free(v);
}

static void test_refused(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char err[HJ_ERRLEN], ev[600];

	assert_int_equal(hjc_vpay_line(v, "{nope", 5, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "not a card log line (no height or events)");
	/* Refused elsewhere than its height or events: the reader's words
	 * (daemon/core/cardlog.h). */
	assert_int_equal(hjc_vpay_line(v, "{\"v\":3}", 7, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "not a card log line: \"v\": not 1 to 2");
	feed(v, 4, "");
	/* Heights follow each other. */
	assert_int_equal(feed_rc(v, 6, bet(R1, A1), err, sizeof err), -EINVAL);
	assert_string_equal(err, "block 6 after block 4");
	/* An event without the keys it has. */
	assert_int_equal(feed_rc(v, 5,
	                         "{\"type\":\"settle\",\"round\":\"" R1 "\"}",
	                         err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block 5: an event without the keys "
	                         "docs/LOG.md gives it");
	/* An address without 0x on EVM. */
	assert_int_equal(feed_rc(v, 5,
	                         "{\"type\":\"sidebets\",\"round\":\"" R1
	                         "\",\"player\":\"1111\",\"betAmount\":"
	                         "\"5\",\"payout\":\"5\"}",
	                         err, sizeof err),
	                 -EINVAL);
	/* Amounts in the canonical form only. */
	assert_int_equal(feed_rc(v, 5, settle(R1, A1, "012"), err, sizeof err),
	                 -EINVAL);
	/* More than 2^128 - 1 to one recipient. */
	feed(v, 5, settle(R1, A1, "340282366920938463463374607431768211455"));
	snprintf(ev, sizeof ev, "%s", settle(R1, A1, "1"));
	assert_int_equal(feed_rc(v, 6, ev, err, sizeof err), -ERANGE);
	assert_string_equal(err,
	                    "block 6: a recipient owed more than 2^128 - 1");
	assert_int_equal(
	    hjc_vpay_received(v, 0, (hj_amount) ~(unsigned __int128)0), 0);
	assert_int_equal(hjc_vpay_received(v, 0, 1), -ERANGE);
	hjc_vpay_free(v);
}

/* The text report, exactly. */
static void test_text(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char ev[1000], *buf = NULL;
	size_t len = 0, nshort;
	FILE *f;

	feed(v, 3, bet(R1, A1));
	snprintf(ev, sizeof ev,
	         "%s,{\"type\":\"reject\",\"tx\":\"%s\",\"txIndex\":1,"
	         "\"from\":\"%s\",\"reason\":\"bad_version\",\"refund\":"
	         "\"25\"}",
	         settle(R1, A1, "2000"), T1, A2);
	feed(v, 4, ev);
	assert_int_equal(hjc_vpay_received(v, 0, 1500), 0);
	hjc_vpay_view w = {.tip = 10,
	                   .confirmations = 2,
	                   .grace = 1,
	                   .scanned = 1,
	                   .scan_from = 3,
	                   .scan_to = 9};
	json_t *rep = hjc_vpay_report(v, &w, &nshort);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	hjc_vpay_print(rep, f);
	fclose(f);
	assert_string_equal(
	    buf,
	    "payouts (amounts in wei): log blocks 3 to 4; final blocks up to "
	    "9 (tip 10, 2 confirmations); debts due up to block 8 (grace 1 "
	    "blocks); payments counted in blocks 3 to 9\n"
	    "         recipient                                  owed later "
	    "received difference\n"
	    "  short  0x1111111111111111111111111111111111111111 2000     0 "
	    "    1500       -500\n"
	    "  short  0x2222222222222222222222222222222222222222   25     0 "
	    "       0        -25\n"
	    "2 recipients: 2 short (525 missing), 0 even, 0 over (0 beyond "
	    "what the log owes); owed 2025, received 1500, 0 owed later\n");
	free(buf);
	json_decref(rep);
	hjc_vpay_free(v);
}

/* [chain] confirmations = finalized: the final blocks are the node's
 * finalized block and those below it, whatever the depth (the tip's
 * confirmations are not looked at); the report says the word. */
static void test_finality(void **state)
{
	(void)state;
	hjc_vpay *v = tally(HJ_EVM, "wei");
	char *buf = NULL;
	size_t len = 0, nshort;
	FILE *f;

	feed(v, 3, bet(R1, A1));
	feed(v, 4, settle(R1, A1, "2000"));
	/* Finalized block 5 at a tip of 40 (2 confirmations would say 39):
	 * grace 1, due up to 4. */
	hjc_vpay_view w = {.tip = 40,
	                   .confirmations = 2,
	                   .finality = HJ_FINALITY_FINALIZED,
	                   .final = 5,
	                   .grace = 1,
	                   .scanned = 1,
	                   .scan_from = 3,
	                   .scan_to = 5};
	json_t *rep = hjc_vpay_report(v, &w, &nshort);
	assert_non_null(rep);
	assert_string_equal(
	    json_string_value(json_object_get(rep, "confirmations")),
	    "finalized");
	assert_int_equal(json_integer_value(json_object_get(rep, "final")), 5);
	assert_int_equal(json_integer_value(json_object_get(rep, "due")), 4);
	assert_row(rep, A1, "2000", "0", "0", "-2000", "short");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	hjc_vpay_print(rep, f);
	fclose(f);
	assert_non_null(strstr(buf, "payouts (amounts in wei): log blocks 3 to "
	                            "4; final blocks up to 5 (tip 40, the "
	                            "node's finalized block); debts due up to "
	                            "block 4 (grace 1 blocks); payments "
	                            "counted in blocks 3 to 5\n"));
	free(buf);
	json_decref(rep);
	/* Safe block 4, grace 1: the settlement of block 4 is not due. */
	w.finality = HJ_FINALITY_SAFE;
	w.final = 4;
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_string_equal(
	    json_string_value(json_object_get(rep, "confirmations")), "safe");
	assert_int_equal(json_integer_value(json_object_get(rep, "due")), 3);
	assert_row(rep, A1, "0", "2000", "0", "0", "even");
	assert_int_equal(nshort, 0);
	json_decref(rep);
	/* Block 0 finalized (a young chain): final 0, nothing due. */
	w.final = 0;
	rep = hjc_vpay_report(v, &w, &nshort);
	assert_int_equal(json_integer_value(json_object_get(rep, "final")), 0);
	assert_true(json_is_null(json_object_get(rep, "due")));
	json_decref(rep);
	hjc_vpay_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_debts),
	    cmocka_unit_test(test_btc_refunds),
	    cmocka_unit_test(test_grace),
	    cmocka_unit_test(test_many_rounds),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_finality),
	    cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
