/*
 * Keccak-256 as Ethereum uses it: the Keccak team's submission to the SHA-3
 * competition (rate 1088 bits, capacity 512, 24 rounds of Keccak-f[1600])
 * with its original pad10*1 padding, first padding byte 0x01.  This is NOT
 * FIPS 202 SHA3-256, which pads with 0x06 and gives different digests
 * (Keccak-256("") = c5d24601..., SHA3-256("") = a7ffc6f8...).
 *
 * Portable C with no allocation, shaped like chain/sha256.h: the state is a
 * plain struct the caller owns, fed in pieces of any size.  Cost: one
 * permutation per 136 input bytes plus one for the final block.
 */
#ifndef HJ_KECCAK_H
#define HJ_KECCAK_H

#include <stddef.h>
#include <stdint.h>

#define HJ_KECCAK256_LEN  32  /* digest bytes */
#define HJ_KECCAK256_RATE 136 /* bytes absorbed per permutation */

/* Private fields; use the functions below. */
typedef struct hj_keccak_ctx {
	uint64_t a[25]; /* the state, lane (x, y) at a[x + 5 y] */
	size_t fill;    /* bytes absorbed into the current block, 0..135 */
} hj_keccak_ctx;

/* Starts a new hash in c. */
void hj_keccak256_init(hj_keccak_ctx *c);

/* Absorbs data[0..len); data may be NULL when len is 0.  Any length. */
void hj_keccak256_update(hj_keccak_ctx *c, const void *data, size_t len);

/* Pads, writes the digest to out and wipes c, which must be initialised
 * again before reuse. */
void hj_keccak256_final(hj_keccak_ctx *c, uint8_t out[HJ_KECCAK256_LEN]);

/* out = Keccak-256(data[0..len)). */
void hj_keccak256(const void *data, size_t len, uint8_t out[HJ_KECCAK256_LEN]);

#endif
