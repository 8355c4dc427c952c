/*
 * Following the chain.
 *
 * Heights below `target` (tip - confirmations + 1) are final.  Batches of
 * blocks are fetched ahead (up to DEPTH requests in flight) and applied
 * strictly in height order as they arrive: parent hash checked, the engine
 * run through hj_deal_block (the same step as `hashjack replay`), the
 * lines appended to the card log, and the batch's effects, the open rounds
 * and the cursor committed in one SQLite transaction.  Everything runs in
 * loop callbacks, so a signal is handled between two batches: the block in
 * hand is always finished.
 *
 * Any failure after the engine has moved on (a store or log write) is
 * fatal: the process exits and a restart resumes from the last commit,
 * cutting the card log back to it.
 *
 * With [payout] wallet set, the payer (payout_btc.h) is kicked after every
 * commit: the payouts a committed batch created are final (their blocks
 * are), so they may be paid at once.  Kicks start only once the state was
 * checked to be this chain's (on_identity) and the tip is known.
 */
#include "follower.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "btc_backend.h"
#include "deal.h"
#include "evm_backend.h"
#include "hex.h"
#include "log.h"
#include "logfile.h"
#include "notify.h"
#include "payout_btc.h"
#include "payout_evm.h"
#include "rpc.h"
#include "store.h"

#define DEPTH        3
#define RETRY_MIN_MS 250
#define RETRY_MAX_MS 10000

struct batch {
	struct hjd_follower *f;
	struct batch *next; /* queue in height order */
	uint64_t from;
	size_t n;
	int state; /* 0 in flight, 1 ready, 2 failed (to fetch again) */
	hj_chain_block *blocks; /* deep copies once ready */
};

typedef struct hjd_follower {
	const hjd_config *cfg;
	uv_loop_t loop;
	hj_rpc *rpc;
	hj_backend *be;
	hj_store *store;
	hj_table *table;
	hjd_payer *payer;         /* [payout] wallet set: pays what is owed */
	hjd_evm_payer *evm_payer; /* [payout] dealer_key set */
	int payer_ready; /* the state is this chain's: paying may start */
	hjd_logfile log;
	hj_cardlog cl;
	hj_cursor cur;
	int have_parent; /* cur.hash is a real block's hash */
	char identity[64];

	uint64_t tip, target; /* target: first height not yet final */
	int have_tip;
	uint64_t next_fetch;
	struct batch *queue;
	unsigned inflight;
	unsigned retry_ms;

	uv_timer_t poll, retry, watchdog;
	uv_signal_t sigterm, sigint, sighup;
	int ready_sent, stopping, exit_code, handles_open;
	uint64_t status_at; /* loop time of the last STATUS= */
} hjd_follower;

static void stop(hjd_follower *f, int code);
static void pump(hjd_follower *f);

/* Payouts: one pass per committed batch (payouts of final blocks), and one
 * at start for what was owed before. */
static void payer_kick(hjd_follower *f)
{
	if (!f->payer_ready || !f->have_tip)
		return;
	if (f->payer)
		hjd_payer_kick(f->payer, f->cur.height, f->tip);
	if (f->evm_payer)
		hjd_evm_payer_kick(f->evm_payer, f->cur.height, f->tip);
}

/* ---- effects of events on the store ---- */

struct effects {
	hjd_follower *f;
	uint64_t height;
	int rc;
	char err[320];
};

static void id_hex(const hj_id *id, char *out)
{
	hj_hex_encode(id->b, id->len, 0, out);
}

static const char *outcome_of(hj_ev t)
{
	switch (t) {
	case HJ_EV_ACTION:
		return "accepted";
	case HJ_EV_REJECT:
		return "rejected";
	case HJ_EV_DEPOSIT:
		return "deposit";
	default:
		return "ignored";
	}
}

static void log_event(hjd_follower *f, uint64_t h, const hj_event *ev)
{
	char tx[67], round[67], amount[HJ_AMOUNT_STRLEN];
	int fam_0x = f->be->ops->family == HJ_EVM;

	if (ev->tx)
		hj_hex_encode(ev->tx->txid.b, ev->tx->txid.len, fam_0x, tx);
	if (ev->round)
		hj_hex_encode(ev->round->id.b, ev->round->id.len, fam_0x,
		              round);
	switch (ev->type) {
	case HJ_EV_ACTION:
		hjd_log(HJD_LOG_INFO,
		        "block %" PRIu64 ": tx %s: %s accepted, "
		        "round %s, stake %s",
		        h, tx, hj_act_name(ev->act), round,
		        hj_amount_format(ev->amount, amount));
		break;
	case HJ_EV_REJECT:
		hjd_log(HJD_LOG_NOTICE,
		        "block %" PRIu64 ": tx %s: %s rejected "
		        "(%s), refund %s owed",
		        h, tx, hj_act_name(ev->act), hj_reason_name(ev->reason),
		        hj_amount_format(ev->amount, amount));
		break;
	case HJ_EV_DEPOSIT:
		hjd_log(HJD_LOG_NOTICE,
		        "block %" PRIu64 ": tx %s: deposit of "
		        "%s (no magic), not refunded",
		        h, tx, hj_amount_format(ev->tx->value, amount));
		break;
	case HJ_EV_IGNORED:
		hjd_log(HJD_LOG_INFO,
		        "block %" PRIu64 ": tx %s: failed receipt, "
		        "ignored",
		        h, tx);
		break;
	case HJ_EV_TIMEOUT:
		hjd_log(HJD_LOG_INFO,
		        "block %" PRIu64 ": round %s: timeout, "
		        "%s applied",
		        h, round, hj_act_name(ev->act));
		break;
	case HJ_EV_SETTLE:
		hjd_log(HJD_LOG_INFO,
		        "block %" PRIu64 ": round %s settled, "
		        "payout %s",
		        h, round,
		        hj_amount_format(ev->settle->total_ret, amount));
		break;
	case HJ_EV_DRAW:
		break;
	}
}

/*
 * Who a refund goes to: the sender (EVM `from`, a Bitcoin Bet's key P);
 * else, on the Bitcoin family, the key of the round the action named;
 * else nobody known: the payout is recorded unattributed (no recipient),
 * with its txid (protocol v1, section 5).
 */
static const hj_id *refund_to(const hj_event *ev)
{
	if (ev->tx->sender.len > 0)
		return &ev->tx->sender;
	if (ev->round)
		return &ev->round->player;
	return NULL;
}

static void effects_sink(void *ctx, const hj_event *ev)
{
	struct effects *e = ctx;
	hj_store *st = e->f->store;
	char a[65], pid[160];

	if (e->rc)
		return;
	log_event(e->f, e->height, ev);
	switch (ev->type) {
	case HJ_EV_ACTION:
	case HJ_EV_REJECT:
	case HJ_EV_DEPOSIT:
	case HJ_EV_IGNORED:
		e->rc = hj_store_add_tx(
		    st, e->height, ev->tx, outcome_of(ev->type), ev->reason,
		    ev->round ? &ev->round->id : NULL, e->err, sizeof e->err);
		if (e->rc || ev->type != HJ_EV_REJECT || ev->amount == 0)
			return;
		id_hex(&ev->tx->txid, a);
		snprintf(pid, sizeof pid, "refund:%s", a);
		e->rc = hj_store_add_payout(
		    st,
		    &(hj_payout){.id = pid,
		                 .kind = "refund",
		                 .round = ev->round ? &ev->round->id : NULL,
		                 .hand = -1,
		                 .txid = &ev->tx->txid,
		                 .recipient = refund_to(ev),
		                 .amount = ev->amount,
		                 .height = e->height},
		    e->err, sizeof e->err);
		return;
	case HJ_EV_SETTLE: {
		const hj_round *r = ev->round;
		id_hex(&r->id, a);
		for (int i = 0; i < r->nhands && !e->rc; i++) {
			if (ev->settle->ret[i] == 0)
				continue;
			snprintf(pid, sizeof pid, "return:%s:%d", a, i);
			e->rc = hj_store_add_payout(
			    st,
			    &(hj_payout){.id = pid,
			                 .kind = "return",
			                 .round = &r->id,
			                 .hand = i,
			                 .recipient = &r->player,
			                 .amount = ev->settle->ret[i],
			                 .height = e->height},
			    e->err, sizeof e->err);
		}
		if (!e->rc && ev->settle->ins_ret) {
			snprintf(pid, sizeof pid, "insurance:%s", a);
			e->rc = hj_store_add_payout(
			    st,
			    &(hj_payout){.id = pid,
			                 .kind = "insurance",
			                 .round = &r->id,
			                 .hand = -1,
			                 .recipient = &r->player,
			                 .amount = ev->settle->ins_ret,
			                 .height = e->height},
			    e->err, sizeof e->err);
		}
		return;
	}
	default:
		return;
	}
}

/* ---- status ---- */

static void status(hjd_follower *f, int force)
{
	uint64_t now = uv_now(&f->loop);
	char msg[1800], sum[HJ_AMOUNT_STRLEN], err[160], pay[1400];
	char expo[HJ_AMOUNT_STRLEN];
	uint64_t count = 0;
	hj_amount owed = 0;

	if (!force && now - f->status_at < 1000)
		return;
	f->status_at = now;
	if (f->payer) {
		hjd_payer_status(f->payer, pay, sizeof pay);
	} else if (f->evm_payer) {
		hjd_evm_payer_status(f->evm_payer, pay, sizeof pay);
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
	hjd_notify(msg);
	/* A first catch-up can take longer than systemd's start timeout:
	 * progress extends it. */
	if (!f->ready_sent)
		hjd_notify("EXTEND_TIMEOUT_USEC=30000000");
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

/* Applies one batch; returns 0, or -1 after stop(). */
static int apply_batch(hjd_follower *f, struct batch *b)
{
	char err[400];
	struct effects eff = {.f = f};
	size_t done = 0;
	int reorg = 0;

	if (hj_store_begin(f->store, err, sizeof err)) {
		fatal(f, err);
		return -1;
	}
	for (; done < b->n; done++) {
		hj_chain_block *cb = &b->blocks[done];
		hj_block hb;
		const char *line;
		size_t len;

		if (f->have_parent && memcmp(cb->parent, f->cur.hash, 32)) {
			reorg = 1;
			break;
		}
		hb.height = cb->height;
		memcpy(hb.hash, cb->hash, 32);
		memcpy(hb.parent, cb->parent, 32);
		eff.height = cb->height;
		if (hj_deal_block(f->table, &f->cl, f->be->ops->chain,
		                  f->be->ops->family, &hb, cb->txs, cb->ntx,
		                  effects_sink, &eff, &line, &len, err,
		                  sizeof err)) {
			hj_store_rollback(f->store);
			fatal(f, err);
			return -1;
		}
		if (eff.rc) {
			hj_store_rollback(f->store);
			fatal(f, eff.err);
			return -1;
		}
		if (hjd_logfile_append(&f->log, line, len, err, sizeof err)) {
			hj_store_rollback(f->store);
			fatal(f, err);
			return -1;
		}
		f->cur.height = cb->height;
		memcpy(f->cur.hash, cb->hash, 32);
		f->have_parent = 1;
	}
	hjd_logfile_mark(&f->log, &f->cur);
	if (hj_store_save_rounds(f->store, f->table, err, sizeof err) ||
	    hjd_logfile_sync(&f->log, err, sizeof err) ||
	    hj_store_set_cursor(f->store, &f->cur, err, sizeof err) ||
	    hj_store_commit(f->store, err, sizeof err)) {
		hj_store_rollback(f->store);
		fatal(f, err);
		return -1;
	}
	if (reorg) {
		char want[67], got[67];
		hj_chain_block *cb = &b->blocks[done];
		int ox = f->be->ops->family == HJ_EVM;
		hj_hex_encode(f->cur.hash, 32, ox, want);
		hj_hex_encode(cb->parent, 32, ox, got);
		hjd_log(HJD_LOG_ERR,
		        "reorganisation deeper than %u confirmations: block "
		        "%" PRIu64 " has parent %s, but block %" PRIu64
		        " was processed as %s; nothing after block %" PRIu64
		        " was changed, stopping",
		        f->cfg->confirmations, cb->height, got, f->cur.height,
		        want, f->cur.height);
		stop(f, HJD_EXIT_REORG);
		return -1;
	}
	payer_kick(f);
	return 0;
}

static void batch_free(struct batch *b)
{
	if (!b)
		return;
	if (b->blocks)
		for (size_t i = 0; i < b->n; i++)
			free(b->blocks[i].txs);
	free(b->blocks);
	free(b);
}

/* Applies every ready batch at the head of the queue. */
static void drain(hjd_follower *f)
{
	while (!f->stopping && f->queue && f->queue->state == 1) {
		struct batch *b = f->queue;
		f->queue = b->next;
		int rc = apply_batch(f, b);
		batch_free(b);
		if (rc)
			return;
		status(f, 0);
	}
}

static int copy_blocks(struct batch *b, const hj_chain_block *src, size_t n)
{
	b->blocks = calloc(n, sizeof *b->blocks);
	if (!b->blocks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		b->blocks[i] = src[i];
		b->blocks[i].txs = NULL;
		if (src[i].ntx) {
			size_t sz = src[i].ntx * sizeof *src[i].txs;
			b->blocks[i].txs = malloc(sz);
			if (!b->blocks[i].txs)
				return -ENOMEM;
			memcpy(b->blocks[i].txs, src[i].txs, sz);
		}
	}
	return 0;
}

static void fetch(hjd_follower *f, struct batch *b);

static void on_retry_timer(uv_timer_t *t)
{
	hjd_follower *f = t->data;
	for (struct batch *b = f->queue; b; b = b->next)
		if (b->state == 2)
			fetch(f, b);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct batch *b = arg;
	hjd_follower *f = b->f;

	f->inflight--;
	if (f->stopping)
		return;
	if (error || n != b->n) {
		hjd_log(HJD_LOG_WARNING,
		        "blocks %" PRIu64 "..%" PRIu64 ": %s; asking again in "
		        "%u ms",
		        b->from, b->from + b->n - 1,
		        error ? error : "wrong number of blocks", f->retry_ms);
		b->state = 2;
		if (!uv_is_active((uv_handle_t *)&f->retry))
			uv_timer_start(&f->retry, on_retry_timer, f->retry_ms,
			               0);
		f->retry_ms = f->retry_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS
		                                             : f->retry_ms * 2;
		return;
	}
	if (copy_blocks(b, blocks, n)) {
		fatal(f, "out of memory");
		return;
	}
	f->retry_ms = RETRY_MIN_MS;
	b->state = 1;
	drain(f);
	pump(f);
}

static void fetch(hjd_follower *f, struct batch *b)
{
	b->state = 0;
	f->inflight++;
	if (f->be->ops->blocks(f->be, b->from, b->n, on_blocks, b)) {
		f->inflight--;
		fatal(f, "out of memory");
	}
}

static void on_poll(uv_timer_t *t);

/* Keeps DEPTH batches in flight while final blocks remain; when caught up,
 * says READY=1 once and polls the tip. */
static void pump(hjd_follower *f)
{
	if (f->stopping)
		return;
	while (f->inflight < DEPTH && f->next_fetch < f->target) {
		uint64_t left = f->target - f->next_fetch;
		struct batch *b = calloc(1, sizeof *b);
		if (!b) {
			fatal(f, "out of memory");
			return;
		}
		b->f = f;
		b->from = f->next_fetch;
		b->n = left < f->cfg->batch_blocks ? (size_t)left
		                                   : f->cfg->batch_blocks;
		f->next_fetch += b->n;
		struct batch **p = &f->queue;
		while (*p)
			p = &(*p)->next;
		*p = b;
		fetch(f, b);
		if (f->stopping)
			return;
	}
	/* Nothing queued and nothing final left to fetch: caught up (also
	 * when the configured start lies beyond the final blocks). */
	if (f->queue == NULL && f->next_fetch >= f->target) {
		if (!f->ready_sent) {
			f->ready_sent = 1;
			hjd_log(HJD_LOG_NOTICE,
			        "caught up: next block %" PRIu64
			        ", tip %" PRIu64 "; following",
			        f->next_fetch, f->tip);
			hjd_notify("READY=1");
			status(f, 1);
		}
		if (!uv_is_active((uv_handle_t *)&f->poll))
			uv_timer_start(&f->poll, on_poll,
			               f->cfg->poll_interval_ms, 0);
	}
}

static void set_tip(hjd_follower *f, uint64_t tip)
{
	uint64_t conf = f->cfg->confirmations;
	f->tip = tip;
	f->have_tip = 1;
	/* Final: B <= tip - conf + 1, so the first non-final is tip-conf+2. */
	uint64_t t = tip + 2 >= conf ? tip + 2 - conf : 0;
	if (t > f->target)
		f->target = t;
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	hjd_follower *f = arg;

	if (f->stopping)
		return;
	if (error) {
		hjd_log(HJD_LOG_WARNING, "tip: %s", error);
	} else {
		if (f->have_tip && height < f->tip)
			hjd_log(HJD_LOG_WARNING,
			        "node's tip went back from %" PRIu64
			        " to %" PRIu64,
			        f->tip, height);
		set_tip(f, height);
		if (f->payer_ready == 1) {
			f->payer_ready = 2;
			payer_kick(f);
		}
	}
	pump(f);
	status(f, 0);
}

static void on_poll(uv_timer_t *t)
{
	hjd_follower *f = t->data;
	if (f->be->ops->tip(f->be, on_tip, f))
		fatal(f, "out of memory");
}

/* ---- start ---- */

static int first_start(hjd_follower *f, uint64_t tip)
{
	char err[400];
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
	hjd_log(HJD_LOG_NOTICE,
	        "first start: dealing from block %" PRIu64 " (tip %" PRIu64 ")",
	        start, tip);
	return 0;
}

static void on_first_tip(void *arg, uint64_t height, const char *error);

static void first_tip_again(uv_timer_t *t)
{
	hjd_follower *f = t->data;
	if (f->be->ops->tip(f->be, on_first_tip, f))
		fatal(f, "out of memory");
}

static void on_first_tip(void *arg, uint64_t height, const char *error)
{
	hjd_follower *f = arg;

	if (f->stopping)
		return;
	if (error) {
		hjd_log(HJD_LOG_WARNING, "tip: %s; asking again in %u ms",
		        error, RETRY_MAX_MS);
		uv_timer_start(&f->retry, first_tip_again, RETRY_MAX_MS, 0);
		return;
	}
	set_tip(f, height);
	if (first_start(f, height)) {
		stop(f, HJD_EXIT_FAILURE);
		return;
	}
	if (f->payer_ready == 1) {
		f->payer_ready = 2;
		payer_kick(f);
	}
	f->next_fetch = f->cur.height + 1;
	pump(f);
}

static int resume(hjd_follower *f)
{
	char err[400];
	static const uint8_t zero[32];

	if (hjd_logfile_open(&f->log, f->cfg->card_log, &f->cur,
	                     f->cfg->log_fsync, err, sizeof err) ||
	    hj_store_load_rounds(f->store, f->table, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		return -1;
	}
	if (f->log.note[0])
		hjd_log(HJD_LOG_WARNING, "%s", f->log.note);
	f->have_parent = memcmp(f->cur.hash, zero, 32) != 0;
	if (f->have_parent)
		hj_table_set_last_height(f->table, f->cur.height);
	hjd_log(HJD_LOG_NOTICE,
	        "resuming after block %" PRIu64 ", %zu open rounds, card log "
	        "at %" PRIu64 " bytes",
	        f->cur.height, hj_table_count(f->table), f->log.offset);
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
	char rules[256], err[512];
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
	snprintf(f->identity, sizeof f->identity, "%s", identity);
	hj_store_rules_str(&f->cfg->rules, rules, sizeof rules);
	hj_store_meta m = {.family = f->be->ops->chain,
	                   .chain = identity,
	                   .dealer = f->cfg->dealer,
	                   .rules = rules};
	rc = hj_store_check_meta(f->store, &m, err, sizeof err);
	if (rc) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		stop(f, rc == -EINVAL ? HJD_EXIT_MISMATCH : HJD_EXIT_FAILURE);
		return;
	}
	hjd_log(HJD_LOG_NOTICE, "chain %s, dealer %s, rules %s", identity,
	        f->cfg->dealer, rules);
	/* The state is this chain's: what it owes may be paid (kicked once
	 * the tip is known). */
	f->payer_ready = 1;
	if (f->be->ops->attach)
		f->be->ops->attach(f->be, f->table);
	rc = hj_store_get_cursor(f->store, &f->cur, err, sizeof err);
	if (rc == -ENOENT) {
		if (f->be->ops->tip(f->be, on_first_tip, f))
			fatal(f, "out of memory");
		return;
	}
	if (rc || resume(f)) {
		if (rc)
			hjd_log(HJD_LOG_ERR, "%s", err);
		stop(f, HJD_EXIT_FAILURE);
		return;
	}
	f->next_fetch = f->cur.height + 1;
	f->target = f->next_fetch;
	if (f->be->ops->tip(f->be, on_tip, f))
		fatal(f, "out of memory");
}

/* ---- signals, watchdog, shutdown ---- */

static void on_signal(uv_signal_t *s, int signum)
{
	hjd_follower *f = s->data;
	char err[400];

	if (signum == SIGHUP) {
		/* logrotate moved the file: continue in a new one and commit
		 * its identity at once, so a crash cannot confuse the two. */
		if (f->log.fd < 0)
			return;
		if (hjd_logfile_reopen(&f->log, err, sizeof err)) {
			hjd_log(HJD_LOG_ERR,
			        "SIGHUP: %s; still writing to the "
			        "old file",
			        err);
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
		return;
	}
	hjd_log(HJD_LOG_NOTICE, "%s: stopping after block %" PRIu64,
	        signum == SIGTERM ? "SIGTERM" : "SIGINT", f->cur.height);
	stop(f, 0);
}

static void on_watchdog(uv_timer_t *t)
{
	(void)t;
	hjd_notify("WATCHDOG=1");
}

static void on_closed(uv_handle_t *h)
{
	hjd_follower *f = h->data;
	f->handles_open--;
}

static void close_handle(hjd_follower *f, uv_handle_t *h)
{
	if (!uv_is_closing(h)) {
		h->data = f;
		uv_close(h, on_closed);
	}
}

static void on_payer_closed(void *arg)
{
	hjd_follower *f = arg;

	f->payer = NULL;
}

static void on_evm_payer_closed(void *arg)
{
	hjd_follower *f = arg;

	f->evm_payer = NULL;
}

static hj_amount payer_exposure(void *arg)
{
	hjd_follower *f = arg;

	return hj_table_exposure(f->table);
}

static void on_payer_status(void *arg)
{
	status(arg, 1);
}

static void on_payer_fatal(void *arg, const char *msg)
{
	fatal(arg, msg);
}

static void on_rpc_closed(void *arg)
{
	hjd_follower *f = arg;

	/* No request can call back now. */
	if (f->be)
		f->be->ops->free(f->be);
	f->be = NULL;
	f->rpc = NULL;
	while (f->queue) {
		struct batch *b = f->queue;
		f->queue = b->next;
		batch_free(b);
	}
}

static void stop(hjd_follower *f, int code)
{
	if (f->stopping)
		return;
	f->stopping = 1;
	f->exit_code = code;
	hjd_notify("STOPPING=1");
	close_handle(f, (uv_handle_t *)&f->poll);
	close_handle(f, (uv_handle_t *)&f->retry);
	close_handle(f, (uv_handle_t *)&f->watchdog);
	close_handle(f, (uv_handle_t *)&f->sigterm);
	close_handle(f, (uv_handle_t *)&f->sigint);
	close_handle(f, (uv_handle_t *)&f->sighup);
	if (f->payer)
		hjd_payer_close(f->payer, on_payer_closed, f);
	if (f->evm_payer)
		hjd_evm_payer_close(f->evm_payer, on_evm_payer_closed, f);
	if (f->rpc)
		hj_rpc_close(f->rpc, on_rpc_closed, f);
}

static int parse_dealer(const char *s, uint8_t out[20])
{
	return hj_hex_decode_exact(s, strlen(s), HJ_HEX_REQUIRED, out, 20, NULL,
	                           0);
}

static void on_retry_log(void *arg, const char *what, unsigned attempt,
                         unsigned delay_ms)
{
	(void)arg;
	hjd_log(attempt >= 3 ? HJD_LOG_WARNING : HJD_LOG_INFO,
	        "node: %s (attempt %u); retrying in %u ms", what, attempt,
	        delay_ms);
}

static int mkdir_p(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof path)
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];
		path[i] = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -errno;
		path[i] = c;
	}
	return 0;
}

/* SIGTERM or SIGINT before the loop's handlers exist (the first
 * milliseconds: opening the store, the lock): remembered, then acted on as
 * soon as they do, so that an early stop still exits 0. */
static volatile sig_atomic_t early_signal;

static void on_early_signal(int signum)
{
	early_signal = signum;
}

void hjd_catch_early_signals(void)
{
	struct sigaction early = {.sa_handler = on_early_signal};

	sigemptyset(&early.sa_mask);
	sigaction(SIGTERM, &early, NULL);
	sigaction(SIGINT, &early, NULL);
}

int hjd_follow(const hjd_config *cfg)
{
	hjd_follower f;
	char err[512], dbpath[4200];
	uint8_t dealer[20];
	hj_rpc_opts o;
	int rc, lockfd;

	hjd_catch_early_signals();
	memset(&f, 0, sizeof f);
	f.cfg = cfg;
	f.log.fd = -1;
	f.retry_ms = RETRY_MIN_MS;
	hj_cardlog_init(&f.cl);
	if (strcmp(cfg->family, "evm") == 0 &&
	    parse_dealer(cfg->dealer, dealer)) {
		hjd_log(HJD_LOG_ERR, "dealer address %s is not an EVM address",
		        cfg->dealer);
		return HJD_EXIT_FAILURE;
	}
	rc = mkdir_p(cfg->state_dir);
	if (rc) {
		hjd_log(HJD_LOG_ERR, "state directory %s: %s", cfg->state_dir,
		        strerror(-rc));
		return HJD_EXIT_FAILURE;
	}
	/* One daemon per state directory: a second one would deal the same
	 * blocks twice into the same card log. */
	snprintf(dbpath, sizeof dbpath, "%s/hashjackd.lock", cfg->state_dir);
	lockfd = open(dbpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd < 0 || flock(lockfd, LOCK_EX | LOCK_NB) != 0) {
		hjd_log(HJD_LOG_ERR, "state directory %s: %s", cfg->state_dir,
		        errno == EWOULDBLOCK ? "another hashjackd is using it"
		                             : strerror(errno));
		if (lockfd >= 0)
			close(lockfd);
		return HJD_EXIT_FAILURE;
	}
	snprintf(dbpath, sizeof dbpath, "%s/hashjackd.sqlite", cfg->state_dir);
	if (hj_store_open(dbpath, &f.store, err, sizeof err)) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		close(lockfd);
		return HJD_EXIT_FAILURE;
	}
	f.table = hj_table_new(&cfg->rules);
	if (!f.table || uv_loop_init(&f.loop) != 0) {
		hjd_log(HJD_LOG_ERR, "out of memory");
		hj_table_free(f.table);
		hj_store_close(f.store);
		close(lockfd);
		return HJD_EXIT_FAILURE;
	}

	hj_rpc_opts_default(&o);
	o.url = cfg->rpc_url;
	o.user = cfg->rpc_user;
	o.password = cfg->rpc_password;
	o.bearer = cfg->rpc_bearer;
	o.cookie_file = cfg->rpc_cookie_file;
	o.timeout_ms = cfg->rpc_timeout_ms;
	o.max_response = cfg->rpc_max_response;
	o.max_inflight = DEPTH + 1;
	o.on_retry = on_retry_log;
	o.arg = &f;
	f.rpc = hj_rpc_new(&f.loop, &o, err, sizeof err);
	if (f.rpc && strcmp(cfg->family, "evm") == 0) {
		f.be = hj_evm_backend_new(f.rpc, dealer);
		if (!f.be)
			snprintf(err, sizeof err, "out of memory");
	} else if (f.rpc) {
		f.be = hj_btc_backend_new(f.rpc, cfg->coin, cfg->dealer, err,
		                          sizeof err);
	}
	if (f.be && cfg->payout_wallet && strcmp(cfg->family, "bitcoin") == 0) {
		hjd_payer_opts po = {.loop = &f.loop,
		                     .store = f.store,
		                     .node = &o,
		                     .wallet = cfg->payout_wallet,
		                     .dealer = cfg->dealer,
		                     .dust_limit = cfg->dust_limit,
		                     .max_outputs = cfg->max_outputs,
		                     .confirmations = cfg->confirmations,
		                     .exposure = payer_exposure,
		                     .on_status = on_payer_status,
		                     .on_fatal = on_payer_fatal,
		                     .arg = &f};
		if (hjd_payer_new(&po, &f.payer, err, sizeof err)) {
			f.be->ops->free(f.be);
			f.be = NULL;
		}
	}
	if (f.be && cfg->dealer_key && strcmp(cfg->family, "evm") == 0) {
		hjd_evm_payer_opts po = {
		    .loop = &f.loop,
		    .store = f.store,
		    .node = &o,
		    .key_source = cfg->dealer_key,
		    .dealer = cfg->dealer,
		    .max_fee_per_gas = cfg->max_fee_per_gas,
		    .min_priority_fee = cfg->min_priority_fee,
		    .stuck_after_s = cfg->stuck_after_s,
		    .confirmations = cfg->confirmations,
		    .exposure = payer_exposure,
		    .on_status = on_payer_status,
		    .on_fatal = on_payer_fatal,
		    .arg = &f};
		if (hjd_evm_payer_new(&po, &f.evm_payer, err, sizeof err)) {
			f.be->ops->free(f.be);
			f.be = NULL;
		}
	}

	uv_timer_init(&f.loop, &f.poll);
	uv_timer_init(&f.loop, &f.retry);
	uv_timer_init(&f.loop, &f.watchdog);
	uv_signal_init(&f.loop, &f.sigterm);
	uv_signal_init(&f.loop, &f.sigint);
	uv_signal_init(&f.loop, &f.sighup);
	f.handles_open = 6;
	f.poll.data = f.retry.data = f.watchdog.data = &f;
	f.sigterm.data = f.sigint.data = f.sighup.data = &f;

	if (!f.rpc || !f.be) {
		hjd_log(HJD_LOG_ERR, "%s", err);
		stop(&f, HJD_EXIT_FAILURE);
	} else {
		uv_signal_start(&f.sigterm, on_signal, SIGTERM);
		uv_signal_start(&f.sigint, on_signal, SIGINT);
		uv_signal_start(&f.sighup, on_signal, SIGHUP);
		if (early_signal)
			on_signal(early_signal == SIGINT ? &f.sigint
			                                 : &f.sigterm,
			          early_signal);
		uint64_t wd = hjd_watchdog_usec();
		if (wd)
			uv_timer_start(&f.watchdog, on_watchdog, wd / 2000,
			               wd / 2000);
		hjd_log(HJD_LOG_NOTICE,
		        "hashjackd %s: node %s, state %s, card "
		        "log %s",
		        HJ_VERSION_STRING, cfg->rpc_url, cfg->state_dir,
		        cfg->card_log);
		if (f.be->ops->identity(f.be, on_identity, &f))
			fatal(&f, "out of memory");
	}
	uv_run(&f.loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&f.loop) != 0)
		hjd_log(HJD_LOG_WARNING, "event loop closed with handles open");

	hjd_logfile_close(&f.log);
	hj_cardlog_release(&f.cl);
	hj_table_free(f.table);
	hj_store_close(f.store);
	close(lockfd);
	return f.exit_code;
}
