/* `hashjack verify`: a dealer's card log against one's own node (verify.h). */
#include "verify.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>
#include <uv.h>

#include "cardlog.h"
#include "config.h"
#include "deal.h"
#include "hex.h"
#include "logsrc.h"
#include "node.h"
#include "say.h"
#include "table.h"
#include "tool.h"
#include "verify_payouts.h"
#include "verify_table.h"

#define CMD "verify"
/* Blocks asked of the node at once. */
#define BATCH_MAX 100
/* Batches asked of the node at once (its client has 4 requests in flight
 * at most: two more wait in its queue, so that one goes out the moment an
 * answer is in, and the node works while the answer is parsed; a batch's
 * receipts wait for a place too), and batches held at once,
 * in flight or come ahead of their turn.  Blocks are dealt strictly in
 * height order; a line found wrong while reading ahead is said once the
 * blocks before it are dealt. */
#define DEPTH     6
#define QUEUE_MAX 8

static const char usage[] =
    "Usage: hashjack verify -c FILE [--card-log FILE|-|URL] [OPTION]...\n"
    "       hashjack verify --table URL|FILE --rpc URL [--rpc-cookie FILE]\n"
    "                       --card-log FILE|-|URL [OPTION]...\n"
    "\n"
    "Checks a dealer's block-to-card log against your own node: every\n"
    "block the log covers is fetched from the node and dealt through the\n"
    "dealer's own per-block step, and its line must be the log's, byte for\n"
    "byte.  The first difference is reported (the block, both lines, what\n"
    "differs) and ends the run.\n"
    "\n"
    "  -c, --config FILE     the dealer's table and your node, in\n"
    "                        hashjackd.conf's form: [chain] (family, coin,\n"
    "                        rpc_url and credentials, batch_blocks,\n"
    "                        start_height), [dealer] address, [rules]\n"
    "  --table URL|FILE      the dealer's table as its `hashjack serve`\n"
    "                        answers GET /v1/table (the API's base URL, or\n"
    "                        a saved copy): family, chain, dealer, rules,\n"
    "                        limits, confirmations; over -c's when both\n"
    "  --rpc URL             your node's JSON-RPC ([chain] rpc_url)\n"
    "  --rpc-cookie FILE     its cookie file ([chain] rpc_cookie_file)\n"
    "  --rpc-user NAME, --rpc-password PASSWORD\n"
    "                        its user and password (a password given here\n"
    "                        is visible to other users: prefer a cookie or\n"
    "                        -c FILE)\n"
    "  --card-log FILE|-|URL the dealer's card log (default with -c: [state]\n"
    "                        card_log); - reads standard input; URL, the\n"
    "                        dealer's `hashjack serve` (http://HOST:PORT\n"
    "                        or ws://HOST:PORT/v1/stream), reads its\n"
    "                        stream from [chain] start_height on (needed)\n"
    "  --follow              keep verifying as the file grows, is rotated\n"
    "                        (renamed for a new one) or is cut and written\n"
    "                        again (the dealer's restart), or as the API's\n"
    "                        stream goes on, until SIGINT or SIGTERM; each\n"
    "                        failure is one line on standard output and\n"
    "                        the run goes on\n"
    "  --interval MS         under --follow, how often to look at the file\n"
    "                        and the node's tip, and the wait before\n"
    "                        connecting to the API again (default 1000)\n"
    "  --payouts             then, per recipient, what the log says is\n"
    "                        owed against what the chain shows it\n"
    "                        received, in final blocks ([chain]\n"
    "                        confirmations: a number, or finalized or\n"
    "                        safe, the node's own; docs/VERIFY.md); not\n"
    "                        with --follow\n"
    "  --grace BLOCKS        a debt counts once its block has been final\n"
    "                        that many blocks (default 100)\n"
    "  --json                the payouts report as JSON\n"
    "  --SECTION.KEY=VALUE   a configuration key over the others (e.g.\n"
    "                        --chain.start_height=N)\n"
    "\n"
    "The rounds open at the log's first line come from the blocks before\n"
    "it: with [chain] start_height (the dealer's first block) before the\n"
    "log's first line, those blocks are dealt from the node first, without\n"
    "lines to check; without it the log's first line is taken for the\n"
    "dealer's first block.  A request the node fails is tried again, each\n"
    "failure said on standard error, up to 8 attempts or 60 s, whichever\n"
    "comes first; then the run ends with status 69 and the last failure.\n"
    "Under --follow it is tried until the node answers, said once.  On a\n"
    "terminal a progress line says the block, the rate and the time left\n"
    "(under --follow, the last block verified).\n"
    "\n"
    "Exit status: 0 every line agrees (and, with --payouts, nobody is\n"
    "short); 1 a line differs (or is missing, extra, cut or not a line;\n"
    "under --follow, a failure was seen before SIGINT or SIGTERM), or a\n"
    "recipient is short; 2 your node follows another chain than the log:\n"
    "the first block compared is not your node's block at its height, so\n"
    "no line was checked; 64 usage error; 65 the log begins before [chain]\n"
    "start_height, or the table is not one; 66 the log or the table cannot\n"
    "be read; 69 the node refuses (credentials, another chain id than the\n"
    "table's) or does not answer (8 attempts or 60 s); 70 out of memory;\n"
    "74 reading the log failed; 75 the log goes beyond the node's tip:\n"
    "the blocks after it are not checked yet; 78 a bad configuration.\n";

int hjc_verify_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

/* A line of the dealer's log, or a block to deal without one (text NULL:
 * before the log's first line, or missing from it under --follow). */
struct line {
	char *text; /* without its "\n"; borrowed from the ring */
	size_t len;
	uint64_t height;
};

/* Lines whose blocks are asked of the node at once: in flight, or come
 * (blocks, deep copies) and waiting for the batches before them. */
struct batch {
	struct run *r;
	struct batch *next; /* in height order */
	struct line lines[BATCH_MAX];
	size_t n;
	hj_chain_block *blocks;
	int failed; /* under --follow: asked again when the timer fires */
};

/* The lines read last, by height modulo RING, to check a line the dealer
 * writes again after cutting its log (a restart) against the first one,
 * and to know where lines ended when the log is cut.  More than the
 * lines the batches can hold (QUEUE_MAX * BATCH_MAX), so a line in flight
 * is never dropped. */
#define RING 1024
struct kept {
	char *text;
	size_t len;
	uint64_t height;
	/* The offset after its "\n" in its file; LLONG_MAX while not known
	 * (beyond where the file is read again, not read again yet). */
	long long end;
	unsigned file; /* which file (rotations) */
	int set;
};

/* A line longer than this is not a card log line. */
#define LINE_LIMIT (1u << 20)
/* The longest line read all the same: the reading buffer doubled up to
 * twice LINE_LIMIT before a line was refused, and lines that fit in it
 * are still read. */
#define LINE_READ (2 * (size_t)LINE_LIMIT - 1)

struct run {
	uv_loop_t loop;
	hj_config *cfg;
	const char *name;
	hjc_logsrc *src; /* the file, - or the API's stream */
	struct kept ring[RING];
	hj_rpc *rpc;
	hj_backend *be;
	hj_table *t;
	hj_cardlog cl;
	struct batch *queue, *tail; /* in height order: the head is next */
	unsigned queued, inflight;  /* batches held; of them, in flight */
	uint64_t pending;           /* blocks in the batches */
	struct line ahead;          /* a line read, not in a batch yet */
	int have_ahead;
	/* The node's block before ahead: 1 asked, 2 it is ahead's parent,
	 * 3 not known (the node failed) */
	int parent_asked;
	uint64_t fill, fill_end; /* blocks to deal without a line first */
	uint64_t next;           /* the height the next line must have */
	int started;             /* a line was read */
	int again;               /* the log was cut: lines may come again */
	uint64_t tip;            /* the node's */
	uint64_t checked, first, last, unchecked, warmup;
	uint64_t lineno;   /* lines read */
	uint64_t failures; /* --follow */
	/* --follow: wait interval_ms at the end of the log or the node's tip,
	 * until SIGINT or SIGTERM. */
	int follow;
	unsigned interval_ms;
	uv_timer_t timer;
	uv_signal_t sigint, sigterm;
	int handles;
	/* Progress on a TTY: the log's size when known, and when the run
	 * began. */
	long long size;
	uint64_t t0;
	char chain[200]; /* the dealer's table's chain (--table), or "" */
	/* --card-log ws://... or http://...: the dealer's API's stream,
	 * whose BlockUpdates are the log's lines (src). */
	struct {
		char url[1024];  /* ws://HOST:PORT/v1/stream */
		uint64_t from;   /* ?from= of the next connection */
		uint64_t last;   /* the last block received; valid when got */
		int got;         /* a block was received */
		uint64_t end;    /* once: the last block to read */
		int ended;       /* once: end reached, the stream closed */
		unsigned errors; /* failed connections in a row */
		uv_timer_t again;
	} api;
	int stream; /* reading the API, not a file */
	int idle;   /* waiting (timer) for lines, none in flight */
	int rc;
	int done;
	hjc_vpay *pay; /* --payouts */
	int json;
	uint64_t grace;
};

/* A note on stderr, on a line of its own. */
#define say(...) hjc_tool_note(CMD, __VA_ARGS__)

static void on_closed(void *arg)
{
	struct run *r = arg;
	if (r->be)
		r->be->ops->free(r->be);
	r->be = NULL;
}

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
	hj_rpc_close(r->rpc, on_closed, r);
	r->rpc = NULL;
}

/* Bytes s[0..n) hold needle how many times. */
static size_t count(const char *s, size_t n, const char *needle)
{
	size_t k = 0, m = strlen(needle);
	const char *end = s + n, *p = s;
	while ((p = memmem(p, (size_t)(end - p), needle, m)) != NULL) {
		k++;
		p += m;
	}
	return k;
}

/* The protocol's line looks like a round it never saw: an action it
 * rejects for no round, or fewer events of rounds than the dealer's. */
static int unknown_round(const char *theirs, size_t tn, const char *ours,
                         size_t on)
{
	if (!theirs || !ours)
		return 0;
	return count(ours, on, "\"no_round\"") >
	           count(theirs, tn, "\"no_round\"") ||
	       count(ours, on, "\"round\":") < count(theirs, tn, "\"round\":");
}

/* A difference at block h: what differs, then both lines.  It ends the
 * run, except under --follow, where it is a line of its own and the run
 * goes on (r->done says which). */
static void differ(struct run *r, uint64_t h, const char *what,
                   const char *theirs, size_t tn, const char *ours, size_t on)
{
	hjc_tool_progress_end();
	printf("block %llu: %s\n", (unsigned long long)h, what);
	if (r->follow) {
		r->failures++;
		fflush(stdout);
		return;
	}
	if (theirs)
		printf("  dealer: %.*s\n", (int)tn, theirs);
	if (ours)
		printf("  node:   %.*s\n", (int)on, ours);
	if (!r->cfg->start_height_set && r->started &&
	    unknown_round(theirs, tn, ours, on))
		printf("  (the log's first line, block %llu, was taken for the "
		       "dealer's first block: if the dealer began before it, "
		       "give [chain] start_height)\n",
		       (unsigned long long)r->first);
	finish(r, 1);
}

/* The top-level string member key of a card log line, or NULL (caller
 * frees). */
static char *line_field(const char *s, size_t n, const char *key)
{
	json_t *j = json_loadb(s, n, 0, NULL);
	const char *h = json_string_value(json_object_get(j, key));
	char *out = h ? strdup(h) : NULL;
	json_decref(j);
	return out;
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
	char *theirs = line_field(l->text, l->len, "hash"),
	     *node = line_field(ours, on, "hash");
	int other = theirs && node && strcmp(theirs, node) != 0;
	if (other)
		say_other_chain(r, l->height, node, theirs);
	free(theirs);
	free(node);
	return other;
}

/* The path of the first place where a (the dealer's) and b (the
 * node's) differ, appended to path ("" when they are equal); *x and *y get
 * the values there (NULL where one has none). */
static void first_diff(json_t *a, json_t *b, char *path, size_t n, json_t **x,
                       json_t **y)
{
	size_t len = strlen(path);
	*x = a;
	*y = b;
	if (a && b && json_equal(a, b)) {
		*x = *y = NULL;
		return;
	}
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *v;
		json_object_foreach(b, k, v)
		{
			json_t *w = json_object_get(a, k);
			if (w && json_equal(w, v))
				continue;
			snprintf(path + len, n - len, "%s%s", len ? "." : "",
			         k);
			if (!w) {
				*x = NULL;
				*y = v;
				return;
			}
			first_diff(w, v, path, n, x, y);
			return;
		}
		json_object_foreach(a, k, v)
		{
			if (!json_object_get(b, k)) {
				snprintf(path + len, n - len, "%s%s",
				         len ? "." : "", k);
				*x = v;
				*y = NULL;
				return;
			}
		}
	} else if (json_is_array(a) && json_is_array(b)) {
		for (size_t i = 0;
		     i < json_array_size(a) || i < json_array_size(b); i++) {
			json_t *v = json_array_get(a, i),
			       *w = json_array_get(b, i);
			if (v && w && json_equal(v, w))
				continue;
			snprintf(path + len, n - len, "[%zu]", i);
			if (v && w)
				first_diff(v, w, path, n, x, y);
			else {
				*x = v;
				*y = w;
			}
			return;
		}
	}
}

/* A value in a few words, into buf. */
static const char *shown(json_t *v, char *buf, size_t n)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
	                                JSON_PRESERVE_ORDER)
	            : NULL;
	if (!v)
		snprintf(buf, n, "nothing");
	else if (!s)
		snprintf(buf, n, "?");
	else if (strlen(s) > 80)
		snprintf(buf, n, "%.77s...", s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
	return buf;
}

void hjc_verify_describe(const char *theirs, size_t tn, const char *ours,
                         size_t on, char *buf, size_t n)
{
	json_t *a = json_loadb(theirs, tn, 0, NULL);
	json_t *b = json_loadb(ours, on, 0, NULL);
	json_t *x, *y;
	char path[200] = "", sx[100], sy[100];
	if (!json_is_object(a))
		snprintf(buf, n, "the dealer's line is not a JSON object");
	else if (json_equal(a, b))
		snprintf(buf, n,
		         "the same JSON, not the same bytes (key "
		         "order, spacing or number form: docs/LOG.md)");
	else {
		first_diff(a, b, path, sizeof path, &x, &y);
		snprintf(buf, n, "%s: the dealer's %s, the protocol's %s%s",
		         path, shown(x, sx, sizeof sx), shown(y, sy, sizeof sy),
		         strcmp(path, "hash") == 0
		             ? " (the dealer's hash is not the node's block "
		               "at that height)"
		             : "");
	}
	json_decref(a);
	json_decref(b);
}

static void next_batch(struct run *r);

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

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error);

static void ask_blocks(struct run *r, struct batch *b)
{
	r->inflight++;
	if (r->be->ops->blocks(r->be, b->lines[0].height, b->n, on_blocks, b)) {
		r->inflight--;
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

static void on_again_blocks(uv_timer_t *t)
{
	struct run *r = t->data;
	for (struct batch *b = r->queue; b && !r->done; b = b->next)
		if (b->failed) {
			b->failed = 0;
			ask_blocks(r, b);
		}
}

static void batch_free(struct batch *b)
{
	hj_chain_blocks_free(b->blocks, b->n);
	free(b);
}

/* Deals the head batch b with its blocks and checks its lines, then
 * drops it: 0, or -1 when the run is finished. */
static int deal(struct run *r, struct batch *b, const hj_chain_block *blocks)
{
	char err[300], what[400];
	for (size_t i = 0; i < b->n && !r->done; i++) {
		const struct line *l = &b->lines[i];
		const char *line;
		size_t len;
		if (hj_deal_block(r->t, &r->cl, r->be->ops->chain,
		                  r->be->ops->family, &blocks[i], NULL, NULL,
		                  &line, &len, err, sizeof err) != 0) {
			say("dealing block %llu: %s",
			    (unsigned long long)blocks[i].height, err);
			finish(r, EX_SOFTWARE);
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
		if (len != l->len || memcmp(line, l->text, len) != 0) {
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
	if (r->done)
		return -1;
	r->queue = b->next;
	if (!r->queue)
		r->tail = NULL;
	r->queued--;
	r->pending -= b->n;
	batch_free(b);
	return 0;
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct batch *b = arg;
	struct run *r = b->r;
	r->inflight--;
	if (r->done)
		return;
	if (error || n == 0) {
		if (error)
			say("node: %s", error);
		else
			say("node: no block from %llu on, though its tip is "
			    "%llu",
			    (unsigned long long)b->lines[0].height,
			    (unsigned long long)r->tip);
		if (r->follow) {
			b->failed = 1;
			wait_then(r, on_again_blocks);
		} else {
			finish(r, EX_UNAVAILABLE);
		}
		return;
	}
	if (n < b->n) {
		/* Lines whose blocks did not come (a node may answer fewer)
		 * are asked for again, in a batch of their own right after. */
		struct batch *rest = calloc(1, sizeof *rest);
		if (!rest) {
			say("out of memory");
			finish(r, EX_SOFTWARE);
			return;
		}
		rest->r = r;
		rest->n = b->n - n;
		memcpy(rest->lines, b->lines + n,
		       rest->n * sizeof *rest->lines);
		b->n = n;
		rest->next = b->next;
		b->next = rest;
		if (r->tail == b)
			r->tail = rest;
		r->queued++;
		ask_blocks(r, rest);
		if (r->done)
			return;
	}
	if (b != r->queue) { /* ahead of its turn: kept */
		if (!(b->blocks = hj_chain_blocks_copy(blocks, b->n))) {
			say("out of memory");
			finish(r, EX_SOFTWARE);
			return;
		}
	} else {
		if (deal(r, b, blocks))
			return;
		while (r->queue && r->queue->blocks)
			if (deal(r, r->queue, r->queue->blocks))
				return;
		progress(r);
	}
	next_batch(r);
}

/* The line of height h kept in the ring, or NULL. */
static struct kept *kept(struct run *r, uint64_t h)
{
	struct kept *k = &r->ring[h % RING];
	return k->set && k->height == h ? k : NULL;
}

/* Keeps a line read (the ring owns its text from here).  A line read
 * again takes the place of the first one, in a batch too. */
static void keep(struct run *r, char *text, size_t len, uint64_t h)
{
	struct kept *k = &r->ring[h % RING];
	long long end = (long long)hjc_logsrc_offset(r->src);
	if (k->set && k->height == h) {
		for (struct batch *b = r->queue; b; b = b->next)
			for (size_t i = 0; i < b->n; i++)
				if (b->lines[i].height == h)
					b->lines[i] =
					    (struct line){text, len, h};
	}
	free(k->text);
	*k = (struct kept){text, len, h, end, hjc_logsrc_file(r->src), 1};
}

/* The bytes a file holds near its end, compared with the lines read
 * there. */
#define REREAD (64 * 1024)

/* The start of the first of the last lines read (those ending in the last
 * REREAD bytes read, up to pos) that the file no longer holds as it was
 * read, or -1: a line written over without the file getting shorter. */
static long long written_over(struct run *r, long long pos)
{
	long long at = -1;
	unsigned file = hjc_logsrc_file(r->src);
	char *b = malloc(LINE_READ + 1);
	for (size_t i = 0; b && i < RING; i++) {
		const struct kept *k = &r->ring[i];
		long long start = k->end - (long long)k->len - 1;
		/* Lines past pos are not read yet (after a cut, again). */
		if (!k->set || k->file != file || k->end > pos ||
		    k->end < pos - REREAD || (at >= 0 && start >= at))
			continue;
		/* A short read: the file was cut since its size was looked
		 * at, which the next look sees. */
		if (hjc_logsrc_pread(r->src, file, (uint64_t)start, b,
		                     k->len + 1) == (long long)k->len + 1 &&
		    (memcmp(b, k->text, k->len) != 0 || b[k->len] != '\n'))
			at = start;
	}
	free(b);
	return at;
}

/* Reads the file again from byte to (a line's start): its lines up to
 * the last one read are expected again.  The lines kept beyond it have
 * no known place in the file until they are read again (keep): one
 * written over by bytes that are no line is said once, not looked at
 * again and again. */
static int reread(struct run *r, long long to)
{
	char err[HJ_ERRLEN];
	unsigned file = hjc_logsrc_file(r->src);
	if (hjc_logsrc_seek(r->src, (uint64_t)to, err, sizeof err)) {
		say("%s", err);
		finish(r, EX_IOERR);
		return -1;
	}
	for (size_t i = 0; i < RING; i++) {
		struct kept *k = &r->ring[i];
		if (k->set && k->file == file && k->end > to)
			k->end = LLONG_MAX;
	}
	r->again = 1;
	return 1;
}

/*
 * Under --follow at the end of the file: a file cut shorter than what was
 * read (the dealer restarted and cut the lines it had not committed: it
 * writes the same lines again) is read again from the last line end at
 * or before its new size, and so is one whose last lines were written
 * over; a file renamed away (logrotate) for a new one with a line in it
 * is left for the new one.  Returns 1 when there is more to read, 0 when
 * not, -1 when the run is finished.
 */
static int moved(struct run *r)
{
	char err[HJ_ERRLEN];
	uint64_t size;
	unsigned file = hjc_logsrc_file(r->src);
	/* Read up to pos: the lines taken, then a partial one. */
	long long pos =
	    (long long)(hjc_logsrc_offset(r->src) + hjc_logsrc_partial(r->src));
	int cut = hjc_logsrc_cut(r->src, &size, err, sizeof err);
	if (cut < 0) {
		say("%s", err);
		finish(r, EX_IOERR);
		return -1;
	}
	if (cut) {
		long long to = 0;
		for (size_t i = 0; i < RING; i++) {
			const struct kept *k = &r->ring[i];
			if (k->set && k->file == file &&
			    k->end <= (long long)size && k->end > to)
				to = k->end;
		}
		say("%s was cut from %lld to %lld bytes (the dealer "
		    "restarted?): reading again from byte %lld",
		    r->name, pos, (long long)size, to);
		return reread(r, to);
	}
	long long over = written_over(r, pos);
	if (over >= 0) {
		say("%s was written over from byte %lld: reading again from "
		    "there",
		    r->name, over);
		return reread(r, over);
	}
	if (hjc_logsrc_rotated(r->src)) {
		if (hjc_logsrc_partial(r->src)) {
			differ(r, r->next,
			       "the log was renamed with a partial last line",
			       NULL, 0, NULL, 0);
			if (r->done)
				return -1;
		}
		if (hjc_logsrc_follow(r->src, err, sizeof err)) {
			say("%s", err);
			finish(r, EX_NOINPUT);
			return -1;
		}
		say("%s was rotated: following the new file", r->name);
		return 1;
	}
	return 0;
}

/* The digits of a JSON integer below 10^18 at *p, without leading zeros
 * or sign, into *out; *p moves past them.  0, or -1 when there are none. */
static int digits(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	while (s < end && *s >= '0' && *s <= '9' && s - *p < 18)
		v = v * 10 + (uint64_t)(*s++ - '0');
	if (s == *p || (s < end && *s >= '0' && *s <= '9') ||
	    (**p == '0' && s - *p > 1))
		return -1;
	*p = s;
	*out = v;
	return 0;
}

static int skip(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return -1;
	*p += n;
	return 0;
}

int hjc_verify_line_height(const char *s, size_t n, uint64_t *out)
{
	const char *p = s, *end = s + n;
	uint64_t v;
	if (skip(&p, end, "{\"v\":") == 0 && digits(&p, end, &v) == 0 &&
	    skip(&p, end, ",\"chain\":\"") == 0) {
		while (p < end && *p != '"' && *p != '\\' &&
		       (unsigned char)*p >= 0x20)
			p++;
		if (skip(&p, end, "\",\"height\":") == 0 &&
		    digits(&p, end, out) == 0 && p < end && *p == ',')
			return 0;
	}
	json_t *j = json_loadb(s, n, 0, NULL);
	json_t *h = json_object_get(j, "height");
	int rc = json_is_integer(h) && json_integer_value(h) >= 0 ? 0 : -1;
	if (rc == 0)
		*out = (uint64_t)json_integer_value(h);
	json_decref(j);
	return rc;
}

/* The next line of the log into *l: 1, 0 when there is none now (the
 * end of the log; under --follow, for now), or -1 (the run is
 * finished). */
static int read_line(struct run *r, struct line *l)
{
	char err[HJ_ERRLEN];
	hjc_logsrc_line ln;
	if (r->have_ahead) {
		*l = r->ahead;
		r->have_ahead = 0;
		return 1;
	}
	for (;;) {
		int got = hjc_logsrc_next(r->src, &ln, err, sizeof err);
		if (got == -EMSGSIZE) {
			printf("line %llu: longer than %u bytes: not a card "
			       "log line\n",
			       (unsigned long long)r->lineno + 1, LINE_LIMIT);
			finish(r, 1);
			return -1;
		}
		if (got < 0) {
			say("%s", err);
			finish(r, got == -ENOMEM ? EX_SOFTWARE : EX_IOERR);
			return -1;
		}
		if (got == 0) {
			int more = r->follow && !r->stream ? moved(r) : 0;
			if (more < 0)
				return -1;
			if (more > 0)
				continue;
			if (hjc_logsrc_partial(r->src) && !r->follow &&
			    !r->pending) {
				hjc_tool_progress_end();
				printf("line %llu: cut: no newline at its end "
				       "(a partial line)\n",
				       (unsigned long long)r->lineno + 1);
				finish(r, 1);
				return -1;
			}
			return 0;
		}
		const char *b = ln.text;
		size_t len = ln.len;
		uint64_t height;
		int bad = hjc_verify_line_height(b, len, &height) != 0;
		if (bad && r->pending) {
			/* said once the blocks before it are dealt */
			hjc_logsrc_unread(r->src);
			return 0;
		}
		r->lineno++;
		if (bad) {
			hjc_tool_progress_end();
			printf("line %llu: not a card log line (no height)\n",
			       (unsigned long long)r->lineno);
			if (r->follow) {
				r->failures++;
				fflush(stdout);
				continue;
			}
			finish(r, 1);
			return -1;
		}
		char *text = malloc(len + 1);
		if (!text) {
			say("out of memory");
			finish(r, EX_SOFTWARE);
			return -1;
		}
		memcpy(text, b, len);
		text[len] = 0;
		*l = (struct line){text, len, height};
		return 1;
	}
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
	char why[64], node[67], *theirs;
	r->inflight--;
	if (r->done)
		return;
	r->parent_asked = 3; /* unknown */
	if (error)
		say("node: %s", error);
	theirs = line_field(r->ahead.text, r->ahead.len, "parent");
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
			r->inflight++;
			if (r->be->ops->blocks(r->be, r->ahead.height - 1, 1,
			                       on_parent, r)) {
				r->inflight--;
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
	                   .batch = r->cfg->batch_blocks < BATCH_MAX
	                                ? r->cfg->batch_blocks
	                                : BATCH_MAX,
	                   .json = r->json,
	                   .out = stdout};
	if (hjc_vpay_end(r->pay, r->be, &o, on_paid, r)) {
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
		const struct kept *k = kept(r, l->height);
		int same = k && k->len == l->len &&
		           memcmp(k->text, l->text, l->len) == 0;
		if (!(r->again && same)) {
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
		keep(r, l->text, l->len, l->height);
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

static void on_tip(void *arg, uint64_t height, const char *error);

static void on_wait(uv_timer_t *t)
{
	struct run *r = t->data;
	r->idle = 0;
	next_batch(r);
}

/* ---- the dealer's API's stream (--card-log ws://... or http://...) ---- */

/* More than a block's BlockUpdate can be (its line is at most
 * LINE_LIMIT); more than STREAM_BEHIND bytes of lines waiting: the node
 * is far slower than the stream. */
#define STREAM_MESSAGE (LINE_LIMIT + 256)
#define STREAM_BEHIND  (256u << 20)

static void api_connect(struct run *r);

static void on_api_again(uv_timer_t *t)
{
	api_connect(t->data);
}

/* Lines came while waiting for some: on at once. */
static void kick(struct run *r)
{
	if (!r->idle || r->done)
		return;
	uv_timer_stop(&r->timer);
	r->idle = 0;
	next_batch(r);
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

/* Connects to the stream from api.from on. */
static void api_connect(struct run *r)
{
	char err[300];
	if (hjc_logsrc_connect(r->src, r->api.from, err, sizeof err)) {
		say("%s", err);
		finish(r, EX_USAGE);
	}
}

static void on_wait_tip(uv_timer_t *t)
{
	struct run *r = t->data;
	if (r->be->ops->tip(r->be, on_tip, r)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* Reads the next lines, in batches of up to batch_blocks, up to DEPTH in
 * flight and QUEUE_MAX held, and the node's tip, and asks the node for
 * their blocks. */
static void next_batch(struct run *r)
{
	size_t want =
	    r->cfg->batch_blocks < BATCH_MAX ? r->cfg->batch_blocks : BATCH_MAX;
	struct line l;
	int beyond = 0, more = 1;
	while (more && !r->done && r->inflight < DEPTH &&
	       r->queued < QUEUE_MAX) {
		struct batch *b = calloc(1, sizeof *b);
		if (!b) {
			say("out of memory");
			finish(r, EX_SOFTWARE);
			return;
		}
		b->r = r;
		while (b->n < want && !r->done) {
			if (r->fill < r->fill_end) {
				if (r->fill > r->tip) {
					beyond = 1;
					more = 0;
					break;
				}
				b->lines[b->n++] =
				    (struct line){NULL, 0, r->fill++};
				r->next = r->fill;
				r->pending++;
				continue;
			}
			int got = read_line(r, &l);
			if (got < 0)
				break;
			if (got == 0) {
				more = 0;
				break;
			}
			if (!r->started) {
				begin(r, &l);
				if (r->done) {
					free(l.text);
					break;
				}
				r->ahead = l;
				r->have_ahead = 1;
				continue;
			}
			if (l.height != r->next) {
				if (r->pending) {
					/* Said once the blocks before it
					 * are dealt. */
					r->ahead = l;
					r->have_ahead = 1;
					more = 0;
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
				more = 0;
				break;
			}
			r->again = r->stream; /* the API sends a block again
			                        after a dealer's restart */
			keep(r, l.text, l.len, l.height);
			b->lines[b->n++] = l;
			r->next++;
			r->pending++;
		}
		if (b->n == 0 || r->done) {
			r->pending -= b->n;
			free(b);
			break;
		}
		if (r->tail)
			r->tail->next = b;
		else
			r->queue = b;
		r->tail = b;
		r->queued++;
		ask_blocks(r, b);
	}
	if (r->done || r->queue)
		return;
	if (beyond && r->follow)
		wait_then(r, on_wait_tip);
	else if (!r->follow && (beyond || !r->stream || r->api.ended))
		report_end(r);
	else {
		r->idle = 1; /* a message of the stream ends it at once */
		wait_then(r, on_wait);
	}
}

static void on_tip(void *arg, uint64_t height, const char *error)
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
	r->tip = height;
	next_batch(r);
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
	if (r->be->ops->attach)
		r->be->ops->attach(r->be, r->t);
	if (r->be->ops->tip(r->be, on_tip, r)) {
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

/* --interval's value: milliseconds, 10 to 3600000. */
static int interval(const char *v, unsigned *ms)
{
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v < '0' || *v > '9' || x < 10 ||
	    x > 3600000)
		return -1;
	*ms = (unsigned)x;
	return 0;
}

static int run(struct run *r)
{
	char err[512];
	hj_rpc_opts o;
	r->size = hjc_logsrc_size(r->src);
	r->t0 = uv_hrtime();
	hjc_tool_rpc_opts(CMD, r->cfg, r->follow, &o);
	r->t = hj_table_new(&r->cfg->rules);
	if (!r->t || uv_loop_init(&r->loop) != 0)
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
	r->rpc = hj_rpc_new(&r->loop, &o, err, sizeof err);
	if (r->rpc)
		r->be = hj_node_backend(r->cfg, r->rpc, err, sizeof err);
	if (!r->be || r->be->ops->identity(r->be, on_identity, r))
		finish(r, hjc_tool_fail(CMD, EX_CONFIG, "%s", err));
	else if (r->stream && !r->api.ended)
		api_connect(r);
	uv_run(&r->loop, UV_RUN_DEFAULT);
	uv_loop_close(&r->loop);
	return r->rc;
}

/* The card log is the dealer's API: ws://, http:// (or their secure
 * forms, refused). */
static int api_url(const char *s)
{
	return strncmp(s, "ws://", 5) == 0 || strncmp(s, "http://", 7) == 0 ||
	       strncmp(s, "wss://", 6) == 0 || strncmp(s, "https://", 8) == 0;
}

/*
 * --card-log URL: the stream of the dealer's `hashjack serve`,
 * ws://HOST:PORT/v1/stream, from [chain] start_height on (?from= the
 * block before; from 0 for 0, whose block is then dealt from the node).
 * Without --follow, the blocks its GET /v1/table says it had at the start.
 */
static int api_source(struct run *r)
{
	const char *url = r->name;
	const char *rest = strstr(url, "://") + 3;
	size_t host = strcspn(rest, "/?#");
	const char *path = rest + host;
	char base[1100], *text = NULL, err[512];
	size_t len;
	if (url[0] == 'h' ? url[4] == 's' : url[2] == 's')
		return hjc_tool_usage(
		    CMD,
		    "--card-log %s: no TLS here: give the "
		    "dealer's API as ws:// or http:// (on this "
		    "machine, or through a TLS proxy on it)",
		    url);
	if (host == 0 || host > 512 ||
	    (*path && strcmp(path, "/") != 0 &&
	     strcmp(path, "/v1/stream") != 0))
		return hjc_tool_usage(CMD,
		                      "--card-log %s: give the dealer's API as "
		                      "http://HOST:PORT or "
		                      "ws://HOST:PORT/v1/stream",
		                      url);
	if (!r->cfg->start_height_set)
		return hjc_tool_usage(CMD,
		                      "--card-log %s: reading the dealer's API "
		                      "needs its first block: "
		                      "--chain.start_height=N",
		                      url);
	snprintf(r->api.url, sizeof r->api.url, "ws://%.*s/v1/stream",
	         (int)host, rest);
	r->api.from = r->cfg->start_height ? r->cfg->start_height - 1 : 0;
	r->stream = 1;
	r->again = 1;
	hjc_logsrc_opts so = {.max_line = LINE_READ,
	                      .max_message = STREAM_MESSAGE,
	                      .max_held = STREAM_BEHIND};
	hjc_logsrc_cbs cbs = {on_api_line, on_api_error, on_api_closed};
	if (hjc_logsrc_stream(&r->loop, r->api.url, &so, &cbs, r, &r->src, err,
	                      sizeof err))
		return hjc_tool_fail(CMD, EX_SOFTWARE, "%s", err);
	if (r->follow)
		return EX_OK;
	/* The blocks the API has now: lastBlock of its table. */
	snprintf(base, sizeof base, "http://%.*s", (int)host, rest);
	if (hjc_verify_table_read(base, &text, &len, err, sizeof err))
		return hjc_tool_fail(CMD, EX_NOINPUT, "%s", err);
	json_t *t = json_loadb(text, len, 0, NULL);
	json_t *h = json_object_get(json_object_get(t, "lastBlock"), "height");
	int ok = json_is_integer(h) && json_integer_value(h) >= 0;
	if (ok)
		r->api.end = (uint64_t)json_integer_value(h);
	json_decref(t);
	free(text);
	if (!ok)
		return hjc_tool_fail(CMD, EX_DATAERR,
		                     "%s/v1/table: no lastBlock.height", base);
	if (r->api.end < r->cfg->start_height)
		r->api.ended = 1; /* nothing yet */
	return EX_OK;
}

/* What --table and the --rpc options give, before the command line's
 * keys. */
struct from_args {
	struct run *r;
	const char *table;
	const char *rpc[4]; /* url, cookie file, user, password */
};

static int apply_args(hj_config *cfg, void *arg)
{
	static const char *const keys[4] = {
	    "chain.rpc_url", "chain.rpc_cookie_file", "chain.rpc_user",
	    "chain.rpc_password"};
	struct from_args *a = arg;
	char err[512], kv[4096];
	if (a->table) {
		char *text = NULL;
		size_t len = 0;
		if (hjc_verify_table_read(a->table, &text, &len, err,
		                          sizeof err))
			return hjc_tool_fail(CMD, EX_NOINPUT, "%s", err);
		int bad =
		    hjc_verify_table_apply(cfg, text, len, a->r->chain,
		                           sizeof a->r->chain, err, sizeof err);
		free(text);
		if (bad)
			return hjc_tool_fail(CMD, EX_DATAERR, "%s", err);
	}
	for (int k = 0; k < 4; k++) {
		if (!a->rpc[k])
			continue;
		snprintf(kv, sizeof kv, "%s=%s", keys[k], a->rpc[k]);
		if (hj_config_set_arg(cfg, kv, err, sizeof err))
			return hjc_tool_usage(CMD, "%s", err);
	}
	return EX_OK;
}

int hjc_verify_main(int argc, char **argv)
{
	static const char *const rpc_opts[4] = {"--rpc", "--rpc-cookie",
	                                        "--rpc-user", "--rpc-password"};
	hj_config cfg;
	const char *conf = NULL, *log = NULL;
	int rc = EX_OK;
	struct run r = {
	    .cfg = &cfg, .interval_ms = 1000, .grace = HJC_VPAY_GRACE_DEFAULT};
	const char *grace = NULL;
	int payouts = 0;
	struct from_args fa = {.r = &r};

	hj_config_init(&cfg);
	for (int i = 0; i < argc && rc == EX_OK; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			hj_config_free(&cfg);
			return hjc_verify_help();
		}
		if (strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0)
			dst = &conf;
		else if (strcmp(a, "--card-log") == 0)
			dst = &log;
		else if (strcmp(a, "--table") == 0)
			dst = &fa.table;
		for (int k = 0; k < 4; k++)
			if (strcmp(a, rpc_opts[k]) == 0)
				dst = &fa.rpc[k];
		if (dst) {
			if (i + 1 >= argc)
				rc =
				    hjc_tool_usage(CMD, "%s: needs a value", a);
			else if (*dst)
				rc = hjc_tool_usage(CMD, "%s: given twice", a);
			else
				*dst = argv[++i];
		} else if (strcmp(a, "--follow") == 0) {
			r.follow = 1;
		} else if (strcmp(a, "--payouts") == 0) {
			payouts = 1;
		} else if (strcmp(a, "--json") == 0) {
			r.json = 1;
		} else if (strcmp(a, "--grace") == 0 && i + 1 < argc) {
			char *end;
			grace = argv[++i];
			errno = 0;
			r.grace = strtoull(grace, &end, 10);
			if (*grace < '0' || *grace > '9' || *end || errno)
				rc = hjc_tool_usage(CMD,
				                    "--grace: \"%s\" is not a "
				                    "number of blocks",
				                    grace);
		} else if (strcmp(a, "--interval") == 0 && i + 1 < argc) {
			if (interval(argv[++i], &r.interval_ms))
				rc = hjc_tool_usage(
				    CMD,
				    "--interval \"%s\": give "
				    "milliseconds, 10 to 3600000",
				    argv[i]);
		} else if (!hjc_tool_is_key(a)) {
			rc = hjc_tool_usage(CMD, "unknown argument \"%s\"", a);
		}
	}
	if (rc == EX_OK && !conf && !fa.table)
		rc = hjc_tool_usage(CMD, "give -c FILE, or --table URL|FILE");
	if (rc == EX_OK && !conf && !log)
		rc = hjc_tool_usage(CMD, "without -c, give --card-log FILE|-");
	if (rc == EX_OK && !payouts && (r.json || grace))
		rc = hjc_tool_usage(CMD, "%s is for --payouts",
		                    r.json ? "--json" : "--grace");
	if (rc == EX_OK && payouts && r.follow)
		rc = hjc_tool_usage(CMD, "--payouts reports at the log's end: "
		                         "not with --follow");
	if (rc == EX_OK)
		rc = hjc_tool_config(CMD, &cfg, conf, apply_args, &fa, argc,
		                     argv);
	r.name = log ? log : cfg.card_log;
	if (rc == EX_OK && r.follow && strcmp(r.name, "-") == 0)
		rc = hjc_tool_usage(CMD, "--follow follows a file or the "
		                         "dealer's API: give --card-log FILE "
		                         "or URL");
	if (rc == EX_OK && api_url(r.name))
		rc = api_source(&r);
	else if (rc == EX_OK) {
		char err[HJ_ERRLEN];
		hjc_logsrc_opts so = {.max_line = LINE_READ};
		int e = hjc_logsrc_open(r.name, &so, &r.src, err, sizeof err);
		if (e)
			rc = hjc_tool_fail(
			    CMD, e == -ENOMEM ? EX_SOFTWARE : EX_NOINPUT, "%s",
			    err);
	}
	if (rc == EX_OK && payouts) {
		r.pay = hjc_vpay_new(
		    cfg.family, cfg.family == HJ_EVM ? "wei"
		                : cfg.coin && strcmp(cfg.coin, "litecoin") == 0
		                    ? "litoshi"
		                    : "satoshi");
		if (!r.pay)
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	}
	if (rc == EX_OK) {
		hj_cardlog_init(&r.cl);
		rc = run(&r);
		hj_cardlog_release(&r.cl);
		hj_table_free(r.t);
		while (r.queue) {
			struct batch *b = r.queue;
			r.queue = b->next;
			batch_free(b);
		}
		for (size_t i = 0; i < RING; i++)
			free(r.ring[i].text);
		if (r.have_ahead)
			free(r.ahead.text); /* not kept yet */
	}
	hjc_vpay_free(r.pay);
	hjc_logsrc_free(r.src);
	hj_config_free(&cfg);
	return rc;
}
