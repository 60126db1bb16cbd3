/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/cases.h: the operations the benchmark times. */

#ifndef FASTCPU_BENCH_CASES_H
#define FASTCPU_BENCH_CASES_H

#include <stdbool.h>

#include "measure.h"

/* Looks up glibc's own sched_getcpu and getcpu in libc itself, so that the
 * comparison holds with libfastcpu linked or preloaded, and the vDSO's. */
void cases_init(void);

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

/*
 * The ways of asking, each a row of Table 1 (nothing waits on the answer)
 * and of Table 7 (work waits on it) where it belongs, keyed by this id and
 * printed by its name; in Table 1's order.
 */
enum way {
	WAY_NOTHING,		/* [0] of both: the loop alone, not subtracted */
	WAY_RSEQ_LOAD,		/* Table 1 only: the bare load of cpu_id */
	WAY_CURRENT_CPU,
	WAY_EMPTY_CALL,
	WAY_FASTCPU_SCHED,
	WAY_GLIBC_SCHED,
	WAY_FASTCPU_GETCPU,
	WAY_GLIBC_GETCPU,
	WAY_FASTCPU_GETCPU_GENERIC,	/* getcpu(&c, NULL): Table 1 only */
	WAY_GLIBC_GETCPU_GENERIC,
	WAY_VDSO,
	WAY_RDPID,		/* x86 only, these three */
	WAY_LSL,
	WAY_RDTSCP,
	WAY_SYSCALL,
	WAY_FASTCPU_CID,	/* Table 7 only, from here on */
	WAY_CURRENT_CPU_NODE,
	WAY_CURRENT_CID,
	WAY_LEAF_NO_STORE,	/* two shapes of a called function (latency.c) */
	WAY_LEAF_ONE_STORE,
	WAYS
};

/* The row's name (Table 7 gives its WAY_NOTHING a name of its own). */
const char *way_name(enum way w);
const char *way_key(enum way w);
/* Whether this machine and process can ask that way (glibc's getcpu,
 * the vDSO's, RDPID, the thread's rseq area where <fastcpu.h> reads it). */
bool way_here(enum way w);

/* Table 1: the ways it times that are here, each a row of table
 * "reading". */
void cases_reading(struct rows *out);

/* The loops the setup table's processes time (setups.c). */
unsigned long loop_empty(unsigned long n);
unsigned long loop_fastcpu_sched_getcpu(unsigned long n);
unsigned long loop_fastcpu_getcpu_generic(unsigned long n);
unsigned long loop_fastcpu_getcpu(unsigned long n);
unsigned long loop_glibc_sched_getcpu(unsigned long n);
unsigned long loop_glibc_getcpu(unsigned long n);
unsigned long loop_syscall_getcpu(unsigned long n);

#if defined(__x86_64__) || defined(__i386__)
# define CASES_X86 1
#endif

/* glibc's own sched_getcpu(), whoever interposes it. */
int glibc_sched_getcpu(void);

/* Single shots. */
void once_fastcpu_sched_getcpu(void);
void once_glibc_sched_getcpu(void);

#endif /* FASTCPU_BENCH_CASES_H */
