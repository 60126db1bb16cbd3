/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/suite-backends.c: each backend and cache setting forced in turn. */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/* Each test runs in its own forked child, where the library has not bound
 * yet: the environment set here is what it reads on the first call. */
static const char *const backends[] = { "auto", "rseq", "rdpid", "vdso",
					"syscall" };
static const char *const caches[] = { "auto", "on", "off" };
#define NCACHES (sizeof(caches) / sizeof(caches[0]))
#define NCOMBOS ((sizeof(backends) / sizeof(backends[0])) * NCACHES)

START_TEST(forced_backend_every_cpu)
{
	const char *backend = backends[_i / NCACHES];
	const char *cache = caches[_i % NCACHES];
	char buf[64];

	setenv("FASTCPU_BACKEND", backend, 1);
	setenv("FASTCPU_CACHE", cache, 1);
	test_check_all_cpus_in_thread();
	test_check_all_cpus();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(backend, cache, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The cache's clock really ticks: after a migration the cache was not told
 * of (pthread_setaffinity_np is not sched_setaffinity), the new CPU shows
 * within one tick, 10 ms at most (HZ=100), well inside the 100 ms allowed
 * here. A clock that never moves, or a counter cut too coarsely, fails.
 */
START_TEST(cache_expires_within_a_tick)
{
	int from = test_first_allowed(), to = test_next_allowed(from);
	cpu_set_t one;
	double start, waited;

	setenv("FASTCPU_BACKEND", "syscall", 1);
	setenv("FASTCPU_CACHE", "on", 1);
	test_pin(from);
	ck_assert_int_eq(sched_getcpu(), from);
	CPU_ZERO(&one);
	CPU_SET(to, &one);
	ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	start = now_ms();
	while (sched_getcpu() != to && now_ms() - start < 1000)
		;
	waited = now_ms() - start;
	ck_assert_msg(waited < 100, "the cache kept CPU %d for %.1f ms", from, waited);
}
END_TEST

/* Runs fn with stderr going to a file; returns what was written. */
static char *stderr_of(void (*fn)(void))
{
	static char out[4096];
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t len;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
	fn();
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	rewind(f);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	fclose(f);
	close(saved);
	return out;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void ask_everything(void)
{
	test_check_all_cpus();
	test_check_all_cpus_in_thread();
	(void)fastcpu_backend();
}

START_TEST(invalid_backend_warns_once)
{
	char buf[64];
	const char *err;

	setenv("FASTCPU_BACKEND", "turbo", 1);
	err = stderr_of(ask_everything);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "FASTCPU_BACKEND"));
	ck_assert_ptr_nonnull(strstr(err, "auto, rseq, rdpid, vdso, syscall"));
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

START_TEST(invalid_cache_warns_once)
{
	const char *err;

	setenv("FASTCPU_CACHE", "sometimes", 1);
	err = stderr_of(ask_everything);
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "FASTCPU_CACHE"));
}
END_TEST

/* A backend this machine (or this build) lacks: one line, then auto. */
static const char *missing_backend(void)
{
	return !test_cpu_has_rdpid() ? "rdpid" : !test_has_vdso_getcpu() ? "vdso" : NULL;
}

START_TEST(unavailable_backend_warns_once)
{
	char buf[64], want[80];
	const char *err;

	setenv("FASTCPU_BACKEND", missing_backend(), 1);
	err = stderr_of(ask_everything);
	snprintf(want, sizeof(want), "FASTCPU_BACKEND=%s is not available",
		 missing_backend());
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, want));
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

START_TEST(valid_settings_are_silent)
{
	setenv("FASTCPU_BACKEND", "syscall", 1);
	setenv("FASTCPU_CACHE", "on", 1);
	ck_assert_str_eq(stderr_of(ask_everything), "");
}
END_TEST

Suite *suite_backends(void)
{
	Suite *s = suite_create("backends");
	TCase *tc = tcase_create("forced");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, forced_backend_every_cpu, 0, (int)NCOMBOS);
	tcase_add_test(tc, invalid_backend_warns_once);
	tcase_add_test(tc, invalid_cache_warns_once);
	tcase_add_test(tc, valid_settings_are_silent);
	if (CPU_COUNT(&test_allowed) > 1)
		tcase_add_test(tc, cache_expires_within_a_tick);
	if (missing_backend() != NULL)	/* valgrind, a generic build */
		tcase_add_test(tc, unavailable_backend_warns_once);
	suite_add_tcase(s, tc);
	return s;
}
