/*
 * The round state machine and the table that drives it.
 *
 * A round is a FIFO of scheduled draws plus the hands.  Every non-void block
 * gives its card to the first pending draw of every round that has one, so
 * a void block shifts all later draws of all rounds by one.  One draw per
 * round per block: draws scheduled while block B is processed are dealt
 * from B+1 on, which is the protocol's "Y+1" without tracking heights.
 *
 * When a round's FIFO runs dry the round decides what comes next: open an
 * action window at B+1, start the dealer, or settle.
 */
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "map.h"
#include "next.h"

struct hj_table {
	hj_rules rules;
	/* Open rounds in opening order; within a block, the rounds that
	 * settled in it too (HJ_PH_DONE) until compact() at its end. */
	hj_round *rounds;
	size_t n, cap;
	/* The open rounds (not HJ_PH_DONE) by player, and by short id (the
	 * first 8 bytes of the id): the first in opening order of those
	 * sharing one.  ref_shadowed counts the open rounds whose short id
	 * an earlier open round holds in by_ref. */
	hj_map by_player, by_ref;
	size_t ref_shadowed;
	/* Sum of hj_rules_worst_return() over the open rounds (settled
	 * ones release theirs at once), saturating at HJ_AMOUNT_MAX; exact
	 * whenever below it. */
	hj_amount exposure;
	uint64_t last;
	int have_last;
	hj_verify_fn verify;
	void *verify_ctx;
	hj_commits commits; /* valid Commits that may still be in force */
};

/* What processing one block needs at hand. */
struct blk {
	hj_table *t;
	uint64_t height;
	hj_sink sink;
	void *ctx;
	int settled; /* some round reached HJ_PH_DONE: compact */
};

static void emit(struct blk *b, const hj_event *ev)
{
	if (b->sink)
		b->sink(b->ctx, ev);
}

static hj_amount sat_add(hj_amount a, hj_amount b)
{
	return a > HJ_AMOUNT_MAX - b ? HJ_AMOUNT_MAX : a + b;
}

/* What a round holds of the table's exposure. */
static hj_amount round_worst(const hj_table *t, const hj_round *r)
{
	return hj_rules_worst_return(&t->rules, r->bet, r->side_pp, r->side_t3);
}

/* The exposure of the open rounds summed afresh. */
static hj_amount exposure_sum(const hj_table *t)
{
	hj_amount sum = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->rounds[i].phase != HJ_PH_DONE)
			sum = sat_add(sum, round_worst(t, &t->rounds[i]));
	return sum;
}

/* The indexes' keys: rounds[i]'s player, and its short id. */
static const uint8_t *player_key(const void *arg, size_t i, size_t *len)
{
	const hj_round *r = &((const hj_table *)arg)->rounds[i];

	*len = r->player.len;
	return r->player.b;
}

static const uint8_t *ref_key(const void *arg, size_t i, size_t *len)
{
	*len = 8;
	return ((const hj_table *)arg)->rounds[i].id.b;
}

static int has_ref(const hj_round *r)
{
	return r->id.len >= 8;
}

/* Makes room in both indexes for `more` rounds, so that indexing them
 * cannot fail: 0 or -ENOMEM. */
static int reserve_index(hj_table *t, size_t more)
{
	return hj_map_reserve(&t->by_player, t->n + more) ||
	               hj_map_reserve(&t->by_ref, t->n + more)
	           ? -ENOMEM
	           : 0;
}

/* Indexes rounds[i], a new open round after every other (room reserved). */
static void index_round(hj_table *t, size_t i)
{
	const hj_round *r = &t->rounds[i];
	size_t at;

	hj_map_put(&t->by_player, r->player.b, r->player.len, i);
	if (!has_ref(r))
		return;
	if (hj_map_get(&t->by_ref, r->id.b, 8, &at) == 0)
		t->ref_shadowed++;
	else
		hj_map_put(&t->by_ref, r->id.b, 8, i);
}

/* Round r settled: it leaves the indexes (a later open round sharing its
 * short id takes its place) and releases its exposure. */
static void released(hj_table *t, const hj_round *r)
{
	size_t i = (size_t)(r - t->rounds), at;

	hj_map_remove(&t->by_player, r->player.b, r->player.len);
	if (has_ref(r)) {
		if (hj_map_get(&t->by_ref, r->id.b, 8, &at) == 0 && at != i) {
			t->ref_shadowed--;
		} else {
			hj_map_remove(&t->by_ref, r->id.b, 8);
			for (size_t j = i + 1; t->ref_shadowed && j < t->n;
			     j++) {
				const hj_round *o = &t->rounds[j];
				if (o->phase != HJ_PH_DONE && has_ref(o) &&
				    memcmp(o->id.b, r->id.b, 8) == 0) {
					hj_map_put(&t->by_ref, r->id.b, 8, j);
					t->ref_shadowed--;
					break;
				}
			}
		}
	}
	/* A saturated sum lost the parts a subtraction needs. */
	if (t->exposure == HJ_AMOUNT_MAX)
		t->exposure = exposure_sum(t);
	else
		t->exposure -= round_worst(t, r);
}

static unsigned dealer_total(const hj_round *r, int *soft)
{
	return hj_hand_total(r->dealer, r->dealer_n, soft);
}

static int dealer_blackjack(const hj_round *r)
{
	return hj_hand_blackjack(r->dealer, r->dealer_n);
}

static int up_is_ace(const hj_round *r)
{
	return hj_code_rank(r->dealer[0]) == HJ_ACE;
}

static int up_is_ten(const hj_round *r)
{
	return hj_rank_value(hj_code_rank(r->dealer[0])) == 10;
}

/* The dealer's up card and `code` would make a blackjack. */
static int makes_dealer_bj(const hj_round *r, uint8_t code)
{
	uint8_t two[2] = {r->dealer[0], code};
	return r->dealer_n == 1 && hj_hand_blackjack(two, 2);
}

/* The dealer is known not to hold a blackjack, or already holds its
 * second card: an up card 2..9, or a peek that found none. */
static int dealer_bj_ruled_out(const hj_round *r)
{
	return r->dealer_n >= 2 || r->peek_clear ||
	       (!up_is_ace(r) && !up_is_ten(r));
}

/* The unsplit first two cards make 21. */
static int player_natural(const hj_round *r)
{
	return r->nhands == 1 &&
	       hj_hand_blackjack(r->hands[0].cards, r->hands[0].n);
}

/* Dealer stands on 17 or more, hitting soft 17 under H17. */
static int dealer_stands(const hj_rules *ru, const hj_round *r)
{
	int soft;
	unsigned t = dealer_total(r, &soft);
	return t > 17 || (t == 17 && !(soft && ru->h17));
}

static void push_draw(hj_round *r, uint8_t target)
{
	/* Capacity: no state schedules more than the Bet's three draws. */
	if (r->npending < HJ_MAX_PENDING)
		r->pending[r->npending++] = target;
}

static void add_card(uint8_t *cards, uint8_t *n, uint8_t code)
{
	/* A hand stops at 21 and a dealer at 17 long before the cap. */
	if (*n < HJ_MAX_CARDS)
		cards[(*n)++] = code;
}

/* floor(s * num / den) without overflowing: s = q * den + rem. */
static hj_amount mul_ratio(hj_amount s, uint32_t num, uint32_t den)
{
	return (s / den) * num + (s % den) * num / den;
}

static void settle(struct blk *b, hj_round *r)
{
	const hj_rules *ru = &b->t->rules;
	hj_settlement st;
	int dbj = dealer_blackjack(r);
	int natural = player_natural(r);
	/* A dealer blackjack behind an ace is found by Peek before any
	 * decision; under peek = ace one behind a 10 is found late and only
	 * the Bet's main stake is lost (original bets only); under peek =
	 * none one found late takes every stake. */
	int late_dbj = dbj && up_is_ten(r) && ru->peek == HJ_PEEK_ACE;
	unsigned dt = dealer_total(r, NULL);

	memset(&st, 0, sizeof st);
	for (int i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];
		hj_amount s = h->stake;
		uint8_t status;
		hj_amount ret = 0;

		if (h->flags & HJ_HF_SURRENDER) {
			if (dbj) {
				status = HJ_ST_LOSE;
			} else {
				status = HJ_ST_SURRENDER;
				ret = s / 2;
			}
		} else if (natural) {
			if (dbj) {
				status = HJ_ST_PUSH;
				ret = s;
			} else {
				status = HJ_ST_BLACKJACK;
				ret = s + mul_ratio(s, ru->bj_num, ru->bj_den);
			}
		} else if (late_dbj) {
			status = HJ_ST_DEALER_BJ;
			ret = i == 0 ? s - r->bet : s;
		} else if (dbj) {
			status = HJ_ST_LOSE;
		} else if (h->flags & HJ_HF_BUST) {
			status = HJ_ST_BUST;
		} else if (ru->split21_bj && (h->flags & HJ_HF_SPLIT) &&
		           hj_hand_blackjack(h->cards, h->n)) {
			/* Beats every dealer total but a blackjack. */
			status = HJ_ST_BLACKJACK;
			ret = s + mul_ratio(s, ru->bj_num, ru->bj_den);
		} else {
			unsigned pt = hj_hand_total(h->cards, h->n, NULL);
			if (dt > 21 || pt > dt) {
				status = HJ_ST_WIN;
				ret = 2 * s;
			} else if (pt == dt) {
				status = HJ_ST_PUSH;
				ret = s;
			} else {
				status = HJ_ST_LOSE;
			}
		}
		st.status[i] = status;
		st.ret[i] = ret;
		st.total_stake += s;
		st.total_ret += ret;
	}
	if (r->insured) {
		if (dbj)
			st.ins_ret = r->insurance + r->insurance * ru->ins_pays;
		st.total_stake += r->insurance;
		st.total_ret += st.ins_ret;
	}

	r->phase = HJ_PH_DONE;
	r->npending = 0;
	b->settled = 1;
	released(b->t, r);
	hj_event ev = {.type = HJ_EV_SETTLE, .round = r, .settle = &st};
	emit(b, &ev);
}

/* Every hand is finished: the dealer plays, or the round settles now. */
static void hands_done(struct blk *b, hj_round *r)
{
	int live = 0;

	for (int i = 0; i < r->nhands; i++)
		if (!(r->hands[i].flags & (HJ_HF_BUST | HJ_HF_SURRENDER)))
			live = 1;
	r->phase = HJ_PH_DEALER;
	if (!live || (r->dealer_n >= 2 && dealer_stands(&b->t->rules, r)))
		settle(b, r);
	else
		push_draw(r, HJ_DEALER);
}

/* No draw pending in play: open the window for the active hand, or let the
 * dealer play from the next block. */
static void play_next(struct blk *b, hj_round *r)
{
	if (hj_round_active_hand(r) >= 0 || r->peek_due)
		r->window_open = b->height + 1;
	else
		hands_done(b, r);
}

/* The side bets, decided by the first three cards (docs/PROTOCOL.md
 * section 7.2). */
static void settle_sides(struct blk *b, hj_round *r)
{
	const hj_rules *ru = &b->t->rules;
	const uint8_t *c = r->hands[0].cards;
	hj_side_settlement ss = {0};

	if (!r->side_pp && !r->side_t3)
		return;
	if (r->side_pp) {
		ss.pp = hj_perfect_pairs(c[0], c[1]);
		if (ss.pp != HJ_SB_LOST)
			ss.pp_ret =
			    r->side_pp +
			    r->side_pp * ru->pp[ss.pp - HJ_SB_PERFECT_PAIR];
		r->pp_result = ss.pp;
	}
	if (r->side_t3) {
		ss.t3 = hj_twenty_one_plus_three(c[0], c[1], r->dealer[0]);
		if (ss.t3 != HJ_SB_LOST)
			ss.t3_ret =
			    r->side_t3 +
			    r->side_t3 * ru->t3[ss.t3 - HJ_SB_SUITED_TRIPS];
		r->t3_result = ss.t3;
	}
	hj_event ev = {.type = HJ_EV_SIDE, .round = r, .side = &ss};
	emit(b, &ev);
}

/* The Bet's three cards are out. */
static void after_deal(struct blk *b, hj_round *r)
{
	const hj_rules *ru = &b->t->rules;

	settle_sides(b, r);
	r->phase = HJ_PH_PLAY;
	if (up_is_ace(r) && ru->peek != HJ_PEEK_NONE) {
		/* Only Peek is valid, a natural included (even money). */
		r->peek_due = 1;
		r->window_open = b->height + 1;
	} else if (up_is_ten(r) && ru->peek == HJ_PEEK_ACE_TEN) {
		/* X+4: the peek card, a natural's verdict included. */
		push_draw(r, HJ_PEEK_CARD);
	} else if (player_natural(r)) {
		r->phase = HJ_PH_DEALER;
		if (!dealer_bj_ruled_out(r))
			push_draw(r, HJ_DEALER); /* X+4: push or blackjack */
		else
			settle(b, r);
	} else {
		r->window_open = b->height + 1;
	}
}

/* The dealer drew in dealer play. */
static void dealer_next(struct blk *b, hj_round *r)
{
	int only_second = 1;

	/* A natural against a 10, or a surrender against a 10, needs just
	 * the dealer's second card. */
	for (int i = 0; i < r->nhands; i++)
		if (!(r->hands[i].flags & HJ_HF_SURRENDER))
			only_second = 0;
	if (player_natural(r) || only_second || dealer_stands(&b->t->rules, r))
		settle(b, r);
	else
		push_draw(r, HJ_DEALER);
}

/* A peek card: a dealer blackjack settles the round, else the card is set
 * aside (never the dealer's) and play goes on. */
static void peek_card(struct blk *b, hj_round *r, uint8_t code)
{
	int bj = makes_dealer_bj(r, code);
	hj_event ev = {.type = HJ_EV_PEEK,
	               .round = r,
	               .hand = HJ_DEALER,
	               .card = code,
	               .dealer_bj = (uint8_t)bj};

	if (bj)
		add_card(r->dealer, &r->dealer_n, code);
	else
		r->peek_clear = 1;
	emit(b, &ev);
	if (bj || player_natural(r))
		settle(b, r);
	else if (!r->npending)
		play_next(b, r);
}

static void deliver(struct blk *b, hj_round *r, uint8_t code)
{
	uint8_t target = r->pending[0];

	/* After a clear peek the dealer's second card is never a
	 * blackjack's: this block is skipped for that draw, as if void. */
	if (target == HJ_DEALER && r->peek_clear && makes_dealer_bj(r, code)) {
		hj_event ev = {.type = HJ_EV_SKIP,
		               .round = r,
		               .hand = HJ_DEALER,
		               .card = code};
		emit(b, &ev);
		return;
	}
	r->npending--;
	memmove(r->pending, r->pending + 1, r->npending);
	r->pending[r->npending] = 0;
	if (target == HJ_PEEK_CARD) {
		peek_card(b, r, code);
		return;
	}

	hj_event ev = {
	    .type = HJ_EV_DRAW, .round = r, .hand = target, .card = code};
	if (target == HJ_DEALER) {
		add_card(r->dealer, &r->dealer_n, code);
	} else {
		const hj_rules *ru = &b->t->rules;
		hj_hand *h = &r->hands[target];
		add_card(h->cards, &h->n, code);
		unsigned t = hj_hand_total(h->cards, h->n, NULL);
		/* Split aces take their one card and stand, unless
		 * hit_split_aces. */
		int one_card = (h->flags & HJ_HF_SPLIT) && h->n == 2 &&
		               hj_code_rank(h->cards[0]) == HJ_ACE &&
		               !ru->hit_split_aces;
		if (t > 21)
			h->flags |= HJ_HF_DONE | HJ_HF_BUST;
		else if (t == 21 || (h->flags & HJ_HF_DOUBLED) || one_card)
			h->flags |= HJ_HF_DONE;
	}
	emit(b, &ev);

	if (r->phase == HJ_PH_DEALER) {
		dealer_next(b, r);
		return;
	}
	if (r->npending)
		return;
	if (r->phase == HJ_PH_DEAL)
		after_deal(b, r);
	else
		play_next(b, r);
}

static hj_round *find_player(hj_table *t, const hj_id *player)
{
	size_t i;

	return hj_map_get(&t->by_player, player->b, player->len, &i)
	           ? NULL
	           : &t->rounds[i];
}

/* The first open round in opening order whose id begins with the short id
 * ref. */
static hj_round *find_ref(hj_table *t, const uint8_t ref[8])
{
	size_t i;

	return hj_map_get(&t->by_ref, ref, 8, &i) ? NULL : &t->rounds[i];
}

static void reject(struct blk *b, const hj_action *a, const hj_round *r,
                   hj_reason why)
{
	hj_event ev = {.type = HJ_EV_REJECT,
	               .round = r,
	               .tx = a,
	               .act = a->act,
	               .reason = why,
	               .amount = a->value};
	emit(b, &ev);
}

/* amount: the stake the action added to the round. */
static void accepted(struct blk *b, const hj_action *a, hj_round *r, int hand,
                     hj_amount amount)
{
	hj_event ev = {.type = HJ_EV_ACTION,
	               .round = r,
	               .tx = a,
	               .act = a->act,
	               .hand = hand,
	               .amount = amount};
	emit(b, &ev);
}

static void bet(struct blk *b, const hj_action *a)
{
	hj_table *t = b->t;
	const hj_round *open = find_player(t, &a->sender);
	hj_amount worst;

	if (open) {
		reject(b, a, open, HJ_R_SECOND_ROUND);
		return;
	}
	if ((a->side_pp && !t->rules.pp_on) ||
	    (a->side_t3 && !t->rules.t3_on)) {
		reject(b, a, NULL, HJ_R_SIDE_BETS);
		return;
	}
	/* The value covers the main stake and both side stakes; each side
	 * stake is at most the main one. */
	hj_amount sides = (hj_amount)a->side_pp + a->side_t3;
	hj_amount main = a->value >= sides ? a->value - sides : 0;
	if (a->value < sides || main < t->rules.min_bet ||
	    main > t->rules.max_bet || a->side_pp > main || a->side_t3 > main) {
		reject(b, a, NULL, HJ_R_BET_LIMITS);
		return;
	}
	/* Bankroll safety from the chain alone: the open rounds' worst cases
	 * plus this one's, exactly max_exposure included.  Rounds settled
	 * earlier in this block released theirs (released). */
	worst = hj_rules_worst_return(&t->rules, main, a->side_pp, a->side_t3);
	if (t->rules.max_exposure &&
	    (t->exposure > t->rules.max_exposure ||
	     worst > t->rules.max_exposure - t->exposure)) {
		reject(b, a, NULL, HJ_R_EXPOSURE);
		return;
	}
	t->exposure = sat_add(t->exposure, worst);
	/* apply_block reserved room for every transaction of the block. */
	hj_round *r = &t->rounds[t->n++];
	memset(r, 0, sizeof *r);
	r->id = a->txid;
	r->player = a->sender;
	r->bet_height = b->height;
	r->bet_tx_index = a->tx_index;
	r->bet = main;
	r->side_pp = a->side_pp;
	r->side_t3 = a->side_t3;
	r->phase = HJ_PH_DEAL;
	r->nhands = 1;
	r->hands[0].stake = main;
	index_round(t, t->n - 1);
	push_draw(r, 0);
	push_draw(r, HJ_DEALER);
	push_draw(r, 0);
	accepted(b, a, r, -1, main);
}

/* Whether act is allowed now, and with the value it carries. */
static hj_reason check(const hj_rules *ru, uint64_t height, const hj_round *r,
                       const hj_action *a)
{
	hj_amount need;
	hj_reason why;

	if (hj_round_no_more_moves(r))
		return HJ_R_NOT_ALLOWED;
	if (!hj_round_waiting(r) || height < r->window_open)
		return HJ_R_PREMATURE;
	why = hj_round_legal(ru, r, a->act, a->insurance, &need);
	if (why != HJ_OK)
		return why;
	return a->value == need ? HJ_OK : HJ_R_WRONG_VALUE;
}

/* Applies an action already checked (or a timeout's default, a == NULL,
 * act given).  Returns the hand acted on, -1 for Peek. */
static int apply(hj_round *r, hj_act act, const hj_action *a)
{
	hj_amount value = a ? a->value : 0;
	int hi = hj_round_active_hand(r);

	/* check() and timeouts() act only on a round with an active hand;
	 * this keeps hands[-1] out of reach whatever the caller. */
	if (act != HJ_PEEK && hi < 0)
		return -1;
	r->seq++;
	if (act == HJ_PEEK) {
		r->peek_due = 0;
		if (a && a->insurance) {
			r->insured = 1;
			r->insurance = value;
		}
		push_draw(r, HJ_PEEK_CARD);
		return -1;
	}
	r->decisions++;
	hj_hand *h = &r->hands[hi];
	switch (act) {
	case HJ_HIT:
		push_draw(r, (uint8_t)hi);
		break;
	case HJ_DOUBLE:
		h->stake += value;
		h->flags |= HJ_HF_DOUBLED;
		push_draw(r, (uint8_t)hi);
		break;
	case HJ_SPLIT:
		/* Hand hi keeps its first card, hi+1 takes the second; hands
		 * above hi (all finished) move up by one. */
		memmove(&r->hands[hi + 2], &r->hands[hi + 1],
		        (size_t)(r->nhands - hi - 1) * sizeof r->hands[0]);
		memset(&r->hands[hi + 1], 0, sizeof r->hands[0]);
		r->hands[hi + 1].stake = value;
		r->hands[hi + 1].n = 1;
		r->hands[hi + 1].cards[0] = h->cards[1];
		r->hands[hi + 1].flags = HJ_HF_SPLIT;
		h->cards[1] = 0;
		h->n = 1;
		h->flags |= HJ_HF_SPLIT;
		r->nhands++;
		push_draw(r, (uint8_t)hi);
		push_draw(r, (uint8_t)(hi + 1));
		break;
	case HJ_SURRENDER:
		h->flags |= HJ_HF_DONE | HJ_HF_SURRENDER;
		break;
	default: /* HJ_STAND */
		h->flags |= HJ_HF_DONE;
		break;
	}
	return hi;
}

/* After apply(): what an action with no draws leads to. */
static void after_apply(struct blk *b, hj_round *r, hj_act act)
{
	if (act == HJ_SURRENDER) {
		r->phase = HJ_PH_DEALER;
		/* Late surrender waits for the dealer's second card where a
		 * blackjack is not yet ruled out; early never waits. */
		if (b->t->rules.surrender == HJ_SURRENDER_LATE &&
		    !dealer_bj_ruled_out(r))
			push_draw(r, HJ_DEALER); /* Y+1: dealer blackjack? */
		else
			settle(b, r);
	} else if (r->npending == 0) {
		play_next(b, r);
	}
}

/*
 * A Commit (docs/PROTOCOL.md section 15), in the section's order:
 * malformed, not_dealer, commit_too_late, each refunded; a valid one
 * schedules its chain (room was reserved for it).  Under cards = hash
 * action 08 is unknown, as it was before committed cards.
 */
static void commit(struct blk *b, const hj_action *a)
{
	hj_table *t = b->t;
	hj_event ev = {.type = HJ_EV_REJECT, .tx = a, .amount = a->value};

	if (t->rules.cards != HJ_CARDS_COMMITTED) {
		ev.act = HJ_ACT_NONE;
		ev.reason = HJ_R_UNKNOWN_ACTION;
		emit(b, &ev);
		return;
	}
	if (a->kind == HJ_TX_MALFORMED) {
		reject(b, a, NULL, a->reason);
		return;
	}
	if (!a->from_dealer) {
		reject(b, a, NULL, HJ_R_NOT_DEALER);
		return;
	}
	if (a->commit_start <= b->height) {
		reject(b, a, NULL, HJ_R_COMMIT_TOO_LATE);
		return;
	}
	hj_commit c = {.start = a->commit_start,
	               .length = a->commit_length,
	               .height = b->height,
	               .tx_index = a->tx_index,
	               .txid = a->txid};
	memcpy(c.commitment, a->commitment, sizeof c.commitment);
	hj_commits_add(&t->commits, &c); /* reserved: cannot fail */
	ev = (hj_event){.type = HJ_EV_COMMIT,
	                .tx = a,
	                .act = HJ_COMMIT,
	                .commit = &t->commits.v[t->commits.n - 1]};
	emit(b, &ev);
}

static void apply_tx(struct blk *b, const hj_action *a)
{
	hj_event ev = {.tx = a};

	if (a->act == HJ_COMMIT &&
	    (a->kind == HJ_TX_ACTION || a->kind == HJ_TX_MALFORMED)) {
		commit(b, a);
		return;
	}
	switch (a->kind) {
	case HJ_TX_FAILED:
		ev.type = HJ_EV_IGNORED;
		emit(b, &ev);
		return;
	case HJ_TX_DEPOSIT:
		ev.type = HJ_EV_DEPOSIT;
		emit(b, &ev);
		return;
	case HJ_TX_MALFORMED:
		reject(b, a, NULL, a->reason);
		return;
	case HJ_TX_ACTION:
		break;
	}
	if (a->act == HJ_BET) {
		bet(b, a);
		return;
	}
	hj_table *t = b->t;
	hj_round *r =
	    a->has_ref ? find_ref(t, a->round_ref) : find_player(t, &a->sender);
	if (!r) {
		/* Bitcoin family: a zero-value action naming none of our
		 * rounds never reached the dealer address; it is another
		 * dealer's (docs/BITCOIN.md). */
		if (a->has_ref && a->value == 0)
			return;
		reject(b, a, NULL, HJ_R_NO_ROUND);
		return;
	}
	/* Bitcoin family: the round's key must have signed this action at
	 * this seq, so a copy of an old payload, or another player's, fails. */
	if (a->has_ref && (!t->verify || !t->verify(t->verify_ctx, r, a))) {
		reject(b, a, r, HJ_R_BAD_SIGNATURE);
		return;
	}
	hj_reason why = check(&b->t->rules, b->height, r, a);
	if (why != HJ_OK) {
		reject(b, a, r, why);
		return;
	}
	int hand = apply(r, a->act, a);
	accepted(b, a, r, hand, a->value);
	after_apply(b, r, a->act);
}

static void timeouts(struct blk *b)
{
	hj_table *t = b->t;

	for (size_t i = 0; i < t->n; i++) {
		hj_round *r = &t->rounds[i];
		if (!hj_round_waiting(r) ||
		    b->height < r->window_open + t->rules.timeout_blocks)
			continue;
		/* Nothing to act on: a state the table never makes, and the
		 * codec refuses (a restored round is acted on as it is). */
		if (!r->peek_due && hj_round_active_hand(r) < 0)
			continue;
		hj_act act = r->peek_due ? HJ_PEEK : HJ_STAND;
		int hand = apply(r, act, NULL);
		hj_event ev = {.type = HJ_EV_TIMEOUT,
		               .round = r,
		               .act = act,
		               .hand = hand};
		emit(b, &ev);
		after_apply(b, r, act);
	}
}

/* Drops the rounds settled in the block, keeping the opening order and
 * the indexes: a round moved from i to w is found at w. */
static void compact(struct blk *b)
{
	hj_table *t = b->t;
	size_t w = 0, at;

	if (!b->settled)
		return;
	for (size_t i = 0; i < t->n; i++) {
		hj_round *r = &t->rounds[i];

		if (r->phase == HJ_PH_DONE)
			continue;
		if (w < i) {
			/* Nothing indexed points at w: its round settled or
			 * moved already. */
			t->rounds[w] = *r;
			r = &t->rounds[w];
			hj_map_put(&t->by_player, r->player.b, r->player.len,
			           w);
			if (has_ref(r) &&
			    hj_map_get(&t->by_ref, r->id.b, 8, &at) == 0 &&
			    at == i)
				hj_map_put(&t->by_ref, r->id.b, 8, w);
		}
		w++;
	}
	t->n = w;
	b->settled = 0;
}

int hj_table_apply_block(hj_table *t, uint64_t height, const hj_card *card,
                         const hj_action *txs, size_t ntx, hj_sink sink,
                         void *ctx)
{
	if (t->have_last && height != t->last + 1)
		return -EINVAL;
	if (t->n + ntx > t->cap) {
		size_t cap = t->cap ? t->cap : 16;
		while (cap < t->n + ntx)
			cap *= 2;
		hj_round *nr = realloc(t->rounds, cap * sizeof *nr);
		if (!nr)
			return -ENOMEM;
		t->rounds = nr;
		t->cap = cap;
	}
	if (hj_commits_reserve(&t->commits, ntx) || reserve_index(t, ntx))
		return -ENOMEM;

	/* Rounds that settle stay in place, out of the indexes, until the
	 * block is done: one compaction a block, not one a transaction. */
	struct blk b = {.t = t, .height = height, .sink = sink, .ctx = ctx};
	if (card->rank) {
		uint8_t code = hj_code(card->rank, card->suit);
		for (size_t i = 0; i < t->n; i++)
			if (t->rounds[i].npending)
				deliver(&b, &t->rounds[i], code);
	}
	for (size_t i = 0; i < ntx; i++)
		apply_tx(&b, &txs[i]);
	timeouts(&b);
	compact(&b);
	t->last = height;
	t->have_last = 1;
	if (height < UINT64_MAX)
		hj_commits_prune(&t->commits, height + 1);
	return 0;
}

int hj_table_new(const hj_rules *rules, hj_table **out)
{
	hj_table *t = calloc(1, sizeof *t);

	*out = t;
	if (!t)
		return -ENOMEM;
	t->rules = *rules;
	hj_map_init(&t->by_player, player_key, t);
	hj_map_init(&t->by_ref, ref_key, t);
	return 0;
}

void hj_table_free(hj_table *t)
{
	if (!t)
		return;
	free(t->rounds);
	hj_map_free(&t->by_player);
	hj_map_free(&t->by_ref);
	hj_commits_free(&t->commits);
	free(t);
}

const hj_rules *hj_table_rules(const hj_table *t)
{
	return &t->rules;
}

void hj_table_set_verifier(hj_table *t, hj_verify_fn fn, void *ctx)
{
	t->verify = fn;
	t->verify_ctx = ctx;
}

int hj_table_last_height(const hj_table *t, uint64_t *height)
{
	if (t->have_last)
		*height = t->last;
	return t->have_last;
}

void hj_table_set_last_height(hj_table *t, uint64_t height)
{
	t->last = height;
	t->have_last = 1;
}

size_t hj_table_count(const hj_table *t)
{
	return t->n;
}

hj_amount hj_table_exposure(const hj_table *t)
{
	return t->exposure;
}

const hj_round *hj_table_round(const hj_table *t, size_t i)
{
	return i < t->n ? &t->rounds[i] : NULL;
}

int hj_table_restore(hj_table *t, const hj_round *r)
{
	if (find_player(t, &r->player))
		return -EEXIST;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		hj_round *nr = realloc(t->rounds, cap * sizeof *nr);
		if (!nr)
			return -ENOMEM;
		t->rounds = nr;
		t->cap = cap;
	}
	if (reserve_index(t, 1))
		return -ENOMEM;
	t->rounds[t->n++] = *r;
	index_round(t, t->n - 1);
	t->exposure = sat_add(t->exposure, round_worst(t, r));
	return 0;
}

const hj_commit *hj_table_commit_at(const hj_table *t, uint64_t height)
{
	return hj_commits_at(&t->commits, height);
}

const hj_commit *hj_table_commit(const hj_table *t, size_t i)
{
	return i < t->commits.n ? &t->commits.v[i] : NULL;
}

int hj_table_restore_commit(hj_table *t, const hj_commit *c)
{
	int rc = hj_commits_add(&t->commits, c);

	if (rc == 0 && t->have_last && t->last < UINT64_MAX)
		hj_commits_prune(&t->commits, t->last + 1);
	return rc;
}
