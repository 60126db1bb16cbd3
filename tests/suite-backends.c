/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/suite-backends.c: each backend and cache setting forced in turn. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (missing_backend() != NULL)	/* valgrind, a generic build */
		tcase_add_test(tc, unavailable_backend_warns_once);
	suite_add_tcase(s, tc);
	return s;
}
