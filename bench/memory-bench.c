/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/memory-bench.c: per-CPU memory against the mallocs, side by side. */

#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure.h"
#include "memory.h"

static const char usage[] =
	"usage: fastcpu-memory-bench [--quick] [--rounds N] [--processes N] [--csv-file FILE]\n"
	"Seed 004's allocator tables in user space: libfastcpu's object cache\n"
	"against glibc's malloc, jemalloc, mimalloc and tcmalloc (each preloaded\n"
	"in a process of its own, skipped where not installed) and a global\n"
	"lock-free list; the counters' footprint before and after per-CPU memory;\n"
	"the object cache's pair over N fresh processes per rseq setup (20, 5 with\n"
	"--quick; FASTCPU_BENCH_PROCESSES=N too): best, median and worst.\n";

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

static bool find_library(const char *sonames, char *path, size_t size)
{
	for (const char *s = sonames; *s != '\0'; s += strcspn(s, ":") + (s[strcspn(s, ":")] != 0))
		if (find_one(s, strcspn(s, ":"), path, size))
			return true;
	return false;
}

/* The shared object each allocator's processes preload ("": none). */
static char preloads[MEMORY_ALLOCATORS][PATH_MAX];

/* The environment of allocator a's process. */
static void allocator_env(int a)
{
	char which[16];

	snprintf(which, sizeof(which), "%d", a);
	setenv(MEMORY_CHILD, which, 1);
	if (preloads[a][0] != '\0')
		setenv("LD_PRELOAD", preloads[a], 1);
}

/* The environment of setup k's process (Table 8 (d)): glibc's
 * registration off and the setup's backend forced. */
static void setup_env(int k)
{
	char which[16];

	snprintf(which, sizeof(which), "%d", k);
	setenv(MEMORY_SETUP_CHILD, which, 1);
	bench_glibc_rseq_off();
	if (memory_setup_backends[k] != NULL)
		setenv("FASTCPU_BACKEND", memory_setup_backends[k], 1);
}

/* The environment of a process of Table 8 (e)'s setup k: this one's, with
 * glibc's registration off for the library's own area. */
static void spread_env(int k)
{
	char which[16];

	snprintf(which, sizeof(which), "%d", k);
	setenv(MEMORY_SPREAD_CHILD, which, 1);
	if (k == MEMORY_SPREAD_OWN)
		bench_glibc_rseq_off();
}

/* One round in a new process of this program, its environment made by
 * env(which): its answer, size bytes, in out; false where it gave none or
 * failed. */
static bool run_child(void (*env)(int which), int which, void *out, size_t size)
{
	int fd[2], status = 0;
	char fd_text[16];
	pid_t pid;
	bool ok;

	if (pipe(fd) != 0)
		return false;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		snprintf(fd_text, sizeof(fd_text), "%d", fd[1]);
		setenv(MEMORY_FD, fd_text, 1);
		env(which);
		execl("/proc/self/exe", "fastcpu-memory-bench", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	ok = pid > 0 && read(fd[0], out, size) == (ssize_t)size;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Each field of n rounds (structs of fields doubles, size bytes apart):
 * median and best (least). */
static void summarise(const void *rounds, size_t size, int n, void *median, void *best)
{
	size_t fields = size / sizeof(double);
	double v[64];

	for (size_t f = 0; f < fields; f++) {
		for (int i = 0; i < n; i++)
			v[i] = ((const double *)(const void *)((const char *)rounds +
							(size_t)i * size))[f];
		bench_best_and_median(v, n, &((double *)best)[f], &((double *)median)[f]);
	}
}

/* The options and what follows from them: -1 to go on, else the exit
 * status. */
static int options(int argc, char **argv, struct memory_settings *s, bool *quick,
		   const char **csv_file)
{
	cpu_set_t all;
	const char *processes = getenv("FASTCPU_BENCH_PROCESSES");

	s->rounds = 7;
	s->processes = processes != NULL ? atoi(processes) : 0;
	*quick = getenv("FASTCPU_BENCH_QUICK") != NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			*quick = true;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			s->rounds = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--processes") == 0 && i + 1 < argc) {
			s->processes = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--csv-file") == 0 && i + 1 < argc) {
			*csv_file = argv[++i];
		} else {
			fputs(usage, strcmp(argv[i], "--help") == 0 ? stdout : stderr);
			return strcmp(argv[i], "--help") == 0 ? 0 : 2;
		}
	}
	if (*quick)
		s->rounds = 1;
	if (s->rounds < 1 || s->rounds > 64)
		s->rounds = 7;
	if (s->processes < 1 || s->processes > MEMORY_SPREAD_MOST)
		s->processes = *quick ? 5 : 20;
	s->pairs = *quick ? 20000 : 200000;
	s->cold = *quick ? 1L << 16 : 1L << 20;
	sched_getaffinity(0, sizeof(all), &all);
	s->crowd = 2 * CPU_COUNT(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &all)) {
			s->first_cpu = cpu;
			break;
		}
	return -1;
}

/* The rounds of every allocator here, going round them in turn; an
 * allocator none of whose rounds ran is absent. */
static void allocator_rounds(struct memory_report *r)
{
	static struct memory_round rounds[MEMORY_ALLOCATORS][64];
	int count[MEMORY_ALLOCATORS] = { 0 };

	for (int a = 0; a < MEMORY_ALLOCATORS; a++)
		r->present[a] = memory_preloads[a] == NULL ||
				find_library(memory_preloads[a], preloads[a], sizeof(preloads[a]));
	for (int round = 0; round < r->settings.rounds; round++)
		for (int k = 0; k < MEMORY_ALLOCATORS; k++) {
			int a = (k + round) % MEMORY_ALLOCATORS;
			struct memory_round *m = &rounds[a][count[a]];

			if (r->present[a] && run_child(allocator_env, a, m, sizeof(*m)) &&
			    m->pair[0] >= 0)
				count[a]++;
		}
	for (int a = 0; a < MEMORY_ALLOCATORS; a++) {
		r->present[a] = count[a] > 0;
		if (r->present[a])
			summarise(rounds[a], sizeof(rounds[a][0]), count[a], &r->median[a],
				  &r->best[a]);
	}
}

/* The rounds of Table 8 (d)'s setups. */
static void setup_rounds(struct memory_report *r)
{
	static struct memory_setup_round rounds[MEMORY_SETUPS][64];
	int count[MEMORY_SETUPS] = { 0 };

	for (int round = 0; round < r->settings.rounds; round++)
		for (int k = 0; k < MEMORY_SETUPS; k++) {
			struct memory_setup_round *m = &rounds[k][count[k]];

			if (run_child(setup_env, k, m, sizeof(*m)) && m->objcache >= 0)
				count[k]++;
		}
	for (int k = 0; k < MEMORY_SETUPS; k++) {
		r->setup_ran[k] = count[k] > 0;
		if (r->setup_ran[k])
			summarise(rounds[k], sizeof(rounds[k][0]), count[k], &r->setup_median[k],
				  &r->setup_best[k]);
	}
}

/* v's n values (sorted here) as best, median and worst. */
static void spread_of(double *v, int n, double stats[SPREAD_STATS])
{
	bench_best_and_median(v, n, &stats[SPREAD_BEST], &stats[SPREAD_MEDIAN]);
	stats[SPREAD_WORST] = v[n - 1];
}

/* Per-process ratios a / b, -1 where either is missing. */
static void ratios_of(const double *a, const double *b, int n, double *out)
{
	for (int i = 0; i < n; i++)
		out[i] = a[i] > 0 && b[i] > 0 ? a[i] / b[i] : -1;
}

/* Table 8 (e): each setup in settings.processes fresh processes, the
 * setups taking turns (which goes first alternating), so that a noisy
 * moment falls on both. */
static void spread_rounds(struct memory_report *r)
{
	static double pair[MEMORY_SPREADS][MEMORY_SPREAD_MOST],
		floor_ns[MEMORY_SPREADS][MEMORY_SPREAD_MOST],
		glibc[MEMORY_SPREADS][MEMORY_SPREAD_MOST];
	double ratio[MEMORY_SPREAD_MOST];
	int count[MEMORY_SPREADS] = { 0 };

	for (int p = 0; p < r->settings.processes; p++)
		for (int j = 0; j < MEMORY_SPREADS; j++) {
			int k = (j + p) % MEMORY_SPREADS;
			struct memory_spread_round m;

			if (run_child(spread_env, k, &m, sizeof(m)) && m.objcache >= 0) {
				pair[k][count[k]] = m.objcache;
				floor_ns[k][count[k]] = m.floor;
				glibc[k][count[k]] = m.glibc;
				count[k]++;
			}
		}
	for (int k = 0; k < MEMORY_SPREADS; k++) {
		struct memory_spread_stats *st = &r->spread[k];
		int n = count[k];

		st->processes = n;
		if (n == 0)
			continue;
		ratios_of(pair[k], floor_ns[k], n, ratio);
		spread_of(ratio, n, st->to_floor);
		ratios_of(pair[k], glibc[k], n, ratio);
		spread_of(ratio, n, st->to_glibc);
		spread_of(pair[k], n, st->pair);
		for (int i = 0; i < n; i++)
			st->slow += pair[k][i] > 1.30 * st->pair[SPREAD_MEDIAN];
	}
}

int main(int argc, char **argv)
{
	static struct memory_report r;
	const char *csv_file = NULL;
	bool quick;
	int done = options(argc, argv, &r.settings, &quick, &csv_file);

	if (done >= 0)
		return done;
	memory_child_if_asked(&r.settings);
	allocator_rounds(&r);
	setup_rounds(&r);
	spread_rounds(&r);
	r.rounds_done = r.settings.rounds;
	memory_counters_measure(&r.counters, quick);
	memory_report_text(&r, stdout);
	if (csv_file != NULL) {
		FILE *f = fopen(csv_file, "w");

		if (f == NULL) {
			perror(csv_file);
			return 1;
		}
		memory_report_csv(&r, f);
		fclose(f);
	}
	return r.present[MEMORY_GLIBC] && r.present[MEMORY_OBJCACHE] ? 0 : 1;
}
