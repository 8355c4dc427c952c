/* Hand totals: an ace counts 11 when that does not bust the hand. */
#ifndef HJ_HAND_H
#define HJ_HAND_H

#include <stdint.h>

/*
 * Best total of the cards (card codes, see card.h).  *soft (if not NULL) is
 * set to 1 when an ace is counted as 11 in that total.
 */
unsigned hj_hand_total(const uint8_t *cards, unsigned n, int *soft);

/* A two-card 21: an ace and a 10-valued card. */
int hj_hand_blackjack(const uint8_t *cards, unsigned n);

#endif
