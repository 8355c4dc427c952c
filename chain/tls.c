/* TLS over memory BIOs, OpenSSL's libssl (tls.h). */
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "say.h"

struct hj_tls {
	SSL *ssl;      /* owns both BIOs */
	BIO *in, *out; /* from the server, to it */
	int closed;    /* close_notify queued */
	char host[256];
};

/* OpenSSL's reason of its last error, one printable line (its own
 * strings are), or what_else. */
static const char *last_reason(char *buf, size_t cap, const char *what_else)
{
	unsigned long e = ERR_peek_last_error();
	const char *r;

	if (e == 0)
		return what_else;
	r = ERR_reason_error_string(e);
	if (r)
		return r;
	ERR_error_string_n(e, buf, cap);
	return buf;
}

/* ---- the CA file ---- */

/*
 * The file's certificates into *out (a stack the caller frees with
 * sk_X509_INFO_pop_free(..., X509_INFO_free)), read within bounds: a
 * regular file (never a FIFO or a device that would block or never end),
 * HJ_TLS_MAX_CA_FILE bytes at most.
 */
static int ca_read(const char *path, STACK_OF(X509_INFO) * *out, char *err,
                   size_t errlen)
{
	struct stat st;
	char *text = NULL, rb[256];
	size_t got = 0;
	int fd, rc = -EINVAL, certs = 0;
	BIO *mem = NULL;
	STACK_OF(X509_INFO) *infos = NULL;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = errno == ENOENT || errno == EACCES ? -errno : -EINVAL;
		hj_say(err, errlen, "cannot open it: %s", strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		hj_say(err, errlen, "not a regular file");
		goto out;
	}
	if (st.st_size > HJ_TLS_MAX_CA_FILE) {
		hj_say(err, errlen, "larger than %d bytes", HJ_TLS_MAX_CA_FILE);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		rc = -ENOMEM;
		hj_say(err, errlen, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, text + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			hj_say(err, errlen, "cannot read it: %s",
			       strerror(errno));
			goto out;
		}
		if (k == 0)
			break; /* cut meanwhile: what is there */
		got += (size_t)k;
	}
	ERR_clear_error();
	mem = BIO_new_mem_buf(text, (int)got);
	if (!mem) {
		rc = -ENOMEM;
		hj_say(err, errlen, "out of memory");
		goto out;
	}
	infos = PEM_X509_INFO_read_bio(mem, NULL, NULL, NULL);
	if (!infos) {
		hj_say(err, errlen,
		       "a PEM block in it does not parse (OpenSSL: %s)",
		       last_reason(rb, sizeof rb, "no reason given"));
		goto out;
	}
	for (int i = 0; i < sk_X509_INFO_num(infos); i++)
		certs += sk_X509_INFO_value(infos, i)->x509 != NULL;
	if (certs == 0) {
		hj_say(err, errlen,
		       "holds no PEM certificate (-----BEGIN "
		       "CERTIFICATE-----)");
		goto out;
	}
	*out = infos;
	infos = NULL;
	rc = 0;
out:
	if (infos)
		sk_X509_INFO_pop_free(infos, X509_INFO_free);
	BIO_free(mem);
	free(text);
	close(fd);
	ERR_clear_error();
	return rc;
}

int hj_tls_ca_check(const char *path, char *err, size_t errlen)
{
	STACK_OF(X509_INFO) * infos;
	int rc = ca_read(path, &infos, err, errlen);

	if (rc == 0)
		sk_X509_INFO_pop_free(infos, X509_INFO_free);
	return rc;
}

/* ca_file's certificates, and only those, trusted by ctx. */
static int ca_load(SSL_CTX *ctx, const char *path, char *err, size_t errlen)
{
	STACK_OF(X509_INFO) * infos;
	X509_STORE *store = SSL_CTX_get_cert_store(ctx);
	char why[HJ_ERRLEN];
	int rc = ca_read(path, &infos, why, sizeof why);

	if (rc) {
		hj_say(err, errlen, "ca_file %s: %s", path, why);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	for (int i = 0; i < sk_X509_INFO_num(infos) && rc == 0; i++) {
		X509 *x = sk_X509_INFO_value(infos, i)->x509;
		/* The same certificate twice in the file is no error. */
		if (x && !X509_STORE_add_cert(store, x) &&
		    ERR_GET_REASON(ERR_peek_last_error()) !=
		        X509_R_CERT_ALREADY_IN_HASH_TABLE) {
			hj_say(err, errlen, "ca_file %s: out of memory", path);
			rc = -ENOMEM;
		}
	}
	sk_X509_INFO_pop_free(infos, X509_INFO_free);
	ERR_clear_error();
	return rc;
}

/* ---- a connection ---- */

int hj_tls_new(const char *host, const char *ca_file, hj_tls **out, char *err,
               size_t errlen)
{
	unsigned char ip[16];
	int is_ip, rc = -ENOMEM;
	SSL_CTX *ctx = NULL;
	hj_tls *t;

	*out = NULL;
	if (!host || !host[0] || strlen(host) >= sizeof t->host) {
		hj_say(err, errlen, "TLS: no host name, or one too long");
		return -EINVAL;
	}
	t = calloc(1, sizeof *t);
	if (!t) {
		hj_say(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(t->host, sizeof t->host, "%s", host);
	ERR_clear_error();
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION))
		goto nomem;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (ca_file) {
		rc = ca_load(ctx, ca_file, err, errlen);
		if (rc)
			goto fail;
	} else if (!SSL_CTX_set_default_verify_paths(ctx)) {
		char rb[256];
		hj_say(err, errlen,
		       "TLS: cannot load the system's CA store: %s",
		       last_reason(rb, sizeof rb, "no reason given"));
		rc = -EINVAL;
		goto fail;
	}
	t->ssl = SSL_new(ctx);
	t->in = BIO_new(BIO_s_mem());
	t->out = BIO_new(BIO_s_mem());
	if (!t->ssl || !t->in || !t->out) {
		BIO_free(t->in);
		BIO_free(t->out);
		goto nomem;
	}
	/* An empty BIO is "more to come", never the end of the stream: the
	 * caller says when the socket ends. */
	BIO_set_mem_eof_return(t->in, -1);
	BIO_set_mem_eof_return(t->out, -1);
	SSL_set_bio(t->ssl, t->in, t->out);
	SSL_set_connect_state(t->ssl);
	/* A name: SNI and the certificate's DNS names.  An IP literal: its
	 * IP addresses (a literal is never sent as SNI). */
	is_ip = inet_pton(AF_INET, host, ip) == 1 ||
	        inet_pton(AF_INET6, host, ip) == 1;
	if (is_ip ? !X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host)
	          : !SSL_set_tlsext_host_name(t->ssl, host) ||
	                !SSL_set1_host(t->ssl, host)) {
		hj_say(err, errlen, "TLS: cannot check the certificate for %s",
		       host);
		rc = -EINVAL;
		goto fail;
	}
	SSL_CTX_free(ctx); /* the connection holds it */
	ERR_clear_error();
	*out = t;
	return 0;
nomem:
	hj_say(err, errlen, "out of memory");
	rc = -ENOMEM;
fail:
	SSL_free(t->ssl);
	SSL_CTX_free(ctx);
	free(t);
	ERR_clear_error();
	return rc;
}

void hj_tls_free(hj_tls *t)
{
	if (!t)
		return;
	SSL_free(t->ssl);
	free(t);
}

int hj_tls_put(hj_tls *t, const void *p, size_t n)
{
	while (n > 0) {
		int k = n > 1u << 30 ? 1 << 30 : (int)n;
		if (BIO_write(t->in, p, k) != k)
			return -ENOMEM;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return 0;
}

/* Why an SSL call that returned r failed: 0 when it only needs more
 * from the server, else -1 with why. */
static int failed(hj_tls *t, int r, const char *what, char *why, size_t whylen)
{
	char rb[256];
	int e = SSL_get_error(t->ssl, r);
	long v;

	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return 0;
	v = SSL_get_verify_result(t->ssl);
	if (v != X509_V_OK)
		hj_say(why, whylen,
		       "the TLS certificate of %s failed verification: %s",
		       t->host, X509_verify_cert_error_string(v));
	else
		hj_say(why, whylen, "%s %s failed: %s%s", what, t->host,
		       last_reason(rb, sizeof rb,
		                   e == SSL_ERROR_SYSCALL
		                       ? "the connection ended unexpectedly"
		                       : "no reason given"),
		       ERR_GET_REASON(ERR_peek_last_error()) ==
		               SSL_R_WRONG_VERSION_NUMBER
		           ? " (is the server plain, without TLS?)"
		           : "");
	ERR_clear_error();
	return -1;
}

int hj_tls_handshake(hj_tls *t, char *why, size_t whylen)
{
	int r;

	ERR_clear_error();
	r = SSL_do_handshake(t->ssl);
	if (r == 1)
		return 1;
	return failed(t, r, "the TLS handshake with", why, whylen);
}

ssize_t hj_tls_read(hj_tls *t, void *buf, size_t cap, char *why, size_t whylen)
{
	size_t got = 0;
	int r;

	ERR_clear_error();
	r = SSL_read_ex(t->ssl, buf, cap, &got);
	if (r == 1)
		return (ssize_t)got;
	if (SSL_get_error(t->ssl, r) == SSL_ERROR_ZERO_RETURN)
		return HJ_TLS_CLOSED;
	return failed(t, r, "TLS with", why, whylen);
}

int hj_tls_write(hj_tls *t, const void *p, size_t n, char *why, size_t whylen)
{
	size_t done = 0;
	int r;

	if (n == 0)
		return 0;
	ERR_clear_error();
	/* A memory BIO takes everything: written whole, or failed. */
	r = SSL_write_ex(t->ssl, p, n, &done);
	if (r == 1 && done == n)
		return 0;
	if (r == 1 || failed(t, r, "TLS with", why, whylen) == 0)
		hj_say(why, whylen, "TLS with %s: cannot write", t->host);
	ERR_clear_error();
	return -1;
}

void hj_tls_close_notify(hj_tls *t)
{
	if (t->closed || !SSL_is_init_finished(t->ssl))
		return;
	t->closed = 1;
	ERR_clear_error();
	(void)SSL_shutdown(t->ssl); /* 0: the server's is not awaited */
	ERR_clear_error();
}

size_t hj_tls_take(hj_tls *t, void *buf, size_t cap)
{
	int k;

	if (cap > 1u << 30)
		cap = 1u << 30;
	if (BIO_ctrl_pending(t->out) == 0)
		return 0;
	k = BIO_read(t->out, buf, (int)cap);
	return k > 0 ? (size_t)k : 0;
}
