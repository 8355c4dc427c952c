/*
 * The card of a block hash (docs/PROTOCOL.md section 2).
 *
 * This runs for every block the daemon sees and in the benchmark's tight
 * loop, so the success path allocates nothing, formats nothing and touches
 * each digit a bounded number of times: one pass that checks all 64 digits,
 * then a scan from the right that usually stops within a few digits.  Error
 * text is built only on failure.
 */
#include <errno.h>
#include <stdio.h>

#include "card.h"
#include "say.h"

/*
 * Hex digit value plus one, so that the zero every other byte gets from the
 * initializer means "not a hex digit".
 */
static const uint8_t hexv1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static const char lower_hex[16] = "0123456789abcdef";

static void say_length(const unsigned char *d, size_t n, int prefixed,
                       char *err, size_t errlen)
{
	int upper = n == HJ_HASH_DIGITS + 2 && d[0] == '0' && d[1] == 'X';

	if (prefixed)
		hj_say(err, errlen,
		       "block hash has %zu digits after \"0x\", expected 64",
		       n);
	else
		hj_say(err, errlen, "block hash has %zu digits, expected 64%s",
		       n,
		       upper ? " (only a lower-case \"0x\" prefix is dropped)"
		             : "");
}

static void say_not_hex(const unsigned char *d, int prefixed, char *err,
                        size_t errlen)
{
	char shown[8];
	size_t i = 0;

	while (hexv1[d[i]] != 0)
		i++;
	/* Quote the byte only when it prints as itself inside '...'. */
	if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '\'' && d[i] != '\\')
		snprintf(shown, sizeof shown, "'%c'", d[i]);
	else
		snprintf(shown, sizeof shown, "\\x%02x", d[i]);
	hj_say(err, errlen,
	       "block hash has non-hex character %s at position %zu%s", shown,
	       i, prefixed ? " after \"0x\"" : "");
}

/*
 * Only a lower-case "0x" is dropped: it is what every EVM node prints (and
 * what docs/PROTOCOL.md section 2.1 names), while "0X" comes from no node we
 * read, so a hash written that way was produced by hand or by a bug and is
 * better refused than guessed at.  The error message points at the prefix.
 */
int hj_card_from_hash(const char *hash, size_t len, hj_card *out, char *err,
                      size_t errlen)
{
	const unsigned char *d = (const unsigned char *)hash;
	size_t n = len;
	int prefixed = 0;
	unsigned bad = 0;

	*out = (hj_card){0};
	if (n >= 2 && d[0] == '0' && d[1] == 'x') {
		d += 2;
		n -= 2;
		prefixed = 1;
	}
	if (n != HJ_HASH_DIGITS) {
		if (err != NULL && errlen > 0)
			say_length(d, n, prefixed, err, errlen);
		return -EINVAL;
	}
	/* No early exit: a branch-free pass over 64 bytes is cheaper than
	 * the branches it would save. */
	for (size_t i = 0; i < HJ_HASH_DIGITS; i++)
		bad |= hexv1[d[i]] == 0;
	if (bad) {
		if (err != NULL && errlen > 0)
			say_not_hex(d, prefixed, err, errlen);
		return -EINVAL;
	}

	/* i > 0: the first digit has nothing to its left, so it is never the
	 * rank digit. */
	for (size_t i = HJ_HASH_DIGITS - 1; i > 0; i--) {
		unsigned v = hexv1[d[i]] - 1u;

		if (v >= 1 && v <= 13) {
			unsigned c = hexv1[d[i - 1]] - 1u;

			out->rank = (uint8_t)v;
			out->suit = (uint8_t)(c & 3u);
			out->pos = (uint8_t)i;
			out->rank_digit = lower_hex[v];
			out->color_digit = lower_hex[c];
			return 0;
		}
	}
	return 0; /* void: *out is all zero */
}

static const char *const rank_names[] = {
    "?", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
};

const char *hj_rank_name(unsigned rank)
{
	if (rank < 1 || rank > 13)
		return "?";
	return rank_names[rank];
}

static const char *const suit_names[] = {
    "Clubs",
    "Diamonds",
    "Hearts",
    "Spades",
};

/* "?" outside 0..3, like hj_rank_name: a name is never NULL. */
const char *hj_suit_name(unsigned suit)
{
	if (suit > 3)
		return "?";
	return suit_names[suit];
}

/* An invalid rank shows as "?" ("?C" for code 0); at most "10H" + NUL. */
char *hj_code_str(uint8_t code, char buf[4])
{
	const char *r = hj_rank_name(hj_code_rank(code));
	size_t i = 0;

	for (; r[i] != '\0'; i++)
		buf[i] = r[i];
	buf[i++] = "CDHS"[hj_code_suit(code)];
	buf[i] = '\0';
	return buf;
}
