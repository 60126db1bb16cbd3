/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.c: sharded per-CPU counters against one shared counter. */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cases.h"
#include "counters.h"
#include "fastcpu.h"
#include "measure.h"

const char *const counter_names[COUNTER_KINDS] = {
	"per-CPU shard via fastcpu_current_cpu()",
	"per-CPU shard via glibc sched_getcpu()",
	"per-cid shard via fastcpu_current_cid()",
	"global atomic add",
	"global CAS loop",
	"global pthread mutex",
};

#define SHARDS 1024	/* a CPU number beyond wraps: still right, less fast */

struct shard {
	unsigned long value;
} __attribute__((aligned(128)));	/* no false sharing, even with prefetch */

static struct shard shards[SHARDS];
static unsigned long global;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

struct run {
	enum counter_kind kind;
	unsigned long increments;
	pthread_barrier_t *start;
	double elapsed_ns;	/* this thread's own time for its increments */
};

/* A shard is per CPU, not per thread: two threads can meet on one after a
 * migration, so the add stays atomic (relaxed, on a line that is local). */
static void increment(enum counter_kind kind)
{
	unsigned long old;

	switch (kind) {
	case COUNTER_PERCPU_FASTCPU:
		__atomic_fetch_add(&shards[(unsigned int)fastcpu_current_cpu() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_PERCPU_GLIBC:
		__atomic_fetch_add(&shards[(unsigned int)glibc_sched_getcpu() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_PERCID_FASTCPU:
		__atomic_fetch_add(&shards[(unsigned int)fastcpu_current_cid() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_ATOMIC_ADD:
		__atomic_fetch_add(&global, 1, __ATOMIC_RELAXED);
		break;
	case COUNTER_CAS_LOOP:
		old = __atomic_load_n(&global, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&global, &old, old + 1, true,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		break;
	case COUNTER_MUTEX:
		pthread_mutex_lock(&global_lock);
		global++;
		pthread_mutex_unlock(&global_lock);
		break;
	default:
		abort();
	}
}

/* Each thread times itself: with more threads than CPUs the main thread
 * may not run at all while they do. */
static void *worker(void *arg)
{
	struct run *run = arg;
	double t0;

	(void)fastcpu_current_cpu();	/* the thread's first call, untimed */
	pthread_barrier_wait(run->start);
	t0 = bench_now_ns();
	for (unsigned long i = 0; i < run->increments; i++)
		increment(run->kind);
	run->elapsed_ns = bench_now_ns() - t0;
	return NULL;
}

static unsigned long total(void)
{
	unsigned long sum = global;

	for (int i = 0; i < SHARDS; i++)
		sum += shards[i].value;
	return sum;
}

double counter_ns_per_increment(enum counter_kind kind, int nthreads,
				unsigned long increments)
{
	pthread_t *threads = calloc((size_t)nthreads, sizeof(*threads));
	struct run *runs = calloc((size_t)nthreads, sizeof(*runs));
	pthread_barrier_t start;
	unsigned long before = total();
	double sum = 0;

	if (threads == NULL || runs == NULL)
		abort();
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads);
	for (int i = 0; i < nthreads; i++) {
		runs[i] = (struct run){ kind, increments, &start, 0 };
		if (pthread_create(&threads[i], NULL, worker, &runs[i]) != 0)
			abort();
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(threads[i], NULL);
		sum += runs[i].elapsed_ns;
	}
	pthread_barrier_destroy(&start);
	free(threads);
	free(runs);
	if (total() - before != (unsigned long)nthreads * increments) {
		fprintf(stderr, "fastcpu-bench: %s lost increments\n",
			counter_names[kind]);
		exit(1);
	}
	return sum / nthreads / (double)increments;
}

void counter_reset(void)
{
	for (int i = 0; i < SHARDS; i++)
		shards[i].value = 0;
}

int counter_shards_used(int *highest, unsigned long *bytes)
{
	int used = 0;

	*highest = -1;
	for (int i = 0; i < SHARDS; i++)
		if (shards[i].value != 0) {
			used++;
			*highest = i;
		}
	*bytes = (unsigned long)(*highest + 1) * sizeof(struct shard);
	return used;
}
