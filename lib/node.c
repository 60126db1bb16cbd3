/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/node.c: the NUMA node of each CPU, read from sysfs once. */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* Linux's largest NR_CPUS; a CPU beyond it reports node 0. */
#define MAX_CPUS 8192

/*
 * Only for kernels whose rseq area has no node_id (before 6.3). Filled on
 * the first getcpu() that asks for a node, never at load. Racing fillers
 * (threads, or a signal handler interrupting a fill) store the same values,
 * so there is nothing to lock; without sysfs every CPU is on node 0.
 * Files are read with open/read/close and a small stack buffer: this may run
 * in a signal handler, on a small alternate stack. The table is mapped when
 * first needed, not left in .bss: 16 KiB of .bss would cost every process
 * that preloads the library one more mmap at start-up.
 */
static uint16_t *table;		/* published only once filled */

struct list_reader {
	int fd;
	int pos, len;
	char buf[64];
};

/* The next character of the file, or -1 at its end. */
static int next_char(struct list_reader *r)
{
	if (r->pos == r->len) {
		ssize_t n;

		do
			n = read(r->fd, r->buf, sizeof(r->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		r->pos = 0;
		r->len = (int)n;
	}
	return (unsigned char)r->buf[r->pos++];
}

/* Calls fn(i, arg) for each i of a sysfs list file such as "0-3,8,10-11". */
static void for_each_in_list(const char *path, void (*fn)(unsigned long, void *),
			     void *arg)
{
	struct list_reader r = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	unsigned long first = 0, n = 0;
	bool range = false;
	int c;

	if (r.fd < 0)
		return;
	do {
		c = next_char(&r);
		if (c >= '0' && c <= '9') {
			n = n * 10 + (unsigned long)(c - '0');
			continue;
		}
		if (c == '-') {
			first = n;
			range = true;
		} else {
			for (unsigned long i = range ? first : n; i <= n && i < MAX_CPUS; i++)
				fn(i, arg);
			range = false;
			if (c != ',')
				break;
		}
		n = 0;
	} while (c >= 0);
	close(r.fd);
}

static void set_node(unsigned long cpu, void *arg)
{
	const struct { uint16_t *table; unsigned long node; } *fill = arg;

	fill->table[cpu] = (uint16_t)fill->node;
}

static void read_node(unsigned long node, void *new_table)
{
	static const char prefix[] = "/sys/devices/system/node/node";
	char path[sizeof(prefix) + 32], digits[24];
	size_t len = sizeof(prefix) - 1;
	unsigned long rest = node;
	int d = 0;

	struct { uint16_t *table; unsigned long node; } fill = { new_table, node };

	memcpy(path, prefix, len);
	do
		digits[d++] = (char)('0' + rest % 10);
	while ((rest /= 10) != 0);
	while (d > 0)
		path[len++] = digits[--d];
	memcpy(path + len, "/cpulist", sizeof("/cpulist"));
	for_each_in_list(path, set_node, &fill);
}

/* Fills a table of its own and publishes it; a racing filler that lost
 * unmaps its copy. NULL only if no memory could be mapped. */
static uint16_t *fill_table(void)
{
	int saved = errno;
	uint16_t *expected = NULL;
	uint16_t *mine = mmap(NULL, MAX_CPUS * sizeof(*mine), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mine == MAP_FAILED) {
		errno = saved;
		return NULL;
	}
	for_each_in_list("/sys/devices/system/node/possible", read_node, mine);
	if (!__atomic_compare_exchange_n(&table, &expected, mine, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
		munmap(mine, MAX_CPUS * sizeof(*mine));
		mine = expected;
	}
	errno = saved;
	return mine;
}

unsigned int fastcpu_node_of_cpu(unsigned int cpu)
{
	uint16_t *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);

	if (unlikely(t == NULL))
		t = fill_table();
	if (t == NULL || cpu >= MAX_CPUS)
		return 0;
	return t[cpu];
}
