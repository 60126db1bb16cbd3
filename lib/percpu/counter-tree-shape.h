/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/counter-tree-shape.h: the counter tree's shape and carries, as arithmetic. */

#ifndef FASTCPU_PERCPU_COUNTER_TREE_SHAPE_H
#define FASTCPU_PERCPU_COUNTER_TREE_SHAPE_H

#include <stddef.h>

#include "internal.h"

/*
 * A tree over n CPUs: 2n leaves (CPU c's at index c, the lower half, and
 * n + c, the upper half), inner levels of nodes each shared by FAN of the
 * level below (level 1: FAN CPUs, both leaves of each), and the root. A
 * level of one node is the root itself: up to FAN CPUs the leaves carry to
 * the root directly. Level l carries at batch << (FAN_ORDER * l): a node
 * holds, as the words of a level above, FAN times what one of its children
 * may, so each level passes up about as often as one leaf (the kernel's
 * percpu_counter_tree scales its levels the same way). Every word is a
 * long, changed by atomic adds (the leaves: sequences or atomic adds); a
 * node has a cache line of its own, as carries from FAN CPUs meet there.
 * Pure arithmetic over arrays, for the library (counter-tree.c) and the
 * tests' model alike: nothing here knows per-CPU memory.
 */
#define FASTCPU_TREE_FAN_ORDER 4
#define FASTCPU_TREE_FAN (1u << FASTCPU_TREE_FAN_ORDER)
#define FASTCPU_TREE_LEVELS_MOST 4		/* inner levels: up to FAN^5 CPUs */
#define FASTCPU_TREE_CPUS_MOST (1u << (FASTCPU_TREE_FAN_ORDER * (FASTCPU_TREE_LEVELS_MOST + 1)))
#define FASTCPU_TREE_LINE 64

struct fastcpu_tree_shape {
	unsigned int cpus;				/* 1 to FASTCPU_TREE_CPUS_MOST */
	unsigned int levels;				/* inner, below the root */
	unsigned int count[FASTCPU_TREE_LEVELS_MOST];	/* nodes of levels 1 and up */
};

struct fastcpu_tree_node {
	long word;
} __attribute__((aligned(FASTCPU_TREE_LINE)));

/* The shape over cpus CPUs (1 to FASTCPU_TREE_CPUS_MOST), and its inner
 * nodes in all (level 1's first, then level 2's ...). */
void fastcpu_tree_shape(struct fastcpu_tree_shape *shape, unsigned int cpus);
size_t fastcpu_tree_nodes(const struct fastcpu_tree_shape *shape);

/* Level level's batch (0: the leaves', batch). */
static inline unsigned long fastcpu_tree_batch(unsigned long batch, unsigned int level)
{
	return batch << (FASTCPU_TREE_FAN_ORDER * level);
}

/* What a word at batch carries when value is added to old. */
static inline unsigned long fastcpu_tree_carry(unsigned long old, unsigned long value,
					       unsigned long batch)
{
	return fastcpu_counter_tree_high_(old + value, batch) -
	       fastcpu_counter_tree_high_(old, batch);
}

/* Whether the leaves' batch suits shape: a power of two from 2 to
 * FASTCPU_COUNTER_TREE_MAX_BATCH (which suits every shape of up to
 * FASTCPU_MAX_CPUS CPUs), whose top level's batch and bounds fit a long. */
bool fastcpu_tree_batch_valid(const struct fastcpu_tree_shape *shape, unsigned long batch);

/* How far the root may lie from the sum of the leaves, settled: sum -
 * under <= root <= sum + over. */
void fastcpu_tree_bounds(const struct fastcpu_tree_shape *shape, unsigned long batch,
			 unsigned long *under, unsigned long *over);

/* Adds carry, from a leaf of cpu, to its node of level 1 and on up while
 * a level carries, the rest to the root. */
void fastcpu_tree_carry_up(const struct fastcpu_tree_shape *shape, unsigned long batch,
			   struct fastcpu_tree_node *nodes, long *root, unsigned int cpu,
			   unsigned long carry);

/* The leaves, leaf i at leaves + i * stride. */
struct fastcpu_tree_leaves {
	const char *at;
	size_t stride;
};

/* Every node and the root as the leaves make them when every carry has
 * landed: for a process with one thread (a fork child, whose other
 * threads' carries in flight would otherwise never land). */
void fastcpu_tree_settle(const struct fastcpu_tree_shape *shape, unsigned long batch,
			 struct fastcpu_tree_leaves leaves, struct fastcpu_tree_node *nodes,
			 long *root);

/* Whether the tree is settled: every word within its range (a node's a
 * multiple of the batch beneath), and the root plus what each word keeps
 * is the leaves' sum (wrapping round as longs do). While adds are in
 * flight it may not be. */
bool fastcpu_tree_settled(const struct fastcpu_tree_shape *shape, unsigned long batch,
			  struct fastcpu_tree_leaves leaves, const struct fastcpu_tree_node *nodes,
			  long root);

#endif /* FASTCPU_PERCPU_COUNTER_TREE_SHAPE_H */
