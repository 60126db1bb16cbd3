/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/counters.c: per-CPU counters against one shared counter. */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cases.h"
#include "counters.h"
#include "fastcpu.h"
#include "librseq-shaped.h"
#include "loops.h"
#include "measure.h"

const char *const counter_names[COUNTER_KINDS] = {
	"empty loop (subtracted)",
	"global non-atomic increment",
	"per-CPU rseq add: fastcpu_counter_add()",
	"per-CPU rseq add by concurrency id",
	"per-CPU rseq lock: fastcpu_percpu_lock()",
	"global atomic add",
	"global CAS loop",
	"global pthread mutex",
	"atomic add, shard of fastcpu_current_cpu()",
	"atomic add, shard of glibc sched_getcpu()",
	"atomic add, shard of fastcpu_current_cid()",
	"librseq-shaped per-CPU add (reference)",
};

const char *const counter_keys[COUNTER_KINDS] = {
	[COUNTER_EMPTY] = "empty_loop",
	[COUNTER_GLOBAL_PLAIN] = "global_plain",
	[COUNTER_PERCPU_RSEQ] = "fastcpu_counter_add",
	[COUNTER_PERCID_RSEQ] = "fastcpu_percpu_add_cid",
	[COUNTER_PERCPU_LOCK] = "fastcpu_percpu_lock",
	[COUNTER_ATOMIC_ADD] = "global_atomic_add",
	[COUNTER_CAS_LOOP] = "global_cas_loop",
	[COUNTER_MUTEX] = "global_mutex",
	[COUNTER_PERCPU_FASTCPU] = "shard_fastcpu_current_cpu",
	[COUNTER_PERCPU_GLIBC] = "shard_glibc_sched_getcpu",
	[COUNTER_PERCID_FASTCPU] = "shard_fastcpu_current_cid",
	[COUNTER_REFERENCE] = "librseq_percpu_add",
};

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

bool counter_available(enum counter_kind kind, int nthreads)
{
	if (kind == COUNTER_GLOBAL_PLAIN)
		return nthreads == 1;
	if (kind == COUNTER_REFERENCE)
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
KIND_LOOP(COUNTER_EMPTY)
KIND_LOOP(COUNTER_GLOBAL_PLAIN)
KIND_LOOP(COUNTER_PERCPU_RSEQ)
KIND_LOOP(COUNTER_PERCID_RSEQ)
KIND_LOOP(COUNTER_PERCPU_LOCK)
KIND_LOOP(COUNTER_ATOMIC_ADD)
KIND_LOOP(COUNTER_CAS_LOOP)
KIND_LOOP(COUNTER_MUTEX)
KIND_LOOP(COUNTER_PERCPU_FASTCPU)
KIND_LOOP(COUNTER_PERCPU_GLIBC)
KIND_LOOP(COUNTER_PERCID_FASTCPU)
KIND_LOOP(COUNTER_REFERENCE)

static void (*const loops[COUNTER_KINDS])(unsigned long, const volatile int *) = {
	loop_COUNTER_EMPTY, loop_COUNTER_GLOBAL_PLAIN, loop_COUNTER_PERCPU_RSEQ,
	loop_COUNTER_PERCID_RSEQ, loop_COUNTER_PERCPU_LOCK, loop_COUNTER_ATOMIC_ADD, loop_COUNTER_CAS_LOOP,
	loop_COUNTER_MUTEX, loop_COUNTER_PERCPU_FASTCPU, loop_COUNTER_PERCPU_GLIBC,
	loop_COUNTER_PERCID_FASTCPU, loop_COUNTER_REFERENCE,
};

const bench_loop_fn counter_measure_loops[COUNTER_KINDS] = {
	measure_COUNTER_EMPTY, measure_COUNTER_GLOBAL_PLAIN, measure_COUNTER_PERCPU_RSEQ,
	measure_COUNTER_PERCID_RSEQ, measure_COUNTER_PERCPU_LOCK, measure_COUNTER_ATOMIC_ADD, measure_COUNTER_CAS_LOOP,
	measure_COUNTER_MUTEX, measure_COUNTER_PERCPU_FASTCPU, measure_COUNTER_PERCPU_GLIBC,
	measure_COUNTER_PERCID_FASTCPU, measure_COUNTER_REFERENCE,
};

struct run {
	enum counter_kind kind;
	unsigned long increments;
	pthread_barrier_t *start;
	double elapsed_ns;	/* this thread's own time for its increments */
};

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Each thread times the CPU time it used: with more threads than CPUs, a
 * thread waiting for a CPU is not an increment's cost. */
static void *worker(void *arg)
{
	struct run *run = arg;
	const volatile int *cpu_at;
	double t0;

	(void)fastcpu_current_cpu();	/* the thread's first call, untimed */
	cpu_at = fastcpu_cpu_id_word_();
	pthread_barrier_wait(run->start);
	t0 = thread_cpu_ns();
	loops[run->kind](run->increments, cpu_at);
	run->elapsed_ns = thread_cpu_ns() - t0;
	return NULL;
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

double counter_ns_per_increment(enum counter_kind kind, int nthreads,
				unsigned long increments)
{
	pthread_t *threads = calloc((size_t)nthreads, sizeof(*threads));
	struct run *runs = calloc((size_t)nthreads, sizeof(*runs));
	pthread_barrier_t start;
	unsigned long before;
	double sum = 0;

	before = total(kind);
	if (threads == NULL || runs == NULL)
		abort();
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads);
	for (int i = 0; i < nthreads; i++) {
		runs[i] = (struct run){ kind, increments, &start, 0 };
		if (pthread_create(&threads[i], NULL, worker, &runs[i]) != 0)
			abort();
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(threads[i], NULL);
		sum += runs[i].elapsed_ns;
	}
	pthread_barrier_destroy(&start);
	free(threads);
	free(runs);
	if (kind != COUNTER_EMPTY &&
	    total(kind) - before != (unsigned long)nthreads * increments) {
		fprintf(stderr, "fastcpu-bench: %s lost increments\n",
			counter_names[kind]);
		exit(1);
	}
	return sum / nthreads / (double)increments;
}

void counter_reset(void)
{
	for (int i = 0; i < SHARDS; i++)
		shards[i].value = 0;
}

int counter_shards_used(int *highest, unsigned long *bytes)
{
	int used = 0;

	*highest = -1;
	for (int i = 0; i < SHARDS; i++)
		if (shards[i].value != 0) {
			used++;
			*highest = i;
		}
	*bytes = (unsigned long)(*highest + 1) * sizeof(struct shard);
	return used;
}
