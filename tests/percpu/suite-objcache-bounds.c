/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-objcache-bounds.c: the object cache's bounds: memory, progress, address space. */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

/* Each test runs as the process is, then in the upper half (a fallback
 * forced, glibc's area off: no thread runs a sequence). */
static const char *const upper_half[] = { "FASTCPU_BACKEND=syscall",
					  "GLIBC_TUNABLES=glibc.pthread.rseq=0" };

#define RESPAWNED_INTO_UPPER_HALF() (_i == 1 && TEST_RESPAWN(upper_half[0], upper_half[1]) != NULL)

static struct fastcpu_private_census census_of(const struct fastcpu_objcache *cache)
{
	struct fastcpu_private_census c;

	ck_assert_int_eq(fastcpu_private_objcache_census(cache, &c), 0);
	ck_assert_uint_eq(c.repeated, 0);
	ck_assert_uint_eq(c.strays, 0);
	return c;
}

/*
 * The review's reproducer: four threads per allowed CPU, each taking 8
 * objects of 4096 bytes and giving them back, for as long as they can.
 * Whatever the contention, an object is carved only where the depot has
 * none to give, so the cache never holds more than what the threads hold,
 * a full magazine per index, one magazine in flight per thread (taken
 * from the depot, not yet installed) and the magazine being filled; and
 * the second second carves no more than that either. (The cache of 0.4
 * gave up on a contended depot and carved: 9,486 to 19,774 objects, and
 * climbing, on 2 CPUs.)
 */
#define CONTENDED_SIZE 4096
#define CONTENDED_HELD 8

static struct {
	struct fastcpu_objcache *cache;
	int stop;
	unsigned long nulls, rounds;
} contended;

static void *take_eight(void *unused)
{
	void *o[CONTENDED_HELD];

	(void)unused;
	while (!__atomic_load_n(&contended.stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < CONTENDED_HELD; i++)
			if ((o[i] = fastcpu_objcache_alloc(contended.cache)) == NULL)
				__atomic_fetch_add(&contended.nulls, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < CONTENDED_HELD; i++)
			fastcpu_objcache_free(contended.cache, o[i]);
		__atomic_fetch_add(&contended.rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void contend(int threads, long ms)
{
	pthread_t *t = calloc((size_t)threads, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	__atomic_store_n(&contended.stop, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, take_eight, NULL), 0);
	usleep((useconds_t)(ms * 1000));
	__atomic_store_n(&contended.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	free(t);
}

START_TEST(objcache_bounded_under_contention)
{
	int threads = 4 * CPU_COUNT(&test_allowed);
	struct fastcpu_private_census first, second;
	size_t bound;

	if (threads < 8)
		threads = 8;
	if (RESPAWNED_INTO_UPPER_HALF())
		return;
	memset(&contended, 0, sizeof(contended));
	contended.cache = fastcpu_objcache_new(CONTENDED_SIZE, 0);
	ck_assert_ptr_nonnull(contended.cache);
	contend(threads, 1000);
	first = census_of(contended.cache);
	contend(threads, 1000);
	second = census_of(contended.cache);
	bound = (size_t)threads * CONTENDED_HELD +
		second.limit * (second.indexes_used + (size_t)threads + 1);
	printf("objcache_bounded_under_contention: %d threads, %lu rounds: carved %zu, then %zu "
	       "(bound %zu)\n", threads, contended.rounds, first.carved, second.carved, bound);
	ck_assert_uint_eq(contended.nulls, 0);
	ck_assert_uint_gt(contended.rounds, 0);
	ck_assert_msg(second.carved <= bound, "carved %zu objects, more than %zu", second.carved,
		      bound);
	ck_assert_uint_eq(second.listed + second.in_depot, second.carved);
	fastcpu_objcache_destroy(contended.cache);
}
END_TEST

/*
 * A thread refused rseq by seccomp (the upper half, under locks) whose
 * periodic signal's handler uses the cache too: the handler finds the
 * lock its own thread holds, and must not wait for it. The thread keeps
 * making progress: no stretch of a second without a round (the cache of 0.4
 * took the lock, then recorded it as held: a handler between the two
 * waited on its own thread, and the thread stood still for seconds).
 */
#define HANDLER_OBJECTS 16
#define NODES 64

static struct {
	struct fastcpu_objcache *cache;
	long *list;			/* per-CPU lists, in the upper half */
	struct node { struct node *next; } *nodes;
	unsigned long handler_calls, handler_nulls;
	double longest_gap_ms;
	long rounds;
} progress;

static void handler_uses_the_cache(int sig)
{
	int saved = errno;
	void *o[HANDLER_OBJECTS];
	struct node *n;

	(void)sig;
	for (int i = 0; i < HANDLER_OBJECTS; i++)
		o[i] = fastcpu_objcache_alloc(progress.cache);
	for (int i = 0; i < HANDLER_OBJECTS; i++)
		if (o[i] != NULL)
			fastcpu_objcache_free(progress.cache, o[i]);
		else
			progress.handler_nulls++;
	n = fastcpu_percpu_pop(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, 0);
	if (n != NULL)
		fastcpu_percpu_push(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, n, 0);
	progress.handler_calls++;
	errno = saved;
}

static void *refused_and_signalled(void *ms)
{
	sigset_t alarm_only;
	double start, last;

	test_deny_rseq(EPERM, false);
	(void)fastcpu_sched_getcpu();
	for (int i = 0; i < NODES; i++)		/* onto the upper half's lists */
		fastcpu_percpu_push(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU,
				    &progress.nodes[i], 0);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	start = last = test_now_ms();
	while (last - start < (double)(intptr_t)ms) {
		void *o[HANDLER_OBJECTS];
		struct node *n;
		double now;

		for (int i = 0; i < HANDLER_OBJECTS; i++)
			ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(progress.cache));
		for (int i = 0; i < HANDLER_OBJECTS; i++)
			fastcpu_objcache_free(progress.cache, o[i]);
		n = fastcpu_percpu_pop(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, 0);
		if (n != NULL)
			fastcpu_percpu_push(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, n, 0);
		now = test_now_ms();
		if (now - last > progress.longest_gap_ms)
			progress.longest_gap_ms = now - last;
		last = now;
		progress.rounds++;
	}
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	return NULL;
}

START_TEST(objcache_progress_with_handlers_in_upper_half)
{
	sigset_t alarm_only;
	pthread_t t;

	/* glibc aborts a new thread whose registration is refused: its
	 * area off, the thread registers its own, and is refused. */
	if (TEST_RESPAWN("GLIBC_TUNABLES=glibc.pthread.rseq=0"))
		return;
	memset(&progress, 0, sizeof(progress));
	progress.cache = fastcpu_objcache_new(64, 0);
	progress.list = fastcpu_percpu_zalloc(sizeof(long));
	progress.nodes = calloc(NODES, sizeof(*progress.nodes));
	ck_assert(progress.cache != NULL && progress.list != NULL && progress.nodes != NULL);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);	/* the signals go to the thread */
	test_signal_every_us(handler_uses_the_cache, test_instrumented() ? 500 : 50);
	ck_assert_int_eq(pthread_create(&t, NULL, refused_and_signalled, (void *)(intptr_t)3000), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	test_signal_stop();
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	printf("objcache_progress_with_handlers_in_upper_half: %ld rounds, %lu handler calls, "
	       "longest gap %.1f ms\n", progress.rounds, progress.handler_calls,
	       progress.longest_gap_ms);
	ck_assert_uint_gt(progress.handler_calls, 100);
	ck_assert_msg(progress.longest_gap_ms < 1000, "the thread stood still for %.0f ms",
		      progress.longest_gap_ms);
	ck_assert_uint_eq(progress.handler_nulls, 0);
	(void)census_of(progress.cache);
	fastcpu_objcache_destroy(progress.cache);
	fastcpu_percpu_free(progress.list);
	free(progress.nodes);
}
END_TEST

/*
 * ENOMEM means the address space is used up: under RLIMIT_AS 768 MiB above
 * what the process maps, objects of 4096 bytes come until no 16 MiB is
 * left to map (the cache of 0.4 doubled its regions and tried nothing
 * smaller: NULL after 511 MiB, with 256 MiB still free).
 */
START_TEST(objcache_enomem_only_when_used_up)
{
	const size_t more = (size_t)768 << 20, left_most = (size_t)16 << 20;
	pid_t pid;
	int status;

	/* The sanitizers and valgrind reserve address space of their own;
	 * qemu-user keeps RLIMIT_AS to itself. */
	if (test_instrumented() || test_emulated())
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct fastcpu_objcache *cache = fastcpu_objcache_new(4096, 0);
		size_t made = 0;
		void *last = NULL, *o, *left;

		if (cache == NULL || !test_limit_address_space(more))
			_exit(10);
		while ((o = fastcpu_objcache_alloc(cache)) != NULL) {
			last = o;
			made++;
		}
		if (errno != ENOMEM || last == NULL)
			_exit(11);
		left = mmap(NULL, left_most, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			    -1, 0);
		if (left != MAP_FAILED) {
			fprintf(stderr, "ENOMEM after %zu MiB of objects, 16 MiB still mappable\n",
				made * 4096 >> 20);
			_exit(12);
		}
		fastcpu_objcache_free(cache, last);
		if (fastcpu_objcache_alloc(cache) != last)
			_exit(13);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
}
END_TEST

/*
 * The cache never reads or writes a free object: objects of a page each,
 * made inaccessible from their free to their next alloc, under threads,
 * signals whose handlers use the cache, and moves between CPUs. A read or
 * write of one by the library is a SIGSEGV.
 */
static struct {
	struct fastcpu_objcache *cache;
	size_t page;
	long rounds;
	unsigned long wrong;
	unsigned long refused;	/* frees that said ENOMEM: objects lost */
} untouched;

static void *use_page(void)
{
	long *o = fastcpu_objcache_alloc(untouched.cache);

	if (o == NULL || mprotect(o, untouched.page, PROT_READ | PROT_WRITE) != 0)
		return NULL;
	o[0] = (long)(uintptr_t)o;
	o[untouched.page / sizeof(long) - 1] = ~(long)(uintptr_t)o;
	return o;
}

static void free_page(long *o)
{
	if (o[0] != (long)(uintptr_t)o || o[untouched.page / sizeof(long) - 1] != ~(long)(uintptr_t)o)
		__atomic_fetch_add(&untouched.wrong, 1, __ATOMIC_RELAXED);
	if (mprotect(o, untouched.page, PROT_NONE) != 0)
		__atomic_fetch_add(&untouched.wrong, 1, __ATOMIC_RELAXED);
	errno = 0;
	fastcpu_objcache_free(untouched.cache, o);
	if (errno == ENOMEM)
		__atomic_fetch_add(&untouched.refused, 1, __ATOMIC_RELAXED);
}

static void handler_uses_pages(int sig)
{
	int saved = errno;
	long *o = use_page();

	(void)sig;
	if (o != NULL)
		free_page(o);
	errno = saved;
}

static void *pages_worker(void *index)
{
	enum { HELD = 24 };
	long *o[HELD];
	unsigned int seed = (unsigned int)(intptr_t)index;

	test_stress_enlist((int)(intptr_t)index);
	for (long r = 0; r < untouched.rounds; r++) {
		int n = 1 + (int)(rand_r(&seed) % HELD);

		for (int i = 0; i < n; i++)
			if ((o[i] = use_page()) == NULL)
				__atomic_fetch_add(&untouched.wrong, 1, __ATOMIC_RELAXED);
		for (int i = n; i-- > 0;)
			if (o[i] != NULL)
				free_page(o[i]);
	}
	return NULL;
}

START_TEST(objcache_never_touches_free_objects)
{
	struct fastcpu_private_census c;

	untouched.page = (size_t)sysconf(_SC_PAGESIZE);
	if (untouched.page > FASTCPU_OBJCACHE_MAX_ALIGN || RESPAWNED_INTO_UPPER_HALF())
		return;
	untouched.cache = fastcpu_objcache_new(untouched.page, untouched.page);
	untouched.rounds = test_scaled(300);
	untouched.wrong = untouched.refused = 0;
	ck_assert_ptr_nonnull(untouched.cache);
	test_stress_run(2 * CPU_COUNT(&test_allowed), pages_worker, handler_uses_pages);
	ck_assert_uint_eq(untouched.wrong, 0);
	ck_assert_uint_eq(untouched.refused, 0);
	c = census_of(untouched.cache);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
	fastcpu_objcache_destroy(untouched.cache);
}
END_TEST

Suite *suite_objcache_bounds(void)
{
	Suite *s = suite_create("objcache-bounds");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 300);
	test_add_respawning(tc, objcache_bounded_under_contention, 0, 2);
	if (test_seccomp_works())
		test_add_respawning(tc, objcache_progress_with_handlers_in_upper_half, 0, 1);
	tcase_add_test(tc, objcache_enomem_only_when_used_up);
	test_add_respawning(tc, objcache_never_touches_free_objects, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
