/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.h: the benchmark's tables, for people and for machines. */

#ifndef FASTCPU_BENCH_REPORT_H
#define FASTCPU_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "counters.h"
#include "latency.h"
#include "measure.h"
#include "preempted.h"
#include "setups.h"

#define REPORT_MAX_THREAD_COUNTS 12

struct report_machine {
	char cpu_model[128], kernel[160], libc[64], backend[32];
	int glibc_rseq_size;	/* -1: glibc has no rseq support */
	int rseq_feature_size;	/* the kernel's AT_RSEQ_FEATURE_SIZE; 0 before 6.3 */
	bool rdpid, vdso_getcpu;	/* what the machine offers */
	int cpus, pinned_cpu, runs;
	unsigned long iters;
	bool cycles;
};

/* A sharded counter in a process restricted to some of the CPUs. */
struct report_restricted {
	char cpus[64];		/* the CPU list the process was given */
	int threads;
	struct report_sharding {
		const char *index;	/* "CPU number" or "concurrency id" */
		double ns;
		int used, highest;
		unsigned long bytes;
	} by[2];
};

struct report {
	struct report_machine machine;
	struct bench_result *reading;	/* table 1; [0] is the empty loop */
	int reading_count;
	struct bench_result first_fastcpu, first_glibc;
	const struct latency_table *latency;	/* table 7: the answer waited on */
	struct bench_result *loops;	/* reading in a loop; [0] empty loop */
	int loop_count;
	int cid_limit;
	struct report_restricted restricted;
	struct setup_result setups[SETUP_COUNT];	/* table 10; [i] setup i */
	struct bench_result *counter_one;	/* table 4, one thread; [0] empty */
	int counter_one_count;
	int threads[REPORT_MAX_THREAD_COUNTS], thread_counts;
	/* table 4 with threads: CPU ns per increment, median and best of the
	 * rounds, the empty loop's subtracted; -1 where not run */
	double counter_ns[COUNTER_KINDS][REPORT_MAX_THREAD_COUNTS];
	double counter_best[COUNTER_KINDS][REPORT_MAX_THREAD_COUNTS];
	struct preempted_table preempted;	/* table 9 */
};

void report_text(const struct report *r, FILE *out);
void report_json(const struct report *r, FILE *out);
void report_csv(const struct report *r, FILE *out);

#endif /* FASTCPU_BENCH_REPORT_H */
