/* EIP-1559 transactions: encoding, signing, recovery (see evm_tx.h).
 * Written from EIP-1559 ("Specification"), EIP-2718 (typed transaction
 * envelope), EIP-2 (low s) and the yellow paper, appendix F. */
#include "evm_tx.h"
#include "taproot_ctx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include "keccak.h"
#include "rlp.h"
#include "say.h"

#define SAY(...) hj_say(err, errlen, __VA_ARGS__)

int hj_evm_pubkey(const hj_secp *ctx, const uint8_t sk[HJ_EVM_SECKEY_LEN],
                  uint8_t pub[HJ_EVM_PUBKEY_LEN], char *err, size_t errlen)
{
	secp256k1_pubkey pk;
	uint8_t ser[1 + HJ_EVM_PUBKEY_LEN];
	size_t serlen = sizeof ser;

	if (!secp256k1_ec_pubkey_create(ctx->ctx, &pk, sk)) {
		SAY("secret key is zero or not below the secp256k1 group "
		    "order");
		return -EINVAL;
	}
	/* Cannot fail for a valid key and a 65-byte buffer. */
	secp256k1_ec_pubkey_serialize(ctx->ctx, ser, &serlen, &pk,
	                              SECP256K1_EC_UNCOMPRESSED);
	memcpy(pub, ser + 1, HJ_EVM_PUBKEY_LEN);
	return 0;
}

void hj_evm_pubkey_address(const uint8_t pub[HJ_EVM_PUBKEY_LEN],
                           uint8_t addr[HJ_EVM_ADDR_LEN])
{
	uint8_t h[HJ_KECCAK256_LEN];

	hj_keccak256(pub, HJ_EVM_PUBKEY_LEN, h);
	memcpy(addr, h + sizeof h - HJ_EVM_ADDR_LEN, HJ_EVM_ADDR_LEN);
}

int hj_evm_address(const hj_secp *ctx, const uint8_t sk[HJ_EVM_SECKEY_LEN],
                   uint8_t addr[HJ_EVM_ADDR_LEN], char *err, size_t errlen)
{
	uint8_t pub[HJ_EVM_PUBKEY_LEN];
	int rc = hj_evm_pubkey(ctx, sk, pub, err, errlen);

	if (rc)
		return rc;
	hj_evm_pubkey_address(pub, addr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Encoding.                                                          */

static int check_data(const hj_eip1559_tx *tx, char *err, size_t errlen)
{
	if (tx->data_len > HJ_EIP1559_DATA_MAX) {
		SAY("EIP-1559 transaction: %zu bytes of call data, at most %d "
		    "allowed",
		    tx->data_len, HJ_EIP1559_DATA_MAX);
		return -EINVAL;
	}
	if (tx->data == NULL && tx->data_len > 0) {
		SAY("EIP-1559 transaction: no call data for data_len %zu",
		    tx->data_len);
		return -EINVAL;
	}
	return 0;
}

/* The nine fields of the payload, in order (EIP-1559). */
static void put_fields(hj_rlp *r, const hj_eip1559_tx *tx)
{
	hj_rlp_u64(r, tx->chain_id);
	hj_rlp_u64(r, tx->nonce);
	hj_rlp_u128(r, tx->max_priority_fee_per_gas);
	hj_rlp_u128(r, tx->max_fee_per_gas);
	hj_rlp_u64(r, tx->gas_limit);
	hj_rlp_bytes(r, tx->to, HJ_EVM_ADDR_LEN);
	hj_rlp_u128(r, tx->value);
	hj_rlp_bytes(r, tx->data, tx->data_len);
	hj_rlp_list_begin(r); /* access_list: always empty here */
	hj_rlp_list_end(r);
}

/* Writes 0x02 then the list built by put_fields and, when sig is not NULL,
 * the signature. */
static int encode(const hj_eip1559_tx *tx, const hj_eip1559_sig *sig,
                  uint8_t *out, size_t cap, size_t *len, char *err,
                  size_t errlen)
{
	hj_rlp r;
	size_t n;
	int rc = check_data(tx, err, errlen);

	if (rc)
		return rc;
	if (sig != NULL && sig->y_parity > 1) {
		SAY("EIP-1559 transaction: y_parity %u, expected 0 or 1",
		    sig->y_parity);
		return -EINVAL;
	}
	if (cap < 1) {
		SAY("EIP-1559 transaction: no room for the type byte");
		return -ENOSPC;
	}
	out[0] = HJ_EIP1559_TYPE;
	hj_rlp_init(&r, out + 1, cap - 1);
	hj_rlp_list_begin(&r);
	put_fields(&r, tx);
	if (sig != NULL) {
		hj_rlp_u64(&r, sig->y_parity);
		hj_rlp_uint_be(&r, sig->r, sizeof sig->r);
		hj_rlp_uint_be(&r, sig->s, sizeof sig->s);
	}
	hj_rlp_list_end(&r);
	rc = hj_rlp_finish(&r, &n);
	if (rc) {
		/* The list is balanced above: only space can run out. */
		SAY("EIP-1559 transaction: does not fit in %zu bytes", cap);
		return rc;
	}
	*len = 1 + n;
	return 0;
}

int hj_eip1559_encode_unsigned(const hj_eip1559_tx *tx, uint8_t *out,
                               size_t cap, size_t *len, char *err,
                               size_t errlen)
{
	return encode(tx, NULL, out, cap, len, err, errlen);
}

int hj_eip1559_encode_signed(const hj_eip1559_tx *tx, const hj_eip1559_sig *sig,
                             uint8_t *out, size_t cap, size_t *len, char *err,
                             size_t errlen)
{
	return encode(tx, sig, out, cap, len, err, errlen);
}

int hj_eip1559_signing_hash(const hj_eip1559_tx *tx, uint8_t hash[32],
                            char *err, size_t errlen)
{
	uint8_t buf[HJ_EIP1559_RAW_MAX];
	size_t n;
	int rc = encode(tx, NULL, buf, sizeof buf, &n, err, errlen);

	if (rc)
		return rc;
	hj_keccak256(buf, n, hash);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Decoding.                                                          */

/* The next item of the transaction's list, named what in errors. */
static int next(const uint8_t **p, size_t *n, hj_rlp_item *it, const char *what,
                char *err, size_t errlen)
{
	char why[HJ_ERRLEN];
	int rc;

	if (*n == 0) {
		SAY("EIP-1559 transaction: the list ends before %s", what);
		return -EINVAL;
	}
	rc = hj_rlp_next(p, n, it, why, sizeof why);
	if (rc)
		SAY("EIP-1559 transaction: %s: %s", what, why);
	return rc;
}

static int get_u64(const uint8_t **p, size_t *n, const char *what,
                   uint64_t *out, char *err, size_t errlen)
{
	hj_rlp_item it;
	char why[HJ_ERRLEN];
	int rc = next(p, n, &it, what, err, errlen);

	if (rc)
		return rc;
	rc = hj_rlp_get_u64(&it, what, out, why, sizeof why);
	if (rc)
		SAY("EIP-1559 transaction: %s", why);
	return rc;
}

static int get_u128(const uint8_t **p, size_t *n, const char *what,
                    unsigned __int128 *out, char *err, size_t errlen)
{
	hj_rlp_item it;
	char why[HJ_ERRLEN];
	int rc = next(p, n, &it, what, err, errlen);

	if (rc)
		return rc;
	rc = hj_rlp_get_u128(&it, what, out, why, sizeof why);
	if (rc)
		SAY("EIP-1559 transaction: %s", why);
	return rc;
}

/* r or s: an integer of at most 32 bytes, written right-aligned into out
 * (zero is read here and refused by recovery). */
static int get_scalar(const uint8_t **p, size_t *n, const char *what,
                      uint8_t out[32], char *err, size_t errlen)
{
	hj_rlp_item it;
	int rc = next(p, n, &it, what, err, errlen);

	if (rc)
		return rc;
	if (it.is_list || it.len > 32 || (it.len > 0 && it.p[0] == 0)) {
		SAY("EIP-1559 transaction: %s: not an integer of at most 32 "
		    "bytes without leading zeros",
		    what);
		return -EINVAL;
	}
	memset(out, 0, 32);
	if (it.len > 0)
		memcpy(out + 32 - it.len, it.p, it.len);
	return 0;
}

int hj_eip1559_decode(const uint8_t *raw, size_t len, hj_eip1559_tx *tx,
                      hj_eip1559_sig *sig, char *err, size_t errlen)
{
	hj_eip1559_tx t;
	hj_eip1559_sig s;
	hj_rlp_item list, it;
	const uint8_t *p;
	size_t n;
	uint64_t y;
	char why[HJ_ERRLEN];
	int rc;

	memset(&t, 0, sizeof t);
	if (len == 0 || raw[0] != HJ_EIP1559_TYPE) {
		SAY("EIP-1559 transaction: %s",
		    len == 0 ? "empty" : "the type byte is not 0x02");
		return -EINVAL;
	}
	p = raw + 1;
	n = len - 1;
	rc = hj_rlp_next(&p, &n, &list, why, sizeof why);
	if (rc) {
		SAY("EIP-1559 transaction: %s", why);
		return rc;
	}
	if (!list.is_list || n != 0) {
		SAY("EIP-1559 transaction: %s",
		    !list.is_list ? "not a list after the type byte"
		                  : "bytes after the list");
		return -EINVAL;
	}
	p = list.p;
	n = list.len;
	if ((rc = get_u64(&p, &n, "chain_id", &t.chain_id, err, errlen)) ||
	    (rc = get_u64(&p, &n, "nonce", &t.nonce, err, errlen)) ||
	    (rc = get_u128(&p, &n, "max_priority_fee_per_gas",
	                   &t.max_priority_fee_per_gas, err, errlen)) ||
	    (rc = get_u128(&p, &n, "max_fee_per_gas", &t.max_fee_per_gas, err,
	                   errlen)) ||
	    (rc = get_u64(&p, &n, "gas_limit", &t.gas_limit, err, errlen)) ||
	    (rc = next(&p, &n, &it, "to", err, errlen)))
		return rc;
	if (it.is_list || it.len != HJ_EVM_ADDR_LEN) {
		SAY("EIP-1559 transaction: to: %s",
		    !it.is_list && it.len == 0
		        ? "empty (a contract creation), not supported"
		        : "not a 20-byte address");
		return -EINVAL;
	}
	memcpy(t.to, it.p, HJ_EVM_ADDR_LEN);
	if ((rc = get_u128(&p, &n, "value", &t.value, err, errlen)) ||
	    (rc = next(&p, &n, &it, "data", err, errlen)))
		return rc;
	if (it.is_list || it.len > HJ_EIP1559_DATA_MAX) {
		if (it.is_list)
			SAY("EIP-1559 transaction: data: a list, expected "
			    "bytes");
		else
			SAY("EIP-1559 transaction: data: %zu bytes, at most %d "
			    "allowed",
			    it.len, HJ_EIP1559_DATA_MAX);
		return -EINVAL;
	}
	t.data = it.len > 0 ? it.p : NULL;
	t.data_len = it.len;
	if ((rc = next(&p, &n, &it, "access_list", err, errlen)))
		return rc;
	if (!it.is_list || it.len != 0) {
		SAY("EIP-1559 transaction: access_list: %s",
		    it.is_list ? "not empty, not supported" : "not a list");
		return -EINVAL;
	}
	if ((rc = get_u64(&p, &n, "y_parity", &y, err, errlen)))
		return rc;
	if (y > 1) {
		SAY("EIP-1559 transaction: y_parity %llu, expected 0 or 1",
		    (unsigned long long)y);
		return -EINVAL;
	}
	s.y_parity = (uint8_t)y;
	if ((rc = get_scalar(&p, &n, "r", s.r, err, errlen)) ||
	    (rc = get_scalar(&p, &n, "s", s.s, err, errlen)))
		return rc;
	if (n != 0) {
		SAY("EIP-1559 transaction: more than twelve items in the "
		    "list");
		return -EINVAL;
	}
	if (tx != NULL)
		*tx = t;
	if (sig != NULL)
		*sig = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Signatures.                                                        */

int hj_eip1559_recover(const hj_secp *ctx, const uint8_t *raw, size_t len,
                       hj_eip1559_tx *tx, uint8_t from[HJ_EVM_ADDR_LEN],
                       char *err, size_t errlen)
{
	hj_eip1559_tx t;
	hj_eip1559_sig s;
	secp256k1_ecdsa_recoverable_signature rsig;
	secp256k1_ecdsa_signature plain;
	secp256k1_pubkey pk;
	uint8_t compact[64], hash[32], ser[1 + HJ_EVM_PUBKEY_LEN];
	size_t serlen = sizeof ser;
	int rc = hj_eip1559_decode(raw, len, &t, &s, err, errlen);

	if (rc)
		return rc;
	rc = hj_eip1559_signing_hash(&t, hash, err, errlen);
	if (rc)
		return rc;
	memcpy(compact, s.r, 32);
	memcpy(compact + 32, s.s, 32);
	/* parse_compact refuses r or s not below the order; zero ones pass
	 * it and fail recovery below. */
	if (!secp256k1_ecdsa_recoverable_signature_parse_compact(
	        ctx->ctx, &rsig, compact, s.y_parity)) {
		SAY("EIP-1559 transaction: r or s is not below the secp256k1 "
		    "group order");
		return -EINVAL;
	}
	secp256k1_ecdsa_recoverable_signature_convert(ctx->ctx, &plain, &rsig);
	if (secp256k1_ecdsa_signature_normalize(ctx->ctx, NULL, &plain)) {
		SAY("EIP-1559 transaction: s is in the upper half of the "
		    "group order (EIP-2)");
		return -EINVAL;
	}
	if (!secp256k1_ecdsa_recover(ctx->ctx, &pk, &rsig, hash)) {
		SAY("EIP-1559 transaction: no public key recovers from the "
		    "signature");
		return -EINVAL;
	}
	secp256k1_ec_pubkey_serialize(ctx->ctx, ser, &serlen, &pk,
	                              SECP256K1_EC_UNCOMPRESSED);
	hj_evm_pubkey_address(ser + 1, from);
	if (tx != NULL)
		*tx = t;
	return 0;
}

static int same_tx(const hj_eip1559_tx *a, const hj_eip1559_tx *b)
{
	return a->chain_id == b->chain_id && a->nonce == b->nonce &&
	       a->max_priority_fee_per_gas == b->max_priority_fee_per_gas &&
	       a->max_fee_per_gas == b->max_fee_per_gas &&
	       a->gas_limit == b->gas_limit &&
	       memcmp(a->to, b->to, HJ_EVM_ADDR_LEN) == 0 &&
	       a->value == b->value && a->data_len == b->data_len &&
	       (a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0);
}

int hj_eip1559_sign(const hj_secp *ctx, const hj_eip1559_tx *tx,
                    const uint8_t sk[HJ_EVM_SECKEY_LEN], uint8_t *raw,
                    size_t cap, size_t *rawlen, uint8_t txhash[32], char *err,
                    size_t errlen)
{
	secp256k1_ecdsa_recoverable_signature rsig;
	hj_eip1559_tx back;
	hj_eip1559_sig sig;
	uint8_t hash[32], compact[64], self[HJ_EVM_ADDR_LEN],
	    from[HJ_EVM_ADDR_LEN];
	size_t n;
	int recid, rc;
	char why[HJ_ERRLEN];

	if (tx->max_priority_fee_per_gas > tx->max_fee_per_gas) {
		SAY("EIP-1559 transaction: max_priority_fee_per_gas is above "
		    "max_fee_per_gas");
		return -EINVAL;
	}
	rc = hj_evm_address(ctx, sk, self, err, errlen);
	if (rc)
		return rc;
	rc = hj_eip1559_signing_hash(tx, hash, err, errlen);
	if (rc)
		return rc;
	/* NULL nonce function: RFC 6979, deterministic.  Fails only for an
	 * invalid key, which hj_evm_address has ruled out. */
	if (!secp256k1_ecdsa_sign_recoverable(ctx->ctx, &rsig, hash, sk, NULL,
	                                      NULL)) {
		SAY("EIP-1559 transaction: signing failed");
		return -EINVAL;
	}
	secp256k1_ecdsa_recoverable_signature_serialize_compact(
	    ctx->ctx, compact, &recid, &rsig);
	sig.y_parity = (uint8_t)recid;
	memcpy(sig.r, compact, 32);
	memcpy(sig.s, compact + 32, 32);
	rc = hj_eip1559_encode_signed(tx, &sig, raw, cap, &n, err, errlen);
	if (rc)
		return rc;
	/* The self-check: what a node will read from these bytes. */
	rc = hj_eip1559_recover(ctx, raw, n, &back, from, why, sizeof why);
	if (rc || !same_tx(tx, &back) ||
	    memcmp(from, self, HJ_EVM_ADDR_LEN) != 0) {
		SAY("EIP-1559 transaction: self-check failed: %s",
		    rc ? why
		    : !same_tx(tx, &back)
		        ? "the raw bytes decode to other fields"
		        : "the signature recovers to another address");
		return -EIO;
	}
	*rawlen = n;
	if (txhash != NULL)
		hj_keccak256(raw, n, txhash);
	return 0;
}
