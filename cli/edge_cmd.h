/*
 * `hashjack edge`: the exact house edge of a rule set, each offered side
 * bet's, and the strategy chart (game/edge.h), as text or JSON
 * (docs/CLI.md).
 */
#ifndef HJ_EDGE_CMD_H
#define HJ_EDGE_CMD_H

int hj_edge_main(int argc, char **argv);
int hj_edge_help(void);

#endif
