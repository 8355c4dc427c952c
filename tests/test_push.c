/*
 * The push wake-up (chain/push.h) against scripted nodes on one libuv loop:
 * for EVM the project's own HTTP/WebSocket server (daemon/core/http.h) with a
 * handler of this file's that reads the client's subscription and writes
 * the node's answers and notifications; for the Bitcoin family the tests'
 * scripted HTTP server (http_fake.h) answering waitfornewblock.  Then the
 * readers of the node's answers, with exact values.
 *
 * What is checked: the exact subscription request and long polls; a wake
 * per notification of the subscription and per new hash, none for
 * anything else (junk, another subscription, answers after the first, the
 * same hash); state() once per change; a new session after every failure
 * (closed connection, error answer, refused handshake, no answer, junk
 * long-poll answer, HTTP 500), on a new connection, after the backoff,
 * doubling up to its cap; hj_push_close at any moment, with the loop
 * closing clean.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "http.h"
#include "http_fake.h"
#include "push.h"
#include "say.h"

#define SUBSCRIBE                                                              \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_subscribe\","          \
	"\"params\":[\"newHeads\"]}"
#define SUBSCRIBED "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0xfeed\"}"
#define HEAD_OF(sub)                                                           \
	"{\"jsonrpc\":\"2.0\",\"method\":\"eth_subscription\",\"params\":{"    \
	"\"subscription\":\"" sub "\",\"result\":{\"number\":\"0x10\","        \
	"\"hash\":\"0x0102\"}}}"

#define HASH_A                                                                 \
	"66ac93517fe942da034762267c4f8b9fcbd7cd2e0e0618c388235e24ff342824"
#define HASH_B                                                                 \
	"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"

/* ---- the loop ---- */

static uv_loop_t loop;

static void on_deadline(uv_timer_t *t)
{
	*(int *)t->data = 1;
}

/* Runs the loop until *n >= want, for 10 s at most. */
static void run_until(const int *n, int want)
{
	uv_timer_t t;
	int hit = 0;
	uv_timer_init(&loop, &t);
	t.data = &hit;
	uv_timer_start(&t, on_deadline, 10000, 0);
	while (*n < want && !hit)
		uv_run(&loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	if (*n < want)
		fail_msg("%d of %d within 10 s", *n, want);
}

/* Runs the loop for ms (what must not happen has its chance). */
static void run_for(uint64_t ms)
{
	uv_timer_t t;
	int hit = 0;
	uv_timer_init(&loop, &t);
	t.data = &hit;
	uv_timer_start(&t, on_deadline, ms, 0);
	while (!hit)
		uv_run(&loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
}

/* ---- what the push said ---- */

#define MAX_STATES 16

static struct rec {
	hj_push *p;
	int wakes;
	int nstates;
	int up[MAX_STATES];
	char why[MAX_STATES][HJ_ERRLEN];
	int done;
} R;

static void on_wake(void *arg)
{
	assert_ptr_equal(arg, &R);
	assert_int_equal(R.done, 0);
	R.wakes++;
}

static void on_state(void *arg, int up, const char *why)
{
	assert_ptr_equal(arg, &R);
	assert_true(R.nstates < MAX_STATES);
	/* Only changes are told. */
	if (R.nstates > 0)
		assert_int_not_equal(R.up[R.nstates - 1], up);
	R.up[R.nstates] = up;
	if (up) {
		assert_null(why);
		R.why[R.nstates][0] = 0;
	} else {
		assert_non_null(why);
		for (const char *q = why; *q; q++)
			assert_true(*q >= ' ' && *q <= '~');
		snprintf(R.why[R.nstates], sizeof R.why[0], "%s", why);
	}
	R.nstates++;
}

static void on_done(void *arg)
{
	assert_ptr_equal(arg, &R);
	R.done = 1;
}

static void expect_why(int i, const char *part)
{
	assert_true(i < R.nstates);
	assert_int_equal(R.up[i], 0);
	if (!strstr(R.why[i], part))
		fail_msg("state %d: \"%s\" does not hold \"%s\"", i, R.why[i],
		         part);
}

static void push_close(void)
{
	hj_push_close(R.p, on_done, &R);
	run_until(&R.done, 1);
}

static void loop_down(void)
{
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- EVM: a node of the project's own server ---- */

enum mode {
	M_ANSWER, /* answers the subscription */
	M_ERROR,  /* answers it with an error */
	M_SILENT, /* never answers */
	M_REFUSE, /* refuses the handshake, HTTP 404 */
};

static struct node {
	hj_server *s;
	unsigned port;
	enum mode mode;
	hj_conn *c; /* the open WebSocket */
	int opens;  /* WebSockets accepted (or refused) */
	uint64_t open_at[32];
	int messages;
	char last[256];
	int closes;
	int down;
} N;

static void n_request(void *ctx, hj_conn *c, const hj_server_req *r)
{
	(void)ctx;
	(void)r;
	hj_conn_respond(c, 404, "application/json", "{}", 2);
}

static int n_ws_open(void *ctx, hj_conn *c, const hj_server_req *r)
{
	(void)ctx;
	assert_string_equal(r->path, "/ws");
	if (N.opens < 32)
		N.open_at[N.opens] = uv_now(&loop);
	N.opens++;
	if (N.mode == M_REFUSE) {
		hj_conn_respond(c, 404, "text/plain", "no WebSocket here\n",
		                18);
		return -1;
	}
	return 0;
}

static void n_ws_ready(void *ctx, hj_conn *c)
{
	(void)ctx;
	N.c = c;
}

static void n_ws_message(void *ctx, hj_conn *c, const char *msg, size_t n)
{
	(void)ctx;
	assert_true(n < sizeof N.last);
	memcpy(N.last, msg, n);
	N.last[n] = 0;
	N.messages++;
	if (N.mode == M_ANSWER)
		assert_int_equal(
		    hj_conn_ws_send(c, SUBSCRIBED, strlen(SUBSCRIBED)), 0);
	else if (N.mode == M_ERROR) {
		static const char e[] =
		    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,"
		    "\"message\":\"no \\\"subscriptions\\\" here\"}}";
		assert_int_equal(hj_conn_ws_send(c, e, sizeof e - 1), 0);
	}
}

static void n_ws_close(void *ctx, hj_conn *c)
{
	(void)ctx;
	if (N.c == c)
		N.c = NULL;
	N.closes++;
}

static void n_down(void *arg)
{
	(void)arg;
	N.down = 1;
}

static void node_up(enum mode mode)
{
	hj_server_limits lim;
	hj_server_handler h = {n_request,    n_ws_open,  n_ws_ready,
	                       n_ws_message, n_ws_close, NULL};
	char err[HJ_ERRLEN];
	memset(&N, 0, sizeof N);
	N.mode = mode;
	hj_server_limits_default(&lim);
	assert_int_equal(hj_server_new(&loop, &lim, &h, &N.s), 0);
	assert_non_null(N.s);
	if (hj_server_listen(N.s, "127.0.0.1", 0, &N.port, err, sizeof err))
		fail_msg("%s", err);
}

static void node_down(void)
{
	hj_server_close(N.s, n_down, NULL);
	run_until(&N.down, 1);
}

static void send_text(const char *s)
{
	assert_non_null(N.c);
	assert_int_equal(hj_conn_ws_send(N.c, s, strlen(s)), 0);
}

static void evm_open(unsigned answer_ms, unsigned bmin, unsigned bmax)
{
	char url[100], err[HJ_ERRLEN];
	memset(&R, 0, sizeof R);
	snprintf(url, sizeof url, "ws://127.0.0.1:%u/ws", N.port);
	hj_push_opts o = {.loop = &loop,
	                  .kind = HJ_PUSH_EVM,
	                  .url = url,
	                  .answer_ms = answer_ms,
	                  .backoff_min_ms = bmin,
	                  .backoff_max_ms = bmax,
	                  .wake = on_wake,
	                  .state = on_state,
	                  .arg = &R};
	if (hj_push_new(&o, &R.p, err, sizeof err))
		fail_msg("%s", err);
	/* Nothing from within hj_push_new: callbacks come from the loop. */
	assert_int_equal(R.nstates, 0);
	assert_int_equal(R.wakes, 0);
}

static void test_evm(void **state)
{
	(void)state;
	assert_int_equal(uv_loop_init(&loop), 0);
	node_up(M_ANSWER);
	evm_open(0, 20, 80);

	/* The subscription, byte for byte; its answer: up, and a wake
	 * (a block may have come before push was up). */
	run_until(&R.nstates, 1);
	assert_int_equal(N.messages, 1);
	assert_string_equal(N.last, SUBSCRIBE);
	assert_int_equal(R.up[0], 1);
	assert_int_equal(R.wakes, 1);

	/* A notification of the subscription wakes. */
	send_text(HEAD_OF("0xfeed"));
	run_until(&R.wakes, 2);

	/* Nothing else does, nor ends anything: then one more head, whose
	 * wake comes after all of them (one connection keeps the order). */
	send_text(HEAD_OF("0xfee"));
	send_text(HEAD_OF("0xfeedd"));
	send_text("not JSON");
	send_text("");
	send_text("[1,2,3]");
	send_text("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x2\"}");
	send_text("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}");
	send_text("{\"method\":\"eth_subscription\",\"params\":{"
	          "\"subscription\":\"0xfeed\"}}");
	send_text("{\"method\":\"eth_subscription\",\"params\":{"
	          "\"subscription\":\"0xfeed\",\"result\":null}}");
	send_text("{\"method\":\"eth_subscription\",\"params\":["
	          "\"0xfeed\",{}]}");
	send_text("{\"method\":\"eth_unsubscribe\",\"params\":{"
	          "\"subscription\":\"0xfeed\",\"result\":{}}}");
	send_text("{\"method\":\"eth_subscription\",\"params\":{"
	          "\"subscription\":\"0xfe\\u0000ed\",\"result\":{}}}");
	send_text(HEAD_OF("0xfeed"));
	run_until(&R.wakes, 3);
	run_for(50);
	assert_int_equal(R.wakes, 3);
	assert_int_equal(R.nstates, 1);
	assert_int_equal(N.opens, 1);

	/* The node closes the WebSocket: lost (once), and a new session
	 * subscribes again: back, with a wake. */
	hj_conn_ws_close(N.c, 1001, "restarting");
	run_until(&R.nstates, 3);
	expect_why(1, "ws://127.0.0.1:");
	expect_why(1, "closed by the server (1001: restarting)");
	assert_int_equal(R.up[2], 1);
	assert_int_equal(N.opens, 2);
	assert_int_equal(N.messages, 2);
	assert_string_equal(N.last, SUBSCRIBE);
	assert_int_equal(R.wakes, 4);
	send_text(HEAD_OF("0xfeed"));
	run_until(&R.wakes, 5);

	push_close();
	assert_int_equal(R.nstates, 3);
	node_down();
	loop_down();
}

/* Error answers and refusals: lost once, then sessions again and again,
 * each after the backoff, which doubles up to its cap. */
static void backoff_case(enum mode mode, const char *why)
{
	/* 50, 100, then the cap, 100 ms; uncapped: 200, 400, 800. */
	static const uint64_t want[] = {50, 100, 100, 100, 100};

	assert_int_equal(uv_loop_init(&loop), 0);
	node_up(mode);
	evm_open(0, 50, 100);
	run_until(&N.opens, 6);
	assert_int_equal(R.nstates, 1);
	expect_why(0, why);
	assert_int_equal(R.wakes, 0);
	for (int i = 0; i < 5; i++) {
		uint64_t gap = N.open_at[i + 1] - N.open_at[i];
		if (gap < want[i])
			fail_msg("session %d came %llu ms after the one "
			         "before, before its backoff of %llu ms",
			         i + 2, (unsigned long long)gap,
			         (unsigned long long)want[i]);
	}
	/* The last gap is the cap and a session's own time; uncapped it
	 * would be 800 ms at least.  (The session itself, a few ms, has
	 * 600 ms of room on a loaded machine.) */
	if (N.open_at[5] - N.open_at[4] >= 700)
		fail_msg("the sixth session came %llu ms after the fifth: "
		         "the backoff passed its cap",
		         (unsigned long long)(N.open_at[5] - N.open_at[4]));
	push_close();
	assert_int_equal(R.nstates, 1);
	node_down();
	loop_down();
}

static void test_evm_refused(void **state)
{
	(void)state;
	backoff_case(M_ERROR, "eth_subscribe refused: error -32601: "
	                      "\"no \\\"subscriptions\\\" here\"");
	assert_string_equal(N.last, SUBSCRIBE);
	backoff_case(M_REFUSE, "HTTP 404: no WebSocket here");
	assert_int_equal(N.messages, 0);
}

/* No answer to the subscription within answer_ms: lost, and again. */
static void test_evm_silent(void **state)
{
	(void)state;
	assert_int_equal(uv_loop_init(&loop), 0);
	node_up(M_SILENT);
	evm_open(100, 20, 40);
	run_until(&N.opens, 2);
	assert_int_equal(R.nstates, 1);
	expect_why(0, "no answer to eth_subscribe within 100 ms");
	assert_int_equal(N.messages >= 1, 1);
	push_close();
	node_down();
	loop_down();
}

/* Nothing listens: lost, said once; closed while a session waits for its
 * backoff, and while it connects. */
static void test_evm_nothing(void **state)
{
	uv_tcp_t t;
	struct sockaddr_in a;
	int len = sizeof a;
	(void)state;

	assert_int_equal(uv_loop_init(&loop), 0);
	/* A port just freed: nothing listens there. */
	uv_tcp_init(&loop, &t);
	uv_ip4_addr("127.0.0.1", 0, &a);
	assert_int_equal(uv_tcp_bind(&t, (struct sockaddr *)&a, 0), 0);
	assert_int_equal(uv_tcp_getsockname(&t, (struct sockaddr *)&a, &len),
	                 0);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	memset(&N, 0, sizeof N);
	N.port = ntohs(a.sin_port);
	evm_open(0, 20, 40);
	run_until(&R.nstates, 1);
	expect_why(0, "connection refused");
	run_for(150); /* several sessions: still said once */
	assert_int_equal(R.nstates, 1);
	push_close();
	loop_down();

	assert_int_equal(uv_loop_init(&loop), 0);
	evm_open(0, 20, 40);
	push_close(); /* before the first session */
	assert_int_equal(R.nstates, 0);
	loop_down();
}

/* ---- the Bitcoin family: waitfornewblock on a scripted node ---- */

static struct btc {
	struct hf_server srv;
	int n; /* requests seen */
	long long param[HF_MAX_REQ];
	struct hf_conn *held;
} B;

static void btc_answer(struct hf_conn *c, const struct hf_req *r,
                       const char *result)
{
	char body[400];
	json_t *id = json_object_get(r->json, "id");
	assert_true(json_is_integer(id));
	snprintf(body, sizeof body,
	         "{\"result\":%s,\"error\":null,\"id\":%lld}", result,
	         (long long)json_integer_value(id));
	hf_reply(c, 200, NULL, body);
}

static void btc_handler(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	json_t *params = json_object_get(r->json, "params");
	assert_string_equal(B.srv.method[n], "waitfornewblock");
	assert_true(json_is_array(params));
	assert_int_equal(json_array_size(params), 1);
	assert_true(json_is_integer(json_array_get(params, 0)));
	B.param[n] = json_integer_value(json_array_get(params, 0));
	B.n = (int)n + 1;
	switch (n) {
	case 0: /* the first: the tip at once */
		btc_answer(c, r, "{\"hash\":\"" HASH_A "\",\"height\":5}");
		break;
	case 1: /* the wait ends with the same tip, late (after the wait:
	           the client waits longer) */
	{
		char body[200];
		json_t *id = json_object_get(r->json, "id");
		snprintf(body, sizeof body,
		         "{\"result\":{\"hash\":\"" HASH_A "\",\"height\":5},"
		         "\"error\":null,\"id\":%lld}",
		         (long long)json_integer_value(id));
		hf_reply_later(c, 300, 200, body);
		break;
	}
	case 2: /* a new block, in upper case */
		btc_answer(c, r,
		           "{\"hash\":\"0F9188F13CB7B2C71F2A335E3A4FC328"
		           "BF5BEB436012AFCA590B1A11466E2206\","
		           "\"height\":6}");
		break;
	case 3: /* the same block again: a wait that ended on its own */
		btc_answer(c, r, "{\"hash\":\"" HASH_B "\",\"height\":6}");
		break;
	case 4: /* junk: the session ends */
		btc_answer(c, r, "{\"hash\":\"" HASH_B "0\",\"height\":6}");
		break;
	case 5: /* the next session's first: an error, retried by nobody
	           but the push (a new session) */
		hf_reply(c, 500, NULL,
		         "{\"result\":null,\"error\":{\"code\":-28,"
		         "\"message\":\"Loading block index...\"},\"id\":1}");
		break;
	case 6: /* and the next: up again */
		btc_answer(c, r, "{\"hash\":\"" HASH_B "\",\"height\":6}");
		break;
	default: /* held until the push is closed */
		B.held = c;
		break;
	}
}

static void test_btc(void **state)
{
	hj_rpc_opts ro;
	char url[100], err[HJ_ERRLEN];
	(void)state;

	assert_int_equal(uv_loop_init(&loop), 0);
	memset(&B, 0, sizeof B);
	memset(&R, 0, sizeof R);
	hf_server_start(&B.srv, &loop, btc_handler);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", B.srv.port);
	hj_rpc_opts_default(&ro);
	ro.url = url;
	ro.user = "u";
	ro.password = "p";
	hj_push_opts o = {.loop = &loop,
	                  .kind = HJ_PUSH_BTC,
	                  .rpc = &ro,
	                  .wait_ms = 50,
	                  .backoff_min_ms = 20,
	                  .backoff_max_ms = 40,
	                  .wake = on_wake,
	                  .state = on_state,
	                  .arg = &R};
	assert_int_equal(hj_push_new(&o, &R.p, err, sizeof err), 0);

	/* Up with the first answer, which also wakes. */
	run_until(&R.nstates, 1);
	assert_int_equal(R.up[0], 1);
	assert_int_equal(R.wakes, 1);
	assert_int_equal(B.param[0], 1);
	/* The tip again after the wait: no wake; a new hash: one; the same
	 * again: none; junk: lost. */
	run_until(&R.nstates, 2);
	assert_int_equal(R.wakes, 2);
	expect_why(1, "waitfornewblock: an answer without a block hash");
	for (int i = 1; i <= 4; i++)
		assert_int_equal(B.param[i], 50);
	/* The credentials given. */
	char auth[100];
	hf_header(B.srv.head[1], "Authorization", auth, sizeof auth);
	assert_string_equal(auth, "Basic dTpw");
	/* A new session on a new connection: an HTTP 500 (not said again),
	 * another session, up: a wake. */
	run_until(&R.nstates, 3);
	assert_int_equal(R.up[2], 1);
	assert_int_equal(R.wakes, 3);
	assert_int_equal(B.param[5], 1);
	assert_int_equal(B.param[6], 1);
	assert_int_not_equal(B.srv.req_conn[5], B.srv.req_conn[4]);
	assert_int_not_equal(B.srv.req_conn[6], B.srv.req_conn[5]);
	assert_int_equal(B.srv.req_conn[4], B.srv.req_conn[0]);
	/* Each session waits its backoff: 20 ms, then 40. */
	assert_true(B.srv.req_time[5] - B.srv.req_time[4] >= 20);
	assert_true(B.srv.req_time[6] - B.srv.req_time[5] >= 40);
	run_until(&B.n, 8);
	assert_int_equal(B.param[7], 50);
	assert_non_null(B.held);

	/* Closed with a long poll out: nothing more, the loop closes. */
	push_close();
	assert_int_equal(R.nstates, 3);
	assert_int_equal(R.wakes, 3);
	hf_server_close(&B.srv);
	loop_down();
}

/* ---- the readers ---- */

static void read_is(const char *text, const char *sub, enum hj_push_msg want,
                    const char *out_want)
{
	char out[256];
	enum hj_push_msg got =
	    hj_push__evm_read(text, strlen(text), sub, out, sizeof out);
	if (got != want)
		fail_msg("%s: %d, not %d", text, got, want);
	assert_string_equal(out, out_want);
}

static void test_readers(void **state)
{
	char out[65];
	json_t *j;
	(void)state;

	read_is(SUBSCRIBED, "", HJ_PUSH_SUBSCRIBED, "0xfeed");
	read_is("{\"id\":1,\"result\":\"0x9\"}", "", HJ_PUSH_SUBSCRIBED, "0x9");
	read_is("{\"id\":1,\"error\":{\"code\":-32000,\"message\":\"no\"}}", "",
	        HJ_PUSH_REFUSED, "error -32000: \"no\"");
	read_is("{\"id\":1,\"error\":{\"message\":\"a\\nb\"}}", "",
	        HJ_PUSH_REFUSED, "error: \"a\\x0ab\"");
	read_is("{\"id\":1,\"error\":\"x\"}", "", HJ_PUSH_REFUSED,
	        "an error answer");
	read_is("{\"id\":1,\"result\":null}", "", HJ_PUSH_REFUSED,
	        "an answer without a subscription id");
	read_is("{\"id\":1,\"result\":\"\"}", "", HJ_PUSH_REFUSED,
	        "an answer without a subscription id");
	read_is("{\"id\":1,\"result\":\"0x\\n\"}", "", HJ_PUSH_REFUSED,
	        "an answer without a subscription id");
	read_is("{\"id\":1,\"result\":7}", "", HJ_PUSH_REFUSED,
	        "an answer without a subscription id");
	/* The longest id kept, and one more. */
	char big[300];
	int n = snprintf(big, sizeof big, "{\"id\":1,\"result\":\"");
	memset(big + n, 'a', HJ_PUSH_MAX_SUB);
	snprintf(big + n + HJ_PUSH_MAX_SUB,
	         sizeof big - (size_t)n - HJ_PUSH_MAX_SUB, "\"}");
	{
		char o[256];
		assert_int_equal(
		    hj_push__evm_read(big, strlen(big), "", o, sizeof o),
		    HJ_PUSH_SUBSCRIBED);
		assert_int_equal(strlen(o), HJ_PUSH_MAX_SUB);
	}
	snprintf(big + n + HJ_PUSH_MAX_SUB,
	         sizeof big - (size_t)n - HJ_PUSH_MAX_SUB, "a\"}");
	read_is(big, "", HJ_PUSH_REFUSED,
	        "an answer without a subscription id");
	/* Other ids, other requests' answers: not ours. */
	read_is("{\"id\":2,\"result\":\"0x9\"}", "", HJ_PUSH_IGNORED, "");
	read_is("{\"id\":\"1\",\"result\":\"0x9\"}", "", HJ_PUSH_IGNORED, "");
	read_is("{\"id\":1,\"method\":\"x\",\"result\":\"0x9\"}", "",
	        HJ_PUSH_IGNORED, "");
	read_is(HEAD_OF("0xfeed"), "0xfeed", HJ_PUSH_HEAD, "");
	read_is(HEAD_OF("0xfeed"), "0xfee", HJ_PUSH_IGNORED, "");
	read_is(HEAD_OF("0xfeed"), "", HJ_PUSH_IGNORED, "");
	read_is(HEAD_OF("0xfeed"), NULL, HJ_PUSH_IGNORED, "");
	read_is("{\"method\":\"eth_subscription\",\"params\":{"
	        "\"subscription\":\"s\",\"result\":{}}}",
	        "s", HJ_PUSH_HEAD, "");
	read_is("{\"method\":\"eth_subscription\",\"params\":{"
	        "\"subscription\":\"s\",\"result\":\"0x1\"}}",
	        "s", HJ_PUSH_IGNORED, "");
	read_is("{\"method\":\"eth_subscription\",\"params\":{"
	        "\"subscription\":\"s\\u0000\",\"result\":{}}}",
	        "s", HJ_PUSH_IGNORED, "");
	read_is("", "s", HJ_PUSH_IGNORED, "");
	read_is("{", "s", HJ_PUSH_IGNORED, "");
	read_is("1", "s", HJ_PUSH_IGNORED, "");
	read_is("{} {}", "s", HJ_PUSH_IGNORED, "");
	/* Not a string: text with a NUL inside is not JSON. */
	{
		static const char nul[] = "{\"id\":1,\"result\":\"0x9\"}\0";
		char o[64];
		assert_int_equal(
		    hj_push__evm_read(nul, sizeof nul - 1, "", o, sizeof o),
		    HJ_PUSH_IGNORED);
	}

	j = json_loads("{\"hash\":\"" HASH_A "\",\"height\":5}", 0, NULL);
	assert_int_equal(hj_push__btc_read(j, out), 0);
	assert_string_equal(out, HASH_A);
	json_decref(j);
	j = json_loads("{\"hash\":\"0F9188F13CB7B2C71F2A335E3A4FC328BF5BEB4"
	               "36012AFCA590B1A11466E2206\"}",
	               0, NULL);
	assert_int_equal(hj_push__btc_read(j, out), 0);
	assert_string_equal(out, HASH_B);
	json_decref(j);
	static const char *const bad[] = {
	    "{\"hash\":\"" HASH_A "0\"}",
	    "{\"hash\":\"g6ac93517fe942da034762267c4f8b9fcbd7cd2e0e0618c38823"
	    "5e24ff342824\"}",
	    "{\"hash\":5}",
	    "{\"height\":5}",
	    "[\"" HASH_A "\"]",
	    "\"" HASH_A "\"",
	    "null",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		j = json_loads(bad[i], JSON_DECODE_ANY, NULL);
		assert_non_null(j);
		assert_int_equal(hj_push__btc_read(j, out), -1);
		json_decref(j);
	}
	assert_int_equal(hj_push__btc_read(NULL, out), -1);
}

/* What hj_push_new refuses. */
static void test_options(void **state)
{
	hj_push *p = NULL;
	hj_rpc_opts ro;
	char err[HJ_ERRLEN];
	(void)state;

	assert_int_equal(uv_loop_init(&loop), 0);
	hj_rpc_opts_default(&ro);
	hj_push_opts o = {.loop = &loop,
	                  .kind = HJ_PUSH_EVM,
	                  .wake = on_wake,
	                  .state = on_state,
	                  .arg = &R};
	assert_int_equal(hj_push_new(&o, &p, err, sizeof err), -EINVAL);
	assert_string_equal(err, "push: no URL");
	o.kind = HJ_PUSH_BTC;
	o.rpc = &ro; /* its url is NULL */
	assert_int_equal(hj_push_new(&o, &p, err, sizeof err), -EINVAL);
	o.kind = (enum hj_push_kind)7;
	assert_int_equal(hj_push_new(&o, &p, err, sizeof err), -EINVAL);
	o.kind = HJ_PUSH_EVM;
	o.url = "ws://127.0.0.1:1/";
	o.wake = NULL;
	assert_int_equal(hj_push_new(&o, &p, err, sizeof err), -EINVAL);
	o.wake = on_wake;
	o.backoff_min_ms = 100;
	o.backoff_max_ms = 50;
	assert_int_equal(hj_push_new(&o, &p, err, sizeof err), -EINVAL);
	assert_string_equal(err, "push: backoff_max_ms below backoff_min_ms");
	assert_null(p);
	hj_push_close(NULL, NULL, NULL);
	loop_down();
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* as hashjackd does (wsclient.h) */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_readers),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_evm),
	    cmocka_unit_test(test_evm_refused),
	    cmocka_unit_test(test_evm_silent),
	    cmocka_unit_test(test_evm_nothing),
	    cmocka_unit_test(test_btc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
