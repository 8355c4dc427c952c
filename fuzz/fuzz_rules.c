/*
 * The rules as text, the string the store keeps in meta.rules
 * (game/rules_text.c): its parser and its writer; and one rule key's text
 * (game/rules.c).  The input as the string: what parses passes
 * hj_rules_check and writes back to the same string; a refusal names a
 * reason and leaves *out alone.  The input's bytes as a preset, rule keys
 * and limits: their string parses exactly when the rules pass
 * hj_rules_check, and then to the same rules; a short buffer gets a prefix
 * of the string, never more than it holds.  The input as a key and a
 * value: accepted values read back as given.
 */
#include <errno.h>

#include "fuzz.h"

#include "rules.h"
#include "say.h"

#define RULES_MAX HJ_RULES_STRLEN

static int same_limits(const hj_rules *a, const hj_rules *b)
{
	char x[HJ_RULE_VALUE_MAX], y[HJ_RULE_VALUE_MAX];

	for (size_t i = 0; hj_rule_keys[i]; i++) {
		hj_rules_get_key(a, hj_rule_keys[i], x);
		hj_rules_get_key(b, hj_rule_keys[i], y);
		if (strcmp(x, y) != 0)
			return 0;
	}
	return a->min_bet == b->min_bet && a->max_bet == b->max_bet &&
	       a->timeout_blocks == b->timeout_blocks &&
	       a->max_exposure == b->max_exposure &&
	       strcmp(a->preset, b->preset) == 0;
}

static void check_text(const uint8_t *data, size_t size)
{
	char s[RULES_MAX + 1], again[RULES_MAX], err[HJ_ERRLEN];
	hj_rules r, r2, untouched;
	size_t len;
	struct fuzz_in in = {data, size};
	int rc;

	/* The parser reads a C string: up to the first NUL. */
	fuzz_take(&in, s, RULES_MAX, &len);
	memset(&r, 0xa5, sizeof r);
	untouched = r;
	err[0] = '\0';
	rc = hj_rules_parse(s, &r, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		FUZZ_CHECK(memcmp(&r, &untouched, sizeof r) == 0);
		return;
	}
	FUZZ_CHECK(hj_rules_check(&r, err, sizeof err) == 0);
	hj_rules_format(&r, again, sizeof again);
	FUZZ_CHECK(strcmp(again, s) == 0);
	FUZZ_CHECK(hj_rules_parse(again, &r2, NULL, 0) == 0);
	FUZZ_CHECK(same_limits(&r, &r2));
}

static hj_amount take_amount(struct fuzz_in *in)
{
	/* One byte picks the width, so that small values come often. */
	unsigned bits = fuzz_u8(in) % 129;
	hj_amount v = (hj_amount)fuzz_u64(in) << 64 | fuzz_u64(in);

	return bits == 128 ? v : v & (((hj_amount)1 << bits) - 1);
}

static void check_limits(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char s[RULES_MAX], err[HJ_ERRLEN];
	hj_rules r, got;
	size_t n, cut;
	char *small;
	int ok;

	FUZZ_CHECK(hj_rules_preset(hj_preset_names[fuzz_u8(&in) % 3], &r) == 0);
	/* Each key: the preset's value, or one of a few others. */
	for (size_t i = 0; hj_rule_keys[i]; i++) {
		static const char *const vals[] = {
		    "3:2",   "1000:1",        "stand", "none",    "ace_ten",
		    "10-11", "any",           "yes",   "no",      "1",
		    "4",     "early",         "late",  "25,12,5", "0,0,1000",
		    "off",   "100,40,30,10,5"};
		unsigned k = fuzz_u8(&in);
		if (k < sizeof vals / sizeof vals[0])
			(void)hj_rules_set_key(&r, hj_rule_keys[i], vals[k],
			                       NULL, 0);
	}
	r.min_bet = take_amount(&in);
	r.max_bet = take_amount(&in);
	r.max_exposure = take_amount(&in);
	r.timeout_blocks = (uint32_t)fuzz_u64(&in);
	ok = hj_rules_check(&r, NULL, 0) == 0;
	hj_rules_format(&r, s, sizeof s);
	n = strlen(s);
	FUZZ_CHECK(n + 1 < sizeof s);
	err[0] = '\0';
	FUZZ_CHECK((hj_rules_parse(s, &got, err, sizeof err) == 0) == ok);
	FUZZ_CHECK(ok ? same_limits(&r, &got) : err[0] != '\0');

	/* Into a buffer of exactly cut bytes (ASan watches its end). */
	cut = 1 + fuzz_u8(&in) % (n + 1);
	small = malloc(cut);
	FUZZ_CHECK(small != NULL);
	hj_rules_format(&r, small, cut);
	FUZZ_CHECK(strlen(small) == cut - 1 && memcmp(small, s, cut - 1) == 0);
	free(small);
}

static void check_key(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char value[HJ_RULE_VALUE_MAX + 8], back[HJ_RULE_VALUE_MAX];
	char err[HJ_ERRLEN];
	hj_rules r, before;
	size_t len;
	const char *key = hj_rule_keys[fuzz_u8(&in) % 13];
	int rc;

	FUZZ_CHECK(hj_rules_preset("bethash", &r) == 0);
	before = r;
	fuzz_take(&in, value, sizeof value - 1, &len);
	err[0] = '\0';
	rc = hj_rules_set_key(&r, key, value, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		FUZZ_CHECK(memcmp(&r, &before, sizeof r) == 0);
		return;
	}
	FUZZ_CHECK(hj_rules_get_key(&r, key, back) > 0);
	FUZZ_CHECK(strcmp(back, value) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_text(data, size);
	check_limits(data, size);
	check_key(data, size);
	return 0;
}
