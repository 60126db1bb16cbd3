/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/check_fastcpu.c: the Check runner. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"

/*
 * The runner never calls the library itself: each test runs in a forked
 * child that binds and attaches on its own first call, with the settings
 * and sandbox that test chose.
 */
int main(void)
{
	SRunner *sr;
	int failed;
	bool forking;

	test_record_allowed();
	sr = srunner_create(suite_answers());
	srunner_add_suite(sr, suite_backends());
	srunner_add_suite(sr, suite_faults());
	srunner_add_suite(sr, suite_reliability());
	srunner_add_suite(sr, suite_host());
	srunner_add_suite(sr, suite_fastpath());
	srunner_add_suite(sr, suite_percpu());
	if (test_respawned()) {
		srunner_free(sr);
		return test_run_respawned();
	}
	printf("setup: glibc rseq %s, kernel rseq %s\n",
	       test_glibc_registered_rseq() ? "registered" : "not registered",
	       test_kernel_rseq_usable() ? "usable" : "unusable");
	forking = srunner_fork_status(sr) == CK_FORK;
	if (!forking) {
		fprintf(stderr, "check_fastcpu: each test needs a fresh process: unset CK_FORK\n");
		srunner_free(sr);
		return EXIT_FAILURE;
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
