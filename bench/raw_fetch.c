/*
 * The raw limit for the catch-up benchmark: a minimal batched JSON-RPC
 * client that fetches blocks from..to with eth_getBlockByNumber(h, true),
 * `batch` blocks per HTTP request, over one kept-alive connection, and
 * parses every response (as any client must).  No validation, no game, no
 * state: what the node and the wire allow.
 *
 * Usage: raw_fetch URL FROM TO [BATCH]; prints "blocks N seconds S".
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct buf {
	char *p;
	size_t n, cap;
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

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: raw_fetch URL FROM TO [BATCH]\n");
		return 64;
	}
	const char *url = argv[1];
	uint64_t from = strtoull(argv[2], NULL, 10);
	uint64_t to = strtoull(argv[3], NULL, 10);
	unsigned batch = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 100;
	struct buf b = {0};
	struct curl_slist *h =
	    curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = curl_easy_init();
	uint64_t got = 0;

	if (!c || batch == 0 || to < from)
		return 64;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	double t0 = now();
	for (uint64_t hgt = from; hgt <= to; hgt += batch) {
		uint64_t end = hgt + batch - 1 > to ? to : hgt + batch - 1;
		json_t *req = json_array();
		for (uint64_t k = hgt; k <= end; k++) {
			char q[24];
			snprintf(q, sizeof q, "0x%" PRIx64, k);
			json_array_append_new(
			    req,
			    json_pack("{s:s,s:I,s:s,s:[sb]}", "jsonrpc", "2.0",
			              "id", (json_int_t)k, "method",
			              "eth_getBlockByNumber", "params", q, 1));
		}
		char *body = json_dumps(req, JSON_COMPACT);
		json_decref(req);
		b.n = 0;
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		CURLcode rc = curl_easy_perform(c);
		free(body);
		if (rc != CURLE_OK) {
			fprintf(stderr, "raw_fetch: %s\n",
			        curl_easy_strerror(rc));
			return 1;
		}
		json_t *resp = json_loadb(b.p, b.n, 0, NULL);
		if (!json_is_array(resp)) {
			fprintf(stderr, "raw_fetch: bad response\n");
			return 1;
		}
		got += json_array_size(resp);
		json_decref(resp);
	}
	double el = now() - t0;
	printf("blocks %" PRIu64 " seconds %.3f\n", got, el);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	free(b.p);
	return 0;
}
