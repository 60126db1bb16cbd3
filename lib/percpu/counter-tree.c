/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/counter-tree.c: fastcpu_counter_tree_*: a counter read in O(1), within bounds. */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "counter-tree-shape.h"
#include "counter-tree.h"
#include "fork-lock.h"
#include "kernel.h"
#include "ops.h"
#include "private.h"
#include "wing.h"

/*
 * A tree (<fastcpu/counter-tree.h>; its arithmetic in
 * counter-tree-shape.c): its leaves are a counter (counter.c: a long in
 * every copy of per-CPU memory, 8 bytes a copy), so the sum is the
 * counter's. The tree itself is one allocation of cache lines: what the
 * adders and comparers read (line 0: the leaves, half the batch, the mask,
 * the bounds, the shape), the root (line 1, with the list of trees, which
 * only new and free change), then a line for each node. Over n possible
 * CPUs: 16 * n bytes of leaves and 64 * (2 + nodes), nodes n / 16 + n /
 * 256 + ... where n > 16: 160 bytes at 2 CPUs, 1,408 at 64, 5,248 at 256,
 * 20,864 at 1,024 (malloc's few bytes aside).
 */
struct fastcpu_counter_tree {
	struct fastcpu_counter_tree_fast_ fast;
	struct fastcpu_tree_shape shape;
	long root __attribute__((aligned(FASTCPU_TREE_LINE)));
	struct fastcpu_counter_tree *previous, *next;
	struct fastcpu_tree_node nodes[];
};

_Static_assert(offsetof(struct fastcpu_counter_tree, root) == FASTCPU_COUNTER_TREE_ROOT_OFFSET_,
	       "the root where <fastcpu/counter-tree.h> reads it");
_Static_assert(offsetof(struct fastcpu_counter_tree, root) == FASTCPU_TREE_LINE,
	       "what an adder reads in one line");

#define DEFAULT_BATCH 32

/*
 * Every tree, for a fork child: a thread of the parent may have been
 * between its leaf's add and the last of its carries, and the child has no
 * such thread to finish them, so its approximation would stay off by them
 * (and compare could answer from bounds that no longer hold). The child's
 * one thread settles each tree: every node and the root made again from
 * the leaves, as if every carry had landed.
 */
static struct {
	struct fastcpu_fork_lock lock;
	struct fastcpu_counter_tree *first;
} trees = { .lock = FASTCPU_FORK_LOCK_INIT };

static unsigned long batch_of(const struct fastcpu_counter_tree *tree)
{
	return tree->fast.mask + 1;
}

static struct fastcpu_tree_leaves leaves_of(const struct fastcpu_counter_tree *tree)
{
	return (struct fastcpu_tree_leaves){ tree->fast.leaves, FASTCPU_PERCPU_STRIDE };
}

void fastcpu_counter_trees_before_fork(void)
{
	fastcpu_fork_lock_before(&trees.lock);
}

void fastcpu_counter_trees_after_fork(bool child)
{
	for (struct fastcpu_counter_tree *t = trees.first; child && t != NULL; t = t->next)
		fastcpu_tree_settle(&t->shape, batch_of(t), leaves_of(t), t->nodes, &t->root);
	fastcpu_fork_lock_after(&trees.lock);
}

static void enlist(struct fastcpu_counter_tree *tree)
{
	bool taken = fastcpu_fork_lock_take(&trees.lock);

	tree->previous = NULL;
	tree->next = trees.first;
	if (trees.first != NULL)
		trees.first->previous = tree;
	trees.first = tree;
	fastcpu_fork_lock_give(&trees.lock, taken);
}

static void delist(struct fastcpu_counter_tree *tree)
{
	bool taken = fastcpu_fork_lock_take(&trees.lock);

	if (tree->previous != NULL)
		tree->previous->next = tree->next;
	else
		trees.first = tree->next;
	if (tree->next != NULL)
		tree->next->previous = tree->previous;
	fastcpu_fork_lock_give(&trees.lock, taken);
}

FASTCPU_EXPORT struct fastcpu_counter_tree *fastcpu_counter_tree_new_layout_(unsigned long batch,
									 unsigned int layout)
{
	struct fastcpu_tree_shape shape;
	struct fastcpu_counter_tree *tree;
	size_t bytes;

	fastcpu_tree_shape(&shape, (unsigned int)fastcpu_possible_cpus());
	if (batch == 0)
		batch = DEFAULT_BATCH;
	if (layout != FASTCPU_COUNTER_TREE_LAYOUT_ || !fastcpu_tree_batch_valid(&shape, batch)) {
		errno = EINVAL;
		return NULL;
	}
	bytes = sizeof(*tree) + fastcpu_tree_nodes(&shape) * sizeof(tree->nodes[0]);
	tree = aligned_alloc(FASTCPU_TREE_LINE, bytes);
	if (tree == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(tree, 0, bytes);
	tree->fast.leaves = fastcpu_counter_new();
	if (tree->fast.leaves == NULL) {
		free(tree);
		return NULL;		/* ENOMEM */
	}
	tree->fast.half = batch / 2;
	tree->fast.mask = batch - 1;
	tree->shape = shape;
	fastcpu_tree_bounds(&shape, batch, &tree->fast.under, &tree->fast.over);
	enlist(tree);
	return tree;
}

FASTCPU_EXPORT struct fastcpu_counter_tree *(fastcpu_counter_tree_new)(unsigned long batch)
{
	return fastcpu_counter_tree_new_layout_(batch, FASTCPU_COUNTER_TREE_LAYOUT_);
}

static void carry(struct fastcpu_counter_tree *tree, int index, long old, long value)
{
	fastcpu_tree_carry_up(&tree->shape, batch_of(tree), tree->nodes, &tree->root,
			      (unsigned int)index % tree->shape.cpus,
			      fastcpu_tree_carry((unsigned long)old, (unsigned long)value,
						 batch_of(tree)));
}

FASTCPU_EXPORT void fastcpu_counter_tree_carry_(struct fastcpu_counter_tree *tree, int index,
						long old, long value)
{
	carry(tree, index, old, value);
}

/* The inline add's out-of-line form: the thread's leaf by its path
 * (ops.c), then the same carry. */
FASTCPU_EXPORT void (fastcpu_counter_tree_add)(struct fastcpu_counter_tree *tree, long value)
{
	intptr_t old;
	int index = fastcpu_percpu_add_return(tree->fast.leaves, FASTCPU_PERCPU_STRIDE,
					      FASTCPU_BY_CPU, (intptr_t)value, &old);

	if (unlikely(fastcpu_counter_tree_crosses_((unsigned long)old, (unsigned long)value,
						   tree->fast.half, tree->fast.mask)))
		carry(tree, index, (long)old, value);
}

FASTCPU_EXPORT long (fastcpu_counter_tree_approx)(const struct fastcpu_counter_tree *tree)
{
	return __atomic_load_n(&tree->root, __ATOMIC_RELAXED);
}

FASTCPU_EXPORT void fastcpu_counter_tree_bounds(const struct fastcpu_counter_tree *tree,
						unsigned long *under, unsigned long *over)
{
	if (under != NULL)
		*under = tree->fast.under;
	if (over != NULL)
		*over = tree->fast.over;
}

FASTCPU_EXPORT long fastcpu_counter_tree_sum(const struct fastcpu_counter_tree *tree)
{
	return fastcpu_counter_sum(tree->fast.leaves);
}

FASTCPU_EXPORT int (fastcpu_counter_tree_compare)(const struct fastcpu_counter_tree *tree,
						  long value)
{
	int r = fastcpu_counter_tree_by_root_(__atomic_load_n(&tree->root, __ATOMIC_RELAXED),
					      tree->fast.under, tree->fast.over, value);
	long sum;

	if (r != 0)
		return r;
	sum = fastcpu_counter_tree_sum(tree);
	return (sum > value) - (sum < value);
}

FASTCPU_EXPORT void fastcpu_counter_tree_free(struct fastcpu_counter_tree *tree)
{
	if (tree == NULL)
		return;
	delist(tree);
	fastcpu_counter_free(tree->fast.leaves);
	free(tree);
}

FASTCPU_EXPORT bool fastcpu_private_counter_tree_settled(const struct fastcpu_counter_tree *tree)
{
	return fastcpu_tree_settled(&tree->shape, batch_of(tree), leaves_of(tree), tree->nodes,
				    __atomic_load_n(&tree->root, __ATOMIC_RELAXED));
}
