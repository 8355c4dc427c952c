/* The card log tests' shared fixtures and checks (cardlog_util.h). */
#include "cardlog_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hand.h"

const char *const K_LINE_CARD[] = {"v",      "chain", "height", "hash",
                                   "parent", "card",  "events", NULL};
const char *const K_LINE_VOID[] = {"v",      "chain", "height", "hash",
                                   "parent", "void",  "events", NULL};

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* s: lower-case hex, with or without "0x", exactly 2n digits. */
void unhex(const char *s, uint8_t *out, size_t n)
{
	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
}

/*
 * Ends the line and checks what every line is (LOG.md, Stability): one
 * "\n", at the end; printable ASCII without a space before it.  Returns a
 * NUL-terminated copy for the caller to free.
 */
char *finish(hj_cardlog *cl)
{
	const char *line = NULL;
	size_t len = 0;
	char *s;

	assert_int_equal(hj_cardlog_end(cl, &line, &len), 0);
	assert_non_null(line);
	assert_true(len >= 2);
	assert_int_equal(line[len - 1], '\n');
	for (size_t i = 0; i + 1 < len; i++)
		if (!(line[i] > 0x20 && line[i] < 0x7f))
			fail_msg("byte 0x%02x at %zu", (unsigned char)line[i],
			         i);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, line, len);
	s[len] = '\0';
	return s;
}

/* ---- read back by the log's reader ---- */

void read_back(const char *line, hj_family fam, hj_cardlog_line *out)
{
	size_t len = strlen(line);
	hj_cardlog_err e;

	if (len && line[len - 1] == '\n')
		len--;
	if (hj_cardlog_read(line, len, fam, out, &e) != 0)
		fail_msg("refused: %s: %s", e.msg, line);
}

int read_refused(const char *line, hj_family fam, hj_cardlog_err *e)
{
	hj_cardlog_line l;
	size_t len = strlen(line);
	int rc;

	if (len && line[len - 1] == '\n')
		len--;
	memset(&l, 0xa5, sizeof l);
	rc = hj_cardlog_read(line, len, fam, &l, e);
	if (rc == 0) {
		hj_cardlog_line_free(&l);
		fail_msg("read, not refused: %s", line);
	}
	/* Nothing to free after a refusal: *out is zeroed. */
	assert_null(l.events);
	assert_null(l.settles);
	assert_int_equal(l.nevents, 0);
	return rc;
}

static void assert_amount(hj_amount got, hj_amount want)
{
	if (got != want)
		fail_msg(
		    "amount %llu:%llu, not %llu:%llu",
		    (unsigned long long)(got >> 64), (unsigned long long)got,
		    (unsigned long long)(want >> 64), (unsigned long long)want);
}

static void assert_id(const hj_id *got, const hj_id *want)
{
	assert_int_equal(got->len, want->len);
	assert_memory_equal(got->b, want->b, want->len);
}

void assert_header(const hj_cardlog_line *l, hj_family fam, uint64_t height,
                   const uint8_t hash[32], const uint8_t parent[32],
                   const hj_card *card)
{
	assert_int_equal(l->version, HJ_CARDLOG_VERSION);
	assert_int_equal(l->fam, fam);
	assert_true(l->height == height);
	assert_memory_equal(l->hash, hash, 32);
	assert_memory_equal(l->parent, parent, 32);
	assert_int_equal(l->card.rank, card->rank);
	if (card->rank == 0)
		return;
	assert_int_equal(l->card.suit, card->suit);
	assert_int_equal(l->card.pos, card->pos);
	assert_int_equal(l->card.rank_digit, card->rank_digit);
	assert_int_equal(l->card.color_digit, card->color_digit);
}

/* A hand read back: cards, and their best total. */
static void assert_hand(const hj_cardlog_hand *h, const uint8_t *cards,
                        unsigned n)
{
	assert_int_equal(h->n, n);
	assert_memory_equal(h->cards, cards, n);
	assert_int_equal(h->total, hj_hand_total(cards, n, NULL));
}

static void assert_settle(const hj_cardlog_ev *e, const hj_event *ev)
{
	const hj_round *r = ev->round;
	const hj_settlement *s = ev->settle;
	const hj_cardlog_settle *st = e->settle;

	assert_non_null(st);
	assert_hand(&st->dealer, r->dealer, r->dealer_n);
	assert_int_equal(st->nhands, r->nhands);
	for (unsigned i = 0; i < r->nhands; i++) {
		assert_hand(&st->hands[i], r->hands[i].cards, r->hands[i].n);
		assert_amount(st->hands[i].bet, r->hands[i].stake);
		assert_int_equal(st->hands[i].status, s->status[i]);
		assert_amount(st->hands[i].payout, s->ret[i]);
	}
	assert_int_equal(st->has_insurance, !!r->insured);
	if (r->insured) {
		assert_amount(st->ins_bet, r->insurance);
		assert_amount(st->ins_payout, s->ins_ret);
	}
	assert_amount(e->bet, s->total_stake);
	assert_amount(e->payout, s->total_ret);
}

static void assert_side(const hj_cardlog_side *got, uint8_t has,
                        hj_amount stake, uint8_t status, hj_amount ret)
{
	assert_int_equal(has, stake != 0);
	if (!has)
		return;
	assert_amount(got->bet, stake);
	assert_int_equal(got->status, status);
	assert_amount(got->payout, ret);
}

void assert_event(const hj_cardlog_ev *e, const hj_event *ev, hj_family fam)
{
	const hj_round *r = ev->round;
	const hj_action *tx = ev->tx;
	int tx_types = ev->type == HJ_EV_REJECT || ev->type == HJ_EV_DEPOSIT ||
	               ev->type == HJ_EV_IGNORED || ev->type == HJ_EV_COMMIT;

	(void)fam;
	assert_int_equal(e->type, ev->type);
	/* "round": every event of a round; a rejection's when it names one. */
	assert_int_equal(e->has_round, r != NULL);
	if (r != NULL)
		assert_id(&e->round, &r->id);
	if (ev->type == HJ_EV_ACTION || ev->type == HJ_EV_SETTLE ||
	    ev->type == HJ_EV_SIDE)
		assert_id(&e->player, &r->player);
	if (ev->type == HJ_EV_ACTION || tx_types) {
		assert_id(&e->tx, &tx->txid);
		assert_int_equal(e->tx_index, tx->tx_index);
	}
	/* "from": the sender of a transaction that is not an action, when
	 * the family knows it. */
	assert_int_equal(e->has_from, tx_types && tx->sender.len != 0);
	if (e->has_from)
		assert_id(&e->from, &tx->sender);
	switch (ev->type) {
	case HJ_EV_DRAW:
		assert_int_equal(e->hand, ev->hand);
		assert_int_equal(e->has_hand, ev->hand != HJ_DEALER);
		/* fall through */
	case HJ_EV_SKIP:
		assert_int_equal(e->card, ev->card);
		break;
	case HJ_EV_PEEK:
		assert_int_equal(e->card, ev->card);
		assert_int_equal(e->dealer_bj, !!ev->dealer_bj);
		break;
	case HJ_EV_ACTION:
		assert_int_equal(e->has_act, 1);
		assert_int_equal(e->act, ev->act);
		assert_int_equal(e->has_hand, ev->hand >= 0);
		assert_int_equal(e->hand, ev->hand >= 0 ? ev->hand : -1);
		assert_int_equal(e->has_insurance, ev->act == HJ_PEEK);
		assert_int_equal(e->insurance,
		                 ev->act == HJ_PEEK && tx->insurance);
		assert_amount(e->stake, ev->amount);
		assert_int_equal(e->has_pp, ev->act == HJ_BET && r->side_pp);
		assert_int_equal(e->has_t3, ev->act == HJ_BET && r->side_t3);
		assert_amount(e->pp_stake, e->has_pp ? r->side_pp : 0);
		assert_amount(e->t3_stake, e->has_t3 ? r->side_t3 : 0);
		break;
	case HJ_EV_REJECT:
		assert_int_equal(e->has_act, ev->act != HJ_ACT_NONE);
		assert_int_equal(e->act, ev->act);
		assert_int_equal(e->reason, ev->reason);
		assert_amount(e->refund, ev->amount);
		break;
	case HJ_EV_DEPOSIT:
		assert_amount(e->value, tx->value);
		break;
	case HJ_EV_IGNORED:
		break;
	case HJ_EV_TIMEOUT:
		assert_int_equal(e->has_act, 1);
		assert_int_equal(e->act, ev->act);
		assert_int_equal(e->has_hand, ev->hand >= 0);
		assert_int_equal(e->hand, ev->hand >= 0 ? ev->hand : -1);
		break;
	case HJ_EV_SETTLE:
		assert_settle(e, ev);
		break;
	case HJ_EV_SIDE:
		assert_side(&e->pp, e->has_pp, r->side_pp, ev->side->pp,
		            ev->side->pp_ret);
		assert_side(&e->t3, e->has_t3, r->side_t3, ev->side->t3,
		            ev->side->t3_ret);
		assert_amount(e->bet, r->side_pp + r->side_t3);
		assert_amount(e->payout, ev->side->pp_ret + ev->side->t3_ret);
		break;
	case HJ_EV_COMMIT:
		assert_int_equal(e->start, ev->commit->start);
		assert_int_equal(e->length, ev->commit->length);
		assert_memory_equal(e->commitment, ev->commit->commitment,
		                    sizeof e->commitment);
		break;
	}
	if (ev->type != HJ_EV_SETTLE)
		assert_null(e->settle);
}

void rec_sink(void *ctx, const hj_event *ev)
{
	rec *r = ctx;
	rec_event *c;

	hj_cardlog_sink(r->cl, ev);
	assert_true(r->n < REC_MAX);
	c = &r->e[r->n++];
	memset(c, 0, sizeof *c);
	c->ev = *ev;
	if (ev->round) {
		c->round = *ev->round;
		c->ev.round = &c->round;
	}
	if (ev->tx) {
		c->tx = *ev->tx;
		c->ev.tx = &c->tx;
	}
	if (ev->settle) {
		c->settle = *ev->settle;
		c->ev.settle = &c->settle;
	}
	if (ev->side) {
		c->side = *ev->side;
		c->ev.side = &c->side;
	}
}

void assert_events(const hj_cardlog_line *l, const rec *r, hj_family fam)
{
	assert_int_equal(l->nevents, r->n);
	for (size_t i = 0; i < r->n; i++)
		assert_event(&l->events[i], &r->e[i].ev, fam);
}

/* ---- byte by byte ---- */

size_t value_len(const char *v)
{
	size_t i = 0;
	int depth = 0;

	if (v[0] != '{' && v[0] != '[' && v[0] != '"') {
		while (v[i] != '\0' && strchr(",}]", v[i]) == NULL)
			i++;
		return i;
	}
	for (;; i++) {
		assert_true(v[i] != '\0');
		if (v[i] == '"') {
			for (i++; v[i] != '"'; i++) {
				assert_true(v[i] != '\0');
				if (v[i] == '\\')
					i++;
			}
			if (depth == 0)
				return i + 1;
		} else if (v[i] == '{' || v[i] == '[') {
			depth++;
		} else if ((v[i] == '}' || v[i] == ']') && --depth == 0) {
			return i + 1;
		}
	}
}

/* The members of the object at obj, one at a time: *p at a member's
 * '"', or at the closing '}'.  The key into key[0..cap). */
static const char *next_key(const char *p, char *key, size_t cap)
{
	const char *end;

	assert_true(*p == '"');
	end = strchr(p + 1, '"');
	assert_non_null(end);
	assert_true((size_t)(end - p - 1) < cap);
	memcpy(key, p + 1, (size_t)(end - p - 1));
	key[end - p - 1] = '\0';
	assert_true(end[1] == ':');
	return end + 2;
}

const char *member(const char *obj, const char *key)
{
	const char *p = obj + 1;
	char k[64];

	assert_true(obj[0] == '{');
	while (*p != '}') {
		p = next_key(p, k, sizeof k);
		if (strcmp(k, key) == 0)
			return p;
		p += value_len(p);
		if (*p == ',')
			p++;
	}
	return NULL;
}

const char *element(const char *arr, size_t i)
{
	const char *p = arr + 1;

	assert_true(arr[0] == '[');
	for (size_t k = 0; *p != ']'; k++) {
		if (k == i)
			return p;
		p += value_len(p);
		if (*p == ',')
			p++;
	}
	return NULL;
}

size_t elements(const char *arr)
{
	size_t n = 0;

	while (element(arr, n) != NULL)
		n++;
	return n;
}

void assert_keys(const char *obj, const char *const *keys)
{
	const char *p;
	char k[64];
	size_t i = 0;

	assert_non_null(obj);
	assert_true(obj[0] == '{');
	for (p = obj + 1; *p != '}'; i++) {
		p = next_key(p, k, sizeof k);
		if (keys[i] == NULL)
			fail_msg("unexpected key \"%s\"", k);
		assert_string_equal(k, keys[i]);
		p += value_len(p);
		if (*p == ',')
			p++;
	}
	if (keys[i] != NULL)
		fail_msg("key \"%s\" missing", keys[i]);
}
