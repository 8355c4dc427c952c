/* SHA-256 (see sha256.h), written from FIPS 180-4 sections 4.1.2, 4.2.2,
 * 5.1.1, 5.3.3 and 6.2. */
#include "sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The first 32 bits of the fractional parts of the square roots of the
 * first 8 primes (FIPS 180-4, 5.3.3). */
static const uint32_t H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One 64-byte block into the chaining value (FIPS 180-4, 6.2.2). */
static void compress(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k;

	for (int t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 =
		    ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 =
		    ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	k = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		              ((e & f) ^ (~e & g)) + K[t] + w[t];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		              ((a & b) ^ (a & c) ^ (b & c));

		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

void hj_sha256_init(hj_sha256_ctx *c)
{
	memcpy(c->h, H0, sizeof c->h);
	c->bytes = 0;
	c->fill = 0;
}

void hj_sha256_update(hj_sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (len == 0)
		return;
	c->bytes += len;
	if (c->fill > 0) {
		size_t take = sizeof c->block - c->fill;

		if (take > len)
			take = len;
		memcpy(c->block + c->fill, p, take);
		c->fill += take;
		p += take;
		len -= take;
		if (c->fill < sizeof c->block)
			return;
		compress(c->h, c->block);
		c->fill = 0;
	}
	for (; len >= sizeof c->block; p += 64, len -= 64)
		compress(c->h, p);
	if (len > 0) {
		memcpy(c->block, p, len);
		c->fill = len;
	}
}

void hj_sha256_final(hj_sha256_ctx *c, uint8_t out[HJ_SHA256_LEN])
{
	uint64_t bits = c->bytes * 8;

	/* 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, the 64-bit length. */
	c->block[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->block + c->fill, 0, sizeof c->block - c->fill);
		compress(c->h, c->block);
		c->fill = 0;
	}
	memset(c->block + c->fill, 0, 56 - c->fill);
	put_be32(c->block + 56, (uint32_t)(bits >> 32));
	put_be32(c->block + 60, (uint32_t)bits);
	compress(c->h, c->block);
	for (int i = 0; i < 8; i++)
		put_be32(out + 4 * i, c->h[i]);
	memset(c, 0, sizeof *c);
}

void hj_sha256(const void *data, size_t len, uint8_t out[HJ_SHA256_LEN])
{
	hj_sha256_ctx c;

	hj_sha256_init(&c);
	hj_sha256_update(&c, data, len);
	hj_sha256_final(&c, out);
}

void hj_sha256d_final(hj_sha256_ctx *c, uint8_t out[HJ_SHA256_LEN])
{
	uint8_t once[HJ_SHA256_LEN];

	hj_sha256_final(c, once);
	hj_sha256(once, sizeof once, out);
}

void hj_sha256d(const void *data, size_t len, uint8_t out[HJ_SHA256_LEN])
{
	hj_sha256_ctx c;

	hj_sha256_init(&c);
	hj_sha256_update(&c, data, len);
	hj_sha256d_final(&c, out);
}

void hj_hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen,
                    uint8_t out[HJ_SHA256_LEN])
{
	uint8_t k[64] = {0}, pad[64], inner[HJ_SHA256_LEN];
	hj_sha256_ctx c;

	if (klen > sizeof k)
		hj_sha256(key, klen, k);
	else if (klen)
		memcpy(k, key, klen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	hj_sha256_init(&c);
	hj_sha256_update(&c, pad, sizeof pad);
	hj_sha256_update(&c, msg, mlen);
	hj_sha256_final(&c, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	hj_sha256_init(&c);
	hj_sha256_update(&c, pad, sizeof pad);
	hj_sha256_update(&c, inner, sizeof inner);
	hj_sha256_final(&c, out);
	explicit_bzero(k, sizeof k);
	explicit_bzero(pad, sizeof pad);
	explicit_bzero(inner, sizeof inner);
}
