/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/runner.h: a benchmark program: its settings, its workloads in fresh processes, its report. */

#ifndef FASTCPU_BENCH_RUNNER_H
#define FASTCPU_BENCH_RUNNER_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>

#include "measure.h"
#include "report.h"
#include "rows.h"

/* What the options say, and what this process was given. */
struct bench_settings {
	bool quick;			/* --quick, or FASTCPU_BENCH_QUICK set: short steps */
	struct bench_config cfg;	/* --runs N: 1001 (51 quick) runs of 1000 */
	int rounds;			/* --rounds N: 7, the program's own when quick */
	int processes;			/* --processes N: 20 (5 quick) a setup */
	cpu_set_t allowed;		/* the CPUs this process was given */
	int cpus, first_cpu;
};
extern struct bench_settings bench;

/* A workload: what one process measures, as rows; arg: which of its kind. */
struct bench_workload {
	const char *name;
	void (*run)(int arg, struct rows *out);
};

/* A workload to run in fresh processes of this program; prepare (NULL:
 * none) makes its environment in each before it starts. */
struct bench_job {
	const char *workload;
	int arg;
	void (*prepare)(int arg);
};

/* Runs each of the n jobs in processes fresh processes, the jobs taking
 * turns (which first rotating: a noisy moment falls on all alike); folds
 * each job's rows over its processes that gave rows into out (one that
 * fails gives none). */
void bench_run_jobs(const struct bench_job *jobs, int n, int processes, struct rows *out);

/* A benchmark program: what its --help says after the options, its
 * workloads (by name, for its fresh processes), what it measures, in order
 * (init first, in every process; measure returns the exit status), its
 * tables for people and its aims (text: NULL, or what its report says
 * after them). */
struct bench_program {
	const char *name, *usage;
	int quick_rounds;
	const struct bench_workload *workloads;
	int nworkloads;
	void (*init)(void);
	int (*measure)(struct rows *out);
	const struct view *views;
	int nviews;
	const struct aim *aims;	/* made in every process (rows_aims()); init may set limits */
	int naims;
	void (*text)(const struct rows *r, FILE *out);
};

/* The program's main: options, a fresh process's workload or the run, the
 * report: text, --json or --csv; --csv-file too. */
int bench_main(int argc, char **argv, const struct bench_program *p);

/* Pins the calling thread to cpu (-1: back to all it was given). */
bool bench_pin(int cpu);

/* GLIBC_TUNABLES with glibc's rseq registration off, the others kept. */
void bench_glibc_rseq_off(void);

/* What the machine offers: the vDSO's getcpu (NULL: none), RDPID. */
void *bench_vdso_getcpu(void);
bool bench_have_rdpid(void);

#endif /* FASTCPU_BENCH_RUNNER_H */
