/*
 * The connections of `hashjack serve` (daemon/core/http.c, api.c, view.c's
 * queries): what a client sends, HTTP requests and then, after an upgrade,
 * WebSocket frames, fed to a connection without a socket (hj_server_fake)
 * in pieces, as reads would give them.
 *
 * At start: the dealers of serve_fixture.h, and three servers on one libuv
 * loop that never runs (no timer fires; a fake connection writes through
 * a callback): 0, the EVM dealer's rounds, loaded; 1, the same dealer not
 * loaded yet (every query answers 503); 2, the Bitcoin-family dealer,
 * loaded.  The limits are small, so that each is reached: a target of 200
 * bytes, headers of 400 bytes or 8 lines, client messages of 300 bytes, 3
 * subscriptions.  Each loaded view's blocks, as the view gave them to its
 * callback, are kept, to be sent again to the stream's subscribers
 * (hjc_api_block) while an input is fed.  Server 0 has a subscriber that
 * stays open across inputs (round 3's), so that the stream's list has
 * more than one entry.
 *
 * Input: a byte of flags (bits 0-1: the server, 3 meaning 0; bit 2: the
 * API is told the view is down, for /healthz; bits 3-5: how often, in
 * eighths, a kept block is sent to the subscribers after a piece), a byte
 * m (0: the stream arrives in one piece; else pieces of 1 to m bytes), a
 * seed for the pieces and the blocks sent, then the stream.  When the
 * connection is closed the rest is fed to it anyway, and must be ignored.
 *
 * Checked, on what the server writes: before an upgrade, responses only,
 * each "HTTP/1.1 " and a known status, its headers then its body of
 * exactly Content-Length bytes (none after a HEAD); a JSON body parses,
 * an error's is {"error":"..."}; a loaded dealer not said to be down
 * never answers 503 (that is for a view not up to date, or no memory);
 * every 4xx but 404 says "Connection: close" and nothing follows it; a
 * 101 has its Sec-WebSocket-Accept.  After it, WebSocket frames only,
 * unmasked, no reserved bit, a known opcode, control frames short, every
 * text message an event ({"eventType":...), nothing after a close frame.
 * hj_conn_feed returns -1 once the connection is closed and it writes
 * nothing more.  Freeing the connection leaves the server's counts of
 * connections and WebSockets as they were.  No crash, no sanitizer
 * report, nothing leaks.
 */
#include "fuzz.h"

#include <jansson.h>
#include <uv.h>

#include "api.h"
#include "http.h"
#include "say.h"
#include "serve_fixture.h"
#include "view.h"

#define NSRV  3
#define MAXB  64 /* kept blocks per server */
#define PEER  "203.0.113.7"
#define WSKEY "dGhlIHNhbXBsZSBub25jZQ=="

/* A block's messages, as the view gave them. */
struct kept {
	uint64_t height;
	size_t n;
	hjc_update *u;
	hj_id *ids; /* round and player of u[1..] */
	char **msg;
};

struct srv {
	struct serve_fixture *sf;
	hjc_view *v;
	hjc_api *a;
	hj_server *s;
	struct kept b[MAXB];
	size_t nb;
	struct srv *blocks; /* whose kept blocks are sent: its own, or for
	                       the dealer not loaded, the loaded one's */
};

/* What a connection has written, as the checks follow it. */
struct out {
	int ws;          /* after a 101 */
	int body;        /* a body is due: its length */
	size_t body_len; /* ... */
	int body_json;   /* it is application/json */
	int body_status;
	int loaded;  /* a loaded dealer, not said to be down: never 503 */
	int closing; /* the last response said Connection: close */
	int done;    /* nothing may be written any more */
	int ws_closed;
	uint8_t *buf; /* WebSocket bytes not yet a whole frame */
	size_t n, cap;
};

static uv_loop_t loop;
static struct serve_fixture evm, btc;
static struct srv srv[NSRV];
static hj_conn *bystander;
static struct out bystander_out;

static void keep(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	struct srv *s = ctx;
	struct kept *k;

	if (s->nb == MAXB)
		return;
	k = &s->b[s->nb++];
	k->height = height;
	k->n = n;
	k->u = calloc(n, sizeof *k->u);
	k->ids = calloc(2 * n, sizeof *k->ids);
	k->msg = calloc(n, sizeof *k->msg);
	FUZZ_CHECK(k->u && k->ids && k->msg);
	for (size_t i = 0; i < n; i++) {
		k->msg[i] = malloc(u[i].len);
		FUZZ_CHECK(k->msg[i] != NULL);
		memcpy(k->msg[i], u[i].msg, u[i].len);
		k->u[i].msg = k->msg[i];
		k->u[i].len = u[i].len;
		if (u[i].round) {
			k->ids[2 * i] = *u[i].round;
			k->ids[2 * i + 1] = *u[i].player;
			k->u[i].round = &k->ids[2 * i];
			k->u[i].player = &k->ids[2 * i + 1];
		}
	}
}

static void kept_free(struct srv *s)
{
	for (size_t j = 0; j < s->nb; j++) {
		for (size_t i = 0; i < s->b[j].n; i++)
			free(s->b[j].msg[i]);
		free(s->b[j].msg);
		free(s->b[j].u);
		free(s->b[j].ids);
	}
	s->nb = 0;
}

/* ---- the checks of what is written ---- */

static int known_status(int st)
{
	static const int ok[] = {101, 200, 400, 404, 405, 408,
	                         413, 414, 426, 431, 500, 503};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (ok[i] == st)
			return 1;
	return 0;
}

static void check_body(struct out *o, const char *p, size_t n)
{
	json_t *j;

	FUZZ_CHECK(n == o->body_len);
	o->body = 0;
	if (o->body_json) {
		j = json_loadb(p, n, 0, NULL);
		FUZZ_CHECK(j != NULL);
		if (o->body_status != 200) {
			FUZZ_CHECK(json_is_object(j) &&
			           json_is_string(json_object_get(j, "error")));
		}
		json_decref(j);
	}
	if (o->closing)
		o->done = 1;
}

static void check_head(struct out *o, const char *p, size_t n)
{
	char head[1024], *cl;
	int st;
	size_t len = 0;

	FUZZ_CHECK(!o->closing);
	FUZZ_CHECK(n < sizeof head);
	memcpy(head, p, n);
	head[n] = '\0';
	FUZZ_CHECK(strlen(head) == n);
	FUZZ_CHECK(strncmp(head, "HTTP/1.1 ", 9) == 0);
	FUZZ_CHECK(n >= 4 && strcmp(head + n - 4, "\r\n\r\n") == 0);
	FUZZ_CHECK(n > 13 && head[12] == ' ');
	st = 0;
	for (int i = 9; i < 12; i++) {
		FUZZ_CHECK(head[i] >= '0' && head[i] <= '9');
		st = st * 10 + head[i] - '0';
	}
	FUZZ_CHECK(known_status(st));
	if (o->loaded)
		FUZZ_CHECK(st != 503);
	if (st == 101) {
		cl = strstr(head, "\r\nSec-WebSocket-Accept: ");
		FUZZ_CHECK(cl != NULL && strlen(cl) == 24 + 28 + 4);
		o->ws = 1;
		return;
	}
	cl = strstr(head, "\r\nContent-Length: ");
	FUZZ_CHECK(cl != NULL);
	for (cl += 18; *cl >= '0' && *cl <= '9'; cl++)
		len = len * 10 + (size_t)(*cl - '0');
	FUZZ_CHECK(*cl == '\r');
	o->closing = strstr(head, "\r\nConnection: close\r\n") != NULL;
	if (st >= 400 && st != 404)
		FUZZ_CHECK(o->closing);
	o->body_json =
	    strstr(head, "\r\nContent-Type: application/json") != NULL;
	o->body_status = st;
	o->body_len = len;
	o->body = len > 0;
	if (!o->body && o->closing)
		o->done = 1;
}

/* Whole frames of o->buf, checked and dropped. */
static void check_frames(struct out *o)
{
	size_t at = 0;

	for (;;) {
		const uint8_t *f = o->buf + at;
		size_t left = o->n - at, hl = 2;
		uint64_t len;
		int op;

		if (left < 2)
			break;
		op = f[0] & 0x0f;
		FUZZ_CHECK((f[0] & 0x70) == 0); /* no reserved bit */
		FUZZ_CHECK((f[1] & 0x80) == 0); /* a server never masks */
		FUZZ_CHECK(op == 0 || op == 1 || op == 2 || op == 8 ||
		           op == 9 || op == 10);
		len = f[1] & 0x7f;
		if (len == 126) {
			if (left < 4)
				break;
			len = (uint64_t)f[2] << 8 | f[3];
			hl = 4;
		} else if (len == 127) {
			if (left < 10)
				break;
			len = 0;
			for (int i = 0; i < 8; i++)
				len = len << 8 | f[2 + i];
			hl = 10;
		}
		if (op >= 8)
			FUZZ_CHECK(len <= 125 && (f[0] & 0x80));
		if (left - hl < len)
			break;
		FUZZ_CHECK(!o->ws_closed);
		if (op == 1) {
			/* The server sends events only, whole. */
			FUZZ_CHECK(f[0] & 0x80);
			FUZZ_CHECK(len > 14 &&
			           memcmp(f + hl, "{\"eventType\":\"", 14) ==
			               0 &&
			           f[hl + len - 1] == '}');
		}
		if (op == 2)
			FUZZ_CHECK(0); /* never binary */
		if (op == 8) {
			FUZZ_CHECK(len != 1);
			o->ws_closed = 1;
		}
		at += hl + (size_t)len;
	}
	memmove(o->buf, o->buf + at, o->n - at);
	o->n -= at;
}

static void on_out(void *arg, const char *p, size_t n)
{
	struct out *o = arg;

	FUZZ_CHECK(!o->done);
	FUZZ_CHECK(n > 0);
	if (o->ws) {
		if (o->n + n > o->cap) {
			size_t cap = 2 * (o->n + n);
			uint8_t *g = realloc(o->buf, cap);
			FUZZ_CHECK(g != NULL);
			o->buf = g;
			o->cap = cap;
		}
		memcpy(o->buf + o->n, p, n);
		o->n += n;
		check_frames(o);
		return;
	}
	/* After a HEAD's headers no body comes: the next response's head
	 * (a body is JSON, text or a page, never "HTTP/1.1 "). */
	if (o->body && !(n >= 9 && memcmp(p, "HTTP/1.1 ", 9) == 0)) {
		check_body(o, p, n);
		return;
	}
	o->body = 0;
	check_head(o, p, n);
}

/* ---- start ---- */

static void cleanup(void)
{
	hj_conn_fake_free(bystander);
	free(bystander_out.buf);
	for (int i = 0; i < NSRV; i++) {
		/* Fake connections are freed at once, the handles once the
		 * loop runs. */
		hj_server_close(srv[i].s, NULL, NULL);
		kept_free(&srv[i]);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	for (int i = 0; i < NSRV; i++) {
		hjc_api_free(srv[i].a);
		hjc_view_free(srv[i].v);
	}
	uv_loop_close(&loop);
	serve_fixture_remove(&evm);
	serve_fixture_remove(&btc);
}

static void make(struct srv *s, struct serve_fixture *sf, int load)
{
	hjc_view_opts vo = {.db = sf->db,
	                    .log = sf->log,
	                    .confirmations = 3,
	                    .history_blocks = 6,
	                    .recent_rounds = 2};
	hjc_api_opts ao = {.max_subscriptions = 3, .max_age_s = 4000000000u};
	hj_server_limits lim;
	hj_server_handler h;
	char err[HJ_ERRLEN];

	hj_server_limits_default(&lim);
	lim.max_url = 200;
	lim.max_header_bytes = 400;
	lim.max_headers = 8;
	lim.max_ws_msg = 300;
	s->sf = sf;
	FUZZ_CHECK(hjc_view_new(&vo, &s->v) == 0);
	if (load) {
		if (hjc_view_poll(s->v, keep, s, err, sizeof err) != 0)
			fprintf(stderr, "fuzz_serve_http: %s\n", err);
		FUZZ_CHECK(s->nb > 0);
	}
	FUZZ_CHECK(hjc_api_new(s->v, &ao, &s->a) == 0);
	hjc_api_handler(s->a, &h);
	FUZZ_CHECK(hj_server_new(&loop, &lim, &h, &s->s) == 0);
	hjc_api_set_server(s->a, s->s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char req[512], id[67];

	(void)argc;
	(void)argv;
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	serve_fixture_evm(&evm);
	serve_fixture_btc(&btc);
	make(&srv[0], &evm, 1);
	make(&srv[1], &evm, 0);
	make(&srv[2], &btc, 1);
	srv[0].blocks = &srv[0];
	srv[1].blocks = &srv[0];
	srv[2].blocks = &srv[2];
	atexit(cleanup);
	/* Round 3, the one left open. */
	hjc_view_id_text(srv[0].v, &evm.rounds[2], id);
	snprintf(req, sizeof req,
	         "GET /v1/stream?round=%s HTTP/1.1\r\nHost: x\r\n"
	         "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " WSKEY
	         "\r\n\r\n",
	         id);
	FUZZ_CHECK(hj_server_fake(srv[0].s, PEER, on_out, &bystander_out,
	                          &bystander) == 0);
	FUZZ_CHECK(hj_conn_feed(bystander, req, strlen(req)) == 0);
	FUZZ_CHECK(bystander_out.ws);
	return 0;
}

/* ---- one input ---- */

static uint32_t next(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in), m = fuzz_u8(&in);
	uint32_t x = fuzz_u8(&in);
	struct srv *s = &srv[(flags & 3) % NSRV];
	const struct srv *bs = s->blocks;
	unsigned often = flags >> 3 & 7;
	size_t kb = x % bs->nb, at = 0;
	struct out o = {0};
	hj_server_counters before = *hj_server_stats(s->s);
	hj_conn *c;
	int open = 1;

	if (flags & 4)
		hjc_api_set_down(s->a, "fuzz: the view is down");
	o.loaded = s != &srv[1] && !(flags & 4);
	FUZZ_CHECK(hj_server_fake(s->s, PEER, on_out, &o, &c) == 0);
	while (at < in.n) {
		size_t k = m ? 1 + next(&x) % m : in.n;
		int r;

		if (k > in.n - at)
			k = in.n - at;
		r = hj_conn_feed(c, (const char *)in.p + at, k);
		FUZZ_CHECK(r == 0 || r == -1);
		if (!open)
			FUZZ_CHECK(r == -1);
		if (r)
			open = 0, o.done = 1; /* closed: nothing more */
		at += k;
		if (often && next(&x) % 8 < often) {
			const struct kept *b = &bs->b[kb++ % bs->nb];
			hjc_api_block(s->a, b->height, b->u, b->n);
		}
	}
	hj_conn_fake_free(c);
	if (flags & 4)
		hjc_api_set_down(s->a, NULL);
	FUZZ_CHECK(hj_server_stats(s->s)->open == before.open);
	FUZZ_CHECK(hj_server_stats(s->s)->websockets == before.websockets);
	free(o.buf);
	return 0;
}
