/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/report.c: prints the tables, or the same numbers as JSON. */

#include <string.h>

#include "report.h"

static const struct bench_result *find(const struct report *r, const char *name)
{
	for (int i = 0; i < r->reading_count; i++)
		if (strcmp(r->reading[i].name, name) == 0)
			return &r->reading[i];
	return NULL;
}

static double median_of(const struct report *r, const char *name)
{
	const struct bench_result *b = find(r, name);

	return b ? b->median_ns : -1;
}

static double ratio(const struct bench_result *a, const struct bench_result *b)
{
	return a && b && b->median_ns > 0 ? a->median_ns / b->median_ns : -1;
}

/* The comparisons the project promises, each from one process. */
struct target {
	const char *what;
	double value, best, limit;	/* ratio of medians, of bests */
	double low, high;	/* from the quartiles: the spread of the runs */
};

static double best_ratio(const struct bench_result *a, const struct bench_result *b)
{
	return a && b && b->best_ns > 0 ? a->best_ns / b->best_ns : -1;
}

/* a/b at its lowest and highest within the runs' quartiles (plus, for
 * the ratio that keeps the loop in, the empty loop's median e). */
static void spread(struct target *t, const struct bench_result *a,
		   const struct bench_result *b, double e)
{
	t->low = t->high = -1;
	if (a == NULL || b == NULL || b->q1_ns + e <= 0 || b->q3_ns + e <= 0)
		return;
	t->low = (a->q1_ns + e) / (b->q3_ns + e);
	t->high = (a->q3_ns + e) / (b->q1_ns + e);
}

static const struct bench_result *find_counter(const struct report *r, enum counter_kind k)
{
	for (int i = 0; i < r->counter_one_count; i++)
		if (strcmp(r->counter_one[i].name, counter_names[k]) == 0)
			return &r->counter_one[i];
	return NULL;
}

/* A row of the setup table that ran. */
static const struct setup_result *setup_row(const struct report *r, enum setup_id id)
{
	return r->setups[id].served[0] != '\0' ? &r->setups[id] : NULL;
}

/* The row of a backend forced with the cache off, if it bound that. */
static const struct setup_result *forced_row(const struct report *r, enum setup_id id)
{
	const struct setup_result *s = setup_row(r, id);

	return s && strcmp(s->served, setup_backend(id)) == 0 ? s : NULL;
}

/* The setup table's cells: libfastcpu / glibc there (the system call on
 * setup_plain_is_syscall() rows), ratios of medians; -1 where not run. */
enum setup_cell { CELL_SCHED, CELL_GETCPU, CELL_SCHED_ADD, CELL_GETCPU_ADD,
		  CELL_PERCPU_ADD, CELL_OBJCACHE, SETUP_CELLS };
static const char *const cell_names[SETUP_CELLS] = {
	"sched", "getcpu", "sched+add", "getcpu+add", "per-CPU add", "objcache",
};

/* (alone + a) / (alone + b): a call and the locked add that waits on it,
 * whole, as the program pays them. */
static double waited_ratio(const struct bench_result *alone, const struct bench_result *a,
			   const struct bench_result *b)
{
	return alone->median_ns + b->median_ns > 0 ?
	       (alone->median_ns + a->median_ns) / (alone->median_ns + b->median_ns) : -1;
}

static double setup_cell(const struct setup_result *s, enum setup_cell c)
{
	if (s == NULL)
		return -1;
	switch (c) {
	case CELL_SCHED:
		return ratio(&s->sched, &s->plain_sched);
	case CELL_GETCPU:
		return s->has_getcpu ? ratio(&s->getcpu, &s->plain_getcpu) : -1;
	case CELL_SCHED_ADD:
		return waited_ratio(&s->add_alone, &s->sched_add, &s->plain_sched_add);
	case CELL_GETCPU_ADD:
		return s->has_getcpu ? waited_ratio(&s->add_alone, &s->getcpu_add,
						    &s->plain_getcpu_add) : -1;
	case CELL_PERCPU_ADD:
		return s->has_counter ? ratio(&s->counter, &s->shard) : -1;
	case CELL_OBJCACHE:
		return s->has_counter ? ratio(&s->objcache_pair, &s->malloc_pair) : -1;
	default:
		return -1;
	}
}

/* The setup table's highest cell: its value, row and column. */
static double worst_cell(const struct report *r, int *row, int *cell)
{
	double worst = -1;

	for (int id = 0; id < SETUP_COUNT; id++)
		for (int c = 0; c < SETUP_CELLS; c++) {
			double v = setup_cell(setup_row(r, (enum setup_id)id), (enum setup_cell)c);

			if (v > worst) {
				worst = v;
				*row = id;
				*cell = c;
			}
		}
	return worst;
}

/* Table 4's median with nthreads threads, or -1. */
static double counter_at(const struct report *r, enum counter_kind k, int nthreads)
{
	for (int t = 0; t < r->thread_counts; t++)
		if (r->threads[t] == nthreads)
			return r->counter_ns[k][t];
	return -1;
}

/* A row of table 7 by name: the locked add's (a), or the chain's (b). */
static const struct bench_result *find_latency(const struct latency_table *t, bool chain,
					       const char *name)
{
	for (int i = 0; t != NULL && i < t->count; i++)
		if (strcmp(t->add[i].name, name) == 0)
			return chain ? &t->chain[i] : &t->add[i];
	return NULL;
}

#define MAX_TARGETS 16

static int targets(const struct report *r, struct target *t)
{
	const struct bench_result *empty = &r->reading[0];
	const struct bench_result *bare = find(r, "rseq cpu_id load (bare)");
	const struct bench_result *inl = find(r, "fastcpu_current_cpu() inline");
	int n = 0;

	const struct bench_result *ls = find(r, "libfastcpu sched_getcpu()");
	const struct bench_result *gs = find(r, "glibc sched_getcpu()");
	const struct bench_result *lg = find(r, "libfastcpu getcpu(&c, &n)");
	const struct bench_result *gg = find(r, "glibc getcpu(&c, &n)");

	t[n++] = (struct target){ "sched_getcpu(): libfastcpu / glibc",
		ratio(ls, gs), best_ratio(ls, gs),
		r->machine.glibc_rseq_size > 0 ? 1.0 : 0.45, -1, -1 };
	spread(&t[n - 1], ls, gs, 0);
	t[n++] = (struct target){ "getcpu(&c, &n): libfastcpu / glibc",
		ratio(lg, gg), best_ratio(lg, gg), 0.5, -1, -1 };
	spread(&t[n - 1], lg, gg, 0);
	/* Both cost well under a cycle once the loop is subtracted, so this
	 * one keeps the loop in (a quarter of an iteration a read). */
	t[n++] = (struct target){ "fastcpu_current_cpu() / bare rseq load, loop included",
		bare && inl ? (inl->median_ns + empty->median_ns) /
			      (bare->median_ns + empty->median_ns) : -1,
		bare && inl ? (inl->best_ns + empty->best_ns) /
			      (bare->best_ns + empty->best_ns) : -1,
		1.2, -1, -1 };
	spread(&t[n - 1], inl, bare, empty->median_ns);

	/* Where the answer is waited on: what each adds to a locked add. */
	for (int i = 0; i < 2; i++) {
		static const char *const names[2][3] = {
			{ "sched_getcpu() + locked add: libfastcpu / glibc excess",
			  LATENCY_FASTCPU_SCHED, LATENCY_GLIBC_SCHED },
			{ "getcpu(&c, &n) + locked add: libfastcpu / glibc excess",
			  LATENCY_FASTCPU_GETCPU, LATENCY_GLIBC_GETCPU },
		};
		const struct bench_result *ours = find_latency(r->latency, false, names[i][1]);
		const struct bench_result *glibc = find_latency(r->latency, false, names[i][2]);

		t[n++] = (struct target){ names[i][0], ratio(ours, glibc),
			best_ratio(ours, glibc), 1.0, -1, -1 };
		spread(&t[n - 1], ours, glibc, 0);
	}

	const struct bench_result *add = find_counter(r, COUNTER_PERCPU_RSEQ);
	const struct bench_result *shard = find_counter(r, COUNTER_PERCPU_FASTCPU);
	const struct bench_result *reference = find_counter(r, COUNTER_REFERENCE);
	double one = counter_at(r, COUNTER_PERCPU_RSEQ, 1);
	double crowded = counter_at(r, COUNTER_PERCPU_RSEQ, 2 * r->machine.cpus);

	t[n++] = (struct target){ "fastcpu_counter_add() / atomic add on own shard",
		ratio(add, shard), best_ratio(add, shard), 0.35, -1, -1 };
	spread(&t[n - 1], add, shard, 0);
	t[n++] = (struct target){ "fastcpu_counter_add() / librseq-shaped reference",
		ratio(add, reference), best_ratio(add, reference), 1.2, -1, -1 };
	spread(&t[n - 1], add, reference, 0);
	t[n++] = (struct target){ "fastcpu_counter_add(), 2x CPUs threads / 1 thread",
		one > 0 && crowded > 0 ? crowded / one : -1, -1, 1.3, -1, -1 };
	for (int i = 0; i < 3; i++) {
		static const char *const names[3] = {
			"forced rdpid: counter add / atomic add on own shard",
			"forced vdso: counter add / atomic add on own shard",
			"forced syscall: counter add / atomic add on own shard",
		};
		static const enum setup_id ids[3] = { SETUP_RDPID, SETUP_VDSO, SETUP_SYSCALL };
		const struct setup_result *f = forced_row(r, ids[i]);

		t[n++] = (struct target){ names[i], f ? ratio(&f->counter, &f->shard) : -1,
			f ? best_ratio(&f->counter, &f->shard) : -1, 1.0, -1, -1 };
		if (f)
			spread(&t[n - 1], &f->counter, &f->shard, 0);
	}
	{
		static char what[96];
		int row = 0, cell = 0;
		double worst = worst_cell(r, &row, &cell);

		snprintf(what, sizeof(what), "setup table's highest cell (%s, %s)",
			 setup_name((enum setup_id)row), cell_names[cell]);
		t[n++] = (struct target){ worst >= 0 ? what : "setup table's highest cell",
			worst, -1, 1.05, -1, -1 };
	}
	return n;
}

static void print_ns(FILE *out, const struct bench_result *b)
{
	fprintf(out, "%8.2f %8.2f", b->best_ns, b->median_ns);
}

static void print_cycles(FILE *out, const struct report *r, const struct bench_result *b)
{
	if (!r->machine.cycles)
		return;
	if (b->best_cycles < 0)
		fprintf(out, "  %8s %8s", "-", "-");
	else
		fprintf(out, "  %8.1f %8.1f", b->best_cycles, b->median_cycles);
}

static void text_reading(const struct report *r, FILE *out)
{
	const struct bench_result *glibc = find(r, "glibc sched_getcpu()");

	fprintf(out, "\nTable 1: reading the current CPU number, this process (%s)\n",
		r->machine.backend);
	fprintf(out, "%-36s %8s %8s%s  %s\n", "", "best ns", "median",
		r->machine.cycles ? "  best cyc   median" : "",
		"median / glibc sched_getcpu");
	for (int i = 0; i < r->reading_count; i++) {
		const struct bench_result *b = &r->reading[i];

		fprintf(out, "%-36s ", b->name);
		print_ns(out, b);
		print_cycles(out, r, b);
		if (i > 0 && glibc)
			fprintf(out, "  %6.2fx", ratio(b, glibc));
		fputc('\n', out);
	}
	fprintf(out, "%-36s ", "first call in a new thread: libfastcpu");
	print_ns(out, &r->first_fastcpu);
	fputc('\n', out);
	fprintf(out, "%-36s ", "first call in a new thread: glibc");
	print_ns(out, &r->first_glibc);
	fputc('\n', out);
}

static void text_setups(const struct report *r, FILE *out)
{
	fprintf(out, "\nTable 10: every setup the library meets, each in a process of its own:\n"
		"libfastcpu / glibc there, ratios of medians (\"!\" above 1.05x). sched, getcpu:\n"
		"sched_getcpu(), getcpu(&c, &n) where nothing waits, the empty loop subtracted;\n"
		"+add: the call and a locked add on its answer's shard, whole; per-CPU add:\n"
		"fastcpu_counter_add() / an atomic add on the shard of fastcpu_current_cpu();\n"
		"objcache: the object cache's alloc and free / malloc's and free's, 64 bytes.\n"
		"Forced rows: glibc's rseq off too (glibc as in a thread without rseq); forced\n"
		"syscall against the system call (glibc where the kernel has no vDSO getcpu)\n");
	fprintf(out, "%-40s %-16s", "setup", "served by");
	for (int c = 0; c < SETUP_CELLS; c++)
		fprintf(out, " %11s", cell_names[c]);
	fputc('\n', out);
	for (int id = 0; id < SETUP_COUNT; id++) {
		const struct setup_result *s = &r->setups[id];

		fprintf(out, "%-40s ", setup_name((enum setup_id)id));
		if (s->served[0] == '\0') {
			fprintf(out, "n/a: %s\n", s->why_not[0] ? s->why_not : "not run");
			continue;
		}
		fprintf(out, "%-16s", s->served);
		for (int c = 0; c < SETUP_CELLS; c++) {
			double v = setup_cell(s, (enum setup_cell)c);

			if (v < 0)
				fprintf(out, " %11s", "n/a");
			else
				fprintf(out, " %9.2fx%c", v, v > 1.05 ? '!' : ' ');
		}
		fputc('\n', out);
	}
}

/* Seed 000's cache table: NONE the bare mechanism, NULL the library with
 * no cache, MISS the first call in a new clock tick, HIT the cache's
 * steady state; best / median ns. */
static void text_cache(const struct report *r, FILE *out)
{
	static const struct { const char *bare; enum setup_id off, on; } rows[] = {
		{ "RDPID inline", SETUP_RDPID, SETUP_RDPID_CACHE },
		{ "vDSO getcpu, called directly", SETUP_VDSO, SETUP_VDSO_CACHE },
		{ "getcpu system call", SETUP_SYSCALL, SETUP_SYSCALL_CACHE },
	};
	double syscall_hit = -1;

	fprintf(out, "\nTable 2: caching (seed 000), sched_getcpu(), best / median ns;\n"
		"NONE: the bare mechanism; NULL: libfastcpu without cache; MISS: a call\n"
		"after the cache was invalidated, timed alone; HIT: with FASTCPU_CACHE=on\n"
		"(where the cache cannot help a backend, it is not put in front: HIT is NULL)\n");
	fprintf(out, "%-8s %17s %17s %17s %17s  %s\n", "backend", "NONE (bare)",
		"NULL (no cache)", "MISS", "HIT", "HIT / NULL");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct setup_result *off = forced_row(r, rows[k].off);
		const struct setup_result *on = setup_row(r, rows[k].on);
		const struct bench_result *bare = find(r, rows[k].bare);

		if (off == NULL || on == NULL ||
		    strncmp(on->served, off->served, strlen(off->served)) != 0)
			continue;
		fprintf(out, "%-8s", off->served);
		if (bare)
			fprintf(out, " %8.2f/%-8.2f", bare->best_ns, bare->median_ns);
		else
			fprintf(out, " %17s", "n/a");
		fprintf(out, " %8.2f/%-8.2f %8.2f/%-8.2f %8.2f/%-8.2f  %.3fx\n",
			off->sched.best_ns, off->sched.median_ns,
			on->miss.best_ns, on->miss.median_ns,
			on->sched.best_ns, on->sched.median_ns,
			ratio(&on->sched, &off->sched));
		if (rows[k].off == SETUP_SYSCALL)
			syscall_hit = ratio(&on->syscall, &on->sched);
	}
	if (syscall_hit > 0)
		fprintf(out, "syscall+cache hit against the bare getcpu syscall, same process: "
			"%.1fx faster\n", syscall_hit);
}

static void text_generic(const struct report *r, FILE *out)
{
	fprintf(out, "\nTable 3: generic getcpu(&c, NULL) against specialized sched_getcpu(), median ns\n");
	fprintf(out, "%-24s %10s %12s\n", "", "GENERIC", "SPECIALIZED");
	fprintf(out, "%-24s %10.2f %12.2f\n", r->machine.backend,
		median_of(r, "libfastcpu getcpu(&c, NULL)"),
		median_of(r, "libfastcpu sched_getcpu()"));
	for (int id = SETUP_RDPID; id <= SETUP_SYSCALL_CACHE; id++) {
		const struct setup_result *f = setup_row(r, (enum setup_id)id);

		if (f)
			fprintf(out, "%-24s %10.2f %12.2f\n", setup_name((enum setup_id)id),
				f->generic.median_ns, f->sched.median_ns);
	}
	if (find(r, "glibc getcpu(&c, NULL)"))
		fprintf(out, "%-24s %10.2f %12.2f\n", "glibc",
			median_of(r, "glibc getcpu(&c, NULL)"),
			median_of(r, "glibc sched_getcpu()"));
}

static void text_counters(const struct report *r, FILE *out)
{
	const struct bench_result *shard = find_counter(r, COUNTER_PERCPU_FASTCPU);

	fprintf(out, "\nTable 4: counter increments (seed 001). One thread, pinned, %d runs\n"
		"interleaved; ns per increment, empty loop subtracted\n", r->machine.runs);
	fprintf(out, "%-44s %8s %8s  %s\n", "", "best ns", "median",
		"median / atomic add on own shard");
	for (int i = 1; i < r->counter_one_count; i++) {
		const struct bench_result *b = &r->counter_one[i];

		fprintf(out, "%-44s ", b->name);
		print_ns(out, b);
		if (shard)
			fprintf(out, "  %6.2fx", ratio(b, shard));
		fputc('\n', out);
	}
	fprintf(out, "\nWith threads, free to migrate: the CPU time of each thread per\n"
		"increment, ns, median of the rounds, empty loop subtracted\n%-44s", "");
	for (int t = 0; t < r->thread_counts; t++)
		fprintf(out, " %6d thr", r->threads[t]);
	fputc('\n', out);
	for (int k = 1; k < COUNTER_KINDS; k++) {
		fprintf(out, "%-44s", counter_names[k]);
		for (int t = 0; t < r->thread_counts; t++)
			if (r->counter_ns[k][t] < 0)
				fprintf(out, " %10s", "n.a.");
			else
				fprintf(out, " %10.2f", r->counter_ns[k][t]);
		fputc('\n', out);
	}
	fprintf(out, "\nWhere a fallback serves (each backend forced, one process each): the\n"
		"per-CPU add against an atomic add on the shard fastcpu_current_cpu() names\n");
	fprintf(out, "%-26s %-16s %17s %17s  %s\n", "forced", "bound", "counter add",
		"atomic on shard", "ratio");
	for (int id = SETUP_RDPID; id <= SETUP_SYSCALL_CACHE; id++) {
		const struct setup_result *f = setup_row(r, (enum setup_id)id);

		if (f == NULL || !f->has_counter)
			continue;
		fprintf(out, "%-26s %-16s %8.2f/%-8.2f %8.2f/%-8.2f  %5.2fx\n",
			setup_name((enum setup_id)id), f->served,
			f->counter.best_ns, f->counter.median_ns, f->shard.best_ns,
			f->shard.median_ns, ratio(&f->counter, &f->shard));
	}
}

/* ratio() where the denominator is a cost of its own (above noise). */
static void print_excess_ratio(FILE *out, const struct bench_result *b,
			       const struct bench_result *to)
{
	if (to != NULL && to->median_ns > 0.05)
		fprintf(out, " %6.2fx", ratio(b, to));
	else
		fprintf(out, " %7s", "-");
}

static void text_latency(const struct report *r, FILE *out)
{
	const struct latency_table *t = r->latency;
	const struct bench_result *ga = find_latency(t, false, LATENCY_GLIBC_SCHED);
	const struct bench_result *gb = find_latency(t, true, LATENCY_GLIBC_SCHED);

	if (t == NULL || t->count == 0)
		return;
	fprintf(out, "\nTable 7: the answer waited on, ns per call beyond the work that waits on it\n"
		"(a) a locked add on the answer's shard follows; the add alone: %.2f ns\n"
		"(b) the answer indexes a load the next index adds; the chain alone: %.2f ns\n",
		t->add[0].median_ns, t->chain[0].median_ns);
	fprintf(out, "%-36s %8s %8s %7s   %8s %8s %7s\n", "", "(a) best", "median", "/glibc",
		"(b) best", "median", "/glibc");
	for (int i = 1; i < t->count; i++) {
		fprintf(out, "%-36s ", t->add[i].name);
		print_ns(out, &t->add[i]);
		print_excess_ratio(out, &t->add[i], ga);
		fputs("   ", out);
		print_ns(out, &t->chain[i]);
		print_excess_ratio(out, &t->chain[i], gb);
		fputc('\n', out);
	}
}

static const struct bench_result *find_loop(const struct report *r, const char *name)
{
	for (int i = 0; i < r->loop_count; i++)
		if (strcmp(r->loops[i].name, name) == 0)
			return &r->loops[i];
	return NULL;
}

static void text_loops(const struct report *r, FILE *out)
{
	const struct bench_result *floor =
		find_loop(r, "floor: bare cpu_id load, address hoisted");

	fprintf(out, "\nTable 5: reading in a loop (4 reads an iteration, nothing else called),\n"
		"ns per read; the librseq-style rows are this benchmark's own code\n");
	fprintf(out, "%-42s %8s %8s  %s\n", "", "best ns", "median", "median - floor");
	for (int i = 0; i < r->loop_count; i++) {
		const struct bench_result *b = &r->loops[i];

		fprintf(out, "%-42s ", b->name);
		print_ns(out, b);
		if (i > 0 && floor)
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

void report_text(const struct report *r, FILE *out)
{
	struct target t[MAX_TARGETS];
	int n = targets(r, t);

	fprintf(out, "fastcpu-bench: %s, %d CPUs; %s; %s (rseq %s)\n",
		r->machine.cpu_model, r->machine.cpus, r->machine.kernel,
		r->machine.libc, r->machine.glibc_rseq_size > 0 ? "registered by glibc" :
		r->machine.glibc_rseq_size == 0 ? "left to libfastcpu" : "unknown to glibc");
	fprintf(out, "this machine has: rseq %s, RDPID %s, vDSO getcpu %s\n",
		strncmp(r->machine.backend, "rseq", 4) != 0 ? "no (not usable in this process)" :
		r->machine.rseq_feature_size > 0 ? "yes" : "yes (feature size not advertised: Linux < 6.3)",
		r->machine.rdpid ? "yes" : "no", r->machine.vdso_getcpu ? "yes" : "no");
	fprintf(out, "pinned to CPU %d; %d runs of %lu calls per case, interleaved; "
		"best and median; empty loop subtracted%s\n",
		r->machine.pinned_cpu, r->machine.runs, r->machine.iters,
		r->machine.cycles ? "" : "; cycles: not exposed on this machine");
	text_reading(r, out);
	text_latency(r, out);
	text_setups(r, out);
	text_cache(r, out);
	text_generic(r, out);
	text_counters(r, out);
	text_loops(r, out);
	text_restricted(r, out);
	text_preempted(r, out);
	fprintf(out, "\nThe project's aims, measured in this one process: ratio of medians, the\n"
		"spread of the runs (quartile to quartile), ratio of bests, and the aim\n");
	for (int i = 0; i < n; i++) {
		char spread_text[32] = "(no spread) ", best_text[16] = "best   n/a";

		if (t[i].value < 0) {
			fprintf(out, "  %-54s n/a\n", t[i].what);
			continue;
		}
		/* A ratio of two tables' medians has no runs of its own. */
		if (t[i].low >= 0)
			snprintf(spread_text, sizeof(spread_text), "(%.2f-%.2fx)", t[i].low,
				 t[i].high);
		if (t[i].best >= 0)
			snprintf(best_text, sizeof(best_text), "best %4.2fx", t[i].best);
		fprintf(out, "  %-54s %5.2fx  %-12s  %s  aim <= %.2fx\n", t[i].what, t[i].value,
			spread_text, best_text, t[i].limit);
	}
}

static void json_result(FILE *out, const char *key, const struct bench_result *b)
{
	fprintf(out, "\"%s\": {\"best_ns\": %.3f, \"median_ns\": %.3f", key,
		b->best_ns, b->median_ns);
	if (b->best_cycles >= 0)
		fprintf(out, ", \"best_cycles\": %.2f, \"median_cycles\": %.2f",
			b->best_cycles, b->median_cycles);
	fputc('}', out);
}

/* A ratio, or null where it could not be measured. */
static void json_ratio(FILE *out, const char *key, double value)
{
	if (value < 0)
		fprintf(out, ", \"%s\": null", key);
	else
		fprintf(out, ", \"%s\": %.4f", key, value);
}

void report_json(const struct report *r, FILE *out)
{
	struct target t[MAX_TARGETS];
	int n = targets(r, t);

	fprintf(out, "{\n  \"machine\": {\"cpu\": \"%s\", \"cpus\": %d, \"kernel\": \"%s\", "
		"\"libc\": \"%s\", \"glibc_rseq_size\": %d, \"rseq_feature_size\": %d, "
		"\"rdpid\": %s, \"vdso_getcpu\": %s, \"backend\": \"%s\", "
		"\"pinned_cpu\": %d, \"runs\": %d, \"iters\": %lu},\n",
		r->machine.cpu_model, r->machine.cpus, r->machine.kernel, r->machine.libc,
		r->machine.glibc_rseq_size, r->machine.rseq_feature_size,
		r->machine.rdpid ? "true" : "false", r->machine.vdso_getcpu ? "true" : "false",
		r->machine.backend, r->machine.pinned_cpu,
		r->machine.runs, r->machine.iters);
	fprintf(out, "  \"reading\": {");
	for (int i = 0; i < r->reading_count; i++) {
		fprintf(out, "%s\n    ", i ? "," : "");
		json_result(out, r->reading[i].name, &r->reading[i]);
	}
	fprintf(out, ",\n    ");
	json_result(out, "first call in a new thread: libfastcpu", &r->first_fastcpu);
	fprintf(out, ",\n    ");
	json_result(out, "first call in a new thread: glibc", &r->first_glibc);
	fprintf(out, "\n  },\n  \"latency\": {");
	for (int i = 0; r->latency != NULL && i < r->latency->count; i++) {
		fprintf(out, "%s\n    \"%s\": {", i ? "," : "", r->latency->add[i].name);
		json_result(out, "locked_add", &r->latency->add[i]);
		fprintf(out, ", ");
		json_result(out, "chained_load", &r->latency->chain[i]);
		fputc('}', out);
	}
	fprintf(out, "\n  },\n  \"setups\": [");
	for (int id = 0; id < SETUP_COUNT; id++) {
		const struct setup_result *f = &r->setups[id];
		const struct { const char *key; const struct bench_result *b; } fields[] = {
			{ "sched_getcpu", &f->sched }, { "plain_sched_getcpu", &f->plain_sched },
			{ "getcpu", &f->getcpu }, { "plain_getcpu", &f->plain_getcpu },
			{ "getcpu_generic", &f->generic }, { "syscall", &f->syscall },
			{ "locked_add_alone", &f->add_alone },
			{ "locked_add: sched_getcpu", &f->sched_add },
			{ "locked_add: plain_sched_getcpu", &f->plain_sched_add },
			{ "locked_add: getcpu", &f->getcpu_add },
			{ "locked_add: plain_getcpu", &f->plain_getcpu_add },
			{ "counter_add", &f->counter }, { "own_shard_atomic", &f->shard },
			{ "objcache_pair", &f->objcache_pair }, { "malloc_pair", &f->malloc_pair },
			{ "miss", &f->miss }, { "hit", &f->hit },
		};

		fprintf(out, "%s\n    {\"setup\": \"%s\", \"served\": \"%s\"", id ? "," : "",
			setup_name((enum setup_id)id), f->served);
		if (f->served[0] == '\0') {
			fprintf(out, ", \"not_run\": \"%s\"}", f->why_not);
			continue;
		}
		for (int c = 0; c < SETUP_CELLS; c++)
			json_ratio(out, cell_names[c], setup_cell(f, (enum setup_cell)c));
		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
			fprintf(out, ", ");
			json_result(out, fields[k].key, fields[k].b);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ],\n  \"counters_one_thread\": {");
	for (int i = 1; i < r->counter_one_count; i++) {
		fprintf(out, "%s\n    ", i > 1 ? "," : "");
		json_result(out, r->counter_one[i].name, &r->counter_one[i]);
	}
	fprintf(out, "\n  },\n  \"counters\": {\"threads\": [");
	for (int i = 0; i < r->thread_counts; i++)
		fprintf(out, "%s%d", i ? ", " : "", r->threads[i]);
	fprintf(out, "]");
	for (int k = 1; k < COUNTER_KINDS; k++) {
		fprintf(out, ",\n    \"%s\": [", counter_names[k]);
		for (int i = 0; i < r->thread_counts; i++)
			fprintf(out, "%s%.3f", i ? ", " : "", r->counter_ns[k][i]);
		fputc(']', out);
	}
	fprintf(out, "\n  },\n  \"loop\": {");
	for (int i = 0; i < r->loop_count; i++) {
		fprintf(out, "%s\n    ", i ? "," : "");
		json_result(out, r->loops[i].name, &r->loops[i]);
	}
	fprintf(out, "\n  },\n  \"restricted_counter\": {\"cpus\": \"%s\", \"threads\": %d, "
		"\"cid_limit\": %d", r->restricted.cpus, r->restricted.threads, r->cid_limit);
	for (int i = 0; i < 2 && r->restricted.threads > 0; i++)
		fprintf(out, ", \"%s\": {\"ns\": %.3f, \"shards_used\": %d, \"highest\": %d, "
			"\"bytes\": %lu}", r->restricted.by[i].index, r->restricted.by[i].ns,
			r->restricted.by[i].used, r->restricted.by[i].highest,
			r->restricted.by[i].bytes);
	fprintf(out, "},\n  \"preempted_lock\": {\"offered\": %s", r->preempted.offered ? "true" : "false");
	for (int i = 0; i < 2 && r->preempted.ran; i++) {
		const struct preempted_run *run = i ? &r->preempted.on : &r->preempted.off;

		if (i == 1 && !r->preempted.offered)
			break;
		fprintf(out, ", \"%s\": {\"acquisitions\": %ld, \"found_taken\": %ld, "
			"\"waiter_ns\": %.1f, \"granted\": %ld}", i ? "with" : "without",
			run->acquisitions, run->found_taken, run->wait_ns, run->granted);
	}
	fprintf(out, "},\n  \"targets\": [");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s\n    {\"what\": \"%s\"", i ? "," : "", t[i].what);
		json_ratio(out, "ratio", t[i].value);
		json_ratio(out, "best_ratio", t[i].best);
		json_ratio(out, "quartile_low", t[i].low);
		json_ratio(out, "quartile_high", t[i].high);
		fprintf(out, ", \"limit\": %.2f}", t[i].limit);
	}
	fprintf(out, "\n  ]\n}\n");
}

/* One row a number: table,"case",threads,best_ns,median_ns (threads 0
 * where it does not apply); case names are quoted, as they hold commas. */
void report_csv(const struct report *r, FILE *out)
{
	fprintf(out, "table,case,threads,best_ns,median_ns\n");
	for (int i = 0; i < r->reading_count; i++)
		fprintf(out, "reading,\"%s\",0,%.3f,%.3f\n", r->reading[i].name,
			r->reading[i].best_ns, r->reading[i].median_ns);
	for (int i = 0; r->latency != NULL && i < r->latency->count; i++) {
		fprintf(out, "latency-locked-add,\"%s\",0,%.3f,%.3f\n", r->latency->add[i].name,
			r->latency->add[i].best_ns, r->latency->add[i].median_ns);
		fprintf(out, "latency-chained-load,\"%s\",0,%.3f,%.3f\n",
			r->latency->chain[i].name, r->latency->chain[i].best_ns,
			r->latency->chain[i].median_ns);
	}
	for (int i = 0; i < r->loop_count; i++)
		fprintf(out, "loop,\"%s\",0,%.3f,%.3f\n", r->loops[i].name,
			r->loops[i].best_ns, r->loops[i].median_ns);
	for (int id = 0; id < SETUP_COUNT; id++) {
		const struct setup_result *f = &r->setups[id];
		const struct { const char *key; const struct bench_result *b; bool has; } fields[] = {
			{ "libfastcpu sched_getcpu()", &f->sched, true },
			{ "plain sched_getcpu()", &f->plain_sched, true },
			{ "libfastcpu getcpu(&c, &n)", &f->getcpu, f->has_getcpu },
			{ "plain getcpu(&c, &n)", &f->plain_getcpu, f->has_getcpu },
			{ "locked add alone", &f->add_alone, true },
			{ "libfastcpu sched_getcpu() + locked add", &f->sched_add, true },
			{ "plain sched_getcpu() + locked add", &f->plain_sched_add, true },
			{ "libfastcpu getcpu(&c, &n) + locked add", &f->getcpu_add, f->has_getcpu },
			{ "plain getcpu(&c, &n) + locked add", &f->plain_getcpu_add, f->has_getcpu },
			{ "fastcpu_counter_add()", &f->counter, f->has_counter },
			{ "atomic add on own shard", &f->shard, f->has_counter },
			{ "objcache alloc+free", &f->objcache_pair, f->has_counter },
			{ "malloc+free", &f->malloc_pair, f->has_counter },
		};

		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
			if (f->served[0] != '\0' && fields[k].has)
				fprintf(out, "setup,\"%s: %s\",0,%.3f,%.3f\n",
					setup_name((enum setup_id)id), fields[k].key,
					fields[k].b->best_ns, fields[k].b->median_ns);
	}	for (int i = 1; i < r->counter_one_count; i++)
		fprintf(out, "counters,\"%s\",0,%.3f,%.3f\n", r->counter_one[i].name,
			r->counter_one[i].best_ns, r->counter_one[i].median_ns);
	for (int k = 1; k < COUNTER_KINDS; k++)
		for (int t = 0; t < r->thread_counts; t++)
			if (r->counter_ns[k][t] >= 0)
				fprintf(out, "counters,\"%s\",%d,%.3f,%.3f\n", counter_names[k],
					r->threads[t], r->counter_best[k][t], r->counter_ns[k][t]);
	if (r->preempted.ran)
		fprintf(out, "preempted-lock,\"waiter ns per acquisition, without the extension\",2,"
			"%.3f,%.3f\n", r->preempted.off.wait_ns, r->preempted.off.wait_ns);
	if (r->preempted.ran && r->preempted.offered)
		fprintf(out, "preempted-lock,\"waiter ns per acquisition, with the extension\",2,"
			"%.3f,%.3f\n", r->preempted.on.wait_ns, r->preempted.on.wait_ns);
}
