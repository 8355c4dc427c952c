/* A map from byte-string keys to entry indices (map.h). */
#include "map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 64

static size_t hash(const uint8_t *k, size_t len)
{
	size_t h = 1469598103934665603u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ k[i]) * 1099511628211u;
	return h;
}

static int same(const hj_map *m, size_t slot, const void *k, size_t len)
{
	size_t klen;
	const uint8_t *key = m->key(m->arg, slot - 1, &klen);

	return klen == len && memcmp(key, k, len) == 0;
}

/* The slot holding k, or the empty slot where it would go; NULL when the
 * map has no slots. */
static size_t *find(const hj_map *m, const void *k, size_t len)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash(k, len) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1))
		if (!m->slot[i] || same(m, m->slot[i], k, len))
			return &m->slot[i];
}

void hj_map_init(hj_map *m, hj_map_key_fn key, const void *arg)
{
	memset(m, 0, sizeof *m);
	m->key = key;
	m->arg = arg;
}

void hj_map_free(hj_map *m)
{
	if (m == NULL)
		return;
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

int hj_map_get(const hj_map *m, const void *k, size_t len, size_t *index)
{
	size_t *s = find(m, k, len);

	if (!s || !*s)
		return -ENOENT;
	*index = *s - 1;
	return 0;
}

static int grow(hj_map *m)
{
	hj_map g = *m;

	g.cap = m->cap ? 2 * m->cap : FIRST_CAP;
	g.slot = calloc(g.cap, sizeof *g.slot);
	if (!g.slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t len;
		const uint8_t *k;

		if (!m->slot[i])
			continue;
		k = m->key(m->arg, m->slot[i] - 1, &len);
		*find(&g, k, len) = m->slot[i];
	}
	free(m->slot);
	*m = g;
	return 0;
}

int hj_map_reserve(hj_map *m, size_t n)
{
	while (2 * n > m->cap)
		if (grow(m))
			return -ENOMEM;
	return 0;
}

int hj_map_put(hj_map *m, const void *k, size_t len, size_t index)
{
	size_t *s = find(m, k, len);

	if (!s || !*s) {
		if (2 * (m->n + 1) > m->cap) {
			if (grow(m))
				return -ENOMEM;
			s = find(m, k, len);
		}
		m->n++;
	}
	*s = index + 1;
	return 0;
}

int hj_map_remove(hj_map *m, const void *k, size_t len)
{
	size_t *s = find(m, k, len), i, j;

	if (!s || !*s)
		return -ENOENT;
	/* Backward shift: every later slot of the probe run that could sit
	 * in the hole moves into it, so no lookup ever stops early. */
	i = (size_t)(s - m->slot);
	for (j = (i + 1) & (m->cap - 1); m->slot[j];
	     j = (j + 1) & (m->cap - 1)) {
		size_t klen;
		const uint8_t *key = m->key(m->arg, m->slot[j] - 1, &klen);
		size_t home = hash(key, klen) & (m->cap - 1);

		/* The entry at j may move to i unless its home lies in
		 * (i, j], cyclically. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = 0;
	m->n--;
	return 0;
}
