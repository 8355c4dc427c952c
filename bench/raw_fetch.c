/*
 * The raw limit for the catch-up benchmarks: a minimal batched JSON-RPC
 * client that parses every response (as any client must).  No validation,
 * no game, no state: what the node and the wire allow.
 *
 * EVM (default): blocks from..to with eth_getBlockByNumber(h, true),
 * `batch` blocks per HTTP request.  With --receipts ADDR, then, as
 * hashjackd fetches them, one batched request of eth_getTransactionReceipt
 * for every transaction of the batch whose `to` is ADDR (none when there
 * is none); with --block-receipts ADDR instead, one batched request of
 * eth_getBlockReceipts for every block of the batch holding one; with
 * --with-receipts ADDR, each block's eth_getBlockReceipts in the blocks'
 * own request, as hashjackd asks them on a dense chain (ADDR unused).
 *
 * --btc (Bitcoin Core, Litecoin Core): per batch of heights, as hashjackd
 * fetches them: one batched request of `getblockhash h`, then one of
 * `getblock <hash> 0`; every block's hex is decoded to bytes.  Basic
 * authentication with --auth USER:PASSWORD or --cookie FILE (the node's
 * .cookie, which holds user:password).
 *
 * --depth N: N batches in flight at once (one kept-alive connection each;
 * hashjackd keeps 3), taken in height order.  Default 1: one batch after
 * the other over one connection.
 *
 * Usage: raw_fetch [--btc] [--auth USER:PASS | --cookie FILE] [--depth N]
 *        [--receipts ADDR | --block-receipts ADDR | --with-receipts ADDR]
 *        URL FROM TO [BATCH];
 *        prints "blocks N seconds S" (with --btc a second line "bytes B":
 *        the decoded block bytes; with receipts a second line "receipts R
 *        calls C": the receipts read, the calls that asked for them).
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_DEPTH 16

struct buf {
	char *p;
	size_t n, cap;
};

/* One batch in flight on its own easy handle (its own connection). */
struct slot {
	CURL *c;
	struct buf b;
	char *body;
	uint64_t lo, hi; /* the batch's heights */
	int stage;       /* 1: EVM blocks or BTC hashes; 2: EVM receipts or
	                    BTC blocks */
};

/* EVM receipts: none, each dealer transaction's, each such block's. */
enum { RCPT_NONE, RCPT_TX, RCPT_BLOCK, RCPT_WITH };

/* The ids of --with-receipts' receipt calls: this plus the height. */
#define WITH_ID ((json_int_t)1 << 62)

struct run {
	int btc;
	int rcpt;           /* RCPT_* */
	const char *dealer; /* "0x" and 40 hex digits: the `to` to match */
	uint64_t receipts, calls;
	unsigned batch;
	uint64_t next, to; /* the next batch starts at next; the last height */
	uint64_t got, bytes;
	unsigned char *blk; /* decoded block (BTC) */
	size_t cap;
};

static size_t on_data(char *d, size_t sz, size_t nm, void *arg)
{
	struct buf *b = arg;
	size_t n = sz * nm;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return 0;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int slot_init(struct slot *s, const char *url, struct curl_slist *h,
                     const char *userpwd)
{
	memset(s, 0, sizeof *s);
	s->c = curl_easy_init();
	if (!s->c)
		return -1;
	curl_easy_setopt(s->c, CURLOPT_URL, url);
	curl_easy_setopt(s->c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(s->c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(s->c, CURLOPT_WRITEDATA, &s->b);
	curl_easy_setopt(s->c, CURLOPT_PRIVATE, (char *)s);
	if (userpwd) {
		curl_easy_setopt(s->c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(s->c, CURLOPT_USERPWD, userpwd);
	}
	return 0;
}

/* Sends req (consumed) on s. */
static int submit(CURLM *m, struct slot *s, json_t *req)
{
	free(s->body);
	s->body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!s->body)
		return -1;
	s->b.n = 0;
	curl_easy_setopt(s->c, CURLOPT_POSTFIELDS, s->body);
	return curl_multi_add_handle(m, s->c) == CURLM_OK ? 0 : -1;
}

/* The finished transfer's response array, or NULL (said why). */
static json_t *response(struct slot *s, CURLcode rc)
{
	long status = 0;
	if (rc != CURLE_OK) {
		fprintf(stderr, "raw_fetch: %s\n", curl_easy_strerror(rc));
		return NULL;
	}
	curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &status);
	json_t *resp = json_loadb(s->b.p, s->b.n, 0, NULL);
	if (status != 200 || !json_is_array(resp)) {
		fprintf(stderr, "raw_fetch: HTTP %ld, bad response: %.200s\n",
		        status, s->b.n ? s->b.p : "");
		json_decref(resp);
		return NULL;
	}
	return resp;
}

static json_t *call(const char *ver, json_int_t id, const char *method,
                    json_t *params)
{
	return json_pack("{s:s,s:I,s:s,s:o}", "jsonrpc", ver, "id", id,
	                 "method", method, "params", params);
}

/* The result of the batch element with this id (checked: no error). */
static json_t *result_of(json_t *resp, json_int_t id, size_t guess)
{
	json_t *x = json_array_get(resp, guess);
	if (!x || json_integer_value(json_object_get(x, "id")) != id) {
		size_t i;
		json_array_foreach(resp, i, x)
		{
			if (json_integer_value(json_object_get(x, "id")) == id)
				break;
		}
		if (i == json_array_size(resp))
			x = NULL;
	}
	json_t *err = x ? json_object_get(x, "error") : NULL;
	if (!x || (err && !json_is_null(err))) {
		char *e = err ? json_dumps(err, JSON_COMPACT) : NULL;
		fprintf(stderr, "raw_fetch: id %" JSON_INTEGER_FORMAT ": %s\n",
		        id, e ? e : "missing");
		free(e);
		return NULL;
	}
	return json_object_get(x, "result");
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex to bytes into *out (grown as needed); the byte count or -1. */
static long unhex(const char *s, size_t n, unsigned char **out, size_t *cap)
{
	if (n % 2)
		return -1;
	if (n / 2 > *cap) {
		unsigned char *p = realloc(*out, n / 2);
		if (!p)
			return -1;
		*out = p;
		*cap = n / 2;
	}
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval((unsigned char)s[i]);
		int lo = hexval((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		(*out)[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

/* The first request of a batch: EVM blocks (then, with, each block's
 * receipts), or BTC block hashes. */
static json_t *first_request(int btc, int with, uint64_t lo, uint64_t hi)
{
	json_t *req = json_array();
	for (uint64_t k = lo; k <= hi; k++) {
		char q[24];
		snprintf(q, sizeof q, "0x%" PRIx64, k);
		json_array_append_new(
		    req,
		    btc ? call("1.0", (json_int_t)k, "getblockhash",
		               json_pack("[I]", (json_int_t)k))
		        : call("2.0", (json_int_t)k, "eth_getBlockByNumber",
		               json_pack("[sb]", q, 1)));
	}
	for (uint64_t k = lo; with && k <= hi; k++) {
		char q[24];
		snprintf(q, sizeof q, "0x%" PRIx64, k);
		json_array_append_new(req, call("2.0", WITH_ID + (json_int_t)k,
		                                "eth_getBlockReceipts",
		                                json_pack("[s]", q)));
	}
	return req;
}

/* BTC: the getblock <hash> 0 batch for the hashes of resp, or NULL. */
static json_t *blocks_request(const struct slot *s, json_t *resp)
{
	json_t *req = json_array();
	for (uint64_t k = s->lo; k <= s->hi; k++) {
		json_t *h = result_of(resp, (json_int_t)k, k - s->lo);
		if (!json_is_string(h) || json_string_length(h) != 64) {
			fprintf(stderr, "raw_fetch: no hash for %" PRIu64 "\n",
			        k);
			json_decref(req);
			return NULL;
		}
		json_array_append_new(req,
		                      call("1.0", (json_int_t)k, "getblock",
		                           json_pack("[Oi]", h, 0)));
	}
	return req;
}

/* BTC: decodes every block of resp. */
static int take_blocks(struct run *r, const struct slot *s, json_t *resp)
{
	for (uint64_t k = s->lo; k <= s->hi; k++) {
		json_t *x = result_of(resp, (json_int_t)k, k - s->lo);
		long n = json_is_string(x)
		             ? unhex(json_string_value(x),
		                     json_string_length(x), &r->blk, &r->cap)
		             : -1;
		if (n < 80) {
			fprintf(stderr, "raw_fetch: bad block %" PRIu64 "\n",
			        k);
			return -1;
		}
		r->bytes += (uint64_t)n;
		r->got++;
	}
	return 0;
}

/* Whether transaction tx goes to the dealer (r->dealer). */
static int to_dealer(const struct run *r, json_t *tx)
{
	const char *to = json_string_value(json_object_get(tx, "to"));
	return to && strcasecmp(to, r->dealer) == 0;
}

/* EVM: the receipts request for the blocks of resp (RCPT_TX: each
 * transaction to the dealer, in block order; RCPT_BLOCK: each block
 * holding one); *none set when there is nothing to ask. */
static json_t *receipts_request(struct run *r, const struct slot *s,
                                json_t *resp, int *none)
{
	json_t *req = json_array();
	json_int_t id = 0;

	for (uint64_t k = s->lo; k <= s->hi; k++) {
		json_t *b = result_of(resp, (json_int_t)k, k - s->lo);
		json_t *txs = json_object_get(b, "transactions"), *tx;
		size_t i;
		if (!json_is_array(txs)) {
			fprintf(stderr, "raw_fetch: no block %" PRIu64 "\n", k);
			json_decref(req);
			return NULL;
		}
		json_array_foreach(txs, i, tx)
		{
			if (!to_dealer(r, tx))
				continue;
			if (r->rcpt == RCPT_BLOCK) {
				char q[24];
				snprintf(q, sizeof q, "0x%" PRIx64, k);
				json_array_append_new(
				    req,
				    call("2.0", id++, "eth_getBlockReceipts",
				         json_pack("[s]", q)));
				break;
			}
			json_array_append_new(
			    req, call("2.0", id++, "eth_getTransactionReceipt",
			              json_pack("[O]",
			                        json_object_get(tx, "hash"))));
		}
	}
	*none = json_array_size(req) == 0;
	return req;
}

/* EVM: counts the receipts of resp (every call must have answered). */
static int take_receipts(struct run *r, json_t *resp)
{
	size_t n = json_array_size(resp);
	for (size_t i = 0; i < n; i++) {
		json_t *x = result_of(resp, (json_int_t)i, i);
		if (r->rcpt == RCPT_TX ? !json_is_object(x)
		                       : !json_is_array(x)) {
			fprintf(stderr, "raw_fetch: bad receipt answer %zu\n",
			        i);
			return -1;
		}
		r->receipts += r->rcpt == RCPT_TX ? 1 : json_array_size(x);
	}
	r->calls += n;
	return 0;
}

/*
 * A transfer of s finished: takes its response and either sends the
 * batch's next request (BTC hashes -> blocks, EVM blocks -> receipts) or
 * returns 1 (batch done).
 */
static int on_done(struct run *r, CURLM *m, struct slot *s, CURLcode rc)
{
	json_t *resp = response(s, rc);
	int ret = -1;
	if (!resp)
		return -1;
	if (r->btc && s->stage == 1) {
		json_t *req = blocks_request(s, resp);
		s->stage = 2;
		ret = req && submit(m, s, req) == 0 ? 0 : -1;
	} else if (r->btc) {
		ret = take_blocks(r, s, resp) == 0 ? 1 : -1;
	} else if (s->stage == 2) {
		ret = take_receipts(r, resp) == 0 ? 1 : -1;
	} else if (r->rcpt == RCPT_WITH) {
		uint64_t n = s->hi - s->lo + 1;
		ret = 1;
		for (uint64_t k = s->lo; k <= s->hi && ret == 1; k++) {
			json_t *x = result_of(resp, WITH_ID + (json_int_t)k,
			                      n + (k - s->lo));
			if (!json_is_array(x)) {
				fprintf(stderr,
				        "raw_fetch: bad receipts of %" PRIu64
				        "\n",
				        k);
				ret = -1;
			} else {
				r->receipts += json_array_size(x);
				r->calls++;
			}
		}
		r->got += n;
	} else if (r->rcpt != RCPT_NONE) {
		int none = 0;
		json_t *req = receipts_request(r, s, resp, &none);
		r->got += json_array_size(resp);
		s->stage = 2;
		if (req && none) {
			json_decref(req);
			ret = 1;
		} else {
			ret = req && submit(m, s, req) == 0 ? 0 : -1;
		}
	} else {
		r->got += json_array_size(resp);
		ret = 1;
	}
	json_decref(resp);
	return ret;
}

/* Sends the next batch's first request on s. */
static int start_batch(struct run *r, CURLM *m, struct slot *s)
{
	s->lo = r->next;
	s->hi = r->to - r->next < r->batch ? r->to : r->next + r->batch - 1;
	s->stage = 1;
	r->next = s->hi + 1;
	return submit(
	    m, s, first_request(r->btc, r->rcpt == RCPT_WITH, s->lo, s->hi));
}

/* The first line of a cookie file ("user:password"), or NULL. */
static char *read_cookie(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return NULL;
	}
	char *ok = fgets(line, sizeof line, f);
	fclose(f);
	if (!ok)
		return NULL;
	line[strcspn(line, "\r\n")] = '\0';
	return strdup(line);
}

int main(int argc, char **argv)
{
	struct run r = {0};
	unsigned depth = 1;
	int a = 1;
	char *userpwd = NULL;

	while (a < argc && strncmp(argv[a], "--", 2) == 0) {
		if (strcmp(argv[a], "--btc") == 0) {
			r.btc = 1;
			a++;
		} else if ((strcmp(argv[a], "--receipts") == 0 ||
		            strcmp(argv[a], "--block-receipts") == 0 ||
		            strcmp(argv[a], "--with-receipts") == 0) &&
		           a + 1 < argc) {
			r.rcpt = argv[a][2] == 'r'   ? RCPT_TX
			         : argv[a][2] == 'b' ? RCPT_BLOCK
			                             : RCPT_WITH;
			r.dealer = argv[a + 1];
			a += 2;
		} else if (strcmp(argv[a], "--depth") == 0 && a + 1 < argc) {
			depth = (unsigned)strtoul(argv[a + 1], NULL, 10);
			a += 2;
		} else if (strcmp(argv[a], "--auth") == 0 && a + 1 < argc) {
			free(userpwd);
			userpwd = strdup(argv[a + 1]);
			a += 2;
		} else if (strcmp(argv[a], "--cookie") == 0 && a + 1 < argc) {
			free(userpwd);
			userpwd = read_cookie(argv[a + 1]);
			if (!userpwd)
				return 66;
			a += 2;
		} else {
			break;
		}
	}
	if (argc - a < 3 || depth == 0 || depth > MAX_DEPTH ||
	    (r.rcpt && (r.btc || strlen(r.dealer) != 42))) {
		fprintf(stderr,
		        "usage: raw_fetch [--btc] [--auth USER:PASS | "
		        "--cookie FILE] [--depth 1..16] [--receipts "
		        "ADDR | --block-receipts ADDR | --with-receipts "
		        "ADDR] URL FROM TO "
		        "[BATCH]\n");
		return 64;
	}
	const char *url = argv[a];
	uint64_t from = strtoull(argv[a + 1], NULL, 10);
	uint64_t to = strtoull(argv[a + 2], NULL, 10);
	unsigned batch =
	    argc - a > 3 ? (unsigned)strtoul(argv[a + 3], NULL, 10) : 100;
	struct curl_slist *h =
	    curl_slist_append(NULL, "Content-Type: application/json");
	/* As hashjackd: no "Expect: 100-continue" wait on large bodies. */
	h = h ? curl_slist_append(h, "Expect:") : NULL;
	struct slot slots[MAX_DEPTH];
	CURLM *m = curl_multi_init();
	unsigned active = 0;
	int rc = 0;

	if (batch == 0 || to < from || !h || !m)
		return 64;
	for (unsigned i = 0; i < depth; i++)
		if (slot_init(&slots[i], url, h, userpwd) < 0)
			return 1;
	r.next = from;
	r.to = to;
	r.batch = batch;
	double t0 = now();
	for (unsigned i = 0; i < depth && r.next <= to && rc == 0; i++) {
		rc = start_batch(&r, m, &slots[i]);
		active++;
	}
	while (active > 0 && rc == 0) {
		int running, left;
		CURLMsg *msg;
		curl_multi_perform(m, &running);
		while (rc == 0 && (msg = curl_multi_info_read(m, &left))) {
			char *p;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
			                  &p);
			struct slot *s = (struct slot *)p;
			CURLcode res = msg->data.result;
			curl_multi_remove_handle(m, s->c);
			int d = on_done(&r, m, s, res);
			if (d < 0) {
				rc = -1;
			} else if (d == 1) {
				active--;
				if (r.next <= to) {
					rc = start_batch(&r, m, s);
					active++;
				}
			}
		}
		if (active > 0 && rc == 0)
			curl_multi_poll(m, NULL, 0, 1000, NULL);
	}
	double el = now() - t0;
	if (rc == 0) {
		printf("blocks %" PRIu64 " seconds %.3f\n", r.got, el);
		if (r.btc)
			printf("bytes %" PRIu64 "\n", r.bytes);
		if (r.rcpt)
			printf("receipts %" PRIu64 " calls %" PRIu64 "\n",
			       r.receipts, r.calls);
	}
	for (unsigned i = 0; i < depth; i++) {
		curl_multi_remove_handle(m, slots[i].c);
		curl_easy_cleanup(slots[i].c);
		free(slots[i].b.p);
		free(slots[i].body);
	}
	curl_multi_cleanup(m);
	curl_slist_free_all(h);
	free(r.blk);
	free(userpwd);
	return rc == 0 ? 0 : 1;
}
