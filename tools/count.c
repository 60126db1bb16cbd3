/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/count.c: fastcpu count: how often a program asks, and what it costs. */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "count.h"
#include "fastcpu.h"
#include "private.h"	/* what the library sees, for this tool only */
#include "tool.h"

/*
 * Runs the command with the counting shim (count-shim.c) preloaded ahead
 * of libfastcpu, waits for it, adds up the counts its process (and, with
 * --children, every process it started) left, and says on stderr (or in
 * the --output file) how often it asked, and what those calls cost here
 * with glibc against libfastcpu, measured now, in both rseq setups: the
 * time preloading would save, as a share of the run. The command's output
 * and exit status are its own.
 */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The shim: beside this program in a build tree, else where it was
 * installed. */
static const char *shim_path(void)
{
	static char beside[4096];
	ssize_t len = readlink("/proc/self/exe", beside, sizeof(beside) - 32);
	char *slash;

	if (len > 0) {
		beside[len] = '\0';
		slash = strrchr(beside, '/');
		if (slash != NULL) {
			strcpy(slash + 1, "fastcpu-count.so");
			if (access(beside, R_OK) == 0)
				return beside;
		}
	}
	return FASTCPU_COUNT_SHIM_PATH;
}

struct totals {
	unsigned long sched_getcpu, getcpu, threads, processes;
	unsigned long sched_fallback, getcpu_fallback;	/* of them, the fallback's */
};

/* Adds up the files the shim left in dir (one a process): every
 * process's, or root's alone (root > 0), or none (root < 0); removes them
 * all, counted or not, and dir. */
static void add_up(const char *dir, long root, struct totals *t)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char path[4096];
		struct fastcpu_count_file *f;
		unsigned int n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		unlink(path);
		if (fd < 0)
			continue;
		if (root < 0 || (root > 0 && atol(e->d_name) != root)) {
			close(fd);
			continue;
		}
		f = mmap(NULL, sizeof(*f), PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (f == MAP_FAILED)
			continue;
		n = f->threads < FASTCPU_COUNT_SLOTS ? f->threads : FASTCPU_COUNT_SLOTS;
		for (unsigned int i = 0; i < n; i++) {
			t->sched_getcpu += f->slot[i].sched_getcpu;
			t->getcpu += f->slot[i].getcpu;
			t->sched_fallback += f->slot[i].sched_fallback;
			t->getcpu_fallback += f->slot[i].getcpu_fallback;
		}
		t->threads += f->threads;
		t->processes++;
		munmap(f, sizeof(*f));
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

/*
 * ns per call of f (or g), the fastest of 7 rounds of 100,000, two ways: as
 * a loop of calls where nothing waits on the answer (what a call costs at
 * best: throughput), and with an atomic add on the answer's shard after
 * each call, minus the adds alone (what a call adds where the program
 * waits on its answer, as per-CPU code does: latency). The second is the
 * one a per-CPU counter, allocator or queue pays.
 */
typedef int (*cpu_fn)(void);
typedef int (*pair_fn)(unsigned int *, unsigned int *);

#define SHARDS 4096
static struct {
	unsigned long value;
} __attribute__((aligned(128))) shard[SHARDS];

static int ask(cpu_fn f, pair_fn g)
{
	unsigned int c = 0, n;

	if (f != NULL)
		return f();
	g(&c, &n);
	return (int)c;
}

static double per_call(cpu_fn f, pair_fn g, bool waited)
{
	double best = 1e9, loop = 1e9;

	for (int round = 0; round < 7; round++) {
		double t0 = now_s(), t1, t2;

		for (int i = 0; i < 100000; i++)
			if (waited)
				__atomic_fetch_add(&shard[0].value, 1, __ATOMIC_RELAXED);
			else
				__asm__ volatile("" : : : "memory");
		t1 = now_s();
		for (int i = 0; i < 100000; i++) {
			int cpu = ask(f, g);

			if (waited)
				__atomic_fetch_add(&shard[(unsigned int)cpu % SHARDS].value, 1,
						   __ATOMIC_RELAXED);
			else
				__asm__ volatile("" : : "r"(cpu) : "memory");
		}
		t2 = now_s();
		if (t1 - t0 < loop)
			loop = t1 - t0;
		if (t2 - t1 < best)
			best = t2 - t1;
	}
	return (best - loop) * 1e9 / 100000;
}

/* What one call costs in this process, both ways: glibc's functions (looked
 * up in libc itself: ours interpose them) and libfastcpu's. -1: glibc
 * lacks it. */
struct cost {
	double glibc, fastcpu;
};
struct costs {
	struct cost sched, getcpu;		/* nothing waits */
	struct cost sched_waited, getcpu_waited;	/* a locked add waits */
};

static struct cost both(cpu_fn glibc_f, pair_fn glibc_g, cpu_fn f, pair_fn g, bool waited)
{
	return (struct cost){
		glibc_f || glibc_g ? per_call(glibc_f, glibc_g, waited) : -1,
		per_call(f, g, waited),
	};
}

static struct costs measure(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	cpu_fn glibc_sched = libc ? (cpu_fn)dlsym(libc, "sched_getcpu") : NULL;
	pair_fn glibc_getcpu = libc ? (pair_fn)dlsym(libc, "getcpu") : NULL;

	(void)fastcpu_sched_getcpu();	/* this thread's first call, untimed */
	return (struct costs){
		both(glibc_sched, NULL, fastcpu_sched_getcpu, NULL, false),
		both(NULL, glibc_getcpu, NULL, fastcpu_getcpu, false),
		both(glibc_sched, NULL, fastcpu_sched_getcpu, NULL, true),
		both(NULL, glibc_getcpu, NULL, fastcpu_getcpu, true),
	};
}

/* The same in a new process of this program, with glibc's rseq
 * registration on (tunables NULL) or off, and the library's backend forced
 * (backend NULL: not; "syscall+cache": the cache on). */
static bool measure_apart(const char *tunables, const char *backend, struct costs *c)
{
	int fds[2];
	pid_t pid;
	bool ok;

	if (pipe(fds) != 0)
		return false;
	pid = fork();
	if (pid == 0) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", fds[1]);
		close(fds[0]);
		if (tunables)
			setenv("GLIBC_TUNABLES", tunables, 1);
		else
			unsetenv("GLIBC_TUNABLES");
		unsetenv("LD_PRELOAD");
		unsetenv("FASTCPU_BACKEND");
		unsetenv("FASTCPU_CACHE");
		if (backend != NULL) {
			char name[32], *plus;

			snprintf(name, sizeof(name), "%s", backend);
			plus = strchr(name, '+');
			if (plus != NULL)
				*plus = '\0';
			setenv("FASTCPU_BACKEND", name, 1);
			setenv("FASTCPU_CACHE", plus != NULL ? "on" : "off", 1);
		}
		setenv("FASTCPU_COUNT_MEASURE", fd, 1);
		execl("/proc/self/exe", "fastcpu", "count", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	ok = pid > 0 && read(fds[0], c, sizeof(*c)) == sizeof(*c);
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return ok;
}

/* A rate for people: 6.2 M, 870 k, 12. */
static const char *rate(double per_second, char *buf, size_t size)
{
	if (per_second >= 1e6)
		snprintf(buf, size, "%.1f M", per_second / 1e6);
	else if (per_second >= 1e3)
		snprintf(buf, size, "%.1f k", per_second / 1e3);
	else
		snprintf(buf, size, "%.0f", per_second);
	return buf;
}

/* A cost pair "glibc/libfastcpu", glibc's "none" where it lacks one. */
static const char *pair(const struct cost *c, char *buf, size_t size)
{
	if (c->glibc < 0)
		snprintf(buf, size, "none/%.2f", c->fastcpu);
	else
		snprintf(buf, size, "%.2f/%.2f", c->glibc, c->fastcpu);
	return buf;
}

static void say_costs(FILE *out, const char *setup, const struct costs *c)
{
	char a[32], b[32], d[32], e[32];

	fprintf(out, "  %-22s %-12s %-12s %-12s %-12s\n", setup, pair(&c->sched, a, sizeof(a)),
		pair(&c->sched_waited, b, sizeof(b)), pair(&c->getcpu, d, sizeof(d)),
		pair(&c->getcpu_waited, e, sizeof(e)));
}

/* ns calls calls would take with libfastcpu less than with glibc's
 * function (negative: more), at this per-call cost. */
static double saved_on(const struct cost *c, unsigned long calls)
{
	return c->glibc >= 0 ? (double)calls * (c->glibc - c->fastcpu) : 0;
}

/* The same for this run's calls: those a thread with an rseq area asked
 * at the setup's costs, those the fallback answered at its own (fb). */
static double saved(const struct cost *sched, const struct cost *getcpu,
		    const struct cost *fb_sched, const struct cost *fb_getcpu,
		    const struct totals *t)
{
	return saved_on(sched, t->sched_getcpu - t->sched_fallback) +
	       saved_on(getcpu, t->getcpu - t->getcpu_fallback) +
	       saved_on(fb_sched, t->sched_fallback) + saved_on(fb_getcpu, t->getcpu_fallback);
}

/* The calls' costs add up over threads, so the share is of the CPU time the
 * command used (cpu, with the library) as it would be without it. */
static void say_saving(FILE *out, double ns, double cpu)
{
	double without = cpu * 1e9 + ns, size = ns < 0 ? -ns : ns;

	fprintf(out, "%s %.3f ms (%.1f%%)", ns < 0 ? "costs" : "saves", size / 1e6,
		without > 0 ? 100 * size / without : 0);
}

static void say_savings(FILE *out, const char *setup, const struct costs *c,
			const struct costs *fb, const struct totals *t, double cpu)
{
	fprintf(out, "  %-22s ", setup);
	say_saving(out, saved(&c->sched_waited, &c->getcpu_waited, &fb->sched_waited,
			      &fb->getcpu_waited, t), cpu);
	fputs(" waited on; ", out);
	say_saving(out, saved(&c->sched, &c->getcpu, &fb->sched, &fb->getcpu, t), cpu);
	fputs(" not\n", out);
}

static void report(FILE *out, char **command, int status, double seconds, double cpu,
		   const struct totals *t)
{
	struct costs with_glibc, without_glibc, fallback;
	struct fastcpu_private_facts facts;
	const char *tunables = getenv("GLIBC_TUNABLES");
	bool off = tunables && strstr(tunables, "glibc.pthread.rseq=0");
	bool with = measure_apart(NULL, NULL, &with_glibc);
	bool without = measure_apart("glibc.pthread.rseq=0", NULL, &without_glibc);
	bool fb;
	char a[32], b[32], fb_setup[48];

	/* A thread without rseq: the fallback, against glibc there (its
	 * registration off too: the vDSO, where it has one). */
	fastcpu_private_facts(&facts);
	fb = measure_apart("glibc.pthread.rseq=0", facts.fallback, &fallback);
	snprintf(fb_setup, sizeof(fb_setup), "no rseq: %s", facts.fallback);

	/* On a line of its own after a command's unfinished progress line. */
	fprintf(out, "%sfastcpu count: %s ran %.3f s (%.3f s of CPU time), ",
		out == stderr ? "\n" : "", command[0], seconds, cpu);
	if (WIFSIGNALED(status))
		fprintf(out, "killed by signal %d\n", WTERMSIG(status));
	else
		fprintf(out, "exit status %d\n", WEXITSTATUS(status));
	fprintf(out, "  sched_getcpu(): %lu calls, %s a second; getcpu(): %lu calls, %s a second\n"
		"  %lu thread(s) asked, in %lu process(es); %lu and %lu of the calls asked\n"
		"  without an rseq area (no rseq, an owner's not registered there yet)\n",
		t->sched_getcpu, rate(seconds > 0 ? (double)t->sched_getcpu / seconds : 0, a, sizeof(a)),
		t->getcpu, rate(seconds > 0 ? (double)t->getcpu / seconds : 0, b, sizeof(b)),
		t->threads, t->processes, t->sched_fallback, t->getcpu_fallback);
	fprintf(out, "  ns a call here, glibc/libfastcpu: \"called\" in a loop where nothing waits on\n"
		"  the answer; \"waited\" what it adds to an atomic add on the answer's shard\n"
		"  %-22s %-25s %-25s\n  %-22s %-12s %-12s %-12s %-12s\n",
		"", "sched_getcpu()", "getcpu(&c, &n)", "", "called", "waited", "called", "waited");
	if (with)
		say_costs(out, "glibc registers rseq", &with_glibc);
	if (without)
		say_costs(out, "glibc.pthread.rseq=0", &without_glibc);
	if (fb)
		say_costs(out, fb_setup, &fallback);
	else
		fallback = without ? without_glibc : with_glibc;
	fprintf(out, "  what preloading saves this run, of its CPU time without the library,\n"
		"  where each answer is waited on (per-CPU code: an atomic or a lock on\n"
		"  the CPU's shard follows the call) and where it is not; calls asked\n"
		"  without an rseq area at the \"no rseq\" costs:\n");
	if (with)
		say_savings(out, "glibc registers rseq", &with_glibc, &fallback, t, cpu);
	if (without)
		say_savings(out, "glibc.pthread.rseq=0", &without_glibc, &fallback, t, cpu);
	fprintf(out, "  (this run was the %s row's)\n",
		off ? "glibc.pthread.rseq=0" : "first");
}

int cmd_count(int argc, char **argv)
{
	const char *lib, *measuring = getenv("FASTCPU_COUNT_MEASURE");
	struct tool_options o;
	FILE *out = stderr;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], *preload;
	struct totals t = { 0 };
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct rusage usage;
	int bad, status;
	double start;
	pid_t pid;

	if (measuring != NULL) {
		struct costs c = measure();

		return write(atoi(measuring), &c, sizeof(c)) == sizeof(c) ? 0 : 1;
	}
	if ((bad = tool_options(argc, argv, true, &o)) != 0)
		return bad;
	if ((lib = tool_library(o.library)) == NULL)
		return 127;
	if (tool_can_preload(shim_path()) != 0)
		return 127;
	/* Opened before the command runs, so a bad path costs no run; kept
	 * from the command by O_CLOEXEC. */
	if (o.output != NULL && (out = fopen(o.output, "we")) == NULL) {
		fprintf(stderr, "fastcpu: %s: %s\n", o.output, strerror(errno));
		return 127;
	}
	snprintf(dir, sizeof(dir), "%s/fastcpu-count.XXXXXX",
		 tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "fastcpu: count: %s: %s\n", dir, strerror(errno));
		return 127;
	}
	preload = tool_preload_list(shim_path(), lib);
	if (preload == NULL || setenv("LD_PRELOAD", preload, 1) != 0 ||
	    setenv("FASTCPU_COUNT_DIR", dir, 1) != 0) {
		perror("fastcpu: LD_PRELOAD");
		rmdir(dir);
		return 127;
	}
	/* ^C and ^\ are the command's: this waits for it, then reports. */
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	start = now_s();
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(o.command[0], o.command);
		fprintf(stderr, "fastcpu: %s: %s\n", o.command[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) {
		perror("fastcpu: count");
		add_up(dir, -1, &t);
		return 127;
	}
	unsetenv("LD_PRELOAD");
	add_up(dir, o.children ? 0 : (long)pid, &t);
	report(out, o.command, status, now_s() - start,
	       (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
	       (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6, &t);
	if (out != stderr && fclose(out) != 0)
		fprintf(stderr, "fastcpu: %s: %s\n", o.output, strerror(errno));
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
