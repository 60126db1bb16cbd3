/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/upper.h: the slot of the upper half a thread without sequences takes. */

#ifndef FASTCPU_PERCPU_UPPER_H
#define FASTCPU_PERCPU_UPPER_H

#include <stddef.h>

#include "bind.h"
#include "cid.h"
#include "cpu-id.h"
#include "internal.h"
#include "kernel.h"
#include "wing-thread.h"

/*
 * The slot of the upper half (lib/README.md: the half rule) that a thread
 * without sequences takes, in every array of the wing (ops.c, the object
 * cache): its CPU's, the CPU plus the possible CPUs (cid.h). Any slot of
 * that half is right, as only atomic instructions or its lock change it;
 * the thread's own CPU's is the least contended. Its area's cpu_id where it
 * reads a registered one; else the fallback's answer, kept for the next
 * FASTCPU_UPPER_REUSES takes: a thread is seldom moved that often, and
 * asking (a call, a clock, a system call) would cost more than the atomic
 * it chooses a line for; FASTCPU_UPPER_REUSES_SYSCALL takes where the
 * fallback is the bare system call, a hundred times RDPID's cost. CPU 0's
 * where nothing can answer, errno kept. The thread has attached.
 */
#define FASTCPU_UPPER_REUSES 32
#define FASTCPU_UPPER_REUSES_SYSCALL 1024

/* The slot where it is known without a call (a caller that makes none
 * builds no frame: the per-CPU add's out-of-line path); -1 where the
 * fallback is to be asked again, or the possible CPUs counted. */
FASTCPU_INLINE long fastcpu_upper_slot_known(void)
{
	int cpu = *fastcpu_cpu_id_ref, possible;

	if (cpu < 0 && FASTCPU_HAVE_RDPID && fastcpu_fallback() == &fastcpu_backend_rdpid)
		cpu = (int)(fastcpu_arch_rdpid() & FASTCPU_TSC_AUX_CPU_MASK_);
	if (cpu >= 0) {
		possible = __atomic_load_n(&fastcpu_possible_cpus_word, __ATOMIC_RELAXED);
		return possible != 0 ? (long)cpu + possible : -1;
	}
	if (likely(fastcpu_wing_thread.upper.reuses != 0)) {
		fastcpu_wing_thread.upper.reuses--;
		return fastcpu_wing_thread.upper.slot;
	}
	return -1;
}

size_t fastcpu_upper_slot_ask(void);
FASTCPU_INLINE size_t fastcpu_upper_slot(void)
{
	long slot = fastcpu_upper_slot_known();

	return likely(slot >= 0) ? (size_t)slot : fastcpu_upper_slot_ask();
}

/* The CPU whose slot that is. */
static inline size_t fastcpu_upper_cpu_of(size_t slot)
{
	return slot - (size_t)fastcpu_possible_cpus();
}

#endif /* FASTCPU_PERCPU_UPPER_H */
