/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/preempted.h: the per-CPU lock's holder preempted, with and without the kernel's help. */

#ifndef FASTCPU_BENCH_PREEMPTED_H
#define FASTCPU_BENCH_PREEMPTED_H

#include "rows.h"

/*
 * Table 9, rows of "preempted-lock": a holder and a waiter on one CPU, the
 * holder taking the lock for about 2 us at a time: how often the waiter
 * finds it taken (the holder was preempted inside), and the CPU time the
 * waiter spends per acquisition. Without, then with, the kernel's
 * time-slice extension where it offers it (with it, a holder preempted
 * inside is let to finish first).
 */
void preempted_measure(struct rows *out);

#endif /* FASTCPU_BENCH_PREEMPTED_H */
