/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/measure.c: interleaved runs, best and median, baseline removed. */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
# define ticks() bench_now_ns()
# define ns_per_tick() 1.0
#endif

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

/* Each run times every case once, from case (run mod n) on: ns of case
 * i's run r at [i * runs + r]. */
static void interleaved_runs(const struct bench_case *cases, int n, const struct bench_config *cfg,
			     double *ns)
{
	int runs = cfg->runs;

	for (int r = 0; r < runs; r++)
		for (int k = 0; k < n; k++) {
			int i = (r + k) % n;
			double t0;

			if (cases[i].loop == NULL)
				continue;
			t0 = bench_now_ns();
			cases[i].loop(cfg->iters);
			ns[i * runs + r] = bench_now_ns() - t0;
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
	double *ns = calloc((size_t)(n * runs), sizeof(double)), empty[4];

	if (ns == NULL)
		abort();
	for (int i = 0; i < n; i++)	/* warm caches, predictors, lazy binding */
		if (cases[i].loop != NULL)
			cases[i].loop(cfg->iters);
	interleaved_runs(cases, n, cfg, ns);
	for (int i = 0; i < n; i++) {
		double s[4];
		struct row *r;

		if (cases[i].loop == NULL)
			continue;
		summarise(ns + i * runs, cfg, i ? empty : NULL, s);
		if (i == 0)
			memcpy(empty, s, sizeof(s));
		r = rows_add(out, table, cases[i].key, cases[i].name, 0, UNIT_NS, s[0], s[1]);
		r->low = s[2];
		r->high = s[3];
	}
	free(ns);
}

static void __attribute__((noinline)) nothing(void)
{
	__asm__ volatile("");
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

/* The ticks of a single shot of fn. */
static double shot(void *fn)
{
	double t0 = ticks();

	((void (*)(void))fn)();
	return ticks() - t0;
}

void bench_measure_once(struct row *r, void (*prepare)(void), void (*fn)(void), int shots,
			bool fresh)
{
	double *v = calloc(2 * (size_t)shots, sizeof(double)), scale = ns_per_tick(), eb, em;

	if (v == NULL)
		abort();
	for (int s = 0; s < 2 * shots; s++) {	/* nothing, then fn, in turn */
		void *f = s % 2 ? (void *)fn : (void *)nothing;

		if (prepare)
			prepare();
		v[(s % 2) * shots + s / 2] = fresh ? bench_in_threads(1, NULL, shot, f) : shot(f);
	}
	bench_best_and_median(v, shots, &eb, &em);
	bench_best_and_median(v + shots, shots, &r->best, &r->median);
	quartiles(v + shots, shots, &r->low, &r->high);
	r->best = (r->best - eb) * scale;
	r->median = (r->median - em) * scale;
	r->low = (r->low - em) * scale;
	r->high = (r->high - em) * scale;
	free(v);
}
