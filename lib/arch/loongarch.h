/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/loongarch.h: loongarch64. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/loongarch.h"
#endif

#define FASTCPU_VDSO_GETCPU	"__vdso_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_5.10"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_5.10"
