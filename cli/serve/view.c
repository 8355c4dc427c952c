/*
 * The dealer as `hashjack serve` sees it (view.h): the view, its ids, and
 * its index of rounds and players (view_impl.h says which file holds
 * what).
 */
#include "view_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "say.h"

/* Makes room for one more of *n elements of size sz in *p (capacity
 * *cap, doubled, `first` at first).  0 or -ENOMEM (*p unchanged). */
int hjc_view__grow(void *p, size_t *cap, size_t n, size_t sz, size_t first)
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

struct rinfo *hjc_view__round_of(const hjc_view *v, const hj_id *id)
{
	size_t i;
	return hj_map_get(&v->rmap, id->b, id->len, &i) ? NULL : &v->r[i];
}

struct pinfo *hjc_view__player_of(const hjc_view *v, const hj_id *id)
{
	size_t i;
	return hj_map_get(&v->pmap, id->b, id->len, &i) ? NULL : &v->p[i];
}

int hjc_view_new(const hjc_view_opts *o, hjc_view **out)
{
	hjc_view *v = calloc(1, sizeof *v);

	*out = NULL;
	if (!v)
		return -ENOMEM;
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
		return -ENOMEM;
	}
	*out = v;
	return 0;
}

void hjc_view__hist_clear(hjc_view *v)
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
void hjc_view__unload(hjc_view *v)
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
	hjc_view__hist_clear(v);
	v->have_height = 0;
	v->live = 0;
}

void hjc_view_free(hjc_view *v)
{
	if (!v)
		return;
	hjc_view__unload(v);
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
	char why[HJ_ERRLEN];
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
	char why[HJ_ERRLEN];
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

/* ---- rounds and players ---- */

int hjc_view__add_round(hjc_view *v, const hj_id *id, const hj_id *player,
                        uint64_t bet)
{
	if (hjc_view__round_of(v, id))
		return 0;
	if (hjc_view__grow(&v->r, &v->rcap, v->nr, sizeof *v->r, 64))
		return -ENOMEM;
	struct rinfo *ri = &v->r[v->nr];
	memset(ri, 0, sizeof *ri);
	ri->id = *id;
	ri->player = *player;
	ri->bet = bet;
	if (hj_map_put(&v->rmap, id->b, id->len, v->nr))
		return -ENOMEM;
	v->nr++;
	struct pinfo *p = hjc_view__player_of(v, player);
	if (!p) {
		if (hjc_view__grow(&v->p, &v->pcap, v->np, sizeof *v->p, 64))
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
	if (hjc_view__grow(&p->r, &p->cap, p->n, sizeof *p->r, 4))
		return -ENOMEM;
	p->r[p->n++] = v->nr - 1;
	return 0;
}

/* Keeps the settled state txt (taken) of round i, letting go of the
 * oldest kept one beyond SETTLED_KEPT. */
void hjc_view__keep_settled(hjc_view *v, size_t i, char *txt)
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
