/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/packaging/old-abi-probe.c: a binary bound to every libc version of the
 * affinity functions, as binaries built against older glibc are. */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * Not linked with libfastcpu: link-abi.sh preloads it, with the cache in
 * front of the system call. Each version is called by its own reference
 * (configure's lists, the same the library interposes): GLIBC_2.3.3 takes
 * no set size. After each, sched_getcpu() must say the pinned CPU at once.
 */
typedef int sched_set_fn(pid_t, size_t, const cpu_set_t *);
typedef int pthread_set_fn(pthread_t, size_t, const cpu_set_t *);
typedef int sched_set_sizeless_fn(pid_t, const cpu_set_t *);
typedef int pthread_set_sizeless_fn(pthread_t, const cpu_set_t *);

static cpu_set_t allowed;
static int failures;

static void expect_on(int cpu, const char *how)
{
	int got = sched_getcpu();

	printf("%s: pinned to %d, sched_getcpu %d\n", how, cpu, got);
	failures += got != cpu;
}

static void pin_each(int (*pin)(const cpu_set_t *), const char *how)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		cpu_set_t one;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		(void)sched_getcpu();	/* the cache warm on the old CPU */
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (pin(&one) != 0) {
			printf("%s: cannot pin to %d\n", how, cpu);
			failures++;
			continue;
		}
		expect_on(cpu, how);
	}
}

#ifdef FASTCPU_SCHED_SETAFFINITY_SIZED
# define AT(fn, name, version) __asm__(".symver " #fn "," name "@" version)
# define SIZED(i, version)						\
	extern sched_set_fn sched_v##i;					\
	AT(sched_v##i, "sched_setaffinity", version);			\
	static int pin_sched_##i(const cpu_set_t *s)			\
	{								\
		return sched_v##i(0, sizeof(*s), s);			\
	}
# define PTHREAD_SIZED(i, version)					\
	extern pthread_set_fn pthread_v##i;				\
	AT(pthread_v##i, "pthread_setaffinity_np", version);		\
	static int pin_pthread_##i(const cpu_set_t *s)			\
	{								\
		return pthread_v##i(pthread_self(), sizeof(*s), s);	\
	}
FASTCPU_SCHED_SETAFFINITY_SIZED(SIZED)
FASTCPU_PTHREAD_SETAFFINITY_SIZED(PTHREAD_SIZED)
# define RUN_SCHED(i, version) pin_each(pin_sched_##i, "sched_setaffinity@" version);
# define RUN_PTHREAD(i, version) pin_each(pin_pthread_##i, "pthread_setaffinity_np@" version);
#endif

#ifdef FASTCPU_SCHED_SETAFFINITY_SIZELESS
extern sched_set_sizeless_fn sched_sizeless;
AT(sched_sizeless, "sched_setaffinity", FASTCPU_SCHED_SETAFFINITY_SIZELESS);
static int pin_sched_sizeless(const cpu_set_t *s)
{
	return sched_sizeless(0, s);
}
#endif
#ifdef FASTCPU_PTHREAD_SETAFFINITY_SIZELESS
extern pthread_set_sizeless_fn pthread_sizeless;
AT(pthread_sizeless, "pthread_setaffinity_np", FASTCPU_PTHREAD_SETAFFINITY_SIZELESS);
static int pin_pthread_sizeless(const cpu_set_t *s)
{
	return pthread_sizeless(pthread_self(), s);
}
#endif

int main(void)
{
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return 2;
#ifdef FASTCPU_SCHED_SETAFFINITY_SIZED
	FASTCPU_SCHED_SETAFFINITY_SIZED(RUN_SCHED)
	FASTCPU_PTHREAD_SETAFFINITY_SIZED(RUN_PTHREAD)
#else
	puts("no symbol versions in this libc: nothing to test");
	return 77;
#endif
#ifdef FASTCPU_SCHED_SETAFFINITY_SIZELESS
	pin_each(pin_sched_sizeless, "sched_setaffinity@" FASTCPU_SCHED_SETAFFINITY_SIZELESS);
#endif
#ifdef FASTCPU_PTHREAD_SETAFFINITY_SIZELESS
	pin_each(pin_pthread_sizeless, "pthread_setaffinity_np@" FASTCPU_PTHREAD_SETAFFINITY_SIZELESS);
#endif
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
