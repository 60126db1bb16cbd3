/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/malloc_workload.c: threads on every CPU allocating and freeing. */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plain program for an allocator to serve: with jemalloc preloaded and
 * MALLOC_CONF=percpu_arena:percpu, each allocation picks the arena of the
 * CPU sched_getcpu() names. */
static void *allocate(void *cpu)
{
	cpu_set_t one;
	void *keep[64] = { 0 };

	CPU_ZERO(&one);
	CPU_SET((int)(long)cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < 200000; i++) {
		void **slot = &keep[i % 64];

		free(*slot);
		*slot = malloc((size_t)(16 + i % 4096));
		if (*slot == NULL)
			abort();
		memset(*slot, i, 16);
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	return NULL;
}

int main(void)
{
	cpu_set_t allowed;
	pthread_t t[CPU_SETSIZE];
	int n = 0;

	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (long cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			pthread_create(&t[n++], NULL, allocate, (void *)cpu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("malloc_workload: %d threads done\n", n);
	return 0;
}
