/*
 * The JSON-RPC client's handling of an HTTP body (chain/rpc_answer.c): how
 * hj_rpc__keep keeps it as it arrives, and what hj_rpc__answer makes of
 * it, for a single call and for a batch.
 *
 * Input: a byte of flags (bit 0: a batch; bits 1-2: the first id: 1, 7,
 * the highest the counter can give a batch of n, or read from the next 8
 * bytes; bit 3: the body arrives in pieces; bit 4: for a call that wants
 * the node's error answer), a byte giving a batch's size n (1 to 32), the
 * 8 bytes of the id if asked for; with bit 3 six bytes: the HTTP status
 * (one of ten), the Content-Length (none, exact, one more, one less, 0,
 * above the limit), the limit (the body's length, 16 KiB, 64 KiB or
 * small) and a signed change to it, the pieces' sizes (one piece, or a
 * seed), spaces after the body (in 256s); then the body.
 *
 * Checked.  Keeping: a 2xx body is kept whole while within the limit
 * (exactly at it included); a byte more, or a Content-Length above it,
 * aborts the transfer with too_big and nothing more kept; memory never
 * passes the limit; of another status exactly the first bytes it may keep.
 * The answer, on what was kept, against docs/RPC.md's rules written again
 * here: accepted exactly when valid (an object with "jsonrpc" absent or
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
#include "rpc_answer.h"
#include "say.h"

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

/* hj_rpc__answer on body[0..len), checked against the rules above. */
static void check_answer(const char *body, size_t len, json_int_t id0, size_t n,
                         int batch)
{
	json_t *doc, *result = NULL, *error = NULL, *want[MAX_BATCH];
	json_t *want_err = NULL;
	char msg[HJ_ERRLEN];
	enum hj_rpc__why why;
	int rc, valid;

	msg[0] = '\0';
	rc = hj_rpc__answer(body, len, id0, n, batch, &result, &error, &why,
	                    msg, sizeof msg);
	FUZZ_CHECK(rc == 0 || rc == -1);
	/* A reason exactly when refused; a cut answer only for a batch; a
	 * single call's limit only with its error member. */
	FUZZ_CHECK((rc == 0) == (why == HJ_RPC__ANS_OK));
	FUZZ_CHECK(why != HJ_RPC__ANS_CUT || batch);
	FUZZ_CHECK(batch || why != HJ_RPC__ANS_LIMIT || error != NULL);

	doc = json_loadb(body != NULL ? body : "", len, 0, NULL);
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
			           json_equal(error, want_err) &&
			           (why == HJ_RPC__ANS_LIMIT) ==
			               hj_rpc__limit_text(json_string_value(
			                   json_is_string(want_err)
			                       ? want_err
			                       : json_object_get(want_err,
			                                         "message"))));
		else
			FUZZ_CHECK(error == NULL);
	}
	json_decref(result);
	json_decref(error);
	json_decref(doc);
}

/* The next piece's size: the whole rest when seed is 0, else sizes from
 * 1 to 64 * seed drawn from the seed. */
static size_t piece(uint32_t *state, uint8_t seed, size_t left)
{
	size_t k;

	if (seed == 0)
		return left;
	*state = *state * 1103515245u + 12345u;
	k = 1 + (*state >> 8) % (64u * seed);
	return k < left ? k : left;
}

/*
 * The body arriving in pieces through hj_rpc__keep, as curl hands it to
 * the client, then, as the client does, hj_rpc__answer on what was kept
 * (for another status than 2xx: what a call that wants the node's error
 * answer reads).  The stream is the input's body followed by pad spaces.
 */
static void check_keep(struct fuzz_in *in, uint8_t flags, json_int_t id0,
                       size_t n, int batch)
{
	static const long statuses[] = {200, 299, 204, 500, 404,
	                                199, 300, 0,   401, 503};
	long status = statuses[fuzz_u8(in) % 10];
	uint8_t ann = fuzz_u8(in), base = fuzz_u8(in);
	int8_t delta = (int8_t)fuzz_u8(in);
	uint8_t seed = fuzz_u8(in);
	size_t pad = (size_t)fuzz_u8(in) * 256, total = in->n + pad;
	int ok = status >= 200 && status <= 299;
	hj_rpc__body b;
	long long max;
	size_t fed = 0;
	uint32_t state = seed;
	char *stream = malloc(total + 1);

	FUZZ_CHECK(stream != NULL);
	memcpy(stream, in->p, in->n);
	memset(stream + in->n, ' ', pad);
	switch (base % 4) {
	case 0:
		max = (long long)total;
		break;
	case 1:
		max = 16384; /* where growth starts */
		break;
	case 2:
		max = 65536;
		break;
	default:
		max = 1 + (base >> 2);
		break;
	}
	max += delta;
	if (max < 1)
		max = 1;
	memset(&b, 0, sizeof b);
	b.status = status;
	b.max = (size_t)max;
	b.other = flags & 16 ? (b.max < 65536 ? b.max : 65536) : 200;
	switch (ann % 6) {
	case 0:
		b.announced = -1;
		break;
	case 1:
		b.announced = (long long)total;
		break;
	case 2:
		b.announced = (long long)total + 1;
		break;
	case 3:
		b.announced = total > 0 ? (long long)total - 1 : 0;
		break;
	case 4:
		b.announced = 0;
		break;
	default:
		b.announced = max + 1;
		break;
	}
	while (fed < total) {
		size_t m = piece(&state, seed, total - fed);
		size_t got = hj_rpc__keep(&b, stream + fed, m);

		FUZZ_CHECK(b.started);
		if (ok && ((fed == 0 && b.announced > max) ||
		           fed + m > (size_t)max)) {
			/* Too big: aborted, nothing more kept. */
			FUZZ_CHECK(got == 0 && b.too_big && b.len == fed);
			break;
		}
		FUZZ_CHECK(got == m && !b.too_big);
		fed += m;
		if (ok) {
			FUZZ_CHECK(b.len == fed);
			FUZZ_CHECK(b.cap >= b.len && b.cap <= b.max);
		} else {
			FUZZ_CHECK(b.len == (fed < b.other ? fed : b.other));
			FUZZ_CHECK(b.cap == b.other);
		}
		FUZZ_CHECK(b.len == 0 || memcmp(b.buf, stream, b.len) == 0);
	}
	if (!b.too_big)
		check_answer(b.buf, b.len, id0, ok ? n : 1, ok ? batch : 0);
	free(b.buf);
	free(stream);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in);
	int batch = flags & 1;
	size_t n = batch ? 1 + fuzz_u8(&in) % MAX_BATCH : (fuzz_u8(&in), 1);
	json_int_t top = (json_int_t)INT64_MAX - (json_int_t)n + 1, id0;

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
	if (flags & 8)
		check_keep(&in, flags, id0, n, batch);
	else
		check_answer((const char *)in.p, in.n, id0, n, batch);
	return 0;
}
