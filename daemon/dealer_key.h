/*
 * The EVM dealer's secret key (docs/EVM-SIGNING.md, "The key file").
 *
 * The configured value names the key in one of two ways:
 *
 *   a path (it contains a '/')   the file itself, e.g. /etc/hashjack/dealer.key
 *                                or ./dealer.key;
 *   a bare name (no '/')         a systemd credential: the file
 *                                $CREDENTIALS_DIRECTORY/<name>, which
 *                                LoadCredential=<name>:<path> provides.
 *
 * The file holds 64 hex digits (either case), optionally behind "0x" and
 * followed by one newline, and nothing else; the key they spell must be a
 * valid secp256k1 secret key (nonzero, below the group order).  The file
 * must be a regular file that neither group nor others may access: mode
 * 0600 or tighter.  systemd writes credentials with mode 0400, so they pass
 * the same check; where it grants the service user access with a POSIX ACL
 * (credential directories on tmpfs), the group bits of the mode show the
 * ACL's mask, and the ACL itself is checked instead: read access for the
 * file's owner and this process's user only.
 *
 * Errors name the file and what to do; they never quote the file's bytes.
 * Secret material is wiped from every buffer here before return.
 */
#ifndef HJ_DEALER_KEY_H
#define HJ_DEALER_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "evm.h"
#include "evm_tx.h"

/* Longest path a key source may resolve to, NUL included. */
#define HJ_DEALER_KEY_PATH_MAX 4096

/*
 * Resolves source (see above) to the file to read, into path[0..cap):
 * hjd_secret_path for any secret so named, what calling it in messages
 * ("dealer key") and example a file LoadCredential= would name.
 * Returns 0, or -EINVAL with err as below.
 */
int hjd_secret_path(const char *what, const char *example, const char *source,
                    char *path, size_t cap, char *err, size_t errlen);

/*
 * Resolves source (see above) to the file to read, into path[0..cap).
 * Returns 0, or -EINVAL with err for an empty source, a credential name "."
 * or "..", $CREDENTIALS_DIRECTORY unset or empty for a bare name, or a path
 * longer than cap.  Reads the environment, nothing else.
 */
int hjd_dealer_key_path(const char *source, char *path, size_t cap, char *err,
                        size_t errlen);

/*
 * Reads the secret key named by source into sk, checking the file's type
 * and mode, the format and that the key is a valid secret key.  Returns 0,
 * or a negative errno with err:
 *   -EINVAL  as hjd_dealer_key_path, the file is not a regular file, or
 *            its contents are not a key (bad hex digit, wrong length,
 *            zero, not below the group order);
 *   -EPERM   group or others may access the file (the message gives the
 *            chmod that fixes it);
 *   -errno   of open(2), fstat(2) or read(2), such as -ENOENT.
 * sk is wiped on error.
 */
int hjd_dealer_key_read(const hj_secp *ctx, const char *source,
                        uint8_t sk[HJ_EVM_SECKEY_LEN], char *err,
                        size_t errlen);

/*
 * hjd_dealer_key_read, then derives the key's address and compares it with
 * expected (the configured dealer's, hj_dealer.addr).  On success sk holds
 * the key and addr (may be NULL) its address.  Returns 0, or the errors of
 * hjd_dealer_key_read, or -EINVAL with err for an address that differs from
 * the key's (both named).  sk is wiped on error.
 */
int hjd_dealer_key_load(const hj_secp *ctx, const char *source,
                        const uint8_t expected[HJ_EVM_ADDR_LEN],
                        uint8_t sk[HJ_EVM_SECKEY_LEN],
                        uint8_t addr[HJ_EVM_ADDR_LEN], char *err,
                        size_t errlen);

#endif
