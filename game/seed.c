/* Committed cards (see seed.h). */
#include "seed.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"
#include "sha256.h"

int hj_commits_reserve(hj_commits *s, size_t more)
{
	size_t cap = s->cap ? s->cap : 4;
	hj_commit *v;

	if (s->n + more <= s->cap)
		return 0;
	while (cap < s->n + more)
		cap *= 2;
	v = realloc(s->v, cap * sizeof *v);
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	return 0;
}

int hj_commits_add(hj_commits *s, const hj_commit *c)
{
	int rc = hj_commits_reserve(s, 1);

	if (rc)
		return rc;
	s->v[s->n++] = *c;
	return 0;
}

const hj_commit *hj_commits_at(const hj_commits *s, uint64_t height)
{
	const hj_commit *best = NULL;

	/* In arrival order: a later one with the same H wins. */
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].start <= height &&
		    (!best || s->v[i].start >= best->start))
			best = &s->v[i];
	return best;
}

void hj_commits_prune(hj_commits *s, uint64_t next)
{
	const hj_commit *in = hj_commits_at(s, next);
	size_t w = 0;

	if (!in)
		return;
	/* Every block from next on has a chain in force whose H is at least
	 * this one's: what starts before it, or at it but came earlier, is
	 * done. */
	for (size_t i = 0; i < s->n; i++)
		if (&s->v[i] == in || s->v[i].start > in->start)
			s->v[w++] = s->v[i];
	s->n = w;
}

void hj_commits_free(hj_commits *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

uint32_t hj_commit_index(const hj_commit *c, uint64_t height)
{
	if (height < c->start || height - c->start >= c->length)
		return 0;
	return (uint32_t)(height - c->start + 1);
}

int hj_commit_same(const hj_commit *a, const hj_commit *b)
{
	return a->height == b->height && a->tx_index == b->tx_index &&
	       hj_id_eq(&a->txid, &b->txid);
}

void hj_seed_prev(const uint8_t s[HJ_SEED_LEN], uint8_t out[HJ_SEED_LEN])
{
	hj_sha256(s, HJ_SEED_LEN, out);
}

void hj_seed_card(const uint8_t seed[HJ_SEED_LEN], const uint8_t hash[32],
                  char hmac_hex[65], hj_card *card)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t mac[HJ_SHA256_LEN];

	hj_hmac_sha256(seed, HJ_SEED_LEN, hash, 32, mac);
	for (int i = 0; i < HJ_SHA256_LEN; i++) {
		hmac_hex[2 * i] = digits[mac[i] >> 4];
		hmac_hex[2 * i + 1] = digits[mac[i] & 15];
	}
	hmac_hex[64] = 0;
	/* 64 hex digits: never refused. */
	hj_card_from_hash(hmac_hex, 64, card, NULL, 0);
}

int hj_reveal_check(hj_reveal *r, const hj_commit *c, uint32_t i,
                    const uint8_t seed[HJ_SEED_LEN], char *err, size_t errlen)
{
	uint8_t s[HJ_SEED_LEN];
	const uint8_t *base;
	uint32_t from;

	if (i == 0 || i > c->length) {
		hj_say(err, errlen,
		       "seed %" PRIu32 " is outside the chain's 1..%" PRIu32, i,
		       c->length);
		return -EINVAL;
	}
	if (r->have && hj_commit_same(&r->c, c)) {
		from = r->index;
		base = r->seed;
	} else {
		from = 0;
		base = c->commitment;
	}
	if (i <= from) {
		hj_say(err, errlen,
		       "seed %" PRIu32 " comes after seed %" PRIu32
		       " of the same chain",
		       i, from);
		return -EINVAL;
	}
	memcpy(s, seed, sizeof s);
	for (uint32_t k = from; k < i; k++)
		hj_seed_prev(s, s);
	if (memcmp(s, base, sizeof s) != 0) {
		if (i - from == 1)
			hj_say(err, errlen,
			       "SHA-256 of seed %" PRIu32 " is not %s", i,
			       from ? "the seed before it" : "the commitment");
		else
			hj_say(err, errlen,
			       "seed %" PRIu32 " hashed %" PRIu32
			       " times is not %s",
			       i, i - from,
			       from ? "the last seed checked"
			            : "the commitment");
		return -EINVAL;
	}
	r->have = 1;
	r->c = *c;
	r->index = i;
	memcpy(r->seed, seed, sizeof r->seed);
	return 0;
}
