#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"

/*
 * The presets of docs/PROTOCOL.md section 7.1 (docs/CONFIG.md, "[rules]",
 * has their table).  bethash is the Hash Blackjack rule sheet with the
 * protocol's decisions for what it leaves open (docs/PROTOCOL.md section 7);
 * annakai is the AnnaKai blackjack's hole-card table; cryptogames is the
 * Crypto.Games table.
 */
static const hj_rules presets[] = {
    {
        .preset = "bethash",
        .bj_num = 6,
        .bj_den = 5,
        .ins_pays = 2,
        .h17 = 1,
        .peek = HJ_PEEK_ACE,
        .double_on = HJ_DOUBLE_9_11,
        .double_after_split = 0,
        .max_hands = 2,
        .split_by_value = 1,
        .split_aces = 0,
        .hit_split_aces = 0,
        .surrender = HJ_SURRENDER_LATE,
        .split21_bj = 0,
    },
    {
        .preset = "annakai",
        .bj_num = 3,
        .bj_den = 2,
        .ins_pays = 2,
        .h17 = 1,
        .peek = HJ_PEEK_ACE_TEN,
        .double_on = HJ_DOUBLE_ANY,
        .double_after_split = 0,
        .max_hands = 4,
        .split_by_value = 1,
        .split_aces = 1,
        .hit_split_aces = 0,
        .surrender = HJ_SURRENDER_NONE,
        .split21_bj = 0,
    },
    {
        .preset = "cryptogames",
        .bj_num = 6,
        .bj_den = 5,
        .ins_pays = 2,
        .h17 = 1,
        .peek = HJ_PEEK_NONE,
        .double_on = HJ_DOUBLE_ANY,
        .double_after_split = 1,
        .max_hands = 2,
        .split_by_value = 1,
        .split_aces = 1,
        .hit_split_aces = 1,
        .surrender = HJ_SURRENDER_EARLY,
        .split21_bj = 1,
    },
};

const char *const hj_preset_names[] = {"bethash", "annakai", "cryptogames",
                                       NULL};

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

/* ---- keys ---- */

enum kind { K_RATIO, K_WORDS, K_HANDS, K_PAYS };

struct key {
	const char *name;
	enum kind kind;
	size_t off; /* of the uint8_t field, or of the ratio / pays */
	const char *const *words; /* K_WORDS: value i is words[i] */
	size_t on_off;            /* K_PAYS: offset of the *_on flag */
	unsigned npays;           /* K_PAYS */
};

static const char *const yes_no[] = {"no", "yes", NULL};
static const char *const stand_hit[] = {"stand", "hit", NULL};
static const char *const peek_words[] = {"ace", "ace_ten", "none", NULL};
static const char *const double_words[] = {"9-11", "10-11", "any", NULL};
static const char *const surrender_words[] = {"none", "late", "early", NULL};
static const char *const cards_words[] = {"hash", "committed", NULL};

#define OFF(f) offsetof(hj_rules, f)
static const struct key keys[] = {
    {"blackjack_pays", K_RATIO, OFF(bj_num), NULL, 0, 0},
    {"dealer_soft17", K_WORDS, OFF(h17), stand_hit, 0, 0},
    {"peek", K_WORDS, OFF(peek), peek_words, 0, 0},
    {"double_on", K_WORDS, OFF(double_on), double_words, 0, 0},
    {"double_after_split", K_WORDS, OFF(double_after_split), yes_no, 0, 0},
    {"max_hands", K_HANDS, OFF(max_hands), NULL, 0, 0},
    {"split_by_value", K_WORDS, OFF(split_by_value), yes_no, 0, 0},
    {"split_aces", K_WORDS, OFF(split_aces), yes_no, 0, 0},
    {"hit_split_aces", K_WORDS, OFF(hit_split_aces), yes_no, 0, 0},
    {"surrender", K_WORDS, OFF(surrender), surrender_words, 0, 0},
    {"split_21_is_blackjack", K_WORDS, OFF(split21_bj), yes_no, 0, 0},
    {"perfect_pairs", K_PAYS, OFF(pp), NULL, OFF(pp_on), HJ_PP_PAYS},
    {"twenty_one_plus_three", K_PAYS, OFF(t3), NULL, OFF(t3_on), HJ_T3_PAYS},
    {"cards", K_WORDS, OFF(cards), cards_words, 0, 0},
};
#define NKEYS (sizeof keys / sizeof keys[0])

const char *const hj_rule_keys[] = {
    "blackjack_pays",
    "dealer_soft17",
    "peek",
    "double_on",
    "double_after_split",
    "max_hands",
    "split_by_value",
    "split_aces",
    "hit_split_aces",
    "surrender",
    "split_21_is_blackjack",
    "perfect_pairs",
    "twenty_one_plus_three",
    "cards",
    NULL,
};

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* A whole number 0 .. max without sign, spaces or leading zeros, ending
 * at *end (which must be one of stops, or the string's end). */
static int whole(const char **s, unsigned max, const char *stops, uint32_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -1;
	}
	if (*p && !strchr(stops, *p))
		return -1;
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

static int refuse(char *err, size_t errlen, const char *why)
{
	hj_say(err, errlen, "%s", why);
	return -EINVAL;
}

int hj_rules_set_key(hj_rules *r, const char *key, const char *value, char *err,
                     size_t errlen)
{
	const struct key *k = find_key(key);
	uint8_t *base = (uint8_t *)r;

	if (!k)
		return -ENOENT;
	switch (k->kind) {
	case K_RATIO: {
		uint32_t n, d;
		const char *p = value;
		if (whole(&p, 1000, ":", &n) || *p != ':' ||
		    (p++, whole(&p, 1000, "", &d)) || *p || d < 1 || n < 1)
			return refuse(err, errlen,
			              "expected N:D, whole numbers 1 to 1000 "
			              "(6:5, 3:2)");
		r->bj_num = n;
		r->bj_den = d;
		return 0;
	}
	case K_WORDS: {
		char list[96] = "expected ";
		for (unsigned i = 0; k->words[i]; i++) {
			if (strcmp(value, k->words[i]) == 0) {
				base[k->off] = (uint8_t)i;
				return 0;
			}
		}
		for (unsigned i = 0; k->words[i]; i++) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s",
			         i == 0            ? ""
			         : k->words[i + 1] ? ", "
			                           : " or ",
			         k->words[i]);
		}
		return refuse(err, errlen, list);
	}
	case K_HANDS:
		if (value[0] < '1' || value[0] > '0' + HJ_MAX_HANDS || value[1])
			return refuse(err, errlen, "expected 1, 2, 3 or 4");
		r->max_hands = (uint8_t)(value[0] - '0');
		return 0;
	case K_PAYS: {
		uint32_t pays[HJ_T3_PAYS];
		const char *p = value;
		if (strcmp(value, "off") == 0) {
			base[k->on_off] = 0;
			memset(base + k->off, 0, k->npays * sizeof(uint32_t));
			return 0;
		}
		for (unsigned i = 0; i < k->npays; i++) {
			if (whole(&p, HJ_SIDE_PAY_MAX, ",", &pays[i]) ||
			    (i + 1 < k->npays ? *p != ',' : *p != '\0'))
				return refuse(
				    err, errlen,
				    k->npays == HJ_PP_PAYS
				        ? "expected off or P,C,M: three "
				          "whole numbers 0 to 1000 "
				          "(25,12,5)"
				        : "expected off or ST,SF,TK,S,F: "
				          "five whole numbers 0 to 1000 "
				          "(100,40,30,10,5)");
			if (*p == ',')
				p++;
		}
		base[k->on_off] = 1;
		memcpy(base + k->off, pays, k->npays * sizeof(uint32_t));
		return 0;
	}
	}
	return -ENOENT;
}

int hj_rules_get_key(const hj_rules *r, const char *key,
                     char out[HJ_RULE_VALUE_MAX])
{
	const struct key *k = find_key(key);
	const uint8_t *base = (const uint8_t *)r;
	int n = 0;

	if (!k)
		return -ENOENT;
	switch (k->kind) {
	case K_RATIO:
		return snprintf(out, HJ_RULE_VALUE_MAX, "%u:%u", r->bj_num,
		                r->bj_den);
	case K_WORDS: {
		unsigned v = base[k->off], i;
		for (i = 0; k->words[i] && i < v; i++)
			;
		return snprintf(out, HJ_RULE_VALUE_MAX, "%s",
		                k->words[i] ? k->words[i] : "?");
	}
	case K_HANDS:
		return snprintf(out, HJ_RULE_VALUE_MAX, "%u", r->max_hands);
	case K_PAYS: {
		uint32_t pays[HJ_T3_PAYS];
		if (!base[k->on_off])
			return snprintf(out, HJ_RULE_VALUE_MAX, "off");
		memcpy(pays, base + k->off, k->npays * sizeof(uint32_t));
		out[0] = '\0';
		for (unsigned i = 0; i < k->npays; i++)
			n += snprintf(out + n, (size_t)(HJ_RULE_VALUE_MAX - n),
			              "%s%u", i ? "," : "", pays[i]);
		return n;
	}
	}
	return -ENOENT;
}

void hj_rules_diff_keys(const hj_rules *a, const hj_rules *b, char *out,
                        size_t outlen)
{
	size_t used = 0;

	if (outlen)
		out[0] = '\0';
	for (size_t i = 0; i < NKEYS && used < outlen; i++) {
		char va[HJ_RULE_VALUE_MAX], vb[HJ_RULE_VALUE_MAX];
		hj_rules_get_key(a, keys[i].name, va);
		hj_rules_get_key(b, keys[i].name, vb);
		if (strcmp(va, vb) != 0)
			used +=
			    (size_t)snprintf(out + used, outlen - used, "%s%s",
			                     used ? " " : "", keys[i].name);
	}
}

/* ---- worst case ---- */

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

static uint32_t max_pay(const uint32_t *pays, unsigned n)
{
	uint32_t m = 0;
	for (unsigned i = 0; i < n; i++)
		m = pays[i] > m ? pays[i] : m;
	return m;
}

hj_amount hj_rules_worst_return(const hj_rules *r, hj_amount bet,
                                hj_amount side_pp, hj_amount side_t3)
{
	uint32_t den = r->bj_den ? r->bj_den : 1;
	/* floor(bet * num / den) as the table pays it: bet = q * den + rem. */
	hj_amount natural =
	    sat_add(bet, sat_add(sat_mul(bet / den, r->bj_num),
	                         (bet % den) * r->bj_num / den));
	hj_amount w = natural;

	if (r->peek != HJ_PEEK_NONE)
		w = max2(w, sat_add(bet, sat_mul(bet / 2,
		                                 (uint64_t)r->ins_pays + 1)));
	/* One hand: every double_on allows some hard total. */
	w = max2(w, sat_mul(bet, 4));
	if (r->max_hands > 1) {
		hj_amount hand =
		    r->double_after_split ? sat_mul(bet, 4) : sat_mul(bet, 2);
		if (r->split21_bj)
			hand = max2(hand, natural);
		w = max2(w, sat_mul(hand, r->max_hands));
	}
	if (r->pp_on)
		w = sat_add(
		    w,
		    sat_mul(side_pp, (uint64_t)max_pay(r->pp, HJ_PP_PAYS) + 1));
	if (r->t3_on)
		w = sat_add(
		    w,
		    sat_mul(side_t3, (uint64_t)max_pay(r->t3, HJ_T3_PAYS) + 1));
	return w;
}

hj_amount hj_rules_worst_max_bet(const hj_rules *r)
{
	return hj_rules_worst_return(r, r->max_bet, r->max_bet, r->max_bet);
}

int hj_rules_check(const hj_rules *r, char *err, size_t errlen)
{
	const char *why = NULL;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];
	hj_amount worst;

	if (r->min_bet < 1)
		why = "min_bet must be at least 1";
	else if (r->max_bet < r->min_bet)
		why = "max_bet is below min_bet";
	else if (r->max_bet > HJ_MAX_BET)
		why = "max_bet is above 2^120";
	else if (r->timeout_blocks < 1)
		why = "timeout_blocks must be at least 1";
	else if (r->bj_den < 1 || r->bj_num < 1 || r->bj_num > 1000 ||
	         r->bj_den > 1000 || r->ins_pays > 1000)
		why = "payout ratios out of range";
	else if (r->max_hands < 1 || r->max_hands > HJ_MAX_HANDS)
		why = "max_hands must be 1 to 4";
	else if (r->h17 > 1 || r->peek > HJ_PEEK_NONE ||
	         r->double_on > HJ_DOUBLE_ANY || r->double_after_split > 1 ||
	         r->split_by_value > 1 || r->split_aces > 1 ||
	         r->hit_split_aces > 1 || r->surrender > HJ_SURRENDER_EARLY ||
	         r->split21_bj > 1 || r->pp_on > 1 || r->t3_on > 1 ||
	         r->cards > HJ_CARDS_COMMITTED)
		why = "a rule key out of range";
	if (why) {
		hj_say(err, errlen, "%s", why);
		return -EINVAL;
	}
	for (unsigned i = 0; i < HJ_PP_PAYS; i++)
		if (r->pp[i] > HJ_SIDE_PAY_MAX)
			why = "perfect_pairs pays above 1000";
	for (unsigned i = 0; i < HJ_T3_PAYS; i++)
		if (r->t3[i] > HJ_SIDE_PAY_MAX)
			why = "twenty_one_plus_three pays above 1000";
	if (why) {
		hj_say(err, errlen, "%s", why);
		return -EINVAL;
	}
	worst = hj_rules_worst_max_bet(r);
	if (r->max_exposure && r->max_exposure < worst) {
		hj_say(err, errlen,
		       "max_exposure %s is below %s, the worst-case "
		       "return of one max_bet Bet%s",
		       hj_amount_format(r->max_exposure, a),
		       hj_amount_format(worst, b),
		       r->pp_on || r->t3_on ? " with side stakes of max_bet"
		                            : "");
		return -EINVAL;
	}
	return 0;
}
