/*
 * Committed cards (game/seed.h, docs/PROTOCOL.md section 15): the seed
 * chain and the keyed card against the protocol's vectors, the watcher's
 * check of revealed seeds, which Commit is in force, and the table's
 * judgement of Commits in the protocol's order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "say.h"
#include "seed.h"
#include "sha256.h"
#include "table.h"

/* The protocol's vectors: s_L = SHA-256 of this text, L = 8. */
#define VECTOR_TEXT "hashjack committed cards test vector"
static const char *const S[9] = {
    "14941c1005385b6a00a7f729c4c0f68dacfb27205e9e68f3e86cb43fb85fd770",
    "dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499b42302e9e3b501",
    "79c45bcea86076fe686de0ecd5c3a2807cf3c7ceb6cb87c9c22fb393385eda80",
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    "f463bc65aaecac661915776ca62b2068e09e61d7ea006e7c8e444fa778eb31d8",
};

static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* The chain of the vectors: chain[i] = s_i. */
static void vector_chain(uint8_t chain[9][32])
{
	hj_sha256(VECTOR_TEXT, strlen(VECTOR_TEXT), chain[8]);
	for (int i = 8; i > 0; i--)
		hj_seed_prev(chain[i], chain[i - 1]);
}

static void test_vectors(void **state)
{
	uint8_t chain[9][32], want[32], hash[32];
	char hmac[65];
	hj_card c;

	(void)state;
	vector_chain(chain);
	for (int i = 0; i <= 8; i++) {
		if (!S[i])
			continue;
		unhex(S[i], want, 32);
		assert_memory_equal(chain[i], want, 32);
	}
	/* Bitcoin's genesis hash with s_1: 4 of Clubs (the bare hash's card
	 * is the 6 of Hearts). */
	unhex(
	    "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
	    hash, 32);
	hj_seed_card(chain[1], hash, hmac, &c);
	assert_string_equal(
	    hmac,
	    "a4d5960c30f66ae286c69b940863b5b6bdb6eea39b60b62206ee543f07651f84");
	assert_int_equal(c.rank, 4);
	assert_int_equal(c.suit, HJ_CLUBS);
	assert_int_equal(c.pos, 63);
	assert_int_equal(c.rank_digit, '4');
	assert_int_equal(c.color_digit, '8');
	hj_card_from_hash(
	    "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
	    64, &c, NULL, 0);
	assert_int_equal(c.rank, 6);
	assert_int_equal(c.suit, HJ_HEARTS);
	/* With s_2: the Ace of Diamonds. */
	unhex(
	    "0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e",
	    hash, 32);
	hj_seed_card(chain[2], hash, hmac, &c);
	assert_string_equal(
	    hmac,
	    "9d3f139674df7618194274bd3309157003131584b13bfbfcfdfc5036fa9f89d1");
	assert_int_equal(c.rank, 1);
	assert_int_equal(c.suit, HJ_DIAMONDS);
	assert_int_equal(c.pos, 63);
	assert_int_equal(c.color_digit, 'd');
}

/* RFC 4231 test case 2 and 6 (a key longer than a block). */
static void test_hmac(void **state)
{
	uint8_t out[32], want[32], key[131];

	(void)state;
	hj_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, out);
	unhex(
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    want, 32);
	assert_memory_equal(out, want, 32);
	memset(key, 0xaa, sizeof key);
	hj_hmac_sha256(key, sizeof key,
	               "Test Using Larger Than Block-Size Key - Hash Key First",
	               54, out);
	unhex(
	    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	    want, 32);
	assert_memory_equal(out, want, 32);
}

static hj_commit commit_of(uint64_t start, uint32_t length, uint64_t height,
                           uint32_t idx, const uint8_t s0[32])
{
	hj_commit c = {.start = start,
	               .length = length,
	               .height = height,
	               .tx_index = idx};

	c.txid.len = 32;
	memset(c.txid.b, (int)(height * 16 + idx), 32);
	memcpy(c.commitment, s0, 32);
	return c;
}

/* One hash per block; a gap is walked; a wrong seed, a seed out of the
 * chain or going back is refused with r unchanged. */
static void test_reveal(void **state)
{
	uint8_t chain[9][32], bad[32];
	hj_commit c, other;
	hj_reveal r = {0}, saved;
	char err[HJ_ERRLEN];

	(void)state;
	vector_chain(chain);
	c = commit_of(100, 8, 90, 0, chain[0]);
	other = commit_of(104, 8, 95, 1, chain[0]);
	assert_int_equal(hj_reveal_check(&r, &c, 1, chain[1], err, sizeof err),
	                 0);
	assert_int_equal(hj_reveal_check(&r, &c, 2, chain[2], err, sizeof err),
	                 0);
	/* s_3 in place of s_4: one hash short. */
	saved = r;
	assert_int_equal(hj_reveal_check(&r, &c, 4, chain[3], err, sizeof err),
	                 -EINVAL);
	assert_string_equal(
	    err, "seed 4 hashed 2 times is not the last seed checked");
	assert_memory_equal(&r, &saved, sizeof r);
	memcpy(bad, chain[3], 32);
	bad[0] ^= 1;
	assert_int_equal(hj_reveal_check(&r, &c, 3, bad, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "SHA-256 of seed 3 is not the seed before it");
	assert_int_equal(hj_reveal_check(&r, &c, 2, chain[2], err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "seed 2 comes after seed 2 of the same chain");
	assert_int_equal(hj_reveal_check(&r, &c, 9, chain[8], err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "seed 9 is outside the chain's 1..8");
	/* A gap: s_8 walks down to s_2. */
	assert_int_equal(hj_reveal_check(&r, &c, 8, chain[8], err, sizeof err),
	                 0);
	/* Another chain starts again from its commitment. */
	assert_int_equal(
	    hj_reveal_check(&r, &other, 1, chain[2], err, sizeof err), -EINVAL);
	assert_string_equal(err, "SHA-256 of seed 1 is not the commitment");
	assert_int_equal(
	    hj_reveal_check(&r, &other, 5, chain[5], err, sizeof err), 0);
	assert_int_equal(r.index, 5);
}

/* The greatest H <= B, the later of two with the same H; pruning keeps
 * what may still be in force. */
static void test_in_force(void **state)
{
	uint8_t z[32] = {0};
	hj_commits s = {0};
	hj_commit a = commit_of(10, 100, 5, 0, z);
	hj_commit b = commit_of(50, 100, 8, 0, z);
	hj_commit b2 = commit_of(50, 3, 9, 2, z);
	hj_commit c = commit_of(40, 100, 20, 0, z);

	(void)state;
	assert_null(hj_commits_at(&s, 10));
	assert_int_equal(hj_commits_add(&s, &a), 0);
	assert_int_equal(hj_commits_add(&s, &b), 0);
	assert_null(hj_commits_at(&s, 9));
	assert_true(hj_commit_same(hj_commits_at(&s, 10), &a));
	assert_true(hj_commit_same(hj_commits_at(&s, 49), &a));
	assert_true(hj_commit_same(hj_commits_at(&s, 50), &b));
	assert_int_equal(hj_commits_add(&s, &b2), 0);
	assert_true(hj_commit_same(hj_commits_at(&s, 50), &b2));
	/* b2 runs out at 53: void, not back to a or b. */
	assert_int_equal(hj_commit_index(hj_commits_at(&s, 52), 52), 3);
	assert_int_equal(hj_commit_index(hj_commits_at(&s, 53), 53), 0);
	/* c (H = 40) replaces a from 40 on, and b2 still wins at 50. */
	assert_int_equal(hj_commits_add(&s, &c), 0);
	assert_true(hj_commit_same(hj_commits_at(&s, 45), &c));
	hj_commits_prune(&s, 21);
	assert_int_equal(s.n, 4);
	hj_commits_prune(&s, 45); /* a is done */
	assert_int_equal(s.n, 3);
	hj_commits_prune(&s, 50); /* b and c are done: b2 is in force */
	assert_int_equal(s.n, 1);
	assert_true(hj_commit_same(&s.v[0], &b2));
	hj_commits_free(&s);
}

/* ---- the table ---- */

struct seen {
	hj_event ev[8];
	hj_commit commit[8];
	size_t n;
};

static void collect(void *ctx, const hj_event *ev)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	s->ev[s->n] = *ev;
	if (ev->commit) {
		s->commit[s->n] = *ev->commit;
		s->ev[s->n].commit = &s->commit[s->n];
	}
	s->n++;
}

static hj_action commit_tx(hj_txkind kind, int from_dealer, uint64_t start,
                           uint32_t idx, hj_amount value)
{
	hj_action a = {.kind = kind,
	               .act = HJ_COMMIT,
	               .reason =
	                   kind == HJ_TX_MALFORMED ? HJ_R_MALFORMED : HJ_OK,
	               .tx_index = idx,
	               .value = value,
	               .from_dealer = (uint8_t)from_dealer,
	               .commit_start = start,
	               .commit_length = kind == HJ_TX_ACTION ? 20 : 0};
	a.txid.len = 32;
	memset(a.txid.b, 0x40 + (int)idx, 32);
	a.sender.len = 20;
	memset(a.sender.b, from_dealer ? 0xde : 0x11, 20);
	memset(a.commitment, 0xc0, 32);
	return a;
}

static hj_table *table_with(uint8_t cards)
{
	hj_rules r;
	hj_table *t;

	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = 1000;
	r.timeout_blocks = 10;
	r.cards = cards;
	assert_int_equal(hj_table_new(&r, &t), 0);
	return t;
}

/* The order of docs/PROTOCOL.md section 15: malformed, not_dealer,
 * commit_too_late, each refunded; the valid one is in force from its H on,
 * not before. */
static void test_table_commits(void **state)
{
	hj_card v = {0};
	hj_table *t = table_with(HJ_CARDS_COMMITTED);
	hj_action txs[5] = {
	    commit_tx(HJ_TX_MALFORMED, 1, 0, 0, 5),
	    commit_tx(HJ_TX_ACTION, 0, 200, 1, 6),
	    commit_tx(HJ_TX_ACTION, 1, 100, 2, 7), /* H = Y */
	    commit_tx(HJ_TX_ACTION, 1, 101, 3, 0),
	    commit_tx(HJ_TX_FAILED, 1, 150, 4, 0),
	};
	struct seen s = {0};

	(void)state;
	assert_int_equal(hj_table_apply_block(t, 100, &v, txs, 5, collect, &s),
	                 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.ev[0].type, HJ_EV_REJECT);
	assert_int_equal(s.ev[0].reason, HJ_R_MALFORMED);
	assert_int_equal(s.ev[0].act, HJ_COMMIT);
	assert_true(s.ev[0].amount == 5);
	assert_int_equal(s.ev[1].reason, HJ_R_NOT_DEALER);
	assert_true(s.ev[1].amount == 6);
	assert_int_equal(s.ev[2].reason, HJ_R_COMMIT_TOO_LATE);
	assert_int_equal(s.ev[3].type, HJ_EV_COMMIT);
	assert_int_equal(s.ev[3].commit->start, 101);
	assert_int_equal(s.ev[3].commit->length, 20);
	assert_int_equal(s.ev[3].commit->height, 100);
	assert_int_equal(s.ev[3].commit->tx_index, 3);
	assert_int_equal(s.ev[4].type, HJ_EV_IGNORED);
	assert_null(hj_table_commit_at(t, 100));
	assert_non_null(hj_table_commit_at(t, 101));
	assert_int_equal(hj_commit_index(hj_table_commit_at(t, 120), 120), 20);
	assert_int_equal(hj_commit_index(hj_table_commit_at(t, 121), 121), 0);
	hj_table_free(t);
}

/* Under cards = hash, action 08 is unknown, as before committed cards:
 * the rejection names no action. */
static void test_table_hash(void **state)
{
	hj_card v = {0};
	hj_table *t = table_with(HJ_CARDS_HASH);
	hj_action txs[2] = {commit_tx(HJ_TX_ACTION, 1, 200, 0, 9),
	                    commit_tx(HJ_TX_MALFORMED, 1, 0, 1, 0)};
	struct seen s = {0};

	(void)state;
	assert_int_equal(hj_table_apply_block(t, 100, &v, txs, 2, collect, &s),
	                 0);
	assert_int_equal(s.n, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(s.ev[i].type, HJ_EV_REJECT);
		assert_int_equal(s.ev[i].reason, HJ_R_UNKNOWN_ACTION);
		assert_int_equal(s.ev[i].act, HJ_ACT_NONE);
	}
	assert_true(s.ev[0].amount == 9);
	assert_null(hj_table_commit_at(t, 300));
	hj_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_hmac),
	    cmocka_unit_test(test_reveal),
	    cmocka_unit_test(test_in_force),
	    cmocka_unit_test(test_table_commits),
	    cmocka_unit_test(test_table_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
