/*
 * What hashjackd says of its node client (rpclog.c): each failed attempt
 * counted by the metrics; its log kept short on a flaky or rate-limiting
 * endpoint (docs/OPERATION.md, "A hosted endpoint's limits").  The first retry
 * of a cause is said in full at once; later ones of that cause are counted and
 * said as one line per interval ("node: 57 more retries (rate_limited) in
 * the last 60 s; the last: ..."); once the node answers again after an
 * outage (HJD_RPCLOG_OUTAGE failed attempts in a row, or an interval's
 * worth), that is said with how long it lasted, and the next failure is
 * said in full again.  A batch limit is said when it changes.
 */
#ifndef HJD_RPCLOG_H
#define HJD_RPCLOG_H

#include <stdint.h>

#include "metrics.h"
#include "rpc.h"
#include "say.h"

/* Seconds between two summary lines of one cause. */
#define HJD_RPCLOG_INTERVAL_S 60
/* Failed attempts in a row that make an outage. */
#define HJD_RPCLOG_OUTAGE 3

typedef struct hjd_rpclog {
	hjd_metrics *metrics; /* NULL: no metrics */
	uint64_t interval_ms;
	uint64_t window_ms;  /* when the current interval began */
	uint64_t trouble_ms; /* the first failure since the last success */
	uint64_t failed;     /* attempts failed since the last success */
	struct {
		int said;      /* its first retry of the interval was said */
		uint64_t more; /* retries of it counted, not said */
		char last[HJ_ERRLEN];
		char said_why[HJ_ERRLEN]; /* the reason said last */
	} cause[HJ_RPC_CAUSES];
} hjd_rpclog;

/* interval_ms 0: HJD_RPCLOG_INTERVAL_S. */
void hjd_rpclog_init(hjd_rpclog *l, hjd_metrics *m, uint64_t interval_ms);

/* hj_rpc_opts.on_retry, .on_limit and .observe, with the hjd_rpclog as
 * their argument (observe also feeds the metrics). */
void hjd_rpclog_retry(void *l, const hj_rpc_retry *r);
void hjd_rpclog_limit(void *l, const hj_rpc_limit *lim);
void hjd_rpclog_observe(void *l, const char *method, enum hj_rpc_outcome o,
                        uint64_t us);

#endif
