/*
 * Why a transaction to the dealer address was not accepted.  The names are
 * part of the card log format (docs/LOG.md) and never change meaning.
 */
#ifndef HJ_REASON_H
#define HJ_REASON_H

typedef enum hj_reason {
	HJ_OK = 0,
	/* Not an action at all: the data does not begin with the magic "HJ".
	 * Such a transfer is a plain deposit, never a rejection. */
	HJ_R_NO_MAGIC,

	/* The payload carries the magic but is malformed. */
	HJ_R_TRUNCATED,      /* fewer than 4 bytes: no version or action */
	HJ_R_BAD_VERSION,    /* version byte is not 01 */
	HJ_R_UNKNOWN_ACTION, /* action byte outside 01..07 */
	HJ_R_BAD_LENGTH,     /* length is not one the action allows */
	HJ_R_TOO_LONG,       /* longer than the action's longest form */
	HJ_R_BAD_FIELD,      /* a field holds a value it may not (Peek flag) */

	/* Well formed, but not valid now. */
	HJ_R_SIDE_BETS,     /* Bet with a side stake above zero */
	HJ_R_NO_ROUND,      /* no open round this action could belong to */
	HJ_R_SECOND_ROUND,  /* Bet while the player has an open round */
	HJ_R_BET_LIMITS,    /* main stake outside min_bet..max_bet */
	HJ_R_PREMATURE,     /* before the round's action window opened */
	HJ_R_NOT_ALLOWED,   /* the action is not allowed in this state */
	HJ_R_WRONG_VALUE,   /* value differs from the stake the action needs */
	HJ_R_BAD_SIGNATURE, /* Bitcoin family: signature missing or wrong */
	HJ_R_EXPOSURE,      /* Bet whose worst-case return, added to the
	                       open rounds', exceeds max_exposure */

	/* A Commit (docs/PROTOCOL.md section 15), under cards = committed. */
	HJ_R_MALFORMED,       /* not 48 bytes, or L = 0 */
	HJ_R_NOT_DEALER,      /* not sent by the dealer */
	HJ_R_COMMIT_TOO_LATE, /* H is not after the Commit's block */
	HJ_R_COUNT
} hj_reason;

/* Stable snake_case name of a reason ("premature"); "unknown" if out of range.
 */
const char *hj_reason_name(int reason);

#endif
