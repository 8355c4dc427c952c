/* Engine tests as text (engine_text.h). */
#include "engine_text.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* ------------------------------------------------------------------ */
/* Rendering                                                          */

static const char *const rank_s[] = {"?", "A", "2", "3",  "4", "5", "6",
                                     "7", "8", "9", "10", "J", "Q", "K"};
static const char suit_s[] = "CDHS";

static const char *const act_s[] = {"none",   "Bet",   "Hit",       "Stand",
                                    "Double", "Split", "Surrender", "Peek"};

static const char *reason_s(hj_reason r)
{
	switch (r) {
	case HJ_R_TRUNCATED:
		return "truncated";
	case HJ_R_BAD_VERSION:
		return "bad_version";
	case HJ_R_UNKNOWN_ACTION:
		return "unknown_action";
	case HJ_R_BAD_LENGTH:
		return "bad_length";
	case HJ_R_TOO_LONG:
		return "too_long";
	case HJ_R_BAD_FIELD:
		return "bad_field";
	case HJ_R_SIDE_BETS:
		return "side_bets_not_offered";
	case HJ_R_NO_ROUND:
		return "no_round";
	case HJ_R_SECOND_ROUND:
		return "second_round";
	case HJ_R_BET_LIMITS:
		return "bet_out_of_limits";
	case HJ_R_PREMATURE:
		return "premature";
	case HJ_R_NOT_ALLOWED:
		return "not_allowed";
	case HJ_R_WRONG_VALUE:
		return "wrong_value";
	case HJ_R_BAD_SIGNATURE:
		return "bad_signature";
	case HJ_R_EXPOSURE:
		return "over_exposure";
	default:
		return "?";
	}
}

static const char *status_s(int st)
{
	switch (st) {
	case HJ_ST_BLACKJACK:
		return "Blackjack";
	case HJ_ST_WIN:
		return "Win";
	case HJ_ST_PUSH:
		return "Push";
	case HJ_ST_LOSE:
		return "Lose";
	case HJ_ST_BUST:
		return "Bust";
	case HJ_ST_SURRENDER:
		return "Surrender";
	case HJ_ST_DEALER_BJ:
		return "DealerBlackjack";
	default:
		return "?";
	}
}

static const char *act_name(hj_act a)
{
	return (unsigned)a < sizeof act_s / sizeof act_s[0] ? act_s[a] : "?";
}

struct out {
	char b[8192];
	size_t n;
};

static void put(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int k = vsnprintf(o->b + o->n, sizeof o->b - o->n, fmt, ap);
	va_end(ap);
	assert_true(k >= 0 && (size_t)k < sizeof o->b - o->n);
	o->n += (size_t)k;
}

static void put_amount(struct out *o, hj_amount v)
{
	char t[48];
	int i = 0;

	do {
		t[i++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	while (i)
		put(o, "%c", t[--i]);
}

static void put_card(struct out *o, uint8_t code)
{
	unsigned r = hj_code_rank(code);
	put(o, "%s%c", r <= 13 ? rank_s[r] : "?", suit_s[hj_code_suit(code)]);
}

static void put_event(struct out *o, const ev_rec *e)
{
	put(o, "%u ", e->player);
	switch (e->type) {
	case HJ_EV_DRAW:
		put(o, "draw ");
		if (e->hand == HJ_DEALER)
			put(o, "D ");
		else
			put(o, "%d ", e->hand);
		put_card(o, e->card);
		break;
	case HJ_EV_ACTION:
		put(o, "%s", act_name(e->act));
		if (e->hand >= 0)
			put(o, "@%d", e->hand);
		put(o, " ");
		put_amount(o, e->amount);
		break;
	case HJ_EV_REJECT:
		put(o, "reject %s %s ", act_name(e->act), reason_s(e->reason));
		put_amount(o, e->amount);
		break;
	case HJ_EV_TIMEOUT:
		put(o, "timeout %s", act_name(e->act));
		if (e->hand >= 0)
			put(o, "@%d", e->hand);
		break;
	case HJ_EV_SETTLE:
		put(o, "settle ");
		for (int i = 0; i < e->round.nhands; i++) {
			put(o, "%s ", status_s(e->st.status[i]));
			put_amount(o, e->st.ret[i]);
			put(o, ", ");
		}
		if (e->round.insured) {
			put(o, "ins ");
			put_amount(o, e->st.ins_ret);
			put(o, ", ");
		}
		put(o, "stake ");
		put_amount(o, e->st.total_stake);
		put(o, ", ret ");
		put_amount(o, e->st.total_ret);
		break;
	case HJ_EV_DEPOSIT:
		put(o, "deposit");
		break;
	case HJ_EV_IGNORED:
		put(o, "ignored");
		break;
	case HJ_EV_COMMIT:
		put(o, "commit");
		break;
	case HJ_EV_PEEK:
		put(o, "peek ");
		put_card(o, e->card);
		put(o, e->dealer_bj ? " bj" : " clear");
		break;
	case HJ_EV_SKIP:
		put(o, "skip ");
		put_card(o, e->card);
		break;
	case HJ_EV_SIDE:
		put(o, "side");
		if (e->side.pp) {
			put(o, " pp %s ", hj_side_name(e->side.pp));
			put_amount(o, e->side.pp_ret);
		}
		if (e->side.t3) {
			put(o, " t3 %s ", hj_side_name(e->side.t3));
			put_amount(o, e->side.t3_ret);
		}
		break;
	}
}

static struct out line;

/* The last block's events as one line. */
const char *events(const fx *f)
{
	line.n = 0;
	line.b[0] = '\0';
	for (size_t i = 0; i < f->nev; i++) {
		if (i)
			put(&line, " | ");
		put_event(&line, &f->ev[i]);
	}
	return line.b;
}

/* Whether one of the last block's events renders exactly as s. */
int has(const fx *f, const char *s)
{
	struct out o;

	for (size_t i = 0; i < f->nev; i++) {
		o.n = 0;
		o.b[0] = '\0';
		put_event(&o, &f->ev[i]);
		if (strcmp(o.b, s) == 0)
			return 1;
	}
	return 0;
}

/* The open round of player p: "h0 8H 3C $10, h1 8S $10, D 6C". */
const char *hands(const fx *f, uint8_t p)
{
	const hj_round *r = fx_round(f, p);

	line.n = 0;
	line.b[0] = '\0';
	if (!r)
		return "(no round)";
	for (int i = 0; i < r->nhands; i++) {
		put(&line, "h%d", i);
		for (int k = 0; k < r->hands[i].n; k++) {
			put(&line, " ");
			put_card(&line, r->hands[i].cards[k]);
		}
		put(&line, " $");
		put_amount(&line, r->hands[i].stake);
		put(&line, ", ");
	}
	put(&line, "D");
	for (int k = 0; k < r->dealer_n; k++) {
		put(&line, " ");
		put_card(&line, r->dealer[k]);
	}
	return line.b;
}

/* ------------------------------------------------------------------ */
/* Blocks, with the money check on every settlement                   */

/* Stakes the accepted actions of each player's current round carried. */
static hj_amount staked[256];

static void check_money(const ev_rec *e)
{
	const hj_round *r = &e->round;
	hj_amount sum = 0, stakes = 0;

	assert_true(e->has_round);
	for (int i = 0; i < HJ_MAX_HANDS; i++) {
		if (i < r->nhands) {
			assert_int_not_equal(e->st.status[i], HJ_ST_NONE);
			sum += e->st.ret[i];
			stakes += r->hands[i].stake;
		} else {
			assert_int_equal(e->st.status[i], HJ_ST_NONE);
			assert_true(e->st.ret[i] == 0);
		}
	}
	if (r->insured)
		stakes += r->insurance;
	else
		assert_true(e->st.ins_ret == 0);
	sum += e->st.ins_ret;
	assert_true(sum == e->st.total_ret);
	assert_true(stakes == e->st.total_stake);
	assert_true(staked[e->player] == e->st.total_stake);
}

void step(fx *f, uint8_t card, hj_action *txs, size_t n)
{
	fx_block(f, card, txs, n);
	for (size_t i = 0; i < f->nev; i++) {
		const ev_rec *e = &f->ev[i];
		if (e->type == HJ_EV_ACTION && e->act == HJ_BET)
			staked[e->player] = e->amount;
		else if (e->type == HJ_EV_ACTION)
			staked[e->player] += e->amount;
		else if (e->type == HJ_EV_SETTLE)
			check_money(e);
	}
}

void start(fx *f, const hj_rules *rules)
{
	hj_rules def = rules_bethash();

	memset(staked, 0, sizeof staked);
	fx_init(f, rules ? rules : &def);
}

/* bethash with the given timeout. */
hj_rules rules_timeout(uint32_t blocks)
{
	hj_rules r = rules_bethash();
	r.timeout_blocks = blocks;
	return r;
}

/*
 * Bet by p at the next block X, then X+1 c1 to hand 0, X+2 up to the dealer,
 * X+3 c2 to hand 0 (no void blocks).  Other rounds may draw alongside.
 * Returns X.
 */
uint64_t deal(fx *f, uint8_t p, hj_amount bet, uint8_t c1, uint8_t up,
              uint8_t c2)
{
	uint64_t x = f->height;
	struct out o = {.n = 0};

	B(f, IDLE, tx_bet(p, bet));
	put(&o, "%u Bet ", p);
	put_amount(&o, bet);
	HAS(f, o.b);
	o.n = 0;
	put(&o, "%u draw 0 ", p);
	put_card(&o, c1);
	B0(f, c1);
	HAS(f, o.b);
	o.n = 0;
	put(&o, "%u draw D ", p);
	put_card(&o, up);
	B0(f, up);
	HAS(f, o.b);
	o.n = 0;
	put(&o, "%u draw 0 ", p);
	put_card(&o, c2);
	B0(f, c2);
	HAS(f, o.b);
	return x;
}

/* Idle blocks: nothing may happen in any of them. */
void quiet(fx *f, int n)
{
	while (n--) {
		B0(f, IDLE);
		EXPECT(f, "");
	}
}

/* The fields an action or a timeout would change. */
void assert_same_round(const hj_round *a, const hj_round *b)
{
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->phase, b->phase);
	assert_int_equal(a->peek_due, b->peek_due);
	assert_int_equal(a->nhands, b->nhands);
	assert_int_equal(a->npending, b->npending);
	assert_int_equal(a->window_open, b->window_open);
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->decisions, b->decisions);
	assert_int_equal(a->insured, b->insured);
	assert_int_equal(a->dealer_n, b->dealer_n);
	assert_memory_equal(a->dealer, b->dealer, sizeof a->dealer);
	assert_memory_equal(a->hands, b->hands, sizeof a->hands);
	assert_true(a->bet == b->bet);
}
