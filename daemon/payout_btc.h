/*
 * Paying what the dealer owes on the Bitcoin family, through a wallet of
 * the node (Bitcoin Core multiwallet, <rpc_url>/wallet/<name>), each payout
 * exactly once whatever crashes on the way.  docs/PAYOUTS.md gives the
 * states, the argument and what the operator sees.
 *
 * In short: owed payouts are grouped by recipient (tr(P) of the player's
 * key), amounts below the dust limit wait until they add up to it, and one
 * sendmany per pass pays the rest.  Before the call the batch (its outputs
 * and the payouts it settles) is committed; after it the txid.  A batch
 * committed without a txid is looked for in the wallet (its comment
 * "hashjack:<tag>:<batch>") before it is ever sent again.  A sent batch
 * becomes confirmed at the daemon's confirmations, or owed again once a
 * conflicting transaction is final.
 *
 * The payer runs on the follower's loop and shares its store: every write
 * is its own transaction, made between two of the follower's (each of
 * which lives inside one callback), so they never overlap.  The follower
 * drives it through payer.h.
 */
#ifndef HJD_PAYOUT_BTC_H
#define HJD_PAYOUT_BTC_H

#include <stddef.h>
#include <stdint.h>

#include "amount.h"
#include "payer.h"

/* What only this family's payer takes ([payout] of the configuration). */
typedef struct hjd_btc_payout {
	const char *wallet;   /* the wallet's name, copied */
	hj_amount dust_limit; /* base units, at least 1 */
	unsigned max_outputs; /* per transaction, at least 1 */
	/* [payout] wallet_passphrase (wallet_pass.h), NULL: none.  Read by
	 * the constructor; the wallet is unlocked only around each call that
	 * signs (docs/PAYOUTS.md, "An encrypted wallet"). */
	const char *wallet_passphrase;
	/* [payout] sweep_to (docs/PAYOUTS.md, "Sweeps to cold storage"):
	 * sweep_len 0, none; else the cold address's witness program
	 * sweep_to[0..sweep_len), 20 bytes (P2WPKH) or 32 (P2TR), the margin
	 * kept beyond the reserve (it pays the sweep's fee) and the blocks
	 * between two sweeps. */
	uint8_t sweep_to[32];
	size_t sweep_len;
	hj_amount sweep_margin;
	uint64_t sweep_every;
} hjd_btc_payout;

/* A payer (payer.h) for the Bitcoin family: o->dealer is a Bitcoin-family
 * one (its prefix is tr(P)'s), o->node's URL becomes the wallet's.
 * Returns 0 and *out, or a negative errno with err (a bad URL or wallet
 * name, no memory, the store's tag unreadable, a passphrase file that
 * cannot be read). */
int hjd_btc_payer_new(const hjd_payer_opts *o, const hjd_btc_payout *po,
                      hjd_payer **out, char *err, size_t errlen);

#endif
