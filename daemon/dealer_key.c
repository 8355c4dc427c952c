/* The EVM dealer's secret key: where it is, who may read it, what it holds
 * (see dealer_key.h). */
#include "dealer_key.h"

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

#define SAY(...)                                                               \
	do {                                                                   \
		if (err != NULL && errlen > 0)                                 \
			snprintf(err, errlen, __VA_ARGS__);                    \
	} while (0)

/* Longest file worth reading: "0x", 64 digits, "\n" is 67 bytes; anything
 * longer is reported as too long without being read further. */
#define KEY_TEXT_MAX 67

static const char format_hint[] =
    "64 hex digits, optionally behind 0x and followed by one newline";

/* What an error calls the key: the file, or the credential and its file. */
struct where {
	const char *source;
	char path[HJ_DEALER_KEY_PATH_MAX];
	int credential;
	char name[HJ_DEALER_KEY_PATH_MAX + 64];
};

static void where_init(struct where *w, const char *source)
{
	w->source = source;
	w->credential = strchr(source, '/') == NULL;
	if (w->credential)
		snprintf(w->name, sizeof w->name,
		         "dealer key credential %s (%s)", source, w->path);
	else
		snprintf(w->name, sizeof w->name, "dealer key file %s",
		         w->path);
}

int hjd_dealer_key_path(const char *source, char *path, size_t cap, char *err,
                        size_t errlen)
{
	const char *dir;
	int n;

	if (source == NULL || source[0] == '\0') {
		SAY("dealer key: no file or credential name given");
		return -EINVAL;
	}
	if (strchr(source, '/') != NULL) {
		n = snprintf(path, cap, "%s", source);
	} else {
		if (strcmp(source, ".") == 0 || strcmp(source, "..") == 0) {
			SAY("dealer key: \"%s\" is not a credential name",
			    source);
			return -EINVAL;
		}
		dir = getenv("CREDENTIALS_DIRECTORY");
		if (dir == NULL || dir[0] == '\0') {
			SAY("dealer key \"%s\" is a systemd credential name "
			    "(it has no '/'), but $CREDENTIALS_DIRECTORY is "
			    "not set: run hashjackd under systemd with "
			    "LoadCredential=%s:/etc/hashjack/dealer.key, or "
			    "give the key file's path (./%s for a file in the "
			    "working directory)",
			    source, source, source);
			return -EINVAL;
		}
		n = snprintf(path, cap, "%s/%s", dir, source);
	}
	if (n < 0 || (size_t)n >= cap) {
		SAY("dealer key: path longer than %zu bytes", cap - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Whether fd's POSIX access ACL grants nothing to anyone but the file's
 * owner and this process's user: how systemd lets a service read a
 * credential it does not own.  With an ACL, the mode's group bits show the
 * ACL's mask, not what the owning group may do (acl(5)).  0 when no ACL or
 * an unreadable one.
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

/* Checks the open key file's type and mode.  Returns 0 or -EPERM/-EINVAL
 * with err. */
static int check_file(int fd, const struct where *w, char *err, size_t errlen)
{
	struct stat st;
	char fix[HJ_DEALER_KEY_PATH_MAX + 16];
	unsigned mode;

	if (fstat(fd, &st) != 0) {
		int e = errno;

		SAY("cannot stat %s: %s", w->name, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		SAY("%s is not a regular file", w->name);
		return -EINVAL;
	}
	mode = (unsigned)(st.st_mode & 07777);
	if ((mode & 077) == 0)
		return 0;
	if (w->credential && (mode & 007) == 0 && acl_private(fd))
		return 0;
	/* As OpenSSH does with private keys: a secret that others may read
	 * (or replace) is not one to sign payouts with. */
	hj_shell_word(w->path, fix, sizeof fix);
	if (w->credential)
		SAY("%s has mode %04o: group or others may access the secret "
		    "key; systemd creates credentials with mode 0400, so "
		    "this file was not made by LoadCredential= (check "
		    "$CREDENTIALS_DIRECTORY), or fix it with: chmod 600 %s",
		    w->name, mode, fix);
	else
		SAY("%s has mode %04o: group or others may access the secret "
		    "key; fix it with: chmod 600 %s",
		    w->name, mode, fix);
	return -EPERM;
}

/* Reads at most cap bytes of fd into buf; sets *n.  Returns 0 or -errno. */
static int read_some(int fd, char *buf, size_t cap, size_t *n)
{
	*n = 0;
	while (*n < cap) {
		ssize_t got = read(fd, buf + *n, cap - *n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	return 0;
}

/* Turns the file's text into sk.  Never quotes the text. */
static int parse_key(const char *t, size_t n, const struct where *w,
                     uint8_t sk[HJ_EVM_SECKEY_LEN], char *err, size_t errlen)
{
	size_t off = 0, digits;

	if (n == 0) {
		SAY("%s is empty; expected %s", w->name, format_hint);
		return -EINVAL;
	}
	if (n > KEY_TEXT_MAX) {
		SAY("%s is longer than %d bytes: not a key file (expected %s)",
		    w->name, KEY_TEXT_MAX, format_hint);
		return -EINVAL;
	}
	if (n >= 2 && t[0] == '0' && t[1] == 'x')
		off = 2;
	if (t[n - 1] == '\n')
		n--;
	for (size_t i = off; i < n; i++) {
		if (hj_hex_digit((unsigned char)t[i]) < 0) {
			SAY("%s: the byte at offset %zu is not a hex digit "
			    "(expected %s)",
			    w->name, i, format_hint);
			return -EINVAL;
		}
	}
	digits = n - off;
	if (digits != 2 * HJ_EVM_SECKEY_LEN) {
		SAY("%s holds %zu hex digits, expected %s", w->name, digits,
		    format_hint);
		return -EINVAL;
	}
	for (size_t i = 0; i < HJ_EVM_SECKEY_LEN; i++)
		sk[i] =
		    (uint8_t)(hj_hex_digit((unsigned char)t[off + 2 * i]) << 4 |
		              hj_hex_digit((unsigned char)t[off + 2 * i + 1]));
	return 0;
}

static int is_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

int hjd_dealer_key_read(const hj_secp *ctx, const char *source,
                        uint8_t sk[HJ_EVM_SECKEY_LEN], char *err, size_t errlen)
{
	struct where w;
	char text[KEY_TEXT_MAX + 1];
	uint8_t pub[HJ_EVM_PUBKEY_LEN];
	size_t n = 0;
	int fd = -1, rc;

	rc = hjd_dealer_key_path(source, w.path, sizeof w.path, err, errlen);
	if (rc)
		goto out;
	where_init(&w, source);
	/* O_NONBLOCK: a FIFO put in the key's place must not hang the
	 * daemon before fstat refuses it.  It changes nothing for regular
	 * files. */
	fd = open(w.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		if (w.credential)
			SAY("cannot open %s: %s (does the unit have "
			    "LoadCredential=%s:/path/to/key?)",
			    w.name, strerror(-rc), source);
		else
			SAY("cannot open %s: %s", w.name, strerror(-rc));
		goto out;
	}
	rc = check_file(fd, &w, err, errlen);
	if (rc)
		goto out;
	/* One byte more than a key file may hold tells a long file. */
	rc = read_some(fd, text, sizeof text, &n);
	if (rc) {
		SAY("reading %s: %s", w.name, strerror(-rc));
		goto out;
	}
	rc = parse_key(text, n, &w, sk, err, errlen);
	if (rc)
		goto out;
	if (is_zero(sk, HJ_EVM_SECKEY_LEN)) {
		SAY("%s: the key is zero, not a valid secp256k1 secret key",
		    w.name);
		rc = -EINVAL;
		goto out;
	}
	if (hj_evm_pubkey(ctx, sk, pub, NULL, 0) != 0) {
		SAY("%s: the key is not below the secp256k1 group order, not "
		    "a valid secret key",
		    w.name);
		rc = -EINVAL;
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	explicit_bzero(text, sizeof text);
	if (rc)
		explicit_bzero(sk, HJ_EVM_SECKEY_LEN);
	return rc;
}

int hjd_dealer_key_load(const hj_secp *ctx, const char *source,
                        const uint8_t expected[HJ_EVM_ADDR_LEN],
                        uint8_t sk[HJ_EVM_SECKEY_LEN],
                        uint8_t addr[HJ_EVM_ADDR_LEN], char *err, size_t errlen)
{
	uint8_t have[HJ_EVM_ADDR_LEN];
	char want_s[2 * HJ_EVM_ADDR_LEN + 3], have_s[2 * HJ_EVM_ADDR_LEN + 3];
	struct where w;
	int rc;

	rc = hjd_dealer_key_read(ctx, source, sk, err, errlen);
	if (rc)
		return rc;
	/* hjd_dealer_key_read has checked the key: this cannot fail. */
	rc = hj_evm_address(ctx, sk, have, err, errlen);
	if (rc)
		goto fail;
	if (memcmp(have, expected, HJ_EVM_ADDR_LEN) != 0) {
		hj_hex_encode(have, HJ_EVM_ADDR_LEN, 1, have_s);
		hj_hex_encode(expected, HJ_EVM_ADDR_LEN, 1, want_s);
		/* Resolved again for the message only: it worked above. */
		if (hjd_dealer_key_path(source, w.path, sizeof w.path, NULL, 0))
			w.path[0] = '\0';
		where_init(&w, source);
		SAY("%s belongs to address %s, but the configured dealer "
		    "address is %s",
		    w.name, have_s, want_s);
		rc = -EINVAL;
		goto fail;
	}
	if (addr != NULL)
		memcpy(addr, have, HJ_EVM_ADDR_LEN);
	return 0;
fail:
	explicit_bzero(sk, HJ_EVM_SECKEY_LEN);
	return rc;
}
