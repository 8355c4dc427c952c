/*
 * `hashjack verify`: a dealer's block-to-card log checked against one's own
 * node, line by line, through the dealer's own per-block step (docs/CLI.md).
 */
#ifndef HJC_VERIFY_H
#define HJC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "seed.h"

/* Runs `hashjack verify ARGS...` (argv after "verify").  Returns a
 * sysexits(3) code, or 1 when a line differs. */
int hjc_verify_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hjc_verify_help(void);

/* What differs between a dealer's line (theirs, tn bytes) and the
 * protocol's (ours), in words, into buf (n > 0): the first JSON path where
 * they part with the dealer's value there and the protocol's ("events[1].
 * payout: the dealer's \"1\", the protocol's \"0\""), or why they cannot
 * be compared so.  Any bytes for theirs. */
void hjc_verify_describe(const char *theirs, size_t tn, const char *ours,
                         size_t on, char *buf, size_t n);

/*
 * The seed a dealer's line (line, len bytes, any bytes) reveals for block
 * `height`, which the protocol deals with seed i of chain c (committed
 * cards, docs/PROTOCOL.md section 15), checked with one hash against the
 * seed before it that rv has seen (rv starts zeroed and is kept across
 * blocks; a first seed is walked down to c's commitment).
 *
 * Returns 0 with the seed in out; or, with what is wrong in words in what
 * (n > 0), in verify's report style ("seed: ..."):
 *   -ENOENT   the line has no "seed" (or is no JSON object);
 *   -EBADMSG  its "seed" is not 32 bytes of hex;
 *   -EINVAL   the seed does not chain (hj_reveal_check's words, with the
 *             blocks the seeds belong to): out still gets the dealer's
 *             seed, to deal the rest of the line as the dealer did; rv
 *             is unchanged, so the next seed is checked against the last
 *             one that chained (one wrong seed is one failure; every seed
 *             of a chain that is not the committed one fails).
 */
int hjc_verify_seed(hj_reveal *rv, const char *line, size_t len,
                    const hj_commit *c, uint32_t i, uint64_t height,
                    uint8_t out[HJ_SEED_LEN], char *what, size_t n);

#endif
