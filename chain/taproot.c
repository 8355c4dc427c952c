/* BIP-86 output keys and tr(P) addresses (see taproot.h). */
#include "taproot.h"
#include "taproot_ctx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include "say.h"

int hj_secp_random(uint8_t *buf, size_t n, char *err, size_t errlen)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			hj_say(err, errlen, "getrandom: %s", strerror(e));
			return -e;
		}
		got += (size_t)r;
	}
	return 0;
}

int hj_secp_new(hj_secp **out, char *err, size_t errlen)
{
	hj_secp *ctx = NULL;
	uint8_t seed[32];
	int rc;

	*out = NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		goto nomem;
	ctx->ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
	if (ctx->ctx == NULL)
		goto nomem;
	rc = hj_secp_random(seed, sizeof(seed), err, errlen);
	if (rc != 0)
		goto fail;
	/* Blinds the signing and key generation arithmetic; returns 0 only
	 * on an invalid context, which create does not hand out. */
	if (!secp256k1_context_randomize(ctx->ctx, seed)) {
		hj_say(err, errlen, "secp256k1: context randomisation failed");
		rc = -EINVAL;
		goto fail;
	}
	explicit_bzero(seed, sizeof(seed));
	*out = ctx;
	return 0;
nomem:
	hj_say(err, errlen, "secp256k1 context: out of memory");
	rc = -ENOMEM;
fail:
	explicit_bzero(seed, sizeof(seed));
	hj_secp_free(ctx);
	return rc;
}

void hj_secp_free(hj_secp *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->ctx != NULL)
		secp256k1_context_destroy(ctx->ctx);
	free(ctx);
}

struct chain_hrp {
	const char *coin, *chain, *hrp;
};

static const struct chain_hrp hrps[] = {
    {"bitcoin", "main", "bc"},      {"bitcoin", "test", "tb"},
    {"bitcoin", "testnet4", "tb"},  {"bitcoin", "signet", "tb"},
    {"bitcoin", "regtest", "bcrt"}, {"litecoin", "main", "ltc"},
    {"litecoin", "test", "tltc"},   {"litecoin", "regtest", "rltc"},
};

int hj_taproot_hrp(const char *coin, const char *chain, const char **hrp,
                   char *err, size_t errlen)
{
	int coin_known = 0;

	for (size_t i = 0; i < sizeof(hrps) / sizeof(hrps[0]); i++) {
		if (strcmp(hrps[i].coin, coin) != 0)
			continue;
		coin_known = 1;
		if (strcmp(hrps[i].chain, chain) == 0) {
			*hrp = hrps[i].hrp;
			return 0;
		}
	}
	if (err != NULL && errlen > 0) {
		if (!coin_known)
			hj_say(err, errlen,
			       "unknown coin \"%.40s\" (bitcoin or litecoin)",
			       coin);
		else
			hj_say(err, errlen,
			       "unknown %s chain \"%.40s\" (not a chain name "
			       "getblockchaininfo prints)",
			       coin, chain);
	}
	return -EINVAL;
}

int hj_taproot_output_key(const hj_secp *ctx, const uint8_t p[HJ_XONLY_LEN],
                          uint8_t q[HJ_XONLY_LEN], char *err, size_t errlen)
{
	static const char tag[] = "TapTweak";
	secp256k1_xonly_pubkey in, out;
	secp256k1_pubkey full;
	uint8_t tweak[32];

	if (!secp256k1_xonly_pubkey_parse(ctx->ctx, &in, p)) {
		hj_say(err, errlen,
		       "not an x-only public key: no curve point has "
		       "this x coordinate");
		return -EINVAL;
	}
	if (!secp256k1_tagged_sha256(ctx->ctx, tweak, (const uint8_t *)tag,
	                             sizeof(tag) - 1, p, HJ_XONLY_LEN) ||
	    !secp256k1_xonly_pubkey_tweak_add(ctx->ctx, &full, &in, tweak) ||
	    !secp256k1_xonly_pubkey_from_pubkey(ctx->ctx, &out, NULL, &full) ||
	    !secp256k1_xonly_pubkey_serialize(ctx->ctx, q, &out)) {
		/* Only a tweak at or above the group order (or one that
		 * cancels P) gets here: probability about 2^-128. */
		hj_say(err, errlen, "taproot tweak of this key is not usable");
		return -EINVAL;
	}
	return 0;
}

int hj_taproot_address(const hj_secp *ctx, const uint8_t p[HJ_XONLY_LEN],
                       const char *hrp, char out[HJ_BECH32_BUF], char *err,
                       size_t errlen)
{
	uint8_t q[HJ_XONLY_LEN];
	int rc;

	rc = hj_taproot_output_key(ctx, p, q, err, errlen);
	if (rc)
		return rc;
	if (hj_segwit_encode(hrp, 1, q, sizeof(q), out, err, errlen))
		return -EINVAL;
	return 0;
}
