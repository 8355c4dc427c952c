/*
 * The player's key file (chain/keyfile.h, hj_keyfile_btc_parse; docs/
 * BITCOIN-KEYS.md): the input is the file's text.
 *
 * A key that parses has the P of its secret, came from the one line that
 * is neither empty nor a comment, and writes back (hj_keyfile_btc_format,
 * keygen's format) to a text that parses to the same key.  A text whose
 * only such line is a valid secret key, without "# P " lines, parses.  A
 * refusal is -EINVAL with a message naming the file, never quoting the
 * secret, and leaves the key wiped.
 */
#include "fuzz.h"

#include <errno.h>

#include "btcsig.h"
#include "hex.h"
#include "keyfile.h"
#include "say.h"

#define NAME "fuzz.key"

static hj_secp *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char why[HJ_ERRLEN];

	(void)argc;
	(void)argv;
	if (hj_secp_new(&ctx, why, sizeof why) != 0) {
		fprintf(stderr, "fuzz_player_key: %s\n", why);
		abort();
	}
	return 0;
}

/* "# P ", P, "\n", the secret, "\n". */
#define TAIL (4 + 64 + 1 + 64 + 1)

/* 32 bytes as 64 lower-case hex digits, NUL-terminated. */
static void lower_hex(const uint8_t b[32], char out[65])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < 32; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[64] = '\0';
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/* The lines of text[0..n), read here apart from the parser. */
struct lines {
	size_t keys;    /* lines neither empty nor comments */
	size_t p;       /* "# P " lines */
	int key_ok;     /* the first key line is 64 hex digits */
	uint8_t sk[32]; /* ... which are this */
};

static void scan(const char *t, size_t n, struct lines *l)
{
	size_t at = 0;

	memset(l, 0, sizeof *l);
	while (at < n) {
		const char *nl = memchr(t + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - t - at) : n - at;
		const char *s = t + at;

		at += len + (nl != NULL);
		if (len == 0)
			continue;
		if (s[0] == '#') {
			l->p += len >= 4 && memcmp(s, "# P ", 4) == 0;
			continue;
		}
		if (l->keys++ == 0)
			l->key_ok =
			    hj_hex_decode_exact(s, len, HJ_HEX_BARE, l->sk,
			                        sizeof l->sk, NULL, 0) == 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	hj_keyfile_btc k, again;
	uint8_t pk[HJ_XONLY_LEN];
	char err[HJ_ERRLEN] = "", out[HJ_KEYFILE_BTC_TEXT];
	char hpk[65], hsk[65], tail[TAIL + 1];
	struct lines l;
	size_t n;
	int rc, valid;

	scan(text, size, &l);
	valid = l.key_ok && hj_btc_pubkey(ctx, l.sk, pk, NULL, 0) == 0;
	memset(&k, 0xa5, sizeof k);
	rc = hj_keyfile_btc_parse(ctx, NAME, text, size, &k, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(strncmp(err, NAME ":", strlen(NAME ":")) == 0);
		FUZZ_CHECK(strlen(err) > strlen(NAME) + 2);
		FUZZ_CHECK(all_zero(&k, sizeof k));
		/* One valid key line and nothing to compare it with. */
		FUZZ_CHECK(!(l.keys == 1 && valid && l.p == 0));
		/* A message never quotes the secret. */
		lower_hex(l.sk, hsk);
		FUZZ_CHECK(!l.key_ok || strcasestr(err, hsk) == NULL);
		return 0;
	}
	FUZZ_CHECK(l.keys == 1 && valid && l.p <= 1);
	FUZZ_CHECK(memcmp(k.sk, l.sk, sizeof k.sk) == 0);
	FUZZ_CHECK(memcmp(k.pk, pk, sizeof k.pk) == 0);

	n = hj_keyfile_btc_format(&k, out, sizeof out);
	FUZZ_CHECK(n > 0 && n < sizeof out && strlen(out) == n);
	memset(&again, 0, sizeof again);
	FUZZ_CHECK(hj_keyfile_btc_parse(ctx, NAME, out, n, &again, err,
	                                sizeof err) == 0);
	FUZZ_CHECK(memcmp(&again, &k, sizeof k) == 0);
	/* keygen's text: a header line, "# P " and P, the secret. */
	lower_hex(k.pk, hpk);
	lower_hex(k.sk, hsk);
	snprintf(tail, sizeof tail, "# P %s\n%s\n", hpk, hsk);
	FUZZ_CHECK(n > TAIL && strcmp(out + n - TAIL, tail) == 0);
	FUZZ_CHECK(strncmp(out, "# hashjack player key: ", 23) == 0);
	FUZZ_CHECK(memchr(out, '\n', n - TAIL) == out + n - TAIL - 1);
	return 0;
}
