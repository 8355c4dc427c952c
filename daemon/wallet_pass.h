/*
 * The passphrase of an encrypted Bitcoin-family wallet ([payout]
 * wallet_passphrase, docs/PAYOUTS.md, "An encrypted wallet").
 *
 * Named like the EVM dealer key (dealer_key.h): a path (it contains a
 * '/'), or a bare name for the systemd credential
 * $CREDENTIALS_DIRECTORY/<name>.  The file must be a regular file that
 * neither group nor others may access (a credential's ACL as
 * dealer_key.h says).  It holds the passphrase, then at most one newline
 * (removed): 1 to HJD_WALLET_PASS_MAX bytes of UTF-8 (the passphrase goes
 * to the node as a JSON string), no NUL.
 *
 * Errors name the file and what to do; they never quote the passphrase.
 */
#ifndef HJD_WALLET_PASS_H
#define HJD_WALLET_PASS_H

#include <stddef.h>

/* The longest passphrase taken, in bytes. */
#define HJD_WALLET_PASS_MAX 1024

/*
 * Reads the passphrase named by source into pass (NUL-terminated; room
 * for HJD_WALLET_PASS_MAX + 1 bytes).  Returns 0, or a negative errno with
 * err: -EINVAL (a bad source as hjd_secret_path says, not a regular file,
 * empty, too long, a NUL byte, not UTF-8), -EPERM (group or others may
 * access it; the message gives the chmod), or open(2)'s, fstat(2)'s or
 * read(2)'s.  pass is wiped on error.
 */
int hjd_wallet_pass_read(const char *source, char pass[HJD_WALLET_PASS_MAX + 1],
                         char *err, size_t errlen);

#endif
