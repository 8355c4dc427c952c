/* `hashjack verify`: how a dealer's line and the protocol's differ, in
 * words (verify_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "verify_state.h"

/* Bytes s[0..n) hold needle how many times. */
static size_t count(const char *s, size_t n, const char *needle)
{
	size_t k = 0, m = strlen(needle);
	const char *end = s + n, *p = s;
	while ((p = memmem(p, (size_t)(end - p), needle, m)) != NULL) {
		k++;
		p += m;
	}
	return k;
}

int hjc_verify__unknown_round(const char *theirs, size_t tn, const char *ours,
                              size_t on)
{
	if (!theirs || !ours)
		return 0;
	return count(ours, on, "\"no_round\"") >
	           count(theirs, tn, "\"no_round\"") ||
	       count(ours, on, "\"round\":") < count(theirs, tn, "\"round\":");
}

/* Whether line s (n bytes) is a JSON object with a member key. */
static int has_member(const char *s, size_t n, const char *key)
{
	json_t *j = json_loadb(s, n, 0, NULL);
	int has = json_object_get(j, key) != NULL;
	json_decref(j);
	return has;
}

int hjc_verify__seed_unseen(const char *theirs, size_t tn, const char *ours,
                            size_t on)
{
	if (!theirs || !ours)
		return 0;
	return has_member(theirs, tn, "seed") && !has_member(ours, on, "seed");
}

char *hjc_verify__line_field(const char *s, size_t n, const char *key)
{
	json_t *j = json_loadb(s, n, 0, NULL);
	const char *h = json_string_value(json_object_get(j, key));
	char *out = h ? strdup(h) : NULL;
	json_decref(j);
	return out;
}

/* The path of the first place where a (the dealer's) and b (the
 * node's) differ, appended to path ("" when they are equal); *x and *y get
 * the values there (NULL where one has none). */
static void first_diff(json_t *a, json_t *b, char *path, size_t n, json_t **x,
                       json_t **y)
{
	size_t len = strlen(path);
	*x = a;
	*y = b;
	if (a && b && json_equal(a, b)) {
		*x = *y = NULL;
		return;
	}
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *v;
		json_object_foreach(b, k, v)
		{
			json_t *w = json_object_get(a, k);
			if (w && json_equal(w, v))
				continue;
			snprintf(path + len, n - len, "%s%s", len ? "." : "",
			         k);
			if (!w) {
				*x = NULL;
				*y = v;
				return;
			}
			first_diff(w, v, path, n, x, y);
			return;
		}
		json_object_foreach(a, k, v)
		{
			if (!json_object_get(b, k)) {
				snprintf(path + len, n - len, "%s%s",
				         len ? "." : "", k);
				*x = v;
				*y = NULL;
				return;
			}
		}
	} else if (json_is_array(a) && json_is_array(b)) {
		for (size_t i = 0;
		     i < json_array_size(a) || i < json_array_size(b); i++) {
			json_t *v = json_array_get(a, i),
			       *w = json_array_get(b, i);
			if (v && w && json_equal(v, w))
				continue;
			snprintf(path + len, n - len, "[%zu]", i);
			if (v && w)
				first_diff(v, w, path, n, x, y);
			else {
				*x = v;
				*y = w;
			}
			return;
		}
	}
}

/* A value in a few words, into buf. */
static const char *shown(json_t *v, char *buf, size_t n)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
	                                JSON_PRESERVE_ORDER)
	            : NULL;
	if (!v)
		snprintf(buf, n, "nothing");
	else if (!s)
		snprintf(buf, n, "?");
	else if (strlen(s) > 80)
		snprintf(buf, n, "%.77s...", s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
	return buf;
}

void hjc_verify_describe(const char *theirs, size_t tn, const char *ours,
                         size_t on, char *buf, size_t n)
{
	json_t *a = json_loadb(theirs, tn, 0, NULL);
	json_t *b = json_loadb(ours, on, 0, NULL);
	json_t *x, *y;
	char path[200] = "", sx[100], sy[100];
	if (!json_is_object(a))
		snprintf(buf, n, "the dealer's line is not a JSON object");
	else if (json_equal(a, b))
		snprintf(buf, n,
		         "the same JSON, not the same bytes (key "
		         "order, spacing or number form: docs/LOG.md)");
	else if (json_object_get(a, "seed") && !json_object_get(b, "seed"))
		/* Said first: the card and everything dealt from it follow
		 * from there. */
		snprintf(buf, n,
		         "seed: the dealer's %s, the protocol's nothing (it "
		         "deals this block without a seed: no chain of seeds "
		         "of a valid Commit is in force at it, or cards = "
		         "hash)",
		         shown(json_object_get(a, "seed"), sx, sizeof sx));
	else {
		first_diff(a, b, path, sizeof path, &x, &y);
		snprintf(buf, n, "%s: the dealer's %s, the protocol's %s%s",
		         path, shown(x, sx, sizeof sx), shown(y, sy, sizeof sy),
		         strcmp(path, "hash") == 0
		             ? " (the dealer's hash is not the node's block "
		               "at that height)"
		             : "");
	}
	json_decref(a);
	json_decref(b);
}
