/* `hashjack export`: a replay document of a node's blocks (export.h). */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <uv.h>

#include "cardlog.h"
#include "config.h"
#include "driver.h"
#include "hex.h"
#include "logsrc.h"
#include "node.h"
#include "say.h"
#include "seed.h"
#include "tool.h"

#define CMD "export"
/* Blocks asked of the node at once. */
#define BATCH_MAX 100

static const char usage[] =
    "Usage: hashjack export -c FILE [--from H] [--to H] [--log FILE|-]\n"
    "                       [-o FILE] [--SECTION.KEY=VALUE]...\n"
    "\n"
    "Writes blocks FROM to TO of your node as a `hashjack replay` document\n"
    "(docs/CLI.md): the dealer's table and every transaction of every\n"
    "block, for replaying the dealer's log with any implementation.\n"
    "`hashjack replay` of it prints the dealer's card log lines of those\n"
    "blocks when FROM is the dealer's first block, or a block before which\n"
    "no round is open (a replay begins with none).\n"
    "\n"
    "  -c, --config FILE     the dealer's table and your node, in\n"
    "                        hashjackd.conf's form: [chain] (family, coin,\n"
    "                        rpc_url and credentials, batch_blocks,\n"
    "                        confirmations), [dealer] address, [rules]\n"
    "  --from H              the first block (default: [chain]\n"
    "                        start_height, when set)\n"
    "  --to H                the last block (default: the last final one,\n"
    "                        the node's tip - [chain] confirmations + 1,\n"
    "                        or with confirmations = finalized or safe the\n"
    "                        node's block of that tag)\n"
    "  --log FILE|-          the dealer's card log (- for standard input):\n"
    "                        under cards = committed, required, and each\n"
    "                        block's \"seed\" is copied from its line\n"
    "                        (blocks[i].seed), so that the replay deals\n"
    "                        the keyed cards; refused under cards = hash\n"
    "  -o, --output FILE     write the document to FILE, which appears only\n"
    "                        once complete (default: standard output)\n"
    "  --SECTION.KEY=VALUE   a configuration key over the file's\n"
    "\n"
    "A request the node fails is tried again, each failure said on\n"
    "standard error, up to 8 attempts or 60 s, whichever comes first; then\n"
    "the export ends with status 69 and the last failure.  On a terminal a\n"
    "progress line says the block, the rate and the time left.\n"
    "\n"
    "Exit status: 0 written; 64 usage error (FROM after TO, no FROM,\n"
    "--log missing or not of use); 65 the log has no line of a block, a\n"
    "line that does not read, or a seed whose chain was committed before\n"
    "FROM; 66 the log cannot be opened; 69 the node refuses\n"
    "(credentials, another chain), does not answer (8 attempts or 60 s)\n"
    "or answers what cannot be a block; 70 out of memory; 73 FILE cannot\n"
    "be created; 74 writing failed or reading the log; 75 the range\n"
    "goes beyond the node's tip, or the node's chain changed while\n"
    "exporting: try again; 78 a bad configuration; 130 and 143\n"
    "interrupted (SIGINT, SIGTERM).\n";

int hjc_export_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

struct run {
	uv_loop_t loop;
	uv_signal_t sig[2];
	int nsig;
	hj_config *cfg;
	hjc_tool_node node; /* the blocks from..to, one batch at once */
	const char *path;   /* -o, or NULL: standard output */
	char *tmp;          /* the file written until it is complete */
	FILE *out;
	uint64_t from, to, next, tip;
	int from_set, to_set;
	char genesis[65]; /* Bitcoin family: block 0's hash, as displayed */
	uint8_t last[32]; /* the hash of block next - 1, once written */
	char *hex;        /* scratch for hex text */
	size_t hexcap;
	uint64_t t0;
	int rc, done;
	/* --log: the dealer's card log, read along with the blocks. */
	const char *log_path;
	hjc_logsrc *log;
	uint64_t log_lineno; /* lines read */
	int log_started;     /* a line was read: log_last is its height */
	uint64_t log_last;
	hj_commits commits; /* the log's commit events so far */
	int hash_noted;     /* a line's hash not the node's: said once */
};

/* A note on stderr, on a line of its own. */
#define say(...) hjc_tool_note(CMD, __VA_ARGS__)

static void finish(struct run *r, int rc)
{
	if (r->done)
		return;
	r->done = 1;
	hjc_tool_progress_end();
	r->rc = rc;
	for (int i = 0; i < r->nsig; i++)
		uv_close((uv_handle_t *)&r->sig[i], NULL);
	hjc_tool_node_close(&r->node);
}

static void on_signal(uv_signal_t *s, int signum)
{
	struct run *r = s->data;
	say("interrupted at block %" PRIu64 "%s", r->next,
	    r->tmp ? "; nothing written" : "");
	finish(r, 128 + signum);
}

/* A write failed (errno set): said, and the run ends. */
static void write_failed(struct run *r)
{
	say("%s: %s", r->path ? r->path : "standard output", strerror(errno));
	finish(r, EX_IOERR);
}

/* b[0..n) as hex into the scratch, behind "0x" when with_0x; NULL when
 * out of memory (said, the run ends). */
static const char *hex_of(struct run *r, const uint8_t *b, size_t n,
                          int with_0x)
{
	if (n > (SIZE_MAX - 3) / 2) {
		errno = ENOMEM;
		return NULL;
	}
	if (2 * n + 3 > r->hexcap) {
		size_t cap = 2 * n + 3;
		char *p = realloc(r->hex, cap);
		if (!p) {
			say("out of memory");
			finish(r, EX_SOFTWARE);
			return NULL;
		}
		r->hex = p;
		r->hexcap = cap;
	}
	hj_hex_encode(b, n, with_0x, r->hex);
	return r->hex;
}

/*
 * The document's head, up to the blocks' "[": the chain, the genesis, the
 * dealer and the table as the configuration has them: the preset, each
 * rule key set over it, the limits, the timeout and max_exposure.  Every
 * value here is plain ASCII (an address that parsed, a preset's name,
 * hj_rules_get_key's text, numbers), so nothing needs escaping.
 */
static int write_head(struct run *r)
{
	const hj_config *c = r->cfg;
	const hj_rules *rules = &c->rules;
	const char *name = rules->preset ? rules->preset : "bethash";
	hj_rules preset;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];
	FILE *f = r->out;
	int evm = c->family == HJ_EVM;

	if (hj_rules_preset(name, &preset))
		return -1; /* the configuration checked it */
	fprintf(f, "{\"chain\":\"%s\",", r->node.be->ops->chain);
	if (!evm)
		fprintf(f, "\"genesis\":\"%s\",", r->genesis);
	fprintf(f, "\"dealer\":\"%s\",\"rules\":{\"preset\":\"%s\"",
	        c->dealer.text, name);
	for (size_t i = 0; hj_rule_keys[i]; i++) {
		char v[HJ_RULE_VALUE_MAX], p[HJ_RULE_VALUE_MAX];
		if (hj_rules_get_key(rules, hj_rule_keys[i], v) < 0 ||
		    hj_rules_get_key(&preset, hj_rule_keys[i], p) < 0 ||
		    strcmp(v, p) == 0)
			continue;
		fprintf(f, ",\"%s\":\"%s\"", hj_rule_keys[i], v);
	}
	fprintf(f,
	        ",\"min_bet\":\"%s\",\"max_bet\":\"%s\",\"timeout_blocks\":"
	        "%" PRIu32,
	        hj_amount_format(rules->min_bet, a),
	        hj_amount_format(rules->max_bet, b), rules->timeout_blocks);
	if (rules->max_exposure)
		fprintf(f, ",\"max_exposure\":\"%s\"",
		        hj_amount_format(rules->max_exposure, a));
	return fputs("},\"blocks\":[", f) < 0 ? -1 : 0;
}

/* One EVM transaction: hash, from, to, value, input, and the receipt's
 * status for one to the dealer (whose receipt was read). */
static int write_evm_tx(struct run *r, const hj_chain_tx *t)
{
	char h[67], from[43], to[43], v[HJ_AMOUNT_STRLEN];
	const char *in;

	hj_hex_encode(t->hash, 32, 1, h);
	hj_hex_encode(t->from, 20, 1, from);
	hj_hex_encode(t->to, 20, 1, to);
	if (!(in = hex_of(r, t->data, t->len, 1)))
		return -1;
	fprintf(r->out,
	        "{\"hash\":\"%s\",\"from\":\"%s\",\"to\":%s%s%s,"
	        "\"value\":\"%s\",\"input\":\"%s\"",
	        h, from, t->has_to ? "\"" : "", t->has_to ? to : "null",
	        t->has_to ? "\"" : "", hj_amount_format(t->value, v), in);
	if (t->to_dealer)
		fprintf(r->out, ",\"status\":\"%s\"",
		        t->failed ? "0x0" : "0x1");
	return fputc('}', r->out) == EOF ? -1 : 0;
}

/*
 * The dealer's log, read along with the blocks: its lines are in height
 * order (hashjackd appends one per block and cuts back to its last commit
 * when it restarts), so one pass finds each block's line, and memory
 * holds one line and the Commits that may still be in force.
 */

/* The log's line at fault: said, the run ends with code. */
#define log_fail(r, code, ...)                                                 \
	do {                                                                   \
		say(__VA_ARGS__);                                              \
		finish(r, code);                                               \
	} while (0)

/* Remembers the commit events of line l: the chains the dealer dealt
 * from, as its table had them (a commit event is a valid Commit). */
static int log_commits(struct run *r, const hj_cardlog_line *l)
{
	for (size_t i = 0; i < l->nevents; i++) {
		const hj_cardlog_ev *e = &l->events[i];
		hj_commit c;
		if (e->type != HJ_EV_COMMIT)
			continue;
		c = (hj_commit){.start = e->start,
		                .length = e->length,
		                .height = l->height,
		                .tx_index = e->tx_index,
		                .txid = e->tx};
		memcpy(c.commitment, e->commitment, HJ_SEED_LEN);
		if (hj_commits_add(&r->commits, &c)) {
			log_fail(r, EX_SOFTWARE, "out of memory");
			return -1;
		}
	}
	return 0;
}

/*
 * The next line of the log into *l: 1, 0 at its end, -1 when the run
 * ended (said).  A line of a block before FROM is read whole only when
 * it may hold a commit event: the rest need their height alone.
 */
static int log_next(struct run *r, hj_cardlog_line *l)
{
	char err[HJ_ERRLEN];
	hjc_logsrc_line ln;
	hj_cardlog_err why;
	uint64_t h;
	int got, e;

	for (;;) {
		got = hjc_logsrc_next(r->log, &ln, err, sizeof err);
		if (got == -EMSGSIZE) {
			log_fail(r, EX_DATAERR,
			         "%s: line %" PRIu64 ": longer than %u bytes: "
			         "not a card log line",
			         r->log_path, r->log_lineno + 1,
			         (unsigned)HJ_CARDLOG_MAX - 1);
			return -1;
		}
		if (got < 0) {
			log_fail(r, got == -ENOMEM ? EX_SOFTWARE : EX_IOERR,
			         "%s", err);
			return -1;
		}
		if (got == 0) {
			if (hjc_logsrc_partial(r->log)) {
				log_fail(r, EX_DATAERR,
				         "%s: line %" PRIu64 ": no newline at "
				         "its end (a partial line)",
				         r->log_path, r->log_lineno + 1);
				return -1;
			}
			return 0;
		}
		r->log_lineno++;
		if (hj_cardlog_height(ln.text, ln.len, &h)) {
			log_fail(r, EX_DATAERR,
			         "%s: line %" PRIu64 ": not a card log line "
			         "(no height)",
			         r->log_path, r->log_lineno);
			return -1;
		}
		if (r->log_started && h <= r->log_last) {
			log_fail(r, EX_DATAERR,
			         "%s: line %" PRIu64 ": block %" PRIu64
			         " after block %" PRIu64
			         ": the log is not in height order",
			         r->log_path, r->log_lineno, h, r->log_last);
			return -1;
		}
		r->log_started = 1;
		r->log_last = h;
		if (h < r->from && !memmem(ln.text, ln.len, "\"commit\"", 8))
			continue;
		e = hj_cardlog_read(ln.text, ln.len, r->cfg->family, l, &why);
		if (e) {
			log_fail(r, e == -ENOMEM ? EX_SOFTWARE : EX_DATAERR,
			         "%s: line %" PRIu64 " (block %" PRIu64 "): %s",
			         r->log_path, r->log_lineno, h, why.msg);
			return -1;
		}
		if (h >= r->from)
			return 1;
		e = log_commits(r, l);
		hj_cardlog_line_free(l);
		if (e)
			return -1;
	}
}

/*
 * The seed of block b from its line in the log: 0 with *has (and seed)
 * as the line says, or -1 when the run ended (said): the log has no line
 * of b, or the line's seed is of a chain committed before FROM, which a
 * replay of the document cannot know.
 */
static int log_seed(struct run *r, const hj_chain_block *b, int *has,
                    uint8_t seed[HJ_SEED_LEN])
{
	hj_cardlog_line l = {0}; /* freed whether read or not */
	const hj_commit *c;
	int got, rc = 0;

	*has = 0;
	got = log_next(r, &l);
	if (got < 0)
		return -1;
	if (got == 0 || l.height > b->height) {
		if (got)
			log_fail(r, EX_DATAERR,
			         "%s has no line of block %" PRIu64
			         " (its next is block %" PRIu64 ")",
			         r->log_path, b->height, l.height);
		else if (r->log_started)
			log_fail(r, EX_DATAERR,
			         "%s has no line of block %" PRIu64
			         " (its last is block %" PRIu64 ")",
			         r->log_path, b->height, r->log_last);
		else
			log_fail(r, EX_DATAERR,
			         "%s has no line of block %" PRIu64
			         " (it is empty)",
			         r->log_path, b->height);
		hj_cardlog_line_free(&l);
		return -1;
	}
	if (memcmp(l.hash, b->hash, 32) != 0 && !r->hash_noted) {
		/* The seed is the height's, whatever the block: copied, and
		 * the replay's line will show the difference. */
		r->hash_noted = 1;
		say("note: block %" PRIu64 " of the log is not your node's "
		    "(another hash): its replay will differ from the log",
		    b->height);
	}
	hj_commits_prune(&r->commits, b->height);
	c = hj_commits_at(&r->commits, b->height);
	if (l.has_seed && c != NULL && c->height < r->from) {
		log_fail(r, EX_DATAERR,
		         "block %" PRIu64 " is dealt from the chain "
		         "committed in block %" PRIu64
		         ", before --from %" PRIu64
		         ": a replay of the document cannot check its seed; "
		         "export from block %" PRIu64 " or before",
		         b->height, c->height, r->from, c->height);
		rc = -1;
	} else if (l.has_seed) {
		*has = 1;
		memcpy(seed, l.seed, HJ_SEED_LEN);
	}
	if (rc == 0)
		rc = log_commits(r, &l);
	hj_cardlog_line_free(&l);
	return rc;
}

/* One block, on a line of its own: height, hash, parent, every
 * transaction. */
static int write_block(struct run *r, const hj_chain_block *b)
{
	int evm = r->cfg->family == HJ_EVM, has_seed = 0;
	char h[67], p[67], sh[2 * HJ_SEED_LEN + 1];
	uint8_t seed[HJ_SEED_LEN];

	if (r->log && log_seed(r, b, &has_seed, seed))
		return -1;
	hj_hex_encode(b->hash, 32, evm, h);
	hj_hex_encode(b->parent, 32, evm, p);
	fprintf(r->out,
	        "%s\n{\"height\":%" PRIu64 ",\"hash\":\"%s\",\"parent\":\"%s\"",
	        b->height == r->from ? "" : ",", b->height, h, p);
	if (has_seed) {
		hj_hex_encode(seed, HJ_SEED_LEN, 0, sh);
		fprintf(r->out, ",\"seed\":\"%s\"", sh);
	}
	fputs(",\"txs\":[", r->out);
	for (size_t i = 0; i < b->nall; i++) {
		const hj_chain_tx *t = &b->all[i];
		const char *raw;
		if (i)
			fputc(',', r->out);
		if (evm) {
			if (write_evm_tx(r, t))
				return -1;
		} else {
			if (!(raw = hex_of(r, t->data, t->len, 0)))
				return -1;
			fprintf(r->out, "\"%s\"", raw);
		}
	}
	return fputs("]}", r->out) < 0 ? -1 : 0;
}

/* "export: block H of TO, N blocks/s, P %, about S s left" on one line of
 * a terminal, rewritten after each batch. */
static void progress(struct run *r)
{
	uint64_t done = r->next - r->from, all = r->to - r->from + 1;
	double secs = (double)(uv_hrtime() - r->t0) / 1e9;
	double rate = secs > 0 ? (double)done / secs : 0;

	if (!done)
		return;
	hjc_tool_progress("export: block %" PRIu64 " of %" PRIu64
	                  ", %.0f blocks/s, %.0f %%, about %.0f s left",
	                  r->next - 1, r->to, rate,
	                  100.0 * (double)done / (double)all,
	                  rate > 0 ? (double)(all - done) / rate : 0.0);
}

/* The document is complete: its end, then the file in its place. */
static void complete(struct run *r)
{
	if (fputs("\n]}\n", r->out) < 0 || fflush(r->out) != 0 ||
	    ferror(r->out)) {
		write_failed(r);
		return;
	}
	if (r->tmp) {
		FILE *f = r->out;
		r->out = NULL;
		if (fsync(fileno(f)) != 0) {
			int e = errno;
			fclose(f);
			errno = e;
			write_failed(r);
			return;
		}
		if (fclose(f) != 0 || rename(r->tmp, r->path) != 0) {
			write_failed(r);
			return;
		}
		free(r->tmp);
		r->tmp = NULL;
	}
	finish(r, EX_OK);
}

/* The driver's blocks, in height order from --from on: each written on
 * its line; the document complete after --to. */
static void on_blocks(void *arg, hj_chain_block *blocks, size_t n)
{
	struct run *r = arg;

	if (r->done)
		return;
	for (size_t i = 0; i < n; i++) {
		const hj_chain_block *b = &blocks[i];
		/* The blocks come in batches: one of another chain (a
		 * reorganisation between two) would make a document that
		 * no node ever held. */
		if (r->next > r->from &&
		    memcmp(b->parent, r->last, sizeof r->last) != 0) {
			say("the node's chain changed while exporting: block "
			    "%" PRIu64 "'s parent is not the block %" PRIu64
			    " written; export again",
			    b->height, b->height - 1);
			finish(r, EX_TEMPFAIL);
			return;
		}
		if (write_block(r, b)) {
			if (!r->done)
				write_failed(r);
			return;
		}
		memcpy(r->last, b->hash, sizeof r->last);
		r->next++;
	}
	if (ferror(r->out)) {
		write_failed(r);
		return;
	}
	progress(r);
	if (r->next > r->to)
		complete(r);
}

/* A request the node failed: the client has already tried it again up
 * to its budget (8 attempts or 60 s), and the driver gives up. */
static void on_failed(void *arg, uint64_t from, size_t n, const char *error,
                      unsigned delay_ms)
{
	struct run *r = arg;

	(void)n;
	(void)delay_ms;
	if (error)
		say("node: %s", error);
	else
		say("node: no block from %" PRIu64 " on, though its tip is "
		    "%" PRIu64,
		    from, r->tip);
	finish(r, EX_UNAVAILABLE);
}

static void on_fatal(void *arg, int err)
{
	(void)err;
	say("out of memory");
	finish(arg, EX_SOFTWARE);
}

/* -o: a new file beside FILE, renamed over it once complete; the mode
 * a plain creation would give. */
static int open_output(struct run *r)
{
	size_t n;
	mode_t mask;
	int fd;

	if (!r->path) {
		r->out = stdout;
		return 0;
	}
	n = strlen(r->path) + sizeof ".XXXXXX";
	r->tmp = malloc(n);
	if (!r->tmp) {
		say("out of memory");
		return EX_SOFTWARE;
	}
	snprintf(r->tmp, n, "%s.XXXXXX", r->path);
	fd = mkstemp(r->tmp);
	if (fd < 0) {
		say("%s: %s", r->path, strerror(errno));
		free(r->tmp);
		r->tmp = NULL;
		return EX_CANTCREAT;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(r->out = fdopen(fd, "w"))) {
		say("%s: %s", r->tmp, strerror(errno));
		close(fd);
		unlink(r->tmp);
		free(r->tmp);
		r->tmp = NULL;
		return EX_CANTCREAT;
	}
	return 0;
}

/* The node's tip and its last final block (has_final 0: none yet):
 * tip - [chain] confirmations + 1, or the node's own finalized or safe
 * block. */
static void on_tip(void *arg, const hj_driver_tip *t, const char *error)
{
	struct run *r = arg;
	char how[96];
	int rc;

	if (r->done)
		return;
	if (error) {
		say("node: %s", error);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	r->tip = t->tip;
	if (r->cfg->finality)
		snprintf(how, sizeof how, "the node's %s block is %" PRIu64,
		         hj_finality_name(r->cfg->finality), t->final);
	else
		snprintf(how, sizeof how, "[chain] confirmations = %u",
		         r->cfg->confirmations);
	if (!r->to_set) {
		if (!t->has_final || t->final < r->from) {
			say("no final block from %" PRIu64
			    " on yet: the node's "
			    "tip is %" PRIu64 " (%s)",
			    r->from, t->tip, how);
			finish(r, EX_TEMPFAIL);
			return;
		}
		r->to = t->final;
	} else if (r->to > t->tip) {
		say("--to %" PRIu64 " is beyond the node's tip, block %" PRIu64
		    ": no such block yet",
		    r->to, t->tip);
		finish(r, EX_TEMPFAIL);
		return;
	} else if (!t->has_final || r->to > t->final) {
		uint64_t first = t->has_final ? t->final + 1 : 0;
		say("note: blocks from %" PRIu64 " on are not final yet "
		    "(%s): a reorganisation may replace them",
		    first > r->from ? first : r->from, how);
	}
	if ((rc = open_output(r)) != 0) {
		finish(r, rc);
		return;
	}
	if (write_head(r)) {
		write_failed(r);
		return;
	}
	r->next = r->from;
	r->t0 = uv_hrtime();
	/* Up to the tip, not only the final blocks: --to may name blocks
	 * not final yet (said above). */
	if (hj_driver_start(r->node.drv, r->from, r->to + 1)) {
		say("out of memory");
		finish(r, EX_SOFTWARE);
	}
}

static void on_identity(void *arg, const char *identity, const char *error,
                        int permanent)
{
	struct run *r = arg;
	int rc;
	(void)permanent;
	if (r->done)
		return;
	if (error) {
		say("node: %s", error);
		finish(r, EX_UNAVAILABLE);
		return;
	}
	if (r->cfg->family == HJ_BITCOIN) {
		/* "bitcoin:COIN:NETWORK:GENESIS" (btc_backend.h). */
		const char *g = strrchr(identity, ':');
		if (!g || strlen(g + 1) != 64) {
			say("node: no genesis hash in \"%s\"", identity);
			finish(r, EX_UNAVAILABLE);
			return;
		}
		memcpy(r->genesis, g + 1, 65);
	}
	/* -EINVAL: a finality on a family without it, which the
	 * configuration refuses. */
	rc = hj_driver_ask_tip(r->node.drv);
	if (rc) {
		say("%s", rc == -EINVAL ? "no finalized or safe block on this "
		                          "family"
		                        : "out of memory");
		finish(r, EX_SOFTWARE);
	}
}

/* A height: decimal digits, at most 2^63 - 1 (the Bitcoin family's
 * limit, far beyond any chain's). */
static int parse_height(const char *s, uint64_t *h)
{
	uint64_t v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > ((uint64_t)INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*h = v;
	return 0;
}

/* The command line into r: -c's file in *conf.  EX_OK or EX_USAGE. */
static int parse_args(struct run *r, int argc, char **argv, const char **conf)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int is_from = strcmp(a, "--from") == 0,
		    is_to = strcmp(a, "--to") == 0;
		if (strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0 ||
		    strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
		    strcmp(a, "--log") == 0 || is_from || is_to) {
			const char **dst =
			    strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0
			        ? &r->path
			    : strcmp(a, "--log") == 0 ? &r->log_path
			                              : conf;
			if (i + 1 >= argc)
				return hjc_tool_usage(CMD, "%s: no value", a);
			i++;
			if (is_from || is_to) {
				uint64_t *h = is_from ? &r->from : &r->to;
				int *set = is_from ? &r->from_set : &r->to_set;
				if (*set)
					return hjc_tool_usage(
					    CMD, "%s: given twice", a);
				if (parse_height(argv[i], h))
					return hjc_tool_usage(
					    CMD,
					    "%s \"%s\": not a block height", a,
					    argv[i]);
				*set = 1;
				continue;
			}
			if (*dst)
				return hjc_tool_usage(CMD, "%s: given twice",
				                      a);
			*dst = argv[i];
		} else if (!hjc_tool_is_key(a)) {
			return hjc_tool_usage(CMD, "unknown argument \"%s\"",
			                      a);
		}
	}
	if (!*conf)
		return hjc_tool_usage(CMD, "give -c FILE");
	if (r->path && strcmp(r->path, "-") == 0)
		r->path = NULL;
	return EX_OK;
}

int hjc_export_main(int argc, char **argv)
{
	hj_config cfg;
	const char *conf = NULL;
	char err[HJ_ERRLEN] = "out of memory";
	int rc, e;
	struct stat st;
	struct run r = {.cfg = &cfg};
	static const int sigs[2] = {SIGINT, SIGTERM};

	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return hjc_export_help();
	hj_config_init(&cfg);
	rc = parse_args(&r, argc, argv, &conf);
	if (rc == EX_OK)
		rc = hjc_tool_config(CMD, &cfg, conf, NULL, NULL, argc, argv);
	if (rc == EX_OK && !r.from_set) {
		if (cfg.start_height_set) {
			r.from = cfg.start_height;
			r.from_set = 1;
		} else {
			rc =
			    hjc_tool_usage(CMD, "give --from H (the "
			                        "configuration sets no [chain] "
			                        "start_height)");
		}
	}
	if (rc == EX_OK && r.to_set && r.from > r.to)
		rc = hjc_tool_usage(CMD,
		                    "--from %" PRIu64 " is after --to %" PRIu64,
		                    r.from, r.to);
	/* Only the dealer's log has the seeds of committed cards; under
	 * cards = hash it has nothing the document needs. */
	if (rc == EX_OK && cfg.rules.cards == HJ_CARDS_COMMITTED && !r.log_path)
		rc = hjc_tool_usage(CMD,
		                    "the rules deal cards = committed: give "
		                    "--log FILE, the dealer's card log (its "
		                    "seeds)");
	if (rc == EX_OK && cfg.rules.cards != HJ_CARDS_COMMITTED && r.log_path)
		rc = hjc_tool_usage(CMD, "--log: the rules deal cards = hash, "
		                         "whose blocks take no seed");
	/* A directory opens, and fails only once read: said now. */
	if (rc == EX_OK && r.log_path && stat(r.log_path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		rc = hjc_tool_fail(CMD, EX_NOINPUT, "%s: %s", r.log_path,
		                   strerror(EISDIR));
	if (rc == EX_OK && r.log_path &&
	    (e = hjc_logsrc_open(r.log_path, NULL, &r.log, err, sizeof err)))
		rc = hjc_tool_fail(CMD, e == -ENOMEM ? EX_SOFTWARE : EX_NOINPUT,
		                   "%s", err);
	if (rc == EX_OK && r.log_path && strcmp(r.log_path, "-") == 0)
		r.log_path = "standard input";
	if (rc != EX_OK) {
		hj_config_free(&cfg);
		return rc;
	}
	if (uv_loop_init(&r.loop) != 0) {
		rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		goto out;
	}
	/* Up to the tip, one batch at a time, every failure the end of the
	 * run (the client retries within its budget first): a document is
	 * written in height order as the blocks come, and keep_all's
	 * transactions come only with the batch at the head. */
	size_t batch =
	    cfg.batch_blocks < BATCH_MAX ? cfg.batch_blocks : BATCH_MAX;
	hj_driver_opts d = {.finality = cfg.finality,
	                    .confirmations = cfg.confirmations,
	                    .upto_tip = 1,
	                    .batch = batch ? batch : 1,
	                    .depth = 1,
	                    .hold = 1,
	                    .blocks = on_blocks,
	                    .failed = on_failed,
	                    .tip = on_tip,
	                    .fatal = on_fatal,
	                    .arg = &r};
	if (hjc_tool_node_open(&r.node, CMD, &r.loop, &cfg, 0, 1, &d, err,
	                       sizeof err) ||
	    r.node.be->ops->identity(r.node.be, on_identity, &r)) {
		rc = hjc_tool_fail(CMD, EX_CONFIG, "%s", err);
		hjc_tool_node_close(&r.node);
		uv_run(&r.loop, UV_RUN_DEFAULT);
		uv_loop_close(&r.loop);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		if (uv_signal_init(&r.loop, &r.sig[i]) != 0)
			break;
		r.nsig++;
		r.sig[i].data = &r;
		uv_signal_start_oneshot(&r.sig[i], on_signal, sigs[i]);
	}
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);
	rc = r.rc;
out:
	if (r.tmp) {
		/* Never a partial document under the name asked for. */
		if (r.out)
			fclose(r.out);
		unlink(r.tmp);
		free(r.tmp);
	}
	free(r.hex);
	hjc_logsrc_free(r.log);
	hj_commits_free(&r.commits);
	hj_config_free(&cfg);
	return rc;
}
