/* Stable names used in the card log, messages and documentation. */
#include "action.h"
#include "payload.h"
#include "reason.h"
#include "round.h"

static const char *const act_names[] = {
    "none",  "Bet",       "Hit",  "Stand",  "Double",
    "Split", "Surrender", "Peek", "Commit",
};

const char *hj_act_name(int act)
{
	if (act < 0 || act >= (int)(sizeof act_names / sizeof act_names[0]))
		return "none";
	return act_names[act];
}

static const char *const reason_names[HJ_R_COUNT] = {
    [HJ_OK] = "ok",
    [HJ_R_NO_MAGIC] = "no_magic",
    [HJ_R_TRUNCATED] = "truncated",
    [HJ_R_BAD_VERSION] = "bad_version",
    [HJ_R_UNKNOWN_ACTION] = "unknown_action",
    [HJ_R_BAD_LENGTH] = "bad_length",
    [HJ_R_TOO_LONG] = "too_long",
    [HJ_R_BAD_FIELD] = "bad_field",
    [HJ_R_SIDE_BETS] = "side_bets_not_offered",
    [HJ_R_NO_ROUND] = "no_round",
    [HJ_R_SECOND_ROUND] = "second_round",
    [HJ_R_BET_LIMITS] = "bet_out_of_limits",
    [HJ_R_PREMATURE] = "premature",
    [HJ_R_NOT_ALLOWED] = "not_allowed",
    [HJ_R_WRONG_VALUE] = "wrong_value",
    [HJ_R_BAD_SIGNATURE] = "bad_signature",
    [HJ_R_EXPOSURE] = "over_exposure",
    [HJ_R_MALFORMED] = "malformed",
    [HJ_R_NOT_DEALER] = "not_dealer",
    [HJ_R_COMMIT_TOO_LATE] = "commit_too_late",
};

const char *hj_reason_name(int reason)
{
	if (reason < 0 || reason >= HJ_R_COUNT)
		return "unknown";
	return reason_names[reason];
}

static const char *const status_names[] = {
    [HJ_ST_NONE] = "None",
    [HJ_ST_BLACKJACK] = "Blackjack",
    [HJ_ST_WIN] = "Win",
    [HJ_ST_PUSH] = "Push",
    [HJ_ST_LOSE] = "Lose",
    [HJ_ST_BUST] = "Bust",
    [HJ_ST_SURRENDER] = "Surrender",
    [HJ_ST_DEALER_BJ] = "DealerBlackjack",
};

const char *hj_status_name(int status)
{
	if (status < 0 ||
	    status >= (int)(sizeof status_names / sizeof status_names[0]))
		return "None";
	return status_names[status];
}

static const char *const side_names[HJ_SB_COUNT] = {
    [HJ_SB_NONE] = "none",
    [HJ_SB_LOST] = "sidebetLost",
    [HJ_SB_PERFECT_PAIR] = "perfectPair",
    [HJ_SB_COLOURED_PAIR] = "colouredPair",
    [HJ_SB_MIXED_PAIR] = "mixedPair",
    [HJ_SB_SUITED_TRIPS] = "suitedTrips",
    [HJ_SB_STRAIGHT_FLUSH] = "straightFlush",
    [HJ_SB_THREE_OF_A_KIND] = "threeOfAKind",
    [HJ_SB_STRAIGHT] = "straight",
    [HJ_SB_FLUSH] = "flush",
};

const char *hj_side_name(int result)
{
	if (result < 0 || result >= HJ_SB_COUNT)
		return "none";
	return side_names[result];
}

const char *hj_family_name(hj_family fam)
{
	return fam == HJ_EVM ? "evm" : "bitcoin";
}
