/* Keccak-256 (see keccak.h), written from "The Keccak reference" version
 * 3.0, sections 1.2 (Keccak-f) and 5.1 (the sponge and pad10*1). */
#include "keccak.h"

#include <string.h>

/* Round constants of the iota step, RC[ir] (reference, 1.2). */
static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * rho and pi together: walking the 24 lanes other than (0, 0) in the order
 * pi visits them, starting from lane 1, each lane moves to PI[i] rotated by
 * the rho offset ROT[i] of the lane it came from.
 */
static const unsigned ROT[24] = {
    1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
    27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44,
};
static const unsigned PI[24] = {
    10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
    15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1,
};

static uint64_t rol(uint64_t x, unsigned n)
{
	return (x << n) | (x >> (64 - n));
}

/* The 24 rounds of Keccak-f[1600] on a.  theta and chi are written out
 * lane by lane: the x + 1 and x + 4 (mod 5) of the reference, as loops,
 * cost more than the permutation itself. */
static void keccak_f(uint64_t a[25])
{
	uint64_t c0, c1, c2, c3, c4, d0, d1, d2, d3, d4, t;

	for (int r = 0; r < 24; r++) {
		/* theta */
		c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
		c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
		c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
		c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
		c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
		d0 = c4 ^ rol(c1, 1);
		d1 = c0 ^ rol(c2, 1);
		d2 = c1 ^ rol(c3, 1);
		d3 = c2 ^ rol(c4, 1);
		d4 = c3 ^ rol(c0, 1);
		for (int y = 0; y < 25; y += 5) {
			a[y] ^= d0;
			a[y + 1] ^= d1;
			a[y + 2] ^= d2;
			a[y + 3] ^= d3;
			a[y + 4] ^= d4;
		}
		/* rho and pi */
		t = a[1];
		for (int i = 0; i < 24; i++) {
			uint64_t next = a[PI[i]];

			a[PI[i]] = rol(t, ROT[i]);
			t = next;
		}
		/* chi */
		for (int y = 0; y < 25; y += 5) {
			c0 = a[y];
			c1 = a[y + 1];
			c2 = a[y + 2];
			c3 = a[y + 3];
			c4 = a[y + 4];
			a[y] = c0 ^ (~c1 & c2);
			a[y + 1] = c1 ^ (~c2 & c3);
			a[y + 2] = c2 ^ (~c3 & c4);
			a[y + 3] = c3 ^ (~c4 & c0);
			a[y + 4] = c4 ^ (~c0 & c1);
		}
		/* iota */
		a[0] ^= RC[r];
	}
}

/* Lanes are little-endian (reference, 5.1): byte i of a block goes into
 * lane i / 8 at bit 8 (i % 8), whatever the host's byte order. */
static void xor_byte(uint64_t a[25], size_t i, uint8_t b)
{
	a[i / 8] ^= (uint64_t)b << (8 * (i % 8));
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void hj_keccak256_init(hj_keccak_ctx *c)
{
	memset(c, 0, sizeof *c);
}

void hj_keccak256_update(hj_keccak_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	/* Finish a partial block byte by byte. */
	while (len > 0 && c->fill > 0) {
		xor_byte(c->a, c->fill++, *p++);
		len--;
		if (c->fill == HJ_KECCAK256_RATE) {
			keccak_f(c->a);
			c->fill = 0;
		}
	}
	/* Whole blocks, a lane at a time. */
	for (; len >= HJ_KECCAK256_RATE;
	     p += HJ_KECCAK256_RATE, len -= HJ_KECCAK256_RATE) {
		for (int i = 0; i < HJ_KECCAK256_RATE / 8; i++)
			c->a[i] ^= le64(p + 8 * i);
		keccak_f(c->a);
	}
	while (len > 0) {
		xor_byte(c->a, c->fill++, *p++);
		len--;
	}
}

void hj_keccak256_final(hj_keccak_ctx *c, uint8_t out[HJ_KECCAK256_LEN])
{
	/* pad10*1 on whole bytes: a 1 bit right after the message (0x01,
	 * bits are taken least significant first) and a 1 bit at the end of
	 * the block (0x80); both land in one byte 0x81 when fill is 135.
	 * update never leaves fill at 136, so there is always room. */
	xor_byte(c->a, c->fill, 0x01);
	xor_byte(c->a, HJ_KECCAK256_RATE - 1, 0x80);
	keccak_f(c->a);
	for (int i = 0; i < HJ_KECCAK256_LEN; i++)
		out[i] = (uint8_t)(c->a[i / 8] >> (8 * (i % 8)));
	explicit_bzero(c, sizeof *c);
}

void hj_keccak256(const void *data, size_t len, uint8_t out[HJ_KECCAK256_LEN])
{
	hj_keccak_ctx c;

	hj_keccak256_init(&c);
	hj_keccak256_update(&c, data, len);
	hj_keccak256_final(&c, out);
}
