/*
 * The daemon's SQLite state (daemon/core/store*.c) through its API, with a raw
 * sqlite3 connection to look at and damage what it wrote; and the reader
 * the `hashjack` tool uses (hj_store_read and the typed reads): exact
 * values, every schema version read as it is, and no trace left.
 *
 * Rounds come from the real table: a small driver below plays random blocks
 * and records every event the way the daemon does (transactions, refunds,
 * returns, open rounds, cursor), one database transaction per batch.  The
 * crash tests run that driver in a child process that dies without
 * committing, and compare the database the parent finds with one written
 * by an uninterrupted run of the same blocks.
 *
 * Every database lives in one mkdtemp directory, removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "card.h"
#include "hex.h"
#include "say.h"
#include "store.h"

/* 2^128 - 1 in decimal. */
#define MAX_DEC "340282366920938463463374607431768211455"

static char tmpdir[64];

static const char *db_path(const char *name)
{
	static char buf[4][128];
	static unsigned k;
	char *p = buf[k++ % 4];

	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/hj-test-store-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes the directory and every file in it (it holds no subdirectory). */
static int remove_dir(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int ret = 0;

	(void)state;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) != 0)
			ret = -1;
	}
	closedir(d);
	if (rmdir(tmpdir) != 0)
		ret = -1;
	return ret;
}

/* ---- raw access, for looking behind the API ---- */

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(
	    sqlite3_open_v2(path, &db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
	    SQLITE_OK);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* First column of the first row as text, into buf. */
static const char *raw_text(sqlite3 *db, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/* Every row of a query as text (blobs in hex), for comparing databases. */
struct dump {
	char *p;
	size_t n, cap;
};

static void dump_put(struct dump *d, const char *s, size_t n)
{
	if (d->n + n + 1 > d->cap) {
		d->cap = (d->n + n + 1) * 2;
		d->p = realloc(d->p, d->cap);
		assert_non_null(d->p);
	}
	memcpy(d->p + d->n, s, n);
	d->n += n;
	d->p[d->n] = '\0';
}

static void dump_query(struct dump *d, sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	dump_put(d, sql, strlen(sql));
	dump_put(d, "\n", 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			char hex[2 * 600 + 3];
			int n = sqlite3_column_bytes(st, i);

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				dump_put(d, "NULL", 4);
				break;
			case SQLITE_BLOB:
				assert_true(n <= 600);
				hj_hex_encode(sqlite3_column_blob(st, i),
				              (size_t)n, 1, hex);
				dump_put(d, hex, strlen(hex));
				break;
			default:
				dump_put(
				    d, (const char *)sqlite3_column_text(st, i),
				    (size_t)sqlite3_column_bytes(st, i));
			}
			dump_put(d, "|", 1);
		}
		dump_put(d, "\n", 1);
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
}

/* The whole state of a database file as text. */
static char *dump_db(const char *path)
{
	struct dump d = {0};
	sqlite3 *db = raw_open(path);

	dump_query(&d, db, "SELECT * FROM meta");
	dump_query(&d, db, "SELECT * FROM cursor");
	dump_query(&d, db, "SELECT * FROM txs ORDER BY height, tx_index");
	dump_query(&d, db,
	           "SELECT * FROM rounds ORDER BY bet_height, bet_tx_index");
	/* Version 6's columns: a migration to 7 adds orphaned, NULL. */
	dump_query(
	    &d, db,
	    "SELECT id, kind, round, hand, txid, recipient, amount, state, "
	    "created_height, submitted_txid, nonce, submitted_height, "
	    "submitted_at, confirmed_height, last_error FROM payouts "
	    "ORDER BY id");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return d.p;
}

/* ---- a small daemon: the real table, every event recorded ---- */

static const hj_store_meta META = {
    .family = "evm",
    .chain = "evm:31337",
    .dealer = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    .rules = "bethash min=1 max=1000000000000000000000000000000 timeout=6",
};

static hj_rules test_rules(void)
{
	hj_rules r;

	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = (hj_amount)1000000000000000ull * 1000000000000000ull;
	r.timeout_blocks = 6;
	assert_int_equal(hj_rules_check(&r, NULL, 0), 0);
	return r;
}

typedef struct play {
	hj_table *t;
	hj_store *s;
	uint64_t height; /* next block */
	uint64_t rng;
	uint32_t txseq;
	int save_each_block; /* else rounds are saved once per batch */
	int failed;          /* a store call in the sink failed */
	char err[HJ_ERRLEN];
	/* What happened, so that tests know they covered something. */
	unsigned bets, settles, refunds, returns, max_open;
} play;

static uint64_t rnd(play *p)
{
	/* xorshift64: deterministic, so two runs play the same blocks. */
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	return p->rng;
}

static void cursor_of(uint64_t height, hj_cursor *c)
{
	memset(c, 0, sizeof *c);
	c->height = height;
	for (int i = 0; i < 32; i++)
		c->hash[i] = (uint8_t)(height * 31 + (uint64_t)i * 7);
	c->log_offset = height * 250;
	c->log_dev = 0xfd01;
	c->log_ino = 4242;
}

static void note(play *p, int ret)
{
	if (ret != 0 && !p->failed)
		p->failed = ret;
}

static void add_payout(play *p, const char *kind, const hj_round *r, int hand,
                       const hj_action *tx, const hj_id *to, hj_amount amount)
{
	char id[160], hex[65];
	hj_payout po = {.kind = kind,
	                .round = r ? &r->id : NULL,
	                .hand = hand,
	                .txid = tx ? &tx->txid : NULL,
	                .recipient = to,
	                .amount = amount,
	                .height = p->height};

	if (tx)
		hj_hex_encode(tx->txid.b, tx->txid.len, 0, hex);
	else
		hj_hex_encode(r->id.b, r->id.len, 0, hex);
	if (hand >= 0)
		snprintf(id, sizeof id, "%s:%s:%d", kind, hex, hand);
	else
		snprintf(id, sizeof id, "%s:%s", kind, hex);
	po.id = id;
	note(p, hj_store_add_payout(p->s, &po, p->err, sizeof p->err));
}

static void sink(void *ctx, const hj_event *e)
{
	play *p = ctx;
	const hj_id *round = e->round ? &e->round->id : NULL;
	char *err = p->err;
	size_t n = sizeof p->err;

	switch (e->type) {
	case HJ_EV_ACTION:
		p->bets += e->act == HJ_BET;
		note(p, hj_store_add_tx(p->s, p->height, e->tx, "accepted",
		                        HJ_OK, round, err, n));
		break;
	case HJ_EV_REJECT:
		note(p, hj_store_add_tx(p->s, p->height, e->tx, "rejected",
		                        e->reason, round, err, n));
		if (e->amount > 0) {
			p->refunds++;
			add_payout(p, "refund", e->round, -1, e->tx,
			           &e->tx->sender, e->amount);
		}
		break;
	case HJ_EV_DEPOSIT:
		note(p, hj_store_add_tx(p->s, p->height, e->tx, "deposit",
		                        HJ_OK, NULL, err, n));
		break;
	case HJ_EV_IGNORED:
		note(p, hj_store_add_tx(p->s, p->height, e->tx, "ignored",
		                        HJ_OK, NULL, err, n));
		break;
	case HJ_EV_SETTLE:
		p->settles++;
		for (int h = 0; h < e->round->nhands; h++) {
			if (e->settle->ret[h] == 0)
				continue;
			p->returns++;
			add_payout(p, "return", e->round, h, NULL,
			           &e->round->player, e->settle->ret[h]);
		}
		if (e->settle->ins_ret > 0)
			add_payout(p, "insurance", e->round, -1, NULL,
			           &e->round->player, e->settle->ins_ret);
		break;
	default:
		break;
	}
}

static void play_init(play *p, hj_store *s, uint64_t seed)
{
	hj_rules r = test_rules();

	memset(p, 0, sizeof *p);
	assert_int_equal(hj_table_new(&r, &p->t), 0);
	p->s = s;
	p->height = 1000;
	p->rng = seed;
	p->save_each_block = 1;
}

static const hj_round *round_of(const play *p, uint8_t player)
{
	for (size_t i = 0; i < hj_table_count(p->t); i++) {
		const hj_round *r = hj_table_round(p->t, i);
		if (r->player.b[0] == player)
			return r;
	}
	return NULL;
}

#define NPLAYERS 6

/* A random transaction of a player: a Bet when it has no round, else some
 * action with roughly the value it needs; many are rejected, as they
 * should be. */
static hj_action random_tx(play *p, uint8_t player)
{
	const hj_round *r = round_of(p, player);
	hj_action a;
	uint64_t x = rnd(p);

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_ACTION;
	a.sender.len = 20;
	a.sender.b[0] = player;
	a.sender.b[19] = 0xee;
	a.txid.len = 32;
	a.txid.b[0] = player;
	memcpy(a.txid.b + 1, &p->txseq, sizeof p->txseq);
	p->txseq++;
	a.txid.b[31] = 0x5a;

	if (x % 23 == 0) {
		a.kind = HJ_TX_DEPOSIT;
		a.value = x % 1000;
		return a;
	}
	if (x % 29 == 0) {
		a.kind = HJ_TX_FAILED;
		a.value = 5;
		return a;
	}
	if (r == NULL || x % 17 == 0) {
		a.act = HJ_BET;
		a.value = 1 + (x >> 8) % 1000;
		if (x % 13 == 0)
			a.side_pp = 1; /* rejected: no side bets */
		return a;
	}
	static const hj_act acts[] = {HJ_HIT,   HJ_STAND,     HJ_DOUBLE,
	                              HJ_SPLIT, HJ_SURRENDER, HJ_PEEK};
	a.act = acts[(x >> 8) % 6];
	if (a.act == HJ_DOUBLE || a.act == HJ_SPLIT)
		a.value = r->bet;
	if (a.act == HJ_PEEK) {
		a.insurance = (uint8_t)((x >> 16) & 1);
		a.value = a.insurance ? r->bet / 2 : 0;
	}
	if (x % 11 == 0)
		a.value += 1; /* wrong value: rejected and refunded */
	return a;
}

/* One block with random transactions, its effects and cursor written. */
static void play_block(play *p)
{
	hj_action txs[NPLAYERS];
	size_t n = 0;
	hj_card c = {0};
	hj_cursor cur;
	uint64_t x = rnd(p);

	if (x % 10 != 0) {
		c.rank = (uint8_t)(1 + (x >> 8) % 13);
		c.suit = (uint8_t)((x >> 16) % 4);
	}
	for (uint8_t pl = 1; pl <= NPLAYERS; pl++)
		if (rnd(p) % 3 == 0) {
			txs[n] = random_tx(p, pl);
			txs[n].tx_index = (uint32_t)n;
			n++;
		}
	assert_int_equal(
	    hj_table_apply_block(p->t, p->height, &c, txs, n, sink, p), 0);
	/* As the daemon does: the rounds saved, then the cursor moved, once a
	 * batch (the undo's triggers key a round's image by the cursor the
	 * batch began at). */
	if (p->save_each_block) {
		note(p,
		     hj_store_save_rounds(p->s, p->t, p->err, sizeof p->err));
		cursor_of(p->height, &cur);
		note(p, hj_store_set_cursor(p->s, &cur, p->err, sizeof p->err));
	}
	if (hj_table_count(p->t) > p->max_open)
		p->max_open = (unsigned)hj_table_count(p->t);
	p->height++;
}

/* A committed batch of blocks; returns 0 or the first store error. */
static int play_batch(play *p, int blocks)
{
	int ret = hj_store_begin(p->s, p->err, sizeof p->err);

	if (ret)
		return ret;
	for (int i = 0; i < blocks && !p->failed; i++)
		play_block(p);
	if (!p->failed && !p->save_each_block) {
		hj_cursor cur;

		note(p,
		     hj_store_save_rounds(p->s, p->t, p->err, sizeof p->err));
		cursor_of(p->height - 1, &cur);
		note(p, hj_store_set_cursor(p->s, &cur, p->err, sizeof p->err));
	}
	if (p->failed) {
		hj_store_rollback(p->s);
		return p->failed;
	}
	return hj_store_commit(p->s, p->err, sizeof p->err);
}

/* Loads the stored rounds into a fresh table and checks they are the
 * table's, encoded identically, in the same order. */
static void check_stored_rounds(hj_store *s, const hj_table *want)
{
	hj_table *t;
	char err[HJ_ERRLEN] = "";
	uint8_t a[HJ_ROUND_ENCODED_MAX], b[HJ_ROUND_ENCODED_MAX];

	assert_int_equal(hj_table_new(hj_table_rules(want), &t), 0);
	if (hj_store_load_rounds(s, t, err, sizeof err) != 0)
		fail_msg("load rounds: %s", err);
	assert_int_equal(hj_table_count(t), hj_table_count(want));
	for (size_t i = 0; i < hj_table_count(t); i++) {
		size_t na = hj_round_encode(hj_table_round(want, i), a);
		size_t nb = hj_round_encode(hj_table_round(t, i), b);

		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na);
	}
	hj_table_free(t);
}

/* Replaces the driver's table by the one stored, as a restart does. */
static void reload(play *p)
{
	hj_table *t;
	hj_cursor c;
	char err[HJ_ERRLEN] = "";

	assert_int_equal(hj_table_new(hj_table_rules(p->t), &t), 0);
	if (hj_store_load_rounds(p->s, t, err, sizeof err) != 0)
		fail_msg("load rounds: %s", err);
	assert_int_equal(hj_store_get_cursor(p->s, &c, err, sizeof err), 0);
	hj_table_set_last_height(t, c.height);
	hj_table_free(p->t);
	p->t = t;
	p->height = c.height + 1;
}

/* A table holding copies of t's rounds, made without the store. */
static hj_table *table_copy(const hj_table *t)
{
	hj_table *c;
	uint64_t h;

	assert_int_equal(hj_table_new(hj_table_rules(t), &c), 0);
	for (size_t i = 0; i < hj_table_count(t); i++)
		assert_int_equal(hj_table_restore(c, hj_table_round(t, i)), 0);
	if (hj_table_last_height(t, &h))
		hj_table_set_last_height(c, h);
	return c;
}

static hj_store *open_ok(const char *path)
{
	hj_store *s = NULL;
	char err[HJ_ERRLEN] = "";

	if (hj_store_open(path, &s, err, sizeof err) != 0)
		fail_msg("open %s: %s", path, err);
	if (hj_store_check_meta(s, &META, err, sizeof err) != 0)
		fail_msg("meta: %s", err);
	return s;
}

static hj_action simple_tx(uint8_t tag, hj_amount value)
{
	hj_action a;

	memset(&a, 0, sizeof a);
	a.kind = HJ_TX_DEPOSIT;
	a.txid.len = 32;
	memset(a.txid.b, tag, 32);
	a.sender.len = 20;
	memset(a.sender.b, 0xaa, 20);
	a.tx_index = tag;
	a.value = value;
	return a;
}

/* ---- tests ---- */

/* The state directory's lock: one holder at a time, free again once its
 * descriptor is closed; a directory that is not there is its errno. */
static void test_lock_dir(void **state)
{
	char missing[128];
	int a, b;

	(void)state;
	a = hj_store_lock_dir(tmpdir);
	assert_true(a >= 0);
	assert_int_equal(hj_store_lock_dir(tmpdir), -EWOULDBLOCK);
	close(a);
	b = hj_store_lock_dir(tmpdir);
	assert_true(b >= 0);
	close(b);
	snprintf(missing, sizeof missing, "%s/none", tmpdir);
	assert_int_equal(hj_store_lock_dir(missing), -ENOENT);
}

static void test_open_creates_wal_database(void **state)
{
	const char *path = db_path("create.db");
	hj_store *s = open_ok(path);
	sqlite3 *db;
	char buf[64];

	(void)state;
	db = raw_open(path);
	assert_string_equal(
	    raw_text(db, "PRAGMA journal_mode", buf, sizeof buf), "wal");
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 7);
	assert_int_equal(raw_int(db, "PRAGMA application_id"), 0x484a4b44);
	assert_int_equal(
	    raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = "
	                "'table' AND name IN ('meta', 'cursor', 'rounds', "
	                "'txs', 'payouts', 'settlement', 'payout_batches', "
	                "'payout_batch_outputs', 'payout_batch_items')"),
	    9);
	/* The tag of this database's wallet comments: 16 random hex
	 * digits. */
	assert_int_equal(
	    raw_int(db, "SELECT count(*) FROM settlement WHERE length(tag) = "
	                "16 AND tag NOT GLOB '*[^0-9a-f]*'"),
	    1);
	/* Room for settlement: these columns exist, NULL until then. */
	assert_int_equal(
	    raw_int(db, "SELECT count(*) FROM pragma_table_info('payouts') "
	                "WHERE name IN ('submitted_txid', 'nonce', "
	                "'confirmed_height', 'state')"),
	    4);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	hj_store_close(s);
	hj_store_close(NULL);
}

static void test_reopen_keeps_everything(void **state)
{
	const char *path = db_path("reopen.db");
	hj_store *s = open_ok(path);
	play p;
	hj_cursor c1, c2;
	uint64_t n1, n2;
	hj_amount sum1, sum2;
	char err[HJ_ERRLEN] = "";
	char *before, *after;

	(void)state;
	play_init(&p, s, 0x1234567);
	for (int b = 0; b < 10; b++)
		if (play_batch(&p, 20) != 0)
			fail_msg("batch: %s", p.err);
	assert_true(p.bets > 0 && hj_table_count(p.t) > 0);
	assert_int_equal(hj_store_get_cursor(s, &c1, err, sizeof err), 0);
	assert_int_equal(hj_store_owed(s, &n1, &sum1, err, sizeof err), 0);
	assert_true(n1 > 0);
	hj_store_close(s);
	before = dump_db(path);

	s = open_ok(path);
	assert_int_equal(hj_store_get_cursor(s, &c2, err, sizeof err), 0);
	assert_memory_equal(&c1, &c2, sizeof c1);
	assert_int_equal(c2.height, p.height - 1);
	assert_int_equal(hj_store_owed(s, &n2, &sum2, err, sizeof err), 0);
	assert_int_equal(n1, n2);
	assert_true(sum1 == sum2);
	check_stored_rounds(s, p.t);
	hj_store_close(s);
	after = dump_db(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
	hj_table_free(p.t);
}

static void test_meta(void **state)
{
	const char *path = db_path("meta.db");
	hj_store *s = NULL;
	char err[HJ_ERRLEN] = "";
	static const char *const field[4] = {"family", "chain", "dealer",
	                                     "rules"};

	(void)state;
	assert_int_equal(hj_store_open(path, &s, err, sizeof err), 0);
	/* First start stores, the same configuration matches again. */
	assert_int_equal(hj_store_check_meta(s, &META, err, sizeof err), 0);
	assert_int_equal(hj_store_check_meta(s, &META, err, sizeof err), 0);
	hj_store_close(s);
	s = open_ok(path);

	for (int i = 0; i < 4; i++) {
		hj_store_meta m = META;
		const char **f[4] = {&m.family, &m.chain, &m.dealer, &m.rules};
		const char *stored[4] = {META.family, META.chain, META.dealer,
		                         META.rules};
		char want[256];

		*f[i] = "other-value";
		err[0] = '\0';
		assert_int_equal(hj_store_check_meta(s, &m, err, sizeof err),
		                 -EINVAL);
		snprintf(want, sizeof want,
		         "%s is \"%s\" in the database, "
		         "\"other-value\" configured",
		         field[i], stored[i]);
		if (strstr(err, want) == NULL)
			fail_msg("%s: got \"%s\"", field[i], err);
		/* Only the field that differs is named. */
		for (int j = 0; j < 4; j++)
			if (j != i) {
				char other[32];
				snprintf(other, sizeof other, " %s is ",
				         field[j]);
				assert_null(strstr(err, other));
			}
	}
	/* Two fields at once: both named. */
	hj_store_meta m2 = META;
	m2.chain = "evm:1";
	m2.dealer = "0xabc";
	assert_int_equal(hj_store_check_meta(s, &m2, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "chain is \"evm:31337\" in the database, "
	                            "\"evm:1\" configured"));
	assert_non_null(strstr(err, "dealer is"));
	/* An empty field is refused, never stored. */
	m2 = META;
	m2.rules = "";
	assert_int_equal(hj_store_check_meta(s, &m2, err, sizeof err), -EINVAL);
	hj_store_close(s);
	/* A mismatch changed nothing. */
	s = open_ok(path);
	hj_store_close(s);
}

/* Stored and configured rules that both read: each limit and rule key
 * that differs is named with both values. */
static void test_meta_rules_keys(void **state)
{
	const char *path = db_path("meta_rules.db");
	hj_store *s = NULL;
	hj_store_meta m = META;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(hj_store_open(path, &s, err, sizeof err), 0);
	m.rules = "preset=bethash min_bet=1 max_bet=1000 timeout_blocks=100";
	if (hj_store_check_meta(s, &m, err, sizeof err) != 0)
		fail_msg("%s", err);
	m.rules = "preset=bethash min_bet=1 max_bet=2000 timeout_blocks=100 "
	          "surrender=early perfect_pairs=25,12,5";
	assert_int_equal(hj_store_check_meta(s, &m, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, " rules.max_bet is \"1000\" in the "
	                            "database, \"2000\" configured;"));
	assert_non_null(strstr(err, " rules.surrender is \"late\" in the "
	                            "database, \"early\" configured;"));
	assert_non_null(strstr(err, " rules.perfect_pairs is \"off\" in the "
	                            "database, \"25,12,5\" configured"));
	assert_null(strstr(err, "rules.min_bet"));
	assert_null(strstr(err, "rules.peek"));
	/* Another preset: its name and the keys whose values differ. */
	m.rules = "preset=annakai min_bet=1 max_bet=1000 timeout_blocks=100";
	assert_int_equal(hj_store_check_meta(s, &m, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, " rules.preset is \"bethash\" in the "
	                            "database, \"annakai\" configured;"));
	assert_non_null(strstr(err, " rules.blackjack_pays is \"6:5\""));
	assert_null(strstr(err, "rules.dealer_soft17"));
	hj_store_close(s);
}

static void test_cursor(void **state)
{
	const char *path = db_path("cursor.db");
	hj_store *s = open_ok(path);
	hj_cursor c, got;
	char err[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err),
	                 -ENOENT);
	memset(&c, 0, sizeof c);
	c.height = 19999999;
	for (int i = 0; i < 32; i++)
		c.hash[i] = (uint8_t)(0xff - i);
	c.log_offset = (uint64_t)1 << 40;
	c.log_dev = UINT64_MAX; /* every bit of dev and ino survives */
	c.log_ino = ((uint64_t)1 << 63) | 5;

	/* Writes happen inside a transaction only. */
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "outside a transaction"));
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err),
	                 -ENOENT);

	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_begin(s, err, sizeof err), -EINVAL);
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	memset(&got, 0x55, sizeof got);
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err), 0);
	assert_memory_equal(&got, &c, sizeof c);
	hj_store_close(s);

	s = open_ok(path);
	memset(&got, 0, sizeof got);
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err), 0);
	assert_memory_equal(&got, &c, sizeof c);
	/* The single row is replaced. */
	c.height++;
	c.hash[0] = 1;
	c.log_offset = 0;
	c.log_dev = 0;
	c.log_ino = 0;
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	/* The log offset is an off_t: above 2^63-1 is refused. */
	hj_cursor big = c;
	big.log_offset = (uint64_t)INT64_MAX + 1;
	assert_int_equal(hj_store_set_cursor(s, &big, err, sizeof err),
	                 -EINVAL);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err), 0);
	assert_memory_equal(&got, &c, sizeof c);
	/* A daemon starting at block 0 stores the block before it: 0 - 1. */
	c.height = UINT64_MAX;
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_get_cursor(s, &got, err, sizeof err), 0);
	assert_memory_equal(&got, &c, sizeof c);
	hj_store_close(s);

	sqlite3 *db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM cursor"), 1);
	assert_int_equal(raw_int(db, "SELECT height FROM cursor"), -1);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Random play, saving rounds per block or per batch, with rollbacks and
 * restarts between batches; the stored rounds always equal the table's. */
static void rounds_round_trip(const char *name, int save_each_block)
{
	const char *path = db_path(name);
	hj_store *s = open_ok(path);
	play p;

	play_init(&p, s, 0x9e3779b97f4a7c15ull + (uint64_t)save_each_block);
	p.save_each_block = save_each_block;
	for (int b = 0; b < 60; b++) {
		if (play_batch(&p, 1 + b % 13) != 0)
			fail_msg("batch %d: %s", b, p.err);
		check_stored_rounds(s, p.t);
		if (b % 7 == 3) {
			/* A batch that is rolled back: the table moved on,
			 * the database did not.  Go on from the database's
			 * rounds, or from a copy of the table taken before,
			 * which the store never saw: either way the next
			 * save must write what differs from the database,
			 * not from what the rolled-back batch wrote. */
			hj_table *copy = table_copy(p.t);
			uint64_t height = p.height;
			assert_int_equal(hj_store_begin(s, p.err, sizeof p.err),
			                 0);
			for (int i = 0; i < 5; i++)
				play_block(&p);
			if (!save_each_block)
				note(&p, hj_store_save_rounds(s, p.t, p.err,
				                              sizeof p.err));
			assert_int_equal(p.failed, 0);
			hj_store_rollback(s);
			if (b % 14 == 3) {
				hj_table_free(copy);
				reload(&p);
				check_stored_rounds(s, p.t);
			} else {
				hj_table_free(p.t);
				p.t = copy;
				p.height = height;
			}
		}
		if (b % 11 == 5) {
			hj_store_close(s);
			s = open_ok(path);
			p.s = s;
			reload(&p);
		}
	}
	/* The play covered what it is meant to. */
	assert_true(p.bets > 50);
	assert_true(p.settles > 20);
	assert_true(p.refunds > 5);
	assert_true(p.max_open >= 3);
	hj_store_close(s);
	hj_table_free(p.t);
}

static void test_rounds_saved_each_block(void **state)
{
	(void)state;
	rounds_round_trip("rounds-each.db", 1);
}

static void test_rounds_saved_each_batch(void **state)
{
	(void)state;
	rounds_round_trip("rounds-batch.db", 0);
}

/* A player whose round settles and who bets again in the same batch: one
 * save sees the old row leave and the new one arrive for that player. */
static void test_rounds_same_player_again(void **state)
{
	const char *path = db_path("again.db");
	hj_store *s = open_ok(path);
	play p;
	char err[HJ_ERRLEN] = "";
	hj_action bet;
	hj_card card = {.rank = 2, .suit = 0};

	(void)state;
	play_init(&p, s, 1);
	memset(&bet, 0, sizeof bet);
	bet.kind = HJ_TX_ACTION;
	bet.act = HJ_BET;
	bet.sender.len = 20;
	bet.sender.b[0] = 9;
	bet.txid.len = 32;
	bet.value = 10;

	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	bet.txid.b[0] = 1;
	assert_int_equal(
	    hj_table_apply_block(p.t, p.height++, &card, &bet, 1, sink, &p), 0);
	assert_int_equal(hj_store_save_rounds(s, p.t, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	check_stored_rounds(s, p.t);

	/* Deal, then stand on timeout until the round settles, then bet
	 * again, all in one transaction with one save at its end. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 40 && hj_table_count(p.t) == 1; i++)
		assert_int_equal(hj_table_apply_block(p.t, p.height++, &card,
		                                      NULL, 0, sink, &p),
		                 0);
	assert_int_equal(hj_table_count(p.t), 0);
	bet.txid.b[0] = 2;
	assert_int_equal(
	    hj_table_apply_block(p.t, p.height++, &card, &bet, 1, sink, &p), 0);
	assert_int_equal(hj_table_count(p.t), 1);
	assert_int_equal(p.failed, 0);
	assert_int_equal(hj_store_save_rounds(s, p.t, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	check_stored_rounds(s, p.t);
	assert_int_equal(hj_table_round(p.t, 0)->id.b[0], 2);
	hj_store_close(s);
	hj_table_free(p.t);
}

/* Applies `SET set_sql` to the second stored round in opening order. */
static void damage_round(const char *path, const char *set_sql)
{
	sqlite3 *db = raw_open(path);
	char sql[512];

	snprintf(sql, sizeof sql,
	         "UPDATE rounds SET %s WHERE id = (SELECT id FROM rounds "
	         "ORDER BY bet_height, bet_tx_index LIMIT 1 OFFSET 1)",
	         set_sql);
	raw_exec(db, sql);
	assert_int_equal(sqlite3_changes(db), 1);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void second_round_hex(const char *path, char hex[65])
{
	sqlite3 *db = raw_open(path);

	raw_text(db,
	         "SELECT lower(hex(id)) FROM rounds ORDER BY bet_height, "
	         "bet_tx_index LIMIT 1 OFFSET 1",
	         hex, 65);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void expect_load_error(const char *path, const char *hex,
                              const char *reason)
{
	hj_store *s = open_ok(path);
	hj_table *t;
	hj_rules r = test_rules();
	char err[HJ_ERRLEN] = "";

	assert_int_equal(hj_table_new(&r, &t), 0);
	assert_int_equal(hj_store_load_rounds(s, t, err, sizeof err), -EINVAL);
	if (strstr(err, hex) == NULL || strstr(err, reason) == NULL)
		fail_msg("expected round %s and \"%s\", got \"%s\"", hex,
		         reason, err);
	hj_table_free(t);
	hj_store_close(s);
}

static void test_corrupted_round_is_an_error(void **state)
{
	const char *path = db_path("corrupt.db");
	hj_store *s = open_ok(path);
	play p;
	char hex[65];
	char *clean;

	(void)state;
	play_init(&p, s, 77);
	while (hj_table_count(p.t) < 3)
		if (play_batch(&p, 5) != 0)
			fail_msg("batch: %s", p.err);
	hj_store_close(s);
	hj_table_free(p.t);
	second_round_hex(path, hex);
	clean = dump_db(path);
	sqlite3 *db = raw_open(path);
	raw_exec(db, "CREATE TABLE keep AS SELECT * FROM rounds");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	static const struct {
		const char *set, *reason;
	} cases[] = {
	    {"data = substr(data, 1, 20)", "truncated"},
	    {"data = CAST(X'03' || substr(data, 2) AS BLOB)",
	     "unsupported version 3"},
	    {"data = CAST(data || X'00' AS BLOB)", "trailing"},
	    {"data = X''", "truncated"},
	    {"data = 'text'", "not a round encoding"},
	    {"data = (SELECT data FROM rounds ORDER BY bet_height LIMIT 1)",
	     "the encoded round has id"},
	    {"player = X'01'", "player column differs"},
	    {"bet_tx_index = bet_tx_index + 100", "bet height or index"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		damage_round(path, cases[i].set);
		expect_load_error(path, hex, cases[i].reason);
		db = raw_open(path);
		raw_exec(db, "DELETE FROM rounds; "
		             "INSERT INTO rounds SELECT * FROM keep");
		assert_int_equal(sqlite3_close(db), SQLITE_OK);
	}
	db = raw_open(path);
	raw_exec(db, "DROP TABLE keep");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	char *restored = dump_db(path);
	assert_string_equal(clean, restored);
	free(clean);
	free(restored);
}

static void test_add_tx(void **state)
{
	const char *path = db_path("tx.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x11, 42), b = simple_tx(0x22, 7);
	hj_id round = {.len = 32};
	char err[HJ_ERRLEN] = "", hex[65], buf[128];
	sqlite3 *db;

	(void)state;
	memset(round.b, 0x11, 32);
	assert_int_equal(
	    hj_store_add_tx(s, 5, &a, "deposit", HJ_OK, NULL, err, sizeof err),
	    -EINVAL);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_add_tx(s, 5, &a, "deposit", HJ_OK, NULL, err, sizeof err),
	    0);
	/* The same txid again, whatever else differs. */
	b.txid = a.txid;
	assert_int_equal(hj_store_add_tx(s, 6, &b, "rejected", HJ_R_PREMATURE,
	                                 NULL, err, sizeof err),
	                 -EEXIST);
	hj_hex_encode(a.txid.b, 32, 0, hex);
	assert_non_null(strstr(err, hex));
	assert_non_null(strstr(err, "already recorded"));
	/* A constraint error leaves the transaction usable. */
	b = simple_tx(0x22, 7);
	b.kind = HJ_TX_ACTION;
	b.act = HJ_HIT;
	assert_int_equal(hj_store_add_tx(s, 6, &b, "rejected", HJ_R_PREMATURE,
	                                 &round, err, sizeof err),
	                 0);
	/* Unknown outcome, reason out of range, empty txid. */
	hj_action c = simple_tx(0x33, 1);
	assert_int_equal(
	    hj_store_add_tx(s, 6, &c, "lost", HJ_OK, NULL, err, sizeof err),
	    -EINVAL);
	assert_int_equal(hj_store_add_tx(s, 6, &c, "rejected", HJ_R_COUNT, NULL,
	                                 err, sizeof err),
	                 -EINVAL);
	c.txid.len = 0;
	assert_int_equal(
	    hj_store_add_tx(s, 6, &c, "deposit", HJ_OK, NULL, err, sizeof err),
	    -EINVAL);
	/* A second transaction at the same place in the same block. */
	c = simple_tx(0x44, 1);
	c.tx_index = b.tx_index;
	assert_int_equal(
	    hj_store_add_tx(s, 6, &c, "deposit", HJ_OK, NULL, err, sizeof err),
	    -EINVAL);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	hj_store_close(s);

	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 2);
	assert_string_equal(
	    raw_text(db,
	             "SELECT height || ' ' || tx_index || ' ' || value || ' ' "
	             "|| outcome || ' ' || ifnull(action, '-') || ' ' || "
	             "ifnull(reason, '-') || ' ' || iif(round IS NULL, '-', "
	             "hex(round)) "
	             "FROM txs ORDER BY height",
	             buf, sizeof buf),
	    "5 17 42 deposit - - -");
	assert_string_equal(
	    raw_text(db,
	             "SELECT height || ' ' || tx_index || ' ' || value || ' ' "
	             "|| outcome || ' ' || ifnull(action, '-') || ' ' || "
	             "ifnull(reason, '-') || ' ' || lower(hex(sender)) "
	             "FROM txs WHERE height = 6",
	             buf, sizeof buf),
	    "6 34 7 rejected Hit premature "
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static hj_payout refund_of(const hj_action *a, const char *id, hj_amount v)
{
	hj_payout p = {.id = id,
	               .kind = "refund",
	               .round = NULL,
	               .hand = -1,
	               .txid = &a->txid,
	               .recipient = &a->sender,
	               .amount = v,
	               .height = 5};
	return p;
}

static void test_add_payout(void **state)
{
	const char *path = db_path("payout.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x11, 42), b = simple_tx(0x12, 42);
	hj_payout p = refund_of(&a, "refund:11", 42);
	uint64_t n;
	hj_amount sum;
	char err[HJ_ERRLEN] = "", buf[256];

	(void)state;
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_tx(s, 5, &a, "rejected", HJ_R_WRONG_VALUE,
	                                 NULL, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_store_add_tx(s, 5, &b, "accepted", HJ_OK, NULL, err, sizeof err),
	    0);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	/* Same id: the same debt can never be recorded twice. */
	p.amount = 1;
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), -EEXIST);
	assert_non_null(strstr(err, "\"refund:11\" already recorded"));

	/* A return: round and hand; insurance: round, no hand. */
	hj_payout r = {.id = "return:12:1",
	               .kind = "return",
	               .round = &b.txid,
	               .hand = 1,
	               .recipient = &b.sender,
	               .amount = 20,
	               .height = 9};
	assert_int_equal(hj_store_add_payout(s, &r, err, sizeof err), 0);
	hj_payout ins = r;
	ins.id = "insurance:12";
	ins.kind = "insurance";
	ins.hand = -1;
	ins.amount = 15;
	assert_int_equal(hj_store_add_payout(s, &ins, err, sizeof err), 0);

	/* Shapes that are refused before SQL. */
	hj_payout bad = r;
	bad.id = "return:12:2";
	bad.kind = "bonus";
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	bad = r;
	bad.id = "refund:12:2"; /* id of another kind */
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	bad = r;
	bad.id = "return:12:3";
	bad.hand = -1;
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	bad = r;
	bad.id = "return:12:4";
	bad.amount = 0;
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	assert_non_null(strstr(err, "nothing is owed"));
	bad = r;
	bad.id = "return:AB:1";
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);

	/* A sweep: the cold address, no round, hand or transaction; the
	 * newest one's block found by its id's range. */
	uint64_t last = 99;
	int found = 1;
	assert_int_equal(hj_store_last_sweep(s, &last, &found, err, sizeof err),
	                 0);
	assert_false(found);
	hj_payout sw = {.id = "sweep:30",
	                .kind = "sweep",
	                .hand = -1,
	                .recipient = &b.sender,
	                .amount = 7,
	                .height = 30};
	bad = sw;
	bad.round = &b.txid;
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	assert_non_null(strstr(err, "a sweep names its recipient"));
	bad = sw;
	bad.recipient = NULL;
	assert_int_equal(hj_store_add_payout(s, &bad, err, sizeof err),
	                 -EINVAL);
	assert_int_equal(hj_store_add_payout(s, &sw, err, sizeof err), 0);
	sw.id = "sweep:4";
	sw.height = 4;
	assert_int_equal(hj_store_add_payout(s, &sw, err, sizeof err), 0);
	assert_int_equal(hj_store_last_sweep(s, &last, &found, err, sizeof err),
	                 0);
	assert_true(found);
	assert_int_equal(last, 30);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);

	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 5);
	assert_true(sum == 42 + 20 + 15 + 7 + 7);
	hj_store_close(s);

	sqlite3 *db = raw_open(path);
	assert_string_equal(
	    raw_text(
	        db,
	        "SELECT group_concat(id || ' ' || kind || ' ' || "
	        "ifnull(hand, '-') || ' ' || amount || ' ' || state || ' ' "
	        "|| created_height || ' ' || ifnull(submitted_txid, '-') "
	        "|| ifnull(nonce, '-') || ifnull(confirmed_height, '-'), "
	        "'; ') FROM (SELECT * FROM payouts ORDER BY id)",
	        buf, sizeof buf),
	    "insurance:12 insurance - 15 owed 9 ---; "
	    "refund:11 refund - 42 owed 5 ---; "
	    "return:12:1 return 1 20 owed 9 ---; "
	    "sweep:30 sweep - 7 owed 30 ---; sweep:4 sweep - 7 owed 4 ---");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void test_payout_needs_recorded_tx(void **state)
{
	const char *path = db_path("fk.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x11, 42);
	hj_payout p = refund_of(&a, "refund:11", 42);
	uint64_t n = 99;
	hj_amount sum = 99;
	char err[HJ_ERRLEN] = "";

	(void)state;
	/* The refund names a transaction nobody recorded: the commit is
	 * refused and the whole transaction is gone. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "not recorded"));
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 0);
	assert_true(sum == 0);
	/* Recorded in the same transaction, in either order: fine. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	assert_int_equal(hj_store_add_tx(s, 5, &a, "rejected", HJ_R_WRONG_VALUE,
	                                 NULL, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 1);
	hj_store_close(s);
}

static void test_amounts_full_range(void **state)
{
	const char *path = db_path("amount.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x11, HJ_AMOUNT_MAX);
	hj_action b = simple_tx(0x12, (hj_amount)1 << 64);
	hj_payout p = refund_of(&a, "refund:11", HJ_AMOUNT_MAX);
	hj_payout q = refund_of(&b, "refund:12", 1);
	uint64_t n;
	hj_amount sum;
	char err[HJ_ERRLEN] = "", buf[128];
	sqlite3 *db;

	(void)state;
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_tx(s, 5, &a, "rejected", HJ_R_BET_LIMITS,
	                                 NULL, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_add_tx(s, 5, &b, "rejected", HJ_R_BET_LIMITS,
	                                 NULL, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 1);
	assert_true(sum == HJ_AMOUNT_MAX);

	db = raw_open(path);
	assert_string_equal(raw_text(db,
	                             "SELECT value FROM txs WHERE tx_index "
	                             "= 17",
	                             buf, sizeof buf),
	                    MAX_DEC);
	assert_string_equal(raw_text(db,
	                             "SELECT value FROM txs WHERE tx_index "
	                             "= 18",
	                             buf, sizeof buf),
	                    "18446744073709551616");
	assert_string_equal(
	    raw_text(db, "SELECT amount FROM payouts", buf, sizeof buf),
	    MAX_DEC);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	/* A sum above 2^128-1 is an error, not a wrapped number. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_payout(s, &q, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), -ERANGE);
	hj_store_close(s);

	/* The schema refuses non-canonical amounts... */
	db = raw_open(path);
	assert_int_not_equal(sqlite3_exec(db,
	                                  "UPDATE payouts SET amount = '007' "
	                                  "WHERE id = 'refund:12'",
	                                  NULL, NULL, NULL),
	                     SQLITE_OK);
	/* ...and one slipped past it is named when read. */
	raw_exec(db, "PRAGMA ignore_check_constraints = 1; UPDATE payouts SET "
	             "amount = '1e3' WHERE id = 'refund:12'");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	s = open_ok(path);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "\"refund:12\""));
	hj_store_close(s);
}

static void test_owed_counts_only_owed(void **state)
{
	const char *path = db_path("owed.db");
	hj_store *s = open_ok(path);
	hj_action tx[5];
	char id[32], err[HJ_ERRLEN] = "";
	uint64_t n;
	hj_amount sum, want = 0;

	(void)state;
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 0);
	assert_true(sum == 0);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 5; i++) {
		hj_amount v = ((hj_amount)1 << (100 + i)) + (hj_amount)i;
		tx[i] = simple_tx((uint8_t)(0x20 + i), v);
		snprintf(id, sizeof id, "refund:%02x", 0x20 + i);
		hj_payout p = refund_of(&tx[i], id, v);
		assert_int_equal(hj_store_add_tx(s, 5, &tx[i], "rejected",
		                                 HJ_R_NO_ROUND, NULL, err,
		                                 sizeof err),
		                 0);
		assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err),
		                 0);
		if (i != 2)
			want += v;
	}
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	hj_store_close(s);

	sqlite3 *db = raw_open(path);
	raw_exec(db, "UPDATE payouts SET state = 'submitted' WHERE id = "
	             "'refund:22'");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	s = open_ok(path);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 4);
	assert_true(sum == want);
	hj_store_close(s);
}

static void test_rollback_discards_everything(void **state)
{
	const char *path = db_path("rollback.db");
	hj_store *s = open_ok(path);
	play p;
	hj_cursor c;
	uint64_t n;
	hj_amount sum;
	char err[HJ_ERRLEN] = "";
	char *before, *after;

	(void)state;
	play_init(&p, s, 4242);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 60; i++)
		play_block(&p);
	assert_int_equal(p.failed, 0);
	assert_true(p.bets > 0 && p.refunds > 0 && p.settles > 0);
	hj_store_rollback(s);
	hj_store_rollback(s); /* harmless when none is open */
	assert_int_equal(hj_store_get_cursor(s, &c, err, sizeof err), -ENOENT);
	assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err), 0);
	assert_int_equal(n, 0);
	hj_table *t;
	assert_int_equal(hj_table_new(hj_table_rules(p.t), &t), 0);
	assert_int_equal(hj_store_load_rounds(s, t, err, sizeof err), 0);
	assert_int_equal(hj_table_count(t), 0);
	hj_table_free(t);
	hj_store_close(s);

	/* Closing with a transaction open rolls it back too. */
	before = dump_db(path);
	s = open_ok(path);
	p.s = s;
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	play_block(&p);
	assert_int_equal(p.failed, 0);
	hj_store_close(s);
	after = dump_db(path);
	assert_string_equal(before, after);
	assert_non_null(strstr(after, "SELECT * FROM txs ORDER BY height, "
	                              "tx_index\nSELECT"));
	free(before);
	free(after);
	hj_table_free(p.t);
}

/* Child side of the crash tests: plays `committed` batches of 10 blocks,
 * then a batch it never commits; tells the parent through fd when that
 * batch is written, then either _exit()s or waits to be killed.  Exit
 * status 0 only if every write succeeded. */
static void crash_child(const char *path, uint64_t seed, int committed, int fd,
                        int wait_for_kill)
{
	hj_store *s = NULL;
	play p;
	char err[HJ_ERRLEN];

	if (hj_store_open(path, &s, err, sizeof err) ||
	    hj_store_check_meta(s, &META, err, sizeof err))
		_exit(2);
	play_init(&p, s, seed);
	for (int b = 0; b < committed; b++)
		if (play_batch(&p, 10))
			_exit(3);
	if (hj_store_begin(s, err, sizeof err))
		_exit(4);
	for (int i = 0; i < 40; i++)
		play_block(&p);
	if (p.failed || hj_store_save_rounds(s, p.t, err, sizeof err))
		_exit(5);
	if (write(fd, "w", 1) != 1)
		_exit(6);
	if (wait_for_kill)
		for (;;)
			pause();
	_exit(0); /* no commit, no close: like a crash */
}

/* The database an uninterrupted run leaves after `committed` batches. */
static char *reference(const char *path, uint64_t seed, int committed)
{
	hj_store *s = open_ok(path);
	play p;

	play_init(&p, s, seed);
	for (int b = 0; b < committed; b++)
		if (play_batch(&p, 10))
			fail_msg("batch: %s", p.err);
	hj_store_close(s);
	hj_table_free(p.t);
	return dump_db(path);
}

static void crash_and_compare(const char *name, int committed,
                              int wait_for_kill)
{
	char ref_name[64];
	const char *path = db_path(name);
	uint64_t seed = 0xc0ffee + (uint64_t)committed;
	int fds[2], status;
	char byte;
	pid_t pid;
	char *want, *got;

	snprintf(ref_name, sizeof ref_name, "ref-%s", name);
	want = reference(db_path(ref_name), seed, committed);

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		crash_child(path, seed, committed, fds[1], wait_for_kill);
	}
	close(fds[1]);
	/* The child says when its uncommitted batch is written; a child that
	 * failed closes the pipe without a byte. */
	assert_int_equal(read(fds[0], &byte, 1), 1);
	if (wait_for_kill)
		assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fds[0]);
	if (wait_for_kill) {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGKILL);
	} else {
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	/* The uncommitted batch left no trace: the state is exactly that of
	 * the run that stopped after its committed batches. */
	hj_store *s = open_ok(path);
	hj_cursor c;
	char err[HJ_ERRLEN];
	int rc = hj_store_get_cursor(s, &c, err, sizeof err);
	if (committed == 0) {
		assert_int_equal(rc, -ENOENT);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(c.height, 1000 + 10 * (uint64_t)committed - 1);
	}
	hj_store_close(s);
	got = dump_db(path);
	assert_string_equal(got, want);
	free(want);
	free(got);
}

static void test_crash_exit_without_commit(void **state)
{
	(void)state;
	crash_and_compare("crash-exit.db", 0, 0);
}

static void test_crash_killed_mid_batch(void **state)
{
	(void)state;
	crash_and_compare("crash-kill.db", 3, 1);
}

static void test_not_a_database(void **state)
{
	const char *path = db_path("text.db");
	char text[4096], back[4096], err[HJ_ERRLEN] = "";
	hj_store *s = (hj_store *)&s;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = "this is a card log, not a database\n"[i % 35];
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, sizeof text, f), sizeof text);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(hj_store_open(path, &s, err, sizeof err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err, "not an SQLite database"));
	assert_non_null(strstr(err, path));
	/* Untouched. */
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(back, 1, sizeof back, f), sizeof back);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	assert_memory_equal(text, back, sizeof text);

	/* A directory cannot be opened. */
	assert_int_equal(hj_store_open(tmpdir, &s, err, sizeof err), -EIO);
	assert_non_null(strstr(err, "cannot open"));
}

static void test_foreign_or_newer_database(void **state)
{
	const char *other = db_path("other.db"), *newer = db_path("newer.db");
	hj_store *s = NULL;
	char err[HJ_ERRLEN] = "";
	sqlite3 *db;

	(void)state;
	db = raw_open(other);
	raw_exec(db, "CREATE TABLE notes (t TEXT)");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(hj_store_open(other, &s, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "not hashjackd's"));
	assert_null(s);

	/* Ours, written by a later version. */
	hj_store_close(open_ok(newer));
	db = raw_open(newer);
	raw_exec(db, "PRAGMA user_version = 8");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(hj_store_open(newer, &s, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "schema version 8"));
	assert_non_null(strstr(err, "newer"));
	assert_null(s);
}

/* A reader (the operator's sqlite3 shell) does not block the writer, and
 * sees only committed batches. */
static void test_reader_sees_committed_only(void **state)
{
	const char *path = db_path("reader.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x11, 1), b = simple_tx(0x12, 2);
	char err[HJ_ERRLEN] = "";
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_add_tx(s, 1, &a, "deposit", HJ_OK, NULL, err, sizeof err),
	    0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 1);
	/* A read transaction held open does not stop the next commit. */
	raw_exec(db, "BEGIN");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 1);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_add_tx(s, 2, &b, "deposit", HJ_OK, NULL, err, sizeof err),
	    0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 1);
	raw_exec(db, "COMMIT");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 2);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	hj_store_close(s);
}

/* ---- settlement ---- */

/* Three txs and four payouts: refunds to 0xaa.. (two), one unattributed,
 * a return to 0xbb..; amounts 100, 200, 300, 4000 at heights 5, 5, 6, 7. */
static void settle_fixture(hj_store *s)
{
	hj_action a = simple_tx(0x31, 100), b = simple_tx(0x32, 200),
	          c = simple_tx(0x33, 300), d = simple_tx(0x34, 1);
	hj_id bb = {.len = 32};
	char err[HJ_ERRLEN] = "";

	memset(bb.b, 0xbb, 32);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	hj_action *all[4] = {&a, &b, &c, &d};
	for (int i = 0; i < 4; i++)
		assert_int_equal(hj_store_add_tx(s, 5, all[i], "rejected",
		                                 HJ_R_NO_ROUND, NULL, err,
		                                 sizeof err),
		                 0);
	hj_payout p = refund_of(&a, "refund:31", 100);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	p = refund_of(&b, "refund:32", 200);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	p = refund_of(&c, "refund:33", 300);
	p.recipient = NULL;
	p.height = 6;
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	hj_payout r = {.id = "return:34:0",
	               .kind = "return",
	               .round = &d.txid,
	               .hand = 0,
	               .recipient = &bb,
	               .amount = 4000,
	               .height = 7};
	assert_int_equal(hj_store_add_payout(s, &r, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
}

struct seen {
	unsigned n;
	char ids[8][32];
	int unattributed[8];
	hj_amount amount[8];
	uint64_t height[8];
	int stop_at; /* return 7 at this call (from 1), 0 never */
};

static int see(void *arg, const hj_owed_payout *p)
{
	struct seen *v = arg;

	assert_true(v->n < 8);
	snprintf(v->ids[v->n], sizeof v->ids[0], "%s", p->id);
	v->unattributed[v->n] = p->recipient.len == 0;
	v->amount[v->n] = p->amount;
	v->height[v->n] = p->height;
	v->n++;
	return (int)v->n == v->stop_at ? 7 : 0;
}

static const char *ids_of(const struct seen *v, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < v->n && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? " " : "",
		                      v->ids[i]);
	return buf;
}

static void unbatched(hj_store *s, const char *want)
{
	struct seen v = {0};
	char err[HJ_ERRLEN] = "", buf[256];

	assert_int_equal(hj_store_each_unbatched(s, see, &v, err, sizeof err),
	                 0);
	assert_string_equal(ids_of(&v, buf, sizeof buf), want);
}

static void totals(hj_store *s, uint64_t owed_n, hj_amount owed,
                   uint64_t unattr_n, uint64_t planned_n, hj_amount planned,
                   uint64_t sub_n, hj_amount sub)
{
	hj_settle_totals t;
	char err[HJ_ERRLEN] = "";

	assert_int_equal(hj_store_settle_totals(s, &t, err, sizeof err), 0);
	assert_int_equal(t.owed_n, owed_n);
	assert_true(t.owed == owed);
	assert_int_equal(t.unattributed_n, unattr_n);
	assert_int_equal(t.planned_n, planned_n);
	assert_true(t.planned == planned);
	assert_int_equal(t.submitted_n, sub_n);
	assert_true(t.submitted == sub);
}

static int collect_out(void *arg, const char *address, hj_amount amount)
{
	char *buf = arg, a[HJ_AMOUNT_STRLEN];
	size_t o = strlen(buf);

	snprintf(buf + o, 256 - o, "%s%s=%s", o ? " " : "", address,
	         hj_amount_format(amount, a));
	return 0;
}

static int64_t plan(hj_store *s, const hj_batch_output *outs, size_t nouts,
                    const char *const *ids, size_t nids, int want)
{
	hj_batch_plan pl = {.height = 9,
	                    .now = 1700000000,
	                    .outs = outs,
	                    .nouts = nouts,
	                    .payouts = ids,
	                    .npayouts = nids};
	int64_t id = -1;
	char err[HJ_ERRLEN] = "";
	int rc;

	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	rc = hj_store_plan_batch(s, &pl, &id, err, sizeof err);
	if (rc != want)
		fail_msg("plan: %d, want %d: %s", rc, want, err);
	if (rc == 0) {
		assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	} else {
		hj_store_rollback(s);
		id = -1;
	}
	return id;
}

static const char *col(sqlite3 *db, const char *sql, char *buf)
{
	return raw_text(db, sql, buf, 512);
}

static void test_settlement_lifecycle(void **state)
{
	const char *path = db_path("settle.db");
	hj_store *s = open_ok(path);
	hj_batch_output outs[2] = {{"tr-aa", 300}, {"tr-bb", 4000}};
	const char *ids[3] = {"refund:31", "refund:32", "return:34:0"};
	uint8_t txid[32], txid2[32];
	hj_batch b[4];
	size_t n = 9;
	int64_t id, id2;
	char err[HJ_ERRLEN] = "", buf[512], tag[17];
	struct seen v = {.stop_at = 2};
	sqlite3 *db;

	(void)state;
	memset(txid, 0x5e, 32);
	memset(txid2, 0x5f, 32);
	settle_fixture(s);
	assert_int_equal(hj_store_payer_tag(s, tag, err, sizeof err), 0);
	assert_int_equal(strlen(tag), 16);

	/* Oldest first; the walk stops when the callback says so. */
	unbatched(s, "refund:31 refund:32 refund:33 return:34:0");
	assert_int_equal(hj_store_each_unbatched(s, see, &v, err, sizeof err),
	                 7);
	assert_int_equal(v.n, 2);
	assert_true(v.amount[1] == 200 && v.height[1] == 5);
	v = (struct seen){0};
	assert_int_equal(hj_store_each_unbatched(s, see, &v, err, sizeof err),
	                 0);
	assert_int_equal(v.unattributed[2], 1);
	assert_int_equal(v.unattributed[3], 0);
	totals(s, 4, 4600, 1, 0, 0, 0, 0);

	/* Refused plans write nothing: outputs that do not add up to the
	 * payouts, a payout given twice, an unknown or unowed payout, an
	 * address twice, outside a transaction. */
	plan(s, outs, 1, ids, 3, -EINVAL);
	const char *twice[2] = {"refund:31", "refund:31"};
	hj_batch_output one = {"tr-aa", 200};
	plan(s, &one, 1, twice, 2, -EINVAL);
	const char *unknown[1] = {"refund:99"};
	one.amount = 1;
	plan(s, &one, 1, unknown, 1, -EINVAL);
	hj_batch_output same[2] = {{"tr-aa", 100}, {"tr-aa", 200}};
	plan(s, same, 2, ids, 2, -EEXIST);
	hj_batch_plan pl = {
	    .outs = outs, .nouts = 2, .payouts = ids, .npayouts = 3};
	assert_int_equal(hj_store_plan_batch(s, &pl, &id, err, sizeof err),
	                 -EINVAL);
	assert_non_null(strstr(err, "outside a transaction"));
	unbatched(s, "refund:31 refund:32 refund:33 return:34:0");

	/* Planned: the payouts stay owed, out of the free list. */
	id = plan(s, outs, 2, ids, 3, 0);
	assert_int_equal(id, 1);
	unbatched(s, "refund:33");
	totals(s, 4, 4600, 1, 3, 4300, 0, 0);
	/* One planned batch at a time. */
	const char *ids33[1] = {"refund:33"};
	one.amount = 300;
	plan(s, &one, 1, ids33, 1, -EEXIST);
	buf[0] = '\0';
	assert_int_equal(
	    hj_store_batch_outputs(s, id, collect_out, buf, err, sizeof err),
	    0);
	assert_string_equal(buf, "tr-aa=300 tr-bb=4000");
	assert_int_equal(hj_store_open_batches(s, 0, b, 4, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].id, 1);
	assert_int_equal(b[0].sent, 0);
	assert_int_equal(b[0].created_height, 9);
	assert_int_equal(b[0].created_at, 1700000000);
	assert_int_equal(b[0].outputs, 2);
	assert_true(b[0].total == 4300);

	/* An unknown outcome: still planned, the error kept. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_batch_failed(s, id, "timeout", 0, err, sizeof err), 0);
	/* Only a sent batch can confirm. */
	assert_int_equal(hj_store_batch_confirmed(s, id, 10, err, sizeof err),
	                 -EINVAL);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_int_equal(hj_store_open_batches(s, 0, b, 4, &n, err, sizeof err),
	                 0);
	assert_int_equal(b[0].attempts, 1);
	unbatched(s, "refund:33");

	/* Sent: submitted with the txid, height and time. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_batch_sent(s, id, txid, 11, 1700000100, err, sizeof err),
	    0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	totals(s, 1, 300, 1, 0, 0, 3, 4300);
	assert_int_equal(hj_store_open_batches(s, 0, b, 4, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].sent, 1);
	assert_int_equal(b[0].sent_height, 11);
	assert_memory_equal(b[0].txid, txid, 32);
	db = raw_open(path);
	assert_string_equal(
	    col(db,
	        "SELECT group_concat(id || ' ' || state || ' ' || "
	        "lower(hex(submitted_txid)) || ' ' || submitted_height || ' ' "
	        "|| submitted_at || ' ' || ifnull(last_error, '-'), '; ') FROM "
	        "(SELECT * FROM payouts WHERE state = 'submitted' ORDER BY id)",
	        buf),
	    "refund:31 submitted "
	    "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e "
	    "11 1700000100 -; "
	    "refund:32 submitted "
	    "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e "
	    "11 1700000100 -; "
	    "return:34:0 submitted "
	    "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e "
	    "11 1700000100 -");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	/* Sent twice is refused; replaced (bumpfee), then confirmed. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_batch_sent(s, id, txid, 11, 1700000100, err, sizeof err),
	    -EINVAL);
	assert_int_equal(hj_store_batch_retxid(s, id, txid2, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_batch_confirmed(s, id, 12, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	totals(s, 1, 300, 1, 0, 0, 0, 0);
	assert_int_equal(hj_store_open_batches(s, 0, b, 4, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 0);
	db = raw_open(path);
	assert_string_equal(
	    col(db,
	        "SELECT group_concat(id || ' ' || state || ' ' || "
	        "substr(lower(hex(submitted_txid)), 1, 4) || ' ' || "
	        "confirmed_height, '; ') FROM (SELECT * FROM payouts WHERE "
	        "state = 'confirmed' ORDER BY id)",
	        buf),
	    "refund:31 confirmed 5f5f 12; refund:32 confirmed 5f5f 12; "
	    "return:34:0 confirmed 5f5f 12");
	assert_string_equal(
	    col(db,
	        "SELECT id || ' ' || state || ' ' || outputs || ' ' || total "
	        "|| ' ' || attempts || ' ' || confirmed_height || ' ' || "
	        "substr(lower(hex(txid)), 1, 4) FROM payout_batches",
	        buf),
	    "1 confirmed 2 4300 1 12 5f5f");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	/* A confirmed payout is never planned again. */
	one.amount = 100;
	plan(s, &one, 1, ids, 1, -EINVAL);

	/* Refused: the payout is free again, with the node's message. */
	one.amount = 300;
	id2 = plan(s, &one, 1, ids33, 1, 0);
	assert_int_equal(id2, 2);
	unbatched(s, "");
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_batch_failed(s, id2, "Insufficient funds", 1,
	                                       err, sizeof err),
	                 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	unbatched(s, "refund:33");
	totals(s, 1, 300, 1, 0, 0, 0, 0);

	/* Planned again (a new number), sent, then reverted: owed again,
	 * its submitted columns cleared, the reason kept. */
	id2 = plan(s, &one, 1, ids33, 1, 0);
	assert_int_equal(id2, 3);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(
	    hj_store_batch_sent(s, id2, txid, 13, 1700000200, err, sizeof err),
	    0);
	assert_int_equal(
	    hj_store_batch_reverted(s, id2, "conflicted", err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	unbatched(s, "refund:33");
	db = raw_open(path);
	assert_string_equal(
	    col(db,
	        "SELECT state || ' ' || ifnull(submitted_txid, '-') || ' ' || "
	        "ifnull(submitted_height, '-') || ' ' || last_error FROM "
	        "payouts WHERE id = 'refund:33'",
	        buf),
	    "owed - - conflicted");
	assert_string_equal(
	    col(db,
	        "SELECT group_concat(id || ' ' || state || ' ' || "
	        "ifnull(last_error, '-'), '; ') FROM (SELECT * FROM "
	        "payout_batches ORDER BY id)",
	        buf),
	    "1 confirmed -; 2 refused Insufficient funds; 3 reverted "
	    "conflicted");
	assert_string_equal(
	    col(db,
	        "SELECT group_concat(batch || ':' || payout, ' ') FROM (SELECT "
	        "* FROM payout_batch_items ORDER BY batch, payout)",
	        buf),
	    "1:refund:31 1:refund:32 1:return:34:0 2:refund:33 3:refund:33");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	hj_store_close(s);
}

/* A version 1 database (before settlement) gets the new tables at open,
 * its rows untouched. */
struct versions {
	unsigned n, seq[4];
	uint8_t first[4];
	size_t len[4];
};

static int see_version(void *arg, const hj_tx_version *v)
{
	struct versions *w = arg;

	if (w->n < 4) {
		w->seq[w->n] = v->seq;
		w->first[w->n] = v->hash[0];
		w->len[w->n] = v->raw_len;
	}
	w->n++;
	return 0;
}

/* Runs one write in its own transaction and expects want. */
#define WRITE(s, want, call)                                                   \
	do {                                                                   \
		char e_[HJ_ERRLEN] = "";                                       \
		int rc_;                                                       \
		assert_int_equal(hj_store_begin(s, e_, sizeof e_), 0);         \
		rc_ = (call);                                                  \
		if (rc_ != (want))                                             \
			fail_msg("%s: %d, want %d: %s", #call, rc_, (want),    \
			         e_);                                          \
		if (rc_ == 0)                                                  \
			assert_int_equal(hj_store_commit(s, e_, sizeof e_),    \
			                 0);                                   \
		else                                                           \
			hj_store_rollback(s);                                  \
	} while (0)

/* An EVM transaction's plan: one output, nonce 7, gas limit 21000,
 * planned at block 9, with its first signed version v (raw's 3 bytes,
 * fees 20 and 1; the caller sets its hash). */
static void evm_plan(hj_tx_version *v, hj_batch_plan *pl, const uint8_t *raw,
                     const hj_batch_output *out, const char *const *ids,
                     size_t nids)
{
	*v = (hj_tx_version){.raw = raw,
	                     .raw_len = 3,
	                     .max_fee = 20,
	                     .priority_fee = 1,
	                     .signed_at = 1700000001};
	*pl = (hj_batch_plan){.height = 9,
	                      .now = 1700000000,
	                      .outs = out,
	                      .nouts = 1,
	                      .payouts = ids,
	                      .npayouts = nids,
	                      .version = v,
	                      .nonce = 7,
	                      .gas_limit = 21000};
}

/* EVM: a batch is one transaction with a nonce and its signed versions;
 * nonces are never reused; the payouts carry the nonce once submitted and
 * lose it when reverted; the cost is kept once confirmed. */
static void test_evm_transactions(void **state)
{
	const char *path = db_path("evm.db");
	hj_store *s = open_ok(path);
	hj_batch_output out = {"0xaa", 300}, out2 = {"0xbb", 4000};
	const char *ids[2] = {"refund:31", "refund:32"};
	const char *ids2[1] = {"return:34:0"};
	uint8_t raw[3] = {2, 1, 0}, hash[32];
	hj_tx_version v;
	hj_batch_plan pl;
	struct versions w = {0};
	hj_batch b[2];
	size_t n = 0;
	uint64_t next = 99;
	int64_t id = 0, id2 = 0;
	char err[HJ_ERRLEN] = "";
	sqlite3 *db;

	(void)state;
	evm_plan(&v, &pl, raw, &out, ids, 2);
	settle_fixture(s);
	memset(v.hash, 0x71, 32);
	assert_int_equal(hj_store_next_nonce(s, &next, err, sizeof err), 0);
	assert_int_equal(next, 0);
	/* Two outputs, or no gas limit: refused. */
	hj_batch_output two[2] = {{"0xaa", 100}, {"0xbb", 200}};
	pl.outs = two;
	pl.nouts = 2;
	WRITE(s, -EINVAL, hj_store_plan_batch(s, &pl, &id, e_, sizeof e_));
	pl.outs = &out;
	pl.nouts = 1;
	pl.gas_limit = 0;
	WRITE(s, -EINVAL, hj_store_plan_batch(s, &pl, &id, e_, sizeof e_));
	pl.gas_limit = 21000;
	WRITE(s, 0, hj_store_plan_batch(s, &pl, &id, e_, sizeof e_));
	assert_int_equal(hj_store_next_nonce(s, &next, err, sizeof err), 0);
	assert_int_equal(next, 8);
	assert_int_equal(hj_store_open_batches(s, 0, b, 2, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].nonce, 7);
	assert_int_equal(b[0].gas_limit, 21000);
	assert_int_equal(b[0].sent, 0);

	/* A second version: newest first.  A hash already recorded is
	 * refused. */
	memset(v.hash, 0x72, 32);
	v.raw_len = 2;
	WRITE(s, 0, hj_store_add_version(s, id, &v, e_, sizeof e_));
	WRITE(s, -EINVAL, hj_store_add_version(s, id, &v, e_, sizeof e_));
	assert_int_equal(
	    hj_store_each_version(s, id, see_version, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.seq[0], 2);
	assert_int_equal(w.first[0], 0x72);
	assert_int_equal(w.len[0], 2);
	assert_int_equal(w.seq[1], 1);
	assert_int_equal(w.first[1], 0x71);

	/* The same nonce again is refused even once nothing is planned. */
	memset(hash, 0x72, 32);
	WRITE(s, 0,
	      hj_store_batch_sent(s, id, hash, 10, 1700000002, e_, sizeof e_));
	memset(v.hash, 0x73, 32);
	pl.outs = &out2;
	pl.payouts = ids2;
	pl.npayouts = 1;
	WRITE(s, -EEXIST, hj_store_plan_batch(s, &pl, &id2, e_, sizeof e_));
	pl.nonce = 8;
	WRITE(s, 0, hj_store_plan_batch(s, &pl, &id2, e_, sizeof e_));

	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE "
	                             "state = 'submitted' AND nonce = 7"),
	                 2);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	/* Cost only once confirmed; a version to a closed batch refused. */
	WRITE(s, -EINVAL,
	      hj_store_batch_cost(s, id, 21000, 420000, e_, sizeof e_));
	WRITE(s, 0, hj_store_batch_confirmed(s, id, 12, e_, sizeof e_));
	WRITE(s, 0, hj_store_batch_cost(s, id, 21000, 420000, e_, sizeof e_));
	memset(v.hash, 0x74, 32);
	WRITE(s, -EINVAL, hj_store_add_version(s, id, &v, e_, sizeof e_));

	/* Reverted: owed again, no nonce. */
	memset(hash, 0x73, 32);
	WRITE(s, 0,
	      hj_store_batch_sent(s, id2, hash, 13, 1700000003, e_, sizeof e_));
	WRITE(s, 0,
	      hj_store_batch_reverted(s, id2, "nonce 8 used elsewhere", e_,
	                              sizeof e_));
	WRITE(s, 0,
	      hj_store_set_balance(s, 123456, 14, 1700000004, "LOW", e_,
	                           sizeof e_));
	WRITE(s, 0,
	      hj_store_set_balance(s, 5, 15, 1700000005, NULL, e_, sizeof e_));
	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE "
	                             "state = 'confirmed' AND nonce = 7"),
	                 2);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE id "
	                             "= 'return:34:0' AND state = 'owed' AND "
	                             "nonce IS NULL"),
	                 1);
	assert_int_equal(raw_int(db, "SELECT gas_used FROM payout_batches "
	                             "WHERE nonce = 7"),
	                 21000);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM dealer_balance "
	                             "WHERE amount = '5' AND height = 15 AND "
	                             "warning IS NULL"),
	                 1);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(hj_store_next_nonce(s, &next, err, sizeof err), 0);
	assert_int_equal(next, 9);
	hj_store_close(s);
}

/* The planned batch is found wherever it stands: after sent ones still
 * waiting for their confirmations. */
static void test_planned_after_sent(void **state)
{
	const char *path = db_path("planned.db");
	hj_store *s = open_ok(path);
	hj_batch_output a = {"tr-aa", 100}, b = {"tr-bb", 200};
	const char *ia[1] = {"refund:31"}, *ib[1] = {"refund:32"};
	uint8_t txid[32];
	hj_batch got;
	int64_t first, second;
	int found = 7;
	char err[HJ_ERRLEN] = "";

	(void)state;
	memset(txid, 0x5e, 32);
	settle_fixture(s);
	assert_int_equal(
	    hj_store_planned_batch(s, &got, &found, err, sizeof err), 0);
	assert_int_equal(found, 0);
	first = plan(s, &a, 1, ia, 1, 0);
	WRITE(
	    s, 0,
	    hj_store_batch_sent(s, first, txid, 10, 1700000002, e_, sizeof e_));
	second = plan(s, &b, 1, ib, 1, 0);
	assert_int_equal(
	    hj_store_planned_batch(s, &got, &found, err, sizeof err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(got.id, second);
	assert_int_equal(got.sent, 0);
	assert_true(got.total == 200);
	hj_store_close(s);
}

/* A file at path with settle_fixture's rows, made older by sql (run
 * outside the store); returns its rows, dump_db's. */
/* Whether the database's rows are want's (dump_db), freeing its dump. */
static int dump_is(const char *path, const char *want)
{
	char *d = dump_db(path);
	int same = strcmp(d, want) == 0;

	free(d);
	return same;
}

/* A rewind (hj_store_rewind) takes the database back to the state after
 * the boundary block, row for row, whatever the batches after it did;
 * dealing the same blocks again then gives the same rows as before. */
static void rewind_case(const char *name, int per_batch)
{
	const char *path = db_path(name);
	hj_store *s = open_ok(path);
	char err[HJ_ERRLEN] = "", *at[15] = {0}, *end, *again;
	uint64_t rng[15], seq[15], boundary[15], fork;
	int first;
	hj_rewind w;
	play p;

	play_init(&p, s, 0x4e71d);
	/* 1: a batch a block, as when following the tip; else a catch-up's
	 * batches of per_batch blocks, the rounds saved once a batch. */
	p.save_each_block = per_batch == 1;
	/* 14 batches; each boundary's rows, and what plays the next batch. */
	for (int b = 0; b <= 14; b++) {
		if (b > 0)
			assert_int_equal(play_batch(&p, per_batch), 0);
		at[b] = dump_db(path);
		boundary[b] = p.height - 1;
		rng[b] = p.rng;
		seq[b] = p.txseq;
	}
	assert_true(p.settles > 0 && p.refunds > 0 && p.bets > 0);
	end = at[14];
	/* The fork point: the boundary after batch 6, or, with batches of
	 * several blocks, the first block of batch 7: either way the rewind
	 * goes back to that boundary. */
	first = 6;
	fork = boundary[first] + (per_batch > 1);

	/* Nothing changes until told: the point says where it would go. */
	assert_int_equal(hj_store_rewind_point(s, fork, &w, err, sizeof err),
	                 0);
	assert_int_equal(w.to.height, boundary[first]);
	assert_int_equal(w.from.height, p.height - 1);
	assert_true(dump_is(path, end));
	assert_int_equal(hj_store_rewind(s, fork, &w, err, sizeof err), 0);
	assert_true(w.rounds > 0 && w.txs > 0 && w.dropped > 0);
	assert_int_equal(w.orphaned, 0);
	assert_true(dump_is(path, at[first]));

	/* The same blocks again: the same rows as before the rewind. */
	reload(&p);
	assert_int_equal(p.height, boundary[first] + 1);
	p.rng = rng[first];
	p.txseq = (uint32_t)seq[first];
	for (int b = first; b < 14; b++)
		assert_int_equal(play_batch(&p, per_batch), 0);
	again = dump_db(path);
	assert_string_equal(again, end);

	/* Nothing to rewind at the cursor; an undo pruned below the fork
	 * point is refused with how far it goes. */
	assert_int_equal(hj_store_rewind(s, p.height - 1, &w, err, sizeof err),
	                 -ENOENT);
	hj_store_set_rewind_blocks(s, 5);
	for (int b = 0; b < 20; b++)
		assert_int_equal(play_batch(&p, per_batch), 0);
	assert_int_equal(hj_store_rewind_point(s, fork, &w, err, sizeof err),
	                 -ERANGE);
	assert_non_null(strstr(err, "the undo goes back to block"));
	assert_false(dump_is(path, end));
	hj_table_free(p.t);
	hj_store_close(s);
	for (int b = 0; b <= 14; b++)
		free(at[b]);
	free(again);
}

static void test_rewind(void **state)
{
	(void)state;
	rewind_case("rewind.db", 4);
}

/* The same, a batch a block, as when following the tip. */
static void test_rewind_following(void **state)
{
	(void)state;
	rewind_case("rewind-following.db", 1);
}

/* A payout paid for a block the rewind takes is kept, orphaned, without
 * its references; the same debt dealt again takes it back (its state
 * kept: not paid twice), a different one renames it and is owed anew. */
/* hj_store_each_payout's rows: how many, and the one orphaned. */
struct orphan_seen {
	int rows;
	char id[32];
	int64_t at;
};

static int see_orphan(void *arg, const hj_payout_row *p)
{
	struct orphan_seen *o = arg;

	o->rows++;
	if (p->orphaned.set) {
		assert_int_equal(o->id[0], 0); /* one */
		snprintf(o->id, sizeof o->id, "%s", p->id);
		o->at = p->orphaned.v;
	}
	return 0;
}

static void test_rewind_orphans(void **state)
{
	const char *path = db_path("orphans.db");
	hj_store *s = open_ok(path);
	hj_action a = simple_tx(0x41, 100), b = simple_tx(0x42, 200);
	char err[HJ_ERRLEN] = "";
	hj_cursor c;
	hj_rewind w;
	sqlite3 *db;

	(void)state;
	cursor_of(10, &c);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	cursor_of(11, &c);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 2; i++) {
		hj_action *t = i ? &b : &a;
		hj_payout po =
		    refund_of(t, i ? "refund:42" : "refund:41", i ? 200 : 100);
		po.height = 11;
		assert_int_equal(hj_store_add_tx(s, 11, t, "rejected",
		                                 HJ_R_NO_ROUND, NULL, err,
		                                 sizeof err),
		                 0);
		assert_int_equal(hj_store_add_payout(s, &po, err, sizeof err),
		                 0);
	}
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	db = raw_open(path);
	raw_exec(db, "UPDATE payouts SET state = 'confirmed'");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	assert_int_equal(hj_store_rewind_point(s, 10, &w, err, sizeof err), 0);
	assert_int_equal(hj_store_rewind(s, 10, &w, err, sizeof err), 0);
	assert_int_equal(w.orphaned, 2);
	assert_true(w.orphaned_sum == 300);
	assert_int_equal(w.txs, 2);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE "
	                             "orphaned = 10 AND txid IS NULL"),
	                 2);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	{
		uint64_t n = 9;
		hj_amount sum = 9;
		assert_int_equal(hj_store_owed(s, &n, &sum, err, sizeof err),
		                 0);
		assert_int_equal(n, 0);
	}

	/* Dealt again: 41 the same debt, 42 another amount. */
	cursor_of(12, &c);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	for (int i = 0; i < 2; i++) {
		hj_action *t = i ? &b : &a;
		hj_payout po =
		    refund_of(t, i ? "refund:42" : "refund:41", i ? 250 : 100);
		po.height = 12;
		assert_int_equal(hj_store_add_tx(s, 12, t, "rejected",
		                                 HJ_R_NO_ROUND, NULL, err,
		                                 sizeof err),
		                 0);
		if (hj_store_add_payout(s, &po, err, sizeof err) != 0)
			fail_msg("add payout again: %s", err);
	}
	assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err), 0);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE id = "
	                             "'refund:41' AND state = 'confirmed' AND "
	                             "orphaned IS NULL AND created_height = 12 "
	                             "AND txid IS NOT NULL"),
	                 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE id = "
	                             "'refund:42@10' AND state = 'confirmed' "
	                             "AND orphaned = 10 AND amount = '200'"),
	                 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM payouts WHERE id = "
	                             "'refund:42' AND state = 'owed' AND "
	                             "amount = '250'"),
	                 1);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	/* What the tool reads: the orphan said apart, among the confirmed. */
	{
		hj_payout_totals t;
		struct orphan_seen o = {0};

		assert_int_equal(hj_store_payout_totals(s, &t, err, sizeof err),
		                 0);
		assert_int_equal(t.orphaned.n, 1);
		assert_true(t.orphaned.sum == 200);
		assert_int_equal(t.confirmed.n, 2);
		assert_true(t.confirmed.sum == 300);
		assert_int_equal(t.owed.n, 1);
		assert_int_equal(hj_store_each_payout(s, NULL, see_orphan, &o,
		                                      err, sizeof err),
		                 0);
		assert_int_equal(o.rows, 3);
		assert_string_equal(o.id, "refund:42@10");
		assert_int_equal(o.at, 10);
	}
	hj_store_close(s);
}

/* Committed cards: a rewind takes the Commits of the blocks above the
 * boundary with their transactions, keeps those below, and leaves the
 * dealer's seed chains as they are (their seeds are the same on any
 * branch; the committer plans again from what is in force). */
static void test_rewind_commits(void **state)
{
	const char *path = db_path("rewind-commits.db");
	hj_store *s = open_ok(path);
	hj_action t10 = simple_tx(0x51, 0), t11 = simple_tx(0x52, 0);
	hj_store_seed_chain r = {0};
	char err[HJ_ERRLEN] = "";
	hj_cursor c;
	hj_rewind w;
	sqlite3 *db;
	int64_t id;

	(void)state;
	for (uint64_t h = 10; h <= 11; h++) {
		hj_action *t = h == 10 ? &t10 : &t11;
		hj_commit cm = {.start = h + 5,
		                .length = 8,
		                .height = h,
		                .tx_index = t->tx_index,
		                .txid = t->txid};

		memset(cm.commitment, (int)h, sizeof cm.commitment);
		cursor_of(h, &c);
		assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
		assert_int_equal(hj_store_add_tx(s, h, t, "accepted", HJ_OK,
		                                 NULL, err, sizeof err),
		                 0);
		assert_int_equal(hj_store_add_commit(s, &cm, err, sizeof err),
		                 0);
		memcpy(r.commitment, cm.commitment, sizeof r.commitment);
		r.start = cm.start;
		r.length = cm.length;
		r.created_height = h - 1;
		assert_int_equal(
		    hj_store_add_seed_chain(s, &r, &id, err, sizeof err), 0);
		assert_int_equal(hj_store_seed_chain_end(s, cm.commitment,
		                                         "dealt", err,
		                                         sizeof err),
		                 0);
		assert_int_equal(hj_store_set_cursor(s, &c, err, sizeof err),
		                 0);
		assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	}
	assert_int_equal(hj_store_rewind_point(s, 10, &w, err, sizeof err), 0);
	if (hj_store_rewind(s, 10, &w, err, sizeof err) != 0)
		fail_msg("rewind: %s", err);
	assert_int_equal(w.commits, 1);
	assert_int_equal(w.txs, 1);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM commits"), 1);
	assert_int_equal(raw_int(db, "SELECT height FROM commits"), 10);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM seed_chains "
	                             "WHERE state = 'dealt'"),
	                 2);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	hj_store_close(s);
}

/* Version 7's objects dropped: a version 6 file. */
static const char as_v6_sql[] =
    "DROP TRIGGER undo_cursor_keep; DROP TRIGGER undo_round_new; DROP TRIGGER "
    "undo_round_change; DROP TRIGGER undo_round_gone; DROP TABLE undo_rounds; "
    "DROP TABLE undo_cursor; ALTER TABLE payouts DROP COLUMN orphaned; PRAGMA "
    "user_version = 6";

static char *older_file(const char *path, const char *sql)
{
	hj_store *s = open_ok(path);
	sqlite3 *db;

	settle_fixture(s);
	hj_store_close(s);
	db = raw_open(path);
	raw_exec(db, as_v6_sql);
	raw_exec(db, sql);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return dump_db(path);
}

static void test_migrate_from_1(void **state)
{
	const char *path = db_path("v1.db");
	char *before, *after;
	hj_store *s;
	sqlite3 *db;

	(void)state;
	before = older_file(
	    path, "DROP TABLE seed_chains; DROP TABLE commits; DROP TABLE "
	          "dealer_balance; DROP TABLE "
	          "payout_tx_versions; DROP TABLE payout_batch_items; DROP "
	          "TABLE payout_batch_outputs; DROP TABLE payout_batches; "
	          "DROP TABLE settlement; PRAGMA user_version = 1");
	s = open_ok(path);
	after = dump_db(path);
	assert_string_equal(before, after);
	unbatched(s, "refund:31 refund:32 refund:33 return:34:0");
	hj_store_close(s);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 7);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM settlement"), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM pragma_table_info("
	                             "'payout_batches') WHERE name = 'nonce'"),
	                 1);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	free(before);
	free(after);
}

/* A version 2 database (Bitcoin-family batches, no EVM columns) gains
 * them, keeps its batches and its tag. */
static void test_migrate_from_2(void **state)
{
	const char *path = db_path("v2.db");
	hj_store *s = open_ok(path);
	hj_batch_output out = {"tr-aa", 100};
	const char *ids[1] = {"refund:31"};
	hj_batch b[2];
	size_t n = 0;
	char err[HJ_ERRLEN] = "", tag[17], tag2[17];
	sqlite3 *db;

	(void)state;
	settle_fixture(s);
	plan(s, &out, 1, ids, 1, 0);
	assert_int_equal(hj_store_payer_tag(s, tag, err, sizeof err), 0);
	hj_store_close(s);
	db = raw_open(path);
	raw_exec(db, as_v6_sql);
	raw_exec(db, "DROP TABLE seed_chains; DROP TABLE commits; DROP TABLE "
	             "dealer_balance; DROP TABLE "
	             "payout_tx_versions; DROP INDEX payout_batches_nonce; "
	             "ALTER TABLE payout_batches DROP COLUMN nonce; ALTER "
	             "TABLE payout_batches DROP COLUMN gas_limit; ALTER TABLE "
	             "payout_batches DROP COLUMN gas_used; ALTER TABLE "
	             "payout_batches DROP COLUMN fee; PRAGMA user_version = 2");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	s = open_ok(path);
	assert_int_equal(hj_store_payer_tag(s, tag2, err, sizeof err), 0);
	assert_string_equal(tag, tag2);
	assert_int_equal(hj_store_open_batches(s, 0, b, 2, &n, err, sizeof err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(b[0].nonce, -1);
	assert_int_equal(b[0].gas_limit, 0);
	hj_store_close(s);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 7);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Version 4's txs and rounds, keyed by transaction and round id, with
 * txs' index by round: what a version 4 file holds. */
static const char v4_layout_sql[] =
    "CREATE TABLE txs_v4 (txid BLOB PRIMARY KEY CHECK (length(txid) BETWEEN "
    "1 AND 32), height INTEGER NOT NULL CHECK (height >= 0), tx_index "
    "INTEGER NOT NULL CHECK (tx_index >= 0), sender BLOB, value TEXT NOT "
    "NULL, outcome TEXT NOT NULL, action TEXT, reason TEXT, round BLOB, "
    "UNIQUE (height, tx_index)) WITHOUT ROWID;"
    "INSERT INTO txs_v4 SELECT txid, height, tx_index, sender, value, "
    "outcome, action, reason, round FROM txs;"
    "DROP TABLE txs; ALTER TABLE txs_v4 RENAME TO txs;"
    "CREATE INDEX txs_round ON txs (round) WHERE round IS NOT NULL;"
    "CREATE TABLE rounds_v4 (id BLOB PRIMARY KEY REFERENCES txs (txid) "
    "DEFERRABLE INITIALLY DEFERRED, player BLOB NOT NULL UNIQUE, bet_height "
    "INTEGER NOT NULL CHECK (bet_height >= 0), bet_tx_index INTEGER NOT "
    "NULL CHECK (bet_tx_index >= 0), data BLOB NOT NULL, UNIQUE "
    "(bet_height, bet_tx_index)) WITHOUT ROWID;"
    "INSERT INTO rounds_v4 SELECT id, player, bet_height, bet_tx_index, "
    "data FROM rounds;"
    "DROP TABLE rounds; ALTER TABLE rounds_v4 RENAME TO rounds;"
    "PRAGMA user_version = 4";

/* The columns of table's primary key, in order, comma-separated. */
static const char *primary_key(sqlite3 *db, const char *table, char *buf,
                               size_t n)
{
	char sql[200];

	snprintf(sql, sizeof sql,
	         "SELECT group_concat(name) FROM (SELECT name FROM "
	         "pragma_table_info('%s') WHERE pk > 0 ORDER BY pk)",
	         table);
	return raw_text(db, sql, buf, n);
}

/* A version 4 file is brought to 6: txs and rounds in block order, every
 * row kept, and the daemon goes on from it. */
static void test_migrate_from_4(void **state)
{
	const char *path = db_path("v4.db");
	hj_store *s = open_ok(path);
	char *before, *after, buf[64];
	play p;
	sqlite3 *db;

	(void)state;
	play_init(&p, s, 0x5eed4);
	for (int b = 0; b < 8; b++)
		if (play_batch(&p, 3) != 0)
			fail_msg("batch %d: %s", b, p.err);
	assert_true(hj_table_count(p.t) > 0);
	hj_store_close(s);
	db = raw_open(path);
	raw_exec(db, as_v6_sql);
	raw_exec(db, v4_layout_sql);
	assert_string_equal(primary_key(db, "txs", buf, sizeof buf), "txid");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	before = dump_db(path);

	s = open_ok(path);
	p.s = s;
	after = dump_db(path);
	assert_string_equal(before, after);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 7);
	assert_string_equal(primary_key(db, "txs", buf, sizeof buf),
	                    "height,tx_index");
	assert_string_equal(primary_key(db, "rounds", buf, sizeof buf),
	                    "bet_height,bet_tx_index");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_schema "
	                             "WHERE name LIKE '%v4%' OR name = "
	                             "'txs_round'"),
	                 0);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	/* The rounds load as they were, and the play goes on. */
	reload(&p);
	check_stored_rounds(s, p.t);
	for (int b = 0; b < 4; b++)
		if (play_batch(&p, 3) != 0)
			fail_msg("batch %d after the migration: %s", b, p.err);
	check_stored_rounds(s, p.t);
	hj_store_close(s);
	hj_table_free(p.t);
	free(before);
	free(after);
}

/* A version 5 file is brought to 6: payouts' three indexes by round,
 * transaction and recipient gone, every row kept. */
static void test_migrate_from_5(void **state)
{
	const char *path = db_path("v5.db");
	char *before, *after;
	sqlite3 *db;

	(void)state;
	before = older_file(
	    path, "CREATE INDEX payouts_round ON payouts (round) WHERE "
	          "round IS NOT NULL; CREATE INDEX payouts_txid ON payouts "
	          "(txid) WHERE txid IS NOT NULL; CREATE INDEX "
	          "payouts_recipient ON payouts (recipient); PRAGMA "
	          "user_version = 5");
	hj_store_close(open_ok(path));
	after = dump_db(path);
	assert_string_equal(before, after);
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 7);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
	                             "type = 'index' AND tbl_name = 'payouts' "
	                             "AND sql IS NOT NULL"),
	                 1); /* payouts_state */
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	free(before);
	free(after);
}

/* A version 4 file whose payout refers to a transaction it does not
 * hold is not migrated: the error names the table, and the file stays
 * version 4. */
static void test_migrate_from_4_broken_reference(void **state)
{
	const char *path = db_path("v4-broken.db");
	hj_store *s = open_ok(path);
	char err[HJ_ERRLEN] = "";
	sqlite3 *db;

	(void)state;
	settle_fixture(s);
	hj_store_close(s);
	db = raw_open(path);
	raw_exec(db, v4_layout_sql);
	raw_exec(db, "DELETE FROM txs WHERE tx_index = 0x31");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(hj_store_open(path, &s, err, sizeof err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err, "migrate schema to 5"));
	assert_non_null(strstr(err, "of payouts refers to a row of txs"));
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 4);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* Checkpoints apart: the writer leaves its pages in the WAL (up to
 * HJ_STORE_WAL_BOUND), a second connection copies them, even while the
 * writer is inside a transaction, and each transaction says how many
 * pages it wrote. */
static void test_checkpoints_apart(void **state)
{
	const char *path = db_path("ckpt.db");
	char wal[160], err[HJ_ERRLEN] = "";
	hj_store *s = open_ok(path);
	hj_store_checkpointer *c = NULL;
	int log = 0, copied = 0;
	long pages = 0;
	off_t before;

	(void)state;
	snprintf(wal, sizeof wal, "%s-wal", path);
	assert_int_equal(hj_store_checkpoints_apart(s, err, sizeof err), 0);
	assert_int_equal(hj_store_checkpointer_open(path, &c, err, sizeof err),
	                 0);
	before = file_size(path);
	/* Some 1,500 pages in 40 transactions: past SQLite's default of
	 * 1,000, short of the bound. */
	for (int t = 0; t < 40; t++) {
		assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
		for (int i = 0; i < 1000; i++) {
			hj_action a = simple_tx(0, 1);
			a.txid.b[0] = (uint8_t)t;
			a.txid.b[1] = (uint8_t)(i >> 8);
			a.txid.b[2] = (uint8_t)i;
			a.tx_index = (uint32_t)i;
			assert_int_equal(hj_store_add_tx(s, (uint64_t)t, &a,
			                                 "deposit", HJ_OK, NULL,
			                                 err, sizeof err),
			                 0);
		}
		assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
		assert_true(hj_store_pages_written(s) > 10);
		pages += hj_store_pages_written(s);
	}
	assert_true(pages > 1000 && pages < HJ_STORE_WAL_BOUND);
	/* Nothing copied yet: the database file is as it was. */
	assert_int_equal(file_size(path), before);
	assert_true(file_size(wal) > 1000 * 4096);

	/* A copy while the writer holds a transaction open. */
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	hj_action a = simple_tx(0x77, 1);
	assert_int_equal(
	    hj_store_add_tx(s, 99, &a, "deposit", HJ_OK, NULL, err, sizeof err),
	    0);
	assert_int_equal(hj_store_checkpoint(c, &log, &copied, err, sizeof err),
	                 0);
	assert_true(log >= pages);
	assert_int_equal(copied, log);
	assert_true(file_size(path) > before + 1000 * 4096);
	assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
	assert_true(hj_store_pages_written(s) >= 1);

	hj_store_checkpointer_close(c);
	hj_store_close(s);
	/* Closing the last connection copied the rest and removed the WAL. */
	s = open_ok(path);
	sqlite3 *db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM txs"), 40001);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	hj_store_close(s);
}

/* ---- reading without disturbing the daemon (hj_store_read) ---- */

/* A file as it is: whether it exists, and its identity, size, times and
 * bytes. */
struct file_snap {
	int exists;
	struct stat st;
	char *bytes;
	size_t n;
};

static void file_snap(const char *path, struct file_snap *f)
{
	FILE *fp;

	memset(f, 0, sizeof *f);
	if (stat(path, &f->st) != 0) {
		assert_int_equal(errno, ENOENT);
		return;
	}
	f->exists = 1;
	f->n = (size_t)f->st.st_size;
	f->bytes = malloc(f->n + 1);
	assert_non_null(f->bytes);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(f->bytes, 1, f->n, fp), f->n);
	fclose(fp);
}

/* path is as before was taken: same file, modification time, size and
 * bytes.  (Not the change time: SQLite run as root sets the owner of a
 * WAL it opens to the database's, even when it already is.) */
static void file_same(const char *path, struct file_snap *before)
{
	struct file_snap now;

	file_snap(path, &now);
	if (now.exists != before->exists)
		fail_msg("%s %s", path,
		         now.exists ? "appeared" : "disappeared");
	if (now.exists) {
		assert_int_equal(now.st.st_ino, before->st.st_ino);
		assert_int_equal(now.st.st_size, before->st.st_size);
		assert_int_equal(now.st.st_mtim.tv_sec,
		                 before->st.st_mtim.tv_sec);
		assert_int_equal(now.st.st_mtim.tv_nsec,
		                 before->st.st_mtim.tv_nsec);
		assert_memory_equal(now.bytes, before->bytes, now.n);
	}
	free(now.bytes);
	free(before->bytes);
	before->bytes = NULL;
}

/* The database, its -wal and its -shm. */
struct db_snap {
	char wal[160], shm[160];
	struct file_snap db, w, s;
};

static void db_snap(const char *path, struct db_snap *d)
{
	snprintf(d->wal, sizeof d->wal, "%s-wal", path);
	snprintf(d->shm, sizeof d->shm, "%s-shm", path);
	file_snap(path, &d->db);
	file_snap(d->wal, &d->w);
	file_snap(d->shm, &d->s);
}

/* The database and its WAL unchanged; the -shm neither appeared nor went
 * (its bytes are shared memory, where readers take their read marks). */
static void db_same(const char *path, struct db_snap *d)
{
	file_same(path, &d->db);
	file_same(d->wal, &d->w);
	assert_int_equal(access(d->shm, F_OK) == 0, d->s.exists);
	free(d->s.bytes);
}

/* Reads path with fn, which must succeed. */
static void read_ok(const char *path, hj_store_read_fn fn, void *arg)
{
	char err[HJ_ERRLEN] = "";
	int rc = hj_store_read(path, fn, NULL, arg, err, sizeof err);

	if (rc != 0)
		fail_msg("read %s: %d: %s", path, rc, err);
}

/* The ids a payout walk gave, and its first row. */
struct walk {
	char ids[512];
	unsigned n, stop_at; /* return 7 at this call (from 1); 0 never */
	hj_payout_row first;
	char first_id[32], first_kind[16], first_state[16];
};

static int walk_payout(void *arg, const hj_payout_row *p)
{
	struct walk *w = arg;
	size_t o = strlen(w->ids);

	if (w->n++ == 0) {
		w->first = *p;
		snprintf(w->first_id, sizeof w->first_id, "%s", p->id);
		snprintf(w->first_kind, sizeof w->first_kind, "%s", p->kind);
		snprintf(w->first_state, sizeof w->first_state, "%s", p->state);
	}
	snprintf(w->ids + o, sizeof w->ids - o, "%s%s", o ? " " : "", p->id);
	return w->n == w->stop_at ? 7 : 0;
}

/* The ids f selects, in the walk's order. */
static const char *select_ids(hj_store *s, const hj_payout_filter *f,
                              struct walk *w)
{
	char err[HJ_ERRLEN] = "";

	memset(w, 0, sizeof *w);
	if (hj_store_each_payout(s, f, walk_payout, w, err, sizeof err))
		fail_msg("each payout: %s", err);
	return w->ids;
}

struct batches {
	hj_open_batch b[4];
	char address[4][16];
	unsigned n;
};

static int take_batch(void *arg, const hj_open_batch *b)
{
	struct batches *v = arg;

	assert_true(v->n < 4);
	v->b[v->n] = *b;
	snprintf(v->address[v->n], sizeof v->address[0], "%s",
	         b->address ? b->address : "(none)");
	v->b[v->n].address = NULL; /* borrowed: gone after the call */
	v->n++;
	return 0;
}

static void tally_is(const hj_tally *t, uint64_t n, hj_amount sum)
{
	assert_int_equal(t->n, n);
	assert_true(t->sum == sum);
}

/*
 * settle_fixture's payouts, then refund:31 paid by EVM transaction 1
 * (nonce 7, two signed versions, sent at tip 10), refund:32 in planned
 * transaction 2 (nonce 8), a cursor at block 41 and a balance.
 */
static void typed_fixture(const char *path)
{
	hj_store *s = open_ok(path);
	hj_batch_output out = {"0xaa", 100}, out2 = {"0xaa", 200};
	const char *ids[1] = {"refund:31"}, *ids2[1] = {"refund:32"};
	uint8_t raw[3] = {2, 1, 0}, hash[32];
	hj_tx_version v;
	hj_batch_plan pl;
	hj_cursor c;
	int64_t id = 0, id2 = 0;

	evm_plan(&v, &pl, raw, &out, ids, 1);
	settle_fixture(s);
	cursor_of(41, &c);
	WRITE(s, 0, hj_store_set_cursor(s, &c, e_, sizeof e_));
	memset(v.hash, 0x71, 32);
	WRITE(s, 0, hj_store_plan_batch(s, &pl, &id, e_, sizeof e_));
	memset(v.hash, 0x72, 32);
	WRITE(s, 0, hj_store_add_version(s, id, &v, e_, sizeof e_));
	memset(hash, 0x72, 32);
	WRITE(s, 0,
	      hj_store_batch_sent(s, id, hash, 10, 1700000002, e_, sizeof e_));
	memset(v.hash, 0x73, 32);
	pl.outs = &out2;
	pl.payouts = ids2;
	pl.nonce = 8;
	pl.now = 1700000100;
	WRITE(s, 0, hj_store_plan_batch(s, &pl, &id2, e_, sizeof e_));
	WRITE(s, 0,
	      hj_store_set_balance(s, 123456, 14, 1700000004, "LOW", e_,
	                           sizeof e_));
	assert_int_equal(id, 1);
	assert_int_equal(id2, 2);
	hj_store_close(s);
}

static int read_typed(hj_store *s, void *arg, char *err, size_t errlen)
{
	hj_id aa = {.len = 20}, round34 = {.len = 32};
	hj_cursor c, got;
	hj_meta_row m;
	hj_payout_totals t;
	hj_balance_row bal;
	struct batches v = {0};
	struct walk w;
	uint64_t n = 0;
	int found = 0;

	(void)arg;
	memset(aa.b, 0xaa, 20);
	memset(round34.b, 0x34, 32);
	assert_int_equal(hj_store_version(s), 7);

	assert_int_equal(hj_store_get_meta(s, &m, &found, err, errlen), 0);
	assert_int_equal(found, 1);
	assert_string_equal(m.family, META.family);
	assert_string_equal(m.chain, META.chain);
	assert_string_equal(m.dealer, META.dealer);
	assert_string_equal(m.rules, META.rules);
	hj_meta_row_clear(&m);
	assert_null(m.family);

	assert_int_equal(hj_store_count_payouts(s, &n, err, errlen), 0);
	assert_int_equal(n, 4);
	assert_int_equal(hj_store_read_cursor(s, &got, &found, err, errlen), 0);
	cursor_of(41, &c);
	assert_int_equal(found, 1);
	assert_int_equal(got.height, 41);
	assert_memory_equal(got.hash, c.hash, 32);
	assert_int_equal(got.log_offset, c.log_offset);
	assert_int_equal(got.log_dev, c.log_dev);
	assert_int_equal(got.log_ino, c.log_ino);

	/* Every payout, oldest debt first, and every filter. */
	assert_string_equal(select_ids(s, NULL, &w),
	                    "refund:31 refund:32 refund:33 return:34:0");
	assert_string_equal(w.first_id, "refund:31");
	assert_string_equal(w.first_kind, "refund");
	assert_string_equal(w.first_state, "submitted");
	assert_int_equal(w.first.has_recipient, 1);
	assert_true(hj_id_eq(&w.first.recipient, &aa));
	assert_true(w.first.amount == 100);
	assert_int_equal(w.first.round.len, 0);
	assert_int_equal(w.first.hand.set, 0);
	assert_int_equal(w.first.txid.len, 32);
	assert_int_equal(w.first.txid.b[0], 0x31);
	assert_int_equal(w.first.created_height, 5);
	assert_int_equal(w.first.submitted_txid.len, 32);
	assert_int_equal(w.first.submitted_txid.b[31], 0x72);
	assert_true(w.first.nonce.set && w.first.nonce.v == 7);
	assert_true(w.first.submitted_height.set &&
	            w.first.submitted_height.v == 10);
	assert_true(w.first.submitted_at.set &&
	            w.first.submitted_at.v == 1700000002);
	assert_int_equal(w.first.confirmed_height.set, 0);
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.state = "owed"}, &w),
	    "refund:32 refund:33 return:34:0");
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.kind = "return"}, &w),
	    "return:34:0");
	assert_true(w.first.hand.set && w.first.hand.v == 0);
	assert_true(hj_id_eq(&w.first.round, &round34));
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.round = &round34}, &w),
	    "return:34:0");
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.recipient = &aa}, &w),
	    "refund:31 refund:32");
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.unattributed = 1}, &w),
	    "refund:33");
	assert_int_equal(w.first.has_recipient, 0);
	assert_string_equal(
	    select_ids(
	        s, &(hj_payout_filter){.state = "owed", .recipient = &aa}, &w),
	    "refund:32");
	assert_string_equal(
	    select_ids(s, &(hj_payout_filter){.state = "confirmed"}, &w), "");
	/* The callback's return stops the walk and is returned. */
	memset(&w, 0, sizeof w);
	w.stop_at = 2;
	assert_int_equal(
	    hj_store_each_payout(s, NULL, walk_payout, &w, err, errlen), 7);
	assert_int_equal(w.n, 2);

	assert_int_equal(hj_store_payout_totals(s, &t, err, errlen), 0);
	tally_is(&t.owed, 3, 4500);
	tally_is(&t.unattributed, 1, 300);
	tally_is(&t.planned, 1, 200);
	tally_is(&t.submitted, 1, 100);
	tally_is(&t.confirmed, 0, 0);

	assert_int_equal(hj_store_get_balance(s, &bal, &found, err, errlen), 0);
	assert_int_equal(found, 1);
	assert_true(bal.amount == 123456);
	assert_int_equal(bal.height, 14);
	assert_int_equal(bal.at, 1700000004);
	assert_string_equal(bal.warning, "LOW");
	free(bal.warning);

	assert_int_equal(
	    hj_store_each_open_batch(s, take_batch, &v, err, errlen), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.b[0].id, 1);
	assert_int_equal(v.b[0].sent, 1);
	assert_int_equal(v.b[0].has_txid, 1);
	assert_int_equal(v.b[0].txid[0], 0x72);
	assert_int_equal(v.b[0].outputs, 1);
	assert_true(v.b[0].total == 100);
	assert_int_equal(v.b[0].created_at, 1700000000);
	assert_true(v.b[0].nonce.set && v.b[0].nonce.v == 7);
	assert_string_equal(v.address[0], "0xaa");
	assert_int_equal(v.b[0].versions, 2);
	assert_int_equal(v.b[0].has_hash, 1);
	assert_int_equal(v.b[0].hash[0], 0x72);
	assert_int_equal(v.b[1].id, 2);
	assert_int_equal(v.b[1].sent, 0);
	assert_int_equal(v.b[1].has_txid, 0);
	assert_true(v.b[1].total == 200);
	assert_int_equal(v.b[1].created_at, 1700000100);
	assert_true(v.b[1].nonce.set && v.b[1].nonce.v == 8);
	assert_int_equal(v.b[1].versions, 1);
	assert_int_equal(v.b[1].hash[0], 0x73);
	return 0;
}

/* After transaction 1 is confirmed: the totals and the open ones. */
static int read_confirmed(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct batches v = {0};
	hj_payout_totals t;

	(void)arg;
	assert_int_equal(hj_store_payout_totals(s, &t, err, errlen), 0);
	tally_is(&t.submitted, 0, 0);
	tally_is(&t.confirmed, 1, 100);
	assert_int_equal(
	    hj_store_each_open_batch(s, take_batch, &v, err, errlen), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.b[0].id, 2);
	return 0;
}

/* Every typed read, exact values, on what the store's writes made. */
static void test_read_typed(void **state)
{
	const char *path = db_path("typed.db");
	hj_store *s;

	(void)state;
	typed_fixture(path);
	read_ok(path, read_typed, NULL);
	s = open_ok(path);
	WRITE(s, 0, hj_store_batch_confirmed(s, 1, 12, e_, sizeof e_));
	hj_store_close(s);
	read_ok(path, read_confirmed, NULL);
}

/* The rounds read back are the table's, in its order. */
struct rounds_seen {
	const hj_table *want;
	size_t n;
	uint64_t owed_n;
	hj_amount owed;
};

static int same_round(void *arg, const hj_round *r)
{
	struct rounds_seen *v = arg;
	uint8_t a[HJ_ROUND_ENCODED_MAX], b[HJ_ROUND_ENCODED_MAX];
	size_t na, nb;

	assert_true(v->n < hj_table_count(v->want));
	na = hj_round_encode(hj_table_round(v->want, v->n), a);
	nb = hj_round_encode(r, b);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	v->n++;
	return 0;
}

static int read_rounds(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct rounds_seen *v = arg;
	hj_payout_totals t;
	hj_cursor got;
	int found = 0;

	assert_int_equal(hj_store_each_round(s, same_round, v, err, errlen), 0);
	assert_int_equal(v->n, hj_table_count(v->want));
	assert_int_equal(hj_store_payout_totals(s, &t, err, errlen), 0);
	tally_is(&t.owed, v->owed_n, v->owed);
	assert_int_equal(hj_store_read_cursor(s, &got, &found, err, errlen), 0);
	assert_int_equal(found, 1);
	return 0;
}

static void test_read_rounds(void **state)
{
	const char *path = db_path("read-rounds.db");
	hj_store *s = open_ok(path);
	struct rounds_seen v = {0};
	char err[HJ_ERRLEN] = "";
	play p;

	(void)state;
	play_init(&p, s, 0x5eed);
	for (int b = 0; b < 6; b++)
		if (play_batch(&p, 20) != 0)
			fail_msg("batch: %s", p.err);
	assert_true(hj_table_count(p.t) > 1);
	assert_int_equal(hj_store_owed(s, &v.owed_n, &v.owed, err, sizeof err),
	                 0);
	assert_true(v.owed_n > 0);
	hj_store_close(s);
	v.want = p.t;
	read_ok(path, read_rounds, &v);
	hj_table_free(p.t);
}

/* What each schema version has, read as it is. */
struct old_read {
	int version;
	unsigned batches;
	hj_open_batch b;
};

static int read_old(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct old_read *o = arg;
	struct batches v = {0};
	hj_payout_totals t;
	hj_balance_row bal;
	struct walk w;
	int found = 7;

	assert_int_equal(hj_store_version(s), o->version);
	assert_string_equal(select_ids(s, NULL, &w),
	                    "refund:31 refund:32 refund:33 return:34:0");
	assert_int_equal(hj_store_payout_totals(s, &t, err, errlen), 0);
	tally_is(&t.owed, 4, 4600);
	tally_is(&t.unattributed, 1, 300);
	/* Version 1 has no batches: nothing is planned. */
	tally_is(&t.planned, o->batches, o->batches ? 100 : 0);
	assert_int_equal(hj_store_get_balance(s, &bal, &found, err, errlen), 0);
	assert_int_equal(found, 0);
	assert_null(bal.warning);
	assert_int_equal(
	    hj_store_each_open_batch(s, take_batch, &v, err, errlen), 0);
	assert_int_equal(v.n, o->batches);
	if (v.n)
		o->b = v.b[0];
	return 0;
}

/* Versions 1 and 2 are read without being migrated: no table created,
 * the version unchanged, no byte of the file written. */
static void test_read_old_schemas(void **state)
{
	const char *v1 = db_path("read-v1.db"), *v2 = db_path("read-v2.db");
	hj_batch_output out = {"tr-aa", 100};
	const char *ids[1] = {"refund:31"};
	struct old_read o = {.version = 1};
	struct db_snap snap;
	hj_store *s;
	sqlite3 *db;

	(void)state;
	s = open_ok(v1);
	settle_fixture(s);
	hj_store_close(s);
	db = raw_open(v1);
	raw_exec(db, "DROP TABLE seed_chains; DROP TABLE commits; DROP TABLE "
	             "dealer_balance; DROP TABLE "
	             "payout_tx_versions; DROP TABLE payout_batch_items; DROP "
	             "TABLE payout_batch_outputs; DROP TABLE payout_batches; "
	             "DROP TABLE settlement; PRAGMA user_version = 1");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	db_snap(v1, &snap);
	assert_false(snap.w.exists);
	read_ok(v1, read_old, &o);
	db_same(v1, &snap);

	s = open_ok(v2);
	settle_fixture(s);
	plan(s, &out, 1, ids, 1, 0);
	hj_store_close(s);
	db = raw_open(v2);
	raw_exec(db, "DROP TABLE seed_chains; DROP TABLE commits; DROP TABLE "
	             "dealer_balance; DROP TABLE "
	             "payout_tx_versions; DROP INDEX payout_batches_nonce; "
	             "ALTER TABLE payout_batches DROP COLUMN nonce; ALTER "
	             "TABLE payout_batches DROP COLUMN gas_limit; ALTER TABLE "
	             "payout_batches DROP COLUMN gas_used; ALTER TABLE "
	             "payout_batches DROP COLUMN fee; PRAGMA user_version = 2");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	db_snap(v2, &snap);
	o = (struct old_read){.version = 2, .batches = 1};
	read_ok(v2, read_old, &o);
	db_same(v2, &snap);
	/* A version 2 batch: no nonce, no signed versions. */
	assert_int_equal(o.b.sent, 0);
	assert_true(o.b.total == 100);
	assert_int_equal(o.b.nonce.set, 0);
	assert_int_equal(o.b.versions, 0);
	assert_int_equal(o.b.has_hash, 0);
}

static int read_count(hj_store *s, void *arg, char *err, size_t errlen)
{
	return hj_store_count_payouts(s, arg, err, errlen);
}

/* A payout of refund_of's shape for the transaction tag, recorded and
 * committed, or left uncommitted. */
static void add_refund(hj_store *s, uint8_t tag, int commit)
{
	hj_action a = simple_tx(tag, 9);
	char id[32], err[HJ_ERRLEN] = "";
	hj_payout p;

	snprintf(id, sizeof id, "refund:%02x", tag);
	p = refund_of(&a, id, 9);
	assert_int_equal(hj_store_begin(s, err, sizeof err), 0);
	assert_int_equal(hj_store_add_tx(s, 5, &a, "rejected", HJ_R_NO_ROUND,
	                                 NULL, err, sizeof err),
	                 0);
	assert_int_equal(hj_store_add_payout(s, &p, err, sizeof err), 0);
	if (commit)
		assert_int_equal(hj_store_commit(s, err, sizeof err), 0);
}

/*
 * The three states a reader meets the daemon in.  Stopped (no -wal): no
 * file appears, none changes.  In the middle of a batch (a write
 * transaction open): the last commit is read, the database and its WAL
 * stay as they are.  Killed after a commit (the commit only in the WAL):
 * the commit is read and not checkpointed into the database file.
 */
static void test_read_leaves_no_trace(void **state)
{
	const char *path = db_path("trace.db"), *crashed = db_path("crash.db");
	struct db_snap snap;
	uint64_t n = 0;
	hj_store *s;
	pid_t pid;
	int status;

	(void)state;
	s = open_ok(path);
	settle_fixture(s);
	hj_store_close(s);
	db_snap(path, &snap);
	assert_false(snap.w.exists);
	assert_false(snap.s.exists);
	read_ok(path, read_count, &n);
	assert_int_equal(n, 4);
	db_same(path, &snap);

	s = open_ok(path);
	add_refund(s, 0x41, 0);
	db_snap(path, &snap);
	assert_true(snap.w.exists);
	read_ok(path, read_count, &n);
	assert_int_equal(n, 4);
	db_same(path, &snap);
	hj_store_rollback(s);
	hj_store_close(s);

	s = open_ok(crashed);
	settle_fixture(s);
	hj_store_close(s);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		s = NULL;
		if (hj_store_open(crashed, &s, NULL, 0))
			_exit(2);
		add_refund(s, 0x42, 1);
		_exit(0); /* no close: the WAL stays as a crash leaves it */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	db_snap(crashed, &snap);
	assert_true(snap.w.exists);
	read_ok(crashed, read_count, &n);
	assert_int_equal(n, 5);
	db_same(crashed, &snap);
}

struct refusal {
	int calls, resets;
	int ret; /* what the callback returns */
};

static int refuse_read(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct refusal *r = arg;

	(void)s;
	(void)err;
	(void)errlen;
	r->calls++;
	return r->ret;
}

static void count_reset(void *arg)
{
	((struct refusal *)arg)->resets++;
}

/* Reads path and expects ret, err holding want; the callback runs when
 * calls says so. */
static void expect_read(const char *path, int ret, const char *want, int calls)
{
	struct refusal r = {0};
	char err[HJ_ERRLEN] = "";
	int rc;

	rc = hj_store_read(path, refuse_read, count_reset, &r, err, sizeof err);
	if (rc != ret)
		fail_msg("%s: %d, want %d: %s", path, rc, ret, err);
	if (want != NULL && strstr(err, want) == NULL)
		fail_msg("%s: \"%s\", want \"%s\"", path, err, want);
	assert_int_equal(r.calls, calls);
	assert_int_equal(r.resets, 1);
}

static int read_damaged(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct walk w = {0};

	(void)arg;
	return hj_store_each_payout(s, NULL, walk_payout, &w, err, errlen);
}

/* A callback that changes the file under an immutable read: the daemon
 * started and wrote meanwhile. */
static int read_while_written(hj_store *s, void *arg, char *err, size_t errlen)
{
	struct refusal *r = arg;
	sqlite3 *db = raw_open(db_path("ro-moving.db"));

	(void)s;
	(void)err;
	(void)errlen;
	r->calls++;
	raw_exec(db, "UPDATE cursor SET log_offset = log_offset + 1");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return 0;
}

/* Files that are not the daemon's database, or not readable as it: the
 * reason, and nothing created. */
static void test_read_refused(void **state)
{
	char missing[128], empty[128], text[128], other[128], newer[128];
	char bad[128], moving[128], err[HJ_ERRLEN] = "", want[300];
	struct refusal r = {0};
	hj_store *s;
	hj_cursor c;
	sqlite3 *db;
	FILE *f;

	(void)state;
	/* db_path's buffers are few: copies. */
	snprintf(missing, sizeof missing, "%s", db_path("ro-missing.db"));
	snprintf(empty, sizeof empty, "%s", db_path("ro-empty.db"));
	snprintf(text, sizeof text, "%s", db_path("ro-text.db"));
	snprintf(other, sizeof other, "%s", db_path("ro-other.db"));
	snprintf(newer, sizeof newer, "%s", db_path("ro-newer.db"));
	snprintf(bad, sizeof bad, "%s", db_path("ro-bad.db"));
	snprintf(moving, sizeof moving, "%s", db_path("ro-moving.db"));
	expect_read(missing, -ENOENT, "No such file or directory", 0);
	assert_int_not_equal(access(missing, F_OK), 0);
	expect_read(tmpdir, -ENOENT, "Is a directory", 0);
	f = fopen(empty, "w");
	assert_non_null(f);
	fclose(f);
	expect_read(empty, -EINVAL, "an empty file", 0);
	f = fopen(text, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("a card log, not a database\n", f);
	fclose(f);
	expect_read(text, -EINVAL, "not an SQLite database", 0);
	db = raw_open(other);
	raw_exec(db, "CREATE TABLE notes (t TEXT)");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	expect_read(other, -EINVAL, "no tables \"meta\" and \"payouts\"", 0);
	hj_store_close(open_ok(newer));
	db = raw_open(newer);
	raw_exec(db, "PRAGMA user_version = 8");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	expect_read(newer, -EINVAL, "schema version 8 was written by a newer",
	            0);

	/* The callback's return, whatever it is, is the read's. */
	s = open_ok(bad);
	settle_fixture(s);
	hj_store_close(s);
	expect_read(bad, 0, NULL, 1);
	r.ret = 42;
	assert_int_equal(
	    hj_store_read(bad, refuse_read, NULL, &r, err, sizeof err), 42);
	/* A column that does not hold what the schema says. */
	db = raw_open(bad);
	raw_exec(db, "UPDATE payouts SET nonce = 'seven' WHERE id = "
	             "'refund:32'");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(
	    hj_store_read(bad, read_damaged, NULL, NULL, err, sizeof err),
	    -EINVAL);
	snprintf(want, sizeof want,
	         "%s: payout \"refund:32\": column nonce does not hold what "
	         "the schema says (docs/STATE.md)",
	         bad);
	assert_string_equal(err, want);

	/* Changed under every attempt: started over, then given up. */
	s = open_ok(moving);
	cursor_of(3, &c);
	WRITE(s, 0, hj_store_set_cursor(s, &c, e_, sizeof e_));
	hj_store_close(s);
	r = (struct refusal){0};
	assert_int_equal(hj_store_read(moving, read_while_written, count_reset,
	                               &r, err, sizeof err),
	                 -EAGAIN);
	assert_int_equal(r.calls, 3);
	assert_int_equal(r.resets, 3);
	assert_non_null(strstr(err, "changed while it was read (3 times)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lock_dir),
	    cmocka_unit_test(test_open_creates_wal_database),
	    cmocka_unit_test(test_reopen_keeps_everything),
	    cmocka_unit_test(test_meta),
	    cmocka_unit_test(test_meta_rules_keys),
	    cmocka_unit_test(test_cursor),
	    cmocka_unit_test(test_rounds_saved_each_block),
	    cmocka_unit_test(test_rounds_saved_each_batch),
	    cmocka_unit_test(test_rounds_same_player_again),
	    cmocka_unit_test(test_corrupted_round_is_an_error),
	    cmocka_unit_test(test_add_tx),
	    cmocka_unit_test(test_add_payout),
	    cmocka_unit_test(test_payout_needs_recorded_tx),
	    cmocka_unit_test(test_amounts_full_range),
	    cmocka_unit_test(test_owed_counts_only_owed),
	    cmocka_unit_test(test_rollback_discards_everything),
	    cmocka_unit_test(test_crash_exit_without_commit),
	    cmocka_unit_test(test_crash_killed_mid_batch),
	    cmocka_unit_test(test_not_a_database),
	    cmocka_unit_test(test_foreign_or_newer_database),
	    cmocka_unit_test(test_reader_sees_committed_only),
	    cmocka_unit_test(test_settlement_lifecycle),
	    cmocka_unit_test(test_migrate_from_1),
	    cmocka_unit_test(test_migrate_from_2),
	    cmocka_unit_test(test_migrate_from_4),
	    cmocka_unit_test(test_checkpoints_apart),
	    cmocka_unit_test(test_migrate_from_4_broken_reference),
	    cmocka_unit_test(test_migrate_from_5),
	    cmocka_unit_test(test_rewind),
	    cmocka_unit_test(test_rewind_following),
	    cmocka_unit_test(test_rewind_orphans),
	    cmocka_unit_test(test_rewind_commits),
	    cmocka_unit_test(test_evm_transactions),
	    cmocka_unit_test(test_planned_after_sent),
	    cmocka_unit_test(test_read_typed),
	    cmocka_unit_test(test_read_rounds),
	    cmocka_unit_test(test_read_old_schemas),
	    cmocka_unit_test(test_read_leaves_no_trace),
	    cmocka_unit_test(test_read_refused),
	};

	return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
