/*
 * What a processed block leaves in the ledger (docs/STATE.md): each
 * transaction to the dealer (hj_store_add_tx) and each payout it makes
 * owed (hj_store_add_payout), both through statements prepared at open,
 * and the sum of what is owed (hj_store_owed).  Settling those payouts is
 * store_settle.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "quote.h"
#include "store_impl.h"

static int outcome_known(const char *o)
{
	static const char *const names[] = {"accepted", "rejected", "deposit",
	                                    "ignored"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (o && strcmp(o, names[i]) == 0)
			return 1;
	return 0;
}

/* Whether txs holds a row of this id (1), or not (0, also when it cannot
 * be read: the caller then says SQLite's own reason). */
static int tx_recorded(hj_store *s, const hj_id *txid)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM txs WHERE txid = ?1", -1,
	                       &st, NULL) == SQLITE_OK &&
	    hj_store__bind_id(st, 1, txid) == SQLITE_OK)
		found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int hj_store_add_tx(hj_store *s, uint64_t height, const hj_action *a,
                    const char *outcome, hj_reason reason, const hj_id *round,
                    char *err, size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_TX_ADD];
	char value[HJ_AMOUNT_STRLEN], hex[65];
	int ret;

	if ((ret = hj_store__in_tx(s, "add tx", err, errlen)) ||
	    (ret = hj_store__fits_i64(height, "add tx: height", err, errlen)))
		return ret;
	if (a->txid.len < 1 || a->txid.len > 32 || a->sender.len > 32 ||
	    (round && round->len > 32)) {
		hj_say(err, errlen,
		       "%s: add tx: txid, sender or round of bad "
		       "length",
		       s->path);
		return -EINVAL;
	}
	if (!outcome_known(outcome) || (unsigned)reason >= HJ_R_COUNT ||
	    (unsigned)a->act > HJ_COMMIT) {
		hj_say(err, errlen,
		       "%s: add tx %s: unknown outcome, action or "
		       "reason",
		       s->path, hj_store__id_hex(&a->txid, hex));
		return -EINVAL;
	}
	if (hj_store__bind_id(st, 1, &a->txid) ||
	    sqlite3_bind_int64(st, 2, (sqlite3_int64)height) ||
	    sqlite3_bind_int64(st, 3, a->tx_index) ||
	    hj_store__bind_id(st, 4, &a->sender) ||
	    hj_store__bind_text(st, 5, hj_amount_format(a->value, value)) ||
	    hj_store__bind_text(st, 6, outcome) ||
	    hj_store__bind_text(
	        st, 7, a->act != HJ_ACT_NONE ? hj_act_name(a->act) : NULL) ||
	    hj_store__bind_text(
	        st, 8, reason != HJ_OK ? hj_reason_name(reason) : NULL) ||
	    hj_store__bind_id(st, 9, round)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "add tx", err, errlen);
	}
	ret = hj_store__step_done(s, st, "add tx", err, errlen);
	if (ret != -EEXIST && ret != -EINVAL)
		return ret;
	/* A constraint: the transaction recorded already (its id is), or a
	 * row that cannot be (another at its place, a bad value). */
	char why[256];
	snprintf(why, sizeof why, "%s", sqlite3_errmsg(s->db));
	if (tx_recorded(s, &a->txid)) {
		hj_say(err, errlen, "%s: add tx: %s already recorded", s->path,
		       hj_store__id_hex(&a->txid, hex));
		return -EEXIST;
	}
	hj_say(err, errlen, "%s: add tx %s (block %llu, index %u): %s", s->path,
	       hj_store__id_hex(&a->txid, hex), (unsigned long long)height,
	       a->tx_index, why);
	return -EINVAL;
}

/* The fields a payout of each kind must and must not have. */
static const char *payout_invalid(const hj_payout *p)
{
	size_t k;

	if (p->id == NULL || p->kind == NULL)
		return "id or kind missing";
	if (strcmp(p->kind, "return") != 0 &&
	    strcmp(p->kind, "insurance") != 0 &&
	    strcmp(p->kind, "sidebet") != 0 && strcmp(p->kind, "refund") != 0 &&
	    strcmp(p->kind, "sweep") != 0)
		return "kind is not return, insurance, sidebet, refund or "
		       "sweep";
	k = strlen(p->kind);
	if (strncmp(p->id, p->kind, k) != 0 || p->id[k] != ':')
		return "id does not begin with its kind";
	for (const char *c = p->id; *c; c++)
		if (*c <= ' ' || *c >= 0x7f || (*c >= 'A' && *c <= 'Z'))
			return "id holds a character other than lower-case "
			       "printable ASCII";
	if ((p->round && (p->round->len < 1 || p->round->len > 32)) ||
	    (p->txid && (p->txid->len < 1 || p->txid->len > 32)) ||
	    (p->recipient && p->recipient->len > 32))
		return "round, txid or recipient of bad length";
	if (strcmp(p->kind, "return") == 0 && (!p->round || p->hand < 0))
		return "a return needs its round and hand";
	if ((strcmp(p->kind, "insurance") == 0 ||
	     strcmp(p->kind, "sidebet") == 0) &&
	    (!p->round || p->hand != -1))
		return "an insurance or side bet return needs its round and "
		       "no hand";
	if (strcmp(p->kind, "refund") == 0 && (!p->txid || p->hand != -1))
		return "a refund needs its transaction and no hand";
	if (strcmp(p->kind, "refund") != 0 && p->txid)
		return "only a refund names a transaction";
	if (strcmp(p->kind, "sweep") == 0 &&
	    (p->round || p->hand != -1 || !p->recipient ||
	     p->recipient->len == 0))
		return "a sweep names its recipient and no round or hand";
	if (p->amount == 0)
		return "amount 0: nothing is owed";
	return NULL;
}

/*
 * p's id is taken: by a payout orphaned by a rewind (store_rewind.c)?
 * The same debt (kind, hand, recipient, amount) takes it back, keeping its
 * state: 0.  A different one is renamed "<id>@<block rewound to>", left
 * orphaned, and p is to be recorded: 2.  Not orphaned: 1 (a duplicate).
 */
static int take_back(hj_store *s, const hj_payout *p, const char *amount,
                     char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT orphaned, kind = ?2 AND hand IS ?3 AND recipient IS ?4 AND "
	    "amount = ?5 FROM payouts WHERE id = ?1";
	sqlite3_stmt *st = NULL;
	char renamed[192], q[96];
	int64_t orphaned = 0;
	int rc, same = 0, found = 0, ret;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    hj_store__bind_text(st, 1, p->id) ||
	    hj_store__bind_text(st, 2, p->kind) ||
	    (p->hand >= 0 ? sqlite3_bind_int(st, 3, p->hand)
	                  : sqlite3_bind_null(st, 3)) ||
	    hj_store__bind_id(st, 4, p->recipient) ||
	    hj_store__bind_text(st, 5, amount)) {
		sqlite3_finalize(st);
		return hj_store__fail(s, "add payout", err, errlen);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		found = 1;
		orphaned = sqlite3_column_int64(st, 0);
		same = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return hj_store__fail(s, "add payout", err, errlen);
	if (!found)
		return 1;
	if (same) {
		if (sqlite3_prepare_v2(
		        s->db,
		        "UPDATE payouts SET round = ?2, txid = ?3, "
		        "created_height = ?4, orphaned = NULL WHERE id = ?1",
		        -1, &st, NULL) != SQLITE_OK ||
		    hj_store__bind_text(st, 1, p->id) ||
		    hj_store__bind_id(st, 2, p->round) ||
		    hj_store__bind_id(st, 3, p->txid) ||
		    sqlite3_bind_int64(st, 4, (sqlite3_int64)p->height)) {
			sqlite3_finalize(st);
			return hj_store__fail(s, "add payout: take back", err,
			                      errlen);
		}
		ret = sqlite3_step(st) == SQLITE_DONE
		          ? 0
		          : hj_store__fail(s, "add payout: take back", err,
		                           errlen);
		sqlite3_finalize(st);
		return ret;
	}
	snprintf(renamed, sizeof renamed, "%s@%" PRId64, p->id, orphaned);
	/* Its batches name it: their references are checked at commit. */
	ret = hj_store__run(s, "add payout: rename an orphaned payout",
	                    "PRAGMA defer_foreign_keys = ON", NULL, err, errlen,
	                    "");
	if (ret == 0)
		ret = hj_store__run(s, "add payout: rename an orphaned payout",
		                    "UPDATE payout_batch_items SET payout = ?2 "
		                    "WHERE payout = ?1",
		                    NULL, err, errlen, "tt", p->id, renamed);
	if (ret == 0)
		ret = hj_store__run(s, "add payout: rename an orphaned payout",
		                    "UPDATE payouts SET id = ?2 WHERE id = ?1",
		                    NULL, err, errlen, "tt", p->id, renamed);
	if (ret == -EEXIST) {
		hj_quote(renamed, q, sizeof q);
		hj_say(err, errlen, "%s: add payout: %s already recorded",
		       s->path, q);
	}
	return ret ? ret : 2;
}

int hj_store_add_payout(hj_store *s, const hj_payout *p, char *err,
                        size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_PAYOUT_ADD];
	char amount[HJ_AMOUNT_STRLEN], q[96];
	const char *bad;
	int ret;

	if ((ret = hj_store__in_tx(s, "add payout", err, errlen)) ||
	    (ret = hj_store__fits_i64(p->height, "add payout: height", err,
	                              errlen)))
		return ret;
	if ((bad = payout_invalid(p)) != NULL) {
		hj_quote(p->id ? p->id : "", q, sizeof q);
		hj_say(err, errlen, "%s: add payout %s: %s", s->path, q, bad);
		return -EINVAL;
	}
	if (hj_store__bind_text(st, 1, p->id) ||
	    hj_store__bind_text(st, 2, p->kind) ||
	    hj_store__bind_id(st, 3, p->round) ||
	    (p->hand >= 0 ? sqlite3_bind_int(st, 4, p->hand)
	                  : sqlite3_bind_null(st, 4)) ||
	    hj_store__bind_id(st, 5, p->txid) ||
	    hj_store__bind_id(st, 6, p->recipient) ||
	    hj_store__bind_text(st, 7, hj_amount_format(p->amount, amount)) ||
	    sqlite3_bind_int64(st, 8, (sqlite3_int64)p->height)) {
		sqlite3_clear_bindings(st);
		return hj_store__fail(s, "add payout", err, errlen);
	}
	ret = hj_store__step_done(s, st, "add payout", err, errlen);
	if (ret == -EEXIST) {
		int again = take_back(s, p, amount, err, errlen);

		if (again == 0)
			return 0;
		if (again == 2)
			return hj_store_add_payout(s, p, err, errlen);
		if (again < 0)
			return again;
	}
	if (ret == -EEXIST || ret == -EINVAL) {
		hj_quote(p->id, q, sizeof q);
		if (ret == -EEXIST)
			hj_say(err, errlen,
			       "%s: add payout: %s already recorded", s->path,
			       q);
		else
			hj_say(err, errlen, "%s: add payout %s: %s", s->path, q,
			       sqlite3_errmsg(s->db));
	}
	return ret;
}

int hj_store_owed(hj_store *s, uint64_t *count, hj_amount *sum, char *err,
                  size_t errlen)
{
	sqlite3_stmt *st = s->st[ST_OWED];
	uint64_t n = 0;
	hj_amount total = 0;
	char q[96];
	int rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *txt = (const char *)sqlite3_column_text(st, 1);
		int len = sqlite3_column_bytes(st, 1);
		hj_amount v;

		if (txt == NULL || hj_amount_parse(txt, (size_t)len, &v)) {
			hj_quote(id ? id : "", q, sizeof q);
			hj_say(err, errlen,
			       "%s: payout %s: amount is not a "
			       "canonical decimal",
			       s->path, q);
			ret = -EINVAL;
			break;
		}
		if (v > HJ_AMOUNT_MAX - total) {
			hj_say(err, errlen,
			       "%s: owed payouts sum above 2^128-1", s->path);
			ret = -ERANGE;
			break;
		}
		total += v;
		n++;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = hj_store__fail(s, "sum owed payouts", err, errlen);
	sqlite3_reset(st);
	if (ret == 0) {
		*count = n;
		*sum = total;
	}
	return ret;
}
