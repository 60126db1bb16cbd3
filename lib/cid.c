/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cid.c: concurrency ids: the kernel's mm_cid, else the CPU number. */

#include "attach.h"
#include "bind.h"
#include "cid.h"
#include "cpu-id.h"
#include "internal.h"
#include "kernel.h"

/*
 * An id no other thread of the process running at the same moment has.
 * The kernel keeps one per task in every registered rseq area since 6.3
 * (mm_cid): below the number of possible CPUs, and below the number of
 * threads and of CPUs the process may use, so dense where the CPU number is
 * not. How the kernel hands them out has changed (6.19: per task or per
 * CPU, with transitions in between), this contract has not; the bits it
 * uses for its own bookkeeping never reach the area.
 *
 * A thread that reads an rseq area gets its mm_cid, or its CPU number
 * where the kernel keeps none. A thread that reads none (no rseq, a sandbox
 * refused it, a librseq area not registered there yet) may still hold an
 * mm_cid in the kernel but cannot read it: it gets its CPU number plus the
 * number of possible CPUs, in a range no id of a thread with an area
 * reaches, and the limit is twice that number: the two halves the per-CPU
 * wing keeps apart (lib/README.md: the half rule).
 */
FASTCPU_EXPORT int fastcpu_cid_limit(void)
{
	return 2 * fastcpu_possible_cpus();
}

static __attribute__((noinline, cold)) int cid_slow(void)
{
	const volatile int *ref = fastcpu_attached_cpu_id();
	int cpu;

	if (*ref >= 0)
		return *fastcpu_cid_word(ref);
	/* No area here: the fallback's answer, never a cached one (the CPU
	 * a thread ran on a moment ago may be another's now). */
	cpu = fastcpu_uncached_fallback()->cpu();
	return cpu < 0 ? cpu : fastcpu_upper_index(cpu);
}

/* As <fastcpu.h>'s fastcpu_current_cid(), from the library's copy of the
 * offsets (entry.c says how the entry points read). */
FASTCPU_EXPORT int fastcpu_cid(void)
{
	int cpu = *fastcpu_published_word(&fastcpu_offsets.cpu_id);
	int cid = *fastcpu_published_word(&fastcpu_offsets.cid);

	if (likely((cpu | cid) >= 0))
		return fastcpu_arch_answer(cid);
	return cid_slow();
}
