/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/entry.c: the exported entry points. */

#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "internal.h"
#include "rseq-abi.h"

/*
 * Every entry point starts with the same test glibc's own rseq path makes:
 * the thread's cpu_id is non-negative once its rseq area is known. Anything
 * else (first call of the thread, no rseq) goes out of line, where the
 * process-wide choice made once in bind.c is called through one pointer.
 */

/* First call of this thread: find or register its rseq area. */
static void attach_thread(void)
{
	struct fastcpu_binding b = fastcpu_bind();

	fastcpu_rseq_attach(&b);
}

void fastcpu_attach_calling_thread(void)
{
	if (*fastcpu_cpu_id_ref == FASTCPU_CPU_UNATTACHED)
		attach_thread();
}

/* Only for threads already attached: attaching bound the process first. */
static const struct fastcpu_backend *fallback(void)
{
	return __atomic_load_n(&fastcpu_bound_fallback, __ATOMIC_ACQUIRE);
}

static __attribute__((noinline, cold)) int sched_getcpu_slow(int seen)
{
	if (seen == FASTCPU_CPU_UNATTACHED) {
		int cpu;

		attach_thread();
		cpu = *fastcpu_cpu_id_ref;
		if (cpu >= 0)
			return cpu;
	}
	return fallback()->cpu();
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
	*node = n;
	if (cpu != NULL)
		*cpu = c;
	return 0;
}

/*
 * getcpu() from the rseq area ref points at, seen being the cpu_id read.
 * The kernel rewrites all fields together on the way back to user space, so
 * reading cpu_id again after node_id and finding it unchanged means no
 * migration came in between (short of two within these three loads, from
 * CPU a to b and back to a). Without node_id the table gives the node,
 * consistent by construction. Every call here is a tail call: the fast
 * path needs no stack frame.
 */
static inline int getcpu_rseq(const volatile int *ref, int seen,
			      unsigned int *cpu, unsigned int *node)
{
	const volatile struct fastcpu_rseq_abi *area = (const void *)
		((const char *)ref - offsetof(struct fastcpu_rseq_abi, cpu_id));

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
	if (cpu != NULL)
		*cpu = (unsigned int)seen;
	return 0;
}

static __attribute__((noinline, cold)) int
getcpu_slow(int seen, unsigned int *cpu, unsigned int *node)
{
	const struct fastcpu_backend *b;
	unsigned int c, n;

	if (seen == FASTCPU_CPU_UNATTACHED) {
		attach_thread();
		seen = *fastcpu_cpu_id_ref;
		if (seen >= 0)
			return getcpu_rseq(fastcpu_cpu_id_ref, seen, cpu, node);
	}
	b = fallback();
	if (node == NULL) {
		int r = b->cpu();

		if (r < 0)
			return -1;
		if (cpu != NULL)
			*cpu = (unsigned int)r;
		return 0;
	}
	if (b->cpu_node(&c, &n) != 0)
		return -1;
	if (cpu != NULL)
		*cpu = c;
	*node = n;
	return 0;
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
	fastcpu_attach_calling_thread();
	if (*fastcpu_cpu_id_ref >= 0) {
		switch (fastcpu_rseq_owner()) {
		case FASTCPU_RSEQ_GLIBC:
			return "rseq (glibc)";
		case FASTCPU_RSEQ_PROGRAM:
			return "rseq (program)";
		case FASTCPU_RSEQ_OWN:
			return "rseq (own)";
		default:
			break;
		}
	}
	return fallback()->name;
}
