/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache.c: the object cache: fixed-size objects from per-CPU magazines. */

/* The sequences of the object cache the kernel aborted, counted for the
 * census (proof that tests met them): before <fastcpu.h>, whose bodies
 * call it (none in a build without sequences). */
static void count_abort(void) __attribute__((unused));
#define FASTCPU_PERCPU_ON_ABORT() count_abort()

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "attach.h"
#include "kernel.h"
#include "memory.h"
#include "objcache-front.h"
#include "objcache-index.h"
#include "objcache-layout.h"
#include "objcache.h"
#include "rseq-abi.h"
#include "wing.h"

/* The library defines what <fastcpu/objcache.h> binds inline. */
#undef fastcpu_objcache_new
#undef fastcpu_objcache_alloc
#undef fastcpu_objcache_free

/*
 * The SLUB seed's fast path in user space (lib/README.md), as tcmalloc's
 * per-CPU caches keep it: each CPU index holds a magazine (magazine.h) of
 * pointers to free objects, its top in per-CPU memory, the index's own
 * cache line. Two paths serve a thread (lib/README.md: the half rule),
 * chosen here alone, each binding the one body of objcache-index.h:
 *
 * - its sequences: a thread with rseq allocates by one restartable
 *   sequence that pops its index's magazine and frees by one that pushes
 *   on it: no atomic instruction, no free object read or written
 *   (<fastcpu/objcache.h> runs the same in the caller's code first);
 * - the upper path: a thread without them keeps a front of a few objects
 *   of its own (objcache-front.h), taken from and given to its CPU's
 *   upper-half index a batch at a time, under that index's lock
 *   (objcache-upper.h); where it cannot keep them, one object at a time.
 *
 * A magazine found empty is traded at the depot (objcache-depot.c) for
 * one with objects (of the depot's, or fresh from the cache's space); one
 * found full, for an empty one: objects freed on one CPU and allocated on
 * another go round, capacity at a time, and an index never holds more
 * than its magazine's capacity, however many threads run there.
 *
 * Every path is async-signal-safe. A sequence a signal interrupts is
 * aborted. The depot is never held (its stacks change by compare-and-swap):
 * a handler that interrupts its own thread's trade trades too. The upper
 * half's index lock of another thread is waited for (wait.h); a handler
 * whose own thread holds it takes or gives its one object in a magazine of
 * the depot. Fresh objects are carved only where the depot has no magazine
 * with objects, each run into a magazine made for it (the allocating side
 * may fail): so a free never needs memory, and never fails. Only the entry
 * points set errno, and only when they fail.
 */
#define SIZE_MOST FASTCPU_OBJCACHE_MAX_SIZE
#define ALIGN_MOST FASTCPU_OBJCACHE_MAX_ALIGN

static unsigned long aborts;

static void count_abort(void)
{
	__atomic_fetch_add(&aborts, 1, __ATOMIC_RELAXED);
}

unsigned long fastcpu_objcache_aborts(void)
{
	return __atomic_load_n(&aborts, __ATOMIC_RELAXED);
}

/* ---- what both paths share ---------------------------------------------- */

/* ASan: an object is poisoned, all of it, while free (the space poisons
 * the objects it carves). */
static inline void poison(const struct fastcpu_objcache *cache, void *object)
{
#ifdef FASTCPU_ASAN
	__asan_poison_memory_region(object, cache->space.size);
#else
	(void)cache, (void)object;
#endif
}

static inline void *handed_out(const struct fastcpu_objcache *cache, void *object)
{
#ifdef FASTCPU_ASAN
	if (object != NULL)
		__asan_unpoison_memory_region(object, cache->asked);
#else
	(void)cache;
#endif
	return object;
}

/* Whether object is free already, where that is cheap to know: ASan's
 * poison; else not known here. */
static inline bool known_free(const void *object)
{
#ifdef FASTCPU_ASAN
	return __asan_address_is_poisoned(object);
#else
	(void)object;
	return false;
#endif
}

/* ---- the paths, and the entry points ------------------------------------ */

/* A sequence left early (its magazine empty or full) leaves the area's
 * rseq_cs set, the one field user code owns: a path that ends without
 * running another to its end clears it, so the caller's code may be
 * unloaded. */
static void forget_sequence(const volatile int *cpu_at)
{
	__atomic_store_n((uint64_t *)((uintptr_t)cpu_at - offsetof(struct fastcpu_rseq_abi, cpu_id) +
				      offsetof(struct fastcpu_rseq_abi, rseq_cs)),
			 0, __ATOMIC_RELAXED);
}

/*
 * The path of a thread whose sequences run on its area at cpu_at: the
 * index's steps and trade by sequence, out of line (the program's inline
 * code ran the step already). Where the area left the thread
 * (unregistered by its owner), the upper path.
 */
static __attribute__((noinline)) void *alloc_by_sequence(struct fastcpu_objcache *cache,
							 const volatile int *cpu_at)
{
	struct fastcpu_index_way way = { .cpu_at = cpu_at };
	void *object;

	if (fastcpu_index_take(cache, &way, false, &object, 1) == 1)
		return object;
	forget_sequence(cpu_at);
	return way.index < 0 ? fastcpu_front_alloc(cache) : NULL;
}

static __attribute__((noinline)) void free_by_sequence(struct fastcpu_objcache *cache,
						       const volatile int *cpu_at, void *object)
{
	struct fastcpu_index_way way = { .cpu_at = cpu_at };

	if (fastcpu_index_give(cache, &way, false, &object, 1) == 0)
		return;
	forget_sequence(cpu_at);
	fastcpu_front_free(cache, object);
}

/* What a program calls out of line (<fastcpu/objcache.h> inline does the
 * common case in its code first). The calling thread's path is chosen
 * here: its sequences where fastcpu_sequence_cpu_id() gives their area,
 * else the upper path (always, in a build without sequences). Not a table
 * of function pointers, as bind.c keeps for the fallbacks: the indirect
 * call cost the upper path's pair a third (6.6 to 8.8 ns, Table 8 (d)),
 * and two paths are all there are. Each entry starts a cache line, as
 * entry.c's hot entries do (lib/README.md): a thread of the upper path
 * runs its pair here whole, and it moved by 4% with the code placed before
 * it. */
#define HOT_ENTRY __attribute__((aligned(64)))

FASTCPU_EXPORT HOT_ENTRY void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache)
{
	const volatile int *cpu_at;
	void *object;

	if (unlikely(cache == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	cpu_at = fastcpu_sequence_cpu_id();
	object = cpu_at != NULL ? alloc_by_sequence(cache, cpu_at) : fastcpu_front_alloc(cache);
	if (unlikely(object == NULL))
		errno = ENOMEM;
	return handed_out(cache, object);
}

/* Whether object is one of the cache's: its space's, at a multiple of the
 * size (the first range's by the inline test, which the program's free
 * ran already where it runs inline), and not free where that shows (ASan). */
static inline bool valid(const struct fastcpu_objcache *cache, const void *object)
{
	return (fastcpu_objcache_ours_(&cache->fast, object) ||
		fastcpu_space_holds(&cache->space, object)) && !known_free(object);
}

FASTCPU_EXPORT HOT_ENTRY void fastcpu_objcache_free(struct fastcpu_objcache *cache, void *object)
{
	const volatile int *cpu_at;

	if (object == NULL)
		return;
	if (unlikely(cache == NULL || !valid(cache, object))) {
		errno = EINVAL;
		return;
	}
	poison(cache, object);
	cpu_at = fastcpu_sequence_cpu_id();
	if (cpu_at != NULL)
		free_by_sequence(cache, cpu_at, object);
	else
		fastcpu_front_free(cache, object);
}

/* The largest power of two dividing size, at most 16 (malloc's), at least 1. */
static size_t natural_align(size_t size)
{
	size_t align = size & -size;

	return align > 16 ? 16 : align;
}

/* A magazine's bytes: the largest power of two whose capacity (its words
 * less one) holds at most FASTCPU_OBJCACHE_CPU_BYTES of objects, and one
 * object at least; FASTCPU_MAGAZINE_MOST at most. */
static size_t magazine_bytes(size_t size)
{
	size_t objects = FASTCPU_OBJCACHE_CPU_BYTES / size, bytes = 2 * sizeof(void *);

	while (2 * bytes <= FASTCPU_MAGAZINE_MOST && 2 * bytes / sizeof(void *) - 1 <= objects)
		bytes *= 2;
	return bytes;
}

/* The public layout's stride arithmetic, in a pointer's width. */
static void stride_words(struct fastcpu_objcache *cache)
{
	cache->fast.shift = cache->space.shift;
	cache->fast.inverse = (uintptr_t)cache->space.inverse;
}

/* The cache's own mapping, a page more than it needs, so that its public
 * words (read by every alloc and free) lie at a page offset clear of its
 * tops (stored to by every alloc and free): memory.h says why. */
#define CACHE_PAGE 4096

static struct fastcpu_objcache *map_cache(const void *tops)
{
	char *m = mmap(NULL, sizeof(struct fastcpu_objcache) + CACHE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	return (struct fastcpu_objcache *)(void *)(m + fastcpu_percpu_quiet_offset(tops));
}

static void unmap_cache(struct fastcpu_objcache *cache)
{
	munmap((void *)((uintptr_t)cache & ~(uintptr_t)(CACHE_PAGE - 1)),
	       sizeof(struct fastcpu_objcache) + CACHE_PAGE);
}

static pthread_once_t fronts_once = PTHREAD_ONCE_INIT;

FASTCPU_EXPORT struct fastcpu_objcache *fastcpu_objcache_new_layout_(size_t size, size_t align,
								   unsigned int layout)
{
	struct fastcpu_objcache *cache;
	size_t stride, bytes;
	void *tops;
	int saved = errno;

	if (size == 0 || size > SIZE_MOST || (align & (align - 1)) != 0 || align > ALIGN_MOST ||
	    layout != FASTCPU_OBJCACHE_LAYOUT_) {
		errno = EINVAL;
		return NULL;
	}
	(void)pthread_once(&fronts_once, fastcpu_fronts_setup);
	if (align == 0)
		align = natural_align(size);
	stride = (size + align - 1) & ~(align - 1);
	bytes = magazine_bytes(stride);
	tops = fastcpu_percpu_zalloc(16);	/* a top and a 64-bit lock */
	if (tops == NULL || (cache = map_cache(tops)) == NULL) {
		fastcpu_percpu_free(tops);
		errno = ENOMEM;
		return NULL;
	}
	cache->fast.tops = tops;
	cache->fast.mask = bytes - 1;
	cache->capacity = (unsigned int)fastcpu_magazine_capacity(bytes - 1);
	cache->fast.index_distance = fastcpu_cid_distance();
	cache->asked = size;
	fastcpu_depot_init(&cache->depot, cache->fast.mask, (size_t)fastcpu_cid_limit());
	if (fastcpu_space_init(&cache->space, stride, cache->capacity * stride,
			       &cache->fast.low, &cache->fast.carved) != 0) {
		fastcpu_percpu_free(tops);
		unmap_cache(cache);
		errno = ENOMEM;
		return NULL;
	}
	stride_words(cache);
	errno = saved;
	return cache;
}

/* FASTCPU_1.3's programs of 0.4, which call alloc and free out of line. */
FASTCPU_EXPORT struct fastcpu_objcache *fastcpu_objcache_new(size_t size, size_t align)
{
	return fastcpu_objcache_new_layout_(size, align, FASTCPU_OBJCACHE_LAYOUT_);
}

FASTCPU_EXPORT void fastcpu_objcache_destroy(struct fastcpu_objcache *cache)
{
	if (cache == NULL)
		return;
	fastcpu_fronts_forget(cache);
	fastcpu_space_release(&cache->space);
	fastcpu_depot_release(&cache->depot);
	fastcpu_percpu_free(cache->fast.tops);
	unmap_cache(cache);
}
