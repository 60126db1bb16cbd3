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
#include <time.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"
#include "percpu/objcache-layout.h"	/* an index's lock word, for a thread to sit in */
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
 * lock its own thread holds, and must not wait for it. No handler call
 * lasts a second, and the thread keeps making progress: no stretch of a
 * second of its own, its handlers' time taken out, without a round (the
 * cache of 0.4 took the lock, then recorded it as held: a handler between
 * the two waited on its own thread, and the thread stood still for
 * seconds; under TCG a storm of handlers that each take longer than on
 * hardware fills a second by itself, which says nothing of a wait). What
 * it carves stays within what both hold, a magazine per index, one in
 * flight each and the one being filled (the cache of df232b9 carved for a
 * handler whose thread held a lock: 458,714 objects and more).
 */
#define HANDLER_OBJECTS 16
#define NODES 64

static struct {
	struct fastcpu_objcache *cache;
	long *list;			/* per-CPU lists, in the upper half */
	struct node { struct node *next; } *nodes;
	unsigned long handler_calls, handler_nulls;
	double handlers_ms;		/* the handlers' time, in all */
	double longest_handler_ms, longest_gap_ms;
	long rounds;
} progress;

static void handler_uses_the_cache(int sig)
{
	int saved = errno;
	double start = test_now_ms(), took;
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
	took = test_now_ms() - start;
	progress.handlers_ms += took;
	if (took > progress.longest_handler_ms)
		progress.longest_handler_ms = took;
	errno = saved;
}

static void *refused_and_signalled(void *ms)
{
	sigset_t alarm_only;
	double start, last, handlers_then = 0;

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
		double now, handlers_now;

		for (int i = 0; i < HANDLER_OBJECTS; i++)
			ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(progress.cache));
		for (int i = 0; i < HANDLER_OBJECTS; i++)
			fastcpu_objcache_free(progress.cache, o[i]);
		n = fastcpu_percpu_pop(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, 0);
		if (n != NULL)
			fastcpu_percpu_push(progress.list, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, n, 0);
		now = test_now_ms();
		handlers_now = progress.handlers_ms;	/* its own handlers': no race */
		if (now - last - (handlers_now - handlers_then) > progress.longest_gap_ms)
			progress.longest_gap_ms = now - last - (handlers_now - handlers_then);
		last = now;
		handlers_then = handlers_now;
		progress.rounds++;
	}
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	return NULL;
}

START_TEST(objcache_progress_with_handlers_in_upper_half)
{
	struct fastcpu_private_census c;
	sigset_t alarm_only;
	pthread_t t;
	size_t bound;

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
	printf("objcache_progress_with_handlers_in_upper_half: %ld rounds, %lu handler calls "
	       "(%.0f ms, longest %.1f ms), longest gap of the thread's own %.1f ms\n",
	       progress.rounds, progress.handler_calls, progress.handlers_ms,
	       progress.longest_handler_ms, progress.longest_gap_ms);
	ck_assert_uint_gt(progress.handler_calls, 100);
	ck_assert_msg(progress.longest_handler_ms < 1000, "a handler waited %.0f ms",
		      progress.longest_handler_ms);
	ck_assert_msg(progress.longest_gap_ms < 1000, "the thread stood still for %.0f ms",
		      progress.longest_gap_ms);
	ck_assert_uint_eq(progress.handler_nulls, 0);
	c = census_of(progress.cache);
	bound = 2 * HANDLER_OBJECTS + c.limit * (c.indexes_used + 2 + 1);
	ck_assert_msg(c.carved <= bound, "carved %zu objects, more than %zu", c.carved, bound);
	fastcpu_objcache_destroy(progress.cache);
	fastcpu_percpu_free(progress.list);
	free(progress.nodes);
}
END_TEST

/*
 * Issue #38, case 3: a signal handler that frees hundreds of objects while
 * its own thread is inside a trade (objects of 16 KiB: magazines of one, so
 * the thread trades at almost every call and the storm lands there often).
 * Every free keeps its object: none says ENOMEM, and at the end every
 * object carved is free, once (the cache of df232b9 left the handler 64
 * overflow slots where its thread held the depot, then dropped the object:
 * 142,604 of 207,492 lost in 3 s).
 */
#define STORM_SIZE 16384
#define STASH 200		/* more than a magazine and the 64 overflow slots */

static struct {
	struct fastcpu_objcache *cache;
	void *stash[STASH];
	volatile int stashed;	/* the stash is full: the handler frees it */
	volatile int trading;	/* the thread is inside its alloc and free calls */
	unsigned long freed, refused, handler_calls, inside;
} storm;

static void handler_frees_a_stash(int sig)
{
	int saved = errno;

	(void)sig;
	storm.handler_calls++;
	if (!storm.stashed)
		return;
	storm.inside += storm.trading;
	for (int i = 0; i < STASH; i++) {
		errno = 0;
		fastcpu_objcache_free(storm.cache, storm.stash[i]);
		storm.refused += errno == ENOMEM;
		storm.freed++;
	}
	storm.stashed = 0;
	errno = saved;
}

/* The thread's own rounds: two in, two out, a trade each way at each; for
 * ms, and on until the handler has freed a stash inside them 11 times (an
 * emulated guest's storm lands there less often), half a minute at most. */
static void trade_while_signalled(long ms)
{
	double start = test_now_ms(), now;

	while ((now = test_now_ms() - start) < (double)ms ||
	       (storm.inside <= 10 && now < 30000)) {
		void *o[2];

		if (!storm.stashed) {
			for (int i = 0; i < STASH; i++)
				ck_assert_ptr_nonnull(storm.stash[i] =
						      fastcpu_objcache_alloc(storm.cache));
			storm.stashed = 1;
		}
		storm.trading = 1;
		for (int k = 0; k < 100; k++) {
			ck_assert_ptr_nonnull(o[0] = fastcpu_objcache_alloc(storm.cache));
			ck_assert_ptr_nonnull(o[1] = fastcpu_objcache_alloc(storm.cache));
			fastcpu_objcache_free(storm.cache, o[0]);
			fastcpu_objcache_free(storm.cache, o[1]);
		}
		storm.trading = 0;
	}
}

START_TEST(objcache_handler_frees_kept)
{
	struct fastcpu_private_census c;

	if (RESPAWNED_INTO_UPPER_HALF())
		return;
	memset(&storm, 0, sizeof(storm));
	storm.cache = fastcpu_objcache_new(STORM_SIZE, 0);
	ck_assert_ptr_nonnull(storm.cache);
	test_signal_every_us(handler_frees_a_stash, test_instrumented() ? 2000 : 200);
	trade_while_signalled(1000);
	test_signal_stop();
	if (storm.stashed)
		for (int i = 0; i < STASH; i++)
			fastcpu_objcache_free(storm.cache, storm.stash[i]);
	c = census_of(storm.cache);
	printf("objcache_handler_frees_kept: %lu handler calls freed %lu objects (%lu stashes "
	       "inside the thread's calls), %lu refused; carved %zu, free %zu\n",
	       storm.handler_calls, storm.freed, storm.inside, storm.refused, c.carved,
	       c.listed + c.in_depot);
	ck_assert_uint_gt(storm.inside, 10);
	ck_assert_uint_eq(storm.refused, 0);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
	fastcpu_objcache_destroy(storm.cache);
}
END_TEST

/*
 * Issue #38, case 4: a handler that takes 16 objects and gives them back,
 * on a thread that takes 8 and gives them back, trading at every few calls
 * (objects of 4096 bytes: magazines of 7). What the cache carves stays
 * within what both hold, a magazine per index, one in flight for the
 * thread and one for its handler, and the magazine being filled (the cache
 * of df232b9 carved a fresh object for a handler whose thread held the
 * depot, free ones waiting: 17,755 carved for at most 24 in use in 4 s).
 */
#define GROWTH_SIZE 4096
#define GROWTH_THREAD 8
#define GROWTH_HANDLER 16

static struct {
	struct fastcpu_objcache *cache;
	unsigned long nulls, handler_calls;
} growth;

static void handler_takes_sixteen(int sig)
{
	int saved = errno;
	void *o[GROWTH_HANDLER];

	(void)sig;
	for (int i = 0; i < GROWTH_HANDLER; i++)
		growth.nulls += (o[i] = fastcpu_objcache_alloc(growth.cache)) == NULL;
	for (int i = 0; i < GROWTH_HANDLER; i++)
		fastcpu_objcache_free(growth.cache, o[i]);
	growth.handler_calls++;
	errno = saved;
}

START_TEST(objcache_handler_growth_bounded)
{
	struct fastcpu_private_census c;
	double start;
	size_t bound;

	if (RESPAWNED_INTO_UPPER_HALF())
		return;
	memset(&growth, 0, sizeof(growth));
	growth.cache = fastcpu_objcache_new(GROWTH_SIZE, 0);
	ck_assert_ptr_nonnull(growth.cache);
	test_signal_every_us(handler_takes_sixteen, test_instrumented() ? 500 : 50);
	for (start = test_now_ms(); test_now_ms() - start < 1500;) {
		void *o[GROWTH_THREAD];

		for (int i = 0; i < GROWTH_THREAD; i++)
			ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(growth.cache));
		for (int i = 0; i < GROWTH_THREAD; i++)
			fastcpu_objcache_free(growth.cache, o[i]);
	}
	test_signal_stop();
	c = census_of(growth.cache);
	bound = GROWTH_THREAD + GROWTH_HANDLER + c.limit * (c.indexes_used + 2 + 1);
	printf("objcache_handler_growth_bounded: %lu handler calls: carved %zu (bound %zu)\n",
	       growth.handler_calls, c.carved, bound);
	ck_assert_uint_gt(growth.handler_calls, 100);
	ck_assert_uint_eq(growth.nulls, 0);
	ck_assert_msg(c.carved <= bound, "carved %zu objects, more than %zu", c.carved, bound);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
	fastcpu_objcache_destroy(growth.cache);
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
 * The address space a cache reserves follows what it carves: one object
 * of a new cache costs a few MiB of it, not a range as large as the
 * process may map, and leaves a program under RLIMIT_AS 1.5 GiB above what
 * it maps room for 1 GiB of its own (at df232b9 the cache reserved 1 GiB
 * for it: 496 MiB were left). Grown to 32 MiB of objects, its first range
 * holds the newest still (it doubled in place): the inline free's test.
 */
START_TEST(objcache_reserves_what_it_uses)
{
	const size_t more = (size_t)1536 << 20, own = (size_t)1 << 30;
	pid_t pid;
	int status;

	if (test_instrumented() || test_emulated())	/* as objcache_enomem_only_when_used_up */
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t before = test_mapped_bytes(), grown;
		struct fastcpu_objcache *cache;
		const struct fastcpu_objcache_fast_ *first_words;
		void *last;

		if (before == 0 || !test_limit_address_space(more))
			_exit(10);
		cache = fastcpu_objcache_new(64, 0);
		first_words = (const void *)cache;
		if (cache == NULL || fastcpu_objcache_alloc(cache) == NULL)
			_exit(11);
		grown = test_mapped_bytes() - before;
		fprintf(stderr, "one object of 64 bytes: %zu KiB more mapped\n", grown >> 10);
		if (grown > (size_t)8 << 20)
			_exit(12);
		if (mmap(NULL, own, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) ==
		    MAP_FAILED)
			_exit(13);
		for (size_t i = 0; i < ((size_t)32 << 20) / 64; i++)
			if ((last = fastcpu_objcache_alloc(cache)) == NULL)
				_exit(14);
		_exit(fastcpu_objcache_ours_(first_words, last) ? 0 : 15);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
}
END_TEST

/*
 * Issue #38, case 5: objects taken under RLIMIT_AS until ENOMEM, then all
 * freed: no free needs memory (the room for every object carved was made
 * when it was carved), so none says ENOMEM, and every object carved is
 * free in the cache, once (the cache of df232b9 needed an empty magazine
 * at a free, could not map one, and dropped the object: 777,231 of 784,896).
 */
static int take_all_give_all(void)
{
	const size_t most = ((size_t)2 << 30) / 4096;	/* the first range and more */
	struct fastcpu_objcache *cache = fastcpu_objcache_new(4096, 0);
	void **all = mmap(NULL, most * sizeof(void *), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct fastcpu_private_census c;
	struct rlimit unlimited;
	size_t made = 0, refused = 0;

	if (cache == NULL || all == MAP_FAILED || !test_limit_address_space((size_t)768 << 20))
		return 10;
	while (made < most && (all[made] = fastcpu_objcache_alloc(cache)) != NULL)
		made++;
	if (made == most || errno != ENOMEM)
		return 11;
	for (size_t i = 0; i < made; i++) {
		errno = 0;
		fastcpu_objcache_free(cache, all[i]);
		refused += errno == ENOMEM;
	}
	getrlimit(RLIMIT_AS, &unlimited);	/* room for the census's bitmap */
	unlimited.rlim_cur = unlimited.rlim_max;
	if (setrlimit(RLIMIT_AS, &unlimited) != 0)
		return 12;
	if (fastcpu_private_objcache_census(cache, &c) != 0 || c.repeated || c.strays)
		return 13;
	if (refused != 0 || c.listed + c.in_depot != c.carved || c.carved != made) {
		fprintf(stderr, "%zu objects taken, %zu frees refused; carved %zu, free %zu\n",
			made, refused, c.carved, c.listed + c.in_depot);
		return 14;
	}
	return 0;
}

START_TEST(objcache_frees_kept_when_space_used_up)
{
	pid_t pid;
	int status;

	if (test_instrumented() || test_emulated())
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(take_all_give_all());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
}
END_TEST

/*
 * Memory or address space used up, then everything freed: every object
 * carved is free in the cache, and what the process maps grew by at most
 * twice what was carved and 16 MiB. Under RLIMIT_DATA (8 MiB more: the
 * kernel refuses to make pages writable) and under RLIMIT_AS (128 MiB
 * more: no range can be reserved); a few allocations more after the first
 * ENOMEM fail alike. (At df232b9 the cache counted objects carved before
 * it made them writable: under RLIMIT_DATA 455 of them were never handed
 * out nor free, and each failed allocation reserved a range of 1 GiB
 * more: 63 GiB for 8 MiB of objects.)
 */
#define EXHAUSTED_SIZE 4096
#define EXHAUSTED_MOST 65536

static void *exhausted[EXHAUSTED_MOST];	/* in .bss: mapped before the limit */

/* In a fork child under a limit: 0, or what went wrong (an exit status). */
static int exhaust_then_free(const char *limit)
{
	size_t before = test_mapped_bytes(), made = 0, grown, carved;
	struct fastcpu_objcache *cache;
	struct fastcpu_private_census c;

	if (before == 0 || (strcmp(limit, "RLIMIT_DATA") == 0 ?
			    !test_limit_data((size_t)8 << 20) :
			    !test_limit_address_space((size_t)128 << 20)))
		return 10;
	if ((cache = fastcpu_objcache_new(EXHAUSTED_SIZE, 0)) == NULL)
		return 11;
	while (made < EXHAUSTED_MOST && (exhausted[made] = fastcpu_objcache_alloc(cache)) != NULL)
		made++;
	if (made == 0 || made == EXHAUSTED_MOST || errno != ENOMEM)
		return 12;
	for (int i = 0; i < 8; i++)
		if (fastcpu_objcache_alloc(cache) != NULL || errno != ENOMEM)
			return 13;
	grown = test_mapped_bytes() - before;
	test_unlimit();		/* room for frees' magazines and the census */
	for (size_t i = 0; i < made; i++)
		fastcpu_objcache_free(cache, exhausted[i]);
	if (fastcpu_private_objcache_census(cache, &c) != 0 || c.repeated != 0 || c.strays != 0)
		return 14;
	carved = c.carved * c.object_bytes;
	fprintf(stderr, "%s: %zu objects handed out, %zu carved, %zu free; %zu MiB carved, "
		"%zu MiB more mapped\n", limit, made, c.carved, c.listed + c.in_depot,
		carved >> 20, grown >> 20);
	if (c.listed + c.in_depot != c.carved)
		return 15;
	return grown <= 2 * carved + ((size_t)16 << 20) ? 0 : 16;
}

START_TEST(objcache_exhausted_loses_nothing)
{
	const char *limit = _i == 0 ? "RLIMIT_DATA" : "RLIMIT_AS";
	pid_t pid;
	int status;

	if (test_instrumented() || test_emulated())	/* as objcache_enomem_only_when_used_up */
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(exhaust_then_free(limit));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child: status %d",
		      limit, status);
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

/*
 * A thread of the upper half that sits inside its CPU's magazine lock: it
 * trades (objects of 16 KiB: magazines of one), pinned to one CPU, while
 * SIGUSR1 comes again and again; the handler that finds that lock taken
 * (the thread alone uses the cache on that CPU: its own holding) sits
 * there until released. With sequences the cache takes no lock at all:
 * the depot is two lock-free stacks (nothing to sit in, nothing to wait
 * for), and the tests below are the upper half's.
 */
#define TRADING_SIZE 16384

static struct {
	struct fastcpu_objcache *cache;
	pthread_t thread;
	void *thread_pointer;
	int cpu, inside, released;
} sitter;

/* The magazine lock of cpu's index in the upper half. */
static uint64_t *upper_lock(const struct fastcpu_objcache *cache, int cpu)
{
	return fastcpu_objcache_lock(cache, (size_t)cpu + (size_t)fastcpu_cid_limit() / 2);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void sit_if_inside(int sig)
{
	int saved = errno;

	(void)sig;
	if (!__atomic_load_n(&sitter.inside, __ATOMIC_RELAXED) &&
	    __atomic_load_n(upper_lock(sitter.cache, sitter.cpu), __ATOMIC_RELAXED) != 0) {
		__atomic_store_n(&sitter.inside, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&sitter.released, __ATOMIC_ACQUIRE))
			sleep_us(1000);
	}
	errno = saved;
}

static void *trade_until_inside(void *unused)
{
	void *o[2];

	(void)unused;
	sitter.thread_pointer = fastcpu_arch_thread_pointer();
	while (!__atomic_load_n(&sitter.inside, __ATOMIC_ACQUIRE)) {
		o[0] = fastcpu_objcache_alloc(sitter.cache);
		o[1] = fastcpu_objcache_alloc(sitter.cache);
		fastcpu_objcache_free(sitter.cache, o[1]);
		fastcpu_objcache_free(sitter.cache, o[0]);
	}
	return NULL;
}

static void new_thread_on(pthread_t *t, int cpu, void *(*fn)(void *))
{
	pthread_attr_t attr;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setaffinity_np(&attr, sizeof(one), &one), 0);
	ck_assert_int_eq(pthread_create(t, &attr, fn, NULL), 0);
	pthread_attr_destroy(&attr);
}

/* Returns once the sitter, on cpu, sits inside its magazine lock. */
static void sitter_start(struct fastcpu_objcache *cache, int cpu)
{
	struct sigaction sa = { .sa_handler = sit_if_inside };
	double deadline = test_now_ms() + 10000;

	ck_assert_ptr_nonnull(cache);
	memset(&sitter, 0, sizeof(sitter));
	sitter.cache = cache;
	sitter.cpu = cpu;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	new_thread_on(&sitter.thread, cpu, trade_until_inside);
	while (!__atomic_load_n(&sitter.inside, __ATOMIC_ACQUIRE) && test_now_ms() < deadline) {
		ck_assert_int_eq(pthread_kill(sitter.thread, SIGUSR1), 0);
		sleep_us(20);
	}
	ck_assert_msg(sitter.inside, "no signal landed inside the magazine lock in 10 s");
}

static void sitter_release(void)
{
	__atomic_store_n(&sitter.released, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(sitter.thread, NULL), 0);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * The review's first case of #38: a thread cancelled (deferred) inside
 * alloc, waiting for its CPU's magazine lock of the upper half that another
 * thread holds. No function of the library is a cancellation point
 * (glibc's malloc is not either): it returns with its object once the lock
 * is given, and the cancel acts at its own next cancellation point. The
 * wait once slept in nanosleep(): cancelled inside, a thread of the upper
 * half left its CPU's magazine locked for ever (the next alloc there
 * waited for ever, 7 of 7 runs), one with sequences, waiting for the depot
 * then, lost a full magazine (4 of 5). The census finds every object.
 */
static struct {
	struct fastcpu_objcache *cache;
	int calling, returned;
	void *got;
} victim;

static void *alloc_then_test_cancel(void *unused)
{
	(void)unused;
	__atomic_store_n(&victim.calling, 1, __ATOMIC_RELEASE);
	victim.got = fastcpu_objcache_alloc(victim.cache);
	__atomic_store_n(&victim.returned, 1, __ATOMIC_RELEASE);
	pthread_testcancel();
	return NULL;
}

START_TEST(objcache_cancelled_inside_keeps_nothing)
{
	int a = test_first_allowed();
	struct fastcpu_private_census c;
	pthread_t t;
	void *result;

	/* valgrind runs one thread at a time and delivers signals at its own
	 * points; with sequences nothing waits (above) */
	if (_i == 0 || test_under_valgrind() || RESPAWNED_INTO_UPPER_HALF())
		return;
	memset(&victim, 0, sizeof(victim));
	victim.cache = fastcpu_objcache_new(TRADING_SIZE, 0);
	ck_assert_ptr_nonnull(victim.cache);
	fastcpu_private_objcache_index(victim.cache, FASTCPU_BY_CPU);
	sitter_start(victim.cache, a);
	new_thread_on(&t, a, alloc_then_test_cancel);
	while (!__atomic_load_n(&victim.calling, __ATOMIC_ACQUIRE))
		sched_yield();
	sleep_us(50000);	/* past its spins and yields: it sleeps */
	ck_assert_msg(!__atomic_load_n(&victim.returned, __ATOMIC_ACQUIRE),
		      "the victim never waited for the magazine lock");
	ck_assert_int_eq(pthread_cancel(t), 0);
	sleep_us(20000);	/* the cancel delivered while it waits */
	sitter_release();
	ck_assert_int_eq(pthread_join(t, &result), 0);
	ck_assert_ptr_eq(result, PTHREAD_CANCELED);
	ck_assert_msg(victim.returned, "the victim was cancelled inside fastcpu_objcache_alloc()");
	ck_assert_ptr_nonnull(victim.got);
	test_pin(a);		/* the next alloc on the victim's CPU */
	fastcpu_objcache_free(victim.cache, fastcpu_objcache_alloc(victim.cache));
	fastcpu_objcache_free(victim.cache, victim.got);
	c = census_of(victim.cache);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
	fastcpu_objcache_destroy(victim.cache);
}
END_TEST

/*
 * The review's second case of #38: a fork while a thread holds a lock of
 * the cache (the depot's then; its CPU's magazine lock of the upper half
 * now, the depot having none). In the child that thread has vanished, and
 * glibc gives its cached stack, and so its thread pointer, to the child's
 * next new thread (the test makes threads until one has both the sitter's
 * pthread_t and thread pointer). That thread must take the lock as any
 * other: a lock names its holder by a serial number no thread of the child
 * can have, not by the thread pointer (with it, the new thread found the
 * depot held by itself and never took it: 1,736 frees said ENOMEM, 1,807
 * objects carved against a bound of 122). In the child, on the sitter's
 * CPU: no free refused, no object lost beyond what the vanished thread
 * held, nothing carved beyond what trading needs, the lock free at the end.
 */
#define CHILD_THREADS 8
#define CHILD_ROUNDS 1000
#define CHILD_HELD 4

static struct {
	int verdict[CHILD_THREADS];	/* 1: the sitter's thread pointer; 2: another */
	int done;
	unsigned long nulls, refused;
} child;

static void *trade_if_the_sitters(void *which)
{
	int k = (int)(intptr_t)which;
	void *o[CHILD_HELD];
	cpu_set_t one;

	if (!pthread_equal(pthread_self(), sitter.thread) ||
	    fastcpu_arch_thread_pointer() != sitter.thread_pointer) {
		__atomic_store_n(&child.verdict[k], 2, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&child.done, __ATOMIC_ACQUIRE))
			sleep_us(1000);
		return NULL;
	}
	CPU_ZERO(&one);
	CPU_SET(sitter.cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		child.nulls = 1000000;	/* a check below fails */
	for (int r = 0; r < CHILD_ROUNDS; r++) {
		for (int i = 0; i < CHILD_HELD; i++)
			child.nulls += (o[i] = fastcpu_objcache_alloc(sitter.cache)) == NULL;
		for (int i = 0; i < CHILD_HELD; i++) {
			errno = 0;
			fastcpu_objcache_free(sitter.cache, o[i]);
			child.refused += errno == ENOMEM;
		}
	}
	__atomic_store_n(&child.verdict[k], 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Objects neither free nor given out: those the vanished thread held. */
static size_t unaccounted(const struct fastcpu_private_census *c)
{
	return c->carved - c->listed - c->in_depot;
}

/* The child's body, its exit status: 0, or which check failed. Check's
 * assertions take a lock the vanished thread may have held. */
static int child_trades_in_the_sitters_place(void)
{
	struct fastcpu_private_census before, after;
	pthread_t t[CHILD_THREADS];
	int made = 0, found = 0;

	if (fastcpu_private_objcache_census(sitter.cache, &before) != 0)
		return 10;
	while (!found && made < CHILD_THREADS) {
		if (pthread_create(&t[made], NULL, trade_if_the_sitters,
				   (void *)(intptr_t)made) != 0)
			return 11;
		while (__atomic_load_n(&child.verdict[made], __ATOMIC_ACQUIRE) == 0)
			sleep_us(100);
		found = child.verdict[made++] == 1;
	}
	__atomic_store_n(&child.done, 1, __ATOMIC_RELEASE);
	for (int k = 0; k < made; k++)
		pthread_join(t[k], NULL);
	if (!found)
		return 12;	/* no new thread had the sitter's thread pointer */
	if (fastcpu_private_objcache_census(sitter.cache, &after) != 0)
		return 10;
	fprintf(stderr, "child: %lu frees refused, %lu allocs NULL; carved %zu, then %zu "
		"(limit %zu, %zu indexes); %zu held by the vanished thread, then %zu\n",
		child.refused, child.nulls, before.carved, after.carved, after.limit,
		after.indexes_used, unaccounted(&before), unaccounted(&after));
	if (child.refused != 0 || child.nulls != 0)
		return 13;
	if (unaccounted(&after) != unaccounted(&before) || after.repeated != 0 ||
	    after.strays != 0)
		return 14;
	if (after.carved - before.carved > CHILD_HELD + after.limit * (after.indexes_used + 2))
		return 15;
	if (__atomic_load_n(upper_lock(sitter.cache, sitter.cpu), __ATOMIC_RELAXED) != 0)
		return 16;
	return 0;
}

START_TEST(objcache_fork_child_thread_takes_a_vanished_holders_depot)
{
	pid_t pid;
	int status;

	if (_i == 0 || test_under_valgrind() || RESPAWNED_INTO_UPPER_HALF())
		return;
	memset(&child, 0, sizeof(child));
	sitter_start(fastcpu_objcache_new(TRADING_SIZE, 0), test_first_allowed());
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_trades_in_the_sitters_place());
	sitter_release();
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d",
		      WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	(void)census_of(sitter.cache);
	fastcpu_objcache_destroy(sitter.cache);
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
	tcase_add_test(tc, objcache_reserves_what_it_uses);
	tcase_add_loop_test(tc, objcache_exhausted_loses_nothing, 0, 2);
	tcase_add_test(tc, objcache_frees_kept_when_space_used_up);
	test_add_respawning(tc, objcache_handler_frees_kept, 0, 2);
	test_add_respawning(tc, objcache_handler_growth_bounded, 0, 2);
	test_add_respawning(tc, objcache_never_touches_free_objects, 0, 2);
	test_add_respawning(tc, objcache_cancelled_inside_keeps_nothing, 0, 2);
	test_add_respawning(tc, objcache_fork_child_thread_takes_a_vanished_holders_depot, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
