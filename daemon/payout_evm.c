/*
 * EVM payouts signed by the daemon (payout_evm.h, docs/PAYOUTS-EVM.md).
 *
 * A pass, started by a kick and never two at once, walks these steps, each
 * an RPC call whose callback goes on to the next:
 *
 *   0. eth_chainId, once per process (the chain id every version signs);
 *   1. one batch request: the dealer's transaction count at the latest
 *      block (L), at the last final block (F, the kick's: tip -
 *      confirmations + 1, or the node's finalized or safe block) and
 *      pending (P), its balance, and eth_feeHistory for the fees;
 *   2. each open batch (a nonce, oldest first):
 *        nonce < F: its nonce is final.  The receipts of its versions: one
 *        in a final block with status 1 confirms it (cost recorded); with
 *        status 0, or none of them mined, its payouts are owed again
 *        (reverted), since no version can ever be mined now;
 *        F <= nonce < L: mined, not final yet: wait;
 *        nonce >= L, planned: send its newest version (re-signed first
 *        when the fees it carries are below what the node wants now);
 *        nonce >= L, sent and its newest version older than stuck_after:
 *        a replacement, same nonce, fees up by 1/8 (capped), recorded,
 *        then sent;
 *      (the fees of each: payout_policy.h's hjd_evm_fees_want, _refresh
 *      and _bump)
 *   3. if no batch is planned any more: the oldest owed recipient's
 *      payouts together, eth_estimateGas, a nonce (the store's next, or P
 *      when another sender used the key), signed, committed with its
 *      payouts, sent; then the next recipient.  A recipient owed only
 *      refunds that add up to less than min_refund waits (held; its
 *      payouts stay owed: docs/PAYOUTS-EVM.md, "Small refunds");
 *      then, with nothing payable left and [payout] sweep_to, a sweep:
 *      the balance above what must stay (hjd_evm_sweep) recorded as a
 *      payout of kind "sweep" to the cold address, at most one per
 *      sweep_every blocks, and paid like any payout;
 *   4. the totals, the bankroll warning, the balance row, STATUS.
 *
 * eth_sendRawTransaction is safe to repeat (the same bytes are the same
 * transaction), so a planned batch after a crash is simply sent again.
 */
#include "payout_evm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dealer_key.h"
#include "evm_tx.h"
#include "hex.h"
#include "log.h"
#include "payer_base.h"
#include "payload.h"
#include "payout_owed.h"
#include "payout_policy.h"
#include "say.h"

#define OPEN_MAX 64 /* batches looked at per pass; the rest next */
/* Versions one batch may have: a planned batch is re-signed only while
 * below it (each version's receipt is read once its nonce is final). */
#define VERS_MAX   64
#define SKIP_MAX   16 /* recipients skipped in a pass (no gas estimate) */
#define FEE_BLOCKS "0x5"

struct ver {
	uint8_t hash[32];
	hj_amount max_fee, tip;
	int64_t signed_at;
};

typedef struct evm_payer {
	hjd_payer base; /* first: the base's hooks cast it back */
	hj_secp *secp;
	uint8_t sk[HJ_EVM_SECKEY_LEN];
	uint8_t dealer[HJ_EVM_ADDR_LEN];
	char dealer_hex[2 * HJ_EVM_ADDR_LEN + 3];
	hj_amount cap, min_tip;
	unsigned stuck_s;
	int min_auto;        /* [payout] min_refund = auto */
	hj_amount min_fixed; /* else its amount */
	int sweep;           /* [payout] sweep_to is set */
	hj_id cold;          /* its address */
	hj_amount sweep_margin;
	uint64_t sweep_every;

	int have_chain_id;
	uint64_t chain_id;
	/* base.halted is set when the node answered a hash other than ours. */

	/* The pass's view of the chain (step 1). */
	uint64_t latest_n, final_n, pending_n, final_height;
	hjd_evm_fees want; /* the fees a new version gets */

	/* Step 3's tally: what each owed recipient is owed, to hold small
	 * refunds. */
	hjd_owed_tally owed;

	hj_batch open[OPEN_MAX];
	size_t nopen, cur;
	int planned_left; /* a planned batch is still unsent this pass */
	struct ver vers[VERS_MAX];
	size_t nvers;
	uint8_t raw[HJ_EIP1559_RAW_MAX]; /* the newest version's bytes */
	size_t raw_len;

	/* Step 3. */
	uint8_t skip[SKIP_MAX][HJ_EVM_ADDR_LEN];
	size_t nskip;
	int skip_full;     /* more could not be paid: the rest next pass */
	hjd_evm_pick pick; /* the recipient and value of the next one */
	char **ids;        /* the payouts it settles */
	size_t nids, capids;

	struct ver new_ver; /* a new batch's first version (plan_signed) */

	/* The send in flight. */
	int64_t send_id;
	int send_planned; /* the batch was planned (not a replacement) */
	int send_new;     /* planned in step 3 of this pass */
	int64_t send_nonce;
	uint8_t send_hash[32];

	/* Step 3a: the planned seed chain whose Commit is planned this pass
	 * (committed cards); commit_tried once looked at. */
	hj_store_seed_chain commit;
	int have_commit, commit_tried;

	hj_settle_totals tot;
	int have_tot;
	int funds_short; /* the node refused a transaction for funds */
} evm_payer;

static void pass_end(evm_payer *p);
static void next_open(evm_payer *p);
static void plan_new(evm_payer *p);
static int next_nonce(evm_payer *p, uint64_t *nonce);
static int plan_signed(evm_payer *p, const uint8_t to[20], hj_amount value,
                       uint64_t gas, const uint8_t *data, size_t n,
                       int64_t seed_chain, int64_t *id, uint64_t *nonce);
static void send_planned(evm_payer *p);

/* ---- small helpers ---- */

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

static void addr_hex(const uint8_t a[HJ_EVM_ADDR_LEN], char out[43])
{
	hj_hex_encode(a, HJ_EVM_ADDR_LEN, 1, out);
}

static void hash_hex(const uint8_t h[32], char out[67])
{
	hj_hex_encode(h, 32, 1, out);
}

/* "0x" and the shortest hex of v, as JSON-RPC quantities are written. */
static void quantity(unsigned __int128 v, char out[40])
{
	static const char digit[] = "0123456789abcdef";
	char tmp[40];
	size_t n = 0, k = 0;

	do {
		tmp[n++] = digit[(unsigned)(v & 15)];
		v >>= 4;
	} while (v);
	out[k++] = '0';
	out[k++] = 'x';
	while (n)
		out[k++] = tmp[--n];
	out[k] = '\0';
}

static int get_quantity(json_t *v, unsigned __int128 *out)
{
	if (!json_is_string(v))
		return -1;
	return hj_hex_quantity(json_string_value(v), json_string_length(v), out,
	                       NULL, 0)
	           ? -1
	           : 0;
}

static int get_u64(json_t *v, uint64_t *out)
{
	unsigned __int128 q;

	if (get_quantity(v, &q) || q > UINT64_MAX)
		return -1;
	*out = (uint64_t)q;
	return 0;
}

/* The node's error text, quoted safely for a log line. */
static void node_says(const hj_rpc_error *e, char *buf, size_t n)
{
	size_t k = 0;

	if (e->kind != HJ_RPC_ERR_NODE) {
		snprintf(buf, n, "%s", e->text);
		return;
	}
	for (const char *c = e->message; *c && k + 5 < n; c++) {
		unsigned char u = (unsigned char)*c;

		if (u >= ' ' && u < 0x7f && u != '\\')
			buf[k++] = (char)u;
		else
			k += (size_t)snprintf(buf + k, n - k, "\\x%02x", u);
	}
	buf[k] = '\0';
}

/* Node messages differ in case between clients ("insufficient funds" in
 * geth, "Insufficient funds" in anvil). */
static int says(const hj_rpc_error *e, const char *what)
{
	return e->kind == HJ_RPC_ERR_NODE && e->message &&
	       strcasestr(e->message, what) != NULL;
}

/* ---- 4. the end of a pass ---- */

static void pass_end(evm_payer *p)
{
	char err[HJ_ERRLEN], a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN],
	    c[HJ_AMOUNT_STRLEN], d[HJ_AMOUNT_STRLEN], e[HJ_AMOUNT_STRLEN];
	hj_amount expo = hjd_payer_base_exposure(&p->base), need;

	if (hj_store_settle_totals(p->base.store, &p->tot, err, sizeof err) ==
	    0)
		p->have_tot = 1;
	if (p->base.halted) {
		/* The warning says why; it stays. */
	} else if (p->base.have_balance && p->have_tot) {
		need = p->tot.owed - p->tot.unattributed;
		need = need > HJ_AMOUNT_MAX - p->tot.submitted
		           ? HJ_AMOUNT_MAX
		           : need + p->tot.submitted;
		need =
		    need > HJ_AMOUNT_MAX - expo ? HJ_AMOUNT_MAX : need + expo;
		if (need > p->base.balance || p->funds_short) {
			snprintf(
			    p->base.warning, sizeof p->base.warning,
			    "INSUFFICIENT FUNDS: the dealer %s holds %s wei, "
			    "below owed %s + in flight %s + open rounds' "
			    "worst case %s = %s; payouts stay owed until "
			    "funds arrive",
			    p->dealer_hex, hj_amount_format(p->base.balance, a),
			    hj_amount_format(p->tot.owed - p->tot.unattributed,
			                     b),
			    hj_amount_format(p->tot.submitted, c),
			    hj_amount_format(expo, d),
			    hj_amount_format(need, e));
			if (need <= p->base.balance)
				snprintf(
				    p->base.warning, sizeof p->base.warning,
				    "INSUFFICIENT FUNDS: the node refused a "
				    "payout for funds (balance %s wei, "
				    "gas included); payouts stay owed until "
				    "funds arrive",
				    hj_amount_format(p->base.balance, a));
			hjd_payer_base_note(&p->base, HJD_LOG_WARNING,
			                    p->base.warning);
		} else if (strncmp(p->base.warning, "INSUFFICIENT", 12) == 0) {
			p->base.warning[0] = '\0';
			hjd_payer_base_note(
			    &p->base, HJD_LOG_NOTICE,
			    "payouts: funds suffice again for what is owed, in "
			    "flight and at stake");
		}
	}
	hjd_payer_base_pass_end(&p->base);
}

/* A node that did not answer: the pass ends, the next one starts over. */
static void unreachable(evm_payer *p, const char *what, const char *why)
{
	char msg[HJ_ERRLEN];

	hj_say(msg, sizeof msg, "payouts: %s: %s; retried", what, why);
	hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	hjd_payer_base_backoff(&p->base);
	pass_end(p);
}

/* ---- fees ---- */

/* What a new version asks (hjd_evm_fees_want), from the fee history h:
 * the next block's base fee (the last of baseFeePerGas) and the blocks'
 * rewards. */
static int fees_from_history(evm_payer *p, json_t *h)
{
	json_t *base = json_object_get(h, "baseFeePerGas");
	json_t *reward = json_object_get(h, "reward");
	hj_amount tips[HJD_EVM_TIPS_MAX], next_base = 0;
	size_t n = 0;

	/* Every figure must be a quantity: fees guessed from a damaged
	 * answer would sign a transaction that waits or overpays. */
	if (!json_is_array(base) || json_array_size(base) == 0)
		return -1;
	for (size_t i = 0; i < json_array_size(base); i++)
		if (get_quantity(json_array_get(base, i), &next_base))
			return -1;
	/* A node may leave reward out when it has no block to sample. */
	if (reward != NULL && !json_is_array(reward))
		return -1;
	for (size_t i = 0; reward && i < json_array_size(reward); i++) {
		json_t *r = json_array_get(reward, i);
		hj_amount t;

		if (!json_is_array(r) || json_array_size(r) != 1 ||
		    get_quantity(json_array_get(r, 0), &t))
			return -1;
		if (n < HJD_EVM_TIPS_MAX)
			tips[n++] = t;
	}
	p->want = hjd_evm_fees_want(next_base, tips, n, p->min_tip, p->cap);
	p->base.small_min = hjd_evm_min_refund(p->min_auto, p->min_fixed,
	                                       next_base, p->want.tip);
	p->base.have_small_min = 1;
	return 0;
}

/* ---- signing ---- */

/*
 * Signs a version of (nonce, to, value, gas, data: a Commit's payload, or
 * none) with the fees given into p->raw; *v gets its hash and fees.  data
 * must not point into p->raw.  Returns 0, or -1 after fatal (a key that no
 * longer signs is nothing a retry fixes).
 */
static int sign(evm_payer *p, uint64_t nonce, const uint8_t to[20],
                hj_amount value, uint64_t gas, const uint8_t *data,
                size_t data_len, hj_amount max_fee, hj_amount tip,
                struct ver *v)
{
	hj_eip1559_tx tx = {.chain_id = p->chain_id,
	                    .nonce = nonce,
	                    .max_priority_fee_per_gas = tip,
	                    .max_fee_per_gas = max_fee,
	                    .gas_limit = gas,
	                    .value = value,
	                    .data = data,
	                    .data_len = data_len};
	char err[HJ_ERRLEN], msg[HJ_ERRLEN];

	memcpy(tx.to, to, HJ_EVM_ADDR_LEN);
	if (hj_eip1559_sign(p->secp, &tx, p->sk, p->raw, sizeof p->raw,
	                    &p->raw_len, v->hash, err, sizeof err)) {
		hj_say(msg, sizeof msg, "payouts: signing failed: %s", err);
		hjd_payer_base_fatal(&p->base, msg);
		return -1;
	}
	v->max_fee = max_fee;
	v->tip = tip;
	v->signed_at = now_s();
	return 0;
}

static hj_tx_version as_version(const evm_payer *p, const struct ver *v)
{
	hj_tx_version t = {.raw = p->raw,
	                   .raw_len = p->raw_len,
	                   .max_fee = v->max_fee,
	                   .priority_fee = v->tip,
	                   .signed_at = v->signed_at};

	memcpy(t.hash, v->hash, 32);
	return t;
}

/* ---- sending ---- */

static void after_send(evm_payer *p)
{
	if (p->send_new) {
		plan_new(p);
		return;
	}
	p->cur++;
	next_open(p);
}

/* The node has our version (accepted now, or known already). */
static void accepted(evm_payer *p)
{
	char err[HJ_ERRLEN];
	int rc;

	if (hjd_payer_base_begin(&p->base, err, sizeof err))
		return;
	if (p->send_planned)
		rc =
		    hj_store_batch_sent(p->base.store, p->send_id, p->send_hash,
		                        p->base.tip, now_s(), err, sizeof err);
	else
		rc = hj_store_batch_retxid(p->base.store, p->send_id,
		                           p->send_hash, err, sizeof err);
	if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
		return;
	if (p->send_planned)
		p->planned_left = 0;
	hjd_payer_base_backoff_reset(&p->base);
	p->funds_short = 0;
	after_send(p);
}

static void on_sent(void *arg, json_t *result, const hj_rpc_error *e)
{
	evm_payer *p = arg;
	char said[HJ_ERRLEN], msg[HJ_ERRLEN], hex[67], err[HJ_ERRLEN];
	uint8_t h[32];
	int rc;

	if (p->base.closing)
		return;
	hash_hex(p->send_hash, hex);
	if (e == NULL) {
		if (!json_is_string(result) ||
		    hj_hex_decode_exact(json_string_value(result),
		                        json_string_length(result),
		                        HJ_HEX_REQUIRED, h, 32, NULL, 0) ||
		    memcmp(h, p->send_hash, 32) != 0) {
			p->base.halted = 1;
			snprintf(p->base.warning, sizeof p->base.warning,
			         "PAYOUTS HALTED: the node answered "
			         "eth_sendRawTransaction of %s with another "
			         "hash; nothing more is sent until an operator "
			         "looks (docs/PAYOUTS-EVM.md)",
			         hex);
			hjd_log(HJD_LOG_ERR, "%s", p->base.warning);
			pass_end(p);
			return;
		}
		accepted(p);
		return;
	}
	node_says(e, said, sizeof said);
	if (says(e, "already known") || says(e, "known transaction") ||
	    says(e, "already imported")) {
		accepted(p);
		return;
	}
	if (e->kind != HJ_RPC_ERR_NODE) {
		unreachable(p, "eth_sendRawTransaction", said);
		return;
	}
	if (says(e, "nonce too low")) {
		/* Its nonce is mined: by one of our versions (confirmed once
		 * final) or by another transaction (reverted once final). */
		hj_say(
		    msg, sizeof msg,
		    "payouts: batch %lld (nonce %lld): the node says \"%s\"; "
		    "its receipts are checked once the nonce is final",
		    (long long)p->send_id, (long long)p->send_nonce, said);
		hjd_payer_base_note(&p->base, HJD_LOG_NOTICE, msg);
		after_send(p);
		return;
	}
	hj_say(msg, sizeof msg,
	       "payouts: the node refused %s of batch %lld (nonce %lld, %s): "
	       "%s; %s",
	       hex, (long long)p->send_id, (long long)p->send_nonce,
	       p->send_planned ? "its payouts stay owed and are retried"
	                       : "a replacement; the transaction it "
	                         "replaces stays in flight",
	       said,
	       p->send_planned ? "sent again at the next block or after a "
	                         "backoff"
	                       : "tried again later");
	hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
	if (says(e, "insufficient funds"))
		p->funds_short = 1;
	if (p->send_planned) {
		if (hjd_payer_base_begin(&p->base, err, sizeof err))
			return;
		rc = hj_store_batch_failed(p->base.store, p->send_id, said, 0,
		                           err, sizeof err);
		if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
			return;
		hjd_payer_base_backoff(&p->base);
		pass_end(
		    p); /* nothing after a planned batch the node refused */
		return;
	}
	after_send(p);
}

static void send_raw(evm_payer *p, int64_t id, int64_t nonce,
                     const uint8_t hash[32], int planned, int fresh)
{
	char *hex = malloc(2 * p->raw_len + 3);
	json_t *params;

	if (hex == NULL) {
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
		return;
	}
	hj_hex_encode(p->raw, p->raw_len, 1, hex);
	params = json_pack("[s]", hex);
	free(hex);
	p->send_id = id;
	p->send_nonce = nonce;
	p->send_planned = planned;
	p->send_new = fresh;
	memcpy(p->send_hash, hash, 32);
	if (params == NULL ||
	    hj_rpc_call_x(p->base.rpc, "eth_sendRawTransaction", params, NULL,
	                  HJ_RPC_NODE_ERRORS, on_sent, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* ---- 2. open batches ---- */

struct load {
	evm_payer *p;
	int got_raw;
};

static int load_version(void *arg, const hj_tx_version *v)
{
	struct load *l = arg;
	evm_payer *p = l->p;

	if (!l->got_raw) {
		if (v->raw_len > sizeof p->raw)
			return -E2BIG;
		memcpy(p->raw, v->raw, v->raw_len);
		p->raw_len = v->raw_len;
		l->got_raw = 1;
	}
	if (p->nvers < VERS_MAX) {
		struct ver *w = &p->vers[p->nvers++];

		memcpy(w->hash, v->hash, 32);
		w->max_fee = v->max_fee;
		w->tip = v->priority_fee;
		w->signed_at = v->signed_at;
	}
	return 0;
}

/* Decodes the newest version's bytes (recorded by us, checked again: a
 * damaged row must not put out another transaction). */
static int newest_tx(evm_payer *p, hj_eip1559_tx *tx)
{
	uint8_t from[HJ_EVM_ADDR_LEN];
	char err[HJ_ERRLEN], msg[HJ_ERRLEN];
	const hj_batch *b = &p->open[p->cur];

	if (hj_eip1559_recover(p->secp, p->raw, p->raw_len, tx, from, err,
	                       sizeof err) ||
	    memcmp(from, p->dealer, sizeof from) != 0 ||
	    tx->nonce != (uint64_t)b->nonce || tx->value != b->total ||
	    tx->chain_id != p->chain_id) {
		hj_say(msg, sizeof msg,
		       "payouts: batch %lld: its recorded transaction is not "
		       "the dealer's transfer of the batch (%s)",
		       (long long)b->id, err[0] ? err : "fields differ");
		hjd_payer_base_fatal(&p->base, msg);
		return -1;
	}
	return 0;
}

/* Re-signs the batch's transaction with fees (max_fee, tip), records
 * the version, sends it. */
static void resign(evm_payer *p, hj_amount max_fee, hj_amount tip)
{
	const hj_batch *b = &p->open[p->cur];
	uint8_t data[HJ_COMMIT_LEN];
	hj_eip1559_tx tx;
	hj_tx_version t;
	struct ver v;
	char err[HJ_ERRLEN];
	int rc;

	if (newest_tx(p, &tx))
		return;
	/* A Commit carries its payload (the only data this payer signs):
	 * copied out of p->raw, which signing overwrites. */
	if (tx.data_len > sizeof data) {
		hjd_payer_base_fatal(&p->base,
		                     "payouts: a recorded transaction carries "
		                     "data that is no Commit");
		return;
	}
	if (tx.data_len)
		memcpy(data, tx.data, tx.data_len);
	if (sign(p, tx.nonce, tx.to, tx.value, tx.gas_limit,
	         tx.data_len ? data : NULL, tx.data_len, max_fee, tip, &v))
		return;
	t = as_version(p, &v);
	if (hjd_payer_base_begin(&p->base, err, sizeof err))
		return;
	rc = hj_store_add_version(p->base.store, b->id, &t, err, sizeof err);
	if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
		return;
	send_raw(p, b->id, b->nonce, v.hash, !b->sent, 0);
}

static void open_unmined(evm_payer *p)
{
	const hj_batch *b = &p->open[p->cur];
	const struct ver *n = &p->vers[0];
	const hjd_evm_fees have = {.max_fee = n->max_fee, .tip = n->tip};
	hjd_evm_fees f;
	char msg[HJ_ERRLEN], hex[67];

	if (!b->sent) {
		p->planned_left = 1;
		if (!hjd_payer_base_may_send(&p->base)) {
			pass_end(p);
			return;
		}
		/* Never accepted: fees may simply follow the node's. */
		if (hjd_evm_fees_refresh(have, p->want, &f) &&
		    p->nvers < VERS_MAX) {
			resign(p, f.max_fee, f.tip);
			return;
		}
		send_raw(p, b->id, b->nonce, n->hash, 1, 0);
		return;
	}
	if (now_s() - n->signed_at < (int64_t)p->stuck_s) {
		p->cur++;
		next_open(p);
		return;
	}
	/* Stuck: a replacement must raise both fees, within the cap. */
	if (!hjd_evm_fees_bump(have, p->want, p->cap, &f) ||
	    p->nvers >= VERS_MAX) {
		hash_hex(n->hash, hex);
		snprintf(msg, sizeof msg,
		         "payouts: batch %lld (nonce %lld) unmined for more "
		         "than stuck_after; its fees are at max_fee_per_gas "
		         "already, so it is sent again as it is (%s)",
		         (long long)b->id, (long long)b->nonce, hex);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		send_raw(p, b->id, b->nonce, n->hash, 0, 0);
		return;
	}
	snprintf(msg, sizeof msg,
	         "payouts: batch %lld (nonce %lld) unmined for %lld s: "
	         "replaced with higher fees",
	         (long long)b->id, (long long)b->nonce,
	         (long long)(now_s() - n->signed_at));
	hjd_payer_base_note(&p->base, HJD_LOG_NOTICE, msg);
	resign(p, f.max_fee, f.tip);
}

/* The nonce is final: the receipts of the versions decide. */
static void on_receipts(void *arg, json_t *result, const char *error)
{
	evm_payer *p = arg;
	const hj_batch *b;
	char err[HJ_ERRLEN], msg[HJ_ERRLEN], hex[67];
	uint64_t height = 0, gas = 0, status = 0;
	unsigned __int128 price = 0;
	size_t found = SIZE_MAX;
	int rc, later = 0;

	if (p->base.closing)
		return;
	if (error != NULL) {
		unreachable(p, "eth_getTransactionReceipt", error);
		return;
	}
	b = &p->open[p->cur];
	for (size_t i = 0; i < p->nvers && i < json_array_size(result); i++) {
		json_t *r = json_array_get(result, i);
		uint64_t h;

		if (json_is_null(r))
			continue;
		if (!json_is_object(r) ||
		    get_u64(json_object_get(r, "blockNumber"), &h) ||
		    get_u64(json_object_get(r, "status"), &status) ||
		    get_u64(json_object_get(r, "gasUsed"), &gas) ||
		    get_quantity(json_object_get(r, "effectiveGasPrice"),
		                 &price)) {
			unreachable(p, "eth_getTransactionReceipt",
			            "a receipt without blockNumber, status, "
			            "gasUsed or effectiveGasPrice");
			return;
		}
		if (h > p->final_height) {
			later = 1;
			continue;
		}
		found = i;
		height = h;
		break;
	}
	if (found == SIZE_MAX && later) {
		/* Reorganised since step 1: the next pass looks again. */
		p->cur++;
		next_open(p);
		return;
	}
	if (hjd_payer_base_begin(&p->base, err, sizeof err))
		return;
	if (found != SIZE_MAX && status == 1) {
		const uint8_t *h = p->vers[found].hash;

		rc = 0;
		if (!b->sent)
			rc =
			    hj_store_batch_sent(p->base.store, b->id, h, height,
			                        now_s(), err, sizeof err);
		else if (memcmp(b->txid, h, 32) != 0)
			rc = hj_store_batch_retxid(p->base.store, b->id, h, err,
			                           sizeof err);
		if (rc == 0)
			rc = hj_store_batch_confirmed(p->base.store, b->id,
			                              height, err, sizeof err);
		if (rc == 0)
			rc = hj_store_batch_cost(p->base.store, b->id, gas,
			                         (hj_amount)gas * price, err,
			                         sizeof err);
		if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
			return;
		hash_hex(h, hex);
		hjd_log(HJD_LOG_INFO,
		        "payouts: batch %lld (nonce %lld) confirmed: %s in "
		        "block %" PRIu64,
		        (long long)b->id, (long long)b->nonce, hex, height);
	} else {
		if (found != SIZE_MAX) {
			hash_hex(p->vers[found].hash, hex);
			snprintf(msg, sizeof msg,
			         "the transfer %s failed in block %" PRIu64
			         " (the recipient refused it)",
			         hex, height);
		} else {
			snprintf(msg, sizeof msg,
			         "nonce %lld was taken by a transaction this "
			         "daemon did not sign (is the dealer key used "
			         "elsewhere?)",
			         (long long)b->nonce);
		}
		rc = b->sent ? hj_store_batch_reverted(p->base.store, b->id,
		                                       msg, err, sizeof err)
		             : hj_store_batch_failed(p->base.store, b->id, msg,
		                                     1, err, sizeof err);
		if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
			return;
		hjd_log(HJD_LOG_ERR,
		        "payouts: batch %lld: %s; its payouts are owed again",
		        (long long)b->id, msg);
	}
	p->cur++;
	next_open(p);
}

static void receipts(evm_payer *p)
{
	const char *methods[VERS_MAX];
	json_t *params[VERS_MAX];
	char hex[67];

	for (size_t i = 0; i < p->nvers; i++) {
		hash_hex(p->vers[i].hash, hex);
		methods[i] = "eth_getTransactionReceipt";
		params[i] = json_pack("[s]", hex);
		if (params[i] == NULL) {
			for (size_t k = 0; k < i; k++)
				json_decref(params[k]);
			hjd_payer_base_fatal(&p->base,
			                     "payouts: out of memory");
			return;
		}
	}
	if (hj_rpc_batch(p->base.rpc, p->nvers, methods, params, on_receipts,
	                 p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void next_open(evm_payer *p)
{
	const hj_batch *b;
	struct load l = {.p = p};
	char err[HJ_ERRLEN], msg[HJ_ERRLEN];

	if (p->base.closing)
		return;
	if (p->cur >= p->nopen && p->nopen == OPEN_MAX) {
		/* The next page of open batches: each is looked at every
		 * pass, so that none waits behind others for its turn. */
		if (hj_store_open_batches(
		        p->base.store, p->open[OPEN_MAX - 1].id, p->open,
		        OPEN_MAX, &p->nopen, err, sizeof err)) {
			hjd_payer_base_fatal(&p->base, err);
			return;
		}
		p->cur = 0;
	}
	if (p->cur >= p->nopen) {
		plan_new(p);
		return;
	}
	b = &p->open[p->cur];
	p->nvers = 0;
	if (b->nonce < 0 ||
	    hj_store_each_version(p->base.store, b->id, load_version, &l, err,
	                          sizeof err) ||
	    p->nvers == 0) {
		hj_say(msg, sizeof msg,
		       "payouts: batch %lld is not an EVM transaction with a "
		       "signed version%s%s",
		       (long long)b->id, err[0] ? ": " : "", err);
		hjd_payer_base_fatal(&p->base, msg);
		return;
	}
	if ((uint64_t)b->nonce < p->final_n) {
		receipts(p);
	} else if ((uint64_t)b->nonce < p->latest_n) {
		if (!b->sent)
			p->planned_left = 1; /* known once final */
		p->cur++;
		next_open(p);
	} else {
		open_unmined(p);
	}
}

/* ---- 3. small refunds held ---- */

static int tally_one(void *arg, const hj_owed_payout *o)
{
	evm_payer *p = arg;

	return hjd_owed_add(&p->owed, o);
}

/* The threshold in force: auto's needs a fee history read this pass. */
static int min_now(const evm_payer *p, hj_amount *min)
{
	if (p->min_auto && !p->base.have_small_min)
		return 0;
	*min = p->base.small_min;
	return 1;
}

static int held(const void *arg, const uint8_t to[HJ_EVM_ADDR_LEN])
{
	const evm_payer *p = arg;
	const hjd_owed_to *r = hjd_owed_find(&p->owed, to);
	hj_amount min;

	if (r == NULL || !min_now(p, &min))
		return 0;
	return hjd_evm_held(r->refunds, r->other, min);
}

/* What every owed recipient is owed, and what waits (for STATUS and
 * the metrics).  0, or a store error or -ENOMEM. */
static int tally(evm_payer *p, char *err, size_t errlen)
{
	hj_amount min;
	int rc;

	hjd_owed_clear(&p->owed);
	rc = hj_store_each_unbatched(p->base.store, tally_one, p, err, errlen);
	if (rc)
		return rc;
	p->base.small_n = 0;
	p->base.small_sum = 0;
	if (!min_now(p, &min))
		return 0;
	for (size_t i = 0; i < p->owed.n; i++)
		if (hjd_evm_held(p->owed.v[i].refunds, p->owed.v[i].other,
		                 min)) {
			hj_amount r = p->owed.v[i].refunds;

			p->base.small_n += p->owed.v[i].n;
			p->base.small_sum =
			    r > HJ_AMOUNT_MAX - p->base.small_sum
			        ? HJ_AMOUNT_MAX
			        : p->base.small_sum + r;
		}
	return 0;
}

/* ---- 3. a new batch ---- */

static void ids_clear(evm_payer *p)
{
	for (size_t i = 0; i < p->nids; i++)
		free(p->ids[i]);
	p->nids = 0;
	p->pick = (hjd_evm_pick){
	    .skip = p->skip, .nskip = p->nskip, .held = held, .held_arg = p};
}

/* Collects the payouts of the oldest owed recipient not skipped. */
static int gather(void *arg, const hj_owed_payout *o)
{
	evm_payer *p = arg;
	char **v;

	if (!hjd_evm_pick_take(&p->pick, o))
		return 0;
	if (p->nids == p->capids) {
		size_t cap = p->capids ? 2 * p->capids : 16;

		v = realloc(p->ids, cap * sizeof *v);
		if (v == NULL)
			return -ENOMEM;
		p->ids = v;
		p->capids = cap;
	}
	p->ids[p->nids] = strdup(o->id);
	if (p->ids[p->nids] == NULL)
		return -ENOMEM;
	p->nids++;
	return 0;
}

/*
 * A new batch: its first version signed (to, value, gas, data) under the
 * next nonce at the fees wanted now, recorded with what it settles (the
 * payouts gathered in p->ids, or the Commit of seed chain seed_chain),
 * its version kept in p->new_ver for send_planned.  *id and *nonce get its
 * number and nonce.  Returns 0, or -1 after fatal.
 */
static int plan_signed(evm_payer *p, const uint8_t to[20], hj_amount value,
                       uint64_t gas, const uint8_t *data, size_t n,
                       int64_t seed_chain, int64_t *id, uint64_t *nonce)
{
	char hex[43], err[HJ_ERRLEN];
	hj_batch_output out = {.address = hex, .amount = value};
	hj_tx_version t;
	int rc;

	if (next_nonce(p, nonce) ||
	    sign(p, *nonce, to, value, gas, data, n, p->want.max_fee,
	         p->want.tip, &p->new_ver))
		return -1;
	addr_hex(to, hex);
	t = as_version(p, &p->new_ver);
	hj_batch_plan plan = {.height = p->base.processed,
	                      .now = now_s(),
	                      .outs = &out,
	                      .nouts = 1,
	                      .payouts = (const char *const *)p->ids,
	                      .npayouts = seed_chain ? 0 : p->nids,
	                      .version = &t,
	                      .nonce = *nonce,
	                      .gas_limit = gas,
	                      .seed_chain = seed_chain};
	if (hjd_payer_base_begin(&p->base, err, sizeof err))
		return -1;
	rc = hj_store_plan_batch(p->base.store, &plan, id, err, sizeof err);
	if (hjd_payer_base_commit(&p->base, rc, err, sizeof err))
		return -1;
	p->send_id = *id;
	p->send_nonce = (int64_t)*nonce;
	return 0;
}

/* Sends the batch plan_signed recorded. */
static void send_planned(evm_payer *p)
{
	p->planned_left = 1;
	send_raw(p, p->send_id, p->send_nonce, p->new_ver.hash, 1, 1);
}

static void on_estimate(void *arg, json_t *result, const hj_rpc_error *e)
{
	evm_payer *p = arg;
	char said[HJ_ERRLEN], msg[HJ_ERRLEN], to[43];
	uint64_t gas, nonce;
	hj_amount value;
	int64_t id;
	size_t n;

	if (p->base.closing)
		return;
	addr_hex(p->pick.to, to);
	if (e != NULL) {
		node_says(e, said, sizeof said);
		if (e->kind != HJ_RPC_ERR_NODE) {
			unreachable(p, "eth_estimateGas", said);
			return;
		}
		hj_say(msg, sizeof msg,
		       "payouts: cannot pay %s: the node estimates no gas for "
		       "the transfer (%s); its payouts stay owed",
		       to, said);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		if (p->nskip < SKIP_MAX)
			memcpy(p->skip[p->nskip++], p->pick.to,
			       HJ_EVM_ADDR_LEN);
		else
			p->skip_full = 1;
		plan_new(p);
		return;
	}
	if (get_u64(result, &gas) || gas == 0 || gas > 30000000) {
		unreachable(p, "eth_estimateGas", "not a gas amount");
		return;
	}
	/* A plain transfer costs exactly 21000; code at the recipient may
	 * cost more when the block differs from the estimate's. */
	if (gas > HJD_EVM_GAS_TRANSFER)
		gas += gas / 5;
	/* ids_clear resets the pick: what the line says, kept first. */
	n = p->nids;
	value = p->pick.value;
	if (plan_signed(p, p->pick.to, value, gas, NULL, 0, 0, &id, &nonce))
		return;
	ids_clear(p);
	hjd_log(HJD_LOG_INFO,
	        "payouts: batch %lld: %s wei to %s, nonce %" PRIu64
	        ", %zu payouts",
	        (long long)id, hj_amount_format(value, said), to, nonce, n);
	send_planned(p);
}

/* The nonce of a new batch: the store's next, or the node's pending count
 * when another sender used the key.  Returns 0, or -1 after fatal. */
static int next_nonce(evm_payer *p, uint64_t *nonce)
{
	char err[HJ_ERRLEN], msg[HJ_ERRLEN];

	if (hj_store_next_nonce(p->base.store, nonce, err, sizeof err)) {
		hjd_payer_base_fatal(&p->base, err);
		return -1;
	}
	if (p->pending_n > *nonce) {
		snprintf(msg, sizeof msg,
		         "payouts: the dealer account's next nonce is %" PRIu64
		         " but this daemon has used only up to %" PRIu64
		         ": another program sends from the dealer key; "
		         "continuing at %" PRIu64,
		         p->pending_n, *nonce, p->pending_n);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		*nonce = p->pending_n;
	}
	return 0;
}

/* ---- 3a. the Commit of a planned seed chain (committed cards) ---- */

/* The planned chain whose Commit needs a batch: none yet, or its last was
 * refused or reverted (no transaction of it can ever be mined). */
static int want_commit(void *arg, const hj_store_seed_chain *r)
{
	evm_payer *p = arg;

	if (strcmp(r->state, "planned") == 0 &&
	    (r->batch == 0 || strcmp(r->batch_state, "refused") == 0 ||
	     strcmp(r->batch_state, "reverted") == 0)) {
		p->commit = *r;
		p->have_commit = 1;
	}
	return 0;
}

static size_t commit_payload(const evm_payer *p, uint8_t out[HJ_PAYLOAD_MAX])
{
	hj_payload pl = {.act = HJ_COMMIT,
	                 .start = p->commit.start,
	                 .length = p->commit.length};

	memcpy(pl.commitment, p->commit.commitment, sizeof pl.commitment);
	return hj_payload_encode(HJ_EVM, &pl, out);
}

static void on_commit_estimate(void *arg, json_t *result, const hj_rpc_error *e)
{
	evm_payer *p = arg;
	uint8_t data[HJ_PAYLOAD_MAX];
	size_t n = commit_payload(p, data);
	char said[HJ_ERRLEN], msg[HJ_ERRLEN];
	uint64_t gas, nonce;
	int64_t id;

	if (p->base.closing)
		return;
	if (e != NULL) {
		node_says(e, said, sizeof said);
		if (e->kind != HJ_RPC_ERR_NODE) {
			unreachable(p, "eth_estimateGas", said);
			return;
		}
		hj_say(msg, sizeof msg,
		       "committed cards: the node estimates no gas for the "
		       "Commit (%s); asked again next pass",
		       said);
		hjd_payer_base_note(&p->base, HJD_LOG_WARNING, msg);
		p->commit_tried = 1;
		plan_new(p);
		return;
	}
	if (get_u64(result, &gas) || gas < HJD_EVM_GAS_TRANSFER ||
	    gas > 30000000) {
		unreachable(p, "eth_estimateGas", "not a gas amount");
		return;
	}
	if (plan_signed(p, p->dealer, 0, gas, data, n, p->commit.id, &id,
	                &nonce))
		return;
	hjd_log(HJD_LOG_NOTICE,
	        "committed cards: batch %lld: the Commit of seed chain %lld "
	        "(%" PRIu32 " seeds from block %" PRIu64 "), nonce %" PRIu64,
	        (long long)id, (long long)p->commit.id, p->commit.length,
	        p->commit.start, nonce);
	p->commit_tried = 1;
	send_planned(p);
}

/* Plans the Commit of the planned seed chain, if it needs a batch; 1 when
 * a request went out. */
static int plan_commit(evm_payer *p)
{
	uint8_t data[HJ_PAYLOAD_MAX];
	char err[HJ_ERRLEN], hex[2 * HJ_PAYLOAD_MAX + 3];
	json_t *params;
	size_t n;
	int rc;

	if (p->commit_tried)
		return 0;
	p->have_commit = 0;
	rc = hj_store_each_seed_chain(p->base.store, want_commit, p, err,
	                              sizeof err);
	if (rc) {
		hjd_payer_base_fatal(&p->base, err);
		return 1;
	}
	if (!p->have_commit) {
		p->commit_tried = 1;
		return 0;
	}
	n = commit_payload(p, data);
	hj_hex_encode(data, n, 1, hex);
	params = json_pack("[{s:s, s:s, s:s, s:s}]", "from", p->dealer_hex,
	                   "to", p->dealer_hex, "value", "0x0", "data", hex);
	if (params == NULL ||
	    hj_rpc_call_x(p->base.rpc, "eth_estimateGas", params, NULL,
	                  HJ_RPC_NODE_ERRORS, on_commit_estimate, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
	return 1;
}

/*
 * Step 3's last part: nothing payable is left; with [payout] sweep_to, and
 * no sweep in the last sweep_every blocks, the balance above what must
 * stay (hjd_evm_sweep: owed, in flight, the open rounds' worst case, the
 * margin and gas) is recorded as a payout of kind "sweep" to the cold
 * address, then paid as any payout: once, whatever crashes (the row is
 * committed before anything is signed).  Never while funds are short or
 * payouts halted, nor before every final block is processed (during a
 * catch-up the balance holds stakes of rounds not dealt yet).  1 when one was
 * recorded; 0, or after fatal.
 */
static int sweep_recorded(evm_payer *p)
{
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN], k[HJ_AMOUNT_STRLEN],
	    to[43];
	hj_settle_totals tot;
	hj_amount need, expo, x;

	if (!p->sweep || p->funds_short ||
	    !hjd_payer_base_sweep_due(&p->base, p->sweep_every, &tot))
		return 0;
	expo = hjd_payer_base_exposure(&p->base);
	need = tot.owed > HJ_AMOUNT_MAX - tot.submitted
	           ? HJ_AMOUNT_MAX
	           : tot.owed + tot.submitted;
	need = need > HJ_AMOUNT_MAX - expo ? HJ_AMOUNT_MAX : need + expo;
	x = hjd_evm_sweep(p->base.balance, need, p->sweep_margin,
	                  p->want.max_fee, p->owed.n);
	if (x == 0 || hjd_payer_base_sweep_record(&p->base, &p->cold, x))
		return 0;
	addr_hex(p->cold.b, to);
	hjd_log(HJD_LOG_NOTICE,
	        "payouts: sweep of %s wei to %s at block %" PRIu64
	        ": the balance %s wei less %s kept (owed, in flight, the "
	        "open rounds' worst case, the margin and gas)",
	        hj_amount_format(x, a), to, p->base.processed,
	        hj_amount_format(p->base.balance, b),
	        hj_amount_format(p->base.balance - x, k));
	return 1;
}

static void plan_new(evm_payer *p)
{
	char err[HJ_ERRLEN], to[43], val[40];
	json_t *params;
	int rc;

	if (p->base.closing)
		return;
	if (p->planned_left || !hjd_payer_base_may_send(&p->base) ||
	    p->skip_full) {
		pass_end(p);
		return;
	}
	/* A Commit first: cards wait for it, payouts only for their turn. */
	if (plan_commit(p))
		return;
	ids_clear(p);
	rc = tally(p, err, sizeof err);
	if (rc == 0)
		rc = hj_store_each_unbatched(p->base.store, gather, p, err,
		                             sizeof err);
	if (rc) {
		hjd_payer_base_fatal(
		    &p->base, rc == -ENOMEM ? "payouts: out of memory" : err);
		return;
	}
	if (!p->pick.have_to || p->pick.value == 0) {
		ids_clear(p);
		if (sweep_recorded(p))
			plan_new(p);
		else
			pass_end(p);
		return;
	}
	addr_hex(p->pick.to, to);
	quantity(p->pick.value, val);
	params = json_pack("[{s:s, s:s, s:s}]", "from", p->dealer_hex, "to", to,
	                   "value", val);
	if (params == NULL ||
	    hj_rpc_call_x(p->base.rpc, "eth_estimateGas", params, NULL,
	                  HJ_RPC_NODE_ERRORS, on_estimate, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* ---- 1. the chain's view ---- */

static void on_view(void *arg, json_t *result, const char *error)
{
	evm_payer *p = arg;
	char err[HJ_ERRLEN];
	unsigned __int128 bal;
	size_t n;

	if (p->base.closing)
		return;
	if (error != NULL) {
		unreachable(p, "the dealer's nonce, balance and fees", error);
		return;
	}
	if (get_u64(json_array_get(result, 0), &p->latest_n) ||
	    get_u64(json_array_get(result, 1), &p->final_n) ||
	    get_u64(json_array_get(result, 2), &p->pending_n) ||
	    get_quantity(json_array_get(result, 3), &bal) ||
	    !json_is_object(json_array_get(result, 4))) {
		unreachable(
		    p, "the dealer's nonce, balance and fees",
		    "an answer that is not a quantity or a fee history");
		return;
	}
	/* An account's count is never higher at an older block: a node
	 * that says otherwise cannot be trusted to tell a final nonce. */
	if (p->final_n > p->latest_n || p->latest_n > p->pending_n) {
		unreachable(p, "the dealer's nonce",
		            "its counts at the final block, the latest block "
		            "and pending do not grow in that order");
		return;
	}
	if (fees_from_history(p, json_array_get(result, 4))) {
		unreachable(
		    p, "eth_feeHistory",
		    "baseFeePerGas or reward is not a list of quantities");
		return;
	}
	p->base.balance = bal;
	p->base.have_balance = 1;
	if (hj_store_open_batches(p->base.store, 0, p->open, OPEN_MAX, &n, err,
	                          sizeof err)) {
		hjd_payer_base_fatal(&p->base, err);
		return;
	}
	p->nopen = n;
	p->cur = 0;
	p->nskip = 0;
	p->skip_full = 0;
	p->planned_left = 0;
	next_open(p);
}

static void view(evm_payer *p)
{
	static const char *const methods[5] = {
	    "eth_getTransactionCount", "eth_getTransactionCount",
	    "eth_getTransactionCount", "eth_getBalance", "eth_feeHistory"};
	json_t *params[5];
	char final[40];

	p->final_height = p->base.final;
	quantity(p->final_height, final);
	params[0] = json_pack("[s,s]", p->dealer_hex, "latest");
	params[1] = json_pack("[s,s]", p->dealer_hex, final);
	params[2] = json_pack("[s,s]", p->dealer_hex, "pending");
	params[3] = json_pack("[s,s]", p->dealer_hex, "latest");
	params[4] = json_pack("[s,s,[i]]", FEE_BLOCKS, "latest", 50);
	for (int i = 0; i < 5; i++)
		if (params[i] == NULL) {
			for (int k = 0; k < 5; k++)
				json_decref(params[k]);
			hjd_payer_base_fatal(&p->base,
			                     "payouts: out of memory");
			return;
		}
	if (hj_rpc_batch(p->base.rpc, 5, methods, params, on_view, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

static void on_chain_id(void *arg, json_t *result, const char *error)
{
	evm_payer *p = arg;

	if (p->base.closing)
		return;
	if (error != NULL || get_u64(result, &p->chain_id)) {
		unreachable(p, "eth_chainId", error ? error : "not a quantity");
		return;
	}
	p->have_chain_id = 1;
	view(p);
}

/* A pass (the base's run hook). */
static void pass_run(hjd_payer *b)
{
	evm_payer *p = (evm_payer *)b;

	p->commit_tried = 0;
	if (p->have_chain_id) {
		view(p);
		return;
	}
	if (hj_rpc_call(p->base.rpc, "eth_chainId", NULL, on_chain_id, p))
		hjd_payer_base_fatal(&p->base, "payouts: out of memory");
}

/* ---- the base's hooks, the constructor ---- */

/* The status line (the base's status hook). */
static void status_of(const hjd_payer *b, char *buf, size_t n)
{
	const evm_payer *p = (const evm_payer *)b;
	char owed[HJ_AMOUNT_STRLEN], unattr[HJ_AMOUNT_STRLEN],
	    flight[HJ_AMOUNT_STRLEN], bal[HJ_AMOUNT_STRLEN] = "?",
	                              small[HJ_AMOUNT_STRLEN],
	                              min[HJ_AMOUNT_STRLEN] = "?", held[160];

	if (!p->have_tot) {
		snprintf(buf, n, "payouts: starting");
		return;
	}
	hj_amount_format(p->tot.owed, owed);
	hj_amount_format(p->tot.unattributed, unattr);
	hj_amount_format(p->tot.submitted, flight);
	if (p->base.have_balance)
		hj_amount_format(p->base.balance, bal);
	if (p->base.have_small_min)
		hj_amount_format(p->base.small_min, min);
	snprintf(held, sizeof held,
	         "; %" PRIu64 " refunds held below min_refund %s wei (%s)",
	         p->base.small_n, min,
	         hj_amount_format(p->base.small_sum, small));
	snprintf(buf, n,
	         "payouts: %" PRIu64 " owed (%s wei; %" PRIu64
	         " unattributed %s%s), %" PRIu64
	         " in flight (%s), dealer balance %s wei%s%s",
	         p->tot.owed_n, owed, p->tot.unattributed_n, unattr,
	         p->base.small_n ? held : "", p->tot.submitted_n, flight, bal,
	         p->base.warning[0] ? "; " : "", p->base.warning);
}

static void release(hjd_payer *b)
{
	evm_payer *p = (evm_payer *)b;

	ids_clear(p);
	free(p->ids);
	hjd_owed_free(&p->owed);
	explicit_bzero(p->sk, sizeof p->sk);
	hj_secp_free(p->secp);
	free(p);
}

static const struct hjd_payer_base_ops ops = {
    .run = pass_run, .status = status_of, .release = release};

int hjd_evm_payer_new(const hjd_payer_opts *o, const hjd_evm_payout *po,
                      hjd_payer **out, char *err, size_t errlen)
{
	evm_payer *p;
	char why[HJ_ERRLEN];
	int rc;

	*out = NULL;
	p = calloc(1, sizeof *p);
	if (p == NULL) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	hjd_payer_base_init(&p->base, &ops, o);
	p->cap = po->max_fee_per_gas;
	p->min_tip = po->min_priority_fee;
	p->stuck_s = po->stuck_after_s;
	p->min_auto = po->min_refund_auto;
	p->min_fixed = po->min_refund;
	p->sweep = po->sweep;
	memcpy(p->cold.b, po->sweep_to, sizeof po->sweep_to);
	p->cold.len = sizeof po->sweep_to;
	p->sweep_margin = po->sweep_margin;
	p->sweep_every = po->sweep_every;
	if (!p->min_auto) {
		p->base.small_min = p->min_fixed;
		p->base.have_small_min = 1;
	}
	hjd_owed_init(&p->owed);
	if (hj_secp_new(&p->secp, why, sizeof why) != 0) {
		hj_say(err, errlen, "%s", why);
		rc = -ENOMEM;
		goto fail;
	}
	rc = hjd_dealer_key_load(p->secp, po->key_source, o->dealer->addr,
	                         p->sk, p->dealer, why, sizeof why);
	if (rc) {
		hj_say(err, errlen, "[payout] dealer_key: %s", why);
		goto fail;
	}
	addr_hex(p->dealer, p->dealer_hex);
	rc = hjd_payer_base_open(&p->base, o->node, why, sizeof why);
	if (rc) {
		hj_say(err, errlen, "payout client: %s", why);
		goto fail;
	}
	*out = &p->base;
	return 0;
fail:
	explicit_bzero(p->sk, sizeof p->sk);
	hj_secp_free(p->secp);
	free(p);
	return rc ? rc : -EINVAL;
}
