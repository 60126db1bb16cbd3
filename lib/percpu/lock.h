/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/lock.h: the wing's locks: a word that names its holder. */

#ifndef FASTCPU_PERCPU_LOCK_H
#define FASTCPU_PERCPU_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Takes word if it is free (or held by a thread the fork left behind). */
enum fastcpu_lock_try fastcpu_lock_try(uint64_t *word);
/* Takes word, waiting for another holder; false, at once, where the
 * calling thread holds it. */
bool fastcpu_lock_take(uint64_t *word);
void fastcpu_lock_give(uint64_t *word);

/* The lock of the upper half's lists of CPU cpu, in every array: pops of
 * one slot of the upper half take turns (ops.c says why). One lock a cache
 * line, 1024 of them (CPU k and k + 1024 share one on the machines that have
 * both), mapped at the first pop that needs one. */
uint64_t *fastcpu_turn(size_t cpu);

#endif /* FASTCPU_PERCPU_LOCK_H */
