/*
 * The JSON-RPC client's transport (rpc_http.h), a layer below its queue
 * (rpc.c): libcurl's multi_socket API on the caller's libuv loop.  One
 * uv_poll_t per socket curl asks us to watch, one uv_timer_t for curl's
 * timer (its data pointer set here: curl's own multi-uv example forgot
 * it), easy handles pooled between transfers, never more of them than the
 * caller keeps in flight at once (max_inflight).  Idle connections live
 * in the multi handle's cache, which every easy handle shares, so
 * keep-alive does not depend on which easy handle is reused.
 *
 * A transfer's end is judged here and reported through the one callback
 * the transport was made with (hj_rpc__http_opts.end): a 2xx body, handed
 * over to be parsed; a body above max_response, a curl error, an HTTP
 * status other than 2xx, the node refusing the cookie (HTTP 401) as a
 * failed attempt, or as the request's end (an HTTP 4xx; the node's error
 * answer, for a transfer that asked for it), each with one printable line.
 * The transport knows nothing of the queue above it: what an outcome means
 * for the request (a retry, its budget, a call that must run once) is
 * rpc.c's to decide.
 *
 * Credentials: basic auth, a bearer token in a header, or a Bitcoin
 * Core-style cookie file read before the first request and again after a
 * 401.  Secrets are wiped before their memory is freed, and no message
 * repeats the URL (it may hold a password).
 *
 * No callback runs inside a curl callback: end and idle are called from
 * on_poll and on_curl_timer, after curl has returned; closed from the
 * close callback of the transport's last handle.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "quote.h"
#include "rpc_answer.h"
#include "rpc_http.h"
#include "say.h"

#ifndef HJ_VERSION_STRING
#define HJ_VERSION_STRING "0"
#endif

/* Bytes of a non-2xx body kept to quote in messages; the rest is dropped. */
#define SNIPPET_MAX 200
/* Bytes of a non-2xx body kept for a call that wants the node's error
 * answer (node_errors): Bitcoin Core sends its JSON-RPC errors with
 * HTTP 500.  An error answer is small; a longer body is cut and then is not
 * JSON, which counts as no answer. */
#define ERRBODY_MAX 65536

/* An easy handle with its error buffer and the state of its transfer;
 * pooled between transfers. */
struct hj_rpc__xfer {
	CURL *easy;
	hj_rpc__http *h;
	struct hj_rpc__xfer *prev, *next; /* h->busy in flight, else h->pool */
	void *req;                        /* in flight: the caller's */
	hj_rpc__body resp;                /* the response body */
	unsigned cookie; /* the cookie's reading it was sent with */
	json_int_t id0;  /* hj_rpc__http_send's */
	int several;
	int node_errors;
	char errbuf[CURL_ERROR_SIZE];
};

/* A socket curl wants watched. */
typedef struct hj_rpc__sock {
	uv_poll_t poll;
	hj_rpc__http *h;
	curl_socket_t fd;
	struct hj_rpc__sock *prev, *next; /* h->socks, until curl removes it */
} hj_rpc__sock;

struct hj_rpc__http {
	uv_loop_t *loop;
	void (*end)(void *, void *, const hj_rpc__xfer_outcome *);
	void (*idle)(void *);
	void (*closed)(void *);
	void *arg;
	int curl_ready; /* curl_global_init succeeded */
	CURLM *multi;
	uv_timer_t curl_timer;
	size_t max_response;
	unsigned timeout_ms, max_inflight;
	char *url, *user, *password;
	char *cookie_file; /* user and password come from here */
	char *ca_file;     /* CURLOPT_CAINFO, or NULL: curl's default */
	char *host;        /* the URL's, for messages (no credentials) */
	int cookie_stale;  /* read it again before the next transfer */
	unsigned cookie;   /* readings of the cookie file */
	char *refused;     /* the password of the cookie the node refused */
	struct curl_slist *headers;
	hj_rpc__xfer *busy; /* in flight */
	hj_rpc__xfer *pool;
	hj_rpc__sock *socks;
	int closing;
	unsigned open_handles; /* initialised, close callback not yet run */
};

/* Secrets are wiped before their memory goes back to the allocator. */
static void free_secret(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* ------------------------------------------------------------------ */
/* Handles                                                             */

/* A handle's close callback ran: after the last one, once closing, the
 * caller hears of it (and may free h). */
static void handle_closed(hj_rpc__http *h)
{
	if (--h->open_handles == 0 && h->closing)
		h->closed(h->arg);
}

static void on_timer_closed(uv_handle_t *t)
{
	handle_closed(t->data);
}

static void on_sock_closed(uv_handle_t *p)
{
	hj_rpc__sock *k = p->data;
	hj_rpc__http *h = k->h;

	free(k);
	handle_closed(h);
}

static void sock_close(hj_rpc__http *h, hj_rpc__sock *k)
{
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		h->socks = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	uv_poll_stop(&k->poll);
	uv_close((uv_handle_t *)&k->poll, on_sock_closed);
}

static void xfer_free(hj_rpc__xfer *x)
{
	curl_easy_cleanup(x->easy);
	free(x->resp.buf);
	free(x);
}

/* x leaves h->busy (its transfer ended or is dropped). */
static void busy_unlink(hj_rpc__http *h, hj_rpc__xfer *x)
{
	if (x->prev != NULL)
		x->prev->next = x->next;
	else
		h->busy = x->next;
	if (x->next != NULL)
		x->next->prev = x->prev;
	x->prev = x->next = NULL;
	x->req = NULL;
}

/* ------------------------------------------------------------------ */
/* curl's side of the loop                                             */

static void check_multi_info(hj_rpc__http *h);

static void on_poll(uv_poll_t *p, int status, int events)
{
	hj_rpc__sock *k = p->data;
	hj_rpc__http *h = k->h;
	int flags = 0, running;

	if (h->closing)
		return;
	if (status < 0) {
		flags = CURL_CSELECT_ERR;
	} else {
		if (events & UV_READABLE)
			flags |= CURL_CSELECT_IN;
		if (events & UV_WRITABLE)
			flags |= CURL_CSELECT_OUT;
	}
	curl_multi_socket_action(h->multi, k->fd, flags, &running);
	check_multi_info(h);
}

static void on_curl_timer(uv_timer_t *t)
{
	hj_rpc__http *h = t->data;
	int running;

	if (h->closing)
		return;
	curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_multi_info(h);
}

/* CURLMOPT_TIMERFUNCTION: -1 stops the timer; 0 means "as soon as
 * possible", which a zero timer gives without calling curl back from inside
 * curl. */
static int timer_fn(CURLM *m, long ms, void *ud)
{
	hj_rpc__http *h = ud;

	(void)m;
	if (h->closing)
		return 0;
	if (ms < 0)
		uv_timer_stop(&h->curl_timer);
	else
		uv_timer_start(&h->curl_timer, on_curl_timer, (uint64_t)ms, 0);
	return 0;
}

/* CURLMOPT_SOCKETFUNCTION: one uv_poll_t per socket, created on first use,
 * closed when curl says CURL_POLL_REMOVE (before it closes the socket). */
static int socket_fn(CURL *e, curl_socket_t s, int what, void *ud, void *sp)
{
	hj_rpc__http *h = ud;
	hj_rpc__sock *k = sp;
	int events = 0;

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		if (k != NULL) {
			sock_close(h, k);
			/* During curl_multi_cleanup the socket hash is going
			 * away; curl forgets the pointer with the entry. */
			if (!h->closing)
				curl_multi_assign(h->multi, s, NULL);
		}
		return 0;
	}
	if (h->closing)
		return -1;
	if (k == NULL) {
		k = calloc(1, sizeof *k);
		if (k == NULL)
			return -1;
		if (uv_poll_init_socket(h->loop, &k->poll, s) != 0) {
			free(k);
			return -1;
		}
		k->poll.data = k;
		k->h = h;
		k->fd = s;
		k->next = h->socks;
		if (h->socks != NULL)
			h->socks->prev = k;
		h->socks = k;
		h->open_handles++;
		curl_multi_assign(h->multi, s, k);
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

/* CURLOPT_WRITEFUNCTION: hj_rpc__keep, told the status and the announced
 * length with the first piece.  0 aborts the transfer (CURLE_WRITE_ERROR):
 * a 2xx body above max_response.  Of any other status only a snippet is
 * kept for the message, or, for a call that wants the node's error answer,
 * up to ERRBODY_MAX bytes. */
static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	hj_rpc__xfer *x = ud;
	hj_rpc__body *b = &x->resp;

	if (!b->started) {
		curl_off_t cl = -1;

		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &b->status);
		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
		                  &cl);
		b->announced = (long long)cl;
		b->max = x->h->max_response;
		b->other = SNIPPET_MAX;
		if (x->node_errors)
			b->other = ERRBODY_MAX < b->max ? ERRBODY_MAX : b->max;
	}
	return hj_rpc__keep(b, p, size * nmemb);
}

/* The kept bytes of a body, quoted for a message. */
static void snippet(const hj_rpc__xfer *x, char *buf, size_t n)
{
	char tmp[SNIPPET_MAX + 1];
	size_t len = x->resp.len < SNIPPET_MAX ? x->resp.len : SNIPPET_MAX;

	for (size_t i = 0; i < len; i++)
		tmp[i] = x->resp.buf[i] != '\0' ? x->resp.buf[i] : '?';
	tmp[len] = '\0';
	hj_quote(tmp, buf, n);
}

/* ------------------------------------------------------------------ */
/* Transfers                                                           */

static hj_rpc__xfer *xfer_get(hj_rpc__http *h)
{
	hj_rpc__xfer *x = h->pool;
	CURL *e;
	int bad = 0;

	if (x != NULL) {
		h->pool = x->next;
		x->next = NULL;
		return x;
	}
	x = calloc(1, sizeof *x);
	if (x == NULL)
		return NULL;
	x->h = h;
	e = x->easy = curl_easy_init();
	if (e == NULL) {
		free(x);
		return NULL;
	}
	bad |= curl_easy_setopt(e, CURLOPT_URL, h->url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_POST, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->headers) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT,
	                        "hashjackd/" HJ_VERSION_STRING) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms) !=
	       CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	                        (long)h->timeout_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf) != CURLE_OK;
	if (h->user != NULL || h->cookie_file != NULL)
		bad |= curl_easy_setopt(e, CURLOPT_HTTPAUTH,
		                        (long)CURLAUTH_BASIC) != CURLE_OK;
	/* https://: the certificate and its name are checked (curl's
	 * defaults, said again), TLS 1.2 at least, against the CA file's
	 * certificates alone when there is one. */
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_SSLVERSION,
	                        (long)CURL_SSLVERSION_TLSv1_2) != CURLE_OK;
	if (h->ca_file != NULL) {
		bad |=
		    curl_easy_setopt(e, CURLOPT_CAINFO, h->ca_file) != CURLE_OK;
		bad |= curl_easy_setopt(e, CURLOPT_CAPATH, NULL) != CURLE_OK;
	}
	if (bad) {
		xfer_free(x);
		return NULL;
	}
	return x;
}

/* Reads "user:password" from the cookie file into h->user, h->password.
 * Returns 0, or -1 with msg saying why. */
static int read_cookie(hj_rpc__http *h, char *msg, size_t n)
{
	char buf[512];
	size_t len;
	FILE *f = fopen(h->cookie_file, "re");
	char *colon;

	if (f == NULL) {
		hj_say(msg, n,
		       "cannot read the cookie file %s: %s (is the node "
		       "running? set [chain] rpc_cookie_file to its "
		       "<datadir>/<network>/.cookie)",
		       h->cookie_file, strerror(errno));
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
		hj_say(msg, n,
		       "the cookie file %s does not hold one line "
		       "user:password",
		       h->cookie_file);
		return -1;
	}
	*colon = '\0';
	free_secret(h->user);
	free_secret(h->password);
	h->user = strdup(buf);
	h->password = strdup(colon + 1);
	explicit_bzero(buf, sizeof buf);
	if (h->user == NULL || h->password == NULL) {
		hj_say(msg, n, "out of memory reading the cookie file");
		return -1;
	}
	h->cookie_stale = 0;
	h->cookie++;
	return 0;
}

int hj_rpc__http_start(hj_rpc__http *h, void *req, const hj_rpc__http_send *s,
                       hj_rpc__xfer **out, char *msg, size_t msglen)
{
	hj_rpc__xfer *x;
	CURLMcode mc;

	if (h->cookie_file != NULL && h->cookie_stale) {
		if (read_cookie(h, msg, msglen))
			return -EAGAIN;
		/* A node that restarted wrote a new cookie; the one it refused
		 * still there is not this node's. */
		if (h->refused != NULL &&
		    strcmp(h->refused, h->password) == 0) {
			snprintf(
			    msg, msglen,
			    "HTTP 401 from the node, not retried: it refuses "
			    "the cookie file %s as it is (is it this node's, "
			    "<datadir>/<network>/.cookie?)",
			    h->cookie_file);
			return -EPERM;
		}
	}
	x = xfer_get(h);
	if (x == NULL) {
		hj_say(msg, msglen, "cannot set up a transfer (out of memory)");
		return -EAGAIN;
	}
	x->errbuf[0] = '\0';
	x->resp.len = 0;
	x->resp.too_big = 0;
	x->resp.started = 0;
	x->resp.status = 0;
	x->cookie = h->cookie;
	x->id0 = s->id0;
	x->several = s->several;
	x->node_errors = s->node_errors;
	if (h->user != NULL) {
		curl_easy_setopt(x->easy, CURLOPT_USERNAME, h->user);
		curl_easy_setopt(x->easy, CURLOPT_PASSWORD, h->password);
	}
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE,
	                 (curl_off_t)s->len);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, s->body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	/* When a reused connection turns out closed before any answer,
	 * libcurl sends the request again on a new one, unseen by us: but
	 * the node may have run it.  A call that must not run twice goes on
	 * a connection of its own, which libcurl never retries. */
	curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT, s->fresh ? 1L : 0L);
	mc = curl_multi_add_handle(h->multi, x->easy);
	if (mc != CURLM_OK) {
		x->next = h->pool;
		h->pool = x;
		hj_say(msg, msglen, "cannot start a transfer: %s",
		       curl_multi_strerror(mc));
		return -EAGAIN;
	}
	x->req = req;
	x->prev = NULL;
	x->next = h->busy;
	if (h->busy != NULL)
		h->busy->prev = x;
	h->busy = x;
	*out = x;
	return 0;
}

/* What a 4xx that is not retried most likely means, for its message.
 * Only a batch (several calls: blocks while catching up) can be made
 * smaller by the configuration. */
static const char *refusal_hint(long status, int batch)
{
	if (status == 413)
		return batch ? "(the request or its answer is too large for "
		               "the node or a proxy before it)"
		             : "(the request or its answer is too large for "
		               "the node or a proxy before it, and this is one "
		               "call: nothing smaller can be asked; raise the "
		               "endpoint's limit or use another endpoint)";
	if (status == 400)
		return batch ? "(a request it calls bad, or more calls in one "
		               "batch than it takes)"
		             : "(a request it calls bad: check the URL's path)";
	return "(check the URL's path and the credentials)";
}

/* A transfer ended (res: curl's verdict): judged, then reported.  Nothing
 * of x is read after the report: the caller may start its next transfer
 * on it. */
static void on_done(hj_rpc__http *h, CURL *easy, CURLcode res)
{
	hj_rpc__xfer *x;
	void *req;
	long status = 0;
	curl_off_t retry_after = 0;
	char msg[HJ_ERRLEN], shown[240], *priv = NULL;
	json_t *result = NULL, *errobj = NULL;
	hj_rpc__xfer_outcome o = {.end = HJ_RPC__XFER_FAILED, .msg = msg};

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	x = (hj_rpc__xfer *)priv;
	o.ended = uv_hrtime();
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after);
	curl_multi_remove_handle(h->multi, easy);
	req = x->req;
	busy_unlink(h, x);
	x->next = h->pool;
	h->pool = x;

	if (x->resp.too_big) {
		hj_rpc__body_release(&x->resp);
		snprintf(
		    msg, sizeof msg,
		    "response body exceeds max_response (%zu bytes); raise "
		    "rpc_max_response in [chain] if the node's answers are "
		    "legitimately this large",
		    h->max_response);
		o.cause = HJ_RPC_CAUSE_NETWORK;
		o.limit = HJ_RPC__LIMIT_REFUSED;
		h->end(h->arg, req, &o);
		return;
	}
	if (res != CURLE_OK) {
		hj_rpc__body_release(&x->resp);
		if (res == CURLE_OPERATION_TIMEDOUT)
			snprintf(msg, sizeof msg,
			         "no complete answer within timeout %u ms (%s)",
			         h->timeout_ms,
			         x->errbuf[0] ? x->errbuf
			                      : curl_easy_strerror(res));
		else if (res == CURLE_PEER_FAILED_VERIFICATION)
			snprintf(msg, sizeof msg,
			         "the TLS certificate of %s failed "
			         "verification (%s)",
			         h->host ? h->host : "the node",
			         x->errbuf[0] ? x->errbuf
			                      : curl_easy_strerror(res));
		else
			snprintf(msg, sizeof msg, "%s (%s)",
			         curl_easy_strerror(res),
			         x->errbuf[0] ? x->errbuf : "no details");
		/* No connection, or no TLS on it: the request never
		 * left. */
		o.not_sent = res == CURLE_COULDNT_CONNECT ||
		             res == CURLE_COULDNT_RESOLVE_HOST ||
		             res == CURLE_COULDNT_RESOLVE_PROXY ||
		             res == CURLE_PEER_FAILED_VERIFICATION ||
		             res == CURLE_SSL_CONNECT_ERROR;
		o.cause = res == CURLE_PEER_FAILED_VERIFICATION ||
		                  res == CURLE_SSL_CONNECT_ERROR
		              ? HJ_RPC_CAUSE_TLS
		          : o.not_sent ? HJ_RPC_CAUSE_CONNECT
		          : res == CURLE_OPERATION_TIMEDOUT
		              ? HJ_RPC_CAUSE_TIMEOUT
		              : HJ_RPC_CAUSE_NETWORK;
		/* An answer that began and stopped short: a proxy's size
		 * cap, most likely. */
		if (res == CURLE_PARTIAL_FILE ||
		    (res == CURLE_RECV_ERROR && x->resp.started))
			o.limit = HJ_RPC__LIMIT_CUT;
		h->end(h->arg, req, &o);
		return;
	}
	if ((status < 200 || status > 299) && x->node_errors && status != 401) {
		/* Bitcoin Core answers a failed call with HTTP 500 (404 for
		 * an unknown method) and the JSON-RPC error in the body. */
		enum hj_rpc__why why;

		if (hj_rpc__answer(x->resp.buf, x->resp.len, x->id0, 1, 0,
		                   &result, &errobj, &why, msg,
		                   sizeof msg) != 0 &&
		    errobj != NULL) {
			hj_rpc__body_release(&x->resp);
			o.end = HJ_RPC__XFER_NODE_ERROR;
			o.errobj = errobj;
			h->end(h->arg, req, &o);
			json_decref(errobj);
			return;
		}
		json_decref(result);
		result = NULL;
	}
	if (status < 200 || status > 299) {
		snippet(x, shown, sizeof shown);
		hj_rpc__body_release(&x->resp);
		if (status == 401 && h->cookie_file != NULL) {
			/* The node restarted and wrote a new cookie (unless
			 * this request went with a cookie read before). */
			if (x->cookie == h->cookie) {
				h->cookie_stale = 1;
				free_secret(h->refused);
				h->refused =
				    h->password ? strdup(h->password) : NULL;
			}
			snprintf(msg, sizeof msg,
			         "HTTP 401 from the node: reading the cookie "
			         "file %s again",
			         h->cookie_file);
			/* Refused before execution: safe to send again. */
			o.not_sent = 1;
			o.cause = HJ_RPC_CAUSE_AUTH;
			h->end(h->arg, req, &o);
			return;
		}
		if (status >= 400 && status <= 499 && status != 408 &&
		    status != 429) {
			snprintf(msg, sizeof msg,
			         "HTTP %ld from the node, not retried %s: %s",
			         status, refusal_hint(status, x->several),
			         shown);
			o.end = HJ_RPC__XFER_FINAL;
			if (status == 413 || (status == 400 && x->several))
				o.limit = HJ_RPC__LIMIT_REFUSED;
			h->end(h->arg, req, &o);
			return;
		}
		snprintf(msg, sizeof msg, "HTTP %ld: %s", status, shown);
		o.retry_after = retry_after > 0 ? (uint64_t)retry_after : 0;
		o.cause = status == 429 ? HJ_RPC_CAUSE_RATE : HJ_RPC_CAUSE_HTTP;
		h->end(h->arg, req, &o);
		return;
	}

	/* A 2xx body: the caller's now. */
	o.end = HJ_RPC__XFER_BODY;
	o.msg = NULL;
	o.body = x->resp.buf;
	o.len = x->resp.len;
	x->resp.buf = NULL;
	x->resp.len = x->resp.cap = 0;
	h->end(h->arg, req, &o);
}

static void check_multi_info(hj_rpc__http *h)
{
	CURLMsg *m;
	int left;

	while (!h->closing && (m = curl_multi_info_read(h->multi, &left))) {
		if (m->msg == CURLMSG_DONE) {
			CURL *easy = m->easy_handle;
			CURLcode res = m->data.result;

			on_done(h, easy, res);
		}
	}
	h->idle(h->arg);
}

/* ------------------------------------------------------------------ */
/* Setting up and tearing down                                         */

int hj_rpc__http_check_url(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	CURLUcode uc;
	int rc = -EINVAL;

	if (u == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (uc != CURLUE_OK) {
		hj_say(err, errlen, "bad URL: %s", curl_url_strerror(uc));
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
		hj_say(err, errlen, "bad URL: only http and https work");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    host[0] == '\0') {
		hj_say(err, errlen, "bad URL: no host");
		goto out;
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

static int build_headers(hj_rpc__http *h, const char *bearer)
{
	static const char *const fixed[] = {
	    "Content-Type: application/json",
	    "Accept: application/json",
	    /* No "Expect: 100-continue" wait on large bodies. */
	    "Expect:",
	};
	struct curl_slist *sl;

	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		sl = curl_slist_append(h->headers, fixed[i]);
		if (sl == NULL)
			return -ENOMEM;
		h->headers = sl;
	}
	if (bearer != NULL) {
		size_t n = strlen(bearer) + sizeof "Authorization: Bearer ";
		char *line = malloc(n);

		if (line == NULL)
			return -ENOMEM;
		snprintf(line, n, "Authorization: Bearer %s", bearer);
		sl = curl_slist_append(h->headers, line);
		free_secret(line);
		if (sl == NULL)
			return -ENOMEM;
		h->headers = sl;
	}
	return 0;
}

/* The URL's host (a copy), or NULL. */
static char *url_host(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL, *copy = NULL;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		copy = strdup(host);
	curl_free(host);
	curl_url_cleanup(u);
	return copy;
}

int hj_rpc__http_new(const hj_rpc__http_opts *o, hj_rpc__http **out, char *err,
                     size_t errlen)
{
	hj_rpc__http *h;
	int bad = 0, rc = -ENOMEM;

	*out = NULL;
	h = calloc(1, sizeof *h);
	if (h == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->loop = o->loop;
	h->end = o->end;
	h->idle = o->idle;
	h->closed = o->closed;
	h->arg = o->arg;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		hj_say(err, errlen, "curl_global_init failed");
		goto fail;
	}
	h->curl_ready = 1;
	h->max_response = o->max_response;
	h->timeout_ms = o->timeout_ms;
	h->max_inflight = o->max_inflight;
	h->url = strdup(o->url);
	if (h->url == NULL)
		goto nomem;
	if (o->user != NULL) {
		h->user = strdup(o->user);
		h->password = strdup(o->password ? o->password : "");
		if (h->user == NULL || h->password == NULL)
			goto nomem;
	}
	if (o->cookie_file != NULL) {
		h->cookie_file = strdup(o->cookie_file);
		h->cookie_stale = 1;
		if (h->cookie_file == NULL)
			goto nomem;
	}
	if (o->ca_file != NULL) {
		h->ca_file = strdup(o->ca_file);
		if (h->ca_file == NULL)
			goto nomem;
	}
	h->host = url_host(o->url); /* NULL: "the node" */
	if (build_headers(h, o->bearer) != 0)
		goto nomem;
	h->multi = curl_multi_init();
	if (h->multi == NULL) {
		hj_say(err, errlen, "curl_multi_init failed");
		goto fail;
	}
	bad |= curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION,
	                         socket_fn) != CURLM_OK;
	bad |= curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h) != CURLM_OK;
	bad |= curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, timer_fn) !=
	       CURLM_OK;
	bad |= curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h) != CURLM_OK;
	/* Idle connections kept for reuse: one per possible transfer. */
	bad |= curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS,
	                         (long)h->max_inflight) != CURLM_OK;
	if (bad) {
		hj_say(err, errlen, "curl_multi_setopt failed");
		rc = -EINVAL;
		goto fail;
	}
	/* uv_timer_init only fills the struct; it cannot fail on Unix, and
	 * from here on memory is freed from close callbacks only. */
	uv_timer_init(h->loop, &h->curl_timer);
	h->curl_timer.data = h;
	h->open_handles++;
	*out = h;
	return 0;
nomem:
	hj_say(err, errlen, "out of memory");
fail:
	/* curl's callbacks: no timer to touch yet. */
	h->closing = 1;
	hj_rpc__http_free(h);
	return rc;
}

void hj_rpc__http_close(hj_rpc__http *h)
{
	hj_rpc__xfer *x;

	/* From here on curl's callbacks touch no handle and no end is
	 * reported. */
	h->closing = 1;
	while ((x = h->busy) != NULL) {
		busy_unlink(h, x);
		curl_multi_remove_handle(h->multi, x->easy);
		xfer_free(x);
	}
	while ((x = h->pool) != NULL) {
		h->pool = x->next;
		xfer_free(x);
	}
	/* Closes the cached connections; their sockets' CURL_POLL_REMOVE
	 * closes the matching poll handles. */
	curl_multi_cleanup(h->multi);
	h->multi = NULL;
	while (h->socks != NULL)
		sock_close(h, h->socks);
	uv_close((uv_handle_t *)&h->curl_timer, on_timer_closed);
}

void hj_rpc__http_free(hj_rpc__http *h)
{
	if (h->multi != NULL)
		curl_multi_cleanup(h->multi);
	h->multi = NULL;
	curl_slist_free_all(h->headers); /* the bearer line is in here */
	free(h->url);
	free_secret(h->user);
	free_secret(h->password);
	free_secret(h->refused);
	free(h->cookie_file);
	free(h->ca_file);
	free(h->host);
	if (h->curl_ready)
		curl_global_cleanup();
	free(h);
}

/* ------------------------------------------------------------------ */
/* URLs                                                                */

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

int hj_rpc__http_wallet_url(const char *url, const char *wallet, char **out,
                            char *err, size_t errlen)
{
	CURLU *u = NULL;
	char *enc = NULL, *path = NULL, *full = NULL;
	CURLUcode uc;
	int rc = -ENOMEM;
	size_t n;

	*out = NULL;
	if (wallet == NULL || wallet[0] == '\0') {
		hj_say(err, errlen, "empty wallet name");
		return -EINVAL;
	}
	rc = hj_rpc__http_check_url(url, err, errlen);
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
		hj_say(err, errlen, "bad URL");
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
		hj_say(err, errlen, "wallet URL: %s", curl_url_strerror(uc));
		rc = uc == CURLUE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
		goto out;
	}
	*out = strdup(full);
	rc = *out != NULL ? 0 : -ENOMEM;
	if (rc == 0)
		goto out;
nomem:
	hj_say(err, errlen, "out of memory");
out:
	curl_free(full);
	free(path);
	free(enc);
	curl_url_cleanup(u);
	return rc;
}
