/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.h: seed 001's counter-increment table. */

#ifndef FASTCPU_BENCH_COUNTERS_H
#define FASTCPU_BENCH_COUNTERS_H

#include <stdbool.h>

#include "measure.h"

/* The seed's rows first, in its order, then the atomic adds on a shard
 * found by reading the CPU, then the reference. */
enum counter_kind {
	COUNTER_EMPTY,		/* the loop alone: subtracted from the rest */
	COUNTER_GLOBAL_PLAIN,	/* one global non-atomic increment: 1 thread */
	COUNTER_PERCPU_RSEQ,	/* fastcpu_counter_add() */
	COUNTER_PERCID_RSEQ,	/* fastcpu_percpu_add() by concurrency id */
	COUNTER_PERCPU_LOCK,	/* fastcpu_percpu_lock(), plain ++, unlock */
	COUNTER_ATOMIC_ADD,	/* one global atomic add */
	COUNTER_CAS_LOOP,	/* one global compare-and-swap loop */
	COUNTER_MUTEX,		/* one global pthread mutex */
	COUNTER_PERCPU_FASTCPU,	/* atomic add, shard of fastcpu_current_cpu() */
	COUNTER_PERCPU_GLIBC,	/* atomic add, shard of glibc's sched_getcpu() */
	COUNTER_PERCID_FASTCPU,	/* atomic add, shard of fastcpu_current_cid() */
	COUNTER_REFERENCE,	/* librseq-shaped per-CPU add (x86-64) */
	COUNTER_KINDS
};

/* Each kind's row name and its key for machines (struct bench_result). */
extern const char *const counter_names[COUNTER_KINDS];
extern const char *const counter_keys[COUNTER_KINDS];

/* Makes the library's counter and the per-CPU locks (after the calling
 * thread's first call, in the process as configured). */
void counters_init(void);

/* One thread's increments, for bench_measure(). */
extern const bench_loop_fn counter_measure_loops[COUNTER_KINDS];

/* Whether kind can run here with nthreads threads (the plain increment
 * loses counts with more than one; the reference needs an rseq area). */
bool counter_available(enum counter_kind kind, int nthreads);

/* The CPU time per increment of each of nthreads threads doing increments
 * at once; exits if the counter's total is wrong. */
double counter_ns_per_increment(enum counter_kind kind, int nthreads,
				unsigned long increments);

/* Zeroes the shards; after a run, how many were used, the highest index
 * used, and the bytes from the first shard to the end of that one. */
void counter_reset(void);
int counter_shards_used(int *highest, unsigned long *bytes);

#endif /* FASTCPU_BENCH_COUNTERS_H */
