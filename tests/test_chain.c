/*
 * The chain-facing modules: strict hex text (chain/hex.h), the EVM
 * normalisation of one transaction into an hj_action (chain/evm.h,
 * protocol v1 sections 5 and 6), and the block-to-card log line
 * (daemon/cardlog.h, docs/LOG.md, protocol v1 section 8).
 *
 * Every expected value was written from the spec, the headers or
 * docs/LOG.md, not copied from what the code prints.  The DOC_* lines below
 * are the example lines of docs/LOG.md, verbatim: the log writer must
 * reproduce them byte for byte from the events they describe.  Every line is
 * also parsed back with jansson, and the order of its keys compared with the
 * order docs/LOG.md gives.
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
#include <jansson.h>

#include "card.h"
#include "cardlog.h"
#include "deal.h"
#include "evm.h"
#include "hex.h"
#include "rules.h"
#include "table.h"

#define assert_amount_equal(a, b)                                              \
	do {                                                                   \
		hj_amount a_ = (a), b_ = (b);                                  \
		assert_int_equal((uint64_t)(a_ >> 64), (uint64_t)(b_ >> 64));  \
		assert_int_equal((uint64_t)a_, (uint64_t)b_);                  \
	} while (0)

/* 10^18: one ether in wei. */
#define E18 ((hj_amount)1000000000000000000ull)

/* ------------------------------------------------------------------ */
/* Fixtures: a hex reader of our own, so that fixtures never depend on  */
/* the module under test.                                              */

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* s: lower-case hex, with or without "0x", exactly 2n digits. */
static void unhex(const char *s, uint8_t *out, size_t n)
{
	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
}

static hj_id id_of(const char *s)
{
	hj_id id;
	size_t digits = strlen(s) - (s[0] == '0' && s[1] == 'x' ? 2 : 0);

	memset(&id, 0, sizeof id);
	assert_true(digits % 2 == 0 && digits / 2 <= 32);
	id.len = (uint8_t)(digits / 2);
	unhex(s, id.b, id.len);
	return id;
}

/* ================================================================== */
/* chain/hex                                                          */

#define ERRLEN 128

/*
 * Decodes s[0..len) into a heap buffer of exactly cap bytes (so that
 * AddressSanitizer sees any write past it) and copies the result to got.
 */
static int dec(const char *s, size_t len, hj_hex_prefix p, size_t cap,
               uint8_t *got, size_t *outlen, char err[ERRLEN])
{
	uint8_t *out = malloc(cap);
	int rc;

	assert_true(cap == 0 || out != NULL);
	snprintf(err, ERRLEN, "(unset)");
	*outlen = SIZE_MAX;
	rc = hj_hex_decode(s, len, p, out, cap, outlen, err, ERRLEN);
	if (rc == 0 && *outlen <= cap && *outlen > 0)
		memcpy(got, out, *outlen);
	free(out);
	return rc;
}

/* s decodes to want[0..n), with room for exactly n bytes and with more. */
static void hex_ok(const char *s, hj_hex_prefix p, const void *want, size_t n)
{
	uint8_t got[300];
	size_t outlen;
	char err[ERRLEN];

	assert_true(n + 5 <= sizeof got);
	assert_int_equal(dec(s, strlen(s), p, n, got, &outlen, err), 0);
	assert_int_equal(outlen, n);
	if (n)
		assert_memory_equal(got, want, n);
	memset(got, 0, sizeof got);
	assert_int_equal(dec(s, strlen(s), p, n + 5, got, &outlen, err), 0);
	assert_int_equal(outlen, n);
	if (n)
		assert_memory_equal(got, want, n);
}

/* s[0..len) fails with -EINVAL and exactly msg, whatever the room. */
static void hex_bad(const char *s, size_t len, hj_hex_prefix p, size_t cap,
                    const char *msg)
{
	uint8_t got[300];
	size_t outlen;
	char err[ERRLEN];

	assert_int_equal(dec(s, len, p, cap, got, &outlen, err), -EINVAL);
	assert_string_equal(err, msg);
}

static void hex_bad_s(const char *s, hj_hex_prefix p, const char *msg)
{
	hex_bad(s, strlen(s), p, 64, msg);
}

static void test_hex_digit(void **state)
{
	static const char lo[] = "0123456789abcdef";
	static const char up[] = "0123456789ABCDEF";

	(void)state;
	for (int c = 0; c < 256; c++) {
		int want = -1;

		for (int v = 0; v < 16; v++)
			if (c == lo[v] || c == up[v])
				want = v;
		assert_int_equal(hj_hex_digit(c), want);
	}
	assert_int_equal(hj_hex_digit(-1), -1);
	assert_int_equal(hj_hex_digit('g'), -1);
	assert_int_equal(hj_hex_digit('x'), -1);
}

static void test_hex_prefix_required(void **state)
{
	(void)state;
	hex_ok("0x00ff7f80", HJ_HEX_REQUIRED, "\x00\xff\x7f\x80", 4);
	hex_ok("0x", HJ_HEX_REQUIRED, "", 0);
	hex_ok("0x0a", HJ_HEX_REQUIRED, "\x0a", 1);
	hex_bad_s("00ff", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	hex_bad_s("", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	hex_bad_s("0", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	hex_bad_s("x0", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	/* Only a lower-case "0x" counts (hex.h). */
	hex_bad_s("0X00ff", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	/* The prefix is checked before the digits. */
	hex_bad_s("zz", HJ_HEX_REQUIRED, "\"0x\" prefix missing");
	/* One prefix only: the second "x" is a bad digit, offsets counting
	 * the prefix. */
	hex_bad_s("0x0x12", HJ_HEX_REQUIRED,
	          "'x' at offset 3 is not a hex digit");
}

static void test_hex_prefix_optional(void **state)
{
	(void)state;
	hex_ok("0x0a1b", HJ_HEX_OPTIONAL, "\x0a\x1b", 2);
	hex_ok("0a1b", HJ_HEX_OPTIONAL, "\x0a\x1b", 2);
	hex_ok("", HJ_HEX_OPTIONAL, "", 0);
	hex_ok("0x", HJ_HEX_OPTIONAL, "", 0);
	/* "00" is a byte, not a prefix. */
	hex_ok("00", HJ_HEX_OPTIONAL, "\x00", 1);
	hex_ok("0x00", HJ_HEX_OPTIONAL, "\x00", 1);
	hex_bad_s("0X0a", HJ_HEX_OPTIONAL,
	          "'X' at offset 1 is not a hex digit");
	hex_bad_s("0", HJ_HEX_OPTIONAL, "odd number of hex digits (1)");
	hex_bad_s("0x0", HJ_HEX_OPTIONAL, "odd number of hex digits (1)");
}

static void test_hex_prefix_forbidden(void **state)
{
	(void)state;
	hex_ok("0a1b", HJ_HEX_BARE, "\x0a\x1b", 2);
	hex_ok("", HJ_HEX_BARE, "", 0);
	hex_ok("00", HJ_HEX_BARE, "\x00", 1);
	/* hex.h: "0x12" is '0' then a bad 'x'. */
	hex_bad_s("0x12", HJ_HEX_BARE, "'x' at offset 1 is not a hex digit");
	hex_bad_s("0x", HJ_HEX_BARE, "'x' at offset 1 is not a hex digit");
}

static void test_hex_odd(void **state)
{
	(void)state;
	hex_bad_s("0x123", HJ_HEX_REQUIRED, "odd number of hex digits (3)");
	hex_bad_s("abc", HJ_HEX_BARE, "odd number of hex digits (3)");
	hex_bad_s("1", HJ_HEX_BARE, "odd number of hex digits (1)");
	hex_bad_s("0x12345", HJ_HEX_OPTIONAL, "odd number of hex digits (5)");
	hex_bad_s("12345", HJ_HEX_OPTIONAL, "odd number of hex digits (5)");
	/* 63 digits: a block hash with one digit missing. */
	hex_bad_s(
	    "0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea12919"
	    "2b10",
	    HJ_HEX_REQUIRED, "odd number of hex digits (63)");
}

static void test_hex_bad_chars(void **state)
{
	(void)state;
	/* First digit, second digit, inside, last: offsets count from the
	 * first character of s, prefix included. */
	hex_bad_s("0xg0", HJ_HEX_REQUIRED,
	          "'g' at offset 2 is not a hex digit");
	hex_bad_s("0x0g", HJ_HEX_REQUIRED,
	          "'g' at offset 3 is not a hex digit");
	hex_bad_s("0x00112233445566z7", HJ_HEX_REQUIRED,
	          "'z' at offset 16 is not a hex digit");
	hex_bad_s("0x001G", HJ_HEX_REQUIRED,
	          "'G' at offset 5 is not a hex digit");
	hex_bad_s("g0", HJ_HEX_BARE, "'g' at offset 0 is not a hex digit");
	hex_bad_s("00g0", HJ_HEX_OPTIONAL,
	          "'g' at offset 2 is not a hex digit");
	hex_bad_s("0x00 1", HJ_HEX_REQUIRED,
	          "' ' at offset 4 is not a hex digit");
	hex_bad_s("0x-1", HJ_HEX_REQUIRED,
	          "'-' at offset 2 is not a hex digit");
	/* The first bad character is the one named. */
	hex_bad_s("0xzy", HJ_HEX_REQUIRED,
	          "'z' at offset 2 is not a hex digit");
	hex_bad_s("0x0y0z", HJ_HEX_REQUIRED,
	          "'y' at offset 3 is not a hex digit");
	/* A bad character is named even when the count is odd too. */
	hex_bad_s("0x12g", HJ_HEX_REQUIRED,
	          "'g' at offset 4 is not a hex digit");
	/* Bytes that would not print cleanly between quotes are escaped. */
	hex_bad_s("0x0\n", HJ_HEX_REQUIRED,
	          "\\x0a at offset 3 is not a hex digit");
	hex_bad_s("0x'0", HJ_HEX_REQUIRED,
	          "\\x27 at offset 2 is not a hex digit");
	hex_bad_s("0x\\0", HJ_HEX_REQUIRED,
	          "\\x5c at offset 2 is not a hex digit");
	hex_bad_s("0x0\x7f", HJ_HEX_REQUIRED,
	          "\\x7f at offset 3 is not a hex digit");
	hex_bad_s("0x\xc3\xa9", HJ_HEX_REQUIRED,
	          "\\xc3 at offset 2 is not a hex digit");
	/* A NUL inside the given length is a character like any other. */
	hex_bad("0x0\0", 4, HJ_HEX_REQUIRED, 4,
	        "\\x00 at offset 3 is not a hex digit");
}

static void test_hex_len_bounds(void **state)
{
	uint8_t got[8];
	size_t outlen;
	char err[ERRLEN];

	(void)state;
	/* Only len characters count: the "zz" after them is never read. */
	assert_int_equal(
	    dec("0x12zz", 4, HJ_HEX_REQUIRED, 1, got, &outlen, err), 0);
	assert_int_equal(outlen, 1);
	assert_int_equal(got[0], 0x12);
	assert_int_equal(
	    dec("0x12zz", 2, HJ_HEX_REQUIRED, 0, got, &outlen, err), 0);
	assert_int_equal(outlen, 0);
}

static void test_hex_case(void **state)
{
	(void)state;
	hex_ok("0xabcdef", HJ_HEX_REQUIRED, "\xab\xcd\xef", 3);
	hex_ok("0xABCDEF", HJ_HEX_REQUIRED, "\xab\xcd\xef", 3);
	hex_ok("0xAbCdEf", HJ_HEX_REQUIRED, "\xab\xcd\xef", 3);
	hex_ok("DeadBeef", HJ_HEX_BARE, "\xde\xad\xbe\xef", 4);
	hex_ok("0xFF", HJ_HEX_OPTIONAL, "\xff", 1);
	hex_ok("fF", HJ_HEX_OPTIONAL, "\xff", 1);
}

static void test_hex_cap(void **state)
{
	(void)state;
	hex_bad("0x010203", 8, HJ_HEX_REQUIRED, 2,
	        "too long: 3 bytes, at most 2 allowed");
	hex_bad("0x01", 4, HJ_HEX_REQUIRED, 0,
	        "too long: 1 bytes, at most 0 allowed");
	hex_bad("010203", 6, HJ_HEX_BARE, 1,
	        "too long: 3 bytes, at most 1 allowed");
	/* Odd is reported before too long. */
	hex_bad("0x01020", 7, HJ_HEX_REQUIRED, 1,
	        "odd number of hex digits (5)");
	hex_ok("0x010203", HJ_HEX_REQUIRED, "\x01\x02\x03", 3);
}

static void test_hex_exact(void **state)
{
	static const char h[] = "0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609"
	                        "c997693dea129192b10e";
	uint8_t want[32], *out = malloc(32);
	char err[ERRLEN];

	(void)state;
	assert_non_null(out);
	unhex(h, want, 32);
	assert_int_equal(hj_hex_decode_exact(h, 66, HJ_HEX_REQUIRED, out, 32,
	                                     err, sizeof err),
	                 0);
	assert_memory_equal(out, want, 32);
	assert_int_equal(hj_hex_decode_exact(h + 2, 64, HJ_HEX_OPTIONAL, out,
	                                     32, err, sizeof err),
	                 0);
	assert_memory_equal(out, want, 32);

	assert_int_equal(hj_hex_decode_exact(h, 64, HJ_HEX_REQUIRED, out, 32,
	                                     err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "64 hex digits expected, found 62");
	assert_int_equal(hj_hex_decode_exact(h, 65, HJ_HEX_REQUIRED, out, 32,
	                                     err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "64 hex digits expected, found 63");
	assert_int_equal(hj_hex_decode_exact(h, 66, HJ_HEX_REQUIRED, out, 20,
	                                     err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "40 hex digits expected, found 64");
	assert_int_equal(hj_hex_decode_exact(h + 2, 64, HJ_HEX_REQUIRED, out,
	                                     32, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "\"0x\" prefix missing");
	assert_int_equal(
	    hj_hex_decode_exact(h, 66, HJ_HEX_BARE, out, 32, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "'x' at offset 1 is not a hex digit");
	assert_int_equal(hj_hex_decode_exact("0x", 2, HJ_HEX_REQUIRED, out, 0,
	                                     err, sizeof err),
	                 0);
	free(out);
}

static void test_hex_err_buffer(void **state)
{
	uint8_t out[4];
	size_t outlen = 99;
	char err[16];

	(void)state;
	/* No message wanted, or no room for one: still -EINVAL. */
	assert_int_equal(hj_hex_decode("0xzz", 4, HJ_HEX_REQUIRED, out,
	                               sizeof out, &outlen, NULL, 0),
	                 -EINVAL);
	assert_int_equal(hj_hex_decode("12", 2, HJ_HEX_REQUIRED, out,
	                               sizeof out, NULL, NULL, 99),
	                 -EINVAL);
	memset(err, '#', sizeof err);
	assert_int_equal(hj_hex_decode("12", 2, HJ_HEX_REQUIRED, out,
	                               sizeof out, NULL, err, 0),
	                 -EINVAL);
	assert_int_equal(err[0], '#');
	/* A short buffer gets a cut, terminated message. */
	memset(err, '#', sizeof err);
	assert_int_equal(hj_hex_decode("12", 2, HJ_HEX_REQUIRED, out,
	                               sizeof out, NULL, err, 8),
	                 -EINVAL);
	assert_string_equal(err, "\"0x\" pr");
	assert_int_equal(err[8], '#');
	/* outlen may be NULL on success. */
	assert_int_equal(hj_hex_decode("0x7f", 4, HJ_HEX_REQUIRED, out,
	                               sizeof out, NULL, NULL, 0),
	                 0);
	assert_int_equal(out[0], 0x7f);
}

/* Encodes b[0..n) into a heap buffer of exactly 2n + 3 bytes. */
static void enc_is(const uint8_t *b, size_t n, int with_0x, const char *want)
{
	char *out = malloc(2 * n + 3);

	assert_non_null(out);
	assert_int_equal(hj_hex_encode(b, n, with_0x, out), strlen(want));
	assert_string_equal(out, want);
	free(out);
}

static void test_hex_encode(void **state)
{
	static const uint8_t b[] = {0x00, 0x0f, 0xa5, 0xff, 0x10, 0x9b};

	(void)state;
	enc_is(b, sizeof b, 1, "0x000fa5ff109b");
	enc_is(b, sizeof b, 0, "000fa5ff109b");
	enc_is(b, 1, 1, "0x00");
	enc_is(b + 3, 1, 0, "ff");
	enc_is(b, 0, 1, "0x");
	enc_is(b, 0, 0, "");
}

static void test_hex_round_trip(void **state)
{
	uint8_t all[256], back[256];
	char txt[2 * 256 + 3];
	size_t outlen = 0;
	char err[ERRLEN];

	(void)state;
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;

	/* Every byte value, with and without the prefix. */
	assert_int_equal(hj_hex_encode(all, 256, 1, txt), 514);
	assert_int_equal(txt[0], '0');
	assert_int_equal(txt[1], 'x');
	assert_memory_equal(txt + 2, "000102", 6);
	assert_memory_equal(txt + 2 + 2 * 0xa5, "a5", 2);
	assert_memory_equal(txt + 512, "ff", 2);
	assert_int_equal(hj_hex_decode(txt, 514, HJ_HEX_REQUIRED, back, 256,
	                               &outlen, err, sizeof err),
	                 0);
	assert_int_equal(outlen, 256);
	assert_memory_equal(back, all, 256);
	memset(back, 0, sizeof back);
	assert_int_equal(hj_hex_decode_exact(txt, 514, HJ_HEX_OPTIONAL, back,
	                                     256, err, sizeof err),
	                 0);
	assert_memory_equal(back, all, 256);

	assert_int_equal(hj_hex_encode(all, 256, 0, txt), 512);
	memset(back, 0, sizeof back);
	assert_int_equal(hj_hex_decode(txt, 512, HJ_HEX_BARE, back, 256,
	                               &outlen, err, sizeof err),
	                 0);
	assert_int_equal(outlen, 256);
	assert_memory_equal(back, all, 256);

	/* Upper case decodes to the same bytes; encoding gives lower case
	 * back. */
	for (size_t i = 0; i < 512; i++)
		if (txt[i] >= 'a' && txt[i] <= 'f')
			txt[i] = (char)(txt[i] - 'a' + 'A');
	assert_memory_equal(txt + 2 * 0xab, "AB", 2);
	memset(back, 0, sizeof back);
	assert_int_equal(hj_hex_decode(txt, 512, HJ_HEX_OPTIONAL, back, 256,
	                               &outlen, err, sizeof err),
	                 0);
	assert_memory_equal(back, all, 256);
	assert_int_equal(hj_hex_encode(back, 256, 0, txt), 512);
	assert_memory_equal(txt + 2 * 0xab, "ab", 2);
	for (size_t i = 0; i < 512; i++)
		assert_false(txt[i] >= 'A' && txt[i] <= 'F');
}

/* ================================================================== */
/* chain/evm                                                          */

static const uint8_t TXH[32] = {0x25, 0x99, 0x7f, 0x8b, 0x6d, 0xcb, 0xe3, 0x32,
                                0x89, 0x5a, 0xb9, 0xf0, 0x4e, 0xe1, 0xf6, 0x34,
                                0x41, 0x5b, 0x85, 0xb3, 0x0f, 0x68, 0xc8, 0xe3,
                                0x58, 0x39, 0xe5, 0xc5, 0x63, 0x32, 0xe8, 0xe7};
static const uint8_t FROM[20] = {0x5d, 0x5a, 0xf8, 0x4c, 0x79, 0xa7, 0xe6,
                                 0xcd, 0xbf, 0xa7, 0xe6, 0x25, 0x4f, 0x2e,
                                 0xd9, 0x33, 0xd9, 0x7a, 0xc7, 0xe8};
/* Above 2^64, so that a value cut to 64 bits shows. */
#define BIG_VALUE (((hj_amount)0x1234 << 64) | 0x8000000000000005ull)

/*
 * Normalises one transaction whose input sits in a heap buffer of exactly
 * n bytes (NULL when n is 0 and null_input), into an hj_action full of junk.
 */
static hj_action norm_full(const uint8_t *in, size_t n, int null_input,
                           int success, hj_amount value, uint32_t idx)
{
	uint8_t *copy = NULL;
	hj_evm_tx tx;
	hj_action a;

	if (!null_input) {
		copy = malloc(n ? n : 1);
		assert_non_null(copy);
		if (n)
			memcpy(copy, in, n);
	}
	memset(&tx, 0, sizeof tx);
	tx.hash = TXH;
	tx.from = FROM;
	tx.value = value;
	tx.input = copy;
	tx.input_len = n;
	tx.success = success;
	tx.tx_index = idx;
	memset(&a, 0xa5, sizeof a);
	hj_evm_action(&tx, &a);
	free(copy);
	return a;
}

static hj_action norm(const uint8_t *in, size_t n, int success)
{
	return norm_full(in, n, 0, success, BIG_VALUE, 7);
}

/* txid, sender, value and tx_index are set in every case (evm.h). */
static void assert_carried(const hj_action *a, hj_amount value, uint32_t idx)
{
	assert_int_equal(a->tx_index, idx);
	assert_int_equal(a->txid.len, 32);
	assert_memory_equal(a->txid.b, TXH, 32);
	assert_int_equal(a->sender.len, 20);
	assert_memory_equal(a->sender.b, FROM, 20);
	assert_amount_equal(a->value, value);
}

/* Nothing of an action leaks into a transaction that is not one. */
static void assert_no_fields(const hj_action *a)
{
	assert_int_equal(a->insurance, 0);
	assert_int_equal(a->side_pp, 0);
	assert_int_equal(a->side_t3, 0);
}

static void test_evm_failed(void **state)
{
	static const uint8_t bet4[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t bet20[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02};
	static const uint8_t peek1[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
	static const uint8_t toolong[] = {0x48, 0x4a, 0x01, 0x02, 0x00};
	static const uint8_t plain[] = {0xa9, 0x05, 0x9c, 0xbb};
	const struct {
		const uint8_t *p;
		size_t n;
	} in[] = {
	    {bet4, sizeof bet4},
	    {bet20, sizeof bet20},
	    {peek1, sizeof peek1},
	    {toolong, sizeof toolong},
	    {plain, sizeof plain},
	    {bet4, 2},
	    {NULL, 0},
	};
	hj_action a;

	(void)state;
	/* A failed receipt is HJ_TX_FAILED whatever the input holds, a valid
	 * payload included (spec section 6, last rule). */
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		a = norm(in[i].p, in[i].n, 0);
		assert_int_equal(a.kind, HJ_TX_FAILED);
		assert_int_equal(a.act, HJ_ACT_NONE);
		assert_no_fields(&a);
		assert_carried(&a, BIG_VALUE, 7);
	}
	a = norm_full(NULL, 0, 1, 0, 0, 0);
	assert_int_equal(a.kind, HJ_TX_FAILED);
	assert_carried(&a, 0, 0);
}

static void test_evm_deposit(void **state)
{
	static const uint8_t h[] = {0x48};
	static const uint8_t hj_but_empty[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t swapped[] = {0x4a, 0x48, 0x01, 0x01};
	static const uint8_t near1[] = {0x48, 0x4b, 0x01, 0x01};
	static const uint8_t near2[] = {0x49, 0x4a, 0x01, 0x01};
	static const uint8_t lower[] = {'h', 'j', 0x01, 0x01};
	/* The text "0x48" as bytes: not the magic. */
	static const uint8_t text[] = {'0', 'x', '4', '8'};
	static const uint8_t zero[] = {0x00};
	/* An ERC-20 transfer(address,uint256) call. */
	uint8_t erc20[4 + 64];
	const struct {
		const uint8_t *p;
		size_t n;
	} in[] = {
	    {h, sizeof h},         {hj_but_empty, 0},
	    {hj_but_empty, 1},     {swapped, sizeof swapped},
	    {near1, sizeof near1}, {near2, sizeof near2},
	    {lower, sizeof lower}, {text, sizeof text},
	    {zero, sizeof zero},   {erc20, sizeof erc20},
	};
	hj_action a;

	(void)state;
	memset(erc20, 0, sizeof erc20);
	erc20[0] = 0xa9;
	erc20[1] = 0x05;
	erc20[2] = 0x9c;
	erc20[3] = 0xbb;
	erc20[35] = 0x48;
	erc20[36] = 0x4a;

	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		a = norm(in[i].p, in[i].n, 1);
		assert_int_equal(a.kind, HJ_TX_DEPOSIT);
		assert_int_equal(a.act, HJ_ACT_NONE);
		assert_no_fields(&a);
		assert_carried(&a, BIG_VALUE, 7);
	}
	/* Empty input given as NULL, and a zero-value call (LOG.md: "0" is
	 * possible). */
	a = norm_full(NULL, 0, 1, 1, 0, 3);
	assert_int_equal(a.kind, HJ_TX_DEPOSIT);
	assert_int_equal(a.act, HJ_ACT_NONE);
	assert_carried(&a, 0, 3);
	a = norm_full(NULL, 0, 0, 1, E18, UINT32_MAX);
	assert_int_equal(a.kind, HJ_TX_DEPOSIT);
	assert_carried(&a, E18, UINT32_MAX);
}

static void check_malformed(const uint8_t *p, size_t n, hj_reason why,
                            hj_act act)
{
	hj_action a = norm(p, n, 1);

	assert_int_equal(a.kind, HJ_TX_MALFORMED);
	assert_int_equal(a.reason, why);
	assert_int_equal(a.act, act);
	assert_no_fields(&a);
	assert_carried(&a, BIG_VALUE, 7);
}

static void test_evm_malformed(void **state)
{
	uint8_t p[128];

	(void)state;
	memset(p, 0x01, sizeof p);
	p[0] = 0x48;
	p[1] = 0x4a;

	/* truncated: the magic, but no version or action. */
	check_malformed(p, 2, HJ_R_TRUNCATED, HJ_ACT_NONE);
	check_malformed(p, 3, HJ_R_TRUNCATED, HJ_ACT_NONE);

	/* bad_version, whatever follows: the action is not named. */
	for (unsigned v = 0; v < 256; v++) {
		if (v == 0x01)
			continue;
		p[2] = (uint8_t)v;
		p[3] = 0x01;
		check_malformed(p, 4, HJ_R_BAD_VERSION, HJ_ACT_NONE);
		check_malformed(p, 20, HJ_R_BAD_VERSION, HJ_ACT_NONE);
	}
	p[2] = 0x01;

	/* unknown_action: outside 01..07. */
	for (unsigned x = 0; x < 256; x++) {
		if (x >= 1 && x <= 7)
			continue;
		p[3] = (uint8_t)x;
		check_malformed(p, 4, HJ_R_UNKNOWN_ACTION, HJ_ACT_NONE);
		check_malformed(p, 12, HJ_R_UNKNOWN_ACTION, HJ_ACT_NONE);
	}

	/* Bet: 4, 12 or 20 bytes; anything else up to 20 is bad_length,
	 * beyond it too_long. */
	p[3] = 0x01;
	for (size_t n = 5; n <= 19; n++)
		if (n != 12)
			check_malformed(p, n, HJ_R_BAD_LENGTH, HJ_BET);
	check_malformed(p, 21, HJ_R_TOO_LONG, HJ_BET);
	check_malformed(p, 28, HJ_R_TOO_LONG, HJ_BET);
	check_malformed(p, sizeof p, HJ_R_TOO_LONG, HJ_BET);

	/* Hit, Stand, Double, Split, Surrender: exactly 4 bytes. */
	for (unsigned x = HJ_HIT; x <= HJ_SURRENDER; x++) {
		p[3] = (uint8_t)x;
		check_malformed(p, 5, HJ_R_TOO_LONG, (hj_act)x);
		check_malformed(p, 77, HJ_R_TOO_LONG, (hj_act)x);
	}

	/* Peek: exactly 5 bytes, flag 00 or 01. */
	p[3] = 0x07;
	check_malformed(p, 4, HJ_R_BAD_LENGTH, HJ_PEEK);
	check_malformed(p, 6, HJ_R_TOO_LONG, HJ_PEEK);
	p[4] = 0x02;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
	p[4] = 0xff;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
	p[4] = 0x10;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
}

static hj_action check_action(const uint8_t *p, size_t n, hj_act act)
{
	hj_action a = norm(p, n, 1);

	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_int_equal(a.act, act);
	assert_int_equal(a.reason, HJ_OK);
	assert_carried(&a, BIG_VALUE, 7);
	return a;
}

static void test_evm_actions(void **state)
{
	static const uint8_t bet4[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t bet12[] = {0x48, 0x4a, 0x01, 0x01, 0x01, 0x02,
	                                0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
	static const uint8_t bet20[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff};
	static const uint8_t bet20t3[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8};
	static const uint8_t peek0[] = {0x48, 0x4a, 0x01, 0x07, 0x00};
	static const uint8_t peek1[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
	uint8_t p[4] = {0x48, 0x4a, 0x01, 0x00};
	hj_action a;

	(void)state;
	a = check_action(bet4, sizeof bet4, HJ_BET);
	assert_no_fields(&a);

	/* Side stakes are big-endian u64s (section 6); whether they are
	 * offered is the table's call, so they come through. */
	a = check_action(bet12, sizeof bet12, HJ_BET);
	assert_int_equal(a.side_pp, 0x0102030405060708ull);
	assert_int_equal(a.side_t3, 0);
	assert_int_equal(a.insurance, 0);

	a = check_action(bet20, sizeof bet20, HJ_BET);
	assert_int_equal(a.side_pp, 0x8000000000000001ull);
	assert_int_equal(a.side_t3, 0xffull);

	a = check_action(bet20t3, sizeof bet20t3, HJ_BET);
	assert_int_equal(a.side_pp, 0);
	assert_int_equal(a.side_t3, 0xfffefdfcfbfaf9f8ull);

	for (unsigned x = HJ_HIT; x <= HJ_SURRENDER; x++) {
		p[3] = (uint8_t)x;
		a = check_action(p, sizeof p, (hj_act)x);
		assert_no_fields(&a);
	}

	a = check_action(peek1, sizeof peek1, HJ_PEEK);
	assert_int_equal(a.insurance, 1);
	assert_int_equal(a.side_pp, 0);
	assert_int_equal(a.side_t3, 0);
	a = check_action(peek0, sizeof peek0, HJ_PEEK);
	assert_no_fields(&a);
}

static void test_evm_carried(void **state)
{
	static const uint8_t hit[] = {0x48, 0x4a, 0x01, 0x02};
	static const uint8_t bad[] = {0x48, 0x4a, 0x01, 0x09};
	hj_action a;

	(void)state;
	/* Values and indexes at their extremes, in each kind. */
	a = norm_full(hit, sizeof hit, 0, 1, HJ_AMOUNT_MAX, UINT32_MAX);
	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_carried(&a, HJ_AMOUNT_MAX, UINT32_MAX);
	a = norm_full(hit, sizeof hit, 0, 1, 0, 0);
	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_carried(&a, 0, 0);
	a = norm_full(bad, sizeof bad, 0, 1, 7, 2);
	assert_int_equal(a.kind, HJ_TX_MALFORMED);
	assert_int_equal(a.reason, HJ_R_UNKNOWN_ACTION);
	assert_carried(&a, 7, 2);
	a = norm_full(bad, sizeof bad, 0, 0, E18 * 1000, 123456);
	assert_int_equal(a.kind, HJ_TX_FAILED);
	assert_carried(&a, E18 * 1000, 123456);

	/* The hash and sender are copied, not borrowed. */
	{
		uint8_t hash[32], from[20];
		hj_evm_tx tx;

		memcpy(hash, TXH, 32);
		memcpy(from, FROM, 20);
		memset(&tx, 0, sizeof tx);
		tx.hash = hash;
		tx.from = from;
		tx.value = 5;
		tx.input = hit;
		tx.input_len = sizeof hit;
		tx.success = 1;
		tx.tx_index = 9;
		hj_evm_action(&tx, &a);
		memset(hash, 0, sizeof hash);
		memset(from, 0, sizeof from);
		assert_carried(&a, 5, 9);
	}
}

/* ================================================================== */
/* daemon/cardlog                                                     */

#define DOC_DRAW_PLAYER                                                        \
	"{\"type\":\"draw\",\"round\":"                                        \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"AS\"}"
#define DOC_DRAW_DEALER                                                        \
	"{\"type\":\"draw\",\"round\":"                                        \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"handOwner\":\"Dealer\",\"card\":\"9D\"}"
#define DOC_BET                                                                \
	"{\"type\":\"action\",\"action\":\"Bet\",\"round\":"                   \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"player\":\"0xc425efb5524ad63f1341d1631a24dfb05e18c196\",\"tx\":" \
	"\"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca" \
	"\",\"txIndex\":0,\"stake\":\"1001\"}"
#define DOC_HIT                                                                \
	"{\"type\":\"action\",\"action\":\"Hit\",\"round\":"                   \
	"\"0x44ea916eeaff17aa3c6919f60eef1aa6e974e1d5f1d305367fab10976a8f4f5e" \
	"\",\"player\":\"0x729e5dd9543406ef34d5d0e04e75c8b7abacc470\",\"tx\":" \
	"\"0xe281f365d7f6202dc06457606314f6f32c8c9c2c561e1e2239f05084a84ef56f" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_STAND                                                              \
	"{\"type\":\"action\",\"action\":\"Stand\",\"round\":"                 \
	"\"0xfac92b878df0ac51b821c7f7a13d2a9c1dd3d005c55c980c382ff5e9c4137b27" \
	"\",\"player\":\"0x9765c9ccf4eddb13218b495193a2d93a43befe7d\",\"tx\":" \
	"\"0xdd7b90bcf35a700f3ec806a7d47f6cb02442da3f3ed370d4e149a8c25b7c102d" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_DOUBLE                                                             \
	"{\"type\":\"action\",\"action\":\"Double\",\"round\":"                \
	"\"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a" \
	"\",\"player\":\"0x72bc1cc485f385d22f19744ad31f983e53a77043\",\"tx\":" \
	"\"0x2d82cacd0a06ef55e0120fede520b4f5dde315cfbfd071720554e73c75cddffc" \
	"\",\"txIndex\":1,\"handIndex\":0,\"stake\":\"200000000000000000\"}"
#define DOC_SPLIT                                                              \
	"{\"type\":\"action\",\"action\":\"Split\",\"round\":"                 \
	"\"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74" \
	"\",\"player\":\"0x55dc773bab423d7883496618050e585e4ccd9a64\",\"tx\":" \
	"\"0x6121adaaa0370659323ad58d7d8835ff4b90dc346b994fd9046b26f4832fcbd5" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"40000\"}"
#define DOC_SURRENDER                                                          \
	"{\"type\":\"action\",\"action\":\"Surrender\",\"round\":"             \
	"\"0x0828d3963e8cb099cb1f85b0e7ec1fb741cbe5bce85073dc9575472fb1b123ba" \
	"\",\"player\":\"0xef10e41dd87b9d06dca223552fbdff865daa912c\",\"tx\":" \
	"\"0xe926f27b0d8da88b6f41c68e50329624e884b14c33ef49c5b13a30299ff18ff1" \
	"\",\"txIndex\":0,\"handIndex\":0,\"stake\":\"0\"}"
#define DOC_PEEK                                                               \
	"{\"type\":\"action\",\"action\":\"Peek\",\"round\":"                  \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"player\":\"0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8\",\"tx\":" \
	"\"0x25997f8b6dcbe332895ab9f04ee1f634415b85b30f68c8e35839e5c56332e8e7" \
	"\",\"txIndex\":1,\"insurance\":true,\"stake\":\"500\"}"
#define DOC_REJECT_VALUE                                                       \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x4de50b0883a4161836805f42a0315a1ac1237702374ff131db387459ef376d2c" \
	"\",\"txIndex\":0,\"from\":"                                           \
	"\"0x72bc1cc485f385d22f19744ad31f983e53a77043\",\"action\":"           \
	"\"Double\",\"round\":"                                                \
	"\"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a" \
	"\",\"reason\":\"wrong_value\",\"refund\":\"100000000000000000\"}"
#define DOC_REJECT_NO_ROUND                                                    \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x9093eb1982c2734a052a1fe010e07af71395a851e38dab5ca9095761ad521c6f" \
	"\",\"txIndex\":2,\"from\":"                                           \
	"\"0xcbf0d16f1a9f0694b2cb582727d27321692aee78\",\"action\":\"Hit\","   \
	"\"reason\":\"no_round\",\"refund\":\"7\"}"
#define DOC_REJECT_VERSION                                                     \
	"{\"type\":\"reject\",\"tx\":"                                         \
	"\"0x482d29a83cc63e29a25285c0876ee453a7d8340f4c1e9ecf84c5cc341261343e" \
	"\",\"txIndex\":3,\"from\":"                                           \
	"\"0xadbed635d1e91cbff60f22b437fbc3fad70caf70\",\"reason\":\"bad_"     \
	"version\",\"refund\":\"1000\"}"
#define DOC_DEPOSIT                                                            \
	"{\"type\":\"deposit\",\"tx\":"                                        \
	"\"0x159b8d6f44e8b82aada74fc6692999f10e6da8a4e15215e82cd06d8b94f668f8" \
	"\",\"txIndex\":0,\"from\":"                                           \
	"\"0x2229573478a2eec4bd93511a874779bb786cfc54\",\"value\":\"123\"}"
#define DOC_IGNORED                                                            \
	"{\"type\":\"ignored\",\"tx\":"                                        \
	"\"0x0ed81c5156b915e81b5965e62d78f5946526233dbd71ff9b21551fd86a72937d" \
	"\",\"txIndex\":1,\"from\":"                                           \
	"\"0xbd88d36e5fb48ab884ab2d57552438fa481f7b40\",\"reason\":\"tx_"      \
	"failed\"}"
#define DOC_TIMEOUT_STAND                                                      \
	"{\"type\":\"timeout\",\"round\":"                                     \
	"\"0xe034d8e899483b80115675f78e94d08310720c5f3264996c2fc01a9679484d2c" \
	"\",\"action\":\"Stand\",\"handIndex\":0}"
#define DOC_TIMEOUT_PEEK                                                       \
	"{\"type\":\"timeout\",\"round\":"                                     \
	"\"0x23379c196d5c570d36113f444864a72a082fe2b5fc64676c2257c0c93fe4b299" \
	"\",\"action\":\"Peek\"}"
#define DOC_SETTLE_INSURED                                                     \
	"{\"type\":\"settle\",\"round\":"                                      \
	"\"0x0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b" \
	"\",\"player\":\"0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8\","        \
	"\"dealerHand\":{\"cards\":[\"AH\",\"KD\"],\"total\":21},"             \
	"\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\",\"9C\"],"        \
	"\"total\":19,\"betAmount\":\"1000\",\"status\":\"Lose\",\"payout\":"  \
	"\"0\"}],\"insurance\":{\"betAmount\":\"500\",\"payout\":\"1500\"},"   \
	"\"betAmount\":\"1500\",\"payout\":\"1500\"}"
#define DOC_SETTLE_SPLIT                                                       \
	"{\"type\":\"settle\",\"round\":"                                      \
	"\"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74" \
	"\",\"player\":\"0x55dc773bab423d7883496618050e585e4ccd9a64\","        \
	"\"dealerHand\":{\"cards\":[\"10H\",\"AC\"],\"total\":21},"            \
	"\"playerHands\":[{\"handIndex\":0,\"cards\":[\"9S\",\"2C\"],"         \
	"\"total\":11,\"betAmount\":\"40000\",\"status\":\"DealerBlackjack\"," \
	"\"payout\":\"0\"},{\"handIndex\":1,\"cards\":[\"9D\",\"KS\"],"        \
	"\"total\":19,\"betAmount\":\"40000\",\"status\":\"DealerBlackjack\"," \
	"\"payout\":\"40000\"}],\"betAmount\":\"80000\",\"payout\":\"40000\"}"
#define DOC_CARD_AS                                                            \
	"\"card\":{\"rank\":\"A\",\"suit\":\"Spades\",\"value\":1,\"code\":"   \
	"\"AS\",\"pos\":61,\"rankDigit\":\"1\",\"colorDigit\":\"b\"}"

/* Ids of those examples. */
#define R_BET                                                                  \
	"0x49fa7a95e44374c316a495802714d23197b6893b693c0844018b3893e53e56ca"
#define P_BET "0xc425efb5524ad63f1341d1631a24dfb05e18c196"
#define R_HIT                                                                  \
	"0x44ea916eeaff17aa3c6919f60eef1aa6e974e1d5f1d305367fab10976a8f4f5e"
#define P_HIT "0x729e5dd9543406ef34d5d0e04e75c8b7abacc470"
#define T_HIT_H                                                                \
	"e281f365d7f6202dc06457606314f6f32c8c9c2c561e1e2239f05084a84ef56f"
#define T_HIT "0x" T_HIT_H
#define R_STAND                                                                \
	"0xfac92b878df0ac51b821c7f7a13d2a9c1dd3d005c55c980c382ff5e9c4137b27"
#define P_STAND "0x9765c9ccf4eddb13218b495193a2d93a43befe7d"
#define T_STAND                                                                \
	"0xdd7b90bcf35a700f3ec806a7d47f6cb02442da3f3ed370d4e149a8c25b7c102d"
#define R_DOUBLE                                                               \
	"0xb9faad841fa83286a9d1dccecfcf35934ddff91c5fde58cb6768bd670437f35a"
#define P_DOUBLE "0x72bc1cc485f385d22f19744ad31f983e53a77043"
#define T_DOUBLE                                                               \
	"0x2d82cacd0a06ef55e0120fede520b4f5dde315cfbfd071720554e73c75cddffc"
#define R_SPLIT                                                                \
	"0xe66ec702a1660ea3016dc666225d7367ff9b8c08fb436950359754fb1073ae74"
#define P_SPLIT "0x55dc773bab423d7883496618050e585e4ccd9a64"
#define T_SPLIT                                                                \
	"0x6121adaaa0370659323ad58d7d8835ff4b90dc346b994fd9046b26f4832fcbd5"
#define R_SURR                                                                 \
	"0x0828d3963e8cb099cb1f85b0e7ec1fb741cbe5bce85073dc9575472fb1b123ba"
#define P_SURR "0xef10e41dd87b9d06dca223552fbdff865daa912c"
#define T_SURR                                                                 \
	"0xe926f27b0d8da88b6f41c68e50329624e884b14c33ef49c5b13a30299ff18ff1"
#define R_PEEK_H                                                               \
	"0f6b6d28cff7817ee87309b75aa073e0f8c2d72e3c67b94fcff6163f268e336b"
#define R_PEEK "0x" R_PEEK_H
#define P_PEEK "0x5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8"
#define T_PEEK                                                                 \
	"0x25997f8b6dcbe332895ab9f04ee1f634415b85b30f68c8e35839e5c56332e8e7"
#define T_REJ1                                                                 \
	"0x4de50b0883a4161836805f42a0315a1ac1237702374ff131db387459ef376d2c"
#define T_REJ2                                                                 \
	"0x9093eb1982c2734a052a1fe010e07af71395a851e38dab5ca9095761ad521c6f"
#define F_REJ2 "0xcbf0d16f1a9f0694b2cb582727d27321692aee78"
#define T_REJ3                                                                 \
	"0x482d29a83cc63e29a25285c0876ee453a7d8340f4c1e9ecf84c5cc341261343e"
#define F_REJ3 "0xadbed635d1e91cbff60f22b437fbc3fad70caf70"
#define T_DEP_H                                                                \
	"159b8d6f44e8b82aada74fc6692999f10e6da8a4e15215e82cd06d8b94f668f8"
#define T_DEP "0x" T_DEP_H
#define F_DEP "0x2229573478a2eec4bd93511a874779bb786cfc54"
#define T_IGN                                                                  \
	"0x0ed81c5156b915e81b5965e62d78f5946526233dbd71ff9b21551fd86a72937d"
#define F_IGN "0xbd88d36e5fb48ab884ab2d57552438fa481f7b40"
#define R_TO_STAND                                                             \
	"0xe034d8e899483b80115675f78e94d08310720c5f3264996c2fc01a9679484d2c"
#define R_TO_PEEK                                                              \
	"0x23379c196d5c570d36113f444864a72a082fe2b5fc64676c2257c0c93fe4b299"

/* Spec section 1's vectors: Ace of Spades at 61 (LOG.md's card example),
 * 6 of Hearts at 62, and void. */
#define VEC2_H                                                                 \
	"0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e"
#define VEC2 "0x" VEC2_H
#define GENESIS                                                                \
	"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
#define Z10     "0000000000"
#define Z60     Z10 Z10 Z10 Z10 Z10 Z10
#define E10     "eeeeeeeeee"
#define E60     E10 E10 E10 E10 E10 E10
#define VOID_EF "0x" Z60 "00ef"

/* A card object as docs/LOG.md lays it out. */
#define CARDJ(rank, suit, value, code, pos, rd, cd)                            \
	"\"card\":{\"rank\":\"" rank "\",\"suit\":\"" suit                     \
	"\",\"value\":" value ",\"code\":\"" code "\",\"pos\":" pos            \
	",\"rankDigit\":\"" rd "\",\"colorDigit\":\"" cd "\"}"
/* The start of an EVM line, up to the card or "void". */
#define HEAD(height, hash, parent)                                             \
	"{\"v\":1,\"chain\":\"evm\",\"height\":" height ",\"hash\":\"" hash    \
	"\",\"parent\":\"" parent "\","

/* The line the single-event tests write their event into. */
#define STD_HEIGHT 19000006
#define STD_PREFIX                                                             \
	HEAD("19000006", VEC2, "0x" GENESIS) DOC_CARD_AS ",\"events\":["
#define SUFFIX "]}\n"

/* Key orders of docs/LOG.md. */
static const char *const K_LINE_CARD[] = {"v",      "chain", "height", "hash",
                                          "parent", "card",  "events", NULL};
static const char *const K_LINE_VOID[] = {"v",      "chain", "height", "hash",
                                          "parent", "void",  "events", NULL};
static const char *const K_CARD[] = {"rank", "suit",      "value",      "code",
                                     "pos",  "rankDigit", "colorDigit", NULL};
static const char *const K_DRAW_P[] = {"type",      "round", "handOwner",
                                       "handIndex", "card",  NULL};
static const char *const K_DRAW_D[] = {"type", "round", "handOwner", "card",
                                       NULL};
static const char *const K_ACT_BET[] = {"type", "action",  "round", "player",
                                        "tx",   "txIndex", "stake", NULL};
static const char *const K_ACT_HAND[] = {"type",      "action", "round",
                                         "player",    "tx",     "txIndex",
                                         "handIndex", "stake",  NULL};
static const char *const K_ACT_PEEK[] = {"type",      "action", "round",
                                         "player",    "tx",     "txIndex",
                                         "insurance", "stake",  NULL};
static const char *const K_REJ_FULL[] = {"type",   "tx",     "txIndex",
                                         "from",   "action", "round",
                                         "reason", "refund", NULL};
static const char *const K_REJ_ACT[] = {"type",   "tx",     "txIndex", "from",
                                        "action", "reason", "refund",  NULL};
static const char *const K_REJ_MIN[] = {"type",   "tx",     "txIndex", "from",
                                        "reason", "refund", NULL};
static const char *const K_DEPOSIT[] = {"type", "tx",    "txIndex",
                                        "from", "value", NULL};
static const char *const K_IGNORED[] = {"type", "tx",     "txIndex",
                                        "from", "reason", NULL};
static const char *const K_TO_HAND[] = {"type", "round", "action", "handIndex",
                                        NULL};
static const char *const K_TO_PEEK[] = {"type", "round", "action", NULL};
static const char *const K_SETTLE[] = {"type",       "round",       "player",
                                       "dealerHand", "playerHands", "betAmount",
                                       "payout",     NULL};
static const char *const K_SETTLE_INS[] = {
    "type",      "round",     "player", "dealerHand", "playerHands",
    "insurance", "betAmount", "payout", NULL};
static const char *const K_HAND_D[] = {"cards", "total", NULL};
static const char *const K_HAND_P[] = {
    "handIndex", "cards", "total", "betAmount", "status", "payout", NULL};
static const char *const K_INS[] = {"betAmount", "payout", NULL};

/* The keys of obj, in order, are exactly keys (jansson keeps insertion
 * order, which for a parsed object is the order in the text). */
static void assert_keys(json_t *obj, const char *const *keys)
{
	void *it;
	size_t i;

	assert_non_null(obj);
	assert_true(json_is_object(obj));
	it = json_object_iter(obj);
	for (i = 0; keys[i] != NULL; i++) {
		if (it == NULL)
			fail_msg("key \"%s\" missing", keys[i]);
		assert_string_equal(json_object_iter_key(it), keys[i]);
		it = json_object_iter_next(obj, it);
	}
	if (it != NULL)
		fail_msg("unexpected key \"%s\"", json_object_iter_key(it));
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string", k);
	return json_string_value(v);
}

static json_int_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("\"%s\" is not an integer", k);
	return json_integer_value(v);
}

static json_t *parse(const char *line)
{
	json_error_t e;
	json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &e);

	if (j == NULL)
		fail_msg("not JSON (%s at %d): %s", e.text, e.position, line);
	assert_true(json_is_object(j));
	return j;
}

/*
 * Ends the line and checks what every line is (LOG.md, Stability): one
 * "\n", at the end; printable ASCII without a space before it.  Returns a
 * NUL-terminated copy for the caller to free.
 */
static char *finish(hj_cardlog *cl)
{
	const char *line = NULL;
	size_t len = 0;
	char *s;

	assert_int_equal(hj_cardlog_end(cl, &line, &len), 0);
	assert_non_null(line);
	assert_true(len >= 2);
	assert_int_equal(line[len - 1], '\n');
	for (size_t i = 0; i + 1 < len; i++)
		if (!(line[i] > 0x20 && line[i] < 0x7f))
			fail_msg("byte 0x%02x at %zu", (unsigned char)line[i],
			         i);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, line, len);
	s[len] = '\0';
	return s;
}

static void begin_block(hj_cardlog *cl, uint64_t height, const char *hash,
                        const char *parent)
{
	uint8_t h[32], p[32];
	hj_card card;

	unhex(hash, h, 32);
	unhex(parent, p, 32);
	assert_int_equal(hj_card_from_hash(hash, strlen(hash), &card, NULL, 0),
	                 0);
	assert_int_equal(
	    hj_cardlog_begin(cl, "evm", HJ_EVM, height, h, p, &card), 0);
}

static void begin_std(hj_cardlog *cl)
{
	begin_block(cl, STD_HEIGHT, VEC2, GENESIS);
}

static hj_round mkround(const char *id, const char *player)
{
	hj_round r;

	memset(&r, 0, sizeof r);
	r.id = id_of(id);
	r.player = id_of(player);
	r.nhands = 1;
	r.phase = HJ_PH_PLAY;
	return r;
}

static hj_action mktx(hj_txkind kind, const char *hash, uint32_t idx,
                      const char *from, hj_amount value)
{
	hj_action a;

	memset(&a, 0, sizeof a);
	a.kind = kind;
	a.txid = id_of(hash);
	a.tx_index = idx;
	if (from != NULL)
		a.sender = id_of(from);
	a.value = value;
	return a;
}

/*
 * Writes ev as the only event of the standard line and checks the whole
 * line against want and the event's keys against keys.  Returns the parsed
 * line (the caller decrefs it) and sets *evo to the event's object.
 */
static json_t *one_event(const hj_event *ev, const char *want,
                         const char *const *keys, json_t **evo)
{
	hj_cardlog cl;
	size_t n = strlen(STD_PREFIX) + strlen(want) + strlen(SUFFIX) + 1;
	char *line, *expect = malloc(n);
	json_t *j, *evs;

	assert_non_null(expect);
	hj_cardlog_init(&cl);
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, ev), 0);
	line = finish(&cl);
	hj_cardlog_release(&cl);
	snprintf(expect, n, "%s%s%s", STD_PREFIX, want, SUFFIX);
	assert_string_equal(line, expect);
	j = parse(line);
	assert_keys(j, K_LINE_CARD);
	evs = json_object_get(j, "events");
	assert_true(json_is_array(evs));
	assert_int_equal(json_array_size(evs), 1);
	*evo = json_array_get(evs, 0);
	assert_keys(*evo, keys);
	free(line);
	free(expect);
	return j;
}

/* Every example event of docs/LOG.md, built from what it describes. */
enum {
	D_DRAW_PLAYER,
	D_DRAW_DEALER,
	D_BET,
	D_HIT,
	D_STAND,
	D_DOUBLE,
	D_SPLIT,
	D_SURRENDER,
	D_PEEK,
	D_REJECT_VALUE,
	D_REJECT_NO_ROUND,
	D_REJECT_VERSION,
	D_DEPOSIT,
	D_IGNORED,
	D_TIMEOUT_STAND,
	D_TIMEOUT_PEEK,
	D_SETTLE_INSURED,
	D_SETTLE_SPLIT,
	NDOC
};

static const char *const doc_want[NDOC] = {
    DOC_DRAW_PLAYER,  DOC_DRAW_DEALER,     DOC_BET,
    DOC_HIT,          DOC_STAND,           DOC_DOUBLE,
    DOC_SPLIT,        DOC_SURRENDER,       DOC_PEEK,
    DOC_REJECT_VALUE, DOC_REJECT_NO_ROUND, DOC_REJECT_VERSION,
    DOC_DEPOSIT,      DOC_IGNORED,         DOC_TIMEOUT_STAND,
    DOC_TIMEOUT_PEEK, DOC_SETTLE_INSURED,  DOC_SETTLE_SPLIT,
};

static const char *const *const doc_keys[NDOC] = {
    K_DRAW_P,   K_DRAW_D,   K_ACT_BET,  K_ACT_HAND, K_ACT_HAND,   K_ACT_HAND,
    K_ACT_HAND, K_ACT_HAND, K_ACT_PEEK, K_REJ_FULL, K_REJ_ACT,    K_REJ_MIN,
    K_DEPOSIT,  K_IGNORED,  K_TO_HAND,  K_TO_PEEK,  K_SETTLE_INS, K_SETTLE,
};

struct docfx {
	hj_round r_bet, r_hit, r_stand, r_double, r_split, r_surr, r_peek;
	hj_round r_to_stand, r_to_peek, r_split_done;
	hj_action t_bet, t_hit, t_stand, t_double, t_split, t_surr, t_peek;
	hj_action t_rej1, t_rej2, t_rej3, t_dep, t_ign;
	hj_settlement s_ins, s_split;
	hj_event ev[NDOC];
};

#define C(rank, suit) hj_code((rank), (suit))

/* Fills *f in place: the events point into it. */
static void doc_events(struct docfx *f)
{
	hj_round *r;
	hj_event *ev = f->ev;

	memset(f, 0, sizeof *f);
	f->r_bet = mkround(R_BET, P_BET);
	f->r_hit = mkround(R_HIT, P_HIT);
	f->r_stand = mkround(R_STAND, P_STAND);
	f->r_double = mkround(R_DOUBLE, P_DOUBLE);
	f->r_split = mkround(R_SPLIT, P_SPLIT);
	f->r_surr = mkround(R_SURR, P_SURR);
	f->r_peek = mkround(R_PEEK, P_PEEK);
	f->r_to_stand = mkround(R_TO_STAND, P_STAND);
	f->r_to_peek = mkround(R_TO_PEEK, P_HIT);

	f->t_bet = mktx(HJ_TX_ACTION, R_BET, 0, P_BET, 1001);
	f->t_bet.act = HJ_BET;
	/* No sender on the Hit: an action's "player" is the round's. */
	f->t_hit = mktx(HJ_TX_ACTION, T_HIT, 0, NULL, 0);
	f->t_hit.act = HJ_HIT;
	f->t_stand = mktx(HJ_TX_ACTION, T_STAND, 0, P_STAND, 0);
	f->t_stand.act = HJ_STAND;
	f->t_double = mktx(HJ_TX_ACTION, T_DOUBLE, 1, P_DOUBLE,
	                   (hj_amount)200000000000000000ull);
	f->t_double.act = HJ_DOUBLE;
	f->t_split = mktx(HJ_TX_ACTION, T_SPLIT, 0, P_SPLIT, 40000);
	f->t_split.act = HJ_SPLIT;
	f->t_surr = mktx(HJ_TX_ACTION, T_SURR, 0, P_SURR, 0);
	f->t_surr.act = HJ_SURRENDER;
	f->t_peek = mktx(HJ_TX_ACTION, T_PEEK, 1, P_PEEK, 500);
	f->t_peek.act = HJ_PEEK;
	f->t_peek.insurance = 1;
	f->t_rej1 = mktx(HJ_TX_ACTION, T_REJ1, 0, P_DOUBLE,
	                 (hj_amount)100000000000000000ull);
	f->t_rej1.act = HJ_DOUBLE;
	f->t_rej2 = mktx(HJ_TX_ACTION, T_REJ2, 2, F_REJ2, 7);
	f->t_rej2.act = HJ_HIT;
	f->t_rej3 = mktx(HJ_TX_MALFORMED, T_REJ3, 3, F_REJ3, 1000);
	f->t_rej3.reason = HJ_R_BAD_VERSION;
	f->t_dep = mktx(HJ_TX_DEPOSIT, T_DEP, 0, F_DEP, 123);
	f->t_ign = mktx(HJ_TX_FAILED, T_IGN, 1, F_IGN, 5);

	ev[D_DRAW_PLAYER] = (hj_event){.type = HJ_EV_DRAW,
	                               .round = &f->r_bet,
	                               .hand = 0,
	                               .card = C(HJ_ACE, HJ_SPADES)};
	ev[D_DRAW_DEALER] = (hj_event){.type = HJ_EV_DRAW,
	                               .round = &f->r_bet,
	                               .hand = HJ_DEALER,
	                               .card = C(9, HJ_DIAMONDS)};
#define ACTION(i, rr, tt, a, h)                                                \
	ev[i] = (hj_event){.type = HJ_EV_ACTION,                               \
	                   .round = &f->rr,                                    \
	                   .tx = &f->tt,                                       \
	                   .act = (a),                                         \
	                   .hand = (h),                                        \
	                   .amount = f->tt.value}
	ACTION(D_BET, r_bet, t_bet, HJ_BET, -1);
	ACTION(D_HIT, r_hit, t_hit, HJ_HIT, 0);
	ACTION(D_STAND, r_stand, t_stand, HJ_STAND, 0);
	ACTION(D_DOUBLE, r_double, t_double, HJ_DOUBLE, 0);
	ACTION(D_SPLIT, r_split, t_split, HJ_SPLIT, 0);
	ACTION(D_SURRENDER, r_surr, t_surr, HJ_SURRENDER, 0);
	ACTION(D_PEEK, r_peek, t_peek, HJ_PEEK, -1);
#undef ACTION
	ev[D_REJECT_VALUE] = (hj_event){.type = HJ_EV_REJECT,
	                                .round = &f->r_double,
	                                .tx = &f->t_rej1,
	                                .act = HJ_DOUBLE,
	                                .reason = HJ_R_WRONG_VALUE,
	                                .amount = f->t_rej1.value};
	ev[D_REJECT_NO_ROUND] = (hj_event){.type = HJ_EV_REJECT,
	                                   .tx = &f->t_rej2,
	                                   .act = HJ_HIT,
	                                   .reason = HJ_R_NO_ROUND,
	                                   .amount = 7};
	ev[D_REJECT_VERSION] = (hj_event){.type = HJ_EV_REJECT,
	                                  .tx = &f->t_rej3,
	                                  .act = HJ_ACT_NONE,
	                                  .reason = HJ_R_BAD_VERSION,
	                                  .amount = 1000};
	ev[D_DEPOSIT] = (hj_event){.type = HJ_EV_DEPOSIT, .tx = &f->t_dep};
	ev[D_IGNORED] = (hj_event){.type = HJ_EV_IGNORED, .tx = &f->t_ign};
	ev[D_TIMEOUT_STAND] = (hj_event){.type = HJ_EV_TIMEOUT,
	                                 .round = &f->r_to_stand,
	                                 .act = HJ_STAND,
	                                 .hand = 0};
	ev[D_TIMEOUT_PEEK] = (hj_event){.type = HJ_EV_TIMEOUT,
	                                .round = &f->r_to_peek,
	                                .act = HJ_PEEK,
	                                .hand = -1};

	/* Insurance taken, dealer blackjack behind an Ace: the hand loses,
	 * insurance returns 3 x 500. */
	r = &f->r_peek;
	r->bet = 1000;
	r->insured = 1;
	r->insurance = 500;
	r->dealer_n = 2;
	r->dealer[0] = C(HJ_ACE, HJ_HEARTS);
	r->dealer[1] = C(HJ_KING, HJ_DIAMONDS);
	r->hands[0].stake = 1000;
	r->hands[0].n = 2;
	r->hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
	r->hands[0].cards[1] = C(9, HJ_CLUBS);
	f->s_ins.status[0] = HJ_ST_LOSE;
	f->s_ins.ret[0] = 0;
	f->s_ins.ins_ret = 1500;
	f->s_ins.total_stake = 1500;
	f->s_ins.total_ret = 1500;
	ev[D_SETTLE_INSURED] =
	    (hj_event){.type = HJ_EV_SETTLE, .round = r, .settle = &f->s_ins};

	/* A split round that met a late dealer blackjack. */
	f->r_split_done = mkround(R_SPLIT, P_SPLIT);
	r = &f->r_split_done;
	r->bet = 40000;
	r->nhands = 2;
	r->dealer_n = 2;
	r->dealer[0] = C(HJ_TEN, HJ_HEARTS);
	r->dealer[1] = C(HJ_ACE, HJ_CLUBS);
	r->hands[0].stake = 40000;
	r->hands[0].n = 2;
	r->hands[0].cards[0] = C(9, HJ_SPADES);
	r->hands[0].cards[1] = C(2, HJ_CLUBS);
	r->hands[1].stake = 40000;
	r->hands[1].n = 2;
	r->hands[1].cards[0] = C(9, HJ_DIAMONDS);
	r->hands[1].cards[1] = C(HJ_KING, HJ_SPADES);
	f->s_split.status[0] = HJ_ST_DEALER_BJ;
	f->s_split.status[1] = HJ_ST_DEALER_BJ;
	f->s_split.ret[0] = 0;
	f->s_split.ret[1] = 40000;
	f->s_split.total_stake = 80000;
	f->s_split.total_ret = 40000;
	ev[D_SETTLE_SPLIT] =
	    (hj_event){.type = HJ_EV_SETTLE, .round = r, .settle = &f->s_split};
}

static const char *const type_names[] = {
    [HJ_EV_DRAW] = "draw",       [HJ_EV_ACTION] = "action",
    [HJ_EV_REJECT] = "reject",   [HJ_EV_DEPOSIT] = "deposit",
    [HJ_EV_IGNORED] = "ignored", [HJ_EV_TIMEOUT] = "timeout",
    [HJ_EV_SETTLE] = "settle",
};

/* The parsed event says what ev says (independently of the exact bytes). */
static void check_parsed(json_t *e, const hj_event *ev)
{
	json_t *v;

	assert_string_equal(jstr(e, "type"), type_names[ev->type]);
	if (ev->tx != NULL) {
		assert_int_equal(jint(e, "txIndex"), ev->tx->tx_index);
		assert_int_equal(strlen(jstr(e, "tx")), 66);
	}
	if (ev->round != NULL && ev->type != HJ_EV_REJECT)
		assert_int_equal(strlen(jstr(e, "round")), 66);
	switch (ev->type) {
	case HJ_EV_DRAW:
		assert_string_equal(jstr(e, "handOwner"), ev->hand == HJ_DEALER
		                                              ? "Dealer"
		                                              : "Player");
		if (ev->hand == HJ_DEALER)
			assert_null(json_object_get(e, "handIndex"));
		else
			assert_int_equal(jint(e, "handIndex"), ev->hand);
		break;
	case HJ_EV_ACTION:
		assert_string_equal(jstr(e, "action"), hj_act_name(ev->act));
		assert_int_equal(strlen(jstr(e, "player")), 42);
		assert_null(json_object_get(e, "from"));
		if (ev->hand < 0)
			assert_null(json_object_get(e, "handIndex"));
		else
			assert_int_equal(jint(e, "handIndex"), ev->hand);
		v = json_object_get(e, "insurance");
		if (ev->act == HJ_PEEK)
			assert_true(json_is_boolean(v) &&
			            json_boolean_value(v) ==
			                !!ev->tx->insurance);
		else
			assert_null(v);
		assert_non_null(jstr(e, "stake"));
		break;
	case HJ_EV_REJECT:
		assert_int_equal(strlen(jstr(e, "from")), 42);
		assert_string_equal(jstr(e, "reason"),
		                    hj_reason_name(ev->reason));
		if (ev->round == NULL)
			assert_null(json_object_get(e, "round"));
		if (ev->act == HJ_ACT_NONE)
			assert_null(json_object_get(e, "action"));
		break;
	case HJ_EV_DEPOSIT:
	case HJ_EV_IGNORED:
		assert_int_equal(strlen(jstr(e, "from")), 42);
		assert_null(json_object_get(e, "round"));
		break;
	case HJ_EV_TIMEOUT:
		assert_string_equal(jstr(e, "action"), hj_act_name(ev->act));
		break;
	case HJ_EV_SETTLE: {
		json_t *hands = json_object_get(e, "playerHands");

		assert_keys(json_object_get(e, "dealerHand"), K_HAND_D);
		assert_true(json_is_array(hands));
		assert_int_equal(json_array_size(hands), ev->round->nhands);
		for (size_t i = 0; i < json_array_size(hands); i++) {
			json_t *h = json_array_get(hands, i);

			assert_keys(h, K_HAND_P);
			assert_int_equal(jint(h, "handIndex"), i);
			assert_int_equal(
			    json_array_size(json_object_get(h, "cards")),
			    ev->round->hands[i].n);
		}
		if (ev->round->insured)
			assert_keys(json_object_get(e, "insurance"), K_INS);
		else
			assert_null(json_object_get(e, "insurance"));
		break;
	}
	}
}

/* ------------------------------------------------------------------ */

static void test_cardlog_void_block(void **state)
{
	static const char want[] =
	    HEAD("19000007", VOID_EF, VEC2) "\"void\":true,\"events\":[]}\n";
	static const char want_ev[] = HEAD(
	    "19000007", VOID_EF, VEC2) "\"void\":true,\"events\":[" DOC_DEPOSIT
	                               "," DOC_TIMEOUT_PEEK "]}\n";
	static struct docfx f;
	hj_cardlog cl;
	hj_card card;
	char *line;
	json_t *j, *evs;

	(void)state;
	/* The spec's void vectors really are void. */
	assert_int_equal(
	    hj_card_from_hash(VOID_EF, strlen(VOID_EF), &card, NULL, 0), 0);
	assert_int_equal(card.rank, 0);
	assert_int_equal(hj_card_from_hash("d" Z60 "000", 64, &card, NULL, 0),
	                 0);
	assert_int_equal(card.rank, 0);

	hj_cardlog_init(&cl);
	begin_block(&cl, 19000007, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, want);
	j = parse(line);
	assert_keys(j, K_LINE_VOID);
	assert_int_equal(jint(j, "v"), 1);
	assert_string_equal(jstr(j, "chain"), "evm");
	assert_int_equal(jint(j, "height"), 19000007);
	assert_string_equal(jstr(j, "hash"), VOID_EF);
	assert_string_equal(jstr(j, "parent"), VEC2);
	assert_true(json_is_true(json_object_get(j, "void")));
	assert_null(json_object_get(j, "card"));
	evs = json_object_get(j, "events");
	assert_true(json_is_array(evs));
	assert_int_equal(json_array_size(evs), 0);
	json_decref(j);
	free(line);

	/* A void block has no draws but may have transactions and
	 * timeouts. */
	doc_events(&f);
	begin_block(&cl, 19000007, VOID_EF, VEC2);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_TIMEOUT_PEEK]), 0);
	line = finish(&cl);
	assert_string_equal(line, want_ev);
	j = parse(line);
	assert_keys(j, K_LINE_VOID);
	evs = json_object_get(j, "events");
	assert_int_equal(json_array_size(evs), 2);
	check_parsed(json_array_get(evs, 0), &f.ev[D_DEPOSIT]);
	check_parsed(json_array_get(evs, 1), &f.ev[D_TIMEOUT_PEEK]);
	json_decref(j);
	free(line);
	hj_cardlog_release(&cl);
}

static void test_cardlog_cards(void **state)
{
	static const struct {
		const char *hash, *card;
	} v[] = {
	    {VEC2, DOC_CARD_AS},
	    {"0x" GENESIS, CARDJ("6", "Hearts", "6", "6H", "62", "6", "2")},
	    {"0x" Z60 "003a",
	     CARDJ("10", "Spades", "10", "10S", "63", "a", "3")},
	    {"0x" Z60 "0ec0", CARDJ("Q", "Hearts", "10", "QH", "62", "c", "e")},
	    {"0x" Z60 "004d", CARDJ("K", "Clubs", "10", "KC", "63", "d", "4")},
	    {"0x" Z60 "00fb", CARDJ("J", "Spades", "10", "JS", "63", "b", "f")},
	    {"0x" Z60 "0059",
	     CARDJ("9", "Diamonds", "9", "9D", "63", "9", "5")},
	    {"0x71" Z60 "00", CARDJ("A", "Spades", "1", "AS", "1", "1", "7")},
	    {"0xe2" E60 "fe", CARDJ("2", "Hearts", "2", "2H", "1", "2", "e")},
	};
	char want[512];
	hj_cardlog cl;

	(void)state;
	hj_cardlog_init(&cl);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char *line;
		json_t *j, *c;

		begin_block(&cl, 7, v[i].hash, VEC2);
		line = finish(&cl);
		snprintf(
		    want, sizeof want,
		    "{\"v\":1,\"chain\":\"evm\",\"height\":7,\"hash\":\"%s\","
		    "\"parent\":\"%s\",%s,\"events\":[]}\n",
		    v[i].hash, VEC2, v[i].card);
		assert_string_equal(line, want);
		j = parse(line);
		assert_keys(j, K_LINE_CARD);
		c = json_object_get(j, "card");
		assert_keys(c, K_CARD);
		assert_null(json_object_get(j, "void"));
		json_decref(j);
		free(line);
	}

	/* The fields of the spec's Ace of Spades, parsed back. */
	{
		char *line;
		json_t *j, *c;

		begin_block(&cl, 19000006, VEC2, GENESIS);
		line = finish(&cl);
		j = parse(line);
		c = json_object_get(j, "card");
		assert_string_equal(jstr(c, "rank"), "A");
		assert_string_equal(jstr(c, "suit"), "Spades");
		assert_int_equal(jint(c, "value"), 1);
		assert_string_equal(jstr(c, "code"), "AS");
		assert_int_equal(jint(c, "pos"), 61);
		assert_string_equal(jstr(c, "rankDigit"), "1");
		assert_string_equal(jstr(c, "colorDigit"), "b");
		json_decref(j);
		free(line);
	}

	/* A hash the node printed in upper case is logged lower-cased. */
	{
		static const char up[] =
		    "0x0B6BC29980DBB1E93857D094F4A68184D33F"
		    "3C956609C997693DEA129192B10E";
		uint8_t h[32], p[32];
		hj_card card;
		char *line;

		assert_int_equal(hj_hex_decode_exact(up, strlen(up),
		                                     HJ_HEX_REQUIRED, h, 32,
		                                     NULL, 0),
		                 0);
		unhex(GENESIS, p, 32);
		assert_int_equal(
		    hj_card_from_hash(up, strlen(up), &card, NULL, 0), 0);
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM,
		                                  STD_HEIGHT, h, p, &card),
		                 0);
		line = finish(&cl);
		assert_string_equal(line, STD_PREFIX SUFFIX);
		free(line);
	}
	hj_cardlog_release(&cl);
}

/* Each example event of docs/LOG.md, alone on a line. */
static void test_cardlog_doc_events(void **state)
{
	static struct docfx f;

	(void)state;
	doc_events(&f);
	for (int i = 0; i < NDOC; i++) {
		json_t *e,
		    *j = one_event(&f.ev[i], doc_want[i], doc_keys[i], &e);

		check_parsed(e, &f.ev[i]);
		json_decref(j);
	}
}

/* Spot checks of values in the parsed examples. */
static void test_cardlog_doc_values(void **state)
{
	static struct docfx f;
	json_t *j, *e, *d, *hs, *h;

	(void)state;
	doc_events(&f);

	j = one_event(&f.ev[D_DRAW_PLAYER], DOC_DRAW_PLAYER, K_DRAW_P, &e);
	assert_string_equal(jstr(e, "round"), R_BET);
	/* A draw's card is the line's card. */
	assert_string_equal(jstr(e, "card"),
	                    jstr(json_object_get(j, "card"), "code"));
	json_decref(j);

	j = one_event(&f.ev[D_DOUBLE], DOC_DOUBLE, K_ACT_HAND, &e);
	assert_string_equal(jstr(e, "stake"), "200000000000000000");
	assert_string_equal(jstr(e, "player"), P_DOUBLE);
	assert_string_equal(jstr(e, "tx"), T_DOUBLE);
	assert_int_equal(jint(e, "txIndex"), 1);
	json_decref(j);

	j = one_event(&f.ev[D_PEEK], DOC_PEEK, K_ACT_PEEK, &e);
	assert_true(json_is_true(json_object_get(e, "insurance")));
	assert_string_equal(jstr(e, "stake"), "500");
	json_decref(j);

	j = one_event(&f.ev[D_REJECT_VALUE], DOC_REJECT_VALUE, K_REJ_FULL, &e);
	assert_string_equal(jstr(e, "from"), P_DOUBLE);
	assert_string_equal(jstr(e, "round"), R_DOUBLE);
	assert_string_equal(jstr(e, "refund"), "100000000000000000");
	json_decref(j);

	j = one_event(&f.ev[D_SETTLE_INSURED], DOC_SETTLE_INSURED, K_SETTLE_INS,
	              &e);
	d = json_object_get(e, "dealerHand");
	assert_int_equal(jint(d, "total"), 21);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(d, "cards"), 1)),
	    "KD");
	hs = json_object_get(e, "playerHands");
	h = json_array_get(hs, 0);
	assert_int_equal(jint(h, "total"), 19);
	assert_string_equal(jstr(h, "status"), "Lose");
	assert_string_equal(jstr(h, "payout"), "0");
	assert_string_equal(jstr(json_object_get(e, "insurance"), "payout"),
	                    "1500");
	assert_string_equal(jstr(e, "betAmount"), "1500");
	assert_string_equal(jstr(e, "payout"), "1500");
	json_decref(j);
}

static void test_cardlog_actions_more(void **state)
{
	static struct docfx f;
	hj_event ev;
	json_t *j, *e;

	(void)state;
	doc_events(&f);

	/* Peek without insurance: false, stake "0". */
	f.t_peek.insurance = 0;
	f.t_peek.value = 0;
	ev = f.ev[D_PEEK];
	ev.amount = 0;
	j = one_event(
	    &ev,
	    "{\"type\":\"action\",\"action\":\"Peek\",\"round\":\"" R_PEEK
	    "\",\"player\":\"" P_PEEK "\",\"tx\":\"" T_PEEK
	    "\",\"txIndex\":1,\"insurance\":false,\"stake\":\"0\"}",
	    K_ACT_PEEK, &e);
	assert_true(json_is_false(json_object_get(e, "insurance")));
	json_decref(j);

	/* An action on hand 1, a stake above 2^64. */
	ev = f.ev[D_SPLIT];
	ev.hand = 1;
	ev.amount = (hj_amount)1 << 64;
	f.t_split.tx_index = 4294967295u;
	j = one_event(
	    &ev,
	    "{\"type\":\"action\",\"action\":\"Split\",\"round\":\"" R_SPLIT
	    "\",\"player\":\"" P_SPLIT "\",\"tx\":\"" T_SPLIT
	    "\",\"txIndex\":4294967295,\"handIndex\":1,"
	    "\"stake\":\"18446744073709551616\"}",
	    K_ACT_HAND, &e);
	json_decref(j);

	/* The other timeouts: Stand on hand 1. */
	ev = f.ev[D_TIMEOUT_STAND];
	ev.hand = 1;
	j = one_event(&ev,
	              "{\"type\":\"timeout\",\"round\":\"" R_TO_STAND
	              "\",\"action\":\"Stand\",\"handIndex\":1}",
	              K_TO_HAND, &e);
	json_decref(j);

	/* A draw to the second hand. */
	ev = f.ev[D_DRAW_PLAYER];
	ev.hand = 1;
	ev.card = C(HJ_TEN, HJ_HEARTS);
	j = one_event(&ev,
	              "{\"type\":\"draw\",\"round\":\"" R_BET
	              "\",\"handOwner\":\"Player\",\"handIndex\":1,"
	              "\"card\":\"10H\"}",
	              K_DRAW_P, &e);
	json_decref(j);
}

static void test_cardlog_reject_reasons(void **state)
{
	/* The reason table of docs/LOG.md. */
	static const struct {
		hj_reason r;
		const char *name;
	} v[] = {
	    {HJ_R_TRUNCATED, "truncated"},
	    {HJ_R_BAD_VERSION, "bad_version"},
	    {HJ_R_UNKNOWN_ACTION, "unknown_action"},
	    {HJ_R_BAD_LENGTH, "bad_length"},
	    {HJ_R_TOO_LONG, "too_long"},
	    {HJ_R_BAD_FIELD, "bad_field"},
	    {HJ_R_SIDE_BETS, "side_bets_not_offered"},
	    {HJ_R_NO_ROUND, "no_round"},
	    {HJ_R_SECOND_ROUND, "second_round"},
	    {HJ_R_BET_LIMITS, "bet_out_of_limits"},
	    {HJ_R_PREMATURE, "premature"},
	    {HJ_R_NOT_ALLOWED, "not_allowed"},
	    {HJ_R_WRONG_VALUE, "wrong_value"},
	    {HJ_R_BAD_SIGNATURE, "bad_signature"},
	    {HJ_R_EXPOSURE, "over_exposure"},
	};
	static struct docfx f;
	char want[1024];
	hj_event ev;
	json_t *j, *e;

	(void)state;
	assert_int_equal(sizeof v / sizeof v[0], HJ_R_COUNT - 2);
	doc_events(&f);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ev = f.ev[D_REJECT_VERSION];
		ev.reason = v[i].r;
		snprintf(want, sizeof want,
		         "{\"type\":\"reject\",\"tx\":\"" T_REJ3
		         "\",\"txIndex\":3,\"from\":\"" F_REJ3
		         "\",\"reason\":\"%s\",\"refund\":\"1000\"}",
		         v[i].name);
		j = one_event(&ev, want, K_REJ_MIN, &e);
		json_decref(j);
	}

	/* A Bet while the sender's round is open names the Bet and that
	 * round; the refund is all of the value, whatever its size. */
	ev = (hj_event){.type = HJ_EV_REJECT,
	                .round = &f.r_bet,
	                .tx = &f.t_rej2,
	                .act = HJ_BET,
	                .reason = HJ_R_SECOND_ROUND,
	                .amount = HJ_AMOUNT_MAX};
	j = one_event(&ev,
	              "{\"type\":\"reject\",\"tx\":\"" T_REJ2
	              "\",\"txIndex\":2,\"from\":\"" F_REJ2
	              "\",\"action\":\"Bet\",\"round\":\"" R_BET
	              "\",\"reason\":\"second_round\",\"refund\":"
	              "\"340282366920938463463374607431768211455\"}",
	              K_REJ_FULL, &e);
	json_decref(j);

	/* A malformed payload whose action byte was known names it. */
	ev = (hj_event){.type = HJ_EV_REJECT,
	                .tx = &f.t_rej3,
	                .act = HJ_PEEK,
	                .reason = HJ_R_BAD_FIELD,
	                .amount = 0};
	j = one_event(&ev,
	              "{\"type\":\"reject\",\"tx\":\"" T_REJ3
	              "\",\"txIndex\":3,\"from\":\"" F_REJ3
	              "\",\"action\":\"Peek\",\"reason\":\"bad_field\","
	              "\"refund\":\"0\"}",
	              K_REJ_ACT, &e);
	json_decref(j);
}

static void test_cardlog_deposit_ignored(void **state)
{
	static struct docfx f;
	hj_event ev;
	json_t *j, *e;

	(void)state;
	doc_events(&f);
	f.t_dep.value = 0;
	ev = f.ev[D_DEPOSIT];
	j = one_event(&ev,
	              "{\"type\":\"deposit\",\"tx\":\"" T_DEP
	              "\",\"txIndex\":0,\"from\":\"" F_DEP
	              "\",\"value\":\"0\"}",
	              K_DEPOSIT, &e);
	assert_string_equal(jstr(e, "value"), "0");
	json_decref(j);

	f.t_dep.value = HJ_AMOUNT_MAX;
	j = one_event(
	    &ev,
	    "{\"type\":\"deposit\",\"tx\":\"" T_DEP
	    "\",\"txIndex\":0,\"from\":\"" F_DEP
	    "\",\"value\":\"340282366920938463463374607431768211455\"}",
	    K_DEPOSIT, &e);
	json_decref(j);

	/* "ignored" carries no value and always the one reason. */
	f.t_ign.value = E18;
	j = one_event(&f.ev[D_IGNORED], DOC_IGNORED, K_IGNORED, &e);
	assert_string_equal(jstr(e, "reason"), "tx_failed");
	json_decref(j);
}

static void test_cardlog_settle(void **state)
{
	/* The status table of docs/LOG.md. */
	static const char *const status[] = {
	    [HJ_ST_BLACKJACK] = "Blackjack",
	    [HJ_ST_WIN] = "Win",
	    [HJ_ST_PUSH] = "Push",
	    [HJ_ST_LOSE] = "Lose",
	    [HJ_ST_BUST] = "Bust",
	    [HJ_ST_SURRENDER] = "Surrender",
	    [HJ_ST_DEALER_BJ] = "DealerBlackjack",
	};
	hj_round r = mkround(R_STAND, P_STAND);
	hj_settlement st;
	hj_event ev = {.type = HJ_EV_SETTLE, .round = &r, .settle = &st};
	char want[2048];
	json_t *j, *e;

	(void)state;
	r.dealer_n = 1;
	r.dealer[0] = C(7, HJ_DIAMONDS);
	r.hands[0].stake = 1000;
	r.hands[0].n = 2;
	r.hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
	r.hands[0].cards[1] = C(9, HJ_CLUBS);
	for (int s = HJ_ST_BLACKJACK; s <= HJ_ST_DEALER_BJ; s++) {
		memset(&st, 0, sizeof st);
		st.status[0] = (uint8_t)s;
		st.ret[0] = (hj_amount)(1230 + s);
		st.total_stake = 1000;
		st.total_ret = (hj_amount)(1230 + s);
		snprintf(want, sizeof want,
		         "{\"type\":\"settle\",\"round\":\"" R_STAND
		         "\",\"player\":\"" P_STAND
		         "\",\"dealerHand\":{\"cards\":[\"7D\"],\"total\":7},"
		         "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\","
		         "\"9C\"],\"total\":19,\"betAmount\":\"1000\","
		         "\"status\":\"%s\",\"payout\":\"%d\"}],"
		         "\"betAmount\":\"1000\",\"payout\":\"%d\"}",
		         status[s], 1230 + s, 1230 + s);
		j = one_event(&ev, want, K_SETTLE, &e);
		check_parsed(e, &ev);
		json_decref(j);
	}

	/* Insurance taken on a 1-wei bet: its stake is floor(1 / 2) = 0,
	 * yet it was taken, so the object is there. */
	{
		hj_round r1 = mkround(R_PEEK, P_PEEK);
		hj_settlement s1;
		hj_event ev1 = {
		    .type = HJ_EV_SETTLE, .round = &r1, .settle = &s1};

		memset(&s1, 0, sizeof s1);
		r1.bet = 1;
		r1.insured = 1;
		r1.insurance = 0;
		r1.dealer_n = 2;
		r1.dealer[0] = C(HJ_ACE, HJ_HEARTS);
		r1.dealer[1] = C(HJ_KING, HJ_DIAMONDS);
		r1.hands[0].stake = 1;
		r1.hands[0].n = 2;
		r1.hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
		r1.hands[0].cards[1] = C(9, HJ_CLUBS);
		s1.status[0] = HJ_ST_LOSE;
		s1.total_stake = 1;
		j = one_event(
		    &ev1,
		    "{\"type\":\"settle\",\"round\":\"" R_PEEK
		    "\",\"player\":\"" P_PEEK "\",\"dealerHand\":{\"cards\":["
		    "\"AH\",\"KD\"],\"total\":21},"
		    "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\","
		    "\"9C\"],"
		    "\"total\":19,\"betAmount\":\"1\",\"status\":\"Lose\","
		    "\"payout\":\"0\"}],\"insurance\":{\"betAmount\":\"0\","
		    "\"payout\":\"0\"},\"betAmount\":\"1\",\"payout\":\"0\"}",
		    K_SETTLE_INS, &e);
		check_parsed(e, &ev1);
		json_decref(j);
	}

	/* Best totals: an ace counts 11 unless that busts; a bust hand
	 * shows its sum. */
	memset(&st, 0, sizeof st);
	r.dealer_n = 2;
	r.dealer[0] = C(HJ_ACE, HJ_CLUBS);
	r.dealer[1] = C(6, HJ_DIAMONDS);
	r.nhands = 3;
	r.hands[0] = (hj_hand){.stake = 10, .n = 3};
	r.hands[0].cards[0] = C(HJ_ACE, HJ_HEARTS);
	r.hands[0].cards[1] = C(HJ_ACE, HJ_SPADES);
	r.hands[0].cards[2] = C(9, HJ_CLUBS);
	r.hands[1] = (hj_hand){.stake = 10, .n = 3};
	r.hands[1].cards[0] = C(HJ_ACE, HJ_DIAMONDS);
	r.hands[1].cards[1] = C(5, HJ_SPADES);
	r.hands[1].cards[2] = C(HJ_KING, HJ_HEARTS);
	r.hands[2] = (hj_hand){.stake = 10, .n = 3};
	r.hands[2].cards[0] = C(HJ_KING, HJ_CLUBS);
	r.hands[2].cards[1] = C(HJ_QUEEN, HJ_DIAMONDS);
	r.hands[2].cards[2] = C(5, HJ_HEARTS);
	st.status[0] = HJ_ST_WIN;
	st.ret[0] = 20;
	st.status[1] = HJ_ST_LOSE;
	st.status[2] = HJ_ST_BUST;
	st.total_stake = 30;
	st.total_ret = 20;
	j = one_event(
	    &ev,
	    "{\"type\":\"settle\",\"round\":\"" R_STAND
	    "\",\"player\":\"" P_STAND
	    "\",\"dealerHand\":{\"cards\":[\"AC\",\"6D\"],\"total\":17},"
	    "\"playerHands\":["
	    "{\"handIndex\":0,\"cards\":[\"AH\",\"AS\",\"9C\"],\"total\":21,"
	    "\"betAmount\":\"10\",\"status\":\"Win\",\"payout\":\"20\"},"
	    "{\"handIndex\":1,\"cards\":[\"AD\",\"5S\",\"KH\"],\"total\":16,"
	    "\"betAmount\":\"10\",\"status\":\"Lose\",\"payout\":\"0\"},"
	    "{\"handIndex\":2,\"cards\":[\"KC\",\"QD\",\"5H\"],\"total\":25,"
	    "\"betAmount\":\"10\",\"status\":\"Bust\",\"payout\":\"0\"}],"
	    "\"betAmount\":\"30\",\"payout\":\"20\"}",
	    K_SETTLE, &e);
	check_parsed(e, &ev);
	json_decref(j);
}

/* Every example in one line, in order, comma-separated. */
static void test_cardlog_many_events(void **state)
{
	static struct docfx f;
	hj_cardlog cl;
	size_t n = strlen(STD_PREFIX) + strlen(SUFFIX) + 1, w;
	char *want, *line;
	json_t *j, *evs;

	(void)state;
	doc_events(&f);
	for (int i = 0; i < NDOC; i++)
		n += strlen(doc_want[i]) + 1;
	want = malloc(n);
	assert_non_null(want);
	w = (size_t)snprintf(want, n, "%s", STD_PREFIX);
	for (int i = 0; i < NDOC; i++)
		w += (size_t)snprintf(want + w, n - w, "%s%s", i ? "," : "",
		                      doc_want[i]);
	snprintf(want + w, n - w, "%s", SUFFIX);

	hj_cardlog_init(&cl);
	begin_std(&cl);
	for (int i = 0; i < NDOC; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[i]), 0);
	line = finish(&cl);
	assert_string_equal(line, want);
	j = parse(line);
	assert_keys(j, K_LINE_CARD);
	evs = json_object_get(j, "events");
	assert_int_equal(json_array_size(evs), NDOC);
	for (int i = 0; i < NDOC; i++) {
		assert_keys(json_array_get(evs, i), doc_keys[i]);
		check_parsed(json_array_get(evs, i), &f.ev[i]);
	}
	json_decref(j);
	free(line);
	free(want);
	hj_cardlog_release(&cl);
}

/* The Bitcoin family: no "0x", no "from" (LOG.md, Value forms). */
static void test_cardlog_bitcoin_form(void **state)
{
	static const char want[] =
	    "{\"v\":1,\"chain\":\"bitcoin\",\"height\":0,\"hash\":\"" GENESIS
	    "\",\"parent\":\"" Z60 "0000\","
	    "\"card\":{\"rank\":\"6\",\"suit\":\"Hearts\",\"value\":6,"
	    "\"code\":\"6H\",\"pos\":62,\"rankDigit\":\"6\",\"colorDigit\":"
	    "\"2\"},\"events\":["
	    "{\"type\":\"deposit\",\"tx\":\"" T_DEP_H
	    "\",\"txIndex\":0,\"value\":\"5000\"},"
	    "{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"" VEC2_H
	    "\",\"player\":\"" R_PEEK_H "\",\"tx\":\"" VEC2_H
	    "\",\"txIndex\":1,\"stake\":\"10000\"},"
	    "{\"type\":\"draw\",\"round\":\"" VEC2_H
	    "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"6H\"},"
	    "{\"type\":\"reject\",\"tx\":\"" T_HIT_H
	    "\",\"txIndex\":2,\"action\":\"Hit\",\"round\":\"" VEC2_H
	    "\",\"reason\":\"bad_signature\",\"refund\":\"546\"}"
	    "]}\n";
	uint8_t h[32], p[32];
	hj_round r = mkround(VEC2, R_PEEK);
	hj_action dep = mktx(HJ_TX_DEPOSIT, T_DEP, 0, NULL, 5000);
	hj_action bet = mktx(HJ_TX_ACTION, VEC2, 1, NULL, 10000);
	hj_action hit = mktx(HJ_TX_ACTION, T_HIT, 2, NULL, 546);
	hj_event ev[4] = {
	    {.type = HJ_EV_DEPOSIT, .tx = &dep},
	    {.type = HJ_EV_ACTION,
	     .round = &r,
	     .tx = &bet,
	     .act = HJ_BET,
	     .hand = -1,
	     .amount = 10000},
	    {.type = HJ_EV_DRAW,
	     .round = &r,
	     .hand = 0,
	     .card = C(6, HJ_HEARTS)},
	    {.type = HJ_EV_REJECT,
	     .round = &r,
	     .tx = &hit,
	     .act = HJ_HIT,
	     .reason = HJ_R_BAD_SIGNATURE,
	     .amount = 546},
	};
	hj_cardlog cl;
	hj_card card;
	char *line;
	json_t *j, *evs;

	(void)state;
	bet.act = HJ_BET;
	hit.act = HJ_HIT;
	unhex(GENESIS, h, 32);
	memset(p, 0, sizeof p);
	assert_int_equal(hj_card_from_hash(GENESIS, 64, &card, NULL, 0), 0);
	hj_cardlog_init(&cl);
	assert_int_equal(
	    hj_cardlog_begin(&cl, "bitcoin", HJ_BITCOIN, 0, h, p, &card), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hj_cardlog_event(&cl, &ev[i]), 0);
	line = finish(&cl);
	assert_string_equal(line, want);
	j = parse(line);
	assert_keys(j, K_LINE_CARD);
	evs = json_object_get(j, "events");
	assert_int_equal(json_array_size(evs), 4);
	assert_null(json_object_get(json_array_get(evs, 0), "from"));
	assert_null(json_object_get(json_array_get(evs, 3), "from"));
	json_decref(j);
	free(line);
	hj_cardlog_release(&cl);
}

static void test_cardlog_heights(void **state)
{
	hj_cardlog cl;
	char *line;

	(void)state;
	hj_cardlog_init(&cl);
	begin_block(&cl, 0, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, HEAD("0", VOID_EF, VEC2) "\"void\":true,"
	                                                   "\"events\":[]}\n");
	free(line);
	begin_block(&cl, UINT64_MAX, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, HEAD("18446744073709551615", VOID_EF,
	                               VEC2) "\"void\":true,\"events\":[]}\n");
	free(line);
	hj_cardlog_release(&cl);
}

/* ------------------------------------------------------------------ */
/* Driving a real table: the sink writes what the engine reports.      */

static const uint8_t PL_BET[] = {0x48, 0x4a, 0x01, 0x01};
static const uint8_t PL_HIT[] = {0x48, 0x4a, 0x01, 0x02};
static const uint8_t PL_PEEK_INS[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
static const uint8_t PL_BAD_VERSION[] = {0x48, 0x4a, 0x02, 0x01};

static hj_action evm_tx(const char *hash, const char *from, hj_amount value,
                        const uint8_t *in, size_t n, int ok, uint32_t idx)
{
	uint8_t h[32], f[20];
	hj_evm_tx tx;
	hj_action a;

	unhex(hash, h, 32);
	unhex(from, f, 20);
	memset(&tx, 0, sizeof tx);
	tx.hash = h;
	tx.from = f;
	tx.value = value;
	tx.input = in;
	tx.input_len = n;
	tx.success = ok;
	tx.tx_index = idx;
	hj_evm_action(&tx, &a);
	return a;
}

struct sblock {
	uint64_t height;
	const char *hash, *parent;
	hj_action txs[4];
	size_t ntx;
	const char *want;
	size_t open_after; /* rounds open after the block */
};

/*
 * Applies the blocks to a table with hj_cardlog_sink, and to a second
 * table through hj_deal_block: both must give exactly the wanted lines, and
 * the step's sink gets each event the line has, in the line's order.
 */
struct seen {
	hj_cardlog *cl; /* the step's line, being built */
	unsigned n;
};

static void count_event(void *ctx, const hj_event *ev)
{
	struct seen *s = ctx;

	(void)ev;
	s->n++;
	/* The line has the event before the sink sees it. */
	assert_int_equal(s->cl->nevents, s->n);
}

static void run_blocks(const hj_rules *ru, const struct sblock *b, size_t n)
{
	hj_table *t = hj_table_new(ru), *t2 = hj_table_new(ru);
	hj_cardlog cl, cl2;
	char err[256];

	assert_non_null(t);
	assert_non_null(t2);
	hj_cardlog_init(&cl);
	hj_cardlog_init(&cl2);
	for (size_t i = 0; i < n; i++) {
		hj_block hb;
		hj_card card;
		const char *l2 = NULL;
		size_t len2 = 0;
		struct seen seen = {.cl = &cl2};
		char *line;
		json_t *j;

		hb.height = b[i].height;
		unhex(b[i].hash, hb.hash, 32);
		unhex(b[i].parent, hb.parent, 32);
		assert_int_equal(hj_card_from_hash(b[i].hash, strlen(b[i].hash),
		                                   &card, NULL, 0),
		                 0);
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, hb.height,
		                                  hb.hash, hb.parent, &card),
		                 0);
		assert_int_equal(hj_table_apply_block(t, hb.height, &card,
		                                      b[i].txs, b[i].ntx,
		                                      hj_cardlog_sink, &cl),
		                 0);
		line = finish(&cl);
		assert_string_equal(line, b[i].want);
		j = parse(line);
		assert_keys(j, card.rank ? K_LINE_CARD : K_LINE_VOID);
		json_decref(j);
		free(line);
		assert_int_equal(hj_table_count(t), b[i].open_after);

		assert_int_equal(hj_deal_block(t2, &cl2, "evm", HJ_EVM, &hb,
		                               b[i].txs, b[i].ntx, count_event,
		                               &seen, &l2, &len2, err,
		                               sizeof err),
		                 0);
		assert_int_equal(seen.n, cl2.nevents);
		assert_int_equal(len2, strlen(b[i].want));
		assert_memory_equal(l2, b[i].want, len2);
	}
	hj_cardlog_release(&cl);
	hj_cardlog_release(&cl2);
	hj_table_free(t);
	hj_table_free(t2);
}

static hj_rules rules(uint32_t timeout)
{
	hj_rules r;
	char err[128];

	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = E18 * 1000;
	r.timeout_blocks = timeout;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	return r;
}

/* Blocks of the table scenarios: the card is in the last two digits. */
#define HA0 "0x10" E60 "12" /* 2D */
#define HA1 "0x11" E60 "3a" /* 10S */
#define HA2 "0x12" E60 "21" /* AH */
#define HA3 "0x13" E60 "09" /* 9C */
#define HA4 "0xf0" E60 "fe" /* void */
#define HA5 "0x15" E60 "1d" /* KD */
#define HAP "0x0f" E60 "0f"

#define C_2D  CARDJ("2", "Diamonds", "2", "2D", "63", "2", "1")
#define C_10S CARDJ("10", "Spades", "10", "10S", "63", "a", "3")
#define C_AH  CARDJ("A", "Hearts", "1", "AH", "63", "1", "2")
#define C_9C  CARDJ("9", "Clubs", "9", "9C", "63", "9", "0")
#define C_KD  CARDJ("K", "Diamonds", "10", "KD", "63", "d", "1")
#define C_7D  CARDJ("7", "Diamonds", "7", "7D", "63", "7", "1")
#define C_8H  CARDJ("8", "Hearts", "8", "8H", "63", "8", "2")
#define C_KC  CARDJ("K", "Clubs", "10", "KC", "63", "d", "0")

/*
 * A Bet with an Ace up, insurance taken, dealer blackjack: the round of
 * LOG.md's Peek and insured settle examples, which must come out verbatim.
 * Around it a deposit, a failed transaction, a malformed payload and a
 * premature Hit.
 */
static void test_cardlog_table_insured(void **state)
{
	hj_rules ru = rules(100);
	struct sblock b[] = {
	    {19000000,
	     HA0,
	     HAP,
	     {evm_tx(T_DEP, F_DEP, 123, NULL, 0, 1, 0),
	      evm_tx(R_PEEK, P_PEEK, 1000, PL_BET, 4, 1, 1),
	      evm_tx(T_IGN, F_IGN, 5, PL_BET, 4, 0, 2),
	      evm_tx(T_REJ3, F_REJ3, 1000, PL_BAD_VERSION, 4, 1, 4)},
	     4,
	     HEAD("19000000", HA0, HAP) C_2D
	     ",\"events\":[" DOC_DEPOSIT ","
	     "{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"" R_PEEK
	     "\",\"player\":\"" P_PEEK "\",\"tx\":\"" R_PEEK
	     "\",\"txIndex\":1,\"stake\":\"1000\"},"
	     "{\"type\":\"ignored\",\"tx\":\"" T_IGN
	     "\",\"txIndex\":2,\"from\":\"" F_IGN
	     "\",\"reason\":\"tx_failed\"},"
	     "{\"type\":\"reject\",\"tx\":\"" T_REJ3
	     "\",\"txIndex\":4,\"from\":\"" F_REJ3
	     "\",\"reason\":\"bad_version\",\"refund\":\"1000\"}]}\n",
	     1},
	    {19000001,
	     HA1,
	     HA0,
	     {{0}},
	     0,
	     HEAD("19000001", HA1, HA0) C_10S
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"10S\"}]}"
	     "\n",
	     1},
	    {19000002,
	     HA2,
	     HA1,
	     {{0}},
	     0,
	     HEAD("19000002", HA2, HA1) C_AH
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Dealer\",\"card\":\"AH\"}]}\n",
	     1},
	    /* The Hit comes in the block that deals the last card: its
	     * window opens at the next block. */
	    {19000003,
	     HA3,
	     HA2,
	     {evm_tx(T_HIT, P_PEEK, 0, PL_HIT, 4, 1, 0)},
	     1,
	     HEAD("19000003", HA3, HA2) C_9C
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"9C\"},"
	     "{\"type\":\"reject\",\"tx\":\"" T_HIT
	     "\",\"txIndex\":0,\"from\":\"" P_PEEK
	     "\",\"action\":\"Hit\",\"round\":\"" R_PEEK
	     "\",\"reason\":\"premature\",\"refund\":\"0\"}]}\n",
	     1},
	    {19000004,
	     HA4,
	     HA3,
	     {evm_tx(T_PEEK, P_PEEK, 500, PL_PEEK_INS, 5, 1, 1)},
	     1,
	     HEAD("19000004", HA4, HA3) "\"void\":true,\"events\":[" DOC_PEEK
	                                "]}\n",
	     1},
	    /* The Peek's card comes from the next block with a card. */
	    {19000005,
	     HA5,
	     HA4,
	     {{0}},
	     0,
	     HEAD("19000005", HA5, HA4) C_KD
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_PEEK
	     "\",\"handOwner\":\"Dealer\",\"card\":\"KD\"}," DOC_SETTLE_INSURED
	     "]}\n",
	     0},
	};

	(void)state;
	run_blocks(&ru, b, sizeof b / sizeof b[0]);
}

#define HB0 "0x20" E60 "12" /* 2D */
#define HB1 "0x21" E60 "3a" /* 10S */
#define HB2 "0x22" E60 "17" /* 7D */
#define HB3 "0x23" E60 "28" /* 8H */
#define HB4 "0x24" E60 "12" /* 2D */
#define HB5 "0x25" E60 "12" /* 2D */
#define HB6 "0x26" E60 "12" /* 2D */
#define HB7 "0x27" E60 "0d" /* KC */

/* A timeout (timeout_blocks 2): the window opens at X+4, the default
 * Stand comes at X+6, the dealer draws at X+7 and stands on 17. */
static void test_cardlog_table_timeout(void **state)
{
	hj_rules ru = rules(2);
	struct sblock b[] = {
	    {20000000,
	     HB0,
	     HAP,
	     {evm_tx(R_TO_STAND, P_STAND, 1000, PL_BET, 4, 1, 0)},
	     1,
	     HEAD("20000000", HB0, HAP) C_2D
	     ",\"events\":[{\"type\":\"action\",\"action\":\"Bet\",\"round\":"
	     "\"" R_TO_STAND "\",\"player\":\"" P_STAND
	     "\",\"tx\":\"" R_TO_STAND
	     "\",\"txIndex\":0,\"stake\":\"1000\"}]}\n",
	     1},
	    {20000001,
	     HB1,
	     HB0,
	     {{0}},
	     0,
	     HEAD("20000001", HB1, HB0) C_10S
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"10S\"}]}"
	     "\n",
	     1},
	    {20000002,
	     HB2,
	     HB1,
	     {{0}},
	     0,
	     HEAD("20000002", HB2, HB1) C_7D
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Dealer\",\"card\":\"7D\"}]}\n",
	     1},
	    {20000003,
	     HB3,
	     HB2,
	     {{0}},
	     0,
	     HEAD("20000003", HB3, HB2) C_8H
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"8H\"}]}"
	     "\n",
	     1},
	    {20000004,
	     HB4,
	     HB3,
	     {{0}},
	     0,
	     HEAD("20000004", HB4, HB3) C_2D ",\"events\":[]}\n",
	     1},
	    {20000005,
	     HB5,
	     HB4,
	     {{0}},
	     0,
	     HEAD("20000005", HB5, HB4) C_2D ",\"events\":[]}\n",
	     1},
	    {20000006,
	     HB6,
	     HB5,
	     {{0}},
	     0,
	     HEAD("20000006", HB6, HB5) C_2D ",\"events\":[" DOC_TIMEOUT_STAND
	                                     "]}\n",
	     1},
	    {20000007,
	     HB7,
	     HB6,
	     {{0}},
	     0,
	     HEAD("20000007", HB7, HB6) C_KC
	     ",\"events\":[{\"type\":\"draw\",\"round\":\"" R_TO_STAND
	     "\",\"handOwner\":\"Dealer\",\"card\":\"KC\"},"
	     "{\"type\":\"settle\",\"round\":\"" R_TO_STAND
	     "\",\"player\":\"" P_STAND
	     "\",\"dealerHand\":{\"cards\":[\"7D\",\"KC\"],\"total\":17},"
	     "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\",\"8H\"],"
	     "\"total\":18,\"betAmount\":\"1000\",\"status\":\"Win\","
	     "\"payout\":\"2000\"}],\"betAmount\":\"1000\",\"payout\":"
	     "\"2000\"}]}\n",
	     0},
	};

	(void)state;
	run_blocks(&ru, b, sizeof b / sizeof b[0]);
}

/* ------------------------------------------------------------------ */
/* The line-size cap                                                  */

static void test_cardlog_cap_exact(void **state)
{
	static struct docfx f;
	const size_t P = strlen(STD_PREFIX), E = strlen(DOC_DEPOSIT);
	const char *line;
	size_t len;
	hj_cardlog cl;
	char *s;

	(void)state;
	doc_events(&f);
	hj_cardlog_init(&cl);
	assert_true(cl.max == HJ_CARDLOG_MAX);
	assert_true(HJ_CARDLOG_MAX == 16u * 1024 * 1024);

	/* No events: the line is P + 3 bytes, "\n" included. */
	cl.max = P + 3;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(len, P + 3);
	assert_memory_equal(line, STD_PREFIX SUFFIX, len);
	cl.max = P + 2;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* Three deposits: P + 3E + 2 commas + 3. */
	cl.max = P + 3 * E + 2 + 3;
	begin_std(&cl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(len, cl.max);
	cl.max--;
	begin_std(&cl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* The third event does not fit: it and everything after it report
	 * the error, which end returns. */
	cl.max = P + 2 * E + 1 + 3;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), -EMSGSIZE);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_TIMEOUT_PEEK]),
	                 -EMSGSIZE);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* Not even the header fits. */
	cl.max = 40;
	assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, 1, f.r_bet.id.b,
	                                  f.r_bet.id.b, &(hj_card){0}),
	                 -EMSGSIZE);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), -EMSGSIZE);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* The error is cleared by the next begin. */
	cl.max = HJ_CARDLOG_MAX;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX DOC_DEPOSIT SUFFIX);
	free(s);
	hj_cardlog_release(&cl);
}

/* The real cap, 16 MiB: the first event past it is an error, not a crash
 * and not a cut line. */
static void test_cardlog_cap_default(void **state)
{
	static struct docfx f;
	const size_t P = strlen(STD_PREFIX), E = strlen(DOC_DEPOSIT);
	/* Events that fit: P + k E + (k - 1) <= max. */
	const size_t k = (HJ_CARDLOG_MAX - P + 1) / (E + 1);
	const char *line;
	size_t len, ok = 0;
	hj_cardlog cl;
	int rc = 0;

	(void)state;
	doc_events(&f);
	hj_cardlog_init(&cl);
	begin_std(&cl);
	while (ok < k + 10 &&
	       (rc = hj_cardlog_event(&cl, &f.ev[D_DEPOSIT])) == 0)
		ok++;
	assert_int_equal(rc, -EMSGSIZE);
	assert_int_equal(ok, k);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);
	hj_cardlog_release(&cl);
}

/* The same through the engine's sink: a block with more deposits than the
 * cap allows still applies, and end reports the error. */
static void test_cardlog_cap_table(void **state)
{
	hj_rules ru = rules(100);
	hj_table *t = hj_table_new(&ru);
	hj_action *txs = calloc(200, sizeof *txs);
	hj_cardlog cl;
	hj_card card;
	const char *line;
	size_t len;
	uint8_t h[32], p[32];
	uint64_t last = 0;

	(void)state;
	assert_non_null(t);
	assert_non_null(txs);
	for (uint32_t i = 0; i < 200; i++)
		txs[i] = evm_tx(T_DEP, F_DEP, i, NULL, 0, 1, i);
	unhex(VEC2, h, 32);
	unhex(GENESIS, p, 32);
	assert_int_equal(hj_card_from_hash(VEC2, 66, &card, NULL, 0), 0);
	hj_cardlog_init(&cl);
	cl.max = 4096;
	assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, 5, h, p, &card),
	                 0);
	assert_int_equal(
	    hj_table_apply_block(t, 5, &card, txs, 200, hj_cardlog_sink, &cl),
	    0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);
	assert_int_equal(hj_table_last_height(t, &last), 1);
	assert_int_equal(last, 5);
	hj_cardlog_release(&cl);
	hj_table_free(t);
	free(txs);
}

/* ------------------------------------------------------------------ */
/* Misuse: -EINVAL, sticky until the next begin.                       */

/* ev fails with -EINVAL on a fresh line; so does every later call. */
static void assert_refused(hj_cardlog *cl, const hj_event *ev,
                           const hj_event *good)
{
	const char *line;
	size_t len;

	begin_std(cl);
	assert_int_equal(hj_cardlog_event(cl, ev), -EINVAL);
	assert_int_equal(hj_cardlog_event(cl, good), -EINVAL);
	assert_int_equal(hj_cardlog_end(cl, &line, &len), -EINVAL);
}

static void test_cardlog_errors(void **state)
{
	static struct docfx f;
	static const char *const bad_chains[] = {
	    "",      "EVM",   "Evm",  "ev m",       "evm\"",
	    "evm\n", "evm_1", "ev.m", "\xc3\xa9vm",
	};
	uint8_t h[32];
	hj_card card = {0};
	const hj_event *good;
	const char *line;
	size_t len;
	hj_cardlog cl;
	hj_event ev;
	char *s;

	(void)state;
	doc_events(&f);
	good = &f.ev[D_DEPOSIT];
	memset(h, 0, sizeof h);
	hj_cardlog_release(NULL);
	hj_cardlog_init(&cl);
	hj_cardlog_release(&cl); /* nothing allocated yet */
	hj_cardlog_init(&cl);

	/* Outside begin..end. */
	assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);

	/* Chain names: lower-case letters, digits and '-' only. */
	for (size_t i = 0; i < sizeof bad_chains / sizeof bad_chains[0]; i++) {
		assert_int_equal(hj_cardlog_begin(&cl, bad_chains[i], HJ_EVM, 1,
		                                  h, h, &card),
		                 -EINVAL);
		assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);
		assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);
	}
	assert_int_equal(
	    hj_cardlog_begin(&cl, "eth-classic-61", HJ_EVM, 1, h, h, &card), 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_memory_equal(line, "{\"v\":1,\"chain\":\"eth-classic-61\",", 32);

	/* Cards hj_card_from_hash never makes: nothing would escape them. */
	static const hj_card bad_cards[] = {
	    {.rank = 14,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 4,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 0,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '"',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = 'G'},
	};
	for (size_t i = 0; i < sizeof bad_cards / sizeof bad_cards[0]; i++)
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, 1, h, h,
		                                  &bad_cards[i]),
		                 -EINVAL);

	/* Events that lack what they need. */
	ev = (hj_event){.type = HJ_EV_DRAW, .hand = 0, .card = C(2, 0)};
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DRAW_PLAYER];
	ev.card = 0; /* not a card */
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DRAW_PLAYER];
	ev.hand = -1;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_BET];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_BET];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_REJECT_NO_ROUND];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DEPOSIT];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_IGNORED];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_TIMEOUT_STAND];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_SETTLE_SPLIT];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_SETTLE_SPLIT];
	ev.settle = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DEPOSIT];
	ev.type = (hj_ev)99;
	assert_refused(&cl, &ev, good);
	/* An id longer than hj_id can hold. */
	f.t_dep.txid.len = 33;
	assert_refused(&cl, &f.ev[D_DEPOSIT], &f.ev[D_IGNORED]);
	f.t_dep.txid.len = 32;

	/* Through the sink, which cannot return the error: end does. */
	begin_std(&cl);
	ev = f.ev[D_BET];
	ev.round = NULL;
	hj_cardlog_sink(&cl, good);
	hj_cardlog_sink(&cl, &ev);
	hj_cardlog_sink(&cl, good);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);

	/* An event after end is outside begin..end. */
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);

	/* Every error is cleared by the next begin, and the line carries
	 * nothing of the lines before. */
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, good), 0);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX DOC_DEPOSIT SUFFIX);
	free(s);
	begin_std(&cl);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX SUFFIX);
	free(s);
	hj_cardlog_release(&cl);
	hj_cardlog_release(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hex_digit),
	    cmocka_unit_test(test_hex_prefix_required),
	    cmocka_unit_test(test_hex_prefix_optional),
	    cmocka_unit_test(test_hex_prefix_forbidden),
	    cmocka_unit_test(test_hex_odd),
	    cmocka_unit_test(test_hex_bad_chars),
	    cmocka_unit_test(test_hex_len_bounds),
	    cmocka_unit_test(test_hex_case),
	    cmocka_unit_test(test_hex_cap),
	    cmocka_unit_test(test_hex_exact),
	    cmocka_unit_test(test_hex_err_buffer),
	    cmocka_unit_test(test_hex_encode),
	    cmocka_unit_test(test_hex_round_trip),
	    cmocka_unit_test(test_evm_failed),
	    cmocka_unit_test(test_evm_deposit),
	    cmocka_unit_test(test_evm_malformed),
	    cmocka_unit_test(test_evm_actions),
	    cmocka_unit_test(test_evm_carried),
	    cmocka_unit_test(test_cardlog_void_block),
	    cmocka_unit_test(test_cardlog_cards),
	    cmocka_unit_test(test_cardlog_doc_events),
	    cmocka_unit_test(test_cardlog_doc_values),
	    cmocka_unit_test(test_cardlog_actions_more),
	    cmocka_unit_test(test_cardlog_reject_reasons),
	    cmocka_unit_test(test_cardlog_deposit_ignored),
	    cmocka_unit_test(test_cardlog_settle),
	    cmocka_unit_test(test_cardlog_many_events),
	    cmocka_unit_test(test_cardlog_bitcoin_form),
	    cmocka_unit_test(test_cardlog_heights),
	    cmocka_unit_test(test_cardlog_table_insured),
	    cmocka_unit_test(test_cardlog_table_timeout),
	    cmocka_unit_test(test_cardlog_cap_exact),
	    cmocka_unit_test(test_cardlog_cap_default),
	    cmocka_unit_test(test_cardlog_cap_table),
	    cmocka_unit_test(test_cardlog_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
