/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/host/owner-probe.c: libfastcpu beside another rseq owner (owner.sh). */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"
#include "librseq-shaped.h"
#include "private.h"
#include "rseq-owner.h"

/*
 * A program that uses a librseq-like owner (bench/rseq-owner.c) of its
 * threads' rseq areas, with libfastcpu linked in or preloaded (owner.sh runs
 * every combination, in both rseq setups). In the main thread and 8 new
 * ones, the owner registers before the thread's first libfastcpu call, or
 * after it: the owner's registration must succeed and stay registered, no
 * thread may abort, and every answer must be the kernel's.
 */
#ifdef OWNER_LINKED
# define owner_register rseq_owner_register
# define owner_registered_here rseq_owner_registered_here
# define owner_percpu_inc rseq_owner_percpu_inc
# define owner_aborts rseq_owner_aborts
# define owner_cpu_id_word rseq_owner_cpu_id_word
# define owner_signature rseq_owner_signature
# define backend fastcpu_backend
# define counter_new fastcpu_counter_new
# define counter_sum fastcpu_counter_sum
# define cid_limit fastcpu_cid_limit
# define objcache_alloc(c) fastcpu_objcache_alloc(c)
# define objcache_free(c, o) fastcpu_objcache_free((c), (o))
/* The inline sequences of <fastcpu.h>. */
static void library_add(struct fastcpu_counter *c)
{
	fastcpu_counter_add(c, 1);
}

static struct fastcpu_objcache *objcache_new(size_t size)
{
	return fastcpu_objcache_new(size, 0);
}
#else
/* Preloaded, both of them: this program is linked with neither, and the
 * library runs its sequences out of line. */
static int (*owner_register)(void);
static bool (*owner_registered_here)(void);
static void (*owner_percpu_inc)(long *, size_t);
static unsigned long (*owner_aborts)(void);
static const volatile int *(*owner_cpu_id_word)(void);
static unsigned int (*owner_signature)(void);
static const char *(*backend)(void);
static struct fastcpu_counter *(*counter_new)(void);
static long (*counter_sum)(const struct fastcpu_counter *);
static int (*cid_limit)(void);
static void (*percpu_add)(void *, size_t, enum fastcpu_index, long);
static struct fastcpu_objcache *(*objcache_new_layout)(size_t, size_t, unsigned int);
static void *(*objcache_alloc)(struct fastcpu_objcache *);
static void (*objcache_free)(struct fastcpu_objcache *, void *);

static struct fastcpu_objcache *objcache_new(size_t size)
{
	return objcache_new_layout(size, 0, FASTCPU_OBJCACHE_LAYOUT_);
}

static void library_add(struct fastcpu_counter *c)
{
	percpu_add(c, fastcpu_percpu_stride(), FASTCPU_BY_CPU, 1);
}

static void *must_find(const char *name)
{
	void *fn = dlsym(RTLD_DEFAULT, name);

	ck_assert_msg(fn != NULL, "%s not loaded: LD_PRELOAD both libraries", name);
	return fn;
}

static void find_libraries(void)
{
	owner_register = (int (*)(void))must_find("rseq_owner_register");
	owner_registered_here = (bool (*)(void))must_find("rseq_owner_registered_here");
	owner_percpu_inc = (void (*)(long *, size_t))must_find("rseq_owner_percpu_inc");
	owner_aborts = (unsigned long (*)(void))must_find("rseq_owner_aborts");
	owner_cpu_id_word = (const volatile int *(*)(void))must_find("rseq_owner_cpu_id_word");
	owner_signature = (unsigned int (*)(void))must_find("rseq_owner_signature");
	backend = (const char *(*)(void))must_find("fastcpu_backend");
	counter_new = (struct fastcpu_counter *(*)(void))must_find("fastcpu_counter_new");
	counter_sum = (long (*)(const struct fastcpu_counter *))must_find("fastcpu_counter_sum");
	cid_limit = (int (*)(void))must_find("fastcpu_cid_limit");
	percpu_add = (void (*)(void *, size_t, enum fastcpu_index, long))
		must_find("fastcpu_percpu_add_out_of_line");
	objcache_new_layout = (struct fastcpu_objcache *(*)(size_t, size_t, unsigned int))
		must_find("fastcpu_objcache_new_layout_");
	objcache_alloc = (void *(*)(struct fastcpu_objcache *))must_find("fastcpu_objcache_alloc");
	objcache_free = (void (*)(struct fastcpu_objcache *, void *))
		must_find("fastcpu_objcache_free");
}
#endif

/* sched_getcpu() and getcpu() (libfastcpu's) against the kernel, on each
 * allowed CPU; errno untouched. */
static void check_answers(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		unsigned int c, n;

		if (!CPU_ISSET(cpu, &test_allowed))
			continue;
		test_pin(cpu);
		errno = EDOM;
		ck_assert_int_eq(sched_getcpu(), cpu);
		ck_assert_int_eq(getcpu(&c, &n), 0);
		ck_assert_int_eq((int)c, cpu);
		ck_assert_uint_eq(n, test_kernel_node());
		ck_assert_int_eq(errno, EDOM);
	}
}

static void owner_then_library(void)
{
	ck_assert_int_eq(owner_register(), 0);
	check_answers();
}

static void library_then_owner(void)
{
	check_answers();
	ck_assert_msg(owner_register() == 0,
		      "the owner's registration failed after libfastcpu's first call");
	check_answers();
}

#ifdef OWNER_READS_OFFSET
/* As librseq's inline functions do: the program reads rseq_offset itself,
 * so (PIE or not) the live variable is a copy in the program. */
extern ptrdiff_t rseq_offset;
#endif

/* Once the owner registered, libfastcpu reads its area. */
static void check_owner_kept(void)
{
	const char *want = test_glibc_registered_rseq() ? "rseq (glibc)" :
			   "rseq (program)";

	ck_assert(owner_registered_here());
	ck_assert_str_eq(backend(), want);
#ifdef OWNER_READS_OFFSET
	ck_assert(test_glibc_registered_rseq() || rseq_offset != 0);
#endif
}

static void *thread_main(void *k)
{
	if ((intptr_t)k % 2)
		library_then_owner();
	else
		owner_then_library();
	check_owner_kept();
	return NULL;
}

START_TEST(owner_keeps_its_area)
{
	pthread_t t[8];

#ifndef OWNER_LINKED
	find_libraries();
#endif
	if (_i)
		library_then_owner();
	else
		owner_then_library();
	check_owner_kept();
	for (intptr_t k = 0; k < 8; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, thread_main, (void *)k), 0);
	for (int k = 0; k < 8; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
}
END_TEST

/*
 * The owner's own sequences and libfastcpu's, in the same threads, on the
 * same area's rseq_cs (never nested), under a signal storm whose handler
 * runs both: two counters, both exact; and where the owner has sequences,
 * the kernel aborted some of them, so the two really interleaved.
 */
#define SIDE_BY_SIDE 2000000	/* increments of each kind per thread */

/* Whether the owner runs sequences of its own here (rseq-owner.c): where
 * it has them, and never on glibc's area with a signature of its own. */
static bool owner_runs_sequences(void)
{
#ifdef LIBRSEQ_SHAPED_ADD
	return owner_signature() == FASTCPU_RSEQ_SIGNATURE || !test_glibc_registered_rseq();
#else
	return false;
#endif
}
#define OWNER_STRIDE 128
static long owner_counts[CPU_SETSIZE * OWNER_STRIDE / sizeof(long)]
	__attribute__((aligned(OWNER_STRIDE)));
static struct fastcpu_counter *library_counter;
static unsigned long handled;
static sigset_t alarm_only;

static void both_once(void)
{
	owner_percpu_inc(owner_counts, OWNER_STRIDE);
	library_add(library_counter);
}

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	both_once();
	__atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
	errno = saved;
}

/* Starts with SIGALRM blocked: the handler needs the owner registered. Four
 * threads a CPU, each preempted now and then, and the signals all theirs. */
static void *side_by_side(void *k)
{
	long n = test_scaled(SIDE_BY_SIDE);

	if ((intptr_t)k % 2)
		library_then_owner();
	else
		owner_then_library();
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	for (long i = 0; i < n; i++)
		both_once();
	return NULL;
}

START_TEST(sequences_side_by_side)
{
	int threads = 4 * CPU_COUNT(&test_allowed), rounds = 0;
	unsigned long want, owner_total = 0;
	pthread_t t[4 * CPU_SETSIZE];
	double start = test_now_ms();

#ifndef OWNER_LINKED
	find_libraries();
#endif
	ck_assert_int_eq(owner_register(), 0);
	library_counter = counter_new();
	ck_assert_ptr_nonnull(library_counter);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	/* Signals land in the owner's short window seldom: every 50 us, a
	 * process built by gcc 10 in a bullseye root went 60 s without an
	 * abort one time in four; every 20 us, aborts come within seconds.
	 * Not in every process on its own area (glibc's off): a Zen 5 saw one
	 * abort in 100,000 to 700,000 signals (glibc's area: one in 100), and
	 * some processes took 18 to 21 rounds, 60 s, for their first. */
	test_signal_every_us(on_signal, 20);
	/* Rounds until the owner's sequences were aborted (the kernel had to
	 * run its and ours in turns), or 150 s: below the case's timeout, so
	 * that a miss says so. */
	do {
		pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
		for (intptr_t k = 0; k < threads; k++)
			ck_assert_int_eq(pthread_create(&t[k], NULL, side_by_side,
							(void *)k), 0);
		/* blocked here until they are done: the signals land on them */
		for (int k = 0; k < threads; k++)
			ck_assert_int_eq(pthread_join(t[k], NULL), 0);
		pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
		rounds++;
	} while (owner_runs_sequences() && owner_aborts() == 0 && test_now_ms() - start < 150000);
	test_signal_stop();
	want = (unsigned long)(rounds * threads) * (unsigned long)test_scaled(SIDE_BY_SIDE) +
	       handled;
	for (size_t i = 0; i < sizeof(owner_counts) / sizeof(owner_counts[0]); i++)
		owner_total += (unsigned long)owner_counts[i];
	ck_assert_uint_eq(owner_total, want);
	ck_assert_uint_eq((unsigned long)counter_sum(library_counter), want);
	ck_assert_msg(!owner_runs_sequences() || owner_aborts() > 0,
		      "the owner's sequences were never aborted in %d rounds", rounds);
}
END_TEST

/*
 * A thread the owner never registers (librseq registers only the threads
 * that ask it to): the fallback answers it, right on every CPU and at the
 * fallback's speed (bench's setup table), its per-CPU adds land exactly
 * beside those of registered threads under a signal storm, and so do its
 * object cache's allocations and frees (the upper half's), and the moment
 * the owner registers it, the library reads the owner's area. Under the
 * reference-count convention the library registers the shared area itself,
 * and glibc's areas are every thread's where glibc registered them.
 */
#define MIXED_ADDS 200000	/* per thread */

static struct fastcpu_counter *mixed_counter;
static unsigned long mixed_handled;

/* The object cache too: objects tagged while held, none handed out twice,
 * every one free once at the end (the census). */
struct held { int taken; };
static struct fastcpu_objcache *mixed_cache;
static unsigned long mixed_twice, mixed_nulls;

static void object_round(void)
{
	struct held *o = objcache_alloc(mixed_cache);

	if (o == NULL) {
		__atomic_fetch_add(&mixed_nulls, 1, __ATOMIC_RELAXED);
		return;
	}
	if (__atomic_exchange_n(&o->taken, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&mixed_twice, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&o->taken, 0, __ATOMIC_RELEASE);
	objcache_free(mixed_cache, o);
}

static void on_mixed_signal(int sig)
{
	(void)sig;
	library_add(mixed_counter);
	object_round();
	__atomic_fetch_add(&mixed_handled, 1, __ATOMIC_RELAXED);
}

static bool owner_leaves_threads_alone(void)
{
	return !test_glibc_registered_rseq() && dlsym(RTLD_DEFAULT, "__rseq_refcount") == NULL;
}

static void *mixed_adds(void *k)
{
	long n = test_scaled(MIXED_ADDS);

	if ((intptr_t)k % 2)
		ck_assert_int_eq(owner_register(), 0);
	else if (owner_leaves_threads_alone())
		ck_assert_msg(strncmp(backend(), "rseq", 4) != 0,
			      "a thread the owner never registered reads \"%s\"", backend());
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	for (long i = 0; i < n; i++) {
		library_add(mixed_counter);
		if (i % 8 == 0)
			object_round();
	}
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	return NULL;
}

static void *never_then_registered(void *unused)
{
	(void)unused;
	check_answers();
	if (owner_leaves_threads_alone()) {
		ck_assert_int_lt(*owner_cpu_id_word(), 0);	/* not registered */
		ck_assert_msg(strncmp(backend(), "rseq", 4) != 0,
			      "a thread the owner never registered reads \"%s\"", backend());
	}
	ck_assert_int_eq(owner_register(), 0);
	check_answers();
	check_owner_kept();
	return NULL;
}

/* Every object of cache free, found once (FASTCPU_PRIVATE, looked up:
 * the same in both builds). */
static void census_whole(const struct fastcpu_objcache *cache)
{
	int (*census)(const struct fastcpu_objcache *, struct fastcpu_private_census *) =
		(int (*)(const struct fastcpu_objcache *, struct fastcpu_private_census *))
		dlsym(RTLD_DEFAULT, "fastcpu_private_objcache_census");
	struct fastcpu_private_census c;

	ck_assert_ptr_nonnull(census);
	ck_assert_int_eq(census(cache, &c), 0);
	ck_assert_uint_eq(c.repeated, 0);
	ck_assert_uint_eq(c.strays, 0);
	ck_assert_uint_eq(c.listed + c.in_depot, c.carved);
}

START_TEST(thread_the_owner_never_registers)
{
	int threads = 4 * CPU_COUNT(&test_allowed);
	pthread_t t[4 * CPU_SETSIZE];

#ifndef OWNER_LINKED
	find_libraries();
#endif
	ck_assert_int_eq(pthread_create(&t[0], NULL, never_then_registered, NULL), 0);
	ck_assert_int_eq(pthread_join(t[0], NULL), 0);

	mixed_counter = counter_new();
	mixed_cache = objcache_new(sizeof(struct held));
	ck_assert(mixed_counter != NULL && mixed_cache != NULL);
	sigemptyset(&alarm_only);
	sigaddset(&alarm_only, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
	test_signal_every_us(on_mixed_signal, 20);
	for (intptr_t k = 0; k < threads; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, mixed_adds, (void *)k), 0);
	for (int k = 0; k < threads; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	test_signal_stop();
	pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
	ck_assert_uint_eq((unsigned long)counter_sum(mixed_counter),
			  (unsigned long)threads * (unsigned long)test_scaled(MIXED_ADDS) +
			  mixed_handled);
	census_whole(mixed_cache);
	ck_assert_uint_eq(mixed_twice, 0);
	ck_assert_uint_eq(mixed_nulls, 0);
}
END_TEST

/*
 * librseq publishes where its areas are (rseq_offset) in its constructor,
 * before main, whichever of it and libfastcpu the loader initialises
 * first: libfastcpu publishes the same place at load, so that a function
 * whose reads began before its thread registered (the address of the word
 * computed once, as a loop does) reads the owner's area once registered.
 * Looked up by name: the same test linked and preloaded.
 */
static const volatile int *hoisted;

static void *register_late(void *unused)
{
	const ptrdiff_t *lib_offset = dlsym(RTLD_DEFAULT, "fastcpu_cpu_id_offset");
	const volatile char *anchor = dlsym(RTLD_DEFAULT, "fastcpu_tls_anchor");
	int cpu = test_first_allowed();

	(void)unused;
	hoisted = (const volatile int *)(const volatile void *)(anchor + *lib_offset);
	test_pin(cpu);
	ck_assert_int_lt(*hoisted, 0);	/* not registered in this thread yet */
	ck_assert_int_eq(owner_register(), 0);
	ck_assert_int_eq(*hoisted, cpu);
	return NULL;
}

START_TEST(published_before_registration)
{
	const ptrdiff_t *owner_offset = dlsym(RTLD_DEFAULT, "rseq_offset");
	const ptrdiff_t *lib_offset = dlsym(RTLD_DEFAULT, "fastcpu_cpu_id_offset");
	const char *anchor = dlsym(RTLD_DEFAULT, "fastcpu_tls_anchor");
	pthread_t t;

#ifndef OWNER_LINKED
	find_libraries();
#endif
	if (owner_offset == NULL || test_glibc_registered_rseq())
		return;		/* not librseq's convention, or glibc's areas */
	ck_assert_ptr_nonnull(lib_offset);
	ck_assert_ptr_nonnull(anchor);
	ck_assert_msg(*owner_offset != 0, "the owner did not publish in its constructor");
	ck_assert_msg(*lib_offset != 0, "libfastcpu did not publish the owner's area at load");
	ck_assert_ptr_eq(anchor + *lib_offset, (const void *)owner_cpu_id_word());
	ck_assert_int_eq(pthread_create(&t, NULL, register_late, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

/*
 * The library runs its sequences on the owner's area only where the owner
 * registered it with the library's signature (else the kernel would kill
 * the process at the first abort): the read stays the owner's area, the
 * per-CPU operations' word is published only then, and the library's
 * per-CPU add lands either way.
 */
START_TEST(sequences_only_with_the_signature)
{
	const ptrdiff_t *reads = dlsym(RTLD_DEFAULT, "fastcpu_cpu_id_offset");
	const ptrdiff_t *sequences = dlsym(RTLD_DEFAULT, "fastcpu_percpu_cpu_id_offset");
	const ptrdiff_t *upper = dlsym(RTLD_DEFAULT, "fastcpu_percpu_upper_cpu_id_offset");
	const ptrdiff_t *upper_base = dlsym(RTLD_DEFAULT, "fastcpu_percpu_upper_base");
	struct fastcpu_counter *c;

#ifndef OWNER_LINKED
	find_libraries();
#endif
	ck_assert(reads != NULL && sequences != NULL && upper != NULL && upper_base != NULL);
	ck_assert_int_eq(owner_register(), 0);
	c = counter_new();
	ck_assert_ptr_nonnull(c);
	library_add(c);		/* the first: the library decides */
	library_add(c);
	ck_assert_int_eq(counter_sum(c), 2);
	if (test_glibc_registered_rseq())
		return;		/* glibc's areas are the ones read */
	ck_assert_int_ne(*reads, 0);
	if (owner_signature() == FASTCPU_RSEQ_SIGNATURE) {
		ck_assert_int_eq(*sequences, *reads);
		ck_assert_int_eq(*upper, 0);
	} else {
		/* the inline operations take the upper half with no call */
		ck_assert_int_eq(*sequences, 0);
		ck_assert_int_eq(*upper, *reads);
		ck_assert_int_eq(*upper_base, cid_limit() / 2);
		library_add(c);
		ck_assert_int_eq(counter_sum(c), 3);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rseq owner");
	TCase *tc = tcase_create("owner");

	test_record_allowed();
	if (!test_kernel_rseq_usable()) {
		puts("owner-probe: the kernel has no rseq here (qemu-user?): skipped");
		return 77;
	}
	tcase_add_test(tc, published_before_registration);
	tcase_add_test(tc, sequences_only_with_the_signature);
	tcase_add_loop_test(tc, owner_keeps_its_area, 0, 2);
	tcase_add_test(tc, thread_the_owner_never_registers);
	tcase_add_test(tc, sequences_side_by_side);
	tcase_set_timeout(tc, 180);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
