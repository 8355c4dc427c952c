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
#ifndef HJC_LEDGER_H
#define HJC_LEDGER_H

#include <stddef.h>

#include <jansson.h>

/* Runs `hashjack ledger ARGS...`: argv holds the arguments after "ledger".
 * Returns a sysexits(3) code. */
int hjc_ledger_main(int argc, char **argv);

/* Prints the help of `hashjack ledger` on stdout.  Returns EX_OK. */
int hjc_ledger_help(void);

/*
 * The payouts of the database at path that recipient, round and kind
 * select (NULL: any; written as `--recipient`, `--round` and `--kind` take
 * them), each the
 * object `--json` writes, oldest debt first, in a new array *out: what
 * `hashjack serve` answers on /v1/payouts.  Returns 0, or a negative errno
 * with err: -EDOM for a recipient or round that is not one, or not of
 * the database's chain (err names it, in the options' words), and
 * hj_store_read's codes.
 */
int hjc_ledger_select_json(const char *path, const char *recipient,
                           const char *round, const char *kind, json_t **out,
                           char *err, size_t errlen);

#endif
