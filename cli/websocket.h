/*
 * What both ends of a WebSocket here share (RFC 6455): the handshake's
 * Sec-WebSocket-Accept and the reading of its header lists.  The server
 * (cli/serve/http.c) and the client (cli/wsclient.c) use them.
 */
#ifndef HJ_WEBSOCKET_H
#define HJ_WEBSOCKET_H

/* Sec-WebSocket-Accept for key (24 characters: base64 of 16 bytes):
 * base64(SHA-1(key + the RFC's GUID)) into out, NUL-terminated.  Returns
 * 0, or -1 for a key of another length. */
int hj_ws_accept(const char *key, char out[29]);

/* Whether the comma-separated header list v holds token t (any case,
 * blanks around items ignored). */
int hj_http_has_token(const char *v, const char *t);

#endif
