/*
 * The ground floor's error messages: every module that can fail says why
 * in a buffer its caller gives (craft: libraries never print; the caller
 * decides whether to log, print or pass the message on).
 *
 * HJ_ERRLEN is the one size of such a buffer.  A message is a sentence or
 * two with at most a quoted snippet of the input (quote.h cuts
 * those), and a caller that wraps a callee's message in its own words
 * stays far below it.
 */
#ifndef HJ_SAY_H
#define HJ_SAY_H

#include <stdarg.h>
#include <stddef.h>

#define HJ_ERRLEN 1024

/* The message into err[0..errlen), cut to fit and always NUL-terminated;
 * nothing when err is NULL or errlen 0. */
void hj_say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void hj_vsay(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
