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

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

double bench_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void bench_best_and_median(double *v, int n, double *best, double *median)
{
	rows_sort(v, n);
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
static void interleaved_runs(const struct bench_case *cases, int n, const struct bench_config *cfg,
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

/* A case's best, median and quartiles per operation, from its runs (v),
 * less the empty loop's (empty; NULL: none): { best, median, q1, q3 }. */
static void summarise(double *v, const struct bench_config *cfg, const double *empty,
		      double s[4])
{
	bench_best_and_median(v, cfg->runs, &s[0], &s[1]);
	quartiles(v, cfg->runs, &s[2], &s[3]);
	for (int k = 0; k < 4; k++)
		s[k] = s[k] / (double)cfg->iters - (empty ? empty[k == 0 ? 0 : 1] : 0);
}

void bench_measure(const struct bench_case *cases, int n, const struct bench_config *cfg,
		   struct rows *out, const char *table)
{
	int runs = cfg->runs;
	double *ns = calloc((size_t)(n * runs), sizeof(double));
	double *cy = calloc((size_t)(n * runs), sizeof(double));
	double empty[4], empty_cy[4];
	char key[ROW_KEY];

	if (ns == NULL || cy == NULL)
		abort();
	for (int i = 0; i < n; i++)	/* warm caches, predictors, lazy binding */
		if (cases[i].loop != NULL)
			cases[i].loop(cfg->iters);
	interleaved_runs(cases, n, cfg, ns, cy);
	for (int i = 0; i < n; i++) {
		double s[4], c[4];
		struct row *r;

		if (cases[i].loop == NULL)
			continue;
		summarise(ns + i * runs, cfg, i ? empty : NULL, s);
		summarise(cy + i * runs, cfg, i ? empty_cy : NULL, c);
		if (i == 0) {
			memcpy(empty, s, sizeof(s));
			memcpy(empty_cy, c, sizeof(c));
		}
		r = rows_add(out, table, cases[i].key, cases[i].name, 0, UNIT_NS, s[0], s[1]);
		r->low = s[2];
		r->high = s[3];
		snprintf(key, sizeof(key), "%s.%s", table, cases[i].key);
		if (bench_have_cycles())
			rows_add(out, "cycles", key, cases[i].name, 0, UNIT_CYCLES, c[0], c[1]);
	}
	free(ns);
	free(cy);
}

static void __attribute__((noinline)) nothing(void)
{
	__asm__ volatile("");
}

void bench_measure_once(struct row *r, void (*prepare)(void), void (*fn)(void), int shots)
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
	bench_best_and_median(full, shots, &r->best, &r->median);
	quartiles(full, shots, &r->low, &r->high);
	r->best = (r->best - eb) * scale;
	r->median = (r->median - em) * scale;
	r->low = (r->low - em) * scale;
	r->high = (r->high - em) * scale;
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

struct member {
	pthread_barrier_t *start;
	void (*ready)(void);
	double (*work)(void *arg);
	void *arg;
	double result;
};

static void *member(void *arg)
{
	struct member *m = arg;

	if (m->ready)
		m->ready();
	pthread_barrier_wait(m->start);
	m->result = m->work(m->arg);
	return NULL;
}

double bench_in_threads(int threads, void (*ready)(void), double (*work)(void *arg), void *arg)
{
	struct member *m = calloc((size_t)threads, sizeof(*m));
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	pthread_barrier_t start;
	double sum = 0;

	if (m == NULL || t == NULL)
		abort();
	pthread_barrier_init(&start, NULL, (unsigned int)threads);
	for (int i = 0; i < threads; i++) {
		m[i] = (struct member){ &start, ready, work, arg, 0 };
		if (pthread_create(&t[i], NULL, member, &m[i]) != 0)
			abort();
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		sum += m[i].result;
	}
	pthread_barrier_destroy(&start);
	free(m);
	free(t);
	return sum / threads;
}

void bench_measure_first_call(struct row *r, void (*fn)(void), int threads)
{
	double empty_best, empty_median;

	first_calls(nothing, threads, &empty_best, &empty_median);
	first_calls(fn, threads, &r->best, &r->median);
	r->best -= empty_best;
	r->median -= empty_median;
}
