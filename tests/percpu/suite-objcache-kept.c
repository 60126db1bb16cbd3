/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/suite-objcache-kept.c: the objects a thread without sequences keeps of its own. */

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
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
START_TEST(objcache_kept_bounded_and_given_back_at_exit)
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
START_TEST(objcache_kept_taken_back_in_fork_child)
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
START_TEST(objcache_kept_forgotten_when_destroyed)
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
START_TEST(objcache_kept_three_caches)
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

/*
 * A destructor of the last round at a thread's exit (glibc and musl run
 * PTHREAD_DESTRUCTOR_ITERATIONS of them) that uses the cache, after the
 * library's own destructor gave the thread's objects back: the thread keeps
 * nothing more, so nothing is left with it (the library's key was made
 * first, so its destructor runs first in a round, and is not called again
 * after the last).
 */
#ifndef PTHREAD_DESTRUCTOR_ITERATIONS
# define PTHREAD_DESTRUCTOR_ITERATIONS 4
#endif
static pthread_key_t late_key;
static struct fastcpu_objcache *late_cache;

static void late_destructor(void *round)
{
	uintptr_t r = (uintptr_t)round;
	void *o[8];

	if (r < PTHREAD_DESTRUCTOR_ITERATIONS) {
		ck_assert_int_eq(pthread_setspecific(late_key, (void *)(r + 1)), 0);
		return;
	}
	for (int i = 0; i < 8; i++)
		ck_assert_ptr_nonnull(o[i] = fastcpu_objcache_alloc(late_cache));
	for (int i = 0; i < 8; i++)
		fastcpu_objcache_free(late_cache, o[i]);
}

static void *keeps_then_exits(void *unused)
{
	void *o = fastcpu_objcache_alloc(late_cache);

	(void)unused;
	ck_assert_ptr_nonnull(o);
	fastcpu_objcache_free(late_cache, o);
	ck_assert_int_eq(pthread_setspecific(late_key, (void *)1), 0);
	return NULL;
}

START_TEST(objcache_kept_none_after_last_destructors)
{
	pthread_t t;

	if (IN_UPPER_HALF())
		return;
	late_cache = fastcpu_objcache_new(64, 0);	/* the library's key first */
	ck_assert_ptr_nonnull(late_cache);
	ck_assert_int_eq(pthread_key_create(&late_key, late_destructor), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, keeps_then_exits, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	check_all_free(late_cache, 0);
	fastcpu_objcache_destroy(late_cache);
}
END_TEST

Suite *suite_objcache_kept(void)
{
	Suite *s = suite_create("objcache-kept");
	TCase *tc = tcase_create("default");

	tcase_set_timeout(tc, 120);
	test_add_respawning(tc, objcache_kept_bounded_and_given_back_at_exit, 0, 2);
	test_add_respawning(tc, objcache_kept_taken_back_in_fork_child, 0, 1);
	test_add_respawning(tc, objcache_kept_forgotten_when_destroyed, 0, 1);
	test_add_respawning(tc, objcache_kept_three_caches, 0, 1);
	test_add_respawning(tc, objcache_kept_none_after_last_destructors, 0, 1);
	suite_add_tcase(s, tc);
	return s;
}
