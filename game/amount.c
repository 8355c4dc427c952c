/* Canonical decimal for 128-bit amounts (see amount.h). */
#include <errno.h>

#include "amount.h"

int hj_amount_parse(const char *s, size_t len, hj_amount *out)
{
	hj_amount v = 0;

	/*
	 * Malformed text is -EINVAL even when it is also long: a string that
	 * is not a number is not "out of range".  So check every byte before
	 * accumulating.  An embedded NUL is a non-digit like any other.
	 */
	if (len == 0 || (s[0] == '0' && len > 1))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;

	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		/* v * 10 + d <= MAX  <=>  v <= (MAX - d) / 10 */
		if (v > (HJ_AMOUNT_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

char *hj_amount_format(hj_amount v, char buf[HJ_AMOUNT_STRLEN])
{
	char tmp[HJ_AMOUNT_STRLEN];
	size_t n = 0;

	/* Digits come out least significant first; reverse into buf. */
	do {
		tmp[n++] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v != 0);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}
