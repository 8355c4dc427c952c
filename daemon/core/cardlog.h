/*
 * The block-to-card log (its format is docs/LOG.md):
 * one JSON object per block, one line each, written by the daemon and by
 * `hashjack replay`, which must produce the same bytes.
 *
 * The engine reports a block's events through a sink whose round pointers
 * are valid only during the callback, so the line is built while the events
 * arrive:
 *
 *	hj_cardlog_begin(&cl, ...block header and card...);
 *	hj_table_apply_block(t, ..., hj_cardlog_sink, &cl);
 *	hj_cardlog_end(&cl, &line, &len);   (then one write of line[0..len))
 *
 * hj_deal_block (deal.h) does exactly that for the daemon and the replay.
 *
 * Formatting is by hand, not through a JSON library, so that key order,
 * spacing and number forms are fixed by this file alone: compact, keys in
 * the documented order, optional keys left out rather than null, amounts as
 * decimal strings, hashes and ids in lower-case hex, "\n" at the end.
 *
 * Errors are sticky: the sink cannot return one, so the first failure
 * (out of memory, a line above the cap, an event that cannot be written) is
 * kept and returned by hj_cardlog_end, and the line is then unusable.
 */
#ifndef HJ_CARDLOG_H
#define HJ_CARDLOG_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "card.h"
#include "payload.h"
#include "round.h"

/* The "v" of every line.  A change to any line's bytes is a new version. */
#define HJ_CARDLOG_VERSION 2
/* Default cap of one line, "\n" included: 16 MiB, far above any real block
 * (an event is a few hundred bytes). */
#define HJ_CARDLOG_MAX ((size_t)16 << 20)

typedef struct hj_cardlog {
	hj_buf line;      /* the line after a successful end; line.max caps it
	                     ("\n" included): HJ_CARDLOG_MAX after init */
	int err;          /* first error since begin, or 0 */
	unsigned nevents; /* events written since begin */
	uint8_t with_0x;  /* hashes and ids carry "0x" (EVM) */
	uint8_t open;     /* between begin and end */
} hj_cardlog;

/* Prepares an empty log buffer; nothing is allocated until begin. */
void hj_cardlog_init(hj_cardlog *cl);
/* Frees the buffer; cl may then be initialised again.  NULL is fine. */
void hj_cardlog_release(hj_cardlog *cl);

/*
 * Starts the line of one block: chain is the chain's name as the log shows
 * it ("evm"; lower-case letters, digits and '-' only), fam decides the hex
 * form of hashes and ids (EVM: "0x" prefix; Bitcoin family: none).  hash and
 * parent are the 32 bytes in the order the node displays them.  card is the
 * block's card (rank 0: void).  All borrowed for the call.  Reuses cl's
 * buffer.  Returns 0, -EINVAL (bad chain name), -ENOMEM or -EMSGSIZE.
 */
int hj_cardlog_begin(hj_cardlog *cl, const char *chain, hj_family fam,
                     uint64_t height, const uint8_t hash[32],
                     const uint8_t parent[32], const hj_card *card);

/*
 * Appends one event's object to the line.  Returns 0 or the sticky error:
 * -EINVAL for an event outside begin..end or one that lacks what it needs
 * (a DRAW without its round...), -ENOMEM, -EMSGSIZE.
 */
int hj_cardlog_event(hj_cardlog *cl, const hj_event *ev);

/* hj_cardlog_event as an hj_sink; ctx is the hj_cardlog. */
void hj_cardlog_sink(void *ctx, const hj_event *ev);

/*
 * Closes the line.  Returns 0 and sets *line and *len (borrowed from cl,
 * valid until the next begin or release; not NUL-terminated; ends with
 * "\n"), or the first error since begin.
 */
int hj_cardlog_end(hj_cardlog *cl, const char **line, size_t *len);

#endif
