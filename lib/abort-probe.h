/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/abort-probe.h: whether the kernel aborts a sequence preempted on its CPU. */

#ifndef FASTCPU_ABORT_PROBE_H
#define FASTCPU_ABORT_PROBE_H

#include <stdbool.h>

enum fastcpu_probe_outcome {
	FASTCPU_PROBE_ABORTED,		/* every preemption seen aborted its sequence */
	FASTCPU_PROBE_RESUMED,		/* a preempted sequence ran on to its end, or
					 * the kernel killed the task inside one */
	FASTCPU_PROBE_UNDECIDED,	/* too few preemptions seen, or no probe ran */
};
struct fastcpu_probe_result {
	enum fastcpu_probe_outcome outcome;
	unsigned long preemptions;	/* sequences aborted across the writer's turn */
	unsigned long aborts, resumed;	/* the spinner's sequences */
	bool killed;			/* RESUMED: the kernel killed the spinner */
	const char *why;		/* UNDECIDED: what stopped it */
};

/* Runs the probe (abort-probe.c says how): about 20 ms where the kernel
 * aborts, less where it does not; async-signal-safe, errno kept, and the
 * calling thread's state (affinity, signal mask, area) left as it was. */
struct fastcpu_probe_result fastcpu_abort_probe(void);
/* The same with its fault caused (the tests'): the writer kills the
 * spinner with SIGKILL at its first turn, as a kernel that kills it inside
 * its sequence does; the result says RESUMED, killed. */
struct fastcpu_probe_result fastcpu_abort_probe_killing(void);

#endif /* FASTCPU_ABORT_PROBE_H */
