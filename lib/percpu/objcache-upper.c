/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-upper.c: the object cache's upper half: its indexes' magazines under their locks. */

#include "objcache-index.h"
#include "objcache-upper.h"
#include "wing.h"

/* The calling thread's CPU's index of the upper half: its top and lock. */
static struct fastcpu_index_way upper_way(const struct fastcpu_objcache *cache, uint64_t **lock)
{
	size_t slot = fastcpu_upper_slot();
	struct fastcpu_index_way way = { .top = fastcpu_objcache_top(cache, slot) };

	*lock = fastcpu_objcache_lock(cache, slot);
	return way;
}

unsigned int fastcpu_objcache_upper_take(struct fastcpu_objcache *cache, void **out,
					 unsigned int n)
{
	uint64_t *lock;
	struct fastcpu_index_way way = upper_way(cache, &lock);
	unsigned int got;

	if (!fastcpu_lock_take(lock, FASTCPU_LOCK_INNER))
		return 0;
	got = fastcpu_index_take(cache, &way, true, out, n);
	fastcpu_lock_give(lock, FASTCPU_LOCK_INNER);
	return got;
}

void *fastcpu_objcache_upper_take_one(struct fastcpu_objcache *cache)
{
	void *object;

	return fastcpu_objcache_upper_take(cache, &object, 1) != 0 ?
	       object : fastcpu_depot_take_one(&cache->depot, &cache->space);
}

void fastcpu_objcache_upper_give(struct fastcpu_objcache *cache, void **objects, unsigned int n)
{
	uint64_t *lock;
	struct fastcpu_index_way way = upper_way(cache, &lock);

	if (!fastcpu_lock_take(lock, FASTCPU_LOCK_INNER)) {
		while (n != 0)
			fastcpu_depot_give_one(&cache->depot, objects[--n]);
		return;
	}
	(void)fastcpu_index_give(cache, &way, true, objects, n);
	fastcpu_lock_give(lock, FASTCPU_LOCK_INNER);
}
