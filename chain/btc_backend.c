/*
 * The Bitcoin-family backend.  A batch of blocks costs two HTTP requests:
 * getblockhash for every height, then getblock <hash> 0 for every hash.
 * The raw blocks are parsed here; whatever the node says is checked (a
 * block whose header does not hash to the hash asked for, a malformed
 * transaction) and reported as an error for the caller to retry, never
 * skipped.
 */
#include "btc_backend.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btc.h"
#include "btc_tx.h"
#include "hex.h"
#include "payee.h"
#include "push.h"
#include "quote.h"
#include "say.h"
#include "table.h"

struct btc {
	hj_backend base;
	hj_rpc *rpc;
	char coin[16];
	uint8_t script[HJ_BTC_SCRIPT_MAX]; /* the dealer's scriptPubKey */
	size_t script_len;
	const char *hrp; /* the dealer address's prefix */
	hj_secp *secp;
	struct hj_btc_verifier verifier; /* genesis set by identity() */
	int keep_all;                    /* every transaction, for export */
	struct breq *reqs;               /* in progress, freed with us */
	struct qreq *qreqs;
};

/* One blocks() request. */
struct breq {
	struct btc *b;
	struct breq *next;
	uint64_t from;
	size_t n;
	hj_blocks_cb cb;
	void *arg;
	hj_chain_block *blocks;
	/* payments(): the payees and the outputs paying them. */
	hj_payments_cb pcb;
	hj_payee_set set;
	hj_chain_payment *pays;
	size_t npays, cap;
};

/* One identity() or tip() request. */
struct qreq {
	struct btc *b;
	struct qreq *next;
	hj_ident_cb ident;
	hj_tip_cb tip;
	void *arg;
};

static struct btc *btc_of(hj_backend *b)
{
	return (struct btc *)b;
}

static void breq_free(struct breq *r)
{
	if (!r)
		return;
	hj_chain_blocks_free(r->blocks, r->n);
	free(r->pays);
	hj_payee_set_free(&r->set);
	free(r);
}

static void breq_done(struct breq *r, const char *error)
{
	struct breq **p = &r->b->reqs;

	while (*p && *p != r)
		p = &(*p)->next;
	if (*p)
		*p = r->next;
	if (r->pcb)
		r->pcb(r->arg, error ? NULL : r->pays, error ? 0 : r->npays,
		       error);
	else
		r->cb(r->arg, error ? NULL : r->blocks, error ? 0 : r->n,
		      error);
	breq_free(r);
}

static void qreq_unlink(struct qreq *q)
{
	struct qreq **p = &q->b->qreqs;

	while (*p && *p != q)
		p = &(*p)->next;
	if (*p)
		*p = q->next;
}

/* A block hash as the node prints it: 64 hex digits, no prefix. */
static int get_hash(json_t *v, uint8_t out[32], char *why, size_t n)
{
	if (!json_is_string(v)) {
		hj_say(why, n, "not a string");
		return -EINVAL;
	}
	return hj_hex_decode_exact(json_string_value(v), json_string_length(v),
	                           HJ_HEX_BARE, out, 32, why, n);
}

/* ---- blocks ---- */

/* payments(): the outputs of tx (in block `height`) that pay a payee.
 * Returns 0 or -ENOMEM. */
static int read_payments(struct breq *r, uint64_t height, const hj_btc_tx *tx)
{
	hj_btc_out_iter it;
	hj_btc_output out;
	uint8_t txid[32];
	int hashed = 0;

	hj_btc_outputs_begin(tx, &it);
	while (hj_btc_outputs_next(&it, &out)) {
		long k = hj_payee_set_find(&r->set, out.script, out.script_len);
		if (k < 0)
			continue;
		if (!hashed) {
			hj_btc_tx_txid(tx, txid);
			hashed = 1;
		}
		if (r->npays == r->cap) {
			size_t ncap = r->cap ? 2 * r->cap : 8;
			hj_chain_payment *p =
			    realloc(r->pays, ncap * sizeof *p);
			if (!p)
				return -ENOMEM;
			r->pays = p;
			r->cap = ncap;
		}
		hj_chain_payment *p = &r->pays[r->npays++];
		p->height = height;
		p->payee = (size_t)k;
		p->value = out.value;
		for (int b = 0; b < 32; b++)
			p->txid[b] = txid[31 - b];
	}
	return 0;
}

/* Parses raw block i (hex text) into r->blocks[i]. */
static int read_block(struct breq *r, size_t i, json_t *hex, char *err,
                      size_t errlen)
{
	hj_chain_block *cb = &r->blocks[i];
	uint64_t height = r->from + i;
	size_t len, nraw = 0, cap = 0, capall = 0;
	uint8_t *raw = NULL;
	hj_btc_block blk;
	hj_btc_tx tx;
	char why[HJ_ERRLEN];
	int rc = -EINVAL;

	if (!json_is_string(hex)) {
		snprintf(why, sizeof why, "getblock did not return hex text");
		goto bad;
	}
	len = json_string_length(hex);
	raw = malloc(len / 2 + 1);
	if (!raw) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (hj_hex_decode(json_string_value(hex), len, HJ_HEX_BARE, raw,
	                  len / 2 + 1, &nraw, why, sizeof why) ||
	    hj_btc_block_open(&blk, raw, nraw, why, sizeof why))
		goto bad;
	for (int k = 0; k < 32; k++) {
		if (blk.header.hash[31 - k] != cb->hash[k]) {
			snprintf(why, sizeof why,
			         "the block's header does not hash to the "
			         "hash getblockhash gave");
			goto bad;
		}
		cb->parent[k] = blk.header.prev_hash[31 - k];
	}
	for (uint32_t k = 0;; k++) {
		hj_action a;
		int got = hj_btc_block_next(&blk, &tx, why, sizeof why);

		if (got < 0)
			goto bad;
		if (got == 0)
			break;
		if (r->b->keep_all) {
			/* The raw block is kept: each transaction is a view
			 * into it. */
			if (cb->nall == capall) {
				size_t ncap = capall ? 2 * capall : 16;
				hj_chain_tx *p =
				    realloc(cb->all, ncap * sizeof *p);
				if (!p) {
					hj_say(err, errlen, "out of memory");
					rc = -ENOMEM;
					goto out;
				}
				cb->all = p;
				capall = ncap;
			}
			cb->all[cb->nall++] =
			    (hj_chain_tx){.data = tx.raw, .len = tx.raw_len};
		}
		if (r->pcb) {
			if (read_payments(r, height, &tx)) {
				hj_say(err, errlen, "out of memory");
				rc = -ENOMEM;
				goto out;
			}
			continue;
		}
		got = hj_btc_action(&tx, r->b->script, r->b->script_len, k, &a,
		                    why, sizeof why);
		if (got < 0)
			goto bad;
		if (got == 0)
			continue;
		if (cb->ntx == cap) {
			size_t ncap = cap ? 2 * cap : 4;
			hj_action *p = realloc(cb->txs, ncap * sizeof *p);
			if (!p) {
				hj_say(err, errlen, "out of memory");
				rc = -ENOMEM;
				goto out;
			}
			cb->txs = p;
			cap = ncap;
		}
		cb->txs[cb->ntx++] = a;
	}
	cb->height = height;
	if (r->b->keep_all) {
		cb->bytes = raw; /* what all[] points into */
		raw = NULL;
	}
	rc = 0;
	goto out;
bad:
	hj_say(err, errlen, "block %" PRIu64 ": %s", height, why);
out:
	free(raw);
	return rc;
}

static void on_blocks(void *arg, json_t *result, const char *error)
{
	struct breq *r = arg;
	char err[HJ_ERRLEN];

	if (error) {
		breq_done(r, error);
		return;
	}
	if (json_array_size(result) != r->n) {
		breq_done(r, "getblock batch answer has the wrong number of "
		             "blocks");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (read_block(r, i, json_array_get(result, i), err,
		               sizeof err)) {
			breq_done(r, err);
			return;
		}
	}
	breq_done(r, NULL);
}

/* Sends n calls of method, params[i] built by mk(i); stolen even on
 * failure. */
static int send_batch(struct btc *b, const char *method, size_t n,
                      json_t *(*mk)(struct breq *, size_t), struct breq *r,
                      hj_rpc_cb cb)
{
	const char **methods = calloc(n, sizeof *methods);
	json_t **params = calloc(n, sizeof *params);
	size_t k = 0;
	int rc = -ENOMEM;

	if (!methods || !params)
		goto out;
	for (; k < n; k++) {
		methods[k] = method;
		params[k] = mk(r, k);
		if (!params[k])
			goto out;
	}
	rc = hj_rpc_batch(b->rpc, n, methods, params, cb, r);
	k = 0;
out:
	for (size_t i = 0; i < k; i++)
		json_decref(params[i]);
	free(methods);
	free(params);
	return rc;
}

static json_t *getblock_params(struct breq *r, size_t i)
{
	char hex[65];

	hj_hex_encode(r->blocks[i].hash, 32, 0, hex);
	return json_pack("[si]", hex, 0);
}

static void on_hashes(void *arg, json_t *result, const char *error)
{
	struct breq *r = arg;
	char why[HJ_ERRLEN], err[HJ_ERRLEN];

	if (error) {
		breq_done(r, error);
		return;
	}
	if (json_array_size(result) != r->n) {
		breq_done(r, "getblockhash batch answer has the wrong number "
		             "of hashes");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (get_hash(json_array_get(result, i), r->blocks[i].hash, why,
		             sizeof why)) {
			hj_say(err, sizeof err, "getblockhash %" PRIu64 ": %s",
			       r->from + i, why);
			breq_done(r, err);
			return;
		}
	}
	if (send_batch(r->b, "getblock", r->n, getblock_params, r, on_blocks))
		breq_done(r, "out of memory");
}

static json_t *getblockhash_params(struct breq *r, size_t i)
{
	return json_pack("[I]", (json_int_t)(r->from + i));
}

/* blocks() with cb, or payments() with pcb and payees. */
static int btc_request(hj_backend *be, uint64_t from, size_t n, hj_blocks_cb cb,
                       hj_payments_cb pcb, const hj_chain_payee *payees,
                       size_t npayees, void *arg)
{
	struct btc *b = btc_of(be);
	struct breq *r;
	int rc;

	if (n == 0 || from > (uint64_t)INT64_MAX - n)
		return -EINVAL;
	r = calloc(1, sizeof *r);
	if (!r || !(r->blocks = calloc(n, sizeof *r->blocks)) ||
	    (pcb && hj_payee_set_init(&r->set, payees, npayees))) {
		breq_free(r);
		return -ENOMEM;
	}
	r->b = b;
	r->from = from;
	r->n = n;
	r->cb = cb;
	r->pcb = pcb;
	r->arg = arg;
	rc =
	    send_batch(b, "getblockhash", n, getblockhash_params, r, on_hashes);
	if (rc) {
		breq_free(r);
		return rc;
	}
	r->next = b->reqs;
	b->reqs = r;
	return 0;
}

static int btc_blocks(hj_backend *be, uint64_t from, size_t n, hj_blocks_cb cb,
                      void *arg)
{
	return btc_request(be, from, n, cb, NULL, NULL, 0, arg);
}

static int btc_payments(hj_backend *be, uint64_t from, size_t n,
                        const hj_chain_payee *payees, size_t npayees,
                        hj_payments_cb cb, void *arg)
{
	return btc_request(be, from, n, NULL, cb, payees, npayees, arg);
}

/* tr(P): the witness v1 script of P's output key, and its address in the
 * dealer's prefix (identity() makes sure that it is the node's). */
static int btc_payee(hj_backend *be, const hj_id *recipient,
                     hj_chain_payee *out, char *err, size_t errlen)
{
	struct btc *b = btc_of(be);
	uint8_t q[HJ_XONLY_LEN];

	memset(out, 0, sizeof *out);
	if (recipient->len != HJ_XONLY_LEN) {
		hj_say(err, errlen, "not an x-only key: %u bytes",
		       (unsigned)recipient->len);
		return -EINVAL;
	}
	if (hj_taproot_output_key(b->secp, recipient->b, q, err, errlen) ||
	    hj_taproot_address(b->secp, recipient->b, b->hrp, out->address, err,
	                       errlen))
		return -EINVAL;
	out->len = 2 + HJ_XONLY_LEN;
	out->b[0] = 0x51; /* OP_1 */
	out->b[1] = HJ_XONLY_LEN;
	memcpy(out->b + 2, q, HJ_XONLY_LEN);
	return 0;
}

/* ---- identity and tip ---- */

static void on_tip(void *arg, json_t *result, const char *error)
{
	struct qreq *q = arg;
	json_int_t h = json_integer_value(result);

	qreq_unlink(q);
	if (!error && (!json_is_integer(result) || h < 0))
		error = "getblockcount: not a height";
	q->tip(q->arg, error ? 0 : (uint64_t)h, error);
	free(q);
}

/* A network name as nodes print it: main, test, testnet4, signet, regtest. */
static int plain_name(const char *s, size_t n)
{
	if (n == 0 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static void on_identity(void *arg, json_t *result, const char *error)
{
	struct qreq *q = arg;
	struct btc *b = q->b;
	json_t *info = json_array_get(result, 0);
	json_t *chain = json_object_get(info, "chain");
	char why[HJ_ERRLEN], msg[HJ_ERRLEN], shown[80], id[160], genesis[65];
	const char *hrp;
	uint8_t g[32];
	int permanent = 0;

	qreq_unlink(q);
	if (error) {
		snprintf(msg, sizeof msg, "%s", error);
		goto fail;
	}
	if (!json_is_string(chain) ||
	    !plain_name(json_string_value(chain), json_string_length(chain))) {
		hj_quote(json_is_string(chain) ? json_string_value(chain)
		                               : "(not a string)",
		         shown, sizeof shown);
		snprintf(msg, sizeof msg,
		         "getblockchaininfo: \"chain\" is %s, not a network "
		         "name",
		         shown);
		goto fail;
	}
	if (get_hash(json_array_get(result, 1), g, why, sizeof why)) {
		hj_say(msg, sizeof msg, "getblockhash 0: %s", why);
		goto fail;
	}
	if (hj_taproot_hrp(b->coin, json_string_value(chain), &hrp, why,
	                   sizeof why)) {
		hj_say(msg, sizeof msg,
		       "the node runs %s network \"%s\": %s; check [chain] "
		       "coin",
		       b->coin, json_string_value(chain), why);
		permanent = 1;
		goto fail;
	}
	if (strcmp(hrp, b->hrp) != 0) {
		snprintf(msg, sizeof msg,
		         "the dealer address is for addresses beginning "
		         "\"%s1\", but the node runs %s %s, whose addresses "
		         "begin \"%s1\"; check [dealer] address and [chain] "
		         "coin",
		         b->hrp, b->coin, json_string_value(chain), hrp);
		permanent = 1;
		goto fail;
	}
	memcpy(b->verifier.genesis, g, 32);
	hj_hex_encode(g, 32, 0, genesis);
	snprintf(id, sizeof id, "bitcoin:%s:%s:%s", b->coin,
	         json_string_value(chain), genesis);
	q->ident(q->arg, id, NULL, 0);
	free(q);
	return;
fail:
	q->ident(q->arg, NULL, msg, permanent);
	free(q);
}

static int query(struct btc *b, hj_ident_cb ident, hj_tip_cb tip, void *arg)
{
	struct qreq *q = calloc(1, sizeof *q);
	int rc;

	if (!q)
		return -ENOMEM;
	q->b = b;
	q->ident = ident;
	q->tip = tip;
	q->arg = arg;
	if (tip) {
		rc = hj_rpc_call(b->rpc, "getblockcount", NULL, on_tip, q);
	} else {
		const char *m[2] = {"getblockchaininfo", "getblockhash"};
		json_t *p[2] = {json_array(), json_pack("[i]", 0)};
		if (!p[0] || !p[1]) {
			json_decref(p[0]);
			json_decref(p[1]);
			free(q);
			return -ENOMEM;
		}
		rc = hj_rpc_batch(b->rpc, 2, m, p, on_identity, q);
	}
	if (rc) {
		free(q);
		return rc;
	}
	q->next = b->qreqs;
	b->qreqs = q;
	return 0;
}

static int btc_tip(hj_backend *be, hj_tip_cb cb, void *arg)
{
	return query(btc_of(be), NULL, cb, arg);
}

static int btc_identity(hj_backend *be, hj_ident_cb cb, void *arg)
{
	return query(btc_of(be), cb, NULL, arg);
}

static void btc_attach(hj_backend *be, hj_table *t)
{
	hj_table_set_verifier(t, hj_btc_verify, &btc_of(be)->verifier);
}

/* waitfornewblock long polls (no ZMQ in Debian's litecoind). */
static int btc_push(hj_backend *be, const hj_push_opts *o, hj_push **out,
                    char *err, size_t errlen)
{
	hj_push_opts x = *o;

	(void)be;
	x.kind = HJ_PUSH_BTC;
	return hj_push_new(&x, out, err, errlen);
}

static void btc_keep_all(hj_backend *be)
{
	btc_of(be)->keep_all = 1;
}

static void btc_free(hj_backend *be)
{
	struct btc *b = btc_of(be);

	if (!b)
		return;
	/* The RPC client was closed first: nothing here can call back. */
	while (b->reqs) {
		struct breq *r = b->reqs;
		b->reqs = r->next;
		breq_free(r);
	}
	while (b->qreqs) {
		struct qreq *q = b->qreqs;
		b->qreqs = q->next;
		free(q);
	}
	hj_secp_free(b->secp);
	free(b);
}

const struct hj_backend_ops hj_btc_backend_ops = {
    .chain = "bitcoin",
    .family = HJ_BITCOIN,
    .identity = btc_identity,
    .tip = btc_tip,
    .attach = btc_attach,
    .blocks = btc_blocks,
    .keep_all = btc_keep_all,
    .payee = btc_payee,
    .payments = btc_payments,
    .push = btc_push,
    .push_how = "waitfornewblock long poll",
    .free = btc_free,
};

int hj_btc_backend_new(hj_rpc *rpc, const char *coin, const hj_dealer *dealer,
                       hj_backend **out, char *err, size_t errlen)
{
	struct btc *b;
	int rc;

	*out = NULL;
	b = calloc(1, sizeof *b);
	if (!b) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->base.ops = &hj_btc_backend_ops;
	b->rpc = rpc;
	if (strlen(coin) >= sizeof b->coin) {
		hj_say(err, errlen, "unknown coin");
		free(b);
		return -EINVAL;
	}
	memcpy(b->coin, coin, strlen(coin) + 1);
	memcpy(b->script, dealer->script, dealer->script_len);
	b->script_len = dealer->script_len;
	b->hrp = dealer->hrp;
	rc = hj_secp_new(&b->secp, err, errlen);
	if (rc != 0) {
		free(b);
		return rc;
	}
	b->verifier.secp = b->secp;
	*out = &b->base;
	return 0;
}
