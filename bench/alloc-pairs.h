/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/alloc-pairs.h: an object's allocation and free, the object cache's and malloc's. */

#ifndef FASTCPU_BENCH_ALLOC_PAIRS_H
#define FASTCPU_BENCH_ALLOC_PAIRS_H

#include "measure.h"

/* The size both take: the object cache's aims are stated at it. */
#define ALLOC_PAIR_BYTES 64

/* Makes the object cache (in the process as configured, after the calling
 * thread's first call); false where it cannot. */
bool alloc_pairs_init(void);

/* One allocation and its free a step, for bench_measure(): by the object
 * cache, inline where the thread runs its sequences, and by malloc. */
unsigned long alloc_pair_objcache(unsigned long n);
unsigned long alloc_pair_malloc(unsigned long n);

#endif /* FASTCPU_BENCH_ALLOC_PAIRS_H */
