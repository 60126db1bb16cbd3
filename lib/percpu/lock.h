/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/lock.h: the wing's locks: a word that names its holder. */

#ifndef FASTCPU_PERCPU_LOCK_H
#define FASTCPU_PERCPU_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "internal.h"

/*
 * Every lock of the wing (the upper half's lists, the object cache's
 * magazines and depot) is one 64-bit word: 0 where free, else the token of
 * its holder, which it takes with one compare-and-swap and gives back with
 * one store. The token is the holder's thread pointer and the process image
 * it took the lock in (lock.c). So a thread that finds a lock taken knows at
 * once whether it holds it itself (a signal handler that interrupted its own
 * thread inside: it must not wait, it takes another way), and a fork child
 * finds free every lock a thread it does not have held at the fork (what
 * such a lock guards is whole at every store: the holder's change, half
 * done, is simply not there). Another live holder is waited for (wait.h),
 * as long as it takes: a holder keeps a lock for a few instructions, unless
 * preempted.
 */
enum fastcpu_lock_try { FASTCPU_LOCK_TAKEN, FASTCPU_LOCK_HELD_HERE, FASTCPU_LOCK_BUSY };

/* A token: the thread pointer in the low 56 bits (every Linux user address
 * fits), the process image in the high 8 (lock.c). */
#define FASTCPU_LOCK_POINTER_BITS 56
extern uint64_t fastcpu_lock_image;

static inline uint64_t fastcpu_lock_token(void)
{
	return ((uint64_t)(uintptr_t)fastcpu_arch_thread_pointer() &
		(((uint64_t)1 << FASTCPU_LOCK_POINTER_BITS) - 1)) |
	       __atomic_load_n(&fastcpu_lock_image, __ATOMIC_RELAXED) << FASTCPU_LOCK_POINTER_BITS;
}

/* Takes word if it is free (or held by a thread the fork left behind). */
enum fastcpu_lock_try fastcpu_lock_try(uint64_t *word);
bool fastcpu_lock_take_contended(uint64_t *word);

/* Takes word, waiting for another holder; false, at once, where the
 * calling thread holds it. Free, it takes one compare-and-swap, in line. */
static inline bool fastcpu_lock_take(uint64_t *word)
{
	uint64_t seen = 0;

	if (likely(__atomic_compare_exchange_n(word, &seen, fastcpu_lock_token(), false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return true;
	return fastcpu_lock_take_contended(word);
}

static inline void fastcpu_lock_give(uint64_t *word)
{
	__atomic_store_n(word, 0, __ATOMIC_RELEASE);
}

/* The lock of the upper half's lists of CPU cpu, in every array: pops of
 * one slot of the upper half take turns (ops.c says why). One lock a cache
 * line, 1024 of them (CPU k and k + 1024 share one on the machines that have
 * both), mapped at the first pop that needs one. */
uint64_t *fastcpu_turn(size_t cpu);

#endif /* FASTCPU_PERCPU_LOCK_H */
