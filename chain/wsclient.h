/*
 * A WebSocket client (RFC 6455) on a libuv loop, for reading a dealer's
 * `hashjack serve` stream (docs/API.md, "The stream").  As on the
 * server's side (daemon/core/http.c), no protocol is parsed here: libcurl's
 * URL API reads the URL, llhttp the handshake's answer, wslay the frames,
 * libcrypto makes the key's SHA-1 and base64, and for wss:// OpenSSL's
 * libssl does TLS over memory BIOs (tls.h) between the socket and them,
 * so that the handshake and the frames are the same bytes either way;
 * this file moves bytes between the socket and them and bounds
 * everything, through TLS too: the answer's head (HJ_WSC_MAX_HEAD), the
 * body of a refusal (HJ_WSC_MAX_BODY), a message (max_message), what
 * waits to be written (HJ_WSC_MAX_OUT), the time to connect, do the TLS
 * handshake and be answered, a silent server, the closing handshake.
 *
 * Only text messages are taken: a binary one is answered with close 1003.
 * Text messages can be sent too (hj_wsc_send, from the open callback on):
 * the daemon's push wake-up (push.h) subscribes to a node's new heads.
 * Pings are answered; a server silent for ping_ms is pinged, and dropped
 * after twice that.  Masks and the key come from getrandom(2).
 *
 * The program ignores SIGPIPE (a server gone while a frame is written is
 * an error said, not the program's death), as `hashjack serve` does.
 *
 * A client's bytes come from its socket, or, for the fuzz target and the
 * tests, from hj_wsc_feed on a client made by hj_wsc_fake: the same code
 * runs either way (a fake has no TLS: its bytes are the plaintext).
 */
#ifndef HJ_WSCLIENT_H
#define HJ_WSCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

typedef struct hj_wsc hj_wsc;

/* The bounds.  The timeouts are the defaults of hj_wsc_set_timeouts. */
#define HJ_WSC_MAX_HEAD     8192  /* the handshake answer's head, bytes */
#define HJ_WSC_MAX_BODY     4096  /* a refusal's body read, bytes */
#define HJ_WSC_MAX_OUT      65536 /* written, not yet taken by the server */
#define HJ_WSC_MAX_URL      1024  /* the URL's length */
#define HJ_WSC_HANDSHAKE_MS 10000 /* resolve, connect, TLS, be answered */
#define HJ_WSC_PING_MS      30000 /* silence before a ping (twice: dropped) */
#define HJ_WSC_CLOSE_MS     2000  /* the closing handshake, the last writes */

typedef struct hj_wsc_cbs {
	/* A whole text message, valid UTF-8 (borrowed for the call).  May
	 * call hj_wsc_close; no message is given after that. */
	void (*message)(void *arg, const char *text, size_t len);
	/*
	 * Once, at the end: why is NULL after hj_wsc_close, else what
	 * ended it, one line of printable ASCII that begins with the URL:
	 * "ws://127.0.0.1:8549/v1/stream?from=3: HTTP 400: {"error":...}",
	 * "...: cannot connect to 127.0.0.1 port 8549: connection refused",
	 * "...: the handshake's Sec-WebSocket-Accept is not the key's",
	 * "...: closed by the server (1001: going away)",
	 * "...: a message longer than 1048576 bytes", "...: a binary
	 * message", "...: the TLS certificate of node.example failed
	 * verification: self-signed certificate", ...  (borrowed for the
	 * call).  The client is freed
	 * right after it returns: no call on it after this one.
	 */
	void (*closed)(void *arg, const char *why);
	/* Once, when the handshake is done, before any message: the moment
	 * hj_wsc_send may be called.  May call hj_wsc_close.  May be NULL
	 * (a reader that only receives). */
	void (*open)(void *arg);
} hj_wsc_cbs;

/*
 * Opens url, ws://HOST[:PORT][/PATH][?QUERY] or wss://... (HOST a name
 * or an IPv4 literal or [IPv6] one; PORT 80 by default, 443 for wss://;
 * printable ASCII, at most HJ_WSC_MAX_URL bytes; no user, password or
 * fragment): resolves HOST with uv_getaddrinfo, connects to each of its
 * addresses in turn until one takes it, for wss:// does the TLS
 * handshake (tls.h: the certificate checked against ca_file's CA
 * certificates, NULL for the system's CA store, and against HOST; TLS
 * 1.2 at least), and sends the handshake.  ca_file is not used for
 * ws://.  max_message (> 0) bounds one message, in bytes.  cbs and arg
 * are kept (cbs is copied).  Returns 0 with *out, or -EINVAL (a bad URL,
 * max_message 0, a CA file that cannot be used) / -ENOMEM with err;
 * cbs->closed is called only after a 0, and always from the loop, never
 * from within this call or hj_wsc_close.
 */
int hj_wsc_open(uv_loop_t *loop, const char *url, const char *ca_file,
                size_t max_message, const hj_wsc_cbs *cbs, void *arg,
                hj_wsc **out, char *err, size_t errlen);

/*
 * The time to resolve, connect (for wss:// do the TLS handshake) and have
 * the handshake answered (restarted from now), and the silence after
 * which the server is pinged (twice that: dropped); 0 keeps the value.
 * For the tests; call it right after hj_wsc_open.
 */
void hj_wsc_set_timeouts(hj_wsc *c, uint64_t handshake_ms, uint64_t ping_ms);

/*
 * Starts the closing handshake (close 1000; waits HJ_WSC_CLOSE_MS at most
 * for the server's), or aborts a connection in progress; closed(arg,
 * NULL) follows, and no message before it.  Again after that: nothing.
 */
void hj_wsc_close(hj_wsc *c);

/*
 * Ends the client now, for a program on its way out: a close frame (1001)
 * if the socket takes it at once, no wait for the server's answer nor for
 * anything else to be written; the connection is closed, closed(arg,
 * NULL) follows (from the loop; a fake's from within this call), no
 * message before it.  Also after hj_wsc_close, to stop waiting.  Again
 * after that: nothing.
 */
void hj_wsc_abort(hj_wsc *c);

/*
 * Sends text[0..len), valid UTF-8 (not checked here: the server checks
 * it), as one text message, masked and framed by wslay; copied.  Only
 * between open and the end (or hj_wsc_close).  Returns 0 (queued: its
 * failure to go out ends the client through closed), -EINVAL (not open,
 * closing, ended), -EMSGSIZE (longer than HJ_WSC_MAX_OUT) or -ENOMEM.
 */
int hj_wsc_send(hj_wsc *c, const char *text, size_t len);

/* ---- in memory: the fuzz target and the tests ---- */

typedef struct hj_wsc_fake_opts {
	const char *url;    /* as for hj_wsc_open, ws:// only (no TLS in
	                       memory); it is never resolved */
	size_t max_message; /* as for hj_wsc_open */
	const char *key;    /* the Sec-WebSocket-Key sent, 24 characters of
	                       base64; NULL: random, as hj_wsc_open's */
	/* What the client writes (the handshake request, then its masked
	 * frames), in order; NULL: discarded. */
	void (*out)(void *arg, const char *p, size_t n);
	void *out_arg;
} hj_wsc_fake_opts;

/*
 * A client without a socket or a loop: the handshake is written at once,
 * and the server's bytes come from hj_wsc_feed.  Returns as hj_wsc_open.
 * Its timeouts never fire by themselves: hj_wsc_fake_tick says one has.
 * Unlike a real client, its closed callback is called from within
 * hj_wsc_feed, hj_wsc_fake_eof, hj_wsc_fake_tick or hj_wsc_close (once
 * the client has ended: after the handshake was refused, at once).
 */
int hj_wsc_fake(const hj_wsc_fake_opts *o, const hj_wsc_cbs *cbs, void *arg,
                hj_wsc **out, char *err, size_t errlen);
/* Gives the client bytes as if read from its socket.  Returns 0, or -1
 * when the client has ended: closed was called and c is freed. */
int hj_wsc_feed(hj_wsc *c, const char *p, size_t n);
/* The server closed the connection (end of file): closed is called and c
 * is freed. */
void hj_wsc_fake_eof(hj_wsc *c);
/* The pending deadline has passed (the handshake's; in the open stream a
 * quiet server's, which pings it the first time and ends it the second;
 * the closing handshake's).  Returns as hj_wsc_feed. */
int hj_wsc_fake_tick(hj_wsc *c);

#endif
