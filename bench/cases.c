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
static int (*volatile fastcpu_sched_getcpu_p)(void) = sched_getcpu;
static int (*volatile fastcpu_getcpu_p)(unsigned int *, unsigned int *) = getcpu;
static int (*volatile glibc_sched_getcpu_p)(void);
static int (*volatile glibc_getcpu_p)(unsigned int *, unsigned int *);
static long (*volatile vdso_getcpu_p)(unsigned int *, unsigned int *, void *);

/* The floor under every function entry point: a call that does nothing. */
static __attribute__((noinline)) int empty_function(void)
{
	__asm__ volatile("");
	return 0;
}
static int (*volatile empty_function_p)(void) = empty_function;

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

LOOP_CALL(loop_empty_call, c = (unsigned int)empty_function_p())
LOOP_CALL(loop_fastcpu_sched_getcpu, c = (unsigned int)fastcpu_sched_getcpu_p())
LOOP_CALL(loop_fastcpu_getcpu_generic, fastcpu_getcpu_p(&c, NULL))
LOOP_CALL(loop_fastcpu_getcpu, fastcpu_getcpu_p(&c, &node))
LOOP_CALL(loop_glibc_sched_getcpu, c = (unsigned int)glibc_sched_getcpu_p())
LOOP_CALL(loop_glibc_getcpu_generic, glibc_getcpu_p(&c, NULL))
LOOP_CALL(loop_glibc_getcpu, glibc_getcpu_p(&c, &node))
LOOP_CALL(loop_syscall_getcpu, syscall(SYS_getcpu, &c, &node, NULL))
LOOP_CALL(loop_vdso_getcpu, vdso_getcpu_p(&c, &node, NULL))

#if defined(__x86_64__) || defined(__i386__)
bool cases_have_rdpid(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 22));
}

/* The raw instructions behind the x86 vDSO getcpu, inline. */
LOOP_CALL(loop_rdpid, { unsigned long aux;
	__asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(aux));
	c = (unsigned int)aux & 0xfff; })
LOOP_CALL(loop_lsl, { unsigned int seg = (15 * 8 + 3), limit;	/* GDT_ENTRY_CPUNODE */
	__asm__ volatile("lsl %1, %0" : "=r"(limit) : "r"(seg));
	c = limit & 0xfff; })
LOOP_CALL(loop_rdtscp, { unsigned int lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	c = aux & 0xfff; KEEP(lo); KEEP(hi); })
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
