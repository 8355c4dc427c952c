/*
 * A scripted HTTP/1.1 server for the tests, on the test's libuv loop,
 * bound to 127.0.0.1 on an ephemeral port: test_rpc.c drives the JSON-RPC
 * client against it, test_payout_evm.c plays a node with it.  The test
 * gives a handler that decides, request by request, what to answer (a
 * reply, a late reply, nothing, half a reply, a close), and reads back
 * what arrived.
 *
 * Failures inside are cmocka assertions: this is test code only.
 */
#ifndef HJ_TEST_HTTP_FAKE_H
#define HJ_TEST_HTTP_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#define HF_MAX_REQ 64 /* requests whose details are kept */

/* One parsed request.  head: request line and headers; body: the bytes
 * after them (both NUL-terminated); json: the body parsed, or NULL.  All
 * borrowed by the handler for its call. */
struct hf_req {
	char *head;
	char *body;
	size_t body_len;
	json_t *json;
};

struct hf_conn; /* one accepted connection */

/* Decides what request number n (from 0, over all connections) gets: it
 * answers now (hf_reply, hf_send_raw), later (hf_reply_later) or never
 * (hf_conn_close, or nothing: the request stays unanswered). */
typedef void (*hf_handler)(struct hf_conn *c, const struct hf_req *r,
                           unsigned n);

struct hf_server {
	uv_loop_t *loop;
	uv_tcp_t listener;
	int port;
	hf_handler handler;
	struct hf_conn *conns;
	unsigned nconns; /* connections accepted */
	unsigned nreq;   /* requests received */
	unsigned outstanding, max_outstanding;
	uint64_t req_time[HF_MAX_REQ];   /* uv_now() when request n arrived */
	uint64_t reply_time[HF_MAX_REQ]; /* ... when its reply was written */
	unsigned req_conn[HF_MAX_REQ];   /* connection of request n */
	char method[HF_MAX_REQ][64]; /* method of request n, "" for a batch */
	char head[HF_MAX_REQ][1024]; /* request n's head, cut */
};

/* Listens on 127.0.0.1, an ephemeral port (s->port). */
void hf_server_start(struct hf_server *s, uv_loop_t *loop, hf_handler h);

/* Closes the listener and every connection (their handles close on the
 * loop; run it to finish). */
void hf_server_close(struct hf_server *s);

/* Closes c without answering. */
void hf_conn_close(struct hf_conn *c);

/* Writes bytes; the request counts as answered.  close_after: shut the
 * connection down once they are out. */
void hf_send_raw(struct hf_conn *c, const char *data, size_t len,
                 int close_after);

/* A whole response with status and body (Content-Type application/json);
 * extra: more header lines, each ending in \r\n, or NULL.  Caller frees. */
char *hf_response(int status, const char *extra, const char *body, size_t *len);

/* hf_response, written now. */
void hf_reply(struct hf_conn *c, int status, const char *extra,
              const char *body);

/* hf_response, written after ms (one at a time per connection). */
void hf_reply_later(struct hf_conn *c, uint64_t ms, int status,
                    const char *body);

/* The value of header name in head, or "" (cut to n bytes). */
void hf_header(const char *head, const char *name, char *out, size_t n);

#endif
