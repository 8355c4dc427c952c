/*
 * `hashjack serve`: the read-only round API and its web page
 * (docs/API.md), a process of its own beside the dealer.
 */
#ifndef HJC_SERVE_H
#define HJC_SERVE_H

/* Runs `hashjack serve ARGS...` (argv after "serve") until SIGINT or
 * SIGTERM.  Returns a sysexits(3) code. */
int hjc_serve_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hjc_serve_help(void);

#endif
