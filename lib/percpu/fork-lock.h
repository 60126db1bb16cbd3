/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/fork-lock.h: a mutex held across fork(), which the forking thread's handlers pass. */

#ifndef FASTCPU_PERCPU_FORK_LOCK_H
#define FASTCPU_PERCPU_FORK_LOCK_H

#include <pthread.h>
#include <stdbool.h>

/*
 * For what many stores change (per-CPU memory's chunks and bitmaps, the
 * counter trees' list), which a fork child must find whole: the library's
 * fork handlers, registered at load, hold the mutex across the fork
 * (before: take it; after, in the parent and the child: give it). A
 * program's own fork handler that takes it meanwhile, whichever order the
 * handlers run in, runs in the forking thread, which holds it: take says
 * false and the caller goes ahead without it (nothing is half changed
 * then), and gives it back with what take said. Not the wing's lock word
 * (lock.h): that one a fork child finds free where a vanished thread held
 * it, which suits what is whole at every store; and a caller waits for
 * this one however it came (the wing's ranks would send it another way).
 */
struct fastcpu_fork_lock {
	pthread_mutex_t mutex;
	bool forking;			/* held for a fork by fork_thread */
	pthread_t fork_thread;
};
#define FASTCPU_FORK_LOCK_INIT { .mutex = PTHREAD_MUTEX_INITIALIZER }

void fastcpu_fork_lock_before(struct fastcpu_fork_lock *lock);
void fastcpu_fork_lock_after(struct fastcpu_fork_lock *lock);
bool fastcpu_fork_lock_take(struct fastcpu_fork_lock *lock);
void fastcpu_fork_lock_give(struct fastcpu_fork_lock *lock, bool taken);

#endif /* FASTCPU_PERCPU_FORK_LOCK_H */
