/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/client_urcu.c: liburcu's per-CPU call_rcu workers, unmodified. */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>

/*
 * With per-CPU call_rcu workers, every call_rcu() asks sched_getcpu() (from
 * inside liburcu.so) which CPU's worker queue to use. Run with libfastcpu
 * preloaded, that is libfastcpu's; threads pinned to each CPU queue
 * callbacks, and every callback must run.
 */
#define CALLBACKS_PER_THREAD 20000

struct item {
	struct rcu_head head;
};

static unsigned long done;

static void reclaim(struct rcu_head *head)
{
	free(caa_container_of(head, struct item, head));
	__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
}

static void *queue_callbacks(void *cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET((int)(long)cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	rcu_register_thread();
	for (int i = 0; i < CALLBACKS_PER_THREAD; i++) {
		struct item *it = malloc(sizeof(*it));

		if (it == NULL)
			abort();
		call_rcu(&it->head, reclaim);
	}
	rcu_unregister_thread();
	return NULL;
}

int main(void)
{
	cpu_set_t allowed;
	pthread_t t[CPU_SETSIZE];
	int n = 0;

	if (create_all_cpu_call_rcu_data(0) != 0) {
		perror("create_all_cpu_call_rcu_data");
		return 1;
	}
	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (long cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			pthread_create(&t[n++], NULL, queue_callbacks, (void *)cpu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	rcu_register_thread();
	rcu_barrier();
	rcu_unregister_thread();
	printf("client_urcu: %lu of %lu callbacks ran on %d per-CPU workers\n",
	       done, (unsigned long)n * CALLBACKS_PER_THREAD, n);
	return done == (unsigned long)n * CALLBACKS_PER_THREAD ? 0 : 1;
}
