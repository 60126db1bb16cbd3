/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/sequence-guard.h: whether this kernel may run the library's sequences. */

#ifndef FASTCPU_SEQUENCE_GUARD_H
#define FASTCPU_SEQUENCE_GUARD_H

#include <stddef.h>

/* Whether the library may run its sequences (on a thread's area, or in
 * this process): not known yet, yes, or no. */
enum fastcpu_sequences { FASTCPU_SEQUENCES_UNKNOWN, FASTCPU_SEQUENCES_YES,
			 FASTCPU_SEQUENCES_NO };

/*
 * Whether the kernel aborts a preempted sequence, as this process needs it
 * known (sequence-guard.c says how): without a probe or a system call, so
 * at load (UNKNOWN where only the probe can tell) ...
 */
enum fastcpu_sequences fastcpu_guard_known(void);
/* ... or decided, probing where needed, once per process: the first
 * per-CPU operation of a thread with an area asks. UNKNOWN while another
 * thread of the process probes (the caller takes the upper half). */
enum fastcpu_sequences fastcpu_guard_decide(void);
/* How many probes the guard ran in this process (the tests). */
unsigned long fastcpu_guard_probes(void);
/* The decision and why, in one line (fastcpu info); "" while undecided. */
void fastcpu_guard_describe(char *line, size_t size);

#endif /* FASTCPU_SEQUENCE_GUARD_H */
