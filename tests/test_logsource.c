/*
 * The card log source (cli/logsrc.h) with exact values: lines split
 * across reads, a partial last line, the line cap, a file cut to every
 * size that matters, rotations (an empty new file first, a partial line
 * left behind), the files kept for reading back, standard input, and the
 * API's stream fed from memory (hj_wsc_fake) with every end it has.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cardlog.h"
#include "logsrc.h"
#include "say.h"

static char dir[256], path[300];

static void put(const char *mode, const char *s, size_t n)
{
	FILE *f = fopen(path, mode);
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

#define WRITE(s)  put("w", s, sizeof s - 1)
#define APPEND(s) put("a", s, sizeof s - 1)

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_logsource.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/cards.log", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static hjc_logsrc *open_src(size_t max_line, unsigned keep)
{
	hjc_logsrc_opts o = {.max_line = max_line, .keep = keep};
	hjc_logsrc *s = NULL;
	char err[HJ_ERRLEN];
	if (hjc_logsrc_open(path, &o, &s, err, sizeof err))
		fail_msg("%s", err);
	return s;
}

/* The next line must be text, of file `file`, at off. */
static void expect_line(hjc_logsrc *s, const char *text, unsigned file,
                        uint64_t off)
{
	hjc_logsrc_line l;
	char err[HJ_ERRLEN] = "";
	int rc = hjc_logsrc_next(s, &l, err, sizeof err);
	if (rc != 1)
		fail_msg("no line %s: %d %s", text, rc, err);
	assert_int_equal(l.len, strlen(text));
	assert_memory_equal(l.text, text, l.len);
	assert_int_equal(l.file, file);
	assert_int_equal(l.off, off);
	assert_int_equal(l.end, off + l.len + 1);
}

static void expect_none(hjc_logsrc *s, size_t partial)
{
	hjc_logsrc_line l;
	char err[HJ_ERRLEN];
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), 0);
	assert_int_equal(hjc_logsrc_partial(s), partial);
}

static void test_lines(void **state)
{
	(void)state;
	char err[HJ_ERRLEN];
	uint64_t dev, ino;
	struct stat st;
	hjc_logsrc *s = NULL;

	assert_int_equal(hjc_logsrc_open(path, NULL, &s, err, sizeof err),
	                 -ENOENT);
	assert_null(s);
	char want[400];
	snprintf(want, sizeof want, "%s: No such file or directory", path);
	assert_string_equal(err, want);

	WRITE("a\nbb\n\ncc");
	s = open_src(0, 0);
	assert_string_equal(hjc_logsrc_name(s), path);
	assert_int_equal(hjc_logsrc_size(s), 8);
	assert_int_equal(stat(path, &st), 0);
	hjc_logsrc_identity(s, &dev, &ino);
	assert_int_equal(dev, (uint64_t)st.st_dev);
	assert_int_equal(ino, (uint64_t)st.st_ino);
	expect_line(s, "a", 0, 0);
	expect_line(s, "bb", 0, 2);
	expect_line(s, "", 0, 5); /* an empty line is a line */
	assert_int_equal(hjc_logsrc_offset(s), 6);
	expect_none(s, 2); /* "cc", waiting for its newline */
	expect_none(s, 2);
	APPEND("c");
	expect_none(s, 3);
	APPEND("\nd\n");
	expect_line(s, "ccc", 0, 6);
	/* Given back, then again. */
	expect_line(s, "d", 0, 10);
	hjc_logsrc_unread(s);
	assert_int_equal(hjc_logsrc_offset(s), 10);
	expect_line(s, "d", 0, 10);
	expect_none(s, 0);
	assert_int_equal(hjc_logsrc_offset(s), 12);

	/* A line many reads long, then short ones in the same reads. */
	size_t big = 200000;
	char *line = malloc(big + 1);
	assert_non_null(line);
	for (size_t i = 0; i < big; i++)
		line[i] = (char)('a' + i % 26);
	line[big] = '\n';
	put("a", line, big + 1);
	APPEND("e\nf\n");
	hjc_logsrc_line l;
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), 1);
	assert_int_equal(l.len, big);
	assert_memory_equal(l.text, line, big);
	assert_int_equal(l.off, 12);
	assert_int_equal(l.end, 12 + big + 1);
	expect_line(s, "e", 0, 12 + big + 1);
	expect_line(s, "f", 0, 12 + big + 3);
	expect_none(s, 0);
	/* Read back from the file as it is now. */
	char b[4];
	assert_int_equal(hjc_logsrc_pread(s, 0, 2, b, 3), 3);
	assert_memory_equal(b, "bb\n", 3);
	assert_int_equal(hjc_logsrc_pread(s, 0, 12 + big + 3, b, 4), 2);
	assert_memory_equal(b, "f\n", 2);
	assert_int_equal(hjc_logsrc_pread(s, 1, 0, b, 1), -ENOENT);
	free(line);
	hjc_logsrc_free(s);
	hjc_logsrc_free(NULL);
}

/* The cap: a line of max_line bytes is one, a byte more is not, whether
 * its newline came or not. */
static void test_cap(void **state)
{
	(void)state;
	hjc_logsrc_line l;
	char err[HJ_ERRLEN], want[400];

	WRITE("0123456789\n");
	hjc_logsrc *s = open_src(10, 1);
	expect_line(s, "0123456789", 0, 0);
	expect_none(s, 0);
	APPEND("0123456789");
	expect_none(s, 10); /* at the cap, still waiting */
	APPEND("A");
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), -EMSGSIZE);
	snprintf(want, sizeof want, "%s, byte 11: a line longer than 10 bytes",
	         path);
	assert_string_equal(err, want);
	assert_int_equal(hjc_logsrc_offset(s), 11);
	hjc_logsrc_free(s);

	/* Its newline in the same read. */
	WRITE("x\n0123456789A\n");
	s = open_src(10, 1);
	expect_line(s, "x", 0, 0);
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), -EMSGSIZE);
	assert_int_equal(hjc_logsrc_offset(s), 2);
	hjc_logsrc_free(s);

	/* The default: the card log's own cap, HJ_CARDLOG_MAX with the
	 * "\n". */
	size_t n = HJ_CARDLOG_MAX;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 'x', n + 1);
	big[n - 1] = '\n';
	put("w", big, n);
	s = open_src(0, 0);
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), 1);
	assert_int_equal(l.len, HJ_CARDLOG_MAX - 1);
	assert_int_equal(l.end, HJ_CARDLOG_MAX);
	hjc_logsrc_free(s);
	big[n - 1] = 'x';
	big[n] = '\n';
	put("w", big, n + 1); /* a byte more, then its newline */
	s = open_src(0, 0);
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), -EMSGSIZE);
	hjc_logsrc_free(s);
	/* A cap above the card log's is the card log's "\n" included. */
	s = open_src((size_t)1 << 30, 0);
	assert_int_equal(hjc_logsrc_next(s, &l, err, sizeof err), 1);
	assert_int_equal(l.len, HJ_CARDLOG_MAX);
	hjc_logsrc_free(s);
	free(big);
}

/* Cut shorter than what was read, to each size that matters, and read
 * again from a line end (as verify does); not cut when as long or
 * longer. */
static void test_cut(void **state)
{
	(void)state;
	static const struct {
		off_t to;    /* the file cut to */
		uint64_t at; /* read again from (the last line end <= to) */
	} cuts[] = {
	    {10, 9}, /* in the partial line */
	    {9, 9},  /* at the last line end */
	    {7, 6},  /* in the last line */
	    {6, 6},  /* at a line end */
	    {1, 0},  /* in the first line */
	    {0, 0},  /* empty */
	};
	char err[HJ_ERRLEN];
	uint64_t size = 99;

	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		WRITE("l1\nl2\nl3\nl4");
		hjc_logsrc *s = open_src(0, 1);
		expect_line(s, "l1", 0, 0);
		expect_line(s, "l2", 0, 3);
		expect_line(s, "l3", 0, 6);
		expect_none(s, 2);
		assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
		APPEND("5"); /* longer: not cut */
		assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
		assert_int_equal(hjc_logsrc_size(s), 12);
		assert_int_equal(truncate(path, 11), 0); /* as long as read */
		assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
		assert_int_equal(truncate(path, cuts[i].to), 0);
		assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 1);
		assert_int_equal(size, (uint64_t)cuts[i].to);
		assert_int_equal(hjc_logsrc_size(s), cuts[i].to);
		/* Written again differently from there. */
		assert_int_equal(
		    hjc_logsrc_seek(s, cuts[i].at, err, sizeof err), 0);
		assert_int_equal(hjc_logsrc_offset(s), cuts[i].at);
		assert_int_equal(hjc_logsrc_partial(s), 0);
		assert_int_equal(truncate(path, (off_t)cuts[i].at), 0);
		APPEND("new\n");
		expect_line(s, "new", 0, cuts[i].at);
		expect_none(s, 0);
		assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
		hjc_logsrc_free(s);
	}
}

/* logrotate: renamed, an empty new file (not a rotation yet), the new
 * file with bytes; the old one read to its end first, kept for reading
 * back until keep files are newer. */
static void test_rotation(void **state)
{
	(void)state;
	char err[HJ_ERRLEN], old[320], older[320], b[8];
	uint64_t dev, ino;
	struct stat st;

	snprintf(old, sizeof old, "%s.1", path);
	snprintf(older, sizeof older, "%s.2", path);
	WRITE("a1\n");
	hjc_logsrc *s = open_src(0, 2);
	expect_line(s, "a1", 0, 0);
	expect_none(s, 0);
	assert_int_equal(hjc_logsrc_rotated(s), 0);
	assert_int_equal(rename(path, old), 0);
	assert_int_equal(hjc_logsrc_rotated(s), 0); /* no file at the path */
	WRITE("");
	assert_int_equal(hjc_logsrc_rotated(s), 0); /* empty: not yet */
	APPEND("b1\n");
	assert_int_equal(hjc_logsrc_rotated(s), 1);
	/* The new file goes on; the dealer had written one more line to
	 * the old one before it was told. */
	put("a", "a2\n", 3);
	expect_none(s, 0);
	{
		FILE *f = fopen(old, "a");
		assert_non_null(f);
		fputs("a2\n", f);
		fclose(f);
	}
	expect_line(s, "a2", 0, 3);
	expect_none(s, 0);
	assert_int_equal(hjc_logsrc_follow(s, err, sizeof err), 0);
	assert_int_equal(hjc_logsrc_file(s), 1);
	assert_int_equal(hjc_logsrc_rotated(s), 0);
	assert_int_equal(stat(path, &st), 0);
	hjc_logsrc_identity(s, &dev, &ino);
	assert_int_equal(ino, (uint64_t)st.st_ino);
	assert_int_equal(hjc_logsrc_size(s), 6);
	expect_line(s, "b1", 1, 0);
	expect_line(s, "a2", 1, 3);
	expect_none(s, 0);
	/* Both files read back; the old one is the renamed file. */
	assert_int_equal(hjc_logsrc_pread(s, 0, 3, b, 3), 3);
	assert_memory_equal(b, "a2\n", 3);
	assert_int_equal(hjc_logsrc_pread(s, 1, 0, b, 3), 3);
	assert_memory_equal(b, "b1\n", 3);

	/* Renamed again, with a partial line left behind: said, then
	 * dropped by follow; the first file is let go (keep 2). */
	APPEND("c");
	expect_none(s, 1);
	assert_int_equal(rename(old, older), 0);
	assert_int_equal(rename(path, old), 0);
	WRITE("d1\n");
	assert_int_equal(hjc_logsrc_rotated(s), 1);
	expect_none(s, 1);
	assert_int_equal(hjc_logsrc_follow(s, err, sizeof err), 0);
	assert_int_equal(hjc_logsrc_partial(s), 0);
	assert_int_equal(hjc_logsrc_file(s), 2);
	expect_line(s, "d1", 2, 0);
	assert_int_equal(hjc_logsrc_pread(s, 0, 0, b, 3), -ENOENT);
	assert_int_equal(hjc_logsrc_pread(s, 1, 6, b, 3), 1);
	assert_int_equal(b[0], 'c');
	assert_int_equal(hjc_logsrc_pread(s, 2, 0, b, 3), 3);

	/* No file at the path to follow: said, the source as it was. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hjc_logsrc_follow(s, err, sizeof err), -ENOENT);
	char want[400];
	snprintf(want, sizeof want, "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_int_equal(hjc_logsrc_file(s), 2);
	assert_int_equal(hjc_logsrc_pread(s, 2, 0, b, 3), 3);
	assert_memory_equal(b, "d1\n", 3);
	hjc_logsrc_free(s);
}

/* "-": standard input, to its end; never cut nor rotated, left open. */
static void test_stdin(void **state)
{
	(void)state;
	int p[2], saved = dup(STDIN_FILENO);
	char err[HJ_ERRLEN];
	uint64_t size;
	hjc_logsrc *s = NULL;

	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "s1\ns2\npart", 10), 10);
	close(p[1]);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	close(p[0]);
	assert_int_equal(hjc_logsrc_open("-", NULL, &s, err, sizeof err), 0);
	assert_string_equal(hjc_logsrc_name(s), "-");
	assert_int_equal(hjc_logsrc_size(s), -1);
	expect_line(s, "s1", 0, 0);
	expect_line(s, "s2", 0, 3);
	expect_none(s, 4);
	assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
	assert_int_equal(hjc_logsrc_rotated(s), 0);
	assert_int_equal(hjc_logsrc_seek(s, 0, err, sizeof err), -ESPIPE);
	assert_string_equal(err, "-: Illegal seek");
	assert_int_equal(hjc_logsrc_follow(s, err, sizeof err), -EINVAL);
	hjc_logsrc_free(s);
	assert_true(fcntl(STDIN_FILENO, F_GETFD) >= 0); /* still open */
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

/* ---- the stream ---- */

/* RFC 6455, 1.3: the sample key and its Sec-WebSocket-Accept. */
#define KEY    "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
#define UPGRADED                                                               \
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"           \
	"Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n"
#define URL "ws://127.0.0.1:8549/v1/stream"

struct rec {
	char req[1024]; /* the last request's first line */
	uint64_t heights[16];
	size_t nlines;
	char error[HJ_ERRLEN];
	size_t errors;
	int closed, rc;
	char why[HJ_ERRLEN];
	hjc_logsrc *s;
	int disconnect_at; /* a line's height: disconnect there */
};

static void on_out(void *arg, const char *p, size_t n)
{
	struct rec *r = arg;
	const char *eol = memchr(p, '\r', n);
	if (strncmp(p, "GET ", 4) == 0 && eol)
		snprintf(r->req, sizeof r->req, "%.*s", (int)(eol - p), p);
}

static void on_line(void *arg, uint64_t height)
{
	struct rec *r = arg;
	r->heights[r->nlines++ % 16] = height;
	if (r->disconnect_at && height == (uint64_t)r->disconnect_at)
		hjc_logsrc_disconnect(r->s);
}

static void on_error(void *arg, const char *text)
{
	struct rec *r = arg;
	snprintf(r->error, sizeof r->error, "%s", text ? text : "(none)");
	r->errors++;
}

static void on_closed(void *arg, int rc, const char *why)
{
	struct rec *r = arg;
	r->closed++;
	r->rc = rc;
	snprintf(r->why, sizeof r->why, "%s", why ? why : "(null)");
}

static const hjc_logsrc_cbs cbs = {on_line, on_error, on_closed};

/* A text frame from the server (unmasked), into out: its length. */
static size_t frame(char *out, const char *text)
{
	size_t n = strlen(text), h = 2;
	out[0] = (char)0x81;
	if (n < 126) {
		out[1] = (char)n;
	} else {
		out[1] = 126;
		out[2] = (char)(n >> 8);
		out[3] = (char)n;
		h = 4;
	}
	memcpy(out + h, text, n);
	return h + n;
}

static int send_msg(hjc_logsrc *s, const char *text)
{
	char b[70000];
	return hj_wsc_feed(hjc_logsrc_client(s), b, frame(b, text));
}

#define BU(h, line)                                                            \
	"{\"eventType\":\"BlockUpdate\",\"eventId\":\"" #h "\",\"height\":" #h \
	",\"data\":" line "}"

static hjc_logsrc *stream(struct rec *r, const hjc_logsrc_opts *o)
{
	hj_wsc_fake_opts f = {.key = KEY, .out = on_out, .out_arg = r};
	char err[HJ_ERRLEN];
	if (hjc_logsrc_stream_fake(&f, URL, o, &cbs, r, &r->s, err, sizeof err))
		fail_msg("%s", err);
	return r->s;
}

/* The client that ended (a close of the source's, or the client's own
 * refusal) hears the server go. */
static void end_client(hjc_logsrc *s)
{
	if (hjc_logsrc_client(s))
		hj_wsc_fake_eof(hjc_logsrc_client(s));
	assert_null(hjc_logsrc_client(s));
}

static void connect_to(struct rec *r, uint64_t from)
{
	char err[HJ_ERRLEN];
	if (hjc_logsrc_connect(r->s, from, err, sizeof err))
		fail_msg("%s", err);
	assert_non_null(hjc_logsrc_client(r->s));
	assert_int_equal(
	    hj_wsc_feed(hjc_logsrc_client(r->s), UPGRADED, sizeof UPGRADED - 1),
	    0);
}

static void test_stream(void **state)
{
	(void)state;
	struct rec r = {0};
	char err[HJ_ERRLEN];
	uint64_t size;
	hjc_logsrc *s = stream(&r, NULL);

	assert_string_equal(hjc_logsrc_name(s), URL);
	assert_null(hjc_logsrc_client(s));
	expect_none(s, 0);
	connect_to(&r, 5);
	assert_string_equal(r.req, "GET /v1/stream?from=5 HTTP/1.1");
	assert_int_equal(hjc_logsrc_connect(s, 5, err, sizeof err), -EBUSY);

	/* Lines, an Error, messages of other types: the lines in order,
	 * with offsets as if they were a file's. */
	assert_int_equal(send_msg(s, BU(6, "{\"height\":6}")), 0);
	assert_int_equal(send_msg(s, "{\"eventType\":\"RoundUpdate\","
	                             "\"data\":{}}"),
	                 0);
	assert_int_equal(send_msg(s, "{\"eventType\":\"Error\",\"error\":"
	                             "\"slow down\"}"),
	                 0);
	assert_int_equal(send_msg(s, "{\"eventType\":\"Error\"}"), 0);
	assert_int_equal(send_msg(s, "not JSON"), 0);
	assert_int_equal(send_msg(s, BU(7, "{\"height\":7,\"a\":[1,2]}")), 0);
	assert_int_equal(r.nlines, 2);
	assert_int_equal(r.heights[0], 6);
	assert_int_equal(r.heights[1], 7);
	assert_int_equal(r.errors, 2);
	assert_string_equal(r.error, "(none)");
	expect_line(s, "{\"height\":6}", 0, 0);
	expect_line(s, "{\"height\":7,\"a\":[1,2]}", 0, 13);
	expect_none(s, 0);
	assert_int_equal(hjc_logsrc_offset(s), 36);
	/* A stream is no file. */
	assert_int_equal(hjc_logsrc_size(s), -1);
	assert_int_equal(hjc_logsrc_cut(s, &size, err, sizeof err), 0);
	assert_int_equal(hjc_logsrc_rotated(s), 0);
	assert_int_equal(hjc_logsrc_pread(s, 0, 0, err, 1), -ENOENT);

	/* Not serve's form: the source ends the connection and says why;
	 * the lines before it are still given. */
	assert_int_equal(send_msg(s, BU(8, "{\"height\":8}")), 0);
	send_msg(s, "{\"eventType\":\"BlockUpdate\",\"height\":9,"
	            "\"eventId\":\"9\",\"data\":{}}");
	assert_int_equal(r.closed, 1);
	assert_int_equal(r.rc, -EBADMSG);
	assert_string_equal(r.why, URL ": a BlockUpdate not in hashjack "
	                               "serve's form (docs/API.md): its data "
	                               "is not the log's line as written");
	end_client(s);
	assert_int_equal(r.closed, 1); /* said once */
	expect_line(s, "{\"height\":8}", 0, 36);
	expect_none(s, 0);

	/* Again from the last block: the server's end is said as the
	 * client says it. */
	connect_to(&r, 8);
	assert_string_equal(r.req, "GET /v1/stream?from=8 HTTP/1.1");
	assert_int_equal(send_msg(s, BU(9, "{}")), 0);
	hj_wsc_fake_eof(hjc_logsrc_client(s));
	assert_int_equal(r.closed, 2);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.why, URL "?from=8: the server closed the "
	                               "connection without a WebSocket close");
	expect_line(s, "{}", 0, 49);

	/* Disconnected from a line's callback: no line after it; closed
	 * with NULL once the client has ended. */
	r.disconnect_at = 10;
	connect_to(&r, 9);
	assert_int_equal(send_msg(s, BU(10, "{}")), 0);
	send_msg(s, BU(11, "{}"));
	assert_int_equal(r.heights[(r.nlines - 1) % 16], 10);
	end_client(s);
	assert_int_equal(r.closed, 3);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.why, "(null)");
	expect_line(s, "{}", 0, 52);
	expect_none(s, 0);
	hjc_logsrc_free(s);
}

/* The bounds: lines held, and a message's. */
static void test_stream_bounds(void **state)
{
	(void)state;
	struct rec r = {0};
	hjc_logsrc_opts o = {.max_held = 30, .max_message = 80};
	hjc_logsrc *s = stream(&r, &o);

	connect_to(&r, 0);
	/* 13 + 13 bytes held: fits; 13 more do not. */
	assert_int_equal(send_msg(s, BU(1, "{\"height\":1}")), 0);
	assert_int_equal(send_msg(s, BU(2, "{\"height\":2}")), 0);
	send_msg(s, BU(3, "{\"height\":3}"));
	end_client(s);
	assert_int_equal(r.closed, 1);
	assert_int_equal(r.rc, -ENOBUFS);
	assert_string_equal(r.why,
	                    URL ": more than 0 MiB of lines wait for the node");
	assert_int_equal(r.nlines, 2);
	/* Given, they make room. */
	expect_line(s, "{\"height\":1}", 0, 0);
	expect_line(s, "{\"height\":2}", 0, 13);
	connect_to(&r, 2);
	assert_int_equal(send_msg(s, BU(3, "{\"height\":3}")), 0);
	assert_int_equal(send_msg(s, BU(4, "{\"height\":4}")), 0);
	expect_line(s, "{\"height\":3}", 0, 26);
	expect_line(s, "{\"height\":4}", 0, 39);
	/* A message over max_message: the client's own end. */
	send_msg(s, BU(5, "{\"height\":5,\"pad\":\"xxxxxxxxx\"}"));
	end_client(s);
	assert_int_equal(r.closed, 2);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.why, URL "?from=2: a message longer than 80 "
	                               "bytes");
	expect_none(s, 0);
	hjc_logsrc_free(s);
}

/* The envelope alone, every form. */
static void test_message(void **state)
{
	(void)state;
	static const struct {
		const char *msg;
		int rc;
		uint64_t height;
		const char *line, *error;
	} cases[] = {
	    {BU(0, "{}"), 1, 0, "{}", NULL},
	    /* beyond jansson's integers: no JSON, passed over */
	    {BU(18446744073709551615, "x"), 0, 0, NULL, NULL},
	    {BU(42, "{\"a\":\"}\"}"), 1, 42, "{\"a\":\"}\"}", NULL},
	    /* data not last, spacing, another eventId, no data, a negative
	     * or fractional height, not JSON at all but the head */
	    {"{\"eventType\":\"BlockUpdate\",\"eventId\":\"1\",\"data\":{},"
	     "\"height\":1}",
	     -EBADMSG, 0, NULL, NULL},
	    {"{\"eventType\": \"BlockUpdate\",\"eventId\":\"1\",\"height\":1,"
	     "\"data\":{}}",
	     -EBADMSG, 0, NULL, NULL},
	    {"{\"eventType\":\"BlockUpdate\",\"eventId\":\"2\",\"height\":1,"
	     "\"data\":{}}",
	     -EBADMSG, 0, NULL, NULL},
	    {"{\"eventType\":\"BlockUpdate\",\"eventId\":\"1\",\"height\":1}",
	     -EBADMSG, 0, NULL, NULL},
	    /* valid JSON, but a line with a newline in it: two lines */
	    {"{\"eventType\":\"BlockUpdate\",\"eventId\":\"1\",\"height\":1,"
	     "\"data\":{\"a\":1,\n\"b\":2}}",
	     -EBADMSG, 0, NULL, NULL},
	    {"{\"eventType\":\"BlockUpdate\",\"height\":-1}", -EBADMSG, 0, NULL,
	     NULL},
	    {"{\"eventType\":\"BlockUpdate\",\"height\":1.0}", -EBADMSG, 0,
	     NULL, NULL},
	    {"{\"eventType\":\"BlockUpdate\",\"eventId\":\"1\",\"height\":1,"
	     "\"data\":",
	     0, 0, NULL, NULL},
	    {"{\"eventType\":\"Error\",\"error\":\"gone\"}", 2, 0, NULL,
	     "gone"},
	    {"{\"eventType\":\"Error\",\"error\":7}", 2, 0, NULL, NULL},
	    {"{\"eventType\":\"RoundUpdate\"}", 0, 0, NULL, NULL},
	    {"{\"eventType\":1}", 0, 0, NULL, NULL},
	    {"[]", 0, 0, NULL, NULL},
	    {"", 0, 0, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint64_t h = 0;
		size_t at = 0, len = 0;
		char *error = NULL;
		const char *m = cases[i].msg;
		int rc =
		    hjc_logsrc_message(m, strlen(m), &h, &at, &len, &error);
		if (rc != cases[i].rc)
			fail_msg("case %zu: %d, not %d", i, rc, cases[i].rc);
		if (rc == 1) {
			assert_int_equal(h, cases[i].height);
			assert_int_equal(len, strlen(cases[i].line));
			assert_memory_equal(m + at, cases[i].line, len);
		}
		if (cases[i].error)
			assert_string_equal(error, cases[i].error);
		else
			assert_null(error);
		free(error);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
	    cmocka_unit_test(test_stdin),
	    cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_stream_bounds),
	    cmocka_unit_test(test_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
