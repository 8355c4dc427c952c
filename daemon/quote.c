#include "quote.h"

#include <stdio.h>

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
