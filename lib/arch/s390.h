/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/s390.h: s390x. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/s390.h"
#endif

#define FASTCPU_VDSO_GETCPU	"__kernel_getcpu"
#define FASTCPU_VDSO_VERSION	"LINUX_2.6.29"
#define FASTCPU_VDSO_CLOCK_GETTIME	"__kernel_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_2.6.29"
