/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/fuzz/fuzz-cpulist.c: the sysfs CPU list reader on any bytes. */

#include <assert.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpulist.h"
#include "internal.h"

/*
 * The bytes are a sysfs list file, read through the reader's own file
 * descriptor path (a memfd in place of the sysfs file). Every number it
 * gives must be a CPU number (below FASTCPU_MAX_CPUS), and it must give no
 * more of them than the text could name: a list is one range at most per
 * two characters, each range at most FASTCPU_MAX_CPUS numbers.
 */
struct seen {
	unsigned long count;
};

static void note(unsigned long cpu, void *arg)
{
	assert(cpu < FASTCPU_MAX_CPUS);
	((struct seen *)arg)->count++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct seen seen = { 0 };

	if (fd < 0)
		fd = memfd_create("cpulist", MFD_CLOEXEC);
	assert(fd >= 0);
	assert(ftruncate(fd, 0) == 0);
	assert(pwrite(fd, data, size, 0) == (ssize_t)size);
	assert(lseek(fd, 0, SEEK_SET) == 0);
	fastcpu_cpulist_read(fd, note, &seen);
	assert(seen.count <= (size / 2 + 1) * FASTCPU_MAX_CPUS);
	return 0;
}
