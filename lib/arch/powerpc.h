/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/powerpc.h: ppc64 and ppc. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/powerpc.h"
#endif

#include <stdint.h>

#define FASTCPU_VDSO_GETCPU	"__kernel_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_2.6.15"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6.15"

/* GCC 12 has no __builtin_thread_pointer here: r13 (ppc64) or r2 (ppc)
 * is the thread pointer glibc's __rseq_offset counts from. */
#define FASTCPU_HAVE_THREAD_POINTER 1
static inline void *fastcpu_arch_thread_pointer(void)
{
	void *tp;

#ifdef __powerpc64__
	__asm__("mr %0, 13" : "=r"(tp));
#else
	__asm__("mr %0, 2" : "=r"(tp));
#endif
	return tp;
}

/* The time base, readable from user mode; glibc knows its frequency (from
 * the vDSO or /proc/cpuinfo) and answers 0 when it does not. */
#ifdef __GLIBC__
# include <sys/platform/ppc.h>
# define FASTCPU_HAVE_COUNTER 1
# define FASTCPU_HAVE_COUNTER_HZ 1
static inline uint64_t fastcpu_arch_counter(void)
{
	return __ppc_get_timebase();
}

static inline uint64_t fastcpu_arch_counter_hz(void)
{
	return __ppc_get_timebase_freq();
}
#endif

/* A spinning waiter's hint: this hardware thread at low priority for the
 * instruction, then back to medium (the kernel's HMT_low, HMT_medium). */
#define FASTCPU_HAVE_PAUSE 1
static inline void fastcpu_arch_pause(void)
{
	__asm__ __volatile__("or 1, 1, 1\n\tor 2, 2, 2" : : : "memory");
}
