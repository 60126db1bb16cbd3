/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory.h: seed 004's allocator tables, in user space. */

#ifndef FASTCPU_BENCH_MEMORY_H
#define FASTCPU_BENCH_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Each allocator runs in a process of its own (a malloc is preloaded, as
 * its users preload it), one round of every workload a process; the
 * rounds go round the allocators in turn, so that a noisy moment of a
 * shared machine falls on all alike; the parent takes the median and best
 * of the rounds.
 */
enum memory_allocator {
	MEMORY_GLIBC,		/* the system's malloc, nothing preloaded */
	MEMORY_JEMALLOC,
	MEMORY_MIMALLOC,
	MEMORY_TCMALLOC,
	MEMORY_OBJCACHE,	/* libfastcpu's object cache, a cache per size */
	MEMORY_LIST,		/* one global lock-free list per size */
	MEMORY_ALLOCATORS
};

extern const char *const memory_allocator_names[MEMORY_ALLOCATORS];
extern const char *const memory_allocator_columns[MEMORY_ALLOCATORS];	/* short */
/* The shared object to preload (NULL: none; the first of a list separated
 * by ':' found), and a symbol only it defines. */
extern const char *const memory_preloads[MEMORY_ALLOCATORS];
extern const char *const memory_markers[MEMORY_ALLOCATORS];

/* The seed's sizes, 8 to 4096 bytes. */
#define MEMORY_SIZES 10
extern const size_t memory_sizes[MEMORY_SIZES];

/* Sizes whose bytes per object table (c) shows. */
#define MEMORY_FOOTPRINT_SIZES 5
extern const size_t memory_footprint_sizes[MEMORY_FOOTPRINT_SIZES];

/* Thread counts of the "held" workload: 2, and 1000 on the same CPUs. */
#define MEMORY_HELD_THREADS 2
extern const int memory_held_threads[MEMORY_HELD_THREADS];

/* One round of one allocator, in ns (CPU time) per operation; -1: not run. */
struct memory_round {
	double pair[MEMORY_SIZES];		/* (a) one thread, pinned */
	double pair_crowded[MEMORY_SIZES];	/* (a) 2x CPUs threads */
	double batch16;				/* 16 allocations, then 16 frees, 64 B */
	double many_alloc, many_free;		/* (b) 10000 allocations, then frees, 64 B */
	double cold;				/* (b) a cold set: per operation, 64 B */
	/* The object cache's process only (-1 elsewhere), 64 B, pinned: */
	double floor_list, floor_buffer;	/* librseq-shaped pop + push pairs */
	double pair_by_cpu;			/* the cache indexed by CPU number */
	double glibc_pair_here;			/* glibc's pair, in the same process */
	double bytes_per_object[MEMORY_FOOTPRINT_SIZES];
	double held_bytes[MEMORY_HELD_THREADS];	/* free, out of the main thread's reach */
};

/*
 * Table 8 (d): the object cache where the thread has no area of glibc's,
 * each setup a process of its own (its settings in its environment),
 * against glibc's malloc in that process: its own area, and each backend
 * forced (no sequences: the upper half).
 */
enum memory_setup { MEMORY_OWN_AREA, MEMORY_RDPID, MEMORY_VDSO, MEMORY_SYSCALL, MEMORY_SETUPS };

extern const char *const memory_setup_names[MEMORY_SETUPS];
/* What the setup's process has set: FASTCPU_BACKEND (NULL: none); and
 * the fastcpu_backend_id() that must serve it there, the cache aside (0:
 * any rseq area), else it does not run. */
extern const char *const memory_setup_backends[MEMORY_SETUPS];
extern const int memory_setup_backend_ids[MEMORY_SETUPS];

struct memory_setup_round {		/* ns per pair, 64 B, pinned; -1: not run */
	double objcache, glibc;
};

struct memory_settings {
	long pairs;		/* per thread and size */
	long cold;		/* the cold set's objects */
	int rounds;
	int crowd;		/* threads of the crowded column: 2x CPUs */
	int first_cpu;		/* where the one-thread rows run */
	int processes;		/* Table 8 (e)'s per setup: 20, 5 quick */
};

/* In a process started for one allocator (MEMORY_CHILD set in its
 * environment): one round of every workload, written to the parent; then
 * exits. Elsewhere returns. */
void memory_child_if_asked(const struct memory_settings *s);
/* The environment variables it reads: the allocator, or the setup (then
 * one struct memory_setup_round is written). */
#define MEMORY_CHILD "FASTCPU_MEMORY_BENCH_ALLOCATOR"
#define MEMORY_SETUP_CHILD "FASTCPU_MEMORY_BENCH_SETUP"
#define MEMORY_FD "FASTCPU_MEMORY_BENCH_FD"

/*
 * Table 8 (e) (#38): the pair's spread over processes. Each of many fresh
 * processes per setup times, one thread pinned, 64 bytes, loop
 * subtracted, the cache's pair beside what it is compared to: the better
 * of the floor sequences and glibc's pair, in that process; with glibc's
 * area, and with the library's own (glibc's rseq off).
 */
enum memory_spread { MEMORY_SPREAD_GLIBC, MEMORY_SPREAD_OWN, MEMORY_SPREADS };

extern const char *const memory_spread_names[MEMORY_SPREADS];
/* What fastcpu_backend_id() says in the setup's process (else it did not run). */
extern const int memory_spread_backend_ids[MEMORY_SPREADS];
#define MEMORY_SPREAD_CHILD "FASTCPU_MEMORY_BENCH_SPREAD"
/* The most processes a setup runs. */
#define MEMORY_SPREAD_MOST 1000

struct memory_spread_round {		/* ns per pair, 64 B, pinned; -1: not run */
	double objcache, floor, glibc;	/* floor: the better sequence's */
};

/* Over the processes that ran: best, median and worst of each. */
enum { SPREAD_BEST, SPREAD_MEDIAN, SPREAD_WORST, SPREAD_STATS };
struct memory_spread_stats {
	int processes;			/* that ran (0: none) */
	int slow;			/* their pairs over 1.30x the median */
	double pair[SPREAD_STATS];	/* ns */
	double to_floor[SPREAD_STATS];	/* pair / the floor, each process's */
	double to_glibc[SPREAD_STATS];	/* pair / glibc's, each process's */
};

/* The counters' footprint, measured in this process. */
struct memory_counters {
	int cid_limit;
	double old_bytes, new_bytes;		/* per counter, address space */
	double old_touched, new_touched;	/* per counter, where one thread adds */
	double old_sum_ns, new_sum_ns;		/* summing one */
	double old_add_ns, new_add_ns;		/* fastcpu_counter_add, median */
	double old_add_best, new_add_best;
	double million_new_s, million_add_s, million_sum_s, million_free_s;
	long million;				/* counters made (1,000,000 unless quick) */
	int million_threads;
	bool million_exact;
};

void memory_counters_measure(struct memory_counters *c, bool quick);

/* Everything, for the report. */
struct memory_report {
	struct memory_settings settings;
	bool present[MEMORY_ALLOCATORS];
	int rounds_done;
	/* per allocator: the median and the best of the rounds */
	struct memory_round median[MEMORY_ALLOCATORS], best[MEMORY_ALLOCATORS];
	bool setup_ran[MEMORY_SETUPS];
	struct memory_setup_round setup_median[MEMORY_SETUPS], setup_best[MEMORY_SETUPS];
	struct memory_spread_stats spread[MEMORY_SPREADS];
	struct memory_counters counters;
};

void memory_report_text(const struct memory_report *r, FILE *out);
void memory_report_csv(const struct memory_report *r, FILE *out);

#endif /* FASTCPU_BENCH_MEMORY_H */
