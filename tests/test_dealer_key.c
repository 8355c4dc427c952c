/*
 * The EVM dealer key (daemon/dealer_key.h) and, named the same ways, an
 * encrypted wallet's passphrase (daemon/wallet_pass.h): every refusal with its
 * exact message, and the ways a key is accepted, as key files in a temporary
 * directory and as systemd credentials ($CREDENTIALS_DIRECTORY set here by
 * hand, and a POSIX ACL like the one systemd puts on credentials it lets a
 * service user read).
 *
 * The key 1 belongs to 0x7e5f4552091a69125d5dfcb7b8c2659029395bdf (an
 * Ethereum fact; `cast wallet address --private-key 0x...01` agrees).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/posix_acl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "dealer.h"
#include "dealer_key.h"
#include "say.h"
#include "wallet_pass.h"

#define KEY1_HEX                                                               \
	"0000000000000000000000000000000000000000000000000000000000000001"
#define KEY1_ADDR "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"
/* The same address as EIP-55 prints it. */
#define KEY1_ADDR_MIXED "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
#define HINT            "64 hex digits, optionally behind 0x and followed by one newline"

static hj_secp *ctx;
static char dir[256];
static char err[HJ_ERRLEN];

/* The 20 bytes of a configured EVM dealer address (as the configuration
 * parses it), in a static buffer (one at a time). */
static const uint8_t *addr_of(const char *text)
{
	static hj_dealer d;
	char why[HJ_ERRLEN];

	if (hj_dealer_parse(HJ_EVM, text, strlen(text), &d, why, sizeof why))
		fail_msg("%s: %s", text, why);
	return d.addr;
}

/* dir/name, in a static buffer (one at a time). */
static const char *at(const char *name)
{
	static char path[512];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

/* Writes text as dir/name with mode; returns the path. */
static const char *put(const char *name, const char *text, mode_t mode)
{
	const char *path = at(name);
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
	return path;
}

/* Reads dir/name (a path, since it has a '/') expecting rc and message. */
static void refused(const char *path, int rc, const char *msg)
{
	uint8_t sk[32];

	memset(sk, 0xaa, sizeof sk);
	err[0] = '\0';
	assert_int_equal(hjd_dealer_key_read(ctx, path, sk, err, sizeof err),
	                 rc);
	assert_string_equal(err, msg);
	for (size_t i = 0; i < sizeof sk; i++)
		assert_int_equal(sk[i], 0);
}

static void accepted(const char *source)
{
	uint8_t sk[32], addr[20];

	err[0] = '\0';
	assert_int_equal(hjd_dealer_key_load(ctx, source,
	                                     addr_of(KEY1_ADDR_MIXED), sk, addr,
	                                     err, sizeof err),
	                 0);
	assert_string_equal(err, "");
	for (size_t i = 0; i < 31; i++)
		assert_int_equal(sk[i], 0);
	assert_int_equal(sk[31], 1);
	assert_memory_equal(addr,
	                    "\x7e\x5f\x45\x52\x09\x1a\x69\x12\x5d\x5d\xfc\xb7"
	                    "\xb8\xc2\x65\x90\x29\x39\x5b\xdf",
	                    20);
}

static void test_accepted_forms(void **state)
{
	(void)state;
	accepted(put("a.key", "0x" KEY1_HEX "\n", 0600));
	accepted(put("b.key", KEY1_HEX "\n", 0600));
	accepted(put("c.key", "0x" KEY1_HEX, 0600));
	accepted(put("d.key", KEY1_HEX, 0400));
	accepted(put("e.key", "0x" KEY1_HEX "\n", 0700));
	/* Upper-case digits, and the lower-case configured address. */
	{
		uint8_t sk[32], addr[20];
		const char *p = put("f.key",
		                    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6"
		                    "AF48A03BBFD25E8CD0364140\n",
		                    0600);

		assert_int_equal(
		    hjd_dealer_key_load(
		        ctx, p,
		        addr_of("0x80c0dbf239224071c59dd8970ab9d542e3414ab2"),
		        sk, addr, err, sizeof err),
		    0);
		assert_int_equal(sk[0], 0xff);
		assert_int_equal(sk[31], 0x40);
		/* addr may be NULL. */
		assert_int_equal(
		    hjd_dealer_key_load(
		        ctx, p,
		        addr_of("0x80C0DBF239224071C59DD8970AB9D542E3414AB2"),
		        sk, NULL, err, sizeof err),
		    0);
	}
	/* A relative path: "./" makes it one. */
	{
		char cwd[512];

		assert_non_null(getcwd(cwd, sizeof cwd));
		assert_int_equal(chdir(dir), 0);
		accepted("./a.key");
		assert_int_equal(chdir(cwd), 0);
	}
}

static void test_mode(void **state)
{
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	p = put("m644.key", KEY1_HEX "\n", 0644);
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0644: group or others may access "
	         "the secret key; fix it with: chmod 600 %s",
	         p, p);
	refused(p, -EPERM, msg);

	p = put("m640.key", KEY1_HEX "\n", 0640);
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0640: group or others may access "
	         "the secret key; fix it with: chmod 600 %s",
	         p, p);
	refused(p, -EPERM, msg);

	p = put("m604.key", KEY1_HEX "\n", 0604);
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0604: group or others may access "
	         "the secret key; fix it with: chmod 600 %s",
	         p, p);
	refused(p, -EPERM, msg);

	p = put("m610.key", KEY1_HEX "\n", 0610);
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0610: group or others may access "
	         "the secret key; fix it with: chmod 600 %s",
	         p, p);
	refused(p, -EPERM, msg);

	/* A path with a space is quoted for the shell. */
	p = put("my key", KEY1_HEX "\n", 0660);
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0660: group or others may access "
	         "the secret key; fix it with: chmod 600 '%s'",
	         p, p);
	refused(p, -EPERM, msg);
}

static void test_not_a_file(void **state)
{
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	p = at("missing.key");
	snprintf(msg, sizeof msg,
	         "cannot open dealer key file %s: No such file or directory",
	         p);
	refused(p, -ENOENT, msg);

	snprintf(msg, sizeof msg, "dealer key file %s/ is not a regular file",
	         dir);
	{
		char d[300];

		snprintf(d, sizeof d, "%s/", dir);
		refused(d, -EINVAL, msg);
	}

	/* A FIFO neither hangs the reader nor passes. */
	p = at("fifo");
	unlink(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(msg, sizeof msg, "dealer key file %s is not a regular file",
	         p);
	refused(p, -EINVAL, msg);
}

static void test_format(void **state)
{
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	/* Bad hex: the offset is given, the byte is not. */
	p = put("g.key",
	        "0x000000000000000000000000000000000000000000000000000000000000"
	        "000g\n",
	        0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the byte at offset 65 is not a hex digit "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	p = put("crlf.key", KEY1_HEX "\r\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the byte at offset 64 is not a hex digit "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	p = put("nl2.key", KEY1_HEX "\n\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the byte at offset 64 is not a hex digit "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	p = put("sp.key", " " KEY1_HEX, 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the byte at offset 0 is not a hex digit "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	p = put("0X.key", "0X" KEY1_HEX, 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the byte at offset 1 is not a hex digit "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	/* Wrong lengths. */
	p = put(
	    "short.key",
	    "0x00000000000000000000000000000000000000000000000000000000000001"
	    "\n",
	    0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s holds 62 hex digits, expected " HINT, p);
	refused(p, -EINVAL, msg);

	p = put("long.key", "00" KEY1_HEX "\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s holds 66 hex digits, expected " HINT, p);
	refused(p, -EINVAL, msg);

	p = put("prefix.key", "0x\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s holds 0 hex digits, expected " HINT, p);
	refused(p, -EINVAL, msg);

	p = put("empty.key", "", 0600);
	snprintf(msg, sizeof msg, "dealer key file %s is empty; expected " HINT,
	         p);
	refused(p, -EINVAL, msg);

	p = put("huge.key", "0x" KEY1_HEX "\n" KEY1_HEX KEY1_HEX "\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s is longer than 67 bytes: not a key file "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);

	/* 68 bytes: one past the longest key file. */
	p = put("k68.key", "0x" KEY1_HEX "\n\n", 0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s is longer than 67 bytes: not a key file "
	         "(expected " HINT ")",
	         p);
	refused(p, -EINVAL, msg);
}

static void test_invalid_keys(void **state)
{
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	p = put(
	    "zero.key",
	    "0x0000000000000000000000000000000000000000000000000000000000000000"
	    "\n",
	    0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the key is zero, not a valid secp256k1 "
	         "secret key",
	         p);
	refused(p, -EINVAL, msg);

	/* n, the group order, and the largest 256-bit number. */
	p = put(
	    "order.key",
	    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
	    0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the key is not below the secp256k1 group "
	         "order, not a valid secret key",
	         p);
	refused(p, -EINVAL, msg);
	p = put(
	    "max.key",
	    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	    0600);
	snprintf(msg, sizeof msg,
	         "dealer key file %s: the key is not below the secp256k1 group "
	         "order, not a valid secret key",
	         p);
	refused(p, -EINVAL, msg);
}

static void test_address(void **state)
{
	uint8_t sk[32], addr[20];
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	p = put("key1", KEY1_HEX "\n", 0600);
	memset(sk, 0xaa, sizeof sk);
	assert_int_equal(
	    hjd_dealer_key_load(
	        ctx, p, addr_of("0x0000000000000000000000000000000000000001"),
	        sk, addr, err, sizeof err),
	    -EINVAL);
	snprintf(msg, sizeof msg,
	         "dealer key file %s belongs to address " KEY1_ADDR
	         ", but the configured dealer address is "
	         "0x0000000000000000000000000000000000000001",
	         p);
	assert_string_equal(err, msg);
	for (size_t i = 0; i < sizeof sk; i++)
		assert_int_equal(sk[i], 0);
}

static void test_credential(void **state)
{
	char msg[HJ_ERRLEN];
	const char *p;

	(void)state;
	p = put("dealer-key", KEY1_HEX "\n", 0400);

	unsetenv("CREDENTIALS_DIRECTORY");
	refused(
	    "dealer-key", -EINVAL,
	    "dealer key \"dealer-key\" is a systemd credential name (it has "
	    "no '/'), but $CREDENTIALS_DIRECTORY is not set: run hashjackd "
	    "under systemd with "
	    "LoadCredential=dealer-key:/etc/hashjack/dealer.key, or give "
	    "the file's path (./dealer-key for a file in the working "
	    "directory)");
	setenv("CREDENTIALS_DIRECTORY", "", 1);
	refused(
	    "dealer-key", -EINVAL,
	    "dealer key \"dealer-key\" is a systemd credential name (it has "
	    "no '/'), but $CREDENTIALS_DIRECTORY is not set: run hashjackd "
	    "under systemd with "
	    "LoadCredential=dealer-key:/etc/hashjack/dealer.key, or give "
	    "the file's path (./dealer-key for a file in the working "
	    "directory)");

	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	accepted("dealer-key");

	/* The mismatch names the credential and its file. */
	{
		uint8_t sk[32];

		assert_int_equal(
		    hjd_dealer_key_load(
		        ctx, "dealer-key",
		        addr_of("0x0000000000000000000000000000000000000001"),
		        sk, NULL, err, sizeof err),
		    -EINVAL);
		snprintf(msg, sizeof msg,
		         "dealer key credential dealer-key (%s) belongs to "
		         "address " KEY1_ADDR
		         ", but the configured dealer address is "
		         "0x0000000000000000000000000000000000000001",
		         p);
		assert_string_equal(err, msg);
	}

	p = put("loose", KEY1_HEX "\n", 0644);
	snprintf(
	    msg, sizeof msg,
	    "dealer key credential loose (%s) has mode 0644: group or "
	    "others may access the secret key; systemd creates credentials "
	    "with mode 0400, so this file was not made by LoadCredential= "
	    "(check $CREDENTIALS_DIRECTORY), or fix it with: chmod 600 %s",
	    p, p);
	refused("loose", -EPERM, msg);

	p = at("absent");
	snprintf(msg, sizeof msg,
	         "cannot open dealer key credential absent (%s): No such file "
	         "or directory (does the unit have "
	         "LoadCredential=absent:/path/to/key?)",
	         p);
	refused("absent", -ENOENT, msg);

	refused(".", -EINVAL, "dealer key: \".\" is not a credential name");
	refused("..", -EINVAL, "dealer key: \"..\" is not a credential name");
	refused("", -EINVAL, "dealer key: no file or credential name given");
	unsetenv("CREDENTIALS_DIRECTORY");
}

/* A wallet passphrase: one newline removed, anything else kept; the
 * file's checks are the key file's; the passphrase never in a message. */
static void pass_refused(const char *source, int rc, const char *msg)
{
	char pass[HJD_WALLET_PASS_MAX + 1];

	memset(pass, 'x', sizeof pass);
	err[0] = '\0';
	assert_int_equal(hjd_wallet_pass_read(source, pass, err, sizeof err),
	                 rc);
	assert_string_equal(err, msg);
	for (size_t i = 0; i < sizeof pass; i++)
		assert_int_equal(pass[i], 0);
}

static void pass_accepted(const char *source, const char *want)
{
	char pass[HJD_WALLET_PASS_MAX + 1];

	err[0] = '\0';
	assert_int_equal(hjd_wallet_pass_read(source, pass, err, sizeof err),
	                 0);
	assert_string_equal(pass, want);
}

static void test_wallet_pass(void **state)
{
	char msg[HJ_ERRLEN], big[HJD_WALLET_PASS_MAX + 3];
	const char *p;

	(void)state;
	pass_accepted(put("a.pass", "correct horse\n", 0600), "correct horse");
	pass_accepted(put("b.pass", " spaces kept, no newline ", 0400),
	              " spaces kept, no newline ");
	pass_accepted(put("c.pass", "two newlines\n\n", 0600),
	              "two newlines\n");
	pass_accepted(put("d.pass", "gr\xc3\xbc\xc3\x9f dich\n", 0600),
	              "gr\xc3\xbc\xc3\x9f dich");
	memset(big, 'p', HJD_WALLET_PASS_MAX);
	big[HJD_WALLET_PASS_MAX] = '\n';
	big[HJD_WALLET_PASS_MAX + 1] = '\0';
	p = put("max.pass", big, 0600);
	big[HJD_WALLET_PASS_MAX] = '\0';
	pass_accepted(p, big);

	big[HJD_WALLET_PASS_MAX] = 'p';
	big[HJD_WALLET_PASS_MAX + 1] = '\0';
	p = put("long.pass", big, 0600);
	snprintf(msg, sizeof msg,
	         "wallet passphrase file %s holds more than 1024 bytes: not a "
	         "passphrase",
	         p);
	pass_refused(p, -EINVAL, msg);
	p = put("empty.pass", "\n", 0600);
	snprintf(msg, sizeof msg, "wallet passphrase file %s is empty", p);
	pass_refused(p, -EINVAL, msg);
	p = put("latin1.pass", "gr\xfc\xdf\n", 0600);
	snprintf(msg, sizeof msg,
	         "wallet passphrase file %s is not UTF-8 text (the node takes "
	         "the passphrase as a JSON string)",
	         p);
	pass_refused(p, -EINVAL, msg);
	{
		/* put() writes C strings: a NUL needs its own write. */
		int fd;

		p = at("nul.pass");
		unlink(p);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "ab\0cd", 5), 5);
		assert_int_equal(close(fd), 0);
		snprintf(msg, sizeof msg,
		         "wallet passphrase file %s holds a NUL byte", p);
		pass_refused(p, -EINVAL, msg);
	}
	p = put("open.pass", "secret\n", 0640);
	snprintf(msg, sizeof msg,
	         "wallet passphrase file %s has mode 0640: group or others "
	         "may access the secret key; fix it with: chmod 600 %s",
	         p, p);
	pass_refused(p, -EPERM, msg);

	/* As a systemd credential. */
	unsetenv("CREDENTIALS_DIRECTORY");
	pass_refused("wallet.pass", -EINVAL,
	             "wallet passphrase \"wallet.pass\" is a systemd "
	             "credential name (it has no '/'), but "
	             "$CREDENTIALS_DIRECTORY is not set: run hashjackd under "
	             "systemd with "
	             "LoadCredential=wallet.pass:/etc/hashjack/wallet.pass, or "
	             "give the file's path (./wallet.pass for a file in the "
	             "working directory)");
	put("wallet.pass", "from systemd\n", 0400);
	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	pass_accepted("wallet.pass", "from systemd");
	pass_refused("", -EINVAL,
	             "wallet passphrase: no file or credential name given");
	unsetenv("CREDENTIALS_DIRECTORY");
}

static void test_path(void **state)
{
	char path[64], big[5000];

	(void)state;
	assert_int_equal(hjd_dealer_key_path("/etc/hashjack/dealer.key", path,
	                                     sizeof path, err, sizeof err),
	                 0);
	assert_string_equal(path, "/etc/hashjack/dealer.key");
	setenv("CREDENTIALS_DIRECTORY", "/run/credentials/hashjackd.service",
	       1);
	assert_int_equal(hjd_dealer_key_path("dealer-key", path, sizeof path,
	                                     err, sizeof err),
	                 0);
	assert_string_equal(path,
	                    "/run/credentials/hashjackd.service/dealer-key");
	assert_int_equal(
	    hjd_dealer_key_path("dealer-key", path, 45, err, sizeof err),
	    -EINVAL);
	assert_string_equal(err, "dealer key: path longer than 44 bytes");
	unsetenv("CREDENTIALS_DIRECTORY");
	memset(big, 'a', sizeof big);
	big[0] = '/';
	big[sizeof big - 1] = '\0';
	refused(big, -EINVAL, "dealer key: path longer than 4095 bytes");
	assert_int_equal(
	    hjd_dealer_key_path(NULL, path, sizeof path, err, sizeof err),
	    -EINVAL);
}

/*
 * What systemd does when it lets a service user read a credential on a
 * file system with ACLs (write_credential() in systemd's execute.c): mode
 * 0400, plus user:<uid>:r--, which makes the mask r-- and the mode's group
 * bits show 0440.
 */
static int set_acl(const char *path, unsigned group_perm, uint32_t uid,
                   unsigned other_perm)
{
	struct {
		uint16_t tag, perm;
		uint32_t id;
	} e[] = {
	    {ACL_USER_OBJ, ACL_READ, UINT32_MAX},
	    {ACL_USER, ACL_READ, uid},
	    {ACL_GROUP_OBJ, (uint16_t)group_perm, UINT32_MAX},
	    {ACL_MASK, ACL_READ | (uint16_t)group_perm, UINT32_MAX},
	    {ACL_OTHER, (uint16_t)other_perm, UINT32_MAX},
	};
	uint8_t blob[4 + sizeof e];
	size_t n = 0;
	int fd, rc;

	/* Little-endian on the wire (linux/posix_acl_xattr.h). */
	blob[n++] = 2;
	blob[n++] = 0;
	blob[n++] = 0;
	blob[n++] = 0;
	for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
		blob[n++] = (uint8_t)e[i].tag;
		blob[n++] = (uint8_t)(e[i].tag >> 8);
		blob[n++] = (uint8_t)e[i].perm;
		blob[n++] = (uint8_t)(e[i].perm >> 8);
		for (int b = 0; b < 32; b += 8)
			blob[n++] = (uint8_t)(e[i].id >> b);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	rc = fsetxattr(fd, "system.posix_acl_access", blob, n, 0);
	close(fd);
	return rc;
}

static void test_credential_acl(void **state)
{
	char msg[HJ_ERRLEN];
	struct stat st;
	const char *p;

	(void)state;
	setenv("CREDENTIALS_DIRECTORY", dir, 1);
	p = put("acl-key", KEY1_HEX "\n", 0400);
	if (set_acl(p, 0, (uint32_t)geteuid(), 0) != 0) {
		unsetenv("CREDENTIALS_DIRECTORY");
		if (errno == EOPNOTSUPP)
			skip(); /* no ACLs on this file system */
		fail_msg("fsetxattr: %s", strerror(errno));
	}
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0440);
	/* As a credential: the ACL is what counts. */
	accepted("acl-key");
	/* As a path: the mode rule, as for any file. */
	snprintf(msg, sizeof msg,
	         "dealer key file %s has mode 0440: group or others may access "
	         "the secret key; fix it with: chmod 600 %s",
	         p, p);
	refused(p, -EPERM, msg);

	/* The owning group may read: refused. */
	p = put("acl-group", KEY1_HEX "\n", 0400);
	assert_int_equal(set_acl(p, ACL_READ, (uint32_t)geteuid(), 0), 0);
	snprintf(msg, sizeof msg,
	         "dealer key credential acl-group (%s) has mode 0440: group or "
	         "others may access the secret key; systemd creates "
	         "credentials with mode 0400, so this file was not made by "
	         "LoadCredential= (check $CREDENTIALS_DIRECTORY), or fix it "
	         "with: chmod 600 %s",
	         p, p);
	refused("acl-group", -EPERM, msg);

	/* Another user may read: refused. */
	p = put("acl-other", KEY1_HEX "\n", 0400);
	assert_int_equal(set_acl(p, 0, (uint32_t)geteuid() + 1, 0), 0);
	snprintf(msg, sizeof msg,
	         "dealer key credential acl-other (%s) has mode 0440: group or "
	         "others may access the secret key; systemd creates "
	         "credentials with mode 0400, so this file was not made by "
	         "LoadCredential= (check $CREDENTIALS_DIRECTORY), or fix it "
	         "with: chmod 600 %s",
	         p, p);
	refused("acl-other", -EPERM, msg);

	/* Others may read: refused on the mode alone. */
	p = put("acl-world", KEY1_HEX "\n", 0400);
	assert_int_equal(set_acl(p, 0, (uint32_t)geteuid(), ACL_READ), 0);
	snprintf(msg, sizeof msg,
	         "dealer key credential acl-world (%s) has mode 0444: group or "
	         "others may access the secret key; systemd creates "
	         "credentials with mode 0400, so this file was not made by "
	         "LoadCredential= (check $CREDENTIALS_DIRECTORY), or fix it "
	         "with: chmod 600 %s",
	         p, p);
	refused("acl-world", -EPERM, msg);
	unsetenv("CREDENTIALS_DIRECTORY");
}

/* ------------------------------------------------------------------ */

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char e[HJ_ERRLEN];

	(void)state;
	snprintf(dir, sizeof dir, "%s/hj-dealer-key-XXXXXX",
	         tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return -1;
	}
	if (hj_secp_new(&ctx, e, sizeof e) != 0) {
		fprintf(stderr, "hj_secp_new: %s\n", e);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	hj_secp_free(ctx);
	ctx = NULL;
	/* dir came from mkdtemp: no quoting needed beyond the quotes. */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accepted_forms),
	    cmocka_unit_test(test_mode),
	    cmocka_unit_test(test_not_a_file),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_invalid_keys),
	    cmocka_unit_test(test_address),
	    cmocka_unit_test(test_credential),
	    cmocka_unit_test(test_path),
	    cmocka_unit_test(test_credential_acl),
	    cmocka_unit_test(test_wallet_pass),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
