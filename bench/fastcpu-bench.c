/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/fastcpu-bench.c: libfastcpu against the system libc, in one run: what it measures, its tables. */

#include <dlfcn.h>
#include <string.h>

#include "cases.h"
#include "counters.h"
#include "fastcpu.h"
#include "latency.h"
#include "loops.h"
#include "preempted.h"
#include "runner.h"
#include "setups.h"

static const char usage[] =
	"usage: fastcpu-bench [--quick] [--json | --csv] [--csv-file FILE] [--runs N]\n"
	"Times reading the current CPU with libfastcpu and with the system\n"
	"libc, side by side in one process; prints the seed documents' tables\n"
	"(ns per call, best and median, empty loop subtracted) or, with --json\n"
	"or --csv, the same numbers for machines; --csv-file also writes them\n"
	"to FILE.\n";

/* ---- what it measures, in order ----------------------------------------- */

/* Tables 1, 7 and 5 and the first call, in this process as configured by
 * its environment. */
static void reading(int unused, struct rows *out)
{
	int threads = bench.quick ? 20 : 200;

	(void)unused;
	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	cases_reading(out);
	latency_measure(out);
	loops_measure(out);
	bench_measure_first_call(rows_add(out, "first-call", "fastcpu_sched_getcpu",
					  "first call in a new thread: libfastcpu", 0, UNIT_NS, 0, 0),
				 once_fastcpu_sched_getcpu, threads);
	bench_measure_first_call(rows_add(out, "first-call", "glibc_sched_getcpu",
					  "first call in a new thread: glibc", 0, UNIT_NS, 0, 0),
				 once_glibc_sched_getcpu, threads);
}

static void counters(int unused, struct rows *out)
{
	(void)unused;
	counters_measure(out);
}

static void preempted(int unused, struct rows *out)
{
	(void)unused;
	preempted_measure(out);
}

static int measure(struct rows *out)
{
	bench_pin(bench.first_cpu);
	/* Table 10 (and 2, 3) first: the children must find nothing bound here. */
	setups_measure(out);
	reading(0, out);
	counters(0, out);
	preempted(0, out);	/* Table 9: the lock's holder preempted */
	return 0;
}

/* ---- its tables ---------------------------------------------------------- */

/* The aims, in the order the report gives them. */
static struct aim aims[] = {
	{ "reading", "sched_getcpu", 1.0, "sched_getcpu(): libfastcpu / glibc",	/* 0.45: init */
	  "fastcpu_sched_getcpu", "glibc_sched_getcpu", NULL },
	{ "reading", "getcpu", 0.5, "getcpu(&c, &n): libfastcpu / glibc", "fastcpu_getcpu",
	  "glibc_getcpu", NULL },
	/* Both cost well under a cycle once the loop is subtracted, so this
	 * one keeps the loop in (a quarter of an iteration a read). */
	{ "reading", "current_cpu", 1.2, "fastcpu_current_cpu() / bare rseq load, loop included",
	  "fastcpu_current_cpu", "rseq_load", "empty_loop" },
	{ "latency-locked-add", "sched_getcpu_waited", 1.0,
	  "sched_getcpu() + locked add: libfastcpu / glibc excess", "fastcpu_sched_getcpu",
	  "glibc_sched_getcpu", NULL },
	{ "latency-locked-add", "getcpu_waited", 1.0,
	  "getcpu(&c, &n) + locked add: libfastcpu / glibc excess", "fastcpu_getcpu", "glibc_getcpu",
	  NULL },
	{ "counters", "counter_add_to_shard", 0.35, "fastcpu_counter_add() / atomic add on own shard",
	  "fastcpu_counter_add", "shard_fastcpu_current_cpu", NULL },
	{ "counters", "counter_add_to_reference", 1.2, "fastcpu_counter_add() / librseq-shaped reference",
	  "fastcpu_counter_add", "librseq_percpu_add", NULL },
	{ "aims", "counter_add_crowded", 1.3, NULL, NULL, NULL, NULL },
	{ "aims", "forced_rdpid.counter_to_shard", 1.0, NULL, NULL, NULL, NULL },
	{ "aims", "forced_vdso.counter_to_shard", 1.0, NULL, NULL, NULL, NULL },
	{ "aims", "forced_syscall.counter_to_shard", 1.0, NULL, NULL, NULL, NULL },
	{ "aims", "setup_highest_cell", SETUP_CELL_MOST, NULL, NULL, NULL, NULL },
};

static const struct view_column cells[] = {
	{ "served", "served by", 0 }, { "cell_sched", "sched", 0 }, { "cell_getcpu", "getcpu", 0 },
	{ "cell_sched_add", "sched+add", 0 }, { "cell_getcpu_add", "getcpu+add", 0 },
	{ "cell_percpu_add", "per-CPU add", 0 }, { "cell_objcache", "objcache", 0 }, { NULL, NULL, 0 },
}, cache[] = {
	{ "served", "served by", 0 }, { "sched_getcpu", "NULL or HIT", 0 }, { "miss", "MISS", 0 },
	{ NULL, NULL, 0 },
}, generic[] = {
	{ "getcpu_generic", "GENERIC", 0 }, { "sched_getcpu", "SPECIALIZED", 0 }, { NULL, NULL, 0 },
}, forced[] = {
	{ "served", "bound", 0 }, { "counter_add", "counter add", 0 },
	{ "own_shard_atomic", "atomic add", 0 }, { "cell_percpu_add", "ratio", 0 }, { NULL, NULL, 0 },
};

static const struct view views[] = {
	{ .title = "Table 1: reading the current CPU number, this process: ns per call",
	  .table = "reading", .ref = "glibc_sched_getcpu" },
	{ .title = "The first call of a new thread, single shots, less a shot of nothing: ns",
	  .table = "first-call" },
	{ .title = "Table 7: the answer waited on, ns per call beyond the work that waits on it\n"
		   "(a) a locked add on the answer's shard follows (the work alone: not subtracted)",
	  .table = "latency-locked-add", .ref = "glibc_sched_getcpu" },
	{ .title = "(b) the answer indexes a load the next index adds",
	  .table = "latency-chained-load", .ref = "glibc_sched_getcpu" },
	{ .title = "Table 10: every setup the library meets, each in a process of its own:\n"
		   "libfastcpu / glibc there, ratios of medians (\"!\" above 1.05x). sched, getcpu:\n"
		   "sched_getcpu(), getcpu(&c, &n) where nothing waits, the empty loop subtracted;\n"
		   "+add: the call and a locked add on its answer's shard, whole; per-CPU add:\n"
		   "fastcpu_counter_add() / an atomic add on the shard of fastcpu_current_cpu();\n"
		   "objcache: the object cache's alloc and free / malloc's and free's, 64 bytes.\n"
		   "Forced rows: glibc's rseq off too (glibc as in a thread without rseq); forced\n"
		   "syscall against the system call (glibc where the kernel has no vDSO getcpu)",
	  .table = "setup", .head = "setup", .columns = cells, .most = SETUP_CELL_MOST },
	{ .title = "Table 2: caching (seed 000): sched_getcpu() with each backend forced, its answer\n"
		   "cache off (NULL) then on (HIT), median ns; MISS: a call after the cache was\n"
		   "invalidated, timed alone; the bare mechanisms (NONE): Table 1",
	  .table = "setup", .lines = "forced_", .head = "backend forced", .columns = cache },
	{ .title = "Table 3: generic getcpu(&c, NULL) against specialized sched_getcpu(), median ns\n"
		   "(this process's and glibc's: Table 1)",
	  .table = "setup", .head = "setup", .columns = generic },
	{ .title = "Table 4: counter increments (seed 001). One thread, pinned, runs interleaved;\n"
		   "ns per increment, empty loop subtracted",
	  .table = "counters", .ref = "shard_fastcpu_current_cpu" },
	{ .title = "With threads, free to migrate: the CPU time of each thread per increment, ns,\n"
		   "median of the rounds, empty loop subtracted",
	  .table = "counters", .head = "", .by_threads = true },
	{ .title = "Where a fallback serves (each backend forced, one process each): the per-CPU\n"
		   "add against an atomic add on the shard fastcpu_current_cpu() names, median ns",
	  .table = "setup", .lines = "forced_", .head = "forced", .columns = forced },
	{ .title = "Table 5: reading in a loop (4 reads an iteration, nothing else called), ns per\n"
		   "read; the librseq-style rows are this benchmark's own code",
	  .table = "loop" },
	{ .title = "Table 6: sharded counter (128-byte shards) in a process restricted to the upper\n"
		   "half of its CPUs, a thread per CPU: by CPU number and by concurrency id",
	  .table = "restricted", .threads = VIEW_ANY },
	{ .title = "Table 9: the per-CPU lock's holder preempted: holder and waiter on one CPU,\n"
		   "the holder taking the lock for 2 us at a time; without, then with the kernel's\n"
		   "time-slice extension (Linux 7.0) where it offers it",
	  .table = "preempted-lock", .threads = VIEW_ANY },
};

/* ---- the program -------------------------------------------------------- */

static void init(void)
{
	const unsigned int *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");

	cases_init();
	aims[0].most = rseq_size && *rseq_size > 0 ? 1.0 : 0.45;
}

static const struct bench_workload workloads[] = {
	{ "setup", setups_workload },
	{ "reading", reading },
	{ "counters", counters },
	{ "preempted", preempted },
};

int main(int argc, char **argv)
{
	static const struct bench_program program = {
		.name = "fastcpu-bench", .usage = usage, .quick_rounds = 3,
		.workloads = workloads, .nworkloads = sizeof(workloads) / sizeof(workloads[0]),
		.init = init, .measure = measure,
		.views = views, .nviews = sizeof(views) / sizeof(views[0]),
		.aims = aims, .naims = sizeof(aims) / sizeof(aims[0]),
	};

	return bench_main(argc, argv, &program);
}
