/*
 * What an open round shows (docs/PROTOCOL.md section 14), as JSON in the
 * round API's words plus the chain's own fields: the window and timeout
 * blocks, the draws still due, the value each next action must carry and, on
 * the Bitcoin family, the seq the next signed action must carry.  Written for
 * `hashjack replay --state`; docs/CLI.md shows every key.
 */
#ifndef HJ_ROUNDSTATE_H
#define HJ_ROUNDSTATE_H

#include <stdint.h>

#include <jansson.h>

#include "payload.h"
#include "round.h"
#include "rules.h"

/*
 * The state of open round r under rules ru after block `height`, ids in
 * the family's form (EVM with 0x).  A new object (the caller decrefs), or
 * NULL when out of memory.
 */
json_t *hj_roundstate(const hj_rules *ru, const hj_round *r, hj_family fam,
                      uint64_t height);

/*
 * A round as its SETTLE event at block `height` leaves it: every hand's
 * result and payout, the insurance's payout, "roundEnded":true, the
 * round's "betAmount" and "payout" (docs/LOG.md, settle) and "settledAt";
 * no next action and no draw due.
 */
json_t *hj_roundstate_settled(const hj_rules *ru, const hj_round *r,
                              const hj_settlement *st, hj_family fam,
                              uint64_t height);

#endif
