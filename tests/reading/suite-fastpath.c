/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/reading/suite-fastpath.c: the inline reads in loops, and concurrency ids. */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/* ---- loops that see a migration ---------------------------------------- */

/*
 * The reads as a program's hot loop has them: built with -O2 whatever the
 * suite's CFLAGS, so the compiler keeps the rseq word's address in a
 * register across the loop (and across the clock call in it). The thread
 * is moved to another CPU while it spins; each read must follow.
 */
enum read_kind { READ_CPU, READ_PAIR, READ_KINDS };

struct spinner {
	enum read_kind kind;
	int from, to;
	volatile int started;
	pid_t tid;
	int seen;
	unsigned int node;
	long reads;
};

__attribute__((noinline, optimize("O2")))
static int spin_until(struct spinner *s, double deadline_ms)
{
	int cpu = -1;
	unsigned int node = ~0u;
	long reads = 0;

	do {
		for (int i = 0; i < 4096; i++, reads++) {
			cpu = s->kind == READ_CPU ? fastcpu_current_cpu() :
			      fastcpu_current_cpu_node(&node);
			if (cpu == s->to)
				goto seen;
		}
	} while (test_now_ms() < deadline_ms);
seen:
	s->node = node;
	s->reads = reads;
	return cpu;
}

static void *spin(void *arg)
{
	struct spinner *s = arg;

	test_pin(s->from);
	(void)fastcpu_current_cpu();	/* the thread's first call */
	s->tid = (pid_t)syscall(SYS_gettid);
	s->started = 1;
	s->seen = spin_until(s, test_now_ms() + 20000);
	return NULL;
}

START_TEST(loop_follows_migration)
{
	struct spinner s = { .kind = (enum read_kind)_i };
	cpu_set_t to;
	pthread_t t;

	s.from = test_first_allowed();
	s.to = test_next_allowed(s.from);
	ck_assert_int_eq(pthread_create(&t, NULL, spin, &s), 0);
	while (!s.started)
		usleep(1000);
	usleep(20000);		/* well inside the loop */
	CPU_ZERO(&to);
	CPU_SET(s.to, &to);
	/* From this thread (valgrind's threads cannot be pinned from
	 * another process); the rseq read cannot see who moved it. */
	ck_assert_int_eq(pthread_setaffinity_np(t, sizeof(to), &to), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(s.seen == s.to, "loop still read CPU %d, %ld reads after the move to %d",
		      s.seen, s.reads, s.to);
	if (s.kind == READ_PAIR)
		ck_assert_uint_eq(s.node, test_sysfs_node(s.to));
}
END_TEST

/* ---- concurrency ids ----------------------------------------------------- */

/*
 * Two threads pinned to two CPUs meet at a barrier and each reads its id
 * twice, around a moment when both are known to run (each waits, spinning,
 * for the other's first read). A pair whose ids did not move meanwhile ran
 * together with them: they must differ. Rounds where an id moved (a
 * preemption on a busy machine) prove nothing and are counted apart.
 */
#define ROUNDS 10000	/* FASTCPU_STRESS scales it */

struct pair_round {
	pthread_barrier_t start;
	volatile int arrived[2];
	int first[2], second[2];
};

struct racer {
	struct pair_round *round;
	int rounds, cpu, index, limit;
	int bad;		/* an id out of [0, limit) */
};

static void read_twice(struct racer *r, struct pair_round *p)
{
	int other = 1 - r->index;

	p->first[r->index] = fastcpu_current_cid();
	__atomic_store_n(&p->arrived[r->index], 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&p->arrived[other], __ATOMIC_SEQ_CST))
		;
	p->second[r->index] = fastcpu_cid();
	if (p->first[r->index] < 0 || p->first[r->index] >= r->limit ||
	    p->second[r->index] < 0 || p->second[r->index] >= r->limit)
		r->bad++;
}

static void *race(void *arg)
{
	struct racer *r = arg;

	test_pin(r->cpu);
	for (int i = 0; i < r->rounds; i++) {
		pthread_barrier_wait(&r->round[i].start);
		read_twice(r, &r->round[i]);
	}
	return NULL;
}

/* Runs the rounds in two threads; deny, if not NULL, runs between making
 * the first and the second, which inherits what it installed. */
static void race_two_threads(void (*deny)(void))
{
	int count = (int)test_scaled(ROUNDS);
	struct pair_round *rounds = calloc((size_t)count, sizeof(*rounds));
	struct racer r[2];
	pthread_t t[2];
	int limit = fastcpu_cid_limit(), stable = 0, shared = 0;

	ck_assert_ptr_nonnull(rounds);
	for (int i = 0; i < count; i++)
		pthread_barrier_init(&rounds[i].start, NULL, 2);
	r[0] = (struct racer){ rounds, count, test_first_allowed(), 0, limit, 0 };
	r[1] = (struct racer){ rounds, count, test_next_allowed(r[0].cpu), 1, limit, 0 };
	ck_assert_int_eq(pthread_create(&t[0], NULL, race, &r[0]), 0);
	if (deny != NULL)
		deny();
	ck_assert_int_eq(pthread_create(&t[1], NULL, race, &r[1]), 0);
	ck_assert_int_eq(pthread_join(t[0], NULL), 0);
	ck_assert_int_eq(pthread_join(t[1], NULL), 0);
	for (int i = 0; i < count; i++) {
		struct pair_round *p = &rounds[i];

		pthread_barrier_destroy(&p->start);
		if (p->first[0] != p->second[0] || p->first[1] != p->second[1])
			continue;
		stable++;
		if (p->first[0] == p->first[1])
			shared++;
	}
	free(rounds);
	ck_assert_int_eq(r[0].bad + r[1].bad, 0);
	ck_assert_msg(shared == 0, "%d of %d rounds: two running threads had one id",
		      shared, stable);
	ck_assert_msg(stable >= count / 10, "only %d of %d rounds without a preemption",
		      stable, count);
}

START_TEST(cid_unique_between_running_threads)
{
	race_two_threads(NULL);
}
END_TEST

/* The process decided on mm_cid (its main thread reads an area), then a
 * sandbox refuses rseq to the threads made after: one racer has an area
 * and its mm_cid, the other's id comes from the upper half, never equal to
 * an mm_cid. */
static void deny_rseq_from_now(void)
{
	test_deny_rseq(EPERM, false);
}

START_TEST(cid_unique_when_rseq_refused_later)
{
	(void)fastcpu_current_cid();
	race_two_threads(deny_rseq_from_now);
}
END_TEST

/* The source is one for the whole process and the limit never moves. */
START_TEST(cid_limit_fixed)
{
	int limit = fastcpu_cid_limit();
	long possible = sysconf(_SC_NPROCESSORS_CONF);

	ck_assert_int_gt(limit, 0);
	ck_assert_int_ge(limit, (int)possible);
	test_check_all_cpus_in_thread();
	ck_assert_int_eq(fastcpu_cid_limit(), limit);
}
END_TEST

Suite *suite_fastpath(void)
{
	Suite *s = suite_create("fastpath");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, cid_limit_fixed);
	if (CPU_COUNT(&test_allowed) < 2)
		test_note("fastpath: one CPU allowed: migration and cid race tests skipped\n");
	/* Not under valgrind, which runs one thread at a time (the spinning
	 * would last) and whose getcpu never showed the move within 20 s. */
	if (CPU_COUNT(&test_allowed) >= 2 && !test_instrumented()) {
		tcase_add_loop_test(tc, loop_follows_migration, 0, READ_KINDS);
		tcase_add_test(tc, cid_unique_between_running_threads);
		/* glibc aborts a new thread whose rseq registration fails */
		if (test_seccomp_works() && !test_glibc_registered_rseq() &&
		    test_kernel_rseq_usable())
			tcase_add_test(tc, cid_unique_when_rseq_refused_later);
	}
	suite_add_tcase(s, tc);
	return s;
}
