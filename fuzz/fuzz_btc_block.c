/*
 * One raw Bitcoin-family block (chain/btc_tx.h), Litecoin MWEB included,
 * read as chain/btc_backend.c reads it: the header, then each transaction
 * in turn through hj_btc_action for a fixed dealer, until the walk ends.
 *
 * The header is the block's first 80 bytes, parsed alone to the same
 * fields and hash.  The transactions follow each other without gaps from
 * just after the count, each the view of a transaction that parses alone
 * to the same shape; a HogEx is only the last of two or more; a walk that
 * ends has read the declared count, then the extension block after a
 * HogEx and nothing else, up to the last byte; a walk that fails says why
 * and fails again the same way when asked again.  ASan watches that
 * nothing reads past the input, which is a heap copy of exactly its size.
 */
#include <errno.h>

#include "fuzz.h"

#include "btc.h"
#include "btc_tx.h"
#include "say.h"

/* The dealer of the captured Litecoin MWEB blocks (tests/data/btc): block
 * 435 pays it. */
static const uint8_t dealer[] = {0x00, 0x14, 0x50, 0x18, 0x78, 0xa5, 0xf2, 0x82,
                                 0x80, 0xfa, 0x00, 0xdb, 0x2d, 0xac, 0xc3, 0xfb,
                                 0x39, 0x68, 0x73, 0x1e, 0x34, 0x11};

/* Bytes of the CompactSize whose first byte is b. */
static size_t compact_len(uint8_t b)
{
	return b < 0xfd ? 1 : b == 0xfd ? 3 : b == 0xfe ? 5 : 9;
}

static void check_header(const uint8_t *buf, size_t len, const hj_btc_header *h)
{
	hj_btc_header alone;
	char err[HJ_ERRLEN];

	err[0] = '\0';
	FUZZ_CHECK(hj_btc_header_parse(buf, HJ_BTC_HEADER_LEN, &alone, err,
	                               sizeof err) == 0);
	FUZZ_CHECK(memcmp(&alone, h, sizeof alone) == 0);
	if (len != HJ_BTC_HEADER_LEN) {
		FUZZ_CHECK(hj_btc_header_parse(buf, len, &alone, err,
		                               sizeof err) == -EINVAL);
		FUZZ_CHECK(err[0] != '\0');
	}
}

/* tx, read from the block at index k, against the same bytes parsed
 * alone, and through hj_btc_action. */
static void check_tx(const hj_btc_tx *tx, uint32_t k)
{
	uint8_t a_id[HJ_BTC_HASH_LEN], b_id[HJ_BTC_HASH_LEN];
	hj_btc_tx alone;
	char err[HJ_ERRLEN];
	hj_action a;
	int rc;

	FUZZ_CHECK(hj_btc_tx_parse(tx->raw, tx->raw_len, &alone, NULL, 0) == 0);
	FUZZ_CHECK(alone.n_inputs == tx->n_inputs &&
	           alone.n_outputs == tx->n_outputs &&
	           alone.segwit == tx->segwit && alone.mweb == tx->mweb &&
	           alone.version == tx->version &&
	           alone.locktime == tx->locktime);
	FUZZ_CHECK(tx->mweb != HJ_BTC_MWEB_TX);
	hj_btc_tx_txid(tx, a_id);
	hj_btc_tx_txid(&alone, b_id);
	FUZZ_CHECK(memcmp(a_id, b_id, sizeof a_id) == 0);

	err[0] = '\0';
	rc = hj_btc_action(tx, dealer, sizeof dealer, k, &a, err, sizeof err);
	FUZZ_CHECK(rc == 0 || rc == 1 || (rc == -ERANGE && err[0] != '\0'));
	FUZZ_CHECK(rc != 1 || (a.tx_index == k && a.txid.len == 32));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hj_btc_block b;
	hj_btc_tx tx;
	char err[HJ_ERRLEN], again[256];
	size_t end;
	uint8_t *copy;
	uint32_t k = 0;
	int rc, hogex = 0;

	copy = malloc(size ? size : 1);
	FUZZ_CHECK(copy != NULL);
	if (size)
		memcpy(copy, data, size);
	err[0] = '\0';
	if (hj_btc_block_open(&b, copy, size, err, sizeof err) != 0) {
		FUZZ_CHECK(err[0] != '\0');
		free(copy);
		return 0;
	}
	check_header(copy, size, &b.header);
	end = HJ_BTC_HEADER_LEN + compact_len(copy[HJ_BTC_HEADER_LEN]);
	FUZZ_CHECK(b.n_tx >= 1 && b.n_tx <= (size - end) / 60);

	for (;;) {
		err[0] = '\0';
		rc = hj_btc_block_next(&b, &tx, err, sizeof err);
		if (rc != 1)
			break;
		FUZZ_CHECK(k < b.n_tx);
		FUZZ_CHECK(tx.offset == end && tx.raw == copy + end);
		FUZZ_CHECK(tx.raw_len <= size - end);
		end += tx.raw_len;
		hogex = tx.mweb == HJ_BTC_MWEB_HOGEX;
		FUZZ_CHECK(!hogex || (b.n_tx >= 2 && k == b.n_tx - 1));
		check_tx(&tx, k);
		k++;
	}
	if (rc == 0) {
		FUZZ_CHECK(k == b.n_tx);
		if (hogex) {
			FUZZ_CHECK(b.mweb_offset == end && b.mweb_len > 0 &&
			           copy[end] == 0x01);
			end += b.mweb_len;
		} else {
			FUZZ_CHECK(b.mweb_offset == 0 && b.mweb_len == 0);
		}
		FUZZ_CHECK(end == size);
	} else {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
	}
	/* The walk stays where it ended. */
	again[0] = '\0';
	FUZZ_CHECK(hj_btc_block_next(&b, &tx, again, sizeof again) == rc);
	FUZZ_CHECK(strcmp(again, err) == 0);
	free(copy);
	return 0;
}
