/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/plumbing.h: what the inline functions use: not an API. */

#ifndef FASTCPU_PLUMBING_H
#define FASTCPU_PLUMBING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Not an API: what the inline functions of <fastcpu.h>'s headers use, with
 * the library's functions they call out of line. Included by each of
 * them; a program calls none of it by name.
 */
#define FASTCPU_VISIBLE __attribute__((visibility("default")))

/* The enum every per-CPU operation takes (fastcpu_percpu(3)). */
enum fastcpu_index { FASTCPU_BY_CID, FASTCPU_BY_CPU };

/*
 * What the inline reads use; not an API of their own. Each thread has
 * fastcpu_tls_anchor (initial-exec TLS, always -1); the library publishes,
 * once per process, how far from it every thread's rseq area keeps cpu_id,
 * node_id and mm_cid (0, the anchor itself, until known). A published word
 * changes once, from 0 to its value, and either value gives a right answer
 * (0 by way of the out-of-line call), so the reads take it with
 * fastcpu_published_(): a load the compiler may keep for the rest of the
 * function, out of any loop, making each read one load. A function that
 * began before the library published keeps 0, and its reads go out of line,
 * until it is called again (the library publishes at load wherever it can).
 * So each word is found from one published offset alone, never from a sum
 * of two: one kept and one loaded afresh would point at neither.
 */
extern FASTCPU_VISIBLE __thread const volatile int fastcpu_tls_anchor
	__attribute__((tls_model("initial-exec")));
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_node_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_cid_offset;


#include "fastcpu/rseq.h"

static inline ptrdiff_t fastcpu_published_(const ptrdiff_t *word)
{
#ifdef FASTCPU_INVARIANT_LOAD_
	ptrdiff_t value;

	FASTCPU_INVARIANT_LOAD_(value, word);
	return value;
#else
	return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

/* In integers: the word is another object's (an rseq area), not the
 * anchor's. */
static inline const volatile int *fastcpu_tls_word_(ptrdiff_t offset)
{
	return (const volatile int *)((uintptr_t)&fastcpu_tls_anchor + (uintptr_t)offset);
}

/* The calling thread's cpu_id, node_id and concurrency id words, as far as
 * the function knows (the anchor before publication). */
#define fastcpu_cpu_id_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_cpu_id_offset))
#define fastcpu_node_id_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_node_id_offset))
#define fastcpu_cid_word_() fastcpu_tls_word_(fastcpu_published_(&fastcpu_cid_offset))

/* Where the inline operations run their sequences (FASTCPU_1.3): the same
 * word as fastcpu_cpu_id_offset once the library may run them on the area
 * there, 0 (the anchor) until then; where it may not (another owner's
 * areas, registered with another signature), the same word as
 * fastcpu_percpu_upper_cpu_id_offset instead, and fastcpu_percpu_upper_base
 * the upper half's first index (0 until known). Not an API of their own. */
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_upper_cpu_id_offset;
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_upper_base;

/* The operations' out-of-line forms: same contracts. */
FASTCPU_VISIBLE void fastcpu_percpu_add_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by, long value);
FASTCPU_VISIBLE int fastcpu_percpu_cmpstore_out_of_line(void *base, size_t stride,
							enum fastcpu_index by,
							intptr_t expect, intptr_t newv,
							intptr_t *seen);
FASTCPU_VISIBLE void *fastcpu_percpu_pop_out_of_line(void *base, size_t stride,
						     enum fastcpu_index by,
						     size_t next_offset);
/* fastcpu_percpu_lock() once the lock was found taken: waits (FASTCPU_1.3). */
FASTCPU_VISIBLE int fastcpu_percpu_lock_out_of_line(void *base, size_t stride,
						    enum fastcpu_index by);
/* fastcpu_percpu_unlock() where the kernel extended the holder's time
 * slice: gives the CPU back (FASTCPU_1.3). */
FASTCPU_VISIBLE void fastcpu_percpu_slice_yield_out_of_line(void);

/*
 * Not an API: the per-CPU operations' retry loops and slot arithmetic,
 * each written once and bound twice (liburcu's way). <fastcpu.h> binds them
 * inline, finding the calling thread's area at the published offsets
 * (fastcpu_percpu_index_ below) and calling the library where that finds
 * none; the library binds them out of line (lib/percpu/ops.c), finding the area
 * through the thread's own pointer and taking the upper half of the array
 * where there is none. find returns the thread's index and sets the words
 * it read it from (cpu_at: its area's cpu_id, index_at: cpu_id or mm_cid),
 * or -1 where this way cannot run a sequence; then the body returns
 * FASTCPU_PERCPU_ELSEWHERE_ and the caller takes its other way. A sequence
 * the kernel aborted, or whose index moved before it began, runs again.
 */
typedef int (*fastcpu_percpu_find_)(enum fastcpu_index by, const volatile int **cpu_at,
				    const volatile int **index_at);

#define FASTCPU_PERCPU_ELSEWHERE_ (-2)

/* A test may count the sequences the kernel aborted (nothing by default). */
#ifndef FASTCPU_PERCPU_ON_ABORT
# define FASTCPU_PERCPU_ON_ABORT() ((void)0)
#endif

/* The word of slot index. */
static inline intptr_t *fastcpu_percpu_slot_(void *base, size_t stride, size_t index)
{
	return (intptr_t *)(void *)((char *)base + index * stride);
}

/*
 * The inline way: the area at fastcpu_percpu_cpu_id_offset, published
 * where the library runs its sequences on the areas there (the anchor, -1,
 * until then). By concurrency id, the index is the concurrency id's word
 * (mm_cid, or cpu_id) of the same area, published before; cpu_id tells
 * whether the area is registered (an area not registered may hold mm_cid
 * 0).
 */
static inline int fastcpu_percpu_index_(enum fastcpu_index by, const volatile int **cpu_at,
					const volatile int **index_at)
{
	int cpu;

	*cpu_at = fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));
	cpu = **cpu_at;
	if (by == FASTCPU_BY_CPU) {
		*index_at = *cpu_at;
		return cpu;
	}
	*index_at = fastcpu_cid_word_();
	if (__builtin_expect(cpu < 0, 0))
		return -1;
	return **index_at;
}

/*
 * Where the inline way finds no area to run a sequence on: the slot of the
 * upper half the calling thread takes. Its CPU read at
 * fastcpu_percpu_upper_cpu_id_offset (an area that takes no sequences of
 * the library's), with no call; else, where the thread's fallback is
 * RDPID, read with RDPID in line (the upper half's first index in the
 * thread's word at fastcpu_percpu_rdpid_offset, FASTCPU_1.4; 0 elsewhere);
 * else the library's answer (FASTCPU_1.4). The caller changes the slot
 * atomically itself: a locked instruction after the call's return waits on
 * less than one inside it. -1 where the thread may run a sequence or has
 * not attached: the caller then takes the operation out of line whole.
 */
extern FASTCPU_VISIBLE ptrdiff_t fastcpu_percpu_rdpid_offset;
FASTCPU_VISIBLE long fastcpu_percpu_upper_slot_out_of_line(void);

/* x86's RDPID: TSC_AUX, which Linux sets to (node << 12) | cpu on every
 * CPU. The opcode spelled out, so that old assemblers build it too; the
 * library's own use of it is this one (lib/arch/x86.h). */
#define FASTCPU_TSC_AUX_CPU_BITS_ 12
#define FASTCPU_TSC_AUX_CPU_MASK_ ((1u << FASTCPU_TSC_AUX_CPU_BITS_) - 1)
#if defined(FASTCPU_ARCH_X86) && (defined(__GNUC__) || defined(__clang__))
# define FASTCPU_RDPID_INLINE_ 1
static inline unsigned long fastcpu_rdpid_(void)
{
	unsigned long aux;

	__asm__ __volatile__(".byte 0xf3, 0x0f, 0xc7, 0xf8" /* rdpid %eax/%rax */
			     : "=a"(aux));
	return aux;
}
#endif

static inline long fastcpu_percpu_upper_index_(void)
{
	int cpu = *fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_upper_cpu_id_offset));
	long base = (long)fastcpu_published_(&fastcpu_percpu_upper_base);

	if (cpu >= 0 && base > 0)
		return cpu + base;
#ifdef FASTCPU_RDPID_INLINE_
	base = *fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_rdpid_offset));
	if (base > 0)
		return (long)(fastcpu_rdpid_() & FASTCPU_TSC_AUX_CPU_MASK_) + base;
#endif
	return fastcpu_percpu_upper_slot_out_of_line();
}

/*
 * The per-CPU lock's holder and the kernel's time-slice extension (Linux
 * 7.0, where built in): where the thread's area has the kernel's "enabled"
 * bit in its flags (the library enabled it: lib/slice.c), the holder sets
 * the request byte of the area's slice_ctrl once it has the lock, unless a
 * request or a grant is there already (a lock inside a lock); the unlock
 * clears it and, where the kernel granted the thread more time, gives the
 * CPU back. Offsets from cpu_id (lib/slice.c checks them against the
 * kernel's layout). Compiler barriers only: it is all the thread's own.
 */
#define FASTCPU_RSEQ_FLAGS_FROM_CPU_ID_ 12
#define FASTCPU_RSEQ_REQUEST_FROM_CPU_ID_ 24
#define FASTCPU_RSEQ_GRANTED_FROM_CPU_ID_ 25
#define FASTCPU_RSEQ_SLICE_ENABLED_ 0x20

/* The calling thread's area's byte at offset from cpu_id, where the area
 * is registered and the extension enabled for the thread; else NULL. */
static inline volatile unsigned char *fastcpu_percpu_slice_byte_(ptrdiff_t offset)
{
	const volatile int *cpu_at =
		fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));
	const volatile char *area = (const volatile char *)cpu_at;

	if (*cpu_at < 0 || !(*(const volatile unsigned int *)(const volatile void *)
			     (area + FASTCPU_RSEQ_FLAGS_FROM_CPU_ID_) & FASTCPU_RSEQ_SLICE_ENABLED_))
		return NULL;
	return (volatile unsigned char *)(uintptr_t)(area + offset);
}

static inline void fastcpu_percpu_slice_request_(void)
{
	volatile unsigned char *request = fastcpu_percpu_slice_byte_(FASTCPU_RSEQ_REQUEST_FROM_CPU_ID_);

	if (__builtin_expect(request != NULL, 0) && request[0] == 0 && request[1] == 0)
		request[0] = 1;
	__asm__ __volatile__("" : : : "memory");
}

static inline void fastcpu_percpu_slice_release_(void)
{
	volatile unsigned char *request;

	__asm__ __volatile__("" : : : "memory");
	request = fastcpu_percpu_slice_byte_(FASTCPU_RSEQ_REQUEST_FROM_CPU_ID_);
	if (__builtin_expect(request != NULL, 0)) {
		request[0] = 0;
		__asm__ __volatile__("" : : : "memory");
		if (request[FASTCPU_RSEQ_GRANTED_FROM_CPU_ID_ - FASTCPU_RSEQ_REQUEST_FROM_CPU_ID_])
			fastcpu_percpu_slice_yield_out_of_line();
	}
}

#ifdef FASTCPU_RSEQ_INLINE
/* Adds value to the thread's slot: 0, or FASTCPU_PERCPU_ELSEWHERE_. */
static inline int fastcpu_percpu_add_body_(void *base, size_t stride, enum fastcpu_index by,
					   intptr_t value, fastcpu_percpu_find_ find)
{
	const volatile int *cpu_at, *index_at;
	int index, r;

	while (__builtin_expect((index = find(by, &cpu_at, &index_at)) >= 0, 1)) {
		r = fastcpu_rseq_add_(cpu_at, index_at, index,
				      fastcpu_percpu_slot_(base, stride, (size_t)index), value);
		if (__builtin_expect(r == 0, 1))
			return 0;
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
	return FASTCPU_PERCPU_ELSEWHERE_;
}

/* Adds value to the thread's slot and sets *old to what it held before:
 * the slot's index, or FASTCPU_PERCPU_ELSEWHERE_ (the counter tree's leaf,
 * <fastcpu/counter-tree.h>). */
static inline int fastcpu_percpu_add_return_body_(void *base, size_t stride,
						  enum fastcpu_index by, intptr_t value,
						  intptr_t *old, fastcpu_percpu_find_ find)
{
	const volatile int *cpu_at, *index_at;
	int index, r;

	while (__builtin_expect((index = find(by, &cpu_at, &index_at)) >= 0, 1)) {
		r = fastcpu_rseq_add_return_(cpu_at, index_at, index,
					     fastcpu_percpu_slot_(base, stride, (size_t)index),
					     value, old);
		if (__builtin_expect(r == 0, 1))
			return index;
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
	return FASTCPU_PERCPU_ELSEWHERE_;
}

/* If the thread's slot holds expect, stores newv: its index; else -1 and
 * the value found in *seen; or FASTCPU_PERCPU_ELSEWHERE_. acquire (a
 * constant) orders the slot's read before every later access. */
static inline int fastcpu_percpu_cmpstore_body_(void *base, size_t stride,
						enum fastcpu_index by, intptr_t expect,
						intptr_t newv, intptr_t *seen, int acquire,
						fastcpu_percpu_find_ find)
{
	const volatile int *cpu_at, *index_at;
	intptr_t found;
	int index, r;

	while ((index = find(by, &cpu_at, &index_at)) >= 0) {
		r = fastcpu_rseq_cmpstore_(cpu_at, index_at, index,
					   fastcpu_percpu_slot_(base, stride, (size_t)index),
					   expect, newv, &found, acquire);
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
		if (r != 0)
			continue;
		if (found == expect)
			return index;
		*seen = found;
		return -1;
	}
	return FASTCPU_PERCPU_ELSEWHERE_;
}

/* Takes the first node of the thread's slot's list into *node (NULL where
 * it is empty): 0, or FASTCPU_PERCPU_ELSEWHERE_. */
static inline int fastcpu_percpu_pop_body_(void *base, size_t stride, enum fastcpu_index by,
					   size_t next_offset, void **node,
					   fastcpu_percpu_find_ find)
{
	const volatile int *cpu_at, *index_at;
	intptr_t head;
	int index, r;

	while ((index = find(by, &cpu_at, &index_at)) >= 0) {
		r = fastcpu_rseq_pop_(cpu_at, index_at, index,
				      fastcpu_percpu_slot_(base, stride, (size_t)index),
				      next_offset, &head);
		if (r == 0) {
			*node = (void *)head;
			return 0;
		}
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
	return FASTCPU_PERCPU_ELSEWHERE_;
}
#else
/* No sequences here: every operation takes the other way, once find has
 * run (the library's attaches the thread, which the other way needs). */
static inline int fastcpu_percpu_elsewhere_(enum fastcpu_index by, fastcpu_percpu_find_ find)
{
	const volatile int *cpu_at, *index_at;

	(void)find(by, &cpu_at, &index_at);
	return FASTCPU_PERCPU_ELSEWHERE_;
}

static inline int fastcpu_percpu_add_body_(void *base, size_t stride, enum fastcpu_index by,
					   intptr_t value, fastcpu_percpu_find_ find)
{
	(void)base, (void)stride, (void)value;
	return fastcpu_percpu_elsewhere_(by, find);
}

static inline int fastcpu_percpu_add_return_body_(void *base, size_t stride,
						  enum fastcpu_index by, intptr_t value,
						  intptr_t *old, fastcpu_percpu_find_ find)
{
	(void)base, (void)stride, (void)value, (void)old;
	return fastcpu_percpu_elsewhere_(by, find);
}

static inline int fastcpu_percpu_cmpstore_body_(void *base, size_t stride,
						enum fastcpu_index by, intptr_t expect,
						intptr_t newv, intptr_t *seen, int acquire,
						fastcpu_percpu_find_ find)
{
	(void)base, (void)stride, (void)expect, (void)newv, (void)seen, (void)acquire;
	return fastcpu_percpu_elsewhere_(by, find);
}

static inline int fastcpu_percpu_pop_body_(void *base, size_t stride, enum fastcpu_index by,
					   size_t next_offset, void **node,
					   fastcpu_percpu_find_ find)
{
	(void)base, (void)stride, (void)next_offset, (void)node;
	return fastcpu_percpu_elsewhere_(by, find);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_PLUMBING_H */
