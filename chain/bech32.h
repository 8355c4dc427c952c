/*
 * Bech32 (BIP-173) and bech32m (BIP-350) text, and the segregated witness
 * addresses built on them: witness version 0 uses bech32, versions 1 to 16
 * use bech32m.  Taproot payouts (tr(P), chain/taproot.h) are version 1.
 *
 * Decoding is strict: at most 90 characters, every character printable
 * US-ASCII (33..126), no mixed case, a non-empty human-readable part (hrp)
 * before the last '1', at least six data characters (the checksum), and
 * every data character in the bech32 alphabet.  A segwit address must also
 * carry the expected hrp, a witness version of at most 16, a program of 2 to
 * 40 bytes (20 or 32 for version 0) with at most 4 zero bits of padding, and
 * the checksum variant its version calls for.
 *
 * Every function returns HJ_B32_OK (0) or the first rule the input breaks,
 * in the order listed in hj_bech32_status, and writes a sentence saying what
 * and where into err (if not NULL).  Nothing here allocates.
 */
#ifndef HJ_BECH32_H
#define HJ_BECH32_H

#include <stddef.h>
#include <stdint.h>

/* Longest bech32 string (BIP-173), and a buffer that holds one. */
#define HJ_BECH32_MAX 90
#define HJ_BECH32_BUF (HJ_BECH32_MAX + 1)
/* Longest hrp: the string less the separator and the checksum. */
#define HJ_BECH32_HRP_MAX 83
/* Most 5-bit values in the data part, checksum excluded. */
#define HJ_BECH32_DATA_MAX 82
/* Longest witness program (BIP-141). */
#define HJ_SEGWIT_PROG_MAX 40

typedef enum hj_bech32_variant {
	HJ_BECH32 = 1,  /* BIP-173: checksum constant 1 */
	HJ_BECH32M = 2, /* BIP-350: checksum constant 0x2bc830a3 */
} hj_bech32_variant;

typedef enum hj_bech32_status {
	HJ_B32_OK = 0,
	/* The string as a whole (hj_bech32_decode). */
	HJ_B32_TOO_LONG,       /* more than 90 characters */
	HJ_B32_BAD_CHAR,       /* a character outside 33..126 */
	HJ_B32_MIXED_CASE,     /* both upper- and lower-case letters */
	HJ_B32_NO_SEPARATOR,   /* no '1' */
	HJ_B32_EMPTY_HRP,      /* the last '1' is the first character */
	HJ_B32_SHORT_CHECKSUM, /* fewer than 6 characters after the last '1' */
	HJ_B32_BAD_DATA_CHAR,  /* a data character outside the alphabet */
	HJ_B32_BAD_CHECKSUM,   /* neither a bech32 nor a bech32m checksum */
	/* A segregated witness address (hj_segwit_decode). */
	HJ_B32_WRONG_HRP,        /* not the hrp the caller expects */
	HJ_B32_EMPTY_DATA,       /* no witness version */
	HJ_B32_BAD_VERSION,      /* witness version above 16 */
	HJ_B32_PADDING_TOO_LONG, /* 5 or more bits left after the last byte */
	HJ_B32_NONZERO_PADDING,  /* padding bits that are not all zero */
	HJ_B32_BAD_PROGRAM_LEN,  /* program outside 2..40 bytes */
	HJ_B32_BAD_V0_LEN,       /* version 0 program neither 20 nor 32 bytes */
	HJ_B32_WRONG_VARIANT,    /* bech32m for version 0, bech32 for 1..16 */
	/* Only when encoding. */
	HJ_B32_BAD_HRP,   /* empty, too long, upper case or outside 33..126 */
	HJ_B32_BAD_VALUE, /* a data value above 31 */
	HJ_B32_COUNT
} hj_bech32_status;

/* A short English description of a status ("mixed case"); "unknown status"
 * when out of range.  Static storage. */
const char *hj_bech32_strerror(int status);

/*
 * Decodes s (NUL-terminated) into its hrp, written lower-case and
 * NUL-terminated into hrp (HJ_BECH32_HRP_MAX + 1 bytes), its data values
 * without the checksum into data (HJ_BECH32_DATA_MAX values, each 0..31),
 * their count into *ndata, and which checksum it carries into *variant.
 * Outputs are unspecified on error.
 */
int hj_bech32_decode(const char *s, char hrp[HJ_BECH32_HRP_MAX + 1],
                     uint8_t data[HJ_BECH32_DATA_MAX], size_t *ndata,
                     hj_bech32_variant *variant, char *err, size_t errlen);

/*
 * Writes hrp, '1', the data values and the checksum of the variant,
 * lower-case and NUL-terminated, into out.  hrp must be lower-case (an
 * encoder never writes upper case, BIP-173).  Fails with HJ_B32_BAD_HRP,
 * HJ_B32_BAD_VALUE or HJ_B32_TOO_LONG.
 */
int hj_bech32_encode(const char *hrp, const uint8_t *data, size_t ndata,
                     hj_bech32_variant variant, char out[HJ_BECH32_BUF],
                     char *err, size_t errlen);

/*
 * Decodes the segwit address addr for the chain whose hrp is hrp (lower
 * case: "bc", "tb", "bcrt", "ltc", ...).  The address may be all upper or
 * all lower case.  Fills *version (0..16), prog (HJ_SEGWIT_PROG_MAX bytes)
 * and *proglen.  Outputs are unspecified on error.
 */
int hj_segwit_decode(const char *hrp, const char *addr, int *version,
                     uint8_t prog[HJ_SEGWIT_PROG_MAX], size_t *proglen,
                     char *err, size_t errlen);

/*
 * Writes the lower-case segwit address of (version, prog[0..proglen)) for
 * hrp into out, with bech32 for version 0 and bech32m above.  Fails with
 * HJ_B32_BAD_VERSION, HJ_B32_BAD_PROGRAM_LEN, HJ_B32_BAD_V0_LEN,
 * HJ_B32_BAD_HRP or HJ_B32_TOO_LONG (an hrp too long for the program).
 */
int hj_segwit_encode(const char *hrp, int version, const uint8_t *prog,
                     size_t proglen, char out[HJ_BECH32_BUF], char *err,
                     size_t errlen);

#endif
