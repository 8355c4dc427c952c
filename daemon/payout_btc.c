/*
 * Bitcoin-family payouts through the node's wallet (payout_btc.h,
 * docs/PAYOUTS.md).
 *
 * A pass, started by a kick and never two at once, walks these steps, each
 * an RPC call on the wallet's client whose callback goes on to the next:
 *
 *   0. committed cards: the planned seed chain's Commit (docs/OPERATION.md
 *      "Committed cards").  None recorded yet, or the one recorded can
 *      never be mined: the largest confirmed output of the dealer address
 *      (listunspent), createrawtransaction with the payload in OP_RETURN,
 *      fundrawtransaction taking the fee from that one input and sending
 *      the change back to the dealer address, signrawtransactionwithwallet,
 *      checked as hj_btc_action reads a Commit, RECORDED in seed_chains,
 *      then lockunspent (so that a sendmany leaves the input alone until
 *      the Commit is in the mempool) and sendrawtransaction.  One recorded:
 *      gettransaction; unknown to the wallet (the node never took it) or
 *      out of the mempool, the same bytes again; conflicted by a final
 *      transaction, a new one.  The file is about 1,800 lines because
 *      this step is one more link of the same chain of callbacks on the
 *      same payer state as the payouts' steps;
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
 *   4. getbalance; with [payout] sweep_to and nothing payable, a sweep of
 *      what exceeds the reserve recorded as a payout (sweep_recorded) and
 *      planned and sent as in 3; the totals, STATUS;
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
#include "payload.h"
#include "payout_policy.h"
#include "quote.h"
#include "say.h"
#include "taproot.h"
#include "wallet_pass.h"

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
#define RPC_WALLET_UNLOCK_NEEDED      (-13)
#define RPC_WALLET_PASSPHRASE_WRONG   (-14)
#define RPC_WALLET_WRONG_ENC_STATE    (-15)
/* How long walletpassphrase unlocks the wallet: the call that signs runs
 * within it, and the wallet is locked again as soon as it answers; the
 * timeout only bounds a daemon that dies in between. */
#define UNLOCK_S 60

struct match {
	uint8_t txid[32];
	long long conf;
	int replacement; /* replaces or was replaced by another (bumpfee) */
};

typedef struct btc_payer {
	hjd_payer base; /* first: the base's hooks cast it back */
	/* [payout] wallet_passphrase: have_pass 0 when none, or when the
	 * node said the wallet is not encrypted. */
	char pass[HJD_WALLET_PASS_MAX + 1];
	int have_pass;
	/* The call waiting for the wallet to be unlocked (wallet_call). */
	struct {
		const char *method;
		json_t *params;
		const char *params_text;
		unsigned flags;
		hj_rpc_xcb cb;
	} locked;
	char *wallet;
	const char *hrp;
	hj_secp *secp;
	char tag[17];
	hj_amount dust;
	unsigned max_outputs, conf;
	/* [payout] sweep_to: its witness program (sweep_len 0: none), the
	 * margin and the blocks between two sweeps. */
	uint8_t sweep[32];
	size_t sweep_len;
	hj_amount sweep_margin;
	uint64_t sweep_every;

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

	/* Step 0 (committed cards): the dealer address, the planned seed
	 * chain as last read, the output its new Commit spends (internal
	 * order), whether the wallet has its recorded transaction, and the
	 * warning while no output of the dealer address can pay it. */
	hj_dealer dealer;
	hj_store_seed_chain commit;
	int have_commit, commit_known;
	unsigned commit_builds;
	uint8_t commit_prev[32];
	uint32_t commit_vout;
	char commit_warning[HJ_ERRLEN];

	/* What STATUS shows. */
	hj_settle_totals tot;
	int have_tot;
	uint64_t unpayable_n; /* below dust: the base's small_n, _sum */
	hj_amount payable;
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
static void payouts(btc_payer *p);

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

/* ---- the wallet's passphrase ---- */

static void on_relocked(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char msg[HJ_ERRLEN];

	(void)result;
	if (e == NULL || p->base.closing)
		return;
	hj_say(msg, sizeof msg,
	       "payouts: walletlock of wallet %s failed (%s): it locks "
	       "itself within %d s",
	       p->wallet, e->text, UNLOCK_S);
	hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
}

/* The signing call answered: the wallet is locked again at once (the
 * next call on the client), then the call's own callback goes on. */
static void on_unlocked_call(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	hj_rpc_xcb cb = p->locked.cb;

	if (!p->base.closing &&
	    hj_rpc_call_x(p->base.rpc, "walletlock", NULL, NULL,
	                  HJ_RPC_NODE_ERRORS, on_relocked, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
	cb(arg, result, e);
}

static void on_unlock(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	hj_rpc_error failed;
	char text[HJ_ERRLEN];

	(void)result;
	if (p->base.closing) {
		json_decref(p->locked.params);
		return;
	}
	if (e != NULL && e->kind == HJ_RPC_ERR_NODE &&
	    e->code == RPC_WALLET_WRONG_ENC_STATE) {
		/* Not encrypted: nothing to unlock, now or later. */
		hj_say(text, sizeof text,
		       "payouts: [payout] wallet_passphrase is set, but wallet "
		       "%s is not encrypted (%s): it is used without; remove "
		       "the key, or encrypt the wallet (docs/PAYOUTS.md, \"An "
		       "encrypted wallet\")",
		       p->wallet, e->text);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, text);
		explicit_bzero(p->pass, sizeof p->pass);
		p->have_pass = 0;
		e = NULL;
	}
	if (e == NULL) {
		if (hj_rpc_call_x(
		        p->base.rpc, p->locked.method, p->locked.params,
		        p->locked.params_text, p->locked.flags,
		        p->have_pass ? on_unlocked_call : p->locked.cb, p))
			hjd_payer_base_fatal(&p->base,
			                     "payouts: out of memory");
		return;
	}
	json_decref(p->locked.params);
	if (e->kind == HJ_RPC_ERR_NODE &&
	    e->code == RPC_WALLET_PASSPHRASE_WRONG) {
		p->base.halted = 1;
		hj_say(p->base.warning, sizeof p->base.warning,
		       "PAYOUTS HALTED: wallet %s refused the passphrase of "
		       "[payout] wallet_passphrase (%s); nothing is sent until "
		       "it is fixed and hashjackd restarted",
		       p->wallet, e->text);
		hjd_log(HJD_LOG_ERR, "payouts: %s", p->base.warning);
	}
	/* No call was made: for the caller, the node refused it. */
	hj_say(text, sizeof text, "the wallet was not unlocked: %s", e->text);
	failed =
	    (hj_rpc_error){.kind = HJ_RPC_ERR_NODE,
	                   .code = e->kind == HJ_RPC_ERR_NODE ? e->code : 0,
	                   .message = "",
	                   .text = text};
	p->locked.cb(p, NULL, &failed);
}

/*
 * A call that makes the wallet sign (sendmany, signrawtransactionwithwallet),
 * as hj_rpc_call_x.  With a passphrase, walletpassphrase first, for
 * UNLOCK_S; once the call answers, walletlock.  When the wallet cannot be
 * unlocked, cb gets a node's error (kind HJ_RPC_ERR_NODE): no call was
 * made.  params (stolen) or params_text (borrowed, kept until cb).
 */
static int wallet_call(btc_payer *p, const char *method, json_t *params,
                       const char *params_text, unsigned flags, hj_rpc_xcb cb)
{
	if (!p->have_pass)
		return hj_rpc_call_x(p->base.rpc, method, params, params_text,
		                     flags, cb, p);
	json_t *unlock = json_pack("[s,i]", p->pass, UNLOCK_S);
	int rc;

	p->locked.method = method;
	p->locked.params = params;
	p->locked.params_text = params_text;
	p->locked.flags = flags;
	p->locked.cb = cb;
	rc = unlock == NULL
	         ? -ENOMEM
	         : hj_rpc_call_x(p->base.rpc, "walletpassphrase", unlock, NULL,
	                         HJ_RPC_NODE_ERRORS, on_unlock, p);
	if (rc)
		json_decref(params);
	return rc;
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
	if (p->refusal_code == RPC_WALLET_UNLOCK_NEEDED && !p->have_pass)
		hjd_payer_base_note(
		    &p->base, HJD_LOG_WARNING,
		    "payouts: wallet is locked (encrypted): give its "
		    "passphrase in [payout] wallet_passphrase "
		    "(docs/PAYOUTS.md, \"An encrypted wallet\")");
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
	if (wallet_call(p, "sendmany", NULL, p->params,
	                HJ_RPC_NODE_ERRORS | HJ_RPC_ONCE, on_sent))
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
	                            .max_outputs = p->max_outputs,
	                            .sweep = p->sweep,
	                            .sweep_len = p->sweep_len};
	hjd_btc_plan pl;
	hjd_btc_group *grps = NULL;
	hj_batch_output *outs = NULL;
	const char **ids = NULL;
	size_t nout = 0, nid = 0;
	char err[HJ_ERRLEN], total_s[40];
	hj_amount total = 0;
	int64_t id = 0;
	int rc;

	p->base.small_n = 0;
	p->base.small_sum = 0;
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
	p->base.small_n = pl.dust_n;
	p->base.small_sum = pl.dust_sum;
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

/* ---- 4. balance, a sweep, totals, the end of a pass ---- */

/*
 * With [payout] sweep_to, once a pass has found nothing payable (and no
 * batch planned), every final block processed (the open rounds are the
 * chain's: hjd_payer_base_caught_up), funds not short, payouts not halted,
 * and no sweep in the last sweep_every blocks: what the wallet holds beyond the
 * reserve (owed, unattributed refunds included, the open rounds' worst case and
 * the margin, which pays the sweep's own fee; the wallet's balance already
 * leaves out the payouts in flight) is recorded as a payout of kind
 * "sweep" to the cold address, at least the dust limit, then planned and
 * sent as any payout: once, whatever crashes (the row is committed before
 * anything is sent).  1 when one was recorded; 0, or after fatal.
 */
static int sweep_recorded(btc_payer *p)
{
	char err[HJ_ERRLEN], a[40], b[40], k[40], to[HJ_BECH32_BUF];
	hj_settle_totals tot;
	hj_amount need, expo, x;
	hj_id cold = {.len = p->sweep_len};

	if (p->sweep_len == 0 || p->funds_refused || p->planned != 0 ||
	    p->payable != 0 ||
	    !hjd_payer_base_sweep_due(&p->base, p->sweep_every, &tot))
		return 0;
	expo = hjd_payer_base_exposure(&p->base);
	need =
	    tot.owed > HJ_AMOUNT_MAX - expo ? HJ_AMOUNT_MAX : tot.owed + expo;
	need = need > HJ_AMOUNT_MAX - p->sweep_margin ? HJ_AMOUNT_MAX
	                                              : need + p->sweep_margin;
	if (p->base.balance <= need)
		return 0;
	x = p->base.balance - need;
	if (x > HJD_BTC_OUTPUT_MAX)
		x = HJD_BTC_OUTPUT_MAX; /* the rest at the next sweep */
	if (x < p->dust)
		return 0;
	memcpy(cold.b, p->sweep, p->sweep_len);
	if (hjd_payer_base_sweep_record(&p->base, &cold, x))
		return 0;
	if (hj_btc_sweep_address(p->hrp, p->sweep, p->sweep_len, to, err,
	                         sizeof err))
		snprintf(to, sizeof to, "?");
	coins(x, a, sizeof a);
	coins(p->base.balance, b, sizeof b);
	coins(p->base.balance - x, k, sizeof k);
	hjd_log(HJD_LOG_NOTICE,
	        "payouts: sweep of %s to %s at block %" PRIu64
	        ": wallet %s holds %s, %s kept (owed, the open rounds' worst "
	        "case and the margin, which pays the fee)",
	        a, to, p->base.processed, p->wallet, b, k);
	return 1;
}

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
	if (sweep_recorded(p))
		plan_new(p); /* its batch, sent; then the balance again */
	else
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
	/* The Commit's warning when nothing weighs more: without a Commit no
	 * card is dealt. */
	if (!p->base.halted && p->commit_warning[0] &&
	    strncmp(p->base.warning, "INSUFFICIENT FUNDS in", 21) != 0)
		memcpy(p->base.warning, p->commit_warning,
		       sizeof p->base.warning);
	else if (!p->commit_warning[0] &&
	         strncmp(p->base.warning, "INSUFFICIENT FUNDS for the Commit",
	                 33) == 0)
		p->base.warning[0] = '\0';
	hjd_payer_base_pass_end(&p->base);
}

/* ---- 0. the Commit of a planned seed chain (committed cards) ---- */

static int want_commit(void *arg, const hj_store_seed_chain *r)
{
	btc_payer *p = arg;

	if (strcmp(r->state, "planned") == 0) {
		p->commit = *r;
		p->have_commit = 1;
	}
	return 0;
}

static void commit_name(const btc_payer *p, char *buf, size_t n)
{
	char hex[65];

	hj_hex_encode(p->commit.commitment, 32, 0, hex);
	snprintf(buf, n,
	         "seed chain %s (%" PRIu32 " seeds from block %" PRIu64 ")",
	         hex, p->commit.length, p->commit.start);
}

/* Nothing the wallet can spend makes the Commit: the warning (STATUS,
 * /healthz) lasts until one is sent.  Then the payouts. */
static void commit_short(btc_payer *p, const char *why)
{
	char name[160], msg[HJ_ERRLEN];

	commit_name(p, name, sizeof name);
	hj_say(p->commit_warning, sizeof p->commit_warning,
	       "INSUFFICIENT FUNDS for the Commit of %s: %s; send coins to "
	       "the dealer address %s itself, an address of wallet %s "
	       "(docs/OPERATION.md \"Committed cards\")",
	       name, why, p->dealer.text, p->wallet);
	hj_say(msg, sizeof msg, "committed cards: %s", p->commit_warning);
	hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	payouts(p);
}

/* A step of the Commit failed without a verdict: said once while it
 * lasts, tried again at the next pass; then the payouts. */
static void commit_later(btc_payer *p, const char *what, const char *why)
{
	char name[160], msg[HJ_ERRLEN];

	commit_name(p, name, sizeof name);
	hj_say(msg, sizeof msg,
	       "committed cards: the Commit of %s: %s: %s; trying again at "
	       "the next pass",
	       name, what, why);
	hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	payouts(p);
}

static void commit_build(btc_payer *p);

static void on_commit_sent(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char name[160], tx[65];

	(void)result;
	if (p->base.closing)
		return;
	commit_name(p, name, sizeof name);
	txid_hex(p->commit.txid, tx);
	if (e == NULL) {
		hjd_log(HJD_LOG_NOTICE,
		        "committed cards: the Commit of %s sent%s: txid %s",
		        name, p->commit_known ? " again" : "", tx);
		p->commit_warning[0] = '\0';
		payouts(p);
		return;
	}
	if (e->kind == HJ_RPC_ERR_NODE && !p->commit_known &&
	    (strstr(e->message, "missingorspent") != NULL ||
	     strstr(e->message, "mempool-conflict") != NULL)) {
		/* The node never took it (the wallet would know it), so no
		 * other node has it: it is never sent again, and another
		 * transaction carries the Commit. */
		hjd_log(HJD_LOG_WARNING,
		        "committed cards: the Commit of %s, transaction %s: "
		        "%s: its input was spent by another transaction before "
		        "the node ever took it; a new transaction replaces it",
		        name, tx, e->text);
		commit_build(p);
		return;
	}
	commit_later(p, "sendrawtransaction", e->text);
}

static void on_commit_lock(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	char hex[2 * HJ_STORE_COMMIT_TX_MAX + 1];

	/* Already locked, or already spent (by the Commit itself): either
	 * is fine, the lock only keeps a sendmany off the input meanwhile. */
	(void)result;
	(void)e;
	if (p->base.closing)
		return;
	hj_hex_encode(p->commit.tx, p->commit.tx_len, 0, hex);
	if (hj_rpc_call_x(p->base.rpc, "sendrawtransaction",
	                  json_pack("[s]", hex), NULL, HJ_RPC_NODE_ERRORS,
	                  on_commit_sent, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* Sends the recorded Commit as it is (the same bytes: the same txid),
 * its input locked first (lockunspent: the node's memory only, so again
 * at every send). */
static void commit_send(btc_payer *p)
{
	hj_btc_tx tx;
	uint8_t prev[32];
	uint32_t vout;
	char why[HJ_ERRLEN], hex[65];

	if (hj_btc_tx_parse(p->commit.tx, p->commit.tx_len, &tx, why,
	                    sizeof why) ||
	    hj_btc_tx_input(&tx, 0, prev, &vout)) {
		hjd_payer_base_fatal(&p->base,
		                     "committed cards: the recorded Commit is "
		                     "not a transaction");
		return;
	}
	for (int k = 0; k < 32; k++)
		snprintf(hex + 2 * k, 3, "%02x", prev[31 - k]);
	if (hj_rpc_call_x(p->base.rpc, "lockunspent",
	                  json_pack("[b, [{s:s, s:I}]]", 0, "txid", hex, "vout",
	                            (json_int_t)vout),
	                  NULL, HJ_RPC_NODE_ERRORS, on_commit_lock, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* Whether raw is the Commit of p->commit from the dealer address,
 * spending the output chosen: 1 yes, 0 no (why says). */
static int is_our_commit(const btc_payer *p, const uint8_t *raw, size_t len,
                         uint8_t txid[32], char *why, size_t n)
{
	hj_btc_tx tx;
	hj_action a;
	uint8_t prev[32];
	uint32_t vout;

	if (hj_btc_tx_parse(raw, len, &tx, why, n))
		return 0;
	if (hj_btc_action(&tx, p->dealer.script, p->dealer.script_len, 0, &a,
	                  why, n) != 1 ||
	    a.kind != HJ_TX_ACTION || a.act != HJ_COMMIT || !a.from_dealer ||
	    a.value == 0) {
		hj_say(why, n,
		       "it is not a Commit signed by the dealer address's key "
		       "that pays the address its change");
		return 0;
	}
	if (a.commit_start != p->commit.start ||
	    a.commit_length != p->commit.length ||
	    memcmp(a.commitment, p->commit.commitment, 32) != 0) {
		hj_say(why, n, "its payload is another chain's");
		return 0;
	}
	if (tx.n_inputs != 1 || hj_btc_tx_input(&tx, 0, prev, &vout) ||
	    memcmp(prev, p->commit_prev, 32) != 0 || vout != p->commit_vout) {
		hj_say(why, n, "it does not spend the output chosen alone");
		return 0;
	}
	memcpy(txid, a.txid.b, 32);
	return 1;
}

static void on_commit_signed(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	json_t *hex = json_object_get(result, "hex");
	uint8_t raw[HJ_STORE_COMMIT_TX_MAX], txid[32];
	size_t len;
	char why[HJ_ERRLEN], err[HJ_ERRLEN], name[160], tx[65];

	if (p->base.closing)
		return;
	if (e != NULL) {
		commit_later(p, "signrawtransactionwithwallet", e->text);
		return;
	}
	if (!json_is_true(json_object_get(result, "complete"))) {
		snprintf(why, sizeof why,
		         "wallet %s cannot sign for the dealer address %s: is "
		         "it the wallet's own address?",
		         p->wallet, p->dealer.text);
		commit_later(p, "signing", why);
		return;
	}
	if (!json_is_string(hex) ||
	    hj_hex_decode(json_string_value(hex), json_string_length(hex),
	                  HJ_HEX_BARE, raw, sizeof raw, &len, why,
	                  sizeof why)) {
		commit_later(p, "signrawtransactionwithwallet",
		             "no transaction of at most 1000 bytes");
		return;
	}
	if (!is_our_commit(p, raw, len, txid, why, sizeof why)) {
		commit_later(p, "the wallet's transaction", why);
		return;
	}
	/* Recorded before it is sent: from now on this transaction is the
	 * chain's Commit, sent again as it is after any crash, and never
	 * replaced while it can still be mined. */
	if (hjd_payer_base_begin(&p->base, err, sizeof err) ||
	    hjd_payer_base_commit(&p->base,
	                          hj_store_seed_chain_tx(p->base.store,
	                                                 p->commit.id, raw, len,
	                                                 txid, err, sizeof err),
	                          err, sizeof err))
		return;
	memcpy(p->commit.tx, raw, len);
	p->commit.tx_len = len;
	memcpy(p->commit.txid, txid, 32);
	commit_name(p, name, sizeof name);
	txid_hex(txid, tx);
	hjd_log(HJD_LOG_NOTICE,
	        "committed cards: the Commit of %s: transaction %s from "
	        "the dealer address, recorded; sending it",
	        name, tx);
	p->commit_known = 0;
	commit_send(p);
}

static void on_commit_funded(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	json_t *pos = json_object_get(result, "changepos");
	char why[HJ_ERRLEN];

	if (p->base.closing)
		return;
	if (e != NULL && e->kind == HJ_RPC_ERR_NODE &&
	    strstr(e->message, "nsufficient funds") != NULL) {
		snprintf(why, sizeof why,
		         "its largest spendable output cannot pay the fee (%s)",
		         e->text);
		commit_short(p, why);
		return;
	}
	if (e != NULL) {
		commit_later(p, "fundrawtransaction", e->text);
		return;
	}
	if (!json_is_integer(pos) || json_integer_value(pos) != 1 ||
	    !json_is_string(json_object_get(result, "hex"))) {
		commit_short(p, "its largest spendable output leaves no change "
		                "above dust after the fee, and a Commit must "
		                "pay the dealer address");
		return;
	}
	if (wallet_call(p, "signrawtransactionwithwallet",
	                json_pack("[O]", json_object_get(result, "hex")), NULL,
	                HJ_RPC_NODE_ERRORS, on_commit_signed))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void on_commit_created(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;

	if (p->base.closing)
		return;
	if (e != NULL || !json_is_string(result)) {
		commit_later(p, "createrawtransaction", e ? e->text : "no hex");
		return;
	}
	/* The fee from the wallet's settings, taken from the one input:
	 * the change (input less fee) goes back to the dealer address. */
	if (hj_rpc_call_x(p->base.rpc, "fundrawtransaction",
	                  json_pack("[O, {s:b, s:s, s:i}]", result,
	                            "add_inputs", 0, "changeAddress",
	                            p->dealer.text, "changePosition", 1),
	                  NULL, HJ_RPC_NODE_ERRORS, on_commit_funded, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void on_commit_unspent(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	json_t *el, *best = NULL;
	hj_amount most = 0, v;
	hj_payload pl = {.act = HJ_COMMIT,
	                 .start = p->commit.start,
	                 .length = p->commit.length};
	uint8_t data[HJ_PAYLOAD_MAX], txid[32];
	char hex[2 * HJ_PAYLOAD_MAX + 1], why[HJ_ERRLEN];
	size_t i, n;

	if (p->base.closing)
		return;
	if (e != NULL || !json_is_array(result)) {
		commit_later(p, "listunspent", e ? e->text : "not a list");
		return;
	}
	json_array_foreach(result, i, el)
	{
		json_t *a = json_object_get(el, "address");

		if (json_is_true(json_object_get(el, "spendable")) &&
		    json_is_true(json_object_get(el, "solvable")) &&
		    json_is_string(a) &&
		    strcmp(json_string_value(a), p->dealer.text) == 0 &&
		    txid_parse(json_object_get(el, "txid"), txid) == 0 &&
		    json_is_integer(json_object_get(el, "vout")) &&
		    units_of(json_object_get(el, "amount"), &v) == 0 &&
		    (best == NULL || v > most)) {
			best = el;
			most = v;
		}
	}
	if (best == NULL) {
		snprintf(why, sizeof why,
		         "the dealer address has no spendable output in wallet "
		         "%s",
		         p->wallet);
		commit_short(p, why);
		return;
	}
	txid_parse(json_object_get(best, "txid"), txid);
	for (int k = 0; k < 32; k++)
		p->commit_prev[k] = txid[31 - k];
	p->commit_vout =
	    (uint32_t)json_integer_value(json_object_get(best, "vout"));
	memcpy(pl.commitment, p->commit.commitment, 32);
	n = hj_payload_encode(HJ_BITCOIN, &pl, data);
	hj_hex_encode(data, n, 0, hex);
	if (hj_rpc_call_x(p->base.rpc, "createrawtransaction",
	                  json_pack("[[{s:O, s:O}], [{s:s}]]", "txid",
	                            json_object_get(best, "txid"), "vout",
	                            json_object_get(best, "vout"), "data", hex),
	                  NULL, HJ_RPC_NODE_ERRORS, on_commit_created, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* A new transaction for the Commit: the dealer address's largest
 * confirmed output, the payload in OP_RETURN, the change back to it. */
static void commit_build(btc_payer *p)
{
	/* A transaction refused for a spent input is built again at once;
	 * twice in one pass is enough. */
	if (++p->commit_builds > 2) {
		commit_later(p, "building its transaction",
		             "its inputs keep being spent elsewhere");
		return;
	}
	if (hj_rpc_call_x(
	        p->base.rpc, "listunspent",
	        json_pack("[i, i, [s], b]", 1, 9999999, p->dealer.text, 0),
	        NULL, HJ_RPC_NODE_ERRORS, on_commit_unspent, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void on_commit_gettx(void *arg, json_t *result, const hj_rpc_error *e)
{
	btc_payer *p = arg;
	json_t *confj;
	long long conf;
	char name[160], tx[65];

	if (p->base.closing)
		return;
	if (e != NULL && e->kind == HJ_RPC_ERR_NODE &&
	    e->code == RPC_INVALID_ADDRESS_OR_KEY) {
		/* The node never took it: the wallet keeps every transaction
		 * that spends its coins once the node has it. */
		p->commit_known = 0;
		commit_send(p);
		return;
	}
	if (e != NULL) {
		commit_later(p, "gettransaction", e->text);
		return;
	}
	confj = json_object_get(result, "confirmations");
	conf =
	    json_is_integer(confj) ? (long long)json_integer_value(confj) : 0;
	if (conf <= -(long long)p->conf) {
		/* Conflicted by a final transaction (its input spent
		 * elsewhere, a sendmany that took it while the lock was
		 * lost): it can never be mined, as for a payout batch. */
		commit_name(p, name, sizeof name);
		txid_hex(p->commit.txid, tx);
		hjd_log(HJD_LOG_WARNING,
		        "committed cards: the Commit of %s, transaction %s, "
		        "was conflicted by a transaction with %u or more "
		        "confirmations and can never be mined; a new "
		        "transaction replaces it",
		        name, tx, p->conf);
		commit_build(p);
		return;
	}
	if (conf == 0 && json_is_false(json_object_get(result, "trusted"))) {
		/* Out of the node's mempool (evicted, or the node restarted
		 * without it): the same bytes again. */
		p->commit_known = 1;
		commit_send(p);
		return;
	}
	payouts(p);
}

/* Step 0: the planned chain's Commit, built, recorded and sent, or its
 * transaction followed; then the payouts (steps 1 to 5). */
static void commit_step(btc_payer *p)
{
	char err[HJ_ERRLEN], tx[65];

	p->have_commit = 0;
	p->commit_builds = 0;
	if (hj_store_each_seed_chain(p->base.store, want_commit, p, err,
	                             sizeof err)) {
		hjd_payer_base_fatal(&p->base, err);
		return;
	}
	if (!p->have_commit)
		p->commit_warning[0] = '\0';
	if (!p->have_commit || p->base.halted) {
		payouts(p);
		return;
	}
	if (p->commit.tx_len == 0) {
		commit_build(p);
		return;
	}
	txid_hex(p->commit.txid, tx);
	if (hj_rpc_call_x(p->base.rpc, "gettransaction",
	                  json_pack("[s, b]", tx, 1), NULL, HJ_RPC_NODE_ERRORS,
	                  on_commit_gettx, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* Steps 1 to 5. */
static void payouts(btc_payer *p)
{
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

/* A pass (the base's run hook). */
static void pass_run(hjd_payer *base)
{
	commit_step((btc_payer *)base);
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
	coins(p->base.small_sum, dust, sizeof dust);
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
	         p->tot.owed_n, owed, p->base.small_n, dust,
	         p->tot.unattributed_n, unattr, bad, p->tot.submitted_n, flight,
	         p->wallet, bal, p->base.warning[0] ? "; " : "",
	         p->base.warning);
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
	explicit_bzero(p->pass, sizeof p->pass);
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
	p->base.small_min = po->dust_limit;
	p->base.have_small_min = 1;
	p->max_outputs = po->max_outputs;
	p->sweep_len = po->sweep_len;
	memcpy(p->sweep, po->sweep_to, sizeof p->sweep);
	p->sweep_margin = po->sweep_margin;
	p->sweep_every = po->sweep_every;
	p->conf = o->confirmations;
	p->hrp = o->dealer->hrp;
	p->dealer = *o->dealer;
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
	if (po->wallet_passphrase != NULL) {
		rc = hjd_wallet_pass_read(po->wallet_passphrase, p->pass, why,
		                          sizeof why);
		if (rc) {
			hj_say(err, errlen,
			       "[payout] wallet_passphrase = %s: %s",
			       po->wallet_passphrase, why);
			goto fail;
		}
		p->have_pass = 1;
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
	explicit_bzero(p->pass, sizeof p->pass);
	hj_secp_free(p->secp);
	free(p->wallet);
	free(p);
	return rc ? rc : -EINVAL;
}
