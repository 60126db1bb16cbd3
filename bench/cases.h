/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/cases.h: the operations the benchmark times. */

#ifndef FASTCPU_BENCH_CASES_H
#define FASTCPU_BENCH_CASES_H

#include <stdbool.h>

/* Looks up glibc's own sched_getcpu and getcpu in libc itself, so that the
 * comparison holds with libfastcpu linked or preloaded. */
void cases_init(void);
bool cases_have_glibc_getcpu(void);	/* glibc >= 2.29 */
bool cases_have_rseq_area(void);	/* after the thread's first call */

/* The functions timed, called through volatile pointers: the compiler can
 * neither inline nor hoist them (glibc's: NULL where glibc lacks them). */
extern int (*volatile fastcpu_sched_getcpu_p)(void);
extern int (*volatile fastcpu_getcpu_p)(unsigned int *, unsigned int *);
extern int (*volatile fastcpu_cid_p)(void);
extern int (*volatile glibc_sched_getcpu_p)(void);
extern int (*volatile glibc_getcpu_p)(unsigned int *, unsigned int *);
extern long (*volatile vdso_getcpu_p)(unsigned int *, unsigned int *, void *);
/* A call that does nothing: the floor under every function entry point. */
extern int (*volatile empty_function_p)(void);

/*
 * The ways of asking, each a statement that leaves the CPU in c (and the
 * node in node where it gives one), both unsigned int: written once, timed
 * by cases.c with nothing waiting on the answer, by latency.c with work
 * that waits on it.
 */
#define ASK_NOTHING c = 0
#define ASK_EMPTY_CALL c = (unsigned int)empty_function_p()
#define ASK_FASTCPU_SCHED c = (unsigned int)fastcpu_sched_getcpu_p()
#define ASK_FASTCPU_GETCPU_GENERIC fastcpu_getcpu_p(&c, NULL)
#define ASK_FASTCPU_GETCPU fastcpu_getcpu_p(&c, &node)
#define ASK_FASTCPU_CID c = (unsigned int)fastcpu_cid_p()
#define ASK_GLIBC_SCHED c = (unsigned int)glibc_sched_getcpu_p()
#define ASK_GLIBC_GETCPU_GENERIC glibc_getcpu_p(&c, NULL)
#define ASK_GLIBC_GETCPU glibc_getcpu_p(&c, &node)
#define ASK_SYSCALL syscall(SYS_getcpu, &c, &node, NULL)
#define ASK_VDSO vdso_getcpu_p(&c, &node, NULL)
#define ASK_CURRENT_CPU c = (unsigned int)fastcpu_current_cpu()
#define ASK_CURRENT_CPU_NODE c = (unsigned int)fastcpu_current_cpu_node(&node)
#define ASK_CURRENT_CID c = (unsigned int)fastcpu_current_cid()
#if defined(__x86_64__) || defined(__i386__)
/* The raw instructions behind the x86 vDSO getcpu, inline. */
# define ASK_RDPID { unsigned long aux_;					\
	__asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(aux_));	\
	c = (unsigned int)aux_ & 0xfff; }
# define ASK_LSL { unsigned int seg_ = (15 * 8 + 3), limit_; /* GDT_ENTRY_CPUNODE */ \
	__asm__ volatile("lsl %1, %0" : "=r"(limit_) : "r"(seg_));	\
	c = limit_ & 0xfff; }
# define ASK_RDTSCP { unsigned int lo_, hi_, aux_;			\
	__asm__ volatile("rdtscp" : "=a"(lo_), "=d"(hi_), "=c"(aux_));	\
	c = aux_ & 0xfff; KEEP(lo_); KEEP(hi_); }
#endif

unsigned long loop_empty(unsigned long n);
unsigned long loop_empty_call(unsigned long n);
unsigned long loop_rseq_load(unsigned long n);
unsigned long loop_current_cpu(unsigned long n);
unsigned long loop_fastcpu_sched_getcpu(unsigned long n);
unsigned long loop_fastcpu_getcpu_generic(unsigned long n);
unsigned long loop_fastcpu_getcpu(unsigned long n);
unsigned long loop_glibc_sched_getcpu(unsigned long n);
unsigned long loop_glibc_getcpu_generic(unsigned long n);
unsigned long loop_glibc_getcpu(unsigned long n);
unsigned long loop_syscall_getcpu(unsigned long n);
unsigned long loop_vdso_getcpu(unsigned long n);
bool cases_have_vdso_getcpu(void);

#if defined(__x86_64__) || defined(__i386__)
# define CASES_X86 1
unsigned long loop_rdpid(unsigned long n);
unsigned long loop_lsl(unsigned long n);
unsigned long loop_rdtscp(unsigned long n);
bool cases_have_rdpid(void);
#endif

/* glibc's own sched_getcpu(), whoever interposes it. */
int glibc_sched_getcpu(void);

/* Single shots. */
void once_fastcpu_sched_getcpu(void);
void once_glibc_sched_getcpu(void);

#endif /* FASTCPU_BENCH_CASES_H */
