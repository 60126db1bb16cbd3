/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/percpu.h: the per-CPU operations and counters (fastcpu_percpu(3)). */

#ifndef FASTCPU_PERCPU_H
#define FASTCPU_PERCPU_H

#include "fastcpu/counter-tree.h"	/* the counter tree, read in O(1) */
#include "fastcpu/cpu.h"
#include "fastcpu/percpu-alloc.h"
#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * the slot of its CPU in the upper half, index + fastcpu_cid_limit() / 2:
 * no slot is reached both ways (the half rule, fastcpu_percpu(3)). On an
 * architecture without sequences here (or where the program defines
 * FASTCPU_PERCPU_OUT_OF_LINE) every thread takes the upper half.
 *
 * A node the list operations take comes with everything its pusher wrote
 * to it before pushing; nodes pushed in the upper half are popped there.
 */
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
 * half, pops of one slot take turns: a pop whose slot another pop holds
 * (preempted inside its few instructions) takes a node of another CPU's
 * slot there, else waits for that pop to end; a signal handler that
 * interrupted its own thread's pop there takes another slot's node, or
 * says NULL at once.
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

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_PERCPU_H */
