/*
 * Dealing one block: the dealer's single step, shared by hashjackd (whose
 * blocks come from the node) and `hashjack replay` (whose blocks come from
 * a document), so the two can only differ in where their blocks come from.
 *
 * The step derives the block's card from its hash (under cards =
 * committed, from the HMAC of its hash under the seed of the chain in
 * force, docs/PROTOCOL.md section 15), applies the block to
 * the table and writes the block's card log line.  Every event the engine
 * reports goes first to the line, then to the caller's sink, in the order
 * the engine reports them: the daemon records each event's effects in the
 * store (effects.h) from there, the replay passes no sink.
 */
#ifndef HJ_DEAL_H
#define HJ_DEAL_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cardlog.h"
#include "payload.h"
#include "seed.h"
#include "table.h"

/*
 * Deals block *b on t (its height, hashes in display order, and its
 * transactions to the dealer address, normalised, in block order: a
 * backend's block, or one read from a replay document) and formats the
 * block's log line into cl.  The card is derived from b->hash here, so that the
 * line and the engine can never disagree about it.  chain and fam are as for
 * hj_cardlog_begin.  Under cards = committed, seeds (NULL under hash) gives
 * the seed of the chain in force at the block, which the line reveals; a
 * block with no chain in force, or past its chain's last seed, is void.  sink
 * (may be NULL) gets every event after the line has it, with ctx; what it is
 * given is borrowed for the call, as from the engine.
 *
 * Returns 0 with *line, *len borrowed from cl (valid until cl's next use);
 * or, with the reason in err:
 *   -EINVAL  the height does not follow the table's last one, or the chain
 *            name is bad: the table is unchanged;
 *   other    the seed source's error (or -EINVAL without a source under
 *            committed): the table is unchanged;
 *   -ENOMEM  the table is unchanged when the engine reports it, otherwise
 *            (the line could not grow) the table has moved on;
 *   -EMSGSIZE the line exceeds cl->max: the table has moved on.
 * When the line cannot even be started (bad chain name or card, or a limit
 * below the line's header) the table is unchanged, whatever the code.
 * After an error on which the table moved on, the caller must stop: the
 * block is applied but has no line.  A sink has no way to fail the step:
 * it keeps its own error and the caller looks at it afterwards.
 */
int hj_deal_block(hj_table *t, hj_cardlog *cl, const char *chain, hj_family fam,
                  const hj_seed_source *seeds, const hj_chain_block *b,
                  hj_sink sink, void *ctx, const char **line, size_t *len,
                  char *err, size_t errlen);

#endif
