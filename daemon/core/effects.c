/* What an event leaves in the store (see effects.h). */
#include "effects.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "amount.h"
#include "hex.h"
#include "reason.h"

static const char *outcome_of(hj_ev t)
{
	switch (t) {
	case HJ_EV_ACTION:
	case HJ_EV_COMMIT:
		return "accepted";
	case HJ_EV_REJECT:
		return "rejected";
	case HJ_EV_DEPOSIT:
		return "deposit";
	default:
		return "ignored";
	}
}

static const hj_id *refund_to(const hj_event *ev)
{
	if (ev->tx->sender.len > 0)
		return &ev->tx->sender;
	if (ev->round)
		return &ev->round->player;
	return NULL;
}

/* The next payout of out, its id written from fmt; fields zeroed but for
 * hand, which is -1 (not a hand's). */
__attribute__((format(printf, 2, 3))) static hj_payout *
next_payout(hj_effects *out, const char *fmt, ...)
{
	size_t i = out->npayouts++;
	hj_payout *p = &out->payouts[i];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->id[i], sizeof out->id[i], fmt, ap);
	va_end(ap);
	memset(p, 0, sizeof *p);
	p->id = out->id[i];
	p->hand = -1;
	return p;
}

/* A side bet's return, when it won. */
static void side_payout(hj_effects *out, const hj_event *ev, const char *hex,
                        const char *bet, hj_amount ret, uint64_t height)
{
	hj_payout *p;

	if (ret == 0)
		return;
	p = next_payout(out, "sidebet:%s:%s", hex, bet);
	p->kind = "sidebet";
	p->round = &ev->round->id;
	p->recipient = &ev->round->player;
	p->amount = ret;
	p->height = height;
}

void hj_effects_of(const hj_event *ev, uint64_t height, hj_effects *out)
{
	char hex[2 * sizeof ev->tx->txid.b + 1];
	hj_payout *p;

	memset(out, 0, sizeof *out);
	switch (ev->type) {
	case HJ_EV_ACTION:
	case HJ_EV_REJECT:
	case HJ_EV_DEPOSIT:
	case HJ_EV_IGNORED:
	case HJ_EV_COMMIT:
		out->has_tx = 1;
		out->tx =
		    (hj_tx_row){.tx = ev->tx,
		                .outcome = outcome_of(ev->type),
		                .reason = ev->reason,
		                .round = ev->round ? &ev->round->id : NULL};
		if (ev->type == HJ_EV_COMMIT)
			out->commit = ev->commit;
		if (ev->type == HJ_EV_REJECT && ev->act != ev->tx->act) {
			out->judged = *ev->tx;
			out->judged.act = ev->act;
			out->tx.tx = &out->judged;
		}
		if (ev->type != HJ_EV_REJECT || ev->amount == 0)
			return;
		hj_hex_encode(ev->tx->txid.b, ev->tx->txid.len, 0, hex);
		p = next_payout(out, "refund:%s", hex);
		p->kind = "refund";
		p->round = ev->round ? &ev->round->id : NULL;
		p->txid = &ev->tx->txid;
		p->recipient = refund_to(ev);
		p->amount = ev->amount;
		p->height = height;
		return;
	case HJ_EV_SETTLE:
		hj_hex_encode(ev->round->id.b, ev->round->id.len, 0, hex);
		for (int i = 0; i < ev->round->nhands; i++) {
			if (ev->settle->ret[i] == 0)
				continue;
			p = next_payout(out, "return:%s:%d", hex, i);
			p->kind = "return";
			p->round = &ev->round->id;
			p->hand = i;
			p->recipient = &ev->round->player;
			p->amount = ev->settle->ret[i];
			p->height = height;
		}
		if (ev->settle->ins_ret) {
			p = next_payout(out, "insurance:%s", hex);
			p->kind = "insurance";
			p->round = &ev->round->id;
			p->recipient = &ev->round->player;
			p->amount = ev->settle->ins_ret;
			p->height = height;
		}
		return;
	case HJ_EV_SIDE:
		hj_hex_encode(ev->round->id.b, ev->round->id.len, 0, hex);
		side_payout(out, ev, hex, "perfectpairs", ev->side->pp_ret,
		            height);
		side_payout(out, ev, hex, "poker", ev->side->t3_ret, height);
		return;
	case HJ_EV_DRAW:
	case HJ_EV_PEEK:
	case HJ_EV_SKIP:
	case HJ_EV_TIMEOUT:
		return;
	}
}

/* What becomes of a rejected transaction's value (hj_effects_of's
 * refund). */
static void refund_text(const hj_event *ev, char *buf, size_t n)
{
	char amount[HJ_AMOUNT_STRLEN];

	if (ev->amount == 0)
		snprintf(buf, n, "nothing to refund (no value)");
	else
		snprintf(buf, n, "refund %s owed%s",
		         hj_amount_format(ev->amount, amount),
		         refund_to(ev)
		             ? ""
		             : ", unattributed (no key to pay it to)");
}

int hj_effects_line(const hj_event *ev, uint64_t height, int fam_0x, char *buf,
                    size_t n)
{
	char tx[2 * sizeof ev->tx->txid.b + 3];
	char round[2 * sizeof ev->round->id.b + 3];
	char amount[HJ_AMOUNT_STRLEN], refund[96];

	if (ev->tx)
		hj_hex_encode(ev->tx->txid.b, ev->tx->txid.len, fam_0x, tx);
	if (ev->round)
		hj_hex_encode(ev->round->id.b, ev->round->id.len, fam_0x,
		              round);
	switch (ev->type) {
	case HJ_EV_ACTION:
		snprintf(buf, n,
		         "block %" PRIu64 ": tx %s: %s accepted, round %s, "
		         "stake %s",
		         height, tx, hj_act_name(ev->act), round,
		         hj_amount_format(ev->amount, amount));
		return 0;
	case HJ_EV_REJECT:
		refund_text(ev, refund, sizeof refund);
		/* A payload too broken to name its action (the payload's
		 * checks of docs/PROTOCOL.md section 9.2) is no action
		 * "none". */
		if (ev->act == HJ_ACT_NONE)
			snprintf(buf, n,
			         "block %" PRIu64 ": tx %s: its payload could "
			         "not be read as an action (%s): rejected, %s",
			         height, tx, hj_reason_name(ev->reason),
			         refund);
		else
			snprintf(buf, n,
			         "block %" PRIu64
			         ": tx %s: %s rejected (%s), %s",
			         height, tx, hj_act_name(ev->act),
			         hj_reason_name(ev->reason), refund);
		return 1;
	case HJ_EV_COMMIT:
		snprintf(buf, n,
		         "block %" PRIu64 ": tx %s: Commit accepted: %" PRIu32
		         " seeds from block %" PRIu64,
		         height, tx, ev->commit->length, ev->commit->start);
		return 1;
	case HJ_EV_DEPOSIT:
		snprintf(buf, n,
		         "block %" PRIu64 ": tx %s: deposit of %s (no magic), "
		         "not refunded",
		         height, tx, hj_amount_format(ev->tx->value, amount));
		return 1;
	case HJ_EV_IGNORED:
		snprintf(buf, n,
		         "block %" PRIu64 ": tx %s: failed receipt, ignored",
		         height, tx);
		return 0;
	case HJ_EV_TIMEOUT:
		snprintf(buf, n,
		         "block %" PRIu64 ": round %s: timeout, %s applied",
		         height, round, hj_act_name(ev->act));
		return 0;
	case HJ_EV_SETTLE:
		snprintf(buf, n,
		         "block %" PRIu64 ": round %s settled, payout %s",
		         height, round,
		         hj_amount_format(ev->settle->total_ret, amount));
		return 0;
	case HJ_EV_SIDE:
		snprintf(buf, n,
		         "block %" PRIu64 ": round %s: side bets settled, "
		         "payout %s",
		         height, round,
		         hj_amount_format(ev->side->pp_ret + ev->side->t3_ret,
		                          amount));
		return 0;
	case HJ_EV_DRAW:
	case HJ_EV_PEEK:
	case HJ_EV_SKIP:
		break;
	}
	if (n)
		buf[0] = 0;
	return -1;
}
