/*
 * EVM adapter: one transaction to the dealer address, as plain C values,
 * becomes the engine's hj_action.  No JSON here: the replay reader and the
 * daemon's RPC client each decode their own input and share this step, so
 * that both feed the engine the same actions.
 */
#ifndef HJ_EVM_H
#define HJ_EVM_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "amount.h"

#define HJ_EVM_ADDR_LEN 20
#define HJ_EVM_HASH_LEN 32

/* A transaction whose `to` is the dealer address.  Pointers are borrowed
 * for the call only. */
typedef struct hj_evm_tx {
	const uint8_t *hash;   /* HJ_EVM_HASH_LEN bytes: the transaction hash */
	const uint8_t *from;   /* HJ_EVM_ADDR_LEN bytes: the sender */
	const uint8_t *dealer; /* the dealer address (NULL: unknown), which a
	                          Commit must come from */
	hj_amount value;       /* wei sent */
	const uint8_t *input;  /* call data; may be NULL when input_len is 0 */
	size_t input_len;
	int success;       /* receipt status: 1 success, 0 failed */
	uint32_t tx_index; /* position in the block */
} hj_evm_tx;

/*
 * Fills *out from *tx (docs/PROTOCOL.md sections 9 and 11.2):
 *   - a failed receipt is HJ_TX_FAILED (it moved nothing; logged only);
 *   - input that does not begin with the magic is HJ_TX_DEPOSIT;
 *   - a malformed payload is HJ_TX_MALFORMED with the reason, and the
 *     action when its byte was known (the value is refunded);
 *   - anything else is HJ_TX_ACTION with the action, the Peek flag and the
 *     Bet's side stakes, or a Commit's chain (from_dealer when `from` is
 *     the dealer: docs/PROTOCOL.md section 15).
 * txid, sender, value and tx_index are set in every case.  Cannot fail.
 */
void hj_evm_action(const hj_evm_tx *tx, hj_action *out);

#endif
