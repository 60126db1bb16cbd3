/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/x86.h: x86-64 and i386. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/x86.h"
#endif

#include <cpuid.h>
#include <stdbool.h>

#include "fastcpu/plumbing.h"

#define FASTCPU_VDSO_GETCPU	"__vdso_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_2.6"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6"

#define FASTCPU_HAVE_RDPID	1

/* The TCB's first word is the thread pointer itself (the x86 TLS ABI);
 * gcc before 11 has no __builtin_thread_pointer() here. */
#define FASTCPU_HAVE_THREAD_POINTER 1
static inline void *fastcpu_arch_thread_pointer(void)
{
	void *tp;

#ifdef __x86_64__
	__asm__("mov %%fs:0, %0" : "=r"(tp));
#else
	__asm__("mov %%gs:0, %0" : "=r"(tp));
#endif
	return tp;
}

/*
 * An exported entry point's answer leaves by one store to the function's
 * own stack. A called function that stores nothing made a locked
 * instruction after its return (an atomic add on the answer's shard, the
 * way per-CPU code uses it) wait about 1.7 ns longer on AMD Zen 2 and
 * later, which forward the call's push of the return address to the ret's
 * load by memory renaming; any one store between the two removes the wait
 * (measured: bench's latency table, rows "leaf, no store" and "leaf, one
 * store"). Where no renaming happens (Zen 1, and the store costs nothing
 * in a loop of calls) it is a store to a line the call wrote anyway.
 */
#define FASTCPU_HAVE_ANSWER 1
static inline int fastcpu_arch_answer(int value)
{
	int kept;

	__asm__ volatile("movl %1, %0" : "=m"(kept) : "r"(value));
	return value;
}

/*
 * An exported function that marks a byte and jumps to target, using no
 * stack and no callee-saved register: a vfork() wrapper must not return
 * twice through a frame of its own (task-tls.c). x86-64 only: i386's PLT
 * wants %ebx. endbr64 where the objects are built for IBT.
 */
#ifdef __x86_64__
# if defined(__CET__) && (__CET__ & 1)
#  define FASTCPU_ARCH_LANDING_PAD "\tendbr64\n"
# else
#  define FASTCPU_ARCH_LANDING_PAD ""
# endif
# define FASTCPU_ARCH_MARK_AND_JUMP(name, flag, target)			\
	".text\n.globl " name "\n"			\
	".type " name ", @function\n.p2align 4\n" name ":\n"		\
	FASTCPU_ARCH_LANDING_PAD					\
	"\tmovb $1, " flag "(%rip)\n"					\
	"\tjmp " target "@PLT\n"					\
	".size " name ", . - " name "\n"
#endif

/* RDPID: CPUID.(EAX=7,ECX=0):ECX bit 22. */
static inline bool fastcpu_arch_has_rdpid(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return ecx & (1u << 22);
}

/* TSC_AUX, as <fastcpu/plumbing.h> reads it for the inline operations. */
static inline unsigned long fastcpu_arch_rdpid(void)
{
	return fastcpu_rdpid_();
}

#ifdef __x86_64__
# define FASTCPU_HAVE_GETCPU_SYSCALL 1
static inline long fastcpu_arch_getcpu_syscall(unsigned int *cpu, unsigned int *node)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(309L /* __NR_getcpu */), "D"(cpu), "S"(node), "d"(0L)
			 : "rcx", "r11", "memory");
	return ret;
}
#endif

/* A spinning waiter's hint: the core may run its other hardware thread. */
#define FASTCPU_HAVE_PAUSE 1
static inline void fastcpu_arch_pause(void)
{
	__asm__ __volatile__("pause" : : : "memory");
}
