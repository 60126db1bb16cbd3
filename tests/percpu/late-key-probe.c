/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/late-key-probe.c: a thread's first object cache use in a signal handler, the library loaded after many keys. */

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

/*
 * A thread without sequences (the script sets FASTCPU_SEQUENCES=off) makes
 * its first object cache call in a signal handler: the library then sets
 * the thread's exit key, which must not allocate there. Under glibc a key
 * past the first 32 does, at its first value in a thread (a calloc); so
 * with "late", the program makes 32 keys before it dlopen()s the library,
 * and the handler must call no calloc or malloc; with "early", the
 * library's key is among the first. Either way the thread keeps objects
 * while it lives, and none once it is gone: its exit gives them back
 * ("early"), or the census finds the thread gone ("late", no key set).
 * This program's calloc and malloc stand in front of glibc's, counting
 * the handler's.
 */
#include <time.h>
#ifdef __GLIBC__
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_malloc(size_t size);

static volatile int in_handler, handler_allocations;

void *calloc(size_t n, size_t size)
{
	if (in_handler)
		handler_allocations++;
	return __libc_calloc(n, size);
}

void *malloc(size_t size)
{
	if (in_handler)
		handler_allocations++;
	return __libc_malloc(size);
}

static void *(*cache_new)(size_t, size_t);
static void *(*cache_alloc)(void *);
static void (*cache_free)(void *, void *);
static int (*census_of)(const void *, struct fastcpu_private_census *);
static void *cache;
static pthread_barrier_t counted;

static void first_use(int sig)
{
	void *a, *b;

	(void)sig;
	in_handler = 1;
	a = cache_alloc(cache);
	b = cache_alloc(cache);
	cache_free(cache, a);
	cache_free(cache, b);
	in_handler = 0;
}

static void *worker(void *unused)
{
	(void)unused;
	raise(SIGUSR1);
	pthread_barrier_wait(&counted);	/* the census, while this thread lives */
	pthread_barrier_wait(&counted);
	return NULL;
}

int main(int argc, char **argv)
{
	bool late = argc > 2 && strcmp(argv[2], "late") == 0;
	struct fastcpu_private_census census;
	size_t kept_alive;
	pthread_key_t key;
	pthread_t t;
	void *lib;

	if (argc < 3)
		return 2;
	for (int i = 0; late && i < 32; i++)
		if (pthread_key_create(&key, NULL) != 0)
			return 2;
	if ((lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "late-key-probe: %s\n", dlerror());
		return 2;
	}
	*(void **)&cache_new = dlsym(lib, "fastcpu_objcache_new");
	*(void **)&cache_alloc = dlsym(lib, "fastcpu_objcache_alloc");
	*(void **)&cache_free = dlsym(lib, "fastcpu_objcache_free");
	*(void **)&census_of = dlsym(lib, "fastcpu_private_objcache_census");
	if (!cache_new || !cache_alloc || !cache_free || !census_of ||
	    (cache = cache_new(64, 0)) == NULL)
		return 2;
	signal(SIGUSR1, first_use);
	pthread_barrier_init(&counted, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	pthread_barrier_wait(&counted);
	if (census_of(cache, &census) != 0)
		return 2;
	pthread_barrier_wait(&counted);
	pthread_join(t, NULL);
	kept_alive = census.kept;
	/* Gone once the kernel has let go of the thread too (a moment after
	 * the join): a second at most. */
	for (int i = 0; i < 100; i++) {
		struct timespec nap = { 0, 10 * 1000 * 1000 };

		if (census_of(cache, &census) != 0)
			return 2;
		if (census.kept == 0)
			break;
		nanosleep(&nap, NULL);
	}
	printf("late-key-probe: %s keys: the handler allocated %d times, the thread kept %zu, "
	       "then %zu once gone\n", late ? "32 earlier" : "no earlier", handler_allocations,
	       kept_alive, census.kept);
	if (handler_allocations != 0 || kept_alive == 0 || census.kept != 0)
		return 1;
	return 0;
}
#else
int main(void)
{
	return 77;	/* only glibc allocates for a key's first value */
}
#endif
