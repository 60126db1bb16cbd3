/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/kernel.h: what the kernel gives: rseq features, possible CPUs. */

#ifndef FASTCPU_KERNEL_H
#define FASTCPU_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"
#include "rseq-abi.h"

/* What the kernel's rseq areas hold, from the auxiliary vector (kernel.c):
 * whether it keeps node_id and mm_cid, and the length the library
 * registers its own area with. */
struct fastcpu_rseq_kernel {
	unsigned int feature_size;	/* AT_RSEQ_FEATURE_SIZE; 0 before 6.3 */
	unsigned int own_length;
	bool node_id;
	bool mm_cid;
};
struct fastcpu_rseq_kernel fastcpu_rseq_kernel(void);
/* The running kernel's version, major << 16 | minor << 8 | sublevel (at
 * most 255): the vDSO's note, with no system call; else, where may_ask,
 * uname's release. 0 where neither says. */
#define FASTCPU_KERNEL_VERSION(major, minor, sublevel) \
	((unsigned int)(major) << 16 | (unsigned int)(minor) << 8 | (unsigned int)(sublevel))
unsigned int fastcpu_kernel_version(bool may_ask);

/* CPU numbers are below this (the kernel's nr_cpu_ids, or more where
 * FASTCPU_POSSIBLE_CPUS asks): counted once, read inline where a fallback
 * answers every call. fastcpu_kernel_possible_cpus() is the kernel's
 * alone, counted afresh. */
int fastcpu_kernel_possible_cpus(void);
extern int fastcpu_possible_cpus_word;
int fastcpu_count_possible_cpus(void);
static inline int fastcpu_possible_cpus(void)
{
	int n = __atomic_load_n(&fastcpu_possible_cpus_word, __ATOMIC_ACQUIRE);

	return likely(n != 0) ? n : fastcpu_count_possible_cpus();
}


/* Where the concurrency id is, from a thread's cpu_id: mm_cid where the
 * kernel keeps it, else cpu_id itself. The one home of that fact: the
 * words cpu-id.c publishes and the library's own reads (cid.c, percpu/ops.c)
 * both take it from here. */
static inline ptrdiff_t fastcpu_cid_distance(void)
{
	return fastcpu_rseq_kernel().mm_cid ?
	       (ptrdiff_t)(offsetof(struct fastcpu_rseq_abi, mm_cid) -
			   offsetof(struct fastcpu_rseq_abi, cpu_id)) : 0;
}

static inline const volatile int *fastcpu_cid_word(const volatile int *cpu_id)
{
	return (const volatile int *)((uintptr_t)cpu_id + (uintptr_t)fastcpu_cid_distance());
}

#endif /* FASTCPU_KERNEL_H */
