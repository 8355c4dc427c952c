/*
 * The round codec (game/serial.c), the daemon's database rows: a decoded
 * round must be one the engine could have produced, and the engine must be
 * able to continue from it.  The input is a round's encoding (after a
 * 2-byte length), a rule set (two bytes: preset and keys), then a script of
 * blocks: each a card or a void block and up to two transactions of the
 * round's player or another.  Checked:
 *
 * - what decodes encodes back to the same bytes (the form is canonical),
 *   or for a version 1 row to a version 2 row of the same round;
 * - the table takes the round and plays the script without a sanitizer
 *   report; every event names a hand the round has;
 * - after every block, every open round encodes to bytes that decode
 *   again (the engine only makes states the codec accepts);
 * - a settlement returns at most the worst case of its bet under the most
 *   generous variation of the rules (hj_rules_worst_return); the script
 *   may open new rounds once the decoded one settles.
 */
#include "fuzz.h"

#include "card.h"
#include "round.h"
#include "rules.h"
#include "say.h"
#include "table.h"

struct seen {
	hj_rules wide; /* the most generous variation of the table's rules */
};

static void on_event(void *ctx, const hj_event *ev)
{
	struct seen *s = ctx;
	const hj_round *r = ev->round;

	if (ev->type == HJ_EV_DRAW)
		FUZZ_CHECK(ev->hand == HJ_DEALER ||
		           (r && ev->hand >= 0 && ev->hand < r->nhands));
	if ((ev->type == HJ_EV_ACTION || ev->type == HJ_EV_TIMEOUT) && r)
		FUZZ_CHECK(ev->hand >= -1 && ev->hand < r->nhands);
	if (ev->type == HJ_EV_SETTLE) {
		FUZZ_CHECK(r && ev->settle);
		FUZZ_CHECK(ev->settle->total_ret <=
		           hj_rules_worst_return(&s->wide, r->bet, 0, 0));
	}
	if (ev->type == HJ_EV_SIDE) {
		FUZZ_CHECK(r && ev->side && (r->side_pp || r->side_t3));
		FUZZ_CHECK(ev->side->pp_ret + ev->side->t3_ret <=
		           hj_rules_worst_return(&s->wide, r->bet, r->side_pp,
		                                 r->side_t3) -
		               hj_rules_worst_return(&s->wide, r->bet, 0, 0));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint8_t enc[HJ_ROUND_ENCODED_MAX], again[HJ_ROUND_ENCODED_MAX];
	size_t len = (size_t)fuzz_u8(&in) << 8 | fuzz_u8(&in), n;
	hj_round r, back;
	hj_rules ru;
	hj_table *t;
	struct seen seen = {0};
	char err[HJ_ERRLEN] = "";
	unsigned v;

	if (len > in.n)
		len = in.n;
	if (hj_round_decode(in.p, len, &r, err, sizeof err) != 0) {
		FUZZ_CHECK(err[0] != '\0');
		return 0;
	}
	in.p += len;
	in.n -= len;
	n = hj_round_encode(&r, enc);
	if (data[2] == HJ_ROUND_CODEC_VERSION) {
		FUZZ_CHECK(n == len && memcmp(enc, data + 2, n) == 0);
	} else {
		/* A version 1 row is written back as version 2, which
		 * decodes to the same round. */
		FUZZ_CHECK(hj_round_decode(enc, n, &back, err, sizeof err) ==
		           0);
		FUZZ_CHECK(memcmp(&back, &r, sizeof r) == 0);
	}

	/* A rule set: a preset (one byte), its keys varied by another. */
	v = fuzz_u8(&in);
	FUZZ_CHECK(hj_rules_preset(hj_preset_names[v % 3], &ru) == 0);
	if (v & 4)
		ru.peek = (uint8_t)((v >> 3) % 3);
	if (v & 32)
		ru.surrender = (uint8_t)((v >> 6) % 3);
	v = fuzz_u8(&in);
	ru.h17 = v & 1;
	ru.double_on = (uint8_t)((v >> 1) % 3);
	ru.double_after_split = (v >> 2) & 1;
	ru.max_hands = (uint8_t)(1 + ((v >> 3) & 3));
	ru.split_aces = (v >> 5) & 1;
	ru.split_by_value = (v >> 6) & 1;
	ru.hit_split_aces = (v >> 7) & 1;
	ru.split21_bj = (v >> 1) & 1;
	FUZZ_CHECK(hj_rules_set_key(&ru, "perfect_pairs", "25,12,5", NULL, 0) ==
	           0);
	FUZZ_CHECK(hj_rules_set_key(&ru, "twenty_one_plus_three",
	                            "100,40,30,10,5", NULL, 0) == 0);
	ru.min_bet = 1;
	ru.max_bet = HJ_MAX_BET;
	ru.timeout_blocks = 2;
	ru.max_exposure = 0;
	FUZZ_CHECK(hj_rules_check(&ru, NULL, 0) == 0);
	/* The decoded round may come from any rule set with this payout
	 * table: its worst case is that of the most generous one. */
	seen.wide = ru;
	seen.wide.peek = HJ_PEEK_ACE;
	seen.wide.double_after_split = 1;
	seen.wide.max_hands = HJ_MAX_HANDS;
	seen.wide.split21_bj = 1;

	FUZZ_CHECK(hj_table_new(&ru, &t) == 0);
	FUZZ_CHECK(hj_table_restore(t, &r) == 0);
	/* Resume where the round may stand: at its window, and at least as
	 * many blocks after its Bet as its deal needs (void blocks may have
	 * come between: any later height is one the daemon could resume at).
	 * No chain comes near 2^64 blocks, where heights would wrap. */
	if (r.bet_height > UINT64_MAX / 2 || r.window_open > UINT64_MAX / 2) {
		hj_table_free(t);
		return 0;
	}
	uint64_t h = r.bet_height + 3;
	if (r.window_open > h)
		h = r.window_open;
	hj_table_set_last_height(t, h);

	for (int blk = 0; blk < 40 && in.n > 0; blk++) {
		uint8_t c = fuzz_u8(&in), ntx = fuzz_u8(&in) % 3;
		hj_card card = {0};
		hj_action txs[2];

		if (c < 0xd0) { /* 13 ranks x 4 suits x 4; the rest void */
			card.rank = (uint8_t)(1 + c % 13);
			card.suit = (uint8_t)((c / 13) % 4);
		}
		memset(txs, 0, sizeof txs);
		for (unsigned k = 0; k < ntx; k++) {
			uint8_t a = fuzz_u8(&in), w = fuzz_u8(&in);
			hj_action *x = &txs[k];

			x->kind = HJ_TX_ACTION;
			x->act = (hj_act)(1 + a % 7);
			if (x->act == HJ_BET && (a & 0x40)) {
				x->side_pp = w & 0x0f;
				x->side_t3 = w >> 4;
			}
			x->insurance = (a >> 3) & 1;
			x->tx_index = k;
			x->txid.len = 32;
			x->txid.b[0] = (uint8_t)blk;
			x->txid.b[1] = (uint8_t)k;
			x->txid.b[2] = 0xf0;
			/* The round's player, or another one. */
			x->sender =
			    (a & 0x80) ? (hj_id){.len = 1, .b = {7}} : r.player;
			switch (w % 5) {
			case 0:
				x->value = 0;
				break;
			case 1:
				x->value = r.bet;
				break;
			case 2:
				x->value = r.bet / 2;
				break;
			case 3:
				x->value = 2 * r.bet;
				break;
			default:
				x->value = fuzz_u64(&in);
				break;
			}
		}
		FUZZ_CHECK(hj_table_apply_block(t, ++h, &card, txs, ntx,
		                                on_event, &seen) == 0);
		for (size_t i = 0; i < hj_table_count(t); i++) {
			n = hj_round_encode(hj_table_round(t, i), again);
			if (hj_round_decode(again, n, &back, err, sizeof err)) {
				fprintf(stderr, "block %d: %s\n", blk, err);
				FUZZ_CHECK(!"the engine made a round the codec "
				            "refuses");
			}
		}
	}
	hj_table_free(t);
	return 0;
}
