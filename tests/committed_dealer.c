/*
 * committed_dealer DIR: a dealer under cards = committed written into DIR
 * (hashjackd.sqlite, cards.jsonl) by the dealer's own code
 * (tests/dealer_fixture.h), for the end-to-end tests of hashjack serve
 * (tests/e2e/test_serve_committed.py) while hashjackd cannot deal
 * committed cards yet.  The chain is the protocol's vector chain
 * (docs/PROTOCOL.md section 15: s_8 = SHA-256 of its text), committed in
 * block 100 for blocks 101 to 108; block 101's hash is Bitcoin's genesis
 * hash and 102's the section's second one, so that their cards are the
 * vectors' (4C, AD).  Block 102 also commits a second chain of 2 seeds
 * from block 110 (s_2 = SHA-256 of "chain b").  Blocks 100 to 104.
 */
#include <stdio.h>
#include <string.h>

#include "dealer_fixture.h"
#include "hex.h"
#include "say.h"
#include "seed.h"
#include "sha256.h"

static void chain_seed(const char *text, uint32_t len, uint32_t i,
                       uint8_t out[HJ_SEED_LEN])
{
	hj_sha256(text, strlen(text), out);
	for (uint32_t k = len; k > i; k--)
		hj_seed_prev(out, out);
}

static int two_chains(void *ctx, const hj_commit *c, uint32_t i,
                      uint64_t height, uint8_t out[HJ_SEED_LEN], char *err,
                      size_t errlen)
{
	(void)ctx;
	(void)height;
	(void)err;
	(void)errlen;
	if (c->start == 110)
		chain_seed("chain b", 2, i, out);
	else
		chain_seed("hashjack committed cards test vector", 8, i, out);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const hashes[] = {
	    "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
	    "0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e",
	};
	hj_seed_source seeds = {two_chains, NULL};
	char err[HJ_ERRLEN];
	uint8_t s0[HJ_SEED_LEN], b0[HJ_SEED_LEN], h[32];
	hj_rules r;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: committed_dealer DIR\n");
		return 64;
	}
	hj_rules_preset("bethash", &r);
	r.min_bet = 1;
	r.max_bet = 1000000;
	r.timeout_blocks = 5;
	r.cards = HJ_CARDS_COMMITTED;
	hj_fixture *f =
	    hj_fixture_new(argv[1], HJ_EVM, &r, 100, err, sizeof err);
	if (!f) {
		fprintf(stderr, "committed_dealer: %s\n", err);
		return 1;
	}
	hj_fixture_seeds(f, &seeds);
	chain_seed("hashjack committed cards test vector", 8, 0, s0);
	chain_seed("chain b", 2, 0, b0);
	hj_action c1 = hj_fixture_commit(1, 101, 8, s0);
	hj_action c2 = hj_fixture_commit(2, 110, 2, b0);
	for (int k = 0; k < 5 && rc == 0; k++) {
		const hj_action *tx = k == 0 ? &c1 : k == 2 ? &c2 : NULL;
		int own = k == 1 || k == 2;
		if (own)
			hj_hex_decode_exact(hashes[k - 1], 64, HJ_HEX_BARE, h,
			                    32, NULL, 0);
		rc = hj_fixture_block(f, own ? h : NULL, tx, tx ? 1 : 0, err,
		                      sizeof err);
	}
	if (rc)
		fprintf(stderr, "committed_dealer: %s\n", err);
	hj_fixture_free(f);
	return rc ? 1 : 0;
}
