/* `hashjack verify --payouts`: debts of the card log against payments seen
 * on chain (verify_payouts.h). */
#include "verify_payouts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cardlog.h"
#include "hex.h"
#include "map.h"
#include "say.h"
#include "tool.h"

/* Requests of payments in flight at once. */
#define DEPTH 4

/* A player or recipient, by the id the log names it with. */
struct party {
	hj_id id;
	char text[67]; /* as in the log */
	char address[96];
	int owed;        /* has a debt: a recipient */
	hj_amount total; /* all its debts */
	hj_amount received;
	uint64_t payments;
};

struct debt {
	size_t party;
	uint64_t height;
	hj_amount amount;
};

struct unattributed {
	char tx[67];
	char round[67]; /* "" when none */
	uint64_t height;
	hj_amount refund;
};

/* A round opened by a Bet and not settled yet, and its player. */
struct open_round {
	hj_id round;
	size_t party;
};

struct hjc_vpay {
	hj_family family;
	const char *unit;
	struct party *parties;
	size_t nparties, cap_parties;
	hj_map by_id; /* id -> party */
	struct open_round *open;
	size_t nopen, cap_open;
	hj_map rounds; /* round id -> open index */
	struct debt *debts;
	size_t ndebts, cap_debts;
	struct unattributed *un;
	size_t nun, cap_un;
	size_t *recipients; /* parties with a debt, in order */
	size_t nrecipients, cap_recipients;
	int started;
	uint64_t first, last;
	/* hjc_vpay_end's scan. */
	hj_backend *be;
	hjc_vpay_opts o;
	hjc_vpay_done_cb done;
	void *arg;
	hj_chain_payee *payees; /* one per recipient */
	uint64_t tip, final, next, to;
	unsigned inflight;
	int scanning, finished;
	uint64_t t_scanned;
};

/* ---- growing arrays ---- */

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 16;
	void *q = realloc(*p, ncap * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

static const uint8_t *party_key(const void *arg, size_t i, size_t *len)
{
	const hj_id *id = &((const hjc_vpay *)arg)->parties[i].id;
	*len = id->len;
	return id->b;
}

static const uint8_t *open_key(const void *arg, size_t i, size_t *len)
{
	const hj_id *id = &((const hjc_vpay *)arg)->open[i].round;
	*len = id->len;
	return id->b;
}

int hjc_vpay_new(hj_family family, const char *unit, hjc_vpay **out)
{
	hjc_vpay *v = calloc(1, sizeof *v);

	*out = v;
	if (!v)
		return -ENOMEM;
	v->family = family;
	v->unit = unit;
	hj_map_init(&v->by_id, party_key, v);
	hj_map_init(&v->rounds, open_key, v);
	return 0;
}

void hjc_vpay_free(hjc_vpay *v)
{
	if (!v)
		return;
	free(v->parties);
	hj_map_free(&v->by_id);
	hj_map_free(&v->rounds);
	free(v->open);
	free(v->debts);
	free(v->un);
	free(v->recipients);
	free(v->payees);
	free(v);
}

size_t hjc_vpay_count(const hjc_vpay *v)
{
	return v->nrecipients;
}

const hj_id *hjc_vpay_recipient(const hjc_vpay *v, size_t i)
{
	return &v->parties[v->recipients[i]].id;
}

const char *hjc_vpay_recipient_text(const hjc_vpay *v, size_t i)
{
	return v->parties[v->recipients[i]].text;
}

uint64_t hjc_vpay_first(const hjc_vpay *v)
{
	return v->first;
}

uint64_t hjc_vpay_last(const hjc_vpay *v)
{
	return v->last;
}

void hjc_vpay_set_address(hjc_vpay *v, size_t i, const char *address)
{
	struct party *p = &v->parties[v->recipients[i]];
	snprintf(p->address, sizeof p->address, "%s", address);
}

int hjc_vpay_received(hjc_vpay *v, size_t i, hj_amount value)
{
	struct party *p = &v->parties[v->recipients[i]];
	if (value > HJ_AMOUNT_MAX - p->received)
		return -ERANGE;
	p->received += value;
	p->payments++;
	return 0;
}

/* ---- lines ---- */

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t errlen,
                                                     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hj_vsay(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An id as the log writes it (the reader refused any other form). */
static void id_text(const hjc_vpay *v, const hj_id *id, char text[67])
{
	hj_hex_encode(id->b, id->len, v->family == HJ_EVM, text);
}

/* The party of id, made when new: its index, or -ENOMEM. */
static long party_of(hjc_vpay *v, const hj_id *id)
{
	size_t i;
	struct party *p;

	if (hj_map_get(&v->by_id, id->b, id->len, &i) == 0)
		return (long)i;
	if (grow((void **)&v->parties, &v->cap_parties, v->nparties,
	         sizeof *v->parties))
		return -ENOMEM;
	p = &v->parties[v->nparties];
	memset(p, 0, sizeof *p);
	p->id = *id;
	id_text(v, id, p->text);
	if (hj_map_put(&v->by_id, id->b, id->len, v->nparties))
		return -ENOMEM;
	return (long)v->nparties++;
}

/* A Bet opened round for party (again: its party is the new one). */
static int open_round(hjc_vpay *v, const hj_id *round, size_t party)
{
	size_t i;

	if (hj_map_get(&v->rounds, round->b, round->len, &i) == 0) {
		v->open[i].party = party;
		return 0;
	}
	if (grow((void **)&v->open, &v->cap_open, v->nopen, sizeof *v->open))
		return -ENOMEM;
	v->open[v->nopen] = (struct open_round){*round, party};
	if (hj_map_put(&v->rounds, round->b, round->len, v->nopen))
		return -ENOMEM;
	v->nopen++;
	return 0;
}

/* A settled round is no longer open: the last open one takes its place,
 * so the array holds open rounds only. */
static void close_round(hjc_vpay *v, const hj_id *round)
{
	size_t i, last = v->nopen - 1;

	if (hj_map_get(&v->rounds, round->b, round->len, &i))
		return;
	hj_map_remove(&v->rounds, round->b, round->len);
	if (i != last) {
		v->open[i] = v->open[last];
		/* Replaces the moved round's index: no allocation. */
		hj_map_put(&v->rounds, v->open[i].round.b, v->open[i].round.len,
		           i);
	}
	v->nopen--;
}

static int add_debt(hjc_vpay *v, size_t party, uint64_t height,
                    hj_amount amount)
{
	struct party *p = &v->parties[party];

	if (amount == 0)
		return 0;
	if (amount > HJ_AMOUNT_MAX - p->total)
		return -ERANGE;
	if (grow((void **)&v->debts, &v->cap_debts, v->ndebts,
	         sizeof *v->debts))
		return -ENOMEM;
	if (!p->owed) {
		if (grow((void **)&v->recipients, &v->cap_recipients,
		         v->nrecipients, sizeof *v->recipients))
			return -ENOMEM;
		v->recipients[v->nrecipients++] = party;
		p->owed = 1;
	}
	p->total += amount;
	v->debts[v->ndebts++] = (struct debt){party, height, amount};
	return 0;
}

/* A debt to the party id. */
static int debt_to(hjc_vpay *v, const hj_id *id, uint64_t height,
                   hj_amount amount)
{
	long p = party_of(v, id);

	if (p < 0)
		return (int)p;
	return add_debt(v, (size_t)p, height, amount);
}

static int reject(hjc_vpay *v, const hj_cardlog_ev *ev, uint64_t height)
{
	struct unattributed *u;
	size_t i;

	if (ev->refund == 0)
		return 0;
	/* To the sender, else to the player of the round named. */
	if (ev->has_from)
		return debt_to(v, &ev->from, height, ev->refund);
	if (ev->has_round &&
	    hj_map_get(&v->rounds, ev->round.b, ev->round.len, &i) == 0)
		return add_debt(v, v->open[i].party, height, ev->refund);
	if (grow((void **)&v->un, &v->cap_un, v->nun, sizeof *v->un))
		return -ENOMEM;
	u = &v->un[v->nun++];
	id_text(v, &ev->tx, u->tx);
	if (ev->has_round)
		id_text(v, &ev->round, u->round);
	else
		u->round[0] = '\0';
	u->height = height;
	u->refund = ev->refund;
	return 0;
}

/* One event: -ENOMEM or -ERANGE (a debt above 2^128 - 1), else 0. */
static int event(hjc_vpay *v, const hj_cardlog_ev *ev, uint64_t height)
{
	long p;
	int rc;

	switch (ev->type) {
	case HJ_EV_ACTION:
		if (ev->act != HJ_BET)
			return 0;
		/* A Bet opens its round: whose it is, for the refunds of
		 * rejections that name it. */
		p = party_of(v, &ev->player);
		if (p < 0)
			return (int)p;
		return open_round(v, &ev->round, (size_t)p);
	case HJ_EV_SETTLE:
		rc = debt_to(v, &ev->player, height, ev->payout);
		close_round(v, &ev->round);
		return rc;
	case HJ_EV_SIDE:
		return debt_to(v, &ev->player, height, ev->payout);
	case HJ_EV_REJECT:
		return reject(v, ev, height);
	}
	return 0;
}

int hjc_vpay_line(hjc_vpay *v, const char *line, size_t len, char *err,
                  size_t errlen)
{
	hj_cardlog_line l;
	hj_cardlog_err e;
	int rc = 0;

	if (v->started && hj_cardlog_no_events(line, len)) {
		if (v->last == UINT64_MAX)
			return bad(err, errlen, "a height after 2^64 - 1");
		v->last++;
		return 0;
	}
	rc = hj_cardlog_read(line, len, v->family, &l, &e);
	if (rc == -ENOMEM) {
		bad(err, errlen, "out of memory");
		return rc;
	}
	if (rc && e.at == HJ_CARDLOG_AT_EVENT)
		return bad(err, errlen,
		           "block %" PRIu64 ": an event without the keys "
		           "docs/LOG.md gives it",
		           e.height);
	if (rc && (e.at == HJ_CARDLOG_AT_LINE || e.at == HJ_CARDLOG_AT_HEIGHT ||
	           e.at == HJ_CARDLOG_AT_EVENTS))
		return bad(err, errlen,
		           "not a card log line (no height or events)");
	if (rc)
		return bad(err, errlen, "not a card log line: %s", e.msg);
	if (v->started && l.height != v->last + 1) {
		rc = bad(err, errlen, "block %" PRIu64 " after block %" PRIu64,
		         l.height, v->last);
		goto out;
	}
	for (size_t i = 0; i < l.nevents && rc == 0; i++)
		rc = event(v, &l.events[i], l.height);
	if (rc == -ERANGE) {
		bad(err, errlen,
		    "block %" PRIu64 ": a recipient owed more than 2^128 - 1",
		    l.height);
		goto out;
	}
	if (rc) {
		bad(err, errlen, "out of memory");
		goto out;
	}
	if (!v->started)
		v->first = l.height;
	v->started = 1;
	v->last = l.height;
out:
	hj_cardlog_line_free(&l);
	return rc;
}

/* ---- the report ---- */

static json_t *amount_json(hj_amount a)
{
	char buf[HJ_AMOUNT_STRLEN];
	return json_string(hj_amount_format(a, buf));
}

/* a - b with its sign, as text. */
static json_t *signed_json(hj_amount a, hj_amount b)
{
	char buf[HJ_AMOUNT_STRLEN], out[HJ_AMOUNT_STRLEN + 1];
	if (a >= b)
		return json_string(hj_amount_format(a - b, buf));
	snprintf(out, sizeof out, "-%s", hj_amount_format(b - a, buf));
	return json_string(out);
}

/* Saturating: totals over recipients are shown, never decided on. */
static hj_amount add_sat(hj_amount a, hj_amount b)
{
	return a > HJ_AMOUNT_MAX - b ? HJ_AMOUNT_MAX : a + b;
}

/* The rank of a verdict, for the order of the table. */
static int rank(const char *status)
{
	return strcmp(status, "short") == 0  ? 0
	       : strcmp(status, "over") == 0 ? 2
	                                     : 1;
}

static int cmp_rows(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	int c = rank(json_string_value(json_object_get(a, "status"))) -
	        rank(json_string_value(json_object_get(b, "status")));
	if (c)
		return c;
	return strcmp(json_string_value(json_object_get(a, "recipient")),
	              json_string_value(json_object_get(b, "recipient")));
}

json_t *hjc_vpay_report(const hjc_vpay *v, const hjc_vpay_view *w,
                        size_t *nshort)
{
	unsigned conf = w->confirmations ? w->confirmations : 1;
	int has_final = w->finality || w->tip + 1 >= conf;
	uint64_t final = w->finality ? w->final
	                 : has_final ? w->tip + 1 - conf
	                             : 0;
	int has_due = has_final && final >= w->grace;
	uint64_t due = has_due ? final - w->grace : 0;
	hj_amount *owed = calloc(v->nparties + 1, sizeof *owed);
	hj_amount *later = calloc(v->nparties + 1, sizeof *later);
	json_t **rows = calloc(v->nrecipients + 1, sizeof *rows);
	json_t *r = json_object(), *list = json_array(), *un = json_array();
	hj_amount t_owed = 0, t_later = 0, t_recv = 0, t_short = 0, t_over = 0;
	size_t n[3] = {0, 0, 0};
	int ok = owed && later && rows && r && list && un;

	*nshort = 0;
	for (size_t i = 0; ok && i < v->ndebts; i++) {
		const struct debt *d = &v->debts[i];
		hj_amount *to = has_due && d->height <= due ? owed : later;
		/* Below the party's total, which hjc_vpay_line kept below
		 * 2^128. */
		to[d->party] += d->amount;
	}
	for (size_t i = 0; ok && i < v->nrecipients; i++) {
		size_t k = v->recipients[i];
		const struct party *p = &v->parties[k];
		const char *status;
		json_t *diff;
		if (p->received < owed[k]) {
			status = "short";
			diff = signed_json(p->received, owed[k]);
			t_short = add_sat(t_short, owed[k] - p->received);
		} else if (p->received - owed[k] > later[k]) {
			/* What is received beyond what is due goes first to
			 * the debts still in their grace period. */
			status = "over";
			diff = amount_json(p->received - owed[k] - later[k]);
			t_over =
			    add_sat(t_over, p->received - owed[k] - later[k]);
		} else {
			status = "even";
			diff = json_string("0");
		}
		n[rank(status)]++;
		t_owed = add_sat(t_owed, owed[k]);
		t_later = add_sat(t_later, later[k]);
		t_recv = add_sat(t_recv, p->received);
		rows[i] = json_pack(
		    "{s:s,s:s,s:o,s:o,s:o,s:I,s:o,s:s}", "recipient", p->text,
		    "address", p->address[0] ? p->address : p->text, "owed",
		    amount_json(owed[k]), "later", amount_json(later[k]),
		    "received", amount_json(p->received), "payments",
		    (json_int_t)p->payments, "difference", diff, "status",
		    status);
		ok = rows[i] != NULL;
	}
	if (ok && v->nrecipients > 1)
		qsort(rows, v->nrecipients, sizeof *rows, cmp_rows);
	for (size_t i = 0; ok && i < v->nrecipients; i++) {
		ok = json_array_append_new(list, rows[i]) == 0;
		rows[i] = NULL;
	}
	for (size_t i = 0; ok && i < v->nun; i++) {
		const struct unattributed *u = &v->un[i];
		json_t *e = json_pack("{s:s,s:I,s:o}", "tx", u->tx, "height",
		                      (json_int_t)u->height, "refund",
		                      amount_json(u->refund));
		if (e && u->round[0])
			json_object_set_new(e, "round", json_string(u->round));
		ok = e && json_array_append_new(un, e) == 0;
	}
	if (ok) {
		json_object_set_new(r, "unit", json_string(v->unit));
		json_object_set_new(r, "tip", json_integer((json_int_t)w->tip));
		/* The key's value: a number, or the finality's word. */
		json_object_set_new(
		    r, "confirmations",
		    w->finality ? json_string(hj_finality_name(w->finality))
		                : json_integer(conf));
		json_object_set_new(r, "grace",
		                    json_integer((json_int_t)w->grace));
		json_object_set_new(r, "final",
		                    has_final ? json_integer((json_int_t) final)
		                              : json_null());
		json_object_set_new(r, "due",
		                    has_due ? json_integer((json_int_t)due)
		                            : json_null());
		json_object_set_new(r, "log",
		                    v->started
		                        ? json_pack("{s:I,s:I}", "from",
		                                    (json_int_t)v->first, "to",
		                                    (json_int_t)v->last)
		                        : json_null());
		json_object_set_new(
		    r, "scanned",
		    w->scanned ? json_pack("{s:I,s:I}", "from",
		                           (json_int_t)w->scan_from, "to",
		                           (json_int_t)w->scan_to)
		               : json_null());
		json_object_set_new(r, "recipients", list);
		json_object_set_new(r, "unattributed", un);
		list = un = NULL;
		json_object_set_new(r, "short", json_integer((json_int_t)n[0]));
		json_object_set_new(r, "even", json_integer((json_int_t)n[1]));
		json_object_set_new(r, "over", json_integer((json_int_t)n[2]));
		json_object_set_new(r, "owed", amount_json(t_owed));
		json_object_set_new(r, "later", amount_json(t_later));
		json_object_set_new(r, "received", amount_json(t_recv));
		json_object_set_new(r, "missing", amount_json(t_short));
		json_object_set_new(r, "excess", amount_json(t_over));
		/* A failed set leaves a key out: checked once. */
		ok = json_object_size(r) == 18;
	}
	for (size_t i = 0; rows && i < v->nrecipients; i++)
		json_decref(rows[i]);
	free(rows);
	free(owed);
	free(later);
	json_decref(list);
	json_decref(un);
	if (!ok) {
		json_decref(r);
		return NULL;
	}
	*nshort = n[0];
	return r;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static long long num(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

void hjc_vpay_print(const json_t *r, FILE *out)
{
	json_t *list = json_object_get(r, "recipients");
	json_t *un = json_object_get(r, "unattributed");
	json_t *log = json_object_get(r, "log");
	json_t *scan = json_object_get(r, "scanned");
	const char *unit = str(r, "unit");
	int w_owed = 4, w_later = 5, w_recv = 8, w_diff = 10, w_who = 9;
	size_t i;
	json_t *row;

	fprintf(out, "payouts (amounts in %s): ", unit);
	if (json_is_null(log)) {
		fprintf(out, "the log has no line\n");
		return;
	}
	fprintf(out, "log blocks %lld to %lld; ", num(log, "from"),
	        num(log, "to"));
	if (json_is_string(json_object_get(r, "confirmations")))
		fprintf(out,
		        "final blocks up to %lld (tip %lld, the node's %s "
		        "block)",
		        num(r, "final"), num(r, "tip"),
		        str(r, "confirmations"));
	else if (json_is_null(json_object_get(r, "final")))
		fprintf(out, "no final block (tip %lld, %lld confirmations)",
		        num(r, "tip"), num(r, "confirmations"));
	else
		fprintf(out,
		        "final blocks up to %lld (tip %lld, %lld "
		        "confirmations)",
		        num(r, "final"), num(r, "tip"),
		        num(r, "confirmations"));
	if (json_is_null(json_object_get(r, "due")))
		fprintf(out, "; no debt due yet (grace %lld blocks)",
		        num(r, "grace"));
	else
		fprintf(out, "; debts due up to block %lld (grace %lld blocks)",
		        num(r, "due"), num(r, "grace"));
	if (json_is_null(scan))
		fprintf(out, "; no block scanned for payments\n");
	else
		fprintf(out, "; payments counted in blocks %lld to %lld\n",
		        num(scan, "from"), num(scan, "to"));
	json_array_foreach(list, i, row)
	{
		int n;
		n = (int)strlen(str(row, "recipient"));
		w_who = n > w_who ? n : w_who;
		n = (int)strlen(str(row, "owed"));
		w_owed = n > w_owed ? n : w_owed;
		n = (int)strlen(str(row, "later"));
		w_later = n > w_later ? n : w_later;
		n = (int)strlen(str(row, "received"));
		w_recv = n > w_recv ? n : w_recv;
		n = (int)strlen(str(row, "difference"));
		w_diff = n > w_diff ? n : w_diff;
	}
	if (json_array_size(list)) {
		int btc = strcmp(str(json_array_get(list, 0), "recipient"),
		                 str(json_array_get(list, 0), "address")) != 0;
		fprintf(out, "  %-6s %-*s %*s %*s %*s %*s%s\n", "", w_who,
		        "recipient", w_owed, "owed", w_later, "later", w_recv,
		        "received", w_diff, "difference",
		        btc ? "  paid at" : "");
		json_array_foreach(list, i, row)
		{
			fprintf(out, "  %-6s %-*s %*s %*s %*s %*s",
			        str(row, "status"), w_who,
			        str(row, "recipient"), w_owed, str(row, "owed"),
			        w_later, str(row, "later"), w_recv,
			        str(row, "received"), w_diff,
			        str(row, "difference"));
			if (btc)
				fprintf(out, "  %s", str(row, "address"));
			fputc('\n', out);
		}
	}
	fprintf(out,
	        "%zu recipients: %lld short (%s missing), %lld even, %lld "
	        "over (%s beyond what the log owes); owed %s, received %s, "
	        "%s owed later\n",
	        json_array_size(list), num(r, "short"), str(r, "missing"),
	        num(r, "even"), num(r, "over"), str(r, "excess"),
	        str(r, "owed"), str(r, "received"), str(r, "later"));
	if (json_array_size(un)) {
		fprintf(out,
		        "%zu unattributed refunds (no recipient: nobody "
		        "to pay them to):\n",
		        json_array_size(un));
		json_array_foreach(un, i, row)
		{
			fprintf(out, "  block %lld tx %s: %s",
			        num(row, "height"), str(row, "tx"),
			        str(row, "refund"));
			if (json_object_get(row, "round"))
				fprintf(out, " (round %s)", str(row, "round"));
			fputc('\n', out);
		}
	}
}

/* ---- the end: the chain ---- */

/* A note on stderr, on a line of its own. */
#define say(...) hjc_tool_note("verify: payouts", __VA_ARGS__)

static void finish(hjc_vpay *v, int rc)
{
	if (v->finished)
		return;
	v->finished = 1;
	hjc_tool_progress_end();
	v->done(v->arg, rc);
}

static void report(hjc_vpay *v)
{
	hjc_vpay_view w = {.tip = v->tip,
	                   .confirmations = v->o.confirmations,
	                   .finality = v->o.finality,
	                   .final = v->final,
	                   .grace = v->o.grace,
	                   .scanned = v->scanning,
	                   .scan_from = v->first,
	                   .scan_to = v->to};
	size_t nshort;
	json_t *r = hjc_vpay_report(v, &w, &nshort);

	hjc_tool_progress_end();
	if (!r) {
		say("out of memory");
		finish(v, EX_SOFTWARE);
		return;
	}
	if (v->o.json) {
		json_dumpf(r, v->o.out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', v->o.out);
	} else {
		hjc_vpay_print(r, v->o.out);
	}
	fflush(v->o.out);
	json_decref(r);
	finish(v, nshort ? 1 : 0);
}

static void more(hjc_vpay *v);

static void on_payments(void *arg, const hj_chain_payment *p, size_t n,
                        const char *error)
{
	hjc_vpay *v = arg;

	v->inflight--;
	if (v->finished)
		return;
	if (error) {
		hjc_tool_progress_end();
		say("node: %s", error);
		finish(v, EX_UNAVAILABLE);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (p[i].payee >= v->nrecipients ||
		    hjc_vpay_received(v, p[i].payee, p[i].value)) {
			say("block %" PRIu64 ": more received than 2^128 - 1",
			    p[i].height);
			finish(v, EX_DATAERR);
			return;
		}
	}
	more(v);
}

/* Asks for the next ranges, up to DEPTH in flight; reports after the
 * last. */
static void more(hjc_vpay *v)
{
	while (v->inflight < DEPTH && v->next <= v->to) {
		uint64_t left = v->to - v->next + 1;
		size_t n = left < v->o.batch ? (size_t)left : v->o.batch;
		if (v->be->ops->payments(v->be, v->next, n, v->payees,
		                         v->nrecipients, on_payments, v)) {
			say("out of memory");
			finish(v, EX_SOFTWARE);
			return;
		}
		v->inflight++;
		v->next += n;
	}
	if (v->next > v->first)
		hjc_tool_progress("verify: payouts: scanned to block %" PRIu64
		                  " of %" PRIu64,
		                  v->next - 1, v->to);
	if (v->inflight == 0)
		report(v);
}

/* The node's tip, and its last final block (has_final 0: none yet). */
static void got_tip(hjc_vpay *v, uint64_t height, int has_final, uint64_t final,
                    const char *error)
{
	char err[HJ_ERRLEN];

	if (error) {
		say("node: %s", error);
		finish(v, EX_UNAVAILABLE);
		return;
	}
	v->tip = height;
	v->final = final;
	v->payees = calloc(v->nrecipients + 1, sizeof *v->payees);
	if (!v->payees) {
		say("out of memory");
		finish(v, EX_SOFTWARE);
		return;
	}
	for (size_t i = 0; i < v->nrecipients; i++) {
		if (v->be->ops->payee(v->be, hjc_vpay_recipient(v, i),
		                      &v->payees[i], err, sizeof err)) {
			say("recipient %s: %s", hjc_vpay_recipient_text(v, i),
			    err);
			finish(v, EX_DATAERR);
			return;
		}
		hjc_vpay_set_address(v, i, v->payees[i].address);
	}
	/* Payments in the final blocks from the log's first on: none can
	 * pay a debt of the log before it. */
	if (v->started && v->nrecipients && has_final && final >= v->first) {
		v->scanning = 1;
		v->next = v->first;
		v->to = final;
	}
	more(v);
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	hjc_vpay *v = arg;
	unsigned conf = v->o.confirmations ? v->o.confirmations : 1;

	got_tip(v, height, height + 1 >= conf,
	        height + 1 >= conf ? height + 1 - conf : 0, error);
}

static void on_final(void *arg, uint64_t tip, uint64_t final, const char *error)
{
	got_tip(arg, tip, 1, final, error);
}

int hjc_vpay_end(hjc_vpay *v, hj_backend *be, const hjc_vpay_opts *o,
                 hjc_vpay_done_cb done, void *arg)
{
	v->be = be;
	v->o = *o;
	if (!v->o.batch)
		v->o.batch = 1;
	v->done = done;
	v->arg = arg;
	if (v->o.finality)
		return be->ops->final
		           ? be->ops->final(be, v->o.finality, on_final, v)
		           : -EINVAL;
	return be->ops->tip(be, on_tip, v);
}
