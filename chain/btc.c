#include "btc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <secp256k1_extrakeys.h>

#include "bech32.h"
#include "btcsig.h"
#include "payload.h"
#include "say.h"

static const char *const known_hrps[] = {"bc",  "tb",   "bcrt",
                                         "ltc", "tltc", "rltc"};

/* Base58 text of an address's length (P2PKH, P2SH: 25 to 35 characters). */
static int looks_base58(const char *s)
{
	static const char b58[] =
	    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	size_t n = strlen(s);

	if (n < 25 || n > 35)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strchr(b58, s[i]) == NULL)
			return 0;
	return 1;
}

int hj_btc_sweep_address(const char *hrp, const uint8_t *prog, size_t len,
                         char out[HJ_BECH32_BUF], char *err, size_t errlen)
{
	if (len != 20 && len != 32) {
		hj_say(err, errlen,
		       "a witness program of %zu bytes: not P2WPKH or P2TR",
		       len);
		return -1;
	}
	return hj_segwit_encode(hrp, len == 20 ? 0 : 1, prog, len, out, err,
	                        errlen)
	           ? -1
	           : 0;
}

int hj_btc_address_script(const char *addr, uint8_t *script, size_t *len,
                          const char **hrp, char *err, size_t errlen)
{
	char h[HJ_BECH32_HRP_MAX + 1], why[HJ_ERRLEN];
	uint8_t data[HJ_BECH32_DATA_MAX], prog[HJ_SEGWIT_PROG_MAX];
	size_t ndata, plen;
	hj_bech32_variant var;
	int version;

	if (hj_bech32_decode(addr, h, data, &ndata, &var, why, sizeof why)) {
		if (looks_base58(addr))
			hj_say(err, errlen,
			       "not a segwit address (a legacy base58 "
			       "address? the dealer's must be bech32 or "
			       "bech32m)");
		else
			hj_say(err, errlen,
			       "not a segwit address (bech32 or bech32m): %s",
			       why);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof known_hrps / sizeof *known_hrps; i++) {
		if (strcmp(h, known_hrps[i]) != 0)
			continue;
		if (hj_segwit_decode(known_hrps[i], addr, &version, prog, &plen,
		                     why, sizeof why)) {
			hj_say(err, errlen, "not a segwit address: %s", why);
			return -EINVAL;
		}
		script[0] = (uint8_t)(version ? 0x50 + version : 0);
		script[1] = (uint8_t)plen;
		memcpy(script + 2, prog, plen);
		*len = plen + 2;
		*hrp = known_hrps[i];
		return 0;
	}
	hj_say(err, errlen,
	       "unknown address prefix \"%s\" (known: bc, tb, bcrt, ltc, "
	       "tltc, rltc)",
	       h);
	return -EINVAL;
}

/* The txid is hashed only for what is kept: most of a block is not. */
static int keep(const hj_btc_tx *tx, hj_action *out, int yes)
{
	uint8_t txid[HJ_BTC_HASH_LEN];

	if (!yes)
		return 0;
	hj_btc_tx_txid(tx, txid);
	out->txid.len = HJ_BTC_HASH_LEN;
	for (int i = 0; i < HJ_BTC_HASH_LEN; i++)
		out->txid.b[i] = txid[HJ_BTC_HASH_LEN - 1 - i];
	return 1;
}

static const uint8_t magic[2] = {HJ_MAGIC0, HJ_MAGIC1};

int hj_btc_action(const hj_btc_tx *tx, const uint8_t *dealer_script,
                  size_t script_len, uint32_t tx_index, hj_action *out,
                  char *err, size_t errlen)
{
	uint64_t value = 0;
	size_t count = 0;
	const uint8_t *data = NULL;
	size_t n = 0;
	size_t vout;
	hj_payload pl;
	secp256k1_xonly_pubkey key;

	memset(out, 0, sizeof *out);
	if (hj_btc_tx_sum_to(tx, dealer_script, script_len, &value, &count)) {
		hj_say(err, errlen, "outputs to the dealer overflow 64 bits");
		return -ERANGE;
	}
	int has_data =
	    hj_btc_tx_find_data(tx, magic, sizeof magic, &data, &n, &vout) == 1;

	out->tx_index = tx_index;
	out->value = value;

	if (!has_data) {
		out->kind = HJ_TX_DEPOSIT;
		return keep(tx, out, count > 0);
	}
	int rc = hj_payload_parse(HJ_BITCOIN, data, n, &pl);
	if (rc != HJ_OK) {
		/* Whose it is cannot be told: it is ours only if it paid us. */
		out->kind = HJ_TX_MALFORMED;
		out->act = pl.act;
		out->reason = (hj_reason)rc;
		return keep(tx, out, count > 0);
	}
	out->kind = HJ_TX_ACTION;
	out->act = pl.act;
	out->insurance = pl.insurance;
	out->side_pp = pl.side_pp;
	out->side_t3 = pl.side_t3;
	if (pl.act == HJ_BET && !secp256k1_xonly_pubkey_parse(
	                            secp256k1_context_static, &key, pl.key)) {
		/* Not a point: no signature could ever verify and tr(P) does
		 * not exist, so nothing could be paid to it.  Refunded
		 * unattributed, like any malformed payload. */
		out->kind = HJ_TX_MALFORMED;
		out->act = HJ_BET;
		out->reason = HJ_R_BAD_FIELD;
		return keep(tx, out, count > 0);
	}
	if (pl.act == HJ_COMMIT) {
		/* The dealer's own (docs/PROTOCOL.md section 15): sent by
		 * it when an input spends from its P2WPKH address.  Ours
		 * only if it paid us (the dealer's change): another
		 * dealer's Commit is not. */
		out->commit_start = pl.start;
		out->commit_length = pl.length;
		memcpy(out->commitment, pl.commitment, sizeof out->commitment);
		out->from_dealer = script_len == 22 && dealer_script[0] == 0 &&
		                   dealer_script[1] == 20 &&
		                   hj_btc_tx_signed_by(tx, dealer_script + 2);
		return keep(tx, out, count > 0);
	}
	if (pl.act == HJ_BET) {
		out->sender.len = 32;
		memcpy(out->sender.b, pl.key, 32);
		/* A Bet that pays us nothing is not ours. */
		return keep(tx, out, count > 0);
	}
	out->has_ref = 1;
	memcpy(out->round_ref, pl.round, sizeof out->round_ref);
	memcpy(out->sig, pl.sig, sizeof out->sig);
	out->signed_len = (uint8_t)(n - HJ_BTC_TAIL_LEN);
	memcpy(out->signed_part, data, out->signed_len);
	return keep(tx, out, 1);
}

int hj_btc_verify(void *ctx, const hj_round *r, const hj_action *a)
{
	const struct hj_btc_verifier *v = ctx;

	if (r->player.len != HJ_XONLY_LEN || !a->has_ref ||
	    a->signed_len > sizeof a->signed_part)
		return 0;
	hj_btc_msg m = {.genesis = v->genesis,
	                .short_id = a->round_ref,
	                .seq = r->seq,
	                .body = a->signed_part,
	                .body_len = a->signed_len};
	return hj_btc_action_verify(v->secp, r->player.b, &m, a->sig) == 0;
}
