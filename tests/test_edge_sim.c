/*
 * The exact edge against the engine: under each preset, rounds played
 * through hj_table (the dealer's own engine) by the computed strategy
 * (hj_edge_player: the printed chart's first decisions, then hit or stand
 * by the same values), on random cards.  The mean result per unit of the
 * Bet must agree with hj_edge_compute within four standard errors of the
 * simulation.  Bets of 1000 make every payout exact (6:5, 3:2 and half a
 * stake are whole).
 *
 * HJ_EDGE_SIM_ROUNDS (default 400000 per preset) and HJ_EDGE_SIM_SEED
 * override the defaults; a longer run narrows the bound.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "edge.h"
#include "table.h"

#define BET 1000

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

struct sums {
	double n, sum, sum2; /* per round: net result / BET */
	hj_amount staked;
};

static void on_event(void *ctx, const hj_event *e)
{
	struct sums *s = ctx;

	if (e->type == HJ_EV_SETTLE) {
		double net = ((double)e->settle->total_ret -
		              (double)e->settle->total_stake) /
		             BET;
		s->n++;
		s->sum += net;
		s->sum2 += net * net;
	}
}

static void simulate(const char *preset, unsigned long rounds, uint64_t seed)
{
	hj_rules ru;
	hj_edge e;
	hj_edge_player *pl;
	hj_table *t;
	struct sums s = {0};
	uint64_t h = 1;

	assert_int_equal(hj_rules_preset(preset, &ru), 0);
	ru.min_bet = 1;
	ru.max_bet = BET;
	ru.timeout_blocks = 100;
	assert_int_equal(hj_edge_compute(&ru, &e), 0);
	assert_int_equal(hj_edge_player_new(&ru, &pl), 0);
	assert_int_equal(hj_table_new(&ru, &t), 0);
	rng = seed;
	while (s.n < rounds) {
		hj_card c = {0};
		hj_action a;
		size_t n = 0;
		uint64_t x = rnd();
		const hj_round *r =
		    hj_table_count(t) ? hj_table_round(t, 0) : NULL;

		c.rank = (uint8_t)(1 + x % 13);
		c.suit = (uint8_t)((x >> 8) & 3);
		memset(&a, 0, sizeof a);
		a.kind = HJ_TX_ACTION;
		a.sender.len = 20;
		a.sender.b[0] = 1;
		a.txid.len = 32;
		memcpy(a.txid.b, &h, sizeof h);
		if (r == NULL) {
			a.act = HJ_BET;
			a.value = BET;
			n = 1;
		} else if (hj_round_waiting(r) && h >= r->window_open) {
			int hi = hj_round_active_hand(r);
			a.act = (hj_act)hj_edge_player_act(pl, r);
			if (a.act == HJ_DOUBLE || a.act == HJ_SPLIT)
				a.value = r->hands[hi].stake;
			n = 1;
		}
		assert_int_equal(
		    hj_table_apply_block(t, h, &c, &a, n, on_event, &s), 0);
		h++;
	}
	hj_table_free(t);
	hj_edge_player_free(pl);

	double mean = s.sum / s.n;
	double sd = sqrt(s.sum2 / s.n - mean * mean);
	double se = sd / sqrt(s.n);
	printf("edge sim %s: %.0f rounds, simulated edge %.4f %% +- %.4f "
	       "(1 standard error), computed %.6f %%, difference %.2f "
	       "standard errors\n",
	       preset, s.n, -100 * mean, 100 * se, 100 * e.edge,
	       (-mean - e.edge) / se);
	assert_true(fabs(-mean - e.edge) < 4 * se);
}

static unsigned long rounds(void)
{
	const char *n = getenv("HJ_EDGE_SIM_ROUNDS");
	return n ? strtoul(n, NULL, 10) : 400000ul;
}

static uint64_t seed(void)
{
	const char *s = getenv("HJ_EDGE_SIM_SEED");
	return s ? strtoull(s, NULL, 10) : 20261126ull;
}

static void test_bethash(void **state)
{
	(void)state;
	simulate("bethash", rounds(), seed());
}

static void test_annakai(void **state)
{
	(void)state;
	simulate("annakai", rounds(), seed());
}

static void test_cryptogames(void **state)
{
	(void)state;
	simulate("cryptogames", rounds(), seed());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bethash),
	    cmocka_unit_test(test_annakai),
	    cmocka_unit_test(test_cryptogames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
