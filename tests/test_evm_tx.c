/*
 * The EVM signer: Keccak-256 (chain/keccak.h), RLP (chain/rlp.h), EIP-1559
 * transactions and addresses (chain/evm_tx.h).
 *
 * Where each vector comes from:
 *
 *   Keccak-256
 *   - "", "abc", the 448- and 896-bit NIST messages, one million 'a' and the
 *     1 GiB "extremely long message" of the Keccak team's KAT
 *     (ExtremelyLongMsgKAT_256: the 64-byte string "abcdefgh...hijklmno"
 *     16777216 times), with Keccak's original padding: as listed by Bouncy
 *     Castle, bcgit/bc-java core/src/test/java/org/bouncycastle/crypto/
 *     test/KeccakDigestTest.java (digests256, with its "64k a" and "64k
 *     alpha" messages) and by the keccak-tiny tests that list the NIST
 *     messages' Keccak-256 digests.  The brief's two ("" and "abc") are the
 *     same numbers.
 *   - ShortMsgKAT_256.txt of the Keccak team's KeccakKAT (the SHA-3
 *     round 3 submission), entries Len = 8, 136, 1080, 1088, 1096 and 2032
 *     bits: 135, 136 and 137 bytes straddle the 136-byte rate.  Copied from
 *     the byte-aligned transcription in glatan/ghash
 *     components/hashes/keccak/tests/keccak/short_msg_kat_256.rs; the
 *     1080-bit one was also checked with Foundry's `cast keccak` 1.7.1.
 *   - Ethereum facts: the selector of "transfer(address,uint256)" is
 *     a9059cbb (its full hash from `cast keccak`), the address of the
 *     secret key 1 is 0x7e5f4552091a69125d5dfcb7b8c2659029395bdf, and of
 *     0x4646...46 is 0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f (EIP-155's
 *     example); the other addresses are from `cast wallet address
 *     --private-key` (Foundry 1.7.1) or are the well-known anvil accounts.
 *
 *   RLP: ethereum/tests RLPTests/rlptest.json (every vector but
 *   "listofbinaries"; "longstring2" is checked on a 1024-byte string of
 *   our own, whose encoding is 0xb90400 and the bytes, as there), plus the
 *   yellow paper's / Ethereum wiki's ["cat", "dog"], 15 and 1024.
 *
 *   EIP-1559
 *   - ethereumjs/ethereumjs-monorepo packages/tx/test/json/eip1559.json:
 *     ten signed transactions (chain 7822, key 0x8f2a...be63); the file
 *     wraps each as an RLP string, as the old ethereum/tests did.  The
 *     hash of the first, 0xa3bf78ff..., is from MyEtherWallet's Kotlin
 *     kit (Eip1559TransactionTest), which copies the same vectors, and so
 *     is its "testRealTransaction" (chain 123, key 0xe304...540f, hash
 *     0xbe76a9ae...).
 *   - wevm/ox src/core/_test/TxEnvelopeEip1559.test.ts, getSignPayload:
 *     chain 1, nonce 665, anvil's first key: signing hash 0x1d099d1f...,
 *     signed transaction hash 0x57e6a86f....
 *   - Foundry's cast 1.7.1 (npm @foundry-rs/cast-linux-amd64), `cast mktx
 *     --private-key K --chain C --nonce N --gas-limit G --gas-price MAXFEE
 *     --priority-gas-price TIP --value V TO [SIG ARGS]`, offline, run once
 *     and pasted here: a plain payment; nonces 71 and 397 of anvil's second
 *     key, whose signatures have a 31-byte s and a 31-byte r; every field
 *     zero; every field at its maximum; an ERC-20 transfer; a 388-byte call
 *     whose transaction needs a two-byte list length.  cast signs with RFC
 *     6979 as libsecp256k1 does, so the bytes must match exactly.
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

#include "evm_tx.h"
#include "keccak.h"
#include "rlp.h"
#include "say.h"

static hj_secp *ctx;

typedef unsigned __int128 u128;

/* ------------------------------------------------------------------ */
/* Hex of our own, so that fixtures never depend on chain/hex.        */

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s: an optional 0x and an even number of hex digits, at most cap bytes.
 * Returns the byte count. */
static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n;

	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	n = strlen(s);
	assert_int_equal(n % 2, 0);
	assert_true(n / 2 <= cap);
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return n / 2;
}

/* Exactly n bytes. */
static void unhex_n(const char *s, uint8_t *out, size_t n)
{
	assert_int_equal(unhex(s, out, n), n);
}

/* Lower-case hex of b[0..n), no prefix, into a static buffer. */
static const char *tohex(const uint8_t *b, size_t n)
{
	static char buf[2 * HJ_EIP1559_RAW_MAX + 1];

	assert_true(n <= HJ_EIP1559_RAW_MAX);
	for (size_t i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	buf[2 * n] = '\0';
	return buf;
}

static void assert_hex(const uint8_t *b, size_t n, const char *want)
{
	if (want[0] == '0' && want[1] == 'x')
		want += 2;
	assert_string_equal(tohex(b, n), want);
}

/* ------------------------------------------------------------------ */
/* Keccak-256.                                                        */

struct kvec {
	const char *msg; /* text, or hex when hex is set */
	int hex;
	const char *digest;
};

static const struct kvec keccak_vectors[] = {
    /* Bouncy Castle digests256 and the NIST messages. */
    {"", 0, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
    {"abc", 0,
     "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
    {"The quick brown fox jumps over the lazy dog", 0,
     "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
    {"The quick brown fox jumps over the lazy dog.", 0,
     "578951e24efd62a3d63a86f7cd19aaa53c898fe287d2552133220370240b572d"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0,
     "45d3b367a6904e6e8d502ee04999a7c27647f91fa845d456525fd352ae3d7371"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmno"
     "pjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
     0, "f519747ed599024f3882238e5ab43960132572b7345fbeb9a90769dafd21ad67"},
    /* Ethereum: the selector's full hash (cast keccak). */
    {"transfer(address,uint256)", 0,
     "a9059cbb2ab09eb219583f4a59a5d0623ade346d962bcd4e46b11da047c9049b"},
    {"balanceOf(address)", 0,
     "70a08231b98ef4ca268c9cc3f6b4590e4bfec28280db06bb5d45e689f2a360be"},
    /* ShortMsgKAT_256. */
    {"6b", 1,
     "f3d0adcb6a1c70832365e9da0a6b2f5199422f6a53c67cfad171114e3442aa0f"},
    {"888bd7138b777f946c8db2d0b52b7c354c", 1,
     "ca19398f09a3e05dc4f3e4cafe8a16ee320e80aee1afe90b11026babceac43c0"},
    /* Len = 1080: 135 bytes, one short of the rate. */
    {"2f3fb9e6321405869ff0e6271369357ee08c9c27837fe300adf3766a61979591d64e78"
     "09627e8f026e762982df5f00bfeb9ce76f1ccb70c9bee6331f7dc8b15417295d7aa7ec"
     "7c1662a69842059901f136e96052b4d01b72b64f92331744872f6de4a915d0262b33cc"
     "c375d25d77c3936023e514f30187a9501adc685e6497cc4841e119670d4d",
     1, "0484f02cc16415e7e9f28f95b6bb77209e1b25ec35015de84facbc8f9605b39e"},
    /* Len = 1088: exactly the rate. */
    {"33d0c3052e3ac8c19beca6b0dfa73888f753655fb2c9f77e1238602c9f6d7ad33e3dd9"
     "6c78a22e148ed4c46d7cfdf674505bd40325cb813804e264a450de778f1c50fc94f32a"
     "a881fe6def7b6ae6efbb42c3be678f40a09322053773e3af020000fe94f3283c7527aa"
     "64a2144b92cf8d568df4e6cd957af09ab1637e61667e616412558d4fcab4f9",
     1, "b30ad6fc320c0d70309dc39953895cb7cf3fbedec7d86a5f7aa9f2bb760f6dba"},
    /* Len = 1096: one past the rate. */
    {"2f570e7aeadd07406bfc263992a0292c528daab4f32816573b6be58a36998465f192e0"
     "db70e81cdbe5431477e43ea437cb4eebbe760116b26dfb3ca395c1098753e962c3d27f"
     "9fb8c2b32fa6f1d3debd22c97b99cb924b388d87db2348e5aa9ccf0d60a18cff594eb3"
     "89f5a55dd362809dde19687064a0feec7c213561cbd130d832d264312cb3e4b6",
     1, "6cf9e0e9008f6b5b2d28fb38c47a0212e7b28f6a7f44815f10c53141c2f1c84d"},
    /* Len = 2032: 254 bytes, the longest byte-aligned entry. */
    {"481dd9182975f32bf7dca9850268ddee861e5d606097d955377dd069154fdd5d6cb776"
     "962c6ac223466ca849d486375aa495bb052d945a64122bce277aac85e763fc7e906640"
     "b3adac5cf681e22edb87c4968cf12be7563d1225658cd2eb7436e7f2c64d337afbe0d6"
     "f161b81f3d40e4d4ccd500b32c3dc652a353248ec75a76ba21c4ed9bbfce71b0302ad0"
     "6d6ab441378a41ebb77fb10923052db1cc882787a9ec7544ab43b55b74e02ce14ae123"
     "816b656c23e51e2c08235abaf0e2e2778cceecd0793086d5a4660186b1e2aa334e0f9f"
     "72f4be9efce1f8b6d2db984a67663738e068bfb50c25b793d79a3d0ae84caa5b4168f9"
     "3e4af2f51ccd8e6734",
     1, "5b1b87b1feca95e702186c47dd2e0436788ac686207906106b6363ce7d697624"},
};

/* Loads vector v's message into buf; returns its length. */
static size_t kmsg(const struct kvec *v, uint8_t *buf, size_t cap)
{
	size_t n;

	if (v->hex)
		return unhex(v->msg, buf, cap);
	n = strlen(v->msg);
	assert_true(n <= cap);
	memcpy(buf, v->msg, n);
	return n;
}

static void test_keccak_vectors(void **state)
{
	uint8_t msg[512], d[HJ_KECCAK256_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof keccak_vectors / sizeof *keccak_vectors;
	     i++) {
		size_t n = kmsg(&keccak_vectors[i], msg, sizeof msg);

		hj_keccak256(n > 0 ? msg : NULL, n, d);
		assert_hex(d, sizeof d, keccak_vectors[i].digest);
	}
	/* Sizes match the KAT's Len (bits / 8). */
	assert_int_equal(kmsg(&keccak_vectors[10], msg, sizeof msg), 135);
	assert_int_equal(kmsg(&keccak_vectors[11], msg, sizeof msg), 136);
	assert_int_equal(kmsg(&keccak_vectors[12], msg, sizeof msg), 137);
	assert_int_equal(kmsg(&keccak_vectors[13], msg, sizeof msg), 254);
}

/* Every way of feeding a message in two pieces, and byte by byte, gives
 * the one-shot digest: the partial-block paths of update. */
static void test_keccak_pieces(void **state)
{
	uint8_t msg[512], d[HJ_KECCAK256_LEN], want[HJ_KECCAK256_LEN];
	hj_keccak_ctx c;

	(void)state;
	for (size_t i = 0; i < sizeof keccak_vectors / sizeof *keccak_vectors;
	     i++) {
		size_t n = kmsg(&keccak_vectors[i], msg, sizeof msg);

		unhex_n(keccak_vectors[i].digest, want, sizeof want);
		for (size_t cut = 0; cut <= n; cut++) {
			hj_keccak256_init(&c);
			hj_keccak256_update(&c, msg, cut);
			hj_keccak256_update(&c, msg + cut, n - cut);
			hj_keccak256_final(&c, d);
			assert_memory_equal(d, want, sizeof d);
		}
		hj_keccak256_init(&c);
		for (size_t j = 0; j < n; j++)
			hj_keccak256_update(&c, msg + j, 1);
		hj_keccak256_update(&c, NULL, 0);
		hj_keccak256_final(&c, d);
		assert_memory_equal(d, want, sizeof d);
	}
}

/* Bouncy Castle's 64 KiB messages and one million 'a', in uneven pieces. */
static void test_keccak_long(void **state)
{
	static uint8_t buf[1000000];
	uint8_t d[HJ_KECCAK256_LEN];
	hj_keccak_ctx c;
	size_t off, step;

	(void)state;
	memset(buf, 'a', 65536);
	hj_keccak256(buf, 65536, d);
	assert_hex(d, sizeof d,
	           "0047a916daa1f92130d870b542e22d3108444f5a7e4429f05762fb64"
	           "7e6ed9ed");
	for (size_t i = 0; i < 65536; i++)
		buf[i] = (uint8_t)('a' + i % 26);
	hj_keccak256(buf, 65536, d);
	assert_hex(d, sizeof d,
	           "db368762253ede6d4f1db87e0b799b96e554eae005747a2ea687456c"
	           "a8bcbd03");
	/* As Bouncy Castle feeds it: 1 byte, then 1023, 64 times. */
	hj_keccak256_init(&c);
	for (size_t i = 0; i < 64; i++) {
		hj_keccak256_update(&c, buf + 1024 * i, 1);
		hj_keccak256_update(&c, buf + 1024 * i + 1, 1023);
	}
	hj_keccak256_final(&c, d);
	assert_hex(d, sizeof d,
	           "db368762253ede6d4f1db87e0b799b96e554eae005747a2ea687456c"
	           "a8bcbd03");

	memset(buf, 'a', sizeof buf);
	hj_keccak256(buf, sizeof buf, d);
	assert_hex(d, sizeof d,
	           "fadae6b49f129bbb812be8407b7b2894f34aecf6dbd1f9b0f0c7e985"
	           "3098fc96");
	hj_keccak256_init(&c);
	for (off = 0, step = 1; off < sizeof buf; off += step, step += 7) {
		if (step > sizeof buf - off)
			step = sizeof buf - off;
		hj_keccak256_update(&c, buf + off, step);
	}
	hj_keccak256_final(&c, d);
	assert_hex(d, sizeof d,
	           "fadae6b49f129bbb812be8407b7b2894f34aecf6dbd1f9b0f0c7e985"
	           "3098fc96");
}

/*
 * The Keccak team's extremely long message, 1 GiB: about 6 s in an
 * optimised build, a minute under the sanitizers, and it exercises nothing
 * the million 'a' do not (Keccak has no length counter).  Runs when
 * HJ_KECCAK_EXTREME is set in the environment.
 */
static void test_keccak_extreme(void **state)
{
	static const char piece[] =
	    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno";
	static uint8_t block[64 * 1024];
	uint8_t d[HJ_KECCAK256_LEN];
	hj_keccak_ctx c;

	(void)state;
	if (getenv("HJ_KECCAK_EXTREME") == NULL)
		skip();
	for (size_t i = 0; i < 1024; i++)
		memcpy(block + 64 * i, piece, 64);
	hj_keccak256_init(&c);
	for (size_t i = 0; i < 16384; i++)
		hj_keccak256_update(&c, block, sizeof block);
	hj_keccak256_final(&c, d);
	assert_hex(d, sizeof d,
	           "5f313c39963dcf792b5470d4ade9f3a356a3e4021748690a958372e2"
	           "b06f82a4");
}

/* ------------------------------------------------------------------ */
/* RLP encoding.                                                      */

static void assert_rlp(hj_rlp *r, const char *want)
{
	size_t n;

	assert_int_equal(hj_rlp_finish(r, &n), 0);
	assert_hex(r->buf, n, want);
}

static const char lorem55[] =
    "Lorem ipsum dolor sit amet, consectetur adipisicing eli";
static const char lorem56[] =
    "Lorem ipsum dolor sit amet, consectetur adipisicing elit";

static void test_rlp_strings(void **state)
{
	static uint8_t buf[2048], big[1024];
	hj_rlp r;
	size_t n;

	(void)state;
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, NULL, 0);
	assert_rlp(&r, "80");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, "\x00", 1);
	assert_rlp(&r, "00");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, "\x01", 1);
	assert_rlp(&r, "01");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, "\x7f", 1);
	assert_rlp(&r, "7f");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, "\x80", 1);
	assert_rlp(&r, "8180");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, "dog", 3);
	assert_rlp(&r, "83646f67");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, lorem55, 55);
	assert_rlp(&r,
	           "b74c6f72656d20697073756d20646f6c6f722073697420616d65742c"
	           "20636f6e7365637465747572206164697069736963696e6720656c"
	           "69");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, lorem56, 56);
	assert_rlp(&r,
	           "b8384c6f72656d20697073756d20646f6c6f722073697420616d6574"
	           "2c20636f6e7365637465747572206164697069736963696e672065"
	           "6c6974");
	/* longstring2: 1024 bytes behind b9 04 00. */
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(' ' + i % 90);
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_bytes(&r, big, sizeof big);
	assert_int_equal(hj_rlp_finish(&r, &n), 0);
	assert_int_equal(n, 3 + sizeof big);
	assert_hex(buf, 3, "b90400");
	assert_memory_equal(buf + 3, big, sizeof big);
}

struct ivec {
	uint64_t v;
	const char *want;
};

static void test_rlp_integers(void **state)
{
	static const struct ivec iv[] = {
	    {0, "80"},
	    {1, "01"},
	    {15, "0f"},
	    {16, "10"},
	    {79, "4f"},
	    {127, "7f"},
	    {128, "8180"},
	    {255, "81ff"},
	    {256, "820100"},
	    {1000, "8203e8"},
	    {1024, "820400"},
	    {100000, "830186a0"},
	    {UINT64_MAX, "88ffffffffffffffff"},
	};
	uint8_t buf[64], be[40];
	hj_rlp r;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof iv / sizeof *iv; i++) {
		hj_rlp_init(&r, buf, sizeof buf);
		hj_rlp_u64(&r, iv[i].v);
		assert_rlp(&r, iv[i].want);
		hj_rlp_init(&r, buf, sizeof buf);
		hj_rlp_u128(&r, iv[i].v);
		assert_rlp(&r, iv[i].want);
	}
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_u128(&r, ~(u128)0);
	assert_rlp(&r, "90ffffffffffffffffffffffffffffffff");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_u128(&r, (u128)1 << 64);
	assert_rlp(&r, "89010000000000000000");
	/* mediumint4: 83729609699884896815286331701780722. */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_u128(&r,
	            (u128)0x10203040506070ULL << 64 | 0x8090a0b0c0d0e0f2ULL);
	assert_rlp(&r, "8f102030405060708090a0b0c0d0e0f2");
	/* mediumint5, bigint (2^256) and a u256 with leading zeros, as
	 * big-endian bytes. */
	n = unhex("0100020003000400050006000700080009000a000b000c000d000e01",
	          be, sizeof be);
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_uint_be(&r, be, n);
	assert_rlp(
	    &r, "9c0100020003000400050006000700080009000a000b000c000d000e01");
	memset(be, 0, sizeof be);
	be[0] = 1;
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_uint_be(&r, be, 33);
	assert_rlp(
	    &r,
	    "a101"
	    "0000000000000000000000000000000000000000000000000000000000000000");
	memset(be, 0, 32);
	be[31] = 0x05;
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_uint_be(&r, be, 32);
	assert_rlp(&r, "05");
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_uint_be(&r, be, 31); /* all zeros: the integer 0 */
	assert_rlp(&r, "80");
}

/* Appends ["asdf", "qwer", "zxcv"]. */
static void asdf(hj_rlp *r)
{
	hj_rlp_list_begin(r);
	hj_rlp_bytes(r, "asdf", 4);
	hj_rlp_bytes(r, "qwer", 4);
	hj_rlp_bytes(r, "zxcv", 4);
	hj_rlp_list_end(r);
}

/* longList2 of rlptest.json: 32 asdf lists, a 512-byte payload. */
static void long_list2(hj_rlp *r)
{
	hj_rlp_list_begin(r);
	for (int i = 0; i < 32; i++)
		asdf(r);
	hj_rlp_list_end(r);
}

static const char long_list2_head[] = "f90200cf84617364668471776572847a786376";

static void test_rlp_lists(void **state)
{
	uint8_t buf[1024];
	hj_rlp r;
	size_t n;

	(void)state;
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "c0");

	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_bytes(&r, "cat", 3);
	hj_rlp_bytes(&r, "dog", 3);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "c88363617483646f67");

	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_bytes(&r, "dog", 3);
	hj_rlp_bytes(&r, "god", 3);
	hj_rlp_bytes(&r, "cat", 3);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "cc83646f6783676f6483636174");

	/* multilist: ["zw", [4], 1] */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_bytes(&r, "zw", 2);
	hj_rlp_list_begin(&r);
	hj_rlp_u64(&r, 4);
	hj_rlp_list_end(&r);
	hj_rlp_u64(&r, 1);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "c6827a77c10401");

	/* shortListMax1: a 55-byte payload, the longest short list. */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	for (int i = 0; i < 11; i++)
		hj_rlp_bytes(&r,
		             i % 3 == 0   ? "asdf"
		             : i % 3 == 1 ? "qwer"
		                          : "zxcv",
		             4);
	hj_rlp_list_end(&r);
	assert_rlp(&r,
	           "f784617364668471776572847a78637684617364668471776572847a"
	           "78637684617364668471776572847a78637684617364668471776572");

	/* longList1: four asdf lists, a 64-byte payload. */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	for (int i = 0; i < 4; i++)
		asdf(&r);
	hj_rlp_list_end(&r);
	assert_rlp(&r,
	           "f840cf84617364668471776572847a786376cf8461736466847177657"
	           "2847a786376cf84617364668471776572847a786376cf846173646684"
	           "71776572847a786376");

	/* longList2: f9 02 00 and 32 times the same 16 bytes. */
	hj_rlp_init(&r, buf, sizeof buf);
	long_list2(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), 0);
	assert_int_equal(n, 3 + 32 * 16);
	assert_hex(buf, 19, long_list2_head);
	for (int i = 1; i < 32; i++)
		assert_memory_equal(buf + 3 + 16 * i, buf + 3, 16);

	/* listsoflists: [[[], []], []] */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "c4c2c0c0c0");

	/* listsoflists2, the set-theoretic 3: [[], [[]], [[], [[]]]] */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	hj_rlp_list_begin(&r); /* [] */
	hj_rlp_list_end(&r);
	hj_rlp_list_begin(&r); /* [[]] */
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_begin(&r); /* [[], [[]]] */
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_begin(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	hj_rlp_list_end(&r);
	assert_rlp(&r, "c7c0c1c0c3c0c1c0");

	/* dictTest1 */
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	for (int i = 1; i <= 4; i++) {
		char k[5], v[5];

		snprintf(k, sizeof k, "key%d", i);
		snprintf(v, sizeof v, "val%d", i);
		hj_rlp_list_begin(&r);
		hj_rlp_bytes(&r, k, 4);
		hj_rlp_bytes(&r, v, 4);
		hj_rlp_list_end(&r);
	}
	hj_rlp_list_end(&r);
	assert_rlp(
	    &r, "ecca846b6579318476616c31ca846b6579328476616c32ca846b65793384"
	        "76616c33ca846b6579348476616c34");
}

/* With every capacity short of what longList2 needs the encoder says
 * -ENOSPC and writes nothing past the capacity; with enough it succeeds. */
static void test_rlp_bounded(void **state)
{
	uint8_t buf[600];
	const size_t need = 3 + 32 * 16;
	hj_rlp r;
	size_t n;

	(void)state;
	for (size_t cap = 0; cap <= need; cap++) {
		memset(buf, 0xa5, sizeof buf);
		hj_rlp_init(&r, buf, cap);
		long_list2(&r);
		if (cap < need) {
			assert_int_equal(hj_rlp_finish(&r, &n), -ENOSPC);
		} else {
			assert_int_equal(hj_rlp_finish(&r, &n), 0);
			assert_int_equal(n, need);
		}
		for (size_t i = cap; i < sizeof buf; i++)
			assert_int_equal(buf[i], 0xa5);
	}
	/* A NULL buffer has no room at all. */
	hj_rlp_init(&r, NULL, 100);
	hj_rlp_u64(&r, 1);
	assert_int_equal(hj_rlp_finish(&r, &n), -ENOSPC);
	/* A long string header that fits when the string does not. */
	hj_rlp_init(&r, buf, 57);
	hj_rlp_bytes(&r, lorem56, 56);
	assert_int_equal(hj_rlp_finish(&r, &n), -ENOSPC);
}

static void test_rlp_misuse(void **state)
{
	uint8_t buf[64];
	hj_rlp r;
	size_t n = 12345;

	(void)state;
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_end(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), -EINVAL);

	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_list_begin(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), -EINVAL);
	assert_int_equal(n, 12345);

	hj_rlp_init(&r, buf, sizeof buf);
	for (int i = 0; i < HJ_RLP_DEPTH; i++)
		hj_rlp_list_begin(&r);
	for (int i = 0; i < HJ_RLP_DEPTH; i++)
		hj_rlp_list_end(&r);
	assert_rlp(&r, "c7c6c5c4c3c2c1c0");
	hj_rlp_init(&r, buf, sizeof buf);
	for (int i = 0; i <= HJ_RLP_DEPTH; i++)
		hj_rlp_list_begin(&r);
	for (int i = 0; i <= HJ_RLP_DEPTH; i++)
		hj_rlp_list_end(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), -E2BIG);

	/* Errors stick: the first one is reported, later calls write
	 * nothing. */
	memset(buf, 0xa5, sizeof buf);
	hj_rlp_init(&r, buf, 4);
	hj_rlp_bytes(&r, "dogs", 4);
	hj_rlp_u64(&r, 1);
	hj_rlp_list_end(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), -ENOSPC);
	assert_int_equal(buf[0], 0xa5);
}

/* ------------------------------------------------------------------ */
/* RLP decoding.                                                      */

/* Re-encodes the items of (p, n) into r, recursively: decoding then
 * encoding canonical RLP must give back the same bytes. */
static void reencode(hj_rlp *r, const uint8_t *p, size_t n)
{
	hj_rlp_item it;
	char err[HJ_ERRLEN];

	while (n > 0) {
		assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
		if (it.is_list) {
			hj_rlp_list_begin(r);
			reencode(r, it.p, it.len);
			hj_rlp_list_end(r);
		} else {
			hj_rlp_bytes(r, it.p, it.len);
		}
	}
}

static void test_rlp_decode_roundtrip(void **state)
{
	static const char *const enc[] = {
	    "80",
	    "00",
	    "01",
	    "7f",
	    "8180",
	    "83646f67",
	    "c0",
	    "c88363617483646f67",
	    "c6827a77c10401",
	    "c4c2c0c0c0",
	    "c7c0c1c0c3c0c1c0",
	    "b8384c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f"
	    "6e7365637465747572206164697069736963696e6720656c6974",
	    "f840cf84617364668471776572847a786376cf84617364668471776572847a78"
	    "6376cf84617364668471776572847a786376cf84617364668471776572847a78"
	    "6376",
	    "a1010000000000000000000000000000000000000000000000000000000000000"
	    "000",
	};
	uint8_t in[600], out[600];
	hj_rlp r;
	size_t n, m;

	(void)state;
	for (size_t i = 0; i < sizeof enc / sizeof *enc; i++) {
		n = unhex(enc[i], in, sizeof in);
		hj_rlp_init(&r, out, sizeof out);
		reencode(&r, in, n);
		assert_int_equal(hj_rlp_finish(&r, &m), 0);
		assert_int_equal(m, n);
		assert_memory_equal(out, in, n);
	}
	/* longList2, which has a two-byte length. */
	hj_rlp_init(&r, in, sizeof in);
	long_list2(&r);
	assert_int_equal(hj_rlp_finish(&r, &n), 0);
	hj_rlp_init(&r, out, sizeof out);
	reencode(&r, in, n);
	assert_int_equal(hj_rlp_finish(&r, &m), 0);
	assert_int_equal(m, n);
	assert_memory_equal(out, in, n);
}

struct bad_rlp {
	const char *hex;
	const char *why;
};

static void test_rlp_decode_refusals(void **state)
{
	static const struct bad_rlp bad[] = {
	    {"", "RLP: an item was expected, the input ended"},
	    {"8100", "RLP: byte 0x00 wrapped as a one-byte string"},
	    {"817f", "RLP: byte 0x7f wrapped as a one-byte string"},
	    {"83646f", "RLP: an item of 3 bytes runs past the end (2 left)"},
	    {"c3646f", "RLP: an item of 3 bytes runs past the end (2 left)"},
	    {"b8", "RLP: a 2-byte header is cut off after 1"},
	    {"f9ff", "RLP: a 3-byte header is cut off after 2"},
	    {"b80000", "RLP: a length with a leading zero byte"},
	    {"b90001", "RLP: a length with a leading zero byte"},
	    {"b837", "RLP: the long form for a length of 55"},
	    {"f800", "RLP: a length with a leading zero byte"},
	    {"f837", "RLP: the long form for a length of 55"},
	    {"b838", "RLP: an item of 56 bytes runs past the end (0 left)"},
	    {"bfffffffffffffffff00",
	     "RLP: an item of 18446744073709551615 bytes runs past the end "
	     "(1 left)"},
	    {"ffffffffffffffffff",
	     "RLP: an item of 18446744073709551615 bytes runs past the end "
	     "(0 left)"},
	};
	uint8_t in[16];
	hj_rlp_item it;
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		size_t n = unhex(bad[i].hex, in, sizeof in), n0 = n;
		const uint8_t *p = in;

		err[0] = '\0';
		assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err),
		                 -EINVAL);
		assert_string_equal(err, bad[i].why);
		assert_ptr_equal(p, in);
		assert_int_equal(n, n0);
	}
}

static void test_rlp_get_int(void **state)
{
	uint8_t in[40];
	const uint8_t *p;
	hj_rlp_item it;
	u128 v;
	uint64_t w;
	size_t n;
	char err[HJ_ERRLEN];

	(void)state;
	n = unhex("82ffff", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u128(&it, "x", &v, err, sizeof err), 0);
	assert_true(v == 0xffff);
	n = unhex("80", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u64(&it, "x", &w, err, sizeof err), 0);
	assert_int_equal(w, 0);
	n = unhex("90ffffffffffffffffffffffffffffffff", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u128(&it, "x", &v, err, sizeof err), 0);
	assert_true(v == ~(u128)0);
	assert_int_equal(hj_rlp_get_u64(&it, "nonce", &w, err, sizeof err),
	                 -ERANGE);
	assert_string_equal(err,
	                    "nonce: integer of 16 bytes, at most 8 allowed");

	n = unhex("820001", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u128(&it, "value", &v, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "value: integer with a leading zero byte");
	/* 17 bytes: 2^128 */
	n = unhex("910100000000000000000000000000000000", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u128(&it, "value", &v, err, sizeof err),
	                 -ERANGE);
	assert_string_equal(err,
	                    "value: integer of 17 bytes, at most 16 allowed");
	n = unhex("c0", in, sizeof in);
	p = in;
	assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
	assert_int_equal(hj_rlp_get_u64(&it, "gas", &w, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "gas: a list, expected an integer");
}

/* ------------------------------------------------------------------ */
/* Keys and addresses.                                                */

struct addrvec {
	const char *sk, *addr;
};

static const struct addrvec addr_vectors[] = {
    {"0000000000000000000000000000000000000000000000000000000000000001",
     "7e5f4552091a69125d5dfcb7b8c2659029395bdf"},
    {"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
     "80c0dbf239224071c59dd8970ab9d542e3414ab2"},
    {"4646464646464646464646464646464646464646464646464646464646464646",
     "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f"},
    {"8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63",
     "fe3b557e8fb62b89f4916b721be55ceb828dbd73"},
    {"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
     "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
    {"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
     "70997970c51812dc3a010c7d01b50e0d17dc79c8"},
    {"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
     "3c44cdddb6a900fa2b585dd299e03d12fa4293bc"},
};

static void test_evm_addresses(void **state)
{
	static const char *const invalid[] = {
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
	    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364142",
	    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	};
	uint8_t sk[32], addr[20], pub[64], again[20];
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof addr_vectors / sizeof *addr_vectors;
	     i++) {
		unhex_n(addr_vectors[i].sk, sk, sizeof sk);
		assert_int_equal(hj_evm_address(ctx, sk, addr, err, sizeof err),
		                 0);
		assert_hex(addr, sizeof addr, addr_vectors[i].addr);
		assert_int_equal(hj_evm_pubkey(ctx, sk, pub, err, sizeof err),
		                 0);
		hj_evm_pubkey_address(pub, again);
		assert_memory_equal(again, addr, sizeof addr);
	}
	/* The public key of 1 is the generator. */
	unhex_n(addr_vectors[0].sk, sk, sizeof sk);
	assert_int_equal(hj_evm_pubkey(ctx, sk, pub, err, sizeof err), 0);
	assert_hex(pub, sizeof pub,
	           "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16"
	           "f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47"
	           "d08ffb10d4b8");
	for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
		unhex_n(invalid[i], sk, sizeof sk);
		err[0] = '\0';
		assert_int_equal(hj_evm_address(ctx, sk, addr, err, sizeof err),
		                 -EINVAL);
		assert_string_equal(err, "secret key is zero or not below the "
		                         "secp256k1 group order");
	}
}

/* ------------------------------------------------------------------ */
/* EIP-1559 transactions.                                             */

struct txvec {
	const char *sk;
	uint64_t chain_id, nonce, tip, max_fee, gas;
	const char *to;
	uint64_t value;
	const char *data; /* hex, or NULL for none */
	const char *raw;
	const char *hash; /* a published transaction hash, or NULL */
	const char *from;
};

#define EJS_SK                                                                 \
	"8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
#define EJS_TO   "000000000000000000000000000000000000aaaa"
#define EJS_FROM "fe3b557e8fb62b89f4916b721be55ceb828dbd73"

/* ethereumjs eip1559.json, verbatim: each raw is wrapped as an RLP string
 * (b8 + length), which the test takes off. */
static const struct txvec ejs[] = {
    {EJS_SK, 7822, 819, 75853, 121212, 35552, EJS_TO, 43203529, NULL,
     "b87302f870821e8e8203338301284d8301d97c828ae0940000000000000000000000000"
     "00000000000aaaa8402933bc980c080a0d067f2167008c59219652f91cbf8788dbca5f7"
     "71f6e91e2b7657e85b78b472e0a01d305af9fe81fdba43f0dfcd400ed24dcace0a7e30d"
     "4e85701dcaaf484cd079e",
     "a3bf78ff247cad934aa5fb13e05f11e59c93511523ff8a622e59c3a34700e5c8",
     EJS_FROM},
    {EJS_SK, 7822, 353, 38850, 136295, 32593, EJS_TO, 61901619, NULL,
     "b87202f86f821e8e8201618297c283021467827f519400000000000000000000000000"
     "0000000000aaaa8403b08b3380c001a004205678f13fc1d7b10feea6513dfa76e24418"
     "b6e08097d95c6f93a3b64e536da01d45ad61bfece43862de2cce7d2575a8c1d08c26c8"
     "7f3cb5f26d7b0be54a91b2",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 985, 66377, 136097, 68541, EJS_TO, 32531825, NULL,
     "b87402f871821e8e8203d983010349830213a183010bbd940000000000000000000000"
     "00000000000000aaaa8401f0657180c001a0e6d23c5ecc0f388a4d41a9523c3ad171e9"
     "8083a61288c340b968dfe0903a6741a07319e8d54a4fd8f0c081d3ce093d869f9df598"
     "481991c8534bfd8f2c163884b4",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 623, 74140, 81173, 57725, EJS_TO, 21649799, NULL,
     "b87302f870821e8e82026f8301219c83013d1582e17d94000000000000000000000000"
     "000000000000aaaa84014a598780c080a0b107893e4590e177e244493a3f2b59d63619"
     "ddd82772105d8c96b7fc85ff683da07dc9b9dc054d2f69f9cc540688f6c0da3b54dd8b"
     "d8323f06d0ca26b546a480f1",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 972, 42798, 103466, 65254, EJS_TO, 94563383, NULL,
     "b87202f86f821e8e8203cc82a72e8301942a82fee69400000000000000000000000000"
     "0000000000aaaa8405a2ec3780c080a02596bfedd3101f7e3c881eec060f83c60617fb"
     "21173ff41a560e02c9c23f02f4a01ef1f7930d31081c06dfd2176046a99442a8867863"
     "8a33eb80afa8d2d3389ee0",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 588, 87890, 130273, 37274, EJS_TO, 99359647, NULL,
     "b87302f870821e8e82024c830157528301fce182919a94000000000000000000000000"
     "000000000000aaaa8405ec1b9f80c001a0404a06f2a9ba9d444e59f03e1b4ce46c4d71"
     "27342aa287a6e9a910b26ff6cc89a04af28549efdfb3e746938d01c92785e9852eb58c"
     "48d6f35cc99961e88f56603a",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 900, 8714, 112705, 76053, EJS_TO, 30402257, NULL,
     "b87302f870821e8e82038482220a8301b8418301291594000000000000000000000000"
     "000000000000aaaa8401cfe6d180c080a06e1bc9e4645de8bdad2c60424539c2dd93aa"
     "cbc06ae94e440629b133a99e9ba7a03d23fdfdd9934c77fe5385a6b4b6c69e84cdec78"
     "14a19d81e648b5852ee5f7eb",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 709, 86252, 94636, 28335, EJS_TO, 6478043, NULL,
     "b87202f86f821e8e8202c5830150ec830171ac826eaf94000000000000000000000000"
     "000000000000aaaa8362d8db80c001a09880d133cd636f8c8dce32e2c43494b9f2dc00"
     "0eee8dc61931e09f866ed04b46a00e44d5c503c7f08b36c8b062c32a963f3dd20a71e9"
     "5e3d903bfbe7f4da47cd47",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 939, 45216, 91648, 45047, EJS_TO, 2782905, NULL,
     "b87102f86e821e8e8203ab82b0a08301660082aff79400000000000000000000000000"
     "0000000000aaaa832a76b980c001a0a0e7d9b07c7ec68f24788a554f993b99d59a3f08"
     "439cc6c942f62ea0341f2aeba078122b9957c146f7c87811bd58a7e9916ca8c07dabcf"
     "875b97bbdef79cb9c197",
     NULL, EJS_FROM},
    {EJS_SK, 7822, 119, 24721, 107729, 62341, EJS_TO, 65456115, NULL,
     "b87002f86d821e8e778260918301a4d182f38594000000000000000000000000000000"
     "000000aaaa8403e6c7f380c001a0e38e239770801eb995498c821e55ac9c19ae09184b"
     "b27b34be105e02fe3b7615a067c64ca6bd6d9107e85fd581ab2e70a14b637eb36505bb"
     "40861ef9d6e800cab6",
     NULL, EJS_FROM},
};

#define ANVIL0                                                                 \
	"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
#define ANVIL1                                                                 \
	"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
#define ANVIL2                                                                 \
	"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
#define KEY1  "0000000000000000000000000000000000000000000000000000000000000001"
#define ERC20 "5fbdb2315678afecb367f032d93f642f64180aa3"

/* Unwrapped raw transactions from elsewhere. */
static const struct txvec others[] = {
    /* MyEtherWallet's testRealTransaction: 0.1 ether to itself. */
    {"e3046226c9d5f6b7fda49b00123fe96ab2fac359315f27169b5c984059b3540f", 123, 0,
     7, 7, 21000, "61fac28c810253ea3a42ebbb1a5cf8687765e4ee",
     100000000000000000ULL, NULL,
     "02f86a7b8007078252089461fac28c810253ea3a42ebbb1a5cf8687765e4ee8801634"
     "5785d8a000080c001a01f75fb4ae321bb55c0e7569d940ce133e775fb4494500ac6de"
     "9aeb16f45f20d1a05bf9b98c50422e3ada79a6920b1007bc36a1c36d178dbc1b44dfb"
     "d97fc56cf13",
     "be76a9ae424fe7a42da7db0f42db0ced82929710d9c19cfdaa7e18c634e6ae54",
     "61fac28c810253ea3a42ebbb1a5cf8687765e4ee"},
    /* ox: only the hash is published; the raw is cast's for the same
     * fields. */
    {ANVIL0, 1, 665, 1000000000, 13000000000ULL, 21000,
     "70997970c51812dc3a010c7d01b50e0d17dc79c8", 1000000000000000000ULL, NULL,
     "02f87501820299843b9aca00850306dc42008252089470997970c51812dc3a010c7d01"
     "b50e0d17dc79c8880de0b6b3a764000080c080a0acf664dcd984d082b68c434feb66ac"
     "684711babdeefe6f101bf8df88fc367a37a05e0800058a9b5c2250bed60ee969a45b74"
     "45e562a8298c2d222d114e6dfbfcb9",
     "57e6a86fac2dc4b827f6d77d869d625aebf88a71790a740bc859badf556d43c4",
     "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
    /* cast: 1 ether on anvil's chain. */
    {ANVIL0, 31337, 0, 1000000000, 2000000000, 21000,
     "70997970c51812dc3a010c7d01b50e0d17dc79c8", 1000000000000000000ULL, NULL,
     "02f874827a6980843b9aca0084773594008252089470997970c51812dc3a010c7d01b5"
     "0e0d17dc79c8880de0b6b3a764000080c080a074128fd7d42631897474d93692787a2e"
     "56b813754468caaca4993c641c986a37a06d5a3b027177cc2841199b70400fece0a29a"
     "c5eabee2fa9cbf9b6aa213716c48",
     /* keccak256 of the raw bytes, from `cast keccak` */
     "7d4c13ed95c0cee830d7457ec5a5976db1fc301cfa7a23fef0039a7ccf6aea87",
     "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
    /* cast: s is 31 bytes (9f...). */
    {ANVIL1, 31337, 71, 1000000000, 30000000000ULL, 21000,
     "3c44cdddb6a900fa2b585dd299e03d12fa4293bc", 12345678901234567ULL, NULL,
     "02f873827a6947843b9aca008506fc23ac00825208943c44cdddb6a900fa2b585dd299"
     "e03d12fa4293bc872bdc545d6b4b8780c080a0ba9bc314adf5c34e7b7d34c817af4bc0"
     "a10d0fa13a40c0c397c1b26fd3623a469f2a1e57c55130c7c32bbf809e12f368a36f9f"
     "72373487d9fc5263f733de61c4",
     NULL, "70997970c51812dc3a010c7d01b50e0d17dc79c8"},
    /* cast: r is 31 bytes. */
    {ANVIL1, 31337, 397, 1000000000, 30000000000ULL, 21000,
     "3c44cdddb6a900fa2b585dd299e03d12fa4293bc", 12345678901234567ULL, NULL,
     "02f875827a6982018d843b9aca008506fc23ac00825208943c44cdddb6a900fa2b585d"
     "d299e03d12fa4293bc872bdc545d6b4b8780c0809f5c756b21f1360698c02d09d77abb"
     "09898c1246b862c50d1cef832ce57ade17a01ce55b9f15068e8b6b6ffc1453bd2ac468"
     "25ab9a79b599a52913f83f101e4529",
     NULL, "70997970c51812dc3a010c7d01b50e0d17dc79c8"},
    /* cast: every integer zero. */
    {KEY1, 1, 0, 0, 0, 21000, "000000000000000000000000000000000000dead", 0,
     NULL,
     "02f8620180808082520894000000000000000000000000000000000000dead8080c080"
     "a09ec65104d93b7de2d9cf0c3b625694498e8edd60f02e17ec7b940599658acacba021"
     "c8738acb82375b41afe15c54ca1b246d7f6e09975c1a5b13fb210972ec4c9a",
     NULL, "7e5f4552091a69125d5dfcb7b8c2659029395bdf"},
    /* cast: an ERC-20 transfer of 1000000 to anvil's second account. */
    {ANVIL2, 31337, 7, 1500000000, 3000000000ULL, 60000, ERC20, 0,
     "a9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79"
     "c800000000000000000000000000000000000000000000000000000000000f4240",
     "02f8b1827a69078459682f0084b2d05e0082ea60945fbdb2315678afecb367f032d93f"
     "642f64180aa380b844a9059cbb00000000000000000000000070997970c51812dc3a01"
     "0c7d01b50e0d17dc79c800000000000000000000000000000000000000000000000000"
     "000000000f4240c080a0484a8efeb576ec18f28211947a970a4786e7177132b5dfb261"
     "97e0bdab31b662a04f0afcafcdb902ff9f70cc2db090043d6453c0954c7ea24ad9d129"
     "c1d0d5a53f",
     NULL, "3c44cdddb6a900fa2b585dd299e03d12fa4293bc"},
};

/* cast: store(bytes) with the 300 bytes 00..ff 00..2b, value 5: call data
 * of 388 bytes, a list length of two bytes (f9 01 f3). */
static const char store_raw[] =
    "02f901f3827a69088459682f0084b2d05e0083030d40945fbdb2315678afec"
    "b367f032d93f642f64180aa305b90184b374012b000000000000000000000000"
    "0000000000000000000000000000000000000020000000000000000000000000"
    "000000000000000000000000000000000000012c000102030405060708090a0b"
    "0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b"
    "2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b"
    "4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b"
    "6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b"
    "8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaab"
    "acadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacb"
    "cccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaeb"
    "ecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b"
    "0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b"
    "0000000000000000000000000000000000000000c080a0eae284544979bcdafc"
    "94a68aafeefd023a665144aaa5c03e4d642cdbc6295e2fa0023131a36547a2eb"
    "1a6f19c81b6287925c1e6d921650dd8e59921ae1dad44fa1";

/* cast: every field at its maximum (chain id 2^63 - 1, cast's limit). */
static const char max_raw[] =
    "02f8a4887fffffffffffffff88fffffffffffffffe90ffffffffffffffffffffffffff"
    "fffffe90ffffffffffffffffffffffffffffffff8401c9c38094000000000000000000"
    "000000000000000000dead90ffffffffffffffffffffffffffffffff80c001a02519f7"
    "c39fa91a82cf34181832bf14a55e5ce57aade1360b04ea35ef7d22f4b9a0406355b745"
    "8090f9fc2c62b4aabcd90dede2a72583dbddbef3387df08837c878";

static uint8_t vdata[HJ_EIP1559_DATA_MAX];

static void tx_of(const struct txvec *v, hj_eip1559_tx *tx)
{
	memset(tx, 0, sizeof *tx);
	tx->chain_id = v->chain_id;
	tx->nonce = v->nonce;
	tx->max_priority_fee_per_gas = v->tip;
	tx->max_fee_per_gas = v->max_fee;
	tx->gas_limit = v->gas;
	unhex_n(v->to, tx->to, sizeof tx->to);
	tx->value = v->value;
	if (v->data != NULL) {
		tx->data_len = unhex(v->data, vdata, sizeof vdata);
		tx->data = vdata;
	}
}

static void assert_same_tx(const hj_eip1559_tx *a, const hj_eip1559_tx *b)
{
	assert_true(a->chain_id == b->chain_id);
	assert_true(a->nonce == b->nonce);
	assert_true(a->max_priority_fee_per_gas == b->max_priority_fee_per_gas);
	assert_true(a->max_fee_per_gas == b->max_fee_per_gas);
	assert_true(a->gas_limit == b->gas_limit);
	assert_memory_equal(a->to, b->to, sizeof a->to);
	assert_true(a->value == b->value);
	assert_int_equal(a->data_len, b->data_len);
	if (a->data_len > 0)
		assert_memory_equal(a->data, b->data, a->data_len);
}

/*
 * Signs tx with sk and checks: the raw bytes are want's, the hash is
 * keccak256(raw) (and the published one when given), decoding gives back
 * tx, and the signer recovers to from.
 */
static void check_signed(const hj_eip1559_tx *tx, const char *skhex,
                         const uint8_t *want, size_t wantlen, const char *hash,
                         const char *from)
{
	uint8_t sk[32], raw[HJ_EIP1559_RAW_MAX], h[32], k[32], who[20];
	hj_eip1559_tx back;
	size_t n = 0;
	char err[HJ_ERRLEN];

	unhex_n(skhex, sk, sizeof sk);
	err[0] = '\0';
	assert_int_equal(hj_eip1559_sign(ctx, tx, sk, raw, sizeof raw, &n, h,
	                                 err, sizeof err),
	                 0);
	assert_string_equal(err, "");
	assert_int_equal(n, wantlen);
	assert_string_equal(tohex(raw, n), tohex(want, wantlen));
	hj_keccak256(raw, n, k);
	assert_memory_equal(h, k, sizeof h);
	if (hash != NULL)
		assert_hex(h, sizeof h, hash);
	assert_int_equal(
	    hj_eip1559_recover(ctx, raw, n, &back, who, err, sizeof err), 0);
	assert_same_tx(&back, tx);
	assert_hex(who, sizeof who, from);
	/* Without an output for the hash. */
	assert_int_equal(hj_eip1559_sign(ctx, tx, sk, raw, sizeof raw, &n, NULL,
	                                 err, sizeof err),
	                 0);
	assert_int_equal(n, wantlen);
}

static void test_eip1559_ethereumjs(void **state)
{
	uint8_t wrapped[200];
	hj_eip1559_tx tx;
	hj_rlp_item it;
	const uint8_t *p;
	size_t n;
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof ejs / sizeof *ejs; i++) {
		n = unhex(ejs[i].raw, wrapped, sizeof wrapped);
		p = wrapped;
		assert_int_equal(hj_rlp_next(&p, &n, &it, err, sizeof err), 0);
		assert_int_equal(n, 0);
		assert_false(it.is_list);
		tx_of(&ejs[i], &tx);
		check_signed(&tx, ejs[i].sk, it.p, it.len, ejs[i].hash,
		             ejs[i].from);
	}
}

static void test_eip1559_others(void **state)
{
	uint8_t want[HJ_EIP1559_RAW_MAX];
	hj_eip1559_tx tx;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
		n = unhex(others[i].raw, want, sizeof want);
		tx_of(&others[i], &tx);
		check_signed(&tx, others[i].sk, want, n, others[i].hash,
		             others[i].from);
	}
}

/* ox publishes the signing hash too. */
static void test_eip1559_signing_hash(void **state)
{
	uint8_t h[32], buf[HJ_EIP1559_RAW_MAX];
	hj_eip1559_tx tx;
	size_t n;
	char err[HJ_ERRLEN];

	(void)state;
	tx_of(&others[1], &tx);
	assert_int_equal(hj_eip1559_signing_hash(&tx, h, err, sizeof err), 0);
	assert_hex(h, sizeof h,
	           "1d099d1f25465b53e1e56e715e35d5daaaef6a9e9883ba21652eea7f41"
	           "1fffc7");
	/* The bytes behind it: 0x02 and the nine fields. */
	assert_int_equal(hj_eip1559_encode_unsigned(&tx, buf, sizeof buf, &n,
	                                            err, sizeof err),
	                 0);
	assert_hex(buf, n,
	           "02f201820299843b9aca00850306dc42008252089470997970c51812dc"
	           "3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c0");
	/* docs/EVM-SIGNING.md's example (cast's payment): its signing
	 * payload and hash (`cast keccak` of the payload). */
	tx_of(&others[2], &tx);
	assert_int_equal(hj_eip1559_encode_unsigned(&tx, buf, sizeof buf, &n,
	                                            err, sizeof err),
	                 0);
	assert_hex(buf, n,
	           "02f1827a6980843b9aca0084773594008252089470997970c51812dc3a"
	           "010c7d01b50e0d17dc79c8880de0b6b3a764000080c0");
	assert_int_equal(hj_eip1559_signing_hash(&tx, h, err, sizeof err), 0);
	assert_hex(h, sizeof h,
	           "b74b50b3bba4accb52a758871e49bc78918a27c080727efb8b3c8306e4"
	           "6a3edd");
}

static void test_eip1559_store(void **state)
{
	uint8_t want[600];
	hj_eip1559_tx tx;
	size_t n, d = 0;

	(void)state;
	n = unhex(store_raw, want, sizeof want);
	/* The call data, built from the ABI rather than read from the
	 * vector: selector, offset 32, length 300, the bytes, zero padding
	 * to 320. */
	memset(vdata, 0, sizeof vdata);
	d += unhex("b374012b", vdata, 4);
	vdata[d + 31] = 0x20;
	d += 32;
	vdata[d + 30] = 0x01;
	vdata[d + 31] = 0x2c;
	d += 32;
	for (size_t i = 0; i < 300; i++)
		vdata[d + i] = (uint8_t)(i % 256);
	d += 320;
	assert_int_equal(d, 388);
	memset(&tx, 0, sizeof tx);
	tx.chain_id = 31337;
	tx.nonce = 8;
	tx.max_priority_fee_per_gas = 1500000000;
	tx.max_fee_per_gas = 3000000000ULL;
	tx.gas_limit = 200000;
	unhex_n(ERC20, tx.to, sizeof tx.to);
	tx.value = 5;
	tx.data = vdata;
	tx.data_len = d;
	check_signed(&tx, ANVIL2, want, n, NULL,
	             "3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
}

static void test_eip1559_max(void **state)
{
	uint8_t want[200];
	hj_eip1559_tx tx;
	size_t n;

	(void)state;
	n = unhex(max_raw, want, sizeof want);
	memset(&tx, 0, sizeof tx);
	tx.chain_id = INT64_MAX;
	tx.nonce = UINT64_MAX - 1; /* EIP-2681: the last usable nonce */
	tx.max_priority_fee_per_gas = ~(u128)0 - 1;
	tx.max_fee_per_gas = ~(u128)0;
	tx.gas_limit = 30000000;
	unhex_n("000000000000000000000000000000000000dead", tx.to, 20);
	tx.value = ~(u128)0;
	check_signed(&tx, KEY1, want, n, NULL,
	             "7e5f4552091a69125d5dfcb7b8c2659029395bdf");
	/* A full 64-bit chain id encodes too (cast stops at 2^63 - 1). */
	tx.chain_id = UINT64_MAX;
	tx.nonce = UINT64_MAX;
	assert_int_equal(hj_eip1559_encode_signed(&tx, &(hj_eip1559_sig){0},
	                                          want, sizeof want, &n, NULL,
	                                          0),
	                 0);
	assert_hex(want, 22, "02f86488ffffffffffffffff88ffffffffffffffff90");
}

static void test_eip1559_decode_fields(void **state)
{
	uint8_t raw[200];
	hj_eip1559_tx tx;
	hj_eip1559_sig sig;
	size_t n;
	char err[HJ_ERRLEN];

	(void)state;
	n = unhex(others[3].raw, raw, sizeof raw); /* the 31-byte s */
	assert_int_equal(hj_eip1559_decode(raw, n, &tx, &sig, err, sizeof err),
	                 0);
	assert_int_equal(tx.chain_id, 31337);
	assert_int_equal(tx.nonce, 71);
	assert_true(tx.max_priority_fee_per_gas == 1000000000);
	assert_true(tx.max_fee_per_gas == 30000000000ULL);
	assert_int_equal(tx.gas_limit, 21000);
	assert_hex(tx.to, 20, "3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
	assert_true(tx.value == 12345678901234567ULL);
	assert_null(tx.data);
	assert_int_equal(tx.data_len, 0);
	assert_int_equal(sig.y_parity, 0);
	assert_hex(sig.r, 32,
	           "ba9bc314adf5c34e7b7d34c817af4bc0a10d0fa13a40c0c397c1b26fd3"
	           "623a46");
	assert_hex(sig.s, 32,
	           "002a1e57c55130c7c32bbf809e12f368a36f9f72373487d9fc5263f733"
	           "de61c4");
	/* tx and sig may be NULL. */
	assert_int_equal(hj_eip1559_decode(raw, n, NULL, NULL, err, sizeof err),
	                 0);
	/* Re-encoding the decoded signature gives the same bytes. */
	{
		uint8_t again[200];
		size_t m;

		assert_int_equal(hj_eip1559_encode_signed(&tx, &sig, again,
		                                          sizeof again, &m, err,
		                                          sizeof err),
		                 0);
		assert_int_equal(m, n);
		assert_memory_equal(again, raw, n);
	}
}

static void test_eip1559_sign_refusals(void **state)
{
	uint8_t sk[32], raw[HJ_EIP1559_RAW_MAX + 64],
	    big[HJ_EIP1559_DATA_MAX + 1];
	hj_eip1559_tx tx;
	hj_eip1559_sig sig;
	size_t n = 777, need;
	char err[HJ_ERRLEN], msg[100];

	(void)state;
	unhex_n(ANVIL0, sk, sizeof sk);
	tx_of(&others[2], &tx);

	tx.max_priority_fee_per_gas = tx.max_fee_per_gas + 1;
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "EIP-1559 transaction: "
	                         "max_priority_fee_per_gas is above "
	                         "max_fee_per_gas");
	tx.max_priority_fee_per_gas = tx.max_fee_per_gas; /* equal is fine */
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 0);

	memset(big, 0xab, sizeof big);
	tx.data = big;
	tx.data_len = sizeof big;
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(err, "EIP-1559 transaction: 4097 bytes of call "
	                         "data, at most 4096 allowed");
	tx.data = NULL;
	tx.data_len = 1;
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(
	    err, "EIP-1559 transaction: no call data for data_len 1");

	/* The longest transaction fits in HJ_EIP1559_RAW_MAX. */
	tx.data = big;
	tx.data_len = HJ_EIP1559_DATA_MAX;
	tx.chain_id = tx.nonce = tx.gas_limit = UINT64_MAX;
	tx.max_priority_fee_per_gas = tx.max_fee_per_gas = tx.value = ~(u128)0;
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, HJ_EIP1559_RAW_MAX,
	                                 &need, NULL, err, sizeof err),
	                 0);
	assert_true(need <= HJ_EIP1559_RAW_MAX);

	/* Every capacity below what a transaction needs: -ENOSPC and no
	 * byte written past it. */
	tx_of(&others[6], &tx); /* the ERC-20 transfer */
	unhex_n(ANVIL2, sk, sizeof sk);
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &need,
	                                 NULL, err, sizeof err),
	                 0);
	for (size_t cap = 0; cap < need; cap++) {
		memset(raw, 0x5a, sizeof raw);
		n = 777;
		assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, cap, &n,
		                                 NULL, err, sizeof err),
		                 -ENOSPC);
		assert_int_equal(n, 777);
		for (size_t i = cap; i < sizeof raw; i++)
			assert_int_equal(raw[i], 0x5a);
	}
	assert_int_equal(need, strlen(others[6].raw) / 2);
	snprintf(msg, sizeof msg,
	         "EIP-1559 transaction: does not fit in %zu bytes", need - 1);
	assert_string_equal(err, msg);

	/* Invalid secret keys. */
	memset(sk, 0, sizeof sk);
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(
	    err, "secret key is zero or not below the secp256k1 group order");
	unhex_n(
	    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
	    sk, sizeof sk);
	assert_int_equal(hj_eip1559_sign(ctx, &tx, sk, raw, sizeof raw, &n,
	                                 NULL, err, sizeof err),
	                 -EINVAL);

	/* encode_signed refuses a y_parity other than 0 or 1. */
	memset(&sig, 0, sizeof sig);
	sig.y_parity = 2;
	assert_int_equal(hj_eip1559_encode_signed(&tx, &sig, raw, sizeof raw,
	                                          &n, err, sizeof err),
	                 -EINVAL);
	assert_string_equal(
	    err, "EIP-1559 transaction: y_parity 2, expected 0 or 1");
}

struct bad_tx {
	const char *hex;
	const char *why;
};

/* The plain cast payment (others[2]), taken apart. */
#define P_FIELDS "827a6980843b9aca008477359400825208"
#define P_TO     "9470997970c51812dc3a010c7d01b50e0d17dc79c8"
#define P_VALUE  "880de0b6b3a7640000"
#define P_DATA   "80"
#define P_AL     "c0"
#define P_Y      "80"
#define P_R      "a074128fd7d42631897474d93692787a2e56b813754468caaca4993c641c986a37"
#define P_S      "a06d5a3b027177cc2841199b70400fece0a29ac5eabee2fa9cbf9b6aa213716c48"
#define P_ALL    P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y P_R P_S

/* Writes 0x02, a list header for n payload bytes and the payload hex into
 * raw; returns the length. */
static size_t typed(const char *payload, uint8_t *raw, size_t cap)
{
	uint8_t body[300];
	size_t n = unhex(payload, body, sizeof body), h;

	raw[0] = 0x02;
	if (n <= 55) {
		raw[1] = (uint8_t)(0xc0 + n);
		h = 2;
	} else if (n <= 255) {
		raw[1] = 0xf8;
		raw[2] = (uint8_t)n;
		h = 3;
	} else {
		raw[1] = 0xf9;
		raw[2] = (uint8_t)(n >> 8);
		raw[3] = (uint8_t)n;
		h = 4;
	}
	assert_true(h + n <= cap);
	memcpy(raw + h, body, n);
	return h + n;
}

static void test_eip1559_decode_refusals(void **state)
{
	/* Whole transactions. */
	static const struct bad_tx bad_raw[] = {
	    {"", "EIP-1559 transaction: empty"},
	    {"01c0", "EIP-1559 transaction: the type byte is not 0x02"},
	    {"f874", "EIP-1559 transaction: the type byte is not 0x02"},
	    {"02", "EIP-1559 transaction: RLP: an item was expected, the "
	           "input ended"},
	    {"0280", "EIP-1559 transaction: not a list after the type byte"},
	    {"02c000", "EIP-1559 transaction: bytes after the list"},
	    {"02f874" P_ALL "00", "EIP-1559 transaction: bytes after the list"},
	    {"02f875" P_ALL,
	     "EIP-1559 transaction: RLP: an item of 117 bytes runs past the "
	     "end (116 left)"},
	};
	/* List payloads, put behind 0x02 and a correct list header. */
	static const struct bad_tx bad_items[] = {
	    {"", "EIP-1559 transaction: the list ends before chain_id"},
	    {"827a69", "EIP-1559 transaction: the list ends before nonce"},
	    {"827a69c0",
	     "EIP-1559 transaction: nonce: a list, expected an integer"},
	    {"827a69820001",
	     "EIP-1559 transaction: nonce: integer with a leading zero byte"},
	    {"827a6989010000000000000000",
	     "EIP-1559 transaction: nonce: integer of 9 bytes, at most 8 "
	     "allowed"},
	    {"827a6983ffff", "EIP-1559 transaction: nonce: RLP: an item of 3 "
	                     "bytes runs past the end (2 left)"},
	    {"827a698100",
	     "EIP-1559 transaction: nonce: RLP: byte 0x00 wrapped as a "
	     "one-byte string"},
	    {"827a6980910100000000000000000000000000000000",
	     "EIP-1559 transaction: max_priority_fee_per_gas: integer of 17 "
	     "bytes, at most 16 allowed"},
	    {P_FIELDS "80" P_VALUE,
	     "EIP-1559 transaction: to: empty (a contract creation), not "
	     "supported"},
	    {P_FIELDS "9370997970c51812dc3a010c7d01b50e0d17dc79",
	     "EIP-1559 transaction: to: not a 20-byte address"},
	    {P_FIELDS "c0", "EIP-1559 transaction: to: not a 20-byte address"},
	    {P_FIELDS P_TO "910100000000000000000000000000000000",
	     "EIP-1559 transaction: value: integer of 17 bytes, at most 16 "
	     "allowed"},
	    {P_FIELDS P_TO P_VALUE "c0",
	     "EIP-1559 transaction: data: a list, expected bytes"},
	    {P_FIELDS P_TO P_VALUE P_DATA,
	     "EIP-1559 transaction: the list ends before access_list"},
	    {P_FIELDS P_TO P_VALUE P_DATA "80",
	     "EIP-1559 transaction: access_list: not a list"},
	    {P_FIELDS P_TO P_VALUE P_DATA
	     "d8d79470997970c51812dc3a010c7d01b50e0d17dc79c8c180",
	     "EIP-1559 transaction: access_list: not empty, not supported"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL,
	     "EIP-1559 transaction: the list ends before y_parity"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL "02",
	     "EIP-1559 transaction: y_parity 2, expected 0 or 1"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y,
	     "EIP-1559 transaction: the list ends before r"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y P_R,
	     "EIP-1559 transaction: the list ends before s"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y
	     "a10074128fd7d42631897474d93692787a2e56b813754468caaca4993c641c9"
	     "86a37" P_S,
	     "EIP-1559 transaction: r: not an integer of at most 32 bytes "
	     "without leading zeros"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y
	     "a1ff74128fd7d42631897474d93692787a2e56b813754468caaca4993c641c9"
	     "86a37" P_S,
	     "EIP-1559 transaction: r: not an integer of at most 32 bytes "
	     "without leading zeros"},
	    {P_FIELDS P_TO P_VALUE P_DATA P_AL P_Y P_R "c0",
	     "EIP-1559 transaction: s: not an integer of at most 32 bytes "
	     "without leading zeros"},
	    {P_ALL "80", "EIP-1559 transaction: more than twelve items in the "
	                 "list"},
	};
	uint8_t raw[300];
	hj_eip1559_tx tx;
	size_t n;
	char err[HJ_ERRLEN];
	int rc;

	(void)state;
	/* The pieces put together are the valid transaction. */
	n = typed(P_ALL, raw, sizeof raw);
	assert_string_equal(tohex(raw, n), others[2].raw);
	assert_int_equal(hj_eip1559_decode(raw, n, &tx, NULL, err, sizeof err),
	                 0);
	for (size_t i = 0; i < sizeof bad_raw / sizeof *bad_raw; i++) {
		n = unhex(bad_raw[i].hex, raw, sizeof raw);
		rc = hj_eip1559_decode(raw, n, &tx, NULL, err, sizeof err);
		if (rc != -EINVAL)
			fail_msg("raw vector %zu: %d", i, rc);
		assert_string_equal(err, bad_raw[i].why);
	}
	/* Call data one byte longer than the encoder allows. */
	{
		static uint8_t big[HJ_EIP1559_DATA_MAX + 200],
		    data[HJ_EIP1559_DATA_MAX + 1];
		uint8_t to[20] = {0};
		hj_rlp r;

		big[0] = 0x02;
		hj_rlp_init(&r, big + 1, sizeof big - 1);
		hj_rlp_list_begin(&r);
		hj_rlp_u64(&r, 1);
		hj_rlp_u64(&r, 0);
		hj_rlp_u64(&r, 0);
		hj_rlp_u64(&r, 0);
		hj_rlp_u64(&r, 21000);
		hj_rlp_bytes(&r, to, sizeof to);
		hj_rlp_u64(&r, 0);
		hj_rlp_bytes(&r, data, sizeof data);
		hj_rlp_list_end(&r);
		assert_int_equal(hj_rlp_finish(&r, &n), 0);
		assert_int_equal(
		    hj_eip1559_decode(big, 1 + n, &tx, NULL, err, sizeof err),
		    -EINVAL);
		assert_string_equal(err, "EIP-1559 transaction: data: 4097 "
		                         "bytes, at most 4096 allowed");
	}
	for (size_t i = 0; i < sizeof bad_items / sizeof *bad_items; i++) {
		n = typed(bad_items[i].hex, raw, sizeof raw);
		rc = hj_eip1559_decode(raw, n, &tx, NULL, err, sizeof err);
		if (rc != -EINVAL && rc != -ERANGE)
			fail_msg("item vector %zu: %d", i, rc);
		assert_string_equal(err, bad_items[i].why);
	}
}

/* r, s and y_parity as a node checks them: EIP-2's low s, the group order,
 * and a recoverable key. */
static void test_eip1559_signature_refusals(void **state)
{
	/* n, the group order */
	static const uint8_t order[32] = {
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48,
	    0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
	};
	uint8_t raw[200], out[200], from[20];
	hj_eip1559_tx tx;
	hj_eip1559_sig sig, bad;
	size_t n, m;
	char err[HJ_ERRLEN];
	int borrow = 0;

	(void)state;
	n = unhex(others[2].raw, raw, sizeof raw);
	assert_int_equal(hj_eip1559_decode(raw, n, &tx, &sig, err, sizeof err),
	                 0);

	/* (r, n - s) with the other parity is the same signature with a high
	 * s: valid ECDSA, refused by EIP-2. */
	bad = sig;
	for (int i = 31; i >= 0; i--) {
		int d = order[i] - sig.s[i] - borrow;

		borrow = d < 0;
		bad.s[i] = (uint8_t)(d + (borrow ? 256 : 0));
	}
	bad.y_parity ^= 1;
	assert_int_equal(hj_eip1559_encode_signed(&tx, &bad, out, sizeof out,
	                                          &m, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_eip1559_recover(ctx, out, m, NULL, from, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "EIP-1559 transaction: s is in the upper half "
	                         "of the group order (EIP-2)");

	/* r = n */
	bad = sig;
	memcpy(bad.r, order, 32);
	assert_int_equal(hj_eip1559_encode_signed(&tx, &bad, out, sizeof out,
	                                          &m, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_eip1559_recover(ctx, out, m, NULL, from, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "EIP-1559 transaction: r or s is not below "
	                         "the secp256k1 group order");

	/* r = 0 */
	bad = sig;
	memset(bad.r, 0, 32);
	assert_int_equal(hj_eip1559_encode_signed(&tx, &bad, out, sizeof out,
	                                          &m, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_eip1559_recover(ctx, out, m, NULL, from, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "EIP-1559 transaction: no public key recovers "
	                         "from the signature");

	/* The other parity recovers someone else. */
	bad = sig;
	bad.y_parity ^= 1;
	assert_int_equal(hj_eip1559_encode_signed(&tx, &bad, out, sizeof out,
	                                          &m, err, sizeof err),
	                 0);
	assert_int_equal(
	    hj_eip1559_recover(ctx, out, m, NULL, from, err, sizeof err), 0);
	assert_false(memcmp(from, "\xf3\x9f\xd6\xe5", 4) == 0);
}

/*
 * No change to a signed transaction keeps both its fields and its sender:
 * every truncation and every single-bit flip either fails to decode or
 * recovers other fields or another address.
 */
static void test_eip1559_mutations(void **state)
{
	uint8_t raw[200], m[200], from[20], self[20];
	hj_eip1559_tx tx, back;
	size_t n;
	char err[HJ_ERRLEN];

	(void)state;
	n = unhex(others[6].raw, raw, sizeof raw); /* carries data */
	assert_int_equal(
	    hj_eip1559_recover(ctx, raw, n, &tx, self, err, sizeof err), 0);
	for (size_t len = 0; len < n; len++) {
		memcpy(m, raw, len);
		assert_int_not_equal(hj_eip1559_recover(ctx, m, len, &back,
		                                        from, err, sizeof err),
		                     0);
	}
	for (size_t i = 0; i < n; i++) {
		for (int bit = 0; bit < 8; bit++) {
			int rc;

			memcpy(m, raw, n);
			m[i] ^= (uint8_t)(1u << bit);
			rc = hj_eip1559_recover(ctx, m, n, &back, from, err,
			                        sizeof err);
			if (rc != 0)
				continue;
			if (memcmp(from, self, sizeof self) != 0)
				continue;
			/* Same sender: the fields must differ. */
			assert_false(
			    back.chain_id == tx.chain_id &&
			    back.nonce == tx.nonce &&
			    back.max_priority_fee_per_gas ==
			        tx.max_priority_fee_per_gas &&
			    back.max_fee_per_gas == tx.max_fee_per_gas &&
			    back.gas_limit == tx.gas_limit &&
			    memcmp(back.to, tx.to, 20) == 0 &&
			    back.value == tx.value &&
			    back.data_len == tx.data_len &&
			    memcmp(back.data, tx.data, tx.data_len) == 0);
		}
	}
}

/* ------------------------------------------------------------------ */

static int setup(void **state)
{
	char err[HJ_ERRLEN];

	(void)state;
	if (hj_secp_new(&ctx, err, sizeof(err)) != 0) {
		fprintf(stderr, "hj_secp_new: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hj_secp_free(ctx);
	ctx = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keccak_vectors),
	    cmocka_unit_test(test_keccak_pieces),
	    cmocka_unit_test(test_keccak_long),
	    cmocka_unit_test(test_keccak_extreme),
	    cmocka_unit_test(test_rlp_strings),
	    cmocka_unit_test(test_rlp_integers),
	    cmocka_unit_test(test_rlp_lists),
	    cmocka_unit_test(test_rlp_bounded),
	    cmocka_unit_test(test_rlp_misuse),
	    cmocka_unit_test(test_rlp_decode_roundtrip),
	    cmocka_unit_test(test_rlp_decode_refusals),
	    cmocka_unit_test(test_rlp_get_int),
	    cmocka_unit_test(test_evm_addresses),
	    cmocka_unit_test(test_eip1559_ethereumjs),
	    cmocka_unit_test(test_eip1559_others),
	    cmocka_unit_test(test_eip1559_signing_hash),
	    cmocka_unit_test(test_eip1559_store),
	    cmocka_unit_test(test_eip1559_max),
	    cmocka_unit_test(test_eip1559_decode_fields),
	    cmocka_unit_test(test_eip1559_sign_refusals),
	    cmocka_unit_test(test_eip1559_decode_refusals),
	    cmocka_unit_test(test_eip1559_signature_refusals),
	    cmocka_unit_test(test_eip1559_mutations),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
