/*
 * The dealer's API's stream as `hashjack verify` takes its lines
 * (cli/logsrc.c): each message's envelope, a BlockUpdate whose data is
 * the log's line byte for byte, an Error, anything else, read by a stream
 * source whose connection is a client fed from memory (hj_wsc_fake), the
 * source's bound on the lines it holds included.  The client's own
 * reading (the handshake, frames, pieces) is fuzz_wsclient's: here the
 * messages come framed, after a valid handshake.
 *
 * Input: a byte of flags (bit 0: the lines are taken after each message,
 * else at the end; bits 1-2: the bytes of lines held at most, from 64 to
 * 4096 by fours, or the default; bit 3: the source disconnects at the
 * end rather than the server going), a byte m (0: each frame in one
 * piece; else pieces of 1 to m bytes, their sizes drawn from a generator
 * seeded with the two bytes), then messages, each a two-byte
 * big-endian length and its bytes (the last one cut to what is left).
 *
 * Checked, for each message alone (hjc_logsrc_message): a BlockUpdate's
 * line is the message less serve's head for its height and the closing
 * brace, without a newline, the message is JSON with that eventType and
 * height, an Error's
 * text is its "error"; through the source, with the messages fed one at
 * a time: a message calls back at most once, as its kind says (line with
 * its height, error with its text, closed with -EBADMSG or -ENOBUFS and a
 * reason that begins with the URL, or the client's own end: never-UTF-8
 * text), nothing after closed, closed exactly once by the end; the lines
 * given are those of the BlockUpdates taken, in order, byte for byte,
 * each ending where the next begins.  No crash, no sanitizer report,
 * nothing leaks.
 */
#include "fuzz.h"

#include <errno.h>
#include <jansson.h>

#include "logsrc.h"
#include "say.h"

#define URL "ws://203.0.113.7:8549/v1/stream"
/* RFC 6455, 1.3: the sample key and its Sec-WebSocket-Accept. */
#define KEY    "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
#define UPGRADED                                                               \
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"           \
	"Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n"

#define MAX_LINES 4096

struct st {
	hjc_logsrc *s;
	int calls, closed, rc, lines;
	uint64_t height;
	char *error;
	int has_error;
	/* The lines of the BlockUpdates taken, in order, not given yet. */
	struct {
		const uint8_t *p;
		size_t n;
	} want[MAX_LINES];
	size_t nwant, next;
	uint64_t off; /* where the next line given begins */
};

static struct st st;

static void on_line(void *arg, uint64_t height)
{
	(void)arg;
	FUZZ_CHECK(!st.closed);
	st.calls++;
	st.lines++;
	st.height = height;
}

static void on_error(void *arg, const char *text)
{
	(void)arg;
	FUZZ_CHECK(!st.closed);
	st.calls++;
	st.has_error = 1;
	free(st.error);
	st.error = text ? strdup(text) : NULL;
	FUZZ_CHECK(!text || st.error);
}

static void on_closed(void *arg, int rc, const char *why)
{
	(void)arg;
	FUZZ_CHECK(!st.closed);
	st.calls++;
	st.closed = 1;
	st.rc = rc;
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOBUFS ||
	           rc == -ENOMEM);
	FUZZ_CHECK(why == NULL || strncmp(why, URL, strlen(URL)) == 0 ||
	           rc == -ENOMEM);
}

/* Takes every line the source holds: the ones wanted, in order. */
static void take(void)
{
	hjc_logsrc_line l;
	char err[HJ_ERRLEN];
	int rc;
	while ((rc = hjc_logsrc_next(st.s, &l, err, sizeof err)) == 1) {
		FUZZ_CHECK(st.next < st.nwant);
		FUZZ_CHECK(l.len == st.want[st.next].n);
		FUZZ_CHECK(memcmp(l.text, st.want[st.next].p, l.len) == 0);
		FUZZ_CHECK(l.file == 0 && l.off == st.off &&
		           l.end == l.off + l.len + 1);
		st.off = l.end;
		st.next++;
	}
	FUZZ_CHECK(rc == 0 && hjc_logsrc_partial(st.s) == 0);
}

/* The message alone: its kind, and what it must then be. */
static int alone(const uint8_t *m, size_t n, uint64_t *height, size_t *at,
                 size_t *len, char **error)
{
	char head[128];
	int rc = hjc_logsrc_message((const char *)m, n, height, at, len, error);
	FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2 || rc == -EBADMSG);
	if (rc == 1) {
		int hn = snprintf(head, sizeof head,
		                  "{\"eventType\":\"BlockUpdate\",\"eventId\":"
		                  "\"%llu\",\"height\":%llu,\"data\":",
		                  (unsigned long long)*height,
		                  (unsigned long long)*height);
		FUZZ_CHECK(*at == (size_t)hn && *at + *len + 1 == n);
		FUZZ_CHECK(memcmp(m, head, *at) == 0 && m[n - 1] == '}');
		FUZZ_CHECK(memchr(m + *at, '\n', *len) == NULL);
		json_t *j = json_loadb((const char *)m, n, 0, NULL);
		FUZZ_CHECK(j);
		FUZZ_CHECK(
		    strcmp(json_string_value(json_object_get(j, "eventType")),
		           "BlockUpdate") == 0);
		FUZZ_CHECK(json_integer_value(json_object_get(j, "height")) ==
		           (json_int_t)*height);
		json_decref(j);
	}
	if (rc == 2) {
		json_t *j = json_loadb((const char *)m, n, 0, NULL);
		const char *e = json_string_value(json_object_get(j, "error"));
		FUZZ_CHECK(e ? *error && strcmp(e, *error) == 0 : !*error);
		json_decref(j);
	}
	return rc;
}

/* Feeds bytes in pieces of 1 to m (0: at once), their sizes drawn from
 * *seed: 0, or -1 when the client ended. */
static int feed(uint32_t *seed, size_t m, const char *p, size_t n)
{
	while (n) {
		*seed = *seed * 1103515245u + 12345u;
		size_t k = m ? 1 + (*seed >> 16) % m : n;
		if (k > n)
			k = n;
		if (!hjc_logsrc_client(st.s) ||
		    hj_wsc_feed(hjc_logsrc_client(st.s), p, k) != 0)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t held[4] = {64, 256, 4096, 0};
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in), m = fuzz_u8(&in);
	uint32_t seed = (uint32_t)flags << 8 | m;
	hjc_logsrc_opts o = {.max_held = held[(flags >> 1) & 3],
	                     .max_message = 70000};
	hj_wsc_fake_opts f = {.key = KEY};
	hjc_logsrc_cbs cbs = {on_line, on_error, on_closed};
	char err[HJ_ERRLEN];
	static char frame[4 + 65536];

	memset(&st, 0, sizeof st);
	FUZZ_CHECK(hjc_logsrc_stream_fake(&f, URL, &o, &cbs, NULL, &st.s, err,
	                                  sizeof err) == 0);
	FUZZ_CHECK(hjc_logsrc_connect(st.s, 3, err, sizeof err) == 0);
	FUZZ_CHECK(hj_wsc_feed(hjc_logsrc_client(st.s), UPGRADED,
	                       sizeof UPGRADED - 1) == 0);
	while (in.n >= 2 && !st.closed && st.nwant < MAX_LINES) {
		size_t n = (size_t)in.p[0] << 8 | in.p[1];
		uint64_t height = 0;
		size_t at = 0, len = 0, h = 2;
		char *error = NULL;
		in.p += 2;
		in.n -= 2;
		if (n > in.n)
			n = in.n;
		const uint8_t *msg = in.p;
		in.p += n;
		in.n -= n;
		int kind = alone(msg, n, &height, &at, &len, &error);
		/* A text frame from the server: FIN, unmasked. */
		frame[0] = (char)0x81;
		if (n < 126) {
			frame[1] = (char)n;
		} else {
			frame[1] = 126;
			frame[2] = (char)(n >> 8);
			frame[3] = (char)n;
			h = 4;
		}
		memcpy(frame + h, msg, n);
		int calls = st.calls, lines = st.lines;
		st.has_error = 0;
		if (kind == 1) { /* wanted if taken */
			st.want[st.nwant].p = msg + at;
			st.want[st.nwant].n = len;
		}
		feed(&seed, m, frame, h + n);
		FUZZ_CHECK(st.calls <= calls + 1);
		if (st.lines > lines) {
			FUZZ_CHECK(kind == 1 && st.height == height);
			st.nwant++;
		}
		if (st.has_error)
			FUZZ_CHECK(
			    kind == 2 &&
			    (error ? st.error && strcmp(error, st.error) == 0
			           : !st.error));
		if (st.closed && st.rc == -EBADMSG)
			FUZZ_CHECK(kind == -EBADMSG);
		if (st.closed && st.rc == -ENOBUFS)
			FUZZ_CHECK(kind == 1 && o.max_held);
		if (kind == -EBADMSG && st.calls > calls)
			FUZZ_CHECK(st.closed && st.rc == -EBADMSG);
		free(error);
		if (flags & 1)
			take();
	}
	if (!st.closed && (flags & 8))
		hjc_logsrc_disconnect(st.s);
	if (hjc_logsrc_client(st.s))
		hj_wsc_fake_eof(hjc_logsrc_client(st.s));
	FUZZ_CHECK(st.closed == 1 && !hjc_logsrc_client(st.s));
	take();
	FUZZ_CHECK(st.next == st.nwant);
	hjc_logsrc_free(st.s);
	free(st.error);
	return 0;
}
