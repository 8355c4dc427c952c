/* hashjackd's stderr log (daemon/log.h): priorities, one line a message,
 * the cut of a long one, errno kept; held lines gathered into few writes,
 * in order. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

/* Runs hjd_log with stderr on a pipe; returns what came out. */
static size_t capture(char *buf, size_t n, void (*fn)(void))
{
	int p[2], saved;
	ssize_t r;
	size_t got = 0;

	assert_int_equal(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(p[1], STDERR_FILENO) >= 0);
	fn();
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(p[1]);
	while ((r = read(p[0], buf + got, n - 1 - got)) > 0)
		got += (size_t)r;
	close(p[0]);
	buf[got] = '\0';
	return got;
}

static void log_lines(void)
{
	hjd_log(HJD_LOG_ERR, "reorg at %u: %s", 17u, "stop");
	hjd_log(HJD_LOG_INFO, "two\nlines\r");
	hjd_log(HJD_LOG_DEBUG, "%s", "dropped: no --debug");
	hjd_log_debug(1);
	hjd_log(HJD_LOG_DEBUG, "%s", "");
	hjd_log_debug(0);
	hjd_log(42, "bad priority");
	hjd_log(HJD_LOG_WARNING, "tab\tkept");
}

static void log_long(void)
{
	char big[3000];

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	hjd_log(HJD_LOG_NOTICE, "%s", big);
	hjd_log(HJD_LOG_NOTICE, "after");
}

static void log_errno(void)
{
	errno = EAGAIN;
	hjd_log(HJD_LOG_ERR, "x");
	assert_int_equal(errno, EAGAIN);
}

/* Runs fn with stderr on a SOCK_SEQPACKET socket, which keeps each
 * write(2) a message of its own: returns how many there were, their bytes
 * in out[i] (NUL-terminated). */
static int capture_writes(char out[][4200], int max, void (*fn)(void))
{
	int sv[2], saved, n = 0;
	ssize_t r;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(sv[1], STDERR_FILENO) >= 0);
	fn();
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(sv[1]);
	while (n < max && (r = recv(sv[0], out[n], 4199, 0)) > 0)
		out[n++][r] = '\0';
	close(sv[0]);
	return n;
}

static void *other_thread(void *arg)
{
	(void)arg;
	hjd_log(HJD_LOG_INFO, "from another thread");
	return NULL;
}

static void log_held(void)
{
	char line[200];
	pthread_t t;

	memset(line, 'y', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	hjd_log_hold();
	for (int i = 0; i < 30; i++)
		hjd_log(HJD_LOG_INFO, "%02d %s", i, line);
	assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	hjd_log(HJD_LOG_WARNING, "warned");
	hjd_log(HJD_LOG_NOTICE, "after the warning");
	hjd_log(HJD_LOG_DEBUG, "dropped: no --debug");
	hjd_log_release();
	hjd_log(HJD_LOG_INFO, "not held");
}

static void test_log_held(void **state)
{
	static char w[16][4200];
	char want[300];
	int n, line = 0;

	(void)state;
	n = capture_writes(w, 16, log_held);
	/* 30 lines of 206 bytes: 19 in the first write (3,914 bytes), the
	 * other thread's line on its own, the next 11 before the warning,
	 * the warning, what followed it at the release, then one line. */
	assert_int_equal(n, 6);
	assert_string_equal(w[1], "<6>from another thread\n");
	for (int i = 0; i < 3; i += 2)
		for (char *p = w[i]; *p; line++) {
			char *nl = strchr(p, '\n');

			assert_non_null(nl);
			snprintf(want, sizeof want, "<6>%02d ", line);
			assert_memory_equal(p, want, strlen(want));
			assert_int_equal(nl - p + 1, 206);
			p = nl + 1;
		}
	assert_int_equal(line, 30);
	assert_true(strlen(w[0]) <= 4096 && strlen(w[0]) > 4096 - 206);
	assert_string_equal(w[3], "<4>warned\n");
	assert_string_equal(w[4], "<5>after the warning\n");
	assert_string_equal(w[5], "<6>not held\n");
}

static void test_log(void **state)
{
	char buf[8192];
	size_t n;

	(void)state;
	capture(buf, sizeof buf, log_lines);
	assert_string_equal(buf, "<3>reorg at 17: stop\n"
	                         "<6>two lines \n"
	                         "<7>\n"
	                         "<3>bad priority\n"
	                         "<4>tab\tkept\n");

	n = capture(buf, sizeof buf, log_long);
	/* A 2048-byte buffer: "<5>", 2040 bytes, "...", "\n". */
	assert_int_equal(n, 2047 + strlen("<5>after\n"));
	assert_memory_equal(buf, "<5>xxx", 6);
	assert_memory_equal(buf + 2042, "x...\n<5>after\n", 14);
	for (size_t i = 3; i < 2043; i++)
		assert_int_equal(buf[i], 'x');

	capture(buf, sizeof buf, log_errno);
	assert_string_equal(buf, "<3>x\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_log),
	    cmocka_unit_test(test_log_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
