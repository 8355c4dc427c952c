/*
 * The dealer's seed chains (docs/PROTOCOL.md section 15, docs/FAIRNESS.md):
 * the secret s_L of each chain hashjackd committed to, kept in the state
 * directory as carefully as the dealer key, and the seeds revealed from it
 * in bounded time and memory.
 *
 * The file.  <state>/seeds/<commitment>, the commitment s_0 in 64
 * lower-case hex digits; mode 0600 in a directory of mode 0700, written
 * under a temporary name, synced, then renamed, so that a file under its
 * final name is whole.  Its text, three lines:
 *
 *   # hashjack seed chain: secret, keep it private and backed up
 *   length L
 *   seed <s_L: 64 lower-case hex digits>
 *
 * L is 1 .. HJD_SEEDS_MAX.  The file's name is checked against its
 * contents when it is opened: s_L hashed L times must be the commitment.
 * Nothing here logs a seed, and every buffer that held s_L is wiped.
 *
 * Revealing.  A chain keeps every K-th seed, K about sqrt(L) (its
 * checkpoints); s_i is computed from the checkpoint above it, and the K
 * seeds of the segment it lies in are kept, so a walk forwards through the
 * chain (what dealing does) costs one hash per seed on average and memory
 * of 2 sqrt(L) seeds.  The checkpoints come from one walk of the chain (L
 * SHA-256) when it is made; they are kept in <commitment>.marks beside its
 * file (as secret, with a digest of its bytes), so that opening reads them
 * and checks both ends (the last is s_L, the first hashes down to the
 * commitment: K hashes) instead of walking again; a missing or damaged
 * marks file only costs that walk, and is written again.
 */
#ifndef HJD_SEEDCHAIN_H
#define HJD_SEEDCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "seed.h"

/* The longest chain a file may hold: making it walks it once (about 0.3 s
 * per million hashes on the test machine, bench/bench_seeds.c). */
#define HJD_SEEDS_MAX 100000000u
/* The text of a seed file, and one more byte to tell a longer file. */
#define HJD_SEEDFILE_TEXT 160

/*
 * Parses a seed file's text[0..n): the three lines above, exactly (a final
 * newline required, nothing after it).  Returns 0 with *length and s_L in
 * seed, or -EINVAL with the reason in err (never quoting the seed).
 */
int hjd_seedfile_parse(const char *text, size_t n, uint32_t *length,
                       uint8_t seed[HJ_SEED_LEN], char *err, size_t errlen);

/* Writes the file's text for (length, seed) into out (HJD_SEEDFILE_TEXT
 * bytes) and returns its length. */
size_t hjd_seedfile_format(uint32_t length, const uint8_t seed[HJ_SEED_LEN],
                           char out[HJD_SEEDFILE_TEXT]);

/*
 * Draws a new chain of `length` seeds from getrandom(2) and writes its file
 * in dir/seeds (made, mode 0700, when missing); commitment gets s_0.
 * Returns 0, or a negative errno with err naming the file and the step.
 */
int hjd_seedchain_create(const char *dir, uint32_t length,
                         uint8_t commitment[HJ_SEED_LEN], char *err,
                         size_t errlen);

typedef struct hjd_seedchain hjd_seedchain;

/*
 * Opens the chain whose commitment is `commitment` in dir/seeds and checks
 * it: the file's mode (as the dealer key's), its text, its length against
 * `length` (the Commit's L), and that it hashes down to the commitment.
 * Returns 0 with *out, or a negative errno with err: -ENOENT when there is
 * no such file (the chain's secret is lost: docs/FAIRNESS.md says what
 * that costs), -EPERM for a mode others may read, -EINVAL for anything
 * else wrong with it, -ENOMEM.
 */
int hjd_seedchain_open(const char *dir, const uint8_t commitment[HJ_SEED_LEN],
                       uint32_t length, hjd_seedchain **out, char *err,
                       size_t errlen);

/* s_i of the chain, 1 <= i <= L, into out.  Returns 0 or -EINVAL (i out
 * of range). */
int hjd_seedchain_reveal(hjd_seedchain *sc, uint32_t i,
                         uint8_t out[HJ_SEED_LEN]);

/* The chain's commitment and length. */
const uint8_t *hjd_seedchain_commitment(const hjd_seedchain *sc);
uint32_t hjd_seedchain_length(const hjd_seedchain *sc);

/* Wipes and frees; NULL is fine. */
void hjd_seedchain_free(hjd_seedchain *sc);

#endif
