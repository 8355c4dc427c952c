/*
 * The Bitcoin family's cryptography: bech32/bech32m and segwit addresses
 * (chain/bech32.h), BIP-86 taproot output keys and tr(P) (chain/taproot.h),
 * BIP-340 signatures and the HashJack action signature (chain/btcsig.h).
 *
 * Every vector below is copied verbatim from the BIP that defines it, in the
 * bitcoin/bips repository:
 *   - bip-0173.mediawiki, "Test vectors": the bech32 strings, valid and
 *     invalid (its segwit address lists are superseded by BIP-350's, which
 *     re-list the version 0 ones and turn the version 1+ bech32 ones
 *     invalid);
 *   - bip-0350.mediawiki, "Test vectors": the bech32m strings, valid and
 *     invalid, and the valid and invalid v0-v16 segwit addresses;
 *   - bip-0086.mediawiki, "Test vectors": the internal_key / output_key /
 *     address triples of m/86'/0'/0'/0/0, m/86'/0'/0'/0/1, m/86'/0'/0'/1/0;
 *   - bip-0340/test-vectors.csv: rows 0 to 14 (commit 7e8b5dfc); rows 15 to
 *     18, the variable-length messages "added 2022-12", are from the current
 *     file, whose stored copy here predates them.
 * The expected status of each invalid vector is the BIP's stated reason
 * mapped onto hj_bech32_status.  The HashJack action hash vectors were
 * computed outside this code, with Python's hashlib, from the definition
 * in docs/PROTOCOL.md section 11.3.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bech32.h"
#include "btcsig.h"
#include "hex.h"
#include "payload.h"
#include "say.h"
#include "taproot.h"

static hj_secp *ctx;

/* ------------------------------------------------------------------ */
/* A hex reader of our own, so that fixtures never depend on chain/hex. */

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s: exactly 2n hex digits, either case. */
static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
}

static void lower(const char *s, char *out, size_t cap)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < cap; i++)
		out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a'
		                                           : s[i]);
	out[i] = '\0';
}

/* ------------------------------------------------------------------ */
/* Bech32 and bech32m strings.                                        */

/* BIP-173: valid bech32. */
static const char *const bech32_valid[] = {
    "A12UEL5L",
    "a12uel5l",
    "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedch"
    "aractersbio1tt5tgs",
    "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
    "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
    "qqqqqqqqqqqqc8247j",
    "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
    "?1ezyfcl",
};

/* BIP-350: valid bech32m. */
static const char *const bech32m_valid[] = {
    "A1LQFN3A",
    "a1lqfn3a",
    "an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbi"
    "oandnumber11sg7hg6",
    "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx",
    "11llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll"
    "llllllllllllludsr8",
    "split1checkupstagehandshakeupstreamerranterredcaperredlc445v",
    "?1v759aa",
};

struct invalid_str {
	const char *s;
	int status;
};

/* BIP-173: invalid bech32, with its reasons as statuses.  The string that
 * ends in 0xFF ("invalid character in checksum") breaks the range rule
 * first. */
static const struct invalid_str bech32_invalid[] = {
    {"\x20"
     "1nwldj5",
     HJ_B32_BAD_CHAR},
    {"\x7f"
     "1axkwrx",
     HJ_B32_BAD_CHAR},
    {"\x80"
     "1eym55h",
     HJ_B32_BAD_CHAR},
    {"an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcluded"
     "charactersbio1569pvx",
     HJ_B32_TOO_LONG},
    {"pzry9x0s0muk", HJ_B32_NO_SEPARATOR},
    {"1pzry9x0s0muk", HJ_B32_EMPTY_HRP},
    {"x1b4n0q5v", HJ_B32_BAD_DATA_CHAR},
    {"li1dgmt3", HJ_B32_SHORT_CHECKSUM},
    {"de1lg7wt"
     "\xff",
     HJ_B32_BAD_CHAR},
    {"A1G7SGD8", HJ_B32_BAD_CHECKSUM},
    {"10a06t8", HJ_B32_EMPTY_HRP},
    {"1qzzfhee", HJ_B32_EMPTY_HRP},
};

/* BIP-350: invalid bech32m. */
static const struct invalid_str bech32m_invalid[] = {
    {"\x20"
     "1xj0phk",
     HJ_B32_BAD_CHAR},
    {"\x7f"
     "1g6xzxy",
     HJ_B32_BAD_CHAR},
    {"\x80"
     "1vctc34",
     HJ_B32_BAD_CHAR},
    {"an84characterslonghumanreadablepartthatcontainsthetheexcludedcharacters"
     "bioandnumber11d6pts4",
     HJ_B32_TOO_LONG},
    {"qyrz8wqd2c9m", HJ_B32_NO_SEPARATOR},
    {"1qyrz8wqd2c9m", HJ_B32_EMPTY_HRP},
    {"y1b0jsk6g", HJ_B32_BAD_DATA_CHAR},
    {"lt1igcx5c0", HJ_B32_BAD_DATA_CHAR},
    {"in1muywd", HJ_B32_SHORT_CHECKSUM},
    {"mm1crxm3i", HJ_B32_BAD_DATA_CHAR},
    {"au1s5cgom", HJ_B32_BAD_DATA_CHAR},
    {"M1VUXWEZ", HJ_B32_BAD_CHECKSUM},
    {"16plkw9", HJ_B32_EMPTY_HRP},
    {"1p2gdwpf", HJ_B32_EMPTY_HRP},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Decodes s, expects variant v, and re-encodes it to the same text. */
static void check_valid(const char *s, hj_bech32_variant v)
{
	char hrp[HJ_BECH32_HRP_MAX + 1], out[HJ_BECH32_BUF],
	    want[HJ_BECH32_BUF];
	uint8_t data[HJ_BECH32_DATA_MAX];
	size_t n;
	hj_bech32_variant got;
	char err[HJ_ERRLEN];
	int st;

	st = hj_bech32_decode(s, hrp, data, &n, &got, err, sizeof(err));
	if (st)
		fail_msg("%s: %s", s, err);
	assert_int_equal(got, v);
	st = hj_bech32_encode(hrp, data, n, v, out, err, sizeof(err));
	if (st)
		fail_msg("%s: re-encoding: %s", s, err);
	lower(s, want, sizeof(want));
	assert_string_equal(out, want);
}

static void check_invalid(const struct invalid_str *t)
{
	char hrp[HJ_BECH32_HRP_MAX + 1], err[HJ_ERRLEN] = "";
	uint8_t data[HJ_BECH32_DATA_MAX];
	size_t n;
	hj_bech32_variant got;
	int st;

	st = hj_bech32_decode(t->s, hrp, data, &n, &got, err, sizeof(err));
	if (st != t->status)
		fail_msg("\"%s\": status %d (%s), expected %d (%s)", t->s, st,
		         err, t->status, hj_bech32_strerror(t->status));
	assert_true(err[0] != '\0');
}

static void test_bech32_strings(void **state)
{
	(void)state;
	/* Guards against a lost character in the two 84-character HRPs. */
	assert_int_equal(strlen(bech32_invalid[3].s), 91);
	assert_int_equal(strlen(bech32m_invalid[3].s), 91);
	assert_int_equal(strlen(bech32_valid[4]), 90);
	assert_int_equal(strlen(bech32m_valid[4]), 90);

	for (size_t i = 0; i < N(bech32_valid); i++)
		check_valid(bech32_valid[i], HJ_BECH32);
	for (size_t i = 0; i < N(bech32m_valid); i++)
		check_valid(bech32m_valid[i], HJ_BECH32M);
	for (size_t i = 0; i < N(bech32_invalid); i++)
		check_invalid(&bech32_invalid[i]);
	for (size_t i = 0; i < N(bech32m_invalid); i++)
		check_invalid(&bech32m_invalid[i]);
}

/* Every status has its own message. */
static void test_bech32_messages(void **state)
{
	(void)state;
	for (int i = 0; i < HJ_B32_COUNT; i++) {
		assert_non_null(hj_bech32_strerror(i));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(hj_bech32_strerror(i),
			                        hj_bech32_strerror(j));
	}
	assert_string_equal(hj_bech32_strerror(HJ_B32_COUNT), "unknown status");
	assert_string_equal(hj_bech32_strerror(-1), "unknown status");
}

static void test_bech32_encode_errors(void **state)
{
	uint8_t data[HJ_BECH32_DATA_MAX] = {0};
	char out[HJ_BECH32_BUF], err[HJ_ERRLEN];

	(void)state;
	assert_int_equal(
	    hj_bech32_encode("", data, 1, HJ_BECH32, out, err, sizeof(err)),
	    HJ_B32_BAD_HRP);
	assert_int_equal(
	    hj_bech32_encode("BC", data, 1, HJ_BECH32, out, err, sizeof(err)),
	    HJ_B32_BAD_HRP);
	assert_int_equal(
	    hj_bech32_encode("b c", data, 1, HJ_BECH32, out, err, sizeof(err)),
	    HJ_B32_BAD_HRP);
	data[3] = 32;
	assert_int_equal(
	    hj_bech32_encode("bc", data, 4, HJ_BECH32M, out, err, sizeof(err)),
	    HJ_B32_BAD_VALUE);
	data[3] = 0;
	/* 2 + 1 + 81 + 6 = 90 fits; one more value does not. */
	assert_int_equal(
	    hj_bech32_encode("bc", data, 81, HJ_BECH32M, out, err, sizeof(err)),
	    HJ_B32_OK);
	assert_int_equal(strlen(out), 90);
	assert_int_equal(
	    hj_bech32_encode("bc", data, 82, HJ_BECH32M, out, err, sizeof(err)),
	    HJ_B32_TOO_LONG);
}

/* ------------------------------------------------------------------ */
/* Segwit addresses (BIP-350).                                        */

struct valid_addr {
	const char *addr;
	const char *spk; /* scriptPubKey, hex */
};

static const struct valid_addr valid_addrs[] = {
    {"BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
     "0014751e76e8199196d454941c45d1b3a323f1433bd6"},
    {"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
     "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"},
    {"bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5"
     "nd6y",
     "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1"
     "b3a323f1433bd6"},
    {"BC1SW50QGDZ25J", "6002751e"},
    {"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs",
     "5210751e76e8199196d454941c45d1b3a323"},
    {"tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
     "0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
    {"tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
     "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
    {"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
     "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"},
};

struct invalid_addr {
	const char *addr;
	const char *hrp; /* what the decoder is told to expect */
	int status;
};

static const struct invalid_addr invalid_addrs[] = {
    /* Invalid human-readable part */
    {"tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", "bc",
     HJ_B32_WRONG_HRP},
    /* Invalid checksum (Bech32 instead of Bech32m) */
    {"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", "bc",
     HJ_B32_WRONG_VARIANT},
    {"tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", "tb",
     HJ_B32_WRONG_VARIANT},
    {"BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", "bc",
     HJ_B32_WRONG_VARIANT},
    /* Invalid checksum (Bech32m instead of Bech32) */
    {"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "bc", HJ_B32_WRONG_VARIANT},
    {"tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", "tb",
     HJ_B32_WRONG_VARIANT},
    /* Invalid character in checksum */
    {"bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", "bc",
     HJ_B32_BAD_DATA_CHAR},
    /* Invalid witness version */
    {"BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", "bc",
     HJ_B32_BAD_VERSION},
    /* Invalid program length (1 byte) */
    {"bc1pw5dgrnzv", "bc", HJ_B32_BAD_PROGRAM_LEN},
    /* Invalid program length (41 bytes) */
    {"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav2"
     "53zgeav",
     "bc", HJ_B32_BAD_PROGRAM_LEN},
    /* Invalid program length for witness version 0 (per BIP141) */
    {"BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", "bc", HJ_B32_BAD_V0_LEN},
    /* Mixed case */
    {"tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", "tb",
     HJ_B32_MIXED_CASE},
    /* zero padding of more than 4 bits */
    {"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", "bc",
     HJ_B32_PADDING_TOO_LONG},
    /* Non-zero padding in 8-to-5 conversion */
    {"tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", "tb",
     HJ_B32_NONZERO_PADDING},
    /* Empty data section */
    {"bc1gmk9yu", "bc", HJ_B32_EMPTY_DATA},
};

static void test_segwit_valid(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(valid_addrs); i++) {
		const struct valid_addr *t = &valid_addrs[i];
		uint8_t prog[HJ_SEGWIT_PROG_MAX], spk[2 + HJ_SEGWIT_PROG_MAX];
		uint8_t want[2 + HJ_SEGWIT_PROG_MAX];
		char hrp[3], out[HJ_BECH32_BUF], low[HJ_BECH32_BUF],
		    err[HJ_ERRLEN];
		size_t plen, wlen = strlen(t->spk) / 2;
		int ver, st;

		lower(t->addr, hrp, sizeof(hrp)); /* "bc" or "tb" */
		st = hj_segwit_decode(hrp, t->addr, &ver, prog, &plen, err,
		                      sizeof(err));
		if (st)
			fail_msg("%s: %s", t->addr, err);
		spk[0] = (uint8_t)(ver == 0 ? 0 : 0x50 + ver);
		spk[1] = (uint8_t)plen;
		memcpy(spk + 2, prog, plen);
		unhex(t->spk, want, wlen);
		assert_int_equal(plen + 2, wlen);
		assert_memory_equal(spk, want, wlen);

		st = hj_segwit_encode(hrp, ver, prog, plen, out, err,
		                      sizeof(err));
		if (st)
			fail_msg("%s: re-encoding: %s", t->addr, err);
		lower(t->addr, low, sizeof(low));
		assert_string_equal(out, low);

		/* The other network's hrp is refused. */
		assert_int_equal(hj_segwit_decode(hrp[0] == 'b' ? "tb" : "bc",
		                                  t->addr, &ver, prog, &plen,
		                                  err, sizeof(err)),
		                 HJ_B32_WRONG_HRP);
	}
}

static void test_segwit_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(invalid_addrs); i++) {
		const struct invalid_addr *t = &invalid_addrs[i];
		uint8_t prog[HJ_SEGWIT_PROG_MAX];
		char err[HJ_ERRLEN] = "";
		size_t plen;
		int ver, st;

		st = hj_segwit_decode(t->hrp, t->addr, &ver, prog, &plen, err,
		                      sizeof(err));
		if (st != t->status)
			fail_msg("%s: status %d (%s), expected %d (%s)",
			         t->addr, st, err, t->status,
			         hj_bech32_strerror(t->status));
		assert_true(err[0] != '\0');
		/* As BIP-350's reference tests do: no hrp makes it valid. */
		assert_int_not_equal(
		    hj_segwit_decode("bc", t->addr, &ver, prog, &plen, NULL, 0),
		    HJ_B32_OK);
		assert_int_not_equal(
		    hj_segwit_decode("tb", t->addr, &ver, prog, &plen, NULL, 0),
		    HJ_B32_OK);
	}
}

/* Not from a BIP: the padding boundaries the BIP vectors do not touch
 * (their "more than 4 bits" case has 6).  n values after the version carry
 * 5n bits: 52 values are 32 bytes and 4 bits, 49 are 30 bytes and 5 bits. */
static void test_segwit_padding_edges(void **state)
{
	uint8_t data[1 + 52] = {1}, prog[HJ_SEGWIT_PROG_MAX];
	char addr[HJ_BECH32_BUF], err[HJ_ERRLEN];
	size_t plen;
	int ver;

	(void)state;
	assert_int_equal(hj_bech32_encode("bc", data, 1 + 52, HJ_BECH32M, addr,
	                                  err, sizeof(err)),
	                 HJ_B32_OK);
	assert_int_equal(
	    hj_segwit_decode("bc", addr, &ver, prog, &plen, err, sizeof(err)),
	    HJ_B32_OK);
	assert_int_equal(plen, 32);

	data[52] = 1; /* the lowest of the 4 padding bits */
	assert_int_equal(hj_bech32_encode("bc", data, 1 + 52, HJ_BECH32M, addr,
	                                  err, sizeof(err)),
	                 HJ_B32_OK);
	assert_int_equal(
	    hj_segwit_decode("bc", addr, &ver, prog, &plen, err, sizeof(err)),
	    HJ_B32_NONZERO_PADDING);

	data[52] = 0;
	assert_int_equal(hj_bech32_encode("bc", data, 1 + 49, HJ_BECH32M, addr,
	                                  err, sizeof(err)),
	                 HJ_B32_OK);
	assert_int_equal(
	    hj_segwit_decode("bc", addr, &ver, prog, &plen, err, sizeof(err)),
	    HJ_B32_PADDING_TOO_LONG);
}

static void test_segwit_encode_errors(void **state)
{
	uint8_t prog[HJ_SEGWIT_PROG_MAX + 1] = {0};
	char out[HJ_BECH32_BUF], err[HJ_ERRLEN];

	(void)state;
	assert_int_equal(
	    hj_segwit_encode("bc", 17, prog, 32, out, err, sizeof(err)),
	    HJ_B32_BAD_VERSION);
	assert_int_equal(
	    hj_segwit_encode("bc", -1, prog, 32, out, err, sizeof(err)),
	    HJ_B32_BAD_VERSION);
	assert_int_equal(
	    hj_segwit_encode("bc", 1, prog, 1, out, err, sizeof(err)),
	    HJ_B32_BAD_PROGRAM_LEN);
	assert_int_equal(
	    hj_segwit_encode("bc", 1, prog, 41, out, err, sizeof(err)),
	    HJ_B32_BAD_PROGRAM_LEN);
	assert_int_equal(
	    hj_segwit_encode("bc", 0, prog, 16, out, err, sizeof(err)),
	    HJ_B32_BAD_V0_LEN);
	assert_int_equal(
	    hj_segwit_encode("BC", 1, prog, 32, out, err, sizeof(err)),
	    HJ_B32_BAD_HRP);
	/* The longest program with the longest hrp that still fits:
	 * hrp + '1' + 1 + 64 + 6 <= 90 leaves 18 hrp characters. */
	assert_int_equal(hj_segwit_encode("abcdefghijklmnopqr", 1, prog, 40,
	                                  out, err, sizeof(err)),
	                 HJ_B32_OK);
	assert_int_equal(hj_segwit_encode("abcdefghijklmnopqrs", 1, prog, 40,
	                                  out, err, sizeof(err)),
	                 HJ_B32_TOO_LONG);
}

/* ------------------------------------------------------------------ */
/* BIP-86 taproot output keys and tr(P).                              */

struct bip86 {
	const char *internal, *output, *address;
};

static const struct bip86 bip86_vectors[] = {
    /* m/86'/0'/0'/0/0 */
    {"cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115",
     "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c",
     "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"},
    /* m/86'/0'/0'/0/1 */
    {"83dfe85a3151d2517290da461fe2815591ef69f2b18a2ce63f01697a8b313145",
     "a82f29944d65b86ae6b5e5cc75e294ead6c59391a1edc5e016e3498c67fc7bbb",
     "bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh"},
    /* m/86'/0'/0'/1/0 */
    {"399f1b2f4393f29a18c937859c5dd8a77350103157eb880f02e8c08214277cef",
     "882d74e5d0572d5a816cef0041a96b6c1de832f6f9676d9605c44d5e9a97d3dc",
     "bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7"},
};

static void test_bip86(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(bip86_vectors); i++) {
		const struct bip86 *t = &bip86_vectors[i];
		uint8_t p[32], q[32], want[32], prog[HJ_SEGWIT_PROG_MAX];
		char addr[HJ_BECH32_BUF], err[HJ_ERRLEN];
		size_t plen;
		int ver;

		unhex(t->internal, p, 32);
		unhex(t->output, want, 32);
		if (hj_taproot_output_key(ctx, p, q, err, sizeof(err)))
			fail_msg("%s: %s", t->internal, err);
		assert_memory_equal(q, want, 32);
		if (hj_taproot_address(ctx, p, "bc", addr, err, sizeof(err)))
			fail_msg("%s: %s", t->internal, err);
		assert_string_equal(addr, t->address);
		/* And back: version 1, the output key as program. */
		assert_int_equal(hj_segwit_decode("bc", t->address, &ver, prog,
		                                  &plen, err, sizeof(err)),
		                 HJ_B32_OK);
		assert_int_equal(ver, 1);
		assert_int_equal(plen, 32);
		assert_memory_equal(prog, want, 32);
	}
}

static void test_taproot_bad_key(void **state)
{
	uint8_t p[32], q[32];
	char addr[HJ_BECH32_BUF], err[HJ_ERRLEN] = "";

	(void)state;
	/* BIP-340 vector 14's key: above the field size. */
	unhex(
	    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30",
	    p, 32);
	assert_int_equal(hj_taproot_output_key(ctx, p, q, err, sizeof(err)),
	                 -EINVAL);
	assert_true(err[0] != '\0');
	/* BIP-340 vector 5's key: not on the curve. */
	unhex(
	    "EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34",
	    p, 32);
	assert_int_equal(
	    hj_taproot_address(ctx, p, "bc", addr, err, sizeof(err)), -EINVAL);
}

static void test_taproot_hrp(void **state)
{
	static const struct {
		const char *coin, *chain, *hrp;
	} t[] = {
	    {"bitcoin", "main", "bc"},      {"bitcoin", "test", "tb"},
	    {"bitcoin", "testnet4", "tb"},  {"bitcoin", "signet", "tb"},
	    {"bitcoin", "regtest", "bcrt"}, {"litecoin", "main", "ltc"},
	    {"litecoin", "test", "tltc"},   {"litecoin", "regtest", "rltc"},
	};
	const char *hrp = NULL;
	char err[HJ_ERRLEN] = "";

	(void)state;
	for (size_t i = 0; i < N(t); i++) {
		assert_int_equal(hj_taproot_hrp(t[i].coin, t[i].chain, &hrp,
		                                err, sizeof(err)),
		                 0);
		assert_string_equal(hrp, t[i].hrp);
	}
	assert_int_equal(
	    hj_taproot_hrp("dogecoin", "main", &hrp, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "unknown coin"));
	assert_int_equal(
	    hj_taproot_hrp("litecoin", "signet", &hrp, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "unknown litecoin chain"));
	assert_int_equal(
	    hj_taproot_hrp("bitcoin", "Main", &hrp, err, sizeof(err)), -EINVAL);
	assert_int_equal(
	    hj_taproot_hrp("Bitcoin", "main", &hrp, err, sizeof(err)), -EINVAL);
}

/*
 * tr(P) of BIP-86's first internal key in every prefix.  Not BIP vectors:
 * the addresses were computed outside this code by a separate Python
 * implementation (textbook curve arithmetic, hashlib's SHA-256 and BIP-350's
 * reference checksum), and must also decode back to BIP-86's output key.
 */
static void test_taproot_prefixes(void **state)
{
	static const struct {
		const char *hrp, *addr;
	} t[] = {
	    {"bc",
	     "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"},
	    {"tb",
	     "tb1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqp3mvzv"},
	    {"bcrt", "bcrt1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpx"
	             "qvg32hk"},
	    {"ltc",
	     "ltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxq4arnzx"},
	    {"tltc", "tltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpx"
	             "q7j8dan"},
	    {"rltc", "rltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpx"
	             "qytm4cm"},
	};
	uint8_t p[32], want[32], prog[HJ_SEGWIT_PROG_MAX];
	char addr[HJ_BECH32_BUF], err[HJ_ERRLEN];
	size_t plen;
	int ver;

	(void)state;
	unhex(bip86_vectors[0].internal, p, 32);
	unhex(bip86_vectors[0].output, want, 32);
	for (size_t i = 0; i < N(t); i++) {
		assert_int_equal(hj_taproot_address(ctx, p, t[i].hrp, addr, err,
		                                    sizeof(err)),
		                 0);
		assert_string_equal(addr, t[i].addr);
		assert_int_equal(hj_segwit_decode(t[i].hrp, addr, &ver, prog,
		                                  &plen, err, sizeof(err)),
		                 HJ_B32_OK);
		assert_int_equal(ver, 1);
		assert_int_equal(plen, 32);
		assert_memory_equal(prog, want, 32);
	}
}

/* docs/BITCOIN-KEYS.md's example key file: BIP-340 vector 1's secret key,
 * its P, and tr(P) on both regtests (computed by the same separate Python
 * implementation as above). */
static void test_doc_example(void **state)
{
	uint8_t sk[32], pk[32], want[32];
	char addr[HJ_BECH32_BUF], err[HJ_ERRLEN];

	(void)state;
	unhex(
	    "b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef",
	    sk, 32);
	unhex(
	    "dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659",
	    want, 32);
	assert_int_equal(hj_btc_pubkey(ctx, sk, pk, err, sizeof(err)), 0);
	assert_memory_equal(pk, want, 32);
	assert_int_equal(
	    hj_taproot_address(ctx, pk, "rltc", addr, err, sizeof(err)), 0);
	assert_string_equal(
	    addr,
	    "rltc1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9sdp4qm8");
	assert_int_equal(
	    hj_taproot_address(ctx, pk, "bcrt", addr, err, sizeof(err)), 0);
	assert_string_equal(
	    addr,
	    "bcrt1p0t2rw5pjcw8t5n7xphk2wharpgaxhhe0kw8huctj3r3dxampzl9s9zll52");
}

/* ------------------------------------------------------------------ */
/* BIP-340.                                                           */

struct bip340 {
	int index;
	const char *sk, *pk, *aux, *msg, *sig;
	int valid;
};

static const struct bip340 bip340_vectors[] = {
    {0, "0000000000000000000000000000000000000000000000000000000000000003",
     "F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
     "0000000000000000000000000000000000000000000000000000000000000000",
     "0000000000000000000000000000000000000000000000000000000000000000",
     "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA8215"
     "25F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0",
     1},
    {1, "B7E151628AED2A6ABF7158809CF4F3C762E7160F38B4DA56A784D9045190CFEF",
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659",
     "0000000000000000000000000000000000000000000000000000000000000001",
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "6896BD60EEAE296DB48A229FF71DFE071BDE413E6D43F917DC8DCF8C78DE3341"
     "8906D11AC976ABCCB20B091292BFF4EA897EFCB639EA871CFA95F6DE339E4B0A",
     1},
    {2, "C90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B14E5C9",
     "DD308AFEC5777E13121FA72B9CC1B7CC0139715309B086C960E18FD969774EB8",
     "C87AA53824B4D7AE2EB035A2B5BBBCCC080E76CDC6D1692C4B0B62D798E6D906",
     "7E2D58D8B3BCDF1ABADEC7829054F90DDA9805AAB56C77333024B9D0A508B75C",
     "5831AAEED7B44BB74E5EAB94BA9D4294C49BCF2A60728D8B4C200F50DD313C1B"
     "AB745879A5AD954A72C45A91C3A51D3C7ADEA98D82F8481E0E1E03674A6F3FB7",
     1},
    /* test fails if msg is reduced modulo p or n */
    {3, "0B432B2677937381AEF05BB02A66ECD012773062CF3FA2549E44F58ED2401710",
     "25D1DFF95105F5253C4022F628A996AD3A0D95FBF21D468A1B33F8C160D8F517",
     "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
     "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
     "7EB0509757E246F19449885651611CB965ECC1A187DD51B64FDA1EDC9637D5EC"
     "97582B9CB13DB3933705B32BA982AF5AF25FD78881EBB32771FC5922EFC66EA3",
     1},
    {4, NULL,
     "D69C3509BB99E412E68B0FE8544E72837DFA30746D8BE2AA65975F29D22DC7B9", NULL,
     "4DF3C3F68FCC83B27E9D42C90431A72499F17875C81A599B566C9889B9696703",
     "00000000000000000000003B78CE563F89A0ED9414F5AA28AD0D96D6795F9C63"
     "76AFB1548AF603B3EB45C9F8207DEE1060CB71C04E80F593060B07D28308D7F4",
     1},
    /* public key not on the curve */
    {5, NULL,
     "EEFDEA4CDB677750A420FEE807EACF21EB9898AE79B9768766E4FAA04A2D4A34", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769"
     "69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B",
     0},
    /* has_even_y(R) is false */
    {6, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "FFF97BD5755EEEA420453A14355235D382F6472F8568A18B2F057A1460297556"
     "3CC27944640AC607CD107AE10923D9EF7A73C643E166BE5EBEAFA34B1AC553E2",
     0},
    /* negated message */
    {7, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "1FA62E331EDBC21C394792D2AB1100A7B432B013DF3F6FF4F99FCB33E0E1515F"
     "28890B3EDB6E7189B630448B515CE4F8622A954CFE545735AAEA5134FCCDB2BD",
     0},
    /* negated s value */
    {8, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769"
     "961764B3AA9B2FFCB6EF947B6887A226E8D7C93E00C5ED0C1834FF0D0C2E6DA6",
     0},
    /* sG - eP is infinite (x(inf) as 0) */
    {9, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "0000000000000000000000000000000000000000000000000000000000000000"
     "123DDA8328AF9C23A94C1FEECFD123BA4FB73476F0D594DCB65C6425BD186051",
     0},
    /* sG - eP is infinite (x(inf) as 1) */
    {10, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "0000000000000000000000000000000000000000000000000000000000000001"
     "7615FBAF5AE28864013C099742DEADB4DBA87F11AC6754F93780D5A1837CF197",
     0},
    /* sig[0:32] is not an X coordinate on the curve */
    {11, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "4A298DACAE57395A15D0795DDBFD1DCB564DA82B0F269BC70A74F8220429BA1D"
     "69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B",
     0},
    /* sig[0:32] is equal to field size */
    {12, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F"
     "69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B",
     0},
    /* sig[32:64] is equal to curve order */
    {13, NULL,
     "DFF1D77F2A671C5F36183726DB2341BE58FEAE1DA2DECED843240F7B502BA659", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769"
     "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141",
     0},
    /* public key is not a valid X coordinate because it exceeds the field
     * size */
    {14, NULL,
     "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC30", NULL,
     "243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89",
     "6CFF5C3BA86C69EA4B7376F31A9BCB4F74C1976089B2D9963DA2E5543E177769"
     "69E89B4C5564D00349106B8497785DD7D1D713A8AE82B32FA79D5F7FC407D39B",
     0},
    /* message of size 0 (added 2022-12) */
    {15, "0340034003400340034003400340034003400340034003400340034003400340",
     "778CAA53B4393AC467774D09497A87224BF9FAB6F6E68B23086497324D6FD117",
     "0000000000000000000000000000000000000000000000000000000000000000", "",
     "71535DB165ECD9FBBC046E5FFAEA61186BB6AD436732FCCC25291A55895464CF"
     "6069CE26BF03466228F19A3A62DB8A649F2D560FAC652827D1AF0574E427AB63",
     1},
    /* message of size 1 (added 2022-12) */
    {16, "0340034003400340034003400340034003400340034003400340034003400340",
     "778CAA53B4393AC467774D09497A87224BF9FAB6F6E68B23086497324D6FD117",
     "0000000000000000000000000000000000000000000000000000000000000000", "11",
     "08A20A0AFEF64124649232E0693C583AB1B9934AE63B4C3511F3AE1134C6A303"
     "EA3173BFEA6683BD101FA5AA5DBC1996FE7CACFC5A577D33EC14564CEC2BACBF",
     1},
    /* message of size 17 (added 2022-12) */
    {17, "0340034003400340034003400340034003400340034003400340034003400340",
     "778CAA53B4393AC467774D09497A87224BF9FAB6F6E68B23086497324D6FD117",
     "0000000000000000000000000000000000000000000000000000000000000000",
     "0102030405060708090A0B0C0D0E0F1011",
     "5130F39A4059B43BC7CAC09A19ECE52B5D8699D1A71E3C52DA9AFDB6B50AC370"
     "C4A482B77BF960F8681540E25B6771ECE1E5A37FD80E5A51897C5566A97EA5A5",
     1},
    /* message of size 100 (added 2022-12): 100 bytes of 0x99 */
    {18, "0340034003400340034003400340034003400340034003400340034003400340",
     "778CAA53B4393AC467774D09497A87224BF9FAB6F6E68B23086497324D6FD117",
     "0000000000000000000000000000000000000000000000000000000000000000",
     "99999999999999999999999999999999999999999999999999999999999999999999"
     "99999999999999999999999999999999999999999999999999999999999999999999"
     "9999999999999999999999999999999999999999999999999999999999999999",
     "403B12B0D8555A344175EA7EC746566303321E5DBFA8BE6F091635163ECA79A8"
     "585ED3E3170807E7C03B720FC54C7B23897FCBA0E9D0B4A06894CFD249F22367",
     1},
};

static void test_bip340_verify(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(bip340_vectors); i++) {
		const struct bip340 *t = &bip340_vectors[i];
		uint8_t pk[32], msg[100], sig[64];
		size_t mlen = strlen(t->msg) / 2;
		int rc;

		assert_int_equal(t->index, (int)i);
		assert_true(mlen <= sizeof(msg));
		unhex(t->pk, pk, 32);
		unhex(t->msg, msg, mlen);
		unhex(t->sig, sig, 64);
		rc = hj_bip340_verify(ctx, pk, mlen ? msg : NULL, mlen, sig);
		if (t->valid && rc != 0)
			fail_msg("vector %d: valid signature refused (%d)",
			         t->index, rc);
		if (!t->valid && rc == 0)
			fail_msg("vector %d: invalid signature accepted",
			         t->index);
		/* Keys off the curve are told apart from bad signatures. */
		if (t->index == 5 || t->index == 14)
			assert_int_equal(rc, -EINVAL);
		else if (!t->valid)
			assert_int_equal(rc, -EBADMSG);
	}
	assert_int_equal(strlen(bip340_vectors[18].msg), 200);
}

/* Vectors with a secret key: the public key, and for 32-byte messages
 * (hj_bip340_sign takes only those) the exact signature with the given
 * auxiliary randomness. */
static void test_bip340_sign(void **state)
{
	int signed_count = 0;

	(void)state;
	for (size_t i = 0; i < N(bip340_vectors); i++) {
		const struct bip340 *t = &bip340_vectors[i];
		uint8_t sk[32], pk[32], want_pk[32], aux[32], msg[32];
		uint8_t sig[64], want_sig[64];
		char err[HJ_ERRLEN];

		if (t->sk == NULL)
			continue;
		unhex(t->sk, sk, 32);
		unhex(t->pk, want_pk, 32);
		if (hj_btc_pubkey(ctx, sk, pk, err, sizeof(err)))
			fail_msg("vector %d: %s", t->index, err);
		assert_memory_equal(pk, want_pk, 32);
		if (strlen(t->msg) != 64)
			continue;
		unhex(t->aux, aux, 32);
		unhex(t->msg, msg, 32);
		unhex(t->sig, want_sig, 64);
		if (hj_bip340_sign(ctx, sk, msg, aux, sig, err, sizeof(err)))
			fail_msg("vector %d: %s", t->index, err);
		assert_memory_equal(sig, want_sig, 64);
		signed_count++;
	}
	assert_int_equal(signed_count, 4); /* vectors 0 to 3 */
}

static void test_bad_secret_keys(void **state)
{
	/* Zero, and the group order n: neither is a valid secret key. */
	static const char *const bad[] = {
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141",
	};
	uint8_t sk[32], pk[32], msg[32] = {0}, sig[64];
	char err[HJ_ERRLEN] = "";

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		unhex(bad[i], sk, 32);
		assert_int_equal(hj_btc_pubkey(ctx, sk, pk, err, sizeof(err)),
		                 -EINVAL);
		assert_non_null(strstr(err, "invalid secret key"));
		assert_int_equal(
		    hj_bip340_sign(ctx, sk, msg, NULL, sig, err, sizeof(err)),
		    -EINVAL);
	}
}

/* ------------------------------------------------------------------ */
/* The HashJack action signature (docs/PROTOCOL.md section 11.3).     */

/* A genesis hash as getblockhash 0 prints it; decoded front to back. */
static const char genesis_hex[] =
    "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

/* Computed with Python's hashlib from docs/PROTOCOL.md section 11.3:
 * tag = sha256(b"HashJack/action"); sha256(tag + tag + genesis + id + seq
 * (4 bytes big-endian) + body). */
static void test_action_hash(void **state)
{
	uint8_t g[32], id[8], h[32], want[32];
	const uint8_t peek[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
	const uint8_t hit[] = {0x48, 0x4a, 0x01, 0x02};
	uint8_t big[HJ_BTC_BODY_MAX + 1] = {0};
	hj_btc_msg m;

	(void)state;
	assert_int_equal(
	    hj_hex_decode_exact(genesis_hex, 64, HJ_HEX_BARE, g, 32, NULL, 0),
	    0);
	unhex("a1b2c3d4e5f60718", id, 8);
	m = (hj_btc_msg){g, id, 0x01020304u, peek, sizeof(peek)};
	assert_int_equal(hj_btc_action_hash(&m, h), 0);
	unhex(
	    "9517e12c18fe7b2ac72a8c03b07256f08dc7b780f8aa452a22dbe8a5472818fc",
	    want, 32);
	assert_memory_equal(h, want, 32);

	m = (hj_btc_msg){g, id, 0, hit, sizeof(hit)};
	assert_int_equal(hj_btc_action_hash(&m, h), 0);
	unhex(
	    "87090bcdb31d96a58b883818ea106075f21829e034d1d60b5f88f4c2ca4529b1",
	    want, 32);
	assert_memory_equal(h, want, 32);

	/* A body longer than any action's is refused, not truncated. */
	m = (hj_btc_msg){g, id, 0, big, sizeof(big)};
	assert_int_equal(hj_btc_action_hash(&m, h), -EINVAL);
	m.body_len = HJ_BTC_BODY_MAX;
	assert_int_equal(hj_btc_action_hash(&m, h), 0);
}

struct fixture {
	uint8_t sk[32], pk[32], sk2[32], pk2[32];
	uint8_t g[32], id[8];
	uint8_t body[5];
	uint32_t seq;
};

static void make_fixture(struct fixture *f)
{
	char err[HJ_ERRLEN];

	if (hj_btc_keygen(ctx, f->sk, f->pk, err, sizeof(err)))
		fail_msg("keygen: %s", err);
	if (hj_btc_keygen(ctx, f->sk2, f->pk2, err, sizeof(err)))
		fail_msg("keygen: %s", err);
	unhex(genesis_hex, f->g, 32);
	unhex("a1b2c3d4e5f60718", f->id, 8);
	memcpy(f->body, (const uint8_t[]){0x48, 0x4a, 0x01, 0x07, 0x01}, 5);
	f->seq = 3;
}

static hj_btc_msg msg_of(const struct fixture *f)
{
	return (hj_btc_msg){f->g, f->id, f->seq, f->body, sizeof(f->body)};
}

static void test_keygen(void **state)
{
	struct fixture f;
	uint8_t pk[32];
	char err[HJ_ERRLEN];

	(void)state;
	make_fixture(&f);
	assert_memory_not_equal(f.sk, f.sk2, 32);
	assert_memory_not_equal(f.pk, f.pk2, 32);
	assert_int_equal(hj_btc_pubkey(ctx, f.sk, pk, err, sizeof(err)), 0);
	assert_memory_equal(pk, f.pk, 32);
}

static void test_action_round_trip(void **state)
{
	struct fixture f;
	hj_btc_msg m;
	uint8_t sig[64], sig2[64];
	char err[HJ_ERRLEN];

	(void)state;
	make_fixture(&f);
	m = msg_of(&f);
	if (hj_btc_action_sign(ctx, f.sk, &m, sig, err, sizeof(err)))
		fail_msg("sign: %s", err);
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig), 0);

	/* Fresh auxiliary randomness: a second signature differs, and
	 * verifies too. */
	assert_int_equal(
	    hj_btc_action_sign(ctx, f.sk, &m, sig2, err, sizeof(err)), 0);
	assert_memory_not_equal(sig, sig2, 64);
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig2), 0);

	/* Another player's key. */
	assert_int_equal(hj_btc_action_verify(ctx, f.pk2, &m, sig), -EBADMSG);
	/* Another sequence number: the replay the seq exists to stop. */
	for (uint32_t s = 0; s < 8; s++) {
		if (s == f.seq)
			continue;
		m.seq = s;
		assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig),
		                 -EBADMSG);
	}
	m.seq = f.seq ^ 0x01000000u; /* the high byte counts too */
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig), -EBADMSG);
	m.seq = f.seq;
	/* A shorter body (the Peek flag dropped). */
	m.body_len = 4;
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig), -EBADMSG);
}

/* Every byte of every signed field, and of the signature, matters. */
static void test_action_flips(void **state)
{
	struct fixture f;
	hj_btc_msg m;
	uint8_t sig[64];
	char err[HJ_ERRLEN];

	(void)state;
	make_fixture(&f);
	m = msg_of(&f);
	assert_int_equal(
	    hj_btc_action_sign(ctx, f.sk, &m, sig, err, sizeof(err)), 0);

	struct {
		uint8_t *p;
		size_t n;
	} fields[] = {{f.g, 32}, {f.id, 8}, {f.body, 5}, {sig, 64}};
	for (size_t k = 0; k < N(fields); k++) {
		for (size_t i = 0; i < fields[k].n; i++) {
			fields[k].p[i] ^= 0x01;
			assert_int_not_equal(
			    hj_btc_action_verify(ctx, f.pk, &m, sig), 0);
			fields[k].p[i] ^= 0x01;
		}
	}
	for (int b = 0; b < 32; b++) {
		m.seq = f.seq ^ (1u << b);
		assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig),
		                 -EBADMSG);
	}
	m.seq = f.seq;
	/* Everything restored: valid again, so the loops above tested the
	 * flips and nothing else. */
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig), 0);
}

/* The whole-payload helpers on what hj_payload_encode writes. */
static void test_payload_sign_verify(void **state)
{
	struct fixture f;
	hj_payload pl, back;
	uint8_t p[HJ_PAYLOAD_MAX], sig[64];
	size_t n;
	hj_btc_msg m;
	char err[HJ_ERRLEN];

	(void)state;
	make_fixture(&f);
	memset(&pl, 0, sizeof(pl));
	pl.act = HJ_PEEK;
	pl.insurance = 1;
	memcpy(pl.round, f.id, 8);
	n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	assert_int_equal(n, HJ_PAYLOAD_MAX);
	if (hj_btc_payload_sign(ctx, f.sk, f.g, f.seq, p, n, err, sizeof(err)))
		fail_msg("payload sign: %s", err);
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, f.seq, p, n), 0);
	/* The parser sees the same id and signature, and the field-wise
	 * verifier agrees. */
	assert_int_equal(hj_payload_parse(HJ_BITCOIN, p, n, &back), HJ_OK);
	assert_memory_equal(back.round, f.id, 8);
	memcpy(sig, back.sig, 64);
	m = msg_of(&f);
	assert_int_equal(hj_btc_action_verify(ctx, f.pk, &m, sig), 0);

	assert_int_equal(hj_btc_payload_verify(ctx, f.pk2, f.g, f.seq, p, n),
	                 -EBADMSG);
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, f.seq + 1, p, n),
	                 -EBADMSG);
	for (size_t i = 0; i < n; i++) {
		p[i] ^= 0x80;
		assert_int_not_equal(
		    hj_btc_payload_verify(ctx, f.pk, f.g, f.seq, p, n), 0);
		p[i] ^= 0x80;
	}
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, f.seq, p, n), 0);

	/* Lengths that cannot hold a body and a tail, or too long. */
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, f.seq, p,
	                                       HJ_BTC_TAIL_LEN + 3),
	                 -EINVAL);
	assert_int_equal(hj_btc_payload_sign(ctx, f.sk, f.g, f.seq, p,
	                                     HJ_PAYLOAD_MAX + 1, err,
	                                     sizeof(err)),
	                 -EINVAL);

	/* A Hit (no action field): 4 + 72 bytes. */
	pl.act = HJ_HIT;
	pl.insurance = 0;
	n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	assert_int_equal(n, 4 + HJ_BTC_TAIL_LEN);
	assert_int_equal(
	    hj_btc_payload_sign(ctx, f.sk, f.g, 0, p, n, err, sizeof(err)), 0);
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, 0, p, n), 0);
	assert_int_equal(hj_btc_payload_verify(ctx, f.pk, f.g, 1, p, n),
	                 -EBADMSG);
}

static int setup(void **state)
{
	char err[HJ_ERRLEN];

	(void)state;
	if (hj_secp_new(&ctx, err, sizeof(err)) != 0) {
		fprintf(stderr, "hj_secp_new: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hj_secp_free(ctx);
	hj_secp_free(NULL);
	ctx = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bech32_strings),
	    cmocka_unit_test(test_bech32_messages),
	    cmocka_unit_test(test_bech32_encode_errors),
	    cmocka_unit_test(test_segwit_valid),
	    cmocka_unit_test(test_segwit_invalid),
	    cmocka_unit_test(test_segwit_padding_edges),
	    cmocka_unit_test(test_segwit_encode_errors),
	    cmocka_unit_test(test_bip86),
	    cmocka_unit_test(test_taproot_bad_key),
	    cmocka_unit_test(test_taproot_hrp),
	    cmocka_unit_test(test_taproot_prefixes),
	    cmocka_unit_test(test_doc_example),
	    cmocka_unit_test(test_bip340_verify),
	    cmocka_unit_test(test_bip340_sign),
	    cmocka_unit_test(test_bad_secret_keys),
	    cmocka_unit_test(test_action_hash),
	    cmocka_unit_test(test_keygen),
	    cmocka_unit_test(test_action_round_trip),
	    cmocka_unit_test(test_action_flips),
	    cmocka_unit_test(test_payload_sign_verify),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
