/* The Bitcoin-family backend over Bitcoin Core-style JSON-RPC. */
#ifndef HJ_BTC_BACKEND_H
#define HJ_BTC_BACKEND_H

#include <stddef.h>

#include "backend.h"
#include "dealer.h"
#include "rpc.h"

/*
 * identity: getblockchaininfo (the network's name, which with coin gives
 * the address prefix; the dealer address must carry it) and getblockhash 0
 * (the genesis hash, which every signed action commits to).  tip:
 * getblockcount.  blocks: a batch of getblockhash, then a batch of
 * getblock <hash> 0; each raw block is parsed here (chain/btc_tx.h), its
 * header hash checked against the hash asked for, and every transaction
 * that concerns the dealer normalised (chain/btc.h).  docs/BITCOIN.md
 * explains why raw blocks.  push: waitfornewblock long polls (push.h).
 *
 * coin is "bitcoin" or "litecoin"; dealer a Bitcoin-family one, copied.
 * rpc is borrowed and must outlive the backend.  Returns 0 with *out, or
 * a negative errno with the reason in err and *out NULL: -EINVAL for an
 * unknown coin, -ENOMEM, or hj_secp_new's error.
 */
int hj_btc_backend_new(hj_rpc *rpc, const char *coin, const hj_dealer *dealer,
                       hj_backend **out, char *err, size_t errlen);

/* Its operations, for what they say before any node is asked (push_how:
 * `hashjackd --check-config`). */
extern const struct hj_backend_ops hj_btc_backend_ops;

#endif
