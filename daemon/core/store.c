/*
 * The daemon's state in SQLite: opening it, the schema and its migrations,
 * meta, the cursor and the write transactions.  docs/STATE.md describes the
 * schema and how an operator reads it; this file keeps the invariants:
 *
 * - WAL mode, synchronous=FULL: a commit is on disk (the WAL is fsynced)
 *   before hj_store_commit returns, so power loss keeps it.
 * - Writes happen only between hj_store_begin and hj_store_commit; the
 *   write calls refuse to run outside a transaction, so no block's effects
 *   can ever be committed piecemeal by SQLite's autocommit.
 * - Every statement of the hot path (a block: its transactions, payouts,
 *   rounds and the cursor) is prepared once at open and reused.
 *
 * The store is the only module that knows the schema: this file writes it;
 * store_rounds.c keeps the open rounds, store_ledger.c what a block leaves
 * (transactions, payouts owed), store_settle.c the payers' batches;
 * store_read.c holds the `hashjack` tool's side (hj_store_read and the
 * typed reads), which checks every column it returns and never creates or
 * migrates anything; store_impl.h is what they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hex.h"
#include "quote.h"
#include "say.h"
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
/*
 * The two tables every block writes most, in block order (version 5,
 * docs/STATE.md): a block's rows go to the end of the table, not to
 * pages all over it, so a commit writes few pages.  The transaction id is
 * a unique index of its own (the other tables' references need it); a
 * round is found by its Bet's place, its id checked against its data at
 * load.
 */
#define TXS_COLUMNS                                                            \
	" txid BLOB NOT NULL UNIQUE CHECK (length(txid) BETWEEN 1 AND 32),"    \
	" height INTEGER NOT NULL CHECK (height >= 0),"                        \
	" tx_index INTEGER NOT NULL CHECK (tx_index >= 0),"                    \
	" sender BLOB,"                                                        \
	" value TEXT NOT NULL " AMOUNT_CHECK("value") ","                      \
	" outcome TEXT NOT NULL CHECK (outcome IN"                             \
	"  ('accepted', 'rejected', 'deposit', 'ignored')),"                   \
	" action TEXT,"                                                        \
	" reason TEXT,"                                                        \
	" round BLOB,"                                                         \
	" PRIMARY KEY (height, tx_index)"
#define ROUNDS_COLUMNS                                                         \
	" id BLOB NOT NULL"                                                    \
	"  REFERENCES txs (txid) DEFERRABLE INITIALLY DEFERRED,"               \
	" player BLOB NOT NULL UNIQUE,"                                        \
	" bet_height INTEGER NOT NULL CHECK (bet_height >= 0),"                \
	" bet_tx_index INTEGER NOT NULL CHECK (bet_tx_index >= 0),"            \
	" data BLOB NOT NULL,"                                                 \
	" PRIMARY KEY (bet_height, bet_tx_index)"

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
	"CREATE TABLE txs (" TXS_COLUMNS ") WITHOUT ROWID;"
	"CREATE TABLE rounds (" ROUNDS_COLUMNS ") WITHOUT ROWID;"
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
	"CREATE INDEX payouts_state ON payouts (state, created_height);";

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

/*
 * Version 4: committed cards (docs/PROTOCOL.md section 15).  Every valid
 * Commit dealt, in block order: the chain in force at a block is decided
 * from them (the follower restores them with the rounds).  And hashjackd's
 * own seed chains: each is recorded (its secret already in its file)
 * before its Commit is sent, so a restart finds it again and never makes
 * a second chain for it: planned until its Commit is dealt valid (dealt),
 * or until its first block comes without it (late: the chain is never
 * used, a new one replaces it).  On EVM the Commit is a payout batch of
 * its own (batch), sent and followed as any.
 */
static const char schema_v4_sql[] =
	"CREATE TABLE commits ("
	    " height INTEGER NOT NULL CHECK (height >= 0),"
	    " tx_index INTEGER NOT NULL CHECK (tx_index >= 0),"
	    " txid BLOB NOT NULL UNIQUE"
	        "  REFERENCES txs (txid) DEFERRABLE INITIALLY DEFERRED,"
	    /* The bits of a uint64, like the cursor's height. */
	    " start INTEGER NOT NULL,"
	    " length INTEGER NOT NULL CHECK (length BETWEEN 1 AND 4294967295),"
	    " commitment BLOB NOT NULL CHECK (length(commitment) = 32),"
	    " PRIMARY KEY (height, tx_index)) WITHOUT ROWID;"
	"CREATE TABLE seed_chains ("
	    " id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id > 0),"
	    " commitment BLOB NOT NULL UNIQUE CHECK (length(commitment) = 32),"
	    " start INTEGER NOT NULL,"
	    " length INTEGER NOT NULL CHECK (length BETWEEN 1 AND 4294967295),"
	    " state TEXT NOT NULL CHECK (state IN ('planned', 'dealt', 'late')),"
	    " created_height INTEGER NOT NULL,"
	    " created_at INTEGER NOT NULL,"
	    " batch INTEGER REFERENCES payout_batches (id),"
	    /* Bitcoin family: the signed Commit, recorded before it is
	     * sent, and its txid (display order). */
	    " tx BLOB CHECK (tx IS NULL OR length(tx) BETWEEN 1 AND 1000),"
	    " txid BLOB CHECK (txid IS NULL OR length(txid) = 32),"
	    " CHECK ((tx IS NULL) = (txid IS NULL)));"
	"CREATE UNIQUE INDEX seed_chains_planned ON seed_chains (state)"
	    " WHERE state = 'planned';";

/*
 * Version 5: txs and rounds in block order (TXS_COLUMNS, ROUNDS_COLUMNS),
 * without the index of txs by round.  An older file's two tables are
 * rebuilt, with foreign keys off (the references to txs name it, and
 * find the new table under the old name); create_schema then checks every
 * reference before it commits.
 */
static const char schema_v5_sql[] =
	"CREATE TABLE txs_v5 (" TXS_COLUMNS ") WITHOUT ROWID;"
	"INSERT INTO txs_v5 (txid, height, tx_index, sender, value, outcome,"
	    " action, reason, round)"
	    " SELECT txid, height, tx_index, sender, value, outcome, action,"
	    " reason, round FROM txs;"
	"DROP TABLE txs;"
	"ALTER TABLE txs_v5 RENAME TO txs;"
	"CREATE TABLE rounds_v5 (" ROUNDS_COLUMNS ") WITHOUT ROWID;"
	"INSERT INTO rounds_v5 (id, player, bet_height, bet_tx_index, data)"
	    " SELECT id, player, bet_height, bet_tx_index, data FROM rounds;"
	"DROP TABLE rounds;"
	"ALTER TABLE rounds_v5 RENAME TO rounds;";

/*
 * Version 6: without payouts' indexes by round, transaction and recipient.
 * No query looks payouts up by them, and the references they would serve
 * are only checked when a txs row is added after a row naming it, which
 * the daemon never does (a transaction's row comes before its payouts);
 * each cost a page written per payout at a random place.
 */
static const char schema_v6_sql[] =
	"DROP INDEX IF EXISTS payouts_round;"
	"DROP INDEX IF EXISTS payouts_txid;"
	"DROP INDEX IF EXISTS payouts_recipient;";

/*
 * Version 7: the undo of the last batches (docs/STATE.md, "Rewinding"),
 * so that `hashjack reorg --rewind` can take the state back to a block
 * below a reorganisation.  The triggers keep it: a cursor leaving a height
 * leaves its row in undo_cursor (the cursor as it was after that block);
 * a round row inserted, changed or deleted while the cursor is at a height
 * leaves its first image of that batch in undo_rounds (NULL data: the row
 * did not exist), so that putting back every image of the batches from a
 * height on, newest first, gives the rounds as they were there.
 * hj_store_set_cursor prunes both past [state] rewind_blocks.  A payout
 * paid or in flight for a block that left the chain stays, orphaned (the
 * block the state was rewound to), without its references to txs.
 */
static const char schema_v7_sql[] =
	"CREATE TABLE undo_cursor ("
	    " height INTEGER PRIMARY KEY,"
	    " hash BLOB NOT NULL CHECK (length(hash) = 32),"
	    " log_offset INTEGER NOT NULL CHECK (log_offset >= 0),"
	    " log_dev INTEGER NOT NULL,"
	    " log_ino INTEGER NOT NULL);"
	"CREATE TABLE undo_rounds ("
	    " cursor INTEGER NOT NULL,"
	    " bet_height INTEGER NOT NULL,"
	    " bet_tx_index INTEGER NOT NULL,"
	    " id BLOB,"
	    " player BLOB,"
	    " data BLOB,"
	    " CHECK ((id IS NULL) = (data IS NULL) AND"
	    "  (player IS NULL) = (data IS NULL)),"
	    " PRIMARY KEY (cursor, bet_height, bet_tx_index)) WITHOUT ROWID;"
	"CREATE TRIGGER undo_cursor_keep AFTER UPDATE OF height ON cursor"
	    " WHEN OLD.height IS NOT NEW.height BEGIN"
	    " INSERT OR REPLACE INTO undo_cursor (height, hash, log_offset,"
	    "  log_dev, log_ino) VALUES (OLD.height, OLD.hash, OLD.log_offset,"
	    "  OLD.log_dev, OLD.log_ino); END;"
	"CREATE TRIGGER undo_round_new AFTER INSERT ON rounds BEGIN"
	    " INSERT OR IGNORE INTO undo_rounds (cursor, bet_height,"
	    "  bet_tx_index) SELECT height, NEW.bet_height, NEW.bet_tx_index"
	    "  FROM cursor WHERE id = 1; END;"
	"CREATE TRIGGER undo_round_change BEFORE UPDATE ON rounds BEGIN"
	    " INSERT OR IGNORE INTO undo_rounds SELECT height, OLD.bet_height,"
	    "  OLD.bet_tx_index, OLD.id, OLD.player, OLD.data FROM cursor"
	    "  WHERE id = 1; END;"
	"CREATE TRIGGER undo_round_gone BEFORE DELETE ON rounds BEGIN"
	    " INSERT OR IGNORE INTO undo_rounds SELECT height, OLD.bet_height,"
	    "  OLD.bet_tx_index, OLD.id, OLD.player, OLD.data FROM cursor"
	    "  WHERE id = 1; END;"
	"ALTER TABLE payouts ADD COLUMN orphaned INTEGER;";
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
        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_ROUND_DATA] = "UPDATE rounds SET data = ?5 WHERE bet_height = ?3"
                      " AND bet_tx_index = ?4",
    [ST_ROUND_DEL] = "DELETE FROM rounds WHERE bet_height = ?1"
                     " AND bet_tx_index = ?2",
    [ST_ROUNDS_CLEAR] = "DELETE FROM rounds",
    [ST_ROUNDS_LOAD] = "SELECT id, player, bet_height, bet_tx_index, data"
                       " FROM rounds ORDER BY bet_height, bet_tx_index",
    [ST_OWED] = "SELECT id, amount FROM payouts WHERE state = 'owed'"
                " AND orphaned IS NULL",
    [ST_COMMIT_ADD] = "INSERT INTO commits (height, tx_index, txid, start,"
                      " length, commitment) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_COMMITS_LOAD] = "SELECT height, tx_index, txid, start, length,"
                        " commitment FROM commits ORDER BY height, tx_index",
    [ST_UNDO_PRUNE_ROUNDS] = "DELETE FROM undo_rounds WHERE cursor < ?1",
    [ST_UNDO_PRUNE_CURSOR] = "DELETE FROM undo_cursor WHERE height < ?1",
    /* IMMEDIATE: take the write lock now, so that a busy database fails
     * at begin and never halfway through a batch. */
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
};

/* ---- what the store's files share (store_impl.h) ---- */

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

/*
 * A statement prepared at its use (see store_impl.h).  It binds its arguments
 * by fmt, one character each: 'i' an int64_t, 't' a string, 'b' 32 bytes (a
 * txid); NULL binds NULL; ?1, ?2, ... in order.  *changes (may be NULL) gets
 * the rows changed.
 */
int hj_store__run(hj_store *s, const char *op, const char *sql, int *changes,
                  char *err, size_t errlen, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int i = 1, bad = 0, ret;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, op, err, errlen);
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
		ret = hj_store__fail(s, op, err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	ret = sqlite3_step(st) == SQLITE_DONE
	          ? 0
	          : hj_store__fail(s, op, err, errlen);
	if (ret == 0 && changes != NULL)
		*changes = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return ret;
}

int hj_store__fail(hj_store *s, const char *op, char *err, size_t errlen)
{
	int rc = sqlite3_extended_errcode(s->db);

	/* Some errors (a full disk, I/O) end the transaction on their own:
	 * what this connection wrote may be gone, so forget it. */
	s->saved_valid = 0;
	hj_say(err, errlen, "%s: %s: %s", s->path, op, sqlite3_errmsg(s->db));
	return map_rc(rc);
}

int hj_store__step_done(hj_store *s, sqlite3_stmt *st, const char *op,
                        char *err, size_t errlen)
{
	int ret = 0;

	if (sqlite3_step(st) != SQLITE_DONE)
		ret = hj_store__fail(s, op, err, errlen);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int hj_store__in_tx(hj_store *s, const char *op, char *err, size_t errlen)
{
	if (sqlite3_get_autocommit(s->db)) {
		s->saved_valid = 0;
		hj_say(err, errlen, "%s: %s outside a transaction", s->path,
		       op);
		return -EINVAL;
	}
	return 0;
}

int hj_store__fits_i64(uint64_t v, const char *what, char *err, size_t errlen)
{
	if (v > INT64_MAX) {
		hj_say(err, errlen, "%s %llu above 2^63-1", what,
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
			hj_say(err, errlen,
			       "%s: not a hashjackd database: application_id "
			       "0x%08llx, expected 0x%08x",
			       s->path, shown, HJ_APPLICATION_ID);
		else
			hj_say(err, errlen,
			       "%s: an SQLite database but not hashjackd's "
			       "(application_id 0x%08llx, expected 0x%08x)",
			       s->path, shown, HJ_APPLICATION_ID);
		return -EINVAL;
	}
	if (ver > HJ_STORE_SCHEMA_VERSION) {
		hj_say(
		    err, errlen,
		    "%s: schema version %lld was written by a newer hashjackd; "
		    "this %s reads version %d",
		    s->path, (long long)ver, reader ? "hashjack" : "one",
		    HJ_STORE_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (ver < 1) {
		hj_say(err, errlen,
		       "%s: hashjackd database without a schema version "
		       "(user_version %lld)",
		       s->path, (long long)ver);
		return -EINVAL;
	}
	return 0;
}

/* ---- opening: the schema and its migrations ---- */

static int exec(hj_store *s, const char *sql, const char *op, char *err,
                size_t errlen)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return hj_store__fail(s, op, err, errlen);
	return 0;
}

/* Reads one integer PRAGMA. */
static int pragma_int(hj_store *s, const char *sql, int64_t *v, char *err,
                      size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, sql, err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		ret = hj_store__fail(s, sql, err, errlen);
	sqlite3_finalize(st);
	return ret;
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
			hj_say(err, errlen, "%s: not an SQLite database (%s)",
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

/* After a migration with foreign keys off: every reference still holds
 * (PRAGMA foreign_key_check finds nothing), or -EINVAL naming the first
 * that does not. */
static int references_hold(hj_store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st,
	                       NULL) != SQLITE_OK)
		return hj_store__fail(s, "migrate schema to 5", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *table = sqlite3_column_text(st, 0);
		const unsigned char *parent = sqlite3_column_text(st, 2);
		char row[40] = "a row";
		/* WITHOUT ROWID tables' rows have no number. */
		if (sqlite3_column_type(st, 1) == SQLITE_INTEGER)
			snprintf(row, sizeof row, "row %lld",
			         (long long)sqlite3_column_int64(st, 1));
		hj_say(err, errlen,
		       "%s: migrate schema to 5: %s of %s refers to a row of "
		       "%s that does not exist; nothing was changed",
		       s->path, row, table ? (const char *)table : "?",
		       parent ? (const char *)parent : "?");
		ret = -EINVAL;
	} else if (rc != SQLITE_DONE) {
		ret = hj_store__fail(s, "migrate schema to 5", err, errlen);
	}
	sqlite3_finalize(st);
	return ret;
}

/*
 * Creates the schema (fresh) or brings an older version up to this one, in
 * one transaction: a crash leaves the file as it was.  Foreign keys are
 * off until it is done (hj_store_open), as the rebuilt tables need.
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
	if (ret == 0 && (fresh || ver < 3))
		ret = exec(s, schema_v3_sql,
		           fresh ? "create schema" : "migrate schema to 3", err,
		           errlen);
	if (ret == 0 && (fresh || ver < 4))
		ret = exec(s, schema_v4_sql,
		           fresh ? "create schema" : "migrate schema to 4", err,
		           errlen);
	if (ret == 0 && !fresh && ver < 5)
		ret =
		    exec(s, schema_v5_sql, "migrate schema to 5", err, errlen);
	if (ret == 0 && !fresh && ver < 5)
		ret = references_hold(s, err, errlen);
	if (ret == 0 && !fresh && ver < 6)
		ret =
		    exec(s, schema_v6_sql, "migrate schema to 6", err, errlen);
	if (ret == 0)
		ret = exec(s, schema_v7_sql,
		           fresh ? "create schema" : "migrate schema to 7", err,
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

/* WAL with a fsync at every commit (foreign keys: hj_store_open). */
static int configure(hj_store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *mode;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st,
	                       NULL) != SQLITE_OK)
		return hj_store__fail(s, "set WAL mode", err, errlen);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = hj_store__fail(s, "set WAL mode", err, errlen);
	} else {
		mode = sqlite3_column_text(st, 0);
		if (mode == NULL || strcmp((const char *)mode, "wal") != 0) {
			hj_say(err, errlen,
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
	/* 64 MiB of pages kept (SQLite's default is 2 MiB): a busy table's
	 * rows and indexes are read back at every commit otherwise
	 * (docs/HACKING.md, "The dense chains benchmark"). */
	if (ret == 0)
		ret = exec(s, "PRAGMA cache_size = -65536", "set cache size",
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
		hj_say(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = sqlite3_open_v2(path, &s->db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX,
	                     NULL);
	if (rc != SQLITE_OK) {
		hj_say(err, errlen, "%s: cannot open: %s", path,
		       s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
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
	ret = exec(s, "PRAGMA foreign_keys = ON", "enable foreign keys", err,
	           errlen);
	if (ret)
		goto fail;
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1,
		                       SQLITE_PREPARE_PERSISTENT, &s->st[i],
		                       NULL) != SQLITE_OK) {
			ret = hj_store__fail(s, "prepare", err, errlen);
			goto fail;
		}
	}
	s->rewind_keep = HJ_STORE_REWIND_BLOCKS;
	/* The version every read of store_read.c goes by: ours now. */
	s->version = HJ_STORE_SCHEMA_VERSION;
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

int hj_store_checkpoints_apart(hj_store *s, char *err, size_t errlen)
{
	char sql[64];

	snprintf(sql, sizeof sql, "PRAGMA wal_autocheckpoint = %d",
	         HJ_STORE_WAL_BOUND);
	return exec(s, sql, "set the WAL's checkpoint bound", err, errlen);
}

struct hj_store_checkpointer {
	hj_store s; /* db and path only */
};

int hj_store_checkpointer_open(const char *path, hj_store_checkpointer **out,
                               char *err, size_t errlen)
{
	hj_store_checkpointer *c = calloc(1, sizeof *c);
	int rc, ret = 0;

	*out = NULL;
	if (c == NULL || (c->s.path = strdup(path)) == NULL) {
		free(c);
		hj_say(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* The daemon's store has made and checked the file: no creating. */
	rc = sqlite3_open_v2(path, &c->s.db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		hj_say(err, errlen, "%s: checkpointer: cannot open: %s", path,
		       c->s.db ? sqlite3_errmsg(c->s.db) : sqlite3_errstr(rc));
		ret = rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	/* The database file is synced after each checkpoint, as by the
	 * writer's own; the WAL is cut back as the writer's is. */
	if (ret == 0)
		ret = exec(&c->s, "PRAGMA synchronous = FULL",
		           "checkpointer: set synchronous", err, errlen);
	if (ret == 0)
		ret = exec(&c->s, "PRAGMA journal_size_limit = 67108864",
		           "checkpointer: set journal size limit", err, errlen);
	if (ret) {
		hj_store_checkpointer_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

int hj_store_checkpoint(hj_store_checkpointer *c, int *wal_pages, int *copied,
                        char *err, size_t errlen)
{
	*wal_pages = *copied = 0;
	if (sqlite3_wal_checkpoint_v2(c->s.db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	                              wal_pages, copied) != SQLITE_OK)
		return hj_store__fail(&c->s, "checkpoint", err, errlen);
	return 0;
}

void hj_store_checkpointer_close(hj_store_checkpointer *c)
{
	if (c == NULL)
		return;
	sqlite3_close(c->s.db);
	free(c->s.path);
	free(c);
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
	char field[64], keys[256], why[HJ_ERRLEN];
	hj_amount la[5], lb[5];

	if (hj_rules_parse(have, &a, why, sizeof why) ||
	    hj_rules_parse(want, &b, why, sizeof why)) {
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
			hj_say(err, errlen, "%s: meta: %s is empty", s->path,
			       name[i]);
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
		ret = hj_store__fail(s, "read meta", err, errlen);
	}
	sqlite3_reset(st);
	if (ret || rc == SQLITE_ROW)
		return ret;

	/* First start: this database now belongs to this configuration. */
	st = s->st[ST_META_PUT];
	for (int i = 0; i < 4; i++) {
		if (hj_store__bind_text(st, i + 1, want[i]) != SQLITE_OK) {
			sqlite3_clear_bindings(st);
			return hj_store__fail(s, "store meta", err, errlen);
		}
	}
	return hj_store__step_done(s, st, "store meta", err, errlen);
}

int hj_store_get_cursor(hj_store *s, hj_cursor *c, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_CURSOR_GET];
	int rc, ret = 0;

	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		hj_say(err, errlen, "%s: no block processed yet", s->path);
		ret = -ENOENT;
	} else if (rc != SQLITE_ROW) {
		ret = hj_store__fail(s, "read cursor", err, errlen);
	} else if (hj_store__column_cursor(st, c)) {
		hj_say(err, errlen, "%s: cursor row is damaged", s->path);
		ret = -EINVAL;
	}
	sqlite3_reset(st);
	return ret;
}

int hj_store__column_cursor(sqlite3_stmt *st, hj_cursor *c)
{
	if (sqlite3_column_type(st, 1) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, 1) != 32 ||
	    sqlite3_column_int64(st, 2) < 0)
		return -1;
	memset(c, 0, sizeof *c);
	/* height, dev and ino are stored as the int64 with their bits: a
	 * daemon starting at block 0 stores 2^64-1 as -1. */
	c->height = (uint64_t)sqlite3_column_int64(st, 0);
	memcpy(c->hash, sqlite3_column_blob(st, 1), 32);
	c->log_offset = (uint64_t)sqlite3_column_int64(st, 2);
	c->log_dev = (uint64_t)sqlite3_column_int64(st, 3);
	c->log_ino = (uint64_t)sqlite3_column_int64(st, 4);
	return 0;
}

int hj_store_set_cursor(hj_store *s, const hj_cursor *c, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_CURSOR_PUT];
	int ret;

	if ((ret = hj_store__in_tx(s, "set cursor", err, errlen)) ||
	    (ret = hj_store__fits_i64(c->log_offset, "cursor: log offset", err,
	                              errlen)))
		return ret;
	if (sqlite3_bind_int64(st, 1, (sqlite3_int64)c->height) ||
	    sqlite3_bind_blob(st, 2, c->hash, 32, SQLITE_STATIC) ||
	    sqlite3_bind_int64(st, 3, (sqlite3_int64)c->log_offset) ||
	    sqlite3_bind_int64(st, 4, (sqlite3_int64)c->log_dev) ||
	    sqlite3_bind_int64(st, 5, (sqlite3_int64)c->log_ino)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "set cursor", err, errlen);
	}
	ret = hj_store__step_done(s, st, "set cursor", err, errlen);
	/* The undo of batches that ended rewind_blocks or more below. */
	if (ret == 0 && c->height <= INT64_MAX && c->height >= s->rewind_keep)
		for (int i = ST_UNDO_PRUNE_ROUNDS;
		     ret == 0 && i <= ST_UNDO_PRUNE_CURSOR; i++) {
			st = s->st[i];
			if (sqlite3_bind_int64(
			        st, 1,
			        (sqlite3_int64)(c->height - s->rewind_keep))) {
				sqlite3_clear_bindings(st);
				return hj_store__fail(s, "prune the undo", err,
				                      errlen);
			}
			ret = hj_store__step_done(s, st, "prune the undo", err,
			                          errlen);
		}
	return ret;
}

void hj_store_set_rewind_blocks(hj_store *s, uint64_t blocks)
{
	s->rewind_keep = blocks;
}

/* SQLite's count of pages written, and reset to 0 when reset is 1. */
static long pages_written(hj_store *s, int reset)
{
	int cur = 0, hi = 0;

	if (sqlite3_db_status(s->db, SQLITE_DBSTATUS_CACHE_WRITE, &cur, &hi,
	                      reset) != SQLITE_OK)
		return -1;
	return cur;
}

long hj_store_pages_written(hj_store *s)
{
	return pages_written(s, 0);
}

int hj_store_begin(hj_store *s, char *err, size_t errlen)
{
	if (!sqlite3_get_autocommit(s->db)) {
		hj_say(err, errlen, "%s: begin: a transaction is already open",
		       s->path);
		return -EINVAL;
	}
	pages_written(s, 1);
	return hj_store__step_done(s, s->st[ST_BEGIN], "begin", err, errlen);
}

int hj_store_commit(hj_store *s, char *err, size_t errlen)
{
	int ret;

	if ((ret = hj_store__in_tx(s, "commit", err, errlen)))
		return ret;
	ret = hj_store__step_done(s, s->st[ST_COMMIT], "commit", err, errlen);
	if (ret == 0)
		return 0;
	/* A failed COMMIT (a deferred foreign key, a full disk) leaves the
	 * transaction open in SQLite; end it so that none of it lands. */
	if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_FOREIGNKEY)
		hj_say(err, errlen,
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
		(void)hj_store__step_done(s, s->st[ST_ROLLBACK], "rollback",
		                          NULL, 0);
}

int hj_store_lock_dir(const char *state_dir)
{
	char path[4200];
	int fd, e;

	if ((size_t)snprintf(path, sizeof path, "%s/" HJ_STORE_LOCK_FILE,
	                     state_dir) >= sizeof path)
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		e = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		close(fd);
		return e;
	}
	return fd;
}
