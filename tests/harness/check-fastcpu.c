/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/check-fastcpu.c: the Check runner. */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/*
 * The runner never calls the library itself: each test runs in a forked
 * child that binds and attaches on its own first call, with the settings
 * and sandbox that test chose.
 *
 * Runners that share a directory (FASTCPU_TEST_SHARE_DIR) share out the
 * suites: each runs those it claims first, so two valgrind runners keep
 * two CPUs busy however long each suite takes.
 */
static bool claimed(const char *dir, size_t suite)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/suite-%zu", dir, suite);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno != EEXIST) {
		fprintf(stderr, "check-fastcpu: cannot claim %s: %s\n", path, strerror(errno));
		exit(EXIT_FAILURE);
	}
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* One runner for the suites, which it frees with itself. */
static SRunner *runner(Suite *const *suites, size_t count)
{
	SRunner *sr = srunner_create(suites[0]);

	for (size_t k = 1; k < count; k++)
		srunner_add_suite(sr, suites[k]);
	return sr;
}

/* Suites made but not run, freed (the sanitizers' leak check counts them). */
static void discard(Suite *const *suites, size_t count)
{
	if (count > 0)
		srunner_free(runner(suites, count));
}

/* Runs the suites in one runner; the number of tests that failed. */
static int run(Suite *const *suites, size_t count)
{
	SRunner *sr = runner(suites, count);
	int failed;

	if (srunner_fork_status(sr) != CK_FORK) {
		fprintf(stderr, "check-fastcpu: each test needs a fresh process: unset CK_FORK\n");
		exit(EXIT_FAILURE);
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

int main(void)
{
	const char *share = getenv("FASTCPU_TEST_SHARE_DIR");

	test_record_allowed();
	test_report_crashes();
	/* Every suite made, run or not: making one registers the tests a
	 * respawned process may be asked to run. */
	Suite *all[] = {
		suite_answers(), suite_backends(), suite_faults(), suite_reliability(),
		suite_host(), suite_fastpath(), suite_percpu(), suite_memory(), suite_objcache(),
		suite_objcache_bounds(), suite_objcache_front(), suite_guard(), suite_counter_tree(),
	};
	size_t count = sizeof(all) / sizeof(all[0]), left_count = 0;
	Suite *left[sizeof(all) / sizeof(all[0])];
	int failed = 0;

	if (test_respawned()) {
		discard(all, count);
		return test_run_respawned();
	}
	printf("setup: glibc rseq %s, kernel rseq %s\n",
	       test_glibc_registered_rseq() ? "registered" : "not registered",
	       test_kernel_rseq_usable() ? "usable" : "unusable");
	if (share == NULL)
		failed = run(all, count);
	for (size_t k = 0; share != NULL && k < count; k++)
		if (claimed(share, k))
			failed += run(&all[k], 1);
		else
			left[left_count++] = all[k];
	discard(left, left_count);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
