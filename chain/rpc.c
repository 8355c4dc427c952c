/*
 * JSON-RPC 2.0 client (rpc.h): the requests, their queue, retries and
 * budget.  Below it, two layers that know nothing of it: the transport
 * (rpc_http.h), which reports each transfer's end through the callback
 * given at its creation (on_xfer_end, here), and the answer's pure check
 * (rpc_answer.h).
 *
 * Life of a request: hj_rpc_call/hj_rpc_batch serialise it (ids are fixed
 * at that moment, so every attempt of a call sends the same bytes) into
 * one or more parts, each one HTTP request: a call, or up to the
 * method's limit of a batch's calls (rpc.h, "Batches that fit the
 * node"), and appends them to the queue.  pump() moves queued parts into
 * flight while fewer than max_inflight are there.  When a transfer ends,
 * the transport's report (on_xfer_end) either ends the part (its results
 * kept in its request; the last part's callback), splits it into smaller
 * parts queued at once (a refusal as too many or too large: split()),
 * hands its body to be parsed, or puts it on the waiting list (failed()),
 * sorted by the loop time of its next attempt; one uv_timer_t moves due
 * parts back into the queue, in submission order.  A part's final error
 * ends its request; the request's other parts are then orphans
 * (part->req NULL), dropped as they come out of the queue, flight or
 * parsing.
 *
 * Invariants: every request is on c->reqs until its callback, every part
 * on c->parts until freed, and a part in exactly one of the queue, the
 * waiting list or flight (part->x != NULL), or being parsed.
 * c->inflight counts parts in flight; it never exceeds max_inflight, and
 * neither does the number of easy handles (busy plus pooled).
 *
 * Parsing: an answer of PARSE_AWAY bytes or more (a batch of blocks) is
 * parsed on libuv's thread pool, so that the loop goes on moving bytes and
 * the caller's code runs on another core meanwhile; the part is then
 * in none of the three places (p->parsing), and ends from
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
#include <limits.h>
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
/* Methods whose batch limit is kept; the least recently refused goes. */
#define LIMITS 8
/* Whole parts that pass at a method's limit before it grows by a quarter;
 * and before the smallest size refused is asked again. */
#define GROW_AFTER    32
#define REPROBE_AFTER 1024

typedef struct hj_rpc__req hj_rpc__req;

/* One HTTP request: a caller's call, or a part of a caller's batch, from
 * its first attempt to its end. */
typedef struct hj_rpc__part {
	hj_rpc *c;
	hj_rpc__req *req; /* NULL once its request ended: dropped when it
	                     comes out of the queue, flight or parsing */
	struct hj_rpc__part *prev, *next; /* c->parts */
	struct hj_rpc__part *link;        /* queue or waiting list */
	json_int_t id0; /* its first call's id; also the queue's order */
	size_t off, n;  /* the request's calls off .. off + n - 1 */
	int batch;      /* sent as an array (answer is one) */
	char *body;     /* serialised once: every attempt sends the same */
	size_t body_len;
	char label[112];  /* for messages: the request's, and which calls */
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
	enum hj_rpc__why ans_why;
	char ans_msg[HJ_ERRLEN];
} hj_rpc__part;

/* A caller's request: one call or a batch, from its submission to its
 * callback. */
struct hj_rpc__req {
	hj_rpc *c;
	hj_rpc__req *prev, *next; /* c->reqs */
	json_int_t id0;           /* first id */
	size_t n;                 /* calls */
	int batch;                /* answer is an array even when n == 1 */
	json_t *calls;            /* batch: the call objects, for parts */
	json_t *results;          /* batch: each call's result, or null */
	size_t left;              /* batch: calls not answered yet */
	char label[80];           /* method, or "batch of N (first, ...)" */
	char method[48];          /* the (first) method, cut */
	hj_rpc_cb cb;             /* one of cb and xcb */
	hj_rpc_xcb xcb;           /* hj_rpc_call_x */
	void *arg;
	unsigned flags; /* HJ_RPC_NODE_ERRORS, HJ_RPC_ONCE */
};

/* What the node takes in one batch of a method (rpc.h, "Batches that fit
 * the node"). */
struct limit {
	char method[48]; /* "" for a free slot */
	size_t cap;      /* calls per part */
	size_t good;     /* the largest part that passed since the last
	                    refusal of a larger one */
	size_t bad;      /* the smallest part refused; 0 none */
	unsigned ok;     /* whole parts passed at cap since the last change */
	uint64_t used;   /* when it last changed (a counter) */
};

struct hj_rpc {
	uv_loop_t *loop;
	hj_rpc__http *http; /* the transport below (rpc_http.h) */
	uv_timer_t retry_timer;
	unsigned backoff_min_ms, backoff_max_ms, max_inflight;
	unsigned max_attempts, give_up_ms; /* 0: none */
	size_t max_batch;                  /* 0: none */
	void (*on_retry)(void *, const hj_rpc_retry *);
	void (*on_limit)(void *, const hj_rpc_limit *);
	void *arg;
	void (*observe)(void *, const char *, enum hj_rpc_outcome, uint64_t);
	void *observe_arg;
	json_int_t next_id;
	uint64_t rng;
	hj_rpc__req *reqs, *reqs_tail; /* every pending request */
	size_t npending;
	hj_rpc__part *parts;         /* every part not freed */
	hj_rpc__part *qhead, *qtail; /* queue, by id0 */
	hj_rpc__part *waiting;       /* by due, then id0 */
	unsigned inflight;           /* parts in flight: a transfer each */
	unsigned parsing;            /* answers on the thread pool */
	struct limit limits[LIMITS];
	uint64_t limit_clock;

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

const char *hj_rpc_cause_name(enum hj_rpc_cause c)
{
	static const char *const names[HJ_RPC_CAUSES] = {
	    "connect", "timeout",    "network",    "rate_limited", "http",
	    "auth",    "bad_answer", "node_error", "tls"};

	return (unsigned)c < HJ_RPC_CAUSES ? names[c] : "?";
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
	json_decref(r->calls);
	json_decref(r->results);
	free(r);
}

/* Off c->reqs: no part can end it any more (its parts are dropped as they
 * come out), and hj_rpc_close does not see it. */
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
	for (hj_rpc__part *p = c->parts; p != NULL; p = p->next)
		if (p->req == r)
			p->req = NULL;
}

static void part_free(hj_rpc *c, hj_rpc__part *p)
{
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		c->parts = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	free(p->body);
	free(p->resp);
	free(p);
}

/* ------------------------------------------------------------------ */
/* Batch limits                                                        */

static struct limit *limit_of(hj_rpc *c, const char *method, int make)
{
	struct limit *oldest = &c->limits[0];

	for (size_t i = 0; i < LIMITS; i++) {
		struct limit *l = &c->limits[i];

		if (l->method[0] != '\0' && strcmp(l->method, method) == 0)
			return l;
		if (l->used < oldest->used)
			oldest = l;
	}
	if (!make)
		return NULL;
	memset(oldest, 0, sizeof *oldest);
	snprintf(oldest->method, sizeof oldest->method, "%s", method);
	return oldest;
}

/* Calls per part for a batch of method. */
static size_t part_cap(hj_rpc *c, const char *method)
{
	const struct limit *l = limit_of(c, method, 0);
	size_t cap = c->max_batch != 0 ? c->max_batch : SIZE_MAX;

	return l != NULL && l->cap < cap ? l->cap : cap;
}

static void limit_said(hj_rpc *c, const struct limit *l, size_t refused,
                       const char *why)
{
	hj_rpc_limit e = {.method = l->method,
	                  .limit = l->cap,
	                  .refused = refused,
	                  .why = why};

	if (c->on_limit != NULL)
		c->on_limit(c->arg, &e);
}

/* A part of k >= 2 calls of method was refused as too many or too
 * large. */
static void limit_refused(hj_rpc *c, const char *method, size_t k,
                          const char *why)
{
	struct limit *l = limit_of(c, method, 1);
	size_t was = l->cap, cap;

	if (l->good >= k)
		l->good = 0; /* the node takes less than it did */
	cap = k / 2 > l->good ? k / 2 : l->good;
	if (was != 0 && was < cap)
		cap = was; /* another part lowered it further meanwhile */
	if (l->bad == 0 || k < l->bad)
		l->bad = k;
	l->cap = cap;
	l->ok = 0;
	l->used = ++c->limit_clock;
	if (cap != was)
		limit_said(c, l, k, why);
}

/* A part of k calls of method passed. */
static void limit_passed(hj_rpc *c, const char *method, size_t k)
{
	struct limit *l = limit_of(c, method, 0);
	size_t next;

	if (l == NULL)
		return;
	if (k > l->good)
		l->good = k;
	if (k < l->cap)
		return;
	l->ok++;
	if (l->bad != 0 && l->cap + 1 >= l->bad) {
		if (l->ok < REPROBE_AFTER)
			return;
		l->bad = 0; /* ask the refused size again, once */
	} else if (l->ok < GROW_AFTER) {
		return;
	}
	l->ok = 0;
	next = l->cap + (l->cap / 4 > 1 ? l->cap / 4 : 1);
	if (l->bad != 0 && next >= l->bad)
		next = l->bad - 1;
	if (c->max_batch != 0 && next >= c->max_batch) {
		/* Back to the bound of ours: no limit of the node's known. */
		l->cap = c->max_batch;
		limit_said(c, l, 0, NULL);
		l->method[0] = '\0';
		l->used = 0;
		return;
	}
	l->cap = next;
	limit_said(c, l, 0, NULL);
}

/* ------------------------------------------------------------------ */
/* Scheduling                                                          */

const char *hj_rpc_outcome_name(enum hj_rpc_outcome o)
{
	static const char *const names[HJ_RPC_OUTCOMES] = {"ok", "error",
	                                                   "retried", "failed"};

	return (unsigned)o < HJ_RPC_OUTCOMES ? names[o] : "?";
}

static void observe(hj_rpc *c, const hj_rpc__part *p, enum hj_rpc_outcome o)
{
	if (c->observe != NULL && p->req != NULL)
		c->observe(c->observe_arg, p->req->method, o, p->took_us);
}

/* Inserts p into the queue by submission order: new parts land at the
 * tail in O(1); a retried one goes back before younger ones. */
static void queue_insert(hj_rpc *c, hj_rpc__part *p)
{
	hj_rpc__part **pp = &c->qhead;

	if (c->qtail == NULL || c->qtail->id0 < p->id0) {
		p->link = NULL;
		if (c->qtail != NULL)
			c->qtail->link = p;
		else
			c->qhead = p;
		c->qtail = p;
		return;
	}
	while ((*pp)->id0 < p->id0)
		pp = &(*pp)->link;
	p->link = *pp;
	*pp = p;
}

static hj_rpc__part *queue_pop(hj_rpc *c)
{
	hj_rpc__part *p = c->qhead;

	if (p != NULL) {
		c->qhead = p->link;
		if (c->qhead == NULL)
			c->qtail = NULL;
		p->link = NULL;
	}
	return p;
}

static void on_retry_timer(uv_timer_t *t);
static void pump(hj_rpc *c);

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
		hj_rpc__part *p = c->waiting;

		c->waiting = p->link;
		queue_insert(c, p);
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

/* Ends p's request r (p may be NULL): callback, then free.  r is off
 * c->reqs and its parts are orphans before user code runs, so that
 * hj_rpc_close from the callback never sees it.  e->text gets the
 * request's label in front.  p is freed too. */
static void complete_x(hj_rpc *c, hj_rpc__part *p, json_t *result,
                       const hj_rpc_error *e)
{
	hj_rpc__req *r = p->req;
	char what[HJ_ERRLEN];
	hj_rpc_error ex;

	observe(c, p,
	        e == NULL                    ? HJ_RPC_OK
	        : e->kind == HJ_RPC_ERR_NODE ? HJ_RPC_ERROR
	                                     : HJ_RPC_FAILED);
	req_unlink(c, r);
	if (e != NULL) {
		hj_say(what, sizeof what, "%s: %s", p->label, e->text);
		ex = *e;
		ex.text = what;
		if (ex.message == NULL)
			ex.message = "";
	}
	part_free(c, p);
	if (r->xcb != NULL)
		r->xcb(r->arg, result, e != NULL ? &ex : NULL);
	else
		r->cb(r->arg, result, e != NULL ? what : NULL);
	req_free(r);
}

/* Ends p's request with result (borrowed) or, when msg is not NULL, with
 * a final error (HJ_RPC_ERR_FINAL) saying msg.  p is freed on return. */
static void complete(hj_rpc *c, hj_rpc__part *p, json_t *result,
                     const char *msg)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_FINAL, .text = msg};

	complete_x(c, p, result, msg != NULL ? &e : NULL);
}

/* Attempt p->attempt failed with msg, for cause: wait, then queue again
 * (or, its budget spent, end with an error).  retry_after (seconds, 0
 * for none) is the server's Retry-After, honoured up to backoff_max_ms.
 * p may be freed (by hj_rpc_close in on_retry) on return. */
static void schedule_retry(hj_rpc *c, hj_rpc__part *p, const char *msg,
                           uint64_t retry_after, enum hj_rpc_cause cause)
{
	unsigned base = backoff(c, p->attempt), delay;
	hj_rpc__part **pp = &c->waiting;
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
	if ((c->max_attempts != 0 && p->attempt >= c->max_attempts) ||
	    (c->give_up_ms != 0 && now + delay - p->first > c->give_up_ms)) {
		hj_say(what, sizeof what,
		       "gave up after %u attempt%s in %.1f s: %s", p->attempt,
		       p->attempt == 1 ? "" : "s",
		       (double)(now - p->first) / 1000.0, msg);
		complete(c, p, NULL, what);
		return;
	}
	observe(c, p, HJ_RPC_RETRIED);
	p->due = now + delay;
	while (*pp != NULL && (*pp)->due <= p->due)
		pp = &(*pp)->link;
	p->link = *pp;
	*pp = p;
	if (c->waiting == p)
		arm_retry_timer(c);
	if (c->on_retry != NULL) {
		hj_rpc_retry e = {
		    .what = what,
		    .why = msg,
		    .attempt = p->attempt,
		    .delay_ms = delay,
		    .cause = cause,
		    .retry_after = retry_after < UINT_MAX
		                       ? (unsigned)retry_after
		                       : UINT_MAX,
		};

		hj_say(what, sizeof what, "%s: %s", p->label, msg);
		c->on_retry(c->arg, &e);
	}
}

/* Attempt p->attempt failed with msg, for cause.  retry_after: the
 * server's Retry-After in seconds (0: none).  not_sent: the failure proves
 * the node never executed the request.  A HJ_RPC_ONCE call that may have
 * been executed ends (HJ_RPC_ERR_UNKNOWN); anything else is retried, or
 * ends once its budget is spent.  p may be freed on return. */
static void failed(hj_rpc *c, hj_rpc__part *p, const char *msg,
                   uint64_t retry_after, int not_sent, enum hj_rpc_cause cause)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_UNKNOWN, .text = msg};

	if ((p->req->flags & HJ_RPC_ONCE) && !not_sent) {
		complete_x(c, p, NULL, &e);
		return;
	}
	schedule_retry(c, p, msg, retry_after, cause);
}

/* The node's JSON-RPC error answer errobj (borrowed) ends a
 * HJ_RPC_NODE_ERRORS call (p freed on return). */
static void node_error(hj_rpc *c, hj_rpc__part *p, json_t *errobj,
                       const char *msg)
{
	json_t *code = json_object_get(errobj, "code");
	json_t *text = json_object_get(errobj, "message");
	hj_rpc_error e = {.kind = HJ_RPC_ERR_NODE, .text = msg};

	if (json_is_integer(code))
		e.code = (long long)json_integer_value(code);
	if (json_is_string(text))
		e.message = json_string_value(text);
	complete_x(c, p, NULL, &e);
}

/* ------------------------------------------------------------------ */
/* Parts                                                               */

/* A new part of r: calls off .. off + n - 1, as an array when batch (a
 * batch request's calls), else as one call; body is the request's own
 * (taken) for a request of one call.  Queued at once.  Returns 0 or
 * -ENOMEM (body freed). */
static int part_add(hj_rpc *c, hj_rpc__req *r, size_t off, size_t n, int batch,
                    char *body)
{
	hj_rpc__part *p = calloc(1, sizeof *p);
	json_t *slice = NULL;

	if (p == NULL)
		goto fail;
	if (body == NULL && batch && n == r->n) {
		body = json_dumps(r->calls, JSON_COMPACT);
	} else if (body == NULL && batch) {
		slice = json_array();
		for (size_t i = 0; slice != NULL && i < n; i++)
			if (json_array_append(
			        slice, json_array_get(r->calls, off + i)) != 0)
				goto fail;
		body = slice != NULL ? json_dumps(slice, JSON_COMPACT) : NULL;
	} else if (body == NULL) {
		body = json_dumps(json_array_get(r->calls, off), JSON_COMPACT);
	}
	if (body == NULL)
		goto fail;
	json_decref(slice);
	p->c = c;
	p->req = r;
	p->id0 = r->id0 + (json_int_t)off;
	p->off = off;
	p->n = n;
	p->batch = batch;
	p->body = body;
	p->body_len = strlen(body);
	if (n == r->n)
		snprintf(p->label, sizeof p->label, "%s", r->label);
	else if (n == 1)
		snprintf(p->label, sizeof p->label, "%s, call %zu alone",
		         r->label, off + 1);
	else
		snprintf(p->label, sizeof p->label, "%s, calls %zu to %zu",
		         r->label, off + 1, off + n);
	p->next = c->parts;
	if (c->parts != NULL)
		c->parts->prev = p;
	c->parts = p;
	queue_insert(c, p);
	return 0;
fail:
	json_decref(slice);
	free(body);
	free(p);
	return -ENOMEM;
}

/* r's calls off .. off + n - 1 in parts of at most its method's cap:
 * 0 or -ENOMEM. */
static int parts_add(hj_rpc *c, hj_rpc__req *r, size_t off, size_t n)
{
	size_t cap = part_cap(c, r->method);

	while (n > 0) {
		size_t k = n < cap ? n : cap;
		/* A caller's batch of one stays one, unless the node was
		 * found to take no batch. */
		int batch = k > 1 || (r->batch && r->n == 1 && cap > 1);

		if (part_add(c, r, off, k, batch, NULL) != 0)
			return -ENOMEM;
		off += k;
		n -= k;
	}
	return 0;
}

/* p can be asked in smaller pieces: several calls, or one call sent as
 * a batch of one (sent plain next). */
static int can_shrink(const hj_rpc__part *p)
{
	return p->n > 1 || p->batch;
}

/* p (can_shrink) was refused as too many or too large (why): its calls
 * go again at once in smaller parts, the method's limit lowered.  p is
 * freed on return. */
static void split(hj_rpc *c, hj_rpc__part *p, const char *why)
{
	hj_rpc__req *r = p->req;
	char what[HJ_ERRLEN];
	int rc;

	hj_say(what, sizeof what, "%s: %s", p->label, why);
	if (p->n > 1) {
		limit_refused(c, r->method, p->n, what);
		rc = parts_add(c, r, p->off, p->n);
	} else {
		/* A batch of one refused: the node takes no batch. */
		struct limit *l = limit_of(c, r->method, 1);

		if (l->cap != 1) {
			l->cap = 1;
			l->bad = 2;
			l->used = ++c->limit_clock;
			limit_said(c, l, 1, what);
		}
		rc = part_add(c, r, p->off, 1, 0, NULL);
	}
	if (rc != 0) {
		complete(c, p, NULL, "out of memory");
		return;
	}
	observe(c, p, HJ_RPC_RETRIED);
	part_free(c, p);
	pump(c);
}

/* p's result (borrowed): the whole answer of a call, or its calls'
 * part of a batch's.  p is freed on return. */
static void part_done(hj_rpc *c, hj_rpc__part *p, json_t *result)
{
	hj_rpc__req *r = p->req;

	if (!r->batch) {
		complete(c, p, result, NULL);
		return;
	}
	if (p->batch) {
		for (size_t i = 0; i < p->n; i++)
			json_array_set(r->results, p->off + i,
			               json_array_get(result, i));
	} else {
		json_array_set(r->results, p->off, result);
	}
	r->left -= p->n;
	limit_passed(c, r->method, p->n);
	if (r->left == 0) {
		complete(c, p, r->results, NULL);
		return;
	}
	observe(c, p, HJ_RPC_OK);
	part_free(c, p);
}

/* p was refused as too large, and it is one call: nothing smaller can be
 * asked.  Ends its request. */
static void too_large_alone(hj_rpc *c, hj_rpc__part *p, const char *msg)
{
	char what[HJ_ERRLEN];

	hj_say(what, sizeof what,
	       "%s (one call is refused as too large: nothing smaller can "
	       "be asked)",
	       msg);
	complete(c, p, NULL, what);
}

/* ------------------------------------------------------------------ */
/* Attempts                                                            */

/* Starts attempt p->attempt + 1.  On failure the attempt counts as failed
 * and is retried like any other; p may be freed on return. */
static void start_attempt(hj_rpc *c, hj_rpc__part *p)
{
	char msg[HJ_ERRLEN];
	hj_rpc__http_send s = {
	    .body = p->body,
	    .len = p->body_len,
	    .id0 = p->id0,
	    .several = p->n > 1,
	    .node_errors = (p->req->flags & HJ_RPC_NODE_ERRORS) != 0,
	    /* Not even libcurl may send a HJ_RPC_ONCE call twice. */
	    .fresh = (p->req->flags & HJ_RPC_ONCE) != 0,
	};
	int rc;

	if (p->attempt++ == 0)
		p->first = uv_now(c->loop);
	p->started = uv_hrtime();
	p->took_us = 0;
	rc = hj_rpc__http_start(c->http, p, &s, &p->x, msg, sizeof msg);
	if (rc == 0)
		c->inflight++;
	else if (rc == -EPERM)
		complete(c, p, NULL, msg);
	else
		schedule_retry(c, p, msg, 0, HJ_RPC_CAUSE_CONNECT);
}

/* Moves queued parts into flight while there is room; a part whose
 * request ended is dropped, one above its method's limit (learnt since
 * it was queued) goes in parts. */
static void pump(hj_rpc *c)
{
	while (!c->closing && c->inflight < c->max_inflight &&
	       c->qhead != NULL) {
		hj_rpc__part *p = queue_pop(c);

		if (p->req == NULL) {
			part_free(c, p);
		} else if (p->n > part_cap(c, p->req->method)) {
			/* Queued before the node's limit was learnt. */
			if (parts_add(c, p->req, p->off, p->n) != 0) {
				complete(c, p, NULL, "out of memory");
				continue;
			}
			part_free(c, p);
		} else {
			start_attempt(c, p);
		}
	}
}

/* p's 2xx answer was parsed (hj_rpc__answer's outputs, taken): complete
 * p or its request, split it, or schedule a retry. */
static void answered(hj_rpc *c, hj_rpc__part *p, int rc, json_t *result,
                     json_t *errobj, enum hj_rpc__why why, const char *msg)
{
	free(p->resp);
	p->resp = NULL;
	p->resp_len = 0;
	if (rc != 0 && errobj != NULL && (p->req->flags & HJ_RPC_NODE_ERRORS)) {
		node_error(c, p, errobj, msg);
		json_decref(errobj);
		return;
	}
	json_decref(errobj);
	if (rc == 0)
		part_done(c, p, result);
	else if ((why == HJ_RPC__ANS_LIMIT || why == HJ_RPC__ANS_CUT) &&
	         can_shrink(p))
		split(c, p, msg);
	else if (why == HJ_RPC__ANS_LIMIT)
		too_large_alone(c, p, msg);
	else
		failed(c, p, msg, 0, 0,
		       why == HJ_RPC__ANS_NODE ? HJ_RPC_CAUSE_NODE_ERROR
		                               : HJ_RPC_CAUSE_BAD_ANSWER);
	json_decref(result);
}

unsigned hj_rpc__parsing(const hj_rpc *c)
{
	return c->parsing;
}

/* On a thread of the pool: only p's body and its own outputs. */
static void parse_work(uv_work_t *w)
{
	hj_rpc__part *p = w->data;

	p->ans_rc = hj_rpc__answer(p->resp, p->resp_len, p->id0, p->n, p->batch,
	                           &p->ans_result, &p->ans_error, &p->ans_why,
	                           p->ans_msg, sizeof p->ans_msg);
}

/* Back on the loop.  A client closed meanwhile left p to us (hj_rpc_close
 * took it off c->parts); the last parse of a closed client frees it.  A
 * part whose request ended meanwhile is dropped. */
static void parse_done(uv_work_t *w, int status)
{
	hj_rpc__part *p = w->data;
	hj_rpc *c = p->c;

	(void)status; /* never cancelled: nothing calls uv_cancel */
	p->parsing = 0;
	c->parsing--;
	if (c->closing || p->req == NULL) {
		json_decref(p->ans_result);
		json_decref(p->ans_error);
		if (c->closing) {
			free(p->body);
			free(p->resp);
			free(p);
			if (c->parsing == 0 && c->open_handles == 0)
				client_free(c);
		} else {
			part_free(c, p);
		}
		return;
	}
	answered(c, p, p->ans_rc, p->ans_result, p->ans_error, p->ans_why,
	         p->ans_msg);
	pump(c);
}

/* p's 2xx body is kept in p->resp: parsed (on the thread pool when large),
 * then p completes or is retried.  p may be freed on return. */
static void got_body(hj_rpc *c, hj_rpc__part *p)
{
	json_t *result = NULL, *errobj = NULL;
	enum hj_rpc__why why;
	char msg[HJ_ERRLEN];
	int rc;

	p->work.data = p;
	if (p->resp_len >= PARSE_AWAY &&
	    uv_queue_work(c->loop, &p->work, parse_work, parse_done) == 0) {
		p->parsing = 1;
		c->parsing++;
		return;
	}
	rc = hj_rpc__answer(p->resp, p->resp_len, p->id0, p->n, p->batch,
	                    &result, &errobj, &why, msg, sizeof msg);
	answered(c, p, rc, result, errobj, why, msg);
}

/* ------------------------------------------------------------------ */
/* What the transport reports                                          */

/* The transfer of p (the part it was started with) ended: the outcome
 * becomes p's end, a split, a retry, or a body to parse. */
static void on_xfer_end(void *arg, void *req, const hj_rpc__xfer_outcome *o)
{
	hj_rpc *c = arg;
	hj_rpc__part *p = req;

	p->took_us = (o->ended - p->started) / 1000;
	p->x = NULL;
	c->inflight--;
	if (p->req == NULL) {
		if (o->end == HJ_RPC__XFER_BODY)
			free(o->body);
		part_free(c, p);
		return;
	}
	switch (o->end) {
	case HJ_RPC__XFER_BODY:
		p->resp = o->body;
		p->resp_len = o->len;
		got_body(c, p);
		break;
	case HJ_RPC__XFER_FAILED:
		/* A batch not answered in time is one too large for the
		 * node to answer in time, as much as one refused. */
		if ((o->limit != HJ_RPC__LIMIT_NONE && can_shrink(p)) ||
		    (o->cause == HJ_RPC_CAUSE_TIMEOUT && p->n > 1))
			split(c, p, o->msg);
		else if (o->limit == HJ_RPC__LIMIT_REFUSED)
			too_large_alone(c, p, o->msg);
		else
			failed(c, p, o->msg, o->retry_after, o->not_sent,
			       o->cause);
		break;
	case HJ_RPC__XFER_FINAL:
		if (o->limit != HJ_RPC__LIMIT_NONE && can_shrink(p))
			split(c, p, o->msg);
		else
			complete(c, p, NULL, o->msg);
		break;
	case HJ_RPC__XFER_NODE_ERROR:
		node_error(c, p, o->errobj, o->msg);
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
	c->max_batch = o->max_batch;
	c->on_retry = o->on_retry;
	c->on_limit = o->on_limit;
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
	if (!batch && body == NULL) {
		body = json_dumps(doc, JSON_COMPACT);
		if (body == NULL)
			goto fail;
	}
	r->c = c;
	r->id0 = id0;
	r->n = n;
	r->batch = batch;
	r->cb = cb;
	r->xcb = xcb;
	r->flags = flags;
	r->arg = arg;
	if (batch) {
		r->calls = doc;
		doc = NULL;
		r->left = n;
		r->results = json_array();
		for (size_t k = 0; r->results != NULL && k < n; k++)
			if (json_array_append_new(r->results, json_null()) != 0)
				goto fail;
		if (r->results == NULL)
			goto fail;
	}
	if (batch)
		snprintf(r->label, sizeof r->label, "batch of %zu (%s%s)", n,
		         methods[0], n > 1 ? ", ..." : "");
	else
		snprintf(r->label, sizeof r->label, "%s", methods[0]);
	snprintf(r->method, sizeof r->method, "%s", methods[0]);
	/* Parts refer to r: on c->reqs from here, so that a failure below
	 * leaves no part behind (req_unlink orphans them). */
	r->prev = c->reqs_tail;
	if (c->reqs_tail != NULL)
		c->reqs_tail->next = r;
	else
		c->reqs = r;
	c->reqs_tail = r;
	c->npending++;
	rc = batch ? parts_add(c, r, 0, n) : part_add(c, r, 0, 1, 0, body);
	body = NULL; /* part_add took it */
	if (rc != 0) {
		req_unlink(c, r);
		req_free(r);
		json_decref(doc);
		return rc;
	}
	json_decref(doc);
	c->next_id += (json_int_t)n;
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
	/* The transfers in flight go first: they post the parts' bodies. */
	hj_rpc__http_close(c->http);
	c->inflight = 0;
	while (c->parts != NULL) {
		hj_rpc__part *p = c->parts;

		c->parts = p->next;
		if (p->parsing)
			continue; /* parse_done frees it */
		free(p->body);
		free(p->resp);
		free(p);
	}
	while (c->reqs != NULL) {
		hj_rpc__req *r = c->reqs;

		c->reqs = r->next;
		req_free(r);
	}
	c->reqs_tail = NULL;
	c->npending = 0;
	c->qhead = c->qtail = c->waiting = NULL;
	uv_close((uv_handle_t *)&c->retry_timer, on_timer_closed);
}

int hj_rpc_wallet_url(const char *url, const char *wallet, char **out,
                      char *err, size_t errlen)
{
	return hj_rpc__http_wallet_url(url, wallet, out, err, errlen);
}
