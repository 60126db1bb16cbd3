/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/affinity.c: sched_setaffinity() that also invalidates the cache. */

#include <sched.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"

/*
 * A thread that pins itself and asks at once must see its new CPU, as glibc's
 * own tests expect (glibc reset its vgetcpu cache here for the same reason).
 * glibc's sched_setaffinity is the plain system call; this one is too, and
 * the version script gives it glibc's current version node only (configure
 * finds it), so binaries linked to the two-argument GLIBC_2.3.3 variant still
 * reach glibc's. Another thread's
 * cache, or one changed by pthread_setaffinity_np, may stay stale for up to
 * one clock tick.
 */
FASTCPU_EXPORT int sched_setaffinity(pid_t pid, size_t size,
				     const cpu_set_t *set)
{
	bool self = pid == 0 || pid == (pid_t)syscall(SYS_gettid);
	long ret;

	if (self)
		fastcpu_cache_hold();
	ret = syscall(SYS_sched_setaffinity, pid, size, set);
	if (self)
		fastcpu_cache_release();
	return (int)ret;
}
