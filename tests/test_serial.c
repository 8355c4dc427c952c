/* The round's serialised form: exact round trips, strict decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_util.h"
#include "say.h"

/* A round mid-play after a split, with a double-sized stake elsewhere. */
static hj_round split_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(7, 1000));
	FX0(&f, CARD(8, HJ_HEARTS));
	FX0(&f, CARD(6, HJ_SPADES));
	FX0(&f, CARD(8, HJ_DIAMONDS));
	FX(&f, R(2), tx_act(7, HJ_SPLIT, 1000));
	FX0(&f, R(3)); /* hand 0: 8 3 */
	FX0(&f, R(4)); /* hand 1: 8 4 */
	hj_round r = *fx_round(&f, 7);
	fx_free(&f);
	return r;
}

static hj_round insured_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(9, 1001));
	FX0(&f, R(9));
	FX0(&f, CARD(1, HJ_SPADES));
	FX0(&f, R(7));
	FX(&f, R(5), tx_peek(9, 1, 500));
	hj_round r = *fx_round(&f, 9);
	fx_free(&f);
	return r;
}

static void roundtrip(const hj_round *r)
{
	uint8_t a[HJ_ROUND_ENCODED_MAX], b[HJ_ROUND_ENCODED_MAX];
	hj_round back;
	char err[HJ_ERRLEN];
	size_t n = hj_round_encode(r, a);

	assert_int_equal(hj_round_decode(a, n, &back, err, sizeof err), 0);
	assert_int_equal(hj_round_encode(&back, b), n);
	assert_memory_equal(a, b, n);
	assert_true(hj_id_eq(&back.id, &r->id));
	assert_true(hj_id_eq(&back.player, &r->player));
	assert_true(back.bet == r->bet && back.insurance == r->insurance);
	assert_int_equal(back.nhands, r->nhands);
	assert_int_equal(back.window_open, r->window_open);
	assert_int_equal(back.npending, r->npending);
	for (int i = 0; i < r->nhands; i++) {
		assert_int_equal(back.hands[i].n, r->hands[i].n);
		assert_memory_equal(back.hands[i].cards, r->hands[i].cards,
		                    r->hands[i].n);
		assert_true(back.hands[i].stake == r->hands[i].stake);
		assert_int_equal(back.hands[i].flags, r->hands[i].flags);
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	hj_round a = split_round(), b = insured_round();
	assert_int_equal(a.nhands, 2);
	assert_int_equal(b.insured, 1);
	roundtrip(&a);
	roundtrip(&b);
}

static void expect_reject(const uint8_t *buf, size_t n, const char *needle)
{
	hj_round r;
	char err[HJ_ERRLEN] = "";
	assert_int_equal(hj_round_decode(buf, n, &r, err, sizeof err), -EINVAL);
	if (needle && !strstr(err, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void test_every_truncation_rejected(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	for (size_t len = 0; len < n; len++)
		expect_reject(buf, len, "truncated");
}

static void test_trailing_and_version(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX + 1];
	size_t n = hj_round_encode(&r, buf);
	buf[n] = 0;
	expect_reject(buf, n + 1, "trailing");
	buf[0] = 3;
	expect_reject(buf, n, "version");
	buf[0] = 0;
	expect_reject(buf, n, "version");
}

/* Offsets in the layout of split_round(): id and player lengths first. */
static size_t off_after_ids(const hj_round *r)
{
	return 1 + 1 + r->id.len + 1 + r->player.len;
}

/* Version 2's fields after the insurance stake (side stakes and results)
 * and after peek_due (peek_clear). */
#define V2_SIDES 34

/* The version 1 form of a round without side bets, as protocol v1's
 * hashjackd wrote it: version 2 without its new fields, a Peek's draw
 * pending for the dealer. */
static size_t to_v1(const hj_round *r, uint8_t out[HJ_ROUND_ENCODED_MAX])
{
	uint8_t v2[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(r, v2);
	size_t sides = off_after_ids(r) + 8 + 4 + 16 + 16;
	size_t clear = sides + V2_SIDES + 3, o = 0;

	assert_true(r->side_pp == 0 && r->side_t3 == 0);
	for (size_t i = 0; i < n; i++) {
		if ((i >= sides && i < sides + V2_SIDES) || i == clear)
			continue;
		out[o++] = v2[i];
	}
	out[0] = 1;
	/* pending[] follows the hand and pending counts. */
	for (size_t i = 0; i < r->npending; i++)
		if (r->pending[i] == HJ_PEEK_CARD)
			out[clear + 2 - V2_SIDES + i] = HJ_DEALER;
	return o;
}

static void test_out_of_range_fields(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX], bad[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	size_t sides = off_after_ids(&r) + 8 + 4 + 16 + 16;
	size_t flags = sides + V2_SIDES;

	memcpy(bad, buf, n);
	bad[1] = 33; /* id length */
	expect_reject(bad, n, "id length");

	memcpy(bad, buf, n);
	bad[sides + 32] = HJ_SB_COUNT; /* Perfect Pairs result */
	expect_reject(bad, n, "side bet result unknown");

	memcpy(bad, buf, n);
	bad[flags] = 2; /* insured */
	expect_reject(bad, n, "flag");

	memcpy(bad, buf, n);
	bad[flags + 1] = 7; /* phase */
	expect_reject(bad, n, "phase");

	memcpy(bad, buf, n);
	bad[flags + 3] = 2; /* peek_clear */
	expect_reject(bad, n, "flag");

	memcpy(bad, buf, n);
	bad[flags + 4] = 0; /* hands */
	expect_reject(bad, n, "hands");

	memcpy(bad, buf, n);
	bad[flags + 4] = 5;
	expect_reject(bad, n, "hands");

	/* The dealer's card: code 0 and code 56 are not cards. */
	size_t dealer = flags + 6 + r.npending + 8 + 4 + 4;
	assert_int_equal(buf[dealer], r.dealer_n);
	memcpy(bad, buf, n);
	bad[dealer + 1] = 0;
	expect_reject(bad, n, "dealer card");
	bad[dealer + 1] = 56;
	expect_reject(bad, n, "dealer card");
}

static void test_garbage_never_crashes(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX], bad[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	uint64_t x = 88172645463325252ull;
	unsigned accepted = 0;

	/* Every single-byte corruption: rejected, or a valid round that
	 * encodes back to exactly the corrupted bytes. */
	for (size_t i = 0; i < n; i++) {
		for (unsigned v = 0; v < 256; v += 17) {
			hj_round back;
			uint8_t again[HJ_ROUND_ENCODED_MAX];
			memcpy(bad, buf, n);
			bad[i] ^= (uint8_t)(v | 1);
			if (hj_round_decode(bad, n, &back, NULL, 0) == 0) {
				accepted++;
				assert_int_equal(hj_round_encode(&back, again),
				                 n);
				assert_memory_equal(again, bad, n);
			}
		}
	}
	assert_true(accepted > 0); /* amounts and heights may be anything */
	for (int k = 0; k < 20000; k++) {
		size_t len = (size_t)(x % HJ_ROUND_ENCODED_MAX);
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad[i] = (uint8_t)x;
		}
		hj_round back;
		(void)hj_round_decode(bad, len, &back, NULL, 0);
	}
}

/* A round waiting for its first decision: 9 5 against a 7. */
static hj_round waiting_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(3, 1000));
	FX0(&f, R(9));
	FX0(&f, R(7));
	FX0(&f, R(5));
	hj_round r = *fx_round(&f, 3);
	fx_free(&f);
	return r;
}

/* A round in its deal: the player's first card out. */
static hj_round dealing_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(4, 1000));
	FX0(&f, R(9));
	hj_round r = *fx_round(&f, 4);
	fx_free(&f);
	return r;
}

static void expect_state_reject(const hj_round *r, const char *needle)
{
	uint8_t buf[HJ_ROUND_ENCODED_MAX];

	expect_reject(buf, hj_round_encode(r, buf), needle);
}

/*
 * Rounds whose every field is in range but which the engine never makes
 * (issue 11: the table acted on one and wrote through hands[-1]).  Each
 * starts from a state the engine did make, which decodes, and changes one
 * thing.
 */
static void test_impossible_states_rejected(void **state)
{
	(void)state;
	hj_round w = waiting_round(), d = dealing_round(), s = split_round();
	hj_round r;

	assert_int_equal(w.phase, HJ_PH_PLAY);
	assert_int_equal(w.npending, 0);
	assert_int_equal(d.phase, HJ_PH_DEAL);
	assert_int_equal(d.npending, 2);
	roundtrip(&w);
	roundtrip(&d);

	/* Waiting for an action with every hand finished. */
	r = w;
	r.hands[0].flags |= HJ_HF_DONE;
	expect_state_reject(&r, "a window open with every hand finished");
	r = s;
	r.hands[0].flags |= HJ_HF_DONE;
	r.hands[1].flags |= HJ_HF_DONE;
	assert_int_equal(r.npending, 0);
	expect_state_reject(&r, "a window open with every hand finished");

	/* A finished hand, or a doubled one, during the deal. */
	r = d;
	r.hands[0].flags = HJ_HF_DONE;
	expect_state_reject(&r, "no deal leaves them");
	r = d;
	r.hands[0].flags = HJ_HF_DOUBLED;
	expect_state_reject(&r, "no deal leaves them");

	/* Pending draws the schedule never makes: the deal's out of order,
	 * two hands that are no split's, a hand twice, a dealer draw during
	 * play that no Peek asked for. */
	r = d;
	r.pending[0] = 0;
	r.pending[1] = HJ_DEALER;
	expect_state_reject(&r, "a deal whose draws are not the Bet's");
	r = s;
	r.npending = 2;
	r.pending[0] = 1;
	r.pending[1] = 0;
	expect_state_reject(&r, "pending draws the schedule never makes");
	r = w;
	r.npending = 2;
	r.pending[0] = 0;
	r.pending[1] = 0;
	expect_state_reject(&r, "pending draws the schedule never makes");
	r = w;
	r.npending = 1;
	r.pending[0] = HJ_DEALER;
	expect_state_reject(&r, "a dealer draw during play");

	/* Stakes and counts no action gives. */
	r = w;
	r.hands[0].stake = 3 * r.bet;
	expect_state_reject(&r, "stake");
	r = w;
	r.bet = r.hands[0].stake = HJ_MAX_BET + 1;
	expect_state_reject(&r, "above 2^120");
	r = s;
	r.decisions = r.seq = 0;
	expect_state_reject(&r, "more hands than splits");
	/* Counters near their limit, which a timeout would wrap (found by
	 * fuzz_round: two timeouts later the round no longer decoded). */
	r = s;
	r.decisions = r.seq = UINT32_MAX - 1;
	expect_state_reject(&r, "more actions than a round can have");
}

/* Rows of protocol v1's hashjackd (codec version 1) are read: a Peek's
 * pending dealer draw becomes the peek card, and a round whose v1 Peek
 * already gave the dealer its second card plays on from there. */
static void test_version_1_rows(void **state)
{
	hj_round ins = insured_round(), w = waiting_round(), back, r;
	uint8_t v1[HJ_ROUND_ENCODED_MAX];
	size_t n;
	char err[HJ_ERRLEN];
	hj_rules ru = rules_bethash();
	fx f;

	(void)state;
	assert_int_equal(ins.npending, 1);
	assert_int_equal(ins.pending[0], HJ_PEEK_CARD);
	n = to_v1(&ins, v1);
	assert_int_equal(v1[0], 1);
	if (hj_round_decode(v1, n, &back, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(back.pending[0], HJ_PEEK_CARD);
	assert_memory_equal(&back, &ins, sizeof back);
	n = to_v1(&w, v1);
	assert_int_equal(hj_round_decode(v1, n, &back, err, sizeof err), 0);
	assert_memory_equal(&back, &w, sizeof back);

	/* After a v1 Peek (an ace up, 7 drawn as its second card): the
	 * round decodes, and a Stand settles it at once on A+7. */
	r = ins;
	r.npending = 0;
	r.pending[0] = 0;
	r.dealer[1] = R(7);
	r.dealer_n = 2;
	r.window_open = r.bet_height + 6;
	n = to_v1(&r, v1);
	if (hj_round_decode(v1, n, &back, err, sizeof err))
		fail_msg("%s", err);
	fx_init(&f, &ru);
	f.height = r.window_open;
	hj_table_set_last_height(f.t, f.height - 1);
	assert_int_equal(hj_table_restore(f.t, &back), 0);
	FX(&f, R(2), tx_act(9, HJ_STAND, 0));
	assert_int_equal(fx_count(&f, HJ_EV_SETTLE), 1);
	/* 9 7 (16) against A 7 (soft 18); the insurance is lost. */
	assert_int_equal(fx_find(&f, HJ_EV_SETTLE, 0)->st.status[0],
	                 HJ_ST_LOSE);
	assert_true(fx_find(&f, HJ_EV_SETTLE, 0)->st.total_ret == 0);
	assert_true(fx_find(&f, HJ_EV_SETTLE, 0)->st.total_stake == 1501);
	fx_free(&f);
	/* A version 1 row never holds a peek card (0xfe): that is no
	 * protocol v1 draw. */
	r = ins;
	n = to_v1(&r, v1);
	v1[off_after_ids(&r) + 8 + 4 + 16 + 16 + 5] = HJ_PEEK_CARD;
	assert_int_equal(hj_round_decode(v1, n, &back, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "round: pending draw for hand 254 of 1");
}

/* Protocol v1.1 states: a peek card pending, a clear peek, side bets. */
static void test_peek_and_side_states(void **state)
{
	hj_round ins = insured_round(), w = waiting_round(), r;

	(void)state;
	roundtrip(&ins);
	/* A peek card with a decision made, or beside another draw. */
	r = ins;
	r.decisions = 1;
	r.seq = 2;
	expect_state_reject(&r, "a peek card the rules never draw");
	/* A clear peek against a 9. */
	r = w;
	r.peek_clear = 1;
	expect_state_reject(&r, "a clear peek the rules never give");
	/* Side bets: a stake above the main one, results without a stake,
	 * results the cards do not give, results before the third card. */
	r = w;
	r.side_pp = r.bet + 1;
	r.pp_result = HJ_SB_LOST;
	expect_state_reject(&r, "a side stake above the main stake");
	r = w;
	r.bet = r.hands[0].stake = (hj_amount)1 << 100;
	r.side_pp = (hj_amount)1 << 64;
	r.pp_result = HJ_SB_LOST;
	expect_state_reject(&r, "a side stake above 2^64 - 1");
	r = w;
	r.pp_result = HJ_SB_LOST;
	expect_state_reject(&r, "side bets settled without a stake");
	r = w; /* 9 5 against a 7: no pair */
	r.side_pp = 10;
	r.pp_result = HJ_SB_MIXED_PAIR;
	expect_state_reject(&r, "side bet results the cards do not give");
	r.pp_result = HJ_SB_LOST;
	roundtrip(&r);
	r.t3_result = HJ_SB_FLUSH;
	expect_state_reject(&r, "side bets settled without a stake");
	r.side_t3 = 10;
	r.t3_result = HJ_SB_STRAIGHT; /* 9 5 7: no straight */
	expect_state_reject(&r, "side bet results the cards do not give");
	r = dealing_round();
	r.side_pp = 5;
	r.pp_result = HJ_SB_LOST;
	expect_state_reject(&r, "side bets settled before the third card");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_every_truncation_rejected),
	    cmocka_unit_test(test_trailing_and_version),
	    cmocka_unit_test(test_out_of_range_fields),
	    cmocka_unit_test(test_garbage_never_crashes),
	    cmocka_unit_test(test_impossible_states_rejected),
	    cmocka_unit_test(test_version_1_rows),
	    cmocka_unit_test(test_peek_and_side_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
