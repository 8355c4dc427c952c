/*
 * The round API (docs/API.md): paths to answers, the stream's
 * subscriptions, /healthz, /metrics and the page's files.  Between the
 * connections (http.h) and the dealer as the server sees it (view.h).
 */
#ifndef HJC_API_H
#define HJC_API_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"
#include "view.h"

typedef struct hjc_api hjc_api;

typedef struct hjc_api_opts {
	unsigned max_subscriptions; /* per WebSocket */
	/* /healthz: the last block's age, in seconds; 0 for the family's
	 * default (hj_config_serve_max_age, confirmations as a number) once the
	 * view knows the family (`hashjack serve` without -c). */
	unsigned max_age_s;
} hjc_api_opts;

/* v is borrowed; the handler (hjc_api_handler) goes to hj_server_new.
 * Returns 0 with *out, or -ENOMEM and *out NULL. */
int hjc_api_new(hjc_view *v, const hjc_api_opts *o, hjc_api **out);
void hjc_api_free(hjc_api *a);
void hjc_api_handler(hjc_api *a, hj_server_handler *h);
/* The server, for /metrics (set once it exists). */
void hjc_api_set_server(hjc_api *a, hj_server *s);

/* Why the view is not up to date (the last poll's error), or NULL. */
void hjc_api_set_down(hjc_api *a, const char *why);

/* Sends a block's messages to every subscriber who wants them: a
 * hjc_view_fn, ctx the api. */
void hjc_api_block(void *ctx, uint64_t height, const hjc_update *u, size_t n);

#endif
