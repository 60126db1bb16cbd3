/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/util.c: small async-signal-safe helpers. */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "internal.h"
#include "util.h"

#ifndef __NR_rseq
# error "<sys/syscall.h> lacks __NR_rseq: kernel headers older than 4.18"
#endif

/* A system call whose failure is returned as -errno, leaving the caller's
 * errno as it was: failed probes must not show through to the user. Its
 * fifth and sixth arguments 0 (prctl() refuses any other). */
long fastcpu_raw_syscall_errno(long nr, long a, long b, long c, long d)
{
	int saved = errno;
	long ret = syscall(nr, a, b, c, d, 0L, 0L);

	if (ret == -1)
		ret = -errno;
	errno = saved;
	return ret;
}

/*
 * No function of the library may be a cancellation point (glibc's malloc
 * and pthread_mutex_lock are not): a thread cancelled inside one would
 * leave what it holds held for ever. glibc's open, read, write, close and
 * nanosleep are; syscall() is not, nor is any system call made through it.
 */
int fastcpu_open_nocancel(const char *path, int flags)
{
	return (int)fastcpu_raw_syscall_errno(__NR_openat, AT_FDCWD, (long)(uintptr_t)path,
					      flags, 0);
}

long fastcpu_read_nocancel(int fd, void *buf, unsigned long count)
{
	return fastcpu_raw_syscall_errno(__NR_read, fd, (long)(uintptr_t)buf, (long)count, 0);
}

long fastcpu_write_nocancel(int fd, const void *buf, unsigned long count)
{
	return fastcpu_raw_syscall_errno(__NR_write, fd, (long)(uintptr_t)buf, (long)count, 0);
}

void fastcpu_close_nocancel(int fd)
{
	(void)fastcpu_raw_syscall_errno(__NR_close, fd, 0, 0, 0);
}

/* The kernel's 64-bit timespec: clock_nanosleep_time64 where a 32-bit
 * kernel has it (Linux 5.1+), else the plain call, whose timespec is that
 * one on 64-bit machines. Where neither is there, a yield. */
void fastcpu_nap_nocancel(long ns)
{
#ifdef __NR_clock_nanosleep_time64
	struct { int64_t tv_sec, tv_nsec; } nap = { 0, ns };
	long nr = __NR_clock_nanosleep_time64;
#else
	struct timespec nap = { 0, ns };
	long nr = __NR_clock_nanosleep;
#endif

	if (fastcpu_raw_syscall_errno(nr, CLOCK_MONOTONIC, 0, (long)(uintptr_t)&nap, 0) == -ENOSYS)
		(void)sched_yield();
}

long fastcpu_rseq_call(volatile void *area, unsigned long length, int flags)
{
	return fastcpu_raw_syscall_errno(__NR_rseq, (long)(uintptr_t)area,
					 (long)length, flags, (long)FASTCPU_RSEQ_SIGNATURE);
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
	(void)fastcpu_write_nocancel(STDERR_FILENO, line, strlen(line));
	errno = saved;
}

/* Nanoseconds a call of fn takes: the fastest of three batches of 16, so
 * that a preemption during one batch does not decide. */
uint64_t fastcpu_cost_ns(int (*fn)(void))
{
	uint64_t best = UINT64_MAX;

	for (int batch = 0; batch < 3; batch++) {
		struct timespec a, b;
		uint64_t ns;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 16; i++)
			(void)fn();
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
		     (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
		if (ns / 16 < best)
			best = ns / 16;
	}
	return best;
}
