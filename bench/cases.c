/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/cases.c: each timed operation in a loop of its own. */

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cases.h"
#include "fastcpu.h"
#include "loops.h"
#include "runner.h"

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

	if (libc == NULL) {
		fprintf(stderr, "fastcpu-bench: cannot find libc.so.6: %s\n", dlerror());
		exit(2);
	}
	glibc_sched_getcpu_p = (int (*)(void))dlsym(libc, "sched_getcpu");
	glibc_getcpu_p = (int (*)(unsigned int *, unsigned int *))dlsym(libc, "getcpu");
	vdso_getcpu_p = (long (*)(unsigned int *, unsigned int *, void *))bench_vdso_getcpu();
}

/* The floor: the thread's cpu_id through a pointer found once. */
static unsigned long loop_rseq_load(unsigned long n)
{
	const volatile int *cpu_id = loops_rseq_cpu_id();
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += (unsigned long)*cpu_id; KEEP(sum));
	}
	return sum;
}

unsigned long loop_empty(unsigned long n)
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i += 4) {
		FOUR(sum += i; KEEP(sum));
	}
	return sum;
}

static unsigned long loop_current_cpu(unsigned long n)
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

static LOOP_CALL(loop_empty_call, ASK_EMPTY_CALL)
LOOP_CALL(loop_fastcpu_sched_getcpu, ASK_FASTCPU_SCHED)
LOOP_CALL(loop_fastcpu_getcpu_generic, ASK_FASTCPU_GETCPU_GENERIC)
LOOP_CALL(loop_fastcpu_getcpu, ASK_FASTCPU_GETCPU)
LOOP_CALL(loop_glibc_sched_getcpu, ASK_GLIBC_SCHED)
static LOOP_CALL(loop_glibc_getcpu_generic, ASK_GLIBC_GETCPU_GENERIC)
LOOP_CALL(loop_glibc_getcpu, ASK_GLIBC_GETCPU)
LOOP_CALL(loop_syscall_getcpu, ASK_SYSCALL)
static LOOP_CALL(loop_vdso_getcpu, ASK_VDSO)

#ifdef CASES_X86
static LOOP_CALL(loop_rdpid, ASK_RDPID)
static LOOP_CALL(loop_lsl, ASK_LSL)
static LOOP_CALL(loop_rdtscp, ASK_RDTSCP)
#endif

#ifdef CASES_X86
# define X86_ONLY(loop) loop
#else
# define X86_ONLY(loop) NULL
#endif

static const struct {
	const char *key, *name;
	bench_loop_fn reading;	/* Table 1's loop; NULL: Table 7 only */
} ways[WAYS] = {
	[WAY_NOTHING] = { "empty_loop", "empty loop (not subtracted)", loop_empty },
	[WAY_RSEQ_LOAD] = { "rseq_load", "rseq cpu_id load (bare)", loop_rseq_load },
	[WAY_CURRENT_CPU] = { "fastcpu_current_cpu", "fastcpu_current_cpu() inline", loop_current_cpu },
	[WAY_EMPTY_CALL] = { "empty_call", "empty function call (the floor)", loop_empty_call },
	[WAY_FASTCPU_SCHED] = { "fastcpu_sched_getcpu", "libfastcpu sched_getcpu()", loop_fastcpu_sched_getcpu },
	[WAY_GLIBC_SCHED] = { "glibc_sched_getcpu", "glibc sched_getcpu()", loop_glibc_sched_getcpu },
	[WAY_FASTCPU_GETCPU] = { "fastcpu_getcpu", "libfastcpu getcpu(&c, &n)", loop_fastcpu_getcpu },
	[WAY_GLIBC_GETCPU] = { "glibc_getcpu", "glibc getcpu(&c, &n)", loop_glibc_getcpu },
	[WAY_FASTCPU_GETCPU_GENERIC] = { "fastcpu_getcpu_generic", "libfastcpu getcpu(&c, NULL)",
					 loop_fastcpu_getcpu_generic },
	[WAY_GLIBC_GETCPU_GENERIC] = { "glibc_getcpu_generic", "glibc getcpu(&c, NULL)", loop_glibc_getcpu_generic },
	[WAY_VDSO] = { "vdso_getcpu", "vDSO getcpu, called directly", loop_vdso_getcpu },
	[WAY_RDPID] = { "rdpid", "RDPID inline", X86_ONLY(loop_rdpid) },
	[WAY_LSL] = { "lsl", "LSL inline", X86_ONLY(loop_lsl) },
	[WAY_RDTSCP] = { "rdtscp", "RDTSCP inline", X86_ONLY(loop_rdtscp) },
	[WAY_SYSCALL] = { "syscall", "getcpu system call", loop_syscall_getcpu },
	[WAY_FASTCPU_CID] = { "fastcpu_cid", "libfastcpu fastcpu_cid()", NULL },
	[WAY_CURRENT_CPU_NODE] = { "fastcpu_current_cpu_node", "fastcpu_current_cpu_node() inline", NULL },
	[WAY_CURRENT_CID] = { "fastcpu_current_cid", "fastcpu_current_cid() inline", NULL },
	[WAY_LEAF_NO_STORE] = { "leaf_no_store", "leaf, one load, no store (shape)", NULL },
	[WAY_LEAF_ONE_STORE] = { "leaf_one_store", "leaf, one load, one store (shape)", NULL },
};

const char *way_name(enum way w)
{
	return ways[w].name;
}

const char *way_key(enum way w)
{
	return ways[w].key;
}

bool way_here(enum way w)
{
	switch (w) {
	case WAY_RSEQ_LOAD:
		return loops_rseq_cpu_id() != NULL;
	case WAY_GLIBC_GETCPU:
	case WAY_GLIBC_GETCPU_GENERIC:
		return glibc_getcpu_p != NULL;
	case WAY_VDSO:
		return vdso_getcpu_p != NULL;
#ifdef CASES_X86
	case WAY_RDPID:
		return bench_have_rdpid();
#else
	case WAY_RDPID:
	case WAY_LSL:
	case WAY_RDTSCP:
		return false;
#endif
	default:
		return true;
	}
}

void cases_reading(struct rows *out)
{
	struct bench_case cases[WAYS];

	for (int w = 0; w < WAYS; w++)
		cases[w] = (struct bench_case){ ways[w].key, ways[w].name,
						way_here((enum way)w) ? ways[w].reading : NULL };
	bench_measure(cases, WAYS, &bench.cfg, out, "reading");
}

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
