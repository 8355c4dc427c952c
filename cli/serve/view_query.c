/*
 * The view's queries (view.h): /v1/table, rounds, a round, a player, a
 * block, the last blocks and payouts, each a JSON text or a status and
 * its reason, from what view.c and view_follow.c keep.
 */
#include "view_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amount.h"
#include "buf.h"
#include "hex.h"
#include "ledger.h"
#include "say.h"

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

/*
 * Committed cards: the chains the table keeps (docs/PROTOCOL.md section
 * 15), in the order their Commits came: the one in force at the next
 * block, with the seeds it has left, then those scheduled from a later
 * block.  The table drops a chain once a later one has replaced it.
 */
static json_t *chains_json(const hjc_view *v)
{
	json_t *a = json_array();
	uint64_t next = v->height + 1;
	const hj_commit *now = hj_table_commit_at(v->t, next);
	const hj_commit *c;
	char hex[65], id[67];

	for (size_t i = 0; (c = hj_table_commit(v->t, i)) != NULL; i++) {
		json_t *o = json_object();
		hj_hex_encode(c->commitment, sizeof c->commitment, 0, hex);
		hjc_view_id_text(v, &c->txid, id);
		json_object_set_new(o, "start",
		                    json_integer((json_int_t)c->start));
		json_object_set_new(o, "length", json_integer(c->length));
		json_object_set_new(o, "commitment", json_string(hex));
		json_object_set_new(o, "tx", json_string(id));
		json_object_set_new(o, "height",
		                    json_integer((json_int_t)c->height));
		json_object_set_new(o, "inForce", json_boolean(c == now));
		if (c == now) {
			/* start <= next here; both below 2^63 + 2^32 */
			uint64_t end = c->start + c->length;
			json_object_set_new(
			    o, "seedsLeft",
			    json_integer(end > next ? (json_int_t)(end - next)
			                            : 0));
		}
		json_array_append_new(a, o);
	}
	return a;
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
	if (v->rules.cards == HJ_CARDS_COMMITTED)
		json_object_set_new(o, "chains", chains_json(v));
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
		char *s = hjc_view__state_text(v, hj_table_round(v->t, i), NULL,
		                               v->height);
		json_array_append_new(a, state_json(s));
		free(s);
	}
	json_object_set_new(o, "height", json_integer((json_int_t)v->height));
	json_object_set_new(o, "open", a);
	return dump(o, out, len, err, errlen);
}

/* The state of a known round, open or settled, as text (NULL: ENOMEM or
 * its lines are gone). */
static char *round_text(hjc_view *v, const struct rinfo *ri)
{
	if (!ri->end) {
		const hj_round *r = hjc_view__table_round(v->t, &ri->id);
		return r ? hjc_view__state_text(v, r, NULL, v->height) : NULL;
	}
	if (!ri->final) {
		char *txt = hjc_view__replay_round(v, ri);
		if (!txt)
			return NULL;
		hjc_view__keep_settled(v, (size_t)(ri - v->r), txt);
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
	const struct rinfo *ri = hjc_view__round_of(v, &rid);
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
	const struct pinfo *p = hjc_view__player_of(v, &pid);
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
	const struct seg *sg = hjc_view__seg_of(v, h, &i);
	if (!sg) {
		hj_say(err, errlen,
		       "block %llu is not in the card log this "
		       "server reads",
		       (unsigned long long)h);
		return 404;
	}
	*out = hjc_view__seg_line(v, sg, i, len);
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
		const struct seg *sg = hjc_view__seg_of(v, h, &i);
		char *line = sg ? hjc_view__seg_line(v, sg, i, &l) : NULL;
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
                     const char *kind, char **out, size_t *len, char *err,
                     size_t errlen)
{
	json_t *rows = NULL;
	int st = not_live(v, err, errlen);
	if (st)
		return st;
	if (!recipient && !round && !kind) {
		hj_say(err, errlen, "give recipient=ID, round=ID or kind=KIND");
		return 400;
	}
	int r = hjc_ledger_select_json(v->o.db, recipient, round, kind, &rows,
	                               err, errlen);
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
