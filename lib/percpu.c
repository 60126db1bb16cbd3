/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu.c: the per-CPU operations out of line, and the counter. */

#include <stdlib.h>

#include "internal.h"

/*
 * The inline operations of <fastcpu.h> come here when the calling thread's
 * area is not where they look (its first call, no rseq, an area the
 * published offset does not reach) or the architecture has no sequences.
 * A thread with an area runs the same sequences on it; one without takes
 * the upper half with atomic instructions (the header says why that split
 * keeps every slot right).
 */

#ifdef FASTCPU_RSEQ_INLINE
# define HAVE_SEQUENCES 1
#else
/* No sequences for this architecture (or FASTCPU_PERCPU_OUT_OF_LINE): no
 * thread is given an index below, so these are never called. */
# define HAVE_SEQUENCES 0
static int fastcpu_rseq_add_(const volatile int *cpu_at, const volatile int *index_at,
			     int index, long *slot, long value)
{
	(void)cpu_at, (void)index_at, (void)index, (void)slot, (void)value;
	return -1;
}

static int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
				  const volatile int *index_at, int index,
				  intptr_t *slot, intptr_t expect, intptr_t newv,
				  intptr_t *seen)
{
	(void)cpu_at, (void)index_at, (void)index, (void)slot;
	(void)expect, (void)newv, (void)seen;
	return -1;
}

static int fastcpu_rseq_pop_(const volatile int *cpu_at, const volatile int *index_at,
			     int index, intptr_t *slot, size_t offset, intptr_t *seen)
{
	(void)cpu_at, (void)index_at, (void)index, (void)slot, (void)offset;
	(void)seen;
	return -1;
}
#endif

static intptr_t *slot_at(void *base, size_t stride, size_t index)
{
	return (intptr_t *)(void *)((char *)base + index * stride);
}

/* The calling thread's index where it runs the sequences, with its area and
 * index word; -1 where it takes the upper half. */
static int thread_index(enum fastcpu_index by, const volatile int **cpu_at,
			const volatile int **index_at)
{
	fastcpu_attach_calling_thread();
	*cpu_at = fastcpu_cpu_id_ref;
	if (!HAVE_SEQUENCES || **cpu_at < 0)
		return -1;
	*index_at = by == FASTCPU_BY_CPU ? *cpu_at : fastcpu_cid_word(*cpu_at);
	return **index_at;
}

/* Where a thread without an area goes: the upper half's slot of the CPU it
 * ran on when it asked (any slot there is right, the nearer the less
 * contended), that of CPU 0 where nothing can answer, errno kept then. The
 * thread has attached. */
static inline size_t upper_slot(void)
{
	size_t n = (size_t)fastcpu_possible_cpus();
	int cpu = fastcpu_fallback()->cpu_quiet();

	return n + ((size_t)cpu < n ? (size_t)cpu : 0);
}

/* A thread the fallback serves (attached: a marker, not an area) is the
 * case to make short: it gains no sequence, and pays for its CPU number. */
static inline bool served_by_fallback(void)
{
	return *fastcpu_cpu_id_ref == FASTCPU_CPU_NO_RSEQ;
}

static __attribute__((noinline)) void add_upper(void *base, size_t stride, long value)
{
	__atomic_fetch_add((long *)slot_at(base, stride, upper_slot()), value,
			   __ATOMIC_RELAXED);
}

static __attribute__((noinline)) void add_attaching(void *base, size_t stride,
						      enum fastcpu_index by, long value)
{
	const volatile int *cpu_at, *index_at;
	int index;

	while ((index = thread_index(by, &cpu_at, &index_at)) >= 0)
		if (fastcpu_rseq_add_(cpu_at, index_at, index,
				      (long *)slot_at(base, stride, (size_t)index), value) == 0)
			return;
	add_upper(base, stride, value);
}

FASTCPU_EXPORT void fastcpu_percpu_add_out_of_line(void *base, size_t stride,
						   enum fastcpu_index by, long value)
{
	if (likely(served_by_fallback()))
		add_upper(base, stride, value);
	else
		add_attaching(base, stride, by, value);
}

FASTCPU_EXPORT int fastcpu_percpu_cmpstore_out_of_line(void *base, size_t stride,
						       enum fastcpu_index by,
						       intptr_t expect, intptr_t newv,
						       intptr_t *seen)
{
	const volatile int *cpu_at, *index_at;
	intptr_t found;
	size_t upper;
	int index;

	while ((index = thread_index(by, &cpu_at, &index_at)) >= 0) {
		if (fastcpu_rseq_cmpstore_(cpu_at, index_at, index,
					   slot_at(base, stride, (size_t)index),
					   expect, newv, &found) != 0)
			continue;
		if (found == expect)
			return index;
		if (seen != NULL)
			*seen = found;
		return -1;
	}
	upper = upper_slot();
	found = expect;
	if (__atomic_compare_exchange_n(slot_at(base, stride, upper), &found, newv,
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return (int)upper;
	if (seen != NULL)
		*seen = found;
	return -1;
}

/*
 * A pop with compare-and-swap alone could take a node that another pop
 * took and pushed back meanwhile, with a stale next (ABA). Pops of one slot
 * of the upper half take turns, a word of this table each (slots may share
 * one: a wait no longer than another slot's pop; words, not bytes, because
 * riscv64 has no byte-sized atomic exchange); pushes need no turn. A pop
 * never waits for one: it tries the next slot, so a signal handler whose
 * thread was interrupted inside a pop cannot deadlock.
 */
static unsigned int pop_turn[64];

static unsigned int *turn_of(const intptr_t *slot)
{
	size_t turns = sizeof(pop_turn) / sizeof(pop_turn[0]);

	return &pop_turn[((uintptr_t)slot / sizeof(*slot)) % turns];
}

static void *pop_upper(void *base, size_t stride, size_t next_offset)
{
	size_t n = (size_t)fastcpu_possible_cpus(), first = upper_slot() - n;

	for (size_t k = 0; k < n; k++) {
		intptr_t *slot = slot_at(base, stride, n + (first + k) % n);
		unsigned int *turn = turn_of(slot);
		intptr_t head;

		if (__atomic_exchange_n(turn, 1, __ATOMIC_ACQUIRE))
			continue;
		head = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		while (head != 0) {
			intptr_t next = *(intptr_t *)(void *)((char *)head + next_offset);

			if (__atomic_compare_exchange_n(slot, &head, next, false,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				break;
		}
		__atomic_store_n(turn, 0, __ATOMIC_RELEASE);
		return (void *)head;
	}
	return NULL;
}

FASTCPU_EXPORT void *fastcpu_percpu_pop_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by,
						    size_t next_offset)
{
	const volatile int *cpu_at, *index_at;
	intptr_t head;
	int index;

	while ((index = thread_index(by, &cpu_at, &index_at)) >= 0)
		if (fastcpu_rseq_pop_(cpu_at, index_at, index,
				      slot_at(base, stride, (size_t)index), next_offset,
				      &head) == 0)
			return (void *)head;
	return pop_upper(base, stride, next_offset);
}

/* The counter's slots, aligned to their stride; the pointer calloc gave
 * sits just before the first. */
#define STRIDE FASTCPU_COUNTER_STRIDE_

FASTCPU_EXPORT struct fastcpu_counter *fastcpu_counter_new(void)
{
	size_t slots = (size_t)fastcpu_cid_limit();
	char *raw = calloc(slots + 1, STRIDE);
	uintptr_t base;

	if (raw == NULL)
		return NULL;
	base = ((uintptr_t)raw + sizeof(void *) + STRIDE - 1) & ~(uintptr_t)(STRIDE - 1);
	((void **)base)[-1] = raw;
	return (struct fastcpu_counter *)base;
}

FASTCPU_EXPORT long fastcpu_counter_sum(const struct fastcpu_counter *counter)
{
	size_t slots = (size_t)fastcpu_cid_limit();
	unsigned long sum = 0;

	for (size_t i = 0; i < slots; i++)
		sum += (unsigned long)__atomic_load_n(
			(const long *)(const void *)((const char *)counter + i * STRIDE),
			__ATOMIC_RELAXED);
	return (long)sum;
}

FASTCPU_EXPORT void fastcpu_counter_free(struct fastcpu_counter *counter)
{
	if (counter != NULL)
		free(((void **)counter)[-1]);
}
