/*
 * Diagnostics: one line per event on stderr, with a "<N>" syslog priority
 * prefix that journald reads (sd-daemon(3)); each line written with one
 * write(2) so that lines never interleave.
 */
#ifndef HJD_LOG_H
#define HJD_LOG_H

#define HJD_LOG_ERR     3
#define HJD_LOG_WARNING 4
#define HJD_LOG_NOTICE  5
#define HJD_LOG_INFO    6
#define HJD_LOG_DEBUG   7

__attribute__((format(printf, 2, 3))) void hjd_log(int prio, const char *fmt,
                                                   ...);

/* Lines at HJD_LOG_DEBUG are dropped unless on (hashjackd --debug). */
void hjd_log_debug(int on);

#endif
