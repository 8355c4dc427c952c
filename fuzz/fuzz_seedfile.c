/*
 * The dealer's seed chain file (daemon/seedchain.h, hjd_seedfile_parse):
 * the input is the file's text.  A text is accepted exactly when it is the
 * three lines the format writes, and then formats back to the same bytes;
 * a refusal has a message that never quotes the text's hex.
 */
#include "fuzz.h"

#include <errno.h>

#include "say.h"
#include "seedchain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[HJD_SEEDFILE_TEXT], err[HJ_ERRLEN] = "";
	uint8_t seed[HJ_SEED_LEN];
	uint32_t length = 0;
	size_t n;
	int rc;

	rc = hjd_seedfile_parse((const char *)data, size, &length, seed, err,
	                        sizeof err);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL && err[0] != '\0');
		/* The longest hex run a message may hold is shorter than a
		 * seed's: no seed is ever quoted. */
		for (size_t i = 0, run = 0; err[i]; i++) {
			char c = err[i];

			run = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
			          ? run + 1
			          : 0;
			FUZZ_CHECK(run < 16);
		}
		return 0;
	}
	FUZZ_CHECK(length >= 1 && length <= HJD_SEEDS_MAX);
	n = hjd_seedfile_format(length, seed, text);
	FUZZ_CHECK(n == size && memcmp(text, data, size) == 0);
	return 0;
}
