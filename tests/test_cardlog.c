/*
 * The block-to-card log line (daemon/core/cardlog.h, docs/LOG.md), event by
 * event: every example of docs/LOG.md, byte for byte, from the events it
 * describes; both families' forms; the line-size cap; misuse.  Blocks
 * through a real table are tests/test_deal.c's.
 *
 * Every expected value was written from docs/PROTOCOL.md, the header or
 * docs/LOG.md, not copied from what the code prints.  The DOC_* lines
 * (cardlog_util.h) are the example lines of docs/LOG.md, verbatim: the log
 * writer must reproduce them byte for byte from the events they describe.
 * Every line is also read back by the log's reader (hj_cardlog_read) to
 * exactly the values it was written from, and the order of its keys
 * compared, byte by byte, with the order docs/LOG.md gives.  Then the
 * reader's refusals: every key missing, of a wrong type or form, versions
 * 0 and 3, not an object, duplicate keys, each with its exact words.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "card.h"
#include "cardlog.h"
#include "cardlog_util.h"
#include "hex.h"

/* 10^18: one ether in wei. */
#define E18 ((hj_amount)1000000000000000000ull)

static hj_id id_of(const char *s)
{
	hj_id id;
	size_t digits = strlen(s) - (s[0] == '0' && s[1] == 'x' ? 2 : 0);

	memset(&id, 0, sizeof id);
	assert_true(digits % 2 == 0 && digits / 2 <= 32);
	id.len = (uint8_t)(digits / 2);
	unhex(s, id.b, id.len);
	return id;
}

/* Key orders of docs/LOG.md (a whole line's: cardlog_util.h). */
static const char *const K_CARD[] = {"rank", "suit",      "value",      "code",
                                     "pos",  "rankDigit", "colorDigit", NULL};
static const char *const K_DRAW_P[] = {"type",      "round", "handOwner",
                                       "handIndex", "card",  NULL};
static const char *const K_DRAW_D[] = {"type", "round", "handOwner", "card",
                                       NULL};
static const char *const K_ACT_BET[] = {"type", "action",  "round", "player",
                                        "tx",   "txIndex", "stake", NULL};
static const char *const K_ACT_HAND[] = {"type",      "action", "round",
                                         "player",    "tx",     "txIndex",
                                         "handIndex", "stake",  NULL};
static const char *const K_ACT_PEEK[] = {"type",      "action", "round",
                                         "player",    "tx",     "txIndex",
                                         "insurance", "stake",  NULL};
static const char *const K_REJ_FULL[] = {"type",   "tx",     "txIndex",
                                         "from",   "action", "round",
                                         "reason", "refund", NULL};
static const char *const K_REJ_ACT[] = {"type",   "tx",     "txIndex", "from",
                                        "action", "reason", "refund",  NULL};
static const char *const K_REJ_MIN[] = {"type",   "tx",     "txIndex", "from",
                                        "reason", "refund", NULL};
static const char *const K_DEPOSIT[] = {"type", "tx",    "txIndex",
                                        "from", "value", NULL};
static const char *const K_IGNORED[] = {"type", "tx",     "txIndex",
                                        "from", "reason", NULL};
static const char *const K_TO_HAND[] = {"type", "round", "action", "handIndex",
                                        NULL};
static const char *const K_TO_PEEK[] = {"type", "round", "action", NULL};
static const char *const K_PEEK_CARD[] = {"type", "round", "card",
                                          "dealerBlackjack", NULL};
static const char *const K_SKIP[] = {"type", "round", "card", NULL};
static const char *const K_ACT_BET_SIDES[] = {
    "type",    "action", "round",        "player", "tx",
    "txIndex", "stake",  "perfectPairs", "poker",  NULL};
static const char *const K_SIDEBETS[] = {"type",         "round", "player",
                                         "perfectPairs", "poker", "betAmount",
                                         "payout",       NULL};
static const char *const K_SIDE[] = {"betAmount", "status", "payout", NULL};
static const char *const K_SETTLE[] = {"type",       "round",       "player",
                                       "dealerHand", "playerHands", "betAmount",
                                       "payout",     NULL};
static const char *const K_SETTLE_INS[] = {
    "type",      "round",     "player", "dealerHand", "playerHands",
    "insurance", "betAmount", "payout", NULL};
static const char *const K_HAND_D[] = {"cards", "total", NULL};
static const char *const K_HAND_P[] = {
    "handIndex", "cards", "total", "betAmount", "status", "payout", NULL};
static const char *const K_INS[] = {"betAmount", "payout", NULL};

/* A block's hashes as bytes, and its card. */
static void block_of(const char *hash, const char *parent, uint8_t h[32],
                     uint8_t p[32], hj_card *card)
{
	unhex(hash, h, 32);
	unhex(parent, p, 32);
	assert_int_equal(hj_card_from_hash(hash, strlen(hash), card, NULL, 0),
	                 0);
}

static void begin_block(hj_cardlog *cl, uint64_t height, const char *hash,
                        const char *parent)
{
	uint8_t h[32], p[32];
	hj_card card;

	block_of(hash, parent, h, p, &card);
	assert_int_equal(
	    hj_cardlog_begin(cl, "evm", HJ_EVM, height, h, p, NULL, &card), 0);
}

static void begin_std(hj_cardlog *cl)
{
	begin_block(cl, STD_HEIGHT, VEC2, GENESIS);
}

static hj_round mkround(const char *id, const char *player)
{
	hj_round r;

	memset(&r, 0, sizeof r);
	r.id = id_of(id);
	r.player = id_of(player);
	r.nhands = 1;
	r.phase = HJ_PH_PLAY;
	return r;
}

static hj_action mktx(hj_txkind kind, const char *hash, uint32_t idx,
                      const char *from, hj_amount value)
{
	hj_action a;

	memset(&a, 0, sizeof a);
	a.kind = kind;
	a.txid = id_of(hash);
	a.tx_index = idx;
	if (from != NULL)
		a.sender = id_of(from);
	a.value = value;
	return a;
}

/* The key order of the objects inside an event (docs/LOG.md): a settle's
 * hands and insurance, a sidebets' side bets. */
static void assert_inner_keys(const char *ev)
{
	const char *v, *hands = member(ev, "playerHands");

	if ((v = member(ev, "dealerHand")) != NULL)
		assert_keys(v, K_HAND_D);
	for (size_t i = 0; hands && i < elements(hands); i++)
		assert_keys(element(hands, i), K_HAND_P);
	if ((v = member(ev, "insurance")) != NULL && v[0] == '{')
		assert_keys(v, K_INS);
	if ((v = member(ev, "perfectPairs")) != NULL && v[0] == '{')
		assert_keys(v, K_SIDE);
	if ((v = member(ev, "poker")) != NULL && v[0] == '{')
		assert_keys(v, K_SIDE);
}

/* The standard line's header, read back. */
static void assert_std_header(const hj_cardlog_line *l)
{
	uint8_t h[32], p[32];
	hj_card card;

	block_of(VEC2, GENESIS, h, p, &card);
	assert_header(l, HJ_EVM, STD_HEIGHT, h, p, &card);
}

/*
 * Writes ev as the only event of the standard line and checks the whole
 * line against want, the event's keys against keys, and the line read back
 * against ev.  *out (may be NULL) gets the line read back, for the caller
 * to free.
 */
static void one_event(const hj_event *ev, const char *want,
                      const char *const *keys, hj_cardlog_line *out)
{
	hj_cardlog cl;
	hj_cardlog_line l;
	size_t n = strlen(STD_PREFIX) + strlen(want) + strlen(SUFFIX) + 1;
	char *line, *expect = malloc(n);

	assert_non_null(expect);
	hj_cardlog_init(&cl);
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, ev), 0);
	line = finish(&cl);
	hj_cardlog_release(&cl);
	snprintf(expect, n, "%s%s%s", STD_PREFIX, want, SUFFIX);
	assert_string_equal(line, expect);
	assert_keys(line, K_LINE_CARD);
	assert_int_equal(elements(member(line, "events")), 1);
	assert_keys(element(member(line, "events"), 0), keys);
	assert_inner_keys(element(member(line, "events"), 0));
	read_back(line, HJ_EVM, &l);
	assert_std_header(&l);
	assert_int_equal(l.nevents, 1);
	assert_event(&l.events[0], ev, HJ_EVM);
	if (out != NULL)
		*out = l;
	else
		hj_cardlog_line_free(&l);
	free(line);
	free(expect);
}

/* Every example event of docs/LOG.md, built from what it describes. */
enum {
	D_DRAW_PLAYER,
	D_DRAW_DEALER,
	D_BET,
	D_HIT,
	D_STAND,
	D_DOUBLE,
	D_SPLIT,
	D_SURRENDER,
	D_PEEK,
	D_REJECT_VALUE,
	D_REJECT_NO_ROUND,
	D_REJECT_VERSION,
	D_DEPOSIT,
	D_IGNORED,
	D_TIMEOUT_STAND,
	D_TIMEOUT_PEEK,
	D_SETTLE_INSURED,
	D_SETTLE_SPLIT,
	D_PEEK_CLEAR,
	D_PEEK_BJ,
	D_SKIP,
	D_BET_SIDES,
	D_SIDEBETS,
	NDOC
};

static const char *const doc_want[NDOC] = {
    DOC_DRAW_PLAYER,  DOC_DRAW_DEALER,     DOC_BET,
    DOC_HIT,          DOC_STAND,           DOC_DOUBLE,
    DOC_SPLIT,        DOC_SURRENDER,       DOC_PEEK,
    DOC_REJECT_VALUE, DOC_REJECT_NO_ROUND, DOC_REJECT_VERSION,
    DOC_DEPOSIT,      DOC_IGNORED,         DOC_TIMEOUT_STAND,
    DOC_TIMEOUT_PEEK, DOC_SETTLE_INSURED,  DOC_SETTLE_SPLIT,
    DOC_PEEK_CLEAR,   DOC_PEEK_BJ,         DOC_SKIP,
    DOC_BET_SIDES,    DOC_SIDEBETS,
};

static const char *const *const doc_keys[NDOC] = {
    K_DRAW_P,   K_DRAW_D,        K_ACT_BET,  K_ACT_HAND,  K_ACT_HAND,
    K_ACT_HAND, K_ACT_HAND,      K_ACT_HAND, K_ACT_PEEK,  K_REJ_FULL,
    K_REJ_ACT,  K_REJ_MIN,       K_DEPOSIT,  K_IGNORED,   K_TO_HAND,
    K_TO_PEEK,  K_SETTLE_INS,    K_SETTLE,   K_PEEK_CARD, K_PEEK_CARD,
    K_SKIP,     K_ACT_BET_SIDES, K_SIDEBETS,
};

struct docfx {
	hj_round r_bet, r_hit, r_stand, r_double, r_split, r_surr, r_peek;
	hj_round r_to_stand, r_to_peek, r_split_done, r_sides;
	hj_action t_bet, t_hit, t_stand, t_double, t_split, t_surr, t_peek;
	hj_action t_rej1, t_rej2, t_rej3, t_dep, t_ign, t_bet_sides;
	hj_settlement s_ins, s_split;
	hj_side_settlement s_sides;
	hj_event ev[NDOC];
};

#define C(rank, suit) hj_code((rank), (suit))

/* Fills *f in place: the events point into it. */
static void doc_events(struct docfx *f)
{
	hj_round *r;
	hj_event *ev = f->ev;

	memset(f, 0, sizeof *f);
	f->r_bet = mkround(R_BET, P_BET);
	f->r_hit = mkround(R_HIT, P_HIT);
	f->r_stand = mkround(R_STAND, P_STAND);
	f->r_double = mkround(R_DOUBLE, P_DOUBLE);
	f->r_split = mkround(R_SPLIT, P_SPLIT);
	f->r_surr = mkround(R_SURR, P_SURR);
	f->r_peek = mkround(R_PEEK, P_PEEK);
	f->r_to_stand = mkround(R_TO_STAND, P_STAND);
	f->r_to_peek = mkround(R_TO_PEEK, P_HIT);

	f->t_bet = mktx(HJ_TX_ACTION, R_BET, 0, P_BET, 1001);
	f->t_bet.act = HJ_BET;
	/* No sender on the Hit: an action's "player" is the round's. */
	f->t_hit = mktx(HJ_TX_ACTION, T_HIT, 0, NULL, 0);
	f->t_hit.act = HJ_HIT;
	f->t_stand = mktx(HJ_TX_ACTION, T_STAND, 0, P_STAND, 0);
	f->t_stand.act = HJ_STAND;
	f->t_double = mktx(HJ_TX_ACTION, T_DOUBLE, 1, P_DOUBLE,
	                   (hj_amount)200000000000000000ull);
	f->t_double.act = HJ_DOUBLE;
	f->t_split = mktx(HJ_TX_ACTION, T_SPLIT, 0, P_SPLIT, 40000);
	f->t_split.act = HJ_SPLIT;
	f->t_surr = mktx(HJ_TX_ACTION, T_SURR, 0, P_SURR, 0);
	f->t_surr.act = HJ_SURRENDER;
	f->t_peek = mktx(HJ_TX_ACTION, T_PEEK, 1, P_PEEK, 500);
	f->t_peek.act = HJ_PEEK;
	f->t_peek.insurance = 1;
	f->t_rej1 = mktx(HJ_TX_ACTION, T_REJ1, 0, P_DOUBLE,
	                 (hj_amount)100000000000000000ull);
	f->t_rej1.act = HJ_DOUBLE;
	f->t_rej2 = mktx(HJ_TX_ACTION, T_REJ2, 2, F_REJ2, 7);
	f->t_rej2.act = HJ_HIT;
	f->t_rej3 = mktx(HJ_TX_MALFORMED, T_REJ3, 3, F_REJ3, 1000);
	f->t_rej3.reason = HJ_R_BAD_VERSION;
	f->t_dep = mktx(HJ_TX_DEPOSIT, T_DEP, 0, F_DEP, 123);
	f->t_ign = mktx(HJ_TX_FAILED, T_IGN, 1, F_IGN, 5);

	ev[D_DRAW_PLAYER] = (hj_event){.type = HJ_EV_DRAW,
	                               .round = &f->r_bet,
	                               .hand = 0,
	                               .card = C(HJ_ACE, HJ_SPADES)};
	ev[D_DRAW_DEALER] = (hj_event){.type = HJ_EV_DRAW,
	                               .round = &f->r_bet,
	                               .hand = HJ_DEALER,
	                               .card = C(9, HJ_DIAMONDS)};
#define ACTION(i, rr, tt, a, h)                                                \
	ev[i] = (hj_event){.type = HJ_EV_ACTION,                               \
	                   .round = &f->rr,                                    \
	                   .tx = &f->tt,                                       \
	                   .act = (a),                                         \
	                   .hand = (h),                                        \
	                   .amount = f->tt.value}
	ACTION(D_BET, r_bet, t_bet, HJ_BET, -1);
	ACTION(D_HIT, r_hit, t_hit, HJ_HIT, 0);
	ACTION(D_STAND, r_stand, t_stand, HJ_STAND, 0);
	ACTION(D_DOUBLE, r_double, t_double, HJ_DOUBLE, 0);
	ACTION(D_SPLIT, r_split, t_split, HJ_SPLIT, 0);
	ACTION(D_SURRENDER, r_surr, t_surr, HJ_SURRENDER, 0);
	ACTION(D_PEEK, r_peek, t_peek, HJ_PEEK, -1);
#undef ACTION
	ev[D_REJECT_VALUE] = (hj_event){.type = HJ_EV_REJECT,
	                                .round = &f->r_double,
	                                .tx = &f->t_rej1,
	                                .act = HJ_DOUBLE,
	                                .reason = HJ_R_WRONG_VALUE,
	                                .amount = f->t_rej1.value};
	ev[D_REJECT_NO_ROUND] = (hj_event){.type = HJ_EV_REJECT,
	                                   .tx = &f->t_rej2,
	                                   .act = HJ_HIT,
	                                   .reason = HJ_R_NO_ROUND,
	                                   .amount = 7};
	ev[D_REJECT_VERSION] = (hj_event){.type = HJ_EV_REJECT,
	                                  .tx = &f->t_rej3,
	                                  .act = HJ_ACT_NONE,
	                                  .reason = HJ_R_BAD_VERSION,
	                                  .amount = 1000};
	ev[D_DEPOSIT] = (hj_event){.type = HJ_EV_DEPOSIT, .tx = &f->t_dep};
	ev[D_IGNORED] = (hj_event){.type = HJ_EV_IGNORED, .tx = &f->t_ign};
	ev[D_TIMEOUT_STAND] = (hj_event){.type = HJ_EV_TIMEOUT,
	                                 .round = &f->r_to_stand,
	                                 .act = HJ_STAND,
	                                 .hand = 0};
	ev[D_TIMEOUT_PEEK] = (hj_event){.type = HJ_EV_TIMEOUT,
	                                .round = &f->r_to_peek,
	                                .act = HJ_PEEK,
	                                .hand = -1};

	/* Insurance taken, dealer blackjack behind an Ace: the hand loses,
	 * insurance returns 3 x 500. */
	r = &f->r_peek;
	r->bet = 1000;
	r->insured = 1;
	r->insurance = 500;
	r->dealer_n = 2;
	r->dealer[0] = C(HJ_ACE, HJ_HEARTS);
	r->dealer[1] = C(HJ_KING, HJ_DIAMONDS);
	r->hands[0].stake = 1000;
	r->hands[0].n = 2;
	r->hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
	r->hands[0].cards[1] = C(9, HJ_CLUBS);
	f->s_ins.status[0] = HJ_ST_LOSE;
	f->s_ins.ret[0] = 0;
	f->s_ins.ins_ret = 1500;
	f->s_ins.total_stake = 1500;
	f->s_ins.total_ret = 1500;
	ev[D_SETTLE_INSURED] =
	    (hj_event){.type = HJ_EV_SETTLE, .round = r, .settle = &f->s_ins};

	/* A split round that met a late dealer blackjack. */
	f->r_split_done = mkround(R_SPLIT, P_SPLIT);
	r = &f->r_split_done;
	r->bet = 40000;
	r->nhands = 2;
	r->dealer_n = 2;
	r->dealer[0] = C(HJ_TEN, HJ_HEARTS);
	r->dealer[1] = C(HJ_ACE, HJ_CLUBS);
	r->hands[0].stake = 40000;
	r->hands[0].n = 2;
	r->hands[0].cards[0] = C(9, HJ_SPADES);
	r->hands[0].cards[1] = C(2, HJ_CLUBS);
	r->hands[1].stake = 40000;
	r->hands[1].n = 2;
	r->hands[1].cards[0] = C(9, HJ_DIAMONDS);
	r->hands[1].cards[1] = C(HJ_KING, HJ_SPADES);
	f->s_split.status[0] = HJ_ST_DEALER_BJ;
	f->s_split.status[1] = HJ_ST_DEALER_BJ;
	f->s_split.ret[0] = 0;
	f->s_split.ret[1] = 40000;
	f->s_split.total_stake = 80000;
	f->s_split.total_ret = 40000;
	ev[D_SETTLE_SPLIT] =
	    (hj_event){.type = HJ_EV_SETTLE, .round = r, .settle = &f->s_split};

	ev[D_PEEK_CLEAR] = (hj_event){.type = HJ_EV_PEEK,
	                              .round = &f->r_peek,
	                              .hand = HJ_DEALER,
	                              .card = C(9, HJ_DIAMONDS)};
	ev[D_PEEK_BJ] = (hj_event){.type = HJ_EV_PEEK,
	                           .round = &f->r_peek,
	                           .hand = HJ_DEALER,
	                           .card = C(HJ_KING, HJ_DIAMONDS),
	                           .dealer_bj = 1};
	ev[D_SKIP] = (hj_event){.type = HJ_EV_SKIP,
	                        .round = &f->r_peek,
	                        .hand = HJ_DEALER,
	                        .card = C(HJ_QUEEN, HJ_CLUBS)};
	/* A Bet of 1201: main stake 1001, 100 on each side bet; its third
	 * card makes a perfect pair (25 to 1) and no 21+3. */
	f->r_sides = mkround(R_BET, P_BET);
	f->r_sides.bet = 1001;
	f->r_sides.side_pp = 100;
	f->r_sides.side_t3 = 100;
	f->t_bet_sides = mktx(HJ_TX_ACTION, R_BET, 0, P_BET, 1201);
	f->t_bet_sides.act = HJ_BET;
	f->t_bet_sides.side_pp = 100;
	f->t_bet_sides.side_t3 = 100;
	ev[D_BET_SIDES] = (hj_event){.type = HJ_EV_ACTION,
	                             .round = &f->r_sides,
	                             .tx = &f->t_bet_sides,
	                             .act = HJ_BET,
	                             .hand = -1,
	                             .amount = 1001};
	f->s_sides = (hj_side_settlement){.pp = HJ_SB_PERFECT_PAIR,
	                                  .t3 = HJ_SB_LOST,
	                                  .pp_ret = 2600,
	                                  .t3_ret = 0};
	ev[D_SIDEBETS] = (hj_event){
	    .type = HJ_EV_SIDE, .round = &f->r_sides, .side = &f->s_sides};
}

/* ------------------------------------------------------------------ */

static void test_cardlog_void_block(void **state)
{
	static const char want[] =
	    HEAD("19000007", VOID_EF, VEC2) "\"void\":true,\"events\":[]}\n";
	static const char want_ev[] = HEAD(
	    "19000007", VOID_EF, VEC2) "\"void\":true,\"events\":[" DOC_DEPOSIT
	                               "," DOC_TIMEOUT_PEEK "]}\n";
	static struct docfx f;
	hj_cardlog cl;
	hj_cardlog_line l;
	hj_card card;
	uint8_t h[32], p[32];
	char *line;

	(void)state;
	unhex(VOID_EF, h, 32);
	unhex(VEC2, p, 32);
	/* docs/PROTOCOL.md section 2.3's void vectors really are void. */
	assert_int_equal(
	    hj_card_from_hash(VOID_EF, strlen(VOID_EF), &card, NULL, 0), 0);
	assert_int_equal(card.rank, 0);
	assert_int_equal(hj_card_from_hash("d" Z60 "000", 64, &card, NULL, 0),
	                 0);
	assert_int_equal(card.rank, 0);

	hj_cardlog_init(&cl);
	begin_block(&cl, 19000007, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, want);
	assert_keys(line, K_LINE_VOID);
	read_back(line, HJ_EVM, &l);
	card = (hj_card){0};
	assert_header(&l, HJ_EVM, 19000007, h, p, &card);
	assert_int_equal(l.nevents, 0);
	assert_null(l.events);
	hj_cardlog_line_free(&l);
	free(line);

	/* A void block has no draws but may have transactions and
	 * timeouts. */
	doc_events(&f);
	begin_block(&cl, 19000007, VOID_EF, VEC2);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_TIMEOUT_PEEK]), 0);
	line = finish(&cl);
	assert_string_equal(line, want_ev);
	assert_keys(line, K_LINE_VOID);
	read_back(line, HJ_EVM, &l);
	assert_header(&l, HJ_EVM, 19000007, h, p, &card);
	assert_int_equal(l.nevents, 2);
	assert_event(&l.events[0], &f.ev[D_DEPOSIT], HJ_EVM);
	assert_event(&l.events[1], &f.ev[D_TIMEOUT_PEEK], HJ_EVM);
	hj_cardlog_line_free(&l);
	free(line);
	hj_cardlog_release(&cl);
}

static void test_cardlog_cards(void **state)
{
	static const struct {
		const char *hash, *card;
	} v[] = {
	    {VEC2, DOC_CARD_AS},
	    {"0x" GENESIS, CARDJ("6", "Hearts", "6", "6H", "62", "6", "2")},
	    {"0x" Z60 "003a",
	     CARDJ("10", "Spades", "10", "10S", "63", "a", "3")},
	    {"0x" Z60 "0ec0", CARDJ("Q", "Hearts", "10", "QH", "62", "c", "e")},
	    {"0x" Z60 "004d", CARDJ("K", "Clubs", "10", "KC", "63", "d", "4")},
	    {"0x" Z60 "00fb", CARDJ("J", "Spades", "10", "JS", "63", "b", "f")},
	    {"0x" Z60 "0059",
	     CARDJ("9", "Diamonds", "9", "9D", "63", "9", "5")},
	    {"0x71" Z60 "00", CARDJ("A", "Spades", "1", "AS", "1", "1", "7")},
	    {"0xe2" E60 "fe", CARDJ("2", "Hearts", "2", "2H", "1", "2", "e")},
	};
	char want[512];
	hj_cardlog cl;

	(void)state;
	hj_cardlog_init(&cl);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		hj_cardlog_line l;
		uint8_t h[32], p[32];
		hj_card card;
		char *line;

		begin_block(&cl, 7, v[i].hash, VEC2);
		line = finish(&cl);
		snprintf(
		    want, sizeof want,
		    "{\"v\":2,\"chain\":\"evm\",\"height\":7,\"hash\":\"%s\","
		    "\"parent\":\"%s\",%s,\"events\":[]}\n",
		    v[i].hash, VEC2, v[i].card);
		assert_string_equal(line, want);
		assert_keys(line, K_LINE_CARD);
		assert_keys(member(line, "card"), K_CARD);
		read_back(line, HJ_EVM, &l);
		block_of(v[i].hash, VEC2, h, p, &card);
		assert_true(card.rank != 0);
		assert_header(&l, HJ_EVM, 7, h, p, &card);
		hj_cardlog_line_free(&l);
		free(line);
	}

	/* The fields of docs/PROTOCOL.md section 2.2's Ace of Spades, read
	 * back. */
	{
		hj_cardlog_line l;
		char *line;

		begin_block(&cl, 19000006, VEC2, GENESIS);
		line = finish(&cl);
		read_back(line, HJ_EVM, &l);
		assert_int_equal(l.card.rank, HJ_ACE);
		assert_int_equal(l.card.suit, HJ_SPADES);
		assert_int_equal(hj_rank_value(l.card.rank), 1);
		assert_int_equal(l.card.pos, 61);
		assert_int_equal(l.card.rank_digit, '1');
		assert_int_equal(l.card.color_digit, 'b');
		hj_cardlog_line_free(&l);
		free(line);
	}

	/* A hash the node printed in upper case is logged lower-cased. */
	{
		static const char up[] =
		    "0x0B6BC29980DBB1E93857D094F4A68184D33F"
		    "3C956609C997693DEA129192B10E";
		uint8_t h[32], p[32];
		hj_cardlog_line l;
		hj_card card;
		char *line;

		assert_int_equal(hj_hex_decode_exact(up, strlen(up),
		                                     HJ_HEX_REQUIRED, h, 32,
		                                     NULL, 0),
		                 0);
		unhex(GENESIS, p, 32);
		assert_int_equal(
		    hj_card_from_hash(up, strlen(up), &card, NULL, 0), 0);
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM,
		                                  STD_HEIGHT, h, p, NULL,
		                                  &card),
		                 0);
		line = finish(&cl);
		assert_string_equal(line, STD_PREFIX SUFFIX);
		read_back(line, HJ_EVM, &l);
		assert_header(&l, HJ_EVM, STD_HEIGHT, h, p, &card);
		hj_cardlog_line_free(&l);
		free(line);
	}
	hj_cardlog_release(&cl);
}

/* Each example event of docs/LOG.md, alone on a line. */
static void test_cardlog_doc_events(void **state)
{
	static struct docfx f;

	(void)state;
	doc_events(&f);
	for (int i = 0; i < NDOC; i++)
		one_event(&f.ev[i], doc_want[i], doc_keys[i], NULL);
}

/* An id read back is the one docs/LOG.md shows. */
static void assert_id_is(const hj_id *got, const char *text)
{
	hj_id want = id_of(text);

	assert_int_equal(got->len, want.len);
	assert_memory_equal(got->b, want.b, want.len);
}

/* Spot checks of values in the examples read back, against docs/LOG.md's
 * text. */
static void test_cardlog_doc_values(void **state)
{
	static struct docfx f;
	const hj_cardlog_settle *st;
	hj_cardlog_line l;
	const hj_cardlog_ev *e;

	(void)state;
	doc_events(&f);

	one_event(&f.ev[D_DRAW_PLAYER], DOC_DRAW_PLAYER, K_DRAW_P, &l);
	e = &l.events[0];
	assert_id_is(&e->round, R_BET);
	/* A draw's card is the line's card. */
	assert_int_equal(e->card, hj_code(l.card.rank, l.card.suit));
	assert_int_equal(e->card, C(HJ_ACE, HJ_SPADES));
	hj_cardlog_line_free(&l);

	one_event(&f.ev[D_DOUBLE], DOC_DOUBLE, K_ACT_HAND, &l);
	e = &l.events[0];
	assert_true(e->stake == (hj_amount)200000000000000000ull);
	assert_id_is(&e->player, P_DOUBLE);
	assert_id_is(&e->tx, T_DOUBLE);
	assert_int_equal(e->tx_index, 1);
	hj_cardlog_line_free(&l);

	one_event(&f.ev[D_PEEK], DOC_PEEK, K_ACT_PEEK, &l);
	e = &l.events[0];
	assert_true(e->has_insurance && e->insurance);
	assert_true(e->stake == 500);
	hj_cardlog_line_free(&l);

	one_event(&f.ev[D_REJECT_VALUE], DOC_REJECT_VALUE, K_REJ_FULL, &l);
	e = &l.events[0];
	assert_id_is(&e->from, P_DOUBLE);
	assert_id_is(&e->round, R_DOUBLE);
	assert_true(e->refund == (hj_amount)100000000000000000ull);
	hj_cardlog_line_free(&l);

	one_event(&f.ev[D_SETTLE_INSURED], DOC_SETTLE_INSURED, K_SETTLE_INS,
	          &l);
	st = l.events[0].settle;
	assert_int_equal(st->dealer.total, 21);
	assert_int_equal(st->dealer.cards[1], C(HJ_KING, HJ_DIAMONDS));
	assert_int_equal(st->hands[0].total, 19);
	assert_int_equal(st->hands[0].status, HJ_ST_LOSE);
	assert_true(st->hands[0].payout == 0);
	assert_true(st->ins_payout == 1500);
	assert_true(l.events[0].bet == 1500);
	assert_true(l.events[0].payout == 1500);
	hj_cardlog_line_free(&l);
}

static void test_cardlog_actions_more(void **state)
{
	static struct docfx f;
	hj_event ev;
	hj_cardlog_line l;

	(void)state;
	doc_events(&f);

	/* Peek without insurance: false, stake "0". */
	f.t_peek.insurance = 0;
	f.t_peek.value = 0;
	ev = f.ev[D_PEEK];
	ev.amount = 0;
	one_event(&ev,
	          "{\"type\":\"action\",\"action\":\"Peek\",\"round\":\"" R_PEEK
	          "\",\"player\":\"" P_PEEK "\",\"tx\":\"" T_PEEK
	          "\",\"txIndex\":1,\"insurance\":false,\"stake\":\"0\"}",
	          K_ACT_PEEK, &l);
	assert_true(l.events[0].has_insurance && !l.events[0].insurance);
	hj_cardlog_line_free(&l);

	/* An action on hand 1, a stake above 2^64. */
	ev = f.ev[D_SPLIT];
	ev.hand = 1;
	ev.amount = (hj_amount)1 << 64;
	f.t_split.tx_index = 4294967295u;
	one_event(
	    &ev,
	    "{\"type\":\"action\",\"action\":\"Split\",\"round\":\"" R_SPLIT
	    "\",\"player\":\"" P_SPLIT "\",\"tx\":\"" T_SPLIT
	    "\",\"txIndex\":4294967295,\"handIndex\":1,"
	    "\"stake\":\"18446744073709551616\"}",
	    K_ACT_HAND, NULL);

	/* The other timeouts: Stand on hand 1. */
	ev = f.ev[D_TIMEOUT_STAND];
	ev.hand = 1;
	one_event(&ev,
	          "{\"type\":\"timeout\",\"round\":\"" R_TO_STAND
	          "\",\"action\":\"Stand\",\"handIndex\":1}",
	          K_TO_HAND, NULL);

	/* A draw to the second hand. */
	ev = f.ev[D_DRAW_PLAYER];
	ev.hand = 1;
	ev.card = C(HJ_TEN, HJ_HEARTS);
	one_event(&ev,
	          "{\"type\":\"draw\",\"round\":\"" R_BET
	          "\",\"handOwner\":\"Player\",\"handIndex\":1,"
	          "\"card\":\"10H\"}",
	          K_DRAW_P, NULL);
}

static void test_cardlog_reject_reasons(void **state)
{
	/* The reason table of docs/LOG.md. */
	static const struct {
		hj_reason r;
		const char *name;
	} v[] = {
	    {HJ_R_TRUNCATED, "truncated"},
	    {HJ_R_BAD_VERSION, "bad_version"},
	    {HJ_R_UNKNOWN_ACTION, "unknown_action"},
	    {HJ_R_BAD_LENGTH, "bad_length"},
	    {HJ_R_TOO_LONG, "too_long"},
	    {HJ_R_BAD_FIELD, "bad_field"},
	    {HJ_R_SIDE_BETS, "side_bets_not_offered"},
	    {HJ_R_NO_ROUND, "no_round"},
	    {HJ_R_SECOND_ROUND, "second_round"},
	    {HJ_R_BET_LIMITS, "bet_out_of_limits"},
	    {HJ_R_PREMATURE, "premature"},
	    {HJ_R_NOT_ALLOWED, "not_allowed"},
	    {HJ_R_WRONG_VALUE, "wrong_value"},
	    {HJ_R_BAD_SIGNATURE, "bad_signature"},
	    {HJ_R_EXPOSURE, "over_exposure"},
	    {HJ_R_MALFORMED, "malformed"},
	    {HJ_R_NOT_DEALER, "not_dealer"},
	    {HJ_R_COMMIT_TOO_LATE, "commit_too_late"},
	};
	static struct docfx f;
	char want[1024];
	hj_event ev;

	(void)state;
	assert_int_equal(sizeof v / sizeof v[0], HJ_R_COUNT - 2);
	doc_events(&f);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ev = f.ev[D_REJECT_VERSION];
		ev.reason = v[i].r;
		snprintf(want, sizeof want,
		         "{\"type\":\"reject\",\"tx\":\"" T_REJ3
		         "\",\"txIndex\":3,\"from\":\"" F_REJ3
		         "\",\"reason\":\"%s\",\"refund\":\"1000\"}",
		         v[i].name);
		one_event(&ev, want, K_REJ_MIN, NULL);
	}

	/* A Bet while the sender's round is open names the Bet and that
	 * round; the refund is all of the value, whatever its size. */
	ev = (hj_event){.type = HJ_EV_REJECT,
	                .round = &f.r_bet,
	                .tx = &f.t_rej2,
	                .act = HJ_BET,
	                .reason = HJ_R_SECOND_ROUND,
	                .amount = HJ_AMOUNT_MAX};
	one_event(&ev,
	          "{\"type\":\"reject\",\"tx\":\"" T_REJ2
	          "\",\"txIndex\":2,\"from\":\"" F_REJ2
	          "\",\"action\":\"Bet\",\"round\":\"" R_BET
	          "\",\"reason\":\"second_round\",\"refund\":"
	          "\"340282366920938463463374607431768211455\"}",
	          K_REJ_FULL, NULL);

	/* A malformed payload whose action byte was known names it. */
	ev = (hj_event){.type = HJ_EV_REJECT,
	                .tx = &f.t_rej3,
	                .act = HJ_PEEK,
	                .reason = HJ_R_BAD_FIELD,
	                .amount = 0};
	one_event(&ev,
	          "{\"type\":\"reject\",\"tx\":\"" T_REJ3
	          "\",\"txIndex\":3,\"from\":\"" F_REJ3
	          "\",\"action\":\"Peek\",\"reason\":\"bad_field\","
	          "\"refund\":\"0\"}",
	          K_REJ_ACT, NULL);
}

static void test_cardlog_deposit_ignored(void **state)
{
	static struct docfx f;
	hj_event ev;
	hj_cardlog_line l;

	(void)state;
	doc_events(&f);
	f.t_dep.value = 0;
	ev = f.ev[D_DEPOSIT];
	one_event(&ev,
	          "{\"type\":\"deposit\",\"tx\":\"" T_DEP
	          "\",\"txIndex\":0,\"from\":\"" F_DEP "\",\"value\":\"0\"}",
	          K_DEPOSIT, &l);
	assert_true(l.events[0].value == 0);
	hj_cardlog_line_free(&l);

	f.t_dep.value = HJ_AMOUNT_MAX;
	one_event(&ev,
	          "{\"type\":\"deposit\",\"tx\":\"" T_DEP
	          "\",\"txIndex\":0,\"from\":\"" F_DEP
	          "\",\"value\":\"340282366920938463463374607431768211455\"}",
	          K_DEPOSIT, NULL);

	/* "ignored" carries no value and always the one reason. */
	f.t_ign.value = E18;
	one_event(&f.ev[D_IGNORED], DOC_IGNORED, K_IGNORED, NULL);
}

static void test_cardlog_settle(void **state)
{
	/* The status table of docs/LOG.md. */
	static const char *const status[] = {
	    [HJ_ST_BLACKJACK] = "Blackjack",
	    [HJ_ST_WIN] = "Win",
	    [HJ_ST_PUSH] = "Push",
	    [HJ_ST_LOSE] = "Lose",
	    [HJ_ST_BUST] = "Bust",
	    [HJ_ST_SURRENDER] = "Surrender",
	    [HJ_ST_DEALER_BJ] = "DealerBlackjack",
	};
	hj_round r = mkround(R_STAND, P_STAND);
	hj_settlement st;
	hj_event ev = {.type = HJ_EV_SETTLE, .round = &r, .settle = &st};
	char want[2048];

	(void)state;
	r.dealer_n = 1;
	r.dealer[0] = C(7, HJ_DIAMONDS);
	r.hands[0].stake = 1000;
	r.hands[0].n = 2;
	r.hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
	r.hands[0].cards[1] = C(9, HJ_CLUBS);
	for (int s = HJ_ST_BLACKJACK; s <= HJ_ST_DEALER_BJ; s++) {
		memset(&st, 0, sizeof st);
		st.status[0] = (uint8_t)s;
		st.ret[0] = (hj_amount)(1230 + s);
		st.total_stake = 1000;
		st.total_ret = (hj_amount)(1230 + s);
		snprintf(want, sizeof want,
		         "{\"type\":\"settle\",\"round\":\"" R_STAND
		         "\",\"player\":\"" P_STAND
		         "\",\"dealerHand\":{\"cards\":[\"7D\"],\"total\":7},"
		         "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\","
		         "\"9C\"],\"total\":19,\"betAmount\":\"1000\","
		         "\"status\":\"%s\",\"payout\":\"%d\"}],"
		         "\"betAmount\":\"1000\",\"payout\":\"%d\"}",
		         status[s], 1230 + s, 1230 + s);
		one_event(&ev, want, K_SETTLE, NULL);
	}

	/* Insurance taken on a 1-wei bet: its stake is floor(1 / 2) = 0,
	 * yet it was taken, so the object is there. */
	{
		hj_round r1 = mkround(R_PEEK, P_PEEK);
		hj_settlement s1;
		hj_event ev1 = {
		    .type = HJ_EV_SETTLE, .round = &r1, .settle = &s1};

		memset(&s1, 0, sizeof s1);
		r1.bet = 1;
		r1.insured = 1;
		r1.insurance = 0;
		r1.dealer_n = 2;
		r1.dealer[0] = C(HJ_ACE, HJ_HEARTS);
		r1.dealer[1] = C(HJ_KING, HJ_DIAMONDS);
		r1.hands[0].stake = 1;
		r1.hands[0].n = 2;
		r1.hands[0].cards[0] = C(HJ_TEN, HJ_SPADES);
		r1.hands[0].cards[1] = C(9, HJ_CLUBS);
		s1.status[0] = HJ_ST_LOSE;
		s1.total_stake = 1;
		one_event(
		    &ev1,
		    "{\"type\":\"settle\",\"round\":\"" R_PEEK
		    "\",\"player\":\"" P_PEEK "\",\"dealerHand\":{\"cards\":["
		    "\"AH\",\"KD\"],\"total\":21},"
		    "\"playerHands\":[{\"handIndex\":0,\"cards\":[\"10S\","
		    "\"9C\"],"
		    "\"total\":19,\"betAmount\":\"1\",\"status\":\"Lose\","
		    "\"payout\":\"0\"}],\"insurance\":{\"betAmount\":\"0\","
		    "\"payout\":\"0\"},\"betAmount\":\"1\",\"payout\":\"0\"}",
		    K_SETTLE_INS, NULL);
	}

	/* Best totals: an ace counts 11 unless that busts; a bust hand
	 * shows its sum. */
	memset(&st, 0, sizeof st);
	r.dealer_n = 2;
	r.dealer[0] = C(HJ_ACE, HJ_CLUBS);
	r.dealer[1] = C(6, HJ_DIAMONDS);
	r.nhands = 3;
	r.hands[0] = (hj_hand){.stake = 10, .n = 3};
	r.hands[0].cards[0] = C(HJ_ACE, HJ_HEARTS);
	r.hands[0].cards[1] = C(HJ_ACE, HJ_SPADES);
	r.hands[0].cards[2] = C(9, HJ_CLUBS);
	r.hands[1] = (hj_hand){.stake = 10, .n = 3};
	r.hands[1].cards[0] = C(HJ_ACE, HJ_DIAMONDS);
	r.hands[1].cards[1] = C(5, HJ_SPADES);
	r.hands[1].cards[2] = C(HJ_KING, HJ_HEARTS);
	r.hands[2] = (hj_hand){.stake = 10, .n = 3};
	r.hands[2].cards[0] = C(HJ_KING, HJ_CLUBS);
	r.hands[2].cards[1] = C(HJ_QUEEN, HJ_DIAMONDS);
	r.hands[2].cards[2] = C(5, HJ_HEARTS);
	st.status[0] = HJ_ST_WIN;
	st.ret[0] = 20;
	st.status[1] = HJ_ST_LOSE;
	st.status[2] = HJ_ST_BUST;
	st.total_stake = 30;
	st.total_ret = 20;
	one_event(
	    &ev,
	    "{\"type\":\"settle\",\"round\":\"" R_STAND
	    "\",\"player\":\"" P_STAND
	    "\",\"dealerHand\":{\"cards\":[\"AC\",\"6D\"],\"total\":17},"
	    "\"playerHands\":["
	    "{\"handIndex\":0,\"cards\":[\"AH\",\"AS\",\"9C\"],\"total\":21,"
	    "\"betAmount\":\"10\",\"status\":\"Win\",\"payout\":\"20\"},"
	    "{\"handIndex\":1,\"cards\":[\"AD\",\"5S\",\"KH\"],\"total\":16,"
	    "\"betAmount\":\"10\",\"status\":\"Lose\",\"payout\":\"0\"},"
	    "{\"handIndex\":2,\"cards\":[\"KC\",\"QD\",\"5H\"],\"total\":25,"
	    "\"betAmount\":\"10\",\"status\":\"Bust\",\"payout\":\"0\"}],"
	    "\"betAmount\":\"30\",\"payout\":\"20\"}",
	    K_SETTLE, NULL);
}

/* Every example in one line, in order, comma-separated. */
static void test_cardlog_many_events(void **state)
{
	static struct docfx f;
	hj_cardlog cl;
	size_t n = strlen(STD_PREFIX) + strlen(SUFFIX) + 1, w;
	char *want, *line;
	hj_cardlog_line l;

	(void)state;
	doc_events(&f);
	for (int i = 0; i < NDOC; i++)
		n += strlen(doc_want[i]) + 1;
	want = malloc(n);
	assert_non_null(want);
	w = (size_t)snprintf(want, n, "%s", STD_PREFIX);
	for (int i = 0; i < NDOC; i++)
		w += (size_t)snprintf(want + w, n - w, "%s%s", i ? "," : "",
		                      doc_want[i]);
	snprintf(want + w, n - w, "%s", SUFFIX);

	hj_cardlog_init(&cl);
	begin_std(&cl);
	for (int i = 0; i < NDOC; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[i]), 0);
	line = finish(&cl);
	assert_string_equal(line, want);
	assert_keys(line, K_LINE_CARD);
	assert_int_equal(elements(member(line, "events")), NDOC);
	read_back(line, HJ_EVM, &l);
	assert_std_header(&l);
	assert_int_equal(l.nevents, NDOC);
	for (int i = 0; i < NDOC; i++) {
		assert_keys(element(member(line, "events"), (size_t)i),
		            doc_keys[i]);
		assert_inner_keys(element(member(line, "events"), (size_t)i));
		assert_event(&l.events[i], &f.ev[i], HJ_EVM);
	}
	hj_cardlog_line_free(&l);
	free(line);
	free(want);
	hj_cardlog_release(&cl);
}

/* The Bitcoin family: no "0x", no "from" (LOG.md, Value forms). */
static void test_cardlog_bitcoin_form(void **state)
{
	static const char want[] =
	    "{\"v\":2,\"chain\":\"bitcoin\",\"height\":0,\"hash\":\"" GENESIS
	    "\",\"parent\":\"" Z60 "0000\","
	    "\"card\":{\"rank\":\"6\",\"suit\":\"Hearts\",\"value\":6,"
	    "\"code\":\"6H\",\"pos\":62,\"rankDigit\":\"6\",\"colorDigit\":"
	    "\"2\"},\"events\":["
	    "{\"type\":\"deposit\",\"tx\":\"" T_DEP_H
	    "\",\"txIndex\":0,\"value\":\"5000\"},"
	    "{\"type\":\"action\",\"action\":\"Bet\",\"round\":\"" VEC2_H
	    "\",\"player\":\"" R_PEEK_H "\",\"tx\":\"" VEC2_H
	    "\",\"txIndex\":1,\"stake\":\"10000\"},"
	    "{\"type\":\"draw\",\"round\":\"" VEC2_H
	    "\",\"handOwner\":\"Player\",\"handIndex\":0,\"card\":\"6H\"},"
	    "{\"type\":\"reject\",\"tx\":\"" T_HIT_H
	    "\",\"txIndex\":2,\"action\":\"Hit\",\"round\":\"" VEC2_H
	    "\",\"reason\":\"bad_signature\",\"refund\":\"546\"}"
	    "]}\n";
	uint8_t h[32], p[32];
	hj_round r = mkround(VEC2, R_PEEK);
	hj_action dep = mktx(HJ_TX_DEPOSIT, T_DEP, 0, NULL, 5000);
	hj_action bet = mktx(HJ_TX_ACTION, VEC2, 1, NULL, 10000);
	hj_action hit = mktx(HJ_TX_ACTION, T_HIT, 2, NULL, 546);
	hj_event ev[4] = {
	    {.type = HJ_EV_DEPOSIT, .tx = &dep},
	    {.type = HJ_EV_ACTION,
	     .round = &r,
	     .tx = &bet,
	     .act = HJ_BET,
	     .hand = -1,
	     .amount = 10000},
	    {.type = HJ_EV_DRAW,
	     .round = &r,
	     .hand = 0,
	     .card = C(6, HJ_HEARTS)},
	    {.type = HJ_EV_REJECT,
	     .round = &r,
	     .tx = &hit,
	     .act = HJ_HIT,
	     .reason = HJ_R_BAD_SIGNATURE,
	     .amount = 546},
	};
	hj_cardlog cl;
	hj_card card;
	hj_cardlog_line l;
	char *line;

	(void)state;
	bet.act = HJ_BET;
	hit.act = HJ_HIT;
	unhex(GENESIS, h, 32);
	memset(p, 0, sizeof p);
	assert_int_equal(hj_card_from_hash(GENESIS, 64, &card, NULL, 0), 0);
	hj_cardlog_init(&cl);
	assert_int_equal(
	    hj_cardlog_begin(&cl, "bitcoin", HJ_BITCOIN, 0, h, p, NULL, &card),
	    0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hj_cardlog_event(&cl, &ev[i]), 0);
	line = finish(&cl);
	assert_string_equal(line, want);
	assert_keys(line, K_LINE_CARD);
	assert_int_equal(elements(member(line, "events")), 4);
	assert_null(member(element(member(line, "events"), 0), "from"));
	assert_null(member(element(member(line, "events"), 3), "from"));
	read_back(line, HJ_BITCOIN, &l);
	assert_header(&l, HJ_BITCOIN, 0, h, p, &card);
	assert_int_equal(l.nevents, 4);
	for (int i = 0; i < 4; i++)
		assert_event(&l.events[i], &ev[i], HJ_BITCOIN);
	/* The Bitcoin family's sizes: x-only keys, 32-byte ids. */
	assert_int_equal(l.events[1].player.len, 32);
	hj_cardlog_line_free(&l);
	free(line);
	hj_cardlog_release(&cl);
}

static void test_cardlog_heights(void **state)
{
	hj_cardlog cl;
	hj_cardlog_line l;
	hj_cardlog_err e;
	char *line;

	(void)state;
	hj_cardlog_init(&cl);
	begin_block(&cl, 0, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, HEAD("0", VOID_EF, VEC2) "\"void\":true,"
	                                                   "\"events\":[]}\n");
	read_back(line, HJ_EVM, &l);
	assert_true(l.height == 0);
	hj_cardlog_line_free(&l);
	free(line);
	/* The largest height a JSON integer of the reader's holds. */
	begin_block(&cl, INT64_MAX, VOID_EF, VEC2);
	line = finish(&cl);
	read_back(line, HJ_EVM, &l);
	assert_true(l.height == INT64_MAX);
	hj_cardlog_line_free(&l);
	free(line);
	begin_block(&cl, UINT64_MAX, VOID_EF, VEC2);
	line = finish(&cl);
	assert_string_equal(line, HEAD("18446744073709551615", VOID_EF,
	                               VEC2) "\"void\":true,\"events\":[]}\n");
	/* Above 2^63 - 1 the writer writes what the reader does not read
	 * (cardlog.h): jansson's integers are signed.  No chain is near. */
	assert_int_equal(read_refused(line, HJ_EVM, &e), -EINVAL);
	assert_int_equal(e.at, HJ_CARDLOG_AT_LINE);
	assert_true(e.json);
	assert_string_equal(e.msg,
	                    "too big integer near '18446744073709551615'");
	free(line);
	hj_cardlog_release(&cl);
}

/* ------------------------------------------------------------------ */
/* The line-size cap                                                  */

static void test_cardlog_cap_exact(void **state)
{
	static struct docfx f;
	const size_t P = strlen(STD_PREFIX), E = strlen(DOC_DEPOSIT);
	const char *line;
	size_t len;
	hj_cardlog cl;
	hj_cardlog_line l;
	char *s;

	(void)state;
	doc_events(&f);
	hj_cardlog_init(&cl);
	assert_true(cl.line.max == HJ_CARDLOG_MAX);
	assert_true(HJ_CARDLOG_MAX == 16u * 1024 * 1024);

	/* No events: the line is P + 3 bytes, "\n" included. */
	cl.line.max = P + 3;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(len, P + 3);
	assert_memory_equal(line, STD_PREFIX SUFFIX, len);
	cl.line.max = P + 2;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* Three deposits: P + 3E + 2 commas + 3. */
	cl.line.max = P + 3 * E + 2 + 3;
	begin_std(&cl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(len, cl.line.max);
	cl.line.max--;
	begin_std(&cl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* The third event does not fit: it and everything after it report
	 * the error, which end returns. */
	cl.line.max = P + 2 * E + 1 + 3;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), -EMSGSIZE);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_TIMEOUT_PEEK]),
	                 -EMSGSIZE);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* Not even the header fits. */
	cl.line.max = 40;
	assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, 1, f.r_bet.id.b,
	                                  f.r_bet.id.b, NULL, &(hj_card){0}),
	                 -EMSGSIZE);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), -EMSGSIZE);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);

	/* The error is cleared by the next begin. */
	cl.line.max = HJ_CARDLOG_MAX;
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, &f.ev[D_DEPOSIT]), 0);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX DOC_DEPOSIT SUFFIX);
	read_back(s, HJ_EVM, &l);
	assert_int_equal(l.nevents, 1);
	assert_event(&l.events[0], &f.ev[D_DEPOSIT], HJ_EVM);
	hj_cardlog_line_free(&l);
	free(s);
	hj_cardlog_release(&cl);
}

/* The real cap, 16 MiB: the first event past it is an error, not a crash
 * and not a cut line. */
static void test_cardlog_cap_default(void **state)
{
	static struct docfx f;
	const size_t P = strlen(STD_PREFIX), E = strlen(DOC_DEPOSIT);
	/* Events that fit: P + k E + (k - 1) <= max. */
	const size_t k = (HJ_CARDLOG_MAX - P + 1) / (E + 1);
	const char *line;
	size_t len, ok = 0;
	hj_cardlog cl;
	int rc = 0;

	(void)state;
	doc_events(&f);
	hj_cardlog_init(&cl);
	begin_std(&cl);
	while (ok < k + 10 &&
	       (rc = hj_cardlog_event(&cl, &f.ev[D_DEPOSIT])) == 0)
		ok++;
	assert_int_equal(rc, -EMSGSIZE);
	assert_int_equal(ok, k);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EMSGSIZE);
	hj_cardlog_release(&cl);
}

/* ------------------------------------------------------------------ */
/* Misuse: -EINVAL, sticky until the next begin.                       */

/* ev fails with -EINVAL on a fresh line; so does every later call. */
static void assert_refused(hj_cardlog *cl, const hj_event *ev,
                           const hj_event *good)
{
	const char *line;
	size_t len;

	begin_std(cl);
	assert_int_equal(hj_cardlog_event(cl, ev), -EINVAL);
	assert_int_equal(hj_cardlog_event(cl, good), -EINVAL);
	assert_int_equal(hj_cardlog_end(cl, &line, &len), -EINVAL);
}

static void test_cardlog_errors(void **state)
{
	static struct docfx f;
	static const char *const bad_chains[] = {
	    "",      "EVM",   "Evm",  "ev m",       "evm\"",
	    "evm\n", "evm_1", "ev.m", "\xc3\xa9vm",
	};
	uint8_t h[32];
	hj_card card = {0};
	const hj_event *good;
	const char *line;
	size_t len;
	hj_cardlog cl;
	hj_event ev;
	char *s;

	(void)state;
	doc_events(&f);
	good = &f.ev[D_DEPOSIT];
	memset(h, 0, sizeof h);
	hj_cardlog_release(NULL);
	hj_cardlog_init(&cl);
	hj_cardlog_release(&cl); /* nothing allocated yet */
	hj_cardlog_init(&cl);

	/* Outside begin..end. */
	assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);

	/* Chain names: lower-case letters, digits and '-' only. */
	for (size_t i = 0; i < sizeof bad_chains / sizeof bad_chains[0]; i++) {
		assert_int_equal(hj_cardlog_begin(&cl, bad_chains[i], HJ_EVM, 1,
		                                  h, h, NULL, &card),
		                 -EINVAL);
		assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);
		assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);
	}
	assert_int_equal(hj_cardlog_begin(&cl, "eth-classic-61", HJ_EVM, 1, h,
	                                  h, NULL, &card),
	                 0);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_memory_equal(line, "{\"v\":2,\"chain\":\"eth-classic-61\",", 32);
	/* The reader reads the chain names the writer is given, the
	 * families' (hj_family_name): this one is not a family's. */
	{
		hj_cardlog_err e;

		s = strndup(line, len);
		assert_non_null(s);
		assert_int_equal(read_refused(s, HJ_EVM, &e), -EINVAL);
		assert_int_equal(e.at, HJ_CARDLOG_AT_CHAIN);
		assert_string_equal(
		    e.msg, "\"chain\": \"eth-classic-61\", not \"evm\"");
		free(s);
	}

	/* Cards hj_card_from_hash never makes: nothing would escape them. */
	static const hj_card bad_cards[] = {
	    {.rank = 14,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 4,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 0,
	     .rank_digit = '1',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '"',
	     .color_digit = '0'},
	    {.rank = 1,
	     .suit = 0,
	     .pos = 63,
	     .rank_digit = '1',
	     .color_digit = 'G'},
	};
	for (size_t i = 0; i < sizeof bad_cards / sizeof bad_cards[0]; i++)
		assert_int_equal(hj_cardlog_begin(&cl, "evm", HJ_EVM, 1, h, h,
		                                  NULL, &bad_cards[i]),
		                 -EINVAL);

	/* Events that lack what they need. */
	ev = (hj_event){.type = HJ_EV_DRAW, .hand = 0, .card = C(2, 0)};
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DRAW_PLAYER];
	ev.card = 0; /* not a card */
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DRAW_PLAYER];
	ev.hand = -1;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_BET];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_BET];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_REJECT_NO_ROUND];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DEPOSIT];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_IGNORED];
	ev.tx = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_TIMEOUT_STAND];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_SETTLE_SPLIT];
	ev.round = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_SETTLE_SPLIT];
	ev.settle = NULL;
	assert_refused(&cl, &ev, good);
	ev = f.ev[D_DEPOSIT];
	ev.type = (hj_ev)99;
	assert_refused(&cl, &ev, good);
	/* An id longer than hj_id can hold. */
	f.t_dep.txid.len = 33;
	assert_refused(&cl, &f.ev[D_DEPOSIT], &f.ev[D_IGNORED]);
	f.t_dep.txid.len = 32;

	/* Through the sink, which cannot return the error: end does. */
	begin_std(&cl);
	ev = f.ev[D_BET];
	ev.round = NULL;
	hj_cardlog_sink(&cl, good);
	hj_cardlog_sink(&cl, &ev);
	hj_cardlog_sink(&cl, good);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), -EINVAL);

	/* An event after end is outside begin..end. */
	begin_std(&cl);
	assert_int_equal(hj_cardlog_end(&cl, &line, &len), 0);
	assert_int_equal(hj_cardlog_event(&cl, good), -EINVAL);

	/* Every error is cleared by the next begin, and the line carries
	 * nothing of the lines before. */
	begin_std(&cl);
	assert_int_equal(hj_cardlog_event(&cl, good), 0);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX DOC_DEPOSIT SUFFIX);
	free(s);
	begin_std(&cl);
	s = finish(&cl);
	assert_string_equal(s, STD_PREFIX SUFFIX);
	free(s);
	hj_cardlog_release(&cl);
	hj_cardlog_release(&cl);
}

/* ------------------------------------------------------------------ */
/* The reader's refusals, each with its words                          */

/* a, then b, then c, into a new string for the caller to free. */
static char *cat3(const char *a, size_t na, const char *b, const char *c)
{
	size_t n = na + strlen(b) + strlen(c) + 1;
	char *out = malloc(n);

	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)na, a, b, c);
	return out;
}

/* line with its first from replaced by to. */
static char *swap(const char *line, const char *from, const char *to)
{
	const char *at = strstr(line, from);

	assert_non_null(at);
	return cat3(line, (size_t)(at - line), to, at + strlen(from));
}

/* line with the member key of the object at obj (in line) given value,
 * or, value NULL, left out (with a comma beside it). */
static char *edit(const char *line, const char *obj, const char *key,
                  const char *value)
{
	const char *v = member(obj, key);
	const char *start, *end;

	assert_non_null(v);
	end = v + value_len(v);
	if (value != NULL)
		return cat3(line, (size_t)(v - line), value, end);
	start = v - strlen(key) - 3; /* "key": */
	if (*end == ',')
		end++;
	else if (start[-1] == ',')
		start--;
	return cat3(line, (size_t)(start - line), "", end);
}

/* line is refused by the EVM reader at at, with msg; err->key is key
 * (NULL: none). */
static void refused(const char *line, hj_cardlog_at at, const char *key,
                    const char *msg)
{
	hj_cardlog_err e;

	assert_int_equal(read_refused(line, HJ_EVM, &e), -EINVAL);
	if (strcmp(e.msg, msg) != 0)
		fail_msg("%s\n  not: %s\n  line: %s", e.msg, msg, line);
	assert_int_equal(e.at, at);
	if (key == NULL)
		assert_null(e.key);
	else
		assert_string_equal(e.key, key);
	assert_int_equal(e.json, 0);
}

/* Like refused, then frees line. */
static void refused_free(char *line, hj_cardlog_at at, const char *key,
                         const char *msg)
{
	refused(line, at, key, msg);
	free(line);
}

/* The optional keys of an event type (docs/LOG.md's tables). */
static int optional(const char *type, const char *key)
{
	static const char *const opt[][2] = {
	    {"action", "handIndex"},    {"action", "insurance"},
	    {"action", "perfectPairs"}, {"action", "poker"},
	    {"reject", "from"},         {"reject", "action"},
	    {"reject", "round"},        {"deposit", "from"},
	    {"ignored", "from"},        {"timeout", "handIndex"},
	    {"settle", "insurance"},    {"sidebets", "perfectPairs"},
	    {"sidebets", "poker"},
	};

	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (strcmp(opt[i][0], type) == 0 && strcmp(opt[i][1], key) == 0)
			return 1;
	return 0;
}

/* What the reader says of a value of the wrong JSON type for key. */
static const char *wrong_type(const char *type, const char *key)
{
	if (strcmp(key, "txIndex") == 0 || strcmp(key, "handIndex") == 0)
		return "not an integer";
	if (strcmp(key, "dealerBlackjack") == 0 ||
	    (strcmp(type, "action") == 0 && strcmp(key, "insurance") == 0))
		return "not true or false";
	if (strcmp(key, "dealerHand") == 0 || strcmp(key, "insurance") == 0 ||
	    (strcmp(type, "sidebets") == 0 &&
	     (strcmp(key, "perfectPairs") == 0 || strcmp(key, "poker") == 0)))
		return "not an object";
	if (strcmp(key, "playerHands") == 0)
		return "not an array";
	return "not a string";
}

/* Every key of every example event of docs/LOG.md: left out (missing, or
 * read without it when optional) and of the wrong JSON type. */
static void test_cardlog_read_each_key(void **state)
{
	static const char *const kinds[] = {"null", "[]",    "{}",
	                                    "7",    "\"7\"", "true"};

	(void)state;
	for (int i = 0; i < NDOC; i++) {
		char *line =
		    cat3(STD_PREFIX, strlen(STD_PREFIX), doc_want[i], "]}");
		const char *ev = element(member(line, "events"), 0);
		const char *tv = member(ev, "type");
		char type[16], want[200];

		snprintf(type, sizeof type, "%.*s", (int)value_len(tv) - 2,
		         tv + 1);
		for (size_t k = 1; doc_keys[i][k] != NULL; k++) {
			const char *key = doc_keys[i][k];
			char *l = edit(line, ev, key, NULL);
			hj_cardlog_line rl;

			if (optional(type, key)) {
				read_back(l, HJ_EVM, &rl);
				hj_cardlog_line_free(&rl);
				free(l);
			} else {
				snprintf(want, sizeof want,
				         "events[0]: \"%s\": missing", key);
				refused_free(l, HJ_CARDLOG_AT_EVENT, key, want);
			}
			/* Of each JSON type but its own. */
			snprintf(want, sizeof want, "events[0]: \"%s\": %s",
			         key, wrong_type(type, key));
			for (size_t j = 0; j < sizeof kinds / sizeof kinds[0];
			     j++) {
				hj_cardlog_err e;

				l = edit(line, ev, key, kinds[j]);
				/* Its own type may read (7 for txIndex);
				 * else the refusal names the key. */
				if (hj_cardlog_read(l, strlen(l), HJ_EVM, &rl,
				                    &e) == 0)
					hj_cardlog_line_free(&rl);
				else if (strncmp(e.msg, want,
				                 strlen(key) + 13) != 0 ||
				         strcmp(e.key, key) != 0)
					fail_msg("%s: %s", l, e.msg);
				free(l);
			}
			/* null: exactly the type's words. */
			l = edit(line, ev, key, "null");
			refused_free(l, HJ_CARDLOG_AT_EVENT, key, want);
		}
		/* The event without its type, and the type not a string. */
		refused_free(edit(line, ev, "type", NULL), HJ_CARDLOG_AT_EVENT,
		             NULL, "events[0]: \"type\": missing");
		refused_free(edit(line, ev, "type", "1"), HJ_CARDLOG_AT_EVENT,
		             NULL, "events[0]: \"type\": not a string");
		free(line);
	}
}

/* The line's own keys, the card, and each value's form. */
static void test_cardlog_read_refusals(void **state)
{
	static const char *const keys[] = {"v",    "chain",  "height",
	                                   "hash", "parent", "events"};
	static const hj_cardlog_at ats[] = {
	    HJ_CARDLOG_AT_V,    HJ_CARDLOG_AT_CHAIN,  HJ_CARDLOG_AT_HEIGHT,
	    HJ_CARDLOG_AT_HASH, HJ_CARDLOG_AT_PARENT, HJ_CARDLOG_AT_EVENTS};
	static const char *const wrong[] = {"\"v\": not 1 to 2",
	                                    "\"chain\": not a string",
	                                    "\"height\": not a block height",
	                                    "\"hash\": not a string",
	                                    "\"parent\": not a string",
	                                    "\"events\": not an array"};
	const char *base = STD_PREFIX DOC_DEPOSIT "]}";
	const char *card = member(base, "card");
	hj_cardlog_line l;
	hj_cardlog_err e;
	char want[200], *big;

	(void)state;
	read_back(base, HJ_EVM, &l);
	hj_cardlog_line_free(&l);

	/* Not a line at all. */
	assert_int_equal(read_refused("{nope", HJ_EVM, &e), -EINVAL);
	assert_int_equal(e.at, HJ_CARDLOG_AT_LINE);
	assert_true(e.json);
	assert_int_equal(e.column, 5);
	assert_string_equal(e.msg, "string or '}' expected near 'nope'");
	assert_int_equal(read_refused("", HJ_EVM, &e), -EINVAL);
	assert_true(e.json);
	assert_int_equal(read_refused("\"x\"", HJ_EVM, &e), -EINVAL);
	assert_true(e.json);
	refused("[]", HJ_CARDLOG_AT_LINE, NULL, "not a JSON object");
	refused("[{}]", HJ_CARDLOG_AT_LINE, NULL, "not a JSON object");
	/* Duplicate keys: the second "v". */
	assert_int_equal(read_refused("{\"v\":2,\"v\":2}", HJ_EVM, &e),
	                 -EINVAL);
	assert_true(e.json);
	assert_string_equal(e.msg, "duplicate object key near '\"v\"'");
	/* Longer than a line can be. */
	big = malloc(HJ_CARDLOG_MAX);
	assert_non_null(big);
	memset(big, ' ', HJ_CARDLOG_MAX);
	assert_int_equal(hj_cardlog_read(big, HJ_CARDLOG_MAX, HJ_EVM, &l, &e),
	                 -EMSGSIZE);
	assert_int_equal(e.at, HJ_CARDLOG_AT_LINE);
	assert_string_equal(e.msg,
	                    "longer than 16777215 bytes: not a card log line");
	free(big);

	/* Each key of the line left out, and of another JSON type. */
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		snprintf(want, sizeof want, "\"%s\": missing", keys[i]);
		refused_free(edit(base, base, keys[i], NULL), ats[i], NULL,
		             want);
		refused_free(edit(base, base, keys[i], "null"), ats[i], NULL,
		             wrong[i]);
	}
	refused_free(edit(base, base, "card", NULL), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\": missing, and no \"void\": true");
	refused_free(edit(base, base, "card", "[]"), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\": not an object");
	/* An event refused: its index, its type, and the line's height. */
	{
		char *x = swap(base, "\"value\":\"123\"", "\"value\":123");

		assert_int_equal(read_refused(x, HJ_EVM, &e), -EINVAL);
		assert_int_equal(e.at, HJ_CARDLOG_AT_EVENT);
		assert_int_equal(e.index, 0);
		assert_int_equal(e.type, HJ_EV_DEPOSIT);
		assert_string_equal(e.key, "value");
		assert_true(e.has_height && e.height == STD_HEIGHT);
		assert_string_equal(e.msg,
		                    "events[0]: \"value\": not a string");
		free(x);
	}

	/* Versions: 1 and 2 read, 0 and 3 not. */
	refused_free(swap(base, "{\"v\":2", "{\"v\":0"), HJ_CARDLOG_AT_V, NULL,
	             "\"v\": not 1 to 2");
	refused_free(swap(base, "{\"v\":2", "{\"v\":3"), HJ_CARDLOG_AT_V, NULL,
	             "\"v\": not 1 to 2");
	refused_free(swap(base, "{\"v\":2", "{\"v\":\"2\""), HJ_CARDLOG_AT_V,
	             NULL, "\"v\": not 1 to 2");
	{
		char *v1 = swap(base, "{\"v\":2", "{\"v\":1");

		read_back(v1, HJ_EVM, &l);
		assert_int_equal(l.version, 1);
		hj_cardlog_line_free(&l);
		free(v1);
	}

	/* The family: its name, its hex form. */
	refused_free(swap(base, "\"evm\"", "\"bitcoin\""), HJ_CARDLOG_AT_CHAIN,
	             NULL, "\"chain\": \"bitcoin\", not \"evm\"");
	assert_int_equal(read_refused(base, HJ_BITCOIN, &e), -EINVAL);
	assert_string_equal(e.msg, "\"chain\": \"evm\", not \"bitcoin\"");
	assert_string_equal(e.shown, "\"evm\"");
	refused_free(swap(base, "\"height\":19000006", "\"height\":-1"),
	             HJ_CARDLOG_AT_HEIGHT, NULL,
	             "\"height\": not a block height");
	refused_free(swap(base, "\"height\":19000006", "\"height\":1.5"),
	             HJ_CARDLOG_AT_HEIGHT, NULL,
	             "\"height\": not a block height");
	refused_free(swap(base, "\"hash\":\"0x", "\"hash\":\""),
	             HJ_CARDLOG_AT_HASH, NULL,
	             "\"hash\": \"" VEC2_H "\": \"0x\" prefix missing");
	refused_free(
	    swap(base, "0x0b6bc2", "0x0B6BC2"), HJ_CARDLOG_AT_HASH, NULL,
	    "\"hash\": \"0x0B6BC2"
	    "9980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e"
	    "\": upper-case hex (the log writes lower case)");
	refused_free(
	    swap(base, "\"parent\":\"0x" GENESIS "\"", "\"parent\":\"0x00\""),
	    HJ_CARDLOG_AT_PARENT, NULL,
	    "\"parent\": \"0x00\": 64 hex digits expected, found 2");

	/* The card: every member, agreeing with the others. */
	for (size_t k = 0; K_CARD[k] != NULL; k++) {
		snprintf(want, sizeof want, "\"card\".\"%s\": missing",
		         K_CARD[k]);
		refused_free(edit(base, card, K_CARD[k], NULL),
		             HJ_CARDLOG_AT_CARD, NULL, want);
	}
	refused_free(edit(base, card, "rank", "\"1\""), HJ_CARDLOG_AT_CARD,
	             NULL, "\"card\".\"rank\": \"1\" is not a rank");
	refused_free(edit(base, card, "suit", "\"Swords\""), HJ_CARDLOG_AT_CARD,
	             NULL, "\"card\".\"suit\": \"Swords\" is not a suit");
	refused_free(edit(base, card, "value", "11"), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"value\": 11 is not 0 to 10");
	refused_free(edit(base, card, "value", "10"), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"value\": 10 is not the value of rank A");
	refused_free(edit(base, card, "code", "\"KS\""), HJ_CARDLOG_AT_CARD,
	             NULL,
	             "\"card\".\"code\": \"KS\" is not the code of the A of "
	             "Spades");
	refused_free(edit(base, card, "code", "\"A\""), HJ_CARDLOG_AT_CARD,
	             NULL,
	             "\"card\".\"code\": \"A\" is not a card code (\"AS\", "
	             "\"10H\", ...)");
	refused_free(edit(base, card, "pos", "0"), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"pos\": 0: the rank digit has a digit on its "
	             "left");
	refused_free(edit(base, card, "pos", "64"), HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"pos\": 64 is not 0 to 63");
	refused_free(edit(base, card, "rankDigit", "\"2\""), HJ_CARDLOG_AT_CARD,
	             NULL,
	             "\"card\".\"rankDigit\": not the lower-case hex digit of "
	             "rank A");
	refused_free(edit(base, card, "colorDigit", "\"c\""),
	             HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"colorDigit\": not a lower-case hex digit "
	             "whose value mod 4 is Spades (3)");
	refused_free(edit(base, card, "colorDigit", "\"B\""),
	             HJ_CARDLOG_AT_CARD, NULL,
	             "\"card\".\"colorDigit\": not a lower-case hex digit "
	             "whose value mod 4 is Spades (3)");
	refused_free(swap(base, "\"events\":[", "\"void\":true,\"events\":["),
	             HJ_CARDLOG_AT_CARD, NULL, "\"void\": beside a card");
	{
		char *v = edit(base, base, "card", NULL);
		char *f =
		    swap(v, "\"events\":[", "\"void\":false,\"events\":[");

		refused_free(f, HJ_CARDLOG_AT_CARD, NULL, "\"void\": not true");
		free(v);
	}

	/* Events: their forms. */
	refused_free(swap(base, "[" DOC_DEPOSIT, "[7"), HJ_CARDLOG_AT_EVENT,
	             NULL, "events[0]: not an object");
	refused_free(swap(base, DOC_DEPOSIT, DOC_DEPOSIT ",[]"),
	             HJ_CARDLOG_AT_EVENT, NULL, "events[1]: not an object");
	refused_free(
	    swap(base, DOC_DEPOSIT,
	         "{\"type\":\"draw\",\"round\":"
	         "\"0x3\"}"),
	    HJ_CARDLOG_AT_EVENT, "round",
	    "events[0]: \"round\": \"0x3\": 64 hex digits expected, found 1");
	{
		static const struct {
			const char *event, *key, *msg;
		} v[] = {
		    {"{\"type\":\"deposit\",\"tx\":\"" T_DEP "\",\"txIndex\":0,"
		     "\"from\":\"0x" T_DEP_H "\",\"value\":\"1\"}",
		     "from",
		     "events[0]: \"from\": \"0x" T_DEP_H
		     "\": 40 hex digits expected, found 64"},
		    {"{\"type\":\"deposit\",\"tx\":\"" T_DEP
		     "\",\"txIndex\":4294967296,\"value\":\"1\"}",
		     "txIndex",
		     "events[0]: \"txIndex\": 4294967296 is not 0 to "
		     "4294967295"},
		    {"{\"type\":\"deposit\",\"tx\":\"" T_DEP
		     "\",\"txIndex\":-1,\"value\":\"1\"}",
		     "txIndex",
		     "events[0]: \"txIndex\": -1 is not 0 to 4294967295"},
		    {"{\"type\":\"deposit\",\"tx\":\"" T_DEP
		     "\",\"txIndex\":0,\"value\":\"012\"}",
		     "value",
		     "events[0]: \"value\": \"012\" is not an amount (decimal "
		     "digits, no sign or leading zero, below 2^128)"},
		    {"{\"type\":\"deposit\",\"tx\":\"" T_DEP
		     "\",\"txIndex\":0,\"value\":"
		     "\"340282366920938463463374607431768211456\"}",
		     "value",
		     "events[0]: \"value\": "
		     "\"340282366920938463463374607431768211456\" is not an "
		     "amount (decimal digits, no sign or leading zero, below "
		     "2^128)"},
		    {"{\"type\":\"action\",\"action\":\"Fold\",\"round\":"
		     "\"" R_BET "\"}",
		     "action",
		     "events[0]: \"action\": \"Fold\" is not an action "
		     "(\"Bet\" "
		     ".. \"Commit\")"},
		    {"{\"type\":\"timeout\",\"round\":\"" R_BET
		     "\",\"action\":\"Stand\",\"handIndex\":4}",
		     "handIndex", "events[0]: \"handIndex\": 4 is not 0 to 3"},
		    {"{\"type\":\"draw\",\"round\":\"" R_BET
		     "\",\"handOwner\":\"House\",\"card\":\"AS\"}",
		     "handOwner",
		     "events[0]: \"handOwner\": \"House\" is not \"Player\" or "
		     "\"Dealer\""},
		    {"{\"type\":\"draw\",\"round\":\"" R_BET
		     "\",\"handOwner\":\"Dealer\",\"handIndex\":0,\"card\":"
		     "\"AS\"}",
		     "handIndex",
		     "events[0]: \"handIndex\": given for the dealer"},
		    {"{\"type\":\"skip\",\"round\":\"" R_BET
		     "\",\"card\":\"1S\"}",
		     "card",
		     "events[0]: \"card\": \"1S\" is not a card code (\"AS\", "
		     "\"10H\", ...)"},
		    {"{\"type\":\"skip\",\"round\":\"" R_BET
		     "\",\"card\":\"AS \"}",
		     "card",
		     "events[0]: \"card\": \"AS \" is not a card code (\"AS\", "
		     "\"10H\", ...)"},
		};

		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
			refused_free(swap(base, DOC_DEPOSIT, v[i].event),
			             HJ_CARDLOG_AT_EVENT, v[i].key, v[i].msg);
	}

	/* A settle's hands and a sidebets' bets, inside. */
	{
		char *line = swap(base, DOC_DEPOSIT, DOC_SETTLE_SPLIT);
		const char *ev = element(member(line, "events"), 0);
		const char *hands = member(ev, "playerHands");
		const char *h0 = element(hands, 0);
		char *t;

		read_back(line, HJ_EVM, &l);
		hj_cardlog_line_free(&l);
		refused_free(
		    edit(line, member(ev, "dealerHand"), "total", "20"),
		    HJ_CARDLOG_AT_EVENT, "dealerHand",
		    "events[0]: \"dealerHand\".\"total\": 20 is not the "
		    "total of the cards");
		refused_free(
		    edit(line, member(ev, "dealerHand"), "cards",
		         "[\"10H\",\"ZZ\"]"),
		    HJ_CARDLOG_AT_EVENT, "dealerHand",
		    "events[0]: \"dealerHand\".\"cards\"[1]: \"ZZ\" is "
		    "not a card code (\"AS\", \"10H\", ...)");
		refused_free(
		    edit(line, member(ev, "dealerHand"), "cards", "{}"),
		    HJ_CARDLOG_AT_EVENT, "dealerHand",
		    "events[0]: \"dealerHand\".\"cards\": not an array");
		refused_free(
		    edit(line, h0, "handIndex", "1"), HJ_CARDLOG_AT_EVENT,
		    "playerHands",
		    "events[0]: \"playerHands\"[0].\"handIndex\": 1, not "
		    "its index 0");
		refused_free(
		    edit(line, h0, "status", "\"Won\""), HJ_CARDLOG_AT_EVENT,
		    "playerHands",
		    "events[0]: \"playerHands\"[0].\"status\": \"Won\" is "
		    "not a hand's status");
		refused_free(
		    edit(line, h0, "status", "\"None\""), HJ_CARDLOG_AT_EVENT,
		    "playerHands",
		    "events[0]: \"playerHands\"[0].\"status\": \"None\" "
		    "is not a hand's status");
		refused_free(
		    edit(line, h0, "payout", NULL), HJ_CARDLOG_AT_EVENT,
		    "playerHands",
		    "events[0]: \"playerHands\"[0].\"payout\": missing");
		t = edit(line, ev, "playerHands", "[7]");
		refused_free(t, HJ_CARDLOG_AT_EVENT, "playerHands",
		             "events[0]: \"playerHands\"[0]: not an object");
		t = edit(line, ev, "playerHands", "[{},{},{},{},{}]");
		refused_free(t, HJ_CARDLOG_AT_EVENT, "playerHands",
		             "events[0]: \"playerHands\": more than 4 hands");
		t = edit(
		    line, member(ev, "dealerHand"), "cards",
		    "[\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\","
		    "\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\","
		    "\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\",\"AS\","
		    "\"AS\"]");
		refused_free(
		    t, HJ_CARDLOG_AT_EVENT, "dealerHand",
		    "events[0]: \"dealerHand\".\"cards\": more than 24 "
		    "cards");
		free(line);

		line = swap(base, DOC_DEPOSIT, DOC_SIDEBETS);
		ev = element(member(line, "events"), 0);
		refused_free(
		    edit(line, member(ev, "poker"), "status", "\"none\""),
		    HJ_CARDLOG_AT_EVENT, "poker",
		    "events[0]: \"poker\".\"status\": \"none\" is not a "
		    "side bet's status");
		refused_free(
		    edit(line, member(ev, "perfectPairs"), "betAmount", NULL),
		    HJ_CARDLOG_AT_EVENT, "perfectPairs",
		    "events[0]: \"perfectPairs\".\"betAmount\": missing");
		free(line);
	}

	/* What a later feature may add within a version reads: a member, an
	 * event type, a reason word (docs/LOG.md, "Stability"). */
	{
		char *a =
		    swap(base, "\"height\"", "\"later\":[1,{}],\"height\"");
		char *b = swap(a, DOC_DEPOSIT,
		               "{\"type\":\"jackpot\",\"round\":7},"
		               "{\"type\":\"reject\",\"tx\":\"" T_REJ3
		               "\",\"txIndex\":3,\"reason\":\"too_early\","
		               "\"refund\":\"5\",\"note\":\"x\"}");

		read_back(b, HJ_EVM, &l);
		assert_int_equal(l.nevents, 2);
		assert_int_equal(l.events[0].type, HJ_CARDLOG_EV_UNKNOWN);
		assert_int_equal(l.events[0].has_round, 0);
		assert_int_equal(l.events[1].type, HJ_EV_REJECT);
		assert_int_equal(l.events[1].reason, HJ_R_COUNT);
		assert_true(l.events[1].refund == 5);
		hj_cardlog_line_free(&l);
		free(a);
		free(b);
	}

	/* The Bitcoin family's forms: no "0x", keys of 32 bytes. */
	{
		static const char btc[] =
		    "{\"v\":2,\"chain\":\"bitcoin\",\"height\":0,\"hash\":"
		    "\"" GENESIS "\",\"parent\":\"" Z60
		    "0000\",\"void\":true,\"events\":["
		    "{\"type\":\"deposit\",\"tx\":\"" T_DEP_H
		    "\",\"txIndex\":0,\"from\":\"" R_PEEK_H
		    "\",\"value\":\"5\"}]}";
		char *x;

		read_back(btc, HJ_BITCOIN, &l);
		assert_int_equal(l.events[0].from.len, 32);
		hj_cardlog_line_free(&l);
		x = swap(btc, "\"from\":\"" R_PEEK_H, "\"from\":\"0x" R_PEEK_H);
		assert_int_equal(read_refused(x, HJ_BITCOIN, &e), -EINVAL);
		assert_string_equal(e.msg,
		                    "events[0]: \"from\": \"0x" R_PEEK_H
		                    "\": 'x' at offset 1 is not a hex digit");
		free(x);
		x = swap(btc, "\"from\":\"" R_PEEK_H,
		         "\"from\":\"" T_DEP_H "00");
		assert_int_equal(read_refused(x, HJ_BITCOIN, &e), -EINVAL);
		assert_string_equal(e.key, "from");
		free(x);
	}
}

/* A line's height: from the writer's own first members without reading
 * the rest, from any JSON object otherwise, and none where there is none. */
static void test_cardlog_height(void **state)
{
	static const struct {
		const char *line;
		int rc;
		uint64_t height;
	} cases[] = {
	    /* the writer's form: the rest is not read */
	    {"{\"v\":1,\"chain\":\"evm\",\"height\":42,\"hash\":", 0, 42},
	    {"{\"v\":2,\"chain\":\"bitcoin\",\"height\":0,", 0, 0},
	    {"{\"v\":1,\"chain\":\"evm\",\"height\":999999999999999999,", 0,
	     999999999999999999ull},
	    /* another order or spacing: parsed as JSON */
	    {"{\"height\":7,\"v\":1}", 0, 7},
	    {"{ \"v\":1, \"chain\":\"evm\", \"height\":8 }", 0, 8},
	    /* a leading zero or 19 digits leave the fast path: then JSON */
	    {"{\"v\":1,\"chain\":\"evm\",\"height\":07,", -1, 0},
	    {"{\"v\":1,\"chain\":\"evm\",\"height\":1000000000000000000}", 0,
	     1000000000000000000ull},
	    /* none */
	    {"{\"v\":1,\"chain\":\"evm\"}", -1, 0},
	    {"{\"height\":-1}", -1, 0},
	    {"{\"height\":\"5\"}", -1, 0},
	    {"[5]", -1, 0},
	    {"", -1, 0},
	    {"not json", -1, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t h = 12345;
		int rc =
		    hj_cardlog_height(cases[i].line, strlen(cases[i].line), &h);
		assert_int_equal(rc, cases[i].rc);
		if (rc == 0)
			assert_int_equal(h, cases[i].height);
		else
			assert_int_equal(h, 12345);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cardlog_void_block),
	    cmocka_unit_test(test_cardlog_cards),
	    cmocka_unit_test(test_cardlog_doc_events),
	    cmocka_unit_test(test_cardlog_doc_values),
	    cmocka_unit_test(test_cardlog_actions_more),
	    cmocka_unit_test(test_cardlog_reject_reasons),
	    cmocka_unit_test(test_cardlog_deposit_ignored),
	    cmocka_unit_test(test_cardlog_settle),
	    cmocka_unit_test(test_cardlog_many_events),
	    cmocka_unit_test(test_cardlog_bitcoin_form),
	    cmocka_unit_test(test_cardlog_heights),
	    cmocka_unit_test(test_cardlog_cap_exact),
	    cmocka_unit_test(test_cardlog_cap_default),
	    cmocka_unit_test(test_cardlog_errors),
	    cmocka_unit_test(test_cardlog_read_each_key),
	    cmocka_unit_test(test_cardlog_read_refusals),
	    cmocka_unit_test(test_cardlog_height),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
