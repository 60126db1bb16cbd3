/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/counter-tree-shape.c: the counter tree's shape and carries, as arithmetic. */

#include <limits.h>

#include "counter-tree-shape.h"

/*
 * Why FAN is 16: a node's carries come from FAN children, so FAN sets how
 * many CPUs meet on a node's line, and a level costs its nodes' lines and
 * widens the bounds by about half what the leaves do (a node keeps up to
 * half its batch, FAN CPUs' leaves' batches; the leaves are two a CPU).
 * 16 keeps a tree over 256 CPUs (512 leaves, 4 KiB) within 6 KiB with one
 * level of 16 nodes, and its bounds within two thirds of the kernel's
 * percpu_counter_tree's at every count of CPUs from 3 to 2^20 (half at 64,
 * 256 and 1,024; the same at 2): the kernel's tree has a level for every
 * factor of 2 to 16 of the CPUs, one leaf a CPU, and counts each leaf's
 * whole batch where this one counts half.
 */
void fastcpu_tree_shape(struct fastcpu_tree_shape *shape, unsigned int cpus)
{
	unsigned int groups = cpus;

	shape->cpus = cpus;
	shape->levels = 0;
	while (groups > FASTCPU_TREE_FAN && shape->levels < FASTCPU_TREE_LEVELS_MOST) {
		groups = (groups + FASTCPU_TREE_FAN - 1) / FASTCPU_TREE_FAN;
		shape->count[shape->levels++] = groups;
	}
	for (unsigned int level = shape->levels; level < FASTCPU_TREE_LEVELS_MOST; level++)
		shape->count[level] = 0;
}

size_t fastcpu_tree_nodes(const struct fastcpu_tree_shape *shape)
{
	size_t nodes = 0;

	for (unsigned int level = 0; level < shape->levels; level++)
		nodes += shape->count[level];
	return nodes;
}

/* What a word of level keeps at most above what it passed up, and below
 * (a node's word is a multiple of the batch of the level beneath). */
static unsigned long kept_above(unsigned long batch, unsigned int level)
{
	return fastcpu_tree_batch(batch, level) / 2;
}

static unsigned long kept_below(unsigned long batch, unsigned int level)
{
	return fastcpu_tree_batch(batch, level) / 2 -
	       (level == 0 ? 1 : fastcpu_tree_batch(batch, level - 1));
}

/* Words of level: 2 a CPU for the leaves. */
static unsigned long words(const struct fastcpu_tree_shape *shape, unsigned int level)
{
	return level == 0 ? 2ul * shape->cpus : shape->count[level - 1];
}

/* The bounds, false where they overflow. */
static bool add_bounds(const struct fastcpu_tree_shape *shape, unsigned long batch,
		       unsigned long *under, unsigned long *over)
{
	unsigned long u = 0, o = 0, a, b;

	for (unsigned int level = 0; level <= shape->levels; level++)
		if (__builtin_mul_overflow(words(shape, level), kept_above(batch, level), &a) ||
		    __builtin_mul_overflow(words(shape, level), kept_below(batch, level), &b) ||
		    __builtin_add_overflow(u, a, &u) || __builtin_add_overflow(o, b, &o))
			return false;
	*under = u;
	*over = o;
	return true;
}

bool fastcpu_tree_batch_valid(const struct fastcpu_tree_shape *shape, unsigned long batch)
{
	unsigned long under, over;

	return batch >= 2 && (batch & (batch - 1)) == 0 &&
	       batch <= FASTCPU_COUNTER_TREE_MAX_BATCH &&
	       fastcpu_tree_batch(batch, shape->levels) >>
	       (FASTCPU_TREE_FAN_ORDER * shape->levels) == batch &&
	       fastcpu_tree_batch(batch, shape->levels) <= LONG_MAX &&
	       add_bounds(shape, batch, &under, &over) && under <= LONG_MAX && over <= LONG_MAX;
}

void fastcpu_tree_bounds(const struct fastcpu_tree_shape *shape, unsigned long batch,
			 unsigned long *under, unsigned long *over)
{
	if (!add_bounds(shape, batch, under, over))
		*under = *over = ULONG_MAX;
}

void fastcpu_tree_carry_up(const struct fastcpu_tree_shape *shape, unsigned long batch,
			   struct fastcpu_tree_node *nodes, long *root, unsigned int cpu,
			   unsigned long carry)
{
	struct fastcpu_tree_node *node = nodes;	/* level 1's first, then each next's */

	for (unsigned int level = 1; level <= shape->levels; level++) {
		unsigned long old;

		node += cpu >> (FASTCPU_TREE_FAN_ORDER * level);	/* the one over cpu */
		old = __atomic_fetch_add((unsigned long *)(void *)&node->word, carry,
					 __ATOMIC_RELAXED);
		carry = fastcpu_tree_carry(old, carry, fastcpu_tree_batch(batch, level));
		if (carry == 0)
			return;
		node += shape->count[level - 1] - (cpu >> (FASTCPU_TREE_FAN_ORDER * level));
	}
	__atomic_fetch_add((unsigned long *)(void *)root, carry, __ATOMIC_RELAXED);
}

static unsigned long leaf(struct fastcpu_tree_leaves leaves, size_t i)
{
	return __atomic_load_n((const unsigned long *)(const void *)(leaves.at + i * leaves.stride),
			       __ATOMIC_RELAXED);
}

void fastcpu_tree_settle(const struct fastcpu_tree_shape *shape, unsigned long batch,
			 struct fastcpu_tree_leaves leaves, struct fastcpu_tree_node *nodes,
			 long *root)
{
	size_t all = fastcpu_tree_nodes(shape);

	for (size_t k = 0; k < all; k++)
		nodes[k].word = 0;
	*root = 0;
	/* Carries land in any order and add up the same: each leaf's whole. */
	for (size_t i = 0; i < 2 * (size_t)shape->cpus; i++) {
		unsigned long passed = fastcpu_counter_tree_high_(leaf(leaves, i), batch);

		if (passed != 0)
			fastcpu_tree_carry_up(shape, batch, nodes, root,
					      (unsigned int)(i % shape->cpus), passed);
	}
}

/* What word of level keeps, where a word of that level may keep it; false
 * where it may not. */
static bool kept(unsigned long word, unsigned long batch, unsigned int level, unsigned long *sum)
{
	long k = (long)(word - fastcpu_counter_tree_high_(word, fastcpu_tree_batch(batch, level)));

	*sum += (unsigned long)k;
	return k <= (long)kept_above(batch, level) && -k <= (long)kept_below(batch, level) &&
	       (level == 0 || word % fastcpu_tree_batch(batch, level - 1) == 0);
}

bool fastcpu_tree_settled(const struct fastcpu_tree_shape *shape, unsigned long batch,
			  struct fastcpu_tree_leaves leaves, const struct fastcpu_tree_node *nodes,
			  long root)
{
	unsigned long sum = 0, keeps = 0;
	bool whole = true;
	size_t k = 0;

	for (size_t i = 0; i < 2 * (size_t)shape->cpus; i++) {
		sum += leaf(leaves, i);
		whole &= kept(leaf(leaves, i), batch, 0, &keeps);
	}
	for (unsigned int level = 1; level <= shape->levels; level++)
		for (unsigned int n = 0; n < shape->count[level - 1]; n++, k++)
			whole &= kept((unsigned long)__atomic_load_n(&nodes[k].word, __ATOMIC_RELAXED),
				      batch, level, &keeps);
	return whole && (unsigned long)root + keeps == sum;
}
