/*
 * Canonical decimal amounts (game/amount.h).  The input as text: it parses
 * exactly when it is canonical and at most 2^128 - 1, and then formats
 * back to the same text; anything else is -EINVAL (not a canonical
 * number) or -ERANGE (one above the maximum) and leaves *out alone.  The
 * input's first 16 bytes as a value: it formats to canonical text that
 * parses back to it.
 */
#include <errno.h>

#include "fuzz.h"

#include "amount.h"

/* 2^128 - 1, the largest amount. */
static const char max_text[] = "340282366920938463463374607431768211455";

/* What hj_amount_parse must return, from the text alone. */
static int expected(const char *s, size_t n)
{
	const size_t max_len = sizeof max_text - 1;

	if (n == 0 || (s[0] == '0' && n > 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	if (n < max_len || (n == max_len && memcmp(s, max_text, n) <= 0))
		return 0;
	return -ERANGE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	const char *s = (const char *)data;
	const hj_amount untouched = (hj_amount)0x5a5a << 64 | 0xa5a5;
	char buf[HJ_AMOUNT_STRLEN];
	hj_amount v = untouched, w;
	size_t n;
	int rc;

	rc = hj_amount_parse(s, size, &v);
	FUZZ_CHECK(rc == expected(s, size));
	if (rc == 0) {
		FUZZ_CHECK(hj_amount_format(v, buf) == buf);
		FUZZ_CHECK(strlen(buf) == size && memcmp(buf, s, size) == 0);
	} else {
		FUZZ_CHECK(v == untouched);
	}

	v = (hj_amount)fuzz_u64(&in) << 64 | fuzz_u64(&in);
	hj_amount_format(v, buf);
	n = strnlen(buf, sizeof buf);
	FUZZ_CHECK(n >= 1 && n < sizeof buf);
	FUZZ_CHECK(expected(buf, n) == 0);
	FUZZ_CHECK(hj_amount_parse(buf, n, &w) == 0 && w == v);
	return 0;
}
