/*
 * A node's answer parsed into an arena (chain/json_arena.c).
 *
 * jansson allocates every string, key, object and array of a parsed text
 * apart: a block of 100 transactions with its receipts is some 12,000
 * allocations, freed one by one when the answer has been read.  Between
 * hj_jarena_begin and hj_jarena_end, the calling thread's jansson
 * allocations are carved from one arena instead, and the arena goes back
 * whole once the last value allocated in it is freed, on whichever thread.
 * Values keep jansson's reference counting to the letter: nothing changes
 * for the code that reads, keeps or frees them.
 *
 * Outside an arena, jansson allocates with malloc and free as before, so a
 * string from json_dumps is still released with free().
 */
#ifndef HJ_JSON_ARENA_H
#define HJ_JSON_ARENA_H

#include <stddef.h>

typedef struct hj_jarena hj_jarena;

/* Starts an arena for this thread's jansson allocations.  NULL when none is
 * free (the allocations then use malloc, as outside an arena): never an
 * error.  Arenas do not nest. */
hj_jarena *hj_jarena_begin(void);

/* Ends this thread's arena a (NULL: nothing).  Its memory goes back when the
 * last value allocated in it is freed, which may be now. */
void hj_jarena_end(hj_jarena *a);

/* What the arenas hold now, for tests and the benchmark. */
typedef struct {
	size_t live;   /* arenas begun and not yet given back */
	size_t chunks; /* chunks they hold */
	size_t idle;   /* chunks free and kept in memory for reuse */
} hj_jarena_stats;

void hj_jarena_stat(hj_jarena_stats *s);

#endif
