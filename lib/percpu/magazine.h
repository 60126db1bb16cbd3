/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/magazine.h: the magazine: an array of free objects' pointers, and its steps. */

#ifndef FASTCPU_PERCPU_MAGAZINE_H
#define FASTCPU_PERCPU_MAGAZINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A magazine is an array of object pointers, mask + 1 bytes (a power of
 * two, at most FASTCPU_MAGAZINE_MOST) aligned to that, filled from its
 * first word up; its top is the address just past its last pointer (its
 * base where it is empty), and 0 stands for no magazine. Its last word is
 * never a pointer of it: the depot keeps there the magazine's number and,
 * while it is in a stack, its link and its count (objcache-depot.c).
 *
 * Its steps take the top under it and lower it, or store at the top and
 * raise it. Here in C, for a holder that owns the top (the upper half's
 * index under its lock, a magazine out of every index); as sequences on a
 * CPU index's top, the same steps in each architecture's assembly beneath
 * (<fastcpu/rseq.h>: fastcpu_rseq_magazine_pop_ and _push_, which
 * <fastcpu/objcache.h> runs inline in a program's code too).
 */
#define FASTCPU_MAGAZINE_MOST 4096	/* bytes: 511 pointers of 8 */

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

/* Nothing to take: an empty magazine, or none. */
static inline bool fastcpu_magazine_empty(uintptr_t top, uintptr_t mask)
{
	return (top & mask) == 0;
}

/* No room to give: a full magazine, or none. */
static inline bool fastcpu_magazine_full(uintptr_t top, uintptr_t mask)
{
	return top == 0 || ((top + sizeof(void *)) & mask) == 0;
}

/* The steps in C, on a top the caller owns (not empty; not full). */
static inline void *fastcpu_magazine_pop(uintptr_t *top)
{
	*top -= sizeof(void *);
	return *(void **)*top;
}

static inline void fastcpu_magazine_push(uintptr_t *top, void *object)
{
	*(void **)*top = object;
	*top += sizeof(void *);
}

#endif /* FASTCPU_PERCPU_MAGAZINE_H */
