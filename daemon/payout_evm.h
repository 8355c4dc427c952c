/*
 * Paying what the dealer owes on EVM chains: the daemon signs EIP-1559
 * transactions with the dealer's key (dealer_key.h, evm_tx.h) and sends
 * them to the node, each payout exactly once whatever crashes on the way.
 * docs/PAYOUTS-EVM.md gives the states, the argument and what the operator
 * sees.
 *
 * In short: all that is owed to one recipient goes into one transaction (a
 * batch with one output).  Its nonce is assigned, and the signed bytes
 * recorded, in one commit before anything is sent; every later version
 * (re-signed after a refusal, or a replacement of a stuck one) keeps the
 * nonce, the recipient and the value, and is recorded before it is sent.
 * At most one of them can ever be mined.  A batch is confirmed when one of
 * its versions has a successful receipt in a final block; it is reverted
 * (its payouts owed again) only when its nonce was taken, in a final
 * block, by a transaction that is none of its versions.  Only one batch is
 * ever planned (signed but not yet accepted by the node), so a refused
 * transaction holds back the next nonce instead of leaving a gap.
 *
 * Like the Bitcoin-family payer it runs on the follower's loop and shares
 * its store; every write is its own transaction made between two of the
 * follower's.
 */
#ifndef HJD_PAYOUT_EVM_H
#define HJD_PAYOUT_EVM_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "amount.h"
#include "rpc.h"
#include "store.h"

typedef struct hjd_evm_payer hjd_evm_payer;

typedef struct hjd_evm_payer_opts {
	uv_loop_t *loop;
	hj_store *store;            /* borrowed: the follower's */
	const hj_rpc_opts *node;    /* the node's client options, copied */
	const char *key_source;     /* [payout] dealer_key (dealer_key.h) */
	const char *dealer;         /* the configured address: the key's
	                               address must equal it */
	hj_amount max_fee_per_gas;  /* wei, the cap on every version */
	hj_amount min_priority_fee; /* wei, the tip's floor */
	unsigned stuck_after_s;     /* replace a version unmined this long */
	unsigned confirmations;     /* the daemon's: final at this depth */
	/* The open rounds' worst-case returns (hj_table_exposure), for the
	 * bankroll warning. */
	hj_amount (*exposure)(void *arg);
	void (*on_status)(void *arg);
	void (*on_fatal)(void *arg, const char *msg);
	void *arg;
} hjd_evm_payer_opts;

/* Reads the key (refused unless its file is private and its address is the
 * dealer's), makes the client.  Returns 0 and *out, or a negative errno
 * with err.  Nothing is sent before hjd_evm_payer_kick. */
int hjd_evm_payer_new(const hjd_evm_payer_opts *o, hjd_evm_payer **out,
                      char *err, size_t errlen);

/* As hjd_payer_kick: blocks up to processed are committed, tip is the
 * node's tip.  Passes never overlap; kicks during one coalesce. */
void hjd_evm_payer_kick(hjd_evm_payer *p, uint64_t processed, uint64_t tip);

/* One line for STATUS= and the log. */
void hjd_evm_payer_status(const hjd_evm_payer *p, char *buf, size_t n);

/* Drops what is in flight, wipes the key, frees p, then done(arg) from the
 * loop.  NULL is fine. */
void hjd_evm_payer_close(hjd_evm_payer *p, void (*done)(void *arg), void *arg);

#endif
