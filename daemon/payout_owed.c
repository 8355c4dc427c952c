/* What each owed EVM recipient is owed (payout_owed.h). */
#include "payout_owed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "payout_policy.h"

static const uint8_t *key_of(const void *arg, size_t i, size_t *len)
{
	const hjd_owed_tally *t = arg;

	*len = sizeof t->v[i].to;
	return t->v[i].to;
}

void hjd_owed_init(hjd_owed_tally *t)
{
	memset(t, 0, sizeof *t);
	hj_map_init(&t->map, key_of, t);
}

void hjd_owed_free(hjd_owed_tally *t)
{
	if (t == NULL)
		return;
	hj_map_free(&t->map);
	free(t->v);
	hjd_owed_init(t);
}

void hjd_owed_clear(hjd_owed_tally *t)
{
	hj_map_free(&t->map);
	hj_map_init(&t->map, key_of, t);
	t->n = 0;
}

int hjd_owed_add(hjd_owed_tally *t, const hj_owed_payout *o)
{
	hjd_owed_to *r;
	size_t i;

	if (o->recipient.len != sizeof r->to)
		return 0;
	if (hj_map_get(&t->map, o->recipient.b, sizeof r->to, &i) != 0) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			hjd_owed_to *v = realloc(t->v, cap * sizeof *v);

			if (v == NULL)
				return -ENOMEM;
			t->v = v;
			t->cap = cap;
		}
		i = t->n;
		memset(&t->v[i], 0, sizeof t->v[i]);
		memcpy(t->v[i].to, o->recipient.b, sizeof t->v[i].to);
		if (hj_map_put(&t->map, o->recipient.b, sizeof r->to, i))
			return -ENOMEM;
		t->n++;
	}
	r = &t->v[i];
	r->n++;
	if (!hjd_payout_is_refund(o->id))
		r->other = 1;
	else
		r->refunds = o->amount > HJ_AMOUNT_MAX - r->refunds
		                 ? HJ_AMOUNT_MAX
		                 : r->refunds + o->amount;
	return 0;
}

const hjd_owed_to *hjd_owed_find(const hjd_owed_tally *t, const uint8_t to[20])
{
	size_t i;

	if (hj_map_get(&t->map, to, sizeof t->v[0].to, &i) != 0)
		return NULL;
	return &t->v[i];
}
