/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cid.c: concurrency ids: the kernel's mm_cid, else the CPU number. */

#include <errno.h>
#include <sys/syscall.h>

#include "internal.h"
#include "rseq-abi.h"

/*
 * An id no other thread of the process running at the same moment has.
 * The kernel keeps one per task in every registered rseq area since 6.3
 * (mm_cid): below the number of possible CPUs, and below the number of
 * threads and of CPUs the process may use, so dense where the CPU number is
 * not. The 6.19 rework changed how the kernel hands them out (per task or
 * per CPU, with transitions in between), not this contract; the bits it
 * uses for its own bookkeeping never reach the area.
 *
 * One source for the whole process, decided once, when first asked: mm_cid
 * if the kernel keeps it and the asking thread reads an rseq area, else
 * the CPU number. A thread that has no area in an mm_cid process (rseq
 * refused to it by a sandbox installed since, a librseq area not
 * registered there yet) still holds an mm_cid in the kernel but cannot
 * read it: it gets its CPU number plus the number of possible CPUs, in a
 * range no mm_cid reaches, and the limit is twice that number.
 */
static int source;		/* enum fastcpu_cid_source, 0 until decided */
static int possible_cpus;	/* CPU numbers below this; 0 until known */

enum fastcpu_cid_source fastcpu_cid_source(void)
{
	return __atomic_load_n(&source, __ATOMIC_SEQ_CST);
}

static void note_highest(unsigned long cpu, void *highest)
{
	if (cpu + 1 > *(unsigned long *)highest)
		*(unsigned long *)highest = cpu + 1;
}

/*
 * The kernel's nr_cpu_ids: CPU numbers below it are all it will ever use,
 * whatever is plugged in later. sysfs says it exactly; without sysfs (a
 * chroot, a sandbox), sched_getaffinity refuses a mask too small for it,
 * which bounds it to a multiple of 64 (or to FASTCPU_MAX_CPUS past 1024).
 */
static int count_possible_cpus(void)
{
	unsigned long highest = 0, mask[1024 / (8 * sizeof(unsigned long))];

	fastcpu_for_each_in_list("/sys/devices/system/cpu/possible",
				 note_highest, &highest);
	if (highest > 0)
		return (int)highest;
	for (size_t size = sizeof(unsigned long); size <= sizeof(mask); size *= 2)
		if (fastcpu_raw_syscall_errno(SYS_sched_getaffinity, 0, (long)size,
					      (long)mask, 0) > 0)
			return (int)(size * 8);
	return FASTCPU_MAX_CPUS;
}

/* The calling thread is attached before this runs: whether it reads an
 * area decides. */
static enum fastcpu_cid_source decide(void)
{
	int saved = errno, seen = 0, wanted;
	bool reads_area = *fastcpu_cpu_id_ref >= 0;

	wanted = reads_area && fastcpu_rseq_kernel().mm_cid ?
		 FASTCPU_CID_MM_CID : FASTCPU_CID_CPU;
	__atomic_compare_exchange_n(&possible_cpus, &seen, count_possible_cpus(),
				    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	seen = 0;
	if (!__atomic_compare_exchange_n(&source, &seen, wanted, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		wanted = seen;
	fastcpu_publish_cid();
	errno = saved;
	return wanted;
}

static enum fastcpu_cid_source decided(void)
{
	enum fastcpu_cid_source s = fastcpu_cid_source();

	return likely(s != FASTCPU_CID_UNDECIDED) ? s : decide();
}

FASTCPU_EXPORT int fastcpu_cid_limit(void)
{
	enum fastcpu_cid_source s;

	fastcpu_attach_calling_thread();
	s = decided();
	int n = __atomic_load_n(&possible_cpus, __ATOMIC_RELAXED);

	return s == FASTCPU_CID_MM_CID ? 2 * n : n;
}

FASTCPU_EXPORT int fastcpu_cid(void)
{
	enum fastcpu_cid_source s;
	const volatile int *ref;
	int cpu;

	fastcpu_attach_calling_thread();
	s = decided();
	ref = fastcpu_cpu_id_ref;
	cpu = *ref;

	if (cpu >= 0) {
		const volatile struct fastcpu_rseq_abi *area = (const void *)
			((const char *)ref - offsetof(struct fastcpu_rseq_abi, cpu_id));

		return s == FASTCPU_CID_MM_CID ? (int)area->mm_cid : cpu;
	}
	/* No area here: the fallback's answer, never a cached one (the CPU
	 * a thread ran on a moment ago may be another's now). */
	cpu = fastcpu_uncached_fallback()->cpu();
	if (cpu < 0 || s != FASTCPU_CID_MM_CID)
		return cpu;
	return cpu + __atomic_load_n(&possible_cpus, __ATOMIC_RELAXED);
}
