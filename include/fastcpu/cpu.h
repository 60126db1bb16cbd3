/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/cpu.h: the current CPU number, node and concurrency id (fastcpu(3)). */

#ifndef FASTCPU_CPU_H
#define FASTCPU_CPU_H

#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU the calling thread runs on, as sched_getcpu(3): -1 and errno
 * ENOSYS when the kernel offers no way to know. */
FASTCPU_VISIBLE int fastcpu_sched_getcpu(void);

/* As getcpu(2): stores the CPU and its NUMA node where the pointers are not
 * NULL; returns 0, or -1 and errno ENOSYS when nothing can answer. */
FASTCPU_VISIBLE int fastcpu_getcpu(unsigned int *cpu, unsigned int *node);

/* The name of the mechanism that serves the calling thread: "rseq (glibc)",
 * "rseq (program)" (librseq's or another owner's area), "rseq (own)",
 * "rdpid", "vdso" or "syscall", with "+cache" when the per-thread cache is
 * in front of it. Never NULL; a static string. */
FASTCPU_VISIBLE const char *fastcpu_backend(void);

/* The same as a number (FASTCPU_1.3), for a program that acts on it: the
 * mechanism, with FASTCPU_BACKEND_CACHED or'ed in where the per-thread
 * cache is in front of it ("+cache"). */
enum fastcpu_backend_id {
	FASTCPU_BACKEND_RSEQ_GLIBC = 1,		/* "rseq (glibc)" */
	FASTCPU_BACKEND_RSEQ_PROGRAM,		/* "rseq (program)" */
	FASTCPU_BACKEND_RSEQ_OWN,		/* "rseq (own)" */
	FASTCPU_BACKEND_RDPID,			/* "rdpid" */
	FASTCPU_BACKEND_VDSO,			/* "vdso" */
	FASTCPU_BACKEND_SYSCALL,		/* "syscall" */
	FASTCPU_BACKEND_CACHED = 0x100
};
FASTCPU_VISIBLE int fastcpu_backend_id(void);

/* Out-of-line fastcpu_current_cid(): same answer, same contract. */
FASTCPU_VISIBLE int fastcpu_cid(void);

/* The bound of every concurrency id: fixed for the life of the process,
 * above every answer of fastcpu_current_cid() and fastcpu_current_cpu()
 * (so an array of this many entries serves either index): twice the number
 * of possible CPUs, the upper half for threads that cannot read an rseq
 * area (see fastcpu(3) and <fastcpu/percpu.h>). Never fails. */
FASTCPU_VISIBLE int fastcpu_cid_limit(void);

/*
 * Inline fast path: one load of the kernel-maintained rseq cpu_id, with an
 * out-of-line call while it is negative (first call of a thread, no rseq, a
 * backend forced). Same result and errno contract as fastcpu_sched_getcpu().
 */
static inline int fastcpu_current_cpu(void)
{
	int cpu = *fastcpu_cpu_id_word_();

	if (__builtin_expect(cpu < 0, 0))
		return fastcpu_sched_getcpu();
	return cpu;
}

/*
 * The CPU, with its NUMA node stored in *node (not NULL); -1 and errno
 * ENOSYS as getcpu(). Inline where the kernel keeps node_id (Linux 6.3+):
 * cpu_id, node_id, then cpu_id again, which must not have changed; the
 * kernel rewrites all fields together whenever the thread comes back to
 * user space on another CPU, so the pair is one the kernel stored at once,
 * unless between these three loads the thread was preempted twice and came
 * back to the first CPU from a CPU of another node. Out of line otherwise,
 * where the pair comes from one source (the kernel's, or the CPU's node
 * from sysfs).
 */
static inline int fastcpu_current_cpu_node(unsigned int *node)
{
	const volatile int *cpu_at = fastcpu_cpu_id_word_();
	int cpu = *cpu_at;
	int n = *fastcpu_node_id_word_();

	if (__builtin_expect((cpu | n) < 0 || *cpu_at != cpu, 0)) {
		unsigned int c, slow_node;	/* *node stays in a register */

		if (fastcpu_getcpu(&c, &slow_node) != 0)
			return -1;
		*node = slow_node;
		return (int)c;
	}
	*node = (unsigned int)n;
	return cpu;
}

/*
 * An index in [0, fastcpu_cid_limit()) that no other thread of the process
 * running at the same moment has: the kernel's concurrency id (mm_cid,
 * Linux 6.3+, dense from 0: below the number of threads and of CPUs the
 * process may use), else the CPU number; a thread without an rseq area gets
 * its CPU number plus the number of possible CPUs. -1 and errno ENOSYS only
 * where fastcpu_sched_getcpu() fails.
 */
static inline int fastcpu_current_cid(void)
{
	int cpu = *fastcpu_cpu_id_word_();
	int cid = *fastcpu_cid_word_();

	if (__builtin_expect((cpu | cid) < 0, 0))
		return fastcpu_cid();
	return cid;
}

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_CPU_H */
