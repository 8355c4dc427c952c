/*
 * What the files of `hashjack verify` (verify.h) share: the run's state, the
 * lines it holds, and the functions one file gives the others
 * (hjc_verify__ names, internal to verify).
 *
 * Each file calls only those below it: verify.c is the command (its
 * options, the dealer's table and the node's keys, the log's source
 * opened); verify_run.c the run on the loop (the node's blocks, fetched
 * by chain/driver, dealt against the log's lines; the dealer's API's
 * stream; the report); verify_log.c reads the log's lines, from a file
 * followed across rotation, cuts and lines written over, or from the
 * stream; verify_seed.c checks the seeds a log reveals under committed
 * cards; verify_diff.c says in words how two lines differ.
 */
#ifndef HJC_VERIFY_STATE_H
#define HJC_VERIFY_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "backend.h"
#include "cardlog.h"
#include "config.h"
#include "driver.h"
#include "logsrc.h"
#include "rpc.h"
#include "seed.h"
#include "table.h"
#include "tool.h"
#include "verify.h"
#include "verify_payouts.h"

#define CMD "verify"
/* Blocks asked of the node at once. */
#define BATCH_MAX 100
/* Batches asked of the node at once (its client has 4 requests in flight
 * at most: two more wait in its queue, so that one goes out the moment an
 * answer is in, and the node works while the answer is parsed; a batch's
 * receipts wait for a place too), and batches held at once, in flight or
 * come ahead of their turn: the driver's depth and hold.  Blocks are
 * dealt strictly in height order; a line found wrong while reading ahead
 * is said once the blocks before it are dealt. */
#define DEPTH     6
#define QUEUE_MAX 8
/* Lines waiting for their blocks, by height modulo PENDING: at most
 * QUEUE_MAX batches' worth are read ahead. */
#define PENDING (QUEUE_MAX * BATCH_MAX)

/* A line of the dealer's log, or a block to deal without one (text NULL:
 * before the log's first line, or missing from it under --follow). */
struct line {
	char *text; /* without its "\n"; borrowed from the ring */
	size_t len;
	uint64_t height;
};

/* The lines read last, by height modulo RING, to check a line the dealer
 * writes again after cutting its log (a restart) against the first one,
 * and to know where lines ended when the log is cut.  More than the
 * lines waiting for their blocks (PENDING), so a line waiting is never
 * dropped. */
#define RING 1024
struct kept {
	char *text;
	size_t len;
	uint64_t height;
	/* The offset after its "\n" in its file; LLONG_MAX while not known
	 * (beyond where the file is read again, not read again yet). */
	long long end;
	unsigned file; /* which file (rotations) */
	int set;
};

/* A line longer than this is not a card log line. */
#define LINE_LIMIT (1u << 20)
/* The longest line read all the same: the reading buffer doubled up to
 * twice LINE_LIMIT before a line was refused, and lines that fit in it
 * are still read. */
#define LINE_READ (2 * (size_t)LINE_LIMIT - 1)

struct run {
	uv_loop_t loop;
	hj_config *cfg;
	const char *name;
	hjc_logsrc *src; /* the file, - or the API's stream */
	struct kept ring[RING];
	hjc_tool_node node; /* the client, backend and driver: the blocks
	                       of the lines */
	size_t batch;       /* blocks per request */
	hj_table *t;
	hj_cardlog cl;
	/* Committed cards: the seeds come from the dealer's lines, each
	 * checked with one hash against the one before it (reveal); the
	 * line being dealt (NULL text: none), and what is wrong with its
	 * seed (seed_rc, seed_what) for the report once it is dealt. */
	hj_seed_source seeds;
	hj_reveal reveal;
	const struct line *dealing;
	int seed_rc;
	char seed_what[400];
	/* Heights from the driver's next up to next: their lines (or none)
	 * waiting for their blocks, at pending[height % PENDING]. */
	struct line pending[PENDING];
	uint64_t waiting;  /* how many */
	struct line ahead; /* a line read, not waiting yet */
	int have_ahead;
	/* The node's block before ahead: 1 asked, 2 it is ahead's parent,
	 * 3 not known (the node failed) */
	int parent_asked;
	uint64_t fill, fill_end; /* blocks to deal without a line first */
	uint64_t next;           /* the height the next line must have */
	int started;             /* a line was read */
	int again;               /* the log was cut: lines may come again */
	uint64_t tip;            /* the node's */
	uint64_t checked, first, last, unchecked, warmup;
	uint64_t lineno;   /* lines read */
	uint64_t failures; /* --follow */
	/* --follow: wait interval_ms at the end of the log or the node's tip,
	 * until SIGINT or SIGTERM. */
	int follow;
	unsigned interval_ms;
	uv_timer_t timer;
	uv_signal_t sigint, sigterm;
	int handles;
	/* Progress on a TTY: the log's size when known, and when the run
	 * began. */
	long long size;
	uint64_t t0;
	char chain[200]; /* the dealer's table's chain (--table), or "" */
	/* --card-log ws://... or http://...: the dealer's API's stream,
	 * whose BlockUpdates are the log's lines (src). */
	struct {
		char url[1024];  /* ws://HOST:PORT/v1/stream */
		uint64_t from;   /* ?from= of the next connection */
		uint64_t last;   /* the last block received; valid when got */
		int got;         /* a block was received */
		uint64_t end;    /* once: the last block to read */
		int ended;       /* once: end reached, the stream closed */
		unsigned errors; /* failed connections in a row */
		uv_timer_t again;
	} api;
	int stream; /* reading the API, not a file */
	int idle;   /* waiting (timer) for lines, none waiting for blocks */
	/* A line that may be where the log leaves the node's chain (docs/
	 * VERIFY.md, "A log after a reorganisation"), decided by the next
	 * line: its parent is this one's hash (a fork: the run ends, 3), or
	 * not (the line differs: said as any difference).  CAND_FORK: dealt,
	 * another block than the node's with the node's parent; CAND_REWRITE
	 * (--follow): the log cut and the line written again with another
	 * block than the one first read. */
	struct {
		int kind; /* 0: none */
		uint64_t height;
		char *hash; /* the line's */
		char *text; /* the dealer's line, len bytes */
		size_t len;
		char *ours; /* CAND_FORK: the line dealt from the node */
		size_t olen;
		char other[200]; /* the node's hash, or the one first read */
	} cand;
	int rc;
	int stop_rc; /* the status a reading of the log ended the run with */
	int done;
	hjc_vpay *pay; /* --payouts */
	int json;
	uint64_t grace;
};

enum { CAND_FORK = 1, CAND_REWRITE };

/* A note on stderr, on a line of its own. */
#define say(...) hjc_tool_note(CMD, __VA_ARGS__)

/* ---- verify_run.c ---- */

/* Forgets r->cand. */
void hjc_verify__cand_clear(struct run *r);

/* Runs the loop: the node's identity, its tip, then the lines against
 * its blocks, to the end.  Returns the run's exit status. */
int hjc_verify__run(struct run *r);
/* --card-log URL: the API's stream opened as r's source (r->api.url set):
 * 0, or -1 with err. */
int hjc_verify__stream_open(struct run *r, char *err, size_t n);

/* ---- verify_log.c ---- */

/* The next line of the log into *l (its text the caller's): 1, 0 when
 * there is none now (the end of the log; under --follow, for now), or -1:
 * the run is to end with status r->stop_rc (what was wrong is said). */
int hjc_verify__read_line(struct run *r, struct line *l);
/* The line of height h kept in the ring, or NULL. */
const struct kept *hjc_verify__kept(const struct run *r, uint64_t h);
/* Keeps a line read (the ring owns its text from here).  A line read
 * again takes the place of the first one, waiting too. */
void hjc_verify__keep(struct run *r, char *text, size_t len, uint64_t h);
/* A failure, on standard output on a line of its own (the progress line
 * ended first); under --follow it is counted and the output flushed. */
void hjc_verify__failure(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- verify_diff.c ---- */

/* The protocol's line (ours) looks like a round it never saw: an action
 * it rejects for no round, or fewer events of rounds than the dealer's
 * (theirs).  Either may be NULL. */
int hjc_verify__unknown_round(const char *theirs, size_t tn, const char *ours,
                              size_t on);
/* The dealer's line (theirs) reveals a seed where the protocol's (ours)
 * deals without one: no chain of seeds in force that verify knows of.
 * Either may be NULL. */
int hjc_verify__seed_unseen(const char *theirs, size_t tn, const char *ours,
                            size_t on);
/* The top-level string member key of a card log line, or NULL (caller
 * frees). */
char *hjc_verify__line_field(const char *s, size_t n, const char *key);

#endif
