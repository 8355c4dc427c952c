/*
 * The rule string the store keeps in meta.rules (daemon/store.h): its
 * parser and its writer.  The input as the string: what parses passes
 * hj_rules_check and writes back to the same string; a refusal names a
 * reason and leaves *out alone.  The input's bytes as limits of the
 * bethash preset: their string parses exactly when the rules pass
 * hj_rules_check, and then to the same limits; a short buffer gets a
 * prefix of the string, never more than it holds.
 */
#include <errno.h>

#include "fuzz.h"

#include "store.h"

/* Longer than any string the writer makes: three amounts of 39 digits,
 * a u32 and the keys come to about 200 bytes. */
#define RULES_MAX 320

static int same_limits(const hj_rules *a, const hj_rules *b)
{
	return a->min_bet == b->min_bet && a->max_bet == b->max_bet &&
	       a->timeout_blocks == b->timeout_blocks &&
	       a->max_exposure == b->max_exposure &&
	       strcmp(a->preset, b->preset) == 0;
}

static void check_text(const uint8_t *data, size_t size)
{
	char s[RULES_MAX + 1], again[RULES_MAX], err[200];
	hj_rules r, r2, untouched;
	size_t len;
	struct fuzz_in in = {data, size};
	int rc;

	/* The parser reads a C string: up to the first NUL. */
	fuzz_take(&in, s, RULES_MAX, &len);
	memset(&r, 0xa5, sizeof r);
	untouched = r;
	err[0] = '\0';
	rc = hj_store_rules_parse(s, &r, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		FUZZ_CHECK(memcmp(&r, &untouched, sizeof r) == 0);
		return;
	}
	FUZZ_CHECK(hj_rules_check(&r, err, sizeof err) == 0);
	hj_store_rules_str(&r, again, sizeof again);
	FUZZ_CHECK(strcmp(again, s) == 0);
	FUZZ_CHECK(hj_store_rules_parse(again, &r2, NULL, 0) == 0);
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
	char s[RULES_MAX], err[200];
	hj_rules r, got;
	size_t n, cut;
	char *small;
	int ok;

	FUZZ_CHECK(hj_rules_preset("bethash", &r) == 0);
	r.min_bet = take_amount(&in);
	r.max_bet = take_amount(&in);
	r.max_exposure = take_amount(&in);
	r.timeout_blocks = (uint32_t)fuzz_u64(&in);
	ok = hj_rules_check(&r, NULL, 0) == 0;
	hj_store_rules_str(&r, s, sizeof s);
	n = strlen(s);
	FUZZ_CHECK(n + 1 < sizeof s);
	err[0] = '\0';
	FUZZ_CHECK((hj_store_rules_parse(s, &got, err, sizeof err) == 0) == ok);
	FUZZ_CHECK(ok ? same_limits(&r, &got) : err[0] != '\0');

	/* Into a buffer of exactly cut bytes (ASan watches its end). */
	cut = 1 + fuzz_u8(&in) % (n + 1);
	small = malloc(cut);
	FUZZ_CHECK(small != NULL);
	hj_store_rules_str(&r, small, cut);
	FUZZ_CHECK(strlen(small) == cut - 1 && memcmp(small, s, cut - 1) == 0);
	free(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_text(data, size);
	check_limits(data, size);
	return 0;
}
