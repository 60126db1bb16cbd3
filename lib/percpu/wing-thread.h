/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/percpu/wing-thread.h: what a thread keeps in the per-CPU data wing. */

#ifndef FASTCPU_PERCPU_WING_THREAD_H
#define FASTCPU_PERCPU_WING_THREAD_H

#include <stdint.h>

#include "internal.h"

/*
 * The wing's per-thread state, beside the core's (thread.h), which never
 * names it. Each field is written by the one file named beside it (with
 * its header's inline steps); a signal handler may run on its own
 * thread's, so a field its handler may change is volatile or changed
 * with a signal fence.
 */
struct fastcpu_front;

struct fastcpu_wing_thread {
	/* upper.[ch]: the upper half's slot a thread without an area's CPU
	 * takes (upper.h says why it is kept), and the takes left before the
	 * fallback is asked again. */
	struct {
		unsigned int slot, reuses;
	} upper;
	/* lock.[ch]: the ranks of the locks it holds or is taking, summed,
	 * and its serial (0 until its first lock). */
	struct {
		volatile unsigned int held;
		uint64_t serial;
	} lock;
	/* objcache-front.c: its front of the object cache's upper path
	 * (NULL until its first use). */
	struct fastcpu_front *front;
};

extern __thread struct fastcpu_wing_thread fastcpu_wing_thread
	__attribute__((visibility("hidden"), tls_model("initial-exec")));

#endif /* FASTCPU_PERCPU_WING_THREAD_H */
