/*
 * The payers' policy (daemon/payout_policy.h) with exact inputs and
 * outputs: the Bitcoin family's grouping, dust, output caps and batch cut;
 * EVM's fees from the history, a never accepted version's refresh and a
 * stuck version's replacement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "payout_owed.h"
#include "payout_policy.h"
#include "say.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static hj_secp *ctx;

/* BIP-86's first three vectors (m/86'/0'/0'/0/0, 0/1, 1/0): keys and their
 * tr(P) on "bc".  Key order K2 < K1 < K0. */
#define K0 "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"
#define A0 "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
#define K1 "83dfe85a3151d2517290da461fe2815591ef69f2b18a2ce63f01697a8b313145"
#define A1 "bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh"
#define K2 "399f1b2f4393f29a18c937859c5dd8a77350103157eb880f02e8c08214277cef"
#define A2 "bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7"
/* Two keys whose addresses sort the other way round (KA < KB, AB < AA). */
#define KA "1100000000000000000000000000000000000000000000000000000000000001"
#define AA "bc1pszzc8ck3xpskx5agnved666ktmmj588q84z4whmw77d3kc3vm6ysyctlr9"
#define KB "2200000000000000000000000000000000000000000000000000000000000001"
#define AB "bc1pa4ppzkf5e92t99utyxsh24hxr45z7tn3sdmxeuu0pe2frkhdglsssqprvt"
/* Not the x coordinate of a curve point (BIP-340 vector 5's key). */
#define KBAD "eefdea4cdb677750a420fee807eacf21eb9898ae79b9768766e4faa04a2d4a34"
/* An EVM address: 20 bytes, never a Bitcoin recipient. */
#define K20 "00112233445566778899aabbccddeeff00112233"

#define CAP HJD_BTC_OUTPUT_MAX

static hj_amount u128(uint64_t hi, uint64_t lo)
{
	return (hj_amount)hi << 64 | lo;
}

static void expect_amount(hj_amount got, hj_amount want)
{
	char g[HJ_AMOUNT_STRLEN], w[HJ_AMOUNT_STRLEN];

	if (got != want)
		fail_msg("amount %s, want %s", hj_amount_format(got, g),
		         hj_amount_format(want, w));
}

static hj_id key(const char *hex)
{
	hj_id id = {.len = 0};

	if (hex == NULL)
		return id;
	id.len = (uint8_t)(strlen(hex) / 2);
	for (size_t i = 0; i < id.len; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		id.b[i] = (uint8_t)v;
	}
	return id;
}

static hj_owed_payout owed(const char *id, const char *to, hj_amount amount,
                           uint64_t height)
{
	hj_owed_payout o = {.id = id, .amount = amount, .height = height};

	o.recipient = key(to);
	return o;
}

static const hjd_btc_policy policy = {
    .hrp = "bc", .dust = 3300, .max_outputs = 100};

#define IDS_MAX 16

/* Runs the plan over v with pol (the context filled in), and checks that v
 * still holds each of its payouts, only permuted. */
static void plan(hj_owed_payout *v, size_t n, hjd_btc_policy pol,
                 hjd_btc_group *groups, hjd_btc_plan *out)
{
	const char *ids[IDS_MAX];

	assert_true(n <= IDS_MAX);
	for (size_t i = 0; i < n; i++)
		ids[i] = v[i].id;
	pol.secp = ctx;
	memset(out, 0xa5, sizeof *out); /* every field must be written */
	hjd_btc_plan_owed(v, n, &pol, groups, out);
	for (size_t i = 0; i < n; i++) {
		size_t seen = 0;

		for (size_t k = 0; k < n; k++)
			seen += v[k].id == ids[i];
		assert_int_equal(seen, 1);
	}
}

/* The plan's groups, the batch's, more; what STATUS shows. */
static void expect_plan(const hjd_btc_plan *p, size_t ngroups, size_t nbatch,
                        int more, uint64_t dust_n, hj_amount dust_sum,
                        uint64_t unpayable_n, hj_amount payable)
{
	assert_int_equal(p->ngroups, ngroups);
	assert_int_equal(p->nbatch, nbatch);
	assert_int_equal(p->more, more);
	assert_int_equal(p->dust_n, dust_n);
	expect_amount(p->dust_sum, dust_sum);
	assert_int_equal(p->unpayable_n, unpayable_n);
	expect_amount(p->payable, payable);
}

/* g is the output of addr: sum, its oldest height, and exactly the
 * payouts ids in that order (a NULL-terminated list). */
static void expect_group(const hj_owed_payout *v, const hjd_btc_group *g,
                         const char *addr, hj_amount sum, uint64_t height,
                         const char *const *ids)
{
	size_t k = 0;

	assert_string_equal(g->addr, addr);
	expect_amount(g->sum, sum);
	assert_int_equal(g->height, height);
	for (; ids[k]; k++) {
		assert_true(k < g->n);
		assert_string_equal(v[g->first + k].id, ids[k]);
	}
	assert_int_equal(g->n, k);
}

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- the Bitcoin family ---- */

static void test_btc_no_payouts(void **state)
{
	hjd_btc_plan p;

	(void)state;
	plan(NULL, 0, policy, NULL, &p);
	expect_plan(&p, 0, 0, 0, 0, 0, 0, 0);
}

/* Given in no order: grouped by recipient, each group's payouts by
 * height, the groups by their oldest payout. */
static void test_btc_grouping_order(void **state)
{
	hj_owed_payout v[] = {
	    owed("k0-h7", K0, 4000, 7), owed("k1-h9", K1, 6000, 9),
	    owed("k2-h3", K2, 5000, 3), owed("k0-h2", K0, 1000, 2),
	    owed("k1-h4", K1, 7000, 4), owed("k2-h8", K2, 500, 8),
	    owed("k0-h5", K0, 2000, 5),
	};
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	plan(v, N(v), policy, groups, &p);
	expect_plan(&p, 3, 3, 0, 0, 0, 0, 25500);
	expect_group(v, &groups[0], A0, 7000, 2,
	             LIST("k0-h2", "k0-h5", "k0-h7"));
	expect_group(v, &groups[1], A2, 5500, 3, LIST("k2-h3", "k2-h8"));
	expect_group(v, &groups[2], A1, 13000, 4, LIST("k1-h4", "k1-h9"));
}

/* One recipient's payouts of one height go by id; groups whose oldest
 * payouts share a height go by address, not by key. */
static void test_btc_ties(void **state)
{
	hj_owed_payout v[] = {
	    owed("return:b", KA, 4000, 10), owed("refund:z", KA, 1, 10),
	    owed("return:a", KA, 2, 10),    owed("x", KB, 9000, 10),
	    owed("y", K0, 9000, 9),
	};
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	plan(v, N(v), policy, groups, &p);
	expect_plan(&p, 3, 3, 0, 0, 0, 0, 22003);
	expect_group(v, &groups[0], A0, 9000, 9, LIST("y"));
	expect_group(v, &groups[1], AB, 9000, 10, LIST("x"));
	expect_group(v, &groups[2], AA, 4003, 10,
	             LIST("refund:z", "return:a", "return:b"));
}

/* An output carries at most 2^63 - 1: exactly that is paid, the payouts
 * beyond wait for a later batch and are counted nowhere. */
static void test_btc_output_cap_split(void **state)
{
	const hj_amount half = (hj_amount)1 << 62;
	hj_owed_payout v[] = {
	    owed("c", K1, 1, 3),
	    owed("a", K1, half, 1),
	    owed("d", K1, 5000, 4),
	    owed("b", K1, half - 1, 2),
	};
	hj_owed_payout w[] = {
	    owed("a", K1, half + 1, 1),
	    owed("b", K1, half - 1, 2),
	    owed("c", K1, 1, 3),
	};
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	plan(v, N(v), policy, groups, &p);
	expect_plan(&p, 1, 1, 0, 0, 0, 0, CAP);
	expect_group(v, &groups[0], A1, CAP, 1, LIST("a", "b"));

	/* One more unit in the first: it alone, and the rest waits. */
	plan(w, N(w), policy, groups, &p);
	expect_plan(&p, 1, 1, 0, 0, 0, 0, half + 1);
	expect_group(w, &groups[0], A1, half + 1, 1, LIST("a"));
}

/* A payout above 2^63 - 1 is never payable; its recipient's later payouts
 * wait behind it (uncounted); other recipients are paid.  One next to
 * 2^128 does not wrap the sum round (5000 + (2^128 - 1) would be 4999). */
static void test_btc_lone_above_cap(void **state)
{
	const hj_amount big[] = {CAP + 1, HJ_AMOUNT_MAX};
	hjd_btc_group groups[3];
	hjd_btc_plan p;

	(void)state;
	for (size_t i = 0; i < N(big); i++) {
		hj_owed_payout v[] = {
		    owed("after", K0, 5000, 2),
		    owed("big", K0, big[i], 1),
		    owed("other", K2, 4000, 3),
		};
		/* Behind a payable one: that one is paid, the rest waits. */
		hj_owed_payout w[] = {
		    owed("later", K0, 700, 3),
		    owed("big", K0, big[i], 2),
		    owed("small", K0, 5000, 1),
		};

		plan(v, N(v), policy, groups, &p);
		expect_plan(&p, 1, 1, 0, 0, 0, 1, 4000);
		expect_group(v, &groups[0], A2, 4000, 3, LIST("other"));

		plan(w, N(w), policy, groups, &p);
		expect_plan(&p, 1, 1, 0, 0, 0, 0, 5000);
		expect_group(w, &groups[0], A0, 5000, 1, LIST("small"));
	}
}

/* Unattributed payouts are left out uncounted; a recipient that is not a
 * 32-byte key, a key that is no curve point, a sum of 0 are unpayable,
 * counted per payout (before dust is considered: bad1 and bad2 add up to
 * less than it). */
static void test_btc_unpayable(void **state)
{
	hj_owed_payout v[] = {
	    owed("unattr1", NULL, 50000, 1), owed("evm", K20, 50000, 2),
	    owed("bad1", KBAD, 100, 3),      owed("bad2", KBAD, 200, 4),
	    owed("zero", K1, 0, 5),          owed("ok", K0, 3300, 6),
	    owed("unattr2", NULL, 1, 7),
	};
	/* Nothing payable at all. */
	hj_owed_payout w[] = {
	    owed("u", NULL, 50000, 1),
	    owed("e", K20, 50000, 2),
	    owed("b", KBAD, 50000, 3),
	};
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	plan(v, N(v), policy, groups, &p);
	expect_plan(&p, 1, 1, 0, 0, 0, 4, 3300);
	expect_group(v, &groups[0], A0, 3300, 6, LIST("ok"));

	plan(w, N(w), policy, groups, &p);
	expect_plan(&p, 0, 0, 0, 0, 0, 2, 0);
}

/* Sweeps (the cold address's witness program as recipient): each a group
 * of its own, paid to that address as it is (BIP-173's P2WPKH and
 * BIP-350's P2TR vectors), not to a tr() of it, and not merged with a
 * player whose key has the same 32 bytes; one whose program is not the
 * configuration's is unpayable; one below dust waits. */
#define W20  "751e76e8199196d454941c45d1b3a323f1433bd6"
#define AW20 "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
#define W32  "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
#define AW32 "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"
static void test_btc_sweeps(void **state)
{
	hj_owed_payout v[] = {
	    owed("sweep:10", W20, 50000, 10),
	    owed("return:a", K0, 4000, 5),
	};
	hj_owed_payout w[] = {
	    owed("sweep:20", W32, 70000, 20), owed("return:b", W32, 4000, 21),
	    owed("sweep:30", W20, 70000, 30), /* another cold address */
	};
	hj_owed_payout d[] = {owed("sweep:40", W20, 3299, 40)};
	hj_id p20 = key(W20), p32 = key(W32);
	hjd_btc_policy pol = policy;
	hjd_btc_group groups[N(w)];
	hjd_btc_plan p;

	(void)state;
	pol.sweep = p20.b;
	pol.sweep_len = p20.len;
	plan(v, N(v), pol, groups, &p);
	expect_plan(&p, 2, 2, 0, 0, 0, 0, 54000);
	expect_group(v, &groups[0], A0, 4000, 5, LIST("return:a"));
	expect_group(v, &groups[1], AW20, 50000, 10, LIST("sweep:10"));

	pol.sweep = p32.b;
	pol.sweep_len = p32.len;
	plan(w, N(w), pol, groups, &p);
	expect_plan(&p, 2, 2, 0, 0, 0, 1, 74000);
	expect_group(w, &groups[0], AW32, 70000, 20, LIST("sweep:20"));
	assert_string_not_equal(groups[1].addr, AW32); /* tr(P), P = W32 */
	assert_string_equal(w[groups[1].first].id, "return:b");

	pol.sweep = p20.b;
	pol.sweep_len = p20.len;
	plan(d, N(d), pol, groups, &p);
	expect_plan(&p, 0, 0, 0, 1, 3299, 0, 0);
	pol.sweep_len = 0; /* sweep_to no longer set */
	plan(d, N(d), pol, groups, &p);
	expect_plan(&p, 0, 0, 0, 0, 0, 1, 0);
}

/* A recipient is paid once all its payouts together reach the dust limit:
 * 3000 then 3100 is one output of 6100; 3000 and 300 is exactly the
 * limit; 3000 and 299 waits, as does 3000 alone. */
static void test_btc_dust(void **state)
{
	hj_owed_payout v[] = {
	    owed("k0a", K0, 3000, 1), owed("k0b", K0, 3100, 5),
	    owed("k1a", K1, 3000, 2), owed("k1b", K1, 300, 6),
	    owed("k2a", K2, 3000, 3), owed("kaa", KA, 3000, 4),
	    owed("kab", KA, 299, 7),
	};
	hj_owed_payout w[] = {owed("k0a", K0, 3000, 1)};
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	plan(v, N(v), policy, groups, &p);
	expect_plan(&p, 2, 2, 0, 3, 6299, 0, 9400);
	expect_group(v, &groups[0], A0, 6100, 1, LIST("k0a", "k0b"));
	expect_group(v, &groups[1], A1, 3300, 2, LIST("k1a", "k1b"));

	/* A first payout alone is below dust: nothing to pay. */
	plan(w, N(w), policy, groups, &p);
	expect_plan(&p, 0, 0, 0, 1, 3000, 0, 0);
}

/* At most max_outputs recipients, the oldest debts; more says the rest
 * waits, and the totals count all of them. */
static void test_btc_max_outputs(void **state)
{
	hj_owed_payout v[] = {
	    owed("a", K0, 4000, 30),
	    owed("b", K1, 5000, 10),
	    owed("c", K2, 6000, 20),
	    owed("d", K0, 1000, 5),
	};
	hjd_btc_policy pol = policy;
	hjd_btc_group groups[N(v)];
	hjd_btc_plan p;

	(void)state;
	pol.max_outputs = 2;
	plan(v, N(v), pol, groups, &p);
	expect_plan(&p, 3, 2, 1, 0, 0, 0, 16000);
	expect_group(v, &groups[0], A0, 5000, 5, LIST("d", "a"));
	expect_group(v, &groups[1], A1, 5000, 10, LIST("b"));
	expect_group(v, &groups[2], A2, 6000, 20, LIST("c"));

	pol.max_outputs = 3; /* exactly enough */
	plan(v, N(v), pol, groups, &p);
	expect_plan(&p, 3, 3, 0, 0, 0, 0, 16000);

	pol.max_outputs = 1;
	plan(v, N(v), pol, groups, &p);
	expect_plan(&p, 3, 1, 1, 0, 0, 0, 16000);
	expect_group(v, &groups[0], A0, 5000, 5, LIST("d", "a"));
}

/* ---- EVM fees ---- */

static void expect_fees(hjd_evm_fees f, hj_amount max_fee, hj_amount tip)
{
	expect_amount(f.max_fee, max_fee);
	expect_amount(f.tip, tip);
}

/* ---- EVM: the next transaction ---- */

#define E1 "1111111111111111111111111111111111111111"
#define E2 "2222222222222222222222222222222222222222"
#define E3 "3333333333333333333333333333333333333333"

/* Feeds v[0..n) in order; taken[i] says which went in. */
static void pick_all(hjd_evm_pick *k, const hj_owed_payout *v, size_t n,
                     int *taken)
{
	for (size_t i = 0; i < n; i++)
		taken[i] = hjd_evm_pick_take(k, &v[i]);
}

/* The oldest owed recipient that is an address gets everything owed to
 * it, in one transaction; the others wait. */
static void test_evm_pick_recipient(void **state)
{
	const hj_owed_payout v[] = {
	    owed("unattributed", NULL, 5, 1), owed("bitcoin key", K0, 6, 1),
	    owed("e2 first", E2, 10, 2),      owed("e1", E1, 20, 2),
	    owed("e2 second", E2, 30, 3),     owed("e3", E3, 40, 4),
	    owed("e2 third", E2, 1, 5),
	};
	static const int want[] = {0, 0, 1, 0, 1, 0, 1};
	hjd_evm_pick k = {0};
	int taken[N(v)];
	hj_id e2 = key(E2);

	(void)state;
	pick_all(&k, v, N(v), taken);
	assert_memory_equal(taken, want, sizeof want);
	assert_true(k.have_to);
	assert_memory_equal(k.to, e2.b, 20);
	expect_amount(k.value, 41);

	/* Nothing payable: no recipient. */
	k = (hjd_evm_pick){0};
	pick_all(&k, v, 2, taken);
	assert_false(k.have_to);
	expect_amount(k.value, 0);
}

/* A held recipient (its small refunds wait) leaves the next one its turn,
 * as a skipped one does. */
static int held_e2(const void *arg, const uint8_t to[HJ_EVM_ADDR_LEN])
{
	const hj_id *e2 = arg;

	return memcmp(to, e2->b, HJ_EVM_ADDR_LEN) == 0;
}

static void test_evm_pick_held(void **state)
{
	const hj_owed_payout v[] = {
	    owed("refund:e2", E2, 10, 1),
	    owed("e1", E1, 20, 2),
	    owed("refund:e2 again", E2, 30, 3),
	};
	hj_id e1 = key(E1), e2 = key(E2);
	hjd_evm_pick k = {.held = held_e2, .held_arg = &e2};
	int taken[N(v)];

	(void)state;
	pick_all(&k, v, N(v), taken);
	assert_memory_equal(taken, ((const int[]){0, 1, 0}), sizeof taken);
	assert_memory_equal(k.to, e1.b, 20);
	expect_amount(k.value, 20);
}

/* [payout] min_refund: auto is a transfer's gas at the base fee and tip
 * of the moment; the rule holds a recipient owed refunds alone below
 * it, never one owed anything else. */
static void test_evm_min_refund(void **state)
{
	(void)state;
	/* 21000 x (7 gwei + 1 gwei) */
	expect_amount(hjd_evm_min_refund(1, 5, 7000000000u, 1000000000u),
	              168000000000000u);
	expect_amount(hjd_evm_min_refund(1, 5, 0, 0), 0);
	expect_amount(hjd_evm_min_refund(0, 5, 7000000000u, 1000000000u), 5);
	/* Saturating, never wrapping. */
	expect_amount(hjd_evm_min_refund(1, 0, HJ_AMOUNT_MAX, 1),
	              HJ_AMOUNT_MAX);
	expect_amount(hjd_evm_min_refund(1, 0, HJ_AMOUNT_MAX / 21000, 1),
	              HJ_AMOUNT_MAX);
	expect_amount(hjd_evm_min_refund(1, 0, HJ_AMOUNT_MAX / 21000 - 1, 0),
	              (HJ_AMOUNT_MAX / 21000 - 1) * 21000);

	assert_true(hjd_payout_is_refund("refund:0xab"));
	assert_false(hjd_payout_is_refund("return:0xab:0"));
	assert_false(hjd_payout_is_refund("insurance:0xab"));
	assert_false(hjd_payout_is_refund("sidebet:0xab:poker"));
	assert_false(hjd_payout_is_refund("refund"));

	assert_true(hjd_evm_held(99, 0, 100));
	assert_false(hjd_evm_held(100, 0, 100));
	assert_false(hjd_evm_held(99, 1, 100));
	assert_false(hjd_evm_held(0, 1, 100));
	assert_false(hjd_evm_held(5, 0, 0));
}

/* The tally of what each EVM recipient is owed (payout_owed.h): refunds
 * summed, anything else flagged, other recipients' lengths left out. */
static void test_owed_tally(void **state)
{
	const hj_owed_payout v[] = {
	    owed("refund:a", E1, 5, 1),     owed("refund:b", E1, 7, 2),
	    owed("return:c:0", E2, 100, 2), owed("refund:d", E2, 3, 3),
	    owed("refund:e", K0, 9, 3),     owed("refund:f", NULL, 4, 4),
	};
	hj_id e1 = key(E1), e2 = key(E2), e3 = key(E3);
	hjd_owed_tally t;
	const hjd_owed_to *r;

	(void)state;
	hjd_owed_init(&t);
	for (size_t i = 0; i < N(v); i++)
		assert_int_equal(hjd_owed_add(&t, &v[i]), 0);
	assert_int_equal(t.n, 2);
	r = hjd_owed_find(&t, e1.b);
	assert_non_null(r);
	expect_amount(r->refunds, 12);
	assert_false(r->other);
	assert_int_equal(r->n, 2);
	r = hjd_owed_find(&t, e2.b);
	assert_non_null(r);
	expect_amount(r->refunds, 3);
	assert_true(r->other);
	assert_null(hjd_owed_find(&t, e3.b));
	hjd_owed_clear(&t);
	assert_int_equal(t.n, 0);
	assert_null(hjd_owed_find(&t, e1.b));
	assert_int_equal(hjd_owed_add(&t, &v[0]), 0);
	assert_int_equal(t.n, 1);
	hjd_owed_free(&t);
	hjd_owed_free(NULL);
}

/* [payout] sweep_to: what stays is need + margin + a transfer's gas at the
 * fee cap per recipient owed and for the sweep; the rest goes, if at
 * least ten times the sweep's gas. */
static void test_evm_sweep(void **state)
{
	const hj_amount one = 21000u * 3u; /* a transfer at 3 wei per gas */

	(void)state;
	/* balance 10^6, need 1000, margin 500, 2 recipients: keeps
	 * 1000 + 500 + 3 transfers. */
	expect_amount(hjd_evm_sweep(1000000, 1000, 500, 3, 2),
	              1000000 - 1500 - 3 * one);
	/* Exactly ten transfers' worth above what stays: swept; one less: not.
	 */
	expect_amount(hjd_evm_sweep(1500 + one + 10 * one, 1000, 500, 3, 0),
	              10 * one);
	expect_amount(hjd_evm_sweep(1500 + one + 10 * one - 1, 1000, 500, 3, 0),
	              0);
	/* Nothing above what stays. */
	expect_amount(hjd_evm_sweep(1500 + one, 1000, 500, 3, 0), 0);
	expect_amount(hjd_evm_sweep(0, 0, 0, 3, 0), 0);
	/* A reserve that saturates sweeps nothing. */
	expect_amount(hjd_evm_sweep(HJ_AMOUNT_MAX, HJ_AMOUNT_MAX, 1, 3, 0), 0);
	expect_amount(hjd_evm_sweep(HJ_AMOUNT_MAX, 0, 0, HJ_AMOUNT_MAX, 0), 0);
	/* 2^64 recipients at 1 wei per gas still fit: the rest goes. */
	expect_amount(hjd_evm_sweep(HJ_AMOUNT_MAX, 0, 0, 1, UINT64_MAX),
	              HJ_AMOUNT_MAX -
	                  (hj_amount)21000u * ((hj_amount)UINT64_MAX + 1));
	/* A fee of 0 per gas: the margin and the need alone stay. */
	expect_amount(hjd_evm_sweep(1000, 100, 0, 0, 5), 900);
}

/* A skipped recipient (no gas estimate) leaves the next one its turn. */
static void test_evm_pick_skip(void **state)
{
	const hj_owed_payout v[] = {
	    owed("e2", E2, 10, 1),
	    owed("e1", E1, 20, 2),
	    owed("e2 again", E2, 30, 3),
	    owed("e1 again", E1, 40, 4),
	};
	uint8_t skip[2][HJ_EVM_ADDR_LEN];
	hj_id e1 = key(E1), e2 = key(E2);
	hjd_evm_pick k;
	int taken[N(v)];

	(void)state;
	memcpy(skip[0], e2.b, 20);
	k = (hjd_evm_pick){.skip = skip, .nskip = 1};
	pick_all(&k, v, N(v), taken);
	assert_memory_equal(taken, ((const int[]){0, 1, 0, 1}), sizeof taken);
	assert_memory_equal(k.to, e1.b, 20);
	expect_amount(k.value, 60);

	/* Both skipped: nothing. */
	memcpy(skip[1], e1.b, 20);
	k = (hjd_evm_pick){.skip = skip, .nskip = 2};
	pick_all(&k, v, N(v), taken);
	assert_false(k.have_to);
}

/* The value stays within 2^128 - 1: a payout that would carry it beyond
 * waits for the next transaction, and a smaller later one still fits. */
static void test_evm_pick_overflow(void **state)
{
	const hj_owed_payout v[] = {
	    owed("a", E1, HJ_AMOUNT_MAX - 10, 1),
	    owed("b", E1, 11, 2),
	    owed("c", E1, 10, 3),
	    owed("d", E1, 1, 4),
	};
	static const int want[] = {1, 0, 1, 0};
	hjd_evm_pick k = {0};
	int taken[N(v)];

	(void)state;
	pick_all(&k, v, N(v), taken);
	assert_memory_equal(taken, want, sizeof want);
	expect_amount(k.value, HJ_AMOUNT_MAX);
}

/* The tip is the median reward: the middle one of an odd count, the upper
 * middle of an even count; the fee cap twice the base fee plus the tip. */
static void test_fees_median(void **state)
{
	const hj_amount odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
	const hj_amount one[] = {7};

	(void)state;
	expect_fees(hjd_evm_fees_want(100, odd, 3, 0, HJ_AMOUNT_MAX), 203, 3);
	expect_fees(hjd_evm_fees_want(100, even, 4, 0, HJ_AMOUNT_MAX), 203, 3);
	expect_fees(hjd_evm_fees_want(100, even, 2, 0, HJ_AMOUNT_MAX), 204, 4);
	expect_fees(hjd_evm_fees_want(0, one, 1, 0, HJ_AMOUNT_MAX), 7, 7);
	/* The caller's rewards are left as they were. */
	assert_true(odd[0] == 5 && odd[1] == 1 && odd[2] == 3);
	assert_true(even[0] == 4 && even[1] == 1 && even[2] == 3 &&
	            even[3] == 2);
	/* test_payout_evm's scripted history: the next base fee 1.5 gwei,
	 * rewards 2, 1, 3, 0.5 and 4 gwei; a floor of 1 gwei, a cap of 100. */
	const hj_amount gwei[] = {2000000000, 1000000000, 3000000000, 500000000,
	                          4000000000};
	expect_fees(
	    hjd_evm_fees_want(1500000000, gwei, 5, 1000000000, 100000000000),
	    5000000000, 2000000000);
}

/* Only the first HJD_EVM_TIPS_MAX rewards count. */
static void test_fees_first_sixteen(void **state)
{
	hj_amount tips[HJD_EVM_TIPS_MAX + 1];

	(void)state;
	for (size_t i = 0; i < HJD_EVM_TIPS_MAX; i++)
		tips[i] = HJD_EVM_TIPS_MAX - i; /* 16 .. 1: median 9 */
	tips[HJD_EVM_TIPS_MAX] = 0;             /* would make it 8 */
	expect_fees(
	    hjd_evm_fees_want(10, tips, HJD_EVM_TIPS_MAX + 1, 0, HJ_AMOUNT_MAX),
	    29, 9);
	assert_true(tips[0] == 16 && tips[15] == 1 && tips[16] == 0);
}

/* No rewards: the floor (0 without one); a median below the floor is
 * raised to it, one above is kept. */
static void test_fees_floor(void **state)
{
	const hj_amount low[] = {5, 6, 4}, high[] = {9, 8, 10};

	(void)state;
	expect_fees(hjd_evm_fees_want(50, NULL, 0, 0, HJ_AMOUNT_MAX), 100, 0);
	expect_fees(hjd_evm_fees_want(50, NULL, 0, 7, HJ_AMOUNT_MAX), 107, 7);
	expect_fees(hjd_evm_fees_want(50, low, 3, 7, HJ_AMOUNT_MAX), 107, 7);
	expect_fees(hjd_evm_fees_want(50, high, 3, 7, HJ_AMOUNT_MAX), 109, 9);
	/* Next to the floor. */
	const hj_amount six[] = {6}, seven[] = {7}, eight[] = {8};

	expect_fees(hjd_evm_fees_want(50, six, 1, 7, HJ_AMOUNT_MAX), 107, 7);
	expect_fees(hjd_evm_fees_want(50, seven, 1, 7, HJ_AMOUNT_MAX), 107, 7);
	expect_fees(hjd_evm_fees_want(50, eight, 1, 7, HJ_AMOUNT_MAX), 108, 8);
}

/* The cap bounds the tip (the floor too) and the fee cap. */
static void test_fees_cap(void **state)
{
	const hj_amount tips[] = {50};

	(void)state;
	expect_fees(hjd_evm_fees_want(100, tips, 1, 0, 40), 40, 40);
	expect_fees(hjd_evm_fees_want(100, tips, 1, 60, 40), 40, 40);
	expect_fees(hjd_evm_fees_want(100, tips, 1, 0, 249), 249, 50);
	expect_fees(hjd_evm_fees_want(100, tips, 1, 0, 250), 250, 50);
	expect_fees(hjd_evm_fees_want(100, tips, 1, 0, 251), 250, 50);
	expect_fees(hjd_evm_fees_want(0, tips, 1, 0, 0), 0, 0);
}

/* Twice the base fee saturates instead of wrapping round. */
static void test_fees_base_overflow(void **state)
{
	const hj_amount two[] = {2};
	const hj_amount half = u128(0x7fffffffffffffff, 0xfffffffffffffffe);

	(void)state;
	/* (2^127 - 2) * 2 + 2 = 2^128 - 2: fits. */
	expect_fees(hjd_evm_fees_want(half, two, 1, 0, HJ_AMOUNT_MAX),
	            HJ_AMOUNT_MAX - 1, 2);
	/* (2^127 - 1) * 2 + 2 = 2^128: saturates. */
	expect_fees(hjd_evm_fees_want(half + 1, two, 1, 0, HJ_AMOUNT_MAX),
	            HJ_AMOUNT_MAX, 2);
	expect_fees(hjd_evm_fees_want(HJ_AMOUNT_MAX, two, 1, 0, HJ_AMOUNT_MAX),
	            HJ_AMOUNT_MAX, 2);
	expect_fees(hjd_evm_fees_want(HJ_AMOUNT_MAX, two, 1, 0, 1000), 1000, 2);
}

/* A never accepted version follows the node's fees up, never down. */
static void test_fees_refresh(void **state)
{
	const hjd_evm_fees have = {.max_fee = 100, .tip = 10};
	hjd_evm_fees f;

	(void)state;
	assert_int_equal(
	    hjd_evm_fees_refresh(have,
	                         (hjd_evm_fees){.max_fee = 120, .tip = 12}, &f),
	    1);
	expect_fees(f, 120, 12);
	/* One rises, the other keeps its own. */
	assert_int_equal(
	    hjd_evm_fees_refresh(have, (hjd_evm_fees){.max_fee = 90, .tip = 12},
	                         &f),
	    1);
	expect_fees(f, 100, 12);
	assert_int_equal(
	    hjd_evm_fees_refresh(have, (hjd_evm_fees){.max_fee = 101, .tip = 1},
	                         &f),
	    1);
	expect_fees(f, 101, 10);
	/* Both at least the node's: sent as it is. */
	assert_int_equal(
	    hjd_evm_fees_refresh(have,
	                         (hjd_evm_fees){.max_fee = 100, .tip = 10}, &f),
	    0);
	expect_fees(f, 100, 10);
	assert_int_equal(hjd_evm_fees_refresh(
	                     have, (hjd_evm_fees){.max_fee = 0, .tip = 0}, &f),
	                 0);
	expect_fees(f, 100, 10);
}

/* A replacement: each fee + 1/8 + 1 within the cap, the tip within the
 * fee cap, then the node's fees when higher. */
static void test_fees_bump(void **state)
{
	const hjd_evm_fees have = {.max_fee = 80, .tip = 8};
	const hjd_evm_fees none = {0, 0};
	hjd_evm_fees f;

	(void)state;
	assert_int_equal(hjd_evm_fees_bump(have, none, 1000, &f), 1);
	expect_fees(f, 91, 10);
	/* The node's, when above the bump. */
	assert_int_equal(
	    hjd_evm_fees_bump(have, (hjd_evm_fees){.max_fee = 200, .tip = 20},
	                      1000, &f),
	    1);
	expect_fees(f, 200, 20);
	/* The cap bounds the fee cap, the fee cap the tip. */
	assert_int_equal(hjd_evm_fees_bump(have, none, 85, &f), 1);
	expect_fees(f, 85, 10);
	assert_int_equal(
	    hjd_evm_fees_bump((hjd_evm_fees){80, 80}, none, 85, &f), 1);
	expect_fees(f, 85, 85);
	/* The node's tip only within the fee cap. */
	assert_int_equal(
	    hjd_evm_fees_bump(have, (hjd_evm_fees){.max_fee = 0, .tip = 86}, 85,
	                      &f),
	    1);
	expect_fees(f, 85, 10);
	assert_int_equal(
	    hjd_evm_fees_bump(have, (hjd_evm_fees){.max_fee = 0, .tip = 85}, 85,
	                      &f),
	    1);
	expect_fees(f, 85, 85);
	/* From 0: 1 each. */
	assert_int_equal(hjd_evm_fees_bump(none, none, 1000, &f), 1);
	expect_fees(f, 1, 1);
}

/* At the cap no replacement can raise both fees: sent again as it is. */
static void test_fees_bump_at_cap(void **state)
{
	hjd_evm_fees f;

	(void)state;
	/* The fee cap is at the cap. */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){85, 8},
	                                   (hjd_evm_fees){85, 8}, 85, &f),
	                 0);
	/* The tip is at the fee cap, which is at the cap. */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){85, 85},
	                                   (hjd_evm_fees){0, 0}, 85, &f),
	                 0);
	/* The tip cannot rise: it is at the (raised) fee cap already. */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){84, 85},
	                                   (hjd_evm_fees){0, 0}, 85, &f),
	                 0);
	expect_fees(f, 85, 85);
	/* Above a lowered cap: nothing higher is allowed. */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){100, 8},
	                                   (hjd_evm_fees){0, 0}, 85, &f),
	                 0);
	expect_fees(f, 85, 10);
}

/* v + v/8 + 1 next to 2^128 - 1: exact up to it, saturated beyond. */
static void test_fees_bump_near_max(void **state)
{
	const hj_amount m1 = u128(0xe38e38e38e38e38e, 0x38e38e38e38e38e1);
	const hjd_evm_fees none = {0, 0};
	hjd_evm_fees f;

	(void)state;
	/* m1 + m1/8 + 1 = 2^128 - 2 */
	assert_int_equal(
	    hjd_evm_fees_bump((hjd_evm_fees){m1, 1}, none, HJ_AMOUNT_MAX, &f),
	    1);
	expect_fees(f, HJ_AMOUNT_MAX - 1, 2);
	/* (m1 + 1) + (m1 + 1)/8 + 1 = 2^128 - 1 */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){m1 + 1, m1}, none,
	                                   HJ_AMOUNT_MAX, &f),
	                 1);
	expect_fees(f, HJ_AMOUNT_MAX, HJ_AMOUNT_MAX - 1);
	/* (m1 + 2) + (m1 + 2)/8 + 1 = 2^128: saturates (wrapped, it
	 * would be 0, and no rise). */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){m1 + 2, m1 + 2}, none,
	                                   HJ_AMOUNT_MAX, &f),
	                 1);
	expect_fees(f, HJ_AMOUNT_MAX, HJ_AMOUNT_MAX);
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){HJ_AMOUNT_MAX - 1,
	                                                  HJ_AMOUNT_MAX - 1},
	                                   none, HJ_AMOUNT_MAX, &f),
	                 1);
	expect_fees(f, HJ_AMOUNT_MAX, HJ_AMOUNT_MAX);
	/* At 2^128 - 1 nothing rises. */
	assert_int_equal(hjd_evm_fees_bump((hjd_evm_fees){HJ_AMOUNT_MAX, 1},
	                                   none, HJ_AMOUNT_MAX, &f),
	                 0);
	assert_int_equal(
	    hjd_evm_fees_bump((hjd_evm_fees){HJ_AMOUNT_MAX, HJ_AMOUNT_MAX},
	                      none, HJ_AMOUNT_MAX, &f),
	    0);
	expect_fees(f, HJ_AMOUNT_MAX, HJ_AMOUNT_MAX);
}

static int setup(void **state)
{
	char err[HJ_ERRLEN];

	(void)state;
	return hj_secp_new(&ctx, err, sizeof err) != 0;
}

static int teardown(void **state)
{
	(void)state;
	hj_secp_free(ctx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_btc_no_payouts),
	    cmocka_unit_test(test_btc_grouping_order),
	    cmocka_unit_test(test_btc_ties),
	    cmocka_unit_test(test_btc_output_cap_split),
	    cmocka_unit_test(test_btc_lone_above_cap),
	    cmocka_unit_test(test_btc_unpayable),
	    cmocka_unit_test(test_btc_sweeps),
	    cmocka_unit_test(test_btc_dust),
	    cmocka_unit_test(test_btc_max_outputs),
	    cmocka_unit_test(test_evm_pick_recipient),
	    cmocka_unit_test(test_evm_pick_skip),
	    cmocka_unit_test(test_evm_pick_held),
	    cmocka_unit_test(test_evm_min_refund),
	    cmocka_unit_test(test_evm_sweep),
	    cmocka_unit_test(test_owed_tally),
	    cmocka_unit_test(test_evm_pick_overflow),
	    cmocka_unit_test(test_fees_median),
	    cmocka_unit_test(test_fees_first_sixteen),
	    cmocka_unit_test(test_fees_floor),
	    cmocka_unit_test(test_fees_cap),
	    cmocka_unit_test(test_fees_base_overflow),
	    cmocka_unit_test(test_fees_refresh),
	    cmocka_unit_test(test_fees_bump),
	    cmocka_unit_test(test_fees_bump_at_cap),
	    cmocka_unit_test(test_fees_bump_near_max),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
