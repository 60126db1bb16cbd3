/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cache.c: the jiffy-style per-thread cache in front of a slow backend. */

#include <errno.h>
#include <time.h>

#include "arch.h"
#include "internal.h"
#include "vdso.h"

/*
 * Seed 000's getcpu cache: per thread, the answer and the clock tick it was
 * read in. CLOCK_MONOTONIC_COARSE is the kernel's tick-granular clock, read
 * from the vDSO without a system call, so an answer is reused for at most
 * one scheduler tick (1-10 ms). The vDSO's clock_gettime is called directly
 * where the architecture names it: a hit costs about a third less than
 * through glibc's wrapper. The thread's own sched_setaffinity()
 * invalidates it (affinity.c), so pinning is seen by the very next call.
 *
 * cpu and node share one word, written with one store: a signal handler
 * that interrupts an update and updates the cache itself can make the key
 * and the pair come from different ticks, but never tear the pair.
 */
#define KEY_INVALID	0u
#define CPU_BITS	20
#define CPU_MASK	((1u << CPU_BITS) - 1)

struct cache_slot {
	volatile uint32_t key;
	volatile uint32_t cpu_node;
};

static __thread struct cache_slot slot __attribute__((tls_model("initial-exec")));

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn read_clock = clock_gettime;	/* bind may refine */

/* The coarse clock, folded to 32 bits (ns modulo 2^32): equal only within
 * one tick, short of a wrap landing on the very same nanosecond. */
static uint32_t tick_key(void)
{
	struct timespec ts;
	uint32_t key;

	read_clock(CLOCK_MONOTONIC_COARSE, &ts);	/* cannot fail: bind checked */
	key = (uint32_t)ts.tv_sec * 1000000000u + (uint32_t)ts.tv_nsec;
	return key == KEY_INVALID ? 1 : key;
}

/* Checked once when binding, so that tick_key() never sees a failure that
 * would leave errno changed on a successful call. */
bool fastcpu_cache_usable(void)
{
	struct timespec ts;
	int saved = errno;
	bool ok = clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0;
#ifdef FASTCPU_VDSO_CLOCK_GETTIME
	clock_gettime_fn vdso = (clock_gettime_fn)fastcpu_vdso_lookup(
		FASTCPU_VDSO_CLOCK_GETTIME, FASTCPU_VDSO_CLOCK_VERSION);

	if (ok && vdso != NULL && vdso(CLOCK_MONOTONIC_COARSE, &ts) == 0)
		__atomic_store_n(&read_clock, vdso, __ATOMIC_RELAXED);
#endif
	errno = saved;
	return ok;
}

void fastcpu_cache_invalidate(void)
{
	slot.key = KEY_INVALID;
}

static inline int cached_cpu_node(const struct fastcpu_backend *base,
				  unsigned int *cpu, unsigned int *node)
{
	uint32_t key = tick_key(), packed;

	if (likely(key == slot.key && key != KEY_INVALID)) {
		packed = slot.cpu_node;
	} else {
		if (base->cpu_node(cpu, node) != 0)
			return -1;
		packed = (*cpu & CPU_MASK) | (*node << CPU_BITS);
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
