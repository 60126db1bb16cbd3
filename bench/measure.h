/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.h: timing side by side, the way the seed documents did. */

#ifndef FASTCPU_BENCH_MEASURE_H
#define FASTCPU_BENCH_MEASURE_H

#include <stdbool.h>
#include <time.h>

#include "rows.h"

/* Keeps a value alive without costing an instruction. */
#define KEEP(x) __asm__ volatile("" : : "r"(x))

/*
 * Every loop does four operations an iteration, the empty one included: the
 * inline reads cost well under a cycle, and one to an iteration would time
 * the loop rather than the read. A block of its own: a loop's whole body.
 */
#define FOUR(...) { __VA_ARGS__; __VA_ARGS__; __VA_ARGS__; __VA_ARGS__; }

/* Runs an operation iters times; returns what the compiler must compute. */
typedef unsigned long (*bench_loop_fn)(unsigned long iters);

/* A case to time: its row's key and name, and its loop (NULL: not here). */
struct bench_case {
	const char *key, *name;
	bench_loop_fn loop;
};

struct bench_config {
	int runs;		/* runs per case (seeds: 1000) */
	unsigned long iters;	/* operations per run */
};

/*
 * Measures cases[1..n-1] against cases[0], the empty loop: every run goes
 * round all cases in turn, from a different one each time, so that a
 * shared machine's noise falls on all alike. Adds a row of table for each
 * case with a loop: ns an operation, best, median and quartiles, less the
 * empty loop's (cases[0] keeps its own).
 */
void bench_measure(const struct bench_case *cases, int n, const struct bench_config *cfg,
		   struct rows *out, const char *table);

/* Sorts v (n values): its least, and its median. */
void bench_best_and_median(double *v, int n, double *best, double *median);

/* Single shots of fn (seed 000's way) less shots of nothing, in turn,
 * prepare (NULL: none) before each, untimed: for what cannot be looped, a
 * cache miss, or (fresh) a thread's first call, each shot in a new thread. */
void bench_measure_once(struct row *r, void (*prepare)(void), void (*fn)(void), int shots,
			bool fresh);

/* work(arg) in threads threads started together (ready, where not NULL,
 * before the barrier): the mean of what they returned. */
double bench_in_threads(int threads, void (*ready)(void), double (*work)(void *arg), void *arg);

/* A clock's ns, written once and inline where it times: the monotonic
 * clock, and the calling thread's CPU time (a thread waiting for a CPU
 * costs nothing). */
static inline double bench_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
#define bench_now_ns() bench_clock_ns(CLOCK_MONOTONIC)
#define bench_thread_cpu_ns() bench_clock_ns(CLOCK_THREAD_CPUTIME_ID)

#endif /* FASTCPU_BENCH_MEASURE_H */
