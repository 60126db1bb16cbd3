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

/* The kernel's count of possible CPUs, from sysfs ("0-3,8-11": the
 * highest number and one); 0 where sysfs does not say. */
static int kernel_possible_cpus(void)
{
	char text[4096];
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	size_t len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	int highest = -1;

	if (f != NULL)
		fclose(f);
	text[len] = '\0';
	for (char *p = text; *p != '\0'; p++)
		if (*p >= '0' && *p <= '9' && (p == text || p[-1] < '0' || p[-1] > '9') &&
		    atoi(p) > highest)
			highest = atoi(p);
	return highest + 1;
}

/*
 * FASTCPU_POSSIBLE_CPUS sizes everything the number of possible CPUs sizes
 * as if that many were possible, silently: the concurrency id limit, the
 * copies of per-CPU memory (the last one there and writable), the upper
 * half (a counter added to on every CPU stays exact, in the upper half
 * where a backend is forced); CPU numbers stay the kernel's. At or below
 * the kernel's count it changes nothing, and says nothing.
 */
static const char *const possible_settings[][2] = {
	{ "FASTCPU_POSSIBLE_CPUS=1024", NULL },
	{ "FASTCPU_POSSIBLE_CPUS=1024", "FASTCPU_BACKEND=syscall" },
	{ "FASTCPU_POSSIBLE_CPUS=8192", NULL },
	{ "FASTCPU_POSSIBLE_CPUS=1", NULL },
};

START_TEST(possible_cpus_sizes_everything)
{
	const char *err = TEST_RESPAWN(possible_settings[_i][0], possible_settings[_i][1]);
	int kernel = kernel_possible_cpus(), asked, n, cpus = CPU_COUNT(&test_allowed);
	struct fastcpu_counter *counter;
	long *p, upper = 0;

	if (err != NULL) {
		ck_assert_str_eq(err, "");
		return;
	}
	asked = atoi(strchr(possible_settings[_i][0], '=') + 1);
	n = asked > kernel ? asked : kernel;
	if (kernel > 0)
		ck_assert_int_eq(fastcpu_cid_limit(), 2 * n);
	else
		ck_assert_int_ge(fastcpu_cid_limit(), 2 * asked);
	n = fastcpu_cid_limit() / 2;
	p = fastcpu_percpu_zalloc(sizeof(long));
	ck_assert_ptr_nonnull(p);
	*fastcpu_percpu_ptr(p, 2 * n - 1) = 5;
	ck_assert_int_eq(*fastcpu_percpu_ptr(p, 2 * n - 1), 5);
	fastcpu_percpu_free(p);
	counter = fastcpu_counter_new();
	ck_assert_ptr_nonnull(counter);
	for (int cpu = test_first_allowed(), k = 0; k < cpus; cpu = test_next_allowed(cpu), k++) {
		test_pin(cpu);
		for (int i = 0; i < 1000; i++)
			fastcpu_counter_add(counter, 3);
	}
	ck_assert_int_eq(fastcpu_counter_sum(counter), 3000L * cpus);
	for (int i = n; i < 2 * n; i++)
		upper += *fastcpu_percpu_ptr((long *)(void *)counter, i);
	if (possible_settings[_i][1] != NULL)
		ck_assert_int_eq(upper, 3000L * cpus);
	fastcpu_counter_free(counter);
	if (kernel > 0)
		ck_assert_int_lt(fastcpu_current_cpu(), kernel);
	ck_assert_int_lt(fastcpu_current_cid(), fastcpu_cid_limit());
}
END_TEST

static const char *const bad_possible_settings[] = {
	"FASTCPU_POSSIBLE_CPUS=0", "FASTCPU_POSSIBLE_CPUS=8193", "FASTCPU_POSSIBLE_CPUS=64x",
	"FASTCPU_POSSIBLE_CPUS=-64", "FASTCPU_POSSIBLE_CPUS= 64", "FASTCPU_POSSIBLE_CPUS=99999999999999",
};

START_TEST(invalid_possible_cpus_warns_once)
{
	const char *err = TEST_RESPAWN(bad_possible_settings[_i]);
	int kernel = kernel_possible_cpus();

	if (err != NULL) {
		ck_assert_int_eq(count_lines(err), 1);
		ck_assert_ptr_nonnull(strstr(err, "FASTCPU_POSSIBLE_CPUS"));
		ck_assert_ptr_nonnull(strstr(err, "from 1 to 8192"));
		return;
	}
	ask_everything();
	if (kernel > 0)
		ck_assert_int_eq(fastcpu_cid_limit(), 2 * kernel);
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
	test_add_respawning(tc, possible_cpus_sizes_everything, 0,
			    (int)(sizeof(possible_settings) / sizeof(possible_settings[0])));
	test_add_respawning(tc, invalid_possible_cpus_warns_once, 0,
			    (int)(sizeof(bad_possible_settings) / sizeof(bad_possible_settings[0])));
	if (CPU_COUNT(&test_allowed) > 1)
		test_add_respawning(tc, cache_expires_within_a_tick, 0, 1);
	if (missing_backend() != NULL)	/* valgrind, a generic build */
		test_add_respawning(tc, unavailable_backend_warns_once, 0, 1);
	suite_add_tcase(s, tc);
	return s;
}
