/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* include/fastcpu/objcache.h: the object cache (fastcpu_objcache(3)). */

#ifndef FASTCPU_OBJCACHE_H
#define FASTCPU_OBJCACHE_H

#include <stddef.h>

#include "fastcpu/plumbing.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An object cache (FASTCPU_1.3): objects of one size, from per-CPU free
 * lists (pushed and popped by one restartable sequence each, no atomic
 * instruction, where the thread has rseq; under a short turn in the upper
 * half where it has not), refilled from and emptied to a depot the CPUs
 * share, a batch at a time.
 *
 * new(size, align): objects of size bytes (1 to FASTCPU_OBJCACHE_MAX_SIZE)
 * aligned to align (a power of two up to FASTCPU_OBJCACHE_MAX_ALIGN; 0:
 * the largest power of two dividing size, up to 16), each taking at least
 * two pointers and a multiple of its alignment. NULL with errno EINVAL
 * (bad size or align) or ENOMEM.
 *
 * alloc(cache): an object, its contents undefined; NULL with errno ENOMEM
 * (no address space left), or EINVAL (cache NULL).
 *
 * free(cache, object): object back to the cache, NULL ignored. A pointer
 * that is not one of this cache's objects, or an object freed twice where
 * that is cheap to see (it is the last one freed on that CPU; every time
 * where AddressSanitizer is on), sets errno EINVAL and changes nothing; a
 * double free not seen hands the object out twice later, as with malloc.
 * A free object's first two words are the cache's: a write after free
 * breaks the cache (ASan reports it: free objects stay poisoned there).
 *
 * A CPU's list holds at most max(16, FASTCPU_OBJCACHE_CPU_BYTES / object
 * size) objects, as many for the upper half's of that CPU, however many
 * threads run there; the rest of what is freed waits in the depot for any
 * CPU: memory freed on one CPU and allocated on another goes round, neither
 * lost nor hoarded. Memory stays with the cache until destroy.
 *
 * alloc and free are thread-safe and async-signal-safe (a signal handler
 * may call them on any cache, interrupting any call); new is thread-safe,
 * destroy must not run while another call uses its cache, and neither is
 * async-signal-safe; destroy frees every object of the cache, given out or
 * not.
 * A fork child gets the cache as the parent had it, minus the objects that
 * other threads were moving at that moment; a vfork child must not use it
 * (it runs on its parent's rseq area, which the kernel does not keep).
 */
struct fastcpu_objcache;

#define FASTCPU_OBJCACHE_MAX_SIZE (1024 * 1024)
#define FASTCPU_OBJCACHE_MAX_ALIGN 4096
#define FASTCPU_OBJCACHE_CPU_BYTES 32768

FASTCPU_VISIBLE struct fastcpu_objcache *fastcpu_objcache_new(size_t size, size_t align);
FASTCPU_VISIBLE void *fastcpu_objcache_alloc(struct fastcpu_objcache *cache);
FASTCPU_VISIBLE void fastcpu_objcache_free(struct fastcpu_objcache *cache, void *object);
FASTCPU_VISIBLE void fastcpu_objcache_destroy(struct fastcpu_objcache *cache);

#ifdef __cplusplus
}
#endif

#endif /* FASTCPU_OBJCACHE_H */
