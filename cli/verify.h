/*
 * `hashjack verify`: a dealer's block-to-card log checked against one's own
 * node, line by line, through the dealer's own per-block step (docs/CLI.md).
 */
#ifndef HJC_VERIFY_H
#define HJC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

/* Runs `hashjack verify ARGS...` (argv after "verify").  Returns a
 * sysexits(3) code, or 1 when a line differs. */
int hjc_verify_main(int argc, char **argv);
/* Prints its help on stdout.  Returns EX_OK. */
int hjc_verify_help(void);

/* What differs between a dealer's line (theirs, tn bytes) and the
 * protocol's (ours), in words, into buf (n > 0): the first JSON path where
 * they part with the dealer's value there and the protocol's ("events[1].
 * payout: the dealer's \"1\", the protocol's \"0\""), or why they cannot
 * be compared so.  Any bytes for theirs. */
void hjc_verify_describe(const char *theirs, size_t tn, const char *ours,
                         size_t on, char *buf, size_t n);

#endif
