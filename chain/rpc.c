/*
 * JSON-RPC 2.0 client (rpc.h): the requests, their queue, retries and
 * budget.  Below it, two layers that know nothing of it: the transport
 * (rpc_http.h), which reports each transfer's end through the callback
 * given at its creation (on_xfer_end, here), and the answer's pure check
 * (rpc_answer.h).
 *
 * Life of a request: hj_rpc_call/hj_rpc_batch serialise it once (ids are
 * fixed at that moment, so every attempt sends the same bytes) and append it
 * to the queue.  pump() moves queued requests into flight while fewer
 * than max_inflight are there.  When a transfer ends, the transport's
 * report (on_xfer_end) either completes the request (callback, then free),
 * hands its body to be parsed, or puts it on the waiting list (failed()),
 * sorted by the loop time of its next attempt; one uv_timer_t moves due
 * requests back into the queue, in submission order.
 *
 * Invariants: every request is on c->reqs until completed or dropped, and
 * in exactly one of the queue, the waiting list or flight (req->x != NULL).
 * c->inflight counts requests in flight; it never exceeds max_inflight, and
 * neither does the number of easy handles (busy plus pooled).
 *
 * Parsing: an answer of PARSE_AWAY bytes or more (a batch of blocks) is
 * parsed on libuv's thread pool, so that the loop goes on moving bytes and
 * the caller's code runs on another core meanwhile; the request is then
 * in none of the three places (r->parsing), and completes from
 * parse_done() on the loop.  hj_rpc__answer touches nothing but its
 * arguments, jansson keeps no state shared between documents (its manual,
 * "Thread safety"), and the document is handed back through libuv's queue,
 * whose lock orders the memory.  Smaller answers (the tip,
 * receipts, a payer's calls) are parsed at once: a hop to a thread would
 * only add to their latency.
 *
 * Handles: our retry timer, and the transport's (curl's timer, a uv_poll_t
 * per socket), whose close it reports as one, after its last
 * (on_http_closed).  Memory of a handle is freed only in its close
 * callback; the client itself is freed from the last report
 * (c->open_handles reaching 0 after hj_rpc_close) once no answer is being
 * parsed (c->parsing).
 *
 * User code (callbacks, on_retry) may call hj_rpc_call, hj_rpc_batch or
 * hj_rpc_close; it never runs inside a curl callback, and every loop that
 * calls it re-checks c->closing afterwards.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"
#include "rpc_answer.h"
#include "rpc_http.h"
#include "say.h"

/* Answers this long are parsed on the thread pool (see the top). */
#define PARSE_AWAY 32768

/* A request: one call or a batch, from its submission to its callback. */
typedef struct hj_rpc__req {
	hj_rpc *c;
	struct hj_rpc__req *prev, *next; /* c->reqs */
	struct hj_rpc__req *link;        /* queue or waiting list */
	json_int_t id0; /* first id; also the submission order */
	size_t n;       /* calls */
	int batch;      /* answer is an array even when n == 1 */
	char *body;     /* the request, serialised once */
	size_t body_len;
	char label[80];  /* method, or "batch of N (first method, ...)" */
	char method[48]; /* the (first) method, cut: for observe */
	hj_rpc_cb cb;    /* one of cb and xcb */
	hj_rpc_xcb xcb;  /* hj_rpc_call_x */
	void *arg;
	unsigned flags;   /* HJ_RPC_NODE_ERRORS, HJ_RPC_ONCE */
	unsigned attempt; /* attempts started */
	uint64_t first;   /* loop time (ms) of the first attempt's start */
	uint64_t due;     /* waiting: loop time (ms) of the next attempt */
	uint64_t started; /* uv_hrtime() at the attempt's start */
	uint64_t took_us; /* the attempt's time to its last byte, or 0 */
	hj_rpc__xfer *x;  /* in flight: the transport's transfer */
	char *resp;       /* a 2xx body, from the transport, to be parsed */
	size_t resp_len;
	/* Parsed on the thread pool: hj_rpc__answer's outputs. */
	int parsing;
	uv_work_t work;
	int ans_rc;
	json_t *ans_result, *ans_error;
	char ans_msg[HJ_ERRLEN];
} hj_rpc__req;

struct hj_rpc {
	uv_loop_t *loop;
	hj_rpc__http *http; /* the transport below (rpc_http.h) */
	uv_timer_t retry_timer;
	unsigned backoff_min_ms, backoff_max_ms, max_inflight;
	unsigned max_attempts, give_up_ms; /* 0: none */
	void (*on_retry)(void *, const char *, unsigned, unsigned);
	void *arg;
	void (*observe)(void *, const char *, enum hj_rpc_outcome, uint64_t);
	void *observe_arg;
	json_int_t next_id;
	uint64_t rng;
	hj_rpc__req *reqs, *reqs_tail; /* every pending request */
	size_t npending;
	hj_rpc__req *qhead, *qtail; /* queue, by id0 */
	hj_rpc__req *waiting;       /* by due, then id0 */
	unsigned inflight;          /* requests in flight: a transfer each */
	unsigned parsing;           /* answers on the thread pool */

	/* Closing: the retry timer and the transport (one handle each, here)
	 * report their close; the client is freed after the last. */
	int closing;
	unsigned open_handles; /* initialised, close not yet reported */
	void (*done)(void *);
	void *done_arg;
};

void hj_rpc_opts_default(hj_rpc_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_response = (size_t)64 << 20;
	o->timeout_ms = 30000;
	o->backoff_min_ms = 250;
	o->backoff_max_ms = 30000;
	o->max_inflight = 4;
}

/* splitmix64: jitter only needs to differ between clients and attempts. */
static uint64_t rng_next(hj_rpc *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------ */
/* Teardown                                                            */

static void client_free(hj_rpc *c)
{
	void (*done)(void *) = c->done;
	void *arg = c->done_arg;

	if (c->http != NULL)
		hj_rpc__http_free(c->http);
	free(c);
	if (done != NULL)
		done(arg);
}

/* A close was reported (the retry timer's, or the transport's for all of
 * its handles): the client is freed after the last one, once hj_rpc_close
 * was called and no answer is being parsed. */
static void handle_closed(hj_rpc *c)
{
	if (--c->open_handles == 0 && c->closing && c->parsing == 0)
		client_free(c);
}

static void on_timer_closed(uv_handle_t *h)
{
	handle_closed(h->data);
}

static void req_free(hj_rpc__req *r)
{
	free(r->body);
	free(r->resp);
	free(r);
}

static void req_unlink(hj_rpc *c, hj_rpc__req *r)
{
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		c->reqs = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	else
		c->reqs_tail = r->prev;
	c->npending--;
}

/* ------------------------------------------------------------------ */
/* Scheduling                                                          */

const char *hj_rpc_outcome_name(enum hj_rpc_outcome o)
{
	static const char *const names[HJ_RPC_OUTCOMES] = {"ok", "error",
	                                                   "retried", "failed"};

	return (unsigned)o < HJ_RPC_OUTCOMES ? names[o] : "?";
}

static void observe(hj_rpc *c, const hj_rpc__req *r, enum hj_rpc_outcome o)
{
	if (c->observe != NULL)
		c->observe(c->observe_arg, r->method, o, r->took_us);
}

/* Inserts r into the queue by submission order: new requests land at the
 * tail in O(1); a retried one goes back before younger ones. */
static void queue_insert(hj_rpc *c, hj_rpc__req *r)
{
	hj_rpc__req **pp = &c->qhead;

	if (c->qtail == NULL || c->qtail->id0 < r->id0) {
		r->link = NULL;
		if (c->qtail != NULL)
			c->qtail->link = r;
		else
			c->qhead = r;
		c->qtail = r;
		return;
	}
	while ((*pp)->id0 < r->id0)
		pp = &(*pp)->link;
	r->link = *pp;
	*pp = r;
}

static hj_rpc__req *queue_pop(hj_rpc *c)
{
	hj_rpc__req *r = c->qhead;

	if (r != NULL) {
		c->qhead = r->link;
		if (c->qhead == NULL)
			c->qtail = NULL;
		r->link = NULL;
	}
	return r;
}

static void on_retry_timer(uv_timer_t *t);
static void pump(hj_rpc *c);
static void complete(hj_rpc *c, hj_rpc__req *r, json_t *result,
                     const char *msg);

static void arm_retry_timer(hj_rpc *c)
{
	uint64_t now = uv_now(c->loop);

	if (c->waiting == NULL) {
		uv_timer_stop(&c->retry_timer);
		return;
	}
	uv_timer_start(&c->retry_timer, on_retry_timer,
	               c->waiting->due > now ? c->waiting->due - now : 0, 0);
}

static void on_retry_timer(uv_timer_t *t)
{
	hj_rpc *c = t->data;
	uint64_t now = uv_now(c->loop);

	while (c->waiting != NULL && c->waiting->due <= now) {
		hj_rpc__req *r = c->waiting;

		c->waiting = r->link;
		queue_insert(c, r);
	}
	arm_retry_timer(c);
	pump(c);
}

/* backoff_min_ms * 2^(attempt-1), capped at backoff_max_ms. */
static unsigned backoff(const hj_rpc *c, unsigned attempt)
{
	uint64_t d = c->backoff_min_ms;

	for (unsigned i = 1; i < attempt && d < c->backoff_max_ms; i++)
		d *= 2;
	return d < c->backoff_max_ms ? (unsigned)d : c->backoff_max_ms;
}

/* Attempt r->attempt failed with msg: wait, then queue again (or, its
 * budget spent, end with an error).  retry_after
 * (seconds, 0 for none) is the server's Retry-After, honoured up to
 * backoff_max_ms.  r may be freed (by hj_rpc_close in on_retry) on return. */
static void schedule_retry(hj_rpc *c, hj_rpc__req *r, const char *msg,
                           uint64_t retry_after)
{
	unsigned base = backoff(c, r->attempt), delay;
	hj_rpc__req **pp = &c->waiting;
	char what[HJ_ERRLEN];
	uint64_t now = uv_now(c->loop);

	/* Jitter: a random delay in [base - base/2, base]. */
	delay = base - (unsigned)(rng_next(c) % ((uint64_t)base / 2 + 1));
	if (retry_after > 0) {
		uint64_t ra = retry_after < UINT64_MAX / 1000
		                  ? retry_after * 1000
		                  : UINT64_MAX;

		if (ra > c->backoff_max_ms)
			ra = c->backoff_max_ms;
		if (ra > delay)
			delay = (unsigned)ra;
	}
	if ((c->max_attempts != 0 && r->attempt >= c->max_attempts) ||
	    (c->give_up_ms != 0 && now + delay - r->first > c->give_up_ms)) {
		hj_say(what, sizeof what,
		       "gave up after %u attempt%s in %.1f s: %s", r->attempt,
		       r->attempt == 1 ? "" : "s",
		       (double)(now - r->first) / 1000.0, msg);
		complete(c, r, NULL, what);
		return;
	}
	observe(c, r, HJ_RPC_RETRIED);
	r->due = now + delay;
	while (*pp != NULL && (*pp)->due <= r->due)
		pp = &(*pp)->link;
	r->link = *pp;
	*pp = r;
	if (c->waiting == r)
		arm_retry_timer(c);
	if (c->on_retry != NULL) {
		hj_say(what, sizeof what, "%s: %s", r->label, msg);
		c->on_retry(c->arg, what, r->attempt, delay);
	}
}

/* Ends r: callback, then free.  r is off every list before user code
 * runs, so hj_rpc_close from the callback never sees it.  e->text gets the
 * request's label in front. */
static void complete_x(hj_rpc *c, hj_rpc__req *r, json_t *result,
                       const hj_rpc_error *e)
{
	char what[HJ_ERRLEN];
	hj_rpc_error ex;

	req_unlink(c, r);
	observe(c, r,
	        e == NULL                    ? HJ_RPC_OK
	        : e->kind == HJ_RPC_ERR_NODE ? HJ_RPC_ERROR
	                                     : HJ_RPC_FAILED);
	if (e != NULL) {
		hj_say(what, sizeof what, "%s: %s", r->label, e->text);
		ex = *e;
		ex.text = what;
		if (ex.message == NULL)
			ex.message = "";
	}
	if (r->xcb != NULL)
		r->xcb(r->arg, result, e != NULL ? &ex : NULL);
	else
		r->cb(r->arg, result, e != NULL ? what : NULL);
	req_free(r);
}

/* Ends r with result (borrowed) or, when msg is not NULL, with a final
 * error (HJ_RPC_ERR_FINAL) saying msg.  r is freed on return. */
static void complete(hj_rpc *c, hj_rpc__req *r, json_t *result, const char *msg)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_FINAL, .text = msg};

	complete_x(c, r, result, msg != NULL ? &e : NULL);
}

/* Attempt r->attempt failed with msg.  retry_after: the server's
 * Retry-After in seconds (0: none).  not_sent: the failure proves the node
 * never executed the request.  A HJ_RPC_ONCE call that may have been
 * executed ends (HJ_RPC_ERR_UNKNOWN); anything else is retried, or ends
 * once its budget is spent.  r may be freed on return. */
static void failed(hj_rpc *c, hj_rpc__req *r, const char *msg,
                   uint64_t retry_after, int not_sent)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_UNKNOWN, .text = msg};

	if ((r->flags & HJ_RPC_ONCE) && !not_sent) {
		complete_x(c, r, NULL, &e);
		return;
	}
	schedule_retry(c, r, msg, retry_after);
}

/* The node's JSON-RPC error answer errobj (borrowed) ends a
 * HJ_RPC_NODE_ERRORS call r (freed on return). */
static void node_error(hj_rpc *c, hj_rpc__req *r, json_t *errobj,
                       const char *msg)
{
	json_t *code = json_object_get(errobj, "code");
	json_t *text = json_object_get(errobj, "message");
	hj_rpc_error e = {.kind = HJ_RPC_ERR_NODE, .text = msg};

	if (json_is_integer(code))
		e.code = (long long)json_integer_value(code);
	if (json_is_string(text))
		e.message = json_string_value(text);
	complete_x(c, r, NULL, &e);
}

/* ------------------------------------------------------------------ */
/* Attempts                                                            */

/* Starts attempt r->attempt + 1.  On failure the attempt counts as failed
 * and is retried like any other; r may be freed on return. */
static void start_attempt(hj_rpc *c, hj_rpc__req *r)
{
	char msg[HJ_ERRLEN];
	hj_rpc__http_send s = {
	    .body = r->body,
	    .len = r->body_len,
	    .id0 = r->id0,
	    .several = r->n > 1,
	    .node_errors = (r->flags & HJ_RPC_NODE_ERRORS) != 0,
	    /* Not even libcurl may send a HJ_RPC_ONCE call twice. */
	    .fresh = (r->flags & HJ_RPC_ONCE) != 0,
	};
	int rc;

	if (r->attempt++ == 0)
		r->first = uv_now(c->loop);
	r->started = uv_hrtime();
	r->took_us = 0;
	rc = hj_rpc__http_start(c->http, r, &s, &r->x, msg, sizeof msg);
	if (rc == 0)
		c->inflight++;
	else if (rc == -EPERM)
		complete(c, r, NULL, msg);
	else
		schedule_retry(c, r, msg, 0);
}

/* Moves queued requests into flight while there is room. */
static void pump(hj_rpc *c)
{
	while (!c->closing && c->inflight < c->max_inflight && c->qhead != NULL)
		start_attempt(c, queue_pop(c));
}

/* r's 2xx answer was parsed (hj_rpc__answer's outputs, taken): complete r
 * or schedule a retry. */
static void answered(hj_rpc *c, hj_rpc__req *r, int rc, json_t *result,
                     json_t *errobj, const char *msg)
{
	free(r->resp);
	r->resp = NULL;
	r->resp_len = 0;
	if (rc != 0 && errobj != NULL && (r->flags & HJ_RPC_NODE_ERRORS)) {
		node_error(c, r, errobj, msg);
		json_decref(errobj);
		return;
	}
	json_decref(errobj);
	if (rc != 0) {
		failed(c, r, msg, 0, 0);
		return;
	}
	complete(c, r, result, NULL);
	json_decref(result);
}

unsigned hj_rpc__parsing(const hj_rpc *c)
{
	return c->parsing;
}

/* On a thread of the pool: only r's body and its own outputs. */
static void parse_work(uv_work_t *w)
{
	hj_rpc__req *r = w->data;

	r->ans_rc = hj_rpc__answer(r->resp, r->resp_len, r->id0, r->n, r->batch,
	                           &r->ans_result, &r->ans_error, r->ans_msg,
	                           sizeof r->ans_msg);
}

/* Back on the loop.  A client closed meanwhile left r to us (hj_rpc_close
 * took it off c->reqs); the last parse of a closed client frees it. */
static void parse_done(uv_work_t *w, int status)
{
	hj_rpc__req *r = w->data;
	hj_rpc *c = r->c;

	(void)status; /* never cancelled: nothing calls uv_cancel */
	r->parsing = 0;
	c->parsing--;
	if (c->closing) {
		json_decref(r->ans_result);
		json_decref(r->ans_error);
		req_free(r);
		if (c->parsing == 0 && c->open_handles == 0)
			client_free(c);
		return;
	}
	answered(c, r, r->ans_rc, r->ans_result, r->ans_error, r->ans_msg);
	pump(c);
}

/* r's 2xx body is kept in r->resp: parsed (on the thread pool when large),
 * then r completes or is retried.  r may be freed on return. */
static void got_body(hj_rpc *c, hj_rpc__req *r)
{
	json_t *result = NULL, *errobj = NULL;
	char msg[HJ_ERRLEN];
	int rc;

	r->work.data = r;
	if (r->resp_len >= PARSE_AWAY &&
	    uv_queue_work(c->loop, &r->work, parse_work, parse_done) == 0) {
		r->parsing = 1;
		c->parsing++;
		return;
	}
	rc = hj_rpc__answer(r->resp, r->resp_len, r->id0, r->n, r->batch,
	                    &result, &errobj, msg, sizeof msg);
	answered(c, r, rc, result, errobj, msg);
}

/* ------------------------------------------------------------------ */
/* What the transport reports                                          */

/* The transfer of r (the req it was started with) ended: the outcome
 * becomes r's end, a retry, or a body to parse. */
static void on_xfer_end(void *arg, void *req, const hj_rpc__xfer_outcome *o)
{
	hj_rpc *c = arg;
	hj_rpc__req *r = req;

	r->took_us = (o->ended - r->started) / 1000;
	r->x = NULL;
	c->inflight--;
	switch (o->end) {
	case HJ_RPC__XFER_BODY:
		r->resp = o->body;
		r->resp_len = o->len;
		got_body(c, r);
		break;
	case HJ_RPC__XFER_FAILED:
		failed(c, r, o->msg, o->retry_after, o->not_sent);
		break;
	case HJ_RPC__XFER_FINAL:
		complete(c, r, NULL, o->msg);
		break;
	case HJ_RPC__XFER_NODE_ERROR:
		node_error(c, r, o->errobj, o->msg);
		break;
	}
}

/* After a round of transfers' ends: room may have come. */
static void on_http_idle(void *arg)
{
	pump(arg);
}

static void on_http_closed(void *arg)
{
	handle_closed(arg);
}

/* ------------------------------------------------------------------ */
/* Public interface                                                    */

static int check_opts(const hj_rpc_opts *o, char *err, size_t errlen)
{
	if (o->url == NULL) {
		hj_say(err, errlen, "no URL");
		return -EINVAL;
	}
	if (o->max_response == 0 || o->timeout_ms == 0 ||
	    o->max_inflight == 0 || o->backoff_min_ms == 0 ||
	    o->backoff_max_ms < o->backoff_min_ms) {
		hj_say(err, errlen,
		       "max_response, timeout_ms, max_inflight and "
		       "backoff_min_ms must be above 0 and backoff_max_ms "
		       "at least backoff_min_ms");
		return -EINVAL;
	}
	if (o->user == NULL && o->password != NULL) {
		hj_say(err, errlen, "a password without a user");
		return -EINVAL;
	}
	if (o->cookie_file != NULL && (o->user != NULL || o->bearer != NULL)) {
		hj_say(err, errlen,
		       "a cookie file excludes basic auth (user) and a "
		       "bearer token");
		return -EINVAL;
	}
	if (o->user != NULL && o->bearer != NULL) {
		hj_say(err, errlen,
		       "basic auth (user) and a bearer token exclude each "
		       "other");
		return -EINVAL;
	}
	if (o->bearer != NULL &&
	    (o->bearer[0] == '\0' || strpbrk(o->bearer, "\r\n") != NULL)) {
		hj_say(err, errlen,
		       "the bearer token is empty or holds a line break");
		return -EINVAL;
	}
	if (o->user != NULL && strchr(o->user, ':') != NULL) {
		hj_say(err, errlen, "basic auth user holds a ':'");
		return -EINVAL;
	}
	return hj_rpc__http_check_url(o->url, err, errlen);
}

int hj_rpc_new(uv_loop_t *loop, const hj_rpc_opts *o, hj_rpc **out, char *err,
               size_t errlen)
{
	hj_rpc *c;
	hj_rpc__http_opts ho = {
	    .loop = loop,
	    .url = o->url,
	    .user = o->user,
	    .password = o->password,
	    .bearer = o->bearer,
	    .cookie_file = o->cookie_file,
	    .ca_file = o->ca_file,
	    .max_response = o->max_response,
	    .timeout_ms = o->timeout_ms,
	    .max_inflight = o->max_inflight,
	    .end = on_xfer_end,
	    .idle = on_http_idle,
	    .closed = on_http_closed,
	};
	int rc;

	*out = NULL;
	rc = check_opts(o, err, errlen);
	if (rc != 0)
		return rc;
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->loop = loop;
	c->backoff_min_ms = o->backoff_min_ms;
	c->backoff_max_ms = o->backoff_max_ms;
	c->max_inflight = o->max_inflight;
	c->max_attempts = o->max_attempts;
	c->give_up_ms = o->give_up_ms;
	c->on_retry = o->on_retry;
	c->arg = o->arg;
	c->observe = o->observe;
	c->observe_arg = o->observe_arg;
	c->next_id = 1;
	c->rng = uv_hrtime() ^ (uint64_t)(uintptr_t)c;
	ho.arg = c;
	rc = hj_rpc__http_new(&ho, &c->http, err, errlen);
	if (rc != 0) {
		free(c);
		return rc;
	}
	c->open_handles++; /* the transport's, reported closed as one */
	/* Cannot fail on Unix (it fills the struct); from here on
	 * memory is freed from close callbacks only. */
	uv_timer_init(loop, &c->retry_timer);
	c->retry_timer.data = c;
	c->open_handles++;
	*out = c;
	return 0;
}

/* One call object; params stolen (NULL: []). */
static json_t *call_obj(json_int_t id, const char *method, json_t *params)
{
	json_t *o = json_object();

	if (params == NULL)
		params = json_array();
	if (o == NULL || params == NULL ||
	    json_object_set_new(o, "jsonrpc", json_string("2.0")) != 0 ||
	    json_object_set_new(o, "id", json_integer(id)) != 0 ||
	    json_object_set_new(o, "method", json_string(method)) != 0) {
		json_decref(params);
		json_decref(o);
		return NULL;
	}
	/* Steals params even when it fails. */
	if (json_object_set_new(o, "params", params) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * A call whose params are JSON text, sent as given: the envelope is
 * written here around it.  The text must parse as an array or object
 * (jansson's default), so the body stays valid JSON.  Returns the body
 * or NULL (bad text: *bad set; out of memory).
 */
static char *text_call(json_int_t id, const char *method,
                       const char *params_text, int *bad)
{
	json_t *m = NULL, *check = json_loads(params_text, 0, NULL);
	char *ms = NULL, *body = NULL;
	size_t n;

	*bad = check == NULL;
	json_decref(check);
	if (*bad)
		return NULL;
	m = json_string(method);
	if (m == NULL) {
		*bad = 1; /* not UTF-8 */
		return NULL;
	}
	ms = json_dumps(m, JSON_ENCODE_ANY);
	if (ms == NULL)
		goto out;
	n = strlen(ms) + strlen(params_text) + 80;
	body = malloc(n);
	if (body != NULL)
		snprintf(body, n,
		         "{\"jsonrpc\":\"2.0\",\"id\":%" JSON_INTEGER_FORMAT
		         ",\"method\":%s,\"params\":%s}",
		         id, ms, params_text);
out:
	free(ms);
	json_decref(m);
	return body;
}

static int submit(hj_rpc *c, size_t n, int batch, const char *const *methods,
                  json_t *const *params, const char *params_text,
                  unsigned flags, hj_rpc_cb cb, hj_rpc_xcb xcb, void *arg)
{
	json_t *doc = NULL;
	hj_rpc__req *r = NULL;
	json_int_t id0 = c->next_id;
	size_t i;
	int rc = -ENOMEM, bad = 0;
	char *body = NULL;

	for (i = 0; i < n; i++) {
		if (methods[i] == NULL ||
		    (params[i] != NULL && !json_is_array(params[i]) &&
		     !json_is_object(params[i])))
			rc = -EINVAL;
	}
	if (n == 0 || (cb == NULL && xcb == NULL) ||
	    (params_text != NULL && (n != 1 || params[0] != NULL)))
		rc = -EINVAL;
	i = 0; /* params[i..n) are still ours to release on failure */
	if (rc == -EINVAL)
		goto fail;
	if (params_text != NULL) {
		body = text_call(id0, methods[0], params_text, &bad);
		if (body == NULL) {
			rc = bad ? -EINVAL : -ENOMEM;
			goto fail;
		}
	} else if (batch) {
		doc = json_array();
		if (doc == NULL)
			goto fail;
		for (i = 0; i < n; i++) {
			json_t *o = call_obj(id0 + (json_int_t)i, methods[i],
			                     params[i]);

			/* Both steal: params[i] is gone either way. */
			if (o == NULL || json_array_append_new(doc, o) != 0) {
				i++;
				goto fail;
			}
		}
	} else {
		doc = call_obj(id0, methods[0], params[0]);
		i = 1;
		if (doc == NULL)
			goto fail;
	}
	r = calloc(1, sizeof *r);
	if (r == NULL)
		goto fail;
	r->body = body != NULL ? body : json_dumps(doc, JSON_COMPACT);
	body = NULL;
	if (r->body == NULL)
		goto fail;
	json_decref(doc);
	r->c = c;
	r->body_len = strlen(r->body);
	r->id0 = id0;
	r->n = n;
	r->batch = batch;
	r->cb = cb;
	r->xcb = xcb;
	r->flags = flags;
	r->arg = arg;
	if (batch)
		snprintf(r->label, sizeof r->label, "batch of %zu (%s%s)", n,
		         methods[0], n > 1 ? ", ..." : "");
	else
		snprintf(r->label, sizeof r->label, "%s", methods[0]);
	snprintf(r->method, sizeof r->method, "%s", methods[0]);
	c->next_id += (json_int_t)n;
	r->prev = c->reqs_tail;
	if (c->reqs_tail != NULL)
		c->reqs_tail->next = r;
	else
		c->reqs = r;
	c->reqs_tail = r;
	c->npending++;
	queue_insert(c, r);
	pump(c);
	return 0;
fail:
	/* params[0..i) went into doc (or were released with it). */
	free(body);
	json_decref(doc);
	for (; i < n; i++)
		json_decref(params[i]);
	if (r != NULL)
		req_free(r);
	return rc;
}

int hj_rpc_call(hj_rpc *c, const char *method, json_t *params, hj_rpc_cb cb,
                void *arg)
{
	return submit(c, 1, 0, &method, &params, NULL, 0, cb, NULL, arg);
}

int hj_rpc_call_x(hj_rpc *c, const char *method, json_t *params,
                  const char *params_text, unsigned flags, hj_rpc_xcb cb,
                  void *arg)
{
	if (params_text != NULL && params != NULL) {
		json_decref(params);
		return -EINVAL;
	}
	return submit(c, 1, 0, &method, &params, params_text, flags, NULL, cb,
	              arg);
}

int hj_rpc_batch(hj_rpc *c, size_t n, const char *const *methods,
                 json_t *const *params, hj_rpc_cb cb, void *arg)
{
	return submit(c, n, 1, methods, params, NULL, 0, cb, NULL, arg);
}

size_t hj_rpc_pending(const hj_rpc *c)
{
	return c->npending;
}

void hj_rpc_close(hj_rpc *c, void (*done)(void *arg), void *arg)
{
	if (c == NULL || c->closing)
		return;
	c->closing = 1;
	c->done = done;
	c->done_arg = arg;
	/* The transfers in flight go first: they post the requests'
	 * bodies. */
	hj_rpc__http_close(c->http);
	c->inflight = 0;
	while (c->reqs != NULL) {
		hj_rpc__req *r = c->reqs;

		req_unlink(c, r);
		if (r->parsing)
			continue; /* parse_done frees it */
		req_free(r);
	}
	c->qhead = c->qtail = c->waiting = NULL;
	uv_close((uv_handle_t *)&c->retry_timer, on_timer_closed);
}

int hj_rpc_wallet_url(const char *url, const char *wallet, char **out,
                      char *err, size_t errlen)
{
	return hj_rpc__http_wallet_url(url, wallet, out, err, errlen);
}
