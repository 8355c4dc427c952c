/*
 * What an engine event leaves in the store (daemon/core/effects.h): exact rows
 * for every kind of event, every refund recipient, every payout id; and
 * its journal line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "effects.h"
#include "reason.h"

#define TXID_HEX                                                               \
	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define ROUND_HEX                                                              \
	"f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f"

static hj_id id_of(const char *hex)
{
	hj_id id = {.len = (uint8_t)(strlen(hex) / 2)};

	for (size_t i = 0; i < id.len; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		id.b[i] = (uint8_t)v;
	}
	return id;
}

static hj_action tx_from(const char *sender_hex)
{
	hj_action a = {.kind = HJ_TX_ACTION,
	               .act = HJ_HIT,
	               .txid = id_of(TXID_HEX),
	               .value = 7};

	if (sender_hex)
		a.sender = id_of(sender_hex);
	return a;
}

static hj_round round_of(const char *player_hex)
{
	hj_round r = {.id = id_of(ROUND_HEX), .nhands = 1};

	r.player = id_of(player_hex);
	return r;
}

static void expect_no_payout(const hj_effects *e)
{
	assert_int_equal(e->npayouts, 0);
}

static void expect_payout(const hj_payout *p, const char *id, const char *kind,
                          const hj_id *round, int hand, const hj_id *txid,
                          const hj_id *recipient, hj_amount amount,
                          uint64_t height)
{
	assert_string_equal(p->id, id);
	assert_string_equal(p->kind, kind);
	assert_ptr_equal(p->round, round);
	assert_int_equal(p->hand, hand);
	assert_ptr_equal(p->txid, txid);
	assert_ptr_equal(p->recipient, recipient);
	assert_true(p->amount == amount);
	assert_int_equal(p->height, height);
}

/* ACTION, DEPOSIT and IGNORED: the transaction's row, nothing owed. */
static void test_rows_only(void **state)
{
	static const struct {
		hj_ev type;
		const char *outcome;
	} t[] = {{HJ_EV_ACTION, "accepted"},
	         {HJ_EV_DEPOSIT, "deposit"},
	         {HJ_EV_IGNORED, "ignored"}};
	hj_action a = tx_from("aa");
	hj_round r = round_of("bb");
	hj_effects e;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		hj_event ev = {.type = t[i].type,
		               .tx = &a,
		               .round = t[i].type == HJ_EV_ACTION ? &r : NULL,
		               .amount = 5};

		memset(&e, 0xa5, sizeof e);
		hj_effects_of(&ev, 100, &e);
		assert_true(e.has_tx);
		assert_ptr_equal(e.tx.tx, &a);
		assert_string_equal(e.tx.outcome, t[i].outcome);
		assert_int_equal(e.tx.reason, HJ_OK);
		assert_ptr_equal(e.tx.round, ev.round ? &r.id : NULL);
		expect_no_payout(&e);
	}
}

/* A rejection that carried value: its row and a refund to the sender. */
static void test_refund_to_sender(void **state)
{
	hj_action a = tx_from("0102030405060708090a0b0c0d0e0f1011121314");
	hj_round r = round_of("bb");
	hj_event ev = {.type = HJ_EV_REJECT,
	               .tx = &a,
	               .round = &r,
	               .reason = HJ_R_NOT_ALLOWED,
	               .amount = 123456789};
	hj_effects e;

	(void)state;
	hj_effects_of(&ev, 42, &e);
	assert_true(e.has_tx);
	assert_string_equal(e.tx.outcome, "rejected");
	assert_int_equal(e.tx.reason, HJ_R_NOT_ALLOWED);
	assert_ptr_equal(e.tx.round, &r.id);
	assert_int_equal(e.npayouts, 1);
	expect_payout(&e.payouts[0], "refund:" TXID_HEX, "refund", &r.id, -1,
	              &a.txid, &a.sender, 123456789, 42);
}

/* No sender (a signed Bitcoin action): the named round's key. */
static void test_refund_to_round(void **state)
{
	hj_action a = tx_from(NULL);
	hj_round r = round_of(ROUND_HEX);
	hj_event ev = {.type = HJ_EV_REJECT,
	               .tx = &a,
	               .round = &r,
	               .reason = HJ_R_PREMATURE,
	               .amount = 1};
	hj_effects e;

	(void)state;
	hj_effects_of(&ev, 7, &e);
	assert_int_equal(e.npayouts, 1);
	expect_payout(&e.payouts[0], "refund:" TXID_HEX, "refund", &r.id, -1,
	              &a.txid, &r.player, 1, 7);
}

/* Neither: recorded unattributed, with the transaction's id. */
static void test_refund_unattributed(void **state)
{
	hj_action a = tx_from(NULL);
	hj_event ev = {.type = HJ_EV_REJECT,
	               .tx = &a,
	               .reason = HJ_R_NO_ROUND,
	               .amount = 99};
	hj_effects e;

	(void)state;
	hj_effects_of(&ev, 8, &e);
	assert_true(e.has_tx);
	assert_null(e.tx.round);
	assert_int_equal(e.npayouts, 1);
	expect_payout(&e.payouts[0], "refund:" TXID_HEX, "refund", NULL, -1,
	              &a.txid, NULL, 99, 8);
}

/* A rejection that moved nothing owes nothing. */
static void test_reject_without_value(void **state)
{
	hj_action a = tx_from("aa");
	hj_event ev = {.type = HJ_EV_REJECT,
	               .tx = &a,
	               .reason = HJ_R_BAD_FIELD,
	               .amount = 0};
	hj_effects e;

	(void)state;
	hj_effects_of(&ev, 9, &e);
	assert_true(e.has_tx);
	assert_string_equal(e.tx.outcome, "rejected");
	expect_no_payout(&e);
}

/* A settlement: a return per hand that gets one, in hand order, and the
 * insurance's return; hands that lost are not written. */
static void test_settle(void **state)
{
	hj_round r = round_of("cc");
	hj_settlement s = {.ret = {0, 20, 0, 45}, .ins_ret = 30};
	hj_event ev = {.type = HJ_EV_SETTLE, .round = &r, .settle = &s};
	hj_effects e;

	(void)state;
	r.nhands = HJ_MAX_HANDS;
	hj_effects_of(&ev, 1000, &e);
	assert_false(e.has_tx);
	assert_int_equal(e.npayouts, 3);
	expect_payout(&e.payouts[0], "return:" ROUND_HEX ":1", "return", &r.id,
	              1, NULL, &r.player, 20, 1000);
	expect_payout(&e.payouts[1], "return:" ROUND_HEX ":3", "return", &r.id,
	              3, NULL, &r.player, 45, 1000);
	expect_payout(&e.payouts[2], "insurance:" ROUND_HEX, "insurance", &r.id,
	              -1, NULL, &r.player, 30, 1000);

	/* Every hand and the insurance: the most one event owes. */
	for (int i = 0; i < HJ_MAX_HANDS; i++)
		s.ret[i] = (hj_amount)(i + 1);
	hj_effects_of(&ev, 1001, &e);
	assert_int_equal(e.npayouts, HJ_EFFECTS_PAYOUTS_MAX);

	/* Only the hands the round has count. */
	r.nhands = 2;
	s.ins_ret = 0;
	hj_effects_of(&ev, 1002, &e);
	assert_int_equal(e.npayouts, 2);
	assert_string_equal(e.payouts[1].id, "return:" ROUND_HEX ":1");

	/* A round that lost everything owes nothing. */
	memset(&s, 0, sizeof s);
	hj_effects_of(&ev, 1003, &e);
	expect_no_payout(&e);
}

/* Side bets that won are returned to the round's player, each under its
 * own id; a lost one owes nothing. */
static void test_side_bets(void **state)
{
	hj_round r = round_of("ee");
	hj_side_settlement s = {.pp = HJ_SB_MIXED_PAIR,
	                        .t3 = HJ_SB_STRAIGHT,
	                        .pp_ret = 60,
	                        .t3_ret = 110};
	hj_event ev = {.type = HJ_EV_SIDE, .round = &r, .side = &s};
	hj_effects e;

	(void)state;
	r.side_pp = r.side_t3 = 10;
	hj_effects_of(&ev, 77, &e);
	assert_false(e.has_tx);
	assert_int_equal(e.npayouts, 2);
	expect_payout(&e.payouts[0], "sidebet:" ROUND_HEX ":perfectpairs",
	              "sidebet", &r.id, -1, NULL, &r.player, 60, 77);
	expect_payout(&e.payouts[1], "sidebet:" ROUND_HEX ":poker", "sidebet",
	              &r.id, -1, NULL, &r.player, 110, 77);
	s.pp = HJ_SB_LOST;
	s.pp_ret = 0;
	hj_effects_of(&ev, 78, &e);
	assert_int_equal(e.npayouts, 1);
	assert_string_equal(e.payouts[0].id, "sidebet:" ROUND_HEX ":poker");
	s.t3_ret = 0;
	hj_effects_of(&ev, 79, &e);
	expect_no_payout(&e);
}

/* Draws, peek cards, skipped blocks and timeouts change the round, not
 * the ledger. */
static void test_nothing(void **state)
{
	hj_round r = round_of("dd");
	hj_event evs[] = {
	    {.type = HJ_EV_DRAW, .round = &r, .hand = 0},
	    {.type = HJ_EV_PEEK, .round = &r, .hand = HJ_DEALER, .card = 40},
	    {.type = HJ_EV_SKIP, .round = &r, .hand = HJ_DEALER, .card = 4},
	    {.type = HJ_EV_TIMEOUT, .round = &r, .act = HJ_STAND, .amount = 3}};
	hj_effects e;

	(void)state;
	for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
		memset(&e, 0xa5, sizeof e);
		hj_effects_of(&evs[i], 5, &e);
		assert_false(e.has_tx);
		expect_no_payout(&e);
	}
}

/* The journal's line of each event, exactly; a rejection says what was
 * rejected, why, and what becomes of its value. */
static void expect_line(const hj_event *ev, int fam_0x, int notice,
                        const char *want)
{
	char buf[512];

	memset(buf, 'x', sizeof buf);
	assert_int_equal(hj_effects_line(ev, 812, fam_0x, buf, sizeof buf),
	                 notice);
	assert_string_equal(buf, want);
}

static void test_journal_lines(void **state)
{
	hj_action a = tx_from("0102030405060708090a0b0c0d0e0f1011121314");
	hj_action btc = tx_from(NULL);
	hj_round r = round_of("0102030405060708090a0b0c0d0e0f1011121314");
	hj_settlement st = {.total_ret = 250};
	hj_side_settlement ss = {.pp_ret = 60, .t3_ret = 110};
	char buf[8];

	(void)state;
	expect_line(&(hj_event){.type = HJ_EV_ACTION,
	                        .tx = &a,
	                        .round = &r,
	                        .act = HJ_HIT,
	                        .amount = 0},
	            1, 0,
	            "block 812: tx 0x" TXID_HEX
	            ": Hit accepted, round 0x" ROUND_HEX ", stake 0");
	expect_line(&(hj_event){.type = HJ_EV_REJECT,
	                        .tx = &a,
	                        .round = &r,
	                        .act = HJ_STAND,
	                        .reason = HJ_R_PREMATURE,
	                        .amount = 1100},
	            1, 1,
	            "block 812: tx 0x" TXID_HEX
	            ": Stand rejected (premature), refund 1100 owed");
	/* A payload too broken to name an action: no action "none". */
	expect_line(&(hj_event){.type = HJ_EV_REJECT,
	                        .tx = &a,
	                        .act = HJ_ACT_NONE,
	                        .reason = HJ_R_TRUNCATED,
	                        .amount = 1100},
	            1, 1,
	            "block 812: tx 0x" TXID_HEX
	            ": its payload could not be read as an action (truncated): "
	            "rejected, refund 1100 owed");
	/* Bitcoin family: no key to be read from it, no round. */
	expect_line(
	    &(hj_event){.type = HJ_EV_REJECT,
	                .tx = &btc,
	                .act = HJ_ACT_NONE,
	                .reason = HJ_R_UNKNOWN_ACTION,
	                .amount = 3100},
	    0, 1,
	    "block 812: tx " TXID_HEX
	    ": its payload could not be read as an action "
	    "(unknown_action): rejected, refund 3100 owed, unattributed "
	    "(no key to pay it to)");
	/* A signed action of a known round: the round's key is paid. */
	expect_line(&(hj_event){.type = HJ_EV_REJECT,
	                        .tx = &btc,
	                        .round = &r,
	                        .act = HJ_HIT,
	                        .reason = HJ_R_BAD_SIGNATURE,
	                        .amount = 546},
	            0, 1,
	            "block 812: tx " TXID_HEX
	            ": Hit rejected (bad_signature), refund 546 owed");
	expect_line(&(hj_event){.type = HJ_EV_REJECT,
	                        .tx = &a,
	                        .round = &r,
	                        .act = HJ_STAND,
	                        .reason = HJ_R_NOT_ALLOWED,
	                        .amount = 0},
	            1, 1,
	            "block 812: tx 0x" TXID_HEX
	            ": Stand rejected (not_allowed), nothing to refund (no "
	            "value)");
	a.value = 5000;
	expect_line(&(hj_event){.type = HJ_EV_DEPOSIT, .tx = &a}, 1, 1,
	            "block 812: tx 0x" TXID_HEX
	            ": deposit of 5000 (no magic), not refunded");
	expect_line(&(hj_event){.type = HJ_EV_IGNORED, .tx = &a}, 1, 0,
	            "block 812: tx 0x" TXID_HEX ": failed receipt, ignored");
	expect_line(
	    &(hj_event){.type = HJ_EV_TIMEOUT, .round = &r, .act = HJ_PEEK}, 1,
	    0, "block 812: round 0x" ROUND_HEX ": timeout, Peek applied");
	expect_line(
	    &(hj_event){.type = HJ_EV_SETTLE, .round = &r, .settle = &st}, 0, 0,
	    "block 812: round " ROUND_HEX " settled, payout 250");
	expect_line(
	    &(hj_event){.type = HJ_EV_SIDE, .round = &r, .side = &ss}, 1, 0,
	    "block 812: round 0x" ROUND_HEX ": side bets settled, payout 170");
	expect_line(&(hj_event){.type = HJ_EV_DRAW, .round = &r}, 1, -1, "");
	expect_line(&(hj_event){.type = HJ_EV_PEEK, .round = &r}, 1, -1, "");
	expect_line(&(hj_event){.type = HJ_EV_SKIP, .round = &r}, 1, -1, "");
	/* Cut to the buffer, never past it. */
	assert_int_equal(
	    hj_effects_line(&(hj_event){.type = HJ_EV_IGNORED, .tx = &a}, 812,
	                    1, buf, sizeof buf),
	    0);
	assert_string_equal(buf, "block 8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows_only),
	    cmocka_unit_test(test_refund_to_sender),
	    cmocka_unit_test(test_refund_to_round),
	    cmocka_unit_test(test_refund_unattributed),
	    cmocka_unit_test(test_reject_without_value),
	    cmocka_unit_test(test_settle),
	    cmocka_unit_test(test_side_bets),
	    cmocka_unit_test(test_nothing),
	    cmocka_unit_test(test_journal_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
