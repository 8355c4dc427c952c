/*
 * The JSON-RPC client's transport (rpc_impl.h): libcurl's multi_socket
 * API on the caller's libuv loop.  One uv_poll_t per socket curl asks us
 * to watch, one uv_timer_t for curl's timer (its data pointer set here:
 * curl's own multi-uv example forgot it), easy handles pooled between
 * attempts, never more of them than max_inflight.  Idle connections live
 * in the multi handle's cache, which every easy handle shares, so
 * keep-alive does not depend on which easy handle is reused.
 *
 * A transfer's end is judged here: a 2xx body goes to rpc.c to be parsed
 * (hj_rpc__answered); a body above max_response, a curl error, an HTTP
 * status other than 2xx, the node refusing the cookie (HTTP 401) become a
 * failed attempt (hj_rpc__failed) or the request's end
 * (hj_rpc__complete, hj_rpc__node_error), each with one printable line.
 *
 * Credentials: basic auth, a bearer token in a header, or a Bitcoin
 * Core-style cookie file read before the first request and again after a
 * 401.  Secrets are wiped before their memory is freed, and no message
 * repeats the URL (it may hold a password).
 *
 * No user code runs inside a curl callback: rpc.c's functions called from
 * here run from on_poll and on_curl_timer, after curl has returned.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "rpc_impl.h"
#include "say.h"

#ifndef HJ_VERSION_STRING
#define HJ_VERSION_STRING "0"
#endif

/* Bytes of a non-2xx body kept to quote in messages; the rest is dropped. */
#define SNIPPET_MAX 200
/* Bytes of a non-2xx body kept for a call that wants the node's error
 * answer (HJ_RPC_NODE_ERRORS): Bitcoin Core sends its JSON-RPC errors with
 * HTTP 500.  An error answer is small; a longer body is cut and then is not
 * JSON, which counts as no answer. */
#define ERRBODY_MAX 65536

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

static void on_timer_closed(uv_handle_t *h)
{
	hj_rpc__handle_closed(h->data);
}

static void on_sock_closed(uv_handle_t *h)
{
	hj_rpc__sock *k = h->data;
	hj_rpc *c = k->c;

	free(k);
	hj_rpc__handle_closed(c);
}

static void sock_close(hj_rpc *c, hj_rpc__sock *k)
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

static void xfer_free(hj_rpc__xfer *x)
{
	curl_easy_cleanup(x->easy);
	free(x);
}

/* ------------------------------------------------------------------ */
/* curl's side of the loop                                             */

static void check_multi_info(hj_rpc *c);

static void on_poll(uv_poll_t *p, int status, int events)
{
	hj_rpc__sock *k = p->data;
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
	hj_rpc__sock *k = sp;
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

/* CURLOPT_WRITEFUNCTION: hj_rpc__keep, told the status and the announced
 * length with the first piece.  0 aborts the transfer (CURLE_WRITE_ERROR):
 * a 2xx body above max_response.  Of any other status only a snippet is
 * kept for the message, or, for a call that wants the node's error answer,
 * up to ERRBODY_MAX bytes. */
static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	hj_rpc__req *r = ud;
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

/* The kept bytes of a body, quoted for a message. */
static void snippet(const hj_rpc__req *r, char *buf, size_t n)
{
	char tmp[SNIPPET_MAX + 1];
	size_t len = r->resp.len < SNIPPET_MAX ? r->resp.len : SNIPPET_MAX;

	for (size_t i = 0; i < len; i++)
		tmp[i] = r->resp.buf[i] != '\0' ? r->resp.buf[i] : '?';
	tmp[len] = '\0';
	hj_quote(tmp, buf, n);
}

/* ------------------------------------------------------------------ */
/* Transfers                                                           */

static hj_rpc__xfer *xfer_get(hj_rpc *c)
{
	hj_rpc__xfer *x = c->pool;
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
		hj_say(msg, n,
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
		hj_say(msg, n,
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
		hj_say(msg, n, "out of memory reading the cookie file");
		return -1;
	}
	c->cookie_stale = 0;
	c->cookie++;
	return 0;
}

int hj_rpc__http_start(hj_rpc *c, hj_rpc__req *r, char *msg, size_t msglen)
{
	hj_rpc__xfer *x;
	CURLMcode mc;

	if (c->cookie_file != NULL && c->cookie_stale) {
		if (read_cookie(c, msg, msglen))
			return -EAGAIN;
		/* A node that restarted wrote a new cookie; the one it refused
		 * still there is not this node's. */
		if (c->refused != NULL &&
		    strcmp(c->refused, c->password) == 0) {
			snprintf(
			    msg, msglen,
			    "HTTP 401 from the node, not retried: it refuses "
			    "the cookie file %s as it is (is it this node's, "
			    "<datadir>/<network>/.cookie?)",
			    c->cookie_file);
			return -EPERM;
		}
	}
	r->cookie = c->cookie;
	x = xfer_get(c);
	if (x == NULL) {
		hj_say(msg, msglen, "cannot set up a transfer (out of memory)");
		return -EAGAIN;
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
		r->x = NULL;
		x->next = c->pool;
		c->pool = x;
		hj_say(msg, msglen, "cannot start a transfer: %s",
		       curl_multi_strerror(mc));
		return -EAGAIN;
	}
	c->inflight++;
	return 0;
}

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

/* A transfer ended (res: curl's verdict): r completes, is retried, or its
 * 2xx body goes to be parsed. */
static void on_done(hj_rpc *c, CURL *easy, CURLcode res)
{
	hj_rpc__req *r = NULL;
	hj_rpc__xfer *x;
	long status = 0;
	curl_off_t retry_after = 0;
	char msg[HJ_ERRLEN], shown[240], *priv = NULL;
	json_t *result = NULL, *errobj = NULL;

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	r = (hj_rpc__req *)priv;
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
		hj_rpc__body_release(&r->resp);
		snprintf(
		    msg, sizeof msg,
		    "response body exceeds max_response (%zu bytes); raise "
		    "rpc_max_response in [chain] if the node's answers are "
		    "legitimately this large",
		    c->max_response);
		hj_rpc__failed(c, r, msg, 0, 0);
		return;
	}
	if (res != CURLE_OK) {
		hj_rpc__body_release(&r->resp);
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
		hj_rpc__failed(c, r, msg, 0,
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
			hj_rpc__body_release(&r->resp);
			hj_rpc__node_error(c, r, errobj, msg);
			json_decref(errobj);
			return;
		}
		json_decref(result);
		result = NULL;
	}
	if (status < 200 || status > 299) {
		snippet(r, shown, sizeof shown);
		hj_rpc__body_release(&r->resp);
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
			hj_rpc__failed(c, r, msg, 0, 1);
			return;
		}
		if (status >= 400 && status <= 499 && status != 408 &&
		    status != 429) {
			snprintf(msg, sizeof msg,
			         "HTTP %ld from the node, not retried %s: %s",
			         status, refusal_hint(status, r->n > 1), shown);
			hj_rpc__complete(c, r, NULL, msg);
			return;
		}
		snprintf(msg, sizeof msg, "HTTP %ld: %s", status, shown);
		hj_rpc__failed(c, r, msg,
		               retry_after > 0 ? (uint64_t)retry_after : 0, 0);
		return;
	}

	hj_rpc__answered(c, r);
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
	hj_rpc__pump(c);
}

/* ------------------------------------------------------------------ */
/* Setting up and tearing down                                         */

int hj_rpc__check_url(const char *url, char *err, size_t errlen)
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

int hj_rpc__http_init(hj_rpc *c, const hj_rpc_opts *o, char *err, size_t errlen)
{
	int bad = 0;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		hj_say(err, errlen, "curl_global_init failed");
		return -ENOMEM;
	}
	c->curl_ready = 1;
	c->max_response = o->max_response;
	c->timeout_ms = o->timeout_ms;
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
		hj_say(err, errlen, "curl_multi_init failed");
		return -ENOMEM;
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
		hj_say(err, errlen, "curl_multi_setopt failed");
		return -EINVAL;
	}
	/* uv_timer_init only fills the struct; it cannot fail on Unix, and
	 * from here on memory is freed from close callbacks only. */
	uv_timer_init(c->loop, &c->curl_timer);
	c->curl_timer.data = c;
	c->open_handles++;
	return 0;
nomem:
	hj_say(err, errlen, "out of memory");
	return -ENOMEM;
}

void hj_rpc__http_drop(hj_rpc *c, hj_rpc__req *r)
{
	if (r->x == NULL)
		return;
	curl_multi_remove_handle(c->multi, r->x->easy);
	xfer_free(r->x);
	r->x = NULL;
	c->inflight--;
}

void hj_rpc__http_close(hj_rpc *c)
{
	hj_rpc__xfer *x;

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
}

void hj_rpc__http_free(hj_rpc *c)
{
	/* After a failed init, c->closing keeps curl's callbacks from
	 * touching a timer not made yet. */
	if (c->multi != NULL)
		curl_multi_cleanup(c->multi);
	c->multi = NULL;
	curl_slist_free_all(c->headers); /* the bearer line is in here */
	free(c->url);
	free_secret(c->user);
	free_secret(c->password);
	free_secret(c->refused);
	free(c->cookie_file);
	if (c->curl_ready)
		curl_global_cleanup();
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
		hj_say(err, errlen, "empty wallet name");
		return -EINVAL;
	}
	rc = hj_rpc__check_url(url, err, errlen);
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
