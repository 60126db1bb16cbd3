/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/preempted.h: the per-CPU lock's holder preempted, with and without the kernel's help. */

#ifndef FASTCPU_BENCH_PREEMPTED_H
#define FASTCPU_BENCH_PREEMPTED_H

#include <stdbool.h>

/*
 * A holder and a waiter on one CPU, the holder taking the lock for about
 * 2 us at a time: how often the waiter finds it taken (the holder was
 * preempted inside), and the CPU time the waiter spends per acquisition.
 * Without, then with, the kernel's time-slice extension where it offers
 * it (with it, a holder preempted inside is let to finish first).
 */
struct preempted_run {
	long acquisitions;	/* the waiter's */
	long found_taken;
	double wait_ns;		/* waiter CPU ns per acquisition */
	long granted;		/* the holder's: extensions the kernel gave */
};

struct preempted_table {
	bool offered;		/* the kernel extends time slices here */
	bool ran;
	struct preempted_run off, on;
};

void preempted_measure(struct preempted_table *t, double seconds);

#endif /* FASTCPU_BENCH_PREEMPTED_H */
