/* Bech32, bech32m and segwit addresses (see bech32.h). */
#include "bech32.h"

#include <stdio.h>
#include <string.h>

#include "say.h"

#define CONST_BECH32  0x1u
#define CONST_BECH32M 0x2bc830a3u
#define CHECKSUM_LEN  6

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static const char *const messages[HJ_B32_COUNT] = {
    [HJ_B32_OK] = "ok",
    [HJ_B32_TOO_LONG] = "longer than 90 characters",
    [HJ_B32_BAD_CHAR] = "character out of range",
    [HJ_B32_MIXED_CASE] = "mixed case",
    [HJ_B32_NO_SEPARATOR] = "no separator character",
    [HJ_B32_EMPTY_HRP] = "empty human-readable part",
    [HJ_B32_SHORT_CHECKSUM] = "checksum too short",
    [HJ_B32_BAD_DATA_CHAR] = "invalid data character",
    [HJ_B32_BAD_CHECKSUM] = "invalid checksum",
    [HJ_B32_WRONG_HRP] = "wrong human-readable part",
    [HJ_B32_EMPTY_DATA] = "empty data section",
    [HJ_B32_BAD_VERSION] = "invalid witness version",
    [HJ_B32_PADDING_TOO_LONG] = "padding of more than 4 bits",
    [HJ_B32_NONZERO_PADDING] = "non-zero padding",
    [HJ_B32_BAD_PROGRAM_LEN] = "invalid witness program length",
    [HJ_B32_BAD_V0_LEN] = "invalid witness program length for version 0",
    [HJ_B32_WRONG_VARIANT] = "wrong checksum variant for witness version",
    [HJ_B32_BAD_HRP] = "invalid human-readable part",
    [HJ_B32_BAD_VALUE] = "data value above 31",
};

const char *hj_bech32_strerror(int status)
{
	if (status < 0 || status >= HJ_B32_COUNT)
		return "unknown status";
	return messages[status];
}

/* Names a byte so that the message prints cleanly whatever it is. */
static void show_char(unsigned char c, char buf[8])
{
	if (c >= 0x21 && c < 0x7f && c != '\'' && c != '\\')
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "0x%02x", c);
}

/* Sets err to the plain description of st and returns st. */
static int fail(int st, char *err, size_t errlen)
{
	hj_say(err, errlen, "%s", hj_bech32_strerror(st));
	return st;
}

static int charset_rev(unsigned char c)
{
	const char *p;

	if (c == '\0')
		return -1;
	p = strchr(charset, c);
	return p == NULL ? -1 : (int)(p - charset);
}

static uint32_t polymod_step(uint32_t chk, uint8_t v)
{
	static const uint32_t gen[5] = {0x3b6a57b2u, 0x26508e6du, 0x1ea119fau,
	                                0x3d4233ddu, 0x2a1462b3u};
	uint32_t b = chk >> 25;

	chk = (chk & 0x1ffffffu) << 5 ^ v;
	for (int i = 0; i < 5; i++)
		if (b >> i & 1)
			chk ^= gen[i];
	return chk;
}

/* The checksum state after the expanded hrp (lower case, hrplen bytes). */
static uint32_t polymod_hrp(const char *hrp, size_t hrplen)
{
	uint32_t chk = 1;

	for (size_t i = 0; i < hrplen; i++)
		chk = polymod_step(chk, (uint8_t)((unsigned char)hrp[i] >> 5));
	chk = polymod_step(chk, 0);
	for (size_t i = 0; i < hrplen; i++)
		chk = polymod_step(chk, (uint8_t)((unsigned char)hrp[i] & 31));
	return chk;
}

static int to_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int hj_bech32_decode(const char *s, char hrp[HJ_BECH32_HRP_MAX + 1],
                     uint8_t data[HJ_BECH32_DATA_MAX], size_t *ndata,
                     hj_bech32_variant *variant, char *err, size_t errlen)
{
	size_t len = strnlen(s, HJ_BECH32_MAX + 1);
	size_t sep = 0, hrplen, nvals;
	int lower = 0, upper = 0, have_sep = 0;
	uint32_t chk;
	char c[8];

	if (len > HJ_BECH32_MAX) {
		hj_say(err, errlen,
		       "longer than %d characters, the bech32 limit",
		       HJ_BECH32_MAX);
		return HJ_B32_TOO_LONG;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char u = (unsigned char)s[i];

		if (u < 33 || u > 126) {
			show_char(u, c);
			hj_say(err, errlen,
			       "character %s at offset %zu is out of "
			       "range (33..126)",
			       c, i);
			return HJ_B32_BAD_CHAR;
		}
		lower |= u >= 'a' && u <= 'z';
		upper |= u >= 'A' && u <= 'Z';
		if (u == '1') {
			sep = i;
			have_sep = 1;
		}
	}
	if (lower && upper) {
		hj_say(err, errlen,
		       "mixed case: letters must be all upper or all "
		       "lower case");
		return HJ_B32_MIXED_CASE;
	}
	if (!have_sep)
		return fail(HJ_B32_NO_SEPARATOR, err, errlen);
	if (sep == 0)
		return fail(HJ_B32_EMPTY_HRP, err, errlen);
	if (len - sep - 1 < CHECKSUM_LEN) {
		hj_say(err, errlen,
		       "checksum too short: %zu characters after the "
		       "last '1', at least %d needed",
		       len - sep - 1, CHECKSUM_LEN);
		return HJ_B32_SHORT_CHECKSUM;
	}
	hrplen = sep;
	for (size_t i = 0; i < hrplen; i++)
		hrp[i] = (char)to_lower((unsigned char)s[i]);
	hrp[hrplen] = '\0';
	chk = polymod_hrp(hrp, hrplen);
	nvals = len - sep - 1 - CHECKSUM_LEN;
	for (size_t i = sep + 1; i < len; i++) {
		unsigned char u = (unsigned char)to_lower((unsigned char)s[i]);
		int v = charset_rev(u);

		if (v < 0) {
			show_char((unsigned char)s[i], c);
			if (err != NULL && errlen > 0)
				snprintf(
				    err, errlen,
				    "%s at offset %zu is not a bech32 data "
				    "character%s",
				    c, i,
				    i - sep - 1 >= nvals ? " (in the checksum)"
				                         : "");
			return HJ_B32_BAD_DATA_CHAR;
		}
		chk = polymod_step(chk, (uint8_t)v);
		if (i - sep - 1 < nvals)
			data[i - sep - 1] = (uint8_t)v;
	}
	if (chk == CONST_BECH32)
		*variant = HJ_BECH32;
	else if (chk == CONST_BECH32M)
		*variant = HJ_BECH32M;
	else
		return fail(HJ_B32_BAD_CHECKSUM, err, errlen);
	*ndata = nvals;
	return HJ_B32_OK;
}

int hj_bech32_encode(const char *hrp, const uint8_t *data, size_t ndata,
                     hj_bech32_variant variant, char out[HJ_BECH32_BUF],
                     char *err, size_t errlen)
{
	size_t hrplen = strnlen(hrp, HJ_BECH32_HRP_MAX + 1), n = 0;
	uint32_t chk;

	if (hrplen == 0 || hrplen > HJ_BECH32_HRP_MAX) {
		if (err != NULL && errlen > 0)
			snprintf(
			    err, errlen,
			    "human-readable part must be 1 to %d characters",
			    HJ_BECH32_HRP_MAX);
		return HJ_B32_BAD_HRP;
	}
	for (size_t i = 0; i < hrplen; i++) {
		unsigned char u = (unsigned char)hrp[i];

		if (u < 33 || u > 126 || (u >= 'A' && u <= 'Z')) {
			char c[8];

			show_char(u, c);
			if (err != NULL && errlen > 0)
				snprintf(
				    err, errlen,
				    "human-readable part: %s at offset %zu "
				    "is not lower-case printable US-ASCII",
				    c, i);
			return HJ_B32_BAD_HRP;
		}
	}
	if (hrplen + 1 + ndata + CHECKSUM_LEN > HJ_BECH32_MAX) {
		hj_say(err, errlen, "%zu characters, the bech32 limit is %d",
		       hrplen + 1 + ndata + CHECKSUM_LEN, HJ_BECH32_MAX);
		return HJ_B32_TOO_LONG;
	}
	chk = polymod_hrp(hrp, hrplen);
	memcpy(out, hrp, hrplen);
	n = hrplen;
	out[n++] = '1';
	for (size_t i = 0; i < ndata; i++) {
		if (data[i] > 31) {
			if (err != NULL && errlen > 0)
				snprintf(
				    err, errlen,
				    "data value %u at index %zu is above 31",
				    data[i], i);
			return HJ_B32_BAD_VALUE;
		}
		chk = polymod_step(chk, data[i]);
		out[n++] = charset[data[i]];
	}
	for (int i = 0; i < CHECKSUM_LEN; i++)
		chk = polymod_step(chk, 0);
	chk ^= variant == HJ_BECH32M ? CONST_BECH32M : CONST_BECH32;
	for (int i = 0; i < CHECKSUM_LEN; i++)
		out[n++] = charset[chk >> 5 * (5 - i) & 31];
	out[n] = '\0';
	return HJ_B32_OK;
}

/* Checks a program length against BIP-141 for the version. */
static int check_program(int version, size_t proglen, char *err, size_t errlen)
{
	if (proglen < 2 || proglen > HJ_SEGWIT_PROG_MAX) {
		if (err != NULL && errlen > 0)
			snprintf(
			    err, errlen,
			    "witness program of %zu bytes, must be 2 to %d",
			    proglen, HJ_SEGWIT_PROG_MAX);
		return HJ_B32_BAD_PROGRAM_LEN;
	}
	if (version == 0 && proglen != 20 && proglen != 32) {
		hj_say(err, errlen,
		       "witness version 0 program of %zu bytes, must "
		       "be 20 or 32",
		       proglen);
		return HJ_B32_BAD_V0_LEN;
	}
	return HJ_B32_OK;
}

int hj_segwit_decode(const char *hrp, const char *addr, int *version,
                     uint8_t prog[HJ_SEGWIT_PROG_MAX], size_t *proglen,
                     char *err, size_t errlen)
{
	char got[HJ_BECH32_HRP_MAX + 1];
	uint8_t data[HJ_BECH32_DATA_MAX];
	/* 82 values of 5 bits fit in 51 bytes. */
	uint8_t bytes[HJ_BECH32_DATA_MAX * 5 / 8 + 1];
	size_t ndata, nbytes = 0;
	hj_bech32_variant variant;
	uint32_t acc = 0;
	int bits = 0, st;

	st = hj_bech32_decode(addr, got, data, &ndata, &variant, err, errlen);
	if (st)
		return st;
	if (strcmp(got, hrp) != 0) {
		hj_say(err, errlen,
		       "human-readable part \"%s\", expected \"%s\"", got, hrp);
		return HJ_B32_WRONG_HRP;
	}
	if (ndata == 0)
		return fail(HJ_B32_EMPTY_DATA, err, errlen);
	if (data[0] > 16) {
		hj_say(err, errlen, "witness version %u, at most 16 is allowed",
		       data[0]);
		return HJ_B32_BAD_VERSION;
	}
	for (size_t i = 1; i < ndata; i++) {
		acc = (acc << 5 | data[i]) & 0xfffu;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			bytes[nbytes++] = (uint8_t)(acc >> bits);
		}
	}
	if (bits >= 5) {
		if (err != NULL && errlen > 0)
			snprintf(
			    err, errlen,
			    "%d bits of padding after the program, at most "
			    "4 are allowed",
			    bits);
		return HJ_B32_PADDING_TOO_LONG;
	}
	if ((acc & ((1u << bits) - 1)) != 0)
		return fail(HJ_B32_NONZERO_PADDING, err, errlen);
	st = check_program(data[0], nbytes, err, errlen);
	if (st)
		return st;
	if ((data[0] == 0) != (variant == HJ_BECH32)) {
		hj_say(err, errlen,
		       "witness version %u needs a %s checksum, the "
		       "address has a %s one",
		       data[0], data[0] == 0 ? "bech32" : "bech32m",
		       variant == HJ_BECH32 ? "bech32" : "bech32m");
		return HJ_B32_WRONG_VARIANT;
	}
	*version = data[0];
	memcpy(prog, bytes, nbytes);
	*proglen = nbytes;
	return HJ_B32_OK;
}

int hj_segwit_encode(const char *hrp, int version, const uint8_t *prog,
                     size_t proglen, char out[HJ_BECH32_BUF], char *err,
                     size_t errlen)
{
	/* The version, then 40 bytes in groups of 5 bits: 1 + 64 values. */
	uint8_t data[1 + (HJ_SEGWIT_PROG_MAX * 8 + 4) / 5];
	size_t ndata = 0;
	uint32_t acc = 0;
	int bits = 0, st;

	if (version < 0 || version > 16) {
		hj_say(err, errlen, "witness version %d, must be 0 to 16",
		       version);
		return HJ_B32_BAD_VERSION;
	}
	st = check_program(version, proglen, err, errlen);
	if (st)
		return st;
	data[ndata++] = (uint8_t)version;
	for (size_t i = 0; i < proglen; i++) {
		acc = (acc << 8 | prog[i]) & 0xfffu;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			data[ndata++] = (uint8_t)(acc >> bits & 31);
		}
	}
	if (bits > 0)
		data[ndata++] = (uint8_t)(acc << (5 - bits) & 31);
	return hj_bech32_encode(hrp, data, ndata,
	                        version == 0 ? HJ_BECH32 : HJ_BECH32M, out, err,
	                        errlen);
}
