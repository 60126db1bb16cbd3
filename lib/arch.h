/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch.h: the one place that picks the per-architecture definitions. */

#ifndef FASTCPU_ARCH_H
#define FASTCPU_ARCH_H

/*
 * Each arch/ file defines:
 *   FASTCPU_RSEQ_SIG        the rseq signature glibc and the kernel selftests
 *                           use on that architecture;
 *   FASTCPU_VDSO_GETCPU     the vDSO symbol name and FASTCPU_VDSO_VERSION its
 *                           version, where the kernel has a vDSO getcpu;
 *   FASTCPU_VDSO_CLOCK_GETTIME and FASTCPU_VDSO_CLOCK_VERSION likewise for
 *                           clock_gettime, which the cache reads;
 *   FASTCPU_HAVE_RDPID      and fastcpu_arch_rdpid()/fastcpu_arch_has_rdpid(),
 *                           where an instruction reads the CPU and node.
 *   fastcpu_arch_thread_pointer(), where the compiler's builtin lacks it.
 * generic.h covers any other Linux architecture: rseq and the syscall only;
 * configure --enable-generic-arch selects it anywhere, to test exactly that.
 */
#define FASTCPU_ARCH_DISPATCH
#if defined(FASTCPU_ARCH_GENERIC)
# include "arch/generic.h"
#elif defined(__x86_64__) || defined(__i386__)
# include "arch/x86.h"
#elif defined(__aarch64__)
# include "arch/aarch64.h"
#elif defined(__powerpc__) || defined(__powerpc64__)
# include "arch/powerpc.h"
#elif defined(__s390__) || defined(__s390x__)
# include "arch/s390.h"
#elif defined(__riscv)
# include "arch/riscv.h"
#elif defined(__loongarch__)
# include "arch/loongarch.h"
#else
# include "arch/generic.h"
#endif
#undef FASTCPU_ARCH_DISPATCH

#ifndef FASTCPU_RSEQ_SIG
# define FASTCPU_RSEQ_SIG 0x53053053
#endif

/* The thread pointer glibc's __rseq_offset is relative to. */
#ifndef FASTCPU_HAVE_THREAD_POINTER
static inline void *fastcpu_arch_thread_pointer(void)
{
	return __builtin_thread_pointer();
}
#endif

#endif /* FASTCPU_ARCH_H */
