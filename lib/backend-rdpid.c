/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/backend-rdpid.c: x86 RDPID, the instruction behind the vDSO getcpu. */

#include <sys/syscall.h>

#include "arch.h"
#include "backends.h"
#include "internal.h"
#include "util.h"

/* Linux stores (node << 12) | cpu in TSC_AUX on every CPU (<fastcpu/plumbing.h>). */
#define TSC_AUX_CPU_BITS FASTCPU_TSC_AUX_CPU_BITS_
#define TSC_AUX_CPU_MASK FASTCPU_TSC_AUX_CPU_MASK_

/*
 * Trusted only if the CPU has the instruction and TSC_AUX agrees with the
 * kernel's own answer (a hypervisor may leave TSC_AUX unset). A migration
 * between the two reads can make one comparison differ, so a few tries.
 * Never on an architecture without it (arch.h), where the rest is never
 * bound but still compiled.
 */
bool fastcpu_rdpid_usable(void)
{
	if (!FASTCPU_HAVE_RDPID || !fastcpu_arch_has_rdpid())
		return false;
	for (int i = 0; i < 8; i++) {
		unsigned int cpu, node;
		unsigned long aux = fastcpu_arch_rdpid();

		if (fastcpu_raw_syscall_errno(SYS_getcpu, (long)&cpu,
					      (long)&node, 0, 0) != 0)
			return false;
		if ((aux & TSC_AUX_CPU_MASK) == cpu &&
		    (aux >> TSC_AUX_CPU_BITS) == node)
			return true;
	}
	return false;
}

static int rdpid_cpu(void)
{
	return (int)(fastcpu_arch_rdpid() & TSC_AUX_CPU_MASK);
}

static int rdpid_cpu_node(unsigned int *cpu, unsigned int *node)
{
	unsigned long aux = fastcpu_arch_rdpid();	/* one read: consistent */

	if (cpu != NULL)
		*cpu = aux & TSC_AUX_CPU_MASK;
	if (node != NULL)
		*node = aux >> TSC_AUX_CPU_BITS;
	return 0;
}

const struct fastcpu_backend fastcpu_backend_rdpid = {
	.name = "rdpid",
	.id = FASTCPU_BACKEND_RDPID,
	.cpu = rdpid_cpu,
	.cpu_node = rdpid_cpu_node,
	.cpu_quiet = rdpid_cpu,
};
