/*
 * Prometheus text exposition format 0.0.4, written by hand (hashjackd's
 * /metrics, `hashjack serve`'s): "# HELP" and "# TYPE" once per family,
 * label values escaped, counters as exact integers, histograms with fixed
 * buckets.  Names are the caller's constants, checked here all the same:
 * a bad one is left out, never written half.
 *
 * The text grows in one buffer; when memory runs out it stops growing and
 * hj_prom_take says so (the page is not served short).
 */
#ifndef HJ_PROM_H
#define HJ_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Set to {0} before the first write. */
typedef struct hj_prom {
	hj_buf b;   /* the text; b.err: out of memory */
	int failed; /* a bad name: nothing more is written */
} hj_prom;

/* The family's "# HELP" (help escaped) and "# TYPE" lines; type is
 * "counter", "gauge" or "histogram". */
void hj_prom_family(hj_prom *t, const char *name, const char *type,
                    const char *help);

/*
 * One sample: name, then labels (NULL for none) as pairs of name and value,
 * nlabels pairs, values escaped.  Integer values are written exactly (a
 * counter is a uint64_t cast to double only beyond 2^53); others in the
 * shortest of 15, 16 or 17 significant digits that reads back as the same
 * double; NaN and infinities as Prometheus spells them.
 */
void hj_prom_sample(hj_prom *t, const char *name, const char *const *labels,
                    size_t nlabels, double v);
void hj_prom_sample_u64(hj_prom *t, const char *name, const char *const *labels,
                        size_t nlabels, uint64_t v);

/* Family and one unlabelled sample. */
void hj_prom_gauge(hj_prom *t, const char *name, const char *help, double v);
void hj_prom_counter(hj_prom *t, const char *name, const char *help,
                     uint64_t v);

/* A histogram of seconds with the buckets below (and +Inf). */
#define HJ_PROM_BUCKETS 14
extern const double hj_prom_bounds[HJ_PROM_BUCKETS];
typedef struct hj_prom_hist {
	uint64_t le[HJ_PROM_BUCKETS]; /* observations <= hj_prom_bounds[i] */
	uint64_t count;
	double sum;
} hj_prom_hist;

void hj_prom_observe(hj_prom_hist *h, double seconds);
/* Its _bucket, _sum and _count samples with the given labels (the family
 * line is the caller's). */
void hj_prom_hist_samples(hj_prom *t, const char *name,
                          const char *const *labels, size_t nlabels,
                          const hj_prom_hist *h);

/* The text (NUL-terminated, caller frees) and its length; -1 (text
 * freed) when it could not be written whole. */
int hj_prom_take(hj_prom *t, char **out, size_t *len);

/* [a-zA-Z_:][a-zA-Z0-9_:]* (a metric's name; a label's has no ':'). */
int hj_prom_name_ok(const char *s, int label);

#endif
