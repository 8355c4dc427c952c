/*
 * `hashjack status` (see status.h; the format is in docs/CLI.md, the
 * schema in docs/STATE.md).
 *
 * Everything is read in one read transaction of hj_dbread (cli/dbread.c,
 * shared with `hashjack ledger`), kept in memory, and printed once the
 * connection is closed.  The worst case of the open rounds is what the
 * daemon computes (hj_table_exposure): the round blobs are decoded by
 * hj_round_decode, as hj_store_load_rounds does, and restored into a table
 * made with the rules read back from meta.rules.
 *
 * Amounts are exact 128-bit base units; every sum is checked, and a sum
 * that does not fit is refused rather than printed wrong.
 */
#include "status.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include <sqlite3.h>

#include "amount.h"
#include "dbread.h"
#include "hex.h"
#include "quote.h"
#include "round.h"
#include "rules.h"
#include "store.h"
#include "table.h"

#define CMD    "status" /* in messages: "hashjack: status: ..." */
#define ERRLEN 1024
/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100
/* The open batches kept in memory: the daemon has a handful at most. */
#define OPEN_MAX 100000

/* ---- help ------------------------------------------------------------ */

static const char usage_status[] =
    "Usage: hashjack status [--state-dir DIR | --db FILE] [--json]\n"
    "\n"
    "Shows the dealer daemon's state as its database holds it: what it\n"
    "belongs to, where it stopped, the open rounds and their worst case,\n"
    "the payouts, the dealer's balance as the daemon last read it, and\n"
    "whether it covers what the dealer owes and may owe.  The database is\n"
    "only read: no lock that could slow the daemon, no file created or\n"
    "changed beside it.  Safe while hashjackd runs.\n"
    "\n"
    "Options:\n"
    "  --state-dir DIR  the daemon's state directory: reads\n"
    "                   DIR/hashjackd.sqlite.  Default: the first entry of\n"
    "                   $STATE_DIRECTORY, else /var/lib/hashjackd (as the\n"
    "                   daemon; pass --state-dir when its configuration\n"
    "                   sets [state] directory).  --state is the same\n"
    "                   option, as in hashjack ledger\n"
    "  --db FILE        the database file itself, instead of --state-dir\n"
    "  --json           one JSON object with the same facts, amounts as\n"
    "                   decimal strings\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Amounts are base units (wei, satoshi, litoshi), exact, with the same\n"
    "amount in ETH, BTC or LTC in parentheses.  The lines:\n"
    "\n"
    "  database      the file read and its schema version\n"
    "  family, chain, dealer, rules\n"
    "                what the state belongs to (table meta); \"chain not\n"
    "                recorded yet\" before the daemon first reached its\n"
    "                node.  Rules that cannot be read back say why\n"
    "  last block    the last processed block, its height and hash, or\n"
    "                \"no block processed yet\" (and the first it will be)\n"
    "  open rounds   how many, and their worst case: the most they can\n"
    "                still return, stake included (what max_exposure\n"
    "                bounds); unknown when the rules cannot be read\n"
    "  owed          payouts recorded and not yet paid, count and sum;\n"
    "    unattributed  of those, refunds whose recipient is unknown (the\n"
    "                daemon never pays them)\n"
    "    planned     of those, the ones in a planned payout transaction\n"
    "                (committed, being sent)\n"
    "  in flight     payouts whose transaction was sent, not yet final\n"
    "  confirmed     payouts whose transaction is final\n"
    "  balance       the dealer's spendable balance when the daemon last\n"
    "                read it: the node's tip then, and how long ago; \"not\n"
    "                read yet\" when the daemon never read one (it pays\n"
    "                nothing without [payout] wallet / dealer_key)\n"
    "  need          what the balance must cover, as the daemon reckons\n"
    "                it: owed to a recipient (unattributed left out) + in\n"
    "                flight + worst case on EVM; owed to a recipient +\n"
    "                worst case on the Bitcoin family, whose wallet\n"
    "                balance already leaves out what is in flight; \"at\n"
    "                least\" when the worst case is unknown\n"
    "  SHORT by X    the balance is below the need by X; otherwise\n"
    "  spare         how much the balance exceeds it\n"
    "  warning       the daemon's last warning about paying, if any\n"
    "  transactions  EVM: the payout transactions not yet final, one line\n"
    "                each: nonce, state (planned: signed, not yet accepted\n"
    "                by the node; sent), recipient, amount, hash of the\n"
    "                latest signed version, versions signed, age\n"
    "  batches       Bitcoin family: the payout batches not yet final, one\n"
    "                line each: number, state, txid once sent, outputs,\n"
    "                total, age\n"
    "\n"
    "JSON keys: database, schemaVersion, family, chain, dealer, rules,\n"
    "rulesError, unit, baseUnit, decimals, lastBlock {height, hash},\n"
    "nextBlock, openRounds, exposure, owed, unattributed, planned, inFlight,\n"
    "confirmed (each {count, amount}), balance {amount, height, at,\n"
    "ageSeconds, warning}, need, short, spare, transactions [{batch, nonce,\n"
    "state, recipient, amount, hash, versions, createdAt, ageSeconds}],\n"
    "batches [{id, state, txid, outputs, total, createdAt, ageSeconds}]\n"
    "(docs/CLI.md).\n"
    "\n"
    "Example:\n"
    "  $ hashjack status\n"
    "  $ hashjack status --db copy.sqlite --json | jq -r .short\n"
    "\n"
    "Exit status: 0 ok (a shortfall included), 64 usage error, 65 not a\n"
    "hashjackd database or a damaged one, 66 cannot open the database, 70\n"
    "internal error, 74 read or write error, 75 the database stayed busy\n"
    "or kept changing: try again.\n";

int hj_status_help(void)
{
	fputs(usage_status, stdout);
	return EX_OK;
}

/* ---- what is read ----------------------------------------------------- */

struct tally {
	uint64_t n;
	hj_amount sum;
};

/* A payout batch in state planned or sent. */
struct open_batch {
	int64_t id;
	int sent;      /* else planned */
	int has_nonce; /* an EVM transaction */
	int64_t nonce;
	int has_txid;
	uint8_t txid[32];
	int64_t outputs;
	hj_amount total;
	int64_t created_at;
	char *address; /* EVM: its one output's address; NULL when none */
	int64_t versions;
	int has_hash; /* the latest signed version's hash */
	uint8_t hash[32];
};

struct status {
	int version;
	/* meta; the strings are NULL without a meta row */
	char *family, *chain_id, *dealer, *rules_text;
	hj_dbchain chain; /* valid when family != NULL */
	int rules_ok;
	hj_rules rules;
	char rules_err[200];
	/* cursor */
	int have_cursor, processed; /* processed: a real block, not the mark
	                               the first start leaves */
	uint64_t height;
	uint8_t hash[32];
	/* open rounds */
	size_t nrounds;
	int exposure_known;
	hj_amount exposure;
	/* payouts */
	struct tally owed, unattributed, planned, flight, confirmed;
	/* dealer_balance */
	int have_balance;
	hj_amount balance;
	int64_t bal_height, bal_at;
	char *warning;
	/* open batches, by id */
	struct open_batch *open;
	size_t nopen, capopen;
	/* when it was read */
	int64_t now;
};

static void status_clear(struct status *st)
{
	free(st->family);
	free(st->chain_id);
	free(st->dealer);
	free(st->rules_text);
	free(st->warning);
	for (size_t i = 0; i < st->nopen; i++)
		free(st->open[i].address);
	free(st->open);
	memset(st, 0, sizeof *st);
}

static void status_reset(void *arg)
{
	status_clear(arg);
}

/* A damaged row: "PATH: WHAT: column COL does not hold what the schema
 * says (docs/STATE.md)". */
static int damaged(const char *path, const char *what, const char *col,
                   char *err, size_t errlen)
{
	hj_dbread_say(err, errlen,
	              "%s: %s: column %s does not hold what the schema says "
	              "(docs/STATE.md)",
	              path, what, col);
	return EX_DATAERR;
}

static int nomem(char *err, size_t errlen)
{
	hj_dbread_say(err, errlen, "out of memory");
	return EX_SOFTWARE;
}

/* A copy of a TEXT column; -1 when it is not TEXT, -2 out of memory. */
static int text_dup(sqlite3_stmt *q, int col, char **out)
{
	const char *t;

	*out = NULL;
	if (sqlite3_column_type(q, col) != SQLITE_TEXT)
		return -1;
	t = (const char *)sqlite3_column_text(q, col);
	if (t == NULL)
		return -2;
	*out = strdup(t);
	return *out ? 0 : -2;
}

/* A canonical amount in a TEXT column. */
static int amount_of(sqlite3_stmt *q, int col, hj_amount *v)
{
	const char *t;

	if (sqlite3_column_type(q, col) != SQLITE_TEXT)
		return -1;
	t = (const char *)sqlite3_column_text(q, col);
	if (t == NULL ||
	    hj_amount_parse(t, (size_t)sqlite3_column_bytes(q, col), v))
		return -1;
	return 0;
}

static int is_int(sqlite3_stmt *q, int col)
{
	return sqlite3_column_type(q, col) == SQLITE_INTEGER;
}

/* A 32-byte BLOB column into b; 0, or -1 when it is something else. */
static int hash_of(sqlite3_stmt *q, int col, uint8_t b[32])
{
	if (sqlite3_column_type(q, col) != SQLITE_BLOB ||
	    sqlite3_column_bytes(q, col) != 32)
		return -1;
	memcpy(b, sqlite3_column_blob(q, col), 32);
	return 0;
}

static int read_meta(sqlite3 *db, const char *path, struct status *st,
                     char *err, size_t errlen)
{
	static const char *const col[] = {"family", "chain", "dealer", "rules"};
	sqlite3_stmt *q = NULL;
	char **dst[4] = {&st->family, &st->chain_id, &st->dealer,
	                 &st->rules_text};
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT family, chain, dealer, rules FROM meta "
	                       "WHERE id = 1",
	                       -1, &q, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read meta", err, errlen);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < 4 && ret == 0; i++) {
			int r = text_dup(q, i, dst[i]);

			if (r == -1)
				ret =
				    damaged(path, "meta", col[i], err, errlen);
			else if (r)
				ret = nomem(err, errlen);
		}
		if (ret == 0)
			ret = hj_dbread_chain(path, st->family, st->chain_id,
			                      &st->chain, err, errlen);
		if (ret == 0)
			st->rules_ok =
			    hj_store_rules_parse(st->rules_text, &st->rules,
			                         st->rules_err,
			                         sizeof st->rules_err) == 0;
	} else if (rc != SQLITE_DONE) {
		ret = hj_dbread_sql_fail(db, path, "read meta", err, errlen);
	}
	sqlite3_finalize(q);
	return ret;
}

static int read_cursor(sqlite3 *db, const char *path, struct status *st,
                       char *err, size_t errlen)
{
	static const uint8_t zero[32];
	sqlite3_stmt *q = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT height, hash FROM cursor WHERE id = 1",
	                       -1, &q, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read cursor", err, errlen);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		if (!is_int(q, 0))
			ret = damaged(path, "cursor", "height", err, errlen);
		else if (hash_of(q, 1, st->hash))
			ret = damaged(path, "cursor", "hash", err, errlen);
		/* The bits of a uint64: -1 is the mark before block 0. */
		st->height = (uint64_t)sqlite3_column_int64(q, 0);
		st->have_cursor = ret == 0;
		/* The first start marks the block before the first one with
		 * a zero hash, which no block has. */
		st->processed = memcmp(st->hash, zero, 32) != 0;
	} else if (rc != SQLITE_DONE) {
		ret = hj_dbread_sql_fail(db, path, "read cursor", err, errlen);
	}
	sqlite3_finalize(q);
	return ret;
}

/*
 * Every open round, decoded as hj_store_load_rounds decodes it; with the
 * rules known, restored into a table whose exposure is the daemon's.
 */
static int read_rounds(sqlite3 *db, const char *path, struct status *st,
                       char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	hj_table *t = NULL;
	char why[200], hex[65];
	int rc, ret = 0;

	if (st->rules_ok && (t = hj_table_new(&st->rules)) == NULL)
		return nomem(err, errlen);
	if (sqlite3_prepare_v2(db,
	                       "SELECT id, data FROM rounds ORDER BY "
	                       "bet_height, bet_tx_index",
	                       -1, &q, NULL) != SQLITE_OK) {
		hj_table_free(t);
		return hj_dbread_sql_fail(db, path, "read rounds", err, errlen);
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int idlen = sqlite3_column_bytes(q, 0);
		int len = sqlite3_column_bytes(q, 1);
		hj_round r;
		hj_id id = {0};

		st->nrounds++;
		if (sqlite3_column_type(q, 0) != SQLITE_BLOB || idlen < 1 ||
		    idlen > 32) {
			hj_dbread_say(err, errlen,
			              "%s: open round %zu: no valid round id",
			              path, st->nrounds);
			ret = EX_DATAERR;
			break;
		}
		id.len = (uint8_t)idlen;
		memcpy(id.b, sqlite3_column_blob(q, 0), (size_t)idlen);
		hj_hex_encode(id.b, id.len, 0, hex);
		if (sqlite3_column_type(q, 1) != SQLITE_BLOB ||
		    len > HJ_ROUND_ENCODED_MAX) {
			hj_dbread_say(
			    err, errlen,
			    "%s: round %s: data is not a round encoding (%d "
			    "bytes)",
			    path, hex, len);
			ret = EX_DATAERR;
			break;
		}
		if (hj_round_decode(sqlite3_column_blob(q, 1), (size_t)len, &r,
		                    why, sizeof why)) {
			hj_dbread_say(err, errlen, "%s: round %s: %s", path,
			              hex, why);
			ret = EX_DATAERR;
			break;
		}
		if (!hj_id_eq(&id, &r.id)) {
			hj_dbread_say(
			    err, errlen,
			    "%s: round %s: the encoded round has another id",
			    path, hex);
			ret = EX_DATAERR;
			break;
		}
		if (t == NULL)
			continue;
		ret = hj_table_restore(t, &r);
		if (ret) {
			if (ret == -EEXIST)
				hj_dbread_say(
				    err, errlen,
				    "%s: round %s: its player has another "
				    "open round",
				    path, hex);
			else
				nomem(err, errlen);
			ret = ret == -EEXIST ? EX_DATAERR : EX_SOFTWARE;
			break;
		}
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_dbread_sql_fail(db, path, "read rounds", err, errlen);
	/* Without rounds there is nothing to be unknown about. */
	st->exposure_known = t != NULL || st->nrounds == 0;
	st->exposure = t ? hj_table_exposure(t) : 0;
	sqlite3_finalize(q);
	hj_table_free(t);
	return ret;
}

static int add(struct tally *t, hj_amount v)
{
	if (v > HJ_AMOUNT_MAX - t->sum)
		return -1;
	t->sum += v;
	t->n++;
	return 0;
}

static int read_payouts(sqlite3 *db, const char *path, struct status *st,
                        char *err, size_t errlen)
{
	/* A payout in a planned batch (schema 2 on) is still owed. */
	static const char sql_v1[] =
	    "SELECT id, state, recipient IS NULL, 0, amount FROM payouts";
	static const char sql_v2[] =
	    "SELECT p.id, p.state, p.recipient IS NULL, EXISTS (SELECT 1 "
	    "FROM payout_batch_items i JOIN payout_batches b ON b.id = "
	    "i.batch WHERE i.payout = p.id AND b.state = 'planned'), "
	    "p.amount FROM payouts p";
	sqlite3_stmt *q = NULL;
	char shown[SHOWLEN];
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, st->version >= 2 ? sql_v2 : sql_v1, -1, &q,
	                       NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read payouts", err,
		                          errlen);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(q, 0);
		const char *state = (const char *)sqlite3_column_text(q, 1);
		const char *bad = NULL;
		hj_amount v = 0;
		int over = 0;

		hj_quote(id ? id : "", shown, sizeof shown);
		if (sqlite3_column_type(q, 1) != SQLITE_TEXT || state == NULL)
			bad = "state";
		else if (amount_of(q, 4, &v))
			bad = "amount";
		if (bad != NULL) {
			char what[SHOWLEN + 16];

			snprintf(what, sizeof what, "payout %s", shown);
			ret = damaged(path, what, bad, err, errlen);
			break;
		}
		if (strcmp(state, "owed") == 0) {
			over = add(&st->owed, v);
			if (sqlite3_column_int(q, 2))
				over |= add(&st->unattributed, v);
			if (sqlite3_column_int(q, 3))
				over |= add(&st->planned, v);
		} else if (strcmp(state, "submitted") == 0) {
			over = add(&st->flight, v);
		} else if (strcmp(state, "confirmed") == 0) {
			over = add(&st->confirmed, v);
		} else {
			char s2[SHOWLEN];

			hj_quote(state, s2, sizeof s2);
			hj_dbread_say(
			    err, errlen,
			    "%s: payout %s: state %s is not owed, submitted "
			    "or confirmed",
			    path, shown, s2);
			ret = EX_DATAERR;
			break;
		}
		if (over) {
			hj_dbread_say(
			    err, errlen,
			    "%s: the payouts' sum exceeds 2^128 - 1 base "
			    "units: not a real ledger",
			    path);
			ret = EX_DATAERR;
			break;
		}
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_dbread_sql_fail(db, path, "read payouts", err, errlen);
	sqlite3_finalize(q);
	return ret;
}

/* The dealer_balance row (schema 3 on). */
static int read_balance(sqlite3 *db, const char *path, struct status *st,
                        char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	const char *bad = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT amount, height, at, warning FROM "
	                       "dealer_balance WHERE id = 1",
	                       -1, &q, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read the balance", err,
		                          errlen);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		if (amount_of(q, 0, &st->balance))
			bad = "amount";
		else if (!is_int(q, 1))
			bad = "height";
		else if (!is_int(q, 2))
			bad = "at";
		else if (sqlite3_column_type(q, 3) != SQLITE_NULL &&
		         text_dup(q, 3, &st->warning))
			bad = "warning";
		if (bad != NULL) {
			ret = damaged(path, "dealer_balance", bad, err, errlen);
		} else {
			st->have_balance = 1;
			st->bal_height = sqlite3_column_int64(q, 1);
			st->bal_at = sqlite3_column_int64(q, 2);
		}
	} else if (rc != SQLITE_DONE) {
		ret = hj_dbread_sql_fail(db, path, "read the balance", err,
		                         errlen);
	}
	sqlite3_finalize(q);
	return ret;
}

/* Batches planned or sent (schema 2 on; EVM columns from 3). */
static int read_batches(sqlite3 *db, const char *path, struct status *st,
                        char *err, size_t errlen)
{
	static const char sql_v3[] =
	    "SELECT b.id, b.state, b.txid, b.outputs, b.total, b.created_at, "
	    "b.nonce, (SELECT o.address FROM payout_batch_outputs o WHERE "
	    "o.batch = b.id ORDER BY o.address LIMIT 1), (SELECT count(*) "
	    "FROM payout_tx_versions v WHERE v.batch = b.id), (SELECT v.hash "
	    "FROM payout_tx_versions v WHERE v.batch = b.id ORDER BY v.seq "
	    "DESC LIMIT 1) FROM payout_batches b WHERE b.state IN "
	    "('planned', 'sent') ORDER BY b.id";
	static const char sql_v2[] =
	    "SELECT b.id, b.state, b.txid, b.outputs, b.total, b.created_at, "
	    "NULL, NULL, 0, NULL FROM payout_batches b WHERE b.state IN "
	    "('planned', 'sent') ORDER BY b.id";
	sqlite3_stmt *q = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, st->version >= 3 ? sql_v3 : sql_v2, -1, &q,
	                       NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read payout batches", err,
		                          errlen);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct open_batch b = {0};
		const char *state = (const char *)sqlite3_column_text(q, 1);
		const char *bad = NULL;
		char what[48];
		int r = 0;

		b.id = sqlite3_column_int64(q, 0);
		b.sent = state != NULL && strcmp(state, "sent") == 0;
		b.has_txid = sqlite3_column_type(q, 2) != SQLITE_NULL;
		b.has_nonce = sqlite3_column_type(q, 6) != SQLITE_NULL;
		b.has_hash = sqlite3_column_type(q, 9) != SQLITE_NULL;
		if (b.has_txid && hash_of(q, 2, b.txid))
			bad = "txid";
		else if (!is_int(q, 3))
			bad = "outputs";
		else if (amount_of(q, 4, &b.total))
			bad = "total";
		else if (!is_int(q, 5))
			bad = "created_at";
		else if (b.has_nonce && !is_int(q, 6))
			bad = "nonce";
		else if (b.has_hash && hash_of(q, 9, b.hash))
			bad = "hash of payout_tx_versions";
		else if (sqlite3_column_type(q, 7) != SQLITE_NULL &&
		         (r = text_dup(q, 7, &b.address)) != 0)
			bad = "address of payout_batch_outputs";
		if (r == -2) {
			ret = nomem(err, errlen);
			break;
		}
		if (bad != NULL) {
			snprintf(what, sizeof what, "payout batch %lld",
			         (long long)b.id);
			ret = damaged(path, what, bad, err, errlen);
			free(b.address);
			break;
		}
		b.outputs = sqlite3_column_int64(q, 3);
		b.created_at = sqlite3_column_int64(q, 5);
		b.nonce = sqlite3_column_int64(q, 6);
		b.versions = sqlite3_column_int64(q, 8);
		if (st->nopen == OPEN_MAX) {
			free(b.address);
			hj_dbread_say(
			    err, errlen,
			    "%s: more than %d payout batches are planned or "
			    "sent: not a real state",
			    path, OPEN_MAX);
			ret = EX_DATAERR;
			break;
		}
		if (st->nopen == st->capopen) {
			size_t cap = st->capopen ? 2 * st->capopen : 8;
			struct open_batch *p =
			    realloc(st->open, cap * sizeof *p);

			if (p == NULL) {
				free(b.address);
				ret = nomem(err, errlen);
				break;
			}
			st->open = p;
			st->capopen = cap;
		}
		st->open[st->nopen++] = b;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_dbread_sql_fail(db, path, "read payout batches", err,
		                         errlen);
	sqlite3_finalize(q);
	return ret;
}

/* Inside hj_dbread's read transaction: everything status shows. */
static int read_all(sqlite3 *db, const char *path, int version, void *arg,
                    char *err, size_t errlen)
{
	struct status *st = arg;
	int ret;

	st->version = version;
	ret = read_meta(db, path, st, err, errlen);
	if (ret == 0)
		ret = read_cursor(db, path, st, err, errlen);
	if (ret == 0)
		ret = read_rounds(db, path, st, err, errlen);
	if (ret == 0)
		ret = read_payouts(db, path, st, err, errlen);
	if (ret == 0 && version >= 3)
		ret = read_balance(db, path, st, err, errlen);
	if (ret == 0 && version >= 2)
		ret = read_batches(db, path, st, err, errlen);
	if (ret == 0 && st->family == NULL &&
	    (st->nrounds > 0 || st->owed.n + st->flight.n + st->confirmed.n)) {
		hj_dbread_say(
		    err, errlen,
		    "%s: open rounds or payouts but no meta row: the database "
		    "does not say which chain they are on",
		    path);
		ret = EX_DATAERR;
	}
	st->now = (int64_t)time(NULL);
	return ret;
}

/* ---- what follows from it --------------------------------------------- */

struct verdict {
	hj_amount need; /* a lower bound when the worst case is unknown */
	int exact;
	int short_; /* need > balance (by short_by) */
	hj_amount short_by, spare;
	int spare_known;
};

/*
 * The bankroll check the daemon's payers make (daemon/payout_evm.c,
 * daemon/payout_btc.c), so that both say the same: what is owed to a
 * known recipient (unattributed refunds are never paid by the daemon),
 * plus what is in flight on EVM, plus the open rounds' worst case.
 * Returns 0, or -1 when the need does not fit 128 bits.
 */
static int judge(const struct status *st, struct verdict *v)
{
	/* unattributed is a part of owed. */
	hj_amount need = st->owed.sum - st->unattributed.sum;

	memset(v, 0, sizeof *v);
	/* The Bitcoin family's wallet balance already leaves out what its
	 * sent transactions spend. */
	if (st->family == NULL || st->chain.evm) {
		if (st->flight.sum > HJ_AMOUNT_MAX - need)
			return -1;
		need += st->flight.sum;
	}
	if (st->exposure_known) {
		if (st->exposure > HJ_AMOUNT_MAX - need)
			return -1;
		need += st->exposure;
	}
	v->need = need;
	v->exact = st->exposure_known;
	if (!st->have_balance)
		return 0;
	if (need > st->balance) {
		v->short_ = 1;
		v->short_by = need - st->balance;
	} else if (v->exact) {
		v->spare_known = 1;
		v->spare = st->balance - need;
	}
	return 0;
}

/* ---- text ------------------------------------------------------------- */

/* "N wei (X ETH)", or "N" without a chain. */
static const char *money(const struct status *st, hj_amount v, char *buf,
                         size_t n)
{
	char d[HJ_AMOUNT_STRLEN], c[HJ_COINS_STRLEN];

	if (st->family == NULL)
		snprintf(buf, n, "%s", hj_amount_format(v, d));
	else
		snprintf(buf, n, "%s %s (%s %s)", hj_amount_format(v, d),
		         st->chain.base,
		         hj_dbread_coins(v, st->chain.decimals, c),
		         st->chain.unit);
	return buf;
}

/* "3 payouts, N wei (X ETH)" */
static const char *tally_text(const struct status *st, const struct tally *t,
                              char *buf, size_t n)
{
	char m[128];

	snprintf(buf, n, "%llu payout%s, %s", (unsigned long long)t->n,
	         t->n == 1 ? "" : "s", money(st, t->sum, m, sizeof m));
	return buf;
}

/* How long ago: "35 s ago", "2 min 5 s ago", "3 h 4 min ago", "2 d 1 h
 * ago"; a time ahead of this clock says so. */
static const char *ago(int64_t secs, char *buf, size_t n)
{
	long long s = secs < 0 ? -(long long)secs : secs;

	if (s < 60)
		snprintf(buf, n, "%lld s", s);
	else if (s < 3600)
		snprintf(buf, n, "%lld min %lld s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, n, "%lld h %lld min", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, n, "%lld d %lld h", s / 86400, s % 86400 / 3600);
	if (secs >= 0) {
		size_t k = strlen(buf);

		snprintf(buf + k, n - k, " ago");
	} else {
		size_t k = strlen(buf);

		snprintf(buf + k, n - k, " ahead of this clock");
	}
	return buf;
}

/* One "label  value" line; value is database text, escaped. */
static void line_text(const char *label, const char *value, struct hj_buf *out)
{
	char lab[32];

	snprintf(lab, sizeof lab, "%-16s", label);
	hj_buf_str(out, lab);
	hj_buf_printable(out, value);
	hj_buf_str(out, "\n");
}

/* One "label  value" line of text made here (no escaping needed). */
__attribute__((format(printf, 3, 4))) static void
line(struct hj_buf *out, const char *label, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	snprintf(text, sizeof text, "%-16s", label);
	hj_buf_str(out, text);
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	hj_buf_str(out, text);
	hj_buf_str(out, "\n");
}

static void text_batches(const struct status *st, struct hj_buf *out)
{
	char m[128], a[64], h[67];
	size_t ntx = 0, nb = 0;

	for (size_t i = 0; i < st->nopen; i++) {
		if (st->open[i].has_nonce)
			ntx++;
		else
			nb++;
	}
	/* EVM pays with transactions, the Bitcoin family with batches;
	 * either list is shown when it has something. */
	if (ntx > 0 || (st->family != NULL && st->chain.evm)) {
		if (ntx)
			line(out, "transactions", "%zu open", ntx);
		else
			line(out, "transactions", "none open");
	}
	for (size_t i = 0; i < st->nopen; i++) {
		const struct open_batch *b = &st->open[i];

		if (!b->has_nonce)
			continue;
		hj_buf_str(out, "  nonce ");
		snprintf(m, sizeof m, "%lld, %s, to ", (long long)b->nonce,
		         b->sent ? "sent" : "planned");
		hj_buf_str(out, m);
		hj_buf_printable(out, b->address ? b->address : "-");
		hj_buf_str(out, ", ");
		hj_buf_str(out, money(st, b->total, m, sizeof m));
		if (b->has_hash) {
			hj_hex_encode(b->hash, 32, 1, h);
			hj_buf_str(out, ", hash ");
			hj_buf_str(out, h);
		}
		snprintf(m, sizeof m, ", %lld version%s, created %s\n",
		         (long long)b->versions, b->versions == 1 ? "" : "s",
		         ago(st->now - b->created_at, a, sizeof a));
		hj_buf_str(out, m);
	}
	if (nb > 0 || (st->family != NULL && !st->chain.evm)) {
		if (nb)
			line(out, "batches", "%zu open", nb);
		else
			line(out, "batches", "none open");
	}
	for (size_t i = 0; i < st->nopen; i++) {
		const struct open_batch *b = &st->open[i];

		if (b->has_nonce)
			continue;
		snprintf(m, sizeof m, "  batch %lld, %s", (long long)b->id,
		         b->sent ? "sent" : "planned");
		hj_buf_str(out, m);
		if (b->has_txid) {
			hj_hex_encode(b->txid, 32, 0, h);
			hj_buf_str(out, ", txid ");
			hj_buf_str(out, h);
		}
		snprintf(m, sizeof m, ", %lld output%s, ",
		         (long long)b->outputs, b->outputs == 1 ? "" : "s");
		hj_buf_str(out, m);
		hj_buf_str(out, money(st, b->total, m, sizeof m));
		snprintf(m, sizeof m, ", created %s\n",
		         ago(st->now - b->created_at, a, sizeof a));
		hj_buf_str(out, m);
	}
}

static void text_all(const struct status *st, const struct verdict *v,
                     const char *path, struct hj_buf *out)
{
	char m[160], t[200], a[64], h[67];
	int evm = st->family == NULL || st->chain.evm;

	hj_buf_str(out, "database        ");
	hj_buf_printable(out, path);
	snprintf(m, sizeof m, " (schema version %d)\n", st->version);
	hj_buf_str(out, m);
	if (st->family == NULL) {
		line(out, "chain",
		     "not recorded yet: the daemon has not reached its node");
	} else {
		line_text("family", st->family, out);
		line_text("chain", st->chain_id, out);
		line_text("dealer", st->dealer, out);
		hj_buf_str(out, "rules           ");
		hj_buf_printable(out, st->rules_text);
		if (!st->rules_ok) {
			hj_buf_str(out, " (cannot be read: ");
			hj_buf_printable(out, st->rules_err);
			hj_buf_str(out, ")");
		}
		hj_buf_str(out, "\n");
	}

	if (st->processed) {
		hj_hex_encode(st->hash, 32, evm, h);
		line(out, "last block", "%llu %s",
		     (unsigned long long)st->height, h);
	} else if (st->have_cursor) {
		line(out, "last block",
		     "no block processed yet (the first will be %llu)",
		     (unsigned long long)(st->height + 1));
	} else {
		line(out, "last block", "no block processed yet");
	}

	if (st->exposure_known)
		line(out, "open rounds", "%zu, worst case %s", st->nrounds,
		     money(st, st->exposure, m, sizeof m));
	else
		line(out, "open rounds",
		     "%zu, worst case unknown (the rules cannot be read)",
		     st->nrounds);
	line(out, "owed", "%s", tally_text(st, &st->owed, t, sizeof t));
	line(out, "  unattributed", "%s",
	     tally_text(st, &st->unattributed, t, sizeof t));
	line(out, "  planned", "%s", tally_text(st, &st->planned, t, sizeof t));
	line(out, "in flight", "%s", tally_text(st, &st->flight, t, sizeof t));
	line(out, "confirmed", "%s",
	     tally_text(st, &st->confirmed, t, sizeof t));

	if (st->have_balance)
		line(out, "balance", "%s, read at tip %lld, %s",
		     money(st, st->balance, m, sizeof m),
		     (long long)st->bal_height,
		     ago(st->now - st->bal_at, a, sizeof a));
	else
		line(out, "balance",
		     "not read yet (the daemon pays nothing without [payout] "
		     "wallet / dealer_key)");
	line(out, "need", "%s%s = %s", v->exact ? "" : "at least ",
	     money(st, v->need, m, sizeof m),
	     evm ? (v->exact ? "owed to a recipient + in flight + worst case"
	                     : "owed to a recipient + in flight; the worst "
	                       "case is unknown")
	         : (v->exact ? "owed to a recipient + worst case (the "
	                       "wallet's balance leaves out what is in "
	                       "flight)"
	                     : "owed to a recipient; the worst case is "
	                       "unknown"));
	if (v->short_) {
		hj_buf_str(out, "SHORT by ");
		if (!v->exact)
			hj_buf_str(out, "at least ");
		hj_buf_str(out, money(st, v->short_by, m, sizeof m));
		hj_buf_str(out, "\n");
	} else if (v->spare_known) {
		line(out, "spare", "%s", money(st, v->spare, m, sizeof m));
	}
	if (st->warning != NULL)
		line_text("warning", st->warning, out);
	text_batches(st, out);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *jamount(hj_amount v)
{
	char d[HJ_AMOUNT_STRLEN];

	return json_string(hj_amount_format(v, d));
}

/* Database text, or null. */
static json_t *jtext(const char *s)
{
	return s ? hj_dbread_json_text(s) : json_null();
}

static json_t *jtally(const struct tally *t)
{
	return json_pack("{s:I,s:o}", "count", (json_int_t)t->n, "amount",
	                 jamount(t->sum));
}

static json_t *jhash(const uint8_t b[32], int prefix)
{
	char h[67];

	hj_hex_encode(b, 32, prefix, h);
	return json_string(h);
}

/* Sets key to v (stolen) in o; -1 when v is NULL (out of memory). */
static int put(json_t *o, const char *key, json_t *v)
{
	return v == NULL || json_object_set_new(o, key, v) ? -1 : 0;
}

static json_t *json_batches(const struct status *st, int evm_tx)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < st->nopen; i++) {
		const struct open_batch *b = &st->open[i];
		json_t *o;
		int bad;

		if (b->has_nonce != evm_tx)
			continue;
		o = json_object();
		if (o == NULL) {
			json_decref(a);
			return NULL;
		}
		if (evm_tx) {
			bad = put(o, "batch", json_integer(b->id)) ||
			      put(o, "nonce", json_integer(b->nonce)) ||
			      put(o, "state",
			          json_string(b->sent ? "sent" : "planned")) ||
			      put(o, "recipient", jtext(b->address)) ||
			      put(o, "amount", jamount(b->total)) ||
			      put(o, "hash",
			          b->has_hash ? jhash(b->hash, 1)
			                      : json_null()) ||
			      put(o, "versions", json_integer(b->versions));
		} else {
			bad = put(o, "id", json_integer(b->id)) ||
			      put(o, "state",
			          json_string(b->sent ? "sent" : "planned")) ||
			      put(o, "txid",
			          b->has_txid ? jhash(b->txid, 0)
			                      : json_null()) ||
			      put(o, "outputs", json_integer(b->outputs)) ||
			      put(o, "total", jamount(b->total));
		}
		bad = bad || put(o, "createdAt", json_integer(b->created_at)) ||
		      put(o, "ageSeconds",
		          json_integer(st->now - b->created_at)) ||
		      json_array_append_new(a, o);
		if (bad) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *json_balance(const struct status *st)
{
	if (!st->have_balance)
		return json_null();
	return json_pack(
	    "{s:o,s:I,s:I,s:I,s:o}", "amount", jamount(st->balance), "height",
	    (json_int_t)st->bal_height, "at", (json_int_t)st->bal_at,
	    "ageSeconds", (json_int_t)(st->now - st->bal_at), "warning",
	    jtext(st->warning));
}

static json_t *json_block(const struct status *st)
{
	if (!st->processed)
		return json_null();
	return json_pack("{s:I,s:o}", "height", (json_int_t)st->height, "hash",
	                 jhash(st->hash, st->family ? st->chain.evm : 0));
}

/* Every key, in the text's order; null where the text says none. */
static json_t *json_all(const struct status *st, const struct verdict *v,
                        const char *path)
{
	json_t *o = json_object();
	int meta = st->family != NULL, bad;

	if (o == NULL)
		return NULL;
	bad =
	    put(o, "database", hj_dbread_json_text(path)) ||
	    put(o, "schemaVersion", json_integer(st->version)) ||
	    put(o, "family", jtext(st->family)) ||
	    put(o, "chain", jtext(st->chain_id)) ||
	    put(o, "dealer", jtext(st->dealer)) ||
	    put(o, "rules", jtext(st->rules_text)) ||
	    put(o, "rulesError",
	        meta && !st->rules_ok ? jtext(st->rules_err) : json_null()) ||
	    put(o, "unit", meta ? json_string(st->chain.unit) : json_null()) ||
	    put(o, "baseUnit",
	        meta ? json_string(st->chain.base) : json_null()) ||
	    put(o, "decimals",
	        meta ? json_integer(st->chain.decimals) : json_null()) ||
	    put(o, "lastBlock", json_block(st)) ||
	    put(o, "nextBlock",
	        st->have_cursor ? json_integer((json_int_t)(st->height + 1))
	                        : json_null()) ||
	    put(o, "openRounds", json_integer((json_int_t)st->nrounds)) ||
	    put(o, "exposure",
	        st->exposure_known ? jamount(st->exposure) : json_null()) ||
	    put(o, "owed", jtally(&st->owed)) ||
	    put(o, "unattributed", jtally(&st->unattributed)) ||
	    put(o, "planned", jtally(&st->planned)) ||
	    put(o, "inFlight", jtally(&st->flight)) ||
	    put(o, "confirmed", jtally(&st->confirmed)) ||
	    put(o, "balance", json_balance(st)) ||
	    put(o, "need", jamount(v->need)) ||
	    put(o, "short", v->short_ ? jamount(v->short_by) : json_null()) ||
	    put(o, "spare", v->spare_known ? jamount(v->spare) : json_null()) ||
	    put(o, "transactions", json_batches(st, 1)) ||
	    put(o, "batches", json_batches(st, 0));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the command ------------------------------------------------------ */

enum opt { O_STATE_DIR, O_STATE, O_DB, O_JSON, O_COUNT };

static const char *const opt_name[O_COUNT] = {"--state-dir", "--state", "--db",
                                              "--json"};

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

static int parse_args(int argc, char **argv, const char **v)
{
	static const unsigned char flag[O_COUNT] = {[O_JSON] = 1};
	char err[ERRLEN];

	if (hj_dbread_options(argc, argv, opt_name, flag, O_COUNT, v, err,
	                      sizeof err))
		return hj_dbread_usage(CMD, "%s", err);
	if (v[O_STATE_DIR] && v[O_STATE])
		return hj_dbread_usage(
		    CMD, "--state and --state-dir are the same option: "
		         "give it once");
	if (v[O_STATE] && v[O_DB])
		return hj_dbread_usage(
		    CMD, "--state and --db: give one or the other");
	if (v[O_STATE_DIR] && v[O_DB])
		return hj_dbread_usage(
		    CMD, "--state-dir and --db: give one or the other");
	for (int o = O_STATE_DIR; o <= O_DB; o++)
		if (v[o] && v[o][0] == '\0')
			return hj_dbread_usage(CMD, "%s: empty", opt_name[o]);
	return 0;
}

int hj_status_main(int argc, char **argv)
{
	struct status st = {0};
	struct verdict v;
	struct hj_buf out = {0};
	const char *opt[O_COUNT];
	char err[ERRLEN] = "", *path, *text;
	json_t *j;
	int rc;

	/* --help wins over everything else on the line. */
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return hj_status_help();
	rc = parse_args(argc, argv, opt);
	if (rc)
		return rc;
	path = hj_dbread_path(opt[O_DB], opt[O_STATE_DIR] ? opt[O_STATE_DIR]
	                                                  : opt[O_STATE]);
	if (path == NULL)
		return hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");

	rc = hj_dbread(path, read_all, status_reset, &st, err, sizeof err);
	if (rc) {
		rc = hj_dbread_fail(CMD, rc, "%s", err);
	} else if (judge(&st, &v)) {
		rc = hj_dbread_fail(
		    CMD, EX_DATAERR,
		    "%s: what is owed, in flight and the worst case add "
		    "up to more than 2^128 - 1 base units: not a real "
		    "state",
		    path);
	} else if (opt[O_JSON]) {
		j = json_all(&st, &v, path);
		text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER)
		         : NULL;
		json_decref(j);
		if (text == NULL) {
			rc = hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");
		} else {
			puts(text);
			free(text);
		}
	} else {
		text_all(&st, &v, path, &out);
		if (out.nomem)
			rc = hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");
		else
			fwrite(out.p, 1, out.n, stdout);
	}
	free(out.p);
	status_clear(&st);
	free(path);
	return rc;
}
