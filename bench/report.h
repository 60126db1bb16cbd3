/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.h: the benchmark's tables, for people and for machines. */

#ifndef FASTCPU_BENCH_REPORT_H
#define FASTCPU_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "counters.h"
#include "latency.h"
#include "loops.h"
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

/* The tables, each keyed by its rows' ids: a row that did not run has no
 * loop (bench_ran()). */
struct report {
	struct report_machine machine;
	struct bench_result reading[WAYS];	/* table 1 */
	struct bench_result first_fastcpu, first_glibc;
	struct latency_table latency;		/* table 7: the answer waited on */
	struct bench_result loops[LOOP_CASES];	/* table 5: reading in a loop */
	int cid_limit;
	struct report_restricted restricted;
	struct setup_result setups[SETUP_COUNT];	/* table 10 */
	struct bench_result counter_one[COUNTER_KINDS];	/* table 4, one thread */
	int threads[REPORT_MAX_THREAD_COUNTS], thread_counts;
	/* table 4 with threads: CPU ns per increment, median and best of the
	 * rounds, the empty loop's subtracted; -1 where not run */
	double counter_ns[COUNTER_KINDS][REPORT_MAX_THREAD_COUNTS];
	double counter_best[COUNTER_KINDS][REPORT_MAX_THREAD_COUNTS];
	struct preempted_table preempted;	/* table 9 */
};

/* The writers: report-text.c, report-json-csv.c. */
void report_text(const struct report *r, FILE *out);
void report_json(const struct report *r, FILE *out);
void report_csv(const struct report *r, FILE *out);

/* a / b, their medians; -1 where either is missing or b's is not above 0. */
double report_ratio(const struct bench_result *a, const struct bench_result *b);

/* A row of the setup table that ran, or NULL; forced: only where it
 * bound the backend it forced. */
const struct setup_result *report_setup(const struct report *r, enum setup_id id);
const struct setup_result *report_forced(const struct report *r, enum setup_id id);

/* The setup table's cells: libfastcpu / glibc there (the system call on
 * setup_plain_is_syscall() rows), ratios of medians; -1 where not run.
 * Its aim: every cell at most SETUP_CELL_MOST. */
#define SETUP_CELL_MOST 1.05
enum setup_cell { CELL_SCHED, CELL_GETCPU, CELL_SCHED_ADD, CELL_GETCPU_ADD,
		  CELL_PERCPU_ADD, CELL_OBJCACHE, SETUP_CELLS };
extern const char *const setup_cell_names[SETUP_CELLS];
double report_setup_cell(const struct setup_result *s, enum setup_cell c);

/* Table 4's median with nthreads threads, or -1. */
double report_counter_at(const struct report *r, enum counter_kind k, int nthreads);

#endif /* FASTCPU_BENCH_REPORT_H */
