/* The round API's paths, stream and metrics (api.h, docs/API.md). */
#include "api.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "config.h"
#include "prom.h"
#include "say.h"
#include "www.h"

/* One WebSocket's subscriptions. */
struct sub {
	hj_conn *c;
	struct sub *prev, *next;
	int all;       /* every RoundUpdate */
	uint64_t from; /* ?from=: resent once the socket is open */
	int has_from;
	unsigned nround, nplayer;
	hj_id *round, *player; /* max_subscriptions each */
};

/* Statuses counted for /metrics. */
static const int codes[] = {200, 400, 404, 426, 503};
#define NCODES (sizeof codes / sizeof codes[0])

struct hjc_api {
	hjc_view *v;
	hjc_api_opts o;
	hj_server *srv;
	struct sub *subs;
	size_t nsubs;
	char down[HJ_ERRLEN]; /* "" while the view is up to date */
	uint64_t responses[NCODES];
	uint64_t ws_refused, blocks_sent;
};

int hjc_api_new(hjc_view *v, const hjc_api_opts *o, hjc_api **out)
{
	hjc_api *a = calloc(1, sizeof *a);

	*out = a;
	if (!a)
		return -ENOMEM;
	a->v = v;
	a->o = *o;
	if (!a->o.max_subscriptions)
		a->o.max_subscriptions = 1;
	return 0;
}

void hjc_api_free(hjc_api *a)
{
	free(a); /* the server closed every connection, and so every sub */
}

void hjc_api_set_server(hjc_api *a, hj_server *s)
{
	a->srv = s;
}

void hjc_api_set_down(hjc_api *a, const char *why)
{
	snprintf(a->down, sizeof a->down, "%s", why ? why : "");
}

/* ---- answers ---- */

static void reply(hjc_api *a, hj_conn *c, int status, const char *type,
                  const char *body, size_t len)
{
	for (size_t i = 0; i < NCODES; i++)
		if (codes[i] == status)
			a->responses[i]++;
	hj_conn_respond(c, status, type, body, len);
}

static void reply_json(hjc_api *a, hj_conn *c, int status, char *body,
                       size_t len)
{
	reply(a, c, status, "application/json", body, len);
	free(body);
}

static void reply_error(hjc_api *a, hj_conn *c, int status, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static void reply_error(hjc_api *a, hj_conn *c, int status, const char *fmt,
                        ...)
{
	char why[HJ_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	hj_vsay(why, sizeof why, fmt, ap);
	va_end(ap);
	json_t *o = json_pack("{s:s}", "error", why);
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(o);
	if (!s) {
		reply(a, c, 503, "application/json",
		      "{\"error\":\"out of memory\"}", 25);
		return;
	}
	reply_json(a, c, status, s, strlen(s));
}

/* A view query's result. */
static void answer(hjc_api *a, hj_conn *c, int status, char *out, size_t len,
                   const char *err)
{
	if (status == 200)
		reply_json(a, c, 200, out, len);
	else
		reply_error(a, c, status, "%s", err);
}

/* ---- query strings ---- */

#define MAXQ 32

struct qv {
	const char *key[MAXQ];
	char val[MAXQ][128];
	size_t n;
};

/* What the value of a parameter must be, for the message that refuses
 * one: the same words whichever character is wrong. */
#define FROM_FORM                                                              \
	"a block height, a whole number in decimal digits (no sign, no "       \
	"leading zero)"
static const char *value_form(const char *key)
{
	static const struct {
		const char *key, *form;
	} forms[] = {
	    {"from", FROM_FORM},
	    {"last", "a number from 1 to 100"},
	    {"round", "a round id (the Bet's transaction id, in hex)"},
	    {"player", "a player (an address or a key)"},
	    {"recipient", "a recipient (an address or a key)"},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(forms[i].key, key) == 0)
			return forms[i].form;
	return "letters and digits";
}

/*
 * Splits "k=v&k=v"; every key must be in allowed, every value letters
 * and digits only (ids, addresses and heights need no escaping): one with
 * anything else is refused with what the value must be.  Returns 0 or -1
 * with why.
 */
static int parse_query(const char *q, const char *const *allowed,
                       struct qv *out, char *why, size_t n)
{
	out->n = 0;
	while (*q) {
		size_t len = strcspn(q, "&");
		const char *eq = memchr(q, '=', len);
		size_t kl = eq ? (size_t)(eq - q) : len;
		const char *key = NULL;
		if (len == 0) {
			q++;
			continue;
		}
		for (size_t i = 0; allowed[i]; i++)
			if (strlen(allowed[i]) == kl &&
			    memcmp(allowed[i], q, kl) == 0)
				key = allowed[i];
		if (!key) {
			hj_say(why, n, "unknown parameter %.*s",
			       (int)(kl < 32 ? kl : 32), q);
			for (char *p = why; *p; p++)
				if (*p < ' ' || *p > '~' || *p == '"' ||
				    *p == '\\')
					*p = '?';
			return -1;
		}
		if (!eq || out->n == MAXQ) {
			hj_say(why, n, "%s: %s", key,
			       eq ? "too many parameters" : "no value");
			return -1;
		}
		size_t vl = len - kl - 1;
		if (vl == 0 || vl >= sizeof out->val[0]) {
			hj_say(why, n, "%s: %s", key,
			       vl ? "value too long" : "empty value");
			return -1;
		}
		for (size_t i = 0; i < vl; i++) {
			char ch = eq[1 + i];
			if (!((ch >= '0' && ch <= '9') ||
			      (ch >= 'a' && ch <= 'z') ||
			      (ch >= 'A' && ch <= 'Z'))) {
				hj_say(why, n, "%s must be %s%s", key,
				       value_form(key),
				       memchr(eq + 1, '%', vl)
				           ? " (no escapes: %XX is not "
				             "decoded)"
				           : "");
				return -1;
			}
		}
		out->key[out->n] = key;
		memcpy(out->val[out->n], eq + 1, vl);
		out->val[out->n][vl] = 0;
		out->n++;
		q += len;
	}
	return 0;
}

/* The value of key, NULL when absent; -1 in *dup when given twice. */
static const char *qget(const struct qv *q, const char *key, int *dup)
{
	const char *v = NULL;
	for (size_t i = 0; i < q->n; i++)
		if (strcmp(q->key[i], key) == 0) {
			if (v)
				*dup = 1;
			v = q->val[i];
		}
	return v;
}

/* ---- /healthz and /metrics ---- */

static double log_age(const hjc_view_stats *st)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double age = (double)(now.tv_sec - st->log_mtime.tv_sec) +
	             (double)(now.tv_nsec - st->log_mtime.tv_nsec) / 1e9;
	return age < 0 ? 0 : age;
}

/* {"ok":true|false, ["error":why,] ["height":H, "ageSeconds":S,]
 * "maxAgeSeconds":M}: M lets a client (the page) tell between two
 * answers when the last block grows too old. */
static void answer_healthz(hjc_api *a, hj_conn *c)
{
	hjc_view_stats st;
	char why[HJ_ERRLEN] = "";
	hjc_view_stats_get(a->v, &st);
	double age = log_age(&st);
	unsigned max_age =
	    a->o.max_age_s ? a->o.max_age_s
	                   : hj_config_serve_max_age(
	                         st.family && strcmp(st.family, "evm") == 0, 0);
	if (!st.live)
		hj_say(why, sizeof why, "the dealer's state is not loaded: %s",
		       a->down[0] ? a->down : "starting");
	else if (a->down[0])
		hj_say(why, sizeof why, "%s", a->down);
	else if (age > max_age)
		snprintf(why, sizeof why,
		         "the dealer's last block (%llu) was written %.0f s "
		         "ago, more than max_age (%u s)",
		         (unsigned long long)st.height, age, max_age);
	json_t *o = json_object();
	json_object_set_new(o, "ok", json_boolean(!why[0]));
	if (why[0])
		json_object_set_new(o, "error", json_string(why));
	if (st.live) {
		json_object_set_new(o, "height",
		                    json_integer((json_int_t)st.height));
		json_object_set_new(
		    o, "ageSeconds",
		    json_real((double)(int64_t)(age * 10) / 10));
	}
	json_object_set_new(o, "maxAgeSeconds",
	                    json_integer((json_int_t)max_age));
	char *s =
	    json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                      JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
	json_decref(o);
	if (!s) {
		reply_error(a, c, 503, "out of memory");
		return;
	}
	reply_json(a, c, why[0] ? 503 : 200, s, strlen(s));
}

static void answer_metrics(hjc_api *a, hj_conn *c)
{
	hj_prom t = {0};
	char *page;
	size_t len;
	hjc_view_stats st;
	const hj_server_counters *hs = hj_server_stats(a->srv);
	hjc_view_stats_get(a->v, &st);
	hj_prom_gauge(&t, "hashjack_serve_up",
	              "1 while the dealer's state is loaded and followed",
	              st.live);
	hj_prom_gauge(&t, "hashjack_serve_block_height",
	              "the last block read from the card log",
	              (double)st.height);
	hj_prom_gauge(&t, "hashjack_serve_log_age_seconds",
	              "seconds since the card log last changed", log_age(&st));
	hj_prom_gauge(&t, "hashjack_serve_open_rounds", "open rounds",
	              (double)st.open_rounds);
	hj_prom_gauge(&t, "hashjack_serve_rounds_known",
	              "rounds in the card log this server reads",
	              (double)st.rounds_known);
	hj_prom_gauge(&t, "hashjack_serve_history_blocks",
	              "blocks whose updates ?from= can resend",
	              (double)st.history);
	hj_prom_counter(&t, "hashjack_serve_log_lines_total",
	                "card log lines read", st.lines);
	hj_prom_counter(&t, "hashjack_serve_loads_total",
	                "times the dealer's state was loaded from its database",
	                st.loads);
	hj_prom_counter(
	    &t, "hashjack_serve_diverged_total",
	    "card log blocks whose events the engine did not reproduce",
	    st.diverged);
	hj_prom_counter(&t, "hashjack_serve_log_truncated_total",
	                "times the card log was cut (a dealer restart)",
	                st.truncated);
	hj_prom_counter(&t, "hashjack_serve_log_rotated_total",
	                "times the card log was renamed and reopened",
	                st.rotated);
	hj_prom_gauge(&t, "hashjack_serve_connections", "open connections",
	              hs->open);
	hj_prom_gauge(&t, "hashjack_serve_websockets",
	              "open WebSocket subscribers", hs->websockets);
	hj_prom_counter(&t, "hashjack_serve_connections_accepted_total",
	                "connections accepted", hs->accepted);
	const char *total[] = {"limit", "total"},
	           *per_ip[] = {"limit", "per_ip"};
	hj_prom_family(&t, "hashjack_serve_connections_refused_total",
	               "counter", "connections refused over a limit");
	hj_prom_sample_u64(&t, "hashjack_serve_connections_refused_total",
	                   total, 1, hs->refused_total);
	hj_prom_sample_u64(&t, "hashjack_serve_connections_refused_total",
	                   per_ip, 1, hs->refused_per_ip);
	hj_prom_counter(&t, "hashjack_serve_requests_total",
	                "complete requests", hs->requests);
	hj_prom_family(&t, "hashjack_serve_responses_total", "counter",
	               "responses by status");
	for (size_t i = 0; i < NCODES; i++) {
		char code[8];
		const char *l[] = {"code", code};
		snprintf(code, sizeof code, "%d", codes[i]);
		hj_prom_sample_u64(&t, "hashjack_serve_responses_total", l, 1,
		                   a->responses[i]);
	}
	hj_prom_counter(
	    &t, "hashjack_serve_bad_requests_total",
	    "requests refused by the parser or a limit (4xx, closed)",
	    hs->bad_requests);
	hj_prom_counter(&t, "hashjack_serve_timeouts_total",
	                "connections closed by a request, idle or ping timeout",
	                hs->timeouts);
	hj_prom_counter(&t, "hashjack_serve_slow_clients_dropped_total",
	                "clients dropped for not reading what was sent to them",
	                hs->slow_dropped);
	hj_prom_counter(&t, "hashjack_serve_ws_messages_total",
	                "WebSocket messages sent", hs->ws_messages_out);
	hj_prom_counter(&t, "hashjack_serve_ws_bytes_total",
	                "WebSocket bytes sent, frames included",
	                hs->ws_bytes_out);
	hj_prom_counter(&t, "hashjack_serve_blocks_streamed_total",
	                "blocks sent to the stream's subscribers",
	                a->blocks_sent);
	if (hj_prom_take(&t, &page, &len)) {
		reply_error(a, c, 503, "out of memory");
		return;
	}
	reply(a, c, 200, "text/plain; version=0.0.4; charset=utf-8", page, len);
	free(page);
}

/* ---- requests ---- */

/* path after prefix, when path begins with it and has no further '/'. */
static const char *path_rest(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(path, prefix, n) != 0 || !path[n] || strchr(path + n, '/'))
		return NULL;
	return path + n;
}

static void request(void *ctx, hj_conn *c, const hj_server_req *r)
{
	hjc_api *a = ctx;
	static const char *const none[] = {NULL};
	static const char *const blocks_q[] = {"last", NULL};
	static const char *const payouts_q[] = {"recipient", "round", "kind",
	                                        NULL};
	const char *path = r->path, *id;
	char err[HJ_ERRLEN], *out = NULL;
	size_t len = 0;
	struct qv q;
	int dup = 0, st;

	for (const hjc_www_file *f = hjc_www_files; f->path; f++)
		if (strcmp(path, f->path) == 0 ||
		    (strcmp(path, "/") == 0 &&
		     strcmp(f->path, "/index.html") == 0)) {
			reply(a, c, 200, f->type, (const char *)f->data,
			      f->len);
			return;
		}
	const char *const *allowed = none;
	enum {
		TABLE,
		ROUNDS,
		ROUND,
		PLAYER,
		BLOCK,
		BLOCKS,
		PAYOUTS,
		HEALTHZ,
		METRICS,
		STREAM
	} route;
	if (strcmp(path, "/v1/table") == 0)
		route = TABLE;
	else if (strcmp(path, "/v1/rounds") == 0)
		route = ROUNDS;
	else if ((id = path_rest(path, "/v1/rounds/")))
		route = ROUND;
	else if ((id = path_rest(path, "/v1/players/")))
		route = PLAYER;
	else if ((id = path_rest(path, "/v1/blocks/")))
		route = BLOCK;
	else if (strcmp(path, "/v1/blocks") == 0)
		route = BLOCKS, allowed = blocks_q;
	else if (strcmp(path, "/v1/payouts") == 0)
		route = PAYOUTS, allowed = payouts_q;
	else if (strcmp(path, "/healthz") == 0)
		route = HEALTHZ;
	else if (strcmp(path, "/metrics") == 0)
		route = METRICS;
	else if (strcmp(path, "/v1/stream") == 0)
		route = STREAM;
	else {
		reply_error(a, c, 404, "no such path");
		return;
	}
	/* /v1/stream without an upgrade is 426 whatever its query asks. */
	q.n = 0;
	if (route != STREAM &&
	    parse_query(r->query, allowed, &q, err, sizeof err)) {
		reply_error(a, c, 400, "%s", err);
		return;
	}
	const char *last = qget(&q, "last", &dup);
	const char *rcp = qget(&q, "recipient", &dup);
	const char *rnd = qget(&q, "round", &dup);
	const char *kind = qget(&q, "kind", &dup);
	if (dup) {
		reply_error(a, c, 400, "a parameter given twice");
		return;
	}
	switch (route) {
	case TABLE:
		st = hjc_view_table(a->v, &out, &len, err, sizeof err);
		break;
	case ROUNDS:
		st = hjc_view_rounds(a->v, &out, &len, err, sizeof err);
		break;
	case ROUND:
		st = hjc_view_round(a->v, id, &out, &len, err, sizeof err);
		break;
	case PLAYER:
		st = hjc_view_player(a->v, id, &out, &len, err, sizeof err);
		break;
	case BLOCK:
		st = hjc_view_block(a->v, id, &out, &len, err, sizeof err);
		break;
	case BLOCKS:
		st = hjc_view_blocks(a->v, last, &out, &len, err, sizeof err);
		break;
	case PAYOUTS:
		st = hjc_view_payouts(a->v, rcp, rnd, kind, &out, &len, err,
		                      sizeof err);
		break;
	case HEALTHZ:
		answer_healthz(a, c);
		return;
	case METRICS:
		answer_metrics(a, c);
		return;
	default:
		reply_error(a, c, 426,
		            "/v1/stream is a WebSocket: send an upgrade");
		return;
	}
	answer(a, c, st, out, len, err);
}

/* ---- the stream ---- */

static int sub_wants(const struct sub *s, const hjc_update *u)
{
	if (!u->round || s->all)
		return 1;
	for (unsigned i = 0; i < s->nround; i++)
		if (hj_id_eq(&s->round[i], u->round))
			return 1;
	for (unsigned i = 0; i < s->nplayer; i++)
		if (hj_id_eq(&s->player[i], u->player))
			return 1;
	return 0;
}

static void deliver(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	struct sub *s = ctx;
	(void)height;
	for (size_t i = 0; i < n; i++)
		if (sub_wants(s, &u[i]) &&
		    hj_conn_ws_send(s->c, u[i].msg, u[i].len) < 0)
			return;
}

void hjc_api_block(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	hjc_api *a = ctx;
	struct frame {
		char *p;
		size_t n;
	} *f = calloc(n, sizeof *f);
	a->blocks_sent++;
	for (size_t i = 0; f && i < n; i++)
		if (hj_conn_ws_frame(u[i].msg, u[i].len, &f[i].p, &f[i].n)) {
			for (size_t k = 0; k < i; k++)
				free(f[k].p);
			free(f);
			f = NULL;
		}
	for (struct sub *s = a->subs; s; s = s->next) {
		if (!f) {
			deliver(s, height, u, n); /* framed per subscriber */
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (sub_wants(s, &u[i]) &&
			    hj_conn_ws_send_framed(s->c, f[i].p, f[i].n) < 0)
				break;
	}
	for (size_t i = 0; f && i < n; i++)
		free(f[i].p);
	free(f);
}

static void noop(void *ctx, uint64_t height, const hjc_update *u, size_t n)
{
	(void)ctx;
	(void)height;
	(void)u;
	(void)n;
}

/* Adds a round or player; 0 or -1 with why. */
static int sub_add(hjc_api *a, struct sub *s, int player, const char *text,
                   char *why, size_t n)
{
	hj_id id;
	char e[HJ_ERRLEN];
	int r = player ? hjc_view_parse_player(a->v, text, &id, e, sizeof e)
	               : hjc_view_parse_round(a->v, text, &id, e, sizeof e);
	if (r) {
		hj_say(why, n, "%s %s: %s", player ? "player" : "round", text,
		       e);
		return -1;
	}
	hj_id *set = player ? s->player : s->round;
	unsigned *cnt = player ? &s->nplayer : &s->nround;
	for (unsigned i = 0; i < *cnt; i++)
		if (hj_id_eq(&set[i], &id))
			return 0;
	if (s->nround + s->nplayer >= a->o.max_subscriptions) {
		hj_say(why, n, "at most %u rounds and players per connection",
		       a->o.max_subscriptions);
		return -1;
	}
	set[(*cnt)++] = id;
	return 0;
}

static void sub_free(struct sub *s)
{
	if (!s)
		return;
	free(s->round);
	free(s->player);
	free(s);
}

static int ws_open(void *ctx, hj_conn *c, const hj_server_req *r)
{
	hjc_api *a = ctx;
	static const char *const allowed[] = {"round", "player", "from", NULL};
	char why[HJ_ERRLEN];
	struct qv q;
	int dup = 0;

	if (strcmp(r->path, "/v1/stream") != 0) {
		reply_error(a, c, 404, "no WebSocket at this path");
		return -1;
	}
	struct sub *s = calloc(1, sizeof *s);
	if (s) {
		s->round = calloc(a->o.max_subscriptions, sizeof *s->round);
		s->player = calloc(a->o.max_subscriptions, sizeof *s->player);
	}
	if (!s || !s->round || !s->player) {
		sub_free(s);
		reply_error(a, c, 503, "out of memory");
		return -1;
	}
	if (parse_query(r->query, allowed, &q, why, sizeof why))
		goto bad;
	for (size_t i = 0; i < q.n; i++) {
		if (strcmp(q.key[i], "from") == 0)
			continue;
		if (sub_add(a, s, strcmp(q.key[i], "player") == 0, q.val[i],
		            why, sizeof why))
			goto bad;
	}
	s->all = s->nround + s->nplayer == 0;
	const char *from = qget(&q, "from", &dup);
	if (dup) {
		snprintf(why, sizeof why, "from: given twice");
		goto bad;
	}
	if (from) {
		uint64_t h;
		if (hjc_view_parse_height(from, &h)) {
			snprintf(why, sizeof why, "from must be " FROM_FORM);
			goto bad;
		}
		if (hjc_view_history(a->v, h, noop, NULL, why, sizeof why)) {
			a->ws_refused++;
			sub_free(s);
			reply_error(a, c, 400, "%s", why);
			return -1;
		}
		s->from = h;
		s->has_from = 1;
	}
	s->c = c;
	s->next = a->subs;
	if (a->subs)
		a->subs->prev = s;
	a->subs = s;
	a->nsubs++;
	hj_conn_set_user(c, s);
	return 0;
bad:
	a->ws_refused++;
	sub_free(s);
	reply_error(a, c, 400, "%s", why);
	return -1;
}

static void ws_ready(void *ctx, hj_conn *c)
{
	hjc_api *a = ctx;
	struct sub *s = hj_conn_user(c);
	char why[HJ_ERRLEN];
	if (s && s->has_from)
		hjc_view_history(a->v, s->from, deliver, s, why, sizeof why);
}

static void ws_close(void *ctx, hj_conn *c)
{
	hjc_api *a = ctx;
	struct sub *s = hj_conn_user(c);
	if (!s)
		return;
	if (s->prev)
		s->prev->next = s->next;
	else
		a->subs = s->next;
	if (s->next)
		s->next->prev = s->prev;
	a->nsubs--;
	sub_free(s);
}

/* The subscriptions as a Subscribed message. */
static void send_subs(hjc_api *a, struct sub *s)
{
	json_t *o = json_object(), *rounds = json_array(),
	       *players = json_array();
	char *txt;
	for (unsigned i = 0; i < s->nround; i++) {
		char hex[67];
		hjc_view_id_text(a->v, &s->round[i], hex);
		json_array_append_new(rounds, json_string(hex));
	}
	for (unsigned i = 0; i < s->nplayer; i++) {
		char hex[67];
		hjc_view_id_text(a->v, &s->player[i], hex);
		json_array_append_new(players, json_string(hex));
	}
	json_object_set_new(o, "eventType", json_string("Subscribed"));
	json_object_set_new(o, "all", json_boolean(s->all));
	json_object_set_new(o, "rounds", rounds);
	json_object_set_new(o, "players", players);
	txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (txt)
		hj_conn_ws_send(s->c, txt, strlen(txt));
	free(txt);
}

static void send_error(struct sub *s, const char *why)
{
	json_t *o = json_pack("{s:s,s:s}", "eventType", "Error", "error", why);
	char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                                  JSON_ENSURE_ASCII)
	              : NULL;
	json_decref(o);
	if (txt)
		hj_conn_ws_send(s->c, txt, strlen(txt));
	free(txt);
}

/* {"subscribe":X} or {"unsubscribe":X}, X "all", {"round":ID} or
 * {"player":ID}. */
static void ws_message(void *ctx, hj_conn *c, const char *msg, size_t n)
{
	hjc_api *a = ctx;
	struct sub *s = hj_conn_user(c);
	json_error_t je;
	char why[HJ_ERRLEN];
	json_t *o = json_loadb(msg, n, JSON_REJECT_DUPLICATES, &je), *x;
	int on;

	if (!s)
		goto out;
	if (!json_is_object(o) || json_object_size(o) != 1) {
		send_error(s, "expected {\"subscribe\":...} or "
		              "{\"unsubscribe\":...}");
		goto out;
	}
	if ((x = json_object_get(o, "subscribe")))
		on = 1;
	else if ((x = json_object_get(o, "unsubscribe")))
		on = 0;
	else {
		send_error(s, "expected {\"subscribe\":...} or "
		              "{\"unsubscribe\":...}");
		goto out;
	}
	if (json_is_string(x) && strcmp(json_string_value(x), "all") == 0) {
		s->all = on;
		send_subs(a, s);
		goto out;
	}
	const char *rid = json_string_value(json_object_get(x, "round"));
	const char *pid = json_string_value(json_object_get(x, "player"));
	if (!json_is_object(x) || json_object_size(x) != 1 || (!rid && !pid)) {
		send_error(s, "subscribe to \"all\", {\"round\":ID} or "
		              "{\"player\":ID}");
		goto out;
	}
	if (on) {
		if (sub_add(a, s, pid != NULL, pid ? pid : rid, why,
		            sizeof why)) {
			send_error(s, why);
			goto out;
		}
	} else {
		hj_id id;
		int player = pid != NULL;
		int r =
		    player
		        ? hjc_view_parse_player(a->v, pid, &id, why, sizeof why)
		        : hjc_view_parse_round(a->v, rid, &id, why, sizeof why);
		if (r) {
			send_error(s, why);
			goto out;
		}
		hj_id *set = player ? s->player : s->round;
		unsigned *cnt = player ? &s->nplayer : &s->nround;
		for (unsigned i = 0; i < *cnt; i++)
			if (hj_id_eq(&set[i], &id)) {
				set[i] = set[--*cnt];
				break;
			}
	}
	send_subs(a, s);
out:
	json_decref(o);
}

void hjc_api_handler(hjc_api *a, hj_server_handler *h)
{
	*h = (hj_server_handler){.request = request,
	                         .ws_open = ws_open,
	                         .ws_ready = ws_ready,
	                         .ws_message = ws_message,
	                         .ws_close = ws_close,
	                         .ctx = a};
}
