/*
 * The dealer's seed chains (daemon/seedchain.h): the file's text, both
 * ways and every refusal; a chain created, reopened and revealed in any
 * order against a plain walk; what opening refuses (a missing file, a
 * mode others may read, a file whose seed is not the commitment's, a
 * length the Commit does not say).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hex.h"
#include "say.h"
#include "seedchain.h"
#include "sha256.h"

static char dir[] = "/tmp/hj-test-seedchain-XXXXXX";

#define HEAD "# hashjack seed chain: secret, keep it private and backed up\n"
#define SEED "f463bc65aaecac661915776ca62b2068e09e61d7ea006e7c8e444fa778eb31d8"

static void test_parse(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"", "the first line is not"},
	    {"# hashjack seed chain\nlength 8\nseed " SEED "\n",
	     "the first line is not"},
	    {HEAD "length 08\nseed " SEED "\n", "the length is not a number"},
	    {HEAD "length 0\nseed " SEED "\n", "the length is not a number"},
	    {HEAD "length 100000001\nseed " SEED "\n",
	     "the length is not a number"},
	    {HEAD "length 99999999999999999999999\nseed " SEED "\n",
	     "the length is not a number"},
	    {HEAD "length -1\nseed " SEED "\n", "the length is not a number"},
	    {HEAD "length\nseed " SEED "\n", "the second line is not"},
	    {HEAD "length 8\nseed " SEED, "the third line is not"},
	    {HEAD "length 8\nseed " SEED "\n\n", "the third line is not"},
	    {HEAD "length 8\nSeed " SEED "\n", "the third line is not"},
	    {HEAD
	     "length 8\nseed "
	     "F463bc65aaecac661915776ca62b2068e09e61d7ea006e7c8e444fa778eb31"
	     "d8\n",
	     "the seed is not 64 lower-case hex digits"},
	    {HEAD
	     "length 8\nseed "
	     "f463bc65aaecac661915776ca62b2068e09e61d7ea006e7c8e444fa778eb31"
	     "d\n",
	     "the third line is not"},
	};
	char text[HJD_SEEDFILE_TEXT], err[HJ_ERRLEN];
	uint8_t seed[32], want[32];
	uint32_t len;
	size_t n;

	(void)state;
	n = hjd_seedfile_format(
	    8, (const uint8_t *)"0123456789abcdef0123456789abcdef", text);
	assert_int_equal(
	    hjd_seedfile_parse(text, n, &len, seed, err, sizeof err), 0);
	assert_int_equal(len, 8);
	assert_memory_equal(seed, "0123456789abcdef0123456789abcdef", 32);
	snprintf(text, sizeof text, "%s",
	         HEAD "length 100000000\nseed " SEED "\n");
	assert_int_equal(
	    hjd_seedfile_parse(text, strlen(text), &len, seed, err, sizeof err),
	    0);
	assert_int_equal(len, 100000000);
	hj_hex_decode_exact(SEED, 64, HJ_HEX_BARE, want, 32, NULL, 0);
	assert_memory_equal(seed, want, 32);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		assert_int_equal(hjd_seedfile_parse(bad[i].text,
		                                    strlen(bad[i].text), &len,
		                                    seed, err, sizeof err),
		                 -EINVAL);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err,
			         bad[i].why);
		/* Never the seed in a message. */
		assert_null(strstr(err, "f463bc65"));
	}
}

/* Every seed of chains of several lengths, in order, backwards and at
 * random, against a plain walk from s_L. */
static void test_reveal(void **state)
{
	static const uint32_t lens[] = {1, 2, 3, 4, 10, 17, 100, 1000};
	char err[HJ_ERRLEN];

	(void)state;
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		uint32_t L = lens[k];
		uint8_t c[32], s[32], (*all)[32] = calloc(L + 1, 32);
		hjd_seedchain *sc;
		char path[256], text[HJD_SEEDFILE_TEXT];
		uint32_t len;
		FILE *f;
		size_t n;

		assert_non_null(all);
		if (hjd_seedchain_create(dir, L, c, err, sizeof err))
			fail_msg("create: %s", err);
		/* The file: s_L, and the plain walk from it. */
		hj_hex_encode(c, 32, 0, text);
		snprintf(path, sizeof path, "%s/seeds/%s", dir, text);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(text, 1, sizeof text, f);
		fclose(f);
		assert_int_equal(
		    hjd_seedfile_parse(text, n, &len, all[L], err, sizeof err),
		    0);
		assert_int_equal(len, L);
		for (uint32_t i = L; i > 0; i--)
			hj_seed_prev(all[i], all[i - 1]);
		assert_memory_equal(all[0], c, 32);
		if (hjd_seedchain_open(dir, c, L, &sc, err, sizeof err))
			fail_msg("open: %s", err);
		assert_memory_equal(hjd_seedchain_commitment(sc), c, 32);
		assert_int_equal(hjd_seedchain_length(sc), L);
		for (uint32_t i = 1; i <= L; i++) {
			assert_int_equal(hjd_seedchain_reveal(sc, i, s), 0);
			assert_memory_equal(s, all[i], 32);
		}
		for (uint32_t i = L; i >= 1; i--) {
			assert_int_equal(hjd_seedchain_reveal(sc, i, s), 0);
			assert_memory_equal(s, all[i], 32);
		}
		for (uint32_t t = 0; t < 50; t++) {
			uint32_t i = 1 + (uint32_t)rand() % L;

			assert_int_equal(hjd_seedchain_reveal(sc, i, s), 0);
			assert_memory_equal(s, all[i], 32);
		}
		assert_int_equal(hjd_seedchain_reveal(sc, 0, s), -EINVAL);
		assert_int_equal(hjd_seedchain_reveal(sc, L + 1, s), -EINVAL);
		hjd_seedchain_free(sc);
		free(all);
	}
}

static void test_open_refusals(void **state)
{
	char err[HJ_ERRLEN], path[256], hex[65], text[HJD_SEEDFILE_TEXT];
	uint8_t c[32], other[32];
	hjd_seedchain *sc;
	struct stat st;
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(hjd_seedchain_create(dir, 5, c, err, sizeof err), 0);
	hj_hex_encode(c, 32, 0, hex);
	snprintf(path, sizeof path, "%s/seeds/%s", dir, hex);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(text, sizeof text, "%s/seeds", dir);
	assert_int_equal(stat(text, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* The Commit says another length. */
	assert_int_equal(hjd_seedchain_open(dir, c, 6, &sc, err, sizeof err),
	                 -EINVAL);
	assert_null(sc);
	assert_non_null(strstr(err, "holds 5 seeds, the chain committed on "
	                            "chain 6"));
	/* Others may read it. */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(hjd_seedchain_open(dir, c, 5, &sc, err, sizeof err),
	                 -EPERM);
	assert_non_null(strstr(err, "chmod 600"));
	assert_int_equal(chmod(path, 0600), 0);
	/* No file for that commitment: lost. */
	memset(other, 0x5a, sizeof other);
	assert_int_equal(
	    hjd_seedchain_open(dir, other, 5, &sc, err, sizeof err), -ENOENT);
	/* A file under another chain's name. */
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof text, f);
	fclose(f);
	hj_hex_encode(other, 32, 0, hex);
	snprintf(path, sizeof path, "%s/seeds/%s", dir, hex);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(
	    hjd_seedchain_open(dir, other, 5, &sc, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "does not hash down to the commitment"));
	assert_int_equal(hjd_seedchain_create(dir, 0, c, err, sizeof err),
	                 -EINVAL);
}

/* The checkpoints' cache: written with the chain (0600), used at the next
 * open; a damaged or missing one is walked around and written again, the
 * seeds the same. */
static void test_marks(void **state)
{
	char err[HJ_ERRLEN], path[256], hex[65];
	uint8_t c[32], a[32], b[32], before[4096], after[4096];
	hjd_seedchain *sc;
	struct stat st;
	size_t n1, n2;
	FILE *f;

	(void)state;
	assert_int_equal(hjd_seedchain_create(dir, 1000, c, err, sizeof err),
	                 0);
	hj_hex_encode(c, 32, 0, hex);
	snprintf(path, sizeof path, "%s/seeds/%s.marks", dir, hex);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* 8 + 8, 32 marks of a 1000-seed chain (k = 32), the digest. */
	assert_int_equal(st.st_size, 16 + 32 * 32 + 32);
	f = fopen(path, "rb");
	assert_non_null(f);
	n1 = fread(before, 1, sizeof before, f);
	fclose(f);
	assert_int_equal(hjd_seedchain_open(dir, c, 1000, &sc, err, sizeof err),
	                 0);
	assert_int_equal(hjd_seedchain_reveal(sc, 777, a), 0);
	hjd_seedchain_free(sc);
	/* A byte of a mark changed: the digest says so, the chain is walked,
	 * the file written again as it was. */
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 16 + 5 * 32 + 3, SEEK_SET), 0);
	fputc(before[16 + 5 * 32 + 3] ^ 1, f);
	fclose(f);
	assert_int_equal(hjd_seedchain_open(dir, c, 1000, &sc, err, sizeof err),
	                 0);
	assert_int_equal(hjd_seedchain_reveal(sc, 777, b), 0);
	assert_memory_equal(a, b, 32);
	hjd_seedchain_free(sc);
	f = fopen(path, "rb");
	assert_non_null(f);
	n2 = fread(after, 1, sizeof after, f);
	fclose(f);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	/* Missing: the same. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hjd_seedchain_open(dir, c, 1000, &sc, err, sizeof err),
	                 0);
	assert_int_equal(hjd_seedchain_reveal(sc, 777, b), 0);
	assert_memory_equal(a, b, 32);
	hjd_seedchain_free(sc);
	assert_int_equal(stat(path, &st), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_reveal),
	    cmocka_unit_test(test_open_refusals),
	    cmocka_unit_test(test_marks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
