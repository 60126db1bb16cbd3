/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/fork-lock.c: a mutex held across fork(), which the forking thread's handlers pass. */

#include "fork-lock.h"

void fastcpu_fork_lock_before(struct fastcpu_fork_lock *lock)
{
	pthread_mutex_lock(&lock->mutex);
	lock->fork_thread = pthread_self();
	__atomic_store_n(&lock->forking, true, __ATOMIC_RELAXED);
}

void fastcpu_fork_lock_after(struct fastcpu_fork_lock *lock)
{
	__atomic_store_n(&lock->forking, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock->mutex);
}

bool fastcpu_fork_lock_take(struct fastcpu_fork_lock *lock)
{
	if (__atomic_load_n(&lock->forking, __ATOMIC_RELAXED) &&
	    pthread_equal(lock->fork_thread, pthread_self()))
		return false;
	pthread_mutex_lock(&lock->mutex);
	return true;
}

void fastcpu_fork_lock_give(struct fastcpu_fork_lock *lock, bool taken)
{
	if (taken)
		pthread_mutex_unlock(&lock->mutex);
}
