/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq/x86.h: the critical sections on x86-64 and i386. */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq/x86.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/*
 * Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler, in
 * section __rseq_failure behind the signature, which the three bytes before
 * it make the undefined instruction ud1 0x53053053(%rip),%edi for a
 * disassembler. i386 code that must be position-independent takes the
 * descriptor's address from a thunk that returns its caller's address (a
 * call that returns, so the return predictor stays in step; one copy per
 * program, a COMDAT group): a movl of an absolute address would need a
 * relocation in the text. CX is the one scratch register: i386 has no more
 * to spare. i386 code built without optimisation, position-independent,
 * keeps BP and BX for itself and leaves five registers: there the index,
 * the expected and the new value may be in memory and pass through CX, so
 * no sequence needs more than four registers of its own. x86-64 operands
 * that may be constants are "er": an immediate only where it fits the
 * instruction's sign-extended 32 bits (0x100000000 or 0xffffffff go in a
 * register). x86 orders every load and store after the loads before them:
 * acquire costs nothing.
 */
#ifdef __x86_64__
# define FASTCPU_X86_W_ "q"
# define FASTCPU_X86_WORD_ 8
# define FASTCPU_X86_CX_ "%%rcx"
# define FASTCPU_X86_DESCRIPTOR_ ".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t"
# define FASTCPU_X86_ANNOUNCE_ \
	"leaq 3b(%%rip), %%rcx\n\tmovq %%rcx, 4(%[cpu_at])\n"
/* Operands that meet a memory operand, then those that meet a register. */
# define FASTCPU_X86_ANY_ "er"
# define FASTCPU_X86_SOURCE_ "er"
# define FASTCPU_X86_NEWV_ FASTCPU_X86_ANY_
# define FASTCPU_X86_INDEX_ "r"
# define FASTCPU_X86_CHECK_INDEX_ "cmpl %[index], (%[index_at])\n\t"
# define FASTCPU_X86_STORE_NEWV_ "movq %[newv], (%[slot])\n"
#else
# define FASTCPU_X86_W_ "l"
# define FASTCPU_X86_WORD_ 4
# define FASTCPU_X86_CX_ "%%ecx"
# define FASTCPU_X86_DESCRIPTOR_ ".long 0, 0, 1f, 0, 2f - 1f, 0, 4f, 0\n\t"
# ifdef __PIC__
__asm__(".pushsection .text.fastcpu_rseq_pc_thunk_cx_, \"axG\", @progbits, "
	"fastcpu_rseq_pc_thunk_cx_, comdat\n\t"
	".globl fastcpu_rseq_pc_thunk_cx_\n\t.hidden fastcpu_rseq_pc_thunk_cx_\n\t"
	".type fastcpu_rseq_pc_thunk_cx_, @function\n"
	"fastcpu_rseq_pc_thunk_cx_:\n\tmovl (%esp), %ecx\n\tret\n\t"
	".size fastcpu_rseq_pc_thunk_cx_, . - fastcpu_rseq_pc_thunk_cx_\n\t"
	".popsection");
#  define FASTCPU_X86_ANNOUNCE_ \
	"call fastcpu_rseq_pc_thunk_cx_\n5:\n\tleal 3b-5b(%%ecx), %%ecx\n\t" \
	"movl %%ecx, 4(%[cpu_at])\n"
# else
#  define FASTCPU_X86_ANNOUNCE_ "movl $3b, 4(%[cpu_at])\n"
# endif
# define FASTCPU_X86_ANY_ "ri"
# define FASTCPU_X86_SOURCE_ "g"
# define FASTCPU_X86_NEWV_ FASTCPU_X86_SOURCE_	/* through CX */
# define FASTCPU_X86_INDEX_ "g"
# define FASTCPU_X86_CHECK_INDEX_ \
	"movl (%[index_at]), %%ecx\n\tcmpl %[index], %%ecx\n\t"
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
	".byte 0x0f, 0xb9, 0x3d\n\t.long " FASTCPU_RSEQ_SIGNATURE_CODE_ "\n4:\n\t" \
	"jmp %l[aborted]\n\t.popsection\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, intptr_t value)
{
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"add" FASTCPU_X86_W_ " %[value], (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [value] FASTCPU_X86_ANY_(value)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

/* The value before in a register where the compiler takes asm goto's
 * outputs (x86-64: i386 has none to spare), else through memory. x86-64
 * reads the slot, then adds to it in memory as fastcpu_rseq_add_ does: the
 * sum formed in a register and stored cost a Zen 5 0.14 ns more an add.
 * i386 passes the value through CX, which may come from memory. */
static __inline__ int fastcpu_rseq_add_return_(const volatile int *cpu_at,
					       const volatile int *index_at, int index,
					       intptr_t *slot, intptr_t value, intptr_t *old)
{
#if defined(FASTCPU_RSEQ_ASM_GOTO_OUTPUT_) && defined(__x86_64__)
	/* Volatile: GCC bug 113921. */
	intptr_t was;

	__asm__ __volatile__ goto(FASTCPU_X86_SEQUENCE_(
			"movq (%[slot]), %[was]\n\t"
			"addq %[value], (%[slot])\n")
		     : [was] "=&r"(was)
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [value] FASTCPU_X86_ANY_(value)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	*old = was;
#elif defined(__x86_64__)
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"movq (%[slot]), %%rcx\n\t"
			"movq %%rcx, (%[old])\n\t"
			"addq %[value], (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [value] FASTCPU_X86_ANY_(value), [old] "r"(old)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
#else
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"movl (%[slot]), %%ecx\n\t"
			"movl %%ecx, (%[old])\n\t"
			"addl %[value], %%ecx\n\t"
			"movl %%ecx, (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [value] FASTCPU_X86_SOURCE_(value), [old] "r"(old)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
#endif
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

/* acquire: nothing to add on x86. */
static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen, int acquire)
{
	(void)acquire;
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", (%[seen])\n\t"
			"cmp" FASTCPU_X86_W_ " %[expect], " FASTCPU_X86_CX_ "\n\t"
			"jne 2f\n\t"
			FASTCPU_X86_STORE_NEWV_)
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [expect] FASTCPU_X86_SOURCE_(expect), [newv] FASTCPU_X86_NEWV_(newv),
		       [seen] "r"(seen)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
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
		       [offset] FASTCPU_X86_SOURCE_(offset), [seen] "r"(seen)
		     : "memory", "cc", "ecx"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_magazine_pop_(const volatile int *cpu_at,
						  const volatile int *index_at, int index,
						  intptr_t *slot, uintptr_t mask, intptr_t *seen)
{
#if defined(FASTCPU_RSEQ_ASM_GOTO_OUTPUT_) && defined(__x86_64__)
	/* The object in a register, not through memory: the caller's next
	 * instruction uses it at once. Volatile: GCC bug 113921. */
	intptr_t object;

	__asm__ __volatile__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), %[object]\n\t"
			"test" FASTCPU_X86_W_ " %[mask], %[object]\n\t"
			"jz %l[empty]\n\t"
			"mov" FASTCPU_X86_W_ " -" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_)
			"(%[object]), %[object]\n\t"
			"sub" FASTCPU_X86_W_ " $" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_) ", (%[slot])\n")
		     : [object] "=&r"(object)
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [mask] FASTCPU_X86_SOURCE_(mask)
		     : "memory", "cc", "ecx"
		     : aborted, moved, empty);
	*seen = object;
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
#else
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), " FASTCPU_X86_CX_ "\n\t"
			"test" FASTCPU_X86_W_ " %[mask], " FASTCPU_X86_CX_ "\n\t"
			"jz %l[empty]\n\t"
			"mov" FASTCPU_X86_W_ " -" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_)
			"(" FASTCPU_X86_CX_ "), " FASTCPU_X86_CX_ "\n\t"
			"mov" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", (%[seen])\n\t"
			"sub" FASTCPU_X86_W_ " $" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_) ", (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [mask] FASTCPU_X86_SOURCE_(mask), [seen] "r"(seen)
		     : "memory", "cc", "ecx"
		     : aborted, moved, empty);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
#endif
}

static __inline__ int fastcpu_rseq_magazine_push_(const volatile int *cpu_at,
						   const volatile int *index_at, int index,
						   intptr_t *slot, void *node, uintptr_t mask)
{
	__asm__ goto(FASTCPU_X86_SEQUENCE_(
			"mov" FASTCPU_X86_W_ " (%[slot]), " FASTCPU_X86_CX_ "\n\t"
			"test" FASTCPU_X86_W_ " " FASTCPU_X86_CX_ ", " FASTCPU_X86_CX_ "\n\t"
			"jz %l[full]\n\t"
			"lea " FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_) "(" FASTCPU_X86_CX_ "), "
			FASTCPU_X86_CX_ "\n\t"
			"test" FASTCPU_X86_W_ " %[mask], " FASTCPU_X86_CX_ "\n\t"
			"jz %l[full]\n\t"
			"mov" FASTCPU_X86_W_ " %[node], -" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_)
			"(" FASTCPU_X86_CX_ ")\n\t"
			"add" FASTCPU_X86_W_ " $" FASTCPU_RSEQ_STR_(FASTCPU_X86_WORD_) ", (%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] FASTCPU_X86_INDEX_(index), [slot] "r"(slot),
		       [node] "r"(node), [mask] FASTCPU_X86_SOURCE_(mask)
		     : "memory", "cc", "ecx"
		     : aborted, moved, full);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full);
}
