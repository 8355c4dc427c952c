/*
 * `hashjack ledger` (see ledger.h; the formats are in docs/CLI.md, the
 * schema in docs/STATE.md).
 *
 * The database is read through the store's reader (hj_store_read and
 * hj_store_each_payout, daemon/core/store.h), as `hashjack status` reads it:
 * read-only, with no file created or removed beside it, in one read
 * transaction, started over while the daemon starts or stops.  Everything
 * selected is kept in memory and printed only once the connection is
 * closed, so that output piped into a pager never holds a read transaction
 * open.  What is left here is the command line and the presentation.
 */
#include "ledger.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "amount.h"
#include "bech32.h"
#include "btc.h"
#include "hex.h"
#include "quote.h"
#include "say.h"
#include "store.h"
#include "taproot.h"
#include "tool.h"

#define CMD "ledger" /* in messages: "hashjack: ledger: ..." */
/* The selection is held in memory before printing: at most this much. */
#define ROWS_MAX_BYTES ((size_t)1 << 30)

/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/* ---- help ------------------------------------------------------------ */

static const char usage_ledger[] =
    "Usage: hashjack ledger [-c FILE | --state-dir DIR | --db FILE]\n"
    "                       [--state-filter STATE] [--recipient R]\n"
    "                       [--round ID] [--kind KIND] [--json]\n"
    "\n"
    "Lists the payouts in the dealer daemon's database: every return,\n"
    "insurance return, side bet return and refund it owes, has\n"
    "submitted or has seen confirmed, oldest first, then the count and\n"
    "sum per state.  The\n"
    "database is only read: no lock that could slow the daemon, no file\n"
    "created or changed beside it.  Safe while hashjackd runs.\n"
    "\n"
    "Options:\n" HJC_TOOL_WHERE_HELP
    "  --state-filter STATE only payouts in STATE: owed, submitted or\n"
    "                       confirmed\n"
    "  --recipient R        only payouts to R, as printed: an EVM address\n"
    "                       (0x + 40 hex digits); on the Bitcoin family the\n"
    "                       payout address tr(P) or the key P (64 hex\n"
    "                       digits); \"unattributed\": refunds whose sender\n"
    "                       is unknown\n"
    "  --round ID           only payouts of round ID: the Bet's transaction\n"
    "                       id, 64 hex digits (with or without 0x on EVM)\n"
    "  --kind KIND          only payouts of KIND: return, insurance,\n"
    "                       sidebet, refund or sweep (the dealer's own\n"
    "                       transfers to cold storage; on the Bitcoin\n"
    "                       family RECIPIENT is the cold address itself)\n"
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
    "(block heights), LAST_ERROR, ORPHANED (the block a rewind went back\n"
    "to while the payout was paid or in flight for a later block: hashjack\n"
    "reorg --rewind); a column empty in every row is left out, an empty\n"
    "cell is \"-\".  JSON keys: id, kind, state, recipient, recipientKey,\n"
    "amount, round, handIndex, tx, createdHeight, submittedTxid, nonce,\n"
    "submittedHeight, submittedAt, confirmedHeight, lastError, orphaned\n"
    "(docs/CLI.md).\n"
    "\n"
    "Example:\n"
    "  $ hashjack ledger -c /etc/hashjackd.conf --state-filter owed\n"
    "  $ hashjack ledger --db copy.sqlite --json | jq -r .amount\n"
    "\n"
    "Exit status: 0 ok (nothing matching included), 64 usage error, 65 not\n"
    "a hashjackd database or a damaged one, 66 cannot open the database,\n"
    "70 internal error (out of memory, a selection above 1 GiB), 74 read\n"
    "or write error, 75 the database stayed busy or kept changing: try\n"
    "again.\n";

int hjc_ledger_help(void)
{
	fputs(usage_ledger, stdout);
	return EX_OK;
}

/* ---- command line ----------------------------------------------------- */

/* The first HJC_TOOL_WHERE_N say where the database is (hjc_tool_where). */
enum opt {
	O_STATE_FILTER = HJC_TOOL_WHERE_N,
	O_RECIPIENT,
	O_ROUND,
	O_KIND,
	O_JSON,
	O_COUNT
};

static const char *const opt_name[O_COUNT] = {
    HJC_TOOL_WHERE_OPTS, "--state-filter", "--recipient",
    "--round",           "--kind",         "--json",
};

/* The states and kinds settlement knows (docs/STATE.md).  Totals list the
 * states in this order, any other state after them by name. */
static const char *const states[] = {"owed", "submitted", "confirmed"};
static const char *const kinds[] = {"return", "insurance", "sidebet", "refund",
                                    "sweep"};
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
	hj_id rid;                 /* R_EVM, R_KEY: the recipient's bytes */
	char raddr[HJ_BECH32_BUF]; /* R_ADDR, lower case */
	int round_0x;
	hj_id round; /* len 32 with --round, else 0 */
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
	char err[HJ_ERRLEN];

	memset(f, 0, sizeof *f);
	if (hjc_tool_options(argc, argv, opt_name, flag, O_COUNT, f->v, err,
	                     sizeof err))
		return hjc_tool_usage(CMD, "%s", err);
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
static int say_usage(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int say_usage(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hj_vsay(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Checks the options alone; 0 or -EINVAL with err (a usage error). */
static int parse_filter(struct filter *f, char *err, size_t errlen)
{
	char shown[SHOWLEN], why[HJ_ERRLEN], hrp[HJ_BECH32_HRP_MAX + 1];
	uint8_t data[HJ_BECH32_DATA_MAX];
	hj_bech32_variant variant;
	const char *v;
	size_t n, ndata;

	v = f->v[O_STATE_FILTER];
	if (v && !one_of(v, states, NSTATES)) {
		hj_quote(v, shown, sizeof shown);
		return say_usage(err, errlen,
		                 "--state-filter %s: not a payout state (owed, "
		                 "submitted or confirmed)",
		                 shown);
	}
	v = f->v[O_KIND];
	if (v && !one_of(v, kinds, NKINDS)) {
		hj_quote(v, shown, sizeof shown);
		return say_usage(
		    err, errlen,
		    "--kind %s: not a payout kind (return, insurance, "
		    "sidebet, refund or sweep)",
		    shown);
	}
	v = f->v[O_ROUND];
	if (v) {
		n = strlen(v);
		f->round_0x = strncmp(v, "0x", 2) == 0;
		if (hj_hex_decode_exact(v, n, HJ_HEX_OPTIONAL, f->round.b,
		                        sizeof f->round.b, why, sizeof why)) {
			hj_quote(v, shown, sizeof shown);
			return say_usage(
			    err, errlen,
			    "--round %s: not a round id (the Bet's "
			    "transaction id, 64 hex digits): %s",
			    shown, why);
		}
		f->round.len = sizeof f->round.b;
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
		f->rid.len = 20;
		hj_hex_decode_exact(v, n, HJ_HEX_OPTIONAL, f->rid.b, 20, NULL,
		                    0);
	} else if (n == 64 && all_hex(v, 64)) {
		f->rcp = R_KEY;
		f->rid.len = 32;
		hj_hex_decode_exact(v, n, HJ_HEX_BARE, f->rid.b, 32, NULL, 0);
	} else if (hj_bech32_decode(v, hrp, data, &ndata, &variant, why,
	                            sizeof why) == HJ_B32_OK) {
		f->rcp = R_ADDR;
		for (size_t i = 0; v[i]; i++)
			f->raddr[i] =
			    (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] - 'A' + 'a'
			                                      : v[i]);
	} else {
		return say_usage(
		    err, errlen,
		    "--recipient %s: not an EVM address (0x + 40 hex "
		    "digits), a key P (64 hex digits), a payout "
		    "address tr(P) or \"unattributed\"",
		    shown);
	}
	return 0;
}

/* ---- the chain the database belongs to -------------------------------- */

/* The filters that depend on the chain.  Returns 0 or -EINVAL with err. */
static int check_filter(struct filter *f, const hjc_tool_chain *c, char *err,
                        size_t errlen)
{
	char shown[SHOWLEN], why[HJ_ERRLEN];
	uint8_t prog[HJ_SEGWIT_PROG_MAX];
	size_t proglen;
	int version;

	if (f->round.len && f->round_0x && !c->evm) {
		hj_quote(f->v[O_ROUND], shown, sizeof shown);
		hj_say(
		    err, errlen,
		    "--round %s: Bitcoin-family hex is written without \"0x\" "
		    "(the database is %s)",
		    shown, c->id);
		return -EINVAL;
	}
	if (f->rcp == R_ANY || f->rcp == R_NONE)
		return 0;
	hj_quote(f->v[O_RECIPIENT], shown, sizeof shown);
	if (c->evm && f->rcp != R_EVM) {
		hj_say(
		    err, errlen,
		    "--recipient %s: a Bitcoin-family recipient, but the "
		    "database is %s, whose recipients are addresses (0x + 40 "
		    "hex digits)",
		    shown, c->id);
		return -EINVAL;
	}
	if (!c->evm && f->rcp == R_EVM) {
		hj_say(
		    err, errlen,
		    "--recipient %s: an EVM address, but the database is %s, "
		    "whose recipients are payout addresses tr(P) or keys P "
		    "(64 hex digits)",
		    shown, c->id);
		return -EINVAL;
	}
	if (f->rcp != R_ADDR)
		return 0;
	if (hj_segwit_decode(c->hrp, f->raddr, &version, prog, &proglen, why,
	                     sizeof why)) {
		hj_say(err, errlen,
		       "--recipient %s: not an address of the database's chain "
		       "%s (addresses beginning \"%s1\"): %s",
		       shown, c->id, c->hrp, why);
		return -EINVAL;
	}
	if (version != 1 || proglen != 32) {
		hj_say(err, errlen,
		       "--recipient %s: not a taproot address (witness version "
		       "1, 32 bytes): payouts go to tr(P)",
		       shown);
		return -EINVAL;
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
	F_ORPHANED,
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
    [F_ORPHANED] = {"orphaned", 1},
};

/* A payout as printed: every field as text, NULL when the column is NULL.
 * The strings live in one allocation, f[F_ID] first. */
struct row {
	char *f[NF];
	hj_amount amount;
};

struct ledger {
	int have_chain; /* 0: a database with no meta row and no payout */
	hjc_tool_chain chain;
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

/* What a read needs, kept across its attempts. */
struct read {
	const char *path;
	struct filter *flt;
	hj_secp **ctx; /* made once, kept across attempts */
	struct ledger *lg;
	int usage_err; /* the error is the command line's */
	char *err;     /* the read's, for take_row's messages */
	size_t errlen;
};

/* Reads meta into lg->chain; lg->have_chain stays 0 for a database that
 * has neither a meta row nor a payout (the daemon never reached a node). */
static int read_meta(hj_store *s, struct read *rd, char *err, size_t errlen)
{
	struct ledger *lg = rd->lg;
	hj_meta_row m;
	uint64_t n = 0;
	int found, ret;

	ret = hj_store_get_meta(s, &m, &found, err, errlen);
	if (ret == 0 && found) {
		ret = hjc_tool_chain_of(rd->path, m.family, m.chain, &lg->chain,
		                        err, errlen);
		lg->have_chain = ret == 0;
	} else if (ret == 0) {
		ret = hj_store_count_payouts(s, &n, err, errlen);
		if (ret == 0 && n > 0) {
			hj_say(err, errlen,
			       "%s: %llu payouts but no meta row: the database "
			       "does not say which chain they are on",
			       rd->path, (unsigned long long)n);
			ret = -EINVAL;
		}
	}
	hj_meta_row_clear(&m);
	return ret;
}

/* An id in the chain's form: "0x" and hex on EVM, bare hex on the Bitcoin
 * family; NULL for none. */
static const char *id_text(const hj_id *id, const hjc_tool_chain *c,
                           char buf[67])
{
	if (id->len == 0)
		return NULL;
	hj_hex_encode(id->b, id->len, c->evm, buf);
	return buf;
}

static const char *int_text(const hj_maybe_i64 *v, char buf[24])
{
	if (!v->set)
		return NULL;
	snprintf(buf, 24, "%lld", (long long)v->v);
	return buf;
}

/*
 * Appends the payout to rd->lg, or skips it when an address filter does
 * not match.  A recipient that is not the chain's is -EINVAL naming the
 * payout.
 */
static int take_row(void *arg, const hj_payout_row *p)
{
	struct read *rd = arg;
	struct ledger *lg = rd->lg;
	const hjc_tool_chain *c = &lg->chain;
	const char *src[NF] = {0};
	char amount[HJ_AMOUNT_STRLEN], round[67], tx[67], sub[67], key[67];
	char hand[24], created[24], nonce[24], subh[24], subat[24], conf[24];
	char orph[24];
	char rcp[HJ_BECH32_BUF + 2], shown[SHOWLEN], why[HJ_ERRLEN];
	size_t len[NF], total = 0;
	struct row r = {.amount = p->amount};
	char *mem;

	src[F_ID] = p->id;
	src[F_KIND] = p->kind;
	src[F_STATE] = p->state;
	src[F_AMOUNT] = hj_amount_format(p->amount, amount);
	src[F_ROUND] = id_text(&p->round, c, round);
	src[F_HAND] = int_text(&p->hand, hand);
	src[F_TX] = id_text(&p->txid, c, tx);
	snprintf(created, sizeof created, "%lld", (long long)p->created_height);
	src[F_CREATED] = created;
	src[F_SUBTXID] = id_text(&p->submitted_txid, c, sub);
	src[F_NONCE] = int_text(&p->nonce, nonce);
	src[F_SUBHEIGHT] = int_text(&p->submitted_height, subh);
	src[F_SUBAT] = int_text(&p->submitted_at, subat);
	src[F_CONFIRMED] = int_text(&p->confirmed_height, conf);
	src[F_ERROR] = p->last_error;
	src[F_ORPHANED] = int_text(&p->orphaned, orph);

	/* The recipient: an EVM address, or a key P and its tr(P); a
	 * Bitcoin-family sweep's is the cold address's witness program, 20
	 * bytes (P2WPKH) or 32 (P2TR), whose address is shown as it is. */
	if (p->has_recipient && !c->evm && strcmp(p->kind, "sweep") == 0) {
		if (hj_btc_sweep_address(c->hrp, p->recipient.b,
		                         p->recipient.len, rcp, why,
		                         sizeof why)) {
			hj_quote(p->id, shown, sizeof shown);
			hj_say(
			    rd->err, rd->errlen,
			    "%s: payout %s: a sweep whose recipient is not a "
			    "witness program of 20 or 32 bytes",
			    rd->path, shown);
			return -EINVAL;
		}
		src[F_RECIPIENT] = rcp;
	} else if (p->has_recipient) {
		const uint8_t *b = p->recipient.b;
		int want = c->evm ? 20 : 32;

		if (p->recipient.len != want) {
			hj_quote(p->id, shown, sizeof shown);
			hj_say(rd->err, rd->errlen,
			       "%s: payout %s: recipient is not %s (%d bytes)",
			       rd->path, shown,
			       c->evm ? "an EVM address" : "an x-only key P",
			       want);
			return -EINVAL;
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
			if (hj_taproot_address(*rd->ctx, b, c->hrp, rcp, why,
			                       sizeof why) == 0)
				src[F_RECIPIENT] = rcp;
		}
	}
	if (rd->flt->rcp == R_ADDR &&
	    (src[F_RECIPIENT] == NULL ||
	     strcmp(src[F_RECIPIENT], rd->flt->raddr)))
		return 0;

	for (int i = 0; i < NF; i++) {
		len[i] = src[i] ? strlen(src[i]) + 1 : 0;
		total += len[i];
	}
	if (lg->bytes + total + sizeof r > ROWS_MAX_BYTES) {
		hj_say(rd->err, rd->errlen,
		       "the selection is larger than %zu MiB; narrow it "
		       "with --state-filter, --recipient, --round or --kind",
		       ROWS_MAX_BYTES >> 20);
		return -ENOMEM;
	}
	if (lg->n == lg->cap) {
		size_t cap = lg->cap ? 2 * lg->cap : 64;
		struct row *q = realloc(lg->rows, cap * sizeof *q);

		if (q == NULL)
			goto nomem;
		lg->rows = q;
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
	hj_say(rd->err, rd->errlen, "out of memory");
	return -ENOMEM;
}

/* ---- reading ---------------------------------------------------------- */

static void read_reset(void *arg)
{
	struct read *rd = arg;

	ledger_clear(rd->lg);
	rd->usage_err = 0;
}

/* Inside hj_store_read's read transaction: meta, then every selected
 * payout. */
static int read_all(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct read *rd = arg;
	struct ledger *lg = rd->lg;
	const struct filter *flt = rd->flt;
	hj_payout_filter sel = {
	    .state = flt->v[O_STATE_FILTER],
	    .kind = flt->v[O_KIND],
	    .round = flt->round.len ? &flt->round : NULL,
	    .recipient =
	        flt->rcp == R_EVM || flt->rcp == R_KEY ? &flt->rid : NULL,
	    .unattributed = flt->rcp == R_NONE,
	};
	int ret;

	ret = read_meta(s, rd, err, errlen);
	if (ret == 0 && lg->have_chain) {
		ret = check_filter(rd->flt, &lg->chain, err, errlen);
		rd->usage_err = ret != 0;
	}
	if (ret == 0 && lg->have_chain && !lg->chain.evm && *rd->ctx == NULL) {
		char why[HJ_ERRLEN];

		if (hj_secp_new(rd->ctx, why, sizeof why) != 0) {
			hj_say(err, errlen, "%s", why);
			ret = -ENOMEM;
		}
	}
	rd->err = err;
	rd->errlen = errlen;
	if (ret == 0 && lg->have_chain)
		ret = hj_store_each_payout(s, &sel, take_row, rd, err, errlen);
	return ret;
}

/* ---- output ----------------------------------------------------------- */

static void buf_pad(hj_buf *b, size_t k)
{
	while (k-- > 0)
		hj_buf_put(b, " ", 1);
}

/* The amount in the coin's unit (hjc_tool_coins). */
static void buf_human(hj_buf *b, hj_amount v, unsigned decimals)
{
	char c[HJC_COINS_STRLEN];

	hj_buf_str(b, hjc_tool_coins(v, decimals, c));
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
	void (*cell)(const void *ctx, size_t r, int c, hj_buf *b);
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

static void place(hj_buf *line, const char *s, size_t n, enum align al,
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
	hj_buf cell = {0}, line = {0};
	int ret = 0;

	if (g->ncols > 16)
		return hjc_tool_fail(CMD, EX_SOFTWARE,
		                     "internal error: %d columns", g->ncols);

	for (int c = 0; c < g->ncols; c++)
		w[c].w = strlen(g->head[c]);
	for (size_t r = 0; r < g->nrows; r++) {
		for (int c = 0; c < g->ncols; c++) {
			cell.len = 0;
			hj_buf_put(&cell, "", 0);
			g->cell(g->ctx, r, c, &cell);
			if (!cell.err)
				measure(cell.p, cell.len, g->align[c], &w[c]);
		}
	}
	for (size_t r = 0; r <= g->nrows && !cell.err && !line.err; r++) {
		line.len = 0;
		for (int c = 0; c < g->ncols; c++) {
			if (c > 0)
				buf_pad(&line, 2);
			if (r == 0) {
				place(&line, g->head[c], strlen(g->head[c]),
				      g->align[c], &w[c], 1);
				continue;
			}
			cell.len = 0;
			hj_buf_put(&cell, "", 0);
			g->cell(g->ctx, r - 1, c, &cell);
			if (!cell.err)
				place(&line, cell.p, cell.len, g->align[c],
				      &w[c], 0);
		}
		if (line.err)
			break;
		while (line.len > 0 && line.p[line.len - 1] == ' ')
			line.len--;
		hj_buf_put(&line, "\n", 1);
		if (!line.err)
			fwrite(line.p, 1, line.len, stdout);
	}
	if (cell.err || line.err)
		ret = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	hj_buf_free(&cell);
	hj_buf_free(&line);
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
    {"ORPHANED", F_ORPHANED, ALIGN_RIGHT, 0},
};
#define NTABLE_COLS (sizeof table_cols / sizeof table_cols[0])

struct payout_table {
	const struct ledger *lg;
	int col[NTABLE_COLS]; /* index into table_cols of each shown column */
};

static void payout_cell(const void *ctx, size_t r, int c, hj_buf *b)
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
		hjc_tool_printable(b, row->f[f]);
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

/* Count and exact sum per state, then "all", then, when any, the orphaned
 * ones among them.  The sums are checked: a total that does not fit 128
 * bits is refused rather than printed wrong. */
static int sum_states(const struct ledger *lg, struct totals *out)
{
	struct total *t = calloc(lg->n + 2, sizeof *t), all = {"all", 0, 0};
	struct total orphaned = {"of which orphaned", 0, 0};
	size_t n = 0;

	if (t == NULL)
		return hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
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
			return hjc_tool_fail(
			    CMD, EX_DATAERR,
			    "the payouts' sum exceeds 2^128 - 1 base "
			    "units: not a real ledger");
		}
		t[k].n++;
		t[k].sum += r->amount;
		all.n++;
		all.sum += r->amount;
		if (r->f[F_ORPHANED] != NULL) {
			orphaned.n++;
			orphaned.sum += r->amount; /* at most all's */
		}
	}
	qsort(t, n, sizeof *t, total_cmp);
	t[n++] = all;
	if (orphaned.n > 0)
		t[n++] = orphaned;
	out->t = t;
	out->n = n;
	out->decimals = lg->chain.decimals;
	return 0;
}

static void total_cell(const void *ctx, size_t r, int c, hj_buf *b)
{
	const struct totals *t = ctx;
	char d[HJ_AMOUNT_STRLEN];

	switch (c) {
	case 0:
		hjc_tool_printable(b, t->t[r].state);
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

/* One payout as `--json` writes it; NULL when out of memory. */
static json_t *row_json(const struct row *r)
{
	json_t *o = json_object(), *v;
	int bad = o == NULL;

	for (int f = 0; f < NF && !bad; f++) {
		if (r->f[f] == NULL)
			v = json_null();
		else if (fields[f].number)
			v = json_integer(strtoll(r->f[f], NULL, 10));
		else
			v = hjc_tool_json_text(r->f[f]);
		bad = json_object_set_new(o, fields[f].json, v) != 0;
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int print_json(const struct ledger *lg)
{
	for (size_t i = 0; i < lg->n; i++) {
		json_t *o = row_json(&lg->rows[i]);
		char *line =
		    o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)
		      : NULL;

		json_decref(o);
		if (line == NULL)
			return hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		puts(line);
		free(line);
	}
	return 0;
}

int hjc_ledger_select_json(const char *path, const char *recipient,
                           const char *round, const char *kind, json_t **out,
                           char *err, size_t errlen)
{
	struct ledger lg = {0};
	struct filter flt = {0};
	hj_secp *ctx = NULL;
	struct read rd = {.path = path, .flt = &flt, .ctx = &ctx, .lg = &lg};
	json_t *a = NULL;
	int rc;

	flt.v[O_RECIPIENT] = recipient;
	flt.v[O_ROUND] = round;
	flt.v[O_KIND] = kind;
	if (parse_filter(&flt, err, errlen))
		return -EDOM;
	rc = hj_store_read(path, read_all, read_reset, &rd, err, errlen);
	if (rc && rd.usage_err)
		rc = -EDOM;
	if (rc == 0 && (a = json_array()) == NULL)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < lg.n; i++)
		if (json_array_append_new(a, row_json(&lg.rows[i])) != 0)
			rc = -ENOMEM;
	if (rc == -ENOMEM)
		hj_say(err, errlen, "out of memory");
	if (rc) {
		json_decref(a);
		a = NULL;
	}
	ledger_clear(&lg);
	hj_secp_free(ctx);
	*out = a;
	return rc;
}

/* ---- the command ------------------------------------------------------ */

int hjc_ledger_main(int argc, char **argv)
{
	struct ledger lg = {0};
	struct totals tot = {0};
	struct filter flt;
	hj_secp *ctx = NULL;
	struct read rd;
	char err[HJ_ERRLEN] = "", *path = NULL;
	int rc;

	/* --help wins over everything else on the line. */
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return hjc_ledger_help();
	rc = parse_args(argc, argv, &flt);
	if (rc)
		return rc;
	if (parse_filter(&flt, err, sizeof err))
		return hjc_tool_usage(CMD, "%s", err);

	rc = hjc_tool_where(CMD, flt.v, argc, argv, &path);
	if (rc)
		return rc;

	rd = (struct read){.path = path, .flt = &flt, .ctx = &ctx, .lg = &lg};
	rc = hj_store_read(path, read_all, read_reset, &rd, err, sizeof err);
	if (rc && rd.usage_err)
		rc = hjc_tool_usage(CMD, "%s", err);
	else if (rc)
		rc = hjc_tool_fail(CMD, hjc_tool_exit_code(rc), "%s", err);
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
