/*
 * The JSON-RPC client's insides (rpc.h), shared by its three files only:
 *
 *  - rpc.c: requests.  Serialised once, queued, moved into flight up to
 *    max_inflight, retried with backoff within their budget, answers
 *    parsed (on the thread pool when large), callbacks; the public API.
 *  - rpc_http.c: libcurl's multi_socket API on the loop.  One uv_poll_t
 *    per socket, curl's timer, the transfers (easy handles, pooled), what
 *    an HTTP status or a transfer's failure means for the request, the
 *    credentials and the cookie file, URLs.
 *  - rpc_answer.c: pure.  A body kept within bounds, and what it says as
 *    JSON-RPC.
 *
 * Nothing else includes this header: rpc_answer.c's functions, which the
 * tests and the fuzz target call too, are declared at the end of rpc.h.
 */
#ifndef HJ_RPC_IMPL_H
#define HJ_RPC_IMPL_H

#include <curl/curl.h>
#include <jansson.h>
#include <stdint.h>
#include <uv.h>

#include "rpc.h"
#include "say.h"

/* An easy handle with its error buffer; pooled between attempts. */
typedef struct hj_rpc__xfer {
	CURL *easy;
	struct hj_rpc__xfer *next; /* pool */
	char errbuf[CURL_ERROR_SIZE];
} hj_rpc__xfer;

/* A socket curl wants watched. */
typedef struct hj_rpc__sock {
	uv_poll_t poll;
	hj_rpc *c;
	curl_socket_t fd;
	struct hj_rpc__sock *prev, *next; /* c->socks, until curl removes it */
} hj_rpc__sock;

typedef struct hj_rpc__req {
	hj_rpc *c;
	struct hj_rpc__req *prev, *next; /* c->reqs */
	struct hj_rpc__req *link;        /* queue or waiting list */
	json_int_t id0; /* first id; also the submission order */
	size_t n;       /* calls */
	int batch;      /* answer is an array even when n == 1 */
	char *body;     /* the request, serialised once */
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
	hj_rpc__xfer *x;   /* in flight */
	hj_rpc__body resp; /* the response body, as rpc_http.c keeps it */
	/* Parsed on the thread pool: hj_rpc__answer's outputs. */
	int parsing;
	uv_work_t work;
	int ans_rc;
	json_t *ans_result, *ans_error;
	char ans_msg[HJ_ERRLEN];
} hj_rpc__req;

struct hj_rpc {
	uv_loop_t *loop;

	/* Requests (rpc.c). */
	uv_timer_t retry_timer;
	unsigned backoff_min_ms, backoff_max_ms, max_inflight;
	unsigned max_attempts, give_up_ms; /* 0: none */
	void (*on_retry)(void *, const char *, unsigned, unsigned);
	void *arg;
	void (*observe)(void *, const char *, enum hj_rpc_outcome, uint64_t);
	void *observe_arg;
	json_int_t next_id;
	uint64_t rng;
	hj_rpc__req *reqs, *reqs_tail; /* every pending request */
	size_t npending;
	hj_rpc__req *qhead, *qtail; /* queue, by id0 */
	hj_rpc__req *waiting;       /* by due, then id0 */
	unsigned parsing;           /* answers on the thread pool */

	/* HTTP (rpc_http.c). */
	int curl_ready; /* curl_global_init succeeded */
	CURLM *multi;
	uv_timer_t curl_timer;
	size_t max_response;
	unsigned timeout_ms;
	char *url, *user, *password;
	char *cookie_file; /* user and password come from here */
	int cookie_stale;  /* read it again before the next attempt */
	unsigned cookie;   /* readings of the cookie file */
	char *refused;     /* the password of the cookie the node refused */
	struct curl_slist *headers;
	unsigned inflight; /* requests in flight: one transfer each */
	hj_rpc__xfer *pool;
	hj_rpc__sock *socks;

	/* Both: closing, and the handles whose close callback is due. */
	int closing;
	unsigned open_handles; /* initialised, close callback not yet run */
	void (*done)(void *);
	void *done_arg;
};

/* ---- rpc.c: what rpc_http.c tells of a transfer's end ---- */

/* Moves queued requests into flight while there is room. */
void hj_rpc__pump(hj_rpc *c);

/* Ends r with result (borrowed) or, when msg is not NULL, with a final
 * error (HJ_RPC_ERR_FINAL) saying msg.  r is freed on return. */
void hj_rpc__complete(hj_rpc *c, hj_rpc__req *r, json_t *result,
                      const char *msg);

/* Attempt r->attempt failed with msg.  retry_after: the server's
 * Retry-After in seconds (0: none).  not_sent: the failure proves the node
 * never executed the request.  A HJ_RPC_ONCE call that may have been
 * executed ends (HJ_RPC_ERR_UNKNOWN); anything else is retried, or ends
 * once its budget is spent.  r may be freed on return. */
void hj_rpc__failed(hj_rpc *c, hj_rpc__req *r, const char *msg,
                    uint64_t retry_after, int not_sent);

/* The node's JSON-RPC error answer errobj (borrowed) ends a
 * HJ_RPC_NODE_ERRORS call r (freed on return). */
void hj_rpc__node_error(hj_rpc *c, hj_rpc__req *r, json_t *errobj,
                        const char *msg);

/* r's 2xx body is kept in r->resp: parsed (on the thread pool when large),
 * then r completes or is retried.  r may be freed on return. */
void hj_rpc__answered(hj_rpc *c, hj_rpc__req *r);

/* A handle's close callback ran: the client is freed after the last one,
 * once hj_rpc_close was called and no answer is being parsed. */
void hj_rpc__handle_closed(hj_rpc *c);

/* ---- rpc_http.c ---- */

/* http(s) URL with a host, or -EINVAL with the reason (-ENOMEM).  The URL
 * is not repeated in the message: it may carry a password. */
int hj_rpc__check_url(const char *url, char *err, size_t errlen);

/* The transport of c for the options o (checked): the URL, credentials,
 * headers, the multi handle and curl's timer (one more open handle).
 * Returns 0, or a negative errno with err; then hj_rpc__http_free frees
 * what was made, with c->closing set. */
int hj_rpc__http_init(hj_rpc *c, const hj_rpc_opts *o, char *err,
                      size_t errlen);

/*
 * Starts attempt r->attempt's transfer (its cookie read first when the
 * node refused the last one).  Returns 0 (in flight: the transfer's end
 * calls hj_rpc__failed, hj_rpc__complete, hj_rpc__node_error or
 * hj_rpc__answered); -EAGAIN with msg, the attempt failed before anything
 * was sent (retry it); -EPERM with msg, the request cannot succeed (end
 * it).
 */
int hj_rpc__http_start(hj_rpc *c, hj_rpc__req *r, char *msg, size_t msglen);

/* Drops r's transfer in flight (hj_rpc_close): no answer will come. */
void hj_rpc__http_drop(hj_rpc *c, hj_rpc__req *r);

/* hj_rpc_close's part: the pooled transfers, the cached connections, the
 * sockets' poll handles and curl's timer (closing on the loop). */
void hj_rpc__http_close(hj_rpc *c);

/* Frees what hj_rpc__http_init made, secrets wiped (after http_close, or
 * after a failed init). */
void hj_rpc__http_free(hj_rpc *c);

#endif
