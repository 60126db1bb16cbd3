/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/attach.h: set-up: the process's at load, each thread's on its first call. */

#ifndef FASTCPU_ATTACH_H
#define FASTCPU_ATTACH_H

#include <stdbool.h>

#include "cpu-id.h"
#include "area-kind.h"
#include "internal.h"
#include "program-area.h"
#include "thread.h"

/* Once per thread, on its first call (its fastcpu_cpu_id_ref still at the
 * unattached marker): bind the process, find or register the thread's area.
 * Returns the thread's pointer then: an area's cpu_id, or a marker. */
const volatile int *fastcpu_attach(void);
/* Finds it out in the calling thread, whose area's cpu_id is at cpu_id
 * (registered: non-negative), and keeps it once known. */
bool fastcpu_thread_sequences_decide(const volatile int *cpu_id);
FASTCPU_INLINE bool fastcpu_thread_runs_sequences(const volatile int *cpu_id)
{
	unsigned char known = fastcpu_thread.sequences;

	if (likely(known != FASTCPU_SEQUENCES_UNKNOWN))
		return known == FASTCPU_SEQUENCES_YES;
	return fastcpu_thread_sequences_decide(cpu_id);
}
/* Which area the calling thread reads. */
enum fastcpu_area_kind fastcpu_area_kind(void);
/* glibc (2.35+) registered its area in every thread: it owns them all. */
bool fastcpu_glibc_registered_rseq(void);

/* Calls an unattached thread lets pass before it tries to attach again
 * (attach.c: a vfork child, which may not), answered by the fallback:
 * whether this one does. */
FASTCPU_INLINE bool fastcpu_attach_passes(void)
{
	if (likely(fastcpu_thread.attach_skips == 0))
		return false;
	fastcpu_thread.attach_skips--;
	return true;
}

/* The calling thread's pointer, the thread attached first if it has not
 * (and may now). */
FASTCPU_INLINE const volatile int *fastcpu_attached_cpu_id(void)
{
	const volatile int *ref = fastcpu_cpu_id_ref;

	if (unlikely(ref == &fastcpu_cpu_unattached) && !fastcpu_attach_passes())
		return fastcpu_attach();
	return ref;
}
/*
 * Whether the fallback answers the calling thread now: it has attached and
 * reads no registered area (no rseq, or an owner's area that the owner has
 * not registered in this thread yet, -1 until it does), or it lets this
 * call pass unattached. The case the entry points and operations make
 * short (entry.c, percpu/ops.c): one more compare than a thread without rseq,
 * and no attach, while the owner has not registered; the fast path's own
 * load sees the registration at once.
 */
FASTCPU_INLINE bool fastcpu_served_by_fallback(void)
{
	const volatile int *ref = fastcpu_cpu_id_ref;

	return *ref < 0 && (ref != &fastcpu_cpu_unattached || fastcpu_attach_passes());
}
/* The calling thread's cpu_id where the library runs its sequences on its
 * area; NULL where the thread takes the upper half (the per-CPU wing),
 * as every thread does where this build has no sequences. It attaches. */
FASTCPU_INLINE const volatile int *fastcpu_sequence_cpu_id(void)
{
	const volatile int *ref = fastcpu_attached_cpu_id();

#ifdef FASTCPU_RSEQ_INLINE
	return *ref >= 0 && fastcpu_thread_runs_sequences(ref) ? ref : NULL;
#else
	(void)ref;
	return NULL;
#endif
}

#endif /* FASTCPU_ATTACH_H */
