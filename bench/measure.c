/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.c: interleaved runs, best and median, baseline removed. */

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

#if defined(__x86_64__)	/* i686 has no LFENCE without SSE2 */
# include <x86intrin.h>
/* Single shots need a finer clock than clock_gettime, which may tick in
 * steps of 10 ns or more: the TSC, fenced, scaled by a calibration. */
static inline double ticks(void)
{
	unsigned long long t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return (double)t;
}

static double ns_per_tick(void)
{
	static double ratio;

	if (ratio == 0) {
		double n0 = bench_now_ns(), t0 = ticks(), n1, t1;

		do {
			n1 = bench_now_ns();
			t1 = ticks();
		} while (n1 - n0 < 20e6);
		ratio = (n1 - n0) / (t1 - t0);
	}
	return ratio;
}
#else
static inline double ticks(void)
{
	return bench_now_ns();
}

static double ns_per_tick(void)
{
	return 1.0;
}
#endif

static int cycles_fd = -2;	/* -2: not tried yet, -1: not exposed */

bool bench_have_cycles(void)
{
	if (cycles_fd == -2) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_HARDWARE;
		attr.size = sizeof(attr);
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		cycles_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (cycles_fd < 0)
			cycles_fd = -1;
	}
	return cycles_fd >= 0;
}

static double cycles_now(void)
{
	unsigned long long v = 0;

	if (cycles_fd >= 0 && read(cycles_fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return (double)v;
}

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_best_and_median(double *v, int n, double *best, double *median)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	*best = v[0];
	*median = v[n / 2];
}

/* After bench_best_and_median() sorted v. */
static void quartiles(const double *v, int n, double *q1, double *q3)
{
	*q1 = v[n / 4];
	*q3 = v[(3 * n) / 4];
}

/* Each run times every case once, from case (run mod n) on: ns and
 * cycles of case i's run r at [i * runs + r]. */
static void interleaved_runs(struct bench_result *cases, int n, const struct bench_config *cfg,
			     double *ns, double *cy)
{
	int runs = cfg->runs;
	bool cycles = bench_have_cycles();

	for (int r = 0; r < runs; r++)
		for (int k = 0; k < n; k++) {
			int i = (r + k) % n;
			double c0, t0;

			if (cases[i].loop == NULL)
				continue;
			c0 = cycles ? cycles_now() : 0;
			t0 = bench_now_ns();
			cases[i].loop(cfg->iters);
			ns[i * runs + r] = bench_now_ns() - t0;
			cy[i * runs + r] = cycles ? cycles_now() - c0 : 0;
		}
}

/* A case's best, median and quartiles per operation, from its runs. */
static void summarise(struct bench_result *c, double *ns, double *cy,
		      const struct bench_config *cfg)
{
	double iters = (double)cfg->iters;
	bool cycles = bench_have_cycles();

	bench_best_and_median(ns, cfg->runs, &c->best_ns, &c->median_ns);
	quartiles(ns, cfg->runs, &c->q1_ns, &c->q3_ns);
	bench_best_and_median(cy, cfg->runs, &c->best_cycles, &c->median_cycles);
	c->best_ns /= iters;
	c->median_ns /= iters;
	c->q1_ns /= iters;
	c->q3_ns /= iters;
	c->best_cycles = cycles ? c->best_cycles / iters : -1;
	c->median_cycles = cycles ? c->median_cycles / iters : -1;
}

/* The empty loop's cost taken off a case. */
static void subtract(struct bench_result *c, const struct bench_result *empty)
{
	c->best_ns -= empty->best_ns;
	c->median_ns -= empty->median_ns;
	c->q1_ns -= empty->median_ns;
	c->q3_ns -= empty->median_ns;
	if (c->best_cycles >= 0) {
		c->best_cycles -= empty->best_cycles;
		c->median_cycles -= empty->median_cycles;
	}
}

void bench_measure(struct bench_result *cases, int n,
		   const struct bench_config *cfg)
{
	int runs = cfg->runs;
	double *ns = calloc((size_t)(n * runs), sizeof(double));
	double *cy = calloc((size_t)(n * runs), sizeof(double));

	if (ns == NULL || cy == NULL)
		abort();
	for (int i = 0; i < n; i++)	/* warm caches, predictors, lazy binding */
		if (cases[i].loop != NULL)
			cases[i].loop(cfg->iters);
	interleaved_runs(cases, n, cfg, ns, cy);
	for (int i = 0; i < n; i++)
		if (cases[i].loop != NULL)
			summarise(&cases[i], ns + i * runs, cy + i * runs, cfg);
	for (int i = 1; i < n; i++)
		if (cases[i].loop != NULL)
			subtract(&cases[i], &cases[0]);
	free(ns);
	free(cy);
}

static void __attribute__((noinline)) nothing(void)
{
	__asm__ volatile("");
}

void bench_measure_once(struct bench_result *r, void (*prepare)(void),
			void (*fn)(void), int shots)
{
	double *full = calloc((size_t)shots, sizeof(double));
	double *empty = calloc((size_t)shots, sizeof(double));
	double scale = ns_per_tick(), eb, em;

	if (full == NULL || empty == NULL)
		abort();
	for (int s = 0; s < shots; s++) {
		double t0;

		if (prepare)
			prepare();
		t0 = ticks();
		nothing();
		empty[s] = ticks() - t0;
		if (prepare)
			prepare();
		t0 = ticks();
		fn();
		full[s] = ticks() - t0;
	}
	bench_best_and_median(empty, shots, &eb, &em);
	bench_best_and_median(full, shots, &r->best_ns, &r->median_ns);
	quartiles(full, shots, &r->q1_ns, &r->q3_ns);
	r->best_ns = (r->best_ns - eb) * scale;
	r->median_ns = (r->median_ns - em) * scale;
	r->q1_ns = (r->q1_ns - em) * scale;
	r->q3_ns = (r->q3_ns - em) * scale;
	r->best_cycles = r->median_cycles = -1;
	free(full);
	free(empty);
}

static void (*first_call_fn)(void);
static double first_call_ticks;

static void *first_call_thread(void *unused)
{
	double t0 = ticks();

	(void)unused;
	first_call_fn();
	first_call_ticks = ticks() - t0;
	return NULL;
}

/* fn's first call in each of threads new threads: best and median ns. */
static void first_calls(void (*fn)(void), int threads, double *best, double *median)
{
	double *v = calloc((size_t)threads, sizeof(double));

	if (v == NULL)
		abort();
	first_call_fn = fn;
	for (int i = 0; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, first_call_thread, NULL) != 0)
			abort();
		pthread_join(t, NULL);
		v[i] = first_call_ticks * ns_per_tick();
	}
	bench_best_and_median(v, threads, best, median);
	free(v);
}

void bench_measure_first_call(struct bench_result *r, void (*fn)(void), int threads)
{
	double empty_best, empty_median;

	first_calls(nothing, threads, &empty_best, &empty_median);
	first_calls(fn, threads, &r->best_ns, &r->median_ns);
	r->best_ns -= empty_best;
	r->median_ns -= empty_median;
	r->best_cycles = r->median_cycles = -1;
}

void bench_glibc_rseq_off(void)
{
	const char *was = getenv("GLIBC_TUNABLES");
	char tunables[1024];

	snprintf(tunables, sizeof(tunables), "%s%sglibc.pthread.rseq=0",
		 was ? was : "", was && *was ? ":" : "");
	setenv("GLIBC_TUNABLES", tunables, 1);
}
