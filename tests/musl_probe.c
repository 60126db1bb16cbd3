/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/musl_probe.c: a musl program served by libfastcpu (tests/musl.sh). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Built with musl-gcc and either preloaded with libfastcpu or linked with
 * it. Its own sched_getcpu reference must reach libfastcpu (musl has its
 * own), every answer must match the kernel's on every CPU, getcpu (which
 * musl lacks) must be there, and detached threads, whose stacks musl unmaps
 * before their last system call, must come and go by the thousand with
 * their rseq areas registered: the library unregisters them first.
 */
#define DETACHED 4000
#define ADDS 100	/* per-CPU counter increments per thread */

static volatile int wrong, alive;

/*
 * The per-CPU counter: inline when linked (the sequences of <fastcpu.h>,
 * on areas musl's threads register and unregister by the thousand), the
 * library's out-of-line form when preloaded.
 */
#ifdef MUSL_PROBE_LINKED
# include "fastcpu.h"
static void counter_add(struct fastcpu_counter *c)
{
	fastcpu_counter_add(c, 1);
}
#else
struct fastcpu_counter;
static void (*add_out_of_line)(void *, size_t, int, long);

static void counter_add(struct fastcpu_counter *c)
{
	add_out_of_line(c, 128, 1 /* by CPU, as <fastcpu.h>'s counter */, 1);
}
#endif
static struct fastcpu_counter *counter;

static int kernel_cpu(void)
{
	unsigned int cpu;

	return syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 ? (int)cpu : -1;
}

static void *short_lived(void *unused)
{
	int got = sched_getcpu(), after = kernel_cpu();

	(void)unused;
	if (got < 0 || (got != after && sched_getcpu() != kernel_cpu()))
		__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < ADDS; i++)
		counter_add(counter);
	__atomic_sub_fetch(&alive, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int fail(const char *what)
{
	fprintf(stderr, "musl_probe: %s\n", what);
	return 1;
}

int main(void)
{
	void *ours = dlsym(RTLD_DEFAULT, "fastcpu_sched_getcpu");
	const char *(*backend)(void) =
		(const char *(*)(void))dlsym(RTLD_DEFAULT, "fastcpu_backend");
	int (*getcpu_fn)(unsigned int *, unsigned int *) =
		(int (*)(unsigned int *, unsigned int *))dlsym(RTLD_DEFAULT, "getcpu");
	struct fastcpu_counter *(*counter_new)(void) =
		(struct fastcpu_counter *(*)(void))dlsym(RTLD_DEFAULT, "fastcpu_counter_new");
	long (*counter_sum)(const struct fastcpu_counter *) =
		(long (*)(const struct fastcpu_counter *))dlsym(RTLD_DEFAULT,
								"fastcpu_counter_sum");
	cpu_set_t allowed;
	pthread_attr_t detached;

	if (ours == NULL || backend == NULL || counter_new == NULL || counter_sum == NULL)
		return fail("libfastcpu is not loaded");
#ifndef MUSL_PROBE_LINKED
	add_out_of_line = (void (*)(void *, size_t, int, long))
		dlsym(RTLD_DEFAULT, "fastcpu_percpu_add_out_of_line");
	if (add_out_of_line == NULL)
		return fail("no fastcpu_percpu_add_out_of_line");
#endif
	counter = counter_new();
	if (counter == NULL)
		return fail("fastcpu_counter_new");
	if ((void *)sched_getcpu != ours)
		return fail("the program's sched_getcpu is not libfastcpu's");
	if (getcpu_fn == NULL)
		return fail("no getcpu");
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return fail("sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		cpu_set_t one;
		unsigned int c = ~0u, n = ~0u;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			return fail("sched_setaffinity");
		for (int i = 0; i < 10000; i++) {
			errno = 0;
			if (sched_getcpu() != cpu || errno != 0 ||
			    getcpu_fn(&c, &n) != 0 || c != (unsigned int)cpu)
				wrong++;
		}
	}
	if (sched_setaffinity(0, sizeof(allowed), &allowed) != 0)
		return fail("sched_setaffinity");
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < DETACHED; i++) {
		pthread_t t;

		__atomic_add_fetch(&alive, 1, __ATOMIC_RELAXED);
		if (pthread_create(&t, &detached, short_lived, NULL) != 0)
			return fail("pthread_create");
		while (__atomic_load_n(&alive, __ATOMIC_RELAXED) > 64)
			sched_yield();
	}
	while (__atomic_load_n(&alive, __ATOMIC_RELAXED) > 0)
		sched_yield();
	if (counter_sum(counter) != (long)DETACHED * ADDS)
		wrong++;
	printf("musl_probe: %s, served by %s, %d detached threads, per-CPU counter %ld\n",
	       wrong ? "FAILED" : "right", backend(), DETACHED, counter_sum(counter));
	return wrong != 0;
}
