/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/objcache-census.c: an object cache's free objects, each counted once. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "objcache.h"
#include "private.h"
#include "wing.h"

/*
 * For the tests and the benchmark (private.h), on a cache no thread is
 * using: every CPU's list and every batch of the depot walked, each object
 * marked in a bitmap of the space's object numbers, so that an object
 * found twice, or one the space did not give, or a depth that is not its
 * chain's, is counted. A walk stops at the first object it cannot trust.
 */
struct walk {
	const struct fastcpu_objcache *cache;
	struct fastcpu_private_census *census;
	uint64_t *seen;
	size_t *count;			/* what the walk adds to */
};

/* Walks the chain at first (whose first depth is a link where in_depot);
 * its length. */
static size_t walk_chain(struct walk *w, void *first, bool in_depot)
{
	size_t length = 0, depth = 0;
	void *o;

	/* The chain's length, up to a stray or more than the space gave (a
	 * circle), which the walk below then meets. */
	for (o = first; o != NULL && fastcpu_space_holds(&w->cache->space, o) &&
	     depth <= w->census->carved; o = (void *)fastcpu_word(o, 0))
		depth++;
	for (o = first; o != NULL; o = (void *)fastcpu_word(o, 0), depth--) {
		size_t n;

		if (!fastcpu_space_holds(&w->cache->space, o)) {
			w->census->strays++;
			break;
		}
		n = fastcpu_space_number(&w->cache->space, o);
		if (w->seen[n / 64] >> (n % 64) & 1) {
			w->census->repeated++;
			break;
		}
		w->seen[n / 64] |= (uint64_t)1 << (n % 64);
		if ((o != first || !in_depot) && fastcpu_word(o, 1) != (intptr_t)depth)
			w->census->misdepths++;
		length++;
		(*w->count)++;
	}
	return length;
}

static void walk_batch(void *first, void *arg)
{
	struct walk *w = arg;

	w->census->batches++;
	(void)walk_chain(w, first, true);
}

FASTCPU_EXPORT int fastcpu_private_objcache_census(const struct fastcpu_objcache *cache,
						   struct fastcpu_private_census *census)
{
	size_t bits = fastcpu_space_capacity(&cache->space) + 64;
	size_t bytes = bits / 8 + 8;
	int lists = fastcpu_cid_limit();
	struct walk w = { cache, census, NULL, NULL };

	memset(census, 0, sizeof(*census));
	w.seen = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.seen == MAP_FAILED) {
		errno = ENOMEM;
		return -1;
	}
	census->carved = fastcpu_space_carved(&cache->space);
	census->limit = (size_t)cache->limit;
	census->object_bytes = cache->space.size;
	census->aborts = fastcpu_objcache_aborts();
	w.count = &census->listed;
	for (int i = 0; i < lists; i++) {
		void *first = (void *)*fastcpu_percpu_slot_(cache->heads, FASTCPU_PERCPU_STRIDE,
							    (size_t)i);
		size_t length = walk_chain(&w, first, false);

		if (length > census->longest)
			census->longest = length;
	}
	w.count = &census->in_depot;
	fastcpu_depot_walk(&cache->depot, walk_batch, &w);
	munmap(w.seen, bytes);
	return 0;
}
