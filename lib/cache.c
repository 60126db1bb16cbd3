/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cache.c: the jiffy-style per-thread cache in front of a slow backend. */

#include "internal.h"

/*
 * Seed 000's getcpu cache: per thread, the answer and the tick it was read
 * in (tick.c: a hardware counter's millisecond, or the kernel's 1-10 ms
 * coarse clock), so an answer is reused for at most one tick. The thread's
 * own sched_setaffinity() invalidates it (affinity.c), so pinning is seen
 * by the very next call.
 *
 * cpu and node share one word, written with one store: a signal handler
 * that interrupts an update and updates the cache itself can make the key
 * and the pair come from different ticks, but never tear the pair.
 */
#define KEY_INVALID	0u	/* no tick is 0 */
#define CPU_BITS	20
#define CPU_MASK	((1u << CPU_BITS) - 1)

struct cache_slot {
	volatile uint32_t key;
	volatile uint32_t cpu_node;
	volatile uint32_t held;		/* inside sched_setaffinity(): no fills */
};

static __thread struct cache_slot slot __attribute__((tls_model("initial-exec")));

/*
 * Around the thread's own sched_setaffinity(): a signal handler that asks
 * after the migration but before the call returns (qemu-user delivers
 * signals exactly there) must not be served, nor fill the cache with, the
 * CPU from before it.
 */
void fastcpu_cache_hold(void)
{
	slot.held++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	slot.key = KEY_INVALID;
}

void fastcpu_cache_release(void)
{
	slot.key = KEY_INVALID;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	slot.held--;
}

static inline int cached_cpu_node(const struct fastcpu_backend *base,
				  unsigned int *cpu, unsigned int *node)
{
	uint32_t key = fastcpu_tick(), packed;

	if (likely(key == slot.key && key != KEY_INVALID)) {
		packed = slot.cpu_node;
	} else {
		if (base->cpu_node(cpu, node) != 0)
			return -1;
		packed = (*cpu & CPU_MASK) | (*node << CPU_BITS);
		if (slot.held)
			return 0;
		slot.key = KEY_INVALID;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		slot.cpu_node = packed;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		slot.key = key;
	}
	*cpu = packed & CPU_MASK;
	*node = packed >> CPU_BITS;
	return 0;
}

static inline int cached_cpu(const struct fastcpu_backend *base)
{
	unsigned int cpu, node;

	if (unlikely(cached_cpu_node(base, &cpu, &node) != 0))
		return -1;
	return (int)cpu;
}

/* One cached variant per base backend, so no call goes through two
 * pointers. */
#define CACHED_BACKEND(base)						\
	static int cached_##base##_cpu(void)				\
	{								\
		return cached_cpu(&fastcpu_backend_##base);		\
	}								\
	static int cached_##base##_cpu_node(unsigned int *c, unsigned int *n) \
	{								\
		return cached_cpu_node(&fastcpu_backend_##base, c, n);	\
	}								\
	static const struct fastcpu_backend cached_##base = {		\
		.name = #base "+cache",					\
		.cpu = cached_##base##_cpu,				\
		.cpu_node = cached_##base##_cpu_node,			\
	}

CACHED_BACKEND(rdpid);
CACHED_BACKEND(vdso);
CACHED_BACKEND(syscall);

const struct fastcpu_backend *fastcpu_cache_wrap(const struct fastcpu_backend *b)
{
	if (b == &fastcpu_backend_rdpid)
		return &cached_rdpid;
	if (b == &fastcpu_backend_vdso)
		return &cached_vdso;
	return &cached_syscall;
}
