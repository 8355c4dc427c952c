/* Secret key files: the file, the player's text and the dealer's (see
 * keyfile.h). */
#include "keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/posix_acl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "hex.h"
#include "quote.h"
#include "say.h"

static int failed(hj_keyfile_fault *f, hj_keyfile_step step, int rc)
{
	f->step = step;
	return rc;
}

/* ---- the file ---- */

/*
 * Whether fd's POSIX access ACL grants nothing to anyone but the file's
 * owner and this process's user (HJ_KEYFILE_ACL_OK).  0 when no ACL or an
 * unreadable one.
 */
static int acl_private(int fd)
{
	uint8_t buf[4 + 8 * 32];
	ssize_t n = fgetxattr(fd, "system.posix_acl_access", buf, sizeof buf);
	uid_t me = geteuid();

	/* Little-endian: a u32 version 2, then entries of u16 tag, u16
	 * permissions, u32 id (linux/posix_acl_xattr.h). */
	if (n < 4 || (n - 4) % 8 != 0 ||
	    (buf[0] | buf[1] << 8 | buf[2] << 16 | (uint32_t)buf[3] << 24) != 2)
		return 0;
	for (ssize_t i = 4; i < n; i += 8) {
		unsigned tag = buf[i] | buf[i + 1] << 8;
		unsigned perm = buf[i + 2] | buf[i + 3] << 8;
		uint32_t id = buf[i + 4] | buf[i + 5] << 8 | buf[i + 6] << 16 |
		              (uint32_t)buf[i + 7] << 24;

		switch (tag) {
		case ACL_USER_OBJ:
		case ACL_MASK:
			break;
		case ACL_USER:
			if (perm != 0 && id != (uint32_t)me)
				return 0;
			break;
		case ACL_GROUP_OBJ:
		case ACL_GROUP:
		case ACL_OTHER:
			if (perm != 0)
				return 0;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* The open file's type and mode.  Returns 0, or -errno, -EINVAL or
 * -EPERM with f and err. */
static int check_file(int fd, const char *path, const char *name,
                      unsigned flags, hj_keyfile_fault *f, char *err,
                      size_t errlen)
{
	struct stat st;
	char fix[4200];
	unsigned mode;

	if (fstat(fd, &st) != 0) {
		int e = errno;

		hj_say(err, errlen, "cannot stat %s: %s", name, strerror(e));
		return failed(f, HJ_KEYFILE_STAT, -e);
	}
	f->mode = (unsigned)st.st_mode;
	if (!S_ISREG(st.st_mode)) {
		hj_say(err, errlen, "%s is not a regular file", name);
		return failed(f, HJ_KEYFILE_TYPE, -EINVAL);
	}
	mode = (unsigned)(st.st_mode & 07777);
	if ((mode & 077) == 0)
		return 0;
	if ((flags & HJ_KEYFILE_ACL_OK) && (mode & 007) == 0 && acl_private(fd))
		return 0;
	/* A secret that others may read (or replace) is not one to sign
	 * with. */
	hj_shell_word(path, fix, sizeof fix);
	hj_say(err, errlen,
	       "%s has mode %04o: group or others may access the secret key; "
	       "fix it with: chmod 600 %s",
	       name, mode, fix);
	return failed(f, HJ_KEYFILE_MODE, -EPERM);
}

int hj_keyfile_read(const char *path, const char *name, unsigned flags,
                    char *buf, size_t cap, size_t *n, hj_keyfile_fault *f,
                    char *err, size_t errlen)
{
	int fd, rc;

	*n = 0;
	f->step = HJ_KEYFILE_OK;
	f->mode = 0;
	/* O_NONBLOCK: a FIFO put in the key's place must not hang the
	 * reader before fstat refuses it.  It changes nothing for regular
	 * files. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		hj_say(err, errlen, "cannot open %s: %s", name, strerror(-rc));
		return failed(f, HJ_KEYFILE_OPEN, rc);
	}
	rc = check_file(fd, path, name, flags, f, err, errlen);
	while (rc == 0 && *n < cap) {
		ssize_t got = read(fd, buf + *n, cap - *n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			hj_say(err, errlen, "reading %s: %s", name,
			       strerror(-rc));
			failed(f, HJ_KEYFILE_READ, rc);
			break;
		}
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	close(fd);
	if (rc) {
		explicit_bzero(buf, cap);
		*n = 0;
	}
	return rc;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Makes a new directory entry durable.  Best effort: the file itself was
 * synced, and a directory we may not open is no reason to fail. */
void hj_keyfile_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (dir == NULL)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int hj_keyfile_write(const char *path, const char *text, size_t n,
                     hj_keyfile_fault *f, char *err, size_t errlen)
{
	int fd, rc;

	f->step = HJ_KEYFILE_OK;
	f->mode = 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
	          0600);
	if (fd < 0) {
		rc = -errno;
		if (rc == -EEXIST)
			hj_say(err, errlen, "%s already exists", path);
		else
			hj_say(err, errlen, "cannot create %s: %s", path,
			       strerror(-rc));
		return failed(f, HJ_KEYFILE_CREATE, rc);
	}
	/* fchmod: 0600 whatever the umask did to open's mode. */
	if (fchmod(fd, 0600) != 0 || write_all(fd, text, n) != 0 ||
	    fsync(fd) != 0) {
		rc = -errno;
		close(fd);
		goto removed;
	}
	if (close(fd) != 0) {
		rc = -errno;
		goto removed;
	}
	hj_keyfile_sync_dir(path);
	return 0;
removed:
	hj_say(err, errlen, "writing %s failed: %s (the file was removed)",
	       path, strerror(-rc));
	unlink(path);
	return failed(f, HJ_KEYFILE_WRITE, rc);
}

/* ---- the player's text ---- */

static const char btc_header[] =
    "# hashjack player key: BIP-340 secret key, keep this file private\n";
/* The header, "# P " and P, the secret: three lines. */
_Static_assert(sizeof btc_header - 1 + 4 + 2 * HJ_XONLY_LEN + 1 +
                       2 * HJ_BTC_SECKEY_LEN + 1 <
                   HJ_KEYFILE_BTC_TEXT,
               "the key file's text fits HJ_KEYFILE_BTC_TEXT");

/* The key file's lines: comments ("#"), empty lines, and exactly one line
 * of 64 hex digits, the secret key; "# P <64 hex>", when present, must be
 * the key's P. */
static int btc_parse(const hj_secp *ctx, const char *path, const char *buf,
                     size_t n, hj_keyfile_btc *k, char *err, size_t errlen)
{
	uint8_t said[HJ_XONLY_LEN];
	unsigned long line = 0, key_line = 0, p_line = 0;
	char why[HJ_ERRLEN], hex[2 * HJ_XONLY_LEN + 3];
	size_t at = 0;

	while (at < n) {
		const char *s = buf + at;
		const char *nl = memchr(s, '\n', n - at);
		size_t len = nl ? (size_t)(nl - s) : n - at;

		at += len + (nl != NULL);
		line++;
		if (len == 0)
			continue;
		if (s[0] == '#') {
			if (len < 4 || memcmp(s, "# P ", 4) != 0)
				continue;
			if (p_line) {
				hj_say(err, errlen,
				       "%s:%lu: a second \"# P\" line (the "
				       "first is line %lu)",
				       path, line, p_line);
				return -EINVAL;
			}
			if (hj_hex_decode_exact(s + 4, len - 4, HJ_HEX_BARE,
			                        said, sizeof said, why,
			                        sizeof why)) {
				hj_say(err, errlen,
				       "%s:%lu: the \"# P\" line must be "
				       "\"# P \" and 64 hex digits: %s",
				       path, line, why);
				return -EINVAL;
			}
			p_line = line;
			continue;
		}
		if (key_line) {
			hj_say(err, errlen,
			       "%s:%lu: a second secret key line (the first "
			       "is line %lu); a key file holds one key",
			       path, line, key_line);
			return -EINVAL;
		}
		if (hj_hex_decode_exact(s, len, HJ_HEX_BARE, k->sk,
		                        sizeof k->sk, why, sizeof why)) {
			hj_say(err, errlen,
			       "%s:%lu: the secret key line must be 64 hex "
			       "digits: %s",
			       path, line, why);
			return -EINVAL;
		}
		key_line = line;
	}
	if (!key_line) {
		hj_say(err, errlen,
		       "%s: no secret key line (64 hex digits) in the file",
		       path);
		return -EINVAL;
	}
	if (hj_btc_pubkey(ctx, k->sk, k->pk, why, sizeof why)) {
		hj_say(err, errlen, "%s:%lu: %s", path, key_line, why);
		return -EINVAL;
	}
	if (p_line && memcmp(said, k->pk, sizeof said) != 0) {
		hj_hex_encode(k->pk, sizeof k->pk, 0, hex);
		hj_say(err, errlen,
		       "%s:%lu: the \"# P\" line differs from the secret "
		       "key's P %s: the file is damaged or was edited",
		       path, p_line, hex);
		return -EINVAL;
	}
	return 0;
}

int hj_keyfile_btc_parse(const hj_secp *ctx, const char *name, const char *buf,
                         size_t n, hj_keyfile_btc *k, char *err, size_t errlen)
{
	int rc = btc_parse(ctx, name, buf, n, k, err, errlen);

	if (rc)
		explicit_bzero(k, sizeof *k);
	return rc;
}

size_t hj_keyfile_btc_format(const hj_keyfile_btc *k, char *text, size_t cap)
{
	char pk[2 * HJ_XONLY_LEN + 3], sk[2 * HJ_BTC_SECKEY_LEN + 3];
	int n;

	hj_hex_encode(k->pk, sizeof k->pk, 0, pk);
	hj_hex_encode(k->sk, sizeof k->sk, 0, sk);
	n = snprintf(text, cap, "%s# P %s\n%s\n", btc_header, pk, sk);
	explicit_bzero(sk, sizeof sk);
	if (n < 0 || (size_t)n >= cap) {
		if (cap > 0)
			explicit_bzero(text, cap);
		return 0;
	}
	return (size_t)n;
}

/* ---- the dealer's text ---- */

static const char evm_hint[] =
    "64 hex digits, optionally behind 0x and followed by one newline";

static int is_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* Never quotes the text. */
static int evm_parse(const hj_secp *ctx, const char *name, const char *t,
                     size_t n, uint8_t sk[HJ_EVM_SECKEY_LEN], char *err,
                     size_t errlen)
{
	uint8_t pub[HJ_EVM_PUBKEY_LEN];
	size_t off = 0, digits;

	if (n == 0) {
		hj_say(err, errlen, "%s is empty; expected %s", name, evm_hint);
		return -EINVAL;
	}
	if (n > HJ_KEYFILE_EVM_MAX) {
		hj_say(err, errlen,
		       "%s is longer than %d bytes: not a key file (expected "
		       "%s)",
		       name, HJ_KEYFILE_EVM_MAX, evm_hint);
		return -EINVAL;
	}
	if (n >= 2 && t[0] == '0' && t[1] == 'x')
		off = 2;
	if (t[n - 1] == '\n')
		n--;
	for (size_t i = off; i < n; i++) {
		if (hj_hex_digit((unsigned char)t[i]) < 0) {
			hj_say(err, errlen,
			       "%s: the byte at offset %zu is not a hex digit "
			       "(expected %s)",
			       name, i, evm_hint);
			return -EINVAL;
		}
	}
	digits = n - off;
	if (digits != 2 * HJ_EVM_SECKEY_LEN) {
		hj_say(err, errlen, "%s holds %zu hex digits, expected %s",
		       name, digits, evm_hint);
		return -EINVAL;
	}
	for (size_t i = 0; i < HJ_EVM_SECKEY_LEN; i++)
		sk[i] =
		    (uint8_t)(hj_hex_digit((unsigned char)t[off + 2 * i]) << 4 |
		              hj_hex_digit((unsigned char)t[off + 2 * i + 1]));
	if (is_zero(sk, HJ_EVM_SECKEY_LEN)) {
		hj_say(err, errlen,
		       "%s: the key is zero, not a valid secp256k1 secret key",
		       name);
		return -EINVAL;
	}
	if (hj_evm_pubkey(ctx, sk, pub, NULL, 0) != 0) {
		hj_say(err, errlen,
		       "%s: the key is not below the secp256k1 group order, "
		       "not a valid secret key",
		       name);
		return -EINVAL;
	}
	return 0;
}

int hj_keyfile_evm_parse(const hj_secp *ctx, const char *name, const char *t,
                         size_t n, uint8_t sk[HJ_EVM_SECKEY_LEN], char *err,
                         size_t errlen)
{
	int rc = evm_parse(ctx, name, t, n, sk, err, errlen);

	if (rc)
		explicit_bzero(sk, HJ_EVM_SECKEY_LEN);
	return rc;
}
