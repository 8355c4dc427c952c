/*
 * The block-to-card log line (see cardlog.h, docs/LOG.md).
 *
 * Every string this file writes is a fixed name, hex digits or decimal
 * digits, and the chain name is checked at begin, so no JSON escaping is
 * ever needed.  Key order below is the format: change it only with a new
 * HJ_CARDLOG_VERSION.
 */
#include "cardlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "hex.h"

void hj_cardlog_init(hj_cardlog *cl)
{
	memset(cl, 0, sizeof *cl);
	hj_buf_init(&cl->line, HJ_CARDLOG_MAX);
}

void hj_cardlog_release(hj_cardlog *cl)
{
	if (cl == NULL)
		return;
	hj_buf_free(&cl->line);
	cl->open = 0;
}

/* The line's buffer fails once (its cap or memory); that failure is the
 * line's. */
static void put(hj_cardlog *cl, const char *s, size_t n)
{
	if (cl->err)
		return;
	cl->err = hj_buf_put(&cl->line, s, n);
}

static void puts_(hj_cardlog *cl, const char *s)
{
	put(cl, s, strlen(s));
}

/* A name between quotes: every name written is a fixed identifier. */
static void put_str(hj_cardlog *cl, const char *s)
{
	put(cl, "\"", 1);
	puts_(cl, s);
	put(cl, "\"", 1);
}

static void put_u64(hj_cardlog *cl, uint64_t v)
{
	char tmp[20];
	size_t n = sizeof tmp;

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(cl, tmp + n, sizeof tmp - n);
}

static void put_amount(hj_cardlog *cl, hj_amount v)
{
	char tmp[HJ_AMOUNT_STRLEN];

	put_str(cl, hj_amount_format(v, tmp));
}

static void put_hex(hj_cardlog *cl, const uint8_t *b, size_t n)
{
	char tmp[2 * 32 + 3];

	/* Ids are at most 32 bytes (hj_id); hashes exactly 32. */
	if (n > 32) {
		cl->err = cl->err ? cl->err : -EINVAL;
		return;
	}
	hj_hex_encode(b, n, cl->with_0x, tmp);
	put_str(cl, tmp);
}

/* A seed or commitment: 64 lower-case hex digits, never "0x". */
static void put_seed(hj_cardlog *cl, const uint8_t s[HJ_SEED_LEN])
{
	char hex[2 * HJ_SEED_LEN + 1];

	hj_hex_encode(s, HJ_SEED_LEN, 0, hex);
	put_str(cl, hex);
}

static void put_id(hj_cardlog *cl, const hj_id *id)
{
	put_hex(cl, id->b, id->len);
}

static void put_card_code(hj_cardlog *cl, uint8_t code)
{
	char tmp[4];

	put_str(cl, hj_code_str(code, tmp));
}

static void put_bool(hj_cardlog *cl, int b)
{
	puts_(cl, b ? "true" : "false");
}

static int bad(hj_cardlog *cl)
{
	if (!cl->err)
		cl->err = -EINVAL;
	return cl->err;
}

static int chain_name_ok(const char *s)
{
	if (s == NULL || *s == '\0' || strlen(s) > 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-'))
			return 0;
	return 1;
}

static int hex_digit_ok(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Only what hj_card_from_hash produces: nothing in a line needs escaping. */
static int card_ok(const hj_card *c)
{
	if (c->rank == 0)
		return 1;
	return c->rank <= 13 && c->suit <= 3 && c->pos >= 1 && c->pos <= 63 &&
	       hex_digit_ok(c->rank_digit) && hex_digit_ok(c->color_digit);
}

int hj_cardlog_begin(hj_cardlog *cl, const char *chain, hj_family fam,
                     uint64_t height, const uint8_t hash[32],
                     const uint8_t parent[32], const uint8_t *seed,
                     const hj_card *card)
{
	hj_buf_reset(&cl->line);
	cl->err = 0;
	cl->nevents = 0;
	cl->open = 0;
	cl->with_0x = fam == HJ_EVM;
	if (!chain_name_ok(chain) || !card_ok(card))
		return bad(cl);

	puts_(cl, "{\"v\":");
	put_u64(cl, HJ_CARDLOG_VERSION);
	puts_(cl, ",\"chain\":");
	put_str(cl, chain);
	puts_(cl, ",\"height\":");
	put_u64(cl, height);
	puts_(cl, ",\"hash\":");
	put_hex(cl, hash, 32);
	puts_(cl, ",\"parent\":");
	put_hex(cl, parent, 32);
	if (seed) {
		puts_(cl, ",\"seed\":");
		put_seed(cl, seed);
	}
	if (card->rank == 0) {
		puts_(cl, ",\"void\":true");
	} else {
		char d[2] = {0, 0};

		puts_(cl, ",\"card\":{\"rank\":");
		put_str(cl, hj_rank_name(card->rank));
		puts_(cl, ",\"suit\":");
		put_str(cl, hj_suit_name(card->suit));
		puts_(cl, ",\"value\":");
		put_u64(cl, hj_rank_value(card->rank));
		puts_(cl, ",\"code\":");
		put_card_code(cl, hj_code(card->rank, card->suit));
		puts_(cl, ",\"pos\":");
		put_u64(cl, card->pos);
		puts_(cl, ",\"rankDigit\":");
		d[0] = card->rank_digit;
		put_str(cl, d);
		puts_(cl, ",\"colorDigit\":");
		d[0] = card->color_digit;
		put_str(cl, d);
		puts_(cl, "}");
	}
	puts_(cl, ",\"events\":[");
	cl->open = 1;
	return cl->err;
}

/*
 * "tx", "txIndex" and, when with_from and the sender is known, "from" (an
 * accepted action names the round's player instead).
 */
static void put_tx(hj_cardlog *cl, const hj_action *tx, int with_from)
{
	puts_(cl, ",\"tx\":");
	put_id(cl, &tx->txid);
	puts_(cl, ",\"txIndex\":");
	put_u64(cl, tx->tx_index);
	if (with_from && tx->sender.len) {
		puts_(cl, ",\"from\":");
		put_id(cl, &tx->sender);
	}
}

static void put_cards(hj_cardlog *cl, const uint8_t *cards, unsigned n)
{
	puts_(cl, "\"cards\":[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			puts_(cl, ",");
		put_card_code(cl, cards[i]);
	}
	puts_(cl, "],\"total\":");
	put_u64(cl, hj_hand_total(cards, n, NULL));
}

static int put_settle(hj_cardlog *cl, const hj_event *ev)
{
	const hj_round *r = ev->round;
	const hj_settlement *s = ev->settle;

	if (s == NULL || r->nhands > HJ_MAX_HANDS || r->dealer_n > HJ_MAX_CARDS)
		return bad(cl);
	puts_(cl, "{\"type\":\"settle\",\"round\":");
	put_id(cl, &r->id);
	puts_(cl, ",\"player\":");
	put_id(cl, &r->player);
	puts_(cl, ",\"dealerHand\":{");
	put_cards(cl, r->dealer, r->dealer_n);
	puts_(cl, "},\"playerHands\":[");
	for (unsigned i = 0; i < r->nhands; i++) {
		const hj_hand *h = &r->hands[i];

		if (h->n > HJ_MAX_CARDS)
			return bad(cl);
		puts_(cl, i ? ",{\"handIndex\":" : "{\"handIndex\":");
		put_u64(cl, i);
		puts_(cl, ",");
		put_cards(cl, h->cards, h->n);
		puts_(cl, ",\"betAmount\":");
		put_amount(cl, h->stake);
		puts_(cl, ",\"status\":");
		put_str(cl, hj_status_name(s->status[i]));
		puts_(cl, ",\"payout\":");
		put_amount(cl, s->ret[i]);
		puts_(cl, "}");
	}
	puts_(cl, "]");
	if (r->insured) {
		puts_(cl, ",\"insurance\":{\"betAmount\":");
		put_amount(cl, r->insurance);
		puts_(cl, ",\"payout\":");
		put_amount(cl, s->ins_ret);
		puts_(cl, "}");
	}
	puts_(cl, ",\"betAmount\":");
	put_amount(cl, s->total_stake);
	puts_(cl, ",\"payout\":");
	put_amount(cl, s->total_ret);
	puts_(cl, "}");
	return cl->err;
}

/* One side bet of a "sidebets" event: perfectPairs or poker (docs/LOG.md). */
static void put_side(hj_cardlog *cl, const char *name, hj_amount stake,
                     uint8_t result, hj_amount ret)
{
	puts_(cl, ",\"");
	puts_(cl, name);
	puts_(cl, "\":{\"betAmount\":");
	put_amount(cl, stake);
	puts_(cl, ",\"status\":");
	put_str(cl, hj_side_name(result));
	puts_(cl, ",\"payout\":");
	put_amount(cl, ret);
	puts_(cl, "}");
}

static int put_sidebets(hj_cardlog *cl, const hj_event *ev)
{
	const hj_round *r = ev->round;
	const hj_side_settlement *s = ev->side;

	if (s == NULL)
		return bad(cl);
	puts_(cl, "{\"type\":\"sidebets\",\"round\":");
	put_id(cl, &r->id);
	puts_(cl, ",\"player\":");
	put_id(cl, &r->player);
	if (r->side_pp)
		put_side(cl, "perfectPairs", r->side_pp, s->pp, s->pp_ret);
	if (r->side_t3)
		put_side(cl, "poker", r->side_t3, s->t3, s->t3_ret);
	puts_(cl, ",\"betAmount\":");
	put_amount(cl, r->side_pp + r->side_t3);
	puts_(cl, ",\"payout\":");
	put_amount(cl, s->pp_ret + s->t3_ret);
	puts_(cl, "}");
	return cl->err;
}

int hj_cardlog_event(hj_cardlog *cl, const hj_event *ev)
{
	const hj_round *r = ev->round;
	const hj_action *tx = ev->tx;

	if (cl->err)
		return cl->err;
	if (!cl->open)
		return bad(cl);
	/* What each type needs; the engine always provides it. */
	switch (ev->type) {
	case HJ_EV_DRAW:
	case HJ_EV_PEEK:
	case HJ_EV_SKIP:
		if (r == NULL || !hj_code_valid(ev->card))
			return bad(cl);
		break;
	case HJ_EV_TIMEOUT:
	case HJ_EV_SETTLE:
	case HJ_EV_SIDE:
		if (r == NULL)
			return bad(cl);
		break;
	case HJ_EV_ACTION:
		if (r == NULL || tx == NULL)
			return bad(cl);
		break;
	case HJ_EV_REJECT:
	case HJ_EV_DEPOSIT:
	case HJ_EV_IGNORED:
		if (tx == NULL)
			return bad(cl);
		break;
	case HJ_EV_COMMIT:
		if (tx == NULL || ev->commit == NULL)
			return bad(cl);
		break;
	default:
		return bad(cl);
	}
	if (cl->nevents++)
		puts_(cl, ",");

	switch (ev->type) {
	case HJ_EV_DRAW:
		puts_(cl, "{\"type\":\"draw\",\"round\":");
		put_id(cl, &r->id);
		if (ev->hand == HJ_DEALER) {
			puts_(cl, ",\"handOwner\":\"Dealer\"");
		} else {
			if (ev->hand < 0)
				return bad(cl);
			puts_(cl, ",\"handOwner\":\"Player\",\"handIndex\":");
			put_u64(cl, (uint64_t)ev->hand);
		}
		puts_(cl, ",\"card\":");
		put_card_code(cl, ev->card);
		puts_(cl, "}");
		break;
	case HJ_EV_PEEK:
		puts_(cl, "{\"type\":\"peek\",\"round\":");
		put_id(cl, &r->id);
		puts_(cl, ",\"card\":");
		put_card_code(cl, ev->card);
		puts_(cl, ",\"dealerBlackjack\":");
		put_bool(cl, ev->dealer_bj);
		puts_(cl, "}");
		break;
	case HJ_EV_SKIP:
		puts_(cl, "{\"type\":\"skip\",\"round\":");
		put_id(cl, &r->id);
		puts_(cl, ",\"card\":");
		put_card_code(cl, ev->card);
		puts_(cl, "}");
		break;
	case HJ_EV_SIDE:
		put_sidebets(cl, ev);
		break;
	case HJ_EV_ACTION:
		puts_(cl, "{\"type\":\"action\",\"action\":");
		put_str(cl, hj_act_name(ev->act));
		puts_(cl, ",\"round\":");
		put_id(cl, &r->id);
		puts_(cl, ",\"player\":");
		put_id(cl, &r->player);
		put_tx(cl, tx, 0);
		if (ev->hand >= 0) {
			puts_(cl, ",\"handIndex\":");
			put_u64(cl, (uint64_t)ev->hand);
		}
		if (ev->act == HJ_PEEK) {
			puts_(cl, ",\"insurance\":");
			put_bool(cl, tx->insurance);
		}
		puts_(cl, ",\"stake\":");
		put_amount(cl, ev->amount);
		if (ev->act == HJ_BET && r->side_pp) {
			puts_(cl, ",\"perfectPairs\":");
			put_amount(cl, r->side_pp);
		}
		if (ev->act == HJ_BET && r->side_t3) {
			puts_(cl, ",\"poker\":");
			put_amount(cl, r->side_t3);
		}
		puts_(cl, "}");
		break;
	case HJ_EV_REJECT:
		puts_(cl, "{\"type\":\"reject\"");
		put_tx(cl, tx, 1);
		if (ev->act != HJ_ACT_NONE) {
			puts_(cl, ",\"action\":");
			put_str(cl, hj_act_name(ev->act));
		}
		if (r != NULL) {
			puts_(cl, ",\"round\":");
			put_id(cl, &r->id);
		}
		puts_(cl, ",\"reason\":");
		put_str(cl, hj_reason_name(ev->reason));
		puts_(cl, ",\"refund\":");
		put_amount(cl, ev->amount);
		puts_(cl, "}");
		break;
	case HJ_EV_DEPOSIT:
		puts_(cl, "{\"type\":\"deposit\"");
		put_tx(cl, tx, 1);
		puts_(cl, ",\"value\":");
		put_amount(cl, tx->value);
		puts_(cl, "}");
		break;
	case HJ_EV_IGNORED:
		puts_(cl, "{\"type\":\"ignored\"");
		put_tx(cl, tx, 1);
		puts_(cl, ",\"reason\":\"tx_failed\"}");
		break;
	case HJ_EV_TIMEOUT:
		puts_(cl, "{\"type\":\"timeout\",\"round\":");
		put_id(cl, &r->id);
		puts_(cl, ",\"action\":");
		put_str(cl, hj_act_name(ev->act));
		if (ev->hand >= 0) {
			puts_(cl, ",\"handIndex\":");
			put_u64(cl, (uint64_t)ev->hand);
		}
		puts_(cl, "}");
		break;
	case HJ_EV_SETTLE:
		put_settle(cl, ev);
		break;
	case HJ_EV_COMMIT:
		puts_(cl, "{\"type\":\"commit\"");
		put_tx(cl, tx, 1);
		puts_(cl, ",\"start\":");
		put_u64(cl, ev->commit->start);
		puts_(cl, ",\"length\":");
		put_u64(cl, ev->commit->length);
		puts_(cl, ",\"commitment\":");
		put_seed(cl, ev->commit->commitment);
		puts_(cl, "}");
		break;
	}
	return cl->err;
}

void hj_cardlog_sink(void *ctx, const hj_event *ev)
{
	hj_cardlog *cl = ctx;

	hj_cardlog_event(cl, ev);
}

int hj_cardlog_end(hj_cardlog *cl, const char **line, size_t *len)
{
	if (!cl->open)
		return bad(cl);
	cl->open = 0;
	puts_(cl, "]}\n");
	if (cl->err)
		return cl->err;
	*line = cl->line.p;
	*len = cl->line.len;
	return 0;
}
