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

/* A chain of length seeds with no marks yet: the spacing k about
 * sqrt(L), room for the marks and a segment. */
static hjd_seedchain *chain_new(uint32_t length)
{
	hjd_seedchain *sc = calloc(1, sizeof *sc);

	if (!sc)
		return NULL;
	sc->length = length;
	for (sc->k = 1; (uint64_t)sc->k * sc->k < length; sc->k++)
		;
	sc->nmarks = (length + sc->k - 1) / sc->k;
	sc->marks = calloc(sc->nmarks, sizeof *sc->marks);
	sc->seg = calloc(sc->k, sizeof *sc->seg);
	if (!sc->marks || !sc->seg) {
		hjd_seedchain_free(sc);
		return NULL;
	}
	return sc;
}

/* Walks s_L down to s_0 (into s0), keeping the marks: at L and at every
 * multiple of k below it. */
static void walk(hjd_seedchain *sc, const uint8_t top[HJ_SEED_LEN],
                 uint8_t s0[HJ_SEED_LEN])
{
	uint8_t s[HJ_SEED_LEN];

	memcpy(s, top, sizeof s);
	for (uint32_t i = sc->length; i >= 1; i--) {
		if (i == sc->length || i % sc->k == 0)
			memcpy(sc->marks[(i - 1) / sc->k], s, HJ_SEED_LEN);
		hj_seed_prev(s, s);
	}
	memcpy(s0, s, HJ_SEED_LEN);
	explicit_bzero(s, sizeof s);
}

/*
 * The marks file, <commitment>.marks beside the chain's: a cache of one
 * walk, so that a start does not walk L hashes again.  "hjmarks1", L and
 * k (u32, big-endian), the marks, then SHA-256 of everything before it;
 * as secret as the chain's file (mode 0600).  A file that is missing, of
 * another size or whose digest differs is ignored: the chain is walked and
 * the file written again.
 */
#define MARKS_MAGIC "hjmarks1"

static size_t marks_size(const hjd_seedchain *sc)
{
	return 8 + 8 + sc->nmarks * HJ_SEED_LEN + HJ_SHA256_LEN;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The file's bytes for sc, into buf (marks_size). */
static void marks_format(const hjd_seedchain *sc, uint8_t *buf)
{
	size_t body = marks_size(sc) - HJ_SHA256_LEN;

	memcpy(buf, MARKS_MAGIC, 8);
	put_be32(buf + 8, sc->length);
	put_be32(buf + 12, sc->k);
	memcpy(buf + 16, sc->marks, sc->nmarks * HJ_SEED_LEN);
	hj_sha256(buf, body, buf + body);
}

/* Best effort: a missing cache only costs a walk at the next start. */
static void marks_write(const char *dir, const hjd_seedchain *sc,
                        const uint8_t commitment[HJ_SEED_LEN])
{
	char tmp[4096], path[4096], err[HJ_ERRLEN];
	size_t n = marks_size(sc);
	uint8_t *buf = malloc(n);
	hj_keyfile_fault f;

	if (!buf)
		return;
	marks_format(sc, buf);
	if (chain_path(dir, commitment, ".marks.tmp", tmp, sizeof tmp) == 0 &&
	    chain_path(dir, commitment, ".marks", path, sizeof path) == 0) {
		unlink(tmp);
		if (hj_keyfile_write(tmp, (const char *)buf, n, &f, err,
		                     sizeof err) == 0 &&
		    rename(tmp, path) != 0)
			unlink(tmp);
	}
	explicit_bzero(buf, n);
	free(buf);
}

/* Loads sc's marks from its cache: 0, or -1 (walk instead).  The cache
 * must agree with the chain's file at both ends: its last mark is s_L,
 * and its first hashes down to the commitment. */
static int marks_read(const char *dir, hjd_seedchain *sc,
                      const uint8_t top[HJ_SEED_LEN],
                      const uint8_t commitment[HJ_SEED_LEN])
{
	char path[4096], err[HJ_ERRLEN];
	size_t want = marks_size(sc), n = 0;
	char *buf = malloc(want + 1);
	uint8_t digest[HJ_SHA256_LEN], ref[8 + 8], s[HJ_SEED_LEN];
	hj_keyfile_fault f;
	int rc = -1;

	if (!buf ||
	    chain_path(dir, commitment, ".marks", path, sizeof path) != 0 ||
	    hj_keyfile_read(path, path, 0, buf, want + 1, &n, &f, err,
	                    sizeof err) != 0 ||
	    n != want)
		goto out;
	memcpy(ref, MARKS_MAGIC, 8);
	put_be32(ref + 8, sc->length);
	put_be32(ref + 12, sc->k);
	hj_sha256(buf, want - HJ_SHA256_LEN, digest);
	if (memcmp(buf, ref, sizeof ref) != 0 ||
	    memcmp(buf + want - HJ_SHA256_LEN, digest, sizeof digest) != 0)
		goto out;
	memcpy(sc->marks, buf + 16, sc->nmarks * HJ_SEED_LEN);
	/* marks[0] is s_min(k, L): that many hashes give s_0. */
	memcpy(s, sc->marks[0], sizeof s);
	for (uint32_t i = sc->k < sc->length ? sc->k : sc->length; i > 0; i--)
		hj_seed_prev(s, s);
	if (memcmp(sc->marks[sc->nmarks - 1], top, HJ_SEED_LEN) == 0 &&
	    memcmp(s, commitment, HJ_SEED_LEN) == 0)
		rc = 0;
	explicit_bzero(s, sizeof s);
out:
	if (buf) {
		explicit_bzero(buf, want + 1);
		free(buf);
	}
	return rc;
}

int hjd_seedchain_create(const char *dir, uint32_t length,
                         uint8_t commitment[HJ_SEED_LEN], char *err,
                         size_t errlen)
{
	char sub[4096], tmp[4096], path[4096], text[HJD_SEEDFILE_TEXT];
	char why[HJ_ERRLEN];
	uint8_t top[HJ_SEED_LEN];
	hjd_seedchain *sc;
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
	sc = chain_new(length);
	if (!sc) {
		explicit_bzero(top, sizeof top);
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	walk(sc, top, commitment);
	if (chain_path(dir, commitment, ".tmp", tmp, sizeof tmp) ||
	    chain_path(dir, commitment, "", path, sizeof path)) {
		explicit_bzero(top, sizeof top);
		hjd_seedchain_free(sc);
		hj_say(err, errlen, "%s/seeds: path too long", dir);
		return -ENAMETOOLONG;
	}
	n = hjd_seedfile_format(length, top, text);
	explicit_bzero(top, sizeof top);
	rc = hj_keyfile_write(tmp, text, n, &f, err, errlen);
	explicit_bzero(text, sizeof text);
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -errno;
		hj_say(err, errlen, "cannot rename %s to %s: %s", tmp, path,
		       strerror(-rc));
		unlink(tmp);
	}
	if (rc == 0) {
		hj_keyfile_sync_dir(path);
		marks_write(dir, sc, commitment);
	}
	hjd_seedchain_free(sc);
	return rc;
}

int hjd_seedchain_open(const char *dir, const uint8_t commitment[HJ_SEED_LEN],
                       uint32_t length, hjd_seedchain **out, char *err,
                       size_t errlen)
{
	char path[4096], name[4200], text[HJD_SEEDFILE_TEXT], why[HJ_ERRLEN];
	uint8_t s[HJ_SEED_LEN], s0[HJ_SEED_LEN];
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
	sc = chain_new(length);
	if (!sc) {
		explicit_bzero(s, sizeof s);
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (marks_read(dir, sc, s, commitment) != 0) {
		walk(sc, s, s0);
		if (memcmp(s0, commitment, HJ_SEED_LEN) != 0) {
			explicit_bzero(s, sizeof s);
			hjd_seedchain_free(sc);
			hj_say(err, errlen,
			       "%s: its seed does not hash down to the "
			       "commitment its name says",
			       name);
			return -EINVAL;
		}
		marks_write(dir, sc, commitment);
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
