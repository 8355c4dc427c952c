/* The card log tests' shared fixtures and checks (cardlog_util.h). */
#include "cardlog_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

const char *const K_LINE_CARD[] = {"v",      "chain", "height", "hash",
                                   "parent", "card",  "events", NULL};
const char *const K_LINE_VOID[] = {"v",      "chain", "height", "hash",
                                   "parent", "void",  "events", NULL};

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* s: lower-case hex, with or without "0x", exactly 2n digits. */
void unhex(const char *s, uint8_t *out, size_t n)
{
	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
}

/* The keys of obj, in order, are exactly keys (jansson keeps insertion
 * order, which for a parsed object is the order in the text). */
void assert_keys(json_t *obj, const char *const *keys)
{
	void *it;
	size_t i;

	assert_non_null(obj);
	assert_true(json_is_object(obj));
	it = json_object_iter(obj);
	for (i = 0; keys[i] != NULL; i++) {
		if (it == NULL)
			fail_msg("key \"%s\" missing", keys[i]);
		assert_string_equal(json_object_iter_key(it), keys[i]);
		it = json_object_iter_next(obj, it);
	}
	if (it != NULL)
		fail_msg("unexpected key \"%s\"", json_object_iter_key(it));
}

json_t *parse(const char *line)
{
	json_error_t e;
	json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &e);

	if (j == NULL)
		fail_msg("not JSON (%s at %d): %s", e.text, e.position, line);
	assert_true(json_is_object(j));
	return j;
}

/*
 * Ends the line and checks what every line is (LOG.md, Stability): one
 * "\n", at the end; printable ASCII without a space before it.  Returns a
 * NUL-terminated copy for the caller to free.
 */
char *finish(hj_cardlog *cl)
{
	const char *line = NULL;
	size_t len = 0;
	char *s;

	assert_int_equal(hj_cardlog_end(cl, &line, &len), 0);
	assert_non_null(line);
	assert_true(len >= 2);
	assert_int_equal(line[len - 1], '\n');
	for (size_t i = 0; i + 1 < len; i++)
		if (!(line[i] > 0x20 && line[i] < 0x7f))
			fail_msg("byte 0x%02x at %zu", (unsigned char)line[i],
			         i);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, line, len);
	s[len] = '\0';
	return s;
}
