/*
 * One player's round: its state, the events the table reports about it, and
 * its compact serialised form.  The struct is public so that the table, the
 * codec, the daemon's database and tests can read it; only game/ writes it.
 */
#ifndef HJ_ROUND_H
#define HJ_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "rules.h"
#include "seed.h"

/* A player hand stops drawing at 21: at most 21 cards (all counting 1);
 * a dealer stops at 17.  24 bounds both. */
#define HJ_MAX_CARDS 24
/* Draws one action can schedule: the Bet's three. */
#define HJ_MAX_PENDING 4
/* Draw target of the dealer in pending[] and in DRAW events. */
#define HJ_DEALER 0xff
/* Draw target of a peek card in pending[]: it only decides whether the
 * dealer has blackjack (docs/PROTOCOL.md section 5.1); without one it is
 * set aside. */
#define HJ_PEEK_CARD 0xfe

enum hj_phase {
	HJ_PH_DEAL = 0, /* the Bet's three cards are being dealt */
	HJ_PH_PLAY = 1, /* player hands in play (their draws may be pending) */
	HJ_PH_DEALER = 2, /* every hand finished; the dealer draws */
	HJ_PH_DONE = 3,   /* settled; the table drops it (never stored) */
};

enum hj_hand_flag {
	HJ_HF_DONE = 1, /* stood, doubled, reached 21, busted, surrendered */
	HJ_HF_BUST = 2,
	HJ_HF_DOUBLED = 4,
	HJ_HF_SURRENDER = 8,
	HJ_HF_SPLIT = 16, /* this hand came from a split */
};

/* Side bet results (docs/PROTOCOL.md section 7.2).  Names in hj_side_name(). */
typedef enum hj_side_result {
	HJ_SB_NONE = 0,
	HJ_SB_LOST,            /* "sidebetLost" */
	HJ_SB_PERFECT_PAIR,    /* "perfectPair": pays pp[0] */
	HJ_SB_COLOURED_PAIR,   /* "colouredPair": pp[1] */
	HJ_SB_MIXED_PAIR,      /* "mixedPair": pp[2] */
	HJ_SB_SUITED_TRIPS,    /* "suitedTrips": t3[0] */
	HJ_SB_STRAIGHT_FLUSH,  /* "straightFlush": t3[1] */
	HJ_SB_THREE_OF_A_KIND, /* "threeOfAKind": t3[2] */
	HJ_SB_STRAIGHT,        /* "straight": t3[3] */
	HJ_SB_FLUSH,           /* "flush": t3[4] */
	HJ_SB_COUNT
} hj_side_result;

const char *hj_side_name(int result);

/* Perfect Pairs of the player's first two cards (card codes). */
hj_side_result hj_perfect_pairs(uint8_t c1, uint8_t c2);
/* 21+3 of the player's first two cards and the dealer's up card. */
hj_side_result hj_twenty_one_plus_three(uint8_t c1, uint8_t c2, uint8_t up);

typedef struct hj_hand {
	hj_amount stake; /* original or split stake, doubled stake included */
	uint8_t n;
	uint8_t flags; /* enum hj_hand_flag */
	uint8_t cards[HJ_MAX_CARDS];
} hj_hand;

typedef struct hj_round {
	hj_id id;            /* the Bet's transaction hash */
	hj_id player;        /* EVM address or x-only key */
	uint64_t bet_height; /* block X of the Bet */
	uint32_t bet_tx_index;
	hj_amount bet;                /* main stake */
	hj_amount insurance;          /* insurance stake, when insured */
	hj_amount side_pp, side_t3;   /* side stakes, 0: none */
	uint8_t pp_result, t3_result; /* enum hj_side_result once the third
	                                 card is dealt; 0 before */
	uint8_t insured;
	uint8_t phase;      /* enum hj_phase */
	uint8_t peek_due;   /* up card is an ace and Peek has not happened */
	uint8_t peek_clear; /* a peek card found no dealer blackjack: the
	                       dealer's second card skips blocks that would
	                       make one */
	uint8_t nhands;     /* 1 .. HJ_MAX_HANDS */
	uint8_t npending;   /* scheduled draws, first one next */
	uint8_t pending[HJ_MAX_PENDING]; /* hand index or HJ_DEALER */
	uint64_t window_open; /* first block an action is valid in; meaningful
	                         while phase is PLAY and npending is 0 */
	uint32_t seq;         /* actions after the Bet, accepted or timed out */
	uint32_t decisions;   /* of those, the ones other than Peek */
	uint8_t dealer_n;
	uint8_t dealer[HJ_MAX_CARDS];
	hj_hand hands[HJ_MAX_HANDS];
} hj_round;

/* Index of the active hand (the unfinished one with the highest index), or
 * -1 when every hand is finished.  Inline, like the round's other
 * queries: table.c and next.c both ask it, and neither owns the round. */
static inline int hj_round_active_hand(const hj_round *r)
{
	for (int i = r->nhands - 1; i >= 0; i--)
		if (!(r->hands[i].flags & HJ_HF_DONE))
			return i;
	return -1;
}

/* The round waits for a player action (a window is open). */
static inline int hj_round_waiting(const hj_round *r)
{
	return r->phase == HJ_PH_PLAY && r->npending == 0;
}

/* Result of one hand at settlement.  Names in hj_status_name(). */
typedef enum hj_status {
	HJ_ST_NONE = 0,
	HJ_ST_BLACKJACK, /* "Blackjack": pays bj_num:bj_den */
	HJ_ST_WIN,       /* "Win" */
	HJ_ST_PUSH,      /* "Push" */
	HJ_ST_LOSE,      /* "Lose" */
	HJ_ST_BUST,      /* "Bust" */
	HJ_ST_SURRENDER, /* "Surrender": half the stake back */
	HJ_ST_DEALER_BJ, /* "DealerBlackjack": dealer blackjack found after the
	                    player doubled, split or stood with a 10-valued up
	                    card under peek = ace; only the original stake is
	                    lost */
} hj_status;

const char *hj_status_name(int status);

typedef struct hj_settlement {
	uint8_t status[HJ_MAX_HANDS];
	hj_amount ret[HJ_MAX_HANDS]; /* returned per hand, stake included */
	hj_amount ins_ret;           /* insurance return (0 when lost) */
	hj_amount total_stake;       /* bet + doubles + splits + insurance */
	hj_amount total_ret;         /* sum of ret[] and ins_ret */
} hj_settlement;

typedef enum hj_ev {
	HJ_EV_DRAW = 0, /* the block's card went to a hand or the dealer */
	HJ_EV_ACTION,   /* a transaction's action was accepted */
	HJ_EV_REJECT,   /* a transaction with the magic was rejected */
	HJ_EV_DEPOSIT,  /* a transfer without the magic */
	HJ_EV_IGNORED,  /* a transaction whose receipt failed */
	HJ_EV_TIMEOUT,  /* the default action was applied */
	HJ_EV_SETTLE,   /* the round ended; it is removed after this event */
	HJ_EV_PEEK,     /* the block's card was a peek card (card, dealer_bj) */
	HJ_EV_SKIP,     /* the block's card would have made the dealer's
	                   second card a blackjack after a clear peek: the
	                   draw moves to the next block (card) */
	HJ_EV_SIDE,     /* the side bets settled at the third card (side) */
	HJ_EV_COMMIT,   /* a valid Commit: its chain is scheduled (commit) */
} hj_ev;

/* The side bets of a round at its third card. */
typedef struct hj_side_settlement {
	uint8_t pp, t3;           /* enum hj_side_result; NONE: no stake */
	hj_amount pp_ret, t3_ret; /* returned, stake included; 0 when lost */
} hj_side_settlement;

typedef struct hj_event {
	hj_ev type;
	/* The round after the event; NULL for DEPOSIT, IGNORED, and REJECT when
	 * no open round matched.  Borrowed: valid during the callback only. */
	const hj_round *round;
	const hj_action *tx; /* ACTION, REJECT, DEPOSIT, IGNORED, COMMIT */
	hj_act act;          /* ACTION, TIMEOUT, REJECT (may be NONE) */
	int hand;            /* DRAW: hand index or HJ_DEALER; ACTION and
	                        TIMEOUT: the hand acted on, -1 for Bet, Peek */
	uint8_t card;        /* DRAW, PEEK, SKIP: card code */
	uint8_t dealer_bj;   /* PEEK: the card makes a dealer blackjack (it is
	                        then the dealer's second card) */
	hj_reason reason;    /* REJECT */
	hj_amount amount;    /* ACTION: stake it added; REJECT: refund */
	const hj_settlement *settle;    /* SETTLE */
	const hj_side_settlement *side; /* SIDE */
	const hj_commit *commit;        /* COMMIT */
} hj_event;

typedef void (*hj_sink)(void *ctx, const hj_event *ev);

/*
 * Serialised form, for the daemon's database: a version byte, then every
 * field in a fixed order.  Decoding is strict: wrong version, wrong length,
 * out-of-range fields and inconsistent state are all rejected.
 */
#define HJ_ROUND_CODEC_VERSION 2
#define HJ_ROUND_ENCODED_MAX   512

/* Writes r into buf (HJ_ROUND_ENCODED_MAX bytes) and returns the length. */
size_t hj_round_encode(const hj_round *r, uint8_t buf[HJ_ROUND_ENCODED_MAX]);

/* Returns 0 and fills *out, or -EINVAL with the reason in err. */
int hj_round_decode(const uint8_t *buf, size_t n, hj_round *out, char *err,
                    size_t errlen);

#endif
