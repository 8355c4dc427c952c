/*
 * JSON-RPC 2.0 over HTTP, on a libuv loop: libcurl's multi_socket API
 * driven by one uv_poll_t per socket and one uv_timer_t for curl's timer.
 * Nothing blocks the loop and no thread is used.
 *
 * Every request is retried until it succeeds (or, with a budget, until
 * max_attempts or give_up_ms is spent): network errors, timeouts,
 * HTTP 5xx/408/429, responses that are not valid JSON-RPC, responses above
 * max_response, and JSON-RPC errors, with exponential backoff from
 * backoff_min_ms doubling to backoff_max_ms, each delay with jitter (a
 * random 50-100% of it; a server's Retry-After is honoured, capped at
 * backoff_max_ms).  3xx answers are retried too (redirects are not
 * followed).  Only a request that cannot succeed by retrying (HTTP 4xx
 * other than 408/429: bad credentials, wrong path) ends with an error.
 * hj_rpc_call_x can ask for the node's error answers and for at most one
 * attempt (a payment must not be sent twice by a retry).
 * Connections are kept alive and reused.  docs/RPC.md has the details.
 */
#ifndef HJ_RPC_H
#define HJ_RPC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct hj_rpc hj_rpc;

/* How one attempt of a request ended (hj_rpc_opts.observe). */
enum hj_rpc_outcome {
	HJ_RPC_OK,      /* a valid answer, handed to the caller */
	HJ_RPC_ERROR,   /* the node's JSON-RPC error answer, handed to the
	                   caller (HJ_RPC_NODE_ERRORS) */
	HJ_RPC_RETRIED, /* no usable answer: another attempt follows */
	HJ_RPC_FAILED,  /* no usable answer, and the call ends with an error
	                   (HTTP 4xx, HJ_RPC_ONCE) */
};
#define HJ_RPC_OUTCOMES 4
/* "ok", "error", "retried", "failed". */
const char *hj_rpc_outcome_name(enum hj_rpc_outcome o);

/* Why an attempt failed and is tried again (hj_rpc_retry.cause): one word
 * each for a summary and a metric's label (hj_rpc_cause_name). */
enum hj_rpc_cause {
	HJ_RPC_CAUSE_CONNECT,    /* "connect": no connection made */
	HJ_RPC_CAUSE_TIMEOUT,    /* "timeout": no whole answer in time */
	HJ_RPC_CAUSE_NETWORK,    /* "network": the connection failed or the
	                            answer was cut */
	HJ_RPC_CAUSE_RATE,       /* "rate_limited": HTTP 429 */
	HJ_RPC_CAUSE_HTTP,       /* "http": another status (5xx, 408, 3xx) */
	HJ_RPC_CAUSE_AUTH,       /* "auth": HTTP 401 with a cookie file */
	HJ_RPC_CAUSE_BAD_ANSWER, /* "bad_answer": no valid JSON-RPC answer */
	HJ_RPC_CAUSE_NODE_ERROR, /* "node_error": a JSON-RPC error */
	HJ_RPC_CAUSE_TLS,        /* "tls": no TLS session (the certificate
	                            refused, the handshake failed) */
};
#define HJ_RPC_CAUSES 9
const char *hj_rpc_cause_name(enum hj_rpc_cause c);

/* A failed attempt that will be tried again (hj_rpc_opts.on_retry);
 * borrowed for the call. */
typedef struct hj_rpc_retry {
	const char *what;  /* the request and what failed, one line */
	const char *why;   /* what failed alone (what's end) */
	unsigned attempt;  /* 1 = the first try */
	unsigned delay_ms; /* before the next one */
	enum hj_rpc_cause cause;
	unsigned retry_after; /* the server's Retry-After, seconds; 0 none */
} hj_rpc_retry;

/* A batch limit learnt or changed (hj_rpc_opts.on_limit): batches of
 * method are now sent in parts of at most `limit` calls.  refused: the
 * calls of the batch the node (or a proxy) just refused, with why (one
 * line); 0 and NULL when the limit grows back.  Borrowed for the call. */
typedef struct hj_rpc_limit {
	const char *method;
	size_t limit;
	size_t refused;
	const char *why;
} hj_rpc_limit;

typedef struct hj_rpc_opts {
	const char *url;  /* http://host:port/path (https works too) */
	const char *user; /* basic auth when not NULL */
	const char *password;
	const char *bearer; /* "Authorization: Bearer ..." when not NULL */
	/* Basic auth from a Bitcoin Core-style cookie file ("user:password",
	 * rewritten by the node at every start) when not NULL; excludes user
	 * and bearer.  Read before the first request and again after an HTTP
	 * 401, which is then retried like a transport error; a missing or
	 * unreadable file is retried too (the node may not be up yet). */
	const char *cookie_file;
	/* https://: a PEM file of the CA certificates trusted instead of the
	 * system's CA store (libcurl's CURLOPT_CAINFO, no CA directory);
	 * NULL: the system's.  Either way the certificate is checked, and
	 * its name against the URL's host; TLS 1.2 at least. */
	const char *ca_file;
	size_t max_response; /* bytes of one HTTP response body */
	/* Calls of one HTTP request: a longer batch goes in parts (below,
	 * "Batches that fit the node"); 0: no bound of ours. */
	size_t max_batch;
	unsigned timeout_ms; /* one attempt, connect to last byte */
	unsigned backoff_min_ms;
	unsigned backoff_max_ms;
	unsigned max_inflight; /* HTTP requests at once; the rest queue */
	/* A budget for a command that must end (hashjack verify, export):
	 * a request still failing after max_attempts attempts, or whose
	 * next attempt would start more than give_up_ms after its first,
	 * ends with HJ_RPC_ERR_FINAL ("gave up after N attempts in S s:
	 * <the last failure>").  0 for either: no such limit (the daemon
	 * retries forever). */
	unsigned max_attempts;
	unsigned give_up_ms;
	/* Called for every failed attempt that will be retried (for the
	 * daemon's log and metrics).  May be NULL. */
	void (*on_retry)(void *arg, const hj_rpc_retry *r);
	/* Called when a batch limit is learnt or changes.  May be NULL. */
	void (*on_limit)(void *arg, const hj_rpc_limit *l);
	void *arg;
	/* Called at the end of every attempt (for metrics): the request's
	 * method (a batch's first call's), how the attempt ended, and the time
	 * from its start to its answer's last byte, in microseconds (0 for an
	 * attempt that never went out).  It must not call the client.  May
	 * be NULL. */
	void (*observe)(void *arg, const char *method,
	                enum hj_rpc_outcome outcome, uint64_t us);
	void *observe_arg;
} hj_rpc_opts;

/* Defaults: 64 MiB, no max_batch, 30 s, 250 ms, 30 s, 4, no budget (0,
 * 0). */
void hj_rpc_opts_default(hj_rpc_opts *o);

/*
 * Called exactly once per request.  On success result is the response's
 * "result" (for a batch: an array of the results in request order,
 * whatever order the server answered in) and error is NULL; on a final
 * error result is NULL and error says why.  result is borrowed: valid
 * during the callback only (json_incref to keep it).
 */
typedef void (*hj_rpc_cb)(void *arg, json_t *result, const char *error);

/* Returns 0 with *out, or a negative errno with the reason in err and
 * *out NULL: -EINVAL for a bad URL or inconsistent options (basic and
 * bearer auth together, a password without a user, zero limits,
 * backoff_max_ms below backoff_min_ms, curl refusing an option), -ENOMEM
 * for no memory or curl failing to start.  hj_rpc_close(NULL) does
 * nothing. */
int hj_rpc_new(uv_loop_t *loop, const hj_rpc_opts *o, hj_rpc **out, char *err,
               size_t errlen);

/* One call.  params (an array or object, NULL for []) is stolen.  Returns 0,
 * -EINVAL (NULL method or cb, params neither array nor object) or -ENOMEM;
 * on error params are released and cb is never called. */
int hj_rpc_call(hj_rpc *c, const char *method, json_t *params, hj_rpc_cb cb,
                void *arg);

/*
 * Calls that must not be retried blindly (a wallet's sendmany) or whose
 * error answer the caller acts on (gettransaction of an unknown txid).
 *
 * HJ_RPC_NODE_ERRORS: a JSON-RPC error answer (in a 2xx body, or in the
 * body of any other status, as Bitcoin Core sends it with HTTP 500 or 404)
 * ends the call with kind HJ_RPC_ERR_NODE, the node's code and message.
 *
 * HJ_RPC_ONCE: at most one attempt reaches the node.  Failures that prove
 * the request was never executed are still retried as usual: no
 * connection could be made, the cookie file could not be read, HTTP 401
 * (authentication comes before execution).  Any other failure (a timeout,
 * a connection lost after the request went out, a 5xx without a JSON-RPC
 * error, a body that is not a valid answer) ends the call with kind
 * HJ_RPC_ERR_UNKNOWN: the node may or may not have executed it.
 */
#define HJ_RPC_NODE_ERRORS 0x1u
#define HJ_RPC_ONCE        0x2u

enum hj_rpc_err_kind {
	HJ_RPC_ERR_NODE = 1, /* the node answered with a JSON-RPC error */
	HJ_RPC_ERR_FINAL,    /* HTTP 4xx that retrying cannot fix */
	HJ_RPC_ERR_UNKNOWN,  /* HJ_RPC_ONCE: no valid answer; the call may
	                        or may not have been executed */
};

/* Borrowed by the callback: valid during the call only. */
typedef struct hj_rpc_error {
	enum hj_rpc_err_kind kind;
	long long code;      /* HJ_RPC_ERR_NODE: the error's code */
	const char *message; /* HJ_RPC_ERR_NODE: its message as sent (not
	                        quoted: may hold any character), else "" */
	const char *text;    /* one printable line: the method and what
	                        happened, for a log */
} hj_rpc_error;

/* Like hj_rpc_cb, with the error as a structure (NULL on success). */
typedef void (*hj_rpc_xcb)(void *arg, json_t *result,
                           const hj_rpc_error *error);

/*
 * One call with flags (above).  params (stolen) or params_text (borrowed,
 * copied): the JSON text of an array or object sent byte for byte, for
 * values jansson cannot carry exactly (an amount such as 0.00012345 must
 * reach the node as written: jansson keeps JSON reals as doubles).  At
 * most one of the two; both NULL sends [].  Returns 0, -EINVAL (NULL
 * method or cb, both params given, params neither array nor object,
 * params_text not the JSON text of one) or -ENOMEM; cb is then never
 * called.  Flags 0 behave as hj_rpc_call.
 */
int hj_rpc_call_x(hj_rpc *c, const char *method, json_t *params,
                  const char *params_text, unsigned flags, hj_rpc_xcb cb,
                  void *arg);

/*
 * Bitcoin Core's multiwallet endpoint: url with its path replaced by
 * "/wallet/" and the wallet name, percent-encoded (the node decodes the
 * whole rest of the path as the name, '/' included).  *out is the caller's
 * to free.  Returns 0, -EINVAL with err (a bad URL, an empty name) or
 * -ENOMEM.  The message never repeats the URL (it may hold a password).
 */
int hj_rpc_wallet_url(const char *url, const char *wallet, char **out,
                      char *err, size_t errlen);

/*
 * A batch of n calls; params[i] each stolen.  The callback gets every
 * result, in request order, or one error.
 *
 * Batches that fit the node: a batch is sent in parts of at most
 * max_batch calls, and of at most the limit learnt for its (first
 * call's) method.  A part the node or a proxy refuses as too many or too
 * large (a JSON-RPC error for the whole batch, but for a rate limit; a
 * call's error naming a size or batch limit, hj_rpc__limit_text in
 * rpc_answer.h; HTTP 400 or 413; an answer above max_response; an
 * answer cut short or no JSON; no whole answer within timeout_ms) is
 * sent again at once in smaller parts,
 * down to single calls (a plain request, not a batch of one), and the
 * method's limit is lowered to what works (on_limit).  After 32 whole
 * parts pass at the limit it grows by a quarter, never to the smallest
 * size refused until 1,024 more have passed.  A single call refused as
 * too large ends with HJ_RPC_ERR_FINAL (nothing smaller can be asked);
 * any other error retries the part alone.
 */
int hj_rpc_batch(hj_rpc *c, size_t n, const char *const *methods,
                 json_t *const *params, hj_rpc_cb cb, void *arg);

/* Requests not yet answered (queued, in flight or waiting to retry). */
size_t hj_rpc_pending(const hj_rpc *c);

/*
 * Drops every request (their callbacks are never called), closes every
 * handle and frees the client; done(arg) runs from the loop once all
 * handles are closed.  c must not be used after this call.
 */
void hj_rpc_close(hj_rpc *c, void (*done)(void *arg), void *arg);

/* For the client's tests (tests/test_rpc.c): answers being parsed on the
 * thread pool now (rpc.c, "Parsing"); nothing else calls it. */
unsigned hj_rpc__parsing(const hj_rpc *c);

#endif
