/* A WebSocket client: libcurl's URL API, llhttp and wslay on a libuv
 * loop, with bounds, and for wss:// OpenSSL's TLS between them and the
 * socket (tls.h) (wsclient.h). */
#include "wsclient.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <curl/curl.h>
#include <llhttp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <wslay/wslay.h>

#include "say.h"
#include "tls.h"
#include "websocket.h"

enum state {
	S_RESOLVE,   /* uv_getaddrinfo */
	S_CONNECT,   /* uv_tcp_connect, to each address in turn */
	S_TLS,       /* wss://: the TLS handshake */
	S_HANDSHAKE, /* the request is written: the answer's head, or the
	                body of a refusal */
	S_OPEN,      /* frames */
	S_CLOSING,   /* hj_wsc_close sent close: the server's is awaited */
	S_END        /* ended: the last writes, then the handles close */
};

struct hj_wsc {
	uv_loop_t *loop; /* NULL for a fake */
	hj_wsc_cbs cbs;
	void *arg;
	int state;
	int user_closed; /* hj_wsc_close was called: why is NULL */
	int in_recv;     /* inside wslay_event_recv */
	size_t max_message;
	uint64_t handshake_ms, ping_ms;

	int fake;
	void (*fake_out)(void *arg, const char *p, size_t n);
	void *fake_arg;

	char url[HJ_WSC_MAX_URL + 1];
	char host[HJ_WSC_MAX_URL + 1]; /* as resolved: no brackets */
	char port[8];
	char *req; /* the handshake request */
	size_t req_len;
	char accept[32]; /* the Sec-WebSocket-Accept due */
	hj_tls *tls;     /* wss:// only: every byte of the socket goes
	                    through it */

	/* resolving and connecting */
	uv_getaddrinfo_t gai;
	int gai_busy;
	struct addrinfo *ai, *ai_next;
	unsigned tried;
	int last_err;
	char last_addr[64];
	uv_connect_t conn;
	uv_tcp_t tcp;
	int tcp_open;    /* initialised, its close callback not yet run */
	int tcp_closing; /* uv_close called */
	int connected;
	uv_timer_t timer;
	int timer_open, timer_closing;
	size_t pending;     /* bytes handed to uv_write, not yet written */
	int close_on_flush; /* ended: close once they are */

	/* the handshake's answer */
	llhttp_t http;
	llhttp_settings_t settings;
	size_t head_bytes;
	int head_done;
	int status;
	char reason[64]; /* the status line's reason phrase, cut */
	size_t reason_len;
	int in_value;
	char hname[32]; /* the current header's name, lower case, cut */
	size_t hname_len;
	char hval[128]; /* its value */
	size_t hval_len;
	int hval_long;
	int upgrade_ok, connection_ok, accepts, accept_ok, extensions, protocol;
	char body[HJ_WSC_MAX_BODY];
	size_t body_len;
	int body_full;

	/* WebSocket */
	wslay_event_context_ptr ws;
	const uint8_t *in;
	size_t in_len;
	uint64_t last_rx;
	int pinged;

	char why[HJ_ERRLEN];
	int has_why;
	char rbuf[16384];
	/* wss://: the plaintext read (being parsed while frames are sent),
	 * the ciphertext to write */
	char pbuf[16384], obuf[16384];
};

/* ---- words ---- */

/* The first cause is the one told: "URL: what". */
static void tell(hj_wsc *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void tell(hj_wsc *c, const char *fmt, ...)
{
	va_list ap;
	if (c->has_why)
		return;
	c->has_why = 1;
	int n = snprintf(c->why, sizeof c->why, "%s: ", c->url);
	if (n < 0 || (size_t)n >= sizeof c->why)
		return;
	va_start(ap, fmt);
	hj_vsay(c->why + n, sizeof c->why - (size_t)n, fmt, ap);
	va_end(ap);
}

/* s[0..n) as one line of printable ASCII in dst: every run of white space
 * one space, other bytes outside ' '..'~' a '?', at most max characters
 * and then "...". */
static void line_of(char *dst, size_t cap, const char *s, size_t n, size_t max)
{
	size_t o = 0;
	int space = 0;
	if (max > cap - 4)
		max = cap - 4;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
			space = o > 0;
			continue;
		}
		if (o + (size_t)space >= max) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		if (space)
			dst[o++] = ' ';
		space = 0;
		dst[o++] = ch > ' ' && ch <= '~' ? (char)ch : '?';
	}
	dst[o] = 0;
}

/* A duration as said: "10 s", "250 ms". */
static void dur(char *dst, size_t cap, uint64_t ms)
{
	if (ms % 1000 == 0)
		snprintf(dst, cap, "%llu s", (unsigned long long)(ms / 1000));
	else
		snprintf(dst, cap, "%llu ms", (unsigned long long)ms);
}

static const char *close_name(unsigned code)
{
	switch (code) {
	case 1000:
		return "normal closure";
	case 1001:
		return "going away";
	case 1002:
		return "protocol error";
	case 1003:
		return "unsupported data";
	case 1007:
		return "invalid payload data";
	case 1008:
		return "policy violation";
	case 1009:
		return "message too big";
	case 1010:
		return "mandatory extension";
	case 1011:
		return "internal server error";
	default:
		return NULL;
	}
}

/* ---- the end ---- */

static void on_timer(uv_timer_t *t);
static void on_tcp_closed(uv_handle_t *h);

/* Tells the end and frees the client. */
static void finish(hj_wsc *c)
{
	const char *why = NULL;
	if (!c->user_closed) {
		if (!c->has_why)
			tell(c, "the connection ended for no reason given");
		why = c->why;
	}
	if (c->cbs.closed)
		c->cbs.closed(c->arg, why);
	if (c->ws)
		wslay_event_context_free(c->ws);
	if (c->ai)
		uv_freeaddrinfo(c->ai);
	hj_tls_free(c->tls);
	free(c->req);
	free(c);
}

/* A real client is freed once nothing of the loop refers to it. */
static void maybe_free(hj_wsc *c)
{
	if (c->state == S_END && !c->gai_busy && !c->tcp_open && !c->timer_open)
		finish(c);
}

static void on_timer_closed(uv_handle_t *h)
{
	hj_wsc *c = h->data;
	c->timer_open = 0;
	maybe_free(c);
}

/* Closes every handle now (pending writes are cancelled). */
static void shut(hj_wsc *c)
{
	if (c->gai_busy)
		uv_cancel((uv_req_t *)&c->gai);
	if (c->tcp_open && !c->tcp_closing) {
		c->tcp_closing = 1;
		uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
	}
	if (c->timer_open && !c->timer_closing) {
		c->timer_closing = 1;
		uv_close((uv_handle_t *)&c->timer, on_timer_closed);
	}
}

static int tls_flush(hj_wsc *c);

/* Ends the client: what is written goes first (a close frame, and over
 * TLS its close_notify), for HJ_WSC_CLOSE_MS at most.  A fake is freed by
 * the call that ended it (settle). */
static void end(hj_wsc *c)
{
	if (c->state == S_END)
		return;
	int was = c->state;
	c->state = S_END;
	if (c->fake)
		return;
	if (c->tls && was > S_TLS && c->connected && !c->tcp_closing) {
		hj_tls_close_notify(c->tls);
		(void)tls_flush(c);
	}
	if (c->pending > 0 && c->connected && !c->tcp_closing) {
		c->close_on_flush = 1;
		uv_read_stop((uv_stream_t *)&c->tcp);
		uv_timer_start(&c->timer, on_timer, HJ_WSC_CLOSE_MS, 0);
		return;
	}
	shut(c);
}

/* A fake's calls end with this: -1 once it has ended (and is freed). */
static int settle(hj_wsc *c)
{
	if (c->state != S_END || c->in_recv)
		return 0;
	finish(c);
	return -1;
}

/* ---- writing ---- */

struct wreq {
	uv_write_t req;
	hj_wsc *c;
	size_t n;
	char data[];
};

static void on_written(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	hj_wsc *c = w->c;
	c->pending -= w->n;
	free(w);
	if (status < 0 && status != UV_ECANCELED && c->state != S_END) {
		tell(c, "cannot write to the server: %s", uv_strerror(status));
		end(c);
		return;
	}
	if (c->state == S_END && c->close_on_flush && c->pending == 0)
		shut(c);
}

/* Writes at once what the socket takes and queues the rest; -1 (said)
 * when the connection failed or the server does not read. */
static int raw_write(hj_wsc *c, const void *p, size_t n)
{
	size_t done = 0;
	if (!c->connected || c->tcp_closing)
		return -1;
	if (c->pending == 0) {
		uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
		int r = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
		if (r > 0) {
			done = (size_t)r;
		} else if (r != UV_EAGAIN && r != UV_ENOSYS) {
			tell(c, "cannot write to the server: %s",
			     uv_strerror(r));
			return -1;
		}
		if (done == n)
			return 0;
	}
	if (n - done > HJ_WSC_MAX_OUT - c->pending) {
		tell(c, "the server does not read what is sent to it");
		return -1;
	}
	struct wreq *w = malloc(sizeof *w + (n - done));
	if (!w) {
		tell(c, "out of memory");
		return -1;
	}
	w->c = c;
	w->n = n - done;
	memcpy(w->data, (const char *)p + done, w->n);
	uv_buf_t q = uv_buf_init(w->data, (unsigned)w->n);
	int r = uv_write(&w->req, (uv_stream_t *)&c->tcp, &q, 1, on_written);
	if (r < 0) {
		free(w);
		tell(c, "cannot write to the server: %s", uv_strerror(r));
		return -1;
	}
	c->pending += w->n;
	return 0;
}

/* wss://: what TLS has to send, to the socket.  -1 (said) as raw_write. */
static int tls_flush(hj_wsc *c)
{
	size_t k;
	while ((k = hj_tls_take(c->tls, c->obuf, sizeof c->obuf)) > 0)
		if (raw_write(c, c->obuf, k) < 0)
			return -1;
	return 0;
}

/* The handshake request and the frames: to the socket, through TLS for
 * wss://, or to a fake's out.  -1 (said) as raw_write. */
static int out_write(hj_wsc *c, const void *p, size_t n)
{
	if (c->fake) {
		if (c->fake_out)
			c->fake_out(c->fake_arg, p, n);
		return 0;
	}
	if (!c->tls)
		return raw_write(c, p, n);
	char why[HJ_ERRLEN];
	if (!c->connected || c->tcp_closing)
		return -1;
	if (hj_tls_write(c->tls, p, n, why, sizeof why) < 0) {
		tell(c, "%s", why);
		return -1;
	}
	return tls_flush(c);
}

/* ---- WebSocket ---- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                       int flags, void *user)
{
	hj_wsc *c = user;
	(void)flags;
	return hj_ws_take(ctx, buf, len, &c->in, &c->in_len);
}

static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data,
                       size_t len, int flags, void *user)
{
	hj_wsc *c = user;
	(void)flags;
	if (out_write(c, data, len) < 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return (ssize_t)len;
}

static int ws_genmask(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                      void *user)
{
	(void)user;
	if (getrandom(buf, len, 0) != (ssize_t)len) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return 0;
}

/* A binary message is refused at its first frame, before it is read. */
static void refuse_binary(hj_wsc *c)
{
	static const char reason[] = "only text messages";
	tell(c, "a binary message (the stream sends text)");
	wslay_event_queue_close(c->ws, WSLAY_CODE_UNSUPPORTED_DATA,
	                        (const uint8_t *)reason, sizeof reason - 1);
	wslay_event_shutdown_read(c->ws);
}

static void ws_frame_start(wslay_event_context_ptr ctx,
                           const struct wslay_event_on_frame_recv_start_arg *a,
                           void *user)
{
	(void)ctx;
	if (a->opcode == WSLAY_BINARY_FRAME)
		refuse_binary(user);
}

static void ws_msg(wslay_event_context_ptr ctx,
                   const struct wslay_event_on_msg_recv_arg *a, void *user)
{
	hj_wsc *c = user;
	(void)ctx;
	if (a->opcode == WSLAY_TEXT_FRAME) {
		if (c->state == S_OPEN && !c->has_why && c->cbs.message)
			c->cbs.message(c->arg,
			               a->msg ? (const char *)a->msg : "",
			               a->msg_length);
	} else if (a->opcode == WSLAY_BINARY_FRAME) {
		refuse_binary(c);
	} else if (a->opcode == WSLAY_CONNECTION_CLOSE) {
		char reason[160];
		const char *name = close_name(a->status_code);
		if (a->msg_length > 2)
			line_of(reason, sizeof reason, (const char *)a->msg + 2,
			        a->msg_length - 2, 123);
		else
			reason[0] = 0;
		if (a->status_code == 0)
			tell(c, "closed by the server (no status code)");
		else if (reason[0])
			tell(c, "closed by the server (%u: %s)", a->status_code,
			     reason);
		else if (name)
			tell(c, "closed by the server (%u: %s)", a->status_code,
			     name);
		else
			tell(c, "closed by the server (%u)", a->status_code);
	}
}

static const struct wslay_event_callbacks ws_cbs = {
    ws_recv, ws_send, ws_genmask, ws_frame_start, NULL, NULL, ws_msg};

/* Sends what wslay has queued; ends once both sides have closed, or
 * wslay has stopped reading and has nothing more to send. */
static void ws_flush(hj_wsc *c)
{
	if (c->state == S_END || c->in_recv)
		return;
	if (wslay_event_want_write(c->ws) && wslay_event_send(c->ws) != 0) {
		tell(c, "cannot write to the server");
		end(c);
		return;
	}
	if (wslay_event_want_read(c->ws) || wslay_event_want_write(c->ws))
		return;
	if (!wslay_event_get_close_received(c->ws)) {
		/* wslay refused a frame and sent its close. */
		unsigned code = wslay_event_get_status_code_sent(c->ws);
		if (code == WSLAY_CODE_MESSAGE_TOO_BIG)
			tell(c, "a message longer than %zu bytes",
			     c->max_message);
		else if (code == WSLAY_CODE_INVALID_FRAME_PAYLOAD_DATA)
			tell(c, "a text message that is not UTF-8");
		else
			tell(c, "a frame that breaks the WebSocket protocol");
	}
	end(c);
}

static void ws_input(hj_wsc *c, const char *p, size_t n)
{
	c->in = (const uint8_t *)p;
	c->in_len = n;
	c->pinged = 0;
	if (!c->fake)
		c->last_rx = uv_now(c->loop);
	c->in_recv = 1;
	int r = wslay_event_recv(c->ws);
	c->in_recv = 0;
	c->in_len = 0;
	if (r != 0)
		tell(c, "%s",
		     r == WSLAY_ERR_NOMEM
		         ? "out of memory"
		         : "a frame that breaks the WebSocket protocol");
	ws_flush(c);
	if (r != 0)
		end(c);
}

static void ping_server(hj_wsc *c)
{
	struct wslay_event_msg m = {WSLAY_PING, NULL, 0};
	c->pinged = 1;
	if (wslay_event_queue_msg(c->ws, &m) == 0)
		ws_flush(c);
}

static void silent(hj_wsc *c)
{
	char d[32];
	dur(d, sizeof d, 2 * c->ping_ms);
	tell(c, "the server has sent nothing for %s", d);
	end(c);
}

static void ws_start(hj_wsc *c, const char *rest, size_t n)
{
	if (wslay_event_context_client_init(&c->ws, &ws_cbs, c) != 0) {
		c->ws = NULL;
		tell(c, "out of memory");
		end(c);
		return;
	}
	wslay_event_config_set_max_recv_msg_length(c->ws, c->max_message);
	c->state = S_OPEN;
	if (!c->fake) {
		uint64_t tick = c->ping_ms / 4;
		tick = tick < 5 ? 5 : tick > 1000 ? 1000 : tick;
		c->last_rx = uv_now(c->loop);
		uv_timer_start(&c->timer, on_timer, tick, tick);
	}
	if (c->cbs.open) {
		/* As inside wslay_event_recv: what the callback sends or
		 * closes is flushed after it, and the client is not freed
		 * under this frame. */
		c->in_recv = 1;
		c->cbs.open(c->arg);
		c->in_recv = 0;
		ws_flush(c);
	}
	if (n && (c->state == S_OPEN || c->state == S_CLOSING))
		ws_input(c, rest, n);
}

/* ---- the handshake's answer ---- */

static hj_wsc *of(llhttp_t *p)
{
	return p->data;
}

static int on_status(llhttp_t *p, const char *at, size_t n)
{
	hj_wsc *c = of(p);
	size_t room = sizeof c->reason - 1 - c->reason_len;
	if (n > room)
		n = room;
	memcpy(c->reason + c->reason_len, at, n);
	c->reason_len += n;
	c->reason[c->reason_len] = 0;
	return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t n)
{
	hj_wsc *c = of(p);
	if (c->in_value) {
		c->in_value = 0;
		c->hname_len = 0;
	}
	for (size_t i = 0; i < n && c->hname_len < sizeof c->hname - 1; i++) {
		char ch = at[i];
		c->hname[c->hname_len++] =
		    ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
	}
	c->hname[c->hname_len] = 0;
	c->hval_len = 0;
	c->hval_long = 0;
	return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n)
{
	hj_wsc *c = of(p);
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
	hj_wsc *c = of(p);
	c->in_value = 1;
	while (c->hval_len > 0 && (c->hval[c->hval_len - 1] == ' ' ||
	                           c->hval[c->hval_len - 1] == '\t'))
		c->hval[--c->hval_len] = 0;
	if (strcmp(c->hname, "sec-websocket-accept") == 0) {
		c->accepts++;
		c->accept_ok = !c->hval_long && strcmp(c->hval, c->accept) == 0;
	} else if (strcmp(c->hname, "sec-websocket-extensions") == 0) {
		c->extensions |= c->hval_long || c->hval_len > 0;
	} else if (strcmp(c->hname, "sec-websocket-protocol") == 0) {
		c->protocol = 1;
	} else if (c->hval_long) {
		return 0; /* neither Upgrade nor Connection is that long here */
	} else if (strcmp(c->hname, "upgrade") == 0) {
		c->upgrade_ok |= hj_ws_has_token(c->hval, "websocket");
	} else if (strcmp(c->hname, "connection") == 0) {
		c->connection_ok |= hj_ws_has_token(c->hval, "upgrade");
	}
	return 0;
}

static int on_headers_complete(llhttp_t *p)
{
	hj_wsc *c = of(p);
	c->head_done = 1;
	c->status = llhttp_get_status_code(p);
	if (c->status != 101)
		return 0; /* a refusal: its body says why */
	if (!c->upgrade_ok)
		tell(c, "the handshake's answer has no Upgrade: websocket");
	else if (!c->connection_ok)
		tell(c, "the handshake's answer has no Connection: upgrade");
	else if (c->accepts == 0)
		tell(c, "the handshake's answer has no Sec-WebSocket-Accept");
	else if (c->accepts > 1 || !c->accept_ok)
		tell(c,
		     "the handshake's Sec-WebSocket-Accept is not the key's");
	else if (c->extensions)
		tell(c, "the handshake's answer has an extension that was not "
		        "asked for");
	else if (c->protocol)
		tell(c, "the handshake's answer has a subprotocol that was not "
		        "asked for");
	else
		return 2; /* no body: what follows is frames */
	return -1;
}

static int on_body(llhttp_t *p, const char *at, size_t n)
{
	hj_wsc *c = of(p);
	size_t room = sizeof c->body - c->body_len;
	if (n >= room) {
		n = room;
		c->body_full = 1;
	}
	memcpy(c->body + c->body_len, at, n);
	c->body_len += n;
	return c->body_full ? -1 : 0; /* enough to say why */
}

static int on_message_complete(llhttp_t *p)
{
	return of(p)->status == 101 ? 0 : HPE_PAUSED;
}

/* The server refused the upgrade: its status, and its body as read. */
static void refused(hj_wsc *c)
{
	char line[320];
	line_of(line, sizeof line, c->body, c->body_len, 300);
	if (line[0]) {
		tell(c, "HTTP %d: %s", c->status, line);
	} else {
		line_of(line, sizeof line, c->reason, c->reason_len, 60);
		tell(c, "HTTP %d%s%s", c->status, line[0] ? " " : "", line);
	}
	end(c);
}

static void http_input(hj_wsc *c, const char *p, size_t n)
{
	while (n > 0 && c->state == S_HANDSHAKE) {
		size_t k = n;
		/* The head is read HJ_WSC_MAX_HEAD bytes at most. */
		if (!c->head_done && k > HJ_WSC_MAX_HEAD - c->head_bytes)
			k = HJ_WSC_MAX_HEAD - c->head_bytes;
		int was_done = c->head_done;
		llhttp_errno_t e = llhttp_execute(&c->http, p, k);
		if (!was_done)
			c->head_bytes += k;
		if (e == HPE_PAUSED_UPGRADE) {
			const char *at = llhttp_get_error_pos(&c->http);
			size_t used = at ? (size_t)(at - p) : k;
			ws_start(c, p + used, n - used);
			return;
		}
		if (e == HPE_PAUSED || c->body_full) {
			refused(c);
			return;
		}
		if (e != HPE_OK) {
			if (c->status && !c->has_why) {
				refused(c); /* a body that is not HTTP's */
				return;
			}
			const char *r = llhttp_get_error_reason(&c->http);
			tell(c, "the answer to the handshake is not HTTP: %s",
			     r ? r : llhttp_errno_name(e));
			end(c);
			return;
		}
		if (!c->head_done && c->head_bytes == HJ_WSC_MAX_HEAD) {
			tell(c,
			     "the handshake's answer has a head longer than "
			     "%d bytes",
			     HJ_WSC_MAX_HEAD);
			end(c);
			return;
		}
		p += k;
		n -= k;
	}
}

static void input(hj_wsc *c, const char *p, size_t n)
{
	if (c->state == S_HANDSHAKE)
		http_input(c, p, n);
	else if (c->state == S_OPEN || c->state == S_CLOSING)
		ws_input(c, p, n);
}

/* The server closed its side of the connection. */
static void eof(hj_wsc *c)
{
	switch (c->state) {
	case S_TLS:
		tell(c,
		     "the server closed the connection in the middle of "
		     "the TLS handshake with %s",
		     c->host);
		break;
	case S_HANDSHAKE:
		if (c->head_done) {
			llhttp_finish(&c->http); /* a body read to the end */
			refused(c);
			return;
		}
		if (c->head_bytes)
			tell(c, "the server closed the connection in the "
			        "middle of the handshake's answer");
		else
			tell(c, "the server closed the connection without "
			        "answering the handshake");
		break;
	case S_OPEN:
		tell(c, "the server closed the connection without a "
		        "WebSocket close");
		break;
	default:
		break;
	}
	end(c);
}

/* The deadline of the handshake, or of the closing handshake. */
static void timed_out(hj_wsc *c)
{
	char d[32];
	dur(d, sizeof d, c->handshake_ms);
	switch (c->state) {
	case S_RESOLVE:
		tell(c, "resolving %s took more than %s", c->host, d);
		break;
	case S_CONNECT:
		tell(c, "connecting to %s port %s took more than %s",
		     c->last_addr[0] ? c->last_addr : c->host, c->port, d);
		break;
	case S_TLS:
		tell(c, "no TLS handshake with %s within %s", c->host, d);
		break;
	case S_HANDSHAKE:
		if (c->head_done) {
			refused(c); /* a body that does not end */
			return;
		}
		tell(c, "no answer to the WebSocket handshake within %s", d);
		break;
	default:
		break;
	}
	end(c);
}

/* ---- sockets ---- */

static void on_timer(uv_timer_t *t)
{
	hj_wsc *c = t->data;
	switch (c->state) {
	case S_OPEN: {
		uint64_t quiet = uv_now(c->loop) - c->last_rx;
		if (quiet >= 2 * c->ping_ms)
			silent(c);
		else if (quiet >= c->ping_ms && !c->pinged)
			ping_server(c);
		break;
	}
	case S_END:
		shut(c); /* the last writes did not go */
		break;
	default:
		timed_out(c);
		break;
	}
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	hj_wsc *c = h->data;
	(void)want;
	*buf = uv_buf_init(c->rbuf, sizeof c->rbuf);
}

/* wss://: the server's bytes through TLS, its handshake first; then
 * the plaintext, as input() takes a plain socket's. */
static void tls_input(hj_wsc *c, const char *p, size_t n)
{
	char why[HJ_ERRLEN];
	if (hj_tls_put(c->tls, p, n) < 0) {
		tell(c, "out of memory");
		end(c);
		return;
	}
	if (c->state == S_TLS) {
		int r = hj_tls_handshake(c->tls, why, sizeof why);
		if (tls_flush(c) < 0 || r < 0) {
			if (r < 0)
				tell(c, "%s", why);
			end(c);
			return;
		}
		if (r == 0)
			return;
		c->state = S_HANDSHAKE;
		if (out_write(c, c->req, c->req_len) < 0) {
			end(c);
			return;
		}
	}
	while (c->state == S_HANDSHAKE || c->state == S_OPEN ||
	       c->state == S_CLOSING) {
		ssize_t k = hj_tls_read(c->tls, c->pbuf, sizeof c->pbuf, why,
		                        sizeof why);
		if (k > 0) {
			input(c, c->pbuf, (size_t)k);
			continue;
		}
		/* What reading had TLS answer (a key update). */
		if (tls_flush(c) < 0) {
			end(c);
		} else if (k == HJ_TLS_CLOSED) {
			eof(c);
		} else if (k < 0) {
			if (c->state != S_CLOSING)
				tell(c, "%s", why);
			end(c);
		}
		break;
	}
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	hj_wsc *c = st->data;
	if (c->state == S_END)
		return;
	if (n == UV_EOF) {
		eof(c);
	} else if (n < 0) {
		if (c->state != S_CLOSING)
			tell(c, "the connection to the server failed: %s",
			     uv_strerror((int)n));
		end(c);
	} else if (n > 0 && c->tls) {
		tls_input(c, buf->base, (size_t)n);
	} else if (n > 0) {
		input(c, buf->base, (size_t)n);
	}
}

static void try_next(hj_wsc *c);

static void on_connected(uv_connect_t *req, int status)
{
	hj_wsc *c = req->data;
	if (c->state == S_END)
		return; /* cancelled: the handle is closing */
	if (status < 0) {
		c->last_err = status;
		c->tcp_closing = 1;
		uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
		return; /* on to the next address */
	}
	c->connected = 1;
	uv_tcp_nodelay(&c->tcp, 1);
	if (c->tls) {
		/* The ClientHello; the request once TLS is up (tls_input). */
		char why[HJ_ERRLEN];
		c->state = S_TLS;
		if (hj_tls_handshake(c->tls, why, sizeof why) < 0) {
			tell(c, "%s", why);
			end(c);
			return;
		}
		if (tls_flush(c) < 0) {
			end(c);
			return;
		}
	} else {
		c->state = S_HANDSHAKE;
		if (out_write(c, c->req, c->req_len) < 0) {
			end(c);
			return;
		}
	}
	int r = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
	if (r < 0) {
		tell(c, "cannot read from the server: %s", uv_strerror(r));
		end(c);
	}
}

static void on_tcp_closed(uv_handle_t *h)
{
	hj_wsc *c = h->data;
	c->tcp_open = 0;
	c->tcp_closing = 0;
	c->connected = 0;
	if (c->state == S_END)
		maybe_free(c);
	else
		try_next(c);
}

/* Connects to the next address, or ends with the last one's error. */
static void try_next(hj_wsc *c)
{
	while (c->ai_next) {
		struct addrinfo *a = c->ai_next;
		c->ai_next = a->ai_next;
		if (a->ai_family == AF_INET)
			uv_ip4_name((const struct sockaddr_in *)a->ai_addr,
			            c->last_addr, sizeof c->last_addr);
		else if (a->ai_family == AF_INET6)
			uv_ip6_name((const struct sockaddr_in6 *)a->ai_addr,
			            c->last_addr, sizeof c->last_addr);
		else
			continue;
		c->tried++;
		uv_tcp_init(c->loop, &c->tcp);
		c->tcp.data = c;
		c->tcp_open = 1;
		c->conn.data = c;
		int r =
		    uv_tcp_connect(&c->conn, &c->tcp, a->ai_addr, on_connected);
		if (r == 0)
			return;
		c->last_err = r;
		c->tcp_closing = 1;
		uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
		return;
	}
	if (c->tried == 0)
		tell(c, "%s has no IPv4 or IPv6 address", c->host);
	else
		tell(c, "cannot connect to %s port %s%s: %s", c->last_addr,
		     c->port,
		     c->tried > 1 ? " (nor to its other addresses)" : "",
		     uv_strerror(c->last_err));
	end(c);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	hj_wsc *c = req->data;
	c->gai_busy = 0;
	if (c->state == S_END) {
		uv_freeaddrinfo(res);
		maybe_free(c);
		return;
	}
	if (status < 0) {
		tell(c, "cannot resolve %s: %s", c->host, uv_strerror(status));
		end(c);
		return;
	}
	c->ai = c->ai_next = res;
	c->state = S_CONNECT;
	try_next(c);
}

/* ---- the client ---- */

/* Whether the URL has that part (a user, a fragment, ...). */
static int has_part(CURLU *u, CURLUPart what)
{
	char *part = NULL;
	CURLUcode uc = curl_url_get(u, what, &part, 0);
	curl_free(part);
	return uc == CURLUE_OK;
}

/* The URL's parts, by libcurl's URL parser, *secure for wss://; err says
 * what is wrong. */
static int parse_url(hj_wsc *c, const char *url, char *target, size_t tcap,
                     char *hosthdr, size_t hcap, int *secure, char *err,
                     size_t errlen)
{
	CURLU *u = NULL;
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL,
	     *query = NULL;
	CURLUcode uc;
	int rc = -EINVAL;
	size_t n = strlen(url);

	if (n == 0 || n > HJ_WSC_MAX_URL) {
		hj_say(err, errlen, "the stream's URL must be 1 to %d bytes",
		       HJ_WSC_MAX_URL);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (url[i] <= ' ' || url[i] > '~') {
			hj_say(err, errlen,
			       "the stream's URL must be printable ASCII "
			       "without spaces");
			return -EINVAL;
		}
	memcpy(c->url, url, n + 1);
	u = curl_url();
	if (!u) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	uc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (uc == CURLUE_OK)
		uc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (uc != CURLUE_OK) {
		hj_say(err, errlen, "%s: %s", url, curl_url_strerror(uc));
		rc = uc == CURLUE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
		goto out;
	}
	*secure = strcasecmp(scheme, "wss") == 0;
	if (!*secure && strcasecmp(scheme, "ws") != 0) {
		hj_say(err, errlen, "%s: not a ws:// or wss:// URL", url);
		goto out;
	}
	if (has_part(u, CURLUPART_USER) || has_part(u, CURLUPART_PASSWORD) ||
	    has_part(u, CURLUPART_OPTIONS)) {
		/* The URL is not repeated: it may hold a password. */
		hj_say(err, errlen,
		       "the stream's URL may not have a user or password");
		goto out;
	}
	if (has_part(u, CURLUPART_FRAGMENT)) {
		hj_say(err, errlen, "%s: a WebSocket URL has no #fragment",
		       url);
		goto out;
	}
	if (has_part(u, CURLUPART_ZONEID)) {
		hj_say(err, errlen, "%s: an IPv6 zone is not supported", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    host[0] == 0) {
		hj_say(err, errlen, "%s: no host", url);
		goto out;
	}
	uc = curl_url_get(u, CURLUPART_PORT, &port, 0);
	if (uc == CURLUE_NO_PORT)
		snprintf(c->port, sizeof c->port, "%s", *secure ? "443" : "80");
	else if (uc == CURLUE_OK && strlen(port) < sizeof c->port)
		snprintf(c->port, sizeof c->port, "%s", port);
	else {
		hj_say(err, errlen, "%s: bad port", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
		hj_say(err, errlen, "%s: no path", url);
		goto out;
	}
	uc = curl_url_get(u, CURLUPART_QUERY, &query, 0);
	if (uc != CURLUE_OK && uc != CURLUE_NO_QUERY) {
		hj_say(err, errlen, "%s: %s", url, curl_url_strerror(uc));
		goto out;
	}
	n = strlen(host);
	if (host[0] == '[' && n > 2 && host[n - 1] == ']')
		snprintf(c->host, sizeof c->host, "%.*s", (int)(n - 2),
		         host + 1);
	else
		snprintf(c->host, sizeof c->host, "%s", host);
	snprintf(hosthdr, hcap, "%s%s%s", host, port ? ":" : "",
	         port ? port : "");
	snprintf(target, tcap, "%s%s%s", path[0] == '/' ? "" : "/", path,
	         query ? "?" : "");
	if (query) {
		size_t t = strlen(target);
		snprintf(target + t, tcap - t, "%s", query);
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_url_cleanup(u);
	return rc;
}

/* A client of url; ca_file for wss:// (tls.h), which a fake (fake 1)
 * refuses. */
static int client_new(const char *url, const char *ca_file, int fake,
                      size_t max_message, const char *key,
                      const hj_wsc_cbs *cbs, void *arg, hj_wsc **out, char *err,
                      size_t errlen)
{
	char target[HJ_WSC_MAX_URL + 2], hosthdr[HJ_WSC_MAX_URL + 8], k[32];
	int rc, secure = 0;
	*out = NULL;
	if (!url || !cbs) {
		hj_say(err, errlen, "no URL");
		return -EINVAL;
	}
	if (max_message == 0) {
		hj_say(err, errlen, "max_message must be above 0");
		return -EINVAL;
	}
	hj_wsc *c = calloc(1, sizeof *c);
	if (!c) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = parse_url(c, url, target, sizeof target, hosthdr, sizeof hosthdr,
	               &secure, err, errlen);
	if (rc)
		goto fail;
	if (secure && fake) {
		hj_say(err, errlen, "%s: a client in memory has no TLS", url);
		rc = -EINVAL;
		goto fail;
	}
	if (secure) {
		char why[HJ_ERRLEN];
		rc = hj_tls_new(c->host, ca_file, &c->tls, why, sizeof why);
		if (rc) {
			hj_say(err, errlen, "%s: %s", url, why);
			goto fail;
		}
	}
	if (key) {
		size_t kn = strlen(key);
		if (kn != 24 ||
		    strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh"
		                "ijklmnopqrstuvwxyz0123456789+/=") != kn) {
			hj_say(err, errlen,
			       "the key must be 24 characters "
			       "of base64");
			rc = -EINVAL;
			goto fail;
		}
		memcpy(k, key, kn + 1);
	} else {
		uint8_t nonce[16];
		if (getrandom(nonce, sizeof nonce, 0) != sizeof nonce) {
			rc = errno ? -errno : -EIO;
			hj_say(err, errlen, "getrandom: %s", strerror(-rc));
			goto fail;
		}
		EVP_EncodeBlock((unsigned char *)k, nonce, sizeof nonce);
	}
	hj_ws_accept(k, c->accept); /* k is 24 characters */
	static const char fmt[] = "GET %s HTTP/1.1\r\nHost: %s\r\n"
	                          "User-Agent: hashjack/" HJ_VERSION_STRING
	                          "\r\nUpgrade: websocket\r\n"
	                          "Connection: Upgrade\r\n"
	                          "Sec-WebSocket-Key: %s\r\n"
	                          "Sec-WebSocket-Version: 13\r\n\r\n";
	int n = snprintf(NULL, 0, fmt, target, hosthdr, k);
	c->req = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (!c->req) {
		hj_say(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	snprintf(c->req, (size_t)n + 1, fmt, target, hosthdr, k);
	c->req_len = (size_t)n;
	c->cbs = *cbs;
	c->arg = arg;
	c->max_message = max_message;
	c->handshake_ms = HJ_WSC_HANDSHAKE_MS;
	c->ping_ms = HJ_WSC_PING_MS;
	llhttp_settings_init(&c->settings);
	c->settings.on_status = on_status;
	c->settings.on_header_field = on_header_field;
	c->settings.on_header_value = on_header_value;
	c->settings.on_header_value_complete = on_header_value_complete;
	c->settings.on_headers_complete = on_headers_complete;
	c->settings.on_body = on_body;
	c->settings.on_message_complete = on_message_complete;
	llhttp_init(&c->http, HTTP_RESPONSE, &c->settings);
	c->http.data = c;
	*out = c;
	return 0;
fail:
	hj_tls_free(c->tls);
	free(c->req);
	free(c);
	return rc;
}

int hj_wsc_open(uv_loop_t *loop, const char *url, const char *ca_file,
                size_t max_message, const hj_wsc_cbs *cbs, void *arg,
                hj_wsc **out, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
	                         .ai_socktype = SOCK_STREAM,
	                         .ai_protocol = IPPROTO_TCP};
	hj_wsc *c;
	*out = NULL;
	int rc = client_new(url, ca_file, 0, max_message, NULL, cbs, arg, &c,
	                    err, errlen);
	if (rc)
		return rc;
	c->loop = loop;
	c->state = S_RESOLVE;
	c->gai.data = c;
	rc = uv_getaddrinfo(loop, &c->gai, on_resolved, c->host, c->port,
	                    &hints);
	if (rc < 0) {
		hj_say(err, errlen, "%s: cannot resolve %s: %s", c->url,
		       c->host, uv_strerror(rc));
		hj_tls_free(c->tls);
		free(c->req);
		free(c);
		return rc == UV_ENOMEM ? -ENOMEM : -EINVAL;
	}
	c->gai_busy = 1;
	uv_timer_init(loop, &c->timer);
	c->timer.data = c;
	c->timer_open = 1;
	uv_timer_start(&c->timer, on_timer, c->handshake_ms, 0);
	*out = c;
	return 0;
}

void hj_wsc_set_timeouts(hj_wsc *c, uint64_t handshake_ms, uint64_t ping_ms)
{
	if (handshake_ms)
		c->handshake_ms = handshake_ms;
	if (ping_ms)
		c->ping_ms = ping_ms;
	if (!c->fake && c->state < S_OPEN)
		uv_timer_start(&c->timer, on_timer, c->handshake_ms, 0);
}

int hj_wsc_send(hj_wsc *c, const char *text, size_t len)
{
	struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)text,
	                            len};
	if (c->state != S_OPEN || c->user_closed || c->has_why)
		return -EINVAL;
	if (len > HJ_WSC_MAX_OUT)
		return -EMSGSIZE;
	int r = wslay_event_queue_msg(c->ws, &m);
	if (r == WSLAY_ERR_NOMEM)
		return -ENOMEM;
	if (r != 0)
		return -EINVAL; /* a close is queued or sent already */
	ws_flush(c);
	return 0;
}

void hj_wsc_close(hj_wsc *c)
{
	if (c->user_closed)
		return;
	c->user_closed = 1;
	switch (c->state) {
	case S_OPEN:
		c->state = S_CLOSING;
		if (!c->fake)
			uv_timer_start(&c->timer, on_timer, HJ_WSC_CLOSE_MS, 0);
		/* Refused when a close is queued already: that one goes. */
		wslay_event_queue_close(c->ws, WSLAY_CODE_NORMAL_CLOSURE, NULL,
		                        0);
		ws_flush(c);
		break;
	case S_CLOSING:
	case S_END:
		break;
	default:
		end(c); /* a connection in progress */
		break;
	}
	if (c->fake)
		settle(c);
}

void hj_wsc_abort(hj_wsc *c)
{
	if (c->user_closed && c->state == S_END)
		return;
	c->user_closed = 1;
	if (c->state == S_OPEN) {
		/* Written now if the socket takes it; never waited for. */
		wslay_event_queue_close(c->ws, WSLAY_CODE_GOING_AWAY, NULL, 0);
		ws_flush(c);
	}
	c->state = S_END;
	if (c->fake)
		settle(c);
	else
		shut(c);
}

int hj_wsc_fake(const hj_wsc_fake_opts *o, const hj_wsc_cbs *cbs, void *arg,
                hj_wsc **out, char *err, size_t errlen)
{
	hj_wsc *c;
	*out = NULL;
	int rc = client_new(o->url, NULL, 1, o->max_message, o->key, cbs, arg,
	                    &c, err, errlen);
	if (rc)
		return rc;
	c->fake = 1;
	c->fake_out = o->out;
	c->fake_arg = o->out_arg;
	c->connected = 1;
	c->state = S_HANDSHAKE;
	out_write(c, c->req, c->req_len);
	*out = c;
	return 0;
}

int hj_wsc_feed(hj_wsc *c, const char *p, size_t n)
{
	input(c, p, n);
	return settle(c);
}

void hj_wsc_fake_eof(hj_wsc *c)
{
	eof(c);
	settle(c);
}

int hj_wsc_fake_tick(hj_wsc *c)
{
	if (c->state == S_OPEN) {
		if (c->pinged)
			silent(c);
		else
			ping_server(c);
	} else if (c->state == S_CLOSING) {
		end(c);
	} else {
		timed_out(c);
	}
	return settle(c);
}
