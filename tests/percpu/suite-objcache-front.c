/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-objcache-front.c: the front: the objects a thread without sequences keeps of its own. */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

/* Every test runs in the upper half (a fallback forced, glibc's area off),
 * where every thread keeps objects; kept: the most one keeps of a cache. */
#define IN_UPPER_HALF() \
	(TEST_RESPAWN("FASTCPU_BACKEND=syscall", "GLIBC_TUNABLES=glibc.pthread.rseq=0") != NULL)
#define KEPT_MOST 16

static struct fastcpu_private_census census_of(const struct fastcpu_objcache *cache)
{
	struct fastcpu_private_census c;

	ck_assert_int_eq(fastcpu_private_objcache_census(cache, &c), 0);
	ck_assert_uint_eq(c.repeated, 0);
	ck_assert_uint_eq(c.strays, 0);
	return c;
}

/* Every object carved is free in the cache (none given out), kept
 * objects counted with the indexes'. */
static void check_all_free(const struct fastcpu_objcache *cache, size_t kept)
{
	struct fastcpu_private_census c = census_of(cache);

	ck_assert_msg(c.listed + c.in_depot == c.carved, "carved %zu, free %zu", c.carved,
		      c.listed + c.in_depot);
	ck_assert_uint_eq(c.kept, kept);
}

/* A thread that takes n objects of the cache, frees them, then waits until
 * told to end. */
static struct {
	struct fastcpu_objcache *cache;
	int n;
	pthread_barrier_t took, end;
} worker;

static void *take_and_keep(void *unused)
{
	void **o = calloc((size_t)worker.n, sizeof(*o));

	(void)unused;
	ck_assert_ptr_nonnull(o);
	ck_assert(!fastcpu_private_runs_sequences());
	for (int i = 0; i < worker.n; i++)
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(worker.cache));
	for (int i = 0; i < worker.n; i++)
		fastcpu_objcache_free(worker.cache, o[i]);
	free(o);
	pthread_barrier_wait(&worker.took);
	pthread_barrier_wait(&worker.end);
	return NULL;
}

static pthread_t start_worker(struct fastcpu_objcache *cache, int n)
{
	pthread_t t;

	worker.cache = cache;
	worker.n = n;
	pthread_barrier_init(&worker.took, NULL, 2);
	pthread_barrier_init(&worker.end, NULL, 2);
	ck_assert_int_eq(pthread_create(&t, NULL, take_and_keep, NULL), 0);
	pthread_barrier_wait(&worker.took);
	return t;
}

static void end_worker(pthread_t t)
{
	pthread_barrier_wait(&worker.end);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&worker.took);
	pthread_barrier_destroy(&worker.end);
}

/* A thread keeps at most its bound (16, or a magazine's capacity where
 * less: 7 objects of 4096 bytes), and its exit gives every one back. */
START_TEST(objcache_front_bounded_and_given_back_at_exit)
{
	static const size_t sizes[] = { 64, 4096 };
	struct fastcpu_objcache *cache;
	struct fastcpu_private_census c;
	pthread_t t;

	if (IN_UPPER_HALF())
		return;
	cache = fastcpu_objcache_new(sizes[_i], 0);
	ck_assert_ptr_nonnull(cache);
	t = start_worker(cache, 100);
	c = census_of(cache);
	ck_assert_uint_gt(c.kept, 0);
	ck_assert_uint_le(c.kept, c.limit < KEPT_MOST ? c.limit : KEPT_MOST);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
	end_worker(t);
	check_all_free(cache, 0);
	fastcpu_objcache_destroy(cache);
}
END_TEST

/* A fork child takes back what the threads it does not have kept: none of
 * the parent worker's objects is lost to it, and each is handed out once. */
START_TEST(objcache_front_taken_back_in_fork_child)
{
	struct fastcpu_objcache *cache;
	pthread_t t;
	pid_t pid;
	int status;

	if (IN_UPPER_HALF())
		return;
	cache = fastcpu_objcache_new(64, 0);
	ck_assert_ptr_nonnull(cache);
	t = start_worker(cache, 40);
	ck_assert_uint_gt(census_of(cache).kept, 0);
	pid = fork();
	if (pid == 0) {
		struct fastcpu_private_census c;
		int wrong;

		wrong = fastcpu_private_objcache_census(cache, &c) != 0 || c.kept != 0 ||
			c.listed + c.in_depot != c.carved || c.repeated != 0;
		for (int i = 0; i < 100 && !wrong; i++)
			wrong = fastcpu_objcache_alloc(cache) == NULL;
		wrong = wrong || fastcpu_private_objcache_census(cache, &c) != 0 ||
			c.repeated != 0 || c.listed + c.in_depot + 100 != c.carved;
		_exit(wrong);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the fork child lost objects the parent's other thread kept");
	end_worker(t);
	check_all_free(cache, 0);
	fastcpu_objcache_destroy(cache);
}
END_TEST

/* A cache destroyed while a thread keeps objects of it: the thread forgets
 * them (a cache made next, maybe at the same address, is not confused with
 * it), and its exit gives back nothing of the old one. */
START_TEST(objcache_front_forgotten_when_destroyed)
{
	struct fastcpu_objcache *old, *next;
	pthread_t t;

	if (IN_UPPER_HALF())
		return;
	old = fastcpu_objcache_new(64, 0);
	ck_assert_ptr_nonnull(old);
	t = start_worker(old, 40);
	fastcpu_objcache_destroy(old);
	next = fastcpu_objcache_new(64, 0);
	ck_assert_ptr_nonnull(next);
	check_all_free(next, 0);
	end_worker(t);
	check_all_free(next, 0);
	fastcpu_objcache_destroy(next);
}
END_TEST

/* Three caches in turn, each object of one freed to another's way: a
 * thread keeps objects of two, and the third takes the upper half; every
 * object of each is free once at the end. */
START_TEST(objcache_front_three_caches)
{
	enum { CACHES = 3, ROUNDS = 2000, HELD = 24 };
	struct fastcpu_objcache *c[CACHES];
	void *o[CACHES][HELD];
	size_t kept = 0;

	if (IN_UPPER_HALF())
		return;
	for (int k = 0; k < CACHES; k++)
		ck_assert_ptr_nonnull(c[k] = fastcpu_objcache_new(32 + 32 * (size_t)k, 0));
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < CACHES; k++) {
			for (int i = 0; i < HELD; i++)
				ck_assert_ptr_nonnull(o[k][i] = fastcpu_objcache_alloc(c[k]));
			for (int i = HELD - 1; i >= 0; i--)
				fastcpu_objcache_free(c[k], o[k][i]);
		}
	for (int k = 0; k < CACHES; k++) {
		struct fastcpu_private_census n = census_of(c[k]);

		ck_assert_uint_eq(n.listed + n.in_depot, n.carved);
		kept += n.kept != 0;
	}
	ck_assert_int_eq(kept, 2);
	for (int k = 0; k < CACHES; k++)
		fastcpu_objcache_destroy(c[k]);
}
END_TEST


/* ---- the review's cases, each on a fixed schedule ------------------------ */

static pid_t thread_id(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&t, NULL);
}

/* Until the kernel has let go of thread tid (a moment after its join): a
 * thread id then names no task of the process. */
static void wait_gone(pid_t tid)
{
	double start = test_now_ms();

	while (syscall(SYS_tgkill, getpid(), tid, 0) == 0) {
		ck_assert_msg(test_now_ms() - start < 5000, "thread %d still there after 5 s", tid);
		nap_ms(1);
	}
}

/* The page of the magazine at the upper half's index of cpu in cache (the
 * public layout's tops: index cpu + possible CPUs, half the cid limit). */
static char *index_magazine_page(const struct fastcpu_objcache *cache, int cpu)
{
	const struct fastcpu_objcache_fast_ *fast = (const void *)cache;
	size_t index = (size_t)cpu + (size_t)fastcpu_cid_limit() / 2;
	uintptr_t top = *(const uintptr_t *)(const void *)((const char *)fast->tops +
							    index * FASTCPU_PERCPU_STRIDE);

	ck_assert_uint_ne(top, 0);
	return (char *)(top & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1));
}

/*
 * A thread stopped inside the library's upper half with its CPU's index
 * lock held, as a preemption there would leave it: the page of the index's
 * magazine made read-only, its next push faults, and the handler parks it
 * until released, or until the cache is being destroyed and 50 ms more;
 * then it makes the page writable again and the push goes on. Where the
 * cache is gone meanwhile, its pages with it, the fault is let kill the
 * process: the failure these tests look for.
 */
static struct {
	char *page;
	size_t bytes;
	volatile sig_atomic_t parked, release, destroying;
} fault;

static void park_on_fault(int sig, siginfo_t *si, void *context)
{
	char *at = si->si_addr;

	(void)context;
	if (at < fault.page || at >= fault.page + fault.bytes) {
		signal(sig, SIG_DFL);
		return;
	}
	fault.parked = 1;
	while (!fault.release && !fault.destroying)
		nap_ms(1);
	if (fault.destroying)
		nap_ms(50);
	if (mprotect(fault.page, fault.bytes, PROT_READ | PROT_WRITE) != 0)
		signal(sig, SIG_DFL);
}

static void park_at_next_push(char *page)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = park_on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	fault.page = page;
	fault.bytes = (size_t)sysconf(_SC_PAGESIZE);
	fault.parked = fault.release = fault.destroying = 0;
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
	ck_assert_int_eq(mprotect(page, fault.bytes, PROT_READ), 0);
}

static void wait_parked(void)
{
	double start = test_now_ms();

	while (!fault.parked) {
		ck_assert_msg(test_now_ms() - start < 10000, "no push of the library's faulted");
		nap_ms(1);
	}
}

/*
 * A cache destroyed while a thread's exit gives its front back to it
 * (fastcpu_objcache(3) allows the destruction: no call uses the cache): the
 * give-back holds the index's lock, stopped, while the cache is destroyed
 * and another made. The destruction waits for the give-back; neither the
 * exiting thread nor the next cache ever sees the old cache's memory.
 */
static struct fastcpu_objcache *exiting_cache;

static void *keeps_then_exits_into_a_fault(void *unused)
{
	int cpu = test_first_allowed();
	void *o;

	(void)unused;
	test_pin(cpu);
	ck_assert_ptr_nonnull(o = fastcpu_objcache_alloc(exiting_cache));
	fastcpu_objcache_free(exiting_cache, o);	/* its front keeps 8 */
	park_at_next_push(index_magazine_page(exiting_cache, cpu));
	return NULL;	/* the exit's give-back pushes onto that page */
}

START_TEST(objcache_front_destroy_waits_for_exit_give_back)
{
	enum { NEXT = 2048 };
	struct fastcpu_objcache *next;
	pthread_t t;
	void **o;

	if (IN_UPPER_HALF())
		return;
	ck_assert_ptr_nonnull(o = calloc(NEXT, sizeof(*o)));
	ck_assert_ptr_nonnull(exiting_cache = fastcpu_objcache_new(64, 0));
	ck_assert_int_eq(pthread_create(&t, NULL, keeps_then_exits_into_a_fault, NULL), 0);
	wait_parked();
	fault.destroying = 1;
	fastcpu_objcache_destroy(exiting_cache);
	ck_assert_ptr_nonnull(next = fastcpu_objcache_new(64, 0));
	for (int i = 0; i < NEXT; i++) {
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(next));
		memset(o[i], 0xa5, 64);
	}
	for (int i = 0; i < NEXT; i++)
		fastcpu_objcache_free(next, o[i]);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	(void)census_of(next);	/* nothing of the old cache's in it */
	fastcpu_objcache_destroy(next);
	free(o);
}
END_TEST

/*
 * A lock that a vanished thread held reads free in a fork child, however
 * many forks back it vanished: a thread stopped holding a CPU's index lock,
 * then 256 nested forks (where a count of forks kept in 8 bits, as
 * ff75c11's was, comes round to the holder's), and the last child
 * allocates on that CPU.
 */
static struct fastcpu_objcache *held_cache;

static void *holds_index_lock(void *unused)
{
	enum { TAKEN = 24 };
	int cpu = test_first_allowed();
	void *o[TAKEN];

	(void)unused;
	test_pin(cpu);
	for (int i = 0; i < TAKEN; i++)
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(held_cache));
	park_at_next_push(index_magazine_page(held_cache, cpu));
	/* The 17th free finds its front full and gives half to the index:
	 * parked there until released. */
	for (int i = 0; i < TAKEN; i++)
		fastcpu_objcache_free(held_cache, o[i]);
	return NULL;
}

/* depth nested fork children, the last allocating on cpu: its status. */
static int allocate_forks_down(int depth, int cpu)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 100;
	if (pid == 0) {
		if (depth > 1)
			_exit(allocate_forks_down(depth - 1, cpu));
		signal(SIGALRM, SIG_DFL);	/* Check's would end the whole group */
		alarm(20);
		if (!test_try_pin(cpu))
			_exit(101);
		_exit(fastcpu_objcache_alloc(held_cache) != NULL ? 0 : 102);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 103;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

START_TEST(objcache_front_vanished_holder_any_fork_depth)
{
	pthread_t t;
	int status;

	if (IN_UPPER_HALF())
		return;
	ck_assert_ptr_nonnull(held_cache = fastcpu_objcache_new(64, 0));
	ck_assert_int_eq(pthread_create(&t, NULL, holds_index_lock, NULL), 0);
	wait_parked();
	status = allocate_forks_down(256, test_first_allowed());
	fault.release = 1;
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(status == 0, "the child 256 forks down: status %d (142: waited for ever)",
		      status);
	fastcpu_objcache_destroy(held_cache);
}
END_TEST

/*
 * A destructor of the last round at a thread's exit (glibc and musl run
 * PTHREAD_DESTRUCTOR_ITERATIONS of them, the library's key first, as it was
 * made first) that uses the cache: after the library's own destructor gave
 * the thread's objects back (_i 0), or as the thread's first use of any
 * cache (_i 1). No destructor runs after it; nothing stays with the thread
 * once it is gone.
 */
#ifndef PTHREAD_DESTRUCTOR_ITERATIONS
# define PTHREAD_DESTRUCTOR_ITERATIONS 4
#endif
static pthread_key_t round_key;
static struct fastcpu_objcache *last_round_cache;
static pid_t last_round_tid;

static void uses_cache_in_last_round(void *round)
{
	uintptr_t r = (uintptr_t)round;
	void *o[8];

	if (r < PTHREAD_DESTRUCTOR_ITERATIONS) {
		ck_assert_int_eq(pthread_setspecific(round_key, (void *)(r + 1)), 0);
		return;
	}
	for (int i = 0; i < 8; i++)
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(last_round_cache));
	for (int i = 0; i < 8; i++)
		fastcpu_objcache_free(last_round_cache, o[i]);
}

static void *exits_into_last_round(void *used_before)
{
	void *o;

	last_round_tid = thread_id();
	if (used_before != NULL) {
		ck_assert_ptr_nonnull(o = fastcpu_objcache_alloc(last_round_cache));
		fastcpu_objcache_free(last_round_cache, o);
	}
	ck_assert_int_eq(pthread_setspecific(round_key, (void *)1), 0);
	return NULL;
}

START_TEST(objcache_front_none_after_last_destructors)
{
	pthread_t t;

	if (IN_UPPER_HALF())
		return;
	last_round_cache = fastcpu_objcache_new(64, 0);	/* the library's key first */
	ck_assert_ptr_nonnull(last_round_cache);
	ck_assert_int_eq(pthread_key_create(&round_key, uses_cache_in_last_round), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, exits_into_last_round,
					_i == 0 ? last_round_cache : NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	wait_gone(last_round_tid);
	check_all_free(last_round_cache, 0);
	fastcpu_objcache_destroy(last_round_cache);
}
END_TEST

/*
 * A signal whose handler uses the cache, landing inside the thread's
 * first use while the library makes its front (at its key's setting,
 * interpose.c): the handler is served, and nothing stays with the thread
 * once it is gone.
 */
static struct fastcpu_objcache *making_cache;
static volatile sig_atomic_t making_handlers;
static pid_t making_tid;

static void uses_cache_in_handler(int sig)
{
	int saved = errno;
	void *o = fastcpu_objcache_alloc(making_cache);

	(void)sig;
	if (o != NULL) {
		fastcpu_objcache_free(making_cache, o);
		making_handlers++;
	}
	errno = saved;
}

static void *first_use_interrupted(void *unused)
{
	void *o;

	(void)unused;
	making_tid = thread_id();
	test_signal_in_setspecific(SIGUSR1);
	ck_assert_ptr_nonnull(o = fastcpu_objcache_alloc(making_cache));
	fastcpu_objcache_free(making_cache, o);
	return NULL;
}

START_TEST(objcache_front_signal_inside_its_making)
{
	pthread_t t;

	if (IN_UPPER_HALF())
		return;
	ck_assert_ptr_nonnull(making_cache = fastcpu_objcache_new(64, 0));
	signal(SIGUSR1, uses_cache_in_handler);
	ck_assert_int_eq(pthread_create(&t, NULL, first_use_interrupted, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	wait_gone(making_tid);
	ck_assert_int_eq(making_handlers, 1);
	check_all_free(making_cache, 0);
	fastcpu_objcache_destroy(making_cache);
}
END_TEST

/* An alloc that succeeds after the kernel refused a carve's memory (the
 * first run's; the next run's is given) keeps errno: only a failing call
 * sets it. */
START_TEST(objcache_errno_kept_past_a_refused_carve)
{
	struct fastcpu_objcache *cache;
	void *o;

	if (IN_UPPER_HALF())
		return;
	ck_assert_ptr_nonnull(cache = fastcpu_objcache_new(64, 0));
	test_fail_mprotect(2);	/* the megabyte hoped for, then one object's pages */
	errno = 0;
	o = fastcpu_objcache_alloc(cache);
	test_fail_mprotect(0);
	ck_assert_ptr_nonnull(o);
	ck_assert_msg(errno == 0, "a successful alloc left errno %d (%s)", errno, strerror(errno));
	fastcpu_objcache_free(cache, o);
	fastcpu_objcache_destroy(cache);
}
END_TEST

/* Allocations the kernel refuses memory for, again and again, make no
 * magazine more: a run that was not carved is not counted. */
START_TEST(objcache_refused_carves_make_no_magazines)
{
	struct fastcpu_objcache *cache;
	size_t before, after;
	void *o;

	if (IN_UPPER_HALF())
		return;
	ck_assert_ptr_nonnull(cache = fastcpu_objcache_new(64, 0));
	test_fail_mprotect(INT_MAX);
	for (int i = 0; i < 10; i++) {
		ck_assert_ptr_null(fastcpu_objcache_alloc(cache));
		ck_assert_int_eq(errno, ENOMEM);
	}
	before = census_of(cache).magazines;
	for (int i = 0; i < 1000; i++)
		ck_assert_ptr_null(fastcpu_objcache_alloc(cache));
	after = census_of(cache).magazines;
	test_fail_mprotect(0);
	ck_assert_msg(after == before, "1000 refused allocations made %zu magazines",
		      after - before);
	ck_assert_ptr_nonnull(o = fastcpu_objcache_alloc(cache));
	fastcpu_objcache_free(cache, o);
	fastcpu_objcache_destroy(cache);
}
END_TEST

Suite *suite_objcache_front(void)
{
	Suite *s = suite_create("objcache-front");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 120);
	test_add_respawning(tc, objcache_front_bounded_and_given_back_at_exit, 0, 2);
	test_add_respawning(tc, objcache_front_taken_back_in_fork_child, 0, 1);
	test_add_respawning(tc, objcache_front_forgotten_when_destroyed, 0, 1);
	test_add_respawning(tc, objcache_front_three_caches, 0, 1);
	test_add_respawning(tc, objcache_front_none_after_last_destructors, 0, 2);
	test_add_respawning(tc, objcache_front_destroy_waits_for_exit_give_back, 0, 1);
	test_add_respawning(tc, objcache_front_vanished_holder_any_fork_depth, 0, 1);
	test_add_respawning(tc, objcache_front_signal_inside_its_making, 0, 1);
	test_add_respawning(tc, objcache_errno_kept_past_a_refused_carve, 0, 1);
	test_add_respawning(tc, objcache_refused_carves_make_no_magazines, 0, 1);
	suite_add_tcase(s, tc);
	return s;
}
