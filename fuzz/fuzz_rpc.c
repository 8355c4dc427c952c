/*
 * The JSON-RPC client's response envelope (chain/rpc.c): hj_rpc__answer,
 * what the client makes of the body of an answer, for a single call and
 * for a batch.
 *
 * Input: a byte of flags (bit 0: a batch; bits 1-2: the first id: 1, 7,
 * the highest the counter can give a batch of n, or read from the next 8
 * bytes), a byte giving a batch's size n (1 to 32), then the body.
 *
 * Checked against docs/RPC.md's rules, written again here: the answer is
 * accepted exactly when it is valid (an object with "jsonrpc" absent or
 * "2.0", the request's id as an integer, no "error" other than null, a
 * "result"; for a batch, an array with exactly one valid answer for every
 * id, none missing, repeated or foreign), and then every call gets exactly
 * its own result, in request order; a refusal says why in one non-empty
 * printable line; the node's "error" member is handed out exactly for a
 * single call whose answer is otherwise valid.  Nothing leaks.
 */
#include "fuzz.h"

#include <jansson.h>

#include "rpc.h"

#define MAX_BATCH 32

/* The result of answer o to call id, or NULL; *err is its "error" member
 * when that is the only thing wrong. */
static json_t *valid_one(json_t *o, json_int_t id, json_t **err)
{
	json_t *v;

	if (!json_is_object(o))
		return NULL;
	v = json_object_get(o, "jsonrpc");
	if (v != NULL && !(json_is_string(v) && json_string_length(v) == 3 &&
	                   memcmp(json_string_value(v), "2.0", 3) == 0))
		return NULL;
	v = json_object_get(o, "id");
	if (!json_is_integer(v) || json_integer_value(v) != id)
		return NULL;
	v = json_object_get(o, "error");
	if (v != NULL && !json_is_null(v)) {
		*err = v;
		return NULL;
	}
	return json_object_get(o, "result");
}

/* The batch's results by id into want[0..n), or -1. */
static int valid_batch(json_t *doc, json_int_t id0, size_t n, json_t **want)
{
	size_t i;
	json_t *el;

	memset(want, 0, n * sizeof *want);
	if (!json_is_array(doc))
		return -1;
	json_array_foreach(doc, i, el)
	{
		json_t *id = json_object_get(el, "id"), *err = NULL;
		json_int_t v = json_integer_value(id);

		if (!json_is_integer(id) || v < id0 ||
		    v - id0 >= (json_int_t)n || want[v - id0] != NULL)
			return -1;
		want[v - id0] = valid_one(el, v, &err);
		if (want[v - id0] == NULL)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (want[i] == NULL)
			return -1;
	return 0;
}

static void check_msg(const char *msg)
{
	FUZZ_CHECK(msg[0] != '\0');
	for (const char *p = msg; *p; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in);
	int batch = flags & 1;
	size_t n = batch ? 1 + fuzz_u8(&in) % MAX_BATCH : (fuzz_u8(&in), 1);
	json_int_t top = (json_int_t)INT64_MAX - (json_int_t)n + 1, id0;
	json_t *doc, *result = NULL, *error = NULL, *want[MAX_BATCH];
	json_t *want_err = NULL;
	char msg[1024];
	int rc, valid;

	switch (flags >> 1 & 3) {
	case 0:
		id0 = 1;
		break;
	case 1:
		id0 = 7;
		break;
	case 2:
		id0 = top;
		break;
	default:
		id0 = 1 + (json_int_t)(fuzz_u64(&in) % (uint64_t)top);
		break;
	}
	msg[0] = '\0';
	rc = hj_rpc__answer((const char *)in.p, in.n, id0, n, batch, &result,
	                    &error, msg, sizeof msg);
	FUZZ_CHECK(rc == 0 || rc == -1);

	doc = json_loadb((const char *)in.p, in.n, 0, NULL);
	if (batch) {
		valid = doc != NULL && valid_batch(doc, id0, n, want) == 0;
	} else {
		want[0] = doc != NULL ? valid_one(doc, id0, &want_err) : NULL;
		valid = want[0] != NULL;
	}
	FUZZ_CHECK((rc == 0) == valid);
	if (rc == 0) {
		FUZZ_CHECK(result != NULL && error == NULL);
		if (batch) {
			FUZZ_CHECK(json_is_array(result) &&
			           json_array_size(result) == n);
			for (size_t i = 0; i < n; i++)
				FUZZ_CHECK(json_equal(json_array_get(result, i),
				                      want[i]));
		} else {
			FUZZ_CHECK(json_equal(result, want[0]));
		}
	} else {
		FUZZ_CHECK(result == NULL);
		check_msg(msg);
		if (want_err != NULL)
			FUZZ_CHECK(error != NULL &&
			           json_equal(error, want_err));
		else
			FUZZ_CHECK(error == NULL);
	}
	json_decref(result);
	json_decref(error);
	json_decref(doc);
	return 0;
}
