/* The legal moves of a round (next.h). */
#include "next.h"

#include <string.h>

#include "card.h"
#include "hand.h"

static hj_reason legal_double(const hj_rules *ru, const hj_hand *h)
{
	int soft;
	unsigned t = hj_hand_total(h->cards, h->n, &soft);
	int ok = ru->double_on == HJ_DOUBLE_ANY ||
	         (!soft && t <= 11 &&
	          t >= (ru->double_on == HJ_DOUBLE_9_11 ? 9u : 10u));

	if (h->n != 2 || !ok ||
	    ((h->flags & HJ_HF_SPLIT) && !ru->double_after_split))
		return HJ_R_NOT_ALLOWED;
	return HJ_OK;
}

static hj_reason legal_split(const hj_rules *ru, const hj_round *r,
                             const hj_hand *h)
{
	unsigned r0 = hj_code_rank(h->cards[0]);
	unsigned r1 = hj_code_rank(h->cards[1]);
	int pair = ru->split_by_value ? hj_rank_value(r0) == hj_rank_value(r1)
	                              : r0 == r1;

	if (h->n != 2 || !pair || r->nhands >= ru->max_hands ||
	    (r0 == HJ_ACE && !ru->split_aces))
		return HJ_R_NOT_ALLOWED;
	return HJ_OK;
}

int hj_round_no_more_moves(const hj_round *r)
{
	if (r->phase != HJ_PH_DEAL && r->phase != HJ_PH_PLAY)
		return 1;
	/* Under peek = ace_ten the peek card behind a 10 settles a natural,
	 * as the dealer's second card does under ace and none: the natural
	 * waits for no window, in dealer play or not. */
	return r->phase == HJ_PH_PLAY && !r->peek_due && r->npending == 1 &&
	       r->pending[0] == HJ_PEEK_CARD && r->dealer_n == 1 &&
	       hj_rank_value(hj_code_rank(r->dealer[0])) == 10 &&
	       r->nhands == 1 &&
	       hj_hand_blackjack(r->hands[0].cards, r->hands[0].n);
}

hj_reason hj_round_legal(const hj_rules *ru, const hj_round *r, hj_act act,
                         int insurance, hj_amount *need)
{
	const hj_hand *h;
	hj_reason why = HJ_OK;
	int hi;

	*need = 0;
	if (hj_round_no_more_moves(r))
		return HJ_R_NOT_ALLOWED;
	if (!hj_round_waiting(r))
		return HJ_R_PREMATURE;
	if (r->peek_due) {
		if (act != HJ_PEEK)
			return HJ_R_NOT_ALLOWED;
		*need = insurance ? r->bet / 2 : 0;
		return HJ_OK;
	}
	hi = hj_round_active_hand(r);
	if (hi < 0)
		return HJ_R_NOT_ALLOWED;
	h = &r->hands[hi];
	switch (act) {
	case HJ_HIT:
	case HJ_STAND:
		break;
	case HJ_DOUBLE:
		why = legal_double(ru, h);
		*need = h->stake;
		break;
	case HJ_SPLIT:
		why = legal_split(ru, r, h);
		*need = h->stake;
		break;
	case HJ_SURRENDER:
		if (ru->surrender == HJ_SURRENDER_NONE || r->nhands != 1 ||
		    h->n != 2 || r->decisions != 0)
			why = HJ_R_NOT_ALLOWED;
		break;
	default: /* Peek when none is due, or no action */
		why = HJ_R_NOT_ALLOWED;
	}
	if (why != HJ_OK)
		*need = 0;
	return why;
}

void hj_next_actions(const hj_rules *ru, const hj_round *r, hj_next *out)
{
	static const struct {
		hj_act act;
		uint8_t insurance;
	} order[HJ_NEXT_MAX] = {
	    {HJ_SPLIT, 0},     {HJ_HIT, 0},  {HJ_DOUBLE, 0}, {HJ_STAND, 0},
	    {HJ_SURRENDER, 0}, {HJ_PEEK, 0}, {HJ_PEEK, 1},
	};

	memset(out, 0, sizeof *out);
	out->hand = -1;
	for (size_t i = 0; i < HJ_NEXT_MAX; i++) {
		hj_amount need;

		if (hj_round_legal(ru, r, order[i].act, order[i].insurance,
		                   &need) != HJ_OK)
			continue;
		out->a[out->n++] =
		    (hj_next_action){.act = order[i].act,
		                     .insurance = order[i].insurance,
		                     .value = need};
	}
	if (out->n == 0)
		return;
	if (!r->peek_due)
		out->hand = hj_round_active_hand(r);
	out->window_open = r->window_open;
	out->timeout_at = r->window_open + ru->timeout_blocks;
}
