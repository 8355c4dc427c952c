/* hj_card_from_hash and the card names: docs/PROTOCOL.md section 2 and
 * card.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "card.h"
#include "say.h"

#define GENESIS                                                                \
	"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
#define VEC2                                                                   \
	"0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e"

/* Sets h to 64 copies of c and terminates it. */
static void fill(char h[HJ_HASH_DIGITS + 1], char c)
{
	memset(h, c, HJ_HASH_DIGITS);
	h[HJ_HASH_DIGITS] = '\0';
}

static int derive(const char *h, hj_card *c)
{
	return hj_card_from_hash(h, strlen(h), c, NULL, 0);
}

static void assert_card(const hj_card *c, unsigned rank, unsigned suit,
                        unsigned pos, char rd, char cd)
{
	assert_int_equal(c->rank, rank);
	assert_int_equal(c->suit, suit);
	assert_int_equal(c->pos, pos);
	assert_int_equal(c->rank_digit, rd);
	assert_int_equal(c->color_digit, cd);
}

static void assert_void(const hj_card *c)
{
	assert_card(c, 0, 0, 0, '\0', '\0');
}

static void test_genesis(void **state)
{
	hj_card c;

	(void)state;
	assert_int_equal(derive(GENESIS, &c), 0);
	assert_card(&c, 6, HJ_HEARTS, 62, '6', '2');
	assert_int_equal(derive("0x" GENESIS, &c), 0);
	assert_card(&c, 6, HJ_HEARTS, 62, '6', '2');
}

static void test_vector2(void **state)
{
	hj_card c;

	(void)state;
	assert_int_equal(derive(VEC2, &c), 0);
	assert_card(&c, HJ_ACE, HJ_SPADES, 61, '1', 'b');
	/* Without the prefix. */
	assert_int_equal(derive(&VEC2[2], &c), 0);
	assert_card(&c, HJ_ACE, HJ_SPADES, 61, '1', 'b');
}

static void test_upper_case(void **state)
{
	char h[2 + HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	/* Upper-case digits behind a lower-case prefix, and bare. */
	memcpy(h,
	       "0x0B6BC29980DBB1E93857D094F4A68184D33F3C956609C997693DEA1"
	       "29192B10E",
	       sizeof h);
	assert_int_equal(derive(h, &c), 0);
	assert_card(&c, HJ_ACE, HJ_SPADES, 61, '1', 'b');
	assert_int_equal(derive(h + 2, &c), 0);
	assert_card(&c, HJ_ACE, HJ_SPADES, 61, '1', 'b');

	/* Upper-case rank and color digits come out lower-case. */
	fill(h, '0');
	h[62] = 'E';
	h[63] = 'D';
	assert_int_equal(derive(h, &c), 0);
	assert_card(&c, HJ_KING, HJ_HEARTS, 63, 'd', 'e');
	h[62] = 'e';
	h[63] = 'd';
	assert_int_equal(derive(h, &c), 0);
	assert_card(&c, HJ_KING, HJ_HEARTS, 63, 'd', 'e');
}

static void test_upper_prefix_refused(void **state)
{
	char err[HJ_ERRLEN];
	hj_card c;

	(void)state;
	assert_int_equal(
	    hj_card_from_hash("0X" GENESIS, 66, &c, err, sizeof err), -EINVAL);
	assert_string_equal(err, "block hash has 66 digits, expected 64 (only "
	                         "a lower-case \"0x\" prefix is dropped)");
	assert_void(&c);
	/* 64 characters that begin with "0x" are a prefix and 62 digits,
	 * never a hash whose first digits are 0 and x. */
	assert_int_equal(
	    hj_card_from_hash("0x" GENESIS, 64, &c, err, sizeof err), -EINVAL);
	assert_string_equal(err, "block hash has 62 digits after \"0x\", "
	                         "expected 64");
}

static void test_wrong_length(void **state)
{
	char h[80];
	char err[HJ_ERRLEN];
	hj_card c;

	(void)state;
	memset(h, 'a', sizeof h);
	assert_int_equal(hj_card_from_hash(h, 63, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 63 digits, expected 64");
	assert_int_equal(hj_card_from_hash(h, 65, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 65 digits, expected 64");
	assert_int_equal(hj_card_from_hash("", 0, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 0 digits, expected 64");
	assert_int_equal(hj_card_from_hash(NULL, 0, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 0 digits, expected 64");

	h[0] = '0';
	h[1] = 'x';
	assert_int_equal(hj_card_from_hash(h, 2, &c, err, sizeof err), -EINVAL);
	assert_string_equal(err, "block hash has 0 digits after \"0x\", "
	                         "expected 64");
	assert_int_equal(hj_card_from_hash(h, 65, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 63 digits after \"0x\", "
	                         "expected 64");
	assert_int_equal(hj_card_from_hash(h, 67, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 65 digits after \"0x\", "
	                         "expected 64");
	/* 66 characters without a prefix are 66 digits. */
	h[0] = 'a';
	h[1] = 'a';
	assert_int_equal(hj_card_from_hash(h, 66, &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "block hash has 66 digits, expected 64");
}

static void test_err_buffer(void **state)
{
	char err[8];
	hj_card c;

	(void)state;
	/* No buffer: only the return value. */
	assert_int_equal(hj_card_from_hash("abc", 3, &c, NULL, 0), -EINVAL);
	assert_int_equal(hj_card_from_hash("abc", 3, &c, NULL, 100), -EINVAL);
	/* A zero-length buffer is not written at all. */
	err[0] = 'Z';
	assert_int_equal(hj_card_from_hash("abc", 3, &c, err, 0), -EINVAL);
	assert_int_equal(err[0], 'Z');
	/* A short one is truncated and terminated. */
	memset(err, 'Z', sizeof err);
	assert_int_equal(hj_card_from_hash("abc", 3, &c, err, 6), -EINVAL);
	assert_string_equal(err, "block");
	assert_int_equal(err[6], 'Z');
}

/* Puts bad at digit position pos of a valid hash and checks the message. */
static void check_not_hex(int prefixed, size_t pos, char bad, const char *want)
{
	char h[2 + HJ_HASH_DIGITS + 1];
	char err[HJ_ERRLEN];
	size_t off = prefixed ? 2 : 0;
	hj_card c;

	memcpy(h, "0x", 2);
	memcpy(h + 2, GENESIS, HJ_HASH_DIGITS + 1);
	h[2 + pos] = bad;
	memset(&c, 0x5a, sizeof c);
	assert_int_equal(hj_card_from_hash(h + 2 - off, HJ_HASH_DIGITS + off,
	                                   &c, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, want);
	assert_void(&c);
}

static void test_not_hex(void **state)
{
	(void)state;
	check_not_hex(0, 0, 'g',
	              "block hash has non-hex character 'g' at position 0");
	check_not_hex(0, 31, 'x',
	              "block hash has non-hex character 'x' at position 31");
	check_not_hex(0, 63, 'G',
	              "block hash has non-hex character 'G' at position 63");
	check_not_hex(0, 62, ' ',
	              "block hash has non-hex character ' ' at position 62");
	/* Positions count the digits after the prefix. */
	check_not_hex(1, 0, 'z',
	              "block hash has non-hex character 'z' at position 0 "
	              "after \"0x\"");
	check_not_hex(1, 63, '-',
	              "block hash has non-hex character '-' at position 63 "
	              "after \"0x\"");
	check_not_hex(1, 40, 'X',
	              "block hash has non-hex character 'X' at position 40 "
	              "after \"0x\"");
	/* Bytes that would not print as themselves are escaped. */
	check_not_hex(0, 5, '\0',
	              "block hash has non-hex character \\x00 at position 5");
	check_not_hex(0, 6, '\n',
	              "block hash has non-hex character \\x0a at position 6");
	check_not_hex(0, 7, (char)0xff,
	              "block hash has non-hex character \\xff at position 7");
	check_not_hex(0, 8, '\'',
	              "block hash has non-hex character \\x27 at position 8");
	check_not_hex(0, 9, '\\',
	              "block hash has non-hex character \\x5c at position 9");
	check_not_hex(0, 10, 0x7f,
	              "block hash has non-hex character \\x7f at position 10");
}

static void test_first_bad_reported(void **state)
{
	char h[HJ_HASH_DIGITS + 1];
	char err[HJ_ERRLEN];
	hj_card c;

	(void)state;
	fill(h, '1');
	h[50] = 'q';
	h[20] = 'r';
	h[63] = 's';
	assert_int_equal(
	    hj_card_from_hash(h, HJ_HASH_DIGITS, &c, err, sizeof err), -EINVAL);
	assert_string_equal(
	    err, "block hash has non-hex character 'r' at position 20");
}

static void test_void(void **state)
{
	char h[HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	fill(h, '0');
	memset(&c, 0x5a, sizeof c);
	assert_int_equal(derive(h, &c), 0);
	assert_void(&c);

	/* 62 zeros then "ef". */
	h[62] = 'e';
	h[63] = 'f';
	memset(&c, 0x5a, sizeof c);
	assert_int_equal(derive(h, &c), 0);
	assert_void(&c);

	/* "d" then 63 zeros: the only qualified digit is the first one. */
	fill(h, '0');
	h[0] = 'd';
	assert_int_equal(derive(h, &c), 0);
	assert_void(&c);
	{
		char p[2 + HJ_HASH_DIGITS + 1] = "0x";

		memcpy(p + 2, h, HJ_HASH_DIGITS + 1);
		assert_int_equal(derive(p, &c), 0);
		assert_void(&c);
	}

	/* Only 0, e and f, in both cases. */
	for (int i = 0; i < HJ_HASH_DIGITS; i++)
		h[i] = "0eEfF"[i % 5];
	assert_int_equal(derive(h, &c), 0);
	assert_void(&c);

	/* Every qualified digit at position 0 alone is void. */
	for (const char *q = "123456789abcdABCD"; *q; q++) {
		fill(h, 'f');
		h[0] = *q;
		assert_int_equal(derive(h, &c), 0);
		assert_void(&c);
	}
}

static void test_rank_at_position_1(void **state)
{
	static const char colors[] = "0123456789abcdefABCDEF";
	char h[HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	for (const char *p = colors; *p; p++) {
		unsigned v = (unsigned)(p - colors);

		if (v >= 16)
			v -= 6; /* 'A' is 10 */
		fill(h, 'e');
		h[0] = *p;
		h[1] = '7';
		assert_int_equal(derive(h, &c), 0);
		assert_card(&c, 7, v % 4, 1, '7', "0123456789abcdef"[v]);
	}
}

static void test_skips_unqualified(void **state)
{
	char h[HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	/* The rightmost qualified digit wins, past 0, e and f. */
	fill(h, '9');
	memcpy(h + 56, "35f0eF0E", 8);
	assert_int_equal(derive(h, &c), 0);
	assert_card(&c, 5, 3 % 4, 57, '5', '3');

	/* A qualified color digit is only a color. */
	fill(h, '0');
	h[62] = 'c';
	h[63] = '2';
	assert_int_equal(derive(h, &c), 0);
	assert_card(&c, 2, 12 % 4, 63, '2', 'c');
}

static void test_every_color(void **state)
{
	/* Each color digit, as written and expected, with its suit. */
	static const struct {
		char in, out;
		unsigned suit;
	} t[] = {
	    {'0', '0', HJ_CLUBS},  {'1', '1', HJ_DIAMONDS},
	    {'2', '2', HJ_HEARTS}, {'3', '3', HJ_SPADES},
	    {'4', '4', HJ_CLUBS},  {'5', '5', HJ_DIAMONDS},
	    {'6', '6', HJ_HEARTS}, {'7', '7', HJ_SPADES},
	    {'8', '8', HJ_CLUBS},  {'9', '9', HJ_DIAMONDS},
	    {'a', 'a', HJ_HEARTS}, {'b', 'b', HJ_SPADES},
	    {'c', 'c', HJ_CLUBS},  {'d', 'd', HJ_DIAMONDS},
	    {'e', 'e', HJ_HEARTS}, {'f', 'f', HJ_SPADES},
	    {'A', 'a', HJ_HEARTS}, {'B', 'b', HJ_SPADES},
	    {'C', 'c', HJ_CLUBS},  {'D', 'd', HJ_DIAMONDS},
	    {'E', 'e', HJ_HEARTS}, {'F', 'f', HJ_SPADES},
	};
	char h[HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		fill(h, '3');
		h[62] = t[i].in;
		h[63] = '9';
		assert_int_equal(derive(h, &c), 0);
		assert_card(&c, 9, t[i].suit, 63, '9', t[i].out);
	}
}

static void test_every_rank(void **state)
{
	static const struct {
		char digit, out;
		unsigned rank, value;
		const char *name;
	} t[] = {
	    {'1', '1', 1, 1, "A"},   {'2', '2', 2, 2, "2"},
	    {'3', '3', 3, 3, "3"},   {'4', '4', 4, 4, "4"},
	    {'5', '5', 5, 5, "5"},   {'6', '6', 6, 6, "6"},
	    {'7', '7', 7, 7, "7"},   {'8', '8', 8, 8, "8"},
	    {'9', '9', 9, 9, "9"},   {'a', 'a', 10, 10, "10"},
	    {'b', 'b', 11, 10, "J"}, {'c', 'c', 12, 10, "Q"},
	    {'d', 'd', 13, 10, "K"}, {'A', 'a', 10, 10, "10"},
	    {'B', 'b', 11, 10, "J"}, {'C', 'c', 12, 10, "Q"},
	    {'D', 'd', 13, 10, "K"},
	};
	char h[HJ_HASH_DIGITS + 1];
	hj_card c;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		fill(h, 'f');
		h[40] = '4';
		h[41] = t[i].digit;
		assert_int_equal(derive(h, &c), 0);
		assert_card(&c, t[i].rank, HJ_CLUBS, 41, t[i].out, '4');
		assert_int_equal(hj_rank_value(c.rank), t[i].value);
		assert_string_equal(hj_rank_name(c.rank), t[i].name);
	}
	assert_int_equal(HJ_ACE, 1);
	assert_int_equal(HJ_JACK, 11);
	assert_int_equal(HJ_KING, 13);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(hj_rank_name(0), "?");
	assert_string_equal(hj_rank_name(1), "A");
	assert_string_equal(hj_rank_name(10), "10");
	assert_string_equal(hj_rank_name(13), "K");
	assert_string_equal(hj_rank_name(14), "?");
	assert_string_equal(hj_rank_name(~0u), "?");
	assert_string_equal(hj_suit_name(HJ_CLUBS), "Clubs");
	assert_string_equal(hj_suit_name(HJ_DIAMONDS), "Diamonds");
	assert_string_equal(hj_suit_name(HJ_HEARTS), "Hearts");
	assert_string_equal(hj_suit_name(HJ_SPADES), "Spades");
	assert_string_equal(hj_suit_name(4), "?");
}

static void test_code_str_all(void **state)
{
	static const char *const want[52] = {
	    "AC",  "AD",  "AH",  "AS",  "2C", "2D", "2H", "2S", "3C",
	    "3D",  "3H",  "3S",  "4C",  "4D", "4H", "4S", "5C", "5D",
	    "5H",  "5S",  "6C",  "6D",  "6H", "6S", "7C", "7D", "7H",
	    "7S",  "8C",  "8D",  "8H",  "8S", "9C", "9D", "9H", "9S",
	    "10C", "10D", "10H", "10S", "JC", "JD", "JH", "JS", "QC",
	    "QD",  "QH",  "QS",  "KC",  "KD", "KH", "KS",
	};
	char buf[4];
	int n = 0;

	(void)state;
	for (unsigned r = 1; r <= 13; r++) {
		for (unsigned s = 0; s < 4; s++) {
			uint8_t code = hj_code(r, s);

			assert_int_equal(code, 4 * r + s);
			assert_true(hj_code_valid(code));
			assert_int_equal(hj_code_rank(code), r);
			assert_int_equal(hj_code_suit(code), s);
			assert_ptr_equal(hj_code_str(code, buf), buf);
			assert_string_equal(buf, want[n]);
			n++;
		}
	}
	assert_int_equal(n, 52);
	assert_false(hj_code_valid(0));
	assert_false(hj_code_valid(3));
	assert_false(hj_code_valid(56));
	assert_string_equal(hj_code_str(0, buf), "?C");
	assert_string_equal(hj_code_str(59, buf), "?S");
}

/*
 * A deliberately naive model of docs/PROTOCOL.md section 2.1, written from
 * the text and not from card.c: lower-case a copy, then walk left from the
 * end.
 */
static void model(const char *h, hj_card *c)
{
	static const char digits[] = "0123456789abcdef";
	char l[HJ_HASH_DIGITS];

	memset(c, 0, sizeof *c);
	for (int i = 0; i < HJ_HASH_DIGITS; i++)
		l[i] = (h[i] >= 'A' && h[i] <= 'F') ? (char)(h[i] + 32) : h[i];
	for (int i = HJ_HASH_DIGITS - 1; i >= 1; i--) {
		const char *q = strchr("123456789abcd", l[i]);

		if (q == NULL)
			continue;
		c->rank = (uint8_t)(q - "123456789abcd" + 1);
		c->suit = (uint8_t)((strchr(digits, l[i - 1]) - digits) % 4);
		c->pos = (uint8_t)i;
		c->rank_digit = l[i];
		c->color_digit = l[i - 1];
		return;
	}
}

static void test_against_model(void **state)
{
	/* Sparse in qualified digits so that deep scans and voids occur. */
	static const char pool[] = "0eEfF0eEfF0eEfF123456789abcdABCDef";
	char h[HJ_HASH_DIGITS + 1];
	uint64_t x = 0x9e3779b97f4a7c15u;
	int voids = 0;

	(void)state;
	for (int k = 0; k < 20000; k++) {
		hj_card got, want;
		/* Per hash, how many digits may be drawn from the whole pool:
		 * the rest come from 0/e/f only. */
		int rich = k % 66;

		for (int i = 0; i < HJ_HASH_DIGITS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			h[i] = i < HJ_HASH_DIGITS - rich
			           ? pool[x % 15]
			           : pool[x % (sizeof pool - 1)];
		}
		if (k % 7 == 0)
			h[(x >> 8) % HJ_HASH_DIGITS] = "12345"[(x >> 20) % 5];
		h[HJ_HASH_DIGITS] = '\0';
		model(h, &want);
		assert_int_equal(derive(h, &got), 0);
		assert_card(&got, want.rank, want.suit, want.pos,
		            want.rank_digit, want.color_digit);
		voids += want.rank == 0;
	}
	/* The generator must reach both outcomes, or the test proves less. */
	assert_true(voids > 100);
	assert_true(voids < 19000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_genesis),
	    cmocka_unit_test(test_vector2),
	    cmocka_unit_test(test_upper_case),
	    cmocka_unit_test(test_upper_prefix_refused),
	    cmocka_unit_test(test_wrong_length),
	    cmocka_unit_test(test_err_buffer),
	    cmocka_unit_test(test_not_hex),
	    cmocka_unit_test(test_first_bad_reported),
	    cmocka_unit_test(test_void),
	    cmocka_unit_test(test_rank_at_position_1),
	    cmocka_unit_test(test_skips_unqualified),
	    cmocka_unit_test(test_every_color),
	    cmocka_unit_test(test_every_rank),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_code_str_all),
	    cmocka_unit_test(test_against_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
