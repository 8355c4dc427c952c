/* `hashjack serve`: the read-only round API on its own loop (serve.h). */
#include "serve.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <uv.h>

#include "api.h"
#include "config.h"
#include "http.h"
#include "notify.h"
#include "tool.h"
#include "view.h"

#define CMD "serve"

static const char usage[] =
    "Usage: hashjack serve -c FILE [--SECTION.KEY=VALUE]...\n"
    "       hashjack serve --state-dir DIR [--serve.KEY=VALUE]...\n"
    "       hashjack serve --db FILE --card-log FILE [--serve.KEY=VALUE]...\n"
    "\n"
    "Serves a dealer's rounds, read-only, to players, watchers and front\n"
    "ends: HTTP with JSON answers, a WebSocket stream of every block and\n"
    "every round it changes, and a web page on them (docs/API.md).  It\n"
    "reads the dealer's database read-only and follows its card log; it\n"
    "never talks to the node, holds no key and writes nothing, so it may\n"
    "crash, be overloaded or restarted without touching dealing.\n"
    "\n"
    "  -c, --config FILE     the dealer's configuration (hashjackd.conf):\n"
    "                        [state] gives the database and the card log,\n"
    "                        [serve] the address and the limits\n"
    "  --state-dir DIR       the daemon's state directory, without -c:\n"
    "                        its hashjackd.sqlite and cards.jsonl\n"
    "  --db FILE             the database, without -c (or instead of\n"
    "                        [state]'s)\n"
    "  --card-log FILE       the card log, without -c (or instead of\n"
    "                        [state]'s)\n"
    "  --SECTION.KEY=VALUE   a configuration key over the file's, e.g.\n"
    "                        --serve.listen=127.0.0.1:0 (any free port)\n"
    "  -h, --help            this help\n"
    "\n"
    "Without -c, max_age is the family's default for confirmations as a\n"
    "number, from the database (120 s on EVM, 3600 s on the Bitcoin\n"
    "family); give --serve.max_age=900 for a dealer on finalized or safe.\n"
    "\n"
    "[serve] keys (docs/CONFIG.md): listen (127.0.0.1:8549), max_age,\n"
    "history_blocks, max_connections, max_connections_per_ip,\n"
    "max_subscriptions, request_timeout_ms, idle_timeout_ms,\n"
    "ping_interval_ms, max_send_buffer, max_url, max_header_bytes,\n"
    "max_headers, max_message, poll_interval_ms.\n"
    "\n"
    "Once listening it says so on standard error:\n"
    "  hashjack serve: listening on http://127.0.0.1:8549/\n"
    "SIGINT or SIGTERM stops it (exit 0).\n"
    "\n"
    "Exit status: 0 stopped by a signal; 64 usage error; 69 cannot listen;\n"
    "70 out of memory; 78 a bad configuration.\n";

int hjc_serve_help(void)
{
	fputs(usage, stdout);
	return EX_OK;
}

struct srv {
	uv_loop_t loop;
	hjc_view *view;
	hjc_api *api;
	hj_server *server;
	uv_timer_t poll;
	uv_fs_event_t watch;
	uv_signal_t sigint, sigterm;
	int watching;
	int down;          /* the last poll failed */
	uint64_t retry_ms; /* after a failure */
	uint64_t every_ms;
	char last_err[HJ_ERRLEN];
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	fputs("hashjack serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void poll_now(struct srv *s)
{
	char err[HJ_ERRLEN] = "";
	hjc_view_stats st;
	int r = hjc_view_poll(s->view, hjc_api_block, s->api, err, sizeof err);
	if (r) {
		hjc_api_set_down(s->api, err);
		if (!s->down || strcmp(err, s->last_err) != 0)
			note("%s", err);
		hj_say(s->last_err, sizeof s->last_err, "%s", err);
		s->down = 1;
		/* A dealer that the engine does not reproduce would be
		 * reloaded at every poll: wait longer each time. */
		s->retry_ms = r == -EPROTO
		                  ? (s->retry_ms ? 2 * s->retry_ms : 1000)
		                  : s->every_ms;
		if (s->retry_ms > 60000)
			s->retry_ms = 60000;
		uv_timer_start(&s->poll, NULL, 0, 0);
		return;
	}
	hjc_api_set_down(s->api, NULL);
	if (s->down || !s->last_err[0]) {
		hjc_view_stats_get(s->view, &st);
		note("following the dealer's card log at block %llu",
		     (unsigned long long)st.height);
		snprintf(s->last_err, sizeof s->last_err, "up");
	}
	s->down = 0;
	s->retry_ms = 0;
}

static void on_poll(uv_timer_t *t)
{
	struct srv *s = t->data;
	poll_now(s);
	uv_timer_start(&s->poll, on_poll, s->down ? s->retry_ms : s->every_ms,
	               0);
}

/* The log's directory changed: a line, most likely. */
static void on_watch(uv_fs_event_t *h, const char *name, int events, int status)
{
	struct srv *s = h->data;
	(void)name;
	(void)events;
	if (status == 0 && !s->down)
		poll_now(s);
}

static void on_closed(void *arg)
{
	(void)arg;
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct srv *s = h->data;
	note("%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
	uv_signal_stop(&s->sigint);
	uv_signal_stop(&s->sigterm);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	uv_close((uv_handle_t *)&s->poll, NULL);
	if (s->watching)
		uv_close((uv_handle_t *)&s->watch, NULL);
	hj_server_close(s->server, on_closed, NULL);
}

/* The directory of path, in buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, n, ".");
	else if (slash == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

static int run(hj_config *cfg, const char *db, const char *log)
{
	struct srv s = {0};
	hj_server_limits lim;
	hj_server_handler h;
	char err[HJ_ERRLEN], dir[4096];
	unsigned port;
	int rc = EX_OK;

	hjc_view_opts vo = {.db = db,
	                    .log = log,
	                    .confirmations = cfg->confirmations,
	                    .finality = cfg->finality,
	                    .history_blocks = cfg->serve.history_blocks,
	                    .recent_rounds = 20};
	hjc_api_opts ao = {.max_subscriptions = cfg->serve.max_subscriptions,
	                   .max_age_s = cfg->serve.max_age_s};
	hj_server_limits_default(&lim);
	lim.max_url = cfg->serve.max_url;
	lim.max_header_bytes = cfg->serve.max_header_bytes;
	lim.max_headers = cfg->serve.max_headers;
	lim.max_conns = cfg->serve.max_connections;
	lim.max_conns_per_ip = cfg->serve.max_connections_per_ip;
	lim.request_ms = cfg->serve.request_timeout_ms;
	lim.idle_ms = cfg->serve.idle_timeout_ms;
	lim.max_out = cfg->serve.max_send_buffer;
	lim.max_ws_msg = cfg->serve.max_message;
	lim.ping_ms = cfg->serve.ping_interval_ms;

	signal(SIGPIPE, SIG_IGN); /* a closed socket is an error, not death */
	if (uv_loop_init(&s.loop) != 0)
		return hjc_tool_fail(CMD, EX_OSERR, "cannot create the loop");
	s.every_ms = cfg->serve.poll_interval_ms;
	if (hjc_view_new(&vo, &s.view) != 0 ||
	    hjc_api_new(s.view, &ao, &s.api) != 0) {
		hjc_view_free(s.view);
		uv_loop_close(&s.loop);
		return hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	}
	hjc_api_handler(s.api, &h);
	if (hj_server_new(&s.loop, &lim, &h, &s.server) != 0) {
		rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		goto out;
	}
	hjc_api_set_server(s.api, s.server);
	if (hj_server_listen(s.server, cfg->serve.host, cfg->serve.port, &port,
	                     err, sizeof err) != 0) {
		rc = hjc_tool_fail(CMD, EX_UNAVAILABLE, "%s", err);
		hj_server_close(s.server, on_closed, NULL);
		uv_run(&s.loop, UV_RUN_DEFAULT);
		goto out;
	}
	uv_timer_init(&s.loop, &s.poll);
	s.poll.data = &s;
	uv_signal_init(&s.loop, &s.sigint);
	uv_signal_init(&s.loop, &s.sigterm);
	s.sigint.data = s.sigterm.data = &s;
	uv_signal_start(&s.sigint, on_signal, SIGINT);
	uv_signal_start(&s.sigterm, on_signal, SIGTERM);
	dir_of(log, dir, sizeof dir);
	if (uv_fs_event_init(&s.loop, &s.watch) == 0) {
		s.watch.data = &s;
		s.watching = uv_fs_event_start(&s.watch, on_watch, dir, 0) == 0;
		if (!s.watching) {
			uv_close((uv_handle_t *)&s.watch, NULL);
			note(
			    "cannot watch %s: polling the card log every %u ms",
			    dir, cfg->serve.poll_interval_ms);
		}
	}
	note(strchr(cfg->serve.host, ':') ? "listening on http://[%s]:%u/"
	                                  : "listening on http://%s:%u/",
	     cfg->serve.host, port);
	on_poll(&s.poll);
	hj_notify("READY=1");
	uv_run(&s.loop, UV_RUN_DEFAULT);
out:
	hjc_api_free(s.api);
	hjc_view_free(s.view);
	if (uv_loop_close(&s.loop) != 0)
		note("the loop did not close cleanly");
	return rc;
}

/* "--opt VALUE" or "--opt=VALUE" for one of names; the value, or NULL. */
static const char *option(char **argv, int argc, int *i,
                          const char *const *names, int *bad)
{
	const char *a = argv[*i];
	for (size_t k = 0; names[k]; k++) {
		size_t n = strlen(names[k]);
		if (strcmp(a, names[k]) == 0) {
			if (*i + 1 == argc) {
				*bad = 1;
				return NULL;
			}
			return argv[++*i];
		}
		if (strncmp(a, names[k], n) == 0 && a[n] == '=' && n > 2)
			return a + n + 1;
	}
	return NULL;
}

int hjc_serve_main(int argc, char **argv)
{
	static const char *const conf_names[] = {"-c", "--config", NULL};
	static const char *const db_names[] = {"--db", NULL};
	static const char *const log_names[] = {"--card-log", NULL};
	static const char *const dir_names[] = {"--state-dir", NULL};
	hj_config cfg;
	const char *conf = NULL, *db = NULL, *log = NULL, *dir = NULL;
	char err[HJ_ERRLEN];
	char *dbpath = NULL;
	int rc = EX_OK;

	hj_config_init(&cfg);
	for (int i = 0; i < argc && rc == EX_OK; i++) {
		const char *a = argv[i], *v;
		const char **dst = NULL;
		int bad = 0;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			hj_config_free(&cfg);
			return hjc_serve_help();
		}
		if ((v = option(argv, argc, &i, conf_names, &bad)))
			dst = &conf;
		else if ((v = option(argv, argc, &i, db_names, &bad)))
			dst = &db;
		else if ((v = option(argv, argc, &i, log_names, &bad)))
			dst = &log;
		else if ((v = option(argv, argc, &i, dir_names, &bad)))
			dst = &dir;
		if (bad)
			rc = hjc_tool_usage(CMD, "%s: needs a value", a);
		else if (dst && *dst)
			rc = hjc_tool_usage(CMD, "%s: given twice", a);
		else if (dst)
			*dst = v;
		else if (!hjc_tool_is_key(a))
			rc = hjc_tool_usage(CMD, "unknown argument \"%s\"", a);
	}
	if (rc == EX_OK && !conf && !dir && (!db || !log))
		rc = hjc_tool_usage(CMD,
		                    "give -c FILE, --state-dir DIR, or --db "
		                    "FILE and --card-log FILE");
	if (rc == EX_OK && conf && dir)
		rc = hjc_tool_usage(CMD, "-c and --state-dir: give one (or "
		                         "--state.directory=DIR over -c's)");
	if (rc == EX_OK)
		rc = hjc_tool_config(CMD, &cfg, conf, NULL, NULL, argc, argv);
	/* Without -c: the state directory's files, as the daemon names
	 * them. */
	if (rc == EX_OK && !conf) {
		if (dir && !cfg.state_dir && !(cfg.state_dir = strdup(dir)))
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
		else if (hj_config_state_paths(&cfg, err, sizeof err))
			rc = hjc_tool_fail(CMD, EX_SOFTWARE, "%s", err);
	}
	if (rc == EX_OK) {
		dbpath =
		    db ? strdup(db) : hjc_tool_db_path(NULL, cfg.state_dir);
		rc = dbpath ? run(&cfg, dbpath, log ? log : cfg.card_log)
		            : hjc_tool_fail(CMD, EX_SOFTWARE, "out of memory");
	}
	free(dbpath);
	hj_config_free(&cfg);
	return rc;
}
