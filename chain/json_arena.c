/*
 * Parsed answers in arenas (json_arena.h).
 *
 * Cost.  The allocator behind jansson was a quarter of hashjackd's CPU
 * in a catch-up at 100 transactions a block (docs/HACKING.md, "The dense
 * chains benchmark"): malloc and free of some 12,000 small values a block,
 * and glibc consolidating its fast bins when a large buffer came next.
 * An arena is a bump of a pointer per allocation and one counter.
 *
 * Layout.  One range of address space is reserved at the first arena
 * (NCHUNK chunks of CHUNK bytes, MAP_NORESERVE: pages exist once written)
 * and cut into chunks.  A chunk begins with the arena that owns it, so
 * that jfree finds the arena of a pointer by its address alone: inside the
 * range, the owner of the chunk; outside, malloc's.  The arena's own
 * record sits in its first chunk.
 *
 * Lifetime.  While its thread parses, an arena counts its values with a
 * plain counter (nothing else can see them yet).  At hj_jarena_end the
 * count becomes an atomic one that every later free, on any thread, takes
 * one from; the free that takes the last gives the chunks back.  Memory a
 * value frees inside the arena is not reused before then: jansson's
 * growing arrays and hash tables leave at most as much again behind.
 *
 * Bounds.  A value larger than a chunk, or one asked for when every chunk
 * is taken, comes from malloc: an arena never fails where malloc would
 * not.  KEEP chunks given back stay in memory for the next answers; the
 * rest are returned to the kernel (MADV_DONTNEED).
 */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "json_arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define HJ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HJ_ASAN 1
#endif
#endif
#ifdef HJ_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK  ((size_t)1 << 20)
#define NCHUNK ((size_t)512)
#define KEEP   ((size_t)64)
#define ALIGN  ((size_t)16)

typedef struct chunk {
	hj_jarena *owner;
	struct chunk *next;
	/* 16-byte aligned: then the data */
	_Alignas(16) char data[];
} chunk;

struct hj_jarena {
	atomic_size_t refs; /* after the end: values not yet freed */
	size_t live;        /* before it: the same, on the parsing thread */
	chunk *chunks;      /* the first holds this record */
	char *at, *end;     /* the free part of the newest chunk */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(char *) range; /* NULL: none could be reserved */
static size_t fresh;          /* chunks from here on were never used */
static chunk *idle, *cold; /* given back: in memory, returned to the kernel */
static size_t nidle, nlive, nheld;
static _Thread_local hj_jarena *cur;

static void reserve(void)
{
	void *p = mmap(NULL, CHUNK * NCHUNK, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	atomic_store(&range, p == MAP_FAILED ? NULL : (char *)p);
}

/* Relaxed: a thread holding a pointer into the range learnt of it after
 * the range was set, through whatever gave it the pointer. */
static int in_range(const void *p)
{
	char *r = atomic_load_explicit(&range, memory_order_relaxed);

	return r != NULL && (uintptr_t)p - (uintptr_t)r < CHUNK * NCHUNK;
}

/* A chunk for a, or NULL when all are taken. */
static chunk *chunk_get(hj_jarena *a)
{
	chunk *c = NULL;

	pthread_mutex_lock(&mu);
	if (idle != NULL) {
		c = idle;
		idle = c->next;
		nidle--;
	} else if (cold != NULL) {
		c = cold;
		cold = c->next;
	} else if (fresh < NCHUNK) {
		c = (chunk *)(atomic_load(&range) + fresh++ * CHUNK);
	}
	if (c != NULL)
		nheld++;
	pthread_mutex_unlock(&mu);
	if (c == NULL)
		return NULL;
	UNPOISON(c, sizeof *c);
	c->owner = a;
	c->next = NULL;
	POISON(c->data, CHUNK - sizeof *c);
	return c;
}

/* Gives a's chunks back; a itself lies in one of them. */
static void release(hj_jarena *a)
{
	chunk *c = a->chunks, *next;

	pthread_mutex_lock(&mu);
	nlive--;
	for (; c != NULL; c = next) {
		next = c->next;
		nheld--;
		if (nidle < KEEP) {
			c->next = idle;
			idle = c;
			nidle++;
		} else {
			madvise(c, CHUNK, MADV_DONTNEED);
			c->next = cold;
			cold = c;
		}
		POISON(c->data, CHUNK - sizeof *c);
	}
	pthread_mutex_unlock(&mu);
}

static void *jmalloc(size_t n)
{
	hj_jarena *a = cur;
	char *p;

	if (a == NULL || n > CHUNK - sizeof(chunk))
		return malloc(n);
	n = (n + ALIGN - 1) & ~(ALIGN - 1);
	if (n > (size_t)(a->end - a->at)) {
		chunk *c = chunk_get(a);

		if (c == NULL)
			return malloc(n);
		c->next = a->chunks;
		a->chunks = c;
		a->at = c->data;
		a->end = (char *)c + CHUNK;
	}
	p = a->at;
	a->at += n;
	a->live++;
	UNPOISON(p, n);
	return p;
}

static void jfree(void *p)
{
	hj_jarena *a;

	if (!in_range(p)) {
		free(p);
		return;
	}
	a = ((chunk *)((uintptr_t)p & ~(uintptr_t)(CHUNK - 1)))->owner;
	if (a == cur) {
		a->live--;
		return;
	}
	if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
		release(a);
}

/* Before main: jansson then uses jmalloc and jfree for every value of the
 * process, which outside an arena are malloc and free. */
__attribute__((constructor)) static void install(void)
{
	json_set_alloc_funcs(jmalloc, jfree);
}

hj_jarena *hj_jarena_begin(void)
{
	hj_jarena *a;
	chunk *c;

	pthread_once(&once, reserve);
	if (atomic_load(&range) == NULL || cur != NULL)
		return NULL;
	c = chunk_get(NULL);
	if (c == NULL)
		return NULL;
	a = (hj_jarena *)c->data;
	UNPOISON(a, sizeof *a);
	c->owner = a;
	atomic_init(&a->refs, 0);
	a->live = 0;
	a->chunks = c;
	a->at = c->data + ((sizeof *a + ALIGN - 1) & ~(ALIGN - 1));
	a->end = (char *)c + CHUNK;
	pthread_mutex_lock(&mu);
	nlive++;
	pthread_mutex_unlock(&mu);
	cur = a;
	return a;
}

void hj_jarena_end(hj_jarena *a)
{
	if (a == NULL)
		return;
	cur = NULL;
	if (a->live == 0) {
		release(a);
		return;
	}
	atomic_store_explicit(&a->refs, a->live, memory_order_release);
}

void hj_jarena_stat(hj_jarena_stats *s)
{
	pthread_mutex_lock(&mu);
	s->live = nlive;
	s->chunks = nheld;
	s->idle = nidle;
	pthread_mutex_unlock(&mu);
}
