/*
 * The card log as `hashjack serve` reads it (cli/serve/view.c): the lines
 * of a dealer's log, before and after the database's cursor, are outside
 * input to the server.  One dealer state directory is made at start
 * (serve_fixture.h: 24 EVM blocks, four rounds, one left open); each input
 * rewrites the tail of its log in place, so that the file keeps the
 * identity (device, inode) that the database's cursor names, runs a new
 * view over it, asks it everything and frees it, then puts the log back.
 *
 * Input: a byte k (the first k mod 25 lines of the fixture's log are
 * kept; the cursor is after the last, so with k below 24 the input stands
 * in for lines the database has committed), a byte of flags (bits 0-3:
 * the view's options; bits 4-5: what happens between polls), a byte s
 * (where the rest is cut in two: s/256 of it), then the rest, written
 * after the kept lines.
 *
 * Between polls (bits 4-5): 0, the first part is written, polled, then
 * the second part appended and polled; 1, as 0, but after the first poll
 * the file is cut in the middle of the first part and polled (as a dealer
 * restarting after a crash cuts what it had not committed), then the cut
 * bytes are written again with the second part and polled; 2, the log is
 * renamed (logrotate) after the first poll and the second part is a new
 * file at its path; 3, everything is written at once and polled twice.
 *
 * Checked: every poll returns 0 or a negative errno with a reason; the
 * untouched log (k = 24, nothing after) loads without error, whatever
 * happens between polls, and gives every block; the blocks handed to the
 * callback rise within a poll and come once each over the view's life,
 * but for those beyond the database's cursor, sent again after a reload;
 * each is RoundUpdates of a round and a player then a BlockUpdate; every
 * answer of status 200 (the table, the open rounds, each round and player
 * of the fixture, the last blocks, a block's line) is JSON of the shape
 * the API promises, any other is 400, 404 or 503 (always 503 when the
 * view is not loaded) with a reason; history resends blocks in rising
 * height after the one asked for.  No crash, no sanitizer report, nothing
 * leaks.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <jansson.h>

#include "edge.h"
#include "say.h"
#include "serve_fixture.h"
#include "view.h"

#define MAX_LINES 64

static struct serve_fixture sf;
static char *orig; /* the fixture's log */
static uint64_t line_off[MAX_LINES + 1];
static size_t nlines;
static int logfd = -1;
static char rotated[600];

/*
 * Loading a view computes the house edge of its rules (for /v1/table):
 * the exact edge, by recursion, about 0.2 s under the sanitizers, all but
 * everything an input costs.  It is a pure function of the rule keys,
 * which this target never changes, so the link wraps it
 * (fuzz/CMakeLists.txt, -Wl,--wrap=hj_edge_compute) and it is computed
 * once; rules with other keys would still be computed.
 */
int __real_hj_edge_compute(const hj_rules *ru, hj_edge *out);
int __wrap_hj_edge_compute(const hj_rules *ru, hj_edge *out);
int __wrap_hj_edge_compute(const hj_rules *ru, hj_edge *out)
{
	static hj_rules rules;
	static hj_edge edge;
	static int have;
	char diff[256];
	int r;

	if (have) {
		hj_rules_diff_keys(&rules, ru, diff, sizeof diff);
		if (diff[0] == '\0') {
			*out = edge;
			return 0;
		}
	}
	r = __real_hj_edge_compute(ru, &edge);
	rules = *ru;
	have = r == 0;
	*out = edge;
	return r;
}

static void cleanup(void)
{
	if (logfd >= 0)
		close(logfd);
	serve_fixture_remove(&sf);
	free(orig);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	serve_fixture_evm(&sf);
	atexit(cleanup);
	logfd = open(sf.log, O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(logfd >= 0);
	orig = malloc(sf.log_len);
	FUZZ_CHECK(orig != NULL);
	FUZZ_CHECK(pread(logfd, orig, sf.log_len, 0) == (ssize_t)sf.log_len);
	for (uint64_t i = 0; i < sf.log_len; i++)
		if (orig[i] == '\n') {
			FUZZ_CHECK(nlines < MAX_LINES);
			line_off[++nlines] = i + 1;
		}
	FUZZ_CHECK(nlines == sf.last - sf.first + 1);
	snprintf(rotated, sizeof rotated, "%s.1", sf.log);
	return 0;
}

static void put(int fd, const void *p, size_t n, uint64_t at)
{
	FUZZ_CHECK(pwrite(fd, p, n, (off_t)at) == (ssize_t)n);
}

/* The log back to the fixture's, from byte at on. */
static void restore(uint64_t at)
{
	FUZZ_CHECK(ftruncate(logfd, (off_t)at) == 0);
	put(logfd, orig + at, sf.log_len - at, at);
}

static json_t *json_of(const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, 0, NULL);
	FUZZ_CHECK(j != NULL);
	return j;
}

/* What the callback saw over one view's life. */
struct seen {
	int any;
	uint64_t last; /* the highest block given */
	int poll_any;  /* ... in the current poll */
	uint64_t poll_last;
};

static int starts(const hjc_update *u, const char *prefix)
{
	size_t n = strlen(prefix);

	return u->len > n && memcmp(u->msg, prefix, n) == 0 &&
	       u->msg[u->len - 1] == '}';
}

/* The view builds its messages with jansson: their type and ends are
 * checked here, where parsing each would cost most of an input. */
static void on_block(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	struct seen *s = ctx;

	/* Rising within a poll; a block is given again only when a reload
	 * sends again what is beyond the database's cursor (sf.last). */
	FUZZ_CHECK(!s->poll_any || height > s->poll_last);
	FUZZ_CHECK(!s->any || height > s->last || height > sf.last);
	s->poll_any = 1;
	s->poll_last = height;
	s->any = 1;
	if (height > s->last)
		s->last = height;
	FUZZ_CHECK(n >= 1);
	for (size_t i = 0; i + 1 < n; i++) {
		FUZZ_CHECK(starts(&u[i], "{\"eventType\":\"RoundUpdate\","));
		FUZZ_CHECK(u[i].round != NULL && u[i].player != NULL);
	}
	/* The BlockUpdate closes the block. */
	FUZZ_CHECK(u[n - 1].round == NULL && u[n - 1].player == NULL);
	FUZZ_CHECK(starts(&u[n - 1], "{\"eventType\":\"BlockUpdate\","));
}

/* History: blocks after from, in rising height. */
static void on_history(void *ctx, uint64_t height, const hjc_update *u,
                       size_t n)
{
	struct seen *s = ctx;

	FUZZ_CHECK(height > s->last);
	FUZZ_CHECK(n >= 1 && u[n - 1].round == NULL);
	s->last = height;
}

static void check_reason(const char *err)
{
	FUZZ_CHECK(err[0] != '\0');
}

/* A query's answer: 200 and JSON of the given type, or a status with a
 * reason.  Frees it. */
static void check_answer(int st, char *out, size_t len, const char *err,
                         json_type want)
{
	if (st == 200) {
		json_t *j = json_of(out, len);
		FUZZ_CHECK(json_typeof(j) == want);
		FUZZ_CHECK(strlen(out) == len);
		json_decref(j);
		free(out);
		return;
	}
	FUZZ_CHECK(st == 400 || st == 404 || st == 503);
	check_reason(err);
}

/* Every query, of the fixture's rounds, players and blocks. */
static void ask(hjc_view *v)
{
	static const char *const heights[] = {
	    "0", "100", "111", "123", "124", "18446744073709551615"};
	char err[HJ_ERRLEN], *out, id[67];
	size_t len;
	int st, live;
	hjc_view_stats vs;

	hjc_view_stats_get(v, &vs);
	live = vs.live;
#define Q(call, want)                                                          \
	do {                                                                   \
		out = NULL;                                                    \
		err[0] = '\0';                                                 \
		st = call;                                                     \
		FUZZ_CHECK(!live ? st == 503 : 1);                             \
		check_answer(st, out, len, err, want);                         \
	} while (0)
	Q(hjc_view_table(v, &out, &len, err, sizeof err), JSON_OBJECT);
	Q(hjc_view_rounds(v, &out, &len, err, sizeof err), JSON_OBJECT);
	Q(hjc_view_blocks(v, NULL, &out, &len, err, sizeof err), JSON_ARRAY);
	Q(hjc_view_blocks(v, "3", &out, &len, err, sizeof err), JSON_ARRAY);
	for (size_t i = 0; i < sf.nrounds; i++) {
		hjc_view_id_text(v, &sf.rounds[i], id);
		Q(hjc_view_round(v, id, &out, &len, err, sizeof err),
		  JSON_OBJECT);
	}
	for (size_t i = 0; i < sf.nplayers; i++) {
		hjc_view_id_text(v, &sf.players[i], id);
		Q(hjc_view_player(v, id, &out, &len, err, sizeof err),
		  JSON_OBJECT);
	}
	for (size_t i = 0; i < sizeof heights / sizeof heights[0]; i++)
		Q(hjc_view_block(v, heights[i], &out, &len, err, sizeof err),
		  JSON_OBJECT);
	if (live && vs.height >= 2) {
		struct seen s = {.any = 1, .last = vs.height - 2};
		if (hjc_view_history(v, s.last, on_history, &s, err,
		                     sizeof err) != 0)
			check_reason(err);
	}
#undef Q
}

static int poll_once(hjc_view *v, struct seen *s)
{
	char err[HJ_ERRLEN] = "";
	int r;

	s->poll_any = 0;
	r = hjc_view_poll(v, on_block, s, err, sizeof err);

	FUZZ_CHECK(r <= 0);
	if (r)
		check_reason(err);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	size_t k = fuzz_u8(&in) % (nlines + 1);
	uint8_t flags = fuzz_u8(&in), s8 = fuzz_u8(&in);
	size_t split = in.n * s8 / 256;
	uint64_t base = line_off[k];
	const uint8_t *body = in.p;
	size_t n = in.n, cut = split / 2;
	int mode = flags >> 4 & 3, r = 0;
	struct seen s = {0};
	hjc_view_opts o = {.db = sf.db,
	                   .log = sf.log,
	                   .confirmations = flags & 1 ? 6 : 0,
	                   .history_blocks = (flags >> 1 & 3) * 3,
	                   .recent_rounds = flags >> 3 & 1};
	hjc_view *v;

	if (mode == 3)
		split = n;
	FUZZ_CHECK(ftruncate(logfd, (off_t)base) == 0);
	put(logfd, body, split, base);
	FUZZ_CHECK(hjc_view_new(&o, &v) == 0);
	r |= poll_once(v, &s);
	switch (mode) {
	case 0:
		put(logfd, body + split, n - split, base + split);
		r |= poll_once(v, &s);
		break;
	case 1:
		FUZZ_CHECK(ftruncate(logfd, (off_t)(base + cut)) == 0);
		r |= poll_once(v, &s);
		put(logfd, body + cut, n - cut, base + cut);
		r |= poll_once(v, &s);
		break;
	case 2: {
		int fd;

		FUZZ_CHECK(rename(sf.log, rotated) == 0);
		fd =
		    open(sf.log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		FUZZ_CHECK(fd >= 0);
		put(fd, body + split, n - split, 0);
		close(fd);
		r |= poll_once(v, &s);
		break;
	}
	default:
		r |= poll_once(v, &s);
		break;
	}
	/* The fixture's own log loads, whatever happens between polls. */
	if (k == nlines && n == 0)
		FUZZ_CHECK(r == 0 && s.any && s.last == sf.last);
	ask(v);
	hjc_view_free(v);
	if (mode == 2) {
		FUZZ_CHECK(unlink(sf.log) == 0);
		FUZZ_CHECK(rename(rotated, sf.log) == 0);
	}
	restore(base);
	return 0;
}
