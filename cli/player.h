/*
 * `hashjack player`: the player's side of the Bitcoin family (docs/CLI.md,
 * docs/BITCOIN-KEYS.md).  A player is a secp256k1 key P kept in a key file;
 * the subcommands write that file, print P and tr(P), and print the
 * OP_RETURN payload of each action (the Bet with P, every later action
 * with the short round id and a BIP-340 signature), checked by parsing and
 * verifying it again before it is printed.
 *
 * Output goes to stdout and errors to stderr, one "hashjack: ..." line
 * each; the caller flushes stdout and turns a failed write into EX_IOERR.
 */
#ifndef HJ_PLAYER_H
#define HJ_PLAYER_H

/* Runs `hashjack player ARGS...`: argv holds the arguments after "player".
 * Returns a sysexits(3) code. */
int hj_player_main(int argc, char **argv);

/* `hashjack help player [SUBCOMMAND]`: argv holds what follows "player".
 * Returns a sysexits(3) code. */
int hj_player_help(int argc, char **argv);

#endif
