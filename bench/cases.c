/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/cases.c: each timed operation in a loop of its own. */

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
# include <cpuid.h>
#endif

#include "cases.h"
#include "loops.h"
#include "measure.h"
#include "fastcpu.h"

/*
 * Function entry points are called through volatile pointers: the compiler
 * can neither inline nor hoist them, and the call costs what a call through
 * the PLT costs. libfastcpu's and glibc's are called the same way.
 */
int (*volatile fastcpu_sched_getcpu_p)(void) = sched_getcpu;
int (*volatile fastcpu_getcpu_p)(unsigned int *, unsigned int *) = getcpu;
int (*volatile fastcpu_cid_p)(void) = fastcpu_cid;
int (*volatile glibc_sched_getcpu_p)(void);
int (*volatile glibc_getcpu_p)(unsigned int *, unsigned int *);
long (*volatile vdso_getcpu_p)(unsigned int *, unsigned int *, void *);

/* The floor under every function entry point: a call that does nothing. */
static __attribute__((noinline)) int empty_function(void)
{
	__asm__ volatile("");
	return 0;
}
int (*volatile empty_function_p)(void) = empty_function;

void cases_init(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (libc == NULL) {
		fprintf(stderr, "fastcpu-bench: cannot find libc.so.6: %s\n", dlerror());
		exit(2);
	}
	glibc_sched_getcpu_p = (int (*)(void))dlsym(libc, "sched_getcpu");
	glibc_getcpu_p = (int (*)(unsigned int *, unsigned int *))dlsym(libc, "getcpu");
	if (vdso != NULL) {
		vdso_getcpu_p = (long (*)(unsigned int *, unsigned int *, void *))
			dlsym(vdso, "__vdso_getcpu");
		if (vdso_getcpu_p == NULL)
			vdso_getcpu_p = (long (*)(unsigned int *, unsigned int *, void *))
				dlsym(vdso, "__kernel_getcpu");
	}
}

bool cases_have_glibc_getcpu(void)
{
	return glibc_getcpu_p != NULL;
}

bool cases_have_vdso_getcpu(void)
{
	return vdso_getcpu_p != NULL;
}

bool cases_have_rseq_area(void)
{
	return loops_rseq_cpu_id() != NULL;
}

unsigned long loop_empty(unsigned long n)
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += i; KEEP(sum));
	}
	return sum;
}

/* The floor: the thread's cpu_id through a pointer found once. */
unsigned long loop_rseq_load(unsigned long n)
{
	const volatile int *cpu_id = loops_rseq_cpu_id();
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += (unsigned long)*cpu_id; KEEP(sum));
	}
	return sum;
}

unsigned long loop_current_cpu(unsigned long n)
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += (unsigned long)fastcpu_current_cpu(); KEEP(sum));
	}
	return sum;
}

#define LOOP_CALL(name, ...)					\
	unsigned long name(unsigned long n)			\
	{							\
		unsigned long sum = 0;				\
		unsigned int c = 0, node = 0;			\
								\
		for (unsigned long i = 0; i < n; i += 4) {	\
			FOUR(__VA_ARGS__; sum += c + node; KEEP(sum)); \
		}						\
		return sum;					\
	}

LOOP_CALL(loop_empty_call, ASK_EMPTY_CALL)
LOOP_CALL(loop_fastcpu_sched_getcpu, ASK_FASTCPU_SCHED)
LOOP_CALL(loop_fastcpu_getcpu_generic, ASK_FASTCPU_GETCPU_GENERIC)
LOOP_CALL(loop_fastcpu_getcpu, ASK_FASTCPU_GETCPU)
LOOP_CALL(loop_glibc_sched_getcpu, ASK_GLIBC_SCHED)
LOOP_CALL(loop_glibc_getcpu_generic, ASK_GLIBC_GETCPU_GENERIC)
LOOP_CALL(loop_glibc_getcpu, ASK_GLIBC_GETCPU)
LOOP_CALL(loop_syscall_getcpu, ASK_SYSCALL)
LOOP_CALL(loop_vdso_getcpu, ASK_VDSO)

#if defined(__x86_64__) || defined(__i386__)
bool cases_have_rdpid(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 22));
}

LOOP_CALL(loop_rdpid, ASK_RDPID)
LOOP_CALL(loop_lsl, ASK_LSL)
LOOP_CALL(loop_rdtscp, ASK_RDTSCP)
#endif

int glibc_sched_getcpu(void)
{
	return glibc_sched_getcpu_p();
}

void once_fastcpu_sched_getcpu(void)
{
	KEEP(fastcpu_sched_getcpu_p());
}

void once_glibc_sched_getcpu(void)
{
	KEEP(glibc_sched_getcpu_p());
}
