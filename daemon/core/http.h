/*
 * The server's connections: HTTP/1.1 parsed by llhttp, WebSocket frames by
 * wslay, both on our libuv loop (docs/API.md, "Limits").  No protocol is
 * parsed here: this file moves bytes between the socket and the two
 * libraries, enforces the limits, and hands complete requests and
 * messages to a handler (api.c).
 *
 * A connection's bytes come from a uv_tcp_t, or, for the fuzz target and
 * the tests, from hj_conn_feed on a connection made by hj_server_fake,
 * whose output goes to a callback: the same code runs either way.
 */
#ifndef HJ_HTTP_H
#define HJ_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

typedef struct hj_server hj_server;
typedef struct hj_conn hj_conn;

/* Every limit of docs/API.md, "Limits". */
typedef struct hj_server_limits {
	size_t max_url;            /* request target, bytes (414 above) */
	size_t max_header_bytes;   /* all header names and values (431) */
	unsigned max_headers;      /* header lines (431) */
	unsigned max_conns;        /* open connections (503 and close above) */
	unsigned max_conns_per_ip; /* from one address (503 and close) */
	uint64_t request_ms;       /* a request must arrive within this (408) */
	uint64_t idle_ms;          /* an idle keep-alive connection is closed */
	size_t max_out;            /* bytes written and not yet taken by the
	                              client; above it the client is dropped */
	size_t max_ws_msg; /* a client's WebSocket message (close 1009) */
	uint64_t ping_ms;  /* a quiet WebSocket is pinged after this, and
	                      dropped after twice this without a frame */
} hj_server_limits;

/* The defaults of docs/API.md. */
void hj_server_limits_default(hj_server_limits *l);

/* A request, borrowed for the handler's call. */
typedef struct hj_server_req {
	const char *method; /* "GET", "HEAD", ... */
	const char *path;   /* the target up to '?', NUL-terminated */
	const char *query;  /* after '?', "" when none */
	const char *peer;   /* the client's address, for logs */
	int websocket;      /* a valid WebSocket upgrade request */
} hj_server_req;

typedef struct hj_server_handler {
	/* A complete request that is not a WebSocket upgrade: answer it
	 * with hj_conn_respond before returning. */
	void (*request)(void *ctx, hj_conn *c, const hj_server_req *r);
	/* A WebSocket upgrade: return 0 to accept it (the handler may then
	 * send), or answer with hj_conn_respond and return -1. */
	int (*ws_open)(void *ctx, hj_conn *c, const hj_server_req *r);
	/* The upgrade was answered: the WebSocket is open for sending. */
	void (*ws_ready)(void *ctx, hj_conn *c);
	/* A complete text message from the client (binary ones are refused
	 * by close 1003 before they get here). */
	void (*ws_message)(void *ctx, hj_conn *c, const char *msg, size_t n);
	/* The connection is going away: forget it.  Called once for each
	 * accepted WebSocket, before the memory is freed. */
	void (*ws_close)(void *ctx, hj_conn *c);
	void *ctx;
} hj_server_handler;

/* What the server counts, for /metrics. */
typedef struct hj_server_counters {
	uint64_t accepted, refused_total, refused_per_ip;
	uint64_t requests, bad_requests, timeouts, slow_dropped;
	uint64_t ws_opened, ws_messages_out, ws_bytes_out;
	unsigned open, websockets;
} hj_server_counters;

/* A server on loop with the limits lim and the handler h (both copied),
 * not listening yet.  Returns 0 with *out, or -ENOMEM and *out NULL. */
int hj_server_new(uv_loop_t *loop, const hj_server_limits *lim,
                  const hj_server_handler *h, hj_server **out);

/*
 * Listens on host:port (port 0: any free one; the bound port is returned
 * in *bound).  Returns 0, or a negative libuv error with err.
 */
int hj_server_listen(hj_server *s, const char *host, unsigned port,
                     unsigned *bound, char *err, size_t errlen);

/* Stops listening, closes every connection, then calls done (may be
 * NULL).  The server is freed after done returns. */
void hj_server_close(hj_server *s, void (*done)(void *arg), void *arg);

const hj_server_counters *hj_server_stats(const hj_server *s);

/* Answers the current request: status, its content type and body (NULL
 * for none), then the connection is kept or closed as HTTP says (always
 * closed after a 4xx from the parser).  HEAD gets the headers only. */
void hj_conn_respond(hj_conn *c, int status, const char *content_type,
                     const char *body, size_t len);

/* Sends one text message on an accepted WebSocket.  Returns 0, or -1 when
 * the connection is closing or was just dropped for not reading (it is
 * then gone once the handler returns to the loop: do not send again). */
int hj_conn_ws_send(hj_conn *c, const char *msg, size_t n);
/*
 * A text message framed once (by wslay; a server's frames are not
 * masked, so the same bytes do for every client): *out (caller frees),
 * *len.  0 or -ENOMEM.  hj_conn_ws_send_framed sends such a frame on an
 * accepted WebSocket, as hj_conn_ws_send does a message: what the stream
 * sends to every subscriber is framed once, not once per subscriber.
 */
int hj_conn_ws_frame(const char *msg, size_t n, char **out, size_t *len);
int hj_conn_ws_send_framed(hj_conn *c, const char *frame, size_t n);

/* Closes a WebSocket with a status code and a short reason. */
void hj_conn_ws_close(hj_conn *c, uint16_t code, const char *reason);

/* The handler's per-connection pointer. */
void hj_conn_set_user(hj_conn *c, void *user);
void *hj_conn_user(const hj_conn *c);
const char *hj_conn_peer(const hj_conn *c);

/* ---- in memory: the fuzz target and the tests ---- */

/* A connection without a socket from peer; what it writes goes to
 * sink(arg, bytes, n).  Returns 0 with *out, or -ENOMEM and *out NULL.
 * Freed by hj_conn_fake_free (or hj_server_close). */
int hj_server_fake(hj_server *s, const char *peer,
                   void (*sink)(void *arg, const char *p, size_t n), void *arg,
                   hj_conn **out);
/* Gives the connection bytes as if read from its socket.  Returns 0, or
 * -1 once it is closed (then it ignores further bytes). */
int hj_conn_feed(hj_conn *c, const char *p, size_t n);
void hj_conn_fake_free(hj_conn *c);

#endif
