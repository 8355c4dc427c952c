/*
 * The dealer's public table, as `hashjack serve` answers GET /v1/table
 * (docs/API.md), as the configuration keys `hashjack verify` needs: the
 * family and coin, the dealer, the rule set and its limits, the
 * confirmations.  Read from a file, or fetched from the dealer's API.
 */
#ifndef HJC_VERIFY_TABLE_H
#define HJC_VERIFY_TABLE_H

#include <stddef.h>

#include "config.h"

/* Applies the table in json (len bytes) to cfg, as "--SECTION.KEY=VALUE"
 * keys would; chain (room for chainlen bytes) gets its "chain", the
 * identity the node must have.  Returns 0, or -1 with err naming what is
 * wrong. */
int hjc_verify_table_apply(hj_config *cfg, const char *json, size_t len,
                           char *chain, size_t chainlen, char *err,
                           size_t errlen);

/* The table at where: an http:// or https:// URL (the API's base, or
 * its /v1/table), else a file.  *out is malloc'ed; returns 0, or -1 with
 * err. */
int hjc_verify_table_read(const char *where, char **out, size_t *len, char *err,
                          size_t errlen);

#endif
