/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report-text.c: the tables, for people. */

#include <string.h>

#include "fastcpu.h"
#include "report-aims.h"
#include "table.h"

static void text_ns(FILE *out, const struct bench_result *b)
{
	table_number(out, 8, b->best_ns);
	table_number(out, 8, b->median_ns);
}

/* A row's name in width, then its best and median ns. */
static void text_case(FILE *out, int width, const char *name, const struct bench_result *b)
{
	fprintf(out, "%-*s", width, name);
	text_ns(out, b);
}

static void text_cycles(FILE *out, const struct bench_result *b)
{
	fputc(' ', out);
	if (b->best_cycles < 0) {
		table_absent(out, 8);
		table_absent(out, 8);
	} else {
		fprintf(out, " %8.1f %8.1f", b->best_cycles, b->median_cycles);
	}
}

/* The cases of a table keyed by id that ran, from id from on: each its
 * name in width, best and median ns (and cycles), then past id 0 its
 * ratio to ref (where ref ran). */
static void text_cases(FILE *out, const struct bench_result *table, int from, int n, int width,
		       const struct bench_result *ref, bool cycles)
{
	for (int i = from; i < n; i++) {
		const struct bench_result *b = bench_ran(&table[i]);

		if (b == NULL)
			continue;
		text_case(out, width, b->name, b);
		if (cycles)
			text_cycles(out, b);
		if (i > 0 && ref)
			table_ratio(out, 8, report_ratio(b, ref));
		fputc('\n', out);
	}
}

static void text_machine(const struct report *r, FILE *out)
{
	const struct report_machine *m = &r->machine;

	fprintf(out, "fastcpu-bench: %s, %d CPUs; %s; %s (rseq %s)\n", m->cpu_model, m->cpus,
		m->kernel, m->libc, m->glibc_rseq_size > 0 ? "registered by glibc" :
		m->glibc_rseq_size == 0 ? "left to libfastcpu" : "unknown to glibc");
	fprintf(out, "this machine has: rseq %s, RDPID %s, vDSO getcpu %s\n",
		strncmp(m->backend, "rseq", 4) != 0 ? "no (not usable in this process)" :
		m->rseq_feature_size > 0 ? "yes" : "yes (feature size not advertised: Linux < 6.3)",
		m->rdpid ? "yes" : "no", m->vdso_getcpu ? "yes" : "no");
	fprintf(out, "pinned to CPU %d; %d runs of %lu calls per case, interleaved; "
		"best and median; empty loop subtracted%s\n", m->pinned_cpu, m->runs, m->iters,
		m->cycles ? "" : "; cycles: not exposed on this machine");
}

static void text_reading(const struct report *r, FILE *out)
{
	const struct bench_result *glibc = bench_ran(&r->reading[WAY_GLIBC_SCHED]);

	fprintf(out, "\nTable 1: reading the current CPU number, this process (%s)\n",
		r->machine.backend);
	fprintf(out, "%-36s %8s %8s%s  %s\n", "", "best ns", "median",
		r->machine.cycles ? "  best cyc   median" : "",
		"median / glibc sched_getcpu");
	text_cases(out, r->reading, 0, WAYS, 36, glibc, r->machine.cycles);
	text_case(out, 36, "first call in a new thread: libfastcpu", &r->first_fastcpu);
	fputc('\n', out);
	text_case(out, 36, "first call in a new thread: glibc", &r->first_glibc);
	fputc('\n', out);
}

/* A ratio to a cost of its own (above noise), else absent. */
static void text_excess_ratio(FILE *out, const struct bench_result *b,
			      const struct bench_result *to)
{
	if (to != NULL && to->median_ns > 0.05)
		table_ratio(out, 7, report_ratio(b, to));
	else
		table_absent(out, 7);
}

static void text_latency(const struct report *r, FILE *out)
{
	const struct latency_table *t = &r->latency;
	const struct bench_result *ga = bench_ran(&t->add[WAY_GLIBC_SCHED]);
	const struct bench_result *gb = bench_ran(&t->chain[WAY_GLIBC_SCHED]);

	if (t->count == 0)
		return;
	fprintf(out, "\nTable 7: the answer waited on, ns per call beyond the work that waits on it\n"
		"(a) a locked add on the answer's shard follows; the add alone: %.2f ns\n"
		"(b) the answer indexes a load the next index adds; the chain alone: %.2f ns\n",
		t->add[WAY_NOTHING].median_ns, t->chain[WAY_NOTHING].median_ns);
	fprintf(out, "%-36s %8s %8s %7s   %8s %8s %7s\n", "", "(a) best", "median", "/glibc",
		"(b) best", "median", "/glibc");
	for (int i = 0; i < t->count; i++) {
		enum way w = t->order[i];

		if (w == WAY_NOTHING)
			continue;
		text_case(out, 36, t->add[w].name, &t->add[w]);
		text_excess_ratio(out, &t->add[w], ga);
		fputs("  ", out);
		text_ns(out, &t->chain[w]);
		text_excess_ratio(out, &t->chain[w], gb);
		fputc('\n', out);
	}
}

static void text_setup_row(const struct setup_result *s, FILE *out)
{
	if (s->served[0] == '\0') {
		fprintf(out, "%s: %s\n", TABLE_ABSENT, s->why_not[0] ? s->why_not : "not run");
		return;
	}
	fprintf(out, "%-16s", s->served);
	for (int c = 0; c < SETUP_CELLS; c++)
		table_verdict(out, 10, report_setup_cell(s, (enum setup_cell)c), SETUP_CELL_MOST);
	fputc('\n', out);
}

static void text_setups(const struct report *r, FILE *out)
{
	fprintf(out, "\nTable 10: every setup the library meets, each in a process of its own:\n"
		"libfastcpu / glibc there, ratios of medians (\"%c\" above %.2fx). sched, getcpu:\n"
		"sched_getcpu(), getcpu(&c, &n) where nothing waits, the empty loop subtracted;\n"
		"+add: the call and a locked add on its answer's shard, whole; per-CPU add:\n"
		"fastcpu_counter_add() / an atomic add on the shard of fastcpu_current_cpu();\n"
		"objcache: the object cache's alloc and free / malloc's and free's, 64 bytes.\n"
		"Forced rows: glibc's rseq off too (glibc as in a thread without rseq); forced\n"
		"syscall against the system call (glibc where the kernel has no vDSO getcpu)\n",
		TABLE_MISSED, SETUP_CELL_MOST);
	fprintf(out, "%-40s %-16s", "setup", "served by");
	for (int c = 0; c < SETUP_CELLS; c++)
		fprintf(out, " %11s", setup_cell_names[c]);
	fputc('\n', out);
	for (int id = 0; id < SETUP_COUNT; id++) {
		fprintf(out, "%-40s ", setup_name((enum setup_id)id));
		text_setup_row(&r->setups[id], out);
	}
}

/* Seed 000's cache table: NONE the bare mechanism, NULL the library with
 * no cache, MISS the first call in a new clock tick, HIT the cache's
 * steady state; best / median ns. */
static void text_cache(const struct report *r, FILE *out)
{
	static const struct { enum way bare; enum setup_id off, on; } rows[] = {
		{ WAY_RDPID, SETUP_RDPID, SETUP_RDPID_CACHE },
		{ WAY_VDSO, SETUP_VDSO, SETUP_VDSO_CACHE },
		{ WAY_SYSCALL, SETUP_SYSCALL, SETUP_SYSCALL_CACHE },
	};
	double syscall_hit = -1;

	fprintf(out, "\nTable 2: caching (seed 000), sched_getcpu(), best / median ns;\n"
		"NONE: the bare mechanism; NULL: libfastcpu without cache; MISS: a call\n"
		"after the cache was invalidated, timed alone; HIT: with FASTCPU_CACHE=on\n"
		"(where the cache cannot help a backend, it is not put in front: HIT is NULL)\n");
	fprintf(out, "%-8s %17s %17s %17s %17s  %s\n", "backend", "NONE (bare)",
		"NULL (no cache)", "MISS", "HIT", "HIT / NULL");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct setup_result *off = report_forced(r, rows[k].off);
		const struct setup_result *on = report_setup(r, rows[k].on);
		const struct bench_result *bare = bench_ran(&r->reading[rows[k].bare]);

		if (off == NULL || on == NULL ||
		    (on->served_id & ~FASTCPU_BACKEND_CACHED) != off->served_id)
			continue;
		fprintf(out, "%-8s", off->served);
		if (bare)
			table_best_median(out, bare->best_ns, bare->median_ns);
		else
			table_absent(out, 17);
		table_best_median(out, off->sched.best_ns, off->sched.median_ns);
		table_best_median(out, on->miss.best_ns, on->miss.median_ns);
		table_best_median(out, on->sched.best_ns, on->sched.median_ns);
		fprintf(out, "  %.3fx\n", report_ratio(&on->sched, &off->sched));
		if (rows[k].off == SETUP_SYSCALL)
			syscall_hit = report_ratio(&on->syscall, &on->sched);
	}
	if (syscall_hit > 0)
		fprintf(out, "syscall+cache hit against the bare getcpu syscall, same process: "
			"%.1fx faster\n", syscall_hit);
}

static void generic_row(FILE *out, const char *name, double generic, double specialized)
{
	fprintf(out, "%-24s", name);
	table_number(out, 10, generic);
	table_number(out, 12, specialized);
	fputc('\n', out);
}

static void text_generic(const struct report *r, FILE *out)
{
	const struct bench_result *w = r->reading;

	fprintf(out, "\nTable 3: generic getcpu(&c, NULL) against specialized sched_getcpu(), median ns\n");
	fprintf(out, "%-24s %10s %12s\n", "", "GENERIC", "SPECIALIZED");
	generic_row(out, r->machine.backend, w[WAY_FASTCPU_GETCPU_GENERIC].median_ns,
		    w[WAY_FASTCPU_SCHED].median_ns);
	for (int id = SETUP_RDPID; id <= SETUP_SYSCALL_CACHE; id++) {
		const struct setup_result *f = report_setup(r, (enum setup_id)id);

		if (f)
			generic_row(out, setup_name((enum setup_id)id), f->generic.median_ns,
				    f->sched.median_ns);
	}
	if (bench_ran(&w[WAY_GLIBC_GETCPU_GENERIC]))
		generic_row(out, "glibc", w[WAY_GLIBC_GETCPU_GENERIC].median_ns,
			    w[WAY_GLIBC_SCHED].median_ns);
}

static void text_counters_one_thread(const struct report *r, FILE *out)
{
	const struct bench_result *shard = bench_ran(&r->counter_one[COUNTER_PERCPU_FASTCPU]);

	fprintf(out, "\nTable 4: counter increments (seed 001). One thread, pinned, %d runs\n"
		"interleaved; ns per increment, empty loop subtracted\n", r->machine.runs);
	fprintf(out, "%-44s %8s %8s  %s\n", "", "best ns", "median",
		"median / atomic add on own shard");
	text_cases(out, r->counter_one, 1, COUNTER_KINDS, 44, shard, false);
}

static void text_counters_threads(const struct report *r, FILE *out)
{
	fprintf(out, "\nWith threads, free to migrate: the CPU time of each thread per\n"
		"increment, ns, median of the rounds, empty loop subtracted\n%-44s", "");
	for (int t = 0; t < r->thread_counts; t++)
		fprintf(out, " %6d thr", r->threads[t]);
	fputc('\n', out);
	for (int k = 1; k < COUNTER_KINDS; k++) {
		fprintf(out, "%-44s", counter_names[k]);
		for (int t = 0; t < r->thread_counts; t++)
			table_measured(out, 10, r->counter_ns[k][t]);
		fputc('\n', out);
	}
}

static void text_counters_forced(const struct report *r, FILE *out)
{
	fprintf(out, "\nWhere a fallback serves (each backend forced, one process each): the\n"
		"per-CPU add against an atomic add on the shard fastcpu_current_cpu() names\n");
	fprintf(out, "%-26s %-16s %17s %17s  %s\n", "forced", "bound", "counter add",
		"atomic on shard", "ratio");
	for (int id = SETUP_RDPID; id <= SETUP_SYSCALL_CACHE; id++) {
		const struct setup_result *f = report_setup(r, (enum setup_id)id);

		if (f == NULL || !f->has_counter)
			continue;
		fprintf(out, "%-26s %-16s", setup_name((enum setup_id)id), f->served);
		table_best_median(out, f->counter.best_ns, f->counter.median_ns);
		table_best_median(out, f->shard.best_ns, f->shard.median_ns);
		table_ratio(out, 7, report_ratio(&f->counter, &f->shard));
		fputc('\n', out);
	}
}

static void text_loops(const struct report *r, FILE *out)
{
	const struct bench_result *floor = bench_ran(&r->loops[LOOP_FLOOR]);

	fprintf(out, "\nTable 5: reading in a loop (4 reads an iteration, nothing else called),\n"
		"ns per read; the librseq-style rows are this benchmark's own code\n");
	fprintf(out, "%-42s %8s %8s  %s\n", "", "best ns", "median", "median - floor");
	for (int i = 0; i < LOOP_CASES; i++) {
		const struct bench_result *b = bench_ran(&r->loops[i]);

		if (b == NULL)
			continue;
		text_case(out, 42, b->name, b);
		if (i != LOOP_EMPTY && floor)
			fprintf(out, "  %+8.3f", b->median_ns - floor->median_ns);
		fputc('\n', out);
	}
}

static void text_restricted(const struct report *r, FILE *out)
{
	const struct report_restricted *x = &r->restricted;

	if (x->threads == 0)
		return;
	fprintf(out, "\nTable 6: sharded counter (128-byte shards) in a process restricted to CPUs %s\n"
		"of %d, %d threads; fastcpu_cid_limit() %d\n", x->cpus, r->machine.cpus,
		x->threads, r->cid_limit);
	fprintf(out, "%-16s %12s %12s %14s %18s\n", "index", "ns/incr", "shards used",
		"highest index", "bytes to highest");
	for (int i = 0; i < 2; i++)
		fprintf(out, "%-16s %12.2f %12d %14d %18lu\n", x->by[i].index, x->by[i].ns,
			x->by[i].used, x->by[i].highest, x->by[i].bytes);
}

static void text_preempted(const struct report *r, FILE *out)
{
	const struct preempted_table *t = &r->preempted;
	const struct { const char *name; const struct preempted_run *run; bool shown; } rows[2] = {
		{ "without", &t->off, true },
		{ "with", &t->on, t->offered },
	};

	if (!t->ran)
		return;
	fprintf(out, "\nTable 9: the per-CPU lock's holder preempted: holder and waiter on one CPU,\n"
		"the holder taking the lock for 2 us at a time; the kernel's time-slice extension\n"
		"(Linux 7.0, where built in) %s\n", t->offered ? "offered here: without it, then with it" :
		"not offered here: without it only");
	fprintf(out, "%-10s %14s %14s %16s %10s\n", "extension", "acquisitions", "found taken",
		"waiter ns/acq.", "granted");
	for (int i = 0; i < 2; i++)
		if (rows[i].shown)
			fprintf(out, "%-10s %14ld %13.2f%% %16.1f %10ld\n", rows[i].name,
				rows[i].run->acquisitions,
				rows[i].run->acquisitions ? 100.0 * (double)rows[i].run->found_taken /
					(double)rows[i].run->acquisitions : 0,
				rows[i].run->wait_ns, rows[i].run->granted);
}

static void text_aims(const struct report *r, FILE *out)
{
	struct report_aims aims;

	report_aims(r, &aims);
	fprintf(out, "\nThe project's aims, measured in this one process: ratio of medians (\"%c\"\n"
		"where missed), the spread of the runs (quartile to quartile), ratio of bests,\n"
		"and the aim\n", TABLE_MISSED);
	for (int i = 0; i < aims.count; i++) {
		const struct report_aim *t = &aims.aim[i];
		char spread[32] = "(no spread)", best[16] = "best   n/a", detail[64];

		/* A ratio of two tables' medians has no runs of its own. */
		if (t->low >= 0)
			snprintf(spread, sizeof(spread), "(%.2f-%.2fx)", t->low, t->high);
		if (t->best >= 0)
			snprintf(best, sizeof(best), "best %4.2fx", t->best);
		snprintf(detail, sizeof(detail), "%-12s  %s", spread, best);
		table_aim(out, t->what, t->value, detail, t->most);
	}
}

void report_text(const struct report *r, FILE *out)
{
	text_machine(r, out);
	text_reading(r, out);
	text_latency(r, out);
	text_setups(r, out);
	text_cache(r, out);
	text_generic(r, out);
	text_counters_one_thread(r, out);
	text_counters_threads(r, out);
	text_counters_forced(r, out);
	text_loops(r, out);
	text_restricted(r, out);
	text_preempted(r, out);
	text_aims(r, out);
}
