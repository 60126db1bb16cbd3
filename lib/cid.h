/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cid.h: concurrency ids, and the upper half of every index. */

#ifndef FASTCPU_CID_H
#define FASTCPU_CID_H

#include "kernel.h"

/* The index of a thread without an area (no rseq, or sequences not allowed
 * on its area): its CPU plus the number of possible CPUs, the upper half
 * that no thread with an area reaches (cid.c, the per-CPU wing). */
static inline int fastcpu_upper_index(int cpu)
{
	return cpu + fastcpu_possible_cpus();
}

#endif /* FASTCPU_CID_H */
