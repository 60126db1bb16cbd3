/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/entry.c: the exported entry points sched_getcpu, getcpu, backend. */

#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "attach.h"
#include "backends.h"
#include "bind.h"
#include "cpu-id.h"
#include "internal.h"
#include "node.h"
#include "rseq-abi.h"

/*
 * Every entry point starts as <fastcpu.h>'s inline reads do: one load of
 * the word at the published offset from the thread's anchor (the library's
 * own copy of the offset, cpu-id.c), non-negative where it is the cpu_id of
 * the thread's registered area. Anything else (nothing published, the
 * thread's first call where the area is its own or another owner's, no
 * rseq) goes out of line, where the thread's pointer decides: an area that
 * sits elsewhere, or the process-wide fallback chosen once in bind.c. The
 * answer leaves through fastcpu_arch_answer() (arch/x86.h says why).
 */

/* A thread that has not attached, or whose area reads negative. */
static __attribute__((noinline, cold)) int sched_getcpu_attaching(void)
{
	int cpu = *fastcpu_attached_cpu_id();

	if (cpu >= 0)
		return cpu;
	return fastcpu_fallback()->cpu();
}

/* A thread the fallback serves goes straight to it from the entry point:
 * no frame of this library's before the backend's own (a locked add on the
 * answer's shard after the call waits on every store before it, return
 * addresses included), and no jump more than the one off the fast path. */
static inline __attribute__((always_inline)) int sched_getcpu_slow(void)
{
	if (likely(fastcpu_served_by_fallback()))
		return fastcpu_fallback()->cpu();
	return sched_getcpu_attaching();
}

/* The two hot entry points start a cache line each: where a line or a
 * 32-byte fetch window cut one, its cost moved with every unrelated
 * change above it (getcpu 0.95x glibc's at one offset, 1.10x at the next). */
#define HOT_ENTRY __attribute__((aligned(64)))

FASTCPU_EXPORT HOT_ENTRY int fastcpu_sched_getcpu(void)
{
	int cpu = *fastcpu_published_word(&fastcpu_offsets.cpu_id);

	if (likely(cpu >= 0))
		return fastcpu_arch_answer(cpu);
	return sched_getcpu_slow();
}

#ifdef PIC
/* FASTCPU_1.0's <fastcpu.h> read fastcpu_cpu_id_ref inline, calling this
 * while it was negative: programs built with it bind here, and the thread
 * attaches, so that their reads are inline from then on. */
FASTCPU_EXPORT int fastcpu_compat_sched_getcpu_1_0(void);
int fastcpu_compat_sched_getcpu_1_0(void)
{
	int cpu = *fastcpu_cpu_id_ref;

	if (likely(cpu >= 0))
		return cpu;
	return sched_getcpu_slow();
}
__asm__(".symver fastcpu_compat_sched_getcpu_1_0, fastcpu_sched_getcpu@FASTCPU_1.0");
#endif

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
 * the node, consistent by construction. *cpu is stored first, for a caller
 * that waits on it, and again if cpu_id changed. Every call here is a tail
 * call: the fast path needs no stack frame.
 */
static inline int getcpu_rseq(const volatile int *ref, int seen,
			      unsigned int *cpu, unsigned int *node)
{
	const volatile struct fastcpu_rseq_abi *area = fastcpu_area_of(ref);
	unsigned int n;
	int again;

	if (cpu != NULL)
		*cpu = (unsigned int)seen;
	if (node == NULL)
		return 0;
	/* Published where the kernel keeps node_id, with cpu_id. */
	if (unlikely(__atomic_load_n(&fastcpu_offsets.node_id, __ATOMIC_RELAXED) == 0))
		return getcpu_table(seen, cpu, node);
	for (;;) {
		n = area->node_id;
		again = *ref;
		if (likely(again == seen))
			break;
		seen = again;
		if (cpu != NULL)
			*cpu = (unsigned int)seen;
	}
	*node = n;
	return 0;
}

/* getcpu() from the fallback: into the caller's words themselves, as the
 * kernel's getcpu stores, a tail call. */
static inline __attribute__((always_inline)) int
getcpu_fallback(unsigned int *cpu, unsigned int *node)
{
	return fastcpu_fallback()->cpu_node(cpu, node);
}

static __attribute__((noinline, cold)) int
getcpu_attaching(unsigned int *cpu, unsigned int *node)
{
	const volatile int *ref = fastcpu_attached_cpu_id();
	int seen = *ref;

	if (seen >= 0)
		return getcpu_rseq(ref, seen, cpu, node);
	return getcpu_fallback(cpu, node);
}

/* As sched_getcpu_slow: a thread the fallback serves goes straight to it. */
static inline __attribute__((always_inline)) int
getcpu_slow(unsigned int *cpu, unsigned int *node)
{
	if (likely(fastcpu_served_by_fallback()))
		return getcpu_fallback(cpu, node);
	return getcpu_attaching(cpu, node);
}

FASTCPU_EXPORT HOT_ENTRY int fastcpu_getcpu(unsigned int *cpu, unsigned int *node)
{
	const volatile int *at = fastcpu_published_word(&fastcpu_offsets.cpu_id);
	int seen = *at;

	if (unlikely(seen < 0))
		return getcpu_slow(cpu, node);
	return getcpu_rseq(at, seen, cpu, node);
}

/* glibc's getcpu@GLIBC_2.29 (which never reads rseq): interposed likewise. */
FASTCPU_GLIBC_NAME int getcpu(unsigned int *cpu, unsigned int *node)
	__attribute__((alias("fastcpu_getcpu")));

/* Which area serves the calling thread, where one does (a registered
 * area's cpu_id reads >= 0): FASTCPU_AREA_NONE where the fallback does. */
static enum fastcpu_area_kind serving_area(void)
{
	const volatile int *ref = fastcpu_attached_cpu_id();

	return *ref >= 0 ? fastcpu_area_kind() : FASTCPU_AREA_NONE;
}

FASTCPU_EXPORT const char *fastcpu_backend(void)
{
	static const char *const area_names[] = {
		[FASTCPU_AREA_GLIBC] = "rseq (glibc)",
		[FASTCPU_AREA_PROGRAM] = "rseq (program)",
		[FASTCPU_AREA_OWN] = "rseq (own)",
	};
	enum fastcpu_area_kind k = serving_area();

	return k != FASTCPU_AREA_NONE ? area_names[k] : fastcpu_fallback()->name;
}

FASTCPU_EXPORT int fastcpu_backend_id(void)
{
	static const int area_ids[] = {
		[FASTCPU_AREA_GLIBC] = FASTCPU_BACKEND_RSEQ_GLIBC,
		[FASTCPU_AREA_PROGRAM] = FASTCPU_BACKEND_RSEQ_PROGRAM,
		[FASTCPU_AREA_OWN] = FASTCPU_BACKEND_RSEQ_OWN,
	};
	enum fastcpu_area_kind k = serving_area();

	return k != FASTCPU_AREA_NONE ? area_ids[k] : fastcpu_fallback()->id;
}
