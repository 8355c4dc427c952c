/* Strict hex text (see hex.h). */
#include "hex.h"

#include <errno.h>
#include <stdio.h>

#include "say.h"

int hj_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Names a byte so that the message prints cleanly whatever it is. */
static void show_char(unsigned char c, char buf[8])
{
	if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "\\x%02x", c);
}

/*
 * Checks the prefix and every digit; on success *digits points at the first
 * digit and *ndigits counts them.
 */
static int scan(const char *s, size_t len, hj_hex_prefix prefix,
                const char **digits, size_t *ndigits, char *err, size_t errlen)
{
	size_t skip = 0;

	if (len >= 2 && s[0] == '0' && s[1] == 'x' && prefix != HJ_HEX_BARE)
		skip = 2;
	else if (prefix == HJ_HEX_REQUIRED) {
		hj_say(err, errlen, "\"0x\" prefix missing");
		return -EINVAL;
	}
	for (size_t i = skip; i < len; i++) {
		if (hj_hex_digit((unsigned char)s[i]) < 0) {
			char c[8];

			show_char((unsigned char)s[i], c);
			hj_say(err, errlen,
			       "%s at offset %zu is not a hex digit", c, i);
			return -EINVAL;
		}
	}
	*digits = s + skip;
	*ndigits = len - skip;
	return 0;
}

static void fill(const char *d, size_t nbytes, uint8_t *out)
{
	for (size_t i = 0; i < nbytes; i++)
		out[i] = (uint8_t)(hj_hex_digit((unsigned char)d[2 * i]) << 4 |
		                   hj_hex_digit((unsigned char)d[2 * i + 1]));
}

int hj_hex_decode(const char *s, size_t len, hj_hex_prefix prefix, uint8_t *out,
                  size_t cap, size_t *outlen, char *err, size_t errlen)
{
	const char *d;
	size_t nd;
	int rc;

	rc = scan(s, len, prefix, &d, &nd, err, errlen);
	if (rc)
		return rc;
	if (nd % 2) {
		hj_say(err, errlen, "odd number of hex digits (%zu)", nd);
		return -EINVAL;
	}
	if (nd / 2 > cap) {
		hj_say(err, errlen, "too long: %zu bytes, at most %zu allowed",
		       nd / 2, cap);
		return -EINVAL;
	}
	fill(d, nd / 2, out);
	if (outlen != NULL)
		*outlen = nd / 2;
	return 0;
}

int hj_hex_decode_exact(const char *s, size_t len, hj_hex_prefix prefix,
                        uint8_t *out, size_t n, char *err, size_t errlen)
{
	const char *d;
	size_t nd;
	int rc;

	rc = scan(s, len, prefix, &d, &nd, err, errlen);
	if (rc)
		return rc;
	if (nd != 2 * n) {
		hj_say(err, errlen, "%zu hex digits expected, found %zu", 2 * n,
		       nd);
		return -EINVAL;
	}
	fill(d, n, out);
	return 0;
}

size_t hj_hex_encode(const uint8_t *b, size_t n, int with_0x, char *out)
{
	static const char digits[16] = "0123456789abcdef";
	size_t k = 0;

	if (with_0x) {
		out[k++] = '0';
		out[k++] = 'x';
	}
	for (size_t i = 0; i < n; i++) {
		out[k++] = digits[b[i] >> 4];
		out[k++] = digits[b[i] & 15];
	}
	out[k] = '\0';
	return k;
}

int hj_hex_quantity(const char *s, size_t len, unsigned __int128 *out,
                    char *err, size_t errlen)
{
	unsigned __int128 v = 0;
	size_t i = 2;

	if (len < 3 || s[0] != '0' || s[1] != 'x') {
		hj_say(err, errlen,
		       "not a quantity (\"0x\" and hex "
		       "digits expected)");
		return -EINVAL;
	}
	while (i < len - 1 && s[i] == '0')
		i++;
	if (len - i > 32) {
		hj_say(err, errlen, "quantity above 2^128 - 1");
		return -ERANGE;
	}
	for (; i < len; i++) {
		int d = hj_hex_digit((unsigned char)s[i]);
		if (d < 0) {
			hj_say(err, errlen, "not a hex digit at offset %zu", i);
			return -EINVAL;
		}
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}
