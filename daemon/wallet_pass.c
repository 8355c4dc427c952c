/* The passphrase of an encrypted Bitcoin-family wallet (wallet_pass.h);
 * the file is read as a key file (chain/keyfile.c). */
#include "wallet_pass.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "dealer_key.h"
#include "keyfile.h"
#include "say.h"

int hjd_wallet_pass_read(const char *source, char pass[HJD_WALLET_PASS_MAX + 1],
                         char *err, size_t errlen)
{
	char path[HJ_DEALER_KEY_PATH_MAX], name[HJ_DEALER_KEY_PATH_MAX + 64];
	/* Two bytes more than a passphrase: its newline, and one to tell a
	 * longer file. */
	char text[HJD_WALLET_PASS_MAX + 2];
	int credential = source != NULL && strchr(source, '/') == NULL;
	hj_keyfile_fault f;
	json_t *check;
	size_t n = 0;
	int rc;

	text[0] = '\0';
	rc = hjd_secret_path("wallet passphrase", "/etc/hashjack/wallet.pass",
	                     source, path, sizeof path, err, errlen);
	if (rc)
		goto out;
	if (credential)
		snprintf(name, sizeof name,
		         "wallet passphrase credential %s (%s)", source, path);
	else
		snprintf(name, sizeof name, "wallet passphrase file %s", path);
	rc = hj_keyfile_read(path, name, credential ? HJ_KEYFILE_ACL_OK : 0,
	                     text, sizeof text, &n, &f, err, errlen);
	if (rc)
		goto out;
	if (n > 0 && text[n - 1] == '\n')
		n--;
	rc = -EINVAL;
	if (n == 0)
		hj_say(err, errlen, "%s is empty", name);
	else if (n > HJD_WALLET_PASS_MAX)
		hj_say(err, errlen,
		       "%s holds more than %d bytes: not a passphrase", name,
		       HJD_WALLET_PASS_MAX);
	else if (memchr(text, '\0', n) != NULL)
		hj_say(err, errlen, "%s holds a NUL byte", name);
	else if ((check = json_stringn(text, n)) == NULL)
		hj_say(err, errlen,
		       "%s is not UTF-8 text (the node takes the passphrase "
		       "as a JSON string)",
		       name);
	else {
		json_decref(check);
		memcpy(pass, text, n);
		pass[n] = '\0';
		rc = 0;
	}
out:
	explicit_bzero(text, sizeof text);
	if (rc)
		explicit_bzero(pass, HJD_WALLET_PASS_MAX + 1);
	return rc;
}
