/*
 * Strict hex text (chain/hex.h): decoding with and without the "0x" prefix,
 * every malformed form with its exact message, the room the caller gives,
 * and encoding.
 *
 * Every expected value was written from the header, not copied from what
 * the code prints.  Fixtures use a hex reader of their own, so that they
 * never depend on the module under test.
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

#include "hex.h"
#include "say.h"

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

/*
 * Decodes s[0..len) into a heap buffer of exactly cap bytes (so that
 * AddressSanitizer sees any write past it) and copies the result to got.
 */
static int dec(const char *s, size_t len, hj_hex_prefix p, size_t cap,
               uint8_t *got, size_t *outlen, char err[HJ_ERRLEN])
{
	uint8_t *out = malloc(cap);
	int rc;

	assert_true(cap == 0 || out != NULL);
	snprintf(err, HJ_ERRLEN, "(unset)");
	*outlen = SIZE_MAX;
	rc = hj_hex_decode(s, len, p, out, cap, outlen, err, HJ_ERRLEN);
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
	char err[HJ_ERRLEN];

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
	char err[HJ_ERRLEN];

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
	char err[HJ_ERRLEN];

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
	char err[HJ_ERRLEN];

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
	char err[HJ_ERRLEN];

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
