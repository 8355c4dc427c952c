/*
 * The block driver (chain/driver.h) against a fake backend whose answers
 * the test scripts, on a real libuv loop.  The fake records every request
 * (blocks, tip, final) and answers only when the test says so, from the
 * test's code between runs of the loop; the driver's timers (retries, the
 * poll) are the loop's, and the loop runs until none is active.
 *
 * Every callback writes one line to a log, and each test compares the
 * whole log with what it must be: the blocks handed over (their heights,
 * and whether the backend's own or a copy), failures with their delay,
 * tip answers, the tip going back, caught up, fatal.  The blocks the fake
 * lends are freed as soon as its callback returns, so that a block kept
 * past it is a use after free under the sanitizers.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "driver.h"

#define MAXREQ 64

struct req {
	uint64_t from;
	size_t n;
	hj_blocks_cb cb;
	void *arg;
	int answered;
};

static uv_loop_t loop;

static struct fake {
	hj_backend base;
	struct req reqs[MAXREQ];
	size_t nreqs;
	unsigned ntip;   /* tip() and final() calls */
	int tip_out;     /* one is not answered yet */
	hj_finality how; /* final()'s */
	hj_tip_cb tcb;
	hj_final_cb fcb;
	void *targ;
	int refuse; /* blocks() returns it */
} B;

static hj_driver *D;
static char LOG[8192];
static int close_on_blocks; /* the blocks callback closes the driver */

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	size_t len = strlen(LOG);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(LOG + len, sizeof LOG - len, fmt, ap);
	va_end(ap);
}

/* ---- the fake backend ---- */

static int fake_blocks(hj_backend *b, uint64_t from, size_t n, hj_blocks_cb cb,
                       void *arg)
{
	(void)b;
	if (B.refuse)
		return B.refuse;
	assert_true(B.nreqs < MAXREQ);
	B.reqs[B.nreqs++] = (struct req){from, n, cb, arg, 0};
	return 0;
}

static int fake_tip(hj_backend *b, hj_tip_cb cb, void *arg)
{
	(void)b;
	assert_false(B.tip_out); /* one at a time */
	B.ntip++;
	B.tip_out = 1;
	B.tcb = cb;
	B.fcb = NULL;
	B.targ = arg;
	return 0;
}

static int fake_final(hj_backend *b, hj_finality how, hj_final_cb cb, void *arg)
{
	(void)b;
	assert_false(B.tip_out);
	B.ntip++;
	B.tip_out = 1;
	B.how = how;
	B.fcb = cb;
	B.tcb = NULL;
	B.targ = arg;
	return 0;
}

static void fake_free(hj_backend *b)
{
	(void)b;
}

static const struct hj_backend_ops fake_ops = {
    .chain = "fake",
    .family = HJ_EVM,
    .tip = fake_tip,
    .final = fake_final,
    .blocks = fake_blocks,
    .free = fake_free,
};

static const struct hj_backend_ops fake_ops_no_final = {
    .chain = "fake",
    .family = HJ_BITCOIN,
    .tip = fake_tip,
    .blocks = fake_blocks,
    .free = fake_free,
};

/* What keep_all's `all` points at in the fake's blocks: a copy has none. */
static hj_chain_tx lent_marker;

/* Answers request k with n blocks of heights first, first + 1, ...
 * (each with one transaction whose tx_index is its height), lent for the
 * callback only; or with error. */
static void answer_at(size_t k, size_t n, uint64_t first, const char *error)
{
	struct req *r;
	hj_chain_block *b;
	hj_action *a;

	assert_true(k < B.nreqs);
	r = &B.reqs[k];
	assert_false(r->answered);
	r->answered = 1;
	b = calloc(n ? n : 1, sizeof *b);
	a = calloc(n ? n : 1, sizeof *a);
	assert_non_null(b);
	assert_non_null(a);
	for (size_t i = 0; i < n; i++) {
		b[i].height = first + i;
		memcpy(b[i].hash, &b[i].height, sizeof b[i].height);
		a[i].tx_index = (uint32_t)(first + i);
		b[i].txs = &a[i];
		b[i].ntx = 1;
		b[i].all = &lent_marker;
	}
	r->cb(r->arg, error ? NULL : b, error ? 0 : n, error);
	free(a);
	free(b);
}

static void answer(size_t k, size_t n)
{
	answer_at(k, n, B.reqs[k].from, NULL);
}

static void answer_error(size_t k, const char *error)
{
	answer_at(k, 0, 0, error);
}

static void tip_answer(uint64_t tip, uint64_t final, const char *error)
{
	assert_true(B.tip_out);
	B.tip_out = 0;
	if (B.fcb)
		B.fcb(B.targ, error ? 0 : tip, error ? 0 : final, error);
	else
		B.tcb(B.targ, error ? 0 : tip, error);
}

/* The driver asks the tip; the node answers tip (and final, with a tag). */
static void tip_is(uint64_t tip, uint64_t final)
{
	assert_int_equal(hj_driver_ask_tip(D), 0);
	tip_answer(tip, final, NULL);
}

static void tip_fails(const char *error)
{
	assert_int_equal(hj_driver_ask_tip(D), 0);
	tip_answer(0, 0, error);
}

/* The tip, then fetching from `from` below `end`. */
static void begin(uint64_t tip, uint64_t from, uint64_t end)
{
	tip_is(tip, 0);
	assert_int_equal(hj_driver_start(D, from, end), 0);
}

/* "from+n" of every request, in order: "0+10 10+10". */
static const char *requests(void)
{
	static char s[1024];
	size_t len = 0;

	s[0] = 0;
	for (size_t k = 0; k < B.nreqs; k++)
		len += (size_t)snprintf(s + len, sizeof s - len,
		                        "%s%" PRIu64 "+%zu", k ? " " : "",
		                        B.reqs[k].from, B.reqs[k].n);
	return s;
}

/* ---- the driver's callbacks ---- */

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n)
{
	(void)arg;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		/* The heights follow each other, each block its own. */
		assert_int_equal(blocks[i].height, blocks[0].height + i);
		assert_int_equal(blocks[i].ntx, 1);
		assert_int_equal(blocks[i].txs[0].tx_index,
		                 (uint32_t)blocks[i].height);
		assert_true(blocks[i].all == blocks[0].all);
	}
	logf_("blocks %" PRIu64 "..%" PRIu64 " %s\n", blocks[0].height,
	      blocks[n - 1].height, blocks[0].all ? "lent" : "copy");
	if (close_on_blocks)
		hj_driver_close(D);
}

static void on_failed(void *arg, uint64_t from, size_t n, const char *error,
                      unsigned delay_ms)
{
	(void)arg;
	logf_("failed %" PRIu64 "..%" PRIu64 ": %s; %u ms\n", from,
	      from + n - 1, error ? error : "(no block)", delay_ms);
}

static void on_tip(void *arg, const hj_driver_tip *t, const char *error)
{
	(void)arg;
	if (error)
		logf_("tip error: %s\n", error);
	else if (t->has_final)
		logf_("tip %" PRIu64 " final %" PRIu64 " end %" PRIu64 "\n",
		      t->tip, t->final, t->end);
	else
		logf_("tip %" PRIu64 " no final end %" PRIu64 "\n", t->tip,
		      t->end);
}

static void on_back(void *arg, const char *tag, uint64_t from, uint64_t to)
{
	(void)arg;
	logf_("back %s %" PRIu64 " %" PRIu64 "\n", tag ? tag : "tip", from, to);
}

static void on_idle(void *arg)
{
	(void)arg;
	logf_("idle\n");
}

static void on_fatal(void *arg, int err)
{
	(void)arg;
	logf_("fatal %d\n", err);
}

/* ---- the fixture ---- */

static hj_driver_opts base_opts(void)
{
	return (hj_driver_opts){.loop = &loop,
	                        .be = &B.base,
	                        .confirmations = 1,
	                        .batch = 10,
	                        .depth = 3,
	                        .hold = 6,
	                        .retry_min_ms = 1,
	                        .retry_max_ms = 8,
	                        .blocks = on_blocks,
	                        .failed = on_failed,
	                        .tip = on_tip,
	                        .back = on_back,
	                        .idle = on_idle,
	                        .fatal = on_fatal};
}

static void start(const hj_driver_opts *o)
{
	memset(&B, 0, sizeof B);
	B.base.ops = &fake_ops;
	LOG[0] = 0;
	close_on_blocks = 0;
	assert_int_equal(uv_loop_init(&loop), 0);
	hj_driver_opts x = *o;
	x.be = &B.base;
	assert_int_equal(hj_driver_new(&x, &D), 0);
}

/* Runs the loop until no timer of the driver is active. */
static void run(void)
{
	uv_run(&loop, UV_RUN_DEFAULT);
}

/* The backend can no longer call back (the fake drops what is out): the
 * driver is freed and the loop closes clean. */
static void end(void)
{
	hj_driver_free(D);
	D = NULL;
	run();
	assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- tests ---- */

/* Batches answered out of order are handed over in height order, the
 * head as the backend lent it, the rest as copies; never more than depth
 * batches asked, nor more than hold held. */
static void test_order(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	start(&o);
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(B.ntip, 1);
	tip_answer(199, 0, NULL);
	assert_int_equal(hj_driver_start(D, 100, UINT64_MAX), 0);
	assert_int_equal(hj_driver_start(D, 100, UINT64_MAX), -EALREADY);
	assert_string_equal(requests(), "100+10 110+10 120+10");
	assert_int_equal(hj_driver_room(D), 0); /* depth */
	answer(2, 10); /* 120: ahead of its turn, kept; room for one more */
	assert_string_equal(requests(), "100+10 110+10 120+10 130+10");
	answer(3, 10);
	answer(4, 10);
	/* 100, 110, 150 asked; 120, 130, 140 held: hold reached. */
	assert_string_equal(requests(),
	                    "100+10 110+10 120+10 130+10 140+10 150+10");
	assert_int_equal(hj_driver_held(D), 6);
	answer(5, 10);
	assert_int_equal(B.nreqs, 6); /* 3 asked, but 6 held */
	assert_int_equal(hj_driver_room(D), 0);
	answer(1, 10);
	assert_string_equal(LOG, "tip 199 final 199 end 200\n");
	assert_int_equal(hj_driver_next(D), 100);
	answer(0, 10);
	assert_string_equal(LOG, "tip 199 final 199 end 200\n"
	                         "blocks 100..109 lent\n"
	                         "blocks 110..119 copy\n"
	                         "blocks 120..129 copy\n"
	                         "blocks 130..139 copy\n"
	                         "blocks 140..149 copy\n"
	                         "blocks 150..159 copy\n");
	assert_int_equal(hj_driver_next(D), 160);
	assert_string_equal(requests(), "100+10 110+10 120+10 130+10 140+10 "
	                                "150+10 160+10 170+10 180+10");
	answer(6, 10);
	assert_int_equal(B.nreqs, 10); /* 190..199: the last final ones */
	answer(7, 10);
	answer(8, 10);
	answer(9, 10);
	assert_string_equal(LOG, "tip 199 final 199 end 200\n"
	                         "blocks 100..109 lent\n"
	                         "blocks 110..119 copy\n"
	                         "blocks 120..129 copy\n"
	                         "blocks 130..139 copy\n"
	                         "blocks 140..149 copy\n"
	                         "blocks 150..159 copy\n"
	                         "blocks 160..169 lent\n"
	                         "blocks 170..179 lent\n"
	                         "blocks 180..189 lent\n"
	                         "blocks 190..199 lent\n"
	                         "idle\n");
	assert_int_equal(B.nreqs, 10);
	assert_int_equal(hj_driver_held(D), 0);
	end();
}

/* A failed batch is asked again after 1, 2, 4, 8, 8 ms (doubling to the
 * cap), and after 1 ms again once an answer came. */
static void test_backoff(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.depth = o.hold = 1;
	start(&o);
	begin(1000, 0, 10);
	for (size_t k = 0; k < 5; k++) {
		char e[16];

		assert_int_equal(B.nreqs, k + 1);
		snprintf(e, sizeof e, "E%zu", k);
		answer_error(k, e);
		run(); /* the retry timer: asked again */
	}
	answer(5, 10);
	assert_string_equal(LOG, "tip 1000 final 1000 end 1001\n"
	                         "failed 0..9: E0; 1 ms\n"
	                         "failed 0..9: E1; 2 ms\n"
	                         "failed 0..9: E2; 4 ms\n"
	                         "failed 0..9: E3; 8 ms\n"
	                         "failed 0..9: E4; 8 ms\n"
	                         "blocks 0..9 lent\n"
	                         "idle\n");
	LOG[0] = 0;
	hj_driver_want(D, 20);
	answer_error(6, "again");
	run();
	answer(7, 10);
	assert_string_equal(LOG, "failed 10..19: again; 1 ms\n"
	                         "blocks 10..19 lent\n"
	                         "idle\n");
	assert_string_equal(requests(), "0+10 0+10 0+10 0+10 0+10 0+10 "
	                                "10+10 10+10");
	end();
}

/* Batches failing in one round wait for the same timer, said with the
 * time left, and the backoff doubles once per round; every waiting batch
 * is asked again when it fires. */
static void test_backoff_round(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	start(&o);
	begin(1000, 0, 30);
	answer_error(1, "b");
	answer_error(0, "a");
	answer_at(2, 0, 0, NULL); /* no block at all */
	run();
	assert_string_equal(requests(), "0+10 10+10 20+10 0+10 10+10 20+10");
	answer_error(4, "b");
	answer_error(5, "c");
	run();
	assert_string_equal(requests(), "0+10 10+10 20+10 0+10 10+10 20+10 "
	                                "10+10 20+10");
	answer(6, 10);
	answer(7, 10);
	answer(3, 10);
	assert_string_equal(LOG, "tip 1000 final 1000 end 1001\n"
	                         "failed 10..19: b; 1 ms\n"
	                         "failed 0..9: a; 1 ms\n"
	                         "failed 20..29: (no block); 1 ms\n"
	                         "failed 10..19: b; 2 ms\n"
	                         "failed 20..29: c; 2 ms\n"
	                         "blocks 0..9 lent\n"
	                         "blocks 10..19 copy\n"
	                         "blocks 20..29 copy\n"
	                         "idle\n");
	end();
}

/* Giving up: the first failure is said with delay 0, and nothing comes
 * after it, not even the blocks of a batch answered later. */
static void test_give_up(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.retry_min_ms = o.retry_max_ms = 0;
	start(&o);
	begin(1000, 0, 1000);
	answer_error(0, "refused");
	answer(1, 10);
	answer(2, 10);
	run();
	assert_string_equal(LOG, "tip 1000 final 1000 end 1001\n"
	                         "failed 0..9: refused; 0 ms\n");
	assert_int_equal(B.nreqs, 3);
	assert_int_equal(hj_driver_room(D), 0);
	assert_int_equal(hj_driver_ask_tip(D), -ECANCELED);
	assert_int_equal(B.ntip, 1);
	end();
}

/* A short answer: its blocks are taken, the rest asked at once in a batch
 * of its own (at the head or behind a batch held); no block at all, and a
 * block of another height, are failures; blocks beyond those asked are
 * not taken. */
static void test_short(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.depth = 2;
	o.hold = 4;
	start(&o);
	begin(59, 0, UINT64_MAX);
	assert_string_equal(requests(), "0+10 10+10");
	answer(1, 3); /* behind the head: 10..12 kept, 13..19 asked */
	assert_string_equal(requests(), "0+10 10+10 13+7");
	answer(0, 4); /* the head: 0..3 given, 4..9 asked */
	assert_string_equal(requests(), "0+10 10+10 13+7 4+6");
	answer(3, 6); /* 4..9 given, then 10..12 */
	answer(2, 7); /* 13..19 */
	assert_string_equal(requests(), "0+10 10+10 13+7 4+6 20+10 30+10");
	answer(4, 0);               /* nothing */
	answer_at(5, 10, 31, NULL); /* 31.. for 30.. */
	run();
	assert_string_equal(requests(), "0+10 10+10 13+7 4+6 20+10 30+10 "
	                                "20+10 30+10");
	answer_at(6, 12, 20, NULL); /* two more than asked */
	answer(7, 10);
	assert_string_equal(LOG, "tip 59 final 59 end 60\n"
	                         "blocks 0..3 lent\n"
	                         "blocks 4..9 lent\n"
	                         "blocks 10..12 copy\n"
	                         "blocks 13..19 lent\n"
	                         "failed 20..29: (no block); 1 ms\n"
	                         "failed 30..39: block 31 where 30 was "
	                         "asked for; 1 ms\n"
	                         "blocks 20..29 lent\n"
	                         "blocks 30..39 lent\n");
	assert_string_equal(requests(), "0+10 10+10 13+7 4+6 20+10 30+10 "
	                                "20+10 30+10 40+10 50+10");
	end();
}

/* Final heights by depth: tip - confirmations + 1, none while the tip is
 * below confirmations - 1; the end never goes down, and a tip going back
 * is said.  With upto_tip, the tip is the end. */
static void test_depth(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.confirmations = 3;
	start(&o);
	assert_int_equal(hj_driver_start(D, 0, UINT64_MAX), 0);
	tip_is(1, 0);
	assert_int_equal(B.nreqs, 0);
	tip_is(2, 0);
	assert_string_equal(requests(), "0+1");
	answer(0, 1);
	tip_is(30, 0);
	tip_is(25, 0);
	tip_fails("no tip");
	assert_string_equal(requests(), "0+1 1+10 11+10 21+8");
	assert_string_equal(LOG, "tip 1 no final end 0\n"
	                         "idle\n"
	                         "tip 2 final 0 end 1\n"
	                         "blocks 0..0 lent\n"
	                         "idle\n"
	                         "tip 30 final 28 end 29\n"
	                         "back tip 30 25\n"
	                         "tip 25 final 23 end 29\n"
	                         "tip error: no tip\n");
	end();

	o.upto_tip = 1;
	start(&o);
	assert_int_equal(hj_driver_start(D, 5, 8), 0);
	tip_is(6, 0);
	assert_string_equal(requests(), "5+2");
	answer(0, 2);
	hj_driver_want(D, 7); /* lower: nothing */
	hj_driver_want(D, 9);
	tip_is(20, 0);
	assert_string_equal(requests(), "5+2 7+2");
	assert_string_equal(LOG, "tip 6 final 4 end 7\n"
	                         "blocks 5..6 lent\n"
	                         "idle\n"
	                         "idle\n" /* 9 wanted, 7 allowed */
	                         "tip 20 final 18 end 21\n");
	end();
}

/* A tag: the backend's final() with it; final heights up to its block;
 * the tip going back said before the tag's block going back. */
static void test_tag(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.finality = HJ_FINALITY_SAFE;
	o.confirmations = 12; /* not used with a tag */
	start(&o);
	assert_int_equal(hj_driver_start(D, 10, UINT64_MAX), 0);
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(B.how, HJ_FINALITY_SAFE);
	tip_answer(20, 15, NULL);
	assert_string_equal(requests(), "10+6");
	tip_is(25, 12);
	tip_is(19, 10);
	assert_string_equal(requests(), "10+6");
	assert_string_equal(LOG, "tip 20 final 15 end 16\n"
	                         "back safe 15 12\n"
	                         "tip 25 final 12 end 16\n"
	                         "back tip 25 19\n"
	                         "back safe 12 10\n"
	                         "tip 19 final 10 end 16\n");
	end();

	/* A backend without final(): a tag cannot be asked. */
	start(&o);
	B.base.ops = &fake_ops_no_final;
	assert_int_equal(hj_driver_ask_tip(D), -EINVAL);
	assert_int_equal(B.ntip, 0);
	end();
}

/* One tip request at a time: asked while one is out, it is asked once
 * more after the answer, however often.  Once started, caught up or not,
 * the poll asks after poll_ms, but not while a request is out. */
static void test_wake(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	o.poll_ms = 1;
	start(&o);
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(B.ntip, 1);
	tip_answer(5, 0, NULL);
	assert_int_equal(B.ntip, 2); /* the wakes, coalesced */
	tip_answer(5, 0, NULL);
	assert_int_equal(B.ntip, 2);
	run(); /* not started: no poll */
	assert_int_equal(B.ntip, 2);
	assert_int_equal(hj_driver_start(D, 0, UINT64_MAX), 0);
	answer(0, 6);
	/* Caught up: the poll is armed; a wake's request is out when it
	 * fires, so it asks nothing. */
	assert_int_equal(hj_driver_ask_tip(D), 0);
	assert_int_equal(B.ntip, 3);
	run();
	assert_int_equal(B.ntip, 3);
	tip_answer(7, 0, NULL); /* 6..7 asked */
	assert_string_equal(requests(), "0+6 6+2");
	/* Not caught up, the batch out: the poll asks the tip all the same
	 * (a node failing the batch still says how far behind we are). */
	run();
	assert_int_equal(B.ntip, 4);
	tip_answer(9, 0, NULL); /* 8..9 asked beside it */
	assert_string_equal(requests(), "0+6 6+2 8+2");
	answer(1, 2);
	answer(2, 2);
	run(); /* caught up: the poll's request */
	assert_int_equal(B.ntip, 5);
	assert_string_equal(LOG, "tip 5 final 5 end 6\n"
	                         "tip 5 final 5 end 6\n"
	                         "blocks 0..5 lent\n"
	                         "idle\n"
	                         "tip 7 final 7 end 8\n"
	                         "tip 9 final 9 end 10\n"
	                         "blocks 6..7 lent\n"
	                         "blocks 8..9 lent\n"
	                         "idle\n");
	end();
}

/* Closed in a callback: nothing more, not the batches held behind, not
 * caught up. */
static void test_close_in_callback(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	start(&o);
	begin(19, 0, UINT64_MAX);
	answer(1, 10);
	close_on_blocks = 1;
	answer(0, 10);
	assert_string_equal(LOG, "tip 19 final 19 end 20\n"
	                         "blocks 0..9 lent\n");
	assert_int_equal(hj_driver_ask_tip(D), -ECANCELED);
	assert_int_equal(hj_driver_start(D, 0, 1), -ECANCELED);
	hj_driver_close(D); /* again: nothing */
	end();
}

/* The backend refusing a request: fatal, once, and nothing more. */
static void test_fatal(void **state)
{
	hj_driver_opts o = base_opts();

	(void)state;
	start(&o);
	tip_is(100, 0);
	B.refuse = -ENOMEM;
	assert_int_equal(hj_driver_start(D, 0, UINT64_MAX), 0);
	hj_driver_want(D, UINT64_MAX);
	assert_int_equal(hj_driver_ask_tip(D), -ECANCELED);
	assert_string_equal(LOG, "tip 100 final 100 end 101\n"
	                         "fatal -12\n");
	end();
}

/* What hj_driver_new refuses; hj_driver_free(NULL). */
static void test_options(void **state)
{
	hj_driver_opts o = base_opts(), x;
	hj_driver *d = (hj_driver *)&o;

	(void)state;
	memset(&B, 0, sizeof B);
	B.base.ops = &fake_ops;
	assert_int_equal(uv_loop_init(&loop), 0);
	x = o, x.loop = NULL;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	assert_null(d);
	x = o, x.be = NULL;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.blocks = NULL;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.failed = NULL;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.fatal = NULL;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.batch = 0;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.depth = 0;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.hold = 2;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.retry_max_ms = 0;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.finality = (hj_finality)7;
	assert_int_equal(hj_driver_new(&x, &d), -EINVAL);
	x = o, x.tip = NULL, x.back = NULL, x.idle = NULL;
	assert_int_equal(hj_driver_new(&x, &d), 0);
	hj_driver_free(d);
	hj_driver_free(NULL);
	hj_driver_close(NULL);
	run();
	assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_backoff_round),
	    cmocka_unit_test(test_give_up),
	    cmocka_unit_test(test_short),
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_tag),
	    cmocka_unit_test(test_wake),
	    cmocka_unit_test(test_close_in_callback),
	    cmocka_unit_test(test_fatal),
	    cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
