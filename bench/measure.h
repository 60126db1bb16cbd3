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
 * runs' first and third quartiles show the spread. */
struct bench_result {
	const char *name;
	bench_loop_fn loop;
	double best_ns, median_ns;
	double q1_ns, q3_ns;
	double best_cycles, median_cycles;	/* < 0: not exposed */
};

struct bench_config {
	int runs;		/* runs per case (seeds: 1000) */
	unsigned long iters;	/* operations per run */
};

/*
 * Measures cases[1..n-1] against cases[0], the empty loop: every run goes
 * round all cases in turn (starting from a different one each time), so
 * that noise on a shared machine falls on all of them alike and their
 * ratios are fair. cases[0] keeps its raw cost.
 */
void bench_measure(struct bench_result *cases, int n,
		   const struct bench_config *cfg);

/* Single-shot timing of fn (seed 000's way), minus an empty single shot:
 * for what cannot be looped, such as a first call or a cache miss. prepare
 * runs untimed before each shot. */
void bench_measure_once(struct bench_result *r, void (*prepare)(void),
			void (*fn)(void), int shots);

/* Whether cycle counts are available (a hardware counter this process may
 * read); otherwise only ns are reported. */
bool bench_have_cycles(void);

double bench_now_ns(void);
/* Single-shot timing of fn in fresh threads (for a thread's first call). */
double bench_ticks(void);
double bench_ns_per_tick(void);

#endif /* FASTCPU_BENCH_MEASURE_H */
