/* hashjackd's checkpoints on the thread pool (checkpoint.h). */
#include "checkpoint.h"

#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "say.h"

struct hjd_checkpoint {
	uv_loop_t *loop;
	uv_work_t work;
	hj_store_checkpointer *conn;
	long due;    /* pages written since the last copy began */
	int running; /* a copy is on the pool */
	int closing;
	int failing; /* the last copy failed (said) */
	/* The pool thread's: the copy's outcome. */
	int rc, wal, copied;
	uint64_t took; /* ns */
	char err[HJ_ERRLEN];
};

static void release(hjd_checkpoint *c)
{
	hj_store_checkpointer_close(c->conn);
	free(c);
}

static void copy_work(uv_work_t *w)
{
	hjd_checkpoint *c = w->data;
	uint64_t t0 = uv_hrtime();

	c->rc = hj_store_checkpoint(c->conn, &c->wal, &c->copied, c->err,
	                            sizeof c->err);
	c->took = uv_hrtime() - t0;
}

static void start(hjd_checkpoint *c);

static void copy_done(uv_work_t *w, int status)
{
	hjd_checkpoint *c = w->data;

	c->running = 0;
	if (c->closing) {
		release(c);
		return;
	}
	if (status != 0) {
		/* Cancelled: not run; the next commit asks again. */
	} else if (c->rc) {
		if (!c->failing)
			hjd_log(HJD_LOG_WARNING,
			        "%s; the next commit tries again (the WAL "
			        "grows until a copy succeeds)",
			        c->err);
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
		        c->copied, c->wal, (double)c->took / 1e6);
	}
	start(c);
}

static void start(hjd_checkpoint *c)
{
	if (c->running || c->closing || c->due < HJD_CHECKPOINT_PAGES)
		return;
	c->work.data = c;
	if (uv_queue_work(c->loop, &c->work, copy_work, copy_done) == 0) {
		c->running = 1;
		c->due = 0;
	}
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
	c->loop = loop;
	rc = hj_store_checkpointer_open(path, &c->conn, err, errlen);
	if (rc == 0)
		rc = hj_store_checkpoints_apart(s, err, errlen);
	if (rc) {
		release(c);
		return rc;
	}
	*out = c;
	return 0;
}

void hjd_checkpoint_wrote(hjd_checkpoint *c, long pages)
{
	if (c == NULL)
		return;
	if (pages > 0)
		c->due += pages;
	start(c);
}

void hjd_checkpoint_close(hjd_checkpoint *c)
{
	if (c == NULL)
		return;
	c->closing = 1;
	if (!c->running)
		release(c);
}
