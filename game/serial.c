/*
 * Compact serialised form of a round, for the daemon's database.
 *
 *   u8 version (1)
 *   u8 id_len, id bytes; u8 player_len, player bytes
 *   u64 bet_height, u32 bet_tx_index, u128 bet, u128 insurance
 *   u8 insured, phase, peek_due, nhands, npending, pending[npending]
 *   u64 window_open, u32 seq, u32 decisions
 *   u8 dealer_n, dealer cards
 *   per hand: u128 stake, u8 n, u8 flags, cards
 *
 * Integers are big-endian.  Decoding checks every field's range and the
 * state's consistency, so a corrupted row is refused, never played.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "card.h"
#include "round.h"

struct wbuf {
	uint8_t *p;
	size_t n;
};

static void put_u8(struct wbuf *w, uint8_t v)
{
	w->p[w->n++] = v;
}

static void put_be(struct wbuf *w, hj_amount v, unsigned bytes)
{
	for (unsigned i = bytes; i-- > 0;)
		w->p[w->n++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct wbuf *w, const uint8_t *b, size_t n)
{
	memcpy(w->p + w->n, b, n);
	w->n += n;
}

size_t hj_round_encode(const hj_round *r, uint8_t buf[HJ_ROUND_ENCODED_MAX])
{
	struct wbuf w = {buf, 0};

	put_u8(&w, HJ_ROUND_CODEC_VERSION);
	put_u8(&w, r->id.len);
	put_bytes(&w, r->id.b, r->id.len);
	put_u8(&w, r->player.len);
	put_bytes(&w, r->player.b, r->player.len);
	put_be(&w, r->bet_height, 8);
	put_be(&w, r->bet_tx_index, 4);
	put_be(&w, r->bet, 16);
	put_be(&w, r->insurance, 16);
	put_u8(&w, r->insured);
	put_u8(&w, r->phase);
	put_u8(&w, r->peek_due);
	put_u8(&w, r->nhands);
	put_u8(&w, r->npending);
	put_bytes(&w, r->pending, r->npending);
	put_be(&w, r->window_open, 8);
	put_be(&w, r->seq, 4);
	put_be(&w, r->decisions, 4);
	put_u8(&w, r->dealer_n);
	put_bytes(&w, r->dealer, r->dealer_n);
	for (unsigned i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];
		put_be(&w, h->stake, 16);
		put_u8(&w, h->n);
		put_u8(&w, h->flags);
		put_bytes(&w, h->cards, h->n);
	}
	return w.n;
}

struct rbuf {
	const uint8_t *p;
	size_t n, off;
	const char *field; /* what was being read when it ran out */
};

static int get(struct rbuf *rb, const char *field, size_t bytes, hj_amount *v)
{
	rb->field = field;
	if (rb->n - rb->off < bytes)
		return -1;
	hj_amount x = 0;
	for (size_t i = 0; i < bytes; i++)
		x = x << 8 | rb->p[rb->off++];
	*v = x;
	return 0;
}

static int get_bytes(struct rbuf *rb, const char *field, uint8_t *out, size_t n)
{
	rb->field = field;
	if (rb->n - rb->off < n)
		return -1;
	memcpy(out, rb->p + rb->off, n);
	rb->off += n;
	return 0;
}

static int cards_valid(const uint8_t *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!hj_code_valid(c[i]))
			return 0;
	return 1;
}

#define GET(field, bytes, dst)                                                 \
	do {                                                                   \
		hj_amount v_;                                                  \
		if (get(&rb, field, bytes, &v_))                               \
			goto truncated;                                        \
		(dst) = v_;                                                    \
	} while (0)

#define BAD(...)                                                               \
	do {                                                                   \
		if (err && errlen)                                             \
			snprintf(err, errlen, __VA_ARGS__);                    \
		return -EINVAL;                                                \
	} while (0)

int hj_round_decode(const uint8_t *buf, size_t n, hj_round *out, char *err,
                    size_t errlen)
{
	struct rbuf rb = {buf, n, 0, "version"};
	hj_round r;
	unsigned ver;

	memset(&r, 0, sizeof r);
	GET("version", 1, ver);
	if (ver != HJ_ROUND_CODEC_VERSION)
		BAD("round: unsupported version %u (expected %u)", ver,
		    HJ_ROUND_CODEC_VERSION);
	GET("id length", 1, r.id.len);
	if (r.id.len > sizeof r.id.b)
		BAD("round: id length %u above 32", r.id.len);
	if (get_bytes(&rb, "id", r.id.b, r.id.len))
		goto truncated;
	GET("player length", 1, r.player.len);
	if (r.player.len > sizeof r.player.b)
		BAD("round: player length %u above 32", r.player.len);
	if (get_bytes(&rb, "player", r.player.b, r.player.len))
		goto truncated;
	GET("bet height", 8, r.bet_height);
	GET("bet tx index", 4, r.bet_tx_index);
	GET("bet", 16, r.bet);
	GET("insurance", 16, r.insurance);
	GET("insured", 1, r.insured);
	GET("phase", 1, r.phase);
	GET("peek due", 1, r.peek_due);
	GET("hand count", 1, r.nhands);
	GET("pending count", 1, r.npending);
	if (r.insured > 1 || r.peek_due > 1)
		BAD("round: flag byte above 1");
	if (r.phase > HJ_PH_DEALER)
		BAD("round: phase %u unknown", r.phase);
	if (r.nhands < 1 || r.nhands > HJ_MAX_HANDS)
		BAD("round: %u hands (1 to %d)", r.nhands, HJ_MAX_HANDS);
	if (r.npending > HJ_MAX_PENDING)
		BAD("round: %u pending draws (at most %d)", r.npending,
		    HJ_MAX_PENDING);
	if (get_bytes(&rb, "pending", r.pending, r.npending))
		goto truncated;
	for (unsigned i = 0; i < r.npending; i++)
		if (r.pending[i] != HJ_DEALER && r.pending[i] >= r.nhands)
			BAD("round: pending draw for hand %u of %u",
			    r.pending[i], r.nhands);
	GET("window", 8, r.window_open);
	GET("seq", 4, r.seq);
	GET("decisions", 4, r.decisions);
	GET("dealer card count", 1, r.dealer_n);
	if (r.dealer_n > HJ_MAX_CARDS)
		BAD("round: %u dealer cards", r.dealer_n);
	if (get_bytes(&rb, "dealer cards", r.dealer, r.dealer_n))
		goto truncated;
	if (!cards_valid(r.dealer, r.dealer_n))
		BAD("round: invalid dealer card");
	for (unsigned i = 0; i < r.nhands; i++) {
		hj_hand *h = &r.hands[i];
		GET("hand stake", 16, h->stake);
		GET("hand card count", 1, h->n);
		GET("hand flags", 1, h->flags);
		if (h->n > HJ_MAX_CARDS)
			BAD("round: hand %u has %u cards", i, h->n);
		if (h->flags >= 32)
			BAD("round: hand %u flags 0x%02x unknown", i, h->flags);
		if (get_bytes(&rb, "hand cards", h->cards, h->n))
			goto truncated;
		if (!cards_valid(h->cards, h->n))
			BAD("round: invalid card in hand %u", i);
		if (h->stake < r.bet)
			BAD("round: hand %u stake below the bet", i);
	}
	if (rb.off != n)
		BAD("round: %zu trailing bytes", n - rb.off);
	if (r.bet == 0 || r.decisions > r.seq || (!r.insured && r.insurance))
		BAD("round: inconsistent stakes or counters");
	if (r.phase != HJ_PH_DEAL && (r.dealer_n < 1 || r.hands[0].n < 1))
		BAD("round: cards missing after the deal");
	if (r.peek_due &&
	    (r.dealer_n != 1 || hj_code_rank(r.dealer[0]) != HJ_ACE))
		BAD("round: peek due without an ace up");
	*out = r;
	return 0;
truncated:
	BAD("round: truncated at %s (byte %zu of %zu)", rb.field, rb.off, n);
}
