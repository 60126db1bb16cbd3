/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/tree-counters.c: the counter tree beside the field's counters, at 2 to 1,024 CPUs (#46). */

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "private.h"
#include "runner.h"

#define TABLE "counter-tree"
#define LINE 64
#define SAMPLE 512		/* counters made to count their bytes: a page of 8-byte objects */
#define FAR_BELOW (-1000000000000L)
#if __GLIBC_PREREQ(2, 33)
# define HEAP_BYTES() ((double)mallinfo2().uordblks)
#else	/* an int: the differences taken here are far below 2 GiB */
# define HEAP_BYTES() ((double)(unsigned int)mallinfo().uordblks)
#endif

/* The library's counters, the field's in their plainest shapes (this
 * file's own code), the floor of an add without sequences: key, name. */
enum impl { EMPTY, TREE, COUNTER, ATOMIC, PERCPU, ADDER, LEAF, IMPLS };
static const char *const impls[IMPLS][2] = { { "empty_loop", "empty loop" },
	{ "tree", "counter tree" }, { "fastcpu_counter", "fastcpu_counter" }, { "atomic", "one atomic" },
	{ "percpu_counter", "the kernel's percpu_counter" }, { "longadder", "LongAdder" },
	{ "atomic_leaf", "atomic add on a leaf + carry" } };
enum op { ADD, READ, SUM, NEAR, FAR, OPS };
static const char *const ops[OPS][2] = { { "add_1_thread", "add, one thread" },
	{ "read_approx", "approximate read" }, { "sum_exact", "exact sum" },
	{ "compare_near", "compare near the sum" }, { "compare_far", "compare far from it" } };

/* Cells a line each: LongAdder's (a power of two, mask + 1, no fewer than
 * CPUs), the floor's leaves (1 + CPU: cell 0 takes the carries). */
struct cells {
	unsigned long mask;
	struct { long value; } __attribute__((aligned(LINE))) at[];
};

/* The kernel's scheme: a count per CPU (in per-CPU memory, as the
 * kernel's), folded into the shared count where it would reach batch. */
struct percpu_counter {
	long count, batch, *local;
};

static int cpus;		/* possible CPUs: what every counter is sized by */
static void *of[IMPLS];		/* the counter each loop times */
static long near[IMPLS];	/* its sum, once the adds are done */
static unsigned int seeds;	/* LongAdder's probes, seeded as Java's */
static __thread unsigned int probe;

static int log2_up(int n)
{
	return n > 1 ? 32 - __builtin_clz((unsigned int)n - 1) : 0;
}

static void *made(enum impl k)
{
	size_t n = k == ADDER ? (size_t)1 << log2_up(cpus) : 2 * (size_t)cpus;
	size_t bytes = k == ATOMIC || k == PERCPU ? LINE : (1 + n) * LINE;
	struct cells *x = k == TREE || k == COUNTER ? NULL : aligned_alloc(LINE, bytes);

	if (x == NULL)
		return k == TREE ? (void *)fastcpu_counter_tree_new(32) :
		       k == COUNTER ? (void *)fastcpu_counter_new() : NULL;
	memset(x, 0, bytes);
	x->mask = k == ADDER || k == LEAF ? n - 1 : 0;
	if (k == PERCPU)	/* the kernel's batch: max(32, 2 x CPUs) */
		*(struct percpu_counter *)x = (struct percpu_counter){
			0, cpus > 16 ? 2 * cpus : 32, fastcpu_percpu_zalloc(sizeof(long)) };
	return x;
}

static inline __attribute__((always_inline)) void add(enum impl k, void *x, long v)
{
	struct percpu_counter *p = x;
	struct cells *c = x;
	long old, *slot = k == PERCPU ? fastcpu_percpu_ptr(p->local, fastcpu_current_cpu()) : NULL;

	if (k == TREE) {
		fastcpu_counter_tree_add((struct fastcpu_counter_tree *)x, v);
	} else if (k == COUNTER) {
		fastcpu_counter_add((struct fastcpu_counter *)x, v);
	} else if (k == ATOMIC) {
		__atomic_fetch_add((long *)x, v, __ATOMIC_RELAXED);
	} else if (k == PERCPU) {	/* a compare-and-swap on the CPU's count, or the fold */
		for (old = __atomic_load_n(slot, __ATOMIC_RELAXED); labs(old + v) < p->batch;)
			if (__atomic_compare_exchange_n(slot, &old, old + v, true, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				return;
		v += __atomic_exchange_n(slot, 0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->count, v, __ATOMIC_RELAXED);
	} else if (k == ADDER) {	/* a compare-and-swap on the probe's cell; failed, another */
		probe = probe ? probe : __atomic_add_fetch(&seeds, 0x9e3779b9u, __ATOMIC_RELAXED) | 1u << 31;
		for (;; probe ^= probe << 13, probe ^= probe >> 17, probe ^= probe << 5) {
			slot = &c->at[probe & c->mask].value;
			old = __atomic_load_n(slot, __ATOMIC_RELAXED);
			if (__atomic_compare_exchange_n(slot, &old, old + v, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
		}
	} else if (k == LEAF) {	/* the tree's carry test (batch 32), a carry where it says */
		old = __atomic_fetch_add(&c->at[1 + fastcpu_current_cpu()].value, v, __ATOMIC_RELAXED);
		if ((((unsigned long)old + 15) ^ ((unsigned long)old + 15 + (unsigned long)v)) >= 32)
			__atomic_fetch_add(&c->at[0].value, 32, __ATOMIC_RELAXED);
	}
	__asm__ volatile("");	/* the empty loop stays a loop */
}

/* The exact sum (no add in flight). */
static long sum(enum impl k, const void *x)
{
	const struct percpu_counter *p = x;
	const struct cells *c = x;
	long s = 0;

	for (int i = 0; i < cpus && k == PERCPU; i++)
		s += __atomic_load_n(fastcpu_percpu_ptr(p->local, i), __ATOMIC_RELAXED);
	for (unsigned long i = 0; k == ADDER && i <= c->mask; i++)
		s += __atomic_load_n(&c->at[i].value, __ATOMIC_RELAXED);
	return k == TREE ? fastcpu_counter_tree_sum(x) : k == COUNTER ? fastcpu_counter_sum(x) :
	       s + (k == ATOMIC || k == PERCPU ? __atomic_load_n(&p->count, __ATOMIC_RELAXED) : 0);
}

/* An operation: a read answers at once (the approximation, where a
 * counter has one, else the sum); a comparison from it where it can. */
static inline __attribute__((always_inline)) long op(enum impl k, enum op o, void *x)
{
	long v = o == NEAR ? near[k] : FAR_BELOW, s;

	if (o == ADD)
		add(k, x, 1);
	if (o == ADD || o == SUM)
		return o == SUM ? sum(k, x) : 0;
	if (k == TREE)
		return o == READ ? fastcpu_counter_tree_approx(x) : fastcpu_counter_tree_compare(x, v);
	s = k == PERCPU || k == ATOMIC ? __atomic_load_n((long *)x, __ATOMIC_RELAXED) : sum(k, x);
	if (o != READ && k == PERCPU && labs(s - v) <= ((struct percpu_counter *)x)->batch * cpus)
		s = sum(k, x);	/* the kernel's compare */
	return o == READ ? s : (s > v) - (s < v);
}

/* A loop of each operation of each counter, for bench_measure(). */
#define LOOP(k, o) static unsigned long loop_##k##_##o(unsigned long n)			\
	{										\
		void *x = of[k];							\
		unsigned long s = 0;							\
		for (unsigned long i = 0; i < n; i += 4)				\
			FOUR(s += (unsigned long)op(k, o, x));				\
		return s;								\
	}
#define LOOPS(k) LOOP(k, ADD) LOOP(k, READ) LOOP(k, SUM) LOOP(k, NEAR) LOOP(k, FAR)
#define LOOPS_OF(k) { loop_##k##_ADD, loop_##k##_READ, loop_##k##_SUM, loop_##k##_NEAR, loop_##k##_FAR }
LOOPS(EMPTY) LOOPS(TREE) LOOPS(COUNTER) LOOPS(ATOMIC) LOOPS(PERCPU) LOOPS(ADDER) LOOPS(LEAF)
static const bench_loop_fn loops[IMPLS][OPS] = { LOOPS_OF(EMPTY), LOOPS_OF(TREE), LOOPS_OF(COUNTER),
	LOOPS_OF(ATOMIC), LOOPS_OF(PERCPU), LOOPS_OF(ADDER), LOOPS_OF(LEAF) };

/* Each thread's CPU ns an add, 2x CPUs threads at once, rounds of each
 * counter in turn; exits where a count is lost or the tree, once they are
 * done, is not settled (every word within its range: the bounds hold). */
static unsigned long adds_each;

static double timed_adds(void *k)
{
	double t0 = bench_thread_cpu_ns();

	loops[*(enum impl *)k][ADD](adds_each);
	return (bench_thread_cpu_ns() - t0) / (double)adds_each;
}

static void crowded(struct rows *out, int rounds)
{
	double ns[IMPLS][16], best[IMPLS], median[IMPLS];
	int threads = 2 * bench.cpus;

	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < IMPLS; j++) {
			enum impl k = (enum impl)((j + r) % IMPLS);
			long before = sum(k, of[k]);

			ns[k][r] = bench_in_threads(threads, NULL, timed_adds, &k);
			if (sum(k, of[k]) - before != (k == EMPTY || k == LEAF ? 0 : threads * (long)adds_each) ||
			    !fastcpu_private_counter_tree_settled(of[TREE])) {
				fprintf(stderr, "fastcpu-bench: %s lost adds, or the tree is not settled\n",
					impls[k][1]);
				exit(1);
			}
		}
	for (int k = 0; k < IMPLS; k++)
		bench_best_and_median(ns[k], rounds, &best[k], &median[k]);
	for (int k = TREE; k < IMPLS; k++) {	/* each row keyed IMPL.*, named "its name: ..." */
		rows_add(out, TABLE, "add_2x_cpus", "add, 2x CPUs threads", threads, UNIT_NS,
			 best[k] - best[EMPTY], median[k] - median[EMPTY]);
		rows_prefix(out, out->count - 1, impls[k][0], impls[k][1]);
	}
}

/* Bytes a counter takes: malloc's, and per-CPU memory's (the distance its
 * objects put between two of 8 bytes, times the copies). Kept: no hole. */
static double bytes_per_counter(enum impl k)
{
	char *first = fastcpu_percpu_alloc(8), *last;
	double heap = HEAP_BYTES();

	for (int i = 0; i < SAMPLE; i++)
		(void)made(k);
	heap = HEAP_BYTES() - heap;
	last = fastcpu_percpu_alloc(8);
	return last > first && last - first < FASTCPU_PERCPU_STRIDE ?
	       (heap + (double)(last - first - 8) * fastcpu_cid_limit()) / SAMPLE : NAN;
}

void counter_tree_workload(int arg, struct rows *out)
{
	static char keys[IMPLS * OPS][48], names[IMPLS * OPS][96];
	struct bench_case cases[2][IMPLS * OPS] = { { { "empty_loop", "empty loop", loops[EMPTY][ADD] } },
		{ { "empty_scan_loop", "empty loop", loops[EMPTY][ADD] } } };
	int count[2] = { 1, 1 }, n = 0;
	unsigned long under, over;
	double kernel;

	cpus = fastcpu_cid_limit() / 2;
	for (int k = TREE; k < IMPLS; k++)
		if ((of[k] = made(k)) == NULL)
			abort();
	for (int k = TREE; k < IMPLS; k++)	/* reads over every CPU's part: fewer calls */
		for (int o = ADD; o < (k == LEAF ? 1 : OPS); o++, n++) {
			int scans = o != ADD && k != ATOMIC &&
				    (k == COUNTER || k == ADDER || o == SUM || o == NEAR);

			snprintf(keys[n], sizeof(keys[n]), "%s.%s", impls[k][0], ops[o][0]);
			snprintf(names[n], sizeof(names[n]), "%s: %s", impls[k][1], ops[o][1]);
			cases[scans][count[scans]++] = (struct bench_case){ keys[n], names[n], loops[k][o] };
		}
	bench_pin(bench.first_cpu);
	bench_measure(cases[0], count[0], &bench.cfg, out, TABLE);
	for (int k = TREE; k < LEAF; k++)
		near[k] = sum(k, of[k]);
	bench_measure(cases[1], count[1], &(struct bench_config){ bench.cfg.runs / 10 | 1,
				4 * (1 + 2048 / (unsigned long)cpus) }, out, TABLE);
	bench_pin(-1);
	adds_each = bench.quick ? 10000 : 100000;
	crowded(out, bench.rounds < 16 ? bench.rounds : 16);
	fastcpu_counter_tree_bounds(of[TREE], &under, &over);
	for (int k = TREE; k < LEAF; k++) {	/* bytes; how far the read may lie from the sum */
		double bytes = bytes_per_counter(k), most = k == TREE ? (double)(under > over ? under : over) :
			k == PERCPU ? (double)cpus * (double)(((struct percpu_counter *)of[k])->batch - 1) : 0;

		rows_add(out, TABLE, "bytes_per_counter", "bytes per counter", 0, UNIT_BYTES, bytes, bytes);
		rows_add(out, TABLE, "bound", "bound each way, settled", 0, UNIT_COUNT, most, most);
		rows_prefix(out, out->count - 2, impls[k][0], impls[k][1]);
	}
	/* The kernel's percpu_counter_tree (batch 32) counts 2^k CPUs, k =
	 * ceil(log2 n), each of its levels 2^k batches each way: 1, 2, 3, 4, 5
	 * levels as k is 1, 2, 3-9, 10-12, 13-20 (tests/percpu/suite-counter-tree.c). */
	n = log2_up(cpus);
	kernel = (double)(32L << n) * (n < 3 ? n : n < 10 ? 3 : n < 13 ? 4 : 5);
	rows_add(out, TABLE, "kernel_tree.bound", "the kernel's percpu_counter_tree: bound each way", 0,
		 UNIT_COUNT, kernel, kernel);
	snprintf(keys[0], sizeof(keys[0]), arg > 0 ? "cpus_%d" : arg ? "here_no_sequences" : "here", arg);
	snprintf(names[0], sizeof(names[0]), arg > 0 ? "%d CPUs" : arg ? "%d CPUs, sequences off" :
		 "%d CPUs (this machine)", cpus);
	rows_prefix(out, 0, keys[0], names[0]);
}

/* Each count of possible CPUs in processes of its own, the library sized
 * for it as it loads; the machine's own count, and without sequences. */
static void counter_tree_env(int arg)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", arg);
	setenv(arg > 0 ? "FASTCPU_POSSIBLE_CPUS" : "FASTCPU_SEQUENCES", arg > 0 ? n : "off", 1);
}

void counter_tree_measure(struct rows *out)
{
	struct bench_job jobs[] = { { "counter-tree", 0, NULL }, { "counter-tree", 64, counter_tree_env },
		{ "counter-tree", 256, counter_tree_env }, { "counter-tree", 1024, counter_tree_env },
		{ "counter-tree", -1, counter_tree_env } };

	bench_pin(-1);
	bench_run_jobs(jobs, 5, bench.quick ? 1 : bench.rounds, out);
}
