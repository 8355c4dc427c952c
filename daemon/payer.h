/*
 * A payer: pays what the dealer owes, each payout exactly once whatever
 * crashes on the way, on the follower's loop and in its store.  One per
 * family, behind one interface (as chain/backend.h is for the node):
 *
 *   payout_btc.h  the Bitcoin family, through a wallet of the node
 *                 (docs/PAYOUTS.md)
 *   payout_evm.h  EVM, transactions signed with the dealer's key
 *                 (docs/PAYOUTS-EVM.md)
 *
 * Each family's header has its constructor; the follower sees only this.
 * Nothing here is thread-safe: it all runs on the follower's loop.
 */
#ifndef HJD_PAYER_H
#define HJD_PAYER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "amount.h"
#include "dealer.h"
#include "rpc.h"
#include "store.h"
#include "table.h"

typedef struct hjd_payer hjd_payer;

/* What both constructors take; everything borrowed is borrowed for the
 * payer's life. */
typedef struct hjd_payer_opts {
	uv_loop_t *loop;
	hj_store *store;         /* borrowed: the follower's */
	const hj_rpc_opts *node; /* the node's client options, copied */
	const hj_dealer *dealer; /* copied where needed: the Bitcoin family's
	                            prefix is tr(P)'s, the EVM key's address
	                            must be the dealer's */
	/* The daemon's confirmations: the Bitcoin family's payer takes a
	 * transaction with this many as confirmed.  EVM's goes by each
	 * kick's final height instead. */
	unsigned confirmations;
	/* The open rounds, whose worst-case returns (hj_table_exposure) the
	 * bankroll warning counts; borrowed, may be NULL (none counted). */
	const hj_table *table;
	/* The totals or a warning changed: STATUS= is worth sending. */
	void (*on_status)(void *arg);
	/* A write to the store failed: the daemon must stop (a restart
	 * resumes from the last commit).  The payer does nothing more. */
	void (*on_fatal)(void *arg, const char *msg);
	void *arg;
} hjd_payer_opts;

/*
 * Something may be payable or confirmed: the follower committed blocks up
 * to processed (or started), the node's tip is tip, and its blocks up to
 * final are final (tip - confirmations + 1, or the node's finalized or
 * safe block: the follower's own view).  A pass starts at once, or after
 * the one running; kicks during a pass coalesce.  Nothing is sent before
 * the first kick.
 */
void hjd_payer_kick(hjd_payer *p, uint64_t processed, uint64_t tip,
                    uint64_t final);

/* One line for STATUS= and the log: owed, in flight, the balance, and the
 * current warning if any. */
void hjd_payer_status(const hjd_payer *p, char *buf, size_t n);

/* The payer's condition, for metrics and health (hjd_payer_health). */
typedef struct hjd_pay_health {
	int halted;          /* nothing is sent until an operator looks */
	int insufficient;    /* the balance does not cover what is owed */
	const char *warning; /* the payer's warning, "" when none; borrowed */
	int have_balance;
	hj_amount balance;      /* the dealer's, as last read */
	uint64_t passes;        /* payout passes ended */
	uint64_t send_failures; /* sends that failed (then backed off) */
	/* The smallest amount paid to a recipient ([payout] dust_limit on
	 * the Bitcoin family, min_refund on EVM; have_min 0 until known) and
	 * the owed payouts waiting below it, their number and sum. */
	int have_min;
	hj_amount min, waiting_sum;
	uint64_t waiting_n;
} hjd_pay_health;
void hjd_payer_health(const hjd_payer *p, hjd_pay_health *out);

/* Drops every request in flight (their answers are never acted on), closes
 * the payer's client and timer, frees p (wiping any key), then calls
 * done(arg) from the loop.  NULL is fine (done is then not called); a
 * second call does nothing. */
void hjd_payer_close(hjd_payer *p, void (*done)(void *arg), void *arg);

#endif
