/* hashjackd's committed cards (see committer.h). */
#include "committer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hex.h"
#include "log.h"
#include "say.h"
#include "seedchain.h"

#define OPEN_MAX 4 /* chains kept open: in force, scheduled, one more */

struct hjd_committer {
	const hj_config *cfg;
	hj_store *store;
	hj_seed_source src;
	hjd_seedchain *open[OPEN_MAX];
	size_t nopen, next_evict;
	/* The planned chain (have_planned): read from the store once, then
	 * kept as the committer changes it (only it plans and ends chains;
	 * a failed write stops the daemon). */
	int loaded;
	int have_planned;
	hj_store_seed_chain planned;
};

int hjd_committer_new(const hj_config *cfg, hj_store *store,
                      hjd_committer **out)
{
	hjd_committer *c = calloc(1, sizeof *c);

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->store = store;
	*out = c;
	return 0;
}

void hjd_committer_free(hjd_committer *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nopen; i++)
		hjd_seedchain_free(c->open[i]);
	free(c);
}

/* ---- revealing ---- */

static int reveal(void *ctx, const hj_commit *cm, uint32_t i, uint64_t height,
                  uint8_t out[HJ_SEED_LEN], char *err, size_t errlen)
{
	hjd_committer *c = ctx;
	hjd_seedchain *sc = NULL;
	char why[HJ_ERRLEN], hex[65];
	int rc;

	for (size_t k = 0; k < c->nopen; k++)
		if (memcmp(hjd_seedchain_commitment(c->open[k]), cm->commitment,
		           HJ_SEED_LEN) == 0 &&
		    hjd_seedchain_length(c->open[k]) == cm->length)
			sc = c->open[k];
	if (!sc) {
		rc = hjd_seedchain_open(c->cfg->state_dir, cm->commitment,
		                        cm->length, &sc, why, sizeof why);
		if (rc) {
			hj_hex_encode(cm->commitment, HJ_SEED_LEN, 0, hex);
			hj_say(err, errlen,
			       "block %" PRIu64 ": the seed chain in force "
			       "(commitment %s, Commit in block %" PRIu64
			       ") cannot be revealed: %s",
			       height, hex, cm->height, why);
			return rc;
		}
		if (c->nopen < OPEN_MAX) {
			c->open[c->nopen++] = sc;
		} else {
			hjd_seedchain_free(c->open[c->next_evict]);
			c->open[c->next_evict] = sc;
			c->next_evict = (c->next_evict + 1) % OPEN_MAX;
		}
	}
	if (hjd_seedchain_reveal(sc, i, out)) {
		hj_say(err, errlen, "block %" PRIu64 ": no seed %" PRIu32,
		       height, i);
		return -EINVAL;
	}
	return 0;
}

const hj_seed_source *hjd_committer_source(hjd_committer *c)
{
	c->src.seed = reveal;
	c->src.ctx = c;
	return &c->src;
}

/* ---- planning ---- */

static int find_planned(void *arg, const hj_store_seed_chain *r)
{
	hjd_committer *c = arg;

	if (strcmp(r->state, "planned") == 0) {
		c->planned = *r;
		c->have_planned = 1;
	}
	return 0;
}

static int read_planned(hjd_committer *c, char *err, size_t errlen)
{
	int rc;

	if (c->loaded)
		return 0;
	c->have_planned = 0;
	rc = hj_store_each_seed_chain(c->store, find_planned, c, err, errlen);
	c->loaded = rc == 0;
	return rc;
}

int hjd_committer_dealt(hjd_committer *c, const hj_commit *commit, char *err,
                        size_t errlen)
{
	int rc = hj_store_seed_chain_end(c->store, commit->commitment, "dealt",
	                                 err, errlen);

	if (rc == 0 && c->have_planned &&
	    memcmp(c->planned.commitment, commit->commitment, 32) == 0)
		c->have_planned = 0;
	return rc;
}

/* Seeds of t's chains for blocks from next on: the one in force and every
 * scheduled one; *scheduled says whether one starts after next. */
static uint64_t seeds_left(const hj_table *t, uint64_t next, int *in_force,
                           int *scheduled)
{
	const hj_commit *now = hj_table_commit_at(t, next), *k;
	uint64_t left = 0;

	*in_force = now && hj_commit_index(now, next) != 0;
	*scheduled = 0;
	if (*in_force)
		left = now->start + now->length - next;
	for (size_t i = 0; (k = hj_table_commit(t, i)) != NULL; i++)
		if (k->start > next) {
			*scheduled = 1;
			left += k->length;
		}
	return left;
}

int hjd_committer_plan(hjd_committer *c, const hj_table *t, uint64_t next,
                       uint64_t tip, char *err, size_t errlen)
{
	const hj_commit *now;
	hj_store_seed_chain r = {0};
	int in_force, scheduled, rc;
	uint64_t left, start;
	char hex[65];

	if (hj_table_rules(t)->cards != HJ_CARDS_COMMITTED)
		return 0;
	rc = read_planned(c, err, errlen);
	if (rc)
		return rc;
	if (c->have_planned && next >= c->planned.start) {
		/* Its first block came and its Commit was not dealt before
		 * it: never used. */
		rc = hj_store_seed_chain_end(c->store, c->planned.commitment,
		                             "late", err, errlen);
		if (rc)
			return rc;
		hj_hex_encode(c->planned.commitment, 32, 0, hex);
		hjd_log(HJD_LOG_WARNING,
		        "committed cards: the Commit of seed chain %s (first "
		        "block %" PRIu64 ") was not dealt before that block; "
		        "a new chain replaces it",
		        hex, c->planned.start);
		c->have_planned = 0;
	}
	if (c->have_planned)
		return 0;
	left = seeds_left(t, next, &in_force, &scheduled);
	now = hj_table_commit_at(t, next);
	if (scheduled)
		return 0;
	if (!in_force)
		start = (tip > next ? tip : next) + c->cfg->seeds.lead;
	else if (left <= c->cfg->seeds.renew_before)
		start = now->start + now->length;
	else
		return 0;
	rc = hjd_seedchain_create(c->cfg->state_dir, c->cfg->seeds.length,
	                          r.commitment, err, errlen);
	if (rc)
		return rc;
	r.start = start;
	r.length = c->cfg->seeds.length;
	r.created_height = next ? next - 1 : 0;
	r.created_at = (int64_t)time(NULL);
	rc = hj_store_add_seed_chain(c->store, &r, &r.id, err, errlen);
	if (rc)
		return rc;
	snprintf(r.state, sizeof r.state, "planned");
	c->planned = r;
	c->have_planned = 1;
	hj_hex_encode(r.commitment, 32, 0, hex);
	hjd_log(HJD_LOG_NOTICE,
	        "committed cards: new seed chain %s, %" PRIu32
	        " seeds from block %" PRIu64 "; its Commit is to be sent",
	        hex, r.length, r.start);
	return 0;
}

void hjd_committer_health(const hjd_committer *c, const hj_table *t,
                          uint64_t next, hjd_seeds_health *out)
{
	int scheduled;

	memset(out, 0, sizeof *out);
	out->seeds_left = seeds_left(t, next, &out->in_force, &scheduled);
	out->planned = c->have_planned;
	out->planned_start = c->have_planned ? c->planned.start : 0;
}
