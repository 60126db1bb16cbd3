/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory.h: seed 004's allocator tables, in user space. */

#ifndef FASTCPU_BENCH_MEMORY_H
#define FASTCPU_BENCH_MEMORY_H

#include <stddef.h>

#include "rows.h"

/* Each allocator in processes of its own (a malloc preloaded, as its users
 * do), a round of every workload a process, the rounds taking turns. */
enum memory_allocator {
	MEMORY_GLIBC,		/* the system's malloc, nothing preloaded */
	MEMORY_JEMALLOC,
	MEMORY_MIMALLOC,
	MEMORY_TCMALLOC,
	MEMORY_OBJCACHE,	/* libfastcpu's object cache, a cache per size */
	MEMORY_LIST,		/* one global lock-free list per size */
	MEMORY_ALLOCATORS
};

/* Each allocator's key and name (its rows': key.*), the shared object to
 * preload (NULL: none; the first found of a list, ':' between), and a
 * symbol only it defines. */
extern const struct memory_allocator_of {
	const char *key, *name, *preload, *marker;
} memory_allocators[MEMORY_ALLOCATORS];

/* The seed's sizes, 8 to 4096 bytes; those whose bytes per object table
 * (c) shows; the thread counts of its "held" rows. */
#define MEMORY_SIZES 10
extern const size_t memory_sizes[MEMORY_SIZES];
#define MEMORY_FOOTPRINT_SIZES 5
extern const size_t memory_footprint_sizes[MEMORY_FOOTPRINT_SIZES];
#define MEMORY_HELD_THREADS 2
extern const int memory_held_threads[MEMORY_HELD_THREADS];

/* Table 8 (d): the object cache where the thread has no area of glibc's
 * (its own, a backend forced) against glibc's malloc there; then (e)
 * (#38, MEMORY_SPREAD on): the pair over fresh processes, with glibc's
 * area and the library's own, beside the better floor and glibc's pair. */
enum memory_setup {
	MEMORY_OWN_AREA, MEMORY_RDPID, MEMORY_VDSO, MEMORY_SYSCALL,
	MEMORY_SPREAD, MEMORY_SETUPS = MEMORY_SPREAD + 2	/* glibc's area, own */
};

/* Each a key and a name; its FASTCPU_BACKEND (NULL: none); the
 * fastcpu_backend_id() that must serve it, the cache aside (0: any rseq
 * area), else it does not run. */
extern const struct memory_setup_of {
	const char *key, *name, *backend;
	int backend_id;
} memory_setups[MEMORY_SETUPS];

/* The workloads of the allocators' processes (Tables 8 (a) to (c)) and
 * of 8 (d)'s and (e)'s (arg: which), each its rows prefixed by its key. */
void memory_allocator_workload(int allocator, struct rows *out);
void memory_setup_workload(int setup, struct rows *out);

/* Table 8 (c): the counters' footprint, in this process (rows of "8c"). */
void memory_counters_measure(struct rows *out);

#endif /* FASTCPU_BENCH_MEMORY_H */
