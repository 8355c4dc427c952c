#include "hand.h"

#include "card.h"

unsigned hj_hand_total(const uint8_t *cards, unsigned n, int *soft)
{
	unsigned total = 0;
	int ace = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned rank = hj_code_rank(cards[i]);
		total += hj_rank_value(rank);
		ace |= rank == HJ_ACE;
	}
	/* At most one ace can count 11 without busting. */
	int s = ace && total + 10 <= 21;
	if (s)
		total += 10;
	if (soft)
		*soft = s;
	return total;
}

int hj_hand_blackjack(const uint8_t *cards, unsigned n)
{
	return n == 2 && hj_hand_total(cards, n, NULL) == 21;
}
