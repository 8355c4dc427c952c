/*
 * TLS for the WebSocket client (wsclient.c): one client connection of
 * OpenSSL's libssl over two memory BIOs.  The caller moves the bytes (its
 * libuv stream: what the server sent goes in with hj_tls_put, what is to
 * be sent comes out of hj_tls_take) and OpenSSL does TLS, so that the
 * HTTP upgrade and the frames above it are the same bytes as over a plain
 * socket.
 *
 * The server's certificate is checked, always: its chain against the
 * system's CA store (SSL_CTX_set_default_verify_paths) or, when given,
 * against the CA certificates of one PEM file only; its name against the
 * host (SSL_set1_host, and SNI), or for an IP literal against the
 * certificate's IP addresses.  TLS 1.2 at least.  Nothing here does I/O
 * but reading the CA file.
 */
#ifndef HJ_TLS_H
#define HJ_TLS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct hj_tls hj_tls;

/* A CA file larger than this is refused (the system's whole bundle is
 * about 200 KiB). */
#define HJ_TLS_MAX_CA_FILE (16 * 1024 * 1024)

/*
 * Whether path is a CA file hj_tls_new takes: a regular file of at most
 * HJ_TLS_MAX_CA_FILE bytes, readable, holding at least one PEM
 * certificate ("-----BEGIN CERTIFICATE-----"), every PEM block of which
 * that OpenSSL reads (certificates, CRLs, keys) parses.
 * Returns 0, or -EINVAL / -ENOENT / -EACCES / -ENOMEM with err saying
 * why, without the path (the caller names it).
 */
int hj_tls_ca_check(const char *path, char *err, size_t errlen);

/*
 * A client connection to host (a name, or an IPv4 or IPv6 literal without
 * brackets), its certificates checked against ca_file's (NULL: the
 * system's CA store).  Nothing is sent yet: hj_tls_handshake starts.
 * Returns 0 with *out, or -EINVAL (the CA file: hj_tls_ca_check's words,
 * after "ca_file PATH: ") / -ENOMEM with err.
 */
int hj_tls_new(const char *host, const char *ca_file, hj_tls **out, char *err,
               size_t errlen);

/* Frees t and its connection; NULL: nothing. */
void hj_tls_free(hj_tls *t);

/* Bytes the server sent, p[0..n), to be read by hj_tls_handshake and
 * hj_tls_read.  0, or -ENOMEM. */
int hj_tls_put(hj_tls *t, const void *p, size_t n);

/*
 * Drives the handshake with what was put: 1 done (from then on
 * hj_tls_read and hj_tls_write), 0 more from the server is needed, -1
 * failed, why one printable line naming the host: "the TLS certificate of
 * HOST failed verification: REASON" (REASON
 * X509_verify_cert_error_string's: "self-signed certificate", "hostname
 * mismatch", ...) or "the TLS handshake with HOST failed: REASON"
 * (OpenSSL's: "wrong version number", "tlsv1 alert protocol version",
 * ...).  What it has to send (the ClientHello first) waits in
 * hj_tls_take, also after a failure (an alert).
 */
int hj_tls_handshake(hj_tls *t, char *why, size_t whylen);

/* hj_tls_read: the server ended TLS (close_notify). */
#define HJ_TLS_CLOSED (-2)

/*
 * Plaintext the server sent, into buf[0..cap): the number of bytes (> 0),
 * 0 when what was put holds no more, HJ_TLS_CLOSED, or -1 with why (a
 * record that does not decrypt, an alert).  Only after the handshake.
 */
ssize_t hj_tls_read(hj_tls *t, void *buf, size_t cap, char *why, size_t whylen);

/* Encrypts p[0..n) whole for hj_tls_take.  0, or -1 with why.  Only after
 * the handshake. */
int hj_tls_write(hj_tls *t, const void *p, size_t n, char *why, size_t whylen);

/* Queues TLS's close_notify for hj_tls_take (after the handshake; once). */
void hj_tls_close_notify(hj_tls *t);

/* What is to be sent to the server, up to cap bytes into buf: the number
 * of bytes, 0 when nothing waits. */
size_t hj_tls_take(hj_tls *t, void *buf, size_t cap);

#endif
