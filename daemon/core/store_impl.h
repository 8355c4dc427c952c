/*
 * The store's insides, shared by its files only: store.c (opening, the
 * schema and its migrations, meta, the cursor, write transactions),
 * store_rounds.c (the open rounds), store_ledger.c (the transactions and
 * payouts a block leaves), store_settle.c (the payers' batches),
 * store_rewind.c (going back below a reorganisation) and store_read.c
 * (the tool's read-only side).  Nothing else includes this
 * header.
 */
#ifndef HJ_STORE_IMPL_H
#define HJ_STORE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "say.h"

#include "store.h"

/*
 * PRAGMA user_version is the schema's version, HJ_STORE_SCHEMA_VERSION
 * (store.h) for the schema below.  Older versions (1: before settlement,
 * 2: before EVM payouts and the balance) are migrated when the daemon
 * opens them, and read as they are by hj_store_read.  PRAGMA
 * application_id is "HJKD", so that another program's database is told
 * apart from ours, whatever its user_version.
 */
#define HJ_APPLICATION_ID 0x484a4b44
/* How long a connection waits for another's lock, in milliseconds: a
 * write for an operator's sqlite3 shell in a write transaction or a
 * checkpoint; a reader only while another connection recovers the WAL
 * index after a crash (the daemon's writes never make a WAL reader wait). */
#define HJ_BUSY_TIMEOUT_MS 5000

/* The statements prepared once at open (store.c's stmt_sql), used by
 * every writing file. */
enum {
	ST_META_GET,
	ST_META_PUT,
	ST_CURSOR_GET,
	ST_CURSOR_PUT,
	ST_TX_ADD,
	ST_PAYOUT_ADD,
	ST_ROUND_PUT,
	ST_ROUND_DATA,
	ST_ROUND_DEL,
	ST_ROUNDS_CLEAR,
	ST_ROUNDS_LOAD,
	ST_OWED,
	ST_COMMIT_ADD,
	ST_COMMITS_LOAD,
	ST_UNDO_PRUNE_ROUNDS,
	ST_UNDO_PRUNE_CURSOR,
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_COUNT
};

struct hj_store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[ST_COUNT];
	/* The rounds table as this connection last wrote or read it (each
	 * row's round, decoded), in opening order; meaningful only while
	 * saved_valid. */
	hj_round *saved;
	size_t nsaved, capsaved;
	int saved_valid;
	/* Blocks of undo kept below the cursor (hj_store_set_rewind_blocks). */
	uint64_t rewind_keep;
	/* Scratch for the next save, swapped with saved on success. */
	hj_round *next;
	size_t capnext;
	/* The schema version the reads go by: a reader's (hj_store_read)
	 * is the one it found, whose statements are prepared at each use,
	 * none in st[]; a writer's is HJ_STORE_SCHEMA_VERSION once open
	 * (it migrated the file). */
	int version;
};

/*
 * A failed SQLite call of the daemon's connection: the message "PATH: op:
 * SQLite's words" into err, and -EEXIST for a duplicate key, -EINVAL for
 * any other constraint, -ENOMEM, else -EIO.  It also forgets the saved
 * rounds (saved_valid 0): some errors (a full disk, I/O) end the
 * transaction on their own, so what this connection wrote may be gone.
 */
int hj_store__fail(hj_store *s, const char *op, char *err, size_t errlen);

/* Steps a statement that returns no rows, then resets it and drops its
 * bindings (some point into the caller's stack).  0 or hj_store__fail's. */
int hj_store__step_done(hj_store *s, sqlite3_stmt *st, const char *op,
                        char *err, size_t errlen);

/* 0 inside a write transaction, else -EINVAL ("PATH: op outside a
 * transaction", saved rounds forgotten): the write calls refuse to run
 * under SQLite's autocommit. */
/*
 * Runs one statement that returns no rows, prepared at this use (for the
 * handful a block or a payer pass runs: settlement, seed chains).  fmt
 * gives the arguments, one character each: 'i' an int64_t, 't' a string,
 * 'b' 32 bytes (NULL binds NULL), bound to ?1, ?2, ... in order (those
 * past the statement's last parameter are not).  *changes (may be NULL)
 * gets the rows changed.  0 or hj_store__fail's.
 */
int hj_store__run(hj_store *s, const char *op, const char *sql, int *changes,
                  char *err, size_t errlen, const char *fmt, ...);

/* Links planned seed chain id to its Commit's batch (store_seeds.c, for
 * hj_store_plan_batch).  -EINVAL when it is not planned. */
int hj_store__link_seed_chain(hj_store *s, int64_t id, int64_t batch, char *err,
                              size_t errlen);

int hj_store__in_tx(hj_store *s, const char *op, char *err, size_t errlen);

/* Heights and offsets are SQLite integers (signed 64-bit): 0, or -EINVAL
 * with "what V above 2^63-1". */
/* A cursor row's columns (height, hash, log_offset, log_dev, log_ino) into
 * *c; -1 when damaged. */
int hj_store__column_cursor(sqlite3_stmt *st, hj_cursor *c);
int hj_store__fits_i64(uint64_t v, const char *what, char *err, size_t errlen);

/* Lower-case hex of an id, for messages: buf holds 2 * 32 + 1 bytes. */
const char *hj_store__id_hex(const hj_id *id, char buf[65]);

/* Binds an id (NULL or empty: SQL NULL) or a string (NULL: SQL NULL),
 * borrowed until the statement is reset. */
int hj_store__bind_id(sqlite3_stmt *st, int i, const hj_id *id);
int hj_store__bind_text(sqlite3_stmt *st, int i, const char *s);

/* Reads a BLOB column of 1 to 32 bytes into an id; 0 or -1. */
int hj_store__column_id(sqlite3_stmt *st, int i, hj_id *id);

/* A row of the commits table (height, tx_index, txid, start, length,
 * commitment, in that order) into *c, checked; 0 or -1. */
int hj_store__column_commit(sqlite3_stmt *st, hj_commit *c);

/*
 * The application_id and user_version of a file that is no longer empty:
 * ours, and a schema version from 1 to this store's.  reader: in the
 * words of the tool (hj_store_read), else of the daemon.  0 or -EINVAL.
 */
int hj_store__check_version(hj_store *s, int64_t app, int64_t ver, int reader,
                            char *err, size_t errlen);

#endif
