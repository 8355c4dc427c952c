/*
 * hashjack serve benchmark: the round API under load and the stream's
 * fan-out, each against a baseline measured in the same run.
 *
 *   http:    requests per second of GET /v1/rounds/{id}, of an open round
 *            and of a settled one, on 64 keep-alive connections, each
 *            sending its next request when the answer is in, and the
 *            server's CPU time per request; baseline: the same load on
 *            GET /healthz, which reads nothing.
 *   fan-out: N WebSocket subscribers of /v1/stream (100, 1,000, 10,000);
 *            the bench deals a block as the dealer does (tests/
 *            dealer_fixture.h) and times from just before the line's
 *            write(2) until the last subscriber has that block's
 *            BlockUpdate; the median and the worst of several blocks.
 *            Baseline: a bare libuv server (a child of the bench) that
 *            sends the same bytes (the same messages, framed the same) to
 *            the same N connections when the bench writes them to a pipe:
 *            what any server must pay to write them and this client to
 *            read them.
 *
 * The server is `hashjack serve` (the binary beside this one unless
 * --hashjack says otherwise), a child process with the bench's raised
 * RLIMIT_NOFILE, over a fixture dealer's database and card log in a
 * temporary directory.  Both ends of every connection are on this
 * machine: the client's work (one core's worth at most) is in both the
 * figure and its baseline.
 *
 * Targets (the issue): a block reaches 10,000 subscribers within 100 ms
 * of its log line (judged on the worst block), and the server's RSS with
 * 10,000 subscribers stays under 256 MiB.
 *
 * Usage: bench_serve [--seconds S] [--blocks B] [--subscribers N,N,...]
 *                    [--hashjack PATH]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <jansson.h>
#include <llhttp.h>
#include <uv.h>
#include <wslay/wslay.h>

#include "dealer_fixture.h"
#include "say.h"

#define MAX_SIZES      8
#define MAX_BLOCKS     1000
#define HTTP_CONNS     64
#define CONNECTING_MAX 256 /* handshakes in flight while subscribing */

static uv_loop_t lp;
static char readbuf[65536]; /* every read of the loop, used at once */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

static pid_t serve_pid = -1, echo_pid = -1;
static char tmpdir[PATH_MAX];

/* Ends the children and removes the temporary directory (flat: the
 * fixture's files and the server's standard error). */
static void cleanup(void)
{
	char path[PATH_MAX + 260];
	if (serve_pid > 0) {
		kill(serve_pid, SIGKILL);
		waitpid(serve_pid, NULL, 0);
	}
	if (echo_pid > 0) {
		kill(echo_pid, SIGKILL);
		waitpid(echo_pid, NULL, 0);
	}
	if (!tmpdir[0])
		return;
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0) {
			snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	if (rmdir(tmpdir) != 0)
		fprintf(stderr, "bench_serve: could not remove %s: %s\n",
		        tmpdir, strerror(errno));
	tmpdir[0] = 0;
}

static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("bench_serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup();
	exit(1);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

/* ---- waiting on the loop ---- */

static uv_timer_t tick; /* wakes the loop so that deadlines are seen */

static void on_tick(uv_timer_t *t)
{
	(void)t;
}

/* Runs the loop until cond(arg), or secs have passed: 0 or -1. */
static int run_until(int (*cond)(void *), void *arg, double secs)
{
	uint64_t end = uv_hrtime() + (uint64_t)(secs * 1e9);
	while (!cond || !cond(arg)) {
		if (uv_hrtime() >= end)
			return -1;
		uv_run(&lp, UV_RUN_ONCE);
	}
	return 0;
}

/* ---- the server, a child ---- */

/* Whether a complete line of path holds what (the line in line). */
static int file_has(const char *path, const char *what, char *line, size_t n)
{
	FILE *f = fopen(path, "r");
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, (int)n, f))
		found = strstr(line, what) && strchr(line, '\n');
	fclose(f);
	return found;
}

static void show_file(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		fprintf(stderr, "  | %s", line);
	if (f)
		fclose(f);
}

/* Starts `hashjack serve` on the fixture; returns its port. */
static unsigned start_serve(const char *exe, const hj_fixture *fx,
                            const char *errfile)
{
	char line[512];
	unsigned port = 0;
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDWR);
		if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0 ||
		    dup2(nul, 0) < 0)
			_exit(127);
		char *argv[] = {
		    (char *)exe, "serve", "--db", (char *)hj_fixture_db(fx),
		    "--card-log", (char *)hj_fixture_log(fx),
		    "--serve.listen=127.0.0.1:0",
		    "--serve.max_connections=30000",
		    "--serve.max_connections_per_ip=30000",
		    /* No pings, no idle drops while the bench is busy
		     * elsewhere: a subscriber here only reads. */
		    "--serve.ping_interval_ms=3600000",
		    "--serve.idle_timeout_ms=3600000", NULL};
		execv(exe, argv);
		_exit(127);
	}
	serve_pid = pid;
	uint64_t end = uv_hrtime() + 15 * (uint64_t)1000000000;
	while (!file_has(errfile, "listening on http://127.0.0.1:", line,
	                 sizeof line)) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			serve_pid = -1;
			show_file(errfile);
			die("%s serve exited (status %d) before listening", exe,
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
		if (uv_hrtime() > end) {
			show_file(errfile);
			die("%s serve did not listen within 15 s", exe);
		}
		uv_sleep(10);
	}
	if (sscanf(strstr(line, "http://127.0.0.1:"), "http://127.0.0.1:%u/",
	           &port) != 1)
		die("cannot read the port in \"%s\"", line);
	return port;
}

static void stop_serve(const char *errfile)
{
	int st = 0;
	kill(serve_pid, SIGTERM);
	uint64_t end = uv_hrtime() + 10 * (uint64_t)1000000000;
	while (waitpid(serve_pid, &st, WNOHANG) == 0) {
		if (uv_hrtime() > end) {
			kill(serve_pid, SIGKILL);
			waitpid(serve_pid, &st, 0);
			break;
		}
		uv_sleep(10);
	}
	serve_pid = -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		show_file(errfile);
		fprintf(stderr, "bench_serve: hashjack serve did not stop "
		                "cleanly on SIGTERM\n");
	}
}

/* A "key: number" line of /proc/pid/FILE, 0 when unknown: status's VmRSS
 * and VmHWM (KiB), io's syscw (write-like system calls). */
static uint64_t proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	uint64_t v = 0;
	size_t kl = strlen(key);
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = strtoull(line + kl + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* CPU time, in ns, of every thread of process pid (0: this thread only),
 * from /proc's schedstat (its first field). */
static uint64_t cpu_ns(pid_t pid)
{
	char path[96];
	uint64_t sum = 0;
	unsigned long long v;
	DIR *d = NULL;
	struct dirent *e;

	if (pid == 0) {
		FILE *f = fopen("/proc/thread-self/schedstat", "r");
		if (f && fscanf(f, "%llu", &v) == 1)
			sum = v;
		if (f)
			fclose(f);
		return sum;
	}
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%.16s/schedstat",
		         (int)pid, e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fscanf(f, "%llu", &v) == 1)
			sum += v;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return sum;
}

/* ---- one blocking GET, for the setup ---- */

struct body {
	char *p;
	size_t n;
	int complete;
};

static int on_get_body(llhttp_t *p, const char *at, size_t n)
{
	struct body *b = p->data;
	char *q = realloc(b->p, b->n + n + 1);
	if (!q)
		return -1;
	memcpy(q + b->n, at, n);
	b->n += n;
	q[b->n] = 0;
	b->p = q;
	return 0;
}

static int on_get_complete(llhttp_t *p)
{
	struct body *b = p->data;
	b->complete = 1;
	return 0;
}

/* GET path; the status (-1: no complete answer), the body in *out (caller
 * frees). */
static int http_get(unsigned port, const char *path, char **out)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};
	char req[512], buf[16384];
	struct body b = {NULL, 0, 0};
	llhttp_settings_t set;
	llhttp_t p;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	llhttp_settings_init(&set);
	set.on_body = on_get_body;
	set.on_message_complete = on_get_complete;
	llhttp_init(&p, HTTP_RESPONSE, &set);
	p.data = &b;
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
		goto out;
	int len = snprintf(req, sizeof req,
	                   "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	                   "Connection: close\r\n\r\n",
	                   path);
	if (write(fd, req, (size_t)len) != len)
		goto out;
	while (!b.complete && (n = read(fd, buf, sizeof buf)) > 0)
		if (llhttp_execute(&p, buf, (size_t)n) != HPE_OK)
			break;
out:
	if (fd >= 0)
		close(fd);
	*out = b.p;
	return b.complete ? llhttp_get_status_code(&p) : -1;
}

/* ---- the baseline server: a child that writes what it is given ---- */

struct bconn {
	uv_tcp_t tcp;
	struct bconn *prev, *next; /* the open ones */
	int open;
	size_t n;
	char req[4096];
};

struct bwrite {
	uv_write_t req;
	char data[];
};

static struct bconn *b_conns;
static uv_tcp_t b_listener;
static uv_pipe_t b_ctl;
static char *b_in;
static size_t b_len, b_cap;

static void b_closed(uv_handle_t *h)
{
	struct bconn *c = h->data;
	if (c->open) {
		if (c->prev)
			c->prev->next = c->next;
		else
			b_conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
	}
	free(c);
}

static void b_close(struct bconn *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->tcp))
		uv_close((uv_handle_t *)&c->tcp, b_closed);
}

static void b_written(uv_write_t *req, int status)
{
	(void)status;
	free(req);
}

/* What any server does at least: one write per connection, the rest
 * queued when the socket would block. */
static void b_send(struct bconn *c, const char *p, size_t n)
{
	uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
	int r = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) == 0
	            ? uv_try_write((uv_stream_t *)&c->tcp, &b, 1)
	            : UV_EAGAIN;
	if (r == (int)n)
		return;
	if (r < 0 && r != UV_EAGAIN) {
		b_close(c);
		return;
	}
	if (r > 0) {
		p += r;
		n -= (size_t)r;
	}
	struct bwrite *w = malloc(sizeof *w + n);
	if (!w)
		_exit(70);
	memcpy(w->data, p, n);
	b = uv_buf_init(w->data, (unsigned)n);
	if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, b_written) != 0) {
		free(w);
		b_close(c);
	}
}

/* One text frame, unmasked as a server sends it, to every connection. */
static void b_broadcast(const char *msg, size_t n)
{
	char *f = malloc(n + 10);
	size_t h;
	if (!f)
		_exit(70);
	f[0] = (char)0x81;
	if (n < 126) {
		f[1] = (char)n;
		h = 2;
	} else if (n < 65536) {
		f[1] = 126;
		f[2] = (char)(n >> 8);
		f[3] = (char)n;
		h = 4;
	} else {
		f[1] = 127;
		for (int i = 0; i < 8; i++)
			f[2 + i] = (char)((uint64_t)n >> (56 - 8 * i));
		h = 10;
	}
	memcpy(f + h, msg, n);
	for (struct bconn *c = b_conns, *next; c; c = next) {
		next = c->next;
		b_send(c, f, h + n);
	}
	free(f);
}

static void b_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	(void)h;
	(void)want;
	*buf = uv_buf_init(readbuf, sizeof readbuf);
}

static void b_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	static const char answer[] =
	    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	    "Connection: Upgrade\r\n"
	    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
	struct bconn *c = s->data;
	if (n < 0) {
		b_close(c);
		return;
	}
	if (c->open || n == 0)
		return; /* a subscriber has nothing to say that counts */
	if (c->n + (size_t)n >= sizeof c->req) {
		b_close(c);
		return;
	}
	memcpy(c->req + c->n, buf->base, (size_t)n);
	c->n += (size_t)n;
	c->req[c->n] = 0;
	if (!strstr(c->req, "\r\n\r\n"))
		return;
	c->open = 1;
	c->next = b_conns;
	if (b_conns)
		b_conns->prev = c;
	b_conns = c;
	b_send(c, answer, sizeof answer - 1);
}

static void b_connection(uv_stream_t *ls, int status)
{
	if (status < 0)
		return;
	struct bconn *c = calloc(1, sizeof *c);
	if (!c)
		_exit(70);
	uv_tcp_init(ls->loop, &c->tcp);
	c->tcp.data = c;
	if (uv_accept(ls, (uv_stream_t *)&c->tcp) != 0) {
		b_close(c);
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	uv_read_start((uv_stream_t *)&c->tcp, b_alloc, b_read);
}

static void b_ctl_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	(void)h;
	(void)want;
	if (b_cap - b_len < 65536) {
		b_cap = b_len + 65536;
		b_in = realloc(b_in, b_cap);
		if (!b_in)
			_exit(70);
	}
	*buf = uv_buf_init(b_in + b_len, (unsigned)(b_cap - b_len));
}

/* The bench's pipe: messages as a 4-byte length (host order) and the
 * bytes; its end is the end of the child. */
static void b_ctl_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	(void)s;
	(void)buf;
	if (n < 0)
		_exit(0);
	b_len += (size_t)n;
	for (;;) {
		uint32_t len;
		if (b_len < 4)
			break;
		memcpy(&len, b_in, 4);
		if (b_len < 4 + (size_t)len)
			break;
		b_broadcast(b_in + 4, len);
		memmove(b_in, b_in + 4 + len, b_len - 4 - len);
		b_len -= 4 + len;
	}
}

static void echo_child(int ctl, int portfd)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	uv_loop_t l;
	int alen = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (uv_loop_init(&l) != 0 || uv_tcp_init(&l, &b_listener) != 0 ||
	    uv_tcp_bind(&b_listener, (struct sockaddr *)&a, 0) != 0 ||
	    uv_listen((uv_stream_t *)&b_listener, 1024, b_connection) != 0 ||
	    uv_tcp_getsockname(&b_listener, (struct sockaddr *)&a, &alen) !=
	        0 ||
	    uv_pipe_init(&l, &b_ctl, 0) != 0 ||
	    uv_pipe_open(&b_ctl, ctl) != 0 ||
	    uv_read_start((uv_stream_t *)&b_ctl, b_ctl_alloc, b_ctl_read) != 0)
		_exit(71);
	uint16_t port = ntohs(a.sin_port);
	if (write(portfd, &port, sizeof port) != sizeof port)
		_exit(71);
	close(portfd);
	uv_run(&l, UV_RUN_DEFAULT);
	_exit(0);
}

/* Forks the baseline server before the bench holds anything else. */
static unsigned start_echo(int *ctl)
{
	int cp[2], pp[2];
	uint16_t port;
	if (pipe2(cp, O_CLOEXEC) != 0 || pipe2(pp, O_CLOEXEC) != 0)
		die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(cp[1]);
		close(pp[0]);
		echo_child(cp[0], pp[1]);
	}
	echo_pid = pid;
	close(cp[0]);
	close(pp[1]);
	if (read(pp[0], &port, sizeof port) != sizeof port)
		die("the baseline server did not start");
	close(pp[0]);
	*ctl = cp[1];
	return port;
}

static void echo_give(int ctl, const char *msg, size_t n)
{
	uint32_t len = (uint32_t)n;
	char *b = malloc(4 + n);
	if (!b)
		die("out of memory");
	memcpy(b, &len, 4);
	memcpy(b + 4, msg, n);
	size_t off = 0;
	while (off < 4 + n) {
		ssize_t w = write(ctl, b + off, 4 + n - off);
		if (w <= 0)
			die("the baseline server's pipe: %s", strerror(errno));
		off += (size_t)w;
	}
	free(b);
}

/* ---- the HTTP load ---- */

struct hconn {
	uv_tcp_t tcp;
	llhttp_t p;
	struct hload *L;
	int done; /* the answer to the last request is in */
};

struct hload {
	const char *req;
	struct hconn c[HTTP_CONNS];
	unsigned connected, closed;
	uint64_t answers, errors;
	int stop;
	int first_error;
};

static llhttp_settings_t h_set;

static int h_headers(llhttp_t *p)
{
	struct hconn *c = p->data;
	if (llhttp_get_status_code(p) != 200) {
		if (!c->L->first_error)
			c->L->first_error = llhttp_get_status_code(p);
		c->L->errors++;
	}
	return 0;
}

static int h_complete(llhttp_t *p)
{
	struct hconn *c = p->data;
	c->L->answers++;
	c->done = 1;
	return 0;
}

static void h_closed(uv_handle_t *h)
{
	struct hconn *c = h->data;
	c->L->closed++;
}

static void h_close(struct hconn *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->tcp))
		uv_close((uv_handle_t *)&c->tcp, h_closed);
}

static void h_written(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void h_send(struct hconn *c)
{
	const char *r = c->L->req;
	uv_buf_t b = uv_buf_init((char *)r, (unsigned)strlen(r));
	c->done = 0;
	int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
	if (n == (int)b.len)
		return;
	if (n < 0 && n != UV_EAGAIN) {
		h_close(c);
		return;
	}
	if (n > 0) {
		b.base += n;
		b.len -= (unsigned)n;
	}
	uv_write_t *w = malloc(sizeof *w);
	if (!w || uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, h_written))
		die("cannot write a request");
}

static void h_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	(void)h;
	(void)want;
	*buf = uv_buf_init(readbuf, sizeof readbuf);
}

static void h_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct hconn *c = s->data;
	if (n < 0) {
		if (!c->L->stop)
			c->L->errors++;
		h_close(c);
		return;
	}
	if (llhttp_execute(&c->p, buf->base, (size_t)n) != HPE_OK) {
		c->L->errors++;
		h_close(c);
		return;
	}
	if (c->done) {
		if (c->L->stop)
			h_close(c);
		else
			h_send(c);
	}
}

static void h_connected(uv_connect_t *req, int status)
{
	struct hconn *c = req->data;
	free(req);
	if (status < 0) {
		c->L->errors++;
		h_close(c);
		return;
	}
	c->L->connected++;
	uv_read_start((uv_stream_t *)&c->tcp, h_alloc, h_read);
	h_send(c);
}

static int h_all_closed(void *arg)
{
	struct hload *L = arg;
	return L->closed == HTTP_CONNS;
}

static int never(void *arg)
{
	(void)arg;
	return 0;
}

/* Answers per second of GET path on HTTP_CONNS keep-alive connections,
 * over secs after a warm-up of a tenth of it; *cpu_us: the server's CPU
 * time per answer, in microseconds. */
static double http_load(unsigned port, const char *path, double secs,
                        uint64_t *errors, double *cpu_us)
{
	static struct hload L;
	static char req[512];
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)port)};

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&L, 0, sizeof L);
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	         path);
	L.req = req;
	llhttp_settings_init(&h_set);
	h_set.on_headers_complete = h_headers;
	h_set.on_message_complete = h_complete;
	for (unsigned i = 0; i < HTTP_CONNS; i++) {
		struct hconn *c = &L.c[i];
		uv_connect_t *cr = malloc(sizeof *cr);
		if (!cr)
			die("out of memory");
		c->L = &L;
		uv_tcp_init(&lp, &c->tcp);
		c->tcp.data = c;
		llhttp_init(&c->p, HTTP_RESPONSE, &h_set);
		c->p.data = c;
		cr->data = c;
		if (uv_tcp_connect(cr, &c->tcp, (struct sockaddr *)&a,
		                   h_connected) != 0)
			die("cannot connect to 127.0.0.1:%u", port);
	}
	run_until(never, NULL, secs / 10);
	uint64_t a0 = L.answers, t0 = uv_hrtime(), s0 = cpu_ns(serve_pid);
	run_until(never, NULL, secs);
	uint64_t a1 = L.answers, t1 = uv_hrtime(), s1 = cpu_ns(serve_pid);
	L.stop = 1;
	for (unsigned i = 0; i < HTTP_CONNS; i++)
		if (L.c[i].done)
			h_close(&L.c[i]);
	if (run_until(h_all_closed, &L, 10) != 0)
		die("the HTTP connections did not close");
	if (L.connected != HTTP_CONNS)
		die("only %u of %d HTTP connections were accepted", L.connected,
		    HTTP_CONNS);
	if (L.first_error)
		fprintf(stderr, "bench_serve: %s answered %d\n", path,
		        L.first_error);
	*errors = L.errors;
	*cpu_us = a1 > a0 ? (double)(s1 - s0) / 1e3 / (double)(a1 - a0) : 0;
	return (double)(a1 - a0) / ((double)(t1 - t0) / 1e9);
}

/* ---- WebSocket subscribers ---- */

enum { WS_CONNECTING, WS_UPGRADING, WS_OPEN };

struct wsc {
	uv_tcp_t tcp;
	llhttp_t http; /* the upgrade's answer */
	wslay_event_context_ptr ws;
	struct fan *F;
	int state;
	const uint8_t *in;
	size_t in_len;
	unsigned idx;
};

struct fan {
	unsigned n;
	struct wsc *c;
	struct sockaddr_in addr;
	unsigned started, open, failed, closed, dropped;
	int first_status; /* of a refused upgrade */
	uint64_t target;  /* the height awaited */
	unsigned got;     /* subscribers with its BlockUpdate */
	uint64_t t_first, t_last;
	char *rec; /* subscriber 0's copy of the target's BlockUpdate */
	size_t rec_len;
	uint64_t msgs; /* every message received */
};

static llhttp_settings_t ws_http_set;

static void ws_closed(uv_handle_t *h)
{
	struct wsc *c = h->data;
	if (c->ws)
		wslay_event_context_free(c->ws);
	c->ws = NULL;
	c->F->closed++;
}

static void ws_close(struct wsc *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->tcp))
		uv_close((uv_handle_t *)&c->tcp, ws_closed);
}

static void fan_connect_more(struct fan *F);

static void ws_fail(struct wsc *c)
{
	if (c->state == WS_OPEN)
		c->F->dropped++;
	else
		c->F->failed++;
	c->state = WS_CONNECTING;
	ws_close(c);
	fan_connect_more(c->F);
}

static void ws_written(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

/* Writes n bytes: at once, or a copy queued when the socket would block. */
static int ws_write(struct wsc *c, const void *p, size_t n)
{
	uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
	int r = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) == 0
	            ? uv_try_write((uv_stream_t *)&c->tcp, &b, 1)
	            : UV_EAGAIN;
	if (r == (int)n)
		return 0;
	if (r < 0 && r != UV_EAGAIN)
		return -1;
	if (r < 0)
		r = 0;
	uv_write_t *w = malloc(sizeof *w + n - (size_t)r);
	if (!w)
		return -1;
	memcpy(w + 1, (const char *)p + r, n - (size_t)r);
	b = uv_buf_init((char *)(w + 1), (unsigned)(n - (size_t)r));
	if (uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, ws_written) != 0) {
		free(w);
		return -1;
	}
	return 0;
}

static ssize_t ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                          int flags, void *user)
{
	struct wsc *c = user;
	(void)flags;
	if (c->in_len == 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	size_t n = len < c->in_len ? len : c->in_len;
	memcpy(buf, c->in, n);
	c->in += n;
	c->in_len -= n;
	return (ssize_t)n;
}

static ssize_t ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data,
                          size_t len, int flags, void *user)
{
	struct wsc *c = user;
	(void)flags;
	if (ws_write(c, data, len) != 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
		return -1;
	}
	return (ssize_t)len;
}

static int ws_genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len,
                         void *user)
{
	(void)ctx;
	(void)user;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
	return 0;
}

/* The height of a BlockUpdate (docs/API.md, "The stream"), else 0. */
static uint64_t block_update_height(const uint8_t *m, size_t n)
{
	static const char head[] = "{\"eventType\":\"BlockUpdate\"";
	static const char key[] = "\"height\":";
	if (n < sizeof head - 1 || memcmp(m, head, sizeof head - 1) != 0)
		return 0;
	const uint8_t *h = memmem(m, n, key, sizeof key - 1);
	if (!h)
		return 0;
	uint64_t v = 0;
	for (h += sizeof key - 1; h < m + n && *h >= '0' && *h <= '9'; h++)
		v = v * 10 + (uint64_t)(*h - '0');
	return v;
}

static void ws_msg_cb(wslay_event_context_ptr ctx,
                      const struct wslay_event_on_msg_recv_arg *arg, void *user)
{
	struct wsc *c = user;
	struct fan *F = c->F;
	(void)ctx;
	F->msgs++;
	if (arg->opcode != WSLAY_TEXT_FRAME)
		return;
	if (block_update_height(arg->msg, arg->msg_length) != F->target ||
	    F->target == 0)
		return;
	uint64_t t = uv_hrtime();
	if (F->got++ == 0)
		F->t_first = t;
	F->t_last = t;
	if (c->idx == 0) {
		free(F->rec);
		F->rec = malloc(arg->msg_length);
		if (!F->rec)
			die("out of memory");
		memcpy(F->rec, arg->msg, arg->msg_length);
		F->rec_len = arg->msg_length;
	}
}

static const struct wslay_event_callbacks ws_cb = {
    ws_recv_cb, ws_send_cb, ws_genmask_cb, NULL, NULL, NULL, ws_msg_cb};

static void ws_input(struct wsc *c, const char *p, size_t n)
{
	c->in = (const uint8_t *)p;
	c->in_len = n;
	if (wslay_event_recv(c->ws) != 0 ||
	    (wslay_event_want_write(c->ws) && wslay_event_send(c->ws) != 0)) {
		ws_fail(c);
		return;
	}
	if (!wslay_event_want_read(c->ws)) /* the server closed */
		ws_fail(c);
}

static int ws_headers(llhttp_t *p)
{
	struct wsc *c = p->data;
	if (llhttp_get_status_code(p) != 101) {
		if (!c->F->first_status)
			c->F->first_status = llhttp_get_status_code(p);
		return -1;
	}
	return 2; /* no body: the rest is the WebSocket's */
}

static void ws_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	(void)h;
	(void)want;
	*buf = uv_buf_init(readbuf, sizeof readbuf);
}

static void ws_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct wsc *c = s->data;
	if (n < 0) {
		ws_fail(c);
		return;
	}
	if (c->state == WS_OPEN) {
		ws_input(c, buf->base, (size_t)n);
		return;
	}
	llhttp_errno_t e = llhttp_execute(&c->http, buf->base, (size_t)n);
	if (e == HPE_OK)
		return; /* the answer's headers are not all in yet */
	if (e != HPE_PAUSED_UPGRADE) {
		ws_fail(c);
		return;
	}
	const char *at = llhttp_get_error_pos(&c->http);
	size_t used = at ? (size_t)(at - buf->base) : (size_t)n;
	if (wslay_event_context_client_init(&c->ws, &ws_cb, c) != 0)
		die("out of memory");
	c->state = WS_OPEN;
	c->F->open++;
	fan_connect_more(c->F);
	if (used < (size_t)n)
		ws_input(c, buf->base + used, (size_t)n - used);
}

static void ws_connected(uv_connect_t *req, int status)
{
	static const char upgrade[] =
	    "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n";
	struct wsc *c = req->data;
	free(req);
	if (status < 0) {
		ws_fail(c);
		return;
	}
	c->state = WS_UPGRADING;
	llhttp_init(&c->http, HTTP_RESPONSE, &ws_http_set);
	c->http.data = c;
	if (ws_write(c, upgrade, sizeof upgrade - 1) != 0 ||
	    uv_read_start((uv_stream_t *)&c->tcp, ws_alloc, ws_read) != 0)
		ws_fail(c);
}

static void fan_connect_more(struct fan *F)
{
	while (F->started < F->n &&
	       F->started - F->open - F->failed < CONNECTING_MAX) {
		struct wsc *c = &F->c[F->started++];
		uv_connect_t *req = malloc(sizeof *req);
		if (!req)
			die("out of memory");
		c->F = F;
		c->idx = (unsigned)(c - F->c);
		uv_tcp_init(&lp, &c->tcp);
		c->tcp.data = c;
		req->data = c;
		if (uv_tcp_connect(req, &c->tcp, (struct sockaddr *)&F->addr,
		                   ws_connected) != 0) {
			free(req);
			ws_fail(c);
		}
	}
}

static int fan_settled(void *arg)
{
	struct fan *F = arg;
	return F->open + F->failed == F->n;
}

static int fan_all_closed(void *arg)
{
	struct fan *F = arg;
	return F->closed == F->n;
}

/* N subscribers of port's /v1/stream, all open (or dies). */
static void fan_open(struct fan *F, unsigned port, unsigned n, const char *what)
{
	memset(F, 0, sizeof *F);
	F->n = n;
	F->c = calloc(n, sizeof *F->c);
	if (!F->c)
		die("out of memory");
	F->addr.sin_family = AF_INET;
	F->addr.sin_port = htons((uint16_t)port);
	F->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	llhttp_settings_init(&ws_http_set);
	ws_http_set.on_headers_complete = ws_headers;
	fan_connect_more(F);
	if (run_until(fan_settled, F, 120) != 0 || F->failed)
		die("%s: %u of %u subscribers connected, %u failed (first "
		    "refusal: HTTP %d)",
		    what, F->open, n, F->failed, F->first_status);
}

/* Resets every connection (no TIME_WAIT left behind) and waits for them. */
static void fan_close(struct fan *F)
{
	for (unsigned i = 0; i < F->n; i++)
		if (!uv_is_closing((uv_handle_t *)&F->c[i].tcp) &&
		    uv_tcp_close_reset(&F->c[i].tcp, ws_closed) != 0)
			ws_close(&F->c[i]);
	if (run_until(fan_all_closed, F, 30) != 0)
		die("the subscribers did not close");
	free(F->c);
	free(F->rec);
	F->c = NULL;
	F->rec = NULL;
}

/* ---- dealing, on the loop's thread pool ---- */

struct deal {
	uv_work_t w;
	hj_fixture *fx;
	uint64_t t_write; /* just before the line's write(2) */
	int rc, done;
	char err[HJ_ERRLEN];
};

static void on_line_write(void *ctx, uint64_t height)
{
	struct deal *d = ctx;
	(void)height;
	d->t_write = uv_hrtime();
}

static void deal_work(uv_work_t *w)
{
	struct deal *d = w->data;
	d->rc = hj_fixture_block(d->fx, NULL, NULL, 0, d->err, sizeof d->err);
}

static void deal_done(uv_work_t *w, int status)
{
	struct deal *d = w->data;
	(void)status;
	d->done = 1;
}

struct wait_block {
	struct fan *F;
	struct deal *d; /* NULL: the baseline */
};

static int block_arrived(void *arg)
{
	struct wait_block *wb = arg;
	return (!wb->d || wb->d->done) && wb->F->got == wb->F->n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct fig {
	double med, max, first_med; /* ms */
	double cpu_srv, cpu_cli;    /* CPU ms per block: server, bench */
	double writes;              /* server's write calls per message */
};

static struct fig figures(uint64_t *last, uint64_t *first, unsigned n)
{
	struct fig f;
	qsort(last, n, sizeof *last, cmp_u64);
	qsort(first, n, sizeof *first, cmp_u64);
	f.med = n % 2 ? ms(last[n / 2])
	              : (ms(last[n / 2 - 1]) + ms(last[n / 2])) / 2;
	f.max = ms(last[n - 1]);
	f.first_med = n % 2 ? ms(first[n / 2])
	                    : (ms(first[n / 2 - 1]) + ms(first[n / 2])) / 2;
	return f;
}

/*
 * The fan-out to n subscribers of the server, then of the baseline with
 * the messages the server sent: blocks each.  *rss_kib: the server's
 * VmRSS with the subscribers on, after the blocks.
 */
static void fan_out(hj_fixture *fx, unsigned port, unsigned echo_port, int ctl,
                    unsigned n, unsigned blocks, struct fig *srv,
                    struct fig *base, uint64_t *rss_kib)
{
	static uint64_t last[MAX_BLOCKS], first[MAX_BLOCKS];
	static char *msgs[MAX_BLOCKS];
	static size_t lens[MAX_BLOCKS];
	static uint64_t heights[MAX_BLOCKS];
	struct fan F;
	struct deal d;
	struct wait_block wb = {&F, &d};

	fan_open(&F, port, n, "hashjack serve");
	uint64_t s0 = cpu_ns(serve_pid), c0 = cpu_ns(0);
	uint64_t w0 = proc_field(serve_pid, "io", "syscw");
	for (unsigned b = 0; b < blocks; b++) {
		memset(&d, 0, sizeof d);
		d.fx = fx;
		d.w.data = &d;
		hj_fixture_on_write(fx, on_line_write, &d);
		F.target = heights[b] = hj_fixture_next(fx);
		F.got = 0;
		if (uv_queue_work(&lp, &d.w, deal_work, deal_done) != 0)
			die("cannot queue a block");
		if (run_until(block_arrived, &wb, 30) != 0)
			die("block %llu reached %u of %u subscribers in 30 s",
			    (unsigned long long)F.target, F.got, n);
		if (d.rc)
			die("dealing block %llu: %s",
			    (unsigned long long)F.target, d.err);
		last[b] = F.t_last - d.t_write;
		first[b] = F.t_first - d.t_write;
		msgs[b] = F.rec;
		lens[b] = F.rec_len;
		F.rec = NULL;
		/* A pause as between blocks: the RoundUpdates, if any, and
		 * the server's writes settle. */
		run_until(never, NULL, 0.02);
	}
	hj_fixture_on_write(fx, NULL, NULL);
	uint64_t s1 = cpu_ns(serve_pid), c1 = cpu_ns(0);
	uint64_t w1 = proc_field(serve_pid, "io", "syscw");
	*rss_kib = proc_field(serve_pid, "status", "VmRSS");
	if (F.dropped)
		die("hashjack serve dropped %u subscribers", F.dropped);
	fan_close(&F);
	*srv = figures(last, first, blocks);
	srv->cpu_srv = ms(s1 - s0) / blocks;
	srv->cpu_cli = ms(c1 - c0) / blocks;
	srv->writes = (double)(w1 - w0) / ((double)blocks * n);

	wb.d = NULL;
	fan_open(&F, echo_port, n, "baseline");
	s0 = cpu_ns(echo_pid);
	c0 = cpu_ns(0);
	w0 = proc_field(echo_pid, "io", "syscw");
	for (unsigned b = 0; b < blocks; b++) {
		F.target = heights[b];
		F.got = 0;
		uint64_t t0 = uv_hrtime();
		echo_give(ctl, msgs[b], lens[b]);
		if (run_until(block_arrived, &wb, 30) != 0)
			die("baseline: block %llu reached %u of %u "
			    "subscribers in 30 s",
			    (unsigned long long)F.target, F.got, n);
		last[b] = F.t_last - t0;
		first[b] = F.t_first - t0;
		free(msgs[b]);
		msgs[b] = NULL;
		run_until(never, NULL, 0.02);
	}
	s1 = cpu_ns(echo_pid);
	c1 = cpu_ns(0);
	w1 = proc_field(echo_pid, "io", "syscw");
	if (F.dropped)
		die("the baseline dropped %u subscribers", F.dropped);
	fan_close(&F);
	*base = figures(last, first, blocks);
	base->cpu_srv = ms(s1 - s0) / blocks;
	base->cpu_cli = ms(c1 - c0) / blocks;
	base->writes = (double)(w1 - w0) / ((double)blocks * n);
}

/* ---- the fixture's rounds ---- */

/* The id of the first RoundState in a GET's answer (an array of them, or
 * an object whose key holds one or an array). */
static int round_id(unsigned port, const char *path, const char *key, char *id,
                    size_t n)
{
	char *body;
	int st = http_get(port, path, &body);
	json_t *j = st == 200 && body ? json_loads(body, 0, NULL) : NULL, *r;
	free(body);
	r = key && json_is_object(j) ? json_object_get(j, key) : j;
	if (json_is_array(r))
		r = json_array_get(r, 0);
	const char *s = json_string_value(json_object_get(r, "round"));
	int ok = s && strlen(s) < n;
	if (ok)
		snprintf(id, n, "%s", s);
	json_decref(j);
	return ok ? 0 : -1;
}

/* Whether the server has read block h from the log. */
static int has_block(unsigned port, uint64_t h)
{
	char path[64], *body;
	snprintf(path, sizeof path, "/v1/blocks/%llu", (unsigned long long)h);
	int st = http_get(port, path, &body);
	free(body);
	return st == 200;
}

static void machine(void)
{
	char line[256], model[256] = "unknown";
	double load[3] = {0, 0, 0};
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *p = strchr(line, ':');
			if (p) {
				snprintf(model, sizeof model, "%s", p + 2);
				model[strcspn(model, "\n")] = 0;
			}
			break;
		}
	}
	if (f)
		fclose(f);
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	printf("machine: %s, %ld online cpus, load average %.2f, libuv %s, "
	       "%s\n",
	       model, sysconf(_SC_NPROCESSORS_ONLN), load[0],
	       uv_version_string(), __VERSION__);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_serve [--seconds S] [--blocks B] "
	                "[--subscribers N,N,...] [--hashjack PATH]\n");
	exit(64);
}

int main(int argc, char **argv)
{
	double secs = 3;
	unsigned blocks = 20, sizes[MAX_SIZES] = {100, 1000, 10000}, nsizes = 3;
	char exe[PATH_MAX], errfile[PATH_MAX + 32], err[HJ_ERRLEN];
	struct rlimit rl;
	int ctl;

	exe[0] = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		i++;
		if (strcmp(a, "--seconds") == 0) {
			secs = strtod(v, NULL);
			if (!(secs > 0 && secs <= 600))
				usage();
		} else if (strcmp(a, "--blocks") == 0) {
			blocks = (unsigned)strtoul(v, NULL, 10);
			if (blocks < 1 || blocks > MAX_BLOCKS)
				usage();
		} else if (strcmp(a, "--subscribers") == 0) {
			char *e;
			nsizes = 0;
			do {
				if (nsizes == MAX_SIZES)
					usage();
				sizes[nsizes++] = (unsigned)strtoul(v, &e, 10);
				if (e == v || sizes[nsizes - 1] == 0)
					usage();
				v = e + (*e == ',');
			} while (*e);
		} else if (strcmp(a, "--hashjack") == 0) {
			snprintf(exe, sizeof exe, "%s", v);
		} else {
			usage();
		}
	}
	if (!exe[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 16);
		if (n <= 0)
			die("cannot find myself: give --hashjack PATH");
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		snprintf(slash + 1, sizeof exe - (size_t)(slash + 1 - exe),
		         "hashjack");
	}
	if (access(exe, X_OK) != 0)
		die("%s: not an executable: give --hashjack PATH", exe);

	/* Both children inherit the raised limit. */
	unsigned need = 0;
	for (unsigned i = 0; i < nsizes; i++)
		need = sizes[i] > need ? sizes[i] : need;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("getrlimit: %s", strerror(errno));
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit: %s", strerror(errno));
	if (rl.rlim_cur < need + 256)
		die("RLIMIT_NOFILE's hard limit is %llu, %u subscribers need "
		    "%u: raise it (ulimit -Hn, limits.conf)",
		    (unsigned long long)rl.rlim_max, need, need + 256);
	signal(SIGPIPE, SIG_IGN);

	unsigned echo_port = start_echo(&ctl);
	machine();

	/* The dealer: a settled round (player 1's, ended by its timeouts)
	 * and an open one (player 2's, dealt, awaiting its action). */
	snprintf(tmpdir, sizeof tmpdir, "%s/bench_serve.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = 0;
		die("mkdtemp: %s", strerror(errno));
	}
	snprintf(errfile, sizeof errfile, "%s/serve.stderr", tmpdir);
	hj_rules ru;
	if (hj_rules_preset("bethash", &ru) != 0)
		die("no bethash preset");
	ru.min_bet = 1000;
	ru.max_bet = 1000000000;
	ru.timeout_blocks = 10;
	if (hj_rules_check(&ru, err, sizeof err) != 0)
		die("rules: %s", err);
	hj_fixture *fx =
	    hj_fixture_new(tmpdir, HJ_EVM, &ru, 1, err, sizeof err);
	if (!fx)
		die("fixture: %s", err);
	hj_action bet1 = hj_fixture_bet(1, 1, 1000000, 0, 0),
	          bet2 = hj_fixture_bet(2, 2, 1000000, 0, 0);
	int rc = hj_fixture_block(fx, NULL, &bet1, 1, err, sizeof err);
	while (rc == 0 && hj_fixture_next(fx) < 60)
		rc = hj_fixture_block(fx, NULL, NULL, 0, err, sizeof err);
	if (rc == 0)
		rc = hj_fixture_block(fx, NULL, &bet2, 1, err, sizeof err);
	for (int i = 0; rc == 0 && i < 3; i++)
		rc = hj_fixture_block(fx, NULL, NULL, 0, err, sizeof err);
	if (rc)
		die("dealing: %s", err);

	if (uv_loop_init(&lp) != 0)
		die("cannot create the loop");
	uv_timer_init(&lp, &tick);
	uv_timer_start(&tick, on_tick, 5, 5);

	unsigned port = start_serve(exe, fx, errfile);
	uint64_t want = hj_fixture_next(fx) - 1;
	uint64_t end = uv_hrtime() + 15 * (uint64_t)1000000000;
	while (!has_block(port, want)) {
		if (uv_hrtime() > end) {
			show_file(errfile);
			die("hashjack serve did not reach block %llu in 15 s",
			    (unsigned long long)want);
		}
		uv_sleep(10);
	}
	char open_id[80], settled_id[80], p_open[128], p_settled[128];
	if (round_id(port, "/v1/rounds", "open", open_id, sizeof open_id) ||
	    round_id(port,
	             "/v1/players/0x0000000000000000000000000000000000000001",
	             "recent", settled_id, sizeof settled_id))
		die("the fixture's open and settled rounds are not served");
	snprintf(p_open, sizeof p_open, "/v1/rounds/%s", open_id);
	snprintf(p_settled, sizeof p_settled, "/v1/rounds/%s", settled_id);
	char *b1, *b2;
	int s1 = http_get(port, p_open, &b1),
	    s2 = http_get(port, p_settled, &b2);
	json_t *j = s2 == 200 && b2 ? json_loads(b2, 0, NULL) : NULL;
	json_int_t from = json_integer_value(json_object_get(j, "betHeight")),
	           to = json_integer_value(json_object_get(j, "settledAt"));
	json_decref(j);
	if (s1 != 200 || s2 != 200 || !b1 || !b2 ||
	    strstr(b1, "\"roundEnded\":true") ||
	    !strstr(b2, "\"roundEnded\":true"))
		die("GET %s (%d) or %s (%d) is not the open and the settled "
		    "round",
		    p_open, s1, p_settled, s2);
	printf("http: %d keep-alive connections, %.1f s each; the open round "
	       "%zu bytes, the settled one %zu bytes (blocks %lld to %lld)\n",
	       HTTP_CONNS, secs, strlen(b1), strlen(b2), (long long)from,
	       (long long)to);
	free(b1);
	free(b2);

	uint64_t e[3];
	double cpu[3], rate[3];
	const char *paths[3] = {"/healthz", p_open, p_settled};
	const char *names[3] = {"GET /healthz (baseline)",
	                        "GET /v1/rounds/{open id}",
	                        "GET /v1/rounds/{settled id}"};
	for (int i = 0; i < 3; i++) {
		rate[i] = http_load(port, paths[i], secs, &e[i], &cpu[i]);
		printf("http: %-28s %8.0f req/s   server CPU %6.1f us/req   "
		       "ratio %.2f%s\n",
		       names[i], rate[i], cpu[i], rate[i] / rate[0],
		       e[i] ? "   (errors: see above)" : "");
	}

	uint64_t idle = proc_field(serve_pid, "status", "VmRSS");
	printf("fan-out: %u blocks per size, time from the line's write(2) "
	       "to the last subscriber's BlockUpdate; server RSS idle %.1f "
	       "MiB\n",
	       blocks, (double)idle / 1024);
	int met_lat = -1, met_rss = -1;
	uint64_t rss10k = 0;
	for (unsigned i = 0; i < nsizes; i++) {
		struct fig s, b;
		uint64_t rss;
		fan_out(fx, port, echo_port, ctl, sizes[i], blocks, &s, &b,
		        &rss);
		printf("fan-out %5u: serve    median %7.2f ms  max %7.2f ms  "
		       "first %6.2f ms   CPU per block: server %6.2f ms, "
		       "bench %6.2f ms   writes per subscriber %.2f   server "
		       "RSS %.1f MiB\n",
		       sizes[i], s.med, s.max, s.first_med, s.cpu_srv,
		       s.cpu_cli, s.writes, (double)rss / 1024);
		printf("               baseline median %7.2f ms  max %7.2f ms  "
		       "first %6.2f ms   CPU per block: server %6.2f ms, "
		       "bench %6.2f ms   writes per subscriber %.2f\n",
		       b.med, b.max, b.first_med, b.cpu_srv, b.cpu_cli,
		       b.writes);
		printf(
		    "               ratio %.2f (medians), %.2f (server CPU)\n",
		    s.med / b.med, s.cpu_srv / b.cpu_srv);
		fflush(stdout);
		if (sizes[i] == 10000) {
			met_lat = s.max <= 100;
			met_rss = rss < 256 * 1024;
			rss10k = rss;
		}
	}
	printf("server peak RSS (VmHWM) %.1f MiB\n",
	       (double)proc_field(serve_pid, "status", "VmHWM") / 1024);
	if (met_lat >= 0)
		printf("target: every block to 10,000 subscribers within 100 "
		       "ms: %s; RSS with 10,000 subscribers %.1f MiB < 256 "
		       "MiB: %s\n",
		       met_lat ? "met" : "MISSED", (double)rss10k / 1024,
		       met_rss ? "met" : "MISSED");
	else
		printf("target: not measured (10,000 subscribers were not "
		       "asked for)\n");

	stop_serve(errfile);
	close(ctl); /* the baseline server's end */
	waitpid(echo_pid, NULL, 0);
	echo_pid = -1;
	uv_close((uv_handle_t *)&tick, NULL);
	uv_run(&lp, UV_RUN_DEFAULT);
	if (uv_loop_close(&lp) != 0)
		fprintf(stderr, "bench_serve: the loop did not close\n");
	hj_fixture_free(fx);
	cleanup();
	return 0;
}
