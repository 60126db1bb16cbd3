/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq-x86.h: the critical sections on x86-64 and i386. */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq-x86.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/*
 * Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler, in
 * section __rseq_failure behind the signature, which the three bytes before
 * it make the undefined instruction ud1 0x53053053(%rip),%edi for a
 * disassembler. i386 code that must be position-independent takes the
 * descriptor's address from its own (call, pop): a movl of an absolute
 * address would need a relocation in the text. CX is the one scratch
 * register: i386 has no more to spare. i386 code built without
 * optimisation, position-independent, keeps BP and BX for itself and leaves
 * five registers: there the index and the new value may be in memory and
 * pass through CX, so no sequence needs more than four registers of its own.
 */
#ifdef __x86_64__
# define FASTCPU_X86_W_ "q"
# define FASTCPU_X86_CX_ "%%rcx"
# define FASTCPU_X86_DESCRIPTOR_ ".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t"
# define FASTCPU_X86_ANNOUNCE_ \
	"leaq 3b(%%rip), %%rcx\n\tmovq %%rcx, 4(%[cpu_at])\n"
# define FASTCPU_X86_ANY_ "er"	/* a register or an immediate */
# define FASTCPU_X86_INDEX_ "r"
# define FASTCPU_X86_CHECK_INDEX_ "cmpl %[index], (%[index_at])\n\t"
# define FASTCPU_X86_NEWV_ FASTCPU_X86_ANY_
# define FASTCPU_X86_STORE_NEWV_ "movq %[newv], (%[slot])\n"
#else
# define FASTCPU_X86_W_ "l"
# define FASTCPU_X86_CX_ "%%ecx"
# define FASTCPU_X86_DESCRIPTOR_ ".long 0, 0, 1f, 0, 2f - 1f, 0, 4f, 0\n\t"
# ifdef __PIC__
#  define FASTCPU_X86_ANNOUNCE_ \
	"call 5f\n5:\n\tpopl %%ecx\n\tleal 3b-5b(%%ecx), %%ecx\n\t" \
	"movl %%ecx, 4(%[cpu_at])\n"
# else
#  define FASTCPU_X86_ANNOUNCE_ "movl $3b, 4(%[cpu_at])\n"
# endif
# define FASTCPU_X86_ANY_ "ri"
# define FASTCPU_X86_INDEX_ "g"
# define FASTCPU_X86_CHECK_INDEX_ \
	"movl (%[index_at]), %%ecx\n\tcmpl %[index], %%ecx\n\t"
# define FASTCPU_X86_NEWV_ "g"
# define FASTCPU_X86_STORE_NEWV_ "movl %[newv], %%ecx\n\tmovl %%ecx, (%[slot])\n"
#endif

/* The sequence begins by checking that the index it was given is still the
 * thread's: the thread may have moved before the sequence began. */
#define FASTCPU_X86_SEQUENCE_(body)					\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	FASTCPU_X86_DESCRIPTOR_ ".popsection\n\t"			\
	FASTCPU_X86_ANNOUNCE_						\
	"1:\n\t" FASTCPU_X86_CHECK_INDEX_ "jne %l[moved]\n\t" body	\
	"2:\n\tmov" FASTCPU_X86_W_ " $0, 4(%[cpu_at])\n\t"		\
	".pushsection __rseq_failure, \"ax\"\n\t"			\
	".byte 0x0f, 0xb9, 0x3d\n\t.long " FASTCPU_RSEQ_SIGNATURE_ "\n4:\n\t" \
	"jmp %l[aborted]\n\t.popsection\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					long *slot, long value)
{
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"add" FASTCPU_X86_W_ " %[value], (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [value] FASTCPU_X86_ANY_(value)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	return 0;
aborted:
	return -1;
moved:
	return 1;
}

static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen)
{
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", (%[seen])\n\t"
			"cmp" FASTCPU_X86_W_ " %[expect], " FASTCPU_X86_CX_ "\n\t"
			"jne 2f\n\t"
			FASTCPU_X86_STORE_NEWV_)
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [expect] "g"(expect), [newv] FASTCPU_X86_NEWV_(newv),
		       [seen] "r"(seen)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	return 0;	/* x86 orders loads after this store already */
aborted:
	return -1;
moved:
	return 1;
}

static __inline__ int fastcpu_rseq_pop_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, size_t offset,
					intptr_t *seen)
{
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", (%[seen])\n\t"
			"test" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", " FASTCPU_X86_CX_ "\n\t"
			"jz 2f\n\t"
			"add" FASTCPU_X86_W_ " %[offset], " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " (" FASTCPU_X86_CX_ "), " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [offset] "g"(offset), [seen] "r"(seen)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	return 0;
aborted:
	return -1;
moved:
	return 1;
}
