/* hashjackd's checkpoints on a thread of their own (checkpoint.h). */
#include "checkpoint.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "log.h"
#include "say.h"

struct hjd_checkpoint {
	hj_store_checkpointer *conn; /* the thread's */
	uv_thread_t thread;
	uv_async_t done; /* the thread says a copy ended */
	uv_mutex_t mu;
	uv_cond_t cv;
	/* Under mu: the loop asks (go, quit); the thread answers (ended,
	 * with the copy's outcome below). */
	int go, quit, ended;
	int rc, wal, copied;
	uint64_t took; /* ns */
	char err[HJ_ERRLEN];
	/* The loop's alone. */
	long due;    /* pages written since the last copy began */
	int running; /* a copy was asked and has not ended */
	int failing; /* the last copy failed (said) */
	unsigned long copies;
};

/* The thread: the lowest CPU priority (its own, on Linux), so that the
 * copy takes a core from nothing else hashjackd does; then one copy each
 * time it is asked, until it is told to quit. */
static void copier(void *arg)
{
	hjd_checkpoint *c = arg;

	(void)setpriority(PRIO_PROCESS, 0, 19); /* lower: no privilege */
	uv_mutex_lock(&c->mu);
	for (;;) {
		while (!c->go && !c->quit)
			uv_cond_wait(&c->cv, &c->mu);
		if (c->quit)
			break;
		c->go = 0;
		uv_mutex_unlock(&c->mu);

		uint64_t t0 = uv_hrtime();
		int wal = 0, copied = 0;
		char err[HJ_ERRLEN] = "";
		int rc = hj_store_checkpoint(c->conn, &wal, &copied, err,
		                             sizeof err);
		uint64_t took = uv_hrtime() - t0;

		uv_mutex_lock(&c->mu);
		c->rc = rc;
		c->wal = wal;
		c->copied = copied;
		c->took = took;
		snprintf(c->err, sizeof c->err, "%s", err);
		c->ended = 1;
		uv_async_send(&c->done);
	}
	uv_mutex_unlock(&c->mu);
}

static void start(hjd_checkpoint *c)
{
	if (c->running || c->due < HJD_CHECKPOINT_PAGES)
		return;
	uv_mutex_lock(&c->mu);
	c->go = 1;
	uv_cond_signal(&c->cv);
	uv_mutex_unlock(&c->mu);
	c->running = 1;
	c->due = 0;
}

/* On the loop: the copy's outcome said, and the next one started when
 * due. */
static void on_done(uv_async_t *h)
{
	hjd_checkpoint *c = h->data;
	int rc, wal, copied;
	uint64_t took;
	char err[HJ_ERRLEN];

	uv_mutex_lock(&c->mu);
	if (!c->ended) {
		uv_mutex_unlock(&c->mu);
		return;
	}
	c->ended = 0;
	rc = c->rc;
	wal = c->wal;
	copied = c->copied;
	took = c->took;
	snprintf(err, sizeof err, "%s", c->err);
	uv_mutex_unlock(&c->mu);

	c->running = 0;
	c->copies++;
	if (rc) {
		if (!c->failing)
			hjd_log(HJD_LOG_WARNING,
			        "%s; the next commit tries again (the WAL "
			        "grows until a copy succeeds)",
			        err);
		c->failing = 1;
	} else {
		if (c->failing)
			hjd_log(HJD_LOG_NOTICE,
			        "database checkpoint: the WAL's pages are "
			        "copied again");
		c->failing = 0;
		hjd_log(HJD_LOG_DEBUG,
		        "database checkpoint: %d of the WAL's %d pages in the "
		        "database file, %.3f ms",
		        copied, wal, (double)took / 1e6);
	}
	start(c);
}

static void on_closed(uv_handle_t *h)
{
	hjd_checkpoint *c = h->data;

	uv_cond_destroy(&c->cv);
	uv_mutex_destroy(&c->mu);
	free(c);
}

int hjd_checkpoint_new(uv_loop_t *loop, hj_store *s, const char *path,
                       hjd_checkpoint **out, char *err, size_t errlen)
{
	hjd_checkpoint *c = calloc(1, sizeof *c);
	int rc;

	*out = NULL;
	if (c == NULL) {
		hj_say(err, errlen, "%s: checkpointer: out of memory", path);
		return -ENOMEM;
	}
	rc = hj_store_checkpointer_open(path, &c->conn, err, errlen);
	if (rc) {
		free(c);
		return rc;
	}
	if (uv_mutex_init(&c->mu) != 0)
		goto no_thread;
	if (uv_cond_init(&c->cv) != 0) {
		uv_mutex_destroy(&c->mu);
		goto no_thread;
	}
	if (uv_async_init(loop, &c->done, on_done) != 0) {
		uv_cond_destroy(&c->cv);
		uv_mutex_destroy(&c->mu);
		goto no_thread;
	}
	c->done.data = c;
	/* The copies alone do not keep the loop running. */
	uv_unref((uv_handle_t *)&c->done);
	if (uv_thread_create(&c->thread, copier, c) != 0) {
		hj_store_checkpointer_close(c->conn);
		uv_close((uv_handle_t *)&c->done, on_closed);
		hj_say(err, errlen, "%s: checkpointer: cannot start its thread",
		       path);
		return -EAGAIN;
	}
	rc = hj_store_checkpoints_apart(s, err, errlen);
	if (rc) {
		hjd_checkpoint_close(c);
		return rc;
	}
	*out = c;
	return 0;
no_thread:
	hj_store_checkpointer_close(c->conn);
	free(c);
	hj_say(err, errlen, "%s: checkpointer: cannot make its thread", path);
	return -EAGAIN;
}

void hjd_checkpoint_wrote(hjd_checkpoint *c, long pages)
{
	if (c == NULL)
		return;
	if (pages > 0)
		c->due += pages;
	start(c);
}

unsigned long hjd_checkpoint_copies(const hjd_checkpoint *c)
{
	return c != NULL ? c->copies : 0;
}

void hjd_checkpoint_close(hjd_checkpoint *c)
{
	if (c == NULL)
		return;
	uv_mutex_lock(&c->mu);
	c->quit = 1;
	uv_cond_signal(&c->cv);
	uv_mutex_unlock(&c->mu);
	uv_thread_join(&c->thread); /* after the copy running, if any */
	hj_store_checkpointer_close(c->conn);
	uv_close((uv_handle_t *)&c->done, on_closed);
}
