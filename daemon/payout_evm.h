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
 * follower's.  The follower drives it through payer.h.
 */
#ifndef HJD_PAYOUT_EVM_H
#define HJD_PAYOUT_EVM_H

#include <stddef.h>
#include <stdint.h>

#include "amount.h"
#include "payer.h"

/* What only this family's payer takes ([payout] of the configuration). */
typedef struct hjd_evm_payout {
	const char *key_source;     /* [payout] dealer_key (dealer_key.h) */
	hj_amount max_fee_per_gas;  /* wei, the cap on every version */
	hj_amount min_priority_fee; /* wei, the tip's floor */
	unsigned stuck_after_s;     /* replace a version unmined this long */
	int min_refund_auto;        /* [payout] min_refund = auto */
	hj_amount min_refund;       /* else its amount, wei */
	/* [payout] sweep_to: sweep 0, none; else the cold address, the
	 * margin kept (wei) and the blocks between two sweeps. */
	int sweep;
	uint8_t sweep_to[20];
	hj_amount sweep_margin;
	uint64_t sweep_every;
} hjd_evm_payout;

/* A payer (payer.h) for EVM chains: reads the key (refused unless its file
 * is private and its address is o->dealer's), makes the client.  Returns 0
 * and *out, or a negative errno with err. */
int hjd_evm_payer_new(const hjd_payer_opts *o, const hjd_evm_payout *po,
                      hjd_payer **out, char *err, size_t errlen);

#endif
