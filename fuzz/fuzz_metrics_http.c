/*
 * hashjackd's metrics listener (daemon/metrics.c on daemon/core/http.c): what a
 * client sends, fed in pieces to a connection without a socket
 * (hj_server_fake), with the daemon's condition made from the input too:
 * heights, lag, payouts, the payer's warning (any bytes), counted events
 * of every kind and reason, node requests of any method name.
 *
 * Input: a byte m (0: the stream arrives in one piece; else pieces of 1 to
 * m bytes), a seed for the pieces, 24 bytes for the snapshot and counts,
 * a warning of up to 64 bytes (its length first), a method name of up to
 * 40 bytes (likewise), then the client's bytes.
 *
 * Checked on what is written: responses only, each "HTTP/1.1 " and a known
 * status, headers, then a body of exactly Content-Length bytes (none
 * when a HEAD was sent: then only the first status line); a 200 for /metrics is
 * Prometheus text, every line a comment or a sample "name[{...}] value" with a
 * valid name; every other body is JSON, /healthz's with "ok" true exactly when
 * the status is 200 and its reasons printable.  Nothing after a Connection:
 * close.  No crash, no sanitizer report, nothing leaks.
 */
#include "fuzz.h"

#include <jansson.h>
#include <uv.h>

#include "http.h"
#include "metrics.h"
#include "prom.h"
#include "reason.h"

struct out {
	char *buf;
	size_t n, cap;
};

static uv_loop_t loop;
static hjd_metrics *M;
static hj_server *S;
static hjd_metrics_snap snap;
static char warning[65];

static void take_snap(void *arg, hjd_metrics_snap *out)
{
	(void)arg;
	*out = snap;
	out->pay.warning = warning;
}

static void on_out(void *arg, const char *p, size_t n)
{
	struct out *o = arg;
	if (o->n + n + 1 > o->cap) {
		o->cap = (o->n + n + 1) * 2;
		o->buf = realloc(o->buf, o->cap);
		FUZZ_CHECK(o->buf != NULL);
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
	o->buf[o->n] = '\0';
}

/* Once: the listener's server on a loop that never runs. */
static void init(void)
{
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	FUZZ_CHECK(hjd_metrics_new(5, &M) == 0);
	FUZZ_CHECK(hjd_metrics_serve(M, &loop, take_snap, NULL, &S) == 0);
}

static int known(int st)
{
	static const int ok[] = {200, 400, 404, 405, 408,
	                         413, 414, 426, 431, 503};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (ok[i] == st)
			return 1;
	return 0;
}

static void check_metrics(const char *p, size_t n)
{
	const char *end = p + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		FUZZ_CHECK(nl != NULL); /* every line ends */
		if (*p != '#') {
			char name[128];
			size_t k = 0;
			while (p + k < nl && p[k] != '{' && p[k] != ' ' &&
			       k < sizeof name - 1) {
				name[k] = p[k];
				k++;
			}
			name[k] = '\0';
			FUZZ_CHECK(hj_prom_name_ok(name, 0));
			FUZZ_CHECK(memchr(p, ' ', (size_t)(nl - p)) != NULL);
		}
		p = nl + 1;
	}
}

/* The responses written, one after the other; with a HEAD among the
 * requests (its response has a Content-Length and no body), only the
 * first response's status line. */
static void check_out(const struct out *o, int head)
{
	if (o->n == 0)
		return;
	if (head) {
		FUZZ_CHECK(o->n == 0 ||
		           (o->n >= 12 && memcmp(o->buf, "HTTP/1.1 ", 9) == 0 &&
		            known((int)strtol(o->buf + 9, NULL, 10))));
		return;
	}
	const char *p = o->buf, *end = o->buf + o->n;
	while (p && p < end) {
		int st = 0;
		FUZZ_CHECK((size_t)(end - p) >= 12);
		FUZZ_CHECK(memcmp(p, "HTTP/1.1 ", 9) == 0);
		st = (int)strtol(p + 9, NULL, 10);
		FUZZ_CHECK(known(st));
		const char *hend = strstr(p, "\r\n\r\n");
		FUZZ_CHECK(hend != NULL);
		const char *cl = strstr(p, "Content-Length: ");
		FUZZ_CHECK(cl != NULL && cl < hend);
		size_t len = strtoul(cl + 16, NULL, 10);
		int close = strstr(p, "Connection: close") &&
		            strstr(p, "Connection: close") < hend;
		int text =
		    strstr(p, "text/plain") && strstr(p, "text/plain") < hend;
		const char *body = hend + 4;
		FUZZ_CHECK((size_t)(end - body) >= len);
		if (len && text) {
			FUZZ_CHECK(st == 200);
			check_metrics(body, len);
		} else if (len) {
			json_error_t je;
			json_t *j = json_loadb(body, len, 0, &je);
			FUZZ_CHECK(j != NULL);
			json_t *ok = json_object_get(j, "ok");
			if (ok) {
				FUZZ_CHECK(json_is_true(ok) == (st == 200));
				FUZZ_CHECK(json_is_array(
				    json_object_get(j, "reasons")));
			} else {
				FUZZ_CHECK(json_is_string(
				    json_object_get(j, "error")));
			}
			json_decref(j);
		}
		p = body + len;
		if (close)
			FUZZ_CHECK(p == end); /* nothing after a close */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	struct fuzz_in in = {data, size};
	struct out o = {0};
	char method[41];
	if (!once) {
		init();
		once = 1;
	}

	unsigned m = fuzz_u8(&in);
	uint32_t seed = fuzz_u8(&in) | (uint32_t)fuzz_u8(&in) << 8;
	memset(&snap, 0, sizeof snap);
	snap.have_tip = fuzz_u8(&in) & 1;
	snap.tip = fuzz_u8(&in) * 1000u;
	snap.final_tip = snap.tip;
	snap.have_height = fuzz_u8(&in) & 1;
	snap.height = fuzz_u8(&in) * 997u;
	snap.lag_blocks = fuzz_u8(&in);
	snap.lag_seconds = fuzz_u8(&in) / 3.0;
	snap.open_rounds = fuzz_u8(&in);
	snap.exposure = (hj_amount)fuzz_u8(&in) << 100;
	snap.have_totals = fuzz_u8(&in) & 1;
	snap.totals.owed.n = fuzz_u8(&in);
	snap.totals.confirmed.sum = ~(hj_amount)0 >> (fuzz_u8(&in) & 127);
	uint8_t f = fuzz_u8(&in);
	snap.have_payer = f & 1;
	snap.pay.halted = f >> 1 & 1;
	snap.pay.insufficient = f >> 2 & 1;
	snap.pay.have_balance = f >> 3 & 1;
	snap.stopping = f >> 4 & 1;
	snap.pay.balance = (hj_amount)fuzz_u8(&in) << 64;
	uint8_t ev = fuzz_u8(&in), reason = fuzz_u8(&in);
	hjd_metrics_event(M, &(hj_event){.type = (hj_ev)(ev % 11),
	                                 .reason = (hj_reason)(reason % 24)});
	hjd_metrics_block(M, fuzz_u8(&in), fuzz_u8(&in) / 100.0);
	hjd_metrics_commit(M, fuzz_u8(&in) / 7.0);
	size_t wl = fuzz_u8(&in) % 65;
	for (size_t i = 0; i < wl; i++)
		warning[i] = (char)(fuzz_u8(&in) | 1); /* no NUL inside */
	warning[wl] = '\0';
	size_t ml = fuzz_u8(&in) % 41;
	for (size_t i = 0; i < ml; i++)
		method[i] = (char)(fuzz_u8(&in) | 1);
	method[ml] = '\0';
	hjd_metrics_rpc(M, method, (enum hj_rpc_outcome)(fuzz_u8(&in) % 5),
	                fuzz_u8(&in) * 1000u);
	if (fuzz_u8(&in) & 1)
		hjd_metrics_retry(
		    M,
		    &(hj_rpc_retry){.what = warning,
		                    .attempt = 1,
		                    .cause = (enum hj_rpc_cause)(
		                        fuzz_u8(&in) % (HJ_RPC_CAUSES + 1))});
	if (fuzz_u8(&in) & 1)
		hjd_metrics_limit(M, &(hj_rpc_limit){.method = method,
		                                     .limit = fuzz_u8(&in),
		                                     .refused = fuzz_u8(&in),
		                                     .why = warning});

	hj_conn *c;
	FUZZ_CHECK(hj_server_fake(S, "127.0.0.1", on_out, &o, &c) == 0);
	int head = memmem(in.p, in.n, "HEAD", 4) != NULL;
	while (in.n > 0) {
		size_t k = in.n;
		if (m) {
			seed = seed * 1103515245u + 12345u;
			k = 1 + (seed >> 16) % m;
			if (k > in.n)
				k = in.n;
		}
		hj_conn_feed(c, (const char *)in.p, k);
		in.p += k;
		in.n -= k;
	}
	check_out(&o, head);
	hj_conn_fake_free(c);
	free(o.buf);
	return 0;
}
