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
#include "wing-thread.h"

/*
 * Every lock of the wing (the upper half's pop turns, the object cache's
 * upper-half indexes, the list of fronts) is one 64-bit word: 0 where
 * free, else its holder's serial, a number a thread takes at its first
 * lock that no other thread of the process, or of a fork child descended
 * from it, is ever given (lock.c). One compare-and-swap takes it, one store
 * gives it back. So a thread that finds a lock taken knows at once whether
 * it holds it itself (a signal handler that interrupted its own thread
 * inside: it must not wait, it takes another way), and a fork child finds
 * free every lock that a thread it does not have held at the fork, however
 * many forks back (what such a lock guards is whole at every store: the
 * holder's change, half done, is simply not there). Another live holder
 * is waited for (wait.h), as long as it takes: a holder keeps a lock for a
 * few instructions, unless preempted.
 */
enum fastcpu_lock_try { FASTCPU_LOCK_TAKEN, FASTCPU_LOCK_HELD_HERE, FASTCPU_LOCK_BUSY };

/*
 * A lock's rank: where it stands in the order of waiting. An outer lock
 * (the list of fronts) is waited for only by a thread that holds no lock;
 * an inner one (a turn, an upper-half index) also under outer ones, never
 * under another inner one, and nothing is waited for under an inner one.
 * A signal handler whose thread holds a lock is the one caller that would
 * break the order (its thread's lock is held below it): it finds the lock
 * it may not wait for busy and takes another way at once, as where its own
 * thread holds that very lock. Else two handlers, each interrupting the
 * holder of the lock the other waits for, would wait for ever. Each holder
 * waits only for holders that wait for nothing below them, so every wait
 * ends. A thread counts the ranks it holds (wing-thread.h), summed.
 */
enum fastcpu_lock_rank { FASTCPU_LOCK_OUTER = 1, FASTCPU_LOCK_INNER = 1 << 16 };

/* The calling thread's serial, taken at its first lock (lock.c). */
uint64_t fastcpu_lock_first_serial(void);

static inline uint64_t fastcpu_lock_token(void)
{
	uint64_t serial = __atomic_load_n(&fastcpu_wing_thread.lock.serial, __ATOMIC_RELAXED);

	if (unlikely(serial == 0))
		serial = fastcpu_lock_first_serial();
	return serial;
}

/* Takes word if it is free (or held by a thread the fork left behind). */
enum fastcpu_lock_try fastcpu_lock_try(uint64_t *word, enum fastcpu_lock_rank rank);
bool fastcpu_lock_take_contended(uint64_t *word, enum fastcpu_lock_rank rank);

/* Takes word, waiting for another holder where its rank allows; false, at
 * once, where the calling thread holds it or may not wait. Free, it takes
 * one compare-and-swap, in line. Counted before the swap and after the
 * give, a handler between them sees one lock too many, never too few. */
static inline bool fastcpu_lock_take(uint64_t *word, enum fastcpu_lock_rank rank)
{
	uint64_t seen = 0;

	fastcpu_wing_thread.lock.held += rank;
	if (likely(__atomic_compare_exchange_n(word, &seen, fastcpu_lock_token(), false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return true;
	return fastcpu_lock_take_contended(word, rank);
}

static inline void fastcpu_lock_give(uint64_t *word, enum fastcpu_lock_rank rank)
{
	__atomic_store_n(word, 0, __ATOMIC_RELEASE);
	fastcpu_wing_thread.lock.held -= rank;
}

/* The lock of the upper half's lists of CPU cpu, in every array: pops of
 * one slot of the upper half take turns (ops.c says why). One lock a cache
 * line, 1024 of them (CPU k and k + 1024 share one on the machines that have
 * both), mapped at the first pop that needs one. */
uint64_t *fastcpu_turn(size_t cpu);

/* In a fork child, before anything takes a lock (the wing's fork
 * protocol, fork.c): the locks of the threads it does not have read free
 * from now on. */
void fastcpu_lock_after_fork_child(void);

#endif /* FASTCPU_PERCPU_LOCK_H */
