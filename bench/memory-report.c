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
	if (m[MEMORY_OBJCACHE].floor_pair >= 0)
		fprintf(out, "objcache's floor, 64 bytes: its pop and push in line, no call, one node: "
			"%.2f ns, %.2fx glibc's pair\n", m[MEMORY_OBJCACHE].floor_pair,
			ratio(m[MEMORY_OBJCACHE].floor_pair, m[MEMORY_GLIBC].pair[SIZE_64]));
	fprintf(out, "\nTable 8 (a), %d threads (2x CPUs) at once, CPU ns per pair of each\n",
		r->settings.crowd);
	pairs_table(r, out, true);

	fprintf(out, "\nTable 8 (b): the alloc/free test, 64 bytes: 10000 allocations then their\n"
		"frees (per allocation, per free); 16 allocations then 16 frees (per pair)\n");
	fprintf(out, "%-24s %10s %10s %10s\n", "", "alloc", "free", "16, pair");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		if (!r->present[a])
			continue;
		fprintf(out, "%-24s", memory_allocator_names[a]);
		cell(out, m[a].many_alloc);
		cell(out, m[a].many_free);
		cell(out, m[a].batch16);
		fprintf(out, "\n");
	}
	fprintf(out, "%-24s %10s %10s %10s   (seed: SLAB 137-146, SLUB 151, SLUB-a 56-58 cycles)\n",
		"", "", "", "");

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

	{
		double g = m[MEMORY_GLIBC].pair[SIZE_64], j = m[MEMORY_JEMALLOC].pair[SIZE_64];
		double o = m[MEMORY_OBJCACHE].pair[SIZE_64];
		double gb = m[MEMORY_GLIBC].batch16, jb = m[MEMORY_JEMALLOC].batch16;
		double ob = m[MEMORY_OBJCACHE].batch16;
		double crowded = m[MEMORY_OBJCACHE].pair_crowded[SIZE_64];

		fprintf(out, "\nThe aims, measured here (ratio of medians):\n");
		fprintf(out, "  %-58s %5.2fx  aim <= 0.35x\n", "objcache pair / glibc's, 64 bytes",
			ratio(o, g));
		fprintf(out, "  %-58s %5.2fx  aim <= 0.75x\n", "objcache pair / jemalloc's, 64 bytes",
			ratio(o, j));
		fprintf(out, "  %-58s %5.2fx  aim <= 0.35x\n",
			"objcache / glibc, batches of 16, 64 bytes", ratio(ob, gb));
		fprintf(out, "  %-58s %5.2fx  aim <= 0.75x\n",
			"objcache / jemalloc, batches of 16, 64 bytes", ratio(ob, jb));
		fprintf(out, "  %-58s %5.2fx  aim <= 1.3x (flat)\n",
			"objcache pair, 2x CPUs threads / one thread", ratio(crowded, o));
		fprintf(out, "  %-58s %5.2fx  aim <= 1.0x\n",
			"fastcpu_counter_add(): per-CPU memory / FASTCPU_1.2", ratio(c->new_add_ns,
										   c->old_add_ns));
		fprintf(out, "  %-58s %5.1f   aim <= %d + a share of chunks\n",
			"counter bytes (address space) per counter", c->new_bytes, 8 * c->cid_limit);
	}
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
		if (a == MEMORY_OBJCACHE)
			fprintf(out, "8a,%s,sequences inline 64,1,%.3f,%.3f\n",
				memory_allocator_names[a], m->floor_pair, b->floor_pair);
		for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
			fprintf(out, "8c,%s,bytes per %zu-byte object,1,%.1f,%.1f\n",
				memory_allocator_names[a], memory_footprint_sizes[i],
				m->bytes_per_object[i], b->bytes_per_object[i]);
		for (int i = 0; i < MEMORY_HELD_THREADS; i++)
			fprintf(out, "8c,%s,bytes held,%d,%.0f,%.0f\n", memory_allocator_names[a],
				memory_held_threads[i], m->held_bytes[i], b->held_bytes[i]);
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
