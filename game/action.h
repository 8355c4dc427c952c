/*
 * The engine's input: a normalised transaction to the dealer address.  Chain
 * adapters build these from what the node returns; the engine never sees
 * JSON or scripts.
 */
#ifndef HJ_ACTION_H
#define HJ_ACTION_H

#include <stdint.h>

#include "amount.h"
#include "reason.h"

/* Action codes are the payload's action byte. */
typedef enum hj_act {
	HJ_ACT_NONE = 0,
	HJ_BET = 1,
	HJ_HIT = 2,
	HJ_STAND = 3,
	HJ_DOUBLE = 4,
	HJ_SPLIT = 5,
	HJ_SURRENDER = 6,
	HJ_PEEK = 7,
	HJ_COMMIT = 8, /* the dealer's (docs/PROTOCOL.md section 15) */
} hj_act;

/* The action names of docs/PROTOCOL.md section 11.1: "Bet", "Hit", ...;
 * "none" for HJ_ACT_NONE. */
const char *hj_act_name(int act);

/* An identity of up to 32 bytes: an EVM address (20), a transaction hash or
 * an x-only key (32).  Compared by length and bytes. */
typedef struct hj_id {
	uint8_t len;
	uint8_t b[32];
} hj_id;

static inline int hj_id_eq(const hj_id *a, const hj_id *b)
{
	if (a->len != b->len)
		return 0;
	for (unsigned i = 0; i < a->len; i++)
		if (a->b[i] != b->b[i])
			return 0;
	return 1;
}

typedef enum hj_txkind {
	HJ_TX_ACTION = 0, /* a well-formed payload: act and fields are set */
	HJ_TX_MALFORMED,  /* carries the magic, payload invalid: see reason */
	HJ_TX_DEPOSIT,    /* no magic: a plain deposit, logged, not refunded */
	HJ_TX_FAILED,     /* EVM receipt failed: moved nothing, game ignores */
} hj_txkind;

typedef struct hj_action {
	hj_txkind kind;
	hj_act act;       /* ACTION; MALFORMED when the action byte was known */
	hj_reason reason; /* MALFORMED: why */
	uint32_t tx_index; /* position in the block */
	hj_id txid;
	hj_id sender;      /* EVM `from`; empty on the Bitcoin family */
	hj_amount value;   /* base units sent to the dealer address */
	uint8_t insurance; /* Peek */
	uint64_t side_pp;  /* Bet */
	uint64_t side_t3;  /* Bet */
	/* Bitcoin family.  A Bet's sender is its key P.  Every other action
	 * names its round by the short id (the first 8 bytes of the Bet's
	 * txid as displayed) and is signed by P: the table finds the round
	 * by round_ref and asks its verifier (hj_table_set_verifier). */
	uint8_t has_ref; /* round_ref and sig are set */
	uint8_t round_ref[8];
	uint8_t sig[64];
	uint8_t signed_len;     /* payload bytes the signature covers */
	uint8_t signed_part[5]; /* the payload without id and signature */
	/* Commit: the chain it publishes, and whether the dealer sent it
	 * (EVM: `from` is the dealer address; Bitcoin family: an input
	 * spends from the dealer's P2WPKH address).  Set by the chain
	 * adapters; the table judges the rest. */
	uint8_t from_dealer;
	uint32_t commit_length;
	uint64_t commit_start;
	uint8_t commitment[32];
} hj_action;

#endif
