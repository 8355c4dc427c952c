/*
 * The EVM dealer's key file (daemon/dealer_key.h, hjd_dealer_key_read): the
 * input is the file's contents, written to a 0600 file in a private
 * directory made once, then read by its path and as the systemd credential
 * of that name ($CREDENTIALS_DIRECTORY is the directory).
 *
 * The file is accepted exactly when it holds 64 hex digits, optionally
 * behind "0x" and followed by one newline, of a valid secp256k1 secret key
 * (nonzero, below the group order), and then gives those bytes; both ways
 * of naming it agree.  A refusal has a message that never quotes the
 * file's hex, and leaves sk wiped.  An accepted key in a file that group
 * may read is refused (-EPERM) and wiped too.
 *
 * The same file as an encrypted wallet's passphrase (daemon/wallet_pass.h,
 * hjd_wallet_pass_read): accepted exactly when, without one final newline,
 * it is 1 to 1024 bytes of UTF-8 (RFC 3629, checked here apart) with no
 * NUL, and then gives those bytes; a refusal leaves the buffer wiped and
 * never quotes the passphrase.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btcsig.h"
#include "dealer_key.h"
#include "say.h"
#include "wallet_pass.h"

#define FILE_NAME "key"

static hj_secp *ctx;
static char dir[512], path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv);

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char why[HJ_ERRLEN];

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof dir, "%s/hj-fuzz-dealer-key.XXXXXX",
	         tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("fuzz_dealer_key: mkdtemp");
		abort();
	}
	snprintf(path, sizeof path, "%s/" FILE_NAME, dir);
	atexit(cleanup);
	/* A bare name is a credential in $CREDENTIALS_DIRECTORY. */
	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	if (hj_secp_new(&ctx, why, sizeof why) != 0) {
		fprintf(stderr, "fuzz_dealer_key: %s\n", why);
		abort();
	}
	return 0;
}

/*
 * Written over the last input, then cut to its length: ext4 flushes a file
 * truncated to zero and written again (auto_da_alloc), which made each run
 * take milliseconds.
 */
static void write_key(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	size_t at = 0;

	FUZZ_CHECK(fd >= 0 && fchmod(fd, 0600) == 0);
	while (at < size) {
		ssize_t w = pwrite(fd, data + at, size - at, (off_t)at);

		FUZZ_CHECK(w > 0);
		at += (size_t)w;
	}
	FUZZ_CHECK(ftruncate(fd, (off_t)size) == 0 && close(fd) == 0);
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The file format, read here apart from the reader: the key, or 0. */
static int format_ok(const uint8_t *d, size_t size, uint8_t sk[32])
{
	size_t n = size, off = 0;

	if (size == 0 || size > 67)
		return 0;
	if (d[n - 1] == '\n')
		n--;
	if (n >= 2 && d[0] == '0' && d[1] == 'x')
		off = 2;
	if (n - off != 64)
		return 0;
	for (size_t i = 0; i < 32; i++) {
		int hi = hexval(d[off + 2 * i]),
		    lo = hexval(d[off + 2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 0;
		sk[i] = (uint8_t)(hi << 4 | lo);
	}
	return 1;
}

static int all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/* No run of 16 hex digits of the file in a message (nor in the path,
 * where it could come from). */
static void no_quote(const uint8_t *d, size_t size, const char *err)
{
	size_t run = 0;

	for (size_t i = 0; i < size; i++) {
		run = hexval(d[i]) >= 0 ? run + 1 : 0;
		if (run < 16)
			continue;
		FUZZ_CHECK(memmem(err, strlen(err), d + i - 15, 16) == NULL ||
		           memmem(path, strlen(path), d + i - 15, 16) != NULL);
	}
}

static int read_key(const char *source, uint8_t sk[32], char *err, size_t n)
{
	memset(sk, 0xa5, 32);
	err[0] = '\0';
	return hjd_dealer_key_read(ctx, source, sk, err, n);
}

/* RFC 3629 UTF-8: no overlong form, no surrogate, nothing past U+10FFFF. */
static int utf8_ok(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t k;
		uint32_t cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			k = 1, cp = c & 0x1f, min = 0x80;
		else if ((c & 0xf0) == 0xe0)
			k = 2, cp = c & 0x0f, min = 0x800;
		else if ((c & 0xf8) == 0xf0)
			k = 3, cp = c & 0x07, min = 0x10000;
		else
			return 0;
		if (i + k >= n)
			return 0;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += k + 1;
	}
	return 1;
}

static void check_pass(const uint8_t *data, size_t size)
{
	char pass[HJD_WALLET_PASS_MAX + 1], err[HJ_ERRLEN];
	size_t n = size > 0 && data[size - 1] == '\n' ? size - 1 : size;
	int ok = n >= 1 && n <= HJD_WALLET_PASS_MAX &&
	         memchr(data, '\0', n) == NULL && utf8_ok(data, n);
	int rc;

	memset(pass, 'x', sizeof pass);
	err[0] = '\0';
	rc = hjd_wallet_pass_read(path, pass, err, sizeof err);
	if (ok) {
		FUZZ_CHECK(rc == 0 && memcmp(pass, data, n) == 0 &&
		           pass[n] == '\0');
		return;
	}
	FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
	FUZZ_CHECK(all_zero((const uint8_t *)pass, sizeof pass));
	if (n >= 8 && memchr(data, '\0', n) == NULL)
		FUZZ_CHECK(memmem(err, strlen(err), data, n) == NULL ||
		           memmem(path, strlen(path), data, n) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t want[32], sk[32], sk2[32], pk[HJ_XONLY_LEN];
	char err[HJ_ERRLEN], err2[1024];
	int ok, rc;

	ok = format_ok(data, size, want) && !all_zero(want, 32) &&
	     hj_btc_pubkey(ctx, want, pk, NULL, 0) == 0;
	write_key(data, size);
	check_pass(data, size);
	rc = read_key(path, sk, err, sizeof err);
	FUZZ_CHECK(read_key(FILE_NAME, sk2, err2, sizeof err2) == rc);
	if (!ok) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(err[0] != '\0' && strstr(err2, "credential"));
		FUZZ_CHECK(all_zero(sk, 32) && all_zero(sk2, 32));
		no_quote(data, size, err);
		no_quote(data, size, err2);
		return 0;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(memcmp(sk, want, 32) == 0 && memcmp(sk2, want, 32) == 0);

	/* The same key, readable by the file's group. */
	FUZZ_CHECK(chmod(path, 0640) == 0);
	FUZZ_CHECK(read_key(path, sk, err, sizeof err) == -EPERM);
	FUZZ_CHECK(all_zero(sk, 32) && strstr(err, "chmod 600") != NULL);
	FUZZ_CHECK(read_key(FILE_NAME, sk, err, sizeof err) == -EPERM);
	FUZZ_CHECK(all_zero(sk, 32));
	no_quote(data, size, err);
	return 0;
}
