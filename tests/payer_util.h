/*
 * The fixture the payer tests share (tests/test_payout_evm.c,
 * tests/test_payout_btc.c): a loop, a scripted node on it (http_fake.h),
 * a real store in a mkdtemp directory, a payer built by the test through
 * daemon/payer.h, and a guard timer that stops a payer that never ends a
 * pass.  The payer's log (its lines on stderr) goes to a file while the
 * loop runs, and is shown when a test fails inside it.
 *
 * What stays in each test: the node's script and what it records, the
 * family's payer construction (pfx_payer_opts gives the common options),
 * the cases.
 *
 * A test embeds a struct payer_fx in its own state.  The functions that
 * set up or drive the fixture take it; the readers (the database and the
 * log) read the fixture pfx_setup last set up, so that each of a test's
 * many checks stays one line.  One fixture at a time, on one thread.
 * Failures are cmocka failures.
 */
#ifndef HJ_TEST_PAYER_UTIL_H
#define HJ_TEST_PAYER_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "http_fake.h"
#include "payer.h"
#include "say.h"
#include "store.h"

/* How long a run may take to end its passes. */
#define PFX_GUARD_MS 10000

struct payer_fx {
	char dir[64], db[128], log[128];
	uv_loop_t loop;
	struct hf_server srv; /* started by pfx_open, not pfx_open_bare */
	uv_timer_t guard;     /* likewise */
	int serving;          /* srv and guard are open */
	int guard_fired;
	hj_store *store;
	hjd_payer *payer; /* the test's, made with pfx_payer_opts */
	hj_dealer dealer; /* the test parses it */
	hj_rpc_opts ro;   /* the node's client options */
	char url[64];
	/* Passes ended (on_status calls), the count at which the loop
	 * stops, done callbacks of hjd_payer_close, on_fatal calls. */
	unsigned passes, until, closed, nfatal;
	uint64_t pass_end_time; /* loop time of the last pass's end */
	char status[2048];      /* hjd_payer_status at the last pass's end */
	char fatal[HJ_ERRLEN];  /* on_fatal's last message */
	uint32_t txseq;         /* makes pfx_owe's transaction ids unique */
	int saved_stderr;       /* the real stderr while the log is on, or -1 */
	unsigned conf;          /* pfx_payer_opts's confirmations */
};

/* ---- setup and teardown (cmocka's, per test) ---- */

/* Clears f, makes /tmp/hj-test-<name>-XXXXXX with the database
 * hashjackd.sqlite and the log file in it, and makes f the fixture the
 * readers read: 0, or -1. */
int pfx_setup(struct payer_fx *f, const char *name);
/* Shows the log when a failure left it on (or when $HJ_TEST_LOG is set)
 * and removes f's directory: 0, or -1. */
int pfx_teardown(struct payer_fx *f);

/* The database the next pfx_open opens: name in f's directory. */
void pfx_use_db(struct payer_fx *f, const char *name);

/* ---- the loop, the node, the store ---- */

/* The loop, the scripted node (handler h) on it, the guard, f->ro aimed
 * at the node, and the store checked against meta.  Counters are reset;
 * f->txseq is not (see pfx_owe). */
void pfx_open(struct payer_fx *f, hf_handler h, const hj_store_meta *meta);
/* The loop and the store only, f->ro aimed at url (nothing listens):
 * for constructors that refuse.  meta NULL: not checked. */
void pfx_open_bare(struct payer_fx *f, const char *url,
                   const hj_store_meta *meta);
/* Closes the payer (its done callback must run once if there was one),
 * the node and the guard, runs the loop until nothing is left, checks
 * uv_loop_close() == 0 and closes the store. */
void pfx_close(struct payer_fx *f);

/* The options both constructors take, with f's loop, store, node options
 * and dealer, and callbacks that count passes in f. */
hjd_payer_opts pfx_payer_opts(struct payer_fx *f, unsigned confirmations);
/* hjd_payer_close; its done callback counts in f->closed.  f->payer is
 * NULL after. */
void pfx_payer_close(struct payer_fx *f);
/* A daemon stopping: the payer closes (requests in flight are dropped)
 * and the loop runs until it has; f->closed is 0 again after, for the
 * next payer on the same store and node. */
void pfx_payer_stop(struct payer_fx *f);

/* ---- running ---- */

/*
 * Runs the loop until passes more passes have ended, or until something
 * stops it (the node, when its script leaves a request unanswered).
 * Fails on an on_fatal call, or when the guard fires first.  The payer's
 * log is on during the run.
 */
void pfx_run(struct payer_fx *f, unsigned passes);
/* Blocks up to processed are committed, the node's tip is tip: one kick
 * (a pass starts within it, its lines in the log), then pfx_run.  The
 * kick's final height is the follower's at the payer's confirmations,
 * tip - confirmations + 1; pfx_step_final gives its own (the node's
 * finalized or safe block). */
void pfx_step(struct payer_fx *f, uint64_t processed, uint64_t tip,
              unsigned passes);
void pfx_step_final(struct payer_fx *f, uint64_t processed, uint64_t tip,
                    uint64_t final, unsigned passes);
/* The guard's callback, for a test that runs the loop itself. */
void pfx_on_guard(uv_timer_t *t);

/* ---- payouts owed ---- */

/* A rejected transaction from recipient (NULL: none; borrowed) with a
 * transaction id made from ++f->txseq, refunded: payout id owes amount to
 * it, created at height.  One commit. */
void pfx_owe(struct payer_fx *f, const char *id, const hj_id *recipient,
             hj_amount amount, uint64_t height);

/* ---- the payer's log ---- */

/* stderr to the log file (appending), and back. */
void pfx_log_on(struct payer_fx *f);
void pfx_log_off(struct payer_fx *f);
/* The whole log; the caller frees it. */
char *log_text(void);
int log_has(const char *part);
void expect_log(const char *part);

/* ---- the database, read behind the store's back ---- */

/* The first column of the first row into buf: "NULL" for NULL, "(no
 * row)" when there is none. */
const char *q_opt(char *buf, size_t n, const char *sql);
/* The same for a formatted query, which must give a row. */
__attribute__((format(printf, 3, 4))) const char *q_text(char *buf, size_t n,
                                                         const char *fmt, ...);
/* q_text into a buffer of the statement's life. */
#define Q(...) q_text((char[4096]){0}, 4096, __VA_ARGS__)
long long q_int(const char *sql);
/* SQL that must succeed. */
void q_exec(const char *sql);

/* Checks that what query gives is want. */
#define EXPECT_Q(want, ...)                                                    \
	do {                                                                   \
		char b_[4096];                                                 \
		q_text(b_, sizeof b_, __VA_ARGS__);                            \
		if (strcmp(b_, (want)) != 0)                                   \
			fail_msg("%s: \"%s\", want \"%s\"", #__VA_ARGS__, b_,  \
			         (want));                                      \
	} while (0)

/* ---- text ---- */

void expect_contains(const char *s, const char *part);
void expect_lacks(const char *s, const char *part);
/* For the whole test program: the node is local, a proxy from the
 * environment is not. */
void pfx_no_proxy(void);

#endif
