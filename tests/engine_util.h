/*
 * A small harness for driving the table in tests: players are numbered,
 * cards are card codes (0 = void block), and every event of the last block
 * is recorded with a snapshot of its round.
 */
#ifndef HJ_TEST_ENGINE_UTIL_H
#define HJ_TEST_ENGINE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "table.h"

#define CARD(rank, suit) hj_code((rank), (suit))
/* Suit does not matter for most tests: clubs. */
#define R(rank) hj_code((rank), HJ_CLUBS)

typedef struct ev_rec {
	hj_ev type;
	hj_act act;
	int hand;
	uint8_t card;
	hj_reason reason;
	hj_amount amount;
	uint8_t player; /* first byte of the sender or round player */
	int has_round;
	hj_round round;          /* snapshot of the round after the event */
	hj_settlement st;        /* SETTLE */
	hj_side_settlement side; /* SIDE */
	uint8_t dealer_bj;       /* PEEK */
	uint32_t tx_index;
} ev_rec;

typedef struct fx {
	hj_table *t;
	uint64_t height; /* height of the next block */
	ev_rec *ev;
	size_t nev, cap;
	uint32_t txseq; /* makes transaction ids unique */
} fx;

/* bethash with min_bet 1, max_bet 10^30, timeout 100. */
hj_rules rules_bethash(void);
/* The named preset with the same limits and timeout. */
hj_rules rules_preset(const char *name);

/* The first block applied is block 1000. */
void fx_init(fx *f, const hj_rules *rules);
void fx_free(fx *f);

/* Applies the next block; events replace those of the previous block.
 * Transaction ids and indexes are filled in. */
void fx_block(fx *f, uint8_t card, hj_action *txs, size_t n);
/* The same with the transactions' own txids (fx_block numbers them). */
void fx_block_ids(fx *f, uint8_t card, hj_action *txs, size_t n);
#define FX(f, card, ...)                                                       \
	do {                                                                   \
		hj_action txs_[] = {__VA_ARGS__};                              \
		fx_block((f), (card), txs_, sizeof txs_ / sizeof txs_[0]);     \
	} while (0)
#define FX0(f, card) fx_block((f), (card), NULL, 0)

hj_action tx_bet(uint8_t player, hj_amount value);
hj_action tx_act(uint8_t player, hj_act act, hj_amount value);
hj_action tx_peek(uint8_t player, int insurance, hj_amount value);
hj_action tx_malformed(uint8_t player, hj_act act, hj_reason why,
                       hj_amount value);
hj_action tx_deposit(uint8_t player, hj_amount value);
hj_action tx_failed(uint8_t player, hj_amount value);
hj_action tx_bet_side(uint8_t player, hj_amount value, uint64_t pp,
                      uint64_t t3);

/* n-th (0-based) event of a type in the last block, or NULL. */
const ev_rec *fx_find(const fx *f, hj_ev type, size_t nth);
size_t fx_count(const fx *f, hj_ev type);
/* The open round of a player, or NULL. */
const hj_round *fx_round(const fx *f, uint8_t player);

#endif
