/*
 * The EVM normalisation of one transaction into an hj_action (chain/evm.h,
 * docs/PROTOCOL.md sections 9 and 11.2): failed transactions, deposits, every
 * malformed payload with its reason, every action, and what every action
 * carries whatever it is.
 *
 * Every expected value was written from docs/PROTOCOL.md and the header, not
 * copied from what the code gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "evm.h"

#define assert_amount_equal(a, b)                                              \
	do {                                                                   \
		hj_amount a_ = (a), b_ = (b);                                  \
		assert_int_equal((uint64_t)(a_ >> 64), (uint64_t)(b_ >> 64));  \
		assert_int_equal((uint64_t)a_, (uint64_t)b_);                  \
	} while (0)

/* 10^18: one ether in wei. */
#define E18 ((hj_amount)1000000000000000000ull)

static const uint8_t TXH[32] = {0x25, 0x99, 0x7f, 0x8b, 0x6d, 0xcb, 0xe3, 0x32,
                                0x89, 0x5a, 0xb9, 0xf0, 0x4e, 0xe1, 0xf6, 0x34,
                                0x41, 0x5b, 0x85, 0xb3, 0x0f, 0x68, 0xc8, 0xe3,
                                0x58, 0x39, 0xe5, 0xc5, 0x63, 0x32, 0xe8, 0xe7};
static const uint8_t FROM[20] = {0x5d, 0x5a, 0xf8, 0x4c, 0x79, 0xa7, 0xe6,
                                 0xcd, 0xbf, 0xa7, 0xe6, 0x25, 0x4f, 0x2e,
                                 0xd9, 0x33, 0xd9, 0x7a, 0xc7, 0xe8};
/* Above 2^64, so that a value cut to 64 bits shows. */
#define BIG_VALUE (((hj_amount)0x1234 << 64) | 0x8000000000000005ull)

/*
 * Normalises one transaction whose input sits in a heap buffer of exactly
 * n bytes (NULL when n is 0 and null_input), into an hj_action full of junk.
 */
static hj_action norm_full(const uint8_t *in, size_t n, int null_input,
                           int success, hj_amount value, uint32_t idx)
{
	uint8_t *copy = NULL;
	hj_evm_tx tx;
	hj_action a;

	if (!null_input) {
		copy = malloc(n ? n : 1);
		assert_non_null(copy);
		if (n)
			memcpy(copy, in, n);
	}
	memset(&tx, 0, sizeof tx);
	tx.hash = TXH;
	tx.from = FROM;
	tx.value = value;
	tx.input = copy;
	tx.input_len = n;
	tx.success = success;
	tx.tx_index = idx;
	memset(&a, 0xa5, sizeof a);
	hj_evm_action(&tx, &a);
	free(copy);
	return a;
}

static hj_action norm(const uint8_t *in, size_t n, int success)
{
	return norm_full(in, n, 0, success, BIG_VALUE, 7);
}

/* txid, sender, value and tx_index are set in every case (evm.h). */
static void assert_carried(const hj_action *a, hj_amount value, uint32_t idx)
{
	assert_int_equal(a->tx_index, idx);
	assert_int_equal(a->txid.len, 32);
	assert_memory_equal(a->txid.b, TXH, 32);
	assert_int_equal(a->sender.len, 20);
	assert_memory_equal(a->sender.b, FROM, 20);
	assert_amount_equal(a->value, value);
}

/* Nothing of an action leaks into a transaction that is not one. */
static void assert_no_fields(const hj_action *a)
{
	assert_int_equal(a->insurance, 0);
	assert_int_equal(a->side_pp, 0);
	assert_int_equal(a->side_t3, 0);
}

static void test_evm_failed(void **state)
{
	static const uint8_t bet4[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t bet20[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02};
	static const uint8_t peek1[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
	static const uint8_t toolong[] = {0x48, 0x4a, 0x01, 0x02, 0x00};
	static const uint8_t plain[] = {0xa9, 0x05, 0x9c, 0xbb};
	const struct {
		const uint8_t *p;
		size_t n;
	} in[] = {
	    {bet4, sizeof bet4},
	    {bet20, sizeof bet20},
	    {peek1, sizeof peek1},
	    {toolong, sizeof toolong},
	    {plain, sizeof plain},
	    {bet4, 2},
	    {NULL, 0},
	};
	hj_action a;

	(void)state;
	/* A failed receipt is HJ_TX_FAILED whatever the input holds, a valid
	 * payload included (docs/PROTOCOL.md sections 9.3 and 11.2). */
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		a = norm(in[i].p, in[i].n, 0);
		assert_int_equal(a.kind, HJ_TX_FAILED);
		assert_int_equal(a.act, HJ_ACT_NONE);
		assert_no_fields(&a);
		assert_carried(&a, BIG_VALUE, 7);
	}
	a = norm_full(NULL, 0, 1, 0, 0, 0);
	assert_int_equal(a.kind, HJ_TX_FAILED);
	assert_carried(&a, 0, 0);
}

static void test_evm_deposit(void **state)
{
	static const uint8_t h[] = {0x48};
	static const uint8_t hj_but_empty[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t swapped[] = {0x4a, 0x48, 0x01, 0x01};
	static const uint8_t near1[] = {0x48, 0x4b, 0x01, 0x01};
	static const uint8_t near2[] = {0x49, 0x4a, 0x01, 0x01};
	static const uint8_t lower[] = {'h', 'j', 0x01, 0x01};
	/* The text "0x48" as bytes: not the magic. */
	static const uint8_t text[] = {'0', 'x', '4', '8'};
	static const uint8_t zero[] = {0x00};
	/* An ERC-20 transfer(address,uint256) call. */
	uint8_t erc20[4 + 64];
	const struct {
		const uint8_t *p;
		size_t n;
	} in[] = {
	    {h, sizeof h},         {hj_but_empty, 0},
	    {hj_but_empty, 1},     {swapped, sizeof swapped},
	    {near1, sizeof near1}, {near2, sizeof near2},
	    {lower, sizeof lower}, {text, sizeof text},
	    {zero, sizeof zero},   {erc20, sizeof erc20},
	};
	hj_action a;

	(void)state;
	memset(erc20, 0, sizeof erc20);
	erc20[0] = 0xa9;
	erc20[1] = 0x05;
	erc20[2] = 0x9c;
	erc20[3] = 0xbb;
	erc20[35] = 0x48;
	erc20[36] = 0x4a;

	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		a = norm(in[i].p, in[i].n, 1);
		assert_int_equal(a.kind, HJ_TX_DEPOSIT);
		assert_int_equal(a.act, HJ_ACT_NONE);
		assert_no_fields(&a);
		assert_carried(&a, BIG_VALUE, 7);
	}
	/* Empty input given as NULL, and a zero-value call (LOG.md: "0" is
	 * possible). */
	a = norm_full(NULL, 0, 1, 1, 0, 3);
	assert_int_equal(a.kind, HJ_TX_DEPOSIT);
	assert_int_equal(a.act, HJ_ACT_NONE);
	assert_carried(&a, 0, 3);
	a = norm_full(NULL, 0, 0, 1, E18, UINT32_MAX);
	assert_int_equal(a.kind, HJ_TX_DEPOSIT);
	assert_carried(&a, E18, UINT32_MAX);
}

static void check_malformed(const uint8_t *p, size_t n, hj_reason why,
                            hj_act act)
{
	hj_action a = norm(p, n, 1);

	assert_int_equal(a.kind, HJ_TX_MALFORMED);
	assert_int_equal(a.reason, why);
	assert_int_equal(a.act, act);
	assert_no_fields(&a);
	assert_carried(&a, BIG_VALUE, 7);
}

static void test_evm_malformed(void **state)
{
	uint8_t p[128];

	(void)state;
	memset(p, 0x01, sizeof p);
	p[0] = 0x48;
	p[1] = 0x4a;

	/* truncated: the magic, but no version or action. */
	check_malformed(p, 2, HJ_R_TRUNCATED, HJ_ACT_NONE);
	check_malformed(p, 3, HJ_R_TRUNCATED, HJ_ACT_NONE);

	/* bad_version, whatever follows: the action is not named. */
	for (unsigned v = 0; v < 256; v++) {
		if (v == 0x01)
			continue;
		p[2] = (uint8_t)v;
		p[3] = 0x01;
		check_malformed(p, 4, HJ_R_BAD_VERSION, HJ_ACT_NONE);
		check_malformed(p, 20, HJ_R_BAD_VERSION, HJ_ACT_NONE);
	}
	p[2] = 0x01;

	/* unknown_action: outside 01..08 (08, a Commit, is the table's to
	 * judge: malformed here when its length is wrong). */
	p[3] = HJ_COMMIT;
	check_malformed(p, 4, HJ_R_MALFORMED, HJ_COMMIT);
	check_malformed(p, 12, HJ_R_MALFORMED, HJ_COMMIT);
	for (unsigned x = 0; x < 256; x++) {
		if (x >= 1 && x <= 8)
			continue;
		p[3] = (uint8_t)x;
		check_malformed(p, 4, HJ_R_UNKNOWN_ACTION, HJ_ACT_NONE);
		check_malformed(p, 12, HJ_R_UNKNOWN_ACTION, HJ_ACT_NONE);
	}

	/* Bet: 4, 12 or 20 bytes; anything else up to 20 is bad_length,
	 * beyond it too_long. */
	p[3] = 0x01;
	for (size_t n = 5; n <= 19; n++)
		if (n != 12)
			check_malformed(p, n, HJ_R_BAD_LENGTH, HJ_BET);
	check_malformed(p, 21, HJ_R_TOO_LONG, HJ_BET);
	check_malformed(p, 28, HJ_R_TOO_LONG, HJ_BET);
	check_malformed(p, sizeof p, HJ_R_TOO_LONG, HJ_BET);

	/* Hit, Stand, Double, Split, Surrender: exactly 4 bytes. */
	for (unsigned x = HJ_HIT; x <= HJ_SURRENDER; x++) {
		p[3] = (uint8_t)x;
		check_malformed(p, 5, HJ_R_TOO_LONG, (hj_act)x);
		check_malformed(p, 77, HJ_R_TOO_LONG, (hj_act)x);
	}

	/* Peek: exactly 5 bytes, flag 00 or 01. */
	p[3] = 0x07;
	check_malformed(p, 4, HJ_R_BAD_LENGTH, HJ_PEEK);
	check_malformed(p, 6, HJ_R_TOO_LONG, HJ_PEEK);
	p[4] = 0x02;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
	p[4] = 0xff;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
	p[4] = 0x10;
	check_malformed(p, 5, HJ_R_BAD_FIELD, HJ_PEEK);
}

static hj_action check_action(const uint8_t *p, size_t n, hj_act act)
{
	hj_action a = norm(p, n, 1);

	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_int_equal(a.act, act);
	assert_int_equal(a.reason, HJ_OK);
	assert_carried(&a, BIG_VALUE, 7);
	return a;
}

static void test_evm_actions(void **state)
{
	static const uint8_t bet4[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t bet12[] = {0x48, 0x4a, 0x01, 0x01, 0x01, 0x02,
	                                0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
	static const uint8_t bet20[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff};
	static const uint8_t bet20t3[] = {
	    0x48, 0x4a, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8};
	static const uint8_t peek0[] = {0x48, 0x4a, 0x01, 0x07, 0x00};
	static const uint8_t peek1[] = {0x48, 0x4a, 0x01, 0x07, 0x01};
	uint8_t p[4] = {0x48, 0x4a, 0x01, 0x00};
	hj_action a;

	(void)state;
	a = check_action(bet4, sizeof bet4, HJ_BET);
	assert_no_fields(&a);

	/* Side stakes are big-endian u64s (docs/PROTOCOL.md section 11.2);
	 * whether they are offered is the table's call, so they come
	 * through. */
	a = check_action(bet12, sizeof bet12, HJ_BET);
	assert_int_equal(a.side_pp, 0x0102030405060708ull);
	assert_int_equal(a.side_t3, 0);
	assert_int_equal(a.insurance, 0);

	a = check_action(bet20, sizeof bet20, HJ_BET);
	assert_int_equal(a.side_pp, 0x8000000000000001ull);
	assert_int_equal(a.side_t3, 0xffull);

	a = check_action(bet20t3, sizeof bet20t3, HJ_BET);
	assert_int_equal(a.side_pp, 0);
	assert_int_equal(a.side_t3, 0xfffefdfcfbfaf9f8ull);

	for (unsigned x = HJ_HIT; x <= HJ_SURRENDER; x++) {
		p[3] = (uint8_t)x;
		a = check_action(p, sizeof p, (hj_act)x);
		assert_no_fields(&a);
	}

	a = check_action(peek1, sizeof peek1, HJ_PEEK);
	assert_int_equal(a.insurance, 1);
	assert_int_equal(a.side_pp, 0);
	assert_int_equal(a.side_t3, 0);
	a = check_action(peek0, sizeof peek0, HJ_PEEK);
	assert_no_fields(&a);
}

static void test_evm_carried(void **state)
{
	static const uint8_t hit[] = {0x48, 0x4a, 0x01, 0x02};
	static const uint8_t bad[] = {0x48, 0x4a, 0x01, 0x09};
	hj_action a;

	(void)state;
	/* Values and indexes at their extremes, in each kind. */
	a = norm_full(hit, sizeof hit, 0, 1, HJ_AMOUNT_MAX, UINT32_MAX);
	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_carried(&a, HJ_AMOUNT_MAX, UINT32_MAX);
	a = norm_full(hit, sizeof hit, 0, 1, 0, 0);
	assert_int_equal(a.kind, HJ_TX_ACTION);
	assert_carried(&a, 0, 0);
	a = norm_full(bad, sizeof bad, 0, 1, 7, 2);
	assert_int_equal(a.kind, HJ_TX_MALFORMED);
	assert_int_equal(a.reason, HJ_R_UNKNOWN_ACTION);
	assert_carried(&a, 7, 2);
	a = norm_full(bad, sizeof bad, 0, 0, E18 * 1000, 123456);
	assert_int_equal(a.kind, HJ_TX_FAILED);
	assert_carried(&a, E18 * 1000, 123456);

	/* The hash and sender are copied, not borrowed. */
	{
		uint8_t hash[32], from[20];
		hj_evm_tx tx;

		memcpy(hash, TXH, 32);
		memcpy(from, FROM, 20);
		memset(&tx, 0, sizeof tx);
		tx.hash = hash;
		tx.from = from;
		tx.value = 5;
		tx.input = hit;
		tx.input_len = sizeof hit;
		tx.success = 1;
		tx.tx_index = 9;
		hj_evm_action(&tx, &a);
		memset(hash, 0, sizeof hash);
		memset(from, 0, sizeof from);
		assert_carried(&a, 5, 9);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_failed),
	    cmocka_unit_test(test_evm_deposit),
	    cmocka_unit_test(test_evm_malformed),
	    cmocka_unit_test(test_evm_actions),
	    cmocka_unit_test(test_evm_carried),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
