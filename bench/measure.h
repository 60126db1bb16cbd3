/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.h: timing side by side, the way the seed documents did. */

#ifndef FASTCPU_BENCH_MEASURE_H
#define FASTCPU_BENCH_MEASURE_H

#include <stdbool.h>

#include "rows.h"

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
 * round all cases in turn (starting from a different one each time), so
 * that noise on a shared machine falls on all of them alike and their
 * ratios are fair. Adds a row of table to out for each case with a loop,
 * ns per operation, best and median, the runs' quartiles as its spread,
 * the empty loop's cost subtracted (cases[0] keeps its own); and where the
 * machine exposes cycles, the same in table "cycles" as table.key.
 */
void bench_measure(const struct bench_case *cases, int n, const struct bench_config *cfg,
		   struct rows *out, const char *table);

/* Sorts v (n values): its least, and its median. */
void bench_best_and_median(double *v, int n, double *best, double *median);

/* Single-shot timing of fn (seed 000's way), minus an empty single shot:
 * for what cannot be looped, such as a cache miss. prepare runs untimed
 * before each shot. */
void bench_measure_once(struct row *r, void (*prepare)(void), void (*fn)(void), int shots);

/* A thread's first call of fn: single shots, each in a new thread,
 * minus the same timing around nothing in a new thread. */
void bench_measure_first_call(struct row *r, void (*fn)(void), int threads);

/* Whether cycle counts are available (a hardware counter this process may
 * read); otherwise only ns are reported. */
bool bench_have_cycles(void);

/* Runs work(arg) in threads threads started together (at a barrier, ready
 * run before it in each, where not NULL): the mean of what work returned
 * (each thread's own CPU time, say). */
double bench_in_threads(int threads, void (*ready)(void), double (*work)(void *arg), void *arg);

double bench_now_ns(void);
/* The calling thread's CPU time: a thread waiting for a CPU costs nothing. */
double bench_thread_cpu_ns(void);

#endif /* FASTCPU_BENCH_MEASURE_H */
