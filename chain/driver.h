/*
 * The block driver: a backend (backend.h) asked for blocks by height, in
 * batches, handed to the caller strictly in height order, on the caller's
 * libuv loop.  What hashjackd's follower, `hashjack export` and `hashjack
 * verify` share:
 *
 *  - Heights from `from` on, up to what the caller wants (end, exclusive,
 *    raised as it goes) and, never beyond, what the node's answers allow:
 *    its final blocks (tip - confirmations + 1, or the node's block of the
 *    tag `finalized` or `safe` through the backend's final()), or, with
 *    upto_tip, its tip.  Either bound is the highest any answer gave: a
 *    node whose tip goes back is said (back), not followed down.
 *  - At most `depth` batches asked and not answered yet (or waiting to be
 *    asked again), at most `hold` held in all (those, and batches come
 *    ahead of their turn); `batch` blocks per request.
 *  - The head batch is handed over as the backend lends it; a batch come
 *    ahead of its turn is kept as hj_chain_blocks_copy keeps it (its
 *    txs, not keep_all's `all`: a keep_all caller uses depth 1).
 *  - An answer shorter than asked: its blocks are taken, the rest asked
 *    again at once in a batch of its own.  No block at all, an error, or
 *    a block of another height than asked: the batch failed.  A failed
 *    batch is asked again after retry_min_ms, doubling to retry_max_ms
 *    from one round of retries to the next, back to retry_min_ms after
 *    any answer; or, with retry_min_ms 0, the driver gives up.
 *  - One tip request at a time: asked while one is out, it is asked once
 *    more when that one is answered (wakes coalesced).  Once started, the
 *    tip is asked every poll_ms (none while one is out), caught up or
 *    not: a node failing the batches out still gives its tip.
 *
 * The driver never logs and reads nothing from outside (the backend
 * does): it reports through callbacks, each with its arg, and the
 * caller says it in its own words.  Every callback may call
 * hj_driver_close (no callback after it) or any other hj_driver_ function.
 * Nothing blocks, and nothing is bounded by trust: a batch held is at
 * most `batch` blocks, the driver holds at most `hold` + 1 batches (a
 * short answer's rest may pass `hold` by one), one tip request.
 *
 * Life:
 *
 *	hj_driver_new(&opts, &d);
 *	hj_driver_ask_tip(d);                  tip() or final(), then
 *	hj_driver_start(d, from, end);         when the caller knows from
 *	...                                    blocks, failed, tip, back,
 *	                                       idle, fatal from the loop
 *	hj_driver_close(d);                    no callback after this
 *	hj_rpc_close(...)  ->  done:           the backend cannot call back
 *	hj_driver_free(d);                     freed once its timers close
 */
#ifndef HJ_DRIVER_H
#define HJ_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "backend.h"

typedef struct hj_driver hj_driver;

/* A tip answer, as the tip callback gets it (borrowed for the call). */
typedef struct hj_driver_tip {
	uint64_t tip;   /* the node's tip */
	int has_final;  /* a block is final: */
	uint64_t final; /* the last one by this answer (tip - confirmations
	                   + 1, or the tag's block); 0 when none */
	uint64_t end;   /* the first height the driver does not fetch yet:
	                   the highest final + 1 (upto_tip: tip + 1) of every
	                   answer so far; 0 while none gave a block */
} hj_driver_tip;

typedef struct hj_driver_opts {
	uv_loop_t *loop;
	hj_backend *be;         /* borrowed: outlives the driver */
	hj_finality finality;   /* HJ_FINALITY_DEPTH, or a tag: the
	                           backend's final() (tip() for depth) */
	unsigned confirmations; /* HJ_FINALITY_DEPTH: final at this depth
	                           (0 counts as 1) */
	int upto_tip;           /* 1: fetch up to the node's tip, the
	                           caller's end bounding what it wants;
	                           0: final blocks only */
	size_t batch;           /* blocks per request, >= 1 */
	unsigned depth;         /* batches asked or waiting to be, >= 1 */
	unsigned hold;          /* batches held, >= depth */
	unsigned retry_min_ms;  /* 0: give up at the first failure */
	unsigned retry_max_ms;  /* >= retry_min_ms */
	unsigned poll_ms;       /* started: the tip after this; 0 never */

	/* blocks[0..n): the next heights, in order; borrowed for the
	 * call. */
	void (*blocks)(void *arg, hj_chain_block *blocks, size_t n);
	/* Batch from .. from + n - 1 failed: error (one line), NULL when
	 * the node gave no block of it; asked again in delay_ms, or, with
	 * delay_ms 0, given up: no callback follows (the caller ends the
	 * run). */
	void (*failed)(void *arg, uint64_t from, size_t n, const char *error,
	               unsigned delay_ms);
	/* A tip answer: t, or error (t NULL).  The driver then asks what
	 * it allows.  May be NULL. */
	void (*tip)(void *arg, const hj_driver_tip *t, const char *error);
	/* The node's tip (tag NULL) or its block of tag ("finalized",
	 * "safe") is below its last answer's: from, to.  Before tip().  May
	 * be NULL. */
	void (*back)(void *arg, const char *tag, uint64_t from, uint64_t to);
	/* Caught up: every block wanted and allowed was handed over, none
	 * is held (once a tip answer came and hj_driver_start was called;
	 * again after every answer or call that leaves it so).  May be
	 * NULL. */
	void (*idle)(void *arg);
	/* The driver could not go on (-ENOMEM, or the backend refused a
	 * request: its error); it does nothing more.  Called once. */
	void (*fatal)(void *arg, int err);
	void *arg;
} hj_driver_opts;

/* 0 with *out, or -EINVAL (no loop, backend or blocks, failed or fatal
 * callback; batch, depth 0; hold below depth; retry_max_ms below
 * retry_min_ms; a finality that is no tag) or -ENOMEM. */
int hj_driver_new(const hj_driver_opts *o, hj_driver **out);

/* Asks the node's tip (and final block, with a tag): the tip callback
 * follows from the loop.  While one request is out, it is asked once more
 * when that one is answered.  0, -EINVAL (a tag on a backend without
 * final()), -ECANCELED (closed, gave up, fatal) or the backend's error;
 * no callback then. */
int hj_driver_ask_tip(hj_driver *d);

/* Fetching starts at from, for heights below end (raised by
 * hj_driver_want).  Once.  Asks at once what the tip allows, so that
 * idle or fatal may be called before it returns.  0, -EALREADY, or
 * -ECANCELED (as above). */
int hj_driver_start(hj_driver *d, uint64_t from, uint64_t end);

/* Heights below end are wanted (never lowered: a lower end does
 * nothing); asked at once as far as the bounds allow. */
void hj_driver_want(hj_driver *d, uint64_t end);

/* 1 when another batch would be asked at once (fewer than depth asked,
 * fewer than hold held, and neither closed nor given up). */
int hj_driver_room(const hj_driver *d);

/* Batches held: asked, waiting to be asked again, or come ahead of their
 * turn. */
size_t hj_driver_held(const hj_driver *d);

/* The first height not handed over yet (from before any). */
uint64_t hj_driver_next(const hj_driver *d);

/* No callback after this, no request; the timers close on the loop.
 * Requests out stay the backend's.  Later calls do nothing.  NULL is
 * fine. */
void hj_driver_close(hj_driver *d);

/* Once the backend can no longer call back (its RPC client closed):
 * closes d if still open and frees it, at once or, if its timers are not
 * closed yet, from the loop.  NULL is fine. */
void hj_driver_free(hj_driver *d);

#endif
