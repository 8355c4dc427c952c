/*
 * The WebSocket client of `hashjack verify` (chain/wsclient.c): what a
 * dealer's `hashjack serve` (or anything at its URL) answers, the
 * handshake's answer then frames, fed to a client without a socket
 * (hj_wsc_fake) in pieces, as reads would give them.
 *
 * Input: a byte of flags (bit 0: a valid 101 answer for the client's key
 * comes first, so that the input is frames; bit 1: the client calls
 * hj_wsc_close in its message callback, at the n-th message, n from bits
 * 4-5 plus one; bits 2-3: how often, in quarters, the pending deadline
 * passes (hj_wsc_fake_tick) after a piece; bits 6-7: how it ends when the
 * input has not ended it: end of file, hj_wsc_close then end of file,
 * deadlines until it ends, hj_wsc_close then deadlines), a byte m (0: the
 * input arrives in one piece; else pieces of 1 to m bytes), a byte for
 * max_message (1 + 4 times it), a seed for the pieces, then the answer.
 *
 * Checked: closed is called exactly once, and by the end; its why is
 * NULL exactly when hj_wsc_close was called, else one line of printable
 * ASCII that begins with the URL and ": " and gives a reason (never the
 * fallback "no reason given"); no message after hj_wsc_close or closed,
 * none longer than max_message, each valid UTF-8; hj_wsc_feed returns -1
 * exactly when closed was called.  What the client writes is its request
 * (exactly), then control frames only (ping, pong, close), FIN, masked,
 * no reserved bit, at most 125 bytes, nothing after a close.  No crash,
 * no sanitizer report, nothing leaks.
 */
#include "fuzz.h"

#include "say.h"
#include "wsclient.h"

#define URL "ws://203.0.113.7:8549/v1/stream?from=3"
/* RFC 6455, 1.3: the sample key and its Sec-WebSocket-Accept. */
#define KEY    "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
#define UPGRADED                                                               \
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"           \
	"Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n"

struct st {
	hj_wsc *c;
	size_t max;
	int close_at; /* hj_wsc_close at this message; 0: never */
	int messages;
	int user_closed;
	int closed;
	/* what the client wrote */
	uint8_t out[1024];
	size_t out_n;
	int req_done, close_sent;
};

static struct st st;

static size_t request_len(void)
{
	return strlen("GET /v1/stream?from=3 HTTP/1.1\r\n"
	              "Host: 203.0.113.7:8549\r\n"
	              "User-Agent: hashjack/" HJ_VERSION_STRING "\r\n"
	              "Upgrade: websocket\r\n"
	              "Connection: Upgrade\r\n"
	              "Sec-WebSocket-Key: " KEY "\r\n"
	              "Sec-WebSocket-Version: 13\r\n\r\n");
}

/* Whether p[0..n) is UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
static int utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t b = p[i];
		size_t k;
		uint32_t v, min;
		if (b < 0x80) {
			i++;
			continue;
		} else if ((b & 0xe0) == 0xc0) {
			k = 1, v = b & 0x1f, min = 0x80;
		} else if ((b & 0xf0) == 0xe0) {
			k = 2, v = b & 0x0f, min = 0x800;
		} else if ((b & 0xf8) == 0xf0) {
			k = 3, v = b & 0x07, min = 0x10000;
		} else {
			return 0;
		}
		if (n - i <= k)
			return 0;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return 0;
			v = v << 6 | (p[i + j] & 0x3f);
		}
		if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			return 0;
		i += k + 1;
	}
	return 1;
}

static void on_message(void *arg, const char *text, size_t len)
{
	struct st *s = arg;
	FUZZ_CHECK(!s->closed && !s->user_closed);
	FUZZ_CHECK(len <= s->max);
	FUZZ_CHECK(text != NULL);
	FUZZ_CHECK(utf8((const uint8_t *)text, len));
	if (++s->messages == s->close_at) {
		s->user_closed = 1;
		hj_wsc_close(s->c);
		FUZZ_CHECK(!s->closed); /* not from within a message */
	}
}

static void on_closed(void *arg, const char *why)
{
	struct st *s = arg;
	FUZZ_CHECK(!s->closed);
	s->closed = 1;
	if (s->user_closed) {
		FUZZ_CHECK(why == NULL);
		return;
	}
	FUZZ_CHECK(why != NULL);
	FUZZ_CHECK(strncmp(why, URL ": ", strlen(URL ": ")) == 0);
	FUZZ_CHECK(strlen(why) > strlen(URL ": "));
	FUZZ_CHECK(strcmp(why, URL ": the connection ended for no reason "
	                           "given") != 0);
	for (const char *p = why; *p; p++)
		FUZZ_CHECK(*p >= ' ' && *p <= '~');
}

/* The client's frames, as far as they are whole. */
static void check_frames(struct st *s)
{
	size_t at = 0;
	while (s->out_n - at >= 2) {
		uint8_t b0 = s->out[at], b1 = s->out[at + 1];
		size_t len = b1 & 0x7f;
		FUZZ_CHECK(!s->close_sent);
		FUZZ_CHECK((b0 & 0xf0) == 0x80); /* FIN, no reserved bit */
		FUZZ_CHECK((b0 & 0x0f) >= 0x8 && (b0 & 0x0f) <= 0xa);
		FUZZ_CHECK(b1 & 0x80); /* masked */
		FUZZ_CHECK(len <= 125);
		if (s->out_n - at < 6 + len)
			break;
		if ((b0 & 0x0f) == 0x8)
			s->close_sent = 1;
		at += 6 + len;
	}
	memmove(s->out, s->out + at, s->out_n - at);
	s->out_n -= at;
}

static void on_out(void *arg, const char *p, size_t n)
{
	struct st *s = arg;
	if (!s->req_done) {
		/* hj_wsc_fake writes the request whole, at once. */
		FUZZ_CHECK(n == request_len());
		static const char head[] = "GET /v1/stream?from=3 HTTP/1.1\r\n"
		                           "Host: 203.0.113.7:8549\r\n";
		FUZZ_CHECK(memcmp(p, head, sizeof head - 1) == 0);
		FUZZ_CHECK(memmem(p, n, "Sec-WebSocket-Key: " KEY "\r\n",
		                  21 + 24) != NULL);
		s->req_done = 1;
		return;
	}
	FUZZ_CHECK(n <= sizeof s->out - s->out_n);
	memcpy(s->out + s->out_n, p, n);
	s->out_n += n;
	check_frames(s);
}

static const hj_wsc_cbs cbs = {on_message, on_closed, NULL};

/* Feeds p[0..n); returns -1 once the client has ended. */
static int feed(const uint8_t *p, size_t n)
{
	int r = hj_wsc_feed(st.c, (const char *)p, n);
	FUZZ_CHECK((r == -1) == (st.closed == 1));
	return r;
}

static int tick(void)
{
	int r = hj_wsc_fake_tick(st.c);
	FUZZ_CHECK((r == -1) == (st.closed == 1));
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t flags = fuzz_u8(&in), m = fuzz_u8(&in), mx = fuzz_u8(&in);
	uint64_t seed = fuzz_u64(&in);
	char err[HJ_ERRLEN];
	int ended = 0;

	memset(&st, 0, sizeof st);
	st.max = 1 + 4 * (size_t)mx;
	st.close_at = flags & 2 ? 1 + ((flags >> 4) & 3) : 0;
	hj_wsc_fake_opts o = {.url = URL,
	                      .max_message = st.max,
	                      .key = KEY,
	                      .out = on_out,
	                      .out_arg = &st};
	FUZZ_CHECK(hj_wsc_fake(&o, &cbs, &st, &st.c, err, sizeof err) == 0);
	FUZZ_CHECK(st.req_done);

	if (flags & 1)
		ended = feed((const uint8_t *)UPGRADED, sizeof UPGRADED - 1);
	while (!ended && in.n > 0) {
		size_t k = in.n;
		if (m) {
			seed =
			    seed * 6364136223846793005u + 1442695040888963407u;
			k = 1 + (size_t)(seed >> 33) % m;
			if (k > in.n)
				k = in.n;
		}
		ended = feed(in.p, k);
		in.p += k;
		in.n -= k;
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		if (!ended && (seed >> 62) < ((flags >> 2) & 3))
			ended = tick();
	}
	if (!ended) {
		unsigned how = flags >> 6;
		if (how & 1) {
			st.user_closed = 1;
			hj_wsc_close(st.c);
			ended = st.closed;
		}
		if (!ended && how < 2) {
			hj_wsc_fake_eof(st.c);
		} else {
			/* A ping, the silence after it: three at most. */
			for (int i = 0; i < 3 && !ended; i++)
				ended = tick() != 0;
		}
	}
	FUZZ_CHECK(st.closed == 1);
	return 0;
}
