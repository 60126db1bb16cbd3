/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/objcache.h: what the object cache keeps its free objects in. */

#ifndef FASTCPU_PERCPU_OBJCACHE_H
#define FASTCPU_PERCPU_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A free object's first two words: the next object of its chain (word 0)
 * and the chain's depth from it (word 1: 1 for the last), the layout
 * fastcpu_rseq_push_bounded_ keeps; except the first object of a batch in
 * the depot, whose word 1 links the next batch. The sequences touch them
 * in assembly, which AddressSanitizer does not see; C touches them only
 * through these, which it does not check either: a free object stays
 * poisoned, all of it, where ASan is on.
 */
#if defined(__SANITIZE_ADDRESS__)
# define FASTCPU_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define FASTCPU_ASAN 1
# endif
#endif
#ifdef FASTCPU_ASAN
# include <sanitizer/asan_interface.h>
# define FASTCPU_UNCHECKED __attribute__((no_sanitize_address))
#else
# define FASTCPU_UNCHECKED
#endif

static inline FASTCPU_UNCHECKED intptr_t fastcpu_word(const void *object, int i)
{
	return __atomic_load_n((const intptr_t *)object + i, __ATOMIC_RELAXED);
}

static inline FASTCPU_UNCHECKED void fastcpu_set_word(void *object, int i, intptr_t value)
{
	__atomic_store_n((intptr_t *)object + i, value, __ATOMIC_RELAXED);
}

/* The depth word 1 of object should hold: one more than its next's. */
static inline intptr_t fastcpu_depth_below(const void *next)
{
	return next != NULL ? fastcpu_word(next, 1) + 1 : 1;
}

/*
 * The depot (objcache-depot.c): the batches the CPUs' lists give up when
 * full and take when empty, a stack of chains. A push is one
 * compare-and-swap; pops take turns (so that no pop sees a batch another
 * took and gave back meanwhile), and a pop that finds the turn taken
 * returns NULL at once where its own thread holds it (a signal handler),
 * after a short wait otherwise. Async-signal-safe; a fork child finds the
 * turn free unless its own thread held it.
 */
struct fastcpu_depot {
	void *top;
	unsigned long turn;	/* 0, or the process image it was taken in */
};

void fastcpu_depot_init(struct fastcpu_depot *depot);
/* Pushes the chain at first, whose depths are whole. */
void fastcpu_depot_push(struct fastcpu_depot *depot, void *first);
/* A chain, depths whole, or NULL. */
void *fastcpu_depot_pop(struct fastcpu_depot *depot);
/* Calls fn for each batch's first object (the cache quiet: a census). */
void fastcpu_depot_walk(const struct fastcpu_depot *depot, void (*fn)(void *first, void *arg),
			void *arg);

/*
 * The space fresh objects are carved from (objcache-space.c): regions of
 * address space, each twice the last, reserved as needed and backed where
 * touched, given out in runs of objects from the newest one's unused end
 * (one compare-and-swap). It tells cheaply whether a pointer is an object
 * it gave. Async-signal-safe but init and release.
 */
#define FASTCPU_SPACE_REGIONS 40

struct fastcpu_space {
	size_t size;			/* an object's bytes, aligned */
	size_t first_bytes;		/* region k has first_bytes << k */
	struct fastcpu_region {
		char *base;		/* NULL until reserved */
		size_t used;		/* bytes given out, from base */
	} regions[FASTCPU_SPACE_REGIONS];
	/* size = odd << shift: off is a multiple of it where its low shift
	 * bits are 0 and (off >> shift) * inverse <= most (inverse: odd's
	 * inverse modulo 2^64). */
	unsigned int shift;
	uint64_t inverse, most;
};

void fastcpu_space_init(struct fastcpu_space *space, size_t size);
/* Up to want objects in a run: the first, their number in *got; NULL
 * (errno ENOMEM) where no address space is left. */
void *fastcpu_space_carve(struct fastcpu_space *space, unsigned int want, unsigned int *got);
/* Whether p is an object the space gave: on every free, so in line. */
static inline bool fastcpu_space_holds(const struct fastcpu_space *space, const void *p)
{
	for (unsigned int k = 0; k < FASTCPU_SPACE_REGIONS; k++) {
		const struct fastcpu_region *r = &space->regions[k];
		const char *base = __atomic_load_n(&r->base, __ATOMIC_ACQUIRE);
		uint64_t off;

		if (base == NULL)
			return false;
		off = (uint64_t)((uintptr_t)p - (uintptr_t)base);
		if (off < __atomic_load_n(&r->used, __ATOMIC_RELAXED))
			return (off & (((uint64_t)1 << space->shift) - 1)) == 0 &&
			       (off >> space->shift) * space->inverse <= space->most;
	}
	return false;
}
/* Its number among every object it gave, for p it holds. */
size_t fastcpu_space_number(const struct fastcpu_space *space, const void *p);
size_t fastcpu_space_carved(const struct fastcpu_space *space);
size_t fastcpu_space_capacity(const struct fastcpu_space *space);
void fastcpu_space_release(struct fastcpu_space *space);

/* Sequences of the object cache the kernel aborted in this process. */
unsigned long fastcpu_objcache_aborts(void);

/* The cache (objcache.c), and what its census reads (objcache-census.c). */
struct fastcpu_objcache {
	void *heads;			/* per-CPU memory: copy i, list i's first object */
	intptr_t limit;			/* the objects a list holds at most */
	unsigned int batch;		/* the objects carved at once */
	size_t asked;			/* the bytes an object was asked to have */
	struct fastcpu_depot depot;
	struct fastcpu_space space;
};

#endif /* FASTCPU_PERCPU_OBJCACHE_H */
