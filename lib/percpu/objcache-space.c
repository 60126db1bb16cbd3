/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/objcache-space.c: the address space fresh objects are carved from. */

#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "objcache.h"
#include "util.h"
#include "wing.h"

/*
 * Region k has first_bytes << k bytes, reserved when region k - 1 is used
 * up (MAP_NORESERVE: backed page by page as objects are touched), so that
 * a cache of N objects has O(log N) regions and a pointer is checked
 * against each in turn. Objects are carved from a region's unused end by
 * one compare-and-swap, in runs; a region's end too short for an object is
 * left unused. A region is reserved by the first to publish its base (the
 * others give their mapping back), and the count of regions moved past it
 * by whoever sees it published. Nothing is unmapped before release: an
 * object carved stays valid memory for the cache's life.
 */
#define FIRST_BYTES_MIN (256 * 1024)
#define FIRST_OBJECTS 64

static size_t page_size(void)
{
	size_t page = (size_t)fastcpu_getauxval(AT_PAGESZ);

	return page != 0 ? page : 4096;
}

void fastcpu_space_init(struct fastcpu_space *space, size_t size)
{
	size_t page = page_size(), first = FIRST_BYTES_MIN;
	uint64_t odd = size, inverse;

	memset(space, 0, sizeof(*space));
	space->size = size;
	if (first < FIRST_OBJECTS * size)
		first = FIRST_OBJECTS * size;
	space->first_bytes = (first + page - 1) / page * page;
	while ((odd & 1) == 0) {
		odd >>= 1;
		space->shift++;
	}
	inverse = odd;			/* right in its 3 low bits; each step doubles them */
	for (int step = 0; step < 5; step++)
		inverse *= 2 - odd * inverse;
	space->inverse = inverse;
	space->most = UINT64_MAX / odd;
}

static size_t region_bytes(const struct fastcpu_space *space, unsigned int k)
{
	size_t bytes = space->first_bytes << k;

	return bytes >> k == space->first_bytes ? bytes : 0;
}

/* The newest region published, or -1. */
static int newest(const struct fastcpu_space *space)
{
	int k = -1;

	while (k + 1 < FASTCPU_SPACE_REGIONS &&
	       __atomic_load_n(&space->regions[k + 1].base, __ATOMIC_ACQUIRE) != NULL)
		k++;
	return k;
}

/* Region k reserved, by this call or another; false without address space. */
static bool reserve(struct fastcpu_space *space, unsigned int k)
{
	size_t bytes = region_bytes(space, k);
	char *expected = NULL;
	void *m;

	if (__atomic_load_n(&space->regions[k].base, __ATOMIC_ACQUIRE) != NULL)
		return true;
	if (bytes == 0)
		return false;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return false;
	if (!__atomic_compare_exchange_n(&space->regions[k].base, &expected, (char *)m, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		munmap(m, bytes);
	return true;
}

void *fastcpu_space_carve(struct fastcpu_space *space, unsigned int want, unsigned int *got)
{
	int saved = errno;

	for (;;) {
		int k = newest(space);

		if (k >= 0) {
			struct fastcpu_region *r = &space->regions[k];
			size_t bytes = region_bytes(space, (unsigned int)k);
			size_t used = __atomic_load_n(&r->used, __ATOMIC_RELAXED);

			while (bytes - used >= space->size) {
				size_t n = (bytes - used) / space->size;

				if (n > want)
					n = want;
				if (__atomic_compare_exchange_n(&r->used, &used, used + n * space->size,
								true, __ATOMIC_RELAXED,
								__ATOMIC_RELAXED)) {
					*got = (unsigned int)n;
					errno = saved;
					return r->base + used;
				}
			}
		}
		if (k + 1 >= FASTCPU_SPACE_REGIONS || !reserve(space, (unsigned int)(k + 1))) {
			errno = ENOMEM;
			return NULL;
		}
	}
}

size_t fastcpu_space_number(const struct fastcpu_space *space, const void *p)
{
	size_t before = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_REGIONS && space->regions[k].base; k++) {
		const char *base = space->regions[k].base;
		size_t bytes = region_bytes(space, k);

		if ((uintptr_t)p - (uintptr_t)base < bytes)
			return before + (size_t)((const char *)p - base) / space->size;
		before += bytes / space->size;
	}
	return before;
}

/* Every object the regions reserved could hold (numbers are below it), and
 * every object carved. */
size_t fastcpu_space_capacity(const struct fastcpu_space *space)
{
	size_t all = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_REGIONS && space->regions[k].base; k++)
		all += region_bytes(space, k) / space->size;
	return all;
}

size_t fastcpu_space_carved(const struct fastcpu_space *space)
{
	size_t all = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_REGIONS && space->regions[k].base; k++)
		all += space->regions[k].used / space->size;
	return all;
}

/* ASan's poison on free objects is cleared with the regions: munmap keeps
 * the shadow, and the next mapping there would be poisoned. */
void fastcpu_space_release(struct fastcpu_space *space)
{
	for (unsigned int k = 0; k < FASTCPU_SPACE_REGIONS && space->regions[k].base; k++) {
#ifdef FASTCPU_ASAN
		__asan_unpoison_memory_region(space->regions[k].base, space->regions[k].used);
#endif
		munmap(space->regions[k].base, region_bytes(space, k));
	}
	memset(space->regions, 0, sizeof(space->regions));
}
