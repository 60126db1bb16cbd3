/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-layout.h: an object cache, as the library keeps it. */

#ifndef FASTCPU_PERCPU_OBJCACHE_LAYOUT_H
#define FASTCPU_PERCPU_OBJCACHE_LAYOUT_H

#include <stddef.h>

#include "objcache-depot.h"
#include "objcache-space.h"
#include "wing.h"

/*
 * The public layout first (<fastcpu/objcache.h>: what a program's inline
 * alloc and free read), then the rest. Per CPU index i, copy i of the
 * per-CPU memory at fast.tops holds the magazine's top and, for an index of
 * the upper half, the lock its threads take.
 */
struct fastcpu_objcache {
	struct fastcpu_objcache_fast_ fast;
	size_t asked;			/* the bytes an object was asked to have */
	unsigned int capacity;		/* a magazine's objects */
	struct fastcpu_depot depot;
	struct fastcpu_space space;
};

/* Index i's magazine top, and its lock. */
static inline intptr_t *fastcpu_objcache_top(const struct fastcpu_objcache *cache, size_t i)
{
	return fastcpu_percpu_slot_(cache->fast.tops, FASTCPU_PERCPU_STRIDE, i);
}

static inline uint64_t *fastcpu_objcache_lock(const struct fastcpu_objcache *cache, size_t i)
{
	return (uint64_t *)(void *)((char *)fastcpu_objcache_top(cache, i) + 8);
}

#endif /* FASTCPU_PERCPU_OBJCACHE_LAYOUT_H */
