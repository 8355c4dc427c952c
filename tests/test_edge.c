/*
 * The exact house edge (game/edge.h), checked against what can be worked
 * out without the player's strategy:
 *
 * - the side bets' edges, from the probabilities of each result on
 *   independent cards, by hand;
 * - the price of a blackjack's payout: naturals settle before any
 *   decision, so 3:2 against 6:5 moves the edge by exactly 0.3 times the
 *   chance of a natural the dealer does not push;
 * - bethash's edge under protocol v1.1, 2.436 % (issue 12 gives it);
 * - the direction of rule changes whose sign is certain (a rule that only
 *   adds a choice cannot raise the edge).
 *
 * The engine's own simulation of the printed strategy is in
 * tests/test_edge_sim.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "edge.h"

static hj_rules preset(const char *name)
{
	hj_rules r;

	assert_int_equal(hj_rules_preset(name, &r), 0);
	return r;
}

static double edge_of(const hj_rules *r)
{
	hj_edge e;

	assert_int_equal(hj_edge_compute(r, &e), 0);
	assert_true(fabs(e.edge + e.ev) < 1e-15);
	return e.edge;
}

static void set(hj_rules *r, const char *key, const char *value)
{
	assert_int_equal(hj_rules_set_key(r, key, value, NULL, 0), 0);
}

static void test_perfect_pairs(void **state)
{
	hj_rules r = preset("bethash");
	hj_edge e;

	(void)state;
	set(&r, "perfect_pairs", "25,12,5");
	hj_edge_compute(&r, &e);
	/* Same rank 1/13; then the same suit 1/4 (26), the same colour
	 * 1/4 (13), the other colour 1/2 (6): 1 - (26/4 + 13/4 + 6/2)/13. */
	assert_true(e.pp_on);
	assert_true(fabs(e.pp_edge - (1 - (6.5 + 3.25 + 3.0) / 13)) < 1e-12);
	assert_true(fabs(100 * e.pp_edge - 1.923077) < 5e-7);
	set(&r, "perfect_pairs", "25,12,6");
	hj_edge_compute(&r, &e);
	assert_true(fabs(100 * e.pp_edge + 1.923077) < 5e-7);
	set(&r, "perfect_pairs", "off");
	hj_edge_compute(&r, &e);
	assert_false(e.pp_on);
}

static void test_twenty_one_plus_three(void **state)
{
	hj_rules r = preset("bethash");
	hj_edge e;
	/* Three independent cards: suited trips 1/52^2; three of a kind
	 * 1/169 in all; a flush (one suit) 1/16; a straight: 12 runs of
	 * three ranks (A-2-3 .. Q-K-A) in 3! orders, 72/13^3. */
	double st = 1.0 / 2704, tk = 1.0 / 169 - st;
	double straight = 72.0 / 2197, sf = straight / 16;
	double s = straight - sf, f = 1.0 / 16 - st - sf;
	double ev = st * 101 + sf * 41 + tk * 31 + s * 11 + f * 6 - 1;

	(void)state;
	set(&r, "twenty_one_plus_three", "100,40,30,10,5");
	hj_edge_compute(&r, &e);
	assert_true(e.t3_on);
	assert_true(fabs(e.t3_edge + ev) < 1e-12);
}

/* 3:2 against 6:5: 0.3 per natural the dealer does not push.  A natural
 * is 8/169; it pushes a dealer blackjack (4/13 behind an Ace, 1/13 behind
 * a 10-valued card) under every peek rule.  Without split 21s paid as
 * blackjacks, nothing else depends on the payout. */
static void test_blackjack_payout_shift(void **state)
{
	static const char *const names[] = {"bethash", "annakai",
	                                    "cryptogames"};
	double paid =
	    (1.0 / 13) * (9.0 / 13) + (4.0 / 13) * (12.0 / 13) + 8.0 / 13;

	(void)state;
	for (int i = 0; i < 3; i++) {
		hj_rules a = preset(names[i]), b;
		/* (A split 21 paid as a blackjack would move with it.) */
		set(&a, "split_21_is_blackjack", "no");
		b = a;
		set(&a, "blackjack_pays", "6:5");
		set(&b, "blackjack_pays", "3:2");
		assert_true(fabs(edge_of(&a) - edge_of(&b) -
		                 0.3 * (8.0 / 169) * paid) < 1e-12);
	}
}

static void test_bethash(void **state)
{
	hj_rules r = preset("bethash");
	hj_edge e;

	(void)state;
	hj_edge_compute(&r, &e);
	/* Issue 12: 2.436 % once the peek card is set aside. */
	assert_true(fabs(100 * e.edge - 2.436) < 0.0005);
	/* The chart's cells are actions. */
	for (int t = 5; t <= 19; t++)
		for (int c = 0; c < 10; c++)
			assert_non_null(strchr("SHDPR-", e.hard[t][c]));
	/* Doubling only on hard 9 to 11 (nowhere on soft hands), never
	 * splitting aces, standing on hard 17 but against an Ace (where
	 * late surrender pays), hitting 16 against a 7. */
	for (int c = 0; c < 10; c++) {
		assert_true(e.hard[8][c] != 'D' && e.hard[12][c] != 'D');
		for (int t = 13; t <= 20; t++)
			assert_true(e.soft[t][c] != 'D');
		assert_true(e.pairs[1][c] != 'P');
		assert_int_equal(e.hard[19][c], 'S');
	}
	assert_int_equal(e.hard[11][4], 'D'); /* 11 against a 6 */
	assert_int_equal(e.hard[16][5], 'H'); /* 16 against a 7 */
	assert_int_equal(e.hard[12][4], 'S'); /* 12 against a 6 */
}

/* A rule that only adds a choice, or pays more, cannot raise the edge;
 * one that takes a choice away cannot lower it. */
static void test_rule_directions(void **state)
{
	static const struct {
		const char *key, *worse, *better;
	} rules[] = {
	    {"dealer_soft17", "hit", "stand"},
	    {"double_on", "10-11", "9-11"},
	    {"double_on", "9-11", "any"},
	    {"double_after_split", "no", "yes"},
	    {"max_hands", "1", "2"},
	    {"max_hands", "2", "4"},
	    {"split_aces", "no", "yes"},
	    {"surrender", "none", "late"},
	    {"surrender", "late", "early"},
	    {"split_21_is_blackjack", "no", "yes"},
	};
	static const char *const names[] = {"bethash", "annakai",
	                                    "cryptogames"};

	(void)state;
	for (int p = 0; p < 3; p++) {
		for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
			hj_rules w = preset(names[p]), b = w;
			set(&w, rules[i].key, rules[i].worse);
			set(&b, rules[i].key, rules[i].better);
			if (!(edge_of(&b) <= edge_of(&w) + 1e-12))
				fail_msg("%s: %s = %s gives %.6f %%, %s gives "
				         "%.6f %%",
				         names[p], rules[i].key,
				         rules[i].better, 100 * edge_of(&b),
				         rules[i].worse, 100 * edge_of(&w));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_perfect_pairs),
	    cmocka_unit_test(test_twenty_one_plus_three),
	    cmocka_unit_test(test_blackjack_payout_shift),
	    cmocka_unit_test(test_bethash),
	    cmocka_unit_test(test_rule_directions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
