/*
 * The exact house edge (edge.h).
 *
 * Cards are independent: each of the 13 ranks has probability 1/13 at
 * every draw.  For the dealer's up card u the dealer has a blackjack with
 * probability q (the second card an Ace behind a 10, a 10-valued card
 * behind an Ace).  Four cases, by the rules' peek:
 *
 *   PEEKED     Ace up under ace or ace_ten, 10 up under ace_ten: the peek
 *              settles a blackjack before any decision (a natural pushes,
 *              anything else loses 1); otherwise the player plays against
 *              the dealer's second card conditioned on no blackjack.
 *   LATE_ORIG  10 up under ace: a blackjack is found in dealer play and
 *              takes the original stake only, unless every hand busted
 *              (the dealer draws nothing, every stake is lost).  This
 *              couples a round's hands: the value of the rest of a round
 *              depends on whether a played hand ended live and on the
 *              busted stakes so far.
 *   LATE_ALL   Ace or 10 up under none: a late blackjack takes every stake,
 *              hand by hand.
 *   NONE       up card 2..9: no dealer blackjack.
 *
 * In every case the dealer's play without a blackjack uses the second
 * card's distribution conditioned on not making one, which is what the
 * skipped blocks after a clear peek give, and what "no blackjack" means
 * in the late cases.
 *
 * A round is a stack of hands: the active one and, after splits, the
 * unplayed ones below it (each holding its two cards: the split rank and
 * the card dealt to it).  The value of the rest of the round, W, depends
 * on that stack, the number of hands (for resplits) and, only under
 * LATE_ORIG, whether an earlier hand ended live and the stakes busted so
 * far.  Each hand is played to maximise its own value plus W of what
 * follows, which is the best strategy given everything the player knows
 * when deciding.
 */
#include "edge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "card.h"
#include "round.h"

enum regime { NONE, PEEKED, LATE_ORIG, LATE_ALL };

/* The hands not yet played: at most every hand of a round. */
#define MAX_STACK  HJ_MAX_HANDS
#define MAX_BUSTED (2 * HJ_MAX_HANDS)
/* A stacked hand is its second card's class (the first is the split
 * rank): values 1 .. 9, then a 10-valued card, and under split_by_value =
 * no a 10-valued card of another rank than a 10-valued split rank. */
#define NCLASS 12
/* Stacks of length 0 .. MAX_STACK, as base-NCLASS numbers. */
#define NSTACKS (1 + 12 + 144 + 1728 + 20736)
#define NW      ((HJ_MAX_HANDS + 1) * 2 * (MAX_BUSTED + 1) * NSTACKS)

struct calc {
	const hj_rules *ru;
	int upv; /* up card's value, 1 (Ace) .. 10 */
	enum regime reg;
	double q;         /* P(dealer blackjack) */
	double qh;        /* q as the hands see it: 0 under PEEKED */
	double bj;        /* what a blackjack pays, per unit */
	double dealer[6]; /* without a blackjack: 17, 18, 19, 20, 21, bust */
	double stand[32]; /* a standing hand of total t, per unit */
	int c;            /* the split rank during a split */
	/* W's memo, valid where wgen equals gen (one generation per up card
	 * and split rank). */
	unsigned gen;
	double w[NW];
	unsigned wgen[NW];
	/* Without LATE_ORIG a hand's stand, hit and double add the same
	 * continuation to every outcome: their best, without it, per split
	 * flag and ranks, valid where nsgen equals upgen. */
	unsigned upgen;
	double ns[2][14][14];
	unsigned nsgen[2][14][14];
};

static double p_rank(int r)
{
	(void)r;
	return 1.0 / 13;
}

static int value_of(int rank)
{
	return rank >= 10 ? 10 : rank;
}

/* ---- the dealer ---- */

static void dealer_from(int hard, int ace, int h17, double w, double out[6],
                        double memo[32][2][6], unsigned char set[32][2])
{
	if (!set[hard][ace]) {
		double d[6] = {0};
		int soft = ace && hard + 10 <= 21;
		int best = hard + (soft ? 10 : 0);

		if (hard > 21) {
			d[5] = 1;
		} else if (best > 17 || (best == 17 && !(soft && h17))) {
			d[best - 17] = 1;
		} else {
			for (int r = 1; r <= 13; r++)
				dealer_from(hard + value_of(r), ace || r == 1,
				            h17, p_rank(r), d, memo, set);
		}
		memcpy(memo[hard][ace], d, sizeof d);
		set[hard][ace] = 1;
	}
	for (int i = 0; i < 6; i++)
		out[i] += w * memo[hard][ace][i];
}

/* Makes a blackjack with the up card. */
static int bj_pair(int upv, int v)
{
	return (upv == 1 && v == 10) || (upv == 10 && v == 1);
}

static void dealer_dist(struct calc *k)
{
	double memo[32][2][6];
	unsigned char set[32][2];
	double mass = 0;

	memset(set, 0, sizeof set);
	memset(k->dealer, 0, sizeof k->dealer);
	for (int r = 1; r <= 13; r++)
		if (!bj_pair(k->upv, value_of(r)))
			mass += p_rank(r);
	k->q = 1 - mass;
	for (int r = 1; r <= 13; r++)
		if (!bj_pair(k->upv, value_of(r)))
			dealer_from(k->upv + value_of(r), k->upv == 1 || r == 1,
			            k->ru->h17, p_rank(r) / mass, k->dealer,
			            memo, set);
	for (int t = 0; t < 32; t++) {
		double s = 0;
		if (t > 21) {
			s = -1;
		} else {
			s = k->dealer[5];
			for (int d = 17; d <= 21; d++)
				s += t > d   ? k->dealer[d - 17]
				     : t < d ? -k->dealer[d - 17]
				             : 0;
		}
		k->stand[t] = s;
	}
}

/* ---- one hand ---- */

/* What the rest of the round is worth once this hand ends live or bust
 * with stake m (1 or 2). */
struct cont {
	double live[3], bust[3];
};

static double end_live(const struct calc *k, const struct cont *C, int t, int m,
                       int split21)
{
	double v = (1 - k->qh) * m * (split21 ? k->bj : k->stand[t]);

	if (k->reg == LATE_ALL)
		v += k->qh * -m;
	return v + C->live[m];
}

static double end_bust(const struct calc *k, const struct cont *C, int m)
{
	double v = (1 - k->qh) * -m;

	if (k->reg == LATE_ALL)
		v += k->qh * -m;
	return v + C->bust[m];
}

static int total(int hard, int ace, int *soft)
{
	int s = ace && hard + 10 <= 21;
	if (soft)
		*soft = s;
	return hard + (s ? 10 : 0);
}

/* A hand of three cards or more (no double, no split, no surrender):
 * the better of standing and hitting. */
static double hand3(const struct calc *k, const struct cont *C, int hard,
                    int ace, double memo[32][2], unsigned char set[32][2])
{
	int t;

	if (hard > 21)
		return end_bust(k, C, 1);
	if (set[hard][ace])
		return memo[hard][ace];
	t = total(hard, ace, NULL);
	double v = end_live(k, C, t, 1, 0);
	if (t < 21) {
		double hit = 0;
		for (int r = 1; r <= 13; r++)
			hit += p_rank(r) * hand3(k, C, hard + value_of(r),
			                         ace || r == 1, memo, set);
		if (hit > v)
			v = hit;
	}
	memo[hard][ace] = v;
	set[hard][ace] = 1;
	return v;
}

static int may_double(const hj_rules *ru, int hard, int ace, int split)
{
	int soft, t = total(hard, ace, &soft);

	if (split && !ru->double_after_split)
		return 0;
	if (ru->double_on == HJ_DOUBLE_ANY)
		return 1;
	return !soft && t <= 11 &&
	       t >= (ru->double_on == HJ_DOUBLE_9_11 ? 9 : 10);
}

static int is_pair(const hj_rules *ru, int r1, int r2)
{
	return ru->split_by_value ? value_of(r1) == value_of(r2) : r1 == r2;
}

static double stack_w(struct calc *k, const int *stack, int len, int nh, int L,
                      int S);

/* The class of a second card r below split rank c, and back. */
static int class_of(const struct calc *k, int r)
{
	if (value_of(r) < 10)
		return value_of(r);
	if (!k->ru->split_by_value && value_of(k->c) == 10 && r != k->c)
		return 11;
	return 10;
}

static int rank_of(const struct calc *k, int cls)
{
	if (cls < 10)
		return cls;
	if (cls == 10)
		return value_of(k->c) == 10 ? k->c : 10;
	return k->c == 10 ? 11 : 10;
}

/* The continuation of a hand ending above stack (len hands). */
static void make_cont(struct calc *k, const int *stack, int len, int nh, int L,
                      int S, struct cont *C)
{
	for (int m = 1; m <= 2; m++) {
		if (k->reg == LATE_ORIG) {
			int s = S + m > MAX_BUSTED ? MAX_BUSTED : S + m;
			C->live[m] = stack_w(k, stack, len, nh, 1, S);
			C->bust[m] = stack_w(k, stack, len, nh, L, s);
		} else {
			C->live[m] = C->bust[m] =
			    stack_w(k, stack, len, nh, 0, 0);
		}
	}
}

/* Actions of the two-card hand (r1, r2). */
struct choice {
	double stand, hit, dbl, split, surr;
	int can_dbl, can_split, can_surr;
};

static double hand2(struct calc *k, int r1, int r2, int split, const int *stack,
                    int len, int nh, int L, int S, struct choice *ch);

/* The best of standing, hitting and doubling a two-card hand with no
 * continuation (the additive cases). */
static double hand2_plain(struct calc *k, int r1, int r2, int split)
{
	const hj_rules *ru = k->ru;
	struct cont C = {{0, 0, 0}, {0, 0, 0}};
	double memo[32][2], best, v;
	unsigned char set[32][2];
	int hard = value_of(r1) + value_of(r2), ace = r1 == 1 || r2 == 1;
	int t = total(hard, ace, NULL);

	memset(set, 0, sizeof set);
	best = end_live(k, &C, t, 1, split && t == 21 && ru->split21_bj);
	if (t == 21 || (split && r1 == 1 && !ru->hit_split_aces))
		return best;
	v = 0;
	for (int r = 1; r <= 13; r++)
		v += p_rank(r) *
		     hand3(k, &C, hard + value_of(r), ace || r == 1, memo, set);
	if (v > best)
		best = v;
	if (may_double(ru, hard, ace, split)) {
		v = 0;
		for (int r = 1; r <= 13; r++) {
			int h = hard + value_of(r);
			v += p_rank(r) *
			     (h > 21 ? end_bust(k, &C, 2)
			             : end_live(k, &C,
			                        total(h, ace || r == 1, NULL),
			                        2, 0));
		}
		if (v > best)
			best = v;
	}
	return best;
}

/* The best value of a two-card hand (ranks r1, r2) with stack below it
 * (len hands not yet played), nh hands in the round; split: a hand from a
 * split (r1 is the split rank).  *ch (if not NULL) gets every action's
 * value. */
static double hand2(struct calc *k, int r1, int r2, int split, const int *stack,
                    int len, int nh, int L, int S, struct choice *ch)
{
	const hj_rules *ru = k->ru;
	struct choice x = {0};
	struct cont C;
	double memo[32][2];
	unsigned char set[32][2];
	int hard = value_of(r1) + value_of(r2), ace = r1 == 1 || r2 == 1;
	int t = total(hard, ace, NULL);
	int aces_one = split && r1 == 1 && !ru->hit_split_aces;
	double best, rest = 0;

	memset(set, 0, sizeof set);
	if (k->reg != LATE_ORIG && ch == NULL) {
		/* The continuation is one number: the best of stand, hit
		 * and double once per hand, plus it. */
		rest = stack_w(k, stack, len, nh, 0, 0);
		if (k->nsgen[split][r1][r2] != k->upgen) {
			k->nsgen[split][r1][r2] = k->upgen;
			k->ns[split][r1][r2] = hand2_plain(k, r1, r2, split);
		}
		best = k->ns[split][r1][r2] + rest;
		goto split_option;
	}
	make_cont(k, stack, len, nh, L, S, &C);
	x.stand = end_live(k, &C, t, 1, split && t == 21 && ru->split21_bj);
	x.hit = x.dbl = x.split = x.surr = -1e9;
	best = x.stand;
	if (t < 21 && !aces_one) {
		x.hit = 0;
		for (int r = 1; r <= 13; r++)
			x.hit += p_rank(r) * hand3(k, &C, hard + value_of(r),
			                           ace || r == 1, memo, set);
		if (x.hit > best)
			best = x.hit;
		if (may_double(ru, hard, ace, split)) {
			x.can_dbl = 1;
			x.dbl = 0;
			for (int r = 1; r <= 13; r++) {
				int h = hard + value_of(r);
				x.dbl +=
				    p_rank(r) *
				    (h > 21 ? end_bust(k, &C, 2)
				            : end_live(
				                  k, &C,
				                  total(h, ace || r == 1, NULL),
				                  2, 0));
			}
			if (x.dbl > best)
				best = x.dbl;
		}
	}
split_option:
	/* Split: hand i keeps r1 and takes its second card first, hand i+1
	 * takes the next; i+1 is played first, i waits on the stack above
	 * the older hands. */
	if (!aces_one && is_pair(ru, r1, r2) && nh < ru->max_hands &&
	    (r1 != 1 || ru->split_aces) && len + 2 <= MAX_STACK) {
		int save = k->c, st[MAX_STACK];

		x.can_split = 1;
		x.split = 0;
		if (k->c != r1) {
			k->c = r1;
			k->gen++;
		}
		for (int i = 0; i < len; i++)
			st[i + 2] = stack[i];
		for (int a = 1; a <= 13; a++) {
			st[1] = class_of(k, a);
			for (int b = 1; b <= 13; b++) {
				st[0] = class_of(k, b);
				x.split +=
				    p_rank(a) * p_rank(b) *
				    stack_w(k, st, len + 2, nh + 1, L, S);
			}
		}
		if (k->c != save) {
			k->c = save;
			k->gen++;
		}
		if (x.split > best)
			best = x.split;
	}
	if (ch)
		*ch = x;
	return best;
}

/* The rest of the round: the hands on the stack, top (stack[0]) first,
 * each holding the split rank and a card of class stack[i]. */
static double stack_w(struct calc *k, const int *stack, int len, int nh, int L,
                      int S)
{
	size_t idx = 0, base = 0, pw = 1;
	double v;

	if (len == 0) {
		if (k->reg != LATE_ORIG)
			return 0;
		return k->qh * (L ? -1.0 : -(double)S);
	}
	for (int i = 0; i < len; i++) {
		base += pw;
		pw *= NCLASS;
	}
	for (int i = 0; i < len; i++)
		idx = idx * NCLASS + (size_t)stack[i];
	idx = (((size_t)nh * 2 + (size_t)L) * (MAX_BUSTED + 1) + (size_t)S) *
	          NSTACKS +
	      base + idx;
	if (k->wgen[idx] == k->gen)
		return k->w[idx];
	v = hand2(k, k->c, rank_of(k, stack[0]), 1, stack + 1, len - 1, nh, L,
	          S, NULL);
	k->w[idx] = v;
	k->wgen[idx] = k->gen;
	return v;
}

/* ---- a whole round ---- */

static char letter(const struct choice *x, double best)
{
	if (x->can_split && x->split >= best - 1e-12)
		return 'P';
	if (x->can_surr && x->surr >= best - 1e-12)
		return 'R';
	if (x->can_dbl && x->dbl >= best - 1e-12)
		return 'D';
	if (x->hit >= best - 1e-12)
		return 'H';
	return 'S';
}

/* The first decision on (r1, r2) against the up card; *l gets its letter. */
static double first(struct calc *k, int r1, int r2, char *l)
{
	const hj_rules *ru = k->ru;
	struct choice x;
	double best = hand2(k, r1, r2, 0, NULL, 0, 1, 0, 0, &x);

	if (ru->surrender != HJ_SURRENDER_NONE) {
		int waits = ru->surrender == HJ_SURRENDER_LATE &&
		            (k->reg == LATE_ORIG || k->reg == LATE_ALL);
		x.can_surr = 1;
		x.surr = waits ? (1 - k->qh) * -0.5 + k->qh * -1 : -0.5;
		if (x.surr > best)
			best = x.surr;
	}
	if (l)
		*l = letter(&x, best);
	return best;
}

static double up_card(const hj_rules *ru, struct calc *k, int upv, hj_edge *out)
{
	double ev = 0;

	k->gen++;
	k->upgen++;
	k->ru = ru;
	k->upv = upv;
	if (upv != 1 && upv != 10)
		k->reg = NONE;
	else if (ru->peek == HJ_PEEK_NONE)
		k->reg = LATE_ALL;
	else if (upv == 1 || ru->peek == HJ_PEEK_ACE_TEN)
		k->reg = PEEKED;
	else
		k->reg = LATE_ORIG;
	dealer_dist(k);
	k->qh = k->reg == PEEKED ? 0 : k->q;
	if (k->reg == NONE)
		k->qh = 0;
	for (int r1 = 1; r1 <= 13; r1++) {
		for (int r2 = 1; r2 <= 13; r2++) {
			int natural = value_of(r1) + value_of(r2) == 11 &&
			              (r1 == 1 || r2 == 1);
			double v;

			if (natural) {
				/* A dealer blackjack pushes it. */
				v = (1 - k->q) * k->bj;
			} else {
				v = first(k, r1, r2, NULL);
				if (k->reg == PEEKED)
					v = k->q * -1 + (1 - k->q) * v;
			}
			ev += p_rank(r1) * p_rank(r2) * v;
		}
	}
	/* The chart: a representative two-card hand of each total. */
	int col = upv == 1 ? 9 : upv - 2;
	for (int t = 5; t <= 20; t++) {
		int a = t - 10 > 2 ? t - 10 : 2, b = t - a;
		out->hard[t][col] = '-';
		if (a == b && a + 1 <= 10 && b - 1 >= 2)
			a++, b--;
		if (a != b && a >= 2 && b >= 2 && a <= 10 && b <= 10) {
			char l;
			first(k, a, b, &l);
			out->hard[t][col] = l;
		}
	}
	for (int o = 2; o <= 9; o++) {
		char l;
		first(k, 1, o, &l);
		out->soft[11 + o][col] = l;
	}
	for (int r = 1; r <= 10; r++) {
		char l;
		first(k, r, r, &l);
		out->pairs[r][col] = l;
	}
	return ev;
}

static double pp_ev(const hj_rules *ru)
{
	/* Same rank 1/13; then the same suit 1/4, the other suit of the same
	 * colour 1/4, the other colour 1/2. */
	return (1.0 / 13) * (0.25 * (1 + ru->pp[0]) + 0.25 * (1 + ru->pp[1]) +
	                     0.5 * (1 + ru->pp[2])) -
	       1;
}

static double t3_ev(const hj_rules *ru)
{
	double sum = 0;

	for (int a = 0; a < 52; a++)
		for (int b = 0; b < 52; b++)
			for (int u = 0; u < 52; u++) {
				hj_side_result s = hj_twenty_one_plus_three(
				    hj_code((unsigned)(a / 4 + 1),
				            (unsigned)(a % 4)),
				    hj_code((unsigned)(b / 4 + 1),
				            (unsigned)(b % 4)),
				    hj_code((unsigned)(u / 4 + 1),
				            (unsigned)(u % 4)));
				if (s != HJ_SB_LOST)
					sum +=
					    1 + ru->t3[s - HJ_SB_SUITED_TRIPS];
			}
	return sum / (52.0 * 52 * 52) - 1;
}

/* Large (its memo tables), so static: one computation at a time. */
static struct calc calc_mem;

int hj_edge_compute(const hj_rules *ru, hj_edge *out)
{
	double ev = 0;

	memset(out, 0, sizeof *out);
	memset(out->hard, ' ', sizeof out->hard);
	memset(out->soft, ' ', sizeof out->soft);
	memset(out->pairs, ' ', sizeof out->pairs);
	calc_mem.bj = (double)ru->bj_num / ru->bj_den;
	for (int up = 1; up <= 13; up++) {
		/* The four 10-valued ranks play alike. */
		if (up > 10) {
			ev += p_rank(up) * out->ev_up[10];
			continue;
		}
		out->ev_up[up] = up_card(ru, &calc_mem, value_of(up), out);
		ev += p_rank(up) * out->ev_up[up];
	}
	out->ev = ev;
	out->edge = -ev;
	out->pp_on = ru->pp_on;
	out->t3_on = ru->t3_on;
	if (ru->pp_on)
		out->pp_edge = -pp_ev(ru);
	if (ru->t3_on)
		out->t3_edge = -t3_ev(ru);
	return 0;
}

/* ---- the player of the computed strategy ---- */

struct hj_edge_player {
	hj_rules ru;
	/* By up card value 1 .. 10: the first decision on the unsplit hand,
	 * a split hand's with and without a split left, and hit ('H') or
	 * stand ('S') with three cards or more by hard total and ace. */
	char first[11][14][14];
	char split[11][2][14][14];
	char more[11][32][2];
};

static char best_letter(const struct choice *x, double best)
{
	return letter(x, best);
}

int hj_edge_player_new(const hj_rules *ru, hj_edge_player **out)
{
	hj_edge_player *p = calloc(1, sizeof *p);

	*out = NULL;
	if (p == NULL)
		return -ENOMEM;
	p->ru = *ru;
	calc_mem.bj = (double)ru->bj_num / ru->bj_den;
	for (int up = 1; up <= 10; up++) {
		hj_edge unused;
		struct cont C = {{0, 0, 0}, {0, 0, 0}};

		memset(&unused, 0, sizeof unused);
		(void)up_card(ru, &calc_mem, up, &unused);
		for (int a = 1; a <= 13; a++) {
			for (int b = 1; b <= 13; b++) {
				struct choice x;
				double best;

				first(&calc_mem, a, b, &p->first[up][a][b]);
				for (int left = 0; left < 2; left++) {
					/* A split hand in a round of 2 hands,
					 * or of max_hands (no split left). */
					int nh = left ? 2 : ru->max_hands;
					best = hand2(&calc_mem, a, b, 1, NULL,
					             0, nh, 0, 0, &x);
					p->split[up][left][a][b] =
					    best_letter(&x, best);
				}
			}
		}
		for (int hard = 3; hard <= 21; hard++) {
			for (int ace = 0; ace < 2; ace++) {
				double memo[32][2], stand, hit = 0;
				unsigned char set[32][2];
				int t = total(hard, ace, NULL);

				memset(set, 0, sizeof set);
				stand = end_live(&calc_mem, &C, t, 1, 0);
				for (int r = 1; r <= 13; r++)
					hit += p_rank(r) *
					       hand3(&calc_mem, &C,
					             hard + value_of(r),
					             ace || r == 1, memo, set);
				p->more[up][hard][ace] =
				    t < 21 && hit > stand ? 'H' : 'S';
			}
		}
	}
	*out = p;
	return 0;
}

void hj_edge_player_free(hj_edge_player *p)
{
	free(p);
}

int hj_edge_player_act(const hj_edge_player *p, const hj_round *r)
{
	int up = value_of((int)hj_code_rank(r->dealer[0]));
	int hi = hj_round_active_hand(r);
	const hj_hand *h;
	int a, b, hard = 0, ace = 0;
	char l;

	if (r->peek_due)
		return HJ_PEEK;
	if (hi < 0)
		return HJ_STAND;
	h = &r->hands[hi];
	for (unsigned i = 0; i < h->n; i++) {
		int rk = (int)hj_code_rank(h->cards[i]);
		hard += value_of(rk);
		ace |= rk == 1;
	}
	if (h->n != 2)
		return hard <= 21 && p->more[up][hard][ace] == 'H' ? HJ_HIT
		                                                   : HJ_STAND;
	a = (int)hj_code_rank(h->cards[0]);
	b = (int)hj_code_rank(h->cards[1]);
	if (r->nhands == 1 && r->decisions == 0)
		l = p->first[up][a][b];
	else
		l = p->split[up][r->nhands < p->ru.max_hands][a][b];
	switch (l) {
	case 'P':
		return HJ_SPLIT;
	case 'D':
		return HJ_DOUBLE;
	case 'R':
		return HJ_SURRENDER;
	case 'H':
		return HJ_HIT;
	default:
		return HJ_STAND;
	}
}
