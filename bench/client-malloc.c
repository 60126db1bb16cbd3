/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client-malloc.c: threads allocating and freeing, for an allocator
 * preloaded in front of glibc's (jemalloc with per-CPU arenas asks
 * sched_getcpu() only when it picks a thread's arena): ns per malloc and
 * free, one thread per allowed CPU. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static long pairs = 5000000;

static void allocate(int index)
{
	void *keep[64] = { 0 };

	(void)index;
	for (long i = 0; i < pairs; i++) {
		void **slot = &keep[i % 64];

		free(*slot);
		*slot = malloc((size_t)(16 + i % 1024));
		if (*slot == NULL)
			abort();
		memset(*slot, (int)i, 16);
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
}

int main(int argc, char **argv)
{
	int threads;
	double ns;

	pairs = client_operations(argc, argv, pairs);
	ns = client_run_threads(allocate, &threads);
	printf("%.3f\n", ns / (double)pairs);
	return 0;
}
