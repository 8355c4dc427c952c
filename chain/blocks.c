/* Blocks kept beyond the callback that lends them (backend.h). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

hj_chain_block *hj_chain_blocks_copy(const hj_chain_block *src, size_t n)
{
	hj_chain_block *b = calloc(n ? n : 1, sizeof *b);
	if (!b)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		b[i] = src[i];
		b[i].txs = NULL;
		b[i].all = NULL;
		b[i].nall = 0;
		b[i].bytes = NULL;
		if (src[i].ntx) {
			size_t sz = src[i].ntx * sizeof *src[i].txs;
			b[i].txs = malloc(sz);
			if (!b[i].txs) {
				hj_chain_blocks_free(b, i);
				return NULL;
			}
			memcpy(b[i].txs, src[i].txs, sz);
		}
	}
	return b;
}

void hj_chain_blocks_free(hj_chain_block *b, size_t n)
{
	if (!b)
		return;
	for (size_t i = 0; i < n; i++) {
		free(b[i].txs);
		free(b[i].all);
		free(b[i].bytes);
	}
	free(b);
}
