/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch.h: the machine hooks of the architecture <fastcpu/arch.h> names. */

#ifndef FASTCPU_ARCH_H
#define FASTCPU_ARCH_H

/*
 * Each arch/ file defines what its architecture has:
 *   FASTCPU_VDSO_GETCPU     the vDSO symbol name and FASTCPU_VDSO_VERSION its
 *                           version, where the kernel has a vDSO getcpu;
 *   FASTCPU_VDSO_CLOCK_GETTIME and FASTCPU_VDSO_CLOCK_VERSION likewise for
 *                           clock_gettime, which the cache reads;
 *   FASTCPU_HAVE_RDPID 1    and fastcpu_arch_rdpid()/fastcpu_arch_has_rdpid(),
 *                           where an instruction reads the CPU and node;
 *   FASTCPU_HAVE_COUNTER 1  and fastcpu_arch_counter(), a counter user mode
 *                           reads with one instruction, and
 *   FASTCPU_HAVE_COUNTER_HZ 1 and fastcpu_arch_counter_hz(), its frequency,
 *                           where an instruction or libc says it (else the
 *                           device tree's timebase-frequency, tick.c);
 *   FASTCPU_ARCH_MARK_AND_JUMP, the vfork/clone stub of task-tls.c;
 *   fastcpu_arch_pause(), a spinning waiter's hint to the CPU;
 *   fastcpu_arch_answer(), what an exported entry point does with its
 *                           answer on the way out (x86.h says why);
 *   fastcpu_arch_thread_pointer(), where the compiler's builtin lacks it;
 *   fastcpu_arch_getcpu_syscall(), the getcpu system call in line (libc's
 *                           syscall() is a variadic function around it).
 * What a file leaves out gets a definition below that says "not here", so
 * that code using it compiles, and is type-checked, on every architecture.
 * generic.h covers any other Linux architecture: rseq and the syscall only;
 * configure --enable-generic-arch selects it anywhere, to test exactly that.
 */
#include "fastcpu/arch.h"

#define FASTCPU_ARCH_DISPATCH
#if defined(FASTCPU_ARCH_GENERIC)
# include "arch/generic.h"
#elif defined(FASTCPU_ARCH_X86)
# include "arch/x86.h"
#elif defined(FASTCPU_ARCH_AARCH64)
# include "arch/aarch64.h"
#elif defined(FASTCPU_ARCH_POWERPC)
# include "arch/powerpc.h"
#elif defined(FASTCPU_ARCH_S390)
# include "arch/s390.h"
#elif defined(FASTCPU_ARCH_RISCV)
# include "arch/riscv.h"
#elif defined(FASTCPU_ARCH_LOONGARCH)
# include "arch/loongarch.h"
#else
# include "arch/generic.h"
#endif
#undef FASTCPU_ARCH_DISPATCH

#include <stdbool.h>
#include <stdint.h>


#ifndef FASTCPU_HAVE_RDPID
# define FASTCPU_HAVE_RDPID 0
static inline bool fastcpu_arch_has_rdpid(void)
{
	return false;
}

static inline unsigned long fastcpu_arch_rdpid(void)
{
	return 0;
}
#endif

#ifndef FASTCPU_HAVE_COUNTER
# define FASTCPU_HAVE_COUNTER 0
static inline uint64_t fastcpu_arch_counter(void)
{
	return 0;
}
#endif

#ifndef FASTCPU_HAVE_COUNTER_HZ
# define FASTCPU_HAVE_COUNTER_HZ 0
static inline uint64_t fastcpu_arch_counter_hz(void)
{
	return 0;
}
#endif

/* A spinning waiter's hint to the CPU (another hardware thread may use
 * the core meanwhile); nothing where the architecture has none. */
#ifndef FASTCPU_HAVE_PAUSE
static inline void fastcpu_arch_pause(void)
{
	__asm__ __volatile__("" : : : "memory");
}
#endif

#ifndef FASTCPU_HAVE_ANSWER
static inline int fastcpu_arch_answer(int value)
{
	return value;
}
#endif

/* The getcpu system call: 0, or -errno (errno untouched). */
#ifndef FASTCPU_HAVE_GETCPU_SYSCALL
# include <errno.h>
# include <sys/syscall.h>
# include <unistd.h>
static inline long fastcpu_arch_getcpu_syscall(unsigned int *cpu, unsigned int *node)
{
	int saved = errno;
	long ret = syscall(SYS_getcpu, cpu, node, (void *)0);

	if (ret != 0)
		ret = -errno;
	errno = saved;
	return ret;
}
#endif

/* The thread pointer glibc's __rseq_offset is relative to. */
#ifndef FASTCPU_HAVE_THREAD_POINTER
static inline void *fastcpu_arch_thread_pointer(void)
{
	return __builtin_thread_pointer();
}
#endif

#endif /* FASTCPU_ARCH_H */
