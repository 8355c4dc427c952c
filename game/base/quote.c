/* Quoting what a user or a node gave, for messages (quote.h). */
#include "quote.h"

#include <stdio.h>
#include <string.h>

void hj_quote(const char *k, char *buf, size_t n)
{
	size_t o = 0;

	if (n < 8)
		return;
	buf[o++] = '"';
	for (; *k != '\0' && o + 8 < n; k++) {
		unsigned char c = (unsigned char)*k;

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	if (*k != '\0') {
		buf[o++] = '.';
		buf[o++] = '.';
		buf[o++] = '.';
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

void hj_shell_word(const char *s, char *buf, size_t n)
{
	size_t w = 0;
	int plain = *s != '\0';

	for (const char *c = s; *c && plain; c++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
		               "VWXYZ0123456789_./+-,:@%",
		               *c) != NULL;
	if (plain) {
		snprintf(buf, n, "%s", s);
		return;
	}
	if (n < 8) {
		snprintf(buf, n, "''");
		return;
	}
	buf[w++] = '\'';
	for (const char *c = s; *c && w + 6 < n; c++) {
		if (*c == '\'') {
			memcpy(buf + w, "'\\''", 4);
			w += 4;
		} else {
			buf[w++] = *c;
		}
	}
	buf[w++] = '\'';
	buf[w] = '\0';
}

void hj_url_shown(const char *url, char *buf, size_t n)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	size_t auth = strcspn(host, "/?#@");

	if (host[auth] == '@')
		snprintf(buf, n, "%.*s***@%s", (int)(host - url), url,
		         host + auth + 1);
	else
		snprintf(buf, n, "%s", url);
}
