/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/unit_node.c: the sysfs CPU-to-node table, against sysfs itself. */

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "helpers.h"
#include "internal.h"

/* The table serves getcpu() on kernels whose rseq area has no node_id
 * (before 6.3), which this machine may not be: so it is tested directly,
 * built from lib/node.c into this program. */
START_TEST(table_matches_sysfs)
{
	errno = EDOM;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &test_allowed))
			ck_assert_uint_eq(fastcpu_node_of_cpu((unsigned int)cpu),
					  test_sysfs_node(cpu));
	ck_assert_uint_eq(fastcpu_node_of_cpu(100000), 0);
	ck_assert_int_eq(errno, EDOM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("node table");
	TCase *tc = tcase_create("sysfs");
	SRunner *sr;
	int failed;

	test_record_allowed();
	tcase_add_test(tc, table_matches_sysfs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
