/* hj_payload_parse and hj_payload_encode: docs/PROTOCOL.md section 11, both
 * families. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "payload.h"

#define BUF 256

/* Magic, version 01 and act, then pattern bytes 0x80 + i up to n. */
static void build(uint8_t *p, size_t n, unsigned act)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(0x80 + i);
	p[0] = 0x48;
	p[1] = 0x4a;
	p[2] = 0x01;
	p[3] = (uint8_t)act;
}

static const uint8_t zero32[32];
static const uint8_t zero64[64];

static void assert_empty_fields(const hj_payload *pl)
{
	assert_int_equal(pl->insurance, 0);
	assert_int_equal(pl->side_pp, 0);
	assert_int_equal(pl->side_t3, 0);
	assert_memory_equal(pl->key, zero32, 32);
	assert_memory_equal(pl->round, zero32, 8);
	assert_memory_equal(pl->sig, zero64, 64);
}

/* Parses into a struct full of junk, to see that parse zeroes it. */
static int parse(hj_family fam, const uint8_t *p, size_t n, hj_payload *pl)
{
	memset(pl, 0xa5, sizeof *pl);
	return hj_payload_parse(fam, p, n, pl);
}

static void test_evm_bet(void **state)
{
	static const uint8_t b4[] = {0x48, 0x4a, 0x01, 0x01};
	static const uint8_t b12[] = {0x48, 0x4a, 0x01, 0x01, 0x01, 0x02,
	                              0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
	static const uint8_t b20[] = {0x48, 0x4a, 0x01, 0x01, 0x00, 0x00, 0x00,
	                              0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xfe,
	                              0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8};
	static const uint8_t b20b[] = {0x48, 0x4a, 0x01, 0x01, 0x01, 0x02, 0x03,
	                               0x04, 0x05, 0x06, 0x07, 0x08, 0x11, 0x12,
	                               0x13, 0x14, 0x15, 0x16, 0x17, 0x18};
	hj_payload pl;

	(void)state;
	assert_int_equal(parse(HJ_EVM, b4, sizeof b4, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_BET);
	assert_empty_fields(&pl);

	assert_int_equal(parse(HJ_EVM, b12, sizeof b12, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_BET);
	assert_int_equal(pl.side_pp, 0x0102030405060708u);
	assert_int_equal(pl.side_t3, 0);

	assert_int_equal(parse(HJ_EVM, b20, sizeof b20, &pl), HJ_OK);
	assert_int_equal(pl.side_pp, 0);
	assert_int_equal(pl.side_t3, 0xfffefdfcfbfaf9f8u);

	assert_int_equal(parse(HJ_EVM, b20b, sizeof b20b, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_BET);
	assert_int_equal(pl.side_pp, 0x0102030405060708u);
	assert_int_equal(pl.side_t3, 0x1112131415161718u);
	assert_int_equal(pl.insurance, 0);
	assert_memory_equal(pl.key, zero32, 32);
}

static void test_evm_plain_actions(void **state)
{
	uint8_t p[4];
	hj_payload pl;

	(void)state;
	for (unsigned act = HJ_HIT; act <= HJ_SURRENDER; act++) {
		build(p, sizeof p, act);
		assert_int_equal(parse(HJ_EVM, p, 4, &pl), HJ_OK);
		assert_int_equal(pl.act, act);
		assert_empty_fields(&pl);
	}
}

static void test_evm_peek(void **state)
{
	uint8_t p[5] = {0x48, 0x4a, 0x01, 0x07, 0x00};
	hj_payload pl;

	(void)state;
	assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_PEEK);
	assert_empty_fields(&pl);

	p[4] = 0x01;
	assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_PEEK);
	assert_int_equal(pl.insurance, 1);

	for (unsigned f = 2; f <= 0xff; f++) {
		p[4] = (uint8_t)f;
		assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_R_BAD_FIELD);
		assert_int_equal(pl.act, HJ_PEEK);
		assert_empty_fields(&pl);
	}
}

static void test_btc_bet(void **state)
{
	uint8_t p[52];
	hj_payload pl;

	(void)state;
	build(p, sizeof p, HJ_BET);
	/* Key bytes 4..35 are 0x84..0xa3; side stakes follow. */
	memcpy(p + 36, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	memcpy(p + 44, "\x00\x00\x00\x00\x00\x00\x00\x2a", 8);

	assert_int_equal(parse(HJ_BITCOIN, p, 36, &pl), HJ_OK);
	assert_int_equal(pl.act, HJ_BET);
	assert_int_equal(pl.key[0], 0x84);
	assert_int_equal(pl.key[31], 0xa3);
	assert_memory_equal(pl.key, p + 4, 32);
	assert_int_equal(pl.side_pp, 0);
	assert_int_equal(pl.side_t3, 0);
	assert_memory_equal(pl.round, zero32, 8);
	assert_memory_equal(pl.sig, zero64, 64);

	assert_int_equal(parse(HJ_BITCOIN, p, 44, &pl), HJ_OK);
	assert_memory_equal(pl.key, p + 4, 32);
	assert_int_equal(pl.side_pp, 0x0102030405060708u);
	assert_int_equal(pl.side_t3, 0);

	assert_int_equal(parse(HJ_BITCOIN, p, 52, &pl), HJ_OK);
	assert_memory_equal(pl.key, p + 4, 32);
	assert_int_equal(pl.side_pp, 0x0102030405060708u);
	assert_int_equal(pl.side_t3, 42);
	assert_int_equal(pl.insurance, 0);
}

static void test_btc_plain_actions(void **state)
{
	uint8_t p[76];
	hj_payload pl;

	(void)state;
	for (unsigned act = HJ_HIT; act <= HJ_SURRENDER; act++) {
		build(p, sizeof p, act);
		assert_int_equal(parse(HJ_BITCOIN, p, 76, &pl), HJ_OK);
		assert_int_equal(pl.act, act);
		/* Round id is bytes 4..11, the signature 12..75. */
		assert_int_equal(pl.round[0], 0x84);
		assert_int_equal(pl.round[7], 0x8b);
		assert_int_equal(pl.sig[0], 0x8c);
		assert_int_equal(pl.sig[63], 0xcb);
		assert_memory_equal(pl.round, p + 4, 8);
		assert_memory_equal(pl.sig, p + 12, 64);
		assert_int_equal(pl.insurance, 0);
		assert_int_equal(pl.side_pp, 0);
		assert_int_equal(pl.side_t3, 0);
		assert_memory_equal(pl.key, zero32, 32);
	}
}

static void test_btc_peek(void **state)
{
	uint8_t p[77];
	hj_payload pl;

	(void)state;
	build(p, sizeof p, HJ_PEEK);
	for (unsigned f = 0; f <= 1; f++) {
		p[4] = (uint8_t)f;
		assert_int_equal(parse(HJ_BITCOIN, p, 77, &pl), HJ_OK);
		assert_int_equal(pl.act, HJ_PEEK);
		assert_int_equal(pl.insurance, f);
		/* Flag first, then round id 5..12, then signature 13..76. */
		assert_int_equal(pl.round[0], 0x85);
		assert_int_equal(pl.sig[0], 0x8d);
		assert_int_equal(pl.sig[63], 0xcc);
		assert_memory_equal(pl.round, p + 5, 8);
		assert_memory_equal(pl.sig, p + 13, 64);
		assert_memory_equal(pl.key, zero32, 32);
	}
	p[4] = 0x02;
	assert_int_equal(parse(HJ_BITCOIN, p, 77, &pl), HJ_R_BAD_FIELD);
	assert_int_equal(pl.act, HJ_PEEK);
	assert_empty_fields(&pl);
	p[4] = 0x80;
	assert_int_equal(parse(HJ_BITCOIN, p, 77, &pl), HJ_R_BAD_FIELD);
	assert_int_equal(pl.act, HJ_PEEK);
}

/*
 * Every length from 4 to BUF for every action: the valid lengths are written
 * out here from docs/PROTOCOL.md section 11.1, and everything else must be
 * bad_length below the longest valid one and too_long above it.
 */
static void sweep(hj_family fam, unsigned act, const size_t *ok, size_t nok)
{
	uint8_t p[BUF];
	hj_payload pl;

	build(p, sizeof p, act);
	if (act == HJ_PEEK)
		p[4] = 0x01;
	for (size_t n = 4; n <= BUF; n++) {
		int want = n > ok[nok - 1] ? HJ_R_TOO_LONG : HJ_R_BAD_LENGTH;

		for (size_t i = 0; i < nok; i++)
			if (n == ok[i])
				want = HJ_OK;
		assert_int_equal(parse(fam, p, n, &pl), want);
		assert_int_equal(pl.act, act);
		if (want != HJ_OK)
			assert_empty_fields(&pl);
	}
}

static void test_lengths_evm(void **state)
{
	static const size_t bet[] = {4, 12, 20};
	static const size_t plain[] = {4};
	static const size_t peek[] = {5};

	(void)state;
	sweep(HJ_EVM, HJ_BET, bet, 3);
	for (unsigned act = HJ_HIT; act <= HJ_SURRENDER; act++)
		sweep(HJ_EVM, act, plain, 1);
	sweep(HJ_EVM, HJ_PEEK, peek, 1);
}

static void test_lengths_btc(void **state)
{
	static const size_t bet[] = {36, 44, 52};
	static const size_t plain[] = {76};
	static const size_t peek[] = {77};

	(void)state;
	sweep(HJ_BITCOIN, HJ_BET, bet, 3);
	for (unsigned act = HJ_HIT; act <= HJ_SURRENDER; act++)
		sweep(HJ_BITCOIN, act, plain, 1);
	sweep(HJ_BITCOIN, HJ_PEEK, peek, 1);
}

static void test_spot_lengths(void **state)
{
	uint8_t p[BUF];
	hj_payload pl;

	(void)state;
	/* A few named by hand, so the sweep's table is not the only word. */
	build(p, sizeof p, HJ_BET);
	assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_EVM, p, 11, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_EVM, p, 13, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_EVM, p, 21, &pl), HJ_R_TOO_LONG);
	assert_int_equal(parse(HJ_EVM, p, 36, &pl), HJ_R_TOO_LONG);
	assert_int_equal(parse(HJ_BITCOIN, p, 4, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_BITCOIN, p, 35, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_BITCOIN, p, 53, &pl), HJ_R_TOO_LONG);
	build(p, sizeof p, HJ_STAND);
	assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_R_TOO_LONG);
	assert_int_equal(parse(HJ_BITCOIN, p, 4, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_BITCOIN, p, 75, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_BITCOIN, p, 77, &pl), HJ_R_TOO_LONG);
	build(p, sizeof p, HJ_PEEK);
	p[4] = 0;
	assert_int_equal(parse(HJ_EVM, p, 4, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_EVM, p, 6, &pl), HJ_R_TOO_LONG);
	assert_int_equal(parse(HJ_BITCOIN, p, 76, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(parse(HJ_BITCOIN, p, 78, &pl), HJ_R_TOO_LONG);
	/* Length is judged before the flag. */
	p[4] = 9;
	assert_int_equal(parse(HJ_EVM, p, 6, &pl), HJ_R_TOO_LONG);
	assert_int_equal(parse(HJ_BITCOIN, p, 5, &pl), HJ_R_BAD_LENGTH);
	assert_int_equal(HJ_PAYLOAD_MAX, 77);
}

static void test_no_magic(void **state)
{
	static const uint8_t h[] = {0x48};
	static const uint8_t hx[] = {0x48, 0x00};
	static const uint8_t lower[] = {0x68, 0x6a, 0x01, 0x02};
	static const uint8_t swapped[] = {0x4a, 0x48, 0x01, 0x02};
	static const uint8_t erc20[] = {0xa9, 0x05, 0x9c, 0xbb, 0x00, 0x00};
	hj_payload pl;
	hj_family fams[] = {HJ_EVM, HJ_BITCOIN};

	(void)state;
	for (int f = 0; f < 2; f++) {
		assert_int_equal(parse(fams[f], NULL, 0, &pl), HJ_R_NO_MAGIC);
		assert_int_equal(pl.act, HJ_ACT_NONE);
		assert_empty_fields(&pl);
		assert_int_equal(parse(fams[f], h, 1, &pl), HJ_R_NO_MAGIC);
		assert_int_equal(parse(fams[f], hx, 2, &pl), HJ_R_NO_MAGIC);
		assert_int_equal(parse(fams[f], lower, 4, &pl), HJ_R_NO_MAGIC);
		assert_int_equal(parse(fams[f], swapped, 4, &pl),
		                 HJ_R_NO_MAGIC);
		assert_int_equal(parse(fams[f], erc20, 6, &pl), HJ_R_NO_MAGIC);
		assert_int_equal(pl.act, HJ_ACT_NONE);
		assert_empty_fields(&pl);
	}
}

static void test_truncated(void **state)
{
	static const uint8_t p2[] = {0x48, 0x4a};
	static const uint8_t p3[] = {0x48, 0x4a, 0x01};
	static const uint8_t p3v[] = {0x48, 0x4a, 0x02};
	hj_payload pl;

	(void)state;
	assert_int_equal(parse(HJ_EVM, p2, 2, &pl), HJ_R_TRUNCATED);
	assert_int_equal(pl.act, HJ_ACT_NONE);
	assert_empty_fields(&pl);
	assert_int_equal(parse(HJ_EVM, p3, 3, &pl), HJ_R_TRUNCATED);
	assert_int_equal(pl.act, HJ_ACT_NONE);
	/* Too short to judge the version by the stated order. */
	assert_int_equal(parse(HJ_BITCOIN, p3v, 3, &pl), HJ_R_TRUNCATED);
	assert_int_equal(parse(HJ_BITCOIN, p3, 3, &pl), HJ_R_TRUNCATED);
}

static void test_bad_version(void **state)
{
	uint8_t p[BUF];
	hj_payload pl;

	(void)state;
	build(p, sizeof p, HJ_HIT);
	for (unsigned v = 0; v <= 0xff; v++) {
		if (v == 1)
			continue;
		p[2] = (uint8_t)v;
		assert_int_equal(parse(HJ_EVM, p, 4, &pl), HJ_R_BAD_VERSION);
		/* Under an unknown version the action byte means nothing. */
		assert_int_equal(pl.act, HJ_ACT_NONE);
		assert_int_equal(parse(HJ_BITCOIN, p, 76, &pl),
		                 HJ_R_BAD_VERSION);
		/* Version comes before length. */
		assert_int_equal(parse(HJ_EVM, p, BUF, &pl), HJ_R_BAD_VERSION);
	}
}

static void test_unknown_action(void **state)
{
	static const unsigned acts[] = {0x00, 0x09, 0x0a, 0x7f, 0x80, 0xff};
	uint8_t p[BUF];
	hj_payload pl;

	(void)state;
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		build(p, sizeof p, acts[i]);
		assert_int_equal(parse(HJ_EVM, p, 4, &pl), HJ_R_UNKNOWN_ACTION);
		assert_int_equal(pl.act, HJ_ACT_NONE);
		assert_empty_fields(&pl);
		assert_int_equal(parse(HJ_BITCOIN, p, 76, &pl),
		                 HJ_R_UNKNOWN_ACTION);
		assert_int_equal(pl.act, HJ_ACT_NONE);
		/* The action is judged before the length. */
		assert_int_equal(parse(HJ_EVM, p, BUF, &pl),
		                 HJ_R_UNKNOWN_ACTION);
		assert_int_equal(parse(HJ_EVM, p, 5, &pl), HJ_R_UNKNOWN_ACTION);
	}
}

static void test_encode_exact(void **state)
{
	uint8_t out[HJ_PAYLOAD_MAX];
	hj_payload pl;

	(void)state;
	memset(&pl, 0, sizeof pl);
	pl.act = HJ_BET;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 4);
	assert_memory_equal(out, "\x48\x4a\x01\x01", 4);

	pl.side_pp = 0x0102030405060708u;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 12);
	assert_memory_equal(out,
	                    "\x48\x4a\x01\x01\x01\x02\x03\x04\x05\x06"
	                    "\x07\x08",
	                    12);

	pl.side_t3 = 0xa0b0c0d0e0f00010u;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 20);
	assert_memory_equal(out,
	                    "\x48\x4a\x01\x01\x01\x02\x03\x04\x05\x06"
	                    "\x07\x08\xa0\xb0\xc0\xd0\xe0\xf0\x00\x10",
	                    20);

	/* Only 21+3: perfect pairs is written as zero in front of it. */
	pl.side_pp = 0;
	pl.side_t3 = 5;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 20);
	assert_memory_equal(out,
	                    "\x48\x4a\x01\x01\x00\x00\x00\x00\x00\x00"
	                    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05",
	                    20);

	/* Bitcoin Bet: the key, then the same stakes. */
	memset(pl.key, 0x77, sizeof pl.key);
	pl.side_t3 = 0;
	assert_int_equal(hj_payload_encode(HJ_BITCOIN, &pl, out), 36);
	assert_memory_equal(out, "\x48\x4a\x01\x01", 4);
	assert_memory_equal(out + 4, pl.key, 32);
	pl.side_pp = 0x100;
	assert_int_equal(hj_payload_encode(HJ_BITCOIN, &pl, out), 44);
	assert_memory_equal(out + 36, "\x00\x00\x00\x00\x00\x00\x01\x00", 8);

	/* Peek: any non-zero insurance is the flag 01. */
	memset(&pl, 0, sizeof pl);
	pl.act = HJ_PEEK;
	pl.insurance = 7;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 5);
	assert_memory_equal(out, "\x48\x4a\x01\x07\x01", 5);
	pl.insurance = 0;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 5);
	assert_memory_equal(out, "\x48\x4a\x01\x07\x00", 5);

	/* Bitcoin Peek: flag, round id, signature. */
	pl.insurance = 1;
	memset(pl.round, 0x11, sizeof pl.round);
	memset(pl.sig, 0x22, sizeof pl.sig);
	assert_int_equal(hj_payload_encode(HJ_BITCOIN, &pl, out), 77);
	assert_memory_equal(out, "\x48\x4a\x01\x07\x01", 5);
	assert_memory_equal(out + 5, pl.round, 8);
	assert_memory_equal(out + 13, pl.sig, 64);

	pl.act = HJ_DOUBLE;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 4);
	assert_memory_equal(out, "\x48\x4a\x01\x04", 4);
	assert_int_equal(hj_payload_encode(HJ_BITCOIN, &pl, out), 76);
	assert_memory_equal(out, "\x48\x4a\x01\x04", 4);
	assert_memory_equal(out + 4, pl.round, 8);
	assert_memory_equal(out + 12, pl.sig, 64);

	/* No encoding for a non-action. */
	pl.act = HJ_ACT_NONE;
	assert_int_equal(hj_payload_encode(HJ_EVM, &pl, out), 0);
	pl.act = (hj_act)9;
	assert_int_equal(hj_payload_encode(HJ_BITCOIN, &pl, out), 0);
}

/* A Commit (docs/PROTOCOL.md section 12): 48 bytes in both families,
 * H u64 and L u32 big-endian, then s_0; any other length, or L = 0, is
 * malformed, with the action named. */
static void test_commit(void **state)
{
	uint8_t p[HJ_PAYLOAD_MAX + 8], out[HJ_PAYLOAD_MAX];
	hj_payload pl, back;

	(void)state;
	memset(p, 0, sizeof p);
	memcpy(p,
	       "\x48\x4a\x01\x08"
	       "\x00\x00\x00\x00\x01\x22\x33\x44" /* H */
	       "\x00\x00\x01\x00",                /* L = 256 */
	       16);
	for (int i = 0; i < 32; i++)
		p[16 + i] = (uint8_t)(0xa0 + i);
	for (int fam = HJ_EVM; fam <= HJ_BITCOIN; fam++) {
		assert_int_equal(parse((hj_family)fam, p, 48, &pl), HJ_OK);
		assert_int_equal(pl.act, HJ_COMMIT);
		assert_int_equal(pl.start, 0x01223344u);
		assert_int_equal(pl.length, 256);
		assert_memory_equal(pl.commitment, p + 16, 32);
		assert_int_equal(hj_payload_encode((hj_family)fam, &pl, out),
		                 HJ_COMMIT_LEN);
		assert_memory_equal(out, p, HJ_COMMIT_LEN);
		assert_int_equal(parse((hj_family)fam, out, 48, &back), HJ_OK);
		for (size_t n = 4; n < sizeof p; n++) {
			if (n == 48)
				continue;
			assert_int_equal(parse((hj_family)fam, p, n, &pl),
			                 HJ_R_MALFORMED);
			assert_int_equal(pl.act, HJ_COMMIT);
			assert_int_equal(pl.length, 0);
		}
	}
	p[14] = 0; /* L = 0 */
	assert_int_equal(parse(HJ_EVM, p, 48, &pl), HJ_R_MALFORMED);
	assert_int_equal(pl.act, HJ_COMMIT);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void test_round_trip_random(void **state)
{
	static const size_t len[2][8] = {
	    /* longest form per action, indexed by act */
	    [HJ_EVM] = {0, 20, 4, 4, 4, 4, 4, 5},
	    [HJ_BITCOIN] = {0, 52, 76, 76, 76, 76, 76, 77},
	};
	uint8_t out[HJ_PAYLOAD_MAX + 16];
	uint64_t x = 0x2545f4914f6cdd1du;
	int forms[3] = {0};

	(void)state;
	for (int k = 0; k < 20000; k++) {
		hj_family fam = (rnd(&x) & 1) ? HJ_BITCOIN : HJ_EVM;
		hj_payload in, got;
		size_t n;

		memset(&in, 0, sizeof in);
		in.act = (hj_act)(1 + rnd(&x) % 7);
		if (in.act == HJ_BET) {
			/* Zero stakes often, so every form occurs. */
			in.side_pp = rnd(&x) % 3 == 0 ? 0 : rnd(&x);
			in.side_t3 = rnd(&x) % 3 == 0 ? 0 : rnd(&x);
			if (fam == HJ_BITCOIN)
				for (int i = 0; i < 32; i++)
					in.key[i] = (uint8_t)rnd(&x);
		} else if (fam == HJ_BITCOIN) {
			for (int i = 0; i < 8; i++)
				in.round[i] = (uint8_t)rnd(&x);
			for (int i = 0; i < 64; i++)
				in.sig[i] = (uint8_t)rnd(&x);
		}
		if (in.act == HJ_PEEK)
			in.insurance = rnd(&x) & 1;

		/* Canary after the payload: encode writes no further. */
		memset(out, 0xee, sizeof out);
		n = hj_payload_encode(fam, &in, out);
		if (in.act == HJ_BET) {
			size_t sides = in.side_t3 ? 2 : in.side_pp ? 1 : 0;

			assert_int_equal(n, len[fam][HJ_BET] - 8 * (2 - sides));
			forms[sides]++;
		} else {
			assert_int_equal(n, len[fam][in.act]);
		}
		assert_int_equal(out[n], 0xee);

		assert_int_equal(parse(fam, out, n, &got), HJ_OK);
		assert_int_equal(got.act, in.act);
		assert_int_equal(got.insurance, in.insurance);
		assert_int_equal(got.side_pp, in.side_pp);
		assert_int_equal(got.side_t3, in.side_t3);
		assert_memory_equal(got.key, in.key, 32);
		assert_memory_equal(got.round, in.round, 8);
		assert_memory_equal(got.sig, in.sig, 64);

		/* One byte more or less is never valid. */
		assert_int_not_equal(parse(fam, out, n - 1, &got), HJ_OK);
		assert_int_not_equal(parse(fam, out, n + 1, &got), HJ_OK);
	}
	assert_true(forms[0] > 100 && forms[1] > 100 && forms[2] > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm_bet),
	    cmocka_unit_test(test_evm_plain_actions),
	    cmocka_unit_test(test_evm_peek),
	    cmocka_unit_test(test_btc_bet),
	    cmocka_unit_test(test_btc_plain_actions),
	    cmocka_unit_test(test_btc_peek),
	    cmocka_unit_test(test_lengths_evm),
	    cmocka_unit_test(test_lengths_btc),
	    cmocka_unit_test(test_spot_lengths),
	    cmocka_unit_test(test_no_magic),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_bad_version),
	    cmocka_unit_test(test_unknown_action),
	    cmocka_unit_test(test_encode_exact),
	    cmocka_unit_test(test_commit),
	    cmocka_unit_test(test_round_trip_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
