/*
 * What a node's HTTP answer is, as JSON-RPC (rpc_answer.c): pure, below
 * both the queue (rpc.c, which checks a 2xx body) and the transport
 * (rpc_http.c, which keeps a body as it arrives and checks a node's error
 * answer sent with another status).  The tests (tests/test_rpc.c) and the
 * fuzz target (fuzz/fuzz_rpc.c) call it too; nothing else does.
 */
#ifndef HJ_RPC_ANSWER_H
#define HJ_RPC_ANSWER_H

#include <jansson.h>
#include <stddef.h>

/* A response body as it arrives in pieces (hj_rpc__keep).  The caller sets
 * the first four fields before the first piece, with the rest zero, and
 * frees buf (hj_rpc__body_release). */
typedef struct hj_rpc__body {
	long status;         /* the answer's HTTP status */
	long long announced; /* its Content-Length, -1 when not sent */
	size_t max;          /* a 2xx body's limit (max_response), >= 1 */
	size_t other;        /* bytes kept of another status's body */
	char *buf;           /* what is kept; NULL before the first piece */
	size_t len, cap;     /* bytes kept, bytes allocated */
	int started;         /* the first piece came */
	int too_big;         /* a 2xx body longer than max */
} hj_rpc__body;

/*
 * Keeps the next piece of body b, p[0..n): every byte of a 2xx body, up to
 * b->max in all: a byte more, or a Content-Length above b->max at the
 * first piece, sets too_big and keeps nothing more.  Of another status's
 * body, the first b->other bytes; the rest is dropped.  Memory grows by
 * doubling from the announced length or 16 KiB and never passes b->max
 * (for another status it is b->other).  Returns n, or 0 when the transfer
 * must be aborted (too big, out of memory).
 */
size_t hj_rpc__keep(hj_rpc__body *b, const char *p, size_t n);

/* Frees what hj_rpc__keep kept: b holds nothing again (its limits stay). */
void hj_rpc__body_release(hj_rpc__body *b);

/* Why an answer was not taken (hj_rpc__answer's *why). */
enum hj_rpc__why {
	HJ_RPC__ANS_OK = 0,
	HJ_RPC__ANS_BAD,   /* not a valid answer to the request */
	HJ_RPC__ANS_NODE,  /* a JSON-RPC error the node gave a call */
	HJ_RPC__ANS_LIMIT, /* a refusal a smaller batch may not get: the
	                      batch refused as a whole (but for a rate
	                      limit), or a call's error that names a size
	                      or batch limit (hj_rpc__limit_text) */
	HJ_RPC__ANS_CUT,   /* a batch's answer that is no JSON: cut short
	                      by a proxy, most likely */
};

/*
 * 1 when a node's or a proxy's error message (any case) names a limit on
 * a request's or an answer's size or on a batch ("batch size too large,
 * max 10", "batch too large", "response too large", "batch limit
 * exceeded"), and not a rate ("rate limit exceeded", "too many requests",
 * "compute units per second"): asking less at once helps the first kind,
 * waiting the second.  NULL is 0.
 */
int hj_rpc__limit_text(const char *s);

/*
 * What the body of an answer, body[0..len) (body may be NULL when len is
 * 0), says about a request of n calls with ids id0 .. id0 + n - 1: batch
 * (even with n == 1): a JSON array holding exactly one valid answer for
 * each id, in any order; else one object for id0.  An answer is valid as
 * docs/RPC.md says: an object with "jsonrpc" absent or "2.0", the id as a
 * JSON integer, "error" absent or null, and a "result" (null included).
 * Returns 0 with *result a new reference (for a batch, a new array of the
 * n results in request order), or -1 with *result NULL, the reason in
 * msg, one printable line, and in *why (HJ_RPC__ANS_OK on success).  When
 * error is not NULL, *error is set for a single call whose answer is valid
 * but for its "error" member: a new reference to that member (the node
 * refused the call); else NULL.
 * The client calls it with n >= 1 and 1 <= id0 <= id0 + n - 1 <= INT64_MAX.
 */
int hj_rpc__answer(const char *body, size_t len, json_int_t id0, size_t n,
                   int batch, json_t **result, json_t **error,
                   enum hj_rpc__why *why, char *msg, size_t msglen);

#endif
