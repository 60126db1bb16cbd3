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

/* Entries hold node + 1: the fresh mapping's zeroes mean "in no node". */
#define NOT_IN_TABLE 0

/*
 * Only for kernels whose rseq area has no node_id (before 6.3). Filled on
 * the first getcpu() that asks for a node, never at load. Racing fillers
 * (threads, or a signal handler interrupting a fill) each fill a mapping of
 * their own and publish it with one compare-and-swap: nothing to lock, no
 * half-filled table seen. A CPU in no node's list (plugged in since,
 * no sysfs at all) is not in the table: the caller asks the kernel.
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

enum { END = -1, READ_ERROR = -2 };

/* The next character of the file, END at its end, or READ_ERROR: a list cut
 * short by an error must not pass for a shorter list. */
static int next_char(struct list_reader *r)
{
	if (r->pos == r->len) {
		ssize_t n;

		do
			n = read(r->fd, r->buf, sizeof(r->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return n == 0 ? END : READ_ERROR;
		r->pos = 0;
		r->len = (int)n;
	}
	return (unsigned char)r->buf[r->pos++];
}

/*
 * Calls fn(i, arg) for each i of a sysfs list file such as "0-3,8,10-11".
 * An item counts only with digits and once ended by ',', a newline or the
 * end of file: an empty list (a memory-only node's cpulist is "\n") gives
 * nothing, and anything else ends the list (even "0-7:2/4", a
 * bitmap_parselist() form that means fewer CPUs than 0-7).
 */
void fastcpu_for_each_in_list(const char *path,
			      void (*fn)(unsigned long, void *), void *arg)
{
	struct list_reader r = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	unsigned long first = 0, n = 0;
	bool digits = false, range = false;
	int c;

	if (r.fd < 0)
		return;
	for (;;) {
		c = next_char(&r);
		if (c >= '0' && c <= '9') {
			if (n < FASTCPU_MAX_CPUS)
				n = n * 10 + (unsigned long)(c - '0');
			digits = true;
			continue;
		}
		if (!digits)
			break;
		if (c == '-' && !range) {
			first = n;
			range = true;
		} else if (c == ',' || c == '\n' || c == END) {
			for (unsigned long i = range ? first : n; i <= n && i < FASTCPU_MAX_CPUS; i++)
				fn(i, arg);
			if (c != ',')
				break;
			range = false;
		} else {
			break;
		}
		n = 0;
		digits = false;
	}
	close(r.fd);
}

static void set_node(unsigned long cpu, void *arg)
{
	const struct { uint16_t *table; unsigned long node; } *fill = arg;

	fill->table[cpu] = (uint16_t)(fill->node + 1);
}

struct node_dir {
	const char *path;	/* e.g. /sys/devices/system/node */
	uint16_t *table;
};

static void read_node(unsigned long node, void *arg)
{
	const struct node_dir *dir = arg;
	char path[256], digits[24];
	size_t len = strlen(dir->path);
	unsigned long rest = node;
	int d = 0;

	struct { uint16_t *table; unsigned long node; } fill = { dir->table, node };

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
	fastcpu_for_each_in_list(path, set_node, &fill);
}

/* Fills nodes (FASTCPU_MAX_CPUS zeroed entries) from the node directory dir. */
void fastcpu_node_table_fill(uint16_t *nodes, const char *dir)
{
	struct node_dir d = { dir, nodes };
	char path[256];
	size_t len = strlen(dir);

	if (len + sizeof("/possible") > sizeof(path))
		return;
	memcpy(path, dir, len);
	memcpy(path + len, "/possible", sizeof("/possible"));
	fastcpu_for_each_in_list(path, read_node, &d);
}

/* Fills a table of its own and publishes it; a racing filler that lost
 * unmaps its copy. NULL only if no memory could be mapped. */
static uint16_t *fill_table(void)
{
	int saved = errno;
	uint16_t *expected = NULL;
	uint16_t *mine = mmap(NULL, FASTCPU_MAX_CPUS * sizeof(*mine), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mine == MAP_FAILED) {
		errno = saved;
		return NULL;
	}
	fastcpu_node_table_fill(mine, "/sys/devices/system/node");
	if (!__atomic_compare_exchange_n(&table, &expected, mine, false,
					 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
		munmap(mine, FASTCPU_MAX_CPUS * sizeof(*mine));
		mine = expected;
	}
	errno = saved;
	return mine;
}

int fastcpu_node_of_cpu(unsigned int cpu)
{
	uint16_t *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);

	if (unlikely(t == NULL))
		t = fill_table();
	if (t == NULL || cpu >= FASTCPU_MAX_CPUS || t[cpu] == NOT_IN_TABLE)
		return -1;
	return t[cpu] - 1;
}
