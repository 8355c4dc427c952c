/*
 * Property test: at least a million random rounds under each preset, both
 * side bets offered, with random legal and illegal actions, side stakes,
 * void blocks and timeouts.
 *
 * - Money: every base unit sent is staked, refunded, or a deposit/failed
 *   transfer; each round's accepted stakes equal its settlement's stake.
 * - Results agree with the cards and the rules: a Win beats the dealer or
 *   the dealer busted, a Bust is over 21, and so on; returns follow the
 *   statuses; side bets follow the first three cards.
 * - The dealer stopped where dealer_soft17 says, and a clear peek never
 *   ends in a dealer blackjack.
 * - Every round ends: nothing stays open longer than its timeouts allow,
 *   and the table drains once bets stop.
 * - nextActions (game/next.h) agrees with the table: a player's action at
 *   a block of its round's open window is accepted exactly when it is
 *   listed with the value it carries; at any other block it is rejected.
 * - Serialisation: a shadow table rebuilt every block from the encoded
 *   rounds produces exactly the same events as the live table (so restored
 *   rounds count towards the exposure as live ones do).
 * - Bankroll: no round returns more than hj_rules_worst_return() of its
 *   Bet, side bets included, and bethash's 4 * bet is reached; the open
 *   rounds' worst cases
 *   never sum above max_exposure; a Bet is refused over_exposure exactly
 *   when it would take them above it.
 *
 * HJ_PROPERTY_ROUNDS and HJ_PROPERTY_SEED override the defaults.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "next.h"
#include "say.h"
#include "table.h"

#define NPLAYERS 8
#define TIMEOUT  3
#define MIN_BET  10
#define MAX_BET  1000000
/* Above the least max_exposure (one max_bet Bet with side stakes of
 * max_bet): room for a few small rounds beside it, so large Bets often
 * wait for room. */
#define EXPOSURE_ROOM 20000

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

struct tally {
	hj_amount sent, staked, refunded, deposited, failed;
	hj_amount round_stake[NPLAYERS]; /* accepted so far, open round */
	uint64_t opened_at[NPLAYERS];
	int open[NPLAYERS];
	unsigned long settled, rejected, timeouts, voids, actions;
	uint64_t digest; /* of every event, to compare with the shadow */
	uint64_t height;
	unsigned long by_act[8], by_status[8], ins_won;
	unsigned long by_side[HJ_SB_COUNT], skips, peeks_clear;
	hj_amount side_ret[NPLAYERS]; /* side bet returns, open round */
	/* This block's action of each player on its open round: judged by
	 * nextActions before the block, 1 when it must be accepted. */
	int judged[NPLAYERS], listed[NPLAYERS];
	unsigned long next_checked, next_listed;
	const hj_rules *ru;
	hj_amount exposure; /* worst cases of the open rounds */
	unsigned long over_exposure, worst_reached;
};

static void mix(uint64_t *d, uint64_t v)
{
	*d ^= v + 0x9e3779b97f4a7c15ull + (*d << 6) + (*d >> 2);
}

static void mix_amount(uint64_t *d, hj_amount v)
{
	mix(d, (uint64_t)v);
	mix(d, (uint64_t)(v >> 64));
}

static void check_dealer_stop(const hj_rules *ru, const hj_round *r)
{
	int soft;
	unsigned t = hj_hand_total(r->dealer, r->dealer_n, &soft);
	/* The dealer drew its last card only while below 17 or on a soft 17
	 * under H17. */
	if (r->dealer_n >= 3) {
		int psoft;
		unsigned pt =
		    hj_hand_total(r->dealer, r->dealer_n - 1u, &psoft);
		assert_true(pt < 17 || (pt == 17 && psoft && ru->h17));
	}
	if (r->dealer_n >= 2)
		assert_true(t > 17 || (t == 17 && !(soft && ru->h17)));
}

/* floor(s * num / den), as the table pays a blackjack. */
static hj_amount ratio(hj_amount s, const hj_rules *ru)
{
	return s / ru->bj_den * ru->bj_num +
	       s % ru->bj_den * ru->bj_num / ru->bj_den;
}

static void check_settlement(const hj_rules *ru, const hj_round *r,
                             const hj_settlement *st)
{
	unsigned dt = hj_hand_total(r->dealer, r->dealer_n, NULL);
	int dbj = hj_hand_blackjack(r->dealer, r->dealer_n);
	int live = 0;
	hj_amount sum = 0, stakes = 0;

	/* A peek that found no blackjack stays right. */
	if (r->peek_clear)
		assert_false(dbj);

	for (int i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];
		unsigned pt = hj_hand_total(h->cards, h->n, NULL);
		hj_amount s = h->stake, ret = st->ret[i];

		stakes += s;
		sum += ret;
		assert_true(s == r->bet || s == 2 * r->bet);
		switch (st->status[i]) {
		case HJ_ST_WIN:
			assert_true(pt <= 21 && (dt > 21 || pt > dt));
			assert_true(ret == 2 * s);
			live = 1;
			break;
		case HJ_ST_PUSH:
			assert_true(
			    (pt == dt && !dbj) ||
			    (dbj && r->nhands == 1 && h->n == 2 && pt == 21));
			assert_true(ret == s);
			live = 1;
			break;
		case HJ_ST_LOSE:
			assert_true(pt < dt || dbj);
			assert_true(ret == 0);
			live |= !(h->flags & HJ_HF_SURRENDER);
			break;
		case HJ_ST_BUST:
			assert_true(pt > 21 && ret == 0);
			break;
		case HJ_ST_BLACKJACK:
			assert_true(h->n == 2 && pt == 21);
			assert_true(r->nhands == 1 || ru->split21_bj);
			assert_false(dbj);
			assert_true(ret == s + ratio(s, ru));
			break;
		case HJ_ST_SURRENDER:
			assert_true(h->flags & HJ_HF_SURRENDER);
			assert_true(ret == s / 2 && !dbj);
			break;
		case HJ_ST_DEALER_BJ:
			assert_true(dbj && hj_rank_value(hj_code_rank(
			                       r->dealer[0])) == 10);
			assert_true(ru->peek == HJ_PEEK_ACE);
			assert_true(ret == (i == 0 ? s - r->bet : s));
			break;
		default:
			fail_msg("hand %d has no status", i);
		}
	}
	if (st->status[0] == HJ_ST_DEALER_BJ)
		assert_true(stakes - (sum) == r->bet);
	if (live && r->dealer_n >= 2 && !dbj)
		check_dealer_stop(ru, r);
	if (r->insured) {
		assert_true(r->insurance == r->bet / 2);
		assert_true(st->ins_ret == (dbj ? 3 * r->insurance : 0));
		stakes += r->insurance;
		sum += st->ins_ret;
	} else {
		assert_true(st->ins_ret == 0);
	}
	assert_true(stakes == st->total_stake);
	assert_true(sum == st->total_ret);
}

/* The side bets against the round's first three cards (docs/PROTOCOL.md
 * section 7.2). */
static void check_sides(const hj_rules *ru, const hj_round *r,
                        const hj_side_settlement *s)
{
	const uint8_t *c = r->hands[0].cards;

	assert_true(r->nhands == 1 && r->hands[0].n == 2 && r->dealer_n == 1);
	assert_true(r->side_pp || r->side_t3);
	if (r->side_pp) {
		assert_int_equal(s->pp, hj_perfect_pairs(c[0], c[1]));
		assert_true(
		    s->pp_ret ==
		    (s->pp == HJ_SB_LOST
		         ? 0
		         : r->side_pp *
		               (1 + ru->pp[s->pp - HJ_SB_PERFECT_PAIR])));
	} else {
		assert_true(s->pp == HJ_SB_NONE && s->pp_ret == 0);
	}
	if (r->side_t3) {
		assert_int_equal(
		    s->t3, hj_twenty_one_plus_three(c[0], c[1], r->dealer[0]));
		assert_true(
		    s->t3_ret ==
		    (s->t3 == HJ_SB_LOST
		         ? 0
		         : r->side_t3 *
		               (1 + ru->t3[s->t3 - HJ_SB_SUITED_TRIPS])));
	} else {
		assert_true(s->t3 == HJ_SB_NONE && s->t3_ret == 0);
	}
}

static void on_event(void *ctx, const hj_event *e)
{
	struct tally *t = ctx;
	int p = e->round ? e->round->player.b[0]
	                 : (e->tx ? e->tx->sender.b[0] : -1);

	mix(&t->digest, e->type);
	mix(&t->digest, (uint64_t)e->act);
	mix(&t->digest, (uint64_t)e->hand);
	mix(&t->digest, e->card);
	mix(&t->digest, e->reason);
	mix_amount(&t->digest, e->amount);
	if (e->round) {
		mix(&t->digest, e->round->seq);
		mix(&t->digest, e->round->window_open);
	}
	if (p >= 0 && p < NPLAYERS && t->judged[p] && e->tx &&
	    e->tx->act != HJ_BET &&
	    (e->type == HJ_EV_ACTION || e->type == HJ_EV_REJECT)) {
		if ((e->type == HJ_EV_ACTION) != t->listed[p])
			fail_msg("block %" PRIu64 ": %s %s by player %d: "
			         "nextActions said %s",
			         t->height, hj_act_name(e->tx->act),
			         e->type == HJ_EV_ACTION ? "accepted"
			                                 : "rejected",
			         p, t->listed[p] ? "listed" : "not listed");
		t->judged[p] = 0;
		t->next_checked++;
	}
	switch (e->type) {
	case HJ_EV_ACTION:
		t->staked += e->amount;
		t->round_stake[p] += e->amount;
		t->actions++;
		t->by_act[e->act]++;
		if (e->act == HJ_BET) {
			const hj_round *r = e->round;
			assert_false(t->open[p]);
			assert_true(e->amount == r->bet);
			assert_true(e->tx->value ==
			            r->bet + r->side_pp + r->side_t3);
			t->staked += r->side_pp + r->side_t3;
			t->open[p] = 1;
			t->opened_at[p] = t->height;
			t->exposure += hj_rules_worst_return(
			    t->ru, r->bet, r->side_pp, r->side_t3);
			assert_true(t->exposure <= t->ru->max_exposure);
		}
		break;
	case HJ_EV_REJECT:
		assert_true(e->amount == e->tx->value);
		t->refunded += e->amount;
		t->rejected++;
		if (e->reason == HJ_R_EXPOSURE) {
			hj_amount main =
			    e->amount - e->tx->side_pp - e->tx->side_t3;
			assert_true(e->act == HJ_BET && !e->round);
			assert_true(main >= MIN_BET && main <= MAX_BET);
			assert_true(t->exposure +
			                hj_rules_worst_return(t->ru, main,
			                                      e->tx->side_pp,
			                                      e->tx->side_t3) >
			            t->ru->max_exposure);
			t->over_exposure++;
		}
		break;
	case HJ_EV_COMMIT:
		fail_msg("a Commit under cards = hash");
		break;
	case HJ_EV_DEPOSIT:
		t->deposited += e->tx->value;
		break;
	case HJ_EV_IGNORED:
		t->failed += e->tx->value;
		break;
	case HJ_EV_TIMEOUT:
		t->timeouts++;
		break;
	case HJ_EV_SETTLE: {
		const hj_round *r = e->round;
		hj_amount worst = hj_rules_worst_return(t->ru, r->bet,
		                                        r->side_pp, r->side_t3);
		assert_true(t->open[p]);
		check_settlement(t->ru, r, e->settle);
		for (int i = 0; i < r->nhands; i++)
			t->by_status[e->settle->status[i]]++;
		t->ins_won += e->settle->ins_ret > 0;
		assert_true(t->round_stake[p] == e->settle->total_stake);
		assert_true(e->settle->total_ret + t->side_ret[p] <= worst);
		t->worst_reached +=
		    !r->side_pp && !r->side_t3 && e->settle->total_ret == worst;
		t->exposure -= worst;
		mix_amount(&t->digest, e->settle->total_ret);
		t->round_stake[p] = 0;
		t->side_ret[p] = 0;
		t->open[p] = 0;
		t->settled++;
		break;
	}
	case HJ_EV_SIDE:
		check_sides(t->ru, e->round, e->side);
		t->side_ret[p] = e->side->pp_ret + e->side->t3_ret;
		t->by_side[e->side->pp]++;
		t->by_side[e->side->t3]++;
		mix_amount(&t->digest, t->side_ret[p]);
		break;
	case HJ_EV_SKIP:
		/* Only the dealer's second card after a clear peek. */
		assert_true(e->round->peek_clear && e->round->dealer_n == 1);
		t->skips++;
		break;
	case HJ_EV_PEEK:
		assert_true(e->round->dealer_n == (e->dealer_bj ? 2 : 1));
		t->peeks_clear += !e->dealer_bj;
		break;
	case HJ_EV_DRAW:
		break;
	}
}

static void on_shadow(void *ctx, const hj_event *e)
{
	uint64_t *d = ctx;
	mix(d, e->type);
	mix(d, (uint64_t)e->act);
	mix(d, (uint64_t)e->hand);
	mix(d, e->card);
	mix(d, e->reason);
	mix_amount(d, e->amount);
	if (e->round) {
		mix(d, e->round->seq);
		mix(d, e->round->window_open);
	}
	if (e->type == HJ_EV_SETTLE)
		mix_amount(d, e->settle->total_ret);
	if (e->type == HJ_EV_SIDE)
		mix_amount(d, e->side->pp_ret + e->side->t3_ret);
}

/* A plausible action for the player's open round, or a random one. */
static hj_action random_tx(const hj_round *r, int p, int betting)
{
	hj_action a;
	unsigned dice = below(100);

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_ACTION;
	a.sender.len = 20;
	a.sender.b[0] = (uint8_t)p;
	if (dice < 3) {
		a.kind = HJ_TX_DEPOSIT;
		a.value = below(1000);
		return a;
	}
	if (dice < 5) {
		a.kind = HJ_TX_FAILED;
		a.value = below(1000);
		return a;
	}
	if (dice < 8) {
		a.kind = HJ_TX_MALFORMED;
		a.act = (hj_act)below(8);
		a.reason = (hj_reason)(HJ_R_TRUNCATED + below(6));
		a.value = below(1000);
		return a;
	}
	if (!r) {
		a.act = betting || dice < 20 ? HJ_BET : (hj_act)(2 + below(6));
		if (a.act == HJ_BET) {
			a.value = dice < 12 ? below(MAX_BET * 2)
			                    : MIN_BET + below(5000);
			/* Side stakes, now and then above the main stake;
			 * large ones with large Bets, so that max_exposure
			 * (one max_bet Bet with side stakes of max_bet)
			 * is reached. */
			if (dice < 12 && below(2)) {
				a.side_pp = a.side_t3 = (uint64_t)a.value;
			} else {
				if (below(3) == 0)
					a.side_pp = below(4) ? below(600) : 0;
				if (below(3) == 0)
					a.side_t3 = below(4) ? below(600) : 0;
			}
			a.value += a.side_pp + a.side_t3;
		}
		return a;
	}
	if (dice < 75) {
		int hi = hj_round_active_hand(r);
		hj_amount stake = hi >= 0 ? r->hands[hi].stake : r->bet;
		a.act =
		    r->peek_due && dice < 60 ? HJ_PEEK : (hj_act)(2 + below(5));
		if (a.act == HJ_PEEK) {
			a.insurance = (uint8_t)below(2);
			a.value = a.insurance ? r->bet / 2 : 0;
		} else if (a.act == HJ_DOUBLE || a.act == HJ_SPLIT) {
			a.value = stake;
		}
		if (dice > 72)
			a.value += 1; /* wrong value now and then */
	} else {
		a.act = (hj_act)(1 + below(7));
		a.value = below(3) == 0 ? r->bet : below(3);
		a.insurance = (uint8_t)below(3);
	}
	return a;
}

static void run(const char *preset, unsigned long want, uint64_t seed)
{
	hj_rules ru;
	struct tally t;
	uint64_t shadow_digest = 0;
	hj_action txs[NPLAYERS + 2];
	uint8_t enc[HJ_ROUND_ENCODED_MAX];
	int betting = 1;

	assert_int_equal(hj_rules_preset(preset, &ru), 0);
	assert_int_equal(
	    hj_rules_set_key(&ru, "perfect_pairs", "25,12,5", NULL, 0), 0);
	assert_int_equal(hj_rules_set_key(&ru, "twenty_one_plus_three",
	                                  "100,40,30,10,5", NULL, 0),
	                 0);
	ru.min_bet = MIN_BET;
	ru.max_bet = MAX_BET;
	ru.timeout_blocks = TIMEOUT;
	ru.max_exposure = hj_rules_worst_max_bet(&ru) + EXPOSURE_ROOM;
	assert_int_equal(hj_rules_check(&ru, NULL, 0), 0);
	hj_table *live;
	assert_int_equal(hj_table_new(&ru, &live), 0);
	memset(&t, 0, sizeof t);
	t.ru = &ru;
	rng_state = seed ? seed : 1;

	for (uint64_t h = 1;; h++) {
		size_t n = 0;
		hj_card c = {0};

		if (t.settled >= want)
			betting = 0;
		if (!betting && hj_table_count(live) == 0)
			break;
		/* No round waits more than its timeouts allow: at most ~40
		 * decisions (Bet, Peek, hits to 21) each bounded by the
		 * timeout, plus the draws. */
		assert_true(h < 200000000);
		for (size_t i = 0; i < hj_table_count(live); i++) {
			const hj_round *r = hj_table_round(live, i);
			assert_true(h - r->bet_height < 60 * (TIMEOUT + 40));
		}

		if (below(50) != 0) {
			c.rank = (uint8_t)(1 + below(13));
			c.suit = (uint8_t)below(4);
		} else {
			t.voids++;
		}
		for (int p = 0; p < NPLAYERS; p++) {
			const hj_round *r = NULL;
			for (size_t i = 0; i < hj_table_count(live); i++)
				if (hj_table_round(live, i)->player.b[0] == p)
					r = hj_table_round(live, i);
			if (below(100) < (r ? 35u : (betting ? 40u : 1u))) {
				txs[n] = random_tx(r, p, betting);
				if (!betting && txs[n].act == HJ_BET)
					txs[n].kind = HJ_TX_DEPOSIT;
				txs[n].tx_index = (uint32_t)n;
				txs[n].txid.len = 32;
				memcpy(txs[n].txid.b, &h, sizeof h);
				txs[n].txid.b[8] = (uint8_t)n;
				t.sent += txs[n].value;
				n++;
			}
		}

		/* Shadow: a fresh table from the encoded rounds. */
		hj_table *shadow;
		assert_int_equal(hj_table_new(&ru, &shadow), 0);
		for (size_t i = 0; i < hj_table_count(live); i++) {
			hj_round back;
			size_t len =
			    hj_round_encode(hj_table_round(live, i), enc);
			char err[HJ_ERRLEN];
			if (hj_round_decode(enc, len, &back, err, sizeof err))
				fail_msg("block %" PRIu64
				         ": an open round does "
				         "not decode: %s",
				         h, err);
			uint8_t enc2[HJ_ROUND_ENCODED_MAX];
			assert_int_equal(hj_round_encode(&back, enc2), len);
			assert_memory_equal(enc, enc2, len);
			assert_int_equal(hj_table_restore(shadow, &back), 0);
		}
		if (h > 1)
			hj_table_set_last_height(shadow, h - 1);

		/* What nextActions says of each player's action, from the
		 * state after the last block: a round waiting for an action
		 * takes no card in this block, so that state is the one its
		 * action meets. */
		memset(t.judged, 0, sizeof t.judged);
		for (size_t k = 0; k < n; k++) {
			const hj_action *x = &txs[k];
			int p = x->sender.b[0];
			const hj_round *r = NULL;
			hj_next nx;

			if (x->kind != HJ_TX_ACTION || x->act == HJ_BET)
				continue;
			for (size_t i = 0; i < hj_table_count(live); i++)
				if (hj_table_round(live, i)->player.b[0] == p)
					r = hj_table_round(live, i);
			if (!r)
				continue;
			hj_next_actions(&ru, r, &nx);
			t.judged[p] = 1;
			t.listed[p] = 0;
			if (hj_round_waiting(r))
				assert_true(nx.n > 0);
			else
				assert_true(nx.n == 0);
			if (!hj_round_waiting(r) || h < r->window_open)
				continue;
			assert_true(nx.window_open == r->window_open &&
			            nx.timeout_at ==
			                r->window_open + ru.timeout_blocks);
			for (size_t i = 0; i < nx.n; i++)
				if (nx.a[i].act == x->act &&
				    (x->act != HJ_PEEK ||
				     nx.a[i].insurance == !!x->insurance) &&
				    nx.a[i].value == x->value)
					t.listed[p] = 1;
			t.next_listed += t.listed[p];
		}
		t.height = h;
		assert_int_equal(
		    hj_table_apply_block(live, h, &c, txs, n, on_event, &t), 0);
		for (int p = 0; p < NPLAYERS; p++)
			assert_false(t.judged[p]); /* every judged action met */
		assert_int_equal(hj_table_apply_block(shadow, h, &c, txs, n,
		                                      on_shadow,
		                                      &shadow_digest),
		                 0);
		assert_true(shadow_digest == t.digest);
		assert_true(hj_table_exposure(live) == t.exposure);
		assert_true(hj_table_exposure(shadow) == t.exposure);
		hj_table_free(shadow);
	}
	assert_true(hj_table_exposure(live) == 0);
	hj_table_free(live);

	assert_true(t.sent == t.staked + t.refunded + t.deposited + t.failed);
	for (int p = 0; p < NPLAYERS; p++)
		assert_false(t.open[p]);
	assert_true(t.settled >= want);
	assert_true(t.timeouts > 0 && t.rejected > 0 && t.voids > 0);
	/* The walk must reach every action and every result the rules
	 * allow, or it proves little. */
	for (int i = HJ_BET; i <= HJ_PEEK; i++)
		assert_true(
		    t.by_act[i] > 0 ||
		    (i == HJ_PEEK && ru.peek == HJ_PEEK_NONE) ||
		    (i == HJ_SURRENDER && ru.surrender == HJ_SURRENDER_NONE));
	for (int i = HJ_ST_BLACKJACK; i <= HJ_ST_DEALER_BJ; i++)
		assert_true(t.by_status[i] > 0 ||
		            (i == HJ_ST_DEALER_BJ && ru.peek != HJ_PEEK_ACE) ||
		            (i == HJ_ST_SURRENDER &&
		             ru.surrender == HJ_SURRENDER_NONE));
	for (int i = HJ_SB_LOST; i < HJ_SB_COUNT; i++)
		assert_true(t.by_side[i] > 0);
	assert_true(t.ins_won > 0 || ru.peek == HJ_PEEK_NONE);
	assert_true(t.skips > 0 || ru.peek == HJ_PEEK_NONE);
	assert_true(t.exposure == 0);
	assert_true(t.over_exposure > 0);
	/* bethash's 4 * bet: a won double or two won split hands. */
	assert_true(t.worst_reached > 0 || strcmp(preset, "bethash") != 0);
	printf("property %s: accepted", preset);
	for (int i = HJ_BET; i <= HJ_PEEK; i++)
		printf(" %s %lu", hj_act_name(i), t.by_act[i]);
	printf("\nproperty %s: hands", preset);
	for (int i = HJ_ST_BLACKJACK; i <= HJ_ST_DEALER_BJ; i++)
		printf(" %s %lu", hj_status_name(i), t.by_status[i]);
	printf(", insurance won %lu\nproperty %s: side bets", t.ins_won,
	       preset);
	for (int i = HJ_SB_LOST; i < HJ_SB_COUNT; i++)
		printf(" %s %lu", hj_side_name(i), t.by_side[i]);
	printf("\nproperty %s: %lu clear peeks, %lu blocks skipped for a "
	       "dealer's second card\n",
	       preset, t.peeks_clear, t.skips);
	assert_true(t.next_listed > 0 && t.next_checked > t.next_listed);
	printf("property %s: nextActions checked against %lu actions, %lu of "
	       "them listed and accepted\n",
	       preset, t.next_checked, t.next_listed);
	printf("property %s: %lu Bets refused over_exposure, %lu rounds "
	       "returned their worst case\n",
	       preset, t.over_exposure, t.worst_reached);
	printf("property %s: seed %llu, %lu rounds settled, %lu actions, "
	       "%lu rejections, %lu timeouts, %lu void blocks\n",
	       preset, (unsigned long long)seed, t.settled, t.actions,
	       t.rejected, t.timeouts, t.voids);
}

static unsigned long rounds_wanted(void)
{
	const char *n = getenv("HJ_PROPERTY_ROUNDS");
	return n ? strtoul(n, NULL, 10) : 500000ul;
}

static uint64_t seed_given(void)
{
	const char *s = getenv("HJ_PROPERTY_SEED");
	return s ? strtoull(s, NULL, 10) : 20261121ull;
}

static void test_random_rounds_bethash(void **state)
{
	(void)state;
	run("bethash", rounds_wanted(), seed_given());
}

static void test_random_rounds_annakai(void **state)
{
	(void)state;
	run("annakai", rounds_wanted(), seed_given());
}

static void test_random_rounds_cryptogames(void **state)
{
	(void)state;
	run("cryptogames", rounds_wanted(), seed_given());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_rounds_bethash),
	    cmocka_unit_test(test_random_rounds_annakai),
	    cmocka_unit_test(test_random_rounds_cryptogames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
