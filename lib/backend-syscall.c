/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/backend-syscall.c: the getcpu system call, the last resort. */

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* Works on every Linux since 2.6.19; a sandbox may still refuse it, and
 * then nothing can answer: -1 with the kernel's errno, as glibc passes it. */
static int syscall_cpu_node(unsigned int *cpu, unsigned int *node)
{
	return syscall(SYS_getcpu, cpu, node, NULL) == 0 ? 0 : -1;
}

static int syscall_cpu(void)
{
	unsigned int cpu;

	if (unlikely(syscall_cpu_node(&cpu, NULL) != 0))
		return -1;
	return (int)cpu;
}

static int syscall_cpu_quiet(void)
{
	int saved = errno, cpu = syscall_cpu();

	if (unlikely(cpu < 0))
		errno = saved;
	return cpu;
}

const struct fastcpu_backend fastcpu_backend_syscall = {
	.name = "syscall",
	.cpu = syscall_cpu,
	.cpu_node = syscall_cpu_node,
	.cpu_quiet = syscall_cpu_quiet,
};
