/*
 * The block driver (driver.h).
 *
 * Batches live in one list in height order; the head is the next to hand
 * over.  Each is asked (its backend request out), waiting (failed; asked
 * again when the retry timer fires) or ready (come ahead of its turn, its
 * blocks copied).  Heights below next_ask are in a batch or handed over;
 * those below next_give are handed over.  The list is at most hold + 1
 * long, so it is counted when needed rather than kept in counters.
 *
 * Every callback may call back into the driver, hj_driver_close included:
 * after each one the driver looks at d->dead before it touches anything
 * else, and the head is handed over by one loop (deliver) that a nested
 * call never enters (d->delivering).
 *
 * Memory: a batch is freed when it is handed over, or by hj_driver_free;
 * a request out holds its batch as its argument, so the driver is freed
 * only once the backend can no longer call back, and its two timers are
 * closed.
 */
#include "driver.h"
#include "say.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

enum state {
	ASKED,   /* its request is out */
	WAITING, /* failed: asked again when the retry timer fires */
	READY,   /* answered ahead of its turn: blocks are copies */
};

struct batch {
	hj_driver *d;
	struct batch *next; /* in height order */
	uint64_t from;
	size_t n;
	enum state state;
	hj_chain_block *blocks; /* READY */
};

struct hj_driver {
	hj_driver_opts o;
	struct batch *head, *tail;
	int started;
	uint64_t next_ask;  /* the first height in no batch yet */
	uint64_t next_give; /* the first height not handed over */
	uint64_t want_end;  /* the caller's: heights below it */
	/* The node's, the highest of every answer: heights below final_end
	 * are final, below tip_end exist. */
	uint64_t final_end, tip_end;
	int have_tip;
	uint64_t last_tip, last_final; /* the last answer's */
	int tip_busy;                  /* a tip request is out */
	int tip_again;                 /* asked meanwhile: once more */
	unsigned retry_ms;             /* the next round's delay */
	uint64_t retry_due;            /* loop time the retry timer fires */
	uv_timer_t retry, poll;
	int dead;       /* closed, given up or fatal: no callback, no request */
	int delivering; /* deliver() is handing over */
	int closed;     /* the timers are closing */
	int open_handles;
	int freeing; /* hj_driver_free was called */
};

/* ---- batches ---- */

static void batch_free(struct batch *b)
{
	hj_chain_blocks_free(b->blocks, b->blocks ? b->n : 0);
	free(b);
}

/* Batches asked or waiting (in flight, for the depth), or all of them. */
static size_t count(const hj_driver *d, int outstanding)
{
	size_t k = 0;

	for (const struct batch *b = d->head; b; b = b->next)
		k += !outstanding || b->state != READY;
	return k;
}

static int room(const hj_driver *d)
{
	return !d->dead && count(d, 1) < d->o.depth && count(d, 0) < d->o.hold;
}

/* The first height the node's answers do not allow yet. */
static uint64_t node_end(const hj_driver *d)
{
	return d->o.upto_tip ? d->tip_end : d->final_end;
}

static uint64_t fetch_end(const hj_driver *d)
{
	uint64_t e = node_end(d);

	return d->want_end < e ? d->want_end : e;
}

/* Nothing more from the driver: no callback, no request.  Requests out
 * stay the backend's until it is freed. */
static void die(hj_driver *d)
{
	d->dead = 1;
	if (!d->closed) {
		uv_timer_stop(&d->retry);
		uv_timer_stop(&d->poll);
	}
}

static void fatal(hj_driver *d, int err)
{
	if (d->dead)
		return;
	die(d);
	d->o.fatal(d->o.arg, err);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error);

static void ask(hj_driver *d, struct batch *b)
{
	int rc;

	b->state = ASKED;
	rc = d->o.be->ops->blocks(d->o.be, b->from, b->n, on_blocks, b);
	if (rc)
		fatal(d, rc);
}

static void on_poll(uv_timer_t *t);

/* Asks new batches while the bounds allow; says when caught up. */
static void pump(hj_driver *d)
{
	uint64_t end;

	if (d->dead || !d->started)
		return;
	while (room(d) && d->next_ask < (end = fetch_end(d))) {
		uint64_t left = end - d->next_ask;
		struct batch *b = calloc(1, sizeof *b);

		if (!b) {
			fatal(d, -ENOMEM);
			return;
		}
		b->d = d;
		b->from = d->next_ask;
		b->n = left < d->o.batch ? (size_t)left : d->o.batch;
		d->next_ask += b->n;
		if (d->tail)
			d->tail->next = b;
		else
			d->head = b;
		d->tail = b;
		ask(d, b);
		if (d->dead)
			return;
	}
	/* The tip's poll, caught up or not: while batches are out, their
	 * node may keep failing, and the caller's lag is counted from the
	 * tip now, not from the one known when they were asked. */
	if (d->o.poll_ms && d->have_tip && d->next_ask < d->want_end &&
	    !uv_is_active((uv_handle_t *)&d->poll))
		uv_timer_start(&d->poll, on_poll, d->o.poll_ms, 0);
	/* Caught up: said after the handing over that brought it there. */
	if (d->head || d->delivering || !d->have_tip ||
	    d->next_ask < fetch_end(d))
		return;
	if (d->o.idle)
		d->o.idle(d->o.arg);
}

/* Hands over head batch b (blocks: lent by the backend, or its copies),
 * then every ready batch behind it. */
static void deliver(hj_driver *d, struct batch *b, hj_chain_block *blocks)
{
	d->delivering = 1;
	for (;;) {
		d->head = b->next;
		if (!d->head)
			d->tail = NULL;
		d->next_give = b->from + b->n;
		d->o.blocks(d->o.arg, blocks, b->n);
		batch_free(b);
		b = d->head;
		if (d->dead || !b || b->state != READY)
			break;
		blocks = b->blocks;
	}
	d->delivering = 0;
}

/* ---- failures ---- */

static void on_retry(uv_timer_t *t)
{
	hj_driver *d = t->data;

	for (struct batch *b = d->head; b && !d->dead; b = b->next)
		if (b->state == WAITING)
			ask(d, b);
	pump(d);
}

/* Batch b failed (error NULL: no block).  The backoff doubles from one
 * round of retries to the next: a batch failing while the timer runs
 * waits for it. */
static void fail(hj_driver *d, struct batch *b, const char *error)
{
	uint64_t now = uv_now(d->o.loop);
	unsigned delay;

	b->state = WAITING;
	if (d->o.retry_min_ms == 0) {
		die(d);
		d->o.failed(d->o.arg, b->from, b->n, error, 0);
		return;
	}
	if (uv_is_active((uv_handle_t *)&d->retry)) {
		delay = d->retry_due > now ? (unsigned)(d->retry_due - now) : 1;
	} else {
		delay = d->retry_ms;
		d->retry_due = now + delay;
		uv_timer_start(&d->retry, on_retry, delay, 0);
		d->retry_ms = d->retry_ms > d->o.retry_max_ms / 2
		                  ? d->o.retry_max_ms
		                  : d->retry_ms * 2;
	}
	d->o.failed(d->o.arg, b->from, b->n, error, delay);
}

static void on_blocks(void *arg, hj_chain_block *blocks, size_t n,
                      const char *error)
{
	struct batch *b = arg;
	hj_driver *d = b->d;
	char why[HJ_ERRLEN];

	if (d->dead)
		return;
	if (!error && n == 0) {
		fail(d, b, NULL);
		return;
	}
	if (n > b->n)
		n = b->n; /* more than asked: not ours */
	for (size_t i = 0; !error && i < n; i++) {
		if (blocks[i].height != b->from + i) {
			snprintf(why, sizeof why,
			         "block %" PRIu64 " where %" PRIu64
			         " was asked for",
			         blocks[i].height, b->from + i);
			error = why;
		}
	}
	if (error) {
		fail(d, b, error);
		return;
	}
	d->retry_ms = d->o.retry_min_ms;
	if (n < b->n) {
		/* A short answer: the rest in a batch of its own, right
		 * behind. */
		struct batch *rest = calloc(1, sizeof *rest);

		if (!rest) {
			fatal(d, -ENOMEM);
			return;
		}
		rest->d = d;
		rest->from = b->from + n;
		rest->n = b->n - n;
		rest->next = b->next;
		b->next = rest;
		if (d->tail == b)
			d->tail = rest;
		b->n = n;
		ask(d, rest);
		if (d->dead)
			return;
	}
	if (b == d->head && !d->delivering) {
		deliver(d, b, blocks);
	} else {
		b->blocks = hj_chain_blocks_copy(blocks, n);
		if (!b->blocks) {
			fatal(d, -ENOMEM);
			return;
		}
		b->state = READY;
	}
	pump(d);
}

/* ---- the tip ---- */

static void on_tip(void *arg, uint64_t height, const char *error);
static void on_final(void *arg, uint64_t tip, uint64_t final,
                     const char *error);

static int request_tip(hj_driver *d)
{
	int rc;

	d->tip_busy = 1;
	if (d->o.finality != HJ_FINALITY_DEPTH)
		rc = d->o.be->ops->final(d->o.be, d->o.finality, on_final, d);
	else
		rc = d->o.be->ops->tip(d->o.be, on_tip, d);
	if (rc)
		d->tip_busy = 0;
	return rc;
}

static uint64_t plus1(uint64_t h)
{
	return h < UINT64_MAX ? h + 1 : h;
}

static void got_tip(hj_driver *d, uint64_t tip, uint64_t final,
                    const char *error)
{
	hj_driver_tip t = {.tip = tip};
	int rc;

	d->tip_busy = 0;
	if (d->dead)
		return;
	if (error) {
		if (d->o.tip)
			d->o.tip(d->o.arg, NULL, error);
	} else {
		if (d->o.finality != HJ_FINALITY_DEPTH) {
			t.has_final = 1;
			t.final = final;
		} else {
			uint64_t conf =
			    d->o.confirmations ? d->o.confirmations : 1;

			t.has_final = tip >= conf - 1;
			t.final = t.has_final ? tip - (conf - 1) : 0;
		}
		if (d->have_tip && d->o.back && tip < d->last_tip)
			d->o.back(d->o.arg, NULL, d->last_tip, tip);
		if (!d->dead && d->have_tip && d->o.back &&
		    d->o.finality != HJ_FINALITY_DEPTH &&
		    t.final < d->last_final)
			d->o.back(d->o.arg, hj_finality_name(d->o.finality),
			          d->last_final, t.final);
		if (d->dead)
			return;
		d->have_tip = 1;
		d->last_tip = tip;
		d->last_final = t.final;
		if (plus1(tip) > d->tip_end)
			d->tip_end = plus1(tip);
		if (t.has_final && plus1(t.final) > d->final_end)
			d->final_end = plus1(t.final);
		t.end = node_end(d);
		if (d->o.tip)
			d->o.tip(d->o.arg, &t, NULL);
	}
	if (d->dead)
		return;
	pump(d);
	if (d->tip_again && !d->dead && !d->tip_busy) {
		d->tip_again = 0;
		rc = request_tip(d);
		if (rc)
			fatal(d, rc);
	}
}

static void on_tip(void *arg, uint64_t height, const char *error)
{
	got_tip(arg, height, 0, error);
}

static void on_final(void *arg, uint64_t tip, uint64_t final, const char *error)
{
	got_tip(arg, tip, final, error);
}

/* The tip again, unless a request for it is out (its answer arms the
 * poll again). */
static void on_poll(uv_timer_t *t)
{
	hj_driver *d = t->data;
	int rc;

	if (d->dead || d->tip_busy)
		return;
	rc = request_tip(d);
	if (rc)
		fatal(d, rc);
}

/* ---- the interface ---- */

int hj_driver_new(const hj_driver_opts *o, hj_driver **out)
{
	hj_driver *d;

	*out = NULL;
	if (!o->loop || !o->be || !o->blocks || !o->failed || !o->fatal ||
	    !o->batch || !o->depth || o->hold < o->depth ||
	    o->retry_max_ms < o->retry_min_ms ||
	    (o->finality != HJ_FINALITY_DEPTH &&
	     !hj_finality_name(o->finality)))
		return -EINVAL;
	d = calloc(1, sizeof *d);
	if (!d)
		return -ENOMEM;
	d->o = *o;
	d->retry_ms = o->retry_min_ms;
	uv_timer_init(o->loop, &d->retry);
	uv_timer_init(o->loop, &d->poll);
	d->retry.data = d->poll.data = d;
	d->open_handles = 2;
	*out = d;
	return 0;
}

int hj_driver_ask_tip(hj_driver *d)
{
	if (d->dead)
		return -ECANCELED;
	if (d->o.finality != HJ_FINALITY_DEPTH && !d->o.be->ops->final)
		return -EINVAL;
	if (d->tip_busy) {
		d->tip_again = 1;
		return 0;
	}
	return request_tip(d);
}

int hj_driver_start(hj_driver *d, uint64_t from, uint64_t end)
{
	if (d->dead)
		return -ECANCELED;
	if (d->started)
		return -EALREADY;
	d->started = 1;
	d->next_ask = d->next_give = from;
	d->want_end = end;
	pump(d);
	return 0;
}

void hj_driver_want(hj_driver *d, uint64_t end)
{
	if (d->dead || end <= d->want_end)
		return;
	d->want_end = end;
	pump(d);
}

int hj_driver_room(const hj_driver *d)
{
	return room(d);
}

size_t hj_driver_held(const hj_driver *d)
{
	return count(d, 0);
}

uint64_t hj_driver_next(const hj_driver *d)
{
	return d->next_give;
}

static void driver_free(hj_driver *d)
{
	while (d->head) {
		struct batch *b = d->head;

		d->head = b->next;
		batch_free(b);
	}
	free(d);
}

static void on_closed(uv_handle_t *h)
{
	hj_driver *d = h->data;

	if (--d->open_handles == 0 && d->freeing)
		driver_free(d);
}

void hj_driver_close(hj_driver *d)
{
	if (!d || d->closed)
		return;
	d->dead = 1;
	d->closed = 1;
	uv_close((uv_handle_t *)&d->retry, on_closed);
	uv_close((uv_handle_t *)&d->poll, on_closed);
}

void hj_driver_free(hj_driver *d)
{
	if (!d)
		return;
	d->freeing = 1;
	hj_driver_close(d);
	if (d->open_handles == 0)
		driver_free(d);
}
