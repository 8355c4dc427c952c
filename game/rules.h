/*
 * Rules as data (docs/PROTOCOL.md section 7.1).  A rule set is a preset plus
 * the keys the dealer overrides; every key is a field below, read by the one
 * engine in table.c.  A new table is a new row of presets, not new code.
 */
#ifndef HJ_RULES_H
#define HJ_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "amount.h"

#define HJ_MAX_HANDS 4

/* When the dealer's second card comes early (key "peek"). */
enum hj_peek_rule {
	HJ_PEEK_ACE = 0, /* Ace up: Peek action; 10 up: found in dealer play */
	HJ_PEEK_ACE_TEN, /* Ace up: Peek; 10 up: a peek card at X+4 */
	HJ_PEEK_NONE,    /* no peek; a late dealer blackjack takes all */
};

/* First-two-card hands that may double (key "double_on"). */
enum hj_double_rule {
	HJ_DOUBLE_9_11 = 0, /* hard 9, 10, 11 */
	HJ_DOUBLE_10_11,    /* hard 10, 11 */
	HJ_DOUBLE_ANY,      /* any two cards, soft included */
};

/* Key "surrender". */
enum hj_surrender_rule {
	HJ_SURRENDER_NONE = 0,
	HJ_SURRENDER_LATE,
	HJ_SURRENDER_EARLY,
};

/* Where a block's card comes from (key "cards", docs/PROTOCOL.md
 * section 15). */
enum hj_cards_rule {
	HJ_CARDS_HASH = 0,  /* the block hash (docs/PROTOCOL.md section 2) */
	HJ_CARDS_COMMITTED, /* HMAC of the hash under the dealer's seed */
};

#define HJ_PP_PAYS 3 /* perfect pair, coloured pair, mixed pair */
#define HJ_T3_PAYS                                                             \
	5 /* suited trips, straight flush, trips, straight, flush              \
	   */
/* Largest pay of a side bet's row, "to 1". */
#define HJ_SIDE_PAY_MAX 1000

typedef struct hj_rules {
	const char *preset; /* the preset the keys started from */
	/* A natural returns stake + floor(stake * bj_num / bj_den). */
	uint32_t bj_num, bj_den;
	/* Insurance wins return ins + ins * ins_pays; ins = floor(bet / 2).
	 * Always 2 in protocol v1.1; not a key. */
	uint32_t ins_pays;
	uint8_t h17;                /* dealer_soft17: 1 hit, 0 stand */
	uint8_t peek;               /* enum hj_peek_rule */
	uint8_t double_on;          /* enum hj_double_rule */
	uint8_t double_after_split; /* 0 / 1 */
	uint8_t max_hands;          /* 1 (no split) .. HJ_MAX_HANDS */
	uint8_t split_by_value;     /* 10-J is a pair; else ranks must match */
	uint8_t split_aces;
	uint8_t hit_split_aces; /* 0: split aces take one card and stand */
	uint8_t surrender;      /* enum hj_surrender_rule */
	uint8_t split21_bj;     /* split_21_is_blackjack */
	/* Side bets: offered when *_on; pays "to 1" per row
	 * (docs/PROTOCOL.md section 7.2). */
	uint8_t pp_on, t3_on;
	uint32_t pp[HJ_PP_PAYS];
	uint32_t t3[HJ_T3_PAYS];
	uint8_t cards; /* enum hj_cards_rule */
	/* Table limits and the timeout are set per dealer (config, replay). */
	hj_amount min_bet, max_bet;
	uint32_t timeout_blocks;
	/* Largest sum of hj_rules_worst_return() over the open rounds, a new
	 * Bet's included; 0: no limit. */
	hj_amount max_exposure;
} hj_rules;

/*
 * Fills every key of *out from the named preset (limits, timeout and
 * max_exposure left 0).  Returns 0, or -ENOENT for an unknown name.
 */
int hj_rules_preset(const char *name, hj_rules *out);

/* Names of the presets, NULL-terminated, for --help and error messages. */
extern const char *const hj_preset_names[];

/*
 * The rule keys of docs/PROTOCOL.md section 7.1, in docs/CONFIG.md's order,
 * NULL-terminated:
 * blackjack_pays, dealer_soft17, peek, double_on, double_after_split,
 * max_hands, split_by_value, split_aces, hit_split_aces, surrender,
 * split_21_is_blackjack, perfect_pairs, twenty_one_plus_three, cards.
 */
extern const char *const hj_rule_keys[];

/*
 * Sets one rule key from its text.  Returns 0; -ENOENT when key is not a
 * rule key; -EINVAL when the value is not one the key allows, with err
 * saying what is allowed (e.g. "expected hit or stand").  The caller names
 * the key and the value in its own message.
 */
int hj_rules_set_key(hj_rules *r, const char *key, const char *value, char *err,
                     size_t errlen);

/*
 * Writes key's value as hj_rules_set_key reads it ("6:5", "hit",
 * "25,12,5", "off").  Returns the length, or -ENOENT for an unknown key.
 * HJ_RULE_VALUE_MAX bytes always suffice.
 */
#define HJ_RULE_VALUE_MAX 64
int hj_rules_get_key(const hj_rules *r, const char *key,
                     char out[HJ_RULE_VALUE_MAX]);

/*
 * The keys whose values differ between a and b, space-separated in the
 * order of hj_rule_keys ("" when every key agrees).  Limits, timeout and
 * the preset's name are not compared.  out holds at least 256 bytes.
 */
void hj_rules_diff_keys(const hj_rules *a, const hj_rules *b, char *out,
                        size_t outlen);

/*
 * Checks a rule set: 1 <= min_bet <= max_bet <= HJ_MAX_BET, timeout_blocks
 * >= 1, every key in its range, and a max_exposure that is 0 or at least
 * the worst case of one max_bet Bet with the largest side stakes (below it
 * no such Bet could ever be accepted, so max_bet would be a lie).  Returns
 * 0 or -EINVAL with the reason in err.
 */
int hj_rules_check(const hj_rules *r, char *err, size_t errlen);

/* ---- The rules as text (rules_text.c) ---- */

/*
 * r as one line, the form the daemon's database keeps in meta.rules
 * (docs/STATE.md) and compares with the configuration at every start, so
 * its bytes never change: "preset=NAME min_bet=A max_bet=B
 * timeout_blocks=T", then " max_exposure=E" when E is not 0, then
 * " KEY=VALUE" for each rule key (hj_rule_keys order) whose value is not
 * the preset's, so that a state made before a key existed (or without it)
 * still matches.  Cut to fit n bytes, like snprintf.
 */
void hj_rules_format(const hj_rules *r, char *buf, size_t n);
/* Room for any rule set's text: the limits and every rule key. */
#define HJ_RULES_STRLEN 640

/*
 * The inverse: only that exact form is read (amounts canonical decimals,
 * keys in that order, single spaces, no rule key at its preset's value),
 * and the result must pass hj_rules_check.  Returns 0 and *out, or
 * -EINVAL with the reason in err (*out untouched).
 */
int hj_rules_parse(const char *s, hj_rules *out, char *err, size_t errlen);

/*
 * The most a round opened by a Bet can ever return, stake included,
 * whatever the cards and the player's later choices (docs/PROTOCOL.md
 * sections 7.1 and 9.4): the main game's worst case for `bet`, plus each
 * side stake times (1 + its table's largest pay).  The main game's worst
 * case is the maximum of
 *
 *   natural      bet + floor(bet * bj_num / bj_den)
 *   insurance    bet + ins * (1 + ins_pays), ins = floor(bet / 2), where
 *                a Peek is ever offered (Ace up under ace or ace_ten)
 *   hands        h hands, h = 1 without a split else max_hands; each hand
 *                returns its best: 2 * 2 * bet when it may double (the
 *                first hand under any double_on, a split hand only with
 *                double_after_split), else the larger of 2 * bet and, for a
 *                split hand under split_21_is_blackjack, bet + floor(bet *
 *                bj_num / bj_den)
 *
 * Insurance pays only when a Peek finds a dealer blackjack, which settles
 * the round at once on its one unsplit, undoubled hand: at best a pushed
 * natural (bet), so the insurance term includes the hands.  A pure
 * function of the rules and the stakes, so a replay reaches the dealer's
 * verdict.  Saturates at HJ_AMOUNT_MAX (only absurd ratios get there).
 */
hj_amount hj_rules_worst_return(const hj_rules *r, hj_amount bet,
                                hj_amount side_pp, hj_amount side_t3);

/* The worst case of one max_bet Bet with side stakes of max_bet on every
 * side bet offered: the least max_exposure can be. */
hj_amount hj_rules_worst_max_bet(const hj_rules *r);

/*
 * Bets are capped so that no return can overflow 128 bits: a round's worst
 * case is a few times its bet.  2^120 base units is far beyond any supply.
 */
#define HJ_MAX_BET ((hj_amount)1 << 120)

/* Timeouts when the rules do not set one (docs/PROTOCOL.md section 6). */
#define HJ_TIMEOUT_EVM     100
#define HJ_TIMEOUT_BITCOIN 12

#endif
