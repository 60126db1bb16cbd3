/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/forced.c: each backend forced, in a new process of the benchmark. */

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cases.h"
#include "counters.h"
#include "fastcpu.h"
#include "forced.h"
#include "latency.h"

#define CASE(label, fn) ((struct bench_result){ .name = (label), .loop = (fn) })

struct forced {
	const char *backend, *cache;
};

static const struct forced forced_runs[] = {
	{ "rdpid", "off" }, { "rdpid", "on" },
	{ "vdso", "off" }, { "vdso", "on" },
	{ "syscall", "off" }, { "syscall", "on" },
};
#define NFORCED (int)(sizeof(forced_runs) / sizeof(forced_runs[0]))

/* A forced cache miss: the thread's own sched_setaffinity() invalidates
 * its cache (re-pinning to the CPU it is on, so nothing else changes). */
static void force_miss(void)
{
	cpu_set_t now;

	if (sched_getaffinity(0, sizeof(now), &now) != 0 ||
	    sched_setaffinity(0, sizeof(now), &now) != 0)
		abort();
}

/* In a new process started with the case's settings (forced_run_all):
 * what it measured, sent back whole through a pipe (its pointers the
 * parent's to set). */
static void forced_child(int fd, const struct bench_config *cfg)
{
	struct report_forced r;
	struct bench_result set[8] = {
		CASE("empty loop", loop_empty),
		CASE("libfastcpu sched_getcpu()", loop_fastcpu_sched_getcpu),
		CASE("libfastcpu getcpu(&c, NULL)", loop_fastcpu_getcpu_generic),
		CASE("libfastcpu getcpu(&c, &n)", loop_fastcpu_getcpu),
		CASE("glibc sched_getcpu()", loop_glibc_sched_getcpu),
		CASE("getcpu system call", loop_syscall_getcpu),
		CASE("fastcpu_counter_add()", counter_measure_loops[COUNTER_PERCPU_RSEQ]),
		CASE("atomic add on own shard", counter_measure_loops[COUNTER_PERCPU_FASTCPU]),
	};

	memset(&r, 0, sizeof(r));
	snprintf(r.bound, sizeof(r.bound), "%.31s", fastcpu_backend());
	counters_init();
	bench_measure(set, 8, cfg);
	r.sched = set[1];
	r.generic = set[2];
	r.getcpu = set[3];
	r.glibc = set[4];
	r.syscall = set[5];
	r.counter = set[6];
	r.shard = set[7];
	latency_measure_exported(&r.waited, cfg);
	/* seed 000's MISS and HIT, one call timed at a time. */
	bench_measure_once(&r.miss, force_miss, once_fastcpu_sched_getcpu,
			   cfg->runs);
	bench_measure_once(&r.hit, once_fastcpu_sched_getcpu,
			   once_fastcpu_sched_getcpu, cfg->runs);
	_exit(write(fd, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

/* Reads size bytes whole (a pipe may give them in parts): 0, or -1. */
static int read_whole(int fd, void *buf, size_t size)
{
	for (size_t done = 0; done < size;) {
		ssize_t n = read(fd, (char *)buf + done, size - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Whether this machine has what forced run i asks for: a backend it lacks
 * is not run (the library would say so on stderr and use another). */
static bool forced_available(int i, const struct report_machine *m)
{
	if (strcmp(forced_runs[i].backend, "rdpid") == 0)
		return m->rdpid;
	if (strcmp(forced_runs[i].backend, "vdso") == 0)
		return m->vdso_getcpu;
	return true;
}

/* The library reads its settings at load: each forced case runs in a new
 * process of this program, with the same arguments, started with them.
 * Its stderr is closed to the library's one line where it still declines
 * (riscv's vDSO getcpu is the system call): the row then shows what bound. */
void forced_run_all(struct report *r, char **argv)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		abort();
	self[len] = '\0';
	for (int i = 0; i < NFORCED; i++) {
		struct report_forced *out = &r->forced[i];
		char spec[32];
		int p[2], status;
		pid_t pid;

		memset(out, 0, sizeof(*out));
		if (!forced_available(i, &r->machine)) {
			snprintf(out->bound, sizeof(out->bound), "not on this machine");
		} else if (pipe(p) != 0 || (pid = fork()) < 0) {
			abort();
		} else if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			close(p[0]);
			if (null >= 0)
				dup2(null, STDERR_FILENO);
			snprintf(spec, sizeof(spec), "%d %d", i, p[1]);
			setenv("FASTCPU_BACKEND", forced_runs[i].backend, 1);
			setenv("FASTCPU_CACHE", forced_runs[i].cache, 1);
			setenv("FASTCPU_BENCH_FORCED", spec, 1);
			execv(self, argv);
			_exit(127);
		} else {
			close(p[1]);
			if (read_whole(p[0], out, sizeof(*out)) != 0)
				memset(out, 0, sizeof(*out));
			close(p[0]);
			waitpid(pid, &status, 0);
		}
		out->backend = forced_runs[i].backend;
		out->cache = forced_runs[i].cache;
	}
	r->forced_count = NFORCED;
}

void forced_child_if_asked(const struct bench_config *cfg)
{
	const char *spec = getenv("FASTCPU_BENCH_FORCED");
	int i, fd;

	if (spec == NULL)
		return;
	if (sscanf(spec, "%d %d", &i, &fd) != 2 || i < 0 || i >= NFORCED)
		_exit(2);
	forced_child(fd, cfg);
}
