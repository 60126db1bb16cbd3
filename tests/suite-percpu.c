/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/suite-percpu.c: per-CPU counter, lock and free list under stress. */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every sequence the kernel aborted, counted by the thread it ran in. */
static __thread unsigned long aborts_here;
#define FASTCPU_PERCPU_ON_ABORT() ((void)aborts_here++)

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/*
 * In the shape of the kernel's rseq param_test: four threads per allowed
 * CPU, each doing a known amount of work, while a timer signal lands every
 * 50 us on whichever thread runs and its handler works too, a mover thread
 * moves the workers between CPUs with pthread_setaffinity_np(), and one
 * worker forks a child that works on its own copy. The totals must be
 * exact, and where the workers run sequences (an rseq area) the kernel must
 * have aborted some, or the stress proved nothing.
 */
#define STRIDE 128
#define ITERATIONS 1000000	/* per worker; FASTCPU_STRESS scales it */

enum test_kind { COUNTER, LOCK, LIST };
static const enum fastcpu_index indexes[] = { FASTCPU_BY_CID, FASTCPU_BY_CPU };

struct slot {
	intptr_t word;			/* the operations' */
	unsigned long guarded;		/* LOCK: changed under the slot's lock */
} __attribute__((aligned(STRIDE)));

struct node {
	struct node *next;
	int taken;			/* 1 between its pop and its push */
};

static struct {
	enum test_kind kind;
	enum fastcpu_index by;
	struct slot *slots;
	int limit;
	long iterations;
	struct node *nodes;
	int node_count;
	volatile int stop_moving;
	pid_t *tids;			/* the workers', for the mover */
	int workers;
	unsigned long handler_adds;	/* total the handler added */
	int handler_calls;
	int double_pops;		/* a node popped while taken */
	unsigned long aborts;
	int workers_with_area;
	int fork_child_wrong;
} st;

static size_t next_offset(void)
{
	return offsetof(struct node, next);
}

static void work_once(long i)
{
	switch (st.kind) {
	case COUNTER:
		fastcpu_percpu_add(st.slots, STRIDE, st.by, i % 13 + 1);
		break;
	case LOCK: {
		int slot = fastcpu_percpu_lock(st.slots, STRIDE, st.by);

		st.slots[slot].guarded++;	/* not atomic: the lock's job */
		fastcpu_percpu_unlock(st.slots, STRIDE, slot);
		break;
	}
	case LIST: {
		struct node *n = fastcpu_percpu_pop(st.slots, STRIDE, st.by, next_offset());

		if (n == NULL)
			break;
		if (__atomic_exchange_n(&n->taken, 1, __ATOMIC_ACQ_REL))
			__atomic_fetch_add(&st.double_pops, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&n->taken, 0, __ATOMIC_RELEASE);
		fastcpu_percpu_push(st.slots, STRIDE, st.by, n, next_offset());
		break;
	}
	}
}

/* The handler works too (not on the lock: a handler may interrupt its own
 * thread's holder), on the same slots. */
static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (st.kind == COUNTER) {
		fastcpu_percpu_add(st.slots, STRIDE, st.by, 1000);
		__atomic_fetch_add(&st.handler_adds, 1000, __ATOMIC_RELAXED);
	} else if (st.kind == LIST) {
		work_once(0);
	}
	__atomic_fetch_add(&st.handler_calls, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static long expected_per_worker(void)
{
	long sum = 0;

	for (long i = 0; i < st.iterations; i++)
		sum += st.kind == COUNTER ? i % 13 + 1 : 1;
	return sum;
}

/* A child of fork() works on its copy, alone: its copy's total moves by
 * exactly what it did; the parent's does not see it. */
static void fork_and_check_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		long before = 0, after = 0;

		for (int i = 0; i < st.limit; i++)
			before += st.slots[i].word;
		for (long i = 0; i < 1000; i++)
			fastcpu_percpu_add(st.slots, STRIDE, st.by, 7);
		for (int i = 0; i < st.limit; i++)
			after += st.slots[i].word;
		_exit(after - before == 7000 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		__atomic_fetch_add(&st.fork_child_wrong, 1, __ATOMIC_RELAXED);
}

static void *worker(void *index)
{
	if (st.tids != NULL)
		__atomic_store_n(&st.tids[(intptr_t)index], (pid_t)syscall(SYS_gettid),
				 __ATOMIC_RELAXED);
	(void)fastcpu_sched_getcpu();	/* attach: does this thread have an area? */
	if (strncmp(fastcpu_backend(), "rseq", 4) == 0)
		__atomic_fetch_add(&st.workers_with_area, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < st.iterations; i++) {
		work_once(i);
		if (i == st.iterations / 2 && (intptr_t)index == 0 && st.kind == COUNTER)
			fork_and_check_child();
	}
	__atomic_fetch_add(&st.aborts, aborts_here, __ATOMIC_RELAXED);
	return NULL;
}

/* Moves the workers (by the tids they left in st.tids) round the allowed
 * CPUs until told to stop: one that has ended is ESRCH, and ignored. */
static void *mover(void *unused)
{
	int cpu = test_first_allowed();

	(void)unused;
	for (unsigned long k = 0; !st.stop_moving; k++) {
		pid_t tid = __atomic_load_n(&st.tids[k % (unsigned long)st.workers], __ATOMIC_RELAXED);
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (tid != 0)
			(void)sched_setaffinity(tid, sizeof(one), &one);
		if (k % (unsigned long)st.workers == 0)
			cpu = test_next_allowed(cpu);
		usleep(100);
	}
	return NULL;
}

static void run_workers(int count)
{
	pthread_t *t = calloc((size_t)count, sizeof(*t)), move;

	st.tids = calloc((size_t)count, sizeof(*st.tids));
	ck_assert(t != NULL && st.tids != NULL);
	st.workers = count;
	st.stop_moving = 0;
	test_signal_every(on_signal);
	for (int i = 0; i < count; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
	ck_assert_int_eq(pthread_create(&move, NULL, mover, NULL), 0);
	for (int i = 0; i < count; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	st.stop_moving = 1;
	ck_assert_int_eq(pthread_join(move, NULL), 0);
	test_signal_stop();
	free(st.tids);
	free(t);
}

static void setup(enum test_kind kind, int index_kind)
{
	memset(&st, 0, sizeof(st));
	st.kind = kind;
	st.by = indexes[index_kind];
	st.limit = fastcpu_cid_limit();
	st.iterations = test_scaled(ITERATIONS);
	st.slots = aligned_alloc(STRIDE, (size_t)st.limit * sizeof(struct slot));
	ck_assert_ptr_nonnull(st.slots);
	memset(st.slots, 0, (size_t)st.limit * sizeof(struct slot));
}

#ifdef FASTCPU_RSEQ_INLINE
# define SEQUENCES 1	/* this build has them: workers with an area run them */
#else
# define SEQUENCES 0
#endif

/* The stress in rounds until the kernel has aborted some of the workers'
 * sequences, where they ran any (a short round on an idle machine may
 * never be preempted inside one), or half a minute; how many rounds. */
static int run_rounds(int count)
{
	double start = test_now_ms();
	int rounds = 0;

	do {
		run_workers(count);
		rounds++;
	} while (SEQUENCES && st.workers_with_area > 0 && st.aborts == 0 &&
		 test_now_ms() - start < 30000);
	return rounds;
}

/* Where the workers ran sequences, the kernel aborted some of them. */
static void check_aborts(void)
{
	if (SEQUENCES && st.workers_with_area > 0)
		ck_assert_msg(st.aborts > 0, "%d workers ran sequences, none aborted",
			      st.workers_with_area);
	else
		ck_assert_uint_eq(st.aborts, 0);
}

static int workers(void)
{
	return 4 * CPU_COUNT(&test_allowed);
}

static void counter_stress(int index_kind)
{
	unsigned long sum = 0;
	int n = workers(), rounds;

	setup(COUNTER, index_kind);
	rounds = run_rounds(n);
	for (int i = 0; i < st.limit; i++)
		sum += (unsigned long)st.slots[i].word;
	ck_assert_uint_eq(sum, (unsigned long)(rounds * n) *
			  (unsigned long)expected_per_worker() + st.handler_adds);
	ck_assert_int_eq(st.fork_child_wrong, 0);
	check_aborts();
	free(st.slots);
}

START_TEST(counter_exact_under_stress)
{
	counter_stress(_i);
}
END_TEST

START_TEST(lock_guards_plain_counter)
{
	unsigned long sum = 0;
	int n = workers(), rounds;

	setup(LOCK, _i);
	rounds = run_rounds(n);
	for (int i = 0; i < st.limit; i++) {
		ck_assert_int_eq(st.slots[i].word, 0);	/* every lock released */
		sum += st.slots[i].guarded;
	}
	ck_assert_uint_eq(sum, (unsigned long)(rounds * n) * (unsigned long)st.iterations);
	check_aborts();
	free(st.slots);
}
END_TEST

START_TEST(list_every_node_once)
{
	int n = workers(), *seen;

	setup(LIST, _i);
	st.node_count = 4 * n;
	st.nodes = calloc((size_t)st.node_count, sizeof(*st.nodes));
	seen = calloc((size_t)st.node_count, sizeof(*seen));
	ck_assert(st.nodes != NULL && seen != NULL);
	for (int i = 0; i < st.node_count; i++)
		fastcpu_percpu_push(st.slots, STRIDE, st.by, &st.nodes[i], next_offset());
	(void)run_rounds(n);
	ck_assert_int_eq(st.double_pops, 0);
	/* Every list, both halves, walked now that nothing runs. */
	for (int i = 0; i < st.limit; i++)
		for (struct node *p = (struct node *)st.slots[i].word; p != NULL; p = p->next) {
			ptrdiff_t k = p - st.nodes;

			ck_assert(k >= 0 && k < st.node_count);
			ck_assert_int_eq(p->taken, 0);
			seen[k]++;
		}
	for (int i = 0; i < st.node_count; i++)
		ck_assert_msg(seen[i] == 1, "node %d on the lists %d times", i, seen[i]);
	check_aborts();
	free(seen);
	free(st.nodes);
	free(st.slots);
}
END_TEST

/*
 * Every descriptor the inline sequences of this program put in __rseq_cs
 * (the kernel reads them on a preemption inside one, and its debug checks
 * on every return to user space): version and flags 0, a sequence that is
 * not empty, an abort handler outside it, preceded by the signature the
 * library registers with. Checked on every architecture, whether or not
 * the kernel under the test has rseq (qemu-user has not).
 */
struct descriptor {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
};
extern const struct descriptor __start___rseq_cs[] __attribute__((weak));
extern const struct descriptor __stop___rseq_cs[] __attribute__((weak));

START_TEST(descriptors_follow_the_abi)
{
	const struct descriptor *d = __start___rseq_cs;
	int count = 0;

#ifndef FASTCPU_RSEQ_INLINE
	ck_assert_ptr_eq(__start___rseq_cs, __stop___rseq_cs);
	return;
#endif
	for (; d < __stop___rseq_cs; d++, count++) {
		uint32_t signature;

		ck_assert_uint_eq((uintptr_t)d % 32, 0);
		ck_assert_uint_eq(d->version, 0);
		ck_assert_uint_eq(d->flags, 0);
		ck_assert_uint_gt(d->post_commit_offset, 0);
		ck_assert(d->abort_ip < d->start_ip ||
			  d->abort_ip >= d->start_ip + d->post_commit_offset);
		memcpy(&signature, (const void *)(uintptr_t)(d->abort_ip - 4), 4);
		ck_assert_uint_eq(signature, FASTCPU_RSEQ_SIGNATURE);
	}
	ck_assert_int_ge(count, 3);
}
END_TEST

/* The counter type on top, in its simplest use. */
START_TEST(counter_type)
{
	struct fastcpu_counter *c = fastcpu_counter_new();

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(fastcpu_counter_sum(c), 0);
	errno = EDOM;
	for (int i = 0; i < 1000; i++)
		fastcpu_counter_add(c, i % 2 ? 3 : -1);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(fastcpu_counter_sum(c), 1000);
	fastcpu_counter_free(c);
	fastcpu_counter_free(NULL);
}
END_TEST

/* Each fallback this machine has, forced: every thread takes the upper
 * half, still exact. */
static const char *const fallbacks[] = { "FASTCPU_BACKEND=syscall",
					 "FASTCPU_BACKEND=vdso",
					 "FASTCPU_BACKEND=rdpid" };

START_TEST(counter_exact_each_fallback)
{
	if ((_i / 2 == 1 && !test_has_vdso_getcpu()) ||
	    (_i / 2 == 2 && !test_cpu_has_rdpid()))
		return;
	if (TEST_RESPAWN(fallbacks[_i / 2]))
		return;
	counter_stress(_i % 2);
	ck_assert_int_eq(st.workers_with_area, 0);
}
END_TEST

/* Nothing can answer (the getcpu system call refused too, the cache on or
 * off): the add still lands, on CPU 0's slot of the upper half, and errno
 * stays as it was. */
START_TEST(add_when_nothing_answers)
{
	int limit;
	long *slots;

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall", _i ? "FASTCPU_CACHE=on" : "FASTCPU_CACHE=off"))
		return;
	limit = fastcpu_cid_limit();
	slots = calloc((size_t)limit, sizeof(*slots));
	ck_assert_ptr_nonnull(slots);
	test_deny_rseq(ENOSYS, true);
	errno = EDOM;
	for (int i = 0; i < 1000; i++)
		fastcpu_percpu_add(slots, sizeof(*slots), FASTCPU_BY_CPU, 3);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(slots[limit / 2], 3000);
	free(slots);
}
END_TEST

/*
 * One thread refused rseq by its own seccomp filter (installed before its
 * first call, so it takes the upper half) while the others run sequences on
 * the lower half: the total stays exact.
 */
static sigset_t alarm_only;

/* Starts with SIGALRM blocked (its creator's mask): no handler may make
 * its first call before the filter is in. */
static void *refused_worker(void *index)
{
	test_deny_rseq(EPERM, false);
	(void)fastcpu_sched_getcpu();
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	return worker(index);
}

START_TEST(counter_exact_one_thread_refused)
{
	pthread_t refused, normal;
	unsigned long sum = 0;

	setup(COUNTER, _i);
	test_signal_every(on_signal);
	ck_assert_int_eq(pthread_create(&normal, NULL, worker, (void *)1), 0);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	ck_assert_int_eq(pthread_create(&refused, NULL, refused_worker, (void *)2), 0);
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	ck_assert_int_eq(pthread_join(normal, NULL), 0);
	ck_assert_int_eq(pthread_join(refused, NULL), 0);
	test_signal_stop();
	for (int i = 0; i < st.limit; i++)
		sum += (unsigned long)st.slots[i].word;
	ck_assert_uint_eq(sum, 2 * (unsigned long)expected_per_worker() + st.handler_adds);
	ck_assert_int_eq(st.workers_with_area, 1);
	/* the refused one used the upper half, the other the lower */
	sum = 0;
	for (int i = st.limit / 2; i < st.limit; i++)
		sum += (unsigned long)st.slots[i].word;
	ck_assert_uint_ge(sum, (unsigned long)expected_per_worker());
	free(st.slots);
}
END_TEST

Suite *suite_percpu(void)
{
	Suite *s = suite_create("percpu");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, descriptors_follow_the_abi);
	tcase_add_test(tc, counter_type);
	tcase_add_loop_test(tc, counter_exact_under_stress, 0, 2);
	tcase_add_loop_test(tc, lock_guards_plain_counter, 0, 2);
	tcase_add_loop_test(tc, list_every_node_once, 0, 2);
	test_add_respawning(tc, counter_exact_each_fallback, 0, 6);
	if (test_seccomp_works())
		test_add_respawning(tc, add_when_nothing_answers, 0, 2);
	/* glibc aborts a new thread whose rseq registration fails */
	if (test_seccomp_works() && !test_glibc_registered_rseq() &&
	    test_kernel_rseq_usable())
		tcase_add_loop_test(tc, counter_exact_one_thread_refused, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
