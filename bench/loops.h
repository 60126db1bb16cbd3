/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/loops.h: the reads of <fastcpu.h> in a hot loop, against the floor. */

#ifndef FASTCPU_BENCH_LOOPS_H
#define FASTCPU_BENCH_LOOPS_H

#include "rows.h"

/* The calling thread's rseq cpu_id where <fastcpu.h> reads it, after its
 * first call; NULL if it has none there. */
const volatile int *loops_rseq_cpu_id(void);

/* Table 5, rows of table "loop": the inline reads in a loop, with the
 * librseq-style reference rows where the thread reads an rseq area. */
void loops_measure(struct rows *out);

#endif /* FASTCPU_BENCH_LOOPS_H */
