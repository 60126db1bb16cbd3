/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-depot.c: the magazines no CPU index holds, and where they are traded. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "objcache-depot.h"
#include "wing.h"

/*
 * Magazines are numbered in the order they are made, CHUNK_BYTES of them
 * mapped at a time; a page of chunk addresses, mapped as needed, finds
 * number n's chunk (nothing is unmapped before release). A magazine's
 * last word holds, while it is out of the stacks, its own number + 1
 * (above COUNT_BITS), and in a stack the next one's number + 1 (0: none)
 * and its count: every push and pop is one compare-and-swap of a head,
 * its tag raised, so a pop that read a head and a link before others
 * changed the stack fails and reads again. Numbers below made exist;
 * those from cut up are empty magazines nobody has taken out yet (never
 * written: the reserve costs no memory until used).
 */
#define CHUNK_BYTES ((size_t)64 * 1024)
#define PAGE_BYTES ((size_t)4096)
#define PAGE_CHUNKS (PAGE_BYTES / sizeof(uintptr_t))
#define COUNT_BITS (sizeof(uintptr_t) == 8 ? 16 : 11)
#define COUNT_MASK (((uintptr_t)1 << COUNT_BITS) - 1)
#define NUMBER_MASK ((uint64_t)UINT32_MAX)
#define TAG_ONE ((uint64_t)1 << 32)
#define WORD sizeof(void *)

static uintptr_t *link_of(uintptr_t base, uintptr_t mask)
{
	return (uintptr_t *)(base + mask + 1 - WORD);
}

void fastcpu_depot_init(struct fastcpu_depot *depot, uintptr_t mask, size_t reserve)
{
	memset(depot, 0, sizeof(*depot));
	depot->mask = mask;
	depot->per_chunk_log = (unsigned int)__builtin_ctzll(CHUNK_BYTES / (mask + 1));
	depot->reserve = reserve + FASTCPU_DEPOT_IN_FLIGHT;
}

/* The most magazines: numbers + 1 fit a head's 32 bits and a link's word,
 * chunks the pages. */
static uint64_t numbers_most(const struct fastcpu_depot *depot)
{
	uint64_t most = NUMBER_MASK - 1, by_link = ((uint64_t)UINTPTR_MAX >> COUNT_BITS) - 1,
		 by_pages = ((uint64_t)FASTCPU_DEPOT_PAGES * PAGE_CHUNKS) << depot->per_chunk_log;

	if (by_link < most)
		most = by_link;
	return by_pages < most ? by_pages : most;
}

/* Magazine n's base (n below made: its chunk is mapped). */
static uintptr_t base_of(const struct fastcpu_depot *depot, uint64_t n)
{
	uint64_t chunk = n >> depot->per_chunk_log;
	const uintptr_t *page = (const uintptr_t *)__atomic_load_n(&depot->pages[chunk / PAGE_CHUNKS],
								   __ATOMIC_ACQUIRE);
	uintptr_t at = __atomic_load_n(&page[chunk % PAGE_CHUNKS], __ATOMIC_ACQUIRE);

	return at + (uintptr_t)(n & (((uint64_t)1 << depot->per_chunk_log) - 1)) * (depot->mask + 1);
}

/* A mapping of bytes at *slot, where there is none yet (whoever maps
 * first puts it there, the others unmap theirs); false without memory. */
static bool mapped(uintptr_t *slot, size_t bytes)
{
	uintptr_t none = 0;
	int saved = errno;
	void *m;

	if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != 0)
		return true;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED && !__atomic_compare_exchange_n(slot, &none, (uintptr_t)m, false,
							    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		munmap(m, bytes);
	errno = saved;
	return m != MAP_FAILED;
}

/* Magazines made up to target at least; false without memory. */
static bool make(struct fastcpu_depot *depot, uint64_t target)
{
	if (target > numbers_most(depot))
		return false;
	for (;;) {
		uint64_t made = __atomic_load_n(&depot->made, __ATOMIC_ACQUIRE);
		uint64_t chunk = made >> depot->per_chunk_log;
		uint64_t end = (chunk + 1) << depot->per_chunk_log;
		uintptr_t *page = &depot->pages[chunk / PAGE_CHUNKS];

		if (made >= target)
			return true;
		if (!mapped(page, PAGE_BYTES) ||
		    !mapped(&((uintptr_t *)*page)[chunk % PAGE_CHUNKS], CHUNK_BYTES))
			return false;
		__atomic_compare_exchange_n(&depot->made, &made, end < target ? end : target, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

/* The first magazine of a stack, taken off: its number + 1 (0 where the
 * stack is empty) and its count. */
static uint64_t pop(struct fastcpu_depot *depot, uint64_t *head, size_t *count)
{
	uint64_t seen = __atomic_load_n(head, __ATOMIC_ACQUIRE), next;
	uintptr_t *link, word;

	do {
		if ((seen & NUMBER_MASK) == 0)
			return 0;
		link = link_of(base_of(depot, (seen & NUMBER_MASK) - 1), depot->mask);
		word = __atomic_load_n(link, __ATOMIC_RELAXED);
		next = (seen & ~NUMBER_MASK) + TAG_ONE + ((word >> COUNT_BITS) & NUMBER_MASK);
	} while (!__atomic_compare_exchange_n(head, &seen, next, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	*count = word & COUNT_MASK;
	__atomic_store_n(link, (uintptr_t)(seen & NUMBER_MASK) << COUNT_BITS, __ATOMIC_RELAXED);
	return seen & NUMBER_MASK;
}

/* The magazine at base, holding count objects, onto a stack. */
static void push(struct fastcpu_depot *depot, uint64_t *head, uintptr_t base, size_t count)
{
	uintptr_t *link = link_of(base, depot->mask);
	uint64_t number = __atomic_load_n(link, __ATOMIC_RELAXED) >> COUNT_BITS;
	uint64_t seen = __atomic_load_n(head, __ATOMIC_RELAXED);

	do
		__atomic_store_n(link, (uintptr_t)(seen & NUMBER_MASK) << COUNT_BITS | count,
				 __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(head, &seen, (seen & ~NUMBER_MASK) + TAG_ONE + number,
					    false, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* A magazine made but never taken out (its number written in), or 0. */
static uintptr_t cut(struct fastcpu_depot *depot)
{
	uint64_t n = __atomic_load_n(&depot->cut, __ATOMIC_RELAXED);
	uintptr_t base;

	do
		if (n >= __atomic_load_n(&depot->made, __ATOMIC_ACQUIRE))
			return 0;
	while (!__atomic_compare_exchange_n(&depot->cut, &n, n + 1, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	base = base_of(depot, n);
	__atomic_store_n(link_of(base, depot->mask), (uintptr_t)(n + 1) << COUNT_BITS,
			 __ATOMIC_RELAXED);
	return base;
}

/* An empty magazine of the stack or never used, or 0 where every one is
 * held (at an index, or in a trade). */
static uintptr_t empty_one(struct fastcpu_depot *depot)
{
	size_t count;
	uint64_t n = pop(depot, &depot->empty, &count);

	return n != 0 ? base_of(depot, n - 1) : cut(depot);
}

/* A magazine with objects of the stack (its top), or 0. */
static uintptr_t full_one(struct fastcpu_depot *depot)
{
	size_t count;
	uint64_t n = pop(depot, &depot->full, &count);

	return n != 0 ? base_of(depot, n - 1) + count * WORD : 0;
}

/*
 * The room every object carved has is a magazine: the ones at the indexes,
 * in trades and in the stack of full ones together hold less than the
 * runs' and the indexes' (a full one holds a run's worth), so one of the
 * reserve is left while at most FASTCPU_DEPOT_IN_FLIGHT trades hold one
 * at once. Where more do, one more is made; where no memory is left even
 * for that, the free waits for a trade to give one back: it never drops
 * its object.
 */
uintptr_t fastcpu_depot_take_empty(struct fastcpu_depot *depot)
{
	uintptr_t base;

	for (unsigned int attempt = 0; (base = empty_one(depot)) == 0; attempt++)
		if (!make(depot, __atomic_load_n(&depot->made, __ATOMIC_RELAXED) + 1))
			fastcpu_wait_for_holder(attempt);
	return base;
}

/* An empty magazine for a run of fresh objects, the room for them made
 * first (the run counted: made stays at least runs + reserve); 0 without
 * memory, the run not counted. */
static uintptr_t fresh_room(struct fastcpu_depot *depot)
{
	uint64_t run = __atomic_add_fetch(&depot->runs, 1, __ATOMIC_RELAXED);
	uintptr_t base = 0;

	if (make(depot, run + depot->reserve))
		while ((base = empty_one(depot)) == 0 &&
		       make(depot, __atomic_load_n(&depot->made, __ATOMIC_RELAXED) + 1))
			;
	if (base == 0)
		__atomic_sub_fetch(&depot->runs, 1, __ATOMIC_RELAXED);
	return base;
}

/* A magazine of fresh objects (its top), as many as it holds and the
 * space has, in a magazine made for them; 0 without address space or
 * memory, nothing counted. A run that did not happen takes back its
 * count: runs stays at most the runs carved, and a cache that meets
 * ENOMEM again and again makes no magazine more for it. */
static uintptr_t fresh_one(struct fastcpu_depot *depot, struct fastcpu_space *space)
{
	uintptr_t base = fresh_room(depot);
	unsigned int got;
	char *run;

	if (base == 0)
		return 0;
	run = fastcpu_space_carve(space, (unsigned int)fastcpu_magazine_capacity(depot->mask), &got);
	if (run == NULL) {
		fastcpu_depot_give(depot, base);
		__atomic_sub_fetch(&depot->runs, 1, __ATOMIC_RELAXED);
		return 0;
	}
	for (unsigned int i = 0; i < got; i++)
		((void **)base)[i] = run + (size_t)i * space->size;
	return base + got * WORD;
}

uintptr_t fastcpu_depot_take_full(struct fastcpu_depot *depot, struct fastcpu_space *space)
{
	uintptr_t top = full_one(depot);

	return top != 0 ? top : fresh_one(depot, space);
}

void fastcpu_depot_give(struct fastcpu_depot *depot, uintptr_t top)
{
	size_t count = fastcpu_magazine_count(top, depot->mask);

	push(depot, count != 0 ? &depot->full : &depot->empty,
	     fastcpu_magazine_base(top, depot->mask), count);
}

void *fastcpu_depot_take_one(struct fastcpu_depot *depot, struct fastcpu_space *space)
{
	uintptr_t top = fastcpu_depot_take_full(depot, space);
	void *object;

	if (top == 0)
		return NULL;
	object = fastcpu_magazine_pop(&top);
	fastcpu_depot_give(depot, top);
	return object;
}

/* Into the first magazine with objects where it has room (so a handler's
 * frees fill one magazine, not one each), else into an empty one. */
void fastcpu_depot_give_one(struct fastcpu_depot *depot, void *object)
{
	uintptr_t top = full_one(depot);

	if (top != 0 && fastcpu_magazine_full(top, depot->mask)) {
		fastcpu_depot_give(depot, top);
		top = 0;
	}
	if (top == 0)
		top = fastcpu_depot_take_empty(depot);
	fastcpu_magazine_push(&top, object);
	fastcpu_depot_give(depot, top);
}

void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *object, void *arg),
			void *arg, size_t *magazines, size_t *with_objects)
{
	uint64_t n;

	*magazines = (size_t)(depot->made - depot->cut);
	*with_objects = 0;
	for (n = depot->full & NUMBER_MASK; n != 0;) {
		uintptr_t base = base_of(depot, n - 1), word = *link_of(base, depot->mask);

		for (size_t k = 0; k < (word & COUNT_MASK); k++)
			fn(((void **)base)[k], arg);
		++*magazines;
		++*with_objects;
		n = word >> COUNT_BITS;
	}
	for (n = depot->empty & NUMBER_MASK; n != 0;
	     n = *link_of(base_of(depot, n - 1), depot->mask) >> COUNT_BITS)
		++*magazines;
}

void fastcpu_depot_release(struct fastcpu_depot *depot)
{
	for (size_t p = 0; p < FASTCPU_DEPOT_PAGES; p++) {
		uintptr_t *page = (uintptr_t *)depot->pages[p];

		for (size_t c = 0; page != NULL && c < PAGE_CHUNKS; c++)
			if (page[c] != 0)
				munmap((void *)page[c], CHUNK_BYTES);
		if (page != NULL)
			munmap(page, PAGE_BYTES);
	}
	memset(depot->pages, 0, sizeof(depot->pages));
	depot->full = depot->empty = depot->made = depot->cut = depot->runs = 0;
}
