/*
 * `hashjack status` (see status.h; the format is in docs/CLI.md, the
 * schema in docs/STATE.md).
 *
 * Everything is read through the store's reader (hj_store_read and its
 * typed reads, daemon/core/store.h, as `hashjack ledger` reads), in one read
 * transaction, kept in memory, and printed once the connection is closed.
 * The worst case of the open rounds is what the daemon computes
 * (hj_table_exposure): the rounds the store decodes are restored into a
 * table made with the rules read back from meta.rules.
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

#include "amount.h"
#include "hex.h"
#include "round.h"
#include "rules.h"
#include "say.h"
#include "store.h"
#include "table.h"
#include "tool.h"

#define CMD "status" /* in messages: "hashjack: status: ..." */
/* The open batches kept in memory: the daemon has a handful at most. */
#define OPEN_MAX 100000

/* ---- help ------------------------------------------------------------ */

static const char usage_status[] =
    "Usage: hashjack status [-c FILE | --state-dir DIR | --db FILE] [--json]\n"
    "\n"
    "Shows the dealer daemon's state as its database holds it: what it\n"
    "belongs to, where it stopped, the open rounds and their worst case,\n"
    "the payouts, the dealer's balance as the daemon last read it, and\n"
    "whether it covers what the dealer owes and may owe.  The database is\n"
    "only read: no lock that could slow the daemon, no file created or\n"
    "changed beside it.  Safe while hashjackd runs.\n"
    "\n"
    "Options:\n" HJC_TOOL_WHERE_HELP
    "  --json               one JSON object with the same facts, amounts\n"
    "                       as decimal strings\n"
    "  -h, --help           print this help and exit\n"
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
    "  $ hashjack status -c /etc/hashjackd.conf\n"
    "  $ hashjack status --db copy.sqlite --json | jq -r .short\n"
    "\n"
    "Exit status: 0 ok (a shortfall included), 64 usage error, 65 not a\n"
    "hashjackd database or a damaged one, 66 cannot open the database, 70\n"
    "internal error, 74 read or write error, 75 the database stayed busy\n"
    "or kept changing: try again.\n";

int hjc_status_help(void)
{
	fputs(usage_status, stdout);
	return EX_OK;
}

/* ---- what is read ----------------------------------------------------- */

/* A payout batch in state planned or sent; b.address is address. */
struct open_batch {
	hj_open_batch b;
	char *address;
};

struct status {
	int version;
	/* meta; the strings are NULL without a meta row */
	hj_meta_row meta;
	hjc_tool_chain chain; /* valid when meta.family != NULL */
	int rules_ok;
	hj_rules rules;
	char rules_err[HJ_ERRLEN];
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
	hj_payout_totals pay;
	/* dealer_balance */
	int have_balance;
	hj_balance_row bal;
	/* open batches, by id */
	struct open_batch *open;
	size_t nopen, capopen;
	/* when it was read */
	int64_t now;
};

static void status_clear(struct status *st)
{
	hj_meta_row_clear(&st->meta);
	free(st->bal.warning);
	for (size_t i = 0; i < st->nopen; i++)
		free(st->open[i].address);
	free(st->open);
	memset(st, 0, sizeof *st);
}

/* A read of the database into st, started over by hj_store_read while the
 * daemon starts or stops. */
struct read {
	const char *path;
	struct status *st;
	hj_table *table; /* the open rounds, when the rules are known */
	char *err;       /* the read's, for the callbacks' messages */
	size_t errlen;
};

static void read_reset(void *arg)
{
	status_clear(((struct read *)arg)->st);
}

static int nomem(char *err, size_t errlen)
{
	hj_say(err, errlen, "out of memory");
	return -ENOMEM;
}

static int read_meta(hj_store *s, struct read *rd, char *err, size_t errlen)
{
	struct status *st = rd->st;
	int found, ret;

	ret = hj_store_get_meta(s, &st->meta, &found, err, errlen);
	if (ret == 0 && found)
		ret =
		    hjc_tool_chain_of(rd->path, st->meta.family, st->meta.chain,
		                      &st->chain, err, errlen);
	if (ret == 0 && found)
		st->rules_ok =
		    hj_rules_parse(st->meta.rules, &st->rules, st->rules_err,
		                   sizeof st->rules_err) == 0;
	return ret;
}

static int read_cursor(hj_store *s, struct status *st, char *err, size_t errlen)
{
	static const uint8_t zero[32];
	hj_cursor c;
	int ret;

	ret = hj_store_read_cursor(s, &c, &st->have_cursor, err, errlen);
	st->height = c.height;
	memcpy(st->hash, c.hash, 32);
	/* The first start marks the block before the first one with a zero
	 * hash, which no block has. */
	st->processed = st->have_cursor && memcmp(st->hash, zero, 32) != 0;
	return ret;
}

/* One open round: counted, and restored into the table when there is
 * one, as hj_store_load_rounds restores it for the daemon. */
static int take_round(void *arg, const hj_round *r)
{
	struct read *rd = arg;
	char hex[65];
	int ret;

	rd->st->nrounds++;
	if (rd->table == NULL)
		return 0;
	ret = hj_table_restore(rd->table, r);
	if (ret == -EEXIST) {
		hj_hex_encode(r->id.b, r->id.len, 0, hex);
		hj_say(rd->err, rd->errlen,
		       "%s: round %s: its player has another open round",
		       rd->path, hex);
		return -EINVAL;
	}
	return ret ? nomem(rd->err, rd->errlen) : 0;
}

/* Every open round; with the rules known, their worst case as the daemon
 * computes it (hj_table_exposure). */
static int read_rounds(hj_store *s, struct read *rd, char *err, size_t errlen)
{
	struct status *st = rd->st;
	int ret;

	rd->table = NULL;
	if (st->rules_ok && hj_table_new(&st->rules, &rd->table) != 0)
		return nomem(err, errlen);
	ret = hj_store_each_round(s, take_round, rd, err, errlen);
	/* Without rounds there is nothing to be unknown about. */
	st->exposure_known = rd->table != NULL || st->nrounds == 0;
	st->exposure = rd->table ? hj_table_exposure(rd->table) : 0;
	hj_table_free(rd->table);
	rd->table = NULL;
	return ret;
}

static int take_batch(void *arg, const hj_open_batch *b)
{
	struct read *rd = arg;
	struct status *st = rd->st;
	struct open_batch ob = {.b = *b};

	if (st->nopen == OPEN_MAX) {
		hj_say(rd->err, rd->errlen,
		       "%s: more than %d payout batches are planned or "
		       "sent: not a real state",
		       rd->path, OPEN_MAX);
		return -EINVAL;
	}
	if (b->address != NULL && (ob.address = strdup(b->address)) == NULL)
		return nomem(rd->err, rd->errlen);
	ob.b.address = ob.address;
	if (st->nopen == st->capopen) {
		size_t cap = st->capopen ? 2 * st->capopen : 8;
		struct open_batch *p = realloc(st->open, cap * sizeof *p);

		if (p == NULL) {
			free(ob.address);
			return nomem(rd->err, rd->errlen);
		}
		st->open = p;
		st->capopen = cap;
	}
	st->open[st->nopen++] = ob;
	return 0;
}

/* Inside hj_store_read's read transaction: everything status shows. */
static int read_all(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct read *rd = arg;
	struct status *st = rd->st;
	const hj_payout_totals *p = &st->pay;
	int ret;

	rd->err = err;
	rd->errlen = errlen;
	st->version = hj_store_version(s);
	ret = read_meta(s, rd, err, errlen);
	if (ret == 0)
		ret = read_cursor(s, st, err, errlen);
	if (ret == 0)
		ret = read_rounds(s, rd, err, errlen);
	if (ret == 0)
		ret = hj_store_payout_totals(s, &st->pay, err, errlen);
	if (ret == 0)
		ret = hj_store_get_balance(s, &st->bal, &st->have_balance, err,
		                           errlen);
	if (ret == 0)
		ret = hj_store_each_open_batch(s, take_batch, rd, err, errlen);
	if (ret == 0 && st->meta.family == NULL &&
	    (st->nrounds > 0 || p->owed.n + p->submitted.n + p->confirmed.n)) {
		hj_say(err, errlen,
		       "%s: open rounds or payouts but no meta row: the "
		       "database does not say which chain they are on",
		       rd->path);
		ret = -EINVAL;
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
	hj_amount need = st->pay.owed.sum - st->pay.unattributed.sum;

	memset(v, 0, sizeof *v);
	/* The Bitcoin family's wallet balance already leaves out what its
	 * sent transactions spend. */
	if (st->meta.family == NULL || st->chain.evm) {
		if (st->pay.submitted.sum > HJ_AMOUNT_MAX - need)
			return -1;
		need += st->pay.submitted.sum;
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
	if (need > st->bal.amount) {
		v->short_ = 1;
		v->short_by = need - st->bal.amount;
	} else if (v->exact) {
		v->spare_known = 1;
		v->spare = st->bal.amount - need;
	}
	return 0;
}

/* ---- text ------------------------------------------------------------- */

/* "N wei (X ETH)", or "N" without a chain. */
static const char *money(const struct status *st, hj_amount v, char *buf,
                         size_t n)
{
	char d[HJ_AMOUNT_STRLEN], c[HJC_COINS_STRLEN];

	if (st->meta.family == NULL)
		snprintf(buf, n, "%s", hj_amount_format(v, d));
	else
		snprintf(buf, n, "%s %s (%s %s)", hj_amount_format(v, d),
		         st->chain.base,
		         hjc_tool_coins(v, st->chain.decimals, c),
		         st->chain.unit);
	return buf;
}

/* "3 payouts, N wei (X ETH)" */
static const char *tally_text(const struct status *st, const hj_tally *t,
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
static void line_text(const char *label, const char *value, hj_buf *out)
{
	char lab[32];

	snprintf(lab, sizeof lab, "%-16s", label);
	hj_buf_str(out, lab);
	hjc_tool_printable(out, value);
	hj_buf_str(out, "\n");
}

/* One "label  value" line of text made here (no escaping needed). */
__attribute__((format(printf, 3, 4))) static void
line(hj_buf *out, const char *label, const char *fmt, ...)
{
	va_list ap;

	hj_buf_printf(out, "%-16s", label);
	va_start(ap, fmt);
	hj_buf_vprintf(out, fmt, ap);
	va_end(ap);
	hj_buf_str(out, "\n");
}

static void text_batches(const struct status *st, hj_buf *out)
{
	char m[128], a[64], h[67];
	size_t ntx = 0, nb = 0;

	for (size_t i = 0; i < st->nopen; i++) {
		if (st->open[i].b.nonce.set)
			ntx++;
		else
			nb++;
	}
	/* EVM pays with transactions, the Bitcoin family with batches;
	 * either list is shown when it has something. */
	if (ntx > 0 || (st->meta.family != NULL && st->chain.evm)) {
		if (ntx)
			line(out, "transactions", "%zu open", ntx);
		else
			line(out, "transactions", "none open");
	}
	for (size_t i = 0; i < st->nopen; i++) {
		const hj_open_batch *b = &st->open[i].b;

		if (!b->nonce.set)
			continue;
		hj_buf_str(out, "  nonce ");
		snprintf(m, sizeof m, "%lld, %s, to ", (long long)b->nonce.v,
		         b->sent ? "sent" : "planned");
		hj_buf_str(out, m);
		hjc_tool_printable(out, b->address ? b->address : "-");
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
	if (nb > 0 || (st->meta.family != NULL && !st->chain.evm)) {
		if (nb)
			line(out, "batches", "%zu open", nb);
		else
			line(out, "batches", "none open");
	}
	for (size_t i = 0; i < st->nopen; i++) {
		const hj_open_batch *b = &st->open[i].b;

		if (b->nonce.set)
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
                     const char *path, hj_buf *out)
{
	char m[160], t[200], a[64], h[67];
	int evm = st->meta.family == NULL || st->chain.evm;

	hj_buf_str(out, "database        ");
	hjc_tool_printable(out, path);
	snprintf(m, sizeof m, " (schema version %d)\n", st->version);
	hj_buf_str(out, m);
	if (st->meta.family == NULL) {
		line(out, "chain",
		     "not recorded yet: the daemon has not reached its node");
	} else {
		line_text("family", st->meta.family, out);
		line_text("chain", st->meta.chain, out);
		line_text("dealer", st->meta.dealer, out);
		hj_buf_str(out, "rules           ");
		hjc_tool_printable(out, st->meta.rules);
		if (!st->rules_ok) {
			hj_buf_str(out, " (cannot be read: ");
			hjc_tool_printable(out, st->rules_err);
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
	line(out, "owed", "%s", tally_text(st, &st->pay.owed, t, sizeof t));
	line(out, "  unattributed", "%s",
	     tally_text(st, &st->pay.unattributed, t, sizeof t));
	line(out, "  planned", "%s",
	     tally_text(st, &st->pay.planned, t, sizeof t));
	line(out, "in flight", "%s",
	     tally_text(st, &st->pay.submitted, t, sizeof t));
	line(out, "confirmed", "%s",
	     tally_text(st, &st->pay.confirmed, t, sizeof t));
	/* Sweeps count among the payouts above; said apart when any. */
	if (st->pay.swept.n + st->pay.sweeping.n > 0) {
		line(out, "  swept", "%s",
		     tally_text(st, &st->pay.swept, t, sizeof t));
		line(out, "  sweeping", "%s",
		     tally_text(st, &st->pay.sweeping, t, sizeof t));
	}
	/* And the payouts a rewind orphaned (docs/STATE.md, "Rewinding"). */
	if (st->pay.orphaned.n > 0)
		line(out, "  orphaned",
		     "%s: sent for blocks that left the chain",
		     tally_text(st, &st->pay.orphaned, t, sizeof t));

	if (st->have_balance)
		line(out, "balance", "%s, read at tip %lld, %s",
		     money(st, st->bal.amount, m, sizeof m),
		     (long long)st->bal.height,
		     ago(st->now - st->bal.at, a, sizeof a));
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
	if (st->bal.warning != NULL)
		line_text("warning", st->bal.warning, out);
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
	return s ? hjc_tool_json_text(s) : json_null();
}

static json_t *jtally(const hj_tally *t)
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
		const hj_open_batch *b = &st->open[i].b;
		json_t *o;
		int bad;

		if (b->nonce.set != evm_tx)
			continue;
		o = json_object();
		if (o == NULL) {
			json_decref(a);
			return NULL;
		}
		if (evm_tx) {
			bad = put(o, "batch", json_integer(b->id)) ||
			      put(o, "nonce", json_integer(b->nonce.v)) ||
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
	    "{s:o,s:I,s:I,s:I,s:o}", "amount", jamount(st->bal.amount),
	    "height", (json_int_t)st->bal.height, "at", (json_int_t)st->bal.at,
	    "ageSeconds", (json_int_t)(st->now - st->bal.at), "warning",
	    jtext(st->bal.warning));
}

static json_t *json_block(const struct status *st)
{
	if (!st->processed)
		return json_null();
	return json_pack("{s:I,s:o}", "height", (json_int_t)st->height, "hash",
	                 jhash(st->hash, st->meta.family ? st->chain.evm : 0));
}

/* Every key, in the text's order; null where the text says none. */
static json_t *json_all(const struct status *st, const struct verdict *v,
                        const char *path)
{
	json_t *o = json_object();
	int meta = st->meta.family != NULL, bad;

	if (o == NULL)
		return NULL;
	bad =
	    put(o, "database", hjc_tool_json_text(path)) ||
	    put(o, "schemaVersion", json_integer(st->version)) ||
	    put(o, "family", jtext(st->meta.family)) ||
	    put(o, "chain", jtext(st->meta.chain)) ||
	    put(o, "dealer", jtext(st->meta.dealer)) ||
	    put(o, "rules", jtext(st->meta.rules)) ||
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
	    put(o, "owed", jtally(&st->pay.owed)) ||
	    put(o, "unattributed", jtally(&st->pay.unattributed)) ||
	    put(o, "planned", jtally(&st->pay.planned)) ||
	    put(o, "inFlight", jtally(&st->pay.submitted)) ||
	    put(o, "confirmed", jtally(&st->pay.confirmed)) ||
	    put(o, "swept", jtally(&st->pay.swept)) ||
	    put(o, "sweeping", jtally(&st->pay.sweeping)) ||
	    put(o, "orphaned", jtally(&st->pay.orphaned)) ||
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

/* The first HJC_TOOL_WHERE_N say where the database is (hjc_tool_where). */
enum opt { O_JSON = HJC_TOOL_WHERE_N, O_COUNT };

static const char *const opt_name[O_COUNT] = {HJC_TOOL_WHERE_OPTS, "--json"};

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

static int parse_args(int argc, char **argv, const char **v)
{
	static const unsigned char flag[O_COUNT] = {[O_JSON] = 1};
	char err[HJ_ERRLEN];

	if (hjc_tool_options(argc, argv, opt_name, flag, O_COUNT, v, err,
	                     sizeof err))
		return hjc_tool_usage(CMD, "%s", err);
	return 0;
}

int hjc_status_main(int argc, char **argv)
{
	struct status st = {0};
	struct read rd;
	struct verdict v;
	hj_buf out = {0};
	const char *opt[O_COUNT];
	char err[HJ_ERRLEN] = "", *path, *text;
	json_t *j;
	int rc;

	/* --help wins over everything else on the line. */
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i]))
			return hjc_status_help();
	rc = parse_args(argc, argv, opt);
	if (rc == 0)
		rc = hjc_tool_where(CMD, opt, argc, argv, &path);
	if (rc)
		return rc;

	rd = (struct read){.path = path, .st = &st};
	rc = hj_store_read(path, read_all, read_reset, &rd, err, sizeof err);
	if (rc) {
		rc = hjc_tool_fail(CMD, hjc_tool_exit_code(rc), "%s", err);
	} else if (judge(&st, &v)) {
		rc = hjc_tool_fail(
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
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		} else {
			puts(text);
			free(text);
		}
	} else {
		text_all(&st, &v, path, &out);
		if (out.err)
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		else
			fwrite(out.p, 1, out.len, stdout);
	}
	hj_buf_free(&out);
	status_clear(&st);
	free(path);
	return rc;
}
