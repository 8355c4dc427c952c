/*
 * The EVM backend's handling of node answers (chain/evm_backend.c):
 * eth_chainId, eth_blockNumber, the batch of eth_getBlockByNumber and the
 * batch of receipts, answered from the input through the client of
 * node_fake.h (the format is described there).
 *
 * The first record asks the backend, in order, for up to four of
 *   "i"        identity
 *   "t"        tip
 *   "f", "s"   final: the "finalized", the "safe" block and the tip
 *   "b F N"    blocks F .. F + N - 1 (N at most 16; decimal numbers,
 *              2^64 - 1 when larger)
 *   "p F N"    payments in blocks F .. F + N - 1 to the payees
 *              0x00000000000000000000000000000000000000aa, the dealer,
 *              and 0x...aa again
 * each preceded by "%" to have its first call refused, or by ";" to be
 * asked only once every request before it was answered (as far as the
 * records go); a "k" anywhere asks the backend to keep every transaction
 * first (keep_all, for `hashjack export`).  The dealer is
 * 0xdcdcf319ef991916ce062146aa804597059416d8.
 *
 * Checked: every call the backend makes is the one its operation needs
 * (methods, heights, the receipts of exactly the dealer's transactions in
 * block order: each one alone, or, for a block eth_getBlockReceipts may
 * serve by the backend's rule, the block's whole list, once the node was
 * asked once whether it has that method, and all such blocks alike by
 * its answer; or, once the node said it has it, every block's list asked
 * by number in the blocks' own batch, after them); an operation whose call was
 * refused returns an error and never calls back; every other callback runs
 * exactly once, never from inside the operation, never while the operation
 * still waits for an answer, and never after the backend is freed; an error is
 * a non-empty text, the client's own error word for word; identity and tip give
 * exactly the quantity answered; final asks the tag's block alone (the
 * node's error answer wanted) and the tip only once a block with a number
 * came, and gives exactly that number and that tip, or an error when the
 * block is null, not a block, has no number, or lies above the tip (the
 * node's error text in its own); blocks give exactly N blocks, in height
 * order, with the answered hashes, and as transactions exactly those to
 * the dealer, each what hj_evm_action makes of it with the status of its
 * own receipt (one that names that transaction and that block); with
 * keep_all also every transaction of the block in order, each field the
 * answer's, its transactionIndex its position, the status of the
 * dealer's its receipt's (none kept without keep_all); payments
 * ask the blocks as blocks do, then the receipts of exactly the transfers
 * of value from the dealer to a payee, in block order, and give exactly
 * those whose receipt (of that transaction, in that block) says success,
 * with their height, value, hash and the payee's first index; nothing
 * leaks once the backend is freed.
 */
#include "fuzz.h"
#include "node_fake.h"

#include <inttypes.h>

#include "dealer.h"
#include "evm.h"
#include "evm_backend.h"
#include "hex.h"

#define MAX_OPS 4
#define MAX_N   16

static const char DEALER[] = "0xdcdcf319ef991916ce062146aa804597059416d8";
#define NPAYEES 3

struct op {
	char kind; /* 'i', 't', 'f', 's', 'b', 'p' */
	int refuse;
	uint64_t from;
	size_t n;
	int rc;
	int ncb;
	int nblocks_calls, nreceipt_calls;
	int wait;         /* asked once the requests before it were answered */
	int with;         /* blocks: the receipts asked in the blocks' batch */
	json_t *answer;   /* identity, tip, final: the quantity; blocks: the
	                     blocks */
	json_t *block;    /* final: the tag's block answered */
	json_t *receipts; /* the receipts answered, one per transaction */
	json_t *asked;    /* the hashes whose receipts were asked for */
	json_t *map;      /* per transaction: [call, index in a block's
	                     list or -1] */
	json_t *lists;    /* with: each block's receipts list answered */
};

static struct {
	hj_rpc rpc;
	struct op ops[MAX_OPS];
	int nops;
	uint8_t dealer[20];
	int keep; /* keep_all */
	hj_chain_payee payees[NPAYEES];
	int freed;
	/* eth_getBlockReceipts: the questions whether the node has it
	 * (several operations may ask at once), those answered with a
	 * result, and whether one said yes (a list) or no (another
	 * result). */
	int probes, probe_results, yes, no;
} S;

static struct op *op_of(int owner)
{
	FUZZ_CHECK(owner >= 0 && owner < S.nops);
	return &S.ops[owner];
}

static int hex_exact(json_t *v, uint8_t *out, size_t n);

/* The dealer's transactions of block b of an answer: their hashes
 * (lower case, as the backend writes them) and transactionIndex. */
static size_t dealer_txs(json_t *b, json_t *hashes, json_t *indexes)
{
	json_t *txs = json_object_get(b, "transactions");
	size_t n = 0;

	for (size_t t = 0; t < json_array_size(txs); t++) {
		json_t *tx = json_array_get(txs, t);
		uint8_t to[20], h[32];
		unsigned __int128 index = 0;
		json_t *v = json_object_get(tx, "transactionIndex");
		char hex[67];

		if (hex_exact(json_object_get(tx, "to"), to, 20) != 0 ||
		    memcmp(to, S.dealer, 20) != 0)
			continue;
		FUZZ_CHECK(hex_exact(json_object_get(tx, "hash"), h, 32) == 0);
		FUZZ_CHECK(json_is_string(v) &&
		           hj_hex_quantity(json_string_value(v),
		                           json_string_length(v), &index, NULL,
		                           0) == 0);
		hj_hex_encode(h, 32, 1, hex);
		json_array_append_new(hashes, json_string(hex));
		json_array_append_new(indexes, json_integer((json_int_t)index));
		n++;
	}
	return n;
}

/* Whether block b's receipts may come whole (chain/evm_backend.c: two or
 * more transactions to the dealer, and 16 or more, or at least half of
 * the block's). */
static int wants_whole(json_t *b, size_t ntx)
{
	size_t all = json_array_size(json_object_get(b, "transactions"));

	return ntx >= 2 && (ntx >= 16 || 2 * ntx >= all);
}

/* p, the params of a call asking block b's receipts: its hash. */
static int names_block(json_t *p, json_t *b)
{
	uint8_t want[32], got[32];

	return json_array_size(p) == 1 &&
	       hex_exact(json_object_get(b, "hash"), want, 32) == 0 &&
	       hex_exact(json_array_get(p, 0), got, 32) == 0 &&
	       memcmp(want, got, 32) == 0;
}

/* The receipts batch of blocks operation o: in block order, per block
 * with transactions to the dealer either its whole list (where allowed,
 * and only as the node's answer to the probe allows) or one call per
 * transaction, each in order; o->asked and o->map follow. */
static void receipt_calls(struct op *o, const struct fake_req *q)
{
	size_t k = 0;
	int mode = 0; /* 1 whole lists, 2 one call each, for blocks that
	                 may use either */

	for (size_t i = 0; i < json_array_size(o->answer); i++) {
		json_t *b = json_array_get(o->answer, i);
		json_t *hashes = json_array(), *indexes = json_array();
		size_t ntx = dealer_txs(b, hashes, indexes);
		int whole = wants_whole(b, ntx);

		FUZZ_CHECK(hashes != NULL && indexes != NULL);
		if (ntx > 0 && k < q->n &&
		    strcmp(q->methods[k], "eth_getBlockReceipts") == 0) {
			/* Where allowed, once the node said it has it, and
			 * for every such block of the batch alike. */
			FUZZ_CHECK(whole && S.yes && mode != 2);
			mode = 1;
			FUZZ_CHECK(names_block(q->params[k], b));
			for (size_t j = 0; j < ntx; j++) {
				json_array_append(o->asked,
				                  json_array_get(hashes, j));
				json_array_append_new(
				    o->map,
				    json_pack("[i,O]", k,
				              json_array_get(indexes, j)));
			}
			k++;
		} else {
			if (whole) {
				/* The node said no, or its answer was an
				 * error. */
				FUZZ_CHECK(S.no || S.probes > S.probe_results);
				FUZZ_CHECK(mode != 1);
				mode = 2;
			}
			for (size_t j = 0; j < ntx; j++, k++) {
				FUZZ_CHECK(k < q->n);
				FUZZ_CHECK(
				    strcmp(q->methods[k],
				           "eth_getTransactionReceipt") == 0);
				FUZZ_CHECK(json_array_size(q->params[k]) == 1);
				FUZZ_CHECK(
				    json_equal(json_array_get(q->params[k], 0),
				               json_array_get(hashes, j)));
				json_array_append(o->asked,
				                  json_array_get(hashes, j));
				json_array_append_new(
				    o->map, json_pack("[i,i]", k, -1));
			}
		}
		json_decref(hashes);
		json_decref(indexes);
	}
	FUZZ_CHECK(k == q->n);
}

/* The one question whether the node has eth_getBlockReceipts: a plain
 * call, its error answer wanted, for a block that may use it, once. */
static void probe_call(hj_rpc *c, struct op *o, const struct fake_req *q)
{
	int named = 0;

	FUZZ_CHECK(o->kind == 'b' && !c->in_call && o->nblocks_calls == 1);
	/* Asked while no answer has told yet. */
	FUZZ_CHECK(!S.yes && !S.no);
	FUZZ_CHECK(q->n == 1 && q->xcb != NULL &&
	           q->flags == HJ_RPC_NODE_ERRORS);
	for (size_t i = 0; i < json_array_size(o->answer); i++) {
		json_t *b = json_array_get(o->answer, i);
		json_t *h = json_array(), *x = json_array();
		size_t ntx = dealer_txs(b, h, x);

		json_decref(h);
		json_decref(x);
		if (wants_whole(b, ntx)) {
			/* The first such block. */
			FUZZ_CHECK(names_block(q->params[0], b));
			named = 1;
			break;
		}
	}
	FUZZ_CHECK(named);
	S.probes++;
}

/* The calls each operation may make. */
static void fake_submitted(hj_rpc *c, const struct fake_req *q)
{
	struct op *o = op_of(c->owner);
	char want[24];

	switch (o->kind) {
	case 'i':
	case 't':
		FUZZ_CHECK(c->in_call && !q->batch && q->n == 1);
		FUZZ_CHECK(strcmp(q->method, o->kind == 'i'
		                                 ? "eth_chainId"
		                                 : "eth_blockNumber") == 0);
		FUZZ_CHECK(json_array_size(q->params[0]) == 0);
		return;
	case 'f':
	case 's':
		FUZZ_CHECK(!q->batch && q->n == 1);
		if (strcmp(q->method, "eth_getBlockByNumber") == 0) {
			json_t *p = q->params[0];

			FUZZ_CHECK(c->in_call && o->nblocks_calls++ == 0);
			FUZZ_CHECK(q->xcb != NULL &&
			           q->flags == HJ_RPC_NODE_ERRORS);
			FUZZ_CHECK(json_array_size(p) == 2);
			FUZZ_CHECK(json_is_string(json_array_get(p, 0)));
			FUZZ_CHECK(
			    strcmp(json_string_value(json_array_get(p, 0)),
			           o->kind == 'f' ? "finalized" : "safe") == 0);
			FUZZ_CHECK(json_is_false(json_array_get(p, 1)));
			return;
		}
		/* The tip, once the block came with a number. */
		FUZZ_CHECK(strcmp(q->method, "eth_blockNumber") == 0);
		FUZZ_CHECK(!c->in_call && o->nblocks_calls == 1 &&
		           o->nreceipt_calls++ == 0);
		FUZZ_CHECK(json_is_object(o->block));
		FUZZ_CHECK(json_array_size(q->params[0]) == 0);
		return;
	case 'b':
	case 'p':
		break;
	default:
		FUZZ_CHECK(0);
	}
	if (!q->batch && strcmp(q->method, "eth_getBlockReceipts") == 0) {
		probe_call(c, o, q);
		return;
	}
	FUZZ_CHECK(q->batch);
	if (strcmp(q->method, "eth_getBlockByNumber") == 0) {
		FUZZ_CHECK(c->in_call && o->nblocks_calls++ == 0);
		/* Each block's receipts with it: only once the node said it
		 * has eth_getBlockReceipts, never for payments. */
		o->with = q->n == 2 * o->n;
		FUZZ_CHECK(q->n == o->n ||
		           (o->with && o->kind == 'b' && S.yes));
		for (size_t k = o->n; k < q->n; k++) {
			json_t *p = q->params[k];

			FUZZ_CHECK(
			    strcmp(q->methods[k], "eth_getBlockReceipts") == 0);
			snprintf(want, sizeof want, "0x%" PRIx64,
			         o->from + (k - o->n));
			FUZZ_CHECK(
			    json_array_size(p) == 1 &&
			    json_is_string(json_array_get(p, 0)) &&
			    strcmp(json_string_value(json_array_get(p, 0)),
			           want) == 0);
		}
		for (size_t k = 0; k < o->n; k++) {
			json_t *p = q->params[k];

			FUZZ_CHECK(strcmp(q->methods[k], q->method) == 0);
			snprintf(want, sizeof want, "0x%" PRIx64, o->from + k);
			FUZZ_CHECK(json_array_size(p) == 2);
			FUZZ_CHECK(json_is_string(json_array_get(p, 0)));
			FUZZ_CHECK(
			    strcmp(json_string_value(json_array_get(p, 0)),
			           want) == 0);
			FUZZ_CHECK(json_is_true(json_array_get(p, 1)));
		}
		return;
	}
	FUZZ_CHECK(!c->in_call && o->nblocks_calls == 1 &&
	           o->nreceipt_calls++ == 0);
	o->asked = json_array();
	o->map = json_array();
	FUZZ_CHECK(o->asked != NULL && o->map != NULL);
	if (o->kind == 'p') {
		for (size_t k = 0; k < q->n; k++) {
			FUZZ_CHECK(strcmp(q->methods[k],
			                  "eth_getTransactionReceipt") == 0);
			FUZZ_CHECK(json_array_size(q->params[k]) == 1);
			FUZZ_CHECK(
			    json_is_string(json_array_get(q->params[k], 0)));
			json_array_append(o->asked,
			                  json_array_get(q->params[k], 0));
			json_array_append_new(o->map,
			                      json_pack("[i,i]", k, -1));
		}
		return;
	}
	receipt_calls(o, q);
}

/* The blocks and their receipts in one batch: the blocks are the answer,
 * the lists are kept until the blocks are taken (with_receipts). */
static void with_answered(struct op *o, json_t *result)
{
	o->answer = json_array();
	o->lists = json_array();
	FUZZ_CHECK(o->answer && o->lists);
	for (size_t i = 0; i < o->n; i++) {
		json_array_append(o->answer, json_array_get(result, i));
		json_array_append(o->lists, json_array_get(result, o->n + i));
	}
}

/* Blocks asked with their receipts, taken: each transaction to the dealer
 * takes its receipt from its block's list at its transactionIndex, as if
 * that list had been asked after the blocks. */
static void with_receipts(struct op *o)
{
	o->asked = json_array();
	o->receipts = json_array();
	FUZZ_CHECK(o->asked && o->receipts);
	for (size_t i = 0; i < o->n; i++) {
		json_t *list = json_array_get(o->lists, i);
		json_t *hashes = json_array(), *indexes = json_array();
		size_t ntx =
		    dealer_txs(json_array_get(o->answer, i), hashes, indexes);

		FUZZ_CHECK(hashes != NULL && indexes != NULL);
		for (size_t j = 0; j < ntx; j++) {
			json_t *r =
			    json_is_array(list)
			        ? json_array_get(
			              list, (size_t)json_integer_value(
			                        json_array_get(indexes, j)))
			        : NULL;

			json_array_append(o->asked, json_array_get(hashes, j));
			json_array_append(o->receipts, r ? r : json_null());
		}
		json_decref(hashes);
		json_decref(indexes);
	}
}

static void fake_answered(hj_rpc *c, const struct fake_req *q, json_t *result)
{
	struct op *o = op_of(c->owner);

	if (!q->batch && strcmp(q->method, "eth_getBlockReceipts") == 0) {
		S.probe_results++;
		if (json_is_array(result))
			S.yes = 1;
		else
			S.no = 1;
	} else if (q->batch && o->map != NULL) {
		/* One receipt per transaction asked, from its own call or
		 * its block's list. */
		o->receipts = json_array();
		FUZZ_CHECK(o->receipts != NULL);
		for (size_t k = 0; k < json_array_size(o->map); k++) {
			json_t *m = json_array_get(o->map, k);
			json_t *r = json_array_get(
			    result,
			    (size_t)json_integer_value(json_array_get(m, 0)));
			json_int_t at =
			    json_integer_value(json_array_get(m, 1));

			if (at >= 0)
				r = json_is_array(r)
				        ? json_array_get(r, (size_t)at)
				        : NULL;
			json_array_append(o->receipts, r ? r : json_null());
		}
	} else if ((o->kind == 'f' || o->kind == 's') && !q->batch &&
	           strcmp(q->method, "eth_getBlockByNumber") == 0) {
		o->block = json_incref(result);
	} else if (o->with) {
		with_answered(o, result);
	} else {
		o->answer = json_incref(result);
	}
}

static json_t *fake_element(hj_rpc *c, const struct fake_req *q, size_t i,
                            size_t r)
{
	(void)c;
	(void)q;
	(void)i;
	(void)r;
	return NULL;
}

/* What every callback of operation o must satisfy. */
static void callback_ran(struct op *o, const char *error)
{
	FUZZ_CHECK(!S.freed && !S.rpc.in_call);
	/* Only an answer to one of its own requests calls back. */
	FUZZ_CHECK(S.rpc.owner == (int)(o - S.ops));
	FUZZ_CHECK(o->rc == 0 && ++o->ncb == 1);
	FUZZ_CHECK(fake_pending_of(&S.rpc, (int)(o - S.ops)) == 0);
	if (error != NULL)
		FUZZ_CHECK(error[0] != '\0');
	/* The client's error, when there was one, word for word (final's
	 * within its own words). */
	if (S.rpc.error[0] != '\0')
		FUZZ_CHECK(error != NULL &&
		           (o->kind == 'f' || o->kind == 's'
		                ? strstr(error, S.rpc.error) != NULL
		                : strcmp(error, S.rpc.error) == 0));
}

/* The quantity answered, or -1 when it is none (or above 64 bits). */
static int quantity(const json_t *v, uint64_t *out)
{
	unsigned __int128 q;

	if (!json_is_string(v) ||
	    hj_hex_quantity(json_string_value(v), json_string_length(v), &q,
	                    NULL, 0) != 0 ||
	    q > UINT64_MAX)
		return -1;
	*out = (uint64_t)q;
	return 0;
}

/* identity and tip: exactly the quantity, else an error. */
static void check_quantity(struct op *o, uint64_t got, const char *error)
{
	uint64_t want = 0;

	if (S.rpc.error[0] != '\0')
		return;
	if (quantity(o->answer, &want) != 0) {
		FUZZ_CHECK(error != NULL);
		return;
	}
	FUZZ_CHECK(error == NULL && got == want);
}

static void on_ident(void *arg, const char *identity, const char *error,
                     int permanent)
{
	struct op *o = arg;
	uint64_t v = 0;

	callback_ran(o, error);
	FUZZ_CHECK(permanent == 0);
	FUZZ_CHECK((identity == NULL) == (error != NULL));
	if (identity != NULL) {
		FUZZ_CHECK(strncmp(identity, "evm:", 4) == 0);
		for (const char *p = identity + 4; *p; p++) {
			FUZZ_CHECK(*p >= '0' && *p <= '9');
			FUZZ_CHECK(v <=
			           (UINT64_MAX - (uint64_t)(*p - '0')) / 10);
			v = v * 10 + (uint64_t)(*p - '0');
		}
		FUZZ_CHECK(identity[4] != '\0');
	}
	check_quantity(o, v, error);
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	struct op *o = arg;

	callback_ran(o, error);
	check_quantity(o, height, error);
}

/* final: exactly the block's number and the tip, else an error. */
static void on_final(void *arg, uint64_t tip, uint64_t final, const char *error)
{
	struct op *o = arg;
	uint64_t number = 0, want = 0;

	callback_ran(o, error);
	if (error != NULL) {
		FUZZ_CHECK(tip == 0 && final == 0);
		/* Only a bad answer, or the client's error, is one. */
		if (S.rpc.error[0] == '\0' && o->block != NULL &&
		    json_is_object(o->block) &&
		    quantity(json_object_get(o->block, "number"), &number) ==
		        0 &&
		    o->answer != NULL && quantity(o->answer, &want) == 0)
			FUZZ_CHECK(want < number);
		return;
	}
	FUZZ_CHECK(json_is_object(o->block));
	FUZZ_CHECK(quantity(json_object_get(o->block, "number"), &number) == 0);
	FUZZ_CHECK(quantity(o->answer, &want) == 0);
	FUZZ_CHECK(final == number && tip == want && final <= tip);
}

/* v, a string of 0x and 2n hex digits, decoded into out. */
static int hex_exact(json_t *v, uint8_t *out, size_t n)
{
	return json_is_string(v)
	           ? hj_hex_decode_exact(json_string_value(v),
	                                 json_string_length(v), HJ_HEX_REQUIRED,
	                                 out, n, NULL, 0)
	           : -1;
}

/* Transaction tx of block `block` of the answer, to the dealer, with
 * receipt rc: what the backend must have made of it. */
static void expected_action(json_t *tx, const uint8_t block[32], json_t *rc,
                            hj_action *out)
{
	uint8_t hash[32], from[20], h[32], *input;
	unsigned __int128 value, index, status;
	json_t *in = json_object_get(tx, "input");
	size_t ninput = 0;
	json_t *v;

	FUZZ_CHECK(hex_exact(json_object_get(tx, "hash"), hash, 32) == 0);
	FUZZ_CHECK(hex_exact(json_object_get(tx, "from"), from, 20) == 0);
	v = json_object_get(tx, "value");
	FUZZ_CHECK(json_is_string(v) &&
	           hj_hex_quantity(json_string_value(v), json_string_length(v),
	                           &value, NULL, 0) == 0);
	v = json_object_get(tx, "transactionIndex");
	FUZZ_CHECK(json_is_string(v) &&
	           hj_hex_quantity(json_string_value(v), json_string_length(v),
	                           &index, NULL, 0) == 0 &&
	           index <= UINT32_MAX);
	FUZZ_CHECK(json_is_string(in));
	input = malloc(json_string_length(in) / 2 + 1);
	FUZZ_CHECK(input != NULL);
	FUZZ_CHECK(hj_hex_decode(json_string_value(in), json_string_length(in),
	                         HJ_HEX_REQUIRED, input,
	                         json_string_length(in) / 2 + 1, &ninput, NULL,
	                         0) == 0);
	/* The receipt is that transaction's, in that block. */
	FUZZ_CHECK(hex_exact(json_object_get(rc, "transactionHash"), h, 32) ==
	               0 &&
	           memcmp(h, hash, 32) == 0);
	FUZZ_CHECK(hex_exact(json_object_get(rc, "blockHash"), h, 32) == 0 &&
	           memcmp(h, block, 32) == 0);
	v = json_object_get(rc, "status");
	FUZZ_CHECK(json_is_string(v) &&
	           hj_hex_quantity(json_string_value(v), json_string_length(v),
	                           &status, NULL, 0) == 0 &&
	           status <= 1);
	hj_evm_tx etx = {.hash = hash,
	                 .from = from,
	                 .value = value,
	                 .input = input,
	                 .input_len = ninput,
	                 .success = status == 1,
	                 .tx_index = (uint32_t)index};
	hj_evm_action(&etx, out);
	free(input);
}

/* keep_all: blocks[i].all is every transaction of the answer's txs, as
 * a replay document gives it. */
static void check_all(const hj_chain_block *blk, json_t *txs)
{
	size_t j = 0;

	if (!S.keep) {
		FUZZ_CHECK(blk->all == NULL && blk->nall == 0);
		return;
	}
	FUZZ_CHECK(blk->nall == json_array_size(txs));
	for (size_t t = 0; t < blk->nall; t++) {
		const hj_chain_tx *c = &blk->all[t];
		json_t *tx = json_array_get(txs, t), *to, *in, *v;
		uint8_t b[32];
		unsigned __int128 q;
		size_t n = 0;

		FUZZ_CHECK(hex_exact(json_object_get(tx, "hash"), b, 32) == 0 &&
		           memcmp(b, c->hash, 32) == 0);
		FUZZ_CHECK(hex_exact(json_object_get(tx, "from"), b, 20) == 0 &&
		           memcmp(b, c->from, 20) == 0);
		to = json_object_get(tx, "to");
		if (to == NULL || json_is_null(to)) {
			FUZZ_CHECK(!c->has_to && !c->to_dealer);
		} else {
			FUZZ_CHECK(c->has_to && hex_exact(to, b, 20) == 0 &&
			           memcmp(b, c->to, 20) == 0);
			FUZZ_CHECK(c->to_dealer == !memcmp(b, S.dealer, 20));
		}
		v = json_object_get(tx, "value");
		FUZZ_CHECK(json_is_string(v) &&
		           hj_hex_quantity(json_string_value(v),
		                           json_string_length(v), &q, NULL,
		                           0) == 0 &&
		           q == c->value);
		v = json_object_get(tx, "transactionIndex");
		FUZZ_CHECK(json_is_string(v) &&
		           hj_hex_quantity(json_string_value(v),
		                           json_string_length(v), &q, NULL,
		                           0) == 0 &&
		           q == t);
		in = json_object_get(tx, "input");
		FUZZ_CHECK(json_is_string(in));
		uint8_t *want = malloc(json_string_length(in) / 2 + 1);
		FUZZ_CHECK(want != NULL);
		FUZZ_CHECK(hj_hex_decode(json_string_value(in),
		                         json_string_length(in),
		                         HJ_HEX_REQUIRED, want,
		                         json_string_length(in) / 2 + 1, &n,
		                         NULL, 0) == 0);
		FUZZ_CHECK(n == c->len &&
		           (n == 0 || memcmp(want, c->data, n) == 0));
		free(want);
		if (c->to_dealer) {
			FUZZ_CHECK(j < blk->ntx);
			FUZZ_CHECK(c->failed ==
			           (blk->txs[j].kind == HJ_TX_FAILED));
			j++;
		} else {
			FUZZ_CHECK(!c->failed);
		}
	}
	FUZZ_CHECK(j == blk->ntx);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct op *o = arg;
	size_t k = 0;

	callback_ran(o, error);
	if (error != NULL) {
		FUZZ_CHECK(blocks == NULL && n == 0);
		return;
	}
	FUZZ_CHECK(blocks != NULL && n == o->n);
	FUZZ_CHECK(json_array_size(o->answer) == n);
	if (o->with)
		with_receipts(o);
	for (size_t i = 0; i < n; i++) {
		json_t *b = json_array_get(o->answer, i);
		json_t *txs = json_object_get(b, "transactions");
		uint8_t h[32];
		size_t j = 0;

		FUZZ_CHECK(o->from + i >= o->from); /* heights follow */
		FUZZ_CHECK(blocks[i].height == o->from + i);
		FUZZ_CHECK(hex_exact(json_object_get(b, "hash"), h, 32) == 0 &&
		           memcmp(h, blocks[i].hash, 32) == 0);
		FUZZ_CHECK(hex_exact(json_object_get(b, "parentHash"), h, 32) ==
		               0 &&
		           memcmp(h, blocks[i].parent, 32) == 0);
		for (size_t t = 0; t < json_array_size(txs); t++) {
			json_t *tx = json_array_get(txs, t);
			uint8_t to[20];
			hj_action want;
			char hex[67];

			if (hex_exact(json_object_get(tx, "to"), to, 20) != 0 ||
			    memcmp(to, S.dealer, 20) != 0)
				continue;
			FUZZ_CHECK(j < blocks[i].ntx);
			FUZZ_CHECK(k < json_array_size(o->receipts));
			expected_action(tx, blocks[i].hash,
			                json_array_get(o->receipts, k), &want);
			FUZZ_CHECK(fake_action_eq(&blocks[i].txs[j], &want));
			/* Its receipt was the one asked for. */
			FUZZ_CHECK(k < json_array_size(o->asked));
			hj_hex_encode(want.txid.b, 32, 1, hex);
			FUZZ_CHECK(strcmp(json_string_value(
			                      json_array_get(o->asked, k)),
			                  hex) == 0);
			j++;
			k++;
		}
		FUZZ_CHECK(j == blocks[i].ntx);
		check_all(&blocks[i], txs);
	}
	/* Receipts asked for exactly the dealer's transactions, after the
	 * blocks or with them. */
	FUZZ_CHECK(json_array_size(o->asked) == k);
	FUZZ_CHECK(o->nreceipt_calls == (k > 0 && !o->with));
}

/* The payee's first index for address to, or -1. */
static long payee_of(const uint8_t to[20])
{
	for (long k = 0; k < NPAYEES; k++)
		if (memcmp(S.payees[k].b, to, 20) == 0)
			return k;
	return -1;
}

static void on_payments(void *arg, const hj_chain_payment *p, size_t n,
                        const char *error)
{
	struct op *o = arg;
	size_t k = 0, got = 0;

	callback_ran(o, error);
	if (error != NULL) {
		FUZZ_CHECK(p == NULL && n == 0);
		return;
	}
	FUZZ_CHECK(json_array_size(o->answer) == o->n);
	for (size_t i = 0; i < o->n; i++) {
		json_t *b = json_array_get(o->answer, i);
		json_t *txs = json_object_get(b, "transactions");
		uint8_t block[32];

		FUZZ_CHECK(hex_exact(json_object_get(b, "hash"), block, 32) ==
		           0);
		for (size_t t = 0; t < json_array_size(txs); t++) {
			json_t *tx = json_array_get(txs, t), *v, *rc;
			uint8_t from[20], to[20], hash[32], h[32];
			unsigned __int128 value, status;
			long payee;
			char hex[67];

			FUZZ_CHECK(hex_exact(json_object_get(tx, "from"), from,
			                     20) == 0);
			if (memcmp(from, S.dealer, 20) != 0 ||
			    hex_exact(json_object_get(tx, "to"), to, 20) != 0 ||
			    (payee = payee_of(to)) < 0)
				continue;
			v = json_object_get(tx, "value");
			FUZZ_CHECK(json_is_string(v) &&
			           hj_hex_quantity(json_string_value(v),
			                           json_string_length(v),
			                           &value, NULL, 0) == 0);
			if (value == 0)
				continue;
			FUZZ_CHECK(hex_exact(json_object_get(tx, "hash"), hash,
			                     32) == 0);
			/* Its receipt was asked for, in order. */
			FUZZ_CHECK(k < json_array_size(o->asked));
			hj_hex_encode(hash, 32, 1, hex);
			FUZZ_CHECK(strcmp(json_string_value(
			                      json_array_get(o->asked, k)),
			                  hex) == 0);
			rc = json_array_get(o->receipts, k++);
			FUZZ_CHECK(
			    hex_exact(json_object_get(rc, "transactionHash"), h,
			              32) == 0 &&
			    memcmp(h, hash, 32) == 0);
			FUZZ_CHECK(hex_exact(json_object_get(rc, "blockHash"),
			                     h, 32) == 0 &&
			           memcmp(h, block, 32) == 0);
			v = json_object_get(rc, "status");
			FUZZ_CHECK(json_is_string(v) &&
			           hj_hex_quantity(json_string_value(v),
			                           json_string_length(v),
			                           &status, NULL, 0) == 0 &&
			           status <= 1);
			if (status == 0)
				continue;
			FUZZ_CHECK(got < n);
			FUZZ_CHECK(p[got].height == o->from + i);
			FUZZ_CHECK(p[got].payee == (size_t)payee);
			FUZZ_CHECK(p[got].value == value);
			FUZZ_CHECK(memcmp(p[got].txid, hash, 32) == 0);
			got++;
		}
	}
	FUZZ_CHECK(got == n);
	FUZZ_CHECK(json_array_size(o->asked) == k);
	FUZZ_CHECK(o->nreceipt_calls == (k > 0));
}

/* The first record: the operations. */
static void read_ops(const char *p, size_t len)
{
	const char *end = p + len;
	int refuse = 0, wait = 0;

	while (p < end && S.nops < MAX_OPS) {
		struct op *o = &S.ops[S.nops];
		char ch = *p++;

		switch (ch) {
		case '%':
			refuse = 1;
			continue;
		case ';':
			wait = 1;
			continue;
		case 'k':
			S.keep = 1;
			continue;
		case 'i':
		case 't':
		case 'f':
		case 's':
			break;
		case 'b':
		case 'p':
			o->from = fake_number(&p, end);
			o->n = (size_t)fake_number(&p, end);
			if (o->n > MAX_N)
				o->n = MAX_N;
			break;
		default:
			continue;
		}
		o->kind = ch;
		o->refuse = refuse;
		o->wait = wait;
		refuse = wait = 0;
		S.nops++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *first;
	size_t first_len;
	hj_dealer dealer;
	hj_backend *b;

	memset(&S, 0, sizeof S);
	S.rpc.owner = -1;
	fake_split(&S.rpc.in, data, size, &first, &first_len);
	read_ops(first, first_len);
	FUZZ_CHECK(hj_dealer_parse(HJ_EVM, DEALER, strlen(DEALER), &dealer,
	                           NULL, 0) == 0);
	memcpy(S.dealer, dealer.addr, 20);
	FUZZ_CHECK(hj_evm_backend_new(&S.rpc, &dealer, &b) == 0 &&
	           b->ops->family == HJ_EVM);
	if (S.keep)
		b->ops->keep_all(b);
	for (int k = 0; k < NPAYEES; k++) {
		hj_id id = {.len = 20};
		char hex[43];

		id.b[19] = 0xaa;
		if (k == 1)
			memcpy(id.b, S.dealer, 20);
		FUZZ_CHECK(b->ops->payee(b, &id, &S.payees[k], NULL, 0) == 0);
		hj_hex_encode(id.b, 20, 1, hex);
		FUZZ_CHECK(S.payees[k].len == 20 &&
		           memcmp(S.payees[k].b, id.b, 20) == 0 &&
		           strcmp(S.payees[k].address, hex) == 0);
	}

	for (int k = 0; k < S.nops; k++) {
		struct op *o = &S.ops[k];

		while (o->wait && S.rpc.npending > 0 && fake_answer(&S.rpc))
			;
		S.rpc.owner = k;
		S.rpc.in_call = 1;
		S.rpc.refuse_next = o->refuse;
		if (o->kind == 'i')
			o->rc = b->ops->identity(b, on_ident, o);
		else if (o->kind == 't')
			o->rc = b->ops->tip(b, on_tip, o);
		else if (o->kind == 'f' || o->kind == 's')
			o->rc =
			    b->ops->final(b,
			                  o->kind == 'f' ? HJ_FINALITY_FINALIZED
			                                 : HJ_FINALITY_SAFE,
			                  on_final, o);
		else if (o->kind == 'b')
			o->rc = b->ops->blocks(b, o->from, o->n, on_blocks, o);
		else
			o->rc = b->ops->payments(b, o->from, o->n, S.payees,
			                         NPAYEES, on_payments, o);
		S.rpc.in_call = 0;
		S.rpc.owner = -1;
		/* Refused: the client's error, and no callback ever. */
		if ((o->kind == 'b' || o->kind == 'p') &&
		    (o->n == 0 || o->from > UINT64_MAX - (o->n - 1)))
			FUZZ_CHECK(o->rc == -EINVAL);
		else if (o->refuse)
			FUZZ_CHECK(o->rc == -ENOMEM);
		else
			FUZZ_CHECK(o->rc == 0);
		S.rpc.refuse_next = 0;
	}
	while (S.rpc.npending > 0 && fake_answer(&S.rpc))
		;
	/* Whatever has no request left has called back, once. */
	for (int k = 0; k < S.nops; k++) {
		struct op *o = &S.ops[k];

		if (o->rc == 0 && fake_pending_of(&S.rpc, k) == 0)
			FUZZ_CHECK(o->ncb == 1);
		else
			FUZZ_CHECK(o->ncb == 0);
	}
	/* As the daemon stops: the client first, then the backend. */
	fake_drop(&S.rpc);
	b->ops->free(b);
	S.freed = 1;
	for (int k = 0; k < S.nops; k++) {
		json_decref(S.ops[k].answer);
		json_decref(S.ops[k].block);
		json_decref(S.ops[k].receipts);
		json_decref(S.ops[k].asked);
		json_decref(S.ops[k].map);
		json_decref(S.ops[k].lists);
	}
	return 0;
}
