/*
 * EVM payouts signed by the dealer: EIP-1559 ("type 2") transactions, built,
 * signed and checked here, sent elsewhere.  docs/EVM-SIGNING.md walks
 * through every byte.
 *
 *   payload      rlp([chain_id, nonce, max_priority_fee_per_gas,
 *                     max_fee_per_gas, gas_limit, to, value, data,
 *                     access_list])
 *   signing hash keccak256(0x02 || payload)
 *   raw          0x02 || rlp([the nine fields, y_parity, r, s])
 *   tx hash      keccak256(raw), what nodes call the transaction's hash
 *
 * Every integer is RLP's minimal big-endian form (chain/rlp.h), r and s
 * included: a signature whose r starts with a zero byte has a 31-byte r.
 * The access list is always empty here.  Signatures are libsecp256k1's
 * recoverable ECDSA with its default nonce, RFC 6979, so the same key and
 * transaction always give the same bytes (what other RFC 6979 signers such
 * as Foundry's cast produce too); s is always in the lower half (EIP-2),
 * y_parity is the recovery id.
 *
 * An address is the last 20 bytes of keccak256(x || y), the public key's
 * 64-byte uncompressed form without its 0x04 prefix.
 *
 * Secret keys are borrowed for the call and never copied beyond it; copies
 * on the stack are wiped before return.  All functions are thread-safe for
 * distinct outputs: the context is only read (chain/taproot.h).
 */
#ifndef HJ_EVM_TX_H
#define HJ_EVM_TX_H

#include <stddef.h>
#include <stdint.h>

#include "evm.h"
#include "taproot.h"

#define HJ_EVM_SECKEY_LEN 32
#define HJ_EVM_PUBKEY_LEN 64 /* x || y, big-endian, no 0x04 prefix */
#define HJ_EIP1559_TYPE   0x02

/* Longest call data a transaction may carry here.  Payouts send none; the
 * cap bounds the encoders' stack buffers. */
#define HJ_EIP1559_DATA_MAX 4096
/*
 * Room for any signed transaction this module writes: the type byte, the
 * list header (at most 3 bytes for payloads below 64 KiB), chain id, nonce
 * and gas limit (9 each), the two fees and the value (17 each), to (21),
 * data (3 + HJ_EIP1559_DATA_MAX), the empty access list (1), y_parity (1),
 * r and s (33 each): 4270 bytes, rounded up.
 */
#define HJ_EIP1559_RAW_MAX (HJ_EIP1559_DATA_MAX + 256)

/* An EIP-1559 transaction's fields.  Amounts are in wei; value has the
 * type of hj_amount (game/amount.h).  data is borrowed. */
typedef struct hj_eip1559_tx {
	uint64_t chain_id;
	uint64_t nonce;
	unsigned __int128 max_priority_fee_per_gas; /* wei per gas */
	unsigned __int128 max_fee_per_gas;          /* wei per gas */
	uint64_t gas_limit;
	uint8_t to[HJ_EVM_ADDR_LEN];
	unsigned __int128 value;
	const uint8_t *data; /* may be NULL when data_len is 0 */
	size_t data_len;     /* at most HJ_EIP1559_DATA_MAX */
} hj_eip1559_tx;

/* A signature as a type 2 transaction carries it: r and s are 32-byte
 * big-endian numbers (leading zeros included here, dropped in RLP). */
typedef struct hj_eip1559_sig {
	uint8_t y_parity; /* 0 or 1 */
	uint8_t r[32];
	uint8_t s[32];
} hj_eip1559_sig;

/* Writes the 64-byte public key of sk.  Returns 0, or -EINVAL with err
 * when sk is zero or not below the group order. */
int hj_evm_pubkey(const hj_secp *ctx, const uint8_t sk[HJ_EVM_SECKEY_LEN],
                  uint8_t pub[HJ_EVM_PUBKEY_LEN], char *err, size_t errlen);

/* Writes the address of the public key pub.  Cannot fail. */
void hj_evm_pubkey_address(const uint8_t pub[HJ_EVM_PUBKEY_LEN],
                           uint8_t addr[HJ_EVM_ADDR_LEN]);

/* Writes the address of sk.  Returns 0, or -EINVAL as hj_evm_pubkey. */
int hj_evm_address(const hj_secp *ctx, const uint8_t sk[HJ_EVM_SECKEY_LEN],
                   uint8_t addr[HJ_EVM_ADDR_LEN], char *err, size_t errlen);

/*
 * Writes 0x02 || payload, the bytes the signature covers, into out[0..cap)
 * and sets *len.  Returns 0, or -EINVAL with err when data_len exceeds
 * HJ_EIP1559_DATA_MAX or data is NULL with data_len > 0, or -ENOSPC when
 * cap is too small (HJ_EIP1559_RAW_MAX always suffices).
 */
int hj_eip1559_encode_unsigned(const hj_eip1559_tx *tx, uint8_t *out,
                               size_t cap, size_t *len, char *err,
                               size_t errlen);

/* Writes the signing hash of tx.  Returns 0, or -EINVAL with err as
 * hj_eip1559_encode_unsigned. */
int hj_eip1559_signing_hash(const hj_eip1559_tx *tx, uint8_t hash[32],
                            char *err, size_t errlen);

/* Writes the raw signed transaction of tx and sig into out[0..cap) and sets
 * *len.  Errors as hj_eip1559_encode_unsigned, and -EINVAL for a y_parity
 * other than 0 or 1.  The signature is not checked: hj_eip1559_sign is the
 * one that signs. */
int hj_eip1559_encode_signed(const hj_eip1559_tx *tx, const hj_eip1559_sig *sig,
                             uint8_t *out, size_t cap, size_t *len, char *err,
                             size_t errlen);

/*
 * Signs tx with sk and writes the raw transaction into raw[0..cap), its
 * length into *rawlen and its hash into txhash (may be NULL).
 *
 * Before it returns, the raw bytes are decoded again as a node would
 * (hj_eip1559_recover): they must give back exactly tx's fields and
 * recover to sk's address, so that a fault anywhere between the fields and
 * the bytes cannot put out a transaction other than the one asked for.
 *
 * Returns 0, or a negative errno with err: -EINVAL for an invalid sk, a
 * max_priority_fee_per_gas above max_fee_per_gas (nodes refuse those) or
 * the data errors of hj_eip1559_encode_unsigned; -ENOSPC when cap is too
 * small; -EIO when the self-check fails.  raw is unspecified on error.
 */
int hj_eip1559_sign(const hj_secp *ctx, const hj_eip1559_tx *tx,
                    const uint8_t sk[HJ_EVM_SECKEY_LEN], uint8_t *raw,
                    size_t cap, size_t *rawlen, uint8_t txhash[32], char *err,
                    size_t errlen);

/*
 * Parses a raw signed type 2 transaction.  Strict: the type byte 0x02, one
 * canonical RLP list of exactly twelve items and nothing after it, a 20-byte
 * to (contract creations are refused), integers that fit the fields above,
 * call data of at most HJ_EIP1559_DATA_MAX bytes, an empty access list,
 * y_parity 0 or 1, r and s of at most 32 bytes.  tx->data points into raw.
 * sig may be NULL.  Returns 0, or -EINVAL / -ERANGE with err naming the
 * field at fault.
 */
int hj_eip1559_decode(const uint8_t *raw, size_t len, hj_eip1559_tx *tx,
                      hj_eip1559_sig *sig, char *err, size_t errlen);

/*
 * Decodes raw (as hj_eip1559_decode; tx may be NULL) and recovers the
 * sender's address from the signature over the signing hash of the decoded
 * fields.  Returns 0, or -EINVAL with err: a decoding error, r or s zero
 * or not below the group order, s in the upper half (EIP-2), or no public
 * key recoverable.
 */
int hj_eip1559_recover(const hj_secp *ctx, const uint8_t *raw, size_t len,
                       hj_eip1559_tx *tx, uint8_t from[HJ_EVM_ADDR_LEN],
                       char *err, size_t errlen);

#endif
