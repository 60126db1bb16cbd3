/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/objcache.c: the object cache: fixed-size objects from per-CPU lists. */

#include <errno.h>
#include <sys/mman.h>

#include "cpu-id.h"
#include "objcache.h"
#include "wing.h"

/*
 * The SLUB seed's fast path in user space. Each CPU has a list of free
 * objects, its head in a copy of per-CPU memory (the CPU's own cache line,
 * on its node): an alloc pops it, a free pushes on it, each one restartable
 * sequence where the thread has rseq (no atomic instruction), each under
 * the upper half's turn of its CPU where it has none (turns.c). A list
 * holds at most limit objects, which the push itself checks (the depth is
 * in each free object, read inside the sequence): a free that finds its
 * list full gives the whole list to the depot (objcache-depot.c) in one
 * sequence, and an alloc that finds its list empty takes a batch from the
 * depot, or carves a fresh one from the cache's space
 * (objcache-space.c), keeps its first object and installs the rest as the
 * list where the list is still empty (else the depot takes it back). So
 * memory freed on one CPU and allocated on another goes round through the
 * depot, batch by batch, and what a CPU's list holds is bounded however
 * many threads run there.
 *
 * Every path is async-signal-safe: a sequence the signal interrupts is
 * aborted, a turn the interrupted code holds is not waited for (the
 * handler takes the depot, or fresh objects, instead).
 */
#define SIZE_MOST FASTCPU_OBJCACHE_MAX_SIZE
#define ALIGN_MOST FASTCPU_OBJCACHE_MAX_ALIGN
#define LIST_FEWEST 16
#define BATCH_MOST 32

/* Sequences the kernel aborted, for the census: proof that tests met them. */
static unsigned long aborts;

unsigned long fastcpu_objcache_aborts(void)
{
	return __atomic_load_n(&aborts, __ATOMIC_RELAXED);
}

static inline intptr_t *list_of(const struct fastcpu_objcache *cache, int index)
{
	return fastcpu_percpu_slot_(cache->heads, FASTCPU_PERCPU_STRIDE, (size_t)index);
}

/* ASan: an object is poisoned, all of it, while free. */
static inline void poison(const struct fastcpu_objcache *cache, void *object, size_t objects)
{
#ifdef FASTCPU_ASAN
	__asan_poison_memory_region(object, objects * cache->space.size);
#else
	(void)cache, (void)object, (void)objects;
#endif
}

static inline void *handed_out(const struct fastcpu_objcache *cache, void *object)
{
#ifdef FASTCPU_ASAN
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

/* A chain of fresh objects, depths set; NULL without address space. */
static void *carve(struct fastcpu_objcache *cache)
{
	size_t size = cache->space.size;
	unsigned int got;
	char *run = fastcpu_space_carve(&cache->space, cache->batch, &got);

	if (run == NULL)
		return NULL;
	poison(cache, run, got);
	for (unsigned int i = got; i-- > 0;) {
		char *object = run + (size_t)i * size;

		fastcpu_set_word(object, 0, i + 1 < got ? (intptr_t)(object + size) : 0);
		fastcpu_set_word(object, 1, (intptr_t)(got - i));
	}
	return run;
}

/* A chain from the depot, else a fresh one; NULL (errno ENOMEM) if none. */
static void *take_batch(struct fastcpu_objcache *cache)
{
	void *chain = fastcpu_depot_pop(&cache->depot);

	return chain != NULL ? chain : carve(cache);
}

/* ---- threads that run the sequences ------------------------------------- */

#ifdef FASTCPU_RSEQ_INLINE
static void count_abort(void)
{
	__atomic_fetch_add(&aborts, 1, __ATOMIC_RELAXED);
}

/* Makes rest the list of the thread's CPU where that list is empty, else
 * gives it to the depot. */
static void install(struct fastcpu_objcache *cache, const volatile int *cpu_at, void *rest)
{
	int cpu, r;
	intptr_t seen;

	while ((cpu = *cpu_at) >= 0) {
		r = fastcpu_rseq_cmpstore_(cpu_at, cpu_at, cpu, list_of(cache, cpu), 0,
					   (intptr_t)rest, &seen, 0);
		if (r == 0) {
			if (seen == 0)
				return;
			break;
		}
		if (r < 0)
			count_abort();
	}
	fastcpu_depot_push(&cache->depot, rest);
}

/* Gives the whole list of the thread's CPU to the depot (it was full). */
static __attribute__((noinline)) void drain(struct fastcpu_objcache *cache,
					     const volatile int *cpu_at)
{
	int cpu, r;
	intptr_t head, seen;

	while ((cpu = *cpu_at) >= 0) {
		intptr_t *list = list_of(cache, cpu);

		head = __atomic_load_n(list, __ATOMIC_RELAXED);
		if (head == 0)
			return;
		/* A list whose first object is head when the sequence takes it
		 * is whole below it: only sequences on this CPU change it. */
		r = fastcpu_rseq_cmpstore_(cpu_at, cpu_at, cpu, list, head, 0, &seen, 0);
		if (r == 0 && seen == head) {
			fastcpu_depot_push(&cache->depot, (void *)head);
			return;
		}
		if (r < 0)
			count_abort();
	}
}

/* An object from the list of the thread's CPU; NULL where it is empty, or
 * where the thread's area left it (its cpu_id negative). */
static inline void *pop_here(struct fastcpu_objcache *cache, const volatile int *cpu_at)
{
	int cpu, r;
	intptr_t head;

	while ((cpu = *cpu_at) >= 0) {
		r = fastcpu_rseq_pop_(cpu_at, cpu_at, cpu, list_of(cache, cpu), 0, &head);
		if (likely(r == 0))
			return (void *)head;
		if (r < 0)
			count_abort();
	}
	return NULL;
}

/* Pushes object on the list of the thread's CPU (emptied first where
 * full): 0; EINVAL where object is that list's first (a double free);
 * -1 where the thread's area left it. */
static inline int push_here(struct fastcpu_objcache *cache, const volatile int *cpu_at,
			    void *object)
{
	int cpu, r;

	while ((cpu = *cpu_at) >= 0) {
		intptr_t *list = list_of(cache, cpu);

		if (unlikely(__atomic_load_n(list, __ATOMIC_RELAXED) == (intptr_t)object))
			return EINVAL;
		r = fastcpu_rseq_push_bounded_(cpu_at, cpu_at, cpu, list, object, cache->limit);
		if (likely(r == 0))
			return 0;
		if (r == 2)
			drain(cache, cpu_at);
		else if (r < 0)
			count_abort();
	}
	return -1;
}
#else
/* No sequences in this build: fastcpu_sequence_cpu_id() is NULL, and the
 * published word never names an area. */
static inline void *pop_here(struct fastcpu_objcache *cache, const volatile int *cpu_at)
{
	(void)cache, (void)cpu_at;
	return NULL;
}

static inline int push_here(struct fastcpu_objcache *cache, const volatile int *cpu_at,
			    void *object)
{
	(void)cache, (void)cpu_at, (void)object;
	return -1;
}

static void install(struct fastcpu_objcache *cache, const volatile int *cpu_at, void *rest)
{
	(void)cpu_at;
	fastcpu_depot_push(&cache->depot, rest);
}
#endif

/* ---- threads that take the upper half ----------------------------------- */

/* The turn of the upper half's lists of CPU cpu (turns.c), waited for
 * (wait.c) but not slept for; false where the calling thread holds a turn
 * (a signal handler interrupted it inside one) or the holder keeps it. */
static bool take_upper_turn(int cpu)
{
	for (unsigned int attempt = 0; attempt < FASTCPU_WAIT_SLEEPS; attempt++) {
		if (fastcpu_turn_take((size_t)cpu))
			return true;
		if (fastcpu_turn_held_here())
			return false;
		fastcpu_wait_for_holder(attempt);
	}
	return false;
}

static void *pop_upper(struct fastcpu_objcache *cache)
{
	int cpu = fastcpu_upper_cpu();
	intptr_t *list = list_of(cache, fastcpu_upper_index(cpu));
	void *object = NULL, *rest;

	if (take_upper_turn(cpu)) {
		object = (void *)*list;
		if (object != NULL)
			*list = fastcpu_word(object, 0);
		fastcpu_turn_give((size_t)cpu);
		if (object != NULL)
			return object;
	}
	object = take_batch(cache);
	if (object == NULL || (rest = (void *)fastcpu_word(object, 0)) == NULL)
		return object;
	if (take_upper_turn(cpu)) {
		if (*list == 0) {
			*list = (intptr_t)rest;
			rest = NULL;
		}
		fastcpu_turn_give((size_t)cpu);
	}
	if (rest != NULL)
		fastcpu_depot_push(&cache->depot, rest);
	return object;
}

/* As push_here, under the turn; to the depot, a batch of one, where the
 * turn is not had. */
static int push_upper(struct fastcpu_objcache *cache, void *object)
{
	int cpu = fastcpu_upper_cpu();
	intptr_t *list = list_of(cache, fastcpu_upper_index(cpu));
	void *head = NULL;

	if (take_upper_turn(cpu)) {
		head = (void *)*list;
		if (unlikely(head == object)) {
			fastcpu_turn_give((size_t)cpu);
			return EINVAL;
		}
		if (head != NULL && fastcpu_word(head, 1) >= cache->limit) {
			/* Off the list before the depot has it: a fork child
			 * (turns free there) loses the batch, not gets it twice. */
			__atomic_store_n(list, 0, __ATOMIC_RELAXED);
			fastcpu_depot_push(&cache->depot, head);
			head = NULL;
		}
		fastcpu_set_word(object, 0, (intptr_t)head);
		fastcpu_set_word(object, 1, fastcpu_depth_below(head));
		*list = (intptr_t)object;
		fastcpu_turn_give((size_t)cpu);
		return 0;
	}
	fastcpu_set_word(object, 0, 0);
	fastcpu_set_word(object, 1, 1);
	fastcpu_depot_push(&cache->depot, object);
	return 0;
}

/* ---- the entry points --------------------------------------------------- */

/*
 * Each entry point's first part is the fast path of a thread whose area is
 * at the published offset (fastcpu_offsets.percpu: every thread of a
 * process where glibc or the library registers): one sequence on its CPU's
 * list. Everything else (a thread not attached yet, without an area, the
 * list empty or full, an abort) goes out of line, where the thread's own
 * pointer decides.
 */
static __attribute__((noinline)) void *alloc_slow(struct fastcpu_objcache *cache)
{
	void *object = NULL, *rest;

	if (cache == NULL) {
		errno = EINVAL;
		return NULL;
	}
	const volatile int *cpu_at = fastcpu_sequence_cpu_id();

	if (cpu_at != NULL && (object = pop_here(cache, cpu_at)) == NULL && *cpu_at >= 0) {
		object = take_batch(cache);
		if (object != NULL && (rest = (void *)fastcpu_word(object, 0)) != NULL)
			install(cache, cpu_at, rest);
	}
	if (object == NULL && (cpu_at == NULL || *cpu_at < 0))
		object = pop_upper(cache);
	return object != NULL ? handed_out(cache, object) : NULL;
}

FASTCPU_EXPORT void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache)
{
	void *object;

	if (likely(cache != NULL) &&
	    likely((object = pop_here(cache, fastcpu_published_word(&fastcpu_offsets.percpu))) != NULL))
		return handed_out(cache, object);
	return alloc_slow(cache);
}

/* Whether object is one of the cache's (its space's regions, in line),
 * and not free where that shows (ASan). */
static inline bool valid(const struct fastcpu_objcache *cache, const void *object)
{
	return cache != NULL && fastcpu_space_holds(&cache->space, object) && !known_free(object);
}

/* Frees a valid object, poisoned. */
static __attribute__((noinline)) void free_valid(struct fastcpu_objcache *cache, void *object)
{
	const volatile int *cpu_at = fastcpu_sequence_cpu_id();
	int r = cpu_at != NULL ? push_here(cache, cpu_at, object) : -1;

	if (r < 0)
		r = push_upper(cache, object);
	if (r != 0)
		errno = r;
}

static __attribute__((noinline)) void free_slow(struct fastcpu_objcache *cache, void *object)
{
	if (object == NULL)
		return;
	if (!valid(cache, object)) {
		errno = EINVAL;
		return;
	}
	poison(cache, object, 1);
	free_valid(cache, object);
}

FASTCPU_EXPORT void fastcpu_objcache_free(struct fastcpu_objcache *cache, void *object)
{
	int r;

	if (unlikely(object == NULL || !valid(cache, object)))
		return free_slow(cache, object);
	poison(cache, object, 1);
	r = push_here(cache, fastcpu_published_word(&fastcpu_offsets.percpu), object);
	if (likely(r == 0))
		return;
	if (r > 0)
		errno = r;
	else
		free_valid(cache, object);
}

/* The largest power of two dividing size, at most 16 (malloc's), at least
 * a pointer's. */
static size_t natural_align(size_t size)
{
	size_t align = size & -size;

	if (align > 16)
		align = 16;
	return align < sizeof(void *) ? sizeof(void *) : align;
}

FASTCPU_EXPORT struct fastcpu_objcache *fastcpu_objcache_new(size_t size, size_t align)
{
	struct fastcpu_objcache *cache;
	size_t rounded;
	int saved = errno;

	if (size == 0 || size > SIZE_MOST || (align & (align - 1)) != 0 || align > ALIGN_MOST) {
		errno = EINVAL;
		return NULL;
	}
	if (align == 0)
		align = natural_align(size);
	if (align < sizeof(void *))
		align = sizeof(void *);
	rounded = size < 2 * sizeof(void *) ? 2 * sizeof(void *) : size;
	rounded = (rounded + align - 1) & ~(align - 1);
	cache = mmap(NULL, sizeof(*cache), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (cache == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	cache->heads = fastcpu_percpu_zalloc(sizeof(intptr_t));
	if (cache->heads == NULL) {
		munmap(cache, sizeof(*cache));
		errno = ENOMEM;
		return NULL;
	}
	cache->asked = size;
	cache->limit = FASTCPU_OBJCACHE_CPU_BYTES / rounded;
	if (cache->limit < LIST_FEWEST)
		cache->limit = LIST_FEWEST;
	cache->batch = cache->limit < BATCH_MOST ? (unsigned int)cache->limit : BATCH_MOST;
	fastcpu_depot_init(&cache->depot);
	fastcpu_space_init(&cache->space, rounded);
	errno = saved;
	return cache;
}

FASTCPU_EXPORT void fastcpu_objcache_destroy(struct fastcpu_objcache *cache)
{
	if (cache == NULL)
		return;
	fastcpu_space_release(&cache->space);
	fastcpu_percpu_free(cache->heads);
	munmap(cache, sizeof(*cache));
}
