/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/published.c: where the header's inline reads look, published once. */

#include "internal.h"
#include "rseq-abi.h"

/*
 * The inline reads in <fastcpu.h> load the int at a process-wide distance
 * from fastcpu_tls_anchor. The distance starts at 0 (the anchor itself,
 * always -1: the out-of-line call answers) and is set once, to the cpu_id
 * of the rseq area every thread of the process has at the same place:
 * glibc's (__rseq_offset), the program owner's (initial-exec TLS, or the
 * offset librseq publishes), or the library's own (rseq.c places it at the
 * published word, or elsewhere when a thread's TLS is aligned otherwise).
 * In a thread whose area there is not registered the word is negative
 * (glibc: -1 or -2; an owner: -1 until it registers; the library's own room:
 * -1 until registered), so a thread that cannot use it is sent out of line.
 * A program's compiler keeps the distance in a register across a loop,
 * which is why it never changes once set.
 */
FASTCPU_EXPORT __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec"))) = FASTCPU_CPU_UNATTACHED;
FASTCPU_EXPORT ptrdiff_t fastcpu_cpu_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_node_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_cid_offset;

static ptrdiff_t from_anchor(const volatile void *at)
{
	return (const volatile char *)at - (const volatile char *)&fastcpu_tls_anchor;
}

/* The node_id and mm_cid words, once each is known to be kept up to date:
 * node_id where the kernel maintains it (else the out-of-line getcpu()
 * reads the sysfs table), mm_cid or cpu_id as the concurrency id decided
 * (cid.c). Safe to repeat: each store writes the one value it can have.
 * Sequentially consistent with that decision, so whichever of the two
 * comes second publishes the cid word. */
static void publish_derived(ptrdiff_t cpu_id)
{
	const ptrdiff_t to_node = offsetof(struct fastcpu_rseq_abi, node_id) -
				  offsetof(struct fastcpu_rseq_abi, cpu_id);
	const ptrdiff_t to_cid = offsetof(struct fastcpu_rseq_abi, mm_cid) -
				 offsetof(struct fastcpu_rseq_abi, cpu_id);
	enum fastcpu_cid_source cid = fastcpu_cid_source();

	if (fastcpu_rseq_kernel().node_id)
		__atomic_store_n(&fastcpu_node_id_offset, cpu_id + to_node,
				 __ATOMIC_RELAXED);
	if (cid == FASTCPU_CID_MM_CID)
		__atomic_store_n(&fastcpu_cid_offset, cpu_id + to_cid,
				 __ATOMIC_RELAXED);
	else if (cid == FASTCPU_CID_CPU)
		__atomic_store_n(&fastcpu_cid_offset, cpu_id, __ATOMIC_RELAXED);
}

bool fastcpu_publish_cpu_id(const volatile void *cpu_id)
{
	ptrdiff_t mine = from_anchor(cpu_id), seen = 0;

	if (!__atomic_compare_exchange_n(&fastcpu_cpu_id_offset, &seen, mine,
					 false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) && seen != mine)
		return false;
	publish_derived(mine);
	return true;
}

void fastcpu_publish_cid(void)
{
	ptrdiff_t cpu_id = __atomic_load_n(&fastcpu_cpu_id_offset, __ATOMIC_SEQ_CST);

	if (cpu_id != 0)
		publish_derived(cpu_id);
}
