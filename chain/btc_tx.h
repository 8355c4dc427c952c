/*
 * Raw Bitcoin-family blocks and transactions, as `getblock <hash> 0` and
 * `getrawtransaction <txid>` return them (once hex-decoded): the daemon
 * reads blocks this way instead of verbose getblock, which is slow on
 * mainnet, and keeps the transactions that concern the dealer (protocol v1,
 * section 6): those paying the dealer's scriptPubKey and those carrying an
 * OP_RETURN output whose data begins with the magic 48 4A.
 *
 * Formats.  A transaction is either legacy
 *
 *   version u32 | input count | inputs | output count | outputs | locktime u32
 *
 * or segwit (BIP-144), with marker 00 and flag 01 after the version and one
 * witness stack per input before the locktime.  An input is a 32-byte
 * previous txid, a u32 index, a script and a u32 sequence; an output is a
 * u64 value in base units (satoshi, litoshi) and a script (scriptPubKey); a
 * witness stack is a count of items, each a length and bytes.  Counts and
 * lengths are CompactSize integers; every integer is little-endian.  A block
 * is an 80-byte header (version, previous block hash, merkle root, time,
 * bits, nonce), a transaction count and the transactions.
 *
 * Strictness.  Parsing never trusts a count: each is first checked against
 * the bytes left, at the least size one item can take (41 bytes per input,
 * 9 per output, 1 per witness item, 60 per transaction), so a forged count
 * costs nothing.  A CompactSize in a longer form than its value needs is
 * rejected (as Bitcoin Core does), as is a transaction with no inputs or no
 * outputs (invalid in any block), a segwit flag other than 01 (Litecoin's
 * MWEB flag 08 included: MWEB data is not parsed here), a segwit
 * transaction whose witness stacks are all empty, and any byte after the
 * last transaction.  Errors say what was wrong and at which byte offset,
 * counted from the start of the buffer given (a block's, for its
 * transactions), with the transaction's index within a block.
 *
 * Cost.  Nothing allocates: transactions and outputs are views into the
 * caller's buffer, which must outlive them.  Parsing reads each byte once
 * and hashes nothing but the 80-byte header; a txid costs one SHA-256 pass
 * over the transaction's non-witness bytes and is computed only on request,
 * so a caller can scan a 4 MB block's outputs first and hash only the
 * transactions it keeps.
 *
 * Hashes are kept in internal byte order (as hashed and as serialized);
 * nodes display them byte-reversed (hj_btc_hash_hex).
 */
#ifndef HJ_BTC_TX_H
#define HJ_BTC_TX_H

#include <stddef.h>
#include <stdint.h>

#define HJ_BTC_HASH_LEN   32
#define HJ_BTC_HASH_HEX   65 /* 64 digits and a NUL */
#define HJ_BTC_HEADER_LEN 80
#define HJ_BTC_OP_RETURN  0x6a

/* One output.  script points into the parsed buffer (borrowed). */
typedef struct hj_btc_output {
	uint64_t value; /* base units; not checked against any money supply */
	const uint8_t *script;
	size_t script_len;
} hj_btc_output;

/*
 * One parsed transaction: a view into the buffer it was parsed from, which
 * must outlive it.  The fields after the comment are for this module.
 */
typedef struct hj_btc_tx {
	const uint8_t *raw; /* the whole serialization, witness included */
	size_t raw_len;
	size_t offset; /* of raw within the buffer given to the parser */
	uint32_t version;
	uint32_t locktime;
	size_t n_inputs;
	size_t n_outputs;
	int segwit; /* serialized with marker and flag (BIP-144) */
	/* Private: raw[body_start..body_end) runs from the input count to the
	 * end of the last output; outputs_start is the first output. */
	size_t body_start;
	size_t body_end;
	size_t outputs_start;
} hj_btc_tx;

/* A walk over a transaction's outputs (hj_btc_outputs_begin). */
typedef struct hj_btc_out_iter {
	const uint8_t *p;
	const uint8_t *end;
	size_t left;  /* outputs not yet returned */
	size_t index; /* index (vout) of the next output */
} hj_btc_out_iter;

typedef struct hj_btc_header {
	uint32_t version; /* as stored: Bitcoin Core reads it as int32 */
	uint8_t prev_hash[HJ_BTC_HASH_LEN];   /* internal order */
	uint8_t merkle_root[HJ_BTC_HASH_LEN]; /* internal order */
	uint32_t time;
	uint32_t bits;
	uint32_t nonce;
	uint8_t hash[HJ_BTC_HASH_LEN]; /* double SHA-256 of the 80 bytes */
} hj_btc_header;

/*
 * A walk over a block's transactions.  Open it with hj_btc_block_open, then
 * call hj_btc_block_next until it returns 0 or an error.  Private fields
 * apart from header and n_tx.
 */
typedef struct hj_btc_block {
	hj_btc_header header;
	uint64_t n_tx; /* the count the block declares, at least 1 */
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint64_t next; /* index of the next transaction */
} hj_btc_block;

/*
 * Parses buf[0..len), which must hold exactly one transaction, into *tx
 * (a view into buf).  Returns 0, or -EINVAL with err saying what and where
 * (*tx is then unspecified).
 */
int hj_btc_tx_parse(const uint8_t *buf, size_t len, hj_btc_tx *tx, char *err,
                    size_t errlen);

/* The txid: double SHA-256 of the serialization without marker, flag and
 * witnesses, in internal order.  One pass over those bytes. */
void hj_btc_tx_txid(const hj_btc_tx *tx, uint8_t txid[HJ_BTC_HASH_LEN]);

/* The wtxid (BIP-141): double SHA-256 of the whole serialization; equal to
 * the txid for a legacy transaction. */
void hj_btc_tx_wtxid(const hj_btc_tx *tx, uint8_t wtxid[HJ_BTC_HASH_LEN]);

/* Starts a walk over tx's outputs, in order. */
void hj_btc_outputs_begin(const hj_btc_tx *tx, hj_btc_out_iter *it);

/* Fills *out with the next output and returns 1, or returns 0 after the
 * last.  it->index is the vout of the output returned, plus one. */
int hj_btc_outputs_next(hj_btc_out_iter *it, hj_btc_output *out);

/*
 * Whether script is a data output, and where its data lies.  A data output
 * is, exactly:
 *
 *   6a (OP_RETURN), then one push of n >= 1 bytes that ends the script:
 *     01..4b          (OP_PUSHBYTES_n, the opcode is n) then n bytes, or
 *     4c n            (OP_PUSHDATA1)                    then n bytes, or
 *     4d n_lo n_hi    (OP_PUSHDATA2)                    then n bytes.
 *
 * Anything else is not: a bare 6a, an empty push (OP_0, 4c 00, 4d 00 00:
 * no data to carry a magic), OP_1NEGATE and
 * OP_1..OP_16 (numbers, not data), OP_PUSHDATA4 (never needed for data a
 * relay policy admits), two pushes or more, a push that runs past the end
 * or stops short of it, or any other opcode.  Non-minimal pushes (4c 05
 * and five bytes) are accepted: wallets build both forms, consensus allows
 * both, and the bytes pushed are what the protocol reads.
 *
 * Returns 1 and sets *data (pointing into script) and *data_len, or returns
 * 0 and leaves them alone.
 */
int hj_btc_script_data(const uint8_t *script, size_t len, const uint8_t **data,
                       size_t *data_len);

/*
 * Finds the first output of tx (lowest vout) that is a data output (see
 * hj_btc_script_data) whose data begins with magic[0..magic_len).  Returns
 * 1 and sets *data, *data_len (the whole pushed data, magic included) and
 * *vout (may be NULL), or 0 when no output qualifies.  Data outputs with
 * other data are skipped, not fatal.
 */
int hj_btc_tx_find_data(const hj_btc_tx *tx, const uint8_t *magic,
                        size_t magic_len, const uint8_t **data,
                        size_t *data_len, size_t *vout);

/*
 * Sums the values of tx's outputs whose scriptPubKey is byte for byte
 * script[0..script_len).  Sets *sum, and *count (may be NULL) to the number
 * of such outputs.  Returns 0, or -ERANGE when the sum exceeds 2^64 - 1
 * (then *sum is unspecified).
 */
int hj_btc_tx_sum_to(const hj_btc_tx *tx, const uint8_t *script,
                     size_t script_len, uint64_t *sum, size_t *count);

/*
 * Parses an 80-byte block header (buf[0..len), len must be 80) and hashes
 * it.  Returns 0, or -EINVAL with err.
 */
int hj_btc_header_parse(const uint8_t *buf, size_t len, hj_btc_header *h,
                        char *err, size_t errlen);

/*
 * Starts reading the block in buf[0..len): parses and hashes the header and
 * reads the transaction count (at least 1, at most one per 60 bytes left).
 * b is a view into buf, which must outlive it.  Returns 0, or -EINVAL with
 * err.
 */
int hj_btc_block_open(hj_btc_block *b, const uint8_t *buf, size_t len,
                      char *err, size_t errlen);

/*
 * Parses the next transaction into *tx and returns 1; after the last one,
 * checks that no byte follows and returns 0; or returns -EINVAL with err
 * naming the transaction's index and the offset.  A block is well formed
 * only once this has returned 0: a caller must not act on what it read
 * from a block that ends in an error.  After an error or 0 the walk stays
 * where it is and keeps returning the same result.
 */
int hj_btc_block_next(hj_btc_block *b, hj_btc_tx *tx, char *err, size_t errlen);

/* Writes hash as nodes display it: byte-reversed, lower-case hex. */
void hj_btc_hash_hex(const uint8_t hash[HJ_BTC_HASH_LEN],
                     char out[HJ_BTC_HASH_HEX]);

#endif
