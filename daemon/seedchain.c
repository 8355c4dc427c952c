/* The dealer's seed chains (see seedchain.h). */
#include "seedchain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hex.h"
#include "keyfile.h"
#include "say.h"
#include "sha256.h"
#include "taproot_ctx.h"

#define HEADER "# hashjack seed chain: secret, keep it private and backed up\n"

struct hjd_seedchain {
	uint8_t commitment[HJ_SEED_LEN];
	uint32_t length;
	uint32_t k;                    /* checkpoint spacing */
	uint8_t (*marks)[HJ_SEED_LEN]; /* marks[j] = s_min(L, (j + 1) k) */
	size_t nmarks;
	/* The segment last walked: seg[t] = s_(seg_lo + t), t < seg_n. */
	uint8_t (*seg)[HJ_SEED_LEN];
	uint32_t seg_lo, seg_n;
};

int hjd_seedfile_parse(const char *text, size_t n, uint32_t *length,
                       uint8_t seed[HJ_SEED_LEN], char *err, size_t errlen)
{
	const char *p = text, *end = text + n, *nl;
	unsigned long long v = 0;
	size_t len;

	len = sizeof HEADER - 1;
	if (n < len || memcmp(p, HEADER, len) != 0) {
		hj_say(err, errlen, "the first line is not \"%.*s\"",
		       (int)len - 1, HEADER);
		return -EINVAL;
	}
	p += len;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || nl - p < 8 || memcmp(p, "length ", 7) != 0) {
		hj_say(err, errlen, "the second line is not \"length L\"");
		return -EINVAL;
	}
	for (const char *d = p + 7; d < nl; d++) {
		if (*d < '0' || *d > '9' || (d == p + 7 && *d == '0') ||
		    v > HJD_SEEDS_MAX) {
			hj_say(err, errlen,
			       "the length is not a number from 1 to %u",
			       HJD_SEEDS_MAX);
			return -EINVAL;
		}
		v = v * 10 + (unsigned)(*d - '0');
	}
	if (v < 1 || v > HJD_SEEDS_MAX) {
		hj_say(err, errlen, "the length is not a number from 1 to %u",
		       HJD_SEEDS_MAX);
		return -EINVAL;
	}
	p = nl + 1;
	if (end - p != 5 + 2 * HJ_SEED_LEN + 1 || memcmp(p, "seed ", 5) != 0 ||
	    end[-1] != '\n') {
		hj_say(err, errlen,
		       "the third line is not \"seed\" and 64 hex digits, "
		       "the file's last");
		return -EINVAL;
	}
	for (int i = 0; i < 2 * HJ_SEED_LEN; i++) {
		char c = p[5 + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			hj_say(err, errlen,
			       "the seed is not 64 lower-case hex digits");
			return -EINVAL;
		}
	}
	hj_hex_decode_exact(p + 5, 2 * HJ_SEED_LEN, HJ_HEX_BARE, seed,
	                    HJ_SEED_LEN, NULL, 0);
	*length = (uint32_t)v;
	return 0;
}

size_t hjd_seedfile_format(uint32_t length, const uint8_t seed[HJ_SEED_LEN],
                           char out[HJD_SEEDFILE_TEXT])
{
	char hex[2 * HJ_SEED_LEN + 1];
	int n;

	hj_hex_encode(seed, HJ_SEED_LEN, 0, hex);
	n = snprintf(out, HJD_SEEDFILE_TEXT, HEADER "length %u\nseed %s\n",
	             (unsigned)length, hex);
	explicit_bzero(hex, sizeof hex);
	return n > 0 ? (size_t)n : 0;
}

/* dir/seeds, and the file of commitment c in it (with suffix). */
static int chain_path(const char *dir, const uint8_t c[HJ_SEED_LEN],
                      const char *suffix, char *path, size_t cap)
{
	char hex[2 * HJ_SEED_LEN + 1];
	int n;

	hj_hex_encode(c, HJ_SEED_LEN, 0, hex);
	n = snprintf(path, cap, "%s/seeds/%s%s", dir, hex, suffix);
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

int hjd_seedchain_create(const char *dir, uint32_t length,
                         uint8_t commitment[HJ_SEED_LEN], char *err,
                         size_t errlen)
{
	char sub[4096], tmp[4096], path[4096], text[HJD_SEEDFILE_TEXT];
	char why[HJ_ERRLEN];
	uint8_t s[HJ_SEED_LEN], top[HJ_SEED_LEN];
	hj_keyfile_fault f;
	size_t n;
	int rc;

	if (length < 1 || length > HJD_SEEDS_MAX) {
		hj_say(err, errlen, "a seed chain has 1 to %u seeds, not %u",
		       HJD_SEEDS_MAX, (unsigned)length);
		return -EINVAL;
	}
	if (snprintf(sub, sizeof sub, "%s/seeds", dir) >= (int)sizeof sub) {
		hj_say(err, errlen, "%s/seeds: path too long", dir);
		return -ENAMETOOLONG;
	}
	if (mkdir(sub, 0700) != 0 && errno != EEXIST) {
		rc = -errno;
		hj_say(err, errlen, "cannot create %s: %s", sub, strerror(-rc));
		return rc;
	}
	rc = hj_secp_random(top, sizeof top, why, sizeof why);
	if (rc) {
		hj_say(err, errlen, "no randomness for a seed chain: %s", why);
		return rc;
	}
	memcpy(s, top, sizeof s);
	for (uint32_t i = length; i > 0; i--)
		hj_seed_prev(s, s);
	memcpy(commitment, s, HJ_SEED_LEN);
	if (chain_path(dir, commitment, ".tmp", tmp, sizeof tmp) ||
	    chain_path(dir, commitment, "", path, sizeof path)) {
		explicit_bzero(top, sizeof top);
		hj_say(err, errlen, "%s/seeds: path too long", dir);
		return -ENAMETOOLONG;
	}
	n = hjd_seedfile_format(length, top, text);
	explicit_bzero(top, sizeof top);
	rc = hj_keyfile_write(tmp, text, n, &f, err, errlen);
	explicit_bzero(text, sizeof text);
	if (rc)
		return rc;
	if (rename(tmp, path) != 0) {
		rc = -errno;
		hj_say(err, errlen, "cannot rename %s to %s: %s", tmp, path,
		       strerror(-rc));
		unlink(tmp);
		return rc;
	}
	hj_keyfile_sync_dir(path);
	return 0;
}

int hjd_seedchain_open(const char *dir, const uint8_t commitment[HJ_SEED_LEN],
                       uint32_t length, hjd_seedchain **out, char *err,
                       size_t errlen)
{
	char path[4096], name[4200], text[HJD_SEEDFILE_TEXT], why[HJ_ERRLEN];
	uint8_t s[HJ_SEED_LEN];
	hj_keyfile_fault f;
	hjd_seedchain *sc;
	uint32_t len;
	size_t n;
	int rc;

	*out = NULL;
	if (chain_path(dir, commitment, "", path, sizeof path)) {
		hj_say(err, errlen, "%s/seeds: path too long", dir);
		return -ENAMETOOLONG;
	}
	snprintf(name, sizeof name, "seed chain file %s", path);
	rc = hj_keyfile_read(path, name, 0, text, sizeof text, &n, &f, err,
	                     errlen);
	if (rc)
		return rc;
	rc = hjd_seedfile_parse(text, n, &len, s, why, sizeof why);
	explicit_bzero(text, sizeof text);
	if (rc) {
		hj_say(err, errlen, "%s: %s", name, why);
		return rc;
	}
	if (len != length) {
		explicit_bzero(s, sizeof s);
		hj_say(err, errlen,
		       "%s: holds %u seeds, the chain committed on chain %u",
		       name, (unsigned)len, (unsigned)length);
		return -EINVAL;
	}
	sc = calloc(1, sizeof *sc);
	if (!sc) {
		explicit_bzero(s, sizeof s);
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sc->length = length;
	for (sc->k = 1; (uint64_t)sc->k * sc->k < length; sc->k++)
		;
	sc->nmarks = (length + sc->k - 1) / sc->k;
	sc->marks = calloc(sc->nmarks, sizeof *sc->marks);
	sc->seg = calloc(sc->k, sizeof *sc->seg);
	if (!sc->marks || !sc->seg) {
		explicit_bzero(s, sizeof s);
		hjd_seedchain_free(sc);
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* s walks from s_L down to s_0; marks at L and at every multiple
	 * of k below it. */
	for (uint32_t i = length; i >= 1; i--) {
		if (i == length || i % sc->k == 0)
			memcpy(sc->marks[(i - 1) / sc->k], s, HJ_SEED_LEN);
		hj_seed_prev(s, s);
	}
	if (memcmp(s, commitment, HJ_SEED_LEN) != 0) {
		explicit_bzero(s, sizeof s);
		hjd_seedchain_free(sc);
		hj_say(err, errlen,
		       "%s: its seed does not hash down to the commitment "
		       "its name says",
		       name);
		return -EINVAL;
	}
	explicit_bzero(s, sizeof s);
	memcpy(sc->commitment, commitment, HJ_SEED_LEN);
	*out = sc;
	return 0;
}

int hjd_seedchain_reveal(hjd_seedchain *sc, uint32_t i,
                         uint8_t out[HJ_SEED_LEN])
{
	uint32_t j, hi, lo;
	uint8_t s[HJ_SEED_LEN];

	if (i < 1 || i > sc->length)
		return -EINVAL;
	if (sc->seg_n == 0 || i < sc->seg_lo || i >= sc->seg_lo + sc->seg_n) {
		/* The segment (lo .. hi] below the checkpoint at or above
		 * i: walked down from it once. */
		j = (i - 1) / sc->k;
		hi =
		    (j + 1) * sc->k < sc->length ? (j + 1) * sc->k : sc->length;
		lo = j * sc->k + 1;
		memcpy(s, sc->marks[j], HJ_SEED_LEN);
		for (uint32_t t = hi;; t--) {
			memcpy(sc->seg[t - lo], s, HJ_SEED_LEN);
			if (t == lo)
				break;
			hj_seed_prev(s, s);
		}
		explicit_bzero(s, sizeof s);
		sc->seg_lo = lo;
		sc->seg_n = hi - lo + 1;
	}
	memcpy(out, sc->seg[i - sc->seg_lo], HJ_SEED_LEN);
	return 0;
}

const uint8_t *hjd_seedchain_commitment(const hjd_seedchain *sc)
{
	return sc->commitment;
}

uint32_t hjd_seedchain_length(const hjd_seedchain *sc)
{
	return sc->length;
}

void hjd_seedchain_free(hjd_seedchain *sc)
{
	if (!sc)
		return;
	if (sc->marks)
		explicit_bzero(sc->marks, sc->nmarks * sizeof *sc->marks);
	if (sc->seg)
		explicit_bzero(sc->seg, sc->k * sizeof *sc->seg);
	free(sc->marks);
	free(sc->seg);
	free(sc);
}
