/* Connections: llhttp and wslay on a libuv loop, with limits (http.h). */
#include "http.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llhttp.h>
#include <wslay/wslay.h>

#include "say.h"
#include "websocket.h"

void hj_server_limits_default(hj_server_limits *l)
{
	l->max_url = 2048;
	l->max_header_bytes = 8192;
	l->max_headers = 64;
	l->max_conns = 20000;
	l->max_conns_per_ip = 64;
	l->request_ms = 10000;
	l->idle_ms = 60000;
	l->max_out = (size_t)1 << 20;
	l->max_ws_msg = 4096;
	l->ping_ms = 30000;
}

/* Connections per client address: a small chained hash table. */
struct ipcount {
	struct ipcount *next;
	unsigned n;
	char ip[INET6_ADDRSTRLEN];
};
#define IP_BUCKETS 256

enum mode { M_HTTP = 0, M_WS };

struct hj_conn {
	hj_server *s;
	struct hj_conn *prev, *next; /* the server's list */
	uv_tcp_t tcp;                /* unused by a fake connection */
	int fake;
	void (*fake_out)(void *arg, const char *p, size_t n);
	void *fake_arg;
	int mode;
	int closing;        /* closed or about to: ignore input, no output */
	int close_on_flush; /* close once what is written is taken */
	int accepted_ws;    /* the handler accepted it: ws_close is owed */
	size_t pending;     /* bytes handed to uv_write, not yet written */
	uint64_t deadline;  /* HTTP: close at this uv_now; 0: none */
	uint64_t last_rx;   /* WebSocket: last frame (or byte) from client */
	int pinged;
	struct ipcount *ipc;
	char peer[INET6_ADDRSTRLEN];
	void *user;

	/* HTTP */
	llhttp_t parser;
	int err_status; /* a limit or rule broken while parsing */
	const char *err_reason;
	int in_request; /* between message begin and complete */
	int head;       /* the current request is HEAD */
	int keep_alive; /* after the current response */
	char *url;
	size_t url_len;
	size_t hdr_bytes;
	unsigned nhdr;
	int in_value;   /* the last header callback was a value */
	char hname[32]; /* the current header's name, lower case, cut */
	size_t hname_len;
	char hval[128]; /* its value when the name is one we read */
	size_t hval_len;
	int hval_long; /* the value did not fit */
	int up_websocket, conn_upgrade, ws_version_ok;
	char ws_key[32];

	/* WebSocket */
	wslay_event_context_ptr ws;
	char ws_head[14]; /* a frame's header, sent with its payload */
	size_t ws_head_len;
	const uint8_t *in;
	size_t in_len;
};

struct hj_server {
	uv_loop_t *loop;
	hj_server_limits lim;
	hj_server_handler h;
	uv_tcp_t listener;
	int listening;
	uv_timer_t sweep;
	hj_conn *conns;
	struct ipcount *ips[IP_BUCKETS];
	hj_server_counters st;
	unsigned live_handles; /* closes we wait for at shutdown */
	int shutting;
	void (*done)(void *arg);
	void *done_arg;
	char readbuf[65536];
	llhttp_settings_t settings;
};

/* ---- bookkeeping ---- */

static unsigned ip_hash(const char *ip)
{
	unsigned h = 2166136261u;
	for (; *ip; ip++)
		h = (h ^ (unsigned char)*ip) * 16777619u;
	return h % IP_BUCKETS;
}

static struct ipcount *ip_take(hj_server *s, const char *ip)
{
	struct ipcount **b = &s->ips[ip_hash(ip)], *e;
	for (e = *b; e; e = e->next)
		if (strcmp(e->ip, ip) == 0)
			break;
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e)
			return NULL;
		snprintf(e->ip, sizeof e->ip, "%s", ip);
		e->next = *b;
		*b = e;
	}
	e->n++;
	return e;
}

static void ip_give(hj_server *s, struct ipcount *e)
{
	if (!e || --e->n > 0)
		return;
	struct ipcount **b = &s->ips[ip_hash(e->ip)];
	while (*b != e)
		b = &(*b)->next;
	*b = e->next;
	free(e);
}

static void conn_unlink(hj_conn *c)
{
	hj_server *s = c->s;
	if (c->prev)
		c->prev->next = c->next;
	else if (s->conns == c)
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void maybe_done(hj_server *s)
{
	if (!s->shutting || s->live_handles > 0 || s->conns)
		return;
	void (*done)(void *) = s->done;
	void *arg = s->done_arg;
	for (unsigned i = 0; i < IP_BUCKETS; i++)
		while (s->ips[i]) {
			struct ipcount *e = s->ips[i];
			s->ips[i] = e->next;
			free(e);
		}
	free(s);
	if (done)
		done(arg);
}

static void conn_free(hj_conn *c)
{
	hj_server *s = c->s;
	if (c->accepted_ws && s->h.ws_close)
		s->h.ws_close(s->h.ctx, c);
	if (c->mode == M_WS) {
		if (s->st.websockets)
			s->st.websockets--;
	}
	if (c->ws)
		wslay_event_context_free(c->ws);
	ip_give(s, c->ipc);
	conn_unlink(c);
	if (s->st.open)
		s->st.open--;
	free(c->url);
	free(c);
	maybe_done(s);
}

static void on_closed(uv_handle_t *h)
{
	conn_free(h->data);
}

/* Closes now: pending writes are cancelled. */
static void conn_close(hj_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	if (c->fake)
		return; /* freed by hj_conn_fake_free */
	uv_close((uv_handle_t *)&c->tcp, on_closed);
}

/* Closes once everything written has been taken by the client. */
static void conn_close_flushed(hj_conn *c)
{
	if (c->pending == 0)
		conn_close(c);
	else
		c->close_on_flush = 1;
}

/* ---- writing ---- */

struct wreq {
	uv_write_t req;
	hj_conn *c;
	size_t n;
	char data[];
};

static void on_written(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	hj_conn *c = w->c;
	c->pending -= w->n;
	free(w);
	if (status < 0) {
		conn_close(c);
		return;
	}
	if (c->pending == 0 && c->close_on_flush)
		conn_close(c);
}

/* Writes the bytes of b[0..nb) with one system call when the socket takes
 * them, else queues what is left; -1 (the connection is closing or now
 * dropped) when the client cannot take them. */
static int conn_writev(hj_conn *c, const uv_buf_t *b, unsigned nb)
{
	size_t n = 0, done = 0;
	if (c->closing)
		return -1;
	for (unsigned i = 0; i < nb; i++)
		n += b[i].len;
	if (c->fake) {
		for (unsigned i = 0; i < nb && c->fake_out; i++)
			c->fake_out(c->fake_arg, b[i].base, b[i].len);
		return 0;
	}
	if (c->pending == 0) {
		int r = uv_try_write((uv_stream_t *)&c->tcp, b, nb);
		if (r > 0) {
			done = (size_t)r;
		} else if (r != UV_EAGAIN && r != UV_ENOSYS) {
			conn_close(c);
			return -1;
		}
		if (done == n)
			return 0;
	}
	if (c->pending + (n - done) > c->s->lim.max_out) {
		/* A client that does not read its socket: drop it rather
		 * than buffer without bound. */
		c->s->st.slow_dropped++;
		conn_close(c);
		return -1;
	}
	struct wreq *w = malloc(sizeof *w + (n - done));
	if (!w) {
		conn_close(c);
		return -1;
	}
	w->c = c;
	w->n = n - done;
	char *o = w->data;
	for (unsigned i = 0; i < nb; i++) {
		size_t skip = done < b[i].len ? done : b[i].len;
		memcpy(o, b[i].base + skip, b[i].len - skip);
		o += b[i].len - skip;
		done -= skip;
	}
	uv_buf_t q = uv_buf_init(w->data, (unsigned)w->n);
	if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &q, 1, on_written) < 0) {
		free(w);
		conn_close(c);
		return -1;
	}
	c->pending += w->n;
	return 0;
}

static int conn_write(hj_conn *c, const char *p, size_t n)
{
	uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
	return conn_writev(c, &b, 1);
}

static const char *status_text(int status)
{
	switch (status) {
	case 101:
		return "Switching Protocols";
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 426:
		return "Upgrade Required";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "Status";
	}
}

/* The page may only load itself and talk to its own server. */
#define CSP                                                                    \
	"default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' "     \
	"data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

void hj_conn_respond(hj_conn *c, int status, const char *content_type,
                     const char *body, size_t len)
{
	char head[768];
	int html = content_type && strncmp(content_type, "text/html", 9) == 0;
	int json =
	    content_type && strncmp(content_type, "application/json", 16) == 0;
	if (c->closing)
		return;
	if (status >= 400 && status != 404)
		c->keep_alive = 0;
	int n = snprintf(
	    head, sizeof head,
	    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	    "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
	    "%s%s%s\r\n",
	    status, status_text(status),
	    content_type ? content_type : "text/plain; charset=utf-8",
	    body ? len : 0, html ? "Content-Security-Policy: " CSP "\r\n" : "",
	    json ? "Access-Control-Allow-Origin: *\r\n" : "",
	    c->keep_alive ? "" : "Connection: close\r\n");
	if (n < 0 || (size_t)n >= sizeof head) {
		conn_close(c);
		return;
	}
	/* The head and the body in one segment, not two. */
	uv_buf_t b[2] = {uv_buf_init(head, (unsigned)n),
	                 uv_buf_init((char *)body, (unsigned)len)};
	if (conn_writev(c, b, body && len && !c->head ? 2 : 1) < 0)
		return;
	if (!c->keep_alive)
		conn_close_flushed(c);
	else
		c->deadline = uv_now(c->s->loop) + c->s->lim.idle_ms;
}

/* An error of the request itself: a JSON reason, then close. */
static void respond_error(hj_conn *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void respond_error(hj_conn *c, int status, const char *fmt, ...)
{
	char why[HJ_ERRLEN], body[320];
	va_list ap;
	va_start(ap, fmt);
	hj_vsay(why, sizeof why, fmt, ap);
	va_end(ap);
	/* The reasons are ours: no quote or backslash to escape. */
	int n = snprintf(body, sizeof body, "{\"error\":\"%s\"}\n", why);
	c->keep_alive = 0;
	c->s->st.bad_requests++;
	hj_conn_respond(c, status, "application/json", body,
	                n > 0 && (size_t)n < sizeof body ? (size_t)n : 0);
}

/* ---- HTTP ---- */

static hj_conn *of(llhttp_t *p)
{
	return p->data;
}

static int fail(hj_conn *c, int status, const char *reason)
{
	if (!c->err_status) {
		c->err_status = status;
		c->err_reason = reason;
	}
	return -1;
}

static int on_message_begin(llhttp_t *p)
{
	hj_conn *c = of(p);
	c->in_request = 1;
	c->head = 0;
	c->url_len = 0;
	c->hdr_bytes = 0;
	c->nhdr = 0;
	c->in_value = 0;
	c->hname_len = c->hval_len = 0;
	c->hval_long = 0;
	c->up_websocket = c->conn_upgrade = c->ws_version_ok = 0;
	c->ws_key[0] = 0;
	c->deadline = uv_now(c->s->loop) + c->s->lim.request_ms;
	return 0;
}

/* The method is known before anything can fail the request: an error
 * answer to a HEAD is its head alone, to anything else head and body. */
static int on_method_complete(llhttp_t *p)
{
	of(p)->head = llhttp_get_method(p) == HTTP_HEAD;
	return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t n)
{
	hj_conn *c = of(p);
	size_t max = c->s->lim.max_url;
	if (n > max - c->url_len)
		return fail(c, 414, "the request target is too long");
	if (!c->url) {
		c->url = malloc(max + 1);
		if (!c->url)
			return fail(c, 503, "out of memory");
	}
	memcpy(c->url + c->url_len, at, n);
	c->url_len += n;
	return 0;
}

static int header_bytes(hj_conn *c, size_t n)
{
	if (n > c->s->lim.max_header_bytes - c->hdr_bytes)
		return fail(c, 431, "the request's headers are too large");
	c->hdr_bytes += n;
	return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t n)
{
	hj_conn *c = of(p);
	if (header_bytes(c, n) < 0)
		return -1;
	if (c->in_value || c->nhdr == 0) {
		if (c->in_value || c->hname_len == 0) {
			if (++c->nhdr > c->s->lim.max_headers)
				return fail(c, 431,
				            "the request has too many headers");
			c->hname_len = 0;
			c->hval_len = 0;
			c->hval_long = 0;
		}
		c->in_value = 0;
	}
	for (size_t i = 0; i < n && c->hname_len < sizeof c->hname - 1; i++) {
		char ch = at[i];
		c->hname[c->hname_len++] =
		    ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
	}
	c->hname[c->hname_len] = 0;
	return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n)
{
	hj_conn *c = of(p);
	if (header_bytes(c, n) < 0)
		return -1;
	c->in_value = 1;
	if (n > sizeof c->hval - 1 - c->hval_len) {
		c->hval_long = 1;
		return 0;
	}
	memcpy(c->hval + c->hval_len, at, n);
	c->hval_len += n;
	c->hval[c->hval_len] = 0;
	return 0;
}

static int on_header_value_complete(llhttp_t *p)
{
	hj_conn *c = of(p);
	c->in_value = 1;
	if (c->hval_long)
		return 0; /* none of the headers we read is that long */
	if (strcmp(c->hname, "upgrade") == 0)
		c->up_websocket |= hj_ws_has_token(c->hval, "websocket");
	else if (strcmp(c->hname, "connection") == 0)
		c->conn_upgrade |= hj_ws_has_token(c->hval, "upgrade");
	else if (strcmp(c->hname, "sec-websocket-version") == 0)
		c->ws_version_ok = strcmp(c->hval, "13") == 0;
	else if (strcmp(c->hname, "sec-websocket-key") == 0 &&
	         c->hval_len < sizeof c->ws_key)
		memcpy(c->ws_key, c->hval, c->hval_len + 1);
	return 0;
}

static int on_headers_complete(llhttp_t *p)
{
	hj_conn *c = of(p);
	uint8_t m = llhttp_get_method(p);
	if (m != HTTP_GET && m != HTTP_HEAD)
		return fail(c, 405, "only GET and HEAD are served");
	if ((p->flags & F_CHUNKED) ||
	    ((p->flags & F_CONTENT_LENGTH) && p->content_length > 0))
		return fail(c, 413, "a request may not have a body");
	return 0;
}

static void split_target(hj_conn *c, hj_server_req *r)
{
	c->url[c->url_len] = 0;
	char *q = strchr(c->url, '?');
	r->query = "";
	if (q) {
		*q = 0;
		r->query = q + 1;
	}
	r->path = c->url;
}

static int on_message_complete(llhttp_t *p)
{
	hj_conn *c = of(p);
	hj_server *s = c->s;
	hj_server_req r = {.method = c->head ? "HEAD" : "GET", .peer = c->peer};
	c->in_request = 0;
	if (p->upgrade)
		return 0; /* execute returns HPE_PAUSED_UPGRADE */
	s->st.requests++;
	c->keep_alive = llhttp_should_keep_alive(p);
	if (!c->url || c->url_len == 0 || c->url[0] != '/')
		return fail(c, 400, "the request target must be a path");
	split_target(c, &r);
	s->h.request(s->h.ctx, c, &r);
	/* Stop at a response that closes; else go on with what the client
	 * pipelined. */
	return c->closing || c->close_on_flush ? HPE_PAUSED : 0;
}

static int on_reset(llhttp_t *p)
{
	(void)p;
	return 0;
}

/* ---- WebSocket ---- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                       int flags, void *user)
{
	hj_conn *c = user;
	(void)flags;
	return hj_ws_take(ctx, buf, len, &c->in, &c->in_len);
}

static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data,
                       size_t len, int flags, void *user)
{
	hj_conn *c = user;
	/* wslay hands a frame's header (WSLAY_MSG_MORE) and its payload in
	 * two calls: the header waits for the payload, so that a message
	 * costs one write(2) and one TCP segment, not two of each. */
	if ((flags & WSLAY_MSG_MORE) &&
	    len <= sizeof c->ws_head - c->ws_head_len) {
		memcpy(c->ws_head + c->ws_head_len, data, len);
		c->ws_head_len += len;
		return (ssize_t)len;
	}
	uv_buf_t b[2] = {uv_buf_init(c->ws_head, (unsigned)c->ws_head_len),
	                 uv_buf_init((char *)data, (unsigned)len)};
	int r =
	    c->ws_head_len ? conn_writev(c, b, 2) : conn_writev(c, b + 1, 1);
	if (r < 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	c->s->st.ws_bytes_out += c->ws_head_len + len;
	c->ws_head_len = 0;
	return (ssize_t)len;
}

static void ws_msg(wslay_event_context_ptr ctx,
                   const struct wslay_event_on_msg_recv_arg *arg, void *user)
{
	hj_conn *c = user;
	(void)ctx;
	if (c->closing)
		return;
	if (arg->opcode == WSLAY_TEXT_FRAME) {
		if (c->s->h.ws_message)
			c->s->h.ws_message(c->s->h.ctx, c,
			                   (const char *)arg->msg,
			                   arg->msg_length);
	} else if (arg->opcode == WSLAY_BINARY_FRAME) {
		hj_conn_ws_close(c, WSLAY_CODE_UNSUPPORTED_DATA,
		                 "only text messages");
	}
}

/* Sends what wslay has queued; closes the connection once both sides of
 * the closing handshake are done or wslay failed. */
static void ws_flush(hj_conn *c)
{
	if (c->closing)
		return;
	if (wslay_event_want_write(c->ws) && wslay_event_send(c->ws) != 0) {
		conn_close(c);
		return;
	}
	if (!wslay_event_want_read(c->ws) && !wslay_event_want_write(c->ws))
		conn_close_flushed(c);
}

static void ws_input(hj_conn *c, const char *p, size_t n)
{
	c->in = (const uint8_t *)p;
	c->in_len = n;
	c->last_rx = uv_now(c->s->loop);
	c->pinged = 0;
	if (wslay_event_recv(c->ws) != 0) {
		conn_close(c);
		return;
	}
	c->in_len = 0;
	ws_flush(c);
}

int hj_conn_ws_send(hj_conn *c, const char *msg, size_t n)
{
	if (c->closing || c->mode != M_WS ||
	    !wslay_event_get_write_enabled(c->ws))
		return -1;
	struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)msg, n};
	if (wslay_event_queue_msg(c->ws, &m) != 0) {
		conn_close(c);
		return -1;
	}
	c->s->st.ws_messages_out++;
	ws_flush(c);
	return c->closing ? -1 : 0;
}

/* A frame as wslay writes it, into a growing buffer. */
struct framed {
	char *p;
	size_t n, cap;
};

static ssize_t framed_out(const uint8_t *data, size_t len, int flags,
                          void *user)
{
	struct framed *f = user;
	(void)flags;
	if (len > f->cap - f->n) {
		size_t cap = 2 * (f->n + len);
		char *g = realloc(f->p, cap);
		if (!g)
			return WSLAY_ERR_NOMEM;
		f->p = g;
		f->cap = cap;
	}
	memcpy(f->p + f->n, data, len);
	f->n += len;
	return (ssize_t)len;
}

int hj_conn_ws_frame(const char *msg, size_t n, char **out, size_t *len)
{
	static const struct wslay_frame_callbacks cb = {framed_out, NULL, NULL};
	struct wslay_frame_iocb io = {.fin = 1,
	                              .opcode = WSLAY_TEXT_FRAME,
	                              .payload_length = n,
	                              .data = (const uint8_t *)msg,
	                              .data_length = n};
	struct framed f = {0};
	wslay_frame_context_ptr fc;
	if (wslay_frame_context_init(&fc, &cb, &f) != 0)
		return -ENOMEM;
	ssize_t r = wslay_frame_send(fc, &io);
	wslay_frame_context_free(fc);
	if (r < 0 || (size_t)r != n) {
		free(f.p);
		return -ENOMEM;
	}
	*out = f.p;
	*len = f.n;
	return 0;
}

int hj_conn_ws_send_framed(hj_conn *c, const char *frame, size_t n)
{
	if (c->closing || c->mode != M_WS ||
	    !wslay_event_get_write_enabled(c->ws))
		return -1;
	if (conn_write(c, frame, n) < 0)
		return -1;
	c->s->st.ws_messages_out++;
	c->s->st.ws_bytes_out += n;
	return 0;
}

void hj_conn_ws_close(hj_conn *c, uint16_t code, const char *reason)
{
	if (c->closing || c->mode != M_WS)
		return;
	wslay_event_queue_close(c->ws, code, (const uint8_t *)reason,
	                        reason ? strlen(reason) : 0);
	ws_flush(c);
}

static void upgrade(hj_conn *c, const char *rest, size_t nrest)
{
	hj_server *s = c->s;
	hj_server_req r = {.method = "GET", .peer = c->peer, .websocket = 1};
	char accept[29], head[256];
	const char *why = NULL;
	s->st.requests++;
	c->keep_alive = 0;
	if (c->head)
		why = "a WebSocket upgrade must be GET";
	else if (!c->up_websocket || !c->conn_upgrade)
		why = "only WebSocket upgrades are served";
	else if (!c->ws_version_ok)
		why = "Sec-WebSocket-Version must be 13";
	else if (hj_ws_accept(c->ws_key, accept) < 0)
		why = "Sec-WebSocket-Key must be 16 bytes in base64";
	else if (!c->url || c->url_len == 0 || c->url[0] != '/')
		why = "the request target must be a path";
	if (why) {
		respond_error(c, 400, "%s", why);
		return;
	}
	/* The context first: once the handler accepts, nothing fails. */
	static const struct wslay_event_callbacks cb = {
	    ws_recv, ws_send, NULL, NULL, NULL, NULL, ws_msg};
	if (wslay_event_context_server_init(&c->ws, &cb, c) != 0) {
		c->ws = NULL;
		respond_error(c, 503, "out of memory");
		return;
	}
	split_target(c, &r);
	if (!s->h.ws_open || s->h.ws_open(s->h.ctx, c, &r) != 0) {
		if (!c->closing && !c->close_on_flush)
			respond_error(c, 404, "no WebSocket at this path");
		return; /* the context goes with the connection */
	}
	wslay_event_config_set_max_recv_msg_length(c->ws, s->lim.max_ws_msg);
	int n = snprintf(head, sizeof head,
	                 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: "
	                 "websocket\r\nConnection: Upgrade\r\n"
	                 "Sec-WebSocket-Accept: %s\r\n\r\n",
	                 accept);
	c->mode = M_WS;
	c->accepted_ws = 1;
	c->deadline = 0;
	s->st.ws_opened++;
	s->st.websockets++;
	if (conn_write(c, head, (size_t)n) < 0)
		return;
	if (s->h.ws_ready)
		s->h.ws_ready(s->h.ctx, c);
	if (c->closing)
		return;
	if (nrest)
		ws_input(c, rest, nrest);
	else
		c->last_rx = uv_now(s->loop);
}

/* The bytes of a connection, as read. */
static void input(hj_conn *c, const char *p, size_t n)
{
	if (c->closing || c->close_on_flush)
		return;
	if (c->mode == M_WS) {
		ws_input(c, p, n);
		return;
	}
	llhttp_errno_t e = llhttp_execute(&c->parser, p, n);
	if (c->closing)
		return;
	if (e == HPE_OK || e == HPE_PAUSED)
		return;
	if (e == HPE_PAUSED_UPGRADE) {
		const char *at = llhttp_get_error_pos(&c->parser);
		size_t used = at ? (size_t)(at - p) : n;
		upgrade(c, p + used, n - used);
		return;
	}
	if (c->err_status)
		respond_error(c, c->err_status, "%s", c->err_reason);
	else
		respond_error(c, 400, "malformed request: %s",
		              llhttp_errno_name(e));
}

/* ---- sockets ---- */

static hj_conn *conn_new(hj_server *s, const char *peer)
{
	hj_conn *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->s = s;
	snprintf(c->peer, sizeof c->peer, "%s", peer);
	llhttp_init(&c->parser, HTTP_REQUEST, &s->settings);
	c->parser.data = c;
	c->keep_alive = 1;
	c->deadline = uv_now(s->loop) + s->lim.request_ms;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->st.open++;
	return c;
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	hj_conn *c = h->data;
	(void)want;
	*buf = uv_buf_init(c->s->readbuf, sizeof c->s->readbuf);
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	hj_conn *c = st->data;
	if (n < 0) {
		if (n == UV_EOF && c->mode == M_HTTP && c->pending > 0 &&
		    !c->in_request)
			c->close_on_flush = 1; /* half-close: finish writing */
		else
			conn_close(c);
		return;
	}
	if (n > 0)
		input(c, buf->base, (size_t)n);
}

/* Refuses a connection over a limit: a short 503 and close. */
static void refuse(hj_conn *c, const char *why)
{
	c->keep_alive = 0;
	respond_error(c, 503, "%s", why);
}

static void on_connection(uv_stream_t *ls, int status)
{
	hj_server *s = ls->data;
	struct sockaddr_storage ss;
	int len = sizeof ss;
	char ip[INET6_ADDRSTRLEN] = "?";
	if (status < 0)
		return;
	hj_conn *c = conn_new(s, "?");
	if (!c)
		return; /* the pending connection waits for memory */
	if (uv_tcp_init(s->loop, &c->tcp) != 0) {
		conn_unlink(c);
		s->st.open--;
		free(c);
		return;
	}
	c->tcp.data = c;
	if (uv_accept(ls, (uv_stream_t *)&c->tcp) != 0) {
		conn_close(c);
		return;
	}
	s->st.accepted++;
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET)
			uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof ip);
		else if (ss.ss_family == AF_INET6)
			uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof ip);
	}
	snprintf(c->peer, sizeof c->peer, "%s", ip);
	if (s->st.open > s->lim.max_conns) {
		s->st.refused_total++;
		refuse(c, "too many connections");
		return;
	}
	c->ipc = ip_take(s, ip);
	if (!c->ipc) {
		conn_close(c);
		return;
	}
	if (c->ipc->n > s->lim.max_conns_per_ip) {
		s->st.refused_per_ip++;
		refuse(c, "too many connections from this address");
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0)
		conn_close(c);
}

/* Deadlines: requests that do not arrive, idle keep-alives, quiet
 * WebSockets (pinged, then dropped). */
static void on_sweep(uv_timer_t *t)
{
	hj_server *s = t->data;
	uint64_t now = uv_now(s->loop);
	for (hj_conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->closing)
			continue;
		if (c->mode == M_HTTP) {
			if (c->deadline && now >= c->deadline) {
				s->st.timeouts++;
				if (c->in_request)
					respond_error(
					    c, 408,
					    "the request took too long");
				else
					conn_close(c);
			}
			continue;
		}
		if (now - c->last_rx >= 2 * s->lim.ping_ms) {
			s->st.timeouts++;
			conn_close(c);
		} else if (now - c->last_rx >= s->lim.ping_ms && !c->pinged) {
			struct wslay_event_msg m = {WSLAY_PING, NULL, 0};
			c->pinged = 1;
			if (wslay_event_queue_msg(c->ws, &m) == 0)
				ws_flush(c);
		}
	}
}

static void on_handle_closed(uv_handle_t *h)
{
	hj_server *s = h->data;
	s->live_handles--;
	maybe_done(s);
}

int hj_server_new(uv_loop_t *loop, const hj_server_limits *lim,
                  const hj_server_handler *h, hj_server **out)
{
	hj_server *s = calloc(1, sizeof *s);

	*out = s;
	if (!s)
		return -ENOMEM;
	s->loop = loop;
	s->lim = *lim;
	s->h = *h;
	llhttp_settings_init(&s->settings);
	s->settings.on_message_begin = on_message_begin;
	s->settings.on_method_complete = on_method_complete;
	s->settings.on_url = on_url;
	s->settings.on_header_field = on_header_field;
	s->settings.on_header_value = on_header_value;
	s->settings.on_header_value_complete = on_header_value_complete;
	s->settings.on_headers_complete = on_headers_complete;
	s->settings.on_message_complete = on_message_complete;
	s->settings.on_reset = on_reset;
	uv_timer_init(loop, &s->sweep);
	s->sweep.data = s;
	s->live_handles = 1;
	uint64_t every =
	    lim->request_ms < lim->ping_ms ? lim->request_ms : lim->ping_ms;
	if (lim->idle_ms < every)
		every = lim->idle_ms;
	every /= 4;
	every = every < 10 ? 10 : every > 1000 ? 1000 : every;
	uv_timer_start(&s->sweep, on_sweep, every, every);
	uv_unref((uv_handle_t *)&s->sweep);
	return 0;
}

int hj_server_listen(hj_server *s, const char *host, unsigned port,
                     unsigned *bound, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int r;
	if (uv_ip4_addr(host, (int)port, (struct sockaddr_in *)&ss) != 0 &&
	    uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)&ss) != 0) {
		hj_say(err, errlen,
		       "listen address %s is not an IPv4 or IPv6 address",
		       host);
		return UV_EINVAL;
	}
	uv_tcp_init(s->loop, &s->listener);
	s->listener.data = s;
	s->listening = 1;
	s->live_handles++;
	r = uv_tcp_bind(&s->listener, (struct sockaddr *)&ss, 0);
	if (r == 0)
		r = uv_listen((uv_stream_t *)&s->listener, 1024, on_connection);
	if (r != 0) {
		hj_say(err, errlen, "cannot listen on %s port %u: %s", host,
		       port, uv_strerror(r));
		return r;
	}
	int len = sizeof ss;
	uv_tcp_getsockname(&s->listener, (struct sockaddr *)&ss, &len);
	*bound = ntohs(ss.ss_family == AF_INET6
	                   ? ((struct sockaddr_in6 *)&ss)->sin6_port
	                   : ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

void hj_server_close(hj_server *s, void (*done)(void *arg), void *arg)
{
	s->shutting = 1;
	s->done = done;
	s->done_arg = arg;
	uv_close((uv_handle_t *)&s->sweep, on_handle_closed);
	if (s->listening)
		uv_close((uv_handle_t *)&s->listener, on_handle_closed);
	for (hj_conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->fake) {
			conn_free(c);
			continue;
		}
		conn_close(c);
	}
}

const hj_server_counters *hj_server_stats(const hj_server *s)
{
	return &s->st;
}

void hj_conn_set_user(hj_conn *c, void *user)
{
	c->user = user;
}

void *hj_conn_user(const hj_conn *c)
{
	return c->user;
}

const char *hj_conn_peer(const hj_conn *c)
{
	return c->peer;
}

int hj_server_fake(hj_server *s, const char *peer,
                   void (*sink)(void *arg, const char *p, size_t n), void *arg,
                   hj_conn **out)
{
	hj_conn *c = conn_new(s, peer);

	*out = c;
	if (!c)
		return -ENOMEM;
	c->fake = 1;
	c->fake_out = sink;
	c->fake_arg = arg;
	return 0;
}

int hj_conn_feed(hj_conn *c, const char *p, size_t n)
{
	if (c->closing || c->close_on_flush)
		return -1;
	input(c, p, n);
	return c->closing || c->close_on_flush ? -1 : 0;
}

void hj_conn_fake_free(hj_conn *c)
{
	if (c)
		conn_free(c);
}
