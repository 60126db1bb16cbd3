/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/thread.h: what a thread knows in the core, in one place: its one TLS structure. */

#ifndef FASTCPU_THREAD_H
#define FASTCPU_THREAD_H

#include <stdint.h>

#include "internal.h"

/*
 * Everything the library keeps per thread, beside the words the inline
 * paths of programs read (cpu-id.c: the anchor and the thread's pointer,
 * whose places the ABI fixes) and the library's own area (own-area.c,
 * aligned as the kernel asks). Each field is written by the one file
 * named beside it; a signal handler may run on its own thread's, so a
 * field its handler may change is volatile or changed with a signal fence.
 *
 * The per-CPU data wing keeps its own (percpu/wing-thread.h): the core
 * never names it.
 */
struct fastcpu_thread {
	/* attach.c: which area the thread reads (enum fastcpu_area_kind),
	 * whether its per-CPU operations run sequences there (enum
	 * fastcpu_sequences, as far as known), whether it is registering its
	 * own area now (a signal handler that interrupts that is answered by
	 * the fallback), and the calls a vfork child lets pass before it asks
	 * again whether it may register (attach_skips; sharing_gap the last
	 * such count). */
	unsigned char area, sequences, registering;
	/* program-area.c: it holds one reference to the owner's shared area. */
	unsigned char holds_shared_ref;
	unsigned int attach_skips, sharing_gap;
	/* answer-cache.c: the fallback's answer, its tick and affinity epoch
	 * (cpu and node in one word, one store). */
	struct fastcpu_kept_answer {
		volatile uint32_t key, epoch, cpu_node;
	} answer;
};

extern __thread struct fastcpu_thread fastcpu_thread
	__attribute__((visibility("hidden"), tls_model("initial-exec")));

#endif /* FASTCPU_THREAD_H */
