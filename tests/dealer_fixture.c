/* A dealer without a node (dealer_fixture.h). */
#include "dealer_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "card.h"
#include "cardlog.h"
#include "deal.h"
#include "effects.h"
#include "say.h"
#include "store.h"
#include "table.h"

struct hj_fixture {
	hj_family fam;
	hj_store *store;
	hj_table *t;
	hj_cardlog cl;
	int fd;
	char db[4096], log[4096];
	uint64_t next;
	uint8_t last_hash[32];
	uint64_t offset;
	int rc; /* the effects sink's first error */
	char err[HJ_ERRLEN];
	uint64_t height;
	void (*on_write)(void *ctx, uint64_t height);
	void *on_write_ctx;
	const hj_seed_source *seeds;
};

static int accept_all(void *ctx, const hj_round *r, const hj_action *a)
{
	(void)ctx;
	(void)r;
	(void)a;
	return 1;
}

const char *hj_fixture_db(const hj_fixture *f)
{
	return f->db;
}

const char *hj_fixture_log(const hj_fixture *f)
{
	return f->log;
}

uint64_t hj_fixture_next(const hj_fixture *f)
{
	return f->next;
}

static int set_cursor(hj_fixture *f, uint64_t height, const uint8_t hash[32],
                      char *err, size_t errlen)
{
	struct stat st;
	if (fstat(f->fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", f->log, strerror(errno));
		return -EIO;
	}
	hj_cursor c = {.height = height,
	               .log_offset = f->offset,
	               .log_dev = (uint64_t)st.st_dev,
	               .log_ino = (uint64_t)st.st_ino};
	memcpy(c.hash, hash, 32);
	return hj_store_set_cursor(f->store, &c, err, errlen);
}

hj_fixture *hj_fixture_new(const char *dir, hj_family fam,
                           const hj_rules *rules, uint64_t first, char *err,
                           size_t errlen)
{
	static const uint8_t zero[32];
	char rs[HJ_RULES_STRLEN];
	char why[HJ_ERRLEN];
	if (hj_rules_check(rules, why, sizeof why) != 0) {
		snprintf(err, errlen, "rules: %s", why);
		return NULL;
	}
	hj_fixture *f = calloc(1, sizeof *f);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->fam = fam;
	f->next = first;
	f->fd = -1;
	snprintf(f->db, sizeof f->db, "%s/hashjackd.sqlite", dir);
	snprintf(f->log, sizeof f->log, "%s/cards.jsonl", dir);
	hj_cardlog_init(&f->cl);
	hj_rules_format(rules, rs, sizeof rs);
	hj_store_meta m = {
	    .family = fam == HJ_EVM ? "evm" : "bitcoin",
	    .chain = fam == HJ_EVM
	                 ? "evm:31337"
	                 : "bitcoin:litecoin:regtest:"
	                   "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862"
	                   "df51fc56c416f9",
	    .dealer = fam == HJ_EVM
	                  ? "0x0000000000000000000000000000000000dea1e0"
	                  : "rltc1qccvndf7q62nwwp7h9d3j7gmlm2ex0anttw7k40",
	    .rules = rs};
	int no_table = hj_table_new(rules, &f->t) != 0;
	f->fd = open(f->log,
	             O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (no_table || f->fd < 0) {
		snprintf(err, errlen, "%s: cannot create", f->log);
		goto fail;
	}
	if (fam == HJ_BITCOIN)
		hj_table_set_verifier(f->t, accept_all, NULL);
	if (first > 0)
		hj_table_set_last_height(f->t, first - 1);
	if (hj_store_open(f->db, &f->store, err, errlen) ||
	    hj_store_check_meta(f->store, &m, err, errlen) ||
	    hj_store_begin(f->store, err, errlen) ||
	    set_cursor(f, first - 1, zero, err, errlen) ||
	    hj_store_commit(f->store, err, errlen))
		goto fail;
	return f;
fail:
	hj_fixture_free(f);
	return NULL;
}

void hj_fixture_free(hj_fixture *f)
{
	if (!f)
		return;
	hj_store_close(f->store);
	hj_table_free(f->t);
	hj_cardlog_release(&f->cl);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

void hj_fixture_hash(unsigned rank, unsigned suit, uint64_t salt,
                     uint8_t hash[32])
{
	/* Digits 0..61 that are never a rank (0, e, f), chosen by the salt,
	 * then the colour digit (suit + 4k) and the rank digit, rightmost. */
	static const uint8_t filler[3] = {0x0, 0xe, 0xf};
	uint64_t x = salt * 6364136223846793005u + 1442695040888963407u;
	uint8_t d[64];
	for (int i = 0; i < 62; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		d[i] = filler[(x >> 33) % 3];
	}
	d[62] = (uint8_t)(suit + 4 * (unsigned)((x >> 40) % 4));
	d[63] = (uint8_t)rank; /* 1..9, a (10) .. d (13) */
	for (int i = 0; i < 32; i++)
		hash[i] = (uint8_t)(d[2 * i] << 4 | d[2 * i + 1]);
}

int hj_fixture_rotate(hj_fixture *f, char *err, size_t errlen)
{
	char old[4200];
	int fd;
	snprintf(old, sizeof old, "%s.1", f->log);
	if (rename(f->log, old) != 0 ||
	    (fd = open(f->log,
	               O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
	               0644)) < 0) {
		snprintf(err, errlen, "%s: %s", f->log, strerror(errno));
		return -EIO;
	}
	close(f->fd);
	f->fd = fd;
	f->offset = 0;
	/* As hashjackd after SIGHUP: the new file's identity, at once. */
	int r = hj_store_begin(f->store, err, errlen);
	if (r == 0)
		r = set_cursor(f, f->next - 1, f->last_hash, err, errlen);
	if (r == 0)
		r = hj_store_commit(f->store, err, errlen);
	else
		hj_store_rollback(f->store);
	return r;
}

static void effects_sink(void *ctx, const hj_event *ev)
{
	hj_fixture *f = ctx;
	hj_effects out;
	if (f->rc)
		return;
	hj_effects_of(ev, f->height, &out);
	if (out.has_tx)
		f->rc = hj_store_add_tx(f->store, f->height, out.tx.tx,
		                        out.tx.outcome, out.tx.reason,
		                        out.tx.round, f->err, sizeof f->err);
	for (size_t i = 0; i < out.npayouts && !f->rc; i++)
		f->rc = hj_store_add_payout(f->store, &out.payouts[i], f->err,
		                            sizeof f->err);
	if (out.commit && !f->rc)
		f->rc = hj_store_add_commit(f->store, out.commit, f->err,
		                            sizeof f->err);
}

int hj_fixture_block(hj_fixture *f, const uint8_t *hash, const hj_action *txs,
                     size_t ntx, char *err, size_t errlen)
{
	hj_chain_block b = {
	    .height = f->next, .txs = (hj_action *)txs, .ntx = ntx};
	const char *line;
	size_t len;
	int r;

	if (hash)
		memcpy(b.hash, hash, 32);
	else
		hj_fixture_hash(1 + (unsigned)(f->next * 7 % 13),
		                (unsigned)(f->next % 4), f->next, b.hash);
	memcpy(b.parent, f->last_hash, 32);
	f->height = f->next;
	f->rc = 0;
	if ((r = hj_store_begin(f->store, err, errlen)) != 0)
		return r;
	r = hj_deal_block(f->t, &f->cl, f->fam == HJ_EVM ? "evm" : "bitcoin",
	                  f->fam, f->seeds, &b, effects_sink, f, &line, &len,
	                  err, errlen);
	if (r == 0 && f->rc) {
		r = f->rc;
		snprintf(err, errlen, "%s", f->err);
	}
	if (r == 0 && f->on_write)
		f->on_write(f->on_write_ctx, b.height);
	if (r == 0 && write(f->fd, line, len) != (ssize_t)len) {
		snprintf(err, errlen, "%s: %s", f->log, strerror(errno));
		r = -EIO;
	}
	if (r == 0) {
		f->offset += len;
		r = hj_store_save_rounds(f->store, f->t, err, errlen);
	}
	if (r == 0)
		r = set_cursor(f, b.height, b.hash, err, errlen);
	if (r == 0)
		r = hj_store_commit(f->store, err, errlen);
	else
		hj_store_rollback(f->store);
	if (r == 0) {
		memcpy(f->last_hash, b.hash, 32);
		f->next++;
	}
	return r;
}

void hj_fixture_seeds(hj_fixture *f, const hj_seed_source *seeds)
{
	f->seeds = seeds;
}

void hj_fixture_on_write(hj_fixture *f, void (*fn)(void *ctx, uint64_t height),
                         void *ctx)
{
	f->on_write = fn;
	f->on_write_ctx = ctx;
}

static hj_action evm_tx(uint8_t p, uint64_t n, hj_act act, hj_amount value)
{
	hj_action a = {.kind = HJ_TX_ACTION, .act = act, .value = value};
	a.sender.len = 20;
	a.sender.b[19] = p;
	a.txid.len = 32;
	for (int i = 0; i < 8; i++)
		a.txid.b[31 - i] = (uint8_t)(n >> (8 * i));
	a.txid.b[0] = p;
	return a;
}

hj_action hj_fixture_bet(uint8_t p, uint64_t n, hj_amount value, uint64_t pp,
                         uint64_t t3)
{
	hj_action a = evm_tx(p, n, HJ_BET, value);
	a.side_pp = pp;
	a.side_t3 = t3;
	return a;
}

hj_action hj_fixture_act(uint8_t p, uint64_t n, hj_act act, hj_amount value)
{
	return evm_tx(p, n, act, value);
}

hj_action hj_fixture_commit(uint64_t n, uint64_t start, uint32_t length,
                            const uint8_t s0[HJ_SEED_LEN])
{
	hj_action a = evm_tx(0, n, HJ_COMMIT, 0);
	a.txid.b[0] = 0xde;
	a.sender.b[17] = 0xde; /* the fixture's dealer, 0x00..dea1e0 */
	a.sender.b[18] = 0xa1;
	a.sender.b[19] = 0xe0;
	a.from_dealer = 1;
	a.commit_start = start;
	a.commit_length = length;
	memcpy(a.commitment, s0, HJ_SEED_LEN);
	return a;
}
