/*
 * The rules as text (game/rules_text.c): the line the daemon's database
 * keeps in meta.rules, written by hj_rules_format and read by
 * hj_rules_parse.  Existing databases hold these bytes, so every expected
 * line below is written out in full, for every preset and every rule key:
 * a change to the writer fails here before a restarted daemon would
 * refuse its own state.  The parser reads only that form; its messages
 * quote what it refuses exactly as hj_quote (game/base/quote.c) does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "rules.h"
#include "say.h"

/* 2^128 - 1 in decimal. */
#define MAX_DEC "340282366920938463463374607431768211455"

static hj_amount amt(const char *s)
{
	hj_amount v;

	assert_int_equal(hj_amount_parse(s, strlen(s), &v), 0);
	return v;
}

/* meta.rules of a preset with these limits, and the rules themselves. */
static void rules_str(const char *preset, const char *min, const char *max,
                      uint32_t timeout, const char *max_exposure, char *buf,
                      size_t n, hj_rules *rules)
{
	hj_rules r;

	assert_int_equal(hj_rules_preset(preset, &r), 0);
	r.min_bet = amt(min);
	r.max_bet = amt(max);
	r.timeout_blocks = timeout;
	r.max_exposure = max_exposure ? amt(max_exposure) : 0;
	hj_rules_format(&r, buf, n);
	if (rules)
		*rules = r;
}

/* The writer's exact form, with and without a limit. */
static void test_rules_written(void **state)
{
	char s[200];

	(void)state;
	rules_str("bethash", "1", "1000", 100, NULL, s, sizeof s, NULL);
	assert_string_equal(
	    s, "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100");
	rules_str("bethash", "10000", "100000000", 12, MAX_DEC, s, sizeof s,
	          NULL);
	assert_string_equal(s, "preset=bethash min_bet=10000 max_bet=100000000 "
	                       "timeout_blocks=12 max_exposure=" MAX_DEC);
}

static void assert_same_keys(const hj_rules *got, const hj_rules *want)
{
	char a[HJ_RULE_VALUE_MAX], b[HJ_RULE_VALUE_MAX];

	assert_int_equal(got->ins_pays, want->ins_pays);
	for (size_t k = 0; hj_rule_keys[k]; k++) {
		hj_rules_get_key(got, hj_rule_keys[k], a);
		hj_rules_get_key(want, hj_rule_keys[k], b);
		assert_string_equal(a, b);
	}
}

/* Rule keys other than the preset's are written after the limits, in
 * hj_rule_keys order; the preset's own values never are. */
static void test_rules_keys_written_and_read(void **state)
{
	hj_rules r, got;
	char s[400], err[HJ_ERRLEN];

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = 1000;
	r.timeout_blocks = 100;
	assert_int_equal(hj_rules_set_key(&r, "twenty_one_plus_three",
	                                  "100,40,30,10,5", NULL, 0),
	                 0);
	assert_int_equal(hj_rules_set_key(&r, "double_on", "any", NULL, 0), 0);
	assert_int_equal(hj_rules_set_key(&r, "max_hands", "2", NULL, 0), 0);
	hj_rules_format(&r, s, sizeof s);
	assert_string_equal(s, "preset=bethash min_bet=1 max_bet=1000 "
	                       "timeout_blocks=100 double_on=any "
	                       "twenty_one_plus_three=100,40,30,10,5");
	assert_int_equal(hj_rules_parse(s, &got, err, sizeof err), 0);
	assert_same_keys(&got, &r);
	/* Every key away from the preset at once. */
	assert_int_equal(hj_rules_preset("annakai", &r), 0);
	r.min_bet = 1;
	r.max_bet = 1000;
	r.timeout_blocks = 12;
	r.max_exposure = 500000;
	for (size_t k = 0; hj_rule_keys[k]; k++) {
		static const char *const other[] = {"6:5",
		                                    "stand",
		                                    "none",
		                                    "10-11",
		                                    "yes",
		                                    "1",
		                                    "no",
		                                    "no",
		                                    "yes",
		                                    "late",
		                                    "yes",
		                                    "25,12,5",
		                                    "100,40,30,10,5",
		                                    "committed"};
		assert_int_equal(
		    hj_rules_set_key(&r, hj_rule_keys[k], other[k], NULL, 0),
		    0);
	}
	hj_rules_format(&r, s, sizeof s);
	assert_string_equal(
	    s, "preset=annakai min_bet=1 max_bet=1000 timeout_blocks=12 "
	       "max_exposure=500000 blackjack_pays=6:5 dealer_soft17=stand "
	       "peek=none double_on=10-11 double_after_split=yes max_hands=1 "
	       "split_by_value=no split_aces=no hit_split_aces=yes "
	       "surrender=late split_21_is_blackjack=yes "
	       "perfect_pairs=25,12,5 twenty_one_plus_three=100,40,30,10,5 "
	       "cards=committed");
	assert_int_equal(hj_rules_parse(s, &got, err, sizeof err), 0);
	assert_same_keys(&got, &r);
	assert_true(got.max_exposure == 500000);
}

/* parse(format(r)) == r for every preset, with and without a limit, at
 * the edges of each field. */
static void test_rules_round_trip(void **state)
{
	static const struct {
		const char *min, *max, *exposure;
		uint32_t timeout;
	} lim[] = {
	    {"1", "1", NULL, 1},
	    {"1000", "1000000000000000000", NULL, 100},
	    {"10000", "100000000", "2000000000", 12},
	    /* 2^120 and eight of them (annakai: four won split hands). */
	    {"1", "1329227995784915872903807060280344576",
	     "10633823966279326983230456482242756608", 4294967295u},
	};
	char s[200], again[200], err[HJ_ERRLEN];
	hj_rules want, got;

	(void)state;
	for (size_t p = 0; hj_preset_names[p]; p++) {
		for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
			rules_str(hj_preset_names[p], lim[i].min, lim[i].max,
			          lim[i].timeout, lim[i].exposure, s, sizeof s,
			          &want);
			memset(&got, 0xa5, sizeof got);
			if (hj_rules_parse(s, &got, err, sizeof err))
				fail_msg("%s: %s", s, err);
			assert_string_equal(got.preset, want.preset);
			assert_same_keys(&got, &want);
			assert_true(got.min_bet == want.min_bet);
			assert_true(got.max_bet == want.max_bet);
			assert_int_equal(got.timeout_blocks,
			                 want.timeout_blocks);
			assert_true(got.max_exposure == want.max_exposure);
			/* And format(parse(s)) == s. */
			hj_rules_format(&got, again, sizeof again);
			assert_string_equal(again, s);
		}
	}
}

/* Only the canonical form is read; the reason names the place. */
static void test_rules_refused(void **state)
{
	static const struct {
		const char *s, *why;
	} bad[] = {
	    {"", "expected \"preset=\" at offset 0"},
	    {"bethash min=1 max=5", "expected \"preset=\" at offset 0"},
	    {"preset=bethash min_bet=1 max_bet=5",
	     "expected a space at offset 34"},
	    {"preset=bethash  min_bet=1 max_bet=5 timeout_blocks=1",
	     "expected \"min_bet=\" at offset 15"},
	    {"preset=bethash min_bet=01 max_bet=5 timeout_blocks=1",
	     "min_bet: \"01\" is not a canonical decimal"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 ",
	     "unexpected text at offset 51"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "double_on=9-11",
	     "double_on=9-11: the preset's own value is never written"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "double_on=all",
	     "double_on=\"all\": expected 9-11, 10-11 or any"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "surrender=none double_on=any",
	     "unexpected text at offset 66"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "max_exposure=20 double_after_split=yes max_hands=4",
	     "max_exposure 20 is below 80, the worst-case return of one "
	     "max_bet Bet"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "max_exposure=0",
	     "max_exposure: 0 is never written (no limit leaves the key "
	     "out)"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "max_exposure=20 x=1",
	     "unexpected text at offset 67"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=4294967296",
	     "timeout_blocks: above 4294967295"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=0",
	     "timeout_blocks must be at least 1"},
	    {"preset=bethash min_bet=5 max_bet=1 timeout_blocks=1",
	     "max_bet is below min_bet"},
	    {"preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
	     "max_exposure=19",
	     "max_exposure 19 is below 20, the worst-case return of one "
	     "max_bet Bet"},
	    {"preset=Bethash min_bet=1 max_bet=5 timeout_blocks=1",
	     "preset \"Bethash\": not a preset this hashjack knows"},
	    {"preset= min_bet=1 max_bet=5 timeout_blocks=1",
	     "preset \"\": not a preset this hashjack knows"},
	};
	hj_rules r, before;
	char err[HJ_ERRLEN];

	(void)state;
	memset(&r, 0x5a, sizeof r);
	before = r;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		assert_int_equal(hj_rules_parse(bad[i].s, &r, err, sizeof err),
		                 -EINVAL);
		if (strcmp(err, bad[i].why) != 0)
			fail_msg("\"%s\": \"%s\", want \"%s\"", bad[i].s, err,
			         bad[i].why);
		assert_memory_equal(&r, &before, sizeof r);
	}
}

/* The limits every row of the next test is written with. */
#define BETHASH "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100"
#define ANNAKAI "preset=annakai min_bet=1 max_bet=1000 timeout_blocks=100"
#define CRYPTOGAMES                                                            \
	"preset=cryptogames min_bet=1 max_bet=1000 timeout_blocks=100"

/* A preset with no key changed is its limits alone; a key set to its
 * preset's value is not written, one set to another value is, after the
 * limits.  Every preset, every rule key (docs/CONFIG.md's table gives the
 * preset's values). */
static void test_rules_every_key_of_every_preset(void **state)
{
	static const struct {
		const char *preset, *key, *own, *other, *want;
	} row[] = {
	    {"bethash", "blackjack_pays", "6:5", "3:2",
	     BETHASH " blackjack_pays=3:2"},
	    {"bethash", "dealer_soft17", "hit", "stand",
	     BETHASH " dealer_soft17=stand"},
	    {"bethash", "peek", "ace", "ace_ten", BETHASH " peek=ace_ten"},
	    {"bethash", "double_on", "9-11", "10-11",
	     BETHASH " double_on=10-11"},
	    {"bethash", "double_after_split", "no", "yes",
	     BETHASH " double_after_split=yes"},
	    {"bethash", "max_hands", "2", "4", BETHASH " max_hands=4"},
	    {"bethash", "split_by_value", "yes", "no",
	     BETHASH " split_by_value=no"},
	    {"bethash", "split_aces", "no", "yes", BETHASH " split_aces=yes"},
	    {"bethash", "hit_split_aces", "no", "yes",
	     BETHASH " hit_split_aces=yes"},
	    {"bethash", "surrender", "late", "early",
	     BETHASH " surrender=early"},
	    {"bethash", "split_21_is_blackjack", "no", "yes",
	     BETHASH " split_21_is_blackjack=yes"},
	    {"bethash", "perfect_pairs", "off", "25,12,5",
	     BETHASH " perfect_pairs=25,12,5"},
	    {"bethash", "twenty_one_plus_three", "off", "100,40,30,10,5",
	     BETHASH " twenty_one_plus_three=100,40,30,10,5"},
	    {"bethash", "cards", "hash", "committed",
	     BETHASH " cards=committed"},
	    {"annakai", "blackjack_pays", "3:2", "6:5",
	     ANNAKAI " blackjack_pays=6:5"},
	    {"annakai", "dealer_soft17", "hit", "stand",
	     ANNAKAI " dealer_soft17=stand"},
	    {"annakai", "peek", "ace_ten", "ace", ANNAKAI " peek=ace"},
	    {"annakai", "double_on", "any", "9-11", ANNAKAI " double_on=9-11"},
	    {"annakai", "double_after_split", "no", "yes",
	     ANNAKAI " double_after_split=yes"},
	    {"annakai", "max_hands", "4", "3", ANNAKAI " max_hands=3"},
	    {"annakai", "split_by_value", "yes", "no",
	     ANNAKAI " split_by_value=no"},
	    {"annakai", "split_aces", "yes", "no", ANNAKAI " split_aces=no"},
	    {"annakai", "hit_split_aces", "no", "yes",
	     ANNAKAI " hit_split_aces=yes"},
	    {"annakai", "surrender", "none", "late", ANNAKAI " surrender=late"},
	    {"annakai", "split_21_is_blackjack", "no", "yes",
	     ANNAKAI " split_21_is_blackjack=yes"},
	    {"annakai", "perfect_pairs", "off", "0,0,1000",
	     ANNAKAI " perfect_pairs=0,0,1000"},
	    {"annakai", "twenty_one_plus_three", "off", "1000,0,0,0,1",
	     ANNAKAI " twenty_one_plus_three=1000,0,0,0,1"},
	    {"annakai", "cards", "hash", "committed",
	     ANNAKAI " cards=committed"},
	    {"cryptogames", "blackjack_pays", "6:5", "1:1",
	     CRYPTOGAMES " blackjack_pays=1:1"},
	    {"cryptogames", "dealer_soft17", "hit", "stand",
	     CRYPTOGAMES " dealer_soft17=stand"},
	    {"cryptogames", "peek", "none", "ace", CRYPTOGAMES " peek=ace"},
	    {"cryptogames", "double_on", "any", "10-11",
	     CRYPTOGAMES " double_on=10-11"},
	    {"cryptogames", "double_after_split", "yes", "no",
	     CRYPTOGAMES " double_after_split=no"},
	    {"cryptogames", "max_hands", "2", "1", CRYPTOGAMES " max_hands=1"},
	    {"cryptogames", "split_by_value", "yes", "no",
	     CRYPTOGAMES " split_by_value=no"},
	    {"cryptogames", "split_aces", "yes", "no",
	     CRYPTOGAMES " split_aces=no"},
	    {"cryptogames", "hit_split_aces", "yes", "no",
	     CRYPTOGAMES " hit_split_aces=no"},
	    {"cryptogames", "surrender", "early", "none",
	     CRYPTOGAMES " surrender=none"},
	    {"cryptogames", "split_21_is_blackjack", "yes", "no",
	     CRYPTOGAMES " split_21_is_blackjack=no"},
	    {"cryptogames", "perfect_pairs", "off", "30,10,5",
	     CRYPTOGAMES " perfect_pairs=30,10,5"},
	    {"cryptogames", "twenty_one_plus_three", "off", "90,40,30,10,5",
	     CRYPTOGAMES " twenty_one_plus_three=90,40,30,10,5"},
	    {"cryptogames", "cards", "hash", "committed",
	     CRYPTOGAMES " cards=committed"},
	};
	static const struct {
		const char *preset, *want;
	} alone[] = {
	    {"bethash", BETHASH},
	    {"annakai", ANNAKAI},
	    {"cryptogames", CRYPTOGAMES},
	};
	char s[HJ_RULES_STRLEN], again[HJ_RULES_STRLEN], err[HJ_ERRLEN];
	hj_rules r, got;
	size_t keys = 0;

	(void)state;
	for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
		rules_str(alone[i].preset, "1", "1000", 100, NULL, s, sizeof s,
		          NULL);
		assert_string_equal(s, alone[i].want);
	}
	for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
		assert_int_equal(hj_rules_preset(row[i].preset, &r), 0);
		r.min_bet = 1;
		r.max_bet = 1000;
		r.timeout_blocks = 100;
		assert_int_equal(
		    hj_rules_set_key(&r, row[i].key, row[i].own, NULL, 0), 0);
		hj_rules_format(&r, s, sizeof s);
		if (strcmp(s, alone[i / 14].want) != 0)
			fail_msg("%s %s=%s: \"%s\"", row[i].preset, row[i].key,
			         row[i].own, s);
		assert_int_equal(
		    hj_rules_set_key(&r, row[i].key, row[i].other, NULL, 0), 0);
		hj_rules_format(&r, s, sizeof s);
		if (strcmp(s, row[i].want) != 0)
			fail_msg("\"%s\", want \"%s\"", s, row[i].want);
		if (hj_rules_parse(s, &got, err, sizeof err))
			fail_msg("%s: %s", s, err);
		assert_same_keys(&got, &r);
		hj_rules_format(&got, again, sizeof again);
		assert_string_equal(again, s);
		keys += strcmp(row[i].key, hj_rule_keys[i % 14]) == 0;
	}
	/* Each preset's rows are the rule keys, all of them, in order. */
	assert_null(hj_rule_keys[14]);
	assert_int_equal(keys, 3 * 14);
	assert_null(hj_preset_names[3]);
}

/* The longest line there is (bethash's other values are the longest,
 * every amount 39 digits, the largest timeout) fits HJ_RULES_STRLEN; a
 * buffer too short for it gets the line's beginning, never more. */
static void test_rules_longest_and_cut(void **state)
{
	static const char want[] =
	    "preset=bethash min_bet=" MAX_DEC " max_bet=" MAX_DEC
	    " timeout_blocks=4294967295 max_exposure=" MAX_DEC
	    " blackjack_pays=1000:1000 dealer_soft17=stand peek=ace_ten "
	    "double_on=10-11 double_after_split=yes max_hands=4 "
	    "split_by_value=no split_aces=yes hit_split_aces=yes "
	    "surrender=early split_21_is_blackjack=yes "
	    "perfect_pairs=1000,1000,1000 "
	    "twenty_one_plus_three=1000,1000,1000,1000,1000";
	static const char *const set[][2] = {
	    {"blackjack_pays", "1000:1000"},
	    {"dealer_soft17", "stand"},
	    {"peek", "ace_ten"},
	    {"double_on", "10-11"},
	    {"double_after_split", "yes"},
	    {"max_hands", "4"},
	    {"split_by_value", "no"},
	    {"split_aces", "yes"},
	    {"hit_split_aces", "yes"},
	    {"surrender", "early"},
	    {"split_21_is_blackjack", "yes"},
	    {"perfect_pairs", "1000,1000,1000"},
	    {"twenty_one_plus_three", "1000,1000,1000,1000,1000"},
	};
	char s[HJ_RULES_STRLEN];
	hj_rules r;

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
		assert_int_equal(
		    hj_rules_set_key(&r, set[i][0], set[i][1], NULL, 0), 0);
	r.min_bet = r.max_bet = r.max_exposure = HJ_AMOUNT_MAX;
	r.timeout_blocks = UINT32_MAX;
	hj_rules_format(&r, s, sizeof s);
	assert_string_equal(s, want);
	assert_int_equal(strlen(want), 468);
	assert_true(sizeof want <= HJ_RULES_STRLEN);
	/* Exactly n bytes each, so that ASan sees a write past the end. */
	for (size_t n = 1; n <= sizeof want; n++) {
		char *small = malloc(n);

		assert_non_null(small);
		hj_rules_format(&r, small, n);
		assert_int_equal(strlen(small), n - 1);
		assert_memory_equal(small, want, n - 1);
		free(small);
	}
}

/* "preset=NAME min_bet=1 max_bet=5 timeout_blocks=1" refused for its
 * NAME, or bethash's line with " double_on=VALUE" refused for its VALUE:
 * the message the parser gives. */
static void refusal(const char *name, const char *value, char *err,
                    size_t errlen)
{
	char s[256];
	hj_rules r;

	if (value == NULL)
		snprintf(s, sizeof s,
		         "preset=%s min_bet=1 max_bet=5 timeout_blocks=1",
		         name);
	else
		snprintf(s, sizeof s,
		         "preset=bethash min_bet=1 max_bet=5 timeout_blocks=1 "
		         "double_on=%s",
		         value);
	err[0] = '\0';
	assert_int_equal(hj_rules_parse(s, &r, err, errlen), -EINVAL);
}

/* times copies of s, into buf. */
static const char *repeat(const char *s, int times, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < times && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s", s);
	assert_true(used < n);
	return buf;
}

/* What the parser quotes, it quotes as hj_quote does: escapes, and the
 * cut after 100 bytes of quoted text; a preset's name is read up to 31
 * bytes, a value up to 63. */
static void test_rules_refusals_quote_as_hj_quote(void **state)
{
	static const struct {
		const char *name, *value, *want;
	} lit[] = {
	    {"a\"b\\c", NULL,
	     "preset \"a\\\"b\\\\c\": not a preset this hashjack knows"},
	    {"\x01\x7f\xff", NULL,
	     "preset \"\\x01\\x7f\\xff\": not a preset this hashjack knows"},
	    {NULL, "\t\"",
	     "double_on=\"\\x09\\\"\": expected 9-11, 10-11 or any"},
	};
	char err[HJ_ERRLEN], want[400], rep[200], shown[100], in[64], cut[32];

	(void)state;
	for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++) {
		refusal(lit[i].name, lit[i].value, err, sizeof err);
		assert_string_equal(err, lit[i].want);
	}
	/* 40 bytes 0x7f: 31 read, 23 of them shown, then "...". */
	memset(in, 0x7f, 40);
	in[40] = '\0';
	refusal(in, NULL, err, sizeof err);
	snprintf(want, sizeof want,
	         "preset \"%s...\": not a preset this hashjack knows",
	         repeat("\\x7f", 23, rep, sizeof rep));
	assert_string_equal(err, want);
	/* 63 quotes: 46 shown. */
	memset(in, '"', 63);
	in[63] = '\0';
	refusal(NULL, in, err, sizeof err);
	snprintf(want, sizeof want,
	         "double_on=\"%s...\": expected 9-11, 10-11 or any",
	         repeat("\\\"", 46, rep, sizeof rep));
	assert_string_equal(err, want);
	/* Every byte but NUL and the space that ends a field, alone and
	 * repeated past what is read. */
	for (int c = 1; c < 256; c++) {
		if (c == ' ')
			continue;
		for (size_t len = 1; len <= 63; len += 62) {
			memset(in, c, len);
			in[len] = '\0';
			memcpy(cut, in, len < 31 ? len : 31);
			cut[len < 31 ? len : 31] = '\0';
			refusal(in, NULL, err, sizeof err);
			hj_quote(cut, shown, sizeof shown);
			snprintf(want, sizeof want,
			         "preset %s: not a preset this hashjack knows",
			         shown);
			assert_string_equal(err, want);
			refusal(NULL, in, err, sizeof err);
			hj_quote(in, shown, sizeof shown);
			snprintf(want, sizeof want,
			         "double_on=%s: expected 9-11, 10-11 or any",
			         shown);
			assert_string_equal(err, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules_written),
	    cmocka_unit_test(test_rules_round_trip),
	    cmocka_unit_test(test_rules_keys_written_and_read),
	    cmocka_unit_test(test_rules_every_key_of_every_preset),
	    cmocka_unit_test(test_rules_longest_and_cut),
	    cmocka_unit_test(test_rules_refused),
	    cmocka_unit_test(test_rules_refusals_quote_as_hj_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
