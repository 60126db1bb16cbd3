/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/platforms/musl-probe.c: a musl program served by libfastcpu (tests/platforms/musl.sh). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "private.h"	/* the census, as the library fills it */

/*
 * Built with musl-gcc and either preloaded with libfastcpu or linked with
 * it. Its own sched_getcpu reference must reach libfastcpu (musl has its
 * own), every answer must match the kernel's on every CPU, getcpu (which
 * musl lacks) must be there, and detached threads, whose stacks musl unmaps
 * before their last system call, must come and go by the thousand with
 * their rseq areas registered: the library unregisters them first. They
 * add to a per-CPU counter and take objects from an object cache.
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
	/* by CPU, at the stride of per-CPU memory, as <fastcpu.h>'s counter */
	add_out_of_line(c, 65536, 1, 1);
}
#endif
static struct fastcpu_counter *counter;

/* The object cache, from every thread: its census (the library's private
 * interface, lib/private.h's layout) finds every object free at the end. */
static void *cache;
static void *(*cache_alloc)(void *);
static void (*cache_free)(void *, void *);

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
	for (int round = 0; round < 4; round++) {
		long *o[8];

		for (int i = 0; i < 8; i++)
			if ((o[i] = cache_alloc(cache)) != NULL)
				o[i][2] = (long)pthread_self();
		for (int i = 0; i < 8; i++) {
			if (o[i] == NULL || o[i][2] != (long)pthread_self())
				__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
			cache_free(cache, o[i]);
		}
	}
	__atomic_sub_fetch(&alive, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int fail(const char *what)
{
	fprintf(stderr, "musl-probe: %s\n", what);
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
	void *(*cache_new)(size_t, size_t) =
		(void *(*)(size_t, size_t))dlsym(RTLD_DEFAULT, "fastcpu_objcache_new");
	int (*census_of)(const void *, struct fastcpu_private_census *) =
		(int (*)(const void *, struct fastcpu_private_census *))
		dlsym(RTLD_DEFAULT, "fastcpu_private_objcache_census");
	struct fastcpu_private_census c;
	cpu_set_t allowed;
	pthread_attr_t detached;

	cache_alloc = (void *(*)(void *))dlsym(RTLD_DEFAULT, "fastcpu_objcache_alloc");
	cache_free = (void (*)(void *, void *))dlsym(RTLD_DEFAULT, "fastcpu_objcache_free");
	if (ours == NULL || backend == NULL || counter_new == NULL || counter_sum == NULL ||
	    cache_new == NULL || cache_alloc == NULL || cache_free == NULL || census_of == NULL)
		return fail("libfastcpu is not loaded");
	cache = cache_new(64, 0);
	if (cache == NULL)
		return fail("fastcpu_objcache_new");
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
	if (census_of(cache, &c) != 0 || c.repeated || c.strays ||
	    c.listed + c.in_depot != c.carved || c.longest > c.limit)
		wrong++;
	printf("musl-probe: %s, served by %s, %d detached threads, per-CPU counter %ld, "
	       "object cache: %zu objects, all free\n", wrong ? "FAILED" : "right", backend(),
	       DETACHED, counter_sum(counter), c.carved);
	return wrong != 0;
}
