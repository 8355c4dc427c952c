/*
 * The dealer's address parsed once (chain/dealer.h): what each family
 * keeps of it, and the reasons it gives for what it refuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dealer.h"
#include "say.h"

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(hex), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void test_evm(void **state)
{
	static const char mixed[] =
	    "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf";
	uint8_t want[20];
	hj_dealer d;
	char why[HJ_ERRLEN] = "";

	(void)state;
	assert_int_equal(
	    hj_dealer_parse(HJ_EVM, mixed, strlen(mixed), &d, why, sizeof why),
	    0);
	assert_int_equal(d.family, HJ_EVM);
	unhex("7e5f4552091a69125d5dfcb7b8c2659029395bdf", want, 20);
	assert_memory_equal(d.addr, want, 20);
	/* The text the state and the messages show: lower case. */
	assert_string_equal(d.text,
	                    "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf");
	assert_int_equal(d.script_len, 0);
	assert_null(d.hrp);
}

static void evm_refused(const char *s, size_t len, const char *why_want)
{
	hj_dealer d;
	char why[HJ_ERRLEN] = "";

	assert_int_equal(hj_dealer_parse(HJ_EVM, s, len, &d, why, sizeof why),
	                 -EINVAL);
	assert_string_equal(why, why_want);
}

static void test_evm_refused(void **state)
{
	(void)state;
	evm_refused("7e5f4552091a69125d5dfcb7b8c2659029395bdf", 40,
	            "\"0x\" prefix missing");
	evm_refused("0x7e5f4552091a69125d5dfcb7b8c2659029395bd", 41,
	            "40 hex digits expected, found 39");
	evm_refused("0x7e5f4552091a69125d5dfcb7b8c2659029395bdg", 42,
	            "'g' at offset 41 is not a hex digit");
	evm_refused("", 0, "\"0x\" prefix missing");
	/* A NUL inside: the length is what counts. */
	evm_refused("0x7e5f4552091a69125d5dfcb7b8c2659029\0"
	            "95bdf",
	            42, "\\x00 at offset 36 is not a hex digit");
}

static void btc_ok(const char *addr, const char *script_hex, const char *hrp)
{
	uint8_t want[HJ_BTC_SCRIPT_MAX];
	size_t n = strlen(script_hex) / 2;
	hj_dealer d;
	char why[HJ_ERRLEN] = "";

	if (hj_dealer_parse(HJ_BITCOIN, addr, strlen(addr), &d, why,
	                    sizeof why))
		fail_msg("%s: %s", addr, why);
	assert_int_equal(d.family, HJ_BITCOIN);
	unhex(script_hex, want, n);
	assert_int_equal(d.script_len, n);
	assert_memory_equal(d.script, want, n);
	assert_string_equal(d.hrp, hrp);
	/* As given: the state stores the configured text. */
	assert_string_equal(d.text, addr);
}

static void test_bitcoin(void **state)
{
	(void)state;
	/* BIP-173 and BIP-350 vectors, and a Litecoin regtest address. */
	btc_ok("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
	       "0014751e76e8199196d454941c45d1b3a323f1433bd6", "bc");
	btc_ok(
	    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
	    "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f8"
	    "1798",
	    "bc");
	btc_ok(
	    "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
	    "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903"
	    "262",
	    "tb");
	btc_ok(
	    "rltc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqytm4cm",
	    "5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc"
	    "684c",
	    "rltc");
}

static void btc_refused(const char *s, size_t len, const char *why_want)
{
	hj_dealer d;
	char why[HJ_ERRLEN] = "";

	assert_int_equal(
	    hj_dealer_parse(HJ_BITCOIN, s, len, &d, why, sizeof why), -EINVAL);
	assert_string_equal(why, why_want);
}

static void test_bitcoin_refused(void **state)
{
	char long_addr[200];

	(void)state;
	btc_refused("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\0x", 44,
	            "it holds a NUL");
	/* Longer than any bech32 string: the decoder's own words, whatever
	 * the length. */
	memset(long_addr, 'q', sizeof long_addr);
	memcpy(long_addr, "bc1", 3);
	btc_refused(long_addr, 91,
	            "not a segwit address (bech32 or bech32m): longer than 90 "
	            "characters, the bech32 limit");
	btc_refused(long_addr, sizeof long_addr,
	            "not a segwit address (bech32 or bech32m): longer than 90 "
	            "characters, the bech32 limit");
	/* An EVM address is no Bitcoin-family one. */
	btc_refused("0x7e5f4552091a69125d5dfcb7b8c2659029395bdf", 42,
	            "not a segwit address (bech32 or bech32m): 'b' at offset "
	            "24 is not a bech32 data character");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evm),
	    cmocka_unit_test(test_evm_refused),
	    cmocka_unit_test(test_bitcoin),
	    cmocka_unit_test(test_bitcoin_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
