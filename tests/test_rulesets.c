/*
 * Rule sets (docs/PROTOCOL.md sections 7.1 and 7.2): the presets as data, the
 * rule keys' text, and the engine playing every key, with exact returns,
 * in states where an action is legal and where it is not.  test_engine.c
 * covers the bethash table itself.  Every expected line was worked out by
 * hand from docs/PROTOCOL.md and docs/CONFIG.md.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine_text.h"
#include "say.h"

#define SIDE(p, v, pp, t3) tx_bet_side((p), (v), (pp), (t3))

/* ------------------------------------------------------------------ */
/* Presets and keys                                                   */

/* docs/CONFIG.md's preset table, column by column, in hj_rule_keys order. */
static void check_preset(const char *name, const char *const want[])
{
	hj_rules r;
	char v[HJ_RULE_VALUE_MAX];

	assert_int_equal(hj_rules_preset(name, &r), 0);
	assert_string_equal(r.preset, name);
	for (size_t i = 0; hj_rule_keys[i]; i++) {
		assert_true(hj_rules_get_key(&r, hj_rule_keys[i], v) > 0);
		if (strcmp(v, want[i]) != 0)
			fail_msg("%s %s: %s, expected %s", name,
			         hj_rule_keys[i], v, want[i]);
	}
	assert_int_equal(r.ins_pays, 2);
}

static void test_presets_are_section_9s_table(void **state)
{
	static const char *const bethash[] = {
	    "6:5", "hit", "ace",  "9-11", "no",  "2",   "yes",
	    "no",  "no",  "late", "no",   "off", "off", "hash"};
	static const char *const annakai[] = {
	    "3:2", "hit", "ace_ten", "any", "no",  "4",   "yes",
	    "yes", "no",  "none",    "no",  "off", "off", "hash"};
	static const char *const cryptogames[] = {
	    "6:5", "hit", "none",  "any", "yes", "2",   "yes",
	    "yes", "yes", "early", "yes", "off", "off", "hash"};
	hj_rules r;

	(void)state;
	assert_string_equal(hj_rule_keys[0], "blackjack_pays");
	assert_string_equal(hj_rule_keys[12], "twenty_one_plus_three");
	assert_string_equal(hj_rule_keys[13], "cards");
	assert_null(hj_rule_keys[14]);
	check_preset("bethash", bethash);
	check_preset("annakai", annakai);
	check_preset("cryptogames", cryptogames);
	assert_string_equal(hj_preset_names[0], "bethash");
	assert_string_equal(hj_preset_names[1], "annakai");
	assert_string_equal(hj_preset_names[2], "cryptogames");
	assert_null(hj_preset_names[3]);
	assert_int_equal(hj_rules_preset("vegas", &r), -ENOENT);
	assert_int_equal(hj_rules_preset("Bethash", &r), -ENOENT);
}

static void test_rule_keys_read_and_write_every_value(void **state)
{
	static const struct {
		const char *key, *value;
	} ok[] = {
	    {"blackjack_pays", "3:2"},
	    {"blackjack_pays", "1000:1"},
	    {"blackjack_pays", "1:1000"},
	    {"dealer_soft17", "stand"},
	    {"dealer_soft17", "hit"},
	    {"peek", "ace"},
	    {"peek", "ace_ten"},
	    {"peek", "none"},
	    {"double_on", "9-11"},
	    {"double_on", "10-11"},
	    {"double_on", "any"},
	    {"double_after_split", "yes"},
	    {"max_hands", "1"},
	    {"max_hands", "4"},
	    {"split_by_value", "no"},
	    {"split_aces", "yes"},
	    {"hit_split_aces", "yes"},
	    {"surrender", "none"},
	    {"surrender", "early"},
	    {"split_21_is_blackjack", "yes"},
	    {"perfect_pairs", "25,12,5"},
	    {"perfect_pairs", "0,0,1000"},
	    {"perfect_pairs", "off"},
	    {"twenty_one_plus_three", "off"},
	    {"twenty_one_plus_three", "100,40,30,10,5"},
	};
	hj_rules r;
	char v[HJ_RULE_VALUE_MAX], err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		assert_int_equal(hj_rules_preset("bethash", &r), 0);
		err[0] = '\0';
		if (hj_rules_set_key(&r, ok[i].key, ok[i].value, err,
		                     sizeof err))
			fail_msg("%s = %s: %s", ok[i].key, ok[i].value, err);
		assert_true(hj_rules_get_key(&r, ok[i].key, v) > 0);
		assert_string_equal(v, ok[i].value);
	}
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	assert_int_equal(
	    hj_rules_set_key(&r, "perfect_pairs", "25,12,5", err, sizeof err),
	    0);
	assert_int_equal(r.pp_on, 1);
	assert_int_equal(r.pp[0], 25);
	assert_int_equal(r.pp[1], 12);
	assert_int_equal(r.pp[2], 5);
	assert_int_equal(
	    hj_rules_set_key(&r, "perfect_pairs", "off", err, sizeof err), 0);
	assert_int_equal(r.pp_on, 0);
	assert_int_equal(r.pp[0], 0);
	assert_int_equal(hj_rules_get_key(&r, "min_bet", v), -ENOENT);
	assert_int_equal(
	    hj_rules_set_key(&r, "preset", "bethash", err, sizeof err),
	    -ENOENT);
}

static void test_rule_keys_refuse_what_they_do_not_allow(void **state)
{
	static const struct {
		const char *key, *value, *why;
	} bad[] = {
	    {"blackjack_pays", "6/5",
	     "expected N:D, whole numbers 1 to 1000 "
	     "(6:5, 3:2)"},
	    {"blackjack_pays", "0:5", NULL},
	    {"blackjack_pays", "6:0", NULL},
	    {"blackjack_pays", "1001:1", NULL},
	    {"blackjack_pays", "06:5", NULL},
	    {"blackjack_pays", "6:5 ", NULL},
	    {"blackjack_pays", "6:", NULL},
	    {"blackjack_pays", ":5", NULL},
	    {"blackjack_pays", "", NULL},
	    {"dealer_soft17", "H17", "expected stand or hit"},
	    {"peek", "yes", "expected ace, ace_ten or none"},
	    {"double_on", "9-10", "expected 9-11, 10-11 or any"},
	    {"double_after_split", "true", "expected no or yes"},
	    {"double_after_split", "Yes", NULL},
	    {"max_hands", "0", "expected 1, 2, 3 or 4"},
	    {"max_hands", "5", NULL},
	    {"max_hands", "22", NULL},
	    {"max_hands", "", NULL},
	    {"surrender", "late ", "expected none, late or early"},
	    {"perfect_pairs", "25,12",
	     "expected off or P,C,M: three whole numbers 0 to 1000 "
	     "(25,12,5)"},
	    {"perfect_pairs", "25,12,5,1", NULL},
	    {"perfect_pairs", "25,12,1001", NULL},
	    {"perfect_pairs", "25, 12, 5", NULL},
	    {"perfect_pairs", "-1,12,5", NULL},
	    {"perfect_pairs", "on", NULL},
	    {"twenty_one_plus_three", "100,40,30,10",
	     "expected off or ST,SF,TK,S,F: five whole numbers 0 to 1000 "
	     "(100,40,30,10,5)"},
	    {"twenty_one_plus_three", "100,40,30,10,5,", NULL},
	};
	hj_rules r, before;
	char err[HJ_ERRLEN];

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	before = r;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (hj_rules_set_key(&r, bad[i].key, bad[i].value, err,
		                     sizeof err) != -EINVAL)
			fail_msg("%s = \"%s\" accepted", bad[i].key,
			         bad[i].value);
		if (bad[i].why)
			assert_string_equal(err, bad[i].why);
		assert_true(err[0] != '\0');
		/* A refused value changes nothing. */
		assert_memory_equal(&r, &before, sizeof r);
	}
	assert_int_equal(hj_rules_set_key(&r, "vegas", "yes", err, sizeof err),
	                 -ENOENT);
}

static void test_rules_diff_names_the_keys_that_differ(void **state)
{
	hj_rules a, b;
	char out[256];

	(void)state;
	assert_int_equal(hj_rules_preset("bethash", &a), 0);
	b = a;
	b.min_bet = 7; /* limits are not rule keys */
	hj_rules_diff_keys(&a, &b, out, sizeof out);
	assert_string_equal(out, "");
	assert_int_equal(hj_rules_preset("cryptogames", &b), 0);
	hj_rules_diff_keys(&a, &b, out, sizeof out);
	assert_string_equal(out, "peek double_on double_after_split "
	                         "split_aces hit_split_aces surrender "
	                         "split_21_is_blackjack");
	assert_int_equal(hj_rules_preset("annakai", &b), 0);
	assert_int_equal(hj_rules_set_key(&b, "twenty_one_plus_three",
	                                  "100,40,30,10,5", NULL, 0),
	                 0);
	hj_rules_diff_keys(&a, &b, out, sizeof out);
	assert_string_equal(out, "blackjack_pays peek double_on max_hands "
	                         "split_aces surrender twenty_one_plus_three");
}

/* ------------------------------------------------------------------ */
/* Payouts, dealer, doubles                                           */

static void test_blackjack_3_to_2_rounds_down(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 5), tx_bet(3, 1), tx_bet(4, 3));
	B0(&f, ACE);
	B0(&f, R(5));
	B0(&f, KING);
	HAS(&f, "1 settle Blackjack 25, stake 10, ret 25");
	HAS(&f, "2 settle Blackjack 12, stake 5, ret 12");
	HAS(&f, "3 settle Blackjack 2, stake 1, ret 2");
	HAS(&f, "4 settle Blackjack 7, stake 3, ret 7");
	fx_free(&f);
}

static void test_dealer_soft17_stand(void **state)
{
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	assert_int_equal(
	    hj_rules_set_key(&r, "dealer_soft17", "stand", NULL, 0), 0);
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(6), R(8)); /* 18 */
	B(&f, IDLE, STAND(1));
	B0(&f, ACE); /* soft 17: stands */
	EXPECT(&f, "1 draw D AC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_double_on_any_two_cards(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(6), R(7)); /* soft 18 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	B0(&f, R(2)); /* soft 20 */
	EXPECT(&f, "1 draw 0 2C");
	B0(&f, TEN);
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Win 40, stake 20, ret 40");
	fx_free(&f);

	/* Hard 17 doubles too; three cards never do. */
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(6), R(7));
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, R(2), R(6), R(2));
	B(&f, IDLE, HIT(1));
	B0(&f, R(2));
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 reject Double not_allowed 10");
	fx_free(&f);
}

static void test_double_on_10_11(void **state)
{
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	assert_int_equal(hj_rules_set_key(&r, "double_on", "10-11", NULL, 0),
	                 0);
	start(&f, &r);
	deal(&f, 1, 10, R(5), R(6), R(4)); /* hard 9 */
	B(&f, IDLE, DOUBLE(1, 10), HIT(1));
	EXPECT(&f, "1 reject Double not_allowed 10 | 1 Hit@0 0");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, R(5), R(6), R(5)); /* hard 10 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, R(9), R(6), R(2)); /* hard 11 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(6), ACE); /* soft 12 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 reject Double not_allowed 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Splits: double after split, resplits, aces                         */

static void test_double_after_split(void **state)
{
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	r.double_after_split = 1;
	start(&f, &r);
	deal(&f, 1, 10, R(8), R(6), R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(9)); /* hand 0: 17 */
	B0(&f, R(3)); /* hand 1: 11 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@1 10");
	B(&f, KING, STAND(1)); /* hand 1: 21 */
	EXPECT(&f, "1 draw 1 KC | 1 reject Stand premature 0");
	HANDS(&f, 1, "h0 8C 9C $10, h1 8C 3C KC $20, D 6C");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, TEN);
	B0(&f, R(2)); /* 18 */
	EXPECT(&f, "1 draw D 2C | 1 settle Lose 0, Win 40, stake 30, ret 40");
	fx_free(&f);

	/* Original bets only under peek = ace: split and doubled, dealer
	 * blackjack behind a 10, the loss is still the Bet's 10. */
	start(&f, &r);
	deal(&f, 1, 10, R(8), TEN, R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(9));
	B0(&f, R(3));
	B(&f, IDLE, DOUBLE(1, 10));
	B0(&f, KING);
	B(&f, IDLE, STAND(1));
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle DealerBlackjack 0,"
	           " DealerBlackjack 20, stake 30, ret 20");
	fx_free(&f);

	/* Without it a split hand's double is refused. */
	r.double_after_split = 0;
	start(&f, &r);
	deal(&f, 1, 10, R(8), R(6), R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(9));
	B0(&f, R(3));
	B(&f, IDLE, DOUBLE(1, 10), HIT(1));
	EXPECT(&f, "1 reject Double not_allowed 10 | 1 Hit@1 0");
	fx_free(&f);
}

/* annakai: resplits up to four hands; hands above the split one shift
 * up; the new hands take their second cards in index order. */
static void test_resplit_to_four_hands(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), R(6), CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, CARD(8, HJ_DIAMONDS));
	B0(&f, CARD(8, HJ_CLUBS));
	HANDS(&f, 1, "h0 8H 8D $10, h1 8S 8C $10, D 6C");
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@1 10");
	B0(&f, CARD(8, HJ_HEARTS));
	EXPECT(&f, "1 draw 1 8H");
	B0(&f, R(3));
	EXPECT(&f, "1 draw 2 3C");
	HANDS(&f, 1, "h0 8H 8D $10, h1 8S 8H $10, h2 8C 3C $10, D 6C");
	/* annakai doubles any two cards, but not after a split. */
	B(&f, IDLE, DOUBLE(1, 10), STAND(1));
	EXPECT(&f, "1 reject Double not_allowed 10 | 1 Stand@2 0");
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@1 10");
	HANDS(&f, 1, "h0 8H 8D $10, h1 8S $10, h2 8H $10, h3 8C 3C $10, D 6C");
	B0(&f, R(2));
	EXPECT(&f, "1 draw 1 2C");
	B0(&f, R(4));
	EXPECT(&f, "1 draw 2 4C");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@2 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@1 0");
	/* Four hands: hand 0's pair of 8s may not split again. */
	B(&f, IDLE, SPLIT(1, 10), STAND(1));
	EXPECT(&f, "1 reject Split not_allowed 10 | 1 Stand@0 0");
	B0(&f, TEN); /* 16 */
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, Win 20, Win 20, Win 20,"
	           " stake 40, ret 80");
	fx_free(&f);
}

static void test_split_of_lower_hand_shifts_hands_up(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), R(6), CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, CARD(8, HJ_DIAMONDS)); /* hand 0: 8 8 */
	B0(&f, TEN);                  /* hand 1: 18 */
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@1 0");
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	HANDS(&f, 1, "h0 8H $10, h1 8D $10, h2 8S 10C $10, D 6C");
	B0(&f, R(3));
	EXPECT(&f, "1 draw 0 3C");
	B0(&f, R(2));
	EXPECT(&f, "1 draw 1 2C");
	HANDS(&f, 1, "h0 8H 3C $10, h1 8D 2C $10, h2 8S 10C $10, D 6C");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@1 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, KING); /* 16 */
	B0(&f, R(2)); /* 18 */
	EXPECT(&f, "1 draw D 2C"
	           " | 1 settle Lose 0, Lose 0, Push 10, stake 30, ret 10");
	fx_free(&f);
}

/* annakai: split aces take one card each and stand; no hit, no resplit. */
static void test_split_aces_take_one_card(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, CARD(HJ_ACE, HJ_HEARTS), R(6), CARD(HJ_ACE, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	B0(&f, KING); /* hand 0: 21, not a blackjack */
	EXPECT(&f, "1 draw 0 KC");
	/* hand 1: two aces, soft 12; it stands, and the dealer plays. */
	B(&f, CARD(HJ_ACE, HJ_DIAMONDS), SPLIT(1, 10), HIT(1));
	EXPECT(&f, "1 draw 1 AD | 1 reject Split not_allowed 10"
	           " | 1 reject Hit not_allowed 0");
	B0(&f, TEN);  /* 16 */
	B0(&f, R(2)); /* 18 */
	EXPECT(&f, "1 draw D 2C | 1 settle Win 20, Lose 0, stake 20, ret 20");
	fx_free(&f);

	/* bethash does not split aces. */
	start(&f, NULL);
	deal(&f, 1, 10, ACE, R(6), ACE);
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 reject Split not_allowed 10");
	fx_free(&f);
}

/* cryptogames: split aces play on, and a split hand's two-card 21 is paid
 * as a blackjack; it beats a three-card 21. */
static void test_hit_split_aces_and_split_21_is_blackjack(void **state)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(6), ACE);
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, KING); /* hand 0: A K */
	B0(&f, R(5)); /* hand 1: soft 16 */
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@1 0");
	B0(&f, R(4)); /* soft 20 */
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@1 0");
	B0(&f, TEN);  /* 16 */
	B0(&f, R(5)); /* 21 in three cards */
	EXPECT(&f, "1 draw D 5C"
	           " | 1 settle Blackjack 22, Lose 0, stake 20, ret 22");
	fx_free(&f);

	/* A split ace pair may not split beyond max_hands; it doubles under
	 * double_after_split. */
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(6), ACE);
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(3));
	B0(&f, ACE); /* hand 1: A A */
	B(&f, IDLE, SPLIT(1, 10), DOUBLE(1, 10));
	EXPECT(&f, "1 reject Split not_allowed 10 | 1 Double@1 10");
	fx_free(&f);

	/* Without split_21_is_blackjack the same hand is a 21 that pushes
	 * the dealer's three-card 21. */
	r.split21_bj = 0;
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(6), ACE);
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, KING);
	B0(&f, R(9)); /* hand 1: soft 20 */
	B(&f, IDLE, STAND(1));
	B0(&f, TEN);
	B0(&f, R(5));
	EXPECT(&f, "1 draw D 5C | 1 settle Push 10, Lose 0, stake 20, ret 10");
	fx_free(&f);
}

static void test_split_by_rank(void **state)
{
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	assert_int_equal(hj_rules_set_key(&r, "split_by_value", "no", NULL, 0),
	                 0);
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(6), JACK);
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 reject Split not_allowed 10");
	fx_free(&f);

	start(&f, &r);
	deal(&f, 1, 10, KING, R(6), CARD(HJ_KING, HJ_HEARTS));
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	fx_free(&f);

	/* max_hands = 1: no split at all. */
	r.max_hands = 1;
	start(&f, &r);
	deal(&f, 1, 10, KING, R(6), KING);
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 reject Split not_allowed 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* peek = ace_ten                                                     */

static void test_ace_ten_peek_card_at_x4(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	/* No blackjack: set aside, the window opens at X+5, and the
	 * dealer's second card skips the Ace. */
	start(&f, &r);
	deal(&f, 1, 10, TEN, KING, R(7)); /* 17 */
	B(&f, R(5), STAND(1));
	EXPECT(&f, "1 peek 5C clear | 1 reject Stand premature 0");
	HANDS(&f, 1, "h0 10C 7C $10, D KC");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, ACE);
	EXPECT(&f, "1 skip AC");
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);

	/* Blackjack: the round settles at X+4 before any decision; the Hit
	 * in that block finds no round. */
	start(&f, &r);
	deal(&f, 1, 10, TEN, QUEEN, R(9));
	B(&f, ACE, HIT(1));
	EXPECT(&f, "1 peek AC bj | 1 settle Lose 0, stake 10, ret 0"
	           " | 1 reject Hit no_round 0");
	fx_free(&f);

	/* A natural against a 10: the peek card decides at X+4. */
	start(&f, &r);
	deal(&f, 1, 10, ACE, KING, QUEEN);
	B0(&f, R(4));
	EXPECT(&f, "1 peek 4C clear | 1 settle Blackjack 25, stake 10, ret 25");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, ACE, KING, QUEEN);
	B0(&f, ACE);
	EXPECT(&f, "1 peek AC bj | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);

	/* Against 2..9 a natural settles at X+3, and no peek card comes. */
	start(&f, &r);
	deal(&f, 1, 10, ACE, R(9), KING);
	EXPECT(&f, "1 draw 0 KC | 1 settle Blackjack 25, stake 10, ret 25");
	fx_free(&f);

	/* A void block shifts the peek card and the window. */
	start(&f, &r);
	deal(&f, 1, 10, TEN, KING, R(7));
	B(&f, VOID, STAND(1));
	EXPECT(&f, "1 reject Stand premature 0");
	B(&f, R(5), STAND(1));
	EXPECT(&f, "1 peek 5C clear | 1 reject Stand premature 0");
	fx_free(&f);
}

/*
 * A natural against a 10 has no move left under every peek rule: from the
 * block that deals it until the card that settles it (the dealer's second
 * under ace and none, the peek card under ace_ten), void blocks included,
 * an action is not_allowed, never premature (docs/PROTOCOL.md sections
 * 5.2 and 9.2).  Another hand against a 10 under ace_ten waits for its
 * window: premature.
 */
static void test_natural_against_ten_not_allowed_under_every_peek(void **st)
{
	static const char *const peeks[] = {"ace", "ace_ten", "none"};
	fx f;

	(void)st;
	for (size_t i = 0; i < sizeof peeks / sizeof peeks[0]; i++) {
		hj_rules r = rules_bethash();
		int ace_ten = strcmp(peeks[i], "ace_ten") == 0;

		assert_int_equal(
		    hj_rules_set_key(&r, "peek", peeks[i], NULL, 0), 0);
		start(&f, &r);
		B(&f, IDLE, tx_bet(1, 10));
		B0(&f, ACE);
		B0(&f, KING);
		B(&f, QUEEN, HIT(1), STAND(1), PEEK(1, 0, 0));
		EXPECT(&f, "1 draw 0 QC | 1 reject Hit not_allowed 0"
		           " | 1 reject Stand not_allowed 0"
		           " | 1 reject Peek not_allowed 0");
		B(&f, VOID, DOUBLE(1, 10), SURRENDER(1));
		EXPECT(&f, "1 reject Double not_allowed 10"
		           " | 1 reject Surrender not_allowed 0");
		B(&f, R(9), STAND(1));
		EXPECT(&f, ace_ten ? "1 peek 9C clear | 1 settle Blackjack 22, "
		                     "stake 10, ret 22 | 1 reject Stand "
		                     "no_round 0"
		                   : "1 draw D 9C | 1 settle Blackjack 22, "
		                     "stake 10, ret 22 | 1 reject Stand "
		                     "no_round 0");
		fx_free(&f);
	}

	/* 17 against a 10 under ace_ten: its window opens after the peek
	 * card, so an action before is premature. */
	hj_rules r = rules_bethash();
	assert_int_equal(hj_rules_set_key(&r, "peek", "ace_ten", NULL, 0), 0);
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 10));
	B0(&f, TEN);
	B0(&f, KING);
	B(&f, R(7), STAND(1));
	EXPECT(&f, "1 draw 0 7C | 1 reject Stand premature 0");
	B(&f, VOID, STAND(1));
	EXPECT(&f, "1 reject Stand premature 0");
	fx_free(&f);
}

static void test_ace_ten_ace_up_peeks_as_under_ace(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(9));
	B(&f, IDLE, STAND(1), PEEK(1, 1, 5));
	EXPECT(&f, "1 reject Stand not_allowed 0 | 1 Peek 5");
	B0(&f, R(8));
	EXPECT(&f, "1 peek 8C clear");
	B(&f, IDLE, STAND(1));
	B0(&f, TEN); /* skipped: A+10 */
	EXPECT(&f, "1 skip 10C");
	B0(&f, R(8)); /* soft 19 */
	EXPECT(&f, "1 draw D 8C | 1 settle Push 10, ins 0, stake 15, ret 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* peek = none                                                        */

static void test_no_peek_no_peek_action(void **state)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)state;
	/* Ace up: the window opens at X+4, Peek is not allowed, and a
	 * dealer blackjack found in dealer play takes the double too. */
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(6)); /* hard 16 */
	B(&f, IDLE, PEEK(1, 0, 0), PEEK(1, 1, 5), DOUBLE(1, 10));
	EXPECT(&f, "1 reject Peek not_allowed 0 | 1 reject Peek not_allowed 5"
	           " | 1 Double@0 10");
	B0(&f, R(4)); /* 20 */
	EXPECT(&f, "1 draw 0 4C");
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Lose 0, stake 20, ret 0");
	fx_free(&f);
}

static void test_no_peek_dealer_blackjack_takes_every_stake(void **state)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)state;
	/* Split, one hand doubled, a 10 up: the ace found in dealer play
	 * takes 30, where bethash would return the added 20. */
	start(&f, &r);
	deal(&f, 1, 10, R(8), TEN, R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(3)); /* hand 0: 11 */
	B0(&f, R(2)); /* hand 1: 10 */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@1 10");
	B0(&f, R(9)); /* hand 1: 19 */
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle Lose 0, Lose 0, stake 30, ret 0");
	fx_free(&f);

	/* Two split 21s are ordinary 21s against it. */
	start(&f, &r);
	deal(&f, 1, 10, ACE, TEN, ACE);
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, KING);
	B0(&f, QUEEN);
	EXPECT(&f, "1 draw 1 QC");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle Lose 0, Lose 0, stake 20, ret 0");
	fx_free(&f);
}

static void test_no_peek_natural_against_ace_or_ten_waits_for_x4(void **st)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)st;
	start(&f, &r);
	deal(&f, 1, 10, ACE, ACE, KING);
	EXPECT(&f, "1 draw 0 KC");
	B(&f, R(9), STAND(1));
	EXPECT(&f, "1 draw D 9C | 1 settle Blackjack 22, stake 10, ret 22"
	           " | 1 reject Stand no_round 0");
	fx_free(&f);

	start(&f, &r);
	deal(&f, 1, 10, KING, TEN, ACE);
	EXPECT(&f, "1 draw 0 AC");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Surrender                                                          */

static void test_early_surrender_settles_at_once(void **state)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)state;
	/* Against an Ace and a 10 alike, no card drawn. */
	start(&f, &r);
	deal(&f, 1, 11, TEN, ACE, R(6));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 11, ret 5");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, TEN, KING, R(6));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);

	/* Only as the first decision on the unsplit two-card hand. */
	start(&f, &r);
	deal(&f, 1, 10, R(2), R(9), R(3));
	B(&f, IDLE, HIT(1));
	B0(&f, R(4));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 reject Surrender not_allowed 0");
	fx_free(&f);

	/* Under peek = ace the Peek comes first. */
	r = rules_bethash();
	assert_int_equal(hj_rules_set_key(&r, "surrender", "early", NULL, 0),
	                 0);
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(6));
	B(&f, IDLE, SURRENDER(1), PEEK(1, 0, 0));
	EXPECT(&f, "1 reject Surrender not_allowed 0 | 1 Peek 0");
	B0(&f, R(4));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);
}

static void test_late_surrender_without_peek_draws_second_card(void **st)
{
	fx f;
	hj_rules r = rules_preset("cryptogames");

	(void)st;
	assert_int_equal(hj_rules_set_key(&r, "surrender", "late", NULL, 0), 0);
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(6));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0");
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Lose 0, stake 10, ret 0");
	fx_free(&f);
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(6));
	B(&f, IDLE, SURRENDER(1));
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);

	/* Under ace_ten a 10 up has been peeked: no card waits. */
	r = rules_preset("annakai");
	assert_int_equal(hj_rules_set_key(&r, "surrender", "late", NULL, 0), 0);
	start(&f, &r);
	deal(&f, 1, 10, TEN, KING, R(6));
	B0(&f, R(3));
	EXPECT(&f, "1 peek 3C clear");
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* The dealer's cards at settlement (docs/LOG.md, settle's dealerHand) */

/* The dealer's cards of the round the last block settled. */
static unsigned dealer_cards_at_settle(const fx *f)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].type == HJ_EV_SETTLE)
			return f->ev[i].round.dealer_n;
	fail_msg("no settlement in \"%s\"", events(f));
	return 0;
}

#define DEALER_CARDS(f, n) assert_int_equal(dealer_cards_at_settle(f), (n))

static void test_dealer_cards_at_settlement(void **state)
{
	hj_rules bethash = rules_bethash(); /* peek = ace, late surrender */
	hj_rules annakai = rules_preset("annakai");         /* ace_ten */
	hj_rules cryptogames = rules_preset("cryptogames"); /* none, early */
	hj_rules none_late = cryptogames;
	fx f;

	(void)state;
	assert_int_equal(
	    hj_rules_set_key(&none_late, "surrender", "late", NULL, 0), 0);

	/* One card: the dealer never drew its second. */
	start(&f, &bethash); /* every hand busted */
	deal(&f, 1, 10, TEN, R(9), R(6));
	B(&f, IDLE, HIT(1));
	B0(&f, KING);
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &cryptogames); /* early surrender, against a 10 */
	deal(&f, 1, 10, TEN, KING, R(6));
	B(&f, IDLE, SURRENDER(1));
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &bethash); /* late surrender against 2..9 */
	deal(&f, 1, 10, TEN, R(9), R(6));
	B(&f, IDLE, SURRENDER(1));
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &bethash); /* late surrender after a clear peek */
	deal(&f, 1, 10, TEN, ACE, R(6));
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(8));
	B(&f, IDLE, SURRENDER(1));
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &bethash); /* a natural against 2..9 */
	B(&f, IDLE, tx_bet(1, 10));
	B0(&f, ACE);
	B0(&f, R(9));
	B0(&f, KING);
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &bethash); /* a natural against an Ace, a clear peek */
	deal(&f, 1, 10, ACE, ACE, KING);
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(8));
	DEALER_CARDS(&f, 1);
	fx_free(&f);
	start(&f, &annakai); /* a natural against a 10, a clear peek */
	deal(&f, 1, 10, ACE, KING, QUEEN);
	B0(&f, R(4));
	DEALER_CARDS(&f, 1);
	fx_free(&f);

	/* Two: only the dealer's second card was needed. */
	start(&f, &bethash); /* a peek card that found a blackjack */
	deal(&f, 1, 10, TEN, ACE, R(9));
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, KING);
	DEALER_CARDS(&f, 2);
	fx_free(&f);
	start(&f, &annakai); /* the same, by itself behind a 10 */
	deal(&f, 1, 10, TEN, KING, R(9));
	B0(&f, ACE);
	DEALER_CARDS(&f, 2);
	fx_free(&f);
	start(&f, &bethash); /* late surrender against a 10 under ace */
	deal(&f, 1, 10, TEN, KING, R(6));
	B(&f, IDLE, SURRENDER(1));
	B0(&f, R(5)); /* 15: no more cards */
	DEALER_CARDS(&f, 2);
	fx_free(&f);
	start(&f, &none_late); /* late surrender against an Ace, none */
	deal(&f, 1, 10, TEN, ACE, R(6));
	B(&f, IDLE, SURRENDER(1));
	B0(&f, R(4));
	DEALER_CARDS(&f, 2);
	fx_free(&f);
	start(&f, &bethash); /* a natural against a 10 under ace */
	deal(&f, 1, 10, ACE, KING, QUEEN);
	B0(&f, R(5));
	DEALER_CARDS(&f, 2);
	fx_free(&f);
	start(&f, &cryptogames); /* a natural against an Ace under none */
	deal(&f, 1, 10, ACE, ACE, KING);
	B0(&f, R(2));
	DEALER_CARDS(&f, 2);
	fx_free(&f);

	/* Dealer play: until a total it stands on. */
	start(&f, &bethash);
	deal(&f, 1, 10, TEN, R(6), R(8));
	B(&f, IDLE, STAND(1));
	B0(&f, R(5));
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Push 10, stake 10, ret 10");
	DEALER_CARDS(&f, 3);
	fx_free(&f);
}

static void test_surrender_none(void **state)
{
	fx f;
	hj_rules r = rules_preset("annakai");

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(9), R(6));
	B(&f, IDLE, SURRENDER(1), STAND(1));
	EXPECT(&f, "1 reject Surrender not_allowed 0 | 1 Stand@0 0");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Side bets                                                          */

static void test_perfect_pairs_results(void **state)
{
	(void)state;
	assert_int_equal(
	    hj_perfect_pairs(CARD(8, HJ_HEARTS), CARD(8, HJ_HEARTS)),
	    HJ_SB_PERFECT_PAIR);
	assert_int_equal(
	    hj_perfect_pairs(CARD(8, HJ_HEARTS), CARD(8, HJ_DIAMONDS)),
	    HJ_SB_COLOURED_PAIR);
	assert_int_equal(
	    hj_perfect_pairs(CARD(HJ_KING, HJ_CLUBS), CARD(HJ_KING, HJ_SPADES)),
	    HJ_SB_COLOURED_PAIR);
	assert_int_equal(
	    hj_perfect_pairs(CARD(8, HJ_HEARTS), CARD(8, HJ_SPADES)),
	    HJ_SB_MIXED_PAIR);
	assert_int_equal(
	    hj_perfect_pairs(CARD(HJ_TEN, HJ_HEARTS), CARD(HJ_JACK, HJ_HEARTS)),
	    HJ_SB_LOST);
	assert_string_equal(hj_side_name(HJ_SB_PERFECT_PAIR), "perfectPair");
	assert_string_equal(hj_side_name(HJ_SB_COLOURED_PAIR), "colouredPair");
	assert_string_equal(hj_side_name(HJ_SB_MIXED_PAIR), "mixedPair");
	assert_string_equal(hj_side_name(HJ_SB_LOST), "sidebetLost");
}

static void test_twenty_one_plus_three_results(void **state)
{
	const struct {
		uint8_t a, b, up;
		hj_side_result want;
	} c[] = {
	    {CARD(7, 2), CARD(7, 2), CARD(7, 2), HJ_SB_SUITED_TRIPS},
	    {CARD(7, 2), CARD(7, 1), CARD(7, 3), HJ_SB_THREE_OF_A_KIND},
	    {CARD(5, 2), CARD(7, 2), CARD(6, 2), HJ_SB_STRAIGHT_FLUSH},
	    {CARD(1, 0), CARD(3, 0), CARD(2, 0), HJ_SB_STRAIGHT_FLUSH},
	    {CARD(13, 1), CARD(1, 1), CARD(12, 1), HJ_SB_STRAIGHT_FLUSH},
	    {CARD(13, 1), CARD(1, 1), CARD(2, 1), HJ_SB_FLUSH}, /* K-A-2 */
	    {CARD(13, 1), CARD(1, 2), CARD(2, 1), HJ_SB_LOST},
	    {CARD(5, 2), CARD(6, 1), CARD(7, 3), HJ_SB_STRAIGHT},
	    {CARD(10, 2), CARD(11, 1), CARD(12, 3), HJ_SB_STRAIGHT},
	    {CARD(9, 2), CARD(10, 1), CARD(11, 3), HJ_SB_STRAIGHT},
	    {CARD(1, 0), CARD(12, 1), CARD(13, 3), HJ_SB_STRAIGHT},
	    {CARD(2, 0), CARD(9, 0), CARD(13, 0), HJ_SB_FLUSH},
	    {CARD(10, 0), CARD(13, 0), CARD(10, 0), HJ_SB_FLUSH},
	    {CARD(10, 0), CARD(11, 1), CARD(10, 2), HJ_SB_LOST},
	    {CARD(2, 0), CARD(9, 1), CARD(13, 2), HJ_SB_LOST},
	    {CARD(5, 0), CARD(5, 1), CARD(6, 2), HJ_SB_LOST},
	};

	(void)state;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		if (hj_twenty_one_plus_three(c[i].a, c[i].b, c[i].up) !=
		    c[i].want)
			fail_msg("case %zu: %s, expected %s", i,
			         hj_side_name(hj_twenty_one_plus_three(
			             c[i].a, c[i].b, c[i].up)),
			         hj_side_name(c[i].want));
	assert_string_equal(hj_side_name(HJ_SB_SUITED_TRIPS), "suitedTrips");
	assert_string_equal(hj_side_name(HJ_SB_STRAIGHT_FLUSH),
	                    "straightFlush");
	assert_string_equal(hj_side_name(HJ_SB_THREE_OF_A_KIND),
	                    "threeOfAKind");
	assert_string_equal(hj_side_name(HJ_SB_STRAIGHT), "straight");
	assert_string_equal(hj_side_name(HJ_SB_FLUSH), "flush");
}

/* bethash with both side bets on the common tables. */
static hj_rules rules_sides(void)
{
	hj_rules r = rules_bethash();

	assert_int_equal(
	    hj_rules_set_key(&r, "perfect_pairs", "25,12,5", NULL, 0), 0);
	assert_int_equal(hj_rules_set_key(&r, "twenty_one_plus_three",
	                                  "100,40,30,10,5", NULL, 0),
	                 0);
	return r;
}

static void test_side_bets_settle_at_the_third_card(void **state)
{
	fx f;
	hj_rules r = rules_sides();

	(void)state;
	/* 8H, up 9H, 8H: a perfect pair (10 + 250) and a flush (10 + 50);
	 * the main round plays on. */
	start(&f, &r);
	B(&f, IDLE, SIDE(1, 30, 10, 10));
	EXPECT(&f, "1 Bet 10");
	assert_true(fx_round(&f, 1)->side_pp == 10);
	B0(&f, CARD(8, HJ_HEARTS));
	B0(&f, CARD(9, HJ_HEARTS));
	B0(&f, CARD(8, HJ_HEARTS));
	EXPECT(&f, "1 draw 0 8H | 1 side pp perfectPair 260 t3 flush 60");
	assert_int_equal(fx_round(&f, 1)->pp_result, HJ_SB_PERFECT_PAIR);
	assert_int_equal(fx_round(&f, 1)->t3_result, HJ_SB_FLUSH);
	B(&f, IDLE, STAND(1));
	B0(&f, TEN); /* 19 */
	EXPECT(&f, "1 draw D 10C | 1 settle Lose 0, stake 10, ret 0");
	fx_free(&f);

	/* One side bet only: Q, K up, A is a straight. */
	start(&f, &r);
	B(&f, IDLE, SIDE(1, 15, 0, 5));
	EXPECT(&f, "1 Bet 10");
	B0(&f, CARD(HJ_QUEEN, HJ_SPADES));
	B0(&f, CARD(HJ_KING, HJ_DIAMONDS));
	B0(&f, CARD(HJ_ACE, HJ_CLUBS));
	EXPECT(&f, "1 draw 0 AC | 1 side t3 straight 55");
	B0(&f, R(5)); /* the natural against a 10 waits for X+4 */
	EXPECT(&f, "1 draw D 5C | 1 settle Blackjack 22, stake 10, ret 22");
	fx_free(&f);

	/* Lost, and a void block shifts the third card. */
	start(&f, &r);
	B(&f, IDLE, SIDE(1, 12, 1, 1));
	B0(&f, CARD(2, HJ_CLUBS));
	B0(&f, CARD(9, HJ_DIAMONDS));
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, CARD(HJ_KING, HJ_HEARTS));
	EXPECT(&f, "1 draw 0 KH | 1 side pp sidebetLost 0 t3 sidebetLost 0");
	fx_free(&f);
}

static void test_side_bet_stakes_and_limits(void **state)
{
	fx f;
	hj_rules r = rules_sides();

	(void)state;
	r.min_bet = 10;
	r.max_bet = 100;
	start(&f, &r);
	B(&f, IDLE, SIDE(1, 19, 5, 5), /* main 9 */
	  SIDE(2, 15, 10, 10),         /* value below the sides */
	  SIDE(3, 131, 11, 10),        /* pp above main 110 > max */
	  SIDE(4, 31, 11, 10),         /* pp 11 above main 10 */
	  SIDE(5, 30, 10, 10),         /* main 10, sides 10 */
	  SIDE(6, 10, 0, 0),           /* no sides */
	  SIDE(7, 300, 100, 100));     /* max 100 each */
	EXPECT(&f, "1 reject Bet bet_out_of_limits 19"
	           " | 2 reject Bet bet_out_of_limits 15"
	           " | 3 reject Bet bet_out_of_limits 131"
	           " | 4 reject Bet bet_out_of_limits 31"
	           " | 5 Bet 10 | 6 Bet 10 | 7 Bet 100");
	fx_free(&f);

	/* A side bet the table does not offer refunds the whole value. */
	r = rules_bethash();
	assert_int_equal(
	    hj_rules_set_key(&r, "perfect_pairs", "25,12,5", NULL, 0), 0);
	start(&f, &r);
	B(&f, IDLE, SIDE(1, 30, 10, 10), SIDE(2, 20, 10, 0));
	EXPECT(&f, "1 reject Bet side_bets_not_offered 30 | 2 Bet 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* The worst case of a round                                          */

static hj_amount worst(const hj_rules *r, hj_amount bet)
{
	return hj_rules_worst_return(r, bet, 0, 0);
}

/* bethash: 4 * bet for every bet (a won double, or two won split hands);
 * the other terms are 2.2 * bet (6:5 natural) and 2.5 * bet (a pushed
 * natural plus insurance at 2:1). */
static void test_worst_return_bethash_is_4_bets(void **state)
{
	hj_rules r = rules_bethash();

	(void)state;
	ASSERT_AMOUNT(worst(&r, 0), 0);
	ASSERT_AMOUNT(worst(&r, 1), 4);
	ASSERT_AMOUNT(worst(&r, 7), 28);
	ASSERT_AMOUNT(worst(&r, 1000), 4000);
	ASSERT_AMOUNT(worst(&r, E30), 4 * E30);
	ASSERT_AMOUNT(worst(&r, HJ_MAX_BET), 4 * HJ_MAX_BET);
}

/* Each term of the maximum wins somewhere. */
static void test_worst_return_every_term(void **state)
{
	hj_rules r;

	(void)state;
	/* Insurance paying 10:1 (not a key; the term's formula): 10 + 5 *
	 * 11 = 65 above the doubled hand's 40 ... */
	r = rules_bethash();
	r.ins_pays = 10;
	ASSERT_AMOUNT(worst(&r, 10), 65);
	/* ... and without a Peek there is no insurance. */
	r.peek = HJ_PEEK_NONE;
	ASSERT_AMOUNT(worst(&r, 10), 40);
	/* A natural paying 1000:1. */
	r = rules_bethash();
	r.bj_num = 1000;
	r.bj_den = 1;
	ASSERT_AMOUNT(worst(&r, 10), 10010);
	/* No split: one doubled hand. */
	r = rules_bethash();
	r.max_hands = 1;
	ASSERT_AMOUNT(worst(&r, 10), 40);
	/* annakai: four hands, no double after split: 4 * 2 * 10. */
	r = rules_preset("annakai");
	ASSERT_AMOUNT(worst(&r, 10), 80);
	/* cryptogames: two hands, each doubled: 2 * 4 * 10. */
	r = rules_preset("cryptogames");
	ASSERT_AMOUNT(worst(&r, 10), 80);
	/* Four doubled hands. */
	r.max_hands = 4;
	ASSERT_AMOUNT(worst(&r, 5), 80);
	/* A split 21 paid 3:2 beats a won split hand: 2 * (10 + 15). */
	r = rules_bethash();
	r.bj_num = 3;
	r.bj_den = 2;
	r.split21_bj = 1;
	ASSERT_AMOUNT(worst(&r, 10), 50);
	/* Side stakes add stake * (1 + the table's largest pay). */
	r = rules_sides();
	ASSERT_AMOUNT(hj_rules_worst_return(&r, 10, 10, 10),
	              40 + 10 * 26 + 10 * 101);
	ASSERT_AMOUNT(hj_rules_worst_return(&r, 10, 0, 3), 40 + 3 * 101);
	/* ... only where offered. */
	r = rules_bethash();
	ASSERT_AMOUNT(hj_rules_worst_return(&r, 10, 10, 10), 40);
	/* Absurd ratios saturate instead of wrapping. */
	r = rules_bethash();
	r.bj_num = 1000;
	r.bj_den = 1;
	ASSERT_AMOUNT(worst(&r, HJ_MAX_BET), HJ_AMOUNT_MAX);
	r = rules_sides();
	r.pp[0] = 1000;
	ASSERT_AMOUNT(
	    hj_rules_worst_return(&r, HJ_MAX_BET, HJ_AMOUNT_MAX, HJ_AMOUNT_MAX),
	    HJ_AMOUNT_MAX);
}

static void test_rules_check_max_exposure(void **state)
{
	hj_rules r = rules_bethash();
	char err[HJ_ERRLEN];

	(void)state;
	r.max_bet = 1000;
	r.max_exposure = 0; /* no limit */
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	r.max_exposure = 4000; /* exactly one max_bet Bet */
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	r.max_exposure = HJ_AMOUNT_MAX;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	r.max_exposure = 3999;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), -EINVAL);
	assert_string_equal(err, "max_exposure 3999 is below 4000, the "
	                         "worst-case return of one max_bet Bet");
	r.max_exposure = 1; /* no error buffer: the same verdict */
	assert_int_equal(hj_rules_check(&r, NULL, 0), -EINVAL);

	/* With side bets the largest side stakes count too. */
	r = rules_sides();
	r.max_bet = 1000;
	r.max_exposure = 4000 + 26000 + 101000;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), 0);
	r.max_exposure--;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), -EINVAL);
	assert_string_equal(err, "max_exposure 130999 is below 131000, the "
	                         "worst-case return of one max_bet Bet with "
	                         "side stakes of max_bet");
}

static void test_rules_check_refuses_keys_out_of_range(void **state)
{
	hj_rules r;
	char err[HJ_ERRLEN];

	(void)state;
	r = rules_bethash();
	r.peek = 3;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), -EINVAL);
	assert_string_equal(err, "a rule key out of range");
	r = rules_bethash();
	r.max_hands = 5;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), -EINVAL);
	r = rules_sides();
	r.t3[4] = 1001;
	assert_int_equal(hj_rules_check(&r, err, sizeof err), -EINVAL);
	assert_string_equal(err, "twenty_one_plus_three pays above 1000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_presets_are_section_9s_table),
	    cmocka_unit_test(test_rule_keys_read_and_write_every_value),
	    cmocka_unit_test(test_rule_keys_refuse_what_they_do_not_allow),
	    cmocka_unit_test(test_rules_diff_names_the_keys_that_differ),
	    cmocka_unit_test(test_blackjack_3_to_2_rounds_down),
	    cmocka_unit_test(test_dealer_soft17_stand),
	    cmocka_unit_test(test_double_on_any_two_cards),
	    cmocka_unit_test(test_double_on_10_11),
	    cmocka_unit_test(test_double_after_split),
	    cmocka_unit_test(test_resplit_to_four_hands),
	    cmocka_unit_test(test_split_of_lower_hand_shifts_hands_up),
	    cmocka_unit_test(test_split_aces_take_one_card),
	    cmocka_unit_test(test_hit_split_aces_and_split_21_is_blackjack),
	    cmocka_unit_test(test_split_by_rank),
	    cmocka_unit_test(test_ace_ten_peek_card_at_x4),
	    cmocka_unit_test(test_ace_ten_ace_up_peeks_as_under_ace),
	    cmocka_unit_test(
	        test_natural_against_ten_not_allowed_under_every_peek),
	    cmocka_unit_test(test_dealer_cards_at_settlement),
	    cmocka_unit_test(test_no_peek_no_peek_action),
	    cmocka_unit_test(test_no_peek_dealer_blackjack_takes_every_stake),
	    cmocka_unit_test(
	        test_no_peek_natural_against_ace_or_ten_waits_for_x4),
	    cmocka_unit_test(test_early_surrender_settles_at_once),
	    cmocka_unit_test(
	        test_late_surrender_without_peek_draws_second_card),
	    cmocka_unit_test(test_surrender_none),
	    cmocka_unit_test(test_perfect_pairs_results),
	    cmocka_unit_test(test_twenty_one_plus_three_results),
	    cmocka_unit_test(test_side_bets_settle_at_the_third_card),
	    cmocka_unit_test(test_side_bet_stakes_and_limits),
	    cmocka_unit_test(test_worst_return_bethash_is_4_bets),
	    cmocka_unit_test(test_worst_return_every_term),
	    cmocka_unit_test(test_rules_check_max_exposure),
	    cmocka_unit_test(test_rules_check_refuses_keys_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
