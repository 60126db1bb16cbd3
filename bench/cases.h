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
