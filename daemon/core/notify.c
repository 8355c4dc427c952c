/*
 * systemd's notification protocol (sd_notify(3)) without libsystemd: one
 * datagram per message to the AF_UNIX socket named by $NOTIFY_SOCKET.  A
 * socket is opened and closed per message: three system calls, cheap next
 * to a cached descriptor that would have to follow fork() and a changed
 * environment.  A caller sending STATUS= per block during catch-up should
 * still rate-limit it.
 */
#include "notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Fills *sa from $NOTIFY_SOCKET's value; returns its length or -errno. */
static int notify_addr(const char *e, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(e);

	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (e[0] != '/' && e[0] != '@')
		return -EAFNOSUPPORT; /* e.g. vsock:, which we do not speak */
	if (n < 2 || n > sizeof sa->sun_path)
		return -EINVAL;
	memcpy(sa->sun_path, e, n);
	if (e[0] == '@') {
		/* Abstract: a leading NUL, and the length says where the name
		 * ends (no terminating NUL). */
		sa->sun_path[0] = '\0';
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		if (n == sizeof sa->sun_path)
			return -EINVAL; /* no room for the NUL */
		*len =
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	return 0;
}

int hj_notify(const char *msg)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen = 0;
	size_t len = strlen(msg);
	ssize_t w;
	int fd, r;

	if (e == NULL || e[0] == '\0')
		return 0;
	r = notify_addr(e, &sa, &salen);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Never block the loop: a notify socket nobody reads (a test's, a
	 * wedged manager's) drops the message (-EAGAIN) instead. */
	do
		w = sendto(fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT,
		           (struct sockaddr *)&sa, salen);
	while (w < 0 && errno == EINTR);
	r = w < 0 ? -errno : (size_t)w == len ? 0 : -EIO;
	close(fd);
	return r;
}

/* Digits only, no overflow; 0 on anything else. */
static uint64_t parse_env_u64(const char *s)
{
	uint64_t x = 0;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return 0;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	return x;
}

uint64_t hj_notify_watchdog_usec(void)
{
	const char *pid = getenv("WATCHDOG_PID");

	/* WATCHDOG_PID names the process the watchdog is meant for; a child
	 * that inherited the environment must not answer for its parent. */
	if (pid != NULL && parse_env_u64(pid) != (uint64_t)getpid())
		return 0;
	return parse_env_u64(getenv("WATCHDOG_USEC"));
}
