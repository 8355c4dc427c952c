/* What hashjackd says of its node client (rpclog.h). */
#include "rpclog.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "log.h"

static uint64_t now_ms(void)
{
	return uv_hrtime() / 1000000u;
}

void hjd_rpclog_init(hjd_rpclog *l, hjd_metrics *m, uint64_t interval_ms)
{
	memset(l, 0, sizeof *l);
	l->metrics = m;
	l->interval_ms =
	    interval_ms ? interval_ms : HJD_RPCLOG_INTERVAL_S * 1000u;
	l->window_ms = now_ms();
}

/* The retries counted and not said yet, one line per cause; the next
 * retry of each cause is said in full again. */
static void flush(hjd_rpclog *l, uint64_t now)
{
	double s = (double)(now - l->window_ms) / 1000.0;

	for (int c = 0; c < HJ_RPC_CAUSES; c++) {
		if (l->cause[c].more)
			hjd_log(HJD_LOG_WARNING,
			        "node: %" PRIu64
			        " more retr%s (%s) in the last "
			        "%.0f s; the last: %s",
			        l->cause[c].more,
			        l->cause[c].more == 1 ? "y" : "ies",
			        hj_rpc_cause_name(c), s, l->cause[c].last);
		l->cause[c].more = 0;
		l->cause[c].said = 0;
	}
	l->window_ms = now;
}

/* a and b, digits aside (a port, a size, an attempt's time). */
static int same_reason(const char *a, const char *b)
{
	for (;;) {
		while (*a >= '0' && *a <= '9')
			a++;
		while (*b >= '0' && *b <= '9')
			b++;
		if (*a != *b)
			return 0;
		if (*a == '\0')
			return 1;
		a++;
		b++;
	}
}

void hjd_rpclog_retry(void *arg, const hj_rpc_retry *r)
{
	hjd_rpclog *l = arg;
	uint64_t now = now_ms();
	unsigned c = (unsigned)r->cause < HJ_RPC_CAUSES ? r->cause : 0;

	hjd_metrics_retry(l->metrics, r);
	if (l->failed++ == 0)
		l->trouble_ms = now;
	if (now - l->window_ms >= l->interval_ms)
		flush(l, now);
	if (!l->cause[c].said ||
	    !same_reason(r->why ? r->why : "", l->cause[c].said_why)) {
		l->cause[c].said = 1;
		snprintf(l->cause[c].said_why, sizeof l->cause[c].said_why,
		         "%s", r->why ? r->why : "");
		hjd_log(r->attempt >= 3 ? HJD_LOG_WARNING : HJD_LOG_INFO,
		        "node: %s (attempt %u); retrying in %u ms (more "
		        "failures of this kind are counted and said once a "
		        "minute)",
		        r->what, r->attempt, r->delay_ms);
		return;
	}
	l->cause[c].more++;
	snprintf(l->cause[c].last, sizeof l->cause[c].last, "%s (attempt %u)",
	         r->what, r->attempt);
}

void hjd_rpclog_limit(void *arg, const hj_rpc_limit *lim)
{
	hjd_rpclog *l = arg;

	hjd_metrics_limit(l->metrics, lim);
	if (lim->refused)
		hjd_log(HJD_LOG_WARNING,
		        "node: batches of %s now go in parts of at most %zu "
		        "call%s: the node or a proxy refused %zu at once (%s)",
		        lim->method, lim->limit, lim->limit == 1 ? "" : "s",
		        lim->refused, lim->why);
	else
		hjd_log(HJD_LOG_INFO,
		        "node: batches of %s back up to %zu calls a part",
		        lim->method, lim->limit);
}

void hjd_rpclog_observe(void *arg, const char *method, enum hj_rpc_outcome o,
                        uint64_t us)
{
	hjd_rpclog *l = arg;

	hjd_metrics_rpc(l->metrics, method, o, us);
	if (o != HJ_RPC_OK && o != HJ_RPC_ERROR)
		return;
	uint64_t now = now_ms();

	if (now - l->window_ms >= l->interval_ms)
		flush(l, now);
	if (l->failed == 0)
		return;
	/* An outage is said to be over; a failed attempt here and there
	 * (a rate limit's) is only counted. */
	if (l->failed >= HJD_RPCLOG_OUTAGE ||
	    now - l->trouble_ms >= l->interval_ms) {
		hjd_log(HJD_LOG_NOTICE,
		        "node: answering again, after %" PRIu64
		        " failed attempt%s in %.1f s",
		        l->failed, l->failed == 1 ? "" : "s",
		        (double)(now - l->trouble_ms) / 1000.0);
		/* What was counted is said now, and the next failure is
		 * news: said in full. */
		flush(l, now);
	}
	l->failed = 0;
}
