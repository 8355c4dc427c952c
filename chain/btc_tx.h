/*
 * Raw Bitcoin-family blocks and transactions, as `getblock <hash> 0` and
 * `getrawtransaction <txid>` return them (once hex-decoded): the daemon
 * reads blocks this way instead of verbose getblock, which is slow on
 * mainnet, and keeps the transactions that concern the dealer
 * (docs/PROTOCOL.md section 11.3): those paying the dealer's scriptPubKey and
 * those carrying an OP_RETURN output whose data begins with the magic 48 4A.
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
 * Litecoin MWEB (MimbleWimble extension blocks, LIP-0002/0003, active on
 * mainnet since 2022).  The byte after the marker is a set of flags: 01
 * witnesses, 08 MWEB data, 09 both.  With flag 08 an MWEB part comes after
 * the witnesses and before the locktime: a byte 00 for the HogEx (the
 * "integrating transaction", the last of every block since activation:
 * it spends the previous HogEx and the block's peg-ins, and its outputs
 * are the MWEB balance and the peg-outs), or a byte 01 and an MWEB
 * transaction (wallets and the mempool only: a block carries MWEB
 * transactions only inside its extension block).  A block whose last
 * transaction, of two or more, is a HogEx ends with that extension block:
 * a byte 01 and an MWEB block (header, inputs, outputs, kernels).  The
 * MWEB parts are walked to their end and never interpreted; feature bits
 * unknown here are ignored, as litecoind ignores them (they add no bytes).
 * What the daemon sees of MWEB is canonical: a peg-in is an ordinary
 * transaction paying a witness v9 script (59 20 and a kernel id), and a
 * peg-out is an output of the HogEx, whose first output holds the MWEB
 * balance (58 20 and the MWEB header hash).  Bitcoin never writes flag 08,
 * so a Bitcoin block parses exactly as it did before MWEB was known here.
 *
 * Strictness.  Parsing never trusts a count: each is first checked against
 * the bytes left, at the least size one item can take (41 bytes per input,
 * 9 per output, 1 per witness item, 60 per transaction, 163 per MWEB input,
 * 839 per MWEB output, 98 per MWEB kernel), so a forged count costs
 * nothing.  A CompactSize in a longer form than its value needs is
 * rejected (as Bitcoin Core does), as is a transaction with no inputs or no
 * outputs (invalid in any block; this refuses MWEB-only transactions, whose
 * txid is a hash of their MWEB part), a flag other than 01, 08 and 09, an
 * MWEB presence byte other than 00 and 01, a segwit transaction whose
 * witness stacks are all empty, and any byte after the last transaction or
 * after the extension block.  Within a block, as Litecoin's consensus
 * rules require, no transaction may carry an MWEB transaction, a HogEx may
 * only be the last of two or more transactions, and a HogEx must be
 * followed by an extension block.  Errors say what was wrong and at which
 * byte offset, counted from the start of the buffer given (a block's, for
 * its transactions), with the transaction's index within a block.
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

/* What a transaction's MWEB flag (Litecoin, flag 08) brought. */
enum hj_btc_mweb {
	HJ_BTC_MWEB_NONE = 0, /* no flag 08: every Bitcoin transaction */
	HJ_BTC_MWEB_HOGEX,    /* the HogEx: flag 08, presence byte 00 */
	HJ_BTC_MWEB_TX,       /* an MWEB transaction attached (not in blocks) */
};

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
	int segwit; /* witness stacks present (flag 01, BIP-144) */
	int mweb;   /* enum hj_btc_mweb */
	/* Private: raw[body_start..body_end) runs from the input count to the
	 * end of the last output; outputs_start is the first output, and
	 * raw[body_end..witness_end) holds the witnesses. */
	size_t body_start;
	size_t body_end;
	size_t outputs_start;
	size_t witness_end;
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
 * apart from header, n_tx, mweb_offset and mweb_len.
 */
typedef struct hj_btc_block {
	hj_btc_header header;
	uint64_t n_tx; /* the count the block declares, at least 1 */
	/* Litecoin: the MWEB extension block, buf[mweb_offset..+mweb_len)
	 * from its presence byte 01, once hj_btc_block_next has returned 0;
	 * both 0 when the block has none (every Bitcoin block). */
	size_t mweb_offset;
	size_t mweb_len;
	const uint8_t *buf;
	size_t len;
	size_t pos;
	uint64_t next; /* index of the next transaction */
	int hogex;     /* the last transaction read was a HogEx */
} hj_btc_block;

/*
 * Parses buf[0..len), which must hold exactly one transaction, into *tx
 * (a view into buf).  An attached MWEB transaction (a Litecoin wallet's or
 * mempool's form of a peg-in) is walked and skipped: tx->mweb says it was
 * there.  Returns 0, or -EINVAL with err saying what and where (*tx is then
 * unspecified).
 */
int hj_btc_tx_parse(const uint8_t *buf, size_t len, hj_btc_tx *tx, char *err,
                    size_t errlen);

/* The txid: double SHA-256 of the serialization without marker, flag,
 * witnesses and MWEB part, in internal order (as litecoind computes it for
 * every transaction that has canonical inputs).  One pass over those
 * bytes. */
void hj_btc_tx_txid(const hj_btc_tx *tx, uint8_t txid[HJ_BTC_HASH_LEN]);

/* The wtxid (BIP-141): double SHA-256 of the whole serialization; equal to
 * the txid for a legacy transaction.  With an MWEB flag, as litecoind
 * computes it: the MWEB part is left out (and the flag is 01), so a HogEx's
 * wtxid is its txid. */
void hj_btc_tx_wtxid(const hj_btc_tx *tx, uint8_t wtxid[HJ_BTC_HASH_LEN]);

/* The outpoint input i of tx spends: its transaction's id (internal
 * order, as serialized) and output index.  Returns 0, or -EINVAL when tx
 * has no input i. */
int hj_btc_tx_input(const hj_btc_tx *tx, size_t i,
                    uint8_t prev[HJ_BTC_HASH_LEN], uint32_t *vout);

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

/* HASH160: RIPEMD-160 of the SHA-256 of data[0..len), the 20 bytes of a
 * P2WPKH program or a P2PKH address. */
void hj_btc_hash160(const void *data, size_t len, uint8_t out[20]);

/*
 * Whether an input of tx is signed by the key of the P2WPKH program pkh
 * (docs/PROTOCOL.md section 15, a Commit): its witness is exactly
 * [signature, 33-byte public key] with HASH160(key) = pkh.  Consensus has
 * checked the signature against the output spent, so the block alone
 * proves the key's owner sent tx.  Returns 1 or 0.
 */
int hj_btc_tx_signed_by(const hj_btc_tx *tx, const uint8_t pkh[20]);

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
 * walks the MWEB extension block if the last transaction was a HogEx, then
 * checks that no byte follows and returns 0; or returns -EINVAL with err
 * naming the transaction's index (none for the extension block) and the
 * offset.  A block is well formed
 * only once this has returned 0: a caller must not act on what it read
 * from a block that ends in an error.  After an error or 0 the walk stays
 * where it is and keeps returning the same result.
 */
int hj_btc_block_next(hj_btc_block *b, hj_btc_tx *tx, char *err, size_t errlen);

/* Writes hash as nodes display it: byte-reversed, lower-case hex. */
void hj_btc_hash_hex(const uint8_t hash[HJ_BTC_HASH_LEN],
                     char out[HJ_BTC_HASH_HEX]);

#endif
