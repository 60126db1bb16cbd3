/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/memory.h: what per-CPU memory tells the wing beside its public API. */

#ifndef FASTCPU_PERCPU_MEMORY_H
#define FASTCPU_PERCPU_MEMORY_H

#include <stddef.h>

/*
 * A page offset, a multiple of 64, for 64 bytes that every operation
 * reads beside a per-CPU slot it stores to (an object cache's public
 * words beside its tops): half a page from the slot's offset, or the
 * nearest after it clear of every rseq area's fence. A load at the page
 * offset of a store in flight waits on it (4K aliasing, memory.c); on AMD
 * Zen the wait also depends on the two pages' physical addresses, so that
 * one process in eight paid it: 6.5 ns for the object cache's pair where
 * the others paid 2.7.
 */
size_t fastcpu_percpu_quiet_offset(const void *slot);

/* The wing's fork protocol (fork.c): the heap held across a fork. */
void fastcpu_percpu_memory_before_fork(void);
void fastcpu_percpu_memory_after_fork(void);

#endif /* FASTCPU_PERCPU_MEMORY_H */
