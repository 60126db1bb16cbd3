/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/backend-syscall.c: the getcpu system call, the last resort. */

#include <errno.h>

#include "backends.h"
#include "internal.h"

/* Works on every Linux since 2.6.19; a sandbox may still refuse it, and
 * then nothing can answer: -1 with the kernel's errno, as glibc passes it. */
static int syscall_cpu_node(unsigned int *cpu, unsigned int *node)
{
	long ret = fastcpu_arch_getcpu_syscall(cpu, node);

	if (likely(ret == 0))
		return 0;
	errno = (int)-ret;
	return -1;
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
	unsigned int cpu;

	if (unlikely(fastcpu_arch_getcpu_syscall(&cpu, NULL) != 0))
		return -1;
	return (int)cpu;
}

const struct fastcpu_backend fastcpu_backend_syscall = {
	.name = "syscall",
	.id = FASTCPU_BACKEND_SYSCALL,
	.cpu = syscall_cpu,
	.cpu_node = syscall_cpu_node,
	.cpu_quiet = syscall_cpu_quiet,
};
