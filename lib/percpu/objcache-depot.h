/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-depot.h: the magazines no CPU index holds, and where they are traded. */

#ifndef FASTCPU_PERCPU_OBJCACHE_DEPOT_H
#define FASTCPU_PERCPU_OBJCACHE_DEPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A magazine is an array of object pointers, mask + 1 bytes (a power of
 * two) aligned to that, filled from its first word up; its top is the
 * address just past its last pointer (its base where it is empty). Its
 * last word is never a pointer of it: it holds capacity = its words - 1.
 * A CPU index holds one magazine at a time (its top in per-CPU memory,
 * objcache.c); the depot holds the others: a stack of magazines with
 * objects (their tops), linked through each one's last word, and a stack of
 * empty ones. A CPU whose magazine ran empty trades it for a full one, a
 * CPU whose magazine is full for an empty one: capacity objects moved by
 * two pointers, none of them read or written. Every change is made under
 * the depot's lock (lock.h), each a store that leaves both stacks whole.
 */
#define FASTCPU_DEPOT_OVERFLOW 64

struct fastcpu_depot {
	uint64_t lock;
	uintptr_t full;			/* the first magazine with objects: its top; or 0 */
	uintptr_t empty;		/* the first empty magazine, or 0 */
	uintptr_t mask;
	size_t chunk_bytes;		/* magazines are cut from chunks this large */
	char *chunk;			/* the chunk being cut, and how far */
	size_t chunk_used;
	void *chunks;			/* every chunk, linked through its first word */
	/* Objects freed where the freeing thread held the depot itself (a
	 * signal handler that interrupted it there): a slot each, taken by
	 * compare-and-swap, gathered into a magazine under the lock. */
	void *overflow[FASTCPU_DEPOT_OVERFLOW];
	unsigned int overflowed;	/* about how many: drained at each give */
	/* Magazines given back where the giver could not take the lock (a
	 * signal handler whose thread holds or is taking a depot may not wait
	 * for one: lock.h): their tops, linked as in the stacks, pushed by
	 * compare-and-swap, taken in all at once under the lock (so no ABA). */
	uintptr_t returned;
};

static inline uintptr_t fastcpu_magazine_base(uintptr_t top, uintptr_t mask)
{
	return top & ~mask;
}

static inline size_t fastcpu_magazine_count(uintptr_t top, uintptr_t mask)
{
	return (size_t)(top & mask) / sizeof(void *);
}

static inline size_t fastcpu_magazine_capacity(uintptr_t mask)
{
	return (size_t)(mask + 1) / sizeof(void *) - 1;
}

void fastcpu_depot_init(struct fastcpu_depot *depot, uintptr_t mask);
/*
 * A magazine from the depot: with objects where full (its top; 0 where
 * the depot has none), else an empty one (its base; 0 without memory).
 * false, with nothing taken, where the calling thread holds the depot (a
 * signal handler inside its own thread's trade).
 */
bool fastcpu_depot_take(struct fastcpu_depot *depot, bool full, uintptr_t *top);
/* A magazine back (its top: with objects or empty), always kept. */
void fastcpu_depot_give(struct fastcpu_depot *depot, uintptr_t top);
/* One object from the depot's first magazine (NULL where it has none, or
 * the calling thread holds it); one object to it (false where it has no
 * room: no memory for a magazine, the overflow full). */
void *fastcpu_depot_take_one(struct fastcpu_depot *depot);
bool fastcpu_depot_give_one(struct fastcpu_depot *depot, void *object);
/* Calls fn for each object the depot holds (the cache quiet: a census);
 * and how many magazines it has, and with objects. */
void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *object, void *arg),
			void *arg, size_t *magazines, size_t *with_objects);
void fastcpu_depot_release(struct fastcpu_depot *depot);

#endif /* FASTCPU_PERCPU_OBJCACHE_DEPOT_H */
