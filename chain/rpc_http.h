/*
 * The JSON-RPC client's transport (rpc_http.c), a layer below its queue
 * (rpc.c): libcurl's multi_socket API on the caller's libuv loop, the
 * transfers, the credentials and the cookie file, URLs.  It knows nothing
 * of requests but the bytes to post and what to make of a failure; it
 * reports each transfer's end through one callback, given at creation,
 * with the opaque pointer the transfer was started with.  No callback is
 * called inside a curl callback.
 */
#ifndef HJ_RPC_HTTP_H
#define HJ_RPC_HTTP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "rpc.h"

typedef struct hj_rpc__http hj_rpc__http; /* the transport */
typedef struct hj_rpc__xfer hj_rpc__xfer; /* one transfer */

/* How a transfer ended. */
enum hj_rpc__xfer_end {
	HJ_RPC__XFER_BODY,   /* a 2xx answer: body[0..len), the receiver's
	                        to free */
	HJ_RPC__XFER_FAILED, /* the attempt failed (msg): retry_after, the
	                        server's Retry-After in seconds (0: none);
	                        not_sent: the node surely never executed it */
	HJ_RPC__XFER_FINAL,  /* the request cannot succeed (msg: HTTP 4xx) */
	HJ_RPC__XFER_NODE_ERROR, /* node_errors: the node's JSON-RPC error
	                            answer errobj (borrowed), msg */
};

/* What a smaller request may fix (hj_rpc__xfer_outcome.limit). */
enum hj_rpc__limit {
	HJ_RPC__LIMIT_NONE = 0,
	HJ_RPC__LIMIT_REFUSED, /* too large or too many: HTTP 413, a batch's
	                          HTTP 400, an answer above max_response */
	HJ_RPC__LIMIT_CUT,     /* the answer was cut short */
};

typedef struct hj_rpc__xfer_outcome {
	enum hj_rpc__xfer_end end;
	const char *msg; /* one printable line; NULL for a body */
	uint64_t retry_after;
	int not_sent;
	enum hj_rpc_cause cause; /* HJ_RPC__XFER_FAILED: why */
	enum hj_rpc__limit limit;
	json_t *errobj;
	char *body;
	size_t len;
	uint64_t ended; /* uv_hrtime() when the transfer ended */
} hj_rpc__xfer_outcome;

typedef struct hj_rpc__http_opts {
	uv_loop_t *loop;
	const char *url; /* checked (hj_rpc__http_check_url) */
	const char *user, *password, *bearer;
	const char *cookie_file; /* user and password come from here */
	const char *ca_file;     /* https://: CURLOPT_CAINFO; NULL: the
	                            system's CA store */
	size_t max_response;     /* bytes of a 2xx body */
	unsigned timeout_ms;     /* one transfer, connect to last byte */
	unsigned max_inflight;   /* transfers at once: idle connections kept */
	/* A transfer started with req ended (req's transfer is gone).  From
	 * the loop, never inside curl; it may start transfers or close. */
	void (*end)(void *arg, void *req, const hj_rpc__xfer_outcome *o);
	/* After the ends of one round of curl's work: room may have come. */
	void (*idle)(void *arg);
	/* After hj_rpc__http_close, once the last of the transport's handles
	 * is closed: hj_rpc__http_free may follow. */
	void (*closed)(void *arg);
	void *arg;
} hj_rpc__http_opts;

/* What one transfer posts and how its end is judged. */
typedef struct hj_rpc__http_send {
	const char *body; /* borrowed until the transfer ends or is closed */
	size_t len;
	json_int_t id0;  /* node_errors: the id of the answer to look for */
	int several;     /* several calls (a 4xx message's hint) */
	int node_errors; /* keep another status's body for a JSON-RPC error
	                    answer (Bitcoin Core sends them with HTTP 500) */
	int fresh;       /* on a connection of its own, which libcurl never
	                    sends a second time (a call that must run once) */
} hj_rpc__http_send;

/* http(s) URL with a host, or -EINVAL with the reason (-ENOMEM).  The URL
 * is not repeated in the message: it may carry a password. */
int hj_rpc__http_check_url(const char *url, char *err, size_t errlen);

/* The transport for o (checked): the URL, credentials, headers, the multi
 * handle and curl's timer.  Returns 0 with *out, or a negative errno with
 * err and *out NULL (nothing left to free). */
int hj_rpc__http_new(const hj_rpc__http_opts *o, hj_rpc__http **out, char *err,
                     size_t errlen);

/*
 * Starts a transfer of s for req (the cookie file read first when the node
 * refused the last reading).  Returns 0 with *x (its end is reported to
 * o->end); -EAGAIN with msg, it failed before anything was sent (retry
 * it); -EPERM with msg, it cannot succeed (the node refuses the cookie).
 */
int hj_rpc__http_start(hj_rpc__http *h, void *req, const hj_rpc__http_send *s,
                       hj_rpc__xfer **x, char *msg, size_t msglen);

/* Drops the transfers in flight (no end is reported), the pooled ones, the
 * cached connections, and closes the sockets' poll handles and curl's
 * timer: o->closed follows from the loop. */
void hj_rpc__http_close(hj_rpc__http *h);

/* Frees h, secrets wiped (after o->closed). */
void hj_rpc__http_free(hj_rpc__http *h);

/* Bitcoin Core's multiwallet endpoint: url with its path replaced by
 * "/wallet/" and the wallet name, percent-encoded.  *out is the caller's
 * to free.  Returns 0, -EINVAL with err (a bad URL, an empty name) or
 * -ENOMEM; the message never repeats the URL. */
int hj_rpc__http_wallet_url(const char *url, const char *wallet, char **out,
                            char *err, size_t errlen);

#endif
