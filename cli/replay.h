/*
 * `hashjack replay`: the offline verifier.  It reads a document of blocks
 * and their transactions (docs/CLI.md) and writes the block-to-card log the
 * daemon writes for the same blocks (docs/LOG.md), byte for byte.
 *
 * Each block is dealt by hj_deal_block (daemon/core/deal.h), the daemon's own
 * per-block step, so the two can only differ in where their blocks come
 * from.
 */
#ifndef HJC_REPLAY_H
#define HJC_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
int hjc_replay_run(FILE *in, const char *name, FILE *out, char *err,
                   size_t errlen);

/*
 * The same blocks, but instead of the log lines, writes the rounds still
 * open after the last block, one JSON object per line in opening order, as
 * hj_roundstate gives them (docs/PROTOCOL.md section 14); nothing when none
 * is open.  *open gets how many, *last the last block's height.  Returns as
 * hjc_replay_run.
 */
int hjc_replay_state(FILE *in, const char *name, FILE *out, size_t *open,
                     uint64_t *last, char *err, size_t errlen);

#endif
