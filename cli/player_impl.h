/*
 * What the files of `hashjack player` share beyond player.h: player.c (the
 * commands) calls into player_help.c and player_log.c.
 */
#ifndef HJC_PLAYER_IMPL_H
#define HJC_PLAYER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "player.h"

/* Prints the help of subcommand sub (NULL: the command's) on stdout; act
 * is the action sub signs (HJ_PEEK: the usage line has --insurance). */
void hjc_player__help(const char *sub, hj_act act);

/*
 * Finds the open round of the key pk in the card log at path ("-" for
 * standard input), as hjc_player_log_round.  Returns 0, or an exit code
 * with err (EX_NOINPUT when the log cannot be opened, or is a directory).
 */
int hjc_player__log_find(const char *path, const uint8_t pk[HJ_XONLY_LEN],
                         hjc_player_round *out, char *err, size_t errlen);

#endif
