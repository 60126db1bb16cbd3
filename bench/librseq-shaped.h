/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/librseq-shaped.h: per-CPU sequences in the shapes of librseq's. */

#ifndef FASTCPU_BENCH_LIBRSEQ_SHAPED_H
#define FASTCPU_BENCH_LIBRSEQ_SHAPED_H

#include <stdint.h>

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

/* A sequence's frame, as librseq writes it on x86-64: its descriptor, its
 * address stored in rseq_cs (4 bytes after cpu_id), the CPU checked, the
 * body (its last instruction the commit), the signature and the abort
 * handler out of line. */
# define LIBRSEQ_SHAPED_(body)						\
	".pushsection __rseq_cs, \"aw\"\n\t.balign 32\n3:\n\t"		\
	".long 0, 0\n\t.quad 1f, 2f - 1f, 4f\n\t.popsection\n\t"	\
	"leaq 3b(%%rip), %%rax\n\tmovq %%rax, 4(%[cpu_at])\n"		\
	"1:\n\tcmpl %[cpu], (%[cpu_at])\n\tjnz 4f\n\t"			\
	body								\
	"2:\n\t.pushsection __rseq_failure, \"ax\"\n\t"			\
	".byte 0x0f, 0xb9, 0x3d\n\t.long " LIBRSEQ_SHAPED_SIGNATURE_ "\n"	\
	"4:\n\tjmp %l[again]\n\t.popsection\n"

static inline int librseq_shaped_add(const volatile void *cpu_at, long *counter, int cpu)
{
	__asm__ goto(LIBRSEQ_SHAPED_("addq $1, (%[counter])\n")
		     : /* no outputs */
		     : [cpu_at] "r"(cpu_at), [cpu] "r"(cpu), [counter] "r"(counter)
		     : "memory", "cc", "rax"
		     : again);
	return 0;
again:
	return -1;
}

/*
 * librseq's param_test shapes, the floor of a per-CPU cache's sequences
 * (bench/memory-workloads.c): each returns 0 where it committed, 1 where
 * its comparison failed (the list or buffer changed, or it is empty), -1
 * where it must read its CPU and run again. Each function's whole body:
 * the sequence, its operands past cpu_at and cpu, and its clobbers past
 * rax's.
 */
# define LIBRSEQ_SHAPED_SEQUENCE_(body, operands, clobbers)		\
	__asm__ goto(LIBRSEQ_SHAPED_(body)				\
		     : /* no outputs */					\
		     : [cpu_at] "r"(cpu_at), [cpu] "r"(cpu), operands	\
		     : "memory", "cc", "rax" clobbers			\
		     : again, changed);					\
	return 0;							\
again:									\
	return -1;							\
changed:								\
	return 1
# define LIBRSEQ_SHAPED_OPERANDS_(...) __VA_ARGS__

/*
 * The list (rseq_load_cbne_store__ptr, rseq_load_cbeq_store_add_load_store
 * __ptr): a push stores node where the head is still expect (the caller
 * wrote expect into the node first); a pop takes the head, unless NULL,
 * and stores the head's next (at offset 0) in its place.
 */
static inline int librseq_shaped_list_push(const volatile void *cpu_at, void **head,
					   void *expect, void *node, int cpu)
{
	LIBRSEQ_SHAPED_SEQUENCE_("cmpq %[expect], (%[head])\n\tjnz %l[changed]\n\t"
				 "movq %[node], (%[head])\n",
				 LIBRSEQ_SHAPED_OPERANDS_([head] "r"(head), [expect] "r"(expect),
							  [node] "r"(node)), );
}

static inline int librseq_shaped_list_pop(const volatile void *cpu_at, void **head,
					  void **node, int cpu)
{
	LIBRSEQ_SHAPED_SEQUENCE_("movq (%[head]), %%rbx\n\ttestq %%rbx, %%rbx\n\t"
				 "jz %l[changed]\n\tmovq %%rbx, (%[node])\n\t"
				 "movq (%%rbx), %%rbx\n\tmovq %%rbx, (%[head])\n",
				 LIBRSEQ_SHAPED_OPERANDS_([head] "r"(head), [node] "r"(node)),
				 LIBRSEQ_SHAPED_OPERANDS_(, "rbx"));
}

/*
 * The buffer (rseq_load_cbne_store_store__ptr, rseq_load_cbne_load_cbne_
 * store__ptr): an array of pointers and the count it holds. A push, where
 * the count is still expect, stores node at slot (the array's entry
 * expect) and then the count expect + 1; a pop, where the count is still
 * expect and the entry below it still seen, stores the count expect - 1.
 */
static inline int librseq_shaped_buffer_push(const volatile void *cpu_at, intptr_t *count,
					     intptr_t expect, void **slot, void *node, int cpu)
{
	LIBRSEQ_SHAPED_SEQUENCE_("cmpq %[expect], (%[count])\n\tjnz %l[changed]\n\t"
				 "movq %[node], (%[slot])\n\tmovq %[next], (%[count])\n",
				 LIBRSEQ_SHAPED_OPERANDS_([count] "r"(count), [expect] "r"(expect),
							  [slot] "r"(slot), [node] "r"(node),
							  [next] "r"(expect + 1)), );
}

static inline int librseq_shaped_buffer_pop(const volatile void *cpu_at, intptr_t *count,
					    intptr_t expect, void **slot, void *seen, int cpu)
{
	LIBRSEQ_SHAPED_SEQUENCE_("cmpq %[expect], (%[count])\n\tjnz %l[changed]\n\t"
				 "cmpq %[seen], (%[slot])\n\tjnz %l[changed]\n\t"
				 "movq %[next], (%[count])\n",
				 LIBRSEQ_SHAPED_OPERANDS_([count] "r"(count), [expect] "r"(expect),
							  [slot] "r"(slot), [seen] "r"(seen),
							  [next] "r"(expect - 1)), );
}
#endif

#endif /* FASTCPU_BENCH_LIBRSEQ_SHAPED_H */
