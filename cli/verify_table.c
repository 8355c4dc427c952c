/* The dealer's table from /v1/table as configuration keys
 * (verify_table.h). */
#include "verify_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "say.h"

/* A table is a few kilobytes; more is not one. */
#define TABLE_MAX (1024 * 1024)

/* One key, "section.key=value", with what it came from for the message. */
static int set(hj_config *cfg, const char *key, const char *value,
               const char *field, char *err, size_t errlen)
{
	char arg[512], why[HJ_ERRLEN];
	if (snprintf(arg, sizeof arg, "%s=%s", key, value) >= (int)sizeof arg) {
		hj_say(err, errlen, "table: %s: too long", field);
		return -1;
	}
	if (hj_config_set_arg(cfg, arg, why, sizeof why) != 0) {
		/* why names the key as given on a command line; say the
		 * table's field instead. */
		const char *r = strstr(why, ": ");
		r = r ? strstr(r + 2, ": ") : NULL;
		hj_say(err, errlen, "table: %s: %s", field, r ? r + 2 : why);
		return -1;
	}
	return 0;
}

/* A string field of o into the key: required unless optional. */
static int str_key(hj_config *cfg, json_t *o, const char *field,
                   const char *key, int optional, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, field);
	if (!v && optional)
		return 0;
	if (!json_is_string(v)) {
		hj_say(err, errlen, "table: %s: %s", field,
		       v ? "not a string" : "missing");
		return -1;
	}
	return set(cfg, key, json_string_value(v), field, err, errlen);
}

/* An integer field of o (0 or more) into the key. */
static int int_key(hj_config *cfg, json_t *o, const char *field,
                   const char *key, int optional, char *err, size_t errlen)
{
	char num[32];
	json_t *v = json_object_get(o, field);
	if (!v && optional)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		hj_say(err, errlen, "table: %s: %s", field,
		       v ? "not a whole number" : "missing");
		return -1;
	}
	snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
	return set(cfg, key, num, field, err, errlen);
}

/* "confirmations" (optional): a whole number, or the word of a finality
 * ("finalized", "safe"), as the configuration key takes them. */
static int confirmations_key(hj_config *cfg, json_t *o, char *err,
                             size_t errlen)
{
	json_t *v = json_object_get(o, "confirmations");
	if (json_is_string(v))
		return set(cfg, "chain.confirmations", json_string_value(v),
		           "confirmations", err, errlen);
	return int_key(cfg, o, "confirmations", "chain.confirmations", 1, err,
	               errlen);
}

int hjc_verify_table_apply(hj_config *cfg, const char *json, size_t len,
                           char *chain, size_t chainlen, char *err,
                           size_t errlen)
{
	json_error_t je;
	json_t *t = json_loadb(json, len, 0, &je), *rules, *v;
	const char *k, *fam, *id;
	int rc = -1;
	if (!json_is_object(t)) {
		hj_say(err, errlen, "table: %s",
		       t ? "not a JSON object" : je.text);
		goto out;
	}
	fam = json_string_value(json_object_get(t, "family"));
	id = json_string_value(json_object_get(t, "chain"));
	rules = json_object_get(t, "rules");
	if (!fam || !id) {
		hj_say(err, errlen, "table: %s: missing or not a string",
		       fam ? "chain" : "family");
		goto out;
	}
	if (!json_is_object(rules) ||
	    !json_is_string(json_object_get(rules, "preset"))) {
		hj_say(err, errlen, "table: rules: %s",
		       json_is_object(rules) ? "no preset"
		                             : "missing or not an object");
		goto out;
	}
	if (snprintf(chain, chainlen, "%s", id) >= (int)chainlen) {
		hj_say(err, errlen, "table: chain: too long");
		goto out;
	}
	if (set(cfg, "chain.family", fam, "family", err, errlen))
		goto out;
	if (strcmp(fam, "bitcoin") == 0) {
		/* "bitcoin:<coin>:<network>:<genesis>" */
		char coin[32];
		const char *c = strchr(id, ':'),
		           *e = c ? strchr(c + 1, ':') : 0;
		if (!e || (size_t)(e - c - 1) >= sizeof coin) {
			hj_say(err, errlen,
			       "table: chain: \"%.80s\" is not "
			       "bitcoin:COIN:NETWORK:GENESIS",
			       id);
			goto out;
		}
		memcpy(coin, c + 1, (size_t)(e - c - 1));
		coin[e - c - 1] = 0;
		if (set(cfg, "chain.coin", coin, "chain", err, errlen))
			goto out;
	}
	if (str_key(cfg, t, "dealer", "dealer.address", 0, err, errlen) ||
	    set(cfg, "rules.preset",
	        json_string_value(json_object_get(rules, "preset")),
	        "rules.preset", err, errlen))
		goto out;
	json_object_foreach(rules, k, v)
	{
		char key[80], field[80];
		if (strcmp(k, "preset") == 0)
			continue;
		if (strlen(k) > 40 ||
		    strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		        strlen(k)) {
			hj_say(err, errlen,
			       "table: rules: a key that is not a rule key");
			goto out;
		}
		snprintf(key, sizeof key, "rules.%.60s", k);
		snprintf(field, sizeof field, "rules.%.60s", k);
		if (!json_is_string(v)) {
			hj_say(err, errlen, "table: %s: not a string", field);
			goto out;
		}
		if (set(cfg, key, json_string_value(v), field, err, errlen))
			goto out;
	}
	if (str_key(cfg, t, "minBet", "rules.min_bet", 0, err, errlen) ||
	    str_key(cfg, t, "maxBet", "rules.max_bet", 0, err, errlen) ||
	    str_key(cfg, t, "maxExposure", "rules.max_exposure", 1, err,
	            errlen) ||
	    int_key(cfg, t, "timeoutBlocks", "rules.timeout_blocks", 0, err,
	            errlen) ||
	    confirmations_key(cfg, t, err, errlen))
		goto out;
	rc = 0;
out:
	json_decref(t);
	/* The parser's words may quote the input: one printable line. */
	for (char *c = err; rc && *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	return rc;
}

struct body {
	char *p;
	size_t n;
	int big;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	if (b->n + n > TABLE_MAX) {
		b->big = 1;
		return 0;
	}
	char *p = realloc(b->p, b->n + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->n, ptr, n);
	b->p = p;
	b->n += n;
	p[b->n] = 0;
	return n;
}

static int fetch(const char *url, char **out, size_t *len, char *err,
                 size_t errlen)
{
	char full[2048];
	size_t n = strlen(url);
	const char *suffix = "/v1/table";
	struct body b = {0};
	long status = 0;
	int rc = -1;
	if (n >= strlen(suffix) &&
	    strcmp(url + n - strlen(suffix), suffix) == 0)
		suffix = "";
	else if (n > 0 && url[n - 1] == '/')
		suffix = "v1/table";
	if (snprintf(full, sizeof full, "%s%s", url, suffix) >=
	    (int)sizeof full) {
		hj_say(err, errlen, "%.80s...: too long", url);
		return -1;
	}
	CURL *c = curl_easy_init();
	if (!c) {
		hj_say(err, errlen, "out of memory");
		return -1;
	}
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	CURLcode cr = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (b.big)
		hj_say(err, errlen, "%s: more than %d bytes: not a table", full,
		       TABLE_MAX);
	else if (cr != CURLE_OK)
		hj_say(err, errlen, "%s: %s", full, curl_easy_strerror(cr));
	else if (status != 200)
		hj_say(err, errlen, "%s: HTTP status %ld", full, status);
	else
		rc = 0;
	curl_easy_cleanup(c);
	if (rc == 0 && !b.p)
		b.p = calloc(1, 1);
	if (rc == 0 && !b.p) {
		hj_say(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc) {
		free(b.p);
		return rc;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

int hjc_verify_table_read(const char *where, char **out, size_t *len, char *err,
                          size_t errlen)
{
	if (strncmp(where, "http://", 7) == 0 ||
	    strncmp(where, "https://", 8) == 0)
		return fetch(where, out, len, err, errlen);
	FILE *f = fopen(where, "rb");
	struct body b = {0};
	char chunk[65536];
	size_t got;
	if (!f) {
		hj_say(err, errlen, "%s: %s", where, strerror(errno));
		return -1;
	}
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (on_data(chunk, 1, got, &b) != got)
			break;
	int bad = ferror(f) || b.big || !feof(f);
	fclose(f);
	if (bad || !b.p) {
		hj_say(err, errlen, "%s: %s", where,
		       b.big ? "too big for a table"
		       : bad ? "cannot be read"
		             : "empty");
		free(b.p);
		return -1;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}
