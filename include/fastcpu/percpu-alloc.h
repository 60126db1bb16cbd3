/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/percpu-alloc.h: per-CPU memory (fastcpu_percpu_alloc(3)). */

#ifndef FASTCPU_PERCPU_ALLOC_H
#define FASTCPU_PERCPU_ALLOC_H

#include <stddef.h>

#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Per-CPU memory (FASTCPU_1.3): objects with fastcpu_cid_limit() copies,
 * each FASTCPU_PERCPU_STRIDE bytes after the one before, so that an object
 * is directly the base of the per-CPU operations (<fastcpu/percpu.h>) at
 * that stride, and fastcpu_percpu_ptr(p, i) is its copy i (the same type
 * as p). Objects of
 * 1 to FASTCPU_PERCPU_STRIDE bytes sit packed next to each other in every
 * copy, each aligned to the largest power of two dividing its size, up to
 * 64 (an 8-byte counter takes 8 bytes, not a cache line), in chunks of
 * address space reserved once and backed only where touched; freed space
 * is reused. Where the machine has more than one NUMA node, copy i's pages
 * prefer the node of CPU i, and copy n + i's (the upper half's, n CPUs)
 * too; copy i by concurrency id is used by whichever CPU the thread holding
 * id i runs on, so no node is its own. Thread-safe, not async-signal-safe
 * (the object cache is). A fork child gets a copy of every object.
 *
 * alloc and zalloc both return every copy zeroed, or NULL with errno EINVAL
 * (size 0 or above FASTCPU_PERCPU_STRIDE) or ENOMEM (no address space
 * left). free takes what they gave, or NULL; a pointer they did not give,
 * or an object freed twice (and not given out again since), sets errno
 * EINVAL and changes nothing.
 */
#define FASTCPU_PERCPU_STRIDE 65536

FASTCPU_VISIBLE void *fastcpu_percpu_alloc(size_t size);
FASTCPU_VISIBLE void *fastcpu_percpu_zalloc(size_t size);
FASTCPU_VISIBLE void fastcpu_percpu_free(void *p);

/* The distance between an object's copies, the same for every object. */
static inline size_t fastcpu_percpu_stride(void)
{
	return FASTCPU_PERCPU_STRIDE;
}

/* Copy index of the per-CPU object p, as p's type. */
#define fastcpu_percpu_ptr(p, index)					\
	((__typeof__(p))(void *)((char *)(p) + (size_t)(index) * FASTCPU_PERCPU_STRIDE))

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_PERCPU_ALLOC_H */
