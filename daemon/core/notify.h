/*
 * systemd's notification protocol, without libsystemd: datagrams to
 * $NOTIFY_SOCKET (a path, or "@name" for the abstract namespace).
 */
#ifndef HJ_NOTIFY_H
#define HJ_NOTIFY_H

#include <stdint.h>

/* Sends msg ("READY=1", "STATUS=...", "STOPPING=1", "WATCHDOG=1").  Returns
 * 0 when sent or when NOTIFY_SOCKET is unset, -errno on failure. */
int hj_notify(const char *msg);

/* The watchdog interval when systemd asked for one (WATCHDOG_USEC set and
 * WATCHDOG_PID unset or ours), else 0. */
uint64_t hj_notify_watchdog_usec(void);

#endif
