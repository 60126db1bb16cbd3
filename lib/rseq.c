/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/rseq.c: find the calling thread's rseq area, or register one. */

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "arch.h"
#include "internal.h"
#include "rseq-abi.h"

#ifndef __NR_rseq
# error "<sys/syscall.h> lacks __NR_rseq: kernel headers older than 4.18"
#endif

/* glibc >= 2.35 registers an area in every thread and says where: the offset
 * from the thread pointer and its feature size (0: glibc did not register,
 * e.g. glibc.pthread.rseq=0). Weak and unversioned, so that the library also
 * loads on older glibc, where both are absent. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

static const int cpu_unattached = FASTCPU_CPU_UNATTACHED;
static const int cpu_no_rseq = FASTCPU_CPU_NO_RSEQ;

/* Initial-exec TLS: a static TLS slot read at a fixed offset from the thread
 * pointer, never allocated lazily (so async-signal-safe), and initialised by
 * the TLS image before the thread runs any code. */
#define FASTCPU_TLS __thread __attribute__((tls_model("initial-exec")))

FASTCPU_EXPORT FASTCPU_TLS const volatile int *fastcpu_cpu_id_ref =
	&cpu_unattached;

/*
 * The library's own area, for threads nobody else registered. Static TLS
 * of a module that is never unloaded (-z nodelete): its memory lives
 * exactly as long as the thread, which is as long as the kernel may write
 * to it. It is aligned at run time inside room for it: a TLS block aligned
 * beyond glibc's static TLS (16 bytes on arm64) cannot be dlopen()ed
 * ("cannot allocate memory in static TLS block"). So where the area falls
 * in the room depends on how the thread's TLS is aligned, which is the
 * same in every thread on the libcs known, not promised: a thread whose
 * area would not be at the published word (published.c) registers one in
 * the room's second half instead, and its inline reads, finding -1 at the
 * published word, are answered out of line. All -1 until registered, so
 * that the word reads "unattached" wherever it falls.
 */
static FASTCPU_TLS unsigned char own_room[4 * FASTCPU_RSEQ_AREA_SIZE] = {
	[0 ... 4 * FASTCPU_RSEQ_AREA_SIZE - 1] = 0xff
};

static struct fastcpu_rseq_abi *area_from(unsigned int room_offset)
{
	uintptr_t at = ((uintptr_t)own_room + room_offset +
			FASTCPU_RSEQ_AREA_SIZE - 1) &
		       ~(uintptr_t)(FASTCPU_RSEQ_AREA_SIZE - 1);

	return (struct fastcpu_rseq_abi *)at;
}

static struct fastcpu_rseq_abi *own_area(void)
{
	struct fastcpu_rseq_abi *first = area_from(0);

	if (fastcpu_publish_cpu_id(&first->cpu_id))
		return first;
	return area_from(2 * FASTCPU_RSEQ_AREA_SIZE);
}

static FASTCPU_TLS unsigned char owner;		/* enum fastcpu_rseq_owner */
/* This thread holds one reference to the program owner's shared area. */
static FASTCPU_TLS unsigned char holds_shared_ref;
/* This thread is registering its own area: a signal handler that interrupts
 * it is answered by the fallback and leaves the area alone. */
static FASTCPU_TLS unsigned char registering;

bool fastcpu_glibc_registered_rseq(void)
{
	return &__rseq_size && &__rseq_offset && __rseq_size != 0;
}

static void *thread_at(ptrdiff_t offset)
{
	return (char *)fastcpu_arch_thread_pointer() + offset;
}

/*
 * The length to register, by the kernel's rule (kernel/rseq.c, sys_rseq):
 * exactly 32 bytes aligned to 32, which every kernel since 4.18 accepts; or,
 * since 6.3, at least the feature size, aligned to the struct's alignment.
 * Both come from the auxiliary vector, never from a constant: 6.3-6.x say
 * 28 and 32, so 32 bytes it is; 7.0 says 33 and 64, and accepts only 32
 * (which then lacks the fields past 32) or 64 bytes aligned to 64. The
 * feature size is rounded up to the alignment, which always fits the room
 * own_area() has (64 bytes, aligned to 64) on the kernels known today; a
 * kernel asking for more gets the original 32 bytes.
 */
static unsigned long own_area_length(unsigned long feature)
{
	unsigned long align = fastcpu_getauxval(AT_RSEQ_ALIGN);
	unsigned long len;

	if (feature <= FASTCPU_RSEQ_ORIG_SIZE)
		return FASTCPU_RSEQ_ORIG_SIZE;
	if (align < FASTCPU_RSEQ_ORIG_SIZE)
		align = FASTCPU_RSEQ_ORIG_SIZE;
	len = (feature + align - 1) & ~(align - 1);
	if (align > FASTCPU_RSEQ_AREA_SIZE || len > FASTCPU_RSEQ_AREA_SIZE)
		return FASTCPU_RSEQ_ORIG_SIZE;
	return len;
}

/* Read from the auxiliary vector once (getauxval() walks it): racing
 * readers store the same values. The feature size is 0 before 6.3. */
static unsigned int kernel_read;	/* 1 once the fields below are set */
static unsigned int kernel_feature_size, kernel_own_length;

struct fastcpu_rseq_kernel fastcpu_rseq_kernel(void)
{
	unsigned int feature, length;

	if (likely(__atomic_load_n(&kernel_read, __ATOMIC_ACQUIRE))) {
		feature = __atomic_load_n(&kernel_feature_size, __ATOMIC_RELAXED);
		length = __atomic_load_n(&kernel_own_length, __ATOMIC_RELAXED);
	} else {
		feature = (unsigned int)fastcpu_getauxval(AT_RSEQ_FEATURE_SIZE);
		length = (unsigned int)own_area_length(feature);
		__atomic_store_n(&kernel_feature_size, feature, __ATOMIC_RELAXED);
		__atomic_store_n(&kernel_own_length, length, __ATOMIC_RELAXED);
		__atomic_store_n(&kernel_read, 1, __ATOMIC_RELEASE);
	}
	return (struct fastcpu_rseq_kernel){
		.own_length = length,
		.node_id = feature >= FASTCPU_RSEQ_NODE_FEATURE_SIZE,
		.mm_cid = feature >= FASTCPU_RSEQ_MM_CID_FEATURE_SIZE,
	};
}

static long rseq_call(void *area, unsigned long len, int flags)
{
	return fastcpu_raw_syscall_errno(__NR_rseq, (long)area, (long)len, flags,
					 (long)FASTCPU_RSEQ_SIG);
}

#ifdef __GLIBC__
static void unregister_at_thread_exit(void)
{
	/* glibc frees a thread's stack, and with it its static TLS, only
	 * after the kernel has cleared the thread's tid: nothing to do. */
}
#else
/*
 * musl unmaps a detached thread's stack, which holds its static TLS and so
 * this area, before the thread's last system call: a kernel that updates
 * the area after that (on a preemption) finds it gone and kills the
 * process. A thread-specific-data destructor runs before the unmapping and
 * unregisters the area, after pointing the thread at the fallback.
 */
static pthread_key_t exit_key;
static bool exit_key_made;

static void release_shared(void);

static void unregister_at_exit(void *unused)
{
	unsigned char was = owner;

	(void)unused;
	fastcpu_cpu_id_ref = &cpu_no_rseq;
	owner = FASTCPU_RSEQ_NONE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (was == FASTCPU_RSEQ_OWN)
		rseq_call(own_area(), fastcpu_rseq_kernel().own_length,
			  FASTCPU_RSEQ_FLAG_UNREGISTER);
	if (holds_shared_ref)
		release_shared();
}

/* At load, where taking musl's key lock is safe (a first call may be in a
 * signal handler); pthread_setspecific() below is a plain store. */
__attribute__((constructor)) static void make_exit_key(void)
{
	exit_key_made = pthread_key_create(&exit_key, unregister_at_exit) == 0;
}

static void unregister_at_thread_exit(void)
{
	if (exit_key_made)
		pthread_setspecific(exit_key, own_area());	/* non-NULL */
}
#endif

/* The one line for FASTCPU_BACKEND=rseq when a thread cannot have it. */
static void warn_rseq_refused(long err)
{
	const char *line =
		err == -ENOSYS ? "libfastcpu: FASTCPU_BACKEND=rseq: the kernel has no rseq (ENOSYS); using auto\n" :
		err == -EPERM ? "libfastcpu: FASTCPU_BACKEND=rseq: rseq registration refused (EPERM); using auto\n" :
		err == -EINVAL ? "libfastcpu: FASTCPU_BACKEND=rseq: the thread registered another rseq area (EINVAL); using auto\n" :
		"libfastcpu: FASTCPU_BACKEND=rseq: rseq registration failed; using auto\n";

	fastcpu_warn_once(FASTCPU_WARN_RSEQ, line);
}

/*
 * Registers own_area for the calling thread: NULL if it cannot, else its
 * cpu_id. Before the first registration the user-owned fields are zeroed
 * (the room starts all -1); the kernel-owned ones are left to the kernel,
 * which sets them on registration. An area whose cpu_id is set is already
 * registered and not written at all. EBUSY means this very area is
 * already registered with this signature (the kernel checks all three),
 * so it is live and usable. EINVAL: the thread registered another area
 * before asking us (it keeps it); EPERM: a sandbox said no; ENOSYS: no
 * rseq, or a seccomp filter of this thread only, so it is not remembered
 * process-wide.
 */
static const volatile int *register_own(const struct fastcpu_binding *b)
{
	struct fastcpu_rseq_abi *area = own_area();
	volatile struct fastcpu_rseq_abi *user = area;
	unsigned int length = fastcpu_rseq_kernel().own_length;
	long ret;

	if ((int)user->cpu_id < 0) {
		user->rseq_cs = 0;
		user->flags = 0;
		for (unsigned int i = offsetof(struct fastcpu_rseq_abi, end); i < length; i++)
			((volatile unsigned char *)area)[i] = 0;
	}
	ret = rseq_call(area, length, 0);
	if (ret == 0 || ret == -EBUSY) {
		unregister_at_thread_exit();
		return (const volatile int *)&area->cpu_id;
	}
	if (b->rseq_forced)
		warn_rseq_refused(ret);
	return NULL;
}

static struct fastcpu_rseq_abi *program_area(void)
{
	return thread_at(fastcpu_program_owner.area_offset);
}

/* librseq's area, once it has published where its areas are (its first
 * registration in any thread); NULL before. */
static struct fastcpu_rseq_abi *published_area(void)
{
	ptrdiff_t offset = __atomic_load_n(fastcpu_program_owner.published_offset,
					   __ATOMIC_ACQUIRE);

	return offset == 0 ? NULL : thread_at(offset);
}

static volatile uint32_t *program_refcount(void)
{
	return thread_at(fastcpu_program_owner.refcount_offset);
}

/*
 * The reference-count convention of older librseq, followed exactly: every
 * user of the shared __rseq_abi increments __rseq_refcount, and the one that
 * takes it from 0 registers the area (32 bytes, the size that convention's
 * area has); a failed registration gives the count back and, unless the
 * area was already registered (EBUSY), marks it failed (cpu_id -2, a write
 * the convention makes, into an area the kernel does not own). The
 * library's reference lasts as long as the thread (musl: released at exit).
 * A signal handler that interrupts this sees the flag set and the area not
 * yet live, and is answered by the fallback.
 */
static void share_program_area(void)
{
	struct fastcpu_rseq_abi *area = program_area();
	long ret;

	holds_shared_ref = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_fetch_add(program_refcount(), 1, __ATOMIC_RELAXED) != 0)
		return;
	ret = rseq_call(area, FASTCPU_RSEQ_ORIG_SIZE, 0);
	if (ret == 0) {
		unregister_at_thread_exit();
		return;
	}
	__atomic_fetch_sub(program_refcount(), 1, __ATOMIC_RELAXED);
	if (ret != -EBUSY)
		((volatile struct fastcpu_rseq_abi *)area)->cpu_id =
			(uint32_t)FASTCPU_CPU_NO_RSEQ;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	holds_shared_ref = 0;
}

#ifndef __GLIBC__
static void release_shared(void)
{
	holds_shared_ref = 0;
	if (__atomic_sub_fetch(program_refcount(), 1, __ATOMIC_RELAXED) == 0)
		rseq_call(program_area(), FASTCPU_RSEQ_ORIG_SIZE,
			  FASTCPU_RSEQ_FLAG_UNREGISTER);
}
#endif

/*
 * The program's rseq owner serves this thread once it has registered its
 * area here (cpu_id >= 0). Until then its cpu_id is -1, the same value as
 * "not attached yet", so pointing at it makes every call look again, and
 * the fast path starts working the moment the owner registers; -2 (its
 * registration failed) sends every call to the fallback. The kernel resets
 * cpu_id to -1 when the owner unregisters. Only the refcount convention
 * lets the library register the owner's area itself. NULL: where librseq's
 * area is not published yet; the caller leaves the thread unattached.
 */
static const volatile int *program_cpu_id(void)
{
	struct fastcpu_rseq_abi *area;

	if (fastcpu_program_owner.published_offset != NULL) {
		area = published_area();
		return area ? (const volatile int *)&area->cpu_id : NULL;
	}
	area = program_area();
	if (fastcpu_program_owner.refcounted && !holds_shared_ref &&
	    (int)area->cpu_id == FASTCPU_CPU_UNATTACHED &&
	    fastcpu_task_owns_tls())
		share_program_area();
	return (const volatile int *)&area->cpu_id;
}

static const volatile struct fastcpu_rseq_abi *glibc_area(void)
{
	return thread_at(__rseq_offset);
}

void fastcpu_rseq_attach(const struct fastcpu_binding *b)
{
	const volatile int *ref = &cpu_no_rseq, *own;
	unsigned char who = FASTCPU_RSEQ_NONE;

	if (!b->use_rseq) {
		/* the fallback serves every thread */
	} else if (fastcpu_glibc_registered_rseq()) {
		const volatile struct fastcpu_rseq_abi *area = glibc_area();

		fastcpu_publish_cpu_id(&area->cpu_id);
		/* Negative: glibc's registration failed in this thread. */
		if ((int)area->cpu_id >= 0) {
			ref = (const volatile int *)&area->cpu_id;
			who = FASTCPU_RSEQ_GLIBC;
		}
	} else if (fastcpu_program_owner.found) {
		ref = program_cpu_id();
		if (ref == NULL)
			return;	/* asked again on the next call */
		fastcpu_publish_cpu_id(ref);
		who = FASTCPU_RSEQ_PROGRAM;
	} else if (registering) {
		return;		/* a handler, inside this thread's registration */
	} else if (!fastcpu_task_owns_tls()) {
		return;		/* vfork child: its parent's TLS, left alone */
	} else {
		registering = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		own = register_own(b);
		if (own != NULL) {
			ref = own;
			who = FASTCPU_RSEQ_OWN;
		}
	}
	owner = who;
	fastcpu_cpu_id_ref = ref;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	registering = 0;
}

void fastcpu_rseq_publish_early(void)
{
	if (fastcpu_glibc_registered_rseq())
		fastcpu_publish_cpu_id(&glibc_area()->cpu_id);
	else if (!fastcpu_program_owner.found)
		(void)own_area();
	else if (fastcpu_program_owner.published_offset == NULL)
		fastcpu_publish_cpu_id(&program_area()->cpu_id);
}

enum fastcpu_rseq_owner fastcpu_rseq_owner(void)
{
	return owner;
}
