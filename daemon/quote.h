/* Quoting what a user or a node gave, for messages. */
#ifndef HJ_QUOTE_H
#define HJ_QUOTE_H

#include <stddef.h>

/*
 * Writes s between double quotes into buf (n >= 8 bytes), escaping quotes,
 * backslashes and non-printable bytes as \xNN and cutting long strings with
 * "...", so that any bytes print safely in a message.
 */
void hj_quote(const char *s, char *buf, size_t n);

#endif
