/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tests/harness/interpose.c: calls the library makes, failed or interrupted where a test asks. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"

/*
 * This program's own definitions of two functions the library calls
 * through its PLT, so that a test can cause a fault at a fixed point: the
 * kernel refusing memory (mprotect, which the object cache's space makes
 * writable with), and a signal that lands inside the library while it
 * sets a thread's key (pthread_setspecific, which it calls when a thread
 * first keeps objects). Unarmed, each does what the C library's does.
 */
static int mprotect_failures;		/* the next calls that fail, ENOMEM */
static __thread int setspecific_signal;	/* raised inside the thread's next call */

void test_fail_mprotect(int calls)
{
	__atomic_store_n(&mprotect_failures, calls, __ATOMIC_RELAXED);
}

int mprotect(void *addr, size_t len, int prot)
{
	int left = __atomic_load_n(&mprotect_failures, __ATOMIC_RELAXED);

	while (left > 0)
		if (__atomic_compare_exchange_n(&mprotect_failures, &left, left - 1, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			errno = ENOMEM;
			return -1;
		}
	return (int)syscall(SYS_mprotect, addr, len, prot);
}

void test_signal_in_setspecific(int sig)
{
	setspecific_signal = sig;
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
	static int (*next)(pthread_key_t, const void *);
	int sig = setspecific_signal;

	if (next == NULL)
		*(void **)&next = dlsym(RTLD_NEXT, "pthread_setspecific");
	if (sig != 0) {
		setspecific_signal = 0;
		raise(sig);
	}
	return next(key, value);
}
