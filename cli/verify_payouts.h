/*
 * `hashjack verify --payouts`: what a dealer's card log says it owes each
 * recipient against what the recipient received on chain (docs/VERIFY.md,
 * "Payouts").
 *
 * The tally is pure: hjc_vpay_line takes the log's verified lines one by
 * one, in height order, and keeps every debt (a settlement's and the side
 * bets' returns, a rejection's refund) with its block and its recipient:
 * the round's player, or the refund's sender, or the player of the round
 * the rejected transaction named; a refund with neither is unattributed
 * (docs/PROTOCOL.md section 9.1).  hjc_vpay_received adds what was seen paid,
 * and hjc_vpay_report sets one against the other.  hjc_vpay_end is the
 * whole end on a node: the tip, a scan of the final blocks through the
 * backend's payments(), the report printed.
 */
#ifndef HJC_VERIFY_PAYOUTS_H
#define HJC_VERIFY_PAYOUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "action.h"
#include "amount.h"
#include "backend.h"
#include "payload.h"

/* The grace period's default, in blocks (docs/VERIFY.md). */
#define HJC_VPAY_GRACE_DEFAULT 100

typedef struct hjc_vpay hjc_vpay;

/* A tally for a log of family's; unit names its base unit ("wei",
 * "satoshi", "litoshi") in the report.  Returns 0 with *out, or -ENOMEM
 * and *out NULL. */
int hjc_vpay_new(hj_family family, const char *unit, hjc_vpay **out);
void hjc_vpay_free(hjc_vpay *v);

/*
 * One line of the card log, line[0..len) without its "\n", the line after
 * the last one given (heights follow each other).  Returns 0, or -EINVAL
 * (a line hj_cardlog_read refuses for the family, or a height that does not
 * follow) or -ERANGE (a recipient owed more than 2^128 - 1 in all) with
 * err, or -ENOMEM.
 */
int hjc_vpay_line(hjc_vpay *v, const char *line, size_t len, char *err,
                  size_t errlen);

/* The recipients owed something: how many, and the i-th (0-based, in the
 * order of their first debt) as the log names it, bytes and text. */
size_t hjc_vpay_count(const hjc_vpay *v);
const hj_id *hjc_vpay_recipient(const hjc_vpay *v, size_t i);
const char *hjc_vpay_recipient_text(const hjc_vpay *v, size_t i);

/* The log's first and last heights; both 0 before any line. */
uint64_t hjc_vpay_first(const hjc_vpay *v);
uint64_t hjc_vpay_last(const hjc_vpay *v);

/* Where recipient i is paid, for the report (tr(P) on the Bitcoin
 * family), copied. */
void hjc_vpay_set_address(hjc_vpay *v, size_t i, const char *address);

/* Recipient i received value in one payment.  Returns 0, or -ERANGE when
 * its total would pass 2^128 - 1. */
int hjc_vpay_received(hjc_vpay *v, size_t i, hj_amount value);

/* What the report is about: the node's tip, the daemon's confirmations
 * (final blocks are those up to tip - confirmations + 1) or, with [chain]
 * confirmations = finalized or safe, that finality and the node's block
 * of that tag (final blocks are those up to final), and the grace period
 * (a debt is due once its block has been final for grace more blocks);
 * the blocks whose payments were counted, when any were. */
typedef struct hjc_vpay_view {
	uint64_t tip;
	unsigned confirmations;
	hj_finality finality;
	uint64_t final; /* with a finality */
	uint64_t grace;
	int scanned;
	uint64_t scan_from, scan_to;
} hjc_vpay_view;

/*
 * The report as a JSON object (docs/VERIFY.md has its keys): per
 * recipient what is owed (due), what is owed later (within the grace
 * period), what was received, the difference and the verdict, "short",
 * "even" or "over"; the unattributed refunds; the counts.  *nshort gets
 * the number of recipients short.  New reference; NULL on ENOMEM.
 */
json_t *hjc_vpay_report(const hjc_vpay *v, const hjc_vpay_view *w,
                        size_t *nshort);

/* The report as text, as `hashjack verify --payouts` prints it. */
void hjc_vpay_print(const json_t *report, FILE *out);

typedef struct hjc_vpay_opts {
	unsigned confirmations;
	hj_finality finality; /* set: be's final() instead of its tip */
	uint64_t grace;
	size_t batch; /* blocks per request */
	int json;     /* print the report as JSON, else as text */
	FILE *out;
} hjc_vpay_opts;

/* The end's outcome: 0 nobody short, 1 somebody short, or a sysexits(3)
 * code after a message on stderr (EX_UNAVAILABLE: the node). */
typedef void (*hjc_vpay_done_cb)(void *arg, int rc);

/*
 * After the last line: asks be for its tip (and with a finality for its
 * block of that tag, be's final()), scans the final blocks from
 * the log's first for what each recipient received (be's payee() and
 * payments(), a few requests in flight), prints the report to o->out and
 * calls done once, never from inside this call.  Returns 0, or -ENOMEM
 * or -EINVAL (a finality, and be has no final()): nothing started.  v and be
 * must live until done runs or be is freed.
 */
int hjc_vpay_end(hjc_vpay *v, hj_backend *be, const hjc_vpay_opts *o,
                 hjc_vpay_done_cb done, void *arg);

#endif
