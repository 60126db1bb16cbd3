/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/arch/riscv.h: riscv64. */

#ifndef FASTCPU_ARCH_DISPATCH
# error "include arch.h, not arch/riscv.h"
#endif

#include <stdint.h>

/* No FASTCPU_VDSO_GETCPU: the riscv vDSO's __vdso_getcpu is the system call
 * itself (li a7, __NR_getcpu; ecall), so the cached syscall beats it. */
#define FASTCPU_VDSO_CLOCK_GETTIME	"__vdso_clock_gettime"
#define FASTCPU_VDSO_CLOCK_VERSION	"LINUX_4.15"

#if __riscv_xlen == 64
/* The time CSR; its frequency is the device tree's timebase-frequency
 * (tick.c), without which the cache uses the coarse clock. */
# define FASTCPU_HAVE_COUNTER 1
static inline uint64_t fastcpu_arch_counter(void)
{
	uint64_t v;

	__asm__ volatile("rdtime %0" : "=r"(v));
	return v;
}
#endif

/* A spinning waiter's hint: Zihintpause's pause, spelled as the fence it is
 * encoded as (no predecessor set but W, no successor): a no-op where the
 * extension is missing. */
#define FASTCPU_HAVE_PAUSE 1
static inline void fastcpu_arch_pause(void)
{
	__asm__ __volatile__(".4byte 0x0100000f" : : : "memory");
}
