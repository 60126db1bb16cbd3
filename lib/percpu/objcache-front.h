/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-front.h: the upper path's front: the few objects a thread without sequences keeps. */

#ifndef FASTCPU_PERCPU_OBJCACHE_FRONT_H
#define FASTCPU_PERCPU_OBJCACHE_FRONT_H

#include <sys/types.h>

#include "objcache-upper.h"
#include "objcache-layout.h"
#include "wing.h"

/*
 * A thread that runs no sequences (seccomp, a forced backend, an owner's
 * unregistered thread, a build without them) would pay its CPU's
 * upper-half lock, a compare-and-swap, on every alloc and every free: more
 * than glibc's malloc, whose thread cache takes none. So before the upper
 * half it keeps a front: a few free objects of each of its first
 * FASTCPU_FRONT_CACHES caches (at most a magazine's capacity and
 * FASTCPU_FRONT_OBJECTS), taken from and given to the upper half half at a
 * time, under one lock (objcache-upper.h). They count as free (the census
 * walks them). A signal handler that interrupts its thread's change of its
 * front finds it being changed, and takes the upper half an object at a
 * time.
 *
 * A front is a page of the thread's own (so that the library's static TLS
 * stays small enough to be dlopen()ed), on the list of every front
 * (objcache-front.c), which names the thread by its kernel thread id. What
 * it keeps goes back to the caches when its thread is gone, whoever learns
 * it first (objcache-front.c says who), and never while its cache is being
 * destroyed: every give-back of a front's objects runs under the list's
 * lock, and so does the destruction's forgetting them.
 */
#define FASTCPU_FRONT_OBJECTS 16
#define FASTCPU_FRONT_CACHES 2		/* fastcpu_front_enter() looks at both */

struct fastcpu_front_kept {
	const void *cache;		/* NULL: not in use */
	unsigned int count, most;	/* most: this cache's bound */
	void *objects[FASTCPU_FRONT_OBJECTS];
};

struct fastcpu_front {
	struct fastcpu_front *next;	/* the list of every front (its lock) */
	pid_t tid;			/* its thread; 0: no thread's (its lock) */
	volatile unsigned int changing;	/* its thread is changing it now */
	struct fastcpu_front_kept kept[FASTCPU_FRONT_CACHES];
};

/* A thread's first use of cache (or of any), as fastcpu_front_enter(). */
struct fastcpu_front_kept *fastcpu_front_claim(const void *cache, unsigned int most);

/* The calling thread's objects of cache, most its bound (a cache's first
 * use claims them), marked as being changed; NULL where the thread cannot
 * keep any (a handler inside its change, no room for another cache, no
 * memory). Each non-NULL is followed by fastcpu_front_leave(). */
FASTCPU_INLINE struct fastcpu_front_kept *fastcpu_front_enter(const void *cache, unsigned int most)
{
	struct fastcpu_front *front = fastcpu_wing_thread.front;

	if (likely(front != NULL) && likely(!front->changing)) {
		front->changing = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (likely(front->kept[0].cache == cache))
			return &front->kept[0];
		if (front->kept[1].cache == cache)
			return &front->kept[1];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		front->changing = 0;
	}
	return fastcpu_front_claim(cache, most);
}

FASTCPU_INLINE void fastcpu_front_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_wing_thread.front->changing = 0;
}

/* Where the front is empty or full, or there is none: half of it taken
 * or given at the upper half, or one object at a time there. */
void *fastcpu_front_alloc_more(struct fastcpu_objcache *cache, struct fastcpu_front_kept *kept);
void fastcpu_front_free_more(struct fastcpu_objcache *cache, struct fastcpu_front_kept *kept,
			     void *object);

/* The upper path's alloc and free: the common step in line (a call would
 * make the upper path's pair a third dearer), the rest out of line. */
FASTCPU_INLINE void *fastcpu_front_alloc(struct fastcpu_objcache *cache)
{
	struct fastcpu_front_kept *kept = fastcpu_front_enter(cache, cache->capacity);
	void *object;

	if (unlikely(kept == NULL || kept->count == 0))
		return fastcpu_front_alloc_more(cache, kept);
	object = kept->objects[--kept->count];
	fastcpu_front_leave();
	return object;
}

FASTCPU_INLINE void fastcpu_front_free(struct fastcpu_objcache *cache, void *object)
{
	struct fastcpu_front_kept *kept = fastcpu_front_enter(cache, cache->capacity);

	if (unlikely(kept == NULL || kept->count == kept->most)) {
		fastcpu_front_free_more(cache, kept, object);
		return;
	}
	kept->objects[kept->count++] = object;
	fastcpu_front_leave();
}

/* Once, before the first cache: the exit key (objcache-front.c). */
void fastcpu_fronts_setup(void);
/* A cache destroyed: every front forgets what it kept of it, after any
 * give-back to it under way. */
void fastcpu_fronts_forget(const void *cache);
/* The fronts of threads that are gone given back now (a census, before
 * it counts). */
void fastcpu_fronts_collect(void);
/* Calls fn for each object a front keeps of cache (a census: the cache
 * quiet). */
void fastcpu_fronts_walk(const void *cache, void (*fn)(void *object, void *arg), void *arg);
/* The wing's fork protocol (fork.c): the list held across a fork; in the
 * child, the fronts of the threads it does not have given back. */
void fastcpu_fronts_before_fork(void);
void fastcpu_fronts_after_fork(bool child);

#endif /* FASTCPU_PERCPU_OBJCACHE_FRONT_H */
