/*
 * The action payload codec of both families (game/payload.h): the first
 * byte picks the family, the rest is a transaction's data.  A payload that
 * parses encodes to one that parses to the same action; a refusal names a
 * reason.
 */
#include "fuzz.h"

#include "payload.h"
#include "reason.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	hj_family fam = fuzz_u8(&in) & 1 ? HJ_BITCOIN : HJ_EVM;
	hj_payload a, b;
	uint8_t enc[HJ_PAYLOAD_MAX];
	size_t n;
	int rc;

	memset(&a, 0, sizeof a);
	rc = hj_payload_parse(fam, in.p, in.n, &a);
	FUZZ_CHECK(rc >= HJ_OK && rc < HJ_R_COUNT);
	if (rc != HJ_OK)
		return 0;
	n = hj_payload_encode(fam, &a, enc);
	FUZZ_CHECK(n > 0 && n <= HJ_PAYLOAD_MAX && n <= in.n);
	memset(&b, 0, sizeof b);
	FUZZ_CHECK(hj_payload_parse(fam, enc, n, &b) == HJ_OK);
	FUZZ_CHECK(a.act == b.act && a.insurance == b.insurance &&
	           a.side_pp == b.side_pp && a.side_t3 == b.side_t3);
	FUZZ_CHECK(memcmp(a.key, b.key, sizeof a.key) == 0 &&
	           memcmp(a.round, b.round, sizeof a.round) == 0 &&
	           memcmp(a.sig, b.sig, sizeof a.sig) == 0);
	return 0;
}
