/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cpu-id.c: where each thread finds its cpu_id, and its cid and node. */

#include "cpu-id.h"
#include "internal.h"
#include "kernel.h"
#include "once.h"
#include "rseq-abi.h"
#include "sequence-guard.h"

/*
 * Two ways lead to a thread's cpu_id, and one rule ties them.
 *
 * fastcpu_cpu_id_ref, per thread, points at the cpu_id of the rseq area the
 * thread reads (glibc's, the program owner's, or the library's own), or at
 * a marker: fastcpu_cpu_unattached before its first call (known by its
 * address), FASTCPU_CPU_NO_RSEQ where the fallback serves it. An owner's
 * area reads -1 until the owner registers it in the thread: the fallback
 * answers meanwhile, and the thread never attaches again. Three loads, no
 * arithmetic: the library's
 * own entry points read it, and it alone knows an area the next way cannot
 * reach (the library's own, where a thread's TLS is aligned otherwise).
 *
 * fastcpu_cpu_id_offset, per process, is how far from fastcpu_tls_anchor
 * (initial-exec TLS, always -1) every thread's area keeps cpu_id: 0, the
 * anchor itself, until published, then fixed for good, because a program's
 * compiler keeps the address in a register across a loop. <fastcpu.h>'s
 * inline reads use it, and the node and cid words at their distances from
 * it, published with it. The library's own entry points read the same
 * offsets from fastcpu_offsets, its own copy: a program's copy relocation
 * may have moved the exported words into the program, behind the GOT.
 *
 * fastcpu_percpu_cpu_id_offset, what the inline per-CPU operations read,
 * is the same word once the areas there take the library's sequences (their
 * signature is the library's): at once for glibc's and the library's own,
 * after a check for another owner's (program-area.c); the library's object
 * cache reads its copy, fastcpu_offsets.percpu. Where the check says they
 * take none (another signature), fastcpu_percpu_upper_cpu_id_offset is
 * that word instead, and fastcpu_percpu_upper_base the upper half's first
 * index, set before it: the inline operations then change the upper half's
 * slot of that CPU atomically, with no call. fastcpu_percpu_rdpid_offset
 * is a word of each thread's, that index where the thread's fallback is
 * RDPID (x86, bind.c), else 0: where neither word above serves, the inline
 * operations of such a thread read the CPU with RDPID themselves, an
 * instruction that costs less than the call.
 *
 * The rule: in every thread, either way, a non-negative value is the cpu_id
 * the kernel keeps for that thread, and a negative one (the anchor, a
 * marker, an area not registered in this thread: -1 before, -2 where its
 * registration failed) sends the reader out of line, where the pointer
 * decides. It holds because a word is published only if it is the cpu_id
 * of an area at the same place in every thread, which the kernel writes
 * only in the thread that registered it; and the pointer is set only by
 * fastcpu_thread_reads(), to an area's cpu_id once the thread reads it.
 */
const int fastcpu_cpu_unattached = FASTCPU_CPU_UNATTACHED;
static const int no_rseq = FASTCPU_CPU_NO_RSEQ;

FASTCPU_EXPORT __thread const volatile int *fastcpu_cpu_id_ref
	__attribute__((tls_model("initial-exec"))) = &fastcpu_cpu_unattached;

FASTCPU_EXPORT __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec"))) = FASTCPU_CPU_UNATTACHED;
FASTCPU_EXPORT ptrdiff_t fastcpu_cpu_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_node_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_cid_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_percpu_cpu_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_percpu_upper_cpu_id_offset;
FASTCPU_EXPORT ptrdiff_t fastcpu_percpu_upper_base;
FASTCPU_EXPORT ptrdiff_t fastcpu_percpu_rdpid_offset;
static __thread int rdpid_base __attribute__((tls_model("initial-exec")));
struct fastcpu_offsets fastcpu_offsets;

void fastcpu_thread_reads(const volatile int *cpu_id)
{
	fastcpu_cpu_id_ref = cpu_id ? cpu_id : &no_rseq;
}

static ptrdiff_t from_anchor(const volatile void *at)
{
	return (const volatile char *)at - (const volatile char *)&fastcpu_tls_anchor;
}

/* Both copies of one offset; relaxed: each reader finds 0 or the value. */
static void set(ptrdiff_t *ours, ptrdiff_t *exported, ptrdiff_t value)
{
	__atomic_store_n(ours, value, __ATOMIC_RELAXED);
	__atomic_store_n(exported, value, __ATOMIC_RELAXED);
}

/* The node_id word where the kernel maintains it (else the out-of-line
 * getcpu() reads the sysfs table), the concurrency id's word (mm_cid where
 * the kernel keeps it, else cpu_id), and the program's copy of cpu_id. */
static void publish_rest(ptrdiff_t cpu_id)
{
	const ptrdiff_t to_node = offsetof(struct fastcpu_rseq_abi, node_id) -
				  offsetof(struct fastcpu_rseq_abi, cpu_id);

	if (fastcpu_rseq_kernel().node_id)
		set(&fastcpu_offsets.node_id, &fastcpu_node_id_offset, cpu_id + to_node);
	set(&fastcpu_offsets.cid, &fastcpu_cid_offset, cpu_id + fastcpu_cid_distance());
	__atomic_store_n(&fastcpu_cpu_id_offset, cpu_id, __ATOMIC_RELAXED);
}

/* The library's copy of cpu_id decides: the first offer wins, once. A
 * reader that finds it before the rest is answered out of line there. */
bool fastcpu_publish_cpu_id(const volatile int *cpu_id)
{
	ptrdiff_t mine = from_anchor(cpu_id);

	if (fastcpu_once_offer(&fastcpu_offsets.cpu_id, mine) != mine)
		return false;
	publish_rest(mine);
	return true;
}

/* The inline operations' word: the published cpu_id's, once the areas
 * there are known to take the library's sequences and the kernel to abort
 * them (sequence-guard.c); the upper word where it is known not to. */
void fastcpu_publish_sequences(void)
{
	ptrdiff_t cpu_id = __atomic_load_n(&fastcpu_offsets.cpu_id, __ATOMIC_RELAXED);
	enum fastcpu_sequences kernel = fastcpu_guard_known();

	if (kernel == FASTCPU_SEQUENCES_NO)
		fastcpu_publish_upper();
	else if (cpu_id != 0 && kernel == FASTCPU_SEQUENCES_YES) {
		__atomic_store_n(&fastcpu_offsets.percpu, cpu_id, __ATOMIC_RELAXED);
		__atomic_store_n(&fastcpu_percpu_cpu_id_offset, cpu_id, __ATOMIC_RELAXED);
	}
}

void fastcpu_thread_reads_rdpid(bool rdpid)
{
	const volatile int *word = &rdpid_base;

	rdpid_base = rdpid ? fastcpu_possible_cpus() : 0;
	/* The word's address in a register first: a difference of two TLS
	 * addresses folded into one instruction is one a static link cannot
	 * relax (GOTTPOFF in a sub). */
	__asm__("" : "+r"(word));
	if (rdpid)
		__atomic_store_n(&fastcpu_percpu_rdpid_offset, from_anchor(word), __ATOMIC_RELAXED);
}

/* The inline operations' upper word: the published cpu_id's, where the
 * areas there take no sequences of the library's. */
void fastcpu_publish_upper(void)
{
	ptrdiff_t cpu_id = __atomic_load_n(&fastcpu_offsets.cpu_id, __ATOMIC_RELAXED);

	if (cpu_id != 0) {
		__atomic_store_n(&fastcpu_percpu_upper_base, fastcpu_possible_cpus(),
				 __ATOMIC_RELEASE);
		__atomic_store_n(&fastcpu_percpu_upper_cpu_id_offset, cpu_id, __ATOMIC_RELEASE);
	}
}
