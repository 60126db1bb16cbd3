/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/loops.c: the reads of <fastcpu.h> in a hot loop, against the floor. */

#include <stddef.h>
#include <stdint.h>

#include "cases.h"
#include "fastcpu.h"
#include "loops.h"
#include "runner.h"

/*
 * Four reads an iteration, each kept alive without an instruction of its
 * own, as a per-CPU data structure's fast path would read them. The
 * reference rows read the thread's rseq area the way librseq's inline
 * functions do (written here from that description, not its code): an
 * offset from the thread pointer in a plain global, which the compiler
 * must reload after any call it cannot see into, with sched_getcpu() as
 * the checked read's fallback.
 */

/* Reference rows: the area as an offset from a per-thread base kept in a
 * plain global. librseq's base is the thread pointer; a TLS variable of
 * the program's own is the same kind of base (a fixed offset from it) and
 * needs no builtin (GCC 12 has none on powerpc). */
static __thread char thread_base;
static ptrdiff_t bench_rseq_offset;
static const volatile int *floor_word;

enum { CPU_ID = 4, NODE_ID = 20, MM_CID = 24 };	/* offsets in the area */

static inline const volatile int *area_word(int field)
{
	return (const volatile int *)((uintptr_t)&thread_base + bench_rseq_offset + field);
}

static inline int raw_cpu(void)
{
	return *area_word(CPU_ID);
}

static inline int checked_cpu(void)
{
	int cpu = raw_cpu();

	if (__builtin_expect(cpu < 0, 0))
		cpu = fastcpu_sched_getcpu();
	return cpu;
}

#define LOOP(name, ...)						\
	static unsigned long name(unsigned long n)		\
	{							\
		unsigned long sum = 0;				\
								\
		for (unsigned long i = 0; i < n; i += 4)	\
			FOUR(__VA_ARGS__; KEEP(sum));		\
		return sum;					\
	}

/* The floor: a bare load of cpu_id, its address found once. */
LOOP(loop_floor, sum += (unsigned long)*floor_word)
LOOP(loop_raw, sum += (unsigned long)raw_cpu())
LOOP(loop_checked, sum += (unsigned long)checked_cpu())
LOOP(loop_current_cpu, sum += (unsigned long)fastcpu_current_cpu())
LOOP(loop_raw_pair, sum += (unsigned long)raw_cpu() + (unsigned long)*area_word(NODE_ID))
static unsigned long loop_pair(unsigned long n)
{
	unsigned long sum = 0;
	unsigned int node = 0;

	for (unsigned long i = 0; i < n; i += 4)
		FOUR(sum += (unsigned long)fastcpu_current_cpu_node(&node) + node;
		     KEEP(sum));
	return sum;
}
LOOP(loop_raw_cid, sum += (unsigned long)*area_word(MM_CID))
LOOP(loop_cid, sum += (unsigned long)fastcpu_current_cid())

const volatile int *loops_rseq_cpu_id(void)
{
	const volatile int *cpu_id;

	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	cpu_id = fastcpu_cpu_id_word_();
	return *cpu_id >= 0 ? cpu_id : NULL;
}

/* Finds the calling thread's rseq area; false if it has none. */
static bool loops_init(void)
{
	const volatile int *cpu_id = loops_rseq_cpu_id();

	if (cpu_id == NULL)
		return false;
	floor_word = cpu_id;
	bench_rseq_offset = (ptrdiff_t)((uintptr_t)cpu_id - CPU_ID - (uintptr_t)&thread_base);
	return true;
}

/* Table 5's rows, in its order; reference: a row of this benchmark's
 * librseq-style code. */
static const struct {
	struct bench_case c;
	bool reference;
} cases[] = {
	{ { "empty_loop", "empty loop (not subtracted)", loop_empty }, false },
	{ { "floor_cpu_id_load", "floor: bare cpu_id load, address hoisted", loop_floor }, true },
	{ { "librseq_raw_cpu_id", "librseq-style raw cpu_id read", loop_raw }, true },
	{ { "librseq_checked_cpu_id", "librseq-style checked read", loop_checked }, true },
	{ { "fastcpu_current_cpu", "fastcpu_current_cpu()", loop_current_cpu }, false },
	{ { "librseq_raw_cpu_node", "librseq-style cpu_id + node_id reads", loop_raw_pair }, true },
	{ { "fastcpu_current_cpu_node", "fastcpu_current_cpu_node()", loop_pair }, false },
	{ { "librseq_raw_mm_cid", "librseq-style raw mm_cid read", loop_raw_cid }, true },
	{ { "fastcpu_current_cid", "fastcpu_current_cid()", loop_cid }, false },
};
#define CASES (int)(sizeof(cases) / sizeof(cases[0]))

void loops_measure(struct rows *out)
{
	bool reference_rows = loops_init();
	struct bench_case c[CASES];

	for (int i = 0; i < CASES; i++)
		c[i] = (struct bench_case){ cases[i].c.key, cases[i].c.name,
					    reference_rows || !cases[i].reference ? cases[i].c.loop : NULL };
	bench_measure(c, CASES, &bench.cfg, out, "loop");
}
