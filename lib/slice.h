/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/slice.h: the kernel's time-slice extension. */

#ifndef FASTCPU_SLICE_H
#define FASTCPU_SLICE_H

/* The kernel's time-slice extension for lock holders (slice.c): the
 * flags the library's own area is registered with (its length), and the
 * enabling of a thread on glibc's area, where the kernel offers it. */
unsigned int fastcpu_slice_registration_flags(unsigned int length);
void fastcpu_slice_enable(const volatile int *cpu_id);

#endif /* FASTCPU_SLICE_H */
