/*
 * `hashjack reorg` (reorg.h): the last block the dealer dealt and the node
 * still has (the fork point), found by asking the node for the hash of each
 * block of the card log from the cursor down; then what the blocks after
 * it held (from the log), the payouts they created (from the database, by
 * state) and the open rounds opened after it.  Nothing is written.
 *
 * One request at a time, from the top: a reorganisation deeper than the
 * confirmations is a few blocks, seldom hundreds.  The log is read whole,
 * a line's events tallied as it is read (a few bytes kept per line).
 */
#include "reorg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <uv.h>

#include "amount.h"
#include "cardlog.h"
#include "config.h"
#include "hex.h"
#include "rpc.h"
#include "say.h"
#include "store.h"
#include "tool.h"

#define CMD "reorg"
/* The rotated files read before the card log, at most. */
#define ROTATED_MAX 8
/* The longest card log line read (docs/LOG.md bounds a line far below). */
#define LINE_MAX_BYTES ((size_t)16 << 20)

static const char usage[] =
    "Usage: hashjack reorg -c FILE [--rewind] [--SECTION.KEY=VALUE]...\n"
    "\n"
    "After hashjackd stopped on a reorganisation deeper than its\n"
    "confirmations (exit 3), says what the reorganisation changed, and\n"
    "without --rewind writes nothing: the fork point (the last block the\n"
    "dealer dealt that your node still has), the blocks dealt after it\n"
    "that left the chain, their events (Bets, actions, rejections and\n"
    "their refunds, settlements and their returns), the payouts those\n"
    "blocks created by state (owed, in flight, confirmed: paid for blocks\n"
    "that are gone), the open rounds opened after the fork point and,\n"
    "under committed cards, the seeds those blocks' lines published and\n"
    "the Commits dealt in them.\n"
    "\n"
    "  -c, --config FILE     hashjackd's configuration: its node, its\n"
    "                        [state] (the database and the card log)\n"
    "  --rewind              after the report, with hashjackd stopped:\n"
    "                        take its state back to the last batch\n"
    "                        boundary at or below the fork point (the\n"
    "                        card log's lines after it kept aside in\n"
    "                        CARD_LOG.rewound-FIRST-LAST); hashjackd then\n"
    "                        deals the new chain from there\n"
    "  --SECTION.KEY=VALUE   a configuration key over the file's\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 the node has every block the dealer dealt (nothing to\n"
    "do), or --rewind rewound; 1 it does not (the report on standard\n"
    "output); 65 a card log line that does not read, or a rewind that\n"
    "cannot be done (the undo does not reach the fork point, or the file\n"
    "the log was then was rotated and has been moved or compressed); 66\n"
    "the database or the card log cannot be read; 69 the node does not\n"
    "answer; 73 the file aside exists; 74 an I/O error; 75 hashjackd is\n"
    "running; 78 a bad configuration.\n"
    "docs/OPERATION.md, \"Money\", says what to do next.\n";

int hjc_reorg_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

/* What a line of the log says, for the report. */
struct line_sum {
	uint64_t height;
	uint8_t hash[32];
	uint32_t bets, actions, rejects, settles;
	hj_amount refunds, returns;
	uint8_t seeded;   /* the line published its block's seed */
	uint32_t commits; /* valid Commits dealt in the block */
};

struct run {
	hj_config cfg;
	int evm;
	hj_cursor cur;
	int have_cursor;
	struct line_sum *lines;
	size_t nlines, cap;
	/* Payouts: block, state (0 owed, 1 submitted, 2 confirmed), amount. */
	struct pay {
		uint64_t height;
		int state;
		hj_amount amount;
	} * pays;
	size_t npays, cappays;
	/* Open rounds: the Bet's block and stake. */
	struct open {
		uint64_t height;
		hj_amount bet;
	} * opens;
	size_t nopens, capopens;

	/* The walk down the log against the node. */
	uv_loop_t loop;
	hj_rpc *rpc;
	uint64_t tip;
	size_t at;   /* the line asked about: lines[at - 1] */
	int forked;  /* a line differed from the node */
	size_t fork; /* lines[0 .. fork) agree; 0: none does */
	uint8_t node_hash[32];
	int node_has; /* the node has a block at the first line gone */
	int rc;
	char err[HJ_ERRLEN];

	/* The files logrotate renamed the card log to, newest first: each
	 * lies beside it and its lines end just before the first of the file
	 * after it (rotated_files).  Their lines come first in lines[], oldest
	 * first. */
	struct rotated {
		char path[4500];
		uint64_t dev, ino;
		uint64_t first, last; /* its lines' heights */
	} prevs[ROTATED_MAX];
	size_t nprev;
};

static hj_amount add_sat(hj_amount a, hj_amount b)
{
	return a > HJ_AMOUNT_MAX - b ? HJ_AMOUNT_MAX : a + b;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	p = realloc(*v, c * size);
	if (p == NULL)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

/* ---- the database ---- */

static int take_pay(void *arg, const hj_payout_row *p)
{
	struct run *r = arg;
	int st = strcmp(p->state, "owed") == 0        ? 0
	         : strcmp(p->state, "submitted") == 0 ? 1
	                                              : 2;

	if (grow((void **)&r->pays, &r->cappays, r->npays, sizeof *r->pays))
		return -ENOMEM;
	r->pays[r->npays++] =
	    (struct pay){.height = (uint64_t)p->created_height,
	                 .state = st,
	                 .amount = p->amount};
	return 0;
}

static int take_round(void *arg, const hj_round *x)
{
	struct run *r = arg;

	if (grow((void **)&r->opens, &r->capopens, r->nopens, sizeof *r->opens))
		return -ENOMEM;
	r->opens[r->nopens++] =
	    (struct open){.height = x->bet_height, .bet = x->bet};
	return 0;
}

static void reset_db(void *arg)
{
	struct run *r = arg;

	r->npays = r->nopens = 0;
	r->have_cursor = 0;
}

static int read_db(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct run *r = arg;
	hj_payout_filter all = {0};
	int ret =
	    hj_store_read_cursor(s, &r->cur, &r->have_cursor, err, errlen);

	if (ret == 0)
		ret = hj_store_each_payout(s, &all, take_pay, r, err, errlen);
	if (ret == 0)
		ret = hj_store_each_round(s, take_round, r, err, errlen);
	if (ret == -ENOMEM)
		hj_say(err, errlen, "out of memory");
	return ret;
}

/* ---- the card log ---- */

static void tally(struct line_sum *sum, const hj_cardlog_line *l)
{
	for (size_t i = 0; i < l->nevents; i++) {
		const hj_cardlog_ev *e = &l->events[i];

		switch (e->type) {
		case HJ_EV_ACTION:
			if (e->act == HJ_BET)
				sum->bets++;
			else
				sum->actions++;
			break;
		case HJ_EV_REJECT:
			sum->rejects++;
			sum->refunds = add_sat(sum->refunds, e->refund);
			break;
		case HJ_EV_SETTLE:
		case HJ_EV_SIDE:
			sum->settles++;
			sum->returns = add_sat(sum->returns, e->payout);
			break;
		case HJ_EV_COMMIT:
			sum->commits++;
			break;
		default:
			break;
		}
	}
}

/* The lines of the file at path up to the cursor's block, appended to
 * lines[].  EX_OK, or a code after saying. */
static int read_file(struct run *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t bufcap = 0, no = 0;
	ssize_t n;
	int rc = EX_OK;

	if (f == NULL)
		return hjc_tool_fail(CMD, EX_NOINPUT, "%s: %s", path,
		                     strerror(errno));
	while ((n = getline(&buf, &bufcap, f)) > 0) {
		hj_cardlog_line l;
		hj_cardlog_err e;
		struct line_sum *s;

		no++;
		if (buf[n - 1] != '\n' || (size_t)n > LINE_MAX_BYTES)
			break; /* a line not yet whole is not the cursor's */
		if (hj_cardlog_read(buf, (size_t)n - 1,
		                    r->evm ? HJ_EVM : HJ_BITCOIN, &l, &e)) {
			rc = hjc_tool_fail(CMD, EX_DATAERR,
			                   "%s: line %zu: not a card log line "
			                   "(%s)",
			                   path, no, e.msg);
			break;
		}
		if (l.height > r->cur.height) {
			hj_cardlog_line_free(&l);
			break;
		}
		if (grow((void **)&r->lines, &r->cap, r->nlines,
		         sizeof *r->lines)) {
			hj_cardlog_line_free(&l);
			rc = hjc_tool_fail(CMD, EX_OSERR, "out of memory");
			break;
		}
		s = &r->lines[r->nlines++];
		memset(s, 0, sizeof *s);
		s->height = l.height;
		memcpy(s->hash, l.hash, 32);
		s->seeded = l.has_seed;
		tally(s, &l);
		hj_cardlog_line_free(&l);
	}
	if (rc == EX_OK && ferror(f))
		rc = hjc_tool_fail(CMD, EX_IOERR, "%s: %s", path,
		                   strerror(errno));
	free(buf);
	fclose(f);
	return rc;
}

/* The height of the line that ends at byte `end` of the file at path (the
 * last whole line: end UINT64_MAX): 0 with *h, or -1 (no such line, or
 * not a card log line: a compressed file, another). */
static int last_height(const char *path, uint64_t end, uint64_t *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	struct stat sb;
	size_t win = 65536;
	char *buf = NULL;
	off_t size, from;
	size_t len;
	char *p, *nl;

	if (fd < 0)
		return -1;
	while (fstat(fd, &sb) == 0 && win <= LINE_MAX_BYTES) {
		if (end != UINT64_MAX && end > (uint64_t)sb.st_size)
			break;
		size = end == UINT64_MAX ? sb.st_size : (off_t)end;
		if (size <= 1)
			break;
		from = size > (off_t)win ? size - (off_t)win : 0;
		len = (size_t)(size - from);
		if ((p = realloc(buf, len)) == NULL)
			break;
		buf = p;
		if (pread(fd, buf, len, from) != (ssize_t)len ||
		    buf[len - 1] != '\n')
			break;
		nl = len > 1 ? memrchr(buf, '\n', len - 1) : NULL;
		if (nl == NULL && from > 0) {
			win *= 4; /* a longer line: a wider window */
			continue;
		}
		nl = nl ? nl + 1 : buf;
		ret = hj_cardlog_height(nl, (size_t)(buf + len - 1 - nl), h)
		          ? -1
		          : 0;
		break;
	}
	free(buf);
	close(fd);
	return ret;
}

/* The height of the first line of the file at path: 0 with *h, or -1. */
static int first_height(const char *path, uint64_t *h)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = -1;

	if (f == NULL)
		return -1;
	n = getline(&buf, &cap, f);
	if (n > 1 && buf[n - 1] == '\n' && (size_t)n <= LINE_MAX_BYTES &&
	    hj_cardlog_height(buf, (size_t)n - 1, h) == 0)
		ret = 0;
	free(buf);
	fclose(f);
	return ret;
}

/*
 * The files logrotate may have renamed the card log to: beside it, named
 * after it ("cards.jsonl.1", "cards.jsonl-20261203"), not a file a rewind
 * kept aside, whose last line reads (a compressed one does not), with
 * that line's height in ->last.  Read once: *out (the caller frees it) and
 * their number.  -1 when out of memory.
 */
static ssize_t rotated_files(const struct run *r, struct rotated **out)
{
	char dir[4200], *slash;
	const char *base;
	size_t blen, n = 0, cap = 0;
	struct rotated *v = NULL;
	DIR *d;
	struct dirent *e;

	*out = NULL;
	snprintf(dir, sizeof dir, "%s", r->cfg.card_log);
	slash = strrchr(dir, '/');
	base = slash ? r->cfg.card_log + (slash - dir) + 1 : r->cfg.card_log;
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	blen = strlen(base);
	if ((d = opendir(*dir ? dir : "/")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[4500];
		struct stat sb;
		uint64_t h;

		if (strncmp(e->d_name, base, blen) != 0 ||
		    (e->d_name[blen] != '.' && e->d_name[blen] != '-') ||
		    strstr(e->d_name + blen, ".rewound-"))
			continue;
		snprintf(path, sizeof path, "%s/%s", *dir ? dir : "",
		         e->d_name);
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
		    last_height(path, UINT64_MAX, &h) != 0)
			continue;
		if (grow((void **)&v, &cap, n, sizeof *v)) {
			free(v);
			closedir(d);
			return -1;
		}
		snprintf(v[n].path, sizeof v[n].path, "%s", path);
		v[n].dev = (uint64_t)sb.st_dev;
		v[n].ino = (uint64_t)sb.st_ino;
		v[n].first = v[n].last = h; /* first: once read */
		n++;
	}
	closedir(d);
	*out = v;
	return (ssize_t)n;
}

/* The lines up to the cursor's block: the card log's, and before them
 * those of the files logrotate renamed it to (rotated_files), back to the
 * undo's reach ([state] rewind_blocks) or ROTATED_MAX files.  EX_OK, or a
 * code after saying. */
static int read_log(struct run *r)
{
	struct line_sum *cur;
	struct rotated *cand;
	ssize_t ncand;
	uint64_t first, floor;
	size_t n;
	int rc = read_file(r, r->cfg.card_log);

	if (rc != EX_OK || r->nlines == 0)
		return rc;
	first = r->lines[0].height;
	floor = r->cur.height > r->cfg.rewind_blocks
	            ? r->cur.height - r->cfg.rewind_blocks
	            : 0;
	ncand = rotated_files(r, &cand);
	if (ncand < 0)
		return hjc_tool_fail(CMD, EX_OSERR, "out of memory");
	/* Each step back: the file whose last line is the block before the
	 * first line read so far. */
	while (r->nprev < ROTATED_MAX && first > floor) {
		ssize_t k = 0;

		while (k < ncand && cand[k].last + 1 != first)
			k++;
		if (k == ncand)
			break;
		r->prevs[r->nprev] = cand[k];
		if (first_height(cand[k].path, &first) != 0) {
			r->nprev++;
			break;
		}
		r->prevs[r->nprev++].first = first;
	}
	free(cand);
	if (r->nprev == 0)
		return EX_OK;
	cur = r->lines;
	n = r->nlines;
	r->lines = NULL;
	r->nlines = r->cap = 0;
	for (size_t k = r->nprev; rc == EX_OK && k-- > 0;)
		rc = read_file(r, r->prevs[k].path);
	for (size_t i = 0; rc == EX_OK && i < n; i++) {
		if (grow((void **)&r->lines, &r->cap, r->nlines,
		         sizeof *r->lines))
			rc = hjc_tool_fail(CMD, EX_OSERR, "out of memory");
		else
			r->lines[r->nlines++] = cur[i];
	}
	free(cur);
	return rc;
}

/* ---- the node ---- */

static void ask(struct run *r);

/* The walk ends: rc, and why (NULL when it found what it looked for). */
static void stop(struct run *r, int rc, const char *why)
{
	r->rc = rc;
	if (why)
		hj_say(r->err, sizeof r->err, "%s", why);
	hj_rpc_close(r->rpc, NULL, NULL);
}

/* The answer for lines[at - 1]: its hash, or none (no such block). */
static void compare(struct run *r, const uint8_t *hash)
{
	const struct line_sum *l = &r->lines[r->at - 1];

	if (hash != NULL && memcmp(hash, l->hash, 32) == 0) {
		r->fork = r->at;
		stop(r, EX_OK, NULL);
		return;
	}
	/* The first line gone: what the node has at its height. */
	r->forked = 1;
	r->node_has = hash != NULL;
	if (hash != NULL)
		memcpy(r->node_hash, hash, 32);
	r->at--;
	if (r->at == 0) {
		r->fork = 0;
		stop(r, EX_OK, NULL);
		return;
	}
	ask(r);
}

static void on_hash(void *arg, json_t *result, const char *error)
{
	struct run *r = arg;
	const char *h;
	uint8_t b[32];

	if (error != NULL) {
		{
			char why[HJ_ERRLEN];

			hj_say(why, sizeof why, "node: %s", error);
			stop(r, EX_UNAVAILABLE, why);
		}
		return;
	}
	if (r->evm)
		result = json_object_get(result, "hash");
	h = json_string_value(result);
	if (h == NULL ||
	    hj_hex_decode_exact(h, strlen(h),
	                        r->evm ? HJ_HEX_REQUIRED : HJ_HEX_BARE, b, 32,
	                        NULL, 0)) {
		stop(r, EX_UNAVAILABLE,
		     "node: a block hash that is not 32 bytes of hex");
		return;
	}
	compare(r, b);
}

static void ask(struct run *r)
{
	uint64_t h = r->lines[r->at - 1].height;
	char q[24];
	json_t *params;

	/* A block above the node's tip is gone from its chain too. */
	while (h > r->tip) {
		r->forked = 1;
		r->node_has = 0;
		if (--r->at == 0) {
			r->fork = 0;
			stop(r, EX_OK, NULL);
			return;
		}
		h = r->lines[r->at - 1].height;
	}
	snprintf(q, sizeof q, "0x%" PRIx64, h);
	params =
	    r->evm ? json_pack("[s,b]", q, 0) : json_pack("[I]", (json_int_t)h);
	if (params == NULL ||
	    hj_rpc_call(r->rpc,
	                r->evm ? "eth_getBlockByNumber" : "getblockhash",
	                params, on_hash, r))
		stop(r, EX_OSERR, "out of memory");
}

static void on_tip(void *arg, json_t *result, const char *error)
{
	struct run *r = arg;
	unsigned __int128 v = 0;
	const char *s = json_string_value(result);

	if (error != NULL) {
		{
			char why[HJ_ERRLEN];

			hj_say(why, sizeof why, "node: %s", error);
			stop(r, EX_UNAVAILABLE, why);
		}
		return;
	}
	if (r->evm ? (s == NULL || hj_hex_quantity(s, strlen(s), &v, NULL, 0) ||
	              v > UINT64_MAX)
	           : (!json_is_integer(result) ||
	              json_integer_value(result) < 0)) {
		stop(r, EX_UNAVAILABLE, "node: a tip that is no height");
		return;
	}
	r->tip = r->evm ? (uint64_t)v : (uint64_t)json_integer_value(result);
	r->at = r->nlines;
	ask(r);
}

static int walk(struct run *r)
{
	hj_rpc_opts o;
	char why[HJ_ERRLEN];

	if (uv_loop_init(&r->loop))
		return hjc_tool_fail(CMD, EX_OSERR, "cannot start a loop");
	hjc_tool_rpc_opts(CMD, &r->cfg, 0, &o);
	r->rc = EX_OK;
	if (hj_rpc_new(&r->loop, &o, &r->rpc, why, sizeof why)) {
		uv_loop_close(&r->loop);
		return hjc_tool_fail(CMD, EX_CONFIG, "node: %s", why);
	}
	if (hj_rpc_call(r->rpc, r->evm ? "eth_blockNumber" : "getblockcount",
	                NULL, on_tip, r))
		stop(r, EX_OSERR, "out of memory");
	uv_run(&r->loop, UV_RUN_DEFAULT);
	uv_loop_close(&r->loop);
	if (r->rc != EX_OK)
		return hjc_tool_fail(CMD, r->rc, "%s", r->err);
	return EX_OK;
}

/* ---- the report ---- */

static const char *unit(const struct run *r)
{
	return r->evm                                ? "wei"
	       : strcmp(r->cfg.coin, "bitcoin") == 0 ? "satoshi"
	                                             : "litoshi";
}

static void hex_of(const struct run *r, const uint8_t h[32], char out[67])
{
	hj_hex_encode(h, 32, r->evm, out);
}

static void report(const struct run *r)
{
	const struct line_sum *last = &r->lines[r->nlines - 1];
	uint64_t from = r->lines[r->fork].height, n[3] = {0}, late = 0;
	uint64_t seeds = 0, seed_first = 0, seed_last = 0;
	struct line_sum all = {0};
	hj_amount sum[3] = {0}, stakes = 0;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN], c[HJ_AMOUNT_STRLEN],
	    d[HJ_AMOUNT_STRLEN], h[67], g[67];
	const char *u = unit(r);

	for (size_t i = r->fork; i < r->nlines; i++) {
		if (r->lines[i].seeded) {
			if (seeds++ == 0)
				seed_first = r->lines[i].height;
			seed_last = r->lines[i].height;
		}
		all.commits += r->lines[i].commits;
		all.bets += r->lines[i].bets;
		all.actions += r->lines[i].actions;
		all.rejects += r->lines[i].rejects;
		all.settles += r->lines[i].settles;
		all.refunds = add_sat(all.refunds, r->lines[i].refunds);
		all.returns = add_sat(all.returns, r->lines[i].returns);
	}
	for (size_t i = 0; i < r->npays; i++)
		if (r->pays[i].height >= from) {
			n[r->pays[i].state]++;
			sum[r->pays[i].state] =
			    add_sat(sum[r->pays[i].state], r->pays[i].amount);
		}
	for (size_t i = 0; i < r->nopens; i++)
		if (r->opens[i].height >= from) {
			late++;
			stakes = add_sat(stakes, r->opens[i].bet);
		}
	if (r->fork > 0) {
		hex_of(r, r->lines[r->fork - 1].hash, h);
		printf("reorganisation after block %" PRIu64
		       ": the node's chain and the dealer's part there\n",
		       r->lines[r->fork - 1].height);
		printf("  fork point      block %" PRIu64
		       ", %s: the last block both have\n",
		       r->lines[r->fork - 1].height, h);
	} else {
		printf("reorganisation: the node has none of the blocks of "
		       "the card log\n");
		printf("  fork point      before block %" PRIu64
		       ", the log's first\n",
		       r->lines[0].height);
	}
	hex_of(r, r->lines[r->fork].hash, h);
	if (r->node_has)
		hex_of(r, r->node_hash, g);
	printf("  left the chain  blocks %" PRIu64 " to %" PRIu64
	       " (%zu dealt); block %" PRIu64
	       " was dealt as %s, the node has %s (tip %" PRIu64 ")\n",
	       from, last->height, r->nlines - r->fork, from, h,
	       r->node_has ? g : "no block there", r->tip);
	printf("  their events    %" PRIu32 " Bets, %" PRIu32
	       " other actions, %" PRIu32
	       " rejections (refunds %s %s), %" PRIu32
	       " settlements and side bets (returns %s %s)\n",
	       all.bets, all.actions, all.rejects,
	       hj_amount_format(all.refunds, a), u, all.settles,
	       hj_amount_format(all.returns, b), u);
	printf("  their payouts   %" PRIu64 " owed (%s %s), %" PRIu64
	       " in flight (%s), %" PRIu64
	       " confirmed (%s): the in flight and confirmed ones were paid "
	       "for blocks that left the chain\n",
	       n[0], hj_amount_format(sum[0], a), u, n[1],
	       hj_amount_format(sum[1], b), n[2], hj_amount_format(sum[2], c));
	printf("  open rounds     %zu now; %" PRIu64
	       " of them opened after the fork point (stakes %s %s), the "
	       "others played on past it\n",
	       r->nopens, late, hj_amount_format(stakes, d), u);
	/* Committed cards: a chain's seeds are the same on any branch
	 * (docs/PROTOCOL.md section 15, docs/FAIRNESS.md section 4.4). */
	if (seeds > 0)
		printf("  seeds           %" PRIu64 " published with these "
		       "lines (blocks %" PRIu64 " to %" PRIu64 "): the new "
		       "chain's blocks at those heights are dealt with the "
		       "same seeds, so a block there made after its seed was "
		       "out could have had its card chosen\n",
		       seeds, seed_first, seed_last);
	if (seeds > 0 && seed_last > r->tip)
		printf("                  blocks %" PRIu64 " to %" PRIu64
		       " are not made yet: their seeds are public\n",
		       r->tip + 1, seed_last);
	if (all.commits > 0)
		printf("  Commits         %" PRIu32 " dealt in these blocks: "
		       "each chain is in force on the new chain only if its "
		       "Commit is mined there again before its first block\n",
		       all.commits);
}

/* ---- the rewind ---- */

/* The state directory's lock, as hashjackd takes it: -1 after saying why
 * (another process holds it: hashjackd runs). */
static int lock_state(const struct run *r)
{
	int fd = hj_store_lock_dir(r->cfg.state_dir);

	if (fd < 0)
		return hjc_tool_fail(CMD, EX_TEMPFAIL, "%s: %s",
		                     r->cfg.state_dir,
		                     fd == -EWOULDBLOCK
		                         ? "hashjackd is running on it: stop "
		                           "it first (systemctl stop hashjackd)"
		                         : strerror(-fd)),
		       -1;
	return fd;
}

/* fsync of the directory that holds path, so that a name made or changed
 * in it stays: 0, or -1 with errno. */
static int sync_dir(const char *path)
{
	char dir[4500], *slash;
	int d, rc;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	if ((d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	rc = fsync(d);
	close(d);
	return rc;
}

/* Bytes [from, to) of the open file fd, named path. */
struct seg {
	const char *path;
	int fd;
	uint64_t from, to;
};

/* Copies the segments, in order, to a new file aside, fsynced with its
 * directory.  EX_OK, or a code after saying. */
static int keep_aside(const struct seg *sg, size_t nseg, const char *aside)
{
	char buf[65536];
	int out = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	int rc = EX_OK;

	if (out < 0)
		return hjc_tool_fail(CMD, EX_CANTCREAT, "%s: %s", aside,
		                     strerror(errno));
	for (size_t k = 0; k < nseg; k++)
		for (uint64_t at = sg[k].from; rc == EX_OK && at < sg[k].to;) {
			uint64_t left = sg[k].to - at;
			size_t want =
			    left < sizeof buf ? (size_t)left : sizeof buf;
			ssize_t n = pread(sg[k].fd, buf, want, (off_t)at);

			if (n <= 0)
				rc = hjc_tool_fail(
				    CMD, EX_IOERR, "%s: %s", sg[k].path,
				    n < 0 ? strerror(errno)
				          : "shorter than the state says");
			else if (write(out, buf, (size_t)n) != n)
				rc = hjc_tool_fail(CMD, EX_IOERR, "%s: %s",
				                   aside, strerror(errno));
			else
				at += (uint64_t)n;
		}
	if (rc == EX_OK && fsync(out) != 0)
		rc = hjc_tool_fail(CMD, EX_IOERR, "%s: %s", aside,
		                   strerror(errno));
	close(out);
	if (rc == EX_OK)
		(void)sync_dir(aside);
	return rc;
}

/*
 * Which rotated file holds the boundary `to`: the one the cursor names (its
 * inode), else, when that file was decompressed or copied back under a
 * name of its own since, the one whose line ending at the boundary's
 * offset is the boundary's block (or, at offset 0, whose first line is the
 * block after it).  r->nprev when none is.
 */
static size_t boundary_file(const struct run *r, const hj_cursor *to)
{
	uint64_t h;

	for (size_t k = 0; k < r->nprev; k++)
		if (r->prevs[k].dev == to->log_dev &&
		    r->prevs[k].ino == to->log_ino)
			return k;
	for (size_t k = 0; k < r->nprev; k++) {
		const struct rotated *f = &r->prevs[k];

		if (to->log_offset == 0
		        ? f->first == to->height + 1
		        : f->first <= to->height && to->height <= f->last &&
		              last_height(f->path, to->log_offset, &h) == 0 &&
		              h == to->height)
			return k;
	}
	return r->nprev;
}

static int rewind_state(struct run *r, const char *db)
{
	hj_rewind w;
	hj_store *s = NULL;
	struct stat sb;
	char err[HJ_ERRLEN], aside[4200], h[67], a[HJ_AMOUNT_STRLEN],
	    b[HJ_AMOUNT_STRLEN];
	uint64_t fork;
	int lock, logfd = -1, prevfd = -1, rc = EX_OK, e;
	/* The rotated files after the boundary's, newest first, and the
	 * boundary's own (prevfd): prevs[0 .. bk) and prevs[bk]. */
	int newer[ROTATED_MAX];
	size_t nnewer = 0, bk = 0;
	struct seg sg[ROTATED_MAX + 1];
	size_t nseg = 0;

	if (r->fork == 0)
		return hjc_tool_fail(
		    CMD, EX_DATAERR,
		    "the fork point is before block %" PRIu64
		    ", the first line read (the card log's, or of the files "
		    "logrotate renamed it to that lie beside it, "
		    "uncompressed): the log does not say where to go back "
		    "to; nothing was changed",
		    r->lines[0].height);
	fork = r->lines[r->fork - 1].height;
	if ((lock = lock_state(r)) < 0)
		return EX_TEMPFAIL;
	e = hj_store_open(db, &s, err, sizeof err);
	if (e == 0) {
		hj_store_set_rewind_blocks(s, r->cfg.rewind_blocks);
		e = hj_store_rewind_point(s, fork, &w, err, sizeof err);
	}
	if (e)
		rc = hjc_tool_fail(
		    CMD, e == -ERANGE || e == -ENOENT ? EX_DATAERR : EX_IOERR,
		    "%s", err);
	if (rc == EX_OK &&
	    ((logfd = open(r->cfg.card_log, O_RDWR | O_CLOEXEC)) < 0 ||
	     fstat(logfd, &sb) != 0))
		rc = hjc_tool_fail(CMD, EX_NOINPUT, "%s: %s", r->cfg.card_log,
		                   strerror(errno));
	if (rc == EX_OK && ((uint64_t)sb.st_dev != w.from.log_dev ||
	                    (uint64_t)sb.st_ino != w.from.log_ino ||
	                    (uint64_t)sb.st_size < w.from.log_offset))
		rc = hjc_tool_fail(CMD, EX_DATAERR,
		                   "%s is not the card log the state names, or "
		                   "is shorter than it says (%" PRIu64
		                   " bytes); nothing was changed",
		                   r->cfg.card_log, w.from.log_offset);
	/* Rotated since the boundary: the boundary's file must be one of
	 * those renamed from the card log before it (rotated_files).  Its lines
	 * after the boundary, those of the files renamed after it and the
	 * card log's are kept aside, in that order; then it is cut there and
	 * becomes the card log again, and the files after it go (their lines
	 * are all aside). */
	if (rc == EX_OK && (w.to.log_dev != w.from.log_dev ||
	                    w.to.log_ino != w.from.log_ino)) {
		bk = boundary_file(r, &w.to);
		if (bk == r->nprev)
			rc = hjc_tool_fail(
			    CMD, EX_DATAERR,
			    "the card log was rotated after block %" PRIu64
			    ", and the file it was then is not beside it "
			    "under a name of its own (moved or compressed), "
			    "or more than %d rotations back: nothing was "
			    "changed",
			    w.to.height, ROTATED_MAX);
		else if ((prevfd = open(r->prevs[bk].path,
		                        O_RDWR | O_CLOEXEC)) < 0 ||
		         fstat(prevfd, &sb) != 0)
			rc = hjc_tool_fail(CMD, EX_NOINPUT, "%s: %s",
			                   r->prevs[bk].path, strerror(errno));
		else if ((uint64_t)sb.st_ino != r->prevs[bk].ino ||
		         (uint64_t)sb.st_size < w.to.log_offset)
			rc = hjc_tool_fail(
			    CMD, EX_DATAERR,
			    "%s changed while read, or is shorter "
			    "than the state says; nothing was "
			    "changed",
			    r->prevs[bk].path);
		else {
			/* The file that becomes the card log, for the cursor.
			 */
			w.to.log_dev = r->prevs[bk].dev;
			w.to.log_ino = r->prevs[bk].ino;
			sg[nseg++] =
			    (struct seg){r->prevs[bk].path, prevfd,
			                 w.to.log_offset, (uint64_t)sb.st_size};
		}
		for (size_t k = bk; rc == EX_OK && k-- > 0;) {
			const struct rotated *f = &r->prevs[k];
			int fd = open(f->path, O_RDONLY | O_CLOEXEC);

			if (fd < 0 || fstat(fd, &sb) != 0 ||
			    (uint64_t)sb.st_ino != f->ino) {
				rc = hjc_tool_fail(
				    CMD, EX_NOINPUT, "%s: %s", f->path,
				    fd < 0 ? strerror(errno)
				           : "changed while read; nothing was "
				             "changed");
				if (fd >= 0)
					close(fd);
				break;
			}
			newer[nnewer++] = fd;
			sg[nseg++] =
			    (struct seg){f->path, fd, 0, (uint64_t)sb.st_size};
		}
	}
	if (rc == EX_OK) {
		sg[nseg++] = (struct seg){r->cfg.card_log, logfd,
		                          prevfd >= 0 ? 0 : w.to.log_offset,
		                          w.from.log_offset};
		snprintf(aside, sizeof aside, "%s.rewound-%" PRIu64 "-%" PRIu64,
		         r->cfg.card_log, w.to.height + 1, w.from.height);
		rc = keep_aside(sg, nseg, aside);
	}
	if (rc == EX_OK &&
	    (e = hj_store_rewind(s, fork, &w, err, sizeof err))) {
		unlink(aside); /* nothing was changed: no copy either */
		rc = hjc_tool_fail(CMD, EX_IOERR, "%s", err);
	}
	/* The database is rewound: the daemon would cut the log back at its
	 * start anyway; it is done here so that the log says so now.  After
	 * a rotation, the boundary's file is cut and put back under the card
	 * log's name (the newer files' lines are aside): the daemon refuses to
	 * start until that is done. */
	if (rc == EX_OK && prevfd < 0 &&
	    (ftruncate(logfd, (off_t)w.to.log_offset) != 0 ||
	     fsync(logfd) != 0))
		rc = hjc_tool_fail(CMD, EX_IOERR,
		                   "%s: %s (hashjackd cuts it back to %" PRIu64
		                   " bytes when it starts)",
		                   r->cfg.card_log, strerror(errno),
		                   w.to.log_offset);
	if (rc == EX_OK && prevfd >= 0 &&
	    (ftruncate(prevfd, (off_t)w.to.log_offset) != 0 ||
	     fsync(prevfd) != 0 ||
	     rename(r->prevs[bk].path, r->cfg.card_log) != 0 ||
	     sync_dir(r->cfg.card_log) != 0))
		rc =
		    hjc_tool_fail(CMD, EX_IOERR,
		                  "%s: %s: the state is rewound; cut this file "
		                  "to %" PRIu64 " bytes and rename it to %s "
		                  "before hashjackd starts",
		                  r->prevs[bk].path, strerror(errno),
		                  w.to.log_offset, r->cfg.card_log);
	/* The files rotated after the boundary's: every line of theirs is
	 * aside, and none is the card log any more. */
	for (size_t k = 0; rc == EX_OK && k < bk; k++)
		if (unlink(r->prevs[k].path) != 0)
			rc = hjc_tool_fail(
			    CMD, EX_IOERR,
			    "%s: %s (its lines are in %s: remove "
			    "it before hashjackd starts)",
			    r->prevs[k].path, strerror(errno), aside);
	if (rc == EX_OK && bk > 0)
		(void)sync_dir(r->cfg.card_log);
	if (rc == EX_OK) {
		const char *u = unit(r);

		hex_of(r, w.to.hash, h);
		printf("rewound to block %" PRIu64 " (%s): the last batch "
		       "boundary at or below the fork point %" PRIu64 "\n",
		       w.to.height, h, fork);
		uint64_t kept = 0;

		for (size_t k = 0; k < nseg; k++)
			kept += sg[k].to - sg[k].from;
		printf("  card log        the lines of blocks %" PRIu64
		       " to %" PRIu64 " (%" PRIu64 " bytes) kept aside in %s; "
		       "the log now ends after block %" PRIu64 "\n",
		       w.to.height + 1, w.from.height, kept, aside,
		       w.to.height);
		if (prevfd >= 0)
			printf(
			    "  rotated         %s, which logrotate had renamed "
			    "it to, is the card log again\n",
			    r->prevs[bk].path);
		for (size_t k = 0; k < bk; k++)
			printf("  rotated         %s removed: its lines are "
			       "aside\n",
			       r->prevs[k].path);
		printf("  open rounds     %" PRIu64
		       " round rows put back or removed\n",
		       w.rounds);
		printf("  transactions    %" PRIu64 " removed\n", w.txs);
		if (w.commits > 0)
			printf("  Commits         %" PRIu64 " removed with "
			       "their blocks; the dealer's seed chains are "
			       "kept\n",
			       w.commits);
		printf("  payouts         %" PRIu64
		       " owed removed (%s %s); %" PRIu64
		       " paid or in flight kept, orphaned (%s %s): each is "
		       "taken back by the same debt on the new chain, else it "
		       "is the dealer's loss\n",
		       w.dropped, hj_amount_format(w.dropped_sum, a), u,
		       w.orphaned, hj_amount_format(w.orphaned_sum, b), u);
		printf("  payout batches  %" PRIu64
		       " confirmed in blocks after the fork point: in flight "
		       "again, until the payer finds them on the new chain\n",
		       w.unconfirmed);
		printf("start hashjackd: it deals block %" PRIu64
		       " on from the node's chain\n",
		       w.to.height + 1);
	}
	if (logfd >= 0)
		close(logfd);
	if (prevfd >= 0)
		close(prevfd);
	for (size_t k = 0; k < nnewer; k++)
		close(newer[k]);
	hj_store_close(s);
	close(lock);
	return rc;
}

int hjc_reorg_main(int argc, char **argv)
{
	struct run r = {0};
	const char *conf = NULL;
	char err[HJ_ERRLEN], *db = NULL;
	int rc = EX_OK, e, rewind = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return hjc_reorg_help();
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) &&
		    i + 1 < argc)
			conf = argv[++i];
		else if (!strncmp(argv[i], "--config=", 9))
			conf = argv[i] + 9;
		else if (!strcmp(argv[i], "--rewind"))
			rewind = 1;
		else if (!hjc_tool_is_key(argv[i]))
			return hjc_tool_usage(CMD, "unknown argument \"%s\"",
			                      argv[i]);
	}
	if (conf == NULL)
		return hjc_tool_usage(CMD, "give -c FILE, hashjackd's "
		                           "configuration");
	hj_config_init(&r.cfg);
	rc = hjc_tool_config(CMD, &r.cfg, conf, NULL, NULL, argc, argv);
	if (rc == EX_OK && hj_config_state_paths(&r.cfg, err, sizeof err))
		rc = hjc_tool_fail(CMD, EX_OSERR, "%s", err);
	r.evm = r.cfg.family == HJ_EVM;
	if (rc == EX_OK && (db = malloc(strlen(r.cfg.state_dir) + 20)) == NULL)
		rc = hjc_tool_fail(CMD, EX_OSERR, "out of memory");
	if (rc == EX_OK) {
		snprintf(db, strlen(r.cfg.state_dir) + 20,
		         "%s/hashjackd.sqlite", r.cfg.state_dir);
		e = hj_store_read(db, read_db, reset_db, &r, err, sizeof err);
		if (e)
			rc = hjc_tool_fail(CMD, hjc_tool_exit_code(e), "%s",
			                   err);
	}
	if (rc == EX_OK && !r.have_cursor)
		rc = hjc_tool_fail(
		    CMD, EX_NOINPUT,
		    "%s: no block processed yet: nothing can have "
		    "left the chain",
		    db);
	if (rc == EX_OK)
		rc = read_log(&r);
	if (rc == EX_OK && r.nlines == 0)
		rc = hjc_tool_fail(CMD, EX_NOINPUT,
		                   "%s: no line up to block %" PRIu64,
		                   r.cfg.card_log, r.cur.height);
	if (rc == EX_OK)
		rc = walk(&r);
	if (rc == EX_OK) {
		if (!r.forked) {
			char h[67];

			hex_of(&r, r.lines[r.nlines - 1].hash, h);
			printf("no reorganisation: the node has block %" PRIu64
			       " as the dealer dealt it (%s)\n",
			       r.lines[r.nlines - 1].height, h);
		} else {
			report(&r);
			rc = rewind ? rewind_state(&r, db) : 1;
		}
	}
	free(db);
	free(r.lines);
	free(r.pays);
	free(r.opens);
	hj_config_free(&r.cfg);
	return rc;
}
