/*
 * `hashjack verify`'s account of a difference: a dealer's line, any bytes,
 * against the protocol's (cli/verify.h, hjc_verify_describe), which walks
 * both as JSON to the first place they part.
 *
 * The input: the dealer's line up to the first newline, the protocol's
 * after it.  Checked: the words are never empty and always end inside
 * the buffer.
 */
#include "fuzz.h"

#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	const char *nl = memchr(d, '\n', size);
	size_t tn = nl ? (size_t)(nl - d) : size;
	const char *ours = nl ? nl + 1 : "";
	size_t on = nl ? size - tn - 1 : 0;
	char buf[400];
	memset(buf, 'x', sizeof buf);
	hjc_verify_describe(d, tn, ours, on, buf, sizeof buf);
	FUZZ_CHECK(memchr(buf, 0, sizeof buf) != NULL);
	FUZZ_CHECK(buf[0] != 0);
	return 0;
}
