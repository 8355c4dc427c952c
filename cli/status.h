/*
 * `hashjack status`: the dealer daemon's state as its database holds it
 * (docs/STATE.md), for the operator (docs/CLI.md): what the state belongs
 * to, the last processed block, the open rounds and their worst case, the
 * payouts owed, in flight and confirmed, the dealer's balance as the
 * daemon last read it, whether it covers what the dealer owes and may owe,
 * and the payout transactions not yet settled.  As text or one JSON
 * object.
 *
 * The database is read the way `hashjack ledger` reads it, through the
 * store's reader (daemon/core/store.h, hj_store_read): read-only, nothing
 * created beside it, safe while the daemon runs.
 *
 * Output goes to stdout and errors to stderr, one "hashjack: status: ..."
 * line each; the caller flushes stdout and turns a failed write into
 * EX_IOERR.
 */
#ifndef HJC_STATUS_H
#define HJC_STATUS_H

/* Runs `hashjack status ARGS...`: argv holds the arguments after "status".
 * Returns a sysexits(3) code. */
int hjc_status_main(int argc, char **argv);

/* Prints the help of `hashjack status` on stdout.  Returns EX_OK. */
int hjc_status_help(void);

#endif
