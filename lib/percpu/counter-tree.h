/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/counter-tree.h: what the counter trees tell the wing's fork protocol. */

#ifndef FASTCPU_PERCPU_COUNTER_TREE_H
#define FASTCPU_PERCPU_COUNTER_TREE_H

#include <stdbool.h>

/* The list of trees held across a fork (fork.c); in the child, every tree
 * settled: its nodes and root made again from its leaves, as if the
 * carries its vanished adders had under way had landed. */
void fastcpu_counter_trees_before_fork(void);
void fastcpu_counter_trees_after_fork(bool child);

#endif /* FASTCPU_PERCPU_COUNTER_TREE_H */
