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

/* Where a range's word (struct fastcpu_range) keeps the log2 of its bytes. */
#define LOG_MASK ((uintptr_t)63)

static char *range_base(uintptr_t reserved)
{
	return (char *)(reserved & ~LOG_MASK);
}

static size_t range_bytes(uintptr_t reserved)
{
	return reserved != 0 ? (size_t)1 << (reserved & LOG_MASK) : 0;
}

/*
 * A range is reserved by the first to publish its base (the others give
 * their reservation back). Objects are carved from the newest range's
 * unused end by one compare-and-swap, in runs, never past what is
 * writable already; an end too short for an object is left. Pages are
 * made writable ahead of the carvers, in steps of GROW_BYTES (or just the
 * pages of one object where the kernel refuses a step): two carvers may
 * both make the same pages writable, which does no harm. Where the kernel
 * refuses even one object's pages, the carver says ENOMEM and leaves the
 * range as it was, for the next to try: a new range would fail alike.
 * Nothing is unmapped before release: an object carved stays valid memory
 * for the cache's life.
 *
 * The newest range used up doubles in place where the address space after
 * it is free, up to the most a range has, before another is reserved: so
 * that the first range, which the inline free tests, keeps the objects of
 * all but the largest caches (one out of line costs four times as much).
 * To leave it that room, a range is reserved at the bottom of a free gap
 * up to RUNWAY_RANGES times as large (what a program maps later fills a
 * gap from its top down) and the rest of the gap is given back at once.
 * Twice the most a range has: an emulator (qemu-user) keeps a descriptor a
 * page for every reservation, and 64 GiB a cache took its 24 GiB host.
 */
#define GROW_BYTES ((size_t)1 << 20)
#define FIRST_RANGE_BYTES ((size_t)1 << 20)
#define FIRST_RANGE_MAGAZINES 4
#define RUNWAY_RANGES 2
#define RESERVED (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

static size_t page_size(void)
{
	size_t page = (size_t)fastcpu_getauxval(AT_PAGESZ);

	return page != 0 ? page : 4096;
}

/* The most a range has: FASTCPU_SPACE_RANGE_BYTES, and 256 MiB in a
 * 32-bit process, where a few caches' ranges of 1 GiB would leave no room
 * for threads' stacks. */
static size_t range_most(void)
{
	return sizeof(void *) >= 8 ? FASTCPU_SPACE_RANGE_BYTES : (size_t)256 << 20;
}

/* Range k's bytes to try first: as many as the ranges before it have
 * (what is reserved grows with what is carved, at most twice it), the
 * first's FIRST_RANGE_BYTES or FIRST_RANGE_MAGAZINES magazines' objects;
 * at most range_most(). */
static size_t range_goal(const struct fastcpu_space *space, unsigned int k)
{
	size_t most = range_most();
	size_t goal = FIRST_RANGE_MAGAZINES * space->least, before = 0;

	for (unsigned int i = 0; i < k; i++)
		before += range_bytes(space->ranges[i].reserved);
	if (goal < FIRST_RANGE_BYTES)
		goal = FIRST_RANGE_BYTES;
	if (goal < before)
		goal = before;
	return goal < most ? goal : most;
}

/* bytes reserved at the bottom of the largest free gap the process may
 * map, up to the runway (in a 32-bit process, one range's most), or
 * anywhere; MAP_FAILED without address space. */
static void *reserve_low_in_gap(size_t bytes)
{
	size_t runway = range_most() * (sizeof(void *) >= 8 ? RUNWAY_RANGES : 1);

	for (; runway >= 2 * bytes; runway /= 2) {
		char *m = mmap(NULL, runway, PROT_NONE, RESERVED, -1, 0);

		if (m != MAP_FAILED) {
			munmap(m + bytes, runway - bytes);
			return m;
		}
	}
	return mmap(NULL, bytes, PROT_NONE, RESERVED, -1, 0);
}

/* A reservation of the largest power of two of bytes from goal down that
 * the process may map, not below least: the range's word, or 0. */
static uintptr_t reserve(size_t goal, size_t least)
{
	unsigned int log = 0;

	while (((size_t)1 << log) < goal)
		log++;
	for (; ((size_t)1 << log) >= least && log >= 12; log--) {
		void *m = reserve_low_in_gap((size_t)1 << log);

		if (m != MAP_FAILED)
			return (uintptr_t)m | log;
	}
	return 0;
}

/* Range r, reserved as seen, doubled in place where the address space
 * after it is free (the kernel takes the address as a hint only), up to
 * the most a range has; true where it changed, by this call or another
 * (whose doubling took that address space first). */
static bool grow_in_place(struct fastcpu_range *r, uintptr_t seen)
{
	size_t bytes = range_bytes(seen);
	char *end = range_base(seen) + bytes;
	uintptr_t expected = seen;
	char *m;

	if (bytes >= range_most())
		return false;
	m = mmap(end, bytes, PROT_NONE, RESERVED, -1, 0);
	if (m == end && __atomic_compare_exchange_n(&r->reserved, &expected, seen + 1, false,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return true;
	if (m != MAP_FAILED)
		munmap(m, bytes);
	return __atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE) != seen;
}

/* The hint of the ranges published raised to k + 1 at least. */
static void note_published(struct fastcpu_space *space, unsigned int k)
{
	unsigned int seen = __atomic_load_n(&space->known, __ATOMIC_RELAXED);

	while (seen < k + 1 && !__atomic_compare_exchange_n(&space->known, &seen, k + 1, true,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Range k reserved, by this call or another; false without address space. */
static bool reserve_range(struct fastcpu_space *space, unsigned int k)
{
	struct fastcpu_range *r = &space->ranges[k];
	uintptr_t expected = 0, mine;

	if (__atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE) != 0)
		return true;
	mine = reserve(range_goal(space, k), space->least);
	if (mine == 0)
		return false;
	if (!__atomic_compare_exchange_n(&r->reserved, &expected, mine, false, __ATOMIC_RELEASE,
					 __ATOMIC_ACQUIRE)) {
		munmap(range_base(mine), range_bytes(mine));
		return true;
	}
	if (k == 0)
		__atomic_store_n(space->low, (uintptr_t)range_base(mine), __ATOMIC_RELEASE);
	note_published(space, k);
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

/* The newest range published, or -1: from the hint on (its publisher may
 * not have raised it yet). */
static int newest(const struct fastcpu_space *space)
{
	int k = (int)__atomic_load_n(&space->known, __ATOMIC_RELAXED) - 1;

	while (k + 1 < FASTCPU_SPACE_RANGES &&
	       __atomic_load_n(&space->ranges[k + 1].reserved, __ATOMIC_ACQUIRE) != 0)
		k++;
	return k;
}

static size_t round_up(size_t n, size_t step, size_t most)
{
	n = (n + step - 1) / step * step;
	return n < most ? n : most;
}

/* Range r's bytes up to need writable, up to hope where the kernel gives
 * them; false where it refuses even need (strict overcommit without
 * memory, RLIMIT_DATA). */
static bool writable(struct fastcpu_range *r, uintptr_t reserved, size_t need, size_t hope)
{
	size_t done = __atomic_load_n(&r->writable, __ATOMIC_ACQUIRE), to;
	size_t bytes = range_bytes(reserved);
	char *base = range_base(reserved);

	while (done < need) {
		to = round_up(hope, GROW_BYTES, bytes);
		if (mprotect(base + done, to - done, PROT_READ | PROT_WRITE) != 0) {
			to = round_up(need, page_size(), bytes);
			if (mprotect(base + done, to - done, PROT_READ | PROT_WRITE) != 0)
				return false;
		}
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

/* Up to want objects of range r whose first used bytes are carved: their
 * number, made writable first; 0 where the kernel refuses the memory. */
static size_t writable_run(const struct fastcpu_space *space, struct fastcpu_range *r,
			   uintptr_t reserved, size_t used, unsigned int want)
{
	size_t n = (range_bytes(reserved) - used) / space->size, ready;

	if (n > want)
		n = want;
	if (!writable(r, reserved, used + space->size, used + n * space->size))
		return 0;
	ready = (__atomic_load_n(&r->writable, __ATOMIC_ACQUIRE) - used) / space->size;
	return n < ready ? n : ready;
}

/* A run carved is of free objects: poisoned (ASan) until handed out. */
static char *poisoned(char *run, size_t bytes)
{
#ifdef FASTCPU_ASAN
	__asan_poison_memory_region(run, bytes);
#else
	(void)bytes;
#endif
	return run;
}

void *fastcpu_space_carve(struct fastcpu_space *space, unsigned int want, unsigned int *got)
{
	int saved = errno;

	for (;;) {
		int k = newest(space);
		struct fastcpu_range *r = &space->ranges[k];
		uintptr_t reserved = __atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE);
		size_t used = __atomic_load_n(&r->carved, __ATOMIC_RELAXED), n;

		if (range_bytes(reserved) - used < space->size) {
			if (!grow_in_place(r, reserved) && (k + 1 >= FASTCPU_SPACE_RANGES ||
							    !reserve_range(space, (unsigned int)(k + 1))))
				break;
			continue;
		}
		n = writable_run(space, r, reserved, used, want);
		if (n == 0)
			break;	/* nothing counted: the range stays for the next */
		if (!__atomic_compare_exchange_n(&r->carved, &used, used + n * space->size, true,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;
		if (k == 0)
			publish_carved(space, used + n * space->size);
		*got = (unsigned int)n;
		errno = saved;
		return poisoned(range_base(reserved) + used, n * space->size);
	}
	errno = saved;
	return NULL;
}

/* Whether off bytes from a range's base is an object's offset there. */
static bool on_stride(const struct fastcpu_space *space, uint64_t off)
{
	return (off & (((uint64_t)1 << space->shift) - 1)) == 0 &&
	       (off >> space->shift) * space->inverse <= space->most;
}

/* Newest first: the largest, with most objects. */
bool fastcpu_space_holds(const struct fastcpu_space *space, const void *p)
{
	for (int k = newest(space); k >= 0; k--) {
		const struct fastcpu_range *r = &space->ranges[k];
		uintptr_t reserved = __atomic_load_n(&r->reserved, __ATOMIC_ACQUIRE);
		uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)range_base(reserved));

		if (off < __atomic_load_n(&r->carved, __ATOMIC_RELAXED))
			return on_stride(space, off);
	}
	return false;
}

size_t fastcpu_space_number(const struct fastcpu_space *space, const void *p)
{
	size_t before = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++) {
		uintptr_t reserved = space->ranges[k].reserved;
		const char *base = range_base(reserved);

		if ((uintptr_t)p - (uintptr_t)base < range_bytes(reserved))
			return before + (size_t)((const char *)p - base) / space->size;
		before += range_bytes(reserved) / space->size;
	}
	return before;
}

size_t fastcpu_space_capacity(const struct fastcpu_space *space)
{
	size_t all = 0;

	for (unsigned int k = 0; k < FASTCPU_SPACE_RANGES && space->ranges[k].reserved; k++)
		all += range_bytes(space->ranges[k].reserved) / space->size;
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
		__asan_unpoison_memory_region(range_base(reserved), space->ranges[k].carved);
#endif
		munmap(range_base(reserved), range_bytes(reserved));
	}
	memset(space->ranges, 0, sizeof(space->ranges));
}
