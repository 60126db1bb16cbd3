/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* lib/backends.h: the ways to ask for the CPU without rseq. */

#ifndef FASTCPU_BACKENDS_H
#define FASTCPU_BACKENDS_H

#include <stdbool.h>

/* A way to ask for the CPU without rseq. cpu() serves sched_getcpu() and
 * returns the CPU or -1 with errno set as the kernel set it; cpu_node()
 * serves getcpu() as the kernel's does: a consistent pair into the words
 * that are not NULL (the node last, where both are one word), returning 0
 * or -1 with errno set. Both are async-signal-safe and leave errno alone
 * on success; only a system call can fail. */
struct fastcpu_backend {
	const char *name;
	int id;				/* enum fastcpu_backend_id */
	int (*cpu)(void);
	int (*cpu_node)(unsigned int *cpu, unsigned int *node);
	/* cpu, with errno as it was even where it fails (the per-CPU
	 * operations set no errno): cpu itself where it cannot fail. */
	int (*cpu_quiet)(void);
};


/* The backends (backend-*.c), and whether each works on this machine. */
extern const struct fastcpu_backend fastcpu_backend_rdpid;
extern const struct fastcpu_backend fastcpu_backend_vdso;
extern const struct fastcpu_backend fastcpu_backend_syscall;
bool fastcpu_rdpid_usable(void);
bool fastcpu_vdso_usable(void);

#endif /* FASTCPU_BACKENDS_H */
