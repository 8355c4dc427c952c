/*
 * Bitcoin-family payouts through the node's wallet (payout_btc.h,
 * docs/PAYOUTS.md).
 *
 * A pass, started by a kick and never two at once, walks these steps, each
 * an RPC call on the wallet's client whose callback goes on to the next:
 *
 *   1. the planned batch, if any (at most one exists):
 *        planned in this process and never sent: send it (5);
 *        else getrpcinfo until the node runs no sendmany (a call of ours
 *        that timed out, or was cut by a crash, may still be running), then
 *        look for its comment in the wallet (listtransactions, newest
 *        first): found, check the transaction pays exactly the batch's
 *        outputs (gettransaction, the raw hex) and record its txid; not
 *        found, send it (5);
 *   2. each sent batch: gettransaction; confirmed at the daemon's depth,
 *      or replaced (bumpfee), or conflicted by a final transaction (then
 *      look for another transaction with its comment before the payouts
 *      are owed again);
 *   3. if no batch is planned: group what is owed by recipient, keep the
 *      recipients owed at least the dust limit, plan a batch of at most
 *      max_outputs of them (committed), send it (5); what goes into it is
 *      payout_policy.h's hjd_btc_plan_owed;
 *   4. getbalance, the totals, STATUS;
 *   5. (send) sendmany with HJ_RPC_ONCE: a txid is committed at once; a
 *      refusal by the node lets the payouts go (the next pass plans them
 *      again, after a backoff); no answer leaves the batch planned, to be
 *      looked up (1) before it is ever sent again.
 *
 * Every write is one store transaction; a failed one is fatal (the follower
 * stops, a restart resumes from the last commit).
 */
#include "payout_btc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bech32.h"
#include "btc.h"
#include "btc_tx.h"
#include "hex.h"
#include "log.h"
#include "payer_base.h"
#include "payout_policy.h"
#include "quote.h"
#include "say.h"
#include "taproot.h"

#define OPEN_MAX  64  /* batches looked at per pass; the rest next pass */
#define PAGE      100 /* listtransactions entries per call */
#define MATCH_MAX 8   /* distinct transactions kept for one comment */
/* How far before a batch was planned its transaction may appear to have
 * been received: the node's clock against ours.  Looking further back only
 * costs more pages. */
#define SCAN_MARGIN_S   7200
#define RPCINFO_WAIT_MS 250
/* The sendmany arguments: at most max_outputs (1000) outputs of about 130
 * bytes each. */
#define PARAMS_MAX                    ((size_t)1 << 20)
#define COIN                          100000000u
#define RPC_WALLET_INSUFFICIENT_FUNDS (-6)
#define RPC_INVALID_ADDRESS_OR_KEY    (-5)

struct match {
	uint8_t txid[32];
	long long conf;
	int replacement; /* replaces or was replaced by another (bumpfee) */
};

typedef struct btc_payer {
	hjd_payer base; /* first: the base's hooks cast it back */
	char *wallet;
	const char *hrp;
	hj_secp *secp;
	char tag[17];
	hj_amount dust;
	unsigned max_outputs, conf;

	int64_t fresh; /* planned by this process, never sent: no lookup */
	/* base.halted is set when a transaction with a batch's comment does
	 * not pay its outputs. */

	/* The pass. */
	hj_batch open[OPEN_MAX];
	size_t nopen, cur;
	int64_t planned;        /* its id, 0 when none */
	hj_batch planned_batch; /* its row, when planned is not 0 */
	int64_t send_id;
	int64_t send_at; /* unix seconds, when sendmany went out */
	hj_amount send_total;
	char refusal[HJ_ERRLEN];
	long long refusal_code;
	int funds_refused; /* the last sendmany was refused for funds */
	int send_new;      /* the batch in sendmany was planned in step 3 */
	int more; /* step 3 left payable recipients out (max_outputs) */
	uint64_t rpcinfo_since;
	int64_t scan_id, scan_since;
	long long scan_skip;
	void (*scan_done)(struct btc_payer *p);
	struct match matches[MATCH_MAX];
	size_t nmatch;
	uint8_t verify_txid[32];
	char *params;
	size_t params_len, params_cap;

	/* What STATUS shows. */
	hj_settle_totals tot;
	int have_tot;
	uint64_t dust_n, unpayable_n;
	hj_amount dust_sum, payable;
} btc_payer;

static void after_planned(btc_payer *p);
static void after_scan_revert(btc_payer *p);
static void after_scan_planned(btc_payer *p);
static void after_scan_refused(btc_payer *p);
static void confirm_next(btc_payer *p);
static void plan_new(btc_payer *p);
static void balance(btc_payer *p);
static void pass_end(btc_payer *p);
static void send_batch(btc_payer *p, int64_t id, int fresh_plan);

/* ---- small helpers ---- */

static void txid_hex(const uint8_t t[32], char out[65])
{
	hj_hex_encode(t, 32, 0, out);
}

static int txid_parse(json_t *v, uint8_t out[32])
{
	if (!json_is_string(v))
		return -1;
	return hj_hex_decode_exact(json_string_value(v), json_string_length(v),
	                           HJ_HEX_BARE, out, 32, NULL, 0)
	           ? -1
	           : 0;
}

/* Base units as the node writes coins: exactly 8 decimals. */
static void coins(hj_amount v, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRIu64 ".%08" PRIu64, (uint64_t)(v / COIN),
	         (uint64_t)(v % COIN));
}

/*
 * A coin amount the node sent (a JSON number with 8 decimals) in base
 * units, for display and warnings only: jansson hands it over as a double,
 * and printing that with 8 decimals gives the node's digits back for every
 * amount below 2^53 base units.  Nothing that settles uses this.
 */
static int units_of(json_t *v, hj_amount *out)
{
	char buf[64], *dot;
	hj_amount whole, frac = 0;
	double d;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (hj_amount)json_integer_value(v) * COIN;
		return 0;
	}
	if (!json_is_real(v))
		return -1;
	d = json_real_value(v);
	if (!(d >= 0 && d < 9.0e7))
		return -1;
	snprintf(buf, sizeof buf, "%.8f", d);
	dot = strchr(buf, '.');
	if (dot == NULL || strlen(dot + 1) != 8 ||
	    hj_amount_parse(buf, (size_t)(dot - buf), &whole))
		return -1;
	for (const char *c = dot + 1; *c; c++)
		frac = frac * 10 + (hj_amount)(*c - '0');
	*out = whole * COIN + frac;
	return 0;
}

static void comment_of(const btc_payer *p, int64_t id, char *buf, size_t n)
{
	snprintf(buf, n, "hashjack:%s:%lld", p->tag, (long long)id);
}

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

/* ---- 1. the planned batch ---- */

static void scan_page(btc_payer *p);

/* Looks for wallet transactions whose comment names batch id, received
 * since `since` (unix seconds, minus the margin); then calls done with
 * p->matches filled. */
static void scan(btc_payer *p, int64_t id, int64_t since,
                 void (*done)(btc_payer *p))
{
	p->scan_id = id;
	p->scan_since = since - SCAN_MARGIN_S;
	p->scan_skip = 0;
	p->scan_done = done;
	p->nmatch = 0;
	scan_page(p);
}

static void add_match(btc_payer *p, json_t *e)
{
	struct match m;

	memset(&m, 0, sizeof m);
	if (txid_parse(json_object_get(e, "txid"), m.txid))
		return;
	m.conf = json_integer_value(json_object_get(e, "confirmations"));
	m.replacement = json_object_get(e, "replaced_by_txid") != NULL ||
	                json_object_get(e, "replaces_txid") != NULL;
	for (size_t i = 0; i < p->nmatch; i++)
		if (memcmp(p->matches[i].txid, m.txid, 32) == 0)
			return;
	if (p->nmatch < MATCH_MAX)
		p->matches[p->nmatch++] = m;
}

static void on_scan_page(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char want[64], msg[HJ_ERRLEN];
	int older = 0;
	size_t i, n;
	json_t *el;

	if (p->base.closing)
		return;
	if (e != NULL || !json_is_array(result)) {
		snprintf(msg, sizeof msg,
		         "payouts: looking for batch %lld in wallet %s: %s; "
		         "nothing is sent before it is found or known absent",
		         (long long)p->scan_id, p->wallet,
		         e ? e->text
		           : "listtransactions did not return a list");
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		/* Without the whole answer neither "found" nor "absent" is
		 * known: give up this lookup until later. */
		if (p->scan_done == after_scan_revert) {
			p->cur++;
			confirm_next(p);
		} else {
			hjd_payer_base_backoff(&p->base);
			after_planned(p);
		}
		return;
	}
	comment_of(p, p->scan_id, want, sizeof want);
	n = json_array_size(result);
	json_array_foreach(result, i, el)
	{
		json_t *c = json_object_get(el, "comment");
		json_t *cat = json_object_get(el, "category");
		json_t *tr = json_object_get(el, "timereceived");

		if (i == 0 && json_is_integer(tr) &&
		    json_integer_value(tr) < p->scan_since)
			older = 1;
		if (json_is_string(c) &&
		    strcmp(json_string_value(c), want) == 0 &&
		    json_is_string(cat) &&
		    strcmp(json_string_value(cat), "send") == 0)
			add_match(p, el);
	}
	/* Pages run from the newest back; the first entry of a page is its
	 * oldest.  Done at the wallet's first transaction, or once a whole
	 * page was received before the batch was planned. */
	if (n < PAGE || older) {
		p->scan_done(p);
		return;
	}
	p->scan_skip += PAGE;
	scan_page(p);
}

static void scan_page(btc_payer *p)
{
	json_t *params =
	    json_pack("[s, i, I, b]", "*", PAGE, (json_int_t)p->scan_skip, 1);

	if (params == NULL ||
	    hj_rpc_call_x(p->base.rpc, "listtransactions", params, NULL,
	                  HJ_RPC_NODE_ERRORS, on_scan_page, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* The outputs a batch must have, as scripts, for the check below. */
struct want_out {
	char addr[HJ_BECH32_BUF];
	uint8_t script[HJ_BTC_SCRIPT_MAX];
	size_t len;
	hj_amount amount;
	int seen;
};

struct want_list {
	struct want_out *v;
	size_t n, cap;
	char err[HJ_ERRLEN];
};

static int collect_want(void *arg, const char *address, hj_amount amount)
{
	struct want_list *w = arg;
	const char *hrp;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct want_out *v = realloc(w->v, cap * sizeof *v);

		if (v == NULL)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	memset(&w->v[w->n], 0, sizeof w->v[0]);
	if (strlen(address) >= HJ_BECH32_BUF ||
	    hj_btc_address_script(address, w->v[w->n].script, &w->v[w->n].len,
	                          &hrp, w->err, sizeof w->err))
		return -EINVAL;
	memcpy(w->v[w->n].addr, address, strlen(address) + 1);
	w->v[w->n++].amount = amount;
	return 0;
}

/*
 * Whether raw (hex) is a transaction with txid that pays every output of
 * batch id exactly (other outputs, the change, are the wallet's business).
 * 1 yes, 0 no (why says), -1 a store failure (why says).
 */
static int pays_batch(btc_payer *p, int64_t id, json_t *hex,
                      const uint8_t txid[32], char *why, size_t n)
{
	struct want_list w = {0};
	uint8_t *raw = NULL, got[32];
	size_t len, rawlen;
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output o;
	char err[HJ_ERRLEN];
	int rc = 0;

	if (!json_is_string(hex)) {
		hj_say(why, n, "gettransaction gave no hex");
		return 0;
	}
	rc = hj_store_batch_outputs(p->base.store, id, collect_want, &w, err,
	                            sizeof err);
	if (rc) {
		hj_say(why, n, "%s", rc == -EINVAL && w.err[0] ? w.err : err);
		free(w.v);
		return rc == -EINVAL && w.err[0] ? 0 : -1;
	}
	len = json_string_length(hex);
	raw = malloc(len / 2 + 1);
	if (raw == NULL) {
		hj_say(why, n, "out of memory");
		free(w.v);
		return -1;
	}
	rc = 0;
	if (hj_hex_decode(json_string_value(hex), len, HJ_HEX_BARE, raw,
	                  len / 2 + 1, &rawlen, why, n) ||
	    hj_btc_tx_parse(raw, rawlen, &tx, why, n))
		goto out;
	hj_btc_tx_txid(&tx, got);
	for (int k = 0; k < 16; k++) {
		uint8_t t = got[k];
		got[k] = got[31 - k];
		got[31 - k] = t;
	}
	if (memcmp(got, txid, 32) != 0) {
		hj_say(why, n, "its hex does not hash to its txid");
		goto out;
	}
	hj_btc_outputs_begin(&tx, &it);
	while (hj_btc_outputs_next(&it, &o)) {
		for (size_t i = 0; i < w.n; i++) {
			struct want_out *x = &w.v[i];

			if (!x->seen && x->len == o.script_len &&
			    memcmp(x->script, o.script, x->len) == 0 &&
			    x->amount == (hj_amount)o.value) {
				x->seen = 1;
				break;
			}
		}
	}
	rc = 1;
	for (size_t i = 0; i < w.n; i++) {
		if (!w.v[i].seen) {
			char a[32];

			coins(w.v[i].amount, a, sizeof a);
			hj_say(why, n, "it does not pay %s to %s", a,
			       w.v[i].addr);
			rc = 0;
			break;
		}
	}
out:
	free(raw);
	free(w.v);
	return rc;
}

static void on_verify(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char why[HJ_ERRLEN], err[HJ_ERRLEN], tx[65], msg[HJ_ERRLEN];
	int64_t id = p->planned;
	int ok;

	if (p->base.closing)
		return;
	txid_hex(p->verify_txid, tx);
	if (e != NULL) {
		snprintf(msg, sizeof msg,
		         "payouts: batch %lld: reading transaction %s: %s; "
		         "asking again later",
		         (long long)id, tx, e->text);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		hjd_payer_base_backoff(&p->base);
		after_planned(p);
		return;
	}
	ok = pays_batch(p, id, json_object_get(result, "hex"), p->verify_txid,
	                why, sizeof why);
	if (ok < 0) {
		hjd_payer_base_fatal(&p->base, why);
		return;
	}
	if (!ok) {
		p->base.halted = 1;
		hj_say(p->base.warning, sizeof p->base.warning,
		       "PAYOUTS HALTED: transaction %s of wallet %s carries "
		       "the comment of batch %lld but does not pay its outputs "
		       "(%s); nothing more is sent until an operator checks "
		       "(docs/PAYOUTS.md)",
		       tx, p->wallet, (long long)id, why);
		hjd_log(HJD_LOG_ERR, "payouts: %s", p->base.warning);
		after_planned(p);
		return;
	}
	if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
	    hjd_payer_base_commit(
	        &p->base,
	        hj_store_batch_sent(p->base.store, id, p->verify_txid,
	                            p->base.tip, now_s(), err, sizeof err),
	        err, sizeof err))
		return;
	hjd_log(HJD_LOG_NOTICE,
	        "payouts: batch %lld was sent before (found in wallet %s by "
	        "its comment): txid %s, recorded",
	        (long long)id, p->wallet, tx);
	p->base.dirty = 1;
	after_planned(p);
}

static void after_scan_planned(btc_payer *p)
{
	const struct match *best = NULL;
	size_t live = 0;
	char a[65], b[65];

	for (size_t i = 0; i < p->nmatch; i++) {
		const struct match *m = &p->matches[i];

		if (best == NULL || m->conf > best->conf)
			best = m;
		if (m->conf >= 0 && !m->replacement)
			live++;
	}
	if (best == NULL) {
		/* Never reached the wallet: send it again, same outputs, same
		 * comment. */
		hjd_log(HJD_LOG_NOTICE,
		        "payouts: batch %lld is not in wallet %s: sending it "
		        "(again)",
		        (long long)p->planned, p->wallet);
		send_batch(p, p->planned, 0);
		return;
	}
	if (live > 1) {
		txid_hex(p->matches[0].txid, a);
		txid_hex(p->matches[1].txid, b);
		hjd_log(HJD_LOG_ERR,
		        "payouts: batch %lld is in wallet %s %zu times (%s, "
		        "%s, ...): its outputs were paid more than once; the "
		        "daemon records one and never sends it again",
		        (long long)p->planned, p->wallet, live, a, b);
	}
	memcpy(p->verify_txid, best->txid, 32);
	txid_hex(best->txid, a);
	if (hj_rpc_call_x(p->base.rpc, "gettransaction",
	                  json_pack("[s, b]", a, 1), NULL, HJ_RPC_NODE_ERRORS,
	                  on_verify, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void on_rpcinfo(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	json_t *active = json_object_get(result, "active_commands"), *c;
	uint64_t now = uv_now(p->base.loop);
	char msg[HJ_ERRLEN];
	size_t i;
	int busy = 0;

	if (p->base.closing)
		return;
	if (e != NULL || !json_is_array(active)) {
		/* Not knowing is not a reason to skip the wait. */
		snprintf(msg, sizeof msg,
		         "payouts: getrpcinfo: %s; asking again",
		         e ? e->text : "no active_commands");
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		busy = 1;
	}
	json_array_foreach(active, i, c)
	{
		json_t *m = json_object_get(c, "method");

		if (json_is_string(m) &&
		    strcmp(json_string_value(m), "sendmany") == 0)
			busy = 1;
	}
	if (busy) {
		if (now - p->rpcinfo_since >= 10000) {
			snprintf(
			    msg, sizeof msg,
			    "payouts: the node is running a sendmany; "
			    "waiting for it to end before looking for batch "
			    "%lld in wallet %s",
			    (long long)p->planned, p->wallet);
			hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		}
		hjd_payer_base_timer(&p->base, RPCINFO_WAIT_MS);
		return;
	}
	scan(p, p->planned, p->planned_batch.created_at, after_scan_planned);
}

static void rpcinfo(btc_payer *p)
{
	if (hj_rpc_call_x(p->base.rpc, "getrpcinfo", NULL, NULL,
	                  HJ_RPC_NODE_ERRORS, on_rpcinfo, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* ---- 5. sendmany ---- */

struct params_buf {
	btc_payer *p;
	size_t n;
	hj_amount total;
};

static int put(btc_payer *p, const char *s)
{
	size_t k = strlen(s);

	if (p->params_len + k + 1 > p->params_cap) {
		size_t cap = p->params_cap ? p->params_cap : 4096;
		char *b;

		while (cap < p->params_len + k + 1)
			cap *= 2;
		if (cap > PARAMS_MAX)
			return -E2BIG;
		b = realloc(p->params, cap);
		if (b == NULL)
			return -ENOMEM;
		p->params = b;
		p->params_cap = cap;
	}
	memcpy(p->params + p->params_len, s, k + 1);
	p->params_len += k;
	return 0;
}

/* "address":0.00012345 -- the address is bech32 (lower-case letters and
 * digits, checked when planned), the amount exact. */
static int put_output(void *arg, const char *address, hj_amount amount)
{
	struct params_buf *b = arg;
	char a[40], item[200];

	if (amount > HJD_BTC_OUTPUT_MAX || strlen(address) >= HJ_BECH32_BUF)
		return -ERANGE;
	for (const char *c = address; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
			return -EINVAL;
	coins(amount, a, sizeof a);
	snprintf(item, sizeof item, "%s\"%s\":%s", b->n ? "," : "", address, a);
	b->n++;
	b->total += amount;
	return put(b->p, item);
}

static void on_sent(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	int64_t id = p->send_id;
	char err[HJ_ERRLEN], msg[HJ_ERRLEN], tx[65];
	uint8_t txid[32];
	int fresh_plan = p->send_new;
	int refused;

	if (p->base.closing)
		return;
	p->fresh = 0;
	if (e == NULL && txid_parse(result, txid) == 0) {
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(&p->base,
		                          hj_store_batch_sent(p->base.store, id,
		                                              txid, p->base.tip,
		                                              now_s(), err,
		                                              sizeof err),
		                          err, sizeof err))
			return;
		txid_hex(txid, tx);
		hjd_log(HJD_LOG_NOTICE,
		        "payouts: batch %lld sent by wallet %s: txid %s",
		        (long long)id, p->wallet, tx);
		p->base.last_note[0] = '\0';
		hjd_payer_base_backoff_reset(&p->base);
		if (strncmp(p->base.warning, "INSUFFICIENT", 12) == 0)
			p->base.warning[0] = '\0';
		p->funds_refused = 0;
		/* What was payable is in flight now: the balance read next
		 * no longer holds it, and need not. */
		if (fresh_plan)
			p->payable -= p->payable < p->send_total
			                  ? p->payable
			                  : p->send_total;
		if (p->more)
			p->base.dirty = 1;
		if (fresh_plan)
			balance(p);
		else
			after_planned(p);
		return;
	}
	/* A node's refusal means the wallet made no transaction (Bitcoin
	 * Core checks everything before it commits one); anything else may
	 * have reached the wallet. */
	refused = e != NULL && e->kind == HJ_RPC_ERR_NODE;
	if (refused) {
		/* Even so, the batch is let go only once its comment is known
		 * to be absent from the wallet. */
		snprintf(p->refusal, sizeof p->refusal,
		         "the node refused sendmany: %s", e->text);
		p->refusal_code = e->code;
		p->planned = id;
		scan(p, id, p->send_at, after_scan_refused);
		return;
	}
	if (e == NULL)
		snprintf(msg, sizeof msg,
		         "sendmany answered no txid: the wallet may have sent "
		         "it");
	else
		snprintf(
		    msg, sizeof msg,
		    "no answer to sendmany (%s): the wallet may or may not "
		    "have sent it",
		    e->text);
	if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
	    hjd_payer_base_commit(&p->base,
	                          hj_store_batch_failed(p->base.store, id, msg,
	                                                0, err, sizeof err),
	                          err, sizeof err))
		return;
	hjd_payer_base_backoff(&p->base);
	hjd_log(
	    HJD_LOG_ERR,
	    "payouts: batch %lld: %s; it will be looked for in the wallet "
	    "by its comment before it is ever sent again; next try in %u s "
	    "or at the next block",
	    (long long)id, msg,
	    (unsigned)((p->base.retry_at - uv_now(p->base.loop) + 999) / 1000));
	if (fresh_plan)
		balance(p);
	else
		after_planned(p);
}

/* After a refusal, the lookup of the batch's comment: absent (always, with
 * Bitcoin Core), the batch is refused and its payouts free; present, the
 * wallet made it after all and it is recorded like any batch found. */
static void after_scan_refused(btc_payer *p)
{
	int64_t id = p->send_id;
	char err[HJ_ERRLEN];

	if (p->nmatch > 0) {
		hjd_log(HJD_LOG_WARNING,
		        "payouts: batch %lld: %s, yet a transaction with its "
		        "comment is in wallet %s: recording it",
		        (long long)id, p->refusal, p->wallet);
		after_scan_planned(p);
		return;
	}
	if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
	    hjd_payer_base_commit(&p->base,
	                          hj_store_batch_failed(p->base.store, id,
	                                                p->refusal, 1, err,
	                                                sizeof err),
	                          err, sizeof err))
		return;
	hjd_payer_base_backoff(&p->base);
	hjd_log(
	    HJD_LOG_WARNING,
	    "payouts: batch %lld: %s; its payouts stay owed; next try in "
	    "%u s or at the next block",
	    (long long)id, p->refusal,
	    (unsigned)((p->base.retry_at - uv_now(p->base.loop) + 999) / 1000));
	if (p->refusal_code == RPC_WALLET_INSUFFICIENT_FUNDS) {
		char have[40] = "unknown", need[40];

		/* The balance may cover the batch but not its fee: the
		 * warning stays until a send succeeds (pass_end). */
		p->funds_refused = 1;
		if (p->base.have_balance)
			coins(p->base.balance, have, sizeof have);
		coins(p->send_total, need, sizeof need);
		snprintf(p->base.warning, sizeof p->base.warning,
		         "INSUFFICIENT FUNDS in wallet %s: balance %s, a batch "
		         "of %s to pay; payouts stay owed until funds arrive",
		         p->wallet, have, need);
		hjd_log(HJD_LOG_WARNING, "payouts: %s", p->base.warning);
	}
	if (p->send_new)
		balance(p);
	else
		after_planned(p);
}

/* Sends batch id (outputs from the store, so a batch sent again is sent
 * byte for byte the same). */
static void send_batch(btc_payer *p, int64_t id, int fresh_plan)
{
	struct params_buf b = {.p = p};
	char comment[64], tail[96], err[HJ_ERRLEN], msg[HJ_ERRLEN];
	int rc;

	p->params_len = 0;
	rc = put(p, "[\"\",{");
	if (rc == 0)
		rc = hj_store_batch_outputs(p->base.store, id, put_output, &b,
		                            err, sizeof err);
	comment_of(p, id, comment, sizeof comment);
	snprintf(tail, sizeof tail, "},1,\"%s\"]", comment);
	if (rc == 0)
		rc = put(p, tail);
	if (rc || b.n == 0) {
		/* A batch the node could never take as it stands: refuse it
		 * here as the node would, its payouts stay owed. */
		snprintf(msg, sizeof msg, "batch %lld cannot be sent: %s",
		         (long long)id,
		         rc == -ERANGE   ? "an output above 2^63 - 1"
		         : rc == -EINVAL ? "an address that is not bech32"
		         : rc == -E2BIG  ? "its arguments exceed 1 MiB"
		         : b.n == 0      ? "no output"
		                         : "out of memory");
		hjd_log(HJD_LOG_ERR, "payouts: %s", msg);
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(&p->base,
		                          hj_store_batch_failed(p->base.store,
		                                                id, msg, 1, err,
		                                                sizeof err),
		                          err, sizeof err))
			return;
		hjd_payer_base_backoff(&p->base);
		if (fresh_plan)
			balance(p);
		else
			after_planned(p);
		return;
	}
	p->send_id = id;
	p->send_at = now_s();
	p->send_new = fresh_plan;
	p->send_total = b.total;
	hjd_log(HJD_LOG_INFO,
	        "payouts: batch %lld: sendmany of %zu outputs from wallet %s, "
	        "comment %s",
	        (long long)id, b.n, p->wallet, comment);
	if (hj_rpc_call_x(p->base.rpc, "sendmany", NULL, p->params,
	                  HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE, on_sent, p))
		hjd_payer_base_fatal(
		    &p->base,
		    "payouts: sendmany arguments refused (out of memory)");
}

/* ---- 2. sent batches ---- */

static void after_scan_revert(btc_payer *p)
{
	const hj_batch *b = &p->open[p->cur];
	const struct match *best = NULL;
	char err[HJ_ERRLEN], reason[400], tx[65];

	for (size_t i = 0; i < p->nmatch; i++) {
		const struct match *m = &p->matches[i];

		if (memcmp(m->txid, b->txid, 32) == 0 ||
		    m->conf <= -(long long)p->conf)
			continue;
		if (best == NULL || m->conf > best->conf)
			best = m;
	}
	if (best != NULL) {
		/* Another transaction with its comment (a replacement the
		 * wallet made) may still confirm: follow that one. */
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(
		        &p->base,
		        hj_store_batch_retxid(p->base.store, b->id, best->txid,
		                              err, sizeof err),
		        err, sizeof err))
			return;
		txid_hex(best->txid, tx);
		hjd_log(HJD_LOG_NOTICE,
		        "payouts: batch %lld: its transaction was conflicted; "
		        "following %s, which carries its comment",
		        (long long)b->id, tx);
	} else {
		txid_hex(b->txid, tx);
		snprintf(reason, sizeof reason,
		         "transaction %s was conflicted by a transaction with "
		         "%u or more confirmations and can never confirm: owed "
		         "again",
		         tx, p->conf);
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(
		        &p->base,
		        hj_store_batch_reverted(p->base.store, b->id, reason,
		                                err, sizeof err),
		        err, sizeof err))
			return;
		hjd_log(HJD_LOG_WARNING, "payouts: batch %lld: %s",
		        (long long)b->id, reason);
		p->base.dirty = 1;
	}
	p->cur++;
	confirm_next(p);
}

static void on_rebroadcast(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	const hj_batch *b = &p->open[p->cur];
	char tx[65], msg[HJ_ERRLEN];

	(void)result;
	if (p->base.closing)
		return;
	txid_hex(b->txid, tx);
	if (e == NULL)
		snprintf(msg, sizeof msg,
		         "payouts: batch %lld: transaction %s was not in the "
		         "node's mempool; sent it again (the same transaction)",
		         (long long)b->id, tx);
	else
		snprintf(msg, sizeof msg,
		         "payouts: batch %lld: transaction %s is not in the "
		         "node's mempool and could not be sent again: %s",
		         (long long)b->id, tx, e->text);
	hjd_payer_base_note(&p->base,
	                    e == NULL ? HJD_LOG_NOTICE : HJD_LOG_WARNING, msg);
	p->cur++;
	confirm_next(p);
}

static void on_gettx(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	const hj_batch *b = &p->open[p->cur];
	json_t *confj, *hj, *rep;
	char err[HJ_ERRLEN], tx[65], msg[HJ_ERRLEN];
	uint8_t txid[32];
	long long conf;
	uint64_t height;

	if (p->base.closing)
		return;
	txid_hex(b->txid, tx);
	if (e != NULL) {
		snprintf(msg, sizeof msg,
		         "payouts: batch %lld: transaction %s: %s%s",
		         (long long)b->id, tx, e->text,
		         e->kind == HJ_RPC_ERR_NODE &&
		                 e->code == RPC_INVALID_ADDRESS_OR_KEY
		             ? " (not in the wallet: was the wallet replaced? "
		               "its payouts stay submitted)"
		             : "");
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		p->cur++;
		confirm_next(p);
		return;
	}
	confj = json_object_get(result, "confirmations");
	conf =
	    json_is_integer(confj) ? (long long)json_integer_value(confj) : 0;
	rep = json_object_get(result, "replaced_by_txid");
	hj = json_object_get(result, "blockheight");
	if (conf >= (long long)p->conf &&
	    !(json_is_integer(hj) && json_integer_value(hj) >= 0) &&
	    (uint64_t)conf > p->base.tip + 1) {
		/* No block height, and more confirmations than the tip we
		 * were told allows: the node is ahead of it.  Decided at a
		 * later pass, when the tip has caught up. */
		snprintf(
		    msg, sizeof msg,
		    "payouts: batch %lld: transaction %s has %lld "
		    "confirmations but no block height, beyond tip %" PRIu64
		    "; deciding later",
		    (long long)b->id, tx, conf, p->base.tip);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	} else if (conf >= (long long)p->conf) {
		height = json_is_integer(hj) && json_integer_value(hj) >= 0
		             ? (uint64_t)json_integer_value(hj)
		             : p->base.tip + 1 - (uint64_t)conf;
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(
		        &p->base,
		        hj_store_batch_confirmed(p->base.store, b->id, height,
		                                 err, sizeof err),
		        err, sizeof err))
			return;
		hjd_log(
		    HJD_LOG_NOTICE,
		    "payouts: batch %lld confirmed: txid %s in block %" PRIu64
		    " (%lld confirmations)",
		    (long long)b->id, tx, height, conf);
	} else if (conf <= 0 && txid_parse(rep, txid) == 0) {
		if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
		    hjd_payer_base_commit(
		        &p->base,
		        hj_store_batch_retxid(p->base.store, b->id, txid, err,
		                              sizeof err),
		        err, sizeof err))
			return;
		hjd_log(
		    HJD_LOG_NOTICE,
		    "payouts: batch %lld: transaction %s was replaced by %s "
		    "(bumpfee); following it",
		    (long long)b->id, tx, json_string_value(rep));
	} else if (conf <= -(long long)p->conf) {
		/* Final conflict: the last check before the payouts are owed
		 * again is for another transaction with the same comment. */
		scan(p, b->id, b->created_at, after_scan_revert);
		return;
	} else if (conf == 0 &&
	           json_is_false(json_object_get(result, "trusted")) &&
	           json_is_string(json_object_get(result, "hex"))) {
		/* Unconfirmed and out of the node's mempool (evicted, or
		 * dropped as not final after the tip went back): the same
		 * signed bytes again.  The same transaction cannot pay twice;
		 * a refusal (its inputs spent elsewhere) changes nothing. */
		if (hj_rpc_call_x(
		        p->base.rpc, "sendrawtransaction",
		        json_pack("[O]", json_object_get(result, "hex")), NULL,
		        HJ_RPC_NODE_ERRORS, on_rebroadcast, p))
			hjd_payer_base_fatal(&p->base,
			                     "payouts: out of memory");
		return;
	}
	p->cur++;
	confirm_next(p);
}

static void confirm_next(btc_payer *p)
{
	char tx[65];

	while (p->cur < p->nopen && !p->open[p->cur].sent)
		p->cur++;
	if (p->cur >= p->nopen) {
		plan_new(p);
		return;
	}
	txid_hex(p->open[p->cur].txid, tx);
	if (hj_rpc_call_x(p->base.rpc, "gettransaction",
	                  json_pack("[s, b]", tx, 1), NULL, HJ_RPC_NODE_ERRORS,
	                  on_gettx, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void after_planned(btc_payer *p)
{
	p->cur = 0;
	confirm_next(p);
}

/* ---- 3. planning ---- */

/* Every owed payout in no planned batch, for the policy to sort out. */
struct owed_list {
	hj_owed_payout *v;
	size_t n, cap;
};

static int collect_owed(void *arg, const hj_owed_payout *o)
{
	struct owed_list *l = arg;
	hj_owed_payout *r;
	char *id;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		hj_owed_payout *v = realloc(l->v, cap * sizeof *v);

		if (v == NULL)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	id = strdup(o->id); /* the store's lives only during the call */
	if (id == NULL)
		return -ENOMEM;
	r = &l->v[l->n++];
	r->id = id;
	r->recipient = o->recipient;
	r->amount = o->amount;
	r->height = o->height;
	return 0;
}

static void owed_list_free(struct owed_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i].id); /* strdup'ed by collect_owed */
	free(l->v);
}

static void plan_new(btc_payer *p)
{
	struct owed_list l = {0};
	const hjd_btc_policy pol = {.secp = p->secp,
	                            .hrp = p->hrp,
	                            .dust = p->dust,
	                            .max_outputs = p->max_outputs};
	hjd_btc_plan pl;
	hjd_btc_group *grps = NULL;
	hj_batch_output *outs = NULL;
	const char **ids = NULL;
	size_t nout = 0, nid = 0;
	char err[HJ_ERRLEN], total_s[40];
	hj_amount total = 0;
	int64_t id = 0;
	int rc;

	p->dust_n = 0;
	p->dust_sum = 0;
	p->unpayable_n = 0;
	p->payable = 0;
	p->more = 0;
	rc = hj_store_each_unbatched(p->base.store, collect_owed, &l, err,
	                             sizeof err);
	if (rc) {
		if (rc != -ENOMEM)
			hjd_payer_base_fatal(&p->base, err);
		else
			hjd_payer_base_fatal(&p->base,
			                     "payouts: out of memory");
		goto out;
	}
	grps = calloc(l.n ? l.n : 1, sizeof *grps);
	if (grps == NULL) {
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
		goto out;
	}
	hjd_btc_plan_owed(l.v, l.n, &pol, grps, &pl);
	p->dust_n = pl.dust_n;
	p->dust_sum = pl.dust_sum;
	p->unpayable_n = pl.unpayable_n;
	p->payable = pl.payable;
	if (p->planned != 0 || !hjd_payer_base_may_send(&p->base) ||
	    pl.ngroups == 0) {
		balance(p);
		goto out;
	}
	p->more = pl.more;
	outs = calloc(pl.nbatch, sizeof *outs);
	for (size_t i = 0; i < pl.nbatch; i++)
		nid += grps[i].n;
	ids = calloc(nid, sizeof *ids);
	if (outs == NULL || ids == NULL) {
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
		goto out;
	}
	nid = 0;
	for (size_t i = 0; i < pl.nbatch; i++) {
		outs[nout].address = grps[i].addr;
		outs[nout++].amount = grps[i].sum;
		total += grps[i].sum;
		for (size_t k = 0; k < grps[i].n; k++)
			ids[nid++] = l.v[grps[i].first + k].id;
	}
	hj_batch_plan plan = {.height = p->base.processed,
	                      .now = now_s(),
	                      .outs = outs,
	                      .nouts = nout,
	                      .payouts = ids,
	                      .npayouts = nid};
	if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
	    hjd_payer_base_commit(
	        &p->base,
	        hj_store_plan_batch(p->base.store, &plan, &id, err, sizeof err),
	        err, sizeof err))
		goto out;
	coins(total, total_s, sizeof total_s);
	hjd_log(HJD_LOG_INFO,
	        "payouts: batch %lld planned: %zu payouts to %zu recipients, "
	        "%s in all",
	        (long long)id, nid, nout, total_s);
	p->fresh = id;
	send_batch(p, id, 1);
out:
	owed_list_free(&l);
	free(grps);
	free(outs);
	free(ids);
}

/* ---- 4. balance, totals, the end of a pass ---- */

static void on_balance(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char msg[HJ_ERRLEN];

	if (p->base.closing)
		return;
	if (e != NULL) {
		p->base.have_balance = 0;
		snprintf(msg, sizeof msg, "payouts: wallet %s: %s", p->wallet,
		         e->text);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	} else if (units_of(result, &p->base.balance) == 0) {
		p->base.have_balance = 1;
	}
	pass_end(p);
}

static void balance(btc_payer *p)
{
	if (hj_rpc_call_x(p->base.rpc, "getbalance", NULL, NULL,
	                  HJ_RPC_NODE_ERRORS, on_balance, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void pass_end(btc_payer *p)
{
	char err[HJ_ERRLEN], have[40], need[40], owed[40], expo_s[40];
	hj_amount expo = hjd_payer_base_exposure(&p->base), bank = 0;

	if (hj_store_settle_totals(p->base.store, &p->tot, err, sizeof err) ==
	    0)
		p->have_tot = 1;
	/* The bankroll: what is owed to known recipients and what the open
	 * rounds may still win.  The wallet's balance already excludes the
	 * payouts in flight (their transaction spent the coins). */
	if (p->have_tot) {
		bank = p->tot.owed - p->tot.unattributed;
		bank =
		    bank > HJ_AMOUNT_MAX - expo ? HJ_AMOUNT_MAX : bank + expo;
	}
	if (!p->base.halted && p->base.have_balance &&
	    p->payable > p->base.balance) {
		coins(p->base.balance, have, sizeof have);
		coins(p->payable, need, sizeof need);
		snprintf(
		    p->base.warning, sizeof p->base.warning,
		    "INSUFFICIENT FUNDS in wallet %s: balance %s, %s payable "
		    "owed; payouts stay owed until funds arrive",
		    p->wallet, have, need);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, p->base.warning);
	} else if (!p->base.halted && p->base.have_balance &&
	           bank > p->base.balance) {
		coins(p->base.balance, have, sizeof have);
		coins(p->tot.owed - p->tot.unattributed, owed, sizeof owed);
		coins(expo, expo_s, sizeof expo_s);
		coins(bank, need, sizeof need);
		snprintf(p->base.warning, sizeof p->base.warning,
		         "INSUFFICIENT FUNDS in wallet %s: balance %s, below "
		         "owed %s + open rounds' worst case %s = %s",
		         p->wallet, have, owed, expo_s, need);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, p->base.warning);
	} else if (!p->base.halted && p->base.have_balance &&
	           !p->funds_refused &&
	           strncmp(p->base.warning, "INSUFFICIENT", 12) == 0) {
		p->base.warning[0] = '\0';
	}
	hjd_payer_base_pass_end(&p->base);
}

/* A pass (the base's run hook). */
static void pass_run(hjd_payer *base)
{
	btc_payer *p = (btc_payer *)base;
	char err[HJ_ERRLEN];
	size_t n;
	int found;

	if (hj_store_open_batches(p->base.store, 0, p->open, OPEN_MAX, &n, err,
	                          sizeof err)) {
		hjd_payer_base_fatal(&p->base, err);
		return;
	}
	p->nopen = n;
	/* At most one batch is planned (a unique index); it may stand after
	 * sent ones still waiting for their confirmations, or beyond the
	 * first OPEN_MAX open batches. */
	if (hj_store_planned_batch(p->base.store, &p->planned_batch, &found,
	                           err, sizeof err)) {
		hjd_payer_base_fatal(&p->base, err);
		return;
	}
	p->planned = found ? p->planned_batch.id : 0;
	if (p->planned == 0 || !hjd_payer_base_may_send(&p->base)) {
		after_planned(p);
		return;
	}
	if (p->planned == p->fresh) {
		send_batch(p, p->planned, 0);
		return;
	}
	p->rpcinfo_since = uv_now(p->base.loop);
	rpcinfo(p);
}

/* ---- the base's hooks, the constructor ---- */

/* The status line (the base's status hook). */
static void status_of(const hjd_payer *b, char *buf, size_t n)
{
	const btc_payer *p = (const btc_payer *)b;
	char owed[40], dust[40], unattr[40], flight[40], bal[40] = "?";
	char bad[40] = "";

	if (!p->have_tot) {
		snprintf(buf, n, "payouts: starting");
		return;
	}
	coins(p->tot.owed, owed, sizeof owed);
	coins(p->dust_sum, dust, sizeof dust);
	coins(p->tot.unattributed, unattr, sizeof unattr);
	coins(p->tot.submitted, flight, sizeof flight);
	if (p->base.have_balance)
		coins(p->base.balance, bal, sizeof bal);
	if (p->unpayable_n)
		snprintf(bad, sizeof bad, ", %" PRIu64 " unpayable",
		         p->unpayable_n);
	snprintf(buf, n,
	         "payouts: %" PRIu64 " owed (%s; %" PRIu64 " below dust %s, "
	         "%" PRIu64 " unattributed %s%s), %" PRIu64
	         " in flight (%s), wallet %s balance %s%s%s",
	         p->tot.owed_n, owed, p->dust_n, dust, p->tot.unattributed_n,
	         unattr, bad, p->tot.submitted_n, flight, p->wallet, bal,
	         p->base.warning[0] ? "; " : "", p->base.warning);
}

/* The timer during a pass: the wait for the node's sendmany is over. */
static void wake(hjd_payer *b)
{
	rpcinfo((btc_payer *)b);
}

static void release(hjd_payer *b)
{
	btc_payer *p = (btc_payer *)b;

	free(p->wallet);
	free(p->params);
	hj_secp_free(p->secp);
	free(p);
}

static const struct hjd_payer_base_ops ops = {
    .run = pass_run, .wake = wake, .status = status_of, .release = release};

int hjd_btc_payer_new(const hjd_payer_opts *o, const hjd_btc_payout *po,
                      hjd_payer **out, char *err, size_t errlen)
{
	btc_payer *p;
	hj_rpc_opts ro = *o->node;
	char *url = NULL, why[HJ_ERRLEN];
	int rc;

	*out = NULL;
	p = calloc(1, sizeof *p);
	if (p == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	hjd_payer_base_init(&p->base, &ops, o);
	p->dust = po->dust_limit;
	p->max_outputs = po->max_outputs;
	p->conf = o->confirmations;
	p->hrp = o->dealer->hrp;
	if (hj_secp_new(&p->secp, why, sizeof why) != 0) {
		hj_say(err, errlen, "%s", why);
		rc = -ENOMEM;
		goto fail;
	}
	p->wallet = strdup(po->wallet);
	if (p->wallet == NULL) {
		hj_say(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	rc = hj_store_payer_tag(o->store, p->tag, err, errlen);
	if (rc)
		goto fail;
	rc = hj_rpc_wallet_url(o->node->url, po->wallet, &url, why, sizeof why);
	if (rc) {
		hj_say(err, errlen, "[payout] wallet: %s", why);
		goto fail;
	}
	ro.url = url;
	rc = hjd_payer_base_open(&p->base, &ro, why, sizeof why);
	free(url);
	if (rc) {
		hj_say(err, errlen, "wallet client: %s", why);
		goto fail;
	}
	*out = &p->base;
	return 0;
fail:
	hj_secp_free(p->secp);
	free(p->wallet);
	free(p);
	return rc ? rc : -EINVAL;
}
