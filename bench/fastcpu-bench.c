/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/fastcpu-bench.c: libfastcpu against the system libc, in one run. */

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cases.h"
#include "loops.h"
#include "counters.h"
#include "fastcpu.h"
#include "latency.h"
#include "measure.h"
#include "preempted.h"
#include "report.h"
#include "setups.h"

static const char usage[] =
	"usage: fastcpu-bench [--quick] [--json | --csv] [--csv-file FILE] [--runs N]\n"
	"Times reading the current CPU with libfastcpu and with the system\n"
	"libc, side by side in one process; prints the seed documents' tables\n"
	"(ns per call, best and median, empty loop subtracted) or, with --json\n"
	"or --csv, the same numbers for machines; --csv-file also writes them\n"
	"to FILE.\n";

static struct bench_config cfg = { .runs = 1001, .iters = 1000 };
static unsigned long counter_increments = 2000000;
static int counter_rounds = 7;
static int first_call_threads = 200;
static cpu_set_t allowed;

/* ---- the machine ------------------------------------------------------- */

static void describe_machine(struct report_machine *m)
{
	struct utsname u;
	const unsigned int *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon) {
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%.127s", colon + 2);
			m->cpu_model[strcspn(m->cpu_model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	uname(&u);
	snprintf(m->kernel, sizeof(m->kernel), "%.64s %.64s", u.sysname, u.release);
	snprintf(m->libc, sizeof(m->libc), "glibc %s", gnu_get_libc_version());
	m->glibc_rseq_size = rseq_size ? (int)*rseq_size : -1;
	m->rseq_feature_size = (int)getauxval(27);	/* AT_RSEQ_FEATURE_SIZE */
#ifdef CASES_X86
	m->rdpid = cases_have_rdpid();
#endif
	m->vdso_getcpu = cases_have_vdso_getcpu();
	m->cpus = CPU_COUNT(&allowed);
	m->cycles = bench_have_cycles();
}

/*
 * The counter of Table 4, indexed by CPU number and by concurrency id, in
 * this process restricted to the upper half of its CPUs (as taskset would),
 * a thread per CPU given: how many shards each touched and how far into
 * the array. Needs two CPUs.
 */
static void restricted_counter(struct report_restricted *x, unsigned long increments)
{
	static const char *const index[2] = { "CPU number", "concurrency id" };
	static const enum counter_kind kinds[2] = { COUNTER_PERCPU_FASTCPU,
						    COUNTER_PERCID_FASTCPU };
	cpu_set_t upper;
	int total = CPU_COUNT(&allowed), seen = 0, len = 0;

	if (total < 2)
		return;
	CPU_ZERO(&upper);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed) && seen++ >= total / 2) {
			CPU_SET(cpu, &upper);
			len += snprintf(x->cpus + len, sizeof(x->cpus) - (size_t)len,
					"%s%d", len ? "," : "", cpu);
			if ((size_t)len >= sizeof(x->cpus))
				len = (int)sizeof(x->cpus) - 1;
		}
	x->threads = CPU_COUNT(&upper);
	if (sched_setaffinity(0, sizeof(upper), &upper) != 0) {
		x->threads = 0;
		return;
	}
	for (int i = 0; i < 2; i++) {
		counter_reset();
		x->by[i].index = index[i];
		x->by[i].ns = counter_ns_per_increment(kinds[i], x->threads, increments);
		x->by[i].used = counter_shards_used(&x->by[i].highest, &x->by[i].bytes);
	}
	sched_setaffinity(0, sizeof(allowed), &allowed);
}

/*
 * One column of Table 4: every kind with nthreads threads, in rounds that
 * each run them all (from a different one each time, so that a noisy
 * moment falls on all alike); the median and best of the rounds, the empty
 * loop's subtracted. -1 where a kind does not run with that many threads.
 */
static void counter_threads(struct report *r, int nthreads)
{
	double ns[COUNTER_KINDS][16], best[COUNTER_KINDS], median[COUNTER_KINDS];
	int t = r->thread_counts++, rounds = counter_rounds < 16 ? counter_rounds : 16;

	r->threads[t] = nthreads;
	for (int round = 0; round < rounds; round++)
		for (int j = 0; j < COUNTER_KINDS; j++) {
			int k = (j + round) % COUNTER_KINDS;

			ns[k][round] = counter_available(k, nthreads) ?
				counter_ns_per_increment(k, nthreads, counter_increments) : -1;
		}
	for (int k = 0; k < COUNTER_KINDS; k++)
		bench_best_and_median(ns[k], rounds, &best[k], &median[k]);
	for (int k = 0; k < COUNTER_KINDS; k++) {
		bool ran = best[k] >= 0;

		r->counter_ns[k][t] = ran ? median[k] - median[COUNTER_EMPTY] : -1;
		r->counter_best[k][t] = ran ? best[k] - best[COUNTER_EMPTY] : -1;
	}
}

static int pin_to_first_cpu(void)
{
	cpu_set_t one;

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			return cpu;
	}
	return -1;
}

/* ---- the jobs, in the order they run ---------------------------------- */

enum format { TEXT, JSON, CSV };

/* The options: -1 to go on, else the exit status. */
static int options(int argc, char **argv, enum format *format, const char **csv_file)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			cfg.runs = 51;
			counter_increments = 100000;
			counter_rounds = 3;
			first_call_threads = 20;
		} else if (strcmp(argv[i], "--json") == 0) {
			*format = JSON;
		} else if (strcmp(argv[i], "--csv") == 0) {
			*format = CSV;
		} else if (strcmp(argv[i], "--csv-file") == 0 && i + 1 < argc) {
			*csv_file = argv[++i];
		} else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
			cfg.runs = atoi(argv[++i]) | 1;
		} else {
			fputs(usage, strcmp(argv[i], "--help") == 0 ? stdout : stderr);
			return strcmp(argv[i], "--help") == 0 ? 0 : 2;
		}
	}
	return -1;
}

/* Tables 1, 7 and 5 and the first call, in this process as configured by
 * its environment. */
static void reading_tables(struct report *r)
{
	(void)fastcpu_sched_getcpu();	/* attach this thread first */
	snprintf(r->machine.backend, sizeof(r->machine.backend), "%.31s", fastcpu_backend());
	cases_reading(r->reading);
	bench_measure(r->reading, WAYS, &cfg);
	/* Table 7: the same ways of asking, where the answer is waited on. */
	latency_measure(&r->latency, &cfg, true);
	/* Table 5: the inline reads in a loop, with reference rows where
	 * the thread reads an rseq area. */
	loops_cases(r->loops, loops_init());
	bench_measure(r->loops, LOOP_CASES, &cfg);
	r->cid_limit = fastcpu_cid_limit();
	bench_measure_first_call(&r->first_fastcpu, once_fastcpu_sched_getcpu, first_call_threads);
	bench_measure_first_call(&r->first_glibc, once_glibc_sched_getcpu, first_call_threads);
}

/* Table 4, one thread pinned then threads free, and table 6. */
static void counter_tables(struct report *r)
{
	counters_init();
	for (int k = 0; k < COUNTER_KINDS; k++)
		r->counter_one[k] = (struct bench_result){
			.name = counter_names[k],
			.key = counter_keys[k],
			.loop = counter_available(k, 1) ? counter_measure_loops[k] : NULL,
		};
	bench_measure(r->counter_one, COUNTER_KINDS, &cfg);
	sched_setaffinity(0, sizeof(allowed), &allowed);
	for (int t = 1; (t <= 8 || t <= 2 * r->machine.cpus) &&
	     r->thread_counts < REPORT_MAX_THREAD_COUNTS; t *= 2)
		counter_threads(r, t);
	restricted_counter(&r->restricted, counter_increments);
	/* Table 9: the lock's holder preempted. */
	preempted_measure(&r->preempted, counter_rounds > 3 ? 1.0 : 0.2);
}

static int write_report(const struct report *r, enum format format, const char *csv_file)
{
	if (csv_file != NULL) {
		FILE *f = fopen(csv_file, "w");

		if (f == NULL) {
			perror(csv_file);
			return 1;
		}
		report_csv(r, f);
		fclose(f);
	}
	if (format == JSON)
		report_json(r, stdout);
	else if (format == CSV)
		report_csv(r, stdout);
	else
		report_text(r, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static struct report r;
	enum format format = TEXT;
	const char *csv_file = NULL;
	int done = options(argc, argv, &format, &csv_file);

	if (done >= 0)
		return done;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return 1;
	cases_init();
	setups_child_if_asked(&cfg);
	describe_machine(&r.machine);
	r.machine.pinned_cpu = pin_to_first_cpu();
	r.machine.runs = cfg.runs;
	r.machine.iters = cfg.iters;
	/* Table 10 (and 2, 3) first: the children must find nothing bound here. */
	setups_run_all(r.setups, argv, &cfg);
	reading_tables(&r);
	counter_tables(&r);
	return write_report(&r, format, csv_file);
}
