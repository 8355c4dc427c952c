/*
 * `hashjack edge`: the exact house edge of a rule set, each offered side
 * bet's, and the strategy chart (game/edge.h), as text or JSON
 * (docs/CLI.md).
 */
#ifndef HJC_EDGE_CMD_H
#define HJC_EDGE_CMD_H

#include <jansson.h>

#include "edge.h"
#include "rules.h"

int hjc_edge_main(int argc, char **argv);
int hjc_edge_help(void);

/* What `--json` prints: "rules" with every key, "houseEdgePercent", the
 * offered side bets' "perfectPairsEdgePercent" and "pokerEdgePercent",
 * "chart".  A new object, or NULL when out of memory. */
json_t *hjc_edge_json(const hj_rules *r, const hj_edge *e);

#endif
