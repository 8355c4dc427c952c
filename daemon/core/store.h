/*
 * The daemon's state in SQLite (WAL mode): the cursor (last processed block
 * and the card log's committed length), the open rounds, every processed
 * transaction to the dealer, and the ledger of payouts owed.  A block's
 * effects and the cursor are written in one transaction, so a crash at any
 * instant leaves either all of a batch or none of it.
 *
 * The store's files (store.c, store_rounds.c, store_ledger.c,
 * store_settle.c, store_read.c) are the one place that knows the schema
 * (docs/STATE.md): the daemon writes and reads through the calls below,
 * and the `hashjack` tool reads through hj_store_read and the typed reads
 * at the end.
 *
 * Every function returns 0 or a negative errno (-EIO for SQLite errors,
 * -EINVAL for data that fails its checks) with the reason in err.
 */
#ifndef HJ_STORE_H
#define HJ_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "round.h"
#include "rules.h"
#include "table.h"

typedef struct hj_store hj_store;

/* The database's name in the state directory. */
#define HJ_STORE_FILE "hashjackd.sqlite"
/* PRAGMA user_version of the schema this store writes; a reader reads
 * every version from 1 to this one. */
#define HJ_STORE_SCHEMA_VERSION 7
/* Blocks of undo kept below the cursor unless told otherwise ([state]
 * rewind_blocks). */
#define HJ_STORE_REWIND_BLOCKS 1000

/* The lock file in the state directory that keeps out a second writer
 * (a second hashjackd would deal the same blocks twice into the same card
 * log; `hashjack reorg --rewind` must not run beside the daemon). */
#define HJ_STORE_LOCK_FILE "hashjackd.lock"
/* Takes that lock, without waiting: its descriptor (held until closed),
 * or -EWOULDBLOCK when another process holds it, or another negative
 * errno. */
int hj_store_lock_dir(const char *state_dir);

/* Opens or creates the database at path (schema version checked). */
int hj_store_open(const char *path, hj_store **out, char *err, size_t errlen);
void hj_store_close(hj_store *s); /* NULL is fine */

/*
 * Checkpoints apart (docs/STATE.md, "Checkpoints"): copying the WAL's
 * committed pages into the database file costs as much as the commit that
 * wrote them, so hashjackd does it on another thread, through a
 * connection of its own.  hj_store_checkpoints_apart tells the writing
 * connection to checkpoint by itself only when the WAL passes
 * HJ_STORE_WAL_BOUND pages (the other thread fell behind); SQLite's
 * default is every 1,000.  A checkpointer's connection is used by one
 * thread at a time; hj_store_checkpoint copies what the readers allow
 * (PASSIVE: it waits for nobody) and says how many pages the WAL held
 * and how many of them are in the database now.
 */
#define HJ_STORE_WAL_BOUND 16384
typedef struct hj_store_checkpointer hj_store_checkpointer;
int hj_store_checkpoints_apart(hj_store *s, char *err, size_t errlen);
int hj_store_checkpointer_open(const char *path, hj_store_checkpointer **out,
                               char *err, size_t errlen);
int hj_store_checkpoint(hj_store_checkpointer *c, int *wal_pages, int *copied,
                        char *err, size_t errlen);
void hj_store_checkpointer_close(hj_store_checkpointer *c); /* NULL ok */

/*
 * What the state belongs to: stored at first start, compared at every
 * later one.  Any difference is -EINVAL naming the field, both values:
 * a database never continues on another chain, dealer or rule set.
 */
typedef struct hj_store_meta {
	const char *family; /* "evm" */
	const char *chain;  /* chain identity, e.g. "evm:31337" */
	const char *dealer; /* dealer address as configured, lower case */
	const char *rules;  /* the rules, as hj_rules_format writes them */
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

/* Restores every open round into t, in opening order, then every valid
 * Commit (committed cards), in block order. */
int hj_store_load_rounds(hj_store *s, hj_table *t, char *err, size_t errlen);

/* Records a valid Commit (committed cards), in the write transaction of
 * its block. */
int hj_store_add_commit(hj_store *s, const hj_commit *c, char *err,
                        size_t errlen);

/*
 * hashjackd's own seed chains (docs/STATE.md, seed_chains): at most one is
 * planned (its Commit sent or to be sent) at a time.
 */
#define HJ_STORE_COMMIT_TX_MAX 1000 /* bytes of a recorded Commit */
typedef struct hj_store_seed_chain {
	int64_t id;
	uint8_t commitment[32];
	uint64_t start;  /* H */
	uint32_t length; /* L */
	char state[8];   /* "planned", "dealt", "late" */
	uint64_t created_height;
	int64_t created_at;
	int64_t batch;        /* EVM: its Commit's payout batch; 0: none yet */
	char batch_state[12]; /* that batch's state, "" without one */
	/* Bitcoin family: its Commit as signed by the wallet (tx_len 0:
	 * none yet) and its txid as the node displays it. */
	size_t tx_len;
	uint8_t tx[HJ_STORE_COMMIT_TX_MAX];
	uint8_t txid[32];
} hj_store_seed_chain;

/* Records a new planned chain (in a write transaction); *id gets its id.
 * -EEXIST when a chain is planned already. */
int hj_store_add_seed_chain(hj_store *s, const hj_store_seed_chain *r,
                            int64_t *id, char *err, size_t errlen);
/* Every chain, oldest first; fn returns non-zero to stop (returned). */
int hj_store_each_seed_chain(hj_store *s,
                             int (*fn)(void *arg, const hj_store_seed_chain *r),
                             void *arg, char *err, size_t errlen);
/* Bitcoin family: records the signed Commit of planned chain id (tx,
 * 1 to HJ_STORE_COMMIT_TX_MAX bytes, and its txid), replacing any recorded
 * before (one that can never be mined), in a write transaction: before it
 * is sent.  -EINVAL when the chain is not planned. */
int hj_store_seed_chain_tx(hj_store *s, int64_t id, const uint8_t *tx,
                           size_t len, const uint8_t txid[32], char *err,
                           size_t errlen);
/* The planned chain with this commitment becomes state ("dealt" or
 * "late"); nothing when none is (a Commit not of this daemon). */
int hj_store_seed_chain_end(hj_store *s, const uint8_t commitment[32],
                            const char *state, char *err, size_t errlen);

/* A write transaction: begin, any number of the calls below, commit (or
 * rollback).  Nothing is visible to readers until commit. */
int hj_store_begin(hj_store *s, char *err, size_t errlen);
int hj_store_commit(hj_store *s, char *err, size_t errlen);
void hj_store_rollback(hj_store *s);
/* The database pages the last write transaction wrote, from its
 * hj_store_begin on (to the WAL; the checkpoints' copies not counted):
 * what it cost in writes.  -1 when SQLite cannot say. */
long hj_store_pages_written(hj_store *s);

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
/* A payout orphaned by hj_store_rewind with the same id is taken back
 * when its kind, hand, recipient and amount are p's: it keeps its state
 * (paid or in flight, it is not paid again) and takes p's references and
 * height.  One that differs is renamed "<id>@<block rewound to>" and stays
 * orphaned: the dealer's loss (docs/STATE.md, "Rewinding"); p is recorded
 * as new. */
int hj_store_add_payout(hj_store *s, const hj_payout *p, char *err,
                        size_t errlen);

/* Also prunes the undo of batches that ended [state] rewind_blocks or
 * more below c's block. */
int hj_store_set_cursor(hj_store *s, const hj_cursor *c, char *err,
                        size_t errlen);

/* How many blocks of undo to keep below the cursor (default
 * HJ_STORE_REWIND_BLOCKS). */
void hj_store_set_rewind_blocks(hj_store *s, uint64_t blocks);

/*
 * Rewinding the state below a reorganisation (docs/STATE.md,
 * "Rewinding"): the batch boundary at or below block fork that the undo
 * still reaches becomes the cursor, in one write transaction (begun and
 * committed here):
 *
 *   - the open rounds are put back as they were there;
 *   - the transactions, and the Commits, of later blocks are removed;
 *   - their payouts still owed are removed (the blocks dealt again make
 *     them again where the new chain has them); those paid, in flight or
 *     in a planned batch stay, orphaned, so that each is paid once: taken
 *     back by the same debt dealt again (hj_store_add_payout), else the
 *     dealer's loss;
 *   - a payout batch whose transaction was confirmed in a block above fork
 *     (it left the chain) is sent again: its batch and payouts go back to
 *     sent and submitted, for the payer to see it mined again.
 *
 * Under committed cards the Commits of later blocks go with their
 * transactions; the dealer's seed chains (seed_chains and their files)
 * stay: the seeds of a chain are the same on any branch.  The card
 * log is the caller's: out->to says where the log ends after the
 * boundary's block (hj_store_rewind_point).  Returns 0, -ENOENT when the cursor
 * is at or below fork (nothing to rewind), -ERANGE when the undo does not reach
 * down to fork (out->oldest says how far it does), or a negative errno with
 * err.
 */
typedef struct hj_rewind {
	hj_cursor from, to; /* the cursor before and after */
	int have_oldest;
	uint64_t oldest;  /* the lowest block the undo can go back to */
	uint64_t rounds;  /* round rows put back or removed */
	uint64_t txs;     /* transaction rows removed */
	uint64_t commits; /* Commits removed (committed cards) */
	uint64_t dropped; /* owed payouts removed */
	hj_amount dropped_sum;
	uint64_t orphaned; /* payouts kept orphaned */
	hj_amount orphaned_sum;
	uint64_t unconfirmed; /* batches confirmed above fork, now sent */
} hj_rewind;
/* Where a rewind below fork would go, changing nothing: out->from, ->to
 * and ->oldest, with the same errors as hj_store_rewind. */
int hj_store_rewind_point(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                          size_t errlen);
/* out->to comes in from hj_store_rewind_point, its log fields as the
 * caller left the card log; -EAGAIN when the boundary is no longer the
 * one it found. */
int hj_store_rewind(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                    size_t errlen);

/* Payouts in state "owed": how many and their sum. */
int hj_store_owed(hj_store *s, uint64_t *count, hj_amount *sum, char *err,
                  size_t errlen);

/* ---- settlement, Bitcoin family (docs/PAYOUTS.md) ----
 *
 * A batch is one sendmany of the node's wallet.  Its life:
 *
 *   planned   committed before the call: its outputs (address, amount)
 *             and the payouts it settles, which stay "owed"
 *   sent      the node returned its txid: the payouts are "submitted"
 *   confirmed the transaction is final: the payouts are "confirmed"
 *   refused   the node refused the call: the payouts are owed again,
 *             free for another batch
 *   reverted  the transaction was conflicted by a final one: the payouts
 *             are "owed" again
 *
 * At most one batch is planned at a time (-EEXIST otherwise).  The write
 * calls below need a transaction (hj_store_begin) like the others, and
 * check the state they move from: a batch or payout not in it is -EINVAL
 * and nothing is written.
 */

/* The 16 hex digits (and a NUL) that make this database's wallet comments
 * unique: "hashjack:<tag>:<batch id>". */
int hj_store_payer_tag(hj_store *s, char tag[17], char *err, size_t errlen);

/* An owed payout in no planned batch; fields borrowed for the callback. */
typedef struct hj_owed_payout {
	const char *id;
	hj_id recipient; /* len 0: unattributed */
	hj_amount amount;
	uint64_t height; /* created_height */
} hj_owed_payout;

/*
 * Calls fn for every owed payout in no planned batch, oldest first
 * (created_height, then id).  A non-zero return from fn stops the walk and
 * is returned.
 */
int hj_store_each_unbatched(hj_store *s,
                            int (*fn)(void *arg, const hj_owed_payout *p),
                            void *arg, char *err, size_t errlen);

typedef struct hj_batch_output {
	const char *address;
	hj_amount amount; /* base units, above 0 */
} hj_batch_output;

/* One signed version of an EVM payout transaction (same nonce, recipient
 * and value as the batch's; fees in wei per gas). */
typedef struct hj_tx_version {
	unsigned seq; /* 1, 2, ... in signing order (set by the store) */
	uint8_t hash[32];
	const uint8_t *raw; /* borrowed */
	size_t raw_len;
	hj_amount max_fee, priority_fee;
	int64_t signed_at; /* unix seconds */
} hj_tx_version;

typedef struct hj_batch_plan {
	uint64_t height; /* the last processed block */
	int64_t now;     /* unix seconds */
	const hj_batch_output *outs;
	size_t nouts;
	const char *const *payouts; /* ids, each owed and in no batch */
	size_t npayouts;
	/* EVM: the first signed version of the transaction, its nonce
	 * (unique among batches) and gas limit; one output.  Bitcoin family:
	 * version NULL, the other two unused. */
	const hj_tx_version *version;
	uint64_t nonce;
	uint64_t gas_limit;
	/* EVM, committed cards: > 0 for the Commit of this planned seed
	 * chain (its id): one output to the dealer of amount 0, no payouts;
	 * the chain is linked to the batch. */
	int64_t seed_chain;
} hj_batch_plan;

/* Records a planned batch; *id is its number (from 1, never reused).  The
 * payouts' amounts must add up to the outputs' (a Commit's: none, 0). */
int hj_store_plan_batch(hj_store *s, const hj_batch_plan *plan, int64_t *id,
                        char *err, size_t errlen);

typedef struct hj_batch {
	int64_t id;
	int sent; /* 0: planned, 1: sent */
	uint64_t created_height;
	int64_t created_at;
	unsigned attempts;    /* failed sendmany calls */
	uint8_t txid[32];     /* sent: as the node displays it */
	uint64_t sent_height; /* sent */
	unsigned outputs;
	hj_amount total;
	int64_t sent_at;    /* sent: unix seconds */
	int64_t nonce;      /* EVM: the nonce, else -1 */
	uint64_t gas_limit; /* EVM, else 0 */
} hj_batch;

/* Planned and sent batches with an id above after, in id order, at most
 * max of them into out[0..*n). */
int hj_store_open_batches(hj_store *s, int64_t after, hj_batch *out, size_t max,
                          size_t *n, char *err, size_t errlen);

/* The planned batch, if there is one (*found 1), wherever it stands among
 * the open ones. */
int hj_store_planned_batch(hj_store *s, hj_batch *out, int *found, char *err,
                           size_t errlen);

/* Calls fn for each output of batch id, by address. */
int hj_store_batch_outputs(hj_store *s, int64_t id,
                           int (*fn)(void *arg, const char *address,
                                     hj_amount amount),
                           void *arg, char *err, size_t errlen);

/* planned -> sent with txid at the tip height and time given; its
 * payouts become submitted. */
int hj_store_batch_sent(hj_store *s, int64_t id, const uint8_t txid[32],
                        uint64_t height, int64_t now, char *err, size_t errlen);

/* A sendmany of planned batch id failed with error (kept as last_error on
 * the batch and its payouts).  refused: the node refused it, the batch
 * becomes refused and its payouts free; else it stays planned. */
int hj_store_batch_failed(hj_store *s, int64_t id, const char *error,
                          int refused, char *err, size_t errlen);

/* Sent batch id's transaction was replaced (the wallet's bumpfee): the
 * batch and its payouts now name txid. */
int hj_store_batch_retxid(hj_store *s, int64_t id, const uint8_t txid[32],
                          char *err, size_t errlen);

/* sent -> confirmed in block height; its payouts too. */
int hj_store_batch_confirmed(hj_store *s, int64_t id, uint64_t height,
                             char *err, size_t errlen);

/* sent -> reverted for reason; its payouts owed again (submitted_*
 * cleared, reason as last_error). */
int hj_store_batch_reverted(hj_store *s, int64_t id, const char *reason,
                            char *err, size_t errlen);

/* ---- EVM transactions (docs/PAYOUTS-EVM.md) ----
 *
 * A batch with a nonce is one EVM transaction.  Every signed version of it
 * is recorded (before it is sent) with hj_store_add_version, while the
 * batch is planned or sent; each version pays the same recipient the same
 * value with the same nonce, so at most one of them is ever mined.
 */
int hj_store_add_version(hj_store *s, int64_t batch, const hj_tx_version *v,
                         char *err, size_t errlen);

/* Calls fn for each version of batch, newest first.  v->raw is valid only
 * during the call. */
int hj_store_each_version(hj_store *s, int64_t batch,
                          int (*fn)(void *arg, const hj_tx_version *v),
                          void *arg, char *err, size_t errlen);

/* One above the highest nonce any batch ever took (0 when none). */
int hj_store_next_nonce(hj_store *s, uint64_t *next, char *err, size_t errlen);

/* The block of the newest sweep recorded (a payout of kind "sweep", id
 * "sweep:<height>", docs/PAYOUTS-EVM.md "Sweeps to cold storage"), in any
 * state: *found 0 when none. */
int hj_store_last_sweep(hj_store *s, uint64_t *height, int *found, char *err,
                        size_t errlen);

/* A confirmed batch's cost: gas used and the fee paid (wei). */
int hj_store_batch_cost(hj_store *s, int64_t id, uint64_t gas_used,
                        hj_amount fee, char *err, size_t errlen);

/* The dealer's spendable balance as last read at the node's tip height,
 * and the payer's warning (NULL or "" when none), for `hashjack status`. */
int hj_store_set_balance(hj_store *s, hj_amount amount, uint64_t height,
                         int64_t at, const char *warning, char *err,
                         size_t errlen);

/* What STATUS shows. */
typedef struct hj_settle_totals {
	uint64_t owed_n; /* state owed, all of them */
	hj_amount owed;
	uint64_t unattributed_n; /* ... of which without a recipient */
	hj_amount unattributed;
	uint64_t planned_n; /* ... of which in a planned batch */
	hj_amount planned;
	uint64_t submitted_n; /* state submitted: in flight */
	hj_amount submitted;
} hj_settle_totals;
int hj_store_settle_totals(hj_store *s, hj_settle_totals *t, char *err,
                           size_t errlen);

/* ---- reading without disturbing the daemon (hashjack ledger, status) ----
 *
 * A reader never blocks the daemon and leaves no trace: the file is opened
 * read-only, nothing is created, changed or removed beside it (no -wal or
 * -shm appears, no checkpoint runs), and nothing is migrated: every schema
 * version from 1 to HJ_STORE_SCHEMA_VERSION is read as it is, and what an
 * older one lacks reads as none.  docs/CLI.md, "Reading without disturbing
 * the daemon", has the whole contract.
 */

/*
 * Opens path read-only and calls fn(s, arg, err, errlen) in one read
 * transaction, once the file is known to be hashjackd's (tables meta and
 * payouts, its application_id, a schema version from 1 to
 * HJ_STORE_SCHEMA_VERSION), then closes the connection.  s is borrowed for
 * the call: only hj_store_version and the typed reads below may be used on
 * it.  While a -wal file exists the database is read through a VFS that
 * creates and deletes nothing; without one it is read as immutable and
 * checked unchanged afterwards.  When the daemon starts or stops during
 * the read, the read starts over (reset(arg) first, when not NULL; it is
 * also called before the first), at most 3 times.
 *
 * Returns 0 or fn's non-zero return, or with err:
 *   -ENOENT  the database cannot be opened: missing, a directory, not a
 *            regular file, not readable, or its -wal or -shm unreadable
 *   -EINVAL  not a hashjackd database, or a damaged one
 *   -EAGAIN  it stayed busy, or kept changing while read: try again
 *   -ENOMEM  out of memory
 *   -EIO     any other failure to read it
 * The typed reads return the same codes, and -ERANGE for sums beyond
 * 2^128 - 1.
 */
typedef int (*hj_store_read_fn)(hj_store *s, void *arg, char *err,
                                size_t errlen);
int hj_store_read(const char *path, hj_store_read_fn fn,
                  void (*reset)(void *arg), void *arg, char *err,
                  size_t errlen);

/* The schema version of the file read, 1 to HJ_STORE_SCHEMA_VERSION. */
int hj_store_version(const hj_store *s);

/* The meta row as stored; the strings belong to the struct. */
typedef struct hj_meta_row {
	char *family, *chain, *dealer, *rules;
} hj_meta_row;

/* 0 with *found 1 and the row in *m (free it with hj_meta_row_clear), or
 * *found 0 before the daemon first reached its node. */
int hj_store_get_meta(hj_store *s, hj_meta_row *m, int *found, char *err,
                      size_t errlen);
void hj_meta_row_clear(hj_meta_row *m);

/* How many payouts there are, in any state. */
int hj_store_count_payouts(hj_store *s, uint64_t *n, char *err, size_t errlen);

/* The cursor row (hj_cursor): *found 0 before the first start.  The first
 * start stores the block before its first one with an all-zero hash. */
int hj_store_read_cursor(hj_store *s, hj_cursor *c, int *found, char *err,
                         size_t errlen);

/*
 * Calls fn for every open round in opening order, decoded and checked
 * (hj_round_decode, and the row's id is the round's).  r is valid only
 * during the call.  A non-zero return from fn stops the walk and is
 * returned.
 */
int hj_store_each_round(hj_store *s, int (*fn)(void *arg, const hj_round *r),
                        void *arg, char *err, size_t errlen);

/*
 * Calls fn for every valid Commit (committed cards) in block order,
 * checked as the daemon loads them; c is valid only during the call.  A
 * file of a schema before Commits were kept (version 3 and older) has
 * none.  A non-zero return from fn stops the walk and is returned.
 */
int hj_store_each_commit(hj_store *s, int (*fn)(void *arg, const hj_commit *c),
                         void *arg, char *err, size_t errlen);

/* An INTEGER column that may be NULL. */
typedef struct hj_maybe_i64 {
	int set; /* 0: NULL */
	int64_t v;
} hj_maybe_i64;

/* Which payouts hj_store_each_payout walks: every field given must match.
 * Borrowed for the call. */
typedef struct hj_payout_filter {
	const char *state;      /* NULL: any */
	const char *kind;       /* NULL: any */
	const hj_id *round;     /* NULL: any */
	const hj_id *recipient; /* NULL: any */
	int unattributed;       /* 1: only those without a recipient */
} hj_payout_filter;

/* A payout row as stored; ids of length 0 are NULL columns, strings are
 * borrowed for the callback. */
typedef struct hj_payout_row {
	const char *id, *kind, *state;
	/* 0 when unattributed (NULL).  Else its bytes, as stored: len 0 when
	 * the column is not a BLOB of 1 to 32 bytes. */
	int has_recipient;
	hj_id recipient;
	hj_amount amount;
	hj_id round;
	hj_maybe_i64 hand;
	hj_id txid; /* the refunded transaction */
	int64_t created_height;
	hj_id submitted_txid;
	hj_maybe_i64 nonce, submitted_height, submitted_at, confirmed_height;
	const char *last_error; /* NULL when none */
	/* Set: paid, in flight or in a planned batch for a block that left
	 * the chain; the block `hashjack reorg --rewind` went back to
	 * (docs/STATE.md, "Rewinding").  Never set before schema 7. */
	hj_maybe_i64 orphaned;
} hj_payout_row;

/*
 * Calls fn for every payout f selects (NULL: all), oldest debt first
 * (created_height, then id).  A column that does not hold what the schema
 * says is -EINVAL naming the payout and the column.  A non-zero return
 * from fn stops the walk and is returned.
 */
int hj_store_each_payout(hj_store *s, const hj_payout_filter *f,
                         int (*fn)(void *arg, const hj_payout_row *p),
                         void *arg, char *err, size_t errlen);

/* How many payouts, and their exact sum. */
typedef struct hj_tally {
	uint64_t n;
	hj_amount sum;
} hj_tally;

/* Every payout by state: owed (and of those, the unattributed ones and
 * those in a planned batch), submitted, confirmed; and of all those, the
 * sweeps to cold storage (kind "sweep"): confirmed (swept), or owed or
 * submitted (sweeping); and the orphaned ones (hj_payout_row): paid or in
 * flight for blocks that left the chain, the dealer's loss unless the new
 * chain makes the same debt again. */
typedef struct hj_payout_totals {
	hj_tally owed, unattributed, planned, submitted, confirmed;
	hj_tally swept, sweeping;
	hj_tally orphaned;
} hj_payout_totals;

/* A state other than those three is -EINVAL; a sum beyond 2^128 - 1 is
 * -ERANGE. */
int hj_store_payout_totals(hj_store *s, hj_payout_totals *t, char *err,
                           size_t errlen);

/* The dealer_balance row (hj_store_set_balance). */
typedef struct hj_balance_row {
	hj_amount amount;
	int64_t height, at;
	char *warning; /* NULL when none; the caller frees it */
} hj_balance_row;

/* 0 with *found 1 and *b, or *found 0 when none was read yet (or the
 * schema predates the row). */
int hj_store_get_balance(hj_store *s, hj_balance_row *b, int *found, char *err,
                         size_t errlen);

/* A payout batch that is planned or sent (an EVM transaction when it has
 * a nonce); address is borrowed for the callback. */
typedef struct hj_open_batch {
	int64_t id;
	int sent; /* else planned */
	int has_txid;
	uint8_t txid[32];
	int64_t outputs;
	hj_amount total;
	int64_t created_at;
	hj_maybe_i64 nonce;
	const char *address; /* EVM: its one output's address, or NULL */
	int64_t versions;    /* signed versions (EVM) */
	int has_hash;        /* the latest signed version's hash */
	uint8_t hash[32];
} hj_open_batch;

/* Calls fn for every planned or sent batch, by id (none before schema
 * version 2).  A non-zero return from fn stops the walk and is returned. */
int hj_store_each_open_batch(hj_store *s,
                             int (*fn)(void *arg, const hj_open_batch *b),
                             void *arg, char *err, size_t errlen);

#endif
