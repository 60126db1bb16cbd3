/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/fork.c: the wing's fork protocol: one, registered at load. */

#include <pthread.h>

#include "counter-tree.h"
#include "lock.h"
#include "memory.h"
#include "objcache-front.h"

/*
 * A fork child has the memory of every thread but only the thread that
 * forked. So:
 * - what changes by many stores, the forking thread holds across the fork,
 *   so that no other thread is halfway through it: the heap of per-CPU
 *   memory (memory.c), the list of counter trees (counter-tree.c), the
 *   list of fronts (objcache-front.c), in that order (no two are held
 *   together otherwise);
 * - what is whole at every store (the turns, the upper half's indexes, the
 *   depot's stacks) is not held: in the child, a lock a vanished thread
 *   held reads free (lock.c), and its change, half done, is not there;
 * - in the child, the fronts of the threads it does not have go back to
 *   their caches, once those locks read free, and every counter tree is
 *   settled from its leaves (the carries its vanished adders had under way
 *   land).
 * Registered at load: before any fork handler that uses the wing can be (a
 * library that uses it is set up after this one), so that in a child, the
 * locks read right and the heap and the list are free before such a
 * handler runs (a fork's child handlers run in the order they were
 * registered, its prepare handlers in the reverse).
 */
static void before(void)
{
	fastcpu_percpu_memory_before_fork();
	fastcpu_counter_trees_before_fork();
	fastcpu_fronts_before_fork();
}

static void after(bool child)
{
	if (child)
		fastcpu_lock_after_fork_child();
	fastcpu_fronts_after_fork(child);
	fastcpu_counter_trees_after_fork(child);
	fastcpu_percpu_memory_after_fork();
}

static void in_parent(void)
{
	after(false);
}

static void in_child(void)
{
	after(true);
}

__attribute__((constructor)) static void at_load(void)
{
	(void)pthread_atfork(before, in_parent, in_child);
}
