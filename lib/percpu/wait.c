/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wait.c: how a thread waits for what another holds. */

#include <errno.h>
#include <sched.h>

#include "internal.h"
#include "util.h"
#include "wait.h"

/*
 * For what another thread holds for a few instructions (a per-CPU lock, a
 * turn): a short spin for a holder running on another CPU, then this CPU
 * given up (the holder is most often preempted on this one), then sleeps
 * from 1 us doubling to 1 ms: a SCHED_FIFO waiter yields only to threads
 * of its own priority, and only its sleep lets a lower one run. The one way
 * the wing waits: for a lock (lock.c, where its order lets a thread wait)
 * and for a per-CPU lock (ops.c), never giving up. Async-signal-safe; errno
 * kept. No cancellation point (the sleep is the system call itself, not
 * nanosleep()): the waiter may hold a lock, or a magazine it gives back,
 * and a thread cancelled here would keep it for ever.
 */
void fastcpu_wait_for_holder(unsigned int attempt)
{
	long nap = 1000;
	int saved = errno;

	if (attempt < FASTCPU_WAIT_SPINS) {
		fastcpu_arch_pause();
		return;
	}
	if (attempt < FASTCPU_WAIT_SPINS + FASTCPU_WAIT_YIELDS) {
		sched_yield();
		errno = saved;
		return;
	}
	for (unsigned int k = FASTCPU_WAIT_SPINS + FASTCPU_WAIT_YIELDS;
	     k < attempt && nap < 1000000; k++)
		nap *= 2;
	if (nap > 1000000)
		nap = 1000000;
	fastcpu_nap_nocancel(nap);
	errno = saved;
}
