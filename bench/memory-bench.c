/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-bench.c: per-CPU memory against the mallocs, side by side: what it measures, its tables. */

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memory.h"
#include "runner.h"

static const char usage[] =
	"usage: fastcpu-memory-bench [--quick] [--rounds N] [--processes N] [--json | --csv]\n"
	"                            [--csv-file FILE]\n"
	"Seed 004's allocator tables in user space: libfastcpu's object cache\n"
	"against glibc's malloc, jemalloc, mimalloc and tcmalloc (each preloaded\n"
	"in a process of its own, skipped where not installed) and a global\n"
	"lock-free list; the counters' footprint before and after per-CPU memory;\n"
	"the object cache's pair over N fresh processes per rseq setup (20, 5 with\n"
	"--quick; FASTCPU_BENCH_PROCESSES=N too): best, median and worst.\n";

/* ---- what it measures, in order ----------------------------------------- */

/* Where the system's shared libraries are: libc's own directory, and the
 * same under /usr (merged or not); the first of sonames (':' between) there. */
static bool find_one(const char *soname, size_t length, char *path, size_t size)
{
	Dl_info info;
	const char *slash;
	int dir;

	if (dladdr((void *)printf, &info) == 0 || info.dli_fname == NULL ||
	    (slash = strrchr(info.dli_fname, '/')) == NULL)
		return false;
	dir = (int)(slash - info.dli_fname);
	if (snprintf(path, size, "%.*s/%.*s", dir, info.dli_fname, (int)length, soname) <
	    (int)size && access(path, R_OK) == 0)
		return true;
	return strncmp(info.dli_fname, "/usr/", 5) != 0 &&
	       snprintf(path, size, "/usr%.*s/%.*s", dir, info.dli_fname, (int)length, soname) <
	       (int)size && access(path, R_OK) == 0;
}

/* The shared object each allocator's processes preload ("": none). */
static char preloads[MEMORY_ALLOCATORS][PATH_MAX];

static bool find_library(int a)
{
	for (const char *s = memory_allocators[a].preload; s && *s != '\0';
	     s += strcspn(s, ":") + (s[strcspn(s, ":")] != 0))
		if (find_one(s, strcspn(s, ":"), preloads[a], sizeof(preloads[a])))
			return true;
	return memory_allocators[a].preload == NULL;
}

/* The environments of the processes: an allocator's, its malloc preloaded;
 * Table 8 (d)'s, glibc's registration off and the setup's backend forced;
 * 8 (e)'s, glibc's registration off for the library's own area. */
static void allocator_env(int a)
{
	if (preloads[a][0] != '\0')
		setenv("LD_PRELOAD", preloads[a], 1);
}

static void setup_env(int k)
{
	bench_glibc_rseq_off();
	if (memory_setups[k].backend != NULL)
		setenv("FASTCPU_BACKEND", memory_setups[k].backend, 1);
}

static void spread_env(int k)
{
	if (k == MEMORY_SPREAD_OWN)
		bench_glibc_rseq_off();
}

static const struct row *get(const struct rows *r, const char *table, int threads, const char *a,
			     const char *what)
{
	return rows_get(r, table, threads, "%s.%s", a, what);
}

/* What compares processes of Table 8 (d) and (e): the worst forced
 * backend, the worst process of each setup. */
static void across_processes(struct rows *out)
{
	const struct row *worst = NULL;

	for (int k = MEMORY_RDPID; k < MEMORY_SETUPS; k++) {
		const struct row *x = get(out, "8d", 0, memory_setups[k].key, "pair_to_glibc");

		if (x && (worst == NULL || x->median > worst->median))
			worst = x;
	}
	rows_add(out, "aims", "worst_forced_to_glibc",
		 "objcache pair / glibc's, worst forced backend (8 (d))", 0, UNIT_RATIO, NAN,
		 row_median(worst));
	for (int k = 0; k < MEMORY_SPREADS; k++) {
		const struct row *pair = get(out, "8e", 0, memory_spreads[k].key, "objcache_pair_64");
		char key[ROW_KEY], name[96];
		struct row *x;

		if (pair == NULL)
			continue;
		snprintf(key, sizeof(key), "%s.worst_to_median", memory_spreads[k].key);
		snprintf(name, sizeof(name), "worst pair / median over processes, %s",
			 memory_spreads[k].name);
		x = rows_add(out, "8e", key, name, 0, UNIT_RATIO, pair->worst / pair->median,
			     pair->worst / pair->median);
		x->worst = x->median;
		x->processes = pair->processes;
	}
}

static int measure(struct rows *out)
{
	struct bench_job jobs[MEMORY_ALLOCATORS];
	int n = 0;

	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (find_library(a))
			jobs[n++] = (struct bench_job){ "allocator", a, allocator_env };
	bench_run_jobs(jobs, n, bench.rounds, out);
	for (int k = 0; k < MEMORY_SETUPS; k++)
		jobs[k] = (struct bench_job){ "setup", k, setup_env };
	bench_run_jobs(jobs, MEMORY_SETUPS, bench.rounds, out);
	for (int k = 0; k < MEMORY_SPREADS; k++)
		jobs[k] = (struct bench_job){ "spread", k, spread_env };
	bench_run_jobs(jobs, MEMORY_SPREADS, bench.processes, out);
	across_processes(out);
	memory_counters_measure(out);
	return get(out, "8a", 0, "glibc", "pair_8") && get(out, "8a", 0, "objcache", "pair_8") ? 0 : 1;
}

/* ---- its tables ---------------------------------------------------------- */

/* The aims (#33), 64 bytes, one thread pinned, in the order the report
 * gives them. */
static const struct aim aims[] = {
	{ "8a", "objcache_to_floor", 1.25, "objcache pair / the better floor sequence (same process)",
	  "objcache.pair_64", "objcache.floor_pair_64", NULL },
	{ "8a", "objcache_to_buffer", 1.25, "objcache pair / librseq's array (buffer) pop+push (#38)",
	  "objcache.pair_64", "objcache.floor_buffer_pair_64", NULL },
	{ "8a", "objcache_to_glibc", 0.30, "objcache pair / glibc's (same process)",
	  "objcache.pair_64", "objcache.glibc_pair_64", NULL },
	{ "8a", "objcache_to_tcmalloc", 0.50, "objcache pair / tcmalloc's", "objcache.pair_64",
	  "tcmalloc.pair_64", NULL },
	{ "8b", "cold_to_tcmalloc", 0.60, "objcache / tcmalloc, cold set, per operation",
	  "objcache.cold_set", "tcmalloc.cold_set", NULL },
	{ "8b", "batch_to_jemalloc", 0.50, "objcache / jemalloc, batches of 16", "objcache.batch_16",
	  "jemalloc.batch_16", NULL },
	{ "8d", "own_area.pair_to_glibc", 0.35, NULL, NULL, NULL, NULL },
	{ "aims", "worst_forced_to_glibc", 1.00, NULL, NULL, NULL, NULL },
	{ "8e", "glibc_area.worst_to_median", 1.30, NULL, NULL, NULL, NULL },
	{ "8e", "own_area.worst_to_median", 1.30, NULL, NULL, NULL, NULL },
	{ "8a", "objcache.crowded_to_one", 1.30, NULL, NULL, NULL, NULL },
	{ "8c", "counter_add_to_old", 1.00, "fastcpu_counter_add(): per-CPU memory / FASTCPU_1.2",
	  "counter.add", "old_counter.add", NULL },
};

#define SIZES(threads) { "pair_8", "8", threads }, { "pair_16", "16", threads },		\
	{ "pair_32", "32", threads }, { "pair_64", "64", threads }, { "pair_128", "128", threads }, \
	{ "pair_256", "256", threads }, { "pair_512", "512", threads },			\
	{ "pair_1024", "1024", threads }, { "pair_2048", "2048", threads },		\
	{ "pair_4096", "4096", threads }, { NULL, NULL, 0 }

static const struct view_column one[] = { SIZES(0) }, crowd[] = { SIZES(VIEW_CROWD) }, same[] = {
	{ "pair_64", "pair", 0 }, { "glibc_pair_64", "glibc", 0 }, { "pair_64_by_cpu", "by CPU", 0 },
	{ "floor_list_pair_64", "list", 0 }, { "floor_buffer_pair_64", "buffer", 0 },
	{ NULL, NULL, 0 },
}, alloc_free[] = {
	{ "alloc_10000", "alloc", 0 }, { "free_10000", "free", 0 }, { "batch_16", "16, pair", 0 },
	{ "cold_set", "cold", 0 }, { NULL, NULL, 0 },
}, setups[] = {
	{ "objcache_pair_64", "objcache", 0 }, { "glibc_pair_64", "glibc", 0 },
	{ "pair_to_glibc", "ratio", 0 }, { NULL, NULL, 0 },
}, spreads[] = {
	{ "objcache_pair_64", "pair ns", 0 }, { "pair_to_floor", "pair / the floor", 0 },
	{ "pair_to_glibc", "pair / glibc's", 0 }, { NULL, NULL, 0 },
}, counters[] = {
	{ "bytes_per_counter", "bytes", 0 }, { "bytes_touched", "touched", 0 },
	{ "sum_one", "sum ns", 0 }, { "add", "add ns", 0 }, { NULL, NULL, 0 },
}, objects[] = {
	{ "bytes_per_8", "8", 0 }, { "bytes_per_24", "24", 0 }, { "bytes_per_64", "64", 0 },
	{ "bytes_per_100", "100", 0 }, { "bytes_per_256", "256", 0 }, { NULL, NULL, 0 },
}, held[] = { { "bytes_held", "2", 2 }, { "bytes_held", "1000", 1000 }, { NULL, NULL, 0 } };

static const struct view views[] = {
	{ .title = "Per-CPU memory (seed 004's tables in user space): each allocator in a process of\n"
		   "its own (mallocs preloaded, those not installed left out), the rounds going round\n"
		   "them; CPU ns per operation, median of the rounds, loop subtracted.\n\n"
		   "Table 8 (a): an allocation and its free, one thread pinned, by size (the seed's\n"
		   "2007 kernel cycles for their shape: SLAB 96 84 84 102 147 200 300 416 720 1254,\n"
		   "SLUB 86 92 106 129 226 248 301 440 542 342, SLUB-a 38 43 53 75 176 204 250 391\n"
		   "511 376; list: one global lock-free list per size, every CPU on it)",
	  .table = "8a", .head = "bytes", .columns = one },
	{ .title = "In the objcache's process, 64 bytes: the pair, glibc's pair, the cache indexed by\n"
		   "CPU number (not concurrency id), and the floor, librseq's param_test sequences\n"
		   "in line (pop + push, one object): list, buffer (an array of pointers)",
	  .table = "8a", .lines = "objcache.", .head = "", .columns = same },
	{ .title = "Table 8 (a), twice the CPUs' threads at once, CPU ns per pair of each",
	  .table = "8a", .head = "bytes", .columns = crowd },
	{ .title = "Table 8 (b): the alloc/free test, 64 bytes: 10000 allocations then their frees\n"
		   "(per allocation, per free); 16 allocations then 16 frees (per pair); a cold set\n"
		   "(2^20 objects, 2^16 quick) taken, freed in shuffled order, taken again (per\n"
		   "operation; seed: SLAB 137-146, SLUB 151, SLUB-a 56-58 cycles)",
	  .table = "8b", .head = "", .columns = alloc_free },
	{ .title = "Table 8 (d): the object cache without glibc's area, each setup a process of\n"
		   "its own (glibc's rseq off), against glibc's malloc there: pair, 64 bytes, pinned,\n"
		   "median ns (the seccomp-refused thread and librseq's unregistered one: Table 10)",
	  .table = "8d", .head = "setup", .columns = setups },
	{ .title = "Table 8 (e): the objcache pair over fresh processes, 64 bytes, one thread\n"
		   "pinned: each times the pair beside the better floor sequence and glibc's pair\n"
		   "(ratios within the process), loop subtracted; best, median and worst over the\n"
		   "processes that ran",
	  .table = "8e", .head = "setup", .columns = spreads, .spread = true },
	{ .title = "Table 8 (c): footprint. A counter: bytes of address space and bytes touched\n"
		   "where one thread adds, ns to sum one, fastcpu_counter_add() ns",
	  .table = "8c", .head = "", .columns = counters },
	{ .title = "A million counters (100,000 quick), each added to by twice the CPUs' threads",
	  .table = "8c", .lines = "million.", .threads = VIEW_ANY },
	{ .title = "An object: bytes it takes (median distance between neighbours), by size",
	  .table = "8c", .head = "", .columns = objects },
	{ .title = "Bytes of 64-byte objects freed by threads, each taking and freeing 16 in turn\n"
		   "and staying alive, that the main thread does not get back, by threads",
	  .table = "8c", .head = "", .columns = held },
};

/* The last aim's line: a counter's bytes against what per-CPU memory takes. */
static void text(const struct rows *r, FILE *out)
{
	char bytes[16], most[48];

	snprintf(bytes, sizeof(bytes), " %5.1f  ",
		 row_median(rows_get(r, "8c", 0, "counter.bytes_per_counter")));
	snprintf(most, sizeof(most), "%.0f + a share of chunks",
		 8 * row_median(rows_get(r, "8c", 0, "cid_limit")));
	report_aim_text(out, "counter bytes (address space) per counter", bytes, most);
}

/* ---- the program -------------------------------------------------------- */

static const struct bench_workload workloads[] = {
	{ "allocator", memory_allocator_workload },
	{ "setup", memory_setup_workload },
	{ "spread", memory_spread_workload },
};

int main(int argc, char **argv)
{
	static const struct bench_program program = {
		.name = "fastcpu-memory-bench", .usage = usage, .quick_rounds = 1,
		.workloads = workloads, .nworkloads = sizeof(workloads) / sizeof(workloads[0]),
		.measure = measure, .views = views, .nviews = sizeof(views) / sizeof(views[0]),
		.aims = aims, .naims = sizeof(aims) / sizeof(aims[0]), .text = text,
	};

	return bench_main(argc, argv, &program);
}
