/* BIP-340 keys and action signatures for the Bitcoin family (btcsig.h). */
#include "btcsig.h"
#include "taproot_ctx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "say.h"

static const char action_tag[] = "HashJack/action";

/* Smallest payload that can carry a tail: magic, version, action. */
#define BODY_MIN 4

int hj_btc_action_hash(const hj_btc_msg *m, uint8_t out[32])
{
	uint8_t
	    buf[HJ_BTC_GENESIS_LEN + HJ_BTC_SHORT_ID_LEN + 4 + HJ_BTC_BODY_MAX];
	size_t n = 0;

	if (m->body_len > HJ_BTC_BODY_MAX)
		return -EINVAL;
	memcpy(buf + n, m->genesis, HJ_BTC_GENESIS_LEN);
	n += HJ_BTC_GENESIS_LEN;
	memcpy(buf + n, m->short_id, HJ_BTC_SHORT_ID_LEN);
	n += HJ_BTC_SHORT_ID_LEN;
	buf[n++] = (uint8_t)(m->seq >> 24);
	buf[n++] = (uint8_t)(m->seq >> 16);
	buf[n++] = (uint8_t)(m->seq >> 8);
	buf[n++] = (uint8_t)m->seq;
	if (m->body_len > 0)
		memcpy(buf + n, m->body, m->body_len);
	n += m->body_len;
	/* Hashing needs no context state: the static context will do, and
	 * it cannot fail for non-NULL arguments. */
	if (!secp256k1_tagged_sha256(secp256k1_context_static, out,
	                             (const uint8_t *)action_tag,
	                             sizeof(action_tag) - 1, buf, n))
		return -EINVAL;
	return 0;
}

int hj_btc_pubkey(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                  uint8_t pk[HJ_XONLY_LEN], char *err, size_t errlen)
{
	secp256k1_keypair kp;
	secp256k1_xonly_pubkey xpk;
	int rc = 0;

	if (!secp256k1_keypair_create(ctx->ctx, &kp, sk)) {
		hj_say(err, errlen,
		       "invalid secret key: zero or not below the group order");
		rc = -EINVAL;
		goto out;
	}
	if (!secp256k1_keypair_xonly_pub(ctx->ctx, &xpk, NULL, &kp) ||
	    !secp256k1_xonly_pubkey_serialize(ctx->ctx, pk, &xpk)) {
		hj_say(err, errlen,
		       "secp256k1: cannot serialise the public key");
		rc = -EINVAL;
	}
out:
	explicit_bzero(&kp, sizeof(kp));
	return rc;
}

int hj_btc_keygen(const hj_secp *ctx, uint8_t sk[HJ_BTC_SECKEY_LEN],
                  uint8_t pk[HJ_XONLY_LEN], char *err, size_t errlen)
{
	int rc;

	/* A uniform 256-bit string is a valid key unless it is zero or at
	 * least the group order: the loop runs again with probability about
	 * 2^-128, so it is bounded in practice. */
	do {
		rc = hj_secp_random(sk, HJ_BTC_SECKEY_LEN, err, errlen);
		if (rc)
			goto fail;
	} while (!secp256k1_ec_seckey_verify(ctx->ctx, sk));
	rc = hj_btc_pubkey(ctx, sk, pk, err, errlen);
	if (rc)
		goto fail;
	return 0;
fail:
	explicit_bzero(sk, HJ_BTC_SECKEY_LEN);
	return rc;
}

int hj_bip340_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                     const uint8_t *msg, size_t msglen,
                     const uint8_t sig[HJ_BTC_SIG_LEN])
{
	secp256k1_xonly_pubkey xpk;

	if (!secp256k1_xonly_pubkey_parse(ctx->ctx, &xpk, pk))
		return -EINVAL;
	/* libsecp256k1 takes msg NULL only with msglen 0. */
	if (msg == NULL && msglen > 0)
		return -EINVAL;
	if (!secp256k1_schnorrsig_verify(ctx->ctx, sig, msg, msglen, &xpk))
		return -EBADMSG;
	return 0;
}

int hj_bip340_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                   const uint8_t msg[32], const uint8_t *aux,
                   uint8_t sig[HJ_BTC_SIG_LEN], char *err, size_t errlen)
{
	secp256k1_keypair kp;
	secp256k1_xonly_pubkey xpk;
	uint8_t fresh[32];
	int rc = 0;

	if (!secp256k1_keypair_create(ctx->ctx, &kp, sk)) {
		hj_say(err, errlen,
		       "invalid secret key: zero or not below the group order");
		rc = -EINVAL;
		goto out;
	}
	if (aux == NULL) {
		rc = hj_secp_random(fresh, sizeof(fresh), err, errlen);
		if (rc)
			goto out;
		aux = fresh;
	}
	if (!secp256k1_schnorrsig_sign32(ctx->ctx, sig, msg, &kp, aux) ||
	    !secp256k1_keypair_xonly_pub(ctx->ctx, &xpk, NULL, &kp) ||
	    !secp256k1_schnorrsig_verify(ctx->ctx, sig, msg, 32, &xpk)) {
		hj_say(err, errlen, "secp256k1: signing failed its own check");
		memset(sig, 0, HJ_BTC_SIG_LEN);
		rc = -EIO;
	}
out:
	explicit_bzero(&kp, sizeof(kp));
	explicit_bzero(fresh, sizeof(fresh));
	return rc;
}

int hj_btc_action_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                       const hj_btc_msg *m, uint8_t sig[HJ_BTC_SIG_LEN],
                       char *err, size_t errlen)
{
	uint8_t h[32];

	if (hj_btc_action_hash(m, h)) {
		hj_say(err, errlen, "payload body longer than an action's");
		return -EINVAL;
	}
	return hj_bip340_sign(ctx, sk, h, NULL, sig, err, errlen);
}

int hj_btc_action_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                         const hj_btc_msg *m, const uint8_t sig[HJ_BTC_SIG_LEN])
{
	uint8_t h[32];

	if (hj_btc_action_hash(m, h))
		return -EINVAL;
	return hj_bip340_verify(ctx, pk, h, sizeof(h), sig);
}

/* Splits p[0..n) into body, short id and signature. */
static int split(const uint8_t genesis[HJ_BTC_GENESIS_LEN], uint32_t seq,
                 const uint8_t *p, size_t n, hj_btc_msg *m)
{
	if (n < BODY_MIN + HJ_BTC_TAIL_LEN || n > HJ_PAYLOAD_MAX)
		return -EINVAL;
	m->genesis = genesis;
	m->short_id = p + n - HJ_BTC_TAIL_LEN;
	m->seq = seq;
	m->body = p;
	m->body_len = n - HJ_BTC_TAIL_LEN;
	return 0;
}

int hj_btc_payload_sign(const hj_secp *ctx, const uint8_t sk[HJ_BTC_SECKEY_LEN],
                        const uint8_t genesis[HJ_BTC_GENESIS_LEN], uint32_t seq,
                        uint8_t *p, size_t n, char *err, size_t errlen)
{
	hj_btc_msg m;

	if (split(genesis, seq, p, n, &m)) {
		hj_say(err, errlen,
		       "payload of %zu bytes cannot carry a signed "
		       "action (%d to %d)",
		       n, BODY_MIN + HJ_BTC_TAIL_LEN, HJ_PAYLOAD_MAX);
		return -EINVAL;
	}
	return hj_btc_action_sign(ctx, sk, &m, p + n - HJ_BTC_SIG_LEN, err,
	                          errlen);
}

int hj_btc_payload_verify(const hj_secp *ctx, const uint8_t pk[HJ_XONLY_LEN],
                          const uint8_t genesis[HJ_BTC_GENESIS_LEN],
                          uint32_t seq, const uint8_t *p, size_t n)
{
	hj_btc_msg m;

	if (split(genesis, seq, p, n, &m))
		return -EINVAL;
	return hj_btc_action_verify(ctx, pk, &m, p + n - HJ_BTC_SIG_LEN);
}
