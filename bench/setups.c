/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/setups.c: every setup the library meets, each in a process of its own. */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastcpu-bench.h"
#include "fastcpu.h"
#include "runner.h"

/*
 * A slow path hides where no table looks: a thread an owner never
 * registered once paid 6x glibc for a whole release. So each state a thread
 * can be in when it asks is a row, made for real in a new process of this
 * program (the library reads its settings and other rseq owners at load):
 * an owner is a stand-in of its convention (rseq-owner.c, preloaded), a
 * refused thread is refused by a seccomp filter, a vfork child is one. In
 * that thread it measures libfastcpu's answers against glibc's (plain),
 * alone and followed by a locked add on the answer's shard, the per-CPU
 * add against an atomic add on the shard fastcpu_current_cpu() names, and
 * the object cache's pair against malloc's. A forced backend serves
 * threads without rseq: its rows turn glibc's registration off too (glibc
 * answers them through the vDSO), and the forced system call's plain is
 * the system call, glibc's way where the kernel has no vDSO getcpu.
 */

/* The first two rows: glibc registered its area, or it did not and the
 * library registers its own; the run's own setup is one of them, the
 * other cannot run in it. */
enum { SETUP_GLIBC, SETUP_OWN };

enum thread_state {
	MAIN_THREAD,		/* the process's own, as it is */
	OWNER_REGISTERS,	/* the owner stand-in registers it first */
	REFUSED_PROCESS,	/* rseq refused by seccomp from exec on, as a
				 * sandbox does (glibc aborts where a thread
				 * after the first is refused) */
	VFORK_CHILD,		/* a vfork child of the attached main thread */
	VFORK_CHILD_FRESH,	/* a vfork child; the parent never asked */
};

static const struct setup {
	const char *key, *name;
	const char *owner;	/* the stand-in preloaded: librseq-owner<owner>.so */
	const char *backend, *cache;	/* FASTCPU_BACKEND, FASTCPU_CACHE */
	int backend_id;			/* the backend's fastcpu_backend_id(); 0: none forced */
	enum thread_state thread;
} setups[] = {
#define PLAIN(key, name, thread) { key, name, NULL, NULL, NULL, 0, thread }
#define OWNER(key, name, owner, thread) { key, name, owner, NULL, NULL, 0, thread }
/* Each backend forced, its answer cache off, then on. */
#define FORCED(b, id) { "forced_" b, "forced " b, NULL, b, "off", id, MAIN_THREAD }, \
	{ "forced_" b "_cache", "forced " b ", cache on", NULL, b, "on", id, MAIN_THREAD }
	PLAIN("glibc_area", "glibc's area", MAIN_THREAD),
	PLAIN("own_area", "the library's own area", MAIN_THREAD),
	OWNER("librseq_owner_registered", "librseq-shaped owner, registered", "-published",
	      OWNER_REGISTERS),
	OWNER("librseq_owner_unregistered", "librseq-shaped owner, never registered", "-published",
	      MAIN_THREAD),
	OWNER("refcount_owner", "refcount owner (older librseq)", "-refcount", MAIN_THREAD),
	OWNER("exported_rseq_abi_registered", "exported __rseq_abi, registered", "", OWNER_REGISTERS),
	OWNER("exported_rseq_abi_unregistered", "exported __rseq_abi, never registered", "",
	      MAIN_THREAD),
	OWNER("other_signature_owner", "owner of another signature", "-other", OWNER_REGISTERS),
	PLAIN("seccomp_refused", "rseq refused by seccomp (sandbox)", REFUSED_PROCESS),
	FORCED("rdpid", FASTCPU_BACKEND_RDPID),
	FORCED("vdso", FASTCPU_BACKEND_VDSO),
	FORCED("syscall", FASTCPU_BACKEND_SYSCALL),
	PLAIN("vfork_child", "vfork child", VFORK_CHILD),
	PLAIN("vfork_child_fresh", "vfork child, parent never asked", VFORK_CHILD_FRESH),
};
#define SETUPS (int)(sizeof(setups) / sizeof(setups[0]))

/* ---- in the setup's process --------------------------------------------- */

/* The object cache column, 64 bytes (its aims' size): a per-CPU allocator
 * must not lose to the per-thread one every program has, in any setup. */
static struct fastcpu_objcache *cache;

static unsigned long objcache_pairs(unsigned long n)
{
	struct fastcpu_objcache *c = cache;

	for (unsigned long i = 0; i < n; i += 4)
		FOUR({
			void *p = fastcpu_objcache_alloc(c);

			KEEP(p);
			fastcpu_objcache_free(c, p);
		});
	return n;
}

static unsigned long malloc_pairs(unsigned long n)
{
	for (unsigned long i = 0; i < n; i += 4)
		FOUR({
			void *p = malloc(64);

			KEEP(p);
			free(p);
		});
	return n;
}

/* Said by a setup's process made before it starts: the sandbox failed. */
#define NO_SECCOMP "FASTCPU_BENCH_NO_SECCOMP"

/* A forced cache miss: the thread's own sched_setaffinity() invalidates
 * its cache (re-pinning to the CPU it is on, so nothing else changes). */
static void force_miss(void)
{
	cpu_set_t now;

	if (sched_getaffinity(0, sizeof(now), &now) != 0 ||
	    sched_setaffinity(0, sizeof(now), &now) != 0)
		abort();
}

/* The row key.served: what served the thread (why), or why it did not run. */
static void served(struct rows *out, const char *why, double id)
{
	rows_add(out, "setup", "served", why, 0, UNIT_ID, id, id);
}

/* The locked add's rows (w, Table 7's keys) under the setup's keys. */
static void waited(struct rows *out, const struct rows *w, bool syscall_plain, bool getcpu)
{
	const struct { const char *from, *key, *name; } rows[] = {
		{ "work_alone", "locked_add_alone", "locked add alone" },
		{ "fastcpu_sched_getcpu", "locked_add_sched_getcpu",
		  "libfastcpu sched_getcpu() + locked add" },
		{ syscall_plain ? "syscall" : "glibc_sched_getcpu", "locked_add_plain_sched_getcpu",
		  "plain sched_getcpu() + locked add" },
		{ "fastcpu_getcpu", "locked_add_getcpu", "libfastcpu getcpu(&c, &n) + locked add" },
		{ syscall_plain ? "syscall" : "glibc_getcpu", "locked_add_plain_getcpu",
		  "plain getcpu(&c, &n) + locked add" },
	};

	for (int i = 0; i < (getcpu ? 5 : 3); i++) {
		const struct row *x = rows_get(w, "w", 0, "%s", rows[i].from);
		struct row *t;

		if (x == NULL)
			continue;
		t = rows_add(out, "setup", rows[i].key, rows[i].name, 0, UNIT_NS, x->best, x->median);
		t->low = x->low;
		t->high = x->high;
	}
}

/* The cells: libfastcpu / glibc (plain), ratios of medians; a call and the
 * locked add that waits on it whole, as a program pays them. */
static void cells(struct rows *out)
{
	static const char *const of[][5] = {	/* key, name, a, b, plus */
		{ "cell_sched", "sched", "sched_getcpu", "plain_sched_getcpu", NULL },
		{ "cell_getcpu", "getcpu", "getcpu", "plain_getcpu", NULL },
		{ "cell_sched_add", "sched+add", "locked_add_sched_getcpu",
		  "locked_add_plain_sched_getcpu", "locked_add_alone" },
		{ "cell_getcpu_add", "getcpu+add", "locked_add_getcpu", "locked_add_plain_getcpu",
		  "locked_add_alone" },
		{ "cell_percpu_add", "per-CPU add", "counter_add", "own_shard_atomic", NULL },
		{ "cell_objcache", "objcache", "objcache_pair", "malloc_pair", NULL },
	};

	for (size_t c = 0; c < sizeof(of) / sizeof(of[0]); c++)
		rows_ratio(out, "setup", of[c][0], of[c][1], rows_get(out, "setup", 0, "%s", of[c][2]),
			   rows_get(out, "setup", 0, "%s", of[c][3]),
			   of[c][4] ? rows_get(out, "setup", 0, "%s", of[c][4]) : NULL);
}

/* Everything the setup measures, in the calling thread: a fifth of the
 * runs, each setup being one of bench.processes fresh processes. */
static void measure_row(int id, bool counters, struct rows *out)
{
	struct bench_config cfg = { bench.cfg.runs / 5 | 1, bench.cfg.iters };
	/* Where glibc has nothing but the system call (the forced syscall rows:
	 * a kernel without a vDSO getcpu), plain is that. */
	bool syscall_plain = setups[id].backend_id == FASTCPU_BACKEND_SYSCALL;
	bool getcpu = syscall_plain || glibc_getcpu_p != NULL;
	struct bench_case set[12] = {
		{ "empty_loop", "empty loop", loop_empty },
		{ "sched_getcpu", "libfastcpu sched_getcpu()", loop_fastcpu_sched_getcpu },
		{ "plain_sched_getcpu", "plain sched_getcpu()",
		  syscall_plain ? loop_syscall_getcpu : loop_glibc_sched_getcpu },
		{ "getcpu_generic", "libfastcpu getcpu(&c, NULL)", loop_fastcpu_getcpu_generic },
		{ "syscall", "getcpu system call", loop_syscall_getcpu },
	};
	int n = 5, forced = setups[id].backend_id;
	struct rows w = { 0 };

	if (getcpu) {
		set[n++] = (struct bench_case){ "getcpu", "libfastcpu getcpu(&c, &n)", loop_fastcpu_getcpu };
		set[n++] = (struct bench_case){ "plain_getcpu", "plain getcpu(&c, &n)",
						syscall_plain ? loop_syscall_getcpu : loop_glibc_getcpu };
	}
	counters = counters && (cache != NULL || (cache = fastcpu_objcache_new(64, 0)) != NULL);
	if (counters) {
		counters_init();
		set[n++] = (struct bench_case){ "counter_add", "fastcpu_counter_add()",
						counter_measure_loops[COUNTER_PERCPU_RSEQ] };
		set[n++] = (struct bench_case){ "own_shard_atomic", "atomic add on own shard",
						counter_measure_loops[COUNTER_PERCPU_FASTCPU] };
		set[n++] = (struct bench_case){ "objcache_pair", "objcache alloc+free", objcache_pairs };
		set[n++] = (struct bench_case){ "malloc_pair", "malloc+free", malloc_pairs };
	}
	served(out, fastcpu_backend(), fastcpu_backend_id());
	bench_measure(set, n, &cfg, out, "setup");
	latency_measure(&w, "w", &cfg);
	waited(out, &w, syscall_plain, getcpu);
	rows_free(&w);
	if (forced != 0 && counters)	/* seed 000's MISS (its HIT: sched_getcpu, cache on) */
		bench_measure_once(rows_add(out, "setup", "miss", "MISS", 0, UNIT_NS, 0, 0), force_miss,
				   once_fastcpu_sched_getcpu, cfg.runs, false);
	cells(out);
	if (forced != 0 && fastcpu_backend_id() == forced)	/* where it bound what it forced */
		rows_ratio(out, "aims", "counter_to_shard", "counter add / atomic add on own shard",
			   rows_get(out, "setup", 0, "counter_add"),
			   rows_get(out, "setup", 0, "own_shard_atomic"), NULL);
}

/* The kernel refuses rseq to this thread and those it makes from now on
 * (EPERM, as a sandbox says it); false where it cannot. */
static bool refuse_rseq(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rseq, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

/* The owner stand-in's own registration of the calling thread. */
static bool owner_registers(void)
{
	int (*reg)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "rseq_owner_register");

	return reg != NULL && reg() == 0;
}

/* A vfork child measures in its parent's memory (the parent waits): no
 * per-CPU operation, which a vfork child must not use. */
static void measure_in_vfork_child(int id, struct rows *out)
{
	int before = out->count;
	pid_t pid = vfork();

	if (pid == 0) {
		measure_row(id, false, out);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (out->count == before)	/* qemu-user's vfork is a fork */
		served(out, "no vfork here", NAN);
}

void setups_workload(int id, struct rows *out)
{
	const struct setup *s = &setups[id];

	switch (s->thread) {
	case REFUSED_PROCESS:
	case MAIN_THREAD:
		if (getenv(NO_SECCOMP) != NULL)
			served(out, "no seccomp here", NAN);
		else
			measure_row(id, true, out);
		break;
	case OWNER_REGISTERS:
		if (owner_registers())
			measure_row(id, true, out);
		else
			served(out, "the stand-in did not register", NAN);
		break;
	case VFORK_CHILD:
		(void)fastcpu_sched_getcpu();	/* the parent attaches */
		/* fall through */
	case VFORK_CHILD_FRESH:
		measure_in_vfork_child(id, out);
		break;
	}
	if (id != SETUP_GLIBC)	/* the run's own: named where it is known */
		rows_prefix(out, 0, s->key, s->name);
}

/* ---- in the benchmark's process ----------------------------------------- */

/* The stand-in owner libraries: beside this program in the build tree
 * (libtool puts both in .libs), else where the build made them. */
static bool owner_path(const char *owner, char *path, size_t size)
{
	char self[2048] = "";
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	snprintf(path, size, "%.*s/librseq-owner%s.so",
		 len > 0 && strrchr(self, '/') ? (int)(strrchr(self, '/') - self) : 0, self, owner);
	if (len > 0 && access(path, R_OK) == 0)
		return true;
	snprintf(path, size, "%s/librseq-owner%s.so", FASTCPU_BENCH_OWNER_DIR, owner);
	return access(path, R_OK) == 0;
}

/* AddressSanitizer's runtime must be the first library a process loads: a
 * preloaded owner cannot be (configure --enable-sanitizers). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Why setup id cannot run in this run's process setup, where the run's own
 * (the probe) was served by backend, or NULL. */
static const char *cannot_run(int id, double backend)
{
	char path[4096];
	bool glibc = backend == FASTCPU_BACKEND_RSEQ_GLIBC;
	bool rseq = backend >= FASTCPU_BACKEND_RSEQ_GLIBC && backend <= FASTCPU_BACKEND_RSEQ_OWN;

	if (id == SETUP_GLIBC && !glibc)
		return "glibc does not register here";
	if (id == SETUP_OWN && glibc)
		return "glibc registers here";
	if (id == SETUP_OWN && !rseq)
		return "no rseq here";
	if (setups[id].owner != NULL && SANITIZED)
		return "not preloaded ahead of ASan";
	if (setups[id].owner != NULL && !owner_path(setups[id].owner, path, sizeof(path)))
		return "no stand-in owner (build tree only)";
	return NULL;
}

/* The setup's process: this program with the setup's settings, its stderr
 * /dev/null (a forced backend the machine lacks says so; the row shows). */
static void prepare(int id)
{
	const struct setup *s = &setups[id];
	char preload[4096];
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	if (s->backend != NULL) {
		setenv("FASTCPU_BACKEND", s->backend, 1);
		setenv("FASTCPU_CACHE", s->cache, 1);
		bench_glibc_rseq_off();
	}
	if (s->owner != NULL && owner_path(s->owner, preload, sizeof(preload)))
		setenv("LD_PRELOAD", preload, 1);
	if (s->thread == REFUSED_PROCESS && !refuse_rseq())
		setenv(NO_SECCOMP, "1", 1);
}

/* The aim of the setup table's highest cell, named by its row and column. */
static void highest_cell(struct rows *out)
{
	const struct row *worst = NULL;
	char name[160] = "setup table's highest cell", *colon;

	for (const struct row *x = out->at; x < out->at + out->count; x++)
		if (strcmp(x->table, "setup") == 0 && strstr(x->key, ".cell_") && !isnan(x->median) &&
		    (worst == NULL || x->median > worst->median))
			worst = x;
	if (worst != NULL)
		snprintf(name, sizeof(name), "setup table's highest cell (%s)", worst->name);
	if ((colon = strchr(name, ':')) != NULL)
		*colon = ',';
	rows_add(out, "aims", "setup_highest_cell", name, 0, UNIT_RATIO, NAN, row_median(worst));
}

/* Setup id's row key.served, that says why it did not run. */
static void not_run(struct rows *out, int id, const char *why)
{
	served(out, why, NAN);
	rows_prefix(out, out->count - 1, setups[id].key, setups[id].name);
}

void setups_measure(struct rows *out)
{
	struct bench_job jobs[SETUPS], probe = { "setup", SETUP_GLIBC, prepare };
	struct rows own = { 0 };
	const struct row *how;
	int n = 0;

	/* The run's own setup, as the main-thread rows find it. */
	bench_run_jobs(&probe, 1, bench.processes, &own);
	how = rows_get(&own, "setup", 0, "served");
	for (int id = 0; id < SETUPS; id++) {
		const char *why = cannot_run(id, row_median(how));

		if (why != NULL) {
			not_run(out, id, why);
		} else if (id == SETUP_GLIBC || id == SETUP_OWN) {
			rows_prefix(&own, 0, setups[id].key, setups[id].name);
			for (int k = 0; k < own.count; k++)
				rows_append(out, &own.at[k]);
		} else {
			jobs[n++] = (struct bench_job){ "setup", id, prepare };
		}
	}
	rows_free(&own);
	bench_run_jobs(jobs, n, bench.processes, out);
	for (int k = 0; k < n; k++)
		if (rows_get(out, "setup", 0, "%s.served", setups[jobs[k].arg].key) == NULL)
			not_run(out, jobs[k].arg, "its process failed");
	highest_cell(out);
}
