/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/host/suite-reliability.c: thread churn, signals, fork and exec, clone. */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"

/*
 * An answer is right if the kernel said the same just before and just
 * after it; when the kernel's two answers differ the thread migrated in
 * between and either is right.
 */
static bool answer_right(int (*ask)(void))
{
	for (int tries = 0; tries < 100; tries++) {
		unsigned int before, after;
		int got;

		syscall(SYS_getcpu, &before, NULL, NULL);
		got = ask();
		syscall(SYS_getcpu, &after, NULL, NULL);
		if (before == after)
			return got == (int)before;
		if (got == (int)before || got == (int)after)
			return true;
	}
	return false;
}

static int ask_getcpu(void)
{
	unsigned int cpu, node;

	if (getcpu(&cpu, &node) != 0 || node != test_sysfs_node((int)cpu))
		return -1;
	return (int)cpu;
}

static volatile int wrong;

static void *short_lived(void *unused)
{
	(void)unused;
	errno = EDOM;
	if (!answer_right(sched_getcpu) || !answer_right(ask_getcpu) ||
	    errno != EDOM)
		__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
	return NULL;
}

static long resident_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2)
		ck_abort_msg("cannot read /proc/self/statm");
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * Batches of eight threads, each batch pinned (by inheritance) to the next
 * CPU: so the threads also start on every CPU, and with the cache (whose
 * answer may lag an unasked-for migration by a tick) answers stay exact.
 */
static void churn(long threads)
{
	int cpu = test_first_allowed();

	for (long i = 0; i < threads; i += 8) {
		pthread_t t[8];

		test_pin(cpu = test_next_allowed(cpu));
		for (int k = 0; k < 8; k++)
			ck_assert_int_eq(pthread_create(&t[k], NULL, short_lived, NULL), 0);
		for (int k = 0; k < 8; k++)
			ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	}
}

/* Threads come and go by the ten thousand; each registers (or finds) its
 * rseq area on its first call. Nothing leaks: the resident set stays flat. */
START_TEST(thread_churn)
{
	long warm, after;

	churn(test_scaled(1000));	/* stacks cached, everything touched once */
	warm = resident_kib();
	churn(test_scaled(10000));
	after = resident_kib();
	ck_assert_int_eq(wrong, 0);
	/* Sanitizers' and qemu's own bookkeeping grows with threads. */
	if (!test_instrumented() && !test_emulated())
		ck_assert_msg(after - warm < 1024, "resident set grew from %ld to %ld KiB",
			      warm, after);
}
END_TEST

/* ---- signals ------------------------------------------------------------ */

static volatile int handler_calls, handler_wrong;

static void on_alarm(int sig)
{
	int saved = errno;
	unsigned int cpu = ~0u, node = ~0u;

	(void)sig;
	errno = ERANGE;		/* the handler's own errno must stay too */
	if (!answer_right(sched_getcpu) || !answer_right(fastcpu_sched_getcpu) ||
	    getcpu(&cpu, &node) != 0 || !CPU_ISSET(cpu, &test_allowed) ||
	    errno != ERANGE)
		handler_wrong++;
	handler_calls++;
	errno = saved;
}

/* A timer signal every 50 us whose handler asks, landing on threads in the
 * middle of their first call (lazy registration) and on the main thread in
 * the middle of its own calls, on each CPU in turn; every answer right,
 * errno kept. */
START_TEST(signals_during_first_calls)
{
	int enough = test_instrumented() ? 10 : 100;
	double start, last;

	/* Pinned before the first signal: an unpinned thread's cached answer
	 * may lag a migration by a tick, and under qemu-user a slow machine
	 * ran some twenty handlers on this thread before churn() pinned it
	 * (CI: 13 answers a tick stale). */
	test_pin(test_first_allowed());
	test_signal_every(on_alarm);
	/* At least the planned time, and on until enough signals landed: a
	 * loaded machine delivers fewer than one per 50 us. */
	start = test_now_ms();
	do {
		churn(16);	/* leaves this thread pinned: exact answers */
		errno = EDOM;
		for (int i = 0; i < 1000; i++)
			if (!answer_right(sched_getcpu) || errno != EDOM)
				wrong++;
		last = test_now_ms();
	} while (last - start < (double)test_scaled(10) * 100 ||
		 (handler_calls < enough && last - start < 60000));
	test_signal_stop();
	ck_assert_int_ge(handler_calls, enough);
	ck_assert_int_eq(handler_wrong, 0);
	ck_assert_int_eq(wrong, 0);
}
END_TEST

/* ---- fork, exec --------------------------------------------------------- */

/* The child of a fork keeps the parent's rseq registration (the kernel
 * copies it) and the library's state with it: still right on every CPU. */
START_TEST(fork_child_right)
{
	int status;
	pid_t pid;

	(void)sched_getcpu();	/* the parent attached first */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		test_check_all_cpus();
		test_check_all_cpus_in_thread();
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* posix_spawn is vfork + exec in glibc: the new program starts clean and
 * gets the library again through LD_PRELOAD, inherited as usual (with the
 * rest of the environment: qemu-user's QEMU_LD_PREFIX under emulation). */
START_TEST(spawned_program_preloaded)
{
	const char *lib = getenv("FASTCPU_LIB");
	char *argv[] = { "preload-probe", NULL };
	int status;
	pid_t pid;

	ck_assert_ptr_nonnull(lib);
	(void)sched_getcpu();
	ck_assert_int_eq(setenv("LD_PRELOAD", lib, 1), 0);	/* forked test */
	ck_assert_int_eq(posix_spawn(&pid, "./preload-probe", NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* ---- rseq users after us, raw clone ------------------------------------- */

static __thread char late_area[32] __attribute__((aligned(32)));

/* Someone registering after the library registered this thread's area gets
 * EINVAL from the kernel (documented); the library stays right. */
START_TEST(late_registrant_gets_einval)
{
	(void)sched_getcpu();
	ck_assert_int_eq(syscall(SYS_rseq, late_area, 32, 0, FASTCPU_RSEQ_SIGNATURE), -1);
	ck_assert_int_eq(errno, EINVAL);
	test_check_all_cpus();
}
END_TEST

static int clone_answer = -5;

static int cloned(void *unused)
{
	(void)unused;
	clone_answer = sched_getcpu();
	return 0;
}

/* A thread made by raw clone() shares the creator's TLS, so it reads the
 * creator's rseq area, as glibc's own sched_getcpu does: no crash, and a
 * CPU this process may run on (not necessarily its own: a documented
 * limit). */
START_TEST(raw_clone_thread)
{
	size_t size = 1 << 16;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	int status;
	pid_t pid;

	ck_assert_ptr_ne(stack, MAP_FAILED);
	(void)sched_getcpu();
	pid = clone(cloned, stack + size, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 && errno == EINVAL && test_emulated()) {
		fputs("raw_clone_thread: qemu-user refuses CLONE_VM without threads: skipped\n", stderr);
		return;
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_ge(clone_answer, 0);
	ck_assert(CPU_ISSET(clone_answer, &test_allowed));
}
END_TEST

Suite *suite_reliability(void)
{
	Suite *s = suite_create("reliability");
	TCase *tc = tcase_create("host");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, thread_churn);
	tcase_add_test(tc, signals_during_first_calls);
	tcase_add_test(tc, fork_child_right);
	if (!test_instrumented())
		tcase_add_test(tc, spawned_program_preloaded);
	if (!test_instrumented())
		tcase_add_test(tc, raw_clone_thread);
	if (!test_glibc_registered_rseq() && test_kernel_rseq_usable())
		tcase_add_test(tc, late_registrant_gets_einval);
	suite_add_tcase(s, tc);
	return s;
}
