/*
 * The round API (docs/API.md): paths to answers, the stream's
 * subscriptions, /healthz, /metrics and the page's files.  Between the
 * connections (http.h) and the dealer as the server sees it (view.h).
 */
#ifndef HJ_API_H
#define HJ_API_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"
#include "view.h"

typedef struct hj_api hj_api;

typedef struct hj_api_opts {
	unsigned max_subscriptions; /* per WebSocket */
	/* /healthz: the last block's age, in seconds; 0 for the family's
	 * default (hjd_serve_max_age, confirmations as a number) once the
	 * view knows the family (`hashjack serve` without -c). */
	unsigned max_age_s;
} hj_api_opts;

/* v is borrowed; the handler (hj_api_handler) goes to hj_server_new. */
hj_api *hj_api_new(hj_view *v, const hj_api_opts *o);
void hj_api_free(hj_api *a);
void hj_api_handler(hj_api *a, hj_http_handler *h);
/* The server, for /metrics (set once it exists). */
void hj_api_set_server(hj_api *a, hj_server *s);

/* Why the view is not up to date (the last poll's error), or NULL. */
void hj_api_set_down(hj_api *a, const char *why);

/* Sends a block's messages to every subscriber who wants them: a
 * hj_view_fn, ctx the api. */
void hj_api_block(void *ctx, uint64_t height, const hj_update *u, size_t n);

#endif
