/*
 * What the targets of `hashjack serve` (fuzz_serve_http.c, fuzz_serve_log.c)
 * share: a real dealer's state directory, database and card log, written
 * once per process by the dealer's own code (tests/dealer_fixture.h) in a
 * directory of its own under $TMPDIR, removed at exit.  Included by one
 * file of each target only: it defines functions.
 *
 * The EVM dealer plays bethash with both side bets offered and a timeout of
 * 3 blocks, blocks 100 to 123 (serve_fixture_evm):
 *
 *   round 1 (player 1)  a Bet with a Perfect Pairs stake; a premature Hit
 *                       rejected; a Double on hard 11; the dealer busts
 *                       (settled at 107)
 *   round 2 (player 2)  no action: timed out into a Stand, lost (111)
 *   a deposit (player 4) at 108, a void block at 109
 *   round 3 (player 3)  a Bet with a 21+3 stake, an Ace up: a Peek, a
 *                       Split of 8s, a Hit: left open, in the database
 *   round 4 (player 1)  an Ace up, timed out into a Peek that finds the
 *                       dealer's blackjack (settled at 120)
 *
 * Blocks and transactions are numbered as they come, so a longer list
 * with these blocks first writes the same lines, then its own: that is
 * how the corpus of fuzz_serve_log got lines that follow this log.
 *
 * The Bitcoin-family dealer (serve_fixture_btc) has blocks and no round:
 * its ids and addresses are the other family's forms.
 */
#ifndef HJ_FUZZ_SERVE_FIXTURE_H
#define HJ_FUZZ_SERVE_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dealer_fixture.h"
#include "fuzz.h"
#include "rules.h"
#include "say.h"

#define SF_FIRST 100

struct serve_fixture {
	char dir[256], db[512], log[512];
	hj_family fam;
	uint64_t first, last; /* heights of the first and last line */
	uint64_t log_len;     /* bytes of the log, all committed */
	hj_id rounds[8], players[8];
	size_t nrounds, nplayers;
};

/* One block: its card (rank 1..13 and suit 0..3; rank 0: the fixture's
 * own card; rank 14: a void block) and up to 3 transactions. */
struct sf_block {
	uint8_t rank, suit;
	struct sf_tx {
		uint8_t kind; /* 0 none, 1 Bet, 2 another action, 3 deposit */
		uint8_t player;
		hj_act act;
		hj_amount value;
		uint64_t pp, t3; /* a Bet's side stakes, in value */
	} tx[3];
};

#define SF_BET(p, v, pp, t3)                                                   \
	{                                                                      \
		1, p, HJ_BET, v, pp, t3                                        \
	}
#define SF_ACT(p, a, v)                                                        \
	{                                                                      \
		2, p, a, v, 0, 0                                               \
	}
#define SF_DEPOSIT(p, v)                                                       \
	{                                                                      \
		3, p, HJ_ACT_NONE, v, 0, 0                                     \
	}
#define SF_CARD(r, s, ...)                                                     \
	{                                                                      \
		r, s,                                                          \
		{                                                              \
			__VA_ARGS__                                            \
		}                                                              \
	}
#define SF_VOID                                                                \
	{                                                                      \
		14, 0,                                                         \
		{                                                              \
			{                                                      \
				0                                              \
			}                                                      \
		}                                                              \
	}
#define SF_PLAIN                                                               \
	{                                                                      \
		0, 0,                                                          \
		{                                                              \
			{                                                      \
				0                                              \
			}                                                      \
		}                                                              \
	}

static const struct sf_block sf_evm_blocks[] = {
    /* 100 */ SF_CARD(13, 3, SF_BET(1, 1010, 10, 0)),
    /* 101 */ SF_CARD(5, 0, SF_ACT(1, HJ_HIT, 0)),
    /* 102 */ SF_CARD(9, 1, {0}),
    /* 103 */ SF_CARD(6, 2, SF_BET(2, 500, 0, 0)),
    /* 104 */ SF_CARD(7, 1, SF_ACT(1, HJ_DOUBLE, 1000)),
    /* 105 */ SF_CARD(7, 0, {0}),
    /* 106 */ SF_CARD(4, 1, {0}),
    /* 107 */ SF_CARD(11, 3, {0}),
    /* 108 */ SF_CARD(2, 2, SF_DEPOSIT(4, 5)),
    /* 109 */ SF_VOID,
    /* 110 */ SF_CARD(3, 3, {0}),
    /* 111 */ SF_CARD(10, 2, {0}),
    /* 112 */ SF_CARD(12, 0, SF_BET(3, 2020, 0, 20), SF_BET(1, 300, 0, 0)),
    /* 113 */ SF_CARD(8, 3, {0}),
    /* 114 */ SF_CARD(1, 2, {0}),
    /* 115 */ SF_CARD(8, 2, {0}),
    /* 116 */ SF_CARD(2, 0, SF_ACT(3, HJ_PEEK, 0)),
    /* 117 */ SF_CARD(5, 0, {0}),
    /* 118 */ SF_CARD(6, 1, SF_ACT(3, HJ_SPLIT, 2000)),
    /* 119 */ SF_CARD(3, 1, {0}),
    /* 120 */ SF_CARD(10, 0, {0}),
    /* 121 */ SF_CARD(4, 3, SF_ACT(3, HJ_HIT, 0)),
    /* 122 */ SF_CARD(9, 2, {0}),
    /* 123 */ SF_PLAIN,
};

static int sf_rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	return rmdir(dir);
}

static void sf_add_id(hj_id *set, size_t *n, size_t max, const hj_id *id)
{
	for (size_t i = 0; i < *n; i++)
		if (hj_id_eq(&set[i], id))
			return;
	if (*n < max)
		set[(*n)++] = *id;
}

/*
 * Writes the state directory of blocks[0..n) for family fam into a new
 * directory under $TMPDIR.  Aborts on failure: a target without its
 * dealer tests nothing.
 */
static void sf_make(struct serve_fixture *sf, hj_family fam,
                    const struct sf_block *blocks, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	hj_rules rules;
	hj_fixture *f;
	char err[HJ_ERRLEN];
	struct stat st;
	uint64_t txn = 1;

	memset(sf, 0, sizeof *sf);
	snprintf(sf->dir, sizeof sf->dir, "%s/hj-fuzz-serve-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(sf->dir) != NULL);
	FUZZ_CHECK(hj_rules_preset("bethash", &rules) == 0);
	rules.min_bet = 1;
	rules.max_bet = (hj_amount)1000000000000000000u * 1000;
	rules.timeout_blocks = 3;
	FUZZ_CHECK(hj_rules_set_key(&rules, "perfect_pairs", "25,12,6", err,
	                            sizeof err) == 0);
	FUZZ_CHECK(hj_rules_set_key(&rules, "twenty_one_plus_three",
	                            "100,40,30,10,5", err, sizeof err) == 0);
	FUZZ_CHECK(hj_rules_check(&rules, err, sizeof err) == 0);
	f = hj_fixture_new(sf->dir, fam, &rules, SF_FIRST, err, sizeof err);
	if (!f)
		fprintf(stderr, "serve fixture: %s\n", err);
	FUZZ_CHECK(f != NULL);
	sf->fam = fam;
	sf->first = SF_FIRST;
	snprintf(sf->db, sizeof sf->db, "%s", hj_fixture_db(f));
	snprintf(sf->log, sizeof sf->log, "%s", hj_fixture_log(f));
	for (size_t i = 0; i < n; i++) {
		const struct sf_block *b = &blocks[i];
		hj_action txs[3];
		size_t ntx = 0;
		uint8_t hash[32];
		const uint8_t *h = hash;

		if (b->rank == 0)
			h = NULL;
		else if (b->rank == 14)
			memset(hash, 0xee, sizeof hash); /* no rank digit */
		else
			hj_fixture_hash(b->rank, b->suit, i, hash);
		for (size_t k = 0; k < 3 && b->tx[k].kind; k++) {
			const struct sf_tx *t = &b->tx[k];
			hj_action *a = &txs[ntx++];

			if (t->kind == 1)
				*a = hj_fixture_bet(t->player, txn++, t->value,
				                    t->pp, t->t3);
			else
				*a = hj_fixture_act(t->player, txn++, t->act,
				                    t->value);
			a->tx_index = (uint32_t)k;
			if (t->kind == 3)
				a->kind = HJ_TX_DEPOSIT;
			sf_add_id(sf->players, &sf->nplayers, 8, &a->sender);
			if (t->kind == 1)
				sf_add_id(sf->rounds, &sf->nrounds, 8,
				          &a->txid);
		}
		if (hj_fixture_block(f, h, txs, ntx, err, sizeof err) != 0)
			fprintf(stderr, "serve fixture: block %zu: %s\n", i,
			        err);
		FUZZ_CHECK(hj_fixture_next(f) == SF_FIRST + i + 1);
	}
	sf->last = hj_fixture_next(f) - 1;
	hj_fixture_free(f);
	FUZZ_CHECK(stat(sf->log, &st) == 0);
	sf->log_len = (uint64_t)st.st_size;
}

static inline void serve_fixture_evm(struct serve_fixture *sf)
{
	sf_make(sf, HJ_EVM, sf_evm_blocks,
	        sizeof sf_evm_blocks / sizeof sf_evm_blocks[0]);
}

static inline void serve_fixture_btc(struct serve_fixture *sf)
{
	static const struct sf_block plain[4] = {SF_PLAIN, SF_PLAIN, SF_VOID,
	                                         SF_PLAIN};
	sf_make(sf, HJ_BITCOIN, plain, 4);
}

static inline void serve_fixture_remove(const struct serve_fixture *sf)
{
	if (sf->dir[0])
		sf_rm_dir(sf->dir);
}

#endif
