/*
 * A chain backend: what the daemon needs from a node, whatever the family
 * (with a payer, daemon/payer.h, all that a family is to the daemon).
 * Asynchronous on the daemon's loop; each call's callback runs exactly once
 * (unless the backend is freed first).  The backend validates everything the
 * node says and hands the daemon plain values: a block's hashes and its
 * transactions to the dealer, normalised into hj_action (and, when asked,
 * every transaction of the block as a replay document gives it).
 *
 * A non-NULL `error` in a callback means the node answered something
 * unusable (a malformed or missing block, a receipt not yet available): the
 * caller logs it and asks again later.  Transport failures never surface
 * here; the RPC client retries them.
 */
#ifndef HJ_BACKEND_H
#define HJ_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "amount.h"
#include "payload.h"

/*
 * One transaction of a block as a `hashjack replay` document gives it
 * (docs/CLI.md), whoever it is to: what a backend asked to keep every
 * transaction (keep_all) adds to each block.  data points into the block's
 * bytes.
 */
typedef struct hj_chain_tx {
	const uint8_t *data; /* EVM: the input; Bitcoin family: the raw
	                        serialisation, witnesses included */
	size_t len;
	/* EVM only. */
	uint8_t hash[32];
	uint8_t from[20];
	uint8_t to[20];
	uint8_t has_to;    /* 0: a contract creation */
	uint8_t to_dealer; /* its receipt was read: */
	uint8_t failed;    /* receipt status 0 */
	hj_amount value;   /* wei */
} hj_chain_tx;

typedef struct hj_chain_block {
	uint64_t height;
	uint8_t hash[32]; /* as the node displays it */
	uint8_t parent[32];
	hj_action *txs; /* to the dealer, normalised, in block order */
	size_t ntx;
	/* Every transaction in block order (nall of them), and the bytes
	 * their data points into, from a backend that keeps them; else
	 * NULL and 0.  Owned by the backend like txs. */
	hj_chain_tx *all;
	size_t nall;
	uint8_t *bytes;
} hj_chain_block;

/* A copy of blocks src[0..n) that outlives the callback lending them:
 * each block's txs copied, all and bytes (keep_all's) left out.  NULL
 * when out of memory.  hj_chain_blocks_free(b, n) frees blocks and what
 * each holds (txs, all, bytes), a copy or a backend's own (NULL is
 * fine). */
hj_chain_block *hj_chain_blocks_copy(const hj_chain_block *src, size_t n);
void hj_chain_blocks_free(hj_chain_block *b, size_t n);

/* permanent: the error will not go away by asking again (the node runs
 * another network than the dealer address is for): the daemon stops. */
typedef void (*hj_ident_cb)(void *arg, const char *identity, const char *error,
                            int permanent);
typedef void (*hj_tip_cb)(void *arg, uint64_t height, const char *error);

/*
 * What makes a block final ([chain] confirmations, docs/CONFIG.md).
 * HJ_FINALITY_DEPTH: block B once the node's tip is at least B +
 * confirmations - 1, on any family.  HJ_FINALITY_FINALIZED and
 * HJ_FINALITY_SAFE: every block up to the node's own "finalized" or
 * "safe" block (EVM's block tags; docs/OPERATION.md, "Finality").
 */
typedef enum hj_finality {
	HJ_FINALITY_DEPTH = 0,
	HJ_FINALITY_FINALIZED,
	HJ_FINALITY_SAFE,
} hj_finality;

/* The tag's name as the node and the configuration spell it
 * ("finalized", "safe"); NULL for HJ_FINALITY_DEPTH. */
static inline const char *hj_finality_name(hj_finality f)
{
	return f == HJ_FINALITY_FINALIZED ? "finalized"
	       : f == HJ_FINALITY_SAFE    ? "safe"
	                                  : NULL;
}

/* tip: the node's; final: the number of its block of the tag asked for,
 * never above tip.  Both 0 with an error. */
typedef void (*hj_final_cb)(void *arg, uint64_t tip, uint64_t final,
                            const char *error);
/* blocks[0..n) in height order; borrowed for the callback only. */
typedef void (*hj_blocks_cb)(void *arg, hj_chain_block *blocks, size_t n,
                             const char *error);

/* What payments() looks for when a recipient of the card log is paid
 * (payee()): EVM, its address (20 bytes); Bitcoin family, the
 * scriptPubKey of its tr(P) (34 bytes).  address is how a watcher looks
 * it up: the 0x address, or tr(P) in the node's prefix. */
#define HJ_PAYEE_MAX 34
typedef struct hj_chain_payee {
	uint8_t len;
	uint8_t b[HJ_PAYEE_MAX];
	char address[96]; /* at least HJ_BECH32_BUF */
} hj_chain_payee;

/* A value received by one of the payees a payments() call names. */
typedef struct hj_chain_payment {
	uint64_t height;
	size_t payee; /* the index in the payees given */
	hj_amount value;
	uint8_t txid[32]; /* as the node displays it */
} hj_chain_payment;

/* payments[0..n) in block order; borrowed for the callback only. */
typedef void (*hj_payments_cb)(void *arg, const hj_chain_payment *payments,
                               size_t n, const char *error);

typedef struct hj_backend hj_backend;
struct hj_table;
struct hj_push;
struct hj_push_opts;

struct hj_backend_ops {
	const char *chain; /* the card log's "chain" */
	hj_family family;
	/* A string naming the chain ("evm:1"), stored at first start. */
	int (*identity)(hj_backend *b, hj_ident_cb cb, void *arg);
	int (*tip)(hj_backend *b, hj_tip_cb cb, void *arg);
	/* The node's own final block of tag `how` (HJ_FINALITY_FINALIZED or
	 * HJ_FINALITY_SAFE, else -EINVAL and no call), then its tip.  A
	 * node without that block (null: no proof-of-stake finality, e.g.
	 * before the merge), one that refuses the tag (its JSON-RPC error,
	 * in the error's text), or a block above the tip asked after it,
	 * is an error: the caller asks again later, never takes a guess.
	 * NULL where the family has no such blocks (the Bitcoin family). */
	int (*final)(hj_backend *b, hj_finality how, hj_final_cb cb, void *arg);
	/* After identity() succeeded: installs in t what playing this chain
	 * needs (the Bitcoin family's signature verifier).  NULL when
	 * nothing is needed.  The backend must outlive t's use. */
	void (*attach)(hj_backend *b, struct hj_table *t);
	/* Blocks from .. from + n - 1. */
	int (*blocks)(hj_backend *b, uint64_t from, size_t n, hj_blocks_cb cb,
	              void *arg);
	/* From now on blocks() also gives every transaction of each block
	 * (hj_chain_block.all), for a replay document (`hashjack export`).
	 * Costs memory and time the dealer does not need. */
	void (*keep_all)(hj_backend *b);
	/* What a payment to recipient looks like on this chain: a card
	 * log's player or refund recipient (EVM: an address; Bitcoin
	 * family: the x-only key P, paid at tr(P), in the dealer address's
	 * prefix).  Returns 0, or -EINVAL with err (not an address, not a
	 * key). */
	int (*payee)(hj_backend *b, const hj_id *recipient, hj_chain_payee *out,
	             char *err, size_t errlen);
	/* What payees[0..npayees) received in blocks from .. from + n - 1,
	 * in block order.  EVM: the value of every transaction from the
	 * dealer to a payee whose receipt says success (a plain transfer
	 * or a call: whatever value moved at the top level).  Bitcoin
	 * family: every output paying a payee's script, whoever paid it.
	 * payees is borrowed until the callback; a payee given twice gets
	 * its payments at its first index. */
	int (*payments)(hj_backend *b, uint64_t from, size_t n,
	                const hj_chain_payee *payees, size_t npayees,
	                hj_payments_cb cb, void *arg);
	/* Opens the push wake-up of this family's node (push.h: "the node
	 * probably has a new block"), as hj_push_new does with o, whose
	 * kind is the family's: EVM, newHeads over WebSocket at o->url;
	 * Bitcoin family, waitfornewblock long polls over a client of its
	 * own with o->rpc (its url the push URL).  o->kind is not read.
	 * Returns hj_push_new's (0 with *out, or -EINVAL, -ENOMEM with
	 * err).  The push object does not use the backend: either may be
	 * closed first.  NULL where the family has no push. */
	int (*push)(hj_backend *b, const struct hj_push_opts *o,
	            struct hj_push **out, char *err, size_t errlen);
	/* How push() hears of blocks, for a log ("eth_subscribe newHeads",
	 * "waitfornewblock long poll"); NULL without push. */
	const char *push_how;
	/* Frees the backend and its requests in progress.  Call it only
	 * after the RPC client was closed (hj_rpc_close), so that no
	 * request can call back. */
	void (*free)(hj_backend *b);
};

struct hj_backend {
	const struct hj_backend_ops *ops;
};

#endif
