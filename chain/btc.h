/*
 * Bitcoin-family adapter: one parsed transaction becomes the engine's
 * hj_action when it concerns the dealer (docs/BITCOIN.md), and the table's
 * verifier checks action signatures with BIP-340.  No JSON here.
 */
#ifndef HJ_BTC_H
#define HJ_BTC_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "bech32.h"
#include "btc_tx.h"
#include "round.h"
#include "taproot.h"

/*
 * Fills *out from *tx (position tx_index in its block) for the dealer whose
 * scriptPubKey is dealer_script.  Returns
 *   1  the transaction concerns the dealer: it pays the dealer (a Bet with
 *      its key P as sender, any staked action, a malformed payload, or a
 *      deposit without the magic), or its payload names a round by short
 *      id (the table ignores it when that round is not the dealer's);
 *   0  it does not: no output to the dealer and no signed action;
 *   -ERANGE its outputs to the dealer overflow 64 bits (err says so).
 * Ids are as the node displays them: txid.b is the display order.  *out
 * is meaningful only when 1 is returned (the txid is hashed only then).
 */
int hj_btc_action(const hj_btc_tx *tx, const uint8_t *dealer_script,
                  size_t script_len, uint32_t tx_index, hj_action *out,
                  char *err, size_t errlen);

/* Longest scriptPubKey of a segwit address: OP_n, a push, 40 bytes. */
#define HJ_BTC_SCRIPT_MAX 42

/*
 * The scriptPubKey of a segwit address (bech32 v0 or bech32m v1..16, either
 * case) whose prefix is one of the chains' (bc, tb, bcrt, ltc, tltc, rltc),
 * written to script (HJ_BTC_SCRIPT_MAX bytes) with its length in *len and
 * the prefix, lower case, in *hrp (static storage).  Returns 0, or -EINVAL
 * with err saying why (an unknown prefix, a bad checksum, a legacy base58
 * address, which the dealer cannot use).
 */
int hj_btc_address_script(const char *addr, uint8_t *script, size_t *len,
                          const char **hrp, char *err, size_t errlen);

/*
 * The address of a witness program as a Bitcoin-family sweep keeps its
 * cold address (docs/PAYOUTS.md, "Sweeps to cold storage"): 20 bytes,
 * P2WPKH (version 0); 32 bytes, P2TR (version 1), the key as it is, no
 * tweak.  0, or -1 with err (another length, an hrp too long).
 */
int hj_btc_sweep_address(const char *hrp, const uint8_t *prog, size_t len,
                         char out[HJ_BECH32_BUF], char *err, size_t errlen);

/* The table's verifier (hj_verify_fn) for one chain: ctx is a
 * struct hj_btc_verifier. */
struct hj_btc_verifier {
	const hj_secp *secp;
	uint8_t genesis[32]; /* block 0's hash as displayed */
};
int hj_btc_verify(void *ctx, const hj_round *r, const hj_action *a);

#endif
