/* SPDX-License-Identifier: MIT */
/* SPDX-FileCopyrightText: 2026 The libfastcpu authors */
/* bench/latency.h: the answer waited on (a locked add, a chained load). */

#ifndef FASTCPU_BENCH_LATENCY_H
#define FASTCPU_BENCH_LATENCY_H

#include "rows.h"

/* Table 7: every way of asking this machine has, twice, keyed by way
 * (work_alone: the work alone): rows of "latency-locked-add", a locked add
 * on the answer's shard follows, and of "latency-chained-load", the answer
 * indexes a load the next index adds; ns per call beyond the work. */
void latency_measure(struct rows *out);

/* Table 7's (a) of glibc's and the library's exported calls and the
 * system call only, as rows of table (a process of the setup table). */
void latency_measure_waited(struct rows *out, const char *table);

#endif /* FASTCPU_BENCH_LATENCY_H */
