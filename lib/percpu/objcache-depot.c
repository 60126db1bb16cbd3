/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-depot.c: the magazines no CPU index holds, and where they are traded. */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lock.h"
#include "objcache-depot.h"
#include "wing.h"

/*
 * Both stacks change by one store each (a magazine's link is written
 * before the head that makes it reachable; a pop reads the link, then
 * stores the head): a fork child, whose threads but one vanished inside
 * the lock, finds them whole, short of the magazine a vanished thread was
 * moving. Magazines are cut from chunks mapped as needed, CHUNK_MAGAZINES
 * (or 64 KiB) at a time, the first magazine's room of each the link of the
 * chunks; nothing is unmapped before release.
 */
#define CHUNK_MAGAZINES 16
#define CHUNK_BYTES_MIN (64 * 1024)
#define WORD sizeof(void *)

static uintptr_t *link_of(uintptr_t base, uintptr_t mask)
{
	return (uintptr_t *)(base + mask + 1 - WORD);
}

void fastcpu_depot_init(struct fastcpu_depot *depot, uintptr_t mask)
{
	memset(depot, 0, sizeof(*depot));
	depot->mask = mask;
	depot->chunk_bytes = CHUNK_MAGAZINES * (mask + 1);
	if (depot->chunk_bytes < CHUNK_BYTES_MIN)
		depot->chunk_bytes = CHUNK_BYTES_MIN;
}

/* A new empty magazine, or 0 without memory. Under the lock. */
static uintptr_t cut(struct fastcpu_depot *depot)
{
	size_t bytes = depot->mask + 1;
	uintptr_t base;

	if (depot->chunk == NULL || depot->chunk_used + bytes > depot->chunk_bytes) {
		int saved = errno;
		void *m = mmap(NULL, depot->chunk_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		errno = saved;
		if (m == MAP_FAILED)
			return 0;
		*(void **)m = depot->chunks;
		depot->chunks = m;
		depot->chunk = m;
		depot->chunk_used = bytes;
	}
	base = (uintptr_t)depot->chunk + depot->chunk_used;
	depot->chunk_used += bytes;
	return base;
}

/* An empty magazine: the stack's first, or a new one; 0 without memory.
 * Under the lock. */
static uintptr_t pop_empty(struct fastcpu_depot *depot)
{
	uintptr_t base = depot->empty;

	if (base == 0)
		return cut(depot);
	depot->empty = *link_of(base, depot->mask);
	return base;
}

static void push(struct fastcpu_depot *depot, uintptr_t top)
{
	uintptr_t base = fastcpu_magazine_base(top, depot->mask);
	uintptr_t *head = top != base ? &depot->full : &depot->empty;

	*link_of(base, depot->mask) = *head;
	__atomic_store_n(head, top, __ATOMIC_RELAXED);
}

/* The objects the overflow holds, gathered into a magazine (its top), or
 * 0. Under the lock. */
static uintptr_t gather_overflow(struct fastcpu_depot *depot)
{
	size_t room = fastcpu_magazine_capacity(depot->mask);
	uintptr_t base = 0, top = 0;

	for (size_t i = 0; i < FASTCPU_DEPOT_OVERFLOW && top - base < room * WORD; i++) {
		void *object;

		if (__atomic_load_n(&depot->overflow[i], __ATOMIC_RELAXED) == NULL)
			continue;
		if (base == 0 && (top = base = pop_empty(depot)) == 0)
			return 0;
		object = __atomic_exchange_n(&depot->overflow[i], NULL, __ATOMIC_ACQUIRE);
		if (object != NULL) {
			__atomic_fetch_sub(&depot->overflowed, 1, __ATOMIC_RELAXED);
			*(void **)top = object;
			top += WORD;
		}
	}
	if (base != 0 && top == base) {
		push(depot, base);
		return 0;
	}
	return top;
}

/*
 * The depot given back, what signal handlers left in the overflow while
 * the calling thread held it (they interrupted it there) first taken in:
 * else, under a storm of them, the overflow would stay full and a free
 * there would find no slot (it lost the object: ENOMEM).
 */
static void give(struct fastcpu_depot *depot)
{
	uintptr_t top = __atomic_exchange_n(&depot->returned, 0, __ATOMIC_ACQUIRE), next;

	for (; top != 0; top = next) {
		next = *link_of(fastcpu_magazine_base(top, depot->mask), depot->mask);
		push(depot, top);
	}
	while (__atomic_load_n(&depot->overflowed, __ATOMIC_RELAXED) != 0 &&
	       (top = gather_overflow(depot)) != 0)
		push(depot, top);
	fastcpu_lock_give(&depot->lock, FASTCPU_LOCK_INNER);
}

bool fastcpu_depot_take(struct fastcpu_depot *depot, bool full, uintptr_t *top)
{
	uintptr_t got;

	if (!fastcpu_lock_take(&depot->lock, FASTCPU_LOCK_INNER))
		return false;
	if (!full) {
		got = pop_empty(depot);
	} else if ((got = depot->full) != 0) {
		__atomic_store_n(&depot->full,
				 *link_of(fastcpu_magazine_base(got, depot->mask), depot->mask),
				 __ATOMIC_RELAXED);
	} else {
		got = gather_overflow(depot);
	}
	give(depot);
	*top = got;
	return true;
}

void fastcpu_depot_give(struct fastcpu_depot *depot, uintptr_t top)
{
	uintptr_t *link = link_of(fastcpu_magazine_base(top, depot->mask), depot->mask);
	uintptr_t head;

	if (fastcpu_lock_take(&depot->lock, FASTCPU_LOCK_INNER)) {
		push(depot, top);
		give(depot);
		return;
	}
	head = __atomic_load_n(&depot->returned, __ATOMIC_RELAXED);
	do
		*link = head;
	while (!__atomic_compare_exchange_n(&depot->returned, &head, top, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

void *fastcpu_depot_take_one(struct fastcpu_depot *depot)
{
	uintptr_t top, base;
	void *object = NULL;

	if (!fastcpu_lock_take(&depot->lock, FASTCPU_LOCK_INNER))
		return NULL;
	top = depot->full;
	if (top != 0) {
		base = fastcpu_magazine_base(top, depot->mask);
		object = ((void **)top)[-1];
		top -= WORD;
		if (top != base) {
			__atomic_store_n(&depot->full, top, __ATOMIC_RELAXED);
		} else {
			__atomic_store_n(&depot->full, *link_of(base, depot->mask),
					 __ATOMIC_RELAXED);
			push(depot, base);
		}
	}
	give(depot);
	return object;
}

/* Where the calling thread holds the depot: into a slot of the overflow. */
static bool overflow(struct fastcpu_depot *depot, void *object)
{
	for (size_t i = 0; i < FASTCPU_DEPOT_OVERFLOW; i++) {
		void *none = NULL;

		if (__atomic_compare_exchange_n(&depot->overflow[i], &none, object, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&depot->overflowed, 1, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

bool fastcpu_depot_give_one(struct fastcpu_depot *depot, void *object)
{
	uintptr_t top;
	bool kept = true;

	if (!fastcpu_lock_take(&depot->lock, FASTCPU_LOCK_INNER))
		return overflow(depot, object);
	top = depot->full;
	if (top != 0 && ((top + WORD) & depot->mask) != 0) {
		*(void **)top = object;
		__atomic_store_n(&depot->full, top + WORD, __ATOMIC_RELAXED);
	} else if ((top = pop_empty(depot)) != 0) {
		*(void **)top = object;
		push(depot, top + WORD);
	} else {
		kept = false;
	}
	give(depot);
	return kept;
}

void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *object, void *arg),
			void *arg, size_t *magazines, size_t *with_objects)
{
	*magazines = *with_objects = 0;
	for (uintptr_t top = depot->full; top != 0;) {
		uintptr_t base = fastcpu_magazine_base(top, depot->mask);

		for (void **o = (void **)base; (uintptr_t)o < top; o++)
			fn(*o, arg);
		++*magazines;
		++*with_objects;
		top = *link_of(base, depot->mask);
	}
	for (uintptr_t base = depot->empty; base != 0; base = *link_of(base, depot->mask))
		++*magazines;
	for (uintptr_t top = depot->returned; top != 0;) {
		uintptr_t base = fastcpu_magazine_base(top, depot->mask);

		for (void **o = (void **)base; (uintptr_t)o < top; o++)
			fn(*o, arg);
		++*magazines;
		*with_objects += top != base;
		top = *link_of(base, depot->mask);
	}
	for (size_t i = 0; i < FASTCPU_DEPOT_OVERFLOW; i++)
		if (depot->overflow[i] != NULL)
			fn(depot->overflow[i], arg);
}

void fastcpu_depot_release(struct fastcpu_depot *depot)
{
	while (depot->chunks != NULL) {
		void *next = *(void **)depot->chunks;

		munmap(depot->chunks, depot->chunk_bytes);
		depot->chunks = next;
	}
	depot->chunk = NULL;
	depot->full = depot->empty = depot->returned = 0;
}
