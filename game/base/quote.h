/* Quoting what a user or a node gave, for messages: the ground floor's,
 * since every layer says what it refuses. */
#ifndef HJ_QUOTE_H
#define HJ_QUOTE_H

#include <stddef.h>

/*
 * Writes s between double quotes into buf (n >= 8 bytes), escaping quotes,
 * backslashes and non-printable bytes as \xNN and cutting long strings with
 * "...", so that any bytes print safely in a message.
 */
void hj_quote(const char *s, char *buf, size_t n);

/*
 * Writes s into buf (n >= 8 bytes) as one shell word, for a command a
 * message tells the user to run ("chmod 600 FILE"): as is when it holds
 * only letters, digits and _./+-,:@%, else between single quotes with
 * each ' written as '\''.  A word too long for buf is cut (still quoted).
 */
void hj_shell_word(const char *s, char *buf, size_t n);

/* Writes url into buf with any "user:password@" it carries shown as
 * "***@", for a log line or a message (cut to n bytes). */
void hj_url_shown(const char *url, char *buf, size_t n);

#endif
