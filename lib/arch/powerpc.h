/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/powerpc.h: ppc64 and ppc. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/powerpc.h"
#endif

#define FASTCPU_RSEQ_SIG	0x0fe5000b
#define FASTCPU_VDSO_GETCPU	"__kernel_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_2.6.15"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6.15"
