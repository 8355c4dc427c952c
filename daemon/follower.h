/*
 * The dealer proper: follows the chain through a backend, deals every final
 * block with the engine (deal.h), writes the card log and commits the
 * state, on one libuv loop; kicks the payer after every commit.  See
 * docs/OPERATION.md.
 *
 * hashjackd.c builds what the follower is given (the store, the table, the
 * node's client and backend, the payer) and handles signals; the follower
 * only follows:
 *
 *	hjd_follower_new(&opts, &f);          takes the client and backend
 *	hjd_follower_set_payer(f, payer);     optional; takes the payer
 *	hjd_follower_start(f);
 *	uv_run(loop, ...);                    until the follower stops
 *	code = hjd_follower_exit_code(f);
 *	hjd_follower_free(f);
 *
 * The follower stops by hjd_follower_stop, or by itself on a fatal
 * condition; it then closes everything it holds and calls its on_stop, so
 * that its caller closes what else keeps the loop alive, and the loop
 * ends.
 */
#ifndef HJD_FOLLOWER_H
#define HJD_FOLLOWER_H

#include <uv.h>

#include "backend.h"
#include "checkpoint.h"
#include "config.h"
#include "metrics.h"
#include "payer.h"
#include "rpc.h"
#include "store.h"
#include "table.h"

/* Exit statuses besides 0. */
#define HJD_EXIT_FAILURE 1 /* state, log or node trouble; see stderr */
#define HJD_EXIT_REORG                                                         \
	3                   /* reorganisation deeper than confirmations, or    \
	                      of a block the node called finalized (safe) */
#define HJD_EXIT_MISMATCH 4 /* state belongs to another chain/dealer/rules */
#define HJD_EXIT_CONFIG                                                        \
	78 /* EX_CONFIG: also the dealer address does not                      \
	      fit the node's network */

/* Batches of blocks the follower keeps in flight, and the requests it may
 * have in flight in all (one more: the tip); the node's client is made
 * with max_inflight HJD_FOLLOWER_INFLIGHT.  HJD_FOLLOWER_HOLD: batches
 * held at once, those in flight and those come ahead of their turn
 * (chain/driver.h). */
#define HJD_FOLLOWER_DEPTH    3
#define HJD_FOLLOWER_INFLIGHT (HJD_FOLLOWER_DEPTH + 1)
#define HJD_FOLLOWER_HOLD     (2 * HJD_FOLLOWER_DEPTH)

typedef struct hjd_follower hjd_follower;

typedef struct hjd_follower_opts {
	uv_loop_t *loop;
	const hj_config *cfg; /* borrowed: confirmations, polling, batch
	                          size, start height, card log, rules */
	hj_store *store;      /* borrowed */
	hj_table *table;      /* borrowed: the rules', empty or restored by
	                         the follower from the store */
	hj_rpc *rpc;          /* taken: closed when the follower stops */
	hj_backend *be;       /* taken: over rpc, freed once it is closed */
	hjd_metrics *metrics; /* borrowed, may be NULL: what it counts */
	/* Borrowed, may be NULL: told what each commit wrote. */
	hjd_checkpoint *checkpoint;
	/* Called once when the follower starts to stop, with arg: the
	 * moment to close what else keeps the loop alive (the signals).
	 * May be NULL. */
	void (*on_stop)(void *arg);
	/* Called once when the follower has caught up and starts following
	 * the tip, with arg: the moment to start what only helps at the tip
	 * (the push wake-up).  May be NULL. */
	void (*on_following)(void *arg);
	void *arg;
} hjd_follower_opts;

/* Returns 0 with *out, or a negative errno and *out NULL (nothing taken
 * then): -ENOMEM, or hj_driver_new's error for options it refuses. */
int hjd_follower_new(const hjd_follower_opts *o, hjd_follower **out);

/* Takes p: kicked after every commit once the state is known to be this
 * chain's, closed when the follower stops.  Its on_status and on_fatal
 * are hjd_follower_payer_status and hjd_follower_payer_fatal with the
 * follower as their argument. */
void hjd_follower_set_payer(hjd_follower *f, hjd_payer *p);
void hjd_follower_payer_status(void *follower);
void hjd_follower_payer_fatal(void *follower, const char *msg);

/* Asks the node who it is; the rest follows on the loop. */
void hjd_follower_start(hjd_follower *f);

/* Stops after the block in hand (cause, e.g. "SIGTERM", is logged): exit
 * status 0.  hjd_follower_fail stops with code instead.  Later calls do
 * nothing. */
void hjd_follower_stop(hjd_follower *f, const char *cause);
void hjd_follower_fail(hjd_follower *f, int code);

/* The node probably has a new block (hashjackd's push wake-up): asks its
 * tip at once, unless a tip request is out already (then once more when
 * it is answered); before the follower has caught up, nothing.  The poll
 * timer is not moved: it still asks every poll_interval. */
void hjd_follower_wake(hjd_follower *f);

/* Continues the card log in a new file at its configured path (SIGHUP,
 * after logrotate moved it). */
void hjd_follower_reopen_log(hjd_follower *f);

/* After the loop ended: 0 after hjd_follower_stop, else why it stopped. */
int hjd_follower_exit_code(const hjd_follower *f);

/* After the loop ended.  NULL is fine. */
void hjd_follower_free(hjd_follower *f);

/* hjd_metrics_snap_fn: the heights, the lag, the open rounds, the store's
 * payout totals and the payer's condition, now (arg: the follower). */
void hjd_follower_snapshot(void *follower, hjd_metrics_snap *out);

#endif
