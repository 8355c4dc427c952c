/*
 * The view following the dealer (view_impl.h): its database read, its
 * card log read through the log source and each line played through the
 * engine, the stream messages of every block, and a settled round played
 * again from its lines.
 */
#include "view_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amount.h"
#include "buf.h"
#include "card.h"
#include "cardlog.h"
#include "edge.h"
#include "edge_cmd.h"
#include "hex.h"
#include "roundstate.h"
#include "say.h"
#include "seed.h"
#include "store.h"

#define LINE_MAX_BYTES ((size_t)16 << 20) /* docs/LOG.md */

/* ---- reading the database ---- */

struct snap {
	hj_meta_row meta;
	int have_meta;
	hj_cursor cur;
	int have_cur;
	hj_round *rounds;
	size_t n, cap;
	hj_commit *commits; /* the valid Commits, in block order */
	size_t nc, ccap;
};

static void snap_reset(void *arg)
{
	struct snap *s = arg;
	hj_meta_row_clear(&s->meta);
	free(s->rounds);
	free(s->commits);
	memset(s, 0, sizeof *s);
}

static int snap_round(void *arg, const hj_round *r)
{
	struct snap *s = arg;
	if (hjc_view__grow(&s->rounds, &s->cap, s->n, sizeof *s->rounds, 16))
		return -ENOMEM;
	s->rounds[s->n++] = *r;
	return 0;
}

static int snap_commit(void *arg, const hj_commit *c)
{
	struct snap *s = arg;
	if (hjc_view__grow(&s->commits, &s->ccap, s->nc, sizeof *s->commits, 8))
		return -ENOMEM;
	s->commits[s->nc++] = *c;
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
	if (ret == 0 && s->have_cur)
		ret = hj_store_each_commit(st, snap_commit, s, err, errlen);
	return ret;
}

/* The meta row: the same at every load (the dealer refuses another). */
static int take_meta(hjc_view *v, const hj_meta_row *m, char *err,
                     size_t errlen)
{
	char why[HJ_ERRLEN];
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
		/* A failure leaves it NULL: said just below. */
		if (!v->secp)
			(void)hj_secp_new(&v->secp, why, sizeof why);
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

/* The engine's input for a commit event: a Commit the dealer sent. */
static void take_commit(const hj_cardlog_ev *e, hj_action *a)
{
	memset(a, 0, sizeof *a);
	a->act = HJ_COMMIT;
	a->kind = HJ_TX_ACTION;
	a->txid = e->tx;
	a->tx_index = e->tx_index;
	a->from_dealer = 1;
	a->commit_start = e->start;
	a->commit_length = e->length;
	memcpy(a->commitment, e->commitment, sizeof a->commitment);
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
	char why[HJ_ERRLEN];
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
	if (v->rules.cards == HJ_CARDS_COMMITTED) {
		/* Keyed with the line's seed, or void without one (no chain
		 * in force: checked against the table in take_line). */
		char hmac[65];
		if (pl->l.has_seed)
			hj_seed_card(pl->l.seed, pl->l.hash, hmac, &pl->card);
		else
			memset(&pl->card, 0, sizeof pl->card);
		if (pl->card.rank != pl->l.card.rank ||
		    pl->card.suit != pl->l.card.suit) {
			hj_say(err, errlen,
			       pl->l.has_seed
			           ? "its card is not the HMAC of its hash "
			             "keyed with its seed"
			           : "a card without a seed under cards = "
			             "committed");
			goto bad;
		}
	} else {
		if (pl->l.has_seed) {
			hj_say(err, errlen, "a seed under cards = hash");
			goto bad;
		}
		if (hj_card_from_hash(pl->hash, strlen(pl->hash), &pl->card,
		                      why, sizeof why)) {
			hj_say(err, errlen, "hash: %s", why);
			goto bad;
		}
		if (pl->card.rank != pl->l.card.rank ||
		    pl->card.suit != pl->l.card.suit) {
			hj_say(err, errlen, "its card is not its hash's");
			goto bad;
		}
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
		if (t == HJ_EV_COMMIT) {
			/* The dealer's valid Commit: the table keeps its
			 * chain (for /v1/table) and judges it again. */
			take_commit(ev, &pl->acts[pl->nacts++]);
			continue;
		}
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
char *hjc_view__state_text(const hjc_view *v, const hj_round *r,
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
	if (hjc_view__grow(&ap->ev, &ap->cap, ap->nev, sizeof *ap->ev, 16)) {
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
		if (hjc_view__grow(&ap->ch, &ap->chcap, ap->nch, sizeof *ap->ch,
		                   8)) {
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
		ap->ch[i].settled =
		    hjc_view__state_text(ap->v, r, e->settle, ap->height);
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

const hj_round *hjc_view__table_round(const hj_table *t, const hj_id *id)
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
			const hj_round *r = hjc_view__table_round(v->t, &c->id);
			if (!r)
				continue; /* not this table's (never happens) */
			st = mine =
			    hjc_view__state_text(v, r, NULL, pl->height);
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

/* ---- following the log ---- */

static int seg_add_line(struct seg *s, uint64_t off)
{
	if (hjc_view__grow(&s->off, &s->cap, s->n, sizeof *s->off, 1024))
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
	char why[HJ_ERRLEN];
	int ret;

	if (parse_line(v, line, len, &pl, why, sizeof why)) {
		hj_say(err, errlen, "%s, byte %llu: %s", v->o.log,
		       (unsigned long long)off, why);
		return -EBADMSG;
	}
	if (v->have_height && pl.height <= v->height) {
		/* A rewind after a reorganisation: the dealer put an older
		 * file back as the card log, whose lines come again. */
		hj_say(err, errlen,
		       "%s, byte %llu: block %llu comes after block %llu: the "
		       "log went back (a dealer's rewind after a "
		       "reorganisation, docs/OPERATION.md \"Money\"); "
		       "reloading from its database",
		       v->o.log, (unsigned long long)off,
		       (unsigned long long)pl.height,
		       (unsigned long long)v->height);
		pline_free(&pl);
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
	if (live && v->rules.cards == HJ_CARDS_COMMITTED) {
		/* The table has every valid Commit (the database's, then the
		 * log's): a seed exactly where a chain is in force. */
		const hj_commit *c = hj_table_commit_at(v->t, pl.height);
		int dealt = c && hj_commit_index(c, pl.height) != 0;
		if (dealt != (int)pl.l.has_seed) {
			v->diverged++;
			hj_say(err, errlen, "%s, block %llu: %s: reloading",
			       v->o.log, (unsigned long long)pl.height,
			       dealt ? "no seed where a chain is in force"
			             : "a seed where no chain is in force");
			pline_free(&pl);
			return -EPROTO;
		}
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
			ret = hjc_view__add_round(v, &c->id, &c->player,
			                          pl.height);
		struct rinfo *ri = hjc_view__round_of(v, &c->id);
		if (ret == 0 && ri && c->settled && !ri->end) {
			ri->end = pl.height;
			char *copy = strdup(c->settled);
			if (ri->bet < v->segs[0].first) {
				ri->final = copy;
				ri->pinned = 1;
			} else {
				hjc_view__keep_settled(v, (size_t)(ri - v->r),
				                       copy);
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
		hjc_view__hist_clear(
		    v); /* the updates of this block are not whole */
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

	hjc_view__unload(v);
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
	if ((ret = hj_table_new(&v->rules, &v->t)) != 0) {
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
	if ((ret = hj_table_new(&v->rules, &v->t)) != 0) {
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
			ret = hjc_view__add_round(v, &s.rounds[i].id,
			                          &s.rounds[i].player,
			                          s.rounds[i].bet_height);
	}
	for (size_t i = 0; i < s.nc && ret == 0; i++)
		ret = hj_table_restore_commit(v->t, &s.commits[i]);
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
		hjc_view__unload(v);
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
		hjc_view__unload(v);
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
		hjc_view__unload(v);
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
			hjc_view__unload(v);
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

/* Reads line i of segment sg into a new string. */
char *hjc_view__seg_line(const hjc_view *v, const struct seg *sg, size_t i,
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

const struct seg *hjc_view__seg_of(const hjc_view *v, uint64_t height,
                                   size_t *i)
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
char *hjc_view__replay_round(hjc_view *v, const struct rinfo *ri)
{
	hj_table *t;
	char *final = NULL, why[HJ_ERRLEN];
	if (hj_table_new(&v->rules, &t) != 0)
		return NULL;
	hj_table_set_verifier(t, accept_all, NULL);
	for (uint64_t h = ri->bet; h <= ri->end && !final; h++) {
		size_t i, len;
		const struct seg *sg = hjc_view__seg_of(v, h, &i);
		char *line = sg ? hjc_view__seg_line(v, sg, i, &len) : NULL;
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
