/*
 * The web page's files (cli/serve/www/), built into the binary by
 * cli/serve/embed.cmake: the server reads no file to serve them.
 */
#ifndef HJC_WWW_H
#define HJC_WWW_H

#include <stddef.h>

typedef struct hjc_www_file {
	const char *path; /* "/index.html"; NULL ends the table */
	const char *type; /* its Content-Type */
	const unsigned char *data;
	size_t len;
} hjc_www_file;

extern const hjc_www_file hjc_www_files[];

#endif
