/*
 * hashjackd's push wake-up: the backend's push() (chain/backend.h, over
 * chain/push.h) opened from [chain] push and push_url, waking the
 * follower (hjd_follower_wake) and logging once when push is lost and
 * once when it is back.  Polling goes on either way.
 */
#ifndef HJD_WAKEUP_H
#define HJD_WAKEUP_H

#include <uv.h>

#include "backend.h"
#include "config.h"
#include "follower.h"
#include "rpc.h"

typedef struct hjd_wakeup hjd_wakeup;

/*
 * Starts push for f when cfg says so, through be's push() (borrowed for
 * the call); node: the node's client options (the Bitcoin family's long
 * poll takes its credentials; borrowed, with cfg, until
 * hjd_wakeup_close).  Returns 0 with *out, which is NULL when push is off
 * (said in the log when the configuration turned it off); or a negative
 * errno (-ENOMEM, or push()'s) and *out NULL when it cannot start (said;
 * the daemon polls).
 */
int hjd_wakeup_start(uv_loop_t *loop, const hj_config *cfg, hj_backend *be,
                     const hj_rpc_opts *node, hjd_follower *f,
                     hjd_wakeup **out);

/* Stops it; its handles close on the loop.  NULL: nothing. */
void hjd_wakeup_close(hjd_wakeup *w);

#endif
