/*
 * Amounts in base units (wei, satoshi, litoshi) as unsigned 128-bit integers.
 * EVM values exceed 64 bits; nothing that settles ever touches floating point.
 * At the edges (JSON, SQL, the command line) amounts are canonical decimal
 * strings: digits only, no sign, no leading zero except "0" itself.
 */
#ifndef HJ_AMOUNT_H
#define HJ_AMOUNT_H

#include <stddef.h>

typedef unsigned __int128 hj_amount;

#define HJ_AMOUNT_MAX (~(hj_amount)0)
/* 2^128 - 1 has 39 decimal digits; one more byte for the NUL. */
#define HJ_AMOUNT_STRLEN 40

/*
 * Parses the canonical decimal string s[0..len).  Returns 0 and sets *out, or
 * -EINVAL (empty, a non-digit, a leading zero) or -ERANGE (above 2^128 - 1).
 * *out is untouched on error.
 */
int hj_amount_parse(const char *s, size_t len, hj_amount *out);

/* Writes v in canonical decimal into buf and returns buf. */
char *hj_amount_format(hj_amount v, char buf[HJ_AMOUNT_STRLEN]);

#endif
