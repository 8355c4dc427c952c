/*
 * What each owed EVM recipient is owed (payout_evm.c, step 3): the sum of
 * its refunds and whether it is owed anything else, from the owed payouts
 * one at a time (hj_store_each_unbatched), so that a recipient owed small
 * refunds alone can wait (docs/PAYOUTS-EVM.md, "Small refunds";
 * payout_policy.h's hjd_evm_held decides).
 *
 * One entry per 20-byte recipient, found through an hj_map; payouts
 * without such a recipient are left out.  The tally is the caller's
 * (embedded, not moved while it holds entries).
 */
#ifndef HJD_PAYOUT_OWED_H
#define HJD_PAYOUT_OWED_H

#include <stddef.h>
#include <stdint.h>

#include "amount.h"
#include "map.h"
#include "store.h"

typedef struct hjd_owed_to {
	uint8_t to[20];
	hj_amount refunds; /* saturating at HJ_AMOUNT_MAX */
	int other;         /* a return, insurance, side bet or sweep is owed */
	uint64_t n;        /* its owed payouts */
} hjd_owed_to;

typedef struct hjd_owed_tally {
	hjd_owed_to *v;
	size_t n, cap;
	hj_map map;
} hjd_owed_tally;

/* An empty tally; nothing allocated yet. */
void hjd_owed_init(hjd_owed_tally *t);
/* Frees it; it is then empty.  NULL is fine. */
void hjd_owed_free(hjd_owed_tally *t);
/* Forgets every entry, keeping the room. */
void hjd_owed_clear(hjd_owed_tally *t);
/* Counts o (an hj_store_each_unbatched callback's payout): 0, or -ENOMEM
 * (the tally is then incomplete: clear it before using it again). */
int hjd_owed_add(hjd_owed_tally *t, const hj_owed_payout *o);
/* The entry of recipient to, or NULL. */
const hjd_owed_to *hjd_owed_find(const hjd_owed_tally *t, const uint8_t to[20]);

#endif
