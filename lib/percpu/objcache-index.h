/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-index.h: a CPU index's magazine: objects taken and given, traded when empty or full. */

#ifndef FASTCPU_PERCPU_OBJCACHE_INDEX_H
#define FASTCPU_PERCPU_OBJCACHE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "magazine.h"
#include "objcache-layout.h"

/*
 * Objects taken from an index's magazine and given to it, a magazine run
 * empty traded at the depot for one with objects (the depot's, or fresh
 * from the space), one run full for an empty one: written once, bound for
 * each way a thread reaches its index (lib/README.md: the half rule):
 *
 * - by its sequences (locked false): the steps are <fastcpu/objcache.h>'s
 *   bodies, the ones a program runs inline, on the index of the area at
 *   cpu_at; the trade is one compare-and-store sequence;
 * - in the upper half, under the index's lock (locked true): the steps
 *   are the magazine's in C (magazine.h) on the top at top, which the
 *   holder owns; the trade is one store.
 *
 * The old magazine goes to the depot after the new one is in place, never
 * before: a fork child would find it at the index and in the depot at
 * once. A child of a fork between the two lacks it, as it lacks what its
 * vanished threads held.
 */
struct fastcpu_index_way {
	intptr_t *top;				/* locked: the index's top */
	const volatile int *cpu_at, *index_at;	/* sequences: the area, the index's word */
	int index;				/* sequences: -1, the area not registered */
};

FASTCPU_INLINE int fastcpu_index_step_take(struct fastcpu_objcache *cache,
					   struct fastcpu_index_way *way, bool locked,
					   void **object)
{
	uintptr_t top;
	intptr_t taken;
	int r;

	if (!locked) {
		r = fastcpu_objcache_step_body_(&cache->fast, way->cpu_at, &way->index_at,
						&way->index, 0, &taken);
		*object = (void *)taken;
		return r;
	}
	top = (uintptr_t)__atomic_load_n(way->top, __ATOMIC_RELAXED);
	if (fastcpu_magazine_empty(top, cache->fast.mask))
		return FASTCPU_OBJCACHE_TRADE_;
	*object = fastcpu_magazine_pop(&top);
	__atomic_store_n(way->top, (intptr_t)top, __ATOMIC_RELAXED);
	return 0;
}

FASTCPU_INLINE int fastcpu_index_step_give(struct fastcpu_objcache *cache,
					   struct fastcpu_index_way *way, bool locked,
					   void *object)
{
	intptr_t given = (intptr_t)object;
	uintptr_t top;

	if (!locked)
		return fastcpu_objcache_step_body_(&cache->fast, way->cpu_at, &way->index_at,
						   &way->index, 1, &given);
	top = (uintptr_t)__atomic_load_n(way->top, __ATOMIC_RELAXED);
	if (fastcpu_magazine_full(top, cache->fast.mask))
		return FASTCPU_OBJCACHE_TRADE_;
	fastcpu_magazine_push(&top, object);
	__atomic_store_n(way->top, (intptr_t)top, __ATOMIC_RELAXED);
	return 0;
}

/* The magazine at top (0: none to be had, false) put on the index in place
 * of the one there; where a sequence found the index moved or changed
 * meanwhile, top goes to the depot instead, and the caller's step runs
 * again. */
FASTCPU_INLINE bool fastcpu_index_trade(struct fastcpu_objcache *cache,
					struct fastcpu_index_way *way, bool locked, uintptr_t top)
{
	intptr_t *slot = locked ? way->top : fastcpu_objcache_top(cache, (size_t)way->index);
	intptr_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED), found;

	if (top == 0)
		return false;
	if (locked) {
		__atomic_store_n(slot, (intptr_t)top, __ATOMIC_RELAXED);
		top = (uintptr_t)seen;
	} else {
#ifdef FASTCPU_RSEQ_INLINE
		if (fastcpu_rseq_cmpstore_(way->cpu_at, way->index_at, way->index, slot, seen,
					   (intptr_t)top, &found, 0) == 0 && found == seen)
			top = (uintptr_t)seen;
#else
		(void)found;	/* no sequence here: no index reached by one */
#endif
	}
	if (top != 0)
		fastcpu_depot_give(&cache->depot, top);
	return true;
}

/* Up to n objects into out: their number, fewer where the magazine ran
 * empty after the first, or where no sequence runs (way->index -1) or no
 * memory is left before it. */
FASTCPU_INLINE unsigned int fastcpu_index_take(struct fastcpu_objcache *cache,
					       struct fastcpu_index_way *way, bool locked,
					       void **out, unsigned int n)
{
	unsigned int got = 0;

	while (got < n) {
		int r = fastcpu_index_step_take(cache, way, locked, &out[got]);

		if (r == 0) {
			got++;
			continue;
		}
		if (r != FASTCPU_OBJCACHE_TRADE_ || got != 0 ||
		    !fastcpu_index_trade(cache, way, locked,
					 fastcpu_depot_take_full(&cache->depot, &cache->space)))
			break;
	}
	return got;
}

/* The last n objects of objects given, the last first: how many are left
 * (where no sequence runs: way->index -1). A give never needs memory. */
FASTCPU_INLINE unsigned int fastcpu_index_give(struct fastcpu_objcache *cache,
					       struct fastcpu_index_way *way, bool locked,
					       void **objects, unsigned int n)
{
	while (n != 0) {
		int r = fastcpu_index_step_give(cache, way, locked, objects[n - 1]);

		if (r == 0)
			n--;
		else if (r != FASTCPU_OBJCACHE_TRADE_)
			break;
		else
			(void)fastcpu_index_trade(cache, way, locked,
						  fastcpu_depot_take_empty(&cache->depot));
	}
	return n;
}

#endif /* FASTCPU_PERCPU_OBJCACHE_INDEX_H */
