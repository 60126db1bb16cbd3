/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.h: seed 001's counter-increment table. */

#ifndef FASTCPU_BENCH_COUNTERS_H
#define FASTCPU_BENCH_COUNTERS_H

enum counter_kind {
	COUNTER_PERCPU_FASTCPU,	/* shard indexed by fastcpu_current_cpu() */
	COUNTER_PERCPU_GLIBC,	/* shard indexed by glibc's sched_getcpu() */
	COUNTER_PERCID_FASTCPU,	/* shard indexed by fastcpu_current_cid() */
	COUNTER_ATOMIC_ADD,	/* one global atomic add */
	COUNTER_CAS_LOOP,	/* one global compare-and-swap loop */
	COUNTER_MUTEX,		/* one global pthread mutex */
	COUNTER_KINDS
};

extern const char *const counter_names[COUNTER_KINDS];

/* ns per increment seen by each of nthreads threads doing increments at
 * once; aborts if the counter's total is wrong. */
double counter_ns_per_increment(enum counter_kind kind, int nthreads,
				unsigned long increments);

/* Zeroes the shards; after a run, how many were used, the highest index
 * used, and the bytes from the first shard to the end of that one. */
void counter_reset(void);
int counter_shards_used(int *highest, unsigned long *bytes);

#endif /* FASTCPU_BENCH_COUNTERS_H */
