/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/generic.h: any other Linux architecture: rseq and the syscall. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/generic.h"
#endif
