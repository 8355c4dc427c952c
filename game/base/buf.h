/*
 * A growable byte buffer with a cap (curl's dynbuf): what the card log
 * line, the Prometheus page, the tool's text and serve's messages are
 * written into.
 *
 * Growth doubles from a first allocation up to max, never beyond: a put
 * that would pass max fails with -EMSGSIZE, one whose allocation fails
 * with -ENOMEM.  Errors are sticky: after the first, every later put does
 * nothing and returns it, so a writer checks once at its end.  While no
 * error is set, p[len] is a NUL (the text is a C string too) and the NUL
 * is not counted against max.
 *
 *	hj_buf b = {0};          (or hj_buf_init(&b, max) for a cap)
 *	hj_buf_str(&b, "...");  hj_buf_printf(&b, "%d", n);
 *	if (b.err) ...;  use b.p[0..b.len);  hj_buf_free(&b);
 */
#ifndef HJ_BUF_H
#define HJ_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* A default cap for text nobody sized: 64 MiB. */
#define HJ_BUF_MAX ((size_t)64 << 20)

typedef struct hj_buf {
	char *p;    /* owned; NULL until the first put */
	size_t len; /* bytes written, the NUL excluded */
	size_t cap; /* bytes allocated */
	size_t max; /* len never passes it; 0 means HJ_BUF_MAX */
	int err;    /* 0, -ENOMEM, -EMSGSIZE (or -EINVAL, a format
	               hj_buf_printf cannot write): the first failure */
} hj_buf;

/* An empty buffer of at most max bytes (0: HJ_BUF_MAX); nothing is
 * allocated yet.  A buffer set to {0} is the same as one of HJ_BUF_MAX. */
void hj_buf_init(hj_buf *b, size_t max);
/* Frees the memory; b is then empty (max kept).  NULL is fine. */
void hj_buf_free(hj_buf *b);
/* Empties b for reuse, its memory and max kept, its error cleared. */
void hj_buf_reset(hj_buf *b);

/* Room for more bytes beyond len: 0, or the (sticky) error. */
int hj_buf_reserve(hj_buf *b, size_t more);
/* Appends s[0..n); 0 or the sticky error. */
int hj_buf_put(hj_buf *b, const void *s, size_t n);
int hj_buf_str(hj_buf *b, const char *s);
int hj_buf_printf(hj_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int hj_buf_vprintf(hj_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Takes the text: p (NUL-terminated, the caller frees it; an empty
 * buffer gives an allocated "") with its length in *len when len is not
 * NULL; b is then empty.  NULL, b freed, when an error was set or memory
 * runs out. */
char *hj_buf_take(hj_buf *b, size_t *len);

#endif
