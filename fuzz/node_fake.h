/*
 * What the backend targets (fuzz_evm_backend.c, fuzz_btc_backend.c) share:
 * a JSON-RPC client without a network, whose node answers come from the
 * fuzzer's input.  Included by one file of each target only: it defines
 * functions.
 *
 * The client.  The functions of chain/rpc.h that the backends call,
 * hj_rpc_call, hj_rpc_call_x (params only, flags kept for the target to
 * check) and hj_rpc_batch, are defined here (and hj_rpc_new and
 * hj_rpc_close, which their push() reaches), so the archive's rpc.o is
 * never linked in.  Each call is checked (the target's fake_submitted sees
 * it first) and kept in a queue until the target answers it; nothing is
 * answered from inside a call, as the real client never does.  Results keep
 * the real client's promises: a batch's is an array of one value per call,
 * borrowed for the callback only.
 *
 * The input: records separated by "\n==\n".  The first says what to ask
 * the backend (each target reads its own); each later one is, in order:
 *
 *   "@N"     answer pending request N (mod their count) next, instead of
 *            the oldest;
 *   "%"      the next call made to the client is refused (-ENOMEM);
 *   "!TEXT"  the request answered next ends with the error TEXT (a fixed
 *            text when empty), as the real client ends one after an HTTP
 *            4xx (for hj_rpc_call_x: a node's error answer, TEXT its
 *            message and its text);
 *   else     the result of the request answered next; for a batch of n
 *            calls, this record and the n - 1 after it, one per call.  A
 *            record is JSON text (any value); else, when it is UTF-8
 *            without NUL, the JSON string of its bytes (hex needs no
 *            quotes); else null.  The target may read a record its own way
 *            first (fake_element).
 *
 * When the records run out, the requests still pending are dropped as
 * hj_rpc_close drops them (no callback) before the backend is freed.
 */
#ifndef HJ_FUZZ_NODE_FAKE_H
#define HJ_FUZZ_NODE_FAKE_H

#include <errno.h>
#include <jansson.h>

#include "action.h"
#include "fuzz.h"
#include "rpc.h"

#define FAKE_SEP         "\n==\n"
#define FAKE_MAX_RECORDS 512
#define FAKE_ERROR_MAX   120

struct fake_req {
	struct fake_req *next;
	int owner; /* the target's operation that made it */
	size_t n;
	int batch;
	char **methods;     /* n, copied */
	const char *method; /* methods[0] */
	json_t **params;    /* n, ours */
	hj_rpc_cb cb;
	hj_rpc_xcb xcb; /* hj_rpc_call_x's, instead of cb */
	unsigned flags;
	void *arg;
};

struct fake_in {
	const char *rec[FAKE_MAX_RECORDS];
	size_t len[FAKE_MAX_RECORDS];
	size_t n, next;
};

struct hj_rpc {
	struct fake_req *head; /* oldest first */
	size_t npending;
	int refuse_next;
	int owner;   /* the operation on whose behalf calls are made now */
	int in_call; /* inside a backend's identity, tip or blocks */
	/* The error of the request being answered, "" for a result. */
	char error[FAKE_ERROR_MAX + 1];
	struct fake_in in;
};

/* The target's: sees every call before it is queued (or refused). */
static void fake_submitted(hj_rpc *c, const struct fake_req *q);
/* The target's: a result about to be given to q's callback. */
static void fake_answered(hj_rpc *c, const struct fake_req *q, json_t *result);
/* The target's: element i of q's result from record r, or NULL for the
 * default reading. */
static json_t *fake_element(hj_rpc *c, const struct fake_req *q, size_t i,
                            size_t r);

static void fake_req_free(struct fake_req *q)
{
	for (size_t i = 0; i < q->n; i++) {
		json_decref(q->params[i]);
		free(q->methods[i]);
	}
	free(q->params);
	free(q->methods);
	free(q);
}

static int fake_submit(hj_rpc *c, size_t n, int batch,
                       const char *const *methods, json_t *const *params,
                       hj_rpc_cb cb, hj_rpc_xcb xcb, unsigned flags, void *arg)
{
	struct fake_req *q = calloc(1, sizeof *q), **pp;

	FUZZ_CHECK(q != NULL);
	/* A backend never makes a call the client refuses as invalid. */
	FUZZ_CHECK(n > 0 && (cb != NULL) != (xcb != NULL));
	q->params = calloc(n, sizeof *q->params);
	q->methods = calloc(n, sizeof *q->methods);
	FUZZ_CHECK(q->params != NULL && q->methods != NULL);
	q->owner = c->owner;
	q->n = n;
	q->batch = batch;
	q->cb = cb;
	q->xcb = xcb;
	q->flags = flags;
	q->arg = arg;
	for (size_t i = 0; i < n; i++) {
		q->params[i] = params[i] != NULL ? params[i] : json_array();
		FUZZ_CHECK(methods[i] != NULL);
		q->methods[i] = strdup(methods[i]);
		FUZZ_CHECK(q->methods[i] != NULL);
		FUZZ_CHECK(json_is_array(q->params[i]));
	}
	q->method = q->methods[0];
	fake_submitted(c, q);
	if (c->refuse_next) {
		c->refuse_next = 0;
		fake_req_free(q); /* params are stolen even then */
		return -ENOMEM;
	}
	for (pp = &c->head; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = q;
	c->npending++;
	return 0;
}

int hj_rpc_call(hj_rpc *c, const char *method, json_t *params, hj_rpc_cb cb,
                void *arg)
{
	return fake_submit(c, 1, 0, &method, &params, cb, NULL, 0, arg);
}

int hj_rpc_call_x(hj_rpc *c, const char *method, json_t *params,
                  const char *params_text, unsigned flags, hj_rpc_xcb cb,
                  void *arg)
{
	FUZZ_CHECK(params_text == NULL);
	return fake_submit(c, 1, 0, &method, &params, NULL, cb, flags, arg);
}

int hj_rpc_batch(hj_rpc *c, size_t n, const char *const *methods,
                 json_t *const *params, hj_rpc_cb cb, void *arg)
{
	return fake_submit(c, n, 1, methods, params, cb, NULL, 0, arg);
}

/*
 * The rest of chain/rpc.h that a backend's object reaches: its push()
 * opens chain/push.c, whose long poll has a client of its own.  No target
 * opens push, so these are never called; they are here so that the
 * archive's rpc.o stays out all the same.
 */
int hj_rpc_new(uv_loop_t *loop, const hj_rpc_opts *o, hj_rpc **out, char *err,
               size_t errlen)
{
	(void)loop;
	(void)o;
	*out = NULL;
	snprintf(err, errlen, "no network in a fuzz target");
	return -ENOTSUP;
}

void hj_rpc_close(hj_rpc *c, void (*done)(void *arg), void *arg)
{
	(void)done;
	(void)arg;
	FUZZ_CHECK(c == NULL); /* no client is ever made */
}

/* Splits the input after its first record (the target's) into in. */
static void fake_split(struct fake_in *in, const uint8_t *data, size_t size,
                       const char **first, size_t *first_len)
{
	const char *p = (const char *)data, *end = p + size;
	size_t seplen = strlen(FAKE_SEP);

	memset(in, 0, sizeof *in);
	*first = p;
	*first_len = size;
	for (int k = 0;; k++) {
		const char *s = memmem(p, (size_t)(end - p), FAKE_SEP, seplen);
		size_t len = s != NULL ? (size_t)(s - p) : (size_t)(end - p);

		if (k == 0) {
			*first_len = len;
		} else if (in->n < FAKE_MAX_RECORDS) {
			in->rec[in->n] = p;
			in->len[in->n++] = len;
		}
		if (s == NULL)
			break;
		p = s + seplen;
	}
}

/* A record as JSON (see the top); a new reference. */
static json_t *fake_value(const char *s, size_t len)
{
	json_t *v = json_loadb(s, len, JSON_DECODE_ANY, NULL);

	if (v == NULL && memchr(s, '\0', len) == NULL)
		v = json_stringn(s, len);
	if (v == NULL)
		v = json_null();
	FUZZ_CHECK(v != NULL);
	return v;
}

/* Whether record r is a control record ("@N" or "%"). */
static int fake_control(const struct fake_in *in, size_t r)
{
	return in->len[r] > 0 && (in->rec[r][0] == '@' || in->rec[r][0] == '%');
}

/* Answers one pending request from the next records.  Returns 0 when the
 * records ran out first (the request stays pending). */
static int fake_answer(hj_rpc *c)
{
	struct fake_in *in = &c->in;
	struct fake_req *q, **pp;
	size_t pick = 0, r;
	json_t *result;

	for (;;) {
		if (in->next >= in->n)
			return 0;
		r = in->next;
		if (!fake_control(in, r))
			break;
		in->next++;
		if (in->rec[r][0] == '%') {
			c->refuse_next = 1;
			continue;
		}
		pick = 0;
		for (size_t i = 1; i < in->len[r] && i < 6; i++) {
			char d = in->rec[r][i];

			if (d < '0' || d > '9')
				break;
			pick = pick * 10 + (size_t)(d - '0');
		}
	}
	FUZZ_CHECK(c->npending > 0);
	pick %= c->npending;
	for (pp = &c->head; pick > 0; pick--)
		pp = &(*pp)->next;
	q = *pp;
	c->owner = q->owner;
	if (in->len[r] > 0 && in->rec[r][0] == '!') {
		size_t k, len = in->len[r] - 1;

		if (len > FAKE_ERROR_MAX)
			len = FAKE_ERROR_MAX;
		/* One printable line, as the real client's messages are. */
		for (k = 0; k < len; k++) {
			unsigned char ch = (unsigned char)in->rec[r][1 + k];

			c->error[k] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		}
		c->error[k] = '\0';
		if (k == 0)
			snprintf(c->error, sizeof c->error,
			         "fake: the node failed");
		in->next++;
		result = NULL;
	} else if (!q->batch) {
		result = fake_element(c, q, 0, r);
		if (result == NULL)
			result = fake_value(in->rec[r], in->len[r]);
		in->next++;
	} else {
		if (in->n - r < q->n) {
			c->owner = -1;
			return 0; /* stays pending; the records ran out */
		}
		result = json_array();
		FUZZ_CHECK(result != NULL);
		for (size_t i = 0; i < q->n; i++) {
			json_t *v = fake_element(c, q, i, r + i);

			if (v == NULL)
				v = fake_value(in->rec[r + i], in->len[r + i]);
			FUZZ_CHECK(json_array_append_new(result, v) == 0);
		}
		in->next += q->n;
	}
	*pp = q->next;
	c->npending--;
	if (result != NULL) {
		c->error[0] = '\0';
		fake_answered(c, q, result);
		if (q->xcb)
			q->xcb(q->arg, result, NULL);
		else
			q->cb(q->arg, result, NULL);
	} else if (q->xcb) {
		hj_rpc_error e = {.kind = HJ_RPC_ERR_NODE,
		                  .code = -32000,
		                  .message = c->error,
		                  .text = c->error};
		q->xcb(q->arg, NULL, &e);
	} else {
		q->cb(q->arg, NULL, c->error);
	}
	c->owner = -1;
	c->error[0] = '\0';
	json_decref(result);
	fake_req_free(q);
	return 1;
}

/* Requests of operation owner still pending. */
static size_t fake_pending_of(const hj_rpc *c, int owner)
{
	size_t k = 0;

	for (const struct fake_req *q = c->head; q != NULL; q = q->next)
		k += q->owner == owner;
	return k;
}

/* What hj_rpc_close does to the requests: drops them, no callback. */
static void fake_drop(hj_rpc *c)
{
	while (c->head != NULL) {
		struct fake_req *q = c->head;

		c->head = q->next;
		fake_req_free(q);
	}
	c->npending = 0;
}

/* Reads a decimal number at *p (saturating), skipping what precedes it
 * up to the next letter; 0 when there is none. */
static uint64_t fake_number(const char **p, const char *end)
{
	uint64_t v = 0;

	while (*p < end && (**p == ' ' || **p == ','))
		(*p)++;
	while (*p < end && **p >= '0' && **p <= '9') {
		unsigned d = (unsigned)(**p - '0');

		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
		(*p)++;
	}
	return v;
}

/* Whether two normalised actions say the same, field by field (the
 * structs' padding is not compared). */
static int fake_action_eq(const hj_action *a, const hj_action *b)
{
	return a->kind == b->kind && a->act == b->act &&
	       a->reason == b->reason && a->tx_index == b->tx_index &&
	       hj_id_eq(&a->txid, &b->txid) &&
	       hj_id_eq(&a->sender, &b->sender) && a->value == b->value &&
	       a->insurance == b->insurance && a->side_pp == b->side_pp &&
	       a->side_t3 == b->side_t3 && a->has_ref == b->has_ref &&
	       memcmp(a->round_ref, b->round_ref, sizeof a->round_ref) == 0 &&
	       memcmp(a->sig, b->sig, sizeof a->sig) == 0 &&
	       a->signed_len == b->signed_len &&
	       memcmp(a->signed_part, b->signed_part, sizeof a->signed_part) ==
	           0;
}

#endif
