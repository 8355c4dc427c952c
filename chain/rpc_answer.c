/*
 * What a node's HTTP answer is, as JSON-RPC: its body kept as it arrives,
 * within bounds (hj_rpc__keep), and what the body says about the request's
 * calls (hj_rpc__answer: docs/RPC.md's rules).  Pure: no curl, no libuv,
 * no state but the arguments, so that an answer can be checked on a thread
 * of the pool (rpc.c, "Parsing") and fuzzed (fuzz/fuzz_rpc.c).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_arena.h"
#include "quote.h"
#include "rpc_answer.h"
#include "say.h"

/* First allocation of a body whose length the server did not announce. */
#define BODY_MIN 16384

size_t hj_rpc__keep(hj_rpc__body *b, const char *p, size_t n)
{
	size_t need, cap, max = b->max;
	int ok = b->status >= 200 && b->status <= 299;

	if (!b->started) {
		b->started = 1;
		if (ok && b->announced > 0) {
			if ((uint64_t)b->announced > max) {
				b->too_big = 1;
				return 0;
			}
			if ((size_t)b->announced > b->cap) {
				char *nb =
				    realloc(b->buf, (size_t)b->announced);

				if (nb == NULL)
					return 0;
				b->buf = nb;
				b->cap = (size_t)b->announced;
			}
		}
	}
	if (!ok) {
		size_t keep;

		if (b->buf == NULL) {
			b->buf = malloc(b->other);
			if (b->buf == NULL)
				return 0;
			b->cap = b->other;
		}
		keep = b->cap - b->len;
		if (keep > n)
			keep = n;
		memcpy(b->buf + b->len, p, keep);
		b->len += keep;
		return n;
	}
	if (n > max - b->len) {
		b->too_big = 1;
		return 0;
	}
	need = b->len + n;
	if (need > b->cap) {
		char *nb;

		cap = b->cap ? b->cap : BODY_MIN;
		while (cap < need)
			cap = cap > max / 2 ? max : cap * 2;
		if (cap > max)
			cap = max;
		nb = realloc(b->buf, cap);
		if (nb == NULL)
			return 0;
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	return n;
}

void hj_rpc__body_release(hj_rpc__body *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* A JSON value as compact JSON in printable ASCII, cut with "..." to fit
 * n >= 4 bytes.  JSON_ENSURE_ASCII escapes every byte above ASCII and JSON
 * those below 0x20, but DEL (0x7f) may stand in a string as it is: it is
 * written \u007f here, so that no byte of the node's reaches a log raw. */
static void show(const json_t *v, char *buf, size_t n)
{
	char *s =
	    json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len, ndel = 0;

	if (s == NULL) {
		snprintf(buf, n, "(value)");
		return;
	}
	len = strlen(s);
	for (size_t i = 0; i < len; i++)
		ndel += s[i] == 0x7f;
	if (ndel > 0) {
		char *t = malloc(len + 5 * ndel + 1);
		size_t o = 0;

		if (t == NULL) {
			for (size_t i = 0; i < len; i++)
				if (s[i] == 0x7f)
					s[i] = '?'; /* printable still */
		} else {
			for (size_t i = 0; i < len; i++) {
				if (s[i] == 0x7f) {
					memcpy(t + o, "\\u007f", 6);
					o += 6;
				} else {
					t[o++] = s[i];
				}
			}
			t[o] = '\0';
			free(s);
			s = t;
			len = o;
		}
	}
	if (len >= n)
		snprintf(buf, n, "%.*s...", (int)(n - 4), s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
}

/* -1: s names a rate limit; 1: a size or batch limit; 0: neither. */
static int text_kind(const char *s)
{
	static const char *const rate[] = {
	    "rate limit",    "rate-limit",        "ratelimit",  "request rate",
	    "rate exceeded", "too many requests", "per second", "/second",
	    "compute unit",  "capacity",          "quota",      "credits"};
	static const char *const size[] = {
	    "batch",        "too large", "too big",       "response size",
	    "request size", "payload",   "request entity"};
	char low[512];
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; s[i] != '\0' && i + 1 < sizeof low; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[i] = '\0';
	for (i = 0; i < sizeof rate / sizeof rate[0]; i++)
		if (strstr(low, rate[i]) != NULL)
			return -1;
	for (i = 0; i < sizeof size / sizeof size[0]; i++)
		if (strstr(low, size[i]) != NULL)
			return 1;
	return 0;
}

int hj_rpc__limit_text(const char *s)
{
	return text_kind(s) == 1;
}

/* The message of a JSON-RPC error member e (NULL when it has none). */
static const char *error_text(json_t *e)
{
	json_t *text = json_object_get(e, "message");

	return json_is_string(text) ? json_string_value(text)
	       : json_is_string(e)  ? json_string_value(e)
	                            : NULL;
}

/*
 * One response object for request id.  Accepts JSON-RPC 2.0 and the 1.0
 * form some nodes still send ("error": null next to "result", no
 * "jsonrpc").  Returns the borrowed result, or NULL with the reason in msg;
 * when the reason is the answer's "error" member and errobj is not NULL,
 * *errobj is that member (borrowed from o).
 */
static json_t *check_one(json_t *o, json_int_t id, char *msg, size_t n,
                         json_t **errobj)
{
	json_t *v, *err, *res;
	char shown[160];

	if (!json_is_object(o)) {
		show(o, shown, sizeof shown);
		hj_say(msg, n, "response is not a JSON-RPC object: %s", shown);
		return NULL;
	}
	v = json_object_get(o, "jsonrpc");
	if (v != NULL &&
	    !(json_is_string(v) && strcmp(json_string_value(v), "2.0") == 0)) {
		show(v, shown, sizeof shown);
		hj_say(msg, n, "response has \"jsonrpc\": %s, not \"2.0\"",
		       shown);
		return NULL;
	}
	v = json_object_get(o, "id");
	if (!json_is_integer(v) || json_integer_value(v) != id) {
		show(v != NULL ? v : json_null(), shown, sizeof shown);
		hj_say(msg, n, "response id %s does not match request id %lld",
		       shown, (long long)id);
		return NULL;
	}
	err = json_object_get(o, "error");
	if (err != NULL && !json_is_null(err)) {
		json_t *code = json_object_get(err, "code");
		json_t *text = json_object_get(err, "message");

		if (json_is_integer(code) && json_is_string(text)) {
			hj_quote(json_string_value(text), shown, sizeof shown);
			hj_say(msg, n, "JSON-RPC error %lld: %s",
			       (long long)json_integer_value(code), shown);
		} else {
			show(err, shown, sizeof shown);
			hj_say(msg, n, "JSON-RPC error %s", shown);
		}
		if (errobj != NULL)
			*errobj = err;
		return NULL;
	}
	res = json_object_get(o, "result");
	if (res == NULL)
		hj_say(msg, n, "response has neither \"result\" nor \"error\"");
	return res;
}

/* The kind of a JSON-RPC error member e: a limit (hj_rpc__limit_text of
 * its message), or any other error of the node. */
static enum hj_rpc__why error_kind(json_t *e)
{
	return text_kind(error_text(e)) == 1 ? HJ_RPC__ANS_LIMIT
	                                     : HJ_RPC__ANS_NODE;
}

/* The results of a batch response to the calls of ids id0 .. id0 + nc - 1
 * in request order: a new array, or NULL with the reason in msg and its
 * kind in *kind.  Every id must appear exactly once. */
static json_t *check_batch(json_int_t id0, size_t nc, json_t *doc,
                           enum hj_rpc__why *kind, char *msg, size_t n)
{
	json_t **slot = NULL, *out = NULL, *el, *e;
	size_t i;
	char why[HJ_ERRLEN];

	*kind = HJ_RPC__ANS_BAD;
	e = json_object_get(doc, "error");
	if (e != NULL && !json_is_null(e)) {
		/* The server refused the batch as a whole: a smaller one
		 * may pass, unless it asks us to slow down. */
		char shown[160];

		show(e, shown, sizeof shown);
		hj_say(msg, n, "batch refused: JSON-RPC error %s", shown);
		*kind = text_kind(error_text(e)) == -1 ? HJ_RPC__ANS_NODE
		                                       : HJ_RPC__ANS_LIMIT;
		return NULL;
	}
	if (!json_is_array(doc)) {
		hj_say(msg, n, "batch response is not an array");
		return NULL;
	}
	slot = calloc(nc, sizeof *slot);
	if (slot == NULL) {
		hj_say(msg, n, "out of memory");
		return NULL;
	}
	json_array_foreach(doc, i, el)
	{
		json_t *id = json_object_get(el, "id");
		json_int_t k;
		json_t *res;

		if (!json_is_integer(id) || json_integer_value(id) < id0 ||
		    (uint64_t)(json_integer_value(id) - id0) >= nc) {
			char shown[64];

			show(id != NULL ? id : json_null(), shown,
			     sizeof shown);
			snprintf(
			    msg, n,
			    "batch response element %zu has id %s, not one "
			    "of %lld..%lld",
			    i, shown, (long long)id0,
			    (long long)(id0 + ((json_int_t)nc - 1)));
			goto out;
		}
		k = json_integer_value(id) - id0;
		if (slot[k] != NULL) {
			hj_say(msg, n, "batch response repeats id %lld",
			       (long long)json_integer_value(id));
			goto out;
		}
		json_t *errobj = NULL;

		res = check_one(el, json_integer_value(id), why, sizeof why,
		                &errobj);
		if (res == NULL) {
			hj_say(msg, n, "call %lld of %zu: %s", (long long)k + 1,
			       nc, why);
			if (errobj != NULL)
				*kind = error_kind(errobj);
			goto out;
		}
		slot[k] = res;
	}
	for (i = 0; i < nc; i++) {
		if (slot[i] == NULL) {
			hj_say(msg, n, "batch response lacks id %lld",
			       (long long)(id0 + (json_int_t)i));
			goto out;
		}
	}
	out = json_array();
	for (i = 0; out != NULL && i < nc; i++) {
		if (json_array_append(out, slot[i]) != 0) {
			json_decref(out);
			out = NULL;
		}
	}
	if (out == NULL)
		hj_say(msg, n, "out of memory");
out:
	free(slot);
	return out;
}

int hj_rpc__answer(const char *body, size_t len, json_int_t id0, size_t n,
                   int batch, json_t **result, json_t **error,
                   enum hj_rpc__why *why, char *msg, size_t msglen)
{
	json_t *doc, *errobj = NULL;
	json_error_t je;
	char shown[240];

	*result = NULL;
	*why = HJ_RPC__ANS_OK;
	if (error != NULL)
		*error = NULL;
	hj_jarena *arena = hj_jarena_begin();

	doc = json_loadb(body != NULL ? body : "", len, 0, &je);
	hj_jarena_end(arena);
	if (doc == NULL) {
		hj_quote(je.text, shown, sizeof shown);
		hj_say(msg, msglen,
		       "response is not JSON: %s at line %d, column %d", shown,
		       je.line, je.column);
		*why = batch ? HJ_RPC__ANS_CUT : HJ_RPC__ANS_BAD;
		return -1;
	}
	if (batch) {
		*result = check_batch(id0, n, doc, why, msg, msglen);
	} else {
		*result =
		    json_incref(check_one(doc, id0, msg, msglen, &errobj));
		if (*result == NULL) {
			*why = errobj != NULL ? error_kind(errobj)
			                      : HJ_RPC__ANS_BAD;
			if (errobj != NULL && error != NULL)
				*error = json_incref(errobj);
		}
	}
	json_decref(doc);
	if (*result != NULL)
		*why = HJ_RPC__ANS_OK;
	return *result != NULL ? 0 : -1;
}
