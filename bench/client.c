/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client.c: a thread per allowed CPU, released together, timed. */

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "client.h"

static pthread_barrier_t start;
static void (*work_fn)(int index);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *worker(void *index)
{
	pthread_barrier_wait(&start);
	work_fn((int)(long)index);
	return NULL;
}

double client_run_threads(void (*work)(int index), int *threads)
{
	cpu_set_t allowed;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		abort();
	*threads = CPU_COUNT(&allowed);
	return client_run_n_threads(work, *threads);
}

double client_run_n_threads(void (*work)(int index), int n)
{
	pthread_t t[CPU_SETSIZE];
	double t0;

	if (n < 1 || n > CPU_SETSIZE)
		abort();
	work_fn = work;
	pthread_barrier_init(&start, NULL, (unsigned int)n + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			abort();
	t0 = now_ns();
	pthread_barrier_wait(&start);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return now_ns() - t0;
}

long client_operations(int argc, char **argv, long default_count)
{
	long n = argc > 1 ? atol(argv[1]) : default_count;

	return n > 0 ? n : default_count;
}
