/*
 * Diagnostics on stderr (see log.h).  A line is built whole in a stack
 * buffer and written with one write(2): under systemd stderr is a stream
 * socket to journald and by hand often a pipe, and a single write of at
 * most PIPE_BUF bytes never interleaves with another process's lines.
 * While held (hjd_log_hold), the holding thread's notices and lower are
 * gathered into whole lines of at most PIPE_BUF bytes, written at once.
 * Nothing here allocates, so logging works when memory has run out.
 */
#include "log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* At most PIPE_BUF (4096 on Linux), so that the write is atomic on a pipe. */
#define LINE_MAX_BYTES 2048

#define HELD_BYTES PIPE_BUF
_Static_assert(LINE_MAX_BYTES <= HELD_BYTES, "a line fits once flushed");

static int debug_on;

/* The held lines: one thread holds at a time (the loop's), and only it
 * touches them; the others see their own held_here, 0. */
static struct {
	char buf[HELD_BYTES];
	size_t len;
} held;
static _Thread_local int held_here;

void hjd_log_debug(int on)
{
	debug_on = on;
}

static void write_all(const char *p, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t w = write(STDERR_FILENO, p + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* nowhere to report it */
		done += (size_t)w;
	}
}

static void flush_held(void)
{
	write_all(held.buf, held.len);
	held.len = 0;
}

void hjd_log_hold(void)
{
	if (held_here)
		return;
	held.len = 0;
	held_here = 1;
}

void hjd_log_release(void)
{
	if (!held_here)
		return;
	flush_held();
	held_here = 0;
}

void hjd_log(int prio, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	size_t len, off;
	va_list ap;
	int saved = errno, n;

	if (prio == HJD_LOG_DEBUG && !debug_on)
		return;

	/* An out-of-range priority is a bug in the caller; still log. */
	if (prio < 0 || prio > 7)
		prio = HJD_LOG_ERR;
	n = snprintf(line, sizeof line, "<%d>", prio);
	off = (size_t)n;

	va_start(ap, fmt);
	n = vsnprintf(line + off, sizeof line - off - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	len = off + (size_t)n;
	if (len > sizeof line - 2) {
		/* Keep room for the '\n'; mark the cut. */
		len = sizeof line - 2;
		memcpy(line + len - 3, "...", 3);
	}
	/*
	 * One event, one line: a newline inside a message would start a line
	 * that journald reads without a priority.
	 */
	for (size_t i = off; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			line[i] = ' ';
	line[len++] = '\n';

	if (held_here) {
		/* A warning or worse goes out at once, after what it
		 * follows; a notice or less waits for a full buffer. */
		if (prio < HJD_LOG_NOTICE || len > HELD_BYTES - held.len)
			flush_held();
		if (prio >= HJD_LOG_NOTICE) {
			memcpy(held.buf + held.len, line, len);
			held.len += len;
			errno = saved;
			return;
		}
	}
	write_all(line, len);
	errno = saved;
}
