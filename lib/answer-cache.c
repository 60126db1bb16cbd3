/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/answer-cache.c: the jiffy-style per-thread cache in front of a slow backend. */

#include <errno.h>

#include "answer-cache.h"
#include "backends.h"
#include "internal.h"
#include "task-tls.h"
#include "thread.h"
#include "tick.h"

/*
 * Per thread, the answer and the tick it was read in (tick.c: a hardware
 * counter's millisecond, or the kernel's 1-10 ms coarse clock), so that an
 * answer is reused for at most one tick: a thread is rarely moved sooner,
 * and the system call it saves costs more than the check.
 *
 * glibc's contract is stricter: once a thread's affinity is set to one CPU,
 * by itself or by another thread, the thread's next answer is that CPU. So
 * every affinity change in the process (affinity.c) moves a process-wide
 * epoch: the count of changes in flight in its low bits, the count of
 * changes done above them. An answer is stored with the epoch read before
 * it was asked for, only when no change was in flight, and served only
 * while the epoch is still the same: one more load and compare per hit.
 * Changes made by another process (taskset -p) are seen within a tick.
 *
 * cpu and node share one word, written with one store: a signal handler
 * that interrupts an update and updates the cache itself can leave the
 * pair of one read under the key of another read of the same tick and
 * epoch, but never tear the pair.
 */
#define KEY_INVALID	0u	/* no tick is 0 */
#define CPU_BITS	20
#define CPU_MASK	((1u << CPU_BITS) - 1)
#define IN_FLIGHT_BITS	12	/* changes at once: one per thread in the call */
#define IN_FLIGHT_MASK	((1u << IN_FLIGHT_BITS) - 1)

static uint32_t affinity_epoch;

void fastcpu_affinity_change_begin(void)
{
	__atomic_fetch_add(&affinity_epoch, 1, __ATOMIC_SEQ_CST);
}

void fastcpu_affinity_change_end(void)
{
	__atomic_fetch_add(&affinity_epoch, (1u << IN_FLIGHT_BITS) - 1,
			   __ATOMIC_SEQ_CST);
}

/* A vfork() child runs on its parent's TLS: it asks, but stores nothing
 * there for the parent to find (task-tls.c). */
static void store(uint32_t key, uint32_t epoch, uint32_t packed)
{
	if ((epoch & IN_FLIGHT_MASK) != 0 || !fastcpu_task_owns_tls())
		return;
	fastcpu_thread.answer.key = KEY_INVALID;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_thread.answer.cpu_node = packed;
	fastcpu_thread.answer.epoch = epoch;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_thread.answer.key = key;
}

/* The thread's answer of this tick and epoch, if it has one. */
static inline bool hit(uint32_t key, uint32_t epoch, uint32_t *packed)
{
	if (likely(key == fastcpu_thread.answer.key && epoch == fastcpu_thread.answer.epoch)) {
		*packed = fastcpu_thread.answer.cpu_node;
		return true;
	}
	return false;
}

static inline int cached_cpu_node(const struct fastcpu_backend *base,
				  unsigned int *cpu, unsigned int *node)
{
	uint32_t key = fastcpu_tick(), packed;
	uint32_t epoch = __atomic_load_n(&affinity_epoch, __ATOMIC_ACQUIRE);
	unsigned int c, n;

	if (!hit(key, epoch, &packed)) {
		if (base->cpu_node(&c, &n) != 0)
			return -1;
		packed = (c & CPU_MASK) | (n << CPU_BITS);
		store(key, epoch, packed);
	}
	if (cpu != NULL)
		*cpu = packed & CPU_MASK;
	if (node != NULL)
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

/* A hit touches no errno; a miss keeps it where the base may fail. */
static inline int cached_cpu_quiet(const struct fastcpu_backend *base)
{
	uint32_t packed;
	int saved, cpu;

	if (likely(hit(fastcpu_tick(), __atomic_load_n(&affinity_epoch, __ATOMIC_ACQUIRE),
		       &packed)))
		return (int)(packed & CPU_MASK);
	if (base->cpu_quiet == base->cpu)
		return cached_cpu(base);
	saved = errno;
	cpu = cached_cpu(base);
	if (cpu < 0)
		errno = saved;
	return cpu;
}

/* One cached variant per base backend, so no call goes through two
 * pointers; it may fail where its base may. */
#define CACHED_BACKEND(base, base_id)						\
	static int cached_##base##_cpu(void)				\
	{								\
		return cached_cpu(&fastcpu_backend_##base);		\
	}								\
	static int cached_##base##_cpu_node(unsigned int *c, unsigned int *n) \
	{								\
		return cached_cpu_node(&fastcpu_backend_##base, c, n);	\
	}								\
	static int cached_##base##_cpu_quiet(void)			\
	{								\
		return cached_cpu_quiet(&fastcpu_backend_##base);	\
	}								\
	static const struct fastcpu_backend cached_##base = {		\
		.name = #base "+cache",					\
		.id = (base_id) | FASTCPU_BACKEND_CACHED,		\
		.cpu = cached_##base##_cpu,				\
		.cpu_node = cached_##base##_cpu_node,			\
		.cpu_quiet = cached_##base##_cpu_quiet,			\
	}

CACHED_BACKEND(rdpid, FASTCPU_BACKEND_RDPID);
CACHED_BACKEND(vdso, FASTCPU_BACKEND_VDSO);
CACHED_BACKEND(syscall, FASTCPU_BACKEND_SYSCALL);

const struct fastcpu_backend *fastcpu_cache_wrap(const struct fastcpu_backend *b)
{
	if (b == &fastcpu_backend_rdpid)
		return &cached_rdpid;
	if (b == &fastcpu_backend_vdso)
		return &cached_vdso;
	return &cached_syscall;
}
