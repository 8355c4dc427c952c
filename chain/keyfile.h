/*
 * Secret key files: the one codec behind the EVM dealer's key
 * (docs/EVM-SIGNING.md, "The key file"; daemon/dealer_key.c) and the
 * player's BIP-340 key (docs/BITCOIN-KEYS.md, "The key file"; `hashjack
 * player`).
 *
 * The file: a regular file that neither group nor others may access (mode
 * 0600 or tighter, as OpenSSH asks of private keys), read with a bound, and
 * written new, owner-only, never over an existing file.  Its text: the
 * player's three lines (a comment, "# P " and P, the secret) or the
 * dealer's 64 hex digits.
 *
 * Messages name the file as the caller calls it (name) and never quote a
 * secret; each failure says its step, so that a caller may put it in its
 * own words.  Secret material is wiped from every buffer here before
 * return; the caller wipes its own.
 */
#ifndef HJ_KEYFILE_H
#define HJ_KEYFILE_H

#include <stddef.h>
#include <stdint.h>

#include "btcsig.h"
#include "evm_tx.h"

/* The step at which reading or writing a key file failed. */
typedef enum hj_keyfile_step {
	HJ_KEYFILE_OK = 0,
	HJ_KEYFILE_OPEN,   /* open(2) to read: -errno */
	HJ_KEYFILE_STAT,   /* fstat(2): -errno */
	HJ_KEYFILE_TYPE,   /* not a regular file: -EINVAL */
	HJ_KEYFILE_MODE,   /* group or others may access it: -EPERM */
	HJ_KEYFILE_READ,   /* read(2): -errno */
	HJ_KEYFILE_CREATE, /* open(2) to create: -errno, -EEXIST included */
	HJ_KEYFILE_WRITE,  /* fchmod, write, fsync or close: -errno; the file
	                      is removed */
} hj_keyfile_step;

/* What a failure was, beside its message. */
typedef struct hj_keyfile_fault {
	hj_keyfile_step step;
	unsigned mode; /* the file's st_mode, from HJ_KEYFILE_TYPE on */
} hj_keyfile_fault;

/* hj_keyfile_read's flags. */
enum {
	/* A file whose mode lets its group read it passes when others have
	 * no access and its POSIX access ACL grants nothing to anyone but
	 * the owner and this process's user: how systemd lets a service
	 * read a credential it does not own (the group bits then show the
	 * ACL's mask, acl(5)). */
	HJ_KEYFILE_ACL_OK = 1,
};

/*
 * Reads the key file at path into buf[0..cap), at most cap bytes (give one
 * more than the text may hold to tell a longer file), and sets *n.  name
 * is how messages call it ("key file ./alice.key").  The file is opened
 * with O_NONBLOCK, so that a FIFO in its place is refused, not waited on.
 *
 * Returns 0, or a negative errno with f->step (as above) and err: "cannot
 * open NAME: ...", "cannot stat NAME: ...", "NAME is not a regular file",
 * "NAME has mode 0644: group or others may access the secret key; fix it
 * with: chmod 600 PATH", "reading NAME: ...".  buf is wiped on failure.
 */
int hj_keyfile_read(const char *path, const char *name, unsigned flags,
                    char *buf, size_t cap, size_t *n, hj_keyfile_fault *f,
                    char *err, size_t errlen);

/*
 * Writes text[0..n) to a new file at path, mode 0600 whatever the umask:
 * O_EXCL refuses an existing path (a symbolic link included), the file is
 * synced, then its directory (best effort).  Returns 0, or a negative
 * errno with f->step and err: HJ_KEYFILE_CREATE ("PATH already exists",
 * -EEXIST; "cannot create PATH: ..."), HJ_KEYFILE_WRITE ("writing PATH
 * failed: ... (the file was removed)").
 */
int hj_keyfile_write(const char *path, const char *text, size_t n,
                     hj_keyfile_fault *f, char *err, size_t errlen);

/* Makes a new directory entry (path's, after a create or rename) durable:
 * syncs path's directory.  Best effort: a directory we may not open is no
 * reason to fail. */
void hj_keyfile_sync_dir(const char *path);

/* ---- the player's key: BIP-340 (docs/BITCOIN-KEYS.md) ---- */

/* A player's key: the secret key and its x-only public key P. */
typedef struct hj_keyfile_btc {
	uint8_t sk[HJ_BTC_SECKEY_LEN];
	uint8_t pk[HJ_XONLY_LEN];
} hj_keyfile_btc;

/* A player's key file is three short lines: anything longer is not one. */
#define HJ_KEYFILE_BTC_MAX 4096
/* Room for a key file's text (hj_keyfile_btc_format), NUL included. */
#define HJ_KEYFILE_BTC_TEXT 256

/*
 * Parses the text of a player's key file, buf[0..n): lines that begin with
 * '#' are comments, empty lines are skipped, and exactly one other line is
 * the secret key, 64 hex digits of a valid secret key; a "# P " line, at
 * most one, must hold the key's P.  name is how messages call the file.
 * The secret in buf is borrowed.
 *
 * Returns 0 with *k (sk and the P it gives), or -EINVAL with err, which
 * names name and, for a bad line, its number ("NAME:3: ..."); k is wiped
 * on failure.
 */
int hj_keyfile_btc_parse(const hj_secp *ctx, const char *name, const char *buf,
                         size_t n, hj_keyfile_btc *k, char *err, size_t errlen);

/*
 * Writes the text of k's key file, as `hashjack player keygen` writes it:
 * the header comment, "# P " and P, the secret, in lower-case hex, each
 * line ending in a newline, NUL-terminated in text[0..cap).  Returns its
 * length (without the NUL), or 0 with text wiped when cap is too small
 * (HJ_KEYFILE_BTC_TEXT always suffices).  The caller wipes text.
 */
size_t hj_keyfile_btc_format(const hj_keyfile_btc *k, char *text, size_t cap);

/* ---- the EVM dealer's key (docs/EVM-SIGNING.md) ---- */

/* Longest text worth reading: "0x", 64 digits, "\n". */
#define HJ_KEYFILE_EVM_MAX 67

/*
 * Parses the text of an EVM dealer's key file, t[0..n): 64 hex digits
 * (either case), optionally behind "0x" and followed by one newline, of a
 * valid secp256k1 secret key (nonzero, below the group order), into sk.
 * name is how messages call the file.  Returns 0, or -EINVAL with err
 * (never quoting the text); sk is wiped on failure.
 */
int hj_keyfile_evm_parse(const hj_secp *ctx, const char *name, const char *t,
                         size_t n, uint8_t sk[HJ_EVM_SECKEY_LEN], char *err,
                         size_t errlen);

#endif
