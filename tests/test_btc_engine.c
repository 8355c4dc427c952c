/*
 * The table's Bitcoin-family path: rounds named by short id, actions signed
 * by the Bet's key at the round's current seq.  The verifier here is a
 * stand-in (the real one is BIP-340, chain/btcsig): a signature is "valid"
 * when it carries the round's key and the seq it was made for, which is
 * exactly what the table must hand the verifier.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <string.h>

#include "engine_util.h"

static int calls;

static int fake_verify(void *ctx, const hj_round *r, const hj_action *a)
{
	(void)ctx;
	calls++;
	uint8_t seq[4] = {(uint8_t)(r->seq >> 24), (uint8_t)(r->seq >> 16),
	                  (uint8_t)(r->seq >> 8), (uint8_t)r->seq};
	return r->player.len == 32 && memcmp(a->sig, r->player.b, 32) == 0 &&
	       memcmp(a->sig + 32, seq, 4) == 0;
}

/* A Bet whose sender is a 32-byte key starting with `player`. */
static hj_action btc_bet(uint8_t player, hj_amount value)
{
	hj_action a = tx_bet(player, value);
	a.sender.len = 32;
	memset(a.sender.b + 1, 0x5a, 31);
	return a;
}

/* An action for round `ref`, signed by key `signer` at seq. */
static hj_action btc_act(const hj_round *r, uint8_t signer, uint32_t seq,
                         hj_act act, hj_amount value)
{
	hj_action a = tx_act(0, act, value);
	a.sender.len = 0; /* the Bitcoin family knows the player by the key */
	a.has_ref = 1;
	memcpy(a.round_ref, r->id.b, 8);
	a.sig[0] = signer;
	memset(a.sig + 1, 0x5a, 31);
	a.sig[32] = (uint8_t)(seq >> 24);
	a.sig[33] = (uint8_t)(seq >> 16);
	a.sig[34] = (uint8_t)(seq >> 8);
	a.sig[35] = (uint8_t)seq;
	return a;
}

static void deal(fx *f, uint8_t player)
{
	FX(f, R(2), btc_bet(player, 1000));
	FX0(f, R(5)); /* player 5 */
	FX0(f, R(9)); /* dealer 9 */
	FX0(f, R(6)); /* player 11: window opens at the next block */
}

static void setup(fx *f, int with_verifier)
{
	hj_rules ru = rules_bethash();
	ru.timeout_blocks = 3;
	fx_init(f, &ru);
	if (with_verifier)
		hj_table_set_verifier(f->t, fake_verify, NULL);
	calls = 0;
}

static void test_signed_action_accepted(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	deal(&f, 1);
	const hj_round *r = fx_round(&f, 1);
	assert_non_null(r);
	assert_int_equal(r->player.len, 32);
	FX(&f, R(3), btc_act(r, 1, 0, HJ_HIT, 0));
	const ev_rec *e = fx_find(&f, HJ_EV_ACTION, 0);
	assert_non_null(e);
	assert_int_equal(e->act, HJ_HIT);
	assert_int_equal(calls, 1);
	assert_int_equal(fx_round(&f, 1)->seq, 1);
	fx_free(&f);
}

static void test_wrong_signer_rejected(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	deal(&f, 1);
	const hj_round *r = fx_round(&f, 1);
	/* Signed by key 2: not the round's player. Refund is the value. */
	FX(&f, R(3), btc_act(r, 2, 0, HJ_DOUBLE, 1000));
	const ev_rec *e = fx_find(&f, HJ_EV_REJECT, 0);
	assert_non_null(e);
	assert_int_equal(e->reason, HJ_R_BAD_SIGNATURE);
	assert_true(e->amount == 1000);
	assert_true(e->has_round);
	assert_int_equal(fx_round(&f, 1)->seq, 0);
	fx_free(&f);
}

static void test_replayed_payload_rejected(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	deal(&f, 1);
	const hj_round *r = fx_round(&f, 1);
	hj_action hit0 = btc_act(r, 1, 0, HJ_HIT, 0);
	FX(&f, R(2), hit0); /* accepted: 11 + 2 */
	assert_int_equal(fx_count(&f, HJ_EV_ACTION), 1);
	FX0(&f, R(2));      /* the Hit's card: 13 + 2 */
	FX(&f, R(3), hit0); /* the same payload again */
	const ev_rec *e = fx_find(&f, HJ_EV_REJECT, 0);
	assert_non_null(e);
	assert_int_equal(e->reason, HJ_R_BAD_SIGNATURE);
	/* Made for seq 1 it is accepted. */
	FX(&f, R(3), btc_act(fx_round(&f, 1), 1, 1, HJ_HIT, 0));
	assert_int_equal(fx_count(&f, HJ_EV_ACTION), 1);
	fx_free(&f);
}

static void test_unknown_short_id(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	deal(&f, 1);
	hj_round other = *fx_round(&f, 1);
	other.id.b[0] ^= 0xff;
	/* Paying the dealer: rejected and refunded. */
	FX(&f, R(3), btc_act(&other, 1, 0, HJ_STAND, 5));
	const ev_rec *e = fx_find(&f, HJ_EV_REJECT, 0);
	assert_non_null(e);
	assert_int_equal(e->reason, HJ_R_NO_ROUND);
	assert_false(e->has_round);
	assert_true(e->amount == 5);
	assert_int_equal(calls, 0);
	/* Paying nothing: another dealer's action, no event at all. */
	FX(&f, R(3), btc_act(&other, 1, 0, HJ_STAND, 0));
	assert_int_equal(f.nev, 0);
	fx_free(&f);
}

static void test_no_verifier_rejects(void **state)
{
	(void)state;
	fx f;
	setup(&f, 0);
	deal(&f, 1);
	FX(&f, R(3), btc_act(fx_round(&f, 1), 1, 0, HJ_STAND, 0));
	const ev_rec *e = fx_find(&f, HJ_EV_REJECT, 0);
	assert_non_null(e);
	assert_int_equal(e->reason, HJ_R_BAD_SIGNATURE);
	fx_free(&f);
}

/* The signature is checked before the window: a premature action with a
 * good signature is premature, one with a bad signature is bad_signature. */
static void test_signature_before_premature(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	FX(&f, R(2), btc_bet(1, 1000));
	FX0(&f, R(5));
	const hj_round *r = fx_round(&f, 1);
	FX(&f, R(9), btc_act(r, 1, 0, HJ_HIT, 0), btc_act(r, 3, 0, HJ_HIT, 0));
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 0)->reason, HJ_R_PREMATURE);
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 1)->reason,
	                 HJ_R_BAD_SIGNATURE);
	fx_free(&f);
}

/* A timeout counts in seq: a payload signed before it no longer verifies. */
static void test_timeout_advances_seq(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	/* Split-able pair so that a timeout Stand leaves a hand to play. */
	FX(&f, R(2), btc_bet(1, 1000));
	FX0(&f, R(8));
	FX0(&f, R(6));
	FX0(&f, R(8));
	const hj_round *r = fx_round(&f, 1);
	FX(&f, R(2), btc_act(r, 1, 0, HJ_SPLIT, 1000));
	FX0(&f, R(3)); /* hand 0: 8 3 */
	FX0(&f, R(2)); /* hand 1: 8 2, window opens next block */
	hj_action stale = btc_act(fx_round(&f, 1), 1, 1, HJ_HIT, 0);
	FX0(&f, R(4));
	FX0(&f, R(4));
	FX0(&f, R(4));
	FX0(&f, R(4)); /* window + 3: Stand by timeout on hand 1 */
	assert_int_equal(fx_count(&f, HJ_EV_TIMEOUT), 1);
	assert_int_equal(fx_round(&f, 1)->seq, 2);
	FX(&f, R(4), stale);
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_BAD_SIGNATURE);
	FX(&f, R(4), btc_act(fx_round(&f, 1), 1, 2, HJ_HIT, 0));
	assert_int_equal(fx_count(&f, HJ_EV_ACTION), 1);
	fx_free(&f);
}

/* Two players: each round answers only to its own key; a second Bet with
 * the same key is a second round. */
static void test_rounds_by_key(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	FX(&f, R(2), btc_bet(1, 1000), btc_bet(2, 2000));
	FX0(&f, R(5));
	FX0(&f, R(9));
	FX(&f, R(6), btc_bet(1, 1000));
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_SECOND_ROUND);
	const hj_round *r1 = fx_round(&f, 1), *r2 = fx_round(&f, 2);
	assert_memory_not_equal(r1->id.b, r2->id.b, 8);
	FX(&f, R(3), btc_act(r2, 1, 0, HJ_STAND, 0),
	   btc_act(r2, 2, 0, HJ_STAND, 0));
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_BAD_SIGNATURE);
	const ev_rec *ok = fx_find(&f, HJ_EV_ACTION, 0);
	assert_non_null(ok);
	assert_int_equal(ok->player, 2);
	fx_free(&f);
}

/* Two open rounds whose ids begin alike (an attacker can grind a txid
 * prefix): the short id names the first in opening order, and the next
 * once the first has settled. */
static void test_shared_short_id(void **state)
{
	(void)state;
	fx f;
	setup(&f, 1);
	hj_action bets[] = {btc_bet(1, 1000), btc_bet(2, 1000)};
	for (size_t i = 0; i < 2; i++) {
		bets[i].txid.len = 32;
		memset(bets[i].txid.b, 0xab, 32);
		bets[i].txid.b[31] = (uint8_t)i;
	}
	fx_block_ids(&f, R(2), bets, 2);
	FX0(&f, R(5));
	FX0(&f, R(9));
	FX0(&f, R(6)); /* both 11 against a 9; windows open next block */
	const hj_round *r1 = fx_round(&f, 1), *r2 = fx_round(&f, 2);
	assert_memory_equal(r1->id.b, r2->id.b, 8);
	/* Key 2's action names the short id: round 1's, not its own. */
	FX(&f, R(3), btc_act(r2, 2, 0, HJ_STAND, 0),
	   btc_act(r1, 1, 0, HJ_STAND, 0));
	assert_int_equal(fx_find(&f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_BAD_SIGNATURE);
	assert_int_equal(fx_find(&f, HJ_EV_ACTION, 0)->player, 1);
	FX0(&f, R(10)); /* the dealer's 19: round 1 settles */
	assert_int_equal(fx_count(&f, HJ_EV_SETTLE), 1);
	assert_null(fx_round(&f, 1));
	/* Now the short id names round 2 (moved to the table's front). */
	FX(&f, R(3), btc_act(fx_round(&f, 2), 2, 0, HJ_STAND, 0));
	const ev_rec *ok = fx_find(&f, HJ_EV_ACTION, 0);
	assert_non_null(ok);
	assert_int_equal(ok->player, 2);
	FX0(&f, R(10));
	assert_int_equal(fx_count(&f, HJ_EV_SETTLE), 1);
	assert_null(fx_round(&f, 2));
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signed_action_accepted),
	    cmocka_unit_test(test_wrong_signer_rejected),
	    cmocka_unit_test(test_replayed_payload_rejected),
	    cmocka_unit_test(test_unknown_short_id),
	    cmocka_unit_test(test_no_verifier_rejects),
	    cmocka_unit_test(test_signature_before_premature),
	    cmocka_unit_test(test_timeout_advances_seq),
	    cmocka_unit_test(test_rounds_by_key),
	    cmocka_unit_test(test_shared_short_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
