/* RLP (see rlp.h), written from the yellow paper, appendix B. */
#include "rlp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "say.h"

#define STR_SHORT  0x80 /* + length, for strings of 0..55 bytes */
#define STR_LONG   0xb7 /* + length of the length */
#define LIST_SHORT 0xc0
#define LIST_LONG  0xf7
#define SHORT_MAX  55

static void fail(hj_rlp *r, int e)
{
	if (r->err == 0)
		r->err = e;
}

/* Whether n more bytes fit; records -ENOSPC when they do not. */
static int room(hj_rlp *r, size_t n)
{
	if (r->err != 0)
		return 0;
	if (n > r->cap - r->len) {
		fail(r, -ENOSPC);
		return 0;
	}
	return 1;
}

/* Bytes in the minimal big-endian form of v, 0 for 0. */
static size_t be_len(uint64_t v)
{
	size_t k = 0;

	for (; v != 0; v >>= 8)
		k++;
	return k;
}

static size_t header_len(size_t payload)
{
	return payload <= SHORT_MAX ? 1 : 1 + be_len(payload);
}

/* Writes the header of a payload of n bytes at out, header_len(n) bytes;
 * base is STR_SHORT or LIST_SHORT. */
static void put_header(uint8_t *out, uint8_t base, size_t n)
{
	size_t k;

	if (n <= SHORT_MAX) {
		out[0] = (uint8_t)(base + n);
		return;
	}
	k = be_len(n);
	out[0] = (uint8_t)(base + SHORT_MAX + k);
	for (size_t i = 0; i < k; i++)
		out[1 + i] = (uint8_t)(n >> (8 * (k - 1 - i)));
}

void hj_rlp_init(hj_rlp *r, uint8_t *buf, size_t cap)
{
	memset(r, 0, sizeof *r);
	r->buf = buf;
	r->cap = buf != NULL ? cap : 0;
}

void hj_rlp_bytes(hj_rlp *r, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t h;

	if (n == 1 && b[0] < STR_SHORT) {
		if (room(r, 1))
			r->buf[r->len++] = b[0];
		return;
	}
	h = header_len(n);
	if (n > SIZE_MAX - h) {
		fail(r, -ENOSPC);
		return;
	}
	if (!room(r, h + n))
		return;
	put_header(r->buf + r->len, STR_SHORT, n);
	if (n > 0)
		memcpy(r->buf + r->len + h, b, n);
	r->len += h + n;
}

void hj_rlp_uint_be(hj_rlp *r, const uint8_t *be, size_t n)
{
	while (n > 0 && be[0] == 0) {
		be++;
		n--;
	}
	hj_rlp_bytes(r, be, n);
}

void hj_rlp_u128(hj_rlp *r, unsigned __int128 v)
{
	uint8_t be[16];

	for (int i = 15; i >= 0; i--, v >>= 8)
		be[i] = (uint8_t)v;
	hj_rlp_uint_be(r, be, sizeof be);
}

void hj_rlp_u64(hj_rlp *r, uint64_t v)
{
	hj_rlp_u128(r, v);
}

void hj_rlp_list_begin(hj_rlp *r)
{
	if (r->err != 0)
		return;
	if (r->depth == HJ_RLP_DEPTH) {
		fail(r, -E2BIG);
		return;
	}
	r->open[r->depth++] = r->len;
}

void hj_rlp_list_end(hj_rlp *r)
{
	size_t start, payload, h;

	if (r->err != 0)
		return;
	if (r->depth == 0) {
		fail(r, -EINVAL);
		return;
	}
	start = r->open[--r->depth];
	payload = r->len - start;
	h = header_len(payload);
	if (!room(r, h))
		return;
	memmove(r->buf + start + h, r->buf + start, payload);
	put_header(r->buf + start, LIST_SHORT, payload);
	r->len += h;
}

int hj_rlp_finish(const hj_rlp *r, size_t *len)
{
	if (r->err != 0)
		return r->err;
	if (r->depth != 0)
		return -EINVAL;
	if (len != NULL)
		*len = r->len;
	return 0;
}

/* ------------------------------------------------------------------ */

/* Writes the decoder's message (err may be NULL) and returns -EINVAL
 * from the function that uses it. */
#define BAD(...)                                                               \
	do {                                                                   \
		hj_say(err, errlen, __VA_ARGS__);                              \
		return -EINVAL;                                                \
	} while (0)

int hj_rlp_next(const uint8_t **p, size_t *n, hj_rlp_item *it, char *err,
                size_t errlen)
{
	const uint8_t *s = *p;
	size_t avail = *n, hdr, len;
	uint8_t b;
	int list;

	if (avail == 0)
		BAD("RLP: an item was expected, the input ended");
	b = s[0];
	if (b < STR_SHORT) {
		it->p = s;
		it->len = 1;
		it->is_list = 0;
		*p += 1;
		*n -= 1;
		return 0;
	}
	list = b >= LIST_SHORT;
	if (b <= STR_LONG || (list && b <= LIST_LONG)) {
		hdr = 1;
		len = (size_t)(b - (list ? LIST_SHORT : STR_SHORT));
	} else {
		size_t k = (size_t)(b - (list ? LIST_LONG : STR_LONG));
		uint64_t v = 0;

		hdr = 1 + k;
		if (hdr > avail)
			BAD("RLP: a %zu-byte header is cut off after %zu", hdr,
			    avail);
		if (s[1] == 0)
			BAD("RLP: a length with a leading zero byte");
		for (size_t i = 0; i < k; i++)
			v = v << 8 | s[1 + i];
		if (v <= SHORT_MAX)
			BAD("RLP: the long form for a length of %u",
			    (unsigned)v);
		if (v > avail - hdr)
			BAD("RLP: an item of %llu bytes runs past the end "
			    "(%zu left)",
			    (unsigned long long)v, avail - hdr);
		len = (size_t)v;
	}
	if (len > avail - hdr)
		BAD("RLP: an item of %zu bytes runs past the end (%zu left)",
		    len, avail - hdr);
	if (!list && len == 1 && s[1] < STR_SHORT)
		BAD("RLP: byte 0x%02x wrapped as a one-byte string", s[1]);
	it->p = s + hdr;
	it->len = len;
	it->is_list = list;
	*p += hdr + len;
	*n -= hdr + len;
	return 0;
}

#undef BAD

int hj_rlp_get_u128(const hj_rlp_item *it, const char *what,
                    unsigned __int128 *out, char *err, size_t errlen)
{
	unsigned __int128 v = 0;

	if (it->is_list) {
		hj_say(err, errlen, "%s: a list, expected an integer", what);
		return -EINVAL;
	}
	if (it->len > 0 && it->p[0] == 0) {
		hj_say(err, errlen, "%s: integer with a leading zero byte",
		       what);
		return -EINVAL;
	}
	if (it->len > 16) {
		hj_say(err, errlen,
		       "%s: integer of %zu bytes, at most 16 allowed", what,
		       it->len);
		return -ERANGE;
	}
	for (size_t i = 0; i < it->len; i++)
		v = v << 8 | it->p[i];
	*out = v;
	return 0;
}

int hj_rlp_get_u64(const hj_rlp_item *it, const char *what, uint64_t *out,
                   char *err, size_t errlen)
{
	unsigned __int128 v;
	int rc = hj_rlp_get_u128(it, what, &v, err, errlen);

	if (rc)
		return rc;
	if (v > UINT64_MAX) {
		hj_say(err, errlen,
		       "%s: integer of %zu bytes, at most 8 allowed", what,
		       it->len);
		return -ERANGE;
	}
	*out = (uint64_t)v;
	return 0;
}
