/*
 * The table: every open round of one dealer, advanced one block at a time in
 * the protocol's order (docs/PROTOCOL.md section 4.3): first the draws the
 * block owes (rounds that finish settle), then the block's transactions in
 * block order, then timeouts.  Pure: no I/O, no clock, no chain knowledge.
 * Rounds are kept in the order they were opened, which is also the order
 * their events come in.
 */
#ifndef HJ_TABLE_H
#define HJ_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "card.h"
#include "round.h"
#include "rules.h"

typedef struct hj_table hj_table;

/* Copies *rules (checked by the caller with hj_rules_check).  Returns 0
 * with *out, or -ENOMEM and *out NULL. */
int hj_table_new(const hj_rules *rules, hj_table **out);
void hj_table_free(hj_table *t); /* NULL is fine */

const hj_rules *hj_table_rules(const hj_table *t);

/*
 * Applies block `height` with its card (rank 0: void) and the transactions
 * to the dealer address in block order.  Events go to sink in order.
 * Heights must follow each other: -EINVAL (nothing changed) otherwise.
 * -ENOMEM (nothing changed) when a new round cannot be stored.
 */
int hj_table_apply_block(hj_table *t, uint64_t height, const hj_card *card,
                         const hj_action *txs, size_t ntx, hj_sink sink,
                         void *ctx);

/* Last applied height, and whether any block was applied yet. */
int hj_table_last_height(const hj_table *t, uint64_t *height);
/* Sets the last applied height, for a table restored from a database. */
void hj_table_set_last_height(hj_table *t, uint64_t height);

size_t hj_table_count(const hj_table *t);

/*
 * The table's exposure: the sum of hj_rules_worst_return() over its open
 * rounds (restored ones included), in base units, saturating at
 * HJ_AMOUNT_MAX.  A Bet is accepted only while this plus its own worst case
 * stays within rules.max_exposure (when not 0); a round's share is released
 * when it settles.
 */
hj_amount hj_table_exposure(const hj_table *t);
/* i-th open round in opening order; borrowed until the next change. */
const hj_round *hj_table_round(const hj_table *t, size_t i);

/*
 * Bitcoin family: verifies the signature of an action that names its round
 * by short id (a->has_ref), given the round it names (r->player is the key
 * P, r->seq the count the signature must cover).  Returns 1 when valid.
 * Without a verifier every such action is rejected as bad_signature.
 */
typedef int (*hj_verify_fn)(void *ctx, const hj_round *r, const hj_action *a);
void hj_table_set_verifier(hj_table *t, hj_verify_fn fn, void *ctx);

/*
 * Committed cards (docs/PROTOCOL.md section 15).  The table judges Commits
 * under cards = committed and keeps the valid ones that may still be in
 * force: the chain in force at `height` (the next block's, when asked
 * between blocks), or NULL; the i-th Commit kept, in arrival order (the
 * chain in force, then the scheduled ones), or NULL past the last.
 * Borrowed until the next block.
 */
const hj_commit *hj_table_commit_at(const hj_table *t, uint64_t height);
const hj_commit *hj_table_commit(const hj_table *t, size_t i);
/* Adds a Commit restored from storage, after those already held (in their
 * arrival order), and drops what the last height makes obsolete.  Returns
 * 0 or -ENOMEM. */
int hj_table_restore_commit(hj_table *t, const hj_commit *c);

/* Adds a round restored from storage, after the rounds already held.
 * Returns 0, -EEXIST (the player has an open round) or -ENOMEM. */
int hj_table_restore(hj_table *t, const hj_round *r);

#endif
