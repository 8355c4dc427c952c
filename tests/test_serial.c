/* The round's serialised form: exact round trips, strict decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_util.h"

/* A round mid-play after a split, with a double-sized stake elsewhere. */
static hj_round split_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(7, 1000));
	FX0(&f, CARD(8, HJ_HEARTS));
	FX0(&f, CARD(6, HJ_SPADES));
	FX0(&f, CARD(8, HJ_DIAMONDS));
	FX(&f, R(2), tx_act(7, HJ_SPLIT, 1000));
	FX0(&f, R(3)); /* hand 0: 8 3 */
	FX0(&f, R(4)); /* hand 1: 8 4 */
	hj_round r = *fx_round(&f, 7);
	fx_free(&f);
	return r;
}

static hj_round insured_round(void)
{
	hj_rules ru = rules_bethash();
	fx f;
	fx_init(&f, &ru);
	FX(&f, R(2), tx_bet(9, 1001));
	FX0(&f, R(9));
	FX0(&f, CARD(1, HJ_SPADES));
	FX0(&f, R(7));
	FX(&f, R(5), tx_peek(9, 1, 500));
	hj_round r = *fx_round(&f, 9);
	fx_free(&f);
	return r;
}

static void roundtrip(const hj_round *r)
{
	uint8_t a[HJ_ROUND_ENCODED_MAX], b[HJ_ROUND_ENCODED_MAX];
	hj_round back;
	char err[128];
	size_t n = hj_round_encode(r, a);

	assert_int_equal(hj_round_decode(a, n, &back, err, sizeof err), 0);
	assert_int_equal(hj_round_encode(&back, b), n);
	assert_memory_equal(a, b, n);
	assert_true(hj_id_eq(&back.id, &r->id));
	assert_true(hj_id_eq(&back.player, &r->player));
	assert_true(back.bet == r->bet && back.insurance == r->insurance);
	assert_int_equal(back.nhands, r->nhands);
	assert_int_equal(back.window_open, r->window_open);
	assert_int_equal(back.npending, r->npending);
	for (int i = 0; i < r->nhands; i++) {
		assert_int_equal(back.hands[i].n, r->hands[i].n);
		assert_memory_equal(back.hands[i].cards, r->hands[i].cards,
		                    r->hands[i].n);
		assert_true(back.hands[i].stake == r->hands[i].stake);
		assert_int_equal(back.hands[i].flags, r->hands[i].flags);
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	hj_round a = split_round(), b = insured_round();
	assert_int_equal(a.nhands, 2);
	assert_int_equal(b.insured, 1);
	roundtrip(&a);
	roundtrip(&b);
}

static void expect_reject(const uint8_t *buf, size_t n, const char *needle)
{
	hj_round r;
	char err[128] = "";
	assert_int_equal(hj_round_decode(buf, n, &r, err, sizeof err), -EINVAL);
	if (needle && !strstr(err, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void test_every_truncation_rejected(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	for (size_t len = 0; len < n; len++)
		expect_reject(buf, len, "truncated");
}

static void test_trailing_and_version(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX + 1];
	size_t n = hj_round_encode(&r, buf);
	buf[n] = 0;
	expect_reject(buf, n + 1, "trailing");
	buf[0] = 2;
	expect_reject(buf, n, "version");
	buf[0] = 0;
	expect_reject(buf, n, "version");
}

/* Offsets in the v1 layout of split_round(): id and player lengths first. */
static size_t off_after_ids(const hj_round *r)
{
	return 1 + 1 + r->id.len + 1 + r->player.len;
}

static void test_out_of_range_fields(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX], bad[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	size_t flags = off_after_ids(&r) + 8 + 4 + 16 + 16;

	memcpy(bad, buf, n);
	bad[1] = 33; /* id length */
	expect_reject(bad, n, "id length");

	memcpy(bad, buf, n);
	bad[flags] = 2; /* insured */
	expect_reject(bad, n, "flag");

	memcpy(bad, buf, n);
	bad[flags + 1] = 7; /* phase */
	expect_reject(bad, n, "phase");

	memcpy(bad, buf, n);
	bad[flags + 3] = 0; /* hands */
	expect_reject(bad, n, "hands");

	memcpy(bad, buf, n);
	bad[flags + 3] = 5;
	expect_reject(bad, n, "hands");

	/* The dealer's card: code 0 and code 56 are not cards. */
	size_t dealer = flags + 5 + r.npending + 8 + 4 + 4;
	assert_int_equal(buf[dealer], r.dealer_n);
	memcpy(bad, buf, n);
	bad[dealer + 1] = 0;
	expect_reject(bad, n, "dealer card");
	bad[dealer + 1] = 56;
	expect_reject(bad, n, "dealer card");
}

static void test_garbage_never_crashes(void **state)
{
	(void)state;
	hj_round r = split_round();
	uint8_t buf[HJ_ROUND_ENCODED_MAX], bad[HJ_ROUND_ENCODED_MAX];
	size_t n = hj_round_encode(&r, buf);
	uint64_t x = 88172645463325252ull;
	unsigned accepted = 0;

	/* Every single-byte corruption: rejected, or a valid round that
	 * encodes back to exactly the corrupted bytes. */
	for (size_t i = 0; i < n; i++) {
		for (unsigned v = 0; v < 256; v += 17) {
			hj_round back;
			uint8_t again[HJ_ROUND_ENCODED_MAX];
			memcpy(bad, buf, n);
			bad[i] ^= (uint8_t)(v | 1);
			if (hj_round_decode(bad, n, &back, NULL, 0) == 0) {
				accepted++;
				assert_int_equal(hj_round_encode(&back, again),
				                 n);
				assert_memory_equal(again, bad, n);
			}
		}
	}
	assert_true(accepted > 0); /* amounts and heights may be anything */
	for (int k = 0; k < 20000; k++) {
		size_t len = (size_t)(x % HJ_ROUND_ENCODED_MAX);
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad[i] = (uint8_t)x;
		}
		hj_round back;
		(void)hj_round_decode(bad, len, &back, NULL, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_every_truncation_rejected),
	    cmocka_unit_test(test_trailing_and_version),
	    cmocka_unit_test(test_out_of_range_fields),
	    cmocka_unit_test(test_garbage_never_crashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
