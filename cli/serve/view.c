/* The dealer as `hashjack serve` sees it (view.h). */
#include "view.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "amount.h"
#include "bech32.h"
#include "buf.h"
#include "card.h"
#include "cardlog.h"
#include "edge.h"
#include "edge_cmd.h"
#include "hex.h"
#include "ledger.h"
#include "logsrc.h"
#include "map.h"
#include "roundstate.h"
#include "rules.h"
#include "say.h"
#include "store.h"
#include "table.h"
#include "taproot.h"

#define LINE_MAX_BYTES ((size_t)16 << 20) /* docs/LOG.md */
/* Log files read: the current one and the one before the last rotation. */
#define SEGS_KEPT 2

/* Makes room for one more of *n elements of size sz in *p (capacity
 * *cap, doubled, `first` at first).  0 or -ENOMEM (*p unchanged). */
static int grow(void *p, size_t *cap, size_t n, size_t sz, size_t first)
{
	void **pp = p;
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : first;
	void *g = realloc(*pp, c * sz);
	if (!g)
		return -ENOMEM;
	*pp = g;
	*cap = c;
	return 0;
}

/* ---- the view ---- */

/* A file of the log read (the source's file), the lines it gave. */
struct seg {
	unsigned file;  /* the source's */
	uint64_t first; /* height of its first line */
	uint64_t *off;  /* start of each line */
	size_t n, cap;
	uint64_t end; /* bytes of complete lines read */
};

struct rinfo {
	hj_id id, player;
	uint64_t bet, end; /* end: the settling block, 0 while open */
	char *final;       /* the settled state, when kept */
	int pinned;        /* final is kept for good: the round's Bet lies
	                      before the log this view reads, so it cannot
	                      be replayed */
};

/* Settled states kept besides the pinned ones, most recent first out:
 * a query for a round settled long ago replays its lines instead. */
#define SETTLED_KEPT 4096

struct pinfo {
	hj_id key;
	uint8_t q[32]; /* Bitcoin family: tr(P)'s output key */
	int has_q;
	size_t *r; /* its rounds (rinfo indices), oldest first */
	size_t n, cap;
};

struct hblk {
	uint64_t height;
	hjc_update *u;
	hj_id *ids; /* round and player of u[1..] */
	size_t n;
	char *buf;
};

struct hjc_view {
	hjc_view_opts o;
	int live;
	hj_family fam;
	char *family, *chain, *dealer, *rules_text;
	char hrp[HJ_BECH32_HRP_MAX + 1]; /* Bitcoin family: the dealer's */
	hj_rules rules;
	int have_rules;
	json_t *edge; /* hashjack edge --json of the rules */
	hj_secp *secp;
	hj_table *t;
	int have_height;
	uint64_t height, sent; /* last line read; last block given to fn */
	int sent_any;
	char last_hash[67];
	hjc_logsrc *src; /* the log: its files, the last SEGS_KEPT kept */
	struct seg *segs;
	size_t nseg;
	struct rinfo *r;
	size_t nr, rcap;
	hj_map rmap; /* round id -> r index */
	struct pinfo *p;
	size_t np, pcap;
	hj_map pmap;               /* player -> p index */
	size_t kept[SETTLED_KEPT]; /* rinfo indices whose final is kept */
	size_t khead, kn;
	struct hblk *hist; /* ring of o.history_blocks */
	size_t hhead, hn;
	struct timespec mtime;
	uint64_t lines, loads, diverged, truncated, rotated;
};

static const uint8_t *rkey(const void *arg, size_t i, size_t *len)
{
	const hj_id *id = &((const hjc_view *)arg)->r[i].id;
	*len = id->len;
	return id->b;
}

static const uint8_t *pkey(const void *arg, size_t i, size_t *len)
{
	const hj_id *id = &((const hjc_view *)arg)->p[i].key;
	*len = id->len;
	return id->b;
}

static struct rinfo *round_of(const hjc_view *v, const hj_id *id)
{
	size_t i;
	return hj_map_get(&v->rmap, id->b, id->len, &i) ? NULL : &v->r[i];
}

static struct pinfo *player_of(const hjc_view *v, const hj_id *id)
{
	size_t i;
	return hj_map_get(&v->pmap, id->b, id->len, &i) ? NULL : &v->p[i];
}

hjc_view *hjc_view_new(const hjc_view_opts *o)
{
	hjc_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->o = *o;
	hj_map_init(&v->rmap, rkey, v);
	hj_map_init(&v->pmap, pkey, v);
	v->o.db = strdup(o->db);
	v->o.log = strdup(o->log);
	if (!v->o.history_blocks)
		v->o.history_blocks = 1;
	v->hist = calloc(v->o.history_blocks, sizeof *v->hist);
	if (!v->o.db || !v->o.log || !v->hist) {
		hjc_view_free(v);
		return NULL;
	}
	return v;
}

static void hist_clear(hjc_view *v)
{
	for (size_t i = 0; i < v->hn; i++) {
		struct hblk *b = &v->hist[(v->hhead + i) % v->o.history_blocks];
		free(b->u);
		free(b->ids);
		free(b->buf);
		memset(b, 0, sizeof *b);
	}
	v->hhead = v->hn = 0;
}

/* Forgets the dealer's state (not what was sent, nor the rules). */
static void unload(hjc_view *v)
{
	hj_table_free(v->t);
	v->t = NULL;
	for (size_t i = 0; i < v->nseg; i++)
		free(v->segs[i].off);
	hjc_logsrc_free(v->src);
	v->src = NULL;
	free(v->segs);
	v->segs = NULL;
	v->nseg = 0;
	for (size_t i = 0; i < v->nr; i++)
		free(v->r[i].final);
	free(v->r);
	v->r = NULL;
	v->nr = v->rcap = 0;
	hj_map_free(&v->rmap);
	v->khead = v->kn = 0;
	for (size_t i = 0; i < v->np; i++)
		free(v->p[i].r);
	free(v->p);
	v->p = NULL;
	v->np = v->pcap = 0;
	hj_map_free(&v->pmap);
	hist_clear(v);
	v->have_height = 0;
	v->live = 0;
}

void hjc_view_free(hjc_view *v)
{
	if (!v)
		return;
	unload(v);
	free(v->hist);
	free((char *)v->o.db);
	free((char *)v->o.log);
	free(v->family);
	free(v->chain);
	free(v->dealer);
	free(v->rules_text);
	json_decref(v->edge);
	hj_secp_free(v->secp);
	free(v);
}

/* ---- ids ---- */

void hjc_view_id_text(const hjc_view *v, const hj_id *id, char out[67])
{
	hj_hex_encode(id->b, id->len, v->fam == HJ_EVM, out);
}

static int hex_id(const hjc_view *v, const char *s, unsigned len, hj_id *out)
{
	char why[120];
	size_t n = strlen(s);
	out->len = (uint8_t)len;
	return hj_hex_decode_exact(
	    s, n, v->fam == HJ_EVM ? HJ_HEX_REQUIRED : HJ_HEX_BARE, out->b, len,
	    why, sizeof why);
}

int hjc_view_parse_round(const hjc_view *v, const char *text, hj_id *out,
                         char *err, size_t errlen)
{
	if (hex_id(v, text, 32, out) != 0) {
		hj_say(err, errlen,
		       "not a round id (the Bet's transaction id: %s64 hex "
		       "digits)",
		       v->fam == HJ_EVM ? "0x and " : "");
		return -EINVAL;
	}
	return 0;
}

int hjc_view_parse_player(const hjc_view *v, const char *text, hj_id *out,
                          char *err, size_t errlen)
{
	char why[200];
	uint8_t prog[HJ_SEGWIT_PROG_MAX];
	size_t nprog;
	int version;

	if (v->fam == HJ_EVM) {
		if (hex_id(v, text, 20, out) == 0)
			return 0;
		hj_say(err, errlen,
		       "not a player (an address: 0x and 40 hex digits)");
		return -EINVAL;
	}
	if (strlen(text) == 64 && hex_id(v, text, 32, out) == 0)
		return 0;
	if (hj_segwit_decode(v->hrp, text, &version, prog, &nprog, why,
	                     sizeof why) != 0 ||
	    version != 1 || nprog != 32) {
		hj_say(err, errlen,
		       "not a player (a key P: 64 hex digits, or its payout "
		       "address tr(P))");
		return -EINVAL;
	}
	for (size_t i = 0; i < v->np; i++)
		if (v->p[i].has_q && memcmp(v->p[i].q, prog, 32) == 0) {
			*out = v->p[i].key;
			return 0;
		}
	hj_say(err, errlen, "no round of this address in the card log");
	return -ENOENT;
}

/* ---- reading the database ---- */

struct snap {
	hj_meta_row meta;
	int have_meta;
	hj_cursor cur;
	int have_cur;
	hj_round *rounds;
	size_t n, cap;
};

static void snap_reset(void *arg)
{
	struct snap *s = arg;
	hj_meta_row_clear(&s->meta);
	free(s->rounds);
	memset(s, 0, sizeof *s);
}

static int snap_round(void *arg, const hj_round *r)
{
	struct snap *s = arg;
	if (grow(&s->rounds, &s->cap, s->n, sizeof *s->rounds, 16))
		return -ENOMEM;
	s->rounds[s->n++] = *r;
	return 0;
}

static int snap_read(hj_store *st, void *arg, char *err, size_t errlen)
{
	struct snap *s = arg;
	int ret = hj_store_get_meta(st, &s->meta, &s->have_meta, err, errlen);
	if (ret == 0 && s->have_meta)
		ret = hj_store_read_cursor(st, &s->cur, &s->have_cur, err,
		                           errlen);
	if (ret == 0 && s->have_cur)
		ret = hj_store_each_round(st, snap_round, s, err, errlen);
	return ret;
}

/* The meta row: the same at every load (the dealer refuses another). */
static int take_meta(hjc_view *v, const hj_meta_row *m, char *err,
                     size_t errlen)
{
	char why[200];
	if (v->have_rules) {
		if (strcmp(v->chain, m->chain) ||
		    strcmp(v->dealer, m->dealer) ||
		    strcmp(v->rules_text, m->rules)) {
			hj_say(
			    err, errlen,
			    "%s now belongs to another chain, dealer or rule "
			    "set: restart hashjack serve",
			    v->o.db);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(m->family, "evm") == 0)
		v->fam = HJ_EVM;
	else if (strcmp(m->family, "bitcoin") == 0)
		v->fam = HJ_BITCOIN;
	else {
		hj_say(err, errlen, "%s: unknown chain family \"%s\"", v->o.db,
		       m->family);
		return -EINVAL;
	}
	if (hj_rules_parse(m->rules, &v->rules, why, sizeof why)) {
		hj_say(err, errlen, "%s: meta.rules: %s", v->o.db, why);
		return -EINVAL;
	}
	hj_edge e;
	hj_edge_compute(&v->rules, &e);
	v->edge = hjc_edge_json(&v->rules, &e);
	v->family = strdup(m->family);
	v->chain = strdup(m->chain);
	v->dealer = strdup(m->dealer);
	v->rules_text = strdup(m->rules);
	if (v->fam == HJ_BITCOIN) {
		uint8_t data[HJ_BECH32_DATA_MAX];
		size_t ndata;
		hj_bech32_variant var;
		if (hj_bech32_decode(m->dealer, v->hrp, data, &ndata, &var, why,
		                     sizeof why) != HJ_B32_OK) {
			hj_say(err, errlen, "%s: meta.dealer: %s", v->o.db,
			       why);
			return -EINVAL;
		}
		if (!v->secp)
			v->secp = hj_secp_new(why, sizeof why);
	}
	if (!v->edge || !v->family || !v->chain || !v->dealer ||
	    !v->rules_text || (v->fam == HJ_BITCOIN && !v->secp)) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	v->have_rules = 1;
	return 0;
}

/* ---- one line ---- */

/* What a line says (read by the card log's reader, daemon/core/cardlog.h),
 * as the engine's input, and the events that concern rounds, to compare
 * with what the engine makes of it. */
struct pline {
	hj_cardlog_line l;
	uint64_t height;
	char hash[2 * 32 + 3]; /* as the log writes it */
	hj_card card;          /* the hash's */
	hj_action *acts;
	hj_id *act_round; /* the round of each action */
	size_t nacts;
	struct pev {
		int type; /* hj_ev */
		hj_id round;
	} * ev;
	size_t nev;
};

static void pline_free(struct pline *pl)
{
	hj_cardlog_line_free(&pl->l);
	free(pl->acts);
	free(pl->act_round);
	free(pl->ev);
	memset(pl, 0, sizeof *pl);
}

/* The engine's input for an accepted action event. */
static int take_action(const hjc_view *v, const hj_cardlog_ev *e, hj_action *a,
                       hj_id *round)
{
	hj_amount pp = e->has_pp ? e->pp_stake : 0;
	hj_amount t3 = e->has_t3 ? e->t3_stake : 0;
	memset(a, 0, sizeof *a);
	if (pp > UINT64_MAX || t3 > UINT64_MAX)
		return -1;
	a->act = e->act;
	*round = e->round;
	a->txid = e->tx;
	a->kind = HJ_TX_ACTION;
	a->tx_index = e->tx_index;
	a->value = e->stake + pp + t3;
	if (a->value < e->stake)
		return -1;
	a->side_pp = (uint64_t)pp;
	a->side_t3 = (uint64_t)t3;
	a->insurance = e->has_insurance && e->insurance;
	if (v->fam == HJ_EVM || a->act == HJ_BET) {
		a->sender = e->player;
	} else {
		/* Named by its short id and signed: the log says it was
		 * accepted, so the verifier below takes it. */
		a->has_ref = 1;
		memcpy(a->round_ref, round->b, 8);
	}
	return 0;
}

static int accept_all(void *ctx, const hj_round *r, const hj_action *a)
{
	(void)ctx;
	(void)r;
	(void)a;
	return 1;
}

/* A line the reader refused, in the words the view has always used where
 * it had its own. */
static void refused(const hj_cardlog_err *e, char *err, size_t errlen)
{
	switch (e->at) {
	case HJ_CARDLOG_AT_LINE:
		if (e->json)
			hj_say(err, errlen, "not a JSON object: %s", e->msg);
		else if (strcmp(e->msg, "not a JSON object") == 0)
			hj_say(err, errlen, "not a JSON object: another value");
		else
			hj_say(err, errlen, "%s", e->msg);
		return;
	case HJ_CARDLOG_AT_V:
		hj_say(err, errlen, "\"v\" is not 1 or 2");
		return;
	case HJ_CARDLOG_AT_HEIGHT:
	case HJ_CARDLOG_AT_HASH:
	case HJ_CARDLOG_AT_EVENTS:
		hj_say(err, errlen, "no height, hash or events");
		return;
	case HJ_CARDLOG_AT_EVENT:
		if (e->key && strcmp(e->key, "round") == 0)
			hj_say(err, errlen, "event %zu: no round id", e->index);
		else if (e->type == HJ_EV_ACTION)
			hj_say(err, errlen, "event %zu: a malformed action",
			       e->index);
		else
			hj_say(err, errlen, "%s", e->msg);
		return;
	default:
		hj_say(err, errlen, "%s", e->msg);
	}
}

/* Parses a line.  Returns 0, or -EBADMSG with err. */
static int parse_line(const hjc_view *v, const char *line, size_t len,
                      struct pline *pl, char *err, size_t errlen)
{
	hj_cardlog_err e;
	char why[160];
	int rc;
	memset(pl, 0, sizeof *pl);
	rc = hj_cardlog_read(line, len, v->fam, &pl->l, &e);
	if (rc == -ENOMEM) {
		hj_say(err, errlen, "out of memory");
		return -EBADMSG;
	}
	if (rc) {
		refused(&e, err, errlen);
		return -EBADMSG;
	}
	pl->height = pl->l.height;
	hj_hex_encode(pl->l.hash, 32, v->fam == HJ_EVM, pl->hash);
	if (hj_card_from_hash(pl->hash, strlen(pl->hash), &pl->card, why,
	                      sizeof why)) {
		hj_say(err, errlen, "hash: %s", why);
		goto bad;
	}
	if (pl->card.rank != pl->l.card.rank ||
	    pl->card.suit != pl->l.card.suit) {
		hj_say(err, errlen, "its card is not its hash's");
		goto bad;
	}
	size_t n = pl->l.nevents;
	pl->acts = calloc(n + 1, sizeof *pl->acts);
	pl->act_round = calloc(n + 1, sizeof *pl->act_round);
	pl->ev = calloc(n + 1, sizeof *pl->ev);
	if (!pl->acts || !pl->act_round || !pl->ev) {
		hj_say(err, errlen, "out of memory");
		goto bad;
	}
	for (size_t i = 0; i < n; i++) {
		const hj_cardlog_ev *ev = &pl->l.events[i];
		int t = ev->type;
		/* Reject, deposit, ignored: no input we give; a type of a
		 * later feature, nothing we know of. */
		if (t != HJ_EV_DRAW && t != HJ_EV_ACTION &&
		    t != HJ_EV_TIMEOUT && t != HJ_EV_SETTLE &&
		    t != HJ_EV_PEEK && t != HJ_EV_SKIP && t != HJ_EV_SIDE)
			continue;
		struct pev *pe = &pl->ev[pl->nev++];
		pe->type = t;
		pe->round = ev->round;
		if (t != HJ_EV_ACTION)
			continue;
		if (take_action(v, ev, &pl->acts[pl->nacts],
		                &pl->act_round[pl->nacts])) {
			hj_say(err, errlen, "event %zu: a malformed action", i);
			goto bad;
		}
		pl->nacts++;
	}
	return 0;
bad:
	pline_free(pl); /* the arrays too: no caller frees a line refused */
	return -EBADMSG;
}

/* What the engine did with a line. */
struct applied {
	const hjc_view *v;
	struct pev *ev;
	size_t nev, cap;
	int oom;
	/* rounds changed, in order of their first event */
	struct changed {
		hj_id id, player;
		char *settled; /* RoundState at its settlement */
		int bet;       /* opened by this line */
	} * ch;
	size_t nch, chcap;
	uint64_t height;
};

/* The state of round r after block height (settled there by s, or open
 * when s is NULL) with its "height", as text; NULL when out of memory. */
static char *state_text(const hjc_view *v, const hj_round *r,
                        const hj_settlement *s, uint64_t height)
{
	json_t *o = s ? hj_roundstate_settled(&v->rules, r, s, v->fam, height)
	              : hj_roundstate(&v->rules, r, v->fam, height);
	char *txt = NULL;
	if (o) {
		json_object_set_new(o, "height",
		                    json_integer((json_int_t)height));
		txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	}
	json_decref(o);
	return txt;
}

static void sink(void *ctx, const hj_event *e)
{
	struct applied *ap = ctx;
	const hj_round *r = e->round;
	if (!r || e->type == HJ_EV_REJECT || e->type == HJ_EV_DEPOSIT ||
	    e->type == HJ_EV_IGNORED) {
		if (e->type == HJ_EV_REJECT && ap->nev < SIZE_MAX) {
			/* An action the log accepted: never matches. */
			ap->nev = SIZE_MAX;
		}
		return;
	}
	if (ap->nev == SIZE_MAX)
		return;
	if (grow(&ap->ev, &ap->cap, ap->nev, sizeof *ap->ev, 16)) {
		ap->oom = 1;
		return;
	}
	ap->ev[ap->nev].type = (int)e->type;
	ap->ev[ap->nev++].round = r->id;
	size_t i;
	for (i = 0; i < ap->nch; i++)
		if (hj_id_eq(&ap->ch[i].id, &r->id))
			break;
	if (i == ap->nch) {
		if (grow(&ap->ch, &ap->chcap, ap->nch, sizeof *ap->ch, 8)) {
			ap->oom = 1;
			return;
		}
		memset(&ap->ch[i], 0, sizeof ap->ch[i]);
		ap->ch[i].id = r->id;
		ap->ch[i].player = r->player;
		ap->nch++;
	}
	if (e->type == HJ_EV_ACTION && e->act == HJ_BET)
		ap->ch[i].bet = 1;
	if (e->type == HJ_EV_SETTLE) {
		ap->ch[i].settled = state_text(ap->v, r, e->settle, ap->height);
		if (!ap->ch[i].settled)
			ap->oom = 1;
	}
}

static void applied_free(struct applied *ap)
{
	for (size_t i = 0; i < ap->nch; i++)
		free(ap->ch[i].settled);
	free(ap->ch);
	free(ap->ev);
}

/* Whether the engine's events are the log's, in order. */
static int same_events(const struct pline *pl, const struct applied *ap)
{
	if (ap->nev != pl->nev)
		return 0;
	for (size_t i = 0; i < pl->nev; i++)
		if (pl->ev[i].type != ap->ev[i].type ||
		    !hj_id_eq(&pl->ev[i].round, &ap->ev[i].round))
			return 0;
	return 1;
}

/* ---- messages ---- */

static const hj_round *table_round(const hj_table *t, const hj_id *id)
{
	for (size_t i = 0, n = hj_table_count(t); i < n; i++)
		if (hj_id_eq(&hj_table_round(t, i)->id, id))
			return hj_table_round(t, i);
	return NULL;
}

/* A block's messages, into a history slot. */
static int build_block(hjc_view *v, const struct pline *pl, const char *line,
                       size_t len, const struct applied *ap, struct hblk *b)
{
	hj_buf sb = {0};
	size_t *off = calloc(ap->nch + 1, 2 * sizeof *off);
	char num[32], id[67];
	memset(b, 0, sizeof *b);
	b->height = pl->height;
	b->n = 1 + ap->nch;
	b->u = calloc(b->n, sizeof *b->u);
	b->ids = calloc(2 * ap->nch + 1, sizeof *b->ids);
	if (!off || !b->u || !b->ids)
		goto oom;
	snprintf(num, sizeof num, "%llu", (unsigned long long)pl->height);
	hj_buf_str(&sb, "{\"eventType\":\"BlockUpdate\",\"eventId\":\"");
	hj_buf_str(&sb, num);
	hj_buf_str(&sb, "\",\"height\":");
	hj_buf_str(&sb, num);
	hj_buf_str(&sb, ",\"data\":");
	hj_buf_put(&sb, line, len);
	hj_buf_str(&sb, "}");
	off[1] = sb.len;
	for (size_t i = 0; i < ap->nch; i++) {
		const struct changed *c = &ap->ch[i];
		char *st = c->settled;
		char *mine = NULL;
		if (!st) {
			const hj_round *r = table_round(v->t, &c->id);
			if (!r)
				continue; /* not this table's (never happens) */
			st = mine = state_text(v, r, NULL, pl->height);
			if (!st)
				goto oom;
		}
		hjc_view_id_text(v, &c->id, id);
		off[2 * (i + 1)] = sb.len;
		hj_buf_str(&sb,
		           "{\"eventType\":\"RoundUpdate\",\"eventId\":\"");
		hj_buf_str(&sb, num);
		hj_buf_str(&sb, ":");
		hj_buf_str(&sb, id);
		hj_buf_str(&sb, "\",\"height\":");
		hj_buf_str(&sb, num);
		hj_buf_str(&sb, ",\"roundId\":\"");
		hj_buf_str(&sb, id);
		hj_buf_str(&sb, "\",\"data\":");
		hj_buf_str(&sb, st);
		hj_buf_str(&sb, "}");
		off[2 * (i + 1) + 1] = sb.len;
		free(mine);
		b->ids[2 * i] = c->id;
		b->ids[2 * i + 1] = c->player;
	}
	if (sb.err)
		goto oom;
	b->buf = hj_buf_take(&sb, NULL);
	/* The RoundUpdates, then the BlockUpdate: a client that has a
	 * block's BlockUpdate has every message of that block. */
	size_t k = 0;
	for (size_t i = 0; i < ap->nch; i++) {
		if (off[2 * (i + 1) + 1] == 0)
			continue;
		b->u[k++] =
		    (hjc_update){b->buf + off[2 * (i + 1)],
		                 off[2 * (i + 1) + 1] - off[2 * (i + 1)],
		                 &b->ids[2 * i], &b->ids[2 * i + 1]};
	}
	b->u[k++] = (hjc_update){b->buf, off[1], NULL, NULL};
	b->n = k;
	free(off);
	return 0;
oom:
	free(off);
	hj_buf_free(&sb);
	free(b->u);
	free(b->ids);
	memset(b, 0, sizeof *b);
	return -ENOMEM;
}

static void hist_push(hjc_view *v, struct hblk *b)
{
	size_t cap = v->o.history_blocks;
	if (v->hn == cap) {
		struct hblk *old = &v->hist[v->hhead];
		free(old->u);
		free(old->ids);
		free(old->buf);
		v->hhead = (v->hhead + 1) % cap;
		v->hn--;
	}
	v->hist[(v->hhead + v->hn) % cap] = *b;
	v->hn++;
}

/* ---- rounds and players ---- */

static int add_round(hjc_view *v, const hj_id *id, const hj_id *player,
                     uint64_t bet)
{
	if (round_of(v, id))
		return 0;
	if (grow(&v->r, &v->rcap, v->nr, sizeof *v->r, 64))
		return -ENOMEM;
	struct rinfo *ri = &v->r[v->nr];
	memset(ri, 0, sizeof *ri);
	ri->id = *id;
	ri->player = *player;
	ri->bet = bet;
	if (hj_map_put(&v->rmap, id->b, id->len, v->nr))
		return -ENOMEM;
	v->nr++;
	struct pinfo *p = player_of(v, player);
	if (!p) {
		if (grow(&v->p, &v->pcap, v->np, sizeof *v->p, 64))
			return -ENOMEM;
		p = &v->p[v->np];
		memset(p, 0, sizeof *p);
		p->key = *player;
		if (v->fam == HJ_BITCOIN && player->len == 32)
			p->has_q = hj_taproot_output_key(v->secp, player->b,
			                                 p->q, NULL, 0) == 0;
		if (hj_map_put(&v->pmap, player->b, player->len, v->np))
			return -ENOMEM;
		v->np++;
	}
	if (grow(&p->r, &p->cap, p->n, sizeof *p->r, 4))
		return -ENOMEM;
	p->r[p->n++] = v->nr - 1;
	return 0;
}

/* Keeps the settled state txt (taken) of round i, letting go of the
 * oldest kept one beyond SETTLED_KEPT. */
static void keep_settled(hjc_view *v, size_t i, char *txt)
{
	if (!txt)
		return;
	if (v->kn == SETTLED_KEPT) {
		struct rinfo *old = &v->r[v->kept[v->khead]];
		free(old->final);
		old->final = NULL;
		v->khead = (v->khead + 1) % SETTLED_KEPT;
		v->kn--;
	}
	v->r[i].final = txt;
	v->kept[(v->khead + v->kn) % SETTLED_KEPT] = i;
	v->kn++;
}

/* ---- following the log ---- */

static int seg_add_line(struct seg *s, uint64_t off)
{
	if (grow(&s->off, &s->cap, s->n, sizeof *s->off, 1024))
		return -ENOMEM;
	s->off[s->n++] = off;
	return 0;
}

/*
 * Applies one complete line (without its "\n") at offset off of the
 * current segment.  live: the table is the database's (a difference from
 * the engine stops the view); else the lines before the cursor, read with
 * a table of their own, whose inexact blocks only restart the history.
 */
static int take_line(hjc_view *v, int live, const char *line, size_t len,
                     uint64_t off, hjc_view_fn fn, void *ctx, char *err,
                     size_t errlen)
{
	struct seg *sg = &v->segs[v->nseg - 1];
	struct pline pl;
	struct applied ap = {.v = v};
	struct hblk b;
	char why[200];
	int ret;

	if (parse_line(v, line, len, &pl, why, sizeof why)) {
		hj_say(err, errlen, "%s, byte %llu: %s", v->o.log,
		       (unsigned long long)off, why);
		return -EBADMSG;
	}
	if (v->have_height && pl.height != v->height + 1) {
		hj_say(err, errlen,
		       "%s, byte %llu: block %llu follows block %llu", v->o.log,
		       (unsigned long long)off, (unsigned long long)pl.height,
		       (unsigned long long)v->height);
		pline_free(&pl);
		return -EBADMSG;
	}
	ap.height = pl.height;
	ret = hj_table_apply_block(v->t, pl.height, &pl.card, pl.acts, pl.nacts,
	                           sink, &ap);
	if (ret == 0 && ap.oom)
		ret = -ENOMEM;
	if (ret) {
		hj_say(err, errlen, "%s",
		       ret == -ENOMEM ? "out of memory"
		                      : "the engine refused a block");
		goto out;
	}
	int exact = same_events(&pl, &ap);
	if (!exact && live) {
		v->diverged++;
		hj_say(
		    err, errlen,
		    "%s, block %llu: its events are not what the protocol "
		    "makes of its card and actions (a dealer that differs, or "
		    "a log that is not the database's): reloading",
		    v->o.log, (unsigned long long)pl.height);
		ret = -EPROTO;
		goto out;
	}
	if (sg->n == 0)
		sg->first = pl.height;
	if ((ret = seg_add_line(sg, off)) != 0)
		goto out;
	for (size_t i = 0; i < ap.nch && ret == 0; i++) {
		struct changed *c = &ap.ch[i];
		if (c->bet)
			ret = add_round(v, &c->id, &c->player, pl.height);
		struct rinfo *ri = round_of(v, &c->id);
		if (ret == 0 && ri && c->settled && !ri->end) {
			ri->end = pl.height;
			char *copy = strdup(c->settled);
			if (ri->bet < v->segs[0].first) {
				ri->final = copy;
				ri->pinned = 1;
			} else {
				keep_settled(v, (size_t)(ri - v->r), copy);
			}
		}
	}
	if (ret)
		goto out;
	v->height = pl.height;
	v->have_height = 1;
	snprintf(v->last_hash, sizeof v->last_hash, "%s", pl.hash);
	v->lines++;
	if (!exact) {
		hist_clear(v); /* the updates of this block are not whole */
		goto out;
	}
	if ((ret = build_block(v, &pl, line, len, &ap, &b)) != 0) {
		hj_say(err, errlen, "out of memory");
		goto out;
	}
	hist_push(v, &b);
	if (fn && (!v->sent_any || pl.height > v->sent)) {
		fn(ctx, pl.height, b.u, b.n);
		v->sent = pl.height;
		v->sent_any = 1;
	}
out:
	applied_free(&ap);
	pline_free(&pl);
	return ret;
}

/* Reads complete lines of the current segment up to `upto` bytes (or its
 * end).  Returns 0 or an error of take_line. */
static int read_lines(hjc_view *v, int live, uint64_t upto, hjc_view_fn fn,
                      void *ctx, char *err, size_t errlen)
{
	struct seg *sg = &v->segs[v->nseg - 1];
	hjc_logsrc_line l;
	char why[HJ_ERRLEN];
	int ret;
	while ((ret = hjc_logsrc_next(v->src, &l, why, sizeof why)) == 1) {
		if (l.end > upto) {
			hjc_logsrc_unread(v->src);
			return 0;
		}
		ret = take_line(v, live, l.text, l.len, l.off, fn, ctx, err,
		                errlen);
		if (ret)
			return ret;
		sg->end = l.end;
	}
	if (ret == -EMSGSIZE) {
		hj_say(err, errlen, "%s, byte %llu: a line longer than 16 MiB",
		       v->o.log, (unsigned long long)sg->end);
		return -EBADMSG;
	}
	if (ret == -ENOMEM)
		hj_say(err, errlen, "out of memory");
	else if (ret)
		hj_say(err, errlen, "%s", why);
	return ret == -ENOMEM || ret == 0 ? ret : -EIO;
}

/* The log's first file (none read yet), or the next one after a
 * rotation. */
static int open_seg(hjc_view *v, char *err, size_t errlen)
{
	hjc_logsrc_opts o = {.max_line = LINE_MAX_BYTES, .keep = SEGS_KEPT};
	char why[HJ_ERRLEN];
	struct seg *g = realloc(v->segs, (v->nseg + 1) * sizeof *g);
	if (!g) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	v->segs = g;
	int ret = v->src
	              ? hjc_logsrc_follow(v->src, why, sizeof why)
	              : hjc_logsrc_open(v->o.log, &o, &v->src, why, sizeof why);
	if (ret == -ENOMEM) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (ret) {
		hj_say(err, errlen, "cannot open the card log %s", why);
		return -ENOENT;
	}
	if (v->nseg == SEGS_KEPT) {
		/* Rotated away twice: its blocks are no longer served (the
		 * source let the file go, and its disk space with it). */
		free(g[0].off);
		memmove(g, g + 1, (v->nseg - 1) * sizeof *g);
		v->nseg--;
	}
	memset(&g[v->nseg], 0, sizeof *g);
	g[v->nseg].file = hjc_logsrc_file(v->src);
	g[v->nseg].first = v->have_height ? v->height + 1 : 0;
	v->nseg++;
	v->mtime = hjc_logsrc_mtime(v->src);
	return 0;
}

/* Loads the database's state and the log up to the end. */
static int load(hjc_view *v, hjc_view_fn fn, void *ctx, char *err,
                size_t errlen)
{
	struct snap s = {0};
	int ret;

	unload(v);
	v->loads++;
	ret = hj_store_read(v->o.db, snap_read, snap_reset, &s, err, errlen);
	if (ret)
		goto out;
	if (!s.have_meta || !s.have_cur) {
		hj_say(err, errlen,
		       "%s: the dealer has not processed a block yet", v->o.db);
		ret = -EAGAIN;
		goto out;
	}
	if ((ret = take_meta(v, &s.meta, err, errlen)) != 0)
		goto out;
	/* Lines beyond the dealer's commit were sent but may not stay: a
	 * dealer that restarts cuts them and deals those blocks again, maybe
	 * other blocks after a reorganisation.  They are sent again as the
	 * log now has them (docs/API.md: the later message wins). */
	if (v->sent_any && v->sent > s.cur.height)
		v->sent = s.cur.height;
	if ((ret = open_seg(v, err, errlen)) != 0)
		goto out;
	struct seg *sg = &v->segs[0];
	uint64_t dev, ino;
	hjc_logsrc_identity(v->src, &dev, &ino);
	if (dev != s.cur.log_dev || ino != s.cur.log_ino) {
		hj_say(err, errlen,
		       "%s is not the card log the database's cursor names "
		       "(rotated, or another dealer's?)",
		       v->o.log);
		ret = -EAGAIN;
		goto out;
	}
	/* The lines the database has committed, with a table of their own. */
	v->t = hj_table_new(&v->rules);
	if (!v->t) {
		ret = -ENOMEM;
		hj_say(err, errlen, "out of memory");
		goto out;
	}
	hj_table_set_verifier(v->t, accept_all, NULL);
	if ((ret = read_lines(v, 0, s.cur.log_offset, fn, ctx, err, errlen)))
		goto out;
	if (sg->end != s.cur.log_offset) {
		hj_say(
		    err, errlen,
		    "%s is %llu bytes of whole lines, the database says %llu",
		    v->o.log, (unsigned long long)sg->end,
		    (unsigned long long)s.cur.log_offset);
		ret = -EAGAIN;
		goto out;
	}
	if (v->have_height && v->height != s.cur.height) {
		hj_say(err, errlen,
		       "%s ends at block %llu where the database says %llu",
		       v->o.log, (unsigned long long)v->height,
		       (unsigned long long)s.cur.height);
		ret = -EAGAIN;
		goto out;
	}
	/* From here the table is the database's. */
	hj_table_free(v->t);
	v->t = hj_table_new(&v->rules);
	if (!v->t) {
		ret = -ENOMEM;
		hj_say(err, errlen, "out of memory");
		goto out;
	}
	hj_table_set_verifier(v->t, accept_all, NULL);
	hj_table_set_last_height(v->t, s.cur.height);
	v->height = s.cur.height;
	v->have_height = 1;
	for (size_t i = 0; i < s.n && ret == 0; i++) {
		ret = hj_table_restore(v->t, &s.rounds[i]);
		if (ret == 0)
			ret = add_round(v, &s.rounds[i].id, &s.rounds[i].player,
			                s.rounds[i].bet_height);
	}
	if (ret) {
		hj_say(err, errlen, "%s: restoring the open rounds: %s",
		       v->o.db, strerror(-ret));
		goto out;
	}
	v->live = 1;
	ret = read_lines(v, 1, UINT64_MAX, fn, ctx, err, errlen);
out:
	snap_reset(&s);
	if (ret)
		unload(v);
	return ret;
}

int hjc_view_poll(hjc_view *v, hjc_view_fn fn, void *ctx, char *err,
                  size_t errlen)
{
	char why[HJ_ERRLEN];
	uint64_t size;
	int ret;

	if (!v->live)
		return load(v, fn, ctx, err, errlen);
	ret = hjc_logsrc_cut(v->src, &size, why, sizeof why);
	if (ret < 0) {
		hj_say(err, errlen, "%s", why);
		unload(v);
		return -EIO;
	}
	if (ret) {
		/* Cut: the dealer restarted and dropped lines it had not
		 * committed.  Start over from its database. */
		v->truncated++;
		return load(v, fn, ctx, err, errlen);
	}
	v->mtime = hjc_logsrc_mtime(v->src);
	ret = read_lines(v, 1, UINT64_MAX, fn, ctx, err, errlen);
	if (ret) {
		unload(v);
		return ret;
	}
	/* Renamed (logrotate): once the new file has a line, the dealer
	 * writes no more to this one; read it to its end, then go on. */
	if (hjc_logsrc_rotated(v->src)) {
		ret = read_lines(v, 1, UINT64_MAX, fn, ctx, err, errlen);
		if (ret == 0 && hjc_logsrc_partial(v->src)) {
			hj_say(err, errlen,
			       "%s was renamed with a partial last line",
			       v->o.log);
			ret = -EBADMSG;
		}
		if (ret == 0)
			ret = open_seg(v, err, errlen);
		if (ret == 0) {
			v->rotated++;
			ret =
			    read_lines(v, 1, UINT64_MAX, fn, ctx, err, errlen);
		}
		if (ret)
			unload(v);
	}
	return ret;
}

int hjc_view_history(hjc_view *v, uint64_t from, hjc_view_fn fn, void *ctx,
                     char *err, size_t errlen)
{
	if (!v->live) {
		hj_say(err, errlen, "the dealer's state is not loaded yet");
		return -EAGAIN;
	}
	if (v->have_height && from >= v->height)
		return 0;
	const struct hblk *first =
	    v->hn ? &v->hist[v->hhead % v->o.history_blocks] : NULL;
	/* Kept from the log's first line on: no block after `from` is
	 * missing, however far before that line `from` is. */
	uint64_t oldest = v->nseg && v->segs[0].n ? v->segs[0].first : 0;
	if (!first || (first->height > from + 1 && first->height != oldest)) {
		hj_say(err, errlen,
		       "blocks after %llu are no longer kept (the oldest kept "
		       "is %llu): read the rounds you follow with GET "
		       "/v1/rounds/{id}, then stream without from",
		       (unsigned long long)from,
		       (unsigned long long)(first ? first->height
		                                  : v->height + 1));
		return -ERANGE;
	}
	for (size_t i = 0; i < v->hn; i++) {
		const struct hblk *b =
		    &v->hist[(v->hhead + i) % v->o.history_blocks];
		if (b->height > from)
			fn(ctx, b->height, b->u, b->n);
	}
	return 0;
}

/* ---- queries ---- */

static int dump(json_t *o, char **out, size_t *len, char *err, size_t errlen)
{
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s) {
		hj_say(err, errlen, "out of memory");
		return 503;
	}
	*out = s;
	*len = strlen(s);
	return 200;
}

static int not_live(const hjc_view *v, char *err, size_t errlen)
{
	if (v->live)
		return 0;
	hj_say(err, errlen, "the dealer's state is not loaded yet");
	return 503;
}

static json_t *amount_json(hj_amount a)
{
	char s[HJ_AMOUNT_STRLEN];
	return json_string(hj_amount_format(a, s));
}

int hjc_view_table(hjc_view *v, char **out, size_t *len, char *err,
                   size_t errlen)
{
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	json_t *o = json_object(), *lb = json_object();
	json_object_set_new(o, "family", json_string(v->family));
	json_object_set_new(o, "chain", json_string(v->chain));
	json_object_set_new(o, "dealer", json_string(v->dealer));
	json_object_update(o, v->edge); /* rules, edges, chart */
	json_object_set_new(o, "minBet", amount_json(v->rules.min_bet));
	json_object_set_new(o, "maxBet", amount_json(v->rules.max_bet));
	json_object_set_new(o, "maxExposure",
	                    amount_json(v->rules.max_exposure));
	json_object_set_new(o, "timeoutBlocks",
	                    json_integer(v->rules.timeout_blocks));
	/* The configuration's value: a number, or the finality's word. */
	if (v->o.finality)
		json_object_set_new(
		    o, "confirmations",
		    json_string(hj_finality_name(v->o.finality)));
	else if (v->o.confirmations)
		json_object_set_new(o, "confirmations",
		                    json_integer(v->o.confirmations));
	json_object_set_new(lb, "height", json_integer((json_int_t)v->height));
	json_object_set_new(lb, "hash", json_string(v->last_hash));
	json_object_set_new(o, "lastBlock", lb);
	json_object_set_new(o, "openRounds",
	                    json_integer((json_int_t)hj_table_count(v->t)));
	json_object_set_new(o, "exposure",
	                    amount_json(hj_table_exposure(v->t)));
	return dump(o, out, len, err, errlen);
}

static json_t *state_json(const char *txt)
{
	return txt ? json_loads(txt, 0, NULL) : NULL;
}

int hjc_view_rounds(hjc_view *v, char **out, size_t *len, char *err,
                    size_t errlen)
{
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	json_t *o = json_object(), *a = json_array();
	for (size_t i = 0, n = hj_table_count(v->t); i < n; i++) {
		char *s =
		    state_text(v, hj_table_round(v->t, i), NULL, v->height);
		json_array_append_new(a, state_json(s));
		free(s);
	}
	json_object_set_new(o, "height", json_integer((json_int_t)v->height));
	json_object_set_new(o, "open", a);
	return dump(o, out, len, err, errlen);
}

/* Reads line i of segment sg into a new string. */
static char *seg_line(const hjc_view *v, const struct seg *sg, size_t i,
                      size_t *len)
{
	uint64_t a = sg->off[i];
	uint64_t b = i + 1 < sg->n ? sg->off[i + 1] : sg->end;
	size_t n = (size_t)(b - a - 1); /* without the "\n" */
	char *s = malloc(n + 1);
	if (!s || hjc_logsrc_pread(v->src, sg->file, a, s, n) != (long long)n) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	*len = n;
	return s;
}

static const struct seg *seg_of(const hjc_view *v, uint64_t height, size_t *i)
{
	for (size_t k = 0; k < v->nseg; k++) {
		const struct seg *sg = &v->segs[k];
		if (sg->n && height >= sg->first &&
		    height - sg->first < sg->n) {
			*i = (size_t)(height - sg->first);
			return sg;
		}
	}
	return NULL;
}

/* The settled state of ri, replayed from its Bet's line to its end. */
static char *replay_round(hjc_view *v, const struct rinfo *ri)
{
	hj_table *t = hj_table_new(&v->rules);
	char *final = NULL, why[200];
	if (!t)
		return NULL;
	hj_table_set_verifier(t, accept_all, NULL);
	for (uint64_t h = ri->bet; h <= ri->end && !final; h++) {
		size_t i, len;
		const struct seg *sg = seg_of(v, h, &i);
		char *line = sg ? seg_line(v, sg, i, &len) : NULL;
		struct pline pl;
		struct applied ap = {.v = v, .height = h};
		if (!line || parse_line(v, line, len, &pl, why, sizeof why)) {
			free(line);
			break;
		}
		size_t k = 0;
		for (size_t j = 0; j < pl.nacts; j++)
			if (hj_id_eq(&pl.act_round[j], &ri->id))
				pl.acts[k++] = pl.acts[j];
		hj_table_apply_block(t, h, &pl.card, pl.acts, k, sink, &ap);
		for (size_t j = 0; j < ap.nch; j++)
			if (hj_id_eq(&ap.ch[j].id, &ri->id) &&
			    ap.ch[j].settled) {
				final = ap.ch[j].settled;
				ap.ch[j].settled = NULL;
			}
		applied_free(&ap);
		pline_free(&pl);
		free(line);
	}
	hj_table_free(t);
	return final;
}

/* The state of a known round, open or settled, as text (NULL: ENOMEM or
 * its lines are gone). */
static char *round_text(hjc_view *v, const struct rinfo *ri)
{
	if (!ri->end) {
		const hj_round *r = table_round(v->t, &ri->id);
		return r ? state_text(v, r, NULL, v->height) : NULL;
	}
	if (!ri->final) {
		char *txt = replay_round(v, ri);
		if (!txt)
			return NULL;
		keep_settled(v, (size_t)(ri - v->r), txt);
	}
	return strdup(ri->final);
}

int hjc_view_round(hjc_view *v, const char *id, char **out, size_t *len,
                   char *err, size_t errlen)
{
	hj_id rid;
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	if (hjc_view_parse_round(v, id, &rid, err, errlen))
		return 400;
	const struct rinfo *ri = round_of(v, &rid);
	if (!ri) {
		hj_say(
		    err, errlen,
		    "no round with this id in the card log this server reads");
		return 404;
	}
	char *s = round_text(v, ri);
	if (!s) {
		hj_say(err, errlen, "the round's lines cannot be read");
		return 503;
	}
	*out = s;
	*len = strlen(s);
	return 200;
}

int hjc_view_player(hjc_view *v, const char *id, char **out, size_t *len,
                    char *err, size_t errlen)
{
	hj_id pid;
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	int r = hjc_view_parse_player(v, id, &pid, err, errlen);
	if (r)
		return r == -ENOENT ? 404 : 400;
	const struct pinfo *p = player_of(v, &pid);
	if (!p) {
		hj_say(err, errlen, "no round of this player in the card log");
		return 404;
	}
	char key[67];
	hjc_view_id_text(v, &p->key, key);
	json_t *o = json_object(), *recent = json_array(), *open = NULL;
	size_t shown = 0;
	for (size_t k = p->n; k-- > 0;) {
		const struct rinfo *ri = &v->r[p->r[k]];
		if (!ri->end && !open) {
			char *s = round_text(v, ri);
			open = state_json(s);
			free(s);
			continue;
		}
		if (!ri->end || shown >= v->o.recent_rounds)
			continue;
		char *s = round_text(v, ri);
		json_t *j = state_json(s);
		free(s);
		if (j) {
			json_array_append_new(recent, j);
			shown++;
		}
	}
	json_object_set_new(o, "player", json_string(key));
	json_object_set_new(o, "height", json_integer((json_int_t)v->height));
	json_object_set_new(o, "open", open ? open : json_null());
	json_object_set_new(o, "recent", recent);
	return dump(o, out, len, err, errlen);
}

int hjc_view_parse_height(const char *s, uint64_t *out)
{
	uint64_t h = 0;
	if (!*s || strlen(s) > 19 || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		h = h * 10 + (uint64_t)(*s - '0');
	}
	*out = h;
	return 0;
}

int hjc_view_block(hjc_view *v, const char *height, char **out, size_t *len,
                   char *err, size_t errlen)
{
	uint64_t h;
	size_t i;
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	if (hjc_view_parse_height(height, &h)) {
		hj_say(err, errlen, "not a block height (a decimal number)");
		return 400;
	}
	const struct seg *sg = seg_of(v, h, &i);
	if (!sg) {
		hj_say(err, errlen,
		       "block %llu is not in the card log this "
		       "server reads",
		       (unsigned long long)h);
		return 404;
	}
	*out = seg_line(v, sg, i, len);
	if (!*out) {
		hj_say(err, errlen, "the line cannot be read");
		return 503;
	}
	return 200;
}

int hjc_view_blocks(hjc_view *v, const char *last, char **out, size_t *len,
                    char *err, size_t errlen)
{
	uint64_t n = 20;
	hj_buf sb = {0};
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	if (last && (hjc_view_parse_height(last, &n) || n < 1 || n > 100)) {
		hj_say(err, errlen, "last: a number from 1 to 100");
		return 400;
	}
	hj_buf_str(&sb, "[");
	uint64_t top = v->height, from = top + 1 > n ? top + 1 - n : 0;
	int first = 1;
	for (uint64_t h = from; v->have_height && h <= top; h++) {
		size_t i, l;
		const struct seg *sg = seg_of(v, h, &i);
		char *line = sg ? seg_line(v, sg, i, &l) : NULL;
		if (!line)
			continue;
		if (!first)
			hj_buf_str(&sb, ",");
		hj_buf_put(&sb, line, l);
		first = 0;
		free(line);
	}
	hj_buf_str(&sb, "]");
	if (!(*out = hj_buf_take(&sb, len))) {
		hj_say(err, errlen, "out of memory");
		return 503;
	}
	return 200;
}

int hjc_view_payouts(hjc_view *v, const char *recipient, const char *round,
                     char **out, size_t *len, char *err, size_t errlen)
{
	json_t *rows = NULL;
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	if (!recipient && !round) {
		hj_say(err, errlen, "give recipient=ID or round=ID");
		return 400;
	}
	int r = hjc_ledger_select_json(v->o.db, recipient, round, &rows, err,
	                               errlen);
	if (r == -EDOM) {
		/* The ledger's words are its options': name ours. */
		return 400;
	}
	if (r)
		return 503;
	json_t *o = json_object();
	json_object_set_new(o, "payouts", rows);
	return dump(o, out, len, err, errlen);
}

void hjc_view_stats_get(const hjc_view *v, hjc_view_stats *st)
{
	memset(st, 0, sizeof *st);
	st->live = v->live;
	st->height = v->height;
	st->log_mtime = v->mtime;
	st->lines = v->lines;
	st->loads = v->loads;
	st->diverged = v->diverged;
	st->truncated = v->truncated;
	st->rotated = v->rotated;
	st->open_rounds = v->t ? hj_table_count(v->t) : 0;
	st->rounds_known = v->nr;
	st->history = v->hn;
	st->family = v->have_rules ? v->family : NULL;
}
