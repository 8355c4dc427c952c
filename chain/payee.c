/* The payees of one payments() call (payee.h). */
#include "payee.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b,
                     size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = memcmp(a, b, n);
	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* By bytes, then by place in the array (one array: pointers compare). */
static int cmp_payee(const void *x, const void *y)
{
	const hj_chain_payee *a = *(const hj_chain_payee *const *)x;
	const hj_chain_payee *b = *(const hj_chain_payee *const *)y;
	int c = cmp_bytes(a->b, a->len, b->b, b->len);
	if (c != 0)
		return c;
	return a < b ? -1 : a > b;
}

int hj_payee_set_init(hj_payee_set *s, const hj_chain_payee *payees, size_t n)
{
	s->payees = payees;
	s->n = n;
	s->order = n ? malloc(n * sizeof *s->order) : NULL;
	if (n && !s->order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s->order[i] = &payees[i];
	if (n > 1)
		qsort(s->order, n, sizeof *s->order, cmp_payee);
	return 0;
}

long hj_payee_set_find(const hj_payee_set *s, const uint8_t *b, size_t len)
{
	size_t lo = 0, hi = s->n;

	/* The first whose bytes are not below b. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const hj_chain_payee *p = s->order[mid];
		if (cmp_bytes(p->b, p->len, b, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n) {
		const hj_chain_payee *p = s->order[lo];
		if (cmp_bytes(p->b, p->len, b, len) == 0)
			return (long)(p - s->payees);
	}
	return -1;
}

void hj_payee_set_free(hj_payee_set *s)
{
	free(s->order);
	s->order = NULL;
	s->n = 0;
}
