/* The EVM dealer's secret key: where it is, who may read it, what it holds
 * (see dealer_key.h); the file and its text are chain/keyfile.c's. */
#include "dealer_key.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "keyfile.h"
#include "quote.h"
#include "say.h"

#define SAY(...) hj_say(err, errlen, __VA_ARGS__)

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

int hjd_secret_path(const char *what, const char *example, const char *source,
                    char *path, size_t cap, char *err, size_t errlen)
{
	const char *dir;
	int n;

	if (source == NULL || source[0] == '\0') {
		SAY("%s: no file or credential name given", what);
		return -EINVAL;
	}
	if (strchr(source, '/') != NULL) {
		n = snprintf(path, cap, "%s", source);
	} else {
		if (strcmp(source, ".") == 0 || strcmp(source, "..") == 0) {
			SAY("%s: \"%s\" is not a credential name", what,
			    source);
			return -EINVAL;
		}
		dir = getenv("CREDENTIALS_DIRECTORY");
		if (dir == NULL || dir[0] == '\0') {
			SAY("%s \"%s\" is a systemd credential name (it has "
			    "no '/'), but $CREDENTIALS_DIRECTORY is not set: "
			    "run hashjackd under systemd with "
			    "LoadCredential=%s:%s, or give the file's path "
			    "(./%s for a file in the working directory)",
			    what, source, source, example, source);
			return -EINVAL;
		}
		n = snprintf(path, cap, "%s/%s", dir, source);
	}
	if (n < 0 || (size_t)n >= cap) {
		SAY("%s: path longer than %zu bytes", what, cap - 1);
		return -EINVAL;
	}
	return 0;
}

int hjd_dealer_key_path(const char *source, char *path, size_t cap, char *err,
                        size_t errlen)
{
	return hjd_secret_path("dealer key", "/etc/hashjack/dealer.key", source,
	                       path, cap, err, errlen);
}

int hjd_dealer_key_read(const hj_secp *ctx, const char *source,
                        uint8_t sk[HJ_EVM_SECKEY_LEN], char *err, size_t errlen)
{
	struct where w;
	/* One byte more than a key file may hold tells a long file. */
	char text[HJ_KEYFILE_EVM_MAX + 1], fix[HJ_DEALER_KEY_PATH_MAX + 16];
	hj_keyfile_fault f;
	size_t n = 0;
	int rc;

	rc = hjd_dealer_key_path(source, w.path, sizeof w.path, err, errlen);
	if (rc)
		goto out;
	where_init(&w, source);
	/* A credential is systemd's: its words, and its ACL (keyfile.h). */
	rc = hj_keyfile_read(w.path, w.name,
	                     w.credential ? HJ_KEYFILE_ACL_OK : 0, text,
	                     sizeof text, &n, &f, err, errlen);
	if (rc && w.credential && f.step == HJ_KEYFILE_OPEN)
		SAY("cannot open %s: %s (does the unit have "
		    "LoadCredential=%s:/path/to/key?)",
		    w.name, strerror(-rc), source);
	if (rc && w.credential && f.step == HJ_KEYFILE_MODE) {
		hj_shell_word(w.path, fix, sizeof fix);
		SAY("%s has mode %04o: group or others may access the secret "
		    "key; systemd creates credentials with mode 0400, so "
		    "this file was not made by LoadCredential= (check "
		    "$CREDENTIALS_DIRECTORY), or fix it with: chmod 600 %s",
		    w.name, f.mode & 07777, fix);
	}
	if (rc == 0)
		rc =
		    hj_keyfile_evm_parse(ctx, w.name, text, n, sk, err, errlen);
out:
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
