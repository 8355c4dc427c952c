/*
 * The Bitcoin-family payer (daemon/payout_btc.h, driven through
 * daemon/payer.h; docs/PAYOUTS.md) against a scripted wallet node: an HTTP
 * server on the test's loop (http_fake.h) plays Bitcoin Core's wallet
 * endpoint (<url>/wallet/<name>) for the calls the payer makes
 * (getrpcinfo, listtransactions, gettransaction, sendmany,
 * sendrawtransaction, getbalance) and records every request.  The wallet
 * is a model: sendmany makes a real transaction (raw bytes whose double
 * SHA-256 is its txid) paying exactly the outputs asked plus a change
 * output, keeps its comment, and lists one "send" entry per output, newest
 * last, as listtransactions pages them.  Errors come the way litecoind
 * 0.21 sends them: HTTP 500 with a JSON-RPC 1.0 body.
 *
 * The store is a real one in a temporary directory, seeded with owed
 * refunds.  Recipients are BIP-86's test vectors (their keys P, tr(P) on
 * Bitcoin and its output script), so every address and script below is a
 * published value, not one the code under test computed.
 *
 * A test runs the payer in steps: it sets the script, kicks the payer (as
 * the follower does after each commit) and runs the loop until the payer
 * has ended so many passes (on_status counts them, a 10 s guard stops a
 * payer that never ends one), then looks at the database, at the requests
 * the node received (their methods in order, and their parameters) and at
 * the status line.  The test never sleeps.  Where the payer itself waits
 * (its backoff of 1 s, 250 ms between two getrpcinfo), the test checks
 * lower bounds on the loop's clock between the requests, which a slow
 * machine cannot break; the one upper bound ("nothing is sent again in
 * the same block while the backoff lasts") is checked only when the kick
 * comes within it.  Every test closes the payer and the server and checks
 * uv_loop_close().  The fixture (the loop, the server, the store, the
 * payer's log) is tests/payer_util.h, shared with test_payout_evm.c.
 * Tests marked "Regression" failed on the code before the fix they name.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "amount.h"
#include "dealer.h"
#include "hex.h"
#include "http_fake.h"
#include "payer_util.h"
#include "payout_btc.h"
#include "say.h"
#include "sha256.h"
#include "store.h"

#define MAX_REQ 96
#define MAX_WTX 16
#define MAX_ENT 512
#define MAX_OUT 8

/* The wallet's name needs percent-encoding in the URL. */
#define WALLET      "hj pay"
#define WALLET_PATH "/wallet/hj%20pay"

/* BIP-173's P2WPKH example: the dealer's address, and the change's. */
#define DEALER     "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
#define DEALER_SPK "0014751e76e8199196d454941c45d1b3a323f1433bd6"

/* BIP-86: m/86'/0'/0'/0/0, m/86'/0'/0'/0/1 and m/86'/0'/0'/1/0. */
#define P1 "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"
#define A1 "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
#define S1                                                                     \
	"5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c"
#define P2 "83dfe85a3151d2517290da461fe2815591ef69f2b18a2ce63f01697a8b313145"
#define A2 "bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh"
#define S2                                                                     \
	"5120a82f29944d65b86ae6b5e5cc75e294ead6c59391a1edc5e016e3498c67fc7bbb"
#define P3 "399f1b2f4393f29a18c937859c5dd8a77350103157eb880f02e8c08214277cef"
#define A3 "bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7"
#define S3                                                                     \
	"5120882d74e5d0572d5a816cef0041a96b6c1de832f6f9676d9605c44d5e9a97d3dc"

/* What the wallet has, as getbalance says it (JSON text). */
#define RICH "2.00000000"

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static void unhex(const char *s, uint8_t *out, size_t n)
{
	if (hj_hex_decode_exact(s, strlen(s), HJ_HEX_BARE, out, n, NULL, 0))
		fail_msg("not %zu bytes of hex: %s", n, s);
}

/* ------------------------------------------------------------------ */
/* The wallet                                                          */

struct out {
	char address[91];
	hj_amount amount;
};

/* A transaction of the wallet. */
struct wtx {
	char txid[65];
	uint8_t raw[1024];
	size_t len;
	char comment[80];
	long long conf;   /* confirmations, negative when conflicted */
	long long height; /* blockheight shown when conf > 0 */
	char replaced_by[65], replaces[65];
	int dropped; /* unconfirmed and out of the mempool: "trusted": false */
	int64_t time;
	size_t nout; /* outputs to others (the change is not listed) */
	struct out out[MAX_OUT];
};

/* One listtransactions entry: an output of a wallet transaction, or a
 * foreign entry (someone else's use of the wallet). */
struct entry {
	int tx; /* index in W.tx, -1 for a foreign entry */
	size_t vout;
	const char *category;
	char comment[80]; /* foreign: "" for none */
	char txid[65];    /* foreign */
	int64_t time;
};

static struct wallet {
	size_t ntx;
	struct wtx tx[MAX_WTX];
	size_t nent;
	struct entry ent[MAX_ENT];
	uint32_t seq; /* makes every transaction's input distinct */
} W;

enum send_mode {
	SEND_OK,          /* made, its txid answered */
	SEND_REFUSE,      /* not made: JSON-RPC error refuse_code */
	SEND_LOST_AFTER,  /* made, the connection closed without answer */
	SEND_LOST_BEFORE, /* not made, the connection closed */
	SEND_STOP_AFTER,  /* made, never answered, the loop stopped */
	SEND_ODD_RESULT,  /* made, answered with send_result */
	SEND_FAULT,       /* not made, HTTP fault_status with fault_body */
};

/* What the node answers.  Results are JSON texts. */
static struct script {
	const char *balance; /* getbalance */
	enum send_mode send;
	long long refuse_code;
	const char *refuse_msg;
	const char *send_result;
	int send_fault_status;
	const char *send_fault_body;
	/* The transaction sendmany makes differs from what was asked:
	 * 1 its first output is one unit short, 2 its first output goes to
	 * A3, 3 gettransaction shows other bytes than the txid's, 4
	 * gettransaction shows no hex. */
	int tamper;
	/* getrpcinfo: this many answers with a sendmany running, then
	 * rpcinfo_bad_n answers with rpcinfo_bad (when not NULL). */
	unsigned rpcinfo_busy;
	const char *rpcinfo_bad;
	unsigned rpcinfo_bad_n;
	/* listtransactions and gettransaction answer these instead of the
	 * wallet's, the next n times. */
	const char *list_bad;
	unsigned list_bad_n;
	const char *gettx_bad;
	unsigned gettx_bad_n;
	/* The next fault_n requests of fault_method get HTTP fault_status
	 * with fault_body. */
	const char *fault_method;
	unsigned fault_n;
	int fault_status;
	const char *fault_body;
	/* sendrawtransaction: refused with this message when not NULL. */
	const char *rawtx_error;
	/* Committed cards (step 0): listunspent's answer (NULL: []);
	 * fundrawtransaction's changepos (0: 1); signrawtransactionwithwallet
	 * says complete false. */
	const char *unspent;
	int changepos;
	int sign_incomplete;
} S;

/* The Commit the wallet signed last (its raw bytes and txid), and whether
 * the node took it: then gettransaction knows it, with conf
 * confirmations (negative: conflicted), in the mempool unless dropped. */
static struct commit_model {
	uint8_t raw[512];
	size_t len;
	char txid[65];
	int known, dropped;
	long long conf;
	char at_send[256]; /* seed_chains' txid when it was sent */
} CM;

/* One request the node received. */
struct req {
	char method[32];
	char params[2048]; /* as sent for sendmany, else compact JSON */
	uint64_t time;     /* loop time at arrival */
};

/* What the node received. */
static struct seen {
	unsigned requests, unknown, bad_path, faults;
	unsigned sendmany, rawtx;
	size_t nreq;
	struct req req[MAX_REQ];
	char seq[4096];     /* methods since the last expect_seq */
	char at_send[1024]; /* the last sendmany's batch in the database */
} N;

static void seq_add(const char *m)
{
	size_t k = strlen(N.seq);

	snprintf(N.seq + k, sizeof N.seq - k, "%s%s", k ? " " : "", m);
}

/* The methods the node received since the last call, in order. */
static void expect_seq(const char *want)
{
	if (strcmp(N.seq, want) != 0)
		fail_msg("the node received \"%s\", want \"%s\"", N.seq, want);
	N.seq[0] = '\0';
}

/* The params of the k-th request (from 0) of method m. */
static const char *params_of(const char *m, unsigned k)
{
	unsigned left = k;

	for (size_t i = 0; i < N.nreq; i++)
		if (strcmp(N.req[i].method, m) == 0 && left-- == 0)
			return N.req[i].params;
	fail_msg("no request %s number %u", m, k);
	return NULL;
}

/* The loop time at which the k-th request of method m arrived. */
static uint64_t time_of(const char *m, unsigned k)
{
	unsigned left = k;

	for (size_t i = 0; i < N.nreq; i++)
		if (strcmp(N.req[i].method, m) == 0 && left-- == 0)
			return N.req[i].time;
	fail_msg("no request %s number %u", m, k);
	return 0;
}

/* ---- transactions ---- */

static void put_u32(uint8_t *b, size_t *n, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[(*n)++] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *b, size_t *n, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[(*n)++] = (uint8_t)(v >> (8 * i));
}

/* The output script of one of the test's addresses. */
static size_t script_of(const char *address, uint8_t spk[34])
{
	static const char *const known[][2] = {
	    {A1, S1}, {A2, S2}, {A3, S3}, {DEALER, DEALER_SPK}};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(address, known[i][0]) == 0) {
			size_t n = strlen(known[i][1]) / 2;

			unhex(known[i][1], spk, n);
			return n;
		}
	fail_msg("sendmany to an address the test does not know: %s", address);
	return 0;
}

/*
 * A legacy transaction: version 2, one input (a distinct outpoint, empty
 * scriptSig), the outputs, a change output to the dealer's script,
 * locktime 0.  Its txid is the double SHA-256 of those bytes, displayed
 * reversed.
 */
static struct wtx *make_tx(const struct out *o, size_t n, const char *comment)
{
	struct wtx *t;
	uint8_t prev[32], h[32], spk[34];
	size_t len = 0, k;

	assert_true(W.ntx < MAX_WTX);
	assert_true(n >= 1 && n + 1 < 0xfd && n <= MAX_OUT);
	t = &W.tx[W.ntx++];
	memset(t, 0, sizeof *t);
	W.seq++;
	hj_sha256(&W.seq, sizeof W.seq, prev);
	put_u32(t->raw, &len, 2);
	t->raw[len++] = 1;
	memcpy(t->raw + len, prev, 32);
	len += 32;
	put_u32(t->raw, &len, 0);
	t->raw[len++] = 0;
	put_u32(t->raw, &len, 0xfffffffd);
	t->raw[len++] = (uint8_t)(n + 1);
	for (size_t i = 0; i < n; i++) {
		put_u64(t->raw, &len, (uint64_t)o[i].amount);
		k = script_of(o[i].address, spk);
		t->raw[len++] = (uint8_t)k;
		memcpy(t->raw + len, spk, k);
		len += k;
		t->out[i] = o[i];
	}
	put_u64(t->raw, &len, 12345678); /* the change */
	k = script_of(DEALER, spk);
	t->raw[len++] = (uint8_t)k;
	memcpy(t->raw + len, spk, k);
	len += k;
	put_u32(t->raw, &len, 0);
	t->len = len;
	t->nout = n;
	hj_sha256d(t->raw, len, h);
	for (int i = 0; i < 32; i++)
		snprintf(t->txid + 2 * i, 3, "%02x", h[31 - i]);
	snprintf(t->comment, sizeof t->comment, "%s", comment);
	t->time = (int64_t)time(NULL);
	for (size_t i = 0; i < n; i++) {
		struct entry *e;

		assert_true(W.nent < MAX_ENT);
		e = &W.ent[W.nent++];
		memset(e, 0, sizeof *e);
		e->tx = (int)(t - W.tx);
		e->vout = i;
		e->category = "send";
		e->time = t->time;
	}
	return t;
}

static struct wtx *wtx_by_id(const char *txid)
{
	for (size_t i = 0; i < W.ntx; i++)
		if (strcmp(W.tx[i].txid, txid) == 0)
			return &W.tx[i];
	return NULL;
}

/* n foreign entries received at unix time t (the newest last). */
static void foreign(size_t n, int64_t t, const char *category,
                    const char *comment)
{
	for (size_t i = 0; i < n; i++) {
		struct entry *e;

		assert_true(W.nent < MAX_ENT);
		e = &W.ent[W.nent++];
		memset(e, 0, sizeof *e);
		e->tx = -1;
		e->category = category;
		snprintf(e->comment, sizeof e->comment, "%s", comment);
		snprintf(e->txid, sizeof e->txid, "%064zx", W.nent);
		e->time = t;
	}
}

/* sendmany's params as the payer writes them, read strictly:
 * ["",{"<address>":<digits>.<8 digits>,...},1,"<comment>"]. */
static size_t parse_sendmany(const char *s, struct out *o, char *comment,
                             size_t clen)
{
	size_t n = 0;
	const char *p = s, *q;

	if (strncmp(p, "[\"\",{", 5) != 0)
		fail_msg("sendmany params: %s", s);
	p += 5;
	while (*p == '"') {
		hj_amount whole = 0, frac = 0;
		size_t k;

		assert_true(n < MAX_OUT);
		q = strchr(p + 1, '"');
		assert_non_null(q);
		k = (size_t)(q - p - 1);
		assert_true(k < sizeof o[n].address);
		memcpy(o[n].address, p + 1, k);
		o[n].address[k] = '\0';
		p = q + 1;
		if (*p++ != ':')
			fail_msg("sendmany params: %s", s);
		for (k = 0; *p >= '0' && *p <= '9'; k++)
			whole = whole * 10 + (hj_amount)(*p++ - '0');
		if (k == 0 || *p++ != '.')
			fail_msg("sendmany amount not d.dddddddd: %s", s);
		for (k = 0; *p >= '0' && *p <= '9'; k++)
			frac = frac * 10 + (hj_amount)(*p++ - '0');
		if (k != 8)
			fail_msg("sendmany amount without 8 decimals: %s", s);
		o[n++].amount = whole * 100000000u + frac;
		if (*p == ',')
			p++;
	}
	if (strncmp(p, "},1,\"", 5) != 0)
		fail_msg("sendmany params: %s", s);
	p += 5;
	q = strchr(p, '"');
	assert_non_null(q);
	assert_true((size_t)(q - p) < clen);
	memcpy(comment, p, (size_t)(q - p));
	comment[q - p] = '\0';
	if (strcmp(q, "\"]") != 0)
		fail_msg("sendmany params: %s", s);
	return n;
}

/* ---- answers ---- */

static uv_loop_t *node_loop;

static void send_json(struct hf_conn *c, int status, json_t *doc)
{
	char *body = json_dumps(doc, JSON_COMPACT);

	json_decref(doc);
	assert_non_null(body);
	hf_reply(c, status, NULL, body);
	free(body);
}

static json_t *text_json(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &e);

	if (v == NULL)
		fail_msg("script: not JSON: %s (%s)", text, e.text);
	return v;
}

/* A result (stolen), Bitcoin Core 0.21's way. */
static void answer(struct hf_conn *c, json_t *id, json_t *result)
{
	send_json(
	    c, 200,
	    json_pack("{s:o, s:n, s:O}", "result", result, "error", "id", id));
}

static void answer_text(struct hf_conn *c, json_t *id, const char *text)
{
	answer(c, id, text_json(text));
}

static void answer_error(struct hf_conn *c, json_t *id, long long code,
                         const char *msg)
{
	send_json(c, 500,
	          json_pack("{s:n, s:{s:I, s:s}, s:O}", "result", "error",
	                    "code", (json_int_t)code, "message", msg, "id",
	                    id));
}

static json_t *entry_json(const struct entry *e)
{
	json_t *o;

	if (e->tx < 0) {
		o = json_pack("{s:s, s:s, s:f, s:i, s:s, s:I, s:I}", "address",
		              A3, "category", e->category, "amount", 0.5,
		              "confirmations", 10, "txid", e->txid, "time",
		              (json_int_t)e->time, "timereceived",
		              (json_int_t)e->time);
		if (e->comment[0])
			json_object_set_new(o, "comment",
			                    json_string(e->comment));
	} else {
		const struct wtx *t = &W.tx[e->tx];

		o = json_pack("{s:s, s:s, s:f, s:i, s:f, s:I, s:s, s:I, s:I, "
		              "s:s, s:s, s:b}",
		              "address", t->out[e->vout].address, "category",
		              "send", "amount",
		              -(double)t->out[e->vout].amount / 1e8, "vout",
		              (int)e->vout, "fee", -0.0000141, "confirmations",
		              (json_int_t)t->conf, "txid", t->txid, "time",
		              (json_int_t)t->time, "timereceived",
		              (json_int_t)t->time, "comment", t->comment,
		              "bip125-replaceable", "no", "abandoned", 0);
		if (t->conf > 0)
			json_object_set_new(o, "blockheight",
			                    json_integer(t->height));
		if (t->replaced_by[0])
			json_object_set_new(o, "replaced_by_txid",
			                    json_string(t->replaced_by));
		if (t->replaces[0])
			json_object_set_new(o, "replaces_txid",
			                    json_string(t->replaces));
	}
	assert_non_null(o);
	return o;
}

/* listtransactions "*" count skip true: the count entries before the
 * newest skip ones, oldest first. */
static json_t *list_json(json_t *params)
{
	json_int_t count = json_integer_value(json_array_get(params, 1));
	json_int_t skip = json_integer_value(json_array_get(params, 2));
	json_t *a = json_array();
	size_t end, start;

	assert_string_equal(json_string_value(json_array_get(params, 0)), "*");
	assert_true(json_is_true(json_array_get(params, 3)));
	assert_true(count > 0 && skip >= 0);
	end = (size_t)skip >= W.nent ? 0 : W.nent - (size_t)skip;
	start = end > (size_t)count ? end - (size_t)count : 0;
	for (size_t i = start; i < end; i++)
		json_array_append_new(a, entry_json(&W.ent[i]));
	return a;
}

static json_t *gettx_json(const struct wtx *t)
{
	char hex[2 * sizeof t->raw + 1];
	json_t *o;

	hj_hex_encode(t->raw, t->len, 0, hex);
	if (S.tamper == 3) /* other bytes: a digit of the change's script */
		hex[2 * t->len - 12] = hex[2 * t->len - 12] == '0' ? '1' : '0';
	o = json_pack("{s:f, s:f, s:I, s:s, s:[], s:I, s:I, s:s, s:s}",
	              "amount", -0.001, "fee", -0.0000141, "confirmations",
	              (json_int_t)t->conf, "txid", t->txid, "walletconflicts",
	              "time", (json_int_t)t->time, "timereceived",
	              (json_int_t)t->time, "comment", t->comment,
	              "bip125-replaceable", "no");
	assert_non_null(o);
	if (t->conf > 0)
		json_object_set_new(o, "blockheight", json_integer(t->height));
	if (t->conf == 0)
		json_object_set_new(o, "trusted", json_boolean(!t->dropped));
	if (t->replaced_by[0])
		json_object_set_new(o, "replaced_by_txid",
		                    json_string(t->replaced_by));
	if (t->replaces[0])
		json_object_set_new(o, "replaces_txid",
		                    json_string(t->replaces));
	if (S.tamper != 4)
		json_object_set_new(o, "hex", json_string(hex));
	return o;
}

/* The batch the comment names, as the database has it now:
 * "state|outputs|total|attempts items payouts' states". */
static void record_batch(const char *comment)
{
	const char *colon = strrchr(comment, ':');
	char sql[512], a[256], b[256], c[64];
	long long id;

	assert_non_null(colon);
	id = strtoll(colon + 1, NULL, 10);
	snprintf(sql, sizeof sql,
	         "SELECT state || '|' || outputs || '|' || total || '|' || "
	         "attempts FROM payout_batches WHERE id = %lld",
	         id);
	q_opt(a, sizeof a, sql);
	snprintf(sql, sizeof sql,
	         "SELECT group_concat(payout, ' ') FROM (SELECT payout FROM "
	         "payout_batch_items WHERE batch = %lld ORDER BY payout)",
	         id);
	q_opt(b, sizeof b, sql);
	snprintf(sql, sizeof sql,
	         "SELECT group_concat(DISTINCT p.state) FROM payouts p JOIN "
	         "payout_batch_items i ON i.payout = p.id WHERE i.batch = "
	         "%lld",
	         id);
	q_opt(c, sizeof c, sql);
	snprintf(N.at_send, sizeof N.at_send, "%s %s %s", a, b, c);
}

static void on_sendmany(struct hf_conn *c, const struct hf_req *r, json_t *id,
                        const char *params)
{
	struct out o[MAX_OUT];
	char comment[80];
	size_t n = parse_sendmany(params, o, comment, sizeof comment);
	struct wtx *t = NULL;
	enum send_mode m = S.send;

	(void)r;
	N.sendmany++;
	record_batch(comment);
	if (m == SEND_OK || m == SEND_LOST_AFTER || m == SEND_STOP_AFTER ||
	    m == SEND_ODD_RESULT) {
		if (S.tamper == 1)
			o[0].amount--;
		else if (S.tamper == 2)
			snprintf(o[0].address, sizeof o[0].address, "%s", A3);
		t = make_tx(o, n, comment);
	}
	switch (m) {
	case SEND_OK:
		answer(c, id, json_string(t->txid));
		break;
	case SEND_REFUSE:
		answer_error(c, id, S.refuse_code, S.refuse_msg);
		break;
	case SEND_LOST_AFTER:
	case SEND_LOST_BEFORE:
		hf_conn_close(c);
		break;
	case SEND_STOP_AFTER:
		uv_stop(node_loop);
		break;
	case SEND_ODD_RESULT:
		answer_text(c, id, S.send_result);
		break;
	case SEND_FAULT:
		hf_reply(c, S.send_fault_status, NULL, S.send_fault_body);
		break;
	}
}

/*
 * The Commit the wallet signs: the outpoint and payload of the last
 * createrawtransaction (read from the requests), one input whose witness
 * is [a 71-byte signature, the key G], whose HASH160 is DEALER's program
 * (BIP-173's example), the OP_RETURN, then 99,966,200 base units of change
 * to DEALER.  Its txid is the double SHA-256 of the bytes without the
 * witness.
 */
static void make_commit(void)
{
	static const char g[] = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2"
	                        "dce28d959f2815b16f81798";
	json_t *p = NULL;
	const char *txid, *data;
	uint8_t prev[32], d[48], spk[34], base[512], h[32];
	size_t n = 0, k, bn = 0;

	for (size_t i = N.nreq; i-- > 0;)
		if (strcmp(N.req[i].method, "createrawtransaction") == 0) {
			p = json_loads(N.req[i].params, 0, NULL);
			break;
		}
	assert_non_null(p);
	txid = json_string_value(
	    json_object_get(json_array_get(json_array_get(p, 0), 0), "txid"));
	data = json_string_value(
	    json_object_get(json_array_get(json_array_get(p, 1), 0), "data"));
	assert_non_null(txid);
	assert_non_null(data);
	unhex(txid, h, 32);
	for (int i = 0; i < 32; i++)
		prev[i] = h[31 - i];
	unhex(data, d, 48);
	/* Without the witness, for the txid. */
	put_u32(base, &bn, 2);
	base[bn++] = 1;
	memcpy(base + bn, prev, 32);
	bn += 32;
	put_u32(base, &bn,
	        (uint32_t)json_integer_value(json_object_get(
	            json_array_get(json_array_get(p, 0), 0), "vout")));
	base[bn++] = 0;
	put_u32(base, &bn, 0xfffffffd);
	base[bn++] = 2;
	put_u64(base, &bn, 0);
	base[bn++] = 50;
	base[bn++] = 0x6a;
	base[bn++] = 48;
	memcpy(base + bn, d, 48);
	bn += 48;
	put_u64(base, &bn, 99966200);
	k = script_of(DEALER, spk);
	base[bn++] = (uint8_t)k;
	memcpy(base + bn, spk, k);
	bn += k;
	put_u32(base, &bn, 0);
	hj_sha256d(base, bn, h);
	for (int i = 0; i < 32; i++)
		snprintf(CM.txid + 2 * i, 3, "%02x", h[31 - i]);
	/* With it: version, marker and flag, the body, the witness, the
	 * locktime. */
	memcpy(CM.raw, base, 4);
	n = 4;
	CM.raw[n++] = 0;
	CM.raw[n++] = 1;
	memcpy(CM.raw + n, base + 4, bn - 8);
	n += bn - 8;
	CM.raw[n++] = 2;
	CM.raw[n++] = 71;
	memset(CM.raw + n, 0x30, 71);
	n += 71;
	CM.raw[n++] = 33;
	unhex(g, CM.raw + n, 33);
	n += 33;
	put_u32(CM.raw, &n, 0);
	CM.len = n;
	CM.known = 0;
	CM.conf = 0;
	CM.dropped = 0;
	json_decref(p);
}

static void on_sendraw(struct hf_conn *c, json_t *id, json_t *params)
{
	const char *hex = json_string_value(json_array_get(params, 0));
	char mine[1025];

	assert_non_null(hex);
	hj_hex_encode(CM.raw, CM.len, 0, mine);
	if (CM.len == 0 || strcmp(hex, mine) != 0) {
		/* A payout batch's, sent again. */
		if (S.rawtx_error)
			answer_error(c, id, -26, S.rawtx_error);
		else
			answer_text(c, id, "\"00\"");
		return;
	}
	q_opt(CM.at_send, sizeof CM.at_send,
	      "SELECT lower(hex(txid)) FROM seed_chains WHERE state = "
	      "'planned'");
	if (S.rawtx_error) {
		answer_error(c, id, S.rawtx_error[0] == 'b' ? -25 : -26,
		             S.rawtx_error);
	} else {
		CM.known = 1;
		CM.dropped = 0;
		answer(c, id, json_string(CM.txid));
	}
}

static void h_node(struct hf_conn *c, const struct hf_req *r, unsigned n)
{
	json_t *id = json_object_get(r->json, "id");
	json_t *params = json_object_get(r->json, "params");
	const char *m = json_string_value(json_object_get(r->json, "method"));
	struct req *q;

	(void)n;
	N.requests++;
	assert_non_null(m);
	if (strncmp(r->head, "POST " WALLET_PATH " HTTP/1.1\r\n",
	            strlen("POST " WALLET_PATH " HTTP/1.1\r\n")) != 0)
		N.bad_path++;
	seq_add(m);
	assert_true(N.nreq < MAX_REQ);
	q = &N.req[N.nreq++];
	snprintf(q->method, sizeof q->method, "%s", m);
	q->time = uv_now(node_loop);
	if (strcmp(m, "sendmany") == 0) {
		/* Byte for byte: the params are the body's, after "params":. */
		const char *p = strstr(r->body, "\"params\":");

		assert_non_null(p);
		p += strlen("\"params\":");
		assert_true(r->body_len > 0 && r->body[r->body_len - 1] == '}');
		snprintf(q->params, sizeof q->params, "%.*s",
		         (int)(r->body + r->body_len - 1 - p), p);
	} else {
		char *s = json_dumps(params ? params : json_null(),
		                     JSON_COMPACT | JSON_ENCODE_ANY);

		assert_non_null(s);
		snprintf(q->params, sizeof q->params, "%s", s);
		free(s);
	}
	if (S.fault_n > 0 && strcmp(m, S.fault_method) == 0) {
		S.fault_n--;
		N.faults++;
		hf_reply(c, S.fault_status, NULL, S.fault_body);
		return;
	}
	if (strcmp(m, "sendmany") == 0) {
		on_sendmany(c, r, id, q->params);
	} else if (strcmp(m, "getbalance") == 0) {
		answer_text(c, id, S.balance);
	} else if (strcmp(m, "getrpcinfo") == 0) {
		if (S.rpcinfo_busy > 0) {
			S.rpcinfo_busy--;
			answer_text(c, id,
			            "{\"active_commands\":[{\"method\":"
			            "\"sendmany\",\"duration\":812345},"
			            "{\"method\":\"getrpcinfo\",\"duration\":"
			            "5}],\"logpath\":\"/n/debug.log\"}");
		} else if (S.rpcinfo_bad_n > 0) {
			S.rpcinfo_bad_n--;
			answer_text(c, id, S.rpcinfo_bad);
		} else {
			answer_text(c, id,
			            "{\"active_commands\":[{\"method\":"
			            "\"getrpcinfo\",\"duration\":5}],"
			            "\"logpath\":\"/n/debug.log\"}");
		}
	} else if (strcmp(m, "listtransactions") == 0) {
		if (S.list_bad_n > 0) {
			S.list_bad_n--;
			answer_text(c, id, S.list_bad);
		} else {
			answer(c, id, list_json(params));
		}
	} else if (strcmp(m, "gettransaction") == 0) {
		const char *txid = json_string_value(json_array_get(params, 0));
		const struct wtx *t = txid ? wtx_by_id(txid) : NULL;

		if (S.gettx_bad_n > 0) {
			S.gettx_bad_n--;
			answer_text(c, id, S.gettx_bad);
		} else if (t == NULL && CM.known && txid &&
		           strcmp(txid, CM.txid) == 0) {
			json_t *o =
			    json_pack("{s:s, s:I}", "txid", CM.txid,
			              "confirmations", (json_int_t)CM.conf);

			if (CM.conf == 0)
				json_object_set_new(o, "trusted",
				                    json_boolean(!CM.dropped));
			answer(c, id, o);
		} else if (t == NULL) {
			answer_error(c, id, -5,
			             "Invalid or non-wallet transaction id");
		} else {
			answer(c, id, gettx_json(t));
		}
	} else if (strcmp(m, "sendrawtransaction") == 0) {
		N.rawtx++;
		on_sendraw(c, id, params);
	} else if (strcmp(m, "listunspent") == 0) {
		answer_text(c, id, S.unspent ? S.unspent : "[]");
	} else if (strcmp(m, "createrawtransaction") == 0) {
		answer_text(c, id, "\"c0ffee\"");
	} else if (strcmp(m, "fundrawtransaction") == 0) {
		answer(c, id,
		       json_pack("{s:s, s:f, s:i}", "hex", "f00d", "fee",
		                 0.000338, "changepos",
		                 S.changepos ? S.changepos : 1));
	} else if (strcmp(m, "signrawtransactionwithwallet") == 0) {
		char hex[1025];

		make_commit();
		hj_hex_encode(CM.raw, CM.len, 0, hex);
		answer(c, id,
		       json_pack("{s:s, s:b}", "hex", hex, "complete",
		                 !S.sign_incomplete));
	} else if (strcmp(m, "lockunspent") == 0) {
		answer_text(c, id, "true");
	} else {
		N.unknown++;
		answer_error(c, id, -32601, "Method not found");
	}
}

static void script_default(void)
{
	memset(&S, 0, sizeof S);
	S.balance = RICH;
	S.send = SEND_OK;
}

/* ------------------------------------------------------------------ */
/* The fixture                                                         */

struct fx_opts {
	hj_amount dust;
	unsigned max_outputs, conf;
};

static struct fx {
	struct payer_fx fx; /* the loop, the node, the store, the payer */
	struct fx_opts o;
	char tag[17];
	const char *wallet;
} T;

static const hj_store_meta META = {
    .family = "bitcoin",
    .chain = "bitcoin:"
             "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
    .dealer = DEALER,
    .rules = "bethash min=1 max=100000000 timeout=6",
};

/* ---- the database ---- */

/* Batch id: "state|outputs|total|attempts|txid" (txid NULL when none). */
#define BATCH_Q                                                                \
	"SELECT state || '|' || outputs || '|' || total || '|' || attempts "   \
	"|| '|' || CASE WHEN txid IS NULL THEN 'NULL' ELSE lower(hex(txid)) "  \
	"END FROM payout_batches WHERE id = %d"

/* Batch id's outputs "address:amount ..." by address, and its payouts. */
static void expect_outputs(int id, const char *want)
{
	EXPECT_Q(want,
	         "SELECT group_concat(address || ':' || amount, ' ') FROM "
	         "(SELECT * FROM payout_batch_outputs WHERE batch = %d ORDER "
	         "BY address)",
	         id);
}

static void expect_items(int id, const char *want)
{
	EXPECT_Q(want,
	         "SELECT group_concat(payout, ' ') FROM (SELECT payout FROM "
	         "payout_batch_items WHERE batch = %d ORDER BY payout)",
	         id);
}

/* Payout id: "state|submitted_txid|submitted_height|confirmed_height". */
#define PAYOUT_Q                                                               \
	"SELECT state || '|' || CASE WHEN submitted_txid IS NULL THEN 'NULL' " \
	"ELSE lower(hex(submitted_txid)) END || '|' || "                       \
	"ifnull(submitted_height, 'NULL') || '|' || "                          \
	"ifnull(confirmed_height, 'NULL') FROM payouts WHERE id = '%s'"

/* The comment of batch id. */
static const char *comment_of(int id)
{
	static char buf[4][64];
	static unsigned i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof buf[0], "hashjack:%s:%d", T.tag, id);
	return b;
}

/* sendmany's params for outputs (text "\"addr\":0.00000000,...") and
 * batch id. */
static const char *sendmany_of(const char *outputs, int id)
{
	static char buf[4][1024];
	static unsigned i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof buf[0], "[\"\",{%s},1,\"%s\"]", outputs,
	         comment_of(id));
	return b;
}

/* ---- payouts owed ---- */

/*
 * A rejected transaction from key (hex: 32 bytes, a player's P; other
 * lengths are not Bitcoin keys; NULL: none), refunded: payout id owes
 * amount to it, created at height.
 */
static void owe(const char *id, const char *key, hj_amount amount,
                uint64_t height)
{
	hj_id who;

	memset(&who, 0, sizeof who);
	if (key) {
		who.len = (uint8_t)(strlen(key) / 2);
		unhex(key, who.b, who.len);
	}
	pfx_owe(&T.fx, id, key ? &who : NULL, amount, height);
}

/* ---- the payer ---- */

static int payer_new(char *err, size_t errlen)
{
	hjd_payer_opts po = pfx_payer_opts(&T.fx, T.o.conf);
	hjd_btc_payout bp = {.wallet = T.wallet,
	                     .dust_limit = T.o.dust,
	                     .max_outputs = T.o.max_outputs};

	return hjd_btc_payer_new(&po, &bp, &T.fx.payer, err, errlen);
}

static const struct fx_opts DEFAULTS = {
    .dust = 330, .max_outputs = 100, .conf = 3};

/* The loop, the node, the store and a payer with o (NULL: defaults). */
static void fx_open(const struct fx_opts *o)
{
	char err[HJ_ERRLEN] = "";

	script_default();
	memset(&N, 0, sizeof N);
	memset(&W, 0, sizeof W);
	memset(&CM, 0, sizeof CM);
	T.o = o ? *o : DEFAULTS;
	T.fx.txseq = 0;
	pfx_open(&T.fx, h_node, &META);
	node_loop = &T.fx.loop;
	if (hj_store_payer_tag(T.fx.store, T.tag, err, sizeof err))
		fail_msg("store: %s", err);
	if (payer_new(err, sizeof err))
		fail_msg("hjd_btc_payer_new: %s", err);
}

/* Closes the payer, the node, the loop and the store. */
static void fx_close(void)
{
	pfx_close(&T.fx);
	assert_int_equal(N.unknown, 0);
	assert_int_equal(N.bad_path, 0);
}

/* The payer closes (a restart: requests in flight are dropped) and a new
 * one starts on the same store and node. */
static void restart(void)
{
	char err[HJ_ERRLEN] = "";

	pfx_payer_stop(&T.fx);
	if (payer_new(err, sizeof err))
		fail_msg("hjd_btc_payer_new: %s", err);
}

/* Runs the loop until passes more passes have ended (or the node got a
 * request it leaves unanswered and stops the loop, when the script says
 * so). */
static void run(unsigned passes)
{
	pfx_run(&T.fx, passes);
	assert_int_equal(N.unknown, 0);
}

/* Blocks up to processed are committed, the node's tip is tip: one kick
 * (a pass starts within it), then passes passes. */
static void step(uint64_t processed, uint64_t tip, unsigned passes)
{
	pfx_step(&T.fx, processed, tip, passes);
	assert_int_equal(N.unknown, 0);
}

/* A regression shows: the fixture is closed (no handle is left behind),
 * then the test fails with what happened. */
#define FAIL_IF(cond, ...)                                                     \
	do {                                                                   \
		if (cond) {                                                    \
			char m_[8192];                                         \
			snprintf(m_, sizeof m_, __VA_ARGS__);                  \
			fx_close();                                            \
			fail_msg("%s", m_);                                    \
		}                                                              \
	} while (0)

/* ------------------------------------------------------------------ */
/* Setup                                                               */

static int setup(void **state)
{
	char why[HJ_ERRLEN];

	(void)state;
	memset(&T, 0, sizeof T);
	if (pfx_setup(&T.fx, "payout-btc"))
		return -1;
	T.wallet = WALLET;
	if (hj_dealer_parse(HJ_BITCOIN, DEALER, strlen(DEALER), &T.fx.dealer,
	                    why, sizeof why)) {
		pfx_teardown(&T.fx);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return pfx_teardown(&T.fx);
}

/* ------------------------------------------------------------------ */
/* 1. Planned, sent, confirmed                                         */

/*
 * Three payouts, two recipients: one sendmany, its outputs by address,
 * each recipient's payouts in one output; the batch, its outputs and its
 * payouts committed before the call (the node reads them as the call
 * arrives), the txid after it.  In the mempool, then 2 confirmations:
 * nothing moves; 3 (the daemon's): confirmed in the transaction's block.
 */
static void test_happy_path(void **state)
{
	int64_t t0, t1;

	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 40000, 5);
	owe("refund:a2", P1, 60000, 6);
	owe("refund:b1", P2, 500000, 5);

	t0 = (int64_t)time(NULL);
	step(10, 12, 1);
	t1 = (int64_t)time(NULL);
	expect_seq("sendmany getbalance");
	assert_string_equal(
	    params_of("sendmany", 0),
	    sendmany_of("\"" A2 "\":0.00500000,\"" A1 "\":0.00100000", 1));
	assert_string_equal(params_of("getbalance", 0), "[]");
	assert_string_equal(N.at_send,
	                    "planned|2|600000|0 refund:a1 refund:a2 refund:b1 "
	                    "owed");

	assert_int_equal(W.ntx, 1);
	{
		char want[128];

		snprintf(want, sizeof want, "sent|2|600000|0|%s", W.tx[0].txid);
		EXPECT_Q(want, BATCH_Q, 1);
		snprintf(want, sizeof want, "submitted|%s|12|NULL",
		         W.tx[0].txid);
		EXPECT_Q(want, PAYOUT_Q, "refund:a1");
		EXPECT_Q(want, PAYOUT_Q, "refund:a2");
		EXPECT_Q(want, PAYOUT_Q, "refund:b1");
	}
	expect_outputs(1, A2 ":500000 " A1 ":100000");
	expect_items(1, "refund:a1 refund:a2 refund:b1");
	EXPECT_Q(
	    "10|12|NULL|NULL",
	    "SELECT created_height || '|' || sent_height || '|' || "
	    "ifnull(confirmed_height, 'NULL') || '|' || ifnull(last_error, "
	    "'NULL') FROM payout_batches WHERE id = 1");
	assert_true(q_int("SELECT created_at FROM payout_batches") >= t0);
	assert_true(q_int("SELECT sent_at FROM payout_batches") <= t1);
	assert_true(q_int("SELECT min(submitted_at) FROM payouts") >= t0);
	assert_true(q_int("SELECT max(submitted_at) FROM payouts") <= t1);
	assert_string_equal(T.fx.status,
	                    "payouts: 0 owed (0.00000000; 0 below dust "
	                    "0.00000000, 0 unattributed 0.00000000), 3 in "
	                    "flight (0.00600000), wallet " WALLET
	                    " balance 2.00000000");
	EXPECT_Q("200000000|12|",
	         "SELECT amount || '|' || height || '|' || ifnull(warning, '') "
	         "FROM dealer_balance");
	expect_log("payouts: batch 1 planned: 3 payouts to 2 recipients, "
	           "0.00600000 in all");
	expect_log("sent by wallet " WALLET ": txid ");

	/* In the mempool, then two confirmations: nothing moves. */
	step(11, 13, 1);
	expect_seq("gettransaction getbalance");
	{
		char want[128];

		snprintf(want, sizeof want, "[\"%s\",true]", W.tx[0].txid);
		assert_string_equal(params_of("gettransaction", 0), want);
	}
	W.tx[0].conf = 2;
	W.tx[0].height = 12;
	step(12, 13, 1);
	expect_seq("gettransaction getbalance");
	EXPECT_Q("sent", "SELECT state FROM payout_batches WHERE id = %d", 1);
	EXPECT_Q("3", "SELECT count(*) FROM payouts WHERE state = '%s'",
	         "submitted");

	/* The daemon's depth: confirmed in block 12. */
	W.tx[0].conf = 3;
	step(13, 14, 1);
	expect_seq("gettransaction getbalance");
	EXPECT_Q("confirmed|12",
	         "SELECT state || '|' || confirmed_height FROM "
	         "payout_batches WHERE id = %d",
	         1);
	{
		char want[128];

		snprintf(want, sizeof want, "confirmed|%s|12|12", W.tx[0].txid);
		EXPECT_Q(want, PAYOUT_Q, "refund:a1");
		EXPECT_Q(want, PAYOUT_Q, "refund:a2");
		EXPECT_Q(want, PAYOUT_Q, "refund:b1");
	}
	expect_contains(T.fx.status, "0 in flight (0.00000000)");
	expect_log("payouts: batch 1 confirmed: txid ");
	expect_log(" in block 12 (3 confirmations)");

	/* Nothing left: a pass reads the balance only. */
	step(14, 15, 1);
	expect_seq("getbalance");
	assert_int_equal(N.sendmany, 1);
	assert_int_equal(W.ntx, 1);
	fx_close();
}

/* A transaction's txid, for the database's lower(hex(txid)). */
static const char *tx(size_t k)
{
	assert_true(k < W.ntx);
	return W.tx[k].txid;
}

/* Batch id is "state|outputs|total|attempts|txid" (txid k of the wallet,
 * or NULL when k < 0). */
static void expect_batch(int id, const char *state, unsigned outputs,
                         hj_amount total, unsigned attempts, int k)
{
	char want[256], a[HJ_AMOUNT_STRLEN];

	snprintf(want, sizeof want, "%.32s|%u|%s|%u|%.64s", state, outputs,
	         hj_amount_format(total, a), attempts, k < 0 ? "NULL" : tx(k));
	EXPECT_Q(want, BATCH_Q, id);
}

/* Payout id: its state, the txid of wallet transaction k (NULL when
 * k < 0), its submitted and confirmed heights (0: NULL). */
static void expect_payout(const char *id, const char *state, int k,
                          uint64_t submitted, uint64_t confirmed)
{
	char want[256], sh[24] = "NULL", ch[24] = "NULL";

	if (submitted)
		snprintf(sh, sizeof sh, "%llu", (unsigned long long)submitted);
	if (confirmed)
		snprintf(ch, sizeof ch, "%llu", (unsigned long long)confirmed);
	snprintf(want, sizeof want, "%.32s|%.64s|%s|%s", state,
	         k < 0 ? "NULL" : tx(k), sh, ch);
	EXPECT_Q(want, PAYOUT_Q, id);
}

/* Two recipients, one owed 0.001 in two payouts, the other 0.005. */
static void owe_two(uint64_t height)
{
	owe("refund:a1", P1, 40000, height);
	owe("refund:a2", P1, 60000, height);
	owe("refund:b1", P2, 500000, height);
}

#define TWO_OUTPUTS "\"" A2 "\":0.00500000,\"" A1 "\":0.00100000"

/* ------------------------------------------------------------------ */
/* 2. What is paid: dust, max_outputs, unattributed                    */

/* A recipient is paid once all it is owed reaches dust_limit (330): 200,
 * then 329 in all, wait; 330 is one output of every payout; another
 * recipient at 329 still waits. */
static void test_dust(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:d1", P1, 200, 5);
	step(10, 10, 1);
	expect_seq("getbalance");
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 0);
	assert_string_equal(T.fx.status,
	                    "payouts: 1 owed (0.00000200; 1 below dust "
	                    "0.00000200, 0 unattributed 0.00000000), 0 in "
	                    "flight (0.00000000), wallet " WALLET
	                    " balance 2.00000000");

	owe("refund:d2", P1, 129, 6);
	owe("refund:e1", P2, 329, 6);
	step(11, 11, 1);
	expect_seq("getbalance");
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 0);
	expect_contains(T.fx.status,
	                "payouts: 3 owed (0.00000658; 3 below dust "
	                "0.00000658, 0 unattributed 0.00000000)");

	owe("refund:d3", P1, 1, 7);
	step(12, 12, 1);
	expect_seq("sendmany getbalance");
	assert_string_equal(params_of("sendmany", 0),
	                    sendmany_of("\"" A1 "\":0.00000330", 1));
	assert_string_equal(N.at_send,
	                    "planned|1|330|0 refund:d1 refund:d2 refund:d3 "
	                    "owed");
	expect_batch(1, "sent", 1, 330, 0, 0);
	expect_outputs(1, A1 ":330");
	expect_items(1, "refund:d1 refund:d2 refund:d3");
	expect_payout("refund:e1", "owed", -1, 0, 0);
	expect_contains(T.fx.status,
	                "payouts: 1 owed (0.00000329; 1 below dust "
	                "0.00000329, 0 unattributed 0.00000000), 3 "
	                "in flight (0.00000330)");
	fx_close();
}

/* max_outputs 2, three recipients: the two oldest debts (by their oldest
 * payout) in the first batch, the third in a second batch, sent in the
 * next pass without waiting for a block. */
static void test_max_outputs(void **state)
{
	struct fx_opts o = DEFAULTS;

	(void)state;
	o.max_outputs = 2;
	fx_open(&o);
	owe("refund:c1", P3, 1000, 5);
	owe("refund:b1", P2, 2000, 6);
	owe("refund:a1", P1, 3000, 7);
	owe("refund:c2", P3, 500, 8);

	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	assert_string_equal(
	    params_of("sendmany", 0),
	    sendmany_of("\"" A3 "\":0.00001500,\"" A2 "\":0.00002000", 1));
	expect_batch(1, "sent", 2, 3500, 0, 0);
	expect_items(1, "refund:b1 refund:c1 refund:c2");
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	expect_payout("refund:a1", "owed", -1, 0, 0);

	/* The next pass comes by itself. */
	run(1);
	expect_seq("gettransaction sendmany getbalance");
	assert_string_equal(params_of("sendmany", 1),
	                    sendmany_of("\"" A1 "\":0.00003000", 2));
	expect_batch(2, "sent", 1, 3000, 0, 1);
	expect_items(2, "refund:a1");
	expect_contains(T.fx.status, "payouts: 0 owed");
	expect_contains(T.fx.status, "4 in flight (0.00006500)");
	fx_close();
}

/* An unattributed refund (no recipient) and one whose recipient is not a
 * 32-byte key: never paid, whatever the blocks; shown in the status. */
static void test_unattributed(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:u1", NULL, 5000, 5);
	owe("refund:x1", "5d5af84c79a7e6cdbfa7e6254f2ed933d97ac7e8", 7000, 5);
	owe("refund:b1", P2, 700, 6);

	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	assert_string_equal(params_of("sendmany", 0),
	                    sendmany_of("\"" A2 "\":0.00000700", 1));
	expect_items(1, "refund:b1");
	assert_string_equal(
	    T.fx.status, "payouts: 2 owed (0.00012000; 0 below dust "
	                 "0.00000000, 1 unattributed 0.00005000, 1 "
	                 "unpayable), 1 in flight (0.00000700), wallet " WALLET
	                 " balance 2.00000000");
	for (uint64_t h = 11; h < 14; h++) {
		step(h, h, 1);
		expect_seq("gettransaction getbalance");
	}
	assert_int_equal(N.sendmany, 1);
	expect_payout("refund:u1", "owed", -1, 0, 0);
	expect_payout("refund:x1", "owed", -1, 0, 0);
	EXPECT_Q("0",
	         "SELECT count(*) FROM payout_batch_items WHERE payout "
	         "IN ('refund:u1', '%s')",
	         "refund:x1");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 3. Lost answers: never sent twice                                   */

#define NO_ANSWER_LIKE                                                         \
	"no answer to sendmany (sendmany: %%): the wallet may or may not "     \
	"have sent it"

/* The wallet made the transaction, the answer was lost: the batch stays
 * planned (one attempt, the reason on it and its payouts); after the
 * backoff (1 s) the next pass asks whether the node still runs a
 * sendmany, finds the batch by its comment, checks the transaction and
 * records its txid.  sendmany once. */
static void test_lost_answer_found(void **state)
{
	char want[256];

	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.send = SEND_LOST_AFTER;
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	assert_int_equal(W.ntx, 1);
	expect_batch(1, "planned", 2, 600000, 1, -1);
	EXPECT_Q("1", "SELECT count(*) FROM payout_batches WHERE id = 1 AND "
	              "last_error LIKE '" NO_ANSWER_LIKE "'");
	EXPECT_Q("3", "SELECT count(*) FROM payouts WHERE state = 'owed' AND "
	              "last_error LIKE '" NO_ANSWER_LIKE "'");
	expect_log("it will be looked for in the wallet by its comment before "
	           "it is ever sent again");

	/* No kick: the backoff's end starts the pass. */
	S.send = SEND_OK;
	run(1);
	expect_seq("getrpcinfo listtransactions gettransaction getbalance");
	assert_true(time_of("getrpcinfo", 0) >= time_of("sendmany", 0) + 1000);
	assert_string_equal(params_of("getrpcinfo", 0), "[]");
	assert_string_equal(params_of("listtransactions", 0),
	                    "[\"*\",100,0,true]");
	snprintf(want, sizeof want, "[\"%s\",true]", tx(0));
	assert_string_equal(params_of("gettransaction", 0), want);
	expect_batch(1, "sent", 2, 600000, 1, 0);
	EXPECT_Q("NULL",
	         "SELECT ifnull(last_error, 'NULL') FROM payout_batches WHERE "
	         "id = %d",
	         1);
	expect_payout("refund:a1", "submitted", 0, 10, 0);
	expect_payout("refund:b1", "submitted", 0, 10, 0);
	snprintf(want, sizeof want,
	         "payouts: batch 1 was sent before (found in wallet " WALLET
	         " by its comment): txid %s, recorded",
	         tx(0));
	expect_log(want);
	assert_int_equal(N.sendmany, 1);
	assert_int_equal(W.ntx, 1);
	fx_close();
}

/* The request never reached the wallet: at the next block the lookup
 * finds nothing and the batch is sent again, byte for byte the same. */
static void test_lost_answer_absent(void **state)
{
	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.send = SEND_LOST_BEFORE;
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	assert_int_equal(W.ntx, 0);
	expect_batch(1, "planned", 2, 600000, 1, -1);

	S.send = SEND_OK;
	step(11, 11, 1);
	expect_seq("getrpcinfo listtransactions sendmany getbalance");
	assert_string_equal(params_of("sendmany", 0),
	                    sendmany_of(TWO_OUTPUTS, 1));
	assert_string_equal(params_of("sendmany", 1), params_of("sendmany", 0));
	assert_string_equal(N.at_send,
	                    "planned|2|600000|1 refund:a1 refund:a2 refund:b1 "
	                    "owed");
	expect_batch(1, "sent", 2, 600000, 1, 0);
	expect_payout("refund:a2", "submitted", 0, 11, 0);
	expect_log("payouts: batch 1 is not in wallet " WALLET
	           ": sending it (again)");
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	fx_close();
}

/*
 * Regression (chain/rpc.c, HJ_RPC_ONCE, fixed by CURLOPT_FRESH_CONNECT): the
 * same lost answer, with the sendmany on a connection kept alive from an
 * earlier call (as every sendmany after a pass's first call is).  libcurl sends
 * a request again by itself, on a fresh connection, when a reused connection
 * closes before any byte of the answer (lib/transfer.c, Curl_retry_request:
 * "Connection died, retrying a fresh connect"), POST or not: the node gets the
 * sendmany twice and the wallet pays the batch twice, against HJ_RPC_ONCE's "at
 * most one attempt reaches the node" and PAYOUTS.md's step 4.  A node that
 * closes the connection after running the call without answering (a proxy
 * in front of it, -rpcservertimeout on a slow wallet) is enough.
 * Expected: one sendmany, one transaction.
 */
static void test_lost_answer_reused_connection(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	expect_batch(1, "sent", 1, 100000, 0, 0);

	owe("refund:b1", P2, 500000, 10);
	S.send = SEND_LOST_AFTER;
	step(11, 11, 1);
	FAIL_IF(N.sendmany != 2,
	        "the node received %u sendmany for batch 2 (the client sent "
	        "it again on a fresh connection after the kept-alive one "
	        "closed without an answer): the wallet made %zu transactions "
	        "for it; requests: %s",
	        N.sendmany - 1, W.ntx - 1, N.seq);
	expect_seq("gettransaction sendmany getbalance");
	expect_batch(2, "planned", 1, 500000, 1, -1);

	S.send = SEND_OK;
	run(1);
	expect_seq("getrpcinfo listtransactions gettransaction gettransaction "
	           "getbalance");
	expect_batch(2, "sent", 1, 500000, 1, 1);
	assert_int_equal(N.sendmany, 2);
	assert_int_equal(W.ntx, 2);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 4. Refused                                                          */

/* The wallet cannot pay: the node refuses (-6).  The comment is looked
 * for once more, absent: the batch is refused and its payouts owed again
 * with the node's message; the status says INSUFFICIENT FUNDS.  Not again
 * in the same block; again by itself after the backoff (refused again);
 * funds and a new block: a new batch with a new comment, paid. */
static void test_refused_funds(void **state)
{
	static const char refusal[] =
	    "the node refused sendmany: sendmany: JSON-RPC error -6: "
	    "\"Insufficient funds\"";
	static const char warn[] =
	    "INSUFFICIENT FUNDS in wallet " WALLET ": balance 0.00010000, "
	    "0.00600000 payable owed; payouts stay owed until funds arrive";
	uint64_t ended;

	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.send = SEND_REFUSE;
	S.refuse_code = -6;
	S.refuse_msg = "Insufficient funds";
	S.balance = "0.00010000";
	step(10, 10, 1);
	ended = T.fx.pass_end_time;
	expect_seq("sendmany listtransactions getbalance");
	assert_int_equal(W.ntx, 0);
	expect_batch(1, "refused", 2, 600000, 1, -1);
	EXPECT_Q(refusal, "SELECT last_error FROM payout_batches WHERE id = %d",
	         1);
	EXPECT_Q(refusal, "SELECT last_error FROM payouts WHERE id = '%s'",
	         "refund:a1");
	expect_payout("refund:a1", "owed", -1, 0, 0);
	expect_payout("refund:b1", "owed", -1, 0, 0);
	assert_string_equal(T.fx.status,
	                    "payouts: 3 owed (0.00600000; 0 below dust "
	                    "0.00000000, 0 unattributed 0.00000000), 0 in "
	                    "flight (0.00000000), wallet " WALLET
	                    " balance 0.00010000; INSUFFICIENT FUNDS in wallet "
	                    "hj pay: balance 0.00010000, 0.00600000 payable "
	                    "owed; payouts stay owed until funds arrive");
	EXPECT_Q(warn, "SELECT warning FROM dealer_balance WHERE id = %d", 1);
	expect_log(
	    "payouts: batch 1: the node refused sendmany: sendmany: "
	    "JSON-RPC error -6: \"Insufficient funds\"; its payouts stay "
	    "owed; next try in 1 s or at the next block");

	/* The same block: nothing is sent while the backoff (1 s) lasts.
	 * Only checked when this kick comes within it (always, unless the
	 * machine stalled for a second). */
	uv_update_time(&T.fx.loop);
	if (uv_now(&T.fx.loop) < ended + 900) {
		step(10, 10, 1);
		expect_seq("getbalance");
		assert_int_equal(N.sendmany, 1);
	}

	/* The backoff's end starts a pass by itself: refused again. */
	run(1);
	N.seq[0] = '\0';
	assert_int_equal(N.sendmany, 2);
	assert_true(time_of("sendmany", 1) >= time_of("sendmany", 0) + 1000);
	assert_string_equal(params_of("sendmany", 1),
	                    sendmany_of(TWO_OUTPUTS, 2));
	expect_batch(2, "refused", 2, 600000, 1, -1);

	/* Funds, and a new block: at once, despite the backoff (2 s). */
	S.send = SEND_OK;
	S.balance = RICH;
	step(11, 11, 1);
	expect_seq("sendmany getbalance");
	assert_string_equal(params_of("sendmany", 2),
	                    sendmany_of(TWO_OUTPUTS, 3));
	expect_batch(3, "sent", 2, 600000, 0, 0);
	expect_items(3, "refund:a1 refund:a2 refund:b1");
	expect_batch(1, "refused", 2, 600000, 1, -1);
	expect_payout("refund:a1", "submitted", 0, 11, 0);
	EXPECT_Q("0",
	         "SELECT count(*) FROM payouts WHERE last_error IS NOT "
	         "%s",
	         "NULL");
	expect_lacks(T.fx.status, "INSUFFICIENT");
	EXPECT_Q("",
	         "SELECT ifnull(warning, '') FROM dealer_balance WHERE id "
	         "= %d",
	         1);
	fx_close();
}

/*
 * Regression (daemon/payout_btc.c, pass_end, fixed): the node refuses for funds
 * while the balance covers what is payable but not the fee (balance 0.006, a
 * batch of 0.006).  after_scan_refused sets the documented warning
 * ("INSUFFICIENT FUNDS in wallet W: balance B, a batch of X to pay;
 * payouts stay owed until funds arrive"), and pass_end, in the same pass,
 * clears it again because the balance is not below the payable sum: the
 * STATUS line and `hashjack status` (dealer_balance.warning) never show
 * it, only the log once.  Expected: the warning stays until a send
 * succeeds or funds cover the batch.
 */
static void test_refused_for_the_fee(void **state)
{
	static const char warn[] =
	    "INSUFFICIENT FUNDS in wallet " WALLET ": balance 0.00600000, a "
	    "batch of 0.00600000 to pay; payouts stay owed until funds arrive";

	(void)state;
	fx_open(NULL);
	S.balance = "0.00600000";
	step(9, 9, 1); /* the balance is known */
	expect_seq("getbalance");
	owe_two(5);
	S.send = SEND_REFUSE;
	S.refuse_code = -6;
	S.refuse_msg = "Insufficient funds";
	step(10, 10, 1);
	expect_seq("sendmany listtransactions getbalance");
	expect_batch(1, "refused", 2, 600000, 1, -1);
	expect_log(warn);
	FAIL_IF(strstr(T.fx.status, warn) == NULL,
	        "refused for funds, yet the status line lacks \"%s\": \"%s\"",
	        warn, T.fx.status);
	EXPECT_Q(warn, "SELECT warning FROM dealer_balance WHERE id = %d", 1);
	fx_close();
}

/*
 * Regression (daemon/payout_btc.c, pass_end, fixed): a batch is paid and the
 * wallet is left with less than was just paid (0.0039859 after paying 0.006).
 * pass_end compares the balance read after the send with the payable sum
 * computed before it, and says "INSUFFICIENT FUNDS ... 0.00600000 payable owed;
 * payouts stay owed until funds arrive" (STATUS, the log, dealer_balance)
 * although nothing is owed any more: every payout is in flight.  Expected: no
 * warning.
 */
static void test_paid_no_false_warning(void **state)
{
	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.balance = "0.00398590"; /* after the send */
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	expect_batch(1, "sent", 2, 600000, 0, 0);
	expect_contains(T.fx.status, "payouts: 0 owed (0.00000000;");
	expect_contains(T.fx.status, "3 in flight (0.00600000)");
	FAIL_IF(strstr(T.fx.status, "INSUFFICIENT") != NULL,
	        "everything paid, yet the status warns: \"%s\"", T.fx.status);
	EXPECT_Q("",
	         "SELECT ifnull(warning, '') FROM dealer_balance WHERE id "
	         "= %d",
	         1);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 5. Restarts                                                         */

/* A daemon killed between the commit of its batch and the call: the
 * next one does not send blindly.  It asks whether the node runs a
 * sendmany, looks for the comment, and only then sends the batch as
 * committed. */
static void test_restart_before_call(void **state)
{
	static const char *const ids[] = {"refund:a1", "refund:a2",
	                                  "refund:b1"};
	const hj_batch_output outs[] = {{A1, 100000}, {A2, 500000}};
	hj_batch_plan plan = {.height = 9,
	                      .now = (int64_t)time(NULL),
	                      .outs = outs,
	                      .nouts = 2,
	                      .payouts = ids,
	                      .npayouts = 3};
	char err[HJ_ERRLEN] = "";
	int64_t id = 0;

	(void)state;
	fx_open(NULL);
	owe_two(5);
	assert_int_equal(hj_store_begin(T.fx.store, err, sizeof err), 0);
	if (hj_store_plan_batch(T.fx.store, &plan, &id, err, sizeof err))
		fail_msg("plan: %s", err);
	assert_int_equal(hj_store_commit(T.fx.store, err, sizeof err), 0);
	assert_int_equal(id, 1);

	step(10, 10, 1);
	expect_seq("getrpcinfo listtransactions sendmany getbalance");
	assert_string_equal(params_of("sendmany", 0),
	                    sendmany_of(TWO_OUTPUTS, 1));
	assert_string_equal(N.at_send,
	                    "planned|2|600000|0 refund:a1 refund:a2 refund:b1 "
	                    "owed");
	expect_batch(1, "sent", 2, 600000, 0, 0);
	EXPECT_Q("9", "SELECT created_height FROM payout_batches WHERE id = %d",
	         1);
	assert_int_equal(q_int("SELECT count(*) FROM payout_batches"), 1);
	fx_close();
}

/* Killed after the node began the call: the new process waits while the
 * node still runs a sendmany (every 250 ms), then finds the transaction
 * by its comment.  sendmany once. */
static void test_restart_during_call(void **state)
{
	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.send = SEND_STOP_AFTER;
	step(10, 10, 0); /* the node stops the loop inside sendmany */
	expect_seq("sendmany");
	assert_int_equal(W.ntx, 1);
	expect_batch(1, "planned", 2, 600000, 0, -1);

	restart();
	S.send = SEND_OK;
	S.rpcinfo_busy = 2;
	step(11, 11, 1);
	expect_seq("getrpcinfo getrpcinfo getrpcinfo listtransactions "
	           "gettransaction getbalance");
	assert_true(time_of("getrpcinfo", 1) >= time_of("getrpcinfo", 0) + 250);
	assert_true(time_of("getrpcinfo", 2) >= time_of("getrpcinfo", 1) + 250);
	expect_batch(1, "sent", 2, 600000, 0, 0);
	expect_payout("refund:b1", "submitted", 0, 11, 0);
	assert_int_equal(N.sendmany, 1);
	assert_int_equal(W.ntx, 1);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 6. The lookup                                                       */

/* listtransactions pages of 100 from the newest back, until a page that
 * starts before the batch was planned (less two hours): 300 old entries,
 * the batch, 150 new ones: two pages, found on the second.  The same
 * absent, with entries that are not the batch's send (another category,
 * another batch's comment): two pages, then sent again. */
static void test_lookup_pages(void **state)
{
	int64_t now = (int64_t)time(NULL);

	(void)state;
	for (int absent = 0; absent < 2; absent++) {
		pfx_use_db(&T.fx, absent ? "absent.sqlite" : "found.sqlite");
		fx_open(NULL);
		owe("refund:a1", P1, 100000, 5);
		foreign(300, now - 3 * 86400, "receive", "");
		S.send = absent ? SEND_LOST_BEFORE : SEND_LOST_AFTER;
		step(10, 10, 1);
		expect_seq("sendmany getbalance");
		foreign(1, now, "receive", comment_of(1));
		foreign(1, now, "send", comment_of(11));
		foreign(148, now, "receive", "");

		S.send = SEND_OK;
		step(11, 11, 1);
		expect_seq(absent ? "getrpcinfo listtransactions "
		                    "listtransactions sendmany getbalance"
		                  : "getrpcinfo listtransactions "
		                    "listtransactions gettransaction "
		                    "getbalance");
		assert_string_equal(params_of("listtransactions", 0),
		                    "[\"*\",100,0,true]");
		assert_string_equal(params_of("listtransactions", 1),
		                    "[\"*\",100,100,true]");
		expect_batch(1, "sent", 1, 100000, 1, 0);
		if (absent)
			assert_string_equal(params_of("sendmany", 1),
			                    params_of("sendmany", 0));
		assert_int_equal(W.ntx, 1);
		fx_close();
	}
}

/* ------------------------------------------------------------------ */
/* 7. Sent batches: conflicts, replacements, the mempool                */

/* Conflicted by a transaction with 1, then 2 confirmations: it may still
 * confirm, nothing moves.  With 3 (the daemon's confirmations): the
 * wallet is searched for another transaction with the comment, none: the
 * batch is reverted, its payouts owed again and paid by a new batch in
 * the same pass. */
static void test_conflict(void **state)
{
	char want[400];

	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_batch(1, "sent", 1, 100000, 0, 0);
	expect_seq("sendmany getbalance");

	for (long long c = -1; c >= -2; c--) {
		W.tx[0].conf = c;
		step(10 - (uint64_t)c, 10 - (uint64_t)c, 1);
		expect_seq("gettransaction getbalance");
		expect_batch(1, "sent", 1, 100000, 0, 0);
		expect_payout("refund:a1", "submitted", 0, 10, 0);
	}

	W.tx[0].conf = -3;
	step(13, 13, 1);
	expect_seq("gettransaction listtransactions sendmany getbalance");
	expect_batch(1, "reverted", 1, 100000, 0, 0);
	snprintf(want, sizeof want,
	         "transaction %s was conflicted by a transaction with 3 or "
	         "more confirmations and can never confirm: owed again",
	         tx(0));
	EXPECT_Q(want, "SELECT last_error FROM payout_batches WHERE id = %d",
	         1);
	assert_string_equal(params_of("sendmany", 1),
	                    sendmany_of("\"" A1 "\":0.00100000", 2));
	expect_batch(2, "sent", 1, 100000, 0, 1);
	expect_payout("refund:a1", "submitted", 1, 13, 0);
	snprintf(want, sizeof want,
	         "payouts: batch 1: transaction %s was "
	         "conflicted",
	         tx(0));
	expect_log(want);
	fx_close();
}

/* A replacement the operator made with bumpfee (same outputs, same
 * comment): followed, then confirmed under it.  A final conflict while
 * another transaction with the comment can still confirm: followed, not
 * reverted. */
static void test_replacement(void **state)
{
	struct wtx *r;
	char want[400];

	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_seq("sendmany getbalance");

	r = make_tx(W.tx[0].out, W.tx[0].nout, W.tx[0].comment);
	snprintf(W.tx[0].replaced_by, sizeof W.tx[0].replaced_by, "%s",
	         r->txid);
	snprintf(r->replaces, sizeof r->replaces, "%s", W.tx[0].txid);
	step(11, 11, 1);
	expect_seq("gettransaction getbalance");
	expect_batch(1, "sent", 1, 100000, 0, 1);
	expect_payout("refund:a1", "submitted", 1, 10, 0);
	snprintf(want, sizeof want,
	         "was replaced by %s (bumpfee); following it", tx(1));
	expect_log(want);

	W.tx[1].conf = 3;
	W.tx[1].height = 11;
	owe("refund:b1", P2, 500000, 11);
	step(13, 13, 1);
	expect_seq("gettransaction sendmany getbalance");
	snprintf(want, sizeof want, "[\"%s\",true]", tx(1));
	assert_string_equal(params_of("gettransaction", 1), want);
	EXPECT_Q("confirmed|11",
	         "SELECT state || '|' || confirmed_height FROM "
	         "payout_batches WHERE id = %d",
	         1);
	expect_payout("refund:a1", "confirmed", 1, 10, 11);
	expect_batch(2, "sent", 1, 500000, 0, 2);

	/* Batch 2's transaction conflicted for good; another with its
	 * comment, unconfirmed, may still confirm. */
	W.tx[2].conf = -3;
	r = make_tx(W.tx[2].out, W.tx[2].nout, W.tx[2].comment);
	step(14, 14, 1);
	expect_seq("gettransaction listtransactions getbalance");
	expect_batch(2, "sent", 1, 500000, 0, 3);
	expect_payout("refund:b1", "submitted", 3, 13, 0);
	snprintf(want, sizeof want, "following %s, which carries its comment",
	         tx(3));
	expect_log(want);
	assert_int_equal(N.sendmany, 2);
	fx_close();
}

/* Out of the node's mempool ("trusted": false): the same signed bytes
 * again (sendrawtransaction), refused or not, nothing else changes.  Not
 * in the wallet at all (-5): a warning, the payouts stay submitted. */
static void test_mempool_and_wallet(void **state)
{
	char hex[2 * sizeof W.tx[0].raw + 1], want[sizeof hex + 8];

	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_seq("sendmany getbalance");

	W.tx[0].dropped = 1;
	step(11, 11, 1);
	expect_seq("gettransaction sendrawtransaction getbalance");
	hj_hex_encode(W.tx[0].raw, W.tx[0].len, 0, hex);
	snprintf(want, sizeof want, "[\"%s\"]", hex);
	assert_string_equal(params_of("sendrawtransaction", 0), want);
	expect_log("was not in the node's mempool; sent it again (the same "
	           "transaction)");
	S.rawtx_error = "bad-txns-inputs-missingorspent";
	step(12, 12, 1);
	expect_seq("gettransaction sendrawtransaction getbalance");
	expect_log("is not in the node's mempool and could not be sent again");
	expect_batch(1, "sent", 1, 100000, 0, 0);

	/* The wallet forgot it. */
	W.tx[0].txid[0] ^= 0x01;
	step(13, 13, 1);
	W.tx[0].txid[0] ^= 0x01;
	expect_seq("gettransaction getbalance");
	expect_log("(not in the wallet: was the wallet replaced? its payouts "
	           "stay submitted)");
	expect_batch(1, "sent", 1, 100000, 0, 0);
	expect_payout("refund:a1", "submitted", 0, 10, 0);
	assert_int_equal(N.sendmany, 1);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 8. A transaction with the batch's comment that is not the batch's    */

/* Found by its comment, but: one unit short, paid to another address,
 * bytes that do not hash to its txid, no bytes.  PAYOUTS HALTED: nothing
 * is recorded and nothing more is sent, whatever is owed later. */
static void test_mismatch_halts(void **state)
{
	static const char *const why[] = {
	    "", "it does not pay 0.00500000 to " A2,
	    "it does not pay 0.00500000 to " A2,
	    "its hex does not hash to its txid", "gettransaction gave no hex"};
	char db[32], want[1024];

	(void)state;
	for (int k = 1; k <= 4; k++) {
		snprintf(db, sizeof db, "halt%d.sqlite", k);
		pfx_use_db(&T.fx, db);
		fx_open(NULL);
		owe_two(5);
		S.send = SEND_LOST_AFTER;
		S.tamper = k;
		step(10, 10, 1);
		expect_seq("sendmany getbalance");

		S.send = SEND_OK;
		step(11, 11, 1);
		expect_seq("getrpcinfo listtransactions gettransaction "
		           "getbalance");
		snprintf(want, sizeof want,
		         "; PAYOUTS HALTED: transaction %s of wallet " WALLET
		         " carries the comment of batch 1 but does not pay its "
		         "outputs (%s); nothing more is sent until an operator "
		         "checks (docs/PAYOUTS.md)",
		         tx(0), why[k]);
		expect_contains(T.fx.status, want);
		EXPECT_Q(want + 2,
		         "SELECT warning FROM dealer_balance WHERE "
		         "id = %d",
		         1);
		expect_batch(1, "planned", 2, 600000, 1, -1);

		owe("refund:c1", P3, 5000, 11);
		for (uint64_t h = 12; h < 14; h++) {
			step(h, h, 1);
			expect_seq("getbalance");
		}
		expect_contains(T.fx.status, want);
		assert_int_equal(N.sendmany, 1);
		expect_batch(1, "planned", 2, 600000, 1, -1);
		assert_int_equal(q_int("SELECT count(*) FROM payout_batches"),
		                 1);
		EXPECT_Q("0",
		         "SELECT count(*) FROM payouts WHERE state <> "
		         "'%s'",
		         "owed");
		fx_close();
	}
}

/* ------------------------------------------------------------------ */
/* 9. Malformed answers: never a crash, never a payment                 */

/* sendmany answers something that is not a txid (the wallet made the
 * transaction): the batch stays planned; at the next block it is found by
 * its comment.  sendmany once. */
static void test_malformed_sendmany(void **state)
{
	static const char *const bad[] = {
	    "42", "null", "\"\"", "\"zz\"", "{}", "[]",
	    /* A txid with "0x": not what the node writes. */
	    ("\"0x0000000000000000000000000000000000000000000000000000000000000"
	     "001\"")};
	char db[32];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(db, sizeof db, "odd%zu.sqlite", i);
		pfx_use_db(&T.fx, db);
		fx_open(NULL);
		owe_two(5);
		S.send = SEND_ODD_RESULT;
		S.send_result = bad[i];
		step(10, 10, 1);
		expect_seq("sendmany getbalance");
		expect_batch(1, "planned", 2, 600000, 1, -1);
		EXPECT_Q("sendmany answered no txid: the wallet may have sent "
		         "it",
		         "SELECT last_error FROM payout_batches WHERE id = %d",
		         1);

		S.send = SEND_OK;
		step(11, 11, 1);
		expect_seq("getrpcinfo listtransactions gettransaction "
		           "getbalance");
		expect_batch(1, "sent", 2, 600000, 1, 0);
		assert_int_equal(N.sendmany, 1);
		assert_int_equal(W.ntx, 1);
		fx_close();
	}
}

/* getrpcinfo without a list of commands: taken as busy, asked again;
 * listtransactions that is not a list: nothing is sent, asked again at
 * the next block; then the batch is found. */
static void test_malformed_lookup(void **state)
{
	static const char *const bad_list[] = {"{}", "null", "\"[]\"", "7"};

	(void)state;
	fx_open(NULL);
	owe_two(5);
	S.send = SEND_LOST_AFTER;
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	S.send = SEND_OK;

	for (size_t i = 0; i < sizeof bad_list / sizeof bad_list[0]; i++) {
		S.list_bad = bad_list[i];
		S.list_bad_n = 1;
		step(11 + i, 11 + i, 1);
		expect_seq("getrpcinfo listtransactions getbalance");
		expect_batch(1, "planned", 2, 600000, 1, -1);
	}
	expect_log("payouts: looking for batch 1 in wallet " WALLET
	           ": listtransactions did not return a list; nothing is sent "
	           "before it is found or known absent");

	S.rpcinfo_bad = "{\"active_commands\":{\"method\":\"getrpcinfo\"}}";
	S.rpcinfo_bad_n = 1;
	S.rpcinfo_busy = 0;
	step(20, 20, 1);
	expect_seq("getrpcinfo getrpcinfo listtransactions gettransaction "
	           "getbalance");
	expect_log("payouts: getrpcinfo: no active_commands; asking again");
	expect_batch(1, "sent", 2, 600000, 1, 0);
	assert_int_equal(N.sendmany, 1);
	fx_close();
}

/* gettransaction of a sent batch that says nothing usable: nothing is
 * decided; then a good answer confirms.  getbalance that is not an
 * amount: no balance shown, none recorded. */
static void test_malformed_gettransaction(void **state)
{
	static const char *const bad[] = {
	    "42",
	    "{}",
	    "[]",
	    "{\"confirmations\":\"3\",\"blockheight\":10}",
	    "{\"confirmations\":3.5,\"blockheight\":10}",
	    "{\"confirmations\":null,\"blockheight\":10}",
	    "{\"confirmations\":0,\"trusted\":false}",
	    "{\"confirmations\":0,\"trusted\":false,\"hex\":7}",
	    "{\"confirmations\":0,\"replaced_by_txid\":\"zz\"}",
	    "{\"confirmations\":-2,\"replaced_by_txid\":42}",
	};
	static const char *const bad_balance[] = {"\"2.0\"", "-1", "null", "{}",
	                                          "1e300"};
	uint64_t h = 11;

	(void)state;
	fx_open(NULL);
	for (size_t i = 0; i < sizeof bad_balance / sizeof bad_balance[0];
	     i++) {
		S.balance = bad_balance[i];
		step(1 + i, 1 + i, 1);
		expect_seq("getbalance");
		expect_contains(T.fx.status, "wallet " WALLET " balance ?");
		assert_int_equal(q_int("SELECT count(*) FROM dealer_balance"),
		                 0);
	}
	S.balance = RICH;

	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		S.gettx_bad = bad[i];
		S.gettx_bad_n = 1;
		step(h, h, 1);
		h++;
		expect_seq("gettransaction getbalance");
		expect_batch(1, "sent", 1, 100000, 0, 0);
		expect_payout("refund:a1", "submitted", 0, 10, 0);
	}
	W.tx[0].conf = 3;
	W.tx[0].height = 11;
	step(h, h, 1);
	expect_seq("gettransaction getbalance");
	expect_payout("refund:a1", "confirmed", 0, 10, 11);
	assert_int_equal(N.sendmany, 1);
	assert_int_equal(N.rawtx, 0);
	fx_close();
}

/*
 * Regression (daemon/payout_btc.c, on_gettx, fixed): gettransaction without
 * "blockheight" (or with a negative one) and more confirmations than the
 * tip height + 1 the payer was given: the block is computed as
 * tip + 1 - confirmations in unsigned 64 bits, wraps, and
 * hj_store_batch_confirmed refuses the height; the payer takes the
 * refusal for a store failure and calls on_fatal, which stops the daemon
 * (and again at every restart while the node answers so).  A node's
 * answer must never stop the daemon.  Expected: no fatal error, and no
 * confirmation recorded in a block above the tip.
 */
static void test_confirmations_above_tip(void **state)
{
	(void)state;
	fx_open(NULL);
	owe("refund:a1", P1, 100000, 5);
	step(10, 10, 1);
	expect_seq("sendmany getbalance");

	S.gettx_bad = "{\"confirmations\":100}";
	S.gettx_bad_n = 1;
	hjd_payer_kick(T.fx.payer, 11, 11, 12 - T.fx.conf);
	T.fx.until = T.fx.passes + 1;
	assert_int_equal(
	    uv_timer_start(&T.fx.guard, pfx_on_guard, PFX_GUARD_MS, 0), 0);
	uv_run(&T.fx.loop, UV_RUN_DEFAULT);
	pfx_log_off(&T.fx);
	uv_timer_stop(&T.fx.guard);
	FAIL_IF(T.fx.nfatal != 0,
	        "a gettransaction answer stopped the daemon (on_fatal: %s)",
	        T.fx.fatal);
	assert_false(T.fx.guard_fired);
	EXPECT_Q("0",
	         "SELECT count(*) FROM payout_batches WHERE "
	         "confirmed_height > %d",
	         11);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 10. HTTP faults                                                     */

/* HTTP 500 and bodies that are not JSON: calls that may be repeated are
 * retried by the client; sendmany is not (its outcome is unknown: the
 * batch stays planned and is looked up before it is sent again).  Every
 * payout paid once. */
static void test_http_faults(void **state)
{
	(void)state;
	fx_open(NULL);
	S.fault_method = "getbalance";
	S.fault_n = 2;
	S.fault_status = 500;
	S.fault_body = "oops";
	step(9, 9, 1);
	expect_seq("getbalance getbalance getbalance");
	expect_contains(T.fx.status, "balance 2.00000000");

	owe_two(5);
	S.send = SEND_FAULT;
	S.send_fault_status = 500;
	S.send_fault_body = "<html>bad gateway</html>";
	step(10, 10, 1);
	expect_seq("sendmany getbalance");
	expect_batch(1, "planned", 2, 600000, 1, -1);
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_batches WHERE last_error "
	         "LIKE '" NO_ANSWER_LIKE "' AND last_error LIKE '%%%s%%'",
	         "HTTP 500");

	S.send = SEND_FAULT;
	S.send_fault_status = 200;
	S.send_fault_body = "{\"result\":";
	S.fault_method = "listtransactions";
	S.fault_n = 1;
	S.fault_body = "{not json";
	step(11, 11, 1);
	expect_seq("getrpcinfo listtransactions listtransactions sendmany "
	           "getbalance");
	expect_batch(1, "planned", 2, 600000, 2, -1);
	EXPECT_Q("1",
	         "SELECT count(*) FROM payout_batches WHERE last_error "
	         "LIKE '" NO_ANSWER_LIKE "' AND last_error LIKE '%%%s%%'",
	         "not JSON");

	S.send = SEND_OK;
	S.fault_method = "getrpcinfo";
	S.fault_n = 1;
	S.fault_status = 503;
	S.fault_body = "";
	step(12, 12, 1);
	expect_seq("getrpcinfo getrpcinfo listtransactions sendmany "
	           "getbalance");
	assert_string_equal(params_of("sendmany", 2), params_of("sendmany", 0));
	expect_batch(1, "sent", 2, 600000, 2, 0);

	W.tx[0].conf = 3;
	W.tx[0].height = 12;
	S.fault_method = "gettransaction";
	S.fault_n = 1;
	S.fault_status = 502;
	S.fault_body = "]]";
	step(15, 15, 1);
	expect_seq("gettransaction gettransaction getbalance");
	expect_batch(1, "confirmed", 2, 600000, 2, 0);
	EXPECT_Q("0", "SELECT count(*) FROM payouts WHERE state <> '%s'",
	         "confirmed");
	assert_int_equal(N.sendmany, 3);
	assert_int_equal(W.ntx, 1);
	assert_int_equal(N.faults, 5);
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 10a. The Commit of a planned seed chain (committed cards)           */

#define UTXO_A                                                                 \
	"1111111111111111111111111111111111111111111111111111111111111111"
#define UTXO_B                                                                 \
	"2222222222222222222222222222222222222222222222222222222222222222"
#define UNSPENT_OF(t, v, amount)                                               \
	"{\"txid\":\"" t "\",\"vout\":" v ",\"address\":\"" DEALER             \
	"\",\"amount\":" amount ",\"confirmations\":3,\"spendable\":true,"     \
	"\"solvable\":true,\"safe\":true}"
#define UNSPENT_AB                                                             \
	"[" UNSPENT_OF(UTXO_A, "0", "0.50000000") "," UNSPENT_OF(              \
	    UTXO_B, "3", "1.00000000") "]"
#define UNSPENT_A "[" UNSPENT_OF(UTXO_A, "0", "0.50000000") "]"
#define AB32      "abababababababababababababababababababababababababababababababab"
/* 484a 01 08, H = 40, L = 12, s_0 = 0xab... */
#define PAYLOAD                                                                \
	"484a01080000000000000028"                                             \
	"0000000c" AB32
#define CHAIN_Q                                                                \
	"SELECT state || '|' || CASE WHEN txid IS NULL THEN 'NULL' ELSE "      \
	"lower(hex(txid)) END || '|' || ifnull(length(tx), 0) FROM "           \
	"seed_chains"
#define COMMIT_SEQ                                                             \
	"listunspent createrawtransaction fundrawtransaction "                 \
	"signrawtransactionwithwallet lockunspent sendrawtransaction"

/* The planned chain the follower would have recorded: s_0 = 0xab...,
 * 12 seeds from block 40. */
static void plan_chain(void)
{
	hj_store_seed_chain r;
	int64_t id;
	char err[HJ_ERRLEN] = "";

	memset(&r, 0, sizeof r);
	memset(r.commitment, 0xab, 32);
	r.start = 40;
	r.length = 12;
	r.created_height = 30;
	r.created_at = 1;
	if (hj_store_begin(T.fx.store, err, sizeof err) ||
	    hj_store_add_seed_chain(T.fx.store, &r, &id, err, sizeof err) ||
	    hj_store_commit(T.fx.store, err, sizeof err))
		fail_msg("store: %s", err);
}

static void expect_chain_tx(const char *state)
{
	char want[200], hex[1025];

	snprintf(want, sizeof want, "%s|%s|%zu", state, CM.txid, CM.len);
	EXPECT_Q(want, CHAIN_Q);
	hj_hex_encode(CM.raw, CM.len, 0, hex);
	EXPECT_Q(hex, "SELECT lower(hex(tx)) FROM seed_chains");
}

/* The largest output of the dealer address, the payload in OP_RETURN,
 * the change back: recorded before it is sent, locked, sent; followed
 * (nothing while it is in the mempool or mined, the same bytes when it
 * left the mempool); nothing once dealt. */
static void test_commit_sent(void **state)
{
	char err[HJ_ERRLEN] = "";

	(void)state;
	fx_open(NULL);
	plan_chain();
	S.unspent = UNSPENT_AB;
	step(30, 31, 1);
	expect_seq(COMMIT_SEQ " getbalance");
	assert_string_equal(params_of("listunspent", 0),
	                    "[1,9999999,[\"" DEALER "\"],false]");
	assert_string_equal(params_of("createrawtransaction", 0),
	                    "[[{\"txid\":\"" UTXO_B "\",\"vout\":3}],"
	                    "[{\"data\":\"" PAYLOAD "\"}]]");
	assert_string_equal(params_of("fundrawtransaction", 0),
	                    "[\"c0ffee\",{\"add_inputs\":false,"
	                    "\"changeAddress\":\"" DEALER "\","
	                    "\"changePosition\":1}]");
	assert_string_equal(params_of("signrawtransactionwithwallet", 0),
	                    "[\"f00d\"]");
	assert_string_equal(params_of("lockunspent", 0),
	                    "[false,[{\"txid\":\"" UTXO_B "\",\"vout\":3}]]");
	/* Recorded before the node had it. */
	assert_string_equal(CM.at_send, CM.txid);
	assert_int_equal(CM.known, 1);
	expect_chain_tx("planned");
	expect_log("committed cards: the Commit of seed chain " AB32
	           " (12 seeds from block 40): transaction ");
	expect_log("recorded; sending it");
	expect_log(" (12 seeds from block 40) sent: txid ");

	step(31, 32, 1);
	expect_seq("gettransaction getbalance");
	CM.dropped = 1;
	step(32, 33, 1);
	expect_seq("gettransaction lockunspent sendrawtransaction getbalance");
	assert_string_equal(params_of("sendrawtransaction", 1),
	                    params_of("sendrawtransaction", 0));
	expect_log("sent again: txid ");
	CM.conf = 2;
	step(33, 34, 1);
	expect_seq("gettransaction getbalance");

	assert_int_equal(hj_store_begin(T.fx.store, err, sizeof err), 0);
	{
		uint8_t c[32];

		memset(c, 0xab, 32);
		assert_int_equal(hj_store_seed_chain_end(T.fx.store, c, "dealt",
		                                         err, sizeof err),
		                 0);
	}
	assert_int_equal(hj_store_commit(T.fx.store, err, sizeof err), 0);
	step(35, 36, 1);
	expect_seq("getbalance");
	expect_chain_tx("dealt");
	fx_close();
}

/* The node refused the send (not for a spent input), the daemon
 * restarted: the wallet does not know the transaction, so it is sent
 * again, the same bytes; never built twice. */
static void test_commit_restart(void **state)
{
	char txid[65];

	(void)state;
	fx_open(NULL);
	plan_chain();
	S.unspent = UNSPENT_AB;
	S.rawtx_error = "min relay fee not met, 100 < 141";
	step(30, 31, 1);
	expect_seq(COMMIT_SEQ " getbalance");
	assert_int_equal(CM.known, 0);
	expect_chain_tx("planned");
	snprintf(txid, sizeof txid, "%s", CM.txid);
	expect_log("committed cards: the Commit of seed chain " AB32
	           " (12 seeds from block 40): sendrawtransaction: ");

	restart();
	S.rawtx_error = NULL;
	step(31, 32, 1);
	expect_seq("gettransaction lockunspent sendrawtransaction getbalance");
	assert_string_equal(params_of("sendrawtransaction", 1),
	                    params_of("sendrawtransaction", 0));
	assert_string_equal(params_of("lockunspent", 1),
	                    params_of("lockunspent", 0));
	assert_int_equal(CM.known, 1);
	assert_string_equal(CM.txid, txid);
	expect_chain_tx("planned");
	step(32, 33, 1);
	expect_seq("gettransaction getbalance");
	fx_close();
}

/* Nothing to spend, too little for the fee and a change, a wallet that
 * cannot sign: nothing recorded, the warning in STATUS and the balance
 * row; gone once the Commit is sent. */
static void test_commit_no_output(void **state)
{
	(void)state;
	fx_open(NULL);
	plan_chain();
	step(30, 31, 1);
	expect_seq("listunspent getbalance");
	EXPECT_Q("planned|NULL|0", CHAIN_Q);
	expect_contains(
	    T.fx.status,
	    "; INSUFFICIENT FUNDS for the Commit of seed chain " AB32
	    " (12 seeds from block 40): the dealer address has no "
	    "spendable output in wallet " WALLET
	    "; send coins to the dealer address " DEALER
	    " itself, an address of wallet " WALLET);
	expect_log("committed cards: INSUFFICIENT FUNDS for the Commit");
	EXPECT_Q("1", "SELECT warning LIKE 'INSUFFICIENT FUNDS for the "
	              "Commit%%' FROM dealer_balance");

	S.unspent = UNSPENT_A;
	S.changepos = -1;
	step(31, 32, 1);
	expect_seq("listunspent createrawtransaction fundrawtransaction "
	           "getbalance");
	expect_contains(T.fx.status, "leaves no change above dust");
	EXPECT_Q("planned|NULL|0", CHAIN_Q);

	S.changepos = 0;
	S.sign_incomplete = 1;
	step(32, 33, 1);
	expect_seq("listunspent createrawtransaction fundrawtransaction "
	           "signrawtransactionwithwallet getbalance");
	expect_log("wallet " WALLET " cannot sign for the dealer address");
	EXPECT_Q("planned|NULL|0", CHAIN_Q);

	S.sign_incomplete = 0;
	step(33, 34, 1);
	expect_seq(COMMIT_SEQ " getbalance");
	expect_chain_tx("planned");
	FAIL_IF(strstr(T.fx.status, "INSUFFICIENT") != NULL, "status: %s",
	        T.fx.status);
	EXPECT_Q("", "SELECT ifnull(warning, '') FROM dealer_balance");
	fx_close();
}

/* Conflicted by a young transaction: waited for; by a final one (conf 3):
 * a new transaction, from another output, recorded over it.  One the
 * node never took and now refuses for its spent input: a new one at once,
 * twice a pass at most. */
static void test_commit_conflicted(void **state)
{
	char old[65];

	(void)state;
	fx_open(NULL);
	plan_chain();
	S.unspent = UNSPENT_AB;
	step(30, 31, 1);
	expect_seq(COMMIT_SEQ " getbalance");
	snprintf(old, sizeof old, "%s", CM.txid);
	CM.conf = -2;
	step(31, 32, 1);
	expect_seq("gettransaction getbalance");
	CM.conf = -3;
	S.unspent = UNSPENT_A;
	step(32, 33, 1);
	expect_seq("gettransaction " COMMIT_SEQ " getbalance");
	assert_string_equal(params_of("createrawtransaction", 1),
	                    "[[{\"txid\":\"" UTXO_A "\",\"vout\":0}],"
	                    "[{\"data\":\"" PAYLOAD "\"}]]");
	FAIL_IF(strcmp(CM.txid, old) == 0, "the same transaction");
	expect_chain_tx("planned");
	expect_log("can never be mined; a new transaction replaces it");

	/* Unknown to the wallet, refused for its spent input. */
	restart();
	CM.known = 0;
	S.rawtx_error = "bad-txns-inputs-missingorspent";
	step(33, 34, 1);
	expect_seq("gettransaction lockunspent sendrawtransaction " COMMIT_SEQ
	           " " COMMIT_SEQ " getbalance");
	expect_log("its input was spent by another transaction before the "
	           "node ever took it");
	expect_log("its inputs keep being spent elsewhere");
	S.rawtx_error = NULL;
	step(34, 35, 1);
	expect_seq("gettransaction lockunspent sendrawtransaction getbalance");
	assert_int_equal(CM.known, 1);
	expect_chain_tx("planned");
	fx_close();
}

/* ------------------------------------------------------------------ */
/* 11. The constructor                                                 */

/* A wallet without a name, a node URL that is not one: refused, naming the
 * problem; no handle left on the loop. */
static void test_new_refused(void **state)
{
	char err[HJ_ERRLEN];

	(void)state;
	pfx_open_bare(&T.fx, "http://127.0.0.1:9/", NULL);
	T.o = DEFAULTS;
	T.wallet = "";
	assert_int_equal(payer_new(err, sizeof err), -EINVAL);
	assert_null(T.fx.payer);
	expect_contains(err, "[payout] wallet: ");
	T.wallet = WALLET;
	T.fx.ro.url = "127.0.0.1:9";
	assert_int_equal(payer_new(err, sizeof err), -EINVAL);
	assert_null(T.fx.payer);
	expect_contains(err, "[payout] wallet: bad URL");
	pfx_close(&T.fx); /* the loop runs dry, uv_loop_close() == 0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_happy_path, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dust, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_max_outputs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unattributed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost_answer_found, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_lost_answer_absent, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_lost_answer_reused_connection,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_funds, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_for_the_fee, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_paid_no_false_warning, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_restart_before_call, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_restart_during_call, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_lookup_pages, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replacement, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mempool_and_wallet, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_mismatch_halts, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_sendmany, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_lookup, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_gettransaction,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_confirmations_above_tip, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_http_faults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_sent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_restart, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_commit_no_output, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_commit_conflicted, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_new_refused, setup, teardown),
	};

	pfx_no_proxy();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
