/*
 * What `hashjack serve` knows of a dealer: its database, read read-only
 * (the meta row, the cursor, the open rounds), and its card log, followed
 * line by line and played through the engine, so that the state of every
 * round after every block is at hand (docs/PROTOCOL.md section 14: a pure
 * function of the blocks and the rules).  No sockets here: api.c asks
 * and formats, http.c talks.
 *
 * Start: the lines before the cursor's log offset are read with a table
 * of their own (for the blocks, the rounds they settled, the players'
 * recent rounds and the recent updates); at the offset the table becomes
 * the database's open rounds; every later line advances it.  Each line's
 * events are checked against the engine's: a difference (a dealer that
 * does not follow the protocol, a log that is not the database's) stops
 * the view, which starts over from the database at the next poll.  So do
 * a cut log (the dealer restarted after a crash) and a log that is not the
 * file the cursor names yet.  A renamed log (logrotate, then SIGHUP) is
 * read to its end, then the new file at the path.
 */
#ifndef HJC_VIEW_H
#define HJC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "action.h"
#include "backend.h"

typedef struct hjc_view hjc_view;

typedef struct hjc_view_opts {
	const char *db;         /* the dealer's database file */
	const char *log;        /* its card log */
	unsigned confirmations; /* for /v1/table; 0: not known */
	hj_finality finality;   /* for /v1/table instead: finalized, safe */
	size_t history_blocks;  /* blocks whose updates ?from= can resend */
	size_t recent_rounds;   /* settled rounds per player shown */
} hjc_view_opts;

/* One stream message: a block's BlockUpdate (round and player NULL) or a
 * RoundUpdate of a round it changed.  Borrowed for the callback. */
typedef struct hjc_update {
	const char *msg;
	size_t len;
	const hj_id *round, *player;
} hjc_update;

/* A block's messages: the RoundUpdates of the rounds it changed, in the
 * log's order, then its BlockUpdate (u[n - 1]), which closes the block. */
typedef void (*hjc_view_fn)(void *ctx, uint64_t height, const hjc_update *u,
                            size_t n);

/* A view of nothing yet (the first poll loads it): 0 with *out, or
 * -ENOMEM and *out NULL.  The strings of o are copied. */
int hjc_view_new(const hjc_view_opts *o, hjc_view **out);
void hjc_view_free(hjc_view *v);

/*
 * Loads the dealer's state when the view has none (first, or after it
 * stopped), then reads every complete line the log has gained and calls
 * fn (when not NULL) with each block's messages, blocks already given to
 * fn once excepted, but for those after the database's cursor at a load:
 * a dealer that restarted may have cut and dealt them again, so they are
 * given again as the log now has them.  Returns 0 when the view is up to date,
 * or a negative errno with err when it is not and why (no database or no block
 * processed yet, a log that does not match, a damaged line): the caller
 * polls again later.
 */
int hjc_view_poll(hjc_view *v, hjc_view_fn fn, void *ctx, char *err,
                  size_t errlen);

/* Calls fn with the messages of every block after `from` that the view
 * keeps, oldest first.  0, or -ERANGE with err when blocks after `from`
 * are no longer kept (or not yet: `from` above the last block is fine). */
int hjc_view_history(hjc_view *v, uint64_t from, hjc_view_fn fn, void *ctx,
                     char *err, size_t errlen);

/* ---- queries: an HTTP status, with *out a new JSON text (200) or the
 * reason in err (400: malformed input, 404: unknown, 503: no state) ---- */

int hjc_view_table(hjc_view *v, char **out, size_t *len, char *err,
                   size_t errlen);
int hjc_view_rounds(hjc_view *v, char **out, size_t *len, char *err,
                    size_t errlen);
int hjc_view_round(hjc_view *v, const char *id, char **out, size_t *len,
                   char *err, size_t errlen);
int hjc_view_player(hjc_view *v, const char *id, char **out, size_t *len,
                    char *err, size_t errlen);
int hjc_view_block(hjc_view *v, const char *height, char **out, size_t *len,
                   char *err, size_t errlen);
int hjc_view_blocks(hjc_view *v, const char *last, char **out, size_t *len,
                    char *err, size_t errlen);
int hjc_view_payouts(hjc_view *v, const char *recipient, const char *round,
                     const char *kind, char **out, size_t *len, char *err,
                     size_t errlen);

/* A round or player id as the view's family writes it (EVM: 0x and hex;
 * Bitcoin family: hex; a player also as its payout address tr(P)).
 * 0, -EINVAL with err (malformed), -ENOENT (an address of no player). */
int hjc_view_parse_round(const hjc_view *v, const char *text, hj_id *out,
                         char *err, size_t errlen);
int hjc_view_parse_player(const hjc_view *v, const char *text, hj_id *out,
                          char *err, size_t errlen);

/* id in the family's form (EVM with 0x), NUL-terminated. */
void hjc_view_id_text(const hjc_view *v, const hj_id *id, char out[67]);
/* A decimal height: digits, no leading zero, below 2^64.  0 or -1. */
int hjc_view_parse_height(const char *s, uint64_t *out);

/* For /healthz and /metrics. */
typedef struct hjc_view_stats {
	int live;                  /* the dealer's state is loaded */
	uint64_t height;           /* last block read from the log (live) */
	struct timespec log_mtime; /* when the log last changed */
	uint64_t lines, loads, diverged, truncated, rotated;
	size_t open_rounds, rounds_known, history;
	const char *family; /* NULL until loaded */
} hjc_view_stats;
void hjc_view_stats_get(const hjc_view *v, hjc_view_stats *st);

#endif
