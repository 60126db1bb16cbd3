/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cid.c: concurrency ids: the kernel's mm_cid, else the CPU number. */

#include "internal.h"
#include "rseq-abi.h"

/*
 * An id no other thread of the process running at the same moment has.
 * The kernel keeps one per task in every registered rseq area since 6.3
 * (mm_cid): below the number of possible CPUs, and below the number of
 * threads and of CPUs the process may use, so dense where the CPU number is
 * not. How the kernel hands them out has changed (6.19: per task or per
 * CPU, with transitions in between), this contract has not; the bits it
 * uses for its own bookkeeping never reach the area.
 *
 * One source for the whole process, decided once, when first asked
 * (cpu-id.c): mm_cid if the kernel keeps it and the asking thread reads an
 * rseq area, else the CPU number. A thread that has no area in an mm_cid
 * process (rseq refused to it by a sandbox installed since, a librseq area
 * not registered there yet) still holds an mm_cid in the kernel but cannot
 * read it: it gets its CPU number plus the number of possible CPUs, in a
 * range no mm_cid reaches, and the limit is twice that number.
 */
FASTCPU_EXPORT int fastcpu_cid_limit(void)
{
	enum fastcpu_cid_source s;

	fastcpu_attach_calling_thread();
	s = fastcpu_cid_source();
	return s == FASTCPU_CID_MM_CID ? 2 * fastcpu_possible_cpus() :
					 fastcpu_possible_cpus();
}

FASTCPU_EXPORT int fastcpu_cid(void)
{
	enum fastcpu_cid_source s;
	const volatile int *ref;
	int cpu;

	fastcpu_attach_calling_thread();
	s = fastcpu_cid_source();
	ref = fastcpu_cpu_id_ref;
	cpu = *ref;
	if (cpu >= 0)
		return s == FASTCPU_CID_MM_CID ? (int)fastcpu_area_of(ref)->mm_cid : cpu;
	/* No area here: the fallback's answer, never a cached one (the CPU
	 * a thread ran on a moment ago may be another's now). */
	cpu = fastcpu_uncached_fallback()->cpu();
	if (cpu < 0 || s != FASTCPU_CID_MM_CID)
		return cpu;
	return cpu + fastcpu_possible_cpus();
}
