/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/helpers.h: what the test suites share: the kernel's own answers. */

#ifndef FASTCPU_TESTS_HELPERS_H
#define FASTCPU_TESTS_HELPERS_H

#include <check.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* What FASTCPU_1.0's header had its inline read go through: programs built
 * against it still read it, so it stays exported and right. */
extern __thread const volatile int *fastcpu_cpu_id_ref
	__attribute__((tls_model("initial-exec")));

/* The CPUs this process may run on, from its affinity at start. */
extern cpu_set_t test_allowed;
void test_record_allowed(void);
/* A test killed by SIGSEGV, SIGBUS or SIGILL says where first (the faulting
 * instruction's object and offset, and a backtrace), where no sanitizer or
 * valgrind does. */
void test_report_crashes(void);
int test_first_allowed(void);
int test_next_allowed(int cpu);		/* round the set */

/* A line on stderr about how the suites were built (what is skipped and
 * why), from the runner only: a respawned test's stderr is its own. */
void test_note(const char *line);
/* Runs a test program's one suite; its exit status. */
int test_run_suite(Suite *s);

/* Pins the calling thread to cpu; fails the test if the kernel refuses. */
void test_pin(int cpu);
/* The same, saying whether it did: async-signal-safe, for a fork child of a
 * threaded test (Check's assertions take a lock another thread may hold). */
bool test_try_pin(int cpu);
/* Pins thread tid to set from another process, as taskset -p does: a
 * change the library cannot see. */
void test_pin_from_other_process(pid_t tid, const cpu_set_t *set);
/* The kernel's answer, from the system call itself. */
int test_kernel_cpu(void);
unsigned int test_kernel_node(void);
/* The node sysfs lists cpu under (0 where the kernel has no NUMA). */
unsigned int test_sysfs_node(int cpu);

/* What this process gives the library to work with. */
bool test_glibc_registered_rseq(void);
bool test_kernel_rseq_usable(void);	/* a fresh thread could register */
bool test_cpu_has_rdpid(void);
bool test_has_vdso_getcpu(void);

/* Whether the suite runs under qemu-user (FASTCPU_TEST_EMULATED, set by
 * tests/platforms/cross.sh), which has no seccomp, no raw clone() and its own memory
 * in the resident set. */
bool test_emulated(void);
/* Whether the suite runs under valgrind or the sanitizers (the build or
 * make check-valgrind says so, FASTCPU_TEST_INSTRUMENTED): their own memory
 * grows with every thread, valgrind runs no clone(CLONE_VM) child that
 * shares memory, and a sanitized library cannot be preloaded into a
 * program started without it. */
bool test_instrumented(void);
/* Whether valgrind runs this process (its preloaded objects say so). */
bool test_under_valgrind(void);

/* FASTCPU_STRESS=F multiplies the amounts of the stress tests: 10 in make
 * check-stress, 0.1 under valgrind (make check-valgrind) and, unless set,
 * under emulation; never below 1. */
long test_scaled(long n);
/* CLOCK_MONOTONIC in milliseconds, for tests that wait with a deadline. */
double test_now_ms(void);
/* A SIGALRM every 50 us (FASTCPU_TEST_SIGNAL_US) to whichever thread
 * runs, handled by handler (SA_RESTART); and its end. */
void test_signal_every(void (*handler)(int));
/* ...every period_us instead (FASTCPU_TEST_SIGNAL_US still overrides). */
void test_signal_every_us(void (*handler)(int), long period_us);
void test_signal_stop(void);

/* The stress of the kernel's rseq param_test: count threads running
 * work((void *)index), a SIGALRM every 50 us handled by handler, and a
 * mover moving the workers that enlisted (each its first act) round the
 * allowed CPUs; returns once every worker has. */
void test_stress_run(int count, void *(*work)(void *index), void (*handler)(int));
void test_stress_enlist(int index);

/* The bytes of address space the process maps (VmSize); 0 where unknown. */
size_t test_mapped_bytes(void);
/* Sets the soft RLIMIT_AS to what the process maps now and more bytes
 * (test_limit_data: RLIMIT_DATA, to its private writable memory, VmData,
 * and more); false where it cannot. For a fork child of a test; and
 * test_unlimit gives both their hard limits back. */
bool test_limit_address_space(size_t more);
bool test_limit_data(size_t more);
void test_unlimit(void);

/* The kernel refuses the next calls of mprotect (ENOMEM), whoever makes
 * them (interpose.c: the object cache's space makes memory writable so). */
void test_fail_mprotect(int calls);
/* The calling thread's next pthread_setspecific() raises sig first
 * (interpose.c: the library sets a thread's key when it first keeps objects). */
void test_signal_in_setspecific(int sig);
/* Whether this process could install a seccomp filter (not under qemu-user). */
bool test_seccomp_works(void);

/* Makes the rseq system call (and, if also_getcpu, getcpu) fail with err
 * for this process from now on, with a seccomp filter. */
void test_deny_rseq(int err, bool also_getcpu);

/* Checks every API entry point against the kernel while pinned to each
 * allowed CPU: right after the migration, then after many calls. */
void test_check_all_cpus(void);
/* The same from a new thread, whose first call comes after pinning. */
void test_check_all_cpus_in_thread(void);

/* Tests that need FASTCPU_* settings (read by the library at load) run
 * their body in a new process: test_respawn() returns NULL there, and in
 * the calling test, once that process passed, what it wrote on stderr.
 * Such tests are added with test_add_respawning(). */
#define TEST_RESPAWN(...) \
	test_respawn(__func__, _i, (const char *const[]){ __VA_ARGS__, NULL })
const char *test_respawn(const char *fn, int index, const char *const env[]);
void test_add_respawning(TCase *tc, const TTest *t, int start, int end);
bool test_respawned(void);
int test_run_respawned(void);

/* The tests of what a kernel does to sequences (exactness under
 * preemption, the guard's probe): a case of their own, "exact", which the
 * kernel matrix runs again with every instruction a place for a tick
 * (CK_RUN_CASE=exact under qemu's -icount). */
TCase *test_exactness_case(void);

/* The suites. */
Suite *suite_answers(void);
Suite *suite_backends(void);
Suite *suite_faults(void);
Suite *suite_reliability(void);
Suite *suite_host(void);
Suite *suite_fastpath(void);
Suite *suite_percpu(void);
Suite *suite_memory(void);
Suite *suite_objcache(void);
Suite *suite_objcache_bounds(void);
Suite *suite_objcache_front(void);
Suite *suite_guard(void);
Suite *suite_counter_tree(void);

#endif /* FASTCPU_TESTS_HELPERS_H */
