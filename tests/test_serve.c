/*
 * hashjack serve without sockets: the view over a dealer's state written
 * by the dealer's own code (tests/dealer_fixture.h), and the HTTP and
 * WebSocket paths through connections fed in memory (hj_server_fake).
 * tests/e2e/test_serve.py runs the same against real nodes and sockets.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <uv.h>

#include "api.h"
#include "card.h"
#include "dealer_fixture.h"
#include "hex.h"
#include "http.h"
#include "say.h"
#include "seed.h"
#include "sha256.h"
#include "view.h"

static char dir[256];

/* ---- what a view gives its stream ---- */

struct got {
	size_t blocks;
	uint64_t last;
	json_t *msgs; /* every message, parsed */
};

static void collect(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	struct got *g = ctx;
	assert_true(n >= 1);
	assert_null(u[n - 1].round);
	g->blocks++;
	g->last = height;
	for (size_t i = 0; i < n; i++) {
		json_error_t e;
		json_t *m = json_loadb(u[i].msg, u[i].len, 0, &e);
		assert_non_null(m);
		assert_int_equal(
		    json_integer_value(json_object_get(m, "height")), height);
		assert_string_equal(
		    json_string_value(json_object_get(m, "eventType")),
		    i == n - 1 ? "BlockUpdate" : "RoundUpdate");
		json_array_append_new(g->msgs, m);
	}
}

/* ---- a table: one player, bets of 1 to 10^6, timeout 5 ---- */

static hj_rules rules(void)
{
	hj_rules r;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = 1000000;
	r.timeout_blocks = 5;
	return r;
}

static hj_fixture *fixture(void)
{
	char err[HJ_ERRLEN];
	hj_rules r = rules();
	snprintf(dir, sizeof dir, "/tmp/hj-serve-XXXXXX");
	assert_non_null(mkdtemp(dir));
	hj_fixture *f = hj_fixture_new(dir, HJ_EVM, &r, 100, err, sizeof err);
	if (!f)
		fail_msg("%s", err);
	return f;
}

static void cleanup(hj_fixture *f)
{
	char cmd[300];
	hj_fixture_free(f);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Deals a block whose card is rank (suit 0), with txs. */
static void deal(hj_fixture *f, unsigned rank, const hj_action *txs, size_t n)
{
	uint8_t h[32];
	char err[HJ_ERRLEN];
	hj_fixture_hash(rank, hj_fixture_next(f) % 4, hj_fixture_next(f), h);
	if (hj_fixture_block(f, h, txs, n, err, sizeof err))
		fail_msg("%s", err);
}

static hjc_view *view(hj_fixture *f, size_t history)
{
	hjc_view_opts o = {.db = hj_fixture_db(f),
	                   .log = hj_fixture_log(f),
	                   .confirmations = 12,
	                   .history_blocks = history,
	                   .recent_rounds = 20};
	hjc_view *v;
	assert_int_equal(hjc_view_new(&o, &v), 0);
	return v;
}

static void poll_ok(hjc_view *v, struct got *g)
{
	char err[HJ_ERRLEN] = "";
	int r = hjc_view_poll(v, g ? collect : NULL, g, err, sizeof err);
	if (r)
		fail_msg("poll: %d %s", r, err);
}

#define ROUND1                                                                 \
	"0x0100000000000000000000000000000000000000000000000000000000000001"
#define PLAYER1 "0x0000000000000000000000000000000000000001"
#define ROUND1_HEX                                                             \
	"0100000000000000000000000000000000000000000000000000000000000001"

/* The round of player 1: Bet at 100; 10, up 7, 9 (19); Stand at 104;
 * the dealer's 10 at 105 (17): a win, 2000 back. */
static void play_round(hj_fixture *f, int upto)
{
	hj_action bet = hj_fixture_bet(1, 1, 1000, 0, 0);
	hj_action stand = hj_fixture_act(1, 2, HJ_STAND, 0);
	static const unsigned cards[] = {5, 10, 7, 9, 3, 10};
	for (int i = 0; i < upto; i++) {
		uint64_t h = hj_fixture_next(f);
		if (h == 100)
			deal(f, cards[0], &bet, 1);
		else if (h == 104)
			deal(f, cards[4], &stand, 1);
		else
			deal(f, cards[h - 100], NULL, 0);
	}
}

/* A query's answer, parsed.  out and len are pointers: the query (the
 * status argument) fills them, and argument order is unspecified. */
static json_t *answer_at(int line, int status, char **outp, size_t *lenp,
                         const char *err)
{
	char *out = *outp;
	size_t len = *lenp;
	if (status != 200)
		fail_msg("line %d: status %d: %s", line, status, err);
	json_t *j = json_loadb(out, len, 0, NULL);
	if (!j)
		fail_msg("line %d: not JSON: %.*s", line, (int)len, out);
	free(out);
	return j;
}

#define answer(...) answer_at(__LINE__, __VA_ARGS__)

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	if (!s)
		fail_msg("no string %s", k);
	return s;
}

static void test_follow_and_settle(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	hjc_view *v = view(f, 100);
	struct got g = {.msgs = json_array()};
	char *out, err[HJ_ERRLEN];
	size_t len;

	play_round(f, 4); /* Bet and three cards: the player's turn */
	poll_ok(v, &g);
	assert_int_equal(g.blocks, 4);
	json_t *rs = answer(hjc_view_rounds(v, &out, &len, err, sizeof err),
	                    &out, &len, err);
	json_t *r = json_array_get(json_object_get(rs, "open"), 0);
	assert_string_equal(str(r, "round"), ROUND1);
	assert_string_equal(str(r, "handOwner"), "Player");
	json_t *na = json_object_get(r, "nextActions");
	assert_int_equal(json_array_size(na), 3);
	assert_string_equal(json_string_value(json_array_get(na, 0)), "Hit");
	assert_int_equal(json_integer_value(json_object_get(r, "windowOpen")),
	                 104);
	assert_int_equal(json_integer_value(json_object_get(r, "timeoutAt")),
	                 109);
	json_decref(rs);

	play_round(f, 2); /* Stand, and the dealer's 10 */
	poll_ok(v, &g);
	assert_int_equal(g.blocks, 6);
	/* Block 105's RoundUpdate, then its BlockUpdate, which closes it. */
	json_t *last = json_array_get(g.msgs, json_array_size(g.msgs) - 2);
	assert_string_equal(str(last, "eventType"), "RoundUpdate");
	assert_string_equal(
	    str(json_array_get(g.msgs, json_array_size(g.msgs) - 1),
	        "eventType"),
	    "BlockUpdate");
	json_t *data = json_object_get(last, "data");
	assert_true(json_is_true(json_object_get(data, "roundEnded")));
	assert_string_equal(str(data, "payout"), "2000");
	assert_int_equal(json_integer_value(json_object_get(data, "settledAt")),
	                 105);
	json_t *hand = json_array_get(json_object_get(data, "playerHands"), 0);
	assert_string_equal(str(hand, "status"), "Win");

	/* The settled round, replayed from the log, is what the stream
	 * said at its settlement. */
	json_t *got =
	    answer(hjc_view_round(v, ROUND1, &out, &len, err, sizeof err), &out,
	           &len, err);
	assert_true(json_equal(got, data));
	json_decref(got);

	json_t *pl =
	    answer(hjc_view_player(v, PLAYER1, &out, &len, err, sizeof err),
	           &out, &len, err);
	assert_true(json_is_null(json_object_get(pl, "open")));
	assert_true(
	    json_equal(json_array_get(json_object_get(pl, "recent"), 0), data));
	json_decref(pl);

	json_t *po = answer(hjc_view_payouts(v, PLAYER1, NULL, NULL, &out, &len,
	                                     err, sizeof err),
	                    &out, &len, err);
	json_t *p0 = json_array_get(json_object_get(po, "payouts"), 0);
	assert_string_equal(str(p0, "amount"), "2000");
	assert_string_equal(str(p0, "id"), "return:" ROUND1_HEX ":0");
	assert_int_equal(json_array_size(json_object_get(po, "payouts")), 1);
	json_decref(po);
	/* By kind alone: the returns; no sweep in this ledger. */
	po = answer(hjc_view_payouts(v, NULL, NULL, "return", &out, &len, err,
	                             sizeof err),
	            &out, &len, err);
	assert_string_equal(
	    str(json_array_get(json_object_get(po, "payouts"), 0), "id"),
	    "return:" ROUND1_HEX ":0");
	json_decref(po);
	po = answer(hjc_view_payouts(v, NULL, NULL, "sweep", &out, &len, err,
	                             sizeof err),
	            &out, &len, err);
	assert_int_equal(json_array_size(json_object_get(po, "payouts")), 0);
	json_decref(po);

	/* A block's line is the log's, byte for byte. */
	FILE *lf = fopen(hj_fixture_log(f), "r");
	char line[8192];
	for (int i = 0; i < 4; i++)
		assert_non_null(fgets(line, sizeof line, lf));
	fclose(lf);
	assert_int_equal(hjc_view_block(v, "103", &out, &len, err, sizeof err),
	                 200);
	assert_int_equal(len, strlen(line) - 1);
	assert_memory_equal(out, line, len);
	free(out);
	json_t *bl =
	    answer(hjc_view_blocks(v, "2", &out, &len, err, sizeof err), &out,
	           &len, err);
	assert_int_equal(json_array_size(bl), 2);
	assert_int_equal(json_integer_value(
	                     json_object_get(json_array_get(bl, 1), "height")),
	                 105);
	json_decref(bl);

	/* Bad and unknown input. */
	assert_int_equal(hjc_view_round(v, "0x12", &out, &len, err, sizeof err),
	                 400);
	assert_int_equal(
	    hjc_view_round(v, &ROUND1[2], &out, &len, err, sizeof err),
	    400); /* EVM ids carry 0x */
	assert_int_equal(hjc_view_round(v,
	                                "0x01000000000000000000000000000000"
	                                "00000000000000000000000000000002",
	                                &out, &len, err, sizeof err),
	                 404);
	assert_int_equal(
	    hjc_view_player(v, "0x12", &out, &len, err, sizeof err), 400);
	assert_int_equal(hjc_view_block(v, "0103", &out, &len, err, sizeof err),
	                 400);
	assert_int_equal(hjc_view_block(v, "99", &out, &len, err, sizeof err),
	                 404);
	assert_int_equal(hjc_view_blocks(v, "101", &out, &len, err, sizeof err),
	                 400);
	assert_int_equal(hjc_view_payouts(v, "nobody", NULL, NULL, &out, &len,
	                                  err, sizeof err),
	                 400);
	assert_int_equal(hjc_view_payouts(v, NULL, NULL, "bonus", &out, &len,
	                                  err, sizeof err),
	                 400);
	assert_int_equal(
	    hjc_view_payouts(v, NULL, NULL, NULL, &out, &len, err, sizeof err),
	    400);

	json_t *tb = answer(hjc_view_table(v, &out, &len, err, sizeof err),
	                    &out, &len, err);
	assert_string_equal(str(tb, "family"), "evm");
	assert_string_equal(str(tb, "houseEdgePercent"), "2.436355");
	assert_int_equal(
	    json_integer_value(json_object_get(tb, "confirmations")), 12);
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(tb, "lastBlock"), "height")),
	                 105);
	json_decref(tb);

	json_decref(g.msgs);
	hjc_view_free(v);
	cleanup(f);
}

/* /v1/table's confirmations is the configuration's: a number, or the
 * word of a finality (finalized, safe); none when not known. */
static void test_table_confirmations(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	static const struct {
		unsigned conf;
		hj_finality fin;
		const char *want; /* JSON text, NULL: absent */
	} cases[] = {{12, HJ_FINALITY_DEPTH, "12"},
	             {0, HJ_FINALITY_FINALIZED, "\"finalized\""},
	             {0, HJ_FINALITY_SAFE, "\"safe\""},
	             {0, HJ_FINALITY_DEPTH, NULL}};
	char err[HJ_ERRLEN] = "", *out = NULL;
	size_t len = 0;

	play_round(f, 2);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hjc_view_opts o = {.db = hj_fixture_db(f),
		                   .log = hj_fixture_log(f),
		                   .confirmations = cases[i].conf,
		                   .finality = cases[i].fin,
		                   .history_blocks = 10,
		                   .recent_rounds = 20};
		hjc_view *v;
		assert_int_equal(hjc_view_new(&o, &v), 0);
		poll_ok(v, NULL);
		json_t *tb =
		    answer(hjc_view_table(v, &out, &len, err, sizeof err), &out,
		           &len, err);
		json_t *c = json_object_get(tb, "confirmations");
		/* cards = hash: the rule key, and no chains. */
		assert_string_equal(str(json_object_get(tb, "rules"), "cards"),
		                    "hash");
		assert_null(json_object_get(tb, "chains"));
		if (cases[i].want == NULL) {
			assert_null(c);
		} else {
			char *got = json_dumps(c, JSON_ENCODE_ANY);
			assert_non_null(got);
			assert_string_equal(got, cases[i].want);
			free(got);
		}
		json_decref(tb);
		hjc_view_free(v);
	}
	cleanup(f);
}

/* ?from= resends what was streamed, and refuses what is no longer kept. */
static void test_history(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	hjc_view *v = view(f, 3);
	struct got g = {.msgs = json_array()}, h = {.msgs = json_array()};
	char err[HJ_ERRLEN];

	play_round(f, 6);
	poll_ok(v, &g);
	assert_int_equal(hjc_view_history(v, 102, collect, &h, err, sizeof err),
	                 0);
	assert_int_equal(h.blocks, 3); /* 103, 104, 105 */
	/* The same messages as the stream's last three blocks. */
	size_t n = json_array_size(h.msgs), m = json_array_size(g.msgs);
	for (size_t i = 0; i < n; i++)
		assert_true(json_equal(json_array_get(h.msgs, i),
		                       json_array_get(g.msgs, m - n + i)));
	assert_int_equal(hjc_view_history(v, 101, collect, &h, err, sizeof err),
	                 -ERANGE);
	assert_non_null(strstr(err, "oldest kept is 103"));
	assert_int_equal(hjc_view_history(v, 105, collect, &h, err, sizeof err),
	                 0);
	assert_int_equal(h.blocks, 3);
	json_decref(g.msgs);
	json_decref(h.msgs);
	hjc_view_free(v);
	cleanup(f);
}

/* A server restarted mid-round sees what one that followed all along
 * sees; one started after a rotation too (the round's Bet then lies
 * before the log it reads). */
static void test_restart_and_rotation(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	hjc_view *a = view(f, 100);
	char *out, err[HJ_ERRLEN];
	size_t len;

	play_round(f, 4);
	poll_ok(a, NULL);
	assert_int_equal(hj_fixture_rotate(f, err, sizeof err), 0);
	hjc_view *b = view(f, 100);
	poll_ok(b, NULL);
	json_t *ra =
	    answer(hjc_view_round(a, ROUND1, &out, &len, err, sizeof err), &out,
	           &len, err);
	json_t *rb =
	    answer(hjc_view_round(b, ROUND1, &out, &len, err, sizeof err), &out,
	           &len, err);
	assert_true(json_equal(ra, rb));
	json_decref(ra);
	json_decref(rb);

	play_round(f, 2); /* into the new file */
	poll_ok(a, NULL);
	poll_ok(b, NULL);
	ra = answer(hjc_view_round(a, ROUND1, &out, &len, err, sizeof err),
	            &out, &len, err);
	rb = answer(hjc_view_round(b, ROUND1, &out, &len, err, sizeof err),
	            &out, &len, err);
	assert_true(json_is_true(json_object_get(ra, "roundEnded")));
	assert_true(json_equal(ra, rb));
	json_decref(ra);
	json_decref(rb);

	hjc_view_stats st;
	hjc_view_stats_get(a, &st);
	assert_int_equal(st.rotated, 1);
	assert_int_equal(st.height, 105);
	/* a still has the renamed file's blocks; b never read them. */
	assert_int_equal(hjc_view_block(a, "101", &out, &len, err, sizeof err),
	                 200);
	free(out);
	assert_int_equal(hjc_view_block(b, "101", &out, &len, err, sizeof err),
	                 404);
	assert_int_equal(hjc_view_block(b, "104", &out, &len, err, sizeof err),
	                 200);
	free(out);

	/* A second rotation: the first file is let go (its space is given
	 * back), the one before the last rotation is still read. */
	assert_int_equal(hj_fixture_rotate(f, err, sizeof err), 0);
	deal(f, 2, NULL, 0);
	poll_ok(a, NULL);
	assert_int_equal(hjc_view_block(a, "101", &out, &len, err, sizeof err),
	                 404);
	assert_int_equal(hjc_view_block(a, "105", &out, &len, err, sizeof err),
	                 200);
	free(out);
	assert_int_equal(hjc_view_block(a, "106", &out, &len, err, sizeof err),
	                 200);
	free(out);
	hjc_view_stats_get(a, &st);
	assert_int_equal(st.rotated, 2);
	hjc_view_free(a);
	hjc_view_free(b);
	cleanup(f);
}

/* Appends text to the log. */
static void append(hj_fixture *f, const char *text)
{
	int fd = open(hj_fixture_log(f), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static off_t log_size(hj_fixture *f)
{
	struct stat st;
	assert_int_equal(stat(hj_fixture_log(f), &st), 0);
	return st.st_size;
}

/* A line for block h with the given events ("" for none), its card as
 * the dealer writes it (docs/LOG.md). */
static void forged(char *buf, size_t n, uint64_t h, const char *events)
{
	uint8_t hash[32];
	char hex[65], code[4], card[200];
	hj_card c;
	hj_fixture_hash(5, 1, h * 31, hash);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
	assert_int_equal(hj_card_from_hash(hex, 64, &c, NULL, 0), 0);
	if (c.rank == 0)
		snprintf(card, sizeof card, "\"void\":true");
	else
		snprintf(
		    card, sizeof card,
		    "\"card\":{\"rank\":\"%s\",\"suit\":\"%s\",\"value\":%u,"
		    "\"code\":\"%s\",\"pos\":%u,\"rankDigit\":\"%c\","
		    "\"colorDigit\":\"%c\"}",
		    hj_rank_name(c.rank), hj_suit_name(c.suit),
		    hj_rank_value(c.rank),
		    hj_code_str(hj_code(c.rank, c.suit), code), c.pos,
		    c.rank_digit, c.color_digit);
	snprintf(buf, n,
	         "{\"v\":2,\"chain\":\"evm\",\"height\":%llu,\"hash\":\"0x%s\","
	         "\"parent\":\"0x%064d\",%s,\"events\":[%s]}\n",
	         (unsigned long long)h, hex, 0, card, events);
}

/* Lines the database never committed (a dealer that crashed) are read,
 * then cut by the dealer's restart: the view starts over from the
 * database and goes on with what the dealer writes next. */
static void test_truncation(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	hjc_view *v = view(f, 100);
	struct got g = {.msgs = json_array()};
	char line[1024], err[HJ_ERRLEN], *out;
	size_t len;

	play_round(f, 4); /* the player's turn: block 104 owes no card */
	poll_ok(v, &g);
	off_t committed = log_size(f);
	forged(line, sizeof line, 104, "");
	append(f, line);
	poll_ok(v, &g);
	assert_int_equal(g.last, 104);
	assert_int_equal(truncate(hj_fixture_log(f), committed), 0);
	poll_ok(v, &g);
	hjc_view_stats st;
	hjc_view_stats_get(v, &st);
	assert_int_equal(st.truncated, 1);
	assert_int_equal(st.height, 103);
	play_round(f, 2); /* the real 104 (a Stand) and 105 */
	poll_ok(v, &g);
	assert_int_equal(g.last, 105);
	assert_int_equal(hjc_view_block(v, "104", &out, &len, err, sizeof err),
	                 200);
	assert_false(len == strlen(line) - 1 && memcmp(out, line, len) == 0);
	free(out);
	json_decref(g.msgs);
	hjc_view_free(v);
	cleanup(f);
}

/* A line whose events the engine does not make stops the view, which
 * loads again once the log is right. */
static void test_divergence(void **state)
{
	(void)state;
	hj_fixture *f = fixture();
	hjc_view *v = view(f, 100);
	char line[1024], err[HJ_ERRLEN];

	play_round(f, 3);
	poll_ok(v, NULL);
	off_t committed = log_size(f);
	forged(
	    line, sizeof line, 103,
	    "{\"type\":\"draw\",\"round\":\"0x" /* a round nobody has */
	    "0200000000000000000000000000000000000000000000000000000000000002"
	    "\",\"handOwner\":\"Dealer\",\"card\":\"5D\"}");
	append(f, line);
	assert_int_equal(hjc_view_poll(v, NULL, NULL, err, sizeof err),
	                 -EPROTO);
	assert_non_null(strstr(err, "block 103"));
	hjc_view_stats st;
	hjc_view_stats_get(v, &st);
	assert_int_equal(st.live, 0);
	assert_int_equal(st.diverged, 1);
	assert_int_equal(truncate(hj_fixture_log(f), committed), 0);
	poll_ok(v, NULL);
	hjc_view_stats_get(v, &st);
	assert_int_equal(st.live, 1);
	assert_int_equal(st.height, 102);

	/* A line that is not a line at all. */
	append(f, "{\"v\":2,\"chain\":\"evm\",\"height\":103}\n");
	assert_int_equal(hjc_view_poll(v, NULL, NULL, err, sizeof err),
	                 -EBADMSG);
	assert_non_null(strstr(err, "no height, hash or events"));

	/* An event refused after the line's events were counted: the line
	 * is freed whole (LeakSanitizer sees it in the sanitizer build). */
	assert_int_equal(truncate(hj_fixture_log(f), committed), 0);
	forged(line, sizeof line, 103, "{\"type\":\"draw\",\"round\":\"0x3\"}");
	append(f, line);
	assert_int_equal(hjc_view_poll(v, NULL, NULL, err, sizeof err),
	                 -EBADMSG);
	assert_non_null(strstr(err, "event 0: no round id"));

	/* The view's words where it has its own, the card log reader's
	 * elsewhere (daemon/core/cardlog.h). */
	static const struct {
		const char *from, *to, *msg;
	} bad[] = {
	    {"{\"v\":2,", "{\"v\":3,", "\"v\" is not 1 or 2"},
	    {"\"chain\":\"evm\"", "\"chain\":\"bitcoin\"",
	     "\"chain\": \"bitcoin\", not \"evm\""},
	    {"\"parent\":\"0x", "\"parent\":\"0X", "\"parent\": \"0X000"},
	    {"\"events\":[]", "\"events\":{}", "no height, hash or events"},
	    {"\"events\":[]",
	     "\"events\":[{\"type\":\"deposit\",\"tx\":\"0x00\"}]",
	     "events[0]: \"tx\": \"0x00\": 64 hex digits expected, "
	     "found 2"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char l2[1100];
		forged(line, sizeof line, 103, "");
		const char *at = strstr(line, bad[i].from);
		assert_non_null(at);
		snprintf(l2, sizeof l2, "%.*s%s%s", (int)(at - line), line,
		         bad[i].to, at + strlen(bad[i].from));
		assert_int_equal(truncate(hj_fixture_log(f), committed), 0);
		append(f, l2);
		assert_int_equal(hjc_view_poll(v, NULL, NULL, err, sizeof err),
		                 -EBADMSG);
		if (!strstr(err, bad[i].msg))
			fail_msg("%s: %s", bad[i].msg, err);
	}
	/* A card, whole, that is not its hash's (forged() writes the 5 of
	 * Diamonds). */
	forged(line, sizeof line, 103, "");
	const char *c1 = strstr(line, "\"card\":{");
	assert_non_null(c1);
	char l2[1100];
	snprintf(l2, sizeof l2, "%.*s%s%s", (int)(c1 - line), line,
	         "\"card\":{\"rank\":\"A\",\"suit\":\"Spades\",\"value\":1,"
	         "\"code\":\"AS\",\"pos\":63,\"rankDigit\":\"1\","
	         "\"colorDigit\":\"3\"}",
	         strchr(c1, '}') + 1);
	assert_int_equal(truncate(hj_fixture_log(f), committed), 0);
	append(f, l2);
	assert_int_equal(hjc_view_poll(v, NULL, NULL, err, sizeof err),
	                 -EBADMSG);
	assert_non_null(strstr(err, "its card is not its hash's"));
	hjc_view_free(v);
	cleanup(f);
}

/* ---- HTTP and WebSocket, in memory ---- */

struct wire {
	char *p;
	size_t n, cap;
};

static void wire_out(void *arg, const char *p, size_t n)
{
	struct wire *w = arg;
	if (w->n + n + 1 > w->cap) {
		w->cap = 2 * (w->n + n + 1);
		w->p = realloc(w->p, w->cap);
		assert_non_null(w->p);
	}
	memcpy(w->p + w->n, p, n);
	w->n += n;
	w->p[w->n] = 0;
}

struct srv {
	uv_loop_t loop;
	hj_fixture *f;
	hjc_view *v;
	hjc_api *api;
	hj_server *s;
};

static void srv_up_aged(struct srv *x, const hj_server_limits *lim,
                        unsigned max_age_s)
{
	hj_server_handler h;
	hjc_api_opts ao = {.max_subscriptions = 2, .max_age_s = max_age_s};
	assert_int_equal(uv_loop_init(&x->loop), 0);
	x->f = fixture();
	x->v = view(x->f, 100);
	play_round(x->f, 6);
	poll_ok(x->v, NULL);
	assert_int_equal(hjc_api_new(x->v, &ao, &x->api), 0);
	hjc_api_handler(x->api, &h);
	assert_int_equal(hj_server_new(&x->loop, lim, &h, &x->s), 0);
	hjc_api_set_server(x->api, x->s);
}

static void srv_up(struct srv *x, const hj_server_limits *lim)
{
	srv_up_aged(x, lim, 3600);
}

static void srv_down(struct srv *x)
{
	hj_server_close(x->s, NULL, NULL);
	uv_run(&x->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&x->loop), 0);
	hjc_api_free(x->api);
	hjc_view_free(x->v);
	cleanup(x->f);
}

/* Sends req on a new connection; returns what came back (caller frees). */
static char *exchange(struct srv *x, const char *req, int *closed)
{
	struct wire w = {0};
	hj_conn *c;
	assert_int_equal(hj_server_fake(x->s, "192.0.2.1", wire_out, &w, &c),
	                 0);
	int r = hj_conn_feed(c, req, strlen(req));
	if (closed)
		*closed = r < 0;
	hj_conn_fake_free(c);
	return w.p ? w.p : strdup("");
}

static void expect_status(struct srv *x, const char *req, const char *status,
                          const char *body_part)
{
	char *got = exchange(x, req, NULL);
	if (strncmp(got, status, strlen(status)) != 0 ||
	    (body_part && !strstr(got, body_part)))
		fail_msg("%s -> %s", req, got);
	free(got);
}

/* The card log last written secs ago, as the view sees it at its next
 * poll. */
static void log_aged(struct srv *x, long secs)
{
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= secs;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, hj_fixture_log(x->f), t, 0), 0);
	poll_ok(x->v, NULL);
}

/* max_age 0 (`hashjack serve` without -c): the family's default once the
 * view knows the family, 120 s on EVM, not the Bitcoin family's 3600. */
static void test_healthz_family_max_age(void **state)
{
	(void)state;
	struct srv x;
	hj_server_limits lim;
	hj_server_limits_default(&lim);
	srv_up_aged(&x, &lim, 0);
	log_aged(&x, 60);
	expect_status(&x, "GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 200",
	              "\"ok\":true");
	log_aged(&x, 200);
	expect_status(&x, "GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 503",
	              "more than max_age (120 s)");
	srv_down(&x);
}

/*
 * HEAD, then req on the same connection: req's answer has status, and the
 * whole body its Content-Length announces, holding body_part.
 */
static void expect_after_head(struct srv *x, const char *req,
                              const char *status, const char *body_part)
{
	char both[2048];
	snprintf(both, sizeof both, "HEAD /v1/table HTTP/1.1\r\n\r\n%s", req);
	char *got = exchange(x, both, NULL);
	const char *second = strstr(got + 1, "HTTP/1.1 ");
	const char *cl = second ? strstr(second, "Content-Length: ") : NULL;
	const char *body = second ? strstr(second, "\r\n\r\n") : NULL;
	if (!second || strncmp(second, status, strlen(status)) != 0 || !cl ||
	    !body)
		fail_msg("HEAD then %s -> %s", req, got);
	body += 4;
	size_t len = strtoul(cl + strlen("Content-Length: "), NULL, 10);
	if (len == 0 || strlen(body) != len || !strstr(body, body_part))
		fail_msg("HEAD then %s: Content-Length %zu, body \"%s\"", req,
		         len, body);
	free(got);
}

static void test_http(void **state)
{
	(void)state;
	struct srv x;
	hj_server_limits lim;
	hj_server_limits_default(&lim);
	lim.max_url = 128;
	lim.max_header_bytes = 512;
	lim.max_headers = 8;
	srv_up(&x, &lim);

	expect_status(&x, "GET /v1/table HTTP/1.1\r\nHost: a\r\n\r\n",
	              "HTTP/1.1 200 OK\r\n",
	              "\"houseEdgePercent\":\"2.436355\"");
	expect_status(&x, "GET /v1/rounds/" ROUND1 " HTTP/1.1\r\n\r\n",
	              "HTTP/1.1 200 OK\r\n", "\"roundEnded\":true");
	expect_status(&x, "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\n",
	              "Content-Security-Policy");
	expect_status(&x, "GET /nope HTTP/1.1\r\n\r\n", "HTTP/1.1 404",
	              "{\"error\":\"no such path\"}");
	expect_status(&x, "GET /v1/blocks?last=2&x=1 HTTP/1.1\r\n\r\n",
	              "HTTP/1.1 400", "unknown parameter x");
	expect_status(&x, "GET /v1/blocks?last=%32 HTTP/1.1\r\n\r\n",
	              "HTTP/1.1 400", "no escapes");
	expect_status(&x, "GET /v1/blocks?last=-1 HTTP/1.1\r\n\r\n",
	              "HTTP/1.1 400", "last must be a number from 1 to 100\"");
	expect_status(&x, "GET /v1/blocks?last=2&last=3 HTTP/1.1\r\n\r\n",
	              "HTTP/1.1 400", "given twice");
	expect_status(&x,
	              "POST /v1/table HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
	              "HTTP/1.1 405", "only GET and HEAD");
	expect_status(&x,
	              "GET /v1/table HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
	              "HTTP/1.1 413", "may not have a body");
	expect_status(&x,
	              "GET /v1/table HTTP/1.1\r\nTransfer-Encoding: "
	              "chunked\r\n\r\n0\r\n\r\n",
	              "HTTP/1.1 413", NULL);
	char big[400];
	memset(big, 'a', sizeof big);
	big[sizeof big - 1] = 0;
	char req[1200];
	snprintf(req, sizeof req, "GET /%s HTTP/1.1\r\n\r\n", big);
	expect_status(&x, req, "HTTP/1.1 414", "too long");
	snprintf(req, sizeof req,
	         "GET / HTTP/1.1\r\nX-A: %s\r\nX-B: %s\r\n\r\n", big, big);
	expect_status(&x, req, "HTTP/1.1 431", "too large");
	expect_status(&x,
	              "GET / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\n"
	              "E: 1\r\nF: 1\r\nG: 1\r\nH: 1\r\nI: 1\r\n\r\n",
	              "HTTP/1.1 431", "too many headers");
	expect_status(&x, "GARBAGE\r\n\r\n", "HTTP/1.1 400", "malformed");
	expect_status(&x, "GET http://a/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400",
	              "must be a path");
	expect_status(&x, "GET /v1/stream HTTP/1.1\r\n\r\n", "HTTP/1.1 426",
	              NULL);

	/* HEAD: the headers alone. */
	char *got = exchange(&x, "HEAD /v1/table HTTP/1.1\r\n\r\n", NULL);
	assert_non_null(strstr(got, "Content-Length: "));
	assert_true(strcmp(got + strlen(got) - 4, "\r\n\r\n") == 0);
	free(got);

	/* After a HEAD, an error answer to the next request on the connection
	 * carries its body, whichever check refused it. */
	expect_after_head(&x,
	                  "POST /v1/table HTTP/1.1\r\nContent-Length: 2\r\n"
	                  "\r\n{}",
	                  "HTTP/1.1 405", "only GET and HEAD");
	expect_after_head(&x,
	                  "GET /v1/table HTTP/1.1\r\nContent-Length: 2\r\n"
	                  "\r\n{}",
	                  "HTTP/1.1 413", "may not have a body");
	snprintf(req, sizeof req, "GET /%s HTTP/1.1\r\n\r\n", big);
	expect_after_head(&x, req, "HTTP/1.1 414", "too long");
	snprintf(req, sizeof req,
	         "GET / HTTP/1.1\r\nX-A: %s\r\nX-B: %s\r\n\r\n", big, big);
	expect_after_head(&x, req, "HTTP/1.1 431", "too large");
	expect_after_head(&x, "GARBAGE\r\n\r\n", "HTTP/1.1 400", "malformed");
	expect_after_head(&x, "GET http://a/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400",
	                  "must be a path");
	expect_after_head(&x, "GET /v1/blocks?last=0 HTTP/1.1\r\n\r\n",
	                  "HTTP/1.1 400", "last");
	/* An error answer to a HEAD itself is its head alone. */
	snprintf(req, sizeof req, "HEAD /%s HTTP/1.1\r\n\r\n", big);
	got = exchange(&x, req, NULL);
	assert_int_equal(strncmp(got, "HTTP/1.1 414", 12), 0);
	assert_true(strcmp(got + strlen(got) - 4, "\r\n\r\n") == 0);
	free(got);

	/* Pipelined requests get their answers in order; Connection: close
	 * ends the connection after its answer. */
	int closed = 0;
	got = exchange(&x,
	               "GET /healthz HTTP/1.1\r\n\r\nGET /v1/blocks/104 "
	               "HTTP/1.1\r\nConnection: close\r\n\r\nGET /v1/table "
	               "HTTP/1.1\r\n\r\n",
	               &closed);
	char *second = strstr(got + 1, "HTTP/1.1 200");
	assert_non_null(second);
	assert_non_null(strstr(second, "\"height\":104"));
	assert_null(strstr(second + 1, "HTTP/1.1"));
	assert_true(closed);
	free(got);

	/* A request split anywhere is the same request. */
	struct wire w = {0};
	hj_conn *c;
	assert_int_equal(hj_server_fake(x.s, "192.0.2.1", wire_out, &w, &c), 0);
	const char *parts[] = {"GE",  "T /v1/blo",     "cks/10", "3 HTTP/1.",
	                       "1\r", "\nHost: x\r\n", "\r",     "\n"};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		assert_int_equal(hj_conn_feed(c, parts[i], strlen(parts[i])),
		                 0);
	assert_non_null(strstr(w.p, "\"height\":103"));
	hj_conn_fake_free(c);
	free(w.p);

	/* Metrics: Prometheus text, counting what happened. */
	got = exchange(&x, "GET /metrics HTTP/1.1\r\n\r\n", NULL);
	assert_non_null(strstr(got, "\r\n\r\n# HELP hashjack_serve_up "));
	assert_non_null(strstr(got, "\nhashjack_serve_block_height 105\n"));
	assert_non_null(
	    strstr(got, "\nhashjack_serve_responses_total{code=\"404\"} 1\n"));
	free(got);
	srv_down(&x);
}

/* A client frame: FIN, opcode, masked as clients must. */
static size_t frame(char *out, int op, const char *p, size_t n)
{
	static const uint8_t mask[4] = {0x11, 0x22, 0x33, 0x44};
	size_t k = 0;
	out[k++] = (char)(0x80 | op);
	if (n < 126) {
		out[k++] = (char)(0x80 | n);
	} else {
		out[k++] = (char)(0x80 | 126);
		out[k++] = (char)(n >> 8);
		out[k++] = (char)n;
	}
	memcpy(out + k, mask, 4);
	k += 4;
	for (size_t i = 0; i < n; i++)
		out[k + i] = (char)(p[i] ^ mask[i % 4]);
	return k + n;
}

/* The server's frames after the 101 answer: each text payload, NUL
 * separated, into texts; the last close code into *close_code. */
static size_t frames(const struct wire *w, char texts[][2048], size_t max,
                     int *close_code)
{
	const char *p = strstr(w->p, "\r\n\r\n");
	size_t n = 0;
	assert_non_null(p);
	p += 4;
	const char *end = w->p + w->n;
	*close_code = 0;
	while (p + 2 <= end) {
		int op = p[0] & 0x0f;
		size_t len = (uint8_t)p[1] & 0x7f, k = 2;
		assert_int_equal((uint8_t)p[1] & 0x80, 0); /* never masked */
		if (len == 126) {
			len = (size_t)((uint8_t)p[2] << 8 | (uint8_t)p[3]);
			k = 4;
		}
		assert_true(p + k + len <= end);
		if (op == 1 && n < max) {
			assert_true(len < 2048);
			memcpy(texts[n], p + k, len);
			texts[n++][len] = 0;
		} else if (op == 8 && len >= 2) {
			*close_code = (uint8_t)p[k] << 8 | (uint8_t)p[k + 1];
		}
		p += k + len;
	}
	return n;
}

#define UPGRADE(target)                                                        \
	"GET " target " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"         \
	"Connection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n"     \
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

static void test_websocket(void **state)
{
	(void)state;
	struct srv x;
	hj_server_limits lim;
	char texts[16][2048], buf[4096];
	int code;
	hj_server_limits_default(&lim);
	lim.max_ws_msg = 200;
	srv_up(&x, &lim);

	/* RFC 6455's example key, and the stream from block 103 on. */
	struct wire w = {0};
	hj_conn *c;
	assert_int_equal(hj_server_fake(x.s, "192.0.2.1", wire_out, &w, &c), 0);
	assert_int_equal(hj_conn_feed(c, UPGRADE("/v1/stream?from=103"),
	                              strlen(UPGRADE("/v1/stream?from=103"))),
	                 0);
	assert_non_null(strstr(w.p, "HTTP/1.1 101 Switching Protocols\r\n"));
	assert_non_null(strstr(
	    w.p, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
	size_t n = frames(&w, texts, 16, &code);
	assert_int_equal(n, 4); /* 104's RoundUpdate and BlockUpdate, 105's */
	assert_non_null(strstr(texts[0], "\"eventType\":\"RoundUpdate\","
	                                 "\"eventId\":\"104:"));
	assert_non_null(strstr(texts[1], "\"eventType\":\"BlockUpdate\","
	                                 "\"eventId\":\"104\""));
	assert_non_null(strstr(texts[2], "\"roundEnded\":true"));
	assert_non_null(strstr(texts[3], "\"eventId\":\"105\""));

	/* Subscriptions: to a round, a bad id, too many. */
	size_t k = frame(buf, 1, "{\"subscribe\":{\"round\":\"" ROUND1 "\"}}",
	                 strlen("{\"subscribe\":{\"round\":\"" ROUND1 "\"}}"));
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	k = frame(buf, 1, "{\"subscribe\":{\"round\":\"0x12\"}}",
	          strlen("{\"subscribe\":{\"round\":\"0x12\"}}"));
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	k = frame(buf, 1, "{\"subscribe\":{\"player\":\"" PLAYER1 "\"}}",
	          strlen("{\"subscribe\":{\"player\":\"" PLAYER1 "\"}}"));
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	k = frame(buf, 1,
	          "{\"subscribe\":{\"player\":\"0x00000000000000000000000000"
	          "00000000000002\"}}",
	          strlen("{\"subscribe\":{\"player\":\"0x0000000000000000000000"
	                 "000000000000000002\"}}"));
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	k = frame(buf, 1, "[1]", 3);
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	k = frame(buf, 1, "{\"unsubscribe\":\"all\"}", 21);
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	n = frames(&w, texts, 16, &code);
	assert_int_equal(n, 10);
	/* Without round or player the stream began with every round:
	 * subscribing to one adds nothing until "all" is unsubscribed. */
	assert_non_null(strstr(texts[4], "\"eventType\":\"Subscribed\","
	                                 "\"all\":true,\"rounds\":[\"" ROUND1));
	assert_non_null(strstr(texts[5], "\"eventType\":\"Error\""));
	assert_non_null(strstr(texts[6], "\"players\":[\"" PLAYER1 "\"]"));
	assert_non_null(strstr(texts[7], "at most 2 rounds and players"));
	assert_non_null(strstr(texts[8], "expected {"));
	assert_non_null(strstr(texts[9], "\"all\":false,\"rounds\":[\"" ROUND1
	                                 "\"],\"players\":[\"" PLAYER1 "\"]}"));
	assert_non_null(strstr(texts[9], "\"all\":false,\"rounds\":[\"" ROUND1
	                                 "\"],\"players\":[\"" PLAYER1 "\"]}"));

	/* A ping is answered; a binary message closes with 1003. */
	k = frame(buf, 9, "hi", 2);
	size_t before = w.n;
	assert_int_equal(hj_conn_feed(c, buf, k), 0);
	assert_int_equal((uint8_t)w.p[before], 0x8a); /* pong */
	k = frame(buf, 2, "\x01", 1);
	hj_conn_feed(c, buf, k);
	frames(&w, texts, 16, &code);
	assert_int_equal(code, 1003);
	hj_conn_fake_free(c);
	free(w.p);

	/* Too long a message: 1009. */
	memset(&w, 0, sizeof w);
	assert_int_equal(hj_server_fake(x.s, "192.0.2.1", wire_out, &w, &c), 0);
	hj_conn_feed(c, UPGRADE("/v1/stream"), strlen(UPGRADE("/v1/stream")));
	char longmsg[300];
	memset(longmsg, ' ', sizeof longmsg);
	k = frame(buf, 1, longmsg, sizeof longmsg);
	hj_conn_feed(c, buf, k);
	frames(&w, texts, 16, &code);
	assert_int_equal(code, 1009);
	hj_conn_fake_free(c);
	free(w.p);

	/* Refused before the upgrade: a from that is not a height, whichever
	 * character is wrong, is told what it must be; an unknown parameter,
	 * a bad id, a missing key, another path. */
	static const char *const not_heights[] = {"x",   "-5",  "01",
	                                          "1.5", "%31", "+3"};
	for (size_t i = 0; i < sizeof not_heights / sizeof *not_heights; i++) {
		char target[64];
		snprintf(target, sizeof target, "/v1/stream?from=%s",
		         not_heights[i]);
		snprintf(buf, sizeof buf, UPGRADE("%s"), target);
		expect_status(&x, buf, "HTTP/1.1 400",
		              "\"from must be a block height, a whole number "
		              "in decimal digits (no sign, no leading zero)");
	}
	expect_status(&x, UPGRADE("/v1/stream?from=%31"), "HTTP/1.1 400",
	              "(no escapes: %XX is not decoded)");
	expect_status(&x, UPGRADE("/v1/stream?seat=1"), "HTTP/1.1 400",
	              "unknown parameter seat");
	expect_status(&x, UPGRADE("/v1/stream?round=0x1"), "HTTP/1.1 400",
	              "not a round id");
	expect_status(&x, UPGRADE("/v1/table"), "HTTP/1.1 404",
	              "no WebSocket at this path");
	expect_status(
	    &x,
	    "GET /v1/stream HTTP/1.1\r\nUpgrade: websocket\r\n"
	    "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
	    "HTTP/1.1 400", "Sec-WebSocket-Key");

	/* A subscriber to one round gets every block as it comes, and that
	 * round's updates only. */
	memset(&w, 0, sizeof w);
	assert_int_equal(hj_server_fake(x.s, "192.0.2.1", wire_out, &w, &c), 0);
	hj_conn_feed(c, UPGRADE("/v1/stream?round=" ROUND1),
	             strlen(UPGRADE("/v1/stream?round=" ROUND1)));
	hj_action bet = hj_fixture_bet(2, 3, 500, 0, 0);
	deal(x.f, 4, &bet, 1);
	char err[HJ_ERRLEN];
	assert_int_equal(
	    hjc_view_poll(x.v, hjc_api_block, x.api, err, sizeof err), 0);
	n = frames(&w, texts, 16, &code);
	assert_int_equal(n, 1); /* the block; not the other player's round */
	assert_non_null(strstr(texts[0], "\"eventId\":\"106\""));
	hj_conn_fake_free(c);
	free(w.p);
	srv_down(&x);
}

/* ---- committed cards (docs/PROTOCOL.md section 15) ---- */

/* Two chains: the protocol's vector chain (s_8 = SHA-256 of its text,
 * from block 101, L = 8) and a second one of 2 seeds from block 110,
 * s_2 = SHA-256 of "chain b". */
static void chain_seed(const char *text, uint32_t len, uint32_t i,
                       uint8_t out[HJ_SEED_LEN])
{
	hj_sha256(text, strlen(text), out);
	for (uint32_t k = len; k > i; k--)
		hj_seed_prev(out, out);
}

#define VECTOR_TEXT "hashjack committed cards test vector"

static int two_chains(void *ctx, const hj_commit *c, uint32_t i,
                      uint64_t height, uint8_t out[HJ_SEED_LEN], char *err,
                      size_t errlen)
{
	(void)ctx;
	(void)height;
	(void)err;
	(void)errlen;
	if (c->start == 110)
		chain_seed("chain b", 2, i, out);
	else
		chain_seed(VECTOR_TEXT, 8, i, out);
	return 0;
}

static json_t *table_of(hjc_view *v)
{
	char err[HJ_ERRLEN] = "", *out = NULL;
	size_t len = 0;
	return answer(hjc_view_table(v, &out, &len, err, sizeof err), &out,
	              &len, err);
}

static char *chains_text(hjc_view *v)
{
	json_t *tb = table_of(v);
	char *s =
	    json_dumps(json_object_get(tb, "chains"),
	               JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(tb);
	assert_non_null(s);
	return s;
}

#define S1 "dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499b42302e9e3b501"
#define S2 "79c45bcea86076fe686de0ecd5c3a2807cf3c7ceb6cb87c9c22fb393385eda80"
#define S0 "14941c1005385b6a00a7f729c4c0f68dacfb27205e9e68f3e86cb43fb85fd770"
#define CHAIN_B_S0                                                             \
	"4c1bea9371e29e2a72b31df201e5f594d654bf9ba0e3d0159ee98a202f45d33d"
#define CHAIN_B_S1                                                             \
	"23b46e87862284a1256c48fe7bd99e855b23a5ce373e23c845e91d438bf6fc05"
#define GENESIS                                                                \
	"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
#define HASH2 "0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e"
#define COMMIT_TX(n)                                                           \
	"0xde000000000000000000000000000000000000000000000000000000000000" n

/*
 * A committed dealer: the Commit at 100 (from 101, 8 seeds), the
 * protocol's two vectors at 101 and 102 (4C and AD), a second Commit at
 * 102 scheduled from 110.  /v1/table shows both chains (the seeds left of
 * the one in force), again after a restart (from the database), and
 * drops the first once the second is in force; each block's line and
 * BlockUpdate carry its seed.
 */
static void test_committed(void **state)
{
	(void)state;
	hj_rules r = rules();
	r.cards = HJ_CARDS_COMMITTED;
	hj_seed_source seeds = {two_chains, NULL};
	char err[HJ_ERRLEN] = "", *out = NULL, *txt;
	size_t len = 0;
	uint8_t s0[HJ_SEED_LEN], b0[HJ_SEED_LEN], h[32];
	struct got g = {.msgs = json_array()};

	snprintf(dir, sizeof dir, "/tmp/hj-serve-XXXXXX");
	assert_non_null(mkdtemp(dir));
	hj_fixture *f = hj_fixture_new(dir, HJ_EVM, &r, 100, err, sizeof err);
	if (!f)
		fail_msg("%s", err);
	hj_fixture_seeds(f, &seeds);
	chain_seed(VECTOR_TEXT, 8, 0, s0);
	chain_seed("chain b", 2, 0, b0);
	hjc_view *v = view(f, 100);

	hj_action c1 = hj_fixture_commit(1, 101, 8, s0);
	deal(f, 5, &c1, 1);
	assert_int_equal(
	    hj_hex_decode_exact(GENESIS, 64, HJ_HEX_BARE, h, 32, NULL, 0), 0);
	assert_int_equal(hj_fixture_block(f, h, NULL, 0, err, sizeof err), 0);
	hj_action c2 = hj_fixture_commit(2, 110, 2, b0);
	assert_int_equal(
	    hj_hex_decode_exact(HASH2, 64, HJ_HEX_BARE, h, 32, NULL, 0), 0);
	assert_int_equal(hj_fixture_block(f, h, &c2, 1, err, sizeof err), 0);
	poll_ok(v, &g);
	assert_int_equal(g.last, 102);

	json_t *tb = table_of(v);
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(tb, "rules"), "cards")),
	                    "committed");
	json_decref(tb);
	const char *wanted =
	    "[{\"start\":101,\"length\":8,\"commitment\":\"" S0
	    "\",\"tx\":\"" COMMIT_TX(
	        "01") "\",\"height\":100,"
	              "\"inForce\":true,\"seedsLeft\":6},"
	              "{\"start\":110,\"length\":2,\"commitment\":\"" CHAIN_B_S0
	              "\",\"tx\":\"" COMMIT_TX("02") "\",\"height\":102,"
	                                             "\"inForce\":false}]";
	/* CHAIN_B_S0 is SHA-256 twice over SHA-256("chain b") (Python's
	 * hashlib). */
	assert_int_equal(
	    hj_hex_decode_exact(CHAIN_B_S0, 64, HJ_HEX_BARE, h, 32, NULL, 0),
	    0);
	assert_memory_equal(h, b0, 32);
	txt = chains_text(v);
	assert_string_equal(txt, wanted);
	free(txt);

	/* Each block's BlockUpdate is its line: 100 void without a seed,
	 * 101 and 102 the vectors' cards with theirs. */
	size_t nb = 0;
	for (size_t i = 0; i < json_array_size(g.msgs); i++) {
		json_t *m = json_array_get(g.msgs, i);
		json_t *d = json_object_get(m, "data");
		uint64_t hh =
		    (uint64_t)json_integer_value(json_object_get(m, "height"));
		const char *seed =
		    json_string_value(json_object_get(d, "seed"));
		json_t *card = json_object_get(d, "card");
		nb++;
		if (hh == 100) {
			assert_null(seed);
			assert_null(card);
		} else {
			assert_string_equal(seed, hh == 101 ? S1 : S2);
			assert_string_equal(str(card, "code"),
			                    hh == 101 ? "4C" : "AD");
		}
	}
	assert_int_equal(nb, 3);
	assert_int_equal(hjc_view_block(v, "101", &out, &len, err, sizeof err),
	                 200);
	assert_non_null(strstr(out, ",\"seed\":\"" S1 "\",\"card\":{"));
	free(out);

	/* A restart: the chains come from the database. */
	hjc_view_free(v);
	v = view(f, 100);
	poll_ok(v, NULL);
	txt = chains_text(v);
	assert_string_equal(txt, wanted);
	free(txt);

	/* To 109: the first chain ran out at 108 (109 void, no seed), and
	 * is still the one in force at 109; at 110 the second replaces it. */
	while (hj_fixture_next(f) <= 108)
		deal(f, 5, NULL, 0);
	poll_ok(v, NULL);
	tb = table_of(v);
	json_t *ch = json_object_get(tb, "chains");
	assert_int_equal(json_array_size(ch), 2);
	assert_int_equal(json_integer_value(json_object_get(
	                     json_array_get(ch, 0), "seedsLeft")),
	                 0);
	json_decref(tb);
	deal(f, 5, NULL, 0); /* 109 */
	assert_int_equal(hjc_view_block(v, "109", &out, &len, err, sizeof err),
	                 404); /* not read yet */
	poll_ok(v, NULL);
	assert_int_equal(hjc_view_block(v, "109", &out, &len, err, sizeof err),
	                 200);
	assert_null(strstr(out, "\"seed\""));
	assert_non_null(strstr(out, "\"void\":true"));
	free(out);
	txt = chains_text(v);
	assert_string_equal(
	    txt, "[{\"start\":110,\"length\":2,\"commitment\":\"" CHAIN_B_S0
	         "\",\"tx\":\"" COMMIT_TX(
	             "02") "\",\"height\":102,"
	                   "\"inForce\":true,\"seedsLeft\":2}]");
	free(txt);
	deal(f, 5, NULL, 0); /* 110: s_1 of the second chain */
	poll_ok(v, NULL);
	assert_int_equal(hjc_view_block(v, "110", &out, &len, err, sizeof err),
	                 200);
	assert_non_null(strstr(out, "\"seed\":\"" CHAIN_B_S1 "\""));
	free(out);

	hjc_view_free(v);
	json_decref(g.msgs);
	cleanup(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_follow_and_settle),
	    cmocka_unit_test(test_table_confirmations),
	    cmocka_unit_test(test_history),
	    cmocka_unit_test(test_restart_and_rotation),
	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_divergence),
	    cmocka_unit_test(test_http),
	    cmocka_unit_test(test_healthz_family_max_age),
	    cmocka_unit_test(test_websocket),
	    cmocka_unit_test(test_committed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
