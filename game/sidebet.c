/* Side bets of docs/PROTOCOL.md section 7.2: Perfect Pairs and 21+3 as pure
 * functions of the cards. */
#include "card.h"
#include "round.h"

/* Clubs and Spades are black, Diamonds and Hearts red. */
static int red(uint8_t code)
{
	unsigned s = hj_code_suit(code);
	return s == HJ_DIAMONDS || s == HJ_HEARTS;
}

hj_side_result hj_perfect_pairs(uint8_t c1, uint8_t c2)
{
	if (hj_code_rank(c1) != hj_code_rank(c2))
		return HJ_SB_LOST;
	if (hj_code_suit(c1) == hj_code_suit(c2))
		return HJ_SB_PERFECT_PAIR;
	return red(c1) == red(c2) ? HJ_SB_COLOURED_PAIR : HJ_SB_MIXED_PAIR;
}

hj_side_result hj_twenty_one_plus_three(uint8_t c1, uint8_t c2, uint8_t up)
{
	unsigned r[3] = {hj_code_rank(c1), hj_code_rank(c2), hj_code_rank(up)};
	int flush = hj_code_suit(c1) == hj_code_suit(c2) &&
	            hj_code_suit(c2) == hj_code_suit(up);
	int trips = r[0] == r[1] && r[1] == r[2];

	/* Sort the three ranks (Ace 1 .. King 13). */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2 - i; j++)
			if (r[j] > r[j + 1]) {
				unsigned x = r[j];
				r[j] = r[j + 1];
				r[j + 1] = x;
			}
	/* Consecutive ranks, the Ace low (A-2-3) or high (Q-K-A), never
	 * both (K-A-2 is no straight). */
	int straight = r[0] + 1 == r[1] && r[1] + 1 == r[2];
	straight |= r[0] == HJ_ACE && r[1] == HJ_QUEEN && r[2] == HJ_KING;

	if (trips)
		return flush ? HJ_SB_SUITED_TRIPS : HJ_SB_THREE_OF_A_KIND;
	if (straight)
		return flush ? HJ_SB_STRAIGHT_FLUSH : HJ_SB_STRAIGHT;
	return flush ? HJ_SB_FLUSH : HJ_SB_LOST;
}
