/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/runner.c: a benchmark program: its settings, its workloads in fresh processes, its report. */

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
# include <cpuid.h>
#endif

#include "fastcpu.h"
#include "runner.h"

struct bench_settings bench;

static char **self_argv;

/* The environment variable that makes a process a job's: "workload arg fd". */
#define JOB_ENV "FASTCPU_BENCH_JOB"

/* ---- the machine -------------------------------------------------------- */

void *bench_vdso_getcpu(void)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *f = vdso ? dlsym(vdso, "__vdso_getcpu") : NULL;

	return f || vdso == NULL ? f : dlsym(vdso, "__kernel_getcpu");
}

bool bench_have_rdpid(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 22));
#else
	return false;
#endif
}

static void describe(struct report_machine *m)
{
	const unsigned int *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");
	int backend = fastcpu_backend_id() & ~FASTCPU_BACKEND_CACHED;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	struct utsname u;

	*m = (struct report_machine){
		.glibc_rseq_size = rseq_size ? (int)*rseq_size : -1,
		.rseq_feature_size = (int)getauxval(27),	/* AT_RSEQ_FEATURE_SIZE */
		.rseq = backend >= FASTCPU_BACKEND_RSEQ_GLIBC && backend <= FASTCPU_BACKEND_RSEQ_OWN,
		.rdpid = bench_have_rdpid(), .vdso_getcpu = bench_vdso_getcpu() != NULL,
		.cpus = bench.cpus, .pinned = bench.first_cpu, .runs = bench.cfg.runs,
		.rounds = bench.rounds, .processes = bench.processes, .iters = bench.cfg.iters,
		.cpu_model = "unknown CPU",
	};
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%.*s",
				 (int)strcspn(strchr(line, ':') + 2, "\n"), strchr(line, ':') + 2);
			break;
		}
	if (f)
		fclose(f);
	uname(&u);
	snprintf(m->kernel, sizeof(m->kernel), "%.64s %.64s", u.sysname, u.release);
	snprintf(m->libc, sizeof(m->libc), "glibc %s", gnu_get_libc_version());
	snprintf(m->backend, sizeof(m->backend), "%.31s", fastcpu_backend());
}

bool bench_pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	if (cpu >= 0)
		CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), cpu >= 0 ? &one : &bench.allowed) == 0;
}

void bench_glibc_rseq_off(void)
{
	const char *was = getenv("GLIBC_TUNABLES");
	char tunables[1024];

	snprintf(tunables, sizeof(tunables), "%s%sglibc.pthread.rseq=0",
		 was ? was : "", was && *was ? ":" : "");
	setenv("GLIBC_TUNABLES", tunables, 1);
}

/*
 * Whether the machine was quiet while the program measured: the CPU time
 * every task took (/proc/stat's busy ticks, a VM's stolen ones among them)
 * less this program's and its processes', as a share of the time its CPUs
 * had; NAN where unknown.
 */
struct cpu_time {
	double busy, ours, wall;
};

static struct cpu_time cpu_time_now(void)
{
	unsigned long long v[8] = { 0 };
	struct cpu_time t = { NAN, 0, 0 };
	struct rusage self, children;
	struct timespec now;
	FILE *f = fopen("/proc/stat", "r");

	if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			&v[4], &v[5], &v[6], &v[7]) == 8)
		t.busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
	if (f)
		fclose(f);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	t.ours = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
			  children.ru_stime.tv_sec) +
		 (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
			  children.ru_stime.tv_usec) / 1e6;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t.wall = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	return t;
}

static double others_share(struct cpu_time before, int cpus)
{
	struct cpu_time after = cpu_time_now();
	double others = (after.busy - before.busy) - (after.ours - before.ours);

	if (isnan(others) || after.wall <= before.wall)
		return NAN;
	return others < 0 ? 0 : others / ((after.wall - before.wall) * cpus);
}

/* ---- jobs in fresh processes -------------------------------------------- */

/* In a job's process (JOB_ENV set): its workload's rows, written whole to
 * the pipe; then it exits. Elsewhere returns. */
static void job_if_asked(const struct bench_program *p)
{
	const char *spec = getenv(JOB_ENV);
	struct rows out = { 0 };
	char name[32];
	int arg, fd;

	if (spec == NULL)
		return;
	if (sscanf(spec, "%31s %d %d", name, &arg, &fd) != 3)
		_exit(2);
	for (int i = 0; i < p->nworkloads; i++)
		if (strcmp(p->workloads[i].name, name) == 0) {
			p->workloads[i].run(arg, &out);
			rows_aims(&out, p->aims, p->naims);
			_exit(write(fd, out.at, (size_t)out.count * sizeof(*out.at)) ==
			      (ssize_t)((size_t)out.count * sizeof(*out.at)) ? 0 : 1);
		}
	_exit(2);
}

/* The job in a fresh process of this program: its rows added to got;
 * whether it gave any. */
static bool spawn(const struct bench_job *job, struct rows *got)
{
	int p[2], status = 0, before = got->count;
	struct row x;
	FILE *rows;
	pid_t pid;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		char spec[64];

		close(p[0]);
		snprintf(spec, sizeof(spec), "%s %d %d", job->workload, job->arg, p[1]);
		setenv(JOB_ENV, spec, 1);
		if (job->prepare)
			job->prepare(job->arg);
		execv("/proc/self/exe", self_argv);
		_exit(127);
	}
	close(p[1]);
	if ((rows = fdopen(p[0], "r")) == NULL)
		abort();
	while (fread(&x, sizeof(x), 1, rows) == 1)	/* whole rows, however the pipe splits them */
		rows_append(got, &x);
	fclose(rows);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		got->count = before;
	return got->count > before;
}

void bench_run_jobs(const struct bench_job *jobs, int n, int processes, struct rows *out)
{
	struct rows *got = calloc((size_t)n + 1, sizeof(*got));
	int *gave = calloc((size_t)n + 1, sizeof(*gave));

	if (got == NULL || gave == NULL)
		abort();
	for (int p = 0; p < processes; p++)
		for (int j = 0; j < n; j++) {
			int k = (j + p) % n;

			gave[k] += spawn(&jobs[k], &got[k]);
		}
	for (int k = 0; k < n; k++) {
		rows_fold(&got[k], gave[k], out);
		rows_free(&got[k]);
	}
	free(got);
	free(gave);
}

/* ---- the program -------------------------------------------------------- */

enum format { TEXT, JSON, CSV };

/* The options: -1 to go on, else the exit status. */
static int options(int argc, char **argv, const struct bench_program *p, enum format *format,
		   const char **csv_file)
{
	const char *processes = getenv("FASTCPU_BENCH_PROCESSES");
	int rounds = 7;

	bench.quick = getenv("FASTCPU_BENCH_QUICK") != NULL;
	bench.cfg = (struct bench_config){ 0, 1000 };
	bench.processes = processes ? atoi(processes) : 0;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;

		if (strcmp(argv[i], "--quick") == 0)
			bench.quick = true;
		else if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--csv") == 0)
			*format = argv[i][2] == 'j' ? JSON : CSV;
		else if (strcmp(argv[i], "--csv-file") == 0 && more)
			*csv_file = argv[++i];
		else if (strcmp(argv[i], "--runs") == 0 && more)
			bench.cfg.runs = atoi(argv[++i]) | 1;
		else if (strcmp(argv[i], "--rounds") == 0 && more)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--processes") == 0 && more)
			bench.processes = atoi(argv[++i]);
		else {
			fprintf(strcmp(argv[i], "--help") == 0 ? stdout : stderr, "usage: %s [--quick] "
				"[--json | --csv] [--csv-file FILE] [--runs N] [--rounds N]\n"
				"       [--processes N]\n%s", p->name, p->usage);
			return strcmp(argv[i], "--help") == 0 ? 0 : 2;
		}
	}
	if (bench.cfg.runs <= 0)
		bench.cfg.runs = bench.quick ? 51 : 1001;
	bench.rounds = bench.quick ? p->quick_rounds : rounds < 1 || rounds > 64 ? 7 : rounds;
	if (bench.processes < 1 || bench.processes > 1000)
		bench.processes = bench.quick ? 5 : 20;
	if (sched_getaffinity(0, sizeof(bench.allowed), &bench.allowed) != 0)
		return 1;
	bench.cpus = CPU_COUNT(&bench.allowed);
	for (bench.first_cpu = 0; !CPU_ISSET(bench.first_cpu, &bench.allowed); bench.first_cpu++)
		;
	return -1;
}

int bench_main(int argc, char **argv, const struct bench_program *p)
{
	static struct rows rows;
	struct report_machine machine;
	enum format format = TEXT;
	const char *csv_file = NULL;
	int status = options(argc, argv, p, &format, &csv_file);
	struct cpu_time before;
	FILE *f;

	if (status >= 0)
		return status;
	self_argv = argv;
	if (p->init)
		p->init();
	job_if_asked(p);
	before = cpu_time_now();
	status = p->measure(&rows);
	rows_aims(&rows, p->aims, p->naims);
	rows_add(&rows, "run", "others_cpu_share", "CPU time other processes took while this measured",
		 0, UNIT_RATIO, NAN, others_share(before, bench.cpus));
	describe(&machine);
	if (csv_file != NULL && (f = fopen(csv_file, "w")) == NULL) {
		perror(csv_file);
		return 1;
	}
	if (csv_file != NULL) {
		report_csv(&rows, f);
		fclose(f);
	}
	if (format == JSON) {
		report_json(&machine, &rows, p->aims, p->naims, stdout);
	} else if (format == CSV) {
		report_csv(&rows, stdout);
	} else {
		report_text(&machine, p->name, &rows, p->views, p->nviews, p->aims, p->naims, stdout);
		if (p->text)
			p->text(&rows, stdout);
	}
	return status;
}
