/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/rseq/s390.h: the critical sections on s390x. */

#ifndef FASTCPU_RSEQ_H
# error "include <fastcpu.h>, not <fastcpu/rseq/s390.h>"
#endif

#define FASTCPU_RSEQ_INLINE 1

/* Labels: 3 the descriptor, 1 to 2 the sequence, 4 the abort handler, in
 * section __rseq_failure behind the signature, the instruction trap4. r0
 * and r1 are the scratch; address operands use "a" (r0 is no base
 * register). The sequence begins by checking that the index it was given is
 * still the thread's. */
#define FASTCPU_S390_SEQUENCE_(body)					\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"	\
	"larl %%r0, 3b\n\tstg %%r0, 4(%[cpu_at])\n"			\
	"1:\n\tc %[index], 0(%[index_at])\n\tjgne %l[moved]\n\t" body	\
	"2:\n\tlghi %%r0, 0\n\tstg %%r0, 4(%[cpu_at])\n\t"		\
	".pushsection __rseq_failure, \"ax\"\n\t.long " FASTCPU_RSEQ_SIGNATURE_CODE_ \
	"\n4:\n\tjg %l[aborted]\n\t.popsection\n"

static __inline__ int fastcpu_rseq_add_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, intptr_t value)
{
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r0, 0(%[slot])\n\t"
			"agr %%r0, %[value]\n\t"
			"stg %%r0, 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot), [value] "d"(value)
		     : "memory", "cc", "r0"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_add_return_(const volatile int *cpu_at,
					       const volatile int *index_at, int index,
					       intptr_t *slot, intptr_t value, intptr_t *old)
{
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r0, 0(%[slot])\n\t"
			"stg %%r0, 0(%[old])\n\t"
			"agr %%r0, %[value]\n\t"
			"stg %%r0, 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot), [value] "d"(value),
		       [old] "a"(old)
		     : "memory", "cc", "r0"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_cmpstore_(const volatile int *cpu_at,
					     const volatile int *index_at,
					     int index, intptr_t *slot,
					     intptr_t expect, intptr_t newv,
					     intptr_t *seen, int acquire)
{
	(void)acquire;	/* s390x orders later accesses after loads itself */
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r0, 0(%[slot])\n\t"
			"stg %%r0, 0(%[seen])\n\t"
			"cgr %%r0, %[expect]\n\t"
			"jne 2f\n\t"
			"stg %[newv], 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot),
		       [expect] "d"(expect), [newv] "d"(newv), [seen] "a"(seen)
		     : "memory", "cc", "r0"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_pop_(const volatile int *cpu_at,
					const volatile int *index_at, int index,
					intptr_t *slot, size_t offset,
					intptr_t *seen)
{
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r1, 0(%[slot])\n\t"
			"stg %%r1, 0(%[seen])\n\t"
			"ltgr %%r1, %%r1\n\t"
			"jz 2f\n\t"
			"lg %%r0, 0(%[offset], %%r1)\n\t"
			"stg %%r0, 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot),
		       [offset] "a"(offset), [seen] "a"(seen)
		     : "memory", "cc", "r0", "r1"
		     : aborted, moved);
	FASTCPU_RSEQ_OUTCOMES_(aborted, moved);
}

static __inline__ int fastcpu_rseq_magazine_pop_(const volatile int *cpu_at,
						  const volatile int *index_at, int index,
						  intptr_t *slot, uintptr_t mask, intptr_t *seen)
{
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r1, 0(%[slot])\n\t"
			"lgr %%r0, %%r1\n\t"
			"ngr %%r0, %[mask]\n\t"
			"jgz %l[empty]\n\t"
			"lg %%r0, -8(%%r1)\n\t"
			"stg %%r0, 0(%[seen])\n\t"
			"aghi %%r1, -8\n\t"
			"stg %%r1, 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot), [mask] "d"(mask),
		       [seen] "a"(seen)
		     : "memory", "cc", "r0", "r1"
		     : aborted, moved, empty);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, empty);
}

static __inline__ int fastcpu_rseq_magazine_push_(const volatile int *cpu_at,
						   const volatile int *index_at, int index,
						   intptr_t *slot, void *node, uintptr_t mask)
{
	__asm__ goto(FASTCPU_S390_SEQUENCE_(
			"lg %%r1, 0(%[slot])\n\t"
			"ltgr %%r1, %%r1\n\t"
			"jgz %l[full]\n\t"
			"aghi %%r1, 8\n\t"
			"lgr %%r0, %%r1\n\t"
			"ngr %%r0, %[mask]\n\t"
			"jgz %l[full]\n\t"
			"stg %[node], -8(%%r1)\n\t"
			"stg %%r1, 0(%[slot])\n")
		     : /* no outputs */
		     : [cpu_at] "a"(cpu_at), [index_at] "a"(index_at),
		       [index] "d"(index), [slot] "a"(slot), [node] "d"(node),
		       [mask] "d"(mask)
		     : "memory", "cc", "r0", "r1"
		     : aborted, moved, full);
	FASTCPU_RSEQ_OUTCOMES_FULL_(aborted, moved, full);
}
