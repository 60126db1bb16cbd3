/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/slice.c: the kernel's time-slice extension, for the per-CPU lock's holder. */

#include <sys/syscall.h>

#include "internal.h"
#include "kernel.h"
#include "rseq-abi.h"
#include "slice.h"
#include "util.h"

/*
 * Linux 7.0 can let a thread run a few microseconds past a preemption
 * while it holds a user-space lock (CONFIG_RSEQ_SLICE_EXTENSION; the
 * protocol in the kernel's Documentation/userspace-api/rseq.rst): the
 * thread sets the request byte of its area's slice_ctrl, and if the kernel
 * granted an extension it gives the CPU back with rseq_slice_yield() after
 * unlocking. <fastcpu/percpu.h>'s lock and unlock do both, inline, where the
 * thread's area has the kernel's "enabled" bit, read from its flags (the
 * kernel's word, never written here). This file enables it, per thread,
 * only where the kernel says it is there: the library's own areas are
 * registered enabled (a registration flag every kernel that knows the
 * field accepts); a thread on glibc's area (2.41 and later registers one
 * long enough) is enabled with a prctl() when its area says available and
 * not enabled; another owner's areas are left as their owner set them.
 */
_Static_assert(FASTCPU_RSEQ_SLICE_REQUEST - offsetof(struct fastcpu_rseq_abi, cpu_id) ==
	       FASTCPU_RSEQ_REQUEST_FROM_CPU_ID_, "<fastcpu/percpu.h>'s request byte");
_Static_assert(FASTCPU_RSEQ_SLICE_GRANTED - offsetof(struct fastcpu_rseq_abi, cpu_id) ==
	       FASTCPU_RSEQ_GRANTED_FROM_CPU_ID_, "<fastcpu/percpu.h>'s granted byte");
_Static_assert(offsetof(struct fastcpu_rseq_abi, flags) - offsetof(struct fastcpu_rseq_abi, cpu_id) ==
	       FASTCPU_RSEQ_FLAGS_FROM_CPU_ID_, "<fastcpu/percpu.h>'s flags word");
_Static_assert(FASTCPU_RSEQ_SLICE_ENABLED == FASTCPU_RSEQ_SLICE_ENABLED_,
	       "<fastcpu/percpu.h>'s enabled bit");

unsigned int fastcpu_slice_registration_flags(unsigned int length)
{
#ifdef FASTCPU_NR_RSEQ_SLICE_YIELD
	if (length > FASTCPU_RSEQ_ORIG_SIZE &&
	    fastcpu_rseq_kernel().feature_size >= FASTCPU_RSEQ_SLICE_FEATURE_SIZE)
		return FASTCPU_RSEQ_FLAG_SLICE_DEFAULT_ON;
#endif
	(void)length;
	return 0;
}

void fastcpu_slice_enable(const volatile int *cpu_id)
{
#ifdef FASTCPU_NR_RSEQ_SLICE_YIELD
	uint32_t flags = fastcpu_area_of(cpu_id)->flags;

	if ((flags & FASTCPU_RSEQ_SLICE_AVAILABLE) && !(flags & FASTCPU_RSEQ_SLICE_ENABLED))
		(void)fastcpu_raw_syscall_errno(SYS_prctl, FASTCPU_PR_RSEQ_SLICE_EXTENSION,
						FASTCPU_PR_RSEQ_SLICE_SET,
						FASTCPU_PR_RSEQ_SLICE_ENABLE, 0);
#else
	(void)cpu_id;
#endif
}

/* After an unlock that found its extension granted: errno kept. */
FASTCPU_EXPORT void fastcpu_percpu_slice_yield_out_of_line(void)
{
#ifdef FASTCPU_NR_RSEQ_SLICE_YIELD
	(void)fastcpu_raw_syscall_errno(FASTCPU_NR_RSEQ_SLICE_YIELD, 0, 0, 0, 0);
#endif
}
