/* An open round in the words of docs/PROTOCOL.md section 14 (roundstate.h). */
#include "roundstate.h"

#include "amount.h"
#include "card.h"
#include "hand.h"
#include "hex.h"
#include "next.h"

static json_t *id_json(const hj_id *id, hj_family fam)
{
	char hex[2 * sizeof id->b + 3];

	hj_hex_encode(id->b, id->len, fam == HJ_EVM, hex);
	return json_string(hex);
}

static json_t *amount_json(hj_amount v)
{
	char s[HJ_AMOUNT_STRLEN];

	return json_string(hj_amount_format(v, s));
}

/* Sets "cards" and "total" of o; returns o. */
static json_t *put_cards(json_t *o, const uint8_t *cards, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++) {
		char code[4];
		unsigned r = hj_code_rank(cards[i]);

		snprintf(code, sizeof code, "%s%c", hj_rank_name(r),
		         "CDHS"[hj_code_suit(cards[i])]);
		json_array_append_new(a, json_string(code));
	}
	json_object_set_new(o, "cards", a);
	json_object_set_new(o, "total",
	                    json_integer(hj_hand_total(cards, n, NULL)));
	return o;
}

/* A hand of an open round: what has happened to it so far. */
static const char *hand_status(const hj_round *r, int i, int active)
{
	unsigned f = r->hands[i].flags;

	if (f & HJ_HF_BUST)
		return "Bust";
	if (f & HJ_HF_SURRENDER)
		return "Surrender";
	if (f & HJ_HF_DOUBLED)
		return "Double";
	if (f & HJ_HF_DONE)
		return "Stand";
	if (r->phase == HJ_PH_DEAL)
		return "Dealing";
	for (unsigned k = 0; k < r->npending; k++)
		if (r->pending[k] == i)
			return "Drawing";
	return i == active ? "Active" : "Waiting";
}

static json_t *side_json(hj_amount stake, uint8_t result, const uint32_t *pays,
                         unsigned first)
{
	json_t *o = json_object();
	hj_amount ret = 0;

	if (result != HJ_SB_NONE && result != HJ_SB_LOST)
		ret = stake + stake * pays[result - first];
	json_object_set_new(o, "betAmount", amount_json(stake));
	json_object_set_new(o, "status",
	                    json_string(result == HJ_SB_NONE
	                                    ? "pending"
	                                    : hj_side_name(result)));
	json_object_set_new(o, "payout", amount_json(ret));
	return o;
}

/* The state of r; with st, settled by it at block height. */
static json_t *state(const hj_rules *ru, const hj_round *r,
                     const hj_settlement *st, hj_family fam, uint64_t height)
{
	json_t *o = json_object(), *hands = json_array(), *names = json_array();
	json_t *values = json_array(), *due = json_array();
	hj_next nx;
	int active = hj_round_active_hand(r);

	if (o == NULL || hands == NULL || names == NULL || values == NULL ||
	    due == NULL)
		goto oom;
	hj_next_actions(ru, r, &nx);
	if (st) {
		nx.n = 0;
		nx.hand = -1;
	}
	json_object_set_new(o, "round", id_json(&r->id, fam));
	json_object_set_new(o, "player", id_json(&r->player, fam));
	if (nx.hand >= 0)
		json_object_set_new(o, "handIndex", json_integer(nx.hand));
	json_object_set_new(o, "handOwner",
	                    json_string(nx.n > 0 ? "Player" : "Dealer"));
	json_object_set_new(o, "dealerHand",
	                    put_cards(json_object(), r->dealer, r->dealer_n));
	if (r->peek_clear)
		json_object_set_new(o, "peekNoBlackjack", json_true());
	for (int i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];
		json_t *hj = json_object();

		json_object_set_new(hj, "handIndex", json_integer(i));
		put_cards(hj, h->cards, h->n);
		json_object_set_new(hj, "betAmount", amount_json(h->stake));
		json_object_set_new(hj, "isSplit",
		                    json_boolean(h->flags & HJ_HF_SPLIT));
		/* Only when true: a settled hand's status is its result, and
		 * this is what still says it doubled; absent, every other
		 * state keeps its bytes. */
		if (h->flags & HJ_HF_DOUBLED)
			json_object_set_new(hj, "doubled", json_true());
		json_object_set_new(
		    hj, "status",
		    json_string(st ? hj_status_name(st->status[i])
		                   : hand_status(r, i, active)));
		json_object_set_new(hj, "payout",
		                    amount_json(st ? st->ret[i] : 0));
		json_array_append_new(hands, hj);
	}
	json_object_set_new(o, "playerHands", hands);
	hands = NULL;
	if (r->insured) {
		json_t *ins = json_object();
		json_object_set_new(ins, "betAmount",
		                    amount_json(r->insurance));
		if (st)
			json_object_set_new(ins, "payout",
			                    amount_json(st->ins_ret));
		json_object_set_new(o, "insurance", ins);
	}
	if (r->side_pp)
		json_object_set_new(o, "perfectPairs",
		                    side_json(r->side_pp, r->pp_result, ru->pp,
		                              HJ_SB_PERFECT_PAIR));
	if (r->side_t3)
		json_object_set_new(o, "poker",
		                    side_json(r->side_t3, r->t3_result, ru->t3,
		                              HJ_SB_SUITED_TRIPS));
	json_object_set_new(o, "roundEnded", json_boolean(st != NULL));
	if (st)
		json_object_set_new(o, "betAmount",
		                    amount_json(st->total_stake));
	json_object_set_new(o, "payout", amount_json(st ? st->total_ret : 0));
	for (size_t i = 0; i < nx.n; i++) {
		json_t *v = json_object();
		const char *name = hj_act_name(nx.a[i].act);

		/* A name once in nextActions; each value in actionValues. */
		if (i == 0 || nx.a[i - 1].act != nx.a[i].act)
			json_array_append_new(names, json_string(name));
		json_object_set_new(v, "action", json_string(name));
		if (nx.a[i].act == HJ_PEEK)
			json_object_set_new(v, "insurance",
			                    json_boolean(nx.a[i].insurance));
		json_object_set_new(v, "value", amount_json(nx.a[i].value));
		json_array_append_new(values, v);
	}
	json_object_set_new(o, "nextActions", names);
	json_object_set_new(o, "actionValues", values);
	names = values = NULL;
	if (nx.n > 0) {
		json_object_set_new(o, "windowOpen",
		                    json_integer((json_int_t)nx.window_open));
		json_object_set_new(o, "timeoutAt",
		                    json_integer((json_int_t)nx.timeout_at));
	}
	/* Draws still due, one per non-void block from the next one (a
	 * dealer's second card after a clear peek also skips blocks that
	 * would make a blackjack). */
	for (unsigned i = 0; !st && i < r->npending; i++) {
		json_t *d = json_object();
		uint8_t t = r->pending[i];

		json_object_set_new(
		    d, "handOwner",
		    json_string(t == HJ_DEALER || t == HJ_PEEK_CARD
		                    ? "Dealer"
		                    : "Player"));
		if (t == HJ_PEEK_CARD)
			json_object_set_new(d, "peek", json_true());
		else if (t != HJ_DEALER)
			json_object_set_new(d, "handIndex", json_integer(t));
		json_array_append_new(due, d);
	}
	json_object_set_new(o, "drawsDue", due);
	due = NULL;
	if (!st && r->npending)
		json_object_set_new(o, "drawsFrom",
		                    json_integer((json_int_t)height + 1));
	if (fam == HJ_BITCOIN)
		json_object_set_new(o, "seq", json_integer(r->seq));
	json_object_set_new(o, "betHeight",
	                    json_integer((json_int_t)r->bet_height));
	if (st)
		json_object_set_new(o, "settledAt",
		                    json_integer((json_int_t)height));
	return o;
oom:
	json_decref(o);
	json_decref(hands);
	json_decref(names);
	json_decref(values);
	json_decref(due);
	return NULL;
}

json_t *hj_roundstate(const hj_rules *ru, const hj_round *r, hj_family fam,
                      uint64_t height)
{
	return state(ru, r, NULL, fam, height);
}

json_t *hj_roundstate_settled(const hj_rules *ru, const hj_round *r,
                              const hj_settlement *st, hj_family fam,
                              uint64_t height)
{
	return state(ru, r, st, fam, height);
}
