/* Raw Bitcoin-family blocks and transactions (see btc_tx.h). */
#include "btc_tx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "hex.h"
#include "say.h"
#include "sha256.h"

/* Least bytes one item can take, to bound counts by the bytes left. */
#define MIN_INPUT   41 /* prevout 36, empty script 1, sequence 4 */
#define MIN_OUTPUT  9  /* value 8, empty script 1 */
#define MIN_WITNESS 1  /* an empty item's length */
/* Version 4, one input 1 + 41, one output 1 + 9, locktime 4. */
#define MIN_TX 60

/* The flags after a segwit-style marker 00: witnesses, Litecoin MWEB. */
#define FLAG_WITNESS 0x01
#define FLAG_MWEB    0x08

/*
 * Litecoin MWEB, as litecoind serializes it (Litecoin Core's
 * src/libmw/include/mw/models: block/Header.h, tx/Input.h, tx/Output.h,
 * tx/Kernel.h, tx/TxBody.h), checked against the blocks litecoind 0.21.2
 * returns (tests/data/btc).  Every size below is fixed by consensus:
 * hashes 32 bytes, Pedersen commitments and public keys 33, signatures 64,
 * range proofs 675.  Optional fields are present when a feature bit says
 * so.
 */
#define MWEB_HASH   32
#define MWEB_COMMIT 33
#define MWEB_PUBKEY 33
#define MWEB_SIG    64
#define MWEB_PROOF  675
/* Features, output id, commitment, output key, signature. */
#define MIN_MWEB_INPUT (1 + MWEB_HASH + MWEB_COMMIT + MWEB_PUBKEY + MWEB_SIG)
/* Commitment, sender and receiver keys, message features, proof, signature. */
#define MIN_MWEB_OUTPUT                                                        \
	(MWEB_COMMIT + 2 * MWEB_PUBKEY + 1 + MWEB_PROOF + MWEB_SIG)
/* Features, excess, signature. */
#define MIN_MWEB_KERNEL (1 + MWEB_COMMIT + MWEB_SIG)
/* Amount VarInt 1, script length 1, one script byte (never empty). */
#define MIN_PEGOUT 3

/* Feature bits.  An input may add its input public key and extra data;
 * an output's message its standard fields (key exchange public key, view
 * tag, masked value, masked nonce) and extra data; a kernel a fee, a
 * peg-in amount, peg-outs, a lock height, a stealth excess, extra data. */
#define MWEB_INPUT_STEALTH_KEY 0x01
#define MWEB_INPUT_EXTRA       0x02
#define MWEB_OUTPUT_STANDARD   0x01
#define MWEB_OUTPUT_EXTRA      0x02
#define MWEB_KERNEL_FEE        0x01
#define MWEB_KERNEL_PEGIN      0x02
#define MWEB_KERNEL_PEGOUT     0x04
#define MWEB_KERNEL_LOCK       0x08
#define MWEB_KERNEL_STEALTH    0x10
#define MWEB_KERNEL_EXTRA      0x20

/*
 * A cursor over buf[0..len).  Every read checks the bytes left first; on
 * failure it writes "[tx N: ]offset O: what" into err and returns -EINVAL.
 * tx is the transaction's index in a block, or -1 outside one.
 */
struct rd {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	int64_t tx;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static void
say(const struct rd *r, size_t at, const char *fmt, ...)
{
	char what[HJ_ERRLEN];
	va_list ap;

	if (r->err == NULL || r->errlen == 0)
		return;
	va_start(ap, fmt);
	hj_vsay(what, sizeof what, fmt, ap);
	va_end(ap);
	if (r->tx >= 0)
		hj_say(r->err, r->errlen, "tx %" PRId64 ": offset %zu: %s",
		       r->tx, at, what);
	else
		hj_say(r->err, r->errlen, "offset %zu: %s", at, what);
}

/* The message, then -EINVAL.  A macro, so that the compiler sees every
 * failure return a non-zero constant: out-parameters left unset on the
 * failure paths are then never thought to be read (gcc's
 * -Wmaybe-uninitialized at -O2 and above). */
#define fail(...) (say(__VA_ARGS__), -EINVAL)

static size_t left(const struct rd *r)
{
	return r->len - r->pos;
}

static int need(const struct rd *r, size_t n, const char *what)
{
	if (left(r) < n)
		return fail(r, r->pos, "%s: need %zu bytes, %zu left", what, n,
		            left(r));
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	int rc = need(r, 4, what);

	if (rc)
		return rc;
	*v = le32(r->buf + r->pos);
	r->pos += 4;
	return 0;
}

static int rd_skip(struct rd *r, size_t n, const char *what)
{
	int rc = need(r, n, what);

	if (rc)
		return rc;
	r->pos += n;
	return 0;
}

/* A CompactSize in its shortest form. */
static int rd_compact(struct rd *r, uint64_t *v, const char *what)
{
	size_t at = r->pos;
	uint64_t min;
	int rc, width;

	rc = need(r, 1, what);
	if (rc)
		return rc;
	switch (r->buf[at]) {
	case 0xfd:
		width = 2;
		min = 0xfd;
		break;
	case 0xfe:
		width = 4;
		min = 0x10000;
		break;
	case 0xff:
		width = 8;
		min = 0x100000000;
		break;
	default:
		*v = r->buf[at];
		r->pos++;
		return 0;
	}
	if (left(r) < 1 + (size_t)width)
		return fail(r, at,
		            "%s: CompactSize prefix 0x%02x needs %d more "
		            "bytes, %zu left",
		            what, r->buf[at], width, left(r) - 1);
	if (width == 2)
		*v = (uint64_t)r->buf[at + 1] | (uint64_t)r->buf[at + 2] << 8;
	else if (width == 4)
		*v = le32(r->buf + at + 1);
	else
		*v = le64(r->buf + at + 1);
	if (*v < min)
		return fail(r, at,
		            "%s: non-canonical CompactSize: %" PRIu64
		            " written with prefix 0x%02x",
		            what, *v, r->buf[at]);
	r->pos += 1 + (size_t)width;
	return 0;
}

/* A count of items of at least min_size bytes each, bounded by the bytes
 * left; the bound also keeps the count within size_t. */
static int rd_count(struct rd *r, size_t *n, size_t min_size, const char *what)
{
	size_t at = r->pos;
	uint64_t v;
	int rc;

	rc = rd_compact(r, &v, what);
	if (rc)
		return rc;
	if (v > left(r) / min_size)
		return fail(r, at,
		            "%s %" PRIu64 " needs at least %zu bytes "
		            "each, %zu bytes left",
		            what, v, min_size, left(r));
	*n = (size_t)v;
	return 0;
}

/* A length-prefixed byte string; sets *at to where its bytes start. */
static int rd_string(struct rd *r, size_t *at, size_t *n, const char *what)
{
	size_t start = r->pos;
	uint64_t v;
	int rc;

	rc = rd_compact(r, &v, what);
	if (rc)
		return rc;
	if (v > left(r))
		return fail(r, start,
		            "%s length %" PRIu64 " exceeds the %zu "
		            "bytes left",
		            what, v, left(r));
	*at = r->pos;
	*n = (size_t)v;
	r->pos += (size_t)v;
	return 0;
}

static int rd_inputs(struct rd *r, size_t n)
{
	char what[48];
	size_t at, slen;
	int rc;

	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof what, "input %zu prevout", i);
		rc = rd_skip(r, 36, what);
		if (rc)
			return rc;
		snprintf(what, sizeof what, "input %zu script", i);
		rc = rd_string(r, &at, &slen, what);
		if (rc)
			return rc;
		snprintf(what, sizeof what, "input %zu sequence", i);
		rc = rd_skip(r, 4, what);
		if (rc)
			return rc;
	}
	return 0;
}

static int rd_outputs(struct rd *r, size_t n)
{
	char what[48];
	size_t at, slen;
	int rc;

	for (size_t i = 0; i < n; i++) {
		snprintf(what, sizeof what, "output %zu value", i);
		rc = rd_skip(r, 8, what);
		if (rc)
			return rc;
		snprintf(what, sizeof what, "output %zu script", i);
		rc = rd_string(r, &at, &slen, what);
		if (rc)
			return rc;
	}
	return 0;
}

/* One stack per input; at least one must hold an item (BIP-144: a
 * serializer uses the extended form only when some witness is present). */
static int rd_witnesses(struct rd *r, size_t n_inputs, size_t start)
{
	char what[64];
	size_t items, at, ilen, nonempty = 0;
	int rc;

	for (size_t i = 0; i < n_inputs; i++) {
		snprintf(what, sizeof what, "input %zu witness item count", i);
		rc = rd_count(r, &items, MIN_WITNESS, what);
		if (rc)
			return rc;
		if (items > 0)
			nonempty++;
		for (size_t j = 0; j < items; j++) {
			snprintf(what, sizeof what,
			         "input %zu witness item %zu", i, j);
			rc = rd_string(r, &at, &ilen, what);
			if (rc)
				return rc;
		}
	}
	if (nonempty == 0)
		return fail(r, start,
		            "segwit marker and flag but every "
		            "witness stack is empty");
	return 0;
}

/*
 * Bitcoin Core's VarInt (serialize.h, not CompactSize): base 128, most
 * significant group first, the high bit set on every byte but the last,
 * and one added at each continuation, so that every value has exactly one
 * encoding.  Values above max are refused at the byte that would exceed
 * it, as ReadVarInt does.
 */
static int rd_varint(struct rd *r, uint64_t *v, uint64_t max, const char *what)
{
	size_t at = r->pos;
	uint64_t n = 0;
	uint8_t c;
	int rc;

	do {
		rc = need(r, 1, what);
		if (rc)
			return rc;
		c = r->buf[r->pos++];
		if (n > max >> 7)
			return fail(r, at, "%s: VarInt exceeds %" PRIu64, what,
			            max);
		n = n << 7 | (c & 0x7f);
		if (c & 0x80) {
			if (n == max)
				return fail(r, at,
				            "%s: VarInt exceeds %" PRIu64, what,
				            max);
			n++;
		}
	} while (c & 0x80);
	*v = n;
	return 0;
}

/* n bytes of item i of an MWEB list; names them only on failure, so that
 * walking a large extension block costs no formatting. */
static int mweb_skip(struct rd *r, size_t n, const char *item, size_t i,
                     const char *field)
{
	if (left(r) < n)
		return fail(r, r->pos,
		            "MWEB %s %zu %s: need %zu bytes, %zu left", item, i,
		            field, n, left(r));
	r->pos += n;
	return 0;
}

/* The features byte of item i of an MWEB list. */
static int mweb_features(struct rd *r, uint8_t *f, const char *item, size_t i)
{
	int rc = mweb_skip(r, 1, item, i, "features");

	if (rc)
		return rc;
	*f = r->buf[r->pos - 1];
	return 0;
}

/* Extra data of item i: a CompactSize length and the bytes. */
static int mweb_extra(struct rd *r, const char *item, size_t i)
{
	char what[48];
	size_t at, n;

	snprintf(what, sizeof what, "MWEB %s %zu extra data", item, i);
	return rd_string(r, &at, &n, what);
}

/* Input: features, output id, commitment, output public key, [input
 * public key], [extra data], signature. */
static int rd_mweb_inputs(struct rd *r)
{
	size_t n;
	uint8_t f;
	int rc;

	rc = rd_count(r, &n, MIN_MWEB_INPUT, "MWEB input count");
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if ((rc = mweb_features(r, &f, "input", i)) ||
		    (rc = mweb_skip(r, MWEB_HASH, "input", i, "output id")) ||
		    (rc =
		         mweb_skip(r, MWEB_COMMIT, "input", i, "commitment")) ||
		    (rc = mweb_skip(r, MWEB_PUBKEY, "input", i,
		                    "output public key")))
			return rc;
		if ((f & MWEB_INPUT_STEALTH_KEY) &&
		    (rc = mweb_skip(r, MWEB_PUBKEY, "input", i,
		                    "input public key")))
			return rc;
		if ((f & MWEB_INPUT_EXTRA) && (rc = mweb_extra(r, "input", i)))
			return rc;
		if ((rc = mweb_skip(r, MWEB_SIG, "input", i, "signature")))
			return rc;
	}
	return 0;
}

/* Output: commitment, sender public key, receiver public key, message
 * (features, [key exchange public key, view tag, masked value u64, masked
 * nonce 16], [extra data]), range proof, signature. */
static int rd_mweb_outputs(struct rd *r)
{
	size_t n;
	uint8_t f;
	int rc;

	rc = rd_count(r, &n, MIN_MWEB_OUTPUT, "MWEB output count");
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if ((rc = mweb_skip(r, MWEB_COMMIT + 2 * MWEB_PUBKEY, "output",
		                    i, "commitment and keys")) ||
		    (rc = mweb_features(r, &f, "output", i)))
			return rc;
		if ((f & MWEB_OUTPUT_STANDARD) &&
		    (rc = mweb_skip(r, MWEB_PUBKEY + 1 + 8 + 16, "output", i,
		                    "standard fields")))
			return rc;
		if ((f & MWEB_OUTPUT_EXTRA) &&
		    (rc = mweb_extra(r, "output", i)))
			return rc;
		if ((rc = mweb_skip(r, MWEB_PROOF, "output", i,
		                    "range proof")) ||
		    (rc = mweb_skip(r, MWEB_SIG, "output", i, "signature")))
			return rc;
	}
	return 0;
}

/* A VarInt field of kernel i, up to max. */
static int mweb_varint(struct rd *r, uint64_t max, size_t i, const char *field)
{
	char what[64];
	uint64_t v;

	snprintf(what, sizeof what, "MWEB kernel %zu %s", i, field);
	return rd_varint(r, &v, max, what);
}

/* The peg-outs of kernel i: a count, then each an amount and a script,
 * never empty (litecoind refuses an empty one). */
static int mweb_pegouts(struct rd *r, size_t i)
{
	char what[96];
	size_t n, at, slen;
	uint64_t v;
	int rc;

	snprintf(what, sizeof what, "MWEB kernel %zu peg-out count", i);
	rc = rd_count(r, &n, MIN_PEGOUT, what);
	if (rc)
		return rc;
	for (size_t j = 0; j < n; j++) {
		snprintf(what, sizeof what,
		         "MWEB kernel %zu peg-out %zu amount", i, j);
		rc = rd_varint(r, &v, INT64_MAX, what);
		if (rc)
			return rc;
		snprintf(what, sizeof what,
		         "MWEB kernel %zu peg-out %zu script", i, j);
		rc = rd_string(r, &at, &slen, what);
		if (rc)
			return rc;
		if (slen == 0)
			return fail(r, at - 1, "%s is empty", what);
	}
	return 0;
}

/* Kernel: features, [fee], [peg-in amount], [peg-outs], [lock height],
 * [stealth excess], [extra data], excess, signature.  Amounts are VarInts
 * up to INT64_MAX (a CAmount), the lock height up to INT32_MAX.  Sets *n to
 * the number of kernels. */
static int rd_mweb_kernels(struct rd *r, size_t *n)
{
	uint8_t f;
	int rc;

	rc = rd_count(r, n, MIN_MWEB_KERNEL, "MWEB kernel count");
	if (rc)
		return rc;
	for (size_t i = 0; i < *n; i++) {
		if ((rc = mweb_features(r, &f, "kernel", i)))
			return rc;
		if ((f & MWEB_KERNEL_FEE) &&
		    (rc = mweb_varint(r, INT64_MAX, i, "fee")))
			return rc;
		if ((f & MWEB_KERNEL_PEGIN) &&
		    (rc = mweb_varint(r, INT64_MAX, i, "peg-in amount")))
			return rc;
		if ((f & MWEB_KERNEL_PEGOUT) && (rc = mweb_pegouts(r, i)))
			return rc;
		if ((f & MWEB_KERNEL_LOCK) &&
		    (rc = mweb_varint(r, INT32_MAX, i, "lock height")))
			return rc;
		if ((f & MWEB_KERNEL_STEALTH) &&
		    (rc = mweb_skip(r, MWEB_PUBKEY, "kernel", i,
		                    "stealth excess")))
			return rc;
		if ((f & MWEB_KERNEL_EXTRA) &&
		    (rc = mweb_extra(r, "kernel", i)))
			return rc;
		if ((rc = mweb_skip(r, MWEB_COMMIT + MWEB_SIG, "kernel", i,
		                    "excess and signature")))
			return rc;
	}
	return 0;
}

/* A body, of a block or of a transaction: inputs, outputs, kernels.  Sets
 * *n_kernels. */
static int rd_mweb_body(struct rd *r, size_t *n_kernels)
{
	int rc;

	if ((rc = rd_mweb_inputs(r)) || (rc = rd_mweb_outputs(r)))
		return rc;
	return rd_mweb_kernels(r, n_kernels);
}

/* An MWEB transaction, after its presence byte 01: kernel offset, stealth
 * offset, body with at least one kernel (as litecoind requires). */
static int rd_mweb_tx(struct rd *r)
{
	size_t start = r->pos, n_kernels;
	int rc;

	rc = need(r, 2 * MWEB_HASH, "MWEB transaction offsets");
	if (rc)
		return rc;
	r->pos += 2 * MWEB_HASH;
	rc = rd_mweb_body(r, &n_kernels);
	if (rc)
		return rc;
	if (n_kernels == 0)
		return fail(r, start, "MWEB transaction without a kernel");
	return 0;
}

/*
 * The extension block after a HogEx: presence byte 01, header (height
 * VarInt, output root, kernel root, leaf set root, kernel offset, stealth
 * offset, output and kernel MMR sizes as VarInts), body.  A 00 would mean
 * no extension block, which litecoind's consensus refuses after a HogEx
 * ("mweb-missing").
 */
static int rd_mweb_block(struct rd *r)
{
	size_t at = r->pos, n_kernels;
	uint64_t v;
	int rc;

	rc = need(r, 1, "MWEB extension block");
	if (rc)
		return rc;
	if (r->buf[at] != 0x01)
		return fail(r, at,
		            "MWEB extension block presence byte 0x%02x after "
		            "the HogEx, expected 0x01",
		            r->buf[at]);
	r->pos++;
	if ((rc = rd_varint(r, &v, INT32_MAX, "MWEB header height")))
		return rc;
	rc = need(r, 5 * MWEB_HASH, "MWEB header roots and offsets");
	if (rc)
		return rc;
	r->pos += 5 * MWEB_HASH;
	if ((rc =
	         rd_varint(r, &v, UINT64_MAX, "MWEB header output MMR size")) ||
	    (rc = rd_varint(r, &v, UINT64_MAX, "MWEB header kernel MMR size")))
		return rc;
	return rd_mweb_body(r, &n_kernels);
}

/* The MWEB part of a flag-08 transaction: 00 for the HogEx, 01 and an
 * MWEB transaction otherwise (refused inside a block). */
static int rd_mweb_part(struct rd *r, hj_btc_tx *tx, int in_block)
{
	size_t at = r->pos;
	int rc;

	rc = need(r, 1, "MWEB presence byte");
	if (rc)
		return rc;
	switch (r->buf[at]) {
	case 0x00:
		tx->mweb = HJ_BTC_MWEB_HOGEX;
		r->pos++;
		return 0;
	case 0x01:
		if (in_block)
			return fail(r, at,
			            "MWEB transaction attached to a block's "
			            "transaction (litecoind keeps them in the "
			            "extension block)");
		tx->mweb = HJ_BTC_MWEB_TX;
		r->pos++;
		return rd_mweb_tx(r);
	default:
		return fail(r, at,
		            "MWEB presence byte 0x%02x, expected 0x00 "
		            "or 0x01",
		            r->buf[at]);
	}
}

/* One transaction from r->pos; on success r->pos is just past it.  in_block
 * refuses an attached MWEB transaction. */
static int rd_tx(struct rd *r, hj_btc_tx *tx, int in_block)
{
	size_t start = r->pos, count_at;
	uint8_t flags = 0;
	int rc;

	memset(tx, 0, sizeof *tx);
	rc = rd_u32(r, &tx->version, "version");
	if (rc)
		return rc;
	rc = need(r, 1, "input count");
	if (rc)
		return rc;
	if (r->buf[r->pos] == 0x00) {
		/* A legacy count of 0 would mean no inputs; BIP-144 reads it
		 * as the marker, and a flag must follow. */
		rc = need(r, 2, "segwit marker and flag");
		if (rc)
			return rc;
		flags = r->buf[r->pos + 1];
		if (flags == 0 || (flags & ~(FLAG_WITNESS | FLAG_MWEB)))
			return fail(r, r->pos + 1,
			            "flag 0x%02x after the marker, expected "
			            "0x01 (segwit), 0x08 (MWEB) or 0x09",
			            flags);
		tx->segwit = (flags & FLAG_WITNESS) != 0;
		r->pos += 2;
	}
	tx->body_start = r->pos - start;
	count_at = r->pos;
	rc = rd_count(r, &tx->n_inputs, MIN_INPUT, "input count");
	if (rc)
		return rc;
	if (tx->n_inputs == 0)
		return fail(
		    r, count_at,
		    (flags & FLAG_MWEB)
		        ? "no inputs (an MWEB-only transaction: its txid "
		          "is an MWEB hash, not computed here)"
		        : "no inputs");
	rc = rd_inputs(r, tx->n_inputs);
	if (rc)
		return rc;
	count_at = r->pos;
	rc = rd_count(r, &tx->n_outputs, MIN_OUTPUT, "output count");
	if (rc)
		return rc;
	if (tx->n_outputs == 0)
		return fail(r, count_at, "no outputs");
	tx->outputs_start = r->pos - start;
	rc = rd_outputs(r, tx->n_outputs);
	if (rc)
		return rc;
	tx->body_end = r->pos - start;
	if (tx->segwit) {
		rc = rd_witnesses(r, tx->n_inputs, start + 4);
		if (rc)
			return rc;
	}
	tx->witness_end = r->pos - start;
	if (flags & FLAG_MWEB) {
		rc = rd_mweb_part(r, tx, in_block);
		if (rc)
			return rc;
	}
	rc = rd_u32(r, &tx->locktime, "locktime");
	if (rc)
		return rc;
	tx->raw = r->buf + start;
	tx->raw_len = r->pos - start;
	tx->offset = start;
	return 0;
}

int hj_btc_tx_parse(const uint8_t *buf, size_t len, hj_btc_tx *tx, char *err,
                    size_t errlen)
{
	struct rd r = {buf, len, 0, -1, err, errlen};
	int rc;

	rc = rd_tx(&r, tx, 0);
	if (rc)
		return rc;
	if (r.pos != len)
		return fail(&r, r.pos, "%zu bytes after the transaction",
		            len - r.pos);
	return 0;
}

void hj_btc_tx_txid(const hj_btc_tx *tx, uint8_t txid[HJ_BTC_HASH_LEN])
{
	hj_sha256_ctx c;

	hj_sha256_init(&c);
	hj_sha256_update(&c, tx->raw, 4);
	hj_sha256_update(&c, tx->raw + tx->body_start,
	                 tx->body_end - tx->body_start);
	hj_sha256_update(&c, tx->raw + tx->raw_len - 4, 4);
	hj_sha256d_final(&c, txid);
}

/* With an MWEB flag litecoind hashes the serialization it would write
 * without MWEB data: the witness form (flag 01) or, with no witness, the
 * txid's. */
void hj_btc_tx_wtxid(const hj_btc_tx *tx, uint8_t wtxid[HJ_BTC_HASH_LEN])
{
	static const uint8_t segwit[2] = {0x00, FLAG_WITNESS};
	hj_sha256_ctx c;

	if (tx->mweb == HJ_BTC_MWEB_NONE) {
		hj_sha256d(tx->raw, tx->raw_len, wtxid);
		return;
	}
	if (!tx->segwit) {
		hj_btc_tx_txid(tx, wtxid);
		return;
	}
	hj_sha256_init(&c);
	hj_sha256_update(&c, tx->raw, 4);
	hj_sha256_update(&c, segwit, sizeof segwit);
	hj_sha256_update(&c, tx->raw + tx->body_start,
	                 tx->witness_end - tx->body_start);
	hj_sha256_update(&c, tx->raw + tx->raw_len - 4, 4);
	hj_sha256d_final(&c, wtxid);
}

/* A CompactSize of a transaction the parser accepted (so within it). */
static uint64_t compact_at(const uint8_t *p, size_t *pos)
{
	uint8_t b = p[(*pos)++];
	int width = b == 0xfd ? 2 : b == 0xfe ? 4 : b == 0xff ? 8 : 0;
	uint64_t v = width ? 0 : b;

	for (int k = 0; k < width; k++)
		v |= (uint64_t)p[(*pos)++] << (8 * k);
	return v;
}

int hj_btc_tx_input(const hj_btc_tx *tx, size_t i,
                    uint8_t prev[HJ_BTC_HASH_LEN], uint32_t *vout)
{
	size_t pos = tx->body_start;

	if (i >= tx->n_inputs)
		return -EINVAL;
	(void)compact_at(tx->raw, &pos);
	for (size_t k = 0; k < i; k++) {
		pos += HJ_BTC_HASH_LEN + 4;
		pos += (size_t)compact_at(tx->raw, &pos) + 4;
	}
	memcpy(prev, tx->raw + pos, HJ_BTC_HASH_LEN);
	*vout = le32(tx->raw + pos + HJ_BTC_HASH_LEN);
	return 0;
}

void hj_btc_outputs_begin(const hj_btc_tx *tx, hj_btc_out_iter *it)
{
	it->p = tx->raw + tx->outputs_start;
	it->end = tx->raw + tx->body_end;
	it->left = tx->n_outputs;
	it->index = 0;
}

/*
 * The outputs were checked when the transaction was parsed, so this only
 * re-reads them; the checks below keep a damaged iterator inside its
 * bounds rather than report anything.
 */
int hj_btc_outputs_next(hj_btc_out_iter *it, hj_btc_output *out)
{
	struct rd r;
	uint64_t value;
	size_t at, n;

	if (it->left == 0 || it->p >= it->end ||
	    (size_t)(it->end - it->p) < MIN_OUTPUT)
		return 0;
	value = le64(it->p);
	r = (struct rd){it->p, (size_t)(it->end - it->p), 8, -1, NULL, 0};
	if (rd_string(&r, &at, &n, "script"))
		return 0;
	out->value = value;
	out->script = it->p + at;
	out->script_len = n;
	it->p += r.pos;
	it->left--;
	it->index++;
	return 1;
}

int hj_btc_script_data(const uint8_t *script, size_t len, const uint8_t **data,
                       size_t *data_len)
{
	size_t hdr, n;

	if (len < 2 || script[0] != HJ_BTC_OP_RETURN)
		return 0;
	if (script[1] >= 0x01 && script[1] <= 0x4b) {
		hdr = 2;
		n = script[1];
	} else if (script[1] == 0x4c && len >= 3) {
		hdr = 3;
		n = script[2];
	} else if (script[1] == 0x4d && len >= 4) {
		hdr = 4;
		n = (size_t)script[2] | (size_t)script[3] << 8;
	} else {
		return 0;
	}
	if (n == 0 || len - hdr != n)
		return 0;
	*data = script + hdr;
	*data_len = n;
	return 1;
}

int hj_btc_tx_find_data(const hj_btc_tx *tx, const uint8_t *magic,
                        size_t magic_len, const uint8_t **data,
                        size_t *data_len, size_t *vout)
{
	hj_btc_out_iter it;
	hj_btc_output o;
	const uint8_t *d;
	size_t n;

	hj_btc_outputs_begin(tx, &it);
	while (hj_btc_outputs_next(&it, &o)) {
		if (!hj_btc_script_data(o.script, o.script_len, &d, &n))
			continue;
		if (n < magic_len || (magic_len && memcmp(d, magic, magic_len)))
			continue;
		*data = d;
		*data_len = n;
		if (vout != NULL)
			*vout = it.index - 1;
		return 1;
	}
	return 0;
}

int hj_btc_tx_sum_to(const hj_btc_tx *tx, const uint8_t *script,
                     size_t script_len, uint64_t *sum, size_t *count)
{
	hj_btc_out_iter it;
	hj_btc_output o;
	uint64_t total = 0;
	size_t matched = 0;

	hj_btc_outputs_begin(tx, &it);
	while (hj_btc_outputs_next(&it, &o)) {
		if (o.script_len != script_len ||
		    (script_len && memcmp(o.script, script, script_len)))
			continue;
		if (o.value > UINT64_MAX - total)
			return -ERANGE;
		total += o.value;
		matched++;
	}
	*sum = total;
	if (count != NULL)
		*count = matched;
	return 0;
}

static void header_fill(const uint8_t *p, hj_btc_header *h)
{
	h->version = le32(p);
	memcpy(h->prev_hash, p + 4, HJ_BTC_HASH_LEN);
	memcpy(h->merkle_root, p + 36, HJ_BTC_HASH_LEN);
	h->time = le32(p + 68);
	h->bits = le32(p + 72);
	h->nonce = le32(p + 76);
	hj_sha256d(p, HJ_BTC_HEADER_LEN, h->hash);
}

int hj_btc_header_parse(const uint8_t *buf, size_t len, hj_btc_header *h,
                        char *err, size_t errlen)
{
	struct rd r = {buf, len, 0, -1, err, errlen};

	if (len < HJ_BTC_HEADER_LEN)
		return fail(&r, 0, "block header: need %d bytes, %zu given",
		            HJ_BTC_HEADER_LEN, len);
	if (len > HJ_BTC_HEADER_LEN)
		return fail(&r, HJ_BTC_HEADER_LEN,
		            "%zu bytes after the "
		            "block header",
		            len - HJ_BTC_HEADER_LEN);
	header_fill(buf, h);
	return 0;
}

int hj_btc_block_open(hj_btc_block *b, const uint8_t *buf, size_t len,
                      char *err, size_t errlen)
{
	struct rd r = {buf, len, 0, -1, err, errlen};
	size_t n;
	int rc;

	memset(b, 0, sizeof *b);
	rc = need(&r, HJ_BTC_HEADER_LEN, "block header");
	if (rc)
		return rc;
	header_fill(buf, &b->header);
	r.pos = HJ_BTC_HEADER_LEN;
	rc = rd_count(&r, &n, MIN_TX, "transaction count");
	if (rc)
		return rc;
	if (n == 0)
		return fail(&r, HJ_BTC_HEADER_LEN,
		            "no transactions (a block "
		            "holds at least its coinbase)");
	b->n_tx = n;
	b->buf = buf;
	b->len = len;
	b->pos = r.pos;
	return 0;
}

int hj_btc_block_next(hj_btc_block *b, hj_btc_tx *tx, char *err, size_t errlen)
{
	struct rd r = {b->buf, b->len, b->pos, (int64_t)b->next, err, errlen};
	int rc;

	if (b->next == b->n_tx) {
		r.tx = -1;
		/* Litecoin's CBlock reads the extension block exactly when the
		 * last of two or more transactions is a HogEx, and nothing
		 * after it.  It is walked rather than taken as the rest of the
		 * buffer so that a cut or padded block is still an error. */
		if (b->hogex && b->mweb_len == 0) {
			rc = rd_mweb_block(&r);
			if (rc)
				return rc;
			b->mweb_offset = b->pos;
			b->mweb_len = r.pos - b->pos;
			b->pos = r.pos;
		}
		if (b->pos != b->len && b->mweb_len != 0)
			return fail(&r, b->pos,
			            "%zu bytes after the MWEB extension block",
			            b->len - b->pos);
		if (b->pos != b->len)
			return fail(&r, b->pos,
			            "%zu bytes after the last of "
			            "%" PRIu64 " transactions",
			            b->len - b->pos, b->n_tx);
		return 0;
	}
	rc = rd_tx(&r, tx, 1);
	if (rc)
		return rc;
	if (tx->mweb == HJ_BTC_MWEB_HOGEX &&
	    (b->n_tx < 2 || b->next != b->n_tx - 1))
		return fail(&r, tx->offset + 5,
		            "a HogEx (flag 0x08, no MWEB transaction) that is "
		            "not the last of two or more transactions");
	b->hogex = tx->mweb == HJ_BTC_MWEB_HOGEX;
	b->pos = r.pos;
	b->next++;
	return 1;
}

void hj_btc_hash_hex(const uint8_t hash[HJ_BTC_HASH_LEN],
                     char out[HJ_BTC_HASH_HEX])
{
	uint8_t rev[HJ_BTC_HASH_LEN];

	for (size_t i = 0; i < HJ_BTC_HASH_LEN; i++)
		rev[i] = hash[HJ_BTC_HASH_LEN - 1 - i];
	hj_hex_encode(rev, sizeof rev, 0, out);
}

void hj_btc_hash160(const void *data, size_t len, uint8_t out[20])
{
	uint8_t sha[HJ_SHA256_LEN];
	unsigned n = 0;

	hj_sha256(data, len, sha);
	/* RIPEMD-160 from libcrypto (OpenSSL 3's default provider has it):
	 * a hash function, not ours to write. */
	if (!EVP_Digest(sha, sizeof sha, out, &n, EVP_ripemd160(), NULL) ||
	    n != 20)
		memset(out, 0, 20); /* no key hashes to this */
}

int hj_btc_tx_signed_by(const hj_btc_tx *tx, const uint8_t pkh[20])
{
	struct rd r = {.buf = tx->raw,
	               .len = tx->witness_end,
	               .pos = tx->body_end,
	               .tx = -1};
	uint8_t h[20];

	if (!tx->segwit)
		return 0;
	for (size_t i = 0; i < tx->n_inputs; i++) {
		size_t items, at[2] = {0, 0}, n[2] = {0, 0}, a, l;

		/* Checked when the transaction was parsed. */
		if (rd_count(&r, &items, MIN_WITNESS, "witness"))
			return 0;
		for (size_t j = 0; j < items; j++) {
			if (rd_string(&r, &a, &l, "witness item"))
				return 0;
			if (j < 2) {
				at[j] = a;
				n[j] = l;
			}
		}
		if (items != 2 || n[0] == 0 || n[1] != 33 ||
		    (tx->raw[at[1]] != 0x02 && tx->raw[at[1]] != 0x03))
			continue;
		hj_btc_hash160(tx->raw + at[1], 33, h);
		if (memcmp(h, pkh, 20) == 0)
			return 1;
	}
	return 0;
}
