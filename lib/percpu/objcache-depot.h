/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-depot.h: the magazines no CPU index holds, and where they are traded. */

#ifndef FASTCPU_PERCPU_OBJCACHE_DEPOT_H
#define FASTCPU_PERCPU_OBJCACHE_DEPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "magazine.h"
#include "objcache-space.h"

/*
 * The magazines (magazine.h) no CPU index holds.
 *
 * A CPU index holds one magazine at a time (its top in per-CPU memory,
 * objcache.c); the depot holds the others in two stacks, of magazines with
 * objects and of empty ones. Nothing holds the depot: each stack is one
 * word that a compare-and-swap changes (Treiber's stack), the first
 * magazine's number with a tag every change raises, so a head read before
 * other pops and pushes never passes for the same one. A signal handler
 * that interrupts its own thread inside a trade trades too, a fork child
 * finds both stacks whole (less what vanished threads had taken).
 *
 * The room: each run of fresh objects goes into a magazine the depot made
 * for it, on the allocating side (which may say ENOMEM), beside a reserve
 * made once, an empty magazine for every CPU index and for trades in
 * flight. So the magazines can always hold every object carved, and a free
 * finds an empty one without making one.
 */
#define FASTCPU_DEPOT_PAGES 1024	/* of chunk addresses: 32 GiB of magazines */
#define FASTCPU_DEPOT_IN_FLIGHT 16	/* trades the reserve covers at once */

struct fastcpu_depot {
	uint64_t full, empty;		/* tag << 32 | first magazine's number + 1, or 0 */
	uint64_t made;			/* magazines that exist: numbers below this */
	uint64_t cut;			/* of them, ever taken out (the rest: empty) */
	uint64_t runs;			/* runs of fresh objects given a magazine */
	uint64_t reserve;		/* empty magazines made beside the runs' */
	uintptr_t mask;
	unsigned int per_chunk_log;	/* log2 of a chunk's magazines */
	uintptr_t pages[FASTCPU_DEPOT_PAGES];	/* each, where a page of chunks' addresses is */
};

/* reserve: the CPU indexes there are (each may hold a magazine). */
void fastcpu_depot_init(struct fastcpu_depot *depot, uintptr_t mask, size_t reserve);
/* A magazine with objects (its top): one of the depot's, else one of
 * fresh objects carved from space; 0 where neither is (no memory). */
uintptr_t fastcpu_depot_take_full(struct fastcpu_depot *depot, struct fastcpu_space *space);
/* An empty magazine (its base) for a free: never 0 (objcache-depot.c:
 * where it could wait). */
uintptr_t fastcpu_depot_take_empty(struct fastcpu_depot *depot);
/* A magazine back (its top: with objects or empty), always kept. */
void fastcpu_depot_give(struct fastcpu_depot *depot, uintptr_t top);
/* One object from a magazine of the depot's or fresh (NULL where neither
 * is), one to it: for a signal handler whose thread holds its index. */
void *fastcpu_depot_take_one(struct fastcpu_depot *depot, struct fastcpu_space *space);
void fastcpu_depot_give_one(struct fastcpu_depot *depot, void *object);
/* Calls fn for each object the depot holds (the cache quiet: a census);
 * and how many magazines it has, and with objects. */
void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *object, void *arg),
			void *arg, size_t *magazines, size_t *with_objects);
void fastcpu_depot_release(struct fastcpu_depot *depot);

#endif /* FASTCPU_PERCPU_OBJCACHE_DEPOT_H */
