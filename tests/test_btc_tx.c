/*
 * SHA-256 (chain/sha256.h) and the raw Bitcoin-family block and transaction
 * parser (chain/btc_tx.h).
 *
 * Every expected hash below is copied from a published source, named next
 * to it; none was produced by the code under test.  Where a test builds
 * bytes by hand (data outputs, malformed encodings) it asserts only what the
 * format says about them, never a hash of them.  Values in base units are
 * read off the serialized vectors (e.g. 00f2052a01000000 = 5000000000).
 *
 * Sources:
 *  [FIPS]  FIPS 180-2/180-4 examples (NIST "SHA256.pdf", csrc.nist.gov
 *          Examples with Intermediate Values): "abc", the 448-bit message,
 *          one million 'a'.
 *  [CAVP]  NIST CAVP SHAVS byte vectors, SHA256ShortMsg.rsp, Len = 0.
 *  [ADD]   NIST "SHA2_Additional.pdf" (csrc.nist.gov, Cryptographic
 *          Standards and Guidelines, examples), as listed in
 *          github.com/Haralishev77/PoW test_sha256/testcases.md.
 *  [B143]  BIP-143, "Example" section (github.com/bitcoin/bips,
 *          bip-0143.mediawiki): native P2WPKH and P2SH-P2WPKH.
 *  [B322]  BIP-322, "Test vectors" (github.com/bitcoin/bips,
 *          bip-0322.mediawiki): message hashes, the address, the simple
 *          signatures and the txids of to_spend and to_sign; the two
 *          transactions are assembled from the fields the BIP specifies.
 *  [GEN]   The Bitcoin genesis block as `getblock <hash> 0` returns it:
 *          bitcointalk.org topic 1241484 (raw hex from webbtc.com), with
 *          its fields and hashes in en.bitcoin.it/wiki/Genesis_block and in
 *          rust-bitcoin's blockdata/constants.rs tests (as vendored in
 *          github.com/bitcoin/bitcoin src/rusty/rust-bitcoin, commit
 *          681fccc3).
 *  [RB]    rust-bitcoin blockdata/transaction.rs tests (vendored in
 *          github.com/bitcoin/bitcoin src/rusty/rust-bitcoin, commit
 *          6bbb67ab): test_txid, "segwit tx from Liquid integration tests,
 *          txid/hash from Core decoderawtransaction" (bitcoin_hash() there
 *          hashes the witness serialization: the wtxid), and
 *          test_segwit_tx_decode, testnet transaction 4be105f1....
 *  [LTC]   Litecoin MWEB blocks and transactions from a private litecoind
 *          0.21.2 regtest node, with the txids, wtxids and outputs the node
 *          reported for them (getblock <hash> 2, decoderawtransaction):
 *          tests/data/btc/ltc_mweb_regtest.h, written by
 *          tests/data/btc/ltc_mweb_capture.py.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "btc_tx.h"
#include "say.h"
#include "sha256.h"

/* ------------------------------------------------------------------ */
/* Fixtures: a hex reader and a byte builder of our own.               */

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* s: lower-case hex, exactly 2n digits. */
static void unhex(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
}

/* A heap copy of exactly the bytes of s, so that AddressSanitizer sees
 * any read past them.  Caller frees. */
static uint8_t *unhex_alloc(const char *s, size_t *n)
{
	uint8_t *b;

	*n = strlen(s) / 2;
	b = malloc(*n ? *n : 1);
	assert_non_null(b);
	unhex(s, b, *n);
	return b;
}

/* A 32-byte hash given as displayed (byte-reversed) hex. */
static void display_hash(const char *s, uint8_t h[32])
{
	uint8_t t[32];

	unhex(s, t, 32);
	for (int i = 0; i < 32; i++)
		h[i] = t[31 - i];
}

static void assert_txid(const hj_btc_tx *tx, const char *want)
{
	uint8_t got[32];
	char hex[HJ_BTC_HASH_HEX];

	hj_btc_tx_txid(tx, got);
	hj_btc_hash_hex(got, hex);
	assert_string_equal(hex, want);
}

static void assert_wtxid(const hj_btc_tx *tx, const char *want)
{
	uint8_t got[32];
	char hex[HJ_BTC_HASH_HEX];

	hj_btc_tx_wtxid(tx, got);
	hj_btc_hash_hex(got, hex);
	assert_string_equal(hex, want);
}

struct buf {
	uint8_t b[70000];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof b->b);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_hex(struct buf *b, const char *s)
{
	size_t n = strlen(s) / 2;

	assert_true(b->n + n <= sizeof b->b);
	unhex(s, b->b + b->n, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, int width)
{
	for (int i = 0; i < width; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));

		put(b, &c, 1);
	}
}

/* CompactSize, shortest form. */
static void put_compact(struct buf *b, uint64_t v)
{
	uint8_t p;

	if (v < 0xfd) {
		put_le(b, v, 1);
	} else if (v <= 0xffff) {
		p = 0xfd;
		put(b, &p, 1);
		put_le(b, v, 2);
	} else if (v <= 0xffffffff) {
		p = 0xfe;
		put(b, &p, 1);
		put_le(b, v, 4);
	} else {
		p = 0xff;
		put(b, &p, 1);
		put_le(b, v, 8);
	}
}

/* An output: value, then the script given in hex. */
static void put_output(struct buf *b, uint64_t value, const char *script)
{
	put_le(b, value, 8);
	put_compact(b, strlen(script) / 2);
	put_hex(b, script);
}

/* A heap copy of b's bytes (see unhex_alloc). */
static uint8_t *dup_buf(const struct buf *b)
{
	uint8_t *p = malloc(b->n ? b->n : 1);

	assert_non_null(p);
	memcpy(p, b->b, b->n);
	return p;
}

/* Parses a heap copy of b's bytes, freed before returning: only tx's plain
 * fields may be read afterwards, never its views. */
static int parse_buf(const struct buf *b, hj_btc_tx *tx, char err[HJ_ERRLEN])
{
	uint8_t *p = dup_buf(b);
	int rc;

	snprintf(err, HJ_ERRLEN, "(unset)");
	rc = hj_btc_tx_parse(p, b->n, tx, err, HJ_ERRLEN);
	free(p);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Vectors.                                                            */

/* [GEN] 285 bytes. */
static const char GENESIS_HEX[] =
    "0100000000000000000000000000000000000000000000000000000000000000000000"
    "003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab"
    "5f49ffff001d1dac2b7c01010000000100000000000000000000000000000000000000"
    "00000000000000000000000000ffffffff4d04ffff001d010445546865205469"
    "6d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e"
    "6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff01"
    "00f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a6"
    "7962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c70"
    "2b6bf11d5fac00000000";
static const char GENESIS_HASH[] =
    "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
static const char GENESIS_TXID[] =
    "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
static const char GENESIS_SPK[] =
    "4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649"
    "f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac";

/* [RB] test_txid: the Liquid segwit transaction, 1170 bytes. */
static const char LIQUID_HEX[] =
    "01000000000102ff34f95a672bb6a4f6ff4a7e90fa8c7b3be7e70ffc39bc99be3bda67"
    "942e836c0000000023220020cde476664d3fa347b8d54ef3aee33dcb686a65ced2b520"
    "7cbf4ec5eda6b9b46e4f414d4c934ad81d330314e888888e3bd22c7dde8aac2ca9227b"
    "30d7c40093248af7812201000000232200200af6f6a071a69d5417e592ed99d256ddfd"
    "8b3b2238ac73f5da1b06fc0b2e79d54f414d4c0ba0c8f505000000001976a914dcb589"
    "8d9036afad9209e6ff0086772795b1441088ac033c0f000000000017a914889f8c10ff"
    "2bd4bb9dabb68c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb"
    "9dabb68c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb6"
    "8c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d"
    "700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46"
    "925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c"
    "87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c"
    "0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f0000"
    "00000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f0000000000"
    "17a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87050047304402200380b866"
    "3e727d7e8d773530ef85d5f82c0b067c97ae927800a0876a1f01d8e2022021ee611ef6"
    "507dfd217add2cd60a8aea3cbcfec034da0bebf3312d19577b8c290147304402207bd9"
    "943ce1c2c5547b120683fd05d78d23d73be1a5b5a2074ff586b9c853ed4202202881dc"
    "f435088d663c9af7b23efb3c03b9dbc0c899b247aa94a74d9b4b3c84f5014830450221"
    "00ba12bba745af3f18f6e56be70f8382ca8e107d1ed5ceaa3e8c360d5ecf78886f0220"
    "69b38ebaac8fe6a6b97b497cbbb115f3176f7213540bef08f9292e5a72de52de016953"
    "21023c9cd9c6950ffee24772be948a45dc5ef1986271e46b686cb52007bac214395a21"
    "02756e27cb004af05a6e9faed81fd68ff69959e3c64ac8c9f6cd0e08fd0ad0e75d2103"
    "fa40da236bd82202a985a9104e851080b5940812685769202a3b43e4a8b13e6a53ae05"
    "0048304502210098b9687b81d725a7970d1eee91ff6b89bc9832c2e0e3fb0d10eec143"
    "930b006f02206f77ce19dc58ecbfef9221f81daad90bb4f468df391212abc4f084fe2c"
    "c9bdef01483045022100e5479f81a3ad564103da5e2ec8e12f61f3ac8d312ab68763c1"
    "ddd7bae94c20610220789b81b7220b27b681b1b2e87198897376ba9d033bc387f084c8"
    "b8310c8539c201483045022100aa1cc48a2d256c0e556616444cc08ae4959d464e5fff"
    "f2ae09e3550bdab6ce9f02207192d5e3329a56ba7b1ead724634d104f1c3f8749fe608"
    "1e6233aee3e855817a016953210260de9cc68658c61af984e3ab0281d17cfca1cc0359"
    "66d335f474932d5e6c5422210355fbb768ce3ce39360277345dbb5f376e706459e5a2b"
    "5e0e09a535e61690647021023222ceec58b94bd25925dd9743dae6b928737491bd940f"
    "c5dd7c6f5d5f2adc1e53ae00000000";
static const char LIQUID_TXID[] =
    "9652aa62b0e748caeec40c4cb7bc17c6792435cc3dfe447dd1ca24f912a1c6ec";
static const char LIQUID_WTXID[] =
    "d6ac4a5e61657c4c604dcde855a1db74ec6b3e54f32695d72c5e11c7761ea1b4";
static const char LIQUID_P2SH[] =
    "a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87";

/* [RB] test_segwit_tx_decode: a testnet segwit coinbase whose second
 * output is the witness commitment, 6a24aa21a9ed... */
static const char TESTNET_CB_HEX[] =
    "01000000000101000000000000000000000000000000000000000000000000000000"
    "0000000000ffffffff3603da1b0e00045503bd5704c7dd8a0d0ced13bb5785010800"
    "000000000a636b706f6f6c122f4e696e6a61506f6f6c2f5345475749542fffffffff"
    "02b4e5a212000000001976a914876fbb82ec05caa6af7a3b5e5a983aae6c6cc6d688"
    "ac0000000000000000266a24aa21a9edf91c46b49eb8a29089980f02ee6b57e7d63d"
    "33b18b4fddac2bcd7db2a39837040120000000000000000000000000000000000000"
    "000000000000000000000000000000000000";
static const char TESTNET_CB_TXID[] =
    "4be105f158ea44aec57bf12c5817d073a712ab131df6f37786872cfc70734188";

/* [B143] Native P2WPKH: the unsigned transaction and the signed one. */
static const char B143_P2WPKH_UNSIGNED[] =
    "0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad"
    "969f0000000000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9"
    "b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df3"
    "78db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e"
    "4dbe6a21b2d50ce2f0167faa815988ac11000000";
static const char B143_P2WPKH_SIGNED[] =
    "01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4"
    "e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3beb"
    "f337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede9"
    "44ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b"
    "309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a914"
    "8280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143b"
    "de42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7"
    "d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c45183315"
    "61406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368d"
    "a1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000";
/* [B143] hashOutputs of the native P2WPKH example: dSHA256 of its
 * serialized outputs, digest order. */
static const char B143_HASH_OUTPUTS[] =
    "863ef3e1a92afbfdb97f31ad0fc7683ee943e9abcf2501590ff8f6551f47e5e5";
/* [B143] P2SH-P2WPKH, signed. */
static const char B143_P2SH_SIGNED[] =
    "01000000000101db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3c"
    "eb1a5477010000001716001479091972186c449eb1ded22b78e40d009bdf0089feffff"
    "ff02b8b4eb0b000000001976a914a457b684d7f0d539a46a45bbc043f35b59d0d96388"
    "ac0008af2f000000001976a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac"
    "02473044022047ac8e878352d3ebbde1c94ce3a10d057c24175747116f8288e5d794d1"
    "2d482f0220217f36a485cae903c713331d877c1f64677e3622ad4010726870540656fe"
    "9dcb012103ad1d8e89212f0b92c74d23bb710c00662ad1470198ac48c43f7d6f93a2a2"
    "687392040000";

/*
 * [B322] Inputs to to_spend and to_sign: the message hashes, the
 * scriptPubKey of bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l (witness
 * version 0, program 2b05d564...799d), and the first simple signature of
 * each message, a witness stack, here base64-decoded.
 */
static const char B322_SPK[] = "00142b05d564e6a7a33c087f16e0f730d1440123799d";
static const struct b322 {
	const char *msg_hash;
	const char *witness;
	const char *to_spend_txid;
	const char *to_sign_txid;
} B322[] = {
    {"c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1",
     "024730440220336801010aaf657d79662cac98a990a43ac6f376af2c84f8f76401cc"
     "b9d0231602201693a4e683db4a91944ca5cb11527840366daf583a2c695fccf8e934"
     "83b52e34012102c7f12003196442943d8588e01aee840423cc54fc1521526a3b85c2"
     "b0cbd58872",
     "c5680aa69bb8d860bf82d4e9cd3504b55dde018de765a91bb566283c545a99a7",
     "1e9654e951a5ba44c8604c4de6c67fd78a27e81dcadcfe1edf638ba3aaebaed6"},
    {"f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a",
     "0247304402206517c8637a7bfc3a154edcba6196d64bbd5b73955cb7da7d1626bcdd"
     "e466c364022022bf10d19fc0bb69b4596e306b362acaa835293cf693bb176f7324b5"
     "31f5afec012102c7f12003196442943d8588e01aee840423cc54fc1521526a3b85c2"
     "b0cbd58872",
     "b79d196740ad5217771c1098fc4a4b51e0535c32236c71f1ea4d61a2d603352b",
     "88737ae86f2077145f93cc4b153ae9a1cb8d56afa511988c149c5c8c9d93bddf"},
};

/* to_spend (BIP-322 "Full"): version 0, one input spending 00..00:ffffffff
 * with scriptSig OP_0 PUSH32[message_hash] and sequence 0, one output of 0
 * to message_challenge, locktime 0. */
static void build_to_spend(struct buf *b, const struct b322 *v)
{
	b->n = 0;
	put_le(b, 0, 4);
	put_compact(b, 1);
	put_hex(b, "0000000000000000000000000000000000000000000000000000000000"
	           "000000ffffffff");
	put_compact(b, 34);
	put_hex(b, "0020");
	put_hex(b, v->msg_hash);
	put_le(b, 0, 4);
	put_compact(b, 1);
	put_output(b, 0, B322_SPK);
	put_le(b, 0, 4);
}

/* to_sign: version 0, segwit, one input spending to_spend:0 with sequence 0
 * and the signature as its witness, one output of 0 to OP_RETURN, locktime
 * 0. */
static void build_to_sign(struct buf *b, const struct b322 *v)
{
	uint8_t prev[32];

	display_hash(v->to_spend_txid, prev);
	b->n = 0;
	put_le(b, 0, 4);
	put_hex(b, "0001");
	put_compact(b, 1);
	put(b, prev, 32);
	put_le(b, 0, 4);
	put_compact(b, 0);
	put_le(b, 0, 4);
	put_compact(b, 1);
	put_output(b, 0, "6a");
	put_hex(b, v->witness);
	put_le(b, 0, 4);
}

/* ================================================================== */
/* SHA-256                                                            */

static void sha_hex(const void *msg, size_t len, const char *want)
{
	uint8_t exp[32], got[32];

	unhex(want, exp, 32);
	hj_sha256(msg, len, got);
	assert_memory_equal(got, exp, 32);
}

/* [FIPS], [CAVP] */
static void test_sha256_fips(void **state)
{
	static const char m448[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char million_a[] =
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	static const size_t chunks[] = {1, 3, 55, 56, 63, 64, 65, 127, 1000};
	uint8_t exp[32], got[32];
	uint8_t *a;
	hj_sha256_ctx c;

	(void)state;
	sha_hex("abc", 3,
	        "ba7816bf8f01cfea414140de5dae2223"
	        "b00361a396177a9cb410ff61f20015ad");
	sha_hex(m448, strlen(m448),
	        "248d6a61d20638b8e5c026930c3e6039"
	        "a33ce45964ff2167f6ecedd419db06c1");
	sha_hex(NULL, 0,
	        "e3b0c44298fc1c149afbf4c8996fb924"
	        "27ae41e4649b934ca495991b7852b855");
	sha_hex("", 0,
	        "e3b0c44298fc1c149afbf4c8996fb924"
	        "27ae41e4649b934ca495991b7852b855");

	a = malloc(1000000);
	assert_non_null(a);
	memset(a, 'a', 1000000);
	sha_hex(a, 1000000, million_a);
	/* The same million, fed in pieces that straddle block boundaries. */
	unhex(million_a, exp, 32);
	for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
		size_t done = 0;

		hj_sha256_init(&c);
		while (done < 1000000) {
			size_t n = chunks[k] < 1000000 - done ? chunks[k]
			                                      : 1000000 - done;

			hj_sha256_update(&c, a + done, n);
			hj_sha256_update(&c, NULL, 0);
			done += n;
		}
		hj_sha256_final(&c, got);
		assert_memory_equal(got, exp, 32);
	}
	free(a);
}

/* Every split of the 448-bit message [FIPS] gives the same digest. */
static void test_sha256_split(void **state)
{
	static const char m[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t exp[32], got[32];
	size_t n = strlen(m);
	hj_sha256_ctx c;

	(void)state;
	unhex("248d6a61d20638b8e5c026930c3e6039"
	      "a33ce45964ff2167f6ecedd419db06c1",
	      exp, 32);
	for (size_t i = 0; i <= n; i++) {
		for (size_t j = i; j <= n; j++) {
			hj_sha256_init(&c);
			hj_sha256_update(&c, m, i);
			hj_sha256_update(&c, m + i, j - i);
			hj_sha256_update(&c, m + j, n - j);
			hj_sha256_final(&c, got);
			assert_memory_equal(got, exp, 32);
		}
	}
}

/* [ADD]: the lengths either side of the padding boundaries. */
static void test_sha256_additional(void **state)
{
	static const struct {
		size_t len;
		uint8_t byte;
		const char *md;
	} v[] = {
	    {1, 0xbd,
	     "68325720aabd7c82f30f554b313d0570"
	     "c95accbb7dc4b5aae11204c08ffe732b"},
	    {55, 0x00,
	     "02779466cdec163811d078815c633f21"
	     "901413081449002f24aa3e80f0b88ef7"},
	    {56, 0x00,
	     "d4817aa5497628e7c77e6b606107042b"
	     "bba3130888c5f47a375e6179be789fbb"},
	    {57, 0x00,
	     "65a16cb7861335d5ace3c60718b5052e"
	     "44660726da4cd13bb745381b235a1785"},
	    {64, 0x00,
	     "f5a5fd42d16a20302798ef6ed309979b"
	     "43003d2320d9f0e8ea9831a92759fb4b"},
	    {1000, 0x00,
	     "541b3e9daa09b20bf85fa273e5cbd3e8"
	     "0185aa4ec298e765db87742b70138a53"},
	    {1000, 'A',
	     "c2e686823489ced2017f6059b8b23931"
	     "8b6364f6dcd835d0a519105a1eadd6e4"},
	    {1005, 'U',
	     "f4d62ddec0f3dd90ea1380fa16a5ff8d"
	     "c4c54b21740650f24afc4120903552b0"},
	};
	uint8_t m[1005], four[4];

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		memset(m, v[i].byte, v[i].len);
		sha_hex(m, v[i].len, v[i].md);
	}
	unhex("c98c8e55", four, 4);
	sha_hex(four, 4,
	        "7abc22c0ae5af26ce93dbb94433a0e0b"
	        "2e119d014f8e7f65bd56c61ccccd9504");
}

/* [B143]: the double SHA-256 values of the native P2WPKH example. */
static void test_sha256d_bip143(void **state)
{
	static const struct {
		const char *in;
		const char *out;
	} v[] = {
	    {"fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f"
	     "00000000ef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57"
	     "b90ec68a01000000",
	     "96b827c8483d4e9b96712b6713a7b68d6e8003a781feba36c31143470b4efd3"
	     "7"},
	    {"eeffffffffffffff", "52b0a642eea2fb7ae638c36f6252b6750293dbe574a80"
	                         "6984b8e4d8548339a3b"},
	    {"202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d59"
	     "88ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa"
	     "815988ac",
	     "863ef3e1a92afbfdb97f31ad0fc7683ee943e9abcf2501590ff8f6551f47e5e"
	     "5"},
	    {"0100000096b827c8483d4e9b96712b6713a7b68d6e8003a781feba36c3114347"
	     "0b4efd3752b0a642eea2fb7ae638c36f6252b6750293dbe574a806984b8e4d85"
	     "48339a3bef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57"
	     "b90ec68a010000001976a9141d0f172a0ecb48aee1be1f2687d2963ae33f71a1"
	     "88ac0046c32300000000ffffffff863ef3e1a92afbfdb97f31ad0fc7683ee943"
	     "e9abcf2501590ff8f6551f47e5e51100000001000000",
	     "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb67"
	     "0"},
	};
	uint8_t exp[32], got[32];

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		size_t n;
		uint8_t *in = unhex_alloc(v[i].in, &n);
		hj_sha256_ctx c;

		unhex(v[i].out, exp, 32);
		hj_sha256d(in, n, got);
		assert_memory_equal(got, exp, 32);
		/* The same, fed in two pieces. */
		hj_sha256_init(&c);
		hj_sha256_update(&c, in, n / 3);
		hj_sha256_update(&c, in + n / 3, n - n / 3);
		hj_sha256d_final(&c, got);
		assert_memory_equal(got, exp, 32);
		free(in);
	}
}

/* ================================================================== */
/* Blocks and transactions: real vectors                               */

/* [GEN] */
static void test_genesis_block(void **state)
{
	size_t n;
	uint8_t *g = unhex_alloc(GENESIS_HEX, &n);
	uint8_t zero[32] = {0}, root[32];
	char err[HJ_ERRLEN], hex[HJ_BTC_HASH_HEX];
	hj_btc_block b;
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output o;
	uint8_t spk[67];

	(void)state;
	assert_int_equal(n, 285);
	assert_int_equal(hj_btc_block_open(&b, g, n, err, HJ_ERRLEN), 0);
	hj_btc_hash_hex(b.header.hash, hex);
	assert_string_equal(hex, GENESIS_HASH);
	assert_int_equal(b.header.version, 1);
	assert_memory_equal(b.header.prev_hash, zero, 32);
	display_hash(GENESIS_TXID, root);
	assert_memory_equal(b.header.merkle_root, root, 32);
	assert_int_equal(b.header.time, 1231006505);
	assert_int_equal(b.header.bits, 0x1d00ffff);
	assert_int_equal(b.header.nonce, 2083236893);
	assert_int_equal(b.n_tx, 1);

	assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(tx.offset, 81);
	assert_int_equal(tx.raw_len, 204);
	assert_ptr_equal(tx.raw, g + 81);
	assert_int_equal(tx.version, 1);
	assert_int_equal(tx.locktime, 0);
	assert_int_equal(tx.n_inputs, 1);
	assert_int_equal(tx.n_outputs, 1);
	assert_false(tx.segwit);
	assert_txid(&tx, GENESIS_TXID);
	assert_wtxid(&tx, GENESIS_TXID);

	unhex(GENESIS_SPK, spk, sizeof spk);
	hj_btc_outputs_begin(&tx, &it);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
	assert_true(o.value == 5000000000u);
	assert_int_equal(o.script_len, 67);
	assert_memory_equal(o.script, spk, 67);
	assert_ptr_equal(o.script, g + 81 + 204 - 4 - 67);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 0);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 0);

	/* The end, and the end again. */
	assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 0);

	/* The coinbase alone, as getrawtransaction would give it. */
	assert_int_equal(hj_btc_tx_parse(g + 81, 204, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(tx.offset, 0);
	assert_txid(&tx, GENESIS_TXID);
	free(g);
}

static void test_header_parse(void **state)
{
	size_t n;
	uint8_t *g = unhex_alloc(GENESIS_HEX, &n);
	char err[HJ_ERRLEN], hex[HJ_BTC_HASH_HEX];
	hj_btc_header h;
	uint8_t *h79 = malloc(79);

	(void)state;
	assert_non_null(h79);
	memcpy(h79, g, 79);
	assert_int_equal(hj_btc_header_parse(g, 80, &h, err, HJ_ERRLEN), 0);
	hj_btc_hash_hex(h.hash, hex);
	assert_string_equal(hex, GENESIS_HASH);
	assert_int_equal(h.nonce, 2083236893);
	assert_int_equal(hj_btc_header_parse(h79, 79, &h, err, HJ_ERRLEN),
	                 -EINVAL);
	assert_string_equal(err, "offset 0: block header: need 80 bytes, "
	                         "79 given");
	assert_int_equal(hj_btc_header_parse(g, 81, &h, err, HJ_ERRLEN),
	                 -EINVAL);
	assert_string_equal(err, "offset 80: 1 bytes after the block header");
	free(h79);
	free(g);
}

/* [RB] test_txid */
static void test_segwit_liquid(void **state)
{
	size_t n, count = 99;
	uint8_t *t = unhex_alloc(LIQUID_HEX, &n);
	uint8_t p2sh[23];
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output o;
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(n, 1170);
	assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), 0);
	assert_true(tx.segwit);
	assert_int_equal(tx.version, 1);
	assert_int_equal(tx.n_inputs, 2);
	assert_int_equal(tx.n_outputs, 11);
	assert_txid(&tx, LIQUID_TXID);
	assert_wtxid(&tx, LIQUID_WTXID);

	/* Output 0: 0x05f5c8a0 = 99993760 to a P2PKH script; outputs 1..10:
	 * 033c0f0000000000 = 998403 each to the same P2SH script. */
	hj_btc_outputs_begin(&tx, &it);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
	assert_true(o.value == 99993760u);
	assert_int_equal(o.script_len, 25);
	unhex(LIQUID_P2SH, p2sh, sizeof p2sh);
	for (int i = 1; i <= 10; i++) {
		assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
		assert_int_equal(it.index, i + 1);
		assert_true(o.value == 998403u);
		assert_int_equal(o.script_len, 23);
		assert_memory_equal(o.script, p2sh, 23);
	}
	assert_int_equal(hj_btc_outputs_next(&it, &o), 0);
	assert_int_equal(hj_btc_tx_sum_to(&tx, p2sh, 23, &sum, &count), 0);
	assert_true(sum == 9984030u);
	assert_int_equal(count, 10);
	/* A prefix of the script is not the script. */
	assert_int_equal(hj_btc_tx_sum_to(&tx, p2sh, 22, &sum, &count), 0);
	assert_true(sum == 0);
	assert_int_equal(count, 0);
	free(t);
}

/* [B322]: a legacy and a segwit transaction per message; the segwit one
 * carries its witness and must hash to the BIP's txid without it. */
static void test_bip322(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	const uint8_t *d = NULL;
	size_t dn = 0, vout = 7;
	hj_btc_output o;
	hj_btc_out_iter it;
	uint8_t *raw;

	(void)state;
	for (size_t i = 0; i < sizeof B322 / sizeof B322[0]; i++) {
		build_to_spend(&b, &B322[i]);
		raw = dup_buf(&b);
		assert_int_equal(hj_btc_tx_parse(raw, b.n, &tx, err, HJ_ERRLEN),
		                 0);
		assert_false(tx.segwit);
		assert_int_equal(tx.version, 0);
		assert_txid(&tx, B322[i].to_spend_txid);
		assert_wtxid(&tx, B322[i].to_spend_txid);
		free(raw);

		build_to_sign(&b, &B322[i]);
		raw = dup_buf(&b);
		assert_int_equal(hj_btc_tx_parse(raw, b.n, &tx, err, HJ_ERRLEN),
		                 0);
		assert_true(tx.segwit);
		assert_int_equal(tx.n_inputs, 1);
		assert_int_equal(tx.n_outputs, 1);
		assert_txid(&tx, B322[i].to_sign_txid);

		/* Its only output is a bare OP_RETURN: no data output, even
		 * for an empty magic. */
		hj_btc_outputs_begin(&tx, &it);
		assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
		assert_int_equal(o.script_len, 1);
		assert_int_equal(o.script[0], 0x6a);
		assert_int_equal(
		    hj_btc_tx_find_data(&tx, NULL, 0, &d, &dn, &vout), 0);
		assert_null(d);
		assert_int_equal(vout, 7);
		free(raw);
	}
}

/* [B143]: both signed examples, and the unsigned one; the outputs the
 * iterator returns re-serialize to the bytes behind hashOutputs. */
static void test_bip143(void **state)
{
	static const char *const all[] = {B143_P2WPKH_UNSIGNED,
	                                  B143_P2WPKH_SIGNED};
	uint8_t want[32], got[32], s1[25], s2[25];
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output o;
	uint64_t sum;
	size_t n, count;

	(void)state;
	unhex(B143_HASH_OUTPUTS, want, 32);
	for (size_t k = 0; k < 2; k++) {
		uint8_t *t = unhex_alloc(all[k], &n);
		hj_sha256_ctx c;

		assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), 0);
		assert_int_equal(tx.segwit, (int)k);
		assert_int_equal(tx.n_inputs, 2);
		assert_int_equal(tx.n_outputs, 2);
		assert_int_equal(tx.locktime, 0x11);
		hj_sha256_init(&c);
		hj_btc_outputs_begin(&tx, &it);
		while (hj_btc_outputs_next(&it, &o)) {
			uint8_t v[8], len = (uint8_t)o.script_len;

			for (int i = 0; i < 8; i++)
				v[i] = (uint8_t)(o.value >> (8 * i));
			hj_sha256_update(&c, v, 8);
			hj_sha256_update(&c, &len, 1);
			hj_sha256_update(&c, o.script, o.script_len);
		}
		hj_sha256d_final(&c, got);
		assert_memory_equal(got, want, 32);
		/* 202cb20600000000 = 112340000, 9093510d00000000 = 223450000 */
		unhex("76a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac", s1,
		      25);
		assert_int_equal(hj_btc_tx_sum_to(&tx, s1, 25, &sum, &count),
		                 0);
		assert_true(sum == 112340000u && count == 1);
		free(t);
	}

	{
		uint8_t *t = unhex_alloc(B143_P2SH_SIGNED, &n);

		assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), 0);
		assert_true(tx.segwit);
		assert_int_equal(tx.n_inputs, 1);
		assert_int_equal(tx.locktime, 0x492);
		/* b8b4eb0b00000000 = 199996600, 0008af2f00000000 = 800000000 */
		unhex("76a914a457b684d7f0d539a46a45bbc043f35b59d0d96388ac", s1,
		      25);
		unhex("76a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac", s2,
		      25);
		assert_int_equal(hj_btc_tx_sum_to(&tx, s1, 25, &sum, &count),
		                 0);
		assert_true(sum == 199996600u && count == 1);
		assert_int_equal(hj_btc_tx_sum_to(&tx, s2, 25, &sum, NULL), 0);
		assert_true(sum == 800000000u);
		free(t);
	}
}

/* [RB] test_segwit_tx_decode: the witness commitment is a data output,
 * but not one with our magic. */
static void test_testnet_coinbase(void **state)
{
	static const uint8_t magic[2] = {0x48, 0x4a};
	static const uint8_t commit[4] = {0xaa, 0x21, 0xa9, 0xed};
	size_t n, dn = 0;
	uint8_t *t = unhex_alloc(TESTNET_CB_HEX, &n);
	const uint8_t *d = NULL;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	hj_btc_out_iter it;
	hj_btc_output o;

	(void)state;
	assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), 0);
	assert_true(tx.segwit);
	assert_txid(&tx, TESTNET_CB_TXID);
	hj_btc_outputs_begin(&tx, &it);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
	assert_true(o.value == 0x12a2e5b4u);
	assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
	assert_true(o.value == 0);
	assert_int_equal(hj_btc_script_data(o.script, o.script_len, &d, &dn),
	                 1);
	assert_int_equal(dn, 36);
	assert_ptr_equal(d, o.script + 2);
	assert_memory_equal(d, commit, 4);
	assert_int_equal(hj_btc_tx_find_data(&tx, magic, 2, &d, &dn, NULL), 0);
	assert_int_equal(hj_btc_tx_find_data(&tx, commit, 4, &d, &dn, NULL), 1);
	assert_int_equal(dn, 36);
	free(t);
}

/* ================================================================== */
/* Data outputs and sums, on hand-made scripts                         */

/* Sets *off to where the data starts in the script, or leaves it and *n
 * at SIZE_MAX when the script is not a data output. */
static int data_of(const char *script_hex, size_t *off, size_t *n)
{
	size_t len;
	uint8_t *s = unhex_alloc(script_hex, &len);
	const uint8_t *d = NULL;
	int rc;

	*off = SIZE_MAX;
	*n = SIZE_MAX;
	rc = hj_btc_script_data(s, len, &d, n);
	if (rc == 1) {
		assert_true(d > s && d + *n == s + len);
		*off = (size_t)(d - s);
	} else {
		assert_null(d);
	}
	free(s);
	return rc;
}

static void test_script_data(void **state)
{
	static const char *const no[] = {
	    "",                     /* empty */
	    "6a",                   /* OP_RETURN alone */
	    "6a00",                 /* OP_0: an empty push */
	    "6a4f",                 /* OP_1NEGATE */
	    "6a51",                 /* OP_1 */
	    "6a60",                 /* OP_16 */
	    "6a04484a01",           /* push of 4, 3 bytes left */
	    "6a04484a010203",       /* push of 4, then a stray byte */
	    "6a02484a01ff",         /* two pushes */
	    "6a02484a02484a",       /* two pushes */
	    "6a4c",                 /* OP_PUSHDATA1 without its length */
	    "6a4c05484a0102",       /* OP_PUSHDATA1 5, 4 bytes left */
	    "6a4c03484a0102",       /* OP_PUSHDATA1 3, then a stray byte */
	    "6a4d04",               /* OP_PUSHDATA2 with half a length */
	    "6a4d0500484a0102",     /* OP_PUSHDATA2 5, 4 bytes left */
	    "6a4c00",               /* OP_PUSHDATA1 of nothing */
	    "6a4d0000",             /* OP_PUSHDATA2 of nothing */
	    "6a4e04000000484a0102", /* OP_PUSHDATA4 */
	    "6a6a02484a",           /* OP_RETURN OP_RETURN push */
	    "6aac",                 /* another opcode */
	    "02484a",               /* a push without OP_RETURN */
	    "51026a01",             /* OP_RETURN not first */
	    "00142b05d564e6a7a33c087f16e0f730d1440123799d",
	};
	size_t d, n;
	char big[2 * (3 + 77) + 1], huge[2 * (4 + 300) + 1];

	(void)state;
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		assert_int_equal(data_of(no[i], &d, &n), 0);
		assert_true(d == SIZE_MAX && n == SIZE_MAX);
	}
	/* 6a <len> <data> */
	assert_int_equal(data_of("6a04484a0102", &d, &n), 1);
	assert_int_equal(d, 2);
	assert_int_equal(n, 4);
	assert_int_equal(data_of("6a01ff", &d, &n), 1);
	assert_int_equal(n, 1);
	/* 6a 4c <len> <data>, minimal or not */
	assert_int_equal(data_of("6a4c04484a0102", &d, &n), 1);
	assert_int_equal(d, 3);
	assert_int_equal(n, 4);
	/* 6a 4d <len lo> <len hi> <data> */
	assert_int_equal(data_of("6a4d0400484a0102", &d, &n), 1);
	assert_int_equal(d, 4);
	assert_int_equal(n, 4);
	/* The longest protocol payload, 77 bytes, behind OP_PUSHDATA1. */
	snprintf(big, sizeof big, "6a4c4d484a");
	for (size_t i = 10; i < sizeof big - 1; i++)
		big[i] = '7';
	big[sizeof big - 1] = '\0';
	assert_int_equal(data_of(big, &d, &n), 1);
	assert_int_equal(d, 3);
	assert_int_equal(n, 77);
	/* 300 bytes behind OP_PUSHDATA2 (0x012c). */
	snprintf(huge, sizeof huge, "6a4d2c01");
	for (size_t i = 8; i < sizeof huge - 1; i++)
		huge[i] = 'a';
	huge[sizeof huge - 1] = '\0';
	assert_int_equal(data_of(huge, &d, &n), 1);
	assert_int_equal(n, 300);
}

/* One input (a null prevout, empty script), then the outputs given. */
static void tx_head(struct buf *b, size_t n_outputs)
{
	b->n = 0;
	put_le(b, 2, 4);
	put_compact(b, 1);
	put_hex(b, "0000000000000000000000000000000000000000000000000000000000"
	           "000000ffffffff00ffffffff");
	put_compact(b, n_outputs);
}

static void test_find_and_sum(void **state)
{
	static const char dealer[] =
	    "00142b05d564e6a7a33c087f16e0f730d1440123799d";
	static const uint8_t magic[2] = {0x48, 0x4a};
	static const uint8_t want[4] = {0x48, 0x4a, 0x01, 0x02};
	static struct buf b;
	uint8_t *raw, dspk[22];
	const uint8_t *d;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	uint64_t sum;
	size_t dn, vout, count;

	(void)state;
	unhex(dealer, dspk, sizeof dspk);
	tx_head(&b, 7);
	put_output(&b, 1000, dealer); /* 0 */
	put_output(&b, 0,
	           "6a24aa21a9edf91c46b49eb8a29089980f02ee6b57e7d63d"
	           "33b18b4fddac2bcd7db2a3983704"); /* 1: other data */
	put_output(&b, 0, "6a0148");                /* 2: too short */
	put_output(&b, 0, "6a02484a01ff");          /* 3: two pushes */
	put_output(&b, 0, "6a4c04484a0102");        /* 4: the one */
	put_output(&b, 0, "6a04484a0303");          /* 5: later */
	put_output(&b, 2500, dealer);               /* 6 */
	put_le(&b, 0, 4);
	raw = dup_buf(&b);
	assert_int_equal(hj_btc_tx_parse(raw, b.n, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_tx_find_data(&tx, magic, 2, &d, &dn, &vout), 1);
	assert_int_equal(vout, 4);
	assert_int_equal(dn, 4);
	assert_memory_equal(d, want, 4);
	assert_true(d > raw && d + dn <= raw + b.n);
	/* Any data output at all: the first is output 1. */
	assert_int_equal(hj_btc_tx_find_data(&tx, NULL, 0, &d, &dn, &vout), 1);
	assert_int_equal(vout, 1);
	assert_int_equal(dn, 36);
	/* A magic that no data begins with. */
	assert_int_equal(hj_btc_tx_find_data(&tx, want + 1, 2, &d, &dn, &vout),
	                 0);
	assert_int_equal(hj_btc_tx_sum_to(&tx, dspk, sizeof dspk, &sum, &count),
	                 0);
	assert_true(sum == 3500);
	assert_int_equal(count, 2);
	free(raw);

	/* The same with the data in the short form first. */
	tx_head(&b, 2);
	put_output(&b, 0, "6a04484a0102");
	put_output(&b, 0, "6a4c04484a0303");
	put_le(&b, 0, 4);
	raw = dup_buf(&b);
	assert_int_equal(hj_btc_tx_parse(raw, b.n, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_tx_find_data(&tx, magic, 2, &d, &dn, NULL), 1);
	assert_memory_equal(d, want, 4);
	assert_int_equal(hj_btc_tx_sum_to(&tx, dspk, sizeof dspk, &sum, &count),
	                 0);
	assert_true(sum == 0 && count == 0);
	free(raw);
}

static void test_sum_overflow(void **state)
{
	static const char dealer[] = "51";
	static struct buf b;
	uint8_t spk = 0x51;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	uint64_t sum;
	size_t count;

	(void)state;
	tx_head(&b, 2);
	put_output(&b, UINT64_MAX - 1, dealer);
	put_output(&b, 1, dealer);
	put_le(&b, 0, 4);
	assert_int_equal(hj_btc_tx_parse(b.b, b.n, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_tx_sum_to(&tx, &spk, 1, &sum, &count), 0);
	assert_true(sum == UINT64_MAX && count == 2);

	tx_head(&b, 3);
	put_output(&b, UINT64_MAX - 1, dealer);
	put_output(&b, 0, "52");
	put_output(&b, 2, dealer);
	put_le(&b, 0, 4);
	assert_int_equal(hj_btc_tx_parse(b.b, b.n, &tx, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_tx_sum_to(&tx, &spk, 1, &sum, &count), -ERANGE);
}

/* ================================================================== */
/* Malformed input                                                     */

/* Every proper prefix of a valid transaction is rejected, with a reason,
 * from a buffer exactly that long. */
static void truncations_tx(const char *hex)
{
	size_t n;
	uint8_t *full = unhex_alloc(hex, &n);
	char err[HJ_ERRLEN];
	hj_btc_tx tx;

	assert_int_equal(hj_btc_tx_parse(full, n, &tx, err, HJ_ERRLEN), 0);
	for (size_t k = 0; k < n; k++) {
		uint8_t *p = malloc(k ? k : 1);

		assert_non_null(p);
		memcpy(p, full, k);
		err[0] = '\0';
		assert_int_equal(hj_btc_tx_parse(p, k, &tx, err, HJ_ERRLEN),
		                 -EINVAL);
		assert_non_null(strstr(err, "offset "));
		free(p);
	}
	free(full);
}

static void test_truncated_txs(void **state)
{
	static struct buf b;

	(void)state;
	truncations_tx(GENESIS_HEX + 2 * 81);
	truncations_tx(LIQUID_HEX);
	truncations_tx(TESTNET_CB_HEX);
	truncations_tx(B143_P2WPKH_UNSIGNED);
	truncations_tx(B143_P2WPKH_SIGNED);
	truncations_tx(B143_P2SH_SIGNED);
	for (size_t i = 0; i < sizeof B322 / sizeof B322[0]; i++) {
		char hex[2 * 300 + 1];

		build_to_sign(&b, &B322[i]);
		assert_true(2 * b.n < sizeof hex);
		for (size_t j = 0; j < b.n; j++)
			snprintf(hex + 2 * j, 3, "%02x", b.b[j]);
		truncations_tx(hex);
	}
}

/* Walks a block to its end: 0 for a good block, else the error. */
static int walk(const uint8_t *p, size_t n, uint64_t *seen, char *err)
{
	hj_btc_block b;
	hj_btc_tx tx;
	int rc;

	*seen = 0;
	rc = hj_btc_block_open(&b, p, n, err, HJ_ERRLEN);
	if (rc)
		return rc;
	while ((rc = hj_btc_block_next(&b, &tx, err, HJ_ERRLEN)) == 1)
		(*seen)++;
	return rc;
}

static void test_truncated_block(void **state)
{
	size_t n;
	uint8_t *g = unhex_alloc(GENESIS_HEX, &n);
	char err[HJ_ERRLEN];
	uint64_t seen;

	(void)state;
	assert_int_equal(walk(g, n, &seen, err), 0);
	assert_int_equal(seen, 1);
	for (size_t k = 0; k < n; k++) {
		uint8_t *p = malloc(k ? k : 1);

		assert_non_null(p);
		memcpy(p, g, k);
		err[0] = '\0';
		assert_int_equal(walk(p, k, &seen, err), -EINVAL);
		assert_int_equal(seen, 0);
		assert_non_null(strstr(err, "offset "));
		free(p);
	}
	free(g);
}

static void test_trailing(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	uint64_t seen;

	(void)state;
	b.n = 0;
	put_hex(&b, GENESIS_HEX);
	put_hex(&b, "00");
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_int_equal(seen, 1); /* read, but the block is bad */
	assert_string_equal(err, "offset 285: 1 bytes after the last of 1 "
	                         "transactions");

	b.n = 0;
	put_hex(&b, LIQUID_HEX);
	put_hex(&b, "0000");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 1170: 2 bytes after the "
	                         "transaction");
}

/* Counts far beyond the bytes left are refused before anything is read
 * per item. */
static void test_huge_counts(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	uint64_t seen;

	(void)state;
	/* A block claiming 2^64 - 1 transactions. */
	b.n = 0;
	put_hex(&b, GENESIS_HEX);
	b.n = 80;
	put_hex(&b, "ffffffffffffffffff");
	put_hex(&b, GENESIS_HEX + 2 * 81);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_string_equal(err, "offset 80: transaction count "
	                         "18446744073709551615 needs at least 60 "
	                         "bytes each, 204 bytes left");

	/* 4 transactions where 204 bytes hold at most 3. */
	b.n = 80;
	put_hex(&b, "04");
	put_hex(&b, GENESIS_HEX + 2 * 81);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_string_equal(err, "offset 80: transaction count 4 needs at "
	                         "least 60 bytes each, 204 bytes left");

	/* 3 fit the bound, but only one is there. */
	b.n = 80;
	put_hex(&b, "03");
	put_hex(&b, GENESIS_HEX + 2 * 81);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_int_equal(seen, 1);
	assert_string_equal(err, "tx 1: offset 285: version: need 4 bytes, "
	                         "0 left");

	/* Inputs: 0xfeffffffff (4294967295 in the 5-byte form). */
	tx_head(&b, 1);
	b.n = 4;
	put_hex(&b, "feffffffff");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: input count 4294967295 needs at "
	                         "least 41 bytes each, 0 bytes left");

	/* Outputs: 2^32 of them, claimed by the 9-byte form. */
	tx_head(&b, 1);
	b.n -= 1;
	put_hex(&b, "ff0000000001000000");
	put_output(&b, 5, "51");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 46: output count 4294967296 needs at "
	                         "least 9 bytes each, 14 bytes left");

	/* A script length of 65535 with 14 bytes left. */
	tx_head(&b, 1);
	put_le(&b, 5, 8);
	put_hex(&b, "fdffff");
	put_hex(&b, "51");
	put_le(&b, 0, 4);
	put_hex(&b, "0000000000000000");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 55: output 0 script length 65535 "
	                         "exceeds the 13 bytes left");

	/* A witness stack of 2^32 - 1 items. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "0001");
	put_compact(&b, 1);
	put_hex(&b, "0000000000000000000000000000000000000000000000000000000000"
	            "000000ffffffff00ffffffff");
	put_compact(&b, 1);
	put_output(&b, 5, "51");
	put_hex(&b, "feffffffff");
	put_hex(&b, "00");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 59: input 0 witness item count "
	                         "4294967295 needs at least 1 bytes each, 5 "
	                         "bytes left");
}

static void test_noncanonical(void **state)
{
	static const struct {
		const char *count; /* the input count, encoding 1 */
		const char *err;
	} v[] = {
	    {"fd0100", "offset 4: input count: non-canonical CompactSize: 1 "
	               "written with prefix 0xfd"},
	    {"fe01000000", "offset 4: input count: non-canonical "
	                   "CompactSize: 1 written with prefix 0xfe"},
	    {"ff0100000000000000", "offset 4: input count: non-canonical "
	                           "CompactSize: 1 written with prefix 0xff"},
	};
	static struct buf b;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		b.n = 0;
		put_le(&b, 1, 4);
		put_hex(&b, v[i].count);
		put_hex(&b, "0000000000000000000000000000000000000000000000000"
		            "000000000000000ffffffff00ffffffff");
		put_compact(&b, 1);
		put_output(&b, 5, "51");
		put_le(&b, 0, 4);
		assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
		assert_string_equal(err, v[i].err);
	}
	/* The largest values of each short form are refused too. */
	b.n = 0;
	put_le(&b, 1, 4);
	put_hex(&b, "fdfc00");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: input count: non-canonical "
	                         "CompactSize: 252 written with prefix 0xfd");
	b.n = 4;
	put_hex(&b, "feffff0000");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: input count: non-canonical "
	                         "CompactSize: 65535 written with prefix "
	                         "0xfe");
	b.n = 4;
	put_hex(&b, "ffffffffff00000000");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: input count: non-canonical "
	                         "CompactSize: 4294967295 written with prefix "
	                         "0xff");
	/* A long form cut short. */
	b.n = 4;
	put_hex(&b, "fd01");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: input count: CompactSize prefix "
	                         "0xfd needs 2 more bytes, 1 left");
}

static void test_segwit_rules(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	uint64_t seen;

	(void)state;
	/* Flags other than 01, 08 (Litecoin's MWEB) and 09. */
	static const char *const flags[] = {"00", "02", "03", "04",
	                                    "0a", "10", "80", "89"};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		char want[HJ_ERRLEN];

		b.n = 0;
		put_le(&b, 2, 4);
		put_hex(&b, "00");
		put_hex(&b, flags[i]);
		put_compact(&b, 1);
		put_hex(&b, "0000000000000000000000000000000000000000000000000"
		            "000000000000000ffffffff00ffffffff");
		put_compact(&b, 1);
		put_output(&b, 5, "51");
		put_hex(&b, "0100");
		put_le(&b, 0, 4);
		assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
		snprintf(want, sizeof want,
		         "offset 5: flag 0x%s after the marker, expected 0x01 "
		         "(segwit), 0x08 (MWEB) or 0x09",
		         flags[i]);
		assert_string_equal(err, want);
	}

	/* Marker and flag, but every witness stack empty. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "0001");
	put_compact(&b, 2);
	for (int i = 0; i < 2; i++)
		put_hex(&b, "000000000000000000000000000000000000000000000000"
		            "0000000000000000ffffffff00ffffffff");
	put_compact(&b, 1);
	put_output(&b, 5, "51");
	put_hex(&b, "0000");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: segwit marker and flag but every "
	                         "witness stack is empty");
	/* The same with one empty item in the second stack is fine. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "0001");
	put_compact(&b, 2);
	for (int i = 0; i < 2; i++)
		put_hex(&b, "000000000000000000000000000000000000000000000000"
		            "0000000000000000ffffffff00ffffffff");
	put_compact(&b, 1);
	put_output(&b, 5, "51");
	put_hex(&b, "000100");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), 0);
	assert_true(tx.segwit);

	/* Segwit with no inputs; legacy with no outputs. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "000100");
	put_compact(&b, 1);
	put_output(&b, 5, "51");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 6: no inputs");
	tx_head(&b, 0);
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 46: no outputs");

	/* A marker with no flag after it. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "00");
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	assert_string_equal(err, "offset 4: segwit marker and flag: need 2 "
	                         "bytes, 1 left");

	/* A block with no transactions. */
	b.n = 0;
	put_hex(&b, GENESIS_HEX);
	b.n = 80;
	put_hex(&b, "00");
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_string_equal(err, "offset 80: no transactions (a block holds "
	                         "at least its coinbase)");
}

/* Exact messages for a few truncations of the genesis block. */
static void test_error_messages(void **state)
{
	static const struct {
		size_t len;
		const char *err;
	} v[] = {
	    {0, "offset 0: block header: need 80 bytes, 0 left"},
	    {80, "offset 80: transaction count: need 1 bytes, 0 left"},
	    {140, "offset 80: transaction count 1 needs at least 60 bytes "
	          "each, 59 bytes left"},
	    {141, "tx 0: offset 122: input 0 script length 77 exceeds the 18 "
	          "bytes left"},
	    {200, "tx 0: offset 200: input 0 sequence: need 4 bytes, 0 left"},
	    {210, "tx 0: offset 204: output count 1 needs at least 9 bytes "
	          "each, 5 bytes left"},
	    {214, "tx 0: offset 213: output 0 script length 67 exceeds the 0 "
	          "bytes left"},
	    {284, "tx 0: offset 281: locktime: need 4 bytes, 3 left"},
	};
	size_t n;
	uint8_t *g = unhex_alloc(GENESIS_HEX, &n);
	char err[HJ_ERRLEN];
	uint64_t seen;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		assert_int_equal(walk(g, v[i].len, &seen, err), -EINVAL);
		assert_string_equal(err, v[i].err);
	}
	/* No room for the message: still an error, nothing written. */
	{
		hj_btc_block b;

		err[0] = 'x';
		assert_int_equal(hj_btc_block_open(&b, g, 10, err, 0), -EINVAL);
		assert_int_equal(err[0], 'x');
		assert_int_equal(hj_btc_block_open(&b, g, 10, NULL, 0),
		                 -EINVAL);
		assert_int_equal(hj_btc_block_open(&b, g, 10, err, 8), -EINVAL);
		assert_string_equal(err, "offset ");
	}
	free(g);
}

/* Genesis header, then the coinbase, the Liquid transaction and a BIP-322
 * to_sign: each comes back at its offset with its own txid. */
static void test_block_walk(void **state)
{
	static struct buf b, sign;
	size_t liquid_len = strlen(LIQUID_HEX) / 2;
	char err[HJ_ERRLEN], want[HJ_ERRLEN], hex[HJ_BTC_HASH_HEX];
	hj_btc_block blk;
	hj_btc_tx tx;
	uint8_t *raw;

	(void)state;
	build_to_sign(&sign, &B322[1]);
	b.n = 0;
	put_hex(&b, GENESIS_HEX);
	b.n = 80;
	put_hex(&b, "03");
	put_hex(&b, GENESIS_HEX + 2 * 81);
	put_hex(&b, LIQUID_HEX);
	put(&b, sign.b, sign.n);
	raw = dup_buf(&b);

	assert_int_equal(hj_btc_block_open(&blk, raw, b.n, err, HJ_ERRLEN), 0);
	assert_int_equal(blk.n_tx, 3);
	hj_btc_hash_hex(blk.header.hash, hex);
	assert_string_equal(hex, GENESIS_HASH);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(tx.offset, 81);
	assert_txid(&tx, GENESIS_TXID);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(tx.offset, 81 + 204);
	assert_int_equal(tx.raw_len, liquid_len);
	assert_txid(&tx, LIQUID_TXID);
	assert_wtxid(&tx, LIQUID_WTXID);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(tx.offset, 81 + 204 + liquid_len);
	assert_txid(&tx, B322[1].to_sign_txid);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 0);
	free(raw);

	/* Declaring 2 leaves the third as trailing bytes; declaring 4 runs
	 * out; an error repeats on the next call. */
	b.b[80] = 0x02;
	raw = dup_buf(&b);
	assert_int_equal(hj_btc_block_open(&blk, raw, b.n, err, HJ_ERRLEN), 0);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 1);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), -EINVAL);
	snprintf(hex, sizeof hex, "%zu", sign.n);
	assert_non_null(strstr(err, hex));
	assert_non_null(strstr(err, "bytes after the last of 2 transactions"));
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), -EINVAL);
	free(raw);

	b.b[80] = 0x04;
	raw = dup_buf(&b);
	assert_int_equal(hj_btc_block_open(&blk, raw, b.n, err, HJ_ERRLEN), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN),
		                 1);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), -EINVAL);
	snprintf(want, sizeof want,
	         "tx 3: offset %zu: version: need 4 bytes, "
	         "0 left",
	         b.n);
	assert_string_equal(err, want);
	free(raw);
}

/* 253 transactions: the first count that takes the 3-byte form. */
static void test_block_253(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN];
	uint64_t seen;
	hj_btc_block blk;
	hj_btc_tx tx;

	(void)state;
	b.n = 0;
	put_hex(&b, GENESIS_HEX);
	b.n = 80;
	put_compact(&b, 253);
	assert_int_equal(b.n, 83);
	for (int i = 0; i < 253; i++)
		put_hex(&b, GENESIS_HEX + 2 * 81);
	assert_int_equal(walk(b.b, b.n, &seen, err), 0);
	assert_int_equal(seen, 253);
	assert_int_equal(hj_btc_block_open(&blk, b.b, b.n, err, HJ_ERRLEN), 0);
	for (int i = 0; i < 253; i++) {
		assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN),
		                 1);
		assert_int_equal(tx.offset, 83 + 204 * (size_t)i);
	}
	assert_txid(&tx, GENESIS_TXID);
	assert_int_equal(hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN), 0);
}

/*
 * Every byte of each vector replaced by a few values: the parser must stay
 * inside the buffer (AddressSanitizer watches) and either succeed or say
 * why; on success its views stay inside the buffer too.
 */
static void test_mutations(void **state)
{
	static const char *const vec[] = {LIQUID_HEX, B143_P2WPKH_SIGNED,
	                                  B143_P2SH_SIGNED, TESTNET_CB_HEX};
	static const uint8_t vals[] = {0x00, 0x01, 0x4b, 0x4c, 0x4d,
	                               0x6a, 0xfc, 0xfd, 0xfe, 0xff};
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++) {
		size_t n;
		uint8_t *t = unhex_alloc(vec[k], &n);

		for (size_t i = 0; i < n; i++) {
			uint8_t keep = t[i];

			for (size_t j = 0; j < sizeof vals; j++) {
				hj_btc_tx tx;
				hj_btc_out_iter it;
				hj_btc_output o;
				const uint8_t *d;
				size_t dn;
				uint64_t sum;

				t[i] = vals[j];
				err[0] = '\0';
				if (hj_btc_tx_parse(t, n, &tx, err,
				                    HJ_ERRLEN)) {
					assert_true(err[0] != '\0');
					continue;
				}
				assert_int_equal(tx.raw_len, n);
				hj_btc_outputs_begin(&tx, &it);
				while (hj_btc_outputs_next(&it, &o))
					assert_true(o.script >= t &&
					            o.script + o.script_len <=
					                t + n);
				assert_int_equal(it.index, tx.n_outputs);
				(void)hj_btc_tx_find_data(&tx, NULL, 0, &d, &dn,
				                          NULL);
				(void)hj_btc_tx_sum_to(&tx, t, 1, &sum, NULL);
			}
			t[i] = keep;
		}
		free(t);
	}
}

/* ================================================================== */
/* Litecoin MWEB [LTC]                                                 */

struct ltc_out {
	uint64_t value;
	const char *script; /* hex */
};

struct ltc_tx {
	const char *txid;
	const char *wtxid;
	const struct ltc_out *out;
	size_t n_out;
};

struct ltc_block {
	uint64_t height;
	const char *hash;
	const char *hex;
	const struct ltc_tx *tx;
	size_t n_tx;
};

#include "data/btc/ltc_mweb_regtest.h"

#define N_LTC_BLOCKS (sizeof LTC_BLOCKS / sizeof LTC_BLOCKS[0])

/* The test's own reading of a VarInt (Bitcoin Core's, serialize.h), for
 * the extension block's height. */
static uint64_t varint_at(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		v = v << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80))
			return v;
		v++;
	}
	fail_msg("VarInt runs past %zu bytes", n);
	return 0;
}

static const struct ltc_block *ltc_block(uint64_t height)
{
	for (size_t k = 0; k < N_LTC_BLOCKS; k++)
		if (LTC_BLOCKS[k].height == height)
			return &LTC_BLOCKS[k];
	fail_msg("no block %" PRIu64, height);
	return NULL;
}

/* tx's outputs are exactly want[0..n). */
static void assert_outputs(const hj_btc_tx *tx, const struct ltc_out *want,
                           size_t n)
{
	hj_btc_out_iter it;
	hj_btc_output o;
	uint8_t spk[200];

	assert_int_equal(tx->n_outputs, n);
	hj_btc_outputs_begin(tx, &it);
	for (size_t j = 0; j < n; j++) {
		size_t len = strlen(want[j].script) / 2;

		assert_true(len <= sizeof spk);
		unhex(want[j].script, spk, len);
		assert_int_equal(hj_btc_outputs_next(&it, &o), 1);
		assert_true(o.value == want[j].value);
		assert_int_equal(o.script_len, len);
		assert_memory_equal(o.script, spk, len);
	}
	assert_int_equal(hj_btc_outputs_next(&it, &o), 0);
}

/* The parts of a block that the rule tests splice: where its HogEx and its
 * extension block lie. */
struct ltc_parts {
	uint8_t *raw;
	size_t len;
	size_t first;  /* the coinbase's offset */
	size_t second; /* the next transaction's */
	size_t hogex;  /* the HogEx's */
	size_t ext;    /* the extension block's offset */
};

static void ltc_split(const struct ltc_block *lb, struct ltc_parts *p)
{
	char err[HJ_ERRLEN];
	hj_btc_block b;
	hj_btc_tx tx;

	p->raw = unhex_alloc(lb->hex, &p->len);
	assert_int_equal(hj_btc_block_open(&b, p->raw, p->len, err, HJ_ERRLEN),
	                 0);
	p->first = b.pos;
	assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 1);
	p->second = tx.offset + tx.raw_len;
	while (hj_btc_block_next(&b, &tx, err, HJ_ERRLEN) == 1)
		p->hogex = tx.offset;
	assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 0);
	p->ext = b.mweb_offset;
}

/*
 * Each block comes back as the node listed it: every canonical
 * transaction at the offset where the previous one ended, with its txid,
 * wtxid and outputs, the HogEx last; then the extension block, from the
 * end of the HogEx to the end of the buffer, with the block's height.
 */
static void test_ltc_blocks(void **state)
{
	(void)state;
	for (size_t k = 0; k < N_LTC_BLOCKS; k++) {
		const struct ltc_block *lb = &LTC_BLOCKS[k];
		size_t n, end = 81;
		uint8_t *raw = unhex_alloc(lb->hex, &n);
		char err[HJ_ERRLEN], hex[HJ_BTC_HASH_HEX];
		hj_btc_block b;
		hj_btc_tx tx;

		assert_int_equal(hj_btc_block_open(&b, raw, n, err, HJ_ERRLEN),
		                 0);
		hj_btc_hash_hex(b.header.hash, hex);
		assert_string_equal(hex, lb->hash);
		assert_int_equal(b.n_tx, lb->n_tx);
		for (size_t i = 0; i < lb->n_tx; i++) {
			assert_int_equal(
			    hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 1);
			assert_int_equal(tx.offset, end);
			assert_txid(&tx, lb->tx[i].txid);
			assert_wtxid(&tx, lb->tx[i].wtxid);
			assert_int_equal(tx.mweb, i + 1 == lb->n_tx
			                              ? HJ_BTC_MWEB_HOGEX
			                              : HJ_BTC_MWEB_NONE);
			assert_outputs(&tx, lb->tx[i].out, lb->tx[i].n_out);
			end = tx.offset + tx.raw_len;
		}
		assert_int_equal(b.mweb_len, 0);
		assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 0);
		assert_int_equal(b.mweb_offset, end);
		assert_int_equal(b.mweb_offset + b.mweb_len, n);
		assert_int_equal(raw[end], 0x01);
		assert_true(varint_at(raw + end + 1, n - end - 1) ==
		            lb->height);
		/* The end, and the end again. */
		assert_int_equal(hj_btc_block_next(&b, &tx, err, HJ_ERRLEN), 0);
		assert_int_equal(b.mweb_offset, end);
		assert_int_equal(b.mweb_offset + b.mweb_len, n);
		free(raw);
	}

	/* Block 433 moved nothing through MWEB: presence byte, header (a
	 * 2-byte height, five 32-byte fields, two 1-byte sizes), and no
	 * inputs, outputs or kernels. */
	{
		struct ltc_parts p;

		ltc_split(ltc_block(433), &p);
		assert_int_equal(p.len - p.ext, 1 + 2 + 5 * 32 + 2 + 3);
		assert_memory_equal(p.raw + p.len - 3, "\0\0\0", 3);
		free(p.raw);
	}
}

/*
 * Block 435 as the daemon will read it: the magic payload found once, in
 * the transaction that carries it; the dealer paid by that transaction and
 * by a peg-out, which is an output of the HogEx; the sums are those of the
 * outputs the node listed.
 */
static void test_ltc_dealer(void **state)
{
	static const uint8_t magic[2] = {0x48, 0x4a};
	static const uint8_t payload[6] = {0x48, 0x4a, 1, 2, 3, 4};
	const struct ltc_block *lb = ltc_block(435);
	size_t n, spk_len = strlen(LTC_DEALER_SPK) / 2, found = 0, paid = 0;
	uint8_t *raw = unhex_alloc(lb->hex, &n), spk[64];
	uint64_t want_total = 0, want_hogex = 0, total = 0;
	char err[HJ_ERRLEN];
	hj_btc_block b;
	hj_btc_tx tx;
	int rc;

	(void)state;
	unhex(LTC_DEALER_SPK, spk, spk_len);
	for (size_t i = 0; i < lb->n_tx; i++)
		for (size_t j = 0; j < lb->tx[i].n_out; j++)
			if (!strcmp(lb->tx[i].out[j].script, LTC_DEALER_SPK)) {
				want_total += lb->tx[i].out[j].value;
				if (i + 1 == lb->n_tx)
					want_hogex += lb->tx[i].out[j].value;
			}
	assert_true(want_hogex > 0 && want_total > want_hogex);

	assert_int_equal(hj_btc_block_open(&b, raw, n, err, HJ_ERRLEN), 0);
	while ((rc = hj_btc_block_next(&b, &tx, err, HJ_ERRLEN)) == 1) {
		const uint8_t *d;
		size_t dn, vout, count;
		uint64_t sum;

		if (hj_btc_tx_find_data(&tx, magic, 2, &d, &dn, &vout)) {
			found++;
			assert_int_equal(tx.mweb, HJ_BTC_MWEB_NONE);
			assert_int_equal(dn, sizeof payload);
			assert_memory_equal(d, payload, sizeof payload);
		}
		assert_int_equal(
		    hj_btc_tx_sum_to(&tx, spk, spk_len, &sum, &count), 0);
		if (count == 0)
			continue;
		paid++;
		total += sum;
		if (tx.mweb == HJ_BTC_MWEB_HOGEX)
			assert_true(sum == want_hogex);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(found, 1);
	assert_int_equal(paid, 2);
	assert_true(total == want_total);
	free(raw);
}

/* Every proper prefix of each block fails, with a reason; a byte after
 * the extension block is refused. */
static void test_ltc_truncated(void **state)
{
	static struct buf b;
	char err[HJ_ERRLEN], want[HJ_ERRLEN];
	uint64_t seen;

	(void)state;
	for (size_t k = 0; k < N_LTC_BLOCKS; k++) {
		size_t n;
		uint8_t *full = unhex_alloc(LTC_BLOCKS[k].hex, &n);

		assert_int_equal(walk(full, n, &seen, err), 0);
		for (size_t len = 0; len < n; len++) {
			uint8_t *p = malloc(len ? len : 1);

			assert_non_null(p);
			memcpy(p, full, len);
			err[0] = '\0';
			assert_int_equal(walk(p, len, &seen, err), -EINVAL);
			assert_non_null(strstr(err, "offset "));
			free(p);
		}
		b.n = 0;
		put(&b, full, n);
		put_hex(&b, "00");
		assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
		assert_int_equal(seen, LTC_BLOCKS[k].n_tx);
		snprintf(want, sizeof want,
		         "offset %zu: 1 bytes after the MWEB extension block",
		         n);
		assert_string_equal(err, want);
		free(full);
	}
}

/*
 * Transactions as a wallet or the mempool hold them, with their MWEB
 * transaction attached: the canonical part reads as in the block, with
 * the txid and wtxid the node gives.  An MWEB-only transaction is refused;
 * the HogEx alone parses.
 */
static void test_ltc_wallet_txs(void **state)
{
	static const struct {
		const char *hex, *txid, *wtxid;
		uint64_t height;
		uint8_t flag;
	} v[] = {
	    {LTC_PEGIN_WALLET_HEX, LTC_PEGIN_WALLET_TXID,
	     LTC_PEGIN_WALLET_WTXID, 432, 0x09},
	    {LTC_PEGIN_MEMPOOL_HEX, LTC_PEGIN_MEMPOOL_TXID,
	     LTC_PEGIN_MEMPOOL_WTXID, 435, 0x08},
	};
	char err[HJ_ERRLEN];
	hj_btc_tx tx;
	size_t n;
	uint8_t *t;

	(void)state;
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		const struct ltc_block *lb = ltc_block(v[k].height);
		const struct ltc_tx *in_block = NULL;

		t = unhex_alloc(v[k].hex, &n);
		assert_int_equal(t[4], 0x00);
		assert_int_equal(t[5], v[k].flag);
		assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), 0);
		assert_int_equal(tx.mweb, HJ_BTC_MWEB_TX);
		assert_int_equal(tx.segwit, v[k].flag == 0x09);
		assert_int_equal(tx.raw_len, n);
		assert_txid(&tx, v[k].txid);
		assert_wtxid(&tx, v[k].wtxid);
		for (size_t i = 0; i < lb->n_tx; i++)
			if (!strcmp(lb->tx[i].txid, v[k].txid))
				in_block = &lb->tx[i];
		assert_non_null(in_block);
		assert_string_equal(in_block->wtxid, v[k].wtxid);
		assert_outputs(&tx, in_block->out, in_block->n_out);
		free(t);
		truncations_tx(v[k].hex);
	}

	t = unhex_alloc(LTC_MWEB_ONLY_HEX, &n);
	assert_int_equal(hj_btc_tx_parse(t, n, &tx, err, HJ_ERRLEN), -EINVAL);
	assert_string_equal(err, "offset 6: no inputs (an MWEB-only "
	                         "transaction: its txid is an MWEB hash, not "
	                         "computed here)");
	free(t);

	/* The HogEx of block 435, as getrawtransaction <txid> false <block>
	 * gives it. */
	{
		const struct ltc_block *lb = ltc_block(435);
		struct ltc_parts p;
		uint8_t *h;

		ltc_split(lb, &p);
		n = p.ext - p.hogex;
		h = malloc(n);
		assert_non_null(h);
		memcpy(h, p.raw + p.hogex, n);
		assert_int_equal(hj_btc_tx_parse(h, n, &tx, err, HJ_ERRLEN), 0);
		assert_int_equal(tx.mweb, HJ_BTC_MWEB_HOGEX);
		assert_false(tx.segwit);
		assert_txid(&tx, lb->tx[lb->n_tx - 1].txid);
		assert_wtxid(&tx, lb->tx[lb->n_tx - 1].txid);
		free(h);
		free(p.raw);
	}
}

/* Starts a block in b: p's header and a transaction count of n_tx. */
static void ltc_rebuild(struct buf *b, const struct ltc_parts *p, size_t n_tx)
{
	b->n = 0;
	put(b, p->raw, 80);
	put_compact(b, n_tx);
}

/* Litecoin's rules on where MWEB data may be, with exact messages. */
static void test_ltc_rules(void **state)
{
	static struct buf b;
	struct ltc_parts p, q;
	char err[HJ_ERRLEN], want[HJ_ERRLEN];
	size_t cb_len, hogex_len;
	uint64_t seen;
	uint8_t *w;
	size_t wn;

	(void)state;
	ltc_split(ltc_block(433), &p);
	cb_len = p.hogex - p.first;
	hogex_len = p.ext - p.hogex;

	/* A HogEx before the last transaction. */
	ltc_rebuild(&b, &p, 3);
	put(&b, p.raw + p.first, cb_len);
	put(&b, p.raw + p.hogex, hogex_len);
	put(&b, p.raw + p.hogex, p.len - p.hogex);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_int_equal(seen, 1);
	snprintf(want, sizeof want,
	         "tx 1: offset %zu: a HogEx (flag 0x08, no MWEB transaction) "
	         "that is not the last of two or more transactions",
	         81 + cb_len + 5);
	assert_string_equal(err, want);

	/* A HogEx alone. */
	ltc_rebuild(&b, &p, 1);
	put(&b, p.raw + p.hogex, p.len - p.hogex);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_string_equal(err, "tx 0: offset 86: a HogEx (flag 0x08, no MWEB "
	                         "transaction) that is not the last of two or "
	                         "more transactions");

	/* No HogEx: the extension block is just bytes after the last
	 * transaction. */
	ltc_rebuild(&b, &p, 1);
	put(&b, p.raw + p.first, cb_len);
	put(&b, p.raw + p.ext, p.len - p.ext);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	snprintf(want, sizeof want,
	         "offset %zu: %zu bytes after the last of 1 transactions",
	         81 + cb_len, p.len - p.ext);
	assert_string_equal(err, want);

	/* A HogEx and a null extension block (presence byte 00). */
	b.n = 0;
	put(&b, p.raw, p.len);
	b.b[p.ext] = 0x00;
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_int_equal(seen, 2);
	snprintf(want, sizeof want,
	         "offset %zu: MWEB extension block presence byte 0x00 after "
	         "the HogEx, expected 0x01",
	         p.ext);
	assert_string_equal(err, want);

	/* The HogEx's own presence byte, just before its locktime. */
	b.b[p.ext] = 0x01;
	b.b[p.ext - 5] = 0x02;
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	snprintf(want, sizeof want,
	         "tx 1: offset %zu: MWEB presence byte 0x02, expected 0x00 or "
	         "0x01",
	         p.ext - 5);
	assert_string_equal(err, want);

	/* An MWEB transaction attached inside a block: block 432 with the
	 * wallet's form of its peg-in. */
	ltc_split(ltc_block(432), &q);
	w = unhex_alloc(LTC_PEGIN_WALLET_HEX, &wn);
	ltc_rebuild(&b, &q, 3);
	put(&b, q.raw + q.first, q.second - q.first);
	put(&b, w, wn);
	put(&b, q.raw + q.hogex, q.len - q.hogex);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	assert_int_equal(seen, 1);
	assert_non_null(strstr(err, "tx 1: offset "));
	assert_non_null(strstr(err, ": MWEB transaction attached to a block's "
	                            "transaction (litecoind keeps them in the "
	                            "extension block)"));
	free(w);
	free(q.raw);

	/* Counts in the extension block beyond the bytes left; at is the
	 * count's offset in the body. */
	{
		static const struct {
			const char *body;
			size_t at;
			const char *what;
		} v[] = {
		    {"feffffffff0000", 0,
		     "MWEB input count 4294967295 needs at least 163 bytes "
		     "each, 2 bytes left"},
		    {"00ff00000000010000000000", 1,
		     "MWEB output count 4294967296 needs at least 839 bytes "
		     "each, 2 bytes left"},
		    {"0000fd0001", 2,
		     "MWEB kernel count 256 needs at least 98 bytes each, 0 "
		     "bytes left"},
		    {"0000fd0100", 2,
		     "MWEB kernel count: non-canonical CompactSize: 1 written "
		     "with prefix 0xfd"},
		};

		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
			b.n = 0;
			put(&b, p.raw, p.len - 3);
			put_hex(&b, v[i].body);
			assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
			snprintf(want, sizeof want, "offset %zu: %s",
			         p.len - 3 + v[i].at, v[i].what);
			assert_string_equal(err, want);
		}
	}

	/* A height that does not fit an int32, as a VarInt. */
	b.n = 0;
	put(&b, p.raw, p.ext + 1);
	put_hex(&b, "ffffffffff");
	put(&b, p.raw + p.ext + 3, p.len - p.ext - 3);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	snprintf(want, sizeof want,
	         "offset %zu: MWEB header height: VarInt exceeds 2147483647",
	         p.ext + 1);
	assert_string_equal(err, want);
	free(p.raw);
}

static void put_zeros(struct buf *b, size_t n)
{
	static const uint8_t z[1024];

	assert_true(n <= sizeof z);
	put(b, z, n);
}

/*
 * Extension blocks built on block 433's header, to reach what the
 * regtest blocks do not: every optional field, feature bits unknown here,
 * an empty peg-out script, an oversized fee; and an MWEB transaction with
 * no kernel.  Only the format's own facts are asserted: where the walk
 * ends, and which field it refuses.
 */
static void test_ltc_synthetic(void **state)
{
	static struct buf b;
	struct ltc_parts p;
	char err[HJ_ERRLEN], want[HJ_ERRLEN];
	uint64_t seen;
	hj_btc_block blk;
	hj_btc_tx tx;
	size_t body;

	(void)state;
	ltc_split(ltc_block(433), &p);
	body = p.len - 3;

	b.n = 0;
	put(&b, p.raw, body);
	/* One input, features ff: input public key (01), extra data (02). */
	put_hex(&b, "01ff");
	put_zeros(&b, 32 + 33 + 33 + 33);
	put_hex(&b, "02abcd");
	put_zeros(&b, 64);
	/* One output, message features ff: standard fields (01) and extra
	 * data (02). */
	put_hex(&b, "01");
	put_zeros(&b, 3 * 33);
	put_hex(&b, "ff");
	put_zeros(&b, 33 + 1 + 8 + 16);
	put_hex(&b, "01ee");
	put_zeros(&b, 675 + 64);
	/* One kernel, features ff: fee 128 (VarInt 80 00), peg-in 5, one
	 * peg-out (5 to script 51), lock height 0, stealth excess, extra
	 * data. */
	put_hex(&b, "01ff8000050105015100");
	put_zeros(&b, 33);
	put_hex(&b, "01aa");
	put_zeros(&b, 33 + 64);
	assert_int_equal(walk(b.b, b.n, &seen, err), 0);
	assert_int_equal(seen, 2);
	assert_int_equal(hj_btc_block_open(&blk, b.b, b.n, err, HJ_ERRLEN), 0);
	while (hj_btc_block_next(&blk, &tx, err, HJ_ERRLEN) == 1)
		;
	assert_int_equal(blk.mweb_offset, p.ext);
	assert_int_equal(blk.mweb_len, b.n - p.ext);
	for (size_t len = p.ext; len < b.n; len++) {
		uint8_t *c = malloc(len);

		assert_non_null(c);
		memcpy(c, b.b, len);
		err[0] = '\0';
		assert_int_equal(walk(c, len, &seen, err), -EINVAL);
		assert_non_null(strstr(err, "offset "));
		free(c);
	}

	/* A peg-out to an empty script. */
	b.n = 0;
	put(&b, p.raw, body);
	put_hex(&b, "00000104010500");
	put_zeros(&b, 100);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	snprintf(want, sizeof want,
	         "offset %zu: MWEB kernel 0 peg-out 0 script is empty",
	         body + 6);
	assert_string_equal(err, want);

	/* A fee beyond a CAmount. */
	b.n = 0;
	put(&b, p.raw, body);
	put_hex(&b, "00000101ffffffffffffffffff7f");
	put_zeros(&b, 100);
	assert_int_equal(walk(b.b, b.n, &seen, err), -EINVAL);
	snprintf(want, sizeof want,
	         "offset %zu: MWEB kernel 0 fee: VarInt exceeds "
	         "9223372036854775807",
	         body + 4);
	assert_string_equal(err, want);
	free(p.raw);

	/* An MWEB transaction without a kernel. */
	b.n = 0;
	put_le(&b, 2, 4);
	put_hex(&b, "0008");
	put_compact(&b, 1);
	put_hex(&b, "0000000000000000000000000000000000000000000000000000000000"
	            "000000ffffffff00ffffffff");
	put_compact(&b, 1);
	put_output(&b, 5, "51");
	body = b.n + 1;
	put_hex(&b, "01");
	put_zeros(&b, 64);
	put_hex(&b, "000000");
	put_le(&b, 0, 4);
	assert_int_equal(parse_buf(&b, &tx, err), -EINVAL);
	snprintf(want, sizeof want,
	         "offset %zu: MWEB transaction without a kernel", body);
	assert_string_equal(err, want);
}

/* Every byte of each regtest block replaced by a few values: the walk
 * stays inside the buffer and either succeeds or says why. */
static void test_ltc_mutations(void **state)
{
	static const uint8_t vals[] = {0x00, 0x01, 0x08, 0x09,
	                               0x7f, 0x80, 0xfd, 0xff};
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t k = 0; k < N_LTC_BLOCKS; k++) {
		size_t n;
		uint8_t *t = unhex_alloc(LTC_BLOCKS[k].hex, &n);

		for (size_t i = 0; i < n; i++) {
			uint8_t keep = t[i];

			for (size_t j = 0; j < sizeof vals; j++) {
				hj_btc_block b;
				hj_btc_tx tx;
				hj_btc_out_iter it;
				hj_btc_output o;
				int rc;

				t[i] = vals[j];
				err[0] = '\0';
				rc =
				    hj_btc_block_open(&b, t, n, err, HJ_ERRLEN);
				while (rc == 0 &&
				       (rc = hj_btc_block_next(
				            &b, &tx, err, HJ_ERRLEN)) == 1) {
					assert_true(tx.raw >= t &&
					            tx.raw + tx.raw_len <=
					                t + n);
					hj_btc_outputs_begin(&tx, &it);
					while (hj_btc_outputs_next(&it, &o))
						assert_true(
						    o.script >= t &&
						    o.script + o.script_len <=
						        t + n);
					rc = 0;
				}
				if (rc == 0)
					assert_true(
					    b.mweb_len == 0 ||
					    b.mweb_offset + b.mweb_len == n);
				else
					assert_true(err[0] != '\0');
			}
			t[i] = keep;
		}
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256_fips),
	    cmocka_unit_test(test_sha256_split),
	    cmocka_unit_test(test_sha256_additional),
	    cmocka_unit_test(test_sha256d_bip143),
	    cmocka_unit_test(test_genesis_block),
	    cmocka_unit_test(test_header_parse),
	    cmocka_unit_test(test_segwit_liquid),
	    cmocka_unit_test(test_bip322),
	    cmocka_unit_test(test_bip143),
	    cmocka_unit_test(test_testnet_coinbase),
	    cmocka_unit_test(test_script_data),
	    cmocka_unit_test(test_find_and_sum),
	    cmocka_unit_test(test_sum_overflow),
	    cmocka_unit_test(test_truncated_txs),
	    cmocka_unit_test(test_truncated_block),
	    cmocka_unit_test(test_trailing),
	    cmocka_unit_test(test_huge_counts),
	    cmocka_unit_test(test_noncanonical),
	    cmocka_unit_test(test_segwit_rules),
	    cmocka_unit_test(test_error_messages),
	    cmocka_unit_test(test_block_walk),
	    cmocka_unit_test(test_block_253),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_ltc_blocks),
	    cmocka_unit_test(test_ltc_dealer),
	    cmocka_unit_test(test_ltc_truncated),
	    cmocka_unit_test(test_ltc_wallet_txs),
	    cmocka_unit_test(test_ltc_rules),
	    cmocka_unit_test(test_ltc_synthetic),
	    cmocka_unit_test(test_ltc_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
