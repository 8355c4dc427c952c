/* The ground floor (game/base/): hj_buf, hj_say, hj_map, exact values. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "map.h"
#include "say.h"

static void test_buf_grows_and_ends_with_nul(void **state)
{
	hj_buf b;
	char big[1000];

	(void)state;
	hj_buf_init(&b, HJ_BUF_MAX);
	assert_null(b.p);
	assert_int_equal(hj_buf_str(&b, "abc"), 0);
	assert_int_equal(b.len, 3);
	assert_string_equal(b.p, "abc");
	assert_int_equal(b.cap, 256); /* the first allocation */
	memset(big, 'x', sizeof big);
	assert_int_equal(hj_buf_put(&b, big, sizeof big), 0);
	assert_int_equal(b.len, 1003);
	assert_int_equal(b.cap, 1024); /* 256 doubled twice */
	assert_int_equal(b.p[1003], '\0');
	assert_int_equal(hj_buf_printf(&b, "%d-%s", 42, "z"), 0);
	assert_int_equal(b.len, 1007);
	assert_memory_equal(b.p + 1003, "42-z", 5);
	assert_int_equal(hj_buf_put(&b, "", 0), 0);
	assert_int_equal(b.len, 1007);
	hj_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.p, "");
	assert_int_equal(b.cap, 1024); /* kept */
	hj_buf_free(&b);
	assert_null(b.p);
	hj_buf_free(NULL);
}

static void test_buf_cap_is_sticky(void **state)
{
	hj_buf b;

	(void)state;
	hj_buf_init(&b, 10);
	assert_int_equal(hj_buf_str(&b, "0123456789"), 0); /* exactly max */
	assert_int_equal(b.len, 10);
	assert_int_equal(b.cap, 11); /* max and its NUL, not 256 */
	assert_string_equal(b.p, "0123456789");
	assert_int_equal(hj_buf_put(&b, "x", 1), -EMSGSIZE);
	assert_int_equal(b.err, -EMSGSIZE);
	/* Sticky: even what would fit fails now, and nothing is written. */
	assert_int_equal(hj_buf_put(&b, "", 0), -EMSGSIZE);
	assert_int_equal(hj_buf_printf(&b, "%s", ""), -EMSGSIZE);
	assert_int_equal(b.len, 10);
	assert_null(hj_buf_take(&b, NULL));
	assert_null(b.p);
	/* A reset clears the error. */
	hj_buf_init(&b, 4);
	assert_int_equal(hj_buf_printf(&b, "%s", "hello"), -EMSGSIZE);
	assert_int_equal(b.len, 0);
	hj_buf_reset(&b);
	assert_int_equal(hj_buf_printf(&b, "%s", "hell"), 0);
	hj_buf_free(&b);
}

static void test_buf_take(void **state)
{
	hj_buf b;
	size_t len = 99;
	char *p;

	(void)state;
	hj_buf_init(&b, 100);
	p = hj_buf_take(&b, &len); /* nothing written: "" */
	assert_non_null(p);
	assert_string_equal(p, "");
	assert_int_equal(len, 0);
	free(p);
	hj_buf_str(&b, "text");
	p = hj_buf_take(&b, &len);
	assert_string_equal(p, "text");
	assert_int_equal(len, 4);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.max, 100);
	free(p);
}

static void test_say(void **state)
{
	char err[8];

	(void)state;
	hj_say(err, sizeof err, "%s %d", "block", 12345);
	assert_string_equal(err, "block 1"); /* cut to fit, terminated */
	hj_say(NULL, 0, "nothing %d", 1);
	memset(err, 'x', sizeof err);
	hj_say(err, 0, "nothing");
	assert_int_equal(err[0], 'x');
}

/* Entries of a test: keys of 1 to 32 bytes, some sharing a hash slot. */
struct ent {
	uint8_t k[32];
	size_t len;
};

static const uint8_t *key_of(const void *arg, size_t i, size_t *len)
{
	const struct ent *e = arg;
	*len = e[i].len;
	return e[i].k;
}

static void test_map_basics(void **state)
{
	struct ent e[3] = {{{1, 2, 3}, 3}, {{1, 2}, 2}, {{1, 2, 3, 0}, 4}};
	hj_map m;
	size_t i = 77;

	(void)state;
	hj_map_init(&m, key_of, e);
	assert_int_equal(hj_map_get(&m, e[0].k, 3, &i), -ENOENT);
	assert_int_equal(i, 77);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(hj_map_put(&m, e[k].k, e[k].len, k), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(m.cap, 64);
	/* Prefixes of each other are different keys. */
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(hj_map_get(&m, e[k].k, e[k].len, &i), 0);
		assert_int_equal(i, k);
	}
	/* A put of a present key replaces its index, n unchanged. */
	e[2] = e[0];
	assert_int_equal(hj_map_put(&m, e[0].k, 3, 2), 0);
	assert_int_equal(m.n, 3 - 0);
	assert_int_equal(hj_map_get(&m, e[0].k, 3, &i), 0);
	assert_int_equal(i, 2);
	assert_int_equal(hj_map_remove(&m, e[1].k, 2), 0);
	assert_int_equal(hj_map_remove(&m, e[1].k, 2), -ENOENT);
	assert_int_equal(hj_map_get(&m, e[1].k, 2, &i), -ENOENT);
	hj_map_free(&m);
	assert_int_equal(hj_map_get(&m, e[0].k, 3, &i), -ENOENT);
	hj_map_free(NULL);
}

/*
 * Random puts and removes against a plain array model, with few distinct
 * keys (so runs of collisions and removals inside them are common) and
 * enough of them to grow the map several times: every key's presence and
 * index must match the model after every step.
 */
static void test_map_against_model(void **state)
{
	enum { KEYS = 3000, STEPS = 60000 };
	struct ent *e = calloc(KEYS, sizeof *e);
	long *model = malloc(KEYS * sizeof *model); /* index, or -1 */
	uint64_t x = 0x9e3779b97f4a7c15u;
	hj_map m;
	size_t n = 0;

	(void)state;
	assert_non_null(e);
	assert_non_null(model);
	/* Entry i's key (distinct: its first two bytes are i) is at index
	 * i; lengths 2 to 32. */
	for (size_t i = 0; i < KEYS; i++) {
		e[i].len = 2 + i % 31;
		e[i].k[0] = (uint8_t)i;
		e[i].k[1] = (uint8_t)(i >> 8);
		for (size_t j = 2; j < e[i].len; j++)
			e[i].k[j] = (uint8_t)(i * j);
		model[i] = -1;
	}
	hj_map_init(&m, key_of, e);
	for (int s = 0; s < STEPS; s++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t k = (size_t)(x % KEYS);
		if ((x >> 32) % 3) {
			assert_int_equal(hj_map_put(&m, e[k].k, e[k].len, k),
			                 0);
			n += model[k] < 0;
			model[k] = (long)k;
		} else {
			assert_int_equal(hj_map_remove(&m, e[k].k, e[k].len),
			                 model[k] < 0 ? -ENOENT : 0);
			n -= model[k] >= 0;
			model[k] = -1;
		}
		assert_int_equal(m.n, n);
		if (s % 997 == 0 || s == STEPS - 1)
			for (size_t i = 0; i < KEYS; i++) {
				size_t got;
				int rc = hj_map_get(&m, e[i].k, e[i].len, &got);
				assert_int_equal(rc,
				                 model[i] < 0 ? -ENOENT : 0);
				if (rc == 0)
					assert_int_equal(got, i);
			}
	}
	assert_true(m.cap >= 2 * m.n);
	hj_map_free(&m);
	free(e);
	free(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buf_grows_and_ends_with_nul),
	    cmocka_unit_test(test_buf_cap_is_sticky),
	    cmocka_unit_test(test_buf_take),
	    cmocka_unit_test(test_say),
	    cmocka_unit_test(test_map_basics),
	    cmocka_unit_test(test_map_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
