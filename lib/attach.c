/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/attach.c: set-up: the process's at load, each thread's on its first call. */

#include <pthread.h>
#include <stddef.h>

#include "attach.h"
#include "bind.h"
#include "cpu-id.h"
#include "internal.h"
#include "own-area.h"
#include "program-area.h"
#include "program-owner.h"
#include "rseq-abi.h"
#include "sequence-guard.h"
#include "settings.h"
#include "slice.h"
#include "task-tls.h"
#include "thread.h"

/* glibc >= 2.35 registers an area in every thread and says where: the offset
 * from the thread pointer and its feature size (0: glibc did not register,
 * e.g. glibc.pthread.rseq=0). Weak and unversioned, so that the library also
 * loads on older glibc, where both are absent. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

bool fastcpu_glibc_registered_rseq(void)
{
	return &__rseq_size && &__rseq_offset && __rseq_size != 0;
}

static const volatile int *glibc_cpu_id(void)
{
	const struct fastcpu_rseq_abi *area = fastcpu_thread_at(__rseq_offset);

	return (const volatile int *)&area->cpu_id;
}


enum fastcpu_area_kind fastcpu_area_kind(void)
{
	return fastcpu_thread.area;
}

/*
 * glibc frees a thread's stack, and with it its static TLS, only after the
 * kernel has cleared the thread's tid: nothing to do at thread exit. musl
 * unmaps a detached thread's stack, which holds its static TLS and so an
 * area there, before the thread's last system call: a kernel that updates
 * the area after that (on a preemption) finds it gone and kills the
 * process. There a thread-specific-data destructor, which runs before the
 * unmapping, points the thread at the fallback and unregisters the area.
 */
#ifdef __GLIBC__
# define UNREGISTER_AT_EXIT 0
#else
# define UNREGISTER_AT_EXIT 1
#endif
static pthread_key_t exit_key;
static bool exit_key_made;

static void at_thread_exit(void *cpu_id)
{
	unsigned char was = fastcpu_thread.area;
	const struct fastcpu_program_owner *o = fastcpu_program_owner();

	fastcpu_thread_reads(NULL);
	fastcpu_thread_reads_rdpid(false);
	fastcpu_thread.area = FASTCPU_AREA_NONE;
	fastcpu_thread.sequences = FASTCPU_SEQUENCES_NO;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (was == FASTCPU_AREA_OWN)
		fastcpu_own_area_unregister(cpu_id);
	if (fastcpu_program_area_shared() && o != NULL)
		fastcpu_program_area_release(o);
}

/* pthread_setspecific() is a plain store: safe in a signal handler. */
static void unregister_at_thread_exit(const volatile int *cpu_id)
{
	if (UNREGISTER_AT_EXIT && exit_key_made)
		pthread_setspecific(exit_key, (const void *)cpu_id);	/* non-NULL */
}

/*
 * Whether the calling task may register an area in this TLS: not a vfork
 * child, which runs on its parent's. Asking (task-tls.c) is a system call
 * in a process that made such a task, too dear for every call of a child
 * that asks often: a thread found sharing lets 1, 2, 4 ... 65536 calls pass
 * before it asks again, each answered by the fallback. The count lives in
 * the TLS the two share: the parent, once the child is gone, may answer
 * that many calls from the fallback before it registers its area.
 */
#define MAX_SHARING_GAP 65536

static bool task_may_register(void)
{
	unsigned int gap = fastcpu_thread.sharing_gap;

	if (fastcpu_task_owns_tls()) {
		fastcpu_thread.sharing_gap = 0;
		return true;
	}
	gap = gap == 0 ? 1 : gap < MAX_SHARING_GAP ? 2 * gap : MAX_SHARING_GAP;
	fastcpu_thread.sharing_gap = gap;
	fastcpu_thread.attach_skips = gap;
	return false;
}

/*
 * Whether the library runs its sequences on the calling thread's area: the
 * area takes its signature (glibc's and its own do; a program owner's where
 * its registration says so), and the kernel aborts a preempted sequence
 * (sequence-guard.c): known at once, or decided where may_probe (the
 * thread's first per-CPU operation), and then published for the inline
 * operations, as sequences or as the upper half.
 */
static enum fastcpu_sequences sequences_here(const struct fastcpu_program_owner *o,
					     const volatile int *cpu_id, bool may_probe)
{
	enum fastcpu_sequences s =
		fastcpu_thread.area == FASTCPU_AREA_NONE ? FASTCPU_SEQUENCES_NO :
		fastcpu_thread.area != FASTCPU_AREA_PROGRAM ? FASTCPU_SEQUENCES_YES :
		fastcpu_program_area_takes_sequences(o, cpu_id);

	if (s != FASTCPU_SEQUENCES_YES)
		return s;
	if (!may_probe)
		return fastcpu_guard_known();
	s = fastcpu_guard_decide();
	if (s != FASTCPU_SEQUENCES_UNKNOWN)
		fastcpu_publish_sequences();
	return s;
}

/* The area of the program's own rseq owner; NULL while the thread must ask
 * again (the owner's area is not known yet). */
static const volatile int *program_owner_cpu_id(const struct fastcpu_program_owner *o)
{
	const volatile int *cpu_id = fastcpu_program_area_cpu_id(o);

	if (cpu_id != NULL) {
		if (fastcpu_publish_cpu_id(cpu_id))
			(void)fastcpu_program_area_takes_sequences(o, cpu_id);
		if (fastcpu_program_area_shared())
			unregister_at_thread_exit(cpu_id);
	}
	return cpu_id;
}

static const volatile int *own_cpu_id(const struct fastcpu_binding *b)
{
	const volatile int *cpu_id;

	fastcpu_thread.registering = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cpu_id = fastcpu_own_area_register(b->rseq_forced);
	if (cpu_id != NULL)
		unregister_at_thread_exit(cpu_id);
	return cpu_id;
}

/* glibc's areas take the library's sequences: glibc registers them with
 * the signature of the same convention, per architecture. */
static void publish_glibc_area(void)
{
	if (fastcpu_publish_cpu_id(glibc_cpu_id()))
		fastcpu_publish_sequences();
}

/*
 * The area the thread reads: glibc's where glibc registered one in every
 * thread; else the program owner's; else the library's own, registered now.
 * Where none serves, the thread reads the fallback's marker. Where the
 * thread must ask again (the search for a program owner has not run: a call
 * from another library's constructor; the owner's area not known yet; a
 * signal handler inside the thread's own registration; a vfork child, which
 * runs on its parent's TLS and must leave it alone) it stays unattached.
 */
static void attach(void)
{
	struct fastcpu_binding b = fastcpu_bind();
	const struct fastcpu_program_owner *o = NULL;
	const volatile int *cpu_id = NULL;
	enum fastcpu_area_kind k = FASTCPU_AREA_NONE;

	if (!b.use_rseq) {
		/* the fallback serves every thread */
	} else if (fastcpu_glibc_registered_rseq()) {
		cpu_id = glibc_cpu_id();
		publish_glibc_area();
		k = FASTCPU_AREA_GLIBC;
		if (*cpu_id < 0)	/* glibc's registration failed here */
			cpu_id = NULL, k = FASTCPU_AREA_NONE;
		else
			fastcpu_slice_enable(cpu_id);
	} else if ((o = fastcpu_program_owner()) == NULL) {
		return;
	} else if (o->convention != FASTCPU_OWNER_NONE) {
		cpu_id = program_owner_cpu_id(o);
		if (cpu_id == NULL)
			return;
		k = FASTCPU_AREA_PROGRAM;
	} else if (fastcpu_thread.registering || !task_may_register()) {
		return;
	} else {
		cpu_id = own_cpu_id(&b);
		if (cpu_id != NULL)
			k = FASTCPU_AREA_OWN;
	}
	fastcpu_thread.area = (unsigned char)k;
	fastcpu_thread.sequences = (unsigned char)sequences_here(o, cpu_id, false);
	fastcpu_thread_reads(cpu_id);
	/* Wherever RDPID answers the thread: the inline operations ask it only
	 * where no sequence runs and no area's CPU is known (an owner's area
	 * never registered, none at all), and its slot is always right. */
	fastcpu_thread_reads_rdpid(fastcpu_uncached_fallback() == &fastcpu_backend_rdpid);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fastcpu_thread.registering = 0;
}

const volatile int *fastcpu_attach(void)
{
	attach();
	return fastcpu_cpu_id_ref;
}

/* Asked until known (a program owner's area registered in the thread, the
 * guard decided), then kept. */
bool fastcpu_thread_sequences_decide(const volatile int *cpu_id)
{
	enum fastcpu_sequences s = sequences_here(fastcpu_program_owner(), cpu_id, true);

	if (s != FASTCPU_SEQUENCES_UNKNOWN)
		fastcpu_thread.sequences = (unsigned char)s;
	return s == FASTCPU_SEQUENCES_YES;
}

/* Where this process's areas are, published before any thread asks, so
 * that fewer of a program's loops start with the out-of-line answer; no
 * system call. */
static void publish_areas(void)
{
	const struct fastcpu_program_owner *o;

	if (fastcpu_glibc_registered_rseq())
		publish_glibc_area();
	else if ((o = fastcpu_program_owner()) != NULL && o->convention != FASTCPU_OWNER_NONE)
		fastcpu_program_area_publish(o);
	else
		fastcpu_own_area_publish();
}

/*
 * The set-up at load, each job by name: the settings, before the program
 * can setenv(); the search for another rseq owner, before any thread can
 * register one, and only where glibc did not (its areas are all that is
 * ever read then); where the areas are, if rseq may be used; whose vfork
 * and clone the process calls (task-tls.c); the exit hook where the C
 * library needs it. Each of the last three may take a lock, which a first call in a signal handler
 * could not. No system call.
 */
__attribute__((constructor)) static void at_load(void)
{
	struct fastcpu_settings s = fastcpu_settings();

	if (!fastcpu_glibc_registered_rseq())
		fastcpu_program_owner_search();
	if (s.backend == FASTCPU_CHOOSE_AUTO || s.backend == FASTCPU_CHOOSE_RSEQ)
		publish_areas();
	fastcpu_task_tls_at_load();
	if (UNREGISTER_AT_EXIT)
		exit_key_made = pthread_key_create(&exit_key, at_thread_exit) == 0;
}
