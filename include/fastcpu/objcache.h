/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/objcache.h: the object cache (fastcpu_objcache(3)). */

#ifndef FASTCPU_OBJCACHE_H
#define FASTCPU_OBJCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "fastcpu/percpu-alloc.h"
#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An object cache (FASTCPU_1.3): objects of one size, from per-CPU
 * magazines (arrays of pointers to free objects; a free object itself is
 * never read or written), each taken from and given to by one restartable
 * sequence where the thread has rseq, under its one-atomic lock in the
 * upper half where it has not; a magazine run empty or full is traded at a
 * depot the CPUs share, capacity objects by two pointers.
 *
 * new(size, align): objects of size bytes (1 to FASTCPU_OBJCACHE_MAX_SIZE)
 * aligned to align (a power of two up to FASTCPU_OBJCACHE_MAX_ALIGN; 0:
 * the largest power of two dividing size, up to 16), each taking a
 * multiple of its alignment. NULL with errno EINVAL (bad size or align) or
 * ENOMEM.
 *
 * alloc(cache): an object, its contents undefined; NULL with errno ENOMEM
 * (no address space or memory left), or EINVAL (cache NULL).
 *
 * free(cache, object): object back to the cache, NULL ignored; it never
 * needs memory (the room was made when the object was carved). A pointer
 * that is not one of this cache's objects (another cache's, malloc's, one
 * inside an object) sets errno EINVAL and changes nothing. An object freed
 * twice is seen where AddressSanitizer is on (EINVAL), else handed out
 * twice later, as with malloc; a write after free changes only the object.
 *
 * A CPU index holds at most capacity objects: the largest count of the form
 * 2^k - 1, up to 511, that is at most FASTCPU_OBJCACHE_CPU_BYTES / size,
 * and 1 at least; as many for the upper half's index of that CPU, however
 * many threads run there. The index is the thread's concurrency id (mm_cid,
 * Linux 6.3+: a process that runs on 4 CPUs fills 4 magazines, however
 * many the machine has), else its CPU. The rest of what is freed waits in
 * the depot for any CPU: memory freed on one CPU and allocated on another
 * goes round, neither lost nor hoarded. Memory stays with the cache until
 * destroy.
 *
 * alloc and free are thread-safe and async-signal-safe (a signal handler
 * may call them on any cache, interrupting any call); new is thread-safe,
 * destroy must not run while another call uses its cache, and neither is
 * async-signal-safe; destroy frees every object of the cache, given out or
 * not. A fork child gets the cache as the parent had it, minus the objects
 * that other threads were moving at that moment; a vfork child must not use
 * it (it runs on its parent's rseq area, which the kernel does not keep).
 */
struct fastcpu_objcache;

#define FASTCPU_OBJCACHE_MAX_SIZE (1024 * 1024)
#define FASTCPU_OBJCACHE_MAX_ALIGN 4096
#define FASTCPU_OBJCACHE_CPU_BYTES 32768

FASTCPU_VISIBLE struct fastcpu_objcache *fastcpu_objcache_new(size_t size, size_t align);
FASTCPU_VISIBLE void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache);
FASTCPU_VISIBLE void fastcpu_objcache_free(struct fastcpu_objcache *cache, void *object);
FASTCPU_VISIBLE void fastcpu_objcache_destroy(struct fastcpu_objcache *cache);

/*
 * Not an API: what the inline alloc and free read, the first words of
 * every cache a program made with this header (layout FASTCPU_OBJCACHE_
 * LAYOUT_, which new passes: a library that does not know the layout
 * makes no cache, EINVAL, rather than one the program misreads). alloc
 * and free run their sequence on the thread's magazine in the caller's
 * code, and call the library only for a magazine empty or full, an abort,
 * a thread without rseq there, or a pointer outside the cache's first
 * range of objects. Not under AddressSanitizer, which the library's own
 * code serves, nor where FASTCPU_PERCPU_OUT_OF_LINE is defined.
 */
#define FASTCPU_OBJCACHE_LAYOUT_ 1

struct fastcpu_objcache_fast_ {
	void *tops;			/* per-CPU memory: copy i, index i's magazine top */
	uintptr_t mask;			/* a magazine's bytes - 1 */
	uintptr_t low;			/* the first range: object k at low + k * size */
	uintptr_t carved;		/* its objects carved (they only grow) */
	uintptr_t inverse;		/* size = odd << shift: odd's inverse modulo
					 * 2^(bits of a pointer) */
	unsigned int shift;
	/* The index: the word this far from the area's cpu_id (mm_cid's,
	 * the concurrency id, where the kernel keeps one; 0, the CPU). */
	ptrdiff_t index_distance;
};

FASTCPU_VISIBLE struct fastcpu_objcache *fastcpu_objcache_new_layout_(size_t size, size_t align,
								   unsigned int layout);
#define fastcpu_objcache_new(size, align) \
	fastcpu_objcache_new_layout_((size), (align), FASTCPU_OBJCACHE_LAYOUT_)

/* Whether object is one of the objects carved from the cache's first
 * range, by one multiplication and a rotation (Granlund and Montgomery:
 * for size = odd << shift, rotr(off * odd^-1, shift) is off / size where
 * off is a multiple of size, else above UINTPTR_MAX / size), compared with
 * the objects carved: an offset below the range wraps round, and is no
 * object either. */
static inline int fastcpu_objcache_ours_(const struct fastcpu_objcache_fast_ *fast,
					 const void *object)
{
	const unsigned int bits = 8 * sizeof(uintptr_t);
	uintptr_t q = ((uintptr_t)object - fast->low) * fast->inverse;

	return ((q >> fast->shift) | (q << ((bits - fast->shift) & (bits - 1)))) <
	       __atomic_load_n(&fast->carved, __ATOMIC_RELAXED);
}

#if defined(__SANITIZE_ADDRESS__)
# define FASTCPU_OBJCACHE_SANITIZED_ 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define FASTCPU_OBJCACHE_SANITIZED_ 1
# endif
#endif

/*
 * Not an API: the magazine's pop and push on the calling thread's index
 * (push 0: *object taken; 1: *object given), written once and bound twice
 * (as <fastcpu/plumbing.h>'s per-CPU operations are): in a program's code
 * below, from the area at the published offset, and in the library, from
 * the thread's own area, where a magazine run empty or full is traded
 * (lib/percpu/objcache-index.h).
 * cpu_at is the area's cpu_id; the index is the word index_distance from
 * it (mm_cid, the concurrency id, where the kernel keeps one; cpu_id
 * itself), read only while cpu_id says the area is registered (an area
 * not registered may hold mm_cid 0). A sequence the kernel aborted, or
 * whose index moved before it began, runs again. It returns 0 (done),
 * FASTCPU_OBJCACHE_TRADE_ (the magazine is empty, or full or none: nothing
 * stored; *index and *index_at say which index), or
 * FASTCPU_PERCPU_ELSEWHERE_ (the area is not registered: no sequence;
 * *index -1).
 */
#define FASTCPU_OBJCACHE_TRADE_ 2

#ifdef FASTCPU_RSEQ_INLINE
static inline int fastcpu_objcache_index_(const struct fastcpu_objcache_fast_ *fast,
					  const volatile int *cpu_at,
					  const volatile int **index_at, int *index)
{
	*index_at = (const volatile int *)((uintptr_t)cpu_at + (uintptr_t)fast->index_distance);
	if (__builtin_expect(*cpu_at < 0, 0))
		return 0;
	*index = **index_at;
	return 1;
}

static inline int fastcpu_objcache_step_body_(const struct fastcpu_objcache_fast_ *fast,
					      const volatile int *cpu_at,
					      const volatile int **index_at, int *index,
					      int push, intptr_t *object)
{
	int r;

	while (fastcpu_objcache_index_(fast, cpu_at, index_at, index)) {
		intptr_t *top = fastcpu_percpu_slot_(fast->tops, FASTCPU_PERCPU_STRIDE,
						     (size_t)*index);

		if (push)
			r = fastcpu_rseq_magazine_push_(cpu_at, *index_at, *index, top,
							(void *)*object, fast->mask);
		else
			r = fastcpu_rseq_magazine_pop_(cpu_at, *index_at, *index, top, fast->mask,
						       object);
		if (__builtin_expect(r == 0, 1))
			return 0;
		if (r == FASTCPU_OBJCACHE_TRADE_)
			return r;
		if (r < 0)
			FASTCPU_PERCPU_ON_ABORT();
	}
	*index = -1;
	return FASTCPU_PERCPU_ELSEWHERE_;
}

# ifndef FASTCPU_OBJCACHE_SANITIZED_
/* The inline binding: the area at the published offset (the anchor, -1,
 * until the library may run its sequences there); anything but a done
 * step goes to the library, which finishes it. */
static inline const volatile int *fastcpu_objcache_area_(void)
{
	return fastcpu_tls_word_(fastcpu_published_(&fastcpu_percpu_cpu_id_offset));
}

static inline void *fastcpu_objcache_alloc_inline_(struct fastcpu_objcache *cache)
{
	const struct fastcpu_objcache_fast_ *fast = (const struct fastcpu_objcache_fast_ *)cache;
	const volatile int *index_at;
	intptr_t object;
	int index;

	if (__builtin_expect(cache != NULL, 1) &&
	    __builtin_expect(fastcpu_objcache_step_body_(fast, fastcpu_objcache_area_(), &index_at,
							 &index, 0, &object) == 0, 1))
		return (void *)object;
	return (fastcpu_objcache_alloc)(cache);
}

static inline void fastcpu_objcache_free_inline_(struct fastcpu_objcache *cache, void *object)
{
	const struct fastcpu_objcache_fast_ *fast = (const struct fastcpu_objcache_fast_ *)cache;
	const volatile int *index_at;
	intptr_t given = (intptr_t)object;
	int index;

	if (__builtin_expect(cache != NULL && fastcpu_objcache_ours_(fast, object), 1) &&
	    __builtin_expect(fastcpu_objcache_step_body_(fast, fastcpu_objcache_area_(), &index_at,
							 &index, 1, &given) == 0, 1))
		return;
	(fastcpu_objcache_free)(cache, object);
}

#  define fastcpu_objcache_alloc(cache) fastcpu_objcache_alloc_inline_(cache)
#  define fastcpu_objcache_free(cache, object) fastcpu_objcache_free_inline_((cache), (object))
# endif
#else
/* No sequences here: every step takes the library's other way. */
static inline int fastcpu_objcache_step_body_(const struct fastcpu_objcache_fast_ *fast,
					      const volatile int *cpu_at,
					      const volatile int **index_at, int *index,
					      int push, intptr_t *object)
{
	(void)fast, (void)cpu_at, (void)index_at, (void)push, (void)object;
	*index = -1;
	return FASTCPU_PERCPU_ELSEWHERE_;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_OBJCACHE_H */
