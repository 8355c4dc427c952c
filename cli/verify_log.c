/* `hashjack verify`: the dealer's log, read from a file followed across
 * rotation, cuts and lines written over, or from the dealer's API's
 * stream (verify_impl.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "say.h"
#include "verify_impl.h"

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
		hjc_verify__finish(r, EX_IOERR);
		return -1;
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
		hjc_verify__finish(r, EX_IOERR);
		return -1;
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
			hjc_verify__differ(
			    r, r->next,
			    "the log was renamed with a partial last line",
			    NULL, 0, NULL, 0);
			if (r->done)
				return -1;
		}
		if (hjc_logsrc_follow(r->src, err, sizeof err)) {
			say("%s", err);
			hjc_verify__finish(r, EX_NOINPUT);
			return -1;
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
			hjc_verify__finish(r, 1);
			return -1;
		}
		if (got < 0) {
			say("%s", err);
			hjc_verify__finish(r, got == -ENOMEM ? EX_SOFTWARE
			                                     : EX_IOERR);
			return -1;
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
				hjc_verify__finish(r, 1);
				return -1;
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
			hjc_tool_progress_end();
			printf("line %llu: not a card log line (no height)\n",
			       (unsigned long long)r->lineno);
			if (r->follow) {
				r->failures++;
				fflush(stdout);
				continue;
			}
			hjc_verify__finish(r, 1);
			return -1;
		}
		char *text = malloc(len + 1);
		if (!text) {
			say("out of memory");
			hjc_verify__finish(r, EX_SOFTWARE);
			return -1;
		}
		memcpy(text, b, len);
		text[len] = 0;
		*l = (struct line){text, len, height};
		return 1;
	}
}

/* ---- the dealer's API's stream (--card-log ws://... or http://...) ---- */

/* More than a block's BlockUpdate can be (its line is at most
 * LINE_LIMIT); more than STREAM_BEHIND bytes of lines waiting: the node
 * is far slower than the stream. */
#define STREAM_MESSAGE (LINE_LIMIT + 256)
#define STREAM_BEHIND  (256u << 20)

static void on_api_again(uv_timer_t *t)
{
	hjc_verify__api_connect(t->data);
}

/* A message of the stream: the API's Error, said. */
static void on_api_error(void *arg, const char *text)
{
	struct run *r = arg;
	if (!r->done)
		say("the dealer's API: %s", text ? text : "an error");
}

/* A BlockUpdate: its line is the log's line byte for byte (docs/API.md),
 * read from src as a file's would be. */
static void on_api_line(void *arg, uint64_t height)
{
	struct run *r = arg;
	if (r->done)
		return;
	r->api.last = height;
	r->api.got = 1;
	r->api.errors = 0;
	if (!r->follow && height >= r->api.end && !r->api.ended) {
		r->api.ended = 1; /* every block the API had at the start */
		hjc_logsrc_disconnect(r->src);
	}
	hjc_verify__kick(r);
}

static void on_api_closed(void *arg, int rc, const char *why)
{
	struct run *r = arg;
	unsigned long long oldest;
	const char *p = why ? strstr(why, "the oldest kept is ") : NULL;
	if (r->done)
		return;
	if (rc < 0) { /* the stream is not serve's, or too far ahead */
		say("%s", why);
		hjc_verify__finish(r,
		                   rc == -EBADMSG ? EX_DATAERR : EX_SOFTWARE);
		return;
	}
	if (r->api.ended) {
		hjc_verify__kick(r);
		return;
	}
	/* Blocks from the dealer's first are no longer kept: from the
	 * oldest kept on, the ones before dealt from the node. */
	if (p && !r->api.got && sscanf(p + 19, "%llu", &oldest) == 1 &&
	    oldest > r->api.from + 1) {
		say("the dealer's API keeps blocks from %llu on: the blocks "
		    "before are dealt from the node, unchecked",
		    oldest);
		r->api.from = oldest - 1;
		hjc_verify__api_connect(r);
		return;
	}
	say("%s; connecting again in %u ms", why ? why : "the stream ended",
	    r->interval_ms);
	if (!r->follow && ++r->api.errors >= 5) {
		say("%s: five connections failed in a row", r->api.url);
		hjc_verify__finish(r, EX_IOERR);
		return;
	}
	if (r->api.got)
		r->api.from = r->api.last; /* misses nothing (docs/API.md) */
	uv_timer_start(&r->api.again, on_api_again, r->interval_ms, 0);
}

void hjc_verify__api_connect(struct run *r)
{
	char err[HJ_ERRLEN];
	if (hjc_logsrc_connect(r->src, r->api.from, err, sizeof err)) {
		say("%s", err);
		hjc_verify__finish(r, EX_USAGE);
	}
}

int hjc_verify__stream_open(struct run *r, char *err, size_t n)
{
	hjc_logsrc_opts so = {.max_line = LINE_READ,
	                      .max_message = STREAM_MESSAGE,
	                      .max_held = STREAM_BEHIND};
	hjc_logsrc_cbs cbs = {on_api_line, on_api_error, on_api_closed};
	return hjc_logsrc_stream(&r->loop, r->api.url, &so, &cbs, r, &r->src,
	                         err, n)
	           ? -1
	           : 0;
}
