/*
 * Rules as data.  A preset is a row of hj_presets[]; the engine reads only
 * the fields below, so a new table is a new row, not new code.
 */
#ifndef HJ_RULES_H
#define HJ_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "amount.h"

#define HJ_MAX_HANDS 4

/* Bit t of double_hard_totals allows doubling on a two-card hard total t. */
#define HJ_DOUBLE_HARD(t) (1u << (t))
#define HJ_DOUBLE_ANY_TWO 0xffffffffu /* any first two cards, soft included */

typedef struct hj_rules {
	const char *preset;
	/* Blackjack returns stake + floor(stake * bj_num / bj_den). */
	uint32_t bj_num, bj_den;
	/* Insurance wins return ins + ins * ins_pays; ins = floor(bet / 2). */
	uint32_t ins_pays;
	uint8_t h17;                 /* dealer hits soft 17 */
	uint32_t double_hard_totals; /* HJ_DOUBLE_HARD bits or ANY_TWO */
	uint8_t double_after_split;
	uint8_t max_hands; /* 1 (no split) .. HJ_MAX_HANDS */
	uint8_t split_aces;
	uint8_t split_by_value; /* 10-J is a pair; else ranks must match */
	uint8_t late_surrender;
	/* Table limits and the timeout are set per dealer (config, replay). */
	hj_amount min_bet, max_bet;
	uint32_t timeout_blocks;
	/* Largest sum of hj_rules_worst_return() over the open rounds, a new
	 * Bet's included; 0: no limit. */
	hj_amount max_exposure;
} hj_rules;

/*
 * Fills *out with the named preset and the given limits.  Returns 0, or
 * -ENOENT for an unknown name.
 */
int hj_rules_preset(const char *name, hj_rules *out);

/* Names of the presets, NULL-terminated, for --help and error messages. */
extern const char *const hj_preset_names[];

/*
 * Checks a rule set: 1 <= min_bet <= max_bet <= HJ_MAX_BET, timeout_blocks
 * >= 1, sane ratios, and a max_exposure that is 0 or at least the worst
 * case of one max_bet Bet (below it no max_bet Bet could ever be accepted,
 * so max_bet would be a lie).  Returns 0 or -EINVAL with the reason in err.
 */
int hj_rules_check(const hj_rules *r, char *err, size_t errlen);

/*
 * The most a round opened by a Bet of `bet` can ever return, stake
 * included, whatever the cards and the player's later choices: the maximum
 * of
 *
 *   blackjack    bet + floor(bet * bj_num / bj_den)
 *   insurance    bet + ins * (1 + ins_pays), ins = floor(bet / 2)
 *   one hand     2 * s1, s1 = 2 * bet when any double is allowed, else bet
 *   split hands  max_hands * 2 * s2 (only when max_hands > 1), s2 = 2 *
 *                bet when any double and double_after_split are allowed,
 *                else bet
 *
 * Insurance pays only when Peek finds a dealer blackjack, which settles the
 * round at once on its one unsplit, undoubled hand: at best a pushed
 * natural (bet), so the insurance term includes the hands and is not added
 * to the others.  Apart from a natural, no hand returns more than twice its
 * stake, and a hand's stake is bet, or 2 * bet once doubled.  Under bethash
 * this is 4 * bet for every bet (a won double, or two won split hands).  A
 * pure function of the rules and the bet, so a replay reaches the dealer's
 * verdict.  Saturates at HJ_AMOUNT_MAX (only absurd ratios get there).
 */
hj_amount hj_rules_worst_return(const hj_rules *r, hj_amount bet);

/*
 * Bets are capped so that no return can overflow 128 bits: a round's worst
 * case is a few times its bet.  2^120 base units is far beyond any supply.
 */
#define HJ_MAX_BET ((hj_amount)1 << 120)

/* Timeouts when the rules do not set one (protocol v1, section 3). */
#define HJ_TIMEOUT_EVM     100
#define HJ_TIMEOUT_BITCOIN 12

#endif
