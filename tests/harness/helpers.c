/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/helpers.c: pinning, the kernel's answers, and the checks of them. */

#if defined(__x86_64__) || defined(__i386__)
# include <cpuid.h>
#endif
#include <dlfcn.h>
#ifdef __GLIBC__
# include <execinfo.h>
#endif
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fastcpu.h"
#include "helpers.h"

cpu_set_t test_allowed;

void test_record_allowed(void)
{
	if (sched_getaffinity(0, sizeof(test_allowed), &test_allowed) != 0)
		ck_abort_msg("sched_getaffinity: %s", strerror(errno));
}

int test_first_allowed(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &test_allowed))
			return cpu;
	ck_abort_msg("no CPU allowed");
	return -1;
}

int test_next_allowed(int cpu)
{
	do
		cpu = (cpu + 1) % CPU_SETSIZE;
	while (!CPU_ISSET(cpu, &test_allowed));
	return cpu;
}

long test_scaled(long n)
{
	const char *v = getenv("FASTCPU_STRESS");
	double factor = v != NULL ? atof(v) : test_emulated() ? 0.1 : 1;
	long m = (long)((double)n * factor);

	return m > 0 ? m : 1;
}

bool test_instrumented(void)
{
	return getenv("FASTCPU_TEST_INSTRUMENTED") != NULL;
}

void test_signal_every(void (*handler)(int))
{
	test_signal_every_us(handler, 50);
}

void test_signal_every_us(void (*handler)(int), long period_us)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };
	const char *us = getenv("FASTCPU_TEST_SIGNAL_US");
	struct itimerval every = { { 0, period_us }, { 0, period_us } };

	/* Where a handler takes longer than the period (s390x under TCG), the
	 * thread would only ever run handlers: FASTCPU_TEST_SIGNAL_US widens it. */
	if (us != NULL)
		every.it_interval.tv_usec = every.it_value.tv_usec = atol(us);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
}

void test_signal_stop(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
}

/* The stress's workers, by the tids they enlisted, for the mover. */
static struct {
	pid_t *tids;
	int count;
	volatile int stop;
} stress;

void test_stress_enlist(int index)
{
	if (stress.tids != NULL && index >= 0 && index < stress.count)
		__atomic_store_n(&stress.tids[index], (pid_t)syscall(SYS_gettid),
				 __ATOMIC_RELAXED);
}

/* Moves the enlisted workers round the allowed CPUs until told to stop:
 * one that has ended is ESRCH, and ignored. */
static void *stress_mover(void *unused)
{
	int cpu = test_first_allowed();

	(void)unused;
	for (unsigned long k = 0; !stress.stop; k++) {
		pid_t tid = __atomic_load_n(&stress.tids[k % (unsigned long)stress.count],
					    __ATOMIC_RELAXED);
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (tid != 0)
			(void)sched_setaffinity(tid, sizeof(one), &one);
		if (k % (unsigned long)stress.count == 0)
			cpu = test_next_allowed(cpu);
		usleep(100);
	}
	return NULL;
}

void test_stress_run(int count, void *(*work)(void *index), void (*handler)(int))
{
	pthread_t *t = calloc((size_t)count, sizeof(*t)), move;

	stress.tids = calloc((size_t)count, sizeof(*stress.tids));
	ck_assert(t != NULL && stress.tids != NULL);
	stress.count = count;
	stress.stop = 0;
	test_signal_every(handler);
	for (int i = 0; i < count; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, work, (void *)(intptr_t)i), 0);
	ck_assert_int_eq(pthread_create(&move, NULL, stress_mover, NULL), 0);
	for (int i = 0; i < count; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	stress.stop = 1;
	ck_assert_int_eq(pthread_join(move, NULL), 0);
	test_signal_stop();
	free(stress.tids);
	stress.tids = NULL;
	free(t);
}

bool test_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

double test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool test_respawned(void)
{
	return getenv("FASTCPU_TEST_RESPAWN") != NULL;
}

void test_note(const char *line)
{
	if (!test_respawned())
		fputs(line, stderr);
}

int test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

bool test_try_pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0;
}

void test_pin(int cpu)
{
	ck_assert_msg(test_try_pin(cpu), "cannot pin to CPU %d: %s", cpu, strerror(errno));
}

void test_pin_from_other_process(pid_t tid, const cpu_set_t *set)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(syscall(SYS_sched_setaffinity, tid, sizeof(*set), set) == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "another process could not pin thread %d", (int)tid);
}

int test_kernel_cpu(void)
{
	unsigned int cpu;

	ck_assert_int_eq(syscall(SYS_getcpu, &cpu, NULL, NULL), 0);
	return (int)cpu;
}

unsigned int test_kernel_node(void)
{
	unsigned int node;

	ck_assert_int_eq(syscall(SYS_getcpu, NULL, &node, NULL), 0);
	return node;
}

/* Keeps errno: callers check that the library left theirs alone, and every
 * node the CPU is not on fails access() with ENOENT. */
unsigned int test_sysfs_node(int cpu)
{
	int saved = errno;
	unsigned int node;
	char path[128];

	for (node = 0; node < 1024; node++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/node%u", cpu, node);
		if (access(path, F_OK) == 0)
			break;
	}
	errno = saved;
	return node < 1024 ? node : 0;
}

bool test_glibc_registered_rseq(void)
{
	const unsigned int *size = dlsym(RTLD_DEFAULT, "__rseq_size");

	return size != NULL && *size != 0;
}

/* Asks in a forked child, so this process's threads stay as they are. */
bool test_kernel_rseq_usable(void)
{
	static __thread char area[64] __attribute__((aligned(64)));
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		long r = syscall(SYS_rseq, area, 32, 0, FASTCPU_RSEQ_SIGNATURE);

		_exit(r == 0 || errno == EINVAL || errno == EBUSY ? 0 : 1);
	}
	/* Also called outside tests, from main: no ck_assert here. */
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* What the library can use: the machine's, unless built generic. */
bool test_cpu_has_rdpid(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && !defined(FASTCPU_ARCH_GENERIC)
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 22));
#else
	return false;
#endif
}

bool test_has_vdso_getcpu(void)
{
/* riscv's vDSO getcpu is the system call itself: the library skips it. */
#if (defined(__x86_64__) || defined(__i386__) || defined(__powerpc__) || \
	defined(__s390__) || defined(__loongarch__)) && \
	!defined(FASTCPU_ARCH_GENERIC)
	return getauxval(AT_SYSINFO_EHDR) != 0;
#else
	return false;
#endif
}

bool test_emulated(void)
{
	const char *e = getenv("FASTCPU_TEST_EMULATED");

	return e != NULL && *e != '\0';
}

/* Whether a filter making rseq (and getcpu) fail with err went in. */
static bool install_filter(int err, bool also_getcpu)
{
	unsigned int deny = SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA);
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rseq, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, deny),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getcpu, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, also_getcpu ? deny : SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

bool test_seccomp_works(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(install_filter(EPERM, false) ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void test_deny_rseq(int err, bool also_getcpu)
{
	ck_assert_msg(install_filter(err, also_getcpu), "seccomp: %s", strerror(errno));
}

/* A field of /proc/self/status in bytes ("VmSize:", kB there); 0 where
 * it cannot be read. */
static size_t status_bytes(const char *field)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, strlen(field)) == 0)
			(void)sscanf(line + strlen(field), "%lu", &kb);
	if (f != NULL)
		fclose(f);
	return (size_t)kb << 10;
}

size_t test_mapped_bytes(void)
{
	return status_bytes("VmSize:");
}

/* The soft limit of resource set to used bytes and more. */
static bool limit_above(int resource, size_t used, size_t more)
{
	struct rlimit limit;

	if (used == 0 || getrlimit(resource, &limit) != 0)
		return false;
	limit.rlim_cur = (rlim_t)(used + more);
	return setrlimit(resource, &limit) == 0;
}

bool test_limit_address_space(size_t more)
{
	return limit_above(RLIMIT_AS, test_mapped_bytes(), more);
}

bool test_limit_data(size_t more)
{
	return limit_above(RLIMIT_DATA, status_bytes("VmData:"), more);
}

void test_unlimit(void)
{
	static const int resources[] = { RLIMIT_AS, RLIMIT_DATA };
	struct rlimit limit;

	for (size_t i = 0; i < sizeof(resources) / sizeof(resources[0]); i++)
		if (getrlimit(resources[i], &limit) == 0) {
			limit.rlim_cur = limit.rlim_max;
			(void)setrlimit(resources[i], &limit);
		}
}

TCase *test_exactness_case(void)
{
	TCase *tc = tcase_create("exact");

	tcase_set_timeout(tc, 300);
	return tc;
}

/* ---- a crash says where ------------------------------------------------- */

/* The faulting instruction, where this architecture's context is known. */
static void *fault_pc(const ucontext_t *uc)
{
#if defined(__x86_64__)
	return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (void *)uc->uc_mcontext.pc;
#else
	(void)uc;
	return NULL;
#endif
}

/* Says the signal, the address, and the object and offset of the faulting
 * instruction and of its callers (a guest has no debugger), then lets the
 * signal kill the test as before, which Check reports. Not async-signal-safe
 * (dladdr, stdio): the process is dying. */
static void say_crash(int sig, siginfo_t *info, void *context)
{
	void *pc = fault_pc(context), *frames[32];
	Dl_info where;
	int n = 0;

	fprintf(stderr, "crash: signal %d at address %p, pc %p", sig, info->si_addr, pc);
	if (pc != NULL && dladdr(pc, &where) != 0 && where.dli_fname != NULL)
		fprintf(stderr, " = %s+%#lx (%s)", where.dli_fname,
			(unsigned long)((char *)pc - (char *)where.dli_fbase),
			where.dli_sname != NULL ? where.dli_sname : "?");
	fputc('\n', stderr);
#ifdef __GLIBC__
	n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
#endif
	(void)n;
	(void)frames;
	signal(sig, SIG_DFL);	/* the instruction faults again, and kills */
}

void test_report_crashes(void)
{
	struct sigaction sa = { .sa_sigaction = say_crash, .sa_flags = SA_SIGINFO | SA_RESETHAND };
	void *warm[1];

	/* The sanitizers and valgrind report their own. */
	if (test_instrumented() || test_under_valgrind())
		return;
#ifdef __GLIBC__
	(void)backtrace(warm, 1);	/* loads libgcc_s now, not in the handler */
#endif
	(void)warm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
}
