/*
 * The rules as text (game/rules_text.c): the line the daemon's database
 * keeps in meta.rules, written by hj_rules_format and read by
 * hj_rules_parse, with exact values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

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
	char s[400], err[200];

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
		static const char *const other[] = {
		    "6:5",           "stand", "none", "10-11",
		    "yes",           "1",     "no",   "no",
		    "yes",           "late",  "yes",  "25,12,5",
		    "100,40,30,10,5"};
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
	       "perfect_pairs=25,12,5 twenty_one_plus_three=100,40,30,10,5");
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
	char s[200], again[200], err[200];
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
	char err[200];

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules_written),
	    cmocka_unit_test(test_rules_round_trip),
	    cmocka_unit_test(test_rules_keys_written_and_read),
	    cmocka_unit_test(test_rules_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
