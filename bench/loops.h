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

/* Table 5's rows, in its order; the librseq-style reference rows only
 * where the thread reads an rseq area. */
enum loop_case {
	LOOP_EMPTY,		/* not subtracted */
	LOOP_FLOOR,		/* a bare load of cpu_id, its address found once */
	LOOP_RAW,
	LOOP_CHECKED,
	LOOP_CURRENT_CPU,
	LOOP_RAW_PAIR,
	LOOP_PAIR,
	LOOP_RAW_CID,
	LOOP_CID,
	LOOP_CASES
};

/* Fills cases[each case], the reference rows without a loop unless
 * reference_rows. */
void loops_cases(struct bench_result cases[LOOP_CASES], bool reference_rows);

#endif /* FASTCPU_BENCH_LOOPS_H */
