/*
 * What both ends of a WebSocket here share (RFC 6455): the handshake's
 * Sec-WebSocket-Accept and the reading of its header lists.  The server
 * (daemon/core/http.c) and the client (chain/wsclient.c) use them.
 */
#ifndef HJ_WEBSOCKET_H
#define HJ_WEBSOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <wslay/wslay.h>

/* Sec-WebSocket-Accept for key (24 characters: base64 of 16 bytes):
 * base64(SHA-1(key + the RFC's GUID)) into out, NUL-terminated.  Returns
 * 0, or -1 for a key of another length. */
int hj_ws_accept(const char *key, char out[29]);

/* Whether the comma-separated header list v holds token t (any case,
 * blanks around items ignored). */
int hj_ws_has_token(const char *v, const char *t);

/* wslay's recv_callback over bytes already read: up to len of the n at
 * *in into buf, moving *in on; none is WSLAY_ERR_WOULDBLOCK (-1). */
ssize_t hj_ws_take(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                   const uint8_t **in, size_t *n);

#endif
