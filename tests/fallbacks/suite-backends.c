/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fallbacks/suite-backends.c: each backend and cache setting forced in turn. */

#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/* The library reads its settings at load: each of these tests runs its body
 * in a new process started with them (TEST_RESPAWN). */
static const char *const backends[] = { "auto", "rseq", "rdpid", "vdso",
					"syscall" };
static const char *const caches[] = { "auto", "on", "off" };
#define NCACHES (sizeof(caches) / sizeof(caches[0]))
#define NCOMBOS ((sizeof(backends) / sizeof(backends[0])) * NCACHES)

static char *assignment(const char *name, const char *value)
{
	static char text[4][64];
	static int which;
	char *out = text[which++ % 4];

	snprintf(out, sizeof(text[0]), "%s=%s", name, value);
	return out;
}

/* The name fastcpu_backend() gives the mechanism fastcpu_backend_id() says. */
static const char *name_of_id(int id, char *buf, size_t size)
{
	static const char *const names[] = {
		[FASTCPU_BACKEND_RSEQ_GLIBC] = "rseq (glibc)",
		[FASTCPU_BACKEND_RSEQ_PROGRAM] = "rseq (program)",
		[FASTCPU_BACKEND_RSEQ_OWN] = "rseq (own)",
		[FASTCPU_BACKEND_RDPID] = "rdpid",
		[FASTCPU_BACKEND_VDSO] = "vdso",
		[FASTCPU_BACKEND_SYSCALL] = "syscall",
	};
	int base = id & ~FASTCPU_BACKEND_CACHED;

	ck_assert_msg(base >= FASTCPU_BACKEND_RSEQ_GLIBC && base <= FASTCPU_BACKEND_SYSCALL,
		      "fastcpu_backend_id() says %#x", id);
	snprintf(buf, size, "%s%s", names[base], id & FASTCPU_BACKEND_CACHED ? "+cache" : "");
	return buf;
}

START_TEST(forced_backend_every_cpu)
{
	const char *backend = backends[_i / NCACHES];
	const char *cache = caches[_i % NCACHES];
	const char *want;
	char buf[64], by_id[64];

	if (TEST_RESPAWN(assignment("FASTCPU_BACKEND", backend),
			 assignment("FASTCPU_CACHE", cache)))
		return;
	test_check_all_cpus_in_thread();
	test_check_all_cpus();
	want = expect_backend_name(backend, cache, expect_rseq_ok(), buf, sizeof(buf));
	ck_assert_str_eq(name_of_id(fastcpu_backend_id(), by_id, sizeof(by_id)), fastcpu_backend());
	/* The cache in front of the vDSO only where it measured faster. */
	if (strcmp(want, "vdso+cache") == 0 && strcmp(fastcpu_backend(), "vdso") == 0)
		return;
	ck_assert_str_eq(fastcpu_backend(), want);
}
END_TEST

/*
 * The cache's clock really ticks: after a migration the cache cannot know of
 * (made by another process, as taskset -p does), the new CPU shows within
 * one tick, 10 ms at most (HZ=100), well inside the 100 ms allowed here. A
 * clock that never moves, or a counter cut too coarsely, fails.
 */
START_TEST(cache_expires_within_a_tick)
{
	int from = test_first_allowed(), to = test_next_allowed(from);
	cpu_set_t one;
	double start, waited;

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall", "FASTCPU_CACHE=on"))
		return;
	test_pin(from);
	ck_assert_int_eq(sched_getcpu(), from);
	CPU_ZERO(&one);
	CPU_SET(to, &one);
	test_pin_from_other_process((pid_t)syscall(SYS_gettid), &one);
	start = test_now_ms();
	while (sched_getcpu() != to && test_now_ms() - start < 1000)
		;
	waited = test_now_ms() - start;
	ck_assert_msg(waited < 100, "the cache kept CPU %d for %.1f ms", from, waited);
}
END_TEST

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
	const char *err = TEST_RESPAWN("FASTCPU_BACKEND=turbo");

	if (err != NULL) {
		ck_assert_int_eq(count_lines(err), 1);
		ck_assert_ptr_nonnull(strstr(err, "FASTCPU_BACKEND"));
		ck_assert_ptr_nonnull(strstr(err, "auto, rseq, rdpid, vdso, syscall"));
		return;
	}
	ask_everything();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

START_TEST(invalid_cache_warns_once)
{
	const char *err = TEST_RESPAWN("FASTCPU_CACHE=sometimes");

	if (err != NULL) {
		ck_assert_int_eq(count_lines(err), 1);
		ck_assert_ptr_nonnull(strstr(err, "FASTCPU_CACHE"));
		return;
	}
	ask_everything();
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

	snprintf(want, sizeof(want), "FASTCPU_BACKEND=%s", missing_backend());
	err = TEST_RESPAWN(want);
	if (err != NULL) {
		ck_assert_int_eq(count_lines(err), 1);
		ck_assert_ptr_nonnull(strstr(err, want));
		ck_assert_ptr_nonnull(strstr(err, "is not available"));
		return;
	}
	ask_everything();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, NULL, expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

START_TEST(valid_settings_are_silent)
{
	const char *err = TEST_RESPAWN("FASTCPU_BACKEND=syscall", "FASTCPU_CACHE=on");

	if (err != NULL) {
		ck_assert_str_eq(err, "");
		return;
	}
	ask_everything();
}
END_TEST

/* Read at load: a setenv() afterwards changes nothing, and nothing races
 * with it. */
START_TEST(settings_read_at_load)
{
	char buf[64];

	if (TEST_RESPAWN("FASTCPU_CACHE=off"))
		return;
	setenv("FASTCPU_BACKEND", "syscall", 1);
	setenv("FASTCPU_CACHE", "on", 1);
	ask_everything();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(NULL, "off", expect_rseq_ok(),
					     buf, sizeof(buf)));
}
END_TEST

Suite *suite_backends(void)
{
	Suite *s = suite_create("backends");
	TCase *tc = tcase_create("forced");

	tcase_set_timeout(tc, 120);
	test_add_respawning(tc, forced_backend_every_cpu, 0, (int)NCOMBOS);
	test_add_respawning(tc, invalid_backend_warns_once, 0, 1);
	test_add_respawning(tc, invalid_cache_warns_once, 0, 1);
	test_add_respawning(tc, valid_settings_are_silent, 0, 1);
	test_add_respawning(tc, settings_read_at_load, 0, 1);
	if (CPU_COUNT(&test_allowed) > 1)
		test_add_respawning(tc, cache_expires_within_a_tick, 0, 1);
	if (missing_backend() != NULL)	/* valgrind, a generic build */
		test_add_respawning(tc, unavailable_backend_warns_once, 0, 1);
	suite_add_tcase(s, tc);
	return s;
}
