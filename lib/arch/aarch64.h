/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/aarch64.h: arm64 has no vDSO getcpu: rseq or the syscall. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/aarch64.h"
#endif

#include <stdint.h>

#define FASTCPU_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6.39"

/* The generic timer's virtual count, which Linux lets EL0 read (and
 * emulates where an erratum makes it trap): the cache's clock. */
#define FASTCPU_HAVE_COUNTER 1
static inline uint64_t fastcpu_arch_counter(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* Firmware sets it; 0 (never set) makes the cache use the coarse clock. */
#define FASTCPU_HAVE_COUNTER_HZ 1
static inline uint64_t fastcpu_arch_counter_hz(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

/* An exported function that marks a byte and jumps to target, using no
 * stack and only the intra-procedure-call registers x16 and x17: a vfork()
 * wrapper must not return twice through a frame of its own (task-tls.c).
 * "bti c" (a hint, a no-op before ARMv8.5) where objects are built for BTI. */
#ifdef __ARM_FEATURE_BTI_DEFAULT
# define FASTCPU_ARCH_LANDING_PAD "\thint #34\n"
#else
# define FASTCPU_ARCH_LANDING_PAD ""
#endif
#define FASTCPU_ARCH_MARK_AND_JUMP(name, flag, target)			\
	".text\n.globl " name "\n"			\
	".type " name ", %function\n.p2align 2\n" name ":\n"		\
	FASTCPU_ARCH_LANDING_PAD					\
	"\tadrp x16, " flag "\n"					\
	"\tmov w17, #1\n"						\
	"\tstrb w17, [x16, #:lo12:" flag "]\n"			\
	"\tb " target "\n"						\
	".size " name ", . - " name "\n"

/* A spinning waiter's hint (what the kernel's cpu_relax() gives arm64). */
#define FASTCPU_HAVE_PAUSE 1
static inline void fastcpu_arch_pause(void)
{
	__asm__ __volatile__("yield" : : : "memory");
}
