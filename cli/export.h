/*
 * `hashjack export`: blocks of one's own node written as a `hashjack
 * replay` document (docs/CLI.md), through the daemon's own chain code, for
 * anyone who replays the dealer's log with another implementation.
 */
#ifndef HJC_EXPORT_H
#define HJC_EXPORT_H

/* Runs `hashjack export ARGS...` (argv after "export").  Returns a
 * sysexits(3) code, or 128 + the signal that interrupted it. */
int hjc_export_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hjc_export_help(void);

#endif
