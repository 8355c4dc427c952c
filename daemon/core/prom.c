/* Prometheus text exposition format (prom.h). */
#include "prom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds: a millisecond to ten seconds, as RPC calls, blocks and commits
 * take. */
const double hj_prom_bounds[HJ_PROM_BUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
    0.1,    0.25,  0.5,    1,     2.5,  5,     10};

static void put(hj_prom *t, const char *s, size_t n)
{
	if (!t->failed)
		hj_buf_put(&t->b, s, n);
}

static void puts_(hj_prom *t, const char *s)
{
	put(t, s, strlen(s));
}

/* A label value: \ " and newline escaped (the format's three). */
static void escaped(hj_prom *t, const char *s, int help)
{
	for (; *s; s++) {
		if (*s == '\\')
			put(t, "\\\\", 2);
		else if (*s == '\n')
			put(t, "\\n", 2);
		else if (*s == '"' && !help)
			put(t, "\\\"", 2);
		else
			put(t, s, 1);
	}
}

int hj_prom_name_ok(const char *s, int label)
{
	if (!s || !*s)
		return 0;
	for (const char *c = s; *c; c++) {
		int alpha = (*c >= 'a' && *c <= 'z') ||
		            (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		            (*c == ':' && !label);
		if (!alpha && !(c != s && *c >= '0' && *c <= '9'))
			return 0;
	}
	return 1;
}

void hj_prom_family(hj_prom *t, const char *name, const char *type,
                    const char *help)
{
	if (!hj_prom_name_ok(name, 0)) {
		t->failed = 1;
		return;
	}
	puts_(t, "# HELP ");
	puts_(t, name);
	put(t, " ", 1);
	escaped(t, help, 1);
	puts_(t, "\n# TYPE ");
	puts_(t, name);
	put(t, " ", 1);
	puts_(t, type);
	put(t, "\n", 1);
}

static void head(hj_prom *t, const char *name, const char *suffix,
                 const char *const *labels, size_t nlabels, const char *le)
{
	if (!hj_prom_name_ok(name, 0)) {
		t->failed = 1;
		return;
	}
	puts_(t, name);
	puts_(t, suffix);
	if (nlabels == 0 && !le)
		return;
	put(t, "{", 1);
	for (size_t i = 0; i < nlabels; i++) {
		if (!hj_prom_name_ok(labels[2 * i], 1)) {
			t->failed = 1;
			return;
		}
		if (i)
			put(t, ",", 1);
		puts_(t, labels[2 * i]);
		put(t, "=\"", 2);
		escaped(t, labels[2 * i + 1], 0);
		put(t, "\"", 1);
	}
	if (le) {
		puts_(t, nlabels ? ",le=\"" : "le=\"");
		puts_(t, le);
		put(t, "\"", 1);
	}
	put(t, "}", 1);
}

static void value(hj_prom *t, double v)
{
	char buf[40];
	if (isnan(v))
		snprintf(buf, sizeof buf, " NaN\n");
	else if (isinf(v))
		snprintf(buf, sizeof buf, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		snprintf(buf, sizeof buf, " %.0f\n", v);
	else
		/* The fewest digits that read back as v: 0.927349368, not
		 * %.17g's 0.92734936800000001.  17 always do. */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, " %.*g\n", prec, v);
			if (prec == 17 || strtod(buf, NULL) == v)
				break;
		}
	puts_(t, buf);
}

void hj_prom_sample(hj_prom *t, const char *name, const char *const *labels,
                    size_t nlabels, double v)
{
	head(t, name, "", labels, nlabels, NULL);
	value(t, v);
}

void hj_prom_sample_u64(hj_prom *t, const char *name, const char *const *labels,
                        size_t nlabels, uint64_t v)
{
	char buf[32];
	head(t, name, "", labels, nlabels, NULL);
	snprintf(buf, sizeof buf, " %llu\n", (unsigned long long)v);
	puts_(t, buf);
}

void hj_prom_gauge(hj_prom *t, const char *name, const char *help, double v)
{
	hj_prom_family(t, name, "gauge", help);
	hj_prom_sample(t, name, NULL, 0, v);
}

void hj_prom_counter(hj_prom *t, const char *name, const char *help, uint64_t v)
{
	hj_prom_family(t, name, "counter", help);
	hj_prom_sample_u64(t, name, NULL, 0, v);
}

void hj_prom_observe(hj_prom_hist *h, double seconds)
{
	if (!(seconds >= 0)) /* NaN too */
		seconds = 0;
	for (size_t i = 0; i < HJ_PROM_BUCKETS; i++)
		if (seconds <= hj_prom_bounds[i])
			h->le[i]++;
	h->count++;
	h->sum += seconds;
}

void hj_prom_hist_samples(hj_prom *t, const char *name,
                          const char *const *labels, size_t nlabels,
                          const hj_prom_hist *h)
{
	char le[32], buf[32];
	for (size_t i = 0; i < HJ_PROM_BUCKETS; i++) {
		snprintf(le, sizeof le, "%g", hj_prom_bounds[i]);
		head(t, name, "_bucket", labels, nlabels, le);
		snprintf(buf, sizeof buf, " %llu\n",
		         (unsigned long long)h->le[i]);
		puts_(t, buf);
	}
	head(t, name, "_bucket", labels, nlabels, "+Inf");
	snprintf(buf, sizeof buf, " %llu\n", (unsigned long long)h->count);
	puts_(t, buf);
	head(t, name, "_sum", labels, nlabels, NULL);
	value(t, h->sum);
	head(t, name, "_count", labels, nlabels, NULL);
	snprintf(buf, sizeof buf, " %llu\n", (unsigned long long)h->count);
	puts_(t, buf);
}

int hj_prom_take(hj_prom *t, char **out, size_t *len)
{
	/* Nothing written is no page either. */
	if (t->failed || t->b.err || !t->b.p) {
		hj_buf_free(&t->b);
		*t = (hj_prom){0};
		*out = NULL;
		*len = 0;
		return -1;
	}
	*out = hj_buf_take(&t->b, len);
	*t = (hj_prom){0};
	return 0;
}
