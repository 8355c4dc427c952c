/*
 * Rewinding the state below a reorganisation (store.h, hj_store_rewind;
 * docs/STATE.md, "Rewinding"), from the undo that schema 7's triggers keep
 * (store.c): the cursor of each batch boundary, and the first image of
 * every round row a batch changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "amount.h"
#include "store_impl.h"

/* A round row's image: NULL data when the row did not exist. */
struct image {
	int64_t bet_height, bet_tx_index;
	uint8_t *id, *player, *data;
	int idlen, playerlen, datalen;
};

static uint8_t *blob_dup(sqlite3_stmt *st, int col, int *len)
{
	const void *b = sqlite3_column_blob(st, col);
	uint8_t *p;

	*len = sqlite3_column_bytes(st, col);
	if (b == NULL)
		return NULL;
	p = malloc((size_t)*len ? (size_t)*len : 1);
	if (p)
		memcpy(p, b, (size_t)*len);
	return p;
}

static void images_free(struct image *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].player);
		free(v[i].data);
	}
	free(v);
}

/* The images of the batches from boundary b on, newest batch first and,
 * in a batch, the rows that did not exist (to delete) before the others:
 * a player whose round ended and who bet again in the same batch never
 * has two rows at once. */
static int images_read(hj_store *s, int64_t b, struct image **out, size_t *n,
                       char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT bet_height, bet_tx_index, id, player, data FROM "
	    "undo_rounds WHERE cursor >= ?1 ORDER BY cursor DESC, data IS "
	    "NOT NULL, bet_height, bet_tx_index";
	sqlite3_stmt *st = NULL;
	struct image *v = NULL;
	size_t cap = 0, k = 0;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, b) != SQLITE_OK) {
		sqlite3_finalize(st);
		return hj_store__fail(s, "rewind: read the undo", err, errlen);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct image *im;

		if (k == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct image *p = realloc(v, nc * sizeof *p);
			if (p == NULL) {
				ret = -ENOMEM;
				break;
			}
			v = p;
			cap = nc;
		}
		im = &v[k];
		memset(im, 0, sizeof *im);
		im->bet_height = sqlite3_column_int64(st, 0);
		im->bet_tx_index = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			im->id = blob_dup(st, 2, &im->idlen);
			im->player = blob_dup(st, 3, &im->playerlen);
			im->data = blob_dup(st, 4, &im->datalen);
			if (!im->id || !im->player || !im->data) {
				k++;
				ret = -ENOMEM;
				break;
			}
		}
		k++;
	}
	if (ret == -ENOMEM)
		hj_say(err, errlen, "%s: rewind: out of memory", s->path);
	else if (rc != SQLITE_DONE)
		ret = hj_store__fail(s, "rewind: read the undo", err, errlen);
	sqlite3_finalize(st);
	if (ret) {
		images_free(v, k);
		return ret;
	}
	*out = v;
	*n = k;
	return 0;
}

static int images_apply(hj_store *s, const struct image *v, size_t n, char *err,
                        size_t errlen)
{
	sqlite3_stmt *del = s->st[ST_ROUND_DEL], *put = s->st[ST_ROUND_PUT];
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		const struct image *im = &v[i];

		if (sqlite3_bind_int64(del, 1, im->bet_height) ||
		    sqlite3_bind_int64(del, 2, im->bet_tx_index)) {
			sqlite3_clear_bindings(del);
			return hj_store__fail(s, "rewind: round", err, errlen);
		}
		ret = hj_store__step_done(s, del, "rewind: round", err, errlen);
		if (ret || im->data == NULL)
			continue;
		if (sqlite3_bind_blob(put, 1, im->id, im->idlen,
		                      SQLITE_STATIC) ||
		    sqlite3_bind_blob(put, 2, im->player, im->playerlen,
		                      SQLITE_STATIC) ||
		    sqlite3_bind_int64(put, 3, im->bet_height) ||
		    sqlite3_bind_int64(put, 4, im->bet_tx_index) ||
		    sqlite3_bind_blob(put, 5, im->data, im->datalen,
		                      SQLITE_STATIC)) {
			sqlite3_clear_bindings(put);
			return hj_store__fail(s, "rewind: round", err, errlen);
		}
		ret = hj_store__step_done(s, put, "rewind: round", err, errlen);
	}
	return ret;
}

/* One integer a query gives (?1 bound to a), into *v. */
static int query_int(hj_store *s, const char *op, const char *sql, int64_t a,
                     int64_t *v, int *null, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, a) != SQLITE_OK) {
		sqlite3_finalize(st);
		return hj_store__fail(s, op, err, errlen);
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = hj_store__fail(s, op, err, errlen);
	} else {
		if (null)
			*null = sqlite3_column_type(st, 0) == SQLITE_NULL;
		*v = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return ret;
}

/* The boundary: the cursor as it was after the highest batch boundary at
 * or below fork.  0 with *to, or -ERANGE. */
static int boundary(hj_store *s, int64_t fork, hj_cursor *to, char *err,
                    size_t errlen)
{
	static const char sql[] =
	    "SELECT height, hash, log_offset, log_dev, log_ino FROM "
	    "undo_cursor WHERE height <= ?1 ORDER BY height DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, fork) != SQLITE_OK) {
		sqlite3_finalize(st);
		return hj_store__fail(s, "rewind: read the undo", err, errlen);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = -ERANGE;
	} else if (rc != SQLITE_ROW) {
		ret = hj_store__fail(s, "rewind: read the undo", err, errlen);
	} else if (hj_store__column_cursor(st, to)) {
		hj_say(err, errlen, "%s: rewind: an undo_cursor row is damaged",
		       s->path);
		ret = -EINVAL;
	}
	sqlite3_finalize(st);
	return ret;
}

/* The payouts of blocks above the boundary that a rewind takes: owed and
 * in no planned batch (dropped), or the others (orphaned).  Sweeps are the
 * dealer's own transfers, not debts of a block: they stay as they are. */
#define ABOVE                                                                  \
	"p.created_height > ?1 AND p.kind <> 'sweep' AND p.orphaned IS NULL"
#define IN_PLANNED                                                             \
	"EXISTS (SELECT 1 FROM payout_batch_items i JOIN payout_batches b ON " \
	"b.id = i.batch WHERE i.payout = p.id AND b.state = 'planned')"
#define DROPPED ABOVE " AND p.state = 'owed' AND NOT " IN_PLANNED

static int payouts_tally(hj_store *s, int64_t b, hj_rewind *out, char *err,
                         size_t errlen)
{
	static const char sql[] =
	    "SELECT p.id, p.amount, p.state = 'owed' AND "
	    "NOT " IN_PLANNED " FROM payouts p WHERE " ABOVE;
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, b) != SQLITE_OK) {
		sqlite3_finalize(st);
		return hj_store__fail(s, "rewind: payouts", err, errlen);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *txt = (const char *)sqlite3_column_text(st, 1);
		int drop = sqlite3_column_int(st, 2);
		hj_amount v,
		    *sum = drop ? &out->dropped_sum : &out->orphaned_sum;

		if (txt == NULL ||
		    hj_amount_parse(txt, (size_t)sqlite3_column_bytes(st, 1),
		                    &v) ||
		    v > HJ_AMOUNT_MAX - *sum) {
			hj_say(err, errlen,
			       "%s: rewind: payout %s: amount is not a "
			       "canonical decimal, or the sum is above 2^128-1",
			       s->path,
			       (const char *)sqlite3_column_text(st, 0));
			ret = -EINVAL;
			break;
		}
		*sum += v;
		if (drop)
			out->dropped++;
		else
			out->orphaned++;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "rewind: payouts", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* out->from, ->to (the boundary), ->oldest; -ENOENT or -ERANGE. */
static int point(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                 size_t errlen)
{
	int64_t v = 0;
	int none = 1, ret;

	if (fork > INT64_MAX) {
		hj_say(err, errlen, "rewind: block %" PRIu64 " above 2^63-1",
		       fork);
		return -EINVAL;
	}
	ret = hj_store_get_cursor(s, &out->from, err, errlen);
	if (ret)
		return ret;
	if (out->from.height == UINT64_MAX || out->from.height <= fork) {
		hj_say(err, errlen,
		       "%s: the cursor is at block %" PRId64
		       ", not above block %" PRIu64 ": nothing to rewind",
		       s->path, (int64_t)out->from.height, fork);
		return -ENOENT;
	}
	ret = query_int(s, "rewind: read the undo",
	                "SELECT min(height) FROM undo_cursor WHERE ?1 = ?1", 0,
	                &v, &none, err, errlen);
	if (ret)
		return ret;
	out->have_oldest = !none;
	out->oldest = (uint64_t)v;
	ret = boundary(s, (int64_t)fork, &out->to, err, errlen);
	if (ret == -ERANGE) {
		if (none)
			hj_say(err, errlen,
			       "%s: no undo is kept yet (it begins with the "
			       "first batch dealt under schema 7): the state "
			       "cannot go back to block %" PRIu64,
			       s->path, fork);
		else
			hj_say(err, errlen,
			       "%s: the undo goes back to block %" PRId64
			       " only ([state] rewind_blocks): the state "
			       "cannot go back to block %" PRIu64,
			       s->path, v, fork);
	}
	return ret;
}

int hj_store_rewind_point(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                          size_t errlen)
{
	memset(out, 0, sizeof *out);
	return point(s, fork, out, err, errlen);
}

static int rewind_in_tx(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                        size_t errlen)
{
	struct image *im = NULL;
	size_t nim = 0;
	int64_t b, f = (int64_t)fork;
	hj_cursor to = out->to;
	int n = 0, ret;

	memset(out, 0, sizeof *out);
	ret = point(s, fork, out, err, errlen);
	if (ret)
		return ret;
	if (to.height != out->to.height) {
		hj_say(err, errlen,
		       "%s: rewind: the boundary moved from block %" PRId64
		       " to %" PRId64 " since it was read; nothing was changed",
		       s->path, (int64_t)to.height, (int64_t)out->to.height);
		return -EAGAIN;
	}
	/* The card log as the caller left it. */
	out->to.log_offset = to.log_offset;
	out->to.log_dev = to.log_dev;
	out->to.log_ino = to.log_ino;
	b = (int64_t)out->to.height;

	/* The rounds, as they were at the boundary. */
	ret = images_read(s, b, &im, &nim, err, errlen);
	if (ret == 0)
		ret = images_apply(s, im, nim, err, errlen);
	images_free(im, nim);
	out->rounds = nim;

	/* The payouts of the blocks above it, then their transactions. */
	if (ret == 0)
		ret = payouts_tally(s, b, out, err, errlen);
	if (ret == 0)
		ret = hj_store__run(
		    s, "rewind: payouts",
		    "DELETE FROM payout_batch_items WHERE payout "
		    "IN (SELECT p.id FROM payouts p WHERE " DROPPED ")",
		    NULL, err, errlen, "i", b);
	if (ret == 0)
		ret = hj_store__run(s, "rewind: payouts",
		                    "DELETE FROM payouts AS p WHERE " DROPPED,
		                    NULL, err, errlen, "i", b);
	if (ret == 0)
		ret = hj_store__run(
		    s, "rewind: payouts",
		    "UPDATE payouts AS p SET orphaned = ?1, round "
		    "= NULL, txid = NULL WHERE " ABOVE,
		    NULL, err, errlen, "i", b);
	/* The Commits of those blocks (committed cards): the chains in force
	 * are the new branch's.  The dealer's seed_chains stay as they are,
	 * as its sweeps do: they are its own secrets and transactions, not
	 * what a block dealt.  A chain whose Commit left the chain is in
	 * force again only if that Commit is mined again before its first
	 * block (its batch is sent again, below); else the committer plans
	 * another when none is in force. */
	n = 0;
	if (ret == 0)
		ret = hj_store__run(s, "rewind: Commits",
		                    "DELETE FROM commits WHERE height > ?1", &n,
		                    err, errlen, "i", b);
	out->commits = (uint64_t)n;
	n = 0;
	if (ret == 0)
		ret = hj_store__run(s, "rewind: transactions",
		                    "DELETE FROM txs WHERE height > ?1", &n,
		                    err, errlen, "i", b);
	out->txs = (uint64_t)n;

	/* Payout transactions mined in blocks that left the chain. */
	if (ret == 0)
		ret = hj_store__run(
		    s, "rewind: payout batches",
		    "UPDATE payouts SET state = 'submitted', confirmed_height "
		    "= "
		    "NULL WHERE state = 'confirmed' AND id IN (SELECT i.payout "
		    "FROM payout_batch_items i JOIN payout_batches b ON b.id = "
		    "i.batch WHERE b.state = 'confirmed' AND "
		    "b.confirmed_height "
		    "> ?1)",
		    NULL, err, errlen, "i", f);
	n = 0;
	if (ret == 0)
		ret = hj_store__run(
		    s, "rewind: payout batches",
		    "UPDATE payout_batches SET state = 'sent', "
		    "confirmed_height = NULL, gas_used = NULL, fee "
		    "= NULL WHERE state = 'confirmed' AND "
		    "confirmed_height > ?1",
		    &n, err, errlen, "i", f);
	out->unconfirmed = (uint64_t)n;

	/* The cursor, and the undo it no longer needs. */
	if (ret == 0)
		ret = hj_store_set_cursor(s, &out->to, err, errlen);
	if (ret == 0)
		ret =
		    hj_store__run(s, "rewind: undo",
		                  "DELETE FROM undo_rounds WHERE cursor >= ?1",
		                  NULL, err, errlen, "i", b);
	if (ret == 0)
		ret =
		    hj_store__run(s, "rewind: undo",
		                  "DELETE FROM undo_cursor WHERE height >= ?1",
		                  NULL, err, errlen, "i", b);
	return ret;
}

int hj_store_rewind(hj_store *s, uint64_t fork, hj_rewind *out, char *err,
                    size_t errlen)
{
	int ret;

	ret = hj_store_begin(s, err, errlen);
	if (ret)
		return ret;
	ret = rewind_in_tx(s, fork, out, err, errlen);
	if (ret == 0)
		ret = hj_store_commit(s, err, errlen);
	else
		hj_store_rollback(s);
	s->saved_valid = 0;
	return ret;
}
