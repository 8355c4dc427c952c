/*
 * Settlement's bookkeeping (docs/PAYOUTS.md, docs/PAYOUTS-EVM.md): the
 * payer's tag, the owed payouts no planned batch holds, batches from
 * planned to confirmed, refused or reverted with their payouts' states
 * moving with them, every signed version of an EVM transaction, nonces,
 * costs, the dealer's balance and the totals `hashjack status` shows.
 * The debts themselves are written by store_ledger.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "quote.h"
#include "store_impl.h"

/* One integer from a query with ?1 = id. */
static int query_i64(hj_store *s, const char *op, const char *sql, int64_t id,
                     int64_t *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, op, err, errlen);
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		ret = hj_store__fail(s, op, err, errlen);
	else
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ret;
}

/* A canonical amount column, or -EINVAL naming what it belongs to. */
static int column_amount(hj_store *s, sqlite3_stmt *st, int i, const char *what,
                         const char *name, hj_amount *v, char *err,
                         size_t errlen)
{
	const char *txt = (const char *)sqlite3_column_text(st, i);
	char q[96];

	if (txt == NULL ||
	    hj_amount_parse(txt, (size_t)sqlite3_column_bytes(st, i), v)) {
		hj_quote(name ? name : "", q, sizeof q);
		hj_say(err, errlen,
		       "%s: %s %s: amount is not a canonical decimal", s->path,
		       what, q);
		return -EINVAL;
	}
	return 0;
}

int hj_store_payer_tag(hj_store *s, char tag[17], char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT tag FROM settlement WHERE id = 1",
	                       -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "read the payer tag", err, errlen);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = hj_store__fail(s, "read the payer tag", err, errlen);
	} else {
		t = (const char *)sqlite3_column_text(st, 0);
		if (t == NULL || strlen(t) != 16) {
			hj_say(err, errlen,
			       "%s: settlement tag is not 16 digits", s->path);
			ret = -EINVAL;
		} else {
			memcpy(tag, t, 17);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

/* An owed payout is free when no planned batch holds it (a sent or
 * confirmed batch's payouts are no longer owed; a refused or reverted
 * batch let its payouts go) and no rewind orphaned it (its block left the
 * chain: store_rewind.c). */
#define IN_PLANNED(p)                                                          \
	"EXISTS (SELECT 1 FROM payout_batch_items i JOIN payout_batches b ON " \
	"b.id = i.batch WHERE i.payout = " p ".id AND b.state = 'planned')"
#define FREE_OWED(p) "(" p ".orphaned IS NULL AND NOT " IN_PLANNED(p) ")"

int hj_store_each_unbatched(hj_store *s,
                            int (*fn)(void *arg, const hj_owed_payout *p),
                            void *arg, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT p.id, p.recipient, p.amount, p.created_height FROM payouts "
	    "p WHERE p.state = 'owed' AND " FREE_OWED(
	        "p") " ORDER BY p.created_height, p.id";
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "list owed payouts", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_owed_payout p;

		memset(&p, 0, sizeof p);
		p.id = (const char *)sqlite3_column_text(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
		    hj_store__column_id(st, 1, &p.recipient)) {
			hj_say(err, errlen,
			       "%s: payout %s: recipient of bad length",
			       s->path, p.id ? p.id : "?");
			ret = -EINVAL;
			break;
		}
		ret = column_amount(s, st, 2, "payout", p.id, &p.amount, err,
		                    errlen);
		if (ret)
			break;
		p.height = (uint64_t)sqlite3_column_int64(st, 3);
		ret = fn(arg, &p);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "list owed payouts", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_plan_batch(hj_store *s, const hj_batch_plan *plan, int64_t *id,
                        char *err, size_t errlen)
{
	char total_s[HJ_AMOUNT_STRLEN], amt[HJ_AMOUNT_STRLEN], q[96];
	hj_amount total = 0, paid = 0;
	int ret, n;

	if ((ret = hj_store__in_tx(s, "plan batch", err, errlen)) ||
	    (ret = hj_store__fits_i64(plan->height, "plan batch: height", err,
	                              errlen)))
		return ret;
	if (plan->seed_chain > 0
	        ? plan->nouts != 1 || plan->npayouts != 0 ||
	              plan->outs[0].amount != 0 || plan->version == NULL
	        : plan->nouts == 0 || plan->npayouts == 0) {
		hj_say(err, errlen, "%s: plan batch: %s", s->path,
		       plan->seed_chain > 0
		           ? "a Commit is one signed transfer of 0, no payout"
		           : "no output or no payout");
		return -EINVAL;
	}
	for (size_t i = 0; i < plan->nouts; i++) {
		hj_amount v = plan->outs[i].amount;

		if ((v == 0 && plan->seed_chain <= 0) ||
		    v > HJ_AMOUNT_MAX - total ||
		    plan->outs[i].address == NULL) {
			hj_say(err, errlen,
			       "%s: plan batch: output %zu has no address, "
			       "amount 0, or the sum overflows",
			       s->path, i);
			return -EINVAL;
		}
		total += v;
	}
	if (plan->version != NULL &&
	    (plan->nouts != 1 || plan->gas_limit == 0 ||
	     plan->gas_limit > INT64_MAX || plan->nonce > INT64_MAX)) {
		hj_say(err, errlen,
		       "%s: plan batch: a transaction with a nonce has one "
		       "output, a gas limit and a signed version",
		       s->path);
		return -EINVAL;
	}
	ret = hj_store__run(
	    s, "plan batch",
	    "INSERT INTO payout_batches (state, created_height, "
	    "created_at, outputs, total, nonce, gas_limit) VALUES "
	    "('planned', ?1, ?2, ?3, ?4, CASE WHEN ?7 THEN ?5 END, CASE "
	    "WHEN ?7 THEN ?6 END)",
	    NULL, err, errlen, "iiitiii", (int64_t)plan->height, plan->now,
	    (int64_t)plan->nouts, hj_amount_format(total, total_s),
	    (int64_t)plan->nonce, (int64_t)plan->gas_limit,
	    (int64_t)(plan->version != NULL));
	if (ret == -EINVAL) {
		/* The unique indexes on planned batches and on nonces. */
		hj_say(err, errlen,
		       "%s: plan batch: a batch is already planned%s", s->path,
		       plan->version ? ", or its nonce is already used" : "");
		return -EEXIST;
	}
	if (ret)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	if (plan->seed_chain > 0)
		ret = hj_store__link_seed_chain(s, plan->seed_chain, *id, err,
		                                errlen);
	for (size_t i = 0; i < plan->nouts && ret == 0; i++) {
		ret = hj_store__run(
		    s, "plan batch: output",
		    "INSERT INTO payout_batch_outputs (batch, address, "
		    "amount) VALUES (?1, ?2, ?3)",
		    NULL, err, errlen, "itt", *id, plan->outs[i].address,
		    hj_amount_format(plan->outs[i].amount, amt));
		if (ret == -EEXIST)
			hj_say(err, errlen,
			       "%s: plan batch: address %s given twice",
			       s->path, plan->outs[i].address);
	}
	for (size_t i = 0; i < plan->npayouts && ret == 0; i++) {
		const char *pid = plan->payouts[i];
		sqlite3_stmt *st = NULL;
		hj_amount v;

		ret = hj_store__run(
		    s, "plan batch: payout",
		    "INSERT INTO payout_batch_items (batch, payout) SELECT "
		    "?1, p.id FROM payouts p WHERE p.id = ?2 AND p.state = "
		    "'owed' AND " FREE_OWED("p"),
		    &n, err, errlen, "it", *id, pid);
		hj_quote(pid ? pid : "", q, sizeof q);
		if (ret == 0 && n != 1) {
			hj_say(err, errlen,
			       "%s: plan batch: payout %s is not owed, or is "
			       "already in a planned batch (this one included)",
			       s->path, q);
			ret = -EINVAL;
			break;
		}
		if (ret)
			break;
		if (sqlite3_prepare_v2(
		        s->db, "SELECT amount FROM payouts WHERE id = ?1", -1,
		        &st, NULL) != SQLITE_OK ||
		    hj_store__bind_text(st, 1, pid) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			ret = hj_store__fail(s, "plan batch: payout", err,
			                     errlen);
		} else {
			ret = column_amount(s, st, 0, "payout", pid, &v, err,
			                    errlen);
			if (ret == 0 && v > HJ_AMOUNT_MAX - paid)
				ret = -ERANGE;
			if (ret == 0)
				paid += v;
		}
		sqlite3_finalize(st);
	}
	if (ret == 0 && paid != total) {
		char a[HJ_AMOUNT_STRLEN];

		hj_say(
		    err, errlen,
		    "%s: plan batch: the payouts add up to %s, the outputs to "
		    "%s",
		    s->path, hj_amount_format(paid, a), total_s);
		ret = -EINVAL;
	}
	if (ret == 0 && plan->version != NULL)
		ret = hj_store_add_version(s, *id, plan->version, err, errlen);
	return ret;
}

int hj_store_open_batches(hj_store *s, int64_t after, hj_batch *out, size_t max,
                          size_t *n, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT id, state, created_height, created_at, attempts, txid, "
	    "sent_height, outputs, total, coalesce(nonce, -1), "
	    "coalesce(gas_limit, 0), sent_at FROM payout_batches WHERE state "
	    "IN ('planned', 'sent') AND id > ?1 ORDER BY id LIMIT ?2";
	sqlite3_stmt *st = NULL;
	size_t k = 0;
	int rc, ret = 0;

	*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "list batches", err, errlen);
	if (sqlite3_bind_int64(st, 1, after) ||
	    sqlite3_bind_int64(st, 2, (int64_t)max)) {
		ret = hj_store__fail(s, "list batches", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < max) {
		hj_batch *b = &out[k];
		const char *state = (const char *)sqlite3_column_text(st, 1);
		char name[32];

		memset(b, 0, sizeof *b);
		b->id = sqlite3_column_int64(st, 0);
		snprintf(name, sizeof name, "%lld", (long long)b->id);
		b->sent = state != NULL && strcmp(state, "sent") == 0;
		b->created_height = (uint64_t)sqlite3_column_int64(st, 2);
		b->created_at = sqlite3_column_int64(st, 3);
		b->attempts = (unsigned)sqlite3_column_int64(st, 4);
		if (b->sent) {
			if (sqlite3_column_bytes(st, 5) != 32) {
				hj_say(err, errlen,
				       "%s: batch %s: sent without a txid",
				       s->path, name);
				ret = -EINVAL;
				break;
			}
			memcpy(b->txid, sqlite3_column_blob(st, 5), 32);
			b->sent_height = (uint64_t)sqlite3_column_int64(st, 6);
		}
		b->outputs = (unsigned)sqlite3_column_int64(st, 7);
		ret = column_amount(s, st, 8, "batch", name, &b->total, err,
		                    errlen);
		if (ret)
			break;
		b->nonce = sqlite3_column_int64(st, 9);
		b->gas_limit = (uint64_t)sqlite3_column_int64(st, 10);
		b->sent_at = sqlite3_column_int64(st, 11);
		k++;
	}
	if (ret == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = hj_store__fail(s, "list batches", err, errlen);
	sqlite3_finalize(st);
	*n = k;
	return ret;
}

int hj_store_planned_batch(hj_store *s, hj_batch *out, int *found, char *err,
                           size_t errlen)
{
	int64_t id = 0;
	size_t n = 0;
	int ret =
	    query_i64(s, "planned batch",
	              "SELECT coalesce((SELECT id FROM payout_batches WHERE "
	              "state = 'planned'), 0 * ?1)",
	              0, &id, err, errlen);

	*found = 0;
	if (ret || id == 0)
		return ret;
	ret = hj_store_open_batches(s, id - 1, out, 1, &n, err, errlen);
	if (ret == 0 && (n != 1 || out->id != id || out->sent)) {
		hj_say(err, errlen, "%s: planned batch %lld vanished", s->path,
		       (long long)id);
		ret = -EIO;
	}
	*found = ret == 0;
	return ret;
}

int hj_store_batch_outputs(hj_store *s, int64_t id,
                           int (*fn)(void *arg, const char *address,
                                     hj_amount amount),
                           void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db,
	                       "SELECT address, amount FROM "
	                       "payout_batch_outputs WHERE batch = ?1 "
	                       "ORDER BY address",
	                       -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "batch outputs", err, errlen);
	if (sqlite3_bind_int64(st, 1, id)) {
		ret = hj_store__fail(s, "batch outputs", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *addr = (const char *)sqlite3_column_text(st, 0);
		hj_amount v;

		ret = column_amount(s, st, 1, "batch output", addr, &v, err,
		                    errlen);
		if (ret == 0)
			ret = fn(arg, addr ? addr : "", v);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "batch outputs", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/*
 * Moves batch id out of the state its UPDATE's WHERE names, then every one
 * of its payouts (the second UPDATE must touch all of them); a failure
 * leaves the transaction for the caller to roll back.  Both statements
 * bind ?1 the batch id, ?2 txid (NULL when none), ?3 and ?4 the integers a
 * and b, ?5 text; each uses the ones it needs.
 */
static int batch_move(hj_store *s, const char *op, int64_t id,
                      const char *batch_sql, const char *payout_sql,
                      const uint8_t *txid, int64_t a, int64_t b,
                      const char *text, char *err, size_t errlen)
{
	int64_t items = 0;
	int n = 0, ret;

	if ((ret = hj_store__in_tx(s, op, err, errlen)))
		return ret;
	ret = hj_store__run(s, op, batch_sql, &n, err, errlen, "ibiit", id,
	                    txid, a, b, text);
	if (ret)
		return ret;
	if (n != 1) {
		hj_say(err, errlen,
		       "%s: %s: batch %lld is not in the state this needs",
		       s->path, op, (long long)id);
		return -EINVAL;
	}
	ret = query_i64(s, op,
	                "SELECT count(*) FROM payout_batch_items WHERE batch "
	                "= ?1",
	                id, &items, err, errlen);
	if (ret == 0)
		ret = hj_store__run(s, op, payout_sql, &n, err, errlen, "ibiit",
		                    id, txid, a, b, text);
	if (ret == 0 && n != items) {
		hj_say(err, errlen,
		       "%s: %s: batch %lld: %d of its %lld payouts were in the "
		       "state this needs",
		       s->path, op, (long long)id, n, (long long)items);
		ret = -EINVAL;
	}
	return ret;
}

/* The payouts of batch ?1. */
#define ITEMS_OF_1                                                             \
	"id IN (SELECT payout FROM payout_batch_items WHERE batch = ?1)"

int hj_store_batch_sent(hj_store *s, int64_t id, const uint8_t txid[32],
                        uint64_t height, int64_t now, char *err, size_t errlen)
{
	int ret = hj_store__fits_i64(height, "batch sent: height", err, errlen);

	if (ret)
		return ret;
	return batch_move(
	    s, "batch sent", id,
	    "UPDATE payout_batches SET state = 'sent', txid = ?2, sent_height "
	    "= ?3, sent_at = ?4, last_error = NULL WHERE id = ?1 AND state = "
	    "'planned'",
	    "UPDATE payouts SET state = 'submitted', submitted_txid = ?2, "
	    "submitted_height = ?3, submitted_at = ?4, last_error = NULL, "
	    "nonce = (SELECT nonce FROM payout_batches WHERE id = ?1) WHERE "
	    "state = 'owed' AND " ITEMS_OF_1,
	    txid, (int64_t)height, now, NULL, err, errlen);
}

int hj_store_batch_failed(hj_store *s, int64_t id, const char *error,
                          int refused, char *err, size_t errlen)
{
	return batch_move(
	    s, "batch failed", id,
	    "UPDATE payout_batches SET attempts = attempts + 1, last_error = "
	    "?5, state = CASE WHEN ?3 THEN 'refused' ELSE state END WHERE id "
	    "= ?1 AND state = 'planned'",
	    "UPDATE payouts SET last_error = ?5 WHERE state = 'owed' AND "
	    "" ITEMS_OF_1,
	    NULL, refused != 0, 0, error, err, errlen);
}

int hj_store_batch_retxid(hj_store *s, int64_t id, const uint8_t txid[32],
                          char *err, size_t errlen)
{
	return batch_move(s, "batch replaced", id,
	                  "UPDATE payout_batches SET txid = ?2 WHERE id = ?1 "
	                  "AND state = 'sent'",
	                  "UPDATE payouts SET submitted_txid = ?2 WHERE state "
	                  "= 'submitted' AND " ITEMS_OF_1,
	                  txid, 0, 0, NULL, err, errlen);
}

int hj_store_batch_confirmed(hj_store *s, int64_t id, uint64_t height,
                             char *err, size_t errlen)
{
	int ret =
	    hj_store__fits_i64(height, "batch confirmed: height", err, errlen);

	if (ret)
		return ret;
	return batch_move(
	    s, "batch confirmed", id,
	    "UPDATE payout_batches SET state = 'confirmed', confirmed_height "
	    "= ?3, last_error = NULL WHERE id = ?1 AND state = 'sent'",
	    "UPDATE payouts SET state = 'confirmed', confirmed_height = ?3, "
	    "last_error = NULL WHERE state = 'submitted' AND " ITEMS_OF_1,
	    NULL, (int64_t)height, 0, NULL, err, errlen);
}

int hj_store_batch_reverted(hj_store *s, int64_t id, const char *reason,
                            char *err, size_t errlen)
{
	return batch_move(
	    s, "batch reverted", id,
	    "UPDATE payout_batches SET state = 'reverted', last_error = ?5 "
	    "WHERE id = ?1 AND state = 'sent'",
	    "UPDATE payouts SET state = 'owed', submitted_txid = NULL, "
	    "submitted_height = NULL, submitted_at = NULL, nonce = NULL, "
	    "last_error = ?5 WHERE state = 'submitted' AND " ITEMS_OF_1,
	    NULL, 0, 0, reason, err, errlen);
}

int hj_store_settle_totals(hj_store *s, hj_settle_totals *t, char *err,
                           size_t errlen)
{
	static const char sql[] =
	    "SELECT p.id, p.state, p.recipient IS NULL, NOT " FREE_OWED(
	        "p") ", p.amount FROM payouts p WHERE p.state IN ('owed', "
	             "'submitted') AND NOT (p.state = 'owed' AND "
	             "p.orphaned IS NOT NULL AND NOT " IN_PLANNED("p") ")";
	sqlite3_stmt *st = NULL;
	hj_settle_totals x;
	int rc, ret = 0;

	memset(&x, 0, sizeof x);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "sum payouts", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *state = (const char *)sqlite3_column_text(st, 1);
		int owed = state != NULL && strcmp(state, "owed") == 0;
		hj_amount v, *sum;
		uint64_t *cnt;

		ret = column_amount(s, st, 4, "payout", id, &v, err, errlen);
		if (ret)
			break;
		struct {
			int on;
			uint64_t *n;
			hj_amount *sum;
		} add[4] = {
		    {owed, &x.owed_n, &x.owed},
		    {owed && sqlite3_column_int(st, 2), &x.unattributed_n,
		     &x.unattributed},
		    {owed && sqlite3_column_int(st, 3), &x.planned_n,
		     &x.planned},
		    {!owed, &x.submitted_n, &x.submitted},
		};
		for (int k = 0; k < 4 && ret == 0; k++) {
			if (!add[k].on)
				continue;
			cnt = add[k].n;
			sum = add[k].sum;
			if (v > HJ_AMOUNT_MAX - *sum) {
				hj_say(err, errlen,
				       "%s: payouts sum above 2^128-1",
				       s->path);
				ret = -ERANGE;
			} else {
				*sum += v;
				(*cnt)++;
			}
		}
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "sum payouts", err, errlen);
	sqlite3_finalize(st);
	if (ret == 0)
		*t = x;
	return ret;
}

int hj_store_add_version(hj_store *s, int64_t batch, const hj_tx_version *v,
                         char *err, size_t errlen)
{
	char fee[HJ_AMOUNT_STRLEN], tip[HJ_AMOUNT_STRLEN];
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = hj_store__in_tx(s, "record a signed transaction", err,
	                           errlen)))
		return ret;
	if (v->raw == NULL || v->raw_len == 0 || v->raw_len > INT32_MAX) {
		hj_say(err, errlen, "%s: record a signed transaction: no bytes",
		       s->path);
		return -EINVAL;
	}
	/* The batch must hold a nonce and still be open. */
	if (sqlite3_prepare_v2(
	        s->db,
	        "INSERT INTO payout_tx_versions (batch, seq, hash, raw, "
	        "max_fee, priority_fee, signed_at) SELECT ?1, 1 + coalesce("
	        "(SELECT max(seq) FROM payout_tx_versions WHERE batch = ?1), "
	        "0), ?2, ?3, ?4, ?5, ?6 FROM payout_batches WHERE id = ?1 AND "
	        "nonce IS NOT NULL AND state IN ('planned', 'sent')",
	        -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "record a signed transaction", err,
		                      errlen);
	if (sqlite3_bind_int64(st, 1, batch) ||
	    sqlite3_bind_blob(st, 2, v->hash, 32, SQLITE_STATIC) ||
	    sqlite3_bind_blob(st, 3, v->raw, (int)v->raw_len, SQLITE_STATIC) ||
	    hj_store__bind_text(st, 4, hj_amount_format(v->max_fee, fee)) ||
	    hj_store__bind_text(st, 5,
	                        hj_amount_format(v->priority_fee, tip)) ||
	    sqlite3_bind_int64(st, 6, v->signed_at)) {
		ret = hj_store__fail(s, "record a signed transaction", err,
		                     errlen);
	} else if (sqlite3_step(st) != SQLITE_DONE) {
		ret = hj_store__fail(s, "record a signed transaction", err,
		                     errlen);
	} else if (sqlite3_changes(s->db) != 1) {
		hj_say(err, errlen,
		       "%s: record a signed transaction: batch %lld is not an "
		       "open transaction with a nonce",
		       s->path, (long long)batch);
		ret = -EINVAL;
	}
	sqlite3_finalize(st);
	return ret;
}

int hj_store_each_version(hj_store *s, int64_t batch,
                          int (*fn)(void *arg, const hj_tx_version *v),
                          void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db,
	                       "SELECT seq, hash, raw, max_fee, priority_fee, "
	                       "signed_at FROM payout_tx_versions WHERE batch "
	                       "= ?1 ORDER BY seq DESC",
	                       -1, &st, NULL) != SQLITE_OK)
		return hj_store__fail(s, "signed transactions", err, errlen);
	if (sqlite3_bind_int64(st, 1, batch)) {
		ret = hj_store__fail(s, "signed transactions", err, errlen);
		sqlite3_finalize(st);
		return ret;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hj_tx_version v;
		char name[48];

		memset(&v, 0, sizeof v);
		snprintf(name, sizeof name, "%lld version %lld",
		         (long long)batch,
		         (long long)sqlite3_column_int64(st, 0));
		v.seq = (unsigned)sqlite3_column_int64(st, 0);
		v.raw = sqlite3_column_blob(st, 2);
		v.raw_len = (size_t)sqlite3_column_bytes(st, 2);
		if (sqlite3_column_bytes(st, 1) != 32 || v.raw == NULL) {
			hj_say(err, errlen,
			       "%s: batch %s: bad hash or no bytes", s->path,
			       name);
			ret = -EINVAL;
			break;
		}
		memcpy(v.hash, sqlite3_column_blob(st, 1), 32);
		ret = column_amount(s, st, 3, "batch", name, &v.max_fee, err,
		                    errlen);
		if (ret == 0)
			ret = column_amount(s, st, 4, "batch", name,
			                    &v.priority_fee, err, errlen);
		if (ret)
			break;
		v.signed_at = sqlite3_column_int64(st, 5);
		ret = fn(arg, &v);
		if (ret)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "signed transactions", err, errlen);
	sqlite3_finalize(st);
	return ret;
}

int hj_store_next_nonce(hj_store *s, uint64_t *next, char *err, size_t errlen)
{
	int64_t v = 0;
	int ret = query_i64(s, "next nonce",
	                    "SELECT coalesce(max(nonce), -1) + 1 + 0 * ?1 FROM "
	                    "payout_batches",
	                    0, &v, err, errlen);

	if (ret == 0)
		*next = (uint64_t)v;
	return ret;
}

int hj_store_last_sweep(hj_store *s, uint64_t *height, int *found, char *err,
                        size_t errlen)
{
	int64_t v = -1;
	/* A range of the primary key: the sweeps alone are read. */
	int ret = query_i64(s, "last sweep",
	                    "SELECT coalesce(max(created_height), -1) + 0 * ?1 "
	                    "FROM payouts WHERE id >= 'sweep:' AND id < "
	                    "'sweep;'",
	                    0, &v, err, errlen);

	if (ret == 0) {
		*found = v >= 0;
		*height = v >= 0 ? (uint64_t)v : 0;
	}
	return ret;
}

int hj_store_batch_cost(hj_store *s, int64_t id, uint64_t gas_used,
                        hj_amount fee, char *err, size_t errlen)
{
	char f[HJ_AMOUNT_STRLEN];
	int n = 0, ret;

	if ((ret = hj_store__in_tx(s, "batch cost", err, errlen)) ||
	    (ret =
	         hj_store__fits_i64(gas_used, "batch cost: gas", err, errlen)))
		return ret;
	ret = hj_store__run(
	    s, "batch cost",
	    "UPDATE payout_batches SET gas_used = ?2, fee = ?3 WHERE id "
	    "= ?1 AND state = 'confirmed'",
	    &n, err, errlen, "iit", id, (int64_t)gas_used,
	    hj_amount_format(fee, f));
	if (ret == 0 && n != 1) {
		hj_say(err, errlen,
		       "%s: batch cost: batch %lld is not confirmed", s->path,
		       (long long)id);
		ret = -EINVAL;
	}
	return ret;
}

int hj_store_set_balance(hj_store *s, hj_amount amount, uint64_t height,
                         int64_t at, const char *warning, char *err,
                         size_t errlen)
{
	char a[HJ_AMOUNT_STRLEN];
	int ret;

	if ((ret = hj_store__in_tx(s, "record the balance", err, errlen)) ||
	    (ret = hj_store__fits_i64(height, "record the balance: height", err,
	                              errlen)))
		return ret;
	return hj_store__run(
	    s, "record the balance",
	    "INSERT INTO dealer_balance (id, amount, height, at, "
	    "warning) VALUES (1, ?1, ?2, ?3, NULLIF(?4, '')) ON "
	    "CONFLICT (id) DO UPDATE SET amount = excluded.amount, "
	    "height = excluded.height, at = excluded.at, warning = "
	    "excluded.warning",
	    NULL, err, errlen, "tiit", hj_amount_format(amount, a),
	    (int64_t)height, at, warning ? warning : "");
}
