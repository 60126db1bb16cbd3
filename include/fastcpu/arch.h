/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/arch.h: the architecture, named once for the header and the library. */

#ifndef FASTCPU_ARCH_NAME_H
#define FASTCPU_ARCH_NAME_H

/*
 * Not an API. One name per architecture, the same in both places that
 * depend on it: <fastcpu/rseq/NAME.h>, the restartable sequences this
 * header runs inline, and the library's lib/arch/NAME.h, what it asks the
 * machine directly. Neither picks for itself.
 */
#if defined(__x86_64__) || defined(__i386__)
# define FASTCPU_ARCH_X86 1
#elif defined(__aarch64__)
# define FASTCPU_ARCH_AARCH64 1
#elif defined(__powerpc__) || defined(__powerpc64__)
# define FASTCPU_ARCH_POWERPC 1
#elif defined(__s390__) || defined(__s390x__)
# define FASTCPU_ARCH_S390 1
#elif defined(__riscv)
# define FASTCPU_ARCH_RISCV 1
#elif defined(__loongarch__)
# define FASTCPU_ARCH_LOONGARCH 1
#endif

#endif /* FASTCPU_ARCH_NAME_H */
