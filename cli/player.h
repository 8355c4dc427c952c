/*
 * `hashjack player`: the player's side of the Bitcoin family (docs/CLI.md,
 * docs/BITCOIN-KEYS.md).  A player is a secp256k1 key P kept in a key file;
 * the subcommands write that file, print P and tr(P), and print the
 * OP_RETURN payload of each action (the Bet with P, every later action
 * with the short round id and a BIP-340 signature), checked by parsing and
 * verifying it again before it is printed.
 *
 * The key file is chain/keyfile.h's (hj_keyfile_btc_*), the card log's
 * lines are read by daemon/core/cardlog.h's reader.
 *
 * Output goes to stdout and errors to stderr, one "hashjack: ..." line
 * each; the caller flushes stdout and turns a failed write into EX_IOERR.
 */
#ifndef HJC_PLAYER_H
#define HJC_PLAYER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "btcsig.h"

/* Runs `hashjack player ARGS...`: argv holds the arguments after "player".
 * Returns a sysexits(3) code. */
int hjc_player_main(int argc, char **argv);

/* `hashjack help player [SUBCOMMAND]`: argv holds what follows "player".
 * Returns a sysexits(3) code. */
int hjc_player_help(int argc, char **argv);

/* A key's open round in a card log, and its seq. */
typedef struct hjc_player_round {
	char round[2 * 32 + 1]; /* lower-case hex, as the log writes it */
	uint32_t seq;
} hjc_player_round;

/*
 * What `--log CARDLOG` does (docs/CLI.md, "Round and seq from the card
 * log"): reads the dealer's block-to-card log from f to its end, every
 * line a Bitcoin-family line of version 1 or 2 that hj_cardlog_read reads
 * (docs/LOG.md) whose height follows the previous line's, and finds the
 * open round of the key pk: its latest Bet with no settle after it, and
 * seq, the number of that round's accepted actions after the Bet plus its
 * timeouts.  name is how messages call the
 * log (a file name, "<stdin>").  f is borrowed and left open.
 *
 * Returns 0 with *out, or a sysexits(3) code with err, which names the log
 * and, for a bad line, its number ("NAME:LINE: ..."):
 *   EX_DATAERR   not such a log (a line the reader refuses: not JSON, of
 *                another version or chain, ...; one whose height does
 *                not follow, longer than a log line can be, the last one
 *                without its newline), an empty log, no Bet by pk, or
 *                its latest round settled;
 *   EX_IOERR     reading f failed;
 *   EX_SOFTWARE  out of memory.
 */
int hjc_player_log_round(FILE *f, const char *name,
                         const uint8_t pk[HJ_XONLY_LEN], hjc_player_round *out,
                         char *err, size_t errlen);

#endif
