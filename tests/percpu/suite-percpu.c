/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-percpu.c: per-CPU counter, lock and free list under stress. */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every sequence the kernel aborted, counted by the thread it ran in. */
static __thread unsigned long aborts_here;
#define FASTCPU_PERCPU_ON_ABORT() ((void)aborts_here++)

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

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
	unsigned long handler_adds;	/* total the handler added */
	int handler_calls;
	int double_pops;		/* a node popped while taken */
	unsigned long aborts;
	int workers_running_sequences;
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
	test_stress_enlist((int)(intptr_t)index);
	(void)fastcpu_sched_getcpu();	/* attach: does this thread run sequences? */
	if (fastcpu_private_runs_sequences())
		__atomic_fetch_add(&st.workers_running_sequences, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < st.iterations; i++) {
		work_once(i);
		if (i == st.iterations / 2 && (intptr_t)index == 0 && st.kind == COUNTER)
			fork_and_check_child();
	}
	__atomic_fetch_add(&st.aborts, aborts_here, __ATOMIC_RELAXED);
	return NULL;
}

static void run_workers(int count)
{
	test_stress_run(count, worker, on_signal);
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
	} while (SEQUENCES && st.workers_running_sequences > 0 && st.aborts == 0 &&
		 test_now_ms() - start < 30000);
	return rounds;
}

/* Where the workers ran sequences, the kernel aborted some of them. */
static void check_aborts(void)
{
	if (SEQUENCES && st.workers_running_sequences > 0)
		ck_assert_msg(st.aborts > 0, "%d workers ran sequences, none aborted",
			      st.workers_running_sequences);
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
 * Two threads without sequences each hold the pop turn of their CPU's slot
 * of the upper half: each pop faults on reading its node's next (the node's
 * page made unreadable after its push), and in the fault's handler the
 * thread, moved to the other one's CPU, pops again; the turn it wants is
 * the other's, whose holder's handler wants its own. Each handler must take
 * another way at once (here: NULL): they once waited for each other for
 * ever (the check's timeout; one run in ten of the list stress of a
 * generic build met it). Enough pops that a thread whose fallback keeps
 * its answer for a while asks again.
 */
#define CIRCLE_POPS 2100	/* over lib/percpu/upper.h's reuses */

static struct {
	char *pages;		/* a node at the start of each of two */
	size_t page;
	int cpus[2];
	intptr_t *slots;	/* fastcpu_cid_limit() of them */
	int holding;		/* handlers inside their turns */
	int nested_found;	/* nodes the handlers' pops found */
} circle;

static void circle_on_fault(int sig, siginfo_t *info, void *context)
{
	int me = (char *)info->si_addr >= circle.pages + circle.page;
	cpu_set_t other;

	(void)sig;
	(void)context;
	(void)mprotect(circle.pages + (size_t)me * circle.page, circle.page,
		       PROT_READ | PROT_WRITE);
	__atomic_add_fetch(&circle.holding, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&circle.holding, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	CPU_ZERO(&other);
	CPU_SET(circle.cpus[!me], &other);
	(void)sched_setaffinity(0, sizeof(other), &other);
	for (int i = 0; i < CIRCLE_POPS; i++)
		if (fastcpu_percpu_pop(circle.slots, sizeof(intptr_t), FASTCPU_BY_CPU, 0) != NULL)
			__atomic_add_fetch(&circle.nested_found, 1, __ATOMIC_RELAXED);
}

static void *circle_thread(void *which)
{
	int me = (int)(intptr_t)which;
	char *node = circle.pages + (size_t)me * circle.page;

	test_pin(circle.cpus[me]);
	fastcpu_percpu_push(circle.slots, sizeof(intptr_t), FASTCPU_BY_CPU, node, 0);
	ck_assert_int_eq(mprotect(node, circle.page, PROT_NONE), 0);
	return fastcpu_percpu_pop(circle.slots, sizeof(intptr_t), FASTCPU_BY_CPU, 0);
}

START_TEST(upper_pop_handlers_never_wait_in_a_circle)
{
	struct sigaction sa = { .sa_sigaction = circle_on_fault, .sa_flags = SA_SIGINFO };
	pthread_t threads[2];
	void *popped[2];

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall"))
		return;
	circle.cpus[0] = test_first_allowed();
	circle.cpus[1] = test_next_allowed(circle.cpus[0]);
	if (circle.cpus[1] == circle.cpus[0])
		return;		/* one CPU: no other turn to want */
	circle.slots = calloc((size_t)fastcpu_cid_limit(), sizeof(intptr_t));
	ck_assert_ptr_nonnull(circle.slots);
	circle.page = (size_t)sysconf(_SC_PAGESIZE);
	circle.pages = mmap(NULL, 2 * circle.page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(circle.pages, MAP_FAILED);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, circle_thread,
						(void *)(intptr_t)i), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(threads[i], &popped[i]), 0);
	signal(SIGSEGV, SIG_DFL);
	ck_assert_int_eq(circle.holding, 2);	/* both faulted inside a turn */
	ck_assert_ptr_eq(popped[0], circle.pages);
	ck_assert_ptr_eq(popped[1], circle.pages + circle.page);
	ck_assert_int_eq(circle.nested_found, 0);
	ck_assert_ptr_null(fastcpu_percpu_pop(circle.slots, sizeof(intptr_t), FASTCPU_BY_CPU, 0));
	munmap(circle.pages, 2 * circle.page);
	free(circle.slots);
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

/*
 * The inline operations find the words of the thread's area from the
 * published offsets, each of which a function may have loaded before
 * publication and kept (0: the anchor). Every mix of kept and fresh
 * offsets finds either the thread's own cpu_id and index words, or sends
 * the caller out of line (-1): never another word (a sum of a kept offset
 * and fresh ones found one inside the thread's descriptor, which two
 * threads then shared as their index).
 */
#ifdef FASTCPU_RSEQ_INLINE
static __attribute__((noinline)) int find_inline(enum fastcpu_index by,
						  const volatile int **cpu_at,
						  const volatile int **index_at)
{
	return fastcpu_percpu_index_(by, cpu_at, index_at);
}
#endif

START_TEST(inline_words_from_any_mix_of_offsets)
{
#ifdef FASTCPU_RSEQ_INLINE
	ptrdiff_t *const words[] = { &fastcpu_percpu_cpu_id_offset, &fastcpu_cpu_id_offset,
				     &fastcpu_cid_offset };
	enum { WORDS = sizeof(words) / sizeof(words[0]) };
	ptrdiff_t published[WORDS];
	const volatile int *cpu_at, *index_at, *cpu_word, *cid_word;
	long *slots = calloc((size_t)fastcpu_cid_limit(), sizeof(long));

	ck_assert_ptr_nonnull(slots);
	fastcpu_percpu_add(slots, sizeof(slots[0]), FASTCPU_BY_CID, 1);
	free(slots);
	if (fastcpu_percpu_cpu_id_offset == 0)
		return;		/* no area at the published offset here */
	for (int w = 0; w < WORDS; w++)
		published[w] = *words[w];
	cpu_word = fastcpu_tls_word_(fastcpu_percpu_cpu_id_offset);
	cid_word = fastcpu_tls_word_(fastcpu_cid_offset);
	for (unsigned int kept = 0; kept < 1u << WORDS; kept++) {
		for (int w = 0; w < WORDS; w++)
			*words[w] = kept >> w & 1 ? 0 : published[w];
		for (int by = 0; by < 2; by++) {
			int index = find_inline(indexes[by], &cpu_at, &index_at);

			if (index < 0)
				continue;
			ck_assert_msg(cpu_at == cpu_word && index_at ==
				      (indexes[by] == FASTCPU_BY_CPU ? cpu_word : cid_word),
				      "offsets kept from before publication (mask %u): the words of"
				      " another place", kept);
		}
	}
	for (int w = 0; w < WORDS; w++)
		*words[w] = published[w];
#endif
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
	ck_assert_int_eq(st.workers_running_sequences, 0);
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
 * A new thread's first add, in line, where the process runs sequences:
 * the lower half, as the thread's sequences decide (once its area is
 * known), never RDPID's slot of the upper half, which the inline
 * operations read themselves only for a thread attached to no area. The
 * thread once took the upper half unattached wherever RDPID was the
 * fallback, its own area never registered. Then forced RDPID: the upper.
 */
static void *first_add(void *slots)
{
	fastcpu_percpu_add(slots, sizeof(long), FASTCPU_BY_CPU, 1);
	return (void *)(intptr_t)fastcpu_private_runs_sequences();
}

START_TEST(first_add_takes_the_half_the_thread_decides)
{
	int cpu = test_first_allowed(), half;
	long *slots, *warm;
	pthread_attr_t attr;
	pthread_t thread;
	cpu_set_t one;
	void *sequences;

	if (_i == 1 && (!test_cpu_has_rdpid() || TEST_RESPAWN("FASTCPU_BACKEND=rdpid")))
		return;
	half = fastcpu_cid_limit() / 2;
	slots = calloc((size_t)fastcpu_cid_limit(), sizeof(*slots));
	warm = calloc((size_t)fastcpu_cid_limit(), sizeof(*warm));
	ck_assert(slots != NULL && warm != NULL);
	fastcpu_percpu_add(warm, sizeof(*warm), FASTCPU_BY_CPU, 1);	/* this thread attached */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setaffinity_np(&attr, sizeof(one), &one), 0);
	ck_assert_int_eq(pthread_create(&thread, &attr, first_add, slots), 0);
	pthread_attr_destroy(&attr);
	ck_assert_int_eq(pthread_join(thread, &sequences), 0);
	ck_assert_msg(slots[cpu] == (sequences ? 1 : 0) && slots[cpu + half] == (sequences ? 0 : 1),
		      "a thread that %s sequences added %ld to its CPU's lower slot, %ld to its upper",
		      sequences ? "runs" : "runs no", slots[cpu], slots[cpu + half]);
	if (_i == 1)
		ck_assert_ptr_null(sequences);
	free(warm);
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
	ck_assert_int_eq(st.workers_running_sequences, fastcpu_private_runs_sequences());
	/* the refused one used the upper half, the other the lower */
	sum = 0;
	for (int i = st.limit / 2; i < st.limit; i++)
		sum += (unsigned long)st.slots[i].word;
	ck_assert_uint_ge(sum, (unsigned long)expected_per_worker());
	free(st.slots);
}
END_TEST

/*
 * The upper half's pops, with a list of 1000 nodes a thread, each thread
 * on a CPU of its own, its own slot of one array: no pop may say NULL,
 * whatever the stride (pops once took turns by the slot's address, and
 * every slot of a 512-byte stride shared one: a pop said "empty" while
 * another thread popped another list).
 */
#define LIST_NODES 1000

struct pop_run {
	int cpu;
	size_t stride;
	char *slots;		/* the array, shared */
	struct node *nodes;	/* this thread's */
	long empty;		/* pops that said NULL */
};

static void *pop_and_push(void *arg)
{
	struct pop_run *r = arg;
	long rounds = test_scaled(100000);

	test_pin(r->cpu);
	for (int i = 0; i < LIST_NODES; i++)
		fastcpu_percpu_push(r->slots, r->stride, FASTCPU_BY_CPU, &r->nodes[i], next_offset());
	for (long i = 0; i < rounds; i++) {
		struct node *n = fastcpu_percpu_pop(r->slots, r->stride, FASTCPU_BY_CPU,
						    next_offset());

		if (n == NULL)
			r->empty++;
		else
			fastcpu_percpu_push(r->slots, r->stride, FASTCPU_BY_CPU, n, next_offset());
	}
	return NULL;
}

/* A run on cpu with its own nodes, on slots (a new array where NULL). */
static void pop_run_make(struct pop_run *r, int cpu, size_t stride, char *slots)
{
	*r = (struct pop_run){ .cpu = cpu, .stride = stride, .slots = slots };
	if (slots == NULL) {
		/* aligned_alloc wants a multiple of the alignment (C11) */
		size_t bytes = ((size_t)fastcpu_cid_limit() * stride + 63) & ~(size_t)63;

		r->slots = aligned_alloc(64, bytes);
		ck_assert_ptr_nonnull(r->slots);
		memset(r->slots, 0, bytes);
	}
	r->nodes = calloc(LIST_NODES, sizeof(*r->nodes));
	ck_assert_ptr_nonnull(r->nodes);
}

static const size_t strides[] = { 8, 64, 512, 4096 };

START_TEST(upper_pop_never_empty_by_mistake)
{
	int a = test_first_allowed(), b = test_next_allowed(a);
	struct pop_run run[2];
	pthread_t t[2];

	if (a == b)
		return;		/* one CPU: the test needs two */
	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall"))
		return;
	pop_run_make(&run[0], a, strides[_i], NULL);
	pop_run_make(&run[1], b, strides[_i], run[0].slots);
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, pop_and_push, &run[k]), 0);
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	ck_assert_msg(run[0].empty == 0 && run[1].empty == 0,
		      "stride %zu: %ld and %ld pops of non-empty lists said NULL", strides[_i],
		      run[0].empty, run[1].empty);
	free(run[0].slots);
	free(run[0].nodes);
	free(run[1].nodes);
}
END_TEST

/*
 * A fork while another thread is inside an upper-half pop: the child must
 * not find that pop's turn taken for good. A thread on CPU a pops and
 * pushes the list of a's slot without pause; the main thread (on b) forks
 * once it pops; each child moves to a and pops 50 nodes of that list,
 * which has more. A child of a threaded process may call only what is
 * async-signal-safe: Check's assertions lock a mutex the other thread may
 * have held at the fork (a child once waited on it for ever).
 */
static volatile int keep_popping, popping;

static void *pop_until_told(void *arg)
{
	struct pop_run *r = arg;

	test_pin(r->cpu);
	for (int i = 0; i < LIST_NODES; i++)
		fastcpu_percpu_push(r->slots, r->stride, FASTCPU_BY_CPU, &r->nodes[i], next_offset());
	__atomic_store_n(&popping, 1, __ATOMIC_RELEASE);
	while (keep_popping) {
		struct node *n = fastcpu_percpu_pop(r->slots, r->stride, FASTCPU_BY_CPU,
						    next_offset());

		if (n != NULL)
			fastcpu_percpu_push(r->slots, r->stride, FASTCPU_BY_CPU, n, next_offset());
	}
	return NULL;
}

START_TEST(upper_pop_after_fork)
{
	int a = test_first_allowed(), b = test_next_allowed(a), stuck = 0;
	int children = (int)test_scaled(300);
	struct pop_run busy, mine;
	pthread_t t;

	/* valgrind runs one thread at a time, and hands its lock back to the
	 * one that never blocks: the forking thread would wait for ever */
	if (a == b || test_under_valgrind())
		return;
	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall"))
		return;
	pop_run_make(&busy, a, 512, NULL);
	pop_run_make(&mine, a, 512, busy.slots);
	test_pin(a);
	for (int i = 0; i < 50; i++)
		fastcpu_percpu_push(mine.slots, mine.stride, FASTCPU_BY_CPU, &mine.nodes[i],
				    next_offset());
	test_pin(b);
	keep_popping = 1;
	popping = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, pop_until_told, &busy), 0);
	while (!__atomic_load_n(&popping, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			int got = 0;

			if (!test_try_pin(a))
				_exit(2);
			for (int i = 0; i < 50; i++)
				got += fastcpu_percpu_pop(mine.slots, mine.stride, FASTCPU_BY_CPU,
							  next_offset()) != NULL;
			_exit(got == 50 ? 0 : 1);
		}
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		stuck += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	keep_popping = 0;
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(stuck == 0, "%d of %d fork children did not get their 50 nodes", stuck,
		      children);
	free(busy.slots);
	free(busy.nodes);
	free(mine.nodes);
}
END_TEST

/*
 * The lock's holder and a waiter on one CPU, the holder working 20 ms of
 * CPU time inside: the waiter may spin only briefly, then must give the
 * CPU to the holder (it once spun away its time slices: 17 ms). A
 * SCHED_FIFO waiter (where this process may have one) too: it yields only
 * to its own priority, so it must sleep (it once spun until the kernel's
 * real-time throttling stopped it, 0.95 s; for ever without throttling).
 * The bound: 5 ms, and twenty times what 50 sleeps cost here (~8 ms more
 * on a Zen 1 KVM guest, well under the 17 ms of a spinning waiter; in a
 * TCG guest on a loaded host a waiter whose sleeps preempt the holder paid
 * 13x the calibration, 22.4 ms, where the FIFO spinner paid 0.95 s).
 */
struct lock_run {
	char *slots;
	double waiter_cpu_ms;
};

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Started, on the holder's CPU, once the holder has the lock. */
static void *lock_waiter(void *arg)
{
	struct lock_run *r = arg;
	double t0 = thread_cpu_ms();
	int slot = fastcpu_percpu_lock(r->slots, STRIDE, FASTCPU_BY_CPU);

	r->waiter_cpu_ms = thread_cpu_ms() - t0;
	fastcpu_percpu_unlock(r->slots, STRIDE, slot);
	return NULL;
}

/* What 50 sleeps cost the calling thread in CPU time here, about as many
 * as the waiter's yields and sleeps while the holder works: a fraction of
 * a millisecond on hardware, tens of times more in an emulated guest. A
 * sleep that preempts a running holder costs more than one on an idle CPU:
 * in an arm64 TCG guest 50 sleeps cost 0.6 ms, the waiter 6.9 ms. */
static double fifty_sleeps_cpu_ms(void)
{
	struct timespec nap = { 0, 1000 };
	double t0 = thread_cpu_ms();

	for (int k = 0; k < 50; k++)
		nanosleep(&nap, NULL);
	return thread_cpu_ms() - t0;
}

START_TEST(lock_waiter_gives_way)
{
	struct lock_run r = { NULL, 0 };
	struct sched_param fifo = { .sched_priority = 1 };
	int cpu = test_first_allowed(), slot, created;
	pthread_attr_t attr;
	pthread_t waiter;
	cpu_set_t one;
	double t0, bound;

	if (test_instrumented())
		return;		/* valgrind runs one thread at a time */
	bound = 5 + 20 * fifty_sleeps_cpu_ms();
	r.slots = aligned_alloc(STRIDE, (size_t)fastcpu_cid_limit() * STRIDE);
	ck_assert_ptr_nonnull(r.slots);
	memset(r.slots, 0, (size_t)fastcpu_cid_limit() * STRIDE);
	test_pin(cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setaffinity_np(&attr, sizeof(one), &one), 0);
	if (_i == 1) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &fifo);
	}
	slot = fastcpu_percpu_lock(r.slots, STRIDE, FASTCPU_BY_CPU);
	created = pthread_create(&waiter, &attr, lock_waiter, &r);
	if (created == 0)
		for (t0 = thread_cpu_ms(); thread_cpu_ms() - t0 < 20;)
			;
	fastcpu_percpu_unlock(r.slots, STRIDE, slot);
	pthread_attr_destroy(&attr);
	if (created != 0) {
		ck_assert_int_eq(_i, 1);	/* no real-time priority here */
		free(r.slots);
		return;
	}
	ck_assert_int_eq(pthread_join(waiter, NULL), 0);
	ck_assert_msg(r.waiter_cpu_ms < bound,
		      "the waiter (%s) spent %.1f ms of CPU waiting (bound %.1f ms)",
		      _i ? "SCHED_FIFO" : "SCHED_OTHER", r.waiter_cpu_ms, bound);
	free(r.slots);
}
END_TEST

/*
 * A thread waiting in fastcpu_percpu_lock() for the lock another thread
 * holds (both on one CPU, one slot), cancelled (deferred): no function of
 * the library is a cancellation point (glibc's pthread_mutex_lock is not
 * either), so it returns with the lock once given, and the cancel acts at
 * its own next cancellation point. The wait once slept in nanosleep(), and
 * the waiter was cancelled inside the library. With sequences where the
 * process has them, then in the upper half.
 */
static struct {
	char *slots;
	int calling, returned;
} cancelled;

static void *lock_then_test_cancel(void *unused)
{
	int slot;

	(void)unused;
	__atomic_store_n(&cancelled.calling, 1, __ATOMIC_RELEASE);
	slot = fastcpu_percpu_lock(cancelled.slots, STRIDE, FASTCPU_BY_CPU);
	__atomic_store_n(&cancelled.returned, 1, __ATOMIC_RELEASE);
	fastcpu_percpu_unlock(cancelled.slots, STRIDE, slot);
	pthread_testcancel();
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

START_TEST(lock_waiter_cancelled_returns_with_the_lock)
{
	int cpu = test_first_allowed(), slot;
	pthread_attr_t attr;
	pthread_t waiter;
	cpu_set_t one;
	void *result;

	if (_i == 1 && TEST_RESPAWN("FASTCPU_BACKEND=syscall", "GLIBC_TUNABLES=glibc.pthread.rseq=0"))
		return;
	memset(&cancelled, 0, sizeof(cancelled));
	cancelled.slots = aligned_alloc(STRIDE, (size_t)fastcpu_cid_limit() * STRIDE);
	ck_assert_ptr_nonnull(cancelled.slots);
	memset(cancelled.slots, 0, (size_t)fastcpu_cid_limit() * STRIDE);
	test_pin(cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setaffinity_np(&attr, sizeof(one), &one), 0);
	slot = fastcpu_percpu_lock(cancelled.slots, STRIDE, FASTCPU_BY_CPU);
	ck_assert_int_eq(pthread_create(&waiter, &attr, lock_then_test_cancel, NULL), 0);
	pthread_attr_destroy(&attr);
	while (!__atomic_load_n(&cancelled.calling, __ATOMIC_ACQUIRE))
		sched_yield();
	sleep_ms(50);		/* past its spins and yields: it sleeps */
	ck_assert_msg(!__atomic_load_n(&cancelled.returned, __ATOMIC_ACQUIRE),
		      "the waiter took a lock that was held");
	ck_assert_int_eq(pthread_cancel(waiter), 0);
	sleep_ms(20);		/* the cancel delivered while it waits */
	fastcpu_percpu_unlock(cancelled.slots, STRIDE, slot);
	ck_assert_int_eq(pthread_join(waiter, &result), 0);
	ck_assert_ptr_eq(result, PTHREAD_CANCELED);
	ck_assert_msg(__atomic_load_n(&cancelled.returned, __ATOMIC_ACQUIRE),
		      "the waiter was cancelled inside fastcpu_percpu_lock()");
	slot = fastcpu_percpu_lock(cancelled.slots, STRIDE, FASTCPU_BY_CPU);
	fastcpu_percpu_unlock(cancelled.slots, STRIDE, slot);
	free(cancelled.slots);
}
END_TEST

/*
 * The lock and the kernel's time-slice extension. The area's words, from
 * the published cpu_id: flags (the kernel's), slice_ctrl's request and
 * granted bytes. Where the kernel offers the extension to the thread's
 * area (available), the library has enabled it; then the holder has a
 * request or a grant while it holds a lock, once for locks inside locks,
 * survives a system call inside (the kernel's debug checks kill a thread
 * whose request and grant disagree with its own), and leaves no request
 * after the unlock. Where it is not offered (most kernels: not built in,
 * or glibc's registration too short), the lock never touches slice_ctrl.
 */
struct slice_view {
	const volatile int *cpu_id;
	const volatile unsigned int *flags;
	const volatile unsigned char *request, *granted;
};

static bool slice_view(struct slice_view *v)
{
	v->cpu_id = fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));
	if (*v->cpu_id < 0)
		return false;
	v->flags = (const volatile unsigned int *)(const volatile void *)
		((const volatile char *)v->cpu_id + 12);
	v->request = (const volatile unsigned char *)v->cpu_id + 24;
	v->granted = (const volatile unsigned char *)v->cpu_id + 25;
	return true;
}

START_TEST(lock_asks_for_more_time_where_offered)
{
	char *slots = aligned_alloc(STRIDE, (size_t)fastcpu_cid_limit() * STRIDE);
	unsigned long feature = getauxval(27);	/* AT_RSEQ_FEATURE_SIZE */
	struct slice_view v;
	int a, b, offered, asked = 0;

	ck_assert_ptr_nonnull(slots);
	memset(slots, 0, (size_t)fastcpu_cid_limit() * STRIDE);
	(void)fastcpu_sched_getcpu();
	if (!slice_view(&v)) {
		free(slots);
		return;		/* no area at the published word: nothing to ask with */
	}
	offered = (*v.flags & 0x10) != 0;
	if (offered)
		ck_assert_msg(*v.flags & 0x20, "the kernel offers the extension, not enabled");
	if (feature < 33) {
		ck_assert_int_eq(offered, 0);	/* the field is not there */
		free(slots);
		return;
	}
	for (int round = 0; round < 1000; round++) {
		a = fastcpu_percpu_lock(slots, STRIDE, FASTCPU_BY_CPU);
		/* (the kernel clears a request when it preempts the thread
		 * all the same: most rounds, not all) */
		asked += *v.request == 1 || *v.granted == 1;
		b = fastcpu_percpu_lock(slots + STRIDE / 2, STRIDE, FASTCPU_BY_CPU);
		(void)syscall(SYS_getppid);
		fastcpu_percpu_unlock(slots + STRIDE / 2, STRIDE, b);
		fastcpu_percpu_unlock(slots, STRIDE, a);
		ck_assert_int_eq(*v.request, 0);
	}
	if (offered)
		ck_assert_msg(asked > 900, "a request or a grant in %d of 1000 rounds", asked);
	else
		ck_assert_int_eq(asked, 0);
	printf("lock_asks_for_more_time_where_offered: the kernel %s it: %d of 1000 locks asked\n",
	       offered ? "offers" : "does not offer", asked);
	free(slots);
}
END_TEST

Suite *suite_percpu(void)
{
	Suite *s = suite_create("percpu");
	TCase *tc = tcase_create("default");

	TCase *exact = test_exactness_case();

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, descriptors_follow_the_abi);
	tcase_add_test(tc, counter_type);
	tcase_add_test(tc, inline_words_from_any_mix_of_offsets);
	tcase_add_loop_test(exact, counter_exact_under_stress, 0, 2);
	tcase_add_loop_test(exact, lock_guards_plain_counter, 0, 2);
	tcase_add_loop_test(exact, list_every_node_once, 0, 2);
	test_add_respawning(tc, counter_exact_each_fallback, 0, 6);
	test_add_respawning(tc, upper_pop_handlers_never_wait_in_a_circle, 0, 1);
	test_add_respawning(tc, upper_pop_never_empty_by_mistake, 0,
			    (int)(sizeof(strides) / sizeof(strides[0])));
	test_add_respawning(tc, upper_pop_after_fork, 0, 1);
	tcase_add_loop_test(tc, lock_waiter_gives_way, 0, 2);
	test_add_respawning(tc, lock_waiter_cancelled_returns_with_the_lock, 0, 2);
	tcase_add_test(tc, lock_asks_for_more_time_where_offered);
	test_add_respawning(tc, first_add_takes_the_half_the_thread_decides, 0, 2);
	if (test_seccomp_works())
		test_add_respawning(tc, add_when_nothing_answers, 0, 2);
	/* glibc aborts a new thread whose rseq registration fails */
	if (test_seccomp_works() && !test_glibc_registered_rseq() &&
	    test_kernel_rseq_usable())
		tcase_add_loop_test(tc, counter_exact_one_thread_refused, 0, 2);
	suite_add_tcase(s, exact);
	suite_add_tcase(s, tc);
	return s;
}
