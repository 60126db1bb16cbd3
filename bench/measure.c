/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.c: interleaved runs, best and median, baseline removed. */

#include <linux/perf_event.h>
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

static void best_and_median(double *v, int n, double *best, double *median)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	*best = v[0];
	*median = v[n / 2];
}

/* After best_and_median() sorted v. */
static void quartiles(const double *v, int n, double *q1, double *q3)
{
	*q1 = v[n / 4];
	*q3 = v[(3 * n) / 4];
}

void bench_measure(struct bench_result *cases, int n,
		   const struct bench_config *cfg)
{
	int runs = cfg->runs;
	double *ns = calloc((size_t)(n * runs), sizeof(double));
	double *cy = calloc((size_t)(n * runs), sizeof(double));
	bool cycles = bench_have_cycles();

	if (ns == NULL || cy == NULL)
		abort();
	for (int i = 0; i < n; i++)	/* warm caches, predictors, lazy binding */
		cases[i].loop(cfg->iters);
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < n; k++) {
			int i = (r + k) % n;
			double c0 = cycles ? cycles_now() : 0;
			double t0 = bench_now_ns();

			cases[i].loop(cfg->iters);
			ns[i * runs + r] = bench_now_ns() - t0;
			cy[i * runs + r] = cycles ? cycles_now() - c0 : 0;
		}
	}
	for (int i = 0; i < n; i++) {
		struct bench_result *c = &cases[i];

		best_and_median(ns + i * runs, runs, &c->best_ns, &c->median_ns);
		quartiles(ns + i * runs, runs, &c->q1_ns, &c->q3_ns);
		c->q1_ns /= (double)cfg->iters;
		c->q3_ns /= (double)cfg->iters;
		best_and_median(cy + i * runs, runs, &c->best_cycles,
				&c->median_cycles);
		c->best_ns /= (double)cfg->iters;
		c->median_ns /= (double)cfg->iters;
		c->best_cycles = cycles ? c->best_cycles / (double)cfg->iters : -1;
		c->median_cycles = cycles ? c->median_cycles / (double)cfg->iters : -1;
	}
	for (int i = 1; i < n; i++) {
		cases[i].best_ns -= cases[0].best_ns;
		cases[i].median_ns -= cases[0].median_ns;
		cases[i].q1_ns -= cases[0].median_ns;
		cases[i].q3_ns -= cases[0].median_ns;
		if (cycles) {
			cases[i].best_cycles -= cases[0].best_cycles;
			cases[i].median_cycles -= cases[0].median_cycles;
		}
	}
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
	best_and_median(empty, shots, &eb, &em);
	best_and_median(full, shots, &r->best_ns, &r->median_ns);
	quartiles(full, shots, &r->q1_ns, &r->q3_ns);
	r->best_ns = (r->best_ns - eb) * scale;
	r->median_ns = (r->median_ns - em) * scale;
	r->q1_ns = (r->q1_ns - em) * scale;
	r->q3_ns = (r->q3_ns - em) * scale;
	r->best_cycles = r->median_cycles = -1;
	free(full);
	free(empty);
}

double bench_ticks(void)
{
	return ticks();
}

double bench_ns_per_tick(void)
{
	return ns_per_tick();
}
