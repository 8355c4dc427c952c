/*
 * Diagnostics on stderr (see log.h).  A line is built whole in a stack
 * buffer and written with one write(2): under systemd stderr is a stream
 * socket to journald and by hand often a pipe, and a single write of at
 * most PIPE_BUF bytes never interleaves with another process's lines.
 * Nothing here allocates, so logging works when memory has run out.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* At most PIPE_BUF (4096 on Linux), so that the write is atomic on a pipe. */
#define LINE_MAX_BYTES 2048

static int debug_on;

void hjd_log_debug(int on)
{
	debug_on = on;
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

	for (size_t done = 0; done < len;) {
		ssize_t w = write(STDERR_FILENO, line + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* nowhere to report it */
		done += (size_t)w;
	}
	errno = saved;
}
