/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/upper.h: the upper half's CPU a thread without sequences keeps. */

#ifndef FASTCPU_PERCPU_UPPER_H
#define FASTCPU_PERCPU_UPPER_H

#include "cid.h"
#include "cpu-id.h"
#include "internal.h"
#include "thread.h"

/*
 * The CPU whose slot of the upper half a thread without sequences takes
 * (ops.c, objcache.c): any is right (that half changes only by atomic
 * instructions), the nearer the less contended. Its area's cpu_id where it
 * reads a registered one; else the fallback's answer, kept for the next
 * FASTCPU_UPPER_REUSES takes: a thread is seldom moved that often, and
 * asking (a call, a clock, a system call) would cost more than the atomic
 * it chooses a line for; FASTCPU_UPPER_REUSES_SYSCALL takes where the
 * fallback is the bare system call, a hundred times RDPID's cost. 0 where
 * nothing can answer, errno kept. The thread has attached.
 */
#define FASTCPU_UPPER_REUSES 32
#define FASTCPU_UPPER_REUSES_SYSCALL 1024
int fastcpu_upper_cpu_ask(void);
FASTCPU_INLINE int fastcpu_upper_cpu(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (cpu >= 0)
		return cpu;
	if (likely(fastcpu_thread.upper.reuses != 0)) {
		fastcpu_thread.upper.reuses--;
		return fastcpu_thread.upper.cpu;
	}
	return fastcpu_upper_cpu_ask();
}

/* The same CPU's index in the upper half. */
FASTCPU_INLINE size_t fastcpu_upper_slot(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (cpu >= 0)
		return (size_t)fastcpu_upper_index(cpu);
	if (likely(fastcpu_thread.upper.reuses != 0)) {
		fastcpu_thread.upper.reuses--;
		return (size_t)fastcpu_thread.upper.index;
	}
	return (size_t)fastcpu_upper_index(fastcpu_upper_cpu_ask());
}

#endif /* FASTCPU_PERCPU_UPPER_H */
