/*
 * hashjackd's committed cards (docs/PROTOCOL.md section 15,
 * docs/OPERATION.md "Committed cards"): which seed chain to commit next and
 * when, and the seeds the dealing step reveals.
 *
 * After each batch of blocks, inside the batch's store transaction
 * (hjd_committer_plan):
 *
 *   - a planned chain whose first block H has come without its Commit
 *     dealt valid is late: it is never used;
 *   - with no chain planned, a new one is needed when no chain is in force
 *     at the next block and none is scheduled (a first start: H = the tip
 *     + [seeds] lead), or when the chain in force has at most [seeds]
 *     renew_before seeds left and none is scheduled after it (H = the
 *     block after its last);
 *   - a new chain's secret is written to its file (daemon/seedchain.h)
 *     first, then its row (planned) is recorded with the batch: a crash
 *     before the commit leaves a file no row names, never a row without
 *     its file.  The payer sends its Commit once the batch is committed,
 *     exactly once like a payout.
 *
 * Dealing a block under a chain asks hjd_committer_source's seed: the
 * chain's file is opened once (and checked against the commitment) and
 * its seeds revealed in order (seedchain.h).  A chain in force whose file
 * is missing stops the daemon with the reason: its seeds cannot be
 * revealed.
 */
#ifndef HJD_COMMITTER_H
#define HJD_COMMITTER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "seed.h"
#include "store.h"
#include "table.h"

typedef struct hjd_committer hjd_committer;

/* cfg and store are borrowed for the committer's life.  Returns 0 with
 * *out, or -ENOMEM. */
int hjd_committer_new(const hj_config *cfg, hj_store *store,
                      hjd_committer **out);
void hjd_committer_free(hjd_committer *c);

/* The seed source hj_deal_block takes. */
const hj_seed_source *hjd_committer_source(hjd_committer *c);

/* A valid Commit was dealt (the effects of its event, in the block's
 * store transaction): a chain of this daemon's is no longer planned. */
int hjd_committer_dealt(hjd_committer *c, const hj_commit *commit, char *err,
                        size_t errlen);

/*
 * After a batch, in its store transaction: next is the next block to deal,
 * tip the node's.  A chain it records is sent by the payer, which the
 * follower kicks after every batch.  Returns 0, or a negative errno with
 * err (fatal).
 */
int hjd_committer_plan(hjd_committer *c, const hj_table *t, uint64_t next,
                       uint64_t tip, char *err, size_t errlen);

/* What metrics and health show. */
typedef struct hjd_seeds_health {
	int in_force;           /* a chain deals the next block */
	uint64_t seeds_left;    /* its seeds for blocks from the next on, plus
	                           every scheduled chain's */
	int planned;            /* a chain of ours waits for its Commit */
	uint64_t planned_start; /* its H */
} hjd_seeds_health;
void hjd_committer_health(const hjd_committer *c, const hj_table *t,
                          uint64_t next, hjd_seeds_health *out);

#endif
