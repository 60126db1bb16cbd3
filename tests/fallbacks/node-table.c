/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fallbacks/node-table.c: the sysfs CPU-to-node table, against sysfs and fakes. */

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "node.h"

/* The table serves getcpu() on kernels whose rseq area has no node_id
 * (before 6.3), which this machine may not be: so it is tested directly,
 * built from lib/node.c into this program. */
/* The node sysfs links cpu to, or -1 without one (no NUMA, no /sys). */
static int linked_node(int cpu)
{
	char path[128];

	for (int node = 0; node < 1024; node++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
		if (access(path, F_OK) == 0)
			return node;
	}
	return -1;
}

START_TEST(table_matches_sysfs)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int expected;

		if (!CPU_ISSET(cpu, &test_allowed))
			continue;
		expected = linked_node(cpu);	/* access() sets errno */
		errno = EDOM;
		ck_assert_int_eq(fastcpu_node_of_cpu((unsigned int)cpu), expected);
		ck_assert_int_eq(errno, EDOM);
	}
	errno = EDOM;
	ck_assert_int_eq(fastcpu_node_of_cpu(100000), -1);
	ck_assert_int_eq(errno, EDOM);
}
END_TEST

/* ---- fake trees: the real parser on files written here ------------------ */

#define TABLE_CPUS 8192
static char tree[64];
static uint16_t fake_table[TABLE_CPUS];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A node directory with possible and, for each "nodeN=list", nodeN/cpulist. */
static void make_tree(const char *possible, const char *const nodes[])
{
	char dir[256];

	strcpy(tree, "/tmp/fastcpu-nodes.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tree));
	if (possible != NULL)
		write_file("possible", possible);
	for (int i = 0; nodes != NULL && nodes[i] != NULL; i++) {
		const char *eq = strchr(nodes[i], '=');

		snprintf(dir, sizeof(dir), "%s/%.*s", tree, (int)(eq - nodes[i]), nodes[i]);
		ck_assert_int_eq(mkdir(dir, 0755), 0);
		snprintf(dir, sizeof(dir), "%.*s/cpulist", (int)(eq - nodes[i]), nodes[i]);
		write_file(dir, eq + 1);
	}
	memset(fake_table, 0, sizeof(fake_table));
	fastcpu_node_table_fill(fake_table, tree);
	snprintf(dir, sizeof(dir), "rm -rf '%s'", tree);
	ck_assert_int_eq(system(dir), 0);
}

/* What the table says of cpu: its node, or -1 for "not in the table". */
static int node_of(int cpu)
{
	return fake_table[cpu] == 0 ? -1 : fake_table[cpu] - 1;
}

/* A memory-only node (CXL, PMem, HBM) lists no CPU: "\n". The old parser
 * emitted CPU 0 for it, giving CPU 0 node 1. */
START_TEST(memory_only_node)
{
	make_tree("0-2\n", (const char *const[]){ "node0=0-1\n", "node1=\n",
						  "node2=2\n", NULL });
	ck_assert_int_eq(node_of(0), 0);
	ck_assert_int_eq(node_of(1), 0);
	ck_assert_int_eq(node_of(2), 2);
	ck_assert_int_eq(node_of(3), -1);
}
END_TEST

START_TEST(holes_and_ranges)
{
	make_tree("0,2-3\n", (const char *const[]){ "node0=0-3,8,10-11\n",
						    "node2=4-7\n", "node3=12", NULL });
	for (int cpu = 0; cpu <= 3; cpu++)
		ck_assert_int_eq(node_of(cpu), 0);
	for (int cpu = 4; cpu <= 7; cpu++)
		ck_assert_int_eq(node_of(cpu), 2);
	ck_assert_int_eq(node_of(8), 0);
	ck_assert_int_eq(node_of(9), -1);	/* in no list */
	ck_assert_int_eq(node_of(10), 0);
	ck_assert_int_eq(node_of(11), 0);
	ck_assert_int_eq(node_of(12), 3);	/* no newline at the end */
	ck_assert_int_eq(node_of(13), -1);
}
END_TEST

START_TEST(no_tree_knows_no_cpu)
{
	make_tree(NULL, NULL);		/* no possible file */
	for (int cpu = 0; cpu < TABLE_CPUS; cpu++)
		ck_assert_int_eq(node_of(cpu), -1);
	memset(fake_table, 0, sizeof(fake_table));
	fastcpu_node_table_fill(fake_table, "/nonexistent/node");
	for (int cpu = 0; cpu < TABLE_CPUS; cpu++)
		ck_assert_int_eq(node_of(cpu), -1);
}
END_TEST

/* Nothing but well-formed items (digits, ended by ',', newline or end of
 * file), nothing beyond the table, no crash. */
START_TEST(malformed_lists)
{
	make_tree("0-9\n", (const char *const[]){ "node0=-3\n", "node1=3-\n",
		"node2=2,,7\n", "node3=5-6-\n", "node4=abc\n", "node5=8190-99999\n",
		"node6=4,x\n", "node7=0-7:2/4\n", "node8=123456789012345678901234\n",
		"node9=1x\n", NULL });
	ck_assert_int_eq(node_of(2), 2);	/* before the junk */
	ck_assert_int_eq(node_of(4), 6);
	ck_assert_int_eq(node_of(8190), 5);	/* the part in the table */
	ck_assert_int_eq(node_of(8191), 5);
	for (int cpu = 0; cpu < 8190; cpu++)
		if (cpu != 2 && cpu != 4)
			ck_assert_int_eq(node_of(cpu), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("node table");
	TCase *sysfs = tcase_create("sysfs"), *fake = tcase_create("fake trees");

	test_record_allowed();
	tcase_add_test(sysfs, table_matches_sysfs);
	tcase_add_test(fake, memory_only_node);
	tcase_add_test(fake, holes_and_ranges);
	tcase_add_test(fake, no_tree_knows_no_cpu);
	tcase_add_test(fake, malformed_lists);
	suite_add_tcase(s, sysfs);
	suite_add_tcase(s, fake);
	return test_run_suite(s);
}
