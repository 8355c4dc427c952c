#include "engine_util.h"

#include <stdlib.h>
#include <string.h>

hj_rules rules_preset(const char *name)
{
	hj_rules r;
	if (hj_rules_preset(name, &r))
		abort();
	r.min_bet = 1;
	r.max_bet = (hj_amount)1000000000000000ull * 1000000000000000ull;
	r.timeout_blocks = 100;
	return r;
}

hj_rules rules_bethash(void)
{
	return rules_preset("bethash");
}

void fx_init(fx *f, const hj_rules *rules)
{
	memset(f, 0, sizeof *f);
	if (hj_table_new(rules, &f->t) != 0)
		abort();
	f->height = 1000;
}

void fx_free(fx *f)
{
	hj_table_free(f->t);
	free(f->ev);
}

static void record(void *ctx, const hj_event *e)
{
	fx *f = ctx;
	if (f->nev == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->ev = realloc(f->ev, f->cap * sizeof *f->ev);
		if (!f->ev)
			abort();
	}
	ev_rec *r = &f->ev[f->nev++];
	memset(r, 0, sizeof *r);
	r->type = e->type;
	r->act = e->act;
	r->hand = e->hand;
	r->card = e->card;
	r->reason = e->reason;
	r->amount = e->amount;
	if (e->tx) {
		r->player = e->tx->sender.b[0];
		r->tx_index = e->tx->tx_index;
	}
	if (e->round) {
		r->has_round = 1;
		r->round = *e->round;
		r->player = e->round->player.b[0];
	}
	if (e->settle)
		r->st = *e->settle;
	if (e->side)
		r->side = *e->side;
	r->dealer_bj = e->dealer_bj;
}

void fx_block(fx *f, uint8_t card, hj_action *txs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		txs[i].txid.len = 32;
		memset(txs[i].txid.b, 0, 32);
		uint32_t s = ++f->txseq;
		memcpy(txs[i].txid.b, &s, sizeof s);
		txs[i].txid.b[31] = txs[i].sender.b[0];
	}
	fx_block_ids(f, card, txs, n);
}

void fx_block_ids(fx *f, uint8_t card, hj_action *txs, size_t n)
{
	hj_card c = {0};
	if (card) {
		c.rank = (uint8_t)hj_code_rank(card);
		c.suit = (uint8_t)hj_code_suit(card);
	}
	for (size_t i = 0; i < n; i++)
		txs[i].tx_index = (uint32_t)i;
	f->nev = 0;
	if (hj_table_apply_block(f->t, f->height, &c, txs, n, record, f) != 0)
		abort();
	f->height++;
}

static hj_action tx_base(uint8_t player, hj_amount value)
{
	hj_action a;
	memset(&a, 0, sizeof a);
	a.sender.len = 20;
	a.sender.b[0] = player;
	a.sender.b[19] = 0xee;
	a.value = value;
	return a;
}

hj_action tx_bet(uint8_t player, hj_amount value)
{
	return tx_act(player, HJ_BET, value);
}

hj_action tx_act(uint8_t player, hj_act act, hj_amount value)
{
	hj_action a = tx_base(player, value);
	a.kind = HJ_TX_ACTION;
	a.act = act;
	return a;
}

hj_action tx_peek(uint8_t player, int insurance, hj_amount value)
{
	hj_action a = tx_act(player, HJ_PEEK, value);
	a.insurance = (uint8_t)insurance;
	return a;
}

hj_action tx_malformed(uint8_t player, hj_act act, hj_reason why,
                       hj_amount value)
{
	hj_action a = tx_base(player, value);
	a.kind = HJ_TX_MALFORMED;
	a.act = act;
	a.reason = why;
	return a;
}

hj_action tx_deposit(uint8_t player, hj_amount value)
{
	hj_action a = tx_base(player, value);
	a.kind = HJ_TX_DEPOSIT;
	return a;
}

hj_action tx_failed(uint8_t player, hj_amount value)
{
	hj_action a = tx_base(player, value);
	a.kind = HJ_TX_FAILED;
	return a;
}

hj_action tx_bet_side(uint8_t player, hj_amount value, uint64_t pp, uint64_t t3)
{
	hj_action a = tx_bet(player, value);
	a.side_pp = pp;
	a.side_t3 = t3;
	return a;
}

const ev_rec *fx_find(const fx *f, hj_ev type, size_t nth)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].type == type && nth-- == 0)
			return &f->ev[i];
	return NULL;
}

size_t fx_count(const fx *f, hj_ev type)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nev; i++)
		n += f->ev[i].type == type;
	return n;
}

const hj_round *fx_round(const fx *f, uint8_t player)
{
	for (size_t i = 0; i < hj_table_count(f->t); i++) {
		const hj_round *r = hj_table_round(f->t, i);
		if (r->player.b[0] == player)
			return r;
	}
	return NULL;
}
