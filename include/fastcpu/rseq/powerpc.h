/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq/powerpc.h: the critical sections on ppc64el (ELFv2). */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq/powerpc.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/* Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler, in
 * section __rseq_failure behind the signature, the instruction twui r5,11.
 * The descriptor's address is taken from the code's own (bcl 20,31, the
 * form the branch predictor does not count as a call): position-independent
 * without the TOC. r9 to r11 are the scratch. Address operands use "b": r0
 * as a base register reads as 0. The sequence begins by checking that the
 * index it was given is still the thread's (a conditional branch reaches
 * 32 KiB: an unconditional one leaves). */
#define FASTCPU_PPC_SEQUENCE_(body, after)				\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"	\
	"bcl 20, 31, 5f\n5:\n\tmflr %%r9\n\t"				\
	"addis %%r9, %%r9, (3b - 5b)@ha\n\t"				\
	"addi %%r9, %%r9, (3b - 5b)@l\n\t"				\
	"std %%r9, 4(%[cpu_at])\n"					\
	"1:\n\tlwz %%r10, 0(%[index_at])\n\tcmpw %%r10, %[index]\n\t"	\
	"beq+ 6f\n\tb %l[moved]\n6:\n\t" body				\
	"2:\n\t" after "li %%r9, 0\n\tstd %%r9, 4(%[cpu_at])\n\t"	\
	".pushsection __rseq_failure, \"ax\"\n\t.long " FASTCPU_RSEQ_SIGNATURE_CODE_ \
	"\n4:\n\tb %l[aborted]\n\t.popsection\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, intptr_t value)
{
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(
			"ld %%r11, 0(%[slot])\n\t"
			"add %%r11, %%r11, %[value]\n\t"
			"std %%r11, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),
		       [index] "r"(index), [slot] "b"(slot), [value] "r"(value)
		     : "memory", "cr0", "r9", "r10", "r11", "lr"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_add_return_(const volatile int *cpu_at,
					       const volatile int *index_at, int index,
					       intptr_t *slot, intptr_t value, intptr_t *old)
{
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(
			"ld %%r11, 0(%[slot])\n\t"
			"std %%r11, 0(%[old])\n\t"
			"add %%r11, %%r11, %[value]\n\t"
			"std %%r11, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),
		       [index] "r"(index), [slot] "b"(slot), [value] "r"(value),
		       [old] "b"(old)
		     : "memory", "cr0", "r9", "r10", "r11", "lr"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

/* With acquire, lwsync after the commit: later loads and stores stay after
 * the slot's read. */
#define FASTCPU_PPC_CMPSTORE_(after)					\
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(				\
			"ld %%r11, 0(%[slot])\n\t"			\
			"std %%r11, 0(%[seen])\n\t"			\
			"cmpd %%r11, %[expect]\n\t"			\
			"bne- 2f\n\t"					\
			"std %[newv], 0(%[slot])\n", after)		\
		     : /* no outputs */					\
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),	\
		       [index] "r"(index), [slot] "b"(slot),		\
		       [expect] "r"(expect), [newv] "r"(newv), [seen] "b"(seen) \
		     : "memory", "cr0", "r9", "r10", "r11", "lr"	\
		     : aborted, moved)

static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen, int acquire)
{
	if (acquire)
		FASTCPU_PPC_CMPSTORE_("lwsync\n\t");
	else
		FASTCPU_PPC_CMPSTORE_("");
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_pop_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, size_t offset,
					intptr_t *seen)
{
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(
			"ld %%r11, 0(%[slot])\n\t"
			"std %%r11, 0(%[seen])\n\t"
			"cmpdi %%r11, 0\n\t"
			"beq- 2f\n\t"
			"ldx %%r11, %%r11, %[offset]\n\t"
			"std %%r11, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),
		       [index] "r"(index), [slot] "b"(slot),
		       [offset] "r"(offset), [seen] "b"(seen)
		     : "memory", "cr0", "r9", "r10", "r11", "lr"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_magazine_pop_(const volatile int *cpu_at,
						  const volatile int *index_at, int index,
						  intptr_t *slot, uintptr_t mask, intptr_t *seen)
{
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(
			"ld %%r11, 0(%[slot])\n\t"
			"and. %%r10, %%r11, %[mask]\n\t"
			"bne+ 7f\n\t"
			"b %l[empty]\n"
			"7:\n\tld %%r10, -8(%%r11)\n\t"
			"std %%r10, 0(%[seen])\n\t"
			"addi %%r11, %%r11, -8\n\t"
			"std %%r11, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),
		       [index] "r"(index), [slot] "b"(slot), [mask] "r"(mask),
		       [seen] "b"(seen)
		     : "memory", "cr0", "r9", "r10", "r11", "lr"
		     : aborted, moved, empty);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
}

static __inline__ int fastcpu_rseq_magazine_push_(const volatile int *cpu_at,
						   const volatile int *index_at, int index,
						   intptr_t *slot, void *node, uintptr_t mask)
{
	__asm__ goto(FASTCPU_PPC_SEQUENCE_(
			"ld %%r11, 0(%[slot])\n\t"
			"cmpdi %%r11, 0\n\t"
			"beq- 8f\n\t"
			"addi %%r11, %%r11, 8\n\t"
			"and. %%r10, %%r11, %[mask]\n\t"
			"bne+ 7f\n"
			"8:\n\tb %l[full]\n"
			"7:\n\tstd %[node], -8(%%r11)\n\t"
			"std %%r11, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "b"(cpu_at), [index_at] "b"(index_at),
		       [index] "r"(index), [slot] "b"(slot), [node] "r"(node),
		       [mask] "r"(mask)
		     : "memory", "cr0", "r9", "r10", "r11", "lr"
		     : aborted, moved, full);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full);
}
