/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/abort-probe.c: whether the kernel aborts a sequence preempted on its CPU. */

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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
 * 82f572449cfe): its entry from user mode did not note the interrupt, so a
 * preemption that changed neither the thread's CPU nor its concurrency id
 * left its rseq_cs unread. A distribution may carry the fix under an older
 * number: so it is tried. What is tried is whether the kernel reads rseq_cs
 * at such a preemption, which every kernel decides before it looks at the
 * instruction pointer: one that reads it aborts a sequence the thread was
 * in, and clears rseq_cs either way (clear_rseq_cs before 6.19,
 * rseq_update_user_cs since); one that does not leaves it set.
 *
 * Two threads of the process pinned to the caller's CPU: the spinner
 * registers an area of its own, points its rseq_cs at a descriptor of a
 * section it never runs (4 bytes of this mapping, the signature after
 * them), and reads a word until it changes; the writer adds 1 to the word
 * and yields, so it runs only while the spinner is preempted, from user
 * space (the spinner makes no system call meanwhile). Each change seen
 * with the spinner's CPU and ids as they were: rseq_cs cleared, the kernel
 * read it; still set, it did not, and would have resumed a sequence there.
 * Four read and none missed say the kernel is right: a turn a tick, about
 * 20 ms for all.
 *
 * The spinner is never inside a section and its descriptor is valid, so no
 * check of the kernel's can kill it: with rseq_debug=1, 7.0.13 killed a
 * thread it found inside one without a noted interrupt (when its
 * concurrency id changed), and a thread's death is its process's. So the
 * two can be threads: no wait, signal or pid of the program sees them,
 * where a helper process is a child, which a wait of any thread of the
 * program for any child (__WALL) reaps. Made by clone (CLONE_THREAD, no CLONE_SETTLS)
 * with every signal blocked, on stacks mapped here, they run on the
 * caller's TLS, which they do not touch but for errno in their system
 * calls (the caller's, restored here after they end); the calling
 * thread, which may be a signal handler, keeps its affinity, mask, area
 * and signal handlers. The kernel clears each one's tid word as it ends,
 * and that is what is waited for (futex: never a cancellation point); a
 * thread needs no reaping. They end on their own within a bound (the
 * writer once the spinner has), die with the process (exit, exec), and
 * a fork child, which has none of them, waits for none. A real-time
 * caller's threads take the default policy, so that a tick can preempt
 * the spinner.
 */
#ifdef FASTCPU_ABORT_PROBE_WRITTEN

#define FUTEX_WAIT_	0	/* <linux/futex.h>'s, which musl's compiler lacks */
#define STACK_BYTES	(64 * 1024)
#define TURNS_NEEDED	4
#define PROBE_NS	2000000000LL	/* TCG guests are slow; natively ~20 ms */
#define EXIT_NS		10000000000LL
#define CLONE_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_SYSVSEM | CLONE_CHILD_CLEARTID)
#define READS_AT_MOST	(1L << 32)	/* the spinner's, should its caller leave */

/* The kernel's struct rseq_cs: 32 bytes, as aligned. */
struct section {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));

/* At the start of a mapping: the area is as aligned as a page. */
struct probe {
	unsigned char area[FASTCPU_RSEQ_AREA_SIZE];
	struct section section;		/* of code[0], its abort after code[1] */
	uint32_t code[2];		/* never run: 4 bytes, the signature */
	intptr_t word;			/* the writer's turns */
	int cpu;
	unsigned int area_length;
	int stop, failed;
	unsigned long read, missed;	/* preemptions: rseq_cs cleared, still set */
	int spinner_tid, writer_tid;	/* cleared by the kernel as each ends */
	bool mm_cid;			/* the area has one */
	bool unregistered;		/* the tests': the kernel never reads the area */
};

#ifdef __GLIBC__
/* glibc's own, not the library's stub of the same name (task-tls.c): these
 * threads never touch the TLS they share, so no attach needs to know. */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
# define probe_clone __clone
#else
# define probe_clone clone
#endif

/* A thread's first act: to run on the caller's CPU at the default policy. */
static bool pin(int cpu)
{
	unsigned long mask[FASTCPU_MAX_CPUS / (8 * sizeof(unsigned long))] = { 0 };
	struct sched_param normal = { 0 };
	const unsigned int bits = 8 * sizeof(unsigned long);

	mask[(unsigned int)cpu / bits] |= 1UL << ((unsigned int)cpu % bits);
	(void)syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &normal);
	return syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask) == 0;
}

static intptr_t turns(const struct probe *p)
{
	return __atomic_load_n(&p->word, __ATOMIC_RELAXED);
}

/* The ids a preemption by a task of the same CPU leaves as they were. */
static uint64_t ids(const struct probe *p, const volatile struct fastcpu_rseq_abi *area)
{
	return (uint64_t)area->cpu_id << 32 | (p->mm_cid ? area->mm_cid : 0);
}

/* Whether the area's rseq_cs is still set (read by the kernel: cleared). */
static bool announced(const volatile struct fastcpu_rseq_abi *area)
{
	return __atomic_load_n(&area->rseq_cs, __ATOMIC_RELAXED) != 0;
}

static int spinner(void *arg)
{
	struct probe *p = arg;
	volatile struct fastcpu_rseq_abi *area = (volatile struct fastcpu_rseq_abi *)(void *)p->area;
	intptr_t before = 0;
	uint64_t was = 0;
	bool armed = false;

	if (!pin(p->cpu) ||
	    (!p->unregistered && fastcpu_rseq_call(area, p->area_length, 0) != 0)) {
		__atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
		return 0;
	}
	for (long k = 0; k < READS_AT_MOST && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED) &&
			 p->missed == 0 && p->read < TURNS_NEEDED; k++) {
		if (!armed) {
			__atomic_store_n(&area->rseq_cs, (uint64_t)(uintptr_t)&p->section,
					 __ATOMIC_RELAXED);
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			before = turns(p);
			was = ids(p, area);
			armed = true;
		}
		if (turns(p) == before)
			continue;
		/* Preempted by the writer: counted where nothing moved. */
		if (ids(p, area) == was && (uint32_t)(was >> 32) == (uint32_t)p->cpu) {
			if (announced(area))
				p->missed++;
			else
				p->read++;
		}
		armed = false;
	}
	__atomic_store_n(&area->rseq_cs, 0, __ATOMIC_RELAXED);
	if (!p->unregistered)
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

/* Whether the thread whose tid word this is ended before deadline; not in
 * a fork child of the process that made it (pid), where it never runs. */
static bool ended(int *tid, int pid, long long deadline)
{
	int seen;

	while ((seen = __atomic_load_n(tid, __ATOMIC_ACQUIRE)) != 0) {
		long long left = deadline - now_ns();
		struct timespec nap = { 0, 10000000 };

		if (left <= 0 || syscall(SYS_getpid) != pid)
			return false;
		if (left < nap.tv_nsec)
			nap.tv_nsec = (long)left;
		(void)syscall(SYS_futex, tid, FUTEX_WAIT_, seen, &nap, NULL, 0);
	}
	return true;
}

/* Starts fn on the stack whose top is at top: whether the kernel let it (a
 * sandbox, a thread limit may not); its tid word is 0 where not. */
static bool start(int (*fn)(void *), char *top, struct probe *p, int *tid)
{
	*tid = -1;
	if (probe_clone(fn, top, CLONE_FLAGS, p, NULL, NULL, tid) > 0)
		return true;
	*tid = 0;
	return false;
}

/* Both threads ran and ended; the outcome is theirs. */
static void judge(const struct probe *p, struct fastcpu_probe_result *r)
{
	r->preemptions = p->read + p->missed;
	r->read = p->read;
	r->missed = p->missed;
	if (!p->failed && p->missed != 0)
		r->outcome = FASTCPU_PROBE_RESUMED;
	else if (p->failed)
		r->why = "a probe thread could not pin itself or register rseq";
	else if (p->read >= TURNS_NEEDED)
		r->outcome = FASTCPU_PROBE_ABORTED;
	else
		r->why = "too few preemptions in 2 s";
}

/* Runs the two threads over the mapping at p; false where they could not
 * be seen to end (their stacks must then stay mapped). */
static bool run(struct probe *p, char *stacks, struct fastcpu_probe_result *r)
{
	int pid = (int)syscall(SYS_getpid);
	sigset_t all, old;
	bool started, exited;

	sigfillset(&all);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8);
	started = start(spinner, stacks + STACK_BYTES, p, &p->spinner_tid) &&
		  start(writer, stacks + 2 * STACK_BYTES, p, &p->writer_tid);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
	if (started)
		(void)ended(&p->spinner_tid, pid, now_ns() + PROBE_NS);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	exited = ended(&p->spinner_tid, pid, now_ns() + EXIT_NS) &&
		 ended(&p->writer_tid, pid, now_ns() + EXIT_NS);
	if (!started)
		r->why = "the kernel refused the probe's threads";
	else if (!exited)
		r->why = "the probe's threads did not end";
	else
		judge(p, r);
	return exited;
}

static struct fastcpu_probe_result probe(bool unregistered)
{
	struct fastcpu_probe_result r = { FASTCPU_PROBE_UNDECIDED, 0, 0, 0, NULL };
	const size_t head = 4096, bytes = head + 2 * STACK_BYTES;
	int saved = errno;
	unsigned int cpu;
	struct probe *p;
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
	p = (struct probe *)(void *)map;
	p->cpu = (int)cpu;
	p->unregistered = unregistered;
	p->area_length = fastcpu_rseq_kernel().own_length;
	p->mm_cid = fastcpu_rseq_kernel().mm_cid;
	if (unregistered)	/* where no kernel writes it */
		((struct fastcpu_rseq_abi *)(void *)p->area)->cpu_id = cpu;
	p->code[1] = FASTCPU_RSEQ_SIGNATURE;
	p->section.start_ip = (uint64_t)(uintptr_t)&p->code[0];
	p->section.post_commit_offset = sizeof(p->code[0]);
	p->section.abort_ip = (uint64_t)(uintptr_t)&p->code[2];
	if (run(p, map + head, &r))
		munmap(map, bytes);
	errno = saved;
	return r;
}

struct fastcpu_probe_result fastcpu_abort_probe(void)
{
	return probe(false);
}

struct fastcpu_probe_result fastcpu_abort_probe_unregistered(void)
{
	return probe(true);
}

#else

struct fastcpu_probe_result fastcpu_abort_probe(void)
{
	return (struct fastcpu_probe_result){
		FASTCPU_PROBE_UNDECIDED, 0, 0, 0, "no probe written for this architecture"
	};
}

struct fastcpu_probe_result fastcpu_abort_probe_unregistered(void)
{
	return fastcpu_abort_probe();
}

#endif
