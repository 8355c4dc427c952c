/*
 * The exact house edge of a rule set (docs/PROTOCOL.md section 7.1): every
 * card independent (each rank 1/13, 10-valued cards 4/13: an infinite
 * deck), the player's best strategy given what it knows when deciding
 * (its cards, the other hands of its round, the up card, whether a peek
 * found no blackjack), insurance never taken.  Computed, not simulated:
 * dealer outcome distributions by recursion, the player's values by
 * dynamic programming over hands, splits and resplits included.
 */
#ifndef HJ_EDGE_H
#define HJ_EDGE_H

#include "round.h"
#include "rules.h"

/* Chart cells: 'S' stand, 'H' hit, 'D' double, 'P' split, 'R' surrender;
 * '-' where no two-card hand has that total. */
typedef struct hj_edge {
	double ev;        /* the player's expected return per unit of the
	                     Bet's main stake, net (negative: the house wins) */
	double edge;      /* -ev: the house edge, a fraction */
	double ev_up[11]; /* the same per up card, [1] Ace .. [10] a 10 */
	int pp_on, t3_on;
	double pp_edge, t3_edge; /* side bets' house edges, fractions */
	/* The first decision on two cards, by up card [0] = 2 .. [9] = Ace. */
	char hard[22][10];  /* hard totals 5 .. 20 */
	char soft[22][10];  /* soft totals 13 .. 20 (A+2 .. A+9) */
	char pairs[11][10]; /* pairs [1] = A,A .. [10] = 10,10 */
} hj_edge;

/* Fills *out for the rules' keys (limits do not matter).  Returns 0.
 * Uses static memo tables: one computation at a time (not thread-safe). */
int hj_edge_compute(const hj_rules *ru, hj_edge *out);

/*
 * A player that follows the computed strategy, for the engine's
 * simulation (tests/test_edge_sim.c): the chart's first decision on two
 * cards (a split hand's too), then hit or stand by the same values.
 * Where the best choice depends on the round's other hands (a resplit
 * with hands to come, the original-bets rule behind a 10), it takes the
 * choice for a hand alone: a difference far below a simulation's error.
 * Returns 0 with *out, or -ENOMEM and *out NULL.
 */
typedef struct hj_edge_player hj_edge_player;
int hj_edge_player_new(const hj_rules *ru, hj_edge_player **out);
void hj_edge_player_free(hj_edge_player *p);

/* The action for round r, which waits for one: HJ_PEEK (never insured)
 * or the active hand's HJ_HIT, HJ_STAND, HJ_DOUBLE, HJ_SPLIT or
 * HJ_SURRENDER. */
int hj_edge_player_act(const hj_edge_player *p, const hj_round *r);

#endif
