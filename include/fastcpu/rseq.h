/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq.h: the per-CPU operations' critical sections. */

#ifndef FASTCPU_RSEQ_H
#define FASTCPU_RSEQ_H

#ifndef FASTCPU_H
# error "include <fastcpu.h>, not <fastcpu/rseq.h>"
#endif

#include <stddef.h>
#include <stdint.h>

/*
 * Each file included below writes three restartable sequences for one
 * architecture, from the kernel's rseq ABI (Documentation/userspace-api/
 * rseq.rst): a struct rseq_cs descriptor (version 0, flags 0, the start
 * address, the length, the abort address; aligned to 32) in section
 * __rseq_cs; its address stored in the area's rseq_cs field by the last
 * instruction before the start, so that no instruction boundary lies
 * between "announced" and "inside"; the signature the library registers
 * in the 4 bytes before the abort address, which lies outside the
 * sequence; the commit as the sequence's last instruction; no system call
 * inside. After the sequence rseq_cs is set back to 0: the kernel then has
 * nothing to look at on the thread's next preemption, and an object using
 * these inline can be unloaded.
 *
 * Each is a static inline function of the thread's area (cpu_at: its
 * cpu_id; rseq_cs follows 4 bytes later), the word it indexes by (index_at:
 * cpu_id or mm_cid), the index read from it before, and that index's slot;
 * the sequence first checks the index is still the thread's. Each returns
 * 0 when the sequence ran to its end, -1 when the kernel aborted it
 * (preemption, migration, signal), 1 when the index had changed before it
 * began: the caller computes the slot again and runs it again.
 *
 *   fastcpu_rseq_add_(cpu_at, index_at, index, slot, value):
 *	adds value to *slot.
 *   fastcpu_rseq_cmpstore_(cpu_at, index_at, index, slot, expect, newv, seen):
 *	*seen = *slot; if it was expect, stores newv there; an acquire fence.
 *   fastcpu_rseq_pop_(cpu_at, index_at, index, slot, offset, seen):
 *	*seen = *slot; if not 0 (a node), stores in *slot the word at
 *	node + offset (the next node).
 *
 * Where no file fits (another architecture, x32, or a program that defines
 * FASTCPU_PERCPU_OUT_OF_LINE), FASTCPU_RSEQ_INLINE stays undefined and every
 * operation calls the library.
 */
/* The signature the 4 bytes before every abort handler hold, which whoever
 * registers a thread's area gives the kernel: per architecture, by the
 * convention glibc, librseq and the kernel's selftests share (an
 * instruction that traps). */
#if defined(__x86_64__) || defined(__i386__)
# define FASTCPU_RSEQ_SIGNATURE 0x53053053	/* in ud1 0x53053053(%rip),%edi */
#elif defined(__aarch64__)
# define FASTCPU_RSEQ_SIGNATURE 0xd428bc00	/* brk #0x45e0 */
#elif defined(__powerpc__) || defined(__powerpc64__)
# define FASTCPU_RSEQ_SIGNATURE 0x0fe5000b	/* twui r5, 11 */
#elif defined(__s390__) || defined(__s390x__)
# define FASTCPU_RSEQ_SIGNATURE 0xb2ff0fff	/* trap4 */
#elif defined(__riscv)
# define FASTCPU_RSEQ_SIGNATURE 0xf1401073	/* csrr mhartid, x0 */
#elif defined(__loongarch__)
# define FASTCPU_RSEQ_SIGNATURE 0x002a0010	/* break 0x10 */
#else
# define FASTCPU_RSEQ_SIGNATURE 0x53053053	/* what the rest use */
#endif
#define FASTCPU_RSEQ_STR2_(x) #x
#define FASTCPU_RSEQ_STR_(x) FASTCPU_RSEQ_STR2_(x)
#define FASTCPU_RSEQ_SIGNATURE_ FASTCPU_RSEQ_STR_(FASTCPU_RSEQ_SIGNATURE)

#if !defined(FASTCPU_PERCPU_OUT_OF_LINE) && (defined(__GNUC__) || defined(__clang__))
# if (defined(__x86_64__) && defined(__LP64__)) || defined(__i386__)
#  include "fastcpu/rseq-x86.h"
# elif defined(__aarch64__) && defined(__LP64__)
#  include "fastcpu/rseq-aarch64.h"
# elif defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2
#  include "fastcpu/rseq-ppc64.h"
# elif defined(__s390x__)
#  include "fastcpu/rseq-s390x.h"
# elif defined(__riscv) && __riscv_xlen == 64
#  include "fastcpu/rseq-riscv64.h"
# endif
#endif

#endif /* FASTCPU_RSEQ_H */
