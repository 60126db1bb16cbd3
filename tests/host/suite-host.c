/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/host/suite-host.c: vfork children and affinity changes from anywhere. */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"
#include "fastcpu.h"
#include "helpers.h"

/* ---- a child on its parent's TLS asks, then leaves --------------------- */

enum { BY_VFORK, BY_CLONE_VFORK };
enum { THEN_EXIT, THEN_EXEC };
static int child_cpu;		/* a CPU the parent is not on */

/*
 * The child moves itself (raw system call: nothing the library sees) to a
 * CPU its parent is not on, asks every way, and exits or execs. Before the
 * fix it registered the library's area in its parent's TLS for itself, or
 * filled its parent's cache: the parent then read the child's CPU.
 */
static int child_asks(void *then)
{
	cpu_set_t one;
	unsigned int c, n;
	char *argv[] = { "true", NULL };

	CPU_ZERO(&one);
	CPU_SET(child_cpu, &one);
	syscall(SYS_sched_setaffinity, 0, sizeof(one), &one);
	(void)sched_getcpu();
	(void)fastcpu_current_cpu();
	(void)getcpu(&c, &n);
	(void)fastcpu_backend();
	if ((intptr_t)then == THEN_EXEC)
		execve("/bin/true", argv, environ);
	_exit(0);
}

static pid_t start_child(int by, int then)
{
	static char stack[1 << 16] __attribute__((aligned(16)));
	pid_t pid;

	if (by == BY_CLONE_VFORK)
		return clone(child_asks, stack + sizeof(stack),
			     CLONE_VM | CLONE_VFORK | SIGCHLD,
			     (void *)(intptr_t)then);
	pid = vfork();
	if (pid == 0)
		child_asks((void *)(intptr_t)then);
	return pid;
}

/* _i: how (vfork, clone) x then (exit, exec) x cache (auto, on). */
START_TEST(vfork_child_leaves_parent_right)
{
	int by = _i % 2, then = _i / 2 % 2, parent_cpu = test_first_allowed();
	char buf[64];
	int status;
	pid_t pid;

	if (TEST_RESPAWN(_i < 4 ? "FASTCPU_CACHE=auto" : "FASTCPU_BACKEND=syscall",
			 _i < 4 ? "FASTCPU_BACKEND=auto" : "FASTCPU_CACHE=on"))
		return;
	child_cpu = test_next_allowed(parent_cpu);
	test_pin(parent_cpu);
	pid = start_child(by, then);
	if (pid < 0 && errno == EINVAL && test_emulated()) {
		fputs("vfork_child_leaves_parent_right: qemu-user refuses CLONE_VM without threads: skipped\n", stderr);
		return;
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(sched_getcpu(), parent_cpu);
	ck_assert_int_eq(fastcpu_current_cpu(), parent_cpu);
	test_check_all_cpus();
	ck_assert_str_eq(fastcpu_backend(),
			 expect_backend_name(_i < 4 ? NULL : "syscall",
					     _i < 4 ? NULL : "on",
					     expect_rseq_ok(), buf, sizeof(buf)));
}
END_TEST

/* ---- affinity set from anywhere in the process -------------------------- */

enum way { SELF_PTHREAD, HELPER_PTHREAD, HELPER_SCHED_TID, WAYS };
static const char *const way_names[] = {
	"pthread_setaffinity_np on itself",
	"pthread_setaffinity_np from a helper thread",
	"sched_setaffinity(tid) from a helper thread",
};

static struct {
	pthread_barrier_t go, done;
	pthread_t target;
	pid_t target_tid;
	enum way way;
	cpu_set_t set;
	volatile bool stop;
} pin;

static void pin_target(void)
{
	int err = pin.way == HELPER_SCHED_TID ?
		(sched_setaffinity(pin.target_tid, sizeof(pin.set), &pin.set) ? errno : 0) :
		pthread_setaffinity_np(pin.target, sizeof(pin.set), &pin.set);

	ck_assert_msg(err == 0, "%s: %s", way_names[pin.way], strerror(err));
}

static void *helper(void *unused)
{
	(void)unused;
	for (;;) {
		pthread_barrier_wait(&pin.go);
		if (pin.stop)
			return NULL;
		pin_target();
		pthread_barrier_wait(&pin.done);
	}
}

/*
 * glibc's contract, with the cache in front of the system call: the pinned
 * thread's very next answer is its new CPU, 100 rounds, the cache warm on
 * the old CPU each time.
 */
START_TEST(pinning_seen_at_once)
{
	int cpu = test_first_allowed();
	pthread_t t;

	if (TEST_RESPAWN("FASTCPU_BACKEND=syscall", "FASTCPU_CACHE=on"))
		return;
	pin.way = (enum way)_i;
	pin.target = pthread_self();
	pin.target_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_init(&pin.go, NULL, 2);
	pthread_barrier_init(&pin.done, NULL, 2);
	ck_assert_int_eq(pthread_create(&t, NULL, helper, NULL), 0);
	test_pin(cpu);
	for (int round = 0; round < 100; round++) {
		unsigned int c, n;

		ck_assert_int_eq(sched_getcpu(), cpu);	/* warm */
		cpu = test_next_allowed(cpu);
		CPU_ZERO(&pin.set);
		CPU_SET(cpu, &pin.set);
		if (pin.way == SELF_PTHREAD) {
			pin_target();
		} else {
			pthread_barrier_wait(&pin.go);
			pthread_barrier_wait(&pin.done);
		}
		ck_assert_msg(sched_getcpu() == cpu, "round %d, %s: CPU %d, pinned to %d",
			      round, way_names[pin.way], sched_getcpu(), cpu);
		ck_assert_int_eq(getcpu(&c, &n), 0);
		ck_assert_int_eq((int)c, cpu);
	}
	pin.stop = true;
	pthread_barrier_wait(&pin.go);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

Suite *suite_host(void)
{
	Suite *s = suite_create("host");
	TCase *tc = tcase_create("host");

	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	if (CPU_COUNT(&test_allowed) < 2) {
		test_note("host: one CPU allowed: vfork and pinning tests skipped\n");
		return s;
	}
	/* valgrind runs no clone(CLONE_VM) child; vfork there is a fork. */
	if (!test_instrumented())
		test_add_respawning(tc, vfork_child_leaves_parent_right, 0, 8);
	test_add_respawning(tc, pinning_seen_at_once, 0, WAYS);
	return s;
}
