/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/loops.h: the reads of <fastcpu.h> in a hot loop, against the floor. */

#ifndef FASTCPU_BENCH_LOOPS_H
#define FASTCPU_BENCH_LOOPS_H

#include <stdbool.h>

#include "measure.h"

/* The calling thread's rseq cpu_id where <fastcpu.h> reads it, after its
 * first call; NULL if it has none there. */
const volatile int *loops_rseq_cpu_id(void);

/* Finds the calling thread's rseq area (after its first call); false if
 * it has none, and the reference rows are left out. */
bool loops_init(void);

/* Fills cases (room for LOOPS_MAX, [0] the empty loop); returns how many. */
#define LOOPS_MAX 10
int loops_cases(struct bench_result *cases, bool reference_rows);

#endif /* FASTCPU_BENCH_LOOPS_H */
