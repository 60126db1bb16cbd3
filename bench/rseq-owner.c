/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/rseq-owner.c: stand-ins for librseq and the like (the setup table, tests/host/owner.sh). */

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "fastcpu.h"
#include "rseq-owner.h"

/* librseq's and glibc's signature, which every user of a shared area must
 * register and check with (<fastcpu/rseq.h> spells it); with
 * RSEQ_OWNER_OTHER_SIG, an owner of no such convention, with its own. */
#ifdef RSEQ_OWNER_OTHER_SIG
# define RSEQ_OWNER_SIG 0x12345678
# define LIBRSEQ_SHAPED_SIGNATURE_ "0x12345678"
#else
# define RSEQ_OWNER_SIG FASTCPU_RSEQ_SIGNATURE
#endif
#include "librseq-shaped.h"

/*
 * Behaves as the owners libfastcpu must defer to, written from their
 * published conventions:
 * - current librseq (and tcmalloc's, ClickHouse's area): a strong,
 *   exported, initial-exec TLS __rseq_abi, registered with 32 bytes by
 *   each thread that asks; glibc's area used instead when glibc registered
 *   one; and abort() when a thread's registration fails after another
 *   thread's succeeded, as librseq does ("incoherent" registration);
 * - with RSEQ_OWNER_REFCOUNT, older librseq: __rseq_refcount beside it,
 *   incremented by every user, the area registered by the one taking it
 *   from 0, marked -2 when that fails (unless EBUSY), signals blocked;
 * - with RSEQ_OWNER_PUBLISHED, librseq 0.1 and later: the area private,
 *   its offset from the thread pointer published in rseq_offset (and
 *   rseq_size, rseq_flags) when librseq initialises: in its constructor,
 *   and at the first registration if that comes first (a caller in another
 *   constructor), beside rseq_register_current_thread; each thread
 *   registered when it asks, lazily; the abort as above.
 */

struct rseq_owner_area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
} __attribute__((aligned(32)));

#define TLS_IE __thread __attribute__((tls_model("initial-exec")))

#ifdef RSEQ_OWNER_PUBLISHED
# define AREA_LINKAGE static
#else
# define AREA_LINKAGE __attribute__((visibility("default")))
#endif
AREA_LINKAGE TLS_IE struct rseq_owner_area __rseq_abi = { .cpu_id = (uint32_t)-1 };

extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static bool glibc_registered(void)
{
	return &__rseq_size && __rseq_size != 0;
}

static volatile struct rseq_owner_area *area(void)
{
	if (glibc_registered())
		return (void *)((char *)fastcpu_arch_thread_pointer() + __rseq_offset);
	return &__rseq_abi;
}

static long sys_rseq(int flags)
{
	return syscall(SYS_rseq, &__rseq_abi, 32, flags, RSEQ_OWNER_SIG);
}

#ifndef RSEQ_OWNER_REFCOUNT
static int reg_success;

# ifdef RSEQ_OWNER_PUBLISHED
__attribute__((visibility("default"))) ptrdiff_t rseq_offset;
__attribute__((visibility("default"))) unsigned int rseq_size, rseq_flags;

/* As librseq's rseq_init(): glibc's area where glibc registered one. */
__attribute__((constructor)) static void publish(void)
{
	ptrdiff_t offset = glibc_registered() ? __rseq_offset :
			   (char *)&__rseq_abi - (char *)fastcpu_arch_thread_pointer();

	__atomic_store_n(&rseq_offset, offset, __ATOMIC_RELEASE);
}
# else
static void publish(void)
{
}
# endif

int rseq_owner_register(void)
{
	if (glibc_registered())
		return 0;
	publish();
	if (sys_rseq(0) != 0) {
		if (__atomic_load_n(&reg_success, __ATOMIC_RELAXED))
			abort();	/* as librseq: incoherent success/failure */
		return -1;
	}
	__atomic_store_n(&reg_success, 1, __ATOMIC_RELAXED);
# ifdef RSEQ_OWNER_PUBLISHED
	__atomic_store_n(&rseq_size, 32, __ATOMIC_RELAXED);
# endif
	return 0;
}
#else
__attribute__((visibility("default"))) TLS_IE volatile uint32_t __rseq_refcount;

int rseq_owner_register(void)
{
	sigset_t all, old;
	int ret = 0;

	if (glibc_registered())
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (__rseq_refcount++ == 0) {
		if (sys_rseq(0) != 0) {
			if (errno != EBUSY)
				__rseq_abi.cpu_id = (uint32_t)-2;
			__rseq_refcount--;
			ret = -1;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
#endif

/* Its own per-CPU sequences, in the threads libfastcpu runs its own in,
 * on the same area's rseq_cs: librseq's shape where the stand-in has it
 * (x86-64), an atomic add elsewhere. The caller registered the thread. */
static unsigned long aborts;

void rseq_owner_percpu_inc(long *counters, size_t stride)
{
	volatile struct rseq_owner_area *a = area();

	for (;;) {
		int cpu = (int)a->cpu_id;
		long *counter = (long *)(void *)((char *)counters + (size_t)cpu * stride);

		if (cpu < 0)
			abort();	/* the caller did not register */
#ifdef LIBRSEQ_SHAPED_ADD
		/* Its own signature's sequences only on its own area. */
		if (RSEQ_OWNER_SIG == FASTCPU_RSEQ_SIGNATURE || !glibc_registered()) {
			if (librseq_shaped_add(&a->cpu_id, counter, cpu) == 0)
				return;
			__atomic_fetch_add(&aborts, 1, __ATOMIC_RELAXED);
			continue;
		}
#endif
		__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
		return;
	}
}

unsigned long rseq_owner_aborts(void)
{
	return __atomic_load_n(&aborts, __ATOMIC_RELAXED);
}

int rseq_owner_cpu(void)
{
	return (int)area()->cpu_id;
}

const volatile int *rseq_owner_cpu_id_word(void)
{
	return (const volatile int *)&area()->cpu_id;
}

unsigned int rseq_owner_signature(void)
{
	return RSEQ_OWNER_SIG;
}

/* Whether this thread's area is the one the kernel has registered: asking
 * again for the same area and signature is EBUSY then. */
bool rseq_owner_registered_here(void)
{
	if (glibc_registered())
		return true;
	return sys_rseq(0) == -1 && errno == EBUSY;
}

#ifdef RSEQ_OWNER_PUBLISHED
/* The name by which the convention is recognised. */
__attribute__((visibility("default"))) int rseq_register_current_thread(void)
	__attribute__((alias("rseq_owner_register")));
#endif
