/*
 * For the payers' own files (payout_btc.c, payout_evm.c): the struct behind
 * payer.h's interface, and the machinery they share: the client and
 * the timer they own and close together, a pass that never overlaps
 * another (kicks during one coalesce into one more), the backoff after a
 * failed send, one store write transaction at a time (fatal when it
 * fails), warnings logged once while they last, and the end of a pass
 * (the balance row, the status line when it changed, the next pass).
 *
 * Each payer embeds a struct hjd_payer as its first member, so that the
 * hooks it gives (struct hjd_payer_base_ops) may cast the struct they get
 * back to the payer; everything else of a payer stays in its file.
 * Nothing here is thread-safe: it all runs on the follower's loop.
 */
#ifndef HJD_PAYER_BASE_H
#define HJD_PAYER_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "amount.h"
#include "payer.h"
#include "say.h"

/* What a payer does at the points the base decides. */
struct hjd_payer_base_ops {
	/* A pass, once busy is set and the timer stopped; it ends with
	 * hjd_payer_base_pass_end (or a fatal error). */
	void (*run)(hjd_payer *b);
	/* The timer fired during a pass: the end of a wait the payer started
	 * with hjd_payer_base_timer.  NULL when the payer never waits. */
	void (*wake)(hjd_payer *b);
	/* The payer's status line (hjd_payer_status). */
	void (*status)(const hjd_payer *b, char *buf, size_t n);
	/* Frees the payer, b included: the client and the timer are closed. */
	void (*release)(hjd_payer *b);
};

struct hjd_payer {
	const struct hjd_payer_base_ops *ops;
	uv_loop_t *loop;
	hj_store *store;       /* borrowed: the follower's */
	const hj_table *table; /* borrowed, may be NULL: the open rounds */
	hj_rpc *rpc;           /* the payer's own client, closed by the base */
	uv_timer_t timer;
	void (*on_status)(void *arg);
	void (*on_fatal)(void *arg, const char *msg);
	void *arg;

	uint64_t processed, tip, final; /* as the last kick said */
	int started, busy, dirty, closing, open_handles;
	void (*done)(void *);
	void *done_arg;

	/* After a failed send: no other before retry_at (loop time, ms) or
	 * before a new block is processed, whichever comes first. */
	unsigned backoff_ms;
	uint64_t retry_at;
	uint64_t failed_at_block;
	int halted; /* nothing is sent until an operator looks */

	/* The dealer's balance as last read, and the warning that goes with
	 * it: both recorded at the end of a pass (hj_store_set_balance). */
	int have_balance;
	hj_amount balance;
	char warning[HJ_ERRLEN];
	char last_note[HJ_ERRLEN];      /* the last repeated warning logged */
	uint64_t passes, send_failures; /* for metrics (hjd_payer_health) */
	/* The smallest amount paid to a recipient ([payout] dust_limit,
	 * min_refund) and the owed payouts waiting below it: the family's
	 * payer sets them each pass. */
	int have_small_min;
	hj_amount small_min, small_sum;
	uint64_t small_n;
	char summary[1400]; /* the last status logged */
};

/* Fills b for a new payer from the options both take (the rest zero, as
 * calloc leaves it); ops and what o points to are borrowed.  The client is
 * the payer's to set. */
void hjd_payer_base_init(hjd_payer *b, const struct hjd_payer_base_ops *ops,
                         const hjd_payer_opts *o);

/* The client (node's options, copied; one call at a time: a pass is a
 * sequence) and the timer, last in the payer's constructor: from then on
 * the payer is freed only through hjd_payer_base_close.  Returns 0, or
 * -EINVAL with why (no client made). */
int hjd_payer_base_open(hjd_payer *b, const hj_rpc_opts *node, char *why,
                        size_t n);

/* Logs msg at prio unless it is the note logged last (a condition that
 * lasts is said once, and again when it changes). */
void hjd_payer_base_note(hjd_payer *b, int prio, const char *msg);

/* The daemon must stop: nothing more is done (the follower closes the
 * payer); msg is passed to on_fatal. */
void hjd_payer_base_fatal(hjd_payer *b, const char *msg);

/* A write is begin, one store call, commit(the call's result): 0, or -1
 * after hjd_payer_base_fatal with err (rolled back). */
int hjd_payer_base_begin(hjd_payer *b, char *err, size_t errlen);
int hjd_payer_base_commit(hjd_payer *b, int rc, char *err, size_t errlen);

/* A send failed: the next waits for the backoff (1 s, doubling up to
 * 60 s) or a new block.  A send succeeded: the backoff starts over. */
void hjd_payer_base_backoff(hjd_payer *b);
void hjd_payer_base_backoff_reset(hjd_payer *b);

/* Whether a send may go out now (not halted, the backoff over). */
int hjd_payer_base_may_send(const hjd_payer *b);

/* The open rounds' worst-case returns: what the bankroll must still
 * cover beyond what is owed (0 without a table). */
hj_amount hjd_payer_base_exposure(const hjd_payer *b);

/* 1 when the last kick said every final block is processed: the open
 * rounds (the exposure) are those of the chain as it stands, not of a
 * catch-up's past.  What a sweep waits for: during a catch-up the wallet
 * already holds stakes whose rounds are not dealt yet. */
int hjd_payer_base_caught_up(const hjd_payer *b);

/*
 * Sweeps to cold storage (docs/PAYOUTS-EVM.md, docs/PAYOUTS.md): both
 * families' payers ask hjd_payer_base_sweep_due whether one may be made
 * now (a balance read, every final block processed, payouts not halted,
 * no INSUFFICIENT warning, no sweep in the last `every` blocks): 1 with
 * *tot read, 0 when not, or 0 after fatal.  The family works out how much
 * may go, then hjd_payer_base_sweep_record commits the payout of kind
 * "sweep" (id "sweep:<processed>") to cold, before anything is sent: 0,
 * or -1 after fatal.
 */
int hjd_payer_base_sweep_due(hjd_payer *b, uint64_t every,
                             hj_settle_totals *tot);
int hjd_payer_base_sweep_record(hjd_payer *b, const hj_id *cold, hj_amount x);

/* Starts the timer: in ms, ops->wake during a pass, else the next pass. */
void hjd_payer_base_timer(hjd_payer *b, uint64_t ms);

/* The end of a pass: records the balance and the warning when a balance
 * was read, logs the status line when it changed, calls on_status, and
 * starts the next pass at once when kicked meanwhile, else when the
 * backoff ends. */
void hjd_payer_base_pass_end(hjd_payer *b);

#endif
