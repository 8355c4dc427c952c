/* The action payload (docs/PROTOCOL.md section 11). */
#include <string.h>

#include "payload.h"

#define HEAD  4  /* magic, version, action */
#define SIDE  8  /* one u64 side stake */
#define KEY   32 /* Bitcoin Bet: x-only key */
#define ROUND 8  /* Bitcoin, not Bet: short round id */
#define SIG   64 /* Bitcoin, not Bet: BIP-340 signature */
#define TAIL  (ROUND + SIG)

/*
 * What follows the head, per family: the Bet's fixed part (which may be
 * followed by zero, one or two side stakes) and the fixed part of every
 * other action (Peek adds its flag byte).
 */
static size_t bet_base(hj_family fam)
{
	return HEAD + (fam == HJ_BITCOIN ? KEY : 0);
}

static size_t other_base(hj_family fam)
{
	return HEAD + (fam == HJ_BITCOIN ? TAIL : 0);
}

static size_t longest(hj_family fam, hj_act act)
{
	if (act == HJ_BET)
		return bet_base(fam) + 2 * SIDE;
	return other_base(fam) + (act == HJ_PEEK);
}

static int length_ok(hj_family fam, hj_act act, size_t n)
{
	if (act == HJ_BET) {
		size_t b = bet_base(fam);

		return n == b || n == b + SIDE || n == b + 2 * SIDE;
	}
	return n == longest(fam, act);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

int hj_payload_parse(hj_family fam, const uint8_t *p, size_t n, hj_payload *out)
{
	const uint8_t *f; /* the action's fields */
	hj_act act;

	memset(out, 0, sizeof *out);
	if (n < 2 || p[0] != HJ_MAGIC0 || p[1] != HJ_MAGIC1)
		return HJ_R_NO_MAGIC;
	if (n < HEAD)
		return HJ_R_TRUNCATED;
	if (p[2] != HJ_VERSION)
		return HJ_R_BAD_VERSION;
	if (p[3] == HJ_COMMIT) {
		out->act = HJ_COMMIT;
		if (n != HJ_COMMIT_LEN)
			return HJ_R_MALFORMED;
		if (get_u32(p + HEAD + 8) == 0)
			return HJ_R_MALFORMED;
		out->start = get_u64(p + HEAD);
		out->length = get_u32(p + HEAD + 8);
		memcpy(out->commitment, p + HEAD + 12, 32);
		return HJ_OK;
	}
	if (p[3] < HJ_BET || p[3] > HJ_PEEK)
		return HJ_R_UNKNOWN_ACTION;
	act = (hj_act)p[3];
	out->act = act;
	if (n > longest(fam, act))
		return HJ_R_TOO_LONG;
	if (!length_ok(fam, act, n))
		return HJ_R_BAD_LENGTH;

	f = p + HEAD;
	if (act == HJ_BET) {
		if (fam == HJ_BITCOIN) {
			memcpy(out->key, f, KEY);
			f += KEY;
		}
		if (n >= bet_base(fam) + SIDE)
			out->side_pp = get_u64(f);
		if (n == bet_base(fam) + 2 * SIDE)
			out->side_t3 = get_u64(f + SIDE);
		return HJ_OK;
	}
	if (act == HJ_PEEK) {
		if (f[0] > 1) {
			/* The action is known; the fields stay zero so that a
			 * malformed payload never looks half parsed. */
			return HJ_R_BAD_FIELD;
		}
		out->insurance = f[0];
		f++;
	}
	if (fam == HJ_BITCOIN) {
		memcpy(out->round, f, ROUND);
		memcpy(out->sig, f + ROUND, SIG);
	}
	return HJ_OK;
}

/*
 * An act outside Bet..Commit has no encoding: the result is 0 bytes, which no
 * parser accepts.  Peek's flag is written as 01 for any non-zero insurance.
 */
size_t hj_payload_encode(hj_family fam, const hj_payload *pl,
                         uint8_t out[HJ_PAYLOAD_MAX])
{
	size_t n = HEAD;

	if (pl->act < HJ_BET || pl->act > HJ_COMMIT)
		return 0;
	out[0] = HJ_MAGIC0;
	out[1] = HJ_MAGIC1;
	out[2] = HJ_VERSION;
	out[3] = (uint8_t)pl->act;
	if (pl->act == HJ_COMMIT) {
		put_u64(out + n, pl->start);
		for (int i = 0; i < 4; i++)
			out[n + 8 + i] = (uint8_t)(pl->length >> (24 - 8 * i));
		memcpy(out + n + 12, pl->commitment, 32);
		return HJ_COMMIT_LEN;
	}
	if (pl->act == HJ_BET) {
		if (fam == HJ_BITCOIN) {
			memcpy(out + n, pl->key, KEY);
			n += KEY;
		}
		/* The shortest form that carries the stakes: 21+3 needs the
		 * perfect-pairs field before it, even when that is zero. */
		if (pl->side_pp != 0 || pl->side_t3 != 0) {
			put_u64(out + n, pl->side_pp);
			n += SIDE;
		}
		if (pl->side_t3 != 0) {
			put_u64(out + n, pl->side_t3);
			n += SIDE;
		}
		return n;
	}
	if (pl->act == HJ_PEEK)
		out[n++] = pl->insurance != 0;
	if (fam == HJ_BITCOIN) {
		memcpy(out + n, pl->round, ROUND);
		memcpy(out + n + ROUND, pl->sig, SIG);
		n += TAIL;
	}
	return n;
}
