/* A dealer's card log as the tool reads it (logsrc.h). */
#include "logsrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "cardlog.h"
#include "say.h"

/* Read at once from a file: what a block's line usually is, many times. */
#define CHUNK ((size_t)64 << 10)
/* A stream's lines held, not given yet, by default. */
#define HELD_MAX ((size_t)256 << 20)

/* A file read, kept open for hjc_logsrc_pread. */
struct lfile {
	int fd;
	dev_t dev;
	ino_t ino;
	unsigned index;
};

struct hjc_logsrc {
	char *name;
	hjc_logsrc_opts o;
	/* Bytes read and not given as lines yet: b.p[beg, b.len), the
	 * current file's (or the stream's) bytes before `read`. */
	hj_buf b;
	size_t beg;
	uint64_t read;
	size_t given; /* the last line given, its "\n" included: unread */
	/* A file: the ones kept, oldest first, the current one last. */
	struct lfile *files;
	unsigned nfiles;
	unsigned index; /* the current file's */
	int std;        /* standard input */
	long long size;
	struct timespec mtime;
	/* A stream. */
	int stream;
	uv_loop_t *loop;
	hj_wsc *ws;
	hj_wsc_fake_opts fake; /* fake.url set: clients fed from memory */
	hjc_logsrc_cbs cbs;
	void *arg;
	int failed; /* ended by the source: closed was said already */
};

static hjc_logsrc *src_new(const char *name, const hjc_logsrc_opts *o)
{
	hjc_logsrc *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (o)
		s->o = *o;
	if (!s->o.max_line)
		s->o.max_line = HJ_CARDLOG_MAX - 1;
	if (s->o.max_line > HJ_CARDLOG_MAX)
		s->o.max_line = HJ_CARDLOG_MAX;
	if (!s->o.keep)
		s->o.keep = 1;
	if (!s->o.max_message)
		s->o.max_message = s->o.max_line + 256;
	if (!s->o.max_held)
		s->o.max_held = HELD_MAX;
	/* A file's buffer holds the longest line and a read beyond it. */
	hj_buf_init(&s->b, s->o.max_line + 1 + CHUNK);
	s->size = -1;
	s->name = strdup(name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	return s;
}

/* Opens the file at s's path: fd with its stat.  0 or -errno with err. */
static int open_file(const hjc_logsrc *s, int *fd, struct stat *st, char *err,
                     size_t errlen)
{
	int e;
	*fd = s->std ? STDIN_FILENO : open(s->name, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0 && fstat(*fd, st) == 0)
		return 0;
	e = errno;
	hj_say(err, errlen, "%s: %s", s->name, strerror(e));
	if (*fd > STDIN_FILENO)
		close(*fd);
	return -e;
}

/* The stat of the current file, as last looked at. */
static void looked(hjc_logsrc *s, const struct stat *st)
{
	s->size = S_ISREG(st->st_mode) ? (long long)st->st_size : -1;
	s->mtime = st->st_mtim;
}

int hjc_logsrc_open(const char *path, const hjc_logsrc_opts *o,
                    hjc_logsrc **out, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;
	hjc_logsrc *s = src_new(path, o);
	*out = NULL;
	if (s)
		s->files = calloc(s->o.keep, sizeof *s->files);
	if (!s || !s->files) {
		hjc_logsrc_free(s);
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->std = strcmp(path, "-") == 0;
	if ((rc = open_file(s, &fd, &st, err, errlen)) != 0) {
		hjc_logsrc_free(s);
		return rc;
	}
	s->files[0] = (struct lfile){fd, st.st_dev, st.st_ino, 0};
	s->nfiles = 1;
	looked(s, &st);
	*out = s;
	return 0;
}

void hjc_logsrc_free(hjc_logsrc *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nfiles; i++)
		if (s->files[i].fd > STDIN_FILENO)
			close(s->files[i].fd);
	free(s->files);
	hj_buf_free(&s->b);
	free(s->name);
	free(s);
}

static struct lfile *current(const hjc_logsrc *s)
{
	return &s->files[s->nfiles - 1];
}

/* Drops the bytes given: what is held moves to the buffer's start. */
static void compact(hjc_logsrc *s)
{
	if (s->beg == 0)
		return;
	memmove(s->b.p, s->b.p + s->beg, s->b.len - s->beg);
	s->b.len -= s->beg;
	s->beg = 0;
	s->b.p[s->b.len] = '\0'; /* hj_buf's NUL, kept */
}

/* More of the file into the buffer: 1, 0 at its end, or -errno. */
static int fill(hjc_logsrc *s, char *err, size_t errlen)
{
	int rc;
	compact(s);
	if ((rc = hj_buf_reserve(&s->b, CHUNK)) != 0) {
		hj_say(err, errlen, "out of memory");
		return rc;
	}
	for (;;) {
		ssize_t got = read(current(s)->fd, s->b.p + s->b.len,
		                   s->b.cap - 1 - s->b.len); /* 1: the NUL */
		if (got > 0) {
			s->b.len += (size_t)got;
			s->b.p[s->b.len] = '\0';
			s->read += (uint64_t)got;
			return 1;
		}
		if (got == 0)
			return 0;
		if (errno != EINTR) {
			rc = -errno;
			hj_say(err, errlen, "%s: %s", s->name, strerror(-rc));
			return rc;
		}
	}
}

static int too_long(const hjc_logsrc *s, char *err, size_t errlen)
{
	hj_say(err, errlen, "%s, byte %llu: a line longer than %zu bytes",
	       s->name, (unsigned long long)hjc_logsrc_offset(s),
	       s->o.max_line);
	return -EMSGSIZE;
}

int hjc_logsrc_next(hjc_logsrc *s, hjc_logsrc_line *l, char *err, size_t errlen)
{
	s->given = 0;
	for (;;) {
		size_t held = s->b.len - s->beg;
		const char *p = held ? s->b.p + s->beg : NULL;
		const char *nl = held ? memchr(p, '\n', held) : NULL;
		if (nl) {
			size_t len = (size_t)(nl - p);
			if (len > s->o.max_line)
				return too_long(s, err, errlen);
			l->text = p;
			l->len = len;
			l->file = s->index;
			l->off = hjc_logsrc_offset(s);
			l->end = l->off + len + 1;
			s->beg += len + 1;
			s->given = len + 1;
			return 1;
		}
		if (held > s->o.max_line)
			return too_long(s, err, errlen);
		if (s->stream) {
			if (held == 0)
				s->beg = s->b.len = 0;
			return 0;
		}
		int got = fill(s, err, errlen);
		if (got <= 0)
			return got;
	}
}

void hjc_logsrc_unread(hjc_logsrc *s)
{
	s->beg -= s->given;
	s->given = 0;
}

const char *hjc_logsrc_name(const hjc_logsrc *s)
{
	return s->name;
}

unsigned hjc_logsrc_file(const hjc_logsrc *s)
{
	return s->index;
}

uint64_t hjc_logsrc_offset(const hjc_logsrc *s)
{
	return s->read - (s->b.len - s->beg);
}

size_t hjc_logsrc_partial(const hjc_logsrc *s)
{
	return s->b.len - s->beg;
}

long long hjc_logsrc_size(const hjc_logsrc *s)
{
	return s->size;
}

struct timespec hjc_logsrc_mtime(const hjc_logsrc *s)
{
	return s->mtime;
}

void hjc_logsrc_identity(const hjc_logsrc *s, uint64_t *dev, uint64_t *ino)
{
	*dev = s->stream ? 0 : (uint64_t)current(s)->dev;
	*ino = s->stream ? 0 : (uint64_t)current(s)->ino;
}

/* ---- what became of the file ---- */

int hjc_logsrc_cut(hjc_logsrc *s, uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	if (s->stream || s->std)
		return 0;
	if (fstat(current(s)->fd, &st) != 0) {
		int e = errno;
		hj_say(err, errlen, "%s: %s", s->name, strerror(e));
		return -e;
	}
	looked(s, &st);
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size >= s->read)
		return 0;
	*size = (uint64_t)st.st_size;
	return 1;
}

int hjc_logsrc_rotated(const hjc_logsrc *s)
{
	struct stat at;
	if (s->stream || s->std || stat(s->name, &at) != 0)
		return 0;
	return (at.st_dev != current(s)->dev || at.st_ino != current(s)->ino) &&
	       at.st_size > 0;
}

int hjc_logsrc_follow(hjc_logsrc *s, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;
	if (s->stream || s->std) {
		hj_say(err, errlen, "%s: not a file to follow", s->name);
		return -EINVAL;
	}
	if ((rc = open_file(s, &fd, &st, err, errlen)) != 0)
		return rc;
	if (s->nfiles == s->o.keep) {
		/* The oldest kept is let go: logrotate may compress or
		 * remove it, and its space is given back. */
		close(s->files[0].fd);
		memmove(s->files, s->files + 1,
		        (s->nfiles - 1) * sizeof *s->files);
		s->nfiles--;
	}
	s->index++;
	s->files[s->nfiles++] =
	    (struct lfile){fd, st.st_dev, st.st_ino, s->index};
	looked(s, &st);
	s->read = 0;
	s->beg = s->b.len = s->given = 0;
	return 0;
}

int hjc_logsrc_seek(hjc_logsrc *s, uint64_t off, char *err, size_t errlen)
{
	if (s->stream || s->std ||
	    lseek(current(s)->fd, (off_t)off, SEEK_SET) < 0) {
		int e = s->stream || s->std ? ESPIPE : errno;
		hj_say(err, errlen, "%s: %s", s->name, strerror(e));
		return -e;
	}
	s->read = off;
	s->beg = s->b.len = s->given = 0;
	return 0;
}

long long hjc_logsrc_pread(const hjc_logsrc *s, unsigned file, uint64_t off,
                           char *buf, size_t n)
{
	for (unsigned i = 0; i < s->nfiles && !s->stream; i++) {
		if (s->files[i].index != file)
			continue;
		size_t got = 0;
		while (got < n) {
			ssize_t k = pread(s->files[i].fd, buf + got, n - got,
			                  (off_t)(off + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			if (k == 0)
				break;
			got += (size_t)k;
		}
		return (long long)got;
	}
	return -ENOENT;
}

/* ---- the dealer's API's stream ---- */

int hjc_logsrc_message(const char *msg, size_t n, uint64_t *height, size_t *at,
                       size_t *len, char **error)
{
	char head[128];
	json_t *j = json_loadb(msg, n, 0, NULL);
	const char *type = json_string_value(json_object_get(j, "eventType"));
	json_t *h = json_object_get(j, "height");
	*error = NULL;
	if (type && strcmp(type, "Error") == 0) {
		const char *e = json_string_value(json_object_get(j, "error"));
		int rc = 2;
		if (e && !(*error = strdup(e)))
			rc = -ENOMEM;
		json_decref(j);
		return rc;
	}
	if (!type || strcmp(type, "BlockUpdate") != 0) {
		json_decref(j);
		return 0;
	}
	int ok = json_is_integer(h) && json_integer_value(h) >= 0;
	uint64_t hh = ok ? (uint64_t)json_integer_value(h) : 0;
	json_decref(j);
	/* The line is the data member's bytes as they are: the message must
	 * be serve's, whose data is last, and a line has no newline in it
	 * (JSON may put one between its tokens; the log's line cannot). */
	int hn = snprintf(head, sizeof head,
	                  "{\"eventType\":\"BlockUpdate\",\"eventId\":\"%llu\","
	                  "\"height\":%llu,\"data\":",
	                  (unsigned long long)hh, (unsigned long long)hh);
	if (!ok || n < (size_t)hn + 2 || memcmp(msg, head, (size_t)hn) != 0 ||
	    msg[n - 1] != '}' ||
	    memchr(msg + hn, '\n', n - (size_t)hn - 1) != NULL)
		return -EBADMSG;
	*height = hh;
	*at = (size_t)hn;
	*len = n - (size_t)hn - 1;
	return 1;
}

/* The source ends the connection: closed is said now, not again when the
 * client's comes. */
static void fail(hjc_logsrc *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(hjc_logsrc *s, int rc, const char *fmt, ...)
{
	char why[HJ_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	hj_vsay(why, sizeof why, fmt, ap);
	va_end(ap);
	s->failed = 1;
	hj_wsc_close(s->ws);
	s->cbs.closed(s->arg, rc, why);
}

static void on_message(void *arg, const char *msg, size_t n)
{
	hjc_logsrc *s = arg;
	uint64_t height;
	size_t at, len;
	char *error;
	if (s->failed)
		return;
	int rc = hjc_logsrc_message(msg, n, &height, &at, &len, &error);
	if (rc == 2) {
		s->cbs.error(s->arg, error);
		free(error);
		return;
	}
	if (rc == 0)
		return;
	if (rc == -EBADMSG) {
		fail(s, rc,
		     "%s: a BlockUpdate not in hashjack serve's form "
		     "(docs/API.md): its data is not the log's line as written",
		     s->name);
		return;
	}
	/* The lines given are let go once they are as many bytes as those
	 * held: moved once, on average. */
	if (s->beg && s->beg >= s->b.len - s->beg)
		compact(s);
	if (rc == 1 && s->b.len - s->beg + len + 1 > s->o.max_held) {
		fail(s, -ENOBUFS,
		     "%s: more than %zu MiB of lines wait for the node",
		     s->name, s->o.max_held >> 20);
		return;
	}
	if (rc < 0 || hj_buf_reserve(&s->b, len + 1)) {
		s->b.err = 0; /* what is held stays */
		fail(s, -ENOMEM, "out of memory");
		return;
	}
	hj_buf_put(&s->b, msg + at, len);
	hj_buf_put(&s->b, "\n", 1);
	s->read += len + 1;
	s->cbs.line(s->arg, height);
}

static void on_closed(void *arg, const char *why)
{
	hjc_logsrc *s = arg;
	s->ws = NULL;
	if (s->failed) {
		s->failed = 0;
		return;
	}
	s->cbs.closed(s->arg, 0, why);
}

static int stream_new(const char *url, const hjc_logsrc_opts *o,
                      const hjc_logsrc_cbs *cbs, void *arg, hjc_logsrc **out,
                      char *err, size_t errlen)
{
	*out = NULL;
	hjc_logsrc *s = src_new(url, o);
	if (!s) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* What is held, and as much given before it (on_message). */
	hj_buf_init(&s->b, 2 * s->o.max_held + 2);
	s->stream = 1;
	s->cbs = *cbs;
	s->arg = arg;
	*out = s;
	return 0;
}

int hjc_logsrc_stream(uv_loop_t *loop, const char *url,
                      const hjc_logsrc_opts *o, const hjc_logsrc_cbs *cbs,
                      void *arg, hjc_logsrc **out, char *err, size_t errlen)
{
	int rc = stream_new(url, o, cbs, arg, out, err, errlen);
	if (rc == 0)
		(*out)->loop = loop;
	return rc;
}

int hjc_logsrc_stream_fake(const hj_wsc_fake_opts *f, const char *url,
                           const hjc_logsrc_opts *o, const hjc_logsrc_cbs *cbs,
                           void *arg, hjc_logsrc **out, char *err,
                           size_t errlen)
{
	int rc = stream_new(url, o, cbs, arg, out, err, errlen);
	if (rc == 0) {
		(*out)->fake = *f;
		(*out)->fake.url = (*out)->name;
	}
	return rc;
}

int hjc_logsrc_connect(hjc_logsrc *s, uint64_t from, char *err, size_t errlen)
{
	char url[HJ_WSC_MAX_URL + 64]; /* too long: hj_wsc refuses it */
	hj_wsc_cbs cbs = {on_message, on_closed, NULL};
	if (s->ws) {
		hj_say(err, errlen, "%s: connected already", s->name);
		return -EBUSY;
	}
	snprintf(url, sizeof url, "%s?from=%llu", s->name,
	         (unsigned long long)from);
	s->failed = 0;
	if (s->fake.url) {
		hj_wsc_fake_opts f = s->fake;
		f.url = url;
		f.max_message = s->o.max_message;
		return hj_wsc_fake(&f, &cbs, s, &s->ws, err, errlen);
	}
	return hj_wsc_open(s->loop, url, NULL, s->o.max_message, &cbs, s,
	                   &s->ws, err, errlen);
}

void hjc_logsrc_disconnect(hjc_logsrc *s)
{
	if (s->ws)
		hj_wsc_close(s->ws);
}

hj_wsc *hjc_logsrc_client(const hjc_logsrc *s)
{
	return s->ws;
}
