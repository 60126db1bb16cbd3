/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fallbacks/suite-faults.c: rseq refused, taken, or nothing working at all. */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

static const int denials[] = { ENOSYS, EPERM };

/* A sandbox that refuses rseq: every thread falls back and stays right. */
START_TEST(rseq_denied_falls_back)
{
	char buf[64];

	test_deny_rseq(denials[_i], false);
	test_check_all_cpus();
	test_check_all_cpus_in_thread();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, false, buf, sizeof(buf)));
}
END_TEST

/* FASTCPU_BACKEND=rseq where rseq is refused: one line, then auto. */
static void ask_all(void)
{
	test_check_all_cpus();
	test_check_all_cpus_in_thread();
}

START_TEST(forced_rseq_denied_warns_once)
{
	const char *err = TEST_RESPAWN("FASTCPU_BACKEND=rseq");
	char buf[64];

	if (err != NULL) {
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1,
			      "expected one line, got \"%s\"", err);
		ck_assert_ptr_nonnull(strstr(err, "FASTCPU_BACKEND=rseq"));
		return;
	}
	test_deny_rseq(denials[_i], false);
	ask_all();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, false, buf, sizeof(buf)));
}
END_TEST

/* The program registered its own rseq area before asking: the kernel
 * answers the library's registration with EINVAL, the program keeps its
 * area (still updated, still registered) and the answers stay right. */
static __thread struct {
	uint32_t cpu_id_start, cpu_id;
	uint64_t rseq_cs;
	uint32_t flags, pad[3];
} program_area __attribute__((aligned(32)));

START_TEST(foreign_registrant_keeps_its_area)
{
	char buf[64];

	ck_assert_int_eq(syscall(SYS_rseq, &program_area, 32, 0, 0x12345678), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &test_allowed))
			continue;
		test_pin(cpu);
		ck_assert_int_eq(fastcpu_current_cpu(), cpu);
		ck_assert_int_eq(sched_getcpu(), cpu);
		ck_assert_uint_eq(program_area.cpu_id, (unsigned int)cpu);
	}
	ck_assert_int_eq(syscall(SYS_rseq, &program_area, 32, 0, 0x12345678), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, false, buf, sizeof(buf)));
	/* Its other threads have no area of their own: the library's serves. */
	test_check_all_cpus_in_thread();
}
END_TEST

/* Nothing can answer: -1 with the kernel's errno (the sandbox's here), as
 * glibc passes it; nothing else breaks. */
START_TEST(nothing_works_fails_as_the_kernel_does)
{
	unsigned int cpu = 7, node = 7;
	int err = denials[_i];

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall", "FASTCPU_CACHE=off"))
		return;
	test_deny_rseq(err, true);
	errno = 0;
	ck_assert_int_eq(sched_getcpu(), -1);
	ck_assert_int_eq(errno, err);
	errno = 0;
	ck_assert_int_eq(fastcpu_current_cpu(), -1);
	ck_assert_int_eq(errno, err);
	errno = 0;
	ck_assert_int_eq(getcpu(&cpu, &node), -1);
	ck_assert_int_eq(errno, err);
	ck_assert_uint_eq(cpu, 7);
	ck_assert_uint_eq(node, 7);
}
END_TEST

/* Seccomp filters belong to threads: one thread's filter answering rseq
 * with ENOSYS leaves the library's rseq to the threads without it. */
static void *deny_rseq_here(void *backend)
{
	test_deny_rseq(ENOSYS, false);
	test_check_all_cpus();
	*(const char **)backend = fastcpu_backend();
	return NULL;
}

START_TEST(one_threads_seccomp_stays_its_own)
{
	const char *filtered = NULL;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, deny_rseq_here, &filtered), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_ptr_nonnull(filtered);
	ck_assert_ptr_null(strstr(filtered, "rseq"));
	test_check_all_cpus();
	ck_assert_str_eq(fastcpu_backend(), "rseq (own)");
}
END_TEST

Suite *suite_faults(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("sandbox");

	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	if (!test_seccomp_works()) {
		/* qemu-user refuses seccomp filters: it would filter itself. */
		test_note("faults: seccomp filters refused here (qemu-user?): sandbox tests skipped\n");
		return s;
	}
	test_add_respawning(tc, nothing_works_fails_as_the_kernel_does, 0, 2);
	/* glibc aborts a new thread whose rseq registration fails, so these
	 * run where glibc left rseq to the library. */
	if (!test_glibc_registered_rseq()) {
		tcase_add_loop_test(tc, rseq_denied_falls_back, 0, 2);
		test_add_respawning(tc, forced_rseq_denied_warns_once, 0, 2);
		if (test_kernel_rseq_usable()) {
			tcase_add_test(tc, foreign_registrant_keeps_its_area);
			tcase_add_test(tc, one_threads_seccomp_stays_its_own);
		}
	}
	return s;
}
