/*
 * Private to chain/taproot.c, chain/btcsig.c and chain/evm_tx.c: what an
 * hj_secp holds, and the one source of randomness they use.  Not for other
 * modules.
 */
#ifndef HJ_TAPROOT_CTX_H
#define HJ_TAPROOT_CTX_H

#include <stddef.h>
#include <stdint.h>

#include <secp256k1.h>

struct hj_secp {
	secp256k1_context *ctx; /* randomised once in hj_secp_new */
};

/*
 * Fills buf[0..n) from getrandom(2) (the urandom pool, blocking only until
 * the kernel has seeded it), retrying after signals and short reads.
 * Returns 0, or a negative errno with err set.
 */
int hj_secp_random(uint8_t *buf, size_t n, char *err, size_t errlen);

#endif
