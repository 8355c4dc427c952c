/*
 * JSON-RPC 2.0 client: libcurl's multi_socket API on a libuv loop.
 *
 * Life of a request: hj_rpc_call/hj_rpc_batch serialise it once (ids are
 * fixed at that moment, so every attempt sends the same bytes) and append it
 * to the queue.  pump() moves queued requests into flight while fewer than
 * max_inflight are there.  When curl reports a transfer done, on_done()
 * either completes the request (callback, then free) or puts it on the
 * waiting list, sorted by the loop time of its next attempt; one uv_timer_t
 * moves due requests back into the queue, in submission order.
 *
 * Invariants: every request is on c->reqs until completed or dropped, and
 * in exactly one of the queue, the waiting list or flight (req->x != NULL).
 * c->inflight counts requests in flight; it never exceeds max_inflight, and
 * neither does the number of easy handles (busy plus pooled).  Idle
 * connections live in the multi handle's cache, which every easy handle
 * shares, so keep-alive does not depend on which easy handle is reused.
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
 * Handles: two timers (curl's and ours) and one uv_poll_t per socket curl
 * asks us to watch.  Memory of a handle is freed only in its close callback;
 * the client itself is freed from the last one (c->open_handles reaching 0
 * after hj_rpc_close) once no answer is being parsed (c->parsing).
 *
 * User code (callbacks, on_retry) may call hj_rpc_call, hj_rpc_batch or
 * hj_rpc_close; it never runs inside a curl callback, and every loop that
 * calls it re-checks c->closing afterwards.
 */
#include "rpc.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

#ifndef HJ_VERSION_STRING
#define HJ_VERSION_STRING "0"
#endif

#define MSG_MAX 1024
/* Bytes of a non-2xx body kept to quote in messages; the rest is dropped. */
#define SNIPPET_MAX 200
/* Bytes of a non-2xx body kept for a call that wants the node's error
 * answer (HJ_RPC_NODE_ERRORS): Bitcoin Core sends its JSON-RPC errors with
 * HTTP 500.  An error answer is small; a longer body is cut and then is not
 * JSON, which counts as no answer. */
#define ERRBODY_MAX 65536
/* First allocation of a body whose length the server did not announce. */
#define BODY_MIN 16384
/* Answers this long are parsed on the thread pool (see the top). */
#define PARSE_AWAY 32768

/* An easy handle with its error buffer; pooled between attempts. */
struct xfer {
	CURL *easy;
	struct xfer *next; /* pool */
	char errbuf[CURL_ERROR_SIZE];
};

/* A socket curl wants watched. */
struct sock {
	uv_poll_t poll;
	hj_rpc *c;
	curl_socket_t fd;
	struct sock *prev, *next; /* c->socks, until curl removes it */
};

struct req {
	hj_rpc *c;
	struct req *prev, *next; /* c->reqs */
	struct req *link;        /* queue or waiting list */
	json_int_t id0;          /* first id; also the submission order */
	size_t n;                /* calls */
	int batch;               /* answer is an array even when n == 1 */
	char *body;              /* the request, serialised once */
	size_t body_len;
	char label[80];  /* method, or "batch of N (first method, ...)" */
	char method[48]; /* the (first) method, cut: for observe */
	hj_rpc_cb cb;    /* one of cb and xcb */
	hj_rpc_xcb xcb;  /* hj_rpc_call_x */
	void *arg;
	unsigned flags;    /* HJ_RPC_NODE_ERRORS, HJ_RPC_ONCE */
	unsigned attempt;  /* attempts started */
	uint64_t first;    /* loop time (ms) of the first attempt's start */
	unsigned cookie;   /* the cookie's reading it was sent with */
	uint64_t due;      /* waiting: loop time (ms) of the next attempt */
	uint64_t started;  /* uv_hrtime() at the attempt's start */
	uint64_t took_us;  /* the attempt's time to its last byte, or 0 */
	struct xfer *x;    /* in flight */
	hj_rpc__body resp; /* the response body, as on_write keeps it */
	/* Parsed on the thread pool: hj_rpc__answer's outputs. */
	int parsing;
	uv_work_t work;
	int ans_rc;
	json_t *ans_result, *ans_error;
	char ans_msg[MSG_MAX];
};

struct hj_rpc {
	uv_loop_t *loop;
	CURLM *multi;
	uv_timer_t curl_timer;
	uv_timer_t retry_timer;
	char *url, *user, *password;
	char *cookie_file; /* user and password come from here */
	int cookie_stale;  /* read it again before the next attempt */
	unsigned cookie;   /* readings of the cookie file */
	char *refused;     /* the password of the cookie the node refused */
	struct curl_slist *headers;
	size_t max_response;
	unsigned timeout_ms, backoff_min_ms, backoff_max_ms, max_inflight;
	unsigned max_attempts, give_up_ms; /* 0: none */
	void (*on_retry)(void *, const char *, unsigned, unsigned);
	void *arg;
	void (*observe)(void *, const char *, enum hj_rpc_outcome, uint64_t);
	void *observe_arg;

	json_int_t next_id;
	uint64_t rng;
	struct req *reqs, *reqs_tail; /* every pending request */
	size_t npending;
	struct req *qhead, *qtail; /* queue, by id0 */
	struct req *waiting;       /* by due, then id0 */
	unsigned inflight;
	struct xfer *pool;
	struct sock *socks;

	int closing;
	unsigned open_handles; /* initialised, close callback not yet run */
	unsigned parsing;      /* answers on the thread pool */
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

/* Secrets are wiped before their memory goes back to the allocator. */
static void free_secret(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* ------------------------------------------------------------------ */
/* Teardown                                                            */

static void client_free(hj_rpc *c)
{
	void (*done)(void *) = c->done;
	void *arg = c->done_arg;

	if (c->multi != NULL)
		curl_multi_cleanup(c->multi);
	curl_slist_free_all(c->headers); /* the bearer line is in here */
	free(c->url);
	free_secret(c->user);
	free_secret(c->password);
	free_secret(c->refused);
	free(c->cookie_file);
	free(c);
	curl_global_cleanup();
	if (done != NULL)
		done(arg);
}

static void handle_closed(hj_rpc *c)
{
	if (--c->open_handles == 0 && c->closing && c->parsing == 0)
		client_free(c);
}

static void on_timer_closed(uv_handle_t *h)
{
	handle_closed(h->data);
}

static void on_sock_closed(uv_handle_t *h)
{
	struct sock *k = h->data;
	hj_rpc *c = k->c;

	free(k);
	handle_closed(c);
}

static void sock_close(hj_rpc *c, struct sock *k)
{
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		c->socks = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	uv_poll_stop(&k->poll);
	uv_close((uv_handle_t *)&k->poll, on_sock_closed);
}

static void xfer_free(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	free(x);
}

static void req_free(struct req *r)
{
	free(r->body);
	free(r->resp.buf);
	free(r);
}

static void req_unlink(hj_rpc *c, struct req *r)
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
/* curl's side of the loop                                             */

static void check_multi_info(hj_rpc *c);

static void on_poll(uv_poll_t *p, int status, int events)
{
	struct sock *k = p->data;
	hj_rpc *c = k->c;
	int flags = 0, running;

	if (c->closing)
		return;
	if (status < 0) {
		flags = CURL_CSELECT_ERR;
	} else {
		if (events & UV_READABLE)
			flags |= CURL_CSELECT_IN;
		if (events & UV_WRITABLE)
			flags |= CURL_CSELECT_OUT;
	}
	curl_multi_socket_action(c->multi, k->fd, flags, &running);
	check_multi_info(c);
}

static void on_curl_timer(uv_timer_t *t)
{
	hj_rpc *c = t->data;
	int running;

	if (c->closing)
		return;
	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_multi_info(c);
}

/* CURLMOPT_TIMERFUNCTION: -1 stops the timer; 0 means "as soon as
 * possible", which a zero timer gives without calling curl back from inside
 * curl. */
static int timer_fn(CURLM *m, long ms, void *ud)
{
	hj_rpc *c = ud;

	(void)m;
	if (c->closing)
		return 0;
	if (ms < 0)
		uv_timer_stop(&c->curl_timer);
	else
		uv_timer_start(&c->curl_timer, on_curl_timer, (uint64_t)ms, 0);
	return 0;
}

/* CURLMOPT_SOCKETFUNCTION: one uv_poll_t per socket, created on first use,
 * closed when curl says CURL_POLL_REMOVE (before it closes the socket). */
static int socket_fn(CURL *e, curl_socket_t s, int what, void *ud, void *sp)
{
	hj_rpc *c = ud;
	struct sock *k = sp;
	int events = 0;

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		if (k != NULL) {
			sock_close(c, k);
			/* During curl_multi_cleanup the socket hash is going
			 * away; curl forgets the pointer with the entry. */
			if (!c->closing)
				curl_multi_assign(c->multi, s, NULL);
		}
		return 0;
	}
	if (c->closing)
		return -1;
	if (k == NULL) {
		k = calloc(1, sizeof *k);
		if (k == NULL)
			return -1;
		if (uv_poll_init_socket(c->loop, &k->poll, s) != 0) {
			free(k);
			return -1;
		}
		k->poll.data = k;
		k->c = c;
		k->fd = s;
		k->next = c->socks;
		if (c->socks != NULL)
			c->socks->prev = k;
		c->socks = k;
		c->open_handles++;
		curl_multi_assign(c->multi, s, k);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	if (uv_poll_start(&k->poll, events, on_poll) != 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Response body                                                       */

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

/* CURLOPT_WRITEFUNCTION: hj_rpc__keep, told the status and the announced
 * length with the first piece.  0 aborts the transfer (CURLE_WRITE_ERROR):
 * a 2xx body above max_response.  Of any other status only a snippet is
 * kept for the message, or, for a call that wants the node's error answer,
 * up to ERRBODY_MAX bytes. */
static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct req *r = ud;
	hj_rpc__body *b = &r->resp;

	if (!b->started) {
		curl_off_t cl = -1;

		curl_easy_getinfo(r->x->easy, CURLINFO_RESPONSE_CODE,
		                  &b->status);
		curl_easy_getinfo(r->x->easy,
		                  CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
		b->announced = (long long)cl;
		b->max = r->c->max_response;
		b->other = SNIPPET_MAX;
		if (r->flags & HJ_RPC_NODE_ERRORS)
			b->other = ERRBODY_MAX < b->max ? ERRBODY_MAX : b->max;
	}
	return hj_rpc__keep(b, p, size * nmemb);
}

static void resp_release(struct req *r)
{
	free(r->resp.buf);
	r->resp.buf = NULL;
	r->resp.len = r->resp.cap = 0;
}

/* The kept bytes of a body, quoted for a message. */
static void snippet(const struct req *r, char *buf, size_t n)
{
	char tmp[SNIPPET_MAX + 1];
	size_t len = r->resp.len < SNIPPET_MAX ? r->resp.len : SNIPPET_MAX;

	for (size_t i = 0; i < len; i++)
		tmp[i] = r->resp.buf[i] != '\0' ? r->resp.buf[i] : '?';
	tmp[len] = '\0';
	hj_quote(tmp, buf, n);
}

/* ------------------------------------------------------------------ */
/* JSON-RPC envelopes                                                  */

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
		snprintf(msg, n, "response is not a JSON-RPC object: %s",
		         shown);
		return NULL;
	}
	v = json_object_get(o, "jsonrpc");
	if (v != NULL &&
	    !(json_is_string(v) && strcmp(json_string_value(v), "2.0") == 0)) {
		show(v, shown, sizeof shown);
		snprintf(msg, n, "response has \"jsonrpc\": %s, not \"2.0\"",
		         shown);
		return NULL;
	}
	v = json_object_get(o, "id");
	if (!json_is_integer(v) || json_integer_value(v) != id) {
		show(v != NULL ? v : json_null(), shown, sizeof shown);
		snprintf(msg, n,
		         "response id %s does not match request id %lld", shown,
		         (long long)id);
		return NULL;
	}
	err = json_object_get(o, "error");
	if (err != NULL && !json_is_null(err)) {
		json_t *code = json_object_get(err, "code");
		json_t *text = json_object_get(err, "message");

		if (json_is_integer(code) && json_is_string(text)) {
			hj_quote(json_string_value(text), shown, sizeof shown);
			snprintf(msg, n, "JSON-RPC error %lld: %s",
			         (long long)json_integer_value(code), shown);
		} else {
			show(err, shown, sizeof shown);
			snprintf(msg, n, "JSON-RPC error %s", shown);
		}
		if (errobj != NULL)
			*errobj = err;
		return NULL;
	}
	res = json_object_get(o, "result");
	if (res == NULL)
		snprintf(msg, n,
		         "response has neither \"result\" nor \"error\"");
	return res;
}

/* The results of a batch response to the calls of ids id0 .. id0 + nc - 1
 * in request order: a new array, or NULL with the reason in msg.  Every id
 * must appear exactly once. */
static json_t *check_batch(json_int_t id0, size_t nc, json_t *doc, char *msg,
                           size_t n)
{
	json_t **slot = NULL, *out = NULL, *el, *e;
	size_t i;
	char why[MSG_MAX / 2];

	e = json_object_get(doc, "error");
	if (e != NULL && !json_is_null(e)) {
		/* The server refused the batch as a whole. */
		char shown[160];

		show(e, shown, sizeof shown);
		snprintf(msg, n, "batch refused: JSON-RPC error %s", shown);
		return NULL;
	}
	if (!json_is_array(doc)) {
		snprintf(msg, n, "batch response is not an array");
		return NULL;
	}
	slot = calloc(nc, sizeof *slot);
	if (slot == NULL) {
		snprintf(msg, n, "out of memory");
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
			snprintf(msg, n, "batch response repeats id %lld",
			         (long long)json_integer_value(id));
			goto out;
		}
		res = check_one(el, json_integer_value(id), why, sizeof why,
		                NULL);
		if (res == NULL) {
			snprintf(msg, n, "call %lld of %zu: %s",
			         (long long)k + 1, nc, why);
			goto out;
		}
		slot[k] = res;
	}
	for (i = 0; i < nc; i++) {
		if (slot[i] == NULL) {
			snprintf(msg, n, "batch response lacks id %lld",
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
		snprintf(msg, n, "out of memory");
out:
	free(slot);
	return out;
}

int hj_rpc__answer(const char *body, size_t len, json_int_t id0, size_t n,
                   int batch, json_t **result, json_t **error, char *msg,
                   size_t msglen)
{
	json_t *doc, *errobj = NULL;
	json_error_t je;
	char shown[240];

	*result = NULL;
	if (error != NULL)
		*error = NULL;
	doc = json_loadb(body != NULL ? body : "", len, 0, &je);
	if (doc == NULL) {
		hj_quote(je.text, shown, sizeof shown);
		snprintf(msg, msglen,
		         "response is not JSON: %s at line %d, column %d",
		         shown, je.line, je.column);
		return -1;
	}
	if (batch) {
		*result = check_batch(id0, n, doc, msg, msglen);
	} else {
		*result =
		    json_incref(check_one(doc, id0, msg, msglen, &errobj));
		if (*result == NULL && errobj != NULL && error != NULL)
			*error = json_incref(errobj);
	}
	json_decref(doc);
	return *result != NULL ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Scheduling                                                          */

const char *hj_rpc_outcome_name(enum hj_rpc_outcome o)
{
	static const char *const names[HJ_RPC_OUTCOMES] = {"ok", "error",
	                                                   "retried", "failed"};

	return (unsigned)o < HJ_RPC_OUTCOMES ? names[o] : "?";
}

static void observe(hj_rpc *c, const struct req *r, enum hj_rpc_outcome o)
{
	if (c->observe != NULL)
		c->observe(c->observe_arg, r->method, o, r->took_us);
}

static void pump(hj_rpc *c);

/* Inserts r into the queue by submission order: new requests land at the
 * tail in O(1); a retried one goes back before younger ones. */
static void queue_insert(hj_rpc *c, struct req *r)
{
	struct req **pp = &c->qhead;

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

static struct req *queue_pop(hj_rpc *c)
{
	struct req *r = c->qhead;

	if (r != NULL) {
		c->qhead = r->link;
		if (c->qhead == NULL)
			c->qtail = NULL;
		r->link = NULL;
	}
	return r;
}

static void on_retry_timer(uv_timer_t *t);

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
		struct req *r = c->waiting;

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

static void complete(hj_rpc *c, struct req *r, json_t *result, const char *msg);

/* Attempt r->attempt failed with msg: wait, then queue again (or, its
 * budget spent, end with an error).  retry_after
 * (seconds, 0 for none) is the server's Retry-After, honoured up to
 * backoff_max_ms.  r may be freed (by hj_rpc_close in on_retry) on return. */
static void schedule_retry(hj_rpc *c, struct req *r, const char *msg,
                           uint64_t retry_after)
{
	unsigned base = backoff(c, r->attempt), delay;
	struct req **pp = &c->waiting;
	char what[MSG_MAX + 96];
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
		snprintf(what, sizeof what,
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
		snprintf(what, sizeof what, "%s: %s", r->label, msg);
		c->on_retry(c->arg, what, r->attempt, delay);
	}
}

/* Ends r: callback, then free.  r is off every list before user code
 * runs, so hj_rpc_close from the callback never sees it.  e->text gets the
 * request's label in front. */
static void complete_x(hj_rpc *c, struct req *r, json_t *result,
                       const hj_rpc_error *e)
{
	char what[MSG_MAX + 96];
	hj_rpc_error ex;

	req_unlink(c, r);
	observe(c, r,
	        e == NULL                    ? HJ_RPC_OK
	        : e->kind == HJ_RPC_ERR_NODE ? HJ_RPC_ERROR
	                                     : HJ_RPC_FAILED);
	if (e != NULL) {
		snprintf(what, sizeof what, "%s: %s", r->label, e->text);
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

static void complete(hj_rpc *c, struct req *r, json_t *result, const char *msg)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_FINAL, .text = msg};

	complete_x(c, r, result, msg != NULL ? &e : NULL);
}

/* Attempt r->attempt failed with msg.  not_sent: the failure proves the
 * node never executed the request.  A HJ_RPC_ONCE call whose request may
 * have been executed ends here (HJ_RPC_ERR_UNKNOWN); anything else is
 * retried.  r may be freed on return. */
static void failed(hj_rpc *c, struct req *r, const char *msg,
                   uint64_t retry_after, int not_sent)
{
	hj_rpc_error e = {.kind = HJ_RPC_ERR_UNKNOWN, .text = msg};

	if ((r->flags & HJ_RPC_ONCE) && !not_sent) {
		complete_x(c, r, NULL, &e);
		return;
	}
	schedule_retry(c, r, msg, retry_after);
}

/* The node's JSON-RPC error answer ends a HJ_RPC_NODE_ERRORS call. */
static void node_error(hj_rpc *c, struct req *r, json_t *errobj,
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
/* Transfers                                                           */

static struct xfer *xfer_get(hj_rpc *c)
{
	struct xfer *x = c->pool;
	CURL *e;
	int bad = 0;

	if (x != NULL) {
		c->pool = x->next;
		x->next = NULL;
		return x;
	}
	x = calloc(1, sizeof *x);
	if (x == NULL)
		return NULL;
	e = x->easy = curl_easy_init();
	if (e == NULL) {
		free(x);
		return NULL;
	}
	bad |= curl_easy_setopt(e, CURLOPT_URL, c->url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_POST, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->headers) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT,
	                        "hashjackd/" HJ_VERSION_STRING) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms) !=
	       CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	                        (long)c->timeout_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf) != CURLE_OK;
	if (c->user != NULL || c->cookie_file != NULL)
		bad |= curl_easy_setopt(e, CURLOPT_HTTPAUTH,
		                        (long)CURLAUTH_BASIC) != CURLE_OK;
	if (bad) {
		xfer_free(x);
		return NULL;
	}
	return x;
}

/* Reads "user:password" from the cookie file into c->user, c->password.
 * Returns 0, or -1 with msg saying why. */
static int read_cookie(hj_rpc *c, char *msg, size_t n)
{
	char buf[512];
	size_t len;
	FILE *f = fopen(c->cookie_file, "re");
	char *colon;

	if (f == NULL) {
		snprintf(msg, n,
		         "cannot read the cookie file %s: %s (is the node "
		         "running? set [chain] rpc_cookie_file to its "
		         "<datadir>/<network>/.cookie)",
		         c->cookie_file, strerror(errno));
		return -1;
	}
	len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = '\0';
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	colon = strchr(buf, ':');
	if (colon == NULL || colon == buf || strchr(buf, '\n') != NULL ||
	    len == sizeof buf - 1) {
		explicit_bzero(buf, sizeof buf);
		snprintf(msg, n,
		         "the cookie file %s does not hold one line "
		         "user:password",
		         c->cookie_file);
		return -1;
	}
	*colon = '\0';
	free_secret(c->user);
	free_secret(c->password);
	c->user = strdup(buf);
	c->password = strdup(colon + 1);
	explicit_bzero(buf, sizeof buf);
	if (c->user == NULL || c->password == NULL) {
		snprintf(msg, n, "out of memory reading the cookie file");
		return -1;
	}
	c->cookie_stale = 0;
	c->cookie++;
	return 0;
}

/* Starts attempt r->attempt + 1.  On failure the attempt counts as failed
 * and is retried like any other; r may be freed on return. */
static void start_attempt(hj_rpc *c, struct req *r)
{
	struct xfer *x;
	CURLMcode mc;

	if (r->attempt++ == 0)
		r->first = uv_now(c->loop);
	r->started = uv_hrtime();
	r->took_us = 0;
	if (c->cookie_file != NULL && c->cookie_stale) {
		char msg[MSG_MAX];

		if (read_cookie(c, msg, sizeof msg)) {
			schedule_retry(c, r, msg, 0);
			return;
		}
		/* A node that restarted wrote a new cookie; the one it refused
		 * still there is not this node's. */
		if (c->refused != NULL &&
		    strcmp(c->refused, c->password) == 0) {
			snprintf(
			    msg, sizeof msg,
			    "HTTP 401 from the node, not retried: it refuses "
			    "the cookie file %s as it is (is it this node's, "
			    "<datadir>/<network>/.cookie?)",
			    c->cookie_file);
			complete(c, r, NULL, msg);
			return;
		}
	}
	r->cookie = c->cookie;
	x = xfer_get(c);
	if (x == NULL) {
		schedule_retry(c, r, "cannot set up a transfer (out of memory)",
		               0);
		return;
	}
	x->errbuf[0] = '\0';
	r->resp.len = 0;
	r->resp.too_big = 0;
	r->resp.started = 0;
	r->resp.status = 0;
	r->x = x;
	if (c->user != NULL) {
		curl_easy_setopt(x->easy, CURLOPT_USERNAME, c->user);
		curl_easy_setopt(x->easy, CURLOPT_PASSWORD, c->password);
	}
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE,
	                 (curl_off_t)r->body_len);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, r);
	/* When a reused connection turns out closed before any answer,
	 * libcurl sends the request again on a new one, unseen by us: but
	 * the node may have run it.  A call that must not run twice goes on
	 * a connection of its own, which libcurl never retries. */
	curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT,
	                 (r->flags & HJ_RPC_ONCE) ? 1L : 0L);
	mc = curl_multi_add_handle(c->multi, x->easy);
	if (mc != CURLM_OK) {
		char msg[MSG_MAX];

		r->x = NULL;
		x->next = c->pool;
		c->pool = x;
		snprintf(msg, sizeof msg, "cannot start a transfer: %s",
		         curl_multi_strerror(mc));
		schedule_retry(c, r, msg, 0);
		return;
	}
	c->inflight++;
}

static void pump(hj_rpc *c)
{
	while (!c->closing && c->inflight < c->max_inflight && c->qhead != NULL)
		start_attempt(c, queue_pop(c));
}

/* r's 2xx answer was parsed (hj_rpc__answer's outputs, taken): complete r
 * or schedule a retry. */
static void answered(hj_rpc *c, struct req *r, int rc, json_t *result,
                     json_t *errobj, const char *msg)
{
	resp_release(r);
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
	struct req *r = w->data;

	r->ans_rc = hj_rpc__answer(r->resp.buf, r->resp.len, r->id0, r->n,
	                           r->batch, &r->ans_result, &r->ans_error,
	                           r->ans_msg, sizeof r->ans_msg);
}

/* Back on the loop.  A client closed meanwhile left r to us (hj_rpc_close
 * took it off c->reqs); the last parse of a closed client frees it. */
static void parse_done(uv_work_t *w, int status)
{
	struct req *r = w->data;
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

/* A transfer ended (res: curl's verdict): complete r or schedule a retry. */
/* What a 4xx that is not retried most likely means, for its message.
 * Only a batch (several calls: blocks while catching up) can be made
 * smaller by the configuration. */
static const char *refusal_hint(long status, int batch)
{
	if (status == 413)
		return batch ? "(the request or its answer is too large for "
		               "the node or a proxy before it: lower [chain] "
		               "batch_blocks)"
		             : "(the request or its answer is too large for "
		               "the node or a proxy before it)";
	if (status == 400)
		return batch ? "(a request it calls bad, or more calls in one "
		               "batch than it takes: lower [chain] "
		               "batch_blocks, else check the URL's path)"
		             : "(a request it calls bad: check the URL's path)";
	return "(check the URL's path and the credentials)";
}

static void on_done(hj_rpc *c, CURL *easy, CURLcode res)
{
	struct req *r = NULL;
	struct xfer *x;
	long status = 0;
	curl_off_t retry_after = 0;
	char msg[MSG_MAX], shown[240], *priv = NULL;
	json_t *result = NULL, *errobj = NULL;
	int rc;

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	r = (struct req *)priv;
	r->took_us = (uv_hrtime() - r->started) / 1000;
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after);
	curl_multi_remove_handle(c->multi, easy);
	x = r->x;
	r->x = NULL;
	x->next = c->pool;
	c->pool = x;
	c->inflight--;

	if (r->resp.too_big) {
		resp_release(r);
		snprintf(
		    msg, sizeof msg,
		    "response body exceeds max_response (%zu bytes); raise "
		    "rpc_max_response in [chain] if the node's answers are "
		    "legitimately this large",
		    c->max_response);
		failed(c, r, msg, 0, 0);
		return;
	}
	if (res != CURLE_OK) {
		resp_release(r);
		if (res == CURLE_OPERATION_TIMEDOUT)
			snprintf(msg, sizeof msg,
			         "no complete answer within timeout %u ms (%s)",
			         c->timeout_ms,
			         x->errbuf[0] ? x->errbuf
			                      : curl_easy_strerror(res));
		else
			snprintf(msg, sizeof msg, "%s (%s)",
			         curl_easy_strerror(res),
			         x->errbuf[0] ? x->errbuf : "no details");
		/* No connection: the request never left. */
		failed(c, r, msg, 0,
		       res == CURLE_COULDNT_CONNECT ||
		           res == CURLE_COULDNT_RESOLVE_HOST ||
		           res == CURLE_COULDNT_RESOLVE_PROXY);
		return;
	}
	if ((status < 200 || status > 299) && (r->flags & HJ_RPC_NODE_ERRORS) &&
	    status != 401) {
		/* Bitcoin Core answers a failed call with HTTP 500 (404 for
		 * an unknown method) and the JSON-RPC error in the body. */
		if (hj_rpc__answer(r->resp.buf, r->resp.len, r->id0, 1, 0,
		                   &result, &errobj, msg, sizeof msg) != 0 &&
		    errobj != NULL) {
			resp_release(r);
			node_error(c, r, errobj, msg);
			json_decref(errobj);
			return;
		}
		json_decref(result);
		result = NULL;
	}
	if (status < 200 || status > 299) {
		snippet(r, shown, sizeof shown);
		resp_release(r);
		if (status == 401 && c->cookie_file != NULL) {
			/* The node restarted and wrote a new cookie (unless
			 * this request went with a cookie read before). */
			if (r->cookie == c->cookie) {
				c->cookie_stale = 1;
				free_secret(c->refused);
				c->refused =
				    c->password ? strdup(c->password) : NULL;
			}
			snprintf(msg, sizeof msg,
			         "HTTP 401 from the node: reading the cookie "
			         "file %s again",
			         c->cookie_file);
			/* Refused before execution: safe to send again. */
			failed(c, r, msg, 0, 1);
			return;
		}
		if (status >= 400 && status <= 499 && status != 408 &&
		    status != 429) {
			snprintf(msg, sizeof msg,
			         "HTTP %ld from the node, not retried %s: %s",
			         status, refusal_hint(status, r->n > 1), shown);
			complete(c, r, NULL, msg);
			return;
		}
		snprintf(msg, sizeof msg, "HTTP %ld: %s", status, shown);
		failed(c, r, msg, retry_after > 0 ? (uint64_t)retry_after : 0,
		       0);
		return;
	}

	r->work.data = r;
	if (r->resp.len >= PARSE_AWAY &&
	    uv_queue_work(c->loop, &r->work, parse_work, parse_done) == 0) {
		r->parsing = 1;
		c->parsing++;
		return;
	}
	rc = hj_rpc__answer(r->resp.buf, r->resp.len, r->id0, r->n, r->batch,
	                    &result, &errobj, msg, sizeof msg);
	answered(c, r, rc, result, errobj, msg);
}

static void check_multi_info(hj_rpc *c)
{
	CURLMsg *m;
	int left;

	while (!c->closing && (m = curl_multi_info_read(c->multi, &left))) {
		if (m->msg == CURLMSG_DONE) {
			CURL *easy = m->easy_handle;
			CURLcode res = m->data.result;

			on_done(c, easy, res);
		}
	}
	pump(c);
}

/* ------------------------------------------------------------------ */
/* Public interface                                                    */

/* http(s) URL with a host, or -EINVAL with the reason.  The URL is not
 * repeated in the message: it may carry a password. */
static int check_url(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	CURLUcode uc;
	int rc = -EINVAL;

	if (u == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (uc != CURLUE_OK) {
		snprintf(err, errlen, "bad URL: %s", curl_url_strerror(uc));
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
		snprintf(err, errlen, "bad URL: only http and https work");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    host[0] == '\0') {
		snprintf(err, errlen, "bad URL: no host");
		goto out;
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

static int check_opts(const hj_rpc_opts *o, char *err, size_t errlen)
{
	if (o->url == NULL) {
		snprintf(err, errlen, "no URL");
		return -EINVAL;
	}
	if (o->max_response == 0 || o->timeout_ms == 0 ||
	    o->max_inflight == 0 || o->backoff_min_ms == 0 ||
	    o->backoff_max_ms < o->backoff_min_ms) {
		snprintf(err, errlen,
		         "max_response, timeout_ms, max_inflight and "
		         "backoff_min_ms must be above 0 and backoff_max_ms "
		         "at least backoff_min_ms");
		return -EINVAL;
	}
	if (o->user == NULL && o->password != NULL) {
		snprintf(err, errlen, "a password without a user");
		return -EINVAL;
	}
	if (o->cookie_file != NULL && (o->user != NULL || o->bearer != NULL)) {
		snprintf(err, errlen,
		         "a cookie file excludes basic auth (user) and a "
		         "bearer token");
		return -EINVAL;
	}
	if (o->user != NULL && o->bearer != NULL) {
		snprintf(err, errlen,
		         "basic auth (user) and a bearer token exclude each "
		         "other");
		return -EINVAL;
	}
	if (o->bearer != NULL &&
	    (o->bearer[0] == '\0' || strpbrk(o->bearer, "\r\n") != NULL)) {
		snprintf(err, errlen,
		         "the bearer token is empty or holds a line break");
		return -EINVAL;
	}
	if (o->user != NULL && strchr(o->user, ':') != NULL) {
		snprintf(err, errlen, "basic auth user holds a ':'");
		return -EINVAL;
	}
	return check_url(o->url, err, errlen);
}

static int build_headers(hj_rpc *c, const char *bearer)
{
	static const char *const fixed[] = {
	    "Content-Type: application/json",
	    "Accept: application/json",
	    /* No "Expect: 100-continue" wait on large bodies. */
	    "Expect:",
	};
	struct curl_slist *h;

	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		h = curl_slist_append(c->headers, fixed[i]);
		if (h == NULL)
			return -ENOMEM;
		c->headers = h;
	}
	if (bearer != NULL) {
		size_t n = strlen(bearer) + sizeof "Authorization: Bearer ";
		char *line = malloc(n);

		if (line == NULL)
			return -ENOMEM;
		snprintf(line, n, "Authorization: Bearer %s", bearer);
		h = curl_slist_append(c->headers, line);
		free_secret(line);
		if (h == NULL)
			return -ENOMEM;
		c->headers = h;
	}
	return 0;
}

hj_rpc *hj_rpc_new(uv_loop_t *loop, const hj_rpc_opts *o, char *err,
                   size_t errlen)
{
	hj_rpc *c = NULL;
	int bad = 0;

	if (check_opts(o, err, errlen) != 0)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "curl_global_init failed");
		return NULL;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL)
		goto nomem;
	c->loop = loop;
	c->max_response = o->max_response;
	c->timeout_ms = o->timeout_ms;
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
	c->url = strdup(o->url);
	if (c->url == NULL)
		goto nomem;
	if (o->user != NULL) {
		c->user = strdup(o->user);
		c->password = strdup(o->password ? o->password : "");
		if (c->user == NULL || c->password == NULL)
			goto nomem;
	}
	if (o->cookie_file != NULL) {
		c->cookie_file = strdup(o->cookie_file);
		c->cookie_stale = 1;
		if (c->cookie_file == NULL)
			goto nomem;
	}
	if (build_headers(c, o->bearer) != 0)
		goto nomem;
	c->multi = curl_multi_init();
	if (c->multi == NULL) {
		snprintf(err, errlen, "curl_multi_init failed");
		goto fail;
	}
	bad |= curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION,
	                         socket_fn) != CURLM_OK;
	bad |= curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c) != CURLM_OK;
	bad |= curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, timer_fn) !=
	       CURLM_OK;
	bad |= curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c) != CURLM_OK;
	/* Idle connections kept for reuse: one per possible transfer. */
	bad |= curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS,
	                         (long)c->max_inflight) != CURLM_OK;
	if (bad) {
		snprintf(err, errlen, "curl_multi_setopt failed");
		goto fail;
	}
	/* uv_timer_init only fills the struct; it cannot fail on Unix, and
	 * from here on memory is freed from close callbacks only. */
	uv_timer_init(loop, &c->curl_timer);
	uv_timer_init(loop, &c->retry_timer);
	c->curl_timer.data = c;
	c->retry_timer.data = c;
	c->open_handles = 2;
	return c;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	if (c != NULL) {
		c->closing = 1; /* curl's callbacks: no timer to touch yet */
		c->done = NULL;
		client_free(c);
	} else {
		curl_global_cleanup();
	}
	return NULL;
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
 * A call whose params are JSON text, sent as given: the envelope is written
 * here around it.  The text must parse as an array or object (jansson's
 * default), so the body stays valid JSON.  Returns the body or NULL (bad
 * text: *bad set; out of memory).
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
	struct req *r = NULL;
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

/* RFC 3986 unreserved characters stay; every other byte is %XX. */
static char *percent_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = malloc(3 * n + 1), *o = out;

	if (out == NULL)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~') {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

int hj_rpc_wallet_url(const char *url, const char *wallet, char **out,
                      char *err, size_t errlen)
{
	CURLU *u = NULL;
	char *enc = NULL, *path = NULL, *full = NULL;
	CURLUcode uc;
	int rc = -ENOMEM;
	size_t n;

	*out = NULL;
	if (wallet == NULL || wallet[0] == '\0') {
		snprintf(err, errlen, "empty wallet name");
		return -EINVAL;
	}
	rc = check_url(url, err, errlen);
	if (rc)
		return rc;
	rc = -ENOMEM;
	u = curl_url();
	enc = percent_encode(wallet);
	if (u == NULL || enc == NULL)
		goto nomem;
	n = strlen(enc) + sizeof "/wallet/";
	path = malloc(n);
	if (path == NULL)
		goto nomem;
	snprintf(path, n, "/wallet/%s", enc);
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		snprintf(err, errlen, "bad URL");
		rc = -EINVAL;
		goto out;
	}
	uc = curl_url_set(u, CURLUPART_PATH, path, 0);
	if (uc == CURLUE_OK)
		uc = curl_url_set(u, CURLUPART_QUERY, NULL, 0);
	if (uc == CURLUE_OK)
		uc = curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);
	if (uc == CURLUE_OK)
		uc = curl_url_get(u, CURLUPART_URL, &full, 0);
	if (uc != CURLUE_OK) {
		snprintf(err, errlen, "wallet URL: %s", curl_url_strerror(uc));
		rc = uc == CURLUE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
		goto out;
	}
	*out = strdup(full);
	rc = *out != NULL ? 0 : -ENOMEM;
	if (rc == 0)
		goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	curl_free(full);
	free(path);
	free(enc);
	curl_url_cleanup(u);
	return rc;
}

size_t hj_rpc_pending(const hj_rpc *c)
{
	return c->npending;
}

void hj_rpc_close(hj_rpc *c, void (*done)(void *arg), void *arg)
{
	struct xfer *x;

	if (c == NULL || c->closing)
		return;
	c->closing = 1;
	c->done = done;
	c->done_arg = arg;
	while (c->reqs != NULL) {
		struct req *r = c->reqs;

		req_unlink(c, r);
		if (r->parsing)
			continue; /* parse_done frees it */
		if (r->x != NULL) {
			curl_multi_remove_handle(c->multi, r->x->easy);
			xfer_free(r->x);
		}
		req_free(r);
	}
	c->qhead = c->qtail = c->waiting = NULL;
	c->inflight = 0;
	while ((x = c->pool) != NULL) {
		c->pool = x->next;
		xfer_free(x);
	}
	/* Closes the cached connections; their sockets' CURL_POLL_REMOVE
	 * closes the matching poll handles. */
	curl_multi_cleanup(c->multi);
	c->multi = NULL;
	while (c->socks != NULL)
		sock_close(c, c->socks);
	uv_close((uv_handle_t *)&c->curl_timer, on_timer_closed);
	uv_close((uv_handle_t *)&c->retry_timer, on_timer_closed);
}
