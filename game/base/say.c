/* Error messages into the caller's buffer (say.h). */
#include "say.h"

#include <stdio.h>

void hj_vsay(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err == NULL || errlen == 0)
		return;
	vsnprintf(err, errlen, fmt, ap);
}

void hj_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hj_vsay(err, errlen, fmt, ap);
	va_end(ap);
}
