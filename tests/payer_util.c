#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "payer_util.h"
#include "say.h"

/* The fixture the readers read: the one pfx_setup last set up. */
static struct payer_fx *cur;

static struct payer_fx *current(void)
{
	if (cur == NULL)
		fail_msg("payer_util: no fixture (pfx_setup not called)");
	return cur;
}

/* ---- setup and teardown ---- */

int pfx_setup(struct payer_fx *f, const char *name)
{
	memset(f, 0, sizeof *f);
	f->saved_stderr = -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/hj-test-%s-XXXXXX", name);
	if (mkdtemp(f->dir) == NULL)
		return -1;
	pfx_use_db(f, "hashjackd.sqlite");
	snprintf(f->log, sizeof f->log, "%s/log", f->dir);
	cur = f;
	return 0;
}

int pfx_teardown(struct payer_fx *f)
{
	DIR *d = opendir(f->dir);
	struct dirent *e;

	if (f->saved_stderr >= 0) {
		/* A failure inside the loop: show what the payer said. */
		char *s;

		pfx_log_off(f);
		s = log_text();
		fprintf(stderr, "---- payer log ----\n%s-------------------\n",
		        s);
		free(s);
	} else if (getenv("HJ_TEST_LOG")) {
		char *s = log_text();

		fprintf(stderr, "%s", s);
		free(s);
	}
	cur = NULL;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return rmdir(f->dir);
}

void pfx_use_db(struct payer_fx *f, const char *name)
{
	snprintf(f->db, sizeof f->db, "%s/%s", f->dir, name);
}

/* ---- the loop, the node, the store ---- */

static void on_status(void *arg)
{
	struct payer_fx *f = arg;

	assert_ptr_equal(f, cur);
	hjd_payer_status(f->payer, f->status, sizeof f->status);
	f->pass_end_time = uv_now(&f->loop);
	f->passes++;
	if (f->passes >= f->until)
		uv_stop(&f->loop);
}

static void on_fatal(void *arg, const char *msg)
{
	struct payer_fx *f = arg;

	assert_ptr_equal(f, cur);
	f->nfatal++;
	snprintf(f->fatal, sizeof f->fatal, "%s", msg);
	uv_stop(&f->loop);
}

void pfx_on_guard(uv_timer_t *t)
{
	struct payer_fx *f = t->data;

	f->guard_fired = 1;
	uv_stop(&f->loop);
}

static void on_payer_closed(void *arg)
{
	struct payer_fx *f = arg;

	assert_ptr_equal(f, cur);
	f->closed++;
}

/* The store at f->db, checked against meta when not NULL. */
static void store_open(struct payer_fx *f, const hj_store_meta *meta)
{
	char err[HJ_ERRLEN] = "";

	if (hj_store_open(f->db, &f->store, err, sizeof err) ||
	    (meta && hj_store_check_meta(f->store, meta, err, sizeof err)))
		fail_msg("store: %s", err);
}

static void reset(struct payer_fx *f)
{
	f->passes = f->until = f->closed = f->nfatal = 0;
	f->guard_fired = 0;
	f->payer = NULL;
}

void pfx_open(struct payer_fx *f, hf_handler h, const hj_store_meta *meta)
{
	reset(f);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	hf_server_start(&f->srv, &f->loop, h);
	assert_int_equal(uv_timer_init(&f->loop, &f->guard), 0);
	f->guard.data = f;
	f->serving = 1;
	snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d/", f->srv.port);
	hj_rpc_opts_default(&f->ro);
	f->ro.url = f->url;
	f->ro.timeout_ms = 2000;
	f->ro.backoff_min_ms = 5;
	f->ro.backoff_max_ms = 20;
	f->ro.max_response = 1 << 20;
	store_open(f, meta);
}

void pfx_open_bare(struct payer_fx *f, const char *url,
                   const hj_store_meta *meta)
{
	reset(f);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	f->serving = 0;
	snprintf(f->url, sizeof f->url, "%s", url);
	hj_rpc_opts_default(&f->ro);
	f->ro.url = f->url;
	store_open(f, meta);
}

void pfx_close(struct payer_fx *f)
{
	unsigned want = f->payer ? 1 : 0;

	pfx_payer_close(f);
	if (f->serving) {
		hf_server_close(&f->srv);
		uv_close((uv_handle_t *)&f->guard, NULL);
		f->serving = 0;
	}
	assert_int_equal(uv_run(&f->loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(f->closed, want);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	hj_store_close(f->store);
	f->store = NULL;
}

hjd_payer_opts pfx_payer_opts(struct payer_fx *f, unsigned confirmations)
{
	f->conf = confirmations;
	return (hjd_payer_opts){.loop = &f->loop,
	                        .store = f->store,
	                        .node = &f->ro,
	                        .dealer = &f->dealer,
	                        .confirmations = confirmations,
	                        .table = NULL,
	                        .on_status = on_status,
	                        .on_fatal = on_fatal,
	                        .arg = f};
}

void pfx_payer_close(struct payer_fx *f)
{
	hjd_payer_close(f->payer, on_payer_closed, f);
	f->payer = NULL;
}

void pfx_payer_stop(struct payer_fx *f)
{
	pfx_payer_close(f);
	while (f->closed == 0)
		uv_run(&f->loop, UV_RUN_ONCE);
	f->closed = 0;
}

/* ---- running ---- */

void pfx_run(struct payer_fx *f, unsigned passes)
{
	f->until = f->passes + passes;
	f->guard_fired = 0;
	assert_int_equal(
	    uv_timer_start(&f->guard, pfx_on_guard, PFX_GUARD_MS, 0), 0);
	if (f->saved_stderr < 0)
		pfx_log_on(f);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	pfx_log_off(f);
	uv_timer_stop(&f->guard);
	if (f->nfatal)
		fail_msg("payer fatal: %s", f->fatal);
	if (f->guard_fired)
		fail_msg("%u of %u passes within %d ms; status: %s", f->passes,
		         f->until, PFX_GUARD_MS, f->status);
}

void pfx_step_final(struct payer_fx *f, uint64_t processed, uint64_t tip,
                    uint64_t final, unsigned passes)
{
	pfx_log_on(f);
	hjd_payer_kick(f->payer, processed, tip, final);
	pfx_run(f, passes);
	assert_true(f->passes >= f->until);
}

void pfx_step(struct payer_fx *f, uint64_t processed, uint64_t tip,
              unsigned passes)
{
	pfx_step_final(f, processed, tip,
	               tip + 1 >= f->conf ? tip + 1 - f->conf : 0, passes);
}

/* ---- payouts owed ---- */

void pfx_owe(struct payer_fx *f, const char *id, const hj_id *recipient,
             hj_amount amount, uint64_t height)
{
	hj_action a;
	hj_payout p;
	char err[HJ_ERRLEN] = "";

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_DEPOSIT;
	a.txid.len = 32;
	f->txseq++;
	memcpy(a.txid.b, &f->txseq, sizeof f->txseq);
	if (recipient)
		a.sender = *recipient;
	a.tx_index = f->txseq;
	a.value = amount;
	p = (hj_payout){.id = id,
	                .kind = "refund",
	                .round = NULL,
	                .hand = -1,
	                .txid = &a.txid,
	                .recipient = recipient ? &a.sender : NULL,
	                .amount = amount,
	                .height = height};
	assert_int_equal(hj_store_begin(f->store, err, sizeof err), 0);
	if (hj_store_add_tx(f->store, height, &a, "rejected", HJ_R_NO_ROUND,
	                    NULL, err, sizeof err) ||
	    hj_store_add_payout(f->store, &p, err, sizeof err))
		fail_msg("owe %s: %s", id, err);
	assert_int_equal(hj_store_commit(f->store, err, sizeof err), 0);
}

/* ---- the payer's log ---- */

void pfx_log_on(struct payer_fx *f)
{
	int fd;

	fflush(stderr);
	f->saved_stderr = dup(STDERR_FILENO);
	assert_true(f->saved_stderr >= 0);
	fd = open(f->log, O_WRONLY | O_APPEND | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
}

void pfx_log_off(struct payer_fx *f)
{
	if (f->saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(f->saved_stderr, STDERR_FILENO);
	close(f->saved_stderr);
	f->saved_stderr = -1;
}

char *log_text(void)
{
	FILE *fp = fopen(current()->log, "r");
	char *buf;
	long n;

	if (fp == NULL)
		return strdup("");
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	if (n > 0)
		assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return buf;
}

int log_has(const char *part)
{
	char *s = log_text();
	int yes = strstr(s, part) != NULL;

	free(s);
	return yes;
}

void expect_log(const char *part)
{
	if (!log_has(part))
		fail_msg("the payer's log lacks \"%s\"", part);
}

/* ---- the database ---- */

static sqlite3 *db_open(void)
{
	sqlite3 *db = NULL;

	assert_int_equal(
	    sqlite3_open_v2(current()->db, &db, SQLITE_OPEN_READWRITE, NULL),
	    SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* The first column of the first row of sql into buf, "NULL" for NULL;
 * no row: "(no row)", or a failure when need_row. */
static const char *query(char *buf, size_t n, const char *sql, int need_row)
{
	sqlite3 *db = db_open();
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW) {
		if (need_row)
			fail_msg("%s: no row", sql);
		snprintf(buf, n, "(no row)");
	} else if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		snprintf(buf, n, "NULL");
	} else {
		snprintf(buf, n, "%s",
		         (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return buf;
}

const char *q_opt(char *buf, size_t n, const char *sql)
{
	return query(buf, n, sql, 0);
}

const char *q_text(char *buf, size_t n, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof sql, fmt, ap);
	va_end(ap);
	return query(buf, n, sql, 1);
}

long long q_int(const char *sql)
{
	return strtoll(Q("%s", sql), NULL, 10);
}

void q_exec(const char *sql)
{
	sqlite3 *db = db_open();
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* ---- text ---- */

void expect_contains(const char *s, const char *part)
{
	if (strstr(s, part) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", s, part);
}

void expect_lacks(const char *s, const char *part)
{
	if (strstr(s, part) != NULL)
		fail_msg("\"%s\" has \"%s\"", s, part);
}

void pfx_no_proxy(void)
{
	static const char *const proxies[] = {
	    "http_proxy",  "HTTP_PROXY", "https_proxy",
	    "HTTPS_PROXY", "all_proxy",  "ALL_PROXY",
	};

	for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
		unsetenv(proxies[i]);
}
