/*
 * `hashjack ledger`: the payouts in the dealer daemon's database
 * (docs/STATE.md), listed as a table with totals per state or as JSON
 * Lines (docs/CLI.md), filtered by state, recipient, round and kind.
 *
 * The database is opened read-only and nothing beside it is created or
 * removed: a running daemon is never slowed or blocked, and a stopped
 * daemon finds its state directory as it left it.
 *
 * Output goes to stdout and errors to stderr, one "hashjack: ledger: ..."
 * line each; the caller flushes stdout and turns a failed write into
 * EX_IOERR.
 */
#ifndef HJ_LEDGER_H
#define HJ_LEDGER_H

/* Runs `hashjack ledger ARGS...`: argv holds the arguments after "ledger".
 * Returns a sysexits(3) code. */
int hj_ledger_main(int argc, char **argv);

/* Prints the help of `hashjack ledger` on stdout.  Returns EX_OK. */
int hj_ledger_help(void);

#endif
