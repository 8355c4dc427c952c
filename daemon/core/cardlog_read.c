/*
 * The block-to-card log's reader (see cardlog.h, docs/LOG.md): one line,
 * through jansson, into an hj_cardlog_line.
 *
 * Change it with its writer, cardlog.c, in one diff.  The keys of each
 * object are read in the order docs/LOG.md gives them, so a line with
 * several faults is refused at the first in that order; a message names
 * the place ("events[3]: ", the key, an index) and then what is wrong.
 */
#include "cardlog.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "hex.h"
#include "quote.h"
#include "say.h"

/* What is being read, for the messages. */
struct rd {
	hj_family fam;
	hj_cardlog_err *err;
	hj_cardlog_at at;
	int in_event;
	size_t index;
	int type;
	const char *top; /* the event's member being read inside, or NULL */
	char ctx[48];    /* where inside it: "\"playerHands\"[1]." */
};

/*
 * Refuses the line: the place (the event, the context, key and index)
 * then fmt.  key NULL: the event itself.  Returns -EINVAL.
 */
__attribute__((format(printf, 4, 5))) static int
fail(struct rd *r, const char *key, long idx, const char *fmt, ...)
{
	hj_cardlog_err *e = r->err;
	char what[HJ_ERRLEN], ev[40] = "", ix[24] = "";
	va_list ap;

	va_start(ap, fmt);
	hj_vsay(what, sizeof what, fmt, ap);
	va_end(ap);
	e->at = r->at;
	e->index = r->index;
	e->type = r->type;
	e->key = r->in_event ? (r->top ? r->top : key) : NULL;
	if (r->in_event)
		snprintf(ev, sizeof ev, "events[%zu]: ", r->index);
	if (idx >= 0)
		snprintf(ix, sizeof ix, "[%ld]", idx);
	if (key)
		hj_say(e->msg, sizeof e->msg, "%s%s\"%s\"%s: %s", ev, r->ctx,
		       key, ix, what);
	else
		hj_say(e->msg, sizeof e->msg, "%s%s", ev, what);
	return -EINVAL;
}

/* The string at fault, for err->shown and the message. */
static const char *show(struct rd *r, const char *s)
{
	hj_quote(s, r->err->shown, sizeof r->err->shown);
	return r->err->shown;
}

/* o's member key into *v: NULL when absent, refused when need. */
static int get(struct rd *r, const json_t *o, const char *key, int need,
               json_t **v)
{
	*v = json_object_get(o, key);
	if (*v == NULL && need)
		return fail(r, key, -1, "missing");
	return 0;
}

static int str_of(struct rd *r, const char *key, long idx, const json_t *v,
                  const char **s, size_t *n)
{
	*s = "";
	*n = 0;
	if (!json_is_string(v))
		return fail(r, key, idx, "not a string");
	*s = json_string_value(v);
	*n = json_string_length(v);
	return 0;
}

/* A JSON integer from 0 to max. */
static int uint_of(struct rd *r, const char *key, const json_t *v, uint64_t max,
                   uint64_t *out)
{
	json_int_t i;

	*out = 0;
	if (!json_is_integer(v))
		return fail(r, key, -1, "not an integer");
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return fail(r, key, -1, "%lld is not 0 to %llu", (long long)i,
		            (unsigned long long)max);
	*out = (uint64_t)i;
	return 0;
}

static int bool_of(struct rd *r, const char *key, const json_t *v, uint8_t *out)
{
	if (!json_is_boolean(v))
		return fail(r, key, -1, "not true or false");
	*out = json_is_true(v);
	return 0;
}

static int amount_of(struct rd *r, const char *key, const json_t *v,
                     hj_amount *out)
{
	const char *s;
	size_t n;
	int rc = str_of(r, key, -1, v, &s, &n);

	if (rc)
		return rc;
	if (hj_amount_parse(s, n, out))
		return fail(r, key, -1,
		            "%s is not an amount (decimal digits, no sign or "
		            "leading zero, below 2^128)",
		            show(r, s));
	return 0;
}

/* Each lower-case hex digit's value + 1; 0 for any other byte. */
static const uint8_t lower_hex[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/*
 * Hex of n bytes in the family's form, in lower case.  Every line has a
 * few of these: they are decoded in one pass; a refusal is worded by
 * chain/hex.c, as everywhere else.
 */
static int hex_form_of(struct rd *r, const char *key, const json_t *v,
                       uint8_t *out, size_t n, int with_0x)
{
	const char *s, *d;
	size_t len, nd;
	char why[HJ_ERRLEN];
	int rc = str_of(r, key, -1, v, &s, &len);

	if (rc)
		return rc;
	d = s;
	nd = len;
	if (with_0x && len >= 2 && s[0] == '0' && s[1] == 'x') {
		d += 2;
		nd -= 2;
	}
	if ((!with_0x || d != s) && nd == 2 * n) {
		size_t i;

		for (i = 0; i < n; i++) {
			unsigned hi = lower_hex[(unsigned char)d[2 * i]];
			unsigned lo = lower_hex[(unsigned char)d[2 * i + 1]];

			if (!hi || !lo)
				break;
			out[i] = (uint8_t)((hi - 1) << 4 | (lo - 1));
		}
		if (i == n)
			return 0;
	}
	if (hj_hex_decode_exact(s, len, with_0x ? HJ_HEX_REQUIRED : HJ_HEX_BARE,
	                        out, n, why, sizeof why))
		return fail(r, key, -1, "%s: %s", show(r, s), why);
	/* Hex, but not lower case. */
	return fail(r, key, -1,
	            "%s: upper-case hex (the log writes lower case)",
	            show(r, s));
}

/* n bytes in the family's hex form (EVM "0x"). */
static int hex_of(struct rd *r, const char *key, const json_t *v, uint8_t *out,
                  size_t n)
{
	return hex_form_of(r, key, v, out, n, r->fam == HJ_EVM);
}

/* A seed or commitment: 64 lower-case hex digits, never "0x". */
static int seed_of(struct rd *r, const char *key, const json_t *v,
                   uint8_t out[HJ_SEED_LEN])
{
	return hex_form_of(r, key, v, out, HJ_SEED_LEN, 0);
}

/* An id of n bytes. */
static int id_of(struct rd *r, const char *key, const json_t *v, size_t n,
                 hj_id *id)
{
	int rc = hex_of(r, key, v, id->b, n);

	if (rc == 0)
		id->len = (uint8_t)n;
	return rc;
}

/* A player's or sender's id: an address (EVM) or an x-only key. */
static size_t party_len(const struct rd *r)
{
	return r->fam == HJ_EVM ? 20 : 32;
}

/* One of names[first..n), which must not be NULL: its index. */
static int name_of(struct rd *r, const char *key, const json_t *v,
                   const char *(*name)(int), int first, int n, const char *what,
                   int *out)
{
	const char *s;
	size_t len;
	int rc;

	*out = first;
	if ((rc = str_of(r, key, -1, v, &s, &len)))
		return rc;
	for (int i = first; i < n; i++) {
		if (strcmp(s, name(i)) == 0) {
			*out = i;
			return 0;
		}
	}
	return fail(r, key, -1, "%s is not %s", show(r, s), what);
}

static const char *rank_name(int rank)
{
	return hj_rank_name((unsigned)rank);
}

static const char *suit_name(int suit)
{
	return hj_suit_name((unsigned)suit);
}

/* A card code, "AS" .. "KD": its byte, or 0. */
static uint8_t parse_code(const char *s, size_t n)
{
	static const char suits[] = "CDHS";
	const char *suit;

	if (n < 2 || n > 3 || (suit = memchr(suits, s[n - 1], 4)) == NULL)
		return 0;
	for (unsigned rank = 1; rank <= 13; rank++) {
		const char *name = hj_rank_name(rank);

		if (strlen(name) == n - 1 && memcmp(name, s, n - 1) == 0)
			return hj_code(rank, (unsigned)(suit - suits));
	}
	return 0;
}

static int code_of(struct rd *r, const char *key, long idx, const json_t *v,
                   uint8_t *out)
{
	const char *s;
	size_t n;
	int rc;

	*out = 0;
	if ((rc = str_of(r, key, idx, v, &s, &n)))
		return rc;
	*out = parse_code(s, n);
	if (*out == 0)
		return fail(r, key, idx,
		            "%s is not a card code (\"AS\", \"10H\", ...)",
		            show(r, s));
	return 0;
}

/* ---- the card ---- */

/* A digit string of one character, lower-case hex: its value, or -1. */
static int digit_of(const json_t *v)
{
	const char *s = json_string_value(v);

	if (s == NULL || json_string_length(v) != 1 ||
	    (s[0] >= 'A' && s[0] <= 'F'))
		return -1;
	return hj_hex_digit((unsigned char)s[0]);
}

/* "card": every member, each agreeing with rank and suit. */
static int read_card(struct rd *r, const json_t *c, hj_card *card)
{
	json_t *v;
	uint64_t u;
	uint8_t code;
	int rank, suit, d, rc;

	snprintf(r->ctx, sizeof r->ctx, "\"card\".");
	if ((rc = get(r, c, "rank", 1, &v)) ||
	    (rc = name_of(r, "rank", v, rank_name, 1, 14, "a rank", &rank)) ||
	    (rc = get(r, c, "suit", 1, &v)) ||
	    (rc = name_of(r, "suit", v, suit_name, 0, 4, "a suit", &suit)) ||
	    (rc = get(r, c, "value", 1, &v)) ||
	    (rc = uint_of(r, "value", v, 10, &u)))
		return rc;
	if (u != hj_rank_value((unsigned)rank))
		return fail(r, "value", -1, "%llu is not the value of rank %s",
		            (unsigned long long)u,
		            hj_rank_name((unsigned)rank));
	if ((rc = get(r, c, "code", 1, &v)) ||
	    (rc = code_of(r, "code", -1, v, &code)))
		return rc;
	if (code != hj_code((unsigned)rank, (unsigned)suit))
		return fail(r, "code", -1, "%s is not the code of the %s of %s",
		            show(r, json_string_value(v)),
		            hj_rank_name((unsigned)rank),
		            hj_suit_name((unsigned)suit));
	if ((rc = get(r, c, "pos", 1, &v)) ||
	    (rc = uint_of(r, "pos", v, 63, &u)))
		return rc;
	if (u == 0)
		return fail(r, "pos", -1,
		            "0: the rank digit has a digit on its left");
	card->pos = (uint8_t)u;
	if ((rc = get(r, c, "rankDigit", 1, &v)))
		return rc;
	d = digit_of(v);
	if (d != rank)
		return fail(r, "rankDigit", -1,
		            "not the lower-case hex digit of rank %s",
		            hj_rank_name((unsigned)rank));
	if ((rc = get(r, c, "colorDigit", 1, &v)))
		return rc;
	d = digit_of(v);
	if (d < 0 || d % 4 != suit)
		return fail(r, "colorDigit", -1,
		            "not a lower-case hex digit whose value mod 4 is "
		            "%s (%d)",
		            hj_suit_name((unsigned)suit), suit);
	card->rank = (uint8_t)rank;
	card->suit = (uint8_t)suit;
	card->rank_digit = (char)(rank < 10 ? '0' + rank : 'a' + rank - 10);
	card->color_digit = json_string_value(v)[0];
	r->ctx[0] = '\0';
	return 0;
}

/* ---- events ---- */

static const char *const type_names[] = {
    [HJ_EV_DRAW] = "draw",       [HJ_EV_ACTION] = "action",
    [HJ_EV_REJECT] = "reject",   [HJ_EV_DEPOSIT] = "deposit",
    [HJ_EV_IGNORED] = "ignored", [HJ_EV_TIMEOUT] = "timeout",
    [HJ_EV_SETTLE] = "settle",   [HJ_EV_PEEK] = "peek",
    [HJ_EV_SKIP] = "skip",       [HJ_EV_SIDE] = "sidebets",
    [HJ_EV_COMMIT] = "commit",
};
#define NTYPES ((int)(sizeof type_names / sizeof type_names[0]))

static int type_of(const char *s)
{
	for (int i = 0; i < NTYPES; i++)
		if (strcmp(s, type_names[i]) == 0)
			return i;
	return HJ_CARDLOG_EV_UNKNOWN;
}

static const char *act_name(int act)
{
	return hj_act_name(act);
}

static const char *status_name(int st)
{
	return hj_status_name(st);
}

static const char *side_name(int sb)
{
	return hj_side_name(sb);
}

static int read_round(struct rd *r, const json_t *e, int need,
                      hj_cardlog_ev *ev)
{
	json_t *v;
	int rc = get(r, e, "round", need, &v);

	if (rc || v == NULL)
		return rc;
	ev->has_round = 1;
	return id_of(r, "round", v, 32, &ev->round);
}

static int read_act(struct rd *r, const json_t *e, int need, hj_cardlog_ev *ev)
{
	json_t *v;
	int act, rc = get(r, e, "action", need, &v);

	if (rc || v == NULL)
		return rc;
	if ((rc = name_of(r, "action", v, act_name, HJ_BET, HJ_COMMIT + 1,
	                  "an action (\"Bet\" .. \"Commit\")", &act)))
		return rc;
	ev->has_act = 1;
	ev->act = (hj_act)act;
	return 0;
}

static int read_hand(struct rd *r, const json_t *e, int need, hj_cardlog_ev *ev)
{
	json_t *v;
	uint64_t u;
	int rc = get(r, e, "handIndex", need, &v);

	if (rc || v == NULL)
		return rc;
	if ((rc = uint_of(r, "handIndex", v, HJ_MAX_HANDS - 1, &u)))
		return rc;
	ev->has_hand = 1;
	ev->hand = (int)u;
	return 0;
}

/* "tx", "txIndex" and the optional "from". */
static int read_tx(struct rd *r, const json_t *e, int with_from,
                   hj_cardlog_ev *ev)
{
	json_t *v;
	uint64_t u;
	int rc;

	if ((rc = get(r, e, "tx", 1, &v)) ||
	    (rc = id_of(r, "tx", v, 32, &ev->tx)) ||
	    (rc = get(r, e, "txIndex", 1, &v)) ||
	    (rc = uint_of(r, "txIndex", v, UINT32_MAX, &u)))
		return rc;
	ev->tx_index = (uint32_t)u;
	if (!with_from)
		return 0;
	if ((rc = get(r, e, "from", 0, &v)) || v == NULL)
		return rc;
	ev->has_from = 1;
	return id_of(r, "from", v, party_len(r), &ev->from);
}

static int read_player(struct rd *r, const json_t *e, hj_cardlog_ev *ev)
{
	json_t *v;
	int rc = get(r, e, "player", 1, &v);

	return rc ? rc : id_of(r, "player", v, party_len(r), &ev->player);
}

static int read_amount(struct rd *r, const json_t *e, const char *key, int need,
                       hj_amount *out, uint8_t *has)
{
	json_t *v;
	int rc = get(r, e, key, need, &v);

	if (rc || v == NULL)
		return rc;
	if (has)
		*has = 1;
	return amount_of(r, key, v, out);
}

static int read_code(struct rd *r, const json_t *e, hj_cardlog_ev *ev)
{
	json_t *v;
	int rc = get(r, e, "card", 1, &v);

	return rc ? rc : code_of(r, "card", -1, v, &ev->card);
}

/* "cards" and "total" of a hand, within r->top. */
static int read_cards(struct rd *r, const json_t *h, hj_cardlog_hand *hand)
{
	json_t *v;
	uint64_t total;
	int rc;

	if ((rc = get(r, h, "cards", 1, &v)))
		return rc;
	if (!json_is_array(v))
		return fail(r, "cards", -1, "not an array");
	if (json_array_size(v) > HJ_MAX_CARDS)
		return fail(r, "cards", -1, "more than %d cards", HJ_MAX_CARDS);
	hand->n = (uint8_t)json_array_size(v);
	for (size_t i = 0; i < hand->n; i++)
		if ((rc = code_of(r, "cards", (long)i, json_array_get(v, i),
		                  &hand->cards[i])))
			return rc;
	if ((rc = get(r, h, "total", 1, &v)) ||
	    (rc = uint_of(r, "total", v, UINT32_MAX, &total)))
		return rc;
	hand->total = (unsigned)total;
	if (hand->total != hj_hand_total(hand->cards, hand->n, NULL))
		return fail(r, "total", -1, "%u is not the total of the cards",
		            hand->total);
	return 0;
}

/* An object member of an event, read inside: r->top and r->ctx name it. */
static int inside(struct rd *r, const char *top, long idx, const json_t *v)
{
	if (idx >= 0)
		snprintf(r->ctx, sizeof r->ctx, "\"%s\"[%ld].", top, idx);
	else
		snprintf(r->ctx, sizeof r->ctx, "\"%s\".", top);
	if (!json_is_object(v)) {
		int rc;

		r->ctx[0] = '\0';
		rc = fail(r, top, idx, "not an object");
		return rc;
	}
	r->top = top;
	return 0;
}

static void outside(struct rd *r)
{
	r->top = NULL;
	r->ctx[0] = '\0';
}

/* One of "playerHands": every key of a player hand, inside. */
static int read_player_hand(struct rd *r, const json_t *h, size_t i,
                            hj_cardlog_hand *hand)
{
	json_t *v;
	uint64_t u;
	int rc, status;

	if ((rc = get(r, h, "handIndex", 1, &v)) ||
	    (rc = uint_of(r, "handIndex", v, HJ_MAX_HANDS - 1, &u)))
		return rc;
	if (u != i)
		return fail(r, "handIndex", -1, "%llu, not its index %zu",
		            (unsigned long long)u, i);
	if ((rc = read_cards(r, h, hand)) ||
	    (rc = read_amount(r, h, "betAmount", 1, &hand->bet, NULL)) ||
	    (rc = get(r, h, "status", 1, &v)) ||
	    (rc = name_of(r, "status", v, status_name, HJ_ST_BLACKJACK,
	                  HJ_ST_DEALER_BJ + 1, "a hand's status", &status)))
		return rc;
	hand->status = (uint8_t)status;
	return read_amount(r, h, "payout", 1, &hand->payout, NULL);
}

static int read_settle(struct rd *r, const json_t *e, hj_cardlog_ev *ev,
                       hj_cardlog_settle *st)
{
	json_t *v;
	int rc;

	if ((rc = read_round(r, e, 1, ev)) || (rc = read_player(r, e, ev)) ||
	    (rc = get(r, e, "dealerHand", 1, &v)) ||
	    (rc = inside(r, "dealerHand", -1, v)) ||
	    (rc = read_cards(r, v, &st->dealer)))
		return rc;
	outside(r);
	if ((rc = get(r, e, "playerHands", 1, &v)))
		return rc;
	if (!json_is_array(v))
		return fail(r, "playerHands", -1, "not an array");
	if (json_array_size(v) > HJ_MAX_HANDS)
		return fail(r, "playerHands", -1, "more than %d hands",
		            HJ_MAX_HANDS);
	st->nhands = (uint8_t)json_array_size(v);
	for (size_t i = 0; i < st->nhands; i++) {
		const json_t *h = json_array_get(v, i);

		if ((rc = inside(r, "playerHands", (long)i, h)) ||
		    (rc = read_player_hand(r, h, i, &st->hands[i])))
			return rc;
		outside(r);
	}
	if ((rc = get(r, e, "insurance", 0, &v)))
		return rc;
	if (v != NULL) {
		if ((rc = inside(r, "insurance", -1, v)) ||
		    (rc = read_amount(r, v, "betAmount", 1, &st->ins_bet,
		                      NULL)) ||
		    (rc =
		         read_amount(r, v, "payout", 1, &st->ins_payout, NULL)))
			return rc;
		outside(r);
		st->has_insurance = 1;
	}
	if ((rc = read_amount(r, e, "betAmount", 1, &ev->bet, NULL)) ||
	    (rc = read_amount(r, e, "payout", 1, &ev->payout, NULL)))
		return rc;
	ev->settle = st;
	return 0;
}

/* "perfectPairs" or "poker" of a sidebets event, when there. */
static int read_side(struct rd *r, const json_t *e, const char *key,
                     hj_cardlog_side *side, uint8_t *has)
{
	json_t *v, *s;
	int rc, status;

	if ((rc = get(r, e, key, 0, &v)) || v == NULL)
		return rc;
	if ((rc = inside(r, key, -1, v)) ||
	    (rc = read_amount(r, v, "betAmount", 1, &side->bet, NULL)) ||
	    (rc = get(r, v, "status", 1, &s)) ||
	    (rc = name_of(r, "status", s, side_name, HJ_SB_LOST, HJ_SB_COUNT,
	                  "a side bet's status", &status)) ||
	    (rc = read_amount(r, v, "payout", 1, &side->payout, NULL)))
		return rc;
	outside(r);
	side->status = (uint8_t)status;
	*has = 1;
	return 0;
}

/* One event's keys after "type", in docs/LOG.md's order. */
static int read_keys(struct rd *r, const json_t *e, hj_cardlog_ev *ev,
                     hj_cardlog_settle *st)
{
	json_t *v;
	uint64_t u;
	int rc, owner;

	switch (ev->type) {
	case HJ_EV_DRAW:
		if ((rc = read_round(r, e, 1, ev)) ||
		    (rc = get(r, e, "handOwner", 1, &v)))
			return rc;
		if (!json_is_string(v))
			return fail(r, "handOwner", -1, "not a string");
		owner = strcmp(json_string_value(v), "Player") == 0   ? 1
		        : strcmp(json_string_value(v), "Dealer") == 0 ? 0
		                                                      : -1;
		if (owner < 0)
			return fail(r, "handOwner", -1,
			            "%s is not \"Player\" or \"Dealer\"",
			            show(r, json_string_value(v)));
		if (owner) {
			if ((rc = read_hand(r, e, 1, ev)))
				return rc;
		} else {
			if (json_object_get(e, "handIndex") != NULL)
				return fail(r, "handIndex", -1,
				            "given for the dealer");
			ev->hand = HJ_DEALER;
		}
		return read_code(r, e, ev);
	case HJ_EV_PEEK:
		if ((rc = read_round(r, e, 1, ev)) ||
		    (rc = read_code(r, e, ev)) ||
		    (rc = get(r, e, "dealerBlackjack", 1, &v)))
			return rc;
		return bool_of(r, "dealerBlackjack", v, &ev->dealer_bj);
	case HJ_EV_SKIP:
		if ((rc = read_round(r, e, 1, ev)))
			return rc;
		return read_code(r, e, ev);
	case HJ_EV_SIDE:
		if ((rc = read_round(r, e, 1, ev)) ||
		    (rc = read_player(r, e, ev)) ||
		    (rc = read_side(r, e, "perfectPairs", &ev->pp,
		                    &ev->has_pp)) ||
		    (rc = read_side(r, e, "poker", &ev->t3, &ev->has_t3)) ||
		    (rc = read_amount(r, e, "betAmount", 1, &ev->bet, NULL)))
			return rc;
		return read_amount(r, e, "payout", 1, &ev->payout, NULL);
	case HJ_EV_ACTION:
		if ((rc = read_act(r, e, 1, ev)) ||
		    (rc = read_round(r, e, 1, ev)) ||
		    (rc = read_player(r, e, ev)) ||
		    (rc = read_tx(r, e, 0, ev)) ||
		    (rc = read_hand(r, e, 0, ev)) ||
		    (rc = get(r, e, "insurance", 0, &v)))
			return rc;
		if (v != NULL) {
			if ((rc = bool_of(r, "insurance", v, &ev->insurance)))
				return rc;
			ev->has_insurance = 1;
		}
		if ((rc = read_amount(r, e, "stake", 1, &ev->stake, NULL)) ||
		    (rc = read_amount(r, e, "perfectPairs", 0, &ev->pp_stake,
		                      &ev->has_pp)))
			return rc;
		return read_amount(r, e, "poker", 0, &ev->t3_stake,
		                   &ev->has_t3);
	case HJ_EV_REJECT:
		if ((rc = read_tx(r, e, 1, ev)) ||
		    (rc = read_act(r, e, 0, ev)) ||
		    (rc = read_round(r, e, 0, ev)) ||
		    (rc = get(r, e, "reason", 1, &v)))
			return rc;
		if (!json_is_string(v))
			return fail(r, "reason", -1, "not a string");
		/* A word of a later feature reads as a rejection all the
		 * same (docs/LOG.md, "Stability"). */
		ev->reason = HJ_R_COUNT;
		for (int i = HJ_R_TRUNCATED; i < HJ_R_COUNT; i++)
			if (strcmp(json_string_value(v), hj_reason_name(i)) ==
			    0)
				ev->reason = (uint8_t)i;
		return read_amount(r, e, "refund", 1, &ev->refund, NULL);
	case HJ_EV_DEPOSIT:
		if ((rc = read_tx(r, e, 1, ev)))
			return rc;
		return read_amount(r, e, "value", 1, &ev->value, NULL);
	case HJ_EV_IGNORED:
		if ((rc = read_tx(r, e, 1, ev)) ||
		    (rc = get(r, e, "reason", 1, &v)))
			return rc;
		return json_is_string(v)
		           ? 0
		           : fail(r, "reason", -1, "not a string");
	case HJ_EV_TIMEOUT:
		if ((rc = read_round(r, e, 1, ev)) ||
		    (rc = read_act(r, e, 1, ev)))
			return rc;
		return read_hand(r, e, 0, ev);
	case HJ_EV_SETTLE:
		return read_settle(r, e, ev, st);
	case HJ_EV_COMMIT:
		if ((rc = read_tx(r, e, 1, ev)) ||
		    (rc = get(r, e, "start", 1, &v)) ||
		    (rc = uint_of(r, "start", v, INT64_MAX, &ev->start)) ||
		    (rc = get(r, e, "length", 1, &v)) ||
		    (rc = uint_of(r, "length", v, UINT32_MAX, &u)))
			return rc;
		if (u == 0)
			return fail(r, "length", -1, "0: a chain has a seed");
		ev->length = (uint32_t)u;
		if ((rc = get(r, e, "commitment", 1, &v)))
			return rc;
		return seed_of(r, "commitment", v, ev->commitment);
	}
	return 0; /* a type this reader does not know: nothing more */
}

static int read_event(struct rd *r, const json_t *e, hj_cardlog_ev *ev,
                      hj_cardlog_settle *st)
{
	const json_t *t;

	ev->type = HJ_CARDLOG_EV_UNKNOWN;
	ev->hand = -1;
	if (!json_is_object(e))
		return fail(r, NULL, -1, "not an object");
	t = json_object_get(e, "type");
	if (t == NULL || !json_is_string(t)) {
		fail(r, "type", -1, t ? "not a string" : "missing");
		r->err->key = NULL; /* the event itself: it has no type */
		return -EINVAL;
	}
	ev->type = type_of(json_string_value(t));
	r->type = ev->type;
	return read_keys(r, e, ev, st);
}

/* ---- the line ---- */

static int read_header(struct rd *r, const json_t *root, hj_cardlog_line *l)
{
	json_t *v;
	const char *s;
	size_t n;
	int rc;

	r->at = HJ_CARDLOG_AT_V;
	if ((rc = get(r, root, "v", 1, &v)))
		return rc;
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > HJ_CARDLOG_VERSION)
		return fail(r, "v", -1, "not 1 to %d", HJ_CARDLOG_VERSION);
	l->version = (unsigned)json_integer_value(v);
	r->at = HJ_CARDLOG_AT_CHAIN;
	if ((rc = get(r, root, "chain", 1, &v)) ||
	    (rc = str_of(r, "chain", -1, v, &s, &n)))
		return rc;
	if (strcmp(s, hj_family_name(r->fam)) != 0)
		return fail(r, "chain", -1, "%s, not \"%s\"", show(r, s),
		            hj_family_name(r->fam));
	l->fam = r->fam;
	r->at = HJ_CARDLOG_AT_HEIGHT;
	if ((rc = get(r, root, "height", 1, &v)))
		return rc;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return fail(r, "height", -1, "not a block height");
	l->height = (uint64_t)json_integer_value(v);
	r->err->has_height = 1;
	r->err->height = l->height;
	r->at = HJ_CARDLOG_AT_HASH;
	if ((rc = get(r, root, "hash", 1, &v)) ||
	    (rc = hex_of(r, "hash", v, l->hash, 32)))
		return rc;
	r->at = HJ_CARDLOG_AT_PARENT;
	if ((rc = get(r, root, "parent", 1, &v)) ||
	    (rc = hex_of(r, "parent", v, l->parent, 32)))
		return rc;
	v = json_object_get(root, "seed");
	if (v != NULL) {
		r->at = HJ_CARDLOG_AT_SEED;
		if ((rc = seed_of(r, "seed", v, l->seed)))
			return rc;
		l->has_seed = 1;
	}
	r->at = HJ_CARDLOG_AT_CARD;
	v = json_object_get(root, "card");
	if (v != NULL) {
		if (!json_is_object(v))
			return fail(r, "card", -1, "not an object");
		if ((rc = read_card(r, v, &l->card)))
			return rc;
		if (json_object_get(root, "void") != NULL)
			return fail(r, "void", -1, "beside a card");
	} else {
		v = json_object_get(root, "void");
		if (v == NULL)
			return fail(r, "card", -1,
			            "missing, and no \"void\": true");
		if (!json_is_true(v))
			return fail(r, "void", -1, "not true");
	}
	return 0;
}

/* Events whose type is "settle": they need room for their hands. */
static size_t count_settles(const json_t *evs)
{
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(evs); i++) {
		const char *t = json_string_value(
		    json_object_get(json_array_get(evs, i), "type"));

		n += t != NULL && strcmp(t, "settle") == 0;
	}
	return n;
}

static int read_events(struct rd *r, const json_t *root, hj_cardlog_line *l)
{
	json_t *evs;
	size_t nsettles, k = 0;
	int rc;

	r->at = HJ_CARDLOG_AT_EVENTS;
	if ((rc = get(r, root, "events", 1, &evs)))
		return rc;
	if (!json_is_array(evs))
		return fail(r, "events", -1, "not an array");
	l->nevents = json_array_size(evs);
	if (l->nevents == 0)
		return 0;
	nsettles = count_settles(evs);
	l->events = calloc(l->nevents, sizeof *l->events);
	l->settles = nsettles ? calloc(nsettles, sizeof *l->settles) : NULL;
	if (l->events == NULL || (nsettles && l->settles == NULL))
		return -ENOMEM;
	r->at = HJ_CARDLOG_AT_EVENT;
	r->in_event = 1;
	for (size_t i = 0; i < l->nevents; i++) {
		hj_cardlog_ev *ev = &l->events[i];

		r->index = i;
		r->type = HJ_CARDLOG_EV_UNKNOWN;
		/* k < nsettles for every settle event: both count the
		 * events whose "type" is "settle". */
		if ((rc = read_event(r, json_array_get(evs, i), ev,
		                     l->settles ? l->settles + k : NULL)))
			return rc;
		k += ev->type == HJ_EV_SETTLE;
	}
	return 0;
}

int hj_cardlog_read(const char *line, size_t len, hj_family fam,
                    hj_cardlog_line *out, hj_cardlog_err *err)
{
	struct rd r = {.fam = fam, .err = err, .at = HJ_CARDLOG_AT_LINE};
	json_error_t je;
	json_t *root = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	err->at = HJ_CARDLOG_AT_LINE;
	err->json = 0;
	err->column = 0;
	err->index = 0;
	err->type = HJ_CARDLOG_EV_UNKNOWN;
	err->key = NULL;
	err->has_height = 0;
	err->height = 0;
	err->shown[0] = '\0';
	err->msg[0] = '\0';
	if (len > HJ_CARDLOG_MAX - 1) {
		fail(&r, NULL, -1, "longer than %zu bytes: not a card log line",
		     HJ_CARDLOG_MAX - 1);
		return -EMSGSIZE;
	}
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		if (json_error_code(&je) == json_error_out_of_memory) {
			rc = -ENOMEM;
			goto out;
		}
		err->json = 1;
		err->column = je.column;
		hj_say(err->msg, sizeof err->msg, "%s", je.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		rc = fail(&r, NULL, -1, "not a JSON object");
		goto out;
	}
	if ((rc = read_header(&r, root, out)) == 0)
		rc = read_events(&r, root, out);
out:
	json_decref(root);
	if (rc == -ENOMEM)
		hj_say(err->msg, sizeof err->msg, "out of memory");
	if (rc)
		hj_cardlog_line_free(out);
	return rc;
}

void hj_cardlog_line_free(hj_cardlog_line *l)
{
	if (l == NULL)
		return;
	free(l->events);
	free(l->settles);
	memset(l, 0, sizeof *l);
}

int hj_cardlog_no_events(const char *line, size_t len)
{
	static const char tail[] = "\"events\":[]}";
	size_t n = sizeof tail - 1;

	return len >= n && memcmp(line + len - n, tail, n) == 0;
}

/* The digits of a JSON integer below 10^18 at *p, without leading zeros
 * or sign, into *out; *p moves past them.  0, or -1 when there are none. */
static int digits(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	while (s < end && *s >= '0' && *s <= '9' && s - *p < 18)
		v = v * 10 + (uint64_t)(*s++ - '0');
	if (s == *p || (s < end && *s >= '0' && *s <= '9') ||
	    (**p == '0' && s - *p > 1))
		return -1;
	*p = s;
	*out = v;
	return 0;
}

static int skip(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return -1;
	*p += n;
	return 0;
}

int hj_cardlog_height(const char *s, size_t n, uint64_t *out)
{
	const char *p = s, *end = s + n;
	uint64_t v;
	if (skip(&p, end, "{\"v\":") == 0 && digits(&p, end, &v) == 0 &&
	    skip(&p, end, ",\"chain\":\"") == 0) {
		while (p < end && *p != '"' && *p != '\\' &&
		       (unsigned char)*p >= 0x20)
			p++;
		if (skip(&p, end, "\",\"height\":") == 0 &&
		    digits(&p, end, out) == 0 && p < end && *p == ',')
			return 0;
	}
	json_t *j = json_loadb(s, n, 0, NULL);
	json_t *h = json_object_get(j, "height");
	int rc = json_is_integer(h) && json_integer_value(h) >= 0 ? 0 : -1;
	if (rc == 0)
		*out = (uint64_t)json_integer_value(h);
	json_decref(j);
	return rc;
}
