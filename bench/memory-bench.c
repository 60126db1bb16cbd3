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
 * a setup's, glibc's registration off (but for 8 (e)'s glibc's area) and
 * its backend forced. */
static void allocator_env(int a)
{
	if (preloads[a][0] != '\0')
		setenv("LD_PRELOAD", preloads[a], 1);
}

static void setup_env(int k)
{
	if (k != MEMORY_SPREAD)
		bench_glibc_rseq_off();
	if (memory_setups[k].backend != NULL)
		setenv("FASTCPU_BACKEND", memory_setups[k].backend, 1);
}

/* The worst forced backend of Table 8 (d). */
static void across_processes(struct rows *out)
{
	const struct row *worst = NULL;

	for (int k = MEMORY_RDPID; k < MEMORY_SPREAD; k++) {
		const struct row *x = rows_get(out, "8d", 0, "%s.pair_to_glibc", memory_setups[k].key);

		if (x && (worst == NULL || x->median > worst->median))
			worst = x;
	}
	rows_add(out, "aims", "worst_forced_to_glibc",
		 "objcache pair / glibc's, worst forced backend (8 (d))", 0, UNIT_RATIO, NAN,
		 row_median(worst));
}

static int measure(struct rows *out)
{
	struct bench_job jobs[MEMORY_ALLOCATORS + MEMORY_SETUPS];
	int n = 0;

	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		if (find_library(a))
			jobs[n++] = (struct bench_job){ "allocator", a, allocator_env };
	/* Every figure over fresh processes (a process's layout and physical
	 * placement can move the pair by a third): the allocators' and the
	 * setups' as many as Table 8 (e)'s. */
	bench_run_jobs(jobs, n, bench.processes, out);
	for (int k = 0; k < MEMORY_SETUPS; k++)
		jobs[k] = (struct bench_job){ "setup", k, setup_env };
	bench_run_jobs(jobs, MEMORY_SETUPS, bench.processes, out);
	across_processes(out);
	memory_counters_measure(out);
	return rows_get(out, "8a", 0, "glibc.pair_8") && rows_get(out, "8a", 0, "objcache.pair_8") ? 0 : 1;
}

/* ---- its tables ---------------------------------------------------------- */

/* The aims (#33), 64 bytes, one thread pinned, in the order the report
 * gives them. */
static const struct aim aims[] = {
	{ "8a", "objcache_to_floor", 1.25,
	  "objcache pair / librseq's buffer with the cache's contracts", "objcache.pair_64",
	  "objcache.floor_pair_64", NULL, "objcache.floor_pair_64" },
	{ "8a", "objcache_to_buffer", 1.25, "objcache pair / librseq's array (buffer) pop+push (#38)",
	  "objcache.pair_64", "objcache.floor_buffer_pair_64", NULL, "objcache.floor_buffer_pair_64" },
	{ "8a", "objcache_to_glibc", 0.30, "objcache pair / glibc's (same process)",
	  "objcache.pair_64", "objcache.glibc_pair_64", NULL, NULL },
	{ "8a", "objcache_to_tcmalloc", 0.50, "objcache pair / tcmalloc's", "objcache.pair_64",
	  "tcmalloc.pair_64", NULL, NULL },
	{ "8b", "cold_to_tcmalloc", 0.60, "objcache / tcmalloc, cold set, per operation",
	  "objcache.cold_set", "tcmalloc.cold_set", NULL, NULL },
	{ "8b", "batch_to_jemalloc", 0.50, "objcache / jemalloc, batches of 16", "objcache.batch_16",
	  "jemalloc.batch_16", NULL, NULL },
	{ "8d", "own_area.pair_to_glibc", 0.35, "objcache pair / glibc's, own area (Table 8 (d))",
	  NULL, NULL, NULL, NULL },
	{ "aims", "worst_forced_to_glibc", 1.00, NULL, NULL, NULL, NULL, NULL },
	{ "8e", "glibc_area.worst_to_median", 1.30, "worst pair / median over processes, glibc's area",
	  "glibc_area.objcache_pair_64", NULL, NULL, NULL },
	{ "8e", "own_area.worst_to_median", 1.30, "worst pair / median over processes, own area",
	  "own_area.objcache_pair_64", NULL, NULL, NULL },
	{ "8a", "objcache.crowded_to_one", 1.30, "objcache pair, 2x CPUs threads / one thread",
	  NULL, NULL, NULL, NULL },
	{ "8c", "counter_add_to_old", 1.00, "fastcpu_counter_add(): per-CPU memory / FASTCPU_1.2",
	  "counter.add", "old_counter.add", NULL, NULL },
};

#define SIZES(threads) { "pair_8", "8", threads }, { "pair_16", "16", threads },		\
	{ "pair_32", "32", threads }, { "pair_64", "64", threads }, { "pair_128", "128", threads }, \
	{ "pair_256", "256", threads }, { "pair_512", "512", threads },			\
	{ "pair_1024", "1024", threads }, { "pair_2048", "2048", threads },		\
	{ "pair_4096", "4096", threads }, { NULL, NULL, 0 }

static const struct view_column one[] = { SIZES(0) }, crowd[] = { SIZES(VIEW_CROWD) }, same[] = {
	{ "pair_64", "pair", 0 }, { "glibc_pair_64", "glibc", 0 }, { "pair_64_by_cpu", "by CPU", 0 },
	{ "floor_list_pair_64", "list", 0 }, { "floor_buffer_pair_64", "buffer", 0 },
	{ "floor_pair_64", "contracts", 0 }, { NULL, NULL, 0 },
}, alloc_free[] = {
	{ "alloc_10000", "alloc", 0 }, { "free_10000", "free", 0 }, { "batch_16", "16, pair", 0 },
	{ "cold_set", "cold", 0 }, { NULL, NULL, 0 },
}, setups[] = {
	{ "objcache_pair_64", "objcache", 0 }, { "glibc_pair_64", "glibc", 0 },
	{ "pair_to_glibc", "ratio", 0 }, { NULL, NULL, 0 },
}, spreads[] = {
	{ "objcache_pair_64", "pair ns", 0 }, { "pair_to_floor", "pair / its contracts' floor", 0 },
	{ "pair_to_glibc", "pair / glibc's", 0 }, { NULL, NULL, 0 },
}, counters[] = {
	{ "bytes_per_counter", "bytes", 0 }, { "bytes_touched", "touched", 0 },
	{ "sum_one", "sum ns", 0 }, { "add", "add ns", 0 }, { NULL, NULL, 0 },
}, objects[] = {
	{ "bytes_per_8", "8", 0 }, { "bytes_per_24", "24", 0 }, { "bytes_per_64", "64", 0 },
	{ "bytes_per_100", "100", 0 }, { "bytes_per_256", "256", 0 }, { NULL, NULL, 0 },
}, held[] = { { "bytes_held", "2", 2 }, { "bytes_held", "1000", 1000 }, { NULL, NULL, 0 } };

static const struct view views[] = {
	{ .title = "Table 8 (a): an allocation and its free, one thread pinned, by size; each allocator\n"
		   "in processes of its own (mallocs preloaded), CPU ns, median of the rounds, loop\n"
		   "subtracted (list: one global lock-free list per size, every CPU on it)",
	  .table = "8a", .head = "bytes", .columns = one },
	{ .title = "In the objcache's process, 64 bytes: its pair, glibc's, the cache by CPU number,\n"
		   "the floor: librseq's param_test list and buffer (array) pop + push in line, and the\n"
		   "buffer with the cache's contracts (the free's pointer check, rseq_cs cleared)",
	  .table = "8a", .lines = "objcache.", .head = "", .columns = same },
	{ .title = "Table 8 (a), twice the CPUs' threads at once, CPU ns per pair of each",
	  .table = "8a", .head = "bytes", .columns = crowd },
	{ .title = "Table 8 (b), 64 bytes: 10000 allocations, then their frees; 16, then 16 (a pair);\n"
		   "a cold set taken, freed shuffled, taken again (an operation)",
	  .table = "8b", .head = "", .columns = alloc_free },
	{ .title = "Table 8 (d): the object cache without glibc's area against glibc's malloc there,\n"
		   "each setup a process of its own (glibc's rseq off): pair, 64 bytes, pinned",
	  .table = "8d", .head = "setup", .columns = setups },
	{ .title = "Table 8 (e): the objcache pair over fresh processes, 64 bytes, pinned, beside the\n"
		   "floor of its contracts (librseq's buffer, the free's check, rseq_cs cleared) and\n"
		   "glibc's pair in each; best, median and worst over them",
	  .table = "8e", .head = "setup", .columns = spreads, .spread = true },
	{ .title = "Table 8 (c): a counter's footprint: bytes of address space, bytes touched where\n"
		   "one thread adds, ns to sum one, fastcpu_counter_add() ns",
	  .table = "8c", .head = "", .columns = counters },
	{ .title = "An object's bytes (median distance between neighbours), by size",
	  .table = "8c", .head = "", .columns = objects },
	{ .title = "Bytes of 64-byte objects that threads still alive freed (16 each, in turn) and\n"
		   "the main thread does not get back, by threads",
	  .table = "8c", .head = "", .columns = held },
};


/* The last aim's line: a counter's bytes against what per-CPU memory takes. */
static void text(const struct rows *r, FILE *out)
{
	fprintf(out, "  %-*s %5.1f   aim <= %.0f + a share of chunks\n", REPORT_AIM_WIDTH,
		"counter bytes (address space) per counter",
		row_median(rows_get(r, "8c", 0, "counter.bytes_per_counter")),
		8 * row_median(rows_get(r, "8c", 0, "cid_limit")));
}

/* ---- the program -------------------------------------------------------- */

static const struct bench_workload workloads[] = {
	{ "allocator", memory_allocator_workload },
	{ "setup", memory_setup_workload },
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
