/* A growable byte buffer with a cap (buf.h). */
#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first allocation: most texts fit, the largest double a few times. */
#define FIRST_CAP 256

void hj_buf_init(hj_buf *b, size_t max)
{
	memset(b, 0, sizeof *b);
	b->max = max;
}

void hj_buf_free(hj_buf *b)
{
	if (b == NULL)
		return;
	free(b->p);
	hj_buf_init(b, b->max);
}

void hj_buf_reset(hj_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->p)
		b->p[0] = '\0';
}

int hj_buf_reserve(hj_buf *b, size_t more)
{
	size_t max = b->max ? b->max : HJ_BUF_MAX, need, ncap;
	char *p;

	if (b->err)
		return b->err;
	if (more > max || b->len > max - more)
		return b->err = -EMSGSIZE;
	need = b->len + more + 1; /* the NUL */
	if (need <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : FIRST_CAP < max + 1 ? FIRST_CAP : max + 1;
	while (ncap < need)
		ncap = ncap > (max + 1) / 2 ? max + 1 : ncap * 2;
	p = realloc(b->p, ncap);
	if (p == NULL)
		return b->err = -ENOMEM;
	p[b->len] = '\0'; /* a new buffer is "" at once */
	b->p = p;
	b->cap = ncap;
	return 0;
}

int hj_buf_put(hj_buf *b, const void *s, size_t n)
{
	int rc = hj_buf_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int hj_buf_str(hj_buf *b, const char *s)
{
	return hj_buf_put(b, s, strlen(s));
}

int hj_buf_vprintf(hj_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n, rc;

	if (b->err)
		return b->err;
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		rc = b->err = -EINVAL;
	else if ((rc = hj_buf_reserve(b, (size_t)n)) == 0) {
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
	return rc;
}

int hj_buf_printf(hj_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = hj_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *hj_buf_take(hj_buf *b, size_t *len)
{
	char *p;

	if (!b->err && b->p == NULL)
		hj_buf_reserve(b, 0);
	if (b->err) {
		hj_buf_free(b);
		return NULL;
	}
	p = b->p;
	if (len)
		*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}
