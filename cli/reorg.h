/*
 * `hashjack reorg`: what a reorganisation deeper than the confirmations
 * changed, read from the dealer's state, its card log and the node, without
 * writing anything (docs/CLI.md, docs/OPERATION.md "Money").
 */
#ifndef HJC_REORG_H
#define HJC_REORG_H

/* Runs `hashjack reorg ARGS...` (argv after "reorg").  Returns a
 * sysexits(3) code, 0 when the node still has every block the dealer
 * dealt, 1 when it does not (the report printed). */
int hjc_reorg_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hjc_reorg_help(void);

#endif
