/*
 * What a round shows (docs/PROTOCOL.md section 14): the actions a
 * transaction would be accepted for while the round's window is open,
 * with the value each must carry.  A pure function of the round and the
 * rules, and the same legality the table applies (table.c's check() calls
 * hj_round_legal), so a listed action is accepted and an unlisted one
 * rejected.
 */
#ifndef HJ_NEXT_H
#define HJ_NEXT_H

#include <stddef.h>
#include <stdint.h>

#include "round.h"
#include "rules.h"

/*
 * The player has no move left in round r, now or later: the dealer draws
 * (dealer play, or its second card after a Surrender or for a natural
 * against a 10-valued card under peek = ace and none), or under peek =
 * ace_ten a natural against a 10 waits for the peek card that settles it.
 * An action then is not_allowed, not premature (docs/PROTOCOL.md section
 * 9.2).
 */
int hj_round_no_more_moves(const hj_round *r);

/*
 * Whether act (with the Peek's insurance flag) is a legal move of round r
 * at a block of its open window, and the value it must carry (*need):
 * HJ_OK; HJ_R_NOT_ALLOWED, also when no move is left
 * (hj_round_no_more_moves); or HJ_R_PREMATURE when the round waits for
 * cards before its next window.  The block itself is the caller's: an
 * action before r->window_open is premature too.
 */
hj_reason hj_round_legal(const hj_rules *ru, const hj_round *r, hj_act act,
                         int insurance, hj_amount *need);

/* At most: Split, Hit, Double, Stand, Surrender, and Peek with and without
 * insurance. */
#define HJ_NEXT_MAX 7

typedef struct hj_next_action {
	hj_act act;
	uint8_t insurance; /* Peek: with insurance */
	hj_amount value;   /* what the transaction must carry */
} hj_next_action;

typedef struct hj_next {
	size_t n; /* 0 while cards are due, the dealer plays, or settled */
	hj_next_action a[HJ_NEXT_MAX]; /* in the order Split, Hit, Double,
	                                  Stand, Surrender, Peek */
	int hand; /* the hand the actions act on; -1 for a Peek or none */
	/* While n > 0: the first block an action is valid in, and the block
	 * at whose end the default action (Peek without insurance where due,
	 * else Stand) is applied. */
	uint64_t window_open, timeout_at;
} hj_next;

void hj_next_actions(const hj_rules *ru, const hj_round *r, hj_next *out);

#endif
