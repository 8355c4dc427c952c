/*
 * The open rounds in the rounds table: saved at the end of every batch
 * (hj_store_save_rounds) and restored into the table at start
 * (hj_store_load_rounds).
 *
 * Open rounds are saved by difference: the store remembers the rounds it
 * last wrote or read (s->saved, which mirrors the rounds table inside the
 * current transaction) and writes only rounds that changed, appeared or
 * left; a round that changed has only its data rewritten.  A round is
 * compared as it is, not encoded: most open rounds wait for their player,
 * unchanged from one block to the next.  Bytes that do not enter the
 * encoding (padding) can only make a round look changed, never the
 * reverse, and writing it again is harmless.  The memory is dropped
 * whenever it may no longer match the table (rollback, any failed save),
 * and the next save then rewrites every row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "say.h"
#include "store_impl.h"

static int grow(hj_round **v, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 16;
	hj_round *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * sizeof *p);
	if (p == NULL)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/* Opening order: block, then position in the block. */
static int key_cmp(const hj_round *a, const hj_round *b)
{
	if (a->bet_height != b->bet_height)
		return a->bet_height < b->bet_height ? -1 : 1;
	if (a->bet_tx_index != b->bet_tx_index)
		return a->bet_tx_index < b->bet_tx_index ? -1 : 1;
	return 0;
}

/*
 * Writes r through statement `which`, bound ?1 id, ?2 player, ?3 bet
 * height, ?4 bet index, ?5 data: ST_ROUND_PUT, a new row; or
 * ST_ROUND_DATA, the data of r's row, which exists (its other columns are
 * r's already: the same id, player and place).
 */
static int round_write(hj_store *s, int which, const hj_round *r, char *err,
                       size_t errlen)
{
	sqlite3_stmt *st = s->st[which];
	uint8_t data[HJ_ROUND_ENCODED_MAX];
	size_t len = hj_round_encode(r, data);
	char hex[65];
	int ret;

	if (sqlite3_bind_blob(st, 1, r->id.b, r->id.len, SQLITE_STATIC) ||
	    sqlite3_bind_blob(st, 2, r->player.b, r->player.len,
	                      SQLITE_STATIC) ||
	    sqlite3_bind_int64(st, 3, (sqlite3_int64)r->bet_height) ||
	    sqlite3_bind_int64(st, 4, r->bet_tx_index) ||
	    sqlite3_bind_blob(st, 5, data, (int)len, SQLITE_STATIC)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "save round", err, errlen);
	}
	ret = hj_store__step_done(s, st, "save round", err, errlen);
	if (ret == -EINVAL)
		hj_say(err, errlen, "%s: save round %s: %s", s->path,
		       hj_store__id_hex(&r->id, hex), sqlite3_errmsg(s->db));
	if (ret == 0 && which == ST_ROUND_DATA && sqlite3_changes(s->db) != 1) {
		hj_say(err, errlen,
		       "%s: save round %s: its row is gone from the rounds "
		       "table",
		       s->path, hj_store__id_hex(&r->id, hex));
		ret = -EIO;
	}
	return ret;
}

static int round_del(hj_store *s, const hj_round *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_ROUND_DEL];

	if (sqlite3_bind_int64(st, 1, (sqlite3_int64)r->bet_height) ||
	    sqlite3_bind_int64(st, 2, r->bet_tx_index)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "delete round", err, errlen);
	}
	return hj_store__step_done(s, st, "delete round", err, errlen);
}

/* Copies the table's rounds into s->next, checking what the rows rely on:
 * ids and players present, opening order strictly increasing. */
static int snapshot(hj_store *s, const hj_table *t, char *err, size_t errlen)
{
	size_t n = hj_table_count(t);
	char hex[65];

	if (grow(&s->next, &s->capnext, n)) {
		hj_say(err, errlen, "%s: save rounds: out of memory", s->path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const hj_round *r = hj_table_round(t, i);

		if (r->id.len < 1 || r->id.len > 32 || r->player.len < 1 ||
		    r->player.len > 32 || r->phase == HJ_PH_DONE) {
			hj_say(err, errlen,
			       "%s: save rounds: round %s has no id or player, "
			       "or is settled",
			       s->path, hj_store__id_hex(&r->id, hex));
			return -EINVAL;
		}
		if (hj_store__fits_i64(r->bet_height, "save rounds: bet height",
		                       err, errlen))
			return -EINVAL;
		if (i > 0 && key_cmp(&s->next[i - 1], r) >= 0) {
			hj_say(
			    err, errlen,
			    "%s: save rounds: round %s (block %llu, index %u) "
			    "is not after the previous one in opening order",
			    s->path, hj_store__id_hex(&r->id, hex),
			    (unsigned long long)r->bet_height, r->bet_tx_index);
			return -EINVAL;
		}
		s->next[i] = *r;
	}
	return 0;
}

int hj_store_save_rounds(hj_store *s, const hj_table *t, char *err,
                         size_t errlen)
{
	size_t n = hj_table_count(t), i = 0, j = 0;
	hj_round *tmp;
	size_t tmpcap;
	int ret;

	if ((ret = hj_store__in_tx(s, "save rounds", err, errlen)))
		return ret;
	if ((ret = snapshot(s, t, err, errlen)))
		return ret;

	/* Until this save completes, the table and s->saved may differ. */
	int merge = s->saved_valid;
	s->saved_valid = 0;
	if (!merge) {
		ret = hj_store__step_done(s, s->st[ST_ROUNDS_CLEAR],
		                          "save rounds", err, errlen);
		for (j = 0; ret == 0 && j < n; j++)
			ret = round_write(s, ST_ROUND_PUT, &s->next[j], err,
			                  errlen);
	} else {
		/* Both lists are in opening order.  A round leaves before any
		 * later one is written, so a player whose round ended and who
		 * bet again never has two rows at once. */
		while (ret == 0 && (i < s->nsaved || j < n)) {
			const hj_round *a = i < s->nsaved ? &s->saved[i] : NULL;
			const hj_round *b = j < n ? &s->next[j] : NULL;
			int c = a == NULL ? 1 : b == NULL ? -1 : key_cmp(a, b);

			if (c < 0) {
				ret = round_del(s, a, err, errlen);
				i++;
			} else if (c > 0) {
				ret = round_write(s, ST_ROUND_PUT, b, err,
				                  errlen);
				j++;
			} else {
				if (!hj_id_eq(&a->id, &b->id) ||
				    !hj_id_eq(&a->player, &b->player)) {
					ret = round_del(s, a, err, errlen);
					if (ret == 0)
						ret =
						    round_write(s, ST_ROUND_PUT,
						                b, err, errlen);
				} else if (memcmp(a, b, sizeof *a) != 0) {
					ret = round_write(s, ST_ROUND_DATA, b,
					                  err, errlen);
				}
				i++;
				j++;
			}
		}
	}
	if (ret)
		return ret;
	tmp = s->saved;
	tmpcap = s->capsaved;
	s->saved = s->next;
	s->capsaved = s->capnext;
	s->nsaved = n;
	s->next = tmp;
	s->capnext = tmpcap;
	s->saved_valid = 1;
	return 0;
}

/* Checks that a loaded row agrees with the round its blob decodes to. */
static int row_matches(sqlite3_stmt *st, const hj_round *r, const char **why)
{
	hj_id player;

	if (hj_store__column_id(st, 1, &player) ||
	    !hj_id_eq(&player, &r->player)) {
		*why = "player column differs from the encoded round";
		return 0;
	}
	if (sqlite3_column_int64(st, 2) < 0 ||
	    (uint64_t)sqlite3_column_int64(st, 2) != r->bet_height ||
	    sqlite3_column_int64(st, 3) != (sqlite3_int64)r->bet_tx_index) {
		*why = "bet height or index column differs from the encoded "
		       "round";
		return 0;
	}
	return 1;
}

int hj_store_add_commit(hj_store *s, const hj_commit *c, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_COMMIT_ADD];
	int ret;

	if ((ret = hj_store__in_tx(s, "add commit", err, errlen)) ||
	    (ret = hj_store__fits_i64(c->height, "add commit: height", err,
	                              errlen)))
		return ret;
	if (sqlite3_bind_int64(st, 1, (sqlite3_int64)c->height) ||
	    sqlite3_bind_int64(st, 2, c->tx_index) ||
	    hj_store__bind_id(st, 3, &c->txid) ||
	    sqlite3_bind_int64(st, 4, (sqlite3_int64)c->start) ||
	    sqlite3_bind_int64(st, 5, c->length) ||
	    sqlite3_bind_blob(st, 6, c->commitment, sizeof c->commitment,
	                      SQLITE_STATIC)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "add commit", err, errlen);
	}
	return hj_store__step_done(s, st, "add commit", err, errlen);
}

int hj_store__column_commit(sqlite3_stmt *st, hj_commit *c)
{
	sqlite3_int64 len = sqlite3_column_int64(st, 4);

	memset(c, 0, sizeof *c);
	if (sqlite3_column_type(st, 5) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, 5) != 32 ||
	    hj_store__column_id(st, 2, &c->txid) || len < 1 ||
	    len > UINT32_MAX || sqlite3_column_int64(st, 0) < 0 ||
	    sqlite3_column_int64(st, 1) < 0 ||
	    sqlite3_column_int64(st, 1) > UINT32_MAX ||
	    sqlite3_column_int64(st, 3) < 0)
		return -1;
	c->height = (uint64_t)sqlite3_column_int64(st, 0);
	c->tx_index = (uint32_t)sqlite3_column_int64(st, 1);
	c->start = (uint64_t)sqlite3_column_int64(st, 3);
	c->length = (uint32_t)len;
	memcpy(c->commitment, sqlite3_column_blob(st, 5), 32);
	return 0;
}

/* The valid Commits, in block order, into t. */
static int load_commits(hj_store *s, hj_table *t, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_COMMITS_LOAD];
	size_t n = 0;
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_commit c;

		n++;
		if (hj_store__column_commit(st, &c)) {
			hj_say(err, errlen,
			       "%s: load commits: row %zu is not a "
			       "Commit",
			       s->path, n);
			ret = -EINVAL;
			break;
		}
		if (hj_table_restore_commit(t, &c)) {
			hj_say(err, errlen, "%s: load commits: out of memory",
			       s->path);
			ret = -ENOMEM;
			break;
		}
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "load commits", err, errlen);
	sqlite3_reset(st);
	return ret;
}

int hj_store_load_rounds(hj_store *s, hj_table *t, char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_ROUNDS_LOAD];
	char why[HJ_ERRLEN], hex[65];
	const char *bad;
	size_t n = 0;
	int rc, ret = 0;

	/* s->saved is refilled from what is read; valid only if all is. */
	s->saved_valid = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 4);
		int len = sqlite3_column_bytes(st, 4);
		hj_id id;
		hj_round r;

		if (hj_store__column_id(st, 0, &id)) {
			hj_say(err, errlen,
			       "%s: load rounds: row %zu has no "
			       "valid round id",
			       s->path, n + 1);
			ret = -EINVAL;
			break;
		}
		if (sqlite3_column_type(st, 4) != SQLITE_BLOB ||
		    len > HJ_ROUND_ENCODED_MAX) {
			hj_say(err, errlen,
			       "%s: load rounds: round %s: data is "
			       "not a round encoding (%d bytes)",
			       s->path, hj_store__id_hex(&id, hex), len);
			ret = -EINVAL;
			break;
		}
		if (hj_round_decode(blob, (size_t)len, &r, why, sizeof why)) {
			hj_say(err, errlen, "%s: load rounds: round %s: %s",
			       s->path, hj_store__id_hex(&id, hex), why);
			ret = -EINVAL;
			break;
		}
		if (!hj_id_eq(&id, &r.id)) {
			hj_say(err, errlen,
			       "%s: load rounds: round %s: the "
			       "encoded round has id %s",
			       s->path, hj_store__id_hex(&id, hex),
			       hj_store__id_hex(&r.id, why));
			ret = -EINVAL;
			break;
		}
		if (!row_matches(st, &r, &bad)) {
			hj_say(err, errlen, "%s: load rounds: round %s: %s",
			       s->path, hj_store__id_hex(&id, hex), bad);
			ret = -EINVAL;
			break;
		}
		ret = hj_table_restore(t, &r);
		if (ret) {
			hj_say(err, errlen, "%s: load rounds: round %s: %s",
			       s->path, hj_store__id_hex(&id, hex),
			       ret == -EEXIST
			           ? "its player already has an open "
			             "round in the table"
			           : "out of memory");
			break;
		}
		if (grow(&s->saved, &s->capsaved, n + 1)) {
			hj_say(err, errlen, "%s: load rounds: out of memory",
			       s->path);
			ret = -ENOMEM;
			break;
		}
		s->saved[n++] = r;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "load rounds", err, errlen);
	sqlite3_reset(st);
	if (ret == 0) {
		s->nsaved = n;
		s->saved_valid = 1;
	}
	if (ret == 0)
		ret = load_commits(s, t, err, errlen);
	return ret;
}
