/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-census.c: an object cache's free objects, each counted once. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "kernel.h"
#include "objcache-front.h"
#include "objcache-layout.h"
#include "objcache.h"
#include "private.h"
#include "wing.h"

/*
 * For the tests and the benchmark (private.h), on a cache no thread is
 * using: every index's magazine and every object of the depot walked, each
 * object marked in a bitmap of the space's object numbers, so that an
 * object found twice, or a pointer the space did not give, is counted.
 */
struct walk {
	const struct fastcpu_objcache *cache;
	struct fastcpu_private_census *census;
	uint64_t *seen;
	size_t *count;			/* what the walk adds to */
};

static void mark(void *object, void *arg)
{
	struct walk *w = arg;
	size_t n;

	if (!fastcpu_space_holds(&w->cache->space, object)) {
		w->census->strays++;
		return;
	}
	n = fastcpu_space_number(&w->cache->space, object);
	if (w->seen[n / 64] >> (n % 64) & 1) {
		w->census->repeated++;
		return;
	}
	w->seen[n / 64] |= (uint64_t)1 << (n % 64);
	(*w->count)++;
}

FASTCPU_EXPORT int fastcpu_private_objcache_census(const struct fastcpu_objcache *cache,
						   struct fastcpu_private_census *census)
{
	size_t bits = fastcpu_space_capacity(&cache->space) + 64;
	size_t bytes = bits / 8 + 8;
	size_t indexes = (size_t)fastcpu_cid_limit(), magazines, with_objects;
	uintptr_t mask = cache->fast.mask;
	struct walk w = { cache, census, NULL, NULL };

	memset(census, 0, sizeof(*census));
	fastcpu_fronts_collect();
	w.seen = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.seen == MAP_FAILED) {
		errno = ENOMEM;
		return -1;
	}
	census->carved = fastcpu_space_carved(&cache->space);
	census->limit = fastcpu_magazine_capacity(mask);
	census->object_bytes = cache->space.size;
	census->aborts = fastcpu_objcache_aborts();
	w.count = &census->listed;
	for (size_t i = 0; i < indexes; i++) {
		uintptr_t top = (uintptr_t)*fastcpu_objcache_top(cache, i);
		size_t count = fastcpu_magazine_count(top, mask);

		if (top == 0)
			continue;
		census->indexes_used++;
		census->magazines++;
		for (size_t k = 0; k < count; k++)
			mark(((void **)fastcpu_magazine_base(top, mask))[k], &w);
		if (count > census->longest)
			census->longest = count;
	}
	w.count = &census->kept;
	fastcpu_fronts_walk(cache, mark, &w);
	census->listed += census->kept;
	w.count = &census->in_depot;
	fastcpu_depot_walk(&cache->depot, mark, &w, &magazines, &with_objects);
	census->magazines += magazines;
	census->batches = with_objects;
	munmap(w.seen, bytes);
	return 0;
}

FASTCPU_EXPORT void fastcpu_private_objcache_index(struct fastcpu_objcache *cache, int by)
{
	cache->fast.index_distance = by == FASTCPU_BY_CPU ? 0 : fastcpu_cid_distance();
}
