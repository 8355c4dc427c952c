/*
 * The daemon proper: follows the chain through a backend, deals every final
 * block with the engine, writes the card log and commits the state, on one
 * libuv loop.  See docs/OPERATION.md.
 */
#ifndef HJD_FOLLOWER_H
#define HJD_FOLLOWER_H

#include "config.h"

/* Exit statuses besides 0. */
#define HJD_EXIT_FAILURE  1 /* state, log or node trouble; see stderr */
#define HJD_EXIT_REORG    3 /* reorganisation deeper than confirmations */
#define HJD_EXIT_MISMATCH 4 /* state belongs to another chain/dealer/rules */
#define HJD_EXIT_CONFIG                                                        \
	78 /* EX_CONFIG: also the dealer address does not                      \
	      fit the node's network */

/* Remembers a SIGTERM or SIGINT that arrives before hjd_follow's loop
 * handles them (hjd_follow then stops at once, exit 0); main calls it
 * first thing. */
void hjd_catch_early_signals(void);

/* Runs until SIGTERM/SIGINT (returns 0) or a fatal condition. */
int hjd_follow(const hjd_config *cfg);

#endif
