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

/* a * k, or HJ_AMOUNT_MAX when it does not fit. */
static hj_amount sat_mul(hj_amount a, uint64_t k)
{
	return k && a > HJ_AMOUNT_MAX / k ? HJ_AMOUNT_MAX : a * k;
}

static hj_amount sat_add(hj_amount a, hj_amount b)
{
	return a > HJ_AMOUNT_MAX - b ? HJ_AMOUNT_MAX : a + b;
}

static hj_amount max2(hj_amount a, hj_amount b)
{
	return a > b ? a : b;
}

hj_amount hj_rules_worst_return(const hj_rules *r, hj_amount bet)
{
	uint32_t den = r->bj_den ? r->bj_den : 1;
	/* floor(bet * num / den) as the table pays it: bet = q * den + rem. */
	hj_amount bj = sat_add(sat_mul(bet / den, r->bj_num),
	                       (bet % den) * r->bj_num / den);
	hj_amount ins = sat_mul(bet / 2, (uint64_t)r->ins_pays + 1);
	int dbl = r->double_hard_totals != 0;
	hj_amount s1 = sat_mul(bet, dbl ? 2 : 1);
	hj_amount s2 = sat_mul(bet, dbl && r->double_after_split ? 2 : 1);
	hj_amount w = max2(sat_add(bet, bj), sat_add(bet, ins));

	w = max2(w, sat_mul(s1, 2));
	if (r->max_hands > 1)
		w = max2(w, sat_mul(s2, 2 * (uint64_t)r->max_hands));
	return w;
}

int hj_rules_check(const hj_rules *r, char *err, size_t errlen)
{
	const char *why = NULL;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];

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
	if (!why && r->max_exposure &&
	    r->max_exposure < hj_rules_worst_return(r, r->max_bet)) {
		if (err && errlen)
			snprintf(err, errlen,
			         "max_exposure %s is below %s, the worst-case "
			         "return of one max_bet Bet",
			         hj_amount_format(r->max_exposure, a),
			         hj_amount_format(
			             hj_rules_worst_return(r, r->max_bet), b));
		return -EINVAL;
	}
	if (!why)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", why);
	return -EINVAL;
}
