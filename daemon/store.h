/*
 * The daemon's state in SQLite (WAL mode): the cursor (last processed block
 * and the card log's committed length), the open rounds, every processed
 * transaction to the dealer, and the ledger of payouts owed.  A block's
 * effects and the cursor are written in one transaction, so a crash at any
 * instant leaves either all of a batch or none of it.
 *
 * Every function returns 0 or a negative errno (-EIO for SQLite errors,
 * -EINVAL for data that fails its checks) with the reason in err.
 */
#ifndef HJ_STORE_H
#define HJ_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "table.h"

typedef struct hj_store hj_store;

/* Opens or creates the database at path (schema version checked). */
int hj_store_open(const char *path, hj_store **out, char *err, size_t errlen);
void hj_store_close(hj_store *s); /* NULL is fine */

/*
 * What the state belongs to: stored at first start, compared at every
 * later one.  Any difference is -EINVAL naming the field, both values:
 * a database never continues on another chain, dealer or rule set.
 */
typedef struct hj_store_meta {
	const char *family; /* "evm" */
	const char *chain;  /* chain identity, e.g. "evm:31337" */
	const char *dealer; /* dealer address as configured, lower case */
	const char *rules;  /* canonical rules, e.g. "bethash min=1 max=..." */
} hj_store_meta;
int hj_store_check_meta(hj_store *s, const hj_store_meta *m, char *err,
                        size_t errlen);

typedef struct hj_cursor {
	uint64_t height;           /* last processed block */
	uint8_t hash[32];          /* its hash */
	uint64_t log_offset;       /* card log length after that block's line */
	uint64_t log_dev, log_ino; /* which file that length is of */
} hj_cursor;

/* 0 and *c, or -ENOENT before the first block was processed. */
int hj_store_get_cursor(hj_store *s, hj_cursor *c, char *err, size_t errlen);

/* Restores every open round into t, in opening order. */
int hj_store_load_rounds(hj_store *s, hj_table *t, char *err, size_t errlen);

/* A write transaction: begin, any number of the calls below, commit (or
 * rollback).  Nothing is visible to readers until commit. */
int hj_store_begin(hj_store *s, char *err, size_t errlen);
int hj_store_commit(hj_store *s, char *err, size_t errlen);
void hj_store_rollback(hj_store *s);

/* Replaces the stored open rounds by those of t. */
int hj_store_save_rounds(hj_store *s, const hj_table *t, char *err,
                         size_t errlen);

/*
 * Records a processed transaction to the dealer: its block, index, id,
 * sender, value, and outcome ("accepted", "rejected", "deposit",
 * "ignored"), the action and reason when there is one, and the round it
 * belongs to (NULL when none).  A txid already recorded is -EEXIST.
 */
int hj_store_add_tx(hj_store *s, uint64_t height, const hj_action *a,
                    const char *outcome, hj_reason reason, const hj_id *round,
                    char *err, size_t errlen);

/*
 * Records a payout owed.  id is deterministic ("return:<round>:<hand>",
 * "insurance:<round>", "refund:<txid>", ids in lower-case hex) so that the
 * same debt can never be recorded twice: an existing id is -EEXIST.
 * kind is "return", "insurance" or "refund"; state starts as "owed".
 */
typedef struct hj_payout {
	const char *id;
	const char *kind;
	const hj_id *round; /* NULL for a refund with no round */
	int hand;           /* -1 when not a hand's return */
	const hj_id *txid;  /* the rejected transaction, refunds only */
	const hj_id *recipient;
	hj_amount amount;
	uint64_t height; /* block that created the debt */
} hj_payout;
int hj_store_add_payout(hj_store *s, const hj_payout *p, char *err,
                        size_t errlen);

int hj_store_set_cursor(hj_store *s, const hj_cursor *c, char *err,
                        size_t errlen);

/* Payouts in state "owed": how many and their sum. */
int hj_store_owed(hj_store *s, uint64_t *count, hj_amount *sum, char *err,
                  size_t errlen);

#endif
