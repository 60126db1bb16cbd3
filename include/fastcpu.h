/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu.h: the current CPU number, as fast as the kernel allows. */

#ifndef FASTCPU_H
#define FASTCPU_H

#ifdef __cplusplus
extern "C" {
#endif

#define FASTCPU_VISIBLE __attribute__((visibility("default")))

/*
 * Per thread: where this thread's current CPU number can be read. It starts
 * out pointing at a negative constant (so the first read of every thread, at
 * any moment of its life, takes the slow path) and is pointed at the rseq
 * area's cpu_id once the thread's rseq area is known. Not an API of its own:
 * read it only through fastcpu_current_cpu().
 */
extern FASTCPU_VISIBLE __thread const volatile int *fastcpu_cpu_id_ref
	__attribute__((tls_model("initial-exec")));

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

/*
 * Inline fast path: one load of the kernel-maintained rseq cpu_id, with an
 * out-of-line call while it is negative (first call of a thread, or no rseq).
 * Same result and errno contract as fastcpu_sched_getcpu().
 */
static inline int fastcpu_current_cpu(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (__builtin_expect(cpu < 0, 0))
		return fastcpu_sched_getcpu();
	return cpu;
}

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_H */
