/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/every-cpu.c: every entry point against the kernel, on each CPU. */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fastcpu.h"
#include "helpers.h"

/* Calls per CPU after the first; fewer under valgrind (FASTCPU_TEST_CALLS). */
static int calls_per_cpu(void)
{
	const char *v = getenv("FASTCPU_TEST_CALLS");

	return v ? atoi(v) : 2000;
}

/* One pass over every entry point, pinned to cpu; errno must not move. */
static void check_entry_points(int cpu, unsigned int node)
{
	unsigned int c, n;

	int cid, limit = fastcpu_cid_limit();

	errno = EDOM;
	ck_assert_int_eq(fastcpu_current_cpu(), cpu);
	ck_assert_int_eq(fastcpu_sched_getcpu(), cpu);
	ck_assert_int_eq(sched_getcpu(), cpu);
	n = ~0u;
	ck_assert_int_eq(fastcpu_current_cpu_node(&n), cpu);
	ck_assert_uint_eq(n, node);
	cid = fastcpu_current_cid();
	ck_assert_int_ge(cid, 0);
	ck_assert_int_lt(cid, limit);
	ck_assert_int_lt(cpu, limit);
	cid = fastcpu_cid();
	ck_assert_int_ge(cid, 0);
	ck_assert_int_lt(cid, limit);
	ck_assert_int_eq(fastcpu_cid_limit(), limit);

	c = n = ~0u;
	ck_assert_int_eq(fastcpu_getcpu(&c, &n), 0);
	ck_assert_uint_eq(c, (unsigned int)cpu);
	ck_assert_uint_eq(n, node);
	c = n = ~0u;
	ck_assert_int_eq(getcpu(&c, &n), 0);
	ck_assert_uint_eq(c, (unsigned int)cpu);
	ck_assert_uint_eq(n, node);
	c = ~0u;
	ck_assert_int_eq(getcpu(&c, NULL), 0);
	ck_assert_uint_eq(c, (unsigned int)cpu);
	n = ~0u;
	ck_assert_int_eq(getcpu(NULL, &n), 0);
	ck_assert_uint_eq(n, node);
	ck_assert_int_eq(getcpu(NULL, NULL), 0);
	ck_assert_int_eq(fastcpu_getcpu(NULL, NULL), 0);
	ck_assert_int_eq(errno, EDOM);
}

/* Pins to cpu, checks the kernel agrees, then the library, right after the
 * migration and after many calls. */
static void check_one_cpu(int cpu)
{
	unsigned int node = test_sysfs_node(cpu);

	test_pin(cpu);
	ck_assert_int_eq(test_kernel_cpu(), cpu);
	ck_assert_uint_eq(test_kernel_node(), node);
	check_entry_points(cpu, node);
	for (int i = calls_per_cpu(); i > 0; i--)
		check_entry_points(cpu, node);
}

static void unpin(void)
{
	ck_assert_int_eq(sched_setaffinity(0, sizeof(test_allowed),
					   &test_allowed), 0);
}

void test_check_all_cpus(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &test_allowed))
			check_one_cpu(cpu);
	unpin();
}

static void *check_in_thread(void *cpu)
{
	check_one_cpu((int)(intptr_t)cpu);
	return NULL;
}

/* A new thread per CPU, so that each thread's very first call comes right
 * after it migrated. */
void test_check_all_cpus_in_thread(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		pthread_t t;

		if (!CPU_ISSET(cpu, &test_allowed))
			continue;
		ck_assert_int_eq(pthread_create(&t, NULL, check_in_thread,
						(void *)(intptr_t)cpu), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
}
