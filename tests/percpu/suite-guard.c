/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-guard.c: sequences only where the kernel aborts them. */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <sys/wait.h>

/* Every sequence the kernel aborted, counted by the thread it ran in. */
static __thread unsigned long aborts_here;
#define FASTCPU_PERCPU_ON_ABORT() ((void)aborts_here++)

#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

/*
 * Linux 6.19 to 7.0.13 on arm64 resumed a preempted sequence instead of
 * aborting it; the library decides once per process whether its sequences
 * may run (lib/sequence-guard.c), with a probe where the release is one of
 * those (lib/abort-probe.c). The kernel matrix boots such kernels: there
 * the probe says "resumed" and every per-CPU test of the suites passes on
 * the upper half; here, on any other, it says "aborted".
 */
enum { ABORTED, RESUMED, UNDECIDED };

static unsigned int running_version(void)
{
	struct utsname u;
	unsigned int a = 0, b = 0, c = 0;

	ck_assert_int_eq(uname(&u), 0);
	(void)sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	return a << 16 | b << 8 | (c > 255 ? 255 : c);
}

static bool suspect_release(void)
{
	unsigned int v = running_version();

	return v >= (6u << 16 | 19u << 8) && v < (7u << 16 | 0u << 8 | 14u);
}

static bool thread_has_area(void)
{
	(void)fastcpu_sched_getcpu();
	return strncmp(fastcpu_backend(), "rseq", 4) == 0;
}

/* A probe that ends: "aborted" on every kernel outside the suspect
 * releases, and in them the process's guard follows what it says. */
START_TEST(probe_tells_this_kernel)
{
	struct fastcpu_private_probe p;

	if (!thread_has_area())
		return;
	fastcpu_private_probe(&p, true);
	printf("probe_tells_this_kernel: %s, rseq_cs read at %lu of %lu preemptions, "
	       "left set at %lu%s%s\n", p.outcome == ABORTED ? "aborted" :
	       p.outcome == RESUMED ? "RESUMED" : "undecided", p.read, p.preemptions,
	       p.missed, p.why ? ": " : "", p.why ? p.why : "");
#ifndef FASTCPU_ABORT_PROBE_WRITTEN
	ck_assert_int_eq(p.outcome, UNDECIDED);	/* no probe here (abort-probe.h) */
	return;
#endif
	ck_assert_int_ne(p.outcome, UNDECIDED);
	if (!suspect_release())
		ck_assert_int_eq(p.outcome, ABORTED);
	if (p.outcome == ABORTED)
		ck_assert_uint_ge(p.preemptions, 4);
	if (suspect_release() && getenv("FASTCPU_SEQUENCES") == NULL)
		ck_assert_int_eq(fastcpu_private_runs_sequences(), p.outcome == ABORTED);
}
END_TEST

/* A thread of the program that waits for any child, clones included,
 * without blocking: what it reaped (a pid) or found (0: a child alive). */
struct waiter {
	int done;
	unsigned long polls, seen;
	pid_t first;
};

static void *wait_for_any_child(void *arg)
{
	struct waiter *w = arg;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);

		if (pid >= 0 && w->seen++ == 0)
			w->first = pid;
		__atomic_store_n(&w->polls, w->polls + 1, __ATOMIC_RELEASE);
		sched_yield();
	}
	return NULL;
}

/* The probe run while a thread of the program waits for any child. */
static void probe_beside_a_waiter(struct fastcpu_private_probe *p, int run, struct waiter *w)
{
	pthread_t t;

	*w = (struct waiter){ 0, 0, 0, 0 };
	ck_assert_int_eq(pthread_create(&t, NULL, wait_for_any_child, w), 0);
	while (__atomic_load_n(&w->polls, __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	fastcpu_private_probe(p, run);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

/*
 * No wait of the program sees the probe (#45): its tasks were processes,
 * children of the process, and a thread that waited for any child
 * (waitpid(-1, ..., __WALL)) while it ran reaped 37-40 of their 40 pids,
 * and the probe then missed its killed spinner 5 times of 5. Here such a
 * thread polls all through the probe and finds no child; and the probe
 * still tells the fault it is for, caused: its spinner's area never
 * registered, so no preemption reads its rseq_cs, as on 6.19.14.
 */
START_TEST(no_wait_of_the_program_sees_the_probe)
{
	struct fastcpu_private_probe p;
	struct waiter w;

	if (!thread_has_area())
		return;
	for (int run = 1; run <= 2; run++) {
		probe_beside_a_waiter(&p, run, &w);
		printf("no_wait_of_the_program_sees_the_probe: run %d: %s, %lu polls, %lu saw a child "
		       "(first %d)%s%s\n", run, p.outcome == ABORTED ? "aborted" :
		       p.outcome == RESUMED ? "RESUMED" : "undecided", w.polls, w.seen,
		       (int)w.first, p.why ? ": " : "", p.why ? p.why : "");
		ck_assert_uint_eq(w.seen, 0);
#ifdef FASTCPU_ABORT_PROBE_WRITTEN
		if (run == 2)
			ck_assert_int_eq(p.outcome, RESUMED);
		else
			ck_assert_int_ne(p.outcome, UNDECIDED);
#endif
	}
}
END_TEST

static void *ask_sequences(void *unused)
{
	(void)unused;
	(void)fastcpu_private_runs_sequences();
	return NULL;
}

/* sched_getcpu, getcpu and the concurrency id never probe; the first
 * per-CPU operation does, where the release is suspect, once. */
START_TEST(reading_never_probes)
{
	struct fastcpu_private_probe p;
	unsigned int cpu, node;
	long *slots;
	pthread_t t;

	if (TEST_RESPAWN("FASTCPU_SEQUENCES="))
		return;
	slots = calloc((size_t)fastcpu_cid_limit(), sizeof(long));
	for (int i = 0; i < 1000; i++) {
		(void)sched_getcpu();
		(void)fastcpu_getcpu(&cpu, &node);
		(void)fastcpu_cid();
	}
	fastcpu_private_probe(&p, false);
	ck_assert_uint_eq(p.guard_probes, 0);
	if (getauxval(AT_SYSINFO_EHDR) != 0 && !suspect_release())
		ck_assert_int_eq(p.guard, 1);	/* known at load, from the vDSO's note */
	ck_assert_ptr_nonnull(slots);
	fastcpu_percpu_add(slots, sizeof(long), FASTCPU_BY_CPU, 1);
	ck_assert_int_eq(pthread_create(&t, NULL, ask_sequences, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	free(slots);
	fastcpu_private_probe(&p, false);
	ck_assert_uint_eq(p.guard_probes, thread_has_area() && suspect_release() ? 1 : 0);
}
END_TEST

#define ADDERS 4
#define ADDS 200000

static long *shared_slots;

static void *adder(void *arg)
{
	test_pin(0);
	for (int i = 0; i < ADDS; i++)
		fastcpu_percpu_add(shared_slots, sizeof(long), FASTCPU_BY_CPU, 1);
	*(unsigned long *)arg = aborts_here;
	return NULL;
}

/* Four threads on one CPU, adding; the sum exact, and aborts only where
 * sequences ran. */
static void add_on_one_cpu(bool sequences)
{
	pthread_t t[ADDERS];
	unsigned long aborts[ADDERS], all = 0;
	long sum = 0;
	int limit = fastcpu_cid_limit();

	shared_slots = calloc((size_t)limit, sizeof(long));
	ck_assert_ptr_nonnull(shared_slots);
	for (int i = 0; i < ADDERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, adder, &aborts[i]), 0);
	for (int i = 0; i < ADDERS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		all += aborts[i];
	}
	for (int i = 0; i < limit; i++)
		sum += shared_slots[i];
	ck_assert_int_eq(sum, (long)ADDERS * ADDS);
	if (!sequences)
		ck_assert_uint_eq(all, 0);
	free(shared_slots);
}

/* FASTCPU_SEQUENCES=off: no sequence runs, the upper half is exact, no
 * probe; the tool says why. */
START_TEST(setting_off_runs_none)
{
	struct fastcpu_private_facts f;
	struct fastcpu_private_probe p;

	if (TEST_RESPAWN("FASTCPU_SEQUENCES=off"))
		return;
	ck_assert(!fastcpu_private_runs_sequences());
	add_on_one_cpu(false);
	fastcpu_private_facts(&f);
	ck_assert(!f.sequences);
#ifdef FASTCPU_RSEQ_INLINE
	ck_assert_str_eq(f.sequences_why, thread_has_area() ? "off: FASTCPU_SEQUENCES=off" :
					  "off: this thread reads no rseq area");
#else
	ck_assert_str_eq(f.sequences_why, "off: this build has no sequences for this architecture");
#endif
	fastcpu_private_probe(&p, false);
	ck_assert_uint_eq(p.guard_probes, 0);
}
END_TEST

/* FASTCPU_SEQUENCES=on: sequences wherever a thread has an area, no
 * probe, whatever the release. */
START_TEST(setting_on_runs_them_unprobed)
{
	struct fastcpu_private_probe p;

	if (TEST_RESPAWN("FASTCPU_SEQUENCES=on"))
		return;
#ifdef FASTCPU_RSEQ_INLINE
	ck_assert_int_eq(fastcpu_private_runs_sequences(), thread_has_area());
#endif
	fastcpu_private_probe(&p, false);
	ck_assert_uint_eq(p.guard_probes, 0);
	ck_assert_int_eq(p.guard, 1);
}
END_TEST

/* A value it does not know: one line, and auto. */
START_TEST(setting_unknown_is_auto)
{
	const char *err = TEST_RESPAWN("FASTCPU_SEQUENCES=sometimes");

	if (err == NULL) {
		add_on_one_cpu(fastcpu_private_runs_sequences());
		return;
	}
	ck_assert_ptr_nonnull(strstr(err, "libfastcpu: FASTCPU_SEQUENCES must be one of auto, on, off; using auto\n"));
}
END_TEST

Suite *suite_guard(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("default");
	TCase *exact = test_exactness_case();

	tcase_set_timeout(tc, 120);
	tcase_add_test(exact, probe_tells_this_kernel);
	test_add_respawning(exact, reading_never_probes, 0, 1);
	tcase_add_test(tc, no_wait_of_the_program_sees_the_probe);
	test_add_respawning(tc, setting_off_runs_none, 0, 1);
	test_add_respawning(tc, setting_on_runs_them_unprobed, 0, 1);
	test_add_respawning(tc, setting_unknown_is_auto, 0, 1);
	suite_add_tcase(s, exact);
	suite_add_tcase(s, tc);
	return s;
}
