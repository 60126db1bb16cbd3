/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq/aarch64.h: the critical sections on arm64. */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq/aarch64.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/* Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler, in
 * section __rseq_failure behind the signature, the instruction BRK #0x45e0
 * (.inst: in instruction byte order, little-endian even on aarch64_be, whose
 * kernel reads it as data: rseq.h's two forms). x16 and x17, the
 * intra-procedure-call registers, are the scratch. The sequence begins by
 * checking that the index it was given is still the thread's. */
#define FASTCPU_A64_SEQUENCE_(body)					\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"	\
	"adrp x17, 3b\n\tadd x17, x17, :lo12:3b\n\t"			\
	"stur x17, [%[cpu_at], #4]\n"					\
	"1:\n\tldr w16, [%[index_at]]\n\tcmp w16, %w[index]\n\t"	\
	"b.ne %l[moved]\n\t" body					\
	"2:\n\tstur xzr, [%[cpu_at], #4]\n\t"				\
	".pushsection __rseq_failure, \"ax\"\n\t.inst " FASTCPU_RSEQ_SIGNATURE_CODE_ \
	"\n4:\n\tb %l[aborted]\n\t.popsection\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, intptr_t value)
{
	__asm__ goto(FASTCPU_A64_SEQUENCE_(
			"ldr x17, [%[slot]]\n\t"
			"add x17, x17, %[value]\n\t"
			"str x17, [%[slot]]\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [value] "r"(value)
		     : "memory", "cc", "x16", "x17"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_add_return_(const volatile int *cpu_at,
					       const volatile int *index_at, int index,
					       intptr_t *slot, intptr_t value, intptr_t *old)
{
	__asm__ goto(FASTCPU_A64_SEQUENCE_(
			"ldr x17, [%[slot]]\n\t"
			"str x17, [%[old]]\n\t"
			"add x17, x17, %[value]\n\t"
			"str x17, [%[slot]]\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [value] "r"(value),
		       [old] "r"(old)
		     : "memory", "cc", "x16", "x17"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

/* With acquire, the slot is read with ldar: later loads and stores stay
 * after it, without a barrier instruction. */
#define FASTCPU_A64_CMPSTORE_(load)					\
	__asm__ goto(FASTCPU_A64_SEQUENCE_(				\
			load " x17, [%[slot]]\n\t"			\
			"str x17, [%[seen]]\n\t"			\
			"cmp x17, %[expect]\n\t"			\
			"b.ne 2f\n\t"					\
			"str %[newv], [%[slot]]\n")			\
		     : /* no outputs */					\
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),	\
		       [index] "r"(index), [slot] "r"(slot),		\
		       [expect] "r"(expect), [newv] "r"(newv), [seen] "r"(seen) \
		     : "memory", "cc", "x16", "x17"			\
		     : aborted, moved)

static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen, int acquire)
{
	if (acquire)
		FASTCPU_A64_CMPSTORE_("ldar");
	else
		FASTCPU_A64_CMPSTORE_("ldr");
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_pop_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, size_t offset,
					intptr_t *seen)
{
	__asm__ goto(FASTCPU_A64_SEQUENCE_(
			"ldr x17, [%[slot]]\n\t"
			"str x17, [%[seen]]\n\t"
			"cbz x17, 2f\n\t"
			"ldr x17, [x17, %[offset]]\n\t"
			"str x17, [%[slot]]\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot),
		       [offset] "r"(offset), [seen] "r"(seen)
		     : "memory", "cc", "x16", "x17"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_magazine_pop_(const volatile int *cpu_at,
						  const volatile int *index_at, int index,
						  intptr_t *slot, uintptr_t mask, intptr_t *seen)
{
	__asm__ goto(FASTCPU_A64_SEQUENCE_(
			"ldr x17, [%[slot]]\n\t"
			"tst x17, %[mask]\n\t"
			"b.eq %l[empty]\n\t"
			"ldur x16, [x17, #-8]\n\t"
			"str x16, [%[seen]]\n\t"
			"sub x17, x17, #8\n\t"
			"str x17, [%[slot]]\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [mask] "r"(mask),
		       [seen] "r"(seen)
		     : "memory", "cc", "x16", "x17"
		     : aborted, moved, empty);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
}

static __inline__ int fastcpu_rseq_magazine_push_(const volatile int *cpu_at,
						   const volatile int *index_at, int index,
						   intptr_t *slot, void *node, uintptr_t mask)
{
	__asm__ goto(FASTCPU_A64_SEQUENCE_(
			"ldr x17, [%[slot]]\n\t"
			"cbz x17, %l[full]\n\t"
			"add x17, x17, #8\n\t"
			"tst x17, %[mask]\n\t"
			"b.eq %l[full]\n\t"
			"stur %[node], [x17, #-8]\n\t"
			"str x17, [%[slot]]\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [node] "r"(node),
		       [mask] "r"(mask)
		     : "memory", "cc", "x16", "x17"
		     : aborted, moved, full);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full);
}
