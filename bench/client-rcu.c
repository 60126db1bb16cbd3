/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/client-rcu.c: liburcu's per-CPU call_rcu workers, unmodified:
 * every call_rcu() asks sched_getcpu() (inside liburcu.so) for its CPU's
 * queue. ns per call_rcu, one thread per allowed CPU, until every
 * callback ran. */

#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>

#include "client.h"

static long calls = 2000000;

struct item {
	struct rcu_head head;
};

static struct item *items_of[CPU_SETSIZE];
static unsigned long done;

static void reclaim(struct rcu_head *head)
{
	(void)head;
	__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
}

static void queue_callbacks(int index)
{
	struct item *mine = malloc((size_t)calls * sizeof(*mine));

	if (mine == NULL)
		abort();
	items_of[index] = mine;
	rcu_register_thread();
	for (long i = 0; i < calls; i++)
		call_rcu(&mine[i].head, reclaim);
	rcu_unregister_thread();
}

int main(int argc, char **argv)
{
	int threads;
	double ns;

	calls = client_operations(argc, argv, calls);
	if (create_all_cpu_call_rcu_data(0) != 0) {
		perror("create_all_cpu_call_rcu_data");
		return 1;
	}
	ns = client_run_threads(queue_callbacks, &threads);
	rcu_register_thread();
	rcu_barrier();
	rcu_unregister_thread();
	for (int i = 0; i < threads; i++)
		free(items_of[i]);
	if (done != (unsigned long)threads * (unsigned long)calls) {
		fprintf(stderr, "client-rcu: %lu callbacks ran\n", done);
		return 1;
	}
	printf("%.3f\n", ns / (double)calls);
	return 0;
}
