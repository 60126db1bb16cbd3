/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/abort-probe.h: whether the kernel aborts a sequence preempted on its CPU. */

#ifndef FASTCPU_ABORT_PROBE_H
#define FASTCPU_ABORT_PROBE_H

#include <stdbool.h>

/* Where the probe is written: the architectures whose sequences are. */
#if defined(__x86_64__) || defined(__aarch64__)
# define FASTCPU_ABORT_PROBE_WRITTEN 1
#endif

enum fastcpu_probe_outcome {
	FASTCPU_PROBE_ABORTED,		/* the kernel read rseq_cs at every preemption seen */
	FASTCPU_PROBE_RESUMED,		/* it left rseq_cs unread at one: a sequence
					 * there would have run on to its end */
	FASTCPU_PROBE_UNDECIDED,	/* too few preemptions seen, or no probe ran */
};
struct fastcpu_probe_result {
	enum fastcpu_probe_outcome outcome;
	unsigned long preemptions;	/* by the other thread of the CPU, ids unchanged */
	unsigned long read, missed;	/* of them: rseq_cs read (cleared), left set */
	const char *why;		/* UNDECIDED: what stopped it */
};

/* Runs the probe (abort-probe.c says how): about 20 ms where the kernel
 * aborts, less where it does not; async-signal-safe, errno kept, and the
 * calling thread's state (affinity, signal mask, area) left as it was. */
struct fastcpu_probe_result fastcpu_abort_probe(void);
/* The same with the fault caused (the tests'): the spinner's area is never
 * registered, so no preemption reads its rseq_cs, as on a kernel that
 * resumed preempted sequences; the result says RESUMED. */
struct fastcpu_probe_result fastcpu_abort_probe_unregistered(void);

#endif /* FASTCPU_ABORT_PROBE_H */
