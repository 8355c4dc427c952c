/* `hashjack verify`: the dealer's log's lines, read from a file followed
 * across rotation, cuts and lines written over, or from the API's stream
 * that verify_run.c connects (verify_state.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "say.h"
#include "verify_state.h"

const struct kept *hjc_verify__kept(const struct run *r, uint64_t h)
{
	const struct kept *k = &r->ring[h % RING];
	return k->set && k->height == h ? k : NULL;
}

void hjc_verify__keep(struct run *r, char *text, size_t len, uint64_t h)
{
	struct kept *k = &r->ring[h % RING];
	long long end = (long long)hjc_logsrc_offset(r->src);
	if (k->set && k->height == h && h < r->next &&
	    h >= r->next - r->waiting)
		r->pending[h % PENDING] = (struct line){text, len, h};
	free(k->text);
	*k = (struct kept){text, len, h, end, hjc_logsrc_file(r->src), 1};
}

void hjc_verify__failure(struct run *r, const char *fmt, ...)
{
	va_list ap;
	hjc_tool_progress_end();
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (r->follow) {
		r->failures++;
		fflush(stdout);
	}
}

/* The run is to end with status rc (r->stop_rc): -1, and the caller ends
 * it. */
static int stop(struct run *r, int rc)
{
	r->stop_rc = rc;
	return -1;
}

/* The bytes a file holds near its end, compared with the lines read
 * there. */
#define REREAD (64 * 1024)

/* The start of the first of the last lines read (those ending in the last
 * REREAD bytes read, up to pos) that the file no longer holds as it was
 * read, or -1: a line written over without the file getting shorter. */
static long long written_over(struct run *r, long long pos)
{
	long long at = -1;
	unsigned file = hjc_logsrc_file(r->src);
	char *b = malloc(LINE_READ + 1);
	for (size_t i = 0; b && i < RING; i++) {
		const struct kept *k = &r->ring[i];
		long long start = k->end - (long long)k->len - 1;
		/* Lines past pos are not read yet (after a cut, again). */
		if (!k->set || k->file != file || k->end > pos ||
		    k->end < pos - REREAD || (at >= 0 && start >= at))
			continue;
		/* A short read: the file was cut since its size was looked
		 * at, which the next look sees. */
		if (hjc_logsrc_pread(r->src, file, (uint64_t)start, b,
		                     k->len + 1) == (long long)k->len + 1 &&
		    (memcmp(b, k->text, k->len) != 0 || b[k->len] != '\n'))
			at = start;
	}
	free(b);
	return at;
}

/* Reads the file again from byte to (a line's start): its lines up to
 * the last one read are expected again.  The lines kept beyond it have
 * no known place in the file until they are read again (keep): one
 * written over by bytes that are no line is said once, not looked at
 * again and again. */
static int reread(struct run *r, long long to)
{
	char err[HJ_ERRLEN];
	unsigned file = hjc_logsrc_file(r->src);
	if (hjc_logsrc_seek(r->src, (uint64_t)to, err, sizeof err)) {
		say("%s", err);
		return stop(r, EX_IOERR);
	}
	for (size_t i = 0; i < RING; i++) {
		struct kept *k = &r->ring[i];
		if (k->set && k->file == file && k->end > to)
			k->end = LLONG_MAX;
	}
	r->again = 1;
	return 1;
}

/*
 * Under --follow at the end of the file: a file cut shorter than what was
 * read (the dealer restarted and cut the lines it had not committed: it
 * writes the same lines again) is read again from the last line end at
 * or before its new size, and so is one whose last lines were written
 * over; a file renamed away (logrotate) for a new one with a line in it
 * is left for the new one.  Returns 1 when there is more to read, 0 when
 * not, -1 when the run is finished.
 */
static int moved(struct run *r)
{
	char err[HJ_ERRLEN];
	uint64_t size;
	unsigned file = hjc_logsrc_file(r->src);
	/* Read up to pos: the lines taken, then a partial one. */
	long long pos =
	    (long long)(hjc_logsrc_offset(r->src) + hjc_logsrc_partial(r->src));
	int cut = hjc_logsrc_cut(r->src, &size, err, sizeof err);
	if (cut < 0) {
		say("%s", err);
		return stop(r, EX_IOERR);
	}
	if (cut) {
		long long to = 0;
		for (size_t i = 0; i < RING; i++) {
			const struct kept *k = &r->ring[i];
			if (k->set && k->file == file &&
			    k->end <= (long long)size && k->end > to)
				to = k->end;
		}
		say("%s was cut from %lld to %lld bytes (the dealer "
		    "restarted?): reading again from byte %lld",
		    r->name, pos, (long long)size, to);
		return reread(r, to);
	}
	long long over = written_over(r, pos);
	if (over >= 0) {
		say("%s was written over from byte %lld: reading again from "
		    "there",
		    r->name, over);
		return reread(r, over);
	}
	if (hjc_logsrc_rotated(r->src)) {
		if (hjc_logsrc_partial(r->src)) {
			hjc_verify__failure(r,
			                    "block %llu: the log was renamed "
			                    "with a partial last line",
			                    (unsigned long long)r->next);
		}
		if (hjc_logsrc_follow(r->src, err, sizeof err)) {
			say("%s", err);
			return stop(r, EX_NOINPUT);
		}
		say("%s was rotated: following the new file", r->name);
		return 1;
	}
	return 0;
}

int hjc_verify__read_line(struct run *r, struct line *l)
{
	char err[HJ_ERRLEN];
	hjc_logsrc_line ln;
	if (r->have_ahead) {
		*l = r->ahead;
		r->have_ahead = 0;
		return 1;
	}
	for (;;) {
		int got = hjc_logsrc_next(r->src, &ln, err, sizeof err);
		if (got == -EMSGSIZE) {
			printf("line %llu: longer than %u bytes: not a card "
			       "log line\n",
			       (unsigned long long)r->lineno + 1, LINE_LIMIT);
			return stop(r, 1);
		}
		if (got < 0) {
			say("%s", err);
			return stop(r, got == -ENOMEM ? EX_SOFTWARE : EX_IOERR);
		}
		if (got == 0) {
			int more = r->follow && !r->stream ? moved(r) : 0;
			if (more < 0)
				return -1;
			if (more > 0)
				continue;
			if (hjc_logsrc_partial(r->src) && !r->follow &&
			    !r->waiting) {
				hjc_tool_progress_end();
				printf("line %llu: cut: no newline at its end "
				       "(a partial line)\n",
				       (unsigned long long)r->lineno + 1);
				return stop(r, 1);
			}
			return 0;
		}
		const char *b = ln.text;
		size_t len = ln.len;
		uint64_t height;
		int bad = hj_cardlog_height(b, len, &height) != 0;
		if (bad && r->waiting) {
			/* said once the blocks before it are dealt */
			hjc_logsrc_unread(r->src);
			return 0;
		}
		r->lineno++;
		if (bad) {
			hjc_verify__failure(
			    r,
			    "line %llu: not a card log line (no "
			    "height)",
			    (unsigned long long)r->lineno);
			if (r->follow)
				continue;
			return stop(r, 1);
		}
		char *text = malloc(len + 1);
		if (!text) {
			say("out of memory");
			return stop(r, EX_SOFTWARE);
		}
		memcpy(text, b, len);
		text[len] = 0;
		*l = (struct line){text, len, height};
		return 1;
	}
}
