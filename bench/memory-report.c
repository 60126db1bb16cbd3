/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-report.c: the per-CPU memory tables, for people and for machines. */

#include <stdarg.h>
#include <stdio.h>

#include "memory.h"
#include "table.h"

/* Seed 004's cycles (2007, a kmalloc and kfree in the kernel), by size:
 * SLAB, SLUB, and SLUB with the per-CPU work (SLUB-a). */
static const int seed_slab[MEMORY_SIZES] = { 96, 84, 84, 102, 147, 200, 300, 416, 720, 1254 };
static const int seed_slub[MEMORY_SIZES] = { 86, 92, 106, 129, 226, 248, 301, 440, 542, 342 };
static const int seed_slub_a[MEMORY_SIZES] = { 38, 43, 53, 75, 176, 204, 250, 391, 511, 376 };

#define SIZE_64 3	/* memory_sizes[SIZE_64] == 64 */

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

/* A round's pairs, one thread pinned or crowded. */
static const double *pairs(const struct memory_round *m, bool crowded)
{
	return crowded ? m->pair_crowded : m->pair;
}

/* Table (a)'s row of size i: each allocator, then the object cache's
 * ratios (and the seed's cycles beside the one-thread column). */
static void pairs_row(const struct memory_report *r, FILE *out, bool crowded, int i)
{
	double objcache = pairs(&r->median[MEMORY_OBJCACHE], crowded)[i];

	fprintf(out, "%-6zu", memory_sizes[i]);
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (r->present[a])
			table_measured(out, 9, pairs(&r->median[a], crowded)[i]);
	fputc(' ', out);
	table_ratio(out, 9, ratio(objcache, pairs(&r->median[MEMORY_GLIBC], crowded)[i]));
	if (r->present[MEMORY_JEMALLOC])
		table_ratio(out, 9, ratio(objcache, pairs(&r->median[MEMORY_JEMALLOC], crowded)[i]));
	else
		table_absent(out, 9);
	if (!crowded)
		fprintf(out, "    %4d %4d %4d", seed_slab[i], seed_slub[i], seed_slub_a[i]);
	fputc('\n', out);
}

/* Table (a), one column of thread counts. */
static void pairs_table(const struct memory_report *r, FILE *out, bool crowded)
{
	header(r, out, "bytes");
	fprintf(out, "  objcache/glibc  /jemalloc%s\n", crowded ? "" : "  seed: SLAB SLUB SLUB-a");
	if (!crowded)
		fprintf(out, "(list: one global lock-free list per size, every CPU on it)\n");
	for (int i = 0; i < MEMORY_SIZES; i++)
		pairs_row(r, out, crowded, i);
	fprintf(out, "best  ");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (r->present[a])
			table_measured(out, 9, pairs(&r->best[a], crowded)[SIZE_64]);
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

/* A row an allocator present: its name, then n cells of its median round. */
static void allocator_rows(const struct memory_report *r, FILE *out, int n,
			   double (*cell)(const struct memory_round *m, int i))
{
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		if (!r->present[a])
			continue;
		fprintf(out, "%-24s", memory_allocator_names[a]);
		for (int i = 0; i < n; i++)
			table_measured(out, 9, cell(&r->median[a], i));
		fputc('\n', out);
	}
}

static double alloc_free_cell(const struct memory_round *m, int i)
{
	const double cells[4] = { m->many_alloc, m->many_free, m->batch16, m->cold };

	return cells[i];
}

static double object_bytes_cell(const struct memory_round *m, int i)
{
	return m->bytes_per_object[i];
}

static double held_bytes_cell(const struct memory_round *m, int i)
{
	return m->held_bytes[i];
}

/* Table 8 (a), one thread and crowded. */
static void text_pairs(const struct memory_report *r, FILE *out)
{
	fprintf(out, "\nTable 8 (a): an allocation and its free, one thread pinned, by size\n");
	pairs_table(r, out, false);
	same_process_lines(r, out);
	fprintf(out, "\nTable 8 (a), %d threads (2x CPUs) at once, CPU ns per pair of each\n",
		r->settings.crowd);
	pairs_table(r, out, true);
}

/* Table 8 (b): many, batches, a cold set. */
static void text_alloc_free(const struct memory_report *r, FILE *out)
{
	fprintf(out, "\nTable 8 (b): the alloc/free test, 64 bytes: 10000 allocations then their\n"
		"frees (per allocation, per free); 16 allocations then 16 frees (per pair); a\n"
		"cold set: %ld objects taken, freed in shuffled order, taken again (per operation)\n",
		r->settings.cold);
	fprintf(out, "%-24s %10s %10s %10s %10s\n", "", "alloc", "free", "16, pair", "cold");
	allocator_rows(r, out, 4, alloc_free_cell);
	fprintf(out, "%-24s %10s %10s %10s   (seed: SLAB 137-146, SLUB 151, SLUB-a 56-58 cycles)\n",
		"", "", "", "");
}

/* Table 8 (d): the setups without glibc's area. */
static void text_setups(const struct memory_report *r, FILE *out)
{
	fprintf(out, "\nTable 8 (d): the object cache without glibc's area, each setup a process of\n"
		"its own (glibc's rseq off), against glibc's malloc there: pair, 64 bytes, pinned,\n"
		"median ns (the seccomp-refused thread and librseq's unregistered one: Table 10)\n");
	fprintf(out, "%-32s %10s %10s %10s\n", "setup", "objcache", "glibc", "ratio");
	for (int k = 0; k < MEMORY_SETUPS; k++) {
		const struct memory_setup_round *m = &r->setup_median[k];

		fprintf(out, "%-32s", memory_setup_names[k]);
		if (!r->setup_ran[k]) {
			fprintf(out, " %s: not here\n", TABLE_ABSENT);
			continue;
		}
		table_number(out, 10, m->objcache);
		table_number(out, 10, m->glibc);
		table_ratio(out, 10, ratio(m->objcache, m->glibc));
		fputc('\n', out);
	}
}

/* A row's three cells of one quantity: best, median, worst. */
static void spread_cells(FILE *out, const double v[SPREAD_STATS], bool ratios)
{
	for (int i = 0; i < SPREAD_STATS; i++)
		if (v[i] < 0)
			table_absent(out, 6);
		else if (ratios)
			table_ratio(out, 6, v[i]);
		else
			table_number(out, 6, v[i]);
	fputs("  ", out);
}

/* worst / median of a setup's pairs, or -1. */
static double spread_worst(const struct memory_spread_stats *st)
{
	return st->processes > 0 ? ratio(st->pair[SPREAD_WORST], st->pair[SPREAD_MEDIAN]) : -1;
}

/* Table 8 (e): the pair's spread over processes (#38). */
static void text_spread(const struct memory_report *r, FILE *out)
{
	fprintf(out, "\nTable 8 (e): the objcache pair over processes, 64 bytes, one thread pinned,\n"
		"%d fresh processes a setup%s: each times the pair beside\n"
		"the better floor sequence and glibc's pair (ratios within the process), loop\n"
		"subtracted; best, median and worst over the processes that ran\n",
		r->settings.processes, r->settings.processes < 20 ? " (fewer than 20: a short run)" : "");
	fprintf(out, "%-24s %5s%21s  %21s  %21s  %8s\n", "setup", "ran", "pair ns",
		"pair / the floor", "pair / glibc's", "wst/med");
	fprintf(out, "%-30s", "");
	for (int i = 0; i < 3; i++)
		fprintf(out, "%21s  ", "best median  worst");
	fputc('\n', out);
	for (int k = 0; k < MEMORY_SPREADS; k++) {
		const struct memory_spread_stats *st = &r->spread[k];

		fprintf(out, "%-24s %5d", memory_spread_names[k], st->processes);
		if (st->processes == 0) {
			fprintf(out, " %s: not here\n", TABLE_ABSENT);
			continue;
		}
		spread_cells(out, st->pair, false);
		spread_cells(out, st->to_floor, true);
		spread_cells(out, st->to_glibc, true);
		table_ratio(out, 7, spread_worst(st));
		fputc('\n', out);
	}
	fprintf(out, "Processes whose pair took over 1.30x their setup's median:");
	for (int k = 0; k < MEMORY_SPREADS; k++)
		fprintf(out, "%s %s %d of %d", k ? "," : "", memory_spread_names[k], r->spread[k].slow,
			r->spread[k].processes);
	fputc('\n', out);
}

/* Table 8 (c), a counter's footprint before and after per-CPU memory. */
static void text_counters(const struct memory_counters *c, FILE *out)
{
	fprintf(out, "\nTable 8 (c): footprint. A counter (cid limit %d here):\n", c->cid_limit);
	fprintf(out, "%-34s %14s %14s %12s %10s\n", "", "bytes/counter", "touched/counter",
		"counters/MiB", "sum one ns");
	if (c->old_bytes < 0)
		return;
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

/* Table 8 (c), an object's footprint and what threads leave held. */
static void text_objects(const struct memory_report *r, FILE *out)
{
	fprintf(out, "An object: bytes it takes (median distance between neighbours)\n");
	fprintf(out, "%-24s", "size");
	for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
		fprintf(out, " %9zu", memory_footprint_sizes[i]);
	fputc('\n', out);
	allocator_rows(r, out, MEMORY_FOOTPRINT_SIZES, object_bytes_cell);
	fprintf(out, "Bytes of 64-byte objects freed by threads, each taking and freeing 16 in\n"
		"turn and staying alive, that the main thread does not get back:\n");
	fprintf(out, "%-24s", "threads");
	for (int i = 0; i < MEMORY_HELD_THREADS; i++)
		fprintf(out, " %9d", memory_held_threads[i]);
	fputc('\n', out);
	allocator_rows(r, out, MEMORY_HELD_THREADS, held_bytes_cell);
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

/* A ratio to an allocator's, where that allocator is here. */
static double ratio_to(const struct memory_report *r, enum memory_allocator a, double ours,
		       double theirs)
{
	return r->present[a] ? ratio(ours, theirs) : -1;
}

/* The aims (#33), 64 bytes, one thread pinned. */
static void text_aims(const struct memory_report *r, FILE *out)
{
	const struct memory_round *m = r->median, *o = &r->median[MEMORY_OBJCACHE];
	const struct memory_setup_round *own = &r->setup_median[MEMORY_OWN_AREA];
	const struct memory_counters *c = &r->counters;
	double pair = o->pair[SIZE_64];
	char bytes[16], most[48];

	fprintf(out, "\nThe aims, measured here (ratios of medians; \"%c\" where missed):\n",
		TABLE_MISSED);
	table_aim(out, "objcache pair / the better floor sequence (same process)",
		  ratio(pair, floor_of(o)), "", 1.25);
	table_aim(out, "objcache pair / librseq's array (buffer) pop+push (#38)",
		  ratio(pair, o->floor_buffer), "", 1.25);
	table_aim(out, "objcache pair / glibc's (same process)", ratio(pair, o->glibc_pair_here), "",
		  0.30);
	table_aim(out, "objcache pair / tcmalloc's",
		  ratio_to(r, MEMORY_TCMALLOC, pair, m[MEMORY_TCMALLOC].pair[SIZE_64]), "", 0.50);
	table_aim(out, "objcache / tcmalloc, cold set, per operation",
		  ratio_to(r, MEMORY_TCMALLOC, o->cold, m[MEMORY_TCMALLOC].cold), "", 0.60);
	table_aim(out, "objcache / jemalloc, batches of 16",
		  ratio_to(r, MEMORY_JEMALLOC, o->batch16, m[MEMORY_JEMALLOC].batch16), "", 0.50);
	table_aim(out, "objcache pair / glibc's, own area (Table 8 (d))",
		  r->setup_ran[MEMORY_OWN_AREA] ? ratio(own->objcache, own->glibc) : -1, "", 0.35);
	table_aim(out, "objcache pair / glibc's, worst forced backend (8 (d))", worst_forced(r), "",
		  1.00);
	table_aim(out, "worst pair / median over processes, glibc's area",
		  spread_worst(&r->spread[MEMORY_SPREAD_GLIBC]), "", 1.30);
	table_aim(out, "worst pair / median over processes, own area",
		  spread_worst(&r->spread[MEMORY_SPREAD_OWN]), "", 1.30);
	table_aim(out, "objcache pair, 2x CPUs threads / one thread",
		  ratio(o->pair_crowded[SIZE_64], pair), "", 1.30);
	table_aim(out, "fastcpu_counter_add(): per-CPU memory / FASTCPU_1.2",
		  ratio(c->new_add_ns, c->old_add_ns), "", 1.00);
	snprintf(bytes, sizeof(bytes), " %5.1f  ", c->new_bytes);
	snprintf(most, sizeof(most), "%d + a share of chunks", 8 * c->cid_limit);
	table_aim_text(out, "counter bytes (address space) per counter", bytes, most);
}

static void text_intro(const struct memory_report *r, FILE *out)
{
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
}

void memory_report_text(const struct memory_report *r, FILE *out)
{
	text_intro(r, out);
	text_pairs(r, out);
	text_alloc_free(r, out);
	text_setups(r, out);
	text_spread(r, out);
	text_counters(&r->counters, out);
	text_objects(r, out);
	text_aims(r, out);
}

/* A CSV row: its key (fmt), median and best, then worst and the
 * processes (empty where the row has no spread: worst < 0). */
static void csv_row(double worst, int processes, FILE *out, enum table_decimals decimals,
		    double median, double best, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static void csv_row(double worst, int processes, FILE *out, enum table_decimals decimals,
		    double median, double best, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fprintf(out, ",%.*f,%.*f,", decimals, median, decimals, best);
	if (worst >= 0)
		fprintf(out, "%.*f,%d", decimals, worst, processes);
	else
		fputc(',', out);
	fputc('\n', out);
}

/* The object cache's process: the floors, the other index, glibc there. */
static void csv_same_process(const char *name, const struct memory_round *m,
			     const struct memory_round *b, FILE *out)
{
	const struct { const char *name; double median, best; } same[] = {
		{ "floor: librseq-shaped list pair 64", m->floor_list, b->floor_list },
		{ "floor: librseq-shaped buffer pair 64", m->floor_buffer, b->floor_buffer },
		{ "pair 64 by CPU number", m->pair_by_cpu, b->pair_by_cpu },
		{ "glibc pair 64 in this process", m->glibc_pair_here, b->glibc_pair_here },
	};

	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++)
		csv_row(-1, 0, out, TABLE_NS, same[k].median, same[k].best, "8a,%s,%s,1", name,
			  same[k].name);
}

static void csv_allocator(const struct memory_report *r, enum memory_allocator a, FILE *out)
{
	const struct memory_round *m = &r->median[a], *b = &r->best[a];
	const char *name = memory_allocator_names[a];

	for (int i = 0; i < MEMORY_SIZES; i++) {
		csv_row(-1, 0, out, TABLE_NS, m->pair[i], b->pair[i], "8a,%s,pair %zu,1", name,
			  memory_sizes[i]);
		csv_row(-1, 0, out, TABLE_NS, m->pair_crowded[i], b->pair_crowded[i], "8a,%s,pair %zu,%d",
			  name, memory_sizes[i], r->settings.crowd);
	}
	csv_row(-1, 0, out, TABLE_NS, m->many_alloc, b->many_alloc, "8b,%s,alloc of 10000,1", name);
	csv_row(-1, 0, out, TABLE_NS, m->many_free, b->many_free, "8b,%s,free of 10000,1", name);
	csv_row(-1, 0, out, TABLE_NS, m->batch16, b->batch16, "8b,%s,batch of 16,1", name);
	csv_row(-1, 0, out, TABLE_NS, m->cold, b->cold, "8b,%s,cold set per operation,1", name);
	if (a == MEMORY_OBJCACHE)
		csv_same_process(name, m, b, out);
	for (int i = 0; i < MEMORY_FOOTPRINT_SIZES; i++)
		csv_row(-1, 0, out, TABLE_BYTES, m->bytes_per_object[i], b->bytes_per_object[i],
			  "8c,%s,bytes per %zu-byte object,1", name, memory_footprint_sizes[i]);
	for (int i = 0; i < MEMORY_HELD_THREADS; i++)
		csv_row(-1, 0, out, TABLE_WHOLE, m->held_bytes[i], b->held_bytes[i], "8c,%s,bytes held,%d",
			  name, memory_held_threads[i]);
}

static void csv_counters(const struct memory_counters *c, FILE *out)
{
	csv_row(-1, 0, out, TABLE_BYTES, c->old_bytes, c->old_bytes,
		  "8c,counter FASTCPU_1.2,bytes per counter,1");
	csv_row(-1, 0, out, TABLE_BYTES, c->new_bytes, c->new_bytes,
		  "8c,counter per-CPU memory,bytes per counter,1");
	csv_row(-1, 0, out, TABLE_NS, c->old_add_ns, c->old_add_best, "8c,counter FASTCPU_1.2,add,1");
	csv_row(-1, 0, out, TABLE_NS, c->new_add_ns, c->new_add_best, "8c,counter per-CPU memory,add,1");
}

void memory_report_csv(const struct memory_report *r, FILE *out)
{
	fprintf(out, "table,allocator,case,threads,median_ns,best_ns,worst_ns,processes\n");
	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (r->present[a])
			csv_allocator(r, (enum memory_allocator)a, out);
	for (int k = 0; k < MEMORY_SETUPS; k++)
		if (r->setup_ran[k]) {
			csv_row(-1, 0, out, TABLE_NS, r->setup_median[k].objcache, r->setup_best[k].objcache,
				  "8d,libfastcpu objcache,%s: pair 64,1", memory_setup_names[k]);
			csv_row(-1, 0, out, TABLE_NS, r->setup_median[k].glibc, r->setup_best[k].glibc,
				  "8d,glibc malloc,%s: pair 64,1", memory_setup_names[k]);
		}
	for (int k = 0; k < MEMORY_SPREADS; k++) {
		const struct memory_spread_stats *st = &r->spread[k];

		if (st->processes == 0)
			continue;
		csv_row(st->pair[SPREAD_WORST], st->processes, out, TABLE_NS,
			st->pair[SPREAD_MEDIAN], st->pair[SPREAD_BEST],
			"8e,libfastcpu objcache,%s: pair 64,1", memory_spread_names[k]);
		csv_row(st->to_floor[SPREAD_WORST], st->processes, out, TABLE_NS,
			st->to_floor[SPREAD_MEDIAN], st->to_floor[SPREAD_BEST],
			"8e,libfastcpu objcache,%s: pair 64 / the better floor (ratio),1",
			memory_spread_names[k]);
		csv_row(st->to_glibc[SPREAD_WORST], st->processes, out, TABLE_NS,
			st->to_glibc[SPREAD_MEDIAN], st->to_glibc[SPREAD_BEST],
			"8e,libfastcpu objcache,%s: pair 64 / glibc's (ratio),1",
			memory_spread_names[k]);
		csv_row(spread_worst(st), st->processes, out, TABLE_NS, spread_worst(st),
			spread_worst(st), "8e,libfastcpu objcache,%s: worst pair / median (ratio),1",
			memory_spread_names[k]);
	}
	csv_counters(&r->counters, out);
}
