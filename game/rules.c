#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * The presets.  bethash is seed 000's table with the protocol's decisions
 * for what it leaves open: one split (two hands), pairs by value, no double
 * after split, double on a first-two-card hard 9, 10 or 11.
 */
static const hj_rules presets[] = {
    {
        .preset = "bethash",
        .bj_num = 6,
        .bj_den = 5,
        .ins_pays = 2,
        .h17 = 1,
        .double_hard_totals =
            HJ_DOUBLE_HARD(9) | HJ_DOUBLE_HARD(10) | HJ_DOUBLE_HARD(11),
        .double_after_split = 0,
        .max_hands = 2,
        .split_aces = 0,
        .split_by_value = 1,
        .late_surrender = 1,
    },
};

const char *const hj_preset_names[] = {"bethash", NULL};

int hj_rules_preset(const char *name, hj_rules *out)
{
	for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
		if (strcmp(presets[i].preset, name) == 0) {
			*out = presets[i];
			return 0;
		}
	}
	return -ENOENT;
}

int hj_rules_check(const hj_rules *r, char *err, size_t errlen)
{
	const char *why = NULL;

	if (r->min_bet < 1)
		why = "min_bet must be at least 1";
	else if (r->max_bet < r->min_bet)
		why = "max_bet is below min_bet";
	else if (r->max_bet > HJ_MAX_BET)
		why = "max_bet is above 2^120";
	else if (r->timeout_blocks < 1)
		why = "timeout_blocks must be at least 1";
	else if (r->bj_den < 1 || r->bj_num > 1000 || r->ins_pays > 1000)
		why = "payout ratios out of range";
	else if (r->max_hands < 1 || r->max_hands > HJ_MAX_HANDS)
		why = "max_hands must be 1 to 4";
	if (!why)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", why);
	return -EINVAL;
}
