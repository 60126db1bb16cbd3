/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/abort-probe.c: whether the kernel aborts a sequence preempted on its CPU. */

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abort-probe.h"
#include "internal.h"
#include "kernel.h"
#include "rseq-abi.h"
#include "util.h"

/*
 * Linux 6.19 to 7.0.13 on arm64 resumed a sequence preempted by another
 * task of its CPU instead of aborting it (fixed by 99428157dcf3 and
 * 82f572449cfe), and a distribution may carry the fix under an older
 * number: so it is tried. Two tasks pinned to the caller's CPU: the spinner
 * runs fastcpu_rseq_spin_() (<fastcpu/rseq.h>), a sequence that reads a
 * word until it changes, again and again; the writer adds 1 to the word
 * and yields, and so runs only while the spinner is off the CPU, almost
 * always inside a sequence. A sequence that ends having seen the word
 * change was resumed: the kernel is wrong. A few sequences aborted across
 * a turn of the writer's (the word changed since they began), and none
 * resumed, say it is right: a turn a tick, about 20 ms for all.
 *
 * The two are processes that share the caller's memory (clone with CLONE_VM,
 * not CLONE_THREAD or CLONE_SIGHAND), on stacks mapped here, made with every
 * signal blocked: a kernel that kills the spinner inside its sequence
 * (7.0.13 with its rseq debug checks on does, now and then, when the
 * probe runs beside busy threads) kills it alone, not its host, and that
 * says the kernel is wrong too; and the calling thread, which may be a
 * signal handler, keeps its affinity, mask, area and signal handlers. They
 * run on the caller's TLS, which they do not touch but for errno in a
 * system call that fails (the caller's, restored here after they end); the
 * kernel clears each one's tid word when it ends, and that is what is
 * waited for (then its exit is collected: no SIGCHLD is sent, and a wait of
 * the host's for its children never sees these), never a cancellation
 * point. Each dies with the thread that made it, and the writer stops once
 * the spinner has, so that none outlives its host. A real-time caller's
 * tasks take the default policy, so that a tick can preempt the spinner.
 */
#ifdef FASTCPU_RSEQ_SPIN_

#define FUTEX_WAIT_	0	/* <linux/futex.h>'s, which musl's compiler lacks */
#define STACK_BYTES	(64 * 1024)
#define TURNS_NEEDED	4
#define PROBE_NS	2000000000LL	/* TCG guests are slow; natively ~20 ms */
#define EXIT_NS		10000000000LL
#define CLONE_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_CHILD_CLEARTID)
#define SEQUENCES_AT_MOST (1L << 20)	/* the spinner's, should its host vanish */

/* At the start of a mapping: the area is as aligned as a page. */
struct probe {
	unsigned char area[FASTCPU_RSEQ_AREA_SIZE];
	intptr_t word;			/* the writer's turns */
	intptr_t seen[2];		/* the spinner's sequence's first and last read */
	int cpu;
	unsigned int area_length;
	int stop, failed;
	unsigned long turns;		/* sequences aborted across a writer's turn */
	unsigned long aborts, resumed;	/* the spinner's sequences */
	int spinner_tid, writer_tid;	/* cleared by the kernel as each ends */
	int spinner_pid;		/* set before the writer starts */
	bool kill_spinner;		/* the tests': the writer kills it */
	bool spinner_killed;		/* by a signal: the kernel's doing */
};

#ifdef __GLIBC__
/* glibc's own, not the library's stub of the same name (task-tls.c): these
 * tasks never touch the TLS they share, so no attach needs to know. */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
# define probe_clone __clone
#else
# define probe_clone clone
#endif

/* A task's first act: to die with the thread that made it, and to run on
 * the caller's CPU at the default policy. */
static bool pin(int cpu)
{
	unsigned long mask[FASTCPU_MAX_CPUS / (8 * sizeof(unsigned long))] = { 0 };
	struct sched_param normal = { 0 };
	const unsigned int bits = 8 * sizeof(unsigned long);

	(void)syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	mask[(unsigned int)cpu / bits] |= 1UL << ((unsigned int)cpu % bits);
	(void)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &normal);
	return syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask) == 0;
}

static intptr_t turns(const struct probe *p)
{
	return __atomic_load_n(&p->word, __ATOMIC_RELAXED);
}

static int spinner(void *arg)
{
	struct probe *p = arg;
	struct fastcpu_rseq_abi *area = (struct fastcpu_rseq_abi *)(void *)p->area;
	const volatile int *cpu_at = (const volatile int *)&area->cpu_id;

	if (!pin(p->cpu) || fastcpu_rseq_call(area, p->area_length, 0) != 0) {
		__atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
		return 0;
	}
	for (long k = 0; k < SEQUENCES_AT_MOST && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED) &&
			 p->resumed == 0 && p->turns < TURNS_NEEDED; k++) {
		int r = fastcpu_rseq_spin_(cpu_at, *cpu_at, &p->word, p->seen);

		if (r == 0 && p->seen[1] != p->seen[0])
			p->resumed++;
		if (r < 0)
			p->aborts++;
		if (r < 0 && turns(p) != p->seen[0])
			p->turns++;	/* aborted while the writer ran */
	}
	(void)fastcpu_rseq_call(area, p->area_length, FASTCPU_RSEQ_FLAG_UNREGISTER);
	return 0;
}

static int writer(void *arg)
{
	struct probe *p = arg;

	if (!pin(p->cpu)) {
		__atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (p->kill_spinner)
		(void)syscall(SYS_kill, p->spinner_pid, SIGKILL);
	while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&p->spinner_tid, __ATOMIC_RELAXED) != 0) {
		__atomic_store_n(&p->word, turns(p) + 1, __ATOMIC_RELAXED);
		(void)syscall(SYS_sched_yield);
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Whether the task whose tid word this is ended before deadline. */
static bool ended(int *tid, long long deadline)
{
	int seen;

	while ((seen = __atomic_load_n(tid, __ATOMIC_ACQUIRE)) != 0) {
		long long left = deadline - now_ns();
		struct timespec nap = { 0, 10000000 };

		if (left <= 0)
			return false;
		if (left < nap.tv_nsec)
			nap.tv_nsec = (long)left;
		(void)syscall(SYS_futex, tid, FUTEX_WAIT_, seen, &nap, NULL, 0);
	}
	return true;
}

/* Starts fn on the stack whose top is at top: its process id, or 0, its
 * tid word 0, if the kernel refused (a sandbox, a process limit). */
static int start(int (*fn)(void *), char *top, struct probe *p, int *tid)
{
	int pid;

	*tid = -1;
	pid = probe_clone(fn, top, CLONE_FLAGS, p, NULL, NULL, tid);
	if (pid > 0)
		return pid;
	*tid = 0;
	return 0;
}

/* Collects the exit of a task that ended (no signal says it: __WCLONE);
 * whether a signal killed it. Where the host reaped it first, or reaps
 * its children on its own, nothing is known: not killed. */
static bool killed(int pid)
{
	int status = 0;

	return pid > 0 && fastcpu_raw_syscall_errno(SYS_wait4, pid, (long)(uintptr_t)&status,
						    __WCLONE, 0) == pid &&
	       WIFSIGNALED(status);
}

/* Both tasks run and ended; the outcome is theirs. */
static void judge(const struct probe *p, struct fastcpu_probe_result *r)
{
	r->preemptions = p->turns;
	r->aborts = p->aborts;
	r->resumed = p->resumed;
	r->killed = p->spinner_killed;
	if (p->spinner_killed || (!p->failed && p->resumed != 0))
		r->outcome = FASTCPU_PROBE_RESUMED;
	else if (p->failed)
		r->why = "a probe task could not pin itself or register rseq";
	else if (p->turns >= TURNS_NEEDED)
		r->outcome = FASTCPU_PROBE_ABORTED;
	else
		r->why = "too few preemptions in 2 s";
}

/* Runs the two tasks over the mapping at p; false where they could not be
 * seen to end (their stacks must then stay mapped). */
static bool run(struct probe *p, char *stacks, struct fastcpu_probe_result *r)
{
	sigset_t all, old;
	int spinner_pid, writer_pid = 0;
	bool started, exited;

	sigfillset(&all);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8);
	spinner_pid = start(spinner, stacks + STACK_BYTES, p, &p->spinner_tid);
	p->spinner_pid = spinner_pid;
	if (spinner_pid != 0)
		writer_pid = start(writer, stacks + 2 * STACK_BYTES, p, &p->writer_tid);
	started = writer_pid != 0;
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
	if (started)
		(void)ended(&p->spinner_tid, now_ns() + PROBE_NS);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	exited = ended(&p->spinner_tid, now_ns() + EXIT_NS) &&
		 ended(&p->writer_tid, now_ns() + EXIT_NS);
	if (exited) {
		p->spinner_killed = killed(spinner_pid);
		(void)killed(writer_pid);
	}
	if (!started)
		r->why = "the kernel refused the probe's tasks";
	else if (!exited)
		r->why = "the probe's tasks did not end";
	else
		judge(p, r);
	return exited;
}

static struct fastcpu_probe_result probe(bool kill_spinner)
{
	struct fastcpu_probe_result r = { FASTCPU_PROBE_UNDECIDED, 0, 0, 0, false, NULL };
	const size_t head = 4096, bytes = head + 2 * STACK_BYTES;
	int saved = errno;
	unsigned int cpu;
	char *map;

	if (fastcpu_raw_syscall_errno(SYS_getcpu, (long)(uintptr_t)&cpu, 0, 0, 0) != 0) {
		r.why = "no getcpu";
		return r;
	}
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		errno = saved;
		r.why = "no memory for the probe";
		return r;
	}
	((struct probe *)(void *)map)->cpu = (int)cpu;
	((struct probe *)(void *)map)->kill_spinner = kill_spinner;
	((struct probe *)(void *)map)->area_length = fastcpu_rseq_kernel().own_length;
	if (run((struct probe *)(void *)map, map + head, &r))
		munmap(map, bytes);
	errno = saved;
	return r;
}

struct fastcpu_probe_result fastcpu_abort_probe(void)
{
	return probe(false);
}

struct fastcpu_probe_result fastcpu_abort_probe_killing(void)
{
	return probe(true);
}

#else

struct fastcpu_probe_result fastcpu_abort_probe(void)
{
	return (struct fastcpu_probe_result){
		FASTCPU_PROBE_UNDECIDED, 0, 0, 0, false, "no probe written for this architecture"
	};
}

struct fastcpu_probe_result fastcpu_abort_probe_killing(void)
{
	return fastcpu_abort_probe();
}

#endif
