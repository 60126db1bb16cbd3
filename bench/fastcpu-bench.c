/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/fastcpu-bench.c: libfastcpu against the system libc, in one run: what it measures, its tables. */

#include <dlfcn.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "runner.h"

static const char usage[] =
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
	latency_measure(out, NULL, &bench.cfg);
	loops_measure(out);
	bench_measure_once(rows_add(out, "first-call", "fastcpu_sched_getcpu",
				    "first call in a new thread: libfastcpu", 0, UNIT_NS, 0, 0), NULL,
			   once_fastcpu_sched_getcpu, threads, true);
	bench_measure_once(rows_add(out, "first-call", "glibc_sched_getcpu",
				    "first call in a new thread: glibc", 0, UNIT_NS, 0, 0), NULL,
			   once_glibc_sched_getcpu, threads, true);
}

static int measure(struct rows *out)
{
	/* What a process's layout and physical placement can move, the aims
	 * among it: over fresh processes (best, median, worst). */
	static const struct bench_job each[] = { { "reading", 0, NULL }, { "counters", 0, NULL } };

	bench_pin(bench.first_cpu);
	/* Table 10 (and 2, 3) first: the children must find nothing bound here. */
	setups_measure(out);
	bench_run_jobs(each, 2, bench.processes, out);
	counters_with_threads(out);
	preempted_measure(0, out);	/* Table 9: the lock's holder preempted */
	counter_tree_measure(out);	/* the counter tree (#46), each CPU count a process */
	return 0;
}

/* ---- its tables ---------------------------------------------------------- */

/* The aims, in the order the report gives them. */
static struct aim aims[] = {
	{ "reading", "sched_getcpu", 1.0, "sched_getcpu(): libfastcpu / glibc",	/* 0.45: init */
	  "fastcpu_sched_getcpu", "glibc_sched_getcpu", NULL, NULL },
	{ "reading", "getcpu", 0.5, "getcpu(&c, &n): libfastcpu / glibc", "fastcpu_getcpu",
	  "glibc_getcpu", NULL, NULL },
	/* Both cost well under a cycle once the loop is subtracted, so this
	 * one keeps the loop in (a quarter of an iteration a read). */
	{ "reading", "current_cpu", 1.2, "fastcpu_current_cpu() / bare rseq load, loop included",
	  "fastcpu_current_cpu", "rseq_load", "empty_loop", NULL },
	{ "latency-locked-add", "sched_getcpu_waited", 1.0,
	  "sched_getcpu() + locked add: libfastcpu / glibc excess", "fastcpu_sched_getcpu",
	  "glibc_sched_getcpu", NULL, NULL },
	{ "latency-locked-add", "getcpu_waited", 1.0,
	  "getcpu(&c, &n) + locked add: libfastcpu / glibc excess", "fastcpu_getcpu", "glibc_getcpu",
	  NULL, NULL },
	{ "counters", "counter_add_to_shard", 0.35, "fastcpu_counter_add() / atomic add on own shard",
	  "fastcpu_counter_add", "shard_fastcpu_current_cpu", NULL, NULL },
	{ "counters", "counter_add_to_reference", 1.2,
	  "fastcpu_counter_add() / librseq-shaped add, rseq_cs cleared", "fastcpu_counter_add",
	  "librseq_percpu_add_cleared", NULL, "librseq_percpu_add_cleared" },
	{ "aims", "counter_add_crowded", 1.3, NULL, NULL, NULL, NULL, NULL },
	{ "aims", "forced_rdpid.counter_to_shard", 1.0, NULL, NULL, NULL, NULL, NULL },
	{ "aims", "forced_vdso.counter_to_shard", 1.0, NULL, NULL, NULL, NULL, NULL },
	{ "aims", "forced_syscall.counter_to_shard", 1.0, NULL, NULL, NULL, NULL, NULL },
	{ "aims", "setup_highest_cell", SETUP_CELL_MOST, NULL, NULL, NULL, NULL, NULL },
	/* The counter tree (#46): its add / the library's counter's in the
	 * process of each count of CPUs, its bound / the kernel tree's; its
	 * reads at 1,024 CPUs, ns and / here's (the loop in: both near 0). */
#define TREE_AT(at, words)									\
	{ "counter-tree", at ".tree_add_to_counter", 1.10,					\
	  "counter tree add / fastcpu_counter_add(), " words, at ".tree.add_1_thread",		\
	  at ".fastcpu_counter.add_1_thread", NULL, NULL },					\
	{ "counter-tree", at ".tree_bound_to_kernel", 1.0, "counter tree bound / the kernel tree's, " \
	  words, at ".tree.bound", at ".kernel_tree.bound", NULL, NULL }
	TREE_AT("here", "this machine"), TREE_AT("cpus_64", "64 CPUs"), TREE_AT("cpus_256", "256 CPUs"),
	TREE_AT("cpus_1024", "1,024 CPUs"),
	{ "counter-tree", "tree_add_to_leaf", 1.0, "counter tree add / an atomic add on a leaf + carry, "
	  "sequences off", "here_no_sequences.tree.add_1_thread",
	  "here_no_sequences.atomic_leaf.add_1_thread", NULL, NULL },
	{ "counter-tree", "cpus_1024.tree.read_approx", 2.0,
	  "counter tree approximate read, 1,024 CPUs: ns", NULL, NULL, NULL, NULL },
	{ "counter-tree", "tree_read_1024_to_here", 1.15, "counter tree approximate read, 1,024 CPUs / "
	  "here", "cpus_1024.tree.read_approx", "here.tree.read_approx", "here.empty_loop", NULL },
	{ "counter-tree", "cpus_1024.tree.compare_far", 2.0,
	  "counter tree compare far from the sum, 1,024 CPUs: ns", NULL, NULL, NULL, NULL },
	{ "counter-tree", "tree_far_1024_to_here", 1.15, "counter tree compare far, 1,024 CPUs / here",
	  "cpus_1024.tree.compare_far", "here.tree.compare_far", "here.empty_loop", NULL },
	{ "counter-tree", "cpus_256.tree.bytes_per_counter", 6144,
	  "counter tree bytes per counter, 256 CPUs (6 KiB)", NULL, NULL, NULL, NULL },
};

static const struct view_column cells[] = {
	{ "served", "served by", 0 }, { "cell_sched", "sched", 0 }, { "cell_getcpu", "getcpu", 0 },
	{ "cell_sched_add", "sched+add", 0 }, { "cell_getcpu_add", "getcpu+add", 0 },
	{ "cell_percpu_add", "per-CPU add", 0 }, { "cell_objcache", "objcache", 0 }, { NULL, NULL, 0 },
}, forced[] = {
	{ "served", "bound", 0 }, { "sched_getcpu", "sched", 0 }, { "miss", "MISS", 0 },
	{ "getcpu_generic", "generic", 0 }, { "counter_add", "add", 0 },
	{ "own_shard_atomic", "atomic", 0 }, { "cell_percpu_add", "add/atomic", 0 }, { NULL, NULL, 0 },
};

/* The counter tree beside the field's counters (#46): a grid of each
 * operation, a line for each count of CPUs, a column for each counter. */
#define TREE_VIEW(words, op, column_threads, ...) { .title = words, .table = "counter-tree", .head = "", \
	.lines = NULL, .ref = NULL, .threads = 0, .by_threads = false, .most = 0, .spread = false, \
	.columns = (const struct view_column[]){ { "tree." op, "tree", column_threads },		\
		{ "fastcpu_counter." op, "counter", column_threads }, { "atomic." op, "atomic", column_threads }, \
		{ "percpu_counter." op, "percpu", column_threads }, { "longadder." op, "LongAdder", column_threads }, \
		__VA_ARGS__ { NULL, NULL, 0 } } }

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
	{ .title = "Table 10: every setup the library meets, each a process: libfastcpu / glibc there\n"
		   "(\"!\" above 1.05x): the calls where nothing waits, then each with a locked add on\n"
		   "its answer's shard; the per-CPU add / an atomic add; the objcache pair / malloc's",
	  .table = "setup", .head = "setup", .columns = cells, .most = SETUP_CELL_MOST },
	{ .title = "Table 4: counter increments (seed 001), one thread pinned: ns an increment",
	  .table = "counters", .ref = "shard_fastcpu_current_cpu" },
	{ .title = "With threads, free to migrate: each thread's CPU ns an increment, median of rounds",
	  .table = "counters", .head = "", .by_threads = true },
	{ .title = "Tables 2 and 3, and the per-CPU add where a fallback serves: each backend forced,\n"
		   "its answer cache off then on (seed 000's NULL, then HIT): sched_getcpu(), MISS (a\n"
		   "call after the cache was invalidated, alone), getcpu(&c, NULL), the per-CPU add\n"
		   "and an atomic add on the shard fastcpu_current_cpu() names, ns",
	  .table = "setup", .lines = "forced_", .head = "backend forced", .columns = forced },
	{ .title = "Table 5: reading in a loop, 4 reads an iteration: ns a read (librseq-style rows:\n"
		   "this benchmark's own code in librseq's shapes)",
	  .table = "loop" },
	{ .title = "Table 9: the per-CPU lock's holder preempted, holder and waiter on one CPU, without\n"
		   "and with the kernel's time-slice extension (Linux 7.0) where it offers it",
	  .table = "preempted-lock", .threads = VIEW_ANY },
	TREE_VIEW("The counter tree (#46) beside fastcpu_counter and this program's own atomic, kernel's\n"
		  "percpu_counter scheme and LongAdder, each count of possible CPUs in processes of its\n"
		  "own (FASTCPU_POSSIBLE_CPUS): an add, one thread pinned, ns (the floor without\n"
		  "sequences: an atomic add on a leaf and the carry)", "add_1_thread", 0,
		  { "atomic_leaf.add_1_thread", "leaf floor", 0 },),
	TREE_VIEW("An add, 2x CPUs threads at once, each thread's CPU ns", "add_2x_cpus", VIEW_CROWD),
	TREE_VIEW("The approximate read (the sum where a counter has no other read), ns", "read_approx", 0),
	TREE_VIEW("The exact sum, ns", "sum_exact", 0),
	TREE_VIEW("Compare with a value near the sum, ns", "compare_near", 0),
	TREE_VIEW("Compare with a value far from it, ns", "compare_far", 0),
	TREE_VIEW("Bytes per counter (malloc's and per-CPU memory's)", "bytes_per_counter", 0),
	TREE_VIEW("How far the approximate read may lie from the sum, settled, each way", "bound", 0,
		  { "kernel_tree.bound", "kernel tree", 0 },),
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
	{ "counters", counters_measure },
	{ "preempted", preempted_measure },
	{ "counter-tree", counter_tree_workload },
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
