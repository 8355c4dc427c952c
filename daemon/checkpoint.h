/*
 * hashjackd's checkpoints (docs/STATE.md, "Checkpoints"): the pages the
 * commits wrote to the WAL are copied into the database file on a thread
 * of their own, at the lowest CPU priority, through a connection of their
 * own, once the commits since the last copy wrote HJD_CHECKPOINT_PAGES
 * pages (SQLite's own default interval), so that a block's commit never
 * waits for a copy and dealing never shares a core with one.  A copy that
 * fails is said once, until one succeeds again, and the next commit tries
 * again; the writing connection still copies by itself when the WAL passes
 * HJ_STORE_WAL_BOUND pages (daemon/core/store.h).
 */
#ifndef HJD_CHECKPOINT_H
#define HJD_CHECKPOINT_H

#include <uv.h>

#include "store.h"

#define HJD_CHECKPOINT_PAGES 1000

typedef struct hjd_checkpoint hjd_checkpoint;

/*
 * Opens the checkpoints' connection to the database at path and hands the
 * copies over from s, the writing connection.  Returns 0 with *out, or a
 * negative errno with the reason in err and *out NULL: s then copies as
 * SQLite does by default, after its commits.
 */
int hjd_checkpoint_new(uv_loop_t *loop, hj_store *s, const char *path,
                       hjd_checkpoint **out, char *err, size_t errlen);

/* A commit wrote `pages` pages (hj_store_pages_written): a copy starts
 * when due and none is running.  NULL: nothing. */
void hjd_checkpoint_wrote(hjd_checkpoint *c, long pages);

/* The copies that ended, as the loop learnt of them. */
unsigned long hjd_checkpoint_copies(const hjd_checkpoint *c);

/* No copy starts any more; waits for the one running, if any, to end.
 * c is freed once the loop runs again (its handle's close).  NULL:
 * nothing. */
void hjd_checkpoint_close(hjd_checkpoint *c);

#endif
