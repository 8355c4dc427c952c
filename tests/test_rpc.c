/*
 * The JSON-RPC client (chain/rpc.h) against an HTTP/1.1 server of our own
 * (http_fake.h) on the same libuv loop, bound to 127.0.0.1 on an ephemeral
 * port.  Each test gives the server a handler that decides, request by
 * request, what to answer (a reply, a late reply, nothing, half a reply, a
 * close).
 *
 * libuv test style: callbacks count, the test asserts the counts after
 * uv_run() returns, and every test ends with uv_loop_close() == 0.  A run
 * stops by itself: the last expected callback (or a handler, for the tests
 * that drop requests) closes the client and the server; a guard timer of
 * GUARD_MS closes everything and fails the test if that never happens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "http_fake.h"
#include "rpc.h"
#include "rpc_answer.h"
#include "say.h"

#define GUARD_MS  5000
#define MAX_REQ   64
#define MAX_RETRY 64

/* ------------------------------------------------------------------ */
/* Answers                                                             */

/* The echo a correct node gives request element e:
 * {"method": <its method>, "params": <its params>} as its result. */
static json_t *echo_one(const json_t *e)
{
	json_t *o = json_pack("{s:s, s:O, s:{s:O, s:O}}", "jsonrpc", "2.0",
	                      "id", json_object_get(e, "id"), "result",
	                      "method", json_object_get(e, "method"), "params",
	                      json_object_get(e, "params"));

	assert_non_null(o);
	return o;
}

/* Echo of a whole request, batch elements in reverse order when reverse. */
static char *echo_body(const struct hf_req *r, int reverse)
{
	json_t *out;
	char *s;

	assert_non_null(r->json);
	if (json_is_array(r->json)) {
		size_t n = json_array_size(r->json);

		out = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(
			    out, echo_one(json_array_get(
			             r->json, reverse ? n - 1 - i : i)));
	} else {
		out = echo_one(r->json);
	}
	s = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	assert_non_null(s);
	return s;
}

static void reply_echo(struct hf_conn *c, const struct hf_req *r)
{
	char *s = echo_body(r, 0);

	hf_reply(c, 200, NULL, s);
	free(s);
}

static json_int_t req_id(const struct hf_req *r)
{
	json_t *id = json_object_get(r->json, "id");

	assert_true(json_is_integer(id));
	return json_integer_value(id);
}

/* ------------------------------------------------------------------ */
/* Fixture                                                             */

static struct fx {
	uv_loop_t loop;
	struct hf_server srv;
	hj_rpc *rpc;
	uv_timer_t guard;
	int guard_fired;
	int finished;
	unsigned closed; /* hj_rpc_close's done */
	unsigned expect; /* callbacks that end the run */
	unsigned ncb, nerr;
	char err[HJ_ERRLEN];
	json_t *result[MAX_REQ];
	unsigned nretry;
	unsigned retry_attempt[MAX_RETRY], retry_delay[MAX_RETRY];
	enum hj_rpc_cause retry_cause[MAX_RETRY];
	char retry_what[MAX_RETRY][HJ_ERRLEN];
} F;

static void on_rpc_closed(void *arg)
{
	assert_ptr_equal(arg, &F);
	F.closed++;
}

static void fx_finish(void)
{
	if (F.finished)
		return;
	F.finished = 1;
	hj_rpc_close(F.rpc, on_rpc_closed, &F);
	hf_server_close(&F.srv);
	uv_close((uv_handle_t *)&F.guard, NULL);
}

static void on_guard(uv_timer_t *t)
{
	(void)t;
	F.guard_fired = 1;
	fx_finish();
}

static void on_retry(void *arg, const hj_rpc_retry *r)
{
	assert_ptr_equal(arg, &F);
	if (F.nretry < MAX_RETRY) {
		F.retry_attempt[F.nretry] = r->attempt;
		F.retry_delay[F.nretry] = r->delay_ms;
		F.retry_cause[F.nretry] = r->cause;
		snprintf(F.retry_what[F.nretry], sizeof F.retry_what[0], "%s",
		         r->what);
	}
	F.nretry++;
}

/* Small limits so that every test takes tens of milliseconds. */
static void fx_opts(hj_rpc_opts *o)
{
	hj_rpc_opts_default(o);
	o->timeout_ms = 2000;
	o->backoff_min_ms = 5;
	o->backoff_max_ms = 20;
	o->max_response = 1 << 20;
	o->on_retry = on_retry;
	o->arg = &F;
}

/* When set, fx_start points the client here instead of at the server. */
static const char *fx_url;

static void fx_start(hj_rpc_opts *o, hf_handler h, unsigned expect)
{
	char url[64], err[HJ_ERRLEN] = "";

	for (unsigned i = 0; i < MAX_REQ; i++)
		json_decref(F.result[i]);
	memset(&F, 0, sizeof F);
	F.expect = expect;
	assert_int_equal(uv_loop_init(&F.loop), 0);
	hf_server_start(&F.srv, &F.loop, h);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", F.srv.port);
	o->url = fx_url != NULL ? fx_url : url;
	if (hj_rpc_new(&F.loop, o, &F.rpc, err, sizeof err) != 0)
		fail_msg("hj_rpc_new: %s", err);
	o->url = NULL;
	assert_int_equal(uv_timer_init(&F.loop, &F.guard), 0);
	assert_int_equal(uv_timer_start(&F.guard, on_guard, GUARD_MS, 0), 0);
}

/* Runs the loop until everything is closed; checks the common ends. */
static void fx_run(void)
{
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(F.guard_fired, 0);
	assert_int_equal(F.closed, 1);
	assert_int_equal(uv_loop_close(&F.loop), 0);
}

static void fx_end(void)
{
	for (unsigned i = 0; i < MAX_REQ; i++) {
		json_decref(F.result[i]);
		F.result[i] = NULL;
	}
}

/* The request index travels in arg. */
static void on_result(void *arg, json_t *result, const char *error)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	F.ncb++;
	if (error != NULL) {
		assert_null(result);
		F.nerr++;
		snprintf(F.err, sizeof F.err, "%s", error);
	} else {
		assert_non_null(result);
		assert_true(i < MAX_REQ);
		assert_null(F.result[i]);
		F.result[i] = json_incref(result);
	}
	if (F.ncb == F.expect)
		fx_finish();
}

static void call(const char *method, json_t *params, unsigned i)
{
	assert_int_equal(
	    hj_rpc_call(F.rpc, method, params, on_result, (void *)(uintptr_t)i),
	    0);
}

/* Result i is the echo of method with params (given as JSON text). */
static void assert_echo(unsigned i, const char *method, const char *params)
{
	json_t *want = json_pack("{s:s, s:o}", "method", method, "params",
	                         json_loads(params, 0, NULL));

	assert_non_null(want);
	assert_non_null(F.result[i]);
	if (!json_equal(F.result[i], want)) {
		char *got = json_dumps(F.result[i], JSON_COMPACT);

		fail_msg("result %u: %s", i, got);
	}
	json_decref(want);
}

static void assert_contains(const char *s, const char *part)
{
	if (strstr(s, part) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", s, part);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

static void h_echo(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)n;
	reply_echo(c, r);
}

static void test_single(void **state)
{
	hj_rpc_opts o;
	char v[256];
	json_t *p;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_echo, 1);
	call("eth_getBlockByNumber", json_pack("[s, b]", "0x10", 1), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	fx_run();

	assert_int_equal(F.ncb, 1);
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 0);
	assert_echo(0, "eth_getBlockByNumber", "[\"0x10\", true]");
	assert_int_equal(F.srv.nreq, 1);
	assert_true(strncmp(F.srv.head[0], "POST / HTTP/1.1\r\n", 17) == 0);
	hf_header(F.srv.head[0], "Content-Type", v, sizeof v);
	assert_string_equal(v, "application/json");
	hf_header(F.srv.head[0], "Expect", v, sizeof v);
	assert_string_equal(v, "");
	hf_header(F.srv.head[0], "Authorization", v, sizeof v);
	assert_string_equal(v, "");
	fx_end();

	/* The body itself: a JSON-RPC 2.0 call, params NULL sent as []. */
	fx_opts(&o);
	fx_start(&o, h_echo, 1);
	call("eth_blockNumber", NULL, 0);
	/* Refused without a call: params stolen, callback never called. */
	p = json_string("not params");
	assert_int_equal(hj_rpc_call(F.rpc, "x", p, on_result, NULL), -EINVAL);
	assert_int_equal(hj_rpc_batch(F.rpc, 0, NULL, NULL, on_result, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	fx_run();
	assert_int_equal(F.ncb, 1);
	assert_echo(0, "eth_blockNumber", "[]");
	fx_end();
}

/* The batch's elements come back reversed. */
static void h_reversed(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char *s = echo_body(r, 1);

	(void)n;
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void test_batch_out_of_order(void **state)
{
	hj_rpc_opts o;
	const char *m[3] = {"m0", "m1", "m2"};
	json_t *p[3];

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_reversed, 1);
	p[0] = json_pack("[i]", 0);
	p[1] = NULL;
	p[2] = json_pack("{s:i}", "k", 2);
	assert_int_equal(hj_rpc_batch(F.rpc, 3, m, p, on_result, NULL), 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(F.srv.nreq, 1);
	assert_true(json_is_array(F.result[0]));
	assert_int_equal(json_array_size(F.result[0]), 3);
	{
		json_t *want =
		    json_loads("[{\"method\":\"m0\",\"params\":[0]},"
		               "{\"method\":\"m1\",\"params\":[]},"
		               "{\"method\":\"m2\",\"params\":{\"k\":2}}]",
		               0, NULL);

		assert_true(json_equal(F.result[0], want));
		json_decref(want);
	}
	fx_end();
}

/* Request n of a batch of 3: a wrong answer per n, the right one at 6. */
static void h_batch_bad(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char *s = echo_body(r, 1);
	json_t *a = json_loads(s, 0, NULL);
	json_t *first = json_array_get(a, 0);

	free(s);
	switch (n) {
	case 0: /* one missing */
		json_array_remove(a, 0);
		break;
	case 1: /* one twice */
		json_array_set(a, 1, first);
		break;
	case 2: /* an id we never sent */
		json_object_set_new(first, "id", json_integer(999999));
		break;
	case 3: /* a JSON-RPC error in one element */
		json_object_del(first, "result");
		json_object_set_new(first, "error",
		                    json_pack("{s:i, s:s}", "code", -32602,
		                              "message", "bad params"));
		break;
	case 4: /* an object, not an array */
		json_incref(first);
		json_decref(a);
		a = first;
		break;
	case 5: /* the whole batch refused, asking us to slow down: not a
	           size limit (those are test_batch_limits') */
		json_decref(a);
		a = json_pack("{s:s, s:n, s:{s:i, s:s}}", "jsonrpc", "2.0",
		              "id", "error", "code", -32005, "message",
		              "request rate exceeded");
		break;
	default:
		break;
	}
	s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void test_batch_bad_ids(void **state)
{
	hj_rpc_opts o;
	const char *m[3] = {"a", "b", "c"};
	json_t *p[3] = {NULL, NULL, NULL};
	static const char *const why[] = {
	    "lacks id",       "repeats id",   "not one of",
	    "JSON-RPC error", "not an array", "batch refused",
	};

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_batch_bad, 1);
	assert_int_equal(hj_rpc_batch(F.rpc, 3, m, p, on_result, NULL), 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.srv.nreq, 7);
	assert_int_equal(F.nretry, 6);
	for (unsigned i = 0; i < 6; i++) {
		assert_contains(F.retry_what[i], "batch of 3 (a, ...)");
		assert_contains(F.retry_what[i], why[i]);
		assert_int_equal(F.retry_attempt[i], i + 1);
	}
	assert_contains(F.retry_what[3], "-32602");
	assert_contains(F.retry_what[3], "bad params");
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(F.retry_cause[i],
		                 i == 3 || i == 5 ? HJ_RPC_CAUSE_NODE_ERROR
		                                  : HJ_RPC_CAUSE_BAD_ANSWER);
	assert_int_equal(json_array_size(F.result[0]), 3);
	fx_end();
}

static void h_500_once(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	if (n == 0)
		hf_reply(c, 500, NULL, "overloaded");
	else
		reply_echo(c, r);
}

static void test_retry_500(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_500_once, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 1);
	assert_int_equal(F.retry_attempt[0], 1);
	assert_contains(F.retry_what[0], "eth_chainId: HTTP 500");
	assert_contains(F.retry_what[0], "overloaded");
	assert_int_equal(F.srv.nreq, 2);
	assert_echo(0, "eth_chainId", "[]");
	fx_end();
}

static void h_500_always(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)r;
	(void)n;
	hf_reply(c, 500, NULL, "still down");
}

/* A budget of 3 attempts: the third failure ends the call with the last
 * failure's words, after 2 retries; the node saw 3 requests. */
static void test_budget_attempts(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	o.max_attempts = 3;
	fx_start(&o, h_500_always, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 1);
	assert_int_equal(F.nretry, 2);
	assert_int_equal(F.srv.nreq, 3);
	assert_contains(F.err, "eth_chainId: gave up after 3 attempts in ");
	assert_contains(F.err, "HTTP 500");
	assert_contains(F.err, "still down");
	fx_end();
}

/* A budget of 60 ms with retries 20 to 40 ms apart (the jitter): the
 * attempt that would start beyond it is not made, so 2 to 4 attempts (the
 * first retry always starts within it), never more. */
static void test_budget_time(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	o.backoff_min_ms = 40;
	o.backoff_max_ms = 40;
	o.give_up_ms = 60;
	fx_start(&o, h_500_always, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 1);
	assert_true(F.srv.nreq >= 2 && F.srv.nreq <= 4);
	assert_int_equal(F.nretry, F.srv.nreq - 1);
	assert_contains(F.err, "eth_chainId: gave up after ");
	fx_end();
}

static void h_429_408(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	if (n == 0)
		hf_reply(c, 429, NULL, "slow down");
	else if (n == 1)
		hf_reply(c, 408, NULL, "");
	else if (n == 2)
		hf_reply(c, 503, "Retry-After: 1\r\n", "");
	else
		reply_echo(c, r);
}

static void test_retry_429(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	o.backoff_max_ms = 60;
	fx_start(&o, h_429_408, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 3);
	assert_contains(F.retry_what[0], "HTTP 429");
	assert_contains(F.retry_what[1], "HTTP 408");
	assert_contains(F.retry_what[2], "HTTP 503");
	/* Backoff alone: 5 then 10 ms with jitter. */
	assert_in_range(F.retry_delay[0], 3, 5);
	assert_in_range(F.retry_delay[1], 5, 10);
	/* Retry-After: 1 (second) is honoured up to backoff_max_ms. */
	assert_int_equal(F.retry_delay[2], 60);
	assert_true(F.srv.req_time[3] - F.srv.reply_time[2] >= 60);
	assert_echo(0, "eth_chainId", "[]");
	fx_end();
}

static void h_401(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)r;
	(void)n;
	hf_reply(c, 401, NULL, "bad credentials");
}

static void test_401_final(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_401, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.ncb, 1);
	assert_int_equal(F.nerr, 1);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(F.srv.nreq, 1);
	assert_contains(F.err, "eth_chainId: HTTP 401");
	assert_contains(F.err, "bad credentials");
	fx_end();
}

/* 413 and 400 say what they likely mean, and only a batch (several calls)
 * is told to ask for fewer blocks at once. */
static void h_413(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)r;
	(void)n;
	hf_reply(c, 413, NULL, "Request Entity Too Large");
}

static void h_400(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)r;
	(void)n;
	hf_reply(c, 400, NULL, "batch too large");
}

static void refused_once(hf_handler h, int batch, const char *want)
{
	hj_rpc_opts o;
	const char *m[3] = {"eth_getBlockByNumber", "eth_getBlockByNumber",
	                    "eth_getBlockByNumber"};
	json_t *p[3] = {json_pack("[s,b]", "0x1", 1),
	                json_pack("[s,b]", "0x2", 1),
	                json_pack("[s,b]", "0x3", 1)};

	fx_opts(&o);
	o.max_inflight = 1;
	fx_start(&o, h, 1);
	if (batch) {
		assert_int_equal(hj_rpc_batch(F.rpc, 3, m, p, on_result, NULL),
		                 0);
	} else {
		call("eth_getBlockByNumber", p[0], 0);
		json_decref(p[1]);
		json_decref(p[2]);
	}
	fx_run();

	assert_int_equal(F.ncb, 1);
	assert_int_equal(F.nerr, 1);
	assert_int_equal(F.nretry, 0);
	/* A batch is refused, then its first call alone. */
	assert_int_equal(F.srv.nreq, batch ? 2 : 1);
	assert_string_equal(F.err, want);
	fx_end();
}

static void test_413_400_final(void **state)
{
	(void)state;
	refused_once(
	    h_413, 1,
	    "batch of 3 (eth_getBlockByNumber, ...), call 1 alone: HTTP 413 "
	    "from the node, not retried (the request or its answer is too "
	    "large for the node or a proxy before it, and this is one "
	    "call: nothing smaller can be asked; raise the endpoint's limit "
	    "or use another endpoint): \"Request Entity Too Large\"");
	refused_once(
	    h_413, 0,
	    "eth_getBlockByNumber: HTTP 413 from the node, not retried "
	    "(the request or its answer is too large for the node or a "
	    "proxy before it, and this is one call: nothing smaller can be "
	    "asked; raise the endpoint's limit or use another endpoint): "
	    "\"Request Entity Too Large\"");
	refused_once(
	    h_400, 1,
	    "batch of 3 (eth_getBlockByNumber, ...), call 1 alone: HTTP 400 "
	    "from the node, not retried (a request it calls bad: check the "
	    "URL's path): \"batch too large\"");
	refused_once(
	    h_400, 0,
	    "eth_getBlockByNumber: HTTP 400 from the node, not retried "
	    "(a request it calls bad: check the URL's path): \"batch "
	    "too large\"");
}

/* ---- Batch limits (rpc.h, "Batches that fit the node") ---- */

/* The node's batch limit in calls, and how it refuses a batch above it
 * (the answer forms of nodes, providers and proxies). */
enum limit_form {
	LF_WHOLE,   /* one error object for the batch (geth: -32600) */
	LF_ITEMS,   /* the calls past the limit each get an error */
	LF_HTTP400, /* HTTP 400 */
	LF_HTTP413, /* HTTP 413 */
	LF_CUT,     /* the answer cut short (a response size cap) */
	LF_NOBATCH, /* any batch refused, even of one (-32600) */
};

static struct {
	enum limit_form form;
	size_t max;      /* calls a batch may hold */
	size_t biggest;  /* the largest batch sent */
	size_t after[8]; /* the largest batch sent after each refusal */
	unsigned refusals;
	unsigned limits; /* on_limit calls */
	size_t limit[16], refused[16];
} L;

static void on_limit(void *arg, const hj_rpc_limit *l)
{
	assert_ptr_equal(arg, &F);
	assert_non_null(l->method);
	assert_true((l->refused == 0) == (l->why == NULL));
	if (L.limits < 16) {
		L.limit[L.limits] = l->limit;
		L.refused[L.limits] = l->refused;
	}
	L.limits++;
}

static void h_limited(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	size_t calls = json_is_array(r->json) ? json_array_size(r->json) : 0;
	char *s = echo_body(r, 0);
	json_t *a;

	(void)n;
	if (calls > L.biggest)
		L.biggest = calls;
	if (L.refusals > 0 && L.refusals <= 8 &&
	    calls > L.after[L.refusals - 1])
		L.after[L.refusals - 1] = calls;
	if (calls <= L.max && !(L.form == LF_NOBATCH && calls > 0)) {
		hf_reply(c, 200, NULL, s);
		free(s);
		return;
	}
	L.refusals++;
	switch (L.form) {
	case LF_WHOLE:
	case LF_NOBATCH:
		hf_reply(c, 200, NULL,
		         "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{"
		         "\"code\":-32600,\"message\":\"batch too large\"}}");
		break;
	case LF_ITEMS:
		a = json_loads(s, 0, NULL);
		for (size_t i = L.max; i < calls; i++) {
			json_t *e = json_array_get(a, i);

			json_object_del(e, "result");
			json_object_set_new(
			    e, "error",
			    json_pack("{s:i, s:s}", "code", -32005, "message",
			              "batch size too large, max 2"));
		}
		free(s);
		s = json_dumps(a, JSON_COMPACT);
		json_decref(a);
		hf_reply(c, 200, NULL, s);
		break;
	case LF_HTTP400:
		hf_reply(c, 400, NULL, "too many calls");
		break;
	case LF_HTTP413:
		hf_reply(c, 413, NULL, "Request Entity Too Large");
		break;
	case LF_CUT: {
		/* The whole length announced, half the body sent. */
		char *raw = malloc(strlen(s) + 200);
		int h;

		assert_non_null(raw);
		h = snprintf(raw, strlen(s) + 200,
		             "HTTP/1.1 200 OK\r\nContent-Type: "
		             "application/json\r\nContent-Length: %zu\r\n\r\n"
		             "%.*s",
		             strlen(s), (int)(strlen(s) / 2), s);
		hf_send_raw(c, raw, (size_t)h, 1);
		free(raw);
		break;
	}
	}
	free(s);
}

static void limited_batch(enum limit_form form, size_t max, size_t n)
{
	hj_rpc_opts o;
	const char *m[16];
	json_t *p[16];
	char q[2 + 16 + 1]; /* "0x" and a size_t in hex */

	assert_true(n <= 16);
	memset(&L, 0, sizeof L);
	L.form = form;
	L.max = max;
	fx_opts(&o);
	o.on_limit = on_limit;
	fx_start(&o, h_limited, 1);
	for (size_t i = 0; i < n; i++) {
		m[i] = "eth_getTransactionReceipt";
		snprintf(q, sizeof q, "0x%zx", i);
		p[i] = json_pack("[s]", q);
	}
	assert_int_equal(hj_rpc_batch(F.rpc, n, m, p, on_result, NULL), 0);
	fx_run();

	/* Every result, in order, with no retry: a refused batch is asked
	 * again at once in parts. */
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(json_array_size(F.result[0]), n);
	for (size_t i = 0; i < n; i++) {
		snprintf(q, sizeof q, "0x%zx", i);
		assert_string_equal(
		    json_string_value(json_array_get(
		        json_object_get(json_array_get(F.result[0], i),
		                        "params"),
		        0)),
		    q);
	}
	fx_end();
}

static void test_batch_limits(void **state)
{
	static const enum limit_form forms[] = {LF_WHOLE, LF_ITEMS, LF_HTTP400,
	                                        LF_HTTP413, LF_CUT};

	(void)state;
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		/* 7 calls, 2 at most: refused at 7, at 3 (7/2), then parts
		 * of 1 (3/2) pass: the limit is 1, then... */
		limited_batch(forms[f], 2, 7);
		assert_true(L.refusals >= 2);
		assert_true(L.limits >= 2);
		assert_int_equal(L.refused[0], 7);
		assert_int_equal(L.limit[0], 3);
		assert_int_equal(L.limit[L.limits - 1], 1);
		assert_true(L.after[L.refusals - 1] <= 1);
	}
	/* A node that takes no batch: single calls. */
	limited_batch(LF_NOBATCH, 0, 5);
	assert_int_equal(L.limit[L.limits - 1], 1);
	assert_true(L.after[L.refusals - 1] == 0);
	/* A caller's batch of one, to a node that takes no batch: the call
	 * plain. */
	limited_batch(LF_NOBATCH, 0, 1);
	assert_int_equal(L.refusals, 1);
	assert_int_equal(L.limits, 1);
	assert_int_equal(L.limit[0], 1);
	assert_int_equal(L.refused[0], 1);
}

/* The limit is remembered: later batches go in parts at once; it grows
 * back after 32 whole parts, never to the size refused (for 1,024). */
static unsigned learn_left;

static void on_learn(void *arg, json_t *result, const char *error)
{
	(void)arg;
	assert_null(error);
	assert_int_equal(json_array_size(result), 8);
	F.ncb++;
	if (--learn_left == 0)
		fx_finish();
}

static void test_batch_limit_kept(void **state)
{
	hj_rpc_opts o;

	(void)state;
	memset(&L, 0, sizeof L);
	L.form = LF_WHOLE;
	L.max = 3;
	fx_opts(&o);
	o.on_limit = on_limit;
	o.max_inflight = 1;
	fx_start(&o, h_limited, 1000);
	learn_left = 30;
	for (unsigned b = 0; b < learn_left; b++) {
		const char *m[8];
		json_t *p[8];

		for (size_t i = 0; i < 8; i++) {
			m[i] = "eth_getBlockByNumber";
			p[i] = json_pack("[s,b]", "0x1", 0);
		}
		assert_int_equal(hj_rpc_batch(F.rpc, 8, m, p, on_learn, NULL),
		                 0);
	}
	fx_run();

	assert_int_equal(F.ncb, 30);
	/* 8 refused: 4; 4 refused: 2; 32 parts of 2 pass: 3 (never 4). */
	assert_int_equal(L.refusals, 2);
	assert_int_equal(L.limits, 3);
	assert_int_equal(L.limit[0], 4);
	assert_int_equal(L.refused[0], 8);
	assert_int_equal(L.limit[1], 2);
	assert_int_equal(L.refused[1], 4);
	assert_int_equal(L.limit[2], 3);
	assert_int_equal(L.refused[2], 0);
	assert_int_equal(L.biggest, 8);
	assert_true(L.after[1] <= 3);
	fx_end();
}

/* A batch the node cannot answer in time goes in smaller parts; a single
 * call is retried. */
static void h_slow_batches(struct hf_conn *c, const struct hf_req *r,
                           unsigned n)
{
	(void)n;
	if (json_is_array(r->json) && json_array_size(r->json) > 2)
		return; /* never answered: the client's timeout */
	reply_echo(c, r);
}

static void test_batch_timeout(void **state)
{
	hj_rpc_opts o;
	const char *m[4] = {"a", "a", "a", "a"};
	json_t *p[4] = {NULL, NULL, NULL, NULL};

	(void)state;
	memset(&L, 0, sizeof L);
	fx_opts(&o);
	o.timeout_ms = 200;
	o.on_limit = on_limit;
	fx_start(&o, h_slow_batches, 1);
	assert_int_equal(hj_rpc_batch(F.rpc, 4, m, p, on_result, NULL), 0);
	fx_run();
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(json_array_size(F.result[0]), 4);
	assert_int_equal(L.limits, 1);
	assert_int_equal(L.limit[0], 2);
	assert_int_equal(L.refused[0], 4);
	fx_end();
}

/* max_batch bounds every batch, with no refusal needed. */
static void test_max_batch(void **state)
{
	hj_rpc_opts o;
	const char *m[10];
	json_t *p[10];

	(void)state;
	memset(&L, 0, sizeof L);
	L.form = LF_WHOLE;
	L.max = 4;
	fx_opts(&o);
	o.on_limit = on_limit;
	o.max_batch = 4;
	fx_start(&o, h_limited, 1);
	for (size_t i = 0; i < 10; i++) {
		m[i] = "eth_getBlockByNumber";
		p[i] = json_pack("[s,b]", "0x1", 0);
	}
	assert_int_equal(hj_rpc_batch(F.rpc, 10, m, p, on_result, NULL), 0);
	fx_run();
	assert_int_equal(F.nerr, 0);
	assert_int_equal(json_array_size(F.result[0]), 10);
	assert_int_equal(F.srv.nreq, 3);
	assert_int_equal(L.biggest, 4);
	assert_int_equal(L.refusals, 0);
	assert_int_equal(L.limits, 0);
	fx_end();
}

/* One call refused as too large: nothing smaller to ask, a final error;
 * a rate limit in the same words is waited out instead. */
static void h_one_too_large(struct hf_conn *c, const struct hf_req *r,
                            unsigned n)
{
	char body[200];

	snprintf(body, sizeof body,
	         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":"
	         "%d,\"message\":\"%s\"}}",
	         (long long)req_id(r), n == 0 ? -32005 : -32003,
	         n == 0 ? "rate limit exceeded" : "response too large");
	hf_reply(c, 200, NULL, body);
}

static void test_one_call_too_large(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_one_too_large, 1);
	call("eth_getBlockByNumber", NULL, 0);
	fx_run();
	assert_int_equal(F.nretry, 1);
	assert_int_equal(F.retry_cause[0], HJ_RPC_CAUSE_NODE_ERROR);
	assert_int_equal(F.nerr, 1);
	assert_contains(F.err, "response too large");
	assert_contains(F.err, "one call is refused as too large: nothing "
	                       "smaller can be asked");
	fx_end();
}

/* The text of a size or batch limit, not of a rate. */
static void test_limit_text(void **state)
{
	(void)state;
	assert_true(hj_rpc__limit_text("batch size too large, max 10"));
	assert_true(hj_rpc__limit_text("batch too large"));
	assert_true(hj_rpc__limit_text("Batch limit exceeded"));
	assert_true(hj_rpc__limit_text("response too large"));
	assert_true(hj_rpc__limit_text("Request Entity Too Large"));
	assert_false(hj_rpc__limit_text("rate limit exceeded"));
	assert_false(hj_rpc__limit_text("daily request count exceeded, "
	                                "request rate limited"));
	assert_false(hj_rpc__limit_text("Your app has exceeded its compute "
	                                "units per second capacity"));
	assert_false(hj_rpc__limit_text("Too many requests"));
	assert_false(hj_rpc__limit_text("header not found"));
	assert_false(hj_rpc__limit_text(NULL));
	/* Every cause has its own word (a metric's label). */
	for (int c = 0; c < HJ_RPC_CAUSES; c++) {
		assert_non_null(hj_rpc_cause_name(c));
		assert_string_not_equal(hj_rpc_cause_name(c), "?");
		for (int d = 0; d < c; d++)
			assert_string_not_equal(hj_rpc_cause_name(c),
			                        hj_rpc_cause_name(d));
	}
	assert_string_equal(hj_rpc_cause_name(HJ_RPC_CAUSE_TLS), "tls");
	assert_string_equal(hj_rpc_cause_name(HJ_RPC_CAUSES), "?");
}

/* Envelopes that are not JSON-RPC answers to our request, then a good one
 * in the JSON-RPC 1.0 form ("error": null, no "jsonrpc"). */
static void h_bad_envelope(struct hf_conn *c, const struct hf_req *r,
                           unsigned n)
{
	char body[256];
	json_int_t id = req_id(r);

	switch (n) {
	case 0:
		hf_reply(c, 200, NULL, "not json");
		break;
	case 1:
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":1}",
		         (long long)id + 1);
		hf_reply(c, 200, NULL, body);
		break;
	case 2:
		hf_reply(c, 200, NULL, "[]");
		break;
	case 3:
		snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%lld}",
		         (long long)id);
		hf_reply(c, 200, NULL, body);
		break;
	case 4:
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"1.5\",\"id\":%lld,\"result\":1}",
		         (long long)id);
		hf_reply(c, 200, NULL, body);
		break;
	case 5:
		hf_reply(c, 200, NULL, "");
		break;
	default:
		snprintf(body, sizeof body,
		         "{\"id\":%lld,\"result\":\"0x7a69\",\"error\":null}",
		         (long long)id);
		hf_reply(c, 200, NULL, body);
		break;
	}
}

static void test_invalid_json(void **state)
{
	hj_rpc_opts o;
	static const char *const why[] = {
	    "not JSON", "does not match", "not a JSON-RPC object",
	    "neither",  "not \"2.0\"",    "not JSON",
	};

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_bad_envelope, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 6);
	for (unsigned i = 0; i < 6; i++)
		assert_contains(F.retry_what[i], why[i]);
	assert_string_equal(json_string_value(F.result[0]), "0x7a69");
	fx_end();
}

static void h_rpc_error(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char body[256];

	if (n == 0) {
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":"
		         "-32000,\"message\":\"header not found\"}}",
		         (long long)req_id(r));
		hf_reply(c, 200, NULL, body);
	} else if (n == 1) {
		/* A null result is a result (an unknown block). */
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":null}",
		         (long long)req_id(r));
		hf_reply(c, 200, NULL, body);
	}
}

static void test_rpc_error(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_rpc_error, 1);
	call("eth_getBlockByNumber", json_pack("[s, b]", "0x99", 0), 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 1);
	assert_contains(F.retry_what[0],
	                "eth_getBlockByNumber: JSON-RPC error -32000");
	assert_contains(F.retry_what[0], "header not found");
	assert_true(json_is_null(F.result[0]));
	fx_end();
}

/* The node's bytes in an error member without a message, in "jsonrpc" and
 * in the id: each message quotes them escaped (DEL included), then the
 * answer is right. */
static void h_del(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char body[256];
	long long id = (long long)req_id(r);

	if (n == 0)
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":"
		         "-32000,\"data\":\"a\x7f"
		         "b\"}}",
		         id);
	else if (n == 1)
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2\x7f\",\"id\":%lld,\"result\":1}",
		         id);
	else if (n == 2)
		snprintf(body, sizeof body,
		         "{\"id\":\"%lld\x7f\",\"result\":1}", id);
	else
		snprintf(body, sizeof body, "{\"id\":%lld,\"result\":1}", id);
	hf_reply(c, 200, NULL, body);
}

static void test_printable_messages(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_del, 1);
	call("eth_chainId", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 3);
	assert_contains(F.retry_what[0], "JSON-RPC error {\"code\":-32000");
	assert_contains(F.retry_what[1], "\"jsonrpc\": \"2\\u007f\"");
	assert_contains(F.retry_what[2], "\\u007f\" does not match");
	for (unsigned i = 0; i < 3; i++) {
		assert_contains(F.retry_what[i], "\\u007f");
		for (const char *p = F.retry_what[i]; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
	}
	assert_int_equal(json_integer_value(F.result[0]), 1);
	fx_end();
}

/* hj_rpc__answer at the top of the id range (ids are a counter from 1:
 * out of reach of a client, not of the function): the range a foreign id
 * is outside of is named without overflowing, and a right answer passes. */
static void test_answer_top_ids(void **state)
{
	const json_int_t id0 = INT64_MAX - 2;
	char msg[HJ_ERRLEN], body[256];
	json_t *res = NULL, *err = NULL;
	enum hj_rpc__why why;

	(void)state;
	snprintf(body, sizeof body, "[{\"id\":1,\"result\":1}]");
	assert_int_equal(hj_rpc__answer(body, strlen(body), id0, 3, 1, &res,
	                                &err, &why, msg, sizeof msg),
	                 -1);
	assert_null(res);
	assert_null(err);
	assert_contains(msg, "has id 1, not one of "
	                     "9223372036854775805..9223372036854775807");
	snprintf(body, sizeof body,
	         "[{\"id\":%lld,\"result\":2},{\"id\":%lld,\"result\":0},"
	         "{\"id\":%lld,\"result\":1}]",
	         (long long)INT64_MAX, (long long)id0,
	         (long long)(INT64_MAX - 1));
	assert_int_equal(hj_rpc__answer(body, strlen(body), id0, 3, 1, &res,
	                                &err, &why, msg, sizeof msg),
	                 0);
	assert_int_equal(json_array_size(res), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(json_integer_value(json_array_get(res, i)),
		                 (json_int_t)i);
	json_decref(res);
}

#define LIMIT 1000

/* A valid answer of exactly len bytes: the result is a padded string. */
static char *sized_answer(const struct hf_req *r, size_t len)
{
	char head[64], *s = malloc(len + 1);
	int h = snprintf(head, sizeof head, "{\"id\":%lld,\"result\":\"",
	                 (long long)req_id(r));

	assert_non_null(s);
	assert_true(len > (size_t)h + 2);
	memcpy(s, head, (size_t)h);
	memset(s + h, 'x', len - (size_t)h - 2);
	memcpy(s + len - 2, "\"}", 3);
	return s;
}

static void h_too_big(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char *s;

	if (n == 0) { /* Content-Length announces too much */
		s = sized_answer(r, 2 * LIMIT);
		hf_reply(c, 200, NULL, s);
	} else if (n == 1) { /* chunked: found while reading */
		char *raw;
		int h;

		s = sized_answer(r, 2 * LIMIT);
		raw = malloc(3 * LIMIT);
		assert_non_null(raw);
		h = snprintf(raw, 3 * LIMIT,
		             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		             "\r\n%x\r\n%s\r\n0\r\n\r\n",
		             2 * LIMIT, s);
		hf_send_raw(c, raw, (size_t)h, 0);
		free(raw);
	} else { /* exactly the limit is fine */
		s = sized_answer(r, LIMIT);
		hf_reply(c, 200, NULL, s);
	}
	free(s);
}

/* A batch's answer is too big; each call's alone is exactly the limit. */
static void h_too_big_batch(struct hf_conn *c, const struct hf_req *r,
                            unsigned n)
{
	char *s;

	(void)n;
	if (json_is_array(r->json)) {
		char *raw, *big = malloc(3 * LIMIT);
		int h;

		assert_non_null(big);
		memset(big, 'x', 3 * LIMIT - 1);
		big[3 * LIMIT - 1] = '\0';
		raw = malloc(4 * LIMIT);
		assert_non_null(raw);
		h = snprintf(raw, 4 * LIMIT,
		             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		             "\r\n%x\r\n%s\r\n0\r\n\r\n",
		             3 * LIMIT - 1, big);
		hf_send_raw(c, raw, (size_t)h, 0);
		free(raw);
		free(big);
		return;
	}
	s = sized_answer(r, LIMIT);
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void test_too_big(void **state)
{
	hj_rpc_opts o;
	char want[64];

	(void)state;
	fx_opts(&o);
	o.max_response = LIMIT;
	fx_start(&o, h_too_big, 1);
	call("eth_getBlockByNumber", NULL, 0);
	fx_run();

	/* One call whose answer is above the limit: nothing smaller can be
	 * asked, so it is a final error that says which setting to raise. */
	assert_int_equal(F.nerr, 1);
	assert_int_equal(F.nretry, 0);
	snprintf(want, sizeof want, "max_response (%d bytes)", LIMIT);
	assert_contains(F.err, want);
	assert_contains(F.err, "raise rpc_max_response");
	assert_contains(F.err, "nothing smaller can be asked");
	fx_end();

	/* Found while reading (chunked), and exactly the limit passes: as
	 * parts of a batch of three, whose whole answer is too big. */
	fx_opts(&o);
	o.max_response = LIMIT;
	fx_start(&o, h_too_big_batch, 1);
	{
		const char *m[3] = {"a", "b", "c"};
		json_t *p[3] = {NULL, NULL, NULL};

		assert_int_equal(hj_rpc_batch(F.rpc, 3, m, p, on_result, NULL),
		                 0);
	}
	fx_run();
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(json_array_size(F.result[0]), 3);
	fx_end();
}

static void h_silent_once(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	if (n > 0)
		reply_echo(c, r);
}

static void test_timeout(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	o.timeout_ms = 100;
	fx_start(&o, h_silent_once, 1);
	call("eth_blockNumber", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 1);
	assert_contains(F.retry_what[0], "timeout 100 ms");
	assert_int_equal(F.srv.nreq, 2);
	/* Not retried before the timeout: curl's clock starts a little
	 * before the server's (cached, millisecond) one sees the request. */
	assert_true(F.srv.req_time[1] - F.srv.req_time[0] >=
	            95 + F.retry_delay[0]);
	/* The connection that timed out was not reused. */
	assert_int_equal(F.srv.nconns, 2);
	assert_echo(0, "eth_blockNumber", "[]");
	fx_end();
}

static void h_cut(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	static const char part[] = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
	                           "\r\n{\"jsonrpc\":";

	if (n == 0)
		hf_send_raw(c, part, sizeof part - 1, 1); /* then closes */
	else if (n == 1)
		hf_conn_close(c); /* nothing at all */
	else
		reply_echo(c, r);
}

static void test_closed_mid_response(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_cut, 1);
	call("eth_blockNumber", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 2);
	assert_int_equal(F.retry_attempt[1], 2);
	assert_int_equal(F.srv.nreq, 3);
	assert_echo(0, "eth_blockNumber", "[]");
	fx_end();
}

/* Each answer starts the next call. */
static void on_chain(void *arg, json_t *result, const char *error)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	on_result(arg, result, error);
	if (i + 1 < F.expect)
		assert_int_equal(hj_rpc_call(F.rpc, "eth_blockNumber", NULL,
		                             on_chain,
		                             (void *)(uintptr_t)(i + 1)),
		                 0);
}

static void test_keepalive(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_echo, 5);
	assert_int_equal(hj_rpc_call(F.rpc, "eth_blockNumber", NULL, on_chain,
	                             (void *)(uintptr_t)0),
	                 0);
	fx_run();

	assert_int_equal(F.ncb, 5);
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.srv.nreq, 5);
	assert_int_equal(F.srv.nconns, 1);
	for (unsigned i = 0; i < 5; i++)
		assert_echo(i, "eth_blockNumber", "[]");
	fx_end();
}

static void h_slow(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char *s = echo_body(r, 0);

	(void)n;
	hf_reply_later(c, 30, 200, s);
	free(s);
}

static void test_max_inflight(void **state)
{
	hj_rpc_opts o;
	char m[8][8];

	(void)state;
	fx_opts(&o);
	o.max_inflight = 2;
	fx_start(&o, h_slow, 7);
	for (unsigned i = 0; i < 7; i++) {
		snprintf(m[i], sizeof m[i], "m%u", i);
		call(m[i], NULL, i);
	}
	assert_int_equal(hj_rpc_pending(F.rpc), 7);
	fx_run();

	assert_int_equal(F.ncb, 7);
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.srv.max_outstanding, 2);
	/* The queue is first in, first out. */
	for (unsigned i = 0; i < 7; i++) {
		assert_string_equal(F.srv.method[i], m[i]);
		assert_echo(i, m[i], "[]");
	}
	/* Two connections at once, both kept alive. */
	assert_int_equal(F.srv.nconns, 2);
	fx_end();
}

#define FAILS 8

static void h_500_many(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	if (n < FAILS)
		hf_reply(c, 502, NULL, "");
	else
		reply_echo(c, r);
}

static void test_backoff(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	/* 10, 20, 40, then the cap, which is not a doubling of the minimum */
	o.backoff_min_ms = 10;
	o.backoff_max_ms = 50;
	fx_start(&o, h_500_many, 1);
	call("eth_blockNumber", NULL, 0);
	fx_run();

	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, FAILS);
	for (unsigned k = 0; k < FAILS; k++) {
		unsigned base = 10u << k;

		if (base > 50)
			base = 50;
		assert_int_equal(F.retry_attempt[k], k + 1);
		/* [50%, 100%] of min * 2^k capped at max */
		assert_in_range(F.retry_delay[k] * 2, base, base * 2);
		/* and the client really waited that long */
		assert_true(F.srv.req_time[k + 1] - F.srv.reply_time[k] >=
		            F.retry_delay[k]);
	}
	assert_echo(0, "eth_blockNumber", "[]");
	fx_end();
}

static void test_auth(void **state)
{
	hj_rpc_opts o;
	char v[256];

	(void)state;
	fx_opts(&o);
	o.user = "alice";
	o.password = "s3cret";
	fx_start(&o, h_echo, 1);
	call("eth_chainId", NULL, 0);
	fx_run();
	assert_int_equal(F.nerr, 0);
	hf_header(F.srv.head[0], "Authorization", v, sizeof v);
	assert_string_equal(v, "Basic YWxpY2U6czNjcmV0"); /* alice:s3cret */
	fx_end();

	fx_opts(&o);
	o.bearer = "tok.en-123";
	fx_start(&o, h_echo, 1);
	call("eth_chainId", NULL, 0);
	fx_run();
	assert_int_equal(F.nerr, 0);
	hf_header(F.srv.head[0], "Authorization", v, sizeof v);
	assert_string_equal(v, "Bearer tok.en-123");
	hf_header(F.srv.head[0], "Content-Type", v, sizeof v);
	assert_string_equal(v, "application/json");
	fx_end();
}

/* A Bitcoin Core-style cookie: read before the first request, read again
 * after a 401 (the node restarted with a new one), retried while missing;
 * refused again as it was, the end. */
static char cookie_path[64];

static void write_cookie(const char *text)
{
	FILE *f = fopen(cookie_path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void h_cookie(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char v[256];

	hf_header(r->head, "Authorization", v, sizeof v);
	if (n == 0) {
		assert_string_equal(v, "Basic X19jb29raWVfXzpvbmU=");
		write_cookie("__cookie__:two\n"); /* the node restarts */
		hf_reply(c, 401, NULL, "");
		return;
	}
	assert_string_equal(v, "Basic X19jb29raWVfXzp0d28="); /* :two */
	reply_echo(c, r);
}

static void test_cookie(void **state)
{
	hj_rpc_opts o;
	char err[HJ_ERRLEN];
	hj_rpc *bad;

	(void)state;
	snprintf(cookie_path, sizeof cookie_path, "/tmp/hj-cookie-%d",
	         (int)getpid());
	write_cookie("__cookie__:one"); /* no newline: both forms are read */
	fx_opts(&o);
	o.cookie_file = cookie_path;
	fx_start(&o, h_cookie, 1);
	call("getblockcount", NULL, 0);
	fx_run();
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.nretry, 1);
	assert_contains(F.retry_what[0], "HTTP 401");
	assert_contains(F.retry_what[0], "reading the cookie file");
	assert_echo(0, "getblockcount", "[]");
	fx_end();

	/* Missing, then malformed: retried, and the message says which
	 * file and what to set; no request reaches the node. */
	unlink(cookie_path);
	fx_opts(&o);
	o.cookie_file = cookie_path;
	o.backoff_min_ms = 1;
	o.backoff_max_ms = 2;
	fx_start(&o, h_echo, 1);
	call("getblockcount", NULL, 0);
	while (F.nretry < 2)
		uv_run(&F.loop, UV_RUN_ONCE);
	assert_int_equal(F.srv.nreq, 0);
	assert_contains(F.retry_what[0], "cannot read the cookie file");
	assert_contains(F.retry_what[0], cookie_path);
	assert_contains(F.retry_what[0], "rpc_cookie_file");
	write_cookie("no colon here\n");
	while (F.nretry < 4)
		uv_run(&F.loop, UV_RUN_ONCE);
	assert_contains(F.retry_what[3], "does not hold one line");
	assert_int_equal(F.srv.nreq, 0);
	write_cookie("__cookie__:one\n");
	fx_run();
	assert_int_equal(F.nerr, 0);
	assert_int_equal(F.srv.nreq, 1);
	fx_end();
	unlink(cookie_path);

	/* A cookie the node refuses, still the file's when read again: not
	 * this node's; the call ends after one retry. */
	write_cookie("__cookie__:wrong\n");
	fx_opts(&o);
	o.cookie_file = cookie_path;
	o.backoff_min_ms = 1;
	o.backoff_max_ms = 2;
	fx_start(&o, h_401, 1);
	call("getblockcount", NULL, 0);
	fx_run();
	assert_int_equal(F.nerr, 1);
	assert_int_equal(F.nretry, 1);
	assert_int_equal(F.srv.nreq, 1);
	assert_contains(F.err, "not retried: it refuses the cookie file");
	assert_contains(F.err, cookie_path);
	fx_end();
	unlink(cookie_path);

	/* A cookie excludes the other ways to authenticate. */
	fx_opts(&o);
	o.url = "http://127.0.0.1:1/";
	o.cookie_file = cookie_path;
	o.user = "alice";
	o.password = "x";
	assert_int_equal(hj_rpc_new(&F.loop, &o, &bad, err, sizeof err),
	                 -EINVAL);
	assert_null(bad);
	assert_contains(err, "cookie file excludes");
}

/* Request 0 fails (its retry waits 10 s), 1 and 2 are never answered,
 * 3 is still queued when the client closes at the third request. */
static void h_close_in_flight(struct hf_conn *c, const struct hf_req *r,
                              unsigned n)
{
	(void)r;
	if (n == 0) {
		hf_reply(c, 500, NULL, "");
	} else if (n == 2) {
		assert_int_equal(F.nretry, 1);
		assert_int_equal(hj_rpc_pending(F.rpc), 4);
		assert_int_equal(F.srv.outstanding, 2);
		fx_finish();
	}
}

static void test_close_in_flight(void **state)
{
	hj_rpc_opts o;
	const char *m[2] = {"a", "b"};
	json_t *p[2] = {json_pack("[i]", 1), json_pack("[i]", 2)};

	(void)state;
	fx_opts(&o);
	o.max_inflight = 2;
	o.backoff_min_ms = 10000;
	o.backoff_max_ms = 10000;
	fx_start(&o, h_close_in_flight, 0);
	call("eth_blockNumber", NULL, 0);
	call("eth_blockNumber", json_pack("[s]", "held"), 1);
	call("eth_blockNumber", NULL, 2);
	assert_int_equal(hj_rpc_batch(F.rpc, 2, m, p, on_result, NULL), 0);
	fx_run();

	assert_int_equal(F.ncb, 0);
	assert_int_equal(F.nretry, 1);
	assert_int_equal(F.srv.nreq, 3);
	fx_end();
}

/* The first answer's callback closes the client; the second, in flight
 * at that moment, never calls back. */
static void h_first_only(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	if (n == 0)
		reply_echo(c, r);
}

static void test_close_from_callback(void **state)
{
	hj_rpc_opts o;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_first_only, 1);
	call("a", NULL, 0);
	call("b", NULL, 1);
	fx_run();

	assert_int_equal(F.ncb, 1);
	assert_int_equal(F.srv.nreq, 2);
	assert_echo(0, "a", "[]");
	fx_end();
}

/* A string param long enough that the echo is parsed on the thread pool
 * (PARSE_AWAY, 32 KiB, in rpc.c). */
static json_t *big_params(char c)
{
	static char s[40000];

	memset(s, c, sizeof s - 1);
	s[sizeof s - 1] = '\0';
	return json_pack("[s]", s);
}

/* Long answers come back whole and in their places, single calls and a
 * batch, several parsed at once; a short one meanwhile too. */
static void test_parse_away(void **state)
{
	const char *m[3] = {"x", "y", "z"};
	json_t *p[3] = {big_params('x'), big_params('y'), json_pack("[]")};
	hj_rpc_opts o;
	json_t *want, *got;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_reversed, 5);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(hj_rpc_call(F.rpc, "big", big_params('a' + i),
		                             on_result, (void *)(uintptr_t)i),
		                 0);
	assert_int_equal(
	    hj_rpc_batch(F.rpc, 3, m, p, on_result, (void *)(uintptr_t)3), 0);
	call("small", NULL, 4);
	fx_run();

	assert_int_equal(F.nerr, 0);
	for (unsigned i = 0; i < 3; i++) {
		want = big_params('a' + i);
		assert_true(
		    json_equal(json_object_get(F.result[i], "params"), want));
		json_decref(want);
	}
	got = F.result[3];
	assert_int_equal(json_array_size(got), 3);
	for (unsigned i = 0; i < 3; i++)
		assert_string_equal(json_string_value(json_object_get(
		                        json_array_get(got, i), "method")),
		                    m[i]);
	want = big_params('y');
	assert_true(json_equal(
	    json_object_get(json_array_get(got, 1), "params"), want));
	json_decref(want);
	assert_echo(4, "small", "[]");
	fx_end();
}

/* The one thread of the pool (main sets UV_THREADPOOL_SIZE=1) is held by
 * a blocker until the client is closed, so the long answer is still
 * waiting to be parsed then: its callback never runs, and the client is
 * freed (done called) only once the parse has come back. */
static uv_sem_t blocker_sem;
static int blocker_done;

static void blocker_work(uv_work_t *w)
{
	(void)w;
	uv_sem_wait(&blocker_sem);
}

static void blocker_after(uv_work_t *w, int status)
{
	(void)w;
	assert_int_equal(status, 0);
	blocker_done = 1;
}

static void on_idle_parsing(uv_idle_t *h)
{
	if (hj_rpc__parsing(F.rpc) == 0)
		return;
	assert_int_equal(F.ncb, 0);
	fx_finish(); /* hj_rpc_close with the answer being parsed */
	assert_int_equal(F.closed, 0);
	uv_close((uv_handle_t *)h, NULL);
	uv_sem_post(&blocker_sem);
}

static void test_close_while_parsing(void **state)
{
	hj_rpc_opts o;
	uv_work_t w;
	uv_idle_t idle;

	(void)state;
	fx_opts(&o);
	fx_start(&o, h_echo, 1);
	assert_int_equal(uv_sem_init(&blocker_sem, 0), 0);
	blocker_done = 0;
	assert_int_equal(
	    uv_queue_work(&F.loop, &w, blocker_work, blocker_after), 0);
	assert_int_equal(uv_idle_init(&F.loop, &idle), 0);
	assert_int_equal(uv_idle_start(&idle, on_idle_parsing), 0);
	assert_int_equal(hj_rpc_call(F.rpc, "big", big_params('q'), on_result,
	                             (void *)(uintptr_t)0),
	                 0);
	fx_run();

	assert_int_equal(F.ncb, 0);
	assert_int_equal(blocker_done, 1);
	uv_sem_destroy(&blocker_sem);
	fx_end();
}

static void test_new_rejects(void **state)
{
	static const struct {
		const char *url, *user, *bearer, *why;
		unsigned bmin, bmax;
	} cases[] = {
	    {"ftp://127.0.0.1/", NULL, NULL, "only http and https", 5, 20},
	    {"http://", NULL, NULL, "bad URL", 5, 20},
	    {"http://127.0.0.1/", "u", "t", "exclude each other", 5, 20},
	    {"http://127.0.0.1/", NULL, "a\r\nX: y", "line break", 5, 20},
	    {"http://127.0.0.1/", NULL, NULL, "backoff_max_ms", 50, 20},
	    {NULL, NULL, NULL, "no URL", 5, 20},
	};
	uv_loop_t loop;

	(void)state;
	assert_int_equal(uv_loop_init(&loop), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hj_rpc_opts o;
		hj_rpc *bad = (hj_rpc *)&o; /* a new client sets it NULL */
		char err[HJ_ERRLEN] = "";

		hj_rpc_opts_default(&o);
		o.url = cases[i].url;
		o.user = cases[i].user;
		o.bearer = cases[i].bearer;
		o.backoff_min_ms = cases[i].bmin;
		o.backoff_max_ms = cases[i].bmax;
		assert_int_equal(hj_rpc_new(&loop, &o, &bad, err, sizeof err),
		                 -EINVAL);
		assert_null(bad);
		assert_contains(err, cases[i].why);
	}
	assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_defaults(void **state)
{
	hj_rpc_opts o;

	(void)state;
	hj_rpc_opts_default(&o);
	assert_int_equal(o.max_response, 64u << 20);
	assert_int_equal(o.timeout_ms, 30000);
	assert_int_equal(o.backoff_min_ms, 250);
	assert_int_equal(o.backoff_max_ms, 30000);
	assert_int_equal(o.max_inflight, 4);
	assert_null(o.url);
	assert_null(o.on_retry);
	assert_int_equal(o.max_attempts, 0);
	assert_int_equal(o.give_up_ms, 0);
}

/* ------------------------------------------------------------------ */
/* hj_rpc_call_x: the node's error answers, one attempt, params as text */

static struct xres {
	unsigned n;
	int ok;
	enum hj_rpc_err_kind kind[8];
	long long code[8];
	char message[8][HJ_ERRLEN];
	char text[8][HJ_ERRLEN];
} X;

static void on_x(void *arg, json_t *result, const hj_rpc_error *e)
{
	unsigned i = X.n++;

	(void)arg;
	assert_true(i < 8);
	if (e == NULL) {
		assert_non_null(result);
		X.ok++;
		assert_null(F.result[i]);
		F.result[i] = json_incref(result);
	} else {
		assert_null(result);
		assert_non_null(e->message);
		assert_non_null(e->text);
		X.kind[i] = e->kind;
		X.code[i] = e->code;
		snprintf(X.message[i], sizeof X.message[i], "%s", e->message);
		snprintf(X.text[i], sizeof X.text[i], "%s", e->text);
	}
	F.ncb++;
	if (F.ncb == F.expect)
		fx_finish();
}

/* What hj_rpc_opts.observe saw. */
static struct obs {
	unsigned n;
	char method[8][64];
	enum hj_rpc_outcome outcome[8];
	uint64_t us[8];
} OB;

static void on_observe(void *arg, const char *method, enum hj_rpc_outcome o,
                       uint64_t us)
{
	assert_ptr_equal(arg, &OB);
	assert_true(OB.n < 8);
	snprintf(OB.method[OB.n], sizeof OB.method[0], "%s", method);
	OB.outcome[OB.n] = o;
	OB.us[OB.n++] = us;
}

/* 502 first, then answers: "boom" with a JSON-RPC error, the rest echoed,
 * the batch's after 20 ms. */
static void h_observe(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char body[128];

	if (n == 0) {
		hf_reply(c, 502, NULL, "");
	} else if (json_is_object(r->json) &&
	           strcmp(json_string_value(json_object_get(r->json, "method")),
	                  "boom") == 0) {
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":"
		         "{\"code\":-5,\"message\":\"no\"}}",
		         (long long)req_id(r));
		hf_reply(c, 200, NULL, body);
	} else if (json_is_array(r->json)) {
		char *s = echo_body(r, 0);

		hf_reply_later(c, 20, 200, s);
		free(s);
	} else {
		reply_echo(c, r);
	}
}

/* Every attempt is observed once, with its method and how it ended; a
 * batch under its first call's method; the time is the attempt's. */
static void test_observe(void **state)
{
	const char *m[2] = {"getblock", "getblockhash"};
	json_t *p[2] = {json_pack("[]"), json_pack("[]")};
	hj_rpc_opts o;

	(void)state;
	memset(&OB, 0, sizeof OB);
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	o.max_inflight = 1;
	o.observe = on_observe;
	o.observe_arg = &OB;
	fx_start(&o, h_observe, 3);
	call("first", NULL, 0);
	assert_int_equal(hj_rpc_call_x(F.rpc, "boom", NULL, NULL,
	                               HJ_RPC_NODE_ERRORS, on_x, NULL),
	                 0);
	assert_int_equal(
	    hj_rpc_batch(F.rpc, 2, m, p, on_result, (void *)(uintptr_t)2), 0);
	fx_run();

	/* The retry's place among the others depends on its backoff: each
	 * method's attempts are checked in their own order. */
	assert_int_equal(OB.n, 4);
	unsigned first = 0, boom = 0, batch = 0;
	for (unsigned i = 0; i < OB.n; i++) {
		if (strcmp(OB.method[i], "first") == 0) {
			assert_int_equal(OB.outcome[i], first++ == 0
			                                    ? HJ_RPC_RETRIED
			                                    : HJ_RPC_OK);
		} else if (strcmp(OB.method[i], "boom") == 0) {
			boom++;
			assert_int_equal(OB.outcome[i], HJ_RPC_ERROR);
		} else {
			batch++;
			assert_string_equal(OB.method[i], "getblock");
			assert_int_equal(OB.outcome[i], HJ_RPC_OK);
			/* Answered 20 ms late, by the loop's clock in whole
			 * milliseconds: up to one early. */
			assert_true(OB.us[i] >= 19000);
		}
	}
	assert_int_equal(first, 2);
	assert_int_equal(boom, 1);
	assert_int_equal(batch, 1);
	assert_string_equal(hj_rpc_outcome_name(HJ_RPC_RETRIED), "retried");
	fx_end();
}

/* Runs the loop until *count reaches n; fails when the guard fires. */
static void run_until(const unsigned *count, unsigned n)
{
	while (*count < n) {
		if (F.finished)
			fail_msg("stopped at %u of %u (retries %u: %s)", *count,
			         n, F.nretry, F.retry_what[0]);
		uv_run(&F.loop, UV_RUN_ONCE);
	}
}

static void xcall(const char *method, const char *text, unsigned flags)
{
	assert_int_equal(
	    hj_rpc_call_x(F.rpc, method, NULL, text, flags, on_x, NULL), 0);
}

/* Bitcoin Core's way: HTTP 500 (404 for an unknown method) with the
 * JSON-RPC 1.0 error in the body; also a 2.0 error in a 200. */
static void h_node_errors(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	char body[256];
	long long id = (long long)req_id(r);

	if (n == 0)
		snprintf(body, sizeof body,
		         "{\"result\":null,\"error\":{\"code\":-6,\"message\":"
		         "\"Insufficient funds\"},\"id\":%lld}",
		         id);
	else if (n == 1)
		snprintf(body, sizeof body,
		         "{\"result\":null,\"error\":{\"code\":-32601,"
		         "\"message\":\"Method not found\"},\"id\":%lld}",
		         id);
	else
		snprintf(body, sizeof body,
		         "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":"
		         "-5,\"message\":\"Invalid or non-wallet transaction "
		         "id\"}}",
		         id);
	hf_reply(c, n == 0 ? 500 : n == 1 ? 404 : 200, NULL, body);
}

static void h_node_error_500(struct hf_conn *c, const struct hf_req *r,
                             unsigned n)
{
	h_node_errors(c, r, 0 * n);
}

static void test_node_errors(void **state)
{
	hj_rpc_opts o;

	(void)state;
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	fx_start(&o, h_node_errors, 3);
	xcall("sendmany", NULL, HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
	/* Sequential: the next call goes out once the first is answered. */
	run_until(&X.n, 1);
	xcall("nosuchmethod", NULL, HJ_RPC_NODE_ERRORS);
	run_until(&X.n, 2);
	xcall("gettransaction", "[\"00\"]", HJ_RPC_NODE_ERRORS);
	fx_run();

	assert_int_equal(X.n, 3);
	assert_int_equal(X.ok, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(F.srv.nreq, 3);
	assert_int_equal(X.kind[0], HJ_RPC_ERR_NODE);
	assert_int_equal(X.code[0], -6);
	assert_string_equal(X.message[0], "Insufficient funds");
	assert_contains(X.text[0], "sendmany: JSON-RPC error -6");
	assert_int_equal(X.kind[1], HJ_RPC_ERR_NODE);
	assert_int_equal(X.code[1], -32601);
	assert_string_equal(X.message[1], "Method not found");
	assert_int_equal(X.kind[2], HJ_RPC_ERR_NODE);
	assert_int_equal(X.code[2], -5);
	assert_string_equal(X.message[2],
	                    "Invalid or non-wallet transaction id");
	fx_end();

	/* Without the flag the same answer is retried, as before. */
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	fx_start(&o, h_node_error_500, 1);
	xcall("sendmany", NULL, 0);
	run_until(&F.srv.nreq, 3);
	assert_int_equal(X.n, 0);
	assert_true(F.nretry >= 2);
	assert_contains(F.retry_what[0], "HTTP 500");
	fx_finish();
	fx_run();
	fx_end();
}

/* Request n: 0 the connection closes before any answer, 1 no answer at all
 * (the client times out), 2 HTTP 503 without a JSON-RPC body, 3 a 200
 * that is not JSON.  None of them may be sent again. */
static void h_once(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)r;
	if (n == 0)
		hf_conn_close(c);
	else if (n == 2)
		hf_reply(c, 503, NULL, "busy");
	else if (n == 3)
		hf_reply(c, 200, NULL, "garbage");
}

static void test_once(void **state)
{
	static const char *const why[] = {"", "timeout 200 ms", "HTTP 503",
	                                  "not JSON"};
	hj_rpc_opts o;

	(void)state;
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	o.timeout_ms = 200;
	fx_start(&o, h_once, 4);
	for (unsigned i = 0; i < 4; i++) {
		xcall("sendmany", "[\"\",{}]",
		      HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
		run_until(&X.n, i + 1);
		assert_int_equal(F.srv.nreq, i + 1);
	}
	fx_run();

	assert_int_equal(X.n, 4);
	assert_int_equal(X.ok, 0);
	assert_int_equal(F.nretry, 0);
	assert_int_equal(F.srv.nreq, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(X.kind[i], HJ_RPC_ERR_UNKNOWN);
		assert_string_equal(X.message[i], "");
		assert_contains(X.text[i], "sendmany: ");
		assert_contains(X.text[i], why[i]);
	}
	fx_end();
}

/*
 * Regression (chain/rpc.c, HJ_RPC_ONCE, fixed by CURLOPT_FRESH_CONNECT): a call
 * on a kept-alive connection that the server closes without a byte of answer.
 * Request 0 is answered and its connection kept; request 1, a sendmany with
 * HJ_RPC_ONCE, goes out on that connection and the server closes it.  libcurl
 * then sends the request again by itself on a fresh connection (lib/transfer.c,
 * Curl_retry_request: "Connection died, retrying a fresh connect"), which
 * it does for any request on a reused connection that got nothing back,
 * POST included, before the client sees a failure: the server receives
 * the sendmany twice, against "at most one attempt reaches the node".
 * (CURLOPT_FRESH_CONNECT or CURLOPT_FORBID_REUSE on such calls would
 * keep libcurl from it.)  Expected: one attempt, HJ_RPC_ERR_UNKNOWN.
 */
static void h_echo_then_close(struct hf_conn *c, const struct hf_req *r,
                              unsigned n)
{
	if (n == 0)
		reply_echo(c, r);
	else
		hf_conn_close(c);
}

static void test_once_reused_connection(void **state)
{
	hj_rpc_opts o;
	unsigned nreq, nconns;

	(void)state;
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	fx_start(&o, h_echo_then_close, 2);
	xcall("getbalance", "[]", HJ_RPC_NODE_ERRORS);
	run_until(&X.n, 1);
	assert_int_equal(X.ok, 1);
	xcall("sendmany", "[\"\",{}]", HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
	run_until(&X.n, 2);
	nreq = F.srv.nreq;
	nconns = F.srv.nconns;
	assert_true(nreq >= 2);
	fx_run();
	fx_end();
	if (nreq != 2)
		fail_msg("a HJ_RPC_ONCE call reached the server %u times "
		         "(%u connections): libcurl sent it again after the "
		         "kept-alive connection closed without an answer",
		         nreq - 1, nconns);
	assert_int_equal(X.ok, 1);
	assert_int_equal(X.kind[1], HJ_RPC_ERR_UNKNOWN);
	assert_contains(X.text[1], "sendmany: ");
	assert_int_equal(F.nretry, 0);
}

/* A 401 is answered before the node runs anything: even a HJ_RPC_ONCE
 * call is sent again (after reading the cookie again). */
static void h_401_then_echo(struct hf_conn *c, const struct hf_req *r,
                            unsigned n)
{
	if (n == 0) {
		write_cookie("__cookie__:two\n"); /* the node restarts */
		hf_reply(c, 401, NULL, "");
	} else {
		reply_echo(c, r);
	}
}

static void test_once_not_sent(void **state)
{
	hj_rpc_opts o;
	char url[64];
	int fd;
	struct sockaddr_in a;
	socklen_t alen = sizeof a;

	(void)state;
	snprintf(cookie_path, sizeof cookie_path, "/tmp/hj-cookie-x-%d",
	         (int)getpid());
	write_cookie("__cookie__:one\n");
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	o.cookie_file = cookie_path;
	fx_start(&o, h_401_then_echo, 1);
	xcall("sendmany", "[1]", HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
	fx_run();
	assert_int_equal(X.ok, 1);
	assert_int_equal(F.srv.nreq, 2);
	assert_int_equal(F.nretry, 1);
	assert_contains(F.retry_what[0], "HTTP 401");
	assert_echo(0, "sendmany", "[1]");
	fx_end();
	unlink(cookie_path);

	/* Nobody listens on the port: no connection, so retried. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd); /* the port is now closed */
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(a.sin_port));
	fx_url = url;
	fx_start(&o, h_echo, 1);
	fx_url = NULL;
	xcall("sendmany", "[2]", HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
	run_until(&F.nretry, 2);
	assert_int_equal(X.n, 0);
	assert_contains(F.retry_what[1], "sendmany: ");
	assert_contains(F.retry_what[1], "onnect");
	fx_finish();
	fx_run();
	fx_end();
}

/* The server sees params exactly as given. */
static char seen_body[1024];

static void h_keep_body(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	(void)n;
	snprintf(seen_body, sizeof seen_body, "%s", r->body);
	reply_echo(c, r);
}

static void test_params_text(void **state)
{
	static const char text[] =
	    "[\"\",{\"rltc1pa\":0.00012345,\"rltc1pb\":84000000.12345678,"
	    "\"rltc1pc\":20999999.99999999},1,\"hashjack:0123456789abcdef:7\"]";
	hj_rpc_opts o;
	json_t *p, *r;
	char *s;

	(void)state;
	memset(&X, 0, sizeof X);
	fx_opts(&o);
	fx_start(&o, h_keep_body, 1);
	/* Refused without a call. */
	p = json_array();
	assert_int_equal(hj_rpc_call_x(F.rpc, "m", p, "[]", 0, on_x, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_call_x(F.rpc, "m", NULL, "1.5", 0, on_x, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_call_x(F.rpc, "m", NULL, "[1,", 0, on_x, NULL),
	                 -EINVAL);
	assert_int_equal(
	    hj_rpc_call_x(F.rpc, "m", NULL, "[] []", 0, on_x, NULL), -EINVAL);
	assert_int_equal(hj_rpc_call_x(F.rpc, NULL, NULL, "[]", 0, on_x, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	xcall("sendmany", text, HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE);
	fx_run();
	assert_int_equal(X.ok, 1);
	assert_non_null(strstr(seen_body, "\"method\":\"sendmany\""));
	s = strstr(seen_body, "\"params\":");
	assert_non_null(s);
	assert_true(strncmp(s + 9, text, sizeof text - 1) == 0);
	assert_string_equal(s + 9 + sizeof text - 1, "}");
	r = json_object_get(F.result[0], "params");
	assert_int_equal(json_array_size(r), 4);
	fx_end();

	/*
	 * Why text: jansson keeps a JSON number with a fraction as a double
	 * and prints it with 17 significant digits, so the amounts above
	 * would not reach the node as written (Bitcoin Core refuses an
	 * amount with more than 8 decimals: "Invalid amount").
	 */
	r = json_loads("0.00012345", JSON_DECODE_ANY, NULL);
	s = json_dumps(r, JSON_ENCODE_ANY);
	assert_string_not_equal(s, "0.00012345");
	free(s);
	json_decref(r);
}

static void test_wallet_url(void **state)
{
	static const struct {
		const char *url, *wallet, *want;
	} ok[] = {
	    {"http://127.0.0.1:9332", "payer",
	     "http://127.0.0.1:9332/wallet/payer"},
	    {"http://127.0.0.1:9332/", "", NULL},
	    {"http://u:p@127.0.0.1:9332/x/y?q=1#f", "a b/c%",
	     "http://u:p@127.0.0.1:9332/wallet/a%20b%2fc%25"},
	    {"https://node.example/rpc/", "h\xc3\xa9-_.~",
	     "https://node.example/wallet/h%c3%a9-_.~"},
	    {"ftp://127.0.0.1/", "w", NULL},
	};
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char *out = (char *)1;
		int rc = hj_rpc_wallet_url(ok[i].url, ok[i].wallet, &out, err,
		                           sizeof err);

		if (ok[i].want == NULL) {
			assert_int_equal(rc, -EINVAL);
			assert_null(out);
			assert_null(strstr(err, "127.0.0.1"));
			continue;
		}
		if (rc != 0)
			fail_msg("%s %s: %s", ok[i].url, ok[i].wallet, err);
		assert_string_equal(out, ok[i].want);
		free(out);
	}
}

int main(void)
{
	/* One thread in libuv's pool: test_close_while_parsing holds it. */
	setenv("UV_THREADPOOL_SIZE", "1", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_new_rejects),
	    cmocka_unit_test(test_single),
	    cmocka_unit_test(test_batch_out_of_order),
	    cmocka_unit_test(test_batch_bad_ids),
	    cmocka_unit_test(test_retry_500),
	    cmocka_unit_test(test_retry_429),
	    cmocka_unit_test(test_budget_attempts),
	    cmocka_unit_test(test_budget_time),
	    cmocka_unit_test(test_401_final),
	    cmocka_unit_test(test_413_400_final),
	    cmocka_unit_test(test_batch_limits),
	    cmocka_unit_test(test_batch_limit_kept),
	    cmocka_unit_test(test_max_batch),
	    cmocka_unit_test(test_batch_timeout),
	    cmocka_unit_test(test_one_call_too_large),
	    cmocka_unit_test(test_limit_text),
	    cmocka_unit_test(test_invalid_json),
	    cmocka_unit_test(test_rpc_error),
	    cmocka_unit_test(test_printable_messages),
	    cmocka_unit_test(test_answer_top_ids),
	    cmocka_unit_test(test_too_big),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_closed_mid_response),
	    cmocka_unit_test(test_keepalive),
	    cmocka_unit_test(test_max_inflight),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_auth),
	    cmocka_unit_test(test_cookie),
	    cmocka_unit_test(test_close_in_flight),
	    cmocka_unit_test(test_close_from_callback),
	    cmocka_unit_test(test_parse_away),
	    cmocka_unit_test(test_observe),
	    cmocka_unit_test(test_close_while_parsing),
	    cmocka_unit_test(test_node_errors),
	    cmocka_unit_test(test_once),
	    cmocka_unit_test(test_once_reused_connection),
	    cmocka_unit_test(test_once_not_sent),
	    cmocka_unit_test(test_params_text),
	    cmocka_unit_test(test_wallet_url),
	};
	static const char *const proxies[] = {
	    "http_proxy",  "HTTP_PROXY", "https_proxy",
	    "HTTPS_PROXY", "all_proxy",  "ALL_PROXY",
	};

	/* The server is local; a proxy from the environment is not. */
	for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
		unsetenv(proxies[i]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
