/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/entry.c: the exported entry points sched_getcpu, getcpu, backend. */

#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "internal.h"
#include "rseq-abi.h"

/*
 * Every entry point starts with the same test glibc's own rseq path makes:
 * the thread's cpu_id (cpu-id.c) is non-negative once its rseq area is
 * known. Anything else (first call of the thread, no rseq) goes out of line,
 * where the process-wide choice made once in bind.c is called through one
 * pointer.
 */

static __attribute__((noinline, cold)) int sched_getcpu_slow(int seen)
{
	if (seen == FASTCPU_CPU_UNATTACHED) {
		int cpu;

		fastcpu_attach_calling_thread();
		cpu = *fastcpu_cpu_id_ref;
		if (cpu >= 0)
			return cpu;
	}
	return fastcpu_fallback()->cpu();
}

FASTCPU_EXPORT int fastcpu_sched_getcpu(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (likely(cpu >= 0))
		return cpu;
	return sched_getcpu_slow(cpu);
}

/* glibc's sched_getcpu@GLIBC_2.6: unversioned here, so it interposes. */
FASTCPU_GLIBC_NAME int sched_getcpu(void)
	__attribute__((alias("fastcpu_sched_getcpu")));

/* getcpu()'s answer: each pointer that is not NULL gets its part. */
static inline int answer(unsigned int *cpu, unsigned int *node,
			 unsigned int c, unsigned int n)
{
	if (cpu != NULL)
		*cpu = c;
	if (node != NULL)
		*node = n;
	return 0;
}

/* getcpu() with the node from the sysfs table (Linux < 6.3: no node_id);
 * a CPU the table does not know (plugged in since, no /sys) gets the
 * kernel's own pair. */
static __attribute__((noinline, cold)) int
getcpu_table(int seen, unsigned int *cpu, unsigned int *node)
{
	unsigned int c = (unsigned int)seen, n;
	int known = fastcpu_node_of_cpu(c);

	if (known >= 0)
		n = (unsigned int)known;
	else if (fastcpu_backend_syscall.cpu_node(&c, &n) != 0)
		return -1;
	return answer(cpu, node, c, n);
}

/*
 * getcpu() from the rseq area whose cpu_id is at ref, seen being the value
 * read. The kernel rewrites all fields together on the way back to user
 * space, so reading cpu_id again after node_id and finding it unchanged
 * means no migration came in between (short of two within these three
 * loads, from CPU a to b and back to a). Without node_id the table gives
 * the node, consistent by construction. Every call here is a tail call: the
 * fast path needs no stack frame.
 */
static inline int getcpu_rseq(const volatile int *ref, int seen,
			      unsigned int *cpu, unsigned int *node)
{
	const volatile struct fastcpu_rseq_abi *area = fastcpu_area_of(ref);

	if (node != NULL) {
		unsigned int n;
		int again;

		/* Published when the kernel keeps node_id, before any
		 * thread's fastcpu_cpu_id_ref points at an area. */
		if (unlikely(__atomic_load_n(&fastcpu_node_id_offset,
					     __ATOMIC_RELAXED) == 0))
			return getcpu_table(seen, cpu, node);
		for (;;) {
			n = area->node_id;
			again = *ref;
			if (likely(again == seen))
				break;
			seen = again;
		}
		*node = n;
	}
	return answer(cpu, NULL, (unsigned int)seen, 0);
}

static __attribute__((noinline, cold)) int
getcpu_slow(int seen, unsigned int *cpu, unsigned int *node)
{
	const struct fastcpu_backend *b;
	unsigned int c, n = 0;
	int r;

	if (seen == FASTCPU_CPU_UNATTACHED) {
		fastcpu_attach_calling_thread();
		seen = *fastcpu_cpu_id_ref;
		if (seen >= 0)
			return getcpu_rseq(fastcpu_cpu_id_ref, seen, cpu, node);
	}
	b = fastcpu_fallback();
	if (node != NULL) {
		if (b->cpu_node(&c, &n) != 0)
			return -1;
		return answer(cpu, node, c, n);
	}
	r = b->cpu();
	if (r < 0)
		return -1;
	return answer(cpu, NULL, (unsigned int)r, 0);
}

FASTCPU_EXPORT int fastcpu_getcpu(unsigned int *cpu, unsigned int *node)
{
	const volatile int *ref = fastcpu_cpu_id_ref;
	int seen = *ref;

	if (unlikely(seen < 0))
		return getcpu_slow(seen, cpu, node);
	return getcpu_rseq(ref, seen, cpu, node);
}

/* glibc's getcpu@GLIBC_2.29 (which never reads rseq): interposed likewise. */
FASTCPU_GLIBC_NAME int getcpu(unsigned int *cpu, unsigned int *node)
	__attribute__((alias("fastcpu_getcpu")));

FASTCPU_EXPORT const char *fastcpu_backend(void)
{
	static const char *const area_names[] = {
		[FASTCPU_AREA_GLIBC] = "rseq (glibc)",
		[FASTCPU_AREA_PROGRAM] = "rseq (program)",
		[FASTCPU_AREA_OWN] = "rseq (own)",
	};
	enum fastcpu_area_kind k;

	fastcpu_attach_calling_thread();
	k = fastcpu_area_kind();
	if (*fastcpu_cpu_id_ref >= 0 && k != FASTCPU_AREA_NONE)
		return area_names[k];
	return fastcpu_fallback()->name;
}
