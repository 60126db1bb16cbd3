/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/internal.h: what every file of the library needs: macros, all hidden. */

#ifndef FASTCPU_INTERNAL_H
#define FASTCPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fastcpu.h"

#include "arch.h"

#define FASTCPU_EXPORT	__attribute__((visibility("default")))
/* For the few helpers every out-of-line path starts with: a copy of its
 * own in each caller, never a call (a call makes its caller build a frame). */
#define FASTCPU_INLINE	static inline __attribute__((always_inline))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Initial-exec TLS: a static TLS slot read at a fixed offset from the thread
 * pointer, never allocated lazily (so async-signal-safe), and initialised by
 * the TLS image before the thread runs any code. */
#define FASTCPU_TLS __thread __attribute__((tls_model("initial-exec")))

/*
 * Whether this object can see every affinity change made in the process:
 * only the shared library interposes the affinity functions (affinity.c);
 * libfastcpu.a defines no glibc names a program or shared object would
 * export (libtool builds the shared library's objects with -DPIC).
 */
#ifdef PIC
# define FASTCPU_SEES_AFFINITY	1
# define FASTCPU_GLIBC_NAME	FASTCPU_EXPORT
#else
# define FASTCPU_SEES_AFFINITY	0
# define FASTCPU_GLIBC_NAME	__attribute__((visibility("hidden")))
#endif

/* Linux's largest NR_CPUS: no CPU number reaches it. */
#define FASTCPU_MAX_CPUS 8192

/* The object at offset from the calling thread's thread pointer. */
static inline void *fastcpu_thread_at(ptrdiff_t offset)
{
	return (char *)fastcpu_arch_thread_pointer() + offset;
}

#endif /* FASTCPU_INTERNAL_H */
