/*
 * Hex as nodes write it (chain/hex.h): decoding under each prefix rule, the
 * exact-length form and EVM quantities.  What decodes encodes back to the
 * same digits (in lower case), and decodes again to the same bytes.
 */
#include "fuzz.h"

#include "hex.h"
#include "say.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[256], again[256];
	char enc[2 * sizeof out + 3], err[HJ_ERRLEN];
	const char *s = (const char *)data;
	size_t n = 0, m = 0;
	unsigned __int128 q;

	for (int pfx = HJ_HEX_BARE; pfx <= HJ_HEX_REQUIRED; pfx++) {
		if (hj_hex_decode(s, size, (hj_hex_prefix)pfx, out, sizeof out,
		                  &n, err, sizeof err) != 0) {
			FUZZ_CHECK(err[0] != '\0');
			continue;
		}
		FUZZ_CHECK(n <= sizeof out);
		hj_hex_encode(out, n, 0, enc);
		FUZZ_CHECK(hj_hex_decode(enc, 2 * n, HJ_HEX_BARE, again,
		                         sizeof again, &m, NULL, 0) == 0);
		FUZZ_CHECK(m == n && memcmp(again, out, n) == 0);
		FUZZ_CHECK(hj_hex_decode_exact(s, size, (hj_hex_prefix)pfx,
		                               again, n, NULL, 0) == 0);
		FUZZ_CHECK(memcmp(again, out, n) == 0);
	}
	if (hj_hex_decode_exact(s, size, HJ_HEX_OPTIONAL, out, 32, err,
	                        sizeof err) != 0)
		FUZZ_CHECK(err[0] != '\0');
	if (hj_hex_quantity(s, size, &q, err, sizeof err) != 0)
		FUZZ_CHECK(err[0] != '\0');
	return 0;
}
