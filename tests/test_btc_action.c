/*
 * Bitcoin-family transactions, end to end through the engine: raw
 * transactions built here, parsed (chain/btc_tx), normalised (chain/btc),
 * and played by the table with real BIP-340 signatures (chain/btcsig).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <string.h>

#include "btc.h"
#include "btcsig.h"
#include "engine_util.h"
#include "payload.h"
#include "say.h"

/* A dealer output script (P2TR shape; any script works for matching). */
static const uint8_t dealer[34] = {0x51, 0x20, 0xde, 0xa1, 0xe2};
static const uint8_t elsewhere[34] = {0x51, 0x20, 0x0e, 0x15};

struct out {
	uint64_t value;
	const uint8_t *script;
	size_t len;
};

/* A legacy transaction with one dummy input and the given outputs. */
static size_t build_tx(uint8_t *buf, const struct out *outs, size_t n)
{
	size_t o = 0;
	static const uint8_t head[] = {1, 0, 0, 0, 1};
	memcpy(buf, head, sizeof head);
	o += sizeof head;
	memset(buf + o, 0x11, 32); /* prevout txid */
	o += 32;
	memset(buf + o, 0, 4); /* prevout index */
	o += 4;
	buf[o++] = 0; /* scriptSig */
	memset(buf + o, 0xff, 4);
	o += 4;
	buf[o++] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 8; k++)
			buf[o++] = (uint8_t)(outs[i].value >> (8 * k));
		buf[o++] = (uint8_t)outs[i].len;
		memcpy(buf + o, outs[i].script, outs[i].len);
		o += outs[i].len;
	}
	memset(buf + o, 0, 4);
	return o + 4;
}

/* OP_RETURN then one push of the payload (PUSHDATA1 above 75 bytes). */
static size_t op_return(uint8_t *s, const uint8_t *p, size_t n)
{
	s[0] = 0x6a;
	s[1] = (uint8_t)n;
	if (n > 75) {
		s[1] = 0x4c;
		s[2] = (uint8_t)n;
		memcpy(s + 3, p, n);
		return n + 3;
	}
	memcpy(s + 2, p, n);
	return n + 2;
}

static int normalise(const struct out *outs, size_t n, hj_action *a)
{
	uint8_t raw[1024];
	hj_btc_tx tx;
	char err[HJ_ERRLEN];
	size_t len = build_tx(raw, outs, n);
	assert_int_equal(hj_btc_tx_parse(raw, len, &tx, err, sizeof err), 0);
	return hj_btc_action(&tx, dealer, sizeof dealer, 0, a, err, sizeof err);
}

struct world {
	hj_secp *secp;
	struct hj_btc_verifier v;
	uint8_t sk[32], pk[32], sk2[32], pk2[32];
	fx f;
};

static void world_init(struct world *w)
{
	char err[HJ_ERRLEN];
	hj_rules ru = rules_bethash();
	assert_int_equal(hj_secp_new(&w->secp, err, sizeof err), 0);
	assert_int_equal(hj_btc_keygen(w->secp, w->sk, w->pk, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_btc_keygen(w->secp, w->sk2, w->pk2, err, sizeof err), 0);
	w->v.secp = w->secp;
	memset(w->v.genesis, 0x06, 32);
	fx_init(&w->f, &ru);
	hj_table_set_verifier(w->f.t, hj_btc_verify, &w->v);
}

static void world_free(struct world *w)
{
	fx_free(&w->f);
	hj_secp_free(w->secp);
}

/* A signed non-Bet action on round r by sk, as a normalised action. */
static hj_action signed_action(struct world *w, const hj_round *r,
                               const uint8_t *sk, uint32_t seq, hj_act act,
                               uint64_t value)
{
	hj_payload pl;
	uint8_t p[HJ_PAYLOAD_MAX], script[90], sig[64];
	char err[HJ_ERRLEN];
	memset(&pl, 0, sizeof pl);
	pl.act = act;
	memcpy(pl.round, r->id.b, 8);
	size_t n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	size_t body = n - HJ_BTC_TAIL_LEN;
	hj_btc_msg m = {.genesis = w->v.genesis,
	                .short_id = r->id.b,
	                .seq = seq,
	                .body = p,
	                .body_len = body};
	assert_int_equal(
	    hj_btc_action_sign(w->secp, sk, &m, sig, err, sizeof err), 0);
	memcpy(p + body + 8, sig, 64);
	struct out outs[2] = {{0, script, op_return(script, p, n)},
	                      {value, dealer, sizeof dealer}};
	hj_action a;
	assert_int_equal(normalise(outs, value ? 2 : 1, &a), 1);
	return a;
}

static hj_action bet_action(const uint8_t *pk, uint64_t value)
{
	hj_payload pl;
	uint8_t p[HJ_PAYLOAD_MAX], script[90];
	memset(&pl, 0, sizeof pl);
	pl.act = HJ_BET;
	memcpy(pl.key, pk, 32);
	size_t n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	/* The stake split over two outputs to the dealer. */
	struct out outs[3] = {{value / 2, dealer, sizeof dealer},
	                      {0, script, op_return(script, p, n)},
	                      {value - value / 2, dealer, sizeof dealer}};
	hj_action a;
	assert_int_equal(normalise(outs, 3, &a), 1);
	return a;
}

static void test_round_with_real_signatures(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	hj_action bet = bet_action(w.pk, 1001);
	assert_int_equal(bet.kind, HJ_TX_ACTION);
	assert_int_equal(bet.act, HJ_BET);
	assert_true(bet.value == 1001);
	assert_int_equal(bet.sender.len, 32);
	assert_memory_equal(bet.sender.b, w.pk, 32);

	FX(&w.f, R(2), bet);
	FX0(&w.f, R(5));
	FX0(&w.f, R(9));
	FX0(&w.f, R(6)); /* 11 vs 9: the window opens next block */
	const hj_round *r = fx_round(&w.f, w.pk[0]);
	assert_non_null(r);

	hj_action hit = signed_action(&w, r, w.sk, 0, HJ_HIT, 0);
	assert_int_equal(hit.has_ref, 1);
	assert_true(hit.value == 0);
	hj_action foreign = signed_action(&w, r, w.sk2, 0, HJ_HIT, 0);
	FX(&w.f, R(2), foreign, hit);
	assert_int_equal(fx_find(&w.f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_BAD_SIGNATURE);
	assert_int_equal(fx_find(&w.f, HJ_EV_ACTION, 0)->act, HJ_HIT);
	FX0(&w.f, R(3)); /* the Hit's card: 11 + 3 = 14 */

	/* The same payload again: its seq is stale. */
	FX(&w.f, R(3), hit);
	assert_int_equal(fx_find(&w.f, HJ_EV_REJECT, 0)->reason,
	                 HJ_R_BAD_SIGNATURE);
	/* A Stand signed for seq 1 is accepted and the dealer plays. */
	FX(&w.f, R(3),
	   signed_action(&w, fx_round(&w.f, w.pk[0]), w.sk, 1, HJ_STAND, 0));
	assert_int_equal(fx_find(&w.f, HJ_EV_ACTION, 0)->act, HJ_STAND);
	world_free(&w);
}

static void test_what_concerns_the_dealer(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	uint8_t script[90], junk[] = {HJ_MAGIC0, HJ_MAGIC1, 0x01, 0x02};
	hj_action a;

	/* A plain payment: a deposit. */
	struct out dep[1] = {{700, dealer, sizeof dealer}};
	assert_int_equal(normalise(dep, 1, &a), 1);
	assert_int_equal(a.kind, HJ_TX_DEPOSIT);
	assert_true(a.value == 700);
	/* Paying someone else, no magic: not ours. */
	struct out other[1] = {{700, elsewhere, sizeof elsewhere}};
	assert_int_equal(normalise(other, 1, &a), 0);
	/* A malformed payload (a Hit without round id and signature): ours
	 * when it pays us, refunded; else not. */
	struct out bad[2] = {{0, script, op_return(script, junk, sizeof junk)},
	                     {300, dealer, sizeof dealer}};
	assert_int_equal(normalise(bad, 2, &a), 1);
	assert_int_equal(a.kind, HJ_TX_MALFORMED);
	assert_int_equal(a.reason, HJ_R_BAD_LENGTH);
	assert_int_equal(a.act, HJ_HIT);
	assert_true(a.value == 300);
	assert_int_equal(normalise(bad, 1, &a), 0);
	/* A Bet paying elsewhere is another dealer's Bet. */
	hj_payload pl;
	uint8_t p[HJ_PAYLOAD_MAX];
	memset(&pl, 0, sizeof pl);
	pl.act = HJ_BET;
	memcpy(pl.key, w.pk, 32);
	size_t n = hj_payload_encode(HJ_BITCOIN, &pl, p);
	struct out bet[2] = {{0, script, op_return(script, p, n)},
	                     {5000, elsewhere, sizeof elsewhere}};
	assert_int_equal(normalise(bet, 2, &a), 0);
	/* Paying us, it is a Bet with the sender P. */
	bet[1] = (struct out){5000, dealer, sizeof dealer};
	assert_int_equal(normalise(bet, 2, &a), 1);
	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_int_equal(a.sender.len, 32);
	/* A key that is no x-only public key (not below the field prime;
	 * x = 0, off the curve) is a bad field: no one could sign for it or
	 * be paid at tr(P), so it is refunded unattributed. */
	static const uint8_t no_key[2][32] = {
	    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	    {0}};
	for (int k = 0; k < 2; k++) {
		memcpy(pl.key, no_key[k], 32);
		n = hj_payload_encode(HJ_BITCOIN, &pl, p);
		bet[0].len = op_return(script, p, n);
		assert_int_equal(normalise(bet, 2, &a), 1);
		assert_int_equal(a.kind, HJ_TX_MALFORMED);
		assert_int_equal(a.act, HJ_BET);
		assert_int_equal(a.reason, HJ_R_BAD_FIELD);
		assert_int_equal(a.sender.len, 0);
		assert_true(a.value == 5000);
	}
	world_free(&w);
}

/* A signed action naming no round of ours and paying nothing: no event. */
static void test_other_dealers_action_ignored(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	hj_round fake;
	memset(&fake, 0, sizeof fake);
	memset(fake.id.b, 0x77, 8);
	fake.id.len = 32;
	FX(&w.f, R(2), signed_action(&w, &fake, w.sk, 0, HJ_STAND, 0));
	assert_int_equal(w.f.nev, 0);
	/* Paying us, it is ours: no_round, refunded. */
	FX(&w.f, R(2), signed_action(&w, &fake, w.sk, 0, HJ_STAND, 900));
	const ev_rec *e = fx_find(&w.f, HJ_EV_REJECT, 0);
	assert_non_null(e);
	assert_int_equal(e->reason, HJ_R_NO_ROUND);
	assert_true(e->amount == 900);
	world_free(&w);
}

/* BIP-173/BIP-350 address vectors, and what the dealer cannot use. */
static void test_address_script(void **state)
{
	(void)state;
	uint8_t script[HJ_BTC_SCRIPT_MAX];
	size_t len = 0;
	const char *hrp = NULL;
	char err[HJ_ERRLEN];
	static const uint8_t p2wpkh[22] = {
	    0x00, 0x14, 0x75, 0x1e, 0x76, 0xe8, 0x19, 0x91, 0x96, 0xd4, 0x54,
	    0x94, 0x1c, 0x45, 0xd1, 0xb3, 0xa3, 0x23, 0xf1, 0x43, 0x3b, 0xd6};

	assert_int_equal(
	    hj_btc_address_script("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
	                          script, &len, &hrp, err, sizeof err),
	    0);
	assert_string_equal(hrp, "bc");
	assert_int_equal(len, 22);
	assert_memory_equal(script, p2wpkh, 22);
	/* BIP-350: a v1 address on the main chain. */
	assert_int_equal(
	    hj_btc_address_script("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e"
	                          "72q4k9hcz7vqzk5jj0",
	                          script, &len, &hrp, err, sizeof err),
	    0);
	assert_int_equal(len, 34);
	assert_int_equal(script[0], 0x51);
	assert_int_equal(script[1], 32);
	assert_int_equal(script[2], 0x79);
	/* A regtest Litecoin address from litecoind's getnewaddress. */
	assert_int_equal(hj_btc_address_script(
	                     "rltc1qccvndf7q62nwwp7h9d3j7gmlm2ex0anttw7k40",
	                     script, &len, &hrp, err, sizeof err),
	                 0);
	assert_string_equal(hrp, "rltc");
	assert_int_equal(len, 22);
	/* Refused, each with a reason. */
	assert_int_equal(
	    hj_btc_address_script("tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty",
	                          script, &len, &hrp, err, sizeof err),
	    -EINVAL);
	assert_non_null(strstr(err, "unknown address prefix \"tc\""));
	assert_int_equal(
	    hj_btc_address_script("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", script,
	                          &len, &hrp, err, sizeof err),
	    -EINVAL);
	assert_non_null(strstr(err, "not a segwit address"));
	/* bech32 (not bech32m) for version 1: BIP-350's invalid list. */
	assert_int_equal(
	    hj_btc_address_script("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e"
	                          "72q4k9hcz7vqh2y7hd",
	                          script, &len, &hrp, err, sizeof err),
	    -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_with_real_signatures),
	    cmocka_unit_test(test_what_concerns_the_dealer),
	    cmocka_unit_test(test_other_dealers_action_ignored),
	    cmocka_unit_test(test_address_script),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
