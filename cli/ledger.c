/*
 * `hashjack ledger` (see ledger.h; the formats are in docs/CLI.md, the
 * schema in docs/STATE.md).
 *
 * The database is read through cli/dbread.c, which it shares with
 * `hashjack status`: read-only, with no file created or removed beside it,
 * in one read transaction, started over while the daemon starts or stops.
 * Everything selected is kept in memory and printed only once the
 * connection is closed, so that output piped into a pager never holds a
 * read transaction open.
 */
#include "ledger.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <sqlite3.h>

#include "amount.h"
#include "bech32.h"
#include "dbread.h"
#include "hex.h"
#include "quote.h"
#include "taproot.h"

#define CMD "ledger" /* in messages: "hashjack: ledger: ..." */
/* The selection is held in memory before printing: at most this much. */
#define ROWS_MAX_BYTES ((size_t)1 << 30)

#define ERRLEN 1024
/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/* ---- help ------------------------------------------------------------ */

static const char usage_ledger[] =
    "Usage: hashjack ledger [--state DIR | --db FILE] [--state-filter "
    "STATE]\n"
    "                       [--recipient R] [--round ID] [--kind KIND] "
    "[--json]\n"
    "\n"
    "Lists the payouts in the dealer daemon's database: every return,\n"
    "insurance return and refund it owes, has submitted or has seen\n"
    "confirmed, oldest first, then the count and sum per state.  The\n"
    "database is only read: no lock that could slow the daemon, no file\n"
    "created or changed beside it.  Safe while hashjackd runs.\n"
    "\n"
    "Options:\n"
    "  --state DIR          the daemon's state directory: reads\n"
    "                       DIR/hashjackd.sqlite.  Default: the first entry\n"
    "                       of $STATE_DIRECTORY, else /var/lib/hashjackd (as\n"
    "                       the daemon; pass --state when its configuration\n"
    "                       sets [state] directory)\n"
    "  --db FILE            the database file itself, instead of --state\n"
    "  --state-filter STATE only payouts in STATE: owed, submitted or\n"
    "                       confirmed\n"
    "  --recipient R        only payouts to R, as printed: an EVM address\n"
    "                       (0x + 40 hex digits); on the Bitcoin family the\n"
    "                       payout address tr(P) or the key P (64 hex\n"
    "                       digits); \"unattributed\": refunds whose sender\n"
    "                       is unknown\n"
    "  --round ID           only payouts of round ID: the Bet's transaction\n"
    "                       id, 64 hex digits (with or without 0x on EVM)\n"
    "  --kind KIND          only payouts of KIND: return, insurance or\n"
    "                       refund\n"
    "  --json               one JSON object per payout and line (JSON\n"
    "                       Lines), amounts as decimal strings; no totals\n"
    "  -h, --help           print this help and exit\n"
    "\n"
    "Filters combine: a payout is listed when it matches every one given.\n"
    "\n"
    "The table's columns: ID (the payout's id), KIND, STATE, RECIPIENT\n"
    "(\"unattributed\" when unknown), AMOUNT in base units (wei, satoshi,\n"
    "litoshi) and in ETH, BTC or LTC, ROUND, HAND, CREATED (the block that\n"
    "created the debt), SUBMITTED_TXID, NONCE, SUBMITTED and CONFIRMED\n"
    "(block heights), LAST_ERROR; a column empty in every row is left out,\n"
    "an empty cell is \"-\".  JSON keys: id, kind, state, recipient,\n"
    "recipientKey, amount, round, handIndex, tx, createdHeight,\n"
    "submittedTxid, nonce, submittedHeight, submittedAt, confirmedHeight,\n"
    "lastError (docs/CLI.md).\n"
    "\n"
    "Example:\n"
    "  $ hashjack ledger --state-filter owed\n"
    "  $ hashjack ledger --db copy.sqlite --json | jq -r .amount\n"
    "\n"
    "Exit status: 0 ok (nothing matching included), 64 usage error, 65 not\n"
    "a hashjackd database or a damaged one, 66 cannot open the database,\n"
    "70 internal error (out of memory, a selection above 1 GiB), 74 read\n"
    "or write error, 75 the database stayed busy or kept changing: try\n"
    "again.\n";

int hj_ledger_help(void)
{
	fputs(usage_ledger, stdout);
	return EX_OK;
}

/* ---- command line ----------------------------------------------------- */

enum opt {
	O_STATE,
	O_DB,
	O_STATE_FILTER,
	O_RECIPIENT,
	O_ROUND,
	O_KIND,
	O_JSON,
	O_COUNT
};

static const char *const opt_name[O_COUNT] = {
    "--state", "--db",   "--state-filter", "--recipient",
    "--round", "--kind", "--json",
};

/* The states and kinds settlement knows (docs/STATE.md).  Totals list the
 * states in this order, any other state after them by name. */
static const char *const states[] = {"owed", "submitted", "confirmed"};
static const char *const kinds[] = {"return", "insurance", "refund"};
#define NSTATES (sizeof states / sizeof states[0])
#define NKINDS  (sizeof kinds / sizeof kinds[0])

enum rcp {
	R_ANY,  /* no --recipient */
	R_NONE, /* "unattributed": recipient IS NULL */
	R_EVM,  /* 20 bytes */
	R_KEY,  /* an x-only key P, 32 bytes */
	R_ADDR, /* a segwit address, matched against tr(P) */
};

struct filter {
	const char *v[O_COUNT]; /* borrowed from argv; NULL when absent */
	enum rcp rcp;
	uint8_t rbytes[32];
	size_t rlen;
	char raddr[HJ_BECH32_BUF]; /* R_ADDR, lower case */
	int has_round, round_0x;
	uint8_t round[32];
};

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

static int one_of(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, set[i]) == 0)
			return 1;
	return 0;
}

/* Options as "--opt VALUE" or "--opt=VALUE", "--json" alone; "--" ends
 * them, and nothing may follow. */
static int parse_args(int argc, char **argv, struct filter *f)
{
	static const unsigned char flag[O_COUNT] = {[O_JSON] = 1};
	char err[ERRLEN];

	memset(f, 0, sizeof *f);
	if (hj_dbread_options(argc, argv, opt_name, flag, O_COUNT, f->v, err,
	                      sizeof err))
		return hj_dbread_usage(CMD, "%s", err);
	return 0;
}

static int all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hj_hex_digit((unsigned char)s[i]) < 0)
			return 0;
	return 1;
}

/* The syntax of every filter, before any file is read.  What depends on
 * the chain (an EVM address on a Bitcoin database, ...) is checked by
 * check_filter once the database says which chain it is. */
static int parse_filter(struct filter *f)
{
	char shown[SHOWLEN], why[200], hrp[HJ_BECH32_HRP_MAX + 1];
	uint8_t data[HJ_BECH32_DATA_MAX];
	hj_bech32_variant variant;
	const char *v;
	size_t n, ndata;

	if (f->v[O_STATE] && f->v[O_DB])
		return hj_dbread_usage(
		    CMD, "--state and --db: give one or the other");
	for (int o = O_STATE; o <= O_DB; o++)
		if (f->v[o] && f->v[o][0] == '\0')
			return hj_dbread_usage(CMD, "%s: empty", opt_name[o]);
	v = f->v[O_STATE_FILTER];
	if (v && !one_of(v, states, NSTATES)) {
		hj_quote(v, shown, sizeof shown);
		return hj_dbread_usage(
		    CMD,
		    "--state-filter %s: not a payout state (owed, "
		    "submitted or confirmed)",
		    shown);
	}
	v = f->v[O_KIND];
	if (v && !one_of(v, kinds, NKINDS)) {
		hj_quote(v, shown, sizeof shown);
		return hj_dbread_usage(
		    CMD,
		    "--kind %s: not a payout kind (return, insurance "
		    "or refund)",
		    shown);
	}
	v = f->v[O_ROUND];
	if (v) {
		n = strlen(v);
		f->round_0x = strncmp(v, "0x", 2) == 0;
		if (hj_hex_decode_exact(v, n, HJ_HEX_OPTIONAL, f->round,
		                        sizeof f->round, why, sizeof why)) {
			hj_quote(v, shown, sizeof shown);
			return hj_dbread_usage(
			    CMD,
			    "--round %s: not a round id (the Bet's "
			    "transaction id, 64 hex digits): %s",
			    shown, why);
		}
		f->has_round = 1;
	}
	v = f->v[O_RECIPIENT];
	if (v == NULL)
		return 0;
	n = strlen(v);
	hj_quote(v, shown, sizeof shown);
	if (strcmp(v, "unattributed") == 0) {
		f->rcp = R_NONE;
	} else if ((n == 42 && strncmp(v, "0x", 2) == 0 &&
	            all_hex(v + 2, 40)) ||
	           (n == 40 && all_hex(v, 40))) {
		f->rcp = R_EVM;
		f->rlen = 20;
		hj_hex_decode_exact(v, n, HJ_HEX_OPTIONAL, f->rbytes, 20, NULL,
		                    0);
	} else if (n == 64 && all_hex(v, 64)) {
		f->rcp = R_KEY;
		f->rlen = 32;
		hj_hex_decode_exact(v, n, HJ_HEX_BARE, f->rbytes, 32, NULL, 0);
	} else if (hj_bech32_decode(v, hrp, data, &ndata, &variant, why,
	                            sizeof why) == HJ_B32_OK) {
		f->rcp = R_ADDR;
		for (size_t i = 0; v[i]; i++)
			f->raddr[i] =
			    (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] - 'A' + 'a'
			                                      : v[i]);
	} else {
		return hj_dbread_usage(
		    CMD,
		    "--recipient %s: not an EVM address (0x + 40 hex "
		    "digits), a key P (64 hex digits), a payout "
		    "address tr(P) or \"unattributed\"",
		    shown);
	}
	return 0;
}

/* ---- the chain the database belongs to -------------------------------- */

/* The filters that depend on the chain.  Returns 0 or EX_USAGE with err. */
static int check_filter(struct filter *f, const hj_dbchain *c, char *err,
                        size_t errlen)
{
	char shown[SHOWLEN], why[200];
	uint8_t prog[HJ_SEGWIT_PROG_MAX];
	size_t proglen;
	int version;

	if (f->has_round && f->round_0x && !c->evm) {
		hj_quote(f->v[O_ROUND], shown, sizeof shown);
		hj_dbread_say(
		    err, errlen,
		    "--round %s: Bitcoin-family hex is written without \"0x\" "
		    "(the database is %s)",
		    shown, c->id);
		return EX_USAGE;
	}
	if (f->rcp == R_ANY || f->rcp == R_NONE)
		return 0;
	hj_quote(f->v[O_RECIPIENT], shown, sizeof shown);
	if (c->evm && f->rcp != R_EVM) {
		hj_dbread_say(
		    err, errlen,
		    "--recipient %s: a Bitcoin-family recipient, but the "
		    "database is %s, whose recipients are addresses (0x + 40 "
		    "hex digits)",
		    shown, c->id);
		return EX_USAGE;
	}
	if (!c->evm && f->rcp == R_EVM) {
		hj_dbread_say(
		    err, errlen,
		    "--recipient %s: an EVM address, but the database is %s, "
		    "whose recipients are payout addresses tr(P) or keys P "
		    "(64 hex digits)",
		    shown, c->id);
		return EX_USAGE;
	}
	if (f->rcp != R_ADDR)
		return 0;
	if (hj_segwit_decode(c->hrp, f->raddr, &version, prog, &proglen, why,
	                     sizeof why)) {
		hj_dbread_say(
		    err, errlen,
		    "--recipient %s: not an address of the database's chain "
		    "%s (addresses beginning \"%s1\"): %s",
		    shown, c->id, c->hrp, why);
		return EX_USAGE;
	}
	if (version != 1 || proglen != 32) {
		hj_dbread_say(
		    err, errlen,
		    "--recipient %s: not a taproot address (witness version "
		    "1, 32 bytes): payouts go to tr(P)",
		    shown);
		return EX_USAGE;
	}
	return 0;
}

/* ---- what is read ----------------------------------------------------- */

/* The fields of a payout, in JSON order. */
enum field {
	F_ID,
	F_KIND,
	F_STATE,
	F_RECIPIENT,
	F_KEY,
	F_AMOUNT,
	F_ROUND,
	F_HAND,
	F_TX,
	F_CREATED,
	F_SUBTXID,
	F_NONCE,
	F_SUBHEIGHT,
	F_SUBAT,
	F_CONFIRMED,
	F_ERROR,
	NF
};

static const struct {
	const char *json;
	int number; /* a JSON number; else a string */
} fields[NF] = {
    [F_ID] = {"id", 0},
    [F_KIND] = {"kind", 0},
    [F_STATE] = {"state", 0},
    [F_RECIPIENT] = {"recipient", 0},
    [F_KEY] = {"recipientKey", 0},
    [F_AMOUNT] = {"amount", 0},
    [F_ROUND] = {"round", 0},
    [F_HAND] = {"handIndex", 1},
    [F_TX] = {"tx", 0},
    [F_CREATED] = {"createdHeight", 1},
    [F_SUBTXID] = {"submittedTxid", 0},
    [F_NONCE] = {"nonce", 1},
    [F_SUBHEIGHT] = {"submittedHeight", 1},
    [F_SUBAT] = {"submittedAt", 1},
    [F_CONFIRMED] = {"confirmedHeight", 1},
    [F_ERROR] = {"lastError", 0},
};

/* A payout as printed: every field as text, NULL when the column is NULL.
 * The strings live in one allocation, f[F_ID] first. */
struct row {
	char *f[NF];
	hj_amount amount;
};

struct ledger {
	int have_chain; /* 0: a database with no meta row and no payout */
	hj_dbchain chain;
	struct row *rows;
	size_t n, cap;
	size_t bytes; /* held, against ROWS_MAX_BYTES */
};

static void ledger_clear(struct ledger *lg)
{
	for (size_t i = 0; i < lg->n; i++)
		free(lg->rows[i].f[F_ID]);
	free(lg->rows);
	memset(lg, 0, sizeof *lg);
}

/* Columns of the query below. */
enum {
	C_ID,
	C_KIND,
	C_STATE,
	C_RECIPIENT,
	C_AMOUNT,
	C_ROUND,
	C_HAND,
	C_TXID,
	C_CREATED,
	C_SUBTXID,
	C_NONCE,
	C_SUBHEIGHT,
	C_SUBAT,
	C_CONFIRMED,
	C_ERROR
};

static const char *const col_name[] = {
    "id",
    "kind",
    "state",
    "recipient",
    "amount",
    "round",
    "hand",
    "txid",
    "created_height",
    "submitted_txid",
    "nonce",
    "submitted_height",
    "submitted_at",
    "confirmed_height",
    "last_error",
};

/* ?1 state, ?2 kind, ?3 round, ?4 recipient, ?5 1 for unattributed only.
 * Oldest debt first; the id orders payouts of one block. */
static const char payouts_sql[] =
    "SELECT id, kind, state, recipient, amount, round, hand, txid,"
    " created_height, submitted_txid, nonce, submitted_height,"
    " submitted_at, confirmed_height, last_error FROM payouts"
    " WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR kind = ?2)"
    " AND (?3 IS NULL OR round = ?3) AND (?4 IS NULL OR recipient = ?4)"
    " AND (?5 = 0 OR recipient IS NULL)"
    " ORDER BY created_height, id";

/* Reads meta into lg->chain; lg->have_chain stays 0 for a database that
 * has neither a meta row nor a payout (the daemon never reached a node). */
static int read_meta(sqlite3 *db, const char *path, struct ledger *lg,
                     char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	int rc, ret;

	if (sqlite3_prepare_v2(db,
	                       "SELECT family, chain FROM meta WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read meta", err, errlen);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *fam = (const char *)sqlite3_column_text(st, 0);
		const char *id = (const char *)sqlite3_column_text(st, 1);

		ret = hj_dbread_chain(path, fam ? fam : "", id ? id : "",
		                      &lg->chain, err, errlen);
		lg->have_chain = ret == 0;
	} else if (rc == SQLITE_DONE) {
		ret = hj_dbread_int(db, path, "SELECT count(*) FROM payouts",
		                    &n, err, errlen);
		if (ret == 0 && n > 0) {
			hj_dbread_say(
			    err, errlen,
			    "%s: %lld payouts but no meta row: the database "
			    "does not say which chain they are on",
			    path, (long long)n);
			ret = EX_DATAERR;
		}
	} else {
		ret = hj_dbread_sql_fail(db, path, "read meta", err, errlen);
	}
	sqlite3_finalize(st);
	return ret;
}

/* Text of a BLOB id in the chain's form: "0x" and hex on EVM, bare hex on
 * the Bitcoin family.  Returns 0, or -1 when the column is not a BLOB of
 * 1 to 32 bytes.  NULL columns give NULL. */
static int id_text(sqlite3_stmt *st, int col, const hj_dbchain *c, char buf[67],
                   const char **out)
{
	int n = sqlite3_column_bytes(st, col);

	*out = NULL;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if (sqlite3_column_type(st, col) != SQLITE_BLOB || n < 1 || n > 32)
		return -1;
	hj_hex_encode(sqlite3_column_blob(st, col), (size_t)n, c->evm, buf);
	*out = buf;
	return 0;
}

static int int_text(sqlite3_stmt *st, int col, char buf[24], const char **out)
{
	*out = NULL;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return -1;
	snprintf(buf, 24, "%lld", (long long)sqlite3_column_int64(st, col));
	*out = buf;
	return 0;
}

static int text_of(sqlite3_stmt *st, int col, int nullable, const char **out)
{
	*out = NULL;
	if (nullable && sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return -1;
	*out = (const char *)sqlite3_column_text(st, col);
	return *out ? 0 : -1;
}

/*
 * Turns the current row into a struct row appended to lg, or skips it when
 * an address filter does not match.  A column that does not hold what the
 * schema says is EX_DATAERR naming the payout and the column.
 */
static int take_row(sqlite3_stmt *st, const char *path, const hj_secp *ctx,
                    const struct filter *flt, struct ledger *lg, char *err,
                    size_t errlen)
{
	const hj_dbchain *c = &lg->chain;
	const char *src[NF] = {0}, *bad = NULL;
	char round[67], tx[67], sub[67], key[67], rcp[HJ_BECH32_BUF + 2];
	char hand[24], created[24], nonce[24], subh[24], subat[24], conf[24];
	char shown[SHOWLEN], why[200];
	size_t len[NF], total = 0;
	struct row r = {0};
	char *mem;

	if (text_of(st, C_ID, 0, &src[F_ID])) {
		hj_dbread_say(err, errlen, "%s: a payout whose id is not text",
		              path);
		return EX_DATAERR;
	}
	if (text_of(st, C_KIND, 0, &src[F_KIND]))
		bad = col_name[C_KIND];
	else if (text_of(st, C_STATE, 0, &src[F_STATE]))
		bad = col_name[C_STATE];
	else if (text_of(st, C_AMOUNT, 0, &src[F_AMOUNT]) ||
	         hj_amount_parse(src[F_AMOUNT], strlen(src[F_AMOUNT]),
	                         &r.amount))
		bad = col_name[C_AMOUNT];
	else if (id_text(st, C_ROUND, c, round, &src[F_ROUND]))
		bad = col_name[C_ROUND];
	else if (int_text(st, C_HAND, hand, &src[F_HAND]))
		bad = col_name[C_HAND];
	else if (id_text(st, C_TXID, c, tx, &src[F_TX]))
		bad = col_name[C_TXID];
	else if (int_text(st, C_CREATED, created, &src[F_CREATED]) ||
	         src[F_CREATED] == NULL)
		bad = col_name[C_CREATED];
	else if (id_text(st, C_SUBTXID, c, sub, &src[F_SUBTXID]))
		bad = col_name[C_SUBTXID];
	else if (int_text(st, C_NONCE, nonce, &src[F_NONCE]))
		bad = col_name[C_NONCE];
	else if (int_text(st, C_SUBHEIGHT, subh, &src[F_SUBHEIGHT]))
		bad = col_name[C_SUBHEIGHT];
	else if (int_text(st, C_SUBAT, subat, &src[F_SUBAT]))
		bad = col_name[C_SUBAT];
	else if (int_text(st, C_CONFIRMED, conf, &src[F_CONFIRMED]))
		bad = col_name[C_CONFIRMED];
	else if (text_of(st, C_ERROR, 1, &src[F_ERROR]))
		bad = col_name[C_ERROR];
	if (bad != NULL) {
		hj_quote(src[F_ID], shown, sizeof shown);
		hj_dbread_say(
		    err, errlen,
		    "%s: payout %s: column %s does not hold what the schema "
		    "says (docs/STATE.md)",
		    path, shown, bad);
		return EX_DATAERR;
	}

	/* The recipient: an EVM address, or a key P and its tr(P). */
	if (sqlite3_column_type(st, C_RECIPIENT) != SQLITE_NULL) {
		const uint8_t *b = sqlite3_column_blob(st, C_RECIPIENT);
		int n = sqlite3_column_bytes(st, C_RECIPIENT);
		int want = c->evm ? 20 : 32;

		if (sqlite3_column_type(st, C_RECIPIENT) != SQLITE_BLOB ||
		    n != want) {
			hj_quote(src[F_ID], shown, sizeof shown);
			hj_dbread_say(
			    err, errlen,
			    "%s: payout %s: recipient is not %s (%d bytes)",
			    path, shown,
			    c->evm ? "an EVM address" : "an x-only key P",
			    want);
			return EX_DATAERR;
		}
		if (c->evm) {
			hj_hex_encode(b, 20, 1, rcp);
			src[F_RECIPIENT] = rcp;
		} else {
			hj_hex_encode(b, 32, 0, key);
			src[F_KEY] = key;
			/* A P that is no curve point has no address.  The
			 * daemon now refuses such a Bet, but a database
			 * written before may owe one: show its key. */
			if (hj_taproot_address(ctx, b, c->hrp, rcp, why,
			                       sizeof why) == 0)
				src[F_RECIPIENT] = rcp;
		}
	}
	if (flt->rcp == R_ADDR &&
	    (src[F_RECIPIENT] == NULL || strcmp(src[F_RECIPIENT], flt->raddr)))
		return 0;

	for (int i = 0; i < NF; i++) {
		len[i] = src[i] ? strlen(src[i]) + 1 : 0;
		total += len[i];
	}
	if (lg->bytes + total + sizeof r > ROWS_MAX_BYTES) {
		hj_dbread_say(
		    err, errlen,
		    "the selection is larger than %zu MiB; narrow it with "
		    "--state-filter, --recipient, --round or --kind",
		    ROWS_MAX_BYTES >> 20);
		return EX_SOFTWARE;
	}
	if (lg->n == lg->cap) {
		size_t cap = lg->cap ? 2 * lg->cap : 64;
		struct row *p = realloc(lg->rows, cap * sizeof *p);

		if (p == NULL)
			goto nomem;
		lg->rows = p;
		lg->cap = cap;
	}
	mem = malloc(total);
	if (mem == NULL)
		goto nomem;
	for (int i = 0; i < NF; i++) {
		if (src[i] == NULL)
			continue;
		memcpy(mem, src[i], len[i]);
		r.f[i] = mem;
		mem += len[i];
	}
	lg->rows[lg->n++] = r;
	lg->bytes += total + sizeof r;
	return 0;
nomem:
	hj_dbread_say(err, errlen, "out of memory");
	return EX_SOFTWARE;
}

static int read_payouts(sqlite3 *db, const char *path, const hj_secp *ctx,
                        const struct filter *flt, struct ledger *lg, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, payouts_sql, -1, &st, NULL) != SQLITE_OK)
		return hj_dbread_sql_fail(db, path, "read payouts", err,
		                          errlen);
	/* The values are borrowed from argv and flt, which outlive st. */
	if (flt->v[O_STATE_FILTER])
		sqlite3_bind_text(st, 1, flt->v[O_STATE_FILTER], -1,
		                  SQLITE_STATIC);
	if (flt->v[O_KIND])
		sqlite3_bind_text(st, 2, flt->v[O_KIND], -1, SQLITE_STATIC);
	if (flt->has_round)
		sqlite3_bind_blob(st, 3, flt->round, 32, SQLITE_STATIC);
	if (flt->rcp == R_EVM || flt->rcp == R_KEY)
		sqlite3_bind_blob(st, 4, flt->rbytes, (int)flt->rlen,
		                  SQLITE_STATIC);
	sqlite3_bind_int(st, 5, flt->rcp == R_NONE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ret = take_row(st, path, ctx, flt, lg, err, errlen);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_dbread_sql_fail(db, path, "read payouts", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* ---- reading ---------------------------------------------------------- */

struct read {
	struct filter *flt;
	hj_secp **ctx; /* made once, kept across attempts */
	struct ledger *lg;
	int usage_err; /* an EX_USAGE is the command line's */
};

static void read_reset(void *arg)
{
	ledger_clear(((struct read *)arg)->lg);
}

/* Inside hj_dbread's read transaction: meta, then every selected payout. */
static int read_all(sqlite3 *db, const char *path, int version, void *arg,
                    char *err, size_t errlen)
{
	struct read *rd = arg;
	struct ledger *lg = rd->lg;
	int ret;

	(void)version; /* payouts are alike in every version */
	ret = read_meta(db, path, lg, err, errlen);
	if (ret == 0 && lg->have_chain) {
		ret = check_filter(rd->flt, &lg->chain, err, errlen);
		rd->usage_err = ret == EX_USAGE;
	}
	if (ret == 0 && lg->have_chain && !lg->chain.evm && *rd->ctx == NULL) {
		char why[200];

		*rd->ctx = hj_secp_new(why, sizeof why);
		if (*rd->ctx == NULL) {
			snprintf(err, errlen, "%s", why);
			ret = EX_SOFTWARE;
		}
	}
	if (ret == 0 && lg->have_chain)
		ret =
		    read_payouts(db, path, *rd->ctx, rd->flt, lg, err, errlen);
	return ret;
}

/* ---- output ----------------------------------------------------------- */

static void buf_pad(struct hj_buf *b, size_t k)
{
	while (k-- > 0)
		hj_buf_put(b, " ", 1);
}

/* The amount in the coin's unit (hj_dbread_coins). */
static void buf_human(struct hj_buf *b, hj_amount v, unsigned decimals)
{
	char c[HJ_COINS_STRLEN];

	hj_buf_str(b, hj_dbread_coins(v, decimals, c));
}

/*
 * A table: a header row and rows of cells, two spaces between columns,
 * no trailing blanks.  ALIGN_POINT aligns numbers on their decimal point.
 */
enum align { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_POINT };

struct grid {
	int ncols;
	const char *const *head;
	const enum align *align;
	size_t nrows;
	/* Writes row r's cell in column c into b (emptied before). */
	void (*cell)(const void *ctx, size_t r, int c, struct hj_buf *b);
	const void *ctx;
};

struct width {
	size_t w, left, right; /* right: "." and the fraction */
};

static void measure(const char *s, size_t n, enum align al, struct width *w)
{
	if (al == ALIGN_POINT) {
		const char *dot = memchr(s, '.', n);
		size_t l = dot ? (size_t)(dot - s) : n;

		if (l > w->left)
			w->left = l;
		if (n - l > w->right)
			w->right = n - l;
		if (w->left + w->right > w->w)
			w->w = w->left + w->right;
	} else if (n > w->w) {
		w->w = n;
	}
}

static void place(struct hj_buf *line, const char *s, size_t n, enum align al,
                  const struct width *w, int header)
{
	size_t lead = 0, l;
	const char *dot;

	if (header || al == ALIGN_LEFT) {
		lead = header && al == ALIGN_RIGHT ? w->w - n : 0;
	} else if (al == ALIGN_RIGHT) {
		lead = w->w - n;
	} else {
		dot = memchr(s, '.', n);
		l = dot ? (size_t)(dot - s) : n;
		lead = w->w - w->right - l;
	}
	buf_pad(line, lead);
	hj_buf_put(line, s, n);
	buf_pad(line, w->w - lead - n);
}

static int print_grid(const struct grid *g)
{
	struct width w[16] = {{0}};
	struct hj_buf cell = {0}, line = {0};
	int ret = 0;

	if (g->ncols > 16)
		return hj_dbread_fail(CMD, EX_SOFTWARE,
		                      "internal error: %d columns", g->ncols);

	for (int c = 0; c < g->ncols; c++)
		w[c].w = strlen(g->head[c]);
	for (size_t r = 0; r < g->nrows; r++) {
		for (int c = 0; c < g->ncols; c++) {
			cell.n = 0;
			hj_buf_put(&cell, "", 0);
			g->cell(g->ctx, r, c, &cell);
			if (!cell.nomem)
				measure(cell.p, cell.n, g->align[c], &w[c]);
		}
	}
	for (size_t r = 0; r <= g->nrows && !cell.nomem && !line.nomem; r++) {
		line.n = 0;
		for (int c = 0; c < g->ncols; c++) {
			if (c > 0)
				buf_pad(&line, 2);
			if (r == 0) {
				place(&line, g->head[c], strlen(g->head[c]),
				      g->align[c], &w[c], 1);
				continue;
			}
			cell.n = 0;
			hj_buf_put(&cell, "", 0);
			g->cell(g->ctx, r - 1, c, &cell);
			if (!cell.nomem)
				place(&line, cell.p, cell.n, g->align[c], &w[c],
				      0);
		}
		if (line.nomem)
			break;
		while (line.n > 0 && line.p[line.n - 1] == ' ')
			line.n--;
		hj_buf_put(&line, "\n", 1);
		if (!line.nomem)
			fwrite(line.p, 1, line.n, stdout);
	}
	if (cell.nomem || line.nomem)
		ret = hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");
	free(cell.p);
	free(line.p);
	return ret;
}

/* The payout table's columns; `always` columns stay when empty. */
#define F_HUMAN NF
static const struct {
	const char *head; /* NULL: the coin's unit */
	int field;
	enum align align;
	int always;
} table_cols[] = {
    {"ID", F_ID, ALIGN_LEFT, 1},
    {"KIND", F_KIND, ALIGN_LEFT, 1},
    {"STATE", F_STATE, ALIGN_LEFT, 1},
    {"RECIPIENT", F_RECIPIENT, ALIGN_LEFT, 1},
    {"AMOUNT", F_AMOUNT, ALIGN_RIGHT, 1},
    {NULL, F_HUMAN, ALIGN_POINT, 1},
    {"ROUND", F_ROUND, ALIGN_LEFT, 0},
    {"HAND", F_HAND, ALIGN_RIGHT, 0},
    {"CREATED", F_CREATED, ALIGN_RIGHT, 1},
    {"SUBMITTED_TXID", F_SUBTXID, ALIGN_LEFT, 0},
    {"NONCE", F_NONCE, ALIGN_RIGHT, 0},
    {"SUBMITTED", F_SUBHEIGHT, ALIGN_RIGHT, 0},
    {"CONFIRMED", F_CONFIRMED, ALIGN_RIGHT, 0},
    {"LAST_ERROR", F_ERROR, ALIGN_LEFT, 0},
};
#define NTABLE_COLS (sizeof table_cols / sizeof table_cols[0])

struct payout_table {
	const struct ledger *lg;
	int col[NTABLE_COLS]; /* index into table_cols of each shown column */
};

static void payout_cell(const void *ctx, size_t r, int c, struct hj_buf *b)
{
	const struct payout_table *t = ctx;
	const struct row *row = &t->lg->rows[r];
	int f = table_cols[t->col[c]].field;

	if (f == F_HUMAN) {
		buf_human(b, row->amount, t->lg->chain.decimals);
	} else if (f == F_RECIPIENT && row->f[f] == NULL) {
		if (row->f[F_KEY] != NULL) {
			hj_buf_str(b, "invalid-key:");
			hj_buf_str(b, row->f[F_KEY]);
		} else {
			hj_buf_str(b, "unattributed");
		}
	} else if (row->f[f] == NULL) {
		hj_buf_str(b, "-");
	} else {
		hj_buf_printable(b, row->f[f]);
	}
}

struct total {
	const char *state; /* borrowed from a row; "all" for the last */
	uint64_t n;
	hj_amount sum;
};

struct totals {
	struct total *t;
	size_t n;
	unsigned decimals;
};

static int state_rank(const char *s)
{
	for (size_t i = 0; i < NSTATES; i++)
		if (strcmp(s, states[i]) == 0)
			return (int)i;
	return (int)NSTATES;
}

static int total_cmp(const void *a, const void *b)
{
	const struct total *x = a, *y = b;
	int rx = state_rank(x->state), ry = state_rank(y->state);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->state, y->state);
}

/* Count and exact sum per state, then "all".  The sums are checked: a
 * total that does not fit 128 bits is refused rather than printed wrong. */
static int sum_states(const struct ledger *lg, struct totals *out)
{
	struct total *t = calloc(lg->n + 1, sizeof *t), all = {"all", 0, 0};
	size_t n = 0;

	if (t == NULL)
		return hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");
	for (size_t i = 0; i < lg->n; i++) {
		const struct row *r = &lg->rows[i];
		size_t k;

		for (k = 0; k < n; k++)
			if (strcmp(t[k].state, r->f[F_STATE]) == 0)
				break;
		if (k == n)
			t[n++].state = r->f[F_STATE];
		if (t[k].sum > HJ_AMOUNT_MAX - r->amount ||
		    all.sum > HJ_AMOUNT_MAX - r->amount) {
			free(t);
			return hj_dbread_fail(
			    CMD, EX_DATAERR,
			    "the payouts' sum exceeds 2^128 - 1 base "
			    "units: not a real ledger");
		}
		t[k].n++;
		t[k].sum += r->amount;
		all.n++;
		all.sum += r->amount;
	}
	qsort(t, n, sizeof *t, total_cmp);
	t[n++] = all;
	out->t = t;
	out->n = n;
	out->decimals = lg->chain.decimals;
	return 0;
}

static void total_cell(const void *ctx, size_t r, int c, struct hj_buf *b)
{
	const struct totals *t = ctx;
	char d[HJ_AMOUNT_STRLEN];

	switch (c) {
	case 0:
		hj_buf_printable(b, t->t[r].state);
		break;
	case 1:
		snprintf(d, sizeof d, "%llu", (unsigned long long)t->t[r].n);
		hj_buf_str(b, d);
		break;
	case 2:
		hj_buf_str(b, hj_amount_format(t->t[r].sum, d));
		break;
	default:
		buf_human(b, t->t[r].sum, t->decimals);
	}
}

static int print_table(const struct ledger *lg, const struct totals *tot,
                       int filtered)
{
	static const enum align total_align[] = {ALIGN_LEFT, ALIGN_RIGHT,
	                                         ALIGN_RIGHT, ALIGN_POINT};
	const char *head[NTABLE_COLS], *total_head[4];
	enum align align[NTABLE_COLS];
	struct payout_table t = {.lg = lg};
	int ncols = 0, rc;

	if (lg->n == 0) {
		printf("no payouts%s\n", filtered ? " match" : "");
		return 0;
	}
	for (size_t c = 0; c < NTABLE_COLS; c++) {
		int f = table_cols[c].field, used = table_cols[c].always;

		for (size_t r = 0; r < lg->n && !used; r++)
			used = lg->rows[r].f[f] != NULL;
		if (!used)
			continue;
		head[ncols] =
		    table_cols[c].head ? table_cols[c].head : lg->chain.unit;
		align[ncols] = table_cols[c].align;
		t.col[ncols++] = (int)c;
	}
	rc = print_grid(&(struct grid){.ncols = ncols,
	                               .head = head,
	                               .align = align,
	                               .nrows = lg->n,
	                               .cell = payout_cell,
	                               .ctx = &t});
	if (rc)
		return rc;
	putchar('\n');
	total_head[0] = "STATE";
	total_head[1] = "PAYOUTS";
	total_head[2] = "AMOUNT";
	total_head[3] = lg->chain.unit;
	return print_grid(&(struct grid){.ncols = 4,
	                                 .head = total_head,
	                                 .align = total_align,
	                                 .nrows = tot->n,
	                                 .cell = total_cell,
	                                 .ctx = tot});
}

static int print_json(const struct ledger *lg)
{
	for (size_t i = 0; i < lg->n; i++) {
		const struct row *r = &lg->rows[i];
		json_t *o = json_object(), *v;
		char *line;
		int bad = o == NULL;

		for (int f = 0; f < NF && !bad; f++) {
			if (r->f[f] == NULL)
				v = json_null();
			else if (fields[f].number)
				v = json_integer(strtoll(r->f[f], NULL, 10));
			else
				v = hj_dbread_json_text(r->f[f]);
			bad = json_object_set_new(o, fields[f].json, v) != 0;
		}
		line = bad ? NULL
		           : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (line == NULL)
			return hj_dbread_fail(CMD, EX_SOFTWARE,
			                      "out of memory");
		puts(line);
		free(line);
	}
	return 0;
}

/* ---- the command ------------------------------------------------------ */

int hj_ledger_main(int argc, char **argv)
{
	struct ledger lg = {0};
	struct totals tot = {0};
	struct filter flt;
	hj_secp *ctx = NULL;
	struct read rd;
	char err[ERRLEN] = "", *path = NULL;
	int rc;

	/* --help wins over everything else on the line. */
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return hj_ledger_help();
	rc = parse_args(argc, argv, &flt);
	if (rc == 0)
		rc = parse_filter(&flt);
	if (rc)
		return rc;

	path = hj_dbread_path(flt.v[O_DB], flt.v[O_STATE]);
	if (path == NULL)
		return hj_dbread_fail(CMD, EX_SOFTWARE, "out of memory");

	rd = (struct read){.flt = &flt, .ctx = &ctx, .lg = &lg};
	rc = hj_dbread(path, read_all, read_reset, &rd, err, sizeof err);
	if (rc == EX_USAGE && rd.usage_err)
		rc = hj_dbread_usage(CMD, "%s", err);
	else if (rc)
		rc = hj_dbread_fail(CMD, rc, "%s", err);
	else if (flt.v[O_JSON])
		rc = print_json(&lg);
	else if ((rc = sum_states(&lg, &tot)) == 0)
		rc = print_table(&lg, &tot,
		                 flt.v[O_STATE_FILTER] || flt.v[O_RECIPIENT] ||
		                     flt.v[O_ROUND] || flt.v[O_KIND]);
	free(tot.t);
	ledger_clear(&lg);
	hj_secp_free(ctx);
	free(path);
	return rc;
}
