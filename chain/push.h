/*
 * Push wake-up: "the node probably has a new block", as soon as it says
 * so, on the caller's libuv loop.  Only a hint: the caller still polls
 * the tip, and still fetches every block by height with its parent
 * checked, so a missed or false wake costs latency, never a block.
 *
 * Two kinds, one per family: a backend's push() (backend.h) opens its
 * family's, so that the daemon never names a kind:
 *
 *  - EVM: a WebSocket to the node (wsclient.h), `eth_subscribe
 *    ["newHeads"]`, and each `eth_subscription` notification of that
 *    subscription wakes.  anvil serves WebSocket on its HTTP port; geth
 *    on a port of its own (--ws.port).  No credentials are sent.
 *  - Bitcoin family: `getbestblockhash`, then `waitfornewblock <wait_ms>`
 *    over and over, on a JSON-RPC client of its own (rpc.h: its own
 *    connection, the caller's credentials, a timeout wait_ms + 10 s);
 *    each answer whose hash is not the last one seen wakes.  (Debian's
 *    litecoind has no ZMQ.)  The long poll holds one of the node's RPC
 *    threads (Bitcoin Core's -rpcthreads, 4 by default) all the time.
 *
 * A session (one connection, one subscription) that fails in any way (no
 * connection, a refused handshake, an error answer, an answer that is not
 * what was asked, no answer within the deadline, a closed connection) is
 * dropped and a new one started after a backoff: backoff_min_ms, doubling
 * up to backoff_max_ms; it starts again from backoff_min_ms only after a
 * session that stayed up for backoff_max_ms at least, so a node that
 * accepts and drops at once is not hammered.
 *
 * The module never logs: state() says when push is up (the subscription
 * is answered, or the first long poll's block hash is known) and when it
 * is lost, each once per change; the caller logs.  Every time push comes
 * up it also wakes (a block may have come while it was down).
 */
#ifndef HJ_PUSH_H
#define HJ_PUSH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "rpc.h"

typedef struct hj_push hj_push;

enum hj_push_kind {
	HJ_PUSH_EVM = 1, /* WebSocket, eth_subscribe newHeads */
	HJ_PUSH_BTC,     /* JSON-RPC long poll, waitfornewblock */
};

/* Defaults and bounds. */
/* waitfornewblock's timeout.  Short, since the node cannot be told to
 * stop waiting: a client that goes away leaves its long poll holding one
 * of the node's RPC threads until this much time has passed. */
#define HJ_PUSH_WAIT_MS     10000
#define HJ_PUSH_ANSWER_MS   10000   /* the subscription's answer */
#define HJ_PUSH_BACKOFF_MIN 250     /* ms */
#define HJ_PUSH_BACKOFF_MAX 30000   /* ms */
#define HJ_PUSH_MAX_MESSAGE 1048576 /* one WebSocket message, bytes */
#define HJ_PUSH_MAX_SUB     128     /* a subscription id, characters */

typedef struct hj_push_opts {
	uv_loop_t *loop;
	enum hj_push_kind kind;
	/* EVM: ws://HOST[:PORT][/PATH] or wss://... (wsclient.h).
	 * Bitcoin family: unused, the URL is rpc->url. */
	const char *url;
	/* EVM, wss://: a PEM file of the CA certificates trusted instead of
	 * the system's CA store (NULL: the system's).  The Bitcoin family's
	 * is rpc->ca_file. */
	const char *ca_file;
	/* Bitcoin family: the node's client options (URL, credentials,
	 * max_response); timeout_ms, max_inflight, backoff and on_retry
	 * are the module's.  Borrowed, strings too, until the end. */
	const hj_rpc_opts *rpc;
	unsigned wait_ms;        /* 0: HJ_PUSH_WAIT_MS */
	unsigned answer_ms;      /* EVM, the subscription's answer; 0:
	                            HJ_PUSH_ANSWER_MS */
	unsigned backoff_min_ms; /* 0: HJ_PUSH_BACKOFF_MIN */
	unsigned backoff_max_ms; /* 0: HJ_PUSH_BACKOFF_MAX */
	/* The node probably has a new block. */
	void (*wake)(void *arg);
	/* up 1: push works (why NULL); up 0: it does not, why one printable
	 * line (borrowed for the call).  Called on each change only; the
	 * first call is either. */
	void (*state)(void *arg, int up, const char *why);
	void *arg;
} hj_push_opts;

/*
 * Starts the first session at once.  Returns 0 with *out, or -EINVAL
 * (no loop, no wake, an unknown kind, no URL, wait_ms above 24 h,
 * backoff_max_ms below backoff_min_ms) / -ENOMEM with err.  A URL or a
 * CA file that the session cannot use is a failed session, said by
 * state().
 * Callbacks come from the loop only, never from within this call.
 */
int hj_push_new(const hj_push_opts *o, hj_push **out, char *err, size_t errlen);

/*
 * Drops the session (its requests, its connection: no closing handshake
 * waited for) and the timers; no
 * callback after this call; done(arg) runs from the loop once every
 * handle is closed (may be NULL).  p must not be used after.  NULL:
 * nothing.
 */
void hj_push_close(hj_push *p, void (*done)(void *arg), void *arg);

/* ---- the readers of the node's answers: push.c, its tests and
 * fuzz/fuzz_push.c ---- */

enum hj_push_msg {
	HJ_PUSH_IGNORED = 0, /* not ours, or not JSON-RPC: nothing to do */
	HJ_PUSH_SUBSCRIBED,  /* the answer to eth_subscribe: its id */
	HJ_PUSH_REFUSED,     /* the answer to eth_subscribe, an error or no
	                        usable id: why */
	HJ_PUSH_HEAD,        /* a notification of subscription sub */
};

/* The id of the eth_subscribe request (the only request sent). */
#define HJ_PUSH_SUBSCRIBE_ID 1

/*
 * What a WebSocket message from an EVM node, text[0..len), means: the
 * answer to request HJ_PUSH_SUBSCRIBE_ID ({"id":1,"result":"0x..."}: out
 * gets the subscription id, 1 to HJ_PUSH_MAX_SUB printable ASCII
 * characters; {"id":1,"error":{...}} or any other result: REFUSED, out
 * gets one printable line saying why), or a notification
 * {"method":"eth_subscription","params":{"subscription":sub,"result":
 * {...}}} of the subscription sub (not empty): HEAD.  Anything else,
 * text that is not JSON included: IGNORED.  out (outlen >= 1) is always
 * NUL-terminated.
 */
enum hj_push_msg hj_push__evm_read(const char *text, size_t len,
                                   const char *sub, char *out, size_t outlen);

/*
 * The block hash of the answer of getbestblockhash (a string) or of
 * waitfornewblock ({"hash": ..., "height": ...}): 64 hex digits, written
 * in lower case to out with a NUL.  Returns 0, or -1 when result is
 * neither (borrowed).
 */
int hj_push__btc_read(const json_t *result, char out[65]);

#endif
