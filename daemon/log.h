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

/*
 * Between hjd_log_hold and hjd_log_release, the calling thread's lines at
 * HJD_LOG_NOTICE and below are gathered and written together, whole lines
 * of at most PIPE_BUF bytes at once (a block's hundreds of lines in a few
 * writes, not one each).  A warning or worse is written at once, after the
 * lines gathered before it.  One thread holds at a time (hashjackd's loop);
 * other threads' lines are not held.
 */
void hjd_log_hold(void);
void hjd_log_release(void);

#endif
