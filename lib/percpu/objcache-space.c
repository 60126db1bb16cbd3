/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-space.c: the address space an object cache's objects are carved from. */

#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "internal.h"
#include "objcache-space.h"
#include "util.h"
#include "wing.h"

/*
 * A range is reserved by the first to publish its base (the others give
 * their reservation back). Objects are carved from the newest range's
 * unused end by one compare-and-swap, in runs; an end too short for an
 * object is left. What is carved is made writable first, in steps of
 * GROW_BYTES: two carvers may both make the same pages writable, which
 * does no harm. Nothing is unmapped before release: an object carved stays
 * valid memory for the cache's life.
 */
#define GROW_BYTES ((size_t)1 << 20)

static size_t page_size(void)
{
	size_t page = (size_t)fastcpu_getauxval(AT_PAGESZ);

	return page != 0 ? page : 4096;
}

/* Range k's bytes to try first: FASTCPU_SPACE_RANGE_BYTES; in a 32-bit
 * process, where a few caches reserving 1 GiB each would leave no room for
 * threads' stacks, 16 MiB doubling from range to range up to 256 MiB. */
static size_t range_goal(unsigned int k)
{
	if (sizeof(void *) >= 8)
		return FASTCPU_SPACE_RANGE_BYTES;
	return ((size_t)16 << 20) << (k < 4 ? k : 4);
}

/* A reservation of the largest power of two of bytes from goal down that
 * the process may map, not below least: the range's word, or 0. */
static uintptr_t reserve(size_t goal, size_t least)
{
	unsigned int log = 0;

	while (((size_t)1 << log) < goal)
		log++;
	for (; ((size_t)1 << log) >= least && log >= 12; log--) {
		void *m = mmap(NULL, (size_t)1 << log, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m != MAP_FAILED)
			return (uintptr_t)m | log;
	}
	return 0;
}

/* Range k reserved, by this call or another; false without address space. */
static bool reserve_range(struct fastcpu_space *space, unsigned int k)
{
	struct fastcpu_range *r = &space->ranges[k];
	uintptr_t expected = 0, mine;

	if (__atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE) != 0)
		return true;
	mine = reserve(range_goal(k), space->least);
	if (mine == 0)
		return false;
	if (!__atomic_compare_exchange_n(&r->reserved, &expected, mine, false, __ATOMIC_RELEASE,
					 __ATOMIC_ACQUIRE))
		munmap(fastcpu_range_base(mine), fastcpu_range_bytes(mine));
	else if (k == 0)
		__atomic_store_n(space->low, (uintptr_t)fastcpu_range_base(mine), __ATOMIC_RELEASE);
	return true;
}

int fastcpu_space_init(struct fastcpu_space *space, size_t size, size_t least,
		       uintptr_t *low, uintptr_t *carved)
{
	size_t page = page_size();
	uint64_t odd = size, inverse;

	memset(space, 0, sizeof(*space));
	space->size = size;
	space->least = (least + page - 1) / page * page;
	space->low = low;
	space->carved = carved;
	while ((odd & 1) == 0) {
		odd >>= 1;
		space->shift++;
	}
	inverse = odd;			/* right in its 3 low bits; each step doubles them */
	for (int step = 0; step < 5; step++)
		inverse *= 2 - odd * inverse;
	space->inverse = inverse;
	space->most = UINT64_MAX / odd;
	if (!reserve_range(space, 0)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* The newest range published, or -1. */
static int newest(const struct fastcpu_space *space)
{
	int k = -1;

	while (k + 1 < FASTCPU_SPACE_RANGES &&
	       __atomic_load_n(&space->ranges[k + 1].reserved, __ATOMIC_ACQUIRE) != 0)
		k++;
	return k;
}

/* Range r's bytes up to end writable; false where the kernel refuses
 * (strict overcommit without memory). */
static bool writable(struct fastcpu_range *r, uintptr_t reserved, size_t end)
{
	size_t done = __atomic_load_n(&r->writable, __ATOMIC_ACQUIRE), to;
	size_t bytes = fastcpu_range_bytes(reserved);

	while (done < end) {
		to = (end + GROW_BYTES - 1) / GROW_BYTES * GROW_BYTES;
		if (to > bytes)
			to = bytes;
		if (mprotect(fastcpu_range_base(reserved) + done, to - done,
			     PROT_READ | PROT_WRITE) != 0)
			return false;
		if (__atomic_compare_exchange_n(&r->writable, &done, to, false, __ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE))
			done = to;
	}
	return true;
}

/* The first range's objects carved, where the inline free reads them:
 * the most any carver reached (end: its bytes). */
static void publish_carved(struct fastcpu_space *space, size_t end)
{
	uintptr_t seen = __atomic_load_n(space->carved, __ATOMIC_RELAXED);

	end /= space->size;
	while (seen < end && !__atomic_compare_exchange_n(space->carved, &seen, end, true,
							  __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void *fastcpu_space_carve(struct fastcpu_space *space, unsigned int want, unsigned int *got)
{
	int saved = errno;

	for (;;) {
		int k = newest(space);
		struct fastcpu_range *r = &space->ranges[k];
		uintptr_t reserved = __atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE);
		size_t bytes = fastcpu_range_bytes(reserved);
		size_t used = __atomic_load_n(&r->carved, __ATOMIC_RELAXED);

		while (bytes - used >= space->size) {
			size_t n = (bytes - used) / space->size;

			if (n > want)
				n = want;
			if (!__atomic_compare_exchange_n(&r->carved, &used, used + n * space->size,
							 true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				continue;
			if (!writable(r, reserved, used + n * space->size))
				break;	/* those objects are lost: no memory for them */
			if (k == 0)
				publish_carved(space, used + n * space->size);
			*got = (unsigned int)n;
			errno = saved;
			return fastcpu_range_base(reserved) + used;
		}
		if (k + 1 >= FASTCPU_SPACE_RANGES || !reserve_range(space, (unsigned int)(k + 1))) {
			errno = ENOMEM;
			return NULL;
		}
	}
}

bool fastcpu_space_holds(const struct fastcpu_space *space, const void *p)
{
	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES; k++) {
		const struct fastcpu_range *r = &space->ranges[k];
		uintptr_t reserved = __atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE);
		uint64_t off;

		if (reserved == 0)
			return false;
		off = (uint64_t)((uintptr_t)p - (uintptr_t)fastcpu_range_base(reserved));
		if (off < __atomic_load_n(&r->carved, __ATOMIC_RELAXED))
			return fastcpu_space_on_stride(space, off);
	}
	return false;
}

size_t fastcpu_space_number(const struct fastcpu_space *space, const void *p)
{
	size_t before = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++) {
		uintptr_t reserved = space->ranges[k].reserved;
		const char *base = fastcpu_range_base(reserved);

		if ((uintptr_t)p - (uintptr_t)base < fastcpu_range_bytes(reserved))
			return before + (size_t)((const char *)p - base) / space->size;
		before += fastcpu_range_bytes(reserved) / space->size;
	}
	return before;
}

size_t fastcpu_space_capacity(const struct fastcpu_space *space)
{
	size_t all = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++)
		all += fastcpu_range_bytes(space->ranges[k].reserved) / space->size;
	return all;
}

size_t fastcpu_space_carved(const struct fastcpu_space *space)
{
	size_t all = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++)
		all += space->ranges[k].carved / space->size;
	return all;
}

/* ASan's poison on free objects is cleared with the ranges: munmap keeps
 * the shadow, and the next mapping there would be poisoned. */
void fastcpu_space_release(struct fastcpu_space *space)
{
	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++) {
		uintptr_t reserved = space->ranges[k].reserved;

#ifdef FASTCPU_ASAN
		__asan_unpoison_memory_region(fastcpu_range_base(reserved), space->ranges[k].carved);
#endif
		munmap(fastcpu_range_base(reserved), fastcpu_range_bytes(reserved));
	}
	memset(space->ranges, 0, sizeof(space->ranges));
}
