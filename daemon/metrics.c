/* hashjackd's metrics and health (metrics.h, docs/OPERATION.md). */
#include "metrics.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "prom.h"
#include "reason.h"
#include "say.h"

/* Methods counted apart; further ones count as "other" (a node client asks
 * a handful). */
#define METHODS 24

struct rpc_method {
	char name[48];
	uint64_t outcomes[HJ_RPC_OUTCOMES];
	hj_prom_hist seconds;
};

struct hjd_metrics {
	unsigned max_lag;
	uint64_t blocks, txs, batches;
	uint64_t accepted, deposits, ignored, timeouts, settled, sides;
	uint64_t rejected[HJ_R_COUNT];
	hj_prom_hist block_seconds, commit_seconds;
	struct rpc_method methods[METHODS + 1]; /* the last: "other" */
	size_t nmethods;
	/* The node's trouble while it lasts: the last failed attempt, its
	 * cause, and since when attempts fail (no success between). */
	char node_trouble[HJ_ERRLEN];
	enum hj_rpc_cause trouble_cause;
	uint64_t trouble_since_ms, trouble_attempts;
	uint64_t retries[HJ_RPC_CAUSES];
	/* Batch limits learnt from the node (rpc.h): one per method. */
	struct {
		char method[48];
		size_t limit;
	} limits[METHODS];
	size_t nlimits;
	uint64_t refusals; /* batches refused as too many or too large */

	hj_server *srv;
	hjd_metrics_snap_fn snap;
	void *snap_arg;
	void (*done)(void *);
	void *done_arg;
};

int hjd_metrics_new(unsigned max_lag, hjd_metrics **out)
{
	hjd_metrics *m = calloc(1, sizeof *m);

	*out = m;
	if (!m)
		return -ENOMEM;
	m->max_lag = max_lag;
	snprintf(m->methods[METHODS].name, sizeof m->methods[0].name, "other");
	return 0;
}

static void on_server_closed(void *arg)
{
	hjd_metrics *m = arg;
	void (*done)(void *) = m->done;
	void *done_arg = m->done_arg;
	free(m);
	if (done)
		done(done_arg);
}

void hjd_metrics_close(hjd_metrics *m, void (*done)(void *arg), void *arg)
{
	if (!m)
		return;
	m->done = done;
	m->done_arg = arg;
	if (m->srv) {
		hj_server *s = m->srv;
		m->srv = NULL;
		hj_server_close(s, on_server_closed, m);
		return;
	}
	on_server_closed(m);
}

/* ---- counting ---- */

void hjd_metrics_block(hjd_metrics *m, size_t txs, double seconds)
{
	if (!m)
		return;
	m->blocks++;
	m->txs += txs;
	hj_prom_observe(&m->block_seconds, seconds);
}

void hjd_metrics_event(hjd_metrics *m, const hj_event *ev)
{
	if (!m)
		return;
	switch (ev->type) {
	case HJ_EV_ACTION:
		m->accepted++;
		break;
	case HJ_EV_REJECT:
		if ((unsigned)ev->reason < HJ_R_COUNT)
			m->rejected[ev->reason]++;
		break;
	case HJ_EV_DEPOSIT:
		m->deposits++;
		break;
	case HJ_EV_IGNORED:
		m->ignored++;
		break;
	case HJ_EV_TIMEOUT:
		m->timeouts++;
		break;
	case HJ_EV_SETTLE:
		m->settled++;
		break;
	case HJ_EV_SIDE:
		m->sides++;
		break;
	case HJ_EV_DRAW:
	case HJ_EV_PEEK:
	case HJ_EV_SKIP:
	case HJ_EV_COMMIT:
		break;
	}
}

void hjd_metrics_commit(hjd_metrics *m, double seconds)
{
	if (!m)
		return;
	m->batches++;
	hj_prom_observe(&m->commit_seconds, seconds);
}

static struct rpc_method *method(hjd_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->nmethods; i++)
		if (strcmp(m->methods[i].name, name) == 0)
			return &m->methods[i];
	if (m->nmethods == METHODS || strlen(name) >= sizeof m->methods[0].name)
		return &m->methods[METHODS];
	struct rpc_method *r = &m->methods[m->nmethods++];
	memcpy(r->name, name, strlen(name) + 1);
	return r;
}

void hjd_metrics_rpc(void *arg, const char *name, enum hj_rpc_outcome o,
                     uint64_t us)
{
	hjd_metrics *m = arg;
	if (!m || (unsigned)o >= HJ_RPC_OUTCOMES)
		return;
	struct rpc_method *r = method(m, name ? name : "");
	r->outcomes[o]++;
	if (us > 0)
		hj_prom_observe(&r->seconds, (double)us / 1e6);
	if (o == HJ_RPC_OK || o == HJ_RPC_ERROR) {
		m->node_trouble[0] = '\0'; /* the node answers */
		m->trouble_attempts = 0;
	}
}

/* Milliseconds of a monotonic clock. */
static uint64_t now_ms(void)
{
	return uv_hrtime() / 1000000u;
}

void hjd_metrics_retry(hjd_metrics *m, const hj_rpc_retry *r)
{
	if (!m || (unsigned)r->cause >= HJ_RPC_CAUSES)
		return;
	m->retries[r->cause]++;
	if (m->trouble_attempts++ == 0)
		m->trouble_since_ms = now_ms();
	m->trouble_cause = r->cause;
	snprintf(m->node_trouble, sizeof m->node_trouble, "%s", r->what);
}

void hjd_metrics_limit(hjd_metrics *m, const hj_rpc_limit *l)
{
	size_t i;

	if (!m)
		return;
	if (l->refused)
		m->refusals++;
	for (i = 0; i < m->nlimits; i++)
		if (strcmp(m->limits[i].method, l->method) == 0)
			break;
	if (i == m->nlimits) {
		if (i == METHODS)
			return;
		snprintf(m->limits[i].method, sizeof m->limits[i].method, "%s",
		         l->method);
		m->nlimits++;
	}
	m->limits[i].limit = l->limit;
}

/* What the node does to us, in words, by the cause of its failures. */
static const char *trouble_words(enum hj_rpc_cause c)
{
	switch (c) {
	case HJ_RPC_CAUSE_CONNECT:
		return "node unreachable (no connection)";
	case HJ_RPC_CAUSE_TIMEOUT:
		return "node not answering in time";
	case HJ_RPC_CAUSE_NETWORK:
		return "node connection failing";
	case HJ_RPC_CAUSE_RATE:
		return "node rate-limiting our requests (HTTP 429)";
	case HJ_RPC_CAUSE_HTTP:
		return "node answering HTTP errors";
	case HJ_RPC_CAUSE_AUTH:
		return "node refusing the credentials";
	case HJ_RPC_CAUSE_BAD_ANSWER:
		return "node answering no valid JSON-RPC";
	case HJ_RPC_CAUSE_NODE_ERROR:
		return "node answering JSON-RPC errors";
	case HJ_RPC_CAUSE_TLS:
		return "node's TLS refused (certificate or handshake)";
	}
	return "node failing";
}

/* ---- the page ---- */

/* An amount of the chain's smallest unit as a sample: exact up to 2^53,
 * then a double's 17 digits (the ledger has the exact figures). */
static double amount(hj_amount a)
{
	return (double)a;
}

int hjd_metrics_text(const hjd_metrics *m, const hjd_metrics_snap *s,
                     char **out, size_t *len)
{
	hj_prom t = {0};
	const char *l[4];

	hj_prom_gauge(&t, "hashjackd_up",
	              "1 while the daemon follows the chain (0 once stopping)",
	              s->stopping ? 0 : 1);
	hj_prom_gauge(&t, "hashjackd_block_height",
	              "the last block processed (-1 before the first)",
	              s->have_height ? (double)s->height : -1);
	hj_prom_gauge(&t, "hashjackd_node_tip_height",
	              "the node's highest block (-1 before it answered)",
	              s->have_tip ? (double)s->tip : -1);
	hj_prom_gauge(&t, "hashjackd_final_height",
	              "the highest block final by the configured "
	              "confirmations (-1 before the node answered)",
	              s->have_tip ? (double)s->final_tip : -1);
	hj_prom_gauge(&t, "hashjackd_lag_blocks",
	              "final blocks not processed yet", (double)s->lag_blocks);
	hj_prom_gauge(&t, "hashjackd_lag_seconds",
	              "how long the oldest final block not processed has "
	              "waited since the daemon saw it final (0: none waits)",
	              s->lag_seconds);
	hj_prom_counter(&t, "hashjackd_blocks_total", "blocks processed",
	                m->blocks);
	hj_prom_counter(&t, "hashjackd_transactions_total",
	                "transactions to the dealer read in processed blocks "
	                "(each makes an event but, on the Bitcoin family, "
	                "another dealer's zero-value action)",
	                m->txs);
	hj_prom_counter(&t, "hashjackd_batches_total", "batches committed",
	                m->batches);

	hj_prom_counter(&t, "hashjackd_actions_accepted_total",
	                "actions accepted", m->accepted);
	hj_prom_family(&t, "hashjackd_actions_rejected_total", "counter",
	               "actions rejected (refunded), by reason");
	for (int r = 1; r < HJ_R_COUNT; r++) {
		if (r == HJ_R_NO_MAGIC)
			continue; /* a deposit, never a rejection */
		l[0] = "reason";
		l[1] = hj_reason_name(r);
		hj_prom_sample_u64(&t, "hashjackd_actions_rejected_total", l, 1,
		                   m->rejected[r]);
	}
	hj_prom_counter(&t, "hashjackd_deposits_total",
	                "transfers to the dealer without an action (kept, not "
	                "refunded)",
	                m->deposits);
	hj_prom_counter(&t, "hashjackd_failed_transactions_total",
	                "transactions to the dealer with a failed receipt "
	                "(ignored)",
	                m->ignored);
	hj_prom_counter(&t, "hashjackd_timeouts_total",
	                "actions applied by a round's timeout", m->timeouts);
	hj_prom_counter(&t, "hashjackd_rounds_settled_total", "rounds settled",
	                m->settled);
	hj_prom_counter(&t, "hashjackd_side_bets_settled_total",
	                "rounds whose side bets settled", m->sides);
	if (s->committed) {
		hj_prom_gauge(
		    &t, "hashjackd_seeds_left",
		    "committed cards: seeds of the chain in force for "
		    "blocks from the next on, plus every scheduled "
		    "chain's",
		    (double)s->seeds.seeds_left);
		hj_prom_gauge(
		    &t, "hashjackd_seed_chain_planned",
		    "1 while a seed chain of this daemon waits for its "
		    "Commit to be dealt",
		    (double)s->seeds.planned);
	}
	hj_prom_gauge(&t, "hashjackd_open_rounds", "open rounds",
	              (double)s->open_rounds);
	hj_prom_gauge(&t, "hashjackd_open_rounds_worst_case",
	              "the open rounds' worst-case returns, in the chain's "
	              "smallest unit",
	              amount(s->exposure));

	if (s->have_totals) {
		const struct {
			const char *state;
			const hj_tally *t;
		} st[] = {{"owed", &s->totals.owed},
		          {"in_flight", &s->totals.submitted},
		          {"confirmed", &s->totals.confirmed}};
		hj_prom_family(&t, "hashjackd_payouts", "gauge",
		               "payouts by state: owed (not yet sent), in "
		               "flight (sent, not final), confirmed");
		for (size_t i = 0; i < 3; i++) {
			l[0] = "state";
			l[1] = st[i].state;
			hj_prom_sample_u64(&t, "hashjackd_payouts", l, 1,
			                   st[i].t->n);
		}
		hj_prom_gauge(&t, "hashjackd_swept_amount",
		              "sent to the cold address by sweeps now final "
		              "([payout] sweep_to), in the chain's smallest "
		              "unit; they count among the payouts too",
		              amount(s->totals.swept.sum));
		hj_prom_gauge(&t, "hashjackd_sweeps",
		              "sweeps to the cold address now final",
		              (double)s->totals.swept.n);
		hj_prom_gauge(&t, "hashjackd_orphaned_payouts",
		              "payouts sent for blocks that left the chain "
		              "(orphaned by hashjack reorg --rewind): the "
		              "dealer's loss unless the new chain owes them "
		              "again; they count among the payouts too",
		              (double)s->totals.orphaned.n);
		hj_prom_gauge(&t, "hashjackd_orphaned_amount",
		              "the orphaned payouts' sum, in the chain's "
		              "smallest unit",
		              amount(s->totals.orphaned.sum));
		hj_prom_family(&t, "hashjackd_payouts_amount", "gauge",
		               "payouts' sum by state, in the chain's smallest "
		               "unit (exact to 2^53; `hashjack ledger` has "
		               "the exact sums)");
		for (size_t i = 0; i < 3; i++) {
			l[0] = "state";
			l[1] = st[i].state;
			hj_prom_sample(&t, "hashjackd_payouts_amount", l, 1,
			               amount(st[i].t->sum));
		}
	}
	hj_prom_gauge(&t, "hashjackd_payouts_enabled",
	              "1 when payouts are sent, 0 when only recorded",
	              s->have_payer);
	if (s->have_payer) {
		hj_prom_gauge(&t, "hashjackd_payouts_halted",
		              "1 while payouts are halted until an operator "
		              "looks",
		              s->pay.halted);
		hj_prom_gauge(&t, "hashjackd_funds_insufficient",
		              "1 while the balance does not cover what is owed",
		              s->pay.insufficient);
		hj_prom_gauge(
		    &t, "hashjackd_balance",
		    "the dealer's balance as last read, in the chain's "
		    "smallest unit (-1 before the first reading)",
		    s->pay.have_balance ? amount(s->pay.balance) : -1);
		hj_prom_counter(&t, "hashjackd_payout_passes_total",
		                "payout passes", s->pay.passes);
		hj_prom_counter(&t, "hashjackd_payout_send_failures_total",
		                "payout sends that failed (retried after a "
		                "backoff)",
		                s->pay.send_failures);
		hj_prom_gauge(&t, "hashjackd_payout_minimum",
		              "the least paid to a recipient, in the chain's "
		              "smallest unit: [payout] dust_limit (Bitcoin "
		              "family) or min_refund (EVM, refunds alone); -1 "
		              "until known",
		              s->pay.have_min ? amount(s->pay.min) : -1);
		hj_prom_gauge(&t, "hashjackd_payouts_waiting",
		              "owed payouts waiting until their recipient is "
		              "owed the minimum",
		              (double)s->pay.waiting_n);
		hj_prom_gauge(&t, "hashjackd_payouts_waiting_amount",
		              "their sum, in the chain's smallest unit",
		              amount(s->pay.waiting_sum));
	}

	hj_prom_family(&t, "hashjackd_rpc_requests_total", "counter",
	               "node requests (attempts) by method (a batch's first) "
	               "and outcome: ok, error (the node's error answer), "
	               "retried, failed");
	for (size_t i = 0; i <= METHODS; i++) {
		const struct rpc_method *r = &m->methods[i];
		if (i >= m->nmethods && i != METHODS)
			continue;
		for (int o = 0; o < HJ_RPC_OUTCOMES; o++) {
			l[0] = "method";
			l[1] = r->name;
			l[2] = "outcome";
			l[3] = hj_rpc_outcome_name(o);
			hj_prom_sample_u64(&t, "hashjackd_rpc_requests_total",
			                   l, 2, r->outcomes[o]);
		}
	}
	hj_prom_family(&t, "hashjackd_rpc_retries_total", "counter",
	               "node requests tried again, by cause: connect, timeout, "
	               "network, rate_limited (HTTP 429), http (another "
	               "status), auth, bad_answer, node_error, tls");
	for (int c = 0; c < HJ_RPC_CAUSES; c++) {
		l[0] = "cause";
		l[1] = hj_rpc_cause_name(c);
		hj_prom_sample_u64(&t, "hashjackd_rpc_retries_total", l, 1,
		                   m->retries[c]);
	}
	hj_prom_counter(&t, "hashjackd_rpc_batch_refusals_total",
	                "batches the node (or a proxy) refused as too many "
	                "calls or too large, sent again in smaller parts",
	                m->refusals);
	hj_prom_family(&t, "hashjackd_rpc_batch_limit", "gauge",
	               "calls per batch request learnt from the node's "
	               "refusals, by method (none: no limit seen)");
	for (size_t i = 0; i < m->nlimits; i++) {
		l[0] = "method";
		l[1] = m->limits[i].method;
		hj_prom_sample(&t, "hashjackd_rpc_batch_limit", l, 1,
		               (double)m->limits[i].limit);
	}
	hj_prom_gauge(&t, "hashjackd_node_up",
	              "0 while the node's last request failed and none has "
	              "succeeded since",
	              m->node_trouble[0] ? 0 : 1);
	hj_prom_family(&t, "hashjackd_rpc_duration_seconds", "histogram",
	               "node requests' time to their answer's last byte, by "
	               "method");
	for (size_t i = 0; i <= METHODS; i++) {
		const struct rpc_method *r = &m->methods[i];
		if (i >= m->nmethods && i != METHODS)
			continue;
		l[0] = "method";
		l[1] = r->name;
		hj_prom_hist_samples(&t, "hashjackd_rpc_duration_seconds", l, 1,
		                     &r->seconds);
	}
	hj_prom_family(&t, "hashjackd_block_duration_seconds", "histogram",
	               "time to deal a block and write its line");
	hj_prom_hist_samples(&t, "hashjackd_block_duration_seconds", NULL, 0,
	                     &m->block_seconds);
	hj_prom_family(&t, "hashjackd_commit_duration_seconds", "histogram",
	               "time to commit a batch (the card log's sync and the "
	               "store's transaction)");
	hj_prom_hist_samples(&t, "hashjackd_commit_duration_seconds", NULL, 0,
	                     &m->commit_seconds);
	return hj_prom_take(&t, out, len);
}

int hjd_metrics_health(const hjd_metrics *m, const hjd_metrics_snap *s,
                       char **out, size_t *len)
{
	json_t *o = json_object(), *why = json_array();
	char buf[HJ_ERRLEN];
	if (!o || !why)
		goto oom;
	if (s->stopping)
		json_array_append_new(why, json_string("stopping"));
	if (m->node_trouble[0]) {
		uint64_t now = now_ms();

		hj_say(buf, sizeof buf,
		       "%s, %llu failed attempt%s since %.0f s ago: %s",
		       trouble_words(m->trouble_cause),
		       (unsigned long long)m->trouble_attempts,
		       m->trouble_attempts == 1 ? "" : "s",
		       (double)(now - m->trouble_since_ms) / 1000.0,
		       m->node_trouble);
		json_array_append_new(why, json_string(buf));
	} else if (!s->have_tip) {
		json_array_append_new(
		    why,
		    json_string("starting: the node has not answered yet"));
	}
	if (s->lag_blocks > m->max_lag) {
		snprintf(buf, sizeof buf,
		         "lagging: %llu final blocks not processed (more than "
		         "max_lag %u), the oldest waiting %.0f s",
		         (unsigned long long)s->lag_blocks, m->max_lag,
		         s->lag_seconds);
		json_array_append_new(why, json_string(buf));
	}
	if (s->have_payer && s->pay.halted) {
		snprintf(buf, sizeof buf, "payouts halted: %s", s->pay.warning);
		json_array_append_new(why, json_string(buf));
	}
	if (s->committed && !s->seeds.in_force) {
		if (s->seeds.planned)
			snprintf(
			    buf, sizeof buf,
			    "no seed chain in force: blocks are void until "
			    "the Commit planned for block %llu is dealt",
			    (unsigned long long)s->seeds.planned_start);
		else
			snprintf(buf, sizeof buf,
			         "no seed chain in force: blocks are void");
		json_array_append_new(why, json_string(buf));
	}
	if (s->have_payer && s->pay.insufficient) {
		snprintf(buf, sizeof buf, "insufficient funds: %s",
		         s->pay.warning);
		json_array_append_new(why, json_string(buf));
	}
	int ok = json_array_size(why) == 0;
	json_object_set_new(o, "ok", json_boolean(ok));
	json_object_set_new(o, "reasons", why);
	why = NULL;
	if (s->have_height)
		json_object_set_new(o, "height",
		                    json_integer((json_int_t)s->height));
	if (s->have_tip)
		json_object_set_new(o, "tip", json_integer((json_int_t)s->tip));
	json_object_set_new(o, "lagBlocks",
	                    json_integer((json_int_t)s->lag_blocks));
	if (s->warning) {
		json_t *w = json_array();
		json_array_append_new(w, json_string(s->warning));
		json_object_set_new(o, "warnings", w);
	}
	*out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                         JSON_ENSURE_ASCII);
	json_decref(o);
	if (!*out)
		return -1;
	*len = strlen(*out);
	return ok ? 200 : 503;
oom:
	json_decref(o);
	json_decref(why);
	return -1;
}

/* ---- the listener ---- */

static void respond(hj_conn *c, int status, const char *type, char *body,
                    size_t len)
{
	if (!body) {
		static const char oom[] = "{\"error\":\"out of memory\"}";
		hj_conn_respond(c, 503, "application/json", oom,
		                sizeof oom - 1);
		return;
	}
	hj_conn_respond(c, status, type, body, len);
	free(body);
}

static void on_request(void *ctx, hj_conn *c, const hj_server_req *r)
{
	hjd_metrics *m = ctx;
	hjd_metrics_snap s;
	char *body = NULL, msg[160];
	size_t len = 0;
	int metrics = strcmp(r->path, "/metrics") == 0;
	int health = strcmp(r->path, "/healthz") == 0;

	if (!metrics && !health) {
		snprintf(msg, sizeof msg,
		         "{\"error\":\"no such path: this listener answers "
		         "/metrics and /healthz\"}");
		hj_conn_respond(c, 404, "application/json", msg, strlen(msg));
		return;
	}
	if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) {
		snprintf(msg, sizeof msg,
		         "{\"error\":\"method %s: only GET and HEAD\"}",
		         strlen(r->method) < 16 ? r->method : "?");
		hj_conn_respond(c, 405, "application/json", msg, strlen(msg));
		return;
	}
	memset(&s, 0, sizeof s);
	m->snap(m->snap_arg, &s);
	if (metrics) {
		hjd_metrics_text(m, &s, &body, &len);
		respond(c, 200, "text/plain; version=0.0.4; charset=utf-8",
		        body, len);
	} else {
		int status = hjd_metrics_health(m, &s, &body, &len);
		respond(c, status, "application/json", body, len);
	}
}

static int on_ws_open(void *ctx, hj_conn *c, const hj_server_req *r)
{
	(void)r;
	on_request(ctx, c, &(hj_server_req){.method = "GET", .path = ""});
	return -1;
}

int hjd_metrics_serve(hjd_metrics *m, uv_loop_t *loop, hjd_metrics_snap_fn snap,
                      void *arg, hj_server **out)
{
	hj_server_limits lim;
	hj_server_handler h = {
	    .request = on_request, .ws_open = on_ws_open, .ctx = m};

	hj_server_limits_default(&lim);
	/* A scraper or two and a monitor: a few connections, small requests. */
	lim.max_conns = 64;
	lim.max_conns_per_ip = 16;
	lim.max_out = (size_t)4 << 20;
	m->snap = snap;
	m->snap_arg = arg;
	if (hj_server_new(loop, &lim, &h, &m->srv) != 0) {
		*out = NULL;
		return UV_ENOMEM;
	}
	*out = m->srv;
	return 0;
}

int hjd_metrics_listen(hjd_metrics *m, uv_loop_t *loop, const char *host,
                       unsigned port, hjd_metrics_snap_fn snap, void *arg,
                       unsigned *bound, char *err, size_t errlen)
{
	hj_server *s;

	if (hjd_metrics_serve(m, loop, snap, arg, &s)) {
		hj_say(err, errlen, "out of memory");
		return UV_ENOMEM;
	}
	return hj_server_listen(s, host, port, bound, err, errlen);
}
