/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.c: per-CPU counters against one shared counter. */

#include <pthread.h>
#include <stdlib.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "librseq-shaped.h"
#include "runner.h"

/* Each kind's row: its key for machines and its name. */
#define ROW_OF(id, key, name) { key, name },
static const struct {
	const char *key, *name;
} kinds[COUNTER_KINDS] = { COUNTER_KINDS_(ROW_OF) };

#define SHARDS 1024	/* a CPU number beyond wraps: still right, less fast */
#define STRIDE 128	/* no false sharing, even with the pair prefetcher */

struct shard {
	long value;
} __attribute__((aligned(STRIDE)));

static struct shard shards[SHARDS], reference[SHARDS];
static unsigned long global;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

/* The library's counter, and per-CPU locks each guarding a plain count. */
static struct fastcpu_counter *rseq_counter;
static struct locked {
	intptr_t lock;
	unsigned long count;
} __attribute__((aligned(STRIDE))) *locked;

#if defined(LIBRSEQ_SHAPED_ADD) && defined(FASTCPU_RSEQ_INLINE)
# define HAVE_REFERENCE 1
/* The reference row: a per-CPU add in the shape of librseq's (tests/). */
static inline void reference_increment(const volatile int *cpu_at)
{
	int cpu;

	do
		cpu = *cpu_at;
	while (librseq_shaped_add(cpu_at, &reference[(unsigned int)cpu % SHARDS].value,
				  cpu) != 0);
}
#else
# define HAVE_REFERENCE 0
static inline void reference_increment(const volatile int *cpu_at)
{
	(void)cpu_at;
	abort();	/* counter_available() says no */
}
#endif

/* The reference with the contract the library's sequences keep: rseq_cs
 * cleared once it committed, so that the code may be unloaded (librseq
 * leaves it set, and asks a program to clear it before it unloads). */
static inline void reference_increment_cleared(const volatile int *cpu_at)
{
	reference_increment(cpu_at);
	__atomic_store_n((uint64_t *)(uintptr_t)((const volatile char *)cpu_at + 4), 0,
			 __ATOMIC_RELAXED);
}

/* Whether kind can run here with nthreads threads (the plain increment
 * loses counts with more than one; the reference needs an rseq area). */
static bool counter_available(enum counter_kind kind, int nthreads)
{
	if (kind == COUNTER_GLOBAL_PLAIN)
		return nthreads == 1;
	if (kind == COUNTER_REFERENCE || kind == COUNTER_REFERENCE_CLEARED)
		return HAVE_REFERENCE && loops_rseq_cpu_id() != NULL;
	return true;
}

/* A shard of the atomic rows is per CPU, not per thread: two threads can
 * meet on one after a migration, so the add stays atomic (relaxed, on a
 * line that is local). */
static inline void increment(enum counter_kind kind, const volatile int *cpu_at)
{
	unsigned long old;
	int slot;

	switch (kind) {
	case COUNTER_EMPTY:
		__asm__ volatile("");	/* a loop that stays */
		break;
	case COUNTER_GLOBAL_PLAIN:
		__asm__ volatile("" : "+m"(global));	/* one add to memory each */
		global++;
		break;
	case COUNTER_PERCPU_RSEQ:
		fastcpu_counter_add(rseq_counter, 1);
		break;
	case COUNTER_PERCID_RSEQ:
		fastcpu_percpu_add(rseq_counter, fastcpu_percpu_stride(), FASTCPU_BY_CID, 1);
		break;
	case COUNTER_PERCPU_LOCK:
		slot = fastcpu_percpu_lock(locked, sizeof(*locked), FASTCPU_BY_CID);
		locked[slot].count++;
		fastcpu_percpu_unlock(locked, sizeof(*locked), slot);
		break;
	case COUNTER_ATOMIC_ADD:
		__atomic_fetch_add(&global, 1, __ATOMIC_RELAXED);
		break;
	case COUNTER_CAS_LOOP:
		old = __atomic_load_n(&global, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&global, &old, old + 1, true,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		break;
	case COUNTER_MUTEX:
		pthread_mutex_lock(&global_lock);
		global++;
		pthread_mutex_unlock(&global_lock);
		break;
	case COUNTER_PERCPU_FASTCPU:
		__atomic_fetch_add(&shards[(unsigned int)fastcpu_current_cpu() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_PERCPU_GLIBC:
		__atomic_fetch_add(&shards[(unsigned int)glibc_sched_getcpu() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_PERCID_FASTCPU:
		__atomic_fetch_add(&shards[(unsigned int)fastcpu_current_cid() % SHARDS].value,
				   1, __ATOMIC_RELAXED);
		break;
	case COUNTER_REFERENCE:
		reference_increment(cpu_at);
		break;
	case COUNTER_REFERENCE_CLEARED:
		reference_increment_cleared(cpu_at);
		break;
	default:
		abort();
	}
}

/* Two loops per kind, the kind a constant in them, so that nothing is
 * measured but the increment and the loop: one for the threads of the
 * table, one (four an iteration) for bench_measure() in one thread. */
#define KIND_LOOP(kind)							\
	static void loop_##kind(unsigned long n, const volatile int *cpu_at) \
	{								\
		for (unsigned long i = 0; i < n; i++)			\
			increment(kind, cpu_at);			\
	}								\
	static unsigned long measure_##kind(unsigned long n)		\
	{								\
		const volatile int *cpu_at =				\
			fastcpu_cpu_id_word_();	\
									\
		for (unsigned long i = 0; i < n; i += 4)		\
			FOUR(increment(kind, cpu_at));			\
		return n;						\
	}
#define KIND_LOOPS(kind, key, name) KIND_LOOP(kind)
#define LOOP_OF(kind, key, name) loop_##kind,
#define MEASURE_OF(kind, key, name) measure_##kind,
COUNTER_KINDS_(KIND_LOOPS)
static void (*const loops[COUNTER_KINDS])(unsigned long, const volatile int *) = {
	COUNTER_KINDS_(LOOP_OF)
};
const bench_loop_fn counter_measure_loops[COUNTER_KINDS] = { COUNTER_KINDS_(MEASURE_OF) };

struct run {
	enum counter_kind kind;
	unsigned long increments;
};

static void first_call(void)
{
	(void)fastcpu_current_cpu();	/* the thread's first call, untimed */
}

/* Each thread times the CPU time it used: with more threads than CPUs, a
 * thread waiting for a CPU is not an increment's cost. */
static double timed_increments(void *arg)
{
	const struct run *run = arg;
	const volatile int *cpu_at = fastcpu_cpu_id_word_();
	double t0 = bench_thread_cpu_ns();

	loops[run->kind](run->increments, cpu_at);
	return bench_thread_cpu_ns() - t0;
}

static unsigned long total(enum counter_kind kind)
{
	unsigned long sum = 0;
	int limit = fastcpu_cid_limit();

	switch (kind) {
	case COUNTER_PERCPU_RSEQ:
	case COUNTER_PERCID_RSEQ:
		return (unsigned long)fastcpu_counter_sum(rseq_counter);
	case COUNTER_PERCPU_LOCK:
		for (int i = 0; i < limit; i++)
			sum += locked[i].count;
		return sum;
	case COUNTER_REFERENCE:
	case COUNTER_REFERENCE_CLEARED:
		for (int i = 0; i < SHARDS; i++)
			sum += (unsigned long)reference[i].value;
		return sum;
	default:
		sum = global;
		for (int i = 0; i < SHARDS; i++)
			sum += (unsigned long)shards[i].value;
		return sum;
	}
}

void counters_init(void)
{
	size_t limit = (size_t)fastcpu_cid_limit();

	rseq_counter = fastcpu_counter_new();
	locked = aligned_alloc(STRIDE, limit * sizeof(*locked));
	if (rseq_counter == NULL || locked == NULL)
		abort();
	for (size_t i = 0; i < limit; i++)
		locked[i] = (struct locked){ 0, 0 };
}

/* The CPU time per increment of each of nthreads threads doing increments
 * at once; exits if the counter's total is wrong. */
static double counter_ns_per_increment(enum counter_kind kind, int nthreads,
				       unsigned long increments)
{
	struct run run = { kind, increments };
	unsigned long before = total(kind);
	double ns = bench_in_threads(nthreads, first_call, timed_increments, &run);

	if (kind != COUNTER_EMPTY &&
	    total(kind) - before != (unsigned long)nthreads * increments) {
		fprintf(stderr, "fastcpu-bench: %s lost increments\n",
			kinds[kind].name);
		exit(1);
	}
	return ns / (double)increments;
}

/*
 * One column of Table 4: every kind with nthreads threads, in rounds that
 * each run them all (from a different one each time, so that a noisy
 * moment falls on all alike); the median and best of the rounds, the empty
 * loop's subtracted. No row where a kind does not run with that many.
 */
static void with_threads(struct rows *out, int nthreads, int rounds, unsigned long increments)
{
	double ns[COUNTER_KINDS][16], best[COUNTER_KINDS], median[COUNTER_KINDS];

	for (int round = 0; round < rounds; round++)
		for (int j = 0; j < COUNTER_KINDS; j++) {
			int k = (j + round) % COUNTER_KINDS;

			ns[k][round] = counter_available(k, nthreads) ?
				counter_ns_per_increment(k, nthreads, increments) : -1;
		}
	for (int k = 0; k < COUNTER_KINDS; k++)
		bench_best_and_median(ns[k], rounds, &best[k], &median[k]);
	for (int k = 1; k < COUNTER_KINDS; k++)
		if (counter_available(k, nthreads))
			rows_add(out, "counters", kinds[k].key, kinds[k].name, nthreads, UNIT_NS,
				 best[k] - best[COUNTER_EMPTY], median[k] - median[COUNTER_EMPTY]);
}

/* Table 4's one thread and the aims made of it, a fresh process's (its
 * layout and placement are one of many): every kind pinned, then the
 * counter's add with 2x CPUs threads against one thread, short rounds. */
void counters_measure(int arg, struct rows *out)
{
	unsigned long increments = bench.quick ? 20000 : 200000;
	struct bench_case one[COUNTER_KINDS];
	double crowded[3], alone[3], best, median[2];

	(void)arg;
	counters_init();
	for (int k = 0; k < COUNTER_KINDS; k++)
		one[k] = (struct bench_case){ kinds[k].key, kinds[k].name,
					      counter_available(k, 1) ? counter_measure_loops[k] : NULL };
	bench_measure(one, COUNTER_KINDS, &bench.cfg, out, "counters");
	bench_pin(-1);
	for (int round = 0; round < 3; round++) {
		alone[round] = counter_ns_per_increment(COUNTER_PERCPU_RSEQ, 1, increments);
		crowded[round] = counter_ns_per_increment(COUNTER_PERCPU_RSEQ, 2 * bench.cpus,
							  increments);
	}
	bench_best_and_median(crowded, 3, &best, &median[0]);
	bench_best_and_median(alone, 3, &best, &median[1]);
	rows_add(out, "aims", "counter_add_crowded", "fastcpu_counter_add(), 2x CPUs threads / 1 thread",
		 0, UNIT_RATIO, NAN, median[0] / median[1]);
}

/* Table 4 with threads, free to migrate: every kind, in this process. */
void counters_with_threads(struct rows *out)
{
	int rounds = bench.rounds < 16 ? bench.rounds : 16;
	unsigned long increments = bench.quick ? 100000 : 2000000;

	counters_init();
	bench_pin(-1);
	for (int t = 1; t <= 8 || t <= 2 * bench.cpus; t *= 2)
		with_threads(out, t, rounds, increments);
	bench_pin(bench.first_cpu);
}
