/*
 * hashjackd's configuration (see config.h, docs/CONFIG.md): files and
 * command-line keys read.  What each key may be is config_keys.c's, what
 * the keys mean together config_finish.c's.
 *
 * inih does the INI syntax; these files do the meaning.  inih's handler is
 * not told the line number (Debian builds it without INI_HANDLER_LINENO),
 * so the file is read into memory here and handed to ini_parse_stream() one
 * whole line per reader call: the reader's line count is then the line of
 * every handler call, and inih's own error line agrees with it.
 *
 * The reader also strips leading blanks, so that inih never takes an
 * indented line for a continuation of the previous value (a value runs to
 * the end of its line, nothing more), and it checks section headers
 * itself, so that an unknown section is reported even when empty.
 *
 * Keys are validated one at a time as they are read; what involves two keys
 * (min_bet against max_bet, the RPC credentials) is checked at the end of
 * each file, with the line of the second key, and again by finish() after
 * the command-line overrides.  Secrets are never copied into a message.
 */
#include "config_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "say.h"

/* ---- init, free ---- */

void hj_config_init(hj_config *c)
{
	memset(c, 0, sizeof *c);
	c->family = HJ_EVM;
	/* rpc_url NULL: finish() fills the family's and coin's default. */
	c->rpc_timeout_ms = 30000;
	c->rpc_max_response = (size_t)64 * 1024 * 1024;
	c->rpc_max_batch = 100;
	/* 0 is never valid: finish() fills the family's default. */
	c->confirmations = 0;
	c->poll_interval_ms = 1000;
	c->push = 1;
	c->max_outputs = MAX_OUTPUTS;
	c->max_fee_per_gas = MAX_FEE_PER_GAS;
	c->min_priority_fee = MIN_PRIORITY_FEE;
	c->stuck_after_s = STUCK_AFTER_S;
	c->min_refund_auto = 1;
	c->rewind_blocks = 1000; /* store.h: HJ_STORE_REWIND_BLOCKS */
	/* batch_blocks 0: finish() fills the family's default. */
	(void)hj_rules_preset("bethash", &c->rules);
	/* min_bet, max_bet and timeout_blocks 0 mean "not set". */
	c->rules.min_bet = 0;
	c->rules.max_bet = 0;
	c->rules.timeout_blocks = 0;
	c->log_fsync = 1;
	snprintf(c->serve.host, sizeof c->serve.host, "127.0.0.1");
	c->serve.port = 8549;
	c->metrics.max_lag = 10;
	c->seeds.length = 1000000;
	c->seeds.renew_before = 1000;
	c->seeds.lead = 50;
	c->serve.history_blocks = 10000;
	c->serve.max_connections = 20000;
	c->serve.max_connections_per_ip = 64;
	c->serve.max_subscriptions = 16;
	c->serve.request_timeout_ms = 10000;
	c->serve.idle_timeout_ms = 60000;
	c->serve.ping_interval_ms = 30000;
	c->serve.max_send_buffer = 1 << 20;
	c->serve.max_url = 2048;
	c->serve.max_header_bytes = 8192;
	c->serve.max_headers = 64;
	c->serve.max_message = 4096;
	c->serve.poll_interval_ms = 1000;
}

void hj_config_free(hj_config *c)
{
	if (c == NULL)
		return;
	free(c->coin);
	free(c->rpc_url);
	free(c->rpc_cookie_file);
	free(c->push_url);
	free(c->ca_file);
	free(c->rpc_user);
	free(c->rpc_password);
	free(c->rpc_bearer);
	free(c->address);
	free(c->payout_wallet);
	free(c->wallet_passphrase);
	free(c->sweep_to);
	free(c->dealer_key);
	free(c->state_dir);
	free(c->card_log);
	memset(c, 0, sizeof *c);
}

/* ---- the file ---- */

struct load {
	hj_config *c;
	const char *path;
	const char *p, *end;  /* the unread rest of the file */
	int line;             /* of the line last handed to inih */
	int line_of[K_COUNT]; /* where each key was set in this file, or 0 */
	int err;              /* first error, 0 if none */
	int err_line;
	char *errbuf;
	size_t errlen;
};

static void fail_at(struct load *l, int line, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail_at(struct load *l, int line, int err, const char *fmt, ...)
{
	va_list ap;
	int used;

	if (l->err)
		return;
	l->err = err;
	l->err_line = line;
	if (l->errbuf == NULL || l->errlen == 0)
		return;
	used = snprintf(l->errbuf, l->errlen, "%s:%d: ", l->path, line);
	if (used < 0 || (size_t)used >= l->errlen)
		return;
	va_start(ap, fmt);
	hj_vsay(l->errbuf + used, l->errlen - (size_t)used, fmt, ap);
	va_end(ap);
}

/*
 * inih's reader: one whole line per call, so the line count here is the
 * line of the handler call that follows.  Returning NULL ends the parse,
 * which is how an error found here stops inih.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct load *l = stream;
	const char *nl, *s;
	size_t len;

	if (l->err || l->p >= l->end)
		return NULL;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	s = l->p;
	len = nl ? (size_t)(nl - s) : (size_t)(l->end - s);
	l->p = nl ? nl + 1 : l->end;
	l->line++;

	if (memchr(s, '\0', len) != NULL) {
		fail_at(l, l->line, -EINVAL, "NUL byte in line");
		return NULL;
	}
	/* A UTF-8 byte order mark, which some editors write. */
	if (l->line == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		len -= 3;
	}
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	/*
	 * The line and its '\n' must fit inih's buffer whole: a longer line
	 * would be split, and its tail taken for a line of its own.  The
	 * '\n' also keeps a realloc-enabled inih from asking for more.
	 */
	if (num < 2 || len > (size_t)num - 2) {
		fail_at(l, l->line, -EINVAL, "line longer than %d bytes",
		        num - 2);
		return NULL;
	}
	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		char shown[4 * SHOW_MAX + 4];

		if (close == NULL) {
			fail_at(l, l->line, -EINVAL,
			        "section header without closing ']'");
			return NULL;
		}
		if (hj_config__find_section(s + 1, (size_t)(close - s - 1)) <
		    0) {
			hj_config__show(s + 1, (size_t)(close - s - 1), shown,
			                sizeof shown);
			fail_at(l, l->line, -EINVAL,
			        "[%s]: unknown section (chain, dealer, rules, "
			        "payout, state, serve, metrics)",
			        shown);
			return NULL;
		}
	}
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
	struct load *l = user;
	char sec[4 * SHOW_MAX + 4], key[4 * SHOW_MAX + 4],
	    val[4 * SHOW_MAX + 4];
	char why[HJ_ERRLEN];
	int id, r;

	if (l->err)
		return 1;
	id = hj_config__find_key(section, strlen(section), name, strlen(name));
	hj_config__show(section, strlen(section), sec, sizeof sec);
	hj_config__show(name, strlen(name), key, sizeof key);
	hj_config__show_value(id, value, val, sizeof val);
	/*
	 * An unknown key's value is not shown: it may be a secret under a
	 * misspelt name.  Only keys above the first header get id -2, since
	 * read_line refuses unknown headers.
	 */
	if (id == -2) {
		fail_at(
		    l, l->line, -EINVAL,
		    "%s: key outside a section ([chain], [dealer], [rules], "
		    "[payout], [state], [serve] or [metrics])",
		    key);
		return 0;
	}
	if (id < 0) {
		fail_at(l, l->line, -EINVAL, "[%s] %s: unknown key", sec, key);
		return 0;
	}
	if (l->line_of[id]) {
		fail_at(l, l->line, -EINVAL,
		        "[%s] %s = %s: duplicate key (first set at line %d)",
		        sec, key, val, l->line_of[id]);
		return 0;
	}
	why[0] = '\0';
	r = hj_config__keys[id].set(l->c, value, why, sizeof why);
	if (r < 0) {
		fail_at(l, l->line, r, "[%s] %s = %s: %s", sec, key, val,
		        r == -ENOMEM ? "out of memory" : why);
		return 0;
	}
	l->line_of[id] = l->line;
	return 1;
}

/*
 * What involves two keys, when both come from this file; reported at the
 * line of the later one.  finish() checks the final values again.
 */
static void check_pairs(struct load *l)
{
	const hj_config *c = l->c;
	const int *at = l->line_of;
	char a[HJ_AMOUNT_STRLEN], b[HJ_AMOUNT_STRLEN];

	if (at[K_MIN_BET] && at[K_MAX_BET] &&
	    c->rules.min_bet > c->rules.max_bet) {
		hj_amount_format(c->rules.min_bet, a);
		hj_amount_format(c->rules.max_bet, b);
		if (at[K_MAX_BET] > at[K_MIN_BET])
			fail_at(l, at[K_MAX_BET], -EINVAL,
			        "[rules] max_bet = %s: below min_bet %s "
			        "(line %d)",
			        b, a, at[K_MIN_BET]);
		else
			fail_at(l, at[K_MIN_BET], -EINVAL,
			        "[rules] min_bet = %s: above max_bet %s "
			        "(line %d)",
			        a, b, at[K_MAX_BET]);
	}
	if (at[K_MAX_BET] && at[K_MAX_EXPOSURE] && c->rules.max_exposure &&
	    c->rules.max_exposure < hj_rules_worst_max_bet(&c->rules)) {
		char w[HJ_AMOUNT_STRLEN];

		hj_amount_format(c->rules.max_bet, a);
		hj_amount_format(c->rules.max_exposure, b);
		hj_amount_format(hj_rules_worst_max_bet(&c->rules), w);
		if (at[K_MAX_EXPOSURE] > at[K_MAX_BET])
			fail_at(l, at[K_MAX_EXPOSURE], -EINVAL,
			        "[rules] max_exposure = %s: below %s, the "
			        "worst-case return of one max_bet Bet%s "
			        "(max_bet %s, line %d)",
			        b, w, SIDES(c), a, at[K_MAX_BET]);
		else
			fail_at(l, at[K_MAX_BET], -EINVAL,
			        "[rules] max_bet = %s: its worst-case return%s "
			        "%s is above max_exposure %s (line %d)",
			        a, SIDES(c), w, b, at[K_MAX_EXPOSURE]);
	}
	if (at[K_RPC_USER] && at[K_RPC_BEARER] && c->rpc_user &&
	    c->rpc_bearer) {
		int later = at[K_RPC_USER] > at[K_RPC_BEARER];
		char u[4 * SHOW_MAX + 4];

		hj_config__show_value(K_RPC_USER, c->rpc_user, u, sizeof u);
		if (later)
			fail_at(l, at[K_RPC_USER], -EINVAL,
			        "[chain] rpc_user = %s: rpc_bearer is set too "
			        "(line %d); use basic auth or a bearer token, "
			        "not both",
			        u, at[K_RPC_BEARER]);
		else
			fail_at(l, at[K_RPC_BEARER], -EINVAL,
			        "[chain] rpc_bearer = ***: rpc_user is set too "
			        "(line %d); use basic auth or a bearer token, "
			        "not both",
			        at[K_RPC_USER]);
	}
	if (at[K_RPC_USER] && c->rpc_user && c->rpc_password == NULL) {
		char u[4 * SHOW_MAX + 4];

		hj_config__show_value(K_RPC_USER, c->rpc_user, u, sizeof u);
		fail_at(l, at[K_RPC_USER], -EINVAL,
		        "[chain] rpc_user = %s: rpc_password is not set", u);
	}
	if (at[K_RPC_PASSWORD] && c->rpc_password && c->rpc_user == NULL)
		fail_at(l, at[K_RPC_PASSWORD], -EINVAL,
		        "[chain] rpc_password = ***: rpc_user is not set");
}

/* Reads the file, up to MAX_FILE_SIZE + 1 bytes, into a new buffer. */
static int slurp(const char *path, char **out, size_t *outlen, char *err,
                 size_t errlen)
{
	FILE *f = NULL;
	char *buf = NULL;
	size_t len = 0;
	int r = 0;

	f = fopen(path, "re");
	if (f == NULL) {
		r = -errno;
		hj_say(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	buf = malloc(MAX_FILE_SIZE + 1);
	if (buf == NULL) {
		r = -ENOMEM;
		hj_say(err, errlen, "%s: out of memory", path);
		goto out;
	}
	/* One byte more than a file may hold tells a file too large. */
	len = fread(buf, 1, MAX_FILE_SIZE + 1, f);
	if (ferror(f)) {
		r = errno ? -errno : -EIO;
		hj_say(err, errlen, "%s: %s", path, strerror(-r));
		goto out;
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
out:
	free(buf);
	if (f)
		fclose(f);
	return r;
}

int hj_config_load(hj_config *c, const char *path, char *err, size_t errlen)
{
	char *data = NULL;
	size_t len = 0;
	int r;

	if (err && errlen)
		err[0] = '\0';
	else
		errlen = 0;
	r = slurp(path, &data, &len, err, errlen);
	if (r < 0)
		return r;
	r = hj_config_load_text(c, path, data, len, err, errlen);
	free(data);
	return r;
}

int hj_config_load_text(hj_config *c, const char *name, const char *text,
                        size_t len, char *err, size_t errlen)
{
	struct load l;
	int r;

	if (err && errlen)
		err[0] = '\0';
	else
		errlen = 0;
	if (len > MAX_FILE_SIZE) {
		hj_say(err, errlen, "%s: larger than %d bytes", name,
		       MAX_FILE_SIZE);
		return -EINVAL;
	}
	memset(&l, 0, sizeof l);
	l.c = c;
	l.path = name;
	l.p = text;
	l.end = text + len;
	l.errbuf = err;
	l.errlen = errlen;

	r = ini_parse_stream(read_line, &l, on_key, &l);
	if (r > 0 && (l.err == 0 || r < l.err_line)) {
		/* inih's own complaint: its line count is ours. */
		l.err = 0;
		fail_at(&l, r, -EINVAL,
		        "expected [section], key = value or a comment");
	} else if (r < 0 && l.err == 0) {
		fail_at(&l, l.line, -ENOMEM, "out of memory");
	}
	if (l.err == 0)
		check_pairs(&l);
	return l.err;
}

/* ---- the command line ---- */

int hj_config_set_arg(hj_config *c, const char *arg, char *err, size_t errlen)
{
	const char *a = arg, *dot, *eq;
	char shown[4 * SHOW_MAX + 4], why[HJ_ERRLEN];
	int id, r;

	if (err == NULL)
		errlen = 0;
	if (strncmp(a, "--", 2) == 0)
		a += 2;
	eq = strchr(a, '=');
	dot = eq ? memchr(a, '.', (size_t)(eq - a)) : NULL;
	if (eq == NULL || dot == NULL) {
		/* No key known, so no way to tell a secret: show none of it. */
		hj_config__show(a, eq ? (size_t)(eq - a) : strlen(a), shown,
		                sizeof shown);
		if (errlen)
			hj_say(err, errlen,
			       "command line: --%s: expected "
			       "--section.key=value",
			       shown);
		return -EINVAL;
	}
	id = hj_config__find_key(a, (size_t)(dot - a), dot + 1,
	                         (size_t)(eq - dot - 1));
	hj_config__show(a, (size_t)(eq - a), shown, sizeof shown);
	if (id < 0) {
		if (errlen)
			hj_say(err, errlen, "command line: --%s: unknown %s",
			       shown, id == -2 ? "section" : "key");
		return -EINVAL;
	}
	why[0] = '\0';
	r = hj_config__keys[id].set(c, eq + 1, why, sizeof why);
	if (r < 0 && errlen) {
		char val[4 * SHOW_MAX + 4];

		hj_config__show_value(id, eq + 1, val, sizeof val);
		hj_say(err, errlen, "command line: --%s=%s: %s", shown, val,
		       r == -ENOMEM ? "out of memory" : why);
	}
	return r;
}
