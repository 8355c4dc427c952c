/* hashjackd's own seed chains in the store (see store.h, seed_chains). */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "say.h"
#include "store_impl.h"

int hj_store_add_seed_chain(hj_store *s, const hj_store_seed_chain *r,
                            int64_t *id, char *err, size_t errlen)
{
	static const char sql[] =
	    "INSERT INTO seed_chains (commitment, start, length, state,"
	    " created_height, created_at) VALUES (?1, ?2, ?3, 'planned', ?4,"
	    " ?5)";
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = hj_store__in_tx(s, "add seed chain", err, errlen)) ||
	    (ret = hj_store__fits_i64(r->created_height,
	                              "add seed chain: height", err, errlen)))
		return ret;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "add seed chain", err, errlen);
	if (sqlite3_bind_blob(st, 1, r->commitment, 32, SQLITE_STATIC) ||
	    sqlite3_bind_int64(st, 2, (sqlite3_int64)r->start) ||
	    sqlite3_bind_int64(st, 3, r->length) ||
	    sqlite3_bind_int64(st, 4, (sqlite3_int64)r->created_height) ||
	    sqlite3_bind_int64(st, 5, r->created_at)) {
		ret = hj_store__fail(s, "add seed chain", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	ret = sqlite3_step(st) == SQLITE_DONE
	          ? 0
	          : hj_store__fail(s, "add seed chain", err, errlen);
	if (ret == 0)
		*id = sqlite3_last_insert_rowid(s->db);
	else if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE)
		ret = -EEXIST;
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_seed_chain(hj_store *s,
                             int (*fn)(void *arg, const hj_store_seed_chain *r),
                             void *arg, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT id, commitment, start, length, state, created_height,"
	    " created_at, coalesce(batch, 0), coalesce((SELECT state FROM"
	    " payout_batches WHERE id = batch), ''), tx, txid FROM"
	    " seed_chains ORDER BY id";
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "read seed chains", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_store_seed_chain r = {0};
		const unsigned char *state = sqlite3_column_text(st, 4);

		if (sqlite3_column_type(st, 1) != SQLITE_BLOB ||
		    sqlite3_column_bytes(st, 1) != 32 || !state ||
		    strlen((const char *)state) >= sizeof r.state ||
		    sqlite3_column_int64(st, 3) < 1 ||
		    sqlite3_column_int64(st, 3) > UINT32_MAX ||
		    (sqlite3_column_type(st, 9) != SQLITE_NULL &&
		     (sqlite3_column_bytes(st, 9) < 1 ||
		      sqlite3_column_bytes(st, 9) > HJ_STORE_COMMIT_TX_MAX ||
		      sqlite3_column_bytes(st, 10) != 32))) {
			hj_say(err, errlen,
			       "%s: seed chain %lld is not a seed chain",
			       s->path, (long long)sqlite3_column_int64(st, 0));
			ret = -EINVAL;
			break;
		}
		r.id = sqlite3_column_int64(st, 0);
		memcpy(r.commitment, sqlite3_column_blob(st, 1), 32);
		r.start = (uint64_t)sqlite3_column_int64(st, 2);
		r.length = (uint32_t)sqlite3_column_int64(st, 3);
		snprintf(r.state, sizeof r.state, "%s", (const char *)state);
		r.created_height = (uint64_t)sqlite3_column_int64(st, 5);
		r.created_at = sqlite3_column_int64(st, 6);
		r.batch = sqlite3_column_int64(st, 7);
		snprintf(r.batch_state, sizeof r.batch_state, "%s",
		         (const char *)sqlite3_column_text(st, 8));
		if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
			r.tx_len = (size_t)sqlite3_column_bytes(st, 9);
			memcpy(r.tx, sqlite3_column_blob(st, 9), r.tx_len);
			memcpy(r.txid, sqlite3_column_blob(st, 10), 32);
		}
		ret = fn(arg, &r);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "read seed chains", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_seed_chain_end(hj_store *s, const uint8_t commitment[32],
                            const char *state, char *err, size_t errlen)
{
	int ret;

	if (strcmp(state, "dealt") != 0 && strcmp(state, "late") != 0) {
		hj_say(err, errlen, "%s: seed chain: no state \"%s\"", s->path,
		       state);
		return -EINVAL;
	}
	if ((ret = hj_store__in_tx(s, "end seed chain", err, errlen)))
		return ret;
	return hj_store__run(s, "end seed chain",
	                     "UPDATE seed_chains SET state = ?2 WHERE"
	                     " commitment = ?1 AND state = 'planned'",
	                     NULL, err, errlen, "bt", commitment, state);
}

int hj_store__link_seed_chain(hj_store *s, int64_t id, int64_t batch, char *err,
                              size_t errlen)
{
	int n = 0, ret = hj_store__in_tx(s, "link seed chain", err, errlen);

	if (ret == 0)
		ret = hj_store__run(
		    s, "link seed chain",
		    "UPDATE seed_chains SET batch = ?2 WHERE id = ?1"
		    " AND state = 'planned'",
		    &n, err, errlen, "ii", id, batch);
	if (ret == 0 && n != 1) {
		hj_say(err, errlen,
		       "%s: plan batch: seed chain %lld is not "
		       "planned",
		       s->path, (long long)id);
		return -EINVAL;
	}
	return ret;
}

int hj_store_seed_chain_tx(hj_store *s, int64_t id, const uint8_t *tx,
                           size_t len, const uint8_t txid[32], char *err,
                           size_t errlen)
{
	static const char sql[] = "UPDATE seed_chains SET tx = ?2, txid = ?3"
	                          " WHERE id = ?1 AND state = 'planned'";
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = hj_store__in_tx(s, "record Commit", err, errlen)))
		return ret;
	if (len < 1 || len > HJ_STORE_COMMIT_TX_MAX) {
		hj_say(err, errlen, "%s: record Commit: %zu bytes", s->path,
		       len);
		return -EINVAL;
	}
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "record Commit", err, errlen);
	if (sqlite3_bind_int64(st, 1, id) ||
	    sqlite3_bind_blob(st, 2, tx, (int)len, SQLITE_STATIC) ||
	    sqlite3_bind_blob(st, 3, txid, 32, SQLITE_STATIC)) {
		ret = hj_store__fail(s, "record Commit", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	ret = sqlite3_step(st) == SQLITE_DONE
	          ? 0
	          : hj_store__fail(s, "record Commit", err, errlen);
	sqlite3_finalize(st);
	if (ret == 0 && sqlite3_changes(s->db) != 1) {
		hj_say(err, errlen,
		       "%s: record Commit: seed chain %lld is not planned",
		       s->path, (long long)id);
		return -EINVAL;
	}
	return ret;
}
