/*
 * The card log's reader (daemon/core/cardlog.h, hj_cardlog_read), the one
 * every consumer of a dealer's log reads through: the input's first byte
 * picks the family ('b': Bitcoin, anything else: EVM), the rest is one
 * line (any bytes).
 *
 * Checked: the reader reads or refuses (-EINVAL, with a message and a
 * place; nothing to free), never anything else for an input this short;
 * it says the same of the same bytes twice; what it reads is within the
 * bounds its header promises (version, height, events no more than the
 * line can hold, each event's type, flags, hands, cards, codes, ids of the
 * family's sizes, a settle's hands and totals); and the writer, given what
 * was read, writes a line that reads back to the same values (for what the
 * writer can write: not a type this reader does not know, not a side
 * stake of 0 written out, not totals of side bets that are not their
 * bets', not insurance on an action other than Peek).
 */
#include "fuzz.h"

#include <errno.h>

#include "cardlog.h"
#include "hand.h"
#include "hex.h"

static int zero_or_one(uint8_t b)
{
	return b == 0 || b == 1;
}

static void check_id(const hj_id *id, int has, size_t len)
{
	FUZZ_CHECK(has ? id->len == len : id->len == 0);
}

/* A hand as the reader promises it. */
static void check_hand(const hj_cardlog_hand *h, int player)
{
	FUZZ_CHECK(h->n <= HJ_MAX_CARDS);
	for (unsigned i = 0; i < h->n; i++)
		FUZZ_CHECK(hj_code_valid(h->cards[i]));
	FUZZ_CHECK(h->total == hj_hand_total(h->cards, h->n, NULL));
	if (player)
		FUZZ_CHECK(h->status >= HJ_ST_BLACKJACK &&
		           h->status <= HJ_ST_DEALER_BJ);
	else
		FUZZ_CHECK(h->status == 0 && h->bet == 0 && h->payout == 0);
}

static void check_event(const hj_cardlog_line *l, const hj_cardlog_ev *e)
{
	size_t party = l->fam == HJ_EVM ? 20 : 32;
	int t = e->type;

	FUZZ_CHECK(t == HJ_CARDLOG_EV_UNKNOWN ||
	           (t >= HJ_EV_DRAW && t <= HJ_EV_COMMIT));
	FUZZ_CHECK(zero_or_one(e->has_round) && zero_or_one(e->has_act) &&
	           zero_or_one(e->has_from) && zero_or_one(e->has_hand) &&
	           zero_or_one(e->has_insurance) && zero_or_one(e->has_pp) &&
	           zero_or_one(e->has_t3) && zero_or_one(e->dealer_bj) &&
	           zero_or_one(e->insurance));
	FUZZ_CHECK(e->has_act ? e->act >= HJ_BET && e->act <= HJ_COMMIT
	                      : e->act == HJ_ACT_NONE);
	FUZZ_CHECK(e->has_hand ? e->hand >= 0 && e->hand < HJ_MAX_HANDS
	                       : e->hand == -1 || e->hand == HJ_DEALER);
	FUZZ_CHECK(e->hand != HJ_DEALER || t == HJ_EV_DRAW);
	FUZZ_CHECK((t == HJ_EV_DRAW || t == HJ_EV_PEEK || t == HJ_EV_SKIP)
	               ? hj_code_valid(e->card)
	               : e->card == 0);
	check_id(&e->round, e->has_round, 32);
	check_id(&e->from, e->has_from, party);
	check_id(&e->player,
	         t == HJ_EV_ACTION || t == HJ_EV_SETTLE || t == HJ_EV_SIDE,
	         party);
	check_id(&e->tx,
	         t == HJ_EV_ACTION || t == HJ_EV_REJECT || t == HJ_EV_DEPOSIT ||
	             t == HJ_EV_IGNORED || t == HJ_EV_COMMIT,
	         32);
	FUZZ_CHECK(t == HJ_EV_COMMIT ? e->length >= 1 && e->start <= INT64_MAX
	                             : e->length == 0 && e->start == 0);
	FUZZ_CHECK(e->reason == 0 ||
	           (t == HJ_EV_REJECT && e->reason >= HJ_R_TRUNCATED &&
	            e->reason <= HJ_R_COUNT));
	if (t == HJ_EV_REJECT)
		FUZZ_CHECK(e->reason != 0);
	FUZZ_CHECK((t == HJ_EV_SETTLE) == (e->settle != NULL));
	if (t == HJ_EV_SETTLE) {
		const hj_cardlog_settle *s = e->settle;

		FUZZ_CHECK(s >= l->settles && s < l->settles + l->nevents);
		check_hand(&s->dealer, 0);
		FUZZ_CHECK(s->nhands <= HJ_MAX_HANDS);
		for (unsigned i = 0; i < s->nhands; i++)
			check_hand(&s->hands[i], 1);
		FUZZ_CHECK(zero_or_one(s->has_insurance));
	}
	if (t == HJ_EV_SIDE) {
		FUZZ_CHECK(!e->has_pp || (e->pp.status >= HJ_SB_LOST &&
		                          e->pp.status < HJ_SB_COUNT));
		FUZZ_CHECK(!e->has_t3 || (e->t3.status >= HJ_SB_LOST &&
		                          e->t3.status < HJ_SB_COUNT));
	}
	if (t == HJ_CARDLOG_EV_UNKNOWN)
		FUZZ_CHECK(!e->has_round && !e->has_act && !e->has_from &&
		           !e->has_hand && e->settle == NULL);
}

static void check_line(const hj_cardlog_line *l, hj_family fam, size_t len)
{
	FUZZ_CHECK(l->version >= 1 && l->version <= HJ_CARDLOG_VERSION);
	FUZZ_CHECK(l->fam == fam);
	FUZZ_CHECK(l->height <= INT64_MAX);
	FUZZ_CHECK(zero_or_one(l->has_seed));
	if (!l->has_seed)
		for (size_t i = 0; i < sizeof l->seed; i++)
			FUZZ_CHECK(l->seed[i] == 0);
	if (l->card.rank) {
		FUZZ_CHECK(l->card.rank <= 13 && l->card.suit <= 3);
		FUZZ_CHECK(l->card.pos >= 1 && l->card.pos <= 63);
		FUZZ_CHECK(hj_hex_digit(l->card.rank_digit) == l->card.rank);
		FUZZ_CHECK(hj_hex_digit(l->card.color_digit) % 4 ==
		           l->card.suit);
	} else {
		FUZZ_CHECK(l->card.suit == 0 && l->card.pos == 0 &&
		           l->card.rank_digit == 0 && l->card.color_digit == 0);
	}
	/* An event is an object with a "type" string: {"type":""} and a
	 * comma, at least. */
	FUZZ_CHECK(l->nevents <= len / 12 + 1);
	FUZZ_CHECK((l->nevents == 0) == (l->events == NULL));
	for (size_t i = 0; i < l->nevents; i++)
		check_event(l, &l->events[i]);
}

/* Two reads say the same, but for where settles are stored and, when
 * versions, the version. */
static void same(const hj_cardlog_line *a, const hj_cardlog_line *b,
                 int versions)
{
	FUZZ_CHECK(!versions || a->version == b->version);
	FUZZ_CHECK(a->fam == b->fam && a->height == b->height);
	FUZZ_CHECK(memcmp(a->hash, b->hash, 32) == 0);
	FUZZ_CHECK(memcmp(a->parent, b->parent, 32) == 0);
	FUZZ_CHECK(memcmp(&a->card, &b->card, sizeof a->card) == 0);
	FUZZ_CHECK(a->has_seed == b->has_seed &&
	           memcmp(a->seed, b->seed, sizeof a->seed) == 0);
	FUZZ_CHECK(a->nevents == b->nevents);
	for (size_t i = 0; i < a->nevents; i++) {
		hj_cardlog_ev x = a->events[i], y = b->events[i];

		FUZZ_CHECK((x.settle == NULL) == (y.settle == NULL));
		if (x.settle)
			FUZZ_CHECK(
			    memcmp(x.settle, y.settle, sizeof *x.settle) == 0);
		x.settle = y.settle = NULL;
		FUZZ_CHECK(memcmp(&x, &y, sizeof x) == 0);
	}
}

/* What the writer cannot write back as it was read (its header). */
static int writable(const hj_cardlog_line *l)
{
	for (size_t i = 0; i < l->nevents; i++) {
		const hj_cardlog_ev *e = &l->events[i];

		switch (e->type) {
		case HJ_CARDLOG_EV_UNKNOWN:
			return 0;
		case HJ_EV_ACTION:
			if (e->has_insurance != (e->act == HJ_PEEK) ||
			    (e->has_pp && (e->act != HJ_BET || !e->pp_stake)) ||
			    (e->has_t3 && (e->act != HJ_BET || !e->t3_stake)))
				return 0;
			break;
		case HJ_EV_SIDE:
			if ((e->has_pp && !e->pp.bet) ||
			    (e->has_t3 && !e->t3.bet) ||
			    e->pp.bet > HJ_AMOUNT_MAX - e->t3.bet ||
			    e->pp.payout > HJ_AMOUNT_MAX - e->t3.payout ||
			    e->bet != e->pp.bet + e->t3.bet ||
			    e->payout != e->pp.payout + e->t3.payout)
				return 0;
			break;
		}
	}
	return 1;
}

/* The writer's input for event e of a line read. */
static void event_of(const hj_cardlog_ev *e, hj_event *ev, hj_round *r,
                     hj_action *tx, hj_settlement *s, hj_side_settlement *side,
                     hj_commit *c)
{
	memset(ev, 0, sizeof *ev);
	memset(r, 0, sizeof *r);
	memset(tx, 0, sizeof *tx);
	memset(s, 0, sizeof *s);
	memset(side, 0, sizeof *side);
	memset(c, 0, sizeof *c);
	ev->type = (hj_ev)e->type;
	ev->act = e->act;
	ev->hand = e->hand;
	ev->card = e->card;
	ev->dealer_bj = e->dealer_bj;
	ev->reason = (hj_reason)e->reason;
	r->id = e->round;
	r->player = e->player;
	ev->round = e->has_round ? r : NULL;
	tx->txid = e->tx;
	tx->tx_index = e->tx_index;
	tx->sender = e->from;
	tx->insurance = e->insurance;
	tx->value = e->value;
	ev->tx = e->tx.len ? tx : NULL;
	switch (e->type) {
	case HJ_EV_ACTION:
		ev->amount = e->stake;
		r->side_pp = e->pp_stake;
		r->side_t3 = e->t3_stake;
		break;
	case HJ_EV_REJECT:
		ev->amount = e->refund;
		break;
	case HJ_EV_COMMIT:
		c->start = e->start;
		c->length = e->length;
		memcpy(c->commitment, e->commitment, sizeof c->commitment);
		c->txid = e->tx;
		c->tx_index = e->tx_index;
		ev->commit = c;
		break;
	case HJ_EV_SIDE:
		r->side_pp = e->pp.bet;
		r->side_t3 = e->t3.bet;
		side->pp = e->pp.status;
		side->t3 = e->t3.status;
		side->pp_ret = e->pp.payout;
		side->t3_ret = e->t3.payout;
		ev->side = side;
		break;
	case HJ_EV_SETTLE: {
		const hj_cardlog_settle *st = e->settle;

		r->dealer_n = st->dealer.n;
		memcpy(r->dealer, st->dealer.cards, st->dealer.n);
		r->nhands = st->nhands;
		for (unsigned i = 0; i < st->nhands; i++) {
			r->hands[i].n = st->hands[i].n;
			memcpy(r->hands[i].cards, st->hands[i].cards,
			       st->hands[i].n);
			r->hands[i].stake = st->hands[i].bet;
			s->status[i] = st->hands[i].status;
			s->ret[i] = st->hands[i].payout;
		}
		r->insured = st->has_insurance;
		r->insurance = st->ins_bet;
		s->ins_ret = st->ins_payout;
		s->total_stake = e->bet;
		s->total_ret = e->payout;
		ev->settle = s;
		break;
	}
	}
}

/* What was read, written by the writer and read again, is what was
 * read. */
static void write_back(const hj_cardlog_line *l)
{
	static hj_cardlog cl;
	static int init;
	hj_cardlog_line again;
	hj_cardlog_err err;
	const char *line;
	size_t len;

	if (!init) {
		hj_cardlog_init(&cl);
		init = 1;
	}
	FUZZ_CHECK(hj_cardlog_begin(
	               &cl, hj_family_name(l->fam), l->fam, l->height, l->hash,
	               l->parent, l->has_seed ? l->seed : NULL, &l->card) == 0);
	for (size_t i = 0; i < l->nevents; i++) {
		hj_event ev;
		hj_round r;
		hj_action tx;
		hj_settlement s;
		hj_side_settlement side;
		hj_commit c;

		event_of(&l->events[i], &ev, &r, &tx, &s, &side, &c);
		FUZZ_CHECK(hj_cardlog_event(&cl, &ev) == 0);
	}
	FUZZ_CHECK(hj_cardlog_end(&cl, &line, &len) == 0);
	FUZZ_CHECK(len > 0 && line[len - 1] == '\n');
	if (hj_cardlog_read(line, len - 1, l->fam, &again, &err) != 0) {
		fprintf(stderr, "written back, refused: %s\n%.*s", err.msg,
		        (int)len, line);
		abort();
	}
	FUZZ_CHECK(again.version == HJ_CARDLOG_VERSION);
	same(l, &again, 0);
	hj_cardlog_line_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hj_family fam = size && data[0] == 'b' ? HJ_BITCOIN : HJ_EVM;
	const char *line = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	hj_cardlog_line a, b;
	hj_cardlog_err ea, eb;
	int ra, rb;

	ra = hj_cardlog_read(line, len, fam, &a, &ea);
	rb = hj_cardlog_read(line, len, fam, &b, &eb);
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(ra == 0 || ra == -EINVAL);
	if (ra != 0) {
		FUZZ_CHECK(strcmp(ea.msg, eb.msg) == 0 && ea.msg[0] != '\0');
		FUZZ_CHECK(ea.at == eb.at && ea.index == eb.index);
		FUZZ_CHECK(ea.at >= HJ_CARDLOG_AT_LINE &&
		           ea.at <= HJ_CARDLOG_AT_SEED);
		FUZZ_CHECK(ea.json == 0 || ea.at == HJ_CARDLOG_AT_LINE);
		FUZZ_CHECK(ea.key == NULL || ea.at == HJ_CARDLOG_AT_EVENT);
		FUZZ_CHECK(!ea.has_height || ea.height <= INT64_MAX);
		FUZZ_CHECK(a.events == NULL && a.settles == NULL &&
		           a.nevents == 0);
		return 0;
	}
	check_line(&a, fam, len);
	same(&a, &b, 1);
	if (writable(&a))
		write_back(&a);
	hj_cardlog_line_free(&a);
	hj_cardlog_line_free(&b);
	return 0;
}
