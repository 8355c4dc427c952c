/*
 * Committed cards (docs/PROTOCOL.md section 15): the dealer's seed chain,
 * the Commits that put one in force, and the keyed card of a block.
 *
 * A chain is s_L (secret, random), s_(i-1) = SHA-256(s_i) down to s_0, the
 * commitment a Commit publishes with H (the chain's first block) and L.
 * Block H + i - 1 uses s_i, i = 1 .. L; its card's hex is
 * HMAC-SHA256(s_i, the block hash's 32 bytes), read with the digits of
 * docs/PROTOCOL.md section 2.  Pure: no I/O, no clock.
 */
#ifndef HJ_SEED_H
#define HJ_SEED_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "card.h"

#define HJ_SEED_LEN 32

/* A valid Commit, as the table keeps it. */
typedef struct hj_commit {
	uint64_t start;                  /* H: the chain's first block */
	uint32_t length;                 /* L: its seeds, at least 1 */
	uint8_t commitment[HJ_SEED_LEN]; /* s_0 */
	uint64_t height;                 /* Y: the Commit's block */
	uint32_t tx_index;               /* its place in that block */
	hj_id txid;
} hj_commit;

/*
 * The valid Commits a table has seen that may still be in force, in the
 * order they came (block, then transaction).  The chain in force at block
 * B is, among the Commits of blocks before B, the one with the greatest
 * H <= B, the later of two with the same H.
 */
typedef struct hj_commits {
	hj_commit *v;
	size_t n, cap;
} hj_commits;

/* Room for `more` Commits beyond n.  Returns 0 or -ENOMEM. */
int hj_commits_reserve(hj_commits *s, size_t more);
/* Appends c (room reserved or not).  Returns 0 or -ENOMEM. */
int hj_commits_add(hj_commits *s, const hj_commit *c);
/* The chain in force at `height` among s's, or NULL: the caller keeps
 * only Commits of blocks before it in s. */
const hj_commit *hj_commits_at(const hj_commits *s, uint64_t height);
/* Drops the Commits that can never be in force from block `next` on (an
 * older chain a later H has replaced). */
void hj_commits_prune(hj_commits *s, uint64_t next);
void hj_commits_free(hj_commits *s);

/*
 * Where the dealing step gets the seed of a block (deal.h): hashjackd from
 * its seed chain, a replay or a verify from the seeds a log reveals.
 * Returns 0 with s_i of c in out, or a negative errno with the reason in
 * err (the block cannot be dealt).
 */
typedef struct hj_seed_source {
	int (*seed)(void *ctx, const hj_commit *c, uint32_t i, uint64_t height,
	            uint8_t out[HJ_SEED_LEN], char *err, size_t errlen);
	void *ctx;
} hj_seed_source;

/* Which seed of c block `height` uses: 1 .. L, or 0 when the block is
 * before H or past the chain's last seed. */
uint32_t hj_commit_index(const hj_commit *c, uint64_t height);

/* Whether a and b are the same Commit (block, place, txid). */
int hj_commit_same(const hj_commit *a, const hj_commit *b);

/* out = s_(i-1) = SHA-256(s_i); out may be s. */
void hj_seed_prev(const uint8_t s[HJ_SEED_LEN], uint8_t out[HJ_SEED_LEN]);

/*
 * The keyed card of a block: hmac_hex (65 bytes) gets
 * HMAC-SHA256(seed, hash) as 64 lower-case hex digits and *card its card
 * (rank 0: void), as hj_card_from_hash reads them.
 */
void hj_seed_card(const uint8_t seed[HJ_SEED_LEN], const uint8_t hash[32],
                  char hmac_hex[65], hj_card *card);

/*
 * A watcher's check of the seeds a dealer reveals, one chain after the
 * other, with one hash per block: SHA-256 of a block's seed must be the
 * seed of the block before it under the same chain, or the commitment
 * for the chain's first block.  A first seed seen after a gap (a check
 * that starts mid-chain) is walked down to the last one known, or to the
 * commitment: i - j hashes.
 */
typedef struct hj_reveal {
	int have;       /* a chain is being followed */
	hj_commit c;    /* that chain */
	uint32_t index; /* of the last seed checked; 0: the commitment */
	uint8_t seed[HJ_SEED_LEN];
} hj_reveal;

/*
 * Checks that seed is s_i of chain c, given what r has seen (r starts
 * zeroed; another chain restarts it from c's commitment).  Returns 0 and
 * remembers the seed; or -EINVAL with the reason in err, r unchanged: an
 * index of 0 or past L, an index not after the last one checked, or a seed
 * that does not hash down to the one before it.
 */
int hj_reveal_check(hj_reveal *r, const hj_commit *c, uint32_t i,
                    const uint8_t seed[HJ_SEED_LEN], char *err, size_t errlen);

#endif
