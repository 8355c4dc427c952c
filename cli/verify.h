/*
 * `hashjack verify`: a dealer's block-to-card log checked against one's own
 * node, line by line, through the dealer's own per-block step (docs/CLI.md).
 */
#ifndef HJ_VERIFY_H
#define HJ_VERIFY_H

/* Runs `hashjack verify ARGS...` (argv after "verify").  Returns a
 * sysexits(3) code, or 1 when a line differs. */
int hj_verify_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hj_verify_help(void);

#endif
