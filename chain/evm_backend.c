/*
 * The EVM backend.  A batch of blocks costs one HTTP request for the
 * blocks and, when any of them holds transactions to the dealer, one more
 * for their receipts.  Every field read from the node is validated; a
 * malformed answer is reported as an error for the caller to retry, never
 * skipped.
 */
#include "evm_backend.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evm.h"
#include "hex.h"
#include "payee.h"
#include "push.h"
#include "say.h"

struct evm {
	hj_backend base;
	hj_rpc *rpc;
	uint8_t dealer[20];
	int keep_all;       /* every transaction of a block, for export */
	int block_receipts; /* eth_getBlockReceipts: 1 the node has it, -1
	                       it has not, 0 not asked yet */
	int dense;          /* the last batch's blocks mostly wanted their
	                       receipts whole: the next asks them with the
	                       blocks */
	struct breq *reqs;  /* in progress, freed with the backend */
	struct qreq *qreqs;
};

/* One blocks() request. */
struct breq {
	struct evm *e;
	struct breq *next;
	uint64_t from;
	size_t n;
	hj_blocks_cb cb;
	void *arg;
	hj_chain_block *blocks;
	json_t *answer; /* the blocks' JSON, kept until the receipts arrive */
	json_t **src;   /* each transaction to the dealer, in order */
	size_t nsrc;
	uint8_t *whole;    /* per block: its receipts asked whole */
	int with_receipts; /* asked with the blocks: the answer holds the n
	                      blocks, then their n receipt lists */
	/* payments(): the payees, and the transfers from the dealer to
	 * them, in block order, until their receipts say which moved. */
	hj_payments_cb pcb;
	hj_payee_set set;
	hj_chain_payment *pays;
	size_t npays;
};

static struct evm *evm_of(hj_backend *b)
{
	return (struct evm *)b;
}

static void req_unlink(struct breq *r)
{
	struct breq **p = &r->e->reqs;
	while (*p && *p != r)
		p = &(*p)->next;
	if (*p)
		*p = r->next;
}

static void req_free(struct breq *r)
{
	if (!r)
		return;
	hj_chain_blocks_free(r->blocks, r->n);
	free(r->src);
	free(r->whole);
	free(r->pays);
	hj_payee_set_free(&r->set);
	json_decref(r->answer);
	free(r);
}

static void req_done(struct breq *r, const char *error)
{
	req_unlink(r);
	if (r->pcb)
		r->pcb(r->arg, error ? NULL : r->pays, error ? 0 : r->npays,
		       error);
	else
		r->cb(r->arg, error ? NULL : r->blocks, error ? 0 : r->n,
		      error);
	req_free(r);
}

static const char *str_member(json_t *o, const char *key, size_t *len)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return NULL;
	*len = json_string_length(v);
	return json_string_value(v);
}

static int get_hash(json_t *o, const char *key, uint8_t out[32], char *err,
                    size_t errlen)
{
	size_t len;
	const char *s = str_member(o, key, &len);
	char why[HJ_ERRLEN];

	if (!s) {
		hj_say(err, errlen, "\"%s\" missing or not a string", key);
		return -EINVAL;
	}
	if (hj_hex_decode_exact(s, len, HJ_HEX_REQUIRED, out, 32, why,
	                        sizeof why)) {
		hj_say(err, errlen, "\"%s\": %s", key, why);
		return -EINVAL;
	}
	return 0;
}

static int get_quantity(json_t *o, const char *key, unsigned __int128 *out,
                        char *err, size_t errlen)
{
	size_t len;
	const char *s = str_member(o, key, &len);
	char why[HJ_ERRLEN];

	if (!s) {
		hj_say(err, errlen, "\"%s\" missing or not a string", key);
		return -EINVAL;
	}
	if (hj_hex_quantity(s, len, out, why, sizeof why)) {
		hj_say(err, errlen, "\"%s\": %s", key, why);
		return -EINVAL;
	}
	return 0;
}

/* tx's address `key` into addr: 1, 0 when it is null or absent (a
 * contract creation's `to`), -EINVAL when it is not an address. */
static int get_address(json_t *tx, const char *key, uint8_t addr[20], char *err,
                       size_t errlen)
{
	json_t *v = json_object_get(tx, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v) ||
	    hj_hex_decode_exact(json_string_value(v), json_string_length(v),
	                        HJ_HEX_REQUIRED, addr, 20, NULL, 0)) {
		hj_say(err, errlen, "\"%s\" is not an address", key);
		return -EINVAL;
	}
	return 1;
}

/* Whether tx's `to` is the dealer; -EINVAL for a malformed `to`. */
static int to_dealer(struct evm *e, json_t *tx, char *err, size_t errlen)
{
	json_t *to = json_object_get(tx, "to");
	uint8_t addr[20];
	char why[HJ_ERRLEN];

	if (to == NULL || json_is_null(to))
		return 0; /* contract creation */
	if (!json_is_string(to) ||
	    hj_hex_decode_exact(json_string_value(to), json_string_length(to),
	                        HJ_HEX_REQUIRED, addr, 20, why, sizeof why)) {
		hj_say(err, errlen, "\"to\" is not an address");
		return -EINVAL;
	}
	return memcmp(addr, e->dealer, 20) == 0;
}

/* Normalises one transaction to the dealer (whose address is dealer) with
 * its receipt's outcome. */
static int read_tx(json_t *tx, const uint8_t *dealer, int success,
                   hj_action *out, char *err, size_t errlen)
{
	uint8_t hash[32], from[20];
	unsigned __int128 value, index;
	size_t len;
	const char *in;
	uint8_t *input = NULL;
	size_t ninput = 0;
	char why[HJ_ERRLEN];

	if (get_hash(tx, "hash", hash, err, errlen))
		return -EINVAL;
	in = str_member(tx, "from", &len);
	if (!in || hj_hex_decode_exact(in, len, HJ_HEX_REQUIRED, from, 20, why,
	                               sizeof why)) {
		hj_say(err, errlen, "\"from\" is not an address");
		return -EINVAL;
	}
	if (get_quantity(tx, "value", &value, err, errlen) ||
	    get_quantity(tx, "transactionIndex", &index, err, errlen))
		return -EINVAL;
	if (index > UINT32_MAX) {
		hj_say(err, errlen, "\"transactionIndex\" out of range");
		return -EINVAL;
	}
	in = str_member(tx, "input", &len);
	if (!in) {
		hj_say(err, errlen, "\"input\" missing or not a string");
		return -EINVAL;
	}
	if (len > 2) {
		input = malloc(len / 2);
		if (!input) {
			hj_say(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (hj_hex_decode(in, len, HJ_HEX_REQUIRED, input, len / 2, &ninput,
	                  why, sizeof why)) {
		free(input);
		hj_say(err, errlen, "\"input\": %s", why);
		return -EINVAL;
	}
	hj_evm_tx etx = {.hash = hash,
	                 .from = from,
	                 .dealer = dealer,
	                 .value = value,
	                 .input = input,
	                 .input_len = ninput,
	                 .success = success,
	                 .tx_index = (uint32_t)index};
	hj_evm_action(&etx, out);
	free(input);
	return 0;
}

/*
 * Every transaction of block i (keep_all), as a replay document gives it:
 * hash, from, to (absent or null: a contract creation), value and input,
 * each checked as `hashjack replay` reads it, and its transactionIndex
 * its position, which a replay document's txIndex is.  *bad is the
 * transaction an error is about.
 */
static int read_all(struct breq *r, size_t i, json_t *txs, size_t *bad,
                    char *why, size_t n)
{
	hj_chain_block *cb = &r->blocks[i];
	size_t ntx = json_array_size(txs), room = 0, off = 0, len;
	const char *s;
	char what[HJ_ERRLEN];

	for (size_t k = 0; k < ntx; k++)
		if ((s = str_member(json_array_get(txs, k), "input", &len)))
			room += len / 2;
	cb->all = calloc(ntx ? ntx : 1, sizeof *cb->all);
	cb->bytes = malloc(room ? room : 1);
	if (!cb->all || !cb->bytes) {
		hj_say(why, n, "out of memory");
		return -ENOMEM;
	}
	for (size_t k = 0; k < ntx; k++) {
		json_t *tx = json_array_get(txs, k), *to;
		hj_chain_tx *t = &cb->all[k];
		unsigned __int128 index;
		size_t got = 0;

		*bad = k;
		if (get_hash(tx, "hash", t->hash, why, n) ||
		    get_quantity(tx, "value", &t->value, why, n) ||
		    get_quantity(tx, "transactionIndex", &index, why, n))
			return -EINVAL;
		if (index != k) {
			hj_say(why, n,
			       "\"transactionIndex\" is not its position "
			       "in the block");
			return -EINVAL;
		}
		s = str_member(tx, "from", &len);
		if (!s || hj_hex_decode_exact(s, len, HJ_HEX_REQUIRED, t->from,
		                              20, what, sizeof what)) {
			hj_say(why, n, "\"from\" is not an address");
			return -EINVAL;
		}
		to = json_object_get(tx, "to");
		if (to && !json_is_null(to)) {
			if (!json_is_string(to) ||
			    hj_hex_decode_exact(json_string_value(to),
			                        json_string_length(to),
			                        HJ_HEX_REQUIRED, t->to, 20,
			                        what, sizeof what)) {
				hj_say(why, n, "\"to\" is not an address");
				return -EINVAL;
			}
			t->has_to = 1;
			t->to_dealer = memcmp(t->to, r->e->dealer, 20) == 0;
		}
		s = str_member(tx, "input", &len);
		if (!s ||
		    hj_hex_decode(s, len, HJ_HEX_REQUIRED, cb->bytes + off,
		                  room - off, &got, what, sizeof what)) {
			hj_say(why, n, "\"input\": %s",
			       s ? what : "missing or not a string");
			return -EINVAL;
		}
		t->data = cb->bytes + off;
		t->len = got;
		off += got;
	}
	cb->nall = ntx;
	return 0;
}

/* payments(): a transfer of tx (block i) from the dealer to a payee,
 * kept until its receipt is read; 0 when tx is none, -EINVAL when it is
 * malformed. */
static int read_payment(struct breq *r, size_t i, json_t *tx, char *err,
                        size_t errlen)
{
	uint8_t from[20], to[20];
	unsigned __int128 value;
	hj_chain_payment *p;
	long k;
	int rc = get_address(tx, "from", from, err, errlen);

	if (rc == 0) {
		hj_say(err, errlen, "\"from\" is not an address");
		return -EINVAL;
	}
	if (rc < 0 || (rc = get_address(tx, "to", to, err, errlen)) < 0)
		return -EINVAL;
	if (rc == 0 || memcmp(from, r->e->dealer, 20) != 0)
		return 0;
	k = hj_payee_set_find(&r->set, to, 20);
	if (k < 0)
		return 0;
	if (get_quantity(tx, "value", &value, err, errlen))
		return -EINVAL;
	if (value == 0)
		return 0;
	p = &r->pays[r->npays];
	if (get_hash(tx, "hash", p->txid, err, errlen))
		return -EINVAL;
	p->height = r->from + i;
	p->payee = (size_t)k;
	p->value = value;
	r->npays++;
	return 0;
}

static int read_block(struct breq *r, size_t i, json_t *b, char *err,
                      size_t errlen)
{
	hj_chain_block *cb = &r->blocks[i];
	uint64_t want = r->from + i;
	unsigned __int128 num;
	char why[HJ_ERRLEN];
	json_t *txs;
	size_t k, ntx = 0;

	if (json_is_null(b)) {
		hj_say(err, errlen, "block %" PRIu64 " not available yet",
		       want);
		return -EAGAIN;
	}
	if (!json_is_object(b) ||
	    get_quantity(b, "number", &num, why, sizeof why) ||
	    get_hash(b, "hash", cb->hash, why, sizeof why) ||
	    get_hash(b, "parentHash", cb->parent, why, sizeof why))
		goto bad;
	if (num != want) {
		snprintf(why, sizeof why, "number is not %" PRIu64, want);
		goto bad;
	}
	cb->height = want;
	txs = json_object_get(b, "transactions");
	if (!json_is_array(txs)) {
		snprintf(why, sizeof why, "\"transactions\" is not an array");
		goto bad;
	}
	for (k = 0; k < json_array_size(txs); k++) {
		json_t *tx = json_array_get(txs, k);
		int rc;
		if (!json_is_object(tx)) {
			snprintf(why, sizeof why,
			         "transaction %zu is not an object (full "
			         "transactions expected)",
			         k);
			goto bad;
		}
		if (r->pcb) {
			if (read_payment(r, i, tx, why, sizeof why))
				goto bad_tx;
			continue;
		}
		rc = to_dealer(r->e, tx, why, sizeof why);
		if (rc < 0)
			goto bad_tx;
		ntx += (size_t)rc;
	}
	if (r->pcb)
		return 0;
	cb->txs = ntx ? calloc(ntx, sizeof *cb->txs) : NULL;
	if (ntx && !cb->txs) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (k = 0; k < json_array_size(txs); k++) {
		json_t *tx = json_array_get(txs, k);
		if (to_dealer(r->e, tx, why, sizeof why) != 1)
			continue;
		/* Validated now, as if successful; a failed receipt makes
		 * it again below. */
		if (read_tx(tx, r->e->dealer, 1, &cb->txs[cb->ntx], why,
		            sizeof why))
			goto bad_tx;
		cb->ntx++;
		r->src[r->nsrc++] = tx;
	}
	if (r->e->keep_all) {
		int rc = read_all(r, i, txs, &k, why, sizeof why);
		if (rc == -ENOMEM) {
			hj_say(err, errlen, "out of memory");
			return rc;
		}
		if (rc)
			goto bad_tx;
	}
	return 0;
bad_tx:
	hj_say(err, errlen, "block %" PRIu64 " transaction %zu: %s", want, k,
	       why);
	return -EINVAL;
bad:
	hj_say(err, errlen, "block %" PRIu64 ": %s", want, why);
	return -EINVAL;
}

/* keep_all: the outcome of each receipt on its transaction in all[]
 * (the j-th transaction to the dealer is the block's txs[j]). */
static void mark_failed(struct breq *r)
{
	for (size_t i = 0; i < r->n; i++) {
		hj_chain_block *cb = &r->blocks[i];
		size_t j = 0;
		for (size_t k = 0; k < cb->nall && j < cb->ntx; k++)
			if (cb->all[k].to_dealer)
				cb->all[k].failed =
				    cb->txs[j++].kind == HJ_TX_FAILED;
	}
}

/* What a receipt says of transaction txid in block `block`: 0 and *status
 * (0 or 1), or RECEIPT_NONE (null: not available yet), RECEIPT_BAD (not a
 * receipt), RECEIPT_OTHER (another transaction's or another block's: its
 * status is only that transaction's in that block, and a receipt of
 * another block, a fork's or a lagging node's behind a balancer, may
 * differ). */
enum { RECEIPT_NONE = 1, RECEIPT_BAD, RECEIPT_OTHER };

static int receipt_status(json_t *rc, const uint8_t txid[32],
                          const uint8_t block[32], unsigned __int128 *status)
{
	uint8_t h[32];
	char why[HJ_ERRLEN];

	if (json_is_null(rc))
		return RECEIPT_NONE;
	if (!json_is_object(rc) ||
	    get_quantity(rc, "status", status, why, sizeof why) || *status > 1)
		return RECEIPT_BAD;
	if (get_hash(rc, "transactionHash", h, why, sizeof why) ||
	    memcmp(h, txid, 32) != 0 ||
	    get_hash(rc, "blockHash", h, why, sizeof why) ||
	    memcmp(h, block, 32) != 0)
		return RECEIPT_OTHER;
	return 0;
}

/* payments(): the receipts of the transfers kept; those that failed moved
 * nothing and are dropped. */
static void on_pay_receipts(struct breq *r, json_t *result)
{
	char err[HJ_ERRLEN], hex[67];
	size_t kept = 0;

	for (size_t k = 0; k < r->npays; k++) {
		hj_chain_payment *p = &r->pays[k];
		unsigned __int128 status = 0;
		int got = receipt_status(json_array_get(result, k), p->txid,
		                         r->blocks[p->height - r->from].hash,
		                         &status);
		if (got) {
			hj_hex_encode(p->txid, 32, 1, hex);
			snprintf(err, sizeof err, "block %" PRIu64 ": %s %s",
			         p->height,
			         got == RECEIPT_NONE
			             ? "the receipt not available yet of"
			         : got == RECEIPT_BAD
			             ? "a bad receipt of"
			             : "a receipt not of that transaction in "
			               "this block for",
			         hex);
			req_done(r, err);
			return;
		}
		if (status == 1)
			r->pays[kept++] = *p;
	}
	r->npays = kept;
	req_done(r, NULL);
}

/* r ends with an error about the block at height: "block H: " and the
 * rest. */
__attribute__((format(printf, 3, 4))) static void
block_failed(struct breq *r, uint64_t height, const char *fmt, ...)
{
	char what[HJ_ERRLEN], err[HJ_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	hj_vsay(what, sizeof what, fmt, ap);
	va_end(ap);
	hj_say(err, sizeof err, "block %" PRIu64 ": %s", height, what);
	req_done(r, err);
}

static void on_receipts(void *arg, json_t *result, const char *error)
{
	struct breq *r = arg;
	size_t k = 0;

	if (error) {
		req_done(r, error);
		return;
	}
	if (r->pcb) {
		on_pay_receipts(r, result);
		return;
	}
	for (size_t i = 0, ci = 0; i < r->n; i++) {
		uint64_t height = r->blocks[i].height;
		json_t *list = NULL;

		if (r->whole[i]) {
			list = json_array_get(result, ci++);
			if (json_is_null(list)) {
				block_failed(r, height,
				             "its receipts not available yet");
				return;
			}
			if (!json_is_array(list)) {
				block_failed(
				    r, height,
				    "eth_getBlockReceipts gave no list");
				return;
			}
		}
		for (size_t j = 0; j < r->blocks[i].ntx; j++, k++) {
			hj_action *a = &r->blocks[i].txs[j];
			unsigned __int128 status = 0;
			char why[HJ_ERRLEN];
			json_t *rc = list != NULL
			                 ? json_array_get(list, a->tx_index)
			                 : json_array_get(result, ci++);
			int got = receipt_status(rc, a->txid.b,
			                         r->blocks[i].hash, &status);
			if (list != NULL && rc == NULL)
				got = RECEIPT_BAD;
			if (got == RECEIPT_NONE) {
				block_failed(r, height,
				             "receipt of a transaction to the "
				             "dealer not available yet");
				return;
			}
			if (got == RECEIPT_BAD) {
				block_failed(r, height,
				             "bad receipt of transaction %u",
				             a->tx_index);
				return;
			}
			if (got == RECEIPT_OTHER) {
				block_failed(r, height,
				             "the receipt of transaction %u is "
				             "not that transaction's in this "
				             "block",
				             a->tx_index);
				return;
			}
			/* A failed receipt moved nothing: the transaction is
			 * logged, never played. */
			if (status == 0)
				read_tx(r->src[k], r->e->dealer, 0, a, why,
				        sizeof why);
		}
	}
	if (r->e->keep_all)
		mark_failed(r);
	req_done(r, NULL);
}

/*
 * A block's receipts are asked whole, with eth_getBlockReceipts (one call,
 * every receipt of the block), where the node has it and where that costs
 * less than one eth_getTransactionReceipt per transaction to the dealer:
 * at least BLOCK_RECEIPTS_MIN of them, or two or more making at least
 * half of the block's transactions.
 */
#define BLOCK_RECEIPTS_MIN 16

static int wants_whole(const struct breq *r, size_t i)
{
	size_t ntx = r->blocks[i].ntx;
	size_t all = json_array_size(
	    json_object_get(json_array_get(r->answer, i), "transactions"));

	return r->e->block_receipts >= 0 && ntx >= 2 &&
	       (ntx >= BLOCK_RECEIPTS_MIN || 2 * ntx >= all);
}

static void ask_receipts(struct breq *r);

/* Whether the node has eth_getBlockReceipts: its error answer says no
 * (method not found, not supported: any error the node gives), a list
 * says yes. */
static void on_probe(void *arg, json_t *result, const hj_rpc_error *e)
{
	struct breq *r = arg;

	if (e != NULL && e->kind != HJ_RPC_ERR_NODE) {
		req_done(r, e->text);
		return;
	}
	r->e->block_receipts = e == NULL && json_is_array(result) ? 1 : -1;
	ask_receipts(r);
}

/* The receipts of the blocks' transactions to the dealer (or, for
 * payments(), of the dealer's transfers): one batch, after asking the
 * node once whether it has eth_getBlockReceipts when a block wants it. */
static void ask_receipts(struct breq *r)
{
	size_t ncalls = 0, k = 0;
	const char **methods = NULL;
	json_t **params = NULL;
	char hex[67];
	int rc = -ENOMEM;

	if (!r->pcb) {
		if (!r->whole)
			r->whole = calloc(r->n, 1);
		if (!r->whole) {
			req_done(r, "out of memory");
			return;
		}
		for (size_t i = 0; i < r->n; i++) {
			r->whole[i] = (uint8_t)wants_whole(r, i);
			if (r->whole[i] && r->e->block_receipts == 0) {
				hj_hex_encode(r->blocks[i].hash, 32, 1, hex);
				rc = hj_rpc_call_x(
				    r->e->rpc, "eth_getBlockReceipts",
				    json_pack("[s]", hex), NULL,
				    HJ_RPC_NODE_ERRORS, on_probe, r);
				if (rc)
					req_done(r, "out of memory");
				return;
			}
			ncalls += r->whole[i] ? 1 : r->blocks[i].ntx;
		}
	} else {
		ncalls = r->npays;
	}
	methods = calloc(ncalls, sizeof *methods);
	params = calloc(ncalls, sizeof *params);
	if (!methods || !params)
		goto out;
	for (size_t i = 0; i < r->n && !r->pcb; i++) {
		if (r->whole[i]) {
			hj_hex_encode(r->blocks[i].hash, 32, 1, hex);
			methods[k] = "eth_getBlockReceipts";
			params[k] = json_pack("[s]", hex);
			if (!params[k++])
				goto out;
			continue;
		}
		for (size_t j = 0; j < r->blocks[i].ntx; j++) {
			hj_hex_encode(r->blocks[i].txs[j].txid.b, 32, 1, hex);
			methods[k] = "eth_getTransactionReceipt";
			params[k] = json_pack("[s]", hex);
			if (!params[k++])
				goto out;
		}
	}
	for (; r->pcb && k < ncalls; k++) {
		hj_hex_encode(r->pays[k].txid, 32, 1, hex);
		methods[k] = "eth_getTransactionReceipt";
		params[k] = json_pack("[s]", hex);
		if (!params[k])
			goto out;
	}
	rc = hj_rpc_batch(r->e->rpc, ncalls, methods, params, on_receipts, r);
	k = 0; /* stolen, even on failure */
out:
	for (size_t i = 0; i < k; i++)
		json_decref(params[i]);
	free(methods);
	free(params);
	if (rc)
		req_done(r, "out of memory");
}

/* The receipts asked with the blocks (after them in result): each block
 * holding a transaction to the dealer takes its list, as if asked whole
 * after it. */
static void on_blocks_receipts(struct breq *r, json_t *result)
{
	json_t *lists = json_array();

	r->whole = calloc(r->n, 1);
	if (!lists || !r->whole) {
		json_decref(lists);
		req_done(r, "out of memory");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		r->whole[i] = r->blocks[i].ntx > 0;
		if (r->whole[i] &&
		    json_array_append(lists,
		                      json_array_get(result, r->n + i))) {
			json_decref(lists);
			req_done(r, "out of memory");
			return;
		}
	}
	on_receipts(r, lists, NULL); /* frees r */
	json_decref(lists);
}

static void on_blocks(void *arg, json_t *result, const char *error)
{
	struct breq *r = arg;
	char err[HJ_ERRLEN];
	size_t ntx = 0;

	if (error) {
		req_done(r, error);
		return;
	}
	if (json_array_size(result) != (r->with_receipts ? 2 : 1) * r->n) {
		req_done(r, "batch answer has the wrong number of blocks");
		return;
	}
	r->answer = json_incref(result);
	for (size_t i = 0; i < r->n; i++) {
		json_t *txs =
		    json_object_get(json_array_get(result, i), "transactions");
		ntx += json_array_size(txs);
	}
	/* At most every transaction of the batch goes to the dealer, or
	 * pays a payee. */
	if (r->pcb)
		r->pays = ntx ? calloc(ntx, sizeof *r->pays) : NULL;
	else
		r->src = ntx ? calloc(ntx, sizeof *r->src) : NULL;
	if (ntx && !r->src && !r->pays) {
		req_done(r, "out of memory");
		return;
	}
	ntx = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (read_block(r, i, json_array_get(result, i), err,
		               sizeof err)) {
			req_done(r, err);
			return;
		}
		ntx += r->blocks[i].ntx;
	}
	if (r->pcb) {
		ntx = r->npays;
	} else {
		/* Whether the next batch asks its receipts with its blocks. */
		size_t nwhole = 0;

		for (size_t i = 0; i < r->n; i++)
			nwhole += (size_t)wants_whole(r, i);
		r->e->dense = 2 * nwhole >= r->n;
	}
	if (ntx == 0) {
		req_done(r, NULL);
		return;
	}
	if (r->with_receipts) {
		on_blocks_receipts(r, result);
		return;
	}
	ask_receipts(r);
}
/* blocks() with cb, or payments() with pcb and set (taken, even on
 * failure). */
static int evm_request(hj_backend *b, uint64_t from, size_t n, hj_blocks_cb cb,
                       hj_payments_cb pcb, hj_payee_set *set, void *arg)
{
	struct evm *e = evm_of(b);
	struct breq *r = calloc(1, sizeof *r);
	/* Room for each block's receipts after the blocks (calloc checks
	 * the product). */
	const char **methods = calloc(n, 2 * sizeof *methods);
	json_t **params = calloc(n, 2 * sizeof *params);
	int with = !pcb && e->dense && e->block_receipts == 1;
	size_t k = 0;
	int rc = -ENOMEM;

	/* Every height of the range must exist: past 2^64 - 1 it would wrap
	 * to block 0, and the blocks would not be in height order. */
	if (n == 0 || from > UINT64_MAX - (n - 1)) {
		rc = -EINVAL;
		goto fail;
	}
	if (!r || !methods || !params)
		goto fail;
	if (set) {
		r->set = *set;
		set->order = NULL;
	}
	r->blocks = calloc(n, sizeof *r->blocks);
	if (!r->blocks)
		goto fail;
	r->e = e;
	r->from = from;
	r->n = n;
	r->cb = cb;
	r->pcb = pcb;
	r->arg = arg;
	for (; k < n; k++) {
		char q[24];
		snprintf(q, sizeof q, "0x%" PRIx64, from + k);
		methods[k] = "eth_getBlockByNumber";
		params[k] = json_pack("[sb]", q, 1);
		if (!params[k])
			goto fail;
	}
	for (; with && k < 2 * n; k++) {
		char q[24];
		snprintf(q, sizeof q, "0x%" PRIx64, from + k - n);
		methods[k] = "eth_getBlockReceipts";
		params[k] = json_pack("[s]", q);
		if (!params[k])
			goto fail;
	}
	r->with_receipts = with;
	rc = hj_rpc_batch(e->rpc, k, methods, params, on_blocks, r);
	k = 0;
	if (rc)
		goto fail;
	r->next = e->reqs;
	e->reqs = r;
	free(methods);
	free(params);
	return 0;
fail:
	for (size_t i = 0; i < k; i++)
		json_decref(params[i]);
	free(methods);
	free(params);
	req_free(r);
	if (set)
		hj_payee_set_free(set);
	return rc;
}

static int evm_blocks(hj_backend *b, uint64_t from, size_t n, hj_blocks_cb cb,
                      void *arg)
{
	return evm_request(b, from, n, cb, NULL, NULL, arg);
}

static int evm_payee(hj_backend *b, const hj_id *recipient, hj_chain_payee *out,
                     char *err, size_t errlen)
{
	(void)b;
	if (recipient->len != 20) {
		hj_say(err, errlen, "not an address: %u bytes",
		       (unsigned)recipient->len);
		return -EINVAL;
	}
	memset(out, 0, sizeof *out);
	out->len = 20;
	memcpy(out->b, recipient->b, 20);
	hj_hex_encode(recipient->b, 20, 1, out->address);
	return 0;
}

static int evm_payments(hj_backend *b, uint64_t from, size_t n,
                        const hj_chain_payee *payees, size_t npayees,
                        hj_payments_cb cb, void *arg)
{
	hj_payee_set set;

	if (hj_payee_set_init(&set, payees, npayees))
		return -ENOMEM;
	return evm_request(b, from, n, NULL, cb, &set, arg);
}

/* tip() and identity(): one call each; final(): two in turn. */
struct qreq {
	struct evm *e;
	struct qreq *next;
	hj_tip_cb tip;
	hj_ident_cb ident;
	hj_final_cb fin;
	hj_finality how;
	uint64_t final; /* final(): the tag's block, once read */
	void *arg;
};

static void qreq_unlink(struct qreq *q)
{
	for (struct qreq **p = &q->e->qreqs; *p; p = &(*p)->next) {
		if (*p == q) {
			*p = q->next;
			break;
		}
	}
}

static void on_quantity(void *arg, json_t *result, const char *error)
{
	struct qreq *q = arg;
	unsigned __int128 v = 0;
	char why[HJ_ERRLEN], msg[HJ_ERRLEN];
	const char *err = error;

	qreq_unlink(q);

	if (!err) {
		if (!json_is_string(result) ||
		    hj_hex_quantity(json_string_value(result),
		                    json_string_length(result), &v, why,
		                    sizeof why) ||
		    v > UINT64_MAX) {
			snprintf(msg, sizeof msg, "%s: not a quantity",
			         q->tip ? "eth_blockNumber" : "eth_chainId");
			err = msg;
		}
	}
	if (q->tip) {
		q->tip(q->arg, (uint64_t)v, err);
	} else {
		char id[40];
		snprintf(id, sizeof id, "evm:%" PRIu64, (uint64_t)v);
		q->ident(q->arg, err ? NULL : id, err, 0);
	}
	free(q);
}

/* A request just asked (rc: the client's answer to asking it): kept on
 * e->qreqs until its callback, or freed when it could not be asked. */
static int qreq_track(struct evm *e, struct qreq *q, int rc)
{
	if (rc) {
		free(q);
		return rc;
	}
	q->next = e->qreqs;
	e->qreqs = q;
	return 0;
}

static int evm_quantity(struct evm *e, const char *method, hj_tip_cb tip,
                        hj_ident_cb ident, void *arg)
{
	struct qreq *q = calloc(1, sizeof *q);
	if (!q)
		return -ENOMEM;
	q->e = e;
	q->tip = tip;
	q->ident = ident;
	q->arg = arg;
	return qreq_track(e, q,
	                  hj_rpc_call(e->rpc, method, NULL, on_quantity, q));
}

static int evm_tip(hj_backend *b, hj_tip_cb cb, void *arg)
{
	return evm_quantity(evm_of(b), "eth_blockNumber", cb, NULL, arg);
}

/* final()'s end: the tip, asked after the tag's block. */
static void on_final_tip(void *arg, json_t *result, const char *error)
{
	struct qreq *q = arg;
	const char *tag = hj_finality_name(q->how);
	unsigned __int128 v = 0;
	char why[HJ_ERRLEN], msg[HJ_ERRLEN];
	const char *err = error;

	qreq_unlink(q);
	if (!err &&
	    (!json_is_string(result) ||
	     hj_hex_quantity(json_string_value(result),
	                     json_string_length(result), &v, why, sizeof why) ||
	     v > UINT64_MAX)) {
		snprintf(msg, sizeof msg, "eth_blockNumber: not a quantity");
		err = msg;
	}
	/* Blocks are final below the tip, never above it: a node that says
	 * otherwise (a balancer between two nodes) is asked again. */
	if (!err && v < q->final) {
		snprintf(msg, sizeof msg,
		         "the node's \"%s\" block %" PRIu64
		         " is above its tip %" PRIu64,
		         tag, q->final, (uint64_t)v);
		err = msg;
	}
	if (err)
		q->fin(q->arg, 0, 0, err);
	else
		q->fin(q->arg, (uint64_t)v, q->final, NULL);
	free(q);
}

static void on_final_block(void *arg, json_t *result, const hj_rpc_error *error)
{
	struct qreq *q = arg;
	const char *tag = hj_finality_name(q->how);
	unsigned __int128 v = 0;
	char why[HJ_ERRLEN], msg[HJ_ERRLEN];

	if (error) {
		snprintf(msg, sizeof msg, "the node's \"%s\" block: %s", tag,
		         error->text);
		goto fail;
	}
	if (json_is_null(result)) {
		snprintf(msg, sizeof msg,
		         "the node has no \"%s\" block (null): a chain "
		         "without proof-of-stake finality cannot be followed "
		         "with [chain] confirmations = %s",
		         tag, tag);
		goto fail;
	}
	if (!json_is_object(result) ||
	    get_quantity(result, "number", &v, why, sizeof why) ||
	    v > UINT64_MAX) {
		snprintf(msg, sizeof msg,
		         "the node's \"%s\" block: not a block with a "
		         "number",
		         tag);
		goto fail;
	}
	q->final = (uint64_t)v;
	if (hj_rpc_call(q->e->rpc, "eth_blockNumber", NULL, on_final_tip, q)) {
		snprintf(msg, sizeof msg, "out of memory");
		goto fail;
	}
	return;
fail:
	qreq_unlink(q);
	q->fin(q->arg, 0, 0, msg);
	free(q);
}

static int evm_final(hj_backend *b, hj_finality how, hj_final_cb cb, void *arg)
{
	struct evm *e = evm_of(b);
	const char *tag = hj_finality_name(how);
	struct qreq *q;
	json_t *params;

	if (tag == NULL || cb == NULL)
		return -EINVAL;
	q = calloc(1, sizeof *q);
	params = json_pack("[sb]", tag, 0);
	if (!q || !params) {
		free(q);
		json_decref(params);
		return -ENOMEM;
	}
	q->e = e;
	q->fin = cb;
	q->how = how;
	q->arg = arg;
	/* The node's error answer is the caller's to log: a node that does
	 * not know the tag says so there. */
	return qreq_track(e, q,
	                  hj_rpc_call_x(e->rpc, "eth_getBlockByNumber", params,
	                                NULL, HJ_RPC_NODE_ERRORS,
	                                on_final_block, q));
}

static int evm_identity(hj_backend *b, hj_ident_cb cb, void *arg)
{
	return evm_quantity(evm_of(b), "eth_chainId", NULL, cb, arg);
}

/* newHeads over WebSocket. */
static int evm_push(hj_backend *b, const hj_push_opts *o, hj_push **out,
                    char *err, size_t errlen)
{
	hj_push_opts x = *o;

	(void)b;
	x.kind = HJ_PUSH_EVM;
	return hj_push_new(&x, out, err, errlen);
}

static void evm_keep_all(hj_backend *b)
{
	evm_of(b)->keep_all = 1;
}

static void evm_free(hj_backend *b)
{
	struct evm *e = evm_of(b);
	if (!e)
		return;
	/* The RPC client was closed first, so none of these requests can
	 * call back any more. */
	while (e->reqs) {
		struct breq *r = e->reqs;
		e->reqs = r->next;
		req_free(r);
	}
	while (e->qreqs) {
		struct qreq *q = e->qreqs;
		e->qreqs = q->next;
		free(q);
	}
	free(e);
}

const struct hj_backend_ops hj_evm_backend_ops = {
    .chain = "evm",
    .family = HJ_EVM,
    .identity = evm_identity,
    .tip = evm_tip,
    .final = evm_final,
    .blocks = evm_blocks,
    .keep_all = evm_keep_all,
    .payee = evm_payee,
    .payments = evm_payments,
    .push = evm_push,
    .push_how = "eth_subscribe newHeads",
    .free = evm_free,
};

int hj_evm_backend_new(hj_rpc *rpc, const hj_dealer *dealer, hj_backend **out)
{
	struct evm *e = calloc(1, sizeof *e);

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->base.ops = &hj_evm_backend_ops;
	e->rpc = rpc;
	memcpy(e->dealer, dealer->addr, sizeof e->dealer);
	*out = &e->base;
	return 0;
}
