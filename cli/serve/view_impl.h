/*
 * What the view's files share (view.h): the view itself, the log's files
 * it reads, what it knows of rounds and players, and the functions one
 * file gives the others (hjc_view__ names, internal to the view).
 *
 * view.c holds the view and its index of rounds and players;
 * view_follow.c reads the dealer's database and follows its card log,
 * playing every line through the engine; view_query.c answers the
 * queries from what those two keep.
 */
#ifndef HJC_VIEW_IMPL_H
#define HJC_VIEW_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "bech32.h"
#include "logsrc.h"
#include "map.h"
#include "payload.h"
#include "round.h"
#include "rules.h"
#include "table.h"
#include "taproot.h"
#include "view.h"

/* Log files read: the current one and the one before the last rotation. */
#define SEGS_KEPT 2

/* A file of the log read (the source's file), the lines it gave. */
struct seg {
	unsigned file;  /* the source's */
	uint64_t first; /* height of its first line */
	uint64_t *off;  /* start of each line */
	size_t n, cap;
	uint64_t end; /* bytes of complete lines read */
};

struct rinfo {
	hj_id id, player;
	uint64_t bet, end; /* end: the settling block, 0 while open */
	char *final;       /* the settled state, when kept */
	int pinned;        /* final is kept for good: the round's Bet lies
	                      before the log this view reads, so it cannot
	                      be replayed */
};

/* Settled states kept besides the pinned ones, most recent first out:
 * a query for a round settled long ago replays its lines instead. */
#define SETTLED_KEPT 4096

struct pinfo {
	hj_id key;
	uint8_t q[32]; /* Bitcoin family: tr(P)'s output key */
	int has_q;
	size_t *r; /* its rounds (rinfo indices), oldest first */
	size_t n, cap;
};

struct hblk {
	uint64_t height;
	hjc_update *u;
	hj_id *ids; /* round and player of u[1..] */
	size_t n;
	char *buf;
};

struct hjc_view {
	hjc_view_opts o;
	int live;
	hj_family fam;
	char *family, *chain, *dealer, *rules_text;
	char hrp[HJ_BECH32_HRP_MAX + 1]; /* Bitcoin family: the dealer's */
	hj_rules rules;
	int have_rules;
	json_t *edge; /* hashjack edge --json of the rules */
	hj_secp *secp;
	hj_table *t;
	int have_height;
	uint64_t height, sent; /* last line read; last block given to fn */
	int sent_any;
	char last_hash[67];
	hjc_logsrc *src; /* the log: its files, the last SEGS_KEPT kept */
	struct seg *segs;
	size_t nseg;
	struct rinfo *r;
	size_t nr, rcap;
	hj_map rmap; /* round id -> r index */
	struct pinfo *p;
	size_t np, pcap;
	hj_map pmap;               /* player -> p index */
	size_t kept[SETTLED_KEPT]; /* rinfo indices whose final is kept */
	size_t khead, kn;
	struct hblk *hist; /* ring of o.history_blocks */
	size_t hhead, hn;
	struct timespec mtime;
	uint64_t lines, loads, diverged, truncated, rotated;
};

/* Makes room for one more of *n elements of size sz in *p (capacity
 * *cap, doubled, `first` at first).  0 or -ENOMEM (*p unchanged). */
int hjc_view__grow(void *p, size_t *cap, size_t n, size_t sz, size_t first);

/* The round or player of id in the index, or NULL. */
struct rinfo *hjc_view__round_of(const hjc_view *v, const hj_id *id);
struct pinfo *hjc_view__player_of(const hjc_view *v, const hj_id *id);

/* Forgets the blocks kept for ?from= (their messages are not whole). */
void hjc_view__hist_clear(hjc_view *v);

/* Forgets the dealer's state (not what was sent, nor the rules). */
void hjc_view__unload(hjc_view *v);

/* The state of round r after block height (settled there by s, or open
 * when s is NULL) with its "height", as text; NULL when out of memory. */
char *hjc_view__state_text(const hjc_view *v, const hj_round *r,
                           const hj_settlement *s, uint64_t height);

/* Round id among the table's open ones, or NULL. */
const hj_round *hjc_view__table_round(const hj_table *t, const hj_id *id);

/* Round id, opened by player's Bet at block bet, into the index (its
 * player's too, when new).  0 or -ENOMEM. */
int hjc_view__add_round(hjc_view *v, const hj_id *id, const hj_id *player,
                        uint64_t bet);

/* Keeps the settled state txt (taken) of round i, letting go of the
 * oldest kept one beyond SETTLED_KEPT. */
void hjc_view__keep_settled(hjc_view *v, size_t i, char *txt);

/* Reads line i of segment sg into a new string. */
char *hjc_view__seg_line(const hjc_view *v, const struct seg *sg, size_t i,
                         size_t *len);

/* The kept file holding block height's line, its index there in *i; NULL
 * when no kept file has it. */
const struct seg *hjc_view__seg_of(const hjc_view *v, uint64_t height,
                                   size_t *i);

/* The settled state of ri, replayed from its Bet's line to its end. */
char *hjc_view__replay_round(hjc_view *v, const struct rinfo *ri);

#endif
