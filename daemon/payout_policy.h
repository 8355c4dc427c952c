/*
 * The payers' policy: what to pay, to whom, with which fees.  Pure: plain
 * values in, plain values out; no I/O, no JSON, no store, no clock, no
 * allocation.  The state machines (payout_btc.c, payout_evm.c) read the
 * node and the store, turn what they read into these inputs, call these
 * functions and act on what they say (docs/PAYOUTS.md,
 * docs/PAYOUTS-EVM.md).
 *
 *   Bitcoin family   owed payouts -> one output per recipient (tr(P)),
 *                    dust and output caps, the batch's recipients
 *   EVM              owed payouts -> the next transaction's recipient and
 *                    value; the fee history -> the fees a new version
 *                    asks; a never accepted version's fees; a stuck one's
 *                    replacement fees
 *
 * Amounts are base units (satoshis, litoshis) or wei per gas.
 */
#ifndef HJD_PAYOUT_POLICY_H
#define HJD_PAYOUT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "amount.h"
#include "bech32.h"
#include "evm.h"
#include "store.h"
#include "taproot.h"

/* ---- the Bitcoin family ---- */

/* Output values are int64 on the node (CAmount): one output carries at
 * most this. */
#define HJD_BTC_OUTPUT_MAX ((hj_amount)INT64_MAX)

typedef struct hjd_btc_policy {
	const hj_secp *secp; /* borrowed: for tr(P) */
	const char *hrp;     /* borrowed: the network's bech32 prefix */
	hj_amount dust;      /* [payout] dust_limit: a smaller output waits */
	size_t max_outputs;  /* [payout] max_outputs: recipients per batch */
	/* [payout] sweep_to's witness program (20 bytes: P2WPKH, 32: P2TR),
	 * sweep_len 0 when none. */
	const uint8_t *sweep;
	size_t sweep_len;
} hjd_btc_policy;

/* A sweep's payout (its id "sweep:<block>"): its recipient is the cold
 * address's witness program, not a key P. */
int hjd_btc_is_sweep(const char *id);

/* One recipient's output: the payouts v[first .. first + n) of the array
 * hjd_btc_plan_owed sorted. */
typedef struct hjd_btc_group {
	size_t first, n;
	hj_amount sum;   /* the output's value: 1 .. HJD_BTC_OUTPUT_MAX */
	uint64_t height; /* of its oldest payout */
	char addr[HJ_BECH32_BUF];
} hjd_btc_group;

typedef struct hjd_btc_plan {
	size_t ngroups; /* payable recipients (groups[0 .. ngroups)) */
	size_t nbatch;  /* the next batch: groups[0 .. nbatch) */
	int more;       /* max_outputs left payable recipients out */
	/* For STATUS: the payouts below dust (their number and sum), those
	 * never payable automatically (a recipient that is not a 32-byte key,
	 * an invalid key, a payout above HJD_BTC_OUTPUT_MAX, a group summing
	 * to 0), and the sum of every payable group (the batch's and those
	 * left for later). */
	uint64_t dust_n, unpayable_n;
	hj_amount dust_sum, payable;
} hjd_btc_plan;

/*
 * Plans the Bitcoin family's next batch from the n owed payouts v (in any
 * order):
 *
 *   - unattributed payouts (recipient.len 0) are left out, uncounted
 *     (STATUS counts them from the store); a recipient of another length
 *     than 32 is unpayable;
 *   - a sweep (hjd_btc_is_sweep) is a group of its own, paid to the
 *     address of its program, segwit version 0 for 20 bytes and 1 for 32
 *     (no tweak: it is the address's own), when that program is
 *     pol->sweep's; else (the configuration changed since it was
 *     recorded, or none is set) it is unpayable, to be paid by hand;
 *   - the rest is sorted by recipient, then height, then id, and each
 *     recipient's payouts form one group, in that order, while the sum
 *     stays within HJD_BTC_OUTPUT_MAX; the rest of that recipient's
 *     payouts waits for a later batch (uncounted).  A first payout above
 *     HJD_BTC_OUTPUT_MAX is a group of its own, unpayable, and the rest
 *     of its recipient's payouts waits behind it;
 *   - a group whose key has no tr(P) (not a curve point) or whose sum is
 *     0 is unpayable;
 *   - a group whose sum is below pol->dust waits: counted in dust_n
 *     (payouts) and dust_sum;
 *   - the payable groups go into groups[], oldest payout first (then by
 *     address); the first pol->max_outputs of them are the batch, and
 *     more says whether any was left out.
 *
 * v is permuted in place (nothing in it is changed or lost: what its ids
 * point to stays the caller's); groups[] is the caller's, with room for n
 * groups (NULL when n is 0), and indexes the permuted v.  *out is filled.
 */
void hjd_btc_plan_owed(hj_owed_payout *v, size_t n, const hjd_btc_policy *pol,
                       hjd_btc_group *groups, hjd_btc_plan *out);

/* ---- EVM: the next transaction ---- */

/*
 * What the next EVM transaction pays: everything owed to one recipient,
 * the one of the oldest owed payout that is an address and is not skipped,
 * while the sum stays within HJ_AMOUNT_MAX (the rest waits for a later
 * transaction).  Fed the owed payouts oldest first, one at a time, as
 * hj_store_each_unbatched gives them.  Start from {skip, nskip}, the rest
 * zero.
 */
typedef struct hjd_evm_pick {
	const uint8_t (*skip)[HJ_EVM_ADDR_LEN]; /* borrowed: recipients not
	                                           paid this pass */
	size_t nskip;
	/* NULL, or 1 for a recipient whose refunds wait (hjd_evm_held). */
	int (*held)(const void *arg, const uint8_t to[HJ_EVM_ADDR_LEN]);
	const void *held_arg;
	int have_to; /* to is set */
	uint8_t to[HJ_EVM_ADDR_LEN];
	hj_amount value; /* the sum of the payouts taken */
} hjd_evm_pick;

/* 1 when o goes into the transaction (k's recipient and value updated),
 * 0 when it does not: unattributed or not a 20-byte address, a skipped
 * or held recipient, another recipient than the one taken first, or an
 * amount that would carry the sum beyond HJ_AMOUNT_MAX. */
int hjd_evm_pick_take(hjd_evm_pick *k, const hj_owed_payout *o);

/* ---- EVM: small refunds ([payout] min_refund) ---- */

/* The gas of a plain transfer: what a payout transaction costs. */
#define HJD_EVM_GAS_TRANSFER 21000u

/*
 * The least a recipient owed only refunds is paid, wei.  is_auto: a
 * transfer's own cost at the fees a new version would pay now,
 * HJD_EVM_GAS_TRANSFER x (base_fee + tip) (saturating at HJ_AMOUNT_MAX);
 * else fixed.
 */
hj_amount hjd_evm_min_refund(int is_auto, hj_amount fixed, hj_amount base_fee,
                             hj_amount tip);

/* 1 when payout id (a docs/STATE.md payout id) is a refund. */
int hjd_payout_is_refund(const char *id);

/*
 * Whether a recipient's payouts wait: 1 when all it is owed is refunds
 * (other is 0) summing to less than min.  A return, an insurance or a
 * side bet owed is always paid, the refunds with it.
 */
int hjd_evm_held(hj_amount refunds, int other, hj_amount min);

/* ---- EVM: sweeps to cold storage ([payout] sweep_to) ---- */

/*
 * What a sweep moves, wei, or 0 for none.  It keeps need (what is owed,
 * in flight and the open rounds' worst case) + margin + the gas of a
 * transfer at max_fee per gas for each of the recipients owed now and for
 * the sweep itself; the rest goes, but only when it is at least ten times
 * the sweep's own gas (a sweep never costs more than a tenth of what it
 * moves).  Saturating: a reserve beyond HJ_AMOUNT_MAX sweeps nothing.
 */
hj_amount hjd_evm_sweep(hj_amount balance, hj_amount need, hj_amount margin,
                        hj_amount max_fee, uint64_t recipients);

/* ---- EVM fees ---- */

/* How many of the fee history's rewards count: the first ones. */
#define HJD_EVM_TIPS_MAX 16

/* An EIP-1559 version's fees, wei per gas. */
typedef struct hjd_evm_fees {
	hj_amount max_fee; /* max_fee_per_gas, the tip included */
	hj_amount tip;     /* max_priority_fee_per_gas */
} hjd_evm_fees;

/*
 * The fees a new version asks, from eth_feeHistory: tips[0 .. n) are the
 * blocks' rewards at the percentile asked (only the first
 * HJD_EVM_TIPS_MAX count; none is fine), base_fee the next block's base
 * fee.  The tip is their median (the upper one of an even count; 0 when
 * there is none), at least min_tip, at most cap; the fee cap is twice the
 * base fee plus the tip (HJ_AMOUNT_MAX when that overflows), at most cap.
 * tips is borrowed and not changed.
 */
hjd_evm_fees hjd_evm_fees_want(hj_amount base_fee, const hj_amount *tips,
                               size_t n, hj_amount min_tip, hj_amount cap);

/*
 * A version the node never accepted follows the node's fees, never lower
 * than its own: *out gets the higher of have and want, each.  Returns 1
 * when either rises (sign a new version with *out), 0 when both already
 * are at least what is wanted (send it as it is; *out is have).
 */
int hjd_evm_fees_refresh(hjd_evm_fees have, hjd_evm_fees want,
                         hjd_evm_fees *out);

/*
 * A stuck version's replacement: each fee raised by 1/8 and 1 (nodes
 * want about 10 %; saturating at HJ_AMOUNT_MAX), the fee cap at most cap,
 * the tip at most the fee cap; then the fee cap is raised to want's if
 * that is higher, and the tip to want's if that is higher and within the
 * fee cap (want is hjd_evm_fees_want's, within cap).  Returns 1 with
 * *out when both fees rise (a node takes nothing less as a replacement),
 * 0 when they cannot within cap (the version is sent again as it is).
 * *out gets the fees computed either way.
 */
int hjd_evm_fees_bump(hjd_evm_fees have, hjd_evm_fees want, hj_amount cap,
                      hjd_evm_fees *out);

#endif
