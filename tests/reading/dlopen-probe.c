/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/dlopen-probe.c: libfastcpu dlopen()ed, used, dlclose()d. */

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Threads register their rseq areas through the dlopen()ed library, then it
 * is dlclose()d while they keep asking and migrating. The library is built
 * with -z nodelete, so its code and the static TLS holding those areas,
 * which the kernel keeps writing, must stay: dlopen(RTLD_NOLOAD) still
 * finds it, and every answer stays right.
 */
#define THREADS 4

static int (*lib_sched_getcpu)(void);
/* RTLD_LOCAL: the probe's own calls reach glibc's sched_setaffinity, which
 * cannot tell the library's cache; pinning goes through the library's. */
static int (*lib_sched_setaffinity)(pid_t, size_t, const cpu_set_t *);
static volatile int closed, failures;

/* The library defines it at libc's version node (no plain name), which
 * configure listed; musl has no versions. */
static void *library_sched_setaffinity(void *lib)
{
#ifdef FASTCPU_SCHED_SETAFFINITY_SIZED
# define SIZED_VERSION(i, version) version,
	static const char *const versions[] = {
		FASTCPU_SCHED_SETAFFINITY_SIZED(SIZED_VERSION)
	};

	return dlvsym(lib, "sched_setaffinity", versions[0]);
#else
	return dlsym(lib, "sched_setaffinity");
#endif
}

static void *asker(void *arg)
{
	int rounds_after_close = 0;
	cpu_set_t allowed;

	(void)arg;
	sched_getaffinity(0, sizeof(allowed), &allowed);
	while (rounds_after_close < 50) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			cpu_set_t one;
			unsigned int k;

			if (!CPU_ISSET(cpu, &allowed))
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (lib_sched_setaffinity(0, sizeof(one), &one) != 0)
				continue;
			for (int i = 0; i < 100; i++)
				if (lib_sched_getcpu() != cpu ||
				    syscall(SYS_getcpu, &k, NULL, NULL) != 0 ||
				    (int)k != cpu)
					__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		}
		if (closed)
			rounds_after_close++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : getenv("FASTCPU_LIB");
	pthread_t t[THREADS];
	void *lib;

	if (path == NULL || (lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "dlopen-probe: cannot dlopen %s: %s\n",
			path ? path : "(FASTCPU_LIB unset)", dlerror());
		return 1;
	}
	lib_sched_getcpu = (int (*)(void))dlsym(lib, "fastcpu_sched_getcpu");
	lib_sched_setaffinity = (int (*)(pid_t, size_t, const cpu_set_t *))
		library_sched_setaffinity(lib);
	if (lib_sched_getcpu == NULL || lib_sched_setaffinity == NULL)
		return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, asker, NULL);
	usleep(20000);
	if (dlclose(lib) != 0)
		return 1;
	closed = 1;
	if (dlopen(path, RTLD_NOW | RTLD_NOLOAD) == NULL) {
		fprintf(stderr, "dlopen-probe: the library was unloaded\n");
		return 1;
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("dlopen-probe: %d wrong answers after dlclose\n", failures);
	return failures != 0;
}
