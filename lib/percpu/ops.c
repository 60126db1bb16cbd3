/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/ops.c: the per-CPU operations out of line. */


#include "attach.h"
#include "cid.h"
#include "cpu-id.h"
#include "kernel.h"
#include "ops.h"
#include "program-area.h"
#include "wing.h"

/*
 * The inline operations of <fastcpu.h> come here when the calling thread's
 * area is not where they look (its first call, no rseq, an area the
 * published offset does not reach, another owner's not yet checked) or the
 * architecture has no sequences. The bodies are <fastcpu/percpu.h>'s, the
 * ones the inline forms run: here the thread's area is found through its
 * own pointer, and a thread that has none, or whose area may not take the
 * library's sequences, takes the upper half with atomic instructions (the
 * header says why that split keeps every slot right).
 */

/* The calling thread's path, chosen here alone for every operation: its
 * index where it runs the sequences, with its area and index word (the
 * bodies run them there); -1 where it takes the upper half. */
static int thread_index(enum fastcpu_index by, const volatile int **cpu_at,
			const volatile int **index_at)
{
	const volatile int *ref = fastcpu_sequence_cpu_id();

	if (ref == NULL)
		return -1;
	*cpu_at = ref;
	*index_at = by == FASTCPU_BY_CPU ? ref : fastcpu_cid_word(ref);
	return **index_at;
}

static __attribute__((noinline)) void add_attaching(void *base, size_t stride,
						      enum fastcpu_index by, long value)
{
	if (fastcpu_percpu_add_body_(base, stride, by, (intptr_t)value, thread_index) != 0)
		__atomic_fetch_add(fastcpu_percpu_slot_(base, stride, fastcpu_upper_slot()),
				   (intptr_t)value, __ATOMIC_RELAXED);
}

/*
 * Whether the calling thread takes the upper half, where that is known
 * without a call: it attached, and reads no registered area, or one it
 * runs no sequences on (another owner's, with another signature). Else a
 * sequence may run, or the thread has not attached: the bodies decide.
 */
static inline bool upper_half_known(void)
{
	const volatile int *ref = fastcpu_cpu_id_ref;

	if (*ref >= 0)
		return fastcpu_thread.sequences == FASTCPU_SEQUENCES_NO;
	return ref != &fastcpu_cpu_unattached;
}

/* Its slot there, where that is known too; else -1. */
static inline long upper_slot_at_once(void)
{
	return upper_half_known() ? fastcpu_upper_slot_known() : -1;
}

/* The slot the inline operations change themselves (<fastcpu/plumbing.h>):
 * known at once, or asked of the fallback out of the way. */
static __attribute__((noinline)) long upper_slot_asking(void)
{
	return upper_half_known() ? (long)fastcpu_upper_slot() : -1;
}

FASTCPU_EXPORT __attribute__((aligned(64))) long fastcpu_percpu_upper_slot_out_of_line(void)
{
	long slot = upper_slot_at_once();

	return likely(slot >= 0) ? slot : upper_slot_asking();
}

/* A thread that takes the upper half adds atomically with no call while
 * its slot is known: less than an atomic add on the shard of a CPU it asks
 * for first. It starts a cache line, as entry.c's hot entries do. */
FASTCPU_EXPORT __attribute__((aligned(64))) void fastcpu_percpu_add_out_of_line(void *base, size_t stride,
						   enum fastcpu_index by, long value)
{
	long slot = upper_slot_at_once();

	if (likely(slot >= 0))
		__atomic_fetch_add(fastcpu_percpu_slot_(base, stride, (size_t)slot),
				   (intptr_t)value, __ATOMIC_RELAXED);
	else
		add_attaching(base, stride, by, value);
}

FASTCPU_EXPORT int fastcpu_percpu_cmpstore_out_of_line(void *base, size_t stride,
						       enum fastcpu_index by,
						       intptr_t expect, intptr_t newv,
						       intptr_t *seen)
{
	intptr_t found = expect;
	size_t upper;
	int r = fastcpu_percpu_cmpstore_body_(base, stride, by, expect, newv, &found, 1,
					       thread_index);

	if (r == FASTCPU_PERCPU_ELSEWHERE_) {
		upper = fastcpu_upper_slot();
		found = expect;
		if (__atomic_compare_exchange_n(fastcpu_percpu_slot_(base, stride, upper), &found,
						newv, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return (int)upper;
		r = -1;
	}
	if (r < 0 && seen != NULL)
		*seen = found;
	return r;
}

/*
 * The upper half's pop. Pops of one slot there take turns (lock.h): a pop
 * by compare-and-swap alone could take a node that another pop took and
 * pushed back meanwhile, with a stale next (ABA). The slot is the thread's
 * CPU's, and NULL says its list is empty. Where another thread holds that
 * slot's turn (preempted inside its few instructions), a node of another
 * CPU's slot will do, where one has any and its turn is free; else the pop
 * waits for the turn. A signal handler whose own thread holds a turn
 * takes another slot's node, or says NULL at once (lock.h: the order).
 */
static void *pop_in_turn(void *base, size_t stride, size_t next_offset, size_t cpu)
{
	intptr_t *slot = fastcpu_percpu_slot_(base, stride, (size_t)fastcpu_upper_index((int)cpu));
	intptr_t head = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	while (head != 0) {
		intptr_t next = *(intptr_t *)(void *)((char *)head + next_offset);

		if (__atomic_compare_exchange_n(slot, &head, next, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	fastcpu_lock_give(fastcpu_turn(cpu), FASTCPU_LOCK_INNER);
	return (void *)head;
}

static void *pop_upper(void *base, size_t stride, size_t next_offset)
{
	size_t n = (size_t)fastcpu_possible_cpus();
	size_t own = fastcpu_upper_cpu_of(fastcpu_upper_slot());
	enum fastcpu_lock_try r = fastcpu_lock_try(fastcpu_turn(own), FASTCPU_LOCK_INNER);
	void *node;

	if (r == FASTCPU_LOCK_TAKEN)
		return pop_in_turn(base, stride, next_offset, own);
	for (size_t k = 1; k < n; k++) {
		size_t other = (own + k) % n;

		if (fastcpu_lock_try(fastcpu_turn(other), FASTCPU_LOCK_INNER) == FASTCPU_LOCK_TAKEN &&
		    (node = pop_in_turn(base, stride, next_offset, other)) != NULL)
			return node;
	}
	if (r == FASTCPU_LOCK_HELD_HERE || !fastcpu_lock_take(fastcpu_turn(own), FASTCPU_LOCK_INNER))
		return NULL;
	return pop_in_turn(base, stride, next_offset, own);
}

FASTCPU_EXPORT void *fastcpu_percpu_pop_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by,
						    size_t next_offset)
{
	void *node;

	if (fastcpu_percpu_pop_body_(base, stride, by, next_offset, &node, thread_index) == 0)
		return node;
	return pop_upper(base, stride, next_offset);
}

FASTCPU_EXPORT int fastcpu_percpu_lock_out_of_line(void *base, size_t stride,
						   enum fastcpu_index by)
{
	for (unsigned int attempt = 0;; attempt++) {
		int slot = fastcpu_percpu_cmpstore_out_of_line(base, stride, by, 0, 1, NULL);

		if (slot >= 0) {
			fastcpu_percpu_slice_request_();
			return slot;
		}
		fastcpu_wait_for_holder(attempt);
	}
}

/* The counter tree's leaf add (counter-tree.c): the calling thread's path,
 * as every operation's here: its sequence, or the upper half's atomic add
 * (with no call while its slot is known, as fastcpu_percpu_add_out_of_line
 * adds); the slot's index, the value before in *old. */
static __attribute__((noinline)) int add_return_attaching(void *base, size_t stride,
							  enum fastcpu_index by, intptr_t value,
							  intptr_t *old)
{
	int slot = fastcpu_percpu_add_return_body_(base, stride, by, value, old, thread_index);

	if (slot != FASTCPU_PERCPU_ELSEWHERE_)
		return slot;
	slot = (int)fastcpu_upper_slot();
	*old = __atomic_fetch_add(fastcpu_percpu_slot_(base, stride, (size_t)slot), value,
				  __ATOMIC_RELAXED);
	return slot;
}

int fastcpu_percpu_add_return(void *base, size_t stride, enum fastcpu_index by, intptr_t value,
			      intptr_t *old)
{
	long slot = upper_slot_at_once();

	if (likely(slot >= 0)) {
		*old = __atomic_fetch_add(fastcpu_percpu_slot_(base, stride, (size_t)slot), value,
					  __ATOMIC_RELAXED);
		return (int)slot;
	}
	return add_return_attaching(base, stride, by, value, old);
}
