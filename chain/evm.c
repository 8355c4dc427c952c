/* EVM transaction to hj_action (see evm.h). */
#include "evm.h"

#include <string.h>

#include "payload.h"

void hj_evm_action(const hj_evm_tx *tx, hj_action *out)
{
	static const uint8_t empty[1];
	const uint8_t *in = tx->input != NULL ? tx->input : empty;
	hj_payload pl;
	int r;

	memset(out, 0, sizeof *out);
	out->tx_index = tx->tx_index;
	out->txid.len = HJ_EVM_HASH_LEN;
	memcpy(out->txid.b, tx->hash, HJ_EVM_HASH_LEN);
	out->sender.len = HJ_EVM_ADDR_LEN;
	memcpy(out->sender.b, tx->from, HJ_EVM_ADDR_LEN);
	out->value = tx->value;
	out->from_dealer = tx->dealer != NULL &&
	                   memcmp(tx->from, tx->dealer, HJ_EVM_ADDR_LEN) == 0;

	/* A reverted transaction moved no value: whatever its input says, it
	 * is not an action (docs/PROTOCOL.md sections 9.3 and 11.2). */
	if (!tx->success) {
		out->kind = HJ_TX_FAILED;
		return;
	}
	r = hj_payload_parse(HJ_EVM, in, tx->input_len, &pl);
	if (r == HJ_R_NO_MAGIC) {
		out->kind = HJ_TX_DEPOSIT;
		return;
	}
	out->act = pl.act;
	if (r != HJ_OK) {
		out->kind = HJ_TX_MALFORMED;
		out->reason = (hj_reason)r;
		return;
	}
	out->kind = HJ_TX_ACTION;
	out->insurance = pl.insurance;
	out->side_pp = pl.side_pp;
	out->side_t3 = pl.side_t3;
	out->commit_start = pl.start;
	out->commit_length = pl.length;
	memcpy(out->commitment, pl.commitment, sizeof out->commitment);
}
