/* The dealer's address (see dealer.h). */
#include "dealer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "say.h"

int hj_dealer_parse(hj_family fam, const char *s, size_t len, hj_dealer *out,
                    char *why, size_t n)
{
	char text[HJ_DEALER_TEXT_MAX + 1];

	memset(out, 0, sizeof *out);
	out->family = fam;
	if (fam == HJ_EVM) {
		if (hj_hex_decode_exact(s, len, HJ_HEX_REQUIRED, out->addr,
		                        sizeof out->addr, why, n))
			return -EINVAL;
		hj_hex_encode(out->addr, sizeof out->addr, 1, out->text);
		return 0;
	}
	if (memchr(s, '\0', len) != NULL) {
		hj_say(why, n, "it holds a NUL");
		return -EINVAL;
	}
	/* Longer than any segwit address: the decoder says so from the first
	 * HJ_DEALER_TEXT_MAX characters alone. */
	if (len >= sizeof out->text)
		len = sizeof out->text;
	memcpy(text, s, len);
	text[len] = '\0';
	if (hj_btc_address_script(text, out->script, &out->script_len,
	                          &out->hrp, why, n))
		return -EINVAL;
	memcpy(out->text, text, len + 1);
	return 0;
}
