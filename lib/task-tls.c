/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/task-tls.c: whether the calling task runs on a TLS of its own. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "arch.h"
#include "internal.h"
#include "task-tls.h"
#include "util.h"

/*
 * A vfork() child, or a clone(CLONE_VM) child without a TLS of its own, runs
 * on its parent's TLS: whatever it registers or stores there, the parent
 * finds afterwards. Only the kernel knows which task is calling (gettid),
 * and asking is a system call on every thread's first call. Such tasks come from
 * glibc's vfork() and clone(), so the shared library interposes both where
 * the architecture has a stub: the stub marks the process and jumps to
 * glibc's function, and only a marked process asks the kernel. Every check
 * asks where nothing can mark: a static link, an architecture without a
 * stub, a process whose vfork or clone is not ours (the library came by
 * dlopen, or another object defines them first). A task made by a raw
 * clone system call on its parent's TLS is not seen: glibc's own
 * per-thread state is not safe there either.
 */
#if defined(PIC) && defined(__GLIBC__) && defined(FASTCPU_ARCH_MARK_AND_JUMP)
# define MARKING 1
#else
# define MARKING 0
#endif

/* Set by the stubs; never cleared: the child may still be running. */
__attribute__((visibility("hidden"), used))
unsigned char fastcpu_tls_sharer_made = !MARKING;

/* Set at load once vfork and clone are known to be the stubs. */
static bool stubs_in_use;

#if MARKING
__asm__(FASTCPU_ARCH_MARK_AND_JUMP("vfork", "fastcpu_tls_sharer_made", "__vfork")
	".hidden fastcpu_vfork_stub\n.set fastcpu_vfork_stub, vfork\n"
	FASTCPU_ARCH_MARK_AND_JUMP("clone", "fastcpu_tls_sharer_made", "__clone")
	".hidden fastcpu_clone_stub\n.set fastcpu_clone_stub, clone\n");
__attribute__((visibility("hidden"))) void fastcpu_vfork_stub(void);
__attribute__((visibility("hidden"))) void fastcpu_clone_stub(void);
#endif

/* At load (a first call may come in a signal handler, where dlsym is not
 * safe): what the process's calls bind to, asked of the loader, not through
 * this object's GOT, which -Bsymbolic-functions would bind to the stubs. */
void fastcpu_task_tls_at_load(void)
{
#if MARKING
	stubs_in_use = dlsym(RTLD_DEFAULT, "vfork") == (void *)fastcpu_vfork_stub &&
		       dlsym(RTLD_DEFAULT, "clone") == (void *)fastcpu_clone_stub;
#endif
}

/*
 * The thread library's descriptor holds its thread's tid, and
 * pthread_getcpuclockid() reads it without a system call, encoded as the
 * kernel's per-thread CPU clock id (~tid << 3 | 6, glibc and musl alike);
 * gettid is the calling task's.
 */
bool fastcpu_task_owns_tls(void)
{
	clockid_t clock;
	int32_t encoded;

	if (__atomic_load_n(&stubs_in_use, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&fastcpu_tls_sharer_made, __ATOMIC_RELAXED))
		return true;
	if (pthread_getcpuclockid(pthread_self(), &clock) != 0)
		return false;
	encoded = (int32_t)clock;
	return ~(encoded >> 3) == fastcpu_raw_syscall_errno(SYS_gettid, 0, 0, 0, 0);
}
