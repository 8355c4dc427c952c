/*
 * Bech32 and bech32m text and segwit addresses (chain/bech32.h).  Whatever
 * decodes encodes back, from its hrp, values and checksum variant, to the
 * same string in lower case; a segwit address that decodes is a program of
 * a length its version allows, with the checksum its version calls for,
 * and encodes back the same way; every refusal is a status of the right
 * group with a reason in err.
 */
#include "fuzz.h"

#include "bech32.h"
#include "say.h"

/* More than any string the decoder accepts (90): longer text is refused
 * from its first 91 characters, whatever follows. */
#define TEXT_MAX 128

static void lower(const char *s, char *out)
{
	size_t i = 0;

	for (; s[i] != '\0'; i++)
		out[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a')
		                                    : s[i];
	out[i] = '\0';
}

static int is_lower(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'Z')
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char s[TEXT_MAX + 1], low[TEXT_MAX + 1], enc[HJ_BECH32_BUF],
	    err[HJ_ERRLEN];
	char hrp[HJ_BECH32_HRP_MAX + 1];
	uint8_t vals[HJ_BECH32_DATA_MAX], prog[HJ_SEGWIT_PROG_MAX];
	size_t len, nvals = 0, plen = 0;
	hj_bech32_variant var = 0;
	int st, sw, ver = -1;

	/* The decoders read a C string: what follows a NUL is not seen. */
	fuzz_take(&in, s, TEXT_MAX, &len);
	lower(s, low);

	err[0] = '\0';
	st = hj_bech32_decode(s, hrp, vals, &nvals, &var, err, sizeof err);
	FUZZ_CHECK(st >= HJ_B32_OK && st < HJ_B32_WRONG_HRP);
	FUZZ_CHECK(strcmp(hj_bech32_strerror(st), "unknown status") != 0);
	if (st != HJ_B32_OK) {
		FUZZ_CHECK(err[0] != '\0');
	} else {
		FUZZ_CHECK(strlen(s) <= HJ_BECH32_MAX);
		FUZZ_CHECK(var == HJ_BECH32 || var == HJ_BECH32M);
		FUZZ_CHECK(hrp[0] != '\0' && is_lower(hrp));
		FUZZ_CHECK(nvals <= HJ_BECH32_DATA_MAX);
		for (size_t i = 0; i < nvals; i++)
			FUZZ_CHECK(vals[i] <= 31);
		FUZZ_CHECK(hj_bech32_encode(hrp, vals, nvals, var, enc, err,
		                            sizeof err) == HJ_B32_OK);
		FUZZ_CHECK(strcmp(enc, low) == 0);
		/* Any other hrp is the wrong one. */
		FUZZ_CHECK(hj_segwit_decode(hrp[0] == 'b' ? "x" : "b", s, &ver,
		                            prog, &plen, NULL,
		                            0) == HJ_B32_WRONG_HRP);
	}

	/* As a segwit address of the hrp it carries, so that the address
	 * rules are reached whatever the hrp. */
	err[0] = '\0';
	sw = hj_segwit_decode(st == HJ_B32_OK ? hrp : "bc", s, &ver, prog,
	                      &plen, err, sizeof err);
	FUZZ_CHECK(sw >= HJ_B32_OK && sw < HJ_B32_BAD_HRP);
	if (st != HJ_B32_OK)
		FUZZ_CHECK(sw == st);
	if (sw != HJ_B32_OK) {
		FUZZ_CHECK(err[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(ver >= 0 && ver <= 16);
	FUZZ_CHECK(plen >= 2 && plen <= HJ_SEGWIT_PROG_MAX);
	FUZZ_CHECK(ver != 0 || plen == 20 || plen == 32);
	FUZZ_CHECK((ver == 0) == (var == HJ_BECH32));
	FUZZ_CHECK(hj_segwit_encode(hrp, ver, prog, plen, enc, err,
	                            sizeof err) == HJ_B32_OK);
	FUZZ_CHECK(strcmp(enc, low) == 0);
	return 0;
}
