/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/packaging/package-consumer.c: a program built against installed or unpacked
 * packages with pkg-config, as a user builds one (debian-package.sh,
 * rpm-package.sh, debian/tests/consumer): fastcpu_current_cpu() must be
 * what the kernel says on every CPU it may run on, and a per-CPU counter
 * added to from several threads must sum exactly. */

#define _GNU_SOURCE

#include <fastcpu.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 4
#define ADDS 100000

static struct fastcpu_counter *counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ADDS; i++)
		fastcpu_counter_add(counter, 1);
	return NULL;
}

int main(void)
{
	cpu_set_t allowed;
	pthread_t threads[THREADS];
	int cpus = 0;
	long sum;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return 1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		cpu_set_t one;
		unsigned int kernel;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			continue;
		for (int i = 0; i < 1000; i++) {
			int now = fastcpu_current_cpu();

			if (syscall(SYS_getcpu, &kernel, NULL, NULL) != 0 ||
			    now != cpu || (int)kernel != cpu) {
				printf("consumer: WRONG: pinned to CPU %d, fastcpu_current_cpu %d, kernel %u\n",
				       cpu, now, kernel);
				return 1;
			}
		}
		cpus++;
	}
	sched_setaffinity(0, sizeof(allowed), &allowed);
	counter = fastcpu_counter_new();
	if (counter == NULL || cpus == 0)
		return 1;
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, adder, NULL) != 0)
			return 1;
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	sum = fastcpu_counter_sum(counter);
	fastcpu_counter_free(counter);
	printf("consumer: %d CPUs right, counter %ld of %d, via %s\n", cpus, sum,
	       THREADS * ADDS, fastcpu_backend());
	return sum == THREADS * ADDS ? 0 : 1;
}
