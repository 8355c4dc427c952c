/*
 * The WebSocket client (chain/wsclient.h) against real sockets on one libuv
 * loop: the project's own server (daemon/core/http.c, with a handler of
 * this file's), and a raw TCP server of this file's that answers the
 * handshake with canned bytes and reads the client's frames with wslay
 * (a server context: unmasked frames would be refused), also behind TLS
 * (OpenSSL's, over memory BIOs, with certificates made by the openssl
 * command for the test) for wss://.  Then the same client fed in memory
 * (hj_wsc_fake): the request byte for byte, answers cut anywhere, what
 * the server's frames can say.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <uv.h>
#include <wslay/wslay.h>

#include "api.h"
#include "dealer_fixture.h"
#include "http.h"
#include "say.h"
#include "view.h"
#include "wsclient.h"

/* RFC 6455, 1.3: the sample key and its Sec-WebSocket-Accept. */
#define KEY    "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

/* ---- what a client was given ---- */

struct rec {
	hj_wsc *c;
	int messages;
	size_t bytes;
	char *first, *last; /* NUL-terminated copies */
	size_t last_len;
	int close_after; /* hj_wsc_close after this many messages (0: no) */
	int closed;
	char *why; /* NULL: closed(arg, NULL) */
};

static void on_message(void *arg, const char *text, size_t len)
{
	struct rec *r = arg;
	assert_int_equal(r->closed, 0);
	r->messages++;
	r->bytes += len;
	free(r->last);
	r->last = malloc(len + 1);
	assert_non_null(r->last);
	memcpy(r->last, text, len);
	r->last[len] = 0;
	r->last_len = len;
	if (!r->first)
		r->first = strdup(r->last);
	if (r->close_after && r->messages == r->close_after)
		hj_wsc_close(r->c);
}

static void on_closed(void *arg, const char *why)
{
	struct rec *r = arg;
	assert_int_equal(r->closed, 0);
	r->closed = 1;
	r->why = why ? strdup(why) : NULL;
	if (why) {
		/* One line of printable ASCII, beginning with the URL. */
		for (const char *p = why; *p; p++)
			assert_true(*p >= ' ' && *p <= '~');
		assert_true(strncmp(why, "ws://", 5) == 0 ||
		            strncmp(why, "wss://", 6) == 0);
	}
}

static const hj_wsc_cbs cbs = {on_message, on_closed, NULL};

static void rec_free(struct rec *r)
{
	free(r->first);
	free(r->last);
	free(r->why);
}

static void expect_why(const struct rec *r, const char *end)
{
	assert_true(r->closed);
	if (!r->why)
		fail_msg("closed without a reason, expected \"...%s\"", end);
	size_t n = strlen(r->why), m = strlen(end);
	if (n < m || strcmp(r->why + n - m, end) != 0)
		fail_msg("\"%s\" does not end in \"%s\"", r->why, end);
}

/* ---- the loop ---- */

static uv_loop_t loop;
static int deadline_hit;

static void on_deadline(uv_timer_t *t)
{
	(void)t;
	deadline_hit = 1;
}

/* Runs the loop until *flag, for 10 s at most. */
static void run_until(const int *flag)
{
	uv_timer_t t;
	deadline_hit = 0;
	uv_timer_init(&loop, &t);
	uv_timer_start(&t, on_deadline, 10000, 0);
	while (!*flag && !deadline_hit)
		uv_run(&loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	if (!*flag)
		fail_msg("no end within 10 s");
}

/* Runs the loop until *n >= want, for 10 s at most. */
static void run_until_n(const int *n, int want, int *flag)
{
	uv_timer_t t;
	deadline_hit = 0;
	uv_timer_init(&loop, &t);
	uv_timer_start(&t, on_deadline, 10000, 0);
	while (*n < want && !deadline_hit)
		uv_run(&loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_NOWAIT);
	*flag = *n >= want;
	if (!*flag)
		fail_msg("%d of %d within 10 s", *n, want);
}

static void loop_down(void)
{
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

static void open_ok(struct rec *r, unsigned port, const char *path, size_t max)
{
	char url[200], err[HJ_ERRLEN];
	snprintf(url, sizeof url, "ws://127.0.0.1:%u%s", port, path);
	int rc =
	    hj_wsc_open(&loop, url, NULL, max, &cbs, r, &r->c, err, sizeof err);
	if (rc)
		fail_msg("%s: %s", url, err);
}

/* ---- the project's server, with a handler of ours ---- */

struct srv {
	hj_server *s;
	unsigned port;
	int ws_opened, ws_closed;
	int down;
};

static void srv_request(void *ctx, hj_conn *c, const hj_server_req *r)
{
	(void)ctx;
	(void)r;
	hj_conn_respond(c, 404, "application/json", "{}", 2);
}

static const char refusal[] =
    "{\"error\":\"from=3 is older than the oldest block kept (7): read "
    "the rounds followed with GET /v1/rounds/{id}\"}\n";

static int srv_ws_open(void *ctx, hj_conn *c, const hj_server_req *r)
{
	struct srv *x = ctx;
	if (strcmp(r->path, "/refuse") == 0) {
		hj_conn_respond(c, 400, "application/json", refusal,
		                sizeof refusal - 1);
		return -1;
	}
	char *q = strdup(r->query);
	assert_non_null(q);
	hj_conn_set_user(c, q);
	x->ws_opened++;
	return 0;
}

static void srv_ws_ready(void *ctx, hj_conn *c)
{
	const char *q = hj_conn_user(c);
	(void)ctx;
	if (strcmp(q, "small") == 0) {
		assert_int_equal(hj_conn_ws_send(c, "hello", 5), 0);
	} else if (strncmp(q, "size=", 5) == 0) {
		size_t n = strtoul(q + 5, NULL, 10);
		char *m = malloc(n);
		assert_non_null(m);
		for (size_t i = 0; i < n; i++)
			m[i] = (char)('a' + i % 26);
		assert_int_equal(hj_conn_ws_send(c, m, n), 0);
		free(m);
	} else if (strcmp(q, "many") == 0) {
		char m[16];
		for (int i = 0; i < 100; i++) {
			int n = snprintf(m, sizeof m, "m%d", i);
			assert_int_equal(hj_conn_ws_send(c, m, (size_t)n), 0);
		}
	} else if (strcmp(q, "close") == 0) {
		assert_int_equal(hj_conn_ws_send(c, "bye", 3), 0);
		hj_conn_ws_close(c, 1001, "restarting");
	}
}

static void srv_ws_close(void *ctx, hj_conn *c)
{
	struct srv *x = ctx;
	free(hj_conn_user(c));
	x->ws_closed++;
}

static void srv_done(void *arg)
{
	((struct srv *)arg)->down = 1;
}

static void srv_up(struct srv *x)
{
	hj_server_limits lim;
	hj_server_handler h = {srv_request, srv_ws_open,  srv_ws_ready,
	                       NULL,        srv_ws_close, x};
	char err[HJ_ERRLEN];
	memset(x, 0, sizeof *x);
	hj_server_limits_default(&lim);
	lim.max_out = 4u << 20;
	assert_int_equal(hj_server_new(&loop, &lim, &h, &x->s), 0);
	assert_non_null(x->s);
	if (hj_server_listen(x->s, "127.0.0.1", 0, &x->port, err, sizeof err))
		fail_msg("%s", err);
}

static void srv_down(struct srv *x)
{
	hj_server_close(x->s, srv_done, x);
	run_until(&x->down);
}

static void test_messages(void **state)
{
	(void)state;
	struct srv x;
	assert_int_equal(uv_loop_init(&loop), 0);
	srv_up(&x);

	/* A small message, then the client closes: why is NULL, and the
	 * server saw the WebSocket go. */
	struct rec r = {.close_after = 1};
	open_ok(&r, x.port, "/stream?small", 1000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 1);
	assert_string_equal(r.last, "hello");
	assert_null(r.why);
	rec_free(&r);

	/* A large one (several reads), whole; max_message is inclusive. */
	r = (struct rec){.close_after = 1};
	open_ok(&r, x.port, "/stream?size=300000", 300000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 1);
	assert_int_equal(r.last_len, 300000);
	for (size_t i = 0; i < r.last_len; i++)
		if (r.last[i] != (char)('a' + i % 26))
			fail_msg("byte %zu differs", i);
	assert_null(r.why);
	rec_free(&r);

	/* Many, in order; none after hj_wsc_close. */
	r = (struct rec){.close_after = 100};
	open_ok(&r, x.port, "/stream?many", 1000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 100);
	assert_string_equal(r.first, "m0");
	assert_string_equal(r.last, "m99");
	rec_free(&r);
	r = (struct rec){.close_after = 3};
	open_ok(&r, x.port, "/stream?many", 1000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 3);
	assert_null(r.why);
	rec_free(&r);

	/* One byte over max_message: refused, with close 1009. */
	r = (struct rec){0};
	open_ok(&r, x.port, "/stream?size=1001", 1000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 0);
	expect_why(&r, "/stream?size=1001: a message longer than 1000 bytes");
	rec_free(&r);

	/* The server closes: its code and reason. */
	r = (struct rec){0};
	open_ok(&r, x.port, "/stream?close", 1000);
	run_until(&r.closed);
	assert_int_equal(r.messages, 1);
	assert_string_equal(r.last, "bye");
	expect_why(&r, "/stream?close: closed by the server (1001: "
	               "restarting)");
	rec_free(&r);

	/* A refusal before the upgrade: its status and body. */
	r = (struct rec){0};
	open_ok(&r, x.port, "/refuse", 1000);
	run_until(&r.closed);
	char want[400];
	snprintf(want, sizeof want, "ws://127.0.0.1:%u/refuse: HTTP 400: %.*s",
	         x.port, (int)sizeof refusal - 2, refusal);
	assert_string_equal(r.why, want);
	rec_free(&r);

	/* Closed while connecting: closed(NULL), never from within. */
	r = (struct rec){0};
	open_ok(&r, x.port, "/stream?small", 1000);
	hj_wsc_close(r.c);
	hj_wsc_close(r.c);
	assert_int_equal(r.closed, 0);
	run_until(&r.closed);
	assert_null(r.why);
	assert_int_equal(r.messages, 0);
	rec_free(&r);

	/* Every WebSocket the server accepted is gone. */
	srv_down(&x);
	assert_int_equal(x.ws_opened, x.ws_closed);
	assert_int_equal(x.ws_opened, 6);
	loop_down();
}

/* ---- hashjack serve's stream itself ---- */

/* The heights of the BlockUpdates a client got, in order. */
struct heights {
	struct rec r;
	uint64_t h[64];
	int n;
	uint64_t stop; /* hj_wsc_close at this height's BlockUpdate */
};

static void on_update(void *arg, const char *text, size_t len)
{
	struct heights *x = arg;
	static const char bu[] = "{\"eventType\":\"BlockUpdate\"";
	on_message(&x->r, text, len);
	assert_int_equal(strncmp(text, "{\"eventType\":\"", 14), 0);
	if (len < sizeof bu || memcmp(text, bu, sizeof bu - 1) != 0)
		return;
	const char *p = strstr(x->r.last, "\"height\":");
	assert_non_null(p);
	assert_true(x->n < 64);
	x->h[x->n] = strtoull(p + 9, NULL, 10);
	if (x->h[x->n++] == x->stop)
		hj_wsc_close(x->r.c);
}

static void on_update_closed(void *arg, const char *why)
{
	on_closed(&((struct heights *)arg)->r, why);
}

static const hj_wsc_cbs update_cbs = {on_update, on_update_closed, NULL};

static void stream_open(struct heights *x, unsigned port, uint64_t from)
{
	char url[100], err[HJ_ERRLEN];
	snprintf(url, sizeof url, "ws://127.0.0.1:%u/v1/stream?from=%llu", port,
	         (unsigned long long)from);
	if (hj_wsc_open(&loop, url, NULL, 1 << 20, &update_cbs, x, &x->r.c, err,
	                sizeof err))
		fail_msg("%s", err);
}

static void test_stream(void **state)
{
	(void)state;
	char dir[64] = "/tmp/hj-wsclient-XXXXXX", err[HJ_ERRLEN], cmd[100];
	hj_rules rules;
	struct srv x = {0};
	assert_int_equal(hj_rules_preset("bethash", &rules), 0);
	rules.min_bet = 1;
	rules.max_bet = 1000000;
	rules.timeout_blocks = 5;
	assert_non_null(mkdtemp(dir));
	hj_fixture *f =
	    hj_fixture_new(dir, HJ_EVM, &rules, 100, err, sizeof err);
	if (!f)
		fail_msg("%s", err);
	for (int i = 0; i < 10; i++)
		if (hj_fixture_block(f, NULL, NULL, 0, err, sizeof err))
			fail_msg("%s", err);
	hjc_view_opts vo = {.db = hj_fixture_db(f),
	                    .log = hj_fixture_log(f),
	                    .confirmations = 12,
	                    .history_blocks = 5,
	                    .recent_rounds = 20};
	hjc_view *v;
	assert_int_equal(hjc_view_new(&vo, &v), 0);
	hjc_api_opts ao = {.max_subscriptions = 2, .max_age_s = 3600};
	hjc_api *api;
	assert_int_equal(hjc_api_new(v, &ao, &api), 0);
	if (hjc_view_poll(v, hjc_api_block, api, err, sizeof err))
		fail_msg("%s", err);
	hj_server_limits lim;
	hj_server_handler h;
	hj_server_limits_default(&lim);
	hjc_api_handler(api, &h);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(hj_server_new(&loop, &lim, &h, &x.s), 0);
	hjc_api_set_server(api, x.s);
	if (hj_server_listen(x.s, "127.0.0.1", 0, &x.port, err, sizeof err))
		fail_msg("%s", err);

	/* Blocks 100 to 109 dealt, the last 5 kept: from=106 gets 107 to
	 * 109, then, live, 110 once it is dealt. */
	struct heights a = {.stop = 110};
	stream_open(&a, x.port, 106);
	int got;
	run_until_n(&a.n, 3, &got);
	if (hj_fixture_block(f, NULL, NULL, 0, err, sizeof err) ||
	    hjc_view_poll(v, hjc_api_block, api, err, sizeof err))
		fail_msg("%s", err);
	run_until(&a.r.closed);
	assert_null(a.r.why);
	assert_int_equal(a.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(a.h[i], 107 + i);
	rec_free(&a.r);

	/* Older than what is kept (106 to 110): the server's 400, in its
	 * words. */
	struct heights b = {0};
	stream_open(&b, x.port, 100);
	run_until(&b.r.closed);
	assert_int_equal(b.n, 0);
	snprintf(err, sizeof err,
	         "ws://127.0.0.1:%u/v1/stream?from=100: HTTP 400: "
	         "{\"error\":\"blocks after 100 are no longer kept (the "
	         "oldest kept is 106): read the rounds you follow with GET "
	         "/v1/rounds/{id}, then stream without from\"}",
	         x.port);
	assert_string_equal(b.r.why, err);
	rec_free(&b.r);

	hj_server_close(x.s, srv_done, &x);
	run_until(&x.down);
	loop_down();
	hjc_api_free(api);
	hjc_view_free(v);
	hj_fixture_free(f);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- a raw server: canned answers ---- */

struct raw {
	uv_tcp_t listener;
	uv_tcp_t conn;
	int has_conn;
	unsigned port;
	const char *answer; /* "%s": the right Sec-WebSocket-Accept */
	const char *frames; /* written after it */
	size_t frames_len;
	int silent;   /* never answer */
	int eof;      /* close after writing */
	int no_reply; /* do not answer the client's frames */
	char req[4096];
	size_t req_len;
	int answered;
	wslay_event_context_ptr ws;
	const uint8_t *in;
	size_t in_len;
	int pongs, pings;
	char pong[64];
	uint16_t close_code; /* received from the client */
	int closed;
	const char *host; /* in the request's Host; NULL: 127.0.0.1 */
	int blurt;        /* answer the first bytes, whatever they are, and
	                     close */
	/* TLS (wss://): the server's context; NULL: plain TCP */
	SSL_CTX *tls;
	int tls_cut;    /* close the connection on the ClientHello */
	int tls_silent; /* never answer the ClientHello */
	SSL *ssl;       /* the connection's, over two memory BIOs */
	BIO *tin, *tout;
	int tls_failed; /* its handshake failed (the client refused it) */
};

static ssize_t raw_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                        int flags, void *user)
{
	struct raw *w = user;
	(void)flags;
	if (w->in_len == 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	size_t n = len < w->in_len ? len : w->in_len;
	memcpy(buf, w->in, n);
	w->in += n;
	w->in_len -= n;
	return (ssize_t)n;
}

/* Small writes to a fresh socket: taken whole.  1, or 0 when the client
 * has gone (it need not wait for the server's close after its own close
 * of an error). */
static int sock_write(struct raw *w, const void *p, size_t n)
{
	uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
	int r = uv_try_write((uv_stream_t *)&w->conn, &b, 1);
	if (r == UV_EPIPE || r == UV_ECONNRESET)
		return 0;
	assert_int_equal(r, n);
	return 1;
}

/* What TLS has to send, to the socket; as sock_write. */
static int tls_out(struct raw *w)
{
	char b[16384];
	int k, ok = 1;
	while (ok && (k = BIO_read(w->tout, b, sizeof b)) > 0)
		ok = sock_write(w, b, (size_t)k);
	return ok;
}

/* Plaintext to the client: through TLS when the server has it. */
static int raw_write(struct raw *w, const void *p, size_t n)
{
	size_t done;
	if (!w->ssl)
		return sock_write(w, p, n);
	assert_int_equal(SSL_write_ex(w->ssl, p, n, &done), 1);
	assert_int_equal(done, n);
	return tls_out(w);
}

static ssize_t raw_send(wslay_event_context_ptr ctx, const uint8_t *data,
                        size_t len, int flags, void *user)
{
	(void)flags;
	if (!raw_write(user, data, len)) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return (ssize_t)len;
}

static void raw_msg(wslay_event_context_ptr ctx,
                    const struct wslay_event_on_msg_recv_arg *a, void *user)
{
	struct raw *w = user;
	if (a->opcode == WSLAY_PONG) {
		w->pongs++;
		snprintf(w->pong, sizeof w->pong, "%.*s", (int)a->msg_length,
		         (const char *)a->msg);
		wslay_event_queue_close(ctx, 1000, NULL, 0);
	} else if (a->opcode == WSLAY_PING) {
		w->pings++;
	} else if (a->opcode == WSLAY_CONNECTION_CLOSE) {
		w->close_code = a->status_code;
	}
}

static const struct wslay_event_callbacks raw_cbs = {
    raw_recv, raw_send, NULL, NULL, NULL, NULL, raw_msg};

static void raw_closed(uv_handle_t *h)
{
	struct raw *w = h->data;
	w->closed = 1;
}

static void raw_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	static char b[65536];
	(void)h;
	(void)want;
	*buf = uv_buf_init(b, sizeof b);
}

/* The request must be exactly what RFC 6455 asks, with our key. */
static void check_request(struct raw *w, char *key)
{
	char head[200];
	snprintf(head, sizeof head,
	         "GET /v1/stream?from=3 HTTP/1.1\r\nHost: "
	         "%s:%u\r\n",
	         w->host ? w->host : "127.0.0.1", w->port);
	assert_int_equal(strncmp(w->req, head, strlen(head)), 0);
	assert_non_null(strstr(w->req, "\r\nUpgrade: websocket\r\n"));
	assert_non_null(strstr(w->req, "\r\nConnection: Upgrade\r\n"));
	assert_non_null(strstr(w->req, "\r\nSec-WebSocket-Version: 13\r\n"));
	const char *k = strstr(w->req, "\r\nSec-WebSocket-Key: ");
	assert_non_null(k);
	k += strlen("\r\nSec-WebSocket-Key: ");
	assert_int_equal(strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmno"
	                           "pqrstuvwxyz0123456789+/="),
	                 24);
	assert_int_equal(strncmp(k + 24, "\r\n", 2), 0);
	uint8_t nonce[18];
	assert_int_equal(EVP_DecodeBlock(nonce, (const unsigned char *)k, 24),
	                 18);
	assert_int_equal(strncmp(k + 22, "==", 2), 0); /* 16 bytes */
	memcpy(key, k, 24);
	key[24] = 0;
}

static void raw_input(struct raw *w, uv_stream_t *st, const char *p, size_t n);

/* The client's bytes through TLS: its handshake, then the plaintext. */
static void tls_input(struct raw *w, uv_stream_t *st, const char *p, size_t n)
{
	char plain[16384];
	size_t got;
	if (w->tls_cut) {
		uv_close((uv_handle_t *)st, raw_closed);
		return;
	}
	if (w->tls_silent || w->tls_failed)
		return;
	assert_int_equal(BIO_write(w->tin, p, (int)n), (int)n);
	if (!SSL_is_init_finished(w->ssl)) {
		int r = SSL_do_handshake(w->ssl);
		tls_out(w);
		if (r != 1) {
			int e = SSL_get_error(w->ssl, r);
			if (e != SSL_ERROR_WANT_READ) {
				/* Refused by the client (its alert came). */
				w->tls_failed = 1;
				uv_close((uv_handle_t *)st, raw_closed);
			}
			return;
		}
	}
	while (!uv_is_closing((uv_handle_t *)st) &&
	       SSL_read_ex(w->ssl, plain, sizeof plain, &got) == 1)
		raw_input(w, st, plain, got);
	if (!uv_is_closing((uv_handle_t *)st))
		tls_out(w);
}

static void raw_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct raw *w = st->data;
	if (n < 0) {
		if (!uv_is_closing((uv_handle_t *)st))
			uv_close((uv_handle_t *)st, raw_closed);
		return;
	}
	if (w->ssl)
		tls_input(w, st, buf->base, (size_t)n);
	else
		raw_input(w, st, buf->base, (size_t)n);
}

/* The client's plaintext: the request, then its frames. */
static void raw_input(struct raw *w, uv_stream_t *st, const char *p, size_t n)
{
	if (w->blurt) {
		w->answered = 1;
		assert_true(raw_write(w, w->answer, strlen(w->answer)));
		uv_close((uv_handle_t *)st, raw_closed);
		return;
	}
	if (!w->answered) {
		assert_true(w->req_len + n < sizeof w->req);
		memcpy(w->req + w->req_len, p, n);
		w->req_len += n;
		w->req[w->req_len] = 0;
		if (!strstr(w->req, "\r\n\r\n") || w->silent)
			return;
		assert_int_equal(strcmp(strstr(w->req, "\r\n\r\n"), "\r\n\r\n"),
		                 0);
		char key[32], in[100], accept[40], ans[12000];
		uint8_t md[SHA_DIGEST_LENGTH];
		check_request(w, key);
		snprintf(in, sizeof in,
		         "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
		SHA1((const unsigned char *)in, strlen(in), md);
		EVP_EncodeBlock((unsigned char *)accept, md, sizeof md);
		/* The answer, its "%s" the accept. */
		const char *at = strstr(w->answer, "%s");
		int k = at ? snprintf(ans, sizeof ans, "%.*s%s%s",
		                      (int)(at - w->answer), w->answer, accept,
		                      at + 2)
		           : snprintf(ans, sizeof ans, "%s", w->answer);
		assert_true(k > 0 && (size_t)k < sizeof ans);
		w->answered = 1;
		if (w->ssl && w->frames_len) {
			/* One TLS write, the first record the answer and
			 * frames together. */
			char *both = malloc((size_t)k + w->frames_len);
			assert_non_null(both);
			memcpy(both, ans, (size_t)k);
			memcpy(both + k, w->frames, w->frames_len);
			assert_true(
			    raw_write(w, both, (size_t)k + w->frames_len));
			free(both);
		} else {
			assert_true(raw_write(w, ans, (size_t)k));
			if (w->frames_len)
				assert_true(
				    raw_write(w, w->frames, w->frames_len));
		}
		if (w->eof)
			uv_close((uv_handle_t *)st, raw_closed);
		else
			assert_int_equal(wslay_event_context_server_init(
			                     &w->ws, &raw_cbs, w),
			                 0);
		return;
	}
	if (!w->ws)
		return;
	w->in = (const uint8_t *)p;
	w->in_len = n;
	assert_int_equal(wslay_event_recv(w->ws), 0);
	if (!w->no_reply && wslay_event_want_write(w->ws))
		wslay_event_send(w->ws);
	if (!wslay_event_want_read(w->ws) && !wslay_event_want_write(w->ws) &&
	    !uv_is_closing((uv_handle_t *)st))
		uv_close((uv_handle_t *)st, raw_closed);
}

static void raw_connection(uv_stream_t *ls, int status)
{
	struct raw *w = ls->data;
	assert_int_equal(status, 0);
	assert_int_equal(w->has_conn, 0);
	uv_tcp_init(&loop, &w->conn);
	w->conn.data = w;
	w->has_conn = 1;
	assert_int_equal(uv_accept(ls, (uv_stream_t *)&w->conn), 0);
	if (w->tls) {
		w->ssl = SSL_new(w->tls);
		w->tin = BIO_new(BIO_s_mem());
		w->tout = BIO_new(BIO_s_mem());
		assert_true(w->ssl && w->tin && w->tout);
		BIO_set_mem_eof_return(w->tin, -1);
		BIO_set_mem_eof_return(w->tout, -1);
		SSL_set_bio(w->ssl, w->tin, w->tout);
		SSL_set_accept_state(w->ssl);
	}
	assert_int_equal(
	    uv_read_start((uv_stream_t *)&w->conn, raw_alloc, raw_read), 0);
}

static void raw_up(struct raw *w)
{
	struct sockaddr_in a;
	struct sockaddr_storage ss;
	int len = sizeof ss;
	w->listener.data = w;
	uv_ip4_addr("127.0.0.1", 0, &a);
	uv_tcp_init(&loop, &w->listener);
	assert_int_equal(
	    uv_tcp_bind(&w->listener, (const struct sockaddr *)&a, 0), 0);
	assert_int_equal(
	    uv_listen((uv_stream_t *)&w->listener, 8, raw_connection), 0);
	uv_tcp_getsockname(&w->listener, (struct sockaddr *)&ss, &len);
	w->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void raw_down(struct raw *w)
{
	uv_close((uv_handle_t *)&w->listener, NULL);
	if (w->has_conn && !uv_is_closing((uv_handle_t *)&w->conn))
		uv_close((uv_handle_t *)&w->conn, raw_closed);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (w->ws)
		wslay_event_context_free(w->ws);
	SSL_free(w->ssl);
	w->ssl = NULL;
}

#define UPGRADE                                                                \
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"           \
	"Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n"

/* Runs one exchange with the raw server; r gets what the client got. */
static void raw_run(struct raw *w, struct rec *r, size_t max,
                    uint64_t handshake_ms, uint64_t ping_ms)
{
	assert_int_equal(uv_loop_init(&loop), 0);
	raw_up(w);
	open_ok(r, w->port, "/v1/stream?from=3", max);
	hj_wsc_set_timeouts(r->c, handshake_ms, ping_ms);
	run_until(&r->closed);
	raw_down(w);
	loop_down();
}

static void test_raw(void **state)
{
	(void)state;
	/* RFC 6455, 5.7: "Hel" and "lo" in two frames, a text "done", an
	 * unmasked ping "Hello", answered with its pong (masked), on which
	 * the server closes (raw_msg): the client answers its close. */
	static const char frames[] = "\x01\x03Hel"
	                             "\x80\x02lo"
	                             "\x81\x04"
	                             "done"
	                             "\x89\x05Hello";
	struct raw w = {.answer = UPGRADE,
	                .frames = frames,
	                .frames_len = sizeof frames - 1};
	struct rec r = {0};
	raw_run(&w, &r, 100, 0, 0);
	assert_int_equal(r.messages, 2);
	assert_string_equal(r.first, "Hello");
	assert_string_equal(r.last, "done");
	expect_why(&r, "/v1/stream?from=3: closed by the server (1000: "
	               "normal closure)");
	assert_int_equal(w.pongs, 1);
	assert_string_equal(w.pong, "Hello");
	assert_int_equal(w.close_code, 1000);
	rec_free(&r);

	/* The client closes: close 1000, and the server's reply ends it. */
	w = (struct raw){.answer = UPGRADE,
	                 .frames = frames,
	                 .frames_len = sizeof frames - 1};
	r = (struct rec){.close_after = 1};
	raw_run(&w, &r, 100, 0, 0);
	assert_int_equal(r.messages, 1);
	assert_null(r.why);
	assert_int_equal(w.close_code, 1000);
	rec_free(&r);

	/* A binary message: close 1003, said. */
	static const char binary[] = "\x82\x03"
	                             "abc\x81\x01x";
	w = (struct raw){.answer = UPGRADE,
	                 .frames = binary,
	                 .frames_len = sizeof binary - 1};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 0, 0);
	assert_int_equal(r.messages, 0);
	expect_why(&r, "a binary message (the stream sends text)");
	assert_int_equal(w.close_code, 1003);
	rec_free(&r);

	/* Accept, Upgrade and Connection are checked. */
	static const struct {
		const char *answer, *why;
	} bad[] = {
	    {"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	     "Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n",
	     "the handshake's Sec-WebSocket-Accept is not the key's"},
	    {"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	     "Connection: Upgrade\r\n\r\n",
	     "the handshake's answer has no Sec-WebSocket-Accept"},
	    {"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
	     "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
	     "the handshake's answer has no Upgrade: websocket"},
	    {"HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\n"
	     "Connection: keep-alive\r\nSec-WebSocket-Accept: %s\r\n\r\n",
	     "the handshake's answer has no Connection: upgrade"},
	    {"HTTP/1.1 101 Switching Protocols\r\nupgrade: WEBSOCKET\r\n"
	     "connection: keep-alive, UPGRADE\r\nsec-websocket-accept: %s\r\n"
	     "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n",
	     "the handshake's answer has an extension that was not asked "
	     "for"},
	    {"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
	     "/v1/stream?from=3: HTTP 404 Not Found"},
	    /* A body read to the end of the connection. */
	    {"HTTP/1.1 503 Service Unavailable\r\n\r\n  the view is\r\n"
	     "\tloading \x01\xff ",
	     "/v1/stream?from=3: HTTP 503: the view is loading ??"},
	    /* A chunked one. */
	    {"HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n"
	     "3\r\nbad\r\n4\r\n fro\r\n1\r\nm\r\n0\r\n\r\n",
	     "/v1/stream?from=3: HTTP 400: bad from"},
	    {"SSH-2.0-OpenSSH_9.2\r\n\r\n",
	     "the answer to the handshake is not HTTP: Expected HTTP/"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		w = (struct raw){.answer = bad[i].answer, .eof = 1};
		r = (struct rec){0};
		raw_run(&w, &r, 100, 0, 0);
		assert_int_equal(r.messages, 0);
		expect_why(&r, bad[i].why);
		rec_free(&r);
	}

	/* A body longer than is read: the start of it. */
	static char big[HJ_WSC_MAX_HEAD + 200];
	int k = snprintf(big, sizeof big,
	                 "HTTP/1.1 400 Bad Request\r\nContent-Length: "
	                 "%d\r\n\r\n",
	                 HJ_WSC_MAX_BODY + 100);
	memset(big + k, 'b', HJ_WSC_MAX_BODY + 100);
	big[k + HJ_WSC_MAX_BODY + 100] = 0;
	w = (struct raw){.answer = big};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 0, 0);
	assert_non_null(strstr(r.why, ": HTTP 400: bbbb"));
	expect_why(&r, "bbb...");
	rec_free(&r);

	/* A head longer than HJ_WSC_MAX_HEAD. */
	k = snprintf(big, sizeof big,
	             "HTTP/1.1 101 Switching Protocols\r\nX-Pad: ");
	memset(big + k, 'p', HJ_WSC_MAX_HEAD);
	big[k + HJ_WSC_MAX_HEAD] = 0;
	w = (struct raw){.answer = big};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 0, 0);
	expect_why(&r, "the handshake's answer has a head longer than 8192 "
	               "bytes");
	rec_free(&r);

	/* No answer at all, within the handshake's time. */
	w = (struct raw){.silent = 1};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 150, 0);
	expect_why(&r, "no answer to the WebSocket handshake within 150 ms");
	rec_free(&r);

	/* The server goes quiet and does not answer pings. */
	w = (struct raw){.answer = UPGRADE, .no_reply = 1};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 0, 100);
	expect_why(&r, "the server has sent nothing for 200 ms");
	assert_true(w.pings >= 1);
	rec_free(&r);

	/* The connection ends without a close frame. */
	w = (struct raw){.answer = UPGRADE,
	                 .frames = "\x81\x02hi",
	                 .frames_len = 4,
	                 .eof = 1};
	r = (struct rec){0};
	raw_run(&w, &r, 100, 0, 0);
	assert_int_equal(r.messages, 1);
	expect_why(&r, "the server closed the connection without a WebSocket "
	               "close");
	rec_free(&r);
}

/* ---- wss:// ---- */

/* Certificates made for the run (openssl req), in a directory of its own:
 * cert.pem for localhost and 127.0.0.1, other.pem for other.example only;
 * each self-signed, its own CA. */
static char tls_dir[64];

static void tls_cert(const char *name, const char *cn, const char *san)
{
	char cmd[700];
	snprintf(cmd, sizeof cmd,
	         "openssl req -x509 -newkey ec -pkeyopt "
	         "ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout "
	         "%s/%s.key -out %s/%s.pem -subj /CN=%s -addext "
	         "subjectAltName=%s 2>/dev/null",
	         tls_dir, name, tls_dir, name, cn, san);
	if (system(cmd) != 0)
		fail_msg("cannot make a certificate: %s", cmd);
}

static void tls_path(char *out, size_t n, const char *file)
{
	snprintf(out, n, "%s/%s", tls_dir, file);
}

/* A server context with the certificate name (cert or other). */
static SSL_CTX *tls_server(const char *name)
{
	char crt[128], key[128], file[32];
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	assert_non_null(ctx);
	snprintf(file, sizeof file, "%s.pem", name);
	tls_path(crt, sizeof crt, file);
	snprintf(file, sizeof file, "%s.key", name);
	tls_path(key, sizeof key, file);
	assert_int_equal(
	    SSL_CTX_use_certificate_file(ctx, crt, SSL_FILETYPE_PEM), 1);
	assert_int_equal(
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM), 1);
	return ctx;
}

/* One exchange with the raw server behind TLS (w->tls), the client at
 * wss://HOST:PORT/v1/stream?from=3 trusting ca (a file of tls_dir). */
static void tls_run(struct raw *w, struct rec *r, const char *host,
                    const char *ca, size_t max, uint64_t handshake_ms,
                    uint64_t ping_ms)
{
	char url[200], path[128], err[HJ_ERRLEN];
	assert_int_equal(uv_loop_init(&loop), 0);
	raw_up(w);
	snprintf(url, sizeof url, "wss://%s:%u/v1/stream?from=3", host,
	         w->port);
	tls_path(path, sizeof path, ca);
	if (hj_wsc_open(&loop, url, path, max, &cbs, r, &r->c, err, sizeof err))
		fail_msg("%s: %s", url, err);
	hj_wsc_set_timeouts(r->c, handshake_ms, ping_ms);
	run_until(&r->closed);
	raw_down(w);
	loop_down();
	SSL_CTX_free(w->tls);
}

static void tls_certs_up(void)
{
	snprintf(tls_dir, sizeof tls_dir, "/tmp/hj-wsclient-tls-XXXXXX");
	assert_non_null(mkdtemp(tls_dir));
	tls_cert("cert", "localhost", "IP:127.0.0.1,DNS:localhost");
	tls_cert("other", "other.example", "DNS:other.example");
}

static void tls_certs_down(void)
{
	char cmd[100];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tls_dir);
	assert_int_equal(system(cmd), 0);
}

static void test_tls(void **state)
{
	(void)state;
	tls_certs_up();

	/* As test_raw's first exchange, through TLS: the same request
	 * (check_request), fragments, a ping answered, the server's close
	 * answered; and a message longer than a TLS record (16 KiB). */
	static char frames[40000];
	size_t k = 0;
	memcpy(frames, "\x01\x03Hel\x80\x02lo", 9);
	k = 9;
	frames[k++] = (char)0x81;
	frames[k++] = 126; /* 30000 bytes: a 16-bit length */
	frames[k++] = (char)(30000 >> 8);
	frames[k++] = (char)(30000 & 0xff);
	memset(frames + k, 'x', 30000);
	k += 30000;
	memcpy(frames + k, "\x89\x05Hello", 7);
	k += 7;
	struct raw w = {.answer = UPGRADE,
	                .frames = frames,
	                .frames_len = k,
	                .tls = tls_server("cert")};
	struct rec r = {0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 30000, 0, 0);
	assert_int_equal(r.messages, 2);
	assert_string_equal(r.first, "Hello");
	assert_int_equal(r.last_len, 30000);
	assert_int_equal(r.last[0], 'x');
	expect_why(&r, "/v1/stream?from=3: closed by the server (1000: "
	               "normal closure)");
	assert_int_equal(w.pongs, 1);
	assert_int_equal(w.close_code, 1000);
	rec_free(&r);

	/* The client closes through TLS; by name (localhost: SNI and the
	 * certificate's DNS name), after ::1 refused where it exists. */
	w = (struct raw){.answer = UPGRADE,
	                 .frames = frames,
	                 .frames_len = 9,
	                 .host = "localhost",
	                 .tls = tls_server("cert")};
	r = (struct rec){.close_after = 1};
	tls_run(&w, &r, "localhost", "cert.pem", 100, 0, 0);
	assert_int_equal(r.messages, 1);
	assert_string_equal(r.last, "Hello");
	assert_null(r.why);
	assert_int_equal(w.close_code, 1000);
	rec_free(&r);

	/* The bounds hold through TLS: a message one byte over max, a
	 * server that says nothing after the upgrade. */
	w = (struct raw){.answer = UPGRADE,
	                 .frames = frames,
	                 .frames_len = k - 7,
	                 .tls = tls_server("cert")};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 29999, 0, 0);
	assert_int_equal(r.messages, 1);
	expect_why(&r, "a message longer than 29999 bytes");
	rec_free(&r);
	w = (struct raw){
	    .answer = UPGRADE, .no_reply = 1, .tls = tls_server("cert")};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 100, 0, 100);
	expect_why(&r, "the server has sent nothing for 200 ms");
	assert_true(w.pings >= 1);
	rec_free(&r);

	/* The wrong CA: refused, with OpenSSL's reason; the server never
	 * saw a request. */
	w = (struct raw){.answer = UPGRADE, .tls = tls_server("cert")};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "other.pem", 100, 0, 0);
	expect_why(&r, ": the TLS certificate of 127.0.0.1 failed "
	               "verification: self-signed certificate");
	assert_int_equal(w.req_len, 0);
	assert_true(w.tls_failed);
	rec_free(&r);

	/* A trusted certificate of another name: an IP address, a host
	 * name. */
	w = (struct raw){.answer = UPGRADE, .tls = tls_server("other")};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "other.pem", 100, 0, 0);
	expect_why(&r, ": the TLS certificate of 127.0.0.1 failed "
	               "verification: IP address mismatch");
	assert_int_equal(w.req_len, 0);
	rec_free(&r);
	w = (struct raw){.answer = UPGRADE, .tls = tls_server("other")};
	r = (struct rec){0};
	tls_run(&w, &r, "localhost", "other.pem", 100, 0, 0);
	expect_why(&r, ": the TLS certificate of localhost failed "
	               "verification: hostname mismatch");
	assert_int_equal(w.req_len, 0);
	rec_free(&r);

	/* The server closes in the middle of the TLS handshake; it never
	 * answers it (the handshake's deadline). */
	w = (struct raw){.tls = tls_server("cert"), .tls_cut = 1};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 100, 0, 0);
	expect_why(&r, "/v1/stream?from=3: the server closed the connection "
	               "in the middle of the TLS handshake with 127.0.0.1");
	rec_free(&r);
	w = (struct raw){.tls = tls_server("cert"), .tls_silent = 1};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 100, 150, 0);
	expect_why(&r, "/v1/stream?from=3: no TLS handshake with 127.0.0.1 "
	               "within 150 ms");
	rec_free(&r);

	/* A server that speaks TLS 1.1 at most: refused (1.2 at least). */
	w = (struct raw){.answer = UPGRADE, .tls = tls_server("cert")};
	SSL_CTX_set_security_level(w.tls, 0);
	SSL_CTX_set_min_proto_version(w.tls, TLS1_VERSION);
	SSL_CTX_set_max_proto_version(w.tls, TLS1_1_VERSION);
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 100, 0, 0);
	expect_why(&r, "/v1/stream?from=3: the TLS handshake with 127.0.0.1 "
	               "failed: tlsv1 alert protocol version");
	assert_int_equal(w.req_len, 0);
	rec_free(&r);

	/* A plain HTTP server: its answer to the ClientHello is no TLS. */
	w = (struct raw){.answer = "HTTP/1.1 400 Bad Request\r\n\r\n",
	                 .blurt = 1};
	r = (struct rec){0};
	tls_run(&w, &r, "127.0.0.1", "cert.pem", 100, 0, 0);
	expect_why(&r, "/v1/stream?from=3: the TLS handshake with 127.0.0.1 "
	               "failed: wrong version number (is the server plain, "
	               "without TLS?)");
	rec_free(&r);

	/* A CA file that cannot be used: refused at once, naming it. */
	uv_loop_t l;
	hj_wsc *c;
	char err[HJ_ERRLEN];
	r = (struct rec){0};
	assert_int_equal(uv_loop_init(&l), 0);
	assert_int_equal(hj_wsc_open(&l, "wss://127.0.0.1/", "/nonexistent",
	                             100, &cbs, &r, &c, err, sizeof err),
	                 -EINVAL);
	assert_null(c);
	assert_string_equal(err, "wss://127.0.0.1/: ca_file /nonexistent: "
	                         "cannot open it: No such file or directory");
	assert_int_equal(uv_loop_close(&l), 0);
	assert_int_equal(r.closed, 0);
	tls_certs_down();
}

/* Nobody listens: refused, said with the address. */
static void test_refused(void **state)
{
	(void)state;
	struct raw w = {0};
	struct rec r = {0};
	char want[100];
	assert_int_equal(uv_loop_init(&loop), 0);
	raw_up(&w);
	unsigned port = w.port;
	raw_down(&w);
	open_ok(&r, port, "/v1/stream", 100);
	run_until(&r.closed);
	snprintf(want, sizeof want,
	         "cannot connect to 127.0.0.1 port %u: connection refused",
	         port);
	expect_why(&r, want);
	rec_free(&r);

	/* localhost: each of its addresses in turn (::1 and 127.0.0.1
	 * where both exist), all refused. */
	r = (struct rec){0};
	char url[100], err[HJ_ERRLEN];
	snprintf(url, sizeof url, "ws://localhost:%u/", port);
	assert_int_equal(
	    hj_wsc_open(&loop, url, NULL, 100, &cbs, &r, &r.c, err, sizeof err),
	    0);
	run_until(&r.closed);
	assert_non_null(strstr(r.why, "connection refused"));
	rec_free(&r);
	loop_down();
}

/* ---- URLs ---- */

static void test_urls(void **state)
{
	(void)state;
	static const struct {
		const char *url, *err;
	} bad[] = {
	    {"http://127.0.0.1:8549/v1/stream",
	     "http://127.0.0.1:8549/v1/stream: not a ws:// or wss:// URL"},
	    {"wss://me:secret@127.0.0.1/v1/stream",
	     "the stream's URL may not have a user or password"},
	    {"ws://me:secret@127.0.0.1/v1/stream",
	     "the stream's URL may not have a user or password"},
	    {"ws://127.0.0.1/v1/stream#x",
	     "ws://127.0.0.1/v1/stream#x: a WebSocket URL has no #fragment"},
	    {"ws://127.0.0.1/v1/stream x",
	     "the stream's URL must be printable ASCII without spaces"},
	    {"", "the stream's URL must be 1 to 1024 bytes"},
	    {"ws://127.0.0.1:99999/", "ws://127.0.0.1:99999/: "},
	    {"127.0.0.1:8549/v1/stream", "127.0.0.1:8549/v1/stream: "},
	};
	uv_loop_t l;
	hj_wsc *c = (hj_wsc *)&l;
	char err[HJ_ERRLEN];
	struct rec r = {0};
	assert_int_equal(uv_loop_init(&l), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		assert_int_equal(hj_wsc_open(&l, bad[i].url, NULL, 100, &cbs,
		                             &r, &c, err, sizeof err),
		                 -EINVAL);
		assert_null(c);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0)
			fail_msg("%s: \"%s\"", bad[i].url, err);
	}
	assert_int_equal(hj_wsc_open(&l, "ws://127.0.0.1/", NULL, 0, &cbs, &r,
	                             &c, err, sizeof err),
	                 -EINVAL);
	assert_int_equal(uv_loop_close(&l), 0);
	assert_int_equal(r.closed, 0);
}

/* ---- in memory ---- */

struct wire {
	char *p;
	size_t n;
};

static void wire_out(void *arg, const char *p, size_t n)
{
	struct wire *w = arg;
	w->p = realloc(w->p, w->n + n + 1);
	assert_non_null(w->p);
	memcpy(w->p + w->n, p, n);
	w->n += n;
	w->p[w->n] = 0;
}

static hj_wsc *fake(const char *url, size_t max, struct rec *r, struct wire *w)
{
	hj_wsc_fake_opts o = {.url = url,
	                      .max_message = max,
	                      .key = KEY,
	                      .out = w ? wire_out : NULL,
	                      .out_arg = w};
	char err[HJ_ERRLEN];
	if (hj_wsc_fake(&o, &cbs, r, &r->c, err, sizeof err))
		fail_msg("%s", err);
	return r->c;
}

#define UPGRADED                                                               \
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"           \
	"Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n"

/* Feeds s one byte at a time; returns the first nonzero of hj_wsc_feed. */
static int feed_bytes(hj_wsc *c, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hj_wsc_feed(c, s + i, 1) != 0)
			return -1;
	return 0;
}

static void test_fake(void **state)
{
	(void)state;
	struct wire w = {0};
	struct rec r = {0};

	/* The request, byte for byte; IPv6 literal and default port. */
	hj_wsc *c = fake("ws://[::1]/v1/stream?from=3", 100, &r, &w);
	assert_string_equal(w.p,
	                    "GET /v1/stream?from=3 HTTP/1.1\r\n"
	                    "Host: [::1]\r\n"
	                    "User-Agent: hashjack/" HJ_VERSION_STRING "\r\n"
	                    "Upgrade: websocket\r\n"
	                    "Connection: Upgrade\r\n"
	                    "Sec-WebSocket-Key: " KEY "\r\n"
	                    "Sec-WebSocket-Version: 13\r\n\r\n");
	w.n = 0;
	/* The answer and two messages, a byte at a time. */
	static const char in[] = UPGRADED "\x81\x05Hello"
	                                  "\x81\x00";
	assert_int_equal(feed_bytes(c, in, sizeof in - 1), 0);
	assert_int_equal(r.messages, 2);
	assert_string_equal(r.first, "Hello");
	assert_string_equal(r.last, "");
	/* The server's close, code only: its name; the client's reply is
	 * masked (the mask bit of its second byte). */
	assert_int_equal(hj_wsc_feed(c, "\x88\x02\x03\xe9", 4), -1);
	expect_why(&r, "ws://[::1]/v1/stream?from=3: closed by the server "
	               "(1001: going away)");
	assert_int_equal(w.n, 2 + 4 + 2);
	assert_int_equal((uint8_t)w.p[0], 0x88);
	assert_int_equal((uint8_t)w.p[1], 0x82);
	rec_free(&r);
	free(w.p);

#define END(s, why)                                                            \
	{                                                                      \
		s, sizeof s - 1, why                                           \
	}
	static const struct {
		const char *in;
		size_t n;
		const char *why;
	} ends[] = {
	    END(UPGRADED "\x88\x00", "closed by the server (no status code)"),
	    END(UPGRADED "\x88\x02\x0f\xa0", "closed by the server (4000)"),
	    END(UPGRADED "\x81\x02\xc3\x28",
	        "a text message that is not UTF-8"),
	    /* masked, as only clients may */
	    END(UPGRADED "\x81\x82\x01\x02\x03\x04hi",
	        "a frame that breaks the WebSocket protocol"),
	    /* a reserved opcode */
	    END(UPGRADED "\x83\x00",
	        "a frame that breaks the WebSocket protocol"),
	    /* a message inside an unfinished one */
	    END(UPGRADED "\x01\x01h\x81\x01i",
	        "a frame that breaks the WebSocket protocol"),
	    END(UPGRADED "\x01\x05Hello\x80\x06world!",
	        "a message longer than 10 bytes"),
	    END(UPGRADED "\x82\x7f\x7f\xff\xff\xff\xff\xff\xff\xff"
	                 "x",
	        "a message longer than 10 bytes"),
	};
#undef END
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		w = (struct wire){0};
		r = (struct rec){0};
		c = fake("ws://h/", 10, &r, &w);
		if (hj_wsc_feed(c, ends[i].in, ends[i].n) != -1)
			fail_msg("ends[%zu] did not end", i);
		expect_why(&r, ends[i].why);
		rec_free(&r);
		free(w.p);
	}

	/* Deadlines: the handshake's; a quiet server pinged, then
	 * dropped; the closing handshake's. */
	r = (struct rec){0};
	c = fake("ws://h/", 10, &r, NULL);
	assert_int_equal(hj_wsc_feed(c, "HTTP/1.1 101", 12), 0);
	assert_int_equal(hj_wsc_fake_tick(c), -1);
	expect_why(&r, "ws://h/: no answer to the WebSocket handshake within "
	               "10 s");
	rec_free(&r);
	w = (struct wire){0};
	r = (struct rec){0};
	c = fake("ws://h/", 10, &r, &w);
	assert_int_equal(hj_wsc_feed(c, UPGRADED, sizeof UPGRADED - 1), 0);
	w.n = 0;
	assert_int_equal(hj_wsc_fake_tick(c), 0);
	assert_int_equal((uint8_t)w.p[0], 0x89); /* a ping, masked */
	assert_int_equal((uint8_t)w.p[1], 0x80);
	assert_int_equal(hj_wsc_feed(c, "\x8a\x00", 2), 0); /* its pong */
	assert_int_equal(hj_wsc_fake_tick(c), 0);           /* pinged again */
	assert_int_equal(hj_wsc_fake_tick(c), -1);
	expect_why(&r, "the server has sent nothing for 60 s");
	rec_free(&r);
	free(w.p);
	r = (struct rec){0};
	c = fake("ws://h/", 10, &r, NULL);
	assert_int_equal(hj_wsc_feed(c, UPGRADED, sizeof UPGRADED - 1), 0);
	hj_wsc_close(c);
	assert_int_equal(r.closed, 0);
	assert_int_equal(hj_wsc_feed(c, "\x81\x01x", 3), 0); /* not given */
	assert_int_equal(hj_wsc_fake_tick(c), -1);
	assert_true(r.closed);
	assert_null(r.why);
	assert_int_equal(r.messages, 0);
	rec_free(&r);

	/* Closed before the answer: at once. */
	r = (struct rec){0};
	c = fake("ws://h/", 10, &r, NULL);
	hj_wsc_close(c);
	assert_true(r.closed);
	assert_null(r.why);
	rec_free(&r);

	/* The end of the connection in the middle of the head. */
	r = (struct rec){0};
	c = fake("ws://h/", 10, &r, NULL);
	assert_int_equal(hj_wsc_feed(c, "HTTP/1.1 101 Switching", 22), 0);
	hj_wsc_fake_eof(c);
	expect_why(&r, "the server closed the connection in the middle of "
	               "the handshake's answer");
	rec_free(&r);
}

/* ---- sending (push.h's subscription) ---- */

struct sender {
	hj_wsc *c;
	int opens, messages, closed;
	int order_ok;        /* open came before the first message */
	const char *in_open; /* sent from open; NULL: nothing */
	int close_in_open;
	int send_rc; /* of the send in open */
	char last[64];
	char *why;
};

static void s_open(void *arg)
{
	struct sender *x = arg;
	x->opens++;
	x->order_ok = x->messages == 0;
	if (x->in_open)
		x->send_rc = hj_wsc_send(x->c, x->in_open, strlen(x->in_open));
	if (x->close_in_open)
		hj_wsc_close(x->c);
}

static void s_message(void *arg, const char *text, size_t len)
{
	struct sender *x = arg;
	assert_int_equal(x->opens, 1);
	x->messages++;
	snprintf(x->last, sizeof x->last, "%.*s", (int)len, text);
	/* A send from within a message goes out after it. */
	if (strcmp(x->last, "ask") == 0)
		assert_int_equal(hj_wsc_send(x->c, "answer", 6), 0);
	if (strcmp(x->last, "echo:bye") == 0)
		hj_wsc_close(x->c);
}

static void s_closed(void *arg, const char *why)
{
	struct sender *x = arg;
	x->closed = 1;
	x->why = why ? strdup(why) : NULL;
}

static const hj_wsc_cbs sender_cbs = {s_message, s_closed, s_open};

/* The frames a client wrote, unmasked: "t:TEXT" per text frame, "c" for
 * a close, joined with '|'. */
static void client_frames(const struct wire *w, char *out, size_t n)
{
	size_t i = 0, o = 0;
	out[0] = 0;
	while (i + 6 <= w->n) {
		uint8_t op = (uint8_t)w->p[i] & 0x0f;
		size_t len = (uint8_t)w->p[i + 1] & 0x7f;
		assert_true((uint8_t)w->p[i] & 0x80);     /* FIN */
		assert_true((uint8_t)w->p[i + 1] & 0x80); /* masked */
		assert_true(len < 126);
		const uint8_t *mask = (const uint8_t *)w->p + i + 2;
		assert_true(i + 6 + len <= w->n);
		o += (size_t)snprintf(out + o, n - o, "%s%s", o ? "|" : "",
		                      op == 1   ? "t:"
		                      : op == 8 ? "c"
		                                : "?");
		for (size_t k = 0; op == 1 && k < len && o + 1 < n; k++)
			out[o++] =
			    (char)((uint8_t)w->p[i + 6 + k] ^ mask[k % 4]);
		out[o] = 0;
		i += 6 + len;
	}
	assert_int_equal(i, w->n);
}

static hj_wsc *sender_fake(struct sender *x, struct wire *w)
{
	hj_wsc_fake_opts o = {.url = "ws://h/",
	                      .max_message = 100,
	                      .key = KEY,
	                      .out = wire_out,
	                      .out_arg = w};
	char err[HJ_ERRLEN];
	if (hj_wsc_fake(&o, &sender_cbs, x, &x->c, err, sizeof err))
		fail_msg("%s", err);
	w->n = 0; /* the handshake request: test_fake's */
	return x->c;
}

static void test_send_fake(void **state)
{
	(void)state;
	struct wire w = {0};
	struct sender x = {0};
	char frames[256], big[HJ_WSC_MAX_OUT + 1];

	/* open once, before the first message (same read); what it sends
	 * goes out, masked; a send in a message goes out after it. */
	x.in_open = "{\"id\":1}";
	hj_wsc *c = sender_fake(&x, &w);
	assert_int_equal(hj_wsc_send(c, "early", 5), -EINVAL);
	static const char in[] = UPGRADED "\x81\x02hi\x81\x03"
	                                  "ask";
	assert_int_equal(hj_wsc_feed(c, in, sizeof in - 1), 0);
	assert_int_equal(x.opens, 1);
	assert_true(x.order_ok);
	assert_int_equal(x.send_rc, 0);
	assert_int_equal(x.messages, 2);
	client_frames(&w, frames, sizeof frames);
	assert_string_equal(frames, "t:{\"id\":1}|t:answer");
	/* Outside callbacks: at once; too long: refused, nothing written. */
	w.n = 0;
	assert_int_equal(hj_wsc_send(c, "more", 4), 0);
	assert_int_equal(hj_wsc_send(c, "", 0), 0);
	memset(big, 'a', sizeof big);
	assert_int_equal(hj_wsc_send(c, big, sizeof big), -EMSGSIZE);
	client_frames(&w, frames, sizeof frames);
	assert_string_equal(frames, "t:more|t:");
	/* After hj_wsc_close: refused. */
	hj_wsc_close(c);
	assert_int_equal(hj_wsc_send(c, "late", 4), -EINVAL);
	assert_int_equal(hj_wsc_fake_tick(c), -1);
	assert_true(x.closed);
	assert_null(x.why);
	assert_int_equal(x.opens, 1);
	free(w.p);

	/* Closed from open: the close goes, no message is given. */
	w = (struct wire){0};
	x = (struct sender){.close_in_open = 1};
	c = sender_fake(&x, &w);
	static const char in2[] = UPGRADED "\x81\x02hi";
	assert_int_equal(hj_wsc_feed(c, in2, sizeof in2 - 1), 0);
	assert_int_equal(x.opens, 1);
	assert_int_equal(x.messages, 0);
	client_frames(&w, frames, sizeof frames);
	assert_string_equal(frames, "c");
	assert_int_equal(hj_wsc_feed(c, "\x88\x02\x03\xe8", 4), -1);
	assert_true(x.closed);
	assert_null(x.why);
	free(w.p);

	/* Aborted: the close frame if it goes at once, and the end now,
	 * without the server's close; no message after. */
	w = (struct wire){0};
	x = (struct sender){0};
	c = sender_fake(&x, &w);
	assert_int_equal(hj_wsc_feed(c, UPGRADED, sizeof UPGRADED - 1), 0);
	hj_wsc_abort(c);
	assert_true(x.closed);
	assert_null(x.why);
	client_frames(&w, frames, sizeof frames);
	assert_string_equal(frames, "c");
	assert_int_equal(w.n, 8); /* 1001, unmasked: 03 e9 */
	assert_int_equal((uint8_t)w.p[6] ^ (uint8_t)w.p[2], 0x03);
	assert_int_equal((uint8_t)w.p[7] ^ (uint8_t)w.p[3], 0xe9);
	free(w.p);
	/* ... also while the closing handshake waits, and before the
	 * answer. */
	w = (struct wire){0};
	x = (struct sender){0};
	c = sender_fake(&x, &w);
	assert_int_equal(hj_wsc_feed(c, UPGRADED, sizeof UPGRADED - 1), 0);
	hj_wsc_close(c);
	assert_int_equal(x.closed, 0);
	hj_wsc_abort(c);
	assert_true(x.closed);
	assert_null(x.why);
	x = (struct sender){0};
	c = sender_fake(&x, &w);
	hj_wsc_abort(c);
	assert_true(x.closed);
	assert_null(x.why);
	assert_int_equal(x.opens, 0);
	free(w.p);

	/* A refused handshake: never open. */
	w = (struct wire){0};
	x = (struct sender){.in_open = "x"};
	c = sender_fake(&x, &w);
	static const char in3[] = "HTTP/1.1 404 Not Found\r\n"
	                          "Content-Length: 0\r\n\r\n";
	assert_int_equal(hj_wsc_feed(c, in3, sizeof in3 - 1), -1);
	assert_int_equal(x.opens, 0);
	assert_true(x.closed);
	assert_non_null(x.why);
	free(x.why);
	free(w.p);
}

/* Against the project's server over a socket: what open sends arrives,
 * the server's echo comes back. */
static void echo_message(void *ctx, hj_conn *c, const char *msg, size_t n)
{
	char out[80];
	(void)ctx;
	int k = snprintf(out, sizeof out, "echo:%.*s", (int)n, msg);
	assert_int_equal(hj_conn_ws_send(c, out, (size_t)k), 0);
}

static int echo_open(void *ctx, hj_conn *c, const hj_server_req *r)
{
	(void)ctx;
	(void)c;
	(void)r;
	return 0;
}

static void test_send_real(void **state)
{
	(void)state;
	struct srv x;
	struct sender y = {.in_open = "bye"};
	hj_server_limits lim;
	hj_server_handler h = {srv_request,  echo_open, NULL,
	                       echo_message, NULL,      &x};
	char url[100], err[HJ_ERRLEN];

	assert_int_equal(uv_loop_init(&loop), 0);
	memset(&x, 0, sizeof x);
	hj_server_limits_default(&lim);
	assert_int_equal(hj_server_new(&loop, &lim, &h, &x.s), 0);
	assert_non_null(x.s);
	if (hj_server_listen(x.s, "127.0.0.1", 0, &x.port, err, sizeof err))
		fail_msg("%s", err);
	snprintf(url, sizeof url, "ws://127.0.0.1:%u/", x.port);
	assert_int_equal(hj_wsc_open(&loop, url, NULL, 100, &sender_cbs, &y,
	                             &y.c, err, sizeof err),
	                 0);
	run_until(&y.closed);
	assert_int_equal(y.opens, 1);
	assert_int_equal(y.send_rc, 0);
	assert_int_equal(y.messages, 1);
	assert_string_equal(y.last, "echo:bye");
	assert_null(y.why);
	srv_down(&x);
	loop_down();
}

/* What open sends goes through TLS while the rest of the record that
 * held the upgrade (a frame) is still being read: the frame arrives
 * whole, and the client's close after it. */
static void test_tls_send(void **state)
{
	(void)state;
	char url[200], ca[128], err[HJ_ERRLEN];
	static const char frames[] = "\x81\x08"
	                             "echo:bye";
	struct raw w = {.answer = UPGRADE,
	                .frames = frames,
	                .frames_len = sizeof frames - 1};
	/* Longer than the answer's head: its ciphertext would cover the
	 * frame, were they to share a buffer. */
	char sub[400];
	memset(sub, 'a', sizeof sub - 1);
	sub[sizeof sub - 1] = 0;
	struct sender y = {.in_open = sub};
	tls_certs_up();
	w.tls = tls_server("cert");
	tls_path(ca, sizeof ca, "cert.pem");
	assert_int_equal(uv_loop_init(&loop), 0);
	raw_up(&w);
	snprintf(url, sizeof url, "wss://127.0.0.1:%u/v1/stream?from=3",
	         w.port);
	assert_int_equal(hj_wsc_open(&loop, url, ca, 100, &sender_cbs, &y, &y.c,
	                             err, sizeof err),
	                 0);
	run_until(&y.closed);
	raw_down(&w);
	loop_down();
	SSL_CTX_free(w.tls);
	assert_int_equal(y.opens, 1);
	assert_int_equal(y.send_rc, 0);
	assert_int_equal(y.messages, 1);
	assert_string_equal(y.last, "echo:bye");
	assert_null(y.why);
	assert_int_equal(w.close_code, 1000);
	tls_certs_down();
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* as the tool does (wsclient.h) */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_urls),      cmocka_unit_test(test_fake),
	    cmocka_unit_test(test_messages),  cmocka_unit_test(test_raw),
	    cmocka_unit_test(test_refused),   cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_send_fake), cmocka_unit_test(test_send_real),
	    cmocka_unit_test(test_tls),       cmocka_unit_test(test_tls_send),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
