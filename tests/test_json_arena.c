/*
 * Parsed answers in arenas (chain/json_arena.h): an arena lives exactly as
 * long as the last value allocated in it, whichever thread frees it; values
 * outside an arena, and json_dumps' strings, are malloc's as before; an
 * arena that cannot be had, or a value too large for a chunk, falls back to
 * malloc and nothing else changes.
 *
 * The counts come from hj_jarena_stat, which every test leaves as it found
 * it (no arena live, no chunk held).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "json_arena.h"

#define DOC                                                                    \
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"hash\":\"0xab\","         \
	"\"transactions\":[{\"to\":\"0x01\",\"value\":\"0x10\"},"              \
	"{\"to\":\"0x02\",\"value\":\"0x20\"}]}}"

static json_t *parse_in_arena(const char *text, hj_jarena **used)
{
	hj_jarena *a = hj_jarena_begin();
	json_t *j = json_loads(text, 0, NULL);

	hj_jarena_end(a);
	if (used != NULL)
		*used = a;
	return j;
}

static hj_jarena_stats stat_now(void)
{
	hj_jarena_stats s;

	hj_jarena_stat(&s);
	return s;
}

static void assert_none_held(void)
{
	hj_jarena_stats s = stat_now();

	assert_int_equal(s.live, 0);
	assert_int_equal(s.chunks, 0);
}

static void *decref_on_thread(void *arg)
{
	json_decref(arg);
	return NULL;
}

/* Freed on another thread (as a pooled parse is read on the loop): the
 * arena goes back with its last value, not before. */
static void test_lives_with_last_value(void **state)
{
	(void)state;
	hj_jarena *a;
	json_t *doc = parse_in_arena(DOC, &a), *txs;
	pthread_t t;

	assert_non_null(a);
	assert_non_null(doc);
	assert_int_equal(stat_now().live, 1);
	txs = json_incref(
	    json_object_get(json_object_get(doc, "result"), "transactions"));
	assert_int_equal(pthread_create(&t, NULL, decref_on_thread, doc), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The array is still there, and whole. */
	assert_int_equal(stat_now().live, 1);
	assert_int_equal(json_array_size(txs), 2);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(txs, 1), "value")),
	    "0x20");
	assert_int_equal(pthread_create(&t, NULL, decref_on_thread, txs), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_none_held();
	assert_true(stat_now().idle >= 1);
}

/* Values from outside an arena mixed into one, changed after: each freed
 * by the allocator it came from. */
static void test_mixed_values(void **state)
{
	(void)state;
	json_t *doc = parse_in_arena(DOC, NULL), *res;
	char *text;

	res = json_object_get(doc, "result");
	assert_int_equal(json_object_set_new(res, "hash", json_string("0xcd")),
	                 0);
	assert_int_equal(json_object_set_new(res, "extra", json_integer(5)), 0);
	assert_int_equal(json_object_del(res, "transactions"), 0);
	/* json_dumps' string is malloc's, freed with free(). */
	text = json_dumps(res, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(text, "{\"extra\":5,\"hash\":\"0xcd\"}");
	free(text);
	json_decref(doc);
	assert_none_held();
}

/* A text that is not JSON: the arena's values are all freed within the
 * parse, so it goes back at its end. */
static void test_parse_error(void **state)
{
	(void)state;
	hj_jarena *a;

	assert_null(parse_in_arena("{\"a\":[1,2,{\"b\":\"c\"", &a));
	assert_non_null(a);
	assert_none_held();
}

/* A string larger than a chunk is malloc's; the arena holds the rest. */
static void test_value_larger_than_chunk(void **state)
{
	(void)state;
	size_t n = (size_t)3 << 20;
	char *text = malloc(n + 16);
	json_t *j;

	assert_non_null(text);
	text[0] = '[';
	text[1] = '"';
	memset(text + 2, 'x', n);
	memcpy(text + 2 + n, "\",1]", 5);
	j = parse_in_arena(text, NULL);
	free(text);
	assert_non_null(j);
	assert_int_equal(json_string_length(json_array_get(j, 0)), n);
	assert_int_equal(stat_now().live, 1);
	json_decref(j);
	assert_none_held();
}

/* Arenas do not nest: the inner parse is malloc's, and correct. */
static void test_no_nesting(void **state)
{
	(void)state;
	hj_jarena *outer = hj_jarena_begin(), *inner;
	json_t *a = json_loads(DOC, 0, NULL), *b;

	assert_non_null(outer);
	inner = hj_jarena_begin();
	assert_null(inner);
	b = json_loads("[1,2,3]", 0, NULL);
	hj_jarena_end(inner);
	hj_jarena_end(outer);
	assert_non_null(b);
	json_decref(b);
	assert_int_equal(stat_now().live, 1);
	json_decref(a);
	assert_none_held();
}

/* Every chunk taken by arenas still alive: the next parse is malloc's,
 * and correct.  Given back, the chunks past those kept idle go to the
 * kernel, and arenas can be had again. */
static void test_all_chunks_taken(void **state)
{
	(void)state;
	enum { MAX = 2048 };
	json_t **held = calloc(MAX, sizeof *held);
	size_t n = 0, idle;
	hj_jarena *a = NULL;

	assert_non_null(held);
	for (;;) {
		assert_true(n < MAX);
		held[n] = parse_in_arena(DOC, &a);
		assert_non_null(held[n]);
		n++;
		if (a == NULL)
			break;
	}
	/* The last parse had no arena; every chunk is held by the others. */
	assert_int_equal(stat_now().live, n - 1);
	assert_int_equal(stat_now().chunks, n - 1);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_object_get(held[n - 1], "result"), "hash")),
	    "0xab");
	for (size_t i = 0; i < n; i++)
		json_decref(held[i]);
	free(held);
	assert_none_held();
	idle = stat_now().idle;
	assert_true(idle >= 1 && idle < n - 1);
	/* Again, from the chunks kept and those given to the kernel. */
	for (int k = 0; k < 3; k++) {
		json_t *j = parse_in_arena(DOC, &a);

		assert_non_null(a);
		json_decref(j);
	}
	assert_none_held();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lives_with_last_value),
	    cmocka_unit_test(test_mixed_values),
	    cmocka_unit_test(test_parse_error),
	    cmocka_unit_test(test_value_larger_than_chunk),
	    cmocka_unit_test(test_no_nesting),
	    cmocka_unit_test(test_all_chunks_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
