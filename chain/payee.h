/*
 * The payees of one payments() call (chain/backend.h), sorted once so that
 * each transfer or output is matched in O(log n): what both backends use.
 */
#ifndef HJ_PAYEE_H
#define HJ_PAYEE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

typedef struct hj_payee_set {
	const hj_chain_payee *payees; /* borrowed */
	const hj_chain_payee **order; /* by bytes, then by index */
	size_t n;
} hj_payee_set;

/* Sorts payees[0..n) into s.  Returns 0 or -ENOMEM. */
int hj_payee_set_init(hj_payee_set *s, const hj_chain_payee *payees, size_t n);

/* The lowest index of a payee whose bytes are b[0..len), or -1. */
long hj_payee_set_find(const hj_payee_set *s, const uint8_t *b, size_t len);

void hj_payee_set_free(hj_payee_set *s);

#endif
