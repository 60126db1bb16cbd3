/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* tools/count.h: the counts fastcpu count's shim keeps, one file a process. */

#ifndef FASTCPU_COUNT_H
#define FASTCPU_COUNT_H

/*
 * Each process the shim (count-shim.c) is loaded into maps a file of its
 * own, FASTCPU_COUNT_DIR/PID, shared: every thread counts its calls in a
 * slot of its own there, and the counts outlive the process however it
 * ends (exit, _exit, a signal). fastcpu count (count.c) reads the files
 * once the command has ended.
 */
#define FASTCPU_COUNT_SLOTS 16384	/* threads beyond share the last one */

struct fastcpu_count_slot {
	unsigned long sched_getcpu, getcpu;
	/* ...of them, those the thread asked without an rseq area the
	 * library reads (no rseq, an owner's not registered there): the
	 * fallback answered them */
	unsigned long sched_fallback, getcpu_fallback;
	char pad[64 - 4 * sizeof(unsigned long)];	/* a line each */
};

struct fastcpu_count_file {
	unsigned int threads;	/* slots claimed */
	char pad[60];
	struct fastcpu_count_slot slot[FASTCPU_COUNT_SLOTS];
};

#endif /* FASTCPU_COUNT_H */
