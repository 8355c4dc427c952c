/* The EVM backend over Ethereum-style JSON-RPC. */
#ifndef HJ_EVM_BACKEND_H
#define HJ_EVM_BACKEND_H

#include "backend.h"
#include "dealer.h"
#include "rpc.h"

/*
 * eth_chainId, eth_blockNumber, final() as eth_getBlockByNumber(tag,
 * false) then eth_blockNumber, eth_getBlockByNumber(h, true) in batches,
 * and eth_getTransactionReceipt for every transaction to the dealer (its
 * status decides whether anything moved, so it must name that transaction
 * and that block; batched, one request per batch of blocks that has
 * any).  blocks() refuses (-EINVAL) an empty range and one that passes
 * 2^64 - 1.  push: eth_subscribe newHeads over WebSocket (push.h).
 * rpc is borrowed and must outlive the backend; dealer (an EVM one) is
 * copied.  Returns 0 with *out, or -ENOMEM and *out NULL.
 */
int hj_evm_backend_new(hj_rpc *rpc, const hj_dealer *dealer, hj_backend **out);

/* Its operations, for what they say before any node is asked (push_how:
 * `hashjackd --check-config`). */
extern const struct hj_backend_ops hj_evm_backend_ops;

#endif
