/*
 * `hashjack verify` under committed cards (docs/PROTOCOL.md section 15,
 * docs/VERIFY.md): the seeds a dealer's line reveals, checked against the
 * chain and its commitment (hjc_verify_seed), and the lines verify deals
 * with them against the dealer's, in words (hjc_verify_describe): the
 * dealer's lines are written by the dealer's own step (hj_deal_block with
 * the protocol's vector chain), then tampered as a dishonest dealer would,
 * and dealt again as verify does, with the seeds of the lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cardlog.h"
#include "deal.h"
#include "evm.h"
#include "rules.h"
#include "say.h"
#include "seed.h"
#include "sha256.h"
#include "table.h"
#include "verify.h"

#define E18 ((hj_amount)1000000000000000000ull)

/* The protocol's vectors: s_L = SHA-256 of this text, L = 8. */
#define VECTOR_TEXT "hashjack committed cards test vector"
#define S1          "dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499b42302e9e3b501"
#define S2          "79c45bcea86076fe686de0ecd5c3a2807cf3c7ceb6cb87c9c22fb393385eda80"
#define S0          "14941c1005385b6a00a7f729c4c0f68dacfb27205e9e68f3e86cb43fb85fd770"
#define DEALER      "2229573478a2eec4bd93511a874779bb786cfc54"
#define OTHER       "70997970c51812dc3a010c7d01b50e0d17dc79c8"
#define TXID        "159b8d6f44e8b82aada74fc6692999f10e6da8a4e15215e82cd06d8b94f668f8"

/* A Commit for blocks 101 to 108 (H = 101, L = 8) of the vector chain. */
static const uint8_t COMMIT[48] = {
    0x48, 0x4a, 0x01, 0x08, 0,    0,    0,    0,    0,    0,    0,    101,
    0,    0,    0,    8,    0x14, 0x94, 0x1c, 0x10, 0x05, 0x38, 0x5b, 0x6a,
    0x00, 0xa7, 0xf7, 0x29, 0xc4, 0xc0, 0xf6, 0x8d, 0xac, 0xfb, 0x27, 0x20,
    0x5e, 0x9e, 0x68, 0xf3, 0xe8, 0x6c, 0xb4, 0x3f, 0xb8, 0x5f, 0xd7, 0x70};

static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* chain[i] = s_i of the vector chain. */
static void vector_chain(uint8_t chain[9][32])
{
	hj_sha256(VECTOR_TEXT, strlen(VECTOR_TEXT), chain[8]);
	for (int i = 8; i > 0; i--)
		hj_seed_prev(chain[i], chain[i - 1]);
}

/* The Commit as the table keeps it: in block 100, H = 101, L = 8. */
static hj_commit vector_commit(void)
{
	hj_commit c = {.start = 101, .length = 8, .height = 100};
	unhex(S0, c.commitment, 32);
	unhex(TXID, c.txid.b, 32);
	c.txid.len = 32;
	return c;
}

/* A line revealing seed (hex, or NULL: none). */
static char *line_with(const char *seed)
{
	char *s = malloc(300);
	assert_non_null(s);
	if (seed)
		snprintf(s, 300,
		         "{\"v\":2,\"chain\":\"evm\",\"height\":101,"
		         "\"seed\":\"%s\",\"void\":true,\"events\":[]}",
		         seed);
	else
		snprintf(s, 300,
		         "{\"v\":2,\"chain\":\"evm\",\"height\":101,"
		         "\"void\":true,\"events\":[]}");
	return s;
}

static int check(hj_reveal *rv, const char *seed, uint32_t i, uint8_t out[32],
                 char *what, size_t n)
{
	hj_commit c = vector_commit();
	char *l = line_with(seed);
	int rc =
	    hjc_verify_seed(rv, l, strlen(l), &c, i, 100 + i, out, what, n);
	free(l);
	return rc;
}

static void hex32(const uint8_t b[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Seeds in order, from the chain's first; one hash each. */
static void test_seeds_in_order(void **state)
{
	uint8_t chain[9][32], out[32];
	char what[400], hex[65];
	hj_reveal rv = {0};

	(void)state;
	vector_chain(chain);
	assert_int_equal(check(&rv, S1, 1, out, what, sizeof what), 0);
	assert_memory_equal(out, chain[1], 32);
	assert_int_equal(check(&rv, S2, 2, out, what, sizeof what), 0);
	assert_memory_equal(out, chain[2], 32);
	assert_int_equal(rv.index, 2);
	for (uint32_t i = 3; i <= 8; i++) {
		hex32(chain[i], hex);
		assert_int_equal(check(&rv, hex, i, out, what, sizeof what), 0);
	}
	assert_int_equal(rv.index, 8);
}

/* A log that begins mid-chain: its first seed is walked down to the
 * commitment; a seed again, or one of another chain, is refused. */
static void test_seeds_mid_chain(void **state)
{
	uint8_t chain[9][32], out[32], other[32];
	char what[400], hex[65];
	hj_reveal rv = {0};

	(void)state;
	vector_chain(chain);
	hex32(chain[5], hex);
	assert_int_equal(check(&rv, hex, 5, out, what, sizeof what), 0);
	assert_int_equal(rv.index, 5);
	/* A gap: seed 7 walked down two hashes to seed 5. */
	hex32(chain[7], hex);
	assert_int_equal(check(&rv, hex, 7, out, what, sizeof what), 0);

	/* Another chain's first seed, from the start. */
	memset(&rv, 0, sizeof rv);
	hj_sha256("another chain", 13, other);
	hex32(other, hex);
	assert_int_equal(check(&rv, hex, 3, out, what, sizeof what), -EINVAL);
	assert_memory_equal(out, other, 32); /* the dealer's, to deal with */
	assert_string_equal(
	    what, "seed: seed 3 hashed 3 times is not the commitment (seed 3 "
	          "is block 103's, of the chain committed in block 100 "
	          "(blocks 101 to 108), whose commitment is in that block's "
	          "commit event)");
	assert_int_equal(rv.have, 0);
	assert_int_equal(check(&rv, hex, 1, out, what, sizeof what), -EINVAL);
	assert_string_equal(
	    what, "seed: SHA-256 of seed 1 is not the commitment (seed 1 is "
	          "block 101's, of the chain committed in block 100 (blocks "
	          "101 to 108), whose commitment is in that block's commit "
	          "event)");
}

/* A wrong seed in the middle: one failure, the next seeds checked against
 * the last one that chained. */
static void test_seed_wrong(void **state)
{
	uint8_t chain[9][32], out[32];
	char what[400], hex[65];
	hj_reveal rv = {0};

	(void)state;
	vector_chain(chain);
	assert_int_equal(check(&rv, S1, 1, out, what, sizeof what), 0);
	assert_int_equal(check(&rv, S2, 2, out, what, sizeof what), 0);
	/* Seed 4 given for block 103 (the next block's seed, early). */
	hex32(chain[4], hex);
	assert_int_equal(check(&rv, hex, 3, out, what, sizeof what), -EINVAL);
	assert_string_equal(
	    what, "seed: SHA-256 of seed 3 is not the seed before it (seed 3 "
	          "is block 103's, the last seed checked block 102's, of the "
	          "chain committed in block 100 (blocks 101 to 108))");
	assert_int_equal(rv.index, 2);
	/* Block 104's own seed: two hashes down to block 102's. */
	assert_int_equal(check(&rv, hex, 4, out, what, sizeof what), 0);
	assert_int_equal(rv.index, 4);
	/* Block 106's seed given for block 105, after a gap: walked
	 * down to block 104's, one hash too few. */
	hex32(chain[6], hex);
	assert_int_equal(check(&rv, hex, 5, out, what, sizeof what), -EINVAL);
	assert_string_equal(
	    what, "seed: SHA-256 of seed 5 is not the seed before it (seed 5 "
	          "is block 105's, the last seed checked block 104's, of the "
	          "chain committed in block 100 (blocks 101 to 108))");
	assert_int_equal(check(&rv, hex, 7, out, what, sizeof what), -EINVAL);
	assert_string_equal(
	    what, "seed: seed 7 hashed 3 times is not the last seed checked "
	          "(seed 7 is block 107's, the last seed checked block 104's, "
	          "of the chain committed in block 100 (blocks 101 to 108))");
}

/* A line without a seed, or with something else there. */
static void test_seed_missing(void **state)
{
	uint8_t out[32];
	char what[400];
	hj_reveal rv = {0};
	hj_commit c = vector_commit();
	static const char junk[] = "{\"seed\":12}";

	(void)state;
	assert_int_equal(check(&rv, NULL, 1, out, what, sizeof what), -ENOENT);
	assert_string_equal(what, "seed: the dealer's nothing: cards are "
	                          "committed and block 101 is dealt with seed "
	                          "1 of the chain committed in block 100 "
	                          "(blocks 101 to 108)");
	assert_int_equal(hjc_verify_seed(&rv, junk, sizeof junk - 1, &c, 1, 101,
	                                 out, what, sizeof what),
	                 -ENOENT);
	assert_int_equal(hjc_verify_seed(&rv, "not json", 8, &c, 1, 101, out,
	                                 what, sizeof what),
	                 -ENOENT);
	assert_int_equal(check(&rv, "0x" S1, 1, out, what, sizeof what),
	                 -EBADMSG);
	assert_int_equal(strncmp(what, "seed: not a seed: ", 18), 0);
	assert_int_equal(check(&rv, "abcd", 1, out, what, sizeof what),
	                 -EBADMSG);
	assert_int_equal(rv.have, 0);
}

/* ---- the dealer's lines and verify's ---------------------------------- */

struct seeds {
	hj_reveal rv;
	const char *line; /* the dealer's line of the block being dealt */
	int rc;
	char what[400];
};

/* verify's seed source: the seed of the dealer's line, checked; dealt
 * with even when it does not chain (as cli/verify_run.c does). */
static int from_line(void *ctx, const hj_commit *c, uint32_t i, uint64_t height,
                     uint8_t out[HJ_SEED_LEN], char *err, size_t n)
{
	struct seeds *s = ctx;
	s->rc = hjc_verify_seed(&s->rv, s->line, strlen(s->line), c, i, height,
	                        out, s->what, sizeof s->what);
	if (s->rc && s->rc != -EINVAL) {
		hj_say(err, n, "%s", s->what);
		return s->rc;
	}
	return 0;
}

/* The dealer's seed source: the vector chain. */
static int from_chain(void *ctx, const hj_commit *c, uint32_t i,
                      uint64_t height, uint8_t out[HJ_SEED_LEN], char *err,
                      size_t n)
{
	uint8_t chain[9][32];
	(void)ctx;
	(void)c;
	(void)height;
	(void)err;
	(void)n;
	vector_chain(chain);
	memcpy(out, chain[i], 32);
	return 0;
}

static hj_table *committed_table(void)
{
	hj_rules r;
	hj_table *t;
	assert_int_equal(hj_rules_preset("bethash", &r), 0);
	r.min_bet = 1;
	r.max_bet = E18;
	r.timeout_blocks = 100;
	r.cards = HJ_CARDS_COMMITTED;
	assert_int_equal(hj_table_new(&r, &t), 0);
	return t;
}

/* Block h: its hash h repeated, the Commit in block 100 from `from`. */
static void block_at(uint64_t h, const char *from, hj_chain_block *b,
                     hj_action *a, uint8_t hashes[2][32])
{
	uint8_t dealer[20], sender[20], txid[32];
	memset(b, 0, sizeof *b);
	memset(hashes, (int)h, 64);
	hashes[1][0] = (uint8_t)(h - 1);
	memcpy(b->hash, hashes[0], 32);
	memcpy(b->parent, hashes[1], 32);
	b->height = h;
	if (h != 100)
		return;
	unhex(DEALER, dealer, 20);
	unhex(from, sender, 20);
	unhex(TXID, txid, 32);
	hj_evm_tx tx = {.hash = txid,
	                .from = sender,
	                .dealer = dealer,
	                .input = COMMIT,
	                .input_len = sizeof COMMIT,
	                .success = 1};
	hj_evm_action(&tx, a);
	b->txs = a;
	b->ntx = 1;
}

/* Deals blocks 100 to 104 on t with src, the lines into lines[]; the
 * Commit from `from`.  Returns the number dealt before a failure. */
static int deal_all(hj_table *t, const hj_seed_source *src, struct seeds *s,
                    const char *from, char *dealer_lines[5], char *lines[5],
                    char *err, size_t n)
{
	hj_cardlog cl;
	hj_cardlog_init(&cl);
	for (int k = 0; k < 5; k++) {
		hj_chain_block b;
		hj_action a;
		uint8_t hashes[2][32];
		const char *line;
		size_t len;
		block_at(100 + (uint64_t)k, from, &b, &a, hashes);
		if (s)
			s->line = dealer_lines[k];
		if (hj_deal_block(t, &cl, "evm", HJ_EVM, src, &b, NULL, NULL,
		                  &line, &len, err, n)) {
			hj_cardlog_release(&cl);
			return k;
		}
		lines[k] = strndup(line, len - 1);
	}
	hj_cardlog_release(&cl);
	return 5;
}

static void free_lines(char *lines[5])
{
	for (int k = 0; k < 5; k++) {
		free(lines[k]);
		lines[k] = NULL;
	}
}

/* In s (a line of the log), the first `from` replaced with `to`. */
static void replace(char **s, const char *from, const char *to)
{
	char *p = strstr(*s, from), *out;
	size_t a, m = strlen(from), k = strlen(to);
	assert_non_null(p);
	a = (size_t)(p - *s);
	out = malloc(strlen(*s) - m + k + 1);
	assert_non_null(out);
	memcpy(out, *s, a);
	memcpy(out + a, to, k);
	memcpy(out + a + k, p + m, strlen(p + m) + 1);
	free(*s);
	*s = out;
}

/* Verify's dealing of the dealer's log (honest, then tampered once each):
 * what differs, and where. */
static void test_verify_lines(void **state)
{
	hj_seed_source chain_src = {from_chain, NULL};
	char *dealer[5] = {0}, *ours[5] = {0}, err[HJ_ERRLEN], what[600];
	struct seeds s;
	hj_seed_source line_src = {from_line, &s};
	hj_table *t;

	(void)state;
	t = committed_table();
	assert_int_equal(deal_all(t, &chain_src, NULL, DEALER, NULL, dealer,
	                          err, sizeof err),
	                 5);
	hj_table_free(t);
	assert_non_null(strstr(dealer[0], "{\"type\":\"commit\","));
	assert_null(strstr(dealer[0], "\"seed\""));
	assert_non_null(strstr(dealer[1], "\"seed\":\"" S1 "\""));

	/* Honest: every line the same, byte for byte. */
	memset(&s, 0, sizeof s);
	t = committed_table();
	assert_int_equal(
	    deal_all(t, &line_src, &s, DEALER, dealer, ours, err, sizeof err),
	    5);
	for (int k = 0; k < 5; k++)
		assert_string_equal(ours[k], dealer[k]);
	assert_int_equal(s.rc, 0);
	hj_table_free(t);
	free_lines(ours);

	/* A card that is not the HMAC's: the seed chains, the card
	 * differs. */
	{
		char *card = strstr(dealer[2], "\"code\":\"");
		assert_non_null(card);
		char was = card[8];
		card[8] = was == 'A' ? 'K' : 'A';
		memset(&s, 0, sizeof s);
		t = committed_table();
		assert_int_equal(deal_all(t, &line_src, &s, DEALER, dealer,
		                          ours, err, sizeof err),
		                 5);
		assert_int_equal(s.rc, 0);
		hjc_verify_describe(dealer[2], strlen(dealer[2]), ours[2],
		                    strlen(ours[2]), what, sizeof what);
		assert_int_equal(
		    strncmp(what, "card.code: the dealer's \"", 25), 0);
		card[8] = was;
		hj_table_free(t);
		free_lines(ours);
	}

	/* A Commit not from the dealer: the dealer's line says commit, the
	 * protocol's rejects it (not_dealer); no chain is in force after it,
	 * so block 101's seed is one the protocol deals without. */
	memset(&s, 0, sizeof s);
	t = committed_table();
	assert_int_equal(
	    deal_all(t, &line_src, &s, OTHER, dealer, ours, err, sizeof err),
	    5);
	hjc_verify_describe(dealer[0], strlen(dealer[0]), ours[0],
	                    strlen(ours[0]), what, sizeof what);
	assert_string_equal(what, "events[0].type: the dealer's \"commit\", "
	                          "the protocol's \"reject\"");
	assert_non_null(strstr(ours[0], "\"reason\":\"not_dealer\""));
	hjc_verify_describe(dealer[1], strlen(dealer[1]), ours[1],
	                    strlen(ours[1]), what, sizeof what);
	assert_string_equal(
	    what, "seed: the dealer's \"" S1 "\", the protocol's nothing (it "
	          "deals this block without a seed: no chain of seeds of a "
	          "valid Commit is in force at it, or cards = hash)");
	hj_table_free(t);
	free_lines(ours);

	/* A line with a seed and no Commit in force: block 100's. */
	{
		char *forged = strdup(dealer[0]);
		replace(&forged, "\"void\"", "\"seed\":\"" S2 "\",\"void\"");
		memset(&s, 0, sizeof s);
		t = committed_table();
		assert_int_equal(deal_all(t, &line_src, &s, DEALER, dealer,
		                          ours, err, sizeof err),
		                 5);
		hjc_verify_describe(forged, strlen(forged), ours[0],
		                    strlen(ours[0]), what, sizeof what);
		assert_string_equal(
		    what, "seed: the dealer's \"" S2 "\", the protocol's "
		          "nothing (it deals this block without a seed: no "
		          "chain of seeds of a valid Commit is in force at it, "
		          "or cards = hash)");
		free(forged);
		hj_table_free(t);
		free_lines(ours);
	}

	/* A seed left out where one is needed: the block is not dealt. */
	{
		char *saved = dealer[3];
		dealer[3] = strdup(saved);
		char *p = strstr(dealer[3], "\"seed\":");
		assert_non_null(p);
		memmove(p, p + 74, strlen(p + 74) + 1); /* "seed":"..", */
		memset(&s, 0, sizeof s);
		t = committed_table();
		assert_int_equal(deal_all(t, &line_src, &s, DEALER, dealer,
		                          ours, err, sizeof err),
		                 3);
		assert_int_equal(s.rc, -ENOENT);
		assert_string_equal(err,
		                    "seed: the dealer's nothing: cards are "
		                    "committed and block 103 is dealt with "
		                    "seed 3 of the chain committed in block "
		                    "100 (blocks 101 to 108)");
		free(dealer[3]);
		dealer[3] = saved;
		hj_table_free(t);
		free_lines(ours);
	}
	free_lines(dealer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seeds_in_order),
	    cmocka_unit_test(test_seeds_mid_chain),
	    cmocka_unit_test(test_seed_wrong),
	    cmocka_unit_test(test_seed_missing),
	    cmocka_unit_test(test_verify_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
