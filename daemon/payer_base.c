/*
 * The payer interface (payer.h) and the machinery both payers share
 * (payer_base.h).
 */
#include "payer_base.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "say.h"

#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 60000

void hjd_payer_base_init(hjd_payer *b, const struct hjd_payer_base_ops *ops,
                         const hjd_payer_opts *o)
{
	b->ops = ops;
	b->loop = o->loop;
	b->store = o->store;
	b->table = o->table;
	b->on_status = o->on_status;
	b->on_fatal = o->on_fatal;
	b->arg = o->arg;
	b->backoff_ms = BACKOFF_MIN_MS;
}

void hjd_payer_base_note(hjd_payer *b, int prio, const char *msg)
{
	size_t k = strnlen(msg, sizeof b->last_note - 1);

	if (strncmp(b->last_note, msg, sizeof b->last_note - 1) == 0)
		return;
	memcpy(b->last_note, msg, k);
	b->last_note[k] = '\0';
	hjd_log(prio, "%s", msg);
}

void hjd_payer_base_fatal(hjd_payer *b, const char *msg)
{
	b->busy = 0;
	b->closing = 1; /* the follower closes us; nothing more is done */
	b->on_fatal(b->arg, msg);
}

int hjd_payer_base_begin(hjd_payer *b, char *err, size_t errlen)
{
	if (hj_store_begin(b->store, err, errlen)) {
		hjd_payer_base_fatal(b, err);
		return -1;
	}
	return 0;
}

int hjd_payer_base_commit(hjd_payer *b, int rc, char *err, size_t errlen)
{
	if (rc == 0 && hj_store_commit(b->store, err, errlen) == 0)
		return 0;
	hj_store_rollback(b->store);
	hjd_payer_base_fatal(b, err);
	return -1;
}

void hjd_payer_base_backoff(hjd_payer *b)
{
	b->send_failures++;
	b->retry_at = uv_now(b->loop) + b->backoff_ms;
	b->failed_at_block = b->processed;
	b->backoff_ms = b->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS
	                                                   : b->backoff_ms * 2;
}

void hjd_payer_base_backoff_reset(hjd_payer *b)
{
	b->backoff_ms = BACKOFF_MIN_MS;
	b->retry_at = 0;
}

int hjd_payer_base_may_send(const hjd_payer *b)
{
	return !b->halted &&
	       (b->retry_at == 0 || uv_now(b->loop) >= b->retry_at ||
	        b->processed > b->failed_at_block);
}

hj_amount hjd_payer_base_exposure(const hjd_payer *b)
{
	return b->table ? hj_table_exposure(b->table) : 0;
}

int hjd_payer_base_caught_up(const hjd_payer *b)
{
	return b->processed >= b->final;
}

int hjd_payer_base_sweep_due(hjd_payer *b, uint64_t every,
                             hj_settle_totals *tot)
{
	char err[HJ_ERRLEN];
	uint64_t last;
	int found;

	if (b->halted || !b->have_balance || !hjd_payer_base_caught_up(b) ||
	    strncmp(b->warning, "INSUFFICIENT", 12) == 0)
		return 0;
	if (hj_store_last_sweep(b->store, &last, &found, err, sizeof err) ||
	    hj_store_settle_totals(b->store, tot, err, sizeof err)) {
		hjd_payer_base_fatal(b, err);
		return 0;
	}
	return !found || b->processed >= last + every;
}

int hjd_payer_base_sweep_record(hjd_payer *b, const hj_id *cold, hj_amount x)
{
	char err[HJ_ERRLEN], id[48];
	int rc;

	snprintf(id, sizeof id, "sweep:%" PRIu64, b->processed);
	hj_payout row = {.id = id,
	                 .kind = "sweep",
	                 .hand = -1,
	                 .recipient = cold,
	                 .amount = x,
	                 .height = b->processed};
	if (hjd_payer_base_begin(b, err, sizeof err))
		return -1;
	rc = hj_store_add_payout(b->store, &row, err, sizeof err);
	return hjd_payer_base_commit(b, rc, err, sizeof err) ? -1 : 0;
}

/* ---- passes and the timer ---- */

static void pass_start(hjd_payer *b)
{
	if (b->closing || !b->started)
		return;
	if (b->busy) {
		b->dirty = 1;
		return;
	}
	b->busy = 1;
	b->dirty = 0;
	uv_timer_stop(&b->timer);
	b->ops->run(b);
}

static void on_timer(uv_timer_t *t)
{
	hjd_payer *b = t->data;

	if (b->closing)
		return;
	if (!b->busy)
		pass_start(b);
	else if (b->ops->wake)
		b->ops->wake(b);
}

int hjd_payer_base_open(hjd_payer *b, const hj_rpc_opts *node, char *why,
                        size_t n)
{
	hj_rpc_opts ro = *node;

	ro.max_inflight = 1;
	if (hj_rpc_new(b->loop, &ro, &b->rpc, why, n) != 0)
		return -EINVAL;
	uv_timer_init(b->loop, &b->timer);
	b->timer.data = b;
	return 0;
}

void hjd_payer_base_timer(hjd_payer *b, uint64_t ms)
{
	uv_timer_start(&b->timer, on_timer, ms, 0);
}

void hjd_payer_base_pass_end(hjd_payer *b)
{
	char err[HJ_ERRLEN], line[sizeof b->summary];
	uint64_t now = uv_now(b->loop);
	int rc;

	b->passes++;
	if (b->have_balance) {
		if (hjd_payer_base_begin(b, err, sizeof err))
			return;
		rc = hj_store_set_balance(b->store, b->balance, b->tip,
		                          (int64_t)time(NULL), b->warning, err,
		                          sizeof err);
		if (hjd_payer_base_commit(b, rc, err, sizeof err))
			return;
	}
	b->busy = 0;
	/* The same line on stderr, when it changed: at most once a pass. */
	b->ops->status(b, line, sizeof line);
	if (strcmp(line, b->summary) != 0) {
		memcpy(b->summary, line, sizeof line);
		hjd_log(HJD_LOG_INFO, "%s", line);
	}
	b->on_status(b->arg);
	if (b->dirty)
		hjd_payer_base_timer(b, 0);
	else if (b->retry_at > now)
		hjd_payer_base_timer(b, b->retry_at - now);
}

/* ---- the interface: kick, status, close ---- */

void hjd_payer_kick(hjd_payer *b, uint64_t processed, uint64_t tip,
                    uint64_t final)
{
	if (b == NULL || b->closing)
		return;
	b->processed = processed;
	b->tip = tip;
	b->final = final;
	b->started = 1;
	pass_start(b);
}

void hjd_payer_status(const hjd_payer *b, char *buf, size_t n)
{
	b->ops->status(b, buf, n);
}

void hjd_payer_health(const hjd_payer *b, hjd_pay_health *out)
{
	out->halted = b->halted;
	out->insufficient = strncmp(b->warning, "INSUFFICIENT", 12) == 0;
	out->warning = b->warning;
	out->have_balance = b->have_balance;
	out->balance = b->balance;
	out->passes = b->passes;
	out->send_failures = b->send_failures;
	out->have_min = b->have_small_min;
	out->min = b->small_min;
	out->waiting_n = b->small_n;
	out->waiting_sum = b->small_sum;
}

static void on_closed_part(hjd_payer *b)
{
	void (*done)(void *);
	void *arg;

	if (--b->open_handles > 0)
		return;
	done = b->done;
	arg = b->done_arg;
	b->ops->release(b);
	if (done)
		done(arg);
}

static void on_rpc_closed(void *arg)
{
	on_closed_part(arg);
}

static void on_timer_closed(uv_handle_t *h)
{
	on_closed_part(h->data);
}

void hjd_payer_close(hjd_payer *b, void (*done)(void *arg), void *arg)
{
	if (b == NULL || b->open_handles > 0)
		return;
	b->closing = 1;
	b->done = done;
	b->done_arg = arg;
	b->open_handles = 2;
	hj_rpc_close(b->rpc, on_rpc_closed, b);
	uv_close((uv_handle_t *)&b->timer, on_timer_closed);
}
