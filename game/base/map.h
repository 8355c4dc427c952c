/*
 * A map from byte-string keys to the index of an entry in the caller's
 * own array (open addressing, linear probing, deletion by backward shift).
 *
 * The map holds indices only; the keys stay in the caller's entries and
 * are read back through key(arg, index), so a million rounds cost a
 * machine word and a half each here, not a copy of their ids.  The caller
 * keeps key(arg, i) unchanged while index i is in the map.
 *
 * Capacity doubles (from 64 slots) whenever the map would pass half full,
 * so a probe is short; FNV-1a hashes the key.
 */
#ifndef HJ_MAP_H
#define HJ_MAP_H

#include <stddef.h>
#include <stdint.h>

/* The key of entry index: its bytes (borrowed) and length. */
typedef const uint8_t *(*hj_map_key_fn)(const void *arg, size_t index,
                                        size_t *len);

typedef struct hj_map {
	size_t *slot; /* index + 1; 0 empty */
	size_t cap;   /* a power of two, or 0 */
	size_t n;     /* entries */
	hj_map_key_fn key;
	const void *arg;
} hj_map;

/* An empty map reading its keys through key(arg, ...); nothing is
 * allocated yet. */
void hj_map_init(hj_map *m, hj_map_key_fn key, const void *arg);
/* Frees the slots; the map is then empty.  NULL is fine. */
void hj_map_free(hj_map *m);

/* The index of the entry with key k[0..len): 0, or -ENOENT. */
int hj_map_get(const hj_map *m, const void *k, size_t len, size_t *index);
/* Maps k[0..len) to index (replacing what it mapped to): 0 or -ENOMEM
 * (the map unchanged). */
int hj_map_put(hj_map *m, const void *k, size_t len, size_t index);
/* Makes room for n entries in all: until the map holds n, a put of a new
 * key cannot fail.  0 or -ENOMEM (the entries unchanged). */
int hj_map_reserve(hj_map *m, size_t n);
/* Forgets k[0..len): 0, or -ENOENT when it was not there. */
int hj_map_remove(hj_map *m, const void *k, size_t len);

#endif
