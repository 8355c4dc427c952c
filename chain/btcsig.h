/*
 * Players who sign (docs/PROTOCOL.md section 11.3).  On the Bitcoin family
 * every action after the Bet ends with the 8-byte short round id and a
 * 64-byte BIP-340 signature by the Bet's x-only key P over
 *
 *   tagged_sha256("HashJack/action",
 *                 genesis_hash || short_round_id || seq || body)
 *
 * genesis_hash  the 32 bytes of block 0's hash in the order the RPC
 *               displays it: decode the 64 hex digits of getblockhash 0
 *               front to back (chain/hex.h), no byte reversal;
 * short id      the first 8 bytes of the Bet txid as displayed;
 * seq           u32, big-endian (docs/PROTOCOL.md section 11.1): the
 *               round's actions after the Bet that were accepted or applied
 *               by timeout before this one;
 * body          the payload without the short id and the signature (magic,
 *               version, action and action fields: 4 or 5 bytes in v1).
 *
 * Keys are 32-byte secret keys and 32-byte x-only public keys.  Secret
 * material passed in is borrowed and never copied beyond the call; copies
 * on the stack are wiped before return.
 */
#ifndef HJ_BTCSIG_H
#define HJ_BTCSIG_H

#include <stddef.h>
#include <stdint.h>

#include "payload.h"
#include "taproot.h"

#define HJ_BTC_SECKEY_LEN   32
#define HJ_BTC_SIG_LEN      64
#define HJ_BTC_GENESIS_LEN  32
#define HJ_BTC_SHORT_ID_LEN 8
/* What follows the body in every signed payload. */
#define HJ_BTC_TAIL_LEN (HJ_BTC_SHORT_ID_LEN + HJ_BTC_SIG_LEN)
/* Longest body: the longest payload less its tail. */
#define HJ_BTC_BODY_MAX (HJ_PAYLOAD_MAX - HJ_BTC_TAIL_LEN)

/* What an action signature covers.  Pointers are borrowed for the call. */
typedef struct hj_btc_msg {
	const uint8_t *genesis;  /* HJ_BTC_GENESIS_LEN bytes, as displayed */
	const uint8_t *short_id; /* HJ_BTC_SHORT_ID_LEN bytes */
	uint32_t seq;
	const uint8_t *body; /* may be NULL when body_len is 0 */
	size_t body_len;     /* at most HJ_BTC_BODY_MAX */
} hj_btc_msg;

/* Writes the 32-byte message hash of *m into out.  Returns 0, or -EINVAL
 * when the body is longer than HJ_BTC_BODY_MAX. */
int hj_btc_action_hash(const hj_btc_msg *m, uint8_t out[32]);

/*
 * Draws a secret key from getrandom(2) (again while it is not a valid
 * scalar, which happens with probability about 2^-128) and writes it and
 * its x-only public key P.  Returns 0, or a negative errno with err.
 */
int hj_btc_keygen(const hj_secp *ctx, uint8_t sk[HJ_BTC_SECKEY_LEN],
                  uint8_t pk[HJ_XONLY_LEN], char *err, size_t errlen);

/* Writes the x-only public key of sk.  Returns 0, or -EINVAL when sk is
 * zero or not below the group order. */
int hj_btc_pubkey(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                  uint8_t pk[HJ_XONLY_LEN], char *err, size_t errlen);

/*
 * BIP-340 signature of the 32-byte msg by sk.  aux is the 32 bytes of
 * auxiliary randomness, or NULL to draw them from getrandom(2) (what real
 * signing does; a fixed aux is for test vectors).  The signature is
 * verified before it is returned, so that a computation fault cannot leak
 * the key through a bad signature.  Returns 0, or a negative errno with err.
 */
int hj_bip340_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                   const uint8_t msg[32], const uint8_t *aux,
                   uint8_t sig[HJ_BTC_SIG_LEN], char *err, size_t errlen);

/*
 * Checks a BIP-340 signature over msg[0..msglen) (any length, as BIP-340
 * allows) by the x-only key pk.  Returns 0 when it is valid, -EINVAL when pk
 * is not a valid x-only key, -EBADMSG when the signature does not verify.
 */
int hj_bip340_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                     const uint8_t *msg, size_t msglen,
                     const uint8_t sig[HJ_BTC_SIG_LEN]);

/* Signs the action hash of *m with sk, fresh auxiliary randomness each
 * time.  Returns 0, or a negative errno with err. */
int hj_btc_action_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                       const hj_btc_msg *m, uint8_t sig[HJ_BTC_SIG_LEN],
                       char *err, size_t errlen);

/* Checks sig over the action hash of *m against pk.  Returns as
 * hj_bip340_verify, or -EINVAL for a body longer than HJ_BTC_BODY_MAX. */
int hj_btc_action_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                         const hj_btc_msg *m,
                         const uint8_t sig[HJ_BTC_SIG_LEN]);

/*
 * The same two on a whole payload p[0..n), laid out as body || short id ||
 * signature (what hj_payload_encode writes for a Bitcoin non-Bet action):
 * the short id is read from the payload itself.  n must be at least
 * HJ_BTC_TAIL_LEN + 4 and at most HJ_PAYLOAD_MAX, else -EINVAL.
 * hj_btc_payload_sign overwrites the last 64 bytes of p with the signature.
 */
int hj_btc_payload_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                        const uint8_t genesis[HJ_BTC_GENESIS_LEN], uint32_t seq,
                        uint8_t *p, size_t n, char *err, size_t errlen);
int hj_btc_payload_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                          const uint8_t genesis[HJ_BTC_GENESIS_LEN],
                          uint32_t seq, const uint8_t *p, size_t n);

#endif
