/*
 * The web page's files (cli/serve/www/), built into the binary by
 * cli/serve/embed.cmake: the server reads no file to serve them.
 */
#ifndef HJ_WWW_H
#define HJ_WWW_H

#include <stddef.h>

typedef struct hj_www_file {
	const char *path; /* "/index.html"; NULL ends the table */
	const char *type; /* its Content-Type */
	const unsigned char *data;
	size_t len;
} hj_www_file;

extern const hj_www_file hj_www_files[];

#endif
