/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu.h: the current CPU number, as fast as the kernel allows. */

#ifndef FASTCPU_H
#define FASTCPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FASTCPU_VISIBLE __attribute__((visibility("default")))

/* The CPU the calling thread runs on, as sched_getcpu(3): -1 and errno
 * ENOSYS when the kernel offers no way to know. */
FASTCPU_VISIBLE int fastcpu_sched_getcpu(void);

/* As getcpu(2): stores the CPU and its NUMA node where the pointers are not
 * NULL; returns 0, or -1 and errno ENOSYS when nothing can answer. */
FASTCPU_VISIBLE int fastcpu_getcpu(unsigned int *cpu, unsigned int *node);

/* The name of the mechanism that serves the calling thread: "rseq (glibc)",
 * "rseq (program)" (librseq's or another owner's area), "rseq (own)",
 * "rdpid", "vdso" or "syscall", with "+cache" when the per-thread cache is
 * in front of it. Never NULL; a static string. */
FASTCPU_VISIBLE const char *fastcpu_backend(void);

/* Out-of-line fastcpu_current_cid(): same answer, same contract. */
FASTCPU_VISIBLE int fastcpu_cid(void);

/* The bound of every concurrency id: fixed for the life of the process,
 * above every answer of fastcpu_current_cid() and fastcpu_current_cpu()
 * (so an array of this many entries serves either index): twice the number
 * of possible CPUs, the upper half for threads that cannot read an rseq
 * area (see fastcpu(3) and the per-CPU operations below). Never fails. */
FASTCPU_VISIBLE int fastcpu_cid_limit(void);

/*
 * What the inline reads below use; not an API of their own. Each thread has
 * fastcpu_tls_anchor (initial-exec TLS, always -1); the library publishes,
 * once per process, how far from it every thread's rseq area keeps cpu_id,
 * node_id and mm_cid (0, the anchor itself, until known). Being constant
 * for the process, the address is computed once per function, out of any
 * loop, and each read is one load. Declared const: the library writes each
 * once, and a read that saw the old value still gets a right answer, from
 * the out-of-line call.
 */
#ifndef FASTCPU_LIBRARY_PUBLISHES_OFFSETS
# define FASTCPU_PUBLISHED const
#else
# define FASTCPU_PUBLISHED
#endif
extern FASTCPU_VISIBLE __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec")));
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_cpu_id_offset;
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_node_id_offset;
extern FASTCPU_VISIBLE FASTCPU_PUBLISHED ptrdiff_t fastcpu_cid_offset;

static inline const volatile int *fastcpu_tls_word_(ptrdiff_t offset)
{
	return (const volatile int *)(const volatile void *)
		((const volatile char *)&fastcpu_tls_anchor + offset);
}

/*
 * Inline fast path: one load of the kernel-maintained rseq cpu_id, with an
 * out-of-line call while it is negative (first call of a thread, no rseq, a
 * backend forced). Same result and errno contract as fastcpu_sched_getcpu().
 */
static inline int fastcpu_current_cpu(void)
{
	int cpu = *fastcpu_tls_word_(fastcpu_cpu_id_offset);

	if (__builtin_expect(cpu < 0, 0))
		return fastcpu_sched_getcpu();
	return cpu;
}

/*
 * The CPU, with its NUMA node stored in *node (not NULL); -1 and errno
 * ENOSYS as getcpu(). Inline where the kernel keeps node_id (Linux 6.3+):
 * cpu_id, node_id, then cpu_id again, which must not have changed; the
 * kernel rewrites all fields together whenever the thread comes back to
 * user space on another CPU, so the pair is one the kernel stored at once,
 * unless between these three loads the thread was preempted twice and came
 * back to the first CPU from a CPU of another node. Out of line otherwise,
 * where the pair comes from one source (the kernel's, or the CPU's node
 * from sysfs).
 */
static inline int fastcpu_current_cpu_node(unsigned int *node)
{
	const volatile int *cpu_at = fastcpu_tls_word_(fastcpu_cpu_id_offset);
	int cpu = *cpu_at;
	int n = *fastcpu_tls_word_(fastcpu_node_id_offset);

	if (__builtin_expect((cpu | n) < 0 || *cpu_at != cpu, 0)) {
		unsigned int c, slow_node;	/* *node stays in a register */

		if (fastcpu_getcpu(&c, &slow_node) != 0)
			return -1;
		*node = slow_node;
		return (int)c;
	}
	*node = (unsigned int)n;
	return cpu;
}

/*
 * An index in [0, fastcpu_cid_limit()) that no other thread of the process
 * running at the same moment has: the kernel's concurrency id (mm_cid,
 * Linux 6.3+, dense from 0: below the number of threads and of CPUs the
 * process may use), else the CPU number; a thread without an rseq area gets
 * its CPU number plus the number of possible CPUs. -1 and errno ENOSYS only
 * where fastcpu_sched_getcpu() fails.
 */
static inline int fastcpu_current_cid(void)
{
	int cpu = *fastcpu_tls_word_(fastcpu_cpu_id_offset);
	int cid = *fastcpu_tls_word_(fastcpu_cid_offset);

	if (__builtin_expect((cpu | cid) < 0, 0))
		return fastcpu_cid();
	return cid;
}

/*
 * Per-CPU operations (FASTCPU_1.2), on an array the caller owns: slots
 * stride bytes apart from base, fastcpu_cid_limit() of them, each starting
 * with an intptr_t word (a counter, a lock, a list head) that only these
 * operations change. Each acts on the calling thread's slot, chosen by
 *   FASTCPU_BY_CID  its concurrency id (fastcpu_current_cid(): dense), or
 *   FASTCPU_BY_CPU  the CPU it runs on (fastcpu_current_cpu()),
 * and is atomic against every other operation on the array, in any thread
 * and in signal handlers: none can fail, each retries by itself.
 *
 * How: a thread that reads an rseq area runs a restartable sequence
 * (<fastcpu/rseq.h>) on a slot of the lower half, with no atomic
 * instruction: the kernel restarts it if the thread is preempted, migrated
 * or signalled before its last store, so while it runs no other thread
 * holds that index. A thread that reads none (no rseq here, a sandbox
 * refused it, a forced fallback) uses atomic instructions on the slot of
 * its CPU in the upper half, index + fastcpu_cid_limit() / 2. No slot is
 * ever reached both ways: the lower half is changed only inside sequences,
 * whose index the kernel keeps exclusive, the upper half only atomically,
 * so a process where some threads have rseq and others not stays exact.
 * On an architecture without sequences here (or where the program defines
 * FASTCPU_PERCPU_OUT_OF_LINE) every thread takes the upper half.
 *
 * A node the list operations take comes with everything its pusher wrote
 * to it before pushing; nodes pushed in the upper half are popped there.
 */
enum fastcpu_index { FASTCPU_BY_CID, FASTCPU_BY_CPU };

/* The operations' out-of-line forms: same contracts. */
FASTCPU_VISIBLE void fastcpu_percpu_add_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by, long value);
FASTCPU_VISIBLE int fastcpu_percpu_cmpstore_out_of_line(void *base, size_t stride,
							enum fastcpu_index by,
							intptr_t expect, intptr_t newv,
							intptr_t *seen);
FASTCPU_VISIBLE void *fastcpu_percpu_pop_out_of_line(void *base, size_t stride,
						     enum fastcpu_index by,
						     size_t next_offset);

#include "fastcpu/rseq.h"

/* A test may count the sequences the kernel aborted (nothing by default). */
#ifndef FASTCPU_PERCPU_ON_ABORT
# define FASTCPU_PERCPU_ON_ABORT() ((void)0)
#endif

#ifdef FASTCPU_RSEQ_INLINE
/* The calling thread's index, with its area and index word, where the
 * inline sequences can use them (published, registered here); -1 where
 * the library must. */
static inline int fastcpu_percpu_index_(enum fastcpu_index by,
					const volatile int **cpu_at,
					const volatile int **index_at)
{
	int cpu;

	*cpu_at = fastcpu_tls_word_(fastcpu_cpu_id_offset);
	cpu = **cpu_at;
	if (by == FASTCPU_BY_CPU) {
		*index_at = *cpu_at;
		return cpu;
	}
	*index_at = fastcpu_tls_word_(fastcpu_cid_offset);
	if (__builtin_expect(cpu < 0 || fastcpu_cid_offset == 0, 0))
		return -1;
	return **index_at;
}

/* The word of slot index. */
static inline intptr_t *fastcpu_percpu_slot_(void *base, size_t stride, int index)
{
	return (intptr_t *)(void *)((char *)base + (size_t)index * stride);
}
#endif

/* Adds value to the calling thread's slot. Relaxed: it orders nothing else. */
static inline void fastcpu_percpu_add(void *base, size_t stride,
				      enum fastcpu_index by, long value)
{
#ifdef FASTCPU_RSEQ_INLINE
	const volatile int *cpu_at, *index_at;
	int index, r;

	while (__builtin_expect((index = fastcpu_percpu_index_(by, &cpu_at, &index_at)) >= 0, 1)) {
		r = fastcpu_rseq_add_(cpu_at, index_at, index,
				      (long *)fastcpu_percpu_slot_(base, stride, index), value);
		if (__builtin_expect(r == 0, 1))
			return;
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
#endif
	fastcpu_percpu_add_out_of_line(base, stride, by, value);
}

/*
 * If the calling thread's slot holds expect, stores newv there and returns
 * the slot's index; otherwise returns -1 and, if seen is not NULL, stores
 * in *seen the value found. On success the caller's later loads and stores
 * are ordered after it (acquire), and a thread that finds newv there
 * through these operations sees what the caller wrote before (release).
 */
static inline int fastcpu_percpu_cmpstore(void *base, size_t stride,
					  enum fastcpu_index by, intptr_t expect,
					  intptr_t newv, intptr_t *seen)
{
#ifdef FASTCPU_RSEQ_INLINE
	const volatile int *cpu_at, *index_at;
	intptr_t found;
	int index, r;

	while ((index = fastcpu_percpu_index_(by, &cpu_at, &index_at)) >= 0) {
		r = fastcpu_rseq_cmpstore_(cpu_at, index_at, index,
					   fastcpu_percpu_slot_(base, stride, index),
					   expect, newv, &found);
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
		if (r != 0)
			continue;
		if (found == expect)
			return index;
		if (seen != NULL)
			*seen = found;
		return -1;
	}
#endif
	return fastcpu_percpu_cmpstore_out_of_line(base, stride, by, expect, newv, seen);
}

/*
 * Takes the first node of the calling thread's slot's list: the slot holds
 * a pointer to a node or NULL, each node at next_offset a pointer to the
 * next. Returns the node, or NULL where that list is empty (or, in a thread
 * without rseq, every list of the upper half it tried was busy with another
 * pop). Never blocks.
 */
static inline void *fastcpu_percpu_pop(void *base, size_t stride,
				       enum fastcpu_index by, size_t next_offset)
{
#ifdef FASTCPU_RSEQ_INLINE
	const volatile int *cpu_at, *index_at;
	intptr_t head;
	int index, r;

	while ((index = fastcpu_percpu_index_(by, &cpu_at, &index_at)) >= 0) {
		r = fastcpu_rseq_pop_(cpu_at, index_at, index,
				      fastcpu_percpu_slot_(base, stride, index),
				      next_offset, &head);
		if (r == 0)
			return (void *)head;
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
#endif
	return fastcpu_percpu_pop_out_of_line(base, stride, by, next_offset);
}

/* Pushes node on the calling thread's slot's list; returns the slot's
 * index. The node's pointer at next_offset is the operation's to write. */
static inline int fastcpu_percpu_push(void *base, size_t stride,
				      enum fastcpu_index by, void *node,
				      size_t next_offset)
{
	intptr_t head = 0;
	int slot;

	do
		*(void **)(void *)((char *)node + next_offset) = (void *)head;
	while ((slot = fastcpu_percpu_cmpstore(base, stride, by, head,
					       (intptr_t)node, &head)) < 0);
	return slot;
}

/* Takes the calling thread's slot's lock word from 0 to 1, waiting while
 * it is 1; returns the slot's index, which fastcpu_percpu_unlock() wants.
 * Not in a signal handler that may interrupt the holder: like any lock. */
static inline int fastcpu_percpu_lock(void *base, size_t stride,
				      enum fastcpu_index by)
{
	int slot;

	while ((slot = fastcpu_percpu_cmpstore(base, stride, by, 0, 1, NULL)) < 0) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	return slot;
}

/* Releases the lock of slot (from any thread, on any CPU). */
static inline void fastcpu_percpu_unlock(void *base, size_t stride, int slot)
{
	__atomic_store_n((intptr_t *)(void *)((char *)base + (size_t)slot * stride), 0,
			 __ATOMIC_RELEASE);
}

/*
 * A counter made of per-CPU slots: fastcpu_counter_add() is
 * fastcpu_percpu_add() on the slot of the CPU the thread runs on (by CPU:
 * one load fewer than by concurrency id, and a sum reads every slot either
 * way), fastcpu_counter_sum() reads every slot (relaxed: exact once the
 * adders are done, a moment's value while they run). new returns NULL
 * (errno ENOMEM) without memory.
 */
struct fastcpu_counter;
#define FASTCPU_COUNTER_STRIDE_ 128	/* a pair of cache lines per slot */

FASTCPU_VISIBLE struct fastcpu_counter *fastcpu_counter_new(void);
FASTCPU_VISIBLE long fastcpu_counter_sum(const struct fastcpu_counter *counter);
FASTCPU_VISIBLE void fastcpu_counter_free(struct fastcpu_counter *counter);

static inline void fastcpu_counter_add(struct fastcpu_counter *counter, long value)
{
	fastcpu_percpu_add(counter, FASTCPU_COUNTER_STRIDE_, FASTCPU_BY_CPU, value);
}

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_H */
