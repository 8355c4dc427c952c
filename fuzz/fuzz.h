/*
 * What the fuzz targets share.  A target is one function,
 * LLVMFuzzerTestOneInput, that hands libFuzzer's bytes to one reader of
 * outside input and checks what must hold whatever the bytes: no crash, no
 * sanitizer report, and the target's own properties (a round trip, a
 * refusal with a reason), each checked with FUZZ_CHECK, which aborts so
 * that libFuzzer keeps the input.
 */
#ifndef HJ_FUZZ_H
#define HJ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property failed: %s\n",        \
			        __FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* The input, read from the front: what is asked beyond its end is zero. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v = 0;

	if (in->n > 0) {
		v = in->p[0];
		in->p++;
		in->n--;
	}
	return v;
}

static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | fuzz_u8(in);
	return v;
}

/* Up to max bytes of the input, NUL-terminated in buf (max + 1 bytes),
 * their count in *len (a NUL inside stays). */
static inline void fuzz_take(struct fuzz_in *in, char *buf, size_t max,
                             size_t *len)
{
	size_t k = in->n < max ? in->n : max;

	memcpy(buf, in->p, k);
	buf[k] = '\0';
	*len = k;
	in->p += k;
	in->n -= k;
}

#endif
