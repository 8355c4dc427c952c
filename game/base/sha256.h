/*
 * SHA-256 (FIPS 180-4, section 6.2), Bitcoin's double SHA-256 (the hash
 * behind transaction ids and block hashes on the Bitcoin family) and
 * HMAC-SHA256 (the keyed card of docs/PROTOCOL.md, committed cards).
 *
 * Portable C with no allocation: the state is a plain struct the caller
 * owns (on the stack is fine), fed in pieces of any size.  Digests are the
 * 32 bytes FIPS 180-4 defines, in that order; Bitcoin's display order (byte
 * reversed) is the caller's business (chain/btc_tx.h).
 */
#ifndef HJ_SHA256_H
#define HJ_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HJ_SHA256_LEN 32 /* digest bytes */

/* Private fields; use the functions below. */
typedef struct hj_sha256_ctx {
	uint32_t h[8];     /* chaining value */
	uint64_t bytes;    /* message bytes hashed so far */
	uint8_t block[64]; /* partial block */
	size_t fill;       /* bytes waiting in block, 0..63 */
} hj_sha256_ctx;

/* Starts a new hash in c. */
void hj_sha256_init(hj_sha256_ctx *c);

/* Hashes data[0..len); data may be NULL when len is 0. */
void hj_sha256_update(hj_sha256_ctx *c, const void *data, size_t len);

/*
 * Pads, writes the digest to out and wipes c, which must be initialised
 * again before reuse.  Messages of 2^61 bytes or more are not supported
 * (FIPS 180-4 caps the bit length at 2^64 - 1).
 */
void hj_sha256_final(hj_sha256_ctx *c, uint8_t out[HJ_SHA256_LEN]);

/* out = SHA-256(data[0..len)). */
void hj_sha256(const void *data, size_t len, uint8_t out[HJ_SHA256_LEN]);

/* out = SHA-256(SHA-256(data[0..len))), Bitcoin's "hash256". */
void hj_sha256d(const void *data, size_t len, uint8_t out[HJ_SHA256_LEN]);

/*
 * out = HMAC-SHA256(key[0..klen), msg[0..mlen)) (RFC 2104 with SHA-256,
 * FIPS 198-1): a key longer than 64 bytes is hashed first.
 */
void hj_hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen,
                    uint8_t out[HJ_SHA256_LEN]);

/*
 * Finishes c and hashes its digest once more: init, update in pieces, then
 * this gives the double SHA-256 of a message fed in parts.
 */
void hj_sha256d_final(hj_sha256_ctx *c, uint8_t out[HJ_SHA256_LEN]);

#endif
