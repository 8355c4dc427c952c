/* hj_amount_parse and hj_amount_format: canonical decimal, 128 bits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "amount.h"

#define MAX_DEC "340282366920938463463374607431768211455"

/* Sentinel that no test input parses to, to see *out left alone. */
#define UNTOUCHED ((hj_amount)0xdeadbeefu << 64 | 0xfeedu)

static void assert_amount(hj_amount got, hj_amount want)
{
	assert_int_equal((uint64_t)(got >> 64), (uint64_t)(want >> 64));
	assert_int_equal((uint64_t)got, (uint64_t)want);
}

static int parse(const char *s, hj_amount *v)
{
	return hj_amount_parse(s, strlen(s), v);
}

static void assert_rejected(const char *s, size_t len, int err)
{
	hj_amount v = UNTOUCHED;

	assert_int_equal(hj_amount_parse(s, len, &v), err);
	assert_amount(v, UNTOUCHED);
}

/* A literal's length includes any NUL inside it. */
#define REJECT(lit, err) assert_rejected(lit, sizeof(lit) - 1, err)

static void test_small(void **state)
{
	hj_amount v;

	(void)state;
	assert_int_equal(parse("0", &v), 0);
	assert_amount(v, 0);
	assert_int_equal(parse("1", &v), 0);
	assert_amount(v, 1);
	assert_int_equal(parse("9", &v), 0);
	assert_amount(v, 9);
	assert_int_equal(parse("10", &v), 0);
	assert_amount(v, 10);
	assert_int_equal(parse("1000000000000000000", &v), 0); /* 1 ether */
	assert_amount(v, 1000000000000000000u);
}

static void test_64_bit_edge(void **state)
{
	hj_amount v;

	(void)state;
	assert_int_equal(parse("18446744073709551615", &v), 0);
	assert_amount(v, UINT64_MAX);
	assert_int_equal(parse("18446744073709551616", &v), 0);
	assert_int_equal((uint64_t)(v >> 64), 1);
	assert_int_equal((uint64_t)v, 0);
}

static void test_max(void **state)
{
	hj_amount v;
	char buf[HJ_AMOUNT_STRLEN];

	(void)state;
	assert_int_equal(parse(MAX_DEC, &v), 0);
	assert_int_equal((uint64_t)(v >> 64), UINT64_MAX);
	assert_int_equal((uint64_t)v, UINT64_MAX);
	assert_int_equal(strlen(MAX_DEC), 39);
	assert_string_equal(hj_amount_format(HJ_AMOUNT_MAX, buf), MAX_DEC);
	assert_int_equal(parse("340282366920938463463374607431768211454", &v),
	                 0);
	assert_amount(v, HJ_AMOUNT_MAX - 1);
}

static void test_range(void **state)
{
	(void)state;
	REJECT("340282366920938463463374607431768211456", -ERANGE);
	REJECT("340282366920938463463374607431768211460", -ERANGE);
	REJECT("340282366920938463463374607431768212455", -ERANGE);
	REJECT("999999999999999999999999999999999999999", -ERANGE);
	/* 40 digits, the smallest and the largest. */
	REJECT("1000000000000000000000000000000000000000", -ERANGE);
	REJECT("9999999999999999999999999999999999999999", -ERANGE);
	REJECT("3402823669209384634633746074317682114550", -ERANGE);
	/* Far beyond: no wrap-around back into range. */
	REJECT("68056473384187692692674921486353642291200000000", -ERANGE);
}

static void test_malformed(void **state)
{
	(void)state;
	REJECT("", -EINVAL);
	assert_rejected(NULL, 0, -EINVAL);
	REJECT("01", -EINVAL);
	REJECT("00", -EINVAL);
	REJECT("0000000000000000000000000000000000000001", -EINVAL);
	REJECT("-1", -EINVAL);
	REJECT("+1", -EINVAL);
	REJECT("-0", -EINVAL);
	REJECT(" 1", -EINVAL);
	REJECT("1 ", -EINVAL);
	REJECT("1 2", -EINVAL);
	REJECT("\t7", -EINVAL);
	REJECT("12\n", -EINVAL);
	REJECT("1a", -EINVAL);
	REJECT("a1", -EINVAL);
	REJECT("0x10", -EINVAL);
	REJECT("1.0", -EINVAL);
	REJECT("1e3", -EINVAL);
	REJECT("1,000", -EINVAL);
	REJECT("/", -EINVAL);        /* '0' - 1 */
	REJECT(":", -EINVAL);        /* '9' + 1 */
	REJECT("\xd9\xa1", -EINVAL); /* Arabic-Indic one */
	/* A string that is both too long and not a number is not a number. */
	REJECT("9999999999999999999999999999999999999999x", -EINVAL);
}

static void test_embedded_nul(void **state)
{
	hj_amount v = UNTOUCHED;

	(void)state;
	REJECT("12\0003", -EINVAL); /* 1, 2, NUL, 3 */
	REJECT("\0", -EINVAL);
	REJECT("5\0", -EINVAL);
	/* len, not a NUL, ends the string: "123" read as its first two. */
	assert_int_equal(hj_amount_parse("123", 2, &v), 0);
	assert_amount(v, 12);
}

static void test_format(void **state)
{
	char buf[HJ_AMOUNT_STRLEN];

	(void)state;
	assert_ptr_equal(hj_amount_format(0, buf), buf);
	assert_string_equal(buf, "0");
	assert_string_equal(hj_amount_format(1, buf), "1");
	assert_string_equal(hj_amount_format(10, buf), "10");
	assert_string_equal(hj_amount_format(1234567890, buf), "1234567890");
	assert_string_equal(hj_amount_format(UINT64_MAX, buf),
	                    "18446744073709551615");
	assert_string_equal(hj_amount_format((hj_amount)UINT64_MAX + 1, buf),
	                    "18446744073709551616");
	assert_string_equal(hj_amount_format(HJ_AMOUNT_MAX - 1, buf),
	                    "340282366920938463463374607431768211454");
}

/*
 * 2^k for k = 0..127: the expected text comes from doubling a decimal
 * string digit by digit, not from the code under test.
 */
static void test_powers_of_two(void **state)
{
	char dec[HJ_AMOUNT_STRLEN] = "1"; /* most significant digit first */
	char buf[HJ_AMOUNT_STRLEN];
	size_t n = 1;

	(void)state;
	for (int k = 0; k < 128; k++) {
		hj_amount p = (hj_amount)1 << k, v = 0;

		assert_string_equal(hj_amount_format(p, buf), dec);
		assert_int_equal(hj_amount_parse(dec, n, &v), 0);
		assert_amount(v, p);
		/* 2^k - 1 round-trips too. */
		assert_int_equal(parse(hj_amount_format(p - 1, buf), &v), 0);
		assert_amount(v, p - 1);

		unsigned carry = 0;
		for (size_t i = n; i-- > 0;) {
			unsigned d = (unsigned)(dec[i] - '0') * 2 + carry;

			dec[i] = (char)('0' + d % 10);
			carry = d / 10;
		}
		if (carry) {
			memmove(dec + 1, dec, n + 1);
			dec[0] = '1';
			n++;
		}
	}
	/* The loop ends on 2^128, one above the largest amount. */
	assert_string_equal(dec, "340282366920938463463374607431768211456");
	assert_rejected(dec, n, -ERANGE);
}

/* 10^k - 1, 10^k and 10^k + 1 for every k that fits. */
static void test_powers_of_ten(void **state)
{
	char want[HJ_AMOUNT_STRLEN + 1];
	char buf[HJ_AMOUNT_STRLEN];
	hj_amount p = 1;

	(void)state;
	for (int k = 0; k <= 38; k++) {
		hj_amount v = 0;

		memset(want, '0', sizeof want);
		want[0] = '1';
		want[k + 1] = '\0';
		assert_string_equal(hj_amount_format(p, buf), want);
		assert_int_equal(parse(want, &v), 0);
		assert_amount(v, p);

		want[k] = k == 0 ? '2' : '1';
		assert_string_equal(hj_amount_format(p + 1, buf), want);

		memset(want, '9', sizeof want);
		want[k] = '\0';
		if (k > 0) {
			assert_string_equal(hj_amount_format(p - 1, buf), want);
			assert_int_equal(parse(want, &v), 0);
			assert_amount(v, p - 1);
		}
		if (k < 38)
			p *= 10;
	}
	/* 10^38 has 39 digits and fits; 10^39 does not. */
	assert_string_equal(hj_amount_format(p, buf),
	                    "100000000000000000000000000000000000000");
	REJECT("1000000000000000000000000000000000000000", -ERANGE);
}

static void test_round_trip_random(void **state)
{
	char buf[HJ_AMOUNT_STRLEN];
	uint64_t x = 88172645463325252u;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		hj_amount a, v = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a = (hj_amount)x << 64;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a |= x;
		/* Spread over all magnitudes, not just ~39-digit ones. */
		a >>= i % 128;
		hj_amount_format(a, buf);
		size_t n = strlen(buf);
		assert_true(n >= 1 && n <= 39);
		assert_true(n == 1 || buf[0] != '0');
		assert_int_equal(hj_amount_parse(buf, n, &v), 0);
		assert_amount(v, a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small),
	    cmocka_unit_test(test_64_bit_edge),
	    cmocka_unit_test(test_max),
	    cmocka_unit_test(test_range),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_embedded_nul),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_powers_of_two),
	    cmocka_unit_test(test_powers_of_ten),
	    cmocka_unit_test(test_round_trip_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
