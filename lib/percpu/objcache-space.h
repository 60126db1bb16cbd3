/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/objcache-space.h: the address space an object cache's objects are carved from. */

#ifndef FASTCPU_PERCPU_OBJCACHE_SPACE_H
#define FASTCPU_PERCPU_OBJCACHE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Objects are carved from ranges of address space, the first reserved when
 * the cache is made and every other when the last is used up and cannot
 * double in place: the first of 1 MiB (four magazines' objects at least),
 * each other as large as all before it together, up to
 * FASTCPU_SPACE_RANGE_BYTES (256 MiB in a 32-bit process), halved until a
 * reservation succeeds, down to one magazine's objects (objcache-space.c):
 * what is reserved stays within twice what is carved and one first range,
 * and ENOMEM means the address space is used up. In the first range a subtraction, a multiplication, a rotation and
 * a compare tell an object of the cache from any other pointer (the public
 * layout's low and carved, which the space keeps); in the others, the same
 * for each range, newest (largest) first. A range is reserved inaccessible
 * and made writable as it is carved, and an object counts as carved only
 * once writable: reserving costs no memory, a process under strict
 * overcommit or RLIMIT_DATA is charged only for what it carved, and where
 * the kernel refuses, nothing is carved and nothing more reserved.
 * Async-signal-safe but init and release.
 */
#define FASTCPU_SPACE_RANGES 64
#define FASTCPU_SPACE_RANGE_BYTES ((size_t)1 << 30)

struct fastcpu_space {
	size_t size;			/* an object's bytes: odd << shift */
	size_t least;			/* the smallest range worth reserving */
	unsigned int shift;
	uint64_t inverse, most;		/* odd's inverse modulo 2^64, UINT64_MAX / odd */
	uintptr_t *low, *carved;	/* the first range's base and objects carved,
					 * where the inline free reads them */
	unsigned int known;		/* ranges published, or fewer: a hint */
	struct fastcpu_range {
		/* Its base, page-aligned, with the log2 of its bytes in the
		 * low bits: one word that whoever reserves it first publishes;
		 * 0 until then. */
		uintptr_t reserved;
		size_t carved;		/* given out, from base: never past writable */
		size_t writable;	/* made writable, from base */
	} ranges[FASTCPU_SPACE_RANGES];
};

/* 0, or -1 (errno ENOMEM) where not even the least range can be reserved;
 * low and carved are where the first range's base and objects carved go. */
int fastcpu_space_init(struct fastcpu_space *space, size_t size, size_t least,
		       uintptr_t *low, uintptr_t *carved);
/* Up to want objects in a run (free: poisoned under ASan): the first,
 * their number in *got; NULL where no address space is left, or no memory
 * to make an object writable (errno kept: the object cache's entry points
 * say ENOMEM, and only where they fail). */
void *fastcpu_space_carve(struct fastcpu_space *space, unsigned int want, unsigned int *got);
/* Whether p is an object the space gave, in any range. */
bool fastcpu_space_holds(const struct fastcpu_space *space, const void *p);
/* Its number among every object the ranges can hold, for p it holds; and
 * their number. */
size_t fastcpu_space_number(const struct fastcpu_space *space, const void *p);
size_t fastcpu_space_capacity(const struct fastcpu_space *space);
size_t fastcpu_space_carved(const struct fastcpu_space *space);
void fastcpu_space_release(struct fastcpu_space *space);

#endif /* FASTCPU_PERCPU_OBJCACHE_SPACE_H */
