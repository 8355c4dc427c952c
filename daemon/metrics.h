/*
 * hashjackd's metrics and health (docs/OPERATION.md, "Metrics and
 * health"): counters the daemon keeps as it goes, and, on a listener of
 * its own ([metrics] listen, off by default), /metrics in Prometheus text
 * and /healthz (200 or 503 with the reasons), both read-only.
 *
 * Counting costs a few additions: the follower counts blocks, transactions,
 * events and timings; every node client counts its attempts through
 * hj_rpc_opts.observe (hjd_metrics_rpc) and its retries (hjd_metrics_retry).
 * What is a state rather than a count (heights, the tip, open rounds, the
 * payouts' totals, the payer's condition) is asked for at each scrape
 * through the snapshot callback, so a scrape always sees the present.
 *
 * Everything runs on the daemon's loop; a NULL hjd_metrics is fine for
 * every counting call (nothing is counted).
 */
#ifndef HJD_METRICS_H
#define HJD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "amount.h"
#include "committer.h"
#include "payer.h"
#include "round.h"
#include "rpc.h"
#include "store.h"

typedef struct hjd_metrics hjd_metrics;

/* What a scrape shows that is not a count: filled by the snapshot
 * callback, strings borrowed until it is called again. */
typedef struct hjd_metrics_snap {
	int have_tip;        /* the node answered a tip */
	uint64_t tip;        /* its highest block */
	uint64_t final_tip;  /* the highest block final by the
	                        configuration (tip - confirmations + 1) */
	int have_height;     /* a block was processed (or the state had
	                        one) */
	uint64_t height;     /* the last block processed */
	uint64_t lag_blocks; /* final blocks not processed yet */
	double lag_seconds;  /* how long the oldest of them has waited
	                        since the daemon saw it final; 0: none */
	size_t open_rounds;
	hj_amount exposure; /* the open rounds' worst-case returns */
	int have_totals;    /* the store's payout totals were read */
	hj_payout_totals totals;
	int have_payer; /* payouts are sent (else only recorded) */
	hjd_pay_health pay;
	int committed;          /* cards = committed: seeds is set */
	hjd_seeds_health seeds; /* committer.h */
	int stopping;
	/* Said in /healthz's "warnings" without making it 503 (the node's
	 * finalized or safe block is its tip); NULL when none. */
	const char *warning;
} hjd_metrics_snap;

typedef void (*hjd_metrics_snap_fn)(void *arg, hjd_metrics_snap *out);

/* Returns 0 with *out, or -ENOMEM and *out NULL.  max_lag: /healthz is
 * 503 while more final blocks than this wait. */
int hjd_metrics_new(unsigned max_lag, hjd_metrics **out);

/* Closes the listener if any, then frees m and calls done(arg) from the
 * loop (at once when there is no listener).  NULL is fine. */
void hjd_metrics_close(hjd_metrics *m, void (*done)(void *arg), void *arg);

/* ---- counting ---- */

/* A block dealt (and its line written): its transactions to the dealer,
 * and the time that took. */
void hjd_metrics_block(hjd_metrics *m, size_t txs, double seconds);
/* An event of the engine (accepted and rejected actions by reason,
 * deposits, timeouts, settlements). */
void hjd_metrics_event(hjd_metrics *m, const hj_event *ev);
/* A batch committed (the store's transaction and the log's sync). */
void hjd_metrics_commit(hjd_metrics *m, double seconds);
/* hj_rpc_opts.observe: arg is the hjd_metrics (or NULL). */
void hjd_metrics_rpc(void *m, const char *method, enum hj_rpc_outcome o,
                     uint64_t us);
/* A node request failed and is retried (hj_rpc_opts.on_retry's): counted
 * by cause, and kept as the node's trouble, with since when, until an
 * attempt succeeds. */
void hjd_metrics_retry(hjd_metrics *m, const hj_rpc_retry *r);
/* A batch limit learnt or changed (hj_rpc_opts.on_limit's). */
void hjd_metrics_limit(hjd_metrics *m, const hj_rpc_limit *l);

/* ---- serving ---- */

/* Listens on host:port (0: any free port, *bound says which) for
 * /metrics and /healthz; snap is asked at each request.  Returns 0, or a
 * negative libuv error with err. */
int hjd_metrics_listen(hjd_metrics *m, uv_loop_t *loop, const char *host,
                       unsigned port, hjd_metrics_snap_fn snap, void *arg,
                       unsigned *bound, char *err, size_t errlen);

/* The same handler on a server that does not listen (the fuzz target
 * feeds it connections with hj_server_fake): *out, freed with m.
 * Returns 0 or UV_ENOMEM. */
struct hj_server;
int hjd_metrics_serve(hjd_metrics *m, uv_loop_t *loop, hjd_metrics_snap_fn snap,
                      void *arg, struct hj_server **out);

/* The /metrics page and the /healthz answer for s (for the listener and
 * the tests): *out (caller frees), *len.  hjd_metrics_text returns 0, or
 * -1 when out of memory; hjd_metrics_health returns the status, 200 or
 * 503 ({"ok":...,"reasons":[...],...,"warnings":[...]}, the warnings only
 * when there is one: they never make it 503), or -1 when out of
 * memory. */
int hjd_metrics_text(const hjd_metrics *m, const hjd_metrics_snap *s,
                     char **out, size_t *len);
int hjd_metrics_health(const hjd_metrics *m, const hjd_metrics_snap *s,
                       char **out, size_t *len);

#endif
