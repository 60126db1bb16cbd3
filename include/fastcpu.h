/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu.h: the current CPU number, as fast as the kernel allows. */

#ifndef FASTCPU_H
#define FASTCPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FASTCPU_VISIBLE __attribute__((visibility("default")))

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

/* Out-of-line fastcpu_current_cid(): same answer, same contract. */
FASTCPU_VISIBLE int fastcpu_cid(void);

/* The bound of every concurrency id: fixed for the life of the process,
 * above every answer of fastcpu_current_cid() and fastcpu_current_cpu()
 * (so an array of this many entries serves either index): the number of
 * possible CPUs, twice that where the kernel gives concurrency ids (the
 * upper half serves threads the kernel cannot tell theirs, see
 * fastcpu(3)). Never fails. */
FASTCPU_VISIBLE int fastcpu_cid_limit(void);

/*
 * What the inline reads below use; not an API of their own. Each thread has
 * fastcpu_tls_anchor (initial-exec TLS, always -1); the library publishes,
 * once per process, how far from it every thread's rseq area keeps cpu_id,
 * node_id and mm_cid (0, the anchor itself, until known). Being constant
 * for the process, the address is computed once per function, out of any
 * loop, and each read is one load. Declared const: the library writes each
 * once, and a read that saw the old value still gets a right answer, from
 * the out-of-line call.
 */
#ifndef FASTCPU_LIBRARY_PUBLISHES_OFFSETS
# define FASTCPU_PUBLISHED const
#else
# define FASTCPU_PUBLISHED
#endif
extern FASTCPU_VISIBLE __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec")));
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_cpu_id_offset;
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_node_id_offset;
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_cid_offset;

static inline const volatile int *fastcpu_tls_word_(ptrdiff_t offset)
{
	return (const volatile int *)(const volatile void *)
		((const volatile char *)&fastcpu_tls_anchor + offset);
}

/*
 * Inline fast path: one load of the kernel-maintained rseq cpu_id, with an
 * out-of-line call while it is negative (first call of a thread, no rseq, a
 * backend forced). Same result and errno contract as fastcpu_sched_getcpu().
 */
static inline int fastcpu_current_cpu(void)
{
	int cpu = *fastcpu_tls_word_(fastcpu_cpu_id_offset);

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
	const volatile int *cpu_at = fastcpu_tls_word_(fastcpu_cpu_id_offset);
	int cpu = *cpu_at;
	int n = *fastcpu_tls_word_(fastcpu_node_id_offset);

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
 * process may use), else the CPU number. -1 and errno ENOSYS only where
 * fastcpu_sched_getcpu() fails.
 */
static inline int fastcpu_current_cid(void)
{
	int cpu = *fastcpu_tls_word_(fastcpu_cpu_id_offset);
	int cid = *fastcpu_tls_word_(fastcpu_cid_offset);

	if (__builtin_expect((cpu | cid) < 0, 0))
		return fastcpu_cid();
	return cid;
}

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_H */
