/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-counters.c: what a counter takes, before and after per-CPU memory. */

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "fastcpu.h"
#include "memory.h"
#include "runner.h"

/*
 * Release 0.3's counter (FASTCPU_1.2, still exported for the programs built
 * with its header): a calloc() of fastcpu_cid_limit() + 1 slots of 128
 * bytes, its header's inline add at that stride. Today's: 8 bytes a copy
 * of per-CPU memory, the inline add at the allocator's stride.
 */
#define OLD_STRIDE 128
#define SAMPLE 100000		/* counters whose footprint is measured */

static struct fastcpu_counter *(*old_new)(void);
static long (*old_sum)(const struct fastcpu_counter *);
static void (*old_free)(struct fastcpu_counter *);

static bool old_counters(void)
{
	void *lib = dlopen("libfastcpu.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (lib == NULL)
		return false;
	old_new = (struct fastcpu_counter *(*)(void))dlvsym(lib, "fastcpu_counter_new",
							    "FASTCPU_1.2");
	old_sum = (long (*)(const struct fastcpu_counter *))dlvsym(lib, "fastcpu_counter_sum",
								   "FASTCPU_1.2");
	old_free = (void (*)(struct fastcpu_counter *))dlvsym(lib, "fastcpu_counter_free",
							      "FASTCPU_1.2");
	return old_new != NULL && old_sum != NULL && old_free != NULL;
}

/* The process's address space and resident memory, in bytes. */
static void statm(double *size, double *resident)
{
	unsigned long pages = 0, in = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL || fscanf(f, "%lu %lu", &pages, &in) != 2)
		pages = in = 0;
	if (f != NULL)
		fclose(f);
	*size = (double)pages * (double)sysconf(_SC_PAGESIZE);
	*resident = (double)in * (double)sysconf(_SC_PAGESIZE);
}

static struct fastcpu_counter *one_new, *one_old;

static unsigned long loop_add_new(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i += 4)
		FOUR(fastcpu_counter_add(one_new, 1));
	return 0;
}

static unsigned long loop_add_old(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i += 4)
		FOUR(fastcpu_percpu_add(one_old, OLD_STRIDE, FASTCPU_BY_CPU, 1));
	return 0;
}

static unsigned long loop_empty(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i += 4)
		FOUR(KEEP(i));
	return 0;
}

/* Per counter: address space, memory touched by one thread adding to
 * each, and the ns to sum one; the SAMPLE counters freed after. As rows
 * key.*, named "name: ...". */
static void footprint(bool old, const char *key, const char *name, struct rows *out)
{
	struct fastcpu_counter **c = malloc(SAMPLE * sizeof(*c));
	double size0, in0, size1, in1, size2, in2, t0, sum_ns;
	long total = 0;
	int from = out->count;

	if (c == NULL)
		abort();
	statm(&size0, &in0);
	for (long k = 0; k < SAMPLE; k++)
		if ((c[k] = old ? old_new() : fastcpu_counter_new()) == NULL)
			abort();
	statm(&size1, &in1);
	for (long k = 0; k < SAMPLE; k++)
		if (old)
			fastcpu_percpu_add(c[k], OLD_STRIDE, FASTCPU_BY_CPU, 1);
		else
			fastcpu_counter_add(c[k], 1);
	statm(&size2, &in2);
	t0 = bench_now_ns();
	for (long k = 0; k < SAMPLE; k++)
		total += old ? old_sum(c[k]) : fastcpu_counter_sum(c[k]);
	sum_ns = (bench_now_ns() - t0) / SAMPLE;
	if (total != SAMPLE)
		abort();
	rows_add(out, "8c", "bytes_per_counter", "bytes per counter", 0, UNIT_BYTES,
		 (size1 - size0) / SAMPLE, (size1 - size0) / SAMPLE);
	rows_add(out, "8c", "bytes_touched", "bytes touched per counter", 0, UNIT_BYTES,
		 (in2 - in0) / SAMPLE, (in2 - in0) / SAMPLE);
	rows_add(out, "8c", "sum_one", "summing one", 0, UNIT_NS, sum_ns, sum_ns);
	rows_prefix(out, from, key, name);
	for (long k = 0; k < SAMPLE; k++)
		old ? old_free(c[k]) : fastcpu_counter_free(c[k]);
	free(c);
}

void memory_counters_measure(struct rows *out)
{
	static const struct bench_case add[3] = {
		{ "empty_loop", "empty loop", loop_empty },
		{ "counter.add", "counter per-CPU memory: add", loop_add_new },
		{ "old_counter.add", "counter FASTCPU_1.2: add", loop_add_old },
	};

	rows_add(out, "8c", "cid_limit", "fastcpu_cid_limit()", 0, UNIT_COUNT, fastcpu_cid_limit(),
		 fastcpu_cid_limit());
	(void)fastcpu_sched_getcpu();
	if (!old_counters())
		return;
	footprint(true, "old_counter", "counter FASTCPU_1.2", out);
	footprint(false, "counter", "counter per-CPU memory", out);
	one_new = fastcpu_counter_new();
	one_old = old_new();
	bench_measure(add, 3, &bench.cfg, out, "8c");
	fastcpu_counter_free(one_new);
	old_free(one_old);
}
