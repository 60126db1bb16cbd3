/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq/riscv.h: the critical sections on riscv64. */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq/riscv.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/* Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler behind
 * the signature (csrr mhartid, x0), word-aligned. It stays in the same
 * section, jumped over: a jump to a C label reaches 1 MiB, which another
 * section may be farther than, a conditional branch 4 KiB. t0 and t1 are
 * the scratch. The sequence begins by checking that the index it was given
 * is still the thread's (lw sign-extends, as an int lives in a register). */
#define FASTCPU_RV_SEQUENCE_(body, after)				\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"	\
	"lla t0, 3b\n\tsd t0, 4(%[cpu_at])\n"				\
	"1:\n\tlw t0, 0(%[index_at])\n\tbne t0, %[index], 6f\n\t" body	\
	"2:\n\t" after "sd zero, 4(%[cpu_at])\n\t"			\
	"j 5f\n\t.balign 4\n\t.long " FASTCPU_RSEQ_SIGNATURE_CODE_ "\n4:\n\t" \
	"j %l[aborted]\n6:\n\tj %l[moved]\n5:\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, intptr_t value)
{
	__asm__ goto(FASTCPU_RV_SEQUENCE_(
			"ld t1, 0(%[slot])\n\t"
			"add t1, t1, %[value]\n\t"
			"sd t1, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [value] "r"(value)
		     : "memory", "t0", "t1"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_add_return_(const volatile int *cpu_at,
					       const volatile int *index_at, int index,
					       intptr_t *slot, intptr_t value, intptr_t *old)
{
	__asm__ goto(FASTCPU_RV_SEQUENCE_(
			"ld t1, 0(%[slot])\n\t"
			"sd t1, 0(%[old])\n\t"
			"add t1, t1, %[value]\n\t"
			"sd t1, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [value] "r"(value),
		       [old] "r"(old)
		     : "memory", "t0", "t1"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

/* With acquire, "fence r, rw" after the commit: later loads and stores
 * stay after the slot's read. */
#define FASTCPU_RV_CMPSTORE_(after)					\
	__asm__ goto(FASTCPU_RV_SEQUENCE_(				\
			"ld t1, 0(%[slot])\n\t"				\
			"sd t1, 0(%[seen])\n\t"				\
			"bne t1, %[expect], 2f\n\t"			\
			"sd %[newv], 0(%[slot])\n", after)		\
		     : /* no outputs */					\
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),	\
		       [index] "r"(index), [slot] "r"(slot),		\
		       [expect] "r"(expect), [newv] "r"(newv), [seen] "r"(seen) \
		     : "memory", "t0", "t1"				\
		     : aborted, moved)

static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen, int acquire)
{
	if (acquire)
		FASTCPU_RV_CMPSTORE_("fence r, rw\n\t");
	else
		FASTCPU_RV_CMPSTORE_("");
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_pop_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, size_t offset,
					intptr_t *seen)
{
	__asm__ goto(FASTCPU_RV_SEQUENCE_(
			"ld t1, 0(%[slot])\n\t"
			"sd t1, 0(%[seen])\n\t"
			"beqz t1, 2f\n\t"
			"add t1, t1, %[offset]\n\t"
			"ld t1, 0(t1)\n\t"
			"sd t1, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot),
		       [offset] "r"(offset), [seen] "r"(seen)
		     : "memory", "t0", "t1"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_magazine_pop_(const volatile int *cpu_at,
						  const volatile int *index_at, int index,
						  intptr_t *slot, uintptr_t mask, intptr_t *seen)
{
	__asm__ goto(FASTCPU_RV_SEQUENCE_(
			"ld t1, 0(%[slot])\n\t"
			"and t0, t1, %[mask]\n\t"
			"bnez t0, 7f\n\t"
			"j %l[empty]\n"
			"7:\n\tld t0, -8(t1)\n\t"
			"sd t0, 0(%[seen])\n\t"
			"addi t1, t1, -8\n\t"
			"sd t1, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [mask] "r"(mask),
		       [seen] "r"(seen)
		     : "memory", "t0", "t1"
		     : aborted, moved, empty);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
}

static __inline__ int fastcpu_rseq_magazine_push_(const volatile int *cpu_at,
						   const volatile int *index_at, int index,
						   intptr_t *slot, void *node, uintptr_t mask)
{
	__asm__ goto(FASTCPU_RV_SEQUENCE_(
			"ld t1, 0(%[slot])\n\t"
			"beqz t1, 8f\n\t"
			"addi t1, t1, 8\n\t"
			"and t0, t1, %[mask]\n\t"
			"bnez t0, 7f\n"
			"8:\n\tj %l[full]\n"
			"7:\n\tsd %[node], -8(t1)\n\t"
			"sd t1, 0(%[slot])\n", "")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [index_at] "r"(index_at),
		       [index] "r"(index), [slot] "r"(slot), [node] "r"(node),
		       [mask] "r"(mask)
		     : "memory", "t0", "t1"
		     : aborted, moved, full);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full);
}
