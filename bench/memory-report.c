/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-report.c: the per-CPU memory tables, for people and for machines. */

#include <stdio.h>

#include "memory.h"

/* Seed 004's cycles (2007, a kmalloc and kfree in the kernel), by size:
 * SLAB, SLUB, and SLUB with the per-CPU work (SLUB-a). */
static const int seed_slab[MEMORY_SIZES] = { 96, 84, 84, 102, 147, 200, 300, 416, 720, 1254 };
static const int seed_slub[MEMORY_SIZES] = { 86, 92, 106, 129, 226, 248, 301, 440, 542, 342 };
static const int seed_slub_a[MEMORY_SIZES] = { 38, 43, 53, 75, 176, 204, 250, 391, 511, 376 };

#define SIZE_64 3	/* memory_sizes[SIZE_64] == 64 */

static void cell(FILE *out, double v)
{
	if (v < 0)
		fprintf(out, " %9s", "-");
	else
		fprintf(out, " %9.2f", v);
}

static void header(const struct memory_report *r, FILE *out, const char *first)
{
	fprintf(out, "%-6s", first);
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (r->present[a])
			fprintf(out, " %9s", memory_allocator_columns[a]);
}

static double ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : -1;
}

/* Table (a), one column of thread counts. */
static void pairs_table(const struct memory_report *r, FILE *out, bool crowded)
{
	header(r, out, "bytes");
	fprintf(out, "  objcache/glibc  /jemalloc%s\n", crowded ? "" : "  seed: SLAB SLUB SLUB-a");
	if (!crowded)
		fprintf(out, "(list: one global lock-free list per size, every CPU on it)\n");
	for (int i = 0; i < MEMORY_SIZES; i++) {
		const double *g = crowded ? r->median[MEMORY_GLIBC].pair_crowded :
				  r->median[MEMORY_GLIBC].pair;
		const double *j = crowded ? r->median[MEMORY_JEMALLOC].pair_crowded :
				  r->median[MEMORY_JEMALLOC].pair;
		const double *o = crowded ? r->median[MEMORY_OBJCACHE].pair_crowded :
				  r->median[MEMORY_OBJCACHE].pair;

		fprintf(out, "%-6zu", memory_sizes[i]);
		for (int a = 0; a < MEMORY_ALLOCATORS; a++)
			if (r->present[a])
				cell(out, crowded ? r->median[a].pair_crowded[i] : r->median[a].pair[i]);
		fprintf(out, "  %8.2fx %8.2fx", ratio(o[i], g[i]),
			r->present[MEMORY_JEMALLOC] ? ratio(o[i], j[i]) : -1);
		if (!crowded)
			fprintf(out, "    %4d %4d %4d", seed_slab[i], seed_slub[i], seed_slub_a[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "best  ");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (r->present[a])
			cell(out, crowded ? r->best[a].pair_crowded[SIZE_64] :
			     r->best[a].pair[SIZE_64]);
	fprintf(out, "  (64 bytes)\n");
}

/* The better of the two floor sequences, or -1. */
static double floor_of(const struct memory_round *o)
{
	double list = o->floor_list, buffer = o->floor_buffer;

	return list < 0 ? buffer : buffer < 0 || list < buffer ? list : buffer;
}

/* What the object cache's process measured beside the cache, 64 bytes. */
static void same_process_lines(const struct memory_report *r, FILE *out)
{
	const struct memory_round *o = &r->median[MEMORY_OBJCACHE], *b = &r->best[MEMORY_OBJCACHE];

	if (!r->present[MEMORY_OBJCACHE])
		return;
	fprintf(out, "In the objcache's process, 64 bytes, best / median ns: the objcache pair %.2f / "
		"%.2f;\nglibc's pair %.2f / %.2f; the cache indexed by CPU number, not concurrency id, "
		"%.2f / %.2f;\nthe floor, librseq's param_test sequences in line (pop + push, one object): "
		"list %.2f / %.2f,\nbuffer (an array of pointers) %.2f / %.2f", b->pair[SIZE_64],
		o->pair[SIZE_64], b->glibc_pair_here, o->glibc_pair_here, b->pair_by_cpu,
		o->pair_by_cpu, b->floor_list, o->floor_list, b->floor_buffer, o->floor_buffer);
	fprintf(out, "%s\n", floor_of(o) < 0 ? " (not written for this machine: -1)" : "");
}

/* Table 8 (d): the setups without glibc's area. */
static void setups_table(const struct memory_report *r, FILE *out)
{
	fprintf(out, "\nTable 8 (d): the object cache without glibc's area, each setup a process of\n"
		"its own (glibc's rseq off), against glibc's malloc there: pair, 64 bytes, pinned,\n"
		"median ns (the seccomp-refused thread and librseq's unregistered one: Table 10)\n");
	fprintf(out, "%-32s %10s %10s %10s\n", "setup", "objcache", "glibc", "ratio");
	for (int k = 0; k < MEMORY_SETUPS; k++) {
		const struct memory_setup_round *m = &r->setup_median[k];

		if (!r->setup_ran[k]) {
			fprintf(out, "%-32s n/a: not here\n", memory_setup_names[k]);
			continue;
		}
		fprintf(out, "%-32s %10.2f %10.2f %9.2fx\n", memory_setup_names[k], m->objcache,
			m->glibc, ratio(m->objcache, m->glibc));
	}
}

/* The worst ratio of the forced setups (no sequences), or -1. */
static double worst_forced(const struct memory_report *r)
{
	double worst = -1;

	for (int k = MEMORY_RDPID; k < MEMORY_SETUPS; k++)
		if (r->setup_ran[k] &&
		    ratio(r->setup_median[k].objcache, r->setup_median[k].glibc) > worst)
			worst = ratio(r->setup_median[k].objcache, r->setup_median[k].glibc);
	return worst;
}

static void aim(FILE *out, const char *what, double v, double most)
{
	if (v < 0)
		fprintf(out, "  %-58s   n/a   aim <= %.2fx\n", what, most);
	else
		fprintf(out, "  %-58s %5.2fx%c aim <= %.2fx\n", what, v, v > most ? '!' : ' ', most);
}

/* The aims (#33), 64 bytes, one thread pinned; "!" where missed. */
static void aims(const struct memory_report *r, FILE *out)
{
	const struct memory_round *m = r->median, *o = &r->median[MEMORY_OBJCACHE];
	const struct memory_counters *c = &r->counters;
	double pair = o->pair[SIZE_64];

	fprintf(out, "\nThe aims, measured here (ratios of medians; \"!\" where missed):\n");
	aim(out, "objcache pair / the better floor sequence (same process)", ratio(pair, floor_of(o)),
	    1.25);
	aim(out, "objcache pair / glibc's (same process)", ratio(pair, o->glibc_pair_here), 0.30);
	aim(out, "objcache pair / tcmalloc's", r->present[MEMORY_TCMALLOC] ?
	    ratio(pair, m[MEMORY_TCMALLOC].pair[SIZE_64]) : -1, 0.50);
	aim(out, "objcache / tcmalloc, cold set, per operation", r->present[MEMORY_TCMALLOC] ?
	    ratio(o->cold, m[MEMORY_TCMALLOC].cold) : -1, 1.00);
	aim(out, "objcache / jemalloc, batches of 16", r->present[MEMORY_JEMALLOC] ?
	    ratio(o->batch16, m[MEMORY_JEMALLOC].batch16) : -1, 0.50);
	aim(out, "objcache pair / glibc's, own area (Table 8 (d))", r->setup_ran[MEMORY_OWN_AREA] ?
	    ratio(r->setup_median[MEMORY_OWN_AREA].objcache,
		  r->setup_median[MEMORY_OWN_AREA].glibc) : -1, 0.35);
	aim(out, "objcache pair / glibc's, worst forced backend (8 (d))", worst_forced(r), 1.00);
	aim(out, "objcache pair, 2x CPUs threads / one thread", ratio(o->pair_crowded[SIZE_64], pair),
	    1.30);
	aim(out, "fastcpu_counter_add(): per-CPU memory / FASTCPU_1.2",
	    ratio(c->new_add_ns, c->old_add_ns), 1.00);
	fprintf(out, "  %-58s %5.1f   aim <= %d + a share of chunks\n",
		"counter bytes (address space) per counter", c->new_bytes, 8 * c->cid_limit);
}

void memory_report_text(const struct memory_report *r, FILE *out)
{
	const struct memory_counters *c = &r->counters;
	const struct memory_round *m = r->median;

	fprintf(out, "Per-CPU memory (seed 004's tables in user space): %d rounds, each allocator in a\n"
		"process of its own (mallocs preloaded), the rounds going round them; CPU ns per\n"
		"operation, median of the rounds (best where said), loop subtracted. The seed's\n"
		"numbers are cycles of a 2007 kernel, beside them for their shape. Absent here:",
		r->rounds_done);
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (!r->present[a])
			fprintf(out, " %s", memory_allocator_names[a]);
	fprintf(out, "%s\n", r->present[MEMORY_JEMALLOC] && r->present[MEMORY_MIMALLOC] &&
		r->present[MEMORY_TCMALLOC] ? " none" : " (not installed)");

	fprintf(out, "\nTable 8 (a): an allocation and its free, one thread pinned, by size\n");
	pairs_table(r, out, false);
	same_process_lines(r, out);
	fprintf(out, "\nTable 8 (a), %d threads (2x CPUs) at once, CPU ns per pair of each\n",
		r->settings.crowd);
	pairs_table(r, out, true);

	fprintf(out, "\nTable 8 (b): the alloc/free test, 64 bytes: 10000 allocations then their\n"
		"frees (per allocation, per free); 16 allocations then 16 frees (per pair); a\n"
		"cold set: %ld objects taken, freed in shuffled order, taken again (per operation)\n",
		r->settings.cold);
	fprintf(out, "%-24s %10s %10s %10s %10s\n", "", "alloc", "free", "16, pair", "cold");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		if (!r->present[a])
			continue;
		fprintf(out, "%-24s", memory_allocator_names[a]);
		cell(out, m[a].many_alloc);
		cell(out, m[a].many_free);
		cell(out, m[a].batch16);
		cell(out, m[a].cold);
		fprintf(out, "\n");
	}
	fprintf(out, "%-24s %10s %10s %10s   (seed: SLAB 137-146, SLUB 151, SLUB-a 56-58 cycles)\n",
		"", "", "", "");
	setups_table(r, out);

	fprintf(out, "\nTable 8 (c): footprint. A counter (cid limit %d here):\n", c->cid_limit);
	fprintf(out, "%-34s %14s %14s %12s %10s\n", "", "bytes/counter", "touched/counter",
		"counters/MiB", "sum one ns");
	if (c->old_bytes >= 0) {
		fprintf(out, "%-34s %14.1f %14.1f %12.0f %10.1f\n",
			"FASTCPU_1.2 (calloc, 128-byte slots)", c->old_bytes, c->old_touched,
			c->old_bytes > 0 ? 1048576 / c->old_bytes : 0, c->old_sum_ns);
		fprintf(out, "%-34s %14.1f %14.1f %12.0f %10.1f\n",
			"per-CPU memory (8 bytes a copy)", c->new_bytes, c->new_touched,
			c->new_bytes > 0 ? 1048576 / c->new_bytes : 0, c->new_sum_ns);
		fprintf(out, "fastcpu_counter_add(): %.2f ns (best %.2f) on per-CPU memory, %.2f (best %.2f) "
			"on the FASTCPU_1.2 layout\n", c->new_add_ns, c->new_add_best, c->old_add_ns,
			c->old_add_best);
		fprintf(out, "%ld counters made in %.2f s, each added to by %d threads in %.2f s, "
			"summed in %.2f s (%s), freed in %.2f s\n", c->million, c->million_new_s,
			c->million_threads, c->million_add_s, c->million_sum_s,
			c->million_exact ? "exact" : "WRONG", c->million_free_s);
	}
	fprintf(out, "An object: bytes it takes (median distance between neighbours)\n");
	fprintf(out, "%-24s", "size");
	for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
		fprintf(out, " %9zu", memory_footprint_sizes[i]);
	fprintf(out, "\n");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		if (!r->present[a])
			continue;
		fprintf(out, "%-24s", memory_allocator_names[a]);
		for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
			cell(out, m[a].bytes_per_object[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "Bytes of 64-byte objects freed by threads, each taking and freeing 16 in\n"
		"turn and staying alive, that the main thread does not get back:\n");
	fprintf(out, "%-24s", "threads");
	for (int i = 0; i < MEMORY_HELD_THREADS; i++)
		fprintf(out, " %9d", memory_held_threads[i]);
	fprintf(out, "\n");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		if (!r->present[a])
			continue;
		fprintf(out, "%-24s", memory_allocator_names[a]);
		for (int i = 0; i < MEMORY_HELD_THREADS; i++)
			cell(out, m[a].held_bytes[i]);
		fprintf(out, "\n");
	}

	aims(r, out);
}

void memory_report_csv(const struct memory_report *r, FILE *out)
{
	fprintf(out, "table,allocator,case,threads,median_ns,best_ns\n");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		const struct memory_round *m = &r->median[a], *b = &r->best[a];

		if (!r->present[a])
			continue;
		for (int i = 0; i < MEMORY_SIZES; i++) {
			fprintf(out, "8a,%s,pair %zu,1,%.3f,%.3f\n", memory_allocator_names[a],
				memory_sizes[i], m->pair[i], b->pair[i]);
			fprintf(out, "8a,%s,pair %zu,%d,%.3f,%.3f\n", memory_allocator_names[a],
				memory_sizes[i], r->settings.crowd, m->pair_crowded[i],
				b->pair_crowded[i]);
		}
		fprintf(out, "8b,%s,alloc of 10000,1,%.3f,%.3f\n", memory_allocator_names[a],
			m->many_alloc, b->many_alloc);
		fprintf(out, "8b,%s,free of 10000,1,%.3f,%.3f\n", memory_allocator_names[a],
			m->many_free, b->many_free);
		fprintf(out, "8b,%s,batch of 16,1,%.3f,%.3f\n", memory_allocator_names[a],
			m->batch16, b->batch16);
		fprintf(out, "8b,%s,cold set per operation,1,%.3f,%.3f\n", memory_allocator_names[a],
			m->cold, b->cold);
		if (a == MEMORY_OBJCACHE) {
			const struct { const char *name; double median, best; } same[] = {
				{ "floor: librseq-shaped list pair 64", m->floor_list, b->floor_list },
				{ "floor: librseq-shaped buffer pair 64", m->floor_buffer,
				  b->floor_buffer },
				{ "pair 64 by CPU number", m->pair_by_cpu, b->pair_by_cpu },
				{ "glibc pair 64 in this process", m->glibc_pair_here,
				  b->glibc_pair_here },
			};

			for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++)
				fprintf(out, "8a,%s,%s,1,%.3f,%.3f\n", memory_allocator_names[a],
					same[k].name, same[k].median, same[k].best);
		}
		for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
			fprintf(out, "8c,%s,bytes per %zu-byte object,1,%.1f,%.1f\n",
				memory_allocator_names[a], memory_footprint_sizes[i],
				m->bytes_per_object[i], b->bytes_per_object[i]);
		for (int i = 0; i < MEMORY_HELD_THREADS; i++)
			fprintf(out, "8c,%s,bytes held,%d,%.0f,%.0f\n", memory_allocator_names[a],
				memory_held_threads[i], m->held_bytes[i], b->held_bytes[i]);
	}
	for (int k = 0; k < MEMORY_SETUPS; k++)
		if (r->setup_ran[k]) {
			fprintf(out, "8d,libfastcpu objcache,%s: pair 64,1,%.3f,%.3f\n",
				memory_setup_names[k], r->setup_median[k].objcache,
				r->setup_best[k].objcache);
			fprintf(out, "8d,glibc malloc,%s: pair 64,1,%.3f,%.3f\n",
				memory_setup_names[k], r->setup_median[k].glibc,
				r->setup_best[k].glibc);
		}
	fprintf(out, "8c,counter FASTCPU_1.2,bytes per counter,1,%.1f,%.1f\n",
		r->counters.old_bytes, r->counters.old_bytes);
	fprintf(out, "8c,counter per-CPU memory,bytes per counter,1,%.1f,%.1f\n",
		r->counters.new_bytes, r->counters.new_bytes);
	fprintf(out, "8c,counter FASTCPU_1.2,add,1,%.3f,%.3f\n", r->counters.old_add_ns,
		r->counters.old_add_best);
	fprintf(out, "8c,counter per-CPU memory,add,1,%.3f,%.3f\n", r->counters.new_add_ns,
		r->counters.new_add_best);
}
