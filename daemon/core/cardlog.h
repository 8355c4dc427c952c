/*
 * The block-to-card log (its format is docs/LOG.md):
 * one JSON object per block, one line each, written by the daemon and by
 * `hashjack replay`, which must produce the same bytes, and read by
 * everything that reads a dealer's log through the one reader below.
 *
 * CHANGE THE WRITER (cardlog.c) AND THE READER (cardlog_read.c) IN ONE
 * DIFF: every line the writer writes reads back to the values it was
 * written from (tests/test_cardlog.c checks it), and the format is what
 * both say together.
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

#include "amount.h"
#include "buf.h"
#include "card.h"
#include "payload.h"
#include "round.h"
#include "say.h"

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
 * parent are the 32 bytes in the order the node displays them.  seed is
 * the seed the block was dealt with under committed cards (HJ_SEED_LEN
 * bytes), or NULL: the line then has no "seed".  card is the
 * block's card (rank 0: void).  All borrowed for the call.  Reuses cl's
 * buffer.  Returns 0, -EINVAL (bad chain name), -ENOMEM or -EMSGSIZE.
 */
int hj_cardlog_begin(hj_cardlog *cl, const char *chain, hj_family fam,
                     uint64_t height, const uint8_t hash[32],
                     const uint8_t parent[32], const uint8_t *seed,
                     const hj_card *card);

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

/* ---- reading a line ------------------------------------------------------
 *
 * hj_cardlog_read is the one reader of the log's lines: `hashjack player
 * --log`, `hashjack verify --payouts`, `hashjack serve`'s view and the
 * tests read through it, so that a change of the format (with the writer
 * above, in the same diff) changes them all.
 *
 * A line reads when it is what docs/LOG.md says of versions 1 to
 * HJ_CARDLOG_VERSION: every key the writer writes, of its type and form
 * (ids and hashes in the family's lower-case hex, amounts as canonical
 * decimal strings, names from the fixed lists, a card object whose members
 * agree with each other, hand totals that are their cards'), within the
 * bounds of the structs below.  What the format lets a later feature add
 * within a version reads too: members the reader does not know are
 * skipped, an event type it does not know is HJ_CARDLOG_EV_UNKNOWN, a
 * rejection's reason word it does not know is HJ_R_COUNT (docs/LOG.md,
 * "Stability").  Key order and spacing are the writer's business, not
 * checked here.  Nothing is checked across keys (a card against the hash,
 * an event against the protocol): that is the caller's, who knows what
 * it compares.  Heights above 2^63 - 1 do not read (jansson's integers
 * are signed): no chain is near.
 */

/* The type of an event this reader does not know (a later feature's). */
#define HJ_CARDLOG_EV_UNKNOWN (-1)

/* A hand of a settle event: the dealer's ("cards", "total") or a player's
 * (also "betAmount", "status", "payout"; its "handIndex" is its index). */
typedef struct hj_cardlog_hand {
	uint8_t n;                   /* cards, 0 .. HJ_MAX_CARDS */
	uint8_t cards[HJ_MAX_CARDS]; /* card codes (hj_code) */
	uint8_t status;              /* player: hj_status, never NONE */
	unsigned total;              /* best total, as hj_hand_total */
	hj_amount bet, payout;       /* player: "betAmount", "payout" */
} hj_cardlog_hand;

/* What a settle event says of the round's hands and insurance. */
typedef struct hj_cardlog_settle {
	hj_cardlog_hand dealer; /* "dealerHand" */
	uint8_t nhands;         /* "playerHands", 0 .. HJ_MAX_HANDS */
	uint8_t has_insurance;  /* "insurance" is there */
	hj_cardlog_hand hands[HJ_MAX_HANDS];
	hj_amount ins_bet, ins_payout; /* its "betAmount", "payout" */
} hj_cardlog_settle;

/* One side bet of a sidebets event ("perfectPairs", "poker"). */
typedef struct hj_cardlog_side {
	uint8_t status;        /* hj_side_result, never NONE */
	hj_amount bet, payout; /* "betAmount", "payout" */
} hj_cardlog_side;

/*
 * One event.  A member is set for the types whose docs/LOG.md table has
 * its key, else zero; a has_ flag says whether an optional key is there.
 */
typedef struct hj_cardlog_ev {
	int type; /* hj_ev, or HJ_CARDLOG_EV_UNKNOWN (nothing else read) */
	uint8_t has_round;      /* "round": every type but deposit and
	                           ignored; optional on reject */
	uint8_t has_act;        /* "action": action, timeout; optional on
	                           reject */
	uint8_t has_from;       /* "from": optional on reject, deposit,
	                           ignored */
	uint8_t has_hand;       /* "handIndex": optional on action, timeout;
	                           a Player's draw */
	uint8_t has_insurance;  /* "insurance": optional on action */
	uint8_t has_pp, has_t3; /* "perfectPairs", "poker": optional on action
	                           (pp_stake, t3_stake) and sidebets (pp, t3) */
	hj_act act;             /* "action" */
	int hand;               /* "handIndex"; HJ_DEALER for the dealer's
	                           draw; -1 when absent */
	uint8_t card;           /* "card" of draw, peek, skip: a card code */
	uint8_t dealer_bj;      /* peek's "dealerBlackjack" */
	uint8_t insurance;      /* action's "insurance" */
	uint8_t reason;         /* reject's "reason" (hj_reason), HJ_R_COUNT
	                           for a word this reader does not know */
	uint32_t tx_index;      /* "txIndex" */
	hj_id round, player, tx, from; /* in the family's sizes: ids and
	                                  hashes 32 bytes, players and senders
	                                  20 (EVM) or 32 (x-only keys) */
	hj_amount stake;               /* action */
	hj_amount pp_stake, t3_stake;  /* action: the Bet's side stakes */
	hj_amount refund;              /* reject */
	hj_amount value;               /* deposit */
	hj_amount bet, payout;  /* settle, sidebets: "betAmount", "payout" */
	hj_cardlog_side pp, t3; /* sidebets: "perfectPairs", "poker" */
	const hj_cardlog_settle *settle; /* settle: in the line's storage */
	uint64_t start;                  /* commit: "start" (H) */
	uint32_t length;                 /* commit: "length" (L) */
	uint8_t commitment[HJ_SEED_LEN]; /* commit: "commitment" */
} hj_cardlog_ev;

/* A line as read.  Owns events and settles: hj_cardlog_line_free. */
typedef struct hj_cardlog_line {
	unsigned version; /* "v": 1 .. HJ_CARDLOG_VERSION */
	hj_family fam;    /* "chain" is hj_family_name(fam) */
	uint64_t height;  /* "height": 0 .. 2^63 - 1 */
	uint8_t hash[32]; /* "hash", "parent": in display order */
	uint8_t parent[32];
	uint8_t has_seed; /* "seed" is there (committed cards) */
	uint8_t seed[HJ_SEED_LEN];
	hj_card card; /* "card"; rank 0 for "void": true */
	size_t nevents;
	hj_cardlog_ev *events;      /* "events", in order; NULL when none */
	hj_cardlog_settle *settles; /* what settle events point to */
} hj_cardlog_line;

/* Where a line was refused, for a caller that words it its own way. */
typedef enum hj_cardlog_at {
	HJ_CARDLOG_AT_LINE = 1, /* too long, not JSON, not an object */
	HJ_CARDLOG_AT_V,
	HJ_CARDLOG_AT_CHAIN,
	HJ_CARDLOG_AT_HEIGHT,
	HJ_CARDLOG_AT_HASH,
	HJ_CARDLOG_AT_PARENT,
	HJ_CARDLOG_AT_CARD,   /* "card" or "void" */
	HJ_CARDLOG_AT_EVENTS, /* "events" itself: missing, not an array */
	HJ_CARDLOG_AT_EVENT,  /* one of them: index */
	HJ_CARDLOG_AT_SEED,   /* "seed" (committed cards) */
} hj_cardlog_at;

/* Room for a quoted value in a message (hj_quote cuts longer ones). */
#define HJ_CARDLOG_SHOWN 100

/* Why a line did not read. */
typedef struct hj_cardlog_err {
	hj_cardlog_at at;
	int json;        /* AT_LINE: not JSON (msg is jansson's words) */
	int column;      /* ... and jansson's column */
	size_t index;    /* AT_EVENT: events[index] */
	int type;        /* AT_EVENT: its type when read, else
	                    HJ_CARDLOG_EV_UNKNOWN */
	const char *key; /* AT_EVENT: its member at fault, as docs/LOG.md
	                    names it ("round"; "playerHands" for anything
	                    inside); NULL for the event itself (not an
	                    object, no "type" string).  Static. */
	int has_height;  /* the line's "height" read before the fault */
	uint64_t height;
	char shown[HJ_CARDLOG_SHOWN]; /* the string at fault, quoted; "" when
	                                 missing or not a string */
	char msg[HJ_ERRLEN];          /* the place, then what is wrong there:
	                                 `"height": not a block height`,
	                                 `events[3]: "round": missing` */
} hj_cardlog_err;

/*
 * Reads line[0..len), one line without its "\n", of a log of family fam
 * (its "chain" must be hj_family_name(fam), and its hex that family's
 * form: EVM "0x", the Bitcoin family none).  line is borrowed for the
 * call: nothing in *out points into it.
 *
 * Returns 0 with *out (the caller frees it with hj_cardlog_line_free), or
 * with *out zeroed and nothing to free:
 *   -EINVAL    the line does not read: *err says where and why;
 *   -EMSGSIZE  longer than HJ_CARDLOG_MAX - 1 bytes (err at AT_LINE);
 *   -ENOMEM    err->msg "out of memory".
 * Bounded: the line is at most HJ_CARDLOG_MAX - 1 bytes, and *out holds
 * an hj_cardlog_ev (a few hundred bytes) for each of its events, which
 * are at least 12 bytes each ({"type":"x"} and a comma): about what
 * jansson's tree of the line, freed before return, takes for them.
 */
int hj_cardlog_read(const char *line, size_t len, hj_family fam,
                    hj_cardlog_line *out, hj_cardlog_err *err);

/* Frees what hj_cardlog_read gave and zeroes *l.  NULL and a zeroed or
 * freed line are fine. */
void hj_cardlog_line_free(hj_cardlog_line *l);

/*
 * Whether line[0..len) ends as a line without events ("events":[]} last):
 * a test of its last bytes that reads nothing else, for a caller that
 * knows the line is whole and well formed (hashjack verify --payouts is
 * given lines it dealt itself) and may then skip reading it.
 */
int hj_cardlog_no_events(const char *line, size_t len);

/*
 * The top-level "height" of a line (s, n bytes, without its "\n"), a
 * non-negative integer, into *out: 0, or -1 when it has none or is not a
 * JSON object.  A line that begins in the writer's own form
 * ({"v":N,"chain":"C","height":H,) is read from those members alone,
 * without parsing the rest: `hashjack verify` compares the rest byte for
 * byte with the protocol's line.  Any other line is parsed as JSON.  Any
 * bytes.
 */
int hj_cardlog_height(const char *s, size_t n, uint64_t *out);

#endif
