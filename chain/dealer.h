/*
 * The dealer's address, parsed once into what each layer compares: on EVM
 * the 20 bytes that transactions name in their `to`; on the Bitcoin family
 * the scriptPubKey that outputs to the dealer carry, and the address's
 * prefix, which is the network's (and that of every tr(P) a payout goes
 * to).  The configuration and the replay document both parse it here.
 */
#ifndef HJ_DEALER_H
#define HJ_DEALER_H

#include <stddef.h>
#include <stdint.h>

#include "btc.h"
#include "evm.h"
#include "payload.h"

/* The longest address text: a bech32 string is at most 90 characters. */
#define HJ_DEALER_TEXT_MAX 91

typedef struct hj_dealer {
	hj_family family;
	/* As the state and messages show it: EVM "0x" and 40 lower-case hex
	 * digits; Bitcoin family the address as given. */
	char text[HJ_DEALER_TEXT_MAX];
	uint8_t addr[HJ_EVM_ADDR_LEN];     /* EVM */
	uint8_t script[HJ_BTC_SCRIPT_MAX]; /* Bitcoin family */
	size_t script_len;
	const char *hrp; /* Bitcoin family: lower case, static storage */
} hj_dealer;

/*
 * Parses s[0..len) as a dealer address of family fam into *out.  EVM: "0x"
 * and 40 hex digits in either case (hj_hex_decode_exact); Bitcoin family: a
 * segwit address of a known prefix (hj_btc_address_script).  Returns 0, or
 * -EINVAL with the decoder's reason in why (*out unspecified).
 */
int hj_dealer_parse(hj_family fam, const char *s, size_t len, hj_dealer *out,
                    char *why, size_t n);

#endif
