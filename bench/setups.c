/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/setups.c: every setup the library meets, each in a process of its own. */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc-pairs.h"
#include "cases.h"
#include "counters.h"
#include "fastcpu.h"
#include "latency.h"
#include "setups.h"

/*
 * A slow path hides where no table looks: a thread an owner never
 * registered once paid 6x glibc for a whole release. So each state a
 * thread can be in when it asks is a row, made for real in a new process
 * of this program (the library reads its settings and looks for other
 * rseq owners at load): an owner of the areas is a stand-in of the
 * convention it follows (rseq-owner.c, preloaded), a thread refused rseq
 * is refused by a seccomp filter, a vfork child is one. The row measures,
 * in the thread of its state, libfastcpu's answers against glibc's there
 * (plain), where nothing waits on them and where a locked add on the
 * answer's shard does, the per-CPU add against an atomic add on the shard
 * fastcpu_current_cpu() names, and the object cache's pair against
 * malloc's.
 *
 * A forced backend serves threads without rseq: its rows turn glibc's
 * registration off too, so that glibc answers them as it answers a thread
 * without rseq (the vDSO); and the forced system call's plain is the
 * system call, which is what glibc has where the kernel has no vDSO getcpu.
 */
enum thread_state {
	MAIN_THREAD,		/* the process's own, as it is */
	OWNER_REGISTERS,	/* the owner stand-in registers it first */
	REFUSED_PROCESS,	/* rseq refused by seccomp from exec on, as a
				 * sandbox does (glibc aborts where a thread
				 * after the first is refused) */
	VFORK_CHILD,		/* a vfork child of the attached main thread */
	VFORK_CHILD_FRESH,	/* a vfork child; the parent never asked */
};

/* What a row needs of the run it is in (its rseq setup). */
enum needs { ANY_RUN, GLIBC_REGISTERS, GLIBC_DOES_NOT };

static const struct setup {
	const char *key, *name;
	const char *owner;	/* the stand-in preloaded: librseq-owner<owner>.so */
	const char *backend, *cache;	/* FASTCPU_BACKEND, FASTCPU_CACHE */
	int backend_id;			/* the backend's fastcpu_backend_id(); 0: none forced */
	enum thread_state thread;
	enum needs needs;
} setups[SETUP_COUNT] = {
	[SETUP_GLIBC] = { "glibc_area", "glibc's area",
		NULL, NULL, NULL, 0, MAIN_THREAD, GLIBC_REGISTERS },
	[SETUP_OWN] = { "own_area", "the library's own area",
		NULL, NULL, NULL, 0, MAIN_THREAD, GLIBC_DOES_NOT },
	[SETUP_PUBLISHED_REGISTERED] = { "librseq_owner_registered", "librseq-shaped owner, registered",
		"-published", NULL, NULL, 0, OWNER_REGISTERS, ANY_RUN },
	[SETUP_PUBLISHED_UNREGISTERED] = { "librseq_owner_unregistered", "librseq-shaped owner, never registered",
		"-published", NULL, NULL, 0, MAIN_THREAD, ANY_RUN },
	[SETUP_REFCOUNT] = { "refcount_owner", "refcount owner (older librseq)",
		"-refcount", NULL, NULL, 0, MAIN_THREAD, ANY_RUN },
	[SETUP_EXPORTED_REGISTERED] = { "exported_rseq_abi_registered", "exported __rseq_abi, registered",
		"", NULL, NULL, 0, OWNER_REGISTERS, ANY_RUN },
	[SETUP_EXPORTED_UNREGISTERED] = { "exported_rseq_abi_unregistered", "exported __rseq_abi, never registered",
		"", NULL, NULL, 0, MAIN_THREAD, ANY_RUN },
	[SETUP_OTHER_SIGNATURE] = { "other_signature_owner", "owner of another signature",
		"-other", NULL, NULL, 0, OWNER_REGISTERS, ANY_RUN },
	[SETUP_SECCOMP] = { "seccomp_refused", "rseq refused by seccomp (sandbox)",
		NULL, NULL, NULL, 0, REFUSED_PROCESS, ANY_RUN },
	[SETUP_RDPID] = { "forced_rdpid", "forced rdpid",
		NULL, "rdpid", "off", FASTCPU_BACKEND_RDPID, MAIN_THREAD, ANY_RUN },
	[SETUP_RDPID_CACHE] = { "forced_rdpid_cache", "forced rdpid, cache on",
		NULL, "rdpid", "on", FASTCPU_BACKEND_RDPID, MAIN_THREAD, ANY_RUN },
	[SETUP_VDSO] = { "forced_vdso", "forced vdso",
		NULL, "vdso", "off", FASTCPU_BACKEND_VDSO, MAIN_THREAD, ANY_RUN },
	[SETUP_VDSO_CACHE] = { "forced_vdso_cache", "forced vdso, cache on",
		NULL, "vdso", "on", FASTCPU_BACKEND_VDSO, MAIN_THREAD, ANY_RUN },
	[SETUP_SYSCALL] = { "forced_syscall", "forced syscall",
		NULL, "syscall", "off", FASTCPU_BACKEND_SYSCALL, MAIN_THREAD, ANY_RUN },
	[SETUP_SYSCALL_CACHE] = { "forced_syscall_cache", "forced syscall, cache on",
		NULL, "syscall", "on", FASTCPU_BACKEND_SYSCALL, MAIN_THREAD, ANY_RUN },
	[SETUP_VFORK] = { "vfork_child", "vfork child",
		NULL, NULL, NULL, 0, VFORK_CHILD, ANY_RUN },
	[SETUP_VFORK_FRESH] = { "vfork_child_fresh", "vfork child, parent never asked",
		NULL, NULL, NULL, 0, VFORK_CHILD_FRESH, ANY_RUN },
};

const char *setup_name(enum setup_id id)
{
	return setups[id].name;
}

const char *setup_key(enum setup_id id)
{
	return setups[id].key;
}

const char *setup_backend(enum setup_id id)
{
	return setups[id].backend;
}

int setup_backend_id(enum setup_id id)
{
	return setups[id].backend_id;
}

const char *setup_cache(enum setup_id id)
{
	return setups[id].cache;
}

bool setup_plain_is_syscall(enum setup_id id)
{
	return setups[id].backend != NULL && strcmp(setups[id].backend, "syscall") == 0;
}

/* ---- in the row's process ----------------------------------------------- */

#define CASE(label, fn) ((struct bench_result){ .name = (label), .loop = (fn) })

/* A forced cache miss: the thread's own sched_setaffinity() invalidates
 * its cache (re-pinning to the CPU it is on, so nothing else changes). */
static void force_miss(void)
{
	cpu_set_t now;

	if (sched_getaffinity(0, sizeof(now), &now) != 0 ||
	    sched_setaffinity(0, sizeof(now), &now) != 0)
		abort();
}

static const struct bench_config *row_cfg;
static enum setup_id row_id;
static struct setup_result row;

/* Everything the row measures, in the calling thread, into row. */
static void measure_row(bool counters)
{
	bool syscall_plain = setup_plain_is_syscall(row_id);
	struct bench_result set[12] = {
		CASE("empty loop", loop_empty),
		CASE("sched", loop_fastcpu_sched_getcpu),
		CASE("plain sched", syscall_plain ? loop_syscall_getcpu : loop_glibc_sched_getcpu),
		CASE("generic", loop_fastcpu_getcpu_generic),
		CASE("syscall", loop_syscall_getcpu),
	};
	int n = 5, getcpu_at = n, counter_at;
	struct latency_waited w;

	row.has_getcpu = syscall_plain || cases_have_glibc_getcpu();
	if (row.has_getcpu) {
		set[n++] = CASE("getcpu", loop_fastcpu_getcpu);
		set[n++] = CASE("plain getcpu", syscall_plain ? loop_syscall_getcpu :
							     loop_glibc_getcpu);
	}
	counter_at = n;
	row.has_counter = counters && alloc_pairs_init();
	if (row.has_counter) {
		counters_init();
		set[n++] = CASE("counter", counter_measure_loops[COUNTER_PERCPU_RSEQ]);
		set[n++] = CASE("shard", counter_measure_loops[COUNTER_PERCPU_FASTCPU]);
		set[n++] = CASE("objcache pair", alloc_pair_objcache);
		set[n++] = CASE("malloc pair", alloc_pair_malloc);
	}
	snprintf(row.served, sizeof(row.served), "%.31s", fastcpu_backend());
	row.served_id = fastcpu_backend_id();
	bench_measure(set, n, row_cfg);
	row.sched = set[1];
	row.plain_sched = set[2];
	row.generic = set[3];
	row.syscall = set[4];
	if (row.has_getcpu) {
		row.getcpu = set[getcpu_at];
		row.plain_getcpu = set[getcpu_at + 1];
	}
	if (row.has_counter) {
		row.counter = set[counter_at];
		row.shard = set[counter_at + 1];
		row.objcache_pair = set[counter_at + 2];
		row.malloc_pair = set[counter_at + 3];
	}
	latency_measure_waited(&w, row_cfg);
	row.add_alone = w.alone;
	row.sched_add = w.sched;
	row.plain_sched_add = syscall_plain ? w.syscall : w.glibc_sched;
	row.getcpu_add = w.getcpu;
	row.plain_getcpu_add = syscall_plain ? w.syscall : w.glibc_getcpu;
	row.has_getcpu = row.has_getcpu && (syscall_plain || w.glibc_has_getcpu);
	if (setups[row_id].backend != NULL && counters) {
		bench_measure_once(&row.miss, force_miss, once_fastcpu_sched_getcpu,
				   row_cfg->runs);
		bench_measure_once(&row.hit, once_fastcpu_sched_getcpu,
				   once_fastcpu_sched_getcpu, row_cfg->runs);
	}
}

/* The kernel refuses rseq to this thread and the threads it makes from
 * now on (EPERM, as a sandbox says it); false where it cannot. */
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
static void measure_in_vfork_child(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		measure_row(false);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (row.served[0] == '\0')	/* qemu-user's vfork is a fork */
		snprintf(row.why_not, sizeof(row.why_not), "no vfork here");
}

static void measure_in_state(void)
{
	switch (setups[row_id].thread) {
	case MAIN_THREAD:
	case REFUSED_PROCESS:
		measure_row(true);
		break;
	case OWNER_REGISTERS:
		if (owner_registers())
			measure_row(true);
		else
			snprintf(row.why_not, sizeof(row.why_not), "the stand-in did not register");
		break;
	case VFORK_CHILD:
		(void)fastcpu_sched_getcpu();	/* the parent attaches */
		measure_in_vfork_child();
		break;
	case VFORK_CHILD_FRESH:
		measure_in_vfork_child();
		break;
	}
}

void setups_child_if_asked(const struct bench_config *cfg)
{
	const char *spec = getenv("FASTCPU_BENCH_SETUP");
	int id, fd;

	if (spec == NULL)
		return;
	if (sscanf(spec, "%d %d", &id, &fd) != 2 || id < 0 || id >= SETUP_COUNT)
		_exit(2);
	row_id = (enum setup_id)id;
	row_cfg = cfg;
	measure_in_state();
	_exit(write(fd, &row, sizeof(row)) == sizeof(row) ? 0 : 1);
}

/* ---- in the benchmark's process ----------------------------------------- */

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

/* The stand-in owner libraries: beside this program in the build tree
 * (libtool puts both in .libs), else where the build made them. */
static bool owner_path(const char *owner, char *path, size_t size)
{
	char self[2048];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (len > 0) {
		self[len] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(path, size, "%s/librseq-owner%s.so", self, owner);
			if (access(path, R_OK) == 0)
				return true;
		}
	}
	snprintf(path, size, "%s/librseq-owner%s.so", FASTCPU_BENCH_OWNER_DIR, owner);
	return access(path, R_OK) == 0;
}

/* Why row id cannot run in this run's process setup, or NULL. */
static const char *cannot_run(enum setup_id id, const struct setup_result *probe)
{
	bool glibc = probe->served_id == FASTCPU_BACKEND_RSEQ_GLIBC;
	bool rseq = probe->served_id >= FASTCPU_BACKEND_RSEQ_GLIBC &&
		    probe->served_id <= FASTCPU_BACKEND_RSEQ_OWN;

	if (setups[id].needs == GLIBC_REGISTERS && !glibc)
		return "glibc does not register here";
	if (setups[id].needs == GLIBC_DOES_NOT && glibc)
		return "glibc registers here";
	if (setups[id].needs != ANY_RUN && !rseq)
		return "no rseq here";
	return NULL;
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

/* The row's process: this program again, with the row's settings. Its
 * stderr goes to /dev/null: a forced backend the machine lacks says so
 * there, and the row shows what bound. */
static void run_row(enum setup_id id, char **argv, const char *self,
		    struct setup_result *out)
{
	const struct setup *s = &setups[id];
	char spec[32], preload[4096];
	int p[2], status;
	pid_t pid;

	if (s->owner != NULL && SANITIZED) {
		snprintf(out->why_not, sizeof(out->why_not), "not preloaded ahead of ASan");
		return;
	}
	if (s->owner != NULL && !owner_path(s->owner, preload, sizeof(preload))) {
		snprintf(out->why_not, sizeof(out->why_not), "no stand-in owner (build tree only)");
		return;
	}
	if (pipe(p) != 0 || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		close(p[0]);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		snprintf(spec, sizeof(spec), "%d %d", (int)id, p[1]);
		setenv("FASTCPU_BENCH_SETUP", spec, 1);
		if (s->backend != NULL) {
			setenv("FASTCPU_BACKEND", s->backend, 1);
			setenv("FASTCPU_CACHE", s->cache, 1);
			bench_glibc_rseq_off();
		}
		if (s->owner != NULL)
			setenv("LD_PRELOAD", preload, 1);
		if (s->thread == REFUSED_PROCESS && !refuse_rseq())
			_exit(126);
		execv(self, argv);
		_exit(127);
	}
	close(p[1]);
	if (read_whole(p[0], out, sizeof(*out)) != 0)
		memset(out, 0, sizeof(*out));
	close(p[0]);
	waitpid(pid, &status, 0);
	if (out->served[0] == '\0' && out->why_not[0] == '\0')
		snprintf(out->why_not, sizeof(out->why_not), "%s",
			 WIFEXITED(status) && WEXITSTATUS(status) == 126 ? "no seccomp here" :
			 "its process failed");
}

void setups_run_all(struct setup_result out[SETUP_COUNT], char **argv,
		    const struct bench_config *cfg)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct setup_result probe;

	(void)cfg;
	if (len <= 0)
		abort();
	self[len] = '\0';
	memset(out, 0, sizeof(struct setup_result) * SETUP_COUNT);
	/* The run's own setup, as the main-thread rows find it. */
	run_row(SETUP_GLIBC, argv, self, &probe);
	for (int id = 0; id < SETUP_COUNT; id++) {
		const char *why = cannot_run((enum setup_id)id, &probe);

		if (why != NULL)
			snprintf(out[id].why_not, sizeof(out[id].why_not), "%s", why);
		else if (id == SETUP_GLIBC || id == SETUP_OWN)
			out[id] = probe;
		else
			run_row((enum setup_id)id, argv, self, &out[id]);
	}
}
