/* hashjackd's stderr log (daemon/log.h): priorities, one line a message,
 * the cut of a long one, errno kept. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
