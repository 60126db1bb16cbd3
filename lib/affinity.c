/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/affinity.c: the affinity functions, seen by the cache on their way. */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>

#include "answer-cache.h"
#include "internal.h"
#include "once.h"

/*
 * glibc's contract: after a thread's affinity is set to one CPU, its next
 * sched_getcpu() says that CPU, whichever thread set it and how. The cache
 * must see every change (answer-cache.c), so both functions that make one are
 * interposed, in every version libc defines them at (configure lists them):
 * sched_setaffinity and pthread_setaffinity_np take a set size, except at
 * GLIBC_2.3.3, where the set is 1024 CPUs. Each wrapper brackets a call to
 * the next definition of the same version (another interposer, or libc:
 * RTLD_NEXT) with the cache's epoch.
 *
 * Why non-default versions (sym@GLIBC_x, by .symver), and nothing else: the
 * dynamic linker binds a reference to sym@GLIBC_x to the first object in
 * the lookup order defining that name and version, so preloaded or linked
 * ahead of libc they interpose each ABI with its own wrapper; and the static
 * linker never binds a new reference to a non-default version, so a program
 * linked with -lfastcpu records its requirement on libc.so.6, never a
 * GLIBC_x of libfastcpu.so.0 (tests/packaging/link-abi.sh). An unversioned definition
 * would instead take calls of both ABIs, reading a GLIBC_2.3.3 caller's set
 * as a size. musl has one ABI and no versions: unversioned there.
 *
 * libfastcpu.a has none of this: a static program has no RTLD_NEXT, and a
 * shared object linked with the archive must not export glibc's names.
 */
#ifdef PIC

typedef int sched_set_fn(pid_t, size_t, const cpu_set_t *);
typedef int sched_set_sizeless_fn(pid_t, const cpu_set_t *);
typedef int pthread_set_fn(pthread_t, size_t, const cpu_set_t *);
typedef int pthread_set_sizeless_fn(pthread_t, const cpu_set_t *);

/* The next definition of name@version after this library (any version
 * when NULL); NULL if there is none. */
static void *next_definition(const char *name, const char *version)
{
#ifdef __GLIBC__
	return version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
#else
	(void)version;		/* musl: no versions, no dlvsym */
	return dlsym(RTLD_NEXT, name);
#endif
}

#define NEXT(type, name, version)					\
	({								\
		static void *next_;					\
		(type *)fastcpu_once(&next_, next_definition(name, version)); \
	})

/* The call, inside the cache's bracket: errno and result are the callee's. */
#define CHANGE_AFFINITY(next, missing, ...)				\
	({								\
		int ret_;						\
		if ((next) == NULL) {					\
			errno = ENOSYS;					\
			ret_ = (missing);				\
		} else {						\
			fastcpu_affinity_change_begin();		\
			ret_ = (next)(__VA_ARGS__);			\
			fastcpu_affinity_change_end();			\
		}							\
		ret_;							\
	})

#define AT_VERSION(fn, name, version) \
	__asm__(".symver " #fn "," name "@" version)

/* The wrapper of func at version, taking params and passing the rest on. */
#define WRAPPER(func, suffix, fn_type, missing, version, params, ...)	\
	FASTCPU_EXPORT fn_type fastcpu_glibc_##func##_##suffix;		\
	int fastcpu_glibc_##func##_##suffix params			\
	{								\
		fn_type *next = NEXT(fn_type, #func, version);		\
		return CHANGE_AFFINITY(next, missing, __VA_ARGS__);	\
	}								\
	AT_VERSION(fastcpu_glibc_##func##_##suffix, #func, version);

#define SCHED_SIZED(i, version)						\
	WRAPPER(sched_setaffinity, i, sched_set_fn, -1, version,	\
		(pid_t pid, size_t size, const cpu_set_t *set), pid, size, set)
#define PTHREAD_SIZED(i, version)					\
	WRAPPER(pthread_setaffinity_np, i, pthread_set_fn, ENOSYS, version, \
		(pthread_t thread, size_t size, const cpu_set_t *set),	\
		thread, size, set)

#ifdef FASTCPU_SCHED_SETAFFINITY_SIZED
FASTCPU_SCHED_SETAFFINITY_SIZED(SCHED_SIZED)
FASTCPU_PTHREAD_SETAFFINITY_SIZED(PTHREAD_SIZED)
#else
/* No versions in libc (musl): the plain names. */
FASTCPU_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	sched_set_fn *next = NEXT(sched_set_fn, "sched_setaffinity", NULL);

	return CHANGE_AFFINITY(next, -1, pid, size, set);
}

FASTCPU_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size,
					  const cpu_set_t *set)
{
	pthread_set_fn *next = NEXT(pthread_set_fn, "pthread_setaffinity_np", NULL);

	return CHANGE_AFFINITY(next, ENOSYS, thread, size, set);
}
#endif

#ifdef FASTCPU_SCHED_SETAFFINITY_SIZELESS
WRAPPER(sched_setaffinity, sizeless, sched_set_sizeless_fn, -1,
	FASTCPU_SCHED_SETAFFINITY_SIZELESS,
	(pid_t pid, const cpu_set_t *set), pid, set)
#endif
#ifdef FASTCPU_PTHREAD_SETAFFINITY_SIZELESS
WRAPPER(pthread_setaffinity_np, sizeless, pthread_set_sizeless_fn, ENOSYS,
	FASTCPU_PTHREAD_SETAFFINITY_SIZELESS,
	(pthread_t thread, const cpu_set_t *set), thread, set)
#endif

#endif /* PIC */
