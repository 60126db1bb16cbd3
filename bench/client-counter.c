/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client-counter.c: a per-CPU sharded counter as programs write it
 * against glibc alone (sched_getcpu() on every increment, no libfastcpu
 * API): ns per increment, one thread per allowed CPU, free to migrate. */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"

static long increments = 40000000;
#define MAX_SHARDS 4096

static struct {
	unsigned long count;
} __attribute__((aligned(128))) shard[MAX_SHARDS];

static void increment(int index)
{
	(void)index;
	for (long i = 0; i < increments; i++) {
		int cpu = sched_getcpu();

		__atomic_add_fetch(&shard[(unsigned int)cpu % MAX_SHARDS].count, 1,
				   __ATOMIC_RELAXED);
	}
}

int main(int argc, char **argv)
{
	unsigned long total = 0;
	int threads;
	double ns;

	increments = client_operations(argc, argv, increments);
	ns = client_run_threads(increment, &threads);

	for (int i = 0; i < MAX_SHARDS; i++)
		total += shard[i].count;
	if (total != (unsigned long)threads * (unsigned long)increments) {
		fprintf(stderr, "client-counter: %lu increments counted\n", total);
		return 1;
	}
	printf("%.3f\n", ns / (double)increments);
	return 0;
}
