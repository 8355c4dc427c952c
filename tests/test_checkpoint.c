/*
 * hashjackd's checkpoints (daemon/checkpoint.c): nothing is copied before
 * HJD_CHECKPOINT_PAGES pages are due; then a copy runs on the thread of
 * its own, at nice 19, and its end reaches the loop; the WAL's pages are
 * in the database file after it; close joins the thread and leaves no
 * handle on the loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "checkpoint.h"
#include "say.h"
#include "store.h"

static char tmpdir[64];
static char path[128];

static const hj_store_meta META = {
    .family = "evm",
    .chain = "evm:31337",
    .dealer = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    .rules = "bethash",
};

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/hj-ckpt-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof path, "%s/state.db", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static off_t file_size(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return st.st_size;
}

/* The nice values of this process's threads: how many are at n. */
static int threads_at_nice(int n)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char p[300], buf[1024], *close_paren;
		FILE *f;
		int nice = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/proc/self/task/%s/stat", e->d_name);
		if ((f = fopen(p, "r")) == NULL)
			continue; /* ended meanwhile */
		if (fgets(buf, sizeof buf, f) &&
		    (close_paren = strrchr(buf, ')')) != NULL &&
		    /* after "pid (comm)": state ... field 19 is nice */
		    sscanf(
		        close_paren + 2,
		        "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
		        "%*d %*d %*d %d",
		        &nice) == 1 &&
		    nice == n)
			found++;
		fclose(f);
	}
	closedir(d);
	return found;
}

/* One transaction of 1,000 rows: some 40 pages.  Returns its pages. */
static long write_block(hj_store *s, int t)
{
	char err[HJ_ERRLEN] = "";

	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 1000; i++) {
		hj_action a;

		memset(&a, 0, sizeof a);
		a.kind = HJ_TX_DEPOSIT;
		a.txid.len = 32;
		a.txid.b[0] = (uint8_t)t;
		a.txid.b[1] = (uint8_t)(i >> 8);
		a.txid.b[2] = (uint8_t)i;
		a.sender.len = 20;
		a.tx_index = (uint32_t)i;
		a.value = 1;
		if (hj_store_add_tx(s, (uint64_t)t, &a, "deposit", HJ_OK, NULL,
		                    err, sizeof err))
			fail_msg("add tx: %s", err);
	}
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	return hj_store_pages_written(s);
}

struct wait {
	hjd_checkpoint *c;
	unsigned long want;
	int ticks;
};

static void poll_copies(uv_timer_t *t)
{
	struct wait *w = t->data;

	if (hjd_checkpoint_copies(w->c) >= w->want || ++w->ticks > 3000)
		uv_close((uv_handle_t *)t, NULL);
}

/* Runs the loop until c has ended `want` copies (or 30 s). */
static void wait_copies(uv_loop_t *loop, hjd_checkpoint *c, unsigned long want)
{
	uv_timer_t t;
	struct wait w = {c, want, 0};

	uv_timer_init(loop, &t);
	t.data = &w;
	uv_timer_start(&t, poll_copies, 10, 10);
	uv_run(loop, UV_RUN_DEFAULT);
}

static void test_copies_apart(void **state)
{
	char err[HJ_ERRLEN] = "", wal[160];
	uv_loop_t loop;
	hj_store *s = NULL;
	hjd_checkpoint *c = NULL;
	long pages = 0;
	off_t before;
	int t = 0, niced;

	(void)state;
	snprintf(wal, sizeof wal, "%s-wal", path);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(hj_store_open(path, &s, err, sizeof err), 0);
	assert_int_equal(hj_store_check_meta(s, &META, err, sizeof err), 0);
	niced = threads_at_nice(19);
	if (hjd_checkpoint_new(&loop, s, path, &c, err, sizeof err))
		fail_msg("%s", err);
	/* Its thread, at the lowest priority (it sets it first thing). */
	for (int i = 0; i < 1000 && threads_at_nice(19) == niced; i++)
		usleep(1000);
	assert_int_equal(threads_at_nice(19), niced + 1);

	/* Not due yet: nothing copied, the file as it was. */
	before = file_size(path);
	while (pages < HJD_CHECKPOINT_PAGES - 100) {
		long p = write_block(s, t++);
		pages += p;
		hjd_checkpoint_wrote(c, p);
	}
	uv_run(&loop, UV_RUN_NOWAIT);
	assert_int_equal(hjd_checkpoint_copies(c), 0);
	assert_int_equal(file_size(path), before);

	/* Due: one copy, on its thread, while the writer goes on. */
	while (pages < HJD_CHECKPOINT_PAGES + 100) {
		long p = write_block(s, t++);
		pages += p;
		hjd_checkpoint_wrote(c, p);
	}
	assert_true(pages < HJ_STORE_WAL_BOUND);
	wait_copies(&loop, c, 1);
	assert_int_equal(hjd_checkpoint_copies(c), 1);
	/* The rows' pages (the WAL holds some of them more than once). */
	assert_true(file_size(path) > before + 200 * 4096L);
	assert_true(file_size(wal) > 0);

	/* Closed: the thread joined, and the loop has nothing left. */
	hjd_checkpoint_close(c);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	assert_int_equal(threads_at_nice(19), niced);
	hj_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_copies_apart, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
