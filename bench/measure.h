/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.h: timing side by side, the way the seed documents did. */

#ifndef FASTCPU_BENCH_MEASURE_H
#define FASTCPU_BENCH_MEASURE_H

#include <stdbool.h>

/* Keeps a value alive without costing an instruction. */
#define KEEP(x) __asm__ volatile("" : : "r"(x))

/*
 * Every loop does four operations an iteration, the empty one included: the
 * inline reads cost well under a cycle, and one to an iteration would time
 * the loop rather than the read. A block of its own: a loop's whole body.
 */
#define FOUR(...) { __VA_ARGS__; __VA_ARGS__; __VA_ARGS__; __VA_ARGS__; }

/* Runs an operation iters times; returns something derived from the
 * results so that the compiler must compute them. */
typedef unsigned long (*bench_loop_fn)(unsigned long iters);

/* One measured case: ns (and cycles, where the machine exposes them) per
 * operation, best and median, with the empty loop's cost subtracted; the
 * runs' first and third quartiles show the spread. A table of cases is
 * indexed by an id of its own; a case this machine lacks has no loop. */
struct bench_result {
	const char *name;
	const char *key;	/* for machines (CSV, JSON, plot.sh): [a-z0-9_], kept when name's words change */
	bench_loop_fn loop;
	double best_ns, median_ns;
	double q1_ns, q3_ns;
	double best_cycles, median_cycles;	/* < 0: not exposed */
};

struct bench_config {
	int runs;		/* runs per case (seeds: 1000) */
	unsigned long iters;	/* operations per run */
};

/* The case, or NULL where it has no loop (not measured here). */
static inline const struct bench_result *bench_ran(const struct bench_result *c)
{
	return c->loop != NULL ? c : NULL;
}

/*
 * Measures cases[1..n-1] against cases[0], the empty loop: every run goes
 * round all cases in turn (starting from a different one each time), so
 * that noise on a shared machine falls on all of them alike and their
 * ratios are fair. cases[0] keeps its raw cost; cases without a loop are
 * passed by.
 */
void bench_measure(struct bench_result *cases, int n,
		   const struct bench_config *cfg);

/* Sorts v (n values): its least, and its median. */
void bench_best_and_median(double *v, int n, double *best, double *median);

/* Single-shot timing of fn (seed 000's way), minus an empty single shot:
 * for what cannot be looped, such as a first call or a cache miss. prepare
 * runs untimed before each shot. */
void bench_measure_once(struct bench_result *r, void (*prepare)(void),
			void (*fn)(void), int shots);

/* Whether cycle counts are available (a hardware counter this process may
 * read); otherwise only ns are reported. */
bool bench_have_cycles(void);

/* A thread's first call of fn: single shots, each in a new thread,
 * minus the same timing around nothing in a new thread; cycles not
 * counted. */
void bench_measure_first_call(struct bench_result *r, void (*fn)(void), int threads);

double bench_now_ns(void);

/* GLIBC_TUNABLES with glibc's rseq registration off, the others kept: the
 * environment of a child measured without glibc's area. */
void bench_glibc_rseq_off(void);

#endif /* FASTCPU_BENCH_MEASURE_H */
