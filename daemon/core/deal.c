/* Dealing one block (see deal.h). */
#include "deal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "card.h"
#include "hex.h"
#include "say.h"

/* The card log first, then the caller's sink. */
struct fan {
	hj_cardlog *cl;
	hj_sink sink;
	void *ctx;
};

static void fan_out(void *arg, const hj_event *ev)
{
	struct fan *f = arg;

	hj_cardlog_event(f->cl, ev);
	if (f->sink)
		f->sink(f->ctx, ev);
}

/* The keyed card of block b (docs/PROTOCOL.md section 15): *seeded is set
 * when a chain is in force, with its seed in seed. */
static int keyed_card(const hj_table *t, const hj_seed_source *seeds,
                      const hj_chain_block *b, hj_card *card, int *seeded,
                      uint8_t seed[HJ_SEED_LEN], char *err, size_t errlen)
{
	const hj_commit *c = hj_table_commit_at(t, b->height);
	uint32_t i = c ? hj_commit_index(c, b->height) : 0;
	char hmac[65];
	int rc;

	*seeded = 0;
	*card = (hj_card){0};
	if (i == 0)
		return 0; /* no seed applies: void */
	if (!seeds) {
		hj_say(err, errlen,
		       "block %" PRIu64 ": cards are committed but no seed "
		       "source was given",
		       b->height);
		return -EINVAL;
	}
	rc = seeds->seed(seeds->ctx, c, i, b->height, seed, err, errlen);
	if (rc)
		return rc;
	hj_seed_card(seed, b->hash, hmac, card);
	*seeded = 1;
	return 0;
}

int hj_deal_block(hj_table *t, hj_cardlog *cl, const char *chain, hj_family fam,
                  const hj_seed_source *seeds, const hj_chain_block *b,
                  hj_sink sink, void *ctx, const char **line, size_t *len,
                  char *err, size_t errlen)
{
	struct fan f = {.cl = cl, .sink = sink, .ctx = ctx};
	char hex[2 * 32 + 3];
	uint8_t seed[HJ_SEED_LEN];
	int seeded = 0;
	hj_card card;
	uint64_t last = 0;
	int rc;

	if (hj_table_rules(t)->cards == HJ_CARDS_COMMITTED) {
		rc = keyed_card(t, seeds, b, &card, &seeded, seed, err, errlen);
		if (rc)
			return rc;
	} else {
		hj_hex_encode(b->hash, 32, 0, hex);
		rc = hj_card_from_hash(hex, 64, &card, NULL, 0);
		if (rc) {
			hj_say(err, errlen, "block %" PRIu64 ": no card: %d",
			       b->height, rc);
			return rc;
		}
	}
	rc = hj_cardlog_begin(cl, chain, fam, b->height, b->hash, b->parent,
	                      seeded ? seed : NULL, &card);
	if (rc) {
		hj_say(err, errlen,
		       "block %" PRIu64 ": cannot start its "
		       "log line (%s)",
		       b->height,
		       rc == -EINVAL     ? "bad chain name or card"
		       : rc == -EMSGSIZE ? "line limit too small"
		                         : "out of memory");
		return rc;
	}
	rc = hj_table_apply_block(t, b->height, &card, b->txs, b->ntx, fan_out,
	                          &f);
	if (rc == -EINVAL) {
		if (hj_table_last_height(t, &last))
			hj_say(err, errlen,
			       "block %" PRIu64 " does not follow block "
			       "%" PRIu64,
			       b->height, last);
		else
			hj_say(err, errlen, "block %" PRIu64 " refused",
			       b->height);
		return rc;
	}
	if (rc) {
		hj_say(err, errlen, "block %" PRIu64 ": out of memory",
		       b->height);
		return rc;
	}
	rc = hj_cardlog_end(cl, line, len);
	if (rc == -EMSGSIZE)
		hj_say(err, errlen,
		       "block %" PRIu64 ": log line longer than %zu bytes",
		       b->height, cl->line.max);
	else if (rc == -ENOMEM)
		hj_say(err, errlen, "block %" PRIu64 ": out of memory",
		       b->height);
	else if (rc)
		hj_say(err, errlen,
		       "block %" PRIu64 ": an event could not be logged",
		       b->height);
	return rc;
}
