/* hashjackd's push wake-up (wakeup.h). */
#include "wakeup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "push.h"
#include "quote.h"
#include "say.h"

struct hjd_wakeup {
	hj_push *push;
	hjd_follower *f;
	const hj_config *cfg;
	hj_rpc_opts ro;
	int was_up;     /* push has worked once */
	char what[640]; /* "ws://... (eth_subscribe newHeads)", for the log */
};

static void on_wake(void *arg)
{
	struct hjd_wakeup *w = arg;
	hjd_follower_wake(w->f);
}

static void on_state(void *arg, int up, const char *why)
{
	struct hjd_wakeup *w = arg;

	if (up) {
		hjd_log(HJD_LOG_NOTICE, "push: %s %s",
		        w->was_up ? "back:" : "on:", w->what);
		w->was_up = 1;
		return;
	}
	hjd_log(HJD_LOG_WARNING,
	        "push: %s: %s; polling every %u ms until it is %s",
	        w->was_up ? "lost" : "unavailable", why,
	        w->cfg->poll_interval_ms, w->was_up ? "back" : "up");
}

static void on_closed(void *arg)
{
	free(arg);
}

int hjd_wakeup_start(uv_loop_t *loop, const hj_config *cfg, hj_backend *be,
                     const hj_rpc_opts *node, hjd_follower *f, hjd_wakeup **out)
{
	struct hjd_wakeup *w;
	char err[HJ_ERRLEN], url[512];
	int rc;

	*out = NULL;
	if (!cfg->push) {
		if (cfg->push_off_why)
			hjd_log(HJD_LOG_WARNING,
			        "push: off: %s; polling every "
			        "%u ms",
			        cfg->push_off_why, cfg->poll_interval_ms);
		return 0;
	}
	if (!be->ops->push) {
		hjd_log(HJD_LOG_WARNING,
		        "push: off: the node's family has none; polling every "
		        "%u ms",
		        cfg->poll_interval_ms);
		return 0;
	}
	w = calloc(1, sizeof *w);
	if (w == NULL) {
		hjd_log(HJD_LOG_WARNING, "push: out of memory; polling");
		return -ENOMEM;
	}
	w->f = f;
	w->cfg = cfg;
	w->ro = *node;
	w->ro.url = cfg->push_url;
	hj_url_shown(cfg->push_url, url, sizeof url);
	snprintf(w->what, sizeof w->what, "%s (%s)", url, be->ops->push_how);
	hj_push_opts o = {.loop = loop,
	                  .url = cfg->push_url,
	                  .ca_file = cfg->ca_file,
	                  .rpc = &w->ro,
	                  .wake = on_wake,
	                  .state = on_state,
	                  .arg = w};
	rc = be->ops->push(be, &o, &w->push, err, sizeof err);
	if (rc != 0) {
		hjd_log(HJD_LOG_WARNING, "push: %s; polling every %u ms", err,
		        cfg->poll_interval_ms);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void hjd_wakeup_close(hjd_wakeup *w)
{
	if (w == NULL)
		return;
	hj_push_close(w->push, on_closed, w);
}
