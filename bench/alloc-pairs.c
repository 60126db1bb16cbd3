/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/alloc-pairs.c: an object's allocation and free, the object cache's and malloc's. */

#include <stdbool.h>
#include <stdlib.h>

#include "alloc-pairs.h"
#include "fastcpu.h"

/*
 * The setup table's object cache column (setups.c): in every setup a
 * thread can be in, the object cache's pair against glibc's malloc and
 * free in the same process, where a per-CPU allocator must not lose to
 * the per-thread one every program has.
 */
static struct fastcpu_objcache *cache;

bool alloc_pairs_init(void)
{
	if (cache == NULL)
		cache = fastcpu_objcache_new(ALLOC_PAIR_BYTES, 0);
	return cache != NULL;
}

unsigned long alloc_pair_objcache(unsigned long n)
{
	struct fastcpu_objcache *c = cache;

	for (unsigned long i = 0; i < n; i += 4)
		FOUR({
			void *p = fastcpu_objcache_alloc(c);

			KEEP(p);
			fastcpu_objcache_free(c, p);
		});
	return n;
}

unsigned long alloc_pair_malloc(unsigned long n)
{
	for (unsigned long i = 0; i < n; i += 4)
		FOUR({
			void *p = malloc(ALLOC_PAIR_BYTES);

			KEEP(p);
			free(p);
		});
	return n;
}
