/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/counter-tree.h: the counter tree, read in O(1) (fastcpu_counter_tree(3)). */

#ifndef FASTCPU_COUNTER_TREE_H
#define FASTCPU_COUNTER_TREE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "fastcpu/percpu-alloc.h"
#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A counter tree (FASTCPU_1.4): a counter whose approximate value is one
 * load, within bounds fixed when it is made, and whose comparison with a
 * value reads every CPU's part only where the approximation cannot tell.
 *
 * Each CPU index has a leaf in per-CPU memory (fastcpu_percpu_alloc(3)),
 * the thread's CPU's in the lower half where it runs sequences, in the
 * upper half where it does not; the add is one restartable sequence that
 * adds and returns the leaf's value before (an atomic add in the upper
 * half). A leaf whose value crosses a multiple of batch (centred: the
 * multiples lie at k * batch + batch / 2) carries what it crossed, by
 * atomic adds, to a node shared by 16 CPUs, whose multiples lie 16 times
 * farther apart, and so on up to the root, the approximation. Settled (no
 * add in flight), sum - under <= approx <= sum + over, under and over from
 * the tree's shape: at 64, 256 and 1,024 possible CPUs with batch 32, at
 * most 3,072, 12,288 and 65,536 each way.
 *
 * new(batch): batch a power of two from 2 to FASTCPU_COUNTER_TREE_MAX_
 * BATCH (0: 32); NULL with errno EINVAL (another batch) or ENOMEM.
 * add: thread-safe and async-signal-safe, relaxed (orders nothing else).
 * approx: the root, one load. bounds: under and over (either pointer may be
 * NULL). sum: every leaf; exact once no add is in flight. compare: -1, 0 or
 * 1 as sum() is below, equal to or above value; exact whenever sum() is,
 * and reads the leaves only where value lies within the bounds of the
 * approximation (elsewhere inline: a load and no call). While adds are in flight the approximation may lie beyond
 * the bounds by what they carry, as the kernel's percpu_counter_tree's
 * does. free: NULL is ignored. new and free are thread-safe, not
 * async-signal-safe; free must not run while another call uses its tree.
 * A fork child gets every tree settled (the carries other threads had in
 * flight at the fork land); a vfork child must not add.
 */
struct fastcpu_counter_tree;

#define FASTCPU_COUNTER_TREE_MAX_BATCH (1UL << (4 * sizeof(long)))

FASTCPU_VISIBLE struct fastcpu_counter_tree *fastcpu_counter_tree_new(unsigned long batch);
FASTCPU_VISIBLE void fastcpu_counter_tree_add(struct fastcpu_counter_tree *tree, long value);
FASTCPU_VISIBLE long fastcpu_counter_tree_approx(const struct fastcpu_counter_tree *tree);
FASTCPU_VISIBLE void fastcpu_counter_tree_bounds(const struct fastcpu_counter_tree *tree,
						 unsigned long *under, unsigned long *over);
FASTCPU_VISIBLE long fastcpu_counter_tree_sum(const struct fastcpu_counter_tree *tree);
FASTCPU_VISIBLE int fastcpu_counter_tree_compare(const struct fastcpu_counter_tree *tree,
						 long value);
FASTCPU_VISIBLE void fastcpu_counter_tree_free(struct fastcpu_counter_tree *tree);

/*
 * Not an API: what the inline add, approx and compare read, the first
 * words of every tree a program made with this header (layout
 * FASTCPU_COUNTER_TREE_LAYOUT_, which new passes: a library that does not
 * know the layout makes no tree, EINVAL, rather than one the program
 * misreads); the root lies FASTCPU_COUNTER_TREE_ROOT_OFFSET_ bytes from
 * the tree, on a cache line of its own.
 */
#define FASTCPU_COUNTER_TREE_LAYOUT_ 2
#define FASTCPU_COUNTER_TREE_ROOT_OFFSET_ 64

struct fastcpu_counter_tree_fast_ {
	void *leaves;			/* per-CPU memory: copy i, index i's leaf */
	unsigned long half;		/* the leaves' batch / 2 */
	unsigned long mask;		/* the leaves' batch - 1 */
	unsigned long under, over;	/* the bounds */
};

FASTCPU_VISIBLE struct fastcpu_counter_tree *fastcpu_counter_tree_new_layout_(unsigned long batch,
									  unsigned int layout);
#define fastcpu_counter_tree_new(batch) \
	fastcpu_counter_tree_new_layout_((batch), FASTCPU_COUNTER_TREE_LAYOUT_)

/* Carries from leaf index, whose value was old before value was added:
 * the add's slow path (FASTCPU_1.4). */
FASTCPU_VISIBLE void fastcpu_counter_tree_carry_(struct fastcpu_counter_tree *tree, int index,
						 long old, long value);

/*
 * The carry arithmetic, one definition for the inline add and the library:
 * a word at batch (a leaf's, or a node's at its level's batch) has passed
 * up high(word), its value rounded to a multiple of batch, and keeps the
 * rest, from -(batch / 2 - 1) to batch / 2: the multiples are centred, so
 * that a tree near zero is exact, and what every word keeps lies on
 * either side of the sum. An add carries high(old + value) - high(old),
 * where the two differ: where old and old + value, moved by the centre,
 * differ in a bit of batch or above. Unsigned: words wrap round as longs
 * do.
 */
static inline unsigned long fastcpu_counter_tree_centre_(unsigned long batch)
{
	return batch / 2 - 1;
}

static inline unsigned long fastcpu_counter_tree_high_(unsigned long word, unsigned long batch)
{
	return (word + fastcpu_counter_tree_centre_(batch)) & -batch;
}

/*
 * By a constant 1 or -1, one test of the word after, moved by the centre
 * (half - 1): it is a multiple. In general both sums from old, side by
 * side: the test waits on old's load by one add (where the sum after came
 * from the one before, it waited by two, and a loop of adds to one leaf
 * paid 0.2 to 0.3 ns an add); the empty asm keeps the compiler from making
 * one from the other.
 */
static inline int fastcpu_counter_tree_crosses_(unsigned long old, unsigned long value,
						unsigned long half, unsigned long mask)
{
	unsigned long ahead = half - 1 + value;

	if (__builtin_constant_p(value) && value == 1)
		return ((old + half) & mask) == 0;
	if (__builtin_constant_p(value) && value == -1UL)
		return ((old + half - 1) & mask) == 0;
	__asm__("" : "+r"(ahead));
	return ((old + half - 1) ^ (old + ahead)) > mask;
}

/* A word of the tree's first that never changes while the tree lives,
 * loaded as the published offsets are (<fastcpu/plumbing.h>): the compiler
 * may keep it, out of a loop of adds to one tree. */
static inline uintptr_t fastcpu_counter_tree_fixed_(const void *word)
{
#ifdef FASTCPU_INVARIANT_LOAD_
	uintptr_t value;

	FASTCPU_INVARIANT_LOAD_(value, word);
	return value;
#else
	return *(const uintptr_t *)word;
#endif
}

/* Always in line: GCC 12 took a loop of four adds for too big to inline,
 * and called a copy, 3.5x fastcpu_counter_add's cost. */
static inline __attribute__((__always_inline__)) void
fastcpu_counter_tree_add_inline_(struct fastcpu_counter_tree *tree, long value)
{
	const struct fastcpu_counter_tree_fast_ *fast =
		(const struct fastcpu_counter_tree_fast_ *)(const void *)tree;
	void *leaves = (void *)fastcpu_counter_tree_fixed_(&fast->leaves);
	unsigned long half = (unsigned long)fastcpu_counter_tree_fixed_(&fast->half);
	unsigned long mask = (unsigned long)fastcpu_counter_tree_fixed_(&fast->mask);
	intptr_t old = 0;
	long upper;
	int index = fastcpu_percpu_add_return_body_(leaves, FASTCPU_PERCPU_STRIDE, FASTCPU_BY_CPU,
						    (intptr_t)value, &old, fastcpu_percpu_index_);

	if (__builtin_expect(index == FASTCPU_PERCPU_ELSEWHERE_, 0)) {
		upper = fastcpu_percpu_upper_index_();
		if (upper < 0) {
			(fastcpu_counter_tree_add)(tree, value);
			return;
		}
		index = (int)upper;
		old = __atomic_fetch_add(fastcpu_percpu_slot_(leaves, FASTCPU_PERCPU_STRIDE,
							      (size_t)upper),
					 (intptr_t)value, __ATOMIC_RELAXED);
	}
	if (__builtin_expect(fastcpu_counter_tree_crosses_((unsigned long)old, (unsigned long)value,
							   half, mask), 0))
		fastcpu_counter_tree_carry_(tree, index, (long)old, value);
}

static inline long fastcpu_counter_tree_approx_inline_(const struct fastcpu_counter_tree *tree)
{
	return __atomic_load_n((const long *)(const void *)
			       ((const char *)tree + FASTCPU_COUNTER_TREE_ROOT_OFFSET_),
			       __ATOMIC_RELAXED);
}

/* The sum against value from the root alone, the sum within [root - over,
 * root + under] (a long's, where that band wraps round neither end): 1
 * (the sum is above value), -1 (below), or 0 where value lies within the
 * band and only the sum can tell. */
static inline int fastcpu_counter_tree_by_root_(long root, unsigned long under,
						unsigned long over, long value)
{
	if (over > (unsigned long)root - (unsigned long)LONG_MIN ||
	    under > (unsigned long)LONG_MAX - (unsigned long)root)
		return 0;
	if (value < (long)((unsigned long)root - over))
		return 1;
	if (value > (long)((unsigned long)root + under))
		return -1;
	return 0;
}

/* Far from the sum, a load of the root and no call. */
static inline int fastcpu_counter_tree_compare_inline_(const struct fastcpu_counter_tree *tree,
						       long value)
{
	const struct fastcpu_counter_tree_fast_ *fast =
		(const struct fastcpu_counter_tree_fast_ *)(const void *)tree;
	int r = fastcpu_counter_tree_by_root_(fastcpu_counter_tree_approx_inline_(tree),
					      (unsigned long)fastcpu_counter_tree_fixed_(&fast->under),
					      (unsigned long)fastcpu_counter_tree_fixed_(&fast->over),
					      value);

	return r != 0 ? r : (fastcpu_counter_tree_compare)(tree, value);
}

#define fastcpu_counter_tree_add(tree, value) fastcpu_counter_tree_add_inline_((tree), (value))
#define fastcpu_counter_tree_approx(tree) fastcpu_counter_tree_approx_inline_(tree)
#define fastcpu_counter_tree_compare(tree, value) \
	fastcpu_counter_tree_compare_inline_((tree), (value))

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_COUNTER_TREE_H */
