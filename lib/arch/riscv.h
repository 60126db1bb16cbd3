/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/riscv.h: riscv64. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/riscv.h"
#endif

#define FASTCPU_RSEQ_SIG	0xf1401073	/* csrr mhartid, x0 */
#define FASTCPU_VDSO_GETCPU	"__vdso_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_4.15"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_4.15"
