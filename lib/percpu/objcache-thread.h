/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-thread.h: the few objects a thread without sequences keeps of its own. */

#ifndef FASTCPU_PERCPU_OBJCACHE_THREAD_H
#define FASTCPU_PERCPU_OBJCACHE_THREAD_H

/*
 * A thread that runs no sequences (seccomp, a forced backend, an owner's
 * unregistered thread, a build without them) would pay its CPU's
 * upper-half lock, a compare-and-swap, on every alloc and every free: more
 * than glibc's malloc, whose thread cache takes none. So it keeps a few
 * free objects of each of its first FASTCPU_OWN_CACHES caches, at most
 * a magazine's capacity and FASTCPU_OWN_OBJECTS, and takes or gives half
 * of them at the upper half at once, under one lock. They count as free
 * (the census walks them), a thread's exit gives them back, and so does a
 * fork child for the threads it does not have (those that were not
 * changing them at the fork: a change cut in half leaves its few objects
 * where a vanished thread's objects lie, with it). A signal handler inside
 * its thread's change takes the upper half. Kept in a page of the
 * thread's own (mapped at its first use), so that the library's static
 * TLS stays small enough to be dlopen()ed; and only where the library's
 * exit key is set without allocating (objcache-thread.c says when).
 */
#define FASTCPU_OWN_OBJECTS 16
#define FASTCPU_OWN_CACHES 2		/* fastcpu_own_enter() looks at both */

#include "internal.h"
#include "thread.h"

struct fastcpu_own_objects {
	const void *cache;		/* NULL: not in use */
	unsigned int count, most;	/* most: this cache's bound */
	void *objects[FASTCPU_OWN_OBJECTS];
};

/* A thread's page: on the list of all (objcache-thread.c), at
 * fastcpu_thread.own. */
struct fastcpu_own {
	struct fastcpu_own *next;
	volatile unsigned int changing;	/* its thread is changing it now */
	struct fastcpu_own_objects kept[FASTCPU_OWN_CACHES];
};

/* Hands count objects back to cache: at a thread's exit, in a fork child,
 * never failing (objcache.c). */
typedef void fastcpu_own_give_back_fn(void *cache, void **objects, unsigned int count);

/* Once, before the first cache: the exit and fork hooks. */
void fastcpu_own_setup(fastcpu_own_give_back_fn *give_back);

/* fastcpu_own_enter()'s first use of a cache by the thread (or of any). */
struct fastcpu_own_objects *fastcpu_own_claim(const void *cache, unsigned int most);

/* The calling thread's objects of cache, most its bound (a cache's first
 * use claims them), marked as being changed; NULL where the thread cannot
 * keep any (a handler inside its change, no room for another cache, no
 * memory). Each non-NULL is followed by fastcpu_own_leave(). */
FASTCPU_INLINE struct fastcpu_own_objects *fastcpu_own_enter(const void *cache,
							     unsigned int most)
{
	struct fastcpu_own *own = fastcpu_thread.own;

	if (likely(own != NULL) && likely(!own->changing)) {
		own->changing = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (likely(own->kept[0].cache == cache))
			return &own->kept[0];
		if (own->kept[1].cache == cache)
			return &own->kept[1];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		own->changing = 0;
	}
	return fastcpu_own_claim(cache, most);
}

FASTCPU_INLINE void fastcpu_own_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_thread.own->changing = 0;
}

/* A cache destroyed: every thread forgets the objects it kept of it. */
void fastcpu_own_forget(const void *cache);

/* Calls fn for each object a thread keeps of cache (a census: the cache
 * quiet). */
void fastcpu_own_walk(const void *cache, void (*fn)(void *object, void *arg), void *arg);

#endif /* FASTCPU_PERCPU_OBJCACHE_THREAD_H */
