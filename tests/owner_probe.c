/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/owner_probe.c: libfastcpu beside another rseq owner (owner.sh). */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"
#include "rseq_owner.h"

/*
 * A program that uses a librseq-like owner (tests/rseq_owner.c) of its
 * threads' rseq areas, with libfastcpu linked in or preloaded (owner.sh runs
 * every combination, in both rseq setups). In the main thread and 8 new
 * ones, the owner registers before the thread's first libfastcpu call, or
 * after it: the owner's registration must succeed and stay registered, no
 * thread may abort, and every answer must be the kernel's.
 */
#ifdef OWNER_LINKED
# include "fastcpu.h"
# define owner_register rseq_owner_register
# define owner_registered_here rseq_owner_registered_here
# define backend fastcpu_backend
#else
/* Preloaded, both of them: this program is linked with neither. */
static int (*owner_register)(void);
static bool (*owner_registered_here)(void);
static const char *(*backend)(void);

static void *must_find(const char *name)
{
	void *fn = dlsym(RTLD_DEFAULT, name);

	ck_assert_msg(fn != NULL, "%s not loaded: LD_PRELOAD both libraries", name);
	return fn;
}

static void find_libraries(void)
{
	owner_register = (int (*)(void))must_find("rseq_owner_register");
	owner_registered_here = (bool (*)(void))must_find("rseq_owner_registered_here");
	backend = (const char *(*)(void))must_find("fastcpu_backend");
}
#endif

/* sched_getcpu() and getcpu() (libfastcpu's) against the kernel, on each
 * allowed CPU; errno untouched. */
static void check_answers(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		unsigned int c, n;

		if (!CPU_ISSET(cpu, &test_allowed))
			continue;
		test_pin(cpu);
		errno = EDOM;
		ck_assert_int_eq(sched_getcpu(), cpu);
		ck_assert_int_eq(getcpu(&c, &n), 0);
		ck_assert_int_eq((int)c, cpu);
		ck_assert_uint_eq(n, test_kernel_node());
		ck_assert_int_eq(errno, EDOM);
	}
}

static void owner_then_library(void)
{
	ck_assert_int_eq(owner_register(), 0);
	check_answers();
}

static void library_then_owner(void)
{
	check_answers();
	ck_assert_msg(owner_register() == 0,
		      "the owner's registration failed after libfastcpu's first call");
	check_answers();
}

#ifdef OWNER_READS_OFFSET
/* As librseq's inline functions do: the program reads rseq_offset itself,
 * so (PIE or not) the live variable is a copy in the program. */
extern ptrdiff_t rseq_offset;
#endif

/* Once the owner registered, libfastcpu reads its area. */
static void check_owner_kept(void)
{
	const char *want = test_glibc_registered_rseq() ? "rseq (glibc)" :
			   "rseq (program)";

	ck_assert(owner_registered_here());
	ck_assert_str_eq(backend(), want);
#ifdef OWNER_READS_OFFSET
	ck_assert(test_glibc_registered_rseq() || rseq_offset != 0);
#endif
}

static void *thread_main(void *k)
{
	if ((intptr_t)k % 2)
		library_then_owner();
	else
		owner_then_library();
	check_owner_kept();
	return NULL;
}

START_TEST(owner_keeps_its_area)
{
	pthread_t t[8];

#ifndef OWNER_LINKED
	find_libraries();
#endif
	if (_i)
		library_then_owner();
	else
		owner_then_library();
	check_owner_kept();
	for (intptr_t k = 0; k < 8; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, thread_main, (void *)k), 0);
	for (int k = 0; k < 8; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rseq owner");
	TCase *tc = tcase_create("owner");

	test_record_allowed();
	if (!test_kernel_rseq_usable()) {
		puts("owner_probe: the kernel has no rseq here (qemu-user?): skipped");
		return 77;
	}
	tcase_add_loop_test(tc, owner_keeps_its_area, 0, 2);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
