/* Raw Bitcoin-family blocks and transactions (see btc_tx.h). */
#include "btc_tx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "sha256.h"

/* Least bytes one item can take, to bound counts by the bytes left. */
#define MIN_INPUT   41 /* prevout 36, empty script 1, sequence 4 */
#define MIN_OUTPUT  9  /* value 8, empty script 1 */
#define MIN_WITNESS 1  /* an empty item's length */
/* Version 4, one input 1 + 41, one output 1 + 9, locktime 4. */
#define MIN_TX 60

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

__attribute__((format(printf, 3, 4))) static int
fail(const struct rd *r, size_t at, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (r->err == NULL || r->errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (r->tx >= 0)
		snprintf(r->err, r->errlen, "tx %" PRId64 ": offset %zu: %s",
		         r->tx, at, what);
	else
		snprintf(r->err, r->errlen, "offset %zu: %s", at, what);
	return -EINVAL;
}

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

/* One transaction from r->pos; on success r->pos is just past it. */
static int rd_tx(struct rd *r, hj_btc_tx *tx)
{
	size_t start = r->pos, count_at;
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
		if (r->buf[r->pos + 1] != 0x01)
			return fail(r, r->pos + 1,
			            "segwit flag 0x%02x, "
			            "expected 0x01 (MWEB, flag 0x08, is not "
			            "supported)",
			            r->buf[r->pos + 1]);
		tx->segwit = 1;
		r->pos += 2;
	}
	tx->body_start = r->pos - start;
	count_at = r->pos;
	rc = rd_count(r, &tx->n_inputs, MIN_INPUT, "input count");
	if (rc)
		return rc;
	if (tx->n_inputs == 0)
		return fail(r, count_at, "no inputs");
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

	rc = rd_tx(&r, tx);
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

void hj_btc_tx_wtxid(const hj_btc_tx *tx, uint8_t wtxid[HJ_BTC_HASH_LEN])
{
	hj_sha256d(tx->raw, tx->raw_len, wtxid);
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
		if (b->pos != b->len)
			return fail(&r, b->pos,
			            "%zu bytes after the last of "
			            "%" PRIu64 " transactions",
			            b->len - b->pos, b->n_tx);
		return 0;
	}
	rc = rd_tx(&r, tx);
	if (rc)
		return rc;
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
