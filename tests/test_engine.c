/*
 * The round state machine through the table API: the rules of
 * docs/PROTOCOL.md sections 3 to 9.  Every expected event and amount below
 * was worked out by hand from that text, not copied from what the engine
 * prints.
 *
 * A block's events are rendered as one line, " | " between events
 * (engine_text.h), so that a test states the whole block at once and any
 * extra or missing event fails.
 *
 * Blocks are numbered from 1000 (engine_util).  Every settlement is also
 * checked against the money the round's accepted actions carried: their sum
 * must be the settlement's total_stake, and the per-hand returns plus the
 * insurance return must add up to total_ret.
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

/* ------------------------------------------------------------------ */
/* Which block deals which card                                       */

static void test_bet_deals_player_dealer_player_from_x_plus_1(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, CARD(5, HJ_CLUBS), tx_bet(1, 10)); /* X = 1000 */
	EXPECT(&f, "1 Bet 10");
	assert_int_equal(fx_round(&f, 1)->bet_height, 1000);
	HANDS(&f, 1, "h0 $10, D");
	B0(&f, CARD(8, HJ_HEARTS));
	EXPECT(&f, "1 draw 0 8H");
	B0(&f, CARD(6, HJ_SPADES));
	EXPECT(&f, "1 draw D 6S");
	B0(&f, CARD(9, HJ_DIAMONDS));
	EXPECT(&f, "1 draw 0 9D");
	HANDS(&f, 1, "h0 8H 9D $10, D 6S");
	/* Nothing is owed at X+4: the block's card is nobody's. */
	B0(&f, R(4));
	EXPECT(&f, "");
	HANDS(&f, 1, "h0 8H 9D $10, D 6S");
	B(&f, R(4), STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, CARD(HJ_KING, HJ_HEARTS)); /* 16: hit */
	EXPECT(&f, "1 draw D KH");
	B0(&f, R(5)); /* 21 against 17 */
	EXPECT(&f, "1 draw D 5C | 1 settle Lose 0, stake 10, ret 0");
	assert_null(fx_round(&f, 1));
	assert_int_equal(hj_table_count(f.t), 0);
	fx_free(&f);
}

static void test_void_blocks_shift_deal_and_dealer_draws(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, R(5), tx_bet(1, 10));
	EXPECT(&f, "1 Bet 10");
	B0(&f, VOID); /* X+1 void: player card 1 comes at X+2 */
	EXPECT(&f, "");
	B0(&f, R(8));
	EXPECT(&f, "1 draw 0 8C");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C");
	/* Card 2 arrives at 1005: an action in its block is premature. */
	B(&f, R(9), HIT(1));
	EXPECT(&f, "1 draw 0 9C | 1 reject Hit premature 0");
	HANDS(&f, 1, "h0 8C 9C $10, D 7C");
	B(&f, VOID, STAND(1)); /* 17 against 7 */
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, R(5)); /* 12 */
	EXPECT(&f, "1 draw D 5C");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, R(5)); /* 17: stands */
	EXPECT(&f, "1 draw D 5C | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

static void test_void_block_shifts_hit_card(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(5), R(9), R(6)); /* 11 against 9 */
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@0 0");
	B(&f, VOID, HIT(1));
	EXPECT(&f, "1 reject Hit premature 0");
	B(&f, R(2), HIT(1));
	EXPECT(&f, "1 draw 0 2C | 1 reject Hit premature 0");
	B(&f, IDLE, HIT(1)); /* 13 */
	EXPECT(&f, "1 Hit@0 0");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC | 1 settle Bust 0, stake 10, ret 0");
	fx_free(&f);
}

static void test_each_block_card_goes_to_every_round_owing_a_draw(void **st)
{
	fx f;

	(void)st;
	start(&f, NULL);
	B(&f, R(5), tx_bet(1, 10), tx_bet(2, 20));
	EXPECT(&f, "1 Bet 10 | 2 Bet 20");
	B0(&f, CARD(8, HJ_HEARTS));
	EXPECT(&f, "1 draw 0 8H | 2 draw 0 8H");
	/* Player 3's first card is rounds 1 and 2's up card. */
	B(&f, CARD(6, HJ_SPADES), tx_bet(3, 30));
	EXPECT(&f, "1 draw D 6S | 2 draw D 6S | 3 Bet 30");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, CARD(9, HJ_DIAMONDS));
	EXPECT(&f, "1 draw 0 9D | 2 draw 0 9D | 3 draw 0 9D");
	B(&f, TEN, STAND(1));
	EXPECT(&f, "3 draw D 10C | 1 Stand@0 0");
	B0(&f, R(2));
	EXPECT(&f, "1 draw D 2C | 3 draw 0 2C");
	HANDS(&f, 1, "h0 8H 9D $10, D 6S 2C");
	HANDS(&f, 2, "h0 8H 9D $20, D 6S");
	HANDS(&f, 3, "h0 9D 2C $30, D 10C");
	B0(&f, R(9)); /* dealer 17 against 17 */
	EXPECT(&f, "1 draw D 9C | 1 settle Push 10, stake 10, ret 10");
	assert_int_equal(hj_table_count(f.t), 2);
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Action windows                                                     */

static void test_premature_actions_rejected_and_refunded(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), HIT(1));
	EXPECT(&f, "1 Bet 10 | 1 reject Hit premature 0");
	B(&f, TEN, STAND(1));
	EXPECT(&f, "1 draw 0 10C | 1 reject Stand premature 0");
	B(&f, R(7), DOUBLE(1, 10), PEEK(1, 1, 5));
	EXPECT(&f, "1 draw D 7C | 1 reject Double premature 10"
	           " | 1 reject Peek premature 5");
	/* The whole value comes back, even a wrong one. */
	B(&f, R(6), tx_act(1, HJ_HIT, 3), SURRENDER(1));
	EXPECT(&f, "1 draw 0 6C | 1 reject Hit premature 3"
	           " | 1 reject Surrender premature 0");
	B(&f, IDLE, HIT(1)); /* X+4: the window is open */
	EXPECT(&f, "1 Hit@0 0");
	B(&f, R(2), HIT(1), STAND(1)); /* 18 */
	EXPECT(&f, "1 draw 0 2C | 1 reject Hit premature 0"
	           " | 1 reject Stand premature 0");
	B(&f, IDLE, STAND(1), HIT(1));
	EXPECT(&f, "1 Stand@0 0 | 1 reject Hit not_allowed 0");
	B0(&f, TEN); /* 17 */
	EXPECT(&f, "1 draw D 10C | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_stand_on_hand_1_opens_hand_0_window_at_y_plus_1(void **st)
{
	fx f;

	(void)st;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(7), CARD(HJ_JACK, HJ_HEARTS));
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	HANDS(&f, 1, "h0 10C $10, h1 JH $10, D 7C");
	B(&f, R(9), HIT(1));
	EXPECT(&f, "1 draw 0 9C | 1 reject Hit premature 0");
	B(&f, R(8), HIT(1));
	EXPECT(&f, "1 draw 1 8C | 1 reject Hit premature 0");
	HANDS(&f, 1, "h0 10C 9C $10, h1 JH 8C $10, D 7C");
	B(&f, IDLE, STAND(1), STAND(1));
	EXPECT(&f, "1 Stand@1 0 | 1 reject Stand premature 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, KING); /* 17 */
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, Win 20, stake 20, ret 40");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Order inside a block, one open round per player                    */

static void test_bet_accepted_in_block_where_previous_round_settled(void **s)
{
	fx f;

	(void)s;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10));
	B0(&f, ACE);
	B0(&f, R(5));
	/* The natural settles at X+3, before the block's transactions. */
	B(&f, KING, tx_bet(1, 20));
	EXPECT(&f, "1 draw 0 KC | 1 settle Blackjack 22, stake 10, ret 22"
	           " | 1 Bet 20");
	assert_true(fx_round(&f, 1)->bet == 20);
	assert_int_equal(fx_round(&f, 1)->bet_height, 1003);
	B0(&f, R(3));
	EXPECT(&f, "1 draw 0 3C");
	B0(&f, TEN);
	EXPECT(&f, "1 draw D 10C");
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC");
	B(&f, IDLE, STAND(1)); /* 13 */
	EXPECT(&f, "1 Stand@0 0");
	/* Settled by the dealer's draw; the Bet after it is accepted. */
	B(&f, R(7), tx_bet(1, 5));
	EXPECT(&f, "1 draw D 7C | 1 settle Lose 0, stake 20, ret 0 | 1 Bet 5");
	assert_int_equal(fx_round(&f, 1)->bet_height, 1008);
	fx_free(&f);
}

static void test_second_bet_while_round_open_rejected(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(1, 10), tx_bet(2, 7));
	EXPECT(&f, "1 Bet 10 | 1 reject Bet second_round 10 | 2 Bet 7");
	B(&f, R(9), tx_bet(1, 15));
	EXPECT(&f, "1 draw 0 9C | 2 draw 0 9C | 1 reject Bet second_round 15");
	B0(&f, R(5));
	B0(&f, R(7)); /* 16 against 5 */
	B(&f, IDLE, STAND(1), tx_bet(1, 5));
	EXPECT(&f, "1 Stand@0 0 | 1 reject Bet second_round 5");
	B(&f, TEN, tx_bet(1, 5)); /* 15 */
	EXPECT(&f, "1 draw D 10C | 1 reject Bet second_round 5");
	assert_true(fx_round(&f, 1)->bet == 10);
	assert_int_equal(fx_round(&f, 1)->bet_height, 1000);
	B0(&f, KING); /* 25 */
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, stake 10, ret 20");
	assert_null(fx_round(&f, 1));
	assert_non_null(fx_round(&f, 2));
	fx_free(&f);
}

static void test_transactions_apply_in_block_order(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 10));
	B0(&f, TEN);
	B0(&f, R(6));
	B0(&f, R(6)); /* 16 against 6 */
	B(&f, IDLE, SURRENDER(1), tx_bet(1, 10), tx_bet(2, 10), SURRENDER(2));
	EXPECT(&f,
	       "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5"
	       " | 1 Bet 10 | 2 reject Bet second_round 10"
	       " | 2 Surrender@0 0 | 2 settle Surrender 5, stake 10, ret 5");
	assert_int_equal(fx_round(&f, 1)->bet_height, 1004);
	assert_null(fx_round(&f, 2));
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Rejections and refunds                                             */

static void test_action_without_open_round_rejected_no_round(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), HIT(2), tx_act(2, HJ_STAND, 1),
	  DOUBLE(2, 10), SPLIT(2, 10), SURRENDER(2), PEEK(2, 1, 5));
	EXPECT(&f, "1 Bet 10 | 2 reject Hit no_round 0"
	           " | 2 reject Stand no_round 1 | 2 reject Double no_round 10"
	           " | 2 reject Split no_round 10"
	           " | 2 reject Surrender no_round 0"
	           " | 2 reject Peek no_round 5");
	B0(&f, ACE);
	B0(&f, R(5));
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC | 1 settle Blackjack 22, stake 10, ret 22");
	B(&f, IDLE, HIT(1), PEEK(1, 0, 0));
	EXPECT(&f, "1 reject Hit no_round 0 | 1 reject Peek no_round 0");
	fx_free(&f);
}

static void test_action_while_dealer_plays_not_allowed(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(5), R(8)); /* 18 against 5 */
	B(&f, IDLE, STAND(1), HIT(1));
	EXPECT(&f, "1 Stand@0 0 | 1 reject Hit not_allowed 0");
	B(&f, TEN, HIT(1), STAND(1), DOUBLE(1, 10), SPLIT(1, 10), SURRENDER(1),
	  PEEK(1, 1, 5), PEEK(1, 0, 0));
	EXPECT(&f, "1 draw D 10C | 1 reject Hit not_allowed 0"
	           " | 1 reject Stand not_allowed 0"
	           " | 1 reject Double not_allowed 10"
	           " | 1 reject Split not_allowed 10"
	           " | 1 reject Surrender not_allowed 0"
	           " | 1 reject Peek not_allowed 5"
	           " | 1 reject Peek not_allowed 0");
	B0(&f, R(3)); /* 18 */
	EXPECT(&f, "1 draw D 3C | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

static void test_hit_stand_surrender_need_zero_value(void **state)
{
	fx f;
	hj_round before;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(7), R(6)); /* 16 against 7 */
	before = *fx_round(&f, 1);
	B(&f, IDLE, tx_act(1, HJ_HIT, 1), tx_act(1, HJ_STAND, 10),
	  tx_act(1, HJ_SURRENDER, 5), PEEK(1, 0, 0), PEEK(1, 1, 5),
	  DOUBLE(1, 10), SPLIT(1, 10));
	EXPECT(&f, "1 reject Hit wrong_value 1 | 1 reject Stand wrong_value 10"
	           " | 1 reject Surrender wrong_value 5"
	           " | 1 reject Peek not_allowed 0"
	           " | 1 reject Peek not_allowed 5"
	           " | 1 reject Double not_allowed 10"
	           " | 1 reject Split not_allowed 10");
	assert_same_round(&before, fx_round(&f, 1));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);
}

static void test_malformed_rejected_with_reason_and_refunded(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);
	hj_round before;

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(7), R(9)); /* window 1004 */
	before = *fx_round(&f, 1);
	B(&f, IDLE, tx_malformed(1, HJ_ACT_NONE, HJ_R_TRUNCATED, 3),
	  tx_malformed(1, HJ_ACT_NONE, HJ_R_BAD_VERSION, 4),
	  tx_malformed(1, HJ_ACT_NONE, HJ_R_UNKNOWN_ACTION, 5),
	  tx_malformed(1, HJ_BET, HJ_R_BAD_LENGTH, 6),
	  tx_malformed(1, HJ_PEEK, HJ_R_TOO_LONG, 7),
	  tx_malformed(1, HJ_PEEK, HJ_R_BAD_FIELD, 8),
	  tx_malformed(1, HJ_HIT, HJ_R_BAD_SIGNATURE, 9),
	  tx_malformed(2, HJ_BET, HJ_R_BAD_LENGTH, 10));
	EXPECT(&f, "1 reject none truncated 3 | 1 reject none bad_version 4"
	           " | 1 reject none unknown_action 5"
	           " | 1 reject Bet bad_length 6 | 1 reject Peek too_long 7"
	           " | 1 reject Peek bad_field 8"
	           " | 1 reject Hit bad_signature 9"
	           " | 2 reject Bet bad_length 10");
	assert_same_round(&before, fx_round(&f, 1));
	assert_null(fx_round(&f, 2));
	assert_int_equal(hj_table_count(f.t), 1);
	/* They did not touch the timer either. */
	quiet(&f, 2);
	B0(&f, IDLE);
	EXPECT(&f, "1 timeout Stand@0");
	fx_free(&f);
}

static void test_side_bets_rejected_and_refunded(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet_side(1, 15, 5, 0), tx_bet_side(1, 20, 0, 10),
	  tx_bet_side(1, 30, 10, 10), tx_bet(1, 10));
	EXPECT(&f, "1 reject Bet side_bets_not_offered 15"
	           " | 1 reject Bet side_bets_not_offered 20"
	           " | 1 reject Bet side_bets_not_offered 30 | 1 Bet 10");
	assert_true(fx_round(&f, 1)->bet == 10);
	fx_free(&f);
}

static void test_bet_limits_inclusive(void **state)
{
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	r.min_bet = 100;
	r.max_bet = 1000;
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 99), tx_bet(2, 100), tx_bet(3, 1000),
	  tx_bet(4, 1001), tx_bet(5, 0));
	EXPECT(&f, "1 reject Bet bet_out_of_limits 99 | 2 Bet 100"
	           " | 3 Bet 1000 | 4 reject Bet bet_out_of_limits 1001"
	           " | 5 reject Bet bet_out_of_limits 0");
	assert_int_equal(hj_table_count(f.t), 2);
	assert_null(fx_round(&f, 1));
	fx_free(&f);

	start(&f, NULL); /* min 1, max 10^30 */
	B(&f, IDLE, tx_bet(1, E30 + 1), tx_bet(2, E30), tx_bet(3, 0),
	  tx_bet(4, 1));
	EXPECT(&f,
	       "1 reject Bet bet_out_of_limits 1000000000000000000000000000001"
	       " | 2 Bet 1000000000000000000000000000000"
	       " | 3 reject Bet bet_out_of_limits 0 | 4 Bet 1");
	fx_free(&f);
}

static void test_deposits_and_failed_txs_change_nothing(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);
	hj_round before;

	(void)state;
	start(&f, &r);
	B(&f, IDLE, tx_deposit(1, 50), tx_failed(1, 60), tx_bet(1, 10));
	EXPECT(&f, "1 deposit | 1 ignored | 1 Bet 10");
	B0(&f, TEN);
	B0(&f, R(7));
	B0(&f, R(9));
	before = *fx_round(&f, 1);
	B(&f, IDLE, tx_deposit(1, 50), tx_failed(1, 60), tx_deposit(2, 70),
	  tx_failed(2, 0));
	EXPECT(&f, "1 deposit | 1 ignored | 2 deposit | 2 ignored");
	assert_same_round(&before, fx_round(&f, 1));
	assert_int_equal(hj_table_count(f.t), 1);
	quiet(&f, 2);
	B(&f, IDLE, tx_deposit(1, 1));
	EXPECT(&f, "1 deposit | 1 timeout Stand@0");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Double                                                             */

static void test_double_on_hard_9_10_11(void **state)
{
	static const uint8_t pairs[][2] = {
	    {5, 4}, {2, 7}, {6, 4}, {5, 5}, {8, 3}, {9, 2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		fx f;
		char want[64];

		start(&f, NULL);
		deal(&f, 1, 10, R(pairs[i][0]), R(6), R(pairs[i][1]));
		B(&f, IDLE, DOUBLE(1, 10), HIT(1));
		EXPECT(&f, "1 Double@0 10 | 1 reject Hit premature 0");
		/* One card, then the hand stands by itself. */
		B(&f, R(2), STAND(1));
		EXPECT(&f, "1 draw 0 2C | 1 reject Stand not_allowed 0");
		snprintf(want, sizeof want, "h0 %uC %uC 2C $20, D 6C",
		         pairs[i][0], pairs[i][1]);
		HANDS(&f, 1, want);
		B0(&f, TEN); /* 16 */
		EXPECT(&f, "1 draw D 10C");
		B0(&f, KING); /* 26 */
		EXPECT(&f, "1 draw D KC | 1 settle Win 40, stake 20, ret 40");
		fx_free(&f);
	}
}

static void test_double_refused_outside_hard_9_to_11(void **state)
{
	/* Hard 8, hard 12, A+8 (soft 19, 9 if the ace counted 1), 8+A,
	 * A+9 (soft 20, 10 with the ace as 1), A+A (soft 12), hard 7. */
	static const uint8_t pairs[][2] = {
	    {5, 3}, {10, 2}, {1, 8}, {8, 1}, {1, 9}, {1, 1}, {4, 3},
	};

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		fx f;

		start(&f, NULL);
		deal(&f, 1, 10, R(pairs[i][0]), R(6), R(pairs[i][1]));
		B(&f, IDLE, DOUBLE(1, 10), HIT(1));
		EXPECT(&f, "1 reject Double not_allowed 10 | 1 Hit@0 0");
		fx_free(&f);
	}
}

static void test_double_only_on_first_two_cards(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(2), R(6), R(3));
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@0 0");
	B0(&f, R(4)); /* 9 on three cards */
	EXPECT(&f, "1 draw 0 4C");
	B(&f, IDLE, DOUBLE(1, 10), SURRENDER(1), HIT(1));
	EXPECT(&f, "1 reject Double not_allowed 10"
	           " | 1 reject Surrender not_allowed 0 | 1 Hit@0 0");
	fx_free(&f);
}

static void test_double_value_must_equal_hand_stake(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(6), R(9), R(5)); /* 11 against 9 */
	B(&f, IDLE, DOUBLE(1, 9), DOUBLE(1, 11), DOUBLE(1, 0), DOUBLE(1, 20),
	  DOUBLE(1, 5), DOUBLE(1, 10));
	EXPECT(&f, "1 reject Double wrong_value 9"
	           " | 1 reject Double wrong_value 11"
	           " | 1 reject Double wrong_value 0"
	           " | 1 reject Double wrong_value 20"
	           " | 1 reject Double wrong_value 5 | 1 Double@0 10");
	B0(&f, R(9)); /* 20 */
	EXPECT(&f, "1 draw 0 9C");
	B0(&f, R(8)); /* 17 */
	EXPECT(&f, "1 draw D 8C | 1 settle Win 40, stake 20, ret 40");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Split                                                              */

static void test_split_pairs_by_value_ten_and_face(void **state)
{
	static const uint8_t pairs[][2] = {
	    {HJ_TEN, HJ_JACK},
	    {HJ_QUEEN, HJ_KING},
	    {HJ_KING, HJ_TEN},
	    {8, 8},
	    {2, 2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		fx f;

		start(&f, NULL);
		deal(&f, 1, 10, R(pairs[i][0]), R(7), R(pairs[i][1]));
		B(&f, IDLE, SPLIT(1, 10));
		EXPECT(&f, "1 Split@0 10");
		assert_int_equal(fx_round(&f, 1)->nhands, 2);
		assert_int_equal(fx_round(&f, 1)->hands[0].cards[0],
		                 R(pairs[i][0]));
		assert_int_equal(fx_round(&f, 1)->hands[1].cards[0],
		                 R(pairs[i][1]));
		fx_free(&f);
	}
}

static void test_split_refused_unless_non_ace_pair(void **state)
{
	static const uint8_t pairs[][2] = {
	    {8, 9}, {HJ_ACE, HJ_ACE}, {HJ_TEN, 9}, {HJ_ACE, HJ_KING}, {5, 4},
	};

	(void)state;
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		fx f;

		start(&f, NULL);
		deal(&f, 1, 10, R(pairs[i][0]), R(6), R(pairs[i][1]));
		if (pairs[i][0] == HJ_ACE && pairs[i][1] == HJ_KING) {
			/* a natural against 6 is over at X+3 */
			EXPECT(&f,
			       "1 draw 0 KC"
			       " | 1 settle Blackjack 22, stake 10, ret 22");
			B(&f, IDLE, SPLIT(1, 10));
			EXPECT(&f, "1 reject Split no_round 10");
		} else {
			B(&f, IDLE, SPLIT(1, 10), STAND(1));
			EXPECT(&f, "1 reject Split not_allowed 10"
			           " | 1 Stand@0 0");
		}
		fx_free(&f);
	}
}

static void test_split_refused_after_hit(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(2), R(6), R(2));
	B(&f, IDLE, HIT(1));
	B0(&f, R(2)); /* 2 2 2 */
	EXPECT(&f, "1 draw 0 2C");
	B(&f, IDLE, SPLIT(1, 10), STAND(1));
	EXPECT(&f, "1 reject Split not_allowed 10 | 1 Stand@0 0");
	fx_free(&f);
}

static void test_split_value_must_equal_hand_stake(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(8), R(6), R(8));
	B(&f, IDLE, SPLIT(1, 9), SPLIT(1, 11), SPLIT(1, 0), SPLIT(1, 20),
	  SPLIT(1, 10));
	EXPECT(&f,
	       "1 reject Split wrong_value 9 | 1 reject Split wrong_value 11"
	       " | 1 reject Split wrong_value 0"
	       " | 1 reject Split wrong_value 20 | 1 Split@0 10");
	fx_free(&f);
}

static void test_split_hand_0_keeps_card_1_hand_1_plays_first(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), R(6), CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	HANDS(&f, 1, "h0 8H $10, h1 8S $10, D 6C");
	B0(&f, R(3)); /* Y+1: hand 0's second card */
	EXPECT(&f, "1 draw 0 3C");
	B0(&f, CARD(5, HJ_DIAMONDS)); /* Y+2: hand 1's */
	EXPECT(&f, "1 draw 1 5D");
	HANDS(&f, 1, "h0 8H 3C $10, h1 8S 5D $10, D 6C");
	assert_int_equal(hj_round_active_hand(fx_round(&f, 1)), 1);
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@1 0");
	/* Hand 1 busts: hand 0's window opens at the next block. */
	B(&f, KING, HIT(1));
	EXPECT(&f, "1 draw 1 KC | 1 reject Hit premature 0");
	assert_int_equal(hj_round_active_hand(fx_round(&f, 1)), 0);
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@0 0");
	B0(&f, R(9)); /* 20 */
	EXPECT(&f, "1 draw 0 9C");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, TEN); /* 16 */
	EXPECT(&f, "1 draw D 10C");
	B0(&f, KING); /* 26 */
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, Bust 0, stake 20, ret 20");
	fx_free(&f);
}

static void test_one_split_only_no_double_or_surrender_after(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), R(6), CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, CARD(8, HJ_DIAMONDS)); /* hand 0: 8 8 */
	B0(&f, R(3));                 /* hand 1: 8 3 = 11 */
	EXPECT(&f, "1 draw 1 3C");
	B(&f, IDLE, DOUBLE(1, 10), SURRENDER(1), STAND(1));
	EXPECT(&f, "1 reject Double not_allowed 10"
	           " | 1 reject Surrender not_allowed 0 | 1 Stand@1 0");
	B(&f, IDLE, SPLIT(1, 10), SURRENDER(1), STAND(1));
	EXPECT(&f, "1 reject Split not_allowed 10"
	           " | 1 reject Surrender not_allowed 0 | 1 Stand@0 0");
	assert_int_equal(fx_round(&f, 1)->nhands, 2);
	B0(&f, TEN); /* 16 */
	EXPECT(&f, "1 draw D 10C");
	B0(&f, R(4)); /* 20 */
	EXPECT(&f, "1 draw D 4C | 1 settle Lose 0, Lose 0, stake 20, ret 0");
	fx_free(&f);
}

static void test_second_split_of_active_hand_refused(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(8), R(6), R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(3));
	B0(&f, R(8)); /* hand 1: 8 8 */
	EXPECT(&f, "1 draw 1 8C");
	B(&f, IDLE, SPLIT(1, 10), HIT(1));
	EXPECT(&f, "1 reject Split not_allowed 10 | 1 Hit@1 0");
	fx_free(&f);
}

static void test_split_hand_21_on_second_card_is_not_blackjack(void **st)
{
	fx f;

	(void)st;
	start(&f, NULL);
	deal(&f, 1, 10, KING, R(9), QUEEN);
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, CARD(HJ_ACE, HJ_HEARTS)); /* hand 0: 21, stands */
	EXPECT(&f, "1 draw 0 AH");
	B(&f, CARD(HJ_ACE, HJ_SPADES), STAND(1)); /* hand 1: 21 */
	EXPECT(&f, "1 draw 1 AS | 1 reject Stand not_allowed 0");
	B0(&f, R(8)); /* 17 */
	EXPECT(&f, "1 draw D 8C | 1 settle Win 20, Win 20, stake 20, ret 40");
	fx_free(&f);
}

static void test_hand_reaching_21_stands_by_itself(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(5), R(7), R(6));
	B(&f, IDLE, HIT(1));
	B(&f, KING, STAND(1)); /* 21: the dealer plays from the next block */
	EXPECT(&f, "1 draw 0 KC | 1 reject Stand not_allowed 0");
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_split_hand_1_reaching_21_opens_hand_0(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(6), R(8), R(6));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(9)); /* hand 0: 15 */
	B0(&f, R(5)); /* hand 1: 11 */
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 Hit@1 0");
	B(&f, TEN, STAND(1));
	EXPECT(&f, "1 draw 1 10C | 1 reject Stand premature 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, KING); /* 18 */
	EXPECT(&f, "1 draw D KC | 1 settle Lose 0, Win 20, stake 20, ret 20");
	fx_free(&f);
}

static void test_dealer_skips_play_when_every_hand_busts(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(8), R(6), R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(4)); /* hand 0: 12 */
	B0(&f, R(5)); /* hand 1: 13 */
	B(&f, IDLE, HIT(1));
	B0(&f, KING);
	EXPECT(&f, "1 draw 1 KC");
	B(&f, IDLE, HIT(1));
	B0(&f, QUEEN);
	EXPECT(&f, "1 draw 0 QC | 1 settle Bust 0, Bust 0, stake 20, ret 0");
	B0(&f, R(5));
	EXPECT(&f, "");
	assert_int_equal(hj_table_count(f.t), 0);
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Dealer play, H17                                                   */

static void test_dealer_hits_soft_17(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(6), R(8)); /* 18 */
	B(&f, IDLE, STAND(1));
	B0(&f, ACE); /* soft 17 */
	EXPECT(&f, "1 draw D AC");
	B0(&f, KING); /* hard 17 */
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);

	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(2), R(8)); /* 18 */
	B(&f, IDLE, STAND(1));
	B0(&f, R(4));
	EXPECT(&f, "1 draw D 4C");
	B0(&f, ACE); /* 2 4 A: soft 17 */
	EXPECT(&f, "1 draw D AC");
	B0(&f, R(3)); /* soft 20 */
	EXPECT(&f, "1 draw D 3C | 1 settle Lose 0, stake 10, ret 0");
	fx_free(&f);
}

static void test_dealer_stands_on_hard_17(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, QUEEN, R(7)); /* 17 */
	B(&f, IDLE, STAND(1));
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);

	start(&f, NULL);
	deal(&f, 1, 10, TEN, TEN, R(7)); /* 17 */
	B(&f, IDLE, STAND(1));
	B0(&f, R(6)); /* 16 */
	EXPECT(&f, "1 draw D 6C");
	B0(&f, ACE); /* 10 6 A: hard 17 */
	EXPECT(&f, "1 draw D AC | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

static void test_dealer_stands_on_soft_18(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, R(7), R(9)); /* 19 */
	B(&f, IDLE, STAND(1));
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_clear_peek_dealer_draws_second_card_in_dealer_play(void **s)
{
	fx f;

	(void)s;
	/* Stand: the peek card (7) is set aside; the dealer's second card
	 * comes after the Stand. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(9)); /* 19 */
	B(&f, IDLE, PEEK(1, 0, 0));
	EXPECT(&f, "1 Peek 0");
	B0(&f, R(7));
	EXPECT(&f, "1 peek 7C clear");
	HANDS(&f, 1, "h0 10C 9C $10, D AC");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, R(7)); /* soft 18 */
	EXPECT(&f, "1 draw D 7C | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);

	/* Hit to 21: the dealer plays from the next block. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(5));
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(7));
	B(&f, IDLE, HIT(1));
	B0(&f, R(6));
	EXPECT(&f, "1 draw 0 6C");
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);

	/* Double */
	start(&f, NULL);
	deal(&f, 1, 10, R(6), ACE, R(5));
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(8));
	EXPECT(&f, "1 peek 8C clear");
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	B0(&f, R(5)); /* 16 */
	EXPECT(&f, "1 draw 0 5C");
	B0(&f, R(8)); /* A+8 19 */
	EXPECT(&f, "1 draw D 8C | 1 settle Lose 0, stake 20, ret 0");
	fx_free(&f);

	/* A soft 17 still hits. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, TEN);
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(6));
	EXPECT(&f, "1 peek 6C clear");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, R(6));
	EXPECT(&f, "1 draw D 6C");
	B0(&f, KING);
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_clear_peek_skips_blackjack_blocks_for_second_card(void **s)
{
	fx f;

	(void)s;
	/* Round 1 peeked clear and stands; round 2 is dealt alongside: the
	 * skipped blocks are still cards for round 2. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(9)); /* 19 */
	B(&f, IDLE, PEEK(1, 0, 0));
	B(&f, R(4), tx_bet(2, 10));
	EXPECT(&f, "1 peek 4C clear | 2 Bet 10");
	B(&f, KING, STAND(1));
	EXPECT(&f, "2 draw 0 KC | 1 Stand@0 0");
	B0(&f, QUEEN);
	EXPECT(&f, "1 skip QC | 2 draw D QC");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, CARD(HJ_TEN, HJ_HEARTS));
	EXPECT(&f, "1 skip 10H | 2 draw 0 10H");
	B0(&f, R(7));
	EXPECT(&f, "1 draw D 7C | 1 settle Win 20, stake 10, ret 20");
	HANDS(&f, 2, "h0 KC 10H $10, D QC");
	fx_free(&f);

	/* Only the second card skips: a 10 as the third card is drawn. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(8)); /* 18 */
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(3));
	B(&f, IDLE, STAND(1));
	B0(&f, R(2)); /* soft 13 */
	EXPECT(&f, "1 draw D 2C");
	B0(&f, KING); /* hard 13 */
	EXPECT(&f, "1 draw D KC");
	B0(&f, R(5));
	EXPECT(&f, "1 draw D 5C | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Peek and insurance                                                 */

static void test_peek_is_the_only_first_action_against_ace(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(5), ACE, R(5)); /* hard 10, a pair */
	B(&f, IDLE, HIT(1), STAND(1), DOUBLE(1, 10), SPLIT(1, 10),
	  SURRENDER(1));
	EXPECT(&f, "1 reject Hit not_allowed 0 | 1 reject Stand not_allowed 0"
	           " | 1 reject Double not_allowed 10"
	           " | 1 reject Split not_allowed 10"
	           " | 1 reject Surrender not_allowed 0");
	B(&f, IDLE, PEEK(1, 0, 0), PEEK(1, 0, 0));
	EXPECT(&f, "1 Peek 0 | 1 reject Peek premature 0");
	B0(&f, R(9));
	EXPECT(&f, "1 peek 9C clear");
	B(&f, IDLE, PEEK(1, 0, 0), DOUBLE(1, 10));
	EXPECT(&f, "1 reject Peek not_allowed 0 | 1 Double@0 10");
	B0(&f, KING); /* 20 */
	EXPECT(&f, "1 draw 0 KC");
	B0(&f, R(9)); /* soft 20 */
	EXPECT(&f, "1 draw D 9C | 1 settle Push 20, stake 20, ret 20");
	fx_free(&f);
}

static void test_peek_insurance_value_is_half_bet_floored(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 11, TEN, ACE, R(9));
	B(&f, IDLE, PEEK(1, 1, 4), PEEK(1, 1, 6), PEEK(1, 1, 11), PEEK(1, 1, 0),
	  PEEK(1, 0, 5), PEEK(1, 1, 5));
	EXPECT(&f, "1 reject Peek wrong_value 4 | 1 reject Peek wrong_value 6"
	           " | 1 reject Peek wrong_value 11"
	           " | 1 reject Peek wrong_value 0"
	           " | 1 reject Peek wrong_value 5 | 1 Peek 5");
	B0(&f, KING);
	EXPECT(&f, "1 peek KC bj | 1 settle Lose 0, ins 15, stake 16, ret 15");
	HANDS(&f, 1, "(no round)");
	fx_free(&f);
}

static void test_peek_dealer_blackjack_settles_at_y_plus_1(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 10));
	B0(&f, TEN);
	B0(&f, ACE);
	B0(&f, R(9));
	B(&f, IDLE, PEEK(1, 1, 5), PEEK(2, 0, 0));
	EXPECT(&f, "1 Peek 5 | 2 Peek 0");
	B(&f, CARD(HJ_QUEEN, HJ_SPADES), HIT(1));
	EXPECT(&f, "1 peek QS bj | 1 settle Lose 0, ins 15, stake 15, ret 15"
	           " | 2 peek QS bj | 2 settle Lose 0, stake 10, ret 0"
	           " | 1 reject Hit no_round 0");
	assert_int_equal(hj_table_count(f.t), 0);
	fx_free(&f);
}

static void test_peek_without_dealer_blackjack_opens_window_y2(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(9)); /* 19 */
	B(&f, IDLE, PEEK(1, 1, 5));
	EXPECT(&f, "1 Peek 5");
	B(&f, R(5), STAND(1)); /* no blackjack */
	EXPECT(&f, "1 peek 5C clear | 1 reject Stand premature 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, R(7)); /* soft 18 */
	EXPECT(&f, "1 draw D 7C | 1 settle Win 20, ins 0, stake 15, ret 20");
	fx_free(&f);

	/* A void block after Peek shifts the card and the window. */
	start(&f, NULL);
	deal(&f, 1, 10, TEN, ACE, R(9));
	B(&f, IDLE, PEEK(1, 0, 0));
	B(&f, VOID, STAND(1));
	EXPECT(&f, "1 reject Stand premature 0");
	B(&f, R(5), STAND(1));
	EXPECT(&f, "1 peek 5C clear | 1 reject Stand premature 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	fx_free(&f);
}

static void test_player_blackjack_against_ace_peeks_first(void **state)
{
	fx f;

	(void)state;
	/* Dealer blackjack: push, and insurance pays (even money). */
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 10));
	B0(&f, ACE);
	B0(&f, ACE);
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC | 2 draw 0 KC");
	B(&f, IDLE, STAND(1), SURRENDER(2), PEEK(1, 1, 5), PEEK(2, 0, 0));
	EXPECT(&f, "1 reject Stand not_allowed 0"
	           " | 2 reject Surrender not_allowed 0 | 1 Peek 5 | 2 Peek 0");
	B0(&f, JACK);
	EXPECT(&f, "1 peek JC bj | 1 settle Push 10, ins 15, stake 15, ret 25"
	           " | 2 peek JC bj | 2 settle Push 10, stake 10, ret 10");
	fx_free(&f);

	/* No dealer blackjack: 6:5 at Y+1, insurance lost. */
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 10));
	B0(&f, ACE);
	B0(&f, ACE);
	B0(&f, KING);
	B(&f, IDLE, PEEK(1, 1, 5), PEEK(2, 0, 0));
	B(&f, R(9), STAND(1));
	EXPECT(
	    &f,
	    "1 peek 9C clear | 1 settle Blackjack 22, ins 0, stake 15, ret 22"
	    " | 2 peek 9C clear | 2 settle Blackjack 22, stake 10, ret 22"
	    " | 1 reject Stand no_round 0");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Player blackjack                                                   */

static void test_player_blackjack_against_2_to_9_settles_at_x3(void **state)
{
	(void)state;
	for (unsigned up = 2; up <= 9; up++) {
		fx f;

		start(&f, NULL);
		B(&f, IDLE, tx_bet(1, 10));
		B0(&f, ACE);
		B0(&f, R(up));
		B(&f, KING, STAND(1));
		EXPECT(&f,
		       "1 draw 0 KC | 1 settle Blackjack 22, stake 10, ret 22"
		       " | 1 reject Stand no_round 0");
		B0(&f, ACE);
		EXPECT(&f, "");
		fx_free(&f);
	}
}

static void test_player_blackjack_against_ten_draws_dealer_at_x4(void **st)
{
	static const uint8_t ups[] = {HJ_TEN, HJ_JACK, HJ_QUEEN, HJ_KING};

	(void)st;
	for (size_t i = 0; i < sizeof ups; i++) {
		fx f;

		/* No dealer blackjack: 6:5. */
		start(&f, NULL);
		B(&f, IDLE, tx_bet(1, 10));
		B0(&f, KING);
		B0(&f, R(ups[i]));
		B(&f, ACE, STAND(1), HIT(1), SURRENDER(1), PEEK(1, 0, 0));
		EXPECT(&f, "1 draw 0 AC | 1 reject Stand not_allowed 0"
		           " | 1 reject Hit not_allowed 0"
		           " | 1 reject Surrender not_allowed 0"
		           " | 1 reject Peek not_allowed 0");
		/* 16: the dealer would hit, but the round is decided. */
		B(&f, R(6), SURRENDER(1));
		EXPECT(&f,
		       "1 draw D 6C | 1 settle Blackjack 22, stake 10, ret 22"
		       " | 1 reject Surrender no_round 0");
		B0(&f, R(5));
		EXPECT(&f, "");
		fx_free(&f);

		/* Dealer blackjack: push.  A void X+4 shifts it to X+5. */
		start(&f, NULL);
		B(&f, IDLE, tx_bet(1, 10));
		B0(&f, KING);
		B0(&f, R(ups[i]));
		B0(&f, ACE);
		B0(&f, VOID);
		EXPECT(&f, "");
		B0(&f, ACE);
		EXPECT(&f, "1 draw D AC | 1 settle Push 10, stake 10, ret 10");
		fx_free(&f);
	}
}

static void test_blackjack_pays_6_to_5_rounded_down(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 1), tx_bet(2, 3), tx_bet(3, 4), tx_bet(4, 5),
	  tx_bet(5, 7), tx_bet(6, 9), tx_bet(7, 1001), tx_bet(8, E30));
	B0(&f, ACE);
	B0(&f, R(5));
	B0(&f, KING);
	assert_int_equal(fx_count(&f, HJ_EV_SETTLE), 8);
	HAS(&f, "1 settle Blackjack 2, stake 1, ret 2");
	HAS(&f, "2 settle Blackjack 6, stake 3, ret 6");
	HAS(&f, "3 settle Blackjack 8, stake 4, ret 8");
	HAS(&f, "4 settle Blackjack 11, stake 5, ret 11");
	HAS(&f, "5 settle Blackjack 15, stake 7, ret 15");
	HAS(&f, "6 settle Blackjack 19, stake 9, ret 19");
	HAS(&f, "7 settle Blackjack 2202, stake 1001, ret 2202");
	HAS(&f, "8 settle Blackjack 2200000000000000000000000000000,"
	        " stake 1000000000000000000000000000000,"
	        " ret 2200000000000000000000000000000");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Late surrender                                                     */

static void test_surrender_against_2_to_9_returns_half_at_once(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, 1), tx_bet(2, 10), tx_bet(3, 11), tx_bet(4, 999),
	  tx_bet(5, E30 - 1));
	B0(&f, TEN);
	B0(&f, R(6));
	B0(&f, R(6));
	B(&f, IDLE, SURRENDER(1), SURRENDER(2), SURRENDER(3), SURRENDER(4),
	  SURRENDER(5));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 0, stake 1, ret 0"
	           " | 2 Surrender@0 0 | 2 settle Surrender 5, stake 10, ret 5"
	           " | 3 Surrender@0 0 | 3 settle Surrender 5, stake 11, ret 5"
	           " | 4 Surrender@0 0"
	           " | 4 settle Surrender 499, stake 999, ret 499"
	           " | 5 Surrender@0 0"
	           " | 5 settle Surrender 499999999999999999999999999999,"
	           " stake 999999999999999999999999999999,"
	           " ret 499999999999999999999999999999");
	assert_int_equal(hj_table_count(f.t), 0);
	fx_free(&f);
}

static void test_surrender_against_ace_after_peek(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 11, TEN, ACE, R(6));
	B(&f, IDLE, PEEK(1, 1, 5));
	B0(&f, R(9));
	EXPECT(&f, "1 peek 9C clear");
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0"
	           " | 1 settle Surrender 5, ins 0, stake 16, ret 5");
	fx_free(&f);
}

static void test_surrender_against_ten_dealer_blackjack_takes_all(void **s)
{
	fx f;

	(void)s;
	start(&f, NULL);
	deal(&f, 1, 11, TEN, KING, R(6));
	B(&f, IDLE, SURRENDER(1), HIT(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 reject Hit not_allowed 0");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle Lose 0, stake 11, ret 0");
	fx_free(&f);
}

static void test_surrender_against_ten_without_blackjack_half(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 11, TEN, TEN, R(6));
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0");
	B0(&f, VOID);
	EXPECT(&f, "");
	B0(&f, R(5)); /* 15: only the second card, no dealer play */
	EXPECT(&f, "1 draw D 5C | 1 settle Surrender 5, stake 11, ret 5");
	B0(&f, R(2));
	EXPECT(&f, "");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Original bets only                                                 */

static void test_dealer_blackjack_after_double_loses_bet_only(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(6), KING, R(5)); /* 11 against K */
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 Double@0 10");
	B0(&f, R(9)); /* 20 */
	EXPECT(&f, "1 draw 0 9C");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC"
	           " | 1 settle DealerBlackjack 10, stake 20, ret 10");
	fx_free(&f);
}

static void test_dealer_blackjack_after_split_loses_bet_only(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), TEN, CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(2)); /* hand 0: 10 */
	B0(&f, R(9)); /* hand 1: 17 */
	B(&f, IDLE, STAND(1));
	B(&f, IDLE, HIT(1));
	B0(&f, ACE); /* hand 0: 21 */
	EXPECT(&f, "1 draw 0 AC");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle DealerBlackjack 0,"
	           " DealerBlackjack 10, stake 20, ret 10");
	fx_free(&f);

	/* A busted hand changes nothing: the loss is the Bet's stake. */
	start(&f, NULL);
	deal(&f, 1, 10, R(8), TEN, R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(9)); /* hand 0: 17 */
	B0(&f, R(5)); /* hand 1: 13 */
	B(&f, IDLE, HIT(1));
	B0(&f, KING); /* hand 1 busts */
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle DealerBlackjack 0,"
	           " DealerBlackjack 10, stake 20, ret 10");
	fx_free(&f);
}

/* The dealer never plays, so a blackjack behind the 10 is never found:
 * every busted stake is lost, not just the Bet's. */
static void test_all_hands_bust_against_ten_lose_every_stake(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, R(8), TEN, R(8));
	B(&f, IDLE, SPLIT(1, 10));
	B0(&f, R(4)); /* hand 0: 12 */
	B0(&f, R(5)); /* hand 1: 13 */
	B(&f, IDLE, HIT(1));
	B0(&f, KING);
	B(&f, IDLE, HIT(1));
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC | 1 settle Bust 0, Bust 0, stake 20, ret 0");
	B0(&f, ACE);
	EXPECT(&f, "");
	fx_free(&f);
}

static void test_split_after_peek_dealer_plays_after_last_hand(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), ACE, CARD(8, HJ_SPADES));
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(7));
	EXPECT(&f, "1 peek 7C clear");
	B(&f, IDLE, SPLIT(1, 10));
	EXPECT(&f, "1 Split@0 10");
	B0(&f, TEN);  /* hand 0: 18 */
	B0(&f, R(3)); /* hand 1: 11 */
	B(&f, IDLE, HIT(1));
	B0(&f, R(9)); /* hand 1: 20 */
	EXPECT(&f, "1 draw 1 9C");
	HANDS(&f, 1, "h0 8H 10C $10, h1 8S 3C 9C $10, D AC");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@1 0");
	B(&f, IDLE, STAND(1));
	EXPECT(&f, "1 Stand@0 0");
	B0(&f, R(7)); /* soft 18 */
	EXPECT(&f, "1 draw D 7C | 1 settle Push 10, Win 20, stake 20, ret 30");
	fx_free(&f);
}

static void test_dealer_blackjack_after_stand_against_ten(void **state)
{
	fx f;

	(void)state;
	start(&f, NULL);
	deal(&f, 1, 10, TEN, TEN, R(7));
	B(&f, IDLE, STAND(1));
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle DealerBlackjack 0, stake 10, ret 0");
	fx_free(&f);

	/* A three-card 21 loses to it too. */
	start(&f, NULL);
	deal(&f, 1, 10, R(5), QUEEN, R(6));
	B(&f, IDLE, HIT(1));
	B0(&f, KING);
	EXPECT(&f, "1 draw 0 KC");
	B0(&f, ACE);
	EXPECT(&f, "1 draw D AC | 1 settle DealerBlackjack 0, stake 10, ret 0");
	fx_free(&f);
}

/* ------------------------------------------------------------------ */
/* Timeouts                                                           */

static void test_timeout_stands_at_window_plus_timeout(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(7), R(9)); /* window 1004 */
	quiet(&f, 3);                     /* 1004..1006 */
	B0(&f, IDLE);                     /* 1007 */
	EXPECT(&f, "1 timeout Stand@0");
	assert_int_equal(fx_round(&f, 1)->seq, 1);
	B0(&f, KING); /* 17 */
	EXPECT(&f, "1 draw D KC | 1 settle Win 20, stake 10, ret 20");
	fx_free(&f);
}

static void test_action_in_timeout_block_is_accepted(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, R(5), R(7), R(6));
	quiet(&f, 3);
	B(&f, IDLE, HIT(1)); /* 1007 = window + timeout */
	EXPECT(&f, "1 Hit@0 0");
	B0(&f, R(5)); /* 16; window 1009 */
	EXPECT(&f, "1 draw 0 5C");
	quiet(&f, 3); /* 1009..1011 */
	B0(&f, IDLE);
	EXPECT(&f, "1 timeout Stand@0");
	B0(&f, TEN);
	EXPECT(&f, "1 draw D 10C | 1 settle Lose 0, stake 10, ret 0");
	fx_free(&f);
}

static void test_rejected_actions_do_not_reset_timeout(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, R(7), R(9));
	B(&f, IDLE, tx_act(1, HJ_HIT, 5));
	EXPECT(&f, "1 reject Hit wrong_value 5");
	B(&f, IDLE, PEEK(1, 0, 0));
	EXPECT(&f, "1 reject Peek not_allowed 0");
	B(&f, IDLE, DOUBLE(1, 10));
	EXPECT(&f, "1 reject Double not_allowed 10");
	/* The timeout comes after the block's own transactions. */
	B(&f, IDLE, tx_act(1, HJ_STAND, 1));
	EXPECT(&f, "1 reject Stand wrong_value 1 | 1 timeout Stand@0");
	fx_free(&f);
}

static void test_timeout_peeks_without_insurance_when_due(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(9)); /* 19 */
	B0(&f, IDLE);
	B(&f, IDLE, HIT(1));
	EXPECT(&f, "1 reject Hit not_allowed 0");
	B0(&f, IDLE);
	B0(&f, IDLE); /* 1007 */
	EXPECT(&f, "1 timeout Peek");
	assert_int_equal(fx_round(&f, 1)->insured, 0);
	B0(&f, R(9)); /* window 1009 */
	EXPECT(&f, "1 peek 9C clear");
	quiet(&f, 3);
	B0(&f, IDLE); /* 1012: Stand; the dealer plays from 1013 */
	EXPECT(&f, "1 timeout Stand@0");
	B0(&f, R(9)); /* soft 20 */
	EXPECT(&f, "1 draw D 9C | 1 settle Lose 0, stake 10, ret 0");
	fx_free(&f);

	/* A natural, timed out: Peek, then the dealer's blackjack pushes. */
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 10));
	B0(&f, ACE);
	B0(&f, ACE);
	B0(&f, KING);
	quiet(&f, 3);
	B0(&f, IDLE);
	EXPECT(&f, "1 timeout Peek");
	B0(&f, KING);
	EXPECT(&f, "1 peek KC bj | 1 settle Push 10, stake 10, ret 10");
	fx_free(&f);
}

static void test_timeout_on_hand_1_opens_hand_0_with_fresh_timer(void **s)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)s;
	start(&f, &r);
	deal(&f, 1, 10, CARD(8, HJ_HEARTS), R(6), CARD(8, HJ_SPADES));
	B(&f, IDLE, SPLIT(1, 10)); /* 1004 */
	B0(&f, TEN);               /* hand 0: 18 */
	B0(&f, R(9));              /* hand 1: 17; window 1007 */
	EXPECT(&f, "1 draw 1 9C");
	quiet(&f, 3);
	B0(&f, IDLE); /* 1010 */
	EXPECT(&f, "1 timeout Stand@1");
	quiet(&f, 3); /* 1011..1013 */
	B0(&f, IDLE); /* 1014 */
	EXPECT(&f, "1 timeout Stand@0");
	B0(&f, KING); /* 16 */
	EXPECT(&f, "1 draw D KC");
	B0(&f, R(2)); /* 18 */
	EXPECT(&f, "1 draw D 2C | 1 settle Push 10, Lose 0, stake 20, ret 10");
	fx_free(&f);
}

static void test_timeouts_come_after_the_blocks_transactions(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(9)); /* 19 */
	B(&f, IDLE, PEEK(1, 0, 0));
	B0(&f, R(8)); /* window 1006 */
	EXPECT(&f, "1 peek 8C clear");
	quiet(&f, 3);
	/* The Bet is checked while the round is still open; the timeout's
	 * Stand comes after it. */
	B(&f, IDLE, tx_bet(1, 10));
	EXPECT(&f, "1 reject Bet second_round 10 | 1 timeout Stand@0");
	/* The dealer's soft 19 settles the round before the block's Bet. */
	B(&f, R(8), tx_bet(1, 10));
	EXPECT(&f, "1 draw D 8C | 1 settle Push 10, stake 10, ret 10"
	           " | 1 Bet 10");
	fx_free(&f);
}

static void test_surrender_allowed_after_timed_out_peek(void **state)
{
	fx f;
	hj_rules r = rules_timeout(3);

	(void)state;
	start(&f, &r);
	deal(&f, 1, 10, TEN, ACE, R(6));
	quiet(&f, 3);
	B0(&f, IDLE);
	EXPECT(&f, "1 timeout Peek");
	B0(&f, R(9));
	EXPECT(&f, "1 peek 9C clear");
	B(&f, IDLE, SURRENDER(1));
	EXPECT(&f, "1 Surrender@0 0 | 1 settle Surrender 5, stake 10, ret 5");
	fx_free(&f);
}

static void test_heights_must_follow_each_other(void **state)
{
	hj_rules r = rules_bethash();
	hj_table *t;
	hj_card c = {.rank = 5, .suit = HJ_CLUBS};
	uint64_t h = 0;

	(void)state;
	assert_int_equal(hj_table_new(&r, &t), 0);
	assert_int_equal(hj_table_last_height(t, &h), 0);
	assert_int_equal(hj_table_apply_block(t, 1000, &c, NULL, 0, NULL, NULL),
	                 0);
	assert_int_equal(hj_table_apply_block(t, 1002, &c, NULL, 0, NULL, NULL),
	                 -EINVAL);
	assert_int_equal(hj_table_apply_block(t, 1000, &c, NULL, 0, NULL, NULL),
	                 -EINVAL);
	assert_int_equal(hj_table_last_height(t, &h), 1);
	assert_int_equal(h, 1000);
	assert_int_equal(hj_table_apply_block(t, 1001, &c, NULL, 0, NULL, NULL),
	                 0);
	assert_int_equal(hj_table_last_height(t, &h), 1);
	assert_int_equal(h, 1001);
	hj_table_free(t);
	hj_table_free(NULL);
}

/* ------------------------------------------------------------------ */
/* Bankroll: max_exposure                                             */

/* bethash with max_exposure m: a Bet of b exposes 4b. */
static hj_rules rules_exposure(hj_amount m)
{
	hj_rules r = rules_bethash();
	r.max_bet = 1000;
	r.max_exposure = m;
	return r;
}

static void test_exposure_limit_is_inclusive(void **state)
{
	fx f;
	hj_rules r = rules_exposure(100);

	(void)state;
	start(&f, &r);
	/* 40 + 60 = 100: exactly the limit; then even 1 (4) is too much. */
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 15), tx_bet(3, 1));
	EXPECT(&f, "1 Bet 10 | 2 Bet 15 | 3 reject Bet over_exposure 1");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 100);
	assert_null(fx_round(&f, 3));
	assert_int_equal(hj_table_count(f.t), 2);
	fx_free(&f);

	r = rules_exposure(99);
	start(&f, &r);
	/* One unit over: 40 + 60 = 100 > 99; 40 + 56 = 96 fits, then 4
	 * more would make 100. */
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 15), tx_bet(2, 14), tx_bet(3, 1));
	EXPECT(&f, "1 Bet 10 | 2 reject Bet over_exposure 15 | 2 Bet 14"
	           " | 3 reject Bet over_exposure 1");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 96);
	fx_free(&f);

	/* No limit: the exposure is still counted. */
	start(&f, NULL);
	B(&f, IDLE, tx_bet(1, E30), tx_bet(2, E30));
	EXPECT(&f, "1 Bet 1000000000000000000000000000000"
	           " | 2 Bet 1000000000000000000000000000000");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 8 * E30);
	fx_free(&f);
}

/* The Bet's own defects come first: over_exposure is the last check. */
static void test_exposure_checked_after_the_bets_own_defects(void **state)
{
	fx f;
	hj_rules r = rules_exposure(4000);

	(void)state;
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 1000)); /* 4000: the table is full */
	B(&f, VOID, tx_bet(1, 1), tx_bet_side(2, 1, 5, 0), tx_bet(3, 1001),
	  tx_bet(4, 0), tx_bet(5, 1));
	EXPECT(&f, "1 reject Bet second_round 1"
	           " | 2 reject Bet side_bets_not_offered 1"
	           " | 3 reject Bet bet_out_of_limits 1001"
	           " | 4 reject Bet bet_out_of_limits 0"
	           " | 5 reject Bet over_exposure 1");
	/* No round is named: the player has none. */
	assert_false(f.ev[4].has_round);
	ASSERT_AMOUNT(hj_table_exposure(f.t), 4000);
	fx_free(&f);
}

/*
 * A round's exposure is fixed at its Bet: Double, Split and insurance are
 * already in it and are never refused for exposure.  It is released when
 * the round settles, in the block's draw step (a Bet in that block fits),
 * or by a transaction (a later Bet in the same block fits); a timeout comes
 * after the block's transactions, so its round frees room from the next
 * block on.
 */
static void test_exposure_released_when_round_settles(void **state)
{
	fx f;
	hj_rules r = rules_exposure(80);

	(void)state;
	r.timeout_blocks = 2;
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 10)); /* 1000: 40 + 40 */
	EXPECT(&f, "1 Bet 10 | 2 Bet 10");
	B(&f, R(5), tx_bet(3, 1));
	EXPECT(&f, "1 draw 0 5C | 2 draw 0 5C | 3 reject Bet over_exposure 1");
	B0(&f, R(9));
	B0(&f, R(6)); /* both 11 against 9; windows open at 1004 */
	/* Full, yet a Double is accepted: it was counted at the Bet. */
	B(&f, IDLE, DOUBLE(1, 10), tx_bet(3, 1));
	EXPECT(&f, "1 Double@0 10 | 3 reject Bet over_exposure 1");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 80);
	/* 1005: player 1's 11 + 10 = 21 stands; the dealer draws from 1006.
	 * Player 2 surrenders: settled by the transaction, so the Bet after
	 * it fits, and the one after that does not. */
	B(&f, TEN, SURRENDER(2), tx_bet(3, 10), tx_bet(4, 1));
	EXPECT(&f, "1 draw 0 10C | 2 Surrender@0 0"
	           " | 2 settle Surrender 5, stake 10, ret 5 | 3 Bet 10"
	           " | 4 reject Bet over_exposure 1");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 80);
	/* 1006: the dealer makes 9 + 8 = 17 and player 1's round settles in
	 * the draw step: a Bet in the same block fits. */
	B(&f, R(8), tx_bet(4, 10), tx_bet(5, 1));
	EXPECT(&f, "1 draw D 8C | 1 settle Win 40, stake 20, ret 40"
	           " | 3 draw 0 8C | 4 Bet 10 | 5 reject Bet over_exposure 1");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 80);
	B0(&f, R(9)); /* 1007 */
	EXPECT(&f, "3 draw D 9C | 4 draw 0 9C");
	B0(&f, R(7)); /* 1008: player 3 has 8 + 7 = 15; window at 1009 */
	EXPECT(&f, "3 draw 0 7C | 4 draw D 7C");
	B0(&f, IDLE); /* 1009: player 4 has 9 + 2 = 11; window at 1010 */
	EXPECT(&f, "4 draw 0 2D");
	B0(&f, IDLE); /* 1010 */
	EXPECT(&f, "");
	/* 1011 = 1009 + 2: player 3 stands by timeout after this block's
	 * transactions, so the Bet in it is still refused. */
	B(&f, IDLE, tx_bet(5, 1));
	EXPECT(&f, "5 reject Bet over_exposure 1 | 3 timeout Stand@0");
	/* 1012: the dealer's 19 settles player 3 in the draw step. */
	B(&f, TEN, tx_bet(5, 1));
	EXPECT(&f, "3 draw D 10C | 3 settle Lose 0, stake 10, ret 0"
	           " | 5 Bet 1 | 4 timeout Stand@0");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 44);
	fx_free(&f);
}

/* Rounds restored from storage count as if they had been dealt here. */
static void test_exposure_counts_restored_rounds(void **state)
{
	fx f, g;
	hj_rules r = rules_exposure(100);

	(void)state;
	start(&f, &r);
	B(&f, IDLE, tx_bet(1, 10), tx_bet(2, 12));
	B0(&f, R(5));
	ASSERT_AMOUNT(hj_table_exposure(f.t), 88);

	fx_init(&g, &r);
	for (size_t i = 0; i < hj_table_count(f.t); i++)
		assert_int_equal(hj_table_restore(g.t, hj_table_round(f.t, i)),
		                 0);
	hj_table_set_last_height(g.t, 1001);
	g.height = 1002;
	ASSERT_AMOUNT(hj_table_exposure(g.t), 88);
	/* A restore that fails changes nothing. */
	assert_int_equal(hj_table_restore(g.t, hj_table_round(f.t, 0)),
	                 -EEXIST);
	ASSERT_AMOUNT(hj_table_exposure(g.t), 88);
	/* 88 + 12 = 100 fits, 88 + 16 does not: the same on both tables. */
	B(&f, R(9), tx_bet(3, 4), tx_bet(4, 3));
	FX(&g, R(9), tx_bet(3, 4), tx_bet(4, 3));
	EXPECT(&f, "1 draw D 9C | 2 draw D 9C | 3 reject Bet over_exposure 4"
	           " | 4 Bet 3");
	EXPECT(&g, "1 draw D 9C | 2 draw D 9C | 3 reject Bet over_exposure 4"
	           " | 4 Bet 3");
	ASSERT_AMOUNT(hj_table_exposure(g.t), 100);
	fx_free(&f);
	fx_free(&g);
}

/*
 * A restored round waiting for an action with every hand finished: the
 * codec refuses such a row (test_serial), and the table, given one anyway,
 * does not act on it.  Before issue 11 its timeout applied a Stand to
 * hands[-1], overwriting the dealer's up card (UBSan saw the index).
 */
static void test_no_action_without_an_active_hand(void **state)
{
	fx f, g;
	hj_rules r = rules_bethash();
	hj_round bad;

	(void)state;
	fx_init(&f, &r);
	FX(&f, R(2), tx_bet(1, 100));
	FX0(&f, R(9));
	FX0(&f, R(7));
	FX0(&f, R(5));
	bad = *fx_round(&f, 1);
	assert_true(hj_round_waiting(&bad));
	bad.hands[0].flags |= HJ_HF_DONE;
	assert_int_equal(hj_round_active_hand(&bad), -1);

	fx_init(&g, &r);
	assert_int_equal(hj_table_restore(g.t, &bad), 0);
	hj_table_set_last_height(g.t, bad.window_open + r.timeout_blocks);
	g.height = bad.window_open + r.timeout_blocks + 1;
	FX0(&g, R(4)); /* past the timeout */
	assert_int_equal(g.nev, 0);
	assert_int_equal(hj_table_count(g.t), 1);
	assert_memory_equal(hj_table_round(g.t, 0), &bad, sizeof bad);
	/* An action is refused as before. */
	FX(&g, R(4), tx_act(1, HJ_STAND, 0));
	assert_int_equal(g.nev, 1);
	assert_int_equal(g.ev[0].type, HJ_EV_REJECT);
	assert_int_equal(g.ev[0].reason, HJ_R_NOT_ALLOWED);
	assert_memory_equal(hj_table_round(g.t, 0), &bad, sizeof bad);
	fx_free(&f);
	fx_free(&g);
}

/*
 * The worked example of docs/PROTOCOL.md section 9.4: Bitcoin blocks 15 to
 * 22 (round 1 of docs/PROTOCOL.md section 12), max_exposure 600 000.  A bets
 * 100 000 at 15 (400 000), E 50 000 at 16 (200 000: exactly the limit), F's 1
 * at 17 and 100 000 at 21 are refused; A's Double at 19 is not checked; A's
 * round settles in block 22's draw step, and F's 100 000 in block 22 fits.
 */
static void test_exposure_protocol_example(void **state)
{
	enum { A = 1, E = 5, F = 6 };
	fx f;
	hj_rules r = rules_bethash();

	(void)state;
	r.min_bet = 1;
	r.max_bet = 100000;
	r.max_exposure = 600000;
	r.timeout_blocks = 12;
	start(&f, &r);
	B(&f, CARD(3, HJ_SPADES), tx_bet(A, 100000)); /* 15 */
	EXPECT(&f, "1 Bet 100000");
	B(&f, CARD(5, HJ_SPADES), tx_bet(E, 50000)); /* 16 */
	EXPECT(&f, "1 draw 0 5S | 5 Bet 50000");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 600000);
	B(&f, CARD(9, HJ_CLUBS), tx_bet(F, 1)); /* 17 */
	EXPECT(&f, "1 draw D 9C | 5 draw 0 9C | 6 reject Bet over_exposure 1");
	B(&f, CARD(6, HJ_DIAMONDS), DOUBLE(A, 100000)); /* 18 */
	EXPECT(&f, "1 draw 0 6D | 5 draw D 6D"
	           " | 1 reject Double premature 100000");
	B(&f, CARD(6, HJ_CLUBS), DOUBLE(A, 100000)); /* 19 */
	EXPECT(&f, "5 draw 0 6C | 1 Double@0 100000");
	B0(&f, CARD(7, HJ_DIAMONDS));                   /* 20: A 18 */
	B(&f, CARD(4, HJ_DIAMONDS), tx_bet(F, 100000)); /* 21: dealer 13 */
	EXPECT(&f, "1 draw D 4D | 6 reject Bet over_exposure 100000");
	B(&f, CARD(HJ_JACK, HJ_SPADES), tx_bet(F, 100000)); /* 22 */
	EXPECT(&f, "1 draw D JS | 1 settle Win 400000, stake 200000,"
	           " ret 400000 | 6 Bet 100000");
	ASSERT_AMOUNT(hj_table_exposure(f.t), 600000);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bet_deals_player_dealer_player_from_x_plus_1),
	    cmocka_unit_test(test_void_blocks_shift_deal_and_dealer_draws),
	    cmocka_unit_test(test_void_block_shifts_hit_card),
	    cmocka_unit_test(
	        test_each_block_card_goes_to_every_round_owing_a_draw),
	    cmocka_unit_test(test_premature_actions_rejected_and_refunded),
	    cmocka_unit_test(
	        test_stand_on_hand_1_opens_hand_0_window_at_y_plus_1),
	    cmocka_unit_test(
	        test_bet_accepted_in_block_where_previous_round_settled),
	    cmocka_unit_test(test_second_bet_while_round_open_rejected),
	    cmocka_unit_test(test_transactions_apply_in_block_order),
	    cmocka_unit_test(test_action_without_open_round_rejected_no_round),
	    cmocka_unit_test(test_action_while_dealer_plays_not_allowed),
	    cmocka_unit_test(test_hit_stand_surrender_need_zero_value),
	    cmocka_unit_test(test_malformed_rejected_with_reason_and_refunded),
	    cmocka_unit_test(test_side_bets_rejected_and_refunded),
	    cmocka_unit_test(test_bet_limits_inclusive),
	    cmocka_unit_test(test_deposits_and_failed_txs_change_nothing),
	    cmocka_unit_test(test_double_on_hard_9_10_11),
	    cmocka_unit_test(test_double_refused_outside_hard_9_to_11),
	    cmocka_unit_test(test_double_only_on_first_two_cards),
	    cmocka_unit_test(test_double_value_must_equal_hand_stake),
	    cmocka_unit_test(test_split_pairs_by_value_ten_and_face),
	    cmocka_unit_test(test_split_refused_unless_non_ace_pair),
	    cmocka_unit_test(test_split_refused_after_hit),
	    cmocka_unit_test(test_split_value_must_equal_hand_stake),
	    cmocka_unit_test(test_split_hand_0_keeps_card_1_hand_1_plays_first),
	    cmocka_unit_test(test_one_split_only_no_double_or_surrender_after),
	    cmocka_unit_test(test_second_split_of_active_hand_refused),
	    cmocka_unit_test(
	        test_split_hand_21_on_second_card_is_not_blackjack),
	    cmocka_unit_test(test_hand_reaching_21_stands_by_itself),
	    cmocka_unit_test(test_split_hand_1_reaching_21_opens_hand_0),
	    cmocka_unit_test(test_dealer_skips_play_when_every_hand_busts),
	    cmocka_unit_test(test_dealer_hits_soft_17),
	    cmocka_unit_test(test_dealer_stands_on_hard_17),
	    cmocka_unit_test(test_dealer_stands_on_soft_18),
	    cmocka_unit_test(
	        test_clear_peek_dealer_draws_second_card_in_dealer_play),
	    cmocka_unit_test(
	        test_clear_peek_skips_blackjack_blocks_for_second_card),
	    cmocka_unit_test(test_peek_is_the_only_first_action_against_ace),
	    cmocka_unit_test(test_peek_insurance_value_is_half_bet_floored),
	    cmocka_unit_test(test_peek_dealer_blackjack_settles_at_y_plus_1),
	    cmocka_unit_test(
	        test_peek_without_dealer_blackjack_opens_window_y2),
	    cmocka_unit_test(test_player_blackjack_against_ace_peeks_first),
	    cmocka_unit_test(
	        test_player_blackjack_against_2_to_9_settles_at_x3),
	    cmocka_unit_test(
	        test_player_blackjack_against_ten_draws_dealer_at_x4),
	    cmocka_unit_test(test_blackjack_pays_6_to_5_rounded_down),
	    cmocka_unit_test(
	        test_surrender_against_2_to_9_returns_half_at_once),
	    cmocka_unit_test(test_surrender_against_ace_after_peek),
	    cmocka_unit_test(
	        test_surrender_against_ten_dealer_blackjack_takes_all),
	    cmocka_unit_test(test_surrender_against_ten_without_blackjack_half),
	    cmocka_unit_test(test_dealer_blackjack_after_double_loses_bet_only),
	    cmocka_unit_test(test_dealer_blackjack_after_split_loses_bet_only),
	    cmocka_unit_test(test_all_hands_bust_against_ten_lose_every_stake),
	    cmocka_unit_test(
	        test_split_after_peek_dealer_plays_after_last_hand),
	    cmocka_unit_test(test_dealer_blackjack_after_stand_against_ten),
	    cmocka_unit_test(test_timeout_stands_at_window_plus_timeout),
	    cmocka_unit_test(test_action_in_timeout_block_is_accepted),
	    cmocka_unit_test(test_rejected_actions_do_not_reset_timeout),
	    cmocka_unit_test(test_timeout_peeks_without_insurance_when_due),
	    cmocka_unit_test(
	        test_timeout_on_hand_1_opens_hand_0_with_fresh_timer),
	    cmocka_unit_test(test_timeouts_come_after_the_blocks_transactions),
	    cmocka_unit_test(test_surrender_allowed_after_timed_out_peek),
	    cmocka_unit_test(test_heights_must_follow_each_other),
	    cmocka_unit_test(test_exposure_limit_is_inclusive),
	    cmocka_unit_test(test_exposure_checked_after_the_bets_own_defects),
	    cmocka_unit_test(test_exposure_released_when_round_settles),
	    cmocka_unit_test(test_exposure_counts_restored_rounds),
	    cmocka_unit_test(test_exposure_protocol_example),
	    cmocka_unit_test(test_no_action_without_an_active_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
