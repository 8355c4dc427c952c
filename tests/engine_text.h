/*
 * Engine tests as text: a block's events rendered as one line, and the
 * helpers that drive a table block by block (test_engine.c,
 * test_rulesets.c).  Every settlement is checked against the money the
 * round's accepted actions carried.
 *
 *   1 Bet 10                  player 1's Bet accepted, value 10
 *   1 Hit@0 0                 action accepted on hand 0, value 0
 *   1 Peek 5                  Peek accepted (no hand), value 5
 *   1 draw 0 8H               the block's card went to hand 0 ("D": dealer)
 *   1 peek 7C clear           the block's card was a peek card: no dealer
 *                             blackjack, set aside ("bj": blackjack, the
 *                             card is then the dealer's second)
 *   1 skip KC                 the card would have given the dealer a
 *                             blackjack after a clear peek: skipped
 *   1 side pp perfectPair 26 t3 sidebetLost 0
 *                             side bets settled at the third card
 *   1 reject Hit premature 7  rejection with its reason and refund
 *   1 timeout Stand@1         default action applied to hand 1
 *   1 settle Win 20, Push 10, ins 15, stake 25, ret 45
 *                             per-hand results and returns, the insurance
 *                             return when insured, totals
 *   1 deposit, 1 ignored      plain transfer, failed receipt
 */
#ifndef HJ_TEST_ENGINE_TEXT_H
#define HJ_TEST_ENGINE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "engine_util.h"

/* 10^30 base units: rules_bethash()'s max_bet. */
#define E30 ((hj_amount)1000000000000000ull * 1000000000000000ull)

#define ACE   R(HJ_ACE)
#define TEN   R(HJ_TEN)
#define JACK  R(HJ_JACK)
#define QUEEN R(HJ_QUEEN)
#define KING  R(HJ_KING)
/* A card for blocks where no round should draw: a misdelivery shows. */
#define IDLE CARD(2, HJ_DIAMONDS)
#define VOID 0

#define HIT(p)          tx_act((p), HJ_HIT, 0)
#define STAND(p)        tx_act((p), HJ_STAND, 0)
#define SURRENDER(p)    tx_act((p), HJ_SURRENDER, 0)
#define DOUBLE(p, v)    tx_act((p), HJ_DOUBLE, (v))
#define SPLIT(p, v)     tx_act((p), HJ_SPLIT, (v))
#define PEEK(p, ins, v) tx_peek((p), (ins), (v))

#define ASSERT_AMOUNT(got, want) assert_true((got) == (want))

/* The last block's events as one line. */
const char *events(const fx *f);
/* Whether one of the last block's events renders exactly as s. */
int has(const fx *f, const char *s);
/* The open round of player p: "h0 8H 3C $10, h1 8S $10, D 6C". */
const char *hands(const fx *f, uint8_t p);

#define EXPECT(f, s) assert_string_equal(events(f), (s))
#define HAS(f, s)                                                              \
	do {                                                                   \
		if (!has((f), (s)))                                            \
			fail_msg("no event \"%s\" in \"%s\"", (s), events(f)); \
	} while (0)
#define HANDS(f, p, s) assert_string_equal(hands((f), (p)), (s))

/* Applies a block and checks every settlement's money. */
void step(fx *f, uint8_t card, hj_action *txs, size_t n);
#define B(f, card, ...)                                                        \
	do {                                                                   \
		hj_action t_[] = {__VA_ARGS__};                                \
		step((f), (card), t_, sizeof t_ / sizeof t_[0]);               \
	} while (0)
#define B0(f, card) step((f), (card), NULL, 0)

/* A fresh table under rules (bethash when NULL). */
void start(fx *f, const hj_rules *rules);
/* bethash with the given timeout. */
hj_rules rules_timeout(uint32_t blocks);
/*
 * Bet by p at the next block X, then X+1 c1 to hand 0, X+2 up to the dealer,
 * X+3 c2 to hand 0 (no void blocks).  Other rounds may draw alongside.
 * Returns X.
 */
uint64_t deal(fx *f, uint8_t p, hj_amount bet, uint8_t c1, uint8_t up,
              uint8_t c2);
/* Idle blocks: nothing may happen in any of them. */
void quiet(fx *f, int n);
/* The fields an action or a timeout would change. */
void assert_same_round(const hj_round *a, const hj_round *b);

#endif
