/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/backend-vdso.c: the kernel's getcpu in the vDSO. */

#include <stddef.h>

#include "arch.h"
#include "backends.h"
#include "internal.h"
#include "once.h"
#include "vdso.h"

/* The kernel's getcpu ABI: 0, or a small negative number, in the return
 * register, read as an int (the kernels declare long or int), so that a
 * call into it can be the caller's last. */
typedef int (*vdso_getcpu_fn)(unsigned int *cpu, unsigned int *node,
			      void *unused_cache);

/* Set before the backend is bound, read-only afterwards. */
static vdso_getcpu_fn vdso_getcpu;

/* The vDSO's getcpu, if it has one that answers; NULL otherwise. */
static vdso_getcpu_fn working_vdso_getcpu(void)
{
#ifdef FASTCPU_VDSO_GETCPU
	vdso_getcpu_fn fn = (vdso_getcpu_fn)fastcpu_vdso_lookup(
		FASTCPU_VDSO_GETCPU, FASTCPU_VDSO_VERSION);
	unsigned int cpu, node;

	if (fn != NULL && fn(&cpu, &node, NULL) == 0)
		return fn;
#endif
	return NULL;	/* e.g. arm64: the kernel has no vDSO getcpu */
}

bool fastcpu_vdso_usable(void)
{
	return fastcpu_once(&vdso_getcpu, working_vdso_getcpu()) != NULL;
}

/* The vDSO's getcpu was seen answering, and it answers from what the
 * kernel stored for the CPU (x86, powerpc, s390, loongarch: always 0): a
 * tail call into it, as glibc's getcpu is a call. */
static int vdso_cpu_node(unsigned int *cpu, unsigned int *node)
{
	return vdso_getcpu(cpu, node, NULL);
}

/* Where sched_getcpu() needs a word of its own anyway, a failure the
 * vDSO should never give goes to the system call, which gives the answer
 * or the error. */

static int vdso_cpu(void)
{
	unsigned int cpu;

	if (likely(vdso_getcpu(&cpu, NULL, NULL) == 0))
		return (int)cpu;
	return fastcpu_backend_syscall.cpu();
}

static int vdso_cpu_quiet(void)
{
	unsigned int cpu;

	if (likely(vdso_getcpu(&cpu, NULL, NULL) == 0))
		return (int)cpu;
	return fastcpu_backend_syscall.cpu_quiet();
}

const struct fastcpu_backend fastcpu_backend_vdso = {
	.name = "vdso",
	.id = FASTCPU_BACKEND_VDSO,
	.cpu = vdso_cpu,
	.cpu_node = vdso_cpu_node,
	.cpu_quiet = vdso_cpu_quiet,
};
