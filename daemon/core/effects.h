/*
 * What one engine event leaves in the dealer's store: the row of the
 * transaction it concerns, and the payouts it creates; and its line in the
 * daemon's journal.  A pure function of
 * the event and its block's height, so that the ids and recipients of
 * every debt (docs/STATE.md) are decided here alone and tested with exact
 * values; the follower writes what it says (store.h) in the block's
 * transaction.
 *
 *   ACTION, DEPOSIT, IGNORED   the transaction's row
 *   REJECT                     its row, and a refund when it carried value
 *   SETTLE                     a return per hand that gets one, the
 *                              insurance's return when it has one
 *   SIDE                       a return per side bet that won
 *   COMMIT                     the transaction's row (accepted), and the
 *                              Commit itself
 *   DRAW, PEEK, SKIP, TIMEOUT  nothing
 */
#ifndef HJ_EFFECTS_H
#define HJ_EFFECTS_H

#include <stddef.h>
#include <stdint.h>

#include "round.h"
#include "store.h"

/* A settlement's returns, one per hand, and the insurance's. */
#define HJ_EFFECTS_PAYOUTS_MAX (HJ_MAX_HANDS + 1)
/* "return:", "insurance:", "sidebet:" or "refund:", 64 hex digits, and
 * ":" and a hand or ":perfectpairs". */
#define HJ_PAYOUT_ID_MAX 96

/* A processed transaction to the dealer, as hj_store_add_tx records it. */
typedef struct hj_tx_row {
	const hj_action *tx;
	const char *outcome; /* "accepted", "rejected", "deposit", "ignored" */
	hj_reason reason;    /* the event's: why, for a REJECT */
	const hj_id *round;  /* the round it belongs to, NULL when none */
} hj_tx_row;

typedef struct hj_effects {
	int has_tx; /* tx is set */
	hj_tx_row tx;
	const hj_commit *commit; /* COMMIT: to record, else NULL */
	/* A rejection's transaction as the table judged it, when its action
	 * differs from the payload's (action 08 under cards = hash is no
	 * action): tx.tx points here. */
	hj_action judged;
	size_t npayouts;
	hj_payout payouts[HJ_EFFECTS_PAYOUTS_MAX]; /* ids point into id[] */
	char id[HJ_EFFECTS_PAYOUTS_MAX][HJ_PAYOUT_ID_MAX];
} hj_effects;

/*
 * Fills *out with the effects of ev, dealt in block height.  Pointers in
 * *out borrow from ev (valid as long as the event is, i.e. during the
 * engine's callback) and from out itself (the ids).
 *
 * Payout ids are "return:<round>:<hand>", "insurance:<round>",
 * "sidebet:<round>:perfectpairs", "sidebet:<round>:poker" and
 * "refund:<txid>" (ids in lower-case hex, without "0x"), so the same debt
 * can never be recorded twice.  A refund goes to the sender (EVM `from`, a
 * Bitcoin Bet's key P), else to the key of the round the action named,
 * else to nobody known: it is then recorded unattributed
 * (docs/PROTOCOL.md section 9.1).  A return, insurance or side bet goes to
 * the round's player.
 */
void hj_effects_of(const hj_event *ev, uint64_t height, hj_effects *out);

/*
 * The journal's line for ev, dealt in block height (hashjackd's stderr):
 * "block H: tx T: ..." or "block H: round R: ...", ids with 0x when fam_0x
 * (EVM), into buf (cut to n, NUL-terminated).  A rejection says what was
 * rejected (the action, or that the payload could not be read as one), its
 * reason, and what becomes of its value as hj_effects_of records it: the
 * refund owed, unattributed when no recipient is known, or nothing to
 * refund.  Returns 1 for a line worth a notice (a rejection, a deposit), 0
 * for one of information, -1 for an event without a line (DRAW, PEEK,
 * SKIP: the card log has them).
 */
int hj_effects_line(const hj_event *ev, uint64_t height, int fam_0x, char *buf,
                    size_t n);

#endif
