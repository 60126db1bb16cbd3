/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/util.c: small async-signal-safe helpers. */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* A system call whose failure is returned as -errno, leaving the caller's
 * errno as it was: failed probes must not show through to the user. */
long fastcpu_raw_syscall_errno(long nr, long a, long b, long c, long d)
{
	int saved = errno;
	long ret = syscall(nr, a, b, c, d);

	if (ret == -1)
		ret = -errno;
	errno = saved;
	return ret;
}

/*
 * Whether the calling task is the thread whose TLS it runs on. A vfork()
 * child, or a clone(CLONE_VM) child without a TLS of its own, runs on its
 * parent's: whatever it registers or stores there is found by the parent
 * afterwards. The thread library's descriptor holds its thread's tid, and
 * pthread_getcpuclockid() reads it without a system call, encoded as the
 * kernel's per-thread CPU clock id (~tid << 3 | 6, glibc and musl alike);
 * gettid is the calling task's. One system call: slow paths only.
 */
bool fastcpu_task_owns_tls(void)
{
	clockid_t clock;
	int32_t encoded;

	if (pthread_getcpuclockid(pthread_self(), &clock) != 0)
		return false;
	encoded = (int32_t)clock;
	return ~(encoded >> 3) == fastcpu_raw_syscall_errno(SYS_gettid, 0, 0, 0, 0);
}

/* getauxval() sets ENOENT for an entry the kernel did not pass (no vDSO
 * under valgrind, no AT_RSEQ_* before Linux 6.3): 0 here, errno kept. */
unsigned long fastcpu_getauxval(unsigned long type)
{
	int saved = errno;
	unsigned long value = getauxval(type);

	errno = saved;
	return value;
}

/* Configuration is ignored in setuid and other AT_SECURE processes. */
const char *fastcpu_getenv(const char *name)
{
	return secure_getenv(name);
}

void fastcpu_warn_once(unsigned int key, const char *line)
{
	static unsigned int warned;
	int saved = errno;

	if (__atomic_fetch_or(&warned, 1u << key, __ATOMIC_RELAXED) & (1u << key))
		return;
	/* write(2), not stdio: no allocation, no locks, safe in a handler. */
	if (write(STDERR_FILENO, line, strlen(line)) < 0)
		(void)0;
	errno = saved;
}
