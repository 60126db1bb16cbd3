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
 * node_id and mm_cid (0, the anchor itself, until known). A published word
 * changes once, from 0 to its value, and either value gives a right answer
 * (0 by way of the out-of-line call), so the reads take it with
 * fastcpu_published_(): a load the compiler may keep for the rest of the
 * function, out of any loop, making each read one load. A function that
 * began before the library published keeps 0, and its reads go out of line,
 * until it is called again (the library publishes at load wherever it can).
 * So each word is found from one published offset alone, never from a sum
 * of two: one kept and one loaded afresh would point at neither.
 */
extern FASTCPU_VISIBLE __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec")));
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_node_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_cid_offset;

#include "fastcpu/rseq.h"

static inline ptrdiff_t fastcpu_published_(const ptrdiff_t *word)
{
#ifdef FASTCPU_INVARIANT_LOAD_
	ptrdiff_t value;

	FASTCPU_INVARIANT_LOAD_(value, word);
	return value;
#else
	return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

/* In integers: the word is another object's (an rseq area), not the
 * anchor's. */
static inline const volatile int *fastcpu_tls_word_(ptrdiff_t offset)
{
	return (const volatile int *)((uintptr_t)&fastcpu_tls_anchor + (uintptr_t)offset);
}

/* The calling thread's cpu_id, node_id and concurrency id words, as far as
 * the function knows (the anchor before publication). */
#define fastcpu_cpu_id_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_cpu_id_offset))
#define fastcpu_node_id_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_node_id_offset))
#define fastcpu_cid_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_cid_offset))

/*
 * Inline fast path: one load of the kernel-maintained rseq cpu_id, with an
 * out-of-line call while it is negative (first call of a thread, no rseq, a
 * backend forced). Same result and errno contract as fastcpu_sched_getcpu().
 */
static inline int fastcpu_current_cpu(void)
{
	int cpu = *fastcpu_cpu_id_word_();

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
	const volatile int *cpu_at = fastcpu_cpu_id_word_();
	int cpu = *cpu_at;
	int n = *fastcpu_node_id_word_();

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
	int cpu = *fastcpu_cpu_id_word_();
	int cid = *fastcpu_cid_word_();

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
 * and in signal handlers: none can fail, each retries by itself. Not in a
 * vfork child: it runs on its parent's rseq area, which the kernel does not
 * keep for it.
 *
 * How: a thread that reads an rseq area runs a restartable sequence
 * (<fastcpu/rseq.h>) on a slot of the lower half, with no atomic
 * instruction: the kernel restarts it if the thread is preempted, migrated
 * or signalled before its last store, so while it runs no other thread
 * holds that index. A thread that reads none (no rseq here, a sandbox
 * refused it, a forced fallback), or whose area another owner registered
 * with a signature other than the library's, uses atomic instructions on
 * the slot of its CPU in the upper half, index + fastcpu_cid_limit() / 2.
 * No slot is ever reached both ways: the lower half is changed only inside
 * sequences, whose index the kernel keeps exclusive, the upper half only
 * atomically, so a process where some threads have rseq and others not
 * stays exact. On an architecture without sequences here (or where the
 * program defines FASTCPU_PERCPU_OUT_OF_LINE) every thread takes the upper
 * half.
 *
 * A node the list operations take comes with everything its pusher wrote
 * to it before pushing; nodes pushed in the upper half are popped there.
 */
enum fastcpu_index { FASTCPU_BY_CID, FASTCPU_BY_CPU };

/* Where the inline operations run their sequences (FASTCPU_1.3): the same
 * word as fastcpu_cpu_id_offset once the library may run them on the area
 * there, 0 (the anchor) until then; where it may not (another owner's
 * areas, registered with another signature), the same word as
 * fastcpu_percpu_upper_cpu_id_offset instead, and fastcpu_percpu_upper_base
 * the upper half's first index (0 until known). Not an API of their own. */
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_upper_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_upper_base;

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
/* fastcpu_percpu_lock() once the lock was found taken: waits (FASTCPU_1.3). */
FASTCPU_VISIBLE int fastcpu_percpu_lock_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by);
/* fastcpu_percpu_unlock() where the kernel extended the holder's time
 * slice: gives the CPU back (FASTCPU_1.3). */
FASTCPU_VISIBLE void fastcpu_percpu_slice_yield_out_of_line(void);

#include "fastcpu/percpu.h"

/* Adds value to the calling thread's slot. Relaxed: it orders nothing else. */
static inline void fastcpu_percpu_add(void *base, size_t stride,
				      enum fastcpu_index by, long value)
{
	long upper;

	if (__builtin_expect(fastcpu_percpu_add_body_(base, stride, by, (intptr_t)value,
						      fastcpu_percpu_index_) == 0, 1))
		return;
	upper = fastcpu_percpu_upper_index_();
	if (upper >= 0)
		__atomic_fetch_add(fastcpu_percpu_slot_(base, stride, (size_t)upper),
				   (intptr_t)value, __ATOMIC_RELAXED);
	else
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
	intptr_t found = expect;
	long upper;
	int r = fastcpu_percpu_cmpstore_body_(base, stride, by, expect, newv, &found, 1,
					      fastcpu_percpu_index_);

	if (__builtin_expect(r == FASTCPU_PERCPU_ELSEWHERE_, 0)) {
		upper = fastcpu_percpu_upper_index_();
		if (upper < 0)
			return fastcpu_percpu_cmpstore_out_of_line(base, stride, by, expect,
								   newv, seen);
		found = expect;
		r = __atomic_compare_exchange_n(fastcpu_percpu_slot_(base, stride, (size_t)upper),
						&found, newv, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) ? (int)upper : -1;
	}
	if (r < 0 && seen != NULL)
		*seen = found;
	return r;
}

/*
 * Takes the first node of the calling thread's slot's list: the slot holds
 * a pointer to a node or NULL, each node at next_offset a pointer to the
 * next. Returns the node, or NULL where that list is empty. In the upper
 * half, a pop whose slot another pop holds (preempted inside its few
 * instructions) takes a node of another CPU's slot there, or yields and
 * tries again a few times before it says NULL; a signal handler that
 * interrupted its own thread's pop there says NULL at once. Never waits
 * for a lock.
 */
static inline void *fastcpu_percpu_pop(void *base, size_t stride,
				       enum fastcpu_index by, size_t next_offset)
{
	void *node;

	if (__builtin_expect(fastcpu_percpu_pop_body_(base, stride, by, next_offset, &node,
						      fastcpu_percpu_index_) == 0, 1))
		return node;
	return fastcpu_percpu_pop_out_of_line(base, stride, by, next_offset);
}

/* Pushes node on the calling thread's slot's list; returns the slot's
 * index. The node's pointer at next_offset is the operation's to write.
 * No fence: a sequence's pop of that slot runs on the pusher's CPU, or
 * after the kernel handed its index over, which orders them. */
static inline int fastcpu_percpu_push(void *base, size_t stride,
				      enum fastcpu_index by, void *node,
				      size_t next_offset)
{
	intptr_t head = 0;
	int slot;

	for (;;) {
		*(void **)(void *)((char *)node + next_offset) = (void *)head;
		slot = fastcpu_percpu_cmpstore_body_(base, stride, by, head, (intptr_t)node,
						     &head, 0, fastcpu_percpu_index_);
		if (__builtin_expect(slot == FASTCPU_PERCPU_ELSEWHERE_, 0))
			slot = fastcpu_percpu_cmpstore_out_of_line(base, stride, by, head,
								   (intptr_t)node, &head);
		if (slot >= 0)
			return slot;
	}
}

/*
 * Takes the calling thread's slot's lock word from 0 to 1, waiting while
 * it is 1; returns the slot's index, which fastcpu_percpu_unlock() wants.
 * A waiter spins briefly (the holder may run on another CPU), then yields
 * its CPU (the holder of a per-CPU lock is most often preempted on the
 * waiter's own), then sleeps in growing steps up to a millisecond: a
 * SCHED_FIFO waiter yields only to its own priority, and a holder of a
 * lower one runs only while the waiter sleeps. Not in a signal handler
 * that may interrupt the holder: like any lock. Where the kernel extends
 * time slices (Linux 7.0's rseq time-slice extension, built in and enabled
 * for the thread), the holder asks not to be preempted while it holds the
 * lock, a few microseconds at most, and its unlock gives the CPU back if
 * the kernel granted that; inside a lock taken before, the first unlock
 * ends the request. The request is the locking thread's: a lock unlocked
 * by another thread leaves it until the locking thread's next unlock (a
 * preemption meanwhile may get it those microseconds, which the kernel's
 * timer ends).
 */
static inline int fastcpu_percpu_lock(void *base, size_t stride,
				      enum fastcpu_index by)
{
	int slot = fastcpu_percpu_cmpstore(base, stride, by, 0, 1, NULL);

	if (__builtin_expect(slot >= 0, 1)) {
		fastcpu_percpu_slice_request_();
		return slot;
	}
	return fastcpu_percpu_lock_out_of_line(base, stride, by);
}

/* Releases the lock of slot (from any thread, on any CPU). */
static inline void fastcpu_percpu_unlock(void *base, size_t stride, int slot)
{
	__atomic_store_n(fastcpu_percpu_slot_(base, stride, (size_t)slot), 0,
			 __ATOMIC_RELEASE);
	fastcpu_percpu_slice_release_();
}

/*
 * Per-CPU memory (FASTCPU_1.3): objects with fastcpu_cid_limit() copies,
 * each FASTCPU_PERCPU_STRIDE bytes after the one before, so that an object
 * is directly the base of the per-CPU operations above at that stride, and
 * fastcpu_percpu_ptr(p, i) is its copy i (the same type as p). Objects of
 * 1 to FASTCPU_PERCPU_STRIDE bytes sit packed next to each other in every
 * copy, each aligned to the largest power of two dividing its size, up to
 * 64 (an 8-byte counter takes 8 bytes, not a cache line), in chunks of
 * address space reserved once and backed only where touched; freed space
 * is reused. Where the machine has more than one NUMA node, copy i's pages
 * prefer the node of CPU i, and copy n + i's (the upper half's, n CPUs)
 * too; copy i by concurrency id is used by whichever CPU the thread holding
 * id i runs on, so no node is its own. Thread-safe, not async-signal-safe
 * (the object cache below is). A fork child gets a copy of every object.
 *
 * alloc and zalloc both return every copy zeroed, or NULL with errno EINVAL
 * (size 0 or above FASTCPU_PERCPU_STRIDE) or ENOMEM (no address space
 * left). free takes what they gave, or NULL; a pointer they did not give,
 * or an object freed twice (and not given out again since), sets errno
 * EINVAL and changes nothing.
 */
#define FASTCPU_PERCPU_STRIDE 65536

FASTCPU_VISIBLE void *fastcpu_percpu_alloc(size_t size);
FASTCPU_VISIBLE void *fastcpu_percpu_zalloc(size_t size);
FASTCPU_VISIBLE void fastcpu_percpu_free(void *p);

/* The distance between an object's copies, the same for every object. */
static inline size_t fastcpu_percpu_stride(void)
{
	return FASTCPU_PERCPU_STRIDE;
}

/* Copy index of the per-CPU object p, as p's type. */
#define fastcpu_percpu_ptr(p, index)					\
	((__typeof__(p))(void *)((char *)(p) + (size_t)(index) * FASTCPU_PERCPU_STRIDE))

/*
 * A counter: one long a copy of per-CPU memory. fastcpu_counter_add() is
 * fastcpu_percpu_add() on the copy of the CPU the thread runs on (by CPU:
 * one load fewer than by concurrency id, and a sum reads every copy either
 * way), fastcpu_counter_sum() reads every copy (relaxed: exact once the
 * adders are done, a moment's value while they run). new returns NULL
 * (errno ENOMEM) without memory.
 */
struct fastcpu_counter;

FASTCPU_VISIBLE struct fastcpu_counter *fastcpu_counter_new(void);
FASTCPU_VISIBLE long fastcpu_counter_sum(const struct fastcpu_counter *counter);
FASTCPU_VISIBLE void fastcpu_counter_free(struct fastcpu_counter *counter);

static inline void fastcpu_counter_add(struct fastcpu_counter *counter, long value)
{
	fastcpu_percpu_add(counter, fastcpu_percpu_stride(), FASTCPU_BY_CPU, value);
}

/*
 * An object cache (FASTCPU_1.3): objects of one size, from per-CPU free
 * lists (pushed and popped by one restartable sequence each, no atomic
 * instruction, where the thread has rseq; under a short turn in the upper
 * half where it has not), refilled from and emptied to a depot the CPUs
 * share, a batch at a time.
 *
 * new(size, align): objects of size bytes (1 to FASTCPU_OBJCACHE_MAX_SIZE)
 * aligned to align (a power of two up to FASTCPU_OBJCACHE_MAX_ALIGN; 0:
 * the largest power of two dividing size, up to 16), each taking at least
 * two pointers and a multiple of its alignment. NULL with errno EINVAL
 * (bad size or align) or ENOMEM.
 *
 * alloc(cache): an object, its contents undefined; NULL with errno ENOMEM
 * (no address space left), or EINVAL (cache NULL).
 *
 * free(cache, object): object back to the cache, NULL ignored. A pointer
 * that is not one of this cache's objects, or an object freed twice where
 * that is cheap to see (it is the last one freed on that CPU; every time
 * where AddressSanitizer is on), sets errno EINVAL and changes nothing; a
 * double free not seen hands the object out twice later, as with malloc.
 * A free object's first two words are the cache's: a write after free
 * breaks the cache (ASan reports it: free objects stay poisoned there).
 *
 * A CPU's list holds at most max(16, FASTCPU_OBJCACHE_CPU_BYTES / object
 * size) objects, as many for the upper half's of that CPU, however many
 * threads run there; the rest of what is freed waits in the depot for any
 * CPU: memory freed on one CPU and allocated on another goes round, neither
 * lost nor hoarded. Memory stays with the cache until destroy.
 *
 * alloc and free are thread-safe and async-signal-safe (a signal handler
 * may call them on any cache, interrupting any call); new is thread-safe,
 * destroy must not run while another call uses its cache, and neither is
 * async-signal-safe; destroy frees every object of the cache, given out or
 * not.
 * A fork child gets the cache as the parent had it, minus the objects that
 * other threads were moving at that moment; a vfork child must not use it
 * (it runs on its parent's rseq area, which the kernel does not keep).
 */
struct fastcpu_objcache;

#define FASTCPU_OBJCACHE_MAX_SIZE (1024 * 1024)
#define FASTCPU_OBJCACHE_MAX_ALIGN 4096
#define FASTCPU_OBJCACHE_CPU_BYTES 32768

FASTCPU_VISIBLE struct fastcpu_objcache *fastcpu_objcache_new(size_t size, size_t align);
FASTCPU_VISIBLE void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache);
FASTCPU_VISIBLE void fastcpu_objcache_free(struct fastcpu_objcache *cache, void *object);
FASTCPU_VISIBLE void fastcpu_objcache_destroy(struct fastcpu_objcache *cache);

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_H */
