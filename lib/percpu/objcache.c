/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache.c: the object cache: fixed-size objects from per-CPU magazines. */

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "attach.h"
#include "kernel.h"
#include "magazine.h"
#include "memory.h"
#include "objcache-thread.h"
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
 * cache line. Two paths serve a thread, chosen in one place (path_of):
 *
 * - the sequences: a thread with rseq allocates by one restartable
 *   sequence that pops its index's magazine and frees by one that pushes
 *   on it: no atomic instruction, no free object read or written
 *   (<fastcpu/objcache.h> runs both in the caller's code first);
 * - the upper half: a thread without them keeps a few objects of its own
 *   (objcache-thread.h), taken from and given to its CPU's upper-half
 *   index a batch at a time, by the same steps in C under that index's
 *   lock (lock.h); where it cannot keep them, one object at a time.
 *
 * A magazine found empty is traded at the depot (objcache-depot.c) for
 * one with objects (of the depot's, or fresh from the cache's space); one
 * found full, for an empty one. The trade installs the new magazine with
 * one compare-and-store sequence (or, in the upper half, one store under
 * the lock) and gives the old one back: objects freed on one CPU and
 * allocated on another go round, capacity at a time, and an index never
 * holds more than its magazine's capacity, however many threads run there.
 *
 * Every path is async-signal-safe. A sequence a signal interrupts is
 * aborted. The depot is never held (its stacks change by compare-and-swap):
 * a handler that interrupts its own thread's trade trades too. The one lock
 * is the upper half's index's: another thread's is waited for (wait.h), a
 * handler whose own thread holds it takes or gives its one object in a
 * magazine of the depot. Fresh objects are carved only where the depot has
 * no magazine with objects, each run into a magazine made for it (the
 * allocating side may say ENOMEM): so a free never needs memory, and never
 * fails.
 */
#define SIZE_MOST FASTCPU_OBJCACHE_MAX_SIZE
#define ALIGN_MOST FASTCPU_OBJCACHE_MAX_ALIGN

/* Sequences the kernel aborted, for the census: proof that tests met them. */
static unsigned long aborts;

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

/* ---- the upper half ----------------------------------------------------- */

/* The index's magazine replaced by top, under its lock; the old one to
 * the depot after, never before: a fork child would find it at the index
 * and in the depot at once. A child of a fork between the two lacks it,
 * as it lacks what its vanished threads held. */
static uintptr_t replace_upper(struct fastcpu_objcache *cache, intptr_t *slot, uintptr_t old,
			       uintptr_t top)
{
	__atomic_store_n(slot, (intptr_t)top, __ATOMIC_RELAXED);
	if (old != 0)
		fastcpu_depot_give(&cache->depot, old);
	return top;
}

/*
 * The upper half's index of the thread's CPU, under its lock: up to n
 * objects taken, or n given, by the magazine's steps, a magazine run empty
 * (before the first object) or full traded with the depot under the lock
 * (the depot waits for no one). Where the calling thread holds that lock
 * itself (a signal handler inside its own thread's step), or may not wait
 * for it (lock.h), it takes none, and gives each object in a magazine of
 * the depot.
 */
static unsigned int upper_take(struct fastcpu_objcache *cache, void **out, unsigned int n)
{
	size_t index = fastcpu_upper_slot();
	intptr_t *slot = fastcpu_objcache_top(cache, index);
	uint64_t *lock = fastcpu_objcache_lock(cache, index);
	uintptr_t top, full, mask = cache->fast.mask;
	unsigned int got = 0;

	if (!fastcpu_lock_take(lock, FASTCPU_LOCK_OUTER))
		return 0;
	top = (uintptr_t)*slot;
	while (got < n) {
		if (fastcpu_magazine_empty(top, mask)) {
			if (got != 0 || (full = fastcpu_depot_take_full(&cache->depot,
									&cache->space)) == 0)
				break;
			top = replace_upper(cache, slot, top, full);
		}
		out[got++] = fastcpu_magazine_pop(&top);
	}
	__atomic_store_n(slot, (intptr_t)top, __ATOMIC_RELAXED);
	fastcpu_lock_give(lock, FASTCPU_LOCK_OUTER);
	return got;
}

static void upper_give(void *of, void **objects, unsigned int n)
{
	struct fastcpu_objcache *cache = of;
	size_t index = fastcpu_upper_slot();
	intptr_t *slot = fastcpu_objcache_top(cache, index);
	uint64_t *lock = fastcpu_objcache_lock(cache, index);
	uintptr_t top, mask = cache->fast.mask;

	if (!fastcpu_lock_take(lock, FASTCPU_LOCK_OUTER)) {
		while (n != 0)
			fastcpu_depot_give_one(&cache->depot, objects[--n]);
		return;
	}
	top = (uintptr_t)*slot;
	while (n != 0) {
		if (fastcpu_magazine_full(top, mask))
			top = replace_upper(cache, slot, top, fastcpu_depot_take_empty(&cache->depot));
		fastcpu_magazine_push(&top, objects[--n]);
	}
	__atomic_store_n(slot, (intptr_t)top, __ATOMIC_RELAXED);
	fastcpu_lock_give(lock, FASTCPU_LOCK_OUTER);
}

/* One object: the depot's where the index's lock is not the thread's to
 * take (or the index has none and no fresh one can be made). */
static void *upper_take_one(struct fastcpu_objcache *cache)
{
	void *object;

	return upper_take(cache, &object, 1) != 0 ? object :
		fastcpu_depot_take_one(&cache->depot, &cache->space);
}

/* Through what the thread keeps of its own, where it can: the common step
 * in line, the rest (claim, take or give half, or one object at a time)
 * in functions of their own. */
static __attribute__((noinline)) void *upper_alloc_more(struct fastcpu_objcache *cache,
							struct fastcpu_own_objects *own)
{
	void *object = NULL;

	if (own == NULL)
		return upper_take_one(cache);
	if (own->count == 0)
		own->count = upper_take(cache, own->objects, (own->most + 1) / 2);
	if (own->count != 0)
		object = own->objects[--own->count];
	fastcpu_own_leave();
	return object != NULL ? object : upper_take_one(cache);
}

FASTCPU_INLINE void *upper_alloc(struct fastcpu_objcache *cache)
{
	struct fastcpu_own_objects *own = fastcpu_own_enter(cache, cache->capacity);
	void *object;

	if (unlikely(own == NULL || own->count == 0))
		return upper_alloc_more(cache, own);
	object = own->objects[--own->count];
	fastcpu_own_leave();
	return object;
}

static __attribute__((noinline)) void upper_free_more(struct fastcpu_objcache *cache,
						      struct fastcpu_own_objects *own, void *object)
{
	unsigned int half;

	if (own == NULL) {
		upper_give(cache, &object, 1);
		return;
	}
	half = (own->most + 1) / 2;
	own->count -= half;
	upper_give(cache, own->objects + own->count, half);
	own->objects[own->count++] = object;
	fastcpu_own_leave();
}

FASTCPU_INLINE void upper_free(struct fastcpu_objcache *cache, void *object)
{
	struct fastcpu_own_objects *own = fastcpu_own_enter(cache, cache->capacity);

	if (unlikely(own == NULL || own->count == own->most)) {
		upper_free_more(cache, own, object);
		return;
	}
	own->objects[own->count++] = object;
	fastcpu_own_leave();
}

/* ---- the sequences ------------------------------------------------------ */

#ifdef FASTCPU_RSEQ_INLINE
static void count_abort(void)
{
	__atomic_fetch_add(&aborts, 1, __ATOMIC_RELAXED);
}

/* The calling thread's index (its area at cpu_at), and its word; -1
 * where the area is no longer registered (an area not registered may
 * still hold an mm_cid). */
static inline int index_here(const struct fastcpu_objcache *cache, const volatile int *cpu_at,
			     const volatile int **index_at)
{
	*index_at = (const volatile int *)((uintptr_t)cpu_at +
					   (uintptr_t)cache->fast.index_distance);
	return *cpu_at < 0 ? -1 : **index_at;
}

/*
 * Puts top on the thread's index in place of seen, its magazine found
 * empty or full (or none), with one sequence; gives seen's magazine to the
 * depot. Where the index moved or changed meanwhile, top goes to the depot
 * instead, and the caller tries its own sequence again.
 */
static void install(struct fastcpu_objcache *cache, const volatile int *cpu_at,
		    const volatile int *index_at, int index, intptr_t seen, uintptr_t top)
{
	intptr_t found;
	int r = fastcpu_rseq_cmpstore_(cpu_at, index_at, index,
				       fastcpu_objcache_top(cache, (size_t)index),
				       seen, (intptr_t)top, &found, 0);

	if (r < 0)
		count_abort();
	if (r == 0 && found == seen)
		top = (uintptr_t)seen;
	if (top != 0)
		fastcpu_depot_give(&cache->depot, top);
}

/* A sequence left early (empty or full) leaves the area's rseq_cs set,
 * the one field user code owns: a path that ends without running another
 * to its end clears it, so the caller's code may be unloaded. */
static void forget_sequence(const volatile int *cpu_at)
{
	__atomic_store_n((uint64_t *)((uintptr_t)cpu_at - offsetof(struct fastcpu_rseq_abi, cpu_id) +
				      offsetof(struct fastcpu_rseq_abi, rseq_cs)),
			 0, __ATOMIC_RELAXED);
}

/* An object from the thread's index (NULL without one: no memory); where
 * the thread's area left it (unregistered), the upper half's. */
static __attribute__((noinline)) void *sequence_alloc(struct fastcpu_objcache *cache,
						     const volatile int *cpu_at)
{
	const volatile int *index_at;
	intptr_t object, seen;
	uintptr_t top;
	int index, r;

	while ((index = index_here(cache, cpu_at, &index_at)) >= 0) {
		intptr_t *slot = fastcpu_objcache_top(cache, (size_t)index);

		r = fastcpu_rseq_magazine_pop_(cpu_at, index_at, index, slot, cache->fast.mask,
					       &object);
		if (r == 0)
			return (void *)object;
		if (r < 0)
			count_abort();
		if (r != 2)
			continue;
		seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
		top = fastcpu_depot_take_full(&cache->depot, &cache->space);
		if (top == 0) {
			forget_sequence(cpu_at);
			return NULL;
		}
		install(cache, cpu_at, index_at, index, seen, top);
	}
	forget_sequence(cpu_at);
	return upper_alloc(cache);
}

/* Object onto the thread's index; where the thread's area left it, onto
 * the upper half. */
static __attribute__((noinline)) void sequence_free(struct fastcpu_objcache *cache,
						   const volatile int *cpu_at, void *object)
{
	const volatile int *index_at;
	intptr_t seen;
	int index, r;

	while ((index = index_here(cache, cpu_at, &index_at)) >= 0) {
		intptr_t *slot = fastcpu_objcache_top(cache, (size_t)index);

		r = fastcpu_rseq_magazine_push_(cpu_at, index_at, index, slot, object,
						cache->fast.mask);
		if (r == 0)
			return;
		if (r < 0)
			count_abort();
		if (r != 2)
			continue;
		seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
		install(cache, cpu_at, index_at, index, seen,
			fastcpu_depot_take_empty(&cache->depot));
	}
	forget_sequence(cpu_at);
	upper_free(cache, object);
}
#endif

/* ---- the paths, and the entry points ------------------------------------ */

/*
 * What serves the calling thread, chosen here alone: its sequences on its
 * area's index (*cpu_at, its area's cpu_id), or the upper half (*cpu_at
 * NULL: fastcpu_sequence_cpu_id() says which, and always the upper half in
 * a build without sequences). Not a table of function pointers, as bind.c
 * keeps for the fallbacks: the indirect call cost the upper half's pair a
 * third (6.6 to 8.8 ns, Table 8 (d)), and two paths are all there are.
 */
enum path { PATH_UPPER, PATH_SEQUENCES };

static inline enum path path_of(const volatile int **cpu_at)
{
	*cpu_at = fastcpu_sequence_cpu_id();
	return *cpu_at != NULL ? PATH_SEQUENCES : PATH_UPPER;
}

static inline void *alloc_by(enum path path, struct fastcpu_objcache *cache,
			     const volatile int *cpu_at)
{
#ifdef FASTCPU_RSEQ_INLINE
	if (path == PATH_SEQUENCES)
		return sequence_alloc(cache, cpu_at);
#endif
	(void)path, (void)cpu_at;
	return upper_alloc(cache);
}

static inline void free_by(enum path path, struct fastcpu_objcache *cache,
			   const volatile int *cpu_at, void *object)
{
#ifdef FASTCPU_RSEQ_INLINE
	if (path == PATH_SEQUENCES) {
		sequence_free(cache, cpu_at, object);
		return;
	}
#endif
	(void)path, (void)cpu_at;
	upper_free(cache, object);
}

/* What a program calls out of line (<fastcpu/objcache.h> inline does the
 * common case in its code first). Each starts a cache line, as entry.c's
 * hot entries do: a thread of the upper half runs its pair here whole, and
 * it moved by 4% with the code placed before it. */
#define HOT_ENTRY __attribute__((aligned(64)))

FASTCPU_EXPORT HOT_ENTRY void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache)
{
	const volatile int *cpu_at;
	enum path path;
	void *object;

	if (unlikely(cache == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	path = path_of(&cpu_at);
	object = alloc_by(path, cache, cpu_at);
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
	enum path path;

	if (object == NULL)
		return;
	if (unlikely(cache == NULL || !valid(cache, object))) {
		errno = EINVAL;
		return;
	}
	poison(cache, object);
	path = path_of(&cpu_at);
	free_by(path, cache, cpu_at, object);
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

static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static void setup_own(void)
{
	fastcpu_own_setup(upper_give);
}

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
	(void)pthread_once(&own_once, setup_own);
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
	fastcpu_own_forget(cache);
	fastcpu_space_release(&cache->space);
	fastcpu_depot_release(&cache->depot);
	fastcpu_percpu_free(cache->fast.tops);
	unmap_cache(cache);
}
