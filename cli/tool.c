/*
 * What `hashjack ledger` and `hashjack status` share besides the database
 * (see tool.h).
 */
#include "tool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "hex.h"
#include "node.h"
#include "quote.h"
#include "store.h"
#include "taproot.h"

/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define SHOWLEN 100

/* ---- messages and exit statuses -------------------------------------- */

/* A progress line is on the terminal (hjc_tool_progress). */
static int progress_shown;

int hjc_tool_progress_on(void)
{
	static int tty = -1;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	return tty;
}

void hjc_tool_progress(const char *fmt, ...)
{
	va_list ap;
	if (!hjc_tool_progress_on())
		return;
	fflush(stdout);
	fputc('\r', stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("   ", stderr); /* over the end of a longer line before */
	fflush(stderr);
	progress_shown = 1;
}

void hjc_tool_progress_end(void)
{
	if (progress_shown)
		fputc('\n', stderr);
	progress_shown = 0;
}

/* "hashjack: CMD: MESSAGE" on stderr, after what is on stdout and on a
 * line of its own; no newline. */
__attribute__((format(printf, 2, 0))) static void
tell(const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	hjc_tool_progress_end();
	fprintf(stderr, "hashjack: %s: ", cmd);
	vfprintf(stderr, fmt, ap);
}

void hjc_tool_note(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tell(cmd, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int hjc_tool_fail(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tell(cmd, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int hjc_tool_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tell(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hashjack %s --help'.\n", cmd);
	return EX_USAGE;
}

/* What hj_store_read's codes (daemon/core/store.h) mean to the user. */
int hjc_tool_exit_code(int err)
{
	switch (-err) {
	case ENOENT:
		return EX_NOINPUT;
	case EINVAL:
	case ERANGE:
		return EX_DATAERR;
	case EAGAIN:
		return EX_TEMPFAIL;
	case ENOMEM:
		return EX_SOFTWARE;
	default:
		return EX_IOERR;
	}
}

/* ---- command line ----------------------------------------------------- */

int hjc_tool_options(int argc, char **argv, const char *const *names,
                     const unsigned char *flag, size_t n, const char **v,
                     char *err, size_t errlen)
{
	char shown[SHOWLEN];

	for (size_t o = 0; o < n; o++)
		v[o] = NULL;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t len, o;

		if (strcmp(arg, "--") == 0) {
			if (i + 1 < argc) {
				hj_quote(argv[i + 1], shown, sizeof shown);
				hj_say(err, errlen, "unexpected argument %s",
				       shown);
				return -1;
			}
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			hj_quote(arg, shown, sizeof shown);
			hj_say(err, errlen, "unexpected argument %s", shown);
			return -1;
		}
		if (hjc_tool_is_key(arg))
			continue;
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (o = 0; o < n; o++)
			if (strlen(names[o]) == len &&
			    strncmp(arg, names[o], len) == 0)
				break;
		if (o == n) {
			hj_quote(arg, shown, sizeof shown);
			hj_say(err, errlen, "unknown option %s", shown);
			return -1;
		}
		if (v[o] != NULL) {
			hj_say(err, errlen, "%s given twice", names[o]);
			return -1;
		}
		if (flag[o]) {
			if (eq != NULL) {
				hj_say(err, errlen, "%s takes no value",
				       names[o]);
				return -1;
			}
			v[o] = arg;
		} else if (eq != NULL) {
			v[o] = eq + 1;
		} else if (i + 1 < argc) {
			v[o] = argv[++i];
		} else {
			hj_say(err, errlen, "%s needs a value", names[o]);
			return -1;
		}
	}
	return 0;
}

/* DIR/HJ_STORE_FILE; caller frees. */
static char *db_in(const char *dir)
{
	size_t n = strlen(dir);
	char *p;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	p = malloc(n + 1 + sizeof HJ_STORE_FILE);
	if (p != NULL)
		snprintf(p, n + 1 + sizeof HJ_STORE_FILE, "%.*s/%s", (int)n,
		         dir, HJ_STORE_FILE);
	return p;
}

char *hjc_tool_db_path(const char *file, const char *dir)
{
	hj_config cfg;
	char err[HJ_ERRLEN], *p;

	if (file != NULL)
		return strdup(file);
	if (dir != NULL)
		return db_in(dir);
	/* The daemon's own default directory ($STATE_DIRECTORY, ...). */
	hj_config_init(&cfg);
	p = hj_config_state_paths(&cfg, err, sizeof err) == 0
	        ? db_in(cfg.state_dir)
	        : NULL;
	hj_config_free(&cfg);
	return p;
}

static const char *const where_opts[HJC_TOOL_WHERE_N] = {HJC_TOOL_WHERE_OPTS};

int hjc_tool_where(const char *cmd, const char *const *v, int argc, char **argv,
                   char **path)
{
	/* v: -c, --config, --state-dir, --state, --db */
	const char *conf = v[0] ? v[0] : v[1], *dir = v[2] ? v[2] : v[3];
	/* As the user spelled them, for the messages. */
	const char *conf_name = where_opts[v[0] ? 0 : 1],
	           *dir_name = where_opts[v[2] ? 2 : 3];
	int keys = 0, rc;
	hj_config cfg;

	if (v[0] && v[1])
		return hjc_tool_usage(cmd, "-c and --config are the same "
		                           "option: give it once");
	if (v[2] && v[3])
		return hjc_tool_usage(cmd, "--state and --state-dir are the "
		                           "same option: give it once");
	if (conf && (dir || v[4]))
		return hjc_tool_usage(cmd, "%s and %s: give one or the other",
		                      conf_name, dir ? dir_name : "--db");
	if (dir && v[4])
		return hjc_tool_usage(cmd, "%s and --db: give one or the other",
		                      dir_name);
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		keys |= hjc_tool_is_key(argv[i]);
	if (keys && (dir || v[4]))
		return hjc_tool_usage(cmd,
		                      "a --SECTION.KEY=VALUE sets a key of "
		                      "the configuration: give it with -c "
		                      "FILE, or without --state-dir and "
		                      "--db");
	for (int i = 0; i < HJC_TOOL_WHERE_N; i++)
		if (v[i] && v[i][0] == '\0')
			return hjc_tool_usage(cmd, "%s: empty", where_opts[i]);
	if (!conf && !keys) {
		*path = hjc_tool_db_path(v[4], dir);
		return *path ? EX_OK
		             : hjc_tool_fail(cmd, EX_SOFTWARE, "out of memory");
	}
	hj_config_init(&cfg);
	rc = hjc_tool_config(cmd, &cfg, conf, NULL, NULL, argc, argv);
	if (rc == EX_OK) {
		*path = hjc_tool_db_path(NULL, cfg.state_dir);
		if (*path == NULL)
			rc = hjc_tool_fail(cmd, EX_SOFTWARE, "out of memory");
	}
	hj_config_free(&cfg);
	return rc;
}

/* ---- the chain a database belongs to ---------------------------------- */

static int all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hj_hex_digit((unsigned char)s[i]) < 0)
			return 0;
	return 1;
}

/* As chain/evm_backend.c and chain/btc_backend.c write them. */
int hjc_tool_chain_of(const char *path, const char *family, const char *id,
                      hjc_tool_chain *c, char *err, size_t errlen)
{
	char fam[SHOWLEN], shown[SHOWLEN], coin[32], net[32], why[HJ_ERRLEN];
	const char *p, *q;
	size_t n;

	memset(c, 0, sizeof *c);
	hj_quote(family, fam, sizeof fam);
	hj_quote(id, shown, sizeof shown);
	snprintf(c->id, sizeof c->id, "%s", id);
	if (strcmp(family, "evm") == 0) {
		n = strlen(id);
		if (n < 5 || n > 24 || strncmp(id, "evm:", 4) != 0 ||
		    strspn(id + 4, "0123456789") != n - 4)
			goto bad;
		c->evm = 1;
		c->unit = "ETH";
		c->base = "wei";
		c->decimals = 18;
		return 0;
	}
	if (strcmp(family, "bitcoin") != 0) {
		hj_say(
		    err, errlen,
		    "%s: meta: family %s is not a chain family this hashjack "
		    "knows (evm, bitcoin)",
		    path, fam);
		return -EINVAL;
	}
	if (strncmp(id, "bitcoin:", 8) != 0)
		goto bad;
	p = id + 8;
	q = strchr(p, ':');
	if (q == NULL || (size_t)(q - p) >= sizeof coin)
		goto bad;
	snprintf(coin, sizeof coin, "%.*s", (int)(q - p), p);
	p = q + 1;
	q = strchr(p, ':');
	if (q == NULL || (size_t)(q - p) >= sizeof net)
		goto bad;
	snprintf(net, sizeof net, "%.*s", (int)(q - p), p);
	if (strlen(q + 1) != 64 || !all_hex(q + 1, 64))
		goto bad;
	if (hj_taproot_hrp(coin, net, &c->hrp, why, sizeof why)) {
		hj_say(err, errlen, "%s: meta: chain %s: %s", path, shown, why);
		return -EINVAL;
	}
	if (strcmp(coin, "litecoin") == 0) {
		c->unit = "LTC";
		c->base = "litoshi";
	} else {
		c->unit = "BTC";
		c->base = "satoshi";
	}
	c->decimals = 8;
	return 0;
bad:
	hj_say(err, errlen,
	       "%s: meta: chain %s is not a chain identity of family %s "
	       "(\"evm:<chain id>\" or \"bitcoin:<coin>:<network>:<genesis>\")",
	       path, shown, fam);
	return -EINVAL;
}

/* ---- output ----------------------------------------------------------- */

char *hjc_tool_coins(hj_amount v, unsigned decimals, char buf[HJC_COINS_STRLEN])
{
	char d[HJ_AMOUNT_STRLEN];
	size_t n = strlen(hj_amount_format(v, d)), f, w = 0;

	if (n <= decimals) {
		/* 0.000ddd: the leading zeros of the fraction, then d
		 * without its trailing zeros. */
		f = n;
		while (f > 0 && d[f - 1] == '0')
			f--;
		buf[w++] = '0';
		if (f > 0) {
			buf[w++] = '.';
			for (size_t i = n; i < decimals; i++)
				buf[w++] = '0';
			memcpy(buf + w, d, f);
			w += f;
		}
		buf[w] = '\0';
		return buf;
	}
	memcpy(buf, d, n - decimals);
	w = n - decimals;
	f = decimals;
	while (f > 0 && d[n - decimals + f - 1] == '0')
		f--;
	if (f > 0) {
		buf[w++] = '.';
		memcpy(buf + w, d + n - decimals, f);
		w += f;
	}
	buf[w] = '\0';
	return buf;
}

void hjc_tool_printable(hj_buf *b, const char *s)
{
	static const char hexd[] = "0123456789abcdef";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[4] = {'\\', 'x', hexd[*p >> 4], hexd[*p & 15]};

		if (*p == '\\')
			hj_buf_put(b, "\\\\", 2);
		else if (*p >= 0x20 && *p < 0x7f)
			hj_buf_put(b, (const char *)p, 1);
		else
			hj_buf_put(b, esc, 4);
	}
}

json_t *hjc_tool_json_text(const char *s)
{
	hj_buf b = {0};
	json_t *j = json_string(s);

	if (j != NULL)
		return j;
	hjc_tool_printable(&b, s);
	j = b.err ? NULL : json_string(b.p);
	hj_buf_free(&b);
	return j;
}

int hjc_tool_is_key(const char *a)
{
	return strncmp(a, "--", 2) == 0 && strchr(a, '.') && strchr(a, '=');
}

int hjc_tool_config(const char *cmd, hj_config *cfg, const char *file,
                    int (*pre)(hj_config *cfg, void *arg), void *arg, int argc,
                    char **argv)
{
	char err[HJ_ERRLEN];
	int rc;
	if (file && hj_config_load(cfg, file, err, sizeof err) != 0)
		return hjc_tool_fail(cmd, EX_CONFIG, "%s", err);
	if (pre && (rc = pre(cfg, arg)) != EX_OK)
		return rc;
	for (int i = 0; i < argc; i++)
		if (hjc_tool_is_key(argv[i]) &&
		    hj_config_set_arg(cfg, argv[i] + 2, err, sizeof err) != 0)
			return hjc_tool_usage(cmd, "%s", err);
	if ((file || pre) && hj_config_finish(cfg, err, sizeof err) != 0)
		return hjc_tool_fail(cmd, EX_CONFIG, "%s", err);
	return EX_OK;
}

/* The outage a following command is in: its first failure was said. */
static struct {
	const char *cmd;
	int follow, down;
} rpc_say;

static void on_rpc_retry(void *arg, const hj_rpc_retry *r)
{
	(void)arg;
	if (!rpc_say.follow) {
		hjc_tool_note(rpc_say.cmd,
		              "node: %s (attempt %u of %u); retrying in %u ms",
		              r->what, r->attempt, HJC_TOOL_RPC_ATTEMPTS,
		              r->delay_ms);
		return;
	}
	if (!rpc_say.down)
		hjc_tool_note(rpc_say.cmd,
		              "node: %s; retrying until it answers, without "
		              "a line per attempt (--follow)",
		              r->what);
	rpc_say.down = 1;
}

/* A batch limit learnt: said once per change, like the daemon's. */
static void on_rpc_limit(void *arg, const hj_rpc_limit *l)
{
	(void)arg;
	if (l->refused != 0)
		hjc_tool_note(rpc_say.cmd,
		              "node: batches of %s now go in parts of at most "
		              "%zu call%s: %s",
		              l->method, l->limit, l->limit == 1 ? "" : "s",
		              l->why);
	else
		hjc_tool_note(rpc_say.cmd,
		              "node: batches of %s back up to %zu calls a part",
		              l->method, l->limit);
}

static void on_rpc_attempt(void *arg, const char *method,
                           enum hj_rpc_outcome outcome, uint64_t us)
{
	(void)arg;
	(void)us;
	if (rpc_say.down && (outcome == HJ_RPC_OK || outcome == HJ_RPC_ERROR)) {
		rpc_say.down = 0;
		hjc_tool_note(rpc_say.cmd, "node: answering again (%s)",
		              method);
	}
}

void hjc_tool_rpc_opts(const char *cmd, const hj_config *cfg, int follow,
                       hj_rpc_opts *o)
{
	hj_node_rpc_opts(cfg, o);
	rpc_say.cmd = cmd;
	rpc_say.follow = follow;
	rpc_say.down = 0;
	o->on_retry = on_rpc_retry;
	o->on_limit = on_rpc_limit;
	if (follow) {
		o->observe = on_rpc_attempt;
	} else {
		o->max_attempts = HJC_TOOL_RPC_ATTEMPTS;
		o->give_up_ms = HJC_TOOL_RPC_GIVE_UP_S * 1000u;
	}
}

int hjc_tool_node_open(hjc_tool_node *n, const char *cmd, uv_loop_t *loop,
                       const hj_config *cfg, int follow, int keep_all,
                       hj_driver_opts *d, char *err, size_t errlen)
{
	hj_rpc_opts o;
	int rc;

	*n = (hjc_tool_node){0};
	hjc_tool_rpc_opts(cmd, cfg, follow, &o);
	rc = hj_rpc_new(loop, &o, &n->rpc, err, errlen);
	if (rc == 0)
		rc = hj_node_backend_new(cfg, n->rpc, &n->be, err, errlen);
	if (rc == 0 && keep_all)
		n->be->ops->keep_all(n->be);
	if (rc == 0) {
		d->loop = loop;
		d->be = n->be;
		rc = hj_driver_new(d, &n->drv);
		if (rc)
			hj_say(err, errlen, "out of memory");
	}
	return rc;
}

static void on_node_closed(void *arg)
{
	hjc_tool_node *n = arg;

	hj_driver_free(n->drv);
	n->drv = NULL;
	if (n->be)
		n->be->ops->free(n->be);
	n->be = NULL;
}

void hjc_tool_node_close(hjc_tool_node *n)
{
	if (n->closed)
		return;
	n->closed = 1;
	hj_driver_close(n->drv);
	if (n->rpc)
		hj_rpc_close(n->rpc, on_node_closed, n);
	else
		on_node_closed(n);
	n->rpc = NULL;
}
