/* `hashjack verify`: a dealer's card log against one's own node (verify.h):
 * the command, its options and the log's source (verify_state.h says what
 * the other files do). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "say.h"
#include "verify_state.h"
#include "verify_table.h"

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
    "no line was checked; 3 the log leaves your node's chain at a fork\n"
    "point (the lines up to it agree; a reorganisation took the blocks\n"
    "after it, as in a file hashjack reorg --rewind kept aside), or under\n"
    "--follow the log was rewound and written again after one: run it\n"
    "again; 64 usage error; 65 the log begins before [chain]\n"
    "start_height, or after blocks of a chain of seeds it does not reveal\n"
    "(committed cards), or the table is not one; 66 the log or the table\n"
    "cannot be read; 69 the node refuses (credentials, another chain id\n"
    "than the table's) or does not answer (8 attempts or 60 s); 70 out of\n"
    "memory;\n"
    "74 reading the log failed; 75 the log goes beyond the node's tip:\n"
    "the blocks after it are not checked yet; 78 a bad configuration.\n";

int hjc_verify_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
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
	char base[1100], *text = NULL, err[HJ_ERRLEN];
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
	if (hjc_verify__stream_open(r, err, sizeof err))
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
	char err[HJ_ERRLEN], kv[4096];
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
		if (hjc_vpay_new(cfg.family,
		                 cfg.family == HJ_EVM ? "wei"
		                 : cfg.coin && strcmp(cfg.coin, "litecoin") == 0
		                     ? "litoshi"
		                     : "satoshi",
		                 &r.pay) != 0)
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	}
	if (rc == EX_OK) {
		hj_cardlog_init(&r.cl);
		rc = hjc_verify__run(&r);
		hj_cardlog_release(&r.cl);
		hj_table_free(r.t);
		for (size_t i = 0; i < RING; i++)
			free(r.ring[i].text);
		hjc_verify__cand_clear(&r);
		if (r.have_ahead)
			free(r.ahead.text); /* not kept yet */
	}
	hjc_vpay_free(r.pay);
	hjc_logsrc_free(r.src);
	hj_config_free(&cfg);
	return rc;
}
