/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-objcache.c: the object cache: its contract, exact under fire. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The cache's sequences the kernel aborted in this program's own code (the
 * inline alloc and free; the adds here are the library's, out of line); the
 * census counts the library's. */
static unsigned long aborts_inline;
#define FASTCPU_PERCPU_ON_ABORT() ((void)__atomic_fetch_add(&aborts_inline, 1, __ATOMIC_RELAXED))

#include "fastcpu.h"
#include "helpers.h"
#include "private.h"

#if defined(__SANITIZE_ADDRESS__)
# define ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define ASAN 1
# endif
#endif
#ifdef ASAN
# include <sanitizer/asan_interface.h>
#endif

static void census(const struct fastcpu_objcache *cache, struct fastcpu_private_census *c)
{
	ck_assert_int_eq(fastcpu_private_objcache_census(cache, c), 0);
}

/* Nothing lost, nothing twice, every list within its bound: where every
 * object has been freed, all it carved is free. */
static void check_whole(const struct fastcpu_objcache *cache, size_t given_out)
{
	struct fastcpu_private_census c;

	census(cache, &c);
	ck_assert_uint_eq(c.repeated, 0);
	ck_assert_uint_eq(c.strays, 0);
	ck_assert_uint_le(c.longest, c.limit);
	ck_assert_msg(c.listed + c.in_depot + given_out == c.carved,
		      "carved %zu, free %zu + %zu, given out %zu", c.carved, c.listed,
		      c.in_depot, given_out);
}

START_TEST(objcache_bad_input)
{
	struct fastcpu_objcache *cache = fastcpu_objcache_new(40, 0), *other;
	void *object, *neighbour, *from_other;
	long on_stack = 0;
	char *from_malloc = malloc(64);

	ck_assert_ptr_nonnull(cache);
	struct { size_t size, align; } bad[] = {
		{ 0, 0 }, { FASTCPU_OBJCACHE_MAX_SIZE + 1, 0 }, { SIZE_MAX, 0 },
		{ 64, 3 }, { 64, 24 }, { 64, 2 * FASTCPU_OBJCACHE_MAX_ALIGN }, { 64, SIZE_MAX },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_ptr_null(fastcpu_objcache_new(bad[i].size, bad[i].align));
		ck_assert_msg(errno == EINVAL, "new(%zu, %zu): errno %d", bad[i].size,
			      bad[i].align, errno);
	}
	errno = 0;
	ck_assert_ptr_null(fastcpu_objcache_alloc(NULL));
	ck_assert_int_eq(errno, EINVAL);
	other = fastcpu_objcache_new(40, 0);
	from_other = fastcpu_objcache_alloc(other);
	object = fastcpu_objcache_alloc(cache);
	neighbour = fastcpu_objcache_alloc(cache);
	ck_assert(object != NULL && neighbour != NULL && from_other != NULL);
	memset(object, 0x5a, 40);
	memset(neighbour, 0xa5, 40);
	void *not_ours[] = { &on_stack, from_malloc, (char *)object + 8, (char *)object + 1,
			     from_other, (char *)object + 4096 * 1024 };
	for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++) {
		errno = 0;
		fastcpu_objcache_free(cache, not_ours[i]);
		ck_assert_msg(errno == EINVAL, "pointer %zu: errno %d", i, errno);
	}
	errno = 0;
	fastcpu_objcache_free(NULL, object);
	ck_assert_int_eq(errno, EINVAL);
	errno = EDOM;
	fastcpu_objcache_free(cache, object);
	ck_assert_int_eq(errno, EDOM);
	errno = EDOM;
	fastcpu_objcache_free(cache, NULL);
	ck_assert_int_eq(errno, EDOM);
	/* Nothing else changed. */
	for (int b = 0; b < 40; b++)
		ck_assert_uint_eq(((unsigned char *)neighbour)[b], 0xa5);
	ck_assert_int_eq(on_stack, 0);
	check_whole(cache, 1);
	fastcpu_objcache_free(cache, neighbour);
	check_whole(cache, 0);
	fastcpu_objcache_destroy(cache);
	fastcpu_objcache_destroy(other);
	fastcpu_objcache_destroy(NULL);
	free(from_malloc);
}
END_TEST

/* Programs built with 0.4's header call every function out of line and
 * make their cache with fastcpu_objcache_new itself (no layout passed):
 * the same contract, and their objects mix with the inline calls'. */
START_TEST(objcache_called_out_of_line)
{
	enum { OBJECTS = 600 };		/* more than a magazine of 48-byte objects */
	struct fastcpu_objcache *cache = (fastcpu_objcache_new)(48, 0);
	static char *o[OBJECTS];

	ck_assert_ptr_nonnull(cache);
	for (int i = 0; i < OBJECTS; i++) {
		o[i] = i % 3 ? (fastcpu_objcache_alloc)(cache) : fastcpu_objcache_alloc(cache);
		ck_assert_ptr_nonnull(o[i]);
		memset(o[i], i, 48);
	}
	for (int i = 0; i < OBJECTS; i++)
		ck_assert_uint_eq((unsigned char)o[i][47], (unsigned char)i);
	errno = 0;
	(fastcpu_objcache_free)(cache, o[0] + 8);
	ck_assert_int_eq(errno, EINVAL);
	for (int i = 0; i < OBJECTS; i++) {
		if (i % 2)
			(fastcpu_objcache_free)(cache, o[i]);
		else
			fastcpu_objcache_free(cache, o[i]);
	}
	check_whole(cache, 0);
	fastcpu_objcache_destroy(cache);
}
END_TEST

/* Objects of each size and alignment: aligned, as large as asked, none
 * overlapping another. */
START_TEST(objcache_sizes_and_alignments)
{
	static const size_t sz[] = { 1, 7, 16, 24, 40, 64, 100, 1000, 4096, 65536,
				     FASTCPU_OBJCACHE_MAX_SIZE };
	static const size_t al[] = { 0, 8, 64, 4096 };
	enum { OBJECTS = 70 };

	for (size_t s = 0; s < sizeof(sz) / sizeof(sz[0]); s++)
		for (size_t a = 0; a < sizeof(al) / sizeof(al[0]); a++) {
			struct fastcpu_objcache *cache = fastcpu_objcache_new(sz[s], al[a]);
			size_t natural = sz[s] & -sz[s];
			size_t want = al[a] ? al[a] : natural > 16 ? 16 : natural;
			unsigned char *o[OBJECTS];
			int objects = sz[s] > 4096 ? 4 : OBJECTS;

			ck_assert_ptr_nonnull(cache);
			for (int i = 0; i < objects; i++) {
				o[i] = fastcpu_objcache_alloc(cache);
				ck_assert_ptr_nonnull(o[i]);
				ck_assert_msg((uintptr_t)o[i] % want == 0,
					      "size %zu align %zu: %p", sz[s], al[a], (void *)o[i]);
				memset(o[i], i + 1, sz[s]);
			}
			for (int i = 0; i < objects; i++) {
				ck_assert_uint_eq(o[i][0], (unsigned int)(i + 1));
				ck_assert_uint_eq(o[i][sz[s] - 1], (unsigned int)(i + 1));
				fastcpu_objcache_free(cache, o[i]);
			}
			check_whole(cache, 0);
			fastcpu_objcache_destroy(cache);
		}
}
END_TEST

/* Where the library is built with AddressSanitizer and so is this test, a
 * free object is poisoned, and a given one is not. */
START_TEST(objcache_poisoned_while_free)
{
#ifdef ASAN
	struct fastcpu_objcache *cache = fastcpu_objcache_new(48, 0);
	char *o = fastcpu_objcache_alloc(cache), *other = fastcpu_objcache_alloc(cache);

	ck_assert(o != NULL && other != NULL);
	ck_assert_ptr_null(__asan_region_is_poisoned(o, 48));
	/* One carved but never given: the first allocation took the top of
	 * a magazine of fresh objects, or the eighth from it (a thread
	 * without sequences keeps eight), so the ninth below is fresh. */
	ck_assert(__asan_address_is_poisoned(o - 9 * 48));
	fastcpu_objcache_free(cache, o);
	fastcpu_objcache_free(cache, other);
	ck_assert(__asan_address_is_poisoned(o));
	ck_assert(__asan_address_is_poisoned(o + 47));
	/* A second free is seen, wherever the object lies now. */
	errno = 0;
	fastcpu_objcache_free(cache, o);
	ck_assert_int_eq(errno, EINVAL);
	check_whole(cache, 0);
	fastcpu_objcache_destroy(cache);
	/* Memory mapped again where the cache's was is nobody's free object. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *was = (char *)((uintptr_t)o & -(uintptr_t)page);
	void *again = mmap(was, page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	ck_assert_msg(again == was, "the cache's space was not given back");
	ck_assert_ptr_null(__asan_region_is_poisoned(again, page));
	munmap(again, page);
#endif
}
END_TEST

/*
 * The stress, in the shape of suite-percpu.c's: four workers per allowed
 * CPU, a timer signal every 50 us whose handler allocates and frees too, a
 * mover thread, a fork. Each object holds its holder's tag and a "taken"
 * flag: an object handed out while another holds it, or whose tag changed
 * under its holder, is counted. Workers hand batches to each other through
 * a shared slot (objects freed by another thread than the one that got
 * them, on another CPU), and add to per-CPU counters of the allocator, the
 * copies of neighbours. At the end every object is free, and the census
 * finds each once.
 */
struct tagged {
	long holder;
	int taken;
	int pad;
};

#define HELD 48
#define COUNTERS 8

static struct {
	struct fastcpu_objcache *cache;
	long iterations;
	struct tagged **exchange;	/* a batch of HELD, passed on */
	long *counters[COUNTERS];	/* per-CPU memory, side by side */
	unsigned long handler_calls, handler_adds;
	unsigned long twice, retagged, nulls;
	int workers_running_sequences, fork_child_wrong;
} ss;

static void take(struct tagged *o, long holder)
{
	if (__atomic_exchange_n(&o->taken, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&ss.twice, 1, __ATOMIC_RELAXED);
	o->holder = holder;
}

static void give_back(struct tagged *o, long holder)
{
	if (o->holder != holder)
		__atomic_fetch_add(&ss.retagged, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&o->taken, 0, __ATOMIC_RELEASE);
	fastcpu_objcache_free(ss.cache, o);
}

static struct tagged *get(long holder)
{
	struct tagged *o = fastcpu_objcache_alloc(ss.cache);

	if (o == NULL)
		__atomic_fetch_add(&ss.nulls, 1, __ATOMIC_RELAXED);
	else
		take(o, holder);
	return o;
}

static void on_signal(int sig)
{
	int saved = errno;
	long me = -1 - (long)pthread_self() % 1000;
	struct tagged *a = get(me), *b = get(me);

	(void)sig;
	if (a != NULL)
		give_back(a, me);
	if (b != NULL)
		give_back(b, me);
	fastcpu_percpu_add_out_of_line(ss.counters[ss.handler_calls % COUNTERS],
				       FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU, 1);
	__atomic_fetch_add(&ss.handler_adds, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ss.handler_calls, 1, __ATOMIC_RELAXED);
	errno = saved;
}

/* A fork child: the cache works, alone, and nothing in it is twice. */
static void fork_and_check(long me)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct fastcpu_private_census c;
		struct tagged *o[HELD];

		for (int r = 0; r < 100; r++) {
			for (int i = 0; i < HELD; i++)
				if ((o[i] = fastcpu_objcache_alloc(ss.cache)) == NULL)
					_exit(1);
			for (int i = 0; i < HELD; i++)
				fastcpu_objcache_free(ss.cache, o[i]);
		}
		if (fastcpu_private_objcache_census(ss.cache, &c) != 0 || c.repeated || c.strays ||
		    c.longest > c.limit)
			_exit(2);
		_exit(0);
	}
	(void)me;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		__atomic_fetch_add(&ss.fork_child_wrong, 1, __ATOMIC_RELAXED);
}

static void *stress_worker(void *index)
{
	long me = (long)(intptr_t)index;
	struct tagged **held = calloc(HELD, sizeof(*held));
	unsigned int seed = (unsigned int)me;

	ck_assert_ptr_nonnull(held);
	test_stress_enlist((int)me);
	(void)fastcpu_sched_getcpu();
	if (fastcpu_private_runs_sequences())
		__atomic_fetch_add(&ss.workers_running_sequences, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < ss.iterations; i++) {
		int n = 1 + (int)(rand_r(&seed) % HELD);

		for (int k = 0; k < n; k++)
			held[k] = get(me);
		fastcpu_percpu_add_out_of_line(ss.counters[i % COUNTERS], FASTCPU_PERCPU_STRIDE,
					       FASTCPU_BY_CPU, 1);
		if (i % 64 == 0) {
			/* The batch goes to whoever takes the slot next; the
			 * one found there becomes this worker's. */
			struct tagged **theirs;

			for (int k = n; k < HELD; k++)
				held[k] = get(me);
			n = HELD;
			for (int k = 0; k < n; k++)
				if (held[k] != NULL)
					held[k]->holder = -2;
			theirs = __atomic_exchange_n(&ss.exchange, held, __ATOMIC_ACQ_REL);
			if (theirs == NULL) {
				held = calloc(HELD, sizeof(*held));
				ck_assert_ptr_nonnull(held);
				continue;
			}
			held = theirs;
			for (int k = 0; k < n; k++)
				if (held[k] != NULL) {
					if (held[k]->holder != -2)
						__atomic_fetch_add(&ss.retagged, 1, __ATOMIC_RELAXED);
					held[k]->holder = me;
				}
		}
		for (int k = n; k-- > 0;)
			if (held[k] != NULL)
				give_back(held[k], me);
		if (me == 0 && i == ss.iterations / 2)
			fork_and_check(me);
	}
	free(held);
	return NULL;
}

#ifdef FASTCPU_RSEQ_INLINE
# define SEQUENCES 1
#else
# define SEQUENCES 0
#endif

/* The batch left in the exchange slot goes back too. */
static void give_back_exchange(void)
{
	if (ss.exchange == NULL)
		return;
	for (int k = 0; k < HELD; k++)
		if (ss.exchange[k] != NULL)
			give_back(ss.exchange[k], -2);
	free(ss.exchange);
	ss.exchange = NULL;
}

static void objcache_stress(size_t size)
{
	int n = 4 * CPU_COUNT(&test_allowed), rounds = 0;
	struct fastcpu_private_census c;
	double start = test_now_ms();
	unsigned long aborts_before;
	long total = 0, all = 0;

	memset(&ss, 0, sizeof(ss));
	ss.cache = fastcpu_objcache_new(size, 0);
	ss.iterations = test_scaled(3000);
	ck_assert_ptr_nonnull(ss.cache);
	for (int k = 0; k < COUNTERS; k++) {
		ss.counters[k] = fastcpu_percpu_zalloc(sizeof(long));
		ck_assert_ptr_nonnull(ss.counters[k]);
	}
	census(ss.cache, &c);
	aborts_before = c.aborts + __atomic_load_n(&aborts_inline, __ATOMIC_RELAXED);
	do {
		test_stress_run(n, stress_worker, on_signal);
		rounds++;
		census(ss.cache, &c);
	} while (SEQUENCES && ss.workers_running_sequences > 0 &&
		 c.aborts + __atomic_load_n(&aborts_inline, __ATOMIC_RELAXED) == aborts_before &&
		 test_now_ms() - start < 30000);
	give_back_exchange();
	ck_assert_uint_eq(ss.twice, 0);
	ck_assert_uint_eq(ss.retagged, 0);
	ck_assert_uint_eq(ss.nulls, 0);
	ck_assert_int_eq(ss.fork_child_wrong, 0);
	check_whole(ss.cache, 0);
	if (SEQUENCES && ss.workers_running_sequences > 0)
		ck_assert_msg(c.aborts + aborts_inline > aborts_before,
			      "the cache's sequences ran, none aborted");
	for (int k = 0; k < COUNTERS; k++) {
		long sum = 0, want = 0;

		for (int i = 0; i < fastcpu_cid_limit(); i++)
			sum += *fastcpu_percpu_ptr(ss.counters[k], i);
		for (long i = 0; i < ss.iterations; i++)
			want += i % COUNTERS == k;
		want *= (long)rounds * n;
		ck_assert_int_ge(sum, want);		/* and the handler's share */
		total += sum;
		all += want;
		fastcpu_percpu_free(ss.counters[k]);
	}
	ck_assert_int_eq(total, all + (long)ss.handler_adds);
	fastcpu_objcache_destroy(ss.cache);
}

START_TEST(objcache_exact_under_stress)
{
	objcache_stress(_i ? 200 : sizeof(struct tagged));
}
END_TEST

static const char *const fallbacks[] = { "FASTCPU_BACKEND=syscall",
					 "FASTCPU_BACKEND=vdso",
					 "FASTCPU_BACKEND=rdpid" };

START_TEST(objcache_exact_each_fallback)
{
	if ((_i == 1 && !test_has_vdso_getcpu()) || (_i == 2 && !test_cpu_has_rdpid()))
		return;
	if (TEST_RESPAWN(fallbacks[_i]))
		return;
	objcache_stress(sizeof(struct tagged));
	ck_assert_int_eq(ss.workers_running_sequences, 0);
}
END_TEST

/*
 * Upper-half lists overflowing (each full list goes to the depot) while
 * the main thread forks: no child finds a batch both on a list and in the
 * depot (a push gave the depot the list's batch and then replaced the
 * list; a fork between the two, with the turn freed in the child, left
 * the batch in both, and each of its objects was handed out twice).
 * The window is a few instructions: many forks, over a second at most.
 */
static struct {
	struct fastcpu_objcache *cache;
	int stop;
} overflow;

static void *overflowing(void *cpu)
{
	enum { OBJECTS = 40 };		/* more than a list of 2 KiB objects holds */
	void *o[OBJECTS];

	test_try_pin((int)(intptr_t)cpu);
	while (!__atomic_load_n(&overflow.stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < OBJECTS; i++)
			o[i] = fastcpu_objcache_alloc(overflow.cache);
		for (int i = 0; i < OBJECTS; i++)
			fastcpu_objcache_free(overflow.cache, o[i]);
	}
	return NULL;
}

START_TEST(objcache_fork_while_lists_overflow)
{
	pthread_t t[2];
	int cpu = test_first_allowed(), wrong = 0, forks = 0;
	double start;

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall"))
		return;
	overflow.cache = fastcpu_objcache_new(2048, 0);
	ck_assert_ptr_nonnull(overflow.cache);
	for (int k = 0; k < 2; k++, cpu = test_next_allowed(cpu))
		ck_assert_int_eq(pthread_create(&t[k], NULL, overflowing, (void *)(intptr_t)cpu), 0);
	start = test_now_ms();
	for (; forks < test_scaled(3000) && test_now_ms() - start < 1000; forks++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			struct fastcpu_private_census c;

			_exit(fastcpu_private_objcache_census(overflow.cache, &c) != 0 ||
			      c.repeated != 0 || c.strays != 0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		wrong += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	__atomic_store_n(&overflow.stop, 1, __ATOMIC_RELAXED);
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	ck_assert_msg(wrong == 0, "%d of %d fork children found objects free twice", wrong, forks);
	fastcpu_objcache_destroy(overflow.cache);
}
END_TEST

/*
 * A mixed process: one thread refused rseq by its own seccomp filter
 * (installed before its first call: it takes the upper half) beside one
 * that runs sequences, both passing objects to each other: every object
 * still accounted for once.
 */
static sigset_t alarm_only;

static void *refused_stress_worker(void *index)
{
	test_deny_rseq(EPERM, false);
	(void)fastcpu_sched_getcpu();
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	return stress_worker(index);
}

START_TEST(objcache_exact_one_thread_refused)
{
	pthread_t refused, normal;

	memset(&ss, 0, sizeof(ss));
	ss.cache = fastcpu_objcache_new(sizeof(struct tagged), 0);
	ss.iterations = test_scaled(3000);
	ck_assert_ptr_nonnull(ss.cache);
	for (int k = 0; k < COUNTERS; k++)
		ck_assert_ptr_nonnull(ss.counters[k] = fastcpu_percpu_zalloc(sizeof(long)));
	test_signal_every(on_signal);
	ck_assert_int_eq(pthread_create(&normal, NULL, stress_worker, (void *)1), 0);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	ck_assert_int_eq(pthread_create(&refused, NULL, refused_stress_worker, (void *)2), 0);
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	ck_assert_int_eq(pthread_join(normal, NULL), 0);
	ck_assert_int_eq(pthread_join(refused, NULL), 0);
	test_signal_stop();
	give_back_exchange();
	ck_assert_int_eq(ss.workers_running_sequences, fastcpu_private_runs_sequences());
	ck_assert_uint_eq(ss.twice, 0);
	ck_assert_uint_eq(ss.retagged, 0);
	ck_assert_uint_eq(ss.nulls, 0);
	check_whole(ss.cache, 0);
	for (int k = 0; k < COUNTERS; k++)
		fastcpu_percpu_free(ss.counters[k]);
	fastcpu_objcache_destroy(ss.cache);
}
END_TEST

/*
 * A CPU's magazine holds what it may, however many threads run there: 1000
 * threads on the allowed CPUs, each in its turn taking 16 objects and
 * giving them back, every thread still alive at the end, leave the cache
 * holding no more than 2 threads doing the same: every magazine within
 * its bound, and no more carved than the magazines' bound and the 16 in
 * use. Threads without sequences keep a few of their own besides, a bound
 * each (objcache-front.h): 16 here, given back at their exit.
 */
static pthread_mutex_t in_turn = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_done;

static void *take_sixteen(void *cache)
{
	void *o[16];

	pthread_mutex_lock(&in_turn);
	for (int i = 0; i < 16; i++)
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(cache));
	for (int i = 0; i < 16; i++)
		fastcpu_objcache_free(cache, o[i]);
	pthread_mutex_unlock(&in_turn);
	pthread_barrier_wait(&all_done);
	return NULL;
}

static size_t carved_with_threads(int threads)
{
	struct fastcpu_objcache *cache = fastcpu_objcache_new(64, 0);
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	struct fastcpu_private_census c;
	pthread_attr_t small;

	ck_assert(cache != NULL && t != NULL);
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	pthread_barrier_init(&all_done, NULL, (unsigned int)threads + 1);
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_create(&t[i], &small, take_sixteen, cache), 0);
	pthread_barrier_wait(&all_done);
	for (int i = 0; i < threads; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&all_done);
	pthread_attr_destroy(&small);
	check_whole(cache, 0);
	census(cache, &c);
	ck_assert_uint_le(c.carved, (size_t)fastcpu_cid_limit() * (c.limit + 32) + 16 +
					    (fastcpu_private_runs_sequences() ? 0 : (size_t)threads * 16));
	fastcpu_objcache_destroy(cache);
	free(t);
	return c.carved;
}

START_TEST(objcache_bounded_however_many_threads)
{
	size_t two, thousand;

	if (test_instrumented() || test_emulated())
		return;		/* a thousand threads: too slow there */
	two = carved_with_threads(2);
	thousand = carved_with_threads(1000);
	printf("objcache_bounded_however_many_threads: carved %zu with 2 threads, %zu with 1000\n",
	       two, thousand);
}
END_TEST

/* Caches made and destroyed leave no mapping behind. */
static int mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, ch;

	ck_assert_ptr_nonnull(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* Whether p lies in one of the process's mappings (read from the maps,
 * not probed: valgrind reports a system call on an unmapped address). */
static bool page_mapped(const void *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start, end;
	bool found = false;
	char line[512];

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "%lx-%lx", &start, &end) == 2 && (uintptr_t)p >= start &&
			(uintptr_t)p < end;
	fclose(f);
	return found;
}

START_TEST(objcache_destroy_gives_back)
{
	int before;

	for (int warm = 0; warm < 2; warm++) {
		struct fastcpu_objcache *c = fastcpu_objcache_new(32, 0);

		fastcpu_objcache_free(c, fastcpu_objcache_alloc(c));
		fastcpu_objcache_destroy(c);
	}
	before = mappings();
	for (int i = 0; i < 200; i++) {
		struct fastcpu_objcache *c = fastcpu_objcache_new(100 + (size_t)i, 0);
		void *first = fastcpu_objcache_alloc(c);

		ck_assert_ptr_nonnull(first);
		for (int k = 1; k < 100; k++)
			ck_assert_ptr_nonnull(fastcpu_objcache_alloc(c));
		ck_assert(page_mapped(first));
		fastcpu_objcache_destroy(c);
		ck_assert_msg(!page_mapped(first), "cache %d's objects still mapped", i);
	}
#ifndef ASAN
	/* Nothing else left behind either (ASan maps for its own allocator
	 * meanwhile, valgrind for the code it translates). */
	if (!test_under_valgrind())
		ck_assert_int_le(mappings(), before + 2);
#else
	(void)before;
#endif
}
END_TEST

/*
 * Every alloc and free reads the cache's public words and stores to its
 * index's top: at one page offset, a load waits on the store before it
 * (4K aliasing), and on AMD Zen one process in eight paid 6.5 ns a pair
 * for 2.7. The words lie half a page from the tops and off the thread's
 * rseq area (rseq_cs is stored twice an operation); tops sweep every line
 * of a page over 256 caches, and before this the words lay at a page's
 * first line in every cache.
 */
START_TEST(objcache_public_words_clear_of_stores)
{
	enum { CACHES = 300, PAGE = 4096, LINE = 64 };
	static struct fastcpu_objcache *caches[CACHES];
	const volatile int *cpu_at;

	(void)fastcpu_sched_getcpu();
	cpu_at = fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));
	for (int i = 0; i < CACHES; i++) {
		const struct fastcpu_objcache_fast_ *fast;
		uintptr_t words, top;

		caches[i] = fastcpu_objcache_new(64, 0);
		ck_assert_ptr_nonnull(caches[i]);
		fast = (const struct fastcpu_objcache_fast_ *)(const void *)caches[i];
		words = (uintptr_t)fast % PAGE;
		top = (uintptr_t)fast->tops % PAGE;
		ck_assert_msg(words + sizeof(*fast) <= top || top + 16 <= words,
			      "cache %d: its words at page offset %#lx, its top at %#lx", i,
			      (unsigned long)words, (unsigned long)top);
		if (*cpu_at >= 0) {
			uintptr_t area = ((uintptr_t)cpu_at - 4) % PAGE;	/* struct rseq: 32 bytes */

			ck_assert_msg(words + sizeof(*fast) <= area || area + 32 <= words,
				      "cache %d: its words at page offset %#lx, the rseq area at %#lx",
				      i, (unsigned long)words, (unsigned long)area);
		}
	}
	for (int i = 0; i < CACHES; i++)
		fastcpu_objcache_destroy(caches[i]);
}
END_TEST

Suite *suite_objcache(void)
{
	Suite *s = suite_create("objcache");
	TCase *tc = tcase_create("default");
	TCase *exact = test_exactness_case();

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, objcache_bad_input);
	tcase_add_test(tc, objcache_called_out_of_line);
	tcase_add_test(tc, objcache_sizes_and_alignments);
	tcase_add_test(tc, objcache_poisoned_while_free);
	tcase_add_loop_test(exact, objcache_exact_under_stress, 0, 2);
	test_add_respawning(tc, objcache_exact_each_fallback, 0, 3);
	test_add_respawning(tc, objcache_fork_while_lists_overflow, 0, 1);
	/* glibc aborts a new thread whose rseq registration fails */
	if (test_seccomp_works() && !test_glibc_registered_rseq() && test_kernel_rseq_usable())
		tcase_add_test(tc, objcache_exact_one_thread_refused);
	tcase_add_test(tc, objcache_bounded_however_many_threads);
	tcase_add_test(tc, objcache_destroy_gives_back);
	tcase_add_test(tc, objcache_public_words_clear_of_stores);
	suite_add_tcase(s, exact);
	suite_add_tcase(s, tc);
	return s;
}
