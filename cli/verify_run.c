/* `hashjack verify`: the node's blocks, fetched by chain/driver, dealt
 * through the dealer's per-block step against the log's lines, and the
 * report (verify_state.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "deal.h"
#include "hex.h"
#include "node.h"
#include "say.h"
#include "verify_state.h"

static void next_lines(struct run *r);
static void api_connect(struct run *r);

static void finish(struct run *r, int rc)
{
	if (r->done)
		return;
	r->done = 1;
	hjc_tool_progress_end();
	r->rc = rc;
	if (r->handles) {
		uv_close((uv_handle_t *)&r->timer, NULL);
		if (r->follow) {
			uv_close((uv_handle_t *)&r->sigint, NULL);
			uv_close((uv_handle_t *)&r->sigterm, NULL);
		}
		if (r->stream)
			uv_close((uv_handle_t *)&r->api.again, NULL);
		r->handles = 0;
	}
	if (r->stream)
		hjc_logsrc_disconnect(r->src); /* its closed() comes later */
	hjc_tool_node_close(&r->node);
}

/* A difference at block h: what differs, then both lines (either may be
 * NULL).  It ends the run, except under --follow, where it is a line of
 * its own and the run goes on (r->done says which). */
static void differ(struct run *r, uint64_t h, const char *what,
                   const char *theirs, size_t tn, const char *ours, size_t on)
{
	hjc_verify__failure(r, "block %llu: %s", (unsigned long long)h, what);
	if (r->follow)
		return;
	if (theirs)
		printf("  dealer: %.*s\n", (int)tn, theirs);
	if (ours)
		printf("  node:   %.*s\n", (int)on, ours);
	if (!r->cfg->start_height_set && r->started &&
	    hjc_verify__unknown_round(theirs, tn, ours, on))
		printf("  (the log's first line, block %llu, was taken for the "
		       "dealer's first block: if the dealer began before it, "
		       "give [chain] start_height)\n",
		       (unsigned long long)r->first);
	if (!r->cfg->start_height_set && r->started && r->first > 0 &&
	    hjc_verify__seed_unseen(theirs, tn, ours, on))
		printf("  (the log's first line, block %llu, was taken for the "
		       "dealer's first block: verify checks the seeds of a "
		       "chain whose Commit it has dealt; if that Commit is in "
		       "a block before the log, give [chain] start_height at "
		       "or before it, with a log from the chain's first "
		       "block)\n",
		       (unsigned long long)r->first);
	finish(r, 1);
}

static void say_other_chain(struct run *r, uint64_t h, const char *node,
                            const char *theirs)
{
	hjc_tool_progress_end();
	printf("block %llu: your node's block is %s, the log's %s: your node "
	       "follows another chain than the one this log was dealt from "
	       "(or the log is not of this chain); no line of the log was "
	       "checked (docs/VERIFY.md)\n",
	       (unsigned long long)h, node, theirs);
	finish(r, 2);
}

/*
 * The first line the log and the node are compared on (no line has
 * agreed yet) names a block the node does not have at that height: the
 * node follows another chain than the one the log was dealt from (an
 * anvil started again without its state is a new chain with the same
 * chain id), or the log is not of this chain.  Nothing can be said of the
 * dealer then: it ends the run with status 2, not 1.  Returns 1 when so.
 */
static int other_chain(struct run *r, const struct line *l, const char *ours,
                       size_t on)
{
	char *theirs = hjc_verify__line_field(l->text, l->len, "hash"),
	     *node = hjc_verify__line_field(ours, on, "hash");
	int other = theirs && node && strcmp(theirs, node) != 0;
	if (other)
		say_other_chain(r, l->height, node, theirs);
	free(theirs);
	free(node);
	return other;
}

/* ---- where the log leaves the node's chain (r->cand) ---- */

void hjc_verify__cand_clear(struct run *r)
{
	free(r->cand.hash);
	free(r->cand.text);
	free(r->cand.ours);
	memset(&r->cand, 0, sizeof r->cand);
}

static char *memdup0(const char *b, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, b, n);
		p[n] = 0;
	}
	return p;
}

/* Takes l as r->cand of that kind: 0, or -1 out of memory (finished). */
static int cand_take(struct run *r, int kind, const struct line *l, char *hash,
                     const char *other, const char *ours, size_t olen)
{
	hjc_verify__cand_clear(r);
	r->cand.hash = hash;
	r->cand.text = memdup0(l->text, l->len);
	r->cand.ours = ours ? memdup0(ours, olen) : NULL;
	if (!r->cand.text || (ours && !r->cand.ours)) {
		hjc_verify__cand_clear(r);
		say("out of memory");
		finish(r, EX_SOFTWARE);
		return -1;
	}
	r->cand.kind = kind;
	r->cand.height = l->height;
	r->cand.len = l->len;
	r->cand.olen = olen;
	snprintf(r->cand.other, sizeof r->cand.other, "%s", other);
	return 0;
}

static const char *span(char *buf, uint64_t a, uint64_t b);

/*
 * The candidate confirmed (the next line follows it, or it is the log's
 * last): the log leaves the node's chain after block h - 1, the fork
 * point.  A reorganisation took the log's blocks from h on off the chain
 * after the dealer dealt them (deeper than its confirmations, or than
 * the watcher's node had them); a file that `hashjack reorg --rewind`
 * kept aside ends this way.  Under --follow, a rewrite: the dealer
 * rewound, and what this run verified past the fork point was dealt on
 * blocks that left the chain.  Either way the lines after it cannot be
 * checked against what this run dealt: it ends with status 3.
 */
static void cand_fork(struct run *r)
{
	unsigned long long h = r->cand.height, p = h ? h - 1 : 0;
	char sp[64];
	hjc_tool_progress_end();
	if (r->cand.kind == CAND_REWRITE) {
		printf("block %llu: the log was cut and written again with "
		       "another block, %s, where %s was first read: the dealer "
		       "rewound after a reorganisation, whose fork point is "
		       "block %llu (docs/VERIFY.md, \"A log after a "
		       "reorganisation\"); the blocks this run verified from "
		       "there left the chain: run it again to verify the "
		       "log as it is now\n",
		       h, r->cand.hash, r->cand.other, p);
	} else {
		printf(
		    "block %llu: the log's block is %s, your node's %s, both "
		    "after block %llu: the log leaves your node's chain "
		    "there, the fork point; a reorganisation took the "
		    "log's blocks from %llu on off the chain "
		    "(docs/VERIFY.md, \"A log after a reorganisation\")\n",
		    h, r->cand.hash, r->cand.other, p, h);
		if (r->checked > 0 && r->failures == 0)
			printf(
			    "verified %s: every line agrees; the lines after "
			    "block %llu are not checked: their blocks are "
			    "not your node's\n",
			    span(sp, r->first, r->first + r->checked - 1), p);
		else if (r->checked == 0 && r->failures == 0)
			printf("no line verified: the log's first block is not "
			       "your node's\n");
	}
	hjc_verify__cand_clear(r);
	finish(r, 3);
}

static void differ(struct run *r, uint64_t h, const char *what,
                   const char *theirs, size_t tn, const char *ours, size_t on);

/*
 * Line l, the one after a candidate's or not, decides it: l's parent is
 * the candidate's hash (cand_fork, and 1), or the candidate was a line
 * that differs, said as such (1 when that ends the run, else 0, the
 * candidate forgotten).  0 when there is none.
 */
static int cand_decide(struct run *r, const struct line *l)
{
	char what[400];
	char *parent;
	int follows;
	if (!r->cand.kind)
		return 0;
	parent = hjc_verify__line_field(l->text, l->len, "parent");
	follows = l->height == r->cand.height + 1 && parent &&
	          strcmp(parent, r->cand.hash) == 0;
	free(parent);
	if (follows) {
		cand_fork(r);
		return 1;
	}
	if (r->cand.kind == CAND_REWRITE)
		snprintf(what, sizeof what,
		         "written again, differently from the line first "
		         "read for block %llu",
		         (unsigned long long)r->cand.height);
	else
		hjc_verify_describe(r->cand.text, r->cand.len, r->cand.ours,
		                    r->cand.olen, what, sizeof what);
	differ(r, r->cand.height, what, r->cand.text, r->cand.len, r->cand.ours,
	       r->cand.olen);
	hjc_verify__cand_clear(r);
	return r->done;
}

/*
 * Line l, dealt as ours, differs from the node's block b's line: is it a
 * candidate?  It is when its block is not b but both have one parent,
 * the node's block before.  1 when taken (the next line decides), 0 when
 * not, -1 when the run is finished.
 */
static int fork_candidate(struct run *r, const struct line *l,
                          const hj_chain_block *b, const char *ours,
                          size_t olen)
{
	int evm = r->node.be->ops->family == HJ_EVM, cand;
	char node[2 * 32 + 3], parent[2 * 32 + 3];
	char *theirs = hjc_verify__line_field(l->text, l->len, "hash"),
	     *tparent = hjc_verify__line_field(l->text, l->len, "parent");
	hj_hex_encode(b->hash, 32, evm, node);
	hj_hex_encode(b->parent, 32, evm, parent);
	cand = l->height > 0 && theirs && tparent &&
	       strcmp(theirs, node) != 0 && strcmp(tparent, parent) == 0;
	free(tparent);
	if (!cand) {
		free(theirs);
		return 0;
	}
	return cand_take(r, CAND_FORK, l, theirs, node, ours, olen) ? -1 : 1;
}

/*
 * Under --follow, the file cut and line l written again with another
 * block than the line first read (kept k): a candidate, the log rewound
 * after a reorganisation whose fork point is block h - 1 (`hashjack
 * reorg --rewind`).  1 when taken, 0 when not, -1 when the run is
 * finished.
 */
static int rewrite_candidate(struct run *r, const struct kept *k,
                             const struct line *l)
{
	char *first = hjc_verify__line_field(k->text, k->len, "hash"),
	     *now = hjc_verify__line_field(l->text, l->len, "hash");
	int cand = first && now && strcmp(first, now) != 0, rc = 0;
	if (cand)
		rc =
		    cand_take(r, CAND_REWRITE, l, now, first, NULL, 0) ? -1 : 1;
	else
		free(now);
	free(first);
	return rc;
}

/* The same, for a block that could not be dealt (no line of ours): the
 * node's block hash b against the line's. */
static int other_chain_block(struct run *r, const struct line *l,
                             const hj_chain_block *b)
{
	char node[2 * 32 + 3], *theirs;
	int other;
	if (r->checked != 0 || r->failures != 0)
		return 0;
	hj_hex_encode(b->hash, 32, r->node.be->ops->family == HJ_EVM, node);
	theirs = hjc_verify__line_field(l->text, l->len, "hash");
	other = theirs && strcmp(theirs, node) != 0;
	if (other)
		say_other_chain(r, l->height, node, theirs);
	free(theirs);
	return other;
}

/*
 * The seed source of verify's dealing step under committed cards: the
 * seed the dealer's line of the block reveals, checked against the chain
 * (hjc_verify_seed).  A seed that does not chain is still dealt with, so
 * that the rest of the line is compared as the dealer dealt it and
 * --follow goes on; what is wrong is said once the block is dealt.  A
 * line without a seed, or none at all, cannot be dealt.
 */
static int line_seed(void *ctx, const hj_commit *c, uint32_t i, uint64_t height,
                     uint8_t out[HJ_SEED_LEN], char *err, size_t n)
{
	struct run *r = ctx;
	const struct line *l = r->dealing;
	unsigned long long first = c->start, last = c->start + c->length - 1;
	if (!l || !l->text) {
		r->seed_rc = -ENODATA;
		if (height < r->first)
			hj_say(
			    err, n,
			    "block %llu: cards are committed, and its seed "
			    "(seed %u of the chain committed in block %llu, "
			    "blocks %llu to %llu) is in the dealer's log "
			    "alone, which begins at block %llu: verify "
			    "cannot deal the blocks before the log under "
			    "that chain; give a log that begins at or before "
			    "block %llu, or a [chain] start_height from "
			    "which no chain of seeds is in force before the "
			    "log",
			    (unsigned long long)height, (unsigned)i,
			    (unsigned long long)c->height, first, last,
			    (unsigned long long)r->first, first);
		else
			hj_say(
			    err, n,
			    "block %llu: cards are committed, and its seed "
			    "(seed %u of the chain committed in block %llu) "
			    "is in the dealer's log alone, which has no line "
			    "for it: verify cannot deal it",
			    (unsigned long long)height, (unsigned)i,
			    (unsigned long long)c->height);
		return -ENODATA;
	}
	r->seed_rc = hjc_verify_seed(&r->reveal, l->text, l->len, c, i, height,
	                             out, r->seed_what, sizeof r->seed_what);
	if (r->seed_rc == -EINVAL)
		return 0;
	if (r->seed_rc)
		hj_say(err, n, "%s", r->seed_what);
	return r->seed_rc;
}

/* On a terminal, one line rewritten after each batch: "verify: block H,
 * N blocks, R blocks/s, P %, about S s left", or under --follow "verify:
 * following: block H verified, F failures". */
static void progress(struct run *r)
{
	if (!hjc_tool_progress_on() || !r->last)
		return;
	double secs = (double)(uv_hrtime() - r->t0) / 1e9;
	double done = (double)(r->checked + r->unchecked);
	long long pos = (long long)hjc_logsrc_offset(r->src);
	if (r->follow)
		hjc_tool_progress("verify: following: block %llu verified, "
		                  "%llu failure%s",
		                  (unsigned long long)r->last,
		                  (unsigned long long)r->failures,
		                  r->failures == 1 ? "" : "s");
	else if (r->size > 0 && pos > 0 && pos <= r->size && secs > 0)
		hjc_tool_progress(
		    "verify: block %llu, %.0f blocks, %.0f blocks/s, %.0f %%, "
		    "about %.0f s left",
		    (unsigned long long)r->last, done, done / secs,
		    100.0 * (double)pos / (double)r->size,
		    secs * (double)(r->size - pos) / (double)pos);
	else
		hjc_tool_progress("verify: block %llu, %.0f blocks, %.0f "
		                  "blocks/s",
		                  (unsigned long long)r->last, done,
		                  secs > 0 ? done / secs : 0);
}

/* Under --follow, tries again in interval_ms (the end of the log, the
 * node's tip, or a node error). */
static void wait_then(struct run *r, uv_timer_cb cb)
{
	uv_timer_start(&r->timer, cb, r->interval_ms, 0);
}

/* Deals blocks[0..n), the next heights, and checks their lines: 0, or -1
 * when the run is finished. */
static int deal(struct run *r, const hj_chain_block *blocks, size_t n)
{
	char err[HJ_ERRLEN], what[400];
	for (size_t i = 0; i < n && !r->done; i++) {
		const struct line *l = &r->pending[blocks[i].height % PENDING];
		const char *line;
		size_t len;
		r->waiting--;
		/* A line after a candidate decides it. */
		if (l->text && r->cand.kind == CAND_FORK && cand_decide(r, l))
			return -1;
		r->dealing = l;
		r->seed_rc = 0;
		if (hj_deal_block(r->t, &r->cl, r->node.be->ops->chain,
		                  r->node.be->ops->family, &r->seeds,
		                  &blocks[i], NULL, NULL, &line, &len, err,
		                  sizeof err) != 0) {
			if (r->seed_rc == -ENODATA) {
				say("%s", err);
				finish(r, EX_DATAERR);
			} else if (r->seed_rc) {
				/* The dealer's line has no seed to deal
				 * with: a difference, after which nothing
				 * can be dealt, --follow or not. */
				if (other_chain_block(r, l, &blocks[i]))
					return -1;
				differ(r, l->height, r->seed_what, l->text,
				       l->len, NULL, 0);
				if (!r->done) {
					say("block %llu cannot be dealt "
					    "without its seed: the run ends "
					    "here",
					    (unsigned long long)l->height);
					finish(r, 1);
				}
			} else {
				say("dealing block %llu: %s",
				    (unsigned long long)blocks[i].height, err);
				finish(r, EX_SOFTWARE);
			}
			return -1;
		}
		if (r->pay &&
		    hjc_vpay_line(r->pay, line, len - 1, err, sizeof err)) {
			say("payouts: block %llu: %s",
			    (unsigned long long)l->height, err);
			finish(r, EX_SOFTWARE);
			return -1;
		}
		len--; /* the "\n" */
		r->last = l->height;
		if (!l->text) {
			r->unchecked++;
			continue;
		}
		if (r->seed_rc) { /* a seed that does not chain */
			if (r->checked == 0 && r->failures == 0 &&
			    other_chain(r, l, line, len))
				return -1;
			/* Ours was dealt with the dealer's seed: the
			 * dealer's line alone is shown. */
			differ(r, l->height, r->seed_what, l->text, l->len,
			       NULL, 0);
			continue;
		}
		if (len != l->len || memcmp(line, l->text, len) != 0) {
			int c = fork_candidate(r, l, &blocks[i], line, len);
			if (c < 0)
				return -1;
			if (c)
				continue; /* the next line decides */
			if (r->checked == 0 && r->failures == 0 &&
			    other_chain(r, l, line, len))
				return -1;
			hjc_verify_describe(l->text, l->len, line, len, what,
			                    sizeof what);
			differ(r, l->height, what, l->text, l->len, line, len);
		} else {
			r->checked++;
		}
	}
	return r->done ? -1 : 0;
}

/* The driver's blocks, in height order: dealt against their lines, then
 * the next lines read. */
static void on_blocks(void *arg, hj_chain_block *blocks, size_t n)
{
	struct run *r = arg;
	if (r->done || deal(r, blocks, n))
		return;
	progress(r);
	next_lines(r);
}

/* A request the node failed: without --follow the client has already
 * tried it again up to its budget (8 attempts or 60 s) and the driver
 * gives up (delay_ms 0); under --follow it is asked again after
 * --interval. */
static void on_failed(void *arg, uint64_t from, size_t n, const char *error,
                      unsigned delay_ms)
{
	struct run *r = arg;
	(void)n;
	if (r->done)
		return;
	if (error)
		say("node: %s", error);
	else
		say("node: no block from %llu on, though its tip is %llu",
		    (unsigned long long)from, (unsigned long long)r->tip);
	if (!delay_ms)
		finish(r, EX_UNAVAILABLE);
}

static void on_fatal(void *arg, int err)
{
	(void)err;
	say("out of memory");
	finish(arg, EX_SOFTWARE);
}

/* "block A" or "blocks A to B", into buf (64 bytes). */
static const char *span(char *buf, uint64_t a, uint64_t b)
{
	if (a == b)
		snprintf(buf, 64, "block %llu", (unsigned long long)a);
	else
		snprintf(buf, 64, "blocks %llu to %llu", (unsigned long long)a,
		         (unsigned long long)b);
	return buf;
}

/* --payouts' end: a recipient short makes it 1. */
static void on_paid(void *arg, int rc)
{
	struct run *r = arg;
	finish(r, rc == 0 ? r->rc : rc);
}

static void report_end(struct run *r);

/* The log's first line beyond the node's tip: the node's block before it
 * (blocks[0]) against the line's parent. */
static void on_parent(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct run *r = arg;
	uint8_t parent[32];
	char why[HJ_ERRLEN], node[67], *theirs;
	if (r->done)
		return;
	r->parent_asked = 3; /* unknown */
	if (error)
		say("node: %s", error);
	theirs = hjc_verify__line_field(r->ahead.text, r->ahead.len, "parent");
	if (!error && n > 0 && blocks[0].height + 1 == r->ahead.height &&
	    theirs &&
	    hj_hex_decode_exact(theirs, strlen(theirs), HJ_HEX_OPTIONAL, parent,
	                        sizeof parent, why, sizeof why) == 0) {
		if (memcmp(parent, blocks[0].hash, sizeof parent) != 0) {
			hj_hex_encode(blocks[0].hash, 32,
			              strncmp(theirs, "0x", 2) == 0, node);
			say_other_chain(r, blocks[0].height, node, theirs);
			free(theirs);
			return;
		}
		r->parent_asked = 2; /* the same */
	}
	free(theirs);
	report_end(r);
}

static void report_end(struct run *r)
{
	/* With --json, standard output is the payouts report alone. */
	FILE *out = r->json ? stderr : stdout;
	char before[200] = "";
	hjc_tool_progress_end();
	if (r->cand.kind) { /* the log's last line: nothing contradicts it */
		cand_fork(r);
		return;
	}
	if (!r->started) {
		say("%s: no line", r->name);
		finish(r, 1);
		return;
	}
	if (r->checked == 0 && r->have_ahead && !r->follow) {
		/* Not one line is the node's yet: its tip is below the log's
		 * first block.  The block before that one says whether the
		 * node is behind on the log's chain or on another chain. */
		if (r->parent_asked == 0 && r->ahead.height > 0 &&
		    r->ahead.height - 1 <= r->tip) {
			r->parent_asked = 1;
			if (r->node.be->ops->blocks(r->node.be,
			                            r->ahead.height - 1, 1,
			                            on_parent, r)) {
				say("out of memory");
				finish(r, EX_SOFTWARE);
			}
			return;
		}
		fprintf(
		    out,
		    "no line verified: the log begins at block %llu, beyond "
		    "your node's tip (%llu): not checked yet%s\n",
		    (unsigned long long)r->ahead.height,
		    (unsigned long long)r->tip,
		    r->parent_asked == 2 ? "; your node's block before it is "
		                           "the log's parent"
		                         : "");
		finish(r, EX_TEMPFAIL);
		return;
	}
	char sp[64];
	if (r->warmup)
		snprintf(before, sizeof before,
		         " (%s before it dealt from the node, unchecked)",
		         span(sp, r->first - r->warmup, r->first - 1));
	fprintf(out, "verified blocks %llu to %llu: every line agrees%s",
	        (unsigned long long)r->first,
	        (unsigned long long)(r->first + r->checked - 1), before);
	if (r->have_ahead)
		fprintf(out,
		        "; the log goes on past the node's tip (%llu): not "
		        "checked yet\n",
		        (unsigned long long)r->tip);
	else
		fputc('\n', out);
	r->rc = r->have_ahead ? EX_TEMPFAIL : EX_OK;
	if (!r->pay) {
		finish(r, r->rc);
		return;
	}
	fflush(out);
	hjc_vpay_opts o = {.confirmations = r->cfg->confirmations,
	                   .finality = r->cfg->finality,
	                   .grace = r->grace,
	                   .batch = r->batch,
	                   .json = r->json,
	                   .out = stdout};
	if (hjc_vpay_end(r->pay, r->node.be, &o, on_paid, r)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* The first line: where the log begins.  With [chain] start_height
 * before it, the blocks from there are dealt from the node first (their
 * lines are not the log's to check, but the rounds open at its first line
 * come from them). */
static void begin(struct run *r, const struct line *l)
{
	r->started = 1;
	r->first = r->next = l->height;
	if (r->cfg->start_height_set && l->height > r->cfg->start_height) {
		r->fill = r->next = r->cfg->start_height;
		r->fill_end = l->height;
		r->warmup = l->height - r->cfg->start_height;
		char sp[64];
		say("%s begins at block %llu, after the dealer's first "
		    "([chain] start_height = %llu): dealing %s from the node "
		    "first, for the rounds open at its first line",
		    r->name, (unsigned long long)l->height,
		    (unsigned long long)r->cfg->start_height,
		    span(sp, r->cfg->start_height, l->height - 1));
	} else if (r->cfg->start_height_set &&
	           l->height < r->cfg->start_height) {
		say("%s begins at block %llu, before the dealer's first "
		    "([chain] start_height = %llu)",
		    r->name, (unsigned long long)l->height,
		    (unsigned long long)r->cfg->start_height);
		finish(r, EX_DATAERR);
	}
}

/* A line whose height is not the next one's: a line again (after the log
 * was cut, the same bytes are expected and passed over), or lines
 * missing.  Returns 1 when l is to be taken as the next line, 0 when it
 * was passed over, -1 when the run is finished. */
static int out_of_order(struct run *r, struct line *l)
{
	char what[200];
	if (l->height < r->next) {
		const struct kept *k = hjc_verify__kept(r, l->height);
		int same = k && k->len == l->len &&
		           memcmp(k->text, l->text, l->len) == 0;
		int c = r->again && k && !same ? rewrite_candidate(r, k, l) : 0;
		if (c < 0) {
			free(l->text);
			return -1;
		}
		if (!(r->again && same) && !c) {
			snprintf(what, sizeof what,
			         r->again && k
			             ? "written again, differently from the "
			               "line first read for block %llu"
			             : "a line again: block %llu after block "
			               "%llu",
			         (unsigned long long)l->height,
			         (unsigned long long)(r->next - 1));
			differ(r, l->height, what, l->text, l->len, NULL, 0);
		}
		if (r->done) {
			free(l->text);
			return -1;
		}
		/* --follow: the file's bytes from here, to see them changed
		 * again. */
		hjc_verify__keep(r, l->text, l->len, l->height);
		return 0;
	}
	snprintf(what, sizeof what,
	         "missing: the next line is block %llu, after block %llu",
	         (unsigned long long)l->height,
	         (unsigned long long)(r->next - 1));
	differ(r, r->next, what, l->text, l->len, NULL, 0);
	if (r->done) {
		free(l->text);
		return -1;
	}
	/* --follow: the missing blocks are dealt without lines. */
	r->fill = r->next;
	r->fill_end = l->height;
	r->ahead = *l;
	r->have_ahead = 1;
	return 0;
}

static void on_wait(uv_timer_t *t)
{
	struct run *r = t->data;
	r->idle = 0;
	next_lines(r);
}

/* Lines came while waiting for some: on at once. */
static void kick(struct run *r)
{
	if (!r->idle || r->done)
		return;
	uv_timer_stop(&r->timer);
	r->idle = 0;
	next_lines(r);
}

/* ---- the dealer's API's stream (--card-log ws://... or http://...) ---- */

/* More than a block's BlockUpdate can be (its line is at most
 * LINE_LIMIT); more than STREAM_BEHIND bytes of lines waiting: the node
 * is far slower than the stream. */
#define STREAM_MESSAGE (LINE_LIMIT + 256)
#define STREAM_BEHIND  (256u << 20)

static void on_api_again(uv_timer_t *t)
{
	api_connect(t->data);
}

/* A message of the stream: the API's Error, said. */
static void on_api_error(void *arg, const char *text)
{
	struct run *r = arg;
	if (!r->done)
		say("the dealer's API: %s", text ? text : "an error");
}

/* A BlockUpdate: its line is the log's line byte for byte (docs/API.md),
 * read from src as a file's would be. */
static void on_api_line(void *arg, uint64_t height)
{
	struct run *r = arg;
	if (r->done)
		return;
	r->api.last = height;
	r->api.got = 1;
	r->api.errors = 0;
	if (!r->follow && height >= r->api.end && !r->api.ended) {
		r->api.ended = 1; /* every block the API had at the start */
		hjc_logsrc_disconnect(r->src);
	}
	kick(r);
}

static void on_api_closed(void *arg, int rc, const char *why)
{
	struct run *r = arg;
	unsigned long long oldest;
	const char *p = why ? strstr(why, "the oldest kept is ") : NULL;
	if (r->done)
		return;
	if (rc < 0) { /* the stream is not serve's, or too far ahead */
		say("%s", why);
		finish(r, rc == -EBADMSG ? EX_DATAERR : EX_SOFTWARE);
		return;
	}
	if (r->api.ended) {
		kick(r);
		return;
	}
	/* Blocks from the dealer's first are no longer kept: from the
	 * oldest kept on, the ones before dealt from the node. */
	if (p && !r->api.got && sscanf(p + 19, "%llu", &oldest) == 1 &&
	    oldest > r->api.from + 1) {
		say("the dealer's API keeps blocks from %llu on: the blocks "
		    "before are dealt from the node, unchecked",
		    oldest);
		r->api.from = oldest - 1;
		api_connect(r);
		return;
	}
	say("%s; connecting again in %u ms", why ? why : "the stream ended",
	    r->interval_ms);
	if (!r->follow && ++r->api.errors >= 5) {
		say("%s: five connections failed in a row", r->api.url);
		finish(r, EX_IOERR);
		return;
	}
	if (r->api.got)
		r->api.from = r->api.last; /* misses nothing (docs/API.md) */
	uv_timer_start(&r->api.again, on_api_again, r->interval_ms, 0);
}

static void api_connect(struct run *r)
{
	char err[HJ_ERRLEN];
	if (hjc_logsrc_connect(r->src, r->api.from, err, sizeof err)) {
		say("%s", err);
		finish(r, EX_USAGE);
	}
}

int hjc_verify__stream_open(struct run *r, char *err, size_t n)
{
	hjc_logsrc_opts so = {.max_line = LINE_READ,
	                      .max_message = STREAM_MESSAGE,
	                      .max_held = STREAM_BEHIND};
	hjc_logsrc_cbs cbs = {on_api_line, on_api_error, on_api_closed};
	return hjc_logsrc_stream(&r->loop, r->api.url, &so, &cbs, r, &r->src,
	                         err, n)
	           ? -1
	           : 0;
}

static void on_wait_tip(uv_timer_t *t)
{
	struct run *r = t->data;
	if (hj_driver_ask_tip(r->node.drv)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* A line, or a block to deal without one, waits for its block: the next
 * height. */
static void wait_for_block(struct run *r, struct line l)
{
	r->pending[l.height % PENDING] = l;
	r->next = l.height + 1;
	r->waiting++;
}

static void next_lines(struct run *r)
{
	struct line l;
	int beyond = 0;
	while (!r->done && r->waiting < QUEUE_MAX * r->batch) {
		if (r->fill < r->fill_end) {
			if (r->fill > r->tip) {
				beyond = 1;
				break;
			}
			wait_for_block(r, (struct line){NULL, 0, r->fill++});
			continue;
		}
		int got = hjc_verify__read_line(r, &l);
		if (got < 0)
			finish(r, r->stop_rc);
		if (got <= 0)
			break;
		if (!r->started) {
			begin(r, &l);
			if (r->done) {
				free(l.text);
				break;
			}
			r->ahead = l;
			r->have_ahead = 1;
			if (hj_driver_start(r->node.drv, r->next, r->next)) {
				say("out of memory");
				finish(r, EX_SOFTWARE);
			}
			continue;
		}
		if (r->cand.kind == CAND_REWRITE && cand_decide(r, &l)) {
			free(l.text);
			break;
		}
		if (l.height != r->next) {
			if (r->waiting) {
				/* Said once the blocks before it are dealt. */
				r->ahead = l;
				r->have_ahead = 1;
				break;
			}
			got = out_of_order(r, &l);
			if (got < 0)
				break;
			if (got == 0)
				continue;
		}
		if (l.height > r->tip) {
			/* kept: the node has no such block yet */
			r->ahead = l;
			r->have_ahead = 1;
			beyond = 1;
			break;
		}
		r->again = r->stream; /* the API sends a block again after a
		                         dealer's restart */
		hjc_verify__keep(r, l.text, l.len, l.height);
		wait_for_block(r, l);
	}
	if (r->done)
		return;
	if (r->waiting) {
		hj_driver_want(r->node.drv, r->next);
		return;
	}
	if (beyond && r->follow)
		wait_then(r, on_wait_tip);
	else if (!r->follow && (beyond || !r->stream || r->api.ended))
		report_end(r);
	else {
		r->idle = 1; /* a message of the stream ends it at once */
		wait_then(r, on_wait);
	}
}

/* The node's tip, as the driver asked it. */
static void on_tip(void *arg, const hj_driver_tip *t, const char *error)
{
	struct run *r = arg;
	if (r->done)
		return;
	if (error) {
		say("node: %s", error);
		if (r->follow)
			wait_then(r, on_wait_tip);
		else
			finish(r, EX_UNAVAILABLE);
		return;
	}
	r->tip = t->tip;
	next_lines(r);
}

static void on_identity(void *arg, const char *identity, const char *error,
                        int permanent)
{
	struct run *r = arg;
	(void)permanent;
	if (error) {
		say("node: %s", error);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	if (r->chain[0] && strcmp(identity, r->chain) != 0) {
		say("node: it is on %s, the dealer's table on %s", identity,
		    r->chain);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	if (r->node.be->ops->attach)
		r->node.be->ops->attach(r->node.be, r->t);
	if (hj_driver_ask_tip(r->node.drv)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* --follow ends on SIGINT or SIGTERM: 0 when no line failed, else 1. */
static void on_signal(uv_signal_t *h, int signum)
{
	struct run *r = h->data;
	(void)signum;
	hjc_tool_progress_end();
	if (r->checked)
		printf("verified blocks %llu to %llu, %llu failure%s\n",
		       (unsigned long long)r->first,
		       (unsigned long long)r->last,
		       (unsigned long long)r->failures,
		       r->failures == 1 ? "" : "s");
	finish(r, r->failures ? 1 : EX_OK);
}

int hjc_verify__run(struct run *r)
{
	char err[HJ_ERRLEN] = "out of memory";
	r->size = hjc_logsrc_size(r->src);
	r->t0 = uv_hrtime();
	r->seeds = (hj_seed_source){line_seed, r};
	if (hj_table_new(&r->cfg->rules, &r->t) != 0 ||
	    uv_loop_init(&r->loop) != 0)
		return hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	uv_timer_init(&r->loop, &r->timer);
	r->timer.data = r;
	if (r->follow) {
		uv_signal_init(&r->loop, &r->sigint);
		uv_signal_init(&r->loop, &r->sigterm);
		r->sigint.data = r->sigterm.data = r;
		uv_signal_start(&r->sigint, on_signal, SIGINT);
		uv_signal_start(&r->sigterm, on_signal, SIGTERM);
	}
	r->handles = 1;
	if (r->stream) {
		uv_timer_init(&r->loop, &r->api.again);
		r->api.again.data = r;
		signal(SIGPIPE, SIG_IGN); /* a closed socket is an error */
	}
	r->batch =
	    r->cfg->batch_blocks < BATCH_MAX ? r->cfg->batch_blocks : BATCH_MAX;
	if (!r->batch)
		r->batch = 1;
	/* Up to the node's tip, as far as the lines read go.  A failed
	 * batch: under --follow asked again every --interval (the client
	 * has no budget then); else the end of the run (the client tried
	 * it within its budget first). */
	hj_driver_opts d = {.upto_tip = 1,
	                    .batch = r->batch,
	                    .depth = DEPTH,
	                    .hold = QUEUE_MAX,
	                    .retry_min_ms = r->follow ? r->interval_ms : 0,
	                    .retry_max_ms = r->follow ? r->interval_ms : 0,
	                    .blocks = on_blocks,
	                    .failed = on_failed,
	                    .tip = on_tip,
	                    .fatal = on_fatal,
	                    .arg = r};
	if (hjc_tool_node_open(&r->node, CMD, &r->loop, r->cfg, r->follow, 0,
	                       &d, err, sizeof err) ||
	    r->node.be->ops->identity(r->node.be, on_identity, r))
		finish(r, hjc_tool_fail(CMD, EX_CONFIG, "%s", err));
	else if (r->stream && !r->api.ended)
		api_connect(r);

	uv_run(&r->loop, UV_RUN_DEFAULT);
	uv_loop_close(&r->loop);
	return r->rc;
}
