/*
 * What an engine event leaves in the store (daemon/effects.h): exact rows
 * for every kind of event, every refund recipient, every payout id.
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
