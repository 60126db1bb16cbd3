/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/aarch64.h: arm64 has no vDSO getcpu: rseq or the syscall. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/aarch64.h"
#endif

#define FASTCPU_RSEQ_SIG	0xd428bc00	/* BRK #0x45E0 */
#define FASTCPU_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6.39"
