/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/percpu/percpu-ops-probe.c: every per-CPU operation of <fastcpu.h>, by CPU
 * and by concurrency id, and the counter tree's, once, in one thread: what
 * header-builds.sh compiles at each optimisation level and code model, where
 * a sequence's register needs meet what the compiler can give. */

#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fastcpu.h"

struct node {
	int value;
	struct node *next;
};

static int fails;

static void expect(int ok, const char *what, enum fastcpu_index by)
{
	if (!ok) {
		printf("percpu-ops-probe: %s wrong (by %s)\n", what,
		       by == FASTCPU_BY_CPU ? "CPU" : "cid");
		fails++;
	}
}

#if INTPTR_MAX > 0x7fffffff
/* The shape that once failed to assemble (gcc: "operand type mismatch for
 * cmp"; clang: "invalid operand"): a 64-bit constant, nothing else. */
static __attribute__((noinline, flatten)) int cmpstore_constant(void *base)
{
	return fastcpu_percpu_cmpstore(base, 64, FASTCPU_BY_CPU, (intptr_t)0x100000000, 0, NULL);
}
#endif

static void each_operation(enum fastcpu_index by)
{
	size_t n = (size_t)fastcpu_cid_limit(), stride = 64;
	char *slots = aligned_alloc(64, n * stride);
	struct node a = { 1, NULL }, b = { 2, NULL };
	intptr_t seen = 0, sum = 0;
	int slot;

	if (slots == NULL)
		abort();
	for (size_t i = 0; i < n * stride; i++)
		slots[i] = 0;
	fastcpu_percpu_add(slots, stride, by, 5);
	fastcpu_percpu_add(slots, stride, by, -2);
	for (size_t i = 0; i < n; i++)
		sum += *(intptr_t *)(void *)(slots + i * stride);
	expect(sum == 3, "add", by);
	for (size_t i = 0; i < n * stride; i++)
		slots[i] = 0;
	slot = fastcpu_percpu_lock(slots, stride, by);
	expect(slot >= 0 && *(intptr_t *)(void *)(slots + (size_t)slot * stride) == 1, "lock", by);
	fastcpu_percpu_unlock(slots, stride, slot);
	expect(*(intptr_t *)(void *)(slots + (size_t)slot * stride) == 0, "unlock", by);
	expect(fastcpu_percpu_cmpstore(slots, stride, by, 7, 8, &seen) < 0 && seen == 0,
	       "cmpstore, mismatch", by);
#if INTPTR_MAX > 0x7fffffff
	/* Constants no instruction takes as an immediate (a tagged word, a
	 * sentinel): the compiler must give them a register. */
	expect(fastcpu_percpu_cmpstore(slots, stride, by, (intptr_t)0x100000000, 0, &seen) < 0 &&
	       seen == 0, "cmpstore, 64-bit expect", by);
	if (stride == 64)
		expect(cmpstore_constant(slots) < 0, "cmpstore, 64-bit expect", by);
	slot = fastcpu_percpu_cmpstore(slots, stride, by, 0, (intptr_t)0xffffffff, NULL);
	expect(slot >= 0 && *(intptr_t *)(void *)(slots + (size_t)slot * stride) == 0xffffffff,
	       "cmpstore, 64-bit new value", by);
	expect(fastcpu_percpu_cmpstore(slots, stride, by, (intptr_t)0xffffffff, 0, NULL) == slot,
	       "cmpstore, 64-bit expect", by);
	fastcpu_percpu_add(slots, stride, by, 0x100000000L);
	fastcpu_percpu_add(slots, stride, by, -0x100000000L);
	expect(*(intptr_t *)(void *)(slots + (size_t)slot * stride) == 0, "add, 64-bit value", by);
#endif
	fastcpu_percpu_push(slots, stride, by, &a, offsetof(struct node, next));
	fastcpu_percpu_push(slots, stride, by, &b, offsetof(struct node, next));
	/* One thread that did not move pops what it pushed, last first. */
	expect(fastcpu_percpu_pop(slots, stride, by, offsetof(struct node, next)) == &b,
	       "pop", by);
	expect(fastcpu_percpu_pop(slots, stride, by, offsetof(struct node, next)) == &a,
	       "pop", by);
	expect(fastcpu_percpu_pop(slots, stride, by, offsetof(struct node, next)) == NULL,
	       "pop, empty", by);
	free(slots);
}

/* The counter tree's inline add and approx, each batch's carries. */
static void tree_operations(unsigned long batch)
{
	struct fastcpu_counter_tree *tree = fastcpu_counter_tree_new(batch);
	unsigned long under, over;
	long sum = 0, approx;

	if (tree == NULL)
		abort();
	for (long i = 0; i < 1000; i++) {
		fastcpu_counter_tree_add(tree, i % 7 - 3);
		sum += i % 7 - 3;
	}
#if LONG_MAX > 0x7fffffff
	fastcpu_counter_tree_add(tree, 0x100000000L);
	fastcpu_counter_tree_add(tree, -0x100000000L);
#endif
	fastcpu_counter_tree_add(tree, LONG_MAX);
	fastcpu_counter_tree_add(tree, -LONG_MAX);
	expect(fastcpu_counter_tree_sum(tree) == sum, "counter tree sum", FASTCPU_BY_CPU);
	expect(fastcpu_counter_tree_compare(tree, sum) == 0, "counter tree compare", FASTCPU_BY_CPU);
	expect(fastcpu_counter_tree_compare(tree, LONG_MIN) == 1, "counter tree compare",
	       FASTCPU_BY_CPU);
	fastcpu_counter_tree_bounds(tree, &under, &over);
	approx = fastcpu_counter_tree_approx(tree);
	expect(sum - approx <= (long)under && approx - sum <= (long)over, "counter tree approx",
	       FASTCPU_BY_CPU);
	fastcpu_counter_tree_free(tree);
}

int main(void)
{
	struct fastcpu_counter *counter = fastcpu_counter_new();
	cpu_set_t here;

	/* Pinned: the lists' pops must find this CPU's slot again. */
	CPU_ZERO(&here);
	CPU_SET(fastcpu_current_cpu(), &here);
	if (sched_setaffinity(0, sizeof(here), &here) != 0)
		return 1;
	each_operation(FASTCPU_BY_CPU);
	each_operation(FASTCPU_BY_CID);
	if (counter == NULL)
		return 1;
	fastcpu_counter_add(counter, 40);
	fastcpu_counter_add(counter, 2);
	expect(fastcpu_counter_sum(counter) == 42, "counter", FASTCPU_BY_CPU);
	fastcpu_counter_free(counter);
	tree_operations(2);
	tree_operations(0);
	return fails != 0;
}
