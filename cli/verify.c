/* `hashjack verify`: a dealer's card log against one's own node (verify.h). */
#include "verify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "cardlog.h"
#include "config.h"
#include "deal.h"
#include "node.h"
#include "table.h"
#include "tool.h"
#include "verify_payouts.h"

#define CMD "verify"
/* Blocks asked of the node at once. */
#define BATCH_MAX 100

static const char usage[] =
    "Usage: hashjack verify -c FILE [--card-log FILE|-]\n"
    "                       [--payouts [--grace BLOCKS] [--json]] "
    "[--SECTION.KEY=VALUE]...\n"
    "\n"
    "Checks a dealer's block-to-card log against your own node: every\n"
    "block the log covers is fetched from the node and dealt through the\n"
    "dealer's own per-block step, and its line must be the log's, byte for\n"
    "byte.  The first difference is reported (the block, both lines, what\n"
    "differs) and ends the run.\n"
    "\n"
    "  -c, --config FILE     the dealer's table and your node, in\n"
    "                        hashjackd.conf's form: [chain] (family, coin,\n"
    "                        rpc_url and credentials, batch_blocks),\n"
    "                        [dealer] address, [rules]\n"
    "  --card-log FILE|-     the dealer's card log (default: [state]\n"
    "                        card_log); - reads standard input\n"
    "  --SECTION.KEY=VALUE   a configuration key over the file's\n"
    "  --payouts             then, per recipient, what the log says is\n"
    "                        owed against what the chain shows it\n"
    "                        received, in final blocks ([chain]\n"
    "                        confirmations; docs/VERIFY.md)\n"
    "  --grace BLOCKS        a debt counts once its block has been final\n"
    "                        that many blocks (default 100)\n"
    "  --json                the payouts report as JSON\n"
    "\n"
    "The log must begin at the dealer's first block (no round can be open\n"
    "before it; with [chain] start_height set, a log that begins later is\n"
    "refused).  Node errors are retried, and said on standard error; on a\n"
    "terminal a progress line says the block, the rate and the time left.\n"
    "\n"
    "Exit status: 0 every line agrees (and, with --payouts, nobody is\n"
    "short); 1 a line differs (or is missing, extra, cut or not a line),\n"
    "or a recipient is short; 64 usage error; 65 the log begins after\n"
    "[chain] start_height; 66 the log cannot be opened; 69 the node\n"
    "refuses (credentials, another chain); 70 out of memory; 74 reading\n"
    "the log failed; 75 the log goes beyond the node's tip: the blocks\n"
    "after it are not checked yet; 78 a bad configuration.\n";

int hj_verify_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

struct line {
	char *text; /* without its "\n" */
	size_t len;
	uint64_t height;
};

struct run {
	uv_loop_t loop;
	hjd_config *cfg;
	FILE *in;
	const char *name;
	hj_rpc *rpc;
	hj_backend *be;
	hj_table *t;
	hj_cardlog cl;
	struct line batch[BATCH_MAX];
	size_t n;
	struct line ahead; /* a line read beyond the node's tip */
	uint64_t next;     /* the height the next line must have */
	int started;       /* a line was read */
	uint64_t tip;      /* the node's */
	uint64_t checked, first;
	uint64_t lineno; /* lines read */
	/* Progress on a TTY: the log's size when known, bytes read, and
	 * when the run began. */
	int tty;
	int shown; /* a progress line is on the terminal */
	long long size;
	uint64_t t0;
	int rc;
	int done;
	hj_vpay *pay; /* --payouts */
	int json;
	uint64_t grace;
};

/* The run, for say(): a message ends the progress line first. */
static struct run *current;
static void end_progress(struct run *r);

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	if (current)
		end_progress(current);
	fputs("hashjack: verify: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void batch_clear(struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->batch[i].text);
	r->n = 0;
}

static void on_closed(void *arg)
{
	struct run *r = arg;
	if (r->be)
		r->be->ops->free(r->be);
	r->be = NULL;
}

/* Ends the progress line, so that what follows has lines of its own. */
static void end_progress(struct run *r)
{
	if (r->shown)
		fputc('\n', stderr);
	r->shown = 0;
}

static void finish(struct run *r, int rc)
{
	if (r->done)
		return;
	r->done = 1;
	end_progress(r);
	r->rc = rc;
	hj_rpc_close(r->rpc, on_closed, r);
	r->rpc = NULL;
}

/* A difference: the block, what differs, both lines. */
static void differ(struct run *r, uint64_t h, const char *what,
                   const char *theirs, size_t tn, const char *ours, size_t on)
{
	end_progress(r);
	printf("block %llu: %s\n", (unsigned long long)h, what);
	if (theirs)
		printf("  dealer: %.*s\n", (int)tn, theirs);
	if (ours)
		printf("  node:   %.*s\n", (int)on, ours);
	finish(r, 1);
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

/* What differs between two lines, in words, into buf: the first place,
 * the dealer's value there and the protocol's. */
static void describe(const char *theirs, size_t tn, const char *ours, size_t on,
                     char *buf, size_t n)
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

/* "verify: block H, N blocks, R blocks/s, P %, about S s left" on one
 * line of a terminal, rewritten after each batch. */
static void progress(struct run *r)
{
	if (!r->tty || !r->checked)
		return;
	double secs = (double)(uv_hrtime() - r->t0) / 1e9;
	double rate = secs > 0 ? (double)r->checked / secs : 0;
	long pos = ftell(r->in);
	fprintf(stderr, "\rverify: block %llu, %llu blocks, %.0f blocks/s",
	        (unsigned long long)(r->first + r->checked - 1),
	        (unsigned long long)r->checked, rate);
	if (r->size > 0 && pos > 0 && pos <= r->size && secs > 0) {
		double left = secs * (double)(r->size - pos) / (double)pos;
		fprintf(stderr, ", %.0f %%, about %.0f s left   ",
		        100.0 * (double)pos / (double)r->size, left);
	}
	fflush(stderr);
	r->shown = 1;
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct run *r = arg;
	char err[300], what[400];
	if (r->done)
		return;
	if (error) {
		say("node: %s", error);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	if (n == 0) {
		say("node: no block from %llu on, though its tip is %llu",
		    (unsigned long long)r->batch[0].height,
		    (unsigned long long)r->tip);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	size_t k = n < r->n ? n : r->n;
	for (size_t i = 0; i < k; i++) {
		const struct line *l = &r->batch[i];
		const char *line;
		size_t len;
		if (hj_deal_block(r->t, &r->cl, r->be->ops->chain,
		                  r->be->ops->family, &blocks[i], NULL, NULL,
		                  &line, &len, err, sizeof err) != 0) {
			say("dealing block %llu: %s",
			    (unsigned long long)blocks[i].height, err);
			finish(r, EX_SOFTWARE);
			return;
		}
		len--; /* the "\n" */
		if (len != l->len || memcmp(line, l->text, len) != 0) {
			describe(l->text, l->len, line, len, what, sizeof what);
			differ(r, l->height, what, l->text, l->len, line, len);
			return;
		}
		if (r->pay &&
		    hj_vpay_line(r->pay, l->text, l->len, err, sizeof err)) {
			say("payouts: block %llu: %s",
			    (unsigned long long)l->height, err);
			finish(r, EX_SOFTWARE);
			return;
		}
		r->checked++;
	}
	/* Lines whose blocks did not come (a node may answer fewer) are
	 * asked for again with the next ones. */
	progress(r);
	for (size_t i = 0; i < k; i++)
		free(r->batch[i].text);
	memmove(r->batch, r->batch + k, (r->n - k) * sizeof *r->batch);
	r->n -= k;
	next_batch(r);
}

/* The next line of the log into *l: 1, 0 at its end, or -1 (the run is
 * finished: a line that is not one, or a read error). */
static int read_line(struct run *r, struct line *l)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t got;
	if (r->ahead.text) {
		*l = r->ahead;
		r->ahead.text = NULL;
		return 1;
	}
	errno = 0;
	got = getline(&buf, &cap, r->in);
	if (got < 0) {
		free(buf);
		if (!ferror(r->in))
			return 0;
		say("%s: %s", r->name, strerror(errno));
		finish(r, EX_IOERR);
		return -1;
	}
	r->lineno++;
	json_t *j = NULL, *h = NULL;
	if (buf[got - 1] == '\n') {
		j = json_loadb(buf, (size_t)got - 1, 0, NULL);
		h = json_object_get(j, "height");
	}
	if (!json_is_integer(h) || json_integer_value(h) < 0) {
		end_progress(r);
		printf("line %llu: %s\n", (unsigned long long)r->lineno,
		       buf[got - 1] != '\n'
		           ? "cut: no newline at its end (a partial line)"
		           : "not a card log line (no height)");
		json_decref(j);
		free(buf);
		finish(r, 1);
		return -1;
	}
	*l = (struct line){buf, (size_t)got - 1,
	                   (uint64_t)json_integer_value(h)};
	json_decref(j);
	return 1;
}

/* --payouts' end: a recipient short makes it 1. */
static void on_paid(void *arg, int rc)
{
	struct run *r = arg;
	finish(r, rc == 0 ? r->rc : rc);
}

static void report_end(struct run *r)
{
	/* With --json, standard output is the payouts report alone. */
	FILE *out = r->json ? stderr : stdout;
	end_progress(r);
	if (!r->started) {
		say("%s: no line", r->name);
		finish(r, 1);
		return;
	} else if (r->ahead.text) {
		fprintf(out,
		        "verified blocks %llu to %llu: every line agrees; the "
		        "log goes on past the node's tip (%llu): not checked "
		        "yet\n",
		        (unsigned long long)r->first,
		        (unsigned long long)(r->first + r->checked - 1),
		        (unsigned long long)r->tip);
		r->rc = EX_TEMPFAIL;
	} else {
		fprintf(out,
		        "verified blocks %llu to %llu: every line agrees\n",
		        (unsigned long long)r->first,
		        (unsigned long long)(r->first + r->checked - 1));
		r->rc = EX_OK;
	}
	if (!r->pay) {
		finish(r, r->rc);
		return;
	}
	fflush(out);
	hj_vpay_opts o = {.confirmations = r->cfg->confirmations,
	                  .grace = r->grace,
	                  .batch = r->cfg->batch_blocks < BATCH_MAX
	                               ? r->cfg->batch_blocks
	                               : BATCH_MAX,
	                  .json = r->json,
	                  .tty = r->tty,
	                  .out = stdout};
	if (hj_vpay_end(r->pay, r->be, &o, on_paid, r)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* Reads the next lines, up to batch_blocks and the node's tip, and asks
 * the node for their blocks. */
static void next_batch(struct run *r)
{
	size_t want =
	    r->cfg->batch_blocks < BATCH_MAX ? r->cfg->batch_blocks : BATCH_MAX;
	struct line l;
	int got;
	while (r->n < want && (got = read_line(r, &l)) != 0) {
		if (got < 0)
			return;
		if (!r->started) {
			r->started = 1;
			r->first = r->next = l.height;
			if (r->cfg->start_height_set &&
			    l.height > r->cfg->start_height) {
				/* Rounds opened before it cannot be known. */
				say("%s begins at block %llu, after the "
				    "dealer's "
				    "first block ([chain] start_height = "
				    "%llu): "
				    "give the log from its first line",
				    r->name, (unsigned long long)l.height,
				    (unsigned long long)r->cfg->start_height);
				free(l.text);
				finish(r, EX_DATAERR);
				return;
			}
		}
		if (l.height != r->next) {
			char what[200];
			snprintf(
			    what, sizeof what,
			    l.height < r->next
			        ? "a line again: block %llu after block %llu"
			        : "missing: the next line is block %llu, "
			          "after block %llu",
			    (unsigned long long)l.height,
			    (unsigned long long)(r->next - 1));
			differ(r, r->next, what, l.text, l.len, NULL, 0);
			free(l.text);
			return;
		}
		if (l.height > r->tip) {
			r->ahead = l; /* kept: the node has no such block yet */
			break;
		}
		r->batch[r->n++] = l;
		r->next++;
	}
	if (r->n == 0) {
		report_end(r);
		return;
	}
	if (r->be->ops->blocks(r->be, r->batch[0].height, r->n, on_blocks, r)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	struct run *r = arg;
	if (error) {
		say("node: %s", error);
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
	(void)identity;
	(void)permanent;
	if (error) {
		say("node: %s", error);
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

static void on_retry(void *arg, const char *what, unsigned attempt,
                     unsigned delay_ms)
{
	(void)arg;
	say("node: %s (attempt %u); retrying in %u ms", what, attempt,
	    delay_ms);
}

int hj_verify_main(int argc, char **argv)
{
	hjd_config cfg;
	const char *conf = NULL, *log = NULL, *grace = NULL;
	char err[512];
	int rc = EX_OK, payouts = 0;
	struct run r = {.cfg = &cfg, .grace = HJ_VPAY_GRACE_DEFAULT};

	hjd_config_init(&cfg);
	for (int i = 0; i < argc && rc == EX_OK; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			hjd_config_free(&cfg);
			return hj_verify_help();
		}
		if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0 ||
		     strcmp(a, "--card-log") == 0) &&
		    i + 1 < argc) {
			const char **dst =
			    strcmp(a, "--card-log") == 0 ? &log : &conf;
			if (*dst)
				rc = hj_tool_usage(CMD, "%s: given twice", a);
			*dst = argv[++i];
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
				rc = hj_tool_usage(CMD,
				                   "--grace: \"%s\" is not a "
				                   "number of blocks",
				                   grace);
		} else if (!hj_tool_is_key(a)) {
			rc = hj_tool_usage(CMD, "unknown argument \"%s\"", a);
		}
	}
	if (rc == EX_OK && !conf)
		rc = hj_tool_usage(CMD, "give -c FILE");
	if (rc == EX_OK && !payouts && (r.json || grace))
		rc = hj_tool_usage(CMD, "%s is for --payouts",
		                   r.json ? "--json" : "--grace");
	if (rc == EX_OK)
		rc = hj_tool_config(CMD, &cfg, conf, argc, argv);
	if (rc != EX_OK) {
		hjd_config_free(&cfg);
		return rc;
	}
	r.name = log ? log : cfg.card_log;
	r.in = strcmp(r.name, "-") == 0 ? stdin : fopen(r.name, "r");
	if (!r.in) {
		rc = hj_tool_fail(CMD, EX_NOINPUT, "%s: %s", r.name,
		                  strerror(errno));
		hjd_config_free(&cfg);
		return rc;
	}
	struct stat st;
	r.tty = isatty(STDERR_FILENO);
	r.size = fstat(fileno(r.in), &st) == 0 && S_ISREG(st.st_mode)
	             ? (long long)st.st_size
	             : -1;
	r.t0 = uv_hrtime();
	current = &r;
	hj_rpc_opts o;
	hjd_node_rpc_opts(&cfg, &o);
	o.on_retry = on_retry;
	hj_cardlog_init(&r.cl);
	r.t = hj_table_new(&cfg.rules);
	if (payouts)
		r.pay = hj_vpay_new(
		    cfg.family, cfg.family == HJ_EVM ? "wei"
		                : cfg.coin && strcmp(cfg.coin, "litecoin") == 0
		                    ? "litoshi"
		                    : "satoshi");
	if (!r.t || (payouts && !r.pay) || uv_loop_init(&r.loop) != 0) {
		rc = hj_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		goto out;
	}
	r.rpc = hj_rpc_new(&r.loop, &o, err, sizeof err);
	if (r.rpc)
		r.be = hjd_node_backend(&cfg, r.rpc, err, sizeof err);
	if (!r.be || r.be->ops->identity(r.be, on_identity, &r)) {
		rc = hj_tool_fail(CMD, EX_CONFIG, "%s", err);
		if (r.rpc)
			hj_rpc_close(r.rpc, on_closed, &r);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		goto out;
	}
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);
	rc = r.rc;
out:
	batch_clear(&r);
	free(r.ahead.text);
	hj_cardlog_release(&r.cl);
	hj_table_free(r.t);
	hj_vpay_free(r.pay);
	current = NULL;
	if (r.in && r.in != stdin)
		fclose(r.in);
	hjd_config_free(&cfg);
	return rc;
}
