/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/cpu-id.h: where each thread finds its cpu_id. */

#ifndef FASTCPU_CPU_ID_H
#define FASTCPU_CPU_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Values fastcpu_cpu_id_ref points at before and instead of an area. */
#define FASTCPU_CPU_UNATTACHED	(-1)	/* thread has not asked yet */
#define FASTCPU_CPU_NO_RSEQ	(-2)	/* thread uses the fallback */

/* The calling thread's cpu_id: an area's, or a marker (cpu-id.c says how it
 * relates to the offsets <fastcpu.h> reads). */
extern __thread const volatile int *fastcpu_cpu_id_ref
	__attribute__((visibility("default"), tls_model("initial-exec")));
/* The marker of a thread that has not attached, known by its address: an
 * owner's area not registered in the thread reads -1 too. */
extern const int fastcpu_cpu_unattached __attribute__((visibility("hidden")));
/* The calling thread reads this area's cpu_id from now on (NULL: the
 * fallback serves it). */
void fastcpu_thread_reads(const volatile int *cpu_id);

/* Publishes the cpu_id word at this address (every thread's area at the
 * same offset from its anchor), with the node and cid words it implies;
 * false if another one was published before. */
bool fastcpu_publish_cpu_id(const volatile int *cpu_id);
/* The inline per-CPU operations may run their sequences on the areas at
 * the published cpu_id word (fastcpu_percpu_cpu_id_offset). */
void fastcpu_publish_sequences(void);
/* ...or, where they may not, change the upper half's slot of the CPU read
 * there (fastcpu_percpu_upper_cpu_id_offset). */
void fastcpu_publish_upper(void);
/* Whether the calling thread's fallback is RDPID: its word at
 * fastcpu_percpu_rdpid_offset, the upper half's first index or 0. */
void fastcpu_thread_reads_rdpid(bool rdpid);
/* What the library's entry points read: its own copy of the published
 * offsets, reached without the GOT (the exported words may live in the
 * program, copied there by copy relocations), written with them. */
struct fastcpu_offsets {
	ptrdiff_t cpu_id, node_id, cid;	/* 0: not published */
	ptrdiff_t percpu;		/* fastcpu_percpu_cpu_id_offset's copy */
};
extern struct fastcpu_offsets fastcpu_offsets;
/* The calling thread's word at a published offset (the anchor, -1, at 0). */
static inline const volatile int *fastcpu_published_word(const ptrdiff_t *offset)
{
	return fastcpu_tls_word_(__atomic_load_n(offset, __ATOMIC_RELAXED));
}

#endif /* FASTCPU_CPU_ID_H */
