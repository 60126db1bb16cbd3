/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq.h: the per-CPU operations' critical sections. */

#ifndef FASTCPU_RSEQ_H
#define FASTCPU_RSEQ_H

#ifndef FASTCPU_PLUMBING_H
# error "include <fastcpu.h>, not <fastcpu/rseq.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#include "fastcpu/arch.h"

/*
 * Each file included below (fastcpu/rseq/NAME.h, NAME fastcpu/arch.h's)
 * writes the six restartable sequences for one architecture, from the
 * kernel's rseq ABI (Documentation/userspace-api/rseq.rst): a struct
 * rseq_cs descriptor (version 0, flags 0, the start address, the length,
 * the abort address; aligned to 32) in section __rseq_cs; its address
 * stored in the area's rseq_cs field by the last instruction before the
 * start, so that no instruction boundary lies between "announced" and
 * "inside"; the signature the library registers in the 4 bytes before the
 * abort address, which lies outside the sequence; the commit as the
 * sequence's last instruction; no system call inside. After the sequence
 * rseq_cs is set back to 0: the kernel then has nothing to look at on the
 * thread's next preemption, and an object using these inline can be
 * unloaded. A sequence left early (its index moved, its list full) leaves
 * it set, outside the sequence, where the kernel clears it: the callers run
 * another sequence to its end before they return.
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
 *   fastcpu_rseq_add_return_(cpu_at, index_at, index, slot, value, old):
 *	*old = *slot, and adds value to *slot: the counter tree's leaf, whose
 *	carry the value before and after tell (<fastcpu/counter-tree.h>).
 *   fastcpu_rseq_cmpstore_(cpu_at, index_at, index, slot, expect, newv,
 *			    seen, acquire):
 *	*seen = *slot; if it was expect, stores newv there; with acquire (a
 *	constant), the read is ordered before every later load and store.
 *   fastcpu_rseq_pop_(cpu_at, index_at, index, slot, offset, seen):
 *	*seen = *slot; if not 0 (a node), stores in *slot the word at
 *	node + offset (the next node).
 *   fastcpu_rseq_magazine_pop_(cpu_at, index_at, index, slot, mask, seen):
 *	*slot is a magazine's top: the address just past its last pointer (its
 *	first word's address when it is empty), in a magazine of mask + 1
 *	bytes aligned to that; or 0, no magazine. Where top & mask is not 0,
 *	*seen = the pointer at top - word and *slot = top - word (the commit);
 *	else it stores nothing and returns 2 (empty).
 *   fastcpu_rseq_magazine_push_(cpu_at, index_at, index, slot, node, mask):
 *	where *slot is not 0 and (top + word) & mask is not 0, stores node at
 *	top and *slot = top + word (the commit); else it stores nothing and
 *	returns 2 (full: a magazine's last word is never a pointer of it; or
 *	none). Neither reads or writes anything at a pointer it moves.
 *
 * Slots are intptr_t words. Where no file fits (another architecture, x32,
 * a compiler without asm goto, or a program that defines
 * FASTCPU_PERCPU_OUT_OF_LINE), FASTCPU_RSEQ_INLINE stays undefined and
 * every operation calls the library.
 */
/*
 * The signature the 4 bytes before every abort handler hold, which whoever
 * registers a thread's area gives the kernel: per architecture, by the
 * convention glibc, librseq and the kernel's selftests share (an
 * instruction that traps). Two forms: FASTCPU_RSEQ_SIGNATURE, the value
 * registered, which the kernel compares with the 4 bytes it loads as data;
 * and the code form the sequences emit. They differ on aarch64_be only,
 * where instructions are stored little-endian and data big-endian.
 */
#if defined(FASTCPU_ARCH_X86)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0x53053053	/* in ud1 0x53053053(%rip),%edi */
#elif defined(FASTCPU_ARCH_AARCH64)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0xd428bc00	/* brk #0x45e0 */
# ifdef __AARCH64EB__
#  define FASTCPU_RSEQ_SIGNATURE 0x00bc28d4
# endif
#elif defined(FASTCPU_ARCH_POWERPC)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0x0fe5000b	/* twui r5, 11 */
#elif defined(FASTCPU_ARCH_S390)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0xb2ff0fff	/* trap4 */
#elif defined(FASTCPU_ARCH_RISCV)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0xf1401073	/* csrr mhartid, x0 */
#elif defined(FASTCPU_ARCH_LOONGARCH)
# define FASTCPU_RSEQ_SIGNATURE_CODE 0x002a0010	/* break 0x10 */
#else
# define FASTCPU_RSEQ_SIGNATURE_CODE 0x53053053	/* what the rest use */
#endif
#ifndef FASTCPU_RSEQ_SIGNATURE
# define FASTCPU_RSEQ_SIGNATURE FASTCPU_RSEQ_SIGNATURE_CODE
#endif
#define FASTCPU_RSEQ_STR2_(x) #x
#define FASTCPU_RSEQ_STR_(x) FASTCPU_RSEQ_STR2_(x)
#define FASTCPU_RSEQ_SIGNATURE_CODE_ FASTCPU_RSEQ_STR_(FASTCPU_RSEQ_SIGNATURE_CODE)

/*
 * A load of the word at p that the compiler takes for a function of p alone
 * (an asm with no memory operand): it may load once per function and keep
 * the value, as the published offsets allow (<fastcpu.h>). Where no form is
 * written here, a plain load.
 */
#if defined(__GNUC__) || defined(__clang__)
# if defined(__x86_64__) || defined(__i386__)
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("mov (%1), %0" : "=r"(v) : "r"(p))
# elif defined(__aarch64__) && defined(__LP64__)
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("ldr %0, [%1]" : "=r"(v) : "r"(p))
# elif defined(__powerpc64__)
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("ld %0, 0(%1)" : "=r"(v) : "b"(p))
# elif defined(__s390x__)
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("lg %0, 0(%1)" : "=d"(v) : "a"(p))
# elif defined(__riscv) && __riscv_xlen == 64
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("ld %0, 0(%1)" : "=r"(v) : "r"(p))
# elif defined(__loongarch__) && defined(__LP64__)
#  define FASTCPU_INVARIANT_LOAD_(v, p) __asm__("ld.d %0, %1, 0" : "=r"(v) : "r"(p))
# endif
#endif

/*
 * asm goto: GCC 4.5 and later, clang 9 and later; a compiler without it
 * takes the library's out-of-line operations. GCC before 8.1 (at -O1) and
 * clang before 13.0.1 (at -O2) could miscompile code after an asm goto and
 * at its labels (GCC bug 103979, LLVM bug 52735, as librseq and the
 * kernel's selftests note): there a compiler barrier follows each.
 */
#if defined(__clang__)
# if __clang_major__ >= 9
#  define FASTCPU_RSEQ_ASM_GOTO 1
# endif
# if __clang_major__ < 13 || (__clang_major__ == 13 && __clang_minor__ == 0 && \
			      __clang_patchlevel__ < 1)
#  define FASTCPU_RSEQ_AFTER_ASM_GOTO_() __asm__ __volatile__("" : : : "memory")
# endif
#elif defined(__GNUC__)
# if __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5)
#  define FASTCPU_RSEQ_ASM_GOTO 1
# endif
# if __GNUC__ < 8 || (__GNUC__ == 8 && __GNUC_MINOR__ < 1)
#  define FASTCPU_RSEQ_AFTER_ASM_GOTO_() __asm__ __volatile__("" : : : "memory")
# endif
#endif
#ifndef FASTCPU_RSEQ_AFTER_ASM_GOTO_
# define FASTCPU_RSEQ_AFTER_ASM_GOTO_() ((void)0)
#endif

/* asm goto with outputs (valid where the asm falls through): GCC 11 and
 * later, clang 14 and later. A sequence that yields a value hands it over
 * in a register where one is written this way (FASTCPU_RSEQ_ASM_GOTO_
 * OUTPUT_), else through memory. */
#if defined(__clang__)
# if __clang_major__ >= 14
#  define FASTCPU_RSEQ_ASM_GOTO_OUTPUT_ 1
# endif
#elif defined(__GNUC__) && __GNUC__ >= 11
# define FASTCPU_RSEQ_ASM_GOTO_OUTPUT_ 1
#endif

/* A sequence's three outcomes, after its asm goto; and a fourth. */
#define FASTCPU_RSEQ_OUTCOMES_(aborted, moved)				\
	FASTCPU_RSEQ_AFTER_ASM_GOTO_();					\
	return 0;							\
aborted:								\
	FASTCPU_RSEQ_AFTER_ASM_GOTO_();					\
	return -1;							\
moved:									\
	FASTCPU_RSEQ_AFTER_ASM_GOTO_();					\
	return 1
#define FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full)		\
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);				\
full:									\
	FASTCPU_RSEQ_AFTER_ASM_GOTO_();					\
	return 2

/* Where this ABI of the architecture has sequences written: 64-bit
 * aarch64, riscv and s390, ppc64 with ELFv2 (not ELFv1's function
 * descriptors), x86-64 (not x32) and i386. */
#if !defined(FASTCPU_PERCPU_OUT_OF_LINE) && defined(FASTCPU_RSEQ_ASM_GOTO)
# if defined(FASTCPU_ARCH_X86) && (defined(__LP64__) || defined(__i386__))
#  include "fastcpu/rseq/x86.h"
# elif defined(FASTCPU_ARCH_AARCH64) && defined(__LP64__)
#  include "fastcpu/rseq/aarch64.h"
# elif defined(FASTCPU_ARCH_POWERPC) && defined(__powerpc64__) && defined(_CALL_ELF) && \
	_CALL_ELF == 2
#  include "fastcpu/rseq/powerpc.h"
# elif defined(FASTCPU_ARCH_S390) && defined(__s390x__)
#  include "fastcpu/rseq/s390.h"
# elif defined(FASTCPU_ARCH_RISCV) && __riscv_xlen == 64
#  include "fastcpu/rseq/riscv.h"
# endif
#endif

#endif /* FASTCPU_RSEQ_H */
