/*
 * The tests' HTTP server (http_fake.h): one struct hf_conn per accepted
 * connection, its bytes buffered until a whole request (head and
 * Content-Length body) is there, then handed to the test's handler.
 * One request per connection is answered at a time, as HTTP/1.1 without
 * pipelining wants.
 */
#include "http_fake.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <cmocka.h>

struct hf_conn {
	uv_tcp_t tcp;
	uv_timer_t timer; /* a late reply */
	struct hf_server *srv;
	struct hf_conn *next;
	unsigned index; /* accept order, from 0 */
	char *buf;      /* bytes received, not yet parsed */
	size_t len;
	int busy; /* a request waits for its reply */
	int closing;
	int closed_handles;
	char *later; /* the late reply */
	size_t later_len;
};

static void conn_try_parse(struct hf_conn *c);

static void on_conn_closed(uv_handle_t *h)
{
	struct hf_conn *c = h->data;

	if (++c->closed_handles == 2) {
		free(c->buf);
		free(c->later);
		free(c);
	}
}

void hf_conn_close(struct hf_conn *c)
{
	struct hf_conn **pp;

	if (c->closing)
		return;
	c->closing = 1;
	if (c->busy) {
		c->busy = 0;
		c->srv->outstanding--;
	}
	for (pp = &c->srv->conns; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
	uv_close((uv_handle_t *)&c->timer, on_conn_closed);
}

struct wreq {
	uv_write_t w;
	struct hf_conn *c;
	char data[];
};

static void on_written(uv_write_t *w, int status)
{
	(void)status; /* UV_ECANCELED when the peer went away first */
	free(w);
}

static void on_shutdown(uv_shutdown_t *s, int status)
{
	struct hf_conn *c = s->data;

	(void)status;
	free(s);
	hf_conn_close(c);
}

/* Writes bytes; the request counts as answered.  close_after: shut the
 * connection down once they are out. */
void hf_send_raw(struct hf_conn *c, const char *data, size_t len,
                 int close_after)
{
	struct wreq *w = malloc(sizeof *w + len);
	uv_buf_t b;

	assert_non_null(w);
	if (c->closing) {
		free(w);
		return;
	}
	memcpy(w->data, data, len);
	w->c = c;
	b = uv_buf_init(w->data, (unsigned)len);
	assert_int_equal(
	    uv_write(&w->w, (uv_stream_t *)&c->tcp, &b, 1, on_written), 0);
	if (c->srv->nreq > 0 && c->srv->nreq <= HF_MAX_REQ)
		c->srv->reply_time[c->srv->nreq - 1] = uv_now(c->srv->loop);
	if (c->busy) {
		c->busy = 0;
		c->srv->outstanding--;
	}
	if (close_after) {
		uv_shutdown_t *s = malloc(sizeof *s);

		assert_non_null(s);
		s->data = c;
		assert_int_equal(
		    uv_shutdown(s, (uv_stream_t *)&c->tcp, on_shutdown), 0);
		return;
	}
	conn_try_parse(c);
}

/* A whole response; extra: more header lines, each ending in \r\n. */
char *hf_response(int status, const char *extra, const char *body, size_t *len)
{
	size_t blen = strlen(body),
	       n = blen + 256 + (extra ? strlen(extra) : 0);
	char *s = malloc(n);
	int h;

	assert_non_null(s);
	h = snprintf(s, n,
	             "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
	             "Content-Length: %zu\r\n%s\r\n",
	             status, blen, extra ? extra : "");
	assert_true(h > 0 && (size_t)h + blen < n);
	memcpy(s + h, body, blen);
	*len = (size_t)h + blen;
	return s;
}

void hf_reply(struct hf_conn *c, int status, const char *extra,
              const char *body)
{
	size_t len;
	char *s = hf_response(status, extra, body, &len);

	hf_send_raw(c, s, len, 0);
	free(s);
}

static void on_later(uv_timer_t *t)
{
	struct hf_conn *c = t->data;
	char *s = c->later;

	c->later = NULL;
	hf_send_raw(c, s, c->later_len, 0);
	free(s);
}

void hf_reply_later(struct hf_conn *c, uint64_t ms, int status,
                    const char *body)
{
	assert_null(c->later);
	c->later = hf_response(status, NULL, body, &c->later_len);
	uv_timer_start(&c->timer, on_later, ms, 0);
}

/* The value of header name in head, or "" (cut to n bytes). */
void hf_header(const char *head, const char *name, char *out, size_t n)
{
	size_t nl = strlen(name);
	const char *p = strstr(head, "\r\n");

	out[0] = '\0';
	while (p != NULL && p[2] != '\0') {
		p += 2;
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1, *e = strstr(v, "\r\n");

			while (*v == ' ')
				v++;
			if (e == NULL)
				e = v + strlen(v);
			snprintf(out, n, "%.*s", (int)(e - v), v);
			return;
		}
		p = strstr(p, "\r\n");
	}
}

static void conn_try_parse(struct hf_conn *c)
{
	struct hf_server *s = c->srv;
	struct hf_req r = {0};
	char cl[32], *end;
	size_t hlen, blen = 0, total;
	unsigned n;

	if (c->busy || c->closing || c->len == 0)
		return;
	end = memmem(c->buf, c->len, "\r\n\r\n", 4);
	if (end == NULL)
		return;
	hlen = (size_t)(end - c->buf) + 4;
	r.head = strndup(c->buf, hlen);
	assert_non_null(r.head);
	hf_header(r.head, "Content-Length", cl, sizeof cl);
	if (cl[0] != '\0')
		blen = strtoul(cl, NULL, 10);
	total = hlen + blen;
	if (c->len < total) {
		free(r.head);
		return;
	}
	r.body = strndup(c->buf + hlen, blen);
	assert_non_null(r.body);
	r.body_len = blen;
	r.json = json_loadb(r.body, blen, 0, NULL);
	memmove(c->buf, c->buf + total, c->len - total);
	c->len -= total;

	n = s->nreq++;
	c->busy = 1;
	if (++s->outstanding > s->max_outstanding)
		s->max_outstanding = s->outstanding;
	if (n < HF_MAX_REQ) {
		json_t *m = json_object_get(r.json, "method");

		s->req_time[n] = uv_now(s->loop);
		s->req_conn[n] = c->index;
		snprintf(s->method[n], sizeof s->method[n], "%s",
		         json_is_string(m) ? json_string_value(m) : "");
		snprintf(s->head[n], sizeof s->head[n], "%s", r.head);
	}
	s->handler(c, &r, n);
	json_decref(r.json);
	free(r.head);
	free(r.body);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	(void)h;
	b->base = malloc(suggested);
	b->len = b->base ? suggested : 0;
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *b)
{
	struct hf_conn *c = st->data;

	if (nread < 0) {
		free(b->base);
		hf_conn_close(c);
		return;
	}
	if (nread > 0) {
		char *nb = realloc(c->buf, c->len + (size_t)nread);

		assert_non_null(nb);
		c->buf = nb;
		memcpy(c->buf + c->len, b->base, (size_t)nread);
		c->len += (size_t)nread;
	}
	free(b->base);
	conn_try_parse(c);
}

static void on_connection(uv_stream_t *l, int status)
{
	struct hf_server *s = l->data;
	struct hf_conn *c;

	assert_int_equal(status, 0);
	c = calloc(1, sizeof *c);
	assert_non_null(c);
	c->srv = s;
	c->index = s->nconns++;
	uv_tcp_init(s->loop, &c->tcp);
	uv_timer_init(s->loop, &c->timer);
	c->tcp.data = c;
	c->timer.data = c;
	c->next = s->conns;
	s->conns = c;
	assert_int_equal(uv_accept(l, (uv_stream_t *)&c->tcp), 0);
	assert_int_equal(
	    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read), 0);
}

void hf_server_start(struct hf_server *s, uv_loop_t *loop, hf_handler h)
{
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof got;

	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->handler = h;
	assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &a), 0);
	assert_int_equal(uv_tcp_init(loop, &s->listener), 0);
	s->listener.data = s;
	assert_int_equal(uv_tcp_bind(&s->listener, (struct sockaddr *)&a, 0),
	                 0);
	assert_int_equal(
	    uv_listen((uv_stream_t *)&s->listener, 16, on_connection), 0);
	assert_int_equal(
	    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&got, &len), 0);
	s->port = ntohs(((struct sockaddr_in *)&got)->sin_port);
}

void hf_server_close(struct hf_server *s)
{
	uv_close((uv_handle_t *)&s->listener, NULL);
	while (s->conns != NULL)
		hf_conn_close(s->conns);
}
