/*
 * `hashjack replay`: the offline verifier.  It reads a document of blocks
 * and their transactions (docs/CLI.md) and writes the block-to-card log the
 * daemon writes for the same blocks (docs/LOG.md), byte for byte.
 *
 * hj_replay_block() is the per-block step both share: it applies one block
 * to the table and formats its log line, so the daemon and the replay can
 * only differ in where their blocks come from.
 */
#ifndef HJ_REPLAY_H
#define HJ_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "action.h"
#include "cardlog.h"
#include "payload.h"
#include "table.h"

/* A block header as the log shows it; hashes in display order (the order of
 * the digits the node prints). */
typedef struct hj_block {
	uint64_t height;
	uint8_t hash[32];
	uint8_t parent[32];
} hj_block;

/*
 * Applies block *b to t with txs[0..ntx) (the block's transactions to the
 * dealer address, normalised, in block order) and formats the block's log
 * line into cl.  The card is derived from b->hash here, so that the line and
 * the engine can never disagree about it.  chain and fam are as for
 * hj_cardlog_begin.
 *
 * Returns 0 with *line, *len borrowed from cl (valid until cl's next use);
 * or, with the reason in err:
 *   -EINVAL  the height does not follow the table's last one, or the chain
 *            name is bad: the table is unchanged;
 *   -ENOMEM  the table is unchanged when the engine reports it, otherwise
 *            (the line could not grow) the table has moved on;
 *   -EMSGSIZE the line exceeds cl->max: the table has moved on.
 * When the line cannot even be started (bad chain name or card, or a limit
 * below the line's header) the table is unchanged, whatever the code.
 * After an error on which the table moved on, the caller must stop: the
 * block is applied but has no line.
 */
int hj_replay_block(hj_table *t, hj_cardlog *cl, const char *chain,
                    hj_family fam, const hj_block *b, const hj_action *txs,
                    size_t ntx, const char **line, size_t *len, char *err,
                    size_t errlen);

/*
 * Reads one replay document from in (name is how messages call it, e.g. the
 * file name or "<stdin>") and writes one log line per block to out, each
 * with a single fwrite.  The whole document is checked before the first
 * line is written, so bad input produces no output.
 *
 * Both families' documents are read: "evm" (transactions as JSON fields)
 * and "bitcoin" (raw transactions, normalised by hj_btc_action as the
 * daemon's backend does, signatures checked by hj_btc_verify).
 *
 * Returns 0, or with a message in err that names the place and the value:
 *   -EINVAL  the document is not valid JSON or not a valid replay document;
 *   -EIO     reading in or writing out failed;
 *   -ENOMEM  out of memory (or, Bitcoin, no secp256k1 context: no
 *            randomness from the kernel to blind it with);
 *   -EMSGSIZE a line above HJ_CARDLOG_MAX (lines before it were written).
 */
int hj_replay_run(FILE *in, const char *name, FILE *out, char *err,
                  size_t errlen);

#endif
