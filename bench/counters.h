/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.h: seed 001's counter-increment table. */

#ifndef FASTCPU_BENCH_COUNTERS_H
#define FASTCPU_BENCH_COUNTERS_H

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

/* Makes the library's counter and the per-CPU locks (after the calling
 * thread's first call, in the process as configured). */
void counters_init(void);

/* One thread's increments of a kind, for bench_measure(). */
extern const bench_loop_fn counter_measure_loops[COUNTER_KINDS];

/* Table 4, rows of table "counters": one thread pinned (threads 0), then
 * threads free to migrate, 1 to 2x CPUs, the CPU time of each, median of
 * the rounds; Table 6 (rows of "restricted"); their aims. */
void counters_measure(struct rows *out);

#endif /* FASTCPU_BENCH_COUNTERS_H */
