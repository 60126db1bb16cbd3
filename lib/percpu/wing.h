/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wing.h: what the per-CPU data wing shares. */

#ifndef FASTCPU_PERCPU_WING_H
#define FASTCPU_PERCPU_WING_H

/*
 * The per-CPU data wing: each file of lib/percpu/ includes the core's
 * headers (lib/) it reads, what a thread reads and what answers it
 * without rseq, and takes from here what the wing shares: the upper
 * half's CPU, its locks, waiting for a holder. The core never calls the
 * wing.
 */
#include <stdbool.h>
#include <stddef.h>

#include "internal.h"
#include "lock.h"
#include "upper.h"
#include "wait.h"

/* Whether this build runs under AddressSanitizer, as <fastcpu/objcache.h>
 * (internal.h's <fastcpu.h>) found: the object cache keeps a free object
 * poisoned, all of it, from its free to its next alloc. */
#ifdef FASTCPU_OBJCACHE_SANITIZED_
# define FASTCPU_ASAN 1
# include <sanitizer/asan_interface.h>
#endif

#endif /* FASTCPU_PERCPU_WING_H */
