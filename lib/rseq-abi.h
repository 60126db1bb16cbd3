/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/rseq-abi.h: the kernel's rseq area layout, defined here on purpose. */

#ifndef FASTCPU_RSEQ_ABI_H
#define FASTCPU_RSEQ_ABI_H

#include <stddef.h>
#include <stdint.h>

/*
 * The layout of struct rseq as the kernel ABI fixes it. Distribution headers
 * lag (Debian 12's <linux/rseq.h> has no node_id nor mm_cid), so the offsets
 * the library relies on are spelled out and checked at compile time.
 * Every field but rseq_cs is written by the kernel: user space only reads it.
 */
struct fastcpu_rseq_abi {
	uint32_t cpu_id_start;	/* kernel-owned */
	uint32_t cpu_id;	/* kernel-owned; (uint32_t)-1 until registered */
	uint64_t rseq_cs;	/* user-owned: critical sections */
	uint32_t flags;		/* kernel-owned: the time-slice extension's bits */
	uint32_t node_id;	/* kernel-owned, feature size >= 24 (Linux 6.3) */
	uint32_t mm_cid;	/* kernel-owned, feature size >= 28 (Linux 6.3) */
	char end[];
	/* Feature size >= 33 (Linux 7.0), registered with more than 32 bytes:
	 * slice_ctrl at 28, its request byte user-owned, granted (29) and the
	 * rest the kernel's. */
};

#define FASTCPU_RSEQ_SLICE_REQUEST	28
#define FASTCPU_RSEQ_SLICE_GRANTED	29
/* Bits of flags: the kernel offers the extension to the thread's
 * registration, and has it enabled for the thread. */
#define FASTCPU_RSEQ_SLICE_AVAILABLE	0x10
#define FASTCPU_RSEQ_SLICE_ENABLED	0x20
/* Registration flag: enabled from the start (Linux 7.0: any 7.x accepts it). */
#define FASTCPU_RSEQ_FLAG_SLICE_DEFAULT_ON 2
#define FASTCPU_RSEQ_SLICE_FEATURE_SIZE	33
/* prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET, ENABLE). */
#define FASTCPU_PR_RSEQ_SLICE_EXTENSION	79
#define FASTCPU_PR_RSEQ_SLICE_SET	2
#define FASTCPU_PR_RSEQ_SLICE_ENABLE	1
/* rseq_slice_yield(): 471 in the generic table and every table that
 * follows it; the ABIs that offset or renumber it have none here. */
#if defined(__NR_rseq_slice_yield)
# define FASTCPU_NR_RSEQ_SLICE_YIELD	__NR_rseq_slice_yield
#elif (defined(__x86_64__) && defined(__LP64__)) || defined(__i386__) || \
	defined(__aarch64__) || defined(__powerpc64__) || defined(__s390x__) || \
	defined(__riscv) || defined(__loongarch__)
# define FASTCPU_NR_RSEQ_SLICE_YIELD	471
#endif

_Static_assert(offsetof(struct fastcpu_rseq_abi, cpu_id) == 4, "rseq ABI");
_Static_assert(offsetof(struct fastcpu_rseq_abi, rseq_cs) == 8, "rseq ABI");
_Static_assert(offsetof(struct fastcpu_rseq_abi, node_id) == 20, "rseq ABI");
_Static_assert(offsetof(struct fastcpu_rseq_abi, mm_cid) == 24, "rseq ABI");

/* The area whose cpu_id is at cpu_id. */
static inline volatile struct fastcpu_rseq_abi *fastcpu_area_of(const volatile int *cpu_id)
{
	return (volatile struct fastcpu_rseq_abi *)(volatile void *)
		((const volatile char *)cpu_id - offsetof(struct fastcpu_rseq_abi, cpu_id));
}

#define FASTCPU_RSEQ_FLAG_UNREGISTER	1

/* The size and alignment every kernel accepts (the first ABI's struct). */
#define FASTCPU_RSEQ_ORIG_SIZE	32
/* Room reserved per thread for the library's own area: the kernel's feature
 * size may grow; up to this much is registered as advertised. */
#define FASTCPU_RSEQ_AREA_SIZE	64

/* Feature sizes a kernel advertises when it maintains node_id, mm_cid. */
#define FASTCPU_RSEQ_NODE_FEATURE_SIZE \
	(offsetof(struct fastcpu_rseq_abi, node_id) + sizeof(uint32_t))
#define FASTCPU_RSEQ_MM_CID_FEATURE_SIZE \
	(offsetof(struct fastcpu_rseq_abi, mm_cid) + sizeof(uint32_t))

#ifndef AT_RSEQ_FEATURE_SIZE
# define AT_RSEQ_FEATURE_SIZE	27
#endif
#ifndef AT_RSEQ_ALIGN
# define AT_RSEQ_ALIGN		28
#endif

#endif /* FASTCPU_RSEQ_ABI_H */
