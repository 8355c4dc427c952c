/*
 * Taproot payouts for the Bitcoin family (docs/PROTOCOL.md sections 9.1 and
 * 11.4):
 * the player's x-only key P becomes the BIP-86 output key
 *
 *   Q = P + int(tagged_sha256("TapTweak", P)) G   (x-only, no script tree)
 *
 * paid to the witness version 1 address of Q, tr(P), in the chain's bech32m
 * prefix.  The secp256k1 context lives here too (chain/btcsig.h uses it).
 */
#ifndef HJ_TAPROOT_H
#define HJ_TAPROOT_H

#include <stddef.h>
#include <stdint.h>

#include "bech32.h"

#define HJ_XONLY_LEN 32

/*
 * A libsecp256k1 context, created once and randomised with getrandom(2)
 * against side channels.  After hj_secp_new it is never written: one
 * context may serve any number of threads at once.  Opaque.
 */
typedef struct hj_secp hj_secp;

/* A new context: returns 0 with *out (caller frees with hj_secp_free), or
 * a negative errno with the reason in err and *out NULL (-ENOMEM, or
 * getrandom's error when the kernel gives no randomness). */
int hj_secp_new(hj_secp **out, char *err, size_t errlen);

/* Frees ctx.  NULL is allowed. */
void hj_secp_free(hj_secp *ctx);

/*
 * The bech32 hrp of a chain, from the node's getblockchaininfo "chain" and
 * the coin the operator runs (coin is not in the RPC answer: Bitcoin Core and
 * Litecoin Core both call their main chain "main"):
 *
 *   coin "bitcoin":  main -> bc, test -> tb, testnet4 -> tb, signet -> tb,
 *                    regtest -> bcrt
 *   coin "litecoin": main -> ltc, test -> tltc, regtest -> rltc
 *
 * Sets *hrp to a static string and returns 0, or -EINVAL with err naming the
 * unknown coin or chain.  Comparison is exact (lower case, as nodes print).
 */
int hj_taproot_hrp(const char *coin, const char *chain, const char **hrp,
                   char *err, size_t errlen);

/*
 * Writes the BIP-86 output key Q of the internal key p into q.  Returns 0, or
 * -EINVAL when p is not the x coordinate of a curve point (with err saying
 * so) or, with negligible probability, the tweak is not a valid scalar.
 */
int hj_taproot_output_key(const hj_secp *ctx, const uint8_t p[HJ_XONLY_LEN],
                          uint8_t q[HJ_XONLY_LEN], char *err, size_t errlen);

/*
 * Writes tr(p), the lower-case witness version 1 address of p's output key
 * for hrp (see hj_taproot_hrp), into out.  Returns 0, or -EINVAL with err.
 */
int hj_taproot_address(const hj_secp *ctx, const uint8_t p[HJ_XONLY_LEN],
                       const char *hrp, char out[HJ_BECH32_BUF], char *err,
                       size_t errlen);

#endif
