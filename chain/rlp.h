/*
 * RLP, Ethereum's Recursive Length Prefix serialisation (yellow paper,
 * appendix B): an item is a byte string or a list of items.
 *
 *   one byte below 0x80          itself
 *   string of 0..55 bytes        0x80 + len, the bytes
 *   longer string                0xb7 + len(len), len big-endian, the bytes
 *   list, payload 0..55 bytes    0xc0 + len, the items
 *   longer list                  0xf7 + len(len), len big-endian, the items
 *
 * Integers are strings holding the minimal big-endian form: no leading zero
 * byte, and 0 is the empty string (0x80).
 *
 * Encoding writes into a buffer the caller gives, never past its end.  The
 * encoder's errors are sticky: after the first one every call does nothing,
 * so a sequence of calls needs one check, at hj_rlp_finish.  A list's header
 * is only known when the list ends, so hj_rlp_list_end moves the list's
 * payload up to make room for it: cost O(bytes x nesting), nothing for the
 * short, shallow transactions this is for.
 *
 * Decoding is strict: only the canonical encoding of an item is accepted
 * (the shortest header, a single byte below 0x80 never wrapped as a
 * string, integers without leading zeros), and every length is checked
 * against what is left before it is used.
 */
#ifndef HJ_RLP_H
#define HJ_RLP_H

#include <stddef.h>
#include <stdint.h>

/* Deepest list nesting the encoder tracks; a transaction needs 2. */
#define HJ_RLP_DEPTH 8

/* Private fields; use the functions below. */
typedef struct hj_rlp {
	uint8_t *buf;              /* borrowed from hj_rlp_init's caller */
	size_t cap, len;           /* buf's size, bytes written */
	size_t open[HJ_RLP_DEPTH]; /* where each open list's payload begins */
	int depth;                 /* lists open */
	int err;                   /* first error, a negative errno, or 0 */
} hj_rlp;

/* Starts an encoding into buf[0..cap), which r borrows until the end. */
void hj_rlp_init(hj_rlp *r, uint8_t *buf, size_t cap);

/* Appends the byte string p[0..n); p may be NULL when n is 0. */
void hj_rlp_bytes(hj_rlp *r, const void *p, size_t n);

/* Appends an unsigned integer in its minimal big-endian form. */
void hj_rlp_u64(hj_rlp *r, uint64_t v);
void hj_rlp_u128(hj_rlp *r, unsigned __int128 v);

/* Appends the unsigned integer whose big-endian bytes are be[0..n) (any
 * n, such as 32 for a u256 or a signature's r and s), leading zeros
 * dropped. */
void hj_rlp_uint_be(hj_rlp *r, const uint8_t *be, size_t n);

/* Opens a list; the items appended until the matching hj_rlp_list_end are
 * its elements.  More than HJ_RLP_DEPTH open lists is -E2BIG. */
void hj_rlp_list_begin(hj_rlp *r);

/* Closes the innermost open list.  Without one it is -EINVAL. */
void hj_rlp_list_end(hj_rlp *r);

/*
 * Ends the encoding and sets *len (may be NULL) to the bytes written.
 * Returns 0, or the first error: -ENOSPC when the output did not fit in
 * cap, -E2BIG for nesting deeper than HJ_RLP_DEPTH, -EINVAL for a list
 * closed that was not open or left open.  On error buf holds no usable
 * encoding.
 */
int hj_rlp_finish(const hj_rlp *r, size_t *len);

/* One decoded item: its payload, borrowed from the decoded buffer. */
typedef struct hj_rlp_item {
	const uint8_t *p; /* payload (a string's bytes or a list's items) */
	size_t len;       /* payload bytes */
	int is_list;
} hj_rlp_item;

/*
 * Reads the item at the front of (*p, *n) into *it and advances *p and *n
 * past it.  Returns 0, or -EINVAL with err (if not NULL) saying what is
 * wrong: nothing left, a header or payload cut off by the end of the input,
 * or a non-canonical form.  *p and *n are unchanged on error.  Lengths are
 * checked against *n only: a list's items are read by calling this again
 * on (it.p, it.len).
 */
int hj_rlp_next(const uint8_t **p, size_t *n, hj_rlp_item *it, char *err,
                size_t errlen);

/*
 * Reads a string item as an unsigned integer of at most 16 bytes.  Returns
 * 0, or -EINVAL with err when it is a list or has a leading zero byte, or
 * -ERANGE when it exceeds 2^128 - 1.  what names the field in err.
 */
int hj_rlp_get_u128(const hj_rlp_item *it, const char *what,
                    unsigned __int128 *out, char *err, size_t errlen);

/* As hj_rlp_get_u128, but the value must fit in 64 bits (-ERANGE). */
int hj_rlp_get_u64(const hj_rlp_item *it, const char *what, uint64_t *out,
                   char *err, size_t errlen);

#endif
