/* Push wake-up: a node's new heads over WebSocket, or a long poll
 * (push.h). */
#include "push.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "say.h"
#include "wsclient.h"

/* The Bitcoin family's client waits this much longer than the node. */
#define BTC_SLACK_MS 10000
/* The first long poll only learns the tip: a wait of 1 ms (0 would be
 * none at all: wait for ever). */
#define BTC_FIRST_WAIT_MS 1

enum timer_use {
	T_IDLE,
	T_RECONNECT, /* the backoff before the next session */
	T_ANSWER,    /* EVM: the subscription's answer is due */
};

struct hj_push {
	uv_loop_t *loop;
	enum hj_push_kind kind;
	char *url;     /* EVM */
	char *ca_file; /* EVM, wss://; NULL: the system's CA store */
	hj_rpc_opts ro;
	unsigned wait_ms, answer_ms, bmin, bmax;
	unsigned backoff; /* before the next session */
	void (*wake)(void *arg);
	void (*state)(void *arg, int up, const char *why);
	void *arg;

	int reported;   /* the last state() said: 0 nothing yet, 1 up, -1
	                   lost */
	int up;         /* this session is */
	uint64_t up_at; /* uv_now when it came up */
	int closing;    /* hj_push_close was called */
	void (*done)(void *arg);
	void *done_arg;

	uv_timer_t timer;
	enum timer_use timer_use;
	int timer_open; /* its close callback has not run */

	/* EVM */
	hj_wsc *ws;   /* the session's connection, until its closed */
	int dropping; /* hj_wsc_close was called for why */
	char sub[HJ_PUSH_MAX_SUB + 1]; /* "" until subscribed */
	char why[HJ_ERRLEN];

	/* Bitcoin family */
	hj_rpc *rpc;          /* the session's client */
	unsigned rpc_closing; /* clients closed, their done not yet run */
	char last[65];        /* the last block hash seen */
};

/* ---- readers ---- */

/* Printable ASCII only, no NUL inside: a subscription id to keep. */
static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < ' ' || s[i] > '~')
			return 0;
	return 1;
}

static void refused_why(json_t *err, char *out, size_t outlen)
{
	json_t *msg = json_object_get(err, "message");
	json_t *code = json_object_get(err, "code");
	char q[200];

	if (json_is_string(msg)) {
		hj_quote(json_string_value(msg), q, sizeof q);
		if (json_is_integer(code))
			snprintf(out, outlen, "error %lld: %s",
			         (long long)json_integer_value(code), q);
		else
			snprintf(out, outlen, "error: %s", q);
	} else {
		snprintf(out, outlen, "an error answer");
	}
}

enum hj_push_msg hj_push__evm_read(const char *text, size_t len,
                                   const char *sub, char *out, size_t outlen)
{
	enum hj_push_msg kind = HJ_PUSH_IGNORED;
	json_t *m, *id, *method;

	out[0] = 0;
	m = json_loadb(text, len, 0, NULL);
	if (!json_is_object(m))
		goto out;
	id = json_object_get(m, "id");
	method = json_object_get(m, "method");
	if (method == NULL && json_is_integer(id) &&
	    json_integer_value(id) == HJ_PUSH_SUBSCRIBE_ID) {
		json_t *err = json_object_get(m, "error");
		json_t *res = json_object_get(m, "result");
		kind = HJ_PUSH_REFUSED;
		if (err && !json_is_null(err)) {
			refused_why(err, out, outlen);
		} else if (json_is_string(res) && json_string_length(res) > 0 &&
		           json_string_length(res) <= HJ_PUSH_MAX_SUB &&
		           json_string_length(res) < outlen &&
		           printable(json_string_value(res),
		                     json_string_length(res))) {
			snprintf(out, outlen, "%s", json_string_value(res));
			kind = HJ_PUSH_SUBSCRIBED;
		} else {
			snprintf(out, outlen,
			         "an answer without a subscription id");
		}
	} else if (json_is_string(method) &&
	           strcmp(json_string_value(method), "eth_subscription") == 0) {
		json_t *params = json_object_get(m, "params");
		json_t *s = json_object_get(params, "subscription");
		size_t n = sub ? strlen(sub) : 0;
		if (n > 0 && json_is_string(s) && json_string_length(s) == n &&
		    memcmp(json_string_value(s), sub, n) == 0 &&
		    json_is_object(json_object_get(params, "result")))
			kind = HJ_PUSH_HEAD;
	}
out:
	json_decref(m);
	return kind;
}

int hj_push__btc_read(const json_t *result, char out[65])
{
	const json_t *h = json_object_get(result, "hash");
	const char *s;

	if (!json_is_string(h) || json_string_length(h) != 64)
		return -1;
	s = json_string_value(h);
	for (size_t i = 0; i < 64; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'F')
			c = (char)(c + 32);
		else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return -1;
		out[i] = c;
	}
	out[64] = 0;
	return 0;
}

/* ---- sessions ---- */

static void start_session(hj_push *p);

static void maybe_done(hj_push *p)
{
	if (!p->closing || p->timer_open || p->ws || p->rpc_closing)
		return;
	if (p->done)
		p->done(p->done_arg);
	free(p->url);
	free(p->ca_file);
	free(p);
}

static void on_timer(uv_timer_t *t);

static void timer_start(hj_push *p, enum timer_use use, uint64_t ms)
{
	p->timer_use = use;
	uv_timer_start(&p->timer, on_timer, ms, 0);
}

static void timer_stop(hj_push *p)
{
	p->timer_use = T_IDLE;
	uv_timer_stop(&p->timer);
}

static void went_up(hj_push *p)
{
	p->up = 1;
	p->up_at = uv_now(p->loop);
	if (p->reported != 1) {
		p->reported = 1;
		p->state(p->arg, 1, NULL);
		if (p->closing)
			return;
	}
	p->wake(p->arg);
}

/* The session is over (its connection gone or going): say so once, and
 * the next one after the backoff. */
static void session_ended(hj_push *p, const char *why)
{
	if (p->up && uv_now(p->loop) - p->up_at >= p->bmax)
		p->backoff = p->bmin;
	p->up = 0;
	p->sub[0] = 0;
	p->dropping = 0;
	if (p->reported != -1) {
		p->reported = -1;
		p->state(p->arg, 0, why);
		if (p->closing)
			return;
	}
	timer_start(p, T_RECONNECT, p->backoff);
	p->backoff = p->backoff > p->bmax / 2 ? p->bmax : p->backoff * 2;
}

static void on_rpc_closed(void *arg)
{
	hj_push *p = arg;
	p->rpc_closing--;
	maybe_done(p);
}

/* Ends the session for why: the WebSocket's closing handshake first (its
 * closed callback ends the session), the client's requests at once. */
static void drop(hj_push *p, const char *why)
{
	if (p->kind == HJ_PUSH_EVM) {
		if (!p->ws || p->dropping)
			return;
		p->dropping = 1;
		snprintf(p->why, sizeof p->why, "%s", why);
		timer_stop(p);
		hj_wsc_close(p->ws);
		return;
	}
	if (!p->rpc)
		return;
	hj_rpc_close(p->rpc, on_rpc_closed, p);
	p->rpc = NULL;
	p->rpc_closing++;
	session_ended(p, why);
}

/* ---- EVM: the WebSocket ---- */

static void ws_open(void *arg)
{
	hj_push *p = arg;
	char req[128];
	int n = snprintf(req, sizeof req,
	                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
	                 "\"eth_subscribe\",\"params\":[\"newHeads\"]}",
	                 HJ_PUSH_SUBSCRIBE_ID);
	if (hj_wsc_send(p->ws, req, (size_t)n) != 0) {
		drop(p, "cannot send eth_subscribe");
		return;
	}
	timer_start(p, T_ANSWER, p->answer_ms);
}

static void ws_message(void *arg, const char *text, size_t len)
{
	hj_push *p = arg;
	char out[256], why[HJ_ERRLEN];

	if (p->dropping)
		return;
	switch (hj_push__evm_read(text, len, p->sub, out, sizeof out)) {
	case HJ_PUSH_SUBSCRIBED:
		if (p->sub[0])
			break; /* answered already: not ours */
		timer_stop(p);
		memcpy(p->sub, out, strlen(out) + 1); /* at most MAX_SUB */
		went_up(p);
		break;
	case HJ_PUSH_REFUSED:
		if (p->sub[0])
			break;
		snprintf(why, sizeof why, "%s: eth_subscribe refused: %s",
		         p->url, out);
		drop(p, why);
		break;
	case HJ_PUSH_HEAD:
		p->wake(p->arg);
		break;
	case HJ_PUSH_IGNORED:
		break;
	}
}

static void ws_closed(void *arg, const char *why)
{
	hj_push *p = arg;
	p->ws = NULL;
	if (p->closing) {
		maybe_done(p);
		return;
	}
	timer_stop(p);
	session_ended(p, p->dropping ? p->why
	                 : why       ? why
	                             : "the connection ended");
}

static const hj_wsc_cbs ws_cbs = {ws_message, ws_closed, ws_open};

/* ---- the Bitcoin family: waitfornewblock ---- */

static void on_wait(void *arg, json_t *result, const char *error);

static void btc_wait(hj_push *p, unsigned ms)
{
	/* Never [] for want of memory: that would wait for ever. */
	json_t *params = json_pack("[I]", (json_int_t)ms);
	if (!params ||
	    hj_rpc_call(p->rpc, "waitfornewblock", params, on_wait, p))
		drop(p, "waitfornewblock: out of memory");
}

static void on_wait(void *arg, json_t *result, const char *error)
{
	hj_push *p = arg;
	char hash[65];

	if (error) {
		drop(p, error);
		return;
	}
	if (hj_push__btc_read(result, hash)) {
		drop(p, "waitfornewblock: an answer without a block hash");
		return;
	}
	if (!p->up) {
		memcpy(p->last, hash, sizeof hash);
		went_up(p);
	} else if (memcmp(p->last, hash, 64) != 0) {
		memcpy(p->last, hash, sizeof hash);
		p->wake(p->arg);
	}
	if (p->rpc)
		btc_wait(p, p->wait_ms);
}

/* Every failed attempt ends the session: the module's backoff, not the
 * client's, says when to try again, and the session's state is told. */
static void on_rpc_retry(void *arg, const hj_rpc_retry *r)
{
	drop(arg, r->what);
}

/* ---- the loop ---- */

static void start_session(hj_push *p)
{
	char err[HJ_ERRLEN];

	if (p->kind == HJ_PUSH_EVM) {
		if (hj_wsc_open(p->loop, p->url, p->ca_file,
		                HJ_PUSH_MAX_MESSAGE, &ws_cbs, p, &p->ws, err,
		                sizeof err) != 0) {
			p->ws = NULL;
			session_ended(p, err);
		}
		return;
	}
	if (hj_rpc_new(p->loop, &p->ro, &p->rpc, err, sizeof err) != 0) {
		session_ended(p, err);
		return;
	}
	btc_wait(p, BTC_FIRST_WAIT_MS);
}

static void on_timer(uv_timer_t *t)
{
	hj_push *p = t->data;
	enum timer_use use = p->timer_use;
	char why[HJ_ERRLEN];

	p->timer_use = T_IDLE;
	if (use == T_RECONNECT) {
		start_session(p);
	} else if (use == T_ANSWER) {
		snprintf(why, sizeof why,
		         "%s: no answer to eth_subscribe within %u ms", p->url,
		         p->answer_ms);
		drop(p, why);
	}
}

static void on_timer_closed(uv_handle_t *h)
{
	hj_push *p = h->data;
	p->timer_open = 0;
	maybe_done(p);
}

int hj_push_new(const hj_push_opts *o, hj_push **out, char *err, size_t errlen)
{
	hj_push *p;

	*out = NULL;
	if (!o->loop || !o->wake || !o->state ||
	    (o->kind != HJ_PUSH_EVM && o->kind != HJ_PUSH_BTC)) {
		hj_say(err, errlen,
		       "push: no loop, no callback or an "
		       "unknown kind");
		return -EINVAL;
	}
	if (o->kind == HJ_PUSH_EVM ? !o->url : !o->rpc || !o->rpc->url) {
		hj_say(err, errlen, "push: no URL");
		return -EINVAL;
	}
	if (o->wait_ms > 86400000u) {
		hj_say(err, errlen, "push: a wait above 24 h");
		return -EINVAL;
	}
	p = calloc(1, sizeof *p);
	if (!p || (o->kind == HJ_PUSH_EVM &&
	           (!(p->url = strdup(o->url)) ||
	            (o->ca_file && !(p->ca_file = strdup(o->ca_file)))))) {
		if (p) {
			free(p->url);
			free(p);
		}
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->loop = o->loop;
	p->kind = o->kind;
	p->wait_ms = o->wait_ms ? o->wait_ms : HJ_PUSH_WAIT_MS;
	p->answer_ms = o->answer_ms ? o->answer_ms : HJ_PUSH_ANSWER_MS;
	p->bmin = o->backoff_min_ms ? o->backoff_min_ms : HJ_PUSH_BACKOFF_MIN;
	p->bmax = o->backoff_max_ms ? o->backoff_max_ms : HJ_PUSH_BACKOFF_MAX;
	if (p->bmax < p->bmin) {
		free(p->url);
		free(p->ca_file);
		free(p);
		hj_say(err, errlen,
		       "push: backoff_max_ms below backoff_min_ms");
		return -EINVAL;
	}
	p->backoff = p->bmin;
	p->wake = o->wake;
	p->state = o->state;
	p->arg = o->arg;
	if (o->kind == HJ_PUSH_BTC) {
		p->ro = *o->rpc;
		p->ro.timeout_ms = p->wait_ms + BTC_SLACK_MS;
		p->ro.max_inflight = 1;
		p->ro.backoff_min_ms = p->bmin;
		p->ro.backoff_max_ms = p->bmax;
		p->ro.on_retry = on_rpc_retry;
		p->ro.arg = p;
	}
	uv_timer_init(p->loop, &p->timer);
	p->timer.data = p;
	p->timer_open = 1;
	/* From the loop, as every callback: the first session at once. */
	timer_start(p, T_RECONNECT, 0);
	*out = p;
	return 0;
}

void hj_push_close(hj_push *p, void (*done)(void *arg), void *arg)
{
	if (!p || p->closing)
		return;
	p->closing = 1;
	p->done = done;
	p->done_arg = arg;
	uv_close((uv_handle_t *)&p->timer, on_timer_closed);
	/* No closing handshake: a daemon stopping does not wait for a node
	 * that may not answer (it may be the reason for the stop). */
	if (p->ws)
		hj_wsc_abort(p->ws); /* ws_closed follows, from the loop */
	if (p->rpc) {
		hj_rpc_close(p->rpc, on_rpc_closed, p);
		p->rpc = NULL;
		p->rpc_closing++;
	}
}
