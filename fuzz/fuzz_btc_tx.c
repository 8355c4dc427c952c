/*
 * One raw Bitcoin-family transaction (chain/btc_tx.h), then everything the
 * daemon asks of it: txid and wtxid, the outputs, their data pushes, the
 * data output with the magic, the sum paid to a script, and the action it
 * is for a fixed dealer (chain/btc.h, hj_btc_action).
 *
 * A transaction that parses is the whole input, its parts in order; its
 * txid is that of its stripped form (version, inputs, outputs, locktime),
 * which parses on its own to the same outputs; its wtxid is that of the
 * whole (or of its flag-01 form without the MWEB part); the outputs walk
 * ends where the outputs do, each data push is what the rule of
 * hj_btc_script_data (written again here) says, and the sums, the data
 * output found and the action agree with the walk.  ASan watches that
 * nothing reads past the input, which is a heap copy of exactly its size.
 */
#include <errno.h>

#include "fuzz.h"

#include "btc.h"
#include "btc_tx.h"
#include "payload.h"
#include "say.h"
#include "sha256.h"

/* The dealer of the captured Litecoin MWEB blocks (tests/data/btc), so
 * that the seeds' transactions to it are actions. */
static const uint8_t dealer[] = {0x00, 0x14, 0x50, 0x18, 0x78, 0xa5, 0xf2, 0x82,
                                 0x80, 0xfa, 0x00, 0xdb, 0x2d, 0xac, 0xc3, 0xfb,
                                 0x39, 0x68, 0x73, 0x1e, 0x34, 0x11};
static const uint8_t magic[2] = {HJ_MAGIC0, HJ_MAGIC1};

/* The data-output rule of btc_tx.h, written again: OP_RETURN and exactly
 * one push of 1 or more bytes by 01..4b, 4c or 4d that ends the script. */
static int ref_data(const uint8_t *s, size_t len, size_t *off, size_t *n)
{
	size_t h, k;

	if (len < 2 || s[0] != 0x6a)
		return 0;
	if (s[1] >= 0x01 && s[1] <= 0x4b) {
		h = 2;
		k = s[1];
	} else if (s[1] == 0x4c && len >= 3) {
		h = 3;
		k = s[2];
	} else if (s[1] == 0x4d && len >= 4) {
		h = 4;
		k = s[2] + 256u * s[3];
	} else {
		return 0;
	}
	if (k == 0 || h + k != len)
		return 0;
	*off = h;
	*n = k;
	return 1;
}

/* The stripped form of tx (its txid's bytes) into a new buffer. */
static uint8_t *stripped(const hj_btc_tx *tx, size_t *len)
{
	size_t body = tx->body_end - tx->body_start;
	uint8_t *b = malloc(8 + body);

	FUZZ_CHECK(b != NULL);
	memcpy(b, tx->raw, 4);
	memcpy(b + 4, tx->raw + tx->body_start, body);
	memcpy(b + 4 + body, tx->raw + tx->raw_len - 4, 4);
	*len = 8 + body;
	return b;
}

/* The flag-01 form of a segwit MWEB transaction, without its MWEB part:
 * what litecoind hashes for its wtxid. */
static uint8_t *witness_form(const hj_btc_tx *tx, size_t *len)
{
	size_t body = tx->witness_end - tx->body_start;
	uint8_t *b = malloc(10 + body);

	FUZZ_CHECK(b != NULL);
	memcpy(b, tx->raw, 4);
	b[4] = 0x00;
	b[5] = 0x01;
	memcpy(b + 6, tx->raw + tx->body_start, body);
	memcpy(b + 6 + body, tx->raw + tx->raw_len - 4, 4);
	*len = 10 + body;
	return b;
}

static int same_outputs(const hj_btc_tx *a, const hj_btc_tx *b)
{
	size_t la = a->body_end - a->outputs_start;

	return a->n_outputs == b->n_outputs &&
	       la == b->body_end - b->outputs_start &&
	       memcmp(a->raw + a->outputs_start, b->raw + b->outputs_start,
	              la) == 0;
}

/* The outputs walk against the rule; fills what the later checks
 * compare with. */
struct walked {
	size_t count;
	int overflow;     /* the outputs to the dealer overflow 64 bits */
	uint64_t sum;     /* to the dealer, when no overflow */
	size_t to_dealer; /* outputs to the dealer */
	int magic_vout;   /* first data output with the magic, or -1 */
	int data_vout;    /* first data output, or -1 */
};

static void walk_outputs(const hj_btc_tx *tx, struct walked *w)
{
	const uint8_t *lo = tx->raw + tx->outputs_start;
	const uint8_t *hi = tx->raw + tx->body_end;
	hj_btc_out_iter it;
	hj_btc_output o;

	memset(w, 0, sizeof *w);
	w->magic_vout = w->data_vout = -1;
	hj_btc_outputs_begin(tx, &it);
	while (hj_btc_outputs_next(&it, &o)) {
		const uint8_t *d = NULL;
		size_t off = 0, n = 0, dn = 0;
		int is_data;

		FUZZ_CHECK(it.index == w->count + 1);
		FUZZ_CHECK(o.script >= lo + 9 && o.script + o.script_len <= hi);
		FUZZ_CHECK(o.script + o.script_len == it.p);
		is_data = hj_btc_script_data(o.script, o.script_len, &d, &dn);
		FUZZ_CHECK(is_data ==
		           ref_data(o.script, o.script_len, &off, &n));
		if (is_data) {
			FUZZ_CHECK(d == o.script + off && dn == n);
			if (w->data_vout < 0)
				w->data_vout = (int)w->count;
			if (w->magic_vout < 0 && dn >= 2 &&
			    memcmp(d, magic, 2) == 0)
				w->magic_vout = (int)w->count;
		}
		if (o.script_len == sizeof dealer &&
		    memcmp(o.script, dealer, sizeof dealer) == 0) {
			w->to_dealer++;
			if (__builtin_add_overflow(w->sum, o.value, &w->sum))
				w->overflow = 1;
		}
		w->count++;
	}
	FUZZ_CHECK(w->count == tx->n_outputs);
	FUZZ_CHECK(it.p == hi);
	FUZZ_CHECK(hj_btc_outputs_next(&it, &o) == 0);
}

static void check_find_sum(const hj_btc_tx *tx, const struct walked *w)
{
	const uint8_t *d;
	size_t dn, vout, count;
	uint64_t sum;
	hj_btc_out_iter it;
	hj_btc_output first;
	int rc;

	rc = hj_btc_tx_find_data(tx, magic, sizeof magic, &d, &dn, &vout);
	FUZZ_CHECK(rc == (w->magic_vout >= 0));
	FUZZ_CHECK(!rc || (vout == (size_t)w->magic_vout && dn >= 2 &&
	                   memcmp(d, magic, 2) == 0));
	rc = hj_btc_tx_find_data(tx, NULL, 0, &d, &dn, NULL);
	FUZZ_CHECK(rc == (w->data_vout >= 0));

	rc = hj_btc_tx_sum_to(tx, dealer, sizeof dealer, &sum, &count);
	FUZZ_CHECK(rc == (w->overflow ? -ERANGE : 0));
	FUZZ_CHECK(rc != 0 || (sum == w->sum && count == w->to_dealer));
	/* Output 0's own script is paid at least once. */
	hj_btc_outputs_begin(tx, &it);
	FUZZ_CHECK(hj_btc_outputs_next(&it, &first) == 1);
	rc = hj_btc_tx_sum_to(tx, first.script, first.script_len, &sum, &count);
	FUZZ_CHECK(rc == -ERANGE ||
	           (rc == 0 && count >= 1 && sum >= first.value));
}

static void check_action(const hj_btc_tx *tx, const struct walked *w)
{
	uint8_t txid[HJ_BTC_HASH_LEN];
	char err[HJ_ERRLEN];
	hj_action a;
	int rc;

	err[0] = '\0';
	rc = hj_btc_action(tx, dealer, sizeof dealer, 7, &a, err, sizeof err);
	if (w->overflow) {
		FUZZ_CHECK(rc == -ERANGE && err[0] != '\0');
		return;
	}
	FUZZ_CHECK(rc == 0 || rc == 1);
	if (rc == 0) {
		/* Not the dealer's: nothing paid to it. */
		FUZZ_CHECK(w->to_dealer == 0);
		return;
	}
	hj_btc_tx_txid(tx, txid);
	FUZZ_CHECK(a.txid.len == HJ_BTC_HASH_LEN);
	for (int i = 0; i < HJ_BTC_HASH_LEN; i++)
		FUZZ_CHECK(a.txid.b[i] == txid[HJ_BTC_HASH_LEN - 1 - i]);
	FUZZ_CHECK(a.tx_index == 7 && a.value == w->sum);
	FUZZ_CHECK(w->to_dealer > 0 || (a.kind == HJ_TX_ACTION && a.has_ref));
	switch (a.kind) {
	case HJ_TX_DEPOSIT:
		FUZZ_CHECK(w->magic_vout < 0 && !a.has_ref);
		break;
	case HJ_TX_MALFORMED:
		FUZZ_CHECK(w->magic_vout >= 0 && !a.has_ref);
		FUZZ_CHECK(a.reason > HJ_OK && a.reason < HJ_R_COUNT);
		break;
	case HJ_TX_ACTION:
		FUZZ_CHECK(w->magic_vout >= 0);
		FUZZ_CHECK(a.act >= HJ_BET && a.act <= HJ_COMMIT);
		/* A Commit names no round: it is the dealer's (docs/PROTOCOL.md
		 * section 15), kept only when it pays the dealer. */
		FUZZ_CHECK(a.has_ref ==
		           (a.act != HJ_BET && a.act != HJ_COMMIT));
		FUZZ_CHECK(a.act != HJ_COMMIT ||
		           (w->to_dealer > 0 && a.commit_length > 0));
		FUZZ_CHECK(a.act != HJ_BET || a.sender.len == 32);
		FUZZ_CHECK(!a.has_ref ||
		           a.signed_len == (a.act == HJ_PEEK ? 5 : 4));
		break;
	default:
		FUZZ_CHECK(0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t txid[HJ_BTC_HASH_LEN], wtxid[HJ_BTC_HASH_LEN];
	uint8_t h[HJ_BTC_HASH_LEN];
	uint8_t *copy, *alt;
	size_t alt_len;
	struct walked w;
	hj_btc_tx tx, tx2;
	char err[HJ_ERRLEN];
	int rc;

	/* A copy of exactly the input's size: past it is a red zone. */
	copy = malloc(size ? size : 1);
	FUZZ_CHECK(copy != NULL);
	if (size)
		memcpy(copy, data, size);
	err[0] = '\0';
	rc = hj_btc_tx_parse(copy, size, &tx, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		free(copy);
		return 0;
	}
	FUZZ_CHECK(tx.raw == copy && tx.raw_len == size && tx.offset == 0);
	FUZZ_CHECK(tx.n_inputs >= 1 && tx.n_outputs >= 1);
	FUZZ_CHECK(tx.segwit == 0 || tx.segwit == 1);
	FUZZ_CHECK(tx.mweb >= HJ_BTC_MWEB_NONE && tx.mweb <= HJ_BTC_MWEB_TX);
	FUZZ_CHECK(tx.body_start ==
	           (tx.segwit || tx.mweb != HJ_BTC_MWEB_NONE ? 6u : 4u));
	FUZZ_CHECK(tx.body_start < tx.outputs_start &&
	           tx.outputs_start < tx.body_end &&
	           tx.body_end <= tx.witness_end &&
	           tx.witness_end + 4 <= tx.raw_len);
	FUZZ_CHECK(tx.segwit == (tx.witness_end > tx.body_end));
	FUZZ_CHECK((tx.mweb == HJ_BTC_MWEB_NONE) ==
	           (tx.witness_end + 4 == tx.raw_len));

	hj_btc_tx_txid(&tx, txid);
	hj_btc_tx_wtxid(&tx, wtxid);
	alt = stripped(&tx, &alt_len);
	hj_sha256d(alt, alt_len, h);
	FUZZ_CHECK(memcmp(h, txid, sizeof h) == 0);
	FUZZ_CHECK(hj_btc_tx_parse(alt, alt_len, &tx2, NULL, 0) == 0);
	FUZZ_CHECK(!tx2.segwit && tx2.mweb == HJ_BTC_MWEB_NONE &&
	           tx2.n_inputs == tx.n_inputs && same_outputs(&tx, &tx2));
	free(alt);
	if (tx.mweb == HJ_BTC_MWEB_NONE) {
		hj_sha256d(copy, size, h);
		FUZZ_CHECK(memcmp(h, wtxid, sizeof h) == 0);
	} else if (!tx.segwit) {
		FUZZ_CHECK(memcmp(txid, wtxid, sizeof txid) == 0);
	} else {
		alt = witness_form(&tx, &alt_len);
		FUZZ_CHECK(hj_btc_tx_parse(alt, alt_len, &tx2, NULL, 0) == 0);
		FUZZ_CHECK(tx2.segwit && tx2.mweb == HJ_BTC_MWEB_NONE &&
		           same_outputs(&tx, &tx2));
		hj_btc_tx_wtxid(&tx2, h);
		FUZZ_CHECK(memcmp(h, wtxid, sizeof h) == 0);
		free(alt);
	}

	walk_outputs(&tx, &w);
	check_find_sum(&tx, &w);
	check_action(&tx, &w);
	free(copy);
	return 0;
}
