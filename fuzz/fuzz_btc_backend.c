/*
 * The Bitcoin-family backend's handling of node answers
 * (chain/btc_backend.c): getblockchaininfo and getblockhash 0, getblockcount,
 * the batch of getblockhash and the batch of getblock <hash> 0 (raw blocks
 * as hex), answered from the input through the client of node_fake.h (the
 * format is described there).  One more record form: "=" as an answer to
 * getblockhash is the hash of the header that the getblock answer for the
 * same height will carry (the record as far ahead as the batch is long,
 * control records skipped), so that blocks made or changed by the fuzzer
 * still pass the header check.
 *
 * The first record asks the backend, in order, for up to four of
 *   "i"        identity
 *   "t"        tip
 *   "b F N"    blocks F .. F + N - 1 (N at most 16; decimal numbers,
 *              2^64 - 1 when larger)
 *   "p F N"    payments in blocks F .. F + N - 1 to the payees: the
 *              dealer's own script, tr(P) for the internal key P of
 *              BIP-86's first test vector, the dealer's script again
 * each preceded by "%" to have its first call refused; a "k" anywhere
 * asks the backend to keep every transaction first (keep_all, for
 * `hashjack export`).  The coin is
 * litecoin with the dealer rltc1q2qv83f0js2q05qxm9kkv87eedpe3udq3j3t8e4 (the
 * P2WPKH of tests/data/btc/ltc_mweb_regtest.h), or, when the record holds a
 * "B", bitcoin with the same program as bcrt1q...
 *
 * Checked: every call is the one its operation needs (methods, heights,
 * getblock of exactly the hashes getblockhash gave); an operation whose
 * call was refused returns an error and never calls back; every other
 * callback runs exactly once, never from inside the operation, never while
 * the operation still waits for an answer, and never after the backend is
 * freed; an error is a non-empty text, the client's own error word for
 * word.  Identity succeeds exactly when the network's name is plain, the
 * genesis hash is 64 hex digits and the network's address prefix is the
 * dealer's, and is "bitcoin:<coin>:<network>:<genesis>"; the error is
 * permanent exactly when the network does not fit the coin or the dealer.
 * Tip is exactly the height answered.  Blocks succeed exactly when every
 * hash is 64 hex digits and every raw block parses, its header hashes to
 * the hash asked for and every transaction that concerns the dealer
 * normalises; they are then exactly N blocks in height order with those
 * hashes, the parents their headers name, and exactly the actions
 * hj_btc_action makes of the block's transactions, in block order; with
 * keep_all also every transaction's serialisation, in block order (none
 * kept without it).
 * Payments ask what blocks ask, succeed exactly when blocks would, and
 * are then exactly the outputs paying a payee's script, in block and
 * output order, with their height, value, txid and the payee's first
 * index; tr(P)'s payee is 51 20 and its BIP-86 output key, at its address
 * in the dealer's prefix.  Nothing leaks once the backend is freed.
 */
#include "fuzz.h"
#include "node_fake.h"

#include <inttypes.h>

#include "btc.h"
#include "btc_backend.h"
#include "btc_tx.h"
#include "dealer.h"
#include "hex.h"
#include "say.h"
#include "sha256.h"
#include "taproot.h"

#define MAX_OPS 4
#define MAX_N   16

struct op {
	char kind; /* 'i', 't', 'b', 'p' */
	int refuse;
	uint64_t from;
	size_t n;
	int rc;
	int ncb;
	int nhash_calls, nblock_calls;
	json_t *answer; /* identity: [info, genesis]; tip: the count;
	                   blocks: the hashes */
	json_t *raw;    /* blocks: the raw blocks */
};

static struct {
	hj_rpc rpc;
	struct op ops[MAX_OPS];
	int nops;
	const char *coin;
	hj_dealer dealer;
	int keep; /* keep_all */
	hj_chain_payee payees[3];
	int freed;
} S;

static struct op *op_of(int owner)
{
	FUZZ_CHECK(owner >= 0 && owner < S.nops);
	return &S.ops[owner];
}

/* v, a string of 64 hex digits (no prefix), decoded into h. */
static int hash_of(const json_t *v, uint8_t h[32])
{
	return json_is_string(v)
	           ? hj_hex_decode_exact(json_string_value(v),
	                                 json_string_length(v), HJ_HEX_BARE, h,
	                                 32, NULL, 0)
	           : -1;
}

/* v, a string of hex digits (no prefix), decoded into a new buffer. */
static uint8_t *raw_of(const json_t *v, size_t *n)
{
	size_t len;
	uint8_t *raw;

	if (!json_is_string(v))
		return NULL;
	len = json_string_length(v);
	raw = malloc(len / 2 + 1);
	FUZZ_CHECK(raw != NULL);
	if (hj_hex_decode(json_string_value(v), len, HJ_HEX_BARE, raw,
	                  len / 2 + 1, n, NULL, 0) != 0) {
		free(raw);
		return NULL;
	}
	return raw;
}

/* The calls each operation may make. */
static void fake_submitted(hj_rpc *c, const struct fake_req *q)
{
	struct op *o = op_of(c->owner);

	switch (o->kind) {
	case 'i':
		FUZZ_CHECK(c->in_call && q->batch && q->n == 2);
		FUZZ_CHECK(strcmp(q->methods[0], "getblockchaininfo") == 0);
		FUZZ_CHECK(json_array_size(q->params[0]) == 0);
		FUZZ_CHECK(strcmp(q->methods[1], "getblockhash") == 0);
		FUZZ_CHECK(json_array_size(q->params[1]) == 1);
		FUZZ_CHECK(
		    json_integer_value(json_array_get(q->params[1], 0)) == 0 &&
		    json_is_integer(json_array_get(q->params[1], 0)));
		return;
	case 't':
		FUZZ_CHECK(c->in_call && !q->batch && q->n == 1);
		FUZZ_CHECK(strcmp(q->method, "getblockcount") == 0);
		FUZZ_CHECK(json_array_size(q->params[0]) == 0);
		return;
	case 'b':
	case 'p':
		break;
	default:
		FUZZ_CHECK(0);
	}
	FUZZ_CHECK(q->batch && q->n == o->n);
	if (strcmp(q->method, "getblockhash") == 0) {
		FUZZ_CHECK(c->in_call && o->nhash_calls++ == 0);
		for (size_t k = 0; k < q->n; k++) {
			json_t *h = json_array_get(q->params[k], 0);

			FUZZ_CHECK(strcmp(q->methods[k], q->method) == 0);
			FUZZ_CHECK(json_array_size(q->params[k]) == 1);
			FUZZ_CHECK(
			    json_is_integer(h) && json_integer_value(h) >= 0 &&
			    (uint64_t)json_integer_value(h) == o->from + k);
		}
		return;
	}
	/* getblock of each hash getblockhash gave, in order. */
	FUZZ_CHECK(strcmp(q->method, "getblock") == 0);
	FUZZ_CHECK(!c->in_call && o->nhash_calls == 1 &&
	           o->nblock_calls++ == 0);
	for (size_t k = 0; k < q->n; k++) {
		json_t *p = q->params[k];
		uint8_t want[32], got[32];
		char hex[65];

		FUZZ_CHECK(strcmp(q->methods[k], q->method) == 0);
		FUZZ_CHECK(json_array_size(p) == 2);
		FUZZ_CHECK(hash_of(json_array_get(o->answer, k), want) == 0);
		FUZZ_CHECK(hash_of(json_array_get(p, 0), got) == 0);
		FUZZ_CHECK(memcmp(want, got, 32) == 0);
		hj_hex_encode(want, 32, 0, hex);
		FUZZ_CHECK(
		    strcmp(json_string_value(json_array_get(p, 0)), hex) == 0);
		FUZZ_CHECK(json_is_integer(json_array_get(p, 1)) &&
		           json_integer_value(json_array_get(p, 1)) == 0);
	}
}

static void fake_answered(hj_rpc *c, const struct fake_req *q, json_t *result)
{
	struct op *o = op_of(c->owner);

	if (strcmp(q->method, "getblock") == 0)
		o->raw = json_incref(result);
	else
		o->answer = json_incref(result);
}

/* "=": the display hash of the header in the record that will answer
 * getblock for the same height. */
static json_t *fake_element(hj_rpc *c, const struct fake_req *q, size_t i,
                            size_t r)
{
	const struct fake_in *in = &c->in;
	size_t k = r - i + q->n;
	json_t *v = NULL, *out;
	uint8_t *raw = NULL, h[32];
	size_t n = 0;
	char hex[65];

	if (strcmp(q->methods[i], "getblockhash") != 0 || in->len[r] != 1 ||
	    in->rec[r][0] != '=' || !q->batch || q->n != op_of(c->owner)->n)
		return NULL;
	while (k < in->n && fake_control(in, k))
		k++;
	memset(h, 0, sizeof h);
	if (k + i < in->n) {
		v = fake_value(in->rec[k + i], in->len[k + i]);
		raw = raw_of(v, &n);
	}
	if (raw != NULL && n >= HJ_BTC_HEADER_LEN) {
		uint8_t d[32];

		hj_sha256d(raw, HJ_BTC_HEADER_LEN, d);
		for (int b = 0; b < 32; b++)
			h[b] = d[31 - b];
	}
	free(raw);
	json_decref(v);
	hj_hex_encode(h, 32, 0, hex);
	out = json_string(hex);
	FUZZ_CHECK(out != NULL);
	return out;
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
	/* The client's error, when there was one, word for word. */
	if (S.rpc.error[0] != '\0')
		FUZZ_CHECK(error != NULL && strcmp(error, S.rpc.error) == 0);
}

/* A network name as nodes print it. */
static int plain(const json_t *v)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	if (!json_is_string(v) || n == 0 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static void on_ident(void *arg, const char *identity, const char *error,
                     int permanent)
{
	struct op *o = arg;
	json_t *chain = json_object_get(json_array_get(o->answer, 0), "chain");
	const char *hrp;
	uint8_t g[32];
	char want[200], hex[65];

	callback_ran(o, error);
	FUZZ_CHECK((identity == NULL) == (error != NULL));
	FUZZ_CHECK(!permanent || error != NULL);
	if (S.rpc.error[0] != '\0') {
		FUZZ_CHECK(!permanent);
		return;
	}
	if (!plain(chain) || hash_of(json_array_get(o->answer, 1), g) != 0) {
		FUZZ_CHECK(error != NULL && !permanent);
		return;
	}
	if (hj_taproot_hrp(S.coin, json_string_value(chain), &hrp, NULL, 0) !=
	        0 ||
	    strcmp(hrp, S.dealer.hrp) != 0) {
		FUZZ_CHECK(error != NULL && permanent);
		return;
	}
	hj_hex_encode(g, 32, 0, hex);
	snprintf(want, sizeof want, "bitcoin:%s:%s:%s", S.coin,
	         json_string_value(chain), hex);
	FUZZ_CHECK(identity != NULL && strcmp(identity, want) == 0);
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	struct op *o = arg;

	callback_ran(o, error);
	if (S.rpc.error[0] != '\0')
		return;
	if (json_is_integer(o->answer) && json_integer_value(o->answer) >= 0)
		FUZZ_CHECK(error == NULL &&
		           height == (uint64_t)json_integer_value(o->answer));
	else
		FUZZ_CHECK(error != NULL);
}

/* What block i of o must be, from the answers: 0 and *want filled (its
 * txs, all and bytes the caller's to free; all: every transaction, a view
 * into bytes, the raw block), or -1 when the backend must refuse it. */
static int expected_block(struct op *o, size_t i, hj_chain_block *want)
{
	size_t n = 0, cap = 0, capall = 0;
	uint8_t *raw = raw_of(json_array_get(o->raw, i), &n), d[32];
	hj_btc_block blk;
	hj_btc_tx tx;
	int rc = -1;

	memset(want, 0, sizeof *want);
	want->height = o->from + i;
	if (raw == NULL ||
	    hash_of(json_array_get(o->answer, i), want->hash) != 0 ||
	    n < HJ_BTC_HEADER_LEN)
		goto out;
	hj_sha256d(raw, HJ_BTC_HEADER_LEN, d);
	for (int k = 0; k < 32; k++) {
		if (d[31 - k] != want->hash[k])
			goto out;
		want->parent[k] = raw[4 + 31 - k];
	}
	if (hj_btc_block_open(&blk, raw, n, NULL, 0) != 0)
		goto out;
	for (uint32_t k = 0;; k++) {
		int got = hj_btc_block_next(&blk, &tx, NULL, 0);

		if (got < 0)
			goto out;
		if (got == 0)
			break;
		if (want->nall == capall) {
			capall = capall ? 2 * capall : 4;
			want->all =
			    realloc(want->all, capall * sizeof *want->all);
			FUZZ_CHECK(want->all != NULL);
		}
		want->all[want->nall++] =
		    (hj_chain_tx){.data = tx.raw, .len = tx.raw_len};
		if (want->ntx == cap) {
			cap = cap ? 2 * cap : 4;
			want->txs = realloc(want->txs, cap * sizeof *want->txs);
			FUZZ_CHECK(want->txs != NULL);
		}
		got = hj_btc_action(&tx, S.dealer.script, S.dealer.script_len,
		                    k, &want->txs[want->ntx], NULL, 0);
		if (got < 0)
			goto out;
		want->ntx += (size_t)got;
	}
	rc = 0;
	want->bytes = raw;
	raw = NULL;
out:
	free(raw);
	return rc;
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct op *o = arg;
	int ok = o->raw != NULL && S.rpc.error[0] == '\0';

	callback_ran(o, error);
	/* Success exactly when every block is right, and then as it is. */
	for (size_t i = 0; ok && i < o->n; i++) {
		hj_chain_block want;

		ok = expected_block(o, i, &want) == 0;
		if (ok && error == NULL) {
			FUZZ_CHECK(blocks != NULL && n == o->n);
			FUZZ_CHECK(blocks[i].height == want.height);
			FUZZ_CHECK(memcmp(blocks[i].hash, want.hash, 32) == 0);
			FUZZ_CHECK(memcmp(blocks[i].parent, want.parent, 32) ==
			           0);
			FUZZ_CHECK(blocks[i].ntx == want.ntx);
			for (size_t k = 0; k < want.ntx; k++)
				FUZZ_CHECK(fake_action_eq(&blocks[i].txs[k],
				                          &want.txs[k]));
			if (!S.keep) {
				FUZZ_CHECK(blocks[i].all == NULL &&
				           blocks[i].nall == 0);
			} else {
				FUZZ_CHECK(blocks[i].nall == want.nall);
				for (size_t k = 0; k < want.nall; k++) {
					const hj_chain_tx *a =
					                      &blocks[i].all[k],
					                  *w = &want.all[k];
					FUZZ_CHECK(a->len == w->len &&
					           memcmp(a->data, w->data,
					                  w->len) == 0);
				}
			}
		}
		free(want.txs);
		free(want.all);
		free(want.bytes);
	}
	FUZZ_CHECK(ok == (error == NULL));
	if (error != NULL)
		FUZZ_CHECK(blocks == NULL && n == 0);
}

/* The payments of block i of o (its raw block known to parse) appended
 * to *want, *n of them. */
static void expected_payments(struct op *o, size_t i, hj_chain_payment **want,
                              size_t *n)
{
	size_t len = 0;
	uint8_t *raw = raw_of(json_array_get(o->raw, i), &len), txid[32];
	hj_btc_block blk;
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output out;

	FUZZ_CHECK(raw != NULL &&
	           hj_btc_block_open(&blk, raw, len, NULL, 0) == 0);
	while (hj_btc_block_next(&blk, &tx, NULL, 0) == 1) {
		hj_btc_tx_txid(&tx, txid);
		hj_btc_outputs_begin(&tx, &it);
		while (hj_btc_outputs_next(&it, &out)) {
			size_t k = 0;
			while (k < 3 && (S.payees[k].len != out.script_len ||
			                 memcmp(S.payees[k].b, out.script,
			                        out.script_len)))
				k++;
			if (k == 3)
				continue;
			*want = realloc(*want, (*n + 1) * sizeof **want);
			FUZZ_CHECK(*want != NULL);
			(*want)[*n].height = o->from + i;
			(*want)[*n].payee = k;
			(*want)[*n].value = out.value;
			for (int b = 0; b < 32; b++)
				(*want)[*n].txid[b] = txid[31 - b];
			(*n)++;
		}
	}
	free(raw);
}

static void on_payments(void *arg, const hj_chain_payment *p, size_t n,
                        const char *error)
{
	struct op *o = arg;
	int ok = o->raw != NULL && S.rpc.error[0] == '\0';
	hj_chain_payment *want = NULL;
	size_t nwant = 0;

	callback_ran(o, error);
	/* Success exactly when the blocks are right, as for blocks(). */
	for (size_t i = 0; ok && i < o->n; i++) {
		hj_chain_block blk;

		ok = expected_block(o, i, &blk) == 0;
		free(blk.txs);
		free(blk.all);
		free(blk.bytes);
		if (ok)
			expected_payments(o, i, &want, &nwant);
	}
	FUZZ_CHECK(ok == (error == NULL));
	if (error != NULL) {
		FUZZ_CHECK(p == NULL && n == 0);
	} else {
		FUZZ_CHECK(n == nwant);
		for (size_t k = 0; k < n; k++) {
			FUZZ_CHECK(p[k].height == want[k].height);
			FUZZ_CHECK(p[k].payee == want[k].payee);
			FUZZ_CHECK(p[k].value == want[k].value);
			FUZZ_CHECK(memcmp(p[k].txid, want[k].txid, 32) == 0);
		}
	}
	free(want);
}

/* The first record: the coin and the operations. */
static void read_ops(const char *p, size_t len)
{
	const char *end = p + len;
	int refuse = 0;

	S.coin = "litecoin";
	while (p < end && S.nops < MAX_OPS) {
		struct op *o = &S.ops[S.nops];
		char ch = *p++;

		switch (ch) {
		case 'B':
			S.coin = "bitcoin";
			continue;
		case 'k':
			S.keep = 1;
			continue;
		case '%':
			refuse = 1;
			continue;
		case 'i':
		case 't':
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
		refuse = 0;
		S.nops++;
	}
}

/* The payees; payee() of tr(P) checked against BIP-86's first vector. */
static void payees(hj_backend *b)
{
	static const char P[] = "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106"
	                        "cf1223c6fc5d7cd6fc115";
	static const char Q[] = "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc4"
	                        "87053f1dc6880949dc684c";
	hj_id id = {.len = 32}, bad = {.len = 32};
	uint8_t q[32];
	char want[HJ_BECH32_BUF];

	memset(S.payees, 0, sizeof S.payees);
	S.payees[0].len = S.payees[2].len = (uint8_t)S.dealer.script_len;
	memcpy(S.payees[0].b, S.dealer.script, S.dealer.script_len);
	memcpy(S.payees[2].b, S.dealer.script, S.dealer.script_len);
	FUZZ_CHECK(hj_hex_decode_exact(P, 64, HJ_HEX_BARE, id.b, 32, NULL, 0) ==
	           0);
	FUZZ_CHECK(hj_hex_decode_exact(Q, 64, HJ_HEX_BARE, q, 32, NULL, 0) ==
	           0);
	FUZZ_CHECK(b->ops->payee(b, &id, &S.payees[1], NULL, 0) == 0);
	FUZZ_CHECK(S.payees[1].len == 34 && S.payees[1].b[0] == 0x51 &&
	           S.payees[1].b[1] == 32 &&
	           memcmp(S.payees[1].b + 2, q, 32) == 0);
	FUZZ_CHECK(hj_segwit_encode(S.dealer.hrp, 1, q, 32, want, NULL, 0) ==
	           0);
	FUZZ_CHECK(strcmp(S.payees[1].address, want) == 0);
	/* Not a key: 2^256 - 1 is above the field's prime. */
	memset(bad.b, 0xff, 32);
	FUZZ_CHECK(b->ops->payee(b, &bad, &S.payees[2], NULL, 0) == -EINVAL);
	S.payees[2] = S.payees[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *first, *addr;
	size_t first_len;
	hj_backend *b;
	char err[HJ_ERRLEN];

	memset(&S, 0, sizeof S);
	S.rpc.owner = -1;
	fake_split(&S.rpc.in, data, size, &first, &first_len);
	read_ops(first, first_len);
	addr = strcmp(S.coin, "bitcoin") == 0
	           ? "bcrt1q2qv83f0js2q05qxm9kkv87eedpe3udq3vu3wwt"
	           : "rltc1q2qv83f0js2q05qxm9kkv87eedpe3udq3j3t8e4";
	FUZZ_CHECK(hj_dealer_parse(HJ_BITCOIN, addr, strlen(addr), &S.dealer,
	                           NULL, 0) == 0);
	FUZZ_CHECK(hj_btc_backend_new(&S.rpc, S.coin, &S.dealer, &b, err,
	                              sizeof err) == 0 &&
	           b->ops->family == HJ_BITCOIN);
	if (S.keep)
		b->ops->keep_all(b);
	payees(b);

	for (int k = 0; k < S.nops; k++) {
		struct op *o = &S.ops[k];

		S.rpc.owner = k;
		S.rpc.in_call = 1;
		S.rpc.refuse_next = o->refuse;
		if (o->kind == 'i')
			o->rc = b->ops->identity(b, on_ident, o);
		else if (o->kind == 't')
			o->rc = b->ops->tip(b, on_tip, o);
		else if (o->kind == 'b')
			o->rc = b->ops->blocks(b, o->from, o->n, on_blocks, o);
		else
			o->rc = b->ops->payments(b, o->from, o->n, S.payees, 3,
			                         on_payments, o);
		S.rpc.in_call = 0;
		S.rpc.owner = -1;
		/* Refused: an error, and no callback ever. */
		if ((o->kind == 'b' || o->kind == 'p') &&
		    (o->n == 0 || o->from > (uint64_t)INT64_MAX - o->n))
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
		json_decref(S.ops[k].raw);
	}
	return 0;
}
