/*
 * Raw EIP-1559 transactions (chain/evm_tx.h) and the RLP decoder under
 * them (chain/rlp.h).
 *
 * The whole input as a raw transaction: what decodes has its fields in
 * range and points into the input, and encodes back byte for byte
 * (hj_eip1559_encode_signed), and its unsigned form
 * (hj_eip1559_encode_unsigned) is the same nine fields; a refusal has a
 * reason.
 *
 * The input after its first byte (a transaction's type byte) as a sequence
 * of RLP items, walked down to HJ_RLP_DEPTH lists deep: a decoder that
 * accepts only canonical forms must give items that the encoder writes
 * back byte for byte; every string read as an integer writes back the
 * same way; a refusal leaves the cursor where it was, with a reason.
 */
#include <errno.h>

#include "fuzz.h"

#include "evm_tx.h"
#include "rlp.h"
#include "say.h"

/* Deeper than the encoder goes, so that its limit is reached too. */
#define WALK_DEPTH (HJ_RLP_DEPTH + 2)

/* Checks a string item read as an integer: a number of at most 16 bytes
 * without a leading zero, which the encoder writes back as item[0..n). */
static void check_int(const hj_rlp_item *it, const uint8_t *item, size_t n)
{
	unsigned __int128 v;
	uint64_t w;
	uint8_t buf[32];
	char err[HJ_ERRLEN];
	size_t m;
	hj_rlp r;
	int rc;

	err[0] = '\0';
	rc = hj_rlp_get_u128(it, "v", &v, err, sizeof err);
	if (it->len > 0 && it->p[0] == 0)
		FUZZ_CHECK(rc == -EINVAL);
	else
		FUZZ_CHECK(rc == (it->len > 16 ? -ERANGE : 0));
	if (rc != 0) {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(hj_rlp_get_u64(it, "v", &w, NULL, 0) == rc);
		return;
	}
	hj_rlp_init(&r, buf, sizeof buf);
	hj_rlp_u128(&r, v);
	FUZZ_CHECK(hj_rlp_finish(&r, &m) == 0);
	FUZZ_CHECK(m == n && memcmp(buf, item, n) == 0);
	rc = hj_rlp_get_u64(it, "v", &w, NULL, 0);
	FUZZ_CHECK(rc == (v > UINT64_MAX ? -ERANGE : 0));
	FUZZ_CHECK(rc != 0 || w == v);
}

/*
 * Decodes the items of (p, n) and encodes them again into r.  Returns 0, or
 * -EINVAL when some item is refused.  *deepest is the deepest list opened.
 */
static int walk(hj_rlp *r, const uint8_t *p, size_t n, int depth, int *deepest)
{
	hj_rlp_item it;
	char err[HJ_ERRLEN];

	while (n > 0) {
		const uint8_t *p0 = p;
		size_t n0 = n;

		err[0] = '\0';
		if (hj_rlp_next(&p, &n, &it, err, sizeof err) != 0) {
			FUZZ_CHECK(err[0] != '\0');
			FUZZ_CHECK(p == p0 && n == n0);
			return -EINVAL;
		}
		FUZZ_CHECK(n < n0 && p == p0 + (n0 - n));
		FUZZ_CHECK(it.p >= p0 && it.p + it.len == p);
		if (!it.is_list) {
			check_int(&it, p0, n0 - n);
			hj_rlp_bytes(r, it.p, it.len);
			continue;
		}
		if (depth + 1 > *deepest)
			*deepest = depth + 1;
		if (depth + 1 > WALK_DEPTH)
			continue;
		hj_rlp_list_begin(r);
		if (walk(r, it.p, it.len, depth + 1, deepest) != 0)
			return -EINVAL;
		hj_rlp_list_end(r);
	}
	return 0;
}

static void check_rlp(const uint8_t *p, size_t n)
{
	uint8_t *out = malloc(n + 1);
	int deepest = 0, rc;
	size_t m = 0;
	hj_rlp r;

	FUZZ_CHECK(out != NULL);
	hj_rlp_init(&r, out, n);
	if (walk(&r, p, n, 0, &deepest) == 0) {
		rc = hj_rlp_finish(&r, &m);
		if (deepest > HJ_RLP_DEPTH) {
			FUZZ_CHECK(rc == -E2BIG);
		} else {
			FUZZ_CHECK(rc == 0);
			FUZZ_CHECK(m == n && memcmp(out, p, n) == 0);
		}
	}
	free(out);
}

static void check_tx(const uint8_t *raw, size_t len)
{
	hj_eip1559_tx tx;
	hj_eip1559_sig sig;
	hj_rlp_item signed_list, unsigned_list;
	const uint8_t *sp, *up;
	uint8_t *out;
	size_t n, u, sn, un;
	char err[HJ_ERRLEN];
	int rc;

	err[0] = '\0';
	rc = hj_eip1559_decode(raw, len, &tx, &sig, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK((rc == -EINVAL || rc == -ERANGE) && err[0] != '\0');
		FUZZ_CHECK(hj_eip1559_decode(raw, len, NULL, NULL, NULL, 0) ==
		           rc);
		return;
	}
	FUZZ_CHECK(hj_eip1559_decode(raw, len, NULL, NULL, NULL, 0) == 0);
	FUZZ_CHECK(sig.y_parity <= 1);
	FUZZ_CHECK(tx.data_len <= HJ_EIP1559_DATA_MAX);
	FUZZ_CHECK((tx.data == NULL) == (tx.data_len == 0));
	FUZZ_CHECK(tx.data_len == 0 ||
	           (tx.data > raw && tx.data + tx.data_len <= raw + len));
	/* Every field fits the room the encoder is sized for. */
	FUZZ_CHECK(len <= HJ_EIP1559_RAW_MAX);

	out = malloc(HJ_EIP1559_RAW_MAX);
	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(hj_eip1559_encode_signed(&tx, &sig, out, HJ_EIP1559_RAW_MAX,
	                                    &n, err, sizeof err) == 0);
	FUZZ_CHECK(n == len && memcmp(out, raw, len) == 0);
	/* Exactly the room it needs is enough, one byte less is not. */
	FUZZ_CHECK(hj_eip1559_encode_signed(&tx, &sig, out, len, &n, NULL, 0) ==
	           0);
	FUZZ_CHECK(hj_eip1559_encode_signed(&tx, &sig, out, len - 1, &n, NULL,
	                                    0) == -ENOSPC);
	FUZZ_CHECK(hj_eip1559_encode_unsigned(&tx, out, HJ_EIP1559_RAW_MAX, &u,
	                                      err, sizeof err) == 0);
	FUZZ_CHECK(out[0] == HJ_EIP1559_TYPE);
	/* Its list holds the signed list's items less the signature's. */
	sp = raw + 1;
	sn = len - 1;
	up = out + 1;
	un = u - 1;
	FUZZ_CHECK(hj_rlp_next(&sp, &sn, &signed_list, NULL, 0) == 0);
	FUZZ_CHECK(hj_rlp_next(&up, &un, &unsigned_list, NULL, 0) == 0);
	FUZZ_CHECK(sn == 0 && un == 0);
	FUZZ_CHECK(unsigned_list.len < signed_list.len);
	FUZZ_CHECK(memcmp(unsigned_list.p, signed_list.p, unsigned_list.len) ==
	           0);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_tx(data, size);
	if (size > 0)
		check_rlp(data + 1, size - 1);
	return 0;
}
