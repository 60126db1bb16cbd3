/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/librseq-shaped.h: a per-CPU add in the shape of librseq's. */

#ifndef FASTCPU_BENCH_LIBRSEQ_SHAPED_H
#define FASTCPU_BENCH_LIBRSEQ_SHAPED_H

#include "fastcpu.h"

/*
 * The shape of librseq's rseq_load_add_store__ptr(), written here from its
 * description, for the benchmark's reference row (the tests' stand-in rseq
 * owner runs it too, rseq-owner.c): the CPU read before the sequence, the
 * counter's address computed outside it, the sequence checking that the
 * CPU is still the thread's and adding, rseq_cs left set afterwards, as
 * librseq leaves it. x86-64 only (LIBRSEQ_SHAPED_ADD). cpu_at is the cpu_id
 * of the calling thread's registered area; 0, or -1 where the thread must
 * read its CPU and run it again. The signature before its abort handler is
 * the library's, unless the includer says another (LIBRSEQ_SHAPED_SIGNATURE_,
 * a string).
 */
#ifndef LIBRSEQ_SHAPED_SIGNATURE_
# define LIBRSEQ_SHAPED_SIGNATURE_ FASTCPU_RSEQ_SIGNATURE_CODE_
#endif
#if defined(__x86_64__) && defined(__LP64__)
# define LIBRSEQ_SHAPED_ADD 1
static inline int librseq_shaped_add(const volatile void *cpu_at, long *counter, int cpu)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"
		     ".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"
		     "leaq 3b(%%rip), %%rax\n\tmovq %%rax, 4(%[cpu_at])\n"
		     "1:\n\tcmpl %[cpu], (%[cpu_at])\n\tjnz 4f\n\t"
		     "addq $1, (%[counter])\n"
		     "2:\n\t.pushsection __rseq_failure, \"ax\"\n\t"
		     ".byte 0x0f, 0xb9, 0x3d\n\t.long " LIBRSEQ_SHAPED_SIGNATURE_ "\n"
		     "4:\n\tjmp %l[again]\n\t.popsection\n"
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [cpu] "r"(cpu), [counter] "r"(counter)
		     : "memory", "cc", "rax"
		     : again);
	return 0;
again:
	return -1;
}
#endif

#endif /* FASTCPU_BENCH_LIBRSEQ_SHAPED_H */
