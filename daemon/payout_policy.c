/*
 * The payers' policy (payout_policy.h): pure functions of plain values.
 */
#include "payout_policy.h"

#include <stdlib.h>
#include <string.h>

#include "btc.h"
#include "say.h"

/* ---- the Bitcoin family ---- */

static int owed_cmp(const void *x, const void *y)
{
	const hj_owed_payout *a = x, *b = y;
	int c = memcmp(a->recipient.b, b->recipient.b, 32);

	if (c)
		return c;
	if (a->height != b->height)
		return a->height < b->height ? -1 : 1;
	return strcmp(a->id, b->id);
}

static int group_cmp(const void *x, const void *y)
{
	const hjd_btc_group *a = x, *b = y;

	if (a->height != b->height)
		return a->height < b->height ? -1 : 1;
	return strcmp(a->addr, b->addr);
}

static int same_recipient(const hj_owed_payout *a, const hj_owed_payout *b)
{
	return memcmp(a->recipient.b, b->recipient.b, 32) == 0;
}

int hjd_btc_is_sweep(const char *id)
{
	return strncmp(id, "sweep:", 6) == 0;
}

/* A group of one sweep, v[i]: payable (ngrp grows), waiting below dust,
 * or unpayable. */
static void sweep_group(const hj_owed_payout *v, size_t i,
                        const hjd_btc_policy *pol, hjd_btc_group *x,
                        hjd_btc_plan *out, size_t *ngrp)
{
	char why[HJ_ERRLEN];

	memset(x, 0, sizeof *x);
	x->first = i;
	x->n = 1;
	x->height = v[i].height;
	x->sum = v[i].amount;
	if (pol->sweep_len == 0 || v[i].recipient.len != pol->sweep_len ||
	    memcmp(v[i].recipient.b, pol->sweep, pol->sweep_len) != 0 ||
	    x->sum == 0 || x->sum > HJD_BTC_OUTPUT_MAX ||
	    hj_btc_sweep_address(pol->hrp, pol->sweep, pol->sweep_len, x->addr,
	                         why, sizeof why)) {
		out->unpayable_n++;
		return;
	}
	if (x->sum < pol->dust) {
		out->dust_n++;
		out->dust_sum += x->sum;
		return;
	}
	out->payable += x->sum;
	(*ngrp)++;
}

void hjd_btc_plan_owed(hj_owed_payout *v, size_t n, const hjd_btc_policy *pol,
                       hjd_btc_group *groups, hjd_btc_plan *out)
{
	size_t m = 0, ns = 0, ngrp = 0;
	char why[HJ_ERRLEN];

	memset(out, 0, sizeof *out);
	/* The payouts to 32-byte keys to the front, then the sweeps; the
	 * others stay behind them, the caller's all the same. */
	for (size_t i = 0; i < n; i++) {
		hj_owed_payout t;

		if (v[i].recipient.len == 0)
			continue; /* unattributed: never paid automatically */
		if (hjd_btc_is_sweep(v[i].id) || v[i].recipient.len != 32)
			continue;
		t = v[m];
		v[m++] = v[i];
		v[i] = t;
	}
	for (size_t i = m; i < n; i++) {
		hj_owed_payout t;

		if (v[i].recipient.len == 0)
			continue;
		if (!hjd_btc_is_sweep(v[i].id)) {
			out->unpayable_n++;
			continue;
		}
		t = v[m + ns];
		v[m + ns++] = v[i];
		v[i] = t;
	}
	if (m > 1)
		qsort(v, m, sizeof *v, owed_cmp);
	for (size_t i = 0; i < m;) {
		hjd_btc_group *x = &groups[ngrp]; /* reused when not payable */
		size_t j = i;

		memset(x, 0, sizeof *x);
		x->first = i;
		x->height = v[i].height;
		/* x->sum stays within the cap, so the cap minus it cannot
		 * wrap round, where x->sum + amount could. */
		while (j < m && same_recipient(&v[j], &v[i])) {
			if (v[j].amount > HJD_BTC_OUTPUT_MAX - x->sum)
				break; /* the rest waits for the next batch */
			x->sum += v[j].amount;
			j++;
		}
		if (j == i) /* one payout above the cap: never payable */
			j++;
		x->n = j - i;
		while (j < m && same_recipient(&v[j], &v[i]))
			j++;
		i = j;
		if (x->sum == 0 ||
		    hj_taproot_address(pol->secp, v[x->first].recipient.b,
		                       pol->hrp, x->addr, why, sizeof why)) {
			out->unpayable_n += x->n;
			continue;
		}
		if (x->sum < pol->dust) {
			out->dust_n += x->n;
			out->dust_sum += x->sum;
			continue;
		}
		out->payable += x->sum;
		ngrp++;
	}
	for (size_t k = 0; k < ns; k++)
		sweep_group(v, m + k, pol, &groups[ngrp], out, &ngrp);
	/* Oldest debts first. */
	if (ngrp > 1)
		qsort(groups, ngrp, sizeof *groups, group_cmp);
	out->ngroups = ngrp;
	out->nbatch = ngrp;
	if (ngrp > pol->max_outputs) {
		out->more = 1;
		out->nbatch = pol->max_outputs;
	}
}

/* ---- EVM: the next transaction ---- */

int hjd_evm_pick_take(hjd_evm_pick *k, const hj_owed_payout *o)
{
	if (o->recipient.len != HJ_EVM_ADDR_LEN)
		return 0;
	for (size_t i = 0; i < k->nskip; i++)
		if (memcmp(k->skip[i], o->recipient.b, HJ_EVM_ADDR_LEN) == 0)
			return 0;
	if (k->held && k->held(k->held_arg, o->recipient.b))
		return 0;
	if (k->have_to && memcmp(k->to, o->recipient.b, HJ_EVM_ADDR_LEN) != 0)
		return 0;
	if (o->amount > HJ_AMOUNT_MAX - k->value)
		return 0; /* the rest next time */
	if (!k->have_to) {
		memcpy(k->to, o->recipient.b, HJ_EVM_ADDR_LEN);
		k->have_to = 1;
	}
	k->value += o->amount;
	return 1;
}

/* ---- EVM: small refunds ---- */

hj_amount hjd_evm_min_refund(int is_auto, hj_amount fixed, hj_amount base_fee,
                             hj_amount tip)
{
	hj_amount per_gas;

	if (!is_auto)
		return fixed;
	if (base_fee > HJ_AMOUNT_MAX - tip)
		return HJ_AMOUNT_MAX;
	per_gas = base_fee + tip;
	if (per_gas > HJ_AMOUNT_MAX / HJD_EVM_GAS_TRANSFER)
		return HJ_AMOUNT_MAX;
	return per_gas * HJD_EVM_GAS_TRANSFER;
}

int hjd_payout_is_refund(const char *id)
{
	return strncmp(id, "refund:", 7) == 0;
}

int hjd_evm_held(hj_amount refunds, int other, hj_amount min)
{
	return !other && refunds < min;
}

/* ---- EVM: sweeps ---- */

static hj_amount add_sat(hj_amount a, hj_amount b)
{
	return a > HJ_AMOUNT_MAX - b ? HJ_AMOUNT_MAX : a + b;
}

static hj_amount mul_sat(hj_amount a, hj_amount b)
{
	return b != 0 && a > HJ_AMOUNT_MAX / b ? HJ_AMOUNT_MAX : a * b;
}

hj_amount hjd_evm_sweep(hj_amount balance, hj_amount need, hj_amount margin,
                        hj_amount max_fee, uint64_t recipients)
{
	hj_amount one = mul_sat(max_fee, HJD_EVM_GAS_TRANSFER);
	hj_amount keep = add_sat(add_sat(need, margin),
	                         mul_sat(one, add_sat(recipients, 1)));
	hj_amount x;

	if (keep == HJ_AMOUNT_MAX || balance <= keep)
		return 0;
	x = balance - keep;
	return x >= mul_sat(one, 10) ? x : 0;
}

/* ---- EVM fees ---- */

static hj_amount min_amount(hj_amount a, hj_amount b)
{
	return a < b ? a : b;
}

static hj_amount max_amount(hj_amount a, hj_amount b)
{
	return a > b ? a : b;
}

hjd_evm_fees hjd_evm_fees_want(hj_amount base_fee, const hj_amount *tips,
                               size_t n, hj_amount min_tip, hj_amount cap)
{
	hj_amount s[HJD_EVM_TIPS_MAX], t, v;
	hjd_evm_fees f;

	if (n > HJD_EVM_TIPS_MAX)
		n = HJD_EVM_TIPS_MAX;
	if (n)
		memcpy(s, tips, n * sizeof *s);
	/* Insertion sort: at most 16. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
			t = s[j];
			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	t = n ? s[n / 2] : 0;
	if (t < min_tip)
		t = min_tip;
	f.tip = min_amount(t, cap);
	v = base_fee > (HJ_AMOUNT_MAX - f.tip) / 2 ? HJ_AMOUNT_MAX
	                                           : 2 * base_fee + f.tip;
	f.max_fee = min_amount(v, cap);
	return f;
}

int hjd_evm_fees_refresh(hjd_evm_fees have, hjd_evm_fees want,
                         hjd_evm_fees *out)
{
	out->max_fee = max_amount(have.max_fee, want.max_fee);
	out->tip = max_amount(have.tip, want.tip);
	return have.max_fee < want.max_fee || have.tip < want.tip;
}

static hj_amount bump(hj_amount v)
{
	return v > HJ_AMOUNT_MAX - v / 8 - 1 ? HJ_AMOUNT_MAX : v + v / 8 + 1;
}

int hjd_evm_fees_bump(hjd_evm_fees have, hjd_evm_fees want, hj_amount cap,
                      hjd_evm_fees *out)
{
	out->max_fee = min_amount(bump(have.max_fee), cap);
	out->tip = min_amount(bump(have.tip), out->max_fee);
	if (want.max_fee > out->max_fee)
		out->max_fee = want.max_fee;
	if (want.tip > out->tip && want.tip <= out->max_fee)
		out->tip = want.tip;
	return out->max_fee > have.max_fee && out->tip > have.tip;
}
