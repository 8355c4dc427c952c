/*
 * The backends (chain/evm_backend.h, chain/btc_backend.h) on what the
 * fuzz targets (fuzz/fuzz_evm_backend.c, fuzz/fuzz_btc_backend.c) found:
 * the ranges they refuse before any request (blocks and payments), what
 * payee() makes of a recipient, and answers they must not take; the EVM
 * backend's final() against a scripted node, answer by answer.  The rest of
 * what they make of a node's answers is fuzzed there and played end to end
 * (tests/e2e).
 *
 * For the ranges the client points at a port where nothing listens: a
 * call that got through would stay pending (hj_rpc_pending) and be
 * dropped by hj_rpc_close, and no callback may run.  For answers, a
 * scripted node (http_fake.h) on the test's loop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "btc_backend.h"
#include "dealer.h"
#include "evm_backend.h"
#include "http_fake.h"
#include "push.h"
#include "rpc.h"
#include "say.h"

#define GUARD_MS 5000

static struct fx {
	uv_loop_t loop;
	hj_rpc *rpc;
	unsigned ncb;
	struct hf_server srv;
	uv_timer_t guard;
	int guard_fired, finished;
	hj_backend *b;
	unsigned nreceipts;     /* receipt batches answered */
	char err[8][HJ_ERRLEN]; /* each callback's error, "" for none */
	size_t ntx[8];
	hj_action tx[8];
} F;

static void fx_start(void)
{
	hj_rpc_opts o;
	char err[HJ_ERRLEN];

	memset(&F, 0, sizeof F);
	assert_int_equal(uv_loop_init(&F.loop), 0);
	hj_rpc_opts_default(&o);
	o.url = "http://127.0.0.1:1/";
	if (hj_rpc_new(&F.loop, &o, &F.rpc, err, sizeof err) != 0)
		fail_msg("hj_rpc_new: %s", err);
}

#define DEALER "0xdcdcf319ef991916ce062146aa804597059416d8"

/* fx_start, and an EVM backend over its client for DEALER. */
static hj_backend *fx_evm(void)
{
	hj_dealer d;
	hj_backend *b;

	fx_start();
	assert_int_equal(
	    hj_dealer_parse(HJ_EVM, DEALER, strlen(DEALER), &d, NULL, 0), 0);
	assert_int_equal(hj_evm_backend_new(F.rpc, &d, &b), 0);
	assert_non_null(b);
	return b;
}

/* The daemon's order: the client first, then the backend. */
static void fx_end(hj_backend *b)
{
	hj_rpc_close(F.rpc, NULL, NULL);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	b->ops->free(b);
	assert_int_equal(uv_loop_close(&F.loop), 0);
	assert_int_equal(F.ncb, 0);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	(void)arg;
	(void)blocks;
	(void)n;
	(void)error;
	F.ncb++;
}

static void on_payments(void *arg, const hj_chain_payment *p, size_t n,
                        const char *error)
{
	(void)arg;
	(void)p;
	(void)n;
	(void)error;
	F.ncb++;
}

static void on_blocks_final(void *arg, uint64_t tip, uint64_t final,
                            const char *error)
{
	(void)arg;
	(void)tip;
	(void) final;
	(void)error;
	F.ncb++;
}

/* blocks(from, n) must name n heights that exist: from + n - 1 at most
 * 2^64 - 1 on EVM (a quantity); past it the range wrapped to block 0 and
 * the callback would have had block 0 after block 2^64 - 1. */
static void test_evm_range(void **state)
{
	hj_backend *b = fx_evm();

	(void)state;
	assert_int_equal(b->ops->blocks(b, 5, 0, on_blocks, NULL), -EINVAL);
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 2, on_blocks, NULL),
	                 -EINVAL);
	assert_int_equal(
	    b->ops->blocks(b, UINT64_MAX - 14, 16, on_blocks, NULL), -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	/* The top of the range is still a height. */
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 1, on_blocks, NULL), 0);
	assert_int_equal(
	    b->ops->blocks(b, UINT64_MAX - 15, 16, on_blocks, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 2);
	/* payments() takes the same ranges; a payee is an address. */
	hj_chain_payee pay;
	hj_id id = {.len = 20};
	char err[HJ_ERRLEN];
	id.b[19] = 0xab;
	assert_int_equal(b->ops->payee(b, &id, &pay, err, sizeof err), 0);
	assert_int_equal(pay.len, 20);
	assert_memory_equal(pay.b, id.b, 20);
	assert_string_equal(pay.address,
	                    "0x00000000000000000000000000000000000000ab");
	id.len = 32;
	assert_int_equal(b->ops->payee(b, &id, &pay, err, sizeof err), -EINVAL);
	assert_string_equal(err, "not an address: 32 bytes");
	assert_int_equal(b->ops->payments(b, 5, 0, &pay, 1, on_payments, NULL),
	                 -EINVAL);
	assert_int_equal(
	    b->ops->payments(b, UINT64_MAX, 2, &pay, 1, on_payments, NULL),
	    -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 2);
	assert_int_equal(
	    b->ops->payments(b, UINT64_MAX, 1, &pay, 1, on_payments, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 3);
	fx_end(b);
}

/* ------------------------------------------------------------------ */
/* A scripted EVM node                                                 */

#define HASH_B                                                                 \
	"0x1111111111111111111111111111111111111111111111111111111111111111"
#define HASH_P                                                                 \
	"0x2222222222222222222222222222222222222222222222222222222222222222"
#define HASH_T                                                                 \
	"0x3333333333333333333333333333333333333333333333333333333333333333"
#define HASH_X                                                                 \
	"0x4444444444444444444444444444444444444444444444444444444444444444"

/* What each receipts batch gets, in turn: the receipt of another
 * transaction, one from another block, one that names neither, then the
 * right one (the transaction reverted). */
static const char *const receipts[] = {
    "{\"status\":\"0x1\",\"transactionHash\":\"" HASH_X
    "\",\"blockHash\":\"" HASH_B "\"}",
    "{\"status\":\"0x1\",\"transactionHash\":\"" HASH_T
    "\",\"blockHash\":\"" HASH_X "\"}",
    "{\"status\":\"0x1\"}",
    "{\"status\":\"0x0\",\"transactionHash\":\"" HASH_T
    "\",\"blockHash\":\"" HASH_B "\"}",
};
#define NROUNDS (sizeof receipts / sizeof receipts[0])

static void fx_finish(void)
{
	if (F.finished)
		return;
	F.finished = 1;
	hj_rpc_close(F.rpc, NULL, NULL);
	hf_server_close(&F.srv);
	uv_close((uv_handle_t *)&F.guard, NULL);
}

static void on_guard(uv_timer_t *t)
{
	(void)t;
	F.guard_fired = 1;
	fx_finish();
}

/* Block 0x10 with one transaction to the dealer, HASH_T; receipts from
 * the list. */
static void h_evm(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	json_t *out = json_array(), *el;
	size_t i;
	char *s;

	(void)n;
	assert_true(json_is_array(r->json));
	json_array_foreach(r->json, i, el)
	{
		const char *m =
		    json_string_value(json_object_get(el, "method"));
		json_t *res;

		if (strcmp(m, "eth_getBlockByNumber") == 0)
			res = json_pack(
			    "{s:s, s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:s, "
			    "s:s}]}",
			    "number", "0x10", "hash", HASH_B, "parentHash",
			    HASH_P, "transactions", "hash", HASH_T, "from",
			    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "to",
			    DEALER, "value", "0x3e8", "transactionIndex", "0x0",
			    "input", "0x484a0101");
		else
			res = json_loads(receipts[F.nreceipts], 0, NULL);
		assert_non_null(res);
		json_array_append_new(
		    out, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
		                   json_object_get(el, "id"), "result", res));
	}
	if (strcmp(json_string_value(
	               json_object_get(json_array_get(r->json, 0), "method")),
	           "eth_getTransactionReceipt") == 0)
		F.nreceipts++;
	s = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void on_evm_blocks(void *arg, hj_chain_block *blocks, size_t n,
                          const char *error)
{
	unsigned i = F.ncb++;

	(void)arg;
	snprintf(F.err[i], sizeof F.err[i], "%s", error ? error : "");
	if (error == NULL) {
		assert_int_equal(n, 1);
		F.ntx[i] = blocks[0].ntx;
		if (blocks[0].ntx == 1)
			F.tx[i] = blocks[0].txs[0];
	}
	if (F.ncb < NROUNDS)
		assert_int_equal(
		    F.b->ops->blocks(F.b, 16, 1, on_evm_blocks, NULL), 0);
	else
		fx_finish();
}

/* F: a scripted node answering with h, an EVM backend over a client to
 * it, and the guard. */
static void evm_start(hf_handler h)
{
	hj_rpc_opts o;
	hj_dealer d;
	char url[64], err[HJ_ERRLEN];

	assert_int_equal(uv_loop_init(&F.loop), 0);
	hf_server_start(&F.srv, &F.loop, h);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", F.srv.port);
	hj_rpc_opts_default(&o);
	o.url = url;
	if (hj_rpc_new(&F.loop, &o, &F.rpc, err, sizeof err) != 0)
		fail_msg("hj_rpc_new: %s", err);
	assert_int_equal(uv_timer_init(&F.loop, &F.guard), 0);
	assert_int_equal(uv_timer_start(&F.guard, on_guard, GUARD_MS, 0), 0);
	assert_int_equal(
	    hj_dealer_parse(HJ_EVM, DEALER, strlen(DEALER), &d, NULL, 0), 0);
	assert_int_equal(hj_evm_backend_new(F.rpc, &d, &F.b), 0);
	assert_non_null(F.b);
}

/* A receipt is taken only when it names the transaction asked for and
 * the block it is in: its status is that transaction's in that block only,
 * and another block's (a fork's, a lagging node's) may say otherwise. */
static void test_evm_receipt_of_the_transaction(void **state)
{

	(void)state;
	memset(&F, 0, sizeof F);
	evm_start(h_evm);
	assert_int_equal(F.b->ops->blocks(F.b, 16, 1, on_evm_blocks, NULL), 0);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	F.b->ops->free(F.b);
	assert_int_equal(uv_loop_close(&F.loop), 0);

	assert_int_equal(F.guard_fired, 0);
	assert_int_equal(F.ncb, NROUNDS);
	assert_int_equal(F.nreceipts, NROUNDS);
	for (unsigned i = 0; i + 1 < NROUNDS; i++)
		assert_string_equal(F.err[i],
		                    "block 16: the receipt of transaction 0 is "
		                    "not that transaction's in this block");
	assert_string_equal(F.err[NROUNDS - 1], "");
	assert_int_equal(F.ntx[NROUNDS - 1], 1);
	assert_int_equal(F.tx[NROUNDS - 1].kind, HJ_TX_FAILED);
	assert_int_equal(F.tx[NROUNDS - 1].txid.b[0], 0x33);
}

/* ------------------------------------------------------------------ */
/* eth_getBlockReceipts, where the node has it                         */

#define HASH_U                                                                 \
	"0x5555555555555555555555555555555555555555555555555555555555555555"

static struct {
	int has;         /* the node has eth_getBlockReceipts */
	unsigned probes; /* plain eth_getBlockReceipts calls */
	unsigned whole;  /* eth_getBlockReceipts calls in batches */
	unsigned one;    /* eth_getTransactionReceipt calls */
	unsigned rounds; /* blocks() calls answered */
	unsigned with;   /* batches asking blocks and their receipts */
} R;

static json_t *receipt(const char *tx, const char *status)
{
	return json_pack("{s:s, s:s, s:s}", "status", status, "transactionHash",
	                 tx, "blockHash", HASH_B);
}

/* The answer to one call of the block 0x10 of three transactions: HASH_T
 * and HASH_U to the dealer (HASH_U reverted), HASH_X to someone else. */
static json_t *answer_one(json_t *el)
{
	const char *m = json_string_value(json_object_get(el, "method"));
	const char *tx =
	    json_string_value(json_array_get(json_object_get(el, "params"), 0));
	json_t *res;

	if (strcmp(m, "eth_getBlockByNumber") == 0) {
		res = json_pack(
		    "{s:s, s:s, s:s, s:["
		    "{s:s, s:s, s:s, s:s, s:s, s:s},"
		    "{s:s, s:s, s:s, s:s, s:s, s:s},"
		    "{s:s, s:s, s:s, s:s, s:s, s:s}]}",
		    "number", "0x10", "hash", HASH_B, "parentHash", HASH_P,
		    "transactions", "hash", HASH_T, "from",
		    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "to", DEALER,
		    "value", "0x3e8", "transactionIndex", "0x0", "input",
		    "0x484a0101", "hash", HASH_X, "from",
		    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "to",
		    "0x0000000000000000000000000000000000000001", "value",
		    "0x1", "transactionIndex", "0x1", "input", "0x", "hash",
		    HASH_U, "from",
		    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "to", DEALER,
		    "value", "0x3e8", "transactionIndex", "0x2", "input",
		    "0x484a0101");
	} else if (strcmp(m, "eth_getBlockReceipts") == 0) {
		/* By hash after the block, by number with it. */
		if (strcmp(tx, "0x10") != 0)
			assert_string_equal(tx, HASH_B);
		if (!R.has)
			return json_pack("{s:i, s:s}", "code", -32601,
			                 "message",
			                 "the method eth_getBlockReceipts does "
			                 "not exist/is not available");
		res = json_pack("[o, o, o]", receipt(HASH_T, "0x1"),
		                receipt(HASH_X, "0x1"), receipt(HASH_U, "0x0"));
	} else {
		assert_string_equal(m, "eth_getTransactionReceipt");
		R.one++;
		res = receipt(tx, strcmp(tx, HASH_U) == 0 ? "0x0" : "0x1");
	}
	return json_pack("{s:o}", "result", res);
}

static json_t *enveloped(json_t *el)
{
	json_t *a = answer_one(el);
	json_t *res = json_object_get(a, "result");
	json_t *out = json_pack("{s:s, s:O}", "jsonrpc", "2.0", "id",
	                        json_object_get(el, "id"));

	json_object_set(out, res != NULL ? "result" : "error",
	                res != NULL ? res : a);
	json_decref(a);
	return out;
}

static void h_receipts(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	json_t *out, *el;
	size_t i;
	char *s;

	(void)n;
	if (json_is_array(r->json)) {
		int blocks = 0, whole = 0;

		out = json_array();
		json_array_foreach(r->json, i, el)
		{
			const char *m =
			    json_string_value(json_object_get(el, "method"));

			blocks |= strcmp(m, "eth_getBlockByNumber") == 0;
			whole |= strcmp(m, "eth_getBlockReceipts") == 0;
			R.whole += strcmp(m, "eth_getBlockReceipts") == 0;
			json_array_append_new(out, enveloped(el));
		}
		R.with += blocks && whole;
	} else {
		R.probes++;
		out = enveloped(r->json);
	}
	s = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void on_receipt_blocks(void *arg, hj_chain_block *blocks, size_t n,
                              const char *error)
{
	(void)arg;
	assert_null(error);
	assert_int_equal(n, 1);
	assert_int_equal(blocks[0].ntx, 2);
	assert_int_equal(blocks[0].txs[0].txid.b[0], 0x33);
	assert_int_not_equal(blocks[0].txs[0].kind, HJ_TX_FAILED);
	assert_int_equal(blocks[0].txs[1].txid.b[0], 0x55);
	assert_int_equal(blocks[0].txs[1].kind, HJ_TX_FAILED);
	if (++R.rounds < 2)
		assert_int_equal(
		    F.b->ops->blocks(F.b, 16, 1, on_receipt_blocks, NULL), 0);
	else
		fx_finish();
}

/* Two transactions to the dealer of three: the block's receipts are asked
 * whole where the node has eth_getBlockReceipts (asked once whether it
 * has), else one by one; after a batch whose blocks mostly wanted theirs
 * whole, with the next batch's blocks, in the same request; the outcome is
 * the same. */
static void test_evm_block_receipts(void **state)
{
	(void)state;
	for (int has = 0; has < 2; has++) {
		memset(&F, 0, sizeof F);
		memset(&R, 0, sizeof R);
		R.has = has;
		evm_start(h_receipts);
		assert_int_equal(
		    F.b->ops->blocks(F.b, 16, 1, on_receipt_blocks, NULL), 0);
		assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
		F.b->ops->free(F.b);
		assert_int_equal(uv_loop_close(&F.loop), 0);
		assert_int_equal(F.guard_fired, 0);
		assert_int_equal(R.rounds, 2);
		assert_int_equal(R.probes, 1);
		assert_int_equal(R.whole, has ? 2 : 0);
		assert_int_equal(R.with, has ? 1 : 0);
		assert_int_equal(R.one, has ? 0 : 4);
	}
}

/* ------------------------------------------------------------------ */
/* final(): the node's "finalized" or "safe" block, then its tip        */

/* One final() call: what it asks for, what the node answers (a block's
 * JSON, or a JSON-RPC error object as `error`), the tip answered after it
 * (NULL: none may be asked), and what the callback must get. */
struct fin_case {
	hj_finality how;
	const char *block; /* the "result", or an "error" object */
	int block_is_error;
	const char *tip; /* JSON text of eth_blockNumber's result */
	uint64_t want_tip, want_final;
	const char *want_err; /* NULL: success */
};

#define BLOCK_12                                                               \
	"{\"number\":\"0xc\",\"hash\":\"" HASH_B "\",\"parentHash\":\"" HASH_P \
	"\"}"
#define BLOCK_16                                                               \
	"{\"number\":\"0x10\",\"hash\":\"" HASH_B                              \
	"\",\"parentHash\":\"" HASH_P "\"}"

static const struct fin_case fin_cases[] = {
    /* Answers. */
    {HJ_FINALITY_FINALIZED, BLOCK_12, 0, "\"0x14\"", 20, 12, NULL},
    {HJ_FINALITY_SAFE, BLOCK_16, 0, "\"0x14\"", 20, 16, NULL},
    /* At the tip is final too, passed on as it is: what that says of the
     * word (ganache answers so) is the configuration's to say
     * (hj_config_final_warning, tests/test_config.c). */
    {HJ_FINALITY_SAFE, BLOCK_16, 0, "\"0x10\"", 16, 16, NULL},
    {HJ_FINALITY_FINALIZED, "{\"number\":\"0x0\"}", 0, "\"0x0\"", 0, 0, NULL},
    /* A node without the block: no tip asked, never a guess. */
    {HJ_FINALITY_FINALIZED, "null", 0, NULL, 0, 0,
     "the node has no \"finalized\" block (null): a chain without "
     "proof-of-stake finality cannot be followed with [chain] "
     "confirmations = finalized"},
    {HJ_FINALITY_SAFE, "null", 0, NULL, 0, 0,
     "the node has no \"safe\" block (null): a chain without "
     "proof-of-stake finality cannot be followed with [chain] "
     "confirmations = safe"},
    /* A node that refuses the tag: its error, in the callback. */
    {HJ_FINALITY_FINALIZED,
     "{\"code\":-39001,\"message\":\"finalized block not found\"}", 1, NULL, 0,
     0,
     "the node's \"finalized\" block: eth_getBlockByNumber: JSON-RPC "
     "error -39001: \"finalized block not found\""},
    {HJ_FINALITY_SAFE,
     "{\"code\":-32602,\"message\":\"invalid argument 0: hex string "
     "without 0x prefix\"}",
     1, NULL, 0, 0,
     "the node's \"safe\" block: eth_getBlockByNumber: JSON-RPC error "
     "-32602: \"invalid argument 0: hex string without 0x prefix\""},
    /* Malformed blocks. */
    {HJ_FINALITY_FINALIZED, "\"0xc\"", 0, NULL, 0, 0,
     "the node's \"finalized\" block: not a block with a number"},
    {HJ_FINALITY_FINALIZED, "{\"hash\":\"" HASH_B "\"}", 0, NULL, 0, 0,
     "the node's \"finalized\" block: not a block with a number"},
    {HJ_FINALITY_FINALIZED, "{\"number\":12}", 0, NULL, 0, 0,
     "the node's \"finalized\" block: not a block with a number"},
    {HJ_FINALITY_SAFE, "{\"number\":\"0x\"}", 0, NULL, 0, 0,
     "the node's \"safe\" block: not a block with a number"},
    {HJ_FINALITY_SAFE, "{\"number\":\"10\"}", 0, NULL, 0, 0,
     "the node's \"safe\" block: not a block with a number"},
    {HJ_FINALITY_SAFE, "{\"number\":\"0x10000000000000000\"}", 0, NULL, 0, 0,
     "the node's \"safe\" block: not a block with a number"},
    {HJ_FINALITY_FINALIZED, "[]", 0, NULL, 0, 0,
     "the node's \"finalized\" block: not a block with a number"},
    /* A block above the tip asked after it; a tip that is none. */
    {HJ_FINALITY_SAFE, BLOCK_16, 0, "\"0xf\"", 0, 0,
     "the node's \"safe\" block 16 is above its tip 15"},
    {HJ_FINALITY_FINALIZED, BLOCK_12, 0, "null", 0, 0,
     "eth_blockNumber: not a quantity"},
    {HJ_FINALITY_FINALIZED, BLOCK_12, 0, "\"latest\"", 0, 0,
     "eth_blockNumber: not a quantity"},
    {HJ_FINALITY_FINALIZED, BLOCK_12, 0, "{\"number\":\"0x14\"}", 0, 0,
     "eth_blockNumber: not a quantity"},
};
#define NFIN (sizeof fin_cases / sizeof fin_cases[0])

static struct {
	size_t at;              /* the case in progress */
	unsigned asked;         /* requests the node got */
	unsigned tips;          /* of them eth_blockNumber */
	char failed[HJ_ERRLEN]; /* the first check that failed, "" */
} FN;

static void fin_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static void fin_fail(const char *fmt, ...)
{
	va_list ap;

	if (FN.failed[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(FN.failed, sizeof FN.failed, fmt, ap);
	va_end(ap);
}

/* The node: each request checked against the case in progress. */
static void h_final(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	const struct fin_case *fc = &fin_cases[FN.at];
	json_t *id = json_object_get(r->json, "id"), *params, *out;
	const char *m = json_string_value(json_object_get(r->json, "method"));
	char *s;

	(void)n;
	FN.asked++;
	params = json_object_get(r->json, "params");
	if (!m || !json_is_integer(id)) {
		fin_fail("case %zu: not a single call: %s", FN.at, r->body);
		hf_conn_close(c);
		return;
	}
	if (strcmp(m, "eth_getBlockByNumber") == 0) {
		const char *tag = json_string_value(json_array_get(params, 0));
		if (json_array_size(params) != 2 || !tag ||
		    strcmp(tag, hj_finality_name(fc->how)) != 0 ||
		    !json_is_false(json_array_get(params, 1)))
			fin_fail("case %zu: asked %s", FN.at, r->body);
		out = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
		                fc->block_is_error ? "error" : "result",
		                json_loads(fc->block, JSON_DECODE_ANY, NULL));
	} else if (strcmp(m, "eth_blockNumber") == 0 && fc->tip) {
		FN.tips++;
		out = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
		                "result",
		                json_loads(fc->tip, JSON_DECODE_ANY, NULL));
	} else {
		fin_fail("case %zu: unexpected call %s", FN.at, r->body);
		hf_conn_close(c);
		return;
	}
	assert_non_null(out);
	s = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	hf_reply(c, 200, NULL, s);
	free(s);
}

static void on_final(void *arg, uint64_t tip, uint64_t final, const char *error)
{
	const struct fin_case *fc = &fin_cases[FN.at];
	char got[512];

	(void)arg;
	F.ncb++;
	snprintf(got, sizeof got, "%s", error ? error : "(none)");
	if (fc->want_err ? !error || strcmp(error, fc->want_err) != 0
	                 : error != NULL)
		fin_fail("case %zu: error %s", FN.at, got);
	if (tip != fc->want_tip || final != fc->want_final)
		fin_fail("case %zu: wrong heights (error %s)", FN.at, got);
	if (++FN.at < NFIN) {
		if (F.b->ops->final(F.b, fin_cases[FN.at].how, on_final, NULL))
			fin_fail("case %zu: final() refused%s", FN.at, "");
	} else {
		fx_finish();
	}
}

/* final(): the tag's block alone, then the tip; its number and the tip
 * exactly, or an error word for word for a node without the block, one
 * that refuses the tag, a block that is none, or one above the tip. */
static void test_evm_final(void **state)
{
	unsigned want_asked = 0, want_tips = 0;

	(void)state;
	memset(&F, 0, sizeof F);
	memset(&FN, 0, sizeof FN);
	evm_start(h_final);
	assert_non_null(F.b->ops->final);
	/* No tag: nothing asked. */
	assert_int_equal(
	    F.b->ops->final(F.b, HJ_FINALITY_DEPTH, on_final, NULL), -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	assert_int_equal(F.b->ops->final(F.b, fin_cases[0].how, on_final, NULL),
	                 0);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	F.b->ops->free(F.b);
	assert_int_equal(uv_loop_close(&F.loop), 0);

	if (FN.failed[0])
		fail_msg("%s", FN.failed);
	assert_int_equal(F.guard_fired, 0);
	assert_int_equal(F.ncb, NFIN);
	for (size_t k = 0; k < NFIN; k++) {
		want_asked += 1 + (fin_cases[k].tip != NULL);
		want_tips += fin_cases[k].tip != NULL;
	}
	assert_int_equal(FN.asked, want_asked);
	assert_int_equal(FN.tips, want_tips);
}

/* A final() freed while it waits: no callback. */
static void test_evm_final_freed(void **state)
{
	hj_backend *b = fx_evm();

	(void)state;
	assert_int_equal(
	    b->ops->final(b, HJ_FINALITY_SAFE, on_blocks_final, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	fx_end(b);
}

/* getblockhash takes a JSON integer: heights stay below 2^63. */
static void test_btc_range(void **state)
{
	static const char addr[] =
	    "rltc1q2qv83f0js2q05qxm9kkv87eedpe3udq3j3t8e4";
	hj_dealer d;
	hj_backend *b;
	char err[HJ_ERRLEN];

	(void)state;
	fx_start();
	assert_int_equal(
	    hj_dealer_parse(HJ_BITCOIN, addr, strlen(addr), &d, NULL, 0), 0);
	assert_int_equal(
	    hj_btc_backend_new(F.rpc, "litecoin", &d, &b, err, sizeof err), 0);
	assert_non_null(b);
	/* No finalized or safe block on the Bitcoin family. */
	assert_null(b->ops->final);
	assert_int_equal(b->ops->blocks(b, 5, 0, on_blocks, NULL), -EINVAL);
	assert_int_equal(
	    b->ops->blocks(b, (uint64_t)INT64_MAX, 1, on_blocks, NULL),
	    -EINVAL);
	assert_int_equal(b->ops->blocks(b, UINT64_MAX, 2, on_blocks, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 0);
	assert_int_equal(
	    b->ops->blocks(b, (uint64_t)INT64_MAX - 2, 2, on_blocks, NULL), 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	/* payments() takes the same ranges; a payee is tr(P), here BIP-86's
	 * first vector's key, in the dealer's prefix. */
	hj_chain_payee pay;
	hj_id id = {.len = 32};
	static const uint8_t p[32] = {
	    0xcc, 0x8a, 0x4b, 0xc6, 0x4d, 0x89, 0x7b, 0xdd, 0xc5, 0xfb, 0xc2,
	    0xf6, 0x70, 0xf7, 0xa8, 0xba, 0x0b, 0x38, 0x67, 0x79, 0x10, 0x6c,
	    0xf1, 0x22, 0x3c, 0x6f, 0xc5, 0xd7, 0xcd, 0x6f, 0xc1, 0x15};
	static const uint8_t q[2] = {0xa6, 0x08}; /* a60869f0... */
	memcpy(id.b, p, 32);
	assert_int_equal(b->ops->payee(b, &id, &pay, err, sizeof err), 0);
	assert_int_equal(pay.len, 34);
	assert_int_equal(pay.b[0], 0x51);
	assert_int_equal(pay.b[1], 32);
	assert_memory_equal(pay.b + 2, q, 2);
	assert_memory_equal(pay.address, "rltc1p", 6);
	memset(id.b, 0xff, 32);
	assert_int_equal(b->ops->payee(b, &id, &pay, err, sizeof err), -EINVAL);
	id.len = 20;
	assert_int_equal(b->ops->payee(b, &id, &pay, err, sizeof err), -EINVAL);
	assert_string_equal(err, "not an x-only key: 20 bytes");
	assert_int_equal(b->ops->payments(b, (uint64_t)INT64_MAX, 1, &pay, 1,
	                                  on_payments, NULL),
	                 -EINVAL);
	assert_int_equal(hj_rpc_pending(F.rpc), 1);
	assert_int_equal(b->ops->payments(b, 7, 3, &pay, 1, on_payments, NULL),
	                 0);
	assert_int_equal(hj_rpc_pending(F.rpc), 2);
	fx_end(b);
}

/* ---- push() ---- */

static struct {
	int calls;
	char why[HJ_ERRLEN];
} P;

static void on_push_wake(void *arg)
{
	(void)arg;
}

static void on_push_state(void *arg, int up, const char *why)
{
	hj_push *p = *(hj_push **)arg;

	P.calls++;
	assert_int_equal(up, 0);
	snprintf(P.why, sizeof P.why, "%s", why);
	hj_push_close(p, NULL, NULL);
}

/*
 * push() opens the family's kind, whatever o->kind says: the EVM one
 * needs o->url (a WebSocket), the Bitcoin family's o->rpc (a long poll),
 * each refusing options without its own; each then fails its first
 * session on a port where nothing listens, the EVM one connecting its
 * WebSocket, the Bitcoin family's in its waitfornewblock.  push_how names them
 * as the daemon's log does.
 */
static void test_push(void **state)
{
	static const char addr[] =
	    "rltc1q2qv83f0js2q05qxm9kkv87eedpe3udq3j3t8e4";
	hj_backend *evm, *btc;
	hj_dealer d;
	hj_push *p = NULL;
	hj_rpc_opts ro;
	char err[HJ_ERRLEN];

	(void)state;
	memset(&P, 0, sizeof P);
	evm = fx_evm();
	assert_int_equal(
	    hj_dealer_parse(HJ_BITCOIN, addr, strlen(addr), &d, NULL, 0), 0);
	assert_int_equal(
	    hj_btc_backend_new(F.rpc, "litecoin", &d, &btc, err, sizeof err),
	    0);
	assert_non_null(btc);
	assert_string_equal(evm->ops->push_how, "eth_subscribe newHeads");
	assert_string_equal(btc->ops->push_how, "waitfornewblock long poll");
	assert_ptr_equal(evm->ops, &hj_evm_backend_ops);
	assert_ptr_equal(btc->ops, &hj_btc_backend_ops);

	hj_rpc_opts_default(&ro);
	ro.url = "http://127.0.0.1:1/";
	hj_push_opts o = {.loop = &F.loop,
	                  .kind = HJ_PUSH_BTC, /* not read */
	                  .rpc = &ro,
	                  .wake = on_push_wake,
	                  .state = on_push_state,
	                  .arg = &p};
	assert_int_equal(evm->ops->push(evm, &o, &p, err, sizeof err), -EINVAL);
	assert_string_equal(err, "push: no URL");
	o.kind = HJ_PUSH_EVM;
	o.url = "ws://127.0.0.1:1/";
	o.rpc = NULL;
	assert_int_equal(btc->ops->push(btc, &o, &p, err, sizeof err), -EINVAL);
	assert_string_equal(err, "push: no URL");

	assert_int_equal(evm->ops->push(evm, &o, &p, err, sizeof err), 0);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(P.calls, 1);
	assert_memory_equal(P.why, "ws://127.0.0.1:1/: ", 19); /* wsclient's */

	o.url = NULL;
	o.rpc = &ro;
	assert_int_equal(btc->ops->push(btc, &o, &p, err, sizeof err), 0);
	assert_int_equal(uv_run(&F.loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(P.calls, 2);
	assert_memory_equal(P.why, "waitfornewblock: ", 17);

	btc->ops->free(btc);
	fx_end(evm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_range),
	    cmocka_unit_test(test_btc_range),
	    cmocka_unit_test(test_evm_receipt_of_the_transaction),
	    cmocka_unit_test(test_evm_block_receipts),
	    cmocka_unit_test(test_evm_final),
	    cmocka_unit_test(test_evm_final_freed),
	    cmocka_unit_test(test_push),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
