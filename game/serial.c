/*
 * Compact serialised form of a round, for the daemon's database.
 *
 *   u8 version (2)
 *   u8 id_len, id bytes; u8 player_len, player bytes
 *   u64 bet_height, u32 bet_tx_index, u128 bet, u128 insurance
 *   u128 side_pp, u128 side_t3, u8 pp_result, u8 t3_result      (v2)
 *   u8 insured, phase, peek_due, peek_clear (v2), nhands, npending,
 *   pending[npending]
 *   u64 window_open, u32 seq, u32 decisions
 *   u8 dealer_n, dealer cards
 *   per hand: u128 stake, u8 n, u8 flags, cards
 *
 * Integers are big-endian.  Decoding checks every field's range and the
 * state's consistency, so a corrupted row is refused, never played.
 *
 * Version 1 (protocol v1, no side bets) is still read: its fields are
 * version 2's without the ones marked (v2), and the dealer draw a v1 Peek
 * scheduled becomes the peek card of protocol v1.1.  A v1 Peek that had
 * already drawn left the dealer two cards during play; the table goes on
 * from that state too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "card.h"
#include "hand.h"
#include "round.h"
#include "say.h"

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
	put_be(&w, r->side_pp, 16);
	put_be(&w, r->side_t3, 16);
	put_u8(&w, r->pp_result);
	put_u8(&w, r->t3_result);
	put_u8(&w, r->insured);
	put_u8(&w, r->phase);
	put_u8(&w, r->peek_due);
	put_u8(&w, r->peek_clear);
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

/*
 * Whether a round with valid fields is one the engine could have produced
 * (table.c), whatever the rules: NULL, or why not.  The table acts on a
 * restored round as on its own, so a state it never makes (a window open
 * with every hand finished, a finished hand during the deal...) must not
 * get past here.  The rules' own limits (hands, doubles) are not checked:
 * every state below is reachable under some rule set.
 */
static const char *state_error(const hj_round *r)
{
	static const uint8_t deal[3] = {0, HJ_DEALER, 0};
	unsigned pend[HJ_MAX_HANDS] = {0}, dealer_pend = 0, done_all = 1;
	unsigned peek_pend = 0;
	unsigned live = 0, surrendered = 0, first = 0, nhp = 0;
	int up_ace = r->dealer_n > 0 && hj_code_rank(r->dealer[0]) == HJ_ACE;
	int up_ten =
	    r->dealer_n > 0 && hj_rank_value(hj_code_rank(r->dealer[0])) == 10;
	int natural = r->nhands == 1 &&
	              hj_hand_blackjack(r->hands[0].cards, r->hands[0].n);
	int soft;
	unsigned dt = hj_hand_total(r->dealer, r->dealer_n, &soft);

	/* A side stake comes from a payload's u64 field. */
	if (r->side_pp > UINT64_MAX || r->side_t3 > UINT64_MAX)
		return "a side stake above 2^64 - 1, more than a Bet carries";
	if (r->side_pp > r->bet || r->side_t3 > r->bet)
		return "a side stake above the main stake";
	for (unsigned i = 0; i < r->npending; i++) {
		if (r->pending[i] == HJ_DEALER) {
			dealer_pend++;
		} else if (r->pending[i] == HJ_PEEK_CARD) {
			peek_pend++;
		} else {
			/* In play, two hand draws are a split's: k, k + 1. */
			if (nhp++ == 0)
				first = r->pending[i];
			else if (r->phase != HJ_PH_DEAL &&
			         r->pending[i] != first + 1)
				return "pending draws the schedule never makes";
			pend[r->pending[i]]++;
		}
	}
	if (r->phase == HJ_PH_DEAL) {
		unsigned dealt = 3u - r->npending;

		if (r->npending < 1 || r->npending > 3 ||
		    memcmp(r->pending, deal + dealt, r->npending) != 0)
			return "a deal whose draws are not the Bet's";
		if (r->nhands != 1 || r->hands[0].flags != 0 ||
		    r->hands[0].n != (dealt >= 1) ||
		    r->dealer_n != (dealt >= 2) || r->hands[0].stake != r->bet)
			return "a deal's cards or hand as no deal leaves them";
		if (r->insured || r->peek_due || r->seq || r->decisions ||
		    r->window_open || r->peek_clear)
			return "an action or a window during the deal";
		if (r->pp_result || r->t3_result)
			return "side bets settled before the third card";
		return NULL;
	}
	/* The side bets settled at the third card, by its three cards. */
	if (!!r->side_pp != !!r->pp_result || !!r->side_t3 != !!r->t3_result)
		return "side bets settled without a stake or not at all";
	if (r->pp_result && r->pp_result != HJ_SB_LOST &&
	    (r->pp_result < HJ_SB_PERFECT_PAIR ||
	     r->pp_result > HJ_SB_MIXED_PAIR))
		return "a Perfect Pairs result that is not one";
	if (r->t3_result && r->t3_result != HJ_SB_LOST &&
	    r->t3_result < HJ_SB_SUITED_TRIPS)
		return "a 21+3 result that is not one";
	if (r->nhands == 1 && r->hands[0].n >= 2 &&
	    ((r->pp_result &&
	      r->pp_result != hj_perfect_pairs(r->hands[0].cards[0],
	                                       r->hands[0].cards[1])) ||
	     (r->t3_result &&
	      r->t3_result != hj_twenty_one_plus_three(r->hands[0].cards[0],
	                                               r->hands[0].cards[1],
	                                               r->dealer[0]))))
		return "side bet results the cards do not give";
	/* A peek card is the Peek's, or under ace_ten the automatic one
	 * behind a 10; a clear peek leaves the dealer one card until dealer
	 * play, which never gives it a blackjack. */
	if (peek_pend &&
	    (r->npending != 1 || r->phase != HJ_PH_PLAY || r->dealer_n != 1 ||
	     r->peek_due || r->peek_clear || !(up_ace || up_ten) ||
	     r->seq - r->decisions != (unsigned)up_ace || r->decisions))
		return "a peek card the rules never draw";
	if (r->peek_clear &&
	    (r->peek_due || !(up_ace || up_ten) ||
	     r->seq - r->decisions != (unsigned)up_ace ||
	     hj_hand_blackjack(r->dealer, r->dealer_n > 2 ? 2 : r->dealer_n)))
		return "a clear peek the rules never give";
	/* Play and dealer play: a Peek happened exactly when an ace is up
	 * and none is due; every other action is a decision: a split, or one
	 * per card a hand drew or its end (a Stand, a Double, a surrender),
	 * so no round comes near the counters' limits. */
	if (r->seq > 1 + HJ_MAX_HANDS * (HJ_MAX_CARDS + 1))
		return "more actions than a round can have";
	if (r->seq - r->decisions > (unsigned)(up_ace && !r->peek_due))
		return "a count of Peeks the rules never give";
	if (r->decisions < r->nhands - 1u)
		return "more hands than splits";
	if (r->insured && (!up_ace || r->peek_due || r->seq == r->decisions ||
	                   r->insurance != r->bet / 2))
		return "insurance no Peek bought";
	for (unsigned i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];
		unsigned t = hj_hand_total(h->cards, h->n, NULL);
		unsigned f = h->flags;

		if ((r->nhands > 1) != !!(f & HJ_HF_SPLIT))
			return "a split flag that does not match the hands";
		if (h->n < (r->nhands > 1 ? 1u : 2u) || (h->n == 1 && !pend[i]))
			return "a hand short of cards with no draw pending";
		if (h->stake != ((f & HJ_HF_DOUBLED) ? 2 * r->bet : r->bet))
			return "a hand's stake is not its bet or its double";
		if (!(f & HJ_HF_DONE)) {
			done_all = 0;
			if (t >= 21 || (f & (HJ_HF_BUST | HJ_HF_SURRENDER)))
				return "an unfinished hand at 21 or more";
			if ((f & HJ_HF_DOUBLED) && (h->n != 2 || !pend[i]))
				return "a doubled hand without its one card "
				       "due";
		} else {
			if (pend[i])
				return "a finished hand with a draw pending";
			if (!!(f & HJ_HF_BUST) != (t > 21))
				return "a bust flag that does not match the "
				       "total";
			if ((f & HJ_HF_DOUBLED) && h->n != 3)
				return "a doubled hand without its one card";
		}
		if ((f & HJ_HF_SURRENDER) &&
		    (!(f & HJ_HF_DONE) || r->nhands != 1 || h->n != 2 ||
		     r->decisions != 1 || (f & HJ_HF_DOUBLED)))
			return "a surrender the rules never give";
		if (!(f & (HJ_HF_BUST | HJ_HF_SURRENDER)))
			live = 1;
		if (f & HJ_HF_SURRENDER)
			surrendered = 1;
	}
	if (r->phase == HJ_PH_PLAY) {
		if (r->dealer_n < 1 || r->dealer_n > 2 || surrendered)
			return "dealer cards or a surrender during play";
		if (r->peek_due && (r->npending || r->seq || r->nhands != 1))
			return "a Peek due after an action";
		if (dealer_pend)
			return "a dealer draw during play";
		/* Left by a protocol v1 Peek (codec version 1). */
		if (r->dealer_n == 2 &&
		    (!up_ace || r->peek_due || r->peek_clear ||
		     r->seq == r->decisions ||
		     hj_hand_blackjack(r->dealer, 2) || natural))
			return "a second dealer card during play that no Peek "
			       "drew";
		if (natural && !r->peek_due && !peek_pend)
			return "a natural waiting for an action";
		if (r->npending == 0 && !r->peek_due &&
		    hj_round_active_hand(r) < 0)
			return "a window open with every hand finished";
		if (r->npending == 0 && r->window_open <= r->bet_height + 3)
			return "a window opened before the deal ended";
		return NULL;
	}
	/* Dealer play: the dealer draws one card at a time until it stands,
	 * unless only its second card was still needed (a natural or a
	 * surrender against a 10). */
	if (!done_all)
		return "dealer play with a hand unfinished";
	if (r->npending != 1 || !dealer_pend || r->dealer_n < 1)
		return "dealer play with no dealer draw pending";
	if (r->dealer_n >= 2 && (dt > 17 || (dt == 17 && !soft)))
		return "a dealer drawing on a total it stands on";
	if ((natural || !live) &&
	    (r->dealer_n != 1 || !(up_ten || up_ace) || r->peek_clear))
		return "a dealer drawing with nothing left to play for";
	return NULL;
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
		hj_say(err, errlen, __VA_ARGS__);                              \
		return -EINVAL;                                                \
	} while (0)

int hj_round_decode(const uint8_t *buf, size_t n, hj_round *out, char *err,
                    size_t errlen)
{
	struct rbuf rb = {buf, n, 0, "version"};
	hj_round r;
	unsigned ver;
	const char *why;

	memset(&r, 0, sizeof r);
	GET("version", 1, ver);
	if (ver != 1 && ver != HJ_ROUND_CODEC_VERSION)
		BAD("round: unsupported version %u (expected 1 or %u)", ver,
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
	if (ver >= 2) {
		GET("side stake pp", 16, r.side_pp);
		GET("side stake 21+3", 16, r.side_t3);
		GET("pp result", 1, r.pp_result);
		GET("21+3 result", 1, r.t3_result);
		if (r.pp_result >= HJ_SB_COUNT || r.t3_result >= HJ_SB_COUNT)
			BAD("round: side bet result unknown");
	}
	GET("insured", 1, r.insured);
	GET("phase", 1, r.phase);
	GET("peek due", 1, r.peek_due);
	if (ver >= 2)
		GET("peek clear", 1, r.peek_clear);
	GET("hand count", 1, r.nhands);
	GET("pending count", 1, r.npending);
	if (r.insured > 1 || r.peek_due > 1 || r.peek_clear > 1)
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
	for (unsigned i = 0; i < r.npending; i++) {
		/* A v1 Peek's dealer draw is v1.1's peek card. */
		if (ver == 1 && r.phase == HJ_PH_PLAY &&
		    r.pending[i] == HJ_DEALER) {
			r.pending[i] = HJ_PEEK_CARD;
			continue;
		}
		if (r.pending[i] != HJ_DEALER &&
		    (r.pending[i] != HJ_PEEK_CARD || ver == 1) &&
		    r.pending[i] >= r.nhands)
			BAD("round: pending draw for hand %u of %u",
			    r.pending[i], r.nhands);
	}
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
	if (r.bet > HJ_MAX_BET)
		BAD("round: bet above 2^120, more than any table takes");
	if (r.phase != HJ_PH_DEAL && (r.dealer_n < 1 || r.hands[0].n < 1))
		BAD("round: cards missing after the deal");
	if (r.peek_due &&
	    (r.dealer_n != 1 || hj_code_rank(r.dealer[0]) != HJ_ACE))
		BAD("round: peek due without an ace up");
	if ((why = state_error(&r)) != NULL)
		BAD("round: %s", why);
	*out = r;
	return 0;
truncated:
	BAD("round: truncated at %s (byte %zu of %zu)", rb.field, rb.off, n);
}
