/*
 * The card of a block hash (game/card.h) on any text.  The result must be
 * the one the protocol's rule gives (docs/PROTOCOL.md, section 2.1), here
 * written again from the text: drop a lower-case "0x", require 64 hex
 * digits in either case, and scanning from digit 63 down to digit 1 the
 * first of 1..9a..d is the rank digit, its left neighbour the color digit
 * (value mod 4 the suit); none: a void block.  A hash gives the same card
 * with its letters in the other case and with the prefix added or
 * dropped; "0X" is refused; a refusal has a reason.
 */
#include <errno.h>

#include "fuzz.h"

#include "card.h"
#include "say.h"

/* The rule's digits as the protocol lists them. */
static const char hex_digits[] = "0123456789abcdef";
static const char qualified[] = "123456789abcd";

static char low(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : (char)c;
}

/* The value of a hex digit of either case, or -1. */
static int value(uint8_t c)
{
	const char *p = c != '\0' ? strchr(hex_digits, low(c)) : NULL;

	return p != NULL ? (int)(p - hex_digits) : -1;
}

/* 0 and *out, or -EINVAL, by the rule as the protocol states it. */
static int reference(const uint8_t *d, size_t n, hj_card *out)
{
	memset(out, 0, sizeof *out);
	if (n >= 2 && d[0] == '0' && d[1] == 'x') {
		d += 2;
		n -= 2;
	}
	if (n != HJ_HASH_DIGITS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (value(d[i]) < 0)
			return -EINVAL;
	for (size_t pos = HJ_HASH_DIGITS - 1; pos >= 1; pos--) {
		if (memchr(qualified, low(d[pos]), sizeof qualified - 1)) {
			out->rank = (uint8_t)value(d[pos]);
			out->suit = (uint8_t)(value(d[pos - 1]) % 4);
			out->pos = (uint8_t)pos;
			out->rank_digit = low(d[pos]);
			out->color_digit = low(d[pos - 1]);
			break;
		}
	}
	return 0;
}

static int same(const hj_card *a, const hj_card *b)
{
	return a->rank == b->rank && a->suit == b->suit && a->pos == b->pos &&
	       a->rank_digit == b->rank_digit &&
	       a->color_digit == b->color_digit;
}

/* The hash of d (valid) written another way, into buf; returns its length.
 * what: 0 letters in the other case, 1 the "0x" prefix toggled, 2 "0X"
 * instead of none. */
static size_t variant(const uint8_t *d, size_t n, int what, char *buf)
{
	int prefixed = n == HJ_HASH_DIGITS + 2;
	size_t k = 0;

	if ((what == 1 && !prefixed) || what == 2) {
		buf[k++] = '0';
		buf[k++] = what == 2 ? 'X' : 'x';
	}
	if (prefixed) {
		if (what == 0) {
			buf[k++] = '0';
			buf[k++] = 'x';
		}
		d += 2;
		n -= 2;
	}
	for (size_t i = 0; i < n; i++) {
		char c = (char)d[i];

		if (what == 0 && c >= 'a' && c <= 'f')
			c = (char)(c - 'a' + 'A');
		else if (what == 0 && c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		buf[k++] = c;
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char err[HJ_ERRLEN], tiny[1], buf[HJ_HASH_DIGITS + 3], name[4];
	hj_card c, want, other;
	int rc;

	err[0] = '\0';
	rc = hj_card_from_hash(s, size, &c, err, sizeof err);
	FUZZ_CHECK(rc == reference(data, size, &want));
	/* The same with no room for a message, and with none asked. */
	tiny[0] = 'x';
	FUZZ_CHECK(hj_card_from_hash(s, size, &other, tiny, sizeof tiny) == rc);
	FUZZ_CHECK(rc == 0 || tiny[0] == '\0');
	FUZZ_CHECK(hj_card_from_hash(s, size, &other, NULL, 0) == rc);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(same(&c, &want));
	if (c.rank == 0) {
		FUZZ_CHECK(c.suit == 0 && c.pos == 0 && c.rank_digit == '\0' &&
		           c.color_digit == '\0');
	} else {
		FUZZ_CHECK(c.rank <= 13 && c.suit <= 3 && c.pos >= 1 &&
		           c.pos < HJ_HASH_DIGITS);
		FUZZ_CHECK(hj_code_valid(hj_code(c.rank, c.suit)));
		hj_code_str(hj_code(c.rank, c.suit), name);
		FUZZ_CHECK(strcmp(name, "?C") != 0 && strlen(name) <= 3);
	}
	for (int what = 0; what < 2; what++) {
		size_t k = variant(data, size, what, buf);

		FUZZ_CHECK(hj_card_from_hash(buf, k, &other, NULL, 0) == 0);
		FUZZ_CHECK(same(&c, &other));
	}
	if (size == HJ_HASH_DIGITS) {
		size_t k = variant(data, size, 2, buf);

		FUZZ_CHECK(hj_card_from_hash(buf, k, &other, NULL, 0) ==
		           -EINVAL);
	}
	return 0;
}
