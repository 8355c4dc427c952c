/* `hashjack verify`: the seeds a dealer's log reveals under committed
 * cards, checked against the chain of hashes and its commitment
 * (verify.h, hjc_verify_seed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "say.h"
#include "verify_state.h"

/* "the chain committed in block Y (blocks S to E)", into buf. */
static const char *chain_words(const hj_commit *c, char *buf, size_t n)
{
	snprintf(buf, n,
	         "the chain committed in block %llu (blocks %llu to %llu)",
	         (unsigned long long)c->height, (unsigned long long)c->start,
	         (unsigned long long)(c->start + c->length - 1));
	return buf;
}

int hjc_verify_seed(hj_reveal *rv, const char *line, size_t len,
                    const hj_commit *c, uint32_t i, uint64_t height,
                    uint8_t out[HJ_SEED_LEN], char *what, size_t n)
{
	char why[HJ_ERRLEN], ch[160], *hex;
	int rc;

	hex = hjc_verify__line_field(line, len, "seed");
	if (!hex) {
		hj_say(what, n,
		       "seed: the dealer's nothing: cards are committed and "
		       "block %llu is dealt with seed %u of %s",
		       (unsigned long long)height, (unsigned)i,
		       chain_words(c, ch, sizeof ch));
		return -ENOENT;
	}
	rc = hj_hex_decode_exact(hex, strlen(hex), HJ_HEX_BARE, out,
	                         HJ_SEED_LEN, why, sizeof why);
	free(hex);
	if (rc) {
		hj_say(what, n, "seed: not a seed: %s", why);
		return -EBADMSG;
	}
	if (hj_reveal_check(rv, c, i, out, why, sizeof why) == 0)
		return 0;
	/* rv is unchanged by a failed check: the seed the one at fault was
	 * checked against, by its block. */
	if (rv->have && hj_commit_same(&rv->c, c) && rv->index > 0)
		hj_say(what, n,
		       "seed: %s (seed %u is block %llu's, the last seed "
		       "checked block %llu's, of %s)",
		       why, (unsigned)i, (unsigned long long)height,
		       (unsigned long long)(c->start + rv->index - 1),
		       chain_words(c, ch, sizeof ch));
	else
		hj_say(what, n,
		       "seed: %s (seed %u is block %llu's, of %s, "
		       "whose commitment is in that block's commit event)",
		       why, (unsigned)i, (unsigned long long)height,
		       chain_words(c, ch, sizeof ch));
	return -EINVAL;
}
