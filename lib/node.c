/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/node.c: the NUMA node of each CPU, read from sysfs once. */

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "cpulist.h"
#include "internal.h"
#include "node.h"
#include "once.h"

/* Entries hold node + 1: the fresh mapping's zeroes mean "in no node". */
#define NOT_IN_TABLE 0
#define TABLE_BYTES (FASTCPU_MAX_CPUS * sizeof(uint16_t))

/*
 * Only for kernels whose rseq area has no node_id (before 6.3). Filled on
 * the first getcpu() that asks for a node, never at load. A CPU in no
 * node's list (plugged in since, no sysfs at all) is not in the table: the
 * caller asks the kernel. The table is mapped when first needed, not left
 * in .bss: 16 KiB of .bss would cost every process that preloads the
 * library one more mmap at start-up.
 */
static uint16_t *table;

struct node_fill {
	uint16_t *table;
	unsigned long node;
};

static void set_node(unsigned long cpu, void *arg)
{
	const struct node_fill *fill = arg;

	fill->table[cpu] = (uint16_t)(fill->node + 1);
}

struct node_dir {
	const char *path;	/* e.g. /sys/devices/system/node */
	uint16_t *table;
};

/* dir->path + "/node" + decimal node + "/cpulist", without stdio. */
static void read_node(unsigned long node, void *arg)
{
	const struct node_dir *dir = arg;
	struct node_fill fill = { dir->table, node };
	char path[256], digits[24];
	size_t len = strlen(dir->path);
	unsigned long rest = node;
	int d = 0;

	if (len + sizeof("/node/cpulist") + sizeof(digits) > sizeof(path) ||
	    node >= UINT16_MAX)
		return;
	memcpy(path, dir->path, len);
	memcpy(path + len, "/node", 5);
	len += 5;
	do
		digits[d++] = (char)('0' + rest % 10);
	while ((rest /= 10) != 0);
	while (d > 0)
		path[len++] = digits[--d];
	memcpy(path + len, "/cpulist", sizeof("/cpulist"));
	fastcpu_cpulist_read_file(path, set_node, &fill);
}

void fastcpu_node_table_fill(uint16_t *nodes, const char *dir)
{
	struct node_dir d = { dir, nodes };
	char path[256];
	size_t len = strlen(dir);

	if (len + sizeof("/possible") > sizeof(path))
		return;
	memcpy(path, dir, len);
	memcpy(path + len, "/possible", sizeof("/possible"));
	fastcpu_cpulist_read_file(path, read_node, &d);
}

/* A filled table of its own; NULL if no memory could be mapped. */
static uint16_t *fill_table(void)
{
	int saved = errno;
	uint16_t *mine = mmap(NULL, TABLE_BYTES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	errno = saved;
	if (mine == MAP_FAILED)
		return NULL;
	fastcpu_node_table_fill(mine, "/sys/devices/system/node");
	return mine;
}

static uint16_t *the_table(void)
{
	uint16_t *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE), *mine;

	if (likely(t != NULL))
		return t;
	mine = fill_table();
	if (mine == NULL)
		return NULL;
	t = fastcpu_once_offer(&table, mine);
	if (t != mine)
		munmap(mine, TABLE_BYTES);	/* a racing filler's is kept */
	return t;
}

int fastcpu_node_of_cpu(unsigned int cpu)
{
	uint16_t *t = the_table();

	if (t == NULL || cpu >= FASTCPU_MAX_CPUS || t[cpu] == NOT_IN_TABLE)
		return -1;
	return t[cpu] - 1;
}
