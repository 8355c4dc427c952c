/*
 * Following the chain: fetch -> deal -> commit.
 *
 * The blocks come from the block driver (chain/driver.h): final heights
 * only, up to tip - confirmations + 1, or with [chain] confirmations =
 * finalized or safe up to the node's own final block of that tag (the
 * backend's final()), HJD_FOLLOWER_DEPTH batches in flight, failed ones
 * asked again with backoff, the tip polled every poll_interval_ms
 * (catching up too: the lag stays true while a node fails) and asked at
 * once on a wake.  The driver hands them over strictly in height order,
 * and here they are applied: parent hash checked, each
 * block dealt by hj_deal_block (the same step as `hashjack replay`), whose
 * events also reach effects_sink here: the rows hj_effects_of says each leaves
 * are written to the store.  The lines are appended to the card log, and
 * the batch's effects, the open rounds and the cursor committed in one
 * SQLite transaction.  Everything runs in loop callbacks, so a stop is
 * handled between two batches: the block in hand is always finished.
 *
 * Any failure after the engine has moved on (a store or log write) is
 * fatal: the process exits and a restart resumes from the last commit,
 * cutting the card log back to it.
 *
 * The payer, when there is one, is kicked after every commit: the payouts
 * a committed batch created are final (their blocks are), so they may be
 * paid at once.  Kicks start only once the state was checked to be this
 * chain's (on_identity) and the tip is known.
 *
 * What the follower is given (the store, the table, the node's client and
 * backend, the payer) is built by hashjackd.c, which also handles signals.
 */
#include "follower.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "committer.h"
#include "deal.h"
#include "driver.h"
#include "effects.h"
#include "hex.h"
#include "log.h"
#include "logfile.h"
#include "notify.h"
#include "say.h"

/* A failed batch is asked again after RETRY_MIN_MS, doubling to
 * RETRY_MAX_MS; the node's identity and its first tip every RETRY_MAX_MS. */
#define RETRY_MIN_MS 250
#define RETRY_MAX_MS 10000

struct hjd_follower {
	const hj_config *cfg;
	uv_loop_t *loop;
	hj_rpc *rpc;          /* owned: closed at stop */
	hj_backend *be;       /* owned: freed once rpc is closed */
	hj_driver *drv;       /* owned: over be, freed with it */
	hj_store *store;      /* borrowed */
	hj_table *table;      /* borrowed */
	hjd_payer *payer;     /* owned, NULL when payouts are only recorded */
	hjd_metrics *metrics; /* borrowed, may be NULL */
	hjd_checkpoint *checkpoint; /* borrowed, may be NULL */
	hjd_committer *committer;   /* owned under cards = committed, else
	                               NULL */
	int payer_ready; /* the state is this chain's: paying may start */
	hjd_logfile log;
	hj_cardlog cl;
	hj_cursor cur;
	int have_parent; /* cur.hash is a real block's hash */
	int have_cursor; /* cur is the store's: first start or resume done */

	uint64_t tip, target; /* target: first height not yet final */
	uint64_t final;       /* the last final height the node's last
	                         answer gives (the payer's) */
	int have_tip;

	uv_timer_t retry; /* the identity and the first tip, asked again */
	int ready_sent, stopping, exit_code;
	void (*on_stop)(void *arg);
	void (*on_following)(void *arg);
	void *arg;          /* on_stop's and on_following's */
	uint64_t status_at; /* loop time of the last STATUS= */
	/* Loop time since which a final block waits to be processed; 0 while
	 * every final block is. */
	uint64_t behind_since;
	/* The node's block of the tag was its tip once (the config's
	 * hj_config_final_warning): logged once, then in /healthz until the
	 * daemon stops; "" until then. */
	char final_warning[HJ_ERRLEN];
};

/* The first block not yet processed (cur.height wraps before block 0). */
static uint64_t next_block(const hjd_follower *f)
{
	return f->cur.height + 1;
}

/* Keeps behind_since: set when a final block waits, cleared when none. */
static void lag_check(hjd_follower *f)
{
	if (f->target > next_block(f)) {
		if (!f->behind_since)
			f->behind_since = uv_now(f->loop) | 1;
	} else {
		f->behind_since = 0;
	}
}

static void stop(hjd_follower *f, int code);

/* Payouts: one pass per committed batch (payouts of final blocks), and one
 * at start for what was owed before. */
static void payer_kick(hjd_follower *f)
{
	if (!f->payer_ready || !f->have_tip)
		return;
	hjd_payer_kick(f->payer, f->cur.height, f->tip, f->final);
}

/* ---- what each event leaves: a journal line, store rows ---- */

struct effects {
	hjd_follower *f;
	uint64_t height;
	int rc;
	char err[HJ_ERRLEN];
};

static void log_event(hjd_follower *f, uint64_t h, const hj_event *ev)
{
	char line[512], min[HJ_AMOUNT_STRLEN], more[200] = "";
	int evm = f->be->ops->family == HJ_EVM;
	int notice = hj_effects_line(ev, h, evm, line, sizeof line);
	hjd_pay_health pay;

	if (notice < 0)
		return;
	/* A refund below [payout] min_refund waits for the sender's next
	 * refunds or winnings (docs/PAYOUTS-EVM.md, "Small refunds"). */
	if (evm && ev->type == HJ_EV_REJECT && ev->amount > 0 && f->payer) {
		hjd_payer_health(f->payer, &pay);
		if (pay.have_min && ev->amount < pay.min)
			snprintf(more, sizeof more,
			         "; it waits: below min_refund %s wei, it is "
			         "paid once the sender is owed that much, or "
			         "wins",
			         hj_amount_format(pay.min, min));
	}
	hjd_log(notice ? HJD_LOG_NOTICE : HJD_LOG_INFO, "%s%s", line, more);
}

/* The step's sink (hj_deal_block): the event's journal line, then the
 * rows it leaves (effects.h) in the block's transaction.  The first failed
 * write is kept in e->rc; apply_batch stops on it. */
static void effects_sink(void *ctx, const hj_event *ev)
{
	struct effects *e = ctx;
	hj_store *st = e->f->store;
	hj_effects out;

	if (e->rc)
		return;
	log_event(e->f, e->height, ev);
	hjd_metrics_event(e->f->metrics, ev);
	hj_effects_of(ev, e->height, &out);
	if (out.has_tx)
		e->rc = hj_store_add_tx(st, e->height, out.tx.tx,
		                        out.tx.outcome, out.tx.reason,
		                        out.tx.round, e->err, sizeof e->err);
	if (out.commit && !e->rc)
		e->rc =
		    hj_store_add_commit(st, out.commit, e->err, sizeof e->err);
	if (out.commit && !e->rc && e->f->committer)
		e->rc = hjd_committer_dealt(e->f->committer, out.commit, e->err,
		                            sizeof e->err);
	for (size_t i = 0; i < out.npayouts && !e->rc; i++)
		e->rc = hj_store_add_payout(st, &out.payouts[i], e->err,
		                            sizeof e->err);
}

/* ---- status ---- */

static void status(hjd_follower *f, int force)
{
	uint64_t now = uv_now(f->loop);
	char msg[1800], sum[HJ_AMOUNT_STRLEN], err[HJ_ERRLEN], pay[1400];
	char expo[HJ_AMOUNT_STRLEN];
	uint64_t count = 0;
	hj_amount owed = 0;

	if (!force && now - f->status_at < 1000)
		return;
	f->status_at = now;
	if (f->payer) {
		hjd_payer_status(f->payer, pay, sizeof pay);
	} else {
		if (hj_store_owed(f->store, &count, &owed, err, sizeof err))
			snprintf(sum, sizeof sum, "?");
		else
			hj_amount_format(owed, sum);
		snprintf(pay, sizeof pay, "%" PRIu64 " payouts owed (%s)",
		         count, sum);
	}
	snprintf(msg, sizeof msg,
	         "STATUS=%s next block %" PRIu64 ", tip %" PRIu64
	         ", %zu open rounds (worst case %s), %s",
	         f->ready_sent ? "following:" : "catching up:",
	         f->cur.height + 1, f->tip, hj_table_count(f->table),
	         hj_amount_format(hj_table_exposure(f->table), expo), pay);
	hj_notify(msg);
	/* A first catch-up can take longer than systemd's start timeout:
	 * progress extends it. */
	if (!f->ready_sent)
		hj_notify("EXTEND_TIMEOUT_USEC=30000000");
}

/* ---- applying batches ---- */

static void fatal(hjd_follower *f, const char *what)
{
	hjd_log(HJD_LOG_ERR,
	        "%s; stopping (a restart resumes from the last "
	        "committed block)",
	        what);
	stop(f, HJD_EXIT_FAILURE);
}

/* Where a batch's time went, for its debug line (batch_line). */
struct batch_times {
	uint64_t dealt, slowest; /* ns: every block's deal, the slowest's */
	uint64_t slowest_height;
	size_t txs;                        /* transactions to the dealer */
	uint64_t saved, synced, committed; /* ns: open rounds saved (and
	                                      seeds planned), card log synced,
	                                      cursor and SQLite commit */
	long pages;                        /* database pages the batch wrote */
};

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The batch's debug line: its blocks, their transactions, the time from
 * each block's data in hand to its card log line (sum, slowest) and the
 * commit's three parts.  A block alone in its batch (following the tip)
 * gives its whole processing time. */
static void batch_line(const hjd_follower *f, uint64_t first, size_t n,
                       const struct batch_times *t)
{
	hjd_log(HJD_LOG_DEBUG,
	        "blocks %" PRIu64 "..%" PRIu64 ": %zu transactions to the "
	        "dealer, dealt in %.3f ms (slowest: block %" PRIu64
	        ", %.3f ms); committed in %.3f ms (open rounds saved %.3f ms, "
	        "card log synced %.3f ms, database committed %.3f ms, %ld "
	        "pages written); %zu open rounds",
	        first, first + n - 1, t->txs, ms(t->dealt), t->slowest_height,
	        ms(t->slowest), ms(t->saved + t->synced + t->committed),
	        ms(t->saved), ms(t->synced), ms(t->committed), t->pages,
	        hj_table_count(f->table));
}

/* Applies blocks[0..n), the next heights; returns 0, or -1 after stop(). */
static int apply_batch(hjd_follower *f, hj_chain_block *blocks, size_t n)
{
	char err[HJ_ERRLEN];
	struct effects eff = {.f = f};
	struct batch_times bt = {0};
	size_t done = 0;
	int reorg = 0;

	if (hj_store_begin(f->store, err, sizeof err)) {
		fatal(f, err);
		return -1;
	}
	/* A block's hundreds of journal lines go out in a few writes. */
	hjd_log_hold();
	for (; done < n; done++) {
		hj_chain_block *cb = &blocks[done];
		const char *line;
		size_t len;
		uint64_t t0 = uv_hrtime();

		if (f->have_parent && memcmp(cb->parent, f->cur.hash, 32)) {
			reorg = 1;
			break;
		}
		eff.height = cb->height;
		if (hj_deal_block(
		        f->table, &f->cl, f->be->ops->chain, f->be->ops->family,
		        f->committer ? hjd_committer_source(f->committer)
		                     : NULL,
		        cb, effects_sink, &eff, &line, &len, err, sizeof err))
			goto failed;
		if (eff.rc) {
			snprintf(err, sizeof err, "%s", eff.err);
			goto failed;
		}
		if (hjd_logfile_append(&f->log, line, len, err, sizeof err))
			goto failed;
		f->cur.height = cb->height;
		memcpy(f->cur.hash, cb->hash, 32);
		f->have_parent = 1;
		uint64_t took = uv_hrtime() - t0;
		hjd_metrics_block(f->metrics, cb->ntx, (double)took / 1e9);
		bt.dealt += took;
		bt.txs += cb->ntx;
		if (took >= bt.slowest) {
			bt.slowest = took;
			bt.slowest_height = cb->height;
		}
	}
	hjd_log_release();
	uint64_t t0 = uv_hrtime(), t1 = t0, t2 = t0;
	hjd_logfile_mark(&f->log, &f->cur);
	int rc = (f->committer && !reorg &&
	          hjd_committer_plan(f->committer, f->table, next_block(f),
	                             f->tip, err, sizeof err)) ||
	         hj_store_save_rounds(f->store, f->table, err, sizeof err);
	if (!rc) {
		t1 = uv_hrtime();
		rc = hjd_logfile_sync(&f->log, err, sizeof err);
	}
	if (!rc) {
		t2 = uv_hrtime();
		rc = hj_store_set_cursor(f->store, &f->cur, err, sizeof err) ||
		     hj_store_commit(f->store, err, sizeof err);
	}
	if (rc) {
		hj_store_rollback(f->store);
		fatal(f, err);
		return -1;
	}
	uint64_t t3 = uv_hrtime();
	hjd_metrics_commit(f->metrics, (double)(t3 - t0) / 1e9);
	bt.saved = t1 - t0;
	bt.synced = t2 - t1;
	bt.committed = t3 - t2;
	bt.pages = hj_store_pages_written(f->store);
	hjd_checkpoint_wrote(f->checkpoint, bt.pages);
	if (done)
		batch_line(f, blocks[0].height, done, &bt);
	lag_check(f);
	if (reorg) {
		char want[67], got[67], depth[64];
		hj_chain_block *cb = &blocks[done];
		int ox = f->be->ops->family == HJ_EVM;
		hj_hex_encode(f->cur.hash, 32, ox, want);
		hj_hex_encode(cb->parent, 32, ox, got);
		/* Only final blocks were processed: the block replaced was
		 * one the node had called finalized (or safe). */
		if (f->cfg->finality)
			snprintf(depth, sizeof depth,
			         "of a block the node called %s",
			         hj_finality_name(f->cfg->finality));
		else
			snprintf(depth, sizeof depth,
			         "deeper than %u confirmations",
			         f->cfg->confirmations);
		hjd_log(HJD_LOG_ERR,
		        "reorganisation %s: block %" PRIu64
		        " has parent %s, but block %" PRIu64
		        " was processed as %s; nothing after block %" PRIu64
		        " was changed, stopping",
		        depth, cb->height, got, f->cur.height, want,
		        f->cur.height);
		stop(f, HJD_EXIT_REORG);
		return -1;
	}
	payer_kick(f);
	return 0;
failed:
	hjd_log_release();
	hj_store_rollback(f->store);
	fatal(f, err);
	return -1;
}

/* The driver's blocks: applied as they come, in height order. */
static void on_blocks(void *arg, hj_chain_block *blocks, size_t n)
{
	hjd_follower *f = arg;

	if (apply_batch(f, blocks, n))
		return;
	status(f, 0);
}

static void on_failed(void *arg, uint64_t from, size_t n, const char *error,
                      unsigned delay_ms)
{
	(void)arg;
	hjd_log(HJD_LOG_WARNING,
	        "blocks %" PRIu64 "..%" PRIu64 ": %s; asking again in "
	        "%u ms",
	        from, from + n - 1, error ? error : "wrong number of blocks",
	        delay_ms);
}

static void on_fatal(void *arg, int err)
{
	hjd_follower *f = arg;

	fatal(f, err == -ENOMEM ? "out of memory" : strerror(-err));
}

/* Caught up (nothing final left to fetch, also when the configured start
 * lies beyond the final blocks): says READY=1 once; the driver polls the
 * tip from now on. */
static void on_idle(void *arg)
{
	hjd_follower *f = arg;

	if (f->ready_sent)
		return;
	f->ready_sent = 1;
	hjd_log(HJD_LOG_NOTICE,
	        "caught up: next block %" PRIu64 ", tip %" PRIu64 "; following",
	        hj_driver_next(f->drv), f->tip);
	hj_notify("READY=1");
	status(f, 1);
	if (f->on_following)
		f->on_following(f->arg);
}

static void on_back(void *arg, const char *tag, uint64_t from, uint64_t to)
{
	(void)arg;
	if (tag)
		hjd_log(HJD_LOG_WARNING,
		        "node's %s block went back from %" PRIu64
		        " to %" PRIu64,
		        tag, from, to);
	else
		hjd_log(HJD_LOG_WARNING,
		        "node's tip went back from %" PRIu64 " to %" PRIu64,
		        from, to);
}

static int first_start(hjd_follower *f, uint64_t tip);

static void first_tip_again(uv_timer_t *t)
{
	hjd_follower *f = t->data;
	if (hj_driver_ask_tip(f->drv))
		fatal(f, "out of memory");
}

/* The node's tip (and its final block, with a finality), at the first
 * start or resume and at every poll or wake.  The first start waits for
 * one, asking every RETRY_MAX_MS; its block is where dealing begins. */
static void on_tip(void *arg, const hj_driver_tip *t, const char *error)
{
	hjd_follower *f = arg;
	int first = !f->have_cursor;

	if (error) {
		if (first) {
			hjd_log(HJD_LOG_WARNING,
			        "tip: %s; asking again in %u ms", error,
			        RETRY_MAX_MS);
			uv_timer_start(&f->retry, first_tip_again, RETRY_MAX_MS,
			               0);
			return;
		}
		hjd_log(HJD_LOG_WARNING, "tip: %s", error);
		status(f, 0);
		return;
	}
	f->tip = t->tip;
	f->have_tip = 1;
	f->final = t->has_final ? t->final : 0;
	/* One answer is enough: a node with finality never calls its tip
	 * final past block 0. */
	if (t->has_final && !f->final_warning[0] &&
	    hj_config_final_warning(f->cfg, t->tip, t->final, f->final_warning,
	                            sizeof f->final_warning))
		hjd_log(HJD_LOG_WARNING, "%s", f->final_warning);
	if (t->end > f->target)
		f->target = t->end;
	lag_check(f);
	if (first && first_start(f, t->tip)) {
		stop(f, HJD_EXIT_FAILURE);
		return;
	}
	if (f->payer_ready == 1) {
		f->payer_ready = 2;
		payer_kick(f);
	}
	if (first) {
		if (hj_driver_start(f->drv, f->cur.height + 1, UINT64_MAX))
			fatal(f, "out of memory");
		return;
	}
	status(f, 0);
}

/* ---- start ---- */

static int first_start(hjd_follower *f, uint64_t tip)
{
	char err[HJ_ERRLEN];
	uint64_t start = f->cfg->start_height_set ? f->cfg->start_height : tip;

	if (hjd_logfile_open(&f->log, f->cfg->card_log, NULL, f->cfg->log_fsync,
	                     err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		return -1;
	}
	memset(&f->cur, 0, sizeof f->cur);
	f->cur.height = start - 1; /* wraps for block 0: next is 0 */
	hjd_logfile_mark(&f->log, &f->cur);
	if (hj_store_begin(f->store, err, sizeof err) ||
	    hj_store_set_cursor(f->store, &f->cur, err, sizeof err) ||
	    hj_store_commit(f->store, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		return -1;
	}
	f->have_cursor = 1;
	hjd_log(HJD_LOG_NOTICE,
	        "first start: dealing from block %" PRIu64 " (tip %" PRIu64 ")",
	        start, tip);
	return 0;
}

static int resume(hjd_follower *f)
{
	char err[HJ_ERRLEN];
	static const uint8_t zero[32];

	if (hjd_logfile_open(&f->log, f->cfg->card_log, &f->cur,
	                     f->cfg->log_fsync, err, sizeof err) ||
	    hj_store_load_rounds(f->store, f->table, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		return -1;
	}
	if (f->log.note[0])
		hjd_log(HJD_LOG_WARNING, "%s", f->log.note);
	f->have_cursor = 1;
	f->have_parent = memcmp(f->cur.hash, zero, 32) != 0;
	if (f->have_parent)
		hj_table_set_last_height(f->table, f->cur.height);
	if (f->have_parent)
		hjd_log(HJD_LOG_NOTICE,
		        "resuming after block %" PRIu64
		        ", %zu open rounds, card "
		        "log at %" PRIu64 " bytes",
		        f->cur.height, hj_table_count(f->table), f->log.offset);
	else
		hjd_log(HJD_LOG_NOTICE,
		        "resuming before its first block, %" PRIu64
		        ", card log at %" PRIu64 " bytes",
		        next_block(f), f->log.offset);
	return 0;
}

static void on_identity(void *arg, const char *identity, const char *error,
                        int permanent);

static void identity_again(uv_timer_t *t)
{
	hjd_follower *f = t->data;
	if (f->be->ops->identity(f->be, on_identity, f))
		fatal(f, "out of memory");
}

static void on_identity(void *arg, const char *identity, const char *error,
                        int permanent)
{
	hjd_follower *f = arg;
	char rules[HJ_RULES_STRLEN], err[HJ_ERRLEN];
	int rc;

	if (f->stopping)
		return;
	if (error && permanent) {
		hjd_log(HJD_LOG_ERR, "%s", error);
		stop(f, HJD_EXIT_CONFIG);
		return;
	}
	if (error) {
		hjd_log(HJD_LOG_WARNING,
		        "chain identity: %s; asking again in "
		        "%u ms",
		        error, RETRY_MAX_MS);
		uv_timer_start(&f->retry, identity_again, RETRY_MAX_MS, 0);
		return;
	}
	hj_rules_format(&f->cfg->rules, rules, sizeof rules);
	hj_store_meta m = {.family = f->be->ops->chain,
	                   .chain = identity,
	                   .dealer = f->cfg->dealer.text,
	                   .rules = rules};
	rc = hj_store_check_meta(f->store, &m, err, sizeof err);
	if (rc) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		stop(f, rc == -EINVAL ? HJD_EXIT_MISMATCH : HJD_EXIT_FAILURE);
		return;
	}
	hjd_log(HJD_LOG_NOTICE, "chain %s, dealer %s, rules %s", identity,
	        f->cfg->dealer.text, rules);
	/* The state is this chain's: what it owes may be paid (kicked once
	 * the tip is known). */
	f->payer_ready = 1;
	if (f->be->ops->attach)
		f->be->ops->attach(f->be, f->table);
	rc = hj_store_get_cursor(f->store, &f->cur, err, sizeof err);
	if (rc == -ENOENT) {
		/* First start: from the tip's answer on (on_tip). */
		if (hj_driver_ask_tip(f->drv))
			fatal(f, "out of memory");
		return;
	}
	if (rc || resume(f)) {
		if (rc)
			hjd_log(HJD_LOG_ERR, "%s", err);
		stop(f, HJD_EXIT_FAILURE);
		return;
	}
	f->target = f->cur.height + 1;
	if (hj_driver_start(f->drv, f->cur.height + 1, UINT64_MAX) ||
	    hj_driver_ask_tip(f->drv))
		fatal(f, "out of memory");
}

/* ---- stopping ---- */

static void on_payer_closed(void *arg)
{
	hjd_follower *f = arg;

	f->payer = NULL;
}

static void on_rpc_closed(void *arg)
{
	hjd_follower *f = arg;

	/* No request can call back now. */
	hj_driver_free(f->drv);
	f->drv = NULL;
	if (f->be)
		f->be->ops->free(f->be);
	f->be = NULL;
	f->rpc = NULL;
}

static void stop(hjd_follower *f, int code)
{
	if (f->stopping)
		return;
	f->stopping = 1;
	f->exit_code = code;
	hj_notify("STOPPING=1");
	hj_driver_close(f->drv);
	uv_close((uv_handle_t *)&f->retry, NULL);
	if (f->payer)
		hjd_payer_close(f->payer, on_payer_closed, f);
	if (f->rpc)
		hj_rpc_close(f->rpc, on_rpc_closed, f);
	if (f->on_stop)
		f->on_stop(f->arg);
}

/* ---- the interface ---- */

int hjd_follower_new(const hjd_follower_opts *o, hjd_follower **out)
{
	hjd_follower *f = calloc(1, sizeof *f);
	int rc;

	*out = NULL;
	if (f == NULL)
		return -ENOMEM;
	f->cfg = o->cfg;
	f->loop = o->loop;
	f->store = o->store;
	f->table = o->table;
	f->rpc = o->rpc;
	f->be = o->be;
	f->metrics = o->metrics;
	f->checkpoint = o->checkpoint;
	f->on_stop = o->on_stop;
	f->on_following = o->on_following;
	f->arg = o->arg;
	f->log.fd = -1;
	if (o->cfg->rules.cards == HJ_CARDS_COMMITTED &&
	    hjd_committer_new(o->cfg, o->store, &f->committer)) {
		free(f);
		return -ENOMEM;
	}
	rc = hj_driver_new(
	    &(hj_driver_opts){.loop = o->loop,
	                      .be = o->be,
	                      .finality = o->cfg->finality,
	                      .confirmations = o->cfg->confirmations,
	                      .batch = o->cfg->batch_blocks,
	                      .depth = HJD_FOLLOWER_DEPTH,
	                      .hold = HJD_FOLLOWER_HOLD,
	                      .retry_min_ms = RETRY_MIN_MS,
	                      .retry_max_ms = RETRY_MAX_MS,
	                      .poll_ms = o->cfg->poll_interval_ms,
	                      .blocks = on_blocks,
	                      .failed = on_failed,
	                      .tip = on_tip,
	                      .back = on_back,
	                      .idle = on_idle,
	                      .fatal = on_fatal,
	                      .arg = f},
	    &f->drv);
	if (rc != 0) {
		hjd_committer_free(f->committer);
		free(f);
		return rc;
	}
	hj_cardlog_init(&f->cl);
	uv_timer_init(f->loop, &f->retry);
	f->retry.data = f;
	*out = f;
	return 0;
}

void hjd_follower_set_payer(hjd_follower *f, hjd_payer *p)
{
	f->payer = p;
}

void hjd_follower_start(hjd_follower *f)
{
	/* The configuration refuses a finality on a family without it. */
	if (f->cfg->finality && !f->be->ops->final) {
		hjd_log(HJD_LOG_ERR,
		        "[chain] confirmations = %s: the node's "
		        "family has no such block",
		        hj_finality_name(f->cfg->finality));
		stop(f, HJD_EXIT_CONFIG);
		return;
	}
	if (f->be->ops->identity(f->be, on_identity, f))
		fatal(f, "out of memory");
}

void hjd_follower_stop(hjd_follower *f, const char *cause)
{
	if (f->stopping)
		return;
	/* Before its first block the cursor is the one before it (wrapped
	 * below block 0), a block this dealer never dealt. */
	if (f->have_parent)
		hjd_log(HJD_LOG_NOTICE, "%s: stopping after block %" PRIu64,
		        cause, f->cur.height);
	else if (f->have_cursor)
		hjd_log(HJD_LOG_NOTICE,
		        "%s: stopping before its first block, %" PRIu64, cause,
		        next_block(f));
	else
		hjd_log(HJD_LOG_NOTICE,
		        "%s: stopping before dealing any block (still waiting "
		        "for the node's first answers)",
		        cause);
	stop(f, 0);
}

void hjd_follower_fail(hjd_follower *f, int code)
{
	stop(f, code);
}

/* logrotate moved the file: continue in a new one and commit its identity
 * at once, so a crash cannot confuse the two. */
void hjd_follower_reopen_log(hjd_follower *f)
{
	char err[HJ_ERRLEN];

	if (f->stopping || f->log.fd < 0)
		return;
	if (hjd_logfile_reopen(&f->log, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR,
		        "SIGHUP: %s; still writing to the old file", err);
		return;
	}
	hjd_logfile_mark(&f->log, &f->cur);
	if (hj_store_begin(f->store, err, sizeof err) ||
	    hj_store_set_cursor(f->store, &f->cur, err, sizeof err) ||
	    hj_store_commit(f->store, err, sizeof err)) {
		hj_store_rollback(f->store);
		fatal(f, err);
		return;
	}
	hjd_log(HJD_LOG_NOTICE, "card log reopened: %s", f->log.path);
}

int hjd_follower_exit_code(const hjd_follower *f)
{
	return f->exit_code;
}

void hjd_follower_free(hjd_follower *f)
{
	if (f == NULL)
		return;
	hjd_logfile_close(&f->log);
	hj_cardlog_release(&f->cl);
	hjd_committer_free(f->committer);
	free(f);
}

void hjd_follower_snapshot(void *arg, hjd_metrics_snap *out)
{
	hjd_follower *f = arg;
	char err[HJ_ERRLEN];
	uint64_t next = next_block(f);

	memset(out, 0, sizeof *out);
	out->have_tip = f->have_tip;
	out->tip = f->tip;
	out->final_tip = f->target ? f->target - 1 : 0;
	out->have_height = f->have_parent;
	out->height = f->cur.height;
	out->lag_blocks = f->target > next ? f->target - next : 0;
	out->lag_seconds =
	    f->behind_since ? (double)(uv_now(f->loop) - f->behind_since) / 1000
	                    : 0;
	out->open_rounds = hj_table_count(f->table);
	out->exposure = hj_table_exposure(f->table);
	out->have_totals = hj_store_payout_totals(f->store, &out->totals, err,
	                                          sizeof err) == 0;
	out->have_payer = f->payer != NULL;
	if (f->payer)
		hjd_payer_health(f->payer, &out->pay);
	out->committed = f->committer != NULL;
	if (f->committer)
		hjd_committer_health(f->committer, f->table, next, &out->seeds);
	out->stopping = f->stopping;
	out->warning = f->final_warning[0] ? f->final_warning : NULL;
}

/* The node probably has a new block (chain/push.h): the tip now, once
 * following; the poll keeps its own schedule, and is still what finds
 * blocks when no wake comes. */
void hjd_follower_wake(hjd_follower *f)
{
	if (f->stopping || !f->ready_sent)
		return;
	if (hj_driver_ask_tip(f->drv))
		fatal(f, "out of memory");
}

void hjd_follower_payer_status(void *arg)
{
	status(arg, 1);
}

void hjd_follower_payer_fatal(void *arg, const char *msg)
{
	fatal(arg, msg);
}
