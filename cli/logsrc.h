/*
 * A dealer's card log as the tool reads it: the lines of a file followed
 * across rotation and truncation, of standard input, or of the dealer's
 * API's stream (`hashjack serve`'s /v1/stream, whose BlockUpdates carry
 * the log's lines byte for byte: docs/API.md).  `hashjack serve`'s view
 * (serve/view.c) and `hashjack verify` read their lines here, the same
 * way from either source.
 *
 * The source reads, buffers and says what became of the file; what to do
 * about it is each reader's: the view starts over from the database when
 * the log is cut and reads a renamed log to its end before the new one;
 * verify reads a cut log again from a line end it knows, compares the
 * lines it kept with the bytes there (hjc_logsrc_pread) and follows the
 * new file after a rotation.  hashjackd writes the log (daemon/logfile.c):
 * it appends whole lines, cuts back to its last commit when it restarts,
 * and opens a new file at the path on SIGHUP after logrotate renamed the
 * old one.
 *
 * A line is given without its "\n", with where it came from: which file
 * (0 for the first one opened, one more for each hjc_logsrc_follow; a
 * stream is file 0) and its bytes there.  A stream's offsets count the
 * bytes of its lines, each with a "\n", from the source's start, across
 * its connections.  The bytes after the last "\n" are a partial line,
 * kept until its newline comes.
 */
#ifndef HJC_LOGSRC_H
#define HJC_LOGSRC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <uv.h>

#include "wsclient.h"

typedef struct hjc_logsrc hjc_logsrc;

typedef struct hjc_logsrc_opts {
	/* The longest line taken, without its "\n"; 0: HJ_CARDLOG_MAX - 1,
	 * the longest the dealer writes.  At most HJ_CARDLOG_MAX. */
	size_t max_line;
	/* A file: how many files stay open for hjc_logsrc_pread, the
	 * current one and those before it (0: 1, the current one). */
	unsigned keep;
	/* A stream: the bound of one message (0: max_line + 256), and of
	 * the bytes of lines held, not given yet (0: 256 MiB). */
	size_t max_message, max_held;
} hjc_logsrc_opts;

typedef struct hjc_logsrc_line {
	const char *text; /* without its "\n"; borrowed until the next call
	                     on the source */
	size_t len;
	unsigned file;     /* which file: 0, then one more per follow */
	uint64_t off, end; /* its first byte in it, the byte after its "\n" */
} hjc_logsrc_line;

/*
 * Opens path, or standard input for "-" (not followed: never cut nor
 * rotated; left open at the end).  o may be NULL (the defaults).  0 with
 * *out, or a negative errno with err ("PATH: why", or "out of memory")
 * and *out NULL.
 */
int hjc_logsrc_open(const char *path, const hjc_logsrc_opts *o,
                    hjc_logsrc **out, char *err, size_t errlen);

/* Frees s; NULL is fine.  A stream's connection must have ended first
 * (its closed callback called). */
void hjc_logsrc_free(hjc_logsrc *s);

/*
 * The next complete line into *l: 1; 0 when there is none now (the end
 * of the file, a partial line maybe held: hjc_logsrc_partial; a stream:
 * no line waits); or a negative errno with err, after which only free
 * is of use: -EMSGSIZE the next line is longer than max_line (it begins
 * at hjc_logsrc_offset), -EIO or another read(2) error, -ENOMEM.
 */
int hjc_logsrc_next(hjc_logsrc *s, hjc_logsrc_line *l, char *err,
                    size_t errlen);
/* Gives back the line the last hjc_logsrc_next gave: the next call gives
 * it again.  Only right after a 1. */
void hjc_logsrc_unread(hjc_logsrc *s);

/* The name given: the path, "-" or the stream's URL. */
const char *hjc_logsrc_name(const hjc_logsrc *s);
/* The current file (as hjc_logsrc_line.file). */
unsigned hjc_logsrc_file(const hjc_logsrc *s);
/* Where the next line begins in the current file: the end of the last
 * line given. */
uint64_t hjc_logsrc_offset(const hjc_logsrc *s);
/* The bytes held after the last "\n" read: once next gave 0, a partial
 * line's. */
size_t hjc_logsrc_partial(const hjc_logsrc *s);
/* The current file's size and last change as last looked at (open,
 * hjc_logsrc_follow, hjc_logsrc_cut); size -1 when it is no regular
 * file (standard input, a pipe) or a stream. */
long long hjc_logsrc_size(const hjc_logsrc *s);
struct timespec hjc_logsrc_mtime(const hjc_logsrc *s);
/* The current file's device and inode (0 and 0 for a stream). */
void hjc_logsrc_identity(const hjc_logsrc *s, uint64_t *dev, uint64_t *ino);

/* ---- what became of the file (a regular file; never for "-" or a
 * stream, which say 0) ---- */

/*
 * Looks at the current file (fstat): 1 when it is shorter than what was
 * read of it, its size in *size (a dealer that restarted cut the lines it
 * had not committed; or it was cut by hand); 0 when not; a negative errno
 * with err ("PATH: why").
 */
int hjc_logsrc_cut(hjc_logsrc *s, uint64_t *size, char *err, size_t errlen);
/* 1 when the path names another file than the current one and that file
 * has bytes (logrotate renamed the log and the dealer writes the new
 * one; an empty new file is not one yet), else 0. */
int hjc_logsrc_rotated(const hjc_logsrc *s);
/* Reads the file at the path from its start, as the next file; a
 * partial line held is dropped, and the oldest file kept is closed when
 * keep are open.  0, or a negative errno with err ("PATH: why"; s is as
 * it was). */
int hjc_logsrc_follow(hjc_logsrc *s, char *err, size_t errlen);
/* Reads the current file again from byte off (a line's start): what is
 * held is dropped.  0, or a negative errno with err. */
int hjc_logsrc_seek(hjc_logsrc *s, uint64_t off, char *err, size_t errlen);
/* n bytes of a kept file from off into buf, as the file holds them now:
 * the count read (fewer at its end), -ENOENT (not kept: closed, or a
 * stream) or another negative errno. */
long long hjc_logsrc_pread(const hjc_logsrc *s, unsigned file, uint64_t off,
                           char *buf, size_t n);

/* ---- the dealer's API's stream ---- */

typedef struct hjc_logsrc_cbs {
	/* A BlockUpdate's line is held (hjc_logsrc_next gives it), of
	 * block height.  May disconnect. */
	void (*line)(void *arg, uint64_t height);
	/* The API sent an Error message: its "error", or NULL when it has
	 * none (borrowed for the call). */
	void (*error)(void *arg, const char *text);
	/*
	 * The connection ended.  rc 0: why is what ended it, as
	 * hj_wsc_cbs.closed says it (NULL after hjc_logsrc_disconnect); a
	 * negative rc: the source ended it, why says so: -EBADMSG a
	 * BlockUpdate not in hashjack serve's form, -ENOBUFS more than
	 * max_held bytes of lines wait, -ENOMEM.  The lines held stay;
	 * hjc_logsrc_connect may be called from here on (after a 0).
	 */
	void (*closed)(void *arg, int rc, const char *why);
} hjc_logsrc_cbs;

/*
 * A stream source of url, ws://HOST[:PORT]/v1/stream (no query), not
 * connected yet; its connections run on loop (used from the first
 * hjc_logsrc_connect on).  cbs is copied.  0 with *out, or -ENOMEM with
 * err (a URL hj_wsc refuses is said by hjc_logsrc_connect).
 */
int hjc_logsrc_stream(uv_loop_t *loop, const char *url,
                      const hjc_logsrc_opts *o, const hjc_logsrc_cbs *cbs,
                      void *arg, hjc_logsrc **out, char *err, size_t errlen);
/*
 * Connects to the stream from the block after `from` (?from=from).  0,
 * -EBUSY (a connection is up or ending), or as hj_wsc_open with err.
 * Its end comes through cbs->closed, never from within this call.
 */
int hjc_logsrc_connect(hjc_logsrc *s, uint64_t from, char *err, size_t errlen);
/* Ends the connection (hj_wsc_close): closed(arg, 0, NULL) follows, no
 * line before it.  Nothing when none is up. */
void hjc_logsrc_disconnect(hjc_logsrc *s);

/*
 * One message of the stream, as hashjack serve writes a BlockUpdate:
 * {"eventType":"BlockUpdate","eventId":"H","height":H,"data":LINE}, the
 * line byte for byte (docs/API.md).  1: a BlockUpdate, its height and
 * its line msg[*at, *at + *len); 2: an Error, *error its "error" (a new
 * string, the caller frees it) or NULL; 0: another message; -EBADMSG: a
 * BlockUpdate not in that form, or whose line has a newline in it;
 * -ENOMEM.
 */
int hjc_logsrc_message(const char *msg, size_t n, uint64_t *height, size_t *at,
                       size_t *len, char **error);

/* For the tests and the fuzz target: a stream source whose connections
 * are clients fed from memory (hj_wsc_fake with f's key and out; url and
 * max_message are the source's), their closed callbacks called from
 * within the feeding.  The client of the connection up, or NULL. */
int hjc_logsrc_stream_fake(const hj_wsc_fake_opts *f, const char *url,
                           const hjc_logsrc_opts *o, const hjc_logsrc_cbs *cbs,
                           void *arg, hjc_logsrc **out, char *err,
                           size_t errlen);
hj_wsc *hjc_logsrc_client(const hjc_logsrc *s);

#endif
