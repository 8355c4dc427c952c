/*
 * The daemon's state in SQLite.  docs/STATE.md describes the schema and how
 * an operator reads it; this file keeps the invariants:
 *
 * - WAL mode, synchronous=FULL: a commit is on disk (the WAL is fsynced)
 *   before hj_store_commit returns, so power loss keeps it.
 * - Writes happen only between hj_store_begin and hj_store_commit; the
 *   write calls refuse to run outside a transaction, so no block's effects
 *   can ever be committed piecemeal by SQLite's autocommit.
 * - Every statement of the hot path (a block: its transactions, payouts,
 *   rounds and the cursor) is prepared once at open and reused.
 *
 * Open rounds are saved by difference: the store remembers the encodings it
 * last wrote (s->saved, which mirrors the rounds table inside the current
 * transaction) and writes only rounds that changed, appeared or left.  The
 * memory is dropped whenever it may no longer match the table (rollback,
 * any failed save), and the next save then rewrites every row.
 *
 * The store is the only module that knows the schema: this file writes it,
 * store_read.c holds the `hashjack` tool's side (hj_store_read and the
 * typed reads), which checks every column it returns and never creates or
 * migrates anything; store_impl.h is what the two share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hex.h"
#include "quote.h"
#include "store_impl.h"

/*
 * The schema as SQLite stores it (sqlite_schema keeps each statement's
 * text as written here, so these bytes are part of every database: the
 * layout of the C source is free, the text between the quotes is not).
 * docs/STATE.md explains every table and column.
 */

/* An amount column: canonical decimal, as hj_amount_format writes it. */
#define AMOUNT_CHECK(col)                                                      \
	"CHECK (typeof(" col ") = 'text' AND length(" col ") BETWEEN 1 AND "   \
	"39 AND " col " NOT GLOB '*[^0-9]*' AND (" col " = '0' OR " col        \
	" NOT GLOB '0*'))"

/* clang-format off */
static const char schema_sql[] =
	"CREATE TABLE meta ("
	    " id INTEGER PRIMARY KEY CHECK (id = 1),"
	    " family TEXT NOT NULL,"
	    " chain TEXT NOT NULL,"
	    " dealer TEXT NOT NULL,"
	    " rules TEXT NOT NULL);"
	"CREATE TABLE cursor ("
	    " id INTEGER PRIMARY KEY CHECK (id = 1),"
	    /* The bits of a uint64: -1 is "before block 0" (start at 0). */
	    " height INTEGER NOT NULL,"
	    " hash BLOB NOT NULL CHECK (length(hash) = 32),"
	    " log_offset INTEGER NOT NULL CHECK (log_offset >= 0),"
	    " log_dev INTEGER NOT NULL,"
	    " log_ino INTEGER NOT NULL);"
	"CREATE TABLE txs ("
	    " txid BLOB PRIMARY KEY CHECK (length(txid) BETWEEN 1 AND 32),"
	    " height INTEGER NOT NULL CHECK (height >= 0),"
	    " tx_index INTEGER NOT NULL CHECK (tx_index >= 0),"
	    " sender BLOB,"
	    " value TEXT NOT NULL " AMOUNT_CHECK("value") ","
	    " outcome TEXT NOT NULL CHECK (outcome IN"
	        "  ('accepted', 'rejected', 'deposit', 'ignored')),"
	    " action TEXT,"
	    " reason TEXT,"
	    " round BLOB,"
	    " UNIQUE (height, tx_index)) WITHOUT ROWID;"
	"CREATE INDEX txs_round ON txs (round) WHERE round IS NOT NULL;"
	"CREATE TABLE rounds ("
	    " id BLOB PRIMARY KEY"
	        "  REFERENCES txs (txid) DEFERRABLE INITIALLY DEFERRED,"
	    " player BLOB NOT NULL UNIQUE,"
	    " bet_height INTEGER NOT NULL CHECK (bet_height >= 0),"
	    " bet_tx_index INTEGER NOT NULL CHECK (bet_tx_index >= 0),"
	    " data BLOB NOT NULL,"
	    " UNIQUE (bet_height, bet_tx_index)) WITHOUT ROWID;"
	"CREATE TABLE payouts ("
	    " id TEXT PRIMARY KEY,"
	    " kind TEXT NOT NULL,"
	    " round BLOB REFERENCES txs (txid) DEFERRABLE INITIALLY DEFERRED,"
	    " hand INTEGER CHECK (hand >= 0),"
	    " txid BLOB REFERENCES txs (txid) DEFERRABLE INITIALLY DEFERRED,"
	    " recipient BLOB,"
	    " amount TEXT NOT NULL " AMOUNT_CHECK("amount") ","
	    " state TEXT NOT NULL DEFAULT 'owed',"
	    " created_height INTEGER NOT NULL CHECK (created_height >= 0),"
	    /* Settlement (issue 5) fills these; NULL until then. */
	    " submitted_txid BLOB,"
	    " nonce INTEGER,"
	    " submitted_height INTEGER,"
	    " submitted_at INTEGER,"
	    " confirmed_height INTEGER,"
	    " last_error TEXT) WITHOUT ROWID;"
	"CREATE INDEX payouts_state ON payouts (state, created_height);"
	"CREATE INDEX payouts_round ON payouts (round) WHERE round IS NOT NULL;"
	"CREATE INDEX payouts_txid ON payouts (txid) WHERE txid IS NOT NULL;"
	"CREATE INDEX payouts_recipient ON payouts (recipient);";

/*
 * Version 2: settlement's bookkeeping (docs/PAYOUTS.md).  A batch is one
 * sendmany: planned (committed before the call), sent (its txid known),
 * confirmed, refused (the node said no: its payouts are owed again) or
 * reverted (its transaction was conflicted by a final one).  At most one
 * batch is planned at a time.  The tag makes this database's wallet
 * comments ("hashjack:<tag>:<batch>") unique among every state directory
 * that ever used the same wallet.
 */
static const char schema_v2_sql[] =
	"CREATE TABLE settlement ("
	    " id INTEGER PRIMARY KEY CHECK (id = 1),"
	    " tag TEXT NOT NULL CHECK (length(tag) = 16 AND tag NOT GLOB "
	        "'*[^0-9a-f]*'));"
	"INSERT INTO settlement (id, tag) VALUES (1, lower(hex(randomblob(8))));"
	"CREATE TABLE payout_batches ("
	    " id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id > 0),"
	    " state TEXT NOT NULL CHECK (state IN ('planned', 'sent', 'confirmed',"
	        "  'refused', 'reverted')),"
	    " created_height INTEGER NOT NULL,"
	    " created_at INTEGER NOT NULL,"
	    " outputs INTEGER NOT NULL CHECK (outputs >= 1),"
	    " total TEXT NOT NULL " AMOUNT_CHECK("total") ","
	    " attempts INTEGER NOT NULL DEFAULT 0,"
	    " txid BLOB CHECK (txid IS NULL OR length(txid) = 32),"
	    " sent_height INTEGER,"
	    " sent_at INTEGER,"
	    " confirmed_height INTEGER,"
	    " last_error TEXT,"
	    " CHECK ((state IN ('planned', 'refused')) = (txid IS NULL)));"
	"CREATE UNIQUE INDEX payout_batches_planned ON payout_batches (state)"
	    " WHERE state = 'planned';"
	"CREATE INDEX payout_batches_open ON payout_batches (id)"
	    " WHERE state IN ('planned', 'sent');"
	"CREATE TABLE payout_batch_outputs ("
	    " batch INTEGER NOT NULL REFERENCES payout_batches (id),"
	    " address TEXT NOT NULL,"
	    " amount TEXT NOT NULL " AMOUNT_CHECK("amount") ","
	    " PRIMARY KEY (batch, address)) WITHOUT ROWID;"
	"CREATE TABLE payout_batch_items ("
	    " batch INTEGER NOT NULL REFERENCES payout_batches (id),"
	    " payout TEXT NOT NULL REFERENCES payouts (id),"
	    " PRIMARY KEY (batch, payout)) WITHOUT ROWID;"
	"CREATE INDEX payout_batch_items_payout ON payout_batch_items (payout);";

/*
 * Version 3: EVM payouts and the dealer's balance.  On EVM a batch is one
 * transaction from the dealer's key to one recipient: it carries the nonce
 * assigned when it was planned (never reused: unique) and its gas limit,
 * and every signed version of it (the first, re-signed ones after a
 * refusal, replacements of a stuck one: same nonce, same recipient and
 * value, higher fees) is recorded before it is sent.  Once mined, the
 * batch records what its transaction cost the dealer.  The balance row is
 * the last spendable balance the payer read, with its warning, for
 * `hashjack status`.
 */
static const char schema_v3_sql[] =
	"ALTER TABLE payout_batches ADD COLUMN nonce INTEGER CHECK (nonce >= 0);"
	"ALTER TABLE payout_batches ADD COLUMN gas_limit INTEGER"
	    " CHECK (gas_limit > 0);"
	"ALTER TABLE payout_batches ADD COLUMN gas_used INTEGER;"
	"ALTER TABLE payout_batches ADD COLUMN fee TEXT;"
	"CREATE UNIQUE INDEX payout_batches_nonce ON payout_batches (nonce)"
	    " WHERE nonce IS NOT NULL;"
	"CREATE TABLE payout_tx_versions ("
	    " batch INTEGER NOT NULL REFERENCES payout_batches (id),"
	    " seq INTEGER NOT NULL CHECK (seq >= 1),"
	    " hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),"
	    " raw BLOB NOT NULL,"
	    " max_fee TEXT NOT NULL " AMOUNT_CHECK("max_fee") ","
	    " priority_fee TEXT NOT NULL " AMOUNT_CHECK("priority_fee") ","
	    " signed_at INTEGER NOT NULL,"
	    " PRIMARY KEY (batch, seq)) WITHOUT ROWID;"
	"CREATE TABLE dealer_balance ("
	    " id INTEGER PRIMARY KEY CHECK (id = 1),"
	    " amount TEXT NOT NULL " AMOUNT_CHECK("amount") ","
	    " height INTEGER NOT NULL,"
	    " at INTEGER NOT NULL,"
	    " warning TEXT);";
/* clang-format on */

static const char *const stmt_sql[ST_COUNT] = {
    [ST_META_GET] =
        "SELECT family, chain, dealer, rules FROM meta WHERE id = 1",
    [ST_META_PUT] = "INSERT INTO meta (id, family, chain, dealer, rules)"
                    " VALUES (1, ?1, ?2, ?3, ?4)",
    [ST_CURSOR_GET] = "SELECT height, hash, log_offset, log_dev, log_ino"
                      " FROM cursor WHERE id = 1",
    [ST_CURSOR_PUT] =
        "INSERT INTO cursor (id, height, hash, log_offset, log_dev, log_ino)"
        " VALUES (1, ?1, ?2, ?3, ?4, ?5) ON CONFLICT (id) DO UPDATE SET"
        " height = excluded.height, hash = excluded.hash,"
        " log_offset = excluded.log_offset, log_dev = excluded.log_dev,"
        " log_ino = excluded.log_ino",
    [ST_TX_ADD] = "INSERT INTO txs (txid, height, tx_index, sender, value,"
                  " outcome, action, reason, round)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_PAYOUT_ADD] = "INSERT INTO payouts (id, kind, round, hand, txid,"
                      " recipient, amount, created_height)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_ROUND_PUT] =
        "INSERT INTO rounds (id, player, bet_height, bet_tx_index, data)"
        " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (id) DO UPDATE SET"
        " player = excluded.player, bet_height = excluded.bet_height,"
        " bet_tx_index = excluded.bet_tx_index, data = excluded.data",
    [ST_ROUND_DEL] = "DELETE FROM rounds WHERE id = ?1",
    [ST_ROUNDS_CLEAR] = "DELETE FROM rounds",
    [ST_ROUNDS_LOAD] = "SELECT id, player, bet_height, bet_tx_index, data"
                       " FROM rounds ORDER BY bet_height, bet_tx_index",
    [ST_OWED] = "SELECT id, amount FROM payouts WHERE state = 'owed'",
    /* IMMEDIATE: take the write lock now, so that a busy database fails
     * at begin and never halfway through a batch. */
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

/* ---- what store.c and store_read.c share (store_impl.h) ---- */

void hj_store__say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Maps an SQLite result to our convention: a duplicate key is -EEXIST,
 * any other constraint is data failing a check, the rest is I/O. */
static int map_rc(int rc)
{
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return -EEXIST;
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		return -EINVAL;
	if ((rc & 0xff) == SQLITE_NOMEM)
		return -ENOMEM;
	return -EIO;
}

static int db_fail(hj_store *s, const char *op, char *err, size_t errlen)
{
	int rc = sqlite3_extended_errcode(s->db);

	/* Some errors (a full disk, I/O) end the transaction on their own:
	 * what this connection wrote may be gone, so forget it. */
	s->saved_valid = 0;
	hj_store__say(err, errlen, "%s: %s: %s", s->path, op,
	              sqlite3_errmsg(s->db));
	return map_rc(rc);
}

/* Steps a statement that returns no rows, then resets it and drops its
 * bindings (some point into the caller's stack). */
static int step_done(hj_store *s, sqlite3_stmt *st, const char *op, char *err,
                     size_t errlen)
{
	int ret = 0;

	if (sqlite3_step(st) != SQLITE_DONE)
		ret = db_fail(s, op, err, errlen);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int exec(hj_store *s, const char *sql, const char *op, char *err,
                size_t errlen)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, op, err, errlen);
	return 0;
}

/* Reads one integer PRAGMA. */
static int pragma_int(hj_store *s, const char *sql, int64_t *v, char *err,
                      size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, sql, err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		ret = db_fail(s, sql, err, errlen);
	sqlite3_finalize(st);
	return ret;
}

static int in_tx(hj_store *s, const char *op, char *err, size_t errlen)
{
	if (sqlite3_get_autocommit(s->db)) {
		s->saved_valid = 0;
		hj_store__say(err, errlen, "%s: %s outside a transaction",
		              s->path, op);
		return -EINVAL;
	}
	return 0;
}

/* Heights and offsets are SQLite integers (signed 64-bit). */
static int fits_i64(uint64_t v, const char *what, char *err, size_t errlen)
{
	if (v > INT64_MAX) {
		hj_store__say(err, errlen, "%s %llu above 2^63-1", what,
		              (unsigned long long)v);
		return -EINVAL;
	}
	return 0;
}

const char *hj_store__id_hex(const hj_id *id, char buf[65])
{
	size_t n = id->len <= 32 ? id->len : 32;

	hj_hex_encode(id->b, n, 0, buf);
	return buf;
}

int hj_store__bind_id(sqlite3_stmt *st, int i, const hj_id *id)
{
	if (id == NULL || id->len == 0)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_blob(st, i, id->b, id->len, SQLITE_STATIC);
}

int hj_store__bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

int hj_store__column_id(sqlite3_stmt *st, int i, hj_id *id)
{
	int n = sqlite3_column_bytes(st, i);
	const void *b = sqlite3_column_blob(st, i);

	memset(id, 0, sizeof *id);
	if (sqlite3_column_type(st, i) != SQLITE_BLOB || n < 1 || n > 32)
		return -1;
	id->len = (uint8_t)n;
	memcpy(id->b, b, (size_t)n);
	return 0;
}

int hj_store__check_version(hj_store *s, int64_t app, int64_t ver, int reader,
                            char *err, size_t errlen)
{
	unsigned long long shown = (uint32_t)app;

	if (app != HJ_APPLICATION_ID) {
		if (reader)
			hj_store__say(
			    err, errlen,
			    "%s: not a hashjackd database: application_id "
			    "0x%08llx, expected 0x%08x",
			    s->path, shown, HJ_APPLICATION_ID);
		else
			hj_store__say(
			    err, errlen,
			    "%s: an SQLite database but not hashjackd's "
			    "(application_id 0x%08llx, expected 0x%08x)",
			    s->path, shown, HJ_APPLICATION_ID);
		return -EINVAL;
	}
	if (ver > HJ_STORE_SCHEMA_VERSION) {
		hj_store__say(
		    err, errlen,
		    "%s: schema version %lld was written by a newer hashjackd; "
		    "this %s reads version %d",
		    s->path, (long long)ver, reader ? "hashjack" : "one",
		    HJ_STORE_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (ver < 1) {
		hj_store__say(err, errlen,
		              "%s: hashjackd database without a schema version "
		              "(user_version %lld)",
		              s->path, (long long)ver);
		return -EINVAL;
	}
	return 0;
}

/*
 * Decides whether the file holds our schema, a newer one, another program's
 * database or nothing yet.  *fresh is set when the schema must be created.
 */
static int check_identity(hj_store *s, int *fresh, int64_t *version, char *err,
                          size_t errlen)
{
	int64_t app = 0, ver = 0, objects = 0;
	int ret;

	*fresh = 0;
	*version = 0;
	ret = pragma_int(s, "PRAGMA application_id", &app, err, errlen);
	if (ret == 0)
		ret = pragma_int(s, "PRAGMA user_version", &ver, err, errlen);
	if (ret == 0)
		ret = pragma_int(s, "SELECT count(*) FROM sqlite_schema",
		                 &objects, err, errlen);
	if (ret != 0) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB) {
			hj_store__say(err, errlen,
			              "%s: not an SQLite database (%s)",
			              s->path, sqlite3_errmsg(s->db));
			return -EINVAL;
		}
		return ret;
	}
	if (app == 0 && ver == 0 && objects == 0) {
		*fresh = 1;
		return 0;
	}
	ret = hj_store__check_version(s, app, ver, 0, err, errlen);
	if (ret == 0)
		*version = ver;
	return ret;
}

/*
 * Creates the schema (fresh) or brings an older version up to this one, in
 * one transaction: a crash leaves the file as it was.
 */
static int create_schema(hj_store *s, char *err, size_t errlen)
{
	char sql[64];
	int64_t ver;
	int fresh, ret;

	ret = exec(s, "BEGIN IMMEDIATE", "create schema", err, errlen);
	if (ret)
		return ret;
	/* Another process may have done it while we waited for the lock. */
	ret = check_identity(s, &fresh, &ver, err, errlen);
	if (ret || (!fresh && ver >= HJ_STORE_SCHEMA_VERSION))
		goto out;
	if (fresh)
		ret = exec(s, schema_sql, "create schema", err, errlen);
	if (ret == 0 && (fresh || ver < 2))
		ret = exec(s, schema_v2_sql,
		           fresh ? "create schema" : "migrate schema 1 to 2",
		           err, errlen);
	if (ret == 0)
		ret = exec(s, schema_v3_sql,
		           fresh ? "create schema" : "migrate schema to 3", err,
		           errlen);
	if (ret)
		goto out;
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d",
	         HJ_APPLICATION_ID);
	ret = exec(s, sql, "create schema", err, errlen);
	if (ret)
		goto out;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d",
	         HJ_STORE_SCHEMA_VERSION);
	ret = exec(s, sql, "create schema", err, errlen);
	if (ret)
		goto out;
	return exec(s, "COMMIT", "create schema", err, errlen);
out:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/* WAL with a fsync at every commit, foreign keys enforced. */
static int configure(hj_store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *mode;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st,
	                       NULL) != SQLITE_OK)
		return db_fail(s, "set WAL mode", err, errlen);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = db_fail(s, "set WAL mode", err, errlen);
	} else {
		mode = sqlite3_column_text(st, 0);
		if (mode == NULL || strcmp((const char *)mode, "wal") != 0) {
			hj_store__say(
			    err, errlen,
			    "%s: cannot use WAL mode (journal mode is %s)",
			    s->path, mode ? (const char *)mode : "unknown");
			ret = -EIO;
		}
	}
	sqlite3_finalize(st);
	if (ret)
		return ret;
	ret = exec(s, "PRAGMA synchronous = FULL", "set synchronous", err,
	           errlen);
	/* A long catch-up grows the WAL; cut it back after checkpoints. */
	if (ret == 0)
		ret = exec(s, "PRAGMA journal_size_limit = 67108864",
		           "set journal size limit", err, errlen);
	if (ret == 0)
		ret = exec(s, "PRAGMA foreign_keys = ON", "enable foreign keys",
		           err, errlen);
	return ret;
}

int hj_store_open(const char *path, hj_store **out, char *err, size_t errlen)
{
	hj_store *s;
	int64_t version;
	int fresh, ret, rc;

	*out = NULL;
	s = calloc(1, sizeof *s);
	if (s == NULL || (s->path = strdup(path)) == NULL) {
		free(s);
		hj_store__say(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = sqlite3_open_v2(path, &s->db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX,
	                     NULL);
	if (rc != SQLITE_OK) {
		hj_store__say(err, errlen, "%s: cannot open: %s", path,
		              s->db ? sqlite3_errmsg(s->db)
		                    : sqlite3_errstr(rc));
		ret = rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, HJ_BUSY_TIMEOUT_MS);

	/* Identity first: a file that is not ours is refused before any
	 * PRAGMA could write to it. */
	ret = check_identity(s, &fresh, &version, err, errlen);
	if (ret)
		goto fail;
	ret = configure(s, err, errlen);
	if (ret)
		goto fail;
	if (fresh || version < HJ_STORE_SCHEMA_VERSION) {
		ret = create_schema(s, err, errlen);
		if (ret)
			goto fail;
	}
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1,
		                       SQLITE_PREPARE_PERSISTENT, &s->st[i],
		                       NULL) != SQLITE_OK) {
			ret = db_fail(s, "prepare", err, errlen);
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	hj_store_close(s);
	return ret;
}

void hj_store_close(hj_store *s)
{
	if (s == NULL)
		return;
	/* An open transaction is rolled back: nothing uncommitted survives. */
	if (s->db && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->saved);
	free(s->next);
	free(s->path);
	free(s);
}

/* Appends ` field: database has "x", configured "y"` to err at *off. */
static void meta_diff(char *err, size_t errlen, size_t *off, const char *field,
                      const char *have, const char *want)
{
	char a[96], b[96];
	int n;

	if (err == NULL || *off >= errlen)
		return;
	hj_quote(have, a, sizeof a);
	hj_quote(want, b, sizeof b);
	/* After "PATH: meta:" the first difference needs no separator. */
	n = snprintf(err + *off, errlen - *off,
	             "%s %s is %s in the database, %s configured",
	             *off && err[*off - 1] != ':' ? ";" : "", field, a, b);
	if (n > 0)
		*off += (size_t)n;
}

/*
 * The rule sets of two meta.rules strings, key by key: each limit or rule
 * key that differs, as meta_diff says it ("rules.double_on is \"9-11\" in
 * the database, \"any\" configured").  Falls back to the whole strings
 * when either does not parse.
 */
static void rules_diff(char *err, size_t errlen, size_t *off, const char *have,
                       const char *want)
{
	static const char *const limits[] = {"preset", "min_bet", "max_bet",
	                                     "timeout_blocks", "max_exposure"};
	hj_rules a, b;
	char va[HJ_RULE_VALUE_MAX], vb[HJ_RULE_VALUE_MAX];
	char field[64], keys[256], why[8];
	hj_amount la[5], lb[5];

	if (hj_store_rules_parse(have, &a, why, sizeof why) ||
	    hj_store_rules_parse(want, &b, why, sizeof why)) {
		meta_diff(err, errlen, off, "rules", have, want);
		return;
	}
	la[1] = a.min_bet, la[2] = a.max_bet, la[3] = a.timeout_blocks;
	la[4] = a.max_exposure;
	lb[1] = b.min_bet, lb[2] = b.max_bet, lb[3] = b.timeout_blocks;
	lb[4] = b.max_exposure;
	if (strcmp(a.preset, b.preset) != 0)
		meta_diff(err, errlen, off, "rules.preset", a.preset, b.preset);
	for (int i = 1; i < 5; i++) {
		char x[HJ_AMOUNT_STRLEN], y[HJ_AMOUNT_STRLEN];
		if (la[i] == lb[i])
			continue;
		snprintf(field, sizeof field, "rules.%s", limits[i]);
		meta_diff(err, errlen, off, field, hj_amount_format(la[i], x),
		          hj_amount_format(lb[i], y));
	}
	hj_rules_diff_keys(&a, &b, keys, sizeof keys);
	char *save = NULL;
	for (char *k = strtok_r(keys, " ", &save); k;
	     k = strtok_r(NULL, " ", &save)) {
		hj_rules_get_key(&a, k, va);
		hj_rules_get_key(&b, k, vb);
		snprintf(field, sizeof field, "rules.%s", k);
		meta_diff(err, errlen, off, field, va, vb);
	}
}

int hj_store_check_meta(hj_store *s, const hj_store_meta *m, char *err,
                        size_t errlen)
{
	const char *want[4] = {m->family, m->chain, m->dealer, m->rules};
	static const char *const name[4] = {"family", "chain", "dealer",
	                                    "rules"};
	sqlite3_stmt *st = s->st[ST_META_GET];
	size_t off = 0;
	int rc, ret = 0, differ = 0;

	for (int i = 0; i < 4; i++) {
		if (want[i] == NULL || want[i][0] == '\0') {
			hj_store__say(err, errlen, "%s: meta: %s is empty",
			              s->path, name[i]);
			return -EINVAL;
		}
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int n = snprintf(err, err ? errlen : 0, "%s: meta:", s->path);

		off = n > 0 && err ? (size_t)n : 0;
		for (int i = 0; i < 4; i++) {
			const char *have =
			    (const char *)sqlite3_column_text(st, i);
			if (have == NULL)
				have = "";
			if (strcmp(have, want[i]) == 0)
				continue;
			if (i == 3)
				rules_diff(err, errlen, &off, have, want[i]);
			else
				meta_diff(err, errlen, &off, name[i], have,
				          want[i]);
			differ = 1;
		}
		if (differ)
			ret = -EINVAL;
	} else if (rc != SQLITE_DONE) {
		ret = db_fail(s, "read meta", err, errlen);
	}
	sqlite3_reset(st);
	if (ret || rc == SQLITE_ROW)
		return ret;

	/* First start: this database now belongs to this configuration. */
	st = s->st[ST_META_PUT];
	for (int i = 0; i < 4; i++) {
		if (hj_store__bind_text(st, i + 1, want[i]) != SQLITE_OK) {
			sqlite3_clear_bindings(st);
			return db_fail(s, "store meta", err, errlen);
		}
	}
	return step_done(s, st, "store meta", err, errlen);
}

void hj_store_rules_str(const hj_rules *r, char *buf, size_t n)
{
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN], e[HJ_AMOUNT_STRLEN];
	hj_rules base;
	int used;

	used = snprintf(
	    buf, n, "preset=%s min_bet=%s max_bet=%s timeout_blocks=%u%s%s",
	    r->preset ? r->preset : "", hj_amount_format(r->min_bet, a),
	    hj_amount_format(r->max_bet, b), (unsigned)r->timeout_blocks,
	    r->max_exposure ? " max_exposure=" : "",
	    r->max_exposure ? hj_amount_format(r->max_exposure, e) : "");
	/* Then each rule key whose value is not the preset's. */
	if (!r->preset || hj_rules_preset(r->preset, &base) != 0)
		return;
	for (size_t i = 0; hj_rule_keys[i] && used >= 0 && (size_t)used < n;
	     i++) {
		char mine[HJ_RULE_VALUE_MAX], theirs[HJ_RULE_VALUE_MAX];

		hj_rules_get_key(r, hj_rule_keys[i], mine);
		hj_rules_get_key(&base, hj_rule_keys[i], theirs);
		if (strcmp(mine, theirs) != 0)
			used += snprintf(buf + used, n - (size_t)used, " %s=%s",
			                 hj_rule_keys[i], mine);
	}
}

/* The value of "key=" at *s, up to the next space or the end; *s moves
 * past it.  NULL when *s does not begin with key=. */
static const char *rules_field(const char **s, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *v;

	if (strncmp(*s, key, k) != 0 || (*s)[k] != '=')
		return NULL;
	v = *s + k + 1;
	*len = strcspn(v, " ");
	*s = v + *len;
	return v;
}

int hj_store_rules_parse(const char *s, hj_rules *out, char *err, size_t errlen)
{
	static const char *const key[] = {"preset", "min_bet", "max_bet",
	                                  "timeout_blocks", "max_exposure"};
	hj_amount amt[5] = {0};
	char name[32], why[200], shown[100];
	const char *p = s, *v;
	size_t len = 0;
	int nkeys = 0;
	hj_rules r;

	for (int i = 0; i < 5; i++, nkeys++) {
		/* max_exposure is the only optional limit, and the last. */
		if (i == 4 && strncmp(p, " max_exposure=", 14) != 0)
			break;
		if (i > 0 && *p++ != ' ') {
			hj_store__say(err, errlen,
			              "expected a space at offset %zu",
			              (size_t)(p - 1 - s));
			return -EINVAL;
		}
		v = rules_field(&p, key[i], &len);
		if (v == NULL) {
			hj_store__say(err, errlen,
			              "expected \"%s=\" at offset %zu", key[i],
			              (size_t)(p - s));
			return -EINVAL;
		}
		if (i == 0) {
			if (len >= sizeof name)
				len = sizeof name - 1;
			memcpy(name, v, len);
			name[len] = '\0';
		} else if (hj_amount_parse(v, len, &amt[i])) {
			hj_store__say(err, errlen,
			              "%s: \"%.*s\" is not a canonical decimal",
			              key[i], (int)(len > 40 ? 40 : len), v);
			return -EINVAL;
		}
	}
	/* Written only when not 0, so 0 is not the canonical form. */
	if (nkeys == 5 && amt[4] == 0) {
		hj_store__say(
		    err, errlen,
		    "max_exposure: 0 is never written (no limit leaves the key "
		    "out)");
		return -EINVAL;
	}
	if (amt[3] > UINT32_MAX) {
		hj_store__say(err, errlen, "timeout_blocks: above 4294967295");
		return -EINVAL;
	}
	if (hj_rules_preset(name, &r) != 0) {
		hj_quote(name, shown, sizeof shown);
		hj_store__say(err, errlen,
		              "preset %s: not a preset this hashjack knows",
		              shown);
		return -EINVAL;
	}
	/* The rule keys that differ from the preset, in hj_rule_keys order,
	 * each written only when it differs. */
	for (size_t k = 0; *p == ' ' && hj_rule_keys[k]; k++) {
		char val[HJ_RULE_VALUE_MAX], preset_val[HJ_RULE_VALUE_MAX];
		const char *q = p + 1;

		v = rules_field(&q, hj_rule_keys[k], &len);
		if (v == NULL)
			continue; /* not written: the preset's value */
		p = q;
		if (len >= sizeof val) {
			hj_store__say(err, errlen, "%s: value too long",
			              hj_rule_keys[k]);
			return -EINVAL;
		}
		memcpy(val, v, len);
		val[len] = '\0';
		hj_rules_get_key(&r, hj_rule_keys[k], preset_val);
		if (hj_rules_set_key(&r, hj_rule_keys[k], val, why,
		                     sizeof why)) {
			hj_quote(val, shown, sizeof shown);
			hj_store__say(err, errlen, "%s=%s: %s", hj_rule_keys[k],
			              shown, why);
			return -EINVAL;
		}
		if (strcmp(val, preset_val) == 0) {
			hj_store__say(err, errlen,
			              "%s=%s: the preset's own value is never "
			              "written",
			              hj_rule_keys[k], val);
			return -EINVAL;
		}
	}
	if (*p != '\0') {
		hj_store__say(err, errlen, "unexpected text at offset %zu",
		              (size_t)(p - s));
		return -EINVAL;
	}
	r.min_bet = amt[1];
	r.max_bet = amt[2];
	r.timeout_blocks = (uint32_t)amt[3];
	r.max_exposure = amt[4];
	if (hj_rules_check(&r, why, sizeof why)) {
		hj_store__say(err, errlen, "%s", why);
		return -EINVAL;
	}
	*out = r;
	return 0;
}

int hj_store_get_cursor(hj_store *s, hj_cursor *c, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_CURSOR_GET];
	int rc, ret = 0;

	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		hj_store__say(err, errlen, "%s: no block processed yet",
		              s->path);
		ret = -ENOENT;
	} else if (rc != SQLITE_ROW) {
		ret = db_fail(s, "read cursor", err, errlen);
	} else if (sqlite3_column_type(st, 1) != SQLITE_BLOB ||
	           sqlite3_column_bytes(st, 1) != 32 ||
	           sqlite3_column_int64(st, 2) < 0) {
		hj_store__say(err, errlen, "%s: cursor row is damaged",
		              s->path);
		ret = -EINVAL;
	} else {
		memset(c, 0, sizeof *c);
		/* height, dev and ino are stored as the int64 with their
		 * bits: a daemon starting at block 0 stores 2^64-1 as -1. */
		c->height = (uint64_t)sqlite3_column_int64(st, 0);
		memcpy(c->hash, sqlite3_column_blob(st, 1), 32);
		c->log_offset = (uint64_t)sqlite3_column_int64(st, 2);
		c->log_dev = (uint64_t)sqlite3_column_int64(st, 3);
		c->log_ino = (uint64_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	return ret;
}

int hj_store_set_cursor(hj_store *s, const hj_cursor *c, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_CURSOR_PUT];
	int ret;

	if ((ret = in_tx(s, "set cursor", err, errlen)) ||
	    (ret = fits_i64(c->log_offset, "cursor: log offset", err, errlen)))
		return ret;
	if (sqlite3_bind_int64(st, 1, (sqlite3_int64)c->height) ||
	    sqlite3_bind_blob(st, 2, c->hash, 32, SQLITE_STATIC) ||
	    sqlite3_bind_int64(st, 3, (sqlite3_int64)c->log_offset) ||
	    sqlite3_bind_int64(st, 4, (sqlite3_int64)c->log_dev) ||
	    sqlite3_bind_int64(st, 5, (sqlite3_int64)c->log_ino)) {
		sqlite3_clear_bindings(st);
		return db_fail(s, "set cursor", err, errlen);
	}
	return step_done(s, st, "set cursor", err, errlen);
}

int hj_store_begin(hj_store *s, char *err, size_t errlen)
{
	if (!sqlite3_get_autocommit(s->db)) {
		hj_store__say(err, errlen,
		              "%s: begin: a transaction is already open",
		              s->path);
		return -EINVAL;
	}
	return step_done(s, s->st[ST_BEGIN], "begin", err, errlen);
}

int hj_store_commit(hj_store *s, char *err, size_t errlen)
{
	int ret;

	if ((ret = in_tx(s, "commit", err, errlen)))
		return ret;
	ret = step_done(s, s->st[ST_COMMIT], "commit", err, errlen);
	if (ret == 0)
		return 0;
	/* A failed COMMIT (a deferred foreign key, a full disk) leaves the
	 * transaction open in SQLite; end it so that none of it lands. */
	if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_FOREIGNKEY)
		hj_store__say(
		    err, errlen,
		    "%s: commit: a round or payout refers to a transaction "
		    "that was not recorded (FOREIGN KEY constraint failed); "
		    "rolled back",
		    s->path);
	hj_store_rollback(s);
	return ret;
}

void hj_store_rollback(hj_store *s)
{
	s->saved_valid = 0;
	if (!sqlite3_get_autocommit(s->db))
		(void)step_done(s, s->st[ST_ROLLBACK], "rollback", NULL, 0);
}

static int grow(struct saved_round **v, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 16;
	struct saved_round *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * sizeof *p);
	if (p == NULL)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/* Opening order: block, then position in the block. */
static int key_cmp(const struct saved_round *a, const struct saved_round *b)
{
	if (a->bet_height != b->bet_height)
		return a->bet_height < b->bet_height ? -1 : 1;
	if (a->bet_tx_index != b->bet_tx_index)
		return a->bet_tx_index < b->bet_tx_index ? -1 : 1;
	return 0;
}

static int round_put(hj_store *s, const struct saved_round *r,
                     const hj_round *round, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_ROUND_PUT];
	char hex[65];
	int ret;

	if (sqlite3_bind_blob(st, 1, r->id.b, r->id.len, SQLITE_STATIC) ||
	    sqlite3_bind_blob(st, 2, round->player.b, round->player.len,
	                      SQLITE_STATIC) ||
	    sqlite3_bind_int64(st, 3, (sqlite3_int64)r->bet_height) ||
	    sqlite3_bind_int64(st, 4, r->bet_tx_index) ||
	    sqlite3_bind_blob(st, 5, r->data, r->len, SQLITE_STATIC)) {
		sqlite3_clear_bindings(st);
		return db_fail(s, "save round", err, errlen);
	}
	ret = step_done(s, st, "save round", err, errlen);
	if (ret == -EINVAL)
		hj_store__say(err, errlen, "%s: save round %s: %s", s->path,
		              hj_store__id_hex(&r->id, hex),
		              sqlite3_errmsg(s->db));
	return ret;
}

static int round_del(hj_store *s, const hj_id *id, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_ROUND_DEL];

	if (sqlite3_bind_blob(st, 1, id->b, id->len, SQLITE_STATIC)) {
		sqlite3_clear_bindings(st);
		return db_fail(s, "delete round", err, errlen);
	}
	return step_done(s, st, "delete round", err, errlen);
}

/* Encodes the table's rounds into s->next, checking what the rows rely on:
 * ids and players present, opening order strictly increasing. */
static int snapshot(hj_store *s, const hj_table *t, char *err, size_t errlen)
{
	size_t n = hj_table_count(t);
	char hex[65];

	if (grow(&s->next, &s->capnext, n)) {
		hj_store__say(err, errlen, "%s: save rounds: out of memory",
		              s->path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const hj_round *r = hj_table_round(t, i);
		struct saved_round *x = &s->next[i];

		x->id = r->id;
		x->bet_height = r->bet_height;
		x->bet_tx_index = r->bet_tx_index;
		if (r->id.len < 1 || r->id.len > 32 || r->player.len < 1 ||
		    r->player.len > 32 || r->phase == HJ_PH_DONE) {
			hj_store__say(
			    err, errlen,
			    "%s: save rounds: round %s has no id or player, "
			    "or is settled",
			    s->path, hj_store__id_hex(&r->id, hex));
			return -EINVAL;
		}
		if (fits_i64(r->bet_height, "save rounds: bet height", err,
		             errlen))
			return -EINVAL;
		if (i > 0 && key_cmp(&s->next[i - 1], x) >= 0) {
			hj_store__say(
			    err, errlen,
			    "%s: save rounds: round %s (block %llu, index %u) "
			    "is not after the previous one in opening order",
			    s->path, hj_store__id_hex(&r->id, hex),
			    (unsigned long long)r->bet_height, r->bet_tx_index);
			return -EINVAL;
		}
		x->len = (uint16_t)hj_round_encode(r, x->data);
	}
	return 0;
}

int hj_store_save_rounds(hj_store *s, const hj_table *t, char *err,
                         size_t errlen)
{
	size_t n = hj_table_count(t), i = 0, j = 0;
	struct saved_round *tmp;
	size_t tmpcap;
	int ret;

	if ((ret = in_tx(s, "save rounds", err, errlen)))
		return ret;
	if ((ret = snapshot(s, t, err, errlen)))
		return ret;

	/* Until this save completes, the table and s->saved may differ. */
	int merge = s->saved_valid;
	s->saved_valid = 0;
	if (!merge) {
		ret = step_done(s, s->st[ST_ROUNDS_CLEAR], "save rounds", err,
		                errlen);
		for (j = 0; ret == 0 && j < n; j++)
			ret = round_put(s, &s->next[j], hj_table_round(t, j),
			                err, errlen);
	} else {
		/* Both lists are in opening order.  A round leaves before any
		 * later one is written, so a player whose round ended and who
		 * bet again never has two rows at once. */
		while (ret == 0 && (i < s->nsaved || j < n)) {
			const struct saved_round *a =
			    i < s->nsaved ? &s->saved[i] : NULL;
			const struct saved_round *b =
			    j < n ? &s->next[j] : NULL;
			int c = a == NULL ? 1 : b == NULL ? -1 : key_cmp(a, b);

			if (c < 0) {
				ret = round_del(s, &a->id, err, errlen);
				i++;
			} else if (c > 0) {
				ret = round_put(s, b, hj_table_round(t, j), err,
				                errlen);
				j++;
			} else {
				if (!hj_id_eq(&a->id, &b->id))
					ret = round_del(s, &a->id, err, errlen);
				if (ret == 0 &&
				    (!hj_id_eq(&a->id, &b->id) ||
				     a->len != b->len ||
				     memcmp(a->data, b->data, a->len) != 0))
					ret = round_put(s, b,
					                hj_table_round(t, j),
					                err, errlen);
				i++;
				j++;
			}
		}
	}
	if (ret)
		return ret;
	tmp = s->saved;
	tmpcap = s->capsaved;
	s->saved = s->next;
	s->capsaved = s->capnext;
	s->nsaved = n;
	s->next = tmp;
	s->capnext = tmpcap;
	s->saved_valid = 1;
	return 0;
}

/* Checks that a loaded row agrees with the round its blob decodes to. */
static int row_matches(sqlite3_stmt *st, const hj_round *r, const char **why)
{
	hj_id player;

	if (hj_store__column_id(st, 1, &player) ||
	    !hj_id_eq(&player, &r->player)) {
		*why = "player column differs from the encoded round";
		return 0;
	}
	if (sqlite3_column_int64(st, 2) < 0 ||
	    (uint64_t)sqlite3_column_int64(st, 2) != r->bet_height ||
	    sqlite3_column_int64(st, 3) != (sqlite3_int64)r->bet_tx_index) {
		*why = "bet height or index column differs from the encoded "
		       "round";
		return 0;
	}
	return 1;
}

int hj_store_load_rounds(hj_store *s, hj_table *t, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_ROUNDS_LOAD];
	char why[160], hex[65];
	const char *bad;
	size_t n = 0;
	int rc, ret = 0;

	/* s->saved is refilled from what is read; valid only if all is. */
	s->saved_valid = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 4);
		int len = sqlite3_column_bytes(st, 4);
		hj_id id;
		hj_round r;

		if (hj_store__column_id(st, 0, &id)) {
			hj_store__say(err, errlen,
			              "%s: load rounds: row %zu has no "
			              "valid round id",
			              s->path, n + 1);
			ret = -EINVAL;
			break;
		}
		if (sqlite3_column_type(st, 4) != SQLITE_BLOB ||
		    len > HJ_ROUND_ENCODED_MAX) {
			hj_store__say(err, errlen,
			              "%s: load rounds: round %s: data is "
			              "not a round encoding (%d bytes)",
			              s->path, hj_store__id_hex(&id, hex), len);
			ret = -EINVAL;
			break;
		}
		if (hj_round_decode(blob, (size_t)len, &r, why, sizeof why)) {
			hj_store__say(err, errlen,
			              "%s: load rounds: round %s: %s", s->path,
			              hj_store__id_hex(&id, hex), why);
			ret = -EINVAL;
			break;
		}
		if (!hj_id_eq(&id, &r.id)) {
			hj_store__say(err, errlen,
			              "%s: load rounds: round %s: the "
			              "encoded round has id %s",
			              s->path, hj_store__id_hex(&id, hex),
			              hj_store__id_hex(&r.id, why));
			ret = -EINVAL;
			break;
		}
		if (!row_matches(st, &r, &bad)) {
			hj_store__say(err, errlen,
			              "%s: load rounds: round %s: %s", s->path,
			              hj_store__id_hex(&id, hex), bad);
			ret = -EINVAL;
			break;
		}
		ret = hj_table_restore(t, &r);
		if (ret) {
			hj_store__say(
			    err, errlen, "%s: load rounds: round %s: %s",
			    s->path, hj_store__id_hex(&id, hex),
			    ret == -EEXIST ? "its player already has an open "
			                     "round in the table"
			                   : "out of memory");
			break;
		}
		if (grow(&s->saved, &s->capsaved, n + 1)) {
			hj_store__say(err, errlen,
			              "%s: load rounds: out of memory",
			              s->path);
			ret = -ENOMEM;
			break;
		}
		struct saved_round *x = &s->saved[n++];
		x->id = id;
		x->bet_height = r.bet_height;
		x->bet_tx_index = r.bet_tx_index;
		x->len = (uint16_t)len;
		memcpy(x->data, blob, (size_t)len);
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "load rounds", err, errlen);
	sqlite3_reset(st);
	if (ret == 0) {
		s->nsaved = n;
		s->saved_valid = 1;
	}
	return ret;
}

static int outcome_known(const char *o)
{
	static const char *const names[] = {"accepted", "rejected", "deposit",
	                                    "ignored"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (o && strcmp(o, names[i]) == 0)
			return 1;
	return 0;
}

int hj_store_add_tx(hj_store *s, uint64_t height, const hj_action *a,
                    const char *outcome, hj_reason reason, const hj_id *round,
                    char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_TX_ADD];
	char value[HJ_AMOUNT_STRLEN], hex[65];
	int ret;

	if ((ret = in_tx(s, "add tx", err, errlen)) ||
	    (ret = fits_i64(height, "add tx: height", err, errlen)))
		return ret;
	if (a->txid.len < 1 || a->txid.len > 32 || a->sender.len > 32 ||
	    (round && round->len > 32)) {
		hj_store__say(err, errlen,
		              "%s: add tx: txid, sender or round of bad "
		              "length",
		              s->path);
		return -EINVAL;
	}
	if (!outcome_known(outcome) || (unsigned)reason >= HJ_R_COUNT ||
	    (unsigned)a->act > HJ_PEEK) {
		hj_store__say(err, errlen,
		              "%s: add tx %s: unknown outcome, action or "
		              "reason",
		              s->path, hj_store__id_hex(&a->txid, hex));
		return -EINVAL;
	}
	if (hj_store__bind_id(st, 1, &a->txid) ||
	    sqlite3_bind_int64(st, 2, (sqlite3_int64)height) ||
	    sqlite3_bind_int64(st, 3, a->tx_index) ||
	    hj_store__bind_id(st, 4, &a->sender) ||
	    hj_store__bind_text(st, 5, hj_amount_format(a->value, value)) ||
	    hj_store__bind_text(st, 6, outcome) ||
	    hj_store__bind_text(
	        st, 7, a->act != HJ_ACT_NONE ? hj_act_name(a->act) : NULL) ||
	    hj_store__bind_text(
	        st, 8, reason != HJ_OK ? hj_reason_name(reason) : NULL) ||
	    hj_store__bind_id(st, 9, round)) {
		sqlite3_clear_bindings(st);
		return db_fail(s, "add tx", err, errlen);
	}
	ret = step_done(s, st, "add tx", err, errlen);
	if (ret == -EEXIST)
		hj_store__say(err, errlen, "%s: add tx: %s already recorded",
		              s->path, hj_store__id_hex(&a->txid, hex));
	else if (ret == -EINVAL)
		hj_store__say(err, errlen,
		              "%s: add tx %s (block %llu, index %u): %s",
		              s->path, hj_store__id_hex(&a->txid, hex),
		              (unsigned long long)height, a->tx_index,
		              sqlite3_errmsg(s->db));
	return ret;
}

/* The fields a payout of each kind must and must not have. */
static const char *payout_invalid(const hj_payout *p)
{
	size_t k;

	if (p->id == NULL || p->kind == NULL)
		return "id or kind missing";
	if (strcmp(p->kind, "return") != 0 &&
	    strcmp(p->kind, "insurance") != 0 &&
	    strcmp(p->kind, "sidebet") != 0 && strcmp(p->kind, "refund") != 0)
		return "kind is not return, insurance, sidebet or refund";
	k = strlen(p->kind);
	if (strncmp(p->id, p->kind, k) != 0 || p->id[k] != ':')
		return "id does not begin with its kind";
	for (const char *c = p->id; *c; c++)
		if (*c <= ' ' || *c >= 0x7f || (*c >= 'A' && *c <= 'Z'))
			return "id holds a character other than lower-case "
			       "printable ASCII";
	if ((p->round && (p->round->len < 1 || p->round->len > 32)) ||
	    (p->txid && (p->txid->len < 1 || p->txid->len > 32)) ||
	    (p->recipient && p->recipient->len > 32))
		return "round, txid or recipient of bad length";
	if (strcmp(p->kind, "return") == 0 && (!p->round || p->hand < 0))
		return "a return needs its round and hand";
	if ((strcmp(p->kind, "insurance") == 0 ||
	     strcmp(p->kind, "sidebet") == 0) &&
	    (!p->round || p->hand != -1))
		return "an insurance or side bet return needs its round and "
		       "no hand";
	if (strcmp(p->kind, "refund") == 0 && (!p->txid || p->hand != -1))
		return "a refund needs its transaction and no hand";
	if (strcmp(p->kind, "refund") != 0 && p->txid)
		return "only a refund names a transaction";
	if (p->amount == 0)
		return "amount 0: nothing is owed";
	return NULL;
}

int hj_store_add_payout(hj_store *s, const hj_payout *p, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_PAYOUT_ADD];
	char amount[HJ_AMOUNT_STRLEN], q[96];
	const char *bad;
	int ret;

	if ((ret = in_tx(s, "add payout", err, errlen)) ||
	    (ret = fits_i64(p->height, "add payout: height", err, errlen)))
		return ret;
	if ((bad = payout_invalid(p)) != NULL) {
		hj_quote(p->id ? p->id : "", q, sizeof q);
		hj_store__say(err, errlen, "%s: add payout %s: %s", s->path, q,
		              bad);
		return -EINVAL;
	}
	if (hj_store__bind_text(st, 1, p->id) ||
	    hj_store__bind_text(st, 2, p->kind) ||
	    hj_store__bind_id(st, 3, p->round) ||
	    (p->hand >= 0 ? sqlite3_bind_int(st, 4, p->hand)
	                  : sqlite3_bind_null(st, 4)) ||
	    hj_store__bind_id(st, 5, p->txid) ||
	    hj_store__bind_id(st, 6, p->recipient) ||
	    hj_store__bind_text(st, 7, hj_amount_format(p->amount, amount)) ||
	    sqlite3_bind_int64(st, 8, (sqlite3_int64)p->height)) {
		sqlite3_clear_bindings(st);
		return db_fail(s, "add payout", err, errlen);
	}
	ret = step_done(s, st, "add payout", err, errlen);
	if (ret == -EEXIST || ret == -EINVAL) {
		hj_quote(p->id, q, sizeof q);
		if (ret == -EEXIST)
			hj_store__say(err, errlen,
			              "%s: add payout: %s already recorded",
			              s->path, q);
		else
			hj_store__say(err, errlen, "%s: add payout %s: %s",
			              s->path, q, sqlite3_errmsg(s->db));
	}
	return ret;
}

int hj_store_owed(hj_store *s, uint64_t *count, hj_amount *sum, char *err,
                  size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_OWED];
	uint64_t n = 0;
	hj_amount total = 0;
	char q[96];
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *txt = (const char *)sqlite3_column_text(st, 1);
		int len = sqlite3_column_bytes(st, 1);
		hj_amount v;

		if (txt == NULL || hj_amount_parse(txt, (size_t)len, &v)) {
			hj_quote(id ? id : "", q, sizeof q);
			hj_store__say(err, errlen,
			              "%s: payout %s: amount is not a "
			              "canonical decimal",
			              s->path, q);
			ret = -EINVAL;
			break;
		}
		if (v > HJ_AMOUNT_MAX - total) {
			hj_store__say(err, errlen,
			              "%s: owed payouts sum above 2^128-1",
			              s->path);
			ret = -ERANGE;
			break;
		}
		total += v;
		n++;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "sum owed payouts", err, errlen);
	sqlite3_reset(st);
	if (ret == 0) {
		*count = n;
		*sum = total;
	}
	return ret;
}

/* ---- settlement ---- */

/*
 * Settlement runs a handful of statements per processed block, so they are
 * prepared at each use.  run() binds its arguments by fmt, one character
 * each: 'i' an int64_t, 't' a string, 'b' 32 bytes (a txid); NULL binds
 * NULL; ?1, ?2, ... in order.  *changes (may be NULL) gets the rows
 * changed.
 */
static int run(hj_store *s, const char *op, const char *sql, int *changes,
               char *err, size_t errlen, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int i = 1, bad = 0, ret;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, op, err, errlen);
	va_start(ap, fmt);
	/* Arguments past the statement's last parameter are not bound:
	 * callers pass one layout to several statements. */
	for (const char *f = fmt; *f && !bad; f++, i++) {
		int64_t v = 0;
		const char *t = NULL;
		const uint8_t *b = NULL;

		if (*f == 'i')
			v = va_arg(ap, int64_t);
		else if (*f == 't')
			t = va_arg(ap, const char *);
		else
			b = va_arg(ap, const uint8_t *);
		if (i > sqlite3_bind_parameter_count(st))
			continue;
		if (*f == 'i')
			bad = sqlite3_bind_int64(st, i, v);
		else if (*f == 't')
			bad = hj_store__bind_text(st, i, t);
		else if (b == NULL)
			bad = sqlite3_bind_null(st, i);
		else
			bad = sqlite3_bind_blob(st, i, b, 32, SQLITE_STATIC);
	}
	va_end(ap);
	if (bad) {
		ret = db_fail(s, op, err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	ret = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, op, err, errlen);
	if (ret == 0 && changes != NULL)
		*changes = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return ret;
}

/* One integer from a query with ?1 = id. */
static int query_i64(hj_store *s, const char *op, const char *sql, int64_t id,
                     int64_t *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, op, err, errlen);
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		ret = db_fail(s, op, err, errlen);
	else
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ret;
}

/* A canonical amount column, or -EINVAL naming what it belongs to. */
static int column_amount(hj_store *s, sqlite3_stmt *st, int i, const char *what,
                         const char *name, hj_amount *v, char *err,
                         size_t errlen)
{
	const char *txt = (const char *)sqlite3_column_text(st, i);
	char q[96];

	if (txt == NULL ||
	    hj_amount_parse(txt, (size_t)sqlite3_column_bytes(st, i), v)) {
		hj_quote(name ? name : "", q, sizeof q);
		hj_store__say(err, errlen,
		              "%s: %s %s: amount is not a canonical decimal",
		              s->path, what, q);
		return -EINVAL;
	}
	return 0;
}

int hj_store_payer_tag(hj_store *s, char tag[17], char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT tag FROM settlement WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "read the payer tag", err, errlen);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = db_fail(s, "read the payer tag", err, errlen);
	} else {
		t = (const char *)sqlite3_column_text(st, 0);
		if (t == NULL || strlen(t) != 16) {
			hj_store__say(err, errlen,
			              "%s: settlement tag is not 16 digits",
			              s->path);
			ret = -EINVAL;
		} else {
			memcpy(tag, t, 17);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

/* An owed payout is free when no planned batch holds it (a sent or
 * confirmed batch's payouts are no longer owed; a refused or reverted
 * batch let its payouts go). */
#define FREE_OWED(p)                                                           \
	"NOT EXISTS (SELECT 1 FROM payout_batch_items i JOIN payout_batches "  \
	"b ON b.id = i.batch WHERE i.payout = " p " AND b.state = 'planned')"

int hj_store_each_unbatched(hj_store *s,
                            int (*fn)(void *arg, const hj_owed_payout *p),
                            void *arg, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT p.id, p.recipient, p.amount, p.created_height FROM payouts "
	    "p WHERE p.state = 'owed' AND " FREE_OWED(
	        "p.id") " ORDER BY p.created_height, p.id";
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "list owed payouts", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_owed_payout p;

		memset(&p, 0, sizeof p);
		p.id = (const char *)sqlite3_column_text(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
		    hj_store__column_id(st, 1, &p.recipient)) {
			hj_store__say(err, errlen,
			              "%s: payout %s: recipient of bad length",
			              s->path, p.id ? p.id : "?");
			ret = -EINVAL;
			break;
		}
		ret = column_amount(s, st, 2, "payout", p.id, &p.amount, err,
		                    errlen);
		if (ret)
			break;
		p.height = (uint64_t)sqlite3_column_int64(st, 3);
		ret = fn(arg, &p);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "list owed payouts", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_plan_batch(hj_store *s, const hj_batch_plan *plan, int64_t *id,
                        char *err, size_t errlen)
{
	char total_s[HJ_AMOUNT_STRLEN], amt[HJ_AMOUNT_STRLEN], q[96];
	hj_amount total = 0, paid = 0;
	int ret, n;

	if ((ret = in_tx(s, "plan batch", err, errlen)) ||
	    (ret = fits_i64(plan->height, "plan batch: height", err, errlen)))
		return ret;
	if (plan->nouts == 0 || plan->npayouts == 0) {
		hj_store__say(err, errlen,
		              "%s: plan batch: no output or no payout",
		              s->path);
		return -EINVAL;
	}
	for (size_t i = 0; i < plan->nouts; i++) {
		hj_amount v = plan->outs[i].amount;

		if (v == 0 || v > HJ_AMOUNT_MAX - total ||
		    plan->outs[i].address == NULL) {
			hj_store__say(
			    err, errlen,
			    "%s: plan batch: output %zu has no address, "
			    "amount 0, or the sum overflows",
			    s->path, i);
			return -EINVAL;
		}
		total += v;
	}
	if (plan->version != NULL &&
	    (plan->nouts != 1 || plan->gas_limit == 0 ||
	     plan->gas_limit > INT64_MAX || plan->nonce > INT64_MAX)) {
		hj_store__say(
		    err, errlen,
		    "%s: plan batch: a transaction with a nonce has one "
		    "output, a gas limit and a signed version",
		    s->path);
		return -EINVAL;
	}
	ret = run(s, "plan batch",
	          "INSERT INTO payout_batches (state, created_height, "
	          "created_at, outputs, total, nonce, gas_limit) VALUES "
	          "('planned', ?1, ?2, ?3, ?4, CASE WHEN ?7 THEN ?5 END, CASE "
	          "WHEN ?7 THEN ?6 END)",
	          NULL, err, errlen, "iiitiii", (int64_t)plan->height,
	          plan->now, (int64_t)plan->nouts,
	          hj_amount_format(total, total_s), (int64_t)plan->nonce,
	          (int64_t)plan->gas_limit, (int64_t)(plan->version != NULL));
	if (ret == -EINVAL) {
		/* The unique indexes on planned batches and on nonces. */
		hj_store__say(
		    err, errlen, "%s: plan batch: a batch is already planned%s",
		    s->path,
		    plan->version ? ", or its nonce is already used" : "");
		return -EEXIST;
	}
	if (ret)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	for (size_t i = 0; i < plan->nouts && ret == 0; i++) {
		ret = run(s, "plan batch: output",
		          "INSERT INTO payout_batch_outputs (batch, address, "
		          "amount) VALUES (?1, ?2, ?3)",
		          NULL, err, errlen, "itt", *id, plan->outs[i].address,
		          hj_amount_format(plan->outs[i].amount, amt));
		if (ret == -EEXIST)
			hj_store__say(err, errlen,
			              "%s: plan batch: address %s given twice",
			              s->path, plan->outs[i].address);
	}
	for (size_t i = 0; i < plan->npayouts && ret == 0; i++) {
		const char *pid = plan->payouts[i];
		sqlite3_stmt *st = NULL;
		hj_amount v;

		ret =
		    run(s, "plan batch: payout",
		        "INSERT INTO payout_batch_items (batch, payout) SELECT "
		        "?1, p.id FROM payouts p WHERE p.id = ?2 AND p.state = "
		        "'owed' AND " FREE_OWED("p.id"),
		        &n, err, errlen, "it", *id, pid);
		hj_quote(pid ? pid : "", q, sizeof q);
		if (ret == 0 && n != 1) {
			hj_store__say(
			    err, errlen,
			    "%s: plan batch: payout %s is not owed, or is "
			    "already in a planned batch (this one included)",
			    s->path, q);
			ret = -EINVAL;
			break;
		}
		if (ret)
			break;
		if (sqlite3_prepare_v2(
		        s->db, "SELECT amount FROM payouts WHERE id = ?1", -1,
		        &st, NULL) != SQLITE_OK ||
		    hj_store__bind_text(st, 1, pid) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			ret = db_fail(s, "plan batch: payout", err, errlen);
		} else {
			ret = column_amount(s, st, 0, "payout", pid, &v, err,
			                    errlen);
			if (ret == 0 && v > HJ_AMOUNT_MAX - paid)
				ret = -ERANGE;
			if (ret == 0)
				paid += v;
		}
		sqlite3_finalize(st);
	}
	if (ret == 0 && paid != total) {
		char a[HJ_AMOUNT_STRLEN];

		hj_store__say(
		    err, errlen,
		    "%s: plan batch: the payouts add up to %s, the outputs to "
		    "%s",
		    s->path, hj_amount_format(paid, a), total_s);
		ret = -EINVAL;
	}
	if (ret == 0 && plan->version != NULL)
		ret = hj_store_add_version(s, *id, plan->version, err, errlen);
	return ret;
}

int hj_store_open_batches(hj_store *s, int64_t after, hj_batch *out, size_t max,
                          size_t *n, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT id, state, created_height, created_at, attempts, txid, "
	    "sent_height, outputs, total, coalesce(nonce, -1), "
	    "coalesce(gas_limit, 0), sent_at FROM payout_batches WHERE state "
	    "IN ('planned', 'sent') AND id > ?1 ORDER BY id LIMIT ?2";
	sqlite3_stmt *st = NULL;
	size_t k = 0;
	int rc, ret = 0;

	*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "list batches", err, errlen);
	if (sqlite3_bind_int64(st, 1, after) ||
	    sqlite3_bind_int64(st, 2, (int64_t)max)) {
		ret = db_fail(s, "list batches", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < max) {
		hj_batch *b = &out[k];
		const char *state = (const char *)sqlite3_column_text(st, 1);
		char name[32];

		memset(b, 0, sizeof *b);
		b->id = sqlite3_column_int64(st, 0);
		snprintf(name, sizeof name, "%lld", (long long)b->id);
		b->sent = state != NULL && strcmp(state, "sent") == 0;
		b->created_height = (uint64_t)sqlite3_column_int64(st, 2);
		b->created_at = sqlite3_column_int64(st, 3);
		b->attempts = (unsigned)sqlite3_column_int64(st, 4);
		if (b->sent) {
			if (sqlite3_column_bytes(st, 5) != 32) {
				hj_store__say(
				    err, errlen,
				    "%s: batch %s: sent without a txid",
				    s->path, name);
				ret = -EINVAL;
				break;
			}
			memcpy(b->txid, sqlite3_column_blob(st, 5), 32);
			b->sent_height = (uint64_t)sqlite3_column_int64(st, 6);
		}
		b->outputs = (unsigned)sqlite3_column_int64(st, 7);
		ret = column_amount(s, st, 8, "batch", name, &b->total, err,
		                    errlen);
		if (ret)
			break;
		b->nonce = sqlite3_column_int64(st, 9);
		b->gas_limit = (uint64_t)sqlite3_column_int64(st, 10);
		b->sent_at = sqlite3_column_int64(st, 11);
		k++;
	}
	if (ret == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = db_fail(s, "list batches", err, errlen);
	sqlite3_finalize(st);
	*n = k;
	return ret;
}

int hj_store_planned_batch(hj_store *s, hj_batch *out, int *found, char *err,
                           size_t errlen)
{
	int64_t id = 0;
	size_t n = 0;
	int ret =
	    query_i64(s, "planned batch",
	              "SELECT coalesce((SELECT id FROM payout_batches WHERE "
	              "state = 'planned'), 0 * ?1)",
	              0, &id, err, errlen);

	*found = 0;
	if (ret || id == 0)
		return ret;
	ret = hj_store_open_batches(s, id - 1, out, 1, &n, err, errlen);
	if (ret == 0 && (n != 1 || out->id != id || out->sent)) {
		hj_store__say(err, errlen, "%s: planned batch %lld vanished",
		              s->path, (long long)id);
		ret = -EIO;
	}
	*found = ret == 0;
	return ret;
}

int hj_store_batch_outputs(hj_store *s, int64_t id,
                           int (*fn)(void *arg, const char *address,
                                     hj_amount amount),
                           void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db,
	                       "SELECT address, amount FROM "
	                       "payout_batch_outputs WHERE batch = ?1 "
	                       "ORDER BY address",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "batch outputs", err, errlen);
	if (sqlite3_bind_int64(st, 1, id)) {
		ret = db_fail(s, "batch outputs", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *addr = (const char *)sqlite3_column_text(st, 0);
		hj_amount v;

		ret = column_amount(s, st, 1, "batch output", addr, &v, err,
		                    errlen);
		if (ret == 0)
			ret = fn(arg, addr ? addr : "", v);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "batch outputs", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/*
 * Moves batch id out of the state its UPDATE's WHERE names, then every one
 * of its payouts (the second UPDATE must touch all of them); a failure
 * leaves the transaction for the caller to roll back.  Both statements
 * bind ?1 the batch id, ?2 txid (NULL when none), ?3 and ?4 the integers a
 * and b, ?5 text; each uses the ones it needs.
 */
static int batch_move(hj_store *s, const char *op, int64_t id,
                      const char *batch_sql, const char *payout_sql,
                      const uint8_t *txid, int64_t a, int64_t b,
                      const char *text, char *err, size_t errlen)
{
	int64_t items = 0;
	int n = 0, ret;

	if ((ret = in_tx(s, op, err, errlen)))
		return ret;
	ret = run(s, op, batch_sql, &n, err, errlen, "ibiit", id, txid, a, b,
	          text);
	if (ret)
		return ret;
	if (n != 1) {
		hj_store__say(
		    err, errlen,
		    "%s: %s: batch %lld is not in the state this needs",
		    s->path, op, (long long)id);
		return -EINVAL;
	}
	ret = query_i64(s, op,
	                "SELECT count(*) FROM payout_batch_items WHERE batch "
	                "= ?1",
	                id, &items, err, errlen);
	if (ret == 0)
		ret = run(s, op, payout_sql, &n, err, errlen, "ibiit", id, txid,
		          a, b, text);
	if (ret == 0 && n != items) {
		hj_store__say(
		    err, errlen,
		    "%s: %s: batch %lld: %d of its %lld payouts were in the "
		    "state this needs",
		    s->path, op, (long long)id, n, (long long)items);
		ret = -EINVAL;
	}
	return ret;
}

/* The payouts of batch ?1. */
#define ITEMS_OF_1                                                             \
	"id IN (SELECT payout FROM payout_batch_items WHERE batch = ?1)"

int hj_store_batch_sent(hj_store *s, int64_t id, const uint8_t txid[32],
                        uint64_t height, int64_t now, char *err, size_t errlen)
{
	int ret = fits_i64(height, "batch sent: height", err, errlen);

	if (ret)
		return ret;
	return batch_move(
	    s, "batch sent", id,
	    "UPDATE payout_batches SET state = 'sent', txid = ?2, sent_height "
	    "= ?3, sent_at = ?4, last_error = NULL WHERE id = ?1 AND state = "
	    "'planned'",
	    "UPDATE payouts SET state = 'submitted', submitted_txid = ?2, "
	    "submitted_height = ?3, submitted_at = ?4, last_error = NULL, "
	    "nonce = (SELECT nonce FROM payout_batches WHERE id = ?1) WHERE "
	    "state = 'owed' AND " ITEMS_OF_1,
	    txid, (int64_t)height, now, NULL, err, errlen);
}

int hj_store_batch_failed(hj_store *s, int64_t id, const char *error,
                          int refused, char *err, size_t errlen)
{
	return batch_move(
	    s, "batch failed", id,
	    "UPDATE payout_batches SET attempts = attempts + 1, last_error = "
	    "?5, state = CASE WHEN ?3 THEN 'refused' ELSE state END WHERE id "
	    "= ?1 AND state = 'planned'",
	    "UPDATE payouts SET last_error = ?5 WHERE state = 'owed' AND "
	    "" ITEMS_OF_1,
	    NULL, refused != 0, 0, error, err, errlen);
}

int hj_store_batch_retxid(hj_store *s, int64_t id, const uint8_t txid[32],
                          char *err, size_t errlen)
{
	return batch_move(s, "batch replaced", id,
	                  "UPDATE payout_batches SET txid = ?2 WHERE id = ?1 "
	                  "AND state = 'sent'",
	                  "UPDATE payouts SET submitted_txid = ?2 WHERE state "
	                  "= 'submitted' AND " ITEMS_OF_1,
	                  txid, 0, 0, NULL, err, errlen);
}

int hj_store_batch_confirmed(hj_store *s, int64_t id, uint64_t height,
                             char *err, size_t errlen)
{
	int ret = fits_i64(height, "batch confirmed: height", err, errlen);

	if (ret)
		return ret;
	return batch_move(
	    s, "batch confirmed", id,
	    "UPDATE payout_batches SET state = 'confirmed', confirmed_height "
	    "= ?3, last_error = NULL WHERE id = ?1 AND state = 'sent'",
	    "UPDATE payouts SET state = 'confirmed', confirmed_height = ?3, "
	    "last_error = NULL WHERE state = 'submitted' AND " ITEMS_OF_1,
	    NULL, (int64_t)height, 0, NULL, err, errlen);
}

int hj_store_batch_reverted(hj_store *s, int64_t id, const char *reason,
                            char *err, size_t errlen)
{
	return batch_move(
	    s, "batch reverted", id,
	    "UPDATE payout_batches SET state = 'reverted', last_error = ?5 "
	    "WHERE id = ?1 AND state = 'sent'",
	    "UPDATE payouts SET state = 'owed', submitted_txid = NULL, "
	    "submitted_height = NULL, submitted_at = NULL, nonce = NULL, "
	    "last_error = ?5 WHERE state = 'submitted' AND " ITEMS_OF_1,
	    NULL, 0, 0, reason, err, errlen);
}

int hj_store_settle_totals(hj_store *s, hj_settle_totals *t, char *err,
                           size_t errlen)
{
	static const char sql[] =
	    "SELECT p.id, p.state, p.recipient IS NULL, NOT " FREE_OWED(
	        "p.id") ", p.amount FROM payouts p WHERE p.state IN ('owed', "
	                "'submitted')";
	sqlite3_stmt *st = NULL;
	hj_settle_totals x;
	int rc, ret = 0;

	memset(&x, 0, sizeof x);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "sum payouts", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *state = (const char *)sqlite3_column_text(st, 1);
		int owed = state != NULL && strcmp(state, "owed") == 0;
		hj_amount v, *sum;
		uint64_t *cnt;

		ret = column_amount(s, st, 4, "payout", id, &v, err, errlen);
		if (ret)
			break;
		struct {
			int on;
			uint64_t *n;
			hj_amount *sum;
		} add[4] = {
		    {owed, &x.owed_n, &x.owed},
		    {owed && sqlite3_column_int(st, 2), &x.unattributed_n,
		     &x.unattributed},
		    {owed && sqlite3_column_int(st, 3), &x.planned_n,
		     &x.planned},
		    {!owed, &x.submitted_n, &x.submitted},
		};
		for (int k = 0; k < 4 && ret == 0; k++) {
			if (!add[k].on)
				continue;
			cnt = add[k].n;
			sum = add[k].sum;
			if (v > HJ_AMOUNT_MAX - *sum) {
				hj_store__say(err, errlen,
				              "%s: payouts sum above 2^128-1",
				              s->path);
				ret = -ERANGE;
			} else {
				*sum += v;
				(*cnt)++;
			}
		}
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "sum payouts", err, errlen);
	sqlite3_finalize(st);
	if (ret == 0)
		*t = x;
	return ret;
}

int hj_store_add_version(hj_store *s, int64_t batch, const hj_tx_version *v,
                         char *err, size_t errlen)
{
	char fee[HJ_AMOUNT_STRLEN], tip[HJ_AMOUNT_STRLEN];
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = in_tx(s, "record a signed transaction", err, errlen)))
		return ret;
	if (v->raw == NULL || v->raw_len == 0 || v->raw_len > INT32_MAX) {
		hj_store__say(err, errlen,
		              "%s: record a signed transaction: no bytes",
		              s->path);
		return -EINVAL;
	}
	/* The batch must hold a nonce and still be open. */
	if (sqlite3_prepare_v2(
	        s->db,
	        "INSERT INTO payout_tx_versions (batch, seq, hash, raw, "
	        "max_fee, priority_fee, signed_at) SELECT ?1, 1 + coalesce("
	        "(SELECT max(seq) FROM payout_tx_versions WHERE batch = ?1), "
	        "0), ?2, ?3, ?4, ?5, ?6 FROM payout_batches WHERE id = ?1 AND "
	        "nonce IS NOT NULL AND state IN ('planned', 'sent')",
	        -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "record a signed transaction", err, errlen);
	if (sqlite3_bind_int64(st, 1, batch) ||
	    sqlite3_bind_blob(st, 2, v->hash, 32, SQLITE_STATIC) ||
	    sqlite3_bind_blob(st, 3, v->raw, (int)v->raw_len, SQLITE_STATIC) ||
	    hj_store__bind_text(st, 4, hj_amount_format(v->max_fee, fee)) ||
	    hj_store__bind_text(st, 5,
	                        hj_amount_format(v->priority_fee, tip)) ||
	    sqlite3_bind_int64(st, 6, v->signed_at)) {
		ret = db_fail(s, "record a signed transaction", err, errlen);
	} else if (sqlite3_step(st) != SQLITE_DONE) {
		ret = db_fail(s, "record a signed transaction", err, errlen);
	} else if (sqlite3_changes(s->db) != 1) {
		hj_store__say(
		    err, errlen,
		    "%s: record a signed transaction: batch %lld is not an "
		    "open transaction with a nonce",
		    s->path, (long long)batch);
		ret = -EINVAL;
	}
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_version(hj_store *s, int64_t batch,
                          int (*fn)(void *arg, const hj_tx_version *v),
                          void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db,
	                       "SELECT seq, hash, raw, max_fee, priority_fee, "
	                       "signed_at FROM payout_tx_versions WHERE batch "
	                       "= ?1 ORDER BY seq DESC",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "signed transactions", err, errlen);
	if (sqlite3_bind_int64(st, 1, batch)) {
		ret = db_fail(s, "signed transactions", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_tx_version v;
		char name[48];

		memset(&v, 0, sizeof v);
		snprintf(name, sizeof name, "%lld version %lld",
		         (long long)batch,
		         (long long)sqlite3_column_int64(st, 0));
		v.seq = (unsigned)sqlite3_column_int64(st, 0);
		v.raw = sqlite3_column_blob(st, 2);
		v.raw_len = (size_t)sqlite3_column_bytes(st, 2);
		if (sqlite3_column_bytes(st, 1) != 32 || v.raw == NULL) {
			hj_store__say(err, errlen,
			              "%s: batch %s: bad hash or no bytes",
			              s->path, name);
			ret = -EINVAL;
			break;
		}
		memcpy(v.hash, sqlite3_column_blob(st, 1), 32);
		ret = column_amount(s, st, 3, "batch", name, &v.max_fee, err,
		                    errlen);
		if (ret == 0)
			ret = column_amount(s, st, 4, "batch", name,
			                    &v.priority_fee, err, errlen);
		if (ret)
			break;
		v.signed_at = sqlite3_column_int64(st, 5);
		ret = fn(arg, &v);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "signed transactions", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_next_nonce(hj_store *s, uint64_t *next, char *err, size_t errlen)
{
	int64_t v = 0;
	int ret = query_i64(s, "next nonce",
	                    "SELECT coalesce(max(nonce), -1) + 1 + 0 * ?1 FROM "
	                    "payout_batches",
	                    0, &v, err, errlen);

	if (ret == 0)
		*next = (uint64_t)v;
	return ret;
}

int hj_store_batch_cost(hj_store *s, int64_t id, uint64_t gas_used,
                        hj_amount fee, char *err, size_t errlen)
{
	char f[HJ_AMOUNT_STRLEN];
	int n = 0, ret;

	if ((ret = in_tx(s, "batch cost", err, errlen)) ||
	    (ret = fits_i64(gas_used, "batch cost: gas", err, errlen)))
		return ret;
	ret = run(s, "batch cost",
	          "UPDATE payout_batches SET gas_used = ?2, fee = ?3 WHERE id "
	          "= ?1 AND state = 'confirmed'",
	          &n, err, errlen, "iit", id, (int64_t)gas_used,
	          hj_amount_format(fee, f));
	if (ret == 0 && n != 1) {
		hj_store__say(err, errlen,
		              "%s: batch cost: batch %lld is not confirmed",
		              s->path, (long long)id);
		ret = -EINVAL;
	}
	return ret;
}

int hj_store_set_balance(hj_store *s, hj_amount amount, uint64_t height,
                         int64_t at, const char *warning, char *err,
                         size_t errlen)
{
	char a[HJ_AMOUNT_STRLEN];
	int ret;

	if ((ret = in_tx(s, "record the balance", err, errlen)) ||
	    (ret = fits_i64(height, "record the balance: height", err, errlen)))
		return ret;
	return run(s, "record the balance",
	           "INSERT INTO dealer_balance (id, amount, height, at, "
	           "warning) VALUES (1, ?1, ?2, ?3, NULLIF(?4, '')) ON "
	           "CONFLICT (id) DO UPDATE SET amount = excluded.amount, "
	           "height = excluded.height, at = excluded.at, warning = "
	           "excluded.warning",
	           NULL, err, errlen, "tiit", hj_amount_format(amount, a),
	           (int64_t)height, at, warning ? warning : "");
}
