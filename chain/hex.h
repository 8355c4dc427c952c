/*
 * Hex text as nodes print it: "0x"-prefixed on EVM, bare on the Bitcoin
 * family, letters in either case.  Decoding is strict (whole digits only,
 * an even count, nothing around them) and says what is wrong and where;
 * encoding is always lower case, which is the form the card log uses.
 */
#ifndef HJ_HEX_H
#define HJ_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Whether a "0x" prefix is allowed before the digits.  Only a lower-case
 * "0x" counts: "0X" is printed by no node we read. */
typedef enum hj_hex_prefix {
	HJ_HEX_BARE = 0,     /* no prefix: "0x12" is '0' then a bad 'x' */
	HJ_HEX_OPTIONAL = 1, /* a leading "0x" is dropped when present */
	HJ_HEX_REQUIRED = 2, /* the text must begin with "0x" */
} hj_hex_prefix;

/* Value of one hex digit, or -1. */
int hj_hex_digit(int c);

/*
 * Decodes s[0..len) into out[0..cap) and sets *outlen (may be NULL) to the
 * number of bytes written.  Returns 0, or -EINVAL with err (if not NULL)
 * saying why: a missing prefix, the first character that is not a hex digit
 * and its offset, an odd number of digits, or more bytes than cap.  Offsets
 * count from the first character of s, prefix included, starting at 0.
 * out is unspecified on error.
 */
int hj_hex_decode(const char *s, size_t len, hj_hex_prefix prefix, uint8_t *out,
                  size_t cap, size_t *outlen, char *err, size_t errlen);

/*
 * Like hj_hex_decode, but the text must hold exactly n bytes (2n digits);
 * the length error says how many digits were expected and found.
 */
int hj_hex_decode_exact(const char *s, size_t len, hj_hex_prefix prefix,
                        uint8_t *out, size_t n, char *err, size_t errlen);

/*
 * Writes b[0..n) as lower-case hex, behind "0x" when with_0x, NUL-terminated,
 * into out, which holds at least 2 * n + 3 bytes.  Returns the length
 * written, NUL excluded.
 */
size_t hj_hex_encode(const uint8_t *b, size_t n, int with_0x, char *out);

/*
 * Parses an EVM JSON-RPC quantity, "0x" then 1 to 32 hex digits (leading
 * zeros tolerated), into *out.  Returns 0, or -EINVAL / -ERANGE (above
 * 2^128 - 1) with the reason in err.
 */
int hj_hex_quantity(const char *s, size_t len, unsigned __int128 *out,
                    char *err, size_t errlen);

#endif
