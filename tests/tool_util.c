#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "hex.h"
#include "say.h"
#include "tool_util.h"

char tmpdir[64];
const char *tool_cmd;
static char bin[PATH_MAX];

const char *path_in(const char *name)
{
	static char buf[16][160];
	static unsigned k;
	char *p = buf[k++ % 16];

	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

const char *conf_in(const char *name, const char *dir)
{
	const char *path = path_in(name);
	FILE *f = fopen(path, "w");

	if (f == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fprintf(f, "[chain]\nfamily = evm\n[dealer]\naddress = "
	           "0x00000000000000000000000000000000000dea1e\n[rules]\n"
	           "min_bet = 1000\nmax_bet = 100000\n");
	if (dir != NULL)
		fprintf(f, "[state]\ndirectory = %s\n", dir);
	if (fclose(f) != 0)
		fail_msg("%s: %s", path, strerror(errno));
	return path;
}

void wal_shm(const char *db, char *wal, char *shm, size_t n)
{
	snprintf(wal, n, "%s-wal", db);
	snprintf(shm, n, "%s-shm", db);
}

/* Removes the directory and every file in it (and in its directories). */
static int remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char sub[300];
	int ret = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR ? remove_tree(sub) : unlink(sub))
			ret = -1;
	}
	closedir(d);
	if (rmdir(dir) != 0)
		ret = -1;
	return ret;
}

int tool_setup(const char *cmd)
{
	const char *env = getenv("HJ_HASHJACK");
	char self[PATH_MAX];
	ssize_t n;

	tool_cmd = cmd;
	if (env != NULL) {
		snprintf(bin, sizeof bin, "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0)
			return -1;
		self[n] = '\0';
		snprintf(bin, sizeof bin, "%s/hashjack", dirname(self));
	}
	if (access(bin, X_OK) != 0) {
		fprintf(stderr, "test_%s: no hashjack binary at %s\n", cmd,
		        bin);
		return -1;
	}
	snprintf(tmpdir, sizeof tmpdir, "/tmp/hj-test-%s-XXXXXX", cmd);
	return mkdtemp(tmpdir) ? 0 : -1;
}

int tool_teardown(void)
{
	return remove_tree(tmpdir);
}

/* ---- running the tool ---- */

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t got;

	assert_non_null(f);
	got = fread(buf, 1, n - 1, f);
	assert_true(feof(f));
	buf[got] = '\0';
	fclose(f);
}

void runv(struct res *r, const char *statedir, const char *out,
          const char *const *args)
{
	char outp[200], errp[200], *argv[32];
	struct timespec t0, t1;
	int n = 0, status;
	pid_t pid;

	if (out)
		snprintf(outp, sizeof outp, "%s", out);
	else
		snprintf(outp, sizeof outp, "%s/stdout", tmpdir);
	snprintf(errp, sizeof errp, "%s/stderr", tmpdir);
	argv[n++] = bin;
	for (; *args; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	r->t0 = (int64_t)time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(99);
		if (statedir)
			setenv("STATE_DIRECTORY", statedir, 1);
		else
			unsetenv("STATE_DIRECTORY");
		execv(bin, argv);
		_exit(98);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->t1 = (int64_t)time(NULL);
	assert_true(WIFEXITED(status));
	r->rc = WEXITSTATUS(status);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) +
	          (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (out == NULL)
		slurp(outp, r->out, sizeof r->out);
	else
		r->out[0] = '\0';
	slurp(errp, r->err, sizeof r->err);
}

void expect(const struct res *r, int rc, const char *out, const char *err)
{
	if (r->rc != rc || strcmp(r->out, out) != 0 || strcmp(r->err, err) != 0)
		fail_msg("exit %d (want %d)\n--- stdout:\n%s--- want:\n%s"
		         "--- stderr:\n%s--- want:\n%s",
		         r->rc, rc, r->out, out, r->err, err);
}

void expect_usage(const struct res *r, const char *msg)
{
	char err[HJ_ERRLEN];

	snprintf(err, sizeof err,
	         "hashjack: %s: %s\nTry 'hashjack %s --help'.\n", tool_cmd, msg,
	         tool_cmd);
	expect(r, 64, "", err);
}

/* ---- building databases with the daemon's store ---- */

hj_id id_of(uint8_t tag, uint8_t len)
{
	hj_id id;

	memset(&id, 0, sizeof id);
	id.len = len;
	memset(id.b, tag, len);
	return id;
}

hj_id id_hex(const char *hex)
{
	hj_id id;
	size_t n = strlen(hex) / 2;

	memset(&id, 0, sizeof id);
	assert_int_equal(
	    hj_hex_decode_exact(hex, 2 * n, HJ_HEX_BARE, id.b, n, NULL, 0), 0);
	id.len = (uint8_t)n;
	return id;
}

void add_tx(hj_store *s, uint64_t height, uint8_t tag, const hj_id *sender,
            hj_amount value, const char *outcome, const hj_id *round)
{
	hj_action a;
	char err[HJ_ERRLEN] = "";

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_ACTION;
	a.act = HJ_BET;
	a.tx_index = tag;
	a.txid = id_of(tag, 32);
	if (sender)
		a.sender = *sender;
	a.value = value;
	if (hj_store_add_tx(s, height, &a, outcome,
	                    strcmp(outcome, "rejected") == 0 ? HJ_R_WRONG_VALUE
	                                                     : HJ_OK,
	                    round, err, sizeof err))
		fail_msg("add_tx: %s", err);
}

hj_store *store_open(const char *path, const char *family, const char *chain,
                     const char *dealer, const char *rules)
{
	hj_store_meta m = {
	    .family = family, .chain = chain, .dealer = dealer, .rules = rules};
	hj_store *s = NULL;
	char err[HJ_ERRLEN] = "";

	if (hj_store_open(path, &s, err, sizeof err) ||
	    hj_store_check_meta(s, &m, err, sizeof err))
		fail_msg("open %s: %s", path, err);
	return s;
}

void store_begin(hj_store *s)
{
	char err[HJ_ERRLEN] = "";

	if (hj_store_begin(s, err, sizeof err))
		fail_msg("begin: %s", err);
}

void store_commit(hj_store *s)
{
	char err[HJ_ERRLEN] = "";

	if (hj_store_commit(s, err, sizeof err))
		fail_msg("commit: %s", err);
}

void sql(const char *path, const char *text)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(
	    sqlite3_open_v2(path, &db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
	    SQLITE_OK);
	if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", text, msg ? msg : "?");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}
