/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/program-area.c: the rseq area of the program's own rseq owner. */

#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "cpu-id.h"
#include "internal.h"
#include "kernel.h"
#include "once.h"
#include "program-area.h"
#include "program-owner.h"
#include "rseq-abi.h"
#include "task-tls.h"
#include "thread.h"
#include "util.h"


static struct fastcpu_rseq_abi *exported_area(const struct fastcpu_program_owner *o)
{
	return fastcpu_thread_at(o->area_offset);
}

static volatile uint32_t *refcount(const struct fastcpu_program_owner *o)
{
	return fastcpu_thread_at(o->refcount_offset);
}

/*
 * Whether the library may run its sequences on the owner's areas: where the
 * kernel knows them registered with its signature. librseq's conventions
 * (the published offset; the shared area's reference count, whose every
 * user registers with one signature) fix it, per architecture, to the
 * library's (and glibc's). Any other owner of an exported __rseq_abi
 * (tcmalloc, ClickHouse, one of the program's own) is asked, once per
 * process, in a thread whose area is registered: the same area, length and
 * signature again is EBUSY; another signature, EPERM. Each length the owner
 * may have registered is tried (EINVAL: not that one); where none fits,
 * the upper half serves (the answer is kept: "no").
 */
static unsigned int verdict;	/* enum fastcpu_sequences: what the kernel said */

static enum fastcpu_sequences ask_kernel(volatile struct fastcpu_rseq_abi *area)
{
	unsigned int lengths[3] = { FASTCPU_RSEQ_ORIG_SIZE,
				    fastcpu_rseq_kernel().feature_size,
				    fastcpu_rseq_kernel().own_length };

	for (int i = 0; i < 3; i++) {
		long ret = lengths[i] < FASTCPU_RSEQ_ORIG_SIZE ? -EINVAL :
			   fastcpu_rseq_call(area, lengths[i], 0);

		if (ret == -EBUSY)
			return FASTCPU_SEQUENCES_YES;
		if (ret != -EINVAL)
			return FASTCPU_SEQUENCES_NO;	/* EPERM, or a thread not registered */
	}
	return FASTCPU_SEQUENCES_NO;
}

enum fastcpu_sequences fastcpu_program_area_takes_sequences(const struct fastcpu_program_owner *o,
							    const volatile int *cpu_id)
{
	unsigned int v = __atomic_load_n(&verdict, __ATOMIC_ACQUIRE);

	if (v != FASTCPU_SEQUENCES_UNKNOWN)
		return v;
	if (o->convention != FASTCPU_OWNER_EXPORTED)
		v = FASTCPU_SEQUENCES_YES;
	else if (*cpu_id < 0 || !fastcpu_task_owns_tls())
		return FASTCPU_SEQUENCES_UNKNOWN;	/* not registered in this task: ask later */
	else
		v = ask_kernel(fastcpu_area_of(cpu_id));
	v = fastcpu_once_offer(&verdict, v);
	if (v == FASTCPU_SEQUENCES_YES)
		fastcpu_publish_sequences();
	else
		fastcpu_publish_upper();
	return v;
}

/* At load: the exported area, or librseq's as soon as its offset is known
 * (else each thread's first call publishes it, once it is); the sequences
 * where librseq's conventions vouch for the signature. */
void fastcpu_program_area_publish(const struct fastcpu_program_owner *o)
{
	struct fastcpu_rseq_abi *area = exported_area(o);
	ptrdiff_t offset;

	if (o->convention == FASTCPU_OWNER_PUBLISHED) {
		offset = fastcpu_program_owner_offset_at_load(o);
		if (offset == 0)
			return;
		area = fastcpu_thread_at(offset);
	}
	if (fastcpu_publish_cpu_id((const volatile int *)&area->cpu_id) &&
	    o->convention != FASTCPU_OWNER_EXPORTED)
		(void)fastcpu_program_area_takes_sequences(o, (const volatile int *)&area->cpu_id);
}

/*
 * The reference-count convention of older librseq, followed exactly: every
 * user of the shared __rseq_abi increments __rseq_refcount, and the one that
 * takes it from 0 registers the area (32 bytes, the size that convention's
 * area has); a failed registration gives the count back and, unless the
 * area was already registered (EBUSY), marks it failed (cpu_id -2, a write
 * the convention makes, into an area the kernel does not own). The
 * library's reference lasts as long as the thread (musl: released at exit).
 * Signals are blocked from the count to the registration, as the
 * convention has them: a handler's own registration (librseq's) that found
 * the count taken would take the area as live before it is.
 */
static void share(const struct fastcpu_program_owner *o)
{
	struct fastcpu_rseq_abi *area = exported_area(o);
	sigset_t all, old;
	long ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fastcpu_thread.holds_shared_ref = 1;
	if (__atomic_fetch_add(refcount(o), 1, __ATOMIC_RELAXED) == 0 &&
	    (ret = fastcpu_rseq_call(area, FASTCPU_RSEQ_ORIG_SIZE, 0)) != 0) {
		__atomic_fetch_sub(refcount(o), 1, __ATOMIC_RELAXED);
		if (ret != -EBUSY)
			((volatile struct fastcpu_rseq_abi *)area)->cpu_id =
				(uint32_t)FASTCPU_CPU_NO_RSEQ;
		fastcpu_thread.holds_shared_ref = 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool fastcpu_program_area_shared(void)
{
	return fastcpu_thread.holds_shared_ref;
}

void fastcpu_program_area_release(const struct fastcpu_program_owner *o)
{
	fastcpu_thread.holds_shared_ref = 0;
	if (__atomic_sub_fetch(refcount(o), 1, __ATOMIC_RELAXED) == 0)
		fastcpu_rseq_call(exported_area(o), FASTCPU_RSEQ_ORIG_SIZE,
				  FASTCPU_RSEQ_FLAG_UNREGISTER);
}

/*
 * The owner serves this thread once it has registered its area here
 * (cpu_id >= 0). Until then its cpu_id is -1, the same value as "not
 * attached yet", so pointing at it makes every call look again, and the
 * fast path starts working the moment the owner registers; -2 (its
 * registration failed) sends every call to the fallback. The kernel resets
 * cpu_id to -1 when the owner unregisters. Only the refcount convention
 * lets the library register the owner's area itself. NULL where librseq
 * has not published where its areas are yet (its first registration in
 * any thread): the thread stays unattached.
 */
const volatile int *fastcpu_program_area_cpu_id(const struct fastcpu_program_owner *o)
{
	struct fastcpu_rseq_abi *area;

	if (o->convention == FASTCPU_OWNER_PUBLISHED) {
		ptrdiff_t offset = __atomic_load_n(o->published_offset, __ATOMIC_ACQUIRE);

		if (offset == 0)
			return NULL;
		area = fastcpu_thread_at(offset);
		return (const volatile int *)&area->cpu_id;
	}
	area = exported_area(o);
	if (o->convention == FASTCPU_OWNER_REFCOUNTED && !fastcpu_thread.holds_shared_ref &&
	    (int)area->cpu_id == FASTCPU_CPU_UNATTACHED && fastcpu_task_owns_tls())
		share(o);
	return (const volatile int *)&area->cpu_id;
}
