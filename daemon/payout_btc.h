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
 * which lives inside one callback), so they never overlap.
 */
#ifndef HJD_PAYOUT_BTC_H
#define HJD_PAYOUT_BTC_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "amount.h"
#include "rpc.h"
#include "store.h"

typedef struct hjd_payer hjd_payer;

typedef struct hjd_payer_opts {
	uv_loop_t *loop;
	hj_store *store;         /* borrowed: the follower's */
	const hj_rpc_opts *node; /* the node's client options, copied; the
	                            URL becomes the wallet's */
	const char *wallet;      /* the wallet's name, copied */
	const char *dealer;      /* the dealer address: its prefix is the
	                            network's, and so tr(P)'s */
	hj_amount dust_limit;    /* base units, at least 1 */
	unsigned max_outputs;    /* per transaction, at least 1 */
	unsigned confirmations;  /* the daemon's: final at this depth */
	/* The open rounds' worst-case returns (hj_table_exposure), for the
	 * bankroll warning; may be NULL. */
	hj_amount (*exposure)(void *arg);
	/* The totals or a warning changed: STATUS= is worth sending. */
	void (*on_status)(void *arg);
	/* A write to the store failed: the daemon must stop (a restart
	 * resumes from the last commit). */
	void (*on_fatal)(void *arg, const char *msg);
	void *arg;
} hjd_payer_opts;

/* Returns 0 and *out, or a negative errno with err (a bad URL or wallet
 * name, no memory, the store's tag unreadable).  Nothing is sent before
 * hjd_payer_kick. */
int hjd_payer_new(const hjd_payer_opts *o, hjd_payer **out, char *err,
                  size_t errlen);

/*
 * Something may be payable or confirmed: the follower committed blocks up
 * to processed (or started), and the node's tip is tip.  A pass starts at
 * once, or after the one running.  Kicks during a pass coalesce.
 */
void hjd_payer_kick(hjd_payer *p, uint64_t processed, uint64_t tip);

/* One line for STATUS= and the log: owed, below dust, unattributed, in
 * flight, the wallet's balance, and the current warning if any. */
void hjd_payer_status(const hjd_payer *p, char *buf, size_t n);

/* Drops every request in flight (their answers are never acted on), closes
 * the client and the timer, frees p, then calls done(arg) from the loop.
 * NULL is fine (done is then not called). */
void hjd_payer_close(hjd_payer *p, void (*done)(void *arg), void *arg);

#endif
