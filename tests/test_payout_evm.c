/*
 * The EVM payer (daemon/payout_evm.h, docs/PAYOUTS-EVM.md) against a
 * scripted node: an HTTP server on the test's loop (http_fake.h) answers
 * each JSON-RPC method from the test's script and records what it got.
 * The store is a real one in a temporary directory; the dealer key is
 * anvil's account 0, in a 0600 file.
 *
 * A test runs the payer in steps: it sets the script (the dealer's nonces
 * at latest/final/pending, the fee history, what eth_sendRawTransaction
 * answers, which receipts exist), kicks the payer and runs the loop until
 * the payer has ended so many passes (on_status counts them), then looks
 * at the database and at what the node received.  Every test closes the
 * payer and the server and checks uv_loop_close() == 0.  The fixture
 * (the loop, the server, the store, the payer's log) is tests/payer_util.h,
 * shared with test_payout_btc.c.
 *
 * Fees: the scripted history's next base fee is 1.5 gwei and its rewards'
 * median 2 gwei, so with the default floor (1 gwei) and cap (100 gwei) a
 * new transaction offers a 2 gwei tip and a 5 gwei fee cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "amount.h"
#include "dealer_key.h"
#include "evm_tx.h"
#include "hex.h"
#include "http_fake.h"
#include "keccak.h"
#include "payer_util.h"
#include "payout_evm.h"
#include "say.h"
#include "store.h"

#define MAX_SENT 160
#define MAX_RCPT 128
#define MAX_EST  16

#define CHAIN_ID 31337
#define DEALER   "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
#define DEALER_KEY                                                             \
	"0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
/* anvil's account 1: the key of another address. */
#define OTHER_KEY                                                              \
	"0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
#define R1 "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
#define R2 "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"

#define GWEI    1000000000ull
#define TIP     (2 * GWEI)
#define MAX_FEE (5 * GWEI) /* 2 * 1.5 gwei + the tip */
#define CAP     (100 * GWEI)

#define FEE_HISTORY                                                            \
	"{\"oldestBlock\":\"0x5\",\"baseFeePerGas\":[\"0x3b9aca00\","          \
	"\"0x3b9aca00\",\"0x3b9aca00\",\"0x3b9aca00\",\"0x3b9aca00\","         \
	"\"0x59682f00\"],\"gasUsedRatio\":[0.5,0.5,0.5,0.5,0.5],"              \
	"\"reward\":[[\"0x77359400\"],[\"0x3b9aca00\"],[\"0xb2d05e00\"],"      \
	"[\"0x1dcd6500\"],[\"0xee6b2800\"]]}"
#define BALANCE "\"0x3635c9adc5dea00000\"" /* 1000 ETH */

/* ------------------------------------------------------------------ */
/* The node                                                            */

/* One eth_sendRawTransaction the node received. */
struct sent {
	uint8_t raw[HJ_EIP1559_RAW_MAX];
	size_t len;
	uint8_t hash[32]; /* keccak256 of raw */
};

/* What the node answers.  Results are JSON texts. */
static struct script {
	const char *chain_id;
	char latest[128], final[128], pending[128];
	const char *balance, *fee_history;
	const char *estimate;        /* every eth_estimateGas, */
	const char *estimate_to;     /* except for this recipient, */
	const char *estimate_to_res; /* which gets this result, */
	const char *estimate_to_err; /* or this JSON-RPC error */
	/* eth_sendRawTransaction: a JSON-RPC error with this message, or
	 * this result, or (both NULL) the transaction's own hash.  silent:
	 * no answer at all (and the loop stops). */
	const char *send_error, *send_result;
	int send_silent;
	/* ... except the transaction with nonce refuse_nonce, which gets a
	 * JSON-RPC error with message refuse_error (when not NULL). */
	const char *refuse_error;
	uint64_t refuse_nonce;
	/* The next fault_n requests whose method (the first element's, for
	 * a batch) is fault_method get HTTP fault_status and fault_body. */
	const char *fault_method;
	unsigned fault_n;
	int fault_status;
	const char *fault_body;
	/* Receipts by transaction hash; other hashes answer null. */
	size_t nrcpt;
	uint8_t rcpt_hash[MAX_RCPT][32];
	char rcpt[MAX_RCPT][512];
} S;

/* What the node received. */
static struct seen {
	unsigned requests, chain_id, views, estimates, sends, receipt_batches,
	    receipts, unknown, faults;
	size_t view_size;    /* elements of the last view batch */
	char final_tag[64];  /* the block of the "final" nonce query */
	char fee_params[64]; /* eth_feeHistory's params, compact JSON */
	size_t nest;
	char est[MAX_EST][256]; /* eth_estimateGas params, compact JSON */
	size_t nsent;
	struct sent sent[MAX_SENT];
} N;

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v;

	if (text == NULL)
		return json_null();
	v = json_loads(text, JSON_DECODE_ANY, &e);
	if (v == NULL)
		fail_msg("script: not JSON: %s (%s)", text, e.text);
	return v;
}

static json_t *answer_result(json_t *id, const char *text)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id,
	                 "result", parse(text));
}

static json_t *answer_error(json_t *id, const char *msg)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id,
	                 "error", "code", -32000, "message", msg);
}

static void hexs(const uint8_t *b, size_t n, char *out)
{
	hj_hex_encode(b, n, 0, out);
}

/* The transaction in params[0]: recorded; its hash into hash. */
static void record_send(json_t *params, uint8_t hash[32])
{
	json_t *h = json_array_get(params, 0);
	struct sent *s;

	assert_true(json_is_string(h));
	assert_true(N.nsent < MAX_SENT);
	s = &N.sent[N.nsent++];
	assert_int_equal(hj_hex_decode(json_string_value(h),
	                               json_string_length(h), HJ_HEX_REQUIRED,
	                               s->raw, sizeof s->raw, &s->len, NULL, 0),
	                 0);
	hj_keccak256(s->raw, s->len, s->hash);
	memcpy(hash, s->hash, 32);
}

static json_t *answer_send(json_t *id, json_t *params)
{
	uint8_t hash[32];
	char hex[67];

	N.sends++;
	record_send(params, hash);
	if (S.refuse_error) {
		const struct sent *s = &N.sent[N.nsent - 1];
		hj_eip1559_tx tx;

		assert_int_equal(
		    hj_eip1559_decode(s->raw, s->len, &tx, NULL, NULL, 0), 0);
		if (tx.nonce == S.refuse_nonce)
			return answer_error(id, S.refuse_error);
	}
	if (S.send_error)
		return answer_error(id, S.send_error);
	if (S.send_result)
		return answer_result(id, S.send_result);
	hj_hex_encode(hash, 32, 1, hex);
	return json_pack("{s:s, s:O, s:s}", "jsonrpc", "2.0", "id", id,
	                 "result", hex);
}

static json_t *answer_receipt(json_t *id, json_t *params)
{
	json_t *h = json_array_get(params, 0);
	uint8_t hash[32];

	N.receipts++;
	assert_true(json_is_string(h));
	assert_int_equal(
	    hj_hex_decode_exact(json_string_value(h), json_string_length(h),
	                        HJ_HEX_REQUIRED, hash, 32, NULL, 0),
	    0);
	for (size_t i = 0; i < S.nrcpt; i++)
		if (memcmp(S.rcpt_hash[i], hash, 32) == 0)
			return answer_result(id, S.rcpt[i]);
	return answer_result(id, NULL);
}

static json_t *answer_estimate(json_t *id, json_t *params)
{
	json_t *to = json_object_get(json_array_get(params, 0), "to");
	char *s = json_dumps(params, JSON_COMPACT);

	N.estimates++;
	assert_non_null(s);
	if (N.nest < MAX_EST)
		snprintf(N.est[N.nest++], sizeof N.est[0], "%s", s);
	free(s);
	if (S.estimate_to && json_is_string(to) &&
	    strcmp(json_string_value(to), S.estimate_to) == 0)
		return S.estimate_to_err ? answer_error(id, S.estimate_to_err)
		                         : answer_result(id, S.estimate_to_res);
	return answer_result(id, S.estimate);
}

static json_t *answer_count(json_t *id, json_t *params)
{
	const char *tag = json_string_value(json_array_get(params, 1));

	assert_non_null(tag);
	assert_string_equal(json_string_value(json_array_get(params, 0)),
	                    DEALER);
	if (strcmp(tag, "latest") == 0)
		return answer_result(id, S.latest);
	if (strcmp(tag, "pending") == 0)
		return answer_result(id, S.pending);
	snprintf(N.final_tag, sizeof N.final_tag, "%s", tag);
	return answer_result(id, S.final);
}

/* The answer to one request object. */
static json_t *answer(json_t *e)
{
	const char *m = json_string_value(json_object_get(e, "method"));
	json_t *id = json_object_get(e, "id"), *params, *out;

	params = json_object_get(e, "params");
	assert_non_null(m);
	if (strcmp(m, "eth_chainId") == 0) {
		N.chain_id++;
		out = answer_result(id, S.chain_id);
	} else if (strcmp(m, "eth_getTransactionCount") == 0) {
		out = answer_count(id, params);
	} else if (strcmp(m, "eth_getBalance") == 0) {
		out = answer_result(id, S.balance);
	} else if (strcmp(m, "eth_feeHistory") == 0) {
		char *s = json_dumps(params, JSON_COMPACT);

		snprintf(N.fee_params, sizeof N.fee_params, "%s", s);
		free(s);
		out = answer_result(id, S.fee_history);
	} else if (strcmp(m, "eth_estimateGas") == 0) {
		out = answer_estimate(id, params);
	} else if (strcmp(m, "eth_sendRawTransaction") == 0) {
		out = answer_send(id, params);
	} else if (strcmp(m, "eth_getTransactionReceipt") == 0) {
		out = answer_receipt(id, params);
	} else {
		N.unknown++;
		out = answer_error(id, "method not found");
	}
	assert_non_null(out);
	return out;
}

static uv_loop_t *node_loop;

static void h_node(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	json_t *first, *out;
	const char *m;
	char *body;

	(void)n;
	N.requests++;
	assert_non_null(r->json);
	first = json_is_array(r->json) ? json_array_get(r->json, 0) : r->json;
	m = json_string_value(json_object_get(first, "method"));
	assert_non_null(m);
	if (S.fault_n > 0 && strcmp(m, S.fault_method) == 0) {
		S.fault_n--;
		N.faults++;
		hf_reply(c, S.fault_status, NULL, S.fault_body);
		return;
	}
	if (S.send_silent && strcmp(m, "eth_sendRawTransaction") == 0) {
		uint8_t hash[32];

		N.sends++;
		record_send(json_object_get(r->json, "params"), hash);
		uv_stop(node_loop);
		return; /* never answered */
	}
	if (json_is_array(r->json)) {
		out = json_array();
		if (strcmp(m, "eth_getTransactionCount") == 0) {
			N.views++;
			N.view_size = json_array_size(r->json);
		} else if (strcmp(m, "eth_getTransactionReceipt") == 0) {
			N.receipt_batches++;
		}
		for (size_t i = 0; i < json_array_size(r->json); i++)
			json_array_append_new(
			    out, answer(json_array_get(r->json, i)));
	} else {
		out = answer(r->json);
	}
	body = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	assert_non_null(body);
	hf_reply(c, 200, NULL, body);
	free(body);
}

/* ---- the script ---- */

static void counts(uint64_t latest, uint64_t final, uint64_t pending)
{
	snprintf(S.latest, sizeof S.latest, "\"0x%llx\"",
	         (unsigned long long)latest);
	snprintf(S.final, sizeof S.final, "\"0x%llx\"",
	         (unsigned long long) final);
	snprintf(S.pending, sizeof S.pending, "\"0x%llx\"",
	         (unsigned long long)pending);
}

/* A successful (status 1) or failed receipt of hash in block. */
static void receipt(const uint8_t hash[32], uint64_t block, int status,
                    uint64_t gas, uint64_t price)
{
	char hex[67];

	assert_true(S.nrcpt < MAX_RCPT);
	memcpy(S.rcpt_hash[S.nrcpt], hash, 32);
	hj_hex_encode(hash, 32, 1, hex);
	snprintf(S.rcpt[S.nrcpt], sizeof S.rcpt[0],
	         "{\"transactionHash\":\"%s\",\"blockNumber\":\"0x%llx\","
	         "\"status\":\"0x%x\",\"gasUsed\":\"0x%llx\","
	         "\"effectiveGasPrice\":\"0x%llx\",\"from\":\"%s\"}",
	         hex, (unsigned long long)block, status,
	         (unsigned long long)gas, (unsigned long long)price, DEALER);
	S.nrcpt++;
}

/* The receipt of hash as given (JSON text). */
static void receipt_text(const uint8_t hash[32], const char *text)
{
	assert_true(S.nrcpt < MAX_RCPT);
	memcpy(S.rcpt_hash[S.nrcpt], hash, 32);
	snprintf(S.rcpt[S.nrcpt], sizeof S.rcpt[0], "%s", text);
	S.nrcpt++;
}

static void script_default(void)
{
	memset(&S, 0, sizeof S);
	S.chain_id = "\"0x7a69\"";
	counts(0, 0, 0);
	S.balance = BALANCE;
	S.fee_history = FEE_HISTORY;
	S.estimate = "\"0x5208\"";
}

/* ------------------------------------------------------------------ */
/* The fixture                                                         */

struct fx_opts {
	hj_amount cap, min_tip;
	unsigned stuck, conf;
};

static struct fx {
	struct payer_fx fx; /* the loop, the node, the store, the payer */
	char key[128];
	struct fx_opts o;
	hj_secp *secp;
} T;

static const hj_store_meta META = {
    .family = "evm",
    .chain = "evm:31337",
    .dealer = DEALER,
    .rules = "bethash min=1 max=1000000000000000000000000000000 timeout=6",
};

static void addr_of(const char *text, uint8_t out[HJ_EVM_ADDR_LEN])
{
	hj_dealer d;
	char err[HJ_ERRLEN];

	if (hj_dealer_parse(HJ_EVM, text, strlen(text), &d, err, sizeof err))
		fail_msg("%s: %s", text, err);
	memcpy(out, d.addr, HJ_EVM_ADDR_LEN);
}

static void expect_amount(hj_amount got, hj_amount want, const char *what)
{
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];

	if (got != want)
		fail_msg("%s: %s, want %s", what, hj_amount_format(got, a),
		         hj_amount_format(want, b));
}

/* ---- payouts owed ---- */

/* A rejected transaction from recipient (an address), refunded: payout id
 * owes amount to it, created at height. */
static void owe(const char *id, const char *recipient, hj_amount amount,
                uint64_t height)
{
	hj_id who = {.len = HJ_EVM_ADDR_LEN};

	addr_of(recipient, who.b);
	pfx_owe(&T.fx, id, &who, amount, height);
}

/* ---- the payer ---- */

static void write_key(const char *text, mode_t mode)
{
	int fd;

	unlink(T.key);
	fd = open(T.key, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(write(fd, "\n", 1), 1);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static int payer_new(char *err, size_t errlen)
{
	hjd_payer_opts o = pfx_payer_opts(&T.fx, T.o.conf);
	hjd_evm_payout po = {.key_source = T.key,
	                     .max_fee_per_gas = T.o.cap,
	                     .min_priority_fee = T.o.min_tip,
	                     .stuck_after_s = T.o.stuck};
	char why[HJ_ERRLEN];

	if (hj_dealer_parse(HJ_EVM, DEALER, strlen(DEALER), &T.fx.dealer, why,
	                    sizeof why))
		fail_msg("%s: %s", DEALER, why);
	return hjd_evm_payer_new(&o, &po, &T.fx.payer, err, errlen);
}

static const struct fx_opts DEFAULTS = {
    .cap = CAP, .min_tip = GWEI, .stuck = 300, .conf = 3};

/* The loop, the node, the store and a payer with o (NULL: defaults). */
static void fx_open(const struct fx_opts *o)
{
	char err[HJ_ERRLEN] = "";

	script_default();
	memset(&N, 0, sizeof N);
	T.o = o ? *o : DEFAULTS;
	pfx_open(&T.fx, h_node, &META);
	node_loop = &T.fx.loop;
	if (access(T.key, F_OK) != 0)
		write_key(DEALER_KEY, 0600);
	if (payer_new(err, sizeof err))
		fail_msg("hjd_evm_payer_new: %s", err);
}

/* Closes the payer, the node, the loop and the store. */
static void fx_close(void)
{
	pfx_close(&T.fx);
}

/* Blocks up to processed are committed, the node's tip is tip: one
 * kick, then passes passes (or until the node gets a request it leaves
 * unanswered, when the script says so). */
static void step(uint64_t processed, uint64_t tip, unsigned passes)
{
	pfx_step(&T.fx, processed, tip, passes);
	assert_int_equal(N.unknown, 0);
}
/* ---- what was sent ---- */

/* Sent transaction k decodes to the dealer's transfer of value to to,
 * with nonce, gas limit and fees as given. */
static void check_tx(size_t k, uint64_t nonce, const char *to, hj_amount value,
                     uint64_t gas, hj_amount tip, hj_amount max_fee)
{
	const struct sent *s;
	hj_eip1559_tx tx;
	uint8_t from[20], want[20];
	char err[HJ_ERRLEN] = "";

	assert_true(k < N.nsent);
	s = &N.sent[k];
	if (hj_eip1559_recover(T.secp, s->raw, s->len, &tx, from, err,
	                       sizeof err))
		fail_msg("sent %zu: %s", k, err);
	addr_of(DEALER, want);
	assert_memory_equal(from, want, 20);
	addr_of(to, want);
	assert_memory_equal(tx.to, want, 20);
	assert_int_equal(tx.chain_id, CHAIN_ID);
	assert_int_equal(tx.nonce, nonce);
	assert_int_equal(tx.gas_limit, gas);
	assert_int_equal(tx.data_len, 0);
	expect_amount(tx.value, value, "value");
	expect_amount(tx.max_priority_fee_per_gas, tip, "tip");
	expect_amount(tx.max_fee_per_gas, max_fee, "max fee");
}

static hj_eip1559_tx decoded(size_t k)
{
	hj_eip1559_tx tx;
	uint8_t from[20];
	char err[HJ_ERRLEN] = "";

	assert_true(k < N.nsent);
	if (hj_eip1559_recover(T.secp, N.sent[k].raw, N.sent[k].len, &tx, from,
	                       err, sizeof err))
		fail_msg("sent %zu: %s", k, err);
	return tx;
}

static const char *hash_of(size_t k)
{
	static char buf[4][65];
	static unsigned i;
	char *h = buf[i++ % 4];

	assert_true(k < N.nsent);
	hexs(N.sent[k].hash, 32, h);
	return h;
}

static const char *raw_of(size_t k)
{
	static char buf[2][2 * HJ_EIP1559_RAW_MAX + 1];
	static unsigned i;
	char *h = buf[i++ % 2];

	assert_true(k < N.nsent);
	hexs(N.sent[k].raw, N.sent[k].len, h);
	return h;
}

static void same_bytes(size_t a, size_t b)
{
	assert_true(a < N.nsent && b < N.nsent);
	assert_int_equal(N.sent[a].len, N.sent[b].len);
	assert_memory_equal(N.sent[a].raw, N.sent[b].raw, N.sent[a].len);
}

/* Batch id is in state with nonce; every payout it holds is in pstate. */
static void expect_batch(int id, const char *state, int nonce,
                         const char *pstate)
{
	char want[64];

	EXPECT_Q(state, "SELECT state FROM payout_batches WHERE id = %d", id);
	snprintf(want, sizeof want, "%d", nonce);
	EXPECT_Q(want, "SELECT nonce FROM payout_batches WHERE id = %d", id);
	EXPECT_Q("0",
	         "SELECT count(*) FROM payouts p JOIN payout_batch_items i ON "
	         "i.payout = p.id WHERE i.batch = %d AND p.state <> '%s'",
	         id, pstate);
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */

static int setup(void **state)
{
	char err[HJ_ERRLEN];

	(void)state;
	memset(&T, 0, sizeof T);
	if (pfx_setup(&T.fx, "payout-evm"))
		return -1;
	snprintf(T.key, sizeof T.key, "%s/dealer.key", T.fx.dir);
	return hj_secp_new(&T.secp, err, sizeof err) != 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	hj_secp_free(T.secp);
	return pfx_teardown(&T.fx);
}

/* ------------------------------------------------------------------ */
/* 1. Paid, mined, confirmed                                           */

/* Two recipients owed: two transactions in one pass, nonces 0 and 1, each
 * the dealer's transfer of all that is owed to its recipient with the
 * documented fees; mined but not final: nothing moves; final with status
 * 1: confirmed with their cost. */
static void test_happy_path(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:a2", R1, 250, 5);
	owe("refund:b1", R2, 4000, 6);
	S.estimate_to = R2;
	S.estimate_to_res = "\"0x7530\""; /* 30000: gets 20 % more */

	step(10, 10, 1);
	assert_int_equal(N.chain_id, 1);
	assert_int_equal(N.views, 1);
	assert_int_equal(N.view_size, 5);
	assert_string_equal(N.final_tag, "0x8"); /* tip 10, 3 confirmations */
	assert_string_equal(N.fee_params, "[\"0x5\",\"latest\",[50]]");
	assert_int_equal(N.estimates, 2);
	assert_string_equal(N.est[0], "[{\"from\":\"" DEALER "\",\"to\":\"" R1
	                              "\",\"value\":\"0x15e\"}]");
	assert_int_equal(N.sends, 2);
	check_tx(0, 0, R1, 350, 21000, TIP, MAX_FEE);
	check_tx(1, 1, R2, 4000, 36000, TIP, MAX_FEE);

	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 2);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q(hash_of(1),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 2");
	EXPECT_Q("350|21000|10|10",
	         "SELECT total || '|' || gas_limit || '|' || created_height || "
	         "'|' || sent_height FROM payout_batches WHERE id = 1");
	EXPECT_Q(
	    "4000|36000",
	    "SELECT total || '|' || gas_limit FROM payout_batches WHERE id "
	    "= 2");
	EXPECT_Q(R1 "|350",
	         "SELECT address || '|' || amount FROM payout_batch_outputs "
	         "WHERE batch = 1");
	EXPECT_Q("refund:a1 refund:a2",
	         "SELECT group_concat(payout, ' ') FROM (SELECT payout FROM "
	         "payout_batch_items WHERE batch = 1 ORDER BY payout)");
	EXPECT_Q("0", "SELECT group_concat(DISTINCT nonce) FROM payouts WHERE "
	              "id LIKE 'refund:a%%'");
	EXPECT_Q(hash_of(0), "SELECT group_concat(DISTINCT "
	                     "lower(hex(submitted_txid))) FROM payouts WHERE "
	                     "id LIKE 'refund:a%%'");
	EXPECT_Q("1", "SELECT nonce FROM payouts WHERE id = 'refund:b1'");
	/* Each version recorded: its bytes are what the node received. */
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	EXPECT_Q(raw_of(0),
	         "SELECT lower(hex(raw)) FROM payout_tx_versions WHERE batch = "
	         "1");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(hash)) FROM payout_tx_versions WHERE batch "
	         "= 1");
	EXPECT_Q("5000000000|2000000000|1",
	         "SELECT max_fee || '|' || priority_fee || '|' || seq FROM "
	         "payout_tx_versions WHERE batch = 1");
	EXPECT_Q(raw_of(1),
	         "SELECT lower(hex(raw)) FROM payout_tx_versions WHERE batch = "
	         "2");
	expect_contains(T.fx.status, "payouts: 0 owed");
	expect_contains(T.fx.status, "3 in flight (4350)");
	expect_lacks(T.fx.status, "INSUFFICIENT");

	/* Mined, not final: waits; nothing re-sent, no receipts asked. */
	counts(2, 0, 2);
	step(11, 11, 1);
	assert_int_equal(N.sends, 2);
	assert_int_equal(N.receipts, 0);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");

	/* Final: confirmed, with the gas used and the fee. */
	counts(2, 2, 2);
	receipt(N.sent[0].hash, 7, 1, 21000, 2500000000u);
	receipt(N.sent[1].hash, 8, 1, 30000, 2500000000u);
	step(12, 12, 1);
	assert_string_equal(N.final_tag, "0xa");
	assert_int_equal(N.receipts, 2);
	assert_int_equal(N.sends, 2);
	assert_int_equal(N.estimates, 2);
	assert_int_equal(N.chain_id, 1); /* once per process */
	expect_batch(1, "confirmed", 0, "confirmed");
	expect_batch(2, "confirmed", 1, "confirmed");
	EXPECT_Q(
	    "7|21000|52500000000000",
	    "SELECT confirmed_height || '|' || gas_used || '|' || fee FROM "
	    "payout_batches WHERE id = 1");
	EXPECT_Q(
	    "8|30000|75000000000000",
	    "SELECT confirmed_height || '|' || gas_used || '|' || fee FROM "
	    "payout_batches WHERE id = 2");
	EXPECT_Q("7", "SELECT group_concat(DISTINCT confirmed_height) FROM "
	              "payouts WHERE id LIKE 'refund:a%%'");
	expect_contains(T.fx.status, "0 owed (0 wei");
	expect_contains(T.fx.status, "0 in flight");

	/* Nothing left: a pass sends nothing. */
	step(13, 13, 1);
	assert_int_equal(N.sends, 2);
	assert_int_equal(N.estimates, 2);
	fx_close();
}

/* Another sender used the key: the account's pending count (5) is above
 * what this database used (none): the transactions continue at 5. */
static void test_pending_nonce_higher(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:b1", R2, 4000, 6);
	counts(5, 5, 5);
	step(10, 10, 1);
	assert_int_equal(N.sends, 2);
	check_tx(0, 5, R1, 100, 21000, TIP, MAX_FEE);
	check_tx(1, 6, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(1, "sent", 5, "submitted");
	expect_batch(2, "sent", 6, "submitted");
	assert_true(log_has("another program sends from the dealer key; "
	                    "continuing at 5"));
	fx_close();
}

/* The tip is the median reward, at least the floor; the fee cap twice the
 * next base fee plus the tip; both within max_fee_per_gas. */
static void test_fee_rules(void **state)
{
	struct fx_opts o = {
	    .cap = CAP, .min_tip = 3 * GWEI, .stuck = 300, .conf = 3};

	(void)state;
	/* The floor above the median (2 gwei): 3 gwei, cap 3 + 3. */
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	check_tx(0, 0, R1, 100, 21000, 3 * GWEI, 6 * GWEI);
	fx_close();

	/* The cap below 2 * base + tip: the cap. */
	pfx_use_db(&T.fx, "cap.sqlite");
	o.min_tip = GWEI;
	o.cap = 4 * GWEI;
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	check_tx(0, 0, R1, 100, 21000, TIP, 4 * GWEI);
	fx_close();

	/* The cap below the tip too: both at the cap. */
	pfx_use_db(&T.fx, "cap2.sqlite");
	o.cap = GWEI;
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	check_tx(0, 0, R1, 100, 21000, GWEI, GWEI);
	fx_close();
}

/* The nonce is final but the receipt's block is above the final height
 * (the chain moved since the view was read): nothing decided yet; once
 * that block is final, confirmed. */
static void test_receipt_above_final(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	counts(1, 1, 1);
	receipt(N.sent[0].hash, 11, 1, 21000, 2000000000u);
	step(12, 12, 1); /* final height 10 */
	assert_int_equal(N.receipts, 1);
	expect_batch(1, "sent", 0, "submitted");
	step(14, 14, 1); /* final height 12 */
	expect_batch(1, "confirmed", 0, "confirmed");
	EXPECT_Q("11", "SELECT confirmed_height FROM payout_batches WHERE id = "
	               "1");
	assert_int_equal(N.sends, 1);
	fx_close();
}

/* [chain] confirmations = finalized (or safe): each kick's final height
 * is the node's own block, whatever its depth: the final nonce is read
 * there and a receipt counts only up to it, never at tip - confirmations
 * + 1 (here 3 confirmations would call everything below the tip final). */
static void test_final_from_node(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	pfx_step_final(&T.fx, 10, 10, 4, 1);
	assert_string_equal(N.final_tag, "0x4");
	assert_int_equal(N.sends, 1);
	/* Mined in block 8, the tip far above; the node's finalized block
	 * is 7: not final, no receipt asked. */
	counts(1, 0, 1);
	receipt(N.sent[0].hash, 8, 1, 21000, 2000000000u);
	pfx_step_final(&T.fx, 40, 40, 7, 1);
	assert_string_equal(N.final_tag, "0x7");
	assert_int_equal(N.receipts, 0);
	expect_batch(1, "sent", 0, "submitted");
	/* A node whose count says final while its block 8 is not: the
	 * receipt is above the final height, nothing decided. */
	counts(1, 1, 1);
	pfx_step_final(&T.fx, 41, 41, 7, 1);
	assert_int_equal(N.receipts, 1);
	expect_batch(1, "sent", 0, "submitted");
	/* The finalized block reaches 8: confirmed there. */
	pfx_step_final(&T.fx, 42, 42, 8, 1);
	assert_string_equal(N.final_tag, "0x8");
	expect_batch(1, "confirmed", 0, "confirmed");
	EXPECT_Q("8", "SELECT confirmed_height FROM payout_batches WHERE id = "
	              "1");
	assert_int_equal(N.sends, 1);
	assert_int_equal(N.unknown, 0);
	fx_close();
}

/* The node estimates no gas for the oldest recipient (a contract that
 * refuses plain transfers): it is skipped with a warning, its payouts stay
 * owed in no batch; the next recipient is paid under nonce 0. */
static void test_no_gas_estimate(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:b1", R2, 4000, 6);
	S.estimate_to = R1;
	S.estimate_to_err = "execution reverted";
	step(10, 10, 1);
	assert_int_equal(N.estimates, 2);
	assert_int_equal(N.sends, 1);
	check_tx(0, 0, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(1, "sent", 0, "submitted");
	EXPECT_Q("owed", "SELECT state FROM payouts WHERE id = 'refund:a1'");
	EXPECT_Q("0", "SELECT count(*) FROM payout_batch_items WHERE payout = "
	              "'refund:a1'");
	assert_true(log_has("the node estimates no gas for the transfer"));

	/* Tried again at the next pass; paid once the estimate works. */
	S.estimate_to = NULL;
	step(11, 11, 1);
	assert_int_equal(N.sends, 2);
	check_tx(1, 1, R1, 100, 21000, TIP, MAX_FEE);
	expect_batch(2, "sent", 1, "submitted");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 2. Refused for funds                                                */

#define NO_FUNDS                                                               \
	"Insufficient funds for gas * price + value: balance 0, tx cost "      \
	"105000000000350, overshot 105000000000350"

/* The node refuses the first transaction: it stays planned with the
 * node's message, its payouts owed; nothing else is planned; the status
 * says INSUFFICIENT FUNDS.  Not again in the same block (backoff); at the
 * next block the same bytes again, accepted; then the next recipient. */
static void test_refused_for_funds(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:a2", R1, 250, 5);
	owe("refund:b1", R2, 4000, 6);
	S.send_error = NO_FUNDS;

	step(10, 10, 1);
	assert_int_equal(N.sends, 1);
	assert_int_equal(N.estimates, 1);
	check_tx(0, 0, R1, 350, 21000, TIP, MAX_FEE);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	expect_batch(1, "planned", 0, "owed");
	EXPECT_Q("1", "SELECT attempts FROM payout_batches WHERE id = 1");
	EXPECT_Q(NO_FUNDS,
	         "SELECT last_error FROM payout_batches WHERE id = 1");
	EXPECT_Q("2", "SELECT count(*) FROM payouts WHERE state = 'owed' AND "
	              "last_error LIKE '%%insufficient funds for gas * price "
	              "+ value%%' AND id LIKE 'refund:a%%'");
	EXPECT_Q("owed|NULL|NULL",
	         "SELECT state || '|' || ifnull(last_error, 'NULL') || '|' || "
	         "ifnull(nonce, 'NULL') FROM payouts WHERE id = 'refund:b1'");
	EXPECT_Q("0", "SELECT count(*) FROM payout_batch_items WHERE payout = "
	              "'refund:b1'");
	expect_contains(T.fx.status, "INSUFFICIENT FUNDS");
	assert_true(log_has("the node refused"));

	/* The same block: backoff, nothing sent. */
	step(10, 10, 1);
	assert_int_equal(N.sends, 1);
	assert_int_equal(N.estimates, 1);
	expect_batch(1, "planned", 0, "owed");
	expect_contains(T.fx.status, "INSUFFICIENT FUNDS");

	/* Funds arrived; the next block: the same transaction again. */
	S.send_error = NULL;
	step(11, 11, 1);
	assert_int_equal(N.sends, 3);
	same_bytes(0, 1);
	check_tx(2, 1, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");
	EXPECT_Q(hash_of(1),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q("NULL", "SELECT ifnull(last_error, 'NULL') FROM "
	                 "payout_batches WHERE id = 1");
	EXPECT_Q("0", "SELECT count(*) FROM payouts WHERE last_error IS NOT "
	              "NULL");
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	expect_lacks(T.fx.status, "INSUFFICIENT");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 3. "already known", "nonce too low"                                 */

static void test_already_known(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:b1", R2, 4000, 6);
	S.send_error = "already known";
	step(10, 10, 1);
	assert_int_equal(N.sends, 2);
	check_tx(0, 0, R1, 100, 21000, TIP, MAX_FEE);
	check_tx(1, 1, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	fx_close();
}

/* "nonce too low": the batch stays as it is (planned, payouts owed, no
 * error on them), nothing else is planned; mined and not final: wait;
 * final with its receipt: confirmed, then the next recipient. */
static void test_nonce_too_low(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:b1", R2, 4000, 6);
	S.send_error = "nonce too low: next nonce 1, tx nonce 0";
	step(10, 10, 1);
	assert_int_equal(N.sends, 1);
	assert_int_equal(N.estimates, 1);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	expect_batch(1, "planned", 0, "owed");
	EXPECT_Q("0", "SELECT attempts FROM payout_batches WHERE id = 1");
	EXPECT_Q("0", "SELECT count(*) FROM payouts WHERE last_error IS NOT "
	              "NULL");

	/* Mined (latest count 1), not final. */
	S.send_error = NULL;
	counts(1, 0, 1);
	step(11, 11, 1);
	assert_int_equal(N.sends, 1);
	assert_int_equal(N.estimates, 1);
	assert_int_equal(N.receipts, 0);
	expect_batch(1, "planned", 0, "owed");

	/* Final, its receipt in block 9 (final height 10). */
	counts(1, 1, 1);
	receipt(N.sent[0].hash, 9, 1, 21000, 2000000000u);
	step(12, 12, 1);
	assert_int_equal(N.receipts, 1);
	expect_batch(1, "confirmed", 0, "confirmed");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q(
	    "9|21000|42000000000000",
	    "SELECT confirmed_height || '|' || gas_used || '|' || fee FROM "
	    "payout_batches WHERE id = 1");
	assert_int_equal(N.sends, 2);
	check_tx(1, 1, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(2, "sent", 1, "submitted");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 4. Another transaction took the nonce                               */

/* Sent, then the nonce is final with no receipt for its version: reverted,
 * its payouts owed again and paid under a new nonce. */
static void test_foreign_nonce_sent(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:a2", R1, 250, 5);
	step(10, 10, 1);
	expect_batch(1, "sent", 0, "submitted");

	counts(1, 1, 1); /* someone else's transaction: no receipt of ours */
	step(11, 11, 1);
	assert_int_equal(N.receipts, 1);
	EXPECT_Q("reverted", "SELECT state FROM payout_batches WHERE id = 1");
	EXPECT_Q("1", "SELECT count(*) FROM payout_batches WHERE id = 1 AND "
	              "last_error LIKE '%%did not sign%%'");
	assert_true(log_has("its payouts are owed again"));
	/* Paid again at once, under nonce 1, the same value. */
	assert_int_equal(N.sends, 2);
	check_tx(1, 1, R1, 350, 21000, TIP, MAX_FEE);
	expect_batch(2, "sent", 1, "submitted");
	EXPECT_Q("refund:a1 refund:a2",
	         "SELECT group_concat(payout, ' ') FROM (SELECT payout FROM "
	         "payout_batch_items WHERE batch = 2 ORDER BY payout)");
	EXPECT_Q("1", "SELECT group_concat(DISTINCT nonce) FROM payouts");

	/* The reverted one stays reverted; the new one confirms. */
	counts(2, 2, 2);
	receipt(N.sent[1].hash, 10, 1, 21000, 2000000000u);
	step(13, 13, 1);
	EXPECT_Q("reverted", "SELECT state FROM payout_batches WHERE id = 1");
	expect_batch(2, "confirmed", 1, "confirmed");
	assert_int_equal(N.sends, 2);
	fx_close();
}

/* A node whose counts do not grow from the final block to the latest to
 * pending cannot say which nonces are final: nothing is reverted (its
 * transaction may still be mined) and nothing new is sent until it can. */
static void test_inconsistent_counts(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	expect_batch(1, "sent", 0, "submitted");
	owe("refund:b1", R2, 300, 11);
	counts(0, 1, 1); /* final above latest */
	step(11, 11, 1);
	counts(1, 1, 0); /* latest above pending */
	step(12, 12, 1);
	assert_int_equal(N.receipts, 0);
	assert_int_equal(N.sends, 1);
	expect_batch(1, "sent", 0, "submitted");
	assert_true(log_has("do not grow in that order"));
	/* Sane again: the second recipient is paid. */
	counts(0, 0, 1);
	step(13, 13, 1);
	assert_int_equal(N.sends, 2);
	fx_close();
}

/* Never accepted ("nonce too low"), and the nonce final with no receipt of
 * ours: refused, its payouts free, paid under a new nonce. */
static void test_foreign_nonce_planned(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	S.send_error = "nonce too low: next nonce 1, tx nonce 0";
	step(10, 10, 1);
	expect_batch(1, "planned", 0, "owed");

	S.send_error = NULL;
	counts(1, 1, 1);
	step(11, 11, 1);
	EXPECT_Q("refused", "SELECT state FROM payout_batches WHERE id = 1");
	assert_int_equal(N.sends, 2);
	check_tx(1, 1, R1, 100, 21000, TIP, MAX_FEE);
	expect_batch(2, "sent", 1, "submitted");
	fx_close();
}

/* A transfer mined with status 0 (the recipient refused it): reverted,
 * owed again, paid again under a new nonce. */
static void test_failed_transfer(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	counts(1, 1, 1);
	receipt(N.sent[0].hash, 9, 0, 21000, 2000000000u);
	step(12, 12, 1);
	EXPECT_Q("reverted", "SELECT state FROM payout_batches WHERE id = 1");
	EXPECT_Q("1", "SELECT count(*) FROM payout_batches WHERE id = 1 AND "
	              "last_error LIKE '%%failed in block 9%%'");
	assert_int_equal(N.sends, 2);
	check_tx(1, 1, R1, 100, 21000, TIP, MAX_FEE);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 5. Stuck                                                            */

/* Every version signed two minutes earlier (stuck_after is 60 s). */
static void age_versions(void)
{
	q_exec("UPDATE payout_tx_versions SET signed_at = signed_at - 120");
}

/* Unmined past stuck_after: a second version, same nonce, recipient,
 * value and gas, both fees up by at least 1/8, recorded and sent; the
 * batch names it.  Then the first version is the one mined: confirmed
 * under it. */
static void test_stuck_replaced(void **state)
{
	struct fx_opts o = {
	    .cap = CAP, .min_tip = GWEI, .stuck = 60, .conf = 3};
	hj_eip1559_tx a, b;

	(void)state;
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	assert_int_equal(N.sends, 1);

	/* Not yet stuck: nothing. */
	step(11, 11, 1);
	assert_int_equal(N.sends, 1);

	age_versions();
	counts(0, 0, 1);
	step(12, 12, 1);
	assert_int_equal(N.sends, 2);
	a = decoded(0);
	b = decoded(1);
	assert_int_equal(b.nonce, a.nonce);
	assert_memory_equal(b.to, a.to, 20);
	expect_amount(b.value, a.value, "value");
	assert_int_equal(b.gas_limit, a.gas_limit);
	assert_true(b.max_fee_per_gas >= a.max_fee_per_gas * 9 / 8);
	assert_true(b.max_priority_fee_per_gas >=
	            a.max_priority_fee_per_gas * 9 / 8);
	assert_true(b.max_fee_per_gas <= CAP);
	assert_true(log_has("replaced with higher fees"));
	EXPECT_Q("2",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	EXPECT_Q(hash_of(1), "SELECT lower(hex(hash)) FROM payout_tx_versions "
	                     "WHERE batch = 1 AND seq = 2");
	EXPECT_Q(raw_of(1), "SELECT lower(hex(raw)) FROM payout_tx_versions "
	                    "WHERE batch = 1 AND seq = 2");
	expect_batch(1, "sent", 0, "submitted");
	EXPECT_Q(hash_of(1),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q(hash_of(1),
	         "SELECT lower(hex(submitted_txid)) FROM payouts WHERE id = "
	         "'refund:a1'");

	/* The replacement is new: not replaced again. */
	step(13, 13, 1);
	assert_int_equal(N.sends, 2);

	/* The first version was mined after all. */
	counts(1, 1, 1);
	receipt(N.sent[0].hash, 11, 1, 21000, 2000000000u);
	step(14, 14, 1);
	expect_batch(1, "confirmed", 0, "confirmed");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q("11", "SELECT confirmed_height FROM payout_batches WHERE id = "
	               "1");
	assert_int_equal(N.sends, 2);
	fx_close();
}

/* At the cap already: sent again unchanged, with a warning. */
static void test_stuck_at_cap(void **state)
{
	struct fx_opts o = {
	    .cap = MAX_FEE, .min_tip = GWEI, .stuck = 60, .conf = 3};

	(void)state;
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	check_tx(0, 0, R1, 100, 21000, TIP, MAX_FEE);
	age_versions();
	counts(0, 0, 1);
	step(11, 11, 1);
	assert_int_equal(N.sends, 2);
	same_bytes(0, 1);
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	assert_true(log_has("its fees are at max_fee_per_gas already"));
	expect_batch(1, "sent", 0, "submitted");
	fx_close();
}

/* Near the cap: the replacement's fee cap is max_fee_per_gas, never above;
 * the node refuses it as underpriced: the version it replaces stays the
 * batch's, in flight. */
static void test_stuck_near_cap_refused(void **state)
{
	struct fx_opts o = {.cap = MAX_FEE + GWEI / 10,
	                    .min_tip = GWEI,
	                    .stuck = 60,
	                    .conf = 3};
	hj_eip1559_tx b;

	(void)state;
	fx_open(&o);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	age_versions();
	S.send_error = "replacement transaction underpriced";
	step(11, 11, 1);
	assert_int_equal(N.sends, 2);
	b = decoded(1);
	expect_amount(b.max_fee_per_gas, MAX_FEE + GWEI / 10, "max fee");
	expect_batch(1, "sent", 0, "submitted");
	EXPECT_Q(hash_of(0),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 1");
	EXPECT_Q("2",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 6. Malformed answers                                                */

/* Nothing moved since the first pass of the malformed tests: batch 1 sent
 * (nonce 0, R1), R2's payout owed in no batch, nothing more sent. */
static void expect_unmoved(unsigned sends, unsigned estimates)
{
	assert_int_equal(N.sends, sends);
	assert_int_equal(N.estimates, estimates);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	expect_batch(1, "sent", 0, "submitted");
	EXPECT_Q("owed", "SELECT state FROM payouts WHERE id = 'refund:b1'");
	EXPECT_Q("0", "SELECT count(*) FROM payout_batch_items WHERE payout = "
	              "'refund:b1'");
	expect_lacks(T.fx.status, "HALTED");
}

/* R1 paid (batch 1 sent, nonce 0), R2 owed, the nonce final and its
 * receipt there: a good pass would confirm batch 1 and pay R2. */
static void malformed_start(void)
{
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	step(10, 10, 1);
	assert_int_equal(N.sends, 1);
	owe("refund:b1", R2, 4000, 11);
	counts(1, 1, 1);
	receipt(N.sent[0].hash, 9, 1, 21000, 2000000000u);
}

/* The good pass that follows: batch 1 confirmed, R2 paid under nonce 1. */
static void malformed_end(uint64_t height)
{
	unsigned sends = N.sends;

	step(height, height, 1);
	expect_batch(1, "confirmed", 0, "confirmed");
	assert_int_equal(N.sends, sends + 1);
	check_tx(N.nsent - 1, 1, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(2, "sent", 1, "submitted");
	fx_close();
}

/* The view's quantities: not strings, negative, too long, not hex. */
static void test_malformed_view(void **state)
{
	static const struct {
		int field; /* 0 latest, 1 final, 2 pending, 3 balance */
		const char *text;
	} bad[] = {
	    {0, "1"},
	    {0, "\"0x\""},
	    {1, "\"-0x1\""},
	    {1, "null"},
	    {1, "{\"n\":\"0x1\"}"},
	    {2, "\"0x10000000000000000\""}, /* 2^64 */
	    {2, "\"0X1\""},
	    {3, "\"0x100000000000000000000000000000000\""}, /* 2^128 */
	    {3, "\"1000\""},
	    {3, "\"0xg1\""},
	    {3, "1e21"},
	};
	uint64_t h = 11;

	(void)state;
	malformed_start();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f[3] = {S.latest, S.final, S.pending};

		if (bad[i].field < 3)
			snprintf(f[bad[i].field], sizeof S.latest, "%s",
			         bad[i].text);
		else
			S.balance = bad[i].text;
		step(h, h, 1);
		h++;
		assert_int_equal(N.receipts, 0);
		expect_unmoved(1, 1);
		counts(1, 1, 1);
		S.balance = BALANCE;
	}
	/* Not a fee history at all. */
	S.fee_history = "[\"0x1\"]";
	step(h, h, 1);
	h++;
	expect_unmoved(1, 1);
	S.fee_history = FEE_HISTORY;
	malformed_end(h);
}

/* eth_chainId not a quantity: no pass goes further until it is one. */
static void test_malformed_chain_id(void **state)
{
	static const char *const bad[] = {"31337", "\"0x\"", "\"-0x7a69\"",
	                                  "null", "\"0x10000000000000000\""};
	uint64_t h = 10;

	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		S.chain_id = bad[i];
		step(h, h, 1);
		h++;
		assert_int_equal(N.chain_id, i + 1);
		assert_int_equal(N.views, 0);
		assert_int_equal(N.sends, 0);
		assert_int_equal(q_int("SELECT count(*) FROM payout_batches"),
		                 0);
	}
	S.chain_id = "\"0x7a69\"";
	step(h, h, 1);
	assert_int_equal(N.sends, 1);
	check_tx(0, 0, R1, 100, 21000, TIP, MAX_FEE);
	fx_close();
}

/* eth_estimateGas not a gas amount: nothing planned. */
static void test_malformed_estimate(void **state)
{
	static const char *const bad[] = {
	    "21000",
	    "\"0x0\"",
	    "\"-0x5208\"",
	    "null",
	    "\"0x1000000000\"", /* above any block's gas */
	    "\"0x10000000000000000\""};
	uint64_t h = 11;

	(void)state;
	malformed_start();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		S.estimate = bad[i];
		step(h, h, 1);
		h++;
		/* The receipt confirms batch 1 first: that is fine. */
		assert_int_equal(N.sends, 1);
		assert_int_equal(N.estimates, i + 2);
		assert_int_equal(q_int("SELECT count(*) FROM payout_batches"),
		                 1);
		EXPECT_Q("0", "SELECT count(*) FROM payout_batch_items WHERE "
		              "payout = 'refund:b1'");
	}
	S.estimate = "\"0x5208\"";
	malformed_end(h);
}

/* A receipt without one of its fields, or with a field that is not a
 * quantity: nothing decided, the batch stays sent. */
static void test_malformed_receipt(void **state)
{
	static const char *const bad[] = {
	    "{\"blockNumber\":\"0x9\",\"status\":\"0x1\",\"gasUsed\":"
	    "\"0x5208\"}",
	    "{\"blockNumber\":\"0x9\",\"gasUsed\":\"0x5208\","
	    "\"effectiveGasPrice\":\"0x1\"}",
	    "{\"status\":\"0x1\",\"gasUsed\":\"0x5208\","
	    "\"effectiveGasPrice\":\"0x1\"}",
	    "{\"blockNumber\":9,\"status\":\"0x1\",\"gasUsed\":\"0x5208\","
	    "\"effectiveGasPrice\":\"0x1\"}",
	    "{\"blockNumber\":\"0x9\",\"status\":\"-0x1\",\"gasUsed\":"
	    "\"0x5208\",\"effectiveGasPrice\":\"0x1\"}",
	    "{\"blockNumber\":\"0x9\",\"status\":\"0x1\",\"gasUsed\":"
	    "\"0x5208\",\"effectiveGasPrice\":"
	    "\"0x1000000000000000000000000000000000\"}",
	    "\"0x1\"",
	    "[]",
	};
	uint64_t h = 11;

	(void)state;
	malformed_start();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		S.nrcpt = 0;
		receipt_text(N.sent[0].hash, bad[i]);
		step(h, h, 1);
		h++;
		assert_int_equal(N.receipts, i + 1);
		expect_unmoved(1, 1);
	}
	S.nrcpt = 0;
	receipt(N.sent[0].hash, 9, 1, 21000, 2000000000u);
	malformed_end(h);
}

/* The node answers eth_sendRawTransaction with another hash (or with no
 * hash): PAYOUTS HALTED, the batch stays planned, nothing more is sent. */
static void test_other_hash(void **state)
{
	static const char *const bad[] = {"\"0xabababababababababababababababab"
	                                  "abababababababababababababababab"
	                                  "\"",
	                                  "\"0x1234\"", "null", "42", "{}"};
	char db[32];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(db, sizeof db, "halt%zu.sqlite", i);
		pfx_use_db(&T.fx, db);
		T.fx.txseq = 0;
		fx_open(NULL);
		owe("refund:a1", R1, 100, 5);
		owe("refund:b1", R2, 4000, 6);
		S.send_result = bad[i];
		step(10, 10, 1);
		assert_int_equal(N.sends, 1);
		assert_int_equal(N.estimates, 1);
		expect_contains(T.fx.status, "PAYOUTS HALTED");
		expect_batch(1, "planned", 0, "owed");

		/* Later blocks, a node that answers well: still nothing. */
		S.send_result = NULL;
		step(11, 11, 1);
		step(12, 12, 1);
		assert_int_equal(N.sends, 1);
		assert_int_equal(N.estimates, 1);
		expect_contains(T.fx.status, "PAYOUTS HALTED");
		expect_batch(1, "planned", 0, "owed");
		assert_int_equal(q_int("SELECT count(*) FROM payout_batches"),
		                 1);
		fx_close();
	}
}

/* HTTP 500 and bodies that are not JSON, on every kind of call: retried;
 * every payout paid once, under one nonce each. */
static void test_http_faults(void **state)
{
	(void)state;
	fx_open(NULL);
	S.fault_method = "eth_chainId";
	S.fault_n = 1;
	S.fault_status = 500;
	S.fault_body = "oops";
	step(10, 10, 1);
	assert_int_equal(S.fault_n, 0);

	owe("refund:a1", R1, 100, 5);
	S.fault_method = "eth_getTransactionCount";
	S.fault_n = 2;
	S.fault_status = 500;
	S.fault_body = "oops";
	step(11, 11, 1);
	assert_int_equal(S.fault_n, 0);
	assert_int_equal(N.sends, 1);

	owe("refund:b1", R2, 4000, 11);
	S.fault_method = "eth_estimateGas";
	S.fault_n = 1;
	S.fault_status = 200;
	S.fault_body = "{not json";
	step(12, 12, 1);
	assert_int_equal(S.fault_n, 0);
	assert_int_equal(N.sends, 2);
	check_tx(0, 0, R1, 100, 21000, TIP, MAX_FEE);
	check_tx(1, 1, R2, 4000, 21000, TIP, MAX_FEE);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");
	assert_int_equal(N.faults, 4);

	/* The send answered twice by an HTTP 500 page: retried; still one
	 * transaction. */
	owe("refund:a2", R1, 50, 12);
	S.fault_method = "eth_sendRawTransaction";
	S.fault_n = 2;
	S.fault_status = 500;
	S.fault_body = "<html>bad gateway</html>";
	step(13, 13, 1);
	assert_int_equal(S.fault_n, 0);
	S.fault_method = NULL;
	assert_int_equal(N.sends, 3);
	check_tx(2, 2, R1, 50, 21000, TIP, MAX_FEE);
	expect_batch(3, "sent", 2, "submitted");

	/* Receipts: a garbage body first. */
	counts(3, 3, 3);
	for (size_t k = 0; k < 3; k++)
		receipt(N.sent[k].hash, 12, 1, 21000, 2000000000u);
	S.fault_method = "eth_getTransactionReceipt";
	S.fault_n = 1;
	S.fault_status = 200;
	S.fault_body = "]]";
	step(16, 16, 1);
	assert_int_equal(S.fault_n, 0);
	for (int id = 1; id <= 3; id++)
		expect_batch(id, "confirmed", id - 1, "confirmed");
	assert_int_equal(N.sends, 3);
	EXPECT_Q("0", "SELECT count(*) FROM payouts WHERE state <> "
	              "'confirmed'");
	fx_close();
}

/* A feeHistory that is an object without its arrays (or with broken
 * ones): the fees cannot be known, so nothing should be signed with them;
 * the pass ends, and a later one pays at the documented fees.
 *
 * Each variant runs to the end on its own database and the test fails
 * once at the end, listing those the payer sent anyway. */
static void test_malformed_fee_history(void **state)
{
	static const char *const bad[] = {
	    "{}",
	    "{\"baseFeePerGas\":\"0x59682f00\",\"reward\":\"0x77359400\"}",
	    "{\"oldestBlock\":\"0x5\",\"baseFeePerGas\":[\"-0x1\"],"
	    "\"reward\":[[\"0x77359400\"]]}",
	    "{\"oldestBlock\":\"0x5\",\"baseFeePerGas\":[1500000000],"
	    "\"reward\":[[2000000000]]}",
	};
	char bugs[2048] = "", db[32];
	size_t k = 0;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(db, sizeof db, "fees%zu.sqlite", i);
		pfx_use_db(&T.fx, db);
		T.fx.txseq = 0;
		malformed_start();
		S.fee_history = bad[i];
		step(11, 11, 1);
		if (N.sends == 1) {
			/* As expected: nothing signed; then paid. */
			S.fee_history = FEE_HISTORY;
			malformed_end(12);
			continue;
		}
		{
			hj_eip1559_tx tx = decoded(N.nsent - 1);
			char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN], st[64];

			q_text(st, sizeof st,
			       "SELECT state FROM payout_batches WHERE id = 2");
			k += (size_t)snprintf(
			    bugs + k, sizeof bugs - k,
			    "\n  %s: sent nonce %llu with max fee %s, tip %s "
			    "wei; batch 2 %s",
			    bad[i], (unsigned long long)tx.nonce,
			    hj_amount_format(tx.max_fee_per_gas, a),
			    hj_amount_format(tx.max_priority_fee_per_gas, b),
			    st);
			if (k >= sizeof bugs)
				k = sizeof bugs - 1;
		}
		fx_close();
	}
	if (bugs[0] != '\0')
		fail_msg(
		    "a fee history it could not read, and the payer signed "
		    "and sent a transaction anyway (expected: the pass ends, "
		    "nothing sent):%s",
		    bugs);
}

/* ------------------------------------------------------------------ */
/* 7. More open batches than the payer reads at once                   */

#define MANY 70 /* recipients paid a batch each: more than a page (64) */

/* Recipient i: distinct addresses, none of them R1, R2 or the dealer. */
static const char *many_addr(unsigned i)
{
	static char buf[4][43];
	static unsigned k;
	char *a = buf[k++ % 4];

	snprintf(a, sizeof buf[0], "0x%040x", 0x10000u + i);
	return a;
}

/* Batches first..last (ids) in state, batch id k with nonce k - 1. */
static void expect_batches(int first, int last, const char *state,
                           const char *pstate)
{
	for (int id = first; id <= last; id++)
		expect_batch(id, state, id - 1, pstate);
}

/* More open batches than the payer reads from the store at once (64):
 * MANY recipients, a transaction each in the first pass (nonces 0..69),
 * the node refusing the last one (nonce 69), which stays planned; one more
 * recipient owed.  Every later pass reaches all of them: the planned batch,
 * the 70th, is sent again and nothing else is planned while it stands;
 * batches beyond the 64th whose nonce is final are confirmed in the same
 * pass as the first ones; once the 70th is accepted the last recipient is
 * paid under nonce 70.  Never a fatal error (the store refuses a second
 * planned batch). */
static void test_open_beyond_page(void **state)
{
	char id[32];

	(void)state;
	fx_open(NULL);
	for (unsigned i = 0; i < MANY; i++) {
		snprintf(id, sizeof id, "refund:m%02u", i);
		owe(id, many_addr(i), 1000 + i, 5);
	}
	owe("refund:z1", many_addr(MANY), 5000, 6);
	S.refuse_error = "txpool is full";
	S.refuse_nonce = MANY - 1;

	/* The first pass: MANY transactions, the last refused. */
	step(10, 10, 1);
	assert_int_equal(N.estimates, MANY);
	assert_int_equal(N.sends, MANY);
	for (unsigned i = 0; i < MANY; i++)
		check_tx(i, i, many_addr(i), 1000 + i, 21000, TIP, MAX_FEE);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), MANY);
	expect_batches(1, MANY - 1, "sent", "submitted");
	expect_batch(MANY, "planned", MANY - 1, "owed");
	EXPECT_Q("1", "SELECT attempts FROM payout_batches WHERE id = 70");
	EXPECT_Q("owed", "SELECT state FROM payouts WHERE id = 'refund:z1'");
	assert_true(log_has("txpool is full"));

	/* Nothing mined, the next block: the planned batch, behind 69 sent
	 * ones, is sent again (the same bytes), refused again; nothing new
	 * is planned for the last recipient. */
	counts(0, 0, MANY - 1);
	step(11, 11, 1);
	assert_int_equal(N.sends, MANY + 1);
	same_bytes(MANY - 1, MANY);
	assert_int_equal(N.estimates, MANY);
	assert_int_equal(N.receipts, 0);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), MANY);
	expect_batches(1, MANY - 1, "sent", "submitted");
	expect_batch(MANY, "planned", MANY - 1, "owed");
	EXPECT_Q("2", "SELECT attempts FROM payout_batches WHERE id = 70");
	EXPECT_Q("0", "SELECT count(*) FROM payout_batch_items WHERE payout = "
	              "'refund:z1'");

	/* Nonces 0..65 mined and final (final height 10, receipts in block
	 * 9): in one pass all 66 are confirmed, the 65th and 66th too; the
	 * rest waits; the planned batch is sent again, refused again. */
	counts(66, 66, MANY - 1);
	for (size_t k = 0; k < 66; k++)
		receipt(N.sent[k].hash, 9, 1, 21000, 2000000000u);
	step(12, 12, 1);
	assert_int_equal(N.receipts, 66);
	expect_batches(1, 66, "confirmed", "confirmed");
	EXPECT_Q(
	    "9|21000|42000000000000",
	    "SELECT confirmed_height || '|' || gas_used || '|' || fee FROM "
	    "payout_batches WHERE id = 66");
	expect_batches(67, MANY - 1, "sent", "submitted");
	expect_batch(MANY, "planned", MANY - 1, "owed");
	EXPECT_Q("3", "SELECT attempts FROM payout_batches WHERE id = 70");
	assert_int_equal(N.sends, MANY + 2);
	same_bytes(MANY - 1, MANY + 1);
	assert_int_equal(N.estimates, MANY);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), MANY);

	/* The node takes it now: sent; then the last recipient is paid
	 * under nonce 70. */
	S.refuse_error = NULL;
	step(13, 13, 1);
	assert_int_equal(N.sends, MANY + 4);
	same_bytes(MANY - 1, MANY + 2);
	expect_batch(MANY, "sent", MANY - 1, "submitted");
	EXPECT_Q(hash_of(MANY - 1),
	         "SELECT lower(hex(txid)) FROM payout_batches WHERE id = 70");
	check_tx(MANY + 3, MANY, many_addr(MANY), 5000, 21000, TIP, MAX_FEE);
	assert_int_equal(N.estimates, MANY + 1);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"),
	                 MANY + 1);
	expect_batch(MANY + 1, "sent", MANY, "submitted");
	EXPECT_Q("refund:z1",
	         "SELECT payout FROM payout_batch_items WHERE batch = 71");
	assert_int_equal(N.receipts, 66);

	/* All final: the rest confirmed, nothing more sent. */
	counts(MANY + 1, MANY + 1, MANY + 1);
	for (size_t k = 66; k < MANY; k++)
		receipt(N.sent[k].hash, 15, 1, 21000, 2000000000u);
	receipt(N.sent[MANY + 3].hash, 15, 1, 21000, 2000000000u);
	step(20, 20, 1);
	assert_int_equal(N.receipts, 66 + 5);
	expect_batches(1, MANY + 1, "confirmed", "confirmed");
	EXPECT_Q("0", "SELECT count(*) FROM payouts WHERE state <> "
	              "'confirmed'");
	assert_int_equal(N.sends, MANY + 4);
	assert_int_equal(N.estimates, MANY + 1);
	assert_int_equal(T.fx.nfatal, 0);
	assert_false(log_has("already planned"));
	fx_close();
}

/* ------------------------------------------------------------------ */
/* Restart, key                                                        */

/* The send of a planned batch gets no answer and the daemon stops: the
 * next payer sends the same bytes again, and nothing else first. */
static void test_restart_resends_planned(void **state)
{
	char err[HJ_ERRLEN] = "";

	(void)state;
	fx_open(NULL);
	owe("refund:a1", R1, 100, 5);
	owe("refund:b1", R2, 4000, 6);
	S.send_silent = 1;
	step(10, 10, 0); /* the node stops the loop at the send */
	assert_int_equal(N.sends, 1);
	expect_batch(1, "planned", 0, "owed");
	EXPECT_Q(raw_of(0),
	         "SELECT lower(hex(raw)) FROM payout_tx_versions WHERE batch = "
	         "1");

	pfx_payer_stop(&T.fx);
	S.send_silent = 0;
	if (payer_new(err, sizeof err))
		fail_msg("hjd_evm_payer_new: %s", err);
	step(11, 11, 1);
	assert_int_equal(N.chain_id, 2);
	assert_int_equal(N.sends, 3);
	same_bytes(0, 1);
	check_tx(2, 1, R2, 4000, 21000, TIP, MAX_FEE);
	assert_int_equal(N.estimates, 2);
	expect_batch(1, "sent", 0, "submitted");
	expect_batch(2, "sent", 1, "submitted");
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_tx_versions WHERE batch = 1");
	fx_close();
}

/* A key file others may read, a key of another address, no key file:
 * hjd_evm_payer_new refuses, naming the problem; no handle is left. */
static void test_key_refused(void **state)
{
	char err[HJ_ERRLEN];
	int rc;

	(void)state;
	pfx_open_bare(&T.fx, "http://127.0.0.1:9/", &META);
	T.o = DEFAULTS;

	write_key(DEALER_KEY, 0644);
	err[0] = '\0';
	rc = payer_new(err, sizeof err);
	assert_int_equal(rc, -EPERM);
	assert_null(T.fx.payer);
	expect_contains(err, "[payout] dealer_key");
	expect_contains(err, "mode 0644");
	expect_contains(err, "chmod 600");
	expect_contains(err, T.key);

	write_key(OTHER_KEY, 0600);
	err[0] = '\0';
	rc = payer_new(err, sizeof err);
	assert_int_equal(rc, -EINVAL);
	assert_null(T.fx.payer);
	expect_contains(err, "[payout] dealer_key");
	expect_contains(err, "belongs to address");
	expect_lacks(err, &OTHER_KEY[2]); /* never the secret */

	unlink(T.key);
	err[0] = '\0';
	rc = payer_new(err, sizeof err);
	assert_int_equal(rc, -ENOENT);
	assert_null(T.fx.payer);
	expect_contains(err, T.key);

	/* The right key: accepted. */
	write_key(DEALER_KEY, 0600);
	if (payer_new(err, sizeof err))
		fail_msg("hjd_evm_payer_new: %s", err);
	pfx_close(&T.fx); /* the loop runs dry, uv_loop_close() == 0 */
	assert_int_equal(T.fx.closed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_happy_path, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_nonce_higher, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_fee_rules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_final_from_node, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_receipt_above_final, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_no_gas_estimate, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_for_funds, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_already_known, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_nonce_too_low, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_foreign_nonce_sent, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_inconsistent_counts, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_foreign_nonce_planned, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_failed_transfer, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_stuck_replaced, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_stuck_at_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stuck_near_cap_refused, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_view, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_chain_id, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_estimate, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_receipt, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_other_hash, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_http_faults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_fee_history, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_open_beyond_page, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_restart_resends_planned, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_key_refused, setup, teardown),
	};

	pfx_no_proxy();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
